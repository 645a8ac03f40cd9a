"""The Go doc comment stripper (Go's own go/parser, run with ``go run``) keeps code and line numbers
intact, leaks no doc comment, and the targets are the documented declarations with their summaries.
No download. Without ``go`` the stripping test skips, and fails under CI (.ci/go.sh installs
Debian's golang-go)."""

from __future__ import annotations

from benchmarks.go_docstrings import strip_tree, summary, targets_of

GO = """// Package box holds boxes.
package box

import "fmt"

// Box is a generic container that holds one value at a time.
type Box[T any] struct {
	// value is the current content.
	value T
}

// Swap replaces the value held in the box and returns the old one.
func (b *Box[T]) Swap(v T) T {
	old := b.value // keep it
	b.value = v
	return old
}

type (
	// Pair groups two values of any types together.
	Pair[K comparable, V any] struct {
		k K
		v V
	}

	// Store persists records somewhere durable.
	Store interface {
		// Get fetches one record by its key from the store.
		Get(key string) (string, error)
		fmt.Stringer
	}
)

// New makes an empty box for the caller, ready for use.
//
// More detail here.
//
//go:noinline
func New[T any]() *Box[T] {
	s := "// not a comment"
	_ = s
	return &Box[T]{}
}

// Too short here.
func tiny() {}

// Version is the version string.
const Version = "1"

/* A block comment that documents a helper function nicely. */
func helper() string { return fmt.Sprint(Version) }
"""


def test_doc_comments_blanked_lines_kept(tmp_path, go):
    (tmp_path / "src" / "box").mkdir(parents=True)
    (tmp_path / "src" / "box" / "box.go").write_text(GO)
    (tmp_path / "src" / "box" / "box_test.go").write_text("package box\n\n// TestX is a test of X.\nfunc TestX() {}\n")
    (tmp_path / "src" / "_examples").mkdir()
    (tmp_path / "src" / "_examples" / "main.go").write_text(
        "package main\n\n// Main runs the example.\nfunc main() {}\n"
    )
    facts = strip_tree(tmp_path / "src", tmp_path / "out")
    assert facts["files"] == 1  # no _test.go, no folder the go tool ignores
    assert sorted(p.name for p in (tmp_path / "out").rglob("*") if p.is_file()) == ["box.go"]
    stripped = (tmp_path / "out" / "box" / "box.go").read_text()
    assert len(stripped) == len(GO)
    for old, new in zip(GO.splitlines(), stripped.splitlines(), strict=True):
        assert new == old or (not new.strip() and old.strip().startswith(("//", "/*")))
    for gone in ("generic container", "Swap replaces", "groups two", "persists records", "fetches one", "New makes"):
        assert gone not in stripped
    for kept in ("// Package box", "// value is the current", "// keep it", '"// not a comment"', "// Version is"):
        assert kept in stripped  # not a func/type/interface-method doc comment, or not a comment at all

    by_name = {d["qualname"]: d for d in facts["docs"]}
    assert {q: (d["kind"], d["start"], d["end"]) for q, d in by_name.items()} == {
        "Box": ("type", 7, 10),
        "Box.Swap": ("method", 13, 17),  # pointer and type parameters left out of the receiver
        "Pair": ("type", 21, 24),  # in a group: the spec's own lines
        "Store": ("type", 27, 31),
        "Store.Get": ("interface_method", 29, 29),
        "New": ("function", 39, 43),
        "tiny": ("function", 46, 46),
        "helper": ("function", 52, 52),
    }
    assert "go:noinline" not in by_name["New"]["doc"]  # a directive is not documentation

    targets = {t.qualname: t for t in targets_of(facts["docs"])}
    assert targets["Box.Swap"].query == "replaces the value held in the box and returns the old one."
    assert targets["New"].query == "makes an empty box for the caller, ready for use."
    assert targets["Box"].query == "is a generic container that holds one value at a time."
    assert targets["Store.Get"].query == "fetches one record by its key from the store."
    assert targets["helper"].query == "A block comment that documents a helper function nicely."
    assert "tiny" not in targets  # under four words once its name is left out


def test_summary_first_sentence_without_the_name():
    assert summary("Execute uses the args (os.Args[1:] by default). More here.", "Execute") == (
        "uses the args (os.Args[1:] by default)."
    )
    assert summary("A Router routes requests to handlers by path.\nSecond line. Third.", "Router") == (
        "routes requests to handlers by path."
    )
    assert summary("Sign signs with the key of J. Smith or Q. Public. More.", "Sign") == (
        "signs with the key of J. Smith or Q. Public."
    )
    assert summary("Get returns v1.2 of the http.Client config.", "Get") == "returns v1.2 of the http.Client config."
    assert summary("Run runs it.", "Run") is None
    assert summary("Version 1.2 of the protocol is spoken here.", "Speak") == (
        "Version 1.2 of the protocol is spoken here."
    )
