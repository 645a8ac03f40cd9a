"""A real ``jupyter server`` subprocess with the extension, on 127.0.0.1 with a token, for REST timings."""

from __future__ import annotations

import http.client
import json
import os
import secrets
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from .worker import REPO


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class JupyterServer:
    """Context manager: start the server on ``root``, wait until it answers, stop it on exit."""

    def __init__(self, root: Path, startup_timeout: float = 120):
        self.root = root
        self.port = _free_port()
        self.token = secrets.token_hex(16)
        self._timeout = startup_timeout
        self._proc: subprocess.Popen | None = None
        self._tmp = tempfile.TemporaryDirectory(prefix="bench-jupyter-")
        self._conn: http.client.HTTPConnection | None = None

    def __enter__(self) -> JupyterServer:
        tmp = Path(self._tmp.name)
        config = {
            "ServerApp": {"jpserver_extensions": {"agent_brain_lab": True}},
            "AgentBrain": {"auto_reindex_on_save": False},
        }
        (tmp / "jupyter_server_config.json").write_text(json.dumps(config))
        env = {
            **os.environ,
            "JUPYTER_CONFIG_DIR": str(tmp),
            "JUPYTER_RUNTIME_DIR": str(tmp / "runtime"),
            "PYTHONPATH": os.pathsep.join(filter(None, [str(REPO), os.environ.get("PYTHONPATH")])),
        }
        self._log = open(tmp / "server.log", "w")
        self._proc = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "jupyter_server",
                "--ServerApp.ip=127.0.0.1",
                f"--ServerApp.port={self.port}",
                "--ServerApp.port_retries=0",
                "--ServerApp.allow_root=True",
                f"--IdentityProvider.token={self.token}",
                f"--ServerApp.root_dir={self.root}",
                "--ServerApp.open_browser=False",
            ],
            env=env,
            stdout=self._log,
            stderr=subprocess.STDOUT,
        )
        self._wait_ready()
        return self

    def _wait_ready(self) -> None:
        deadline = time.monotonic() + self._timeout
        while time.monotonic() < deadline:
            if self._proc.poll() is not None:
                raise RuntimeError(f"jupyter server exited:\n{self.log_tail()}")
            try:
                status, _ = self.request("GET", "/agent-brain/status")
                if status == 200:
                    return
            except OSError:
                self._conn = None
            time.sleep(0.5)
        raise RuntimeError(f"jupyter server did not answer within {self._timeout:.0f}s:\n{self.log_tail()}")

    def log_tail(self) -> str:
        self._log.flush()
        return (Path(self._tmp.name) / "server.log").read_text()[-3000:]

    def request(self, method: str, path: str, body: dict | None = None) -> tuple[int, dict]:
        """One request on a kept-alive connection (what a browser does)."""
        if self._conn is None:
            self._conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=60)
        payload = None if body is None else json.dumps(body)
        self._conn.request(
            method,
            path,
            body=payload,
            headers={"Authorization": f"token {self.token}", "Content-Type": "application/json"},
        )
        response = self._conn.getresponse()
        data = response.read()
        return response.status, json.loads(data) if data else {}

    def query(self, body: dict) -> dict:
        status, data = self.request("POST", "/agent-brain/query", body)
        if status != 200:
            raise RuntimeError(f"query failed with {status}: {data}")
        return data

    def __exit__(self, *exc) -> None:
        if self._conn is not None:
            self._conn.close()
        if self._proc is not None:
            self._proc.terminate()
            try:
                self._proc.wait(timeout=20)
            except subprocess.TimeoutExpired:
                self._proc.kill()
                self._proc.wait()
        self._log.close()
        self._tmp.cleanup()
