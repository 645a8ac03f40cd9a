"""``python -m benchmarks [--quick|--full] [--only SECTIONS]``: run, then write results/<size>.json and .md."""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

from . import report
from .sizes import SECTIONS, SIZES

HERE = Path(__file__).parent


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks", description=__doc__)
    size = parser.add_mutually_exclusive_group()
    size.add_argument("--quick", dest="size", action="store_const", const="quick", help="CI size (default)")
    size.add_argument("--full", dest="size", action="store_const", const="full", help="the sizes of issue 6")
    parser.add_argument(
        "--only", default=",".join(SECTIONS), help=f"comma-separated sections to run, of: {', '.join(SECTIONS)}"
    )
    parser.add_argument("--packages", help="code-search sets: installed packages, comma-separated")
    parser.add_argument(
        "--held-out", help="code-search sets the tuning never saw: installed packages, comma-separated ('' for none)"
    )
    parser.add_argument("--no-peers", action="store_true", help="quality: engine modes only, no peer baselines")
    parser.add_argument("--limit", type=int, help="queries per code-search set (0: all)")
    parser.add_argument(
        "--scale-modules",
        help="generated workspace sizes in modules (~13 chunks each), comma-separated, e.g. 800 for ~10k chunks",
    )
    parser.add_argument("--fresh", action="store_true", help="rebuild cached code-search indexes")
    parser.add_argument(
        "--name", help="file name of the results (default: the size, or <size>-custom for a partial run)"
    )
    parser.add_argument("--out", type=Path, default=HERE / "results", help="where the JSON and Markdown go")
    parser.add_argument("--cache", type=Path, default=HERE / ".cache", help="corpora, indexes, embeddings")
    args = parser.parse_args(argv)
    sizes = SIZES[args.size or "quick"]
    sections = [s.strip() for s in args.only.split(",") if s.strip()]
    unknown = sorted(set(sections) - set(SECTIONS))
    if unknown:
        parser.error(f"unknown section {unknown[0]!r}; expected any of {', '.join(SECTIONS)}")
    if args.packages:
        sizes = sizes.with_packages([p.strip() for p in args.packages.split(",") if p.strip()])
    if args.held_out is not None:
        sizes = sizes.with_held_out([p.strip() for p in args.held_out.split(",") if p.strip()])
    if args.limit is not None:
        sizes = sizes.with_limit(args.limit or None)
    if args.scale_modules:
        modules = [n.strip() for n in args.scale_modules.split(",") if n.strip()]
        if not all(n.isdigit() and int(n) > 0 for n in modules):
            parser.error("--scale-modules takes positive integers, comma-separated")
        sizes = sizes.with_scale([int(n) for n in modules])
    argv = sys.argv[1:] if argv is None else argv

    args.cache.mkdir(parents=True, exist_ok=True)
    started = time.time()
    results = {
        "size": sizes.name,
        "command": " ".join(["python -m benchmarks", *argv]),
        "machine": report.machine(),
        "sizes": sizes.to_dict(),
        "sections": {},
    }
    for section in sections:
        log(f"== {section}")
        results["sections"][section] = SECTIONS[section](sizes, args, log)
    results["wall_s"] = round(time.time() - started, 1)
    results["load_1min_at_end"] = report.load_average()

    args.out.mkdir(parents=True, exist_ok=True)
    default_name = (
        sizes.name if set(sections) == set(SECTIONS) and argv in ([], [f"--{sizes.name}"]) else f"{sizes.name}-custom"
    )
    name = args.name or default_name
    (args.out / f"{name}.json").write_text(json.dumps(results, indent=1) + "\n")
    (args.out / f"{name}.md").write_text(report.markdown(results))
    log(f"wrote {args.out / name}.json and .md")
    return 0


def log(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


if __name__ == "__main__":
    sys.exit(main())
