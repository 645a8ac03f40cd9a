"""Go symbols as the Go doc comment benchmark needs them (benchmarks/go_docstrings.py): a method is
``Receiver.Method`` whatever its receiver's pointer and type parameters, a ``//`` doc comment right
above a declaration is part of its chunk (in a grouped ``type (...)`` too), and an interface's
documented methods stay in the interface's chunk."""

from __future__ import annotations

from agent_brain_lab.engine.chunking.code import analyze_code

GO = """// Package demo is a demo.
package demo

// List is a generic linked list.
type List[T any] struct {
	// head is the first element.
	head *node[T]
}

// Push adds a value at the front of the list.
func (l *List[T]) Push(v T) {
	l.head = &node[T]{v, l.head}
}

// Swap exchanges the two values.
func (p Pair[K, V]) Swap() Pair[V, K] { return Pair[V, K]{p.v, p.k} }

type (
	// node holds one element.
	node[T any] struct {
		v    T
		next *node[T]
	}

	// Pair is two values.
	Pair[K comparable, V any] struct {
		k K
		v V
	}
)

// Store persists records.
type Store interface {
	// Get fetches one record by its key.
	Get(key string) (string, error)
}
"""


def test_go_receivers_grouped_types_and_doc_comments():
    analysis = analyze_code("demo.go", GO, "go", "code", 1500)
    spans = {(s.qualname, s.kind): (s.start_line, s.end_line) for s in analysis.symbols}
    assert spans == {
        ("List", "struct"): (4, 8),
        ("List.Push", "method"): (10, 13),
        ("Pair.Swap", "method"): (15, 16),
        ("node", "struct"): (19, 23),
        ("Pair", "struct"): (25, 29),
        ("Store", "interface"): (32, 36),
    }
    by_name = {c.qualified_symbol: c for c in analysis.chunks if c.symbol_name}
    assert by_name["List.Push"].text.startswith("// Push adds a value")
    assert by_name["List.Push"].parent_symbol == "List"
    assert by_name["node"].text.lstrip().startswith("// node holds one element.")
    assert by_name["Pair"].text.lstrip().startswith("// Pair is two values.")
    assert "// Get fetches one record" in by_name["Store"].text
    assert "// head is the first element." in by_name["List"].text
