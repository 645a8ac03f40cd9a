"""The JSDoc stripper keeps code and line numbers intact, leaks no doc comment, and the targets are
the documented declarations with their summaries (the TypeScript compiler parses; no download)."""

from __future__ import annotations

from benchmarks.codesearch import is_hit
from benchmarks.tsjs_docstrings import strip_tree, summary, targets_of

TS = """import { Thing } from './thing';

/**
 * Parse an HTTP header into a {@link Thing|header map}.
 *
 * More detail here.
 * @param raw the header text
 */
export function parse(raw: string): Thing;
export function parse(raw: string, strict: boolean): Thing;
export function parse(raw: string, strict?: boolean): Thing {
  const s = "/** not a comment */";
  return new Thing(raw, strict, s);
}

/** A box that holds one value at a time. */
export class Box {
  /**
   * Replace the value held in the box.
   * @returns the old value
   */
  swap(value: number): number {
    return value; // /** a line comment */
  }

  /** Too short. */
  get size() { return 1; }
}

/** Build the default retry policy used by requests. */
export const makePolicy = (attempts: number) => ({ attempts });
"""

JS = """'use strict';
/**
 * @summary Curry a function of any arity for later calls.
 * @param {Function} fn
 */
var curryN = _curry2(function curryN(length, fn) {
  return fn;
});
/** Same words in two places. */
function a() {}
/** Same words in two places. */
function b() {}
module.exports = curryN;
"""


def test_doc_comments_blanked_lines_kept(tmp_path, typescript):
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "parse.ts").write_text(TS)
    (tmp_path / "src" / "curry.js").write_text(JS)
    (tmp_path / "src" / "types.d.ts").write_text("/** Declared only. */\nexport declare const x: number;\n")
    facts = strip_tree(tmp_path / "src", tmp_path / "out", typescript)
    assert facts["files"] == 2
    assert not (tmp_path / "out" / "types.d.ts").exists()
    for name, original in (("parse.ts", TS), ("curry.js", JS)):
        stripped = (tmp_path / "out" / name).read_text()
        assert len(stripped) == len(original)
        assert [len(line) for line in stripped.splitlines()] == [len(line) for line in original.splitlines()]
        for old, new in zip(original.splitlines(), stripped.splitlines()):
            assert new == old or (not new.strip() and ("/*" in old or old.strip().startswith("*")))
    stripped = (tmp_path / "out" / "parse.ts").read_text()
    for gone in ("Parse an HTTP", "A box that", "Replace the value", "Too short", "default retry", "@param"):
        assert gone not in stripped
    assert '"/** not a comment */"' in stripped and "// /** a line comment */" in stripped  # not comments
    assert "Curry a function" not in (tmp_path / "out" / "curry.js").read_text()

    by_name = {(d["source"], d["qualname"]): d for d in facts["docs"]}
    parse = by_name[("parse.ts", "parse")]
    assert (parse["start"], parse["end"]) == (9, 14)  # first overload to the implementation's end
    assert (by_name[("parse.ts", "Box.swap")]["start"], by_name[("parse.ts", "Box.swap")]["end"]) == (22, 24)
    assert by_name[("parse.ts", "Box")]["start"] == 17
    assert by_name[("curry.js", "curryN")]["start"] == 6  # a factory's function, its @summary

    targets = {t.qualname: t for t in targets_of(facts["docs"])}
    assert targets["parse"].query == "Parse an HTTP header into a header map."
    assert targets["Box.swap"].query == "Replace the value held in the box."
    assert targets["curryN"].query == "Curry a function of any arity for later calls."
    assert "makePolicy" in targets and "Box" in targets
    assert "Box.size" not in targets  # under four words
    assert "a" not in targets and "b" not in targets  # one summary, two declarations: no single answer


def test_summary_cleaning():
    assert (
        summary("Emits {@link Observable} values <span>like map</span>.\n\nMore.")
        == "Emits Observable values like map."
    )
    assert summary("Too short here.") is None


def test_grading_by_lines_or_qualified_name():
    from benchmarks.docstrip import Target

    target = Target("Replace the value held in the box.", "parse.ts", "Box.swap", 22, 24)
    assert is_hit({"source": "parse.ts", "start_line": 20, "end_line": 22}, target)
    assert not is_hit({"source": "parse.ts", "start_line": 25, "end_line": 30}, target)
    assert is_hit(
        {"source": "parse.ts", "start_line": 1, "end_line": 2, "symbol_name": "swap", "parent_symbol": "Box"}, target
    )
    assert not is_hit({"source": "other.ts", "start_line": 22, "end_line": 24}, target)
