"""ARCHITECTURE.md names every Python module of the package (as a path relative to agent_brain_lab/)."""

from __future__ import annotations

from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
PACKAGE = REPO / "agent_brain_lab"


def modules(package: Path) -> list[str]:
    return sorted(p.relative_to(package).as_posix() for p in package.rglob("*.py"))


def unnamed(doc: str, names: list[str]) -> list[str]:
    """The module paths ``doc`` does not name as a code span (`engine/brain.py`)."""
    return [name for name in names if f"`{name}`" not in doc]


def test_every_module_is_named_in_architecture_md():
    names = modules(PACKAGE)
    assert "engine/brain.py" in names and len(names) > 40  # the walk found the package
    missing = unnamed((REPO / "ARCHITECTURE.md").read_text(encoding="utf-8"), names)
    assert not missing, f"ARCHITECTURE.md does not name these modules (add them to 'Every module'): {missing}"


def test_a_module_left_out_is_reported(tmp_path):
    (tmp_path / "engine").mkdir()
    (tmp_path / "engine" / "new_part.py").write_text("")
    (tmp_path / "engine" / "brain.py").write_text("")
    names = modules(tmp_path)
    assert unnamed("| `engine/brain.py` | the facade |", names) == ["engine/new_part.py"]
    assert unnamed("engine/new_part.py without backticks", ["engine/new_part.py"]) == ["engine/new_part.py"]
