"""Cold front doors and what the extension costs a Jupyter server that does not use it.

Every figure comes from fresh processes (a cold start is a property of a whole process):

- ``import agent_brain_lab``: the time the import takes inside a fresh interpreter, median of runs;
- the server extension: the time and RSS growth of importing and loading it into an initialised
  ``ServerApp`` (a fresh interpreter each run, jupyter_server already imported, as in a server);
- the CLI: wall time of ``agent-brain-lab query`` (bm25, multi) in a fresh process on an indexed
  workspace, beside a bare ``python -c pass`` on the same machine at the same time;
- a real ``jupyter server`` on a generated tree of ~5,000 folders, most of them under
  ``node_modules``, a virtualenv, ``.git`` and a gitignored folder: inotify watches held (from
  ``/proc/<pid>/fdinfo``) and CPU burnt over an idle window, before any use, after the first index
  (watching with events), and polling (``WATCHFILES_FORCE_POLLING``); then the time a SIGTERM takes
  to end the server, with the extension and without it.

The machine's load average is recorded with the results: timings on a shared machine move with it.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import time
import urllib.request
from collections.abc import Callable
from pathlib import Path

from agent_brain_lab.engine.watch.source import inotify_watches

from .report import load_average
from .sizes import Sizes

Log = Callable[[str], None]
REPO = Path(__file__).resolve().parents[1]
RUNS = 5
IDLE_S = 10.0
TOKEN = "cold-bench"
SOURCE_FOLDERS = 400  # folders the workspace indexes (a few hold files)
IGNORED = {"node_modules": 3000, ".venv": 800, ".git": 400, "generated": 400}  # folders it must not watch

_IMPORT = "import time; t = time.perf_counter(); import agent_brain_lab; print(time.perf_counter() - t)"
_EXTENSION = """
import json, time
from jupyter_server.serverapp import ServerApp
from traitlets.config import Config

def rss_kb():
    return int(next(l.split()[1] for l in open("/proc/self/status") if l.startswith("VmRSS")))

config = Config()
config.ServerApp.root_dir = {root!r}
config.ServerApp.jpserver_extensions = {{}}
app = ServerApp(config=config)
app.initialize(argv=[], find_extensions=False, new_httpserver=False)
rss, t = rss_kb(), time.perf_counter()
from agent_brain_lab.server.extension import AgentBrainApp
AgentBrainApp._load_jupyter_server_extension(app)
print(json.dumps({{"s": time.perf_counter() - t, "rss_mb": (rss_kb() - rss) / 1024}}))
"""


def cold(sizes: Sizes, cache: Path, log: Log) -> dict:
    work = cache / "work" / "cold"
    shutil.rmtree(work, ignore_errors=True)
    work.mkdir(parents=True)
    try:
        results: dict = {"runs": RUNS, "load_1min_at_start": load_average()}
        results["import"] = _import_time(log)
        results["server_extension"] = _extension_load(work, log)
        results["cli"] = _cli(work, log)
        results["server"] = _server(work, log)
        results["load_1min_at_end"] = load_average()
        return results
    finally:
        shutil.rmtree(work, ignore_errors=True)


def _env(**extra: str) -> dict[str, str]:
    path = os.pathsep.join(filter(None, [str(REPO), os.environ.get("PYTHONPATH")]))  # this checkout's package
    return {**os.environ, "PYTHONPATH": path, **extra}


def _python(code: str, cwd: Path | None = None) -> str:
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, env=_env(), cwd=cwd, timeout=300, check=True
    )
    return done.stdout.strip().splitlines()[-1]


def _median(values: list[float], digits: int = 3) -> float:
    return round(statistics.median(values), digits)


def _import_time(log: Log) -> dict:
    times = [float(_python(_IMPORT)) for _ in range(RUNS)]
    log(f"import agent_brain_lab: median {_median(times)} s")
    return {"median_s": _median(times), "min_s": round(min(times), 3)}


def _extension_load(work: Path, log: Log) -> dict:
    runs = [json.loads(_python(_EXTENSION.format(root=str(work)))) for _ in range(RUNS)]
    out = {"median_s": _median([r["s"] for r in runs]), "rss_mb": _median([r["rss_mb"] for r in runs], 1)}
    log(f"server extension load: median {out['median_s']} s, +{out['rss_mb']} MB RSS")
    return out


def _wall(argv: list[str], cwd: Path) -> float:
    started = time.perf_counter()
    subprocess.run(argv, cwd=cwd, env=_env(), capture_output=True, timeout=600, check=True)
    return time.perf_counter() - started


def _cli(work: Path, log: Log) -> dict:
    from .synth import generate

    root = work / "cli"
    root.mkdir()
    generate(root, 20)  # ~250 chunks
    cli = [sys.executable, "-m", "agent_brain_lab.cli"]
    subprocess.run([*cli, "index"], cwd=root, env=_env(), capture_output=True, timeout=1800, check=True)
    out: dict = {
        "chunks": json.loads(
            _python(
                "from agent_brain_lab import Brain; import json; "
                f"print(json.dumps(Brain({str(root)!r}).status().chunks['total']))"
            )
        )
    }
    for name, argv in {
        "python_pass": [sys.executable, "-c", "pass"],
        "bm25": [*cli, "query", "load the config file", "--mode", "bm25"],
        "multi": [*cli, "query", "load the config file", "--mode", "multi"],
    }.items():
        times = [_wall(argv, root) for _ in range(RUNS)]
        out[name] = {"median_s": _median(times), "min_s": round(min(times), 3)}
        log(f"cold {name}: median {out[name]['median_s']} s")
    return out


# ---------------------------------------------------------------- a real jupyter server


def _tree(root: Path) -> int:
    """A workspace of ~5,000 folders: SOURCE_FOLDERS indexed, the rest excluded or ignored."""
    for i in range(SOURCE_FOLDERS):
        folder = root / "src" / f"pkg{i // 20}" / f"mod{i % 20}"
        folder.mkdir(parents=True)
        if i % 40 == 0:
            (folder / "notes.md").write_text(f"# Module {i}\n\nThe loader of part {i}.\n")
    for name, count in IGNORED.items():
        for i in range(count):
            (root / name / f"p{i // 50}" / f"d{i % 50}").mkdir(parents=True, exist_ok=True)
    (root / ".venv" / "pyvenv.cfg").write_text("home = /usr/bin\n")
    (root / ".gitignore").write_text("generated/\n")
    return sum(1 for _ in root.rglob("*") if _.is_dir())


def _installed_extensions() -> list[str]:
    from jupyter_core.paths import jupyter_config_path
    from jupyter_server.extension.config import ExtensionConfigManager

    manager = ExtensionConfigManager(read_config_path=jupyter_config_path())
    return sorted(manager.get_jpserver_extensions())


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class _Server:
    def __init__(self, root: Path, config_dir: Path, extension: bool, **env: str):
        self.port = _free_port()
        config_dir.mkdir(parents=True, exist_ok=True)
        # This extension alone (or none): other installed extensions' costs are not ours to measure.
        others = {name: False for name in _installed_extensions() if name != "agent_brain_lab"}
        server_config = {"ServerApp": {"jpserver_extensions": {**others, "agent_brain_lab": extension}}}
        (config_dir / "jupyter_server_config.json").write_text(json.dumps(server_config))
        argv = [
            sys.executable, "-m", "jupyter_server", "--no-browser", f"--port={self.port}", "--ServerApp.port_retries=0",
            f"--IdentityProvider.token={TOKEN}", f"--ServerApp.root_dir={root}", "--ServerApp.allow_root=True",
        ]  # fmt: skip
        self.proc = subprocess.Popen(
            argv,
            cwd=root,  # `python -m` puts the working folder first on sys.path: not a checkout's
            env=_env(JUPYTER_CONFIG_DIR=str(config_dir), **env),
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        self._until(lambda: self.call("GET", "api/status") is not None, "the server up", 180)

    def call(self, method: str, path: str, body: dict | None = None) -> dict | None:
        request = urllib.request.Request(
            f"http://127.0.0.1:{self.port}/{path}",
            method=method,
            data=json.dumps(body).encode() if body is not None else None,
            headers={"Authorization": f"token {TOKEN}", "Content-Type": "application/json"},
        )
        try:
            with urllib.request.urlopen(request, timeout=30) as response:
                return json.loads(response.read() or b"{}")
        except OSError:
            return None

    @staticmethod
    def _until(check: Callable[[], object], what: str, timeout: float) -> None:
        deadline = time.monotonic() + timeout
        while not check():
            if time.monotonic() > deadline:
                raise RuntimeError(f"not within {timeout}s: {what}")
            time.sleep(0.2)

    def idle(self) -> dict:
        """inotify watches held, RSS, and the CPU the server burns doing nothing for IDLE_S."""
        self._settle()
        before = self._cpu_s()
        time.sleep(IDLE_S)
        cpu = self._cpu_s() - before
        return {
            "inotify_watches": inotify_watches(self.proc.pid),
            "idle_cpu_percent": round(100 * cpu / IDLE_S, 2),
            "rss_mb": round(self._rss_kb() / 1024, 1),
        }

    def _settle(self, quiet_percent: float = 5.0, timeout: float = 120.0) -> None:
        """Wait out start-up work (a warm-up loading the model, say): until one second passes quietly."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            before = self._cpu_s()
            time.sleep(1.0)
            if 100 * (self._cpu_s() - before) < quiet_percent:
                return

    def index(self) -> None:
        job = self.call("POST", "agent-brain/index", {})
        assert job is not None and "job_id" in job, job

        def done() -> bool:
            state = self.call("GET", f"agent-brain/jobs/{job['job_id']}")
            return bool(state) and state["status"] not in ("pending", "running")

        self._until(done, "the first index", 1800)

        def watching() -> bool:
            status = self.call("GET", "agent-brain/status")
            return bool(status) and status["watch"]["mode"] in ("events", "polling")

        self._until(watching, "the watcher set up", 300)

    def stop(self) -> float:
        """Seconds from SIGTERM to the process's exit."""
        started = time.perf_counter()
        self.proc.send_signal(signal.SIGTERM)
        self.proc.wait(timeout=120)
        return round(time.perf_counter() - started, 2)

    def _cpu_s(self) -> float:
        fields = Path(f"/proc/{self.proc.pid}/stat").read_text().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")  # utime + stime

    def _rss_kb(self) -> int:
        status = Path(f"/proc/{self.proc.pid}/status").read_text()
        return int(next(line.split()[1] for line in status.splitlines() if line.startswith("VmRSS")))


def _server(work: Path, log: Log) -> dict:
    root = work / "tree"
    root.mkdir()
    out: dict = {"folders": _tree(root), "idle_window_s": IDLE_S}
    log(f"server: a tree of {out['folders']} folders")
    baseline = _Server(root, work / "config-off", extension=False)
    out["without_extension"] = baseline.idle()
    out["without_extension"]["sigterm_exit_s"] = baseline.stop()
    server = _Server(root, work / "config-on", extension=True)
    out["before_first_use"] = server.idle()
    server.index()
    out["after_first_index"] = server.idle()
    out["after_first_index"]["sigterm_exit_s"] = server.stop()
    polling = _Server(root, work / "config-on", extension=True, WATCHFILES_FORCE_POLLING="1")
    polling._until(  # the root holds an index: the server follows it from the start
        lambda: (polling.call("GET", "agent-brain/status") or {}).get("watch", {}).get("mode") == "polling",
        "the polling watcher",
        300,
    )
    out["polling"] = polling.idle()
    out["polling"]["sigterm_exit_s"] = polling.stop()
    for phase in ("without_extension", "before_first_use", "after_first_index", "polling"):
        log(f"server {phase}: {out[phase]}")
    return out


def markdown(section: dict) -> list[str]:
    cli, server = section["cli"], section["server"]
    rows = [
        ["import agent_brain_lab (in-process)", f"{section['import']['median_s']} s", ""],
        [
            "server extension load",
            f"{section['server_extension']['median_s']} s",
            f"+{section['server_extension']['rss_mb']} MB RSS",
        ],
        ["`python -c pass` (the floor)", f"{cli['python_pass']['median_s']} s", "wall"],
        ["CLI bm25 query, cold", f"{cli['bm25']['median_s']} s", f"wall, {cli['chunks']} chunks"],
        ["CLI multi query, cold", f"{cli['multi']['median_s']} s", "wall (loads the model)"],
    ]
    out = [
        "## Cold start and idle cost",
        "",
        f"Median of {section['runs']} fresh processes each; load average {section['load_1min_at_start']:.1f} at "
        f"the start, {section['load_1min_at_end']:.1f} at the end.",
        "",
        "| what | time | note |",
        "|---|---|---|",
        *["| " + " | ".join(r) + " |" for r in rows],
        "",
        f"`jupyter server` on a tree of {server['folders']} folders (most under node_modules, a venv, .git and a "
        f"gitignored folder), idle for {server['idle_window_s']:g} s:",
        "",
        "| server | inotify watches | idle CPU | RSS | SIGTERM → exit |",
        "|---|---|---|---|---|",
    ]
    for phase, label in (
        ("without_extension", "without the extension"),
        ("before_first_use", "with it, before first use"),
        ("after_first_index", "with it, after the first index (events)"),
        ("polling", "with it, polling"),
    ):
        p = server[phase]
        exit_s = f"{p['sigterm_exit_s']} s" if "sigterm_exit_s" in p else ""
        out.append(f"| {label} | {p['inotify_watches']} | {p['idle_cpu_percent']}% | {p['rss_mb']} MB | {exit_s} |")
    return out
