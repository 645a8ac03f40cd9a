"""The machine description and the Markdown rendering of a results dict."""

from __future__ import annotations

import os
import platform
from datetime import datetime, timezone
from importlib import metadata

from .dask_bench import markdown as dask_markdown


def machine() -> dict:
    cpu = platform.processor() or platform.machine()
    try:
        with open("/proc/cpuinfo") as f:
            cpu = next((line.split(":", 1)[1].strip() for line in f if line.startswith("model name")), cpu)
    except OSError:
        pass
    return {
        "cpu": cpu,
        "cores": os.cpu_count(),
        "load_1min_at_start": load_average(),
        "memory_gb": _memory_gb(),
        "python": platform.python_version(),
        "os": f"{platform.system()} {platform.release()}",
        "versions": {
            p: _version(p)
            for p in ("agent_brain_lab", "fastembed", "usearch", "bm25s", "rank_bm25", "chromadb", "onnxruntime")
        },
        "date": datetime.now(timezone.utc).isoformat(timespec="seconds"),
    }


def load_average():
    try:
        return os.getloadavg()[0]
    except OSError:
        return None


def _memory_gb():
    try:
        with open("/proc/meminfo") as f:
            kb = int(next(line.split()[1] for line in f if line.startswith("MemTotal")))
        return round(kb / 2**20, 1)
    except (OSError, StopIteration, ValueError):
        return None


def _version(package: str):
    try:
        return metadata.version(package)
    except metadata.PackageNotFoundError:
        return None


# --------------------------------------------------------------------------- markdown


def markdown(results: dict) -> str:
    m = results["machine"]
    out = [
        f"# Agent Brain Lab benchmarks ({results['size']})",
        "",
        f"Machine: {m['cpu']}, {m['cores']} cores, {m['memory_gb']} GB RAM, Python {m['python']}, {m['os']}; "
        f"load average at start {_num(m['load_1min_at_start'])}, at the end {_num(results.get('load_1min_at_end'))}; "
        f"{m['date']}. "
        f"Command: `{results['command']}`; wall time {results.get('wall_s', '?')} s.",
        "",
    ]
    renderers = {
        "quality": _quality,
        "natural": _natural,
        "code_indexing": _code_indexing,
        "scale": _scale,
        "incremental": _incremental,
        "load": _load,
        "watch": _watch,
        "save_during_index": _save_during_index,
        "dask": dask_markdown,
        "cold": _cold,
    }
    for name, section in results["sections"].items():
        out += [*renderers[name](section), ""]
    return "\n".join(out)


def _natural(section: dict) -> list[str]:
    from .natural import markdown

    return markdown(section)


def _cold(section: dict) -> list[str]:
    from .cold import markdown

    return markdown(section)


def _watch(section: dict) -> list[str]:
    from .watch_bench import markdown  # imports the engine: only when there is a watch section

    return markdown(section)


def _save_during_index(section: dict) -> list[str]:
    from .save_during_index import markdown  # imports the engine: only when there is such a section

    return markdown(section)


def _num(value, digits: int = 2) -> str:
    if value is None:
        return "–"
    if isinstance(value, float):
        return f"{value:.{digits}f}"
    return str(value)


def _table(header: list[str], rows: list[list]) -> list[str]:
    return ["| " + " | ".join(header) + " |", "|" + "|".join("---" for _ in header) + "|"] + [
        "| " + " | ".join(_num(c, 3) if isinstance(c, float) else str(c) for c in row) + " |" for row in rows
    ]


_TITLES = {
    "docstrings": "docstring questions",
    "callers": "what calls X",
    "subclasses": "subclasses of X",
    "importers": "which modules import X",
    "callees": "what does X call",
    "held-out phrasings": "relation questions in held-out phrasings",
    "mixed": "mixed: every question above as one set",
}


def _quality(q: dict) -> list[str]:
    out = [
        "## Quality: code search on a package with its docstrings removed",
        "",
        "Question sets per package. Docstring questions: the query is a function's docstring summary, "
        'the one answer is that function. Relation questions: "what calls X", "subclasses of X", '
        '"which modules import X", "what does X call", in the phrasings the query analysis was tuned on; '
        "the held-out phrasings set asks the same kinds in phrasings it never saw. X is a function or class "
        "whose name is defined once in the package, or one of its modules; the answers are every caller, "
        "subclass, importing module or callee (any part of it), found by Python's `ast`, not by the engine's "
        "graph. The mixed set is every question of the package as one set (its scores are the means of "
        "the questions' own scores). A result answers when it "
        "is in the answer's file and overlaps its lines (strict: and spans at most max(3 × the function's "
        "lines, 60), so a whole-class outline does not count for each method); each answer counts once. "
        f"@{q['k']}; sample of {q['limit'] or 'all'} questions per set (seed {q['seed']}). Peers run on "
        "the engine's own chunks and vectors; the naive pipeline on 40-line windows. Packages marked "
        "held out were never looked at while tuning.",
        "",
        *_quality_summary(q),
    ]
    for name, s in q["sets"].items():
        label = f"{name} (held out)" if s.get("held_out") else name
        for kind, title in _TITLES.items():
            part = s.get(kind)
            if part is None:
                continue
            if not part["queries"]:
                out += [f"### {label}: {title}", "", "no questions", ""]
                continue
            out += [
                f"### {label}: {title} ({s['files']} files, {s['index']['chunks']} chunks, "
                f"{part['queries']} questions)",
                "",
            ]
            rows = [
                [f"**{mode}**", r["ndcg"], r["mrr"], r["recall"], r["strict"]["ndcg"], r.get("fallbacks", "–")]
                for mode, r in part["engine"].items()
            ]
            rows += [
                [peer, r["ndcg"], r["mrr"], r["recall"], r["strict"]["ndcg"], "–"] for peer, r in part["peers"].items()
            ]
            out += [
                *_table(["method", "nDCG@10", "MRR@10", "Recall@10", "strict nDCG@10", "fell back to vector"], rows),
                "",
            ]
    return out


def _quality_summary(q: dict) -> list[str]:
    """nDCG@10 of multi against the best other mode, one row per package and question set."""
    rows = []
    for name, s in q["sets"].items():
        for kind, title in _TITLES.items():
            part = s.get(kind)
            if not part:
                continue
            if not part["queries"]:
                rows.append([name, "yes" if s.get("held_out") else "no", title, "no questions", "", ""])
                continue
            engine = part["engine"]
            best = max((m for m in engine if m != "multi"), key=lambda m: engine[m]["ndcg"])
            multi = engine["multi"]["ndcg"]
            rows.append(
                [
                    name,
                    "yes" if s.get("held_out") else "no",
                    title,
                    multi,
                    f"{best} {engine[best]['ndcg']:.3f}",
                    f"{multi - engine[best]['ndcg']:+.3f}",
                ]
            )
    header = ["package", "held out", "question set", "multi nDCG@10", "best other mode", "multi − best"]
    return ["### Summary: multi against the best other mode", "", *_table(header, rows), ""]


def _code_indexing(c: dict) -> list[str]:
    return ["## Indexing real code", "", *_indexing_rows([(c["name"], c)])]


def _indexing_rows(items: list[tuple[str, dict]]) -> list[str]:
    rows = []
    for name, r in items:
        rows.append(
            [
                name,
                r["files"],
                r["chunks"],
                _num(r["index_s"], 1),
                _num(r["files_per_s"], 1),
                _num(r["chunks_per_s"], 1),
                _num(r["embed_only_s"], 1),
                _num(r["ratio_to_embedding"], 2),
                _num(r["non_embedding_s"], 1),
                _num(r["ratio_from_parts"], 2) + ("" if r.get("embedding_share_measured", True) else " *"),
                _num(r["peak_rss_mb"], 0),
                _num(r["disk"]["vectors_bytes_per_chunk"], 0),
                _num(r["disk"]["total_bytes_per_chunk"], 0),
            ]
        )
    return _table(
        [
            "workspace",
            "files",
            "chunks",
            "index s",
            "files/s",
            "chunks/s",
            "embed-only s",
            "index / embed-only",
            "non-embedding s",
            "(embed-only + non-embedding) / embed-only",
            "peak RSS MB",
            "vector B/chunk",
            "index B/chunk",
        ],
        rows,
    ) + _derived_note(items)


def _derived_note(items: list[tuple[str, dict]]) -> list[str]:
    if all(r.get("embedding_share_measured", True) for _, r in items):
        return []
    return [
        "",
        "\\* no embedding-only pass at this size (it would add another hour of embedding); the "
        "embedding share is the index time minus the measured non-embedding rebuild, so this is "
        "index / (index − non-embedding).",
    ]


def _scale(s: dict) -> list[str]:
    out = [
        "## Scale: generated workspaces",
        "",
        *_indexing_rows([(f"{r['chunks']} chunks", r["indexing"] | {"chunks": r["chunks"]}) for r in s["runs"]]),
        "",
    ]
    out += ["### Query latency (ms), in-process and over REST", ""]
    rows = []
    for r in s["runs"]:
        for mode, lat in r["queries"]["in_process"].items():
            rest = r["queries"].get("rest", {}).get(mode, {})
            rows.append(
                [
                    r["chunks"],
                    mode,
                    _num(lat["p50_ms"], 1),
                    _num(lat["p95_ms"], 1),
                    _num(rest.get("p50_ms"), 1),
                    _num(rest.get("p95_ms"), 1),
                ]
            )
        rows.append(
            [
                r["chunks"],
                "query embedding alone",
                _num(r["queries"]["embedding"]["p50_ms"], 1),
                _num(r["queries"]["embedding"]["p95_ms"], 1),
                "–",
                "–",
            ]
        )
    out += [*_table(["chunks", "mode", "p50", "p95", "REST p50", "REST p95"], rows), ""]
    out += ["### Peers on the same chunks and vectors", ""]
    rows = []
    for r in s["runs"]:
        for name, p in r["peers"].items():
            rows.append([r["chunks"], name, _num(p["build_s"], 2), _num(p["p50_ms"], 2), _num(p["p95_ms"], 2)])
    out += [*_table(["chunks", "peer", "build s", "p50 ms", "p95 ms"], rows), ""]
    out += ["### Cold open (fresh process) and one file edited", ""]
    rows = [
        [
            r["chunks"],
            _num(r["cold_open"]["import_s"], 2),
            _num(r["cold_open"]["open_and_bm25_s"], 3),
            _num(r["cold_open"]["first_vector_s"], 2),
            _num(r.get("one_file_reindex_s"), 2),
        ]
        for r in s["runs"]
    ]
    out += _table(
        [
            "chunks",
            "import s",
            "open + first bm25 query s",
            "first vector query s (loads model)",
            "one file edited, re-index s",
        ],
        rows,
    )
    return out


def _incremental(i: dict) -> list[str]:
    return [
        "## Incremental re-index",
        "",
        *_table(
            ["workspace", "first index s", "no-change re-index s", "one file edited s", "chunks re-embedded"],
            [
                [
                    f"{i['files']} files, {i['chunks']} chunks",
                    _num(i["first_index_s"], 1),
                    _num(i["unchanged_s"], 3),
                    _num(i["one_file_s"], 3),
                    i["one_file_chunks_embedded"],
                ]
            ],
        ),
    ]


def _load(r: dict) -> list[str]:
    lat, status = r["latency"], r["status"]
    return [
        "## Load: concurrent REST clients while an index job runs",
        "",
        f"{r['clients']} clients mixing the five modes for {r['duration_s']} s against one `jupyter server` "
        f"({r['chunks']} chunks), while an index job embedded as many new files (status said `indexing` in "
        f"{r['status_polls_indexing']} polls; job at the end: {r['index_job_during_load']['status']}, "
        f"{r['index_job_during_load']['percent']} %).",
        "",
        *_table(
            ["queries", "q/s", "p50 ms", "p95 ms", "errors", "status p50 ms", "status p95 ms", "status max ms"],
            [
                [
                    r["requests"],
                    r["throughput_qps"],
                    _num(lat["p50_ms"], 0),
                    _num(lat["p95_ms"], 0),
                    r["errors"],
                    _num(status["p50_ms"], 0),
                    _num(status["p95_ms"], 0),
                    _num(status["max_ms"], 0),
                ]
            ],
        ),
        "",
        *_table(
            ["mode", "p50 ms", "p95 ms", "n"],
            [[m, _num(v["p50_ms"], 0), _num(v["p95_ms"], 0), v["n"]] for m, v in r["by_mode"].items()],
        ),
    ]
