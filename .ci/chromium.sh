#!/usr/bin/env bash
# Debian's Chromium: the headless browser of the widget test (tests/test_widgets.py) and of Galata.
#   CHROMIUM_PATH   browser executable (default: /usr/bin/chromium)
set -euo pipefail
browser="${CHROMIUM_PATH:-/usr/bin/chromium}"
if [ ! -x "$browser" ]; then
  echo "== installing chromium"
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium
fi
"$browser" --version
