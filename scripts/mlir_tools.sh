#!/usr/bin/env bash
# Installs mlir-opt 22 into third_party/mlir without touching the system: downloads Debian trixie's
# mlir-22-tools and the closure of its libraries (glibc included: the binaries need glibc 2.38,
# newer than bookworm's) with a private apt configuration, unpacks them with dpkg-deb, and writes
# third_party/mlir/mlir-opt, which runs the unpacked binary through the unpacked dynamic loader
# on the unpacked libraries only (the wrapper finds them relative to itself). Needs apt-get and
# dpkg-deb (any Debian or Ubuntu), no root.
# The versions are pinned; a trixie point release may move them off the mirror, after which
# snapshot.debian.org still serves them.
#
#   ./scripts/mlir_tools.sh && third_party/mlir/mlir-opt --version
set -euo pipefail
cd "$(dirname "$0")/.."
dest=third_party/mlir
packages=(
    mlir-22-tools=1:22.1.8-1~deb13u5 libmlir-22=1:22.1.8-1~deb13u5 libllvm22=1:22.1.8-1~deb13u5
    libc6=2.41-12+deb13u5 libstdc++6=14.2.0-19 libgcc-s1=14.2.0-19 gcc-14-base=14.2.0-19
    libz3-4=4.13.3-1 libzstd1=1.5.7+dfsg-1 zlib1g=1:1.3.dfsg+really1.3.1-1+deb13u1 libffi8=3.4.8-2
    libedit2=3.1-20250104-1 libbsd0=0.12.2-2 libmd0=1.1.0-2+b1 libtinfo6=6.5+20250216-2
    libxml2=2.12.7+dfsg+really2.9.14-2.1+deb13u3 liblzma5=5.8.1-1+deb13u2
)
if [ -x "$dest/mlir-opt" ] && "$dest/mlir-opt" --version 2>/dev/null | grep -q "version 22.1.8"; then
    echo "mlir_tools: $dest/mlir-opt is installed"
    exit 0
fi

apt_dir=$(mktemp -d "${TMPDIR:-/tmp}/mlir-apt.XXXXXX")
trap 'rm -rf "$apt_dir"' EXIT
mkdir -p "$apt_dir/lists/partial" "$apt_dir/cache/archives/partial" "$apt_dir/debs"
echo 'deb [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] http://deb.debian.org/debian trixie main' \
    >"$apt_dir/sources.list"
apt_options=(
    -o "Dir::Etc::sourcelist=$apt_dir/sources.list" -o Dir::Etc::sourceparts=-
    -o "Dir::State::Lists=$apt_dir/lists" -o "Dir::Cache=$apt_dir/cache"
    -o Dir::State::status=/dev/null -o Debug::NoLocking=1
    -o Acquire::IndexTargets::deb::DEP-11::DefaultEnabled=false
)
apt-get "${apt_options[@]}" -q update
(cd "$apt_dir/debs" && apt-get "${apt_options[@]}" -q download "${packages[@]}")

rm -rf "$dest"
mkdir -p "$dest"
for deb in "$apt_dir"/debs/*.deb; do
    dpkg-deb -x "$deb" "$dest"
done
# Trixie merges /lib into /usr/lib: the loader and glibc are under usr/lib/x86_64-linux-gnu.
library_path='$root/usr/lib/llvm-22/lib:$root/usr/lib/x86_64-linux-gnu'
cat >"$dest/mlir-opt" <<WRAPPER
#!/bin/sh
# Runs trixie's mlir-opt with the glibc and libraries unpacked next to it (scripts/mlir_tools.sh).
root=\$(cd "\$(dirname "\$0")" && pwd)
exec "\$root/usr/lib/x86_64-linux-gnu/ld-linux-x86-64.so.2" --library-path "$library_path" "\$root/usr/lib/llvm-22/bin/mlir-opt" "\$@"
WRAPPER
chmod +x "$dest/mlir-opt"
"$dest/mlir-opt" --version
