#!/usr/bin/env bash
# Installs Chromium from Debian's packages for the headless-browser test of a campaign's page
# (tests/campaign_page.rs). As root it runs `apt-get install chromium`; otherwise it downloads
# the package and the closure of its libraries with a private apt state (as scripts/mlir_tools.sh
# does for mlir-opt) and unpacks them into third_party/chromium, with a wrapper
# third_party/chromium/chromium that runs the unpacked browser on the unpacked libraries. The
# test finds either (or the browser named by TIRPROOF_CHROMIUM), and is skipped, saying why,
# without one.
#
#   ./scripts/chromium.sh && cargo test --release --test campaign_page
set -euo pipefail
cd "$(dirname "$0")/.."

if command -v chromium >/dev/null 2>&1; then
    echo "chromium: $(command -v chromium) is installed"
    exit 0
fi
if [ "$(id -u)" = 0 ]; then
    apt-get update -q
    DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends chromium
    chromium --version
    exit 0
fi

dest=third_party/chromium
if [ -x "$dest/chromium" ]; then
    echo "chromium: $dest/chromium is installed"
    exit 0
fi
apt_dir=$(mktemp -d "${TMPDIR:-/tmp}/chromium-apt.XXXXXX")
trap 'rm -rf "$apt_dir"' EXIT
mkdir -p "$apt_dir/lists/partial" "$apt_dir/cache/archives/partial" "$apt_dir/debs"
apt_options=(
    -o "Dir::State::Lists=$apt_dir/lists" -o "Dir::Cache=$apt_dir/cache"
    -o Dir::State::status=/dev/null -o Debug::NoLocking=1
)
apt-get "${apt_options[@]}" -q update
# The package and every library it needs, as this release's apt resolves them.
packages=$(apt-cache "${apt_options[@]}" depends --recurse --no-recommends --no-suggests --no-conflicts \
    --no-breaks --no-replaces --no-enhances chromium | grep -v '^ ' | grep -v '^<' | sort -u)
# shellcheck disable=SC2086 # one word per package
(cd "$apt_dir/debs" && apt-get "${apt_options[@]}" -q download $packages)
rm -rf "$dest"
mkdir -p "$dest"
for deb in "$apt_dir"/debs/*.deb; do
    dpkg-deb -x "$deb" "$dest"
done
cat >"$dest/chromium" <<'WRAPPER'
#!/bin/sh
# Runs the Chromium unpacked next to it (scripts/chromium.sh) on the libraries unpacked with it.
root=$(cd "$(dirname "$0")" && pwd)
export LD_LIBRARY_PATH="$root/usr/lib/x86_64-linux-gnu:$root/lib/x86_64-linux-gnu:$root/usr/lib/chromium${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
exec "$root/usr/lib/chromium/chromium" "$@"
WRAPPER
chmod +x "$dest/chromium"
"$dest/chromium" --version
