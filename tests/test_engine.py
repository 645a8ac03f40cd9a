"""The engine end to end: a real workspace, the real embedding model, every mode and filter."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from agent_brain_lab import Brain
from agent_brain_lab.engine.retrieval.multi import PROSE_WEIGHTS, RELATION_WEIGHTS
from agent_brain_lab.engine.retrieval.symbols import NAME_COVER_BOOST
from agent_brain_lab.engine.tokenizer import tokenize
from agent_brain_lab.engine.types import (
    BLANK_FILTER,
    MODES,
    InvalidRequest,
    ModelMismatch,
    ModelUnavailable,
    NotIndexed,
    QueryRequest,
    WorkspaceBusy,
)


def sources(response) -> list[str]:
    return [r.source for r in response.results]


# ------------------------------------------------------------------ indexing


def test_status_counts_files_chunks_languages_and_graph(brain):
    status = brain.status().to_dict()
    assert status["state"] == "ready" and status["generation"] >= 1
    by_lang = status["files"]["by_language"]
    for lang in (
        "python",
        "javascript",
        "typescript",
        "tsx",
        "java",
        "go",
        "rust",
        "c",
        "cpp",
        "csharp",
        "ruby",
        "php",
        "kotlin",
        "swift",
        "scala",
        "r",
        "julia",
        "lua",
        "bash",
        "sql",
        "markdown",
    ):
        assert by_lang.get(lang, 0) >= 1, lang
    assert set(status["files"]["by_source_type"]) == {"doc", "code", "test", "notebook"}
    assert status["chunks"]["total"] > status["files"]["total"]
    assert status["graph"]["entities"] > 20 and status["graph"]["relations"] > 20
    assert {"contains", "defined_in", "calls", "imports"} <= set(status["graph"]["by_relation"])
    assert status["model"]["dim"] == 384 and status["index_bytes"] > 0 and status["last_indexed"]


def test_skips_are_recorded_with_reasons_and_excludes_are_silent(brain):
    status = brain.status().to_dict()
    reasons = {s["path"]: s["reason"] for s in status["skipped"]}
    assert "binary" in reasons["assets/logo.png"]
    assert "notebook" in reasons["broken.ipynb"]
    assert "UTF-8" in reasons["legacy/latin1.txt"]
    indexed = set(_indexed_sources(brain))
    for excluded in (
        "secret/keys.txt",
        "debug.log",
        "node_modules/pkg/index.js",
        "web/vendor.min.js",
        "poetry.lock",
        ".env",
    ):
        assert excluded not in indexed and excluded not in reasons


def _indexed_sources(brain) -> list[str]:
    catalog = brain._reader.view().catalog
    return list(catalog.live_files(brain._index_dir.current()))


def test_code_chunks_carry_symbols_and_exact_lines(brain):
    hits = brain.query("compute_total", mode="bm25", top_k=10, languages=["python"]).results
    chunk = next(r for r in hits if r.symbol_name == "compute_total")
    assert chunk.source == "shop/pricing.py" and chunk.symbol_type == "function"
    lines = (brain.root / chunk.source).read_text().splitlines()[chunk.start_line - 1 : chunk.end_line]
    assert lines[0].startswith("def compute_total")
    assert "\n".join(lines).strip() == chunk.text.strip()


def test_notebook_cells_are_chunks_with_cell_index(brain):
    hits = brain.query("analysis notebook", mode="hybrid", top_k=20, source_types=["notebook"]).results
    assert hits and all(r.source == "analysis.ipynb" and r.cell_index is not None for r in hits)
    assert {r.language for r in hits} >= {"markdown", "python"}


# ------------------------------------------------------------------ modes


def test_bm25_finds_exact_error_strings(brain):
    response = brain.query("InsufficientStockError: not enough items", mode="bm25", top_k=5)
    assert response.results[0].bm25_score > 0
    assert {"shop/inventory.py", "README.md"} & set(sources(response)[:3])


def test_vector_finds_meaning_without_shared_words(brain):
    response = brain.query("how much money does the customer pay including tax", mode="vector", top_k=5)
    assert any("pricing" in s for s in sources(response))
    assert len(response.results) == 5
    assert all(r.vector_score is not None and -1.0 <= r.vector_score <= 1.0 for r in response.results)
    scores = [r.score for r in response.results]
    assert scores == sorted(scores, reverse=True)


def test_vector_threshold_drops_weak_matches(brain):
    loose = brain.query("discount", mode="vector", top_k=50)
    strict = brain.query("discount", mode="vector", top_k=50, similarity_threshold=0.3)
    assert 0 < len(strict.results) < len(loose.results)
    assert all(r.vector_score >= 0.3 for r in strict.results)
    assert any(r.vector_score < 0.3 for r in loose.results)


def test_hybrid_reports_both_legs_and_alpha_moves_the_blend(brain):
    response = brain.query("apply discount to the amount", mode="hybrid", top_k=5)
    assert len(response.results) == 5
    assert all(r.vector_score is not None and r.bm25_score is not None for r in response.results)
    pure_vector = brain.query("apply discount to the amount", mode="hybrid", alpha=1.0, top_k=5)
    vector = brain.query("apply discount to the amount", mode="vector", top_k=5)
    assert len(vector.results) == 5
    assert [r.chunk_id for r in pure_vector.results] == [r.chunk_id for r in vector.results]


def test_graph_traverses_relations_with_hop_decayed_scores(brain):
    response = brain.query("What calls compute_total?", mode="graph", top_k=10, traversal_depth=2)
    assert response.fallback is None and "compute_total" in response.query_entities
    paths = [r.relationship_path for r in response.results]
    callers = [i for i, p in enumerate(paths) if p[1:2] == ["<-calls-"]]
    assert {response.results[i].symbol_name for i in callers} >= {"place_order", "discount_curve"}, paths
    # the callers answer the question: they rank before compute_total itself and everything else
    assert callers == list(range(len(callers))), paths
    assert [r.symbol_name for r in response.results].index("compute_total") == len(callers)
    scores = [r.graph_score for r in response.results]
    assert len(set(scores)) > 1 and scores == sorted(scores, reverse=True)
    assert response.results[0].related_entities


def test_graph_follows_the_direction_the_question_asks(brain):
    response = brain.query("What does compute_total call?", mode="graph", top_k=10, traversal_depth=2)
    paths = [r.relationship_path for r in response.results]
    assert [p[1] for p in paths[:3]] == ["-calls->"] * 3, paths
    # cart.subtotal() is Cart.subtotal (`cart: Cart`), not Item.subtotal
    callees = {(r.parent_symbol, r.symbol_name) for r in response.results[:3]}
    assert callees == {(None, "apply_tax"), (None, "apply_discount"), ("Cart", "subtotal")}
    first_caller = next(i for i, p in enumerate(paths) if p[1:2] == ["<-calls-"])
    assert first_caller > 3, paths


def test_a_graph_look_up_that_matches_nothing_names_the_nearest_names(brain):
    """`graph Cartt` said only "no entity named 'Cartt'" (three doors, three texts of their own); the
    engine's note now names the nearest names the graph holds, and every door shows that note."""
    typo = brain.graph_entity("compute_totl")
    assert typo.matches == [] and typo.note == (
        "no entity named 'compute_totl' in the graph (did you mean 'compute_total'?): try a qualified name"
        " (Class.method), or a search to find it"
    )
    assert brain.graph_entity("compute_total").note is None
    assert "did you mean" not in brain.graph_entity("zqxjkwv").note


def test_graph_without_entity_falls_back_to_vector_and_says_so(brain):
    response = brain.query("zebra migration patterns", mode="graph", top_k=3)
    assert response.fallback and response.fallback.startswith("vector")
    assert response.results and all(r.vector_score is not None for r in response.results)


def test_multi_ranks_prose_by_the_blend_and_reports_intent_and_weights(brain):
    response = brain.query("OrderService place_order reserves stock", mode="multi", top_k=5)
    assert response.intent == "prose" and response.weights == PROSE_WEIGHTS  # the graph is silent on prose
    # hybrid with top_k=10 blends the same 50-candidate pool multi does at top_k=5
    blend = {r.chunk_id: r.score for r in brain.query(response.query, mode="hybrid", top_k=10).results}
    by_symbol = {r.symbol_name: r for r in response.results}
    for result in response.results:
        assert {"vector", "bm25"} & set(result.ranks) and "graph" not in result.ranks
        boost = NAME_COVER_BOOST + (PROSE_WEIGHTS["names"] if "names" in result.ranks else 0.0)
        assert blend[result.chunk_id] <= result.score
        if result.score > blend[result.chunk_id] + boost + 1e-6:  # only a method lifted just above its class
            container = by_symbol[result.parent_symbol]
            assert 0 < result.score - container.score <= abs(container.score) * 1e-3 + 2e-6  # scores: 6 decimals
    # the query names the class and one of its methods: the method comes just above the class
    names = [r.symbol_name for r in response.results]
    assert names.index("place_order") == names.index("OrderService") - 1


def test_multi_lets_the_graph_lead_a_relation_question_it_resolved(brain):
    question = "who calls compute_total?"
    response = brain.query(question, mode="multi", top_k=5)
    assert response.intent == "callers" and response.weights == RELATION_WEIGHTS
    graph = brain.query(question, mode="graph", top_k=5)
    callers = [r.chunk_id for r in graph.results if r.relationship_path[1:2] == ["<-calls-"]]
    assert callers and [r.chunk_id for r in response.results[: len(callers)]] == callers
    assert response.to_dict()["weights"] == RELATION_WEIGHTS and response.to_dict()["intent"] == "callers"


def test_multi_silences_a_graph_leg_that_found_nothing(brain):
    response = brain.query("who calls zebra_migration_pattern", mode="multi", top_k=5)
    assert response.intent == "callers" and response.weights["graph"] == 0.0
    assert response.results and all("graph" not in r.ranks for r in response.results)


@pytest.mark.parametrize("mode", MODES)
def test_filters_apply_before_the_cut(brain, mode):
    query = "Cart Order Inventory" if mode == "graph" else "cart total price"
    unfiltered = brain.query(query, mode=mode, top_k=4)
    assert {r.language for r in unfiltered.results} - {"python"}, "the filter must have work to do"
    response = brain.query(query, mode=mode, top_k=4, source_types=["code"], languages=["python"])
    assert len(response.results) == 4
    assert all(r.language == "python" and r.source_type == "code" for r in response.results)
    globbed = brain.query(query, mode=mode, top_k=3, file_paths=["web/**", "mobile/*.kt"])
    assert len(globbed.results) == 3
    assert all(r.source.startswith("web/") or r.source.endswith(".kt") for r in globbed.results)


def test_glob_without_slash_matches_basenames(brain):
    response = brain.query("pricing discount", mode="bm25", top_k=10, file_paths=["*.ts"])
    assert response.results and all(r.source.endswith(".ts") for r in response.results)


# ------------------------------------------------------------------ bad input


@pytest.mark.parametrize(
    "fields,field",
    [
        ({"query": "  "}, "query"),
        ({"query": "x" * 1001}, "query"),
        ({"query": "x", "mode": "telepathy"}, "mode"),
        ({"query": "x", "top_k": 0}, "top_k"),
        ({"query": "x", "top_k": 101}, "top_k"),
        ({"query": "x", "alpha": 1.5}, "alpha"),
        ({"query": "x", "source_types": ["slides"]}, "source_types"),
        ({"query": "x", "file_paths": ["../etc/*"]}, "file_paths"),
        ({"query": "x", "colour": "red"}, "colour"),
    ],
)
def test_invalid_requests_name_the_field(brain, fields, field):
    with pytest.raises(InvalidRequest) as err:
        brain.query(fields)
    assert err.value.field == field


def test_a_language_no_file_is_indexed_as_is_refused_naming_the_known_ones(brain):
    """A filter on a language the engine never indexes (cobol) or a typo (pyhton) used to match nothing
    and answer "no results"; it is refused, naming the nearest language, every known one and the
    index's own. A file suffix or a kernel's name for a language is that language (py, C++)."""
    for name, hint in (("cobol", ""), ("Pyhton", " (did you mean 'python'?)")):
        with pytest.raises(InvalidRequest) as err:
            brain.query("cart total", mode="bm25", languages=["markdown", name])
        message = str(err.value)
        assert err.value.field == "languages"
        assert message.startswith(f"languages: unknown language {name.lower()!r}{hint}; known languages: bash, c, ")
        held = sorted(brain.status().chunks["by_language"])
        assert "python" in held and message.endswith(f"(this index holds: {', '.join(held)})")
    python = sources(brain.query("cart total", mode="bm25", top_k=10, languages=["python"]))
    assert python and sources(brain.query("cart total", mode="bm25", top_k=10, languages="PY")) == python
    assert QueryRequest.build({"query": "x", "source_types": "Docs, tests,doc"}).source_types == ("doc", "test")
    assert QueryRequest.build({"query": "x", "languages": "py, md, c++, sh"}).languages == (
        "python",
        "markdown",
        "cpp",
        "bash",
    )


@pytest.mark.parametrize(
    "fields",
    [
        {"languages": ""},
        {"languages": " "},
        {"languages": ["python", ""]},
        {"languages": "python,"},
        {"source_types": ""},
        {"source_types": [" "]},
        {"file_paths": [""]},
        {"file_paths": "  "},
    ],
)
def test_a_blank_filter_value_is_refused_not_read_as_no_filter(brain, fields):
    """``languages=""`` (an unset shell variable, an agent filling every argument) searched every
    language without a word; an empty list is still no filter."""
    with pytest.raises(InvalidRequest) as err:
        brain.query({"query": "cart total", **fields})
    assert (err.value.field, str(err.value)) == (next(iter(fields)), f"{next(iter(fields))}: {BLANK_FILTER}")
    unfiltered = sources(brain.query("cart total", mode="bm25"))
    assert sources(brain.query({"query": "cart total", "mode": "bm25", next(iter(fields)): []})) == unfiltered


def test_a_language_only_the_index_holds_is_a_known_one(tmp_path):
    """A notebook's kernel may name a language no file suffix gives (haskell): its cells are indexed
    under that name, so a filter naming it finds them."""
    cell = {
        "cell_type": "code",
        "metadata": {},
        "source": ["fibonacci = 0 : 1 : zipWith (+) fibonacci (tail fibonacci)"],
    }
    notebook = {
        "cells": [cell],
        "metadata": {"kernelspec": {"language": "haskell", "name": "ihaskell", "display_name": "Haskell"}},
        "nbformat": 4,
        "nbformat_minor": 5,
    }
    (tmp_path / "lazy.ipynb").write_text(json.dumps(notebook))
    (tmp_path / "notes.md").write_text("# Notes\n\nThe fibonacci numbers, lazily.\n")
    brain = Brain(tmp_path)
    brain.index()
    assert sources(brain.query("fibonacci", mode="bm25", languages="haskell")) == ["lazy.ipynb"]
    with pytest.raises(InvalidRequest, match=r"\(this index holds: haskell, markdown\)$"):
        brain.query("fibonacci", languages="fortran")


def test_filters_that_leave_no_chunk_say_which_and_what_the_index_holds(brain):
    """A known language the workspace has none of (toml), a kind it has none of, a glob no indexed file
    matches: the answer was a bare "no results"; it now says which filter value matched nothing."""
    held = ", ".join(sorted(brain.status().chunks["by_language"]))
    for fields, note in (
        ({"languages": "toml"}, f"languages toml (this index holds: {held})"),
        ({"file_paths": ["shop/**", "shopp/**"], "languages": "ini"}, "languages ini (this index holds: "),
        ({"file_paths": ["shopp/**"]}, "file_paths 'shopp/**' (no indexed file matches)"),
    ):
        response = brain.query({"query": "cart total", **fields})
        assert response.results == [] and note in (response.filter_note or ""), response.filter_note
        assert response.filter_note.startswith("no chunk of this index passes the filters: ")
    together = brain.query("cart total", source_types="notebook", file_paths=["shop/**"])
    assert together.filter_note == "no chunk of this index passes the filters together (each matches some chunks alone)"
    assert brain.query("cart total", languages="python").filter_note is None
    assert brain.query("zzzqqq nothing like it", mode="bm25").filter_note is None  # no filter: nothing to say


def test_a_mode_is_read_as_languages_are_and_a_typo_names_the_nearest(brain):
    """`--mode BM25` (as the README writes it) was refused while `--languages Python` was taken."""
    assert QueryRequest.build({"query": "x", "mode": " BM25 "}).mode == "bm25"
    with pytest.raises(
        InvalidRequest, match=r"^mode: must be one of vector, bm25, hybrid, graph, multi \(did you mean 'hybrid'\?\)$"
    ):
        brain.query("cart", mode="hybird")


def test_request_build_is_the_only_validator():
    request = QueryRequest.build({"query": " hi ", "top_k": "7", "languages": "Go, rust"})
    assert request.query == "hi" and request.top_k == 7 and request.languages == ("go", "rust")


def test_not_indexed_until_indexed(tmp_path):
    (tmp_path / "a.md").write_text("# A\n\nalpha\n")
    brain = Brain(tmp_path)
    assert brain.status().state == "empty"
    with pytest.raises(NotIndexed):
        brain.query("alpha")


def test_path_outside_root_is_rejected(brain, tmp_path):
    for bad in ("..", "/etc", "../elsewhere"):
        with pytest.raises(InvalidRequest) as err:
            brain.index(path=bad)
        assert err.value.field == "path"


def test_model_change_demands_force(tmp_path):
    workspace = tmp_path / "ws"
    workspace.mkdir()
    (workspace / "a.md").write_text("# A\n\nalpha beta\n")
    Brain(workspace).index()
    other_model = tmp_path / "my-minilm"  # the same files under another name: another model to the index
    shutil.copytree(Path(Brain(workspace).status().model["path"]), other_model, symlinks=True)
    switched = Brain(workspace, model_path=str(other_model))
    with pytest.raises(ModelMismatch):
        switched.index()
    assert Brain(workspace).query("alpha", mode="bm25").results  # the old index keeps serving
    report = switched.index(force=True)
    assert report.generation == 2 and switched.status().model["path"] == str(other_model)


def test_a_second_writer_is_refused_while_the_first_holds_the_lock(tmp_path):
    (tmp_path / "a.md").write_text("# A\n\nalpha\n")
    brain = Brain(tmp_path)
    brain.index()
    with brain._index_dir.writer_lock():
        with pytest.raises(WorkspaceBusy):
            Brain(tmp_path).index(force=True)
        assert brain.query("alpha", mode="bm25").results  # readers are never blocked
        assert brain.status().state == "indexing"


def test_graph_puts_the_asked_relation_first(brain):
    response = brain.query("who calls apply_tax", mode="graph", top_k=3, traversal_depth=1)
    caller, entity = response.results[:2]
    assert caller.symbol_name == "compute_total"  # the caller, before docs that mention apply_tax
    assert caller.relationship_path == ["apply_tax", "<-calls-", "compute_total"]
    assert entity.symbol_name == "apply_tax" and entity.relationship_path == ["apply_tax"]


def test_a_missing_model_is_one_clear_error(tmp_path):
    with pytest.raises(ModelUnavailable) as err:
        Brain(tmp_path, model_path=str(tmp_path / "no-such-model"))
    assert "model_path" in str(err.value) and "tokenizer.json" in str(err.value)
    unknown = Brain(tmp_path, model="nobody/no-such-model-on-any-hub")
    (tmp_path / "a.md").write_text("# A\n\nalpha\n")
    with pytest.raises(ModelUnavailable) as err:
        unknown.index()
    assert "nobody/no-such-model-on-any-hub" in str(err.value) and "model_path" in str(err.value)
    assert not unknown.has_index()


def test_graph_takes_plain_words_as_entities_only_in_questions_about_relations(brain):
    prose = brain.query("the shopping cart keeps the items a customer picked", mode="graph")
    assert prose.fallback and prose.fallback.startswith("vector")
    asked = brain.query("which functions use the cart", mode="graph", traversal_depth=1)
    assert asked.fallback is None and "cart" in asked.query_entities
    assert any("Cart" in r.relationship_path[0] for r in asked.results)


def test_graph_shows_the_part_of_a_long_caller_that_makes_the_call(tmp_path):
    steps = "\n".join(f"    total_{i} = sum(range({i}))  # step {i} of a long routine" for i in range(60))
    (tmp_path / "jobs.py").write_text(
        f"def fetch_ledger(account):\n    return [account]\n\n\n"
        f"def nightly_batch(account):\n{steps}\n    return fetch_ledger(account)\n"
    )
    brain = Brain(tmp_path)
    brain.index()
    call_line = 6 + 60
    response = brain.query("what calls fetch_ledger", mode="graph", top_k=3)
    top = response.results[0]
    assert top.relationship_path == ["fetch_ledger", "<-calls-", "nightly_batch"]
    assert top.start_line <= call_line <= top.end_line and top.start_line > 5  # not the caller's first chunk


def test_results_carry_the_engines_highlights_and_qualified_symbol(brain):
    response = brain.query("place order reserves stock", mode="bm25", top_k=5)
    assert response.results and response.total_results == len(response.results)
    terms = set(tokenize(response.query))
    for r in response.results:
        marked = [r.text[a:b] for a, b in r.highlights]
        assert marked, r.chunk_id  # bm25 found it by these words, so some are marked
        assert all(terms & set(tokenize(word)) for word in marked), marked
    method = next(r for r in response.results if r.parent_symbol)
    assert method.qualified_symbol == f"{method.parent_symbol}.{method.symbol_name}"
    flat = method.to_dict()
    assert flat["qualified_symbol"] == method.qualified_symbol and flat["highlights"] == method.highlights
    assert {"chunk_id", "text", "source", "start_line", "score", "ranks", "symbol_name", "cell_index"} <= set(flat)
