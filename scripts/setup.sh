#!/usr/bin/env bash
# Installs everything the build needs that cargo does not fetch by itself.
# Idempotent: does nothing (and prints nothing) when everything is present.
#
# Z3: the verifier (verify/) links libz3 from third_party/z3, taken from the z3-solver wheel on
# PyPI for this machine's architecture. The version is pinned once, as Z3_SYS_Z3_VERSION in
# .cargo/config.toml; this script reads it from there. Layout after installing:
#   third_party/z3/VERSION         the installed version, e.g. 5.3.2
#   third_party/z3/lib/libz3.so*   the shared library (libz3.so links to the SONAME file)
#   third_party/z3/include/*.h     the C headers
#   third_party/z3/bin/z3          the command line solver (runs the SMT-LIB dumps)
set -euo pipefail
cd "$(dirname "$0")/.."

die() {
    echo "setup: $*" >&2
    exit 2
}

if ! command -v cargo >/dev/null 2>&1; then
    die "cargo is required (https://rustup.rs)"
fi

# ---- Z3 -------------------------------------------------------------------------------------

z3_version=$(sed -n 's/^Z3_SYS_Z3_VERSION *= *"\([0-9.]*\)".*/\1/p' .cargo/config.toml)
[ -n "$z3_version" ] || die "cannot read the pinned Z3 version (Z3_SYS_Z3_VERSION) from .cargo/config.toml"
z3_dir=third_party/z3

z3_installed() {
    [ "$(cat "$z3_dir/VERSION" 2>/dev/null)" = "$z3_version" ] &&
        [ -e "$z3_dir/lib/libz3.so" ] && [ -x "$z3_dir/bin/z3" ] && [ -e "$z3_dir/include/z3.h" ]
}

install_z3() {
    command -v python3 >/dev/null 2>&1 || die "python3 (with pip) is required to download Z3 $z3_version"
    python3 -m pip --version >/dev/null 2>&1 || die "pip is required to download Z3 $z3_version (python3 -m pip)"
    local arch
    arch=$(uname -m)
    case "$arch" in
    x86_64 | aarch64) ;;
    *) die "no z3-solver wheel is used for architecture $arch (x86_64 and aarch64 are supported)" ;;
    esac

    local tmp
    tmp=$(mktemp -d)
    # shellcheck disable=SC2064 # expand $tmp now: it is local
    trap "rm -rf '$tmp'" EXIT

    # pip picks the wheel for this machine (architecture and glibc), or fails.
    if ! python3 -m pip download --quiet --no-deps --only-binary=:all: --disable-pip-version-check \
        "z3-solver==$z3_version.0" -d "$tmp/wheel" >"$tmp/pip.log" 2>&1; then
        cat "$tmp/pip.log" >&2
        die "could not download the z3-solver $z3_version.0 wheel for $arch, $(getconf GNU_LIBC_VERSION 2>/dev/null || echo 'unknown libc') \
with pip (it needs network access to PyPI; the 5.3.2 wheels need glibc >= 2.27 on x86_64 and >= 2.38 on aarch64)"
    fi
    local wheel
    wheel=$(find "$tmp/wheel" -name "z3_solver-$z3_version.0-*.whl" | head -n 1)
    [ -n "$wheel" ] || die "pip did not leave a z3-solver $z3_version.0 wheel in $tmp/wheel"

    # Unpack with python (a wheel is a zip file; unzip may be missing). Zip files keep no
    # symbolic links, so the wheel holds two copies of the library: keep the one named by its
    # SONAME and make libz3.so a link to it.
    python3 - "$wheel" "$tmp/z3" <<'EOF' || die "could not unpack $wheel"
import os, shutil, sys, zipfile

wheel, dest = sys.argv[1], sys.argv[2]
os.makedirs(os.path.join(dest, "lib"))
os.makedirs(os.path.join(dest, "include"))
os.makedirs(os.path.join(dest, "bin"))
libs = []
with zipfile.ZipFile(wheel) as whl:
    for name in whl.namelist():
        base = os.path.basename(name)
        if not base:
            continue
        if name.startswith("z3/lib/libz3.so"):
            target, mode = os.path.join(dest, "lib", base), 0o755
            libs.append(base)
        elif name.startswith("z3/include/") and base.endswith(".h"):
            target, mode = os.path.join(dest, "include", base), 0o644
        elif name.endswith(".data/data/bin/z3"):
            target, mode = os.path.join(dest, "bin", "z3"), 0o755
        else:
            continue
        with whl.open(name) as src, open(target, "wb") as out:
            shutil.copyfileobj(src, out)
        os.chmod(target, mode)
versioned = sorted(b for b in libs if b != "libz3.so")
if "libz3.so" not in libs or not os.path.exists(os.path.join(dest, "bin", "z3")):
    sys.exit("the wheel has no z3/lib/libz3.so or no z3 binary")
if versioned:
    os.remove(os.path.join(dest, "lib", "libz3.so"))
    os.symlink(versioned[-1], os.path.join(dest, "lib", "libz3.so"))
EOF

    # Check the version of both the library (through its C API) and the command line tool.
    local lib_version cli_version
    lib_version=$(python3 - "$tmp/z3/lib/libz3.so" <<'EOF'
import ctypes, sys

lib = ctypes.CDLL(sys.argv[1])
parts = [ctypes.c_uint() for _ in range(4)]
lib.Z3_get_version(*[ctypes.byref(p) for p in parts])
print(".".join(str(p.value) for p in parts[:3]))
EOF
    ) || die "the downloaded libz3.so cannot be loaded on this machine"
    cli_version=$("$tmp/z3/bin/z3" --version 2>/dev/null | sed -n 's/^Z3 version \([0-9.]*\).*/\1/p') ||
        die "the downloaded z3 binary does not run on this machine"
    [ "$lib_version" = "$z3_version" ] || die "the wheel's libz3.so is version '$lib_version', expected $z3_version"
    [ "$cli_version" = "$z3_version" ] || die "the wheel's z3 binary is version '$cli_version', expected $z3_version"
    echo "$z3_version" >"$tmp/z3/VERSION"

    mkdir -p "$(dirname "$z3_dir")"
    rm -rf "$z3_dir"
    mv "$tmp/z3" "$z3_dir"
    echo "setup: installed Z3 $z3_version ($arch, from $(basename "$wheel")) into $z3_dir"
}

z3_installed || install_z3

# ---- ptxas ----------------------------------------------------------------------------------
#
# The PTX tests (tests/ptx_ptxas.rs) assemble every PTX tirproof emits with NVIDIA's ptxas of
# two CUDA major versions, taken from wheels on PyPI that ship it (no GPU is needed): 12.x from
# nvidia-cuda-nvcc-cu12, 13.x from nvidia-cuda-nvcc (13.0, and 13.4 for the PTX ISA 9.4 of
# Triton's sm_90a kernels). Without one, the tests skip it with a
# message, so a failed download only warns. Layout after installing (DIR = ptxas, ptxas13, ptxas134):
#   third_party/DIR/VERSION      the installed wheel version, e.g. 12.9.86
#   third_party/DIR/bin/ptxas    the assembler

ptxas_installed() { # DIR VERSION
    [ "$(cat "third_party/$1/VERSION" 2>/dev/null)" = "$2" ] && [ -x "third_party/$1/bin/ptxas" ]
}

install_ptxas() { # DIR PACKAGE VERSION PATH-OF-PTXAS-IN-THE-WHEEL
    local dir=third_party/$1 package=$2 version=$3 member=$4 tmp wheel
    tmp=$(mktemp -d)
    if ! python3 -m pip download --quiet --no-deps --only-binary=:all: --disable-pip-version-check \
        "$package==$version" -d "$tmp/wheel" >"$tmp/pip.log" 2>&1; then
        echo "setup: warning: could not download $package $version (the ptxas $version tests will skip)" >&2
        rm -rf "$tmp"
        return 0
    fi
    wheel=$(find "$tmp/wheel" -name "${package//-/_}-$version-*.whl" | head -n 1)
    mkdir -p "$tmp/ptxas/bin"
    if [ -z "$wheel" ] || ! python3 - "$wheel" "$member" "$tmp/ptxas/bin/ptxas" <<'PY'; then
import os, shutil, sys, zipfile

wheel, member, target = sys.argv[1], sys.argv[2], sys.argv[3]
with zipfile.ZipFile(wheel) as whl, whl.open(member) as src, open(target, "wb") as out:
    shutil.copyfileobj(src, out)
os.chmod(target, 0o755)
PY
        echo "setup: warning: no ptxas in the $package wheel (the ptxas $version tests will skip)" >&2
        rm -rf "$tmp"
        return 0
    fi
    if ! "$tmp/ptxas/bin/ptxas" --version >/dev/null 2>&1; then
        echo "setup: warning: the downloaded ptxas $version does not run on this machine (its tests will skip)" >&2
        rm -rf "$tmp"
        return 0
    fi
    echo "$version" >"$tmp/ptxas/VERSION"
    rm -rf "$dir"
    mv "$tmp/ptxas" "$dir"
    rm -rf "$tmp"
    echo "setup: installed ptxas $version into $dir"
}

ptxas_installed ptxas 12.9.86 ||
    install_ptxas ptxas nvidia-cuda-nvcc-cu12 12.9.86 nvidia/cuda_nvcc/bin/ptxas
ptxas_installed ptxas13 13.0.88 ||
    install_ptxas ptxas13 nvidia-cuda-nvcc 13.0.88 nvidia/cu13/bin/ptxas
# PTX ISA 9.4, which Triton 3.9 writes for sm_90a, needs CUDA 13.4's ptxas.
ptxas_installed ptxas134 13.4.92 ||
    install_ptxas ptxas134 nvidia-cuda-nvcc 13.4.92 nvidia/cu13/bin/ptxas
