"""The TypeScript relation questions: answers from the compiler, questions about names declared once."""

from __future__ import annotations

from benchmarks.ts_relations import compiler_facts, questions


def test_the_compiler_resolves_what_the_names_alone_cannot(tmp_path, typescript):
    (tmp_path / "a.ts").write_text("export class A {\n  next() {}\n}\nexport class B {\n  next() {}\n}\n")
    (tmp_path / "use.ts").write_text(
        "import { A, B } from './a';\n"
        "export function drive(a: A) {\n  const inner = () => a.next();\n  inner();\n  return new B();\n}\n"
    )
    facts = compiler_facts(tmp_path, typescript)
    by_id = {d["id"]: d["qualname"] for d in facts["defs"]}
    calls = {(by_id[u], by_id[v]) for u, v in facts["calls"]}
    assert calls == {("drive", "drive.inner"), ("drive", "B"), ("drive.inner", "A.next")}
    asked = questions(facts)
    callees = dict(asked["callees"])
    assert {t.qualname for q, answers in asked["callees"] if "drive" in q for t in answers} == {"drive.inner", "B"}
    assert not any("next" in q for q in callees)  # `next` is declared twice: never asked about
