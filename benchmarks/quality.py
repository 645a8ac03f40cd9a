"""Retrieval quality: nDCG@10, MRR@10 and Recall@10 of every mode and of the peers, on several question sets.

Docstring questions (a function's docstring summary, one function answers it) and relation
questions ("what calls X", "subclasses of X", "which modules import X", "what does X call",
answered by every caller, subclass, importing module or callee), all on a package with its
docstrings removed. Relation questions are phrased from the tuned templates; the "held-out
phrasings" set asks the same kinds in phrasings the tuning never saw. The mixed set is every
question of the package (docstring and relation, both phrasing groups) as one set: its scores are
the means over those questions' own scores.

Peers run on the engine's own chunks and vectors (rank_bm25, bm25s as shipped, exact dense), plus
a naive pipeline on 40-line windows (plain-token BM25 + dense, RRF k=60) as a whole-system peer.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

from agent_brain_lab import Brain
from agent_brain_lab.engine.types import MODES

from .codesearch import CodeSearchSet, build_set, is_hit, sample
from .docstrip import Target
from .embeddings import CachedEmbedder
from .engine_view import chunking_fingerprint, indexed_chunks
from .metrics import found_ranks, query_scores, summarize
from .peers import Bm25sShipped, ExactDense, RankBM25, RRFPipeline, windows
from .relations import Question, relation_questions

K = 10
Log = Callable[[str], None]


def evaluate(
    packages: list[str],
    cache_dir: Path,
    limit: int | None,
    seed: int = 0,
    fresh: bool = False,
    log: Log = print,
    held_out: tuple[str, ...] = (),
    peers: bool = True,
) -> dict:
    """Run every question set on each package's workspace; returns the JSON-able results.

    ``held_out`` packages are run like the others and marked as never used for tuning."""
    embedder = CachedEmbedder(cache_dir) if peers else None
    out = {"k": K, "limit": limit, "seed": seed, "sets": {}}
    for package in [*packages, *held_out]:
        cs = build_set(package, cache_dir)
        kinds = {"docstrings": [(t.query, (t,)) for t in sample(cs.targets, limit, seed)]}
        kinds |= {kind: sample(qs, limit, seed) for kind, qs in relation_questions(cs.root, seed).items()}
        phrased = relation_questions(cs.root, seed, "held-out")
        kinds["held-out phrasings"] = sample([q for qs in phrased.values() for q in qs], limit, seed)
        log(
            f"[quality] {cs.name}: {cs.files} files; questions: "
            + ", ".join(f"{len(qs)} {kind}" for kind, qs in kinds.items())
        )
        index = _index(cs, fresh, log)
        queries = [q for qs in kinds.values() for q, _ in qs]
        peer_set = _Peers(cs, embedder, queries) if embedder else None
        details: dict[str, list[dict]] = {}
        result: dict = {"files": cs.files, "index": index, "held_out": package in held_out}
        per_query: dict[str, list[tuple[dict, dict]]] = {}
        for kind, questions in kinds.items():
            log(f"[quality]  {kind}")
            details[kind] = [{"query": q, "relevant": [t.to_dict() for t in rel], "ranks": {}} for q, rel in questions]
            if not questions:
                result[kind] = {"queries": 0}
                log("[quality]   no questions")
                continue
            engine = _engine_modes(cs, questions, details[kind], log, per_query)
            result[kind] = {
                "queries": len(questions),
                "engine": engine,
                "peers": peer_set.evaluate(questions, details[kind], log) if peer_set else {},
            }
        log("[quality]  mixed")
        result["mixed"] = {
            "queries": len(next(iter(per_query.values()), [])),
            "engine": {mode: _tally(mode, judged, log) for mode, judged in per_query.items()},
            "peers": {},
        }
        out["sets"][cs.name] = result
        details_path = cache_dir / f"details-{package}.json"
        details_path.write_text(json.dumps(details, indent=1))
        log(f"[quality] per-query ranks: {details_path}")
    return out


def _index(cs: CodeSearchSet, fresh: bool, log: Log) -> dict:
    """Index the set's workspace; rebuilt when the engine's indexing code changed since last time."""
    key_file = cs.root.parent / "index-key"
    key = chunking_fingerprint()
    stale = not key_file.is_file() or key_file.read_text() != key
    report = Brain(cs.root).index(force=fresh or stale)
    key_file.write_text(key)
    log(f"[quality] indexed: {report.chunks_total} chunks, {report.chunks_embedded} embedded, {report.duration_s:.1f}s")
    return {"chunks": report.chunks_total, "rebuilt": fresh or stale, "duration_s": report.duration_s}


def _judge(found: list[dict], relevant: tuple[Target, ...]) -> tuple[dict, dict, list[int]]:
    """Scores of one ranked list (lenient and strict) and the ranks where answers turned up."""
    out = []
    for strict in (False, True):
        matches = [next((i for i, t in enumerate(relevant) if is_hit(r, t, strict=strict)), None) for r in found]
        ranks = found_ranks(matches, K)
        out.append((query_scores(ranks, len(relevant), K), ranks))
    return out[0][0], out[1][0], out[0][1]


def _tally(name: str, judged: list[tuple[dict, dict]], log: Log, **extra) -> dict:
    result = {**summarize([j[0] for j in judged]), "strict": summarize([j[1] for j in judged]), **extra}
    log(f"[quality]   {name:38} " + _fmt(result))
    return result


def _engine_modes(
    cs: CodeSearchSet,
    questions: list[Question],
    details: list[dict],
    log: Log,
    per_query: dict[str, list[tuple[dict, dict]]],
) -> dict:
    """Every mode on one question set; each question's scores are also added to ``per_query`` (the mixed set)."""
    brain = Brain(cs.root)
    results = {}
    for mode in MODES:
        judged, fallbacks = [], 0
        for (query, relevant), d in zip(questions, details):
            response = brain.query(query, mode=mode, top_k=K)
            fallbacks += response.fallback is not None
            lenient, strict, d["ranks"][mode] = _judge([r.to_dict() for r in response.results], relevant)
            if response.intent:
                d["intent"] = response.intent
            judged.append((lenient, strict))
        results[mode] = _tally(mode, judged, log, fallbacks=fallbacks)
        per_query.setdefault(mode, []).extend(judged)
    return results


class _Peers:
    """The peers of one workspace, built once and asked every question set."""

    def __init__(self, cs: CodeSearchSet, embedder: CachedEmbedder, queries: list[str]):
        chunks, vectors = indexed_chunks(cs.root)
        rows = [
            {
                "source": c.source,
                "start_line": c.start_line,
                "end_line": c.end_line,
                "symbol_name": c.symbol_name,
                "parent_symbol": c.parent_symbol,
            }
            for c in chunks
        ]
        texts = [c.indexed_text() for c in chunks]
        embed_query = dict(zip(queries, embedder.embed(queries))).__getitem__

        win = [
            w
            for path in sorted(cs.root.rglob("*.py"))
            if ".agent-brain" not in path.parts
            for w in windows(path.relative_to(cs.root).as_posix(), path.read_text(encoding="utf-8"))
        ]
        win_rows = [{"source": p, "start_line": s, "end_line": e} for p, s, e, _ in win]
        win_texts = [text for *_, text in win]
        naive_bm25 = RankBM25(win_texts)
        naive_dense = ExactDense(embedder.embed(win_texts), embed_query)
        self.peers = [
            ("rank_bm25 (same chunks)", RankBM25(texts), rows),
            ("bm25s as shipped (same chunks)", Bm25sShipped(texts), rows),
            ("exact dense (same chunks + vectors)", ExactDense(vectors, embed_query), rows),
            ("naive 40-line windows: bm25", naive_bm25, win_rows),
            ("naive 40-line windows: dense", naive_dense, win_rows),
            ("naive 40-line windows: RRF k=60", RRFPipeline("naive", [naive_bm25, naive_dense]), win_rows),
        ]

    def evaluate(self, questions: list[Question], details: list[dict], log: Log) -> dict:
        results = {}
        for name, peer, rows in self.peers:
            judged = []
            for (query, relevant), d in zip(questions, details):
                lenient, strict, d["ranks"][name] = _judge([rows[i] for i in peer.search(query, K)], relevant)
                judged.append((lenient, strict))
            results[name] = _tally(name, judged, log)
        return results


def _fmt(m: dict) -> str:
    return (
        f"nDCG@10 {m['ndcg']:.3f}  MRR@10 {m['mrr']:.3f}  R@10 {m['recall']:.3f}"
        f"  (strict nDCG@10 {m['strict']['ndcg']:.3f})"
    )
