#!/usr/bin/env bash
# The [mcp] extra beside the newest jupyter-ai, in a virtualenv of its own: pip must resolve to that
# jupyter-ai with `pip check` clean, `agent-brain-lab mcp` must answer an MCP SDK client, and a
# Jupyter server with jupyter-ai must list and call our tools on the MCP endpoint jupyter-ai uses
# (.ci/jupyter_ai_check.py). The package is installed from this tree, as `pip install .` builds it
# (a labextension already built here is reused); pip's cache keeps the step short.
set -euo pipefail
cd "$(dirname "$0")/.."
export PIP_DISABLE_PIP_VERSION_CHECK=1 PIP_NO_INPUT=1
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
started=$SECONDS

python -m venv "$work/venv"
pip="$work/venv/bin/pip"
newest=$("$pip" index versions jupyter-ai 2>/dev/null | sed -n 's/^jupyter-ai (\(.*\))$/\1/p')
[[ -n "$newest" ]] || { echo "jupyter-ai: no version found on the index"; exit 1; }
"$pip" install -q --no-compile ".[mcp]" jupyter-ai
installed=$("$work/venv/bin/python" -c "from importlib.metadata import version; print(version('jupyter-ai'))")
echo "jupyter-ai: newest on the index $newest, installed $installed ($((SECONDS - started)) s to install)"
[[ "$installed" == "$newest" ]] || { echo "pip did not resolve the newest jupyter-ai beside agent_brain_lab[mcp]"; exit 1; }
"$pip" check

"$work/venv/bin/python" .ci/jupyter_ai_check.py tests/fixtures/workspace "$work"
echo "jupyter-ai step: $((SECONDS - started)) s"
