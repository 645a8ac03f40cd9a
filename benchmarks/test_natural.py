"""The natural-question benchmark: its grading on a hand-made case, its question files, and a whole run
of the real engine on a tiny package (bm25 and the baseline; the index embeds with the real model)."""

import hashlib
import io
import json
import math
import subprocess
import tarfile
from pathlib import Path

import pytest

from benchmarks import natural
from benchmarks.natural import Answer, gains, question_scores


def _r(source, start, end):
    return {"source": source, "start_line": start, "end_line": end}


ANSWERS = (Answer("f.py", 10, 20, 2), Answer("f.py", 30, 40, 1), Answer("g.md", 1, 5, 2))


def test_each_answer_counts_once_and_only_by_file_and_overlapping_lines():
    results = [
        _r("g.md", 50, 60),  # right file, lines apart
        _r("f.py", 15, 18),  # inside the first answer
        _r("f.py", 12, 14),  # the first answer again: no second credit
        _r("f2.py", 10, 20),  # same lines, other file
        _r("f.py", 35, 50),  # overlaps the grade-1 answer
        _r("g.md", 3, 3),
    ]
    assert gains(results, ANSWERS) == [0, 2, 0, 0, 1, 2]


def test_scores_of_the_hand_made_case():
    earned = [0, 2, 0, 0, 1, 2]
    s = question_scores(earned, ANSWERS)
    dcg = 2 / math.log2(3) + 1 / math.log2(6) + 2 / math.log2(7)
    ideal = 2 / math.log2(2) + 2 / math.log2(3) + 1 / math.log2(4)
    assert s["ndcg"] == pytest.approx(dcg / ideal)
    assert s["mrr"] == 0.5  # the first grade-2 answer is at rank 2
    assert (s["s1"], s["s3"], s["s10"]) == (0.0, 1.0, 1.0)


def test_a_grade_1_answer_alone_earns_ndcg_but_no_success():
    s = question_scores(gains([_r("f.py", 30, 31)], ANSWERS), ANSWERS)
    assert 0 < s["ndcg"] < 1
    assert (s["mrr"], s["s1"], s["s10"]) == (0.0, 0.0, 0.0)
    perfect = [_r("f.py", 10, 10), _r("g.md", 1, 1), _r("f.py", 30, 30)]
    assert question_scores(gains(perfect, ANSWERS), ANSWERS)["ndcg"] == pytest.approx(1.0)


def test_a_result_overlapping_two_answers_takes_the_higher_grade_first():
    answers = (Answer("a.py", 1, 10, 1), Answer("a.py", 5, 15, 2))
    assert gains([_r("a.py", 4, 6), _r("a.py", 1, 3)], answers) == [2, 1]


def test_only_the_top_k_count():
    earned = gains([_r("x.py", 1, 1)] * 10 + [_r("f.py", 10, 10)], ANSWERS)
    assert earned == [0] * 10
    assert question_scores(earned, ANSWERS)["ndcg"] == 0.0


def _doc(**over):
    doc = {
        "repository": "tiny",
        "language": "python",
        "split": "report",
        "package": {"registry": "pypi", "name": "tiny", "version": "1.0", "file": "tiny-1.0.tar.gz", "sha256": "0"},
        "include": ["src", "README.md"],
        "questions": [
            {
                "id": "tiny-001",
                "kind": "error",
                "query": "ValueError: the spline has fewer than 4 knots",
                "answers": [{"path": "src/tiny/spline.py", "start_line": 4, "end_line": 6, "grade": 2}],
            },
            {
                "id": "tiny-002",
                "kind": "usage",
                "query": "how do I install tiny",
                "answers": [{"path": "README.md", "start_line": 1, "end_line": 3, "grade": 2}],
            },
        ],
    }
    doc.update(over)
    return doc


def test_a_question_file_is_checked():
    repo = natural.parse_repository(_doc())
    assert [q.place for q in repo.questions] == ["code", "docs"]
    bad = _doc()
    bad["questions"][0]["answers"][0]["grade"] = 1
    with pytest.raises(ValueError, match="no grade-2 answer"):
        natural.parse_repository(bad)
    bad = _doc()
    bad["questions"][1]["kind"] = "vibes"
    with pytest.raises(ValueError, match="kind must be one of"):
        natural.parse_repository(bad)
    with pytest.raises(ValueError, match="split must be one of"):
        natural.parse_repository(_doc(split="train"))


def test_the_shipped_question_files_meet_the_brief():
    repos = natural.load_repositories()
    questions = [q for r in repos for q in r.questions]
    assert len(repos) >= 4 and len(questions) >= 150
    assert len({r.language for r in repos}) >= 3
    assert {r.split for r in repos} == set(natural.SPLITS)
    assert {q.kind for q in questions} == set(natural.KINDS)
    assert {q.place for q in questions} == {"code", "docs"}
    assert len({q.query for q in questions}) == len(questions)


SPLINE = "import math\n\ndef knots(k):\n    if len(k) < 4:\n        raise ValueError(f'the spline has fewer than {4} knots')\n    return k\n"


def _tarball(path: Path, files: dict[str, str]) -> str:
    with tarfile.open(path, "w:gz") as tar:
        for name, text in files.items():
            data = text.encode()
            info = tarfile.TarInfo(name)
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))
    return hashlib.sha256(path.read_bytes()).hexdigest()


def test_unpack_takes_only_the_listed_members_and_refuses_escapes(tmp_path):
    archive = tmp_path / "p.tar.gz"
    _tarball(archive, {"p-1/src/a.py": "x = 1\n", "p-1/tests/t.py": "y\n", "p-1/README.md": "# p\n"})
    assert natural.unpack(archive, ["src", "README.md"], tmp_path / "out") == 2
    assert sorted(p.relative_to(tmp_path / "out").as_posix() for p in (tmp_path / "out").rglob("*.*")) == [
        "README.md",
        "src/a.py",
    ]
    _tarball(archive, {"p-1/src/../../evil.py": "x\n"})
    with pytest.raises(RuntimeError, match="unsafe member"):
        natural.unpack(archive, ["src"], tmp_path / "out2")


def test_a_whole_run_on_a_tiny_package(tmp_path):
    cache = tmp_path / "cache"
    packages = cache / "natural" / "packages"
    packages.mkdir(parents=True)
    files = {
        "tiny-1.0/src/tiny/spline.py": SPLINE,
        "tiny-1.0/src/tiny/other.py": "def unrelated():\n    return 'nothing here'\n",
        "tiny-1.0/README.md": "# tiny\n\nInstall it: pip install tiny\n",
        "tiny-1.0/tests/test_x.py": "def test(): pass\n",
    }
    digest = _tarball(packages / "tiny-1.0.tar.gz", files)
    questions = tmp_path / "questions"
    questions.mkdir()
    doc = _doc()
    doc["package"]["sha256"] = digest
    (questions / "tiny.json").write_text(json.dumps(doc))

    result = natural.evaluate(cache, lambda _: None, modes=["bm25"], directory=questions)
    root = cache / "natural" / "tiny-1.0" / "default" / "workspace"
    assert not (root / "tests").exists()  # not in the include list
    assert [q["id"] for q in result["questions"]] == ["tiny-001", "tiny-002"]
    assert set(result["summary"]) == {"bm25", natural.BASELINE}
    error = result["questions"][0]
    assert error["scores"]["bm25"]["s1"] == 1.0  # the raise site is the only file with these words
    assert result["summary"]["bm25"]["split:report"]["questions"] == 2
    assert "| bm25 | 2 |" in "\n".join(natural.markdown(result))
    other = json.loads(json.dumps(result))
    other["repositories"] = {"more": result["repositories"]["tiny"]}
    for q in other["questions"]:
        q["repository"], q["split"] = "more", "tune"
    merged = natural.merge([result, result, other])  # a repository given twice counts once
    assert len(merged["questions"]) == 4 and set(merged["repositories"]) == {"tiny", "more"}
    assert merged["summary"]["bm25"]["split:tune"]["questions"] == 2

    (packages / "tiny-1.0.tar.gz").write_bytes(b"changed")  # a tampered archive is refused
    with pytest.raises(RuntimeError, match="not the pinned"):
        natural.fetch(natural.parse_repository(doc).package, cache)


def test_the_docs_question_files_ask_about_docs_only_with_a_report_split():
    from benchmarks import docs_questions

    repos = natural.load_repositories(docs_questions.QUESTIONS_DIR)
    questions = [q for r in repos for q in r.questions]
    assert len(questions) >= 40 and len({q.query for q in questions}) == len(questions)
    assert {r.split for r in repos} == set(natural.SPLITS)
    assert {q.place for q in questions} == {"docs"}
    for r in repos:  # every answer lies in a member the workspace unpacks
        assert all(a.path.startswith(tuple(r.include)) for q in r.questions for a in q.answers), r.name


def _deb(tmp_path, package: str, files: dict[str, str]):
    """A Debian package built by ``dpkg-deb`` from ``files`` (path below the package root -> text),
    with a copyright file in its docs, as the registry's packages have."""
    pkg = tmp_path / "pkg"
    for rel, text in {**files, f"usr/share/doc/{package}/copyright": "MIT\n"}.items():
        (pkg / rel).parent.mkdir(parents=True, exist_ok=True)
        (pkg / rel).write_text(text)
    (pkg / "DEBIAN").mkdir()
    (pkg / "DEBIAN/control").write_text(
        f"Package: {package}\nVersion: 1.0-1\nArchitecture: all\nMaintainer: A <a@example.org>\nDescription: test\n"
    )
    archive = tmp_path / f"{package}_1.0-1_all.deb"
    subprocess.run(
        ["dpkg-deb", "--build", "--root-owner-group", str(pkg), str(archive)], check=True, capture_output=True
    )
    return archive


def _unpacked(out) -> list[str]:
    return sorted(p.relative_to(out).as_posix() for p in out.rglob("*") if p.is_file())


def test_unpack_reads_a_debian_go_package_below_its_gocode_folder(tmp_path):
    """A golang-*-dev package: its members are below usr/share/gocode/src, the rest (its docs) is not
    in the workspace."""
    src = f"{natural.GOCODE}/github.com/acme/flags"
    archive = _deb(
        tmp_path,
        "golang-github-acme-flags-dev",
        {f"{src}/flag.go": "package flags\n", f"{src}/flag_test.go": "package flags\n"},
    )
    out = tmp_path / "out"
    assert natural.unpack(archive, ["github.com/acme/flags"], out) == 2
    assert _unpacked(out) == ["github.com/acme/flags/flag.go", "github.com/acme/flags/flag_test.go"]


def test_unpack_reads_a_debian_rust_package_below_its_cargo_registry_folder(tmp_path):
    """A librust-*-dev package: the crate's sources are below usr/share/cargo/registry/<crate>-<version>."""
    crate = f"{natural.CARGO_REGISTRY}/semverish-1.0.0"
    files = {
        f"{crate}/src/lib.rs": "pub fn parse() {}\n",
        f"{crate}/Cargo.toml": '[package]\nname = "semverish"\n',
        f"{crate}/.cargo-checksum.json": "{}\n",
    }
    archive = _deb(tmp_path, "librust-semverish-dev", files)
    out = tmp_path / "out"
    assert natural.unpack(archive, ["semverish-1.0.0/src", "semverish-1.0.0/Cargo.toml"], out) == 2
    assert _unpacked(out) == ["semverish-1.0.0/Cargo.toml", "semverish-1.0.0/src/lib.rs"]


def test_unpack_reads_a_debian_ruby_package_below_the_root_its_question_file_names(tmp_path):
    """A ruby-* package puts the gem below usr/share/rubygems-integration/all/gems/<name>-<version>: the
    question file names that folder as its ``root``; members are read below it."""
    gem = "usr/share/rubygems-integration/all/gems/acme-1.0"
    files = {
        f"{gem}/lib/acme.rb": "module Acme\nend\n",
        f"{gem}/lib/acme/cli.rb": "module Acme\n  class Cli\n  end\nend\n",
    }
    archive = _deb(tmp_path, "ruby-acme", files)
    out = tmp_path / "out"
    assert natural.unpack(archive, ["lib"], out, root=gem) == 2
    assert _unpacked(out) == ["lib/acme.rb", "lib/acme/cli.rb"]
    thor = next(r for r in natural.load_repositories() if r.name == "thor")
    assert thor.root == "usr/share/rubygems-integration/all/gems/thor-1.2.1"


def test_a_notebook_answer_names_its_cell(tmp_path):
    """A notebook chunk's lines count from its cell's start: an answer in a notebook names the cell,
    a result counts only in that cell, and the baseline's windows are taken in each cell."""
    cells = [
        {"cell_type": "markdown", "metadata": {}, "source": "# Title\n\nIntro."},
        {"cell_type": "code", "metadata": {}, "outputs": [], "source": "a = 1\nb = 2\nc = 3"},
    ]
    text = json.dumps({"cells": cells, "metadata": {}, "nbformat": 4, "nbformat_minor": 5})
    answer = Answer("t.ipynb", 2, 3, 2, cell=1)
    assert gains([{"source": "t.ipynb", "start_line": 1, "end_line": 3, "cell_index": 0}], [answer]) == [0]
    assert gains([{"source": "t.ipynb", "start_line": 1, "end_line": 3, "cell_index": 1}], [answer]) == [2]
    rows = natural.baseline_rows("t.ipynb", text)
    assert [(row["cell_index"], row["start_line"], row["end_line"]) for row, _ in rows] == [(0, 1, 3), (1, 1, 3)]
    (tmp_path / "t.ipynb").write_text(text)
    doc = {
        "repository": "nb",
        "language": "python",
        "split": "tune",
        "package": {"registry": "pypi", "name": "nb", "version": "1", "file": "nb-1.tar.gz", "sha256": "0"},
        "include": ["t.ipynb"],
        "questions": [
            {
                "id": "nb-1",
                "kind": "usage",
                "query": "q",
                "answers": [{"path": "t.ipynb", "cell": 1, "start_line": 1, "end_line": 4, "grade": 2}],
            },
            {
                "id": "nb-2",
                "kind": "usage",
                "query": "q",
                "answers": [{"path": "t.ipynb", "cell": 5, "start_line": 1, "end_line": 1, "grade": 2}],
            },
        ],
    }
    assert natural.check_answers(natural.parse_repository(doc), tmp_path) == [
        "nb-1: t.ipynb cell 1 has fewer than 4 lines",
        "nb-2: t.ipynb has no cell 5",
    ]
