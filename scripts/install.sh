#!/usr/bin/env bash
# Installs the tirproof command line so that it keeps working after this clone moves or is
# deleted: the binary goes to PREFIX/bin and the libz3 it links to PREFIX/lib/tirproof, which
# the binary finds through its run-time search path `$ORIGIN/../lib/tirproof` (set by build.rs
# beside the clone's own directory).
#
#   ./scripts/install.sh                 # PREFIX = ~/.local
#   ./scripts/install.sh /opt/tirproof   # any other prefix
#
# Then put PREFIX/bin on PATH (for ~/.local: `export PATH="$HOME/.local/bin:$PATH"`).
set -euo pipefail
cd "$(dirname "$0")/.."

prefix=${1:-"$HOME/.local"}
./scripts/setup.sh
# The workspace target directory is reused, so an earlier release build is not repeated.
CARGO_TARGET_DIR=${CARGO_TARGET_DIR:-target} cargo install --locked --path . --root "$prefix" --force
mkdir -p "$prefix/lib/tirproof"
# The shared library and its SONAME link, copied as files (cp -L) so the install holds no
# link back into the clone.
for lib in third_party/z3/lib/libz3.so*; do
    cp -L "$lib" "$prefix/lib/tirproof/$(basename "$lib")"
done
"$prefix/bin/tirproof" --version
echo "installed: $prefix/bin/tirproof (libz3 in $prefix/lib/tirproof)"
case ":$PATH:" in
    *":$prefix/bin:"*) ;;
    *) echo "add $prefix/bin to PATH to run it as \`tirproof\`" ;;
esac
