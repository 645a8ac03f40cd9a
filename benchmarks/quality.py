"""Code-search quality: nDCG@10, MRR@10 and Recall@10 of every mode and of the peers.

Peers run on the engine's own chunks and vectors (rank_bm25, bm25s as shipped, exact dense), plus
a naive pipeline on 40-line windows (plain-token BM25 + dense, RRF k=60) as a whole-system peer.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Callable, Optional

from agent_brain_lab import Brain
from agent_brain_lab.engine.types import MODES

from .codesearch import CodeSearchSet, build_set, is_hit
from .docstrip import Target
from .embeddings import CachedEmbedder
from .engine_view import chunking_fingerprint, indexed_chunks
from .metrics import first_hit, summarize
from .peers import Bm25sShipped, ExactDense, RankBM25, RRFPipeline, windows

K = 10
Log = Callable[[str], None]


def evaluate(packages: list[str], cache_dir: Path, limit: Optional[int], seed: int = 0,
             fresh: bool = False, log: Log = print) -> dict:
    """Run the evaluation on each package's set; returns the JSON-able results."""
    embedder = CachedEmbedder(cache_dir)
    out = {"k": K, "limit": limit, "seed": seed, "sets": {}}
    for package in packages:
        cs = build_set(package, cache_dir)
        targets = cs.sample(limit, seed)
        log(f"[quality] {cs.name}: {cs.files} files, {len(targets)} of {len(cs.targets)} queries")
        index = _index(cs, fresh, log)
        engine, details = _engine_modes(cs, targets, log)
        peers = _peers(cs, targets, embedder, details, log)
        out["sets"][cs.name] = {"files": cs.files, "queries": len(targets), "index": index,
                                "engine": engine, "peers": peers}
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


def _engine_modes(cs: CodeSearchSet, targets: list[Target], log: Log) -> tuple[dict, list[dict]]:
    brain = Brain(cs.root)
    details = [{**t.to_dict(), "ranks": {}} for t in targets]
    results = {}
    for mode in MODES:
        ranks, strict, fallbacks = [], [], 0
        for t, d in zip(targets, details):
            response = brain.query(t.query, mode=mode, top_k=K)
            fallbacks += response.fallback is not None
            found = [r.to_dict() for r in response.results]
            ranks.append(first_hit([is_hit(r, t) for r in found], K))
            strict.append(first_hit([is_hit(r, t, strict=True) for r in found], K))
            d["ranks"][mode] = ranks[-1]
        results[mode] = {**summarize(ranks), "strict": summarize(strict), "fallbacks": fallbacks}
        log(f"[quality]   {mode:8} " + _fmt(results[mode]))
    return results, details


def _peers(cs: CodeSearchSet, targets: list[Target], embedder: CachedEmbedder, details: list[dict],
           log: Log) -> dict:
    chunks, vectors = indexed_chunks(cs.root)
    rows = [{"source": c.source, "start_line": c.start_line, "end_line": c.end_line,
             "symbol_name": c.symbol_name, "parent_symbol": c.parent_symbol} for c in chunks]
    texts = [c.indexed_text() for c in chunks]
    query_vectors = dict(zip([t.query for t in targets], embedder.embed([t.query for t in targets])))
    embed_query = query_vectors.__getitem__

    win = [w for path in sorted(cs.root.rglob("*.py")) if ".agent-brain" not in path.parts
           for w in windows(path.relative_to(cs.root).as_posix(), path.read_text(encoding="utf-8"))]
    win_rows = [{"source": p, "start_line": s, "end_line": e} for p, s, e, _ in win]
    win_texts = [text for *_, text in win]
    naive_bm25 = RankBM25(win_texts)
    naive_dense = ExactDense(embedder.embed(win_texts), embed_query)

    peers = [
        ("rank_bm25 (same chunks)", RankBM25(texts), rows),
        ("bm25s as shipped (same chunks)", Bm25sShipped(texts), rows),
        ("exact dense (same chunks + vectors)", ExactDense(vectors, embed_query), rows),
        ("naive 40-line windows: bm25", naive_bm25, win_rows),
        ("naive 40-line windows: dense", naive_dense, win_rows),
        ("naive 40-line windows: RRF k=60", RRFPipeline("naive", [naive_bm25, naive_dense]), win_rows),
    ]
    results = {}
    for name, peer, peer_rows in peers:
        ranks, strict = [], []
        for t, d in zip(targets, details):
            found = [peer_rows[i] for i in peer.search(t.query, K)]
            ranks.append(first_hit([is_hit(r, t) for r in found], K))
            strict.append(first_hit([is_hit(r, t, strict=True) for r in found], K))
            d["ranks"][name] = ranks[-1]
        results[name] = {**summarize(ranks), "strict": summarize(strict)}
        log(f"[quality]   {name:38} " + _fmt(results[name]))
    return results


def _fmt(m: dict) -> str:
    return (f"nDCG@10 {m['ndcg']:.3f}  MRR@10 {m['mrr']:.3f}  R@10 {m['recall']:.3f}"
            f"  (strict nDCG@10 {m['strict']['ndcg']:.3f})")
