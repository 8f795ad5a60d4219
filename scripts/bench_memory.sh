#!/usr/bin/env bash
# Peak memory of reading a large file: generates functions of N statements
# (`B[k] = A[j] + T.float32(1.0)`, about 37 bytes each) in three shapes: the function's own
# statement list, the body of one loop, and a loop inside an S-TIR root block. Reports the
# peak resident set of `tirproof check` and `tirproof fmt` on each and its ratio to the size.
#
#   ./scripts/bench_memory.sh [N] [BINARY]   # N = 100000 by default (about 4 MB per file)
set -euo pipefail
cd "$(dirname "$0")/.."
n=${1:-100000}
binary=${2:-./target/release/tirproof}
command -v /usr/bin/time >/dev/null || { echo "bench_memory: needs GNU time (/usr/bin/time)" >&2; exit 2; }
[ "$#" -ge 2 ] || cargo build --release --quiet
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT

# statements INDENT: N stores, each indented by INDENT spaces.
statements() {
    awk -v n="$n" -v pad="$1" 'BEGIN { for (k = 0; k < n; k++) printf "%" pad "sB[%d] = A[%d] + T.float32(1.0)\n", "", k % 1024, (k * 7) % 1024 }'
}
header() {
    echo '# from tvm.script import tirx as T'
    echo
    echo "@T.prim_func$1"
    echo 'def main(A: T.Buffer((1024,), "float32"), B: T.Buffer((1024,), "float32")):'
}
{ header ""; statements 4; } > "$dir/flat.py"
{ header ""; echo '    for i in range(4):'; statements 8; } > "$dir/loop.py"
{ header "(s_tir=True)"; echo '    with T.sblock("root"):'; echo '        T.reads()'; echo '        T.writes()'
  echo '        for i in range(4):'; statements 12; } > "$dir/block.py"

for shape in flat loop block; do
    file="$dir/$shape.py"
    bytes=$(wc -c < "$file")
    for command in check fmt; do
        kb=$(/usr/bin/time -f %M "$binary" "$command" "$file" 2>&1 >/dev/null | tail -1)
        awk -v s="$shape" -v c="$command" -v kb="$kb" -v b="$bytes" -v n="$n" \
            'BEGIN { printf "%-5s %-5s %d statements (%.1f MB): peak %.0f MB, %.0fx the file\n", s, c, n, b / 1e6, kb * 1024 / 1e6, kb * 1024 / b }'
    done
done
