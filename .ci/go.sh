#!/usr/bin/env bash
# Debian's Go toolchain: the oracle of the Go doc comment benchmark (benchmarks/go_docstrip.go,
# run with `go run`), whose stripping test runs under pytest.
set -euo pipefail
if ! command -v go >/dev/null; then
  echo "== installing golang-go"
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq golang-go
fi
go version
