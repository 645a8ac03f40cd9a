"""The MCP tools beside the newest jupyter-ai, checked the way its users meet them (run by .ci/jupyter-ai.sh).

Runs in a virtualenv holding ``agent_brain_lab[mcp]`` and ``jupyter-ai`` as pip resolved them:

1. the wheel's metadata carries the LICENSE;
2. ``agent-brain-lab mcp`` answers a client of the ``mcp`` SDK installed there: it lists the tools
   as defined, searches an index built by ``agent-brain-lab index``, refuses an unknown argument;
3. a Jupyter server started there with jupyter-ai serves the same tools on the MCP endpoint whose
   address jupyter-ai itself builds from the server's configuration (``PersonaManager``'s built-in
   MCP servers), and they answer from the server's brain.

Usage: python jupyter_ai_check.py FIXTURE_DIR WORK_DIR
"""

from __future__ import annotations

import asyncio
import json
import os
import shutil
import socket
import subprocess
import sys
import time
import urllib.request
from importlib.metadata import distribution, version
from pathlib import Path

from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client
from mcp.client.streamable_http import streamable_http_client

from agent_brain_lab.mcp.tools import SPECS, TOOL_NAMES

BIN = Path(sys.executable).parent
QUERY = {"query": "compute_total discount", "mode": "bm25", "top_k": 3}


def say(text: str) -> None:
    print(f"jupyter-ai check: {text}", flush=True)


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def as_listed(tool) -> dict:
    return {k: v for k, v in tool.model_dump(by_alias=True, exclude_none=True).items() if k != "_meta"}


async def exercise(session: ClientSession, where: str) -> None:
    """List the tools (as defined), search the fixture index, and see an unknown argument refused."""
    await session.initialize()
    listed = {tool.name: tool for tool in (await session.list_tools()).tools}
    missing = set(TOOL_NAMES) - set(listed)
    assert not missing, f"{where}: tools missing: {missing}"
    for name in TOOL_NAMES:
        assert as_listed(listed[name]) == SPECS[name].listing(), f"{where}: {name} is not listed as defined"
    status = json.loads((await session.call_tool("workspace_status", {})).content[0].text)
    assert status["state"] == "ready", f"{where}: {status}"
    result = await session.call_tool("search_workspace", QUERY)
    assert not result.isError, f"{where}: {result.content}"
    answer = json.loads(result.content[0].text)
    assert answer["results"] and answer["results"][0]["location"].startswith("shop/pricing.py:"), answer
    refused = await session.call_tool("search_workspace", {"query": "x", "alpha": 0.5})
    assert refused.isError and refused.content[0].text.startswith("alpha: unknown argument"), refused.content
    top = answer["results"][0]["location"]
    say(f"{where}: our {len(TOOL_NAMES)} tools (of {len(listed)}) listed as defined, search answered {top}")


def check_license() -> None:
    meta = distribution("agent_brain_lab").metadata
    assert "LICENSE" in (meta.get_all("License-File") or []), meta.get_all("License-File")
    text = distribution("agent_brain_lab").read_text("licenses/LICENSE") or ""
    assert "Copyright (c) 2026, Agent Brain Lab contributors" in text, text[:200]
    say(f"wheel metadata: License-Expression {meta['License-Expression']}, LICENSE shipped")


async def check_stdio(root: Path) -> None:
    params = StdioServerParameters(command=str(BIN / "agent-brain-lab"), args=["mcp", "--workspace", str(root)])
    async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
        await exercise(session, f"agent-brain-lab mcp (mcp {version('mcp')})")


def jupyter_ai_mcp_url(config_file: Path) -> str:
    """The MCP server address jupyter-ai's personas are given, computed by jupyter-ai's own code from the
    configuration the server loads."""
    from jupyter_ai_persona_manager.persona_manager import PersonaManager
    from traitlets.config import LoggingConfigurable
    from traitlets.config.loader import PyFileConfigLoader

    config = PyFileConfigLoader(config_file.name, path=str(config_file.parent)).load_config()

    class Probe(PersonaManager):
        def __init__(self) -> None:  # the traits only: a real manager needs a chat
            LoggingConfigurable.__init__(self, config=config)

    servers = Probe().builtin_mcp_servers
    (server,) = [s for s in servers if s.get("type") == "http"]
    return server["url"]


async def check_jupyter(root: Path, work: Path) -> None:
    config_dir = work / "config"
    config_dir.mkdir()
    config_file = config_dir / "jupyter_server_config.py"
    port, mcp_port = free_port(), free_port()
    config_file.write_text(
        f"c.ServerApp.port = {port}\n"
        "c.ServerApp.port_retries = 0\n"
        "c.ServerApp.open_browser = False\n"
        "c.ServerApp.allow_root = True  # CI containers run as root\n"
        "c.IdentityProvider.token = 'ci-token'\n"
        f"c.ServerApp.root_dir = {str(root)!r}\n"
        f"c.MCPExtensionApp.mcp_port = {mcp_port}  # a fixed port: jupyter-ai builds its URL from it\n"
    )
    url = jupyter_ai_mcp_url(config_file)
    assert url == f"http://localhost:{mcp_port}/mcp", url
    env = {**os.environ, "JUPYTER_CONFIG_DIR": str(config_dir), "JUPYTER_RUNTIME_DIR": str(work / "runtime")}
    log = (work / "server.log").open("wb")
    server = subprocess.Popen([str(BIN / "jupyter"), "server"], env=env, stdout=log, stderr=subprocess.STDOUT)
    try:
        deadline = time.monotonic() + 120
        while True:  # the Jupyter server answers, then its MCP endpoint does
            assert server.poll() is None and time.monotonic() < deadline, (work / "server.log").read_text()[-3000:]
            try:
                urllib.request.urlopen(f"http://127.0.0.1:{port}/api/status?token=ci-token", timeout=2)
                with socket.create_connection(("localhost", mcp_port), timeout=2):
                    break
            except OSError:
                time.sleep(0.3)
        loaded = (work / "server.log").read_text()
        for name in ("agent_brain_lab", "jupyter_server_mcp", "jupyter_ai_persona_manager"):
            assert f"{name} | extension was successfully loaded" in loaded, f"{name} did not load:\n{loaded[-3000:]}"
        async with streamable_http_client(url) as (read, write, *_), ClientSession(read, write) as session:
            await exercise(
                session, f"jupyter-ai's MCP endpoint {url} (jupyter-server-mcp {version('jupyter-server-mcp')})"
            )
    finally:
        server.terminate()
        server.wait(timeout=60)
        log.close()


def main() -> None:
    fixture, work = Path(sys.argv[1]), Path(sys.argv[2])
    say(
        f"jupyter-ai {version('jupyter-ai')}, mcp {version('mcp')}, "
        f"jupyter-server-mcp {version('jupyter-server-mcp')}, fastmcp {version('fastmcp')}"
    )
    check_license()
    root = work / "workspace"
    shutil.copytree(fixture / "shop", root / "shop")
    shutil.copy(fixture / "README.md", root / "README.md")
    shutil.copy(fixture / "analysis.ipynb", root / "analysis.ipynb")
    subprocess.run([str(BIN / "agent-brain-lab"), "index", "--workspace", str(root)], check=True)
    asyncio.run(check_stdio(root))
    asyncio.run(check_jupyter(root, work))
    say("passed")


if __name__ == "__main__":
    main()
