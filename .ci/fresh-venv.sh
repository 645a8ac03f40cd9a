#!/usr/bin/env bash
# The README's first command, verbatim, on a "fresh machine": a copy of the tracked files (as a clone
# would hold them), a new virtualenv without system site packages, empty Jupyter config and data
# folders. Port, token and no-browser come from a config file in JUPYTER_CONFIG_DIR, never from
# editing the command. Passes when the server it starts serves the labextension (GET /lab lists it,
# its remoteEntry loads) and the server extension answers GET /agent-brain/status with 200.
# Exits non-zero otherwise; the server's output is printed on failure.
#
#   AGENT_BRAIN_FRESH_DIR       scratch folder (default: a new mktemp -d; removed at the end)
#   AGENT_BRAIN_FRESH_TIMEOUT   seconds to wait for install + server start (default: 1800)
#   PYTHON                      interpreter for the venv (default: python3)
# pip's download cache is kept (PIP_CACHE_DIR as usual): a rerun costs the build, not the downloads.
set -euo pipefail

repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
scratch="${AGENT_BRAIN_FRESH_DIR:-$(mktemp -d "${TMPDIR:-/tmp}/agent-brain-fresh.XXXXXX")}"
timeout="${AGENT_BRAIN_FRESH_TIMEOUT:-1800}"
python="${PYTHON:-python3}"
server_pid=""

cleanup() {
  if [ -n "$server_pid" ] && kill -0 "$server_pid" 2>/dev/null; then
    kill -TERM -- "-$server_pid" 2>/dev/null || true
    for _ in $(seq 1 30); do kill -0 "$server_pid" 2>/dev/null || break; sleep 1; done
    kill -KILL -- "-$server_pid" 2>/dev/null || true
  fi
  [ -n "${AGENT_BRAIN_FRESH_DIR:-}" ] || rm -rf "$scratch"
}
trap cleanup EXIT

echo "== requirements: $("$python" --version), node $(node --version)"

# The command exactly as README.md writes it: the first ```bash block.
command="$("$python" - "$repo/README.md" <<'EOF'
import re, sys
block = re.search(r"^```bash\n(.*?)^```", open(sys.argv[1], encoding="utf-8").read(), re.S | re.M)
sys.exit("README.md has no ```bash block") if block is None else print(block.group(1).strip())
EOF
)"
echo "== README's first command: $command"

echo "== fresh copy of the tracked files: $scratch/clone"
mkdir -p "$scratch/clone" "$scratch/config" "$scratch/data"
(cd "$repo" && git ls-files -z | tar --null -T - -cf -) | tar -xf - -C "$scratch/clone"

echo "== fresh venv (no system site packages)"
"$python" -m venv "$scratch/venv"
export VIRTUAL_ENV="$scratch/venv" PATH="$scratch/venv/bin:$PATH"
export PIP_DISABLE_PIP_VERSION_CHECK=1 PIP_NO_INPUT=1
hash -r

port="$("$python" -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')"
token="$("$python" -c 'import secrets; print(secrets.token_hex(16))')"
export JUPYTER_CONFIG_DIR="$scratch/config" JUPYTER_DATA_DIR="$scratch/data"
cat >"$JUPYTER_CONFIG_DIR/jupyter_server_config.json" <<EOF
{
  "ServerApp": {"ip": "127.0.0.1", "port": $port, "port_retries": 0, "open_browser": false},
  "IdentityProvider": {"token": "$token"}
}
EOF

echo "== running it in the background (port $port)"
cd "$scratch/clone"
started=$SECONDS
setsid bash -c "$command" >"$scratch/server.log" 2>&1 &
server_pid=$!

base="http://127.0.0.1:$port"
auth=(-H "Authorization: token $token")
fail() {
  echo "FAILED: $*"
  echo "---- output of the command (last 80 lines)"
  tail -80 "$scratch/server.log"
  exit 1
}

until [ "$(curl -s -o /dev/null -w '%{http_code}' "${auth[@]}" "$base/api/status")" = 200 ]; do
  kill -0 "$server_pid" 2>/dev/null || fail "the command exited before the server answered"
  ((SECONDS - started < timeout)) || fail "no server after ${timeout}s"
  sleep 3
done
echo "== server up after $((SECONDS - started))s (install + build + start)"

lab="$(curl -sf "${auth[@]}" "$base/lab")" || fail "GET /lab"
entry="$("$python" -c '
import json, re, sys
config = json.loads(re.search(r"<script id=\"jupyter-config-data\"[^>]*>(.*?)</script>", sys.stdin.read(), re.S).group(1))
print(*[ext["load"] for ext in config.get("federated_extensions", []) if ext.get("name") == "agent-brain-lab"])
' <<<"$lab" || true)"
[ -n "$entry" ] || fail "GET /lab does not list the agent-brain-lab labextension"
code="$(curl -s -o /dev/null -w '%{http_code}' "${auth[@]}" "$base/lab/extensions/agent-brain-lab/$entry")"
[ "$code" = 200 ] || fail "the labextension's $entry answered $code"
echo "== /lab lists the labextension; $entry served"

code="$(curl -s -o "$scratch/status.json" -w '%{http_code}' "${auth[@]}" "$base/agent-brain/status")"
[ "$code" = 200 ] || fail "GET /agent-brain/status answered $code: $(cat "$scratch/status.json")"
echo "== /agent-brain/status 200: $(head -c 300 "$scratch/status.json")"
code="$(curl -s -o /dev/null -w '%{http_code}' "$base/agent-brain/status")"
[ "$code" = 403 ] || [ "$code" = 401 ] || fail "GET /agent-brain/status without the token answered $code"

echo "== fresh venv: passed in $((SECONDS - started))s"
