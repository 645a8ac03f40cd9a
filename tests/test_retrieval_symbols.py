"""Symbol evidence in multi mode: the best prose candidates gain by how much of their own name the query covers."""

from __future__ import annotations

import pytest

from agent_brain_lab import Brain
from agent_brain_lab.engine.chunking.code import analyze_code
from agent_brain_lab.engine.retrieval.multi import PROSE_WEIGHTS
from agent_brain_lab.engine.retrieval.names import name_parts
from agent_brain_lab.engine.retrieval.symbols import NAME_COVER_BOOST

SOURCE = """
class Connection:
    def __init__(self, sock):
        self.sock = sock
        self.pending = []

    def flush_writes(self):
        while self.pending:
            self.sock.send(self.pending.pop(0))

    def queue_frame(self, frame):
        self.pending.append(frame)
        if len(self.pending) > 16:
            self.flush_writes()

    def close_socket(self):
        self.pending.clear()
        self.sock.close()
"""


@pytest.fixture(scope="module")
def brain(tmp_path_factory) -> Brain:
    root = tmp_path_factory.mktemp("symbols")
    (root / "conn.py").write_text(SOURCE)
    (root / "notes.md").write_text("# Notes\n\nWrites are flushed to the socket when the queue is long.\n")
    brain = Brain(root)
    brain.index()
    return brain


def test_name_parts_are_stemmed_and_drop_the_whole_identifier():
    assert name_parts("_flush_writes") == {"flush", "write"}
    assert name_parts("close") == {"close"}  # a one-part name is its own part
    assert name_parts("_") == frozenset()  # nothing to cover: such a name gains nothing


def test_prose_candidates_gain_the_share_of_their_name_the_query_covers(brain):
    query = "send every queued write to the socket and flush it"
    multi = brain.query(query, mode="multi", top_k=5)
    assert multi.intent == "prose"
    # hybrid with top_k=10 blends the same 50-candidate pool multi does at top_k=5
    blend = {r.chunk_id: r.score for r in brain.query(query, mode="hybrid", top_k=10).results}
    gained = {r.symbol_name or r.source: r.score - blend[r.chunk_id] for r in multi.results}
    names = PROSE_WEIGHTS["names"]
    # "flush" and "write" are both in the query: the whole cover, plus the names leg's boost for a full match
    assert gained["flush_writes"] == pytest.approx(NAME_COVER_BOOST + names, abs=1e-6)
    # "close_socket": "socket" is in the query, "close" is not
    assert 0 < gained["close_socket"] < NAME_COVER_BOOST
    assert multi.results[0].symbol_name == "flush_writes"
    assert gained["notes.md"] == pytest.approx(0.0, abs=1e-6)  # a markdown note is no symbol: no name to cover


# JavaScript: a function made by a factory lives in a chunk of module code, named by its variable;
# a transpiler's module helper (`_interopRequireDefault`) assigns a module, not a function
FACTORY_JS = (
    "var invoker = require('./invoker');\n\nvar toLowerCase = invoker(0, 'toLowerCase');\n\n"
    "module.exports = toLowerCase;\n"
)
BABEL_JS = (
    "'use strict';\n\nvar _lowerCase = require('./lower.js');\n\n"
    "var _lowerCase2 = _interopRequireDefault(_lowerCase);\n\n"
    "function _interopRequireDefault(obj) { return obj && obj.__esModule ? obj : { default: obj }; }\n"
)


@pytest.fixture(scope="module")
def js_brain(tmp_path_factory) -> Brain:
    root = tmp_path_factory.mktemp("factories")
    (root / "lower.js").write_text(FACTORY_JS)
    (root / "shout.js").write_text(BABEL_JS)
    brain = Brain(root)
    brain.index()
    return brain


def test_a_factory_made_function_is_named_by_its_variable_and_a_module_helper_is_no_function(js_brain):
    query = "convert a string to lower case letters"
    multi = js_brain.query(query, mode="multi", top_k=10)
    assert multi.intent == "prose"
    blend = {r.chunk_id: r.score for r in js_brain.query(query, mode="hybrid", top_k=20).results}
    gained = {(r.source, r.start_line): r.score - blend[r.chunk_id] for r in multi.results}
    factory = next(key for key in gained if key[0] == "lower.js" and key[1] <= 3)
    # `toLowerCase` (lower, case): covered by the query, as a `def` would be, plus the names leg's full match
    assert gained[factory] == pytest.approx(NAME_COVER_BOOST + PROSE_WEIGHTS["names"], abs=1e-6)
    assert multi.results[0].source == "lower.js"
    # `_lowerCase2 = _interopRequireDefault(_lowerCase)` is an import: no name, no gain
    assert all(gain == pytest.approx(0.0, abs=1e-6) for (source, _), gain in gained.items() if source == "shout.js")


def test_a_transpiler_module_helper_assigns_an_import_not_a_factory_made_function():
    analysis = analyze_code("shout.js", BABEL_JS, "javascript", "code", 1500)
    assert {s.qualname for s in analysis.symbols} == {"_interopRequireDefault"}  # `_lowerCase2` is no entity
    assert not [r for r in analysis.relations if r.relation == "calls" and r.target == "_interopRequireDefault"]
    made = analyze_code("lower.js", FACTORY_JS, "javascript", "code", 1500)
    assert "toLowerCase" in {s.qualname for s in made.symbols}  # a factory's function still is one
