"""Plain-text and HTML views of engine results, for terminals, the CLI and frontends without widgets.

Pure string functions (no Jupyter imports): the CLI uses the text forms, the magics put both
into a MIME bundle next to the widget view.
"""

from __future__ import annotations

from collections.abc import Iterable
from html import escape
from typing import Any

from .engine.labels import printable
from .engine.types import MAX_SKIPPED_LISTED, IndexProgress, IndexReport, QueryResponse, QueryResult

SNIPPET_LINES = 3
SNIPPET_WIDTH = 100


# --------------------------------------------------------------------------- shared pieces


def kind(r: QueryResult | dict) -> str:
    """``code · python``: the kind of file a result comes from and its language."""
    get = r.get if isinstance(r, dict) else lambda k: getattr(r, k)
    return f"{get('source_type')} · {get('language')}"


def snippet_lines(
    r: QueryResult, lines: int = SNIPPET_LINES, width: int = SNIPPET_WIDTH
) -> list[list[tuple[str, bool]]]:
    """Up to ``lines`` non-blank lines from the first marked one, each as (text, marked) pieces cut to ``width``.

    The marks are the engine's ``highlights``; nothing here decides what matches.
    """
    pieces: list[list[tuple[str, bool]]] = []
    first = r.highlights[0][0] if r.highlights else 0
    offset = 0
    for line in r.text.split("\n"):
        start, offset = offset, offset + len(line) + 1
        if offset <= first and pieces == [] and r.highlights:
            continue  # before the first marked line
        if not line.strip():
            continue
        pieces.append(_cut(_marked(line, start, r.highlights), width))
        if len(pieces) == lines:
            break
    return pieces


def _marked(line: str, start: int, ranges: list[list[int]]) -> list[tuple[str, bool]]:
    """``line`` (at code point ``start`` of the text) split into plain and marked pieces."""
    out: list[tuple[str, bool]] = []
    at = 0
    for a, b in ranges:
        a, b = max(a - start, at), min(b - start, len(line))
        if a >= b:
            continue
        out += [(line[at:a], False), (line[a:b], True)]
        at = b
    out.append((line[at:].rstrip(), False))
    return [(text, marked) for text, marked in out if text]


def _cut(pieces: list[tuple[str, bool]], width: int) -> list[tuple[str, bool]]:
    out: list[tuple[str, bool]] = []
    room = width
    for text, marked in pieces:
        text = printable(text.expandtabs(4))
        if len(text) > room:
            out.append((text[: max(room - 1, 0)] + "…", marked))
            break
        out.append((text, marked))
        room -= len(text)
    return out


def _summary(resp: QueryResponse) -> str:
    count = len(resp.results)
    return f"{resp.mode} · {resp.query!r} · {count} result{'' if count == 1 else 's'} · {resp.query_time_ms:.1f} ms"


def _notes(resp: QueryResponse) -> list[str]:
    """Why results rank where they do (multi's reading of the query) and how much vector search saw."""
    notes = [note for note in (resp.fusion_note, resp.coverage_note, resp.filter_note) if note]
    if resp.query_entities:
        notes.append("entities: " + ", ".join(resp.query_entities))
    if resp.fallback:
        notes.append(f"fallback: {resp.fallback}")
    return notes


def _count_pairs(counts: dict[str, Any]) -> str:
    return ", ".join(f"{k} {v}" for k, v in sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))) or "none"


def _human_bytes(n: int | None) -> str:
    if n is None:
        return "?"
    size = float(n)
    for unit in ("B", "KB", "MB", "GB"):
        if size < 1024 or unit == "GB":
            return f"{size:.0f} {unit}" if unit == "B" else f"{size:.1f} {unit}"
        size /= 1024
    return f"{n} B"


def _table(rows: Iterable[tuple[str, str]]) -> str:
    body = "".join(
        f"<tr><th style='text-align:left'>{escape(k)}</th><td style='text-align:left'>{escape(v)}</td></tr>"
        for k, v in rows
    )
    return f"<table class='agent-brain-table'>{body}</table>"


# --------------------------------------------------------------------------- query results


def response_text(resp: QueryResponse) -> str:
    lines = [_summary(resp), *_notes(resp)]
    if not resp.results:
        lines.append("no results")
    for rank, r in enumerate(resp.results, 1):
        head = f"{rank:>2}. {r.score:.4f}  {r.location}"
        if r.anchor:
            head += f"  {r.anchor}"
        head += f"  [{kind(r)}]"
        lines.append(head)
        if r.legs:
            lines.append("    " + " · ".join(leg.label for leg in r.legs))
        if r.relationship_path:
            lines.append("    path: " + " ".join(r.relationship_path))
        lines += ["    │ " + "".join(text for text, _ in line) for line in snippet_lines(r)]
    return "\n".join(lines)


def response_html(resp: QueryResponse) -> str:
    parts = [f"<div class='agent-brain-results'><p><b>{escape(_summary(resp))}</b></p>"]
    parts += [f"<p><small>{escape(note)}</small></p>" for note in _notes(resp)]
    if not resp.results:
        parts.append("<p>no results</p>")
    parts.append("<ol>")
    for r in resp.results:
        head = f"<code>{escape(r.location)}</code> <b>{r.score:.4f}</b>"
        if r.anchor:
            head += f" {escape(r.anchor)}"
        head += f" <small>[{escape(kind(r))}]</small>"
        extra = ""
        if r.legs:
            extra += f"<br><small>{escape(' · '.join(leg.label for leg in r.legs))}</small>"
        if r.relationship_path:
            extra += f"<br><small>path: {escape(' '.join(r.relationship_path))}</small>"
        code = "\n".join(
            "".join(f"<mark>{escape(text)}</mark>" if marked else escape(text) for text, marked in line)
            for line in snippet_lines(r)
        )
        parts.append(f"<li>{head}{extra}<pre style='margin:2px 0 8px 0'>{code}</pre></li>")
    parts.append("</ol></div>")
    return "".join(parts)


# --------------------------------------------------------------------------- index report and progress


def report_text(report: IndexReport) -> str:
    text = (
        f"Indexed {report.files_indexed} of {report.files_total} files"
        f" ({report.files_unchanged} unchanged, {report.files_deleted} deleted);"
        f" {report.chunks_total} chunks (+{report.chunks_added} −{report.chunks_removed},"
        f" {report.chunks_embedded} embedded) in {report.duration_s:.1f} s; generation {report.generation}"
    )
    if report.skipped:
        text += "\nskipped " + skipped_summary([{"path": s.path, "reason": s.reason} for s in report.skipped])
    for warning in report.warnings:
        text += f"\nwarning: {warning}"
    return text


SKIPPED_SHOWN = 5  # skipped paths a summary names; the rest are counted


def skipped_summary(
    skipped: list[dict], total: int | None = None, by_reason: dict[str, int] | None = None, shown: int = SKIPPED_SHOWN
) -> str:
    """``12: 9 binary, 3 larger than 1.0 MB limit; e.g. a.bin (binary), … 10 more``: the count by reason
    (the engine's ``skipped_by_reason`` when given, else counted from ``skipped``) and the first paths."""
    total = len(skipped) if total is None else total
    if not by_reason:
        by_reason = {}
        for s in skipped:
            kind = str(s["reason"]).split(" (", 1)[0]
            by_reason[kind] = by_reason.get(kind, 0) + 1
    counts = ", ".join(f"{n} {reason}" for reason, n in sorted(by_reason.items(), key=lambda kv: (-kv[1], kv[0])))
    named = ", ".join(f"{printable(s['path'])} ({s['reason']})" for s in skipped[:shown])
    hidden = total - min(len(skipped), shown)
    more = f", … {hidden} more (`status --all-skipped` lists them)" if hidden > 0 else ""
    return f"{total}: {counts}" + (f"; e.g. {named}{more}" if named else "")


def reset_text(result: dict, root: object) -> str:
    """What ``reset`` did, and what it kept: ``Index reset: ROOT (embedding cache kept)``."""
    cache = {"kept": "embedding cache kept", "dropped": "embedding cache deleted"}.get(result.get("cache", ""))
    text = f"Index reset: {printable(root)}" + (f" ({cache})" if cache else "")
    return text + (f"\n{result['note']}" if result.get("note") else "")


def report_html(report: IndexReport) -> str:
    head, _, _skipped = report_text(report).partition("\n")
    html = f"<p class='agent-brain-report'>{escape(head)}</p>"
    if report.skipped:
        listed = report.skipped[:MAX_SKIPPED_LISTED]  # as status lists them
        rows = "".join(f"<li><code>{escape(printable(s.path))}</code>: {escape(s.reason)}</li>" for s in listed)
        more = len(report.skipped) - len(listed)
        rows += f"<li>… {more} more</li>" if more else ""
        html += f"<details><summary>skipped {len(report.skipped)}</summary><ul>{rows}</ul></details>"
    return html


def progress_line(p: IndexProgress, width: int = 24) -> str:
    """``[#####-----] indexing 12/30 files shop/models.py`` for a terminal line redrawn with ``\\r``."""
    filled = round(width * p.percent / 100)
    line = f"[{'#' * filled}{'-' * (width - filled)}] {progress_counts(p)}"
    return f"{line} {printable(p.current_file)}" if p.current_file else line


def progress_counts(p: IndexProgress) -> str:
    """What a phase has done: files while analysing, chunks while embedding, and whether keyword and
    graph search answer over every file meanwhile (a large run published them first; a small one
    publishes once it has embedded)."""
    if p.phase == "embedding" and p.chunks:
        ready = "keyword and graph search ready" if p.searchable else "published when embedded"
        return f"embedding {p.embedded}/{p.chunks} chunks ({ready})"
    return f"{p.phase} {p.files_done}/{p.files_total} files" if p.files_total else p.phase


# --------------------------------------------------------------------------- status


def _status_rows(status: dict, all_skipped: bool = False) -> list[tuple[str, str]]:
    """The rows of a status; ``all_skipped`` (``status --all-skipped``): every skipped file on a row of
    its own after the counts, instead of the first few named in the counts' row."""
    files, chunks, graph, model = (status.get(k) or {} for k in ("files", "chunks", "graph", "model"))
    rows = [
        ("state", str(status.get("state"))),
        ("root", printable(str(status.get("root")))),
        ("generation", str(status.get("generation"))),
        ("files", f"{files.get('total', 0)} ({_count_pairs(files.get('by_source_type', {}))})"),
        ("languages", _count_pairs(files.get("by_language", {}))),
        ("chunks", f"{chunks.get('total', 0)} ({_count_pairs(chunks.get('by_source_type', {}))})"),
        (
            "graph",
            f"{graph.get('entities', 0)} entities, {graph.get('relations', 0)} relations"
            + (f" ({_count_pairs(graph['by_relation'])})" if graph.get("by_relation") else ""),
        ),
        ("model", f"{model.get('name')} ({model.get('dim')}-d)" if model.get("name") else "none"),
        ("index size", _human_bytes(status.get("index_bytes"))),
        ("last indexed", str(status.get("last_indexed") or "never")),
    ]
    if status.get("problem"):
        rows[1:1] = [("problem", printable(str(status["problem"]))), ("fix", str(status.get("fix")))]
    if status.get("state") == "indexing":
        rows.insert(1, ("searchable now", searchable_now(status)))
    elif status.get("coverage") is not None and chunks.get("total"):  # of no chunk, a share says nothing
        rows.append(("semantic search", semantic_share(status["coverage"])))
    skipped = status.get("skipped") or []
    if skipped or status.get("skipped_total"):
        shown = 0 if all_skipped else SKIPPED_SHOWN
        counts = skipped_summary(skipped, status.get("skipped_total"), status.get("skipped_by_reason"), shown)
        rows.append(("skipped", counts))
        if all_skipped:
            rows += [("", f"{printable(s['path'])} ({s['reason']})") for s in skipped]
    return rows


def semantic_share(coverage: float) -> str:
    """Share of the chunks with a vector when no run writes; below 1 only after a run was cancelled
    or killed, whose unfinished embedding only an index of the whole workspace resumes."""
    text = f"{coverage:.0%} of the workspace"
    return text if coverage >= 1 else f"{text}; an index of the whole workspace embeds the rest"


def searchable_now(status: dict) -> str:
    """While a run writes: what queries answer from already (the last published generation)."""
    if not status.get("generation"):
        return "nothing yet: the first index is being built" + _first_run_phase(status.get("job") or {})
    files, chunks = (status.get(k) or {} for k in ("files", "chunks"))
    total = chunks.get("total", 0)
    coverage = status.get("coverage")
    coverage = 1.0 if coverage is None else coverage
    text = f"{files.get('total', 0)} files, {total} chunks: keyword and graph search ready; "
    text += f"semantic search {coverage:.0%} ({round(coverage * total)} of {total} chunks embedded"
    eta = (status.get("job") or {}).get("eta_s")
    return text + (f", about {_duration(eta)} to go)" if isinstance(eta, (int, float)) else ")")


def _first_run_phase(job: dict) -> str:
    """Where the first run is, when this process runs it (a server's status names its job): before
    anything is published it analyses, or (a small run) embeds before publishing it all at once."""
    if job.get("phase") == "embedding" and job.get("chunks"):
        return f" (embedding {job.get('embedded', 0)} of {job['chunks']} chunks; published when embedded)"
    if job.get("phase") in ("scanning", "indexing") and job.get("files_total"):
        return f" (analysing {job.get('files_done', 0)} of {job['files_total']} files)"
    return ""


def _duration(seconds: float) -> str:
    return f"{round(seconds)} s" if seconds < 90 else f"{round(seconds / 60)} min"


def status_text(status: dict, all_skipped: bool = False) -> str:
    rows = _status_rows(status, all_skipped)
    pad = max(len(k) for k, _ in rows)
    return "\n".join(f"{k:<{pad}}  {v}" for k, v in rows)


def status_html(status: dict, all_skipped: bool = False) -> str:
    return _table(_status_rows(status, all_skipped))


# --------------------------------------------------------------------------- graph neighbourhood


def edge_label(edge: dict, names: dict[str, str] | None = None) -> str:
    """``source -relation-> target``, each end by its name in ``names`` (else its node id)."""
    names = names or {}
    source, target = (printable(names.get(edge[end], edge[end])) for end in ("source", "target"))
    return f"{source} -{edge['relation']}-> {target}"


def _node_line(node: dict) -> str:
    where = node.get("location") or ""
    name = node.get("qualname") or node.get("name") or node["id"]
    return f"hop {node.get('hop', '?')}  {name} ({node.get('kind') or '?'})  {where}".rstrip()


MORE_NAMES = 10  # names of a group's hidden neighbours the text lists (the HTML lists all)


def _graph_outline(graph: dict) -> dict[str, Any]:
    """What the text and HTML forms show: a head line, notes, the queried entities, each relation
    group of the engine (its shown neighbours, what it holds back), the edges and the chunks."""
    nodes = {n["id"]: n for n in graph.get("nodes", [])}
    names = {i: n.get("qualname") or n.get("name") or i for i, n in nodes.items()}
    groups = graph.get("groups", [])
    held = len({m["id"] for g in groups for m in g.get("more", []) if m["id"] not in nodes})
    edges = graph.get("edges", [])
    head = f"{graph.get('query')}: {len(nodes)} nodes, {len(edges)} edges"
    notes = []
    if held:
        cap = graph.get("per_relation")
        notes.append(f"{held} more neighbours grouped: at most {cap} shown per relation (--per-relation 0 shows all)")
    hidden = graph.get("hidden_relations") or {}
    if hidden:
        notes.append(f"structure hidden: {_count_pairs(hidden)} (--all-relations shows it)")
    sections = []
    for g in groups:
        if not g.get("total"):
            continue
        title = f"{names.get(g['parent'], g['parent'])} — {g['phrase']}: {g['total']}"
        more = [m.get("qualname") or m.get("name") or m["id"] for m in g.get("more", [])]
        if more:
            title += f", {len(g['shown'])} shown"
        sections.append((title, [_node_line(nodes[i]) for i in g["shown"] if i in nodes], more))
    return {
        "head": head,
        "notes": notes,
        "matches": [_node_line(n) for n in nodes.values() if n.get("hop") == 0],
        "sections": sections,
        "edges": [edge_label(e, names) for e in edges],
        "chunks": [f"{c['location']}  {c.get('anchor') or ''}".rstrip() for c in graph.get("chunks", [])],
    }


def _more_line(names: list[str], limit: int | None) -> str:
    listed = ", ".join(printable(n) for n in names[:limit])
    return f"+{len(names)} more: {listed}" + (", …" if limit is not None and len(names) > limit else "")


def graph_text(graph: dict) -> str:
    if not graph.get("matches"):
        return str(graph.get("note"))
    out = _graph_outline(graph)
    lines = [out["head"], *out["notes"]]
    lines += ["  " + line for line in out["matches"]]
    for title, shown, more in out["sections"]:
        lines.append(f"  {title}")
        lines += ["    " + line for line in shown]
        if more:
            lines.append("    " + _more_line(more, MORE_NAMES))
    if out["edges"]:
        lines.append("edges:")
        lines += ["  " + line for line in out["edges"]]
    if out["chunks"]:
        lines.append("source chunks:")
        lines += ["  " + line for line in out["chunks"]]
    return "\n".join(lines)


def graph_html(graph: dict) -> str:
    if not graph.get("matches"):
        return f"<p>{escape(str(graph.get('note')))}</p>"
    out = _graph_outline(graph)

    def items(lines: list[str], code: bool = False) -> str:
        return "".join(f"<li><code>{escape(x)}</code></li>" if code else f"<li>{escape(x)}</li>" for x in lines)

    sections = "".join(
        f"<li>{escape(title)}<ul>{items(shown)}</ul>"
        + (f"<details><summary>+{len(more)} more</summary>{escape(_more_line(more, None))}</details>" if more else "")
        + "</li>"
        for title, shown, more in out["sections"]
    )
    notes = "".join(f"<p><i>{escape(note)}</i></p>" for note in out["notes"])
    return (
        f"<div class='agent-brain-graph'><p><b>{escape(out['head'])}</b></p>{notes}"
        f"<ul>{items(out['matches'])}</ul><p>by relation</p><ul>{sections}</ul>"
        f"<p>edges</p><ul>{items(out['edges'], code=True)}</ul>"
        + (f"<p>source chunks</p><ul>{items(out['chunks'], code=True)}</ul>" if out["chunks"] else "")
        + "</div>"
    )
