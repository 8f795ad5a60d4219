#!/usr/bin/env bash
# Installs the TVM that tirproof audits as a peer (`tirproof fuzz --peer tvm`, the TVM text
# tests, scripts/bench_tvm.sh): a Python venv in third_party/tvm with apache-tvm pinned to
# 0.27.0.post1 from PyPI. Idempotent: does nothing when that version is there.
#
#   ./scripts/setup_tvm.sh
#
# Without it, the `tvm` oracle and the tests that need TVM are skipped and say why.
set -euo pipefail
cd "$(dirname "$0")/.."
version=0.27.0.post1
venv=third_party/tvm
if [ -x "$venv/bin/python" ] &&
    [ "$("$venv/bin/python" -c 'import tvm; print(tvm.__version__)' 2>/dev/null)" = "$version" ]; then
    exit 0
fi
command -v python3 >/dev/null 2>&1 || { echo "setup_tvm: python3 (with venv and pip) is required" >&2; exit 2; }
rm -rf "$venv"
python3 -m venv "$venv"
"$venv/bin/pip" install --quiet --disable-pip-version-check "apache-tvm==$version"
"$venv/bin/python" -c 'import tvm, tvm.s_tir, tvm.tirx' >/dev/null
