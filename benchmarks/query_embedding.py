"""What a short query's embedding costs on this machine, and which session settings reach its floor.

The default model (MiniLM-L6 int8) embeds one query per call: its token count is the query's own
(a batch of one is padded to nothing). Timed in one process, round-robin so every setting shares the
load of the moment: fastembed's pipeline (``Embedder.embed([q])``), the engine's ``embed_query`` (the
model's own session, called directly), and a bare onnxruntime session
over the same model file for each intra-op thread count (1, 2) with thread spinning on and off, plus
the same input padded to 64 tokens to show what padding would cost. Wall and CPU time, p50/p95.

Run: ``python -m benchmarks.query_embedding`` (results/query-embedding.json and .md).
"""

from __future__ import annotations

import argparse
import json
import subprocess
import time
from pathlib import Path

import numpy as np

from .metrics import latency_summary

RESULTS = Path(__file__).resolve().parent / "results"
QUERIES = {
    3: ["parse http header", "load config file", "render template string"],
    8: [
        "how to build the nested header message for a request",
        "where is the connection pool closed after a timeout",
        "read the configuration file and merge it with defaults",
    ],
    20: [
        "flush the pending writes to the socket and close the stream when the remote side has "
        "already gone away or the buffer is full",
        "return the list of registered command line options together with their default values "
        "and help texts for the usage message",
    ],
}


def _session(path: Path, threads: int, spinning: bool):
    import onnxruntime as ort

    so = ort.SessionOptions()
    so.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
    so.intra_op_num_threads = threads
    so.inter_op_num_threads = 1
    so.add_session_config_entry("session.intra_op.allow_spinning", "1" if spinning else "0")
    return ort.InferenceSession(str(path / "model.onnx"), so, providers=["CPUExecutionProvider"])


def measure(rounds: int) -> dict:
    from agent_brain_lab.engine.embedding import Embedder, resolve_model

    spec = resolve_model()
    embedder = Embedder(spec)
    tokenizer = embedder.load().model.tokenizer
    sessions = {
        f"session threads={t} spinning={'on' if s else 'off'}": _session(Path(str(spec.path)), t, s)
        for t in (1, 2)
        for s in (True, False)
    }

    def bare(session, text: str, pad: int = 0):
        ids = tokenizer.encode(text).ids
        mask = [1] * len(ids) + [0] * max(0, pad - len(ids))
        ids = ids + [0] * max(0, pad - len(ids))
        feed = {
            "input_ids": np.array([ids], dtype=np.int64),
            "attention_mask": np.array([mask], dtype=np.int64),
            "token_type_ids": np.zeros((1, len(ids)), dtype=np.int64),
        }
        return session.run(None, feed)[0]

    ways = {
        "fastembed pipeline, Embedder.embed([q]) (how queries were embedded before)": lambda text: embedder.embed(
            [text]
        ),
        "Embedder.embed_query (now: the model's own session, direct)": embedder.embed_query,
    }
    for name, session in sessions.items():
        ways[name] = lambda text, s=session: bare(s, text)
    ways["session threads=2 spinning=on, padded to 64"] = lambda text: bare(
        sessions["session threads=2 spinning=on"], text, 64
    )
    out: dict = {}
    for words, texts in QUERIES.items():
        wall: dict[str, list[float]] = {w: [] for w in ways}
        cpu: dict[str, list[float]] = {w: [] for w in ways}
        for r in range(rounds + 2):
            for text in texts:
                for way, fn in ways.items():
                    start, cpu_start = time.perf_counter(), time.process_time()
                    fn(text)
                    if r >= 2:
                        wall[way].append((time.perf_counter() - start) * 1000)
                        cpu[way].append((time.process_time() - cpu_start) * 1000)
        tokens = int(np.mean([len(tokenizer.encode(t).ids) for t in texts]))
        out[f"{words} words ({tokens} tokens)"] = {
            way: {**latency_summary(wall[way]), "cpu_p50_ms": latency_summary(cpu[way])["p50_ms"]} for way in ways
        }
    return out


def markdown(r: dict) -> str:
    lines = [
        "# One query's embedding (python -m benchmarks.query_embedding)",
        "",
        "MiniLM-L6 int8, one query per call, round-robin over the settings in one process.",
        f"Load before: `{r['uptime_before']}`; after: `{r['uptime_after']}` (2 cores, shared with other work).",
        "",
    ]
    for length, ways in r["lengths"].items():
        lines += [f"## {length}", "", "| setting | p50 ms | p95 ms | CPU p50 ms |", "|---|---|---|---|"]
        for way, s in ways.items():
            lines.append(f"| {way} | {s['p50_ms']:.2f} | {s['p95_ms']:.2f} | {s['cpu_p50_ms']:.2f} |")
        lines.append("")
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--rounds", type=int, default=40)
    args = parser.parse_args()
    uptime = subprocess.check_output(["uptime"], text=True).strip()
    result = {"uptime_before": uptime, "lengths": measure(args.rounds)}
    result["uptime_after"] = subprocess.check_output(["uptime"], text=True).strip()
    RESULTS.mkdir(exist_ok=True)
    (RESULTS / "query-embedding.json").write_text(json.dumps(result, indent=1) + "\n")
    (RESULTS / "query-embedding.md").write_text(markdown(result))
    print(markdown(result))


if __name__ == "__main__":
    main()
