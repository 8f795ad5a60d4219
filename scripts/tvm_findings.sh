#!/usr/bin/env bash
# Turns the TVM findings of campaigns into corpus cases: for each `tvm` finding under
# CAMPAIGN/findings, minimizes it again with the current binary (TVM in the loop) and writes
# corpus/tvm-findings/<class>/ with REPORT.md (the Python snippet that shows it in TVM, TVM's
# output, tirproof's verdict), report.json and case.py (a `# test: tvm-finding` case that
# `cargo test` checks). A class already there is kept (the first campaign's report wins).
#
#   ./scripts/tvm_findings.sh CAMPAIGN [CAMPAIGN...]
set -euo pipefail
cd "$(dirname "$0")/.."
[ $# -ge 1 ] || { echo "usage: $0 CAMPAIGN_DIR [CAMPAIGN_DIR...]" >&2; exit 2; }
./scripts/setup_tvm.sh
cargo build --release --quiet
bin=./target/release/tirproof
out=corpus/tvm-findings
mkdir -p "$out"
for campaign in "$@"; do
    for finding in "$campaign"/findings/tvm--*/; do
        [ -f "$finding/report.json" ] || continue
        read -r seed peer < <(python3 -c 'import json,sys,re; d=json.load(open(sys.argv[1])); p=re.search(r"--peer (\S+)", d["reproduce"]); print(d["seed"], p.group(1) if p else "tvm")' "$finding/report.json")
        # A campaign's program may be one the pass may refuse: TVM is judged on it all the same.
        tmp=$(mktemp -d)
        cp "$finding/minimized.py" "$tmp/minimized.py"
        # Exit code 1 is the finding itself.
        rc=0
        (cd "$tmp" && "$OLDPWD/$bin" reduce minimized.py --oracle tvm --peer "$peer" --seed "$seed" --may-be-refused --out report >/dev/null) || rc=$?
        if [ "$rc" -gt 1 ]; then
            echo "$finding: no longer reproduces with this binary, left out" >&2
            rm -rf "$tmp"
            continue
        fi
        # Named after the class the current binary gives (a campaign of an older one may differ).
        slug=$(python3 -c 'import json,re,sys; c=json.load(open(sys.argv[1]))["signature"]["class"]; print(re.sub(r"[^A-Za-z0-9-]", "_", c.removeprefix("tvm:")))' "$tmp/report/report.json")
        if [ -d "$out/$slug" ]; then
            rm -rf "$tmp"
            continue
        fi
        mkdir -p "$out/$slug"
        cp "$tmp/report/REPORT.md" "$tmp/report/report.json" "$out/$slug/"
        cp "$tmp/report/regression.py" "$out/$slug/case.py"
        # The reports name the campaign program they came from, not the file reduced here.
        python3 - "$finding/report.json" "$out/$slug" <<'PY'
import json, pathlib, sys
origin = json.load(open(sys.argv[1]))["origin"]
for name in ("REPORT.md", "report.json", "case.py"):
    path = pathlib.Path(sys.argv[2]) / name
    path.write_text(path.read_text().replace("`minimized.py`", origin))
PY
        rm -rf "$tmp"
        echo "$out/$slug"
    done
done
