"""Symbol evidence in multi mode: the best prose candidates gain by how much of their own name the query covers."""

from __future__ import annotations

import pytest

from agent_brain_lab import Brain
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
