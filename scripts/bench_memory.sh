#!/usr/bin/env bash
# Peak memory of reading a large file: generates a function of N statements
# (`B[k] = A[j] + T.float32(1.0)`, about 37 bytes each), then reports the peak resident set
# of `tirproof check` and `tirproof fmt` on it and its ratio to the file's size.
#
#   ./scripts/bench_memory.sh [N]    # N = 100000 by default (a 3.7 MB file)
set -euo pipefail
cd "$(dirname "$0")/.."
n=${1:-100000}
command -v /usr/bin/time >/dev/null || { echo "bench_memory: needs GNU time (/usr/bin/time)" >&2; exit 2; }
cargo build --release --quiet
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
file="$dir/statements.py"
{
    echo '# from tvm.script import tirx as T'
    echo
    echo '@T.prim_func'
    echo 'def main(A: T.Buffer((1024,), "float32"), B: T.Buffer((1024,), "float32")):'
    awk -v n="$n" 'BEGIN { for (k = 0; k < n; k++) printf "    B[%d] = A[%d] + T.float32(1.0)\n", k % 1024, (k * 7) % 1024 }'
} > "$file"
bytes=$(wc -c < "$file")
for command in check fmt; do
    kb=$(/usr/bin/time -f %M ./target/release/tirproof "$command" "$file" 2>&1 >/dev/null | tail -1)
    awk -v c="$command" -v kb="$kb" -v b="$bytes" -v n="$n" \
        'BEGIN { printf "%s, %d statements (%.1f MB): peak %.0f MB, %.0fx the file\n", c, n, b / 1e6, kb * 1024 / 1e6, kb * 1024 / b }'
done
