"""The two run sizes and the sections a run is made of."""

from __future__ import annotations

from dataclasses import asdict, dataclass, replace


@dataclass(frozen=True)
class Sizes:
    name: str
    packages: tuple[str, ...]  # code-search sets
    limit: int | None  # queries per set (seeded sample); None = all
    code_package: str  # installed package whose tree is indexed for files/s on real code
    scale_modules: tuple[int, ...]  # generated workspaces (about 13 chunks per module)
    incremental_files: int
    queries_per_mode: int  # in-process latency samples per mode and size
    rest_queries_per_mode: int
    held_out: tuple[str, ...] = ()  # code-search sets the retrieval tuning never looked at

    def with_held_out(self, packages: list[str]) -> Sizes:
        return replace(self, held_out=tuple(packages))

    def with_packages(self, packages: list[str]) -> Sizes:
        return replace(self, packages=tuple(packages), held_out=())

    def with_limit(self, limit: int | None) -> Sizes:
        return replace(self, limit=limit)

    def with_scale(self, modules: list[int]) -> Sizes:
        return replace(self, scale_modules=tuple(modules))

    def to_dict(self) -> dict:
        return asdict(self)


SIZES = {
    "quick": Sizes("quick", ("tornado", "jinja2"), 300, "jinja2", (400,), 200, 60, 30),
    "full": Sizes(
        "full",
        ("tornado", "jinja2", "click"),
        None,
        "tornado",
        (800, 7700),
        2000,
        200,
        100,
        held_out=("attrs", "requests", "packaging"),
    ),
}


def _quality(sizes: Sizes, args, log) -> dict:
    from .quality import evaluate

    return evaluate(
        list(sizes.packages),
        args.cache,
        sizes.limit,
        fresh=args.fresh,
        log=log,
        held_out=sizes.held_out,
        peers=not args.no_peers,
    )


def _code_indexing(sizes: Sizes, args, log) -> dict:
    from .speed import code_indexing

    return code_indexing(sizes, args.cache, log)


def _scale(sizes: Sizes, args, log) -> dict:
    from .speed import scale

    return scale(sizes, args.cache, log)


def _incremental(sizes: Sizes, args, log) -> dict:
    from .speed import incremental

    return incremental(sizes, args.cache, log)


def _watch(sizes: Sizes, args, log) -> dict:
    from .watch_bench import watch

    return watch(sizes, args.cache, log)


def _save_during_index(sizes: Sizes, args, log) -> dict:
    from .save_during_index import save_during_index

    return save_during_index(sizes, args.cache, log)


def _load(sizes: Sizes, args, log) -> dict:
    from .load import load

    return load(sizes, args, log)


def _dask(sizes: Sizes, args, log) -> dict:
    from .dask_bench import run

    return run(sizes.name, args.cache, log)


def _cold(sizes: Sizes, args, log) -> dict:
    from .cold import cold

    return cold(sizes, args.cache, log)


def _natural(sizes: Sizes, args, log) -> dict:
    """Natural questions (benchmarks/questions/natural): in --full runs, or a quick run that names it in --only."""
    if sizes.name == "quick" and args.only == ",".join(SECTIONS):
        return {"skipped": "natural questions run with --full, or --only natural (they index four packages)"}
    from .natural import evaluate

    return evaluate(args.cache, log, fresh=args.fresh)


SECTIONS = {
    "quality": _quality,
    "natural": _natural,
    "code_indexing": _code_indexing,
    "scale": _scale,
    "incremental": _incremental,
    "watch": _watch,
    "save_during_index": _save_during_index,
    "load": _load,
    "dask": _dask,
    "cold": _cold,
}
