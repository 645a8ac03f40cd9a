#!/usr/bin/env bash
# Run the Galata UI tests from scratch: Debian chromium, the labextension build, a
# virtualenv holding this package (installed from the work tree), the ui-tests node
# modules, then Playwright.
# Exits non-zero when anything fails. Screenshots land in ui-tests/screenshots/.
#
#   AGENT_BRAIN_UI_VENV   virtualenv to (re)use   (default: $TMPDIR/agent-brain-ui-venv)
#   AGENT_BRAIN_UI_PORT   port of the test server  (default: 8891)
#   AGENT_BRAIN_UI_BARE_PORT  port of the server without the extension (default: port + 100)
#   CHROMIUM_PATH         browser executable       (default: /usr/bin/chromium)
set -euo pipefail

repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
venv="${AGENT_BRAIN_UI_VENV:-${TMPDIR:-/tmp}/agent-brain-ui-venv}"
export CHROMIUM_PATH="${CHROMIUM_PATH:-/usr/bin/chromium}"
export PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1

bash "$repo/.ci/chromium.sh"

echo "== labextension build"
(cd "$repo" && jlpm install && jlpm build)

echo "== python environment: $venv"
if [ ! -x "$venv/bin/python" ]; then
  # System site packages: the engine's dependencies (and jupyterlab) come from the base install.
  python3 -m venv --system-site-packages "$venv"
fi
# A regular (not editable) install: the venv's prefix gets the built labextension and the
# server-extension config, exactly as a user's `pip install .` would; nothing outside the venv.
"$venv/bin/python" -m pip install -q --no-deps --force-reinstall "$repo"
# The notebook widgets' frontends (ipywidgets' manager, anywidget) are labextensions shipped as data
# files under the prefix of the Python that installed them: the base one's are invisible to the
# venv's JupyterLab. Installed here too, at the base install's versions, as a user's venv has them.
widget_pins=$("$venv/bin/python" -c 'from importlib.metadata import version as v; print(*(f"{p}=={v(p)}" for p in ("jupyterlab_widgets", "anywidget")))')
# shellcheck disable=SC2086
"$venv/bin/python" -m pip install -q --no-deps --ignore-installed $widget_pins
"$venv/bin/python" -m jupyterlab.labextensions list 2>&1 | grep -E "agent-brain-lab .*enabled.*OK"

echo "== ui-tests node modules"
cd "$repo/ui-tests"
jlpm install

echo "== playwright"
AGENT_BRAIN_UI_PYTHON="$venv/bin/python" jlpm playwright test "$@"
