//! Build script of tirproof-verify: makes the libz3 installed by `scripts/setup.sh` the one that
//! is linked and loaded, on any machine, without LD_LIBRARY_PATH.
//!
//! z3-sys is pointed at `third_party/z3/lib` by the `[env]` table of `.cargo/config.toml`
//! (`Z3_NO_PKG_CONFIG`, `Z3_LIBRARY_PATH_OVERRIDE`, `Z3_SYS_Z3_VERSION`). This script
//! - fails the build with a clear message when Z3 is not installed there, when the installed
//!   version is not the pinned one, or when cargo did not load that configuration;
//! - adds the absolute directory of libz3, computed here and never written in a file, as a
//!   run-time search path (`-rpath`) of every test, example and benchmark of this package;
//! - passes that directory on (`DEP_TIRPROOF_Z3_LIB_DIR`) to the build scripts of crates that
//!   depend on this one, whose binaries need the same `-rpath` (link arguments emitted here do
//!   not reach other packages' binaries);
//! - tells the tests where the `z3` command line tool is (`TIRPROOF_Z3_BIN`).

use std::env;
use std::fs;
use std::path::{Path, PathBuf};

const SETUP: &str = "run scripts/setup.sh (it installs the pinned libz3 from the z3-solver wheel on PyPI into \
                     third_party/z3)";

fn main() {
    for var in ["Z3_NO_PKG_CONFIG", "Z3_LIBRARY_PATH_OVERRIDE", "Z3_SYS_Z3_VERSION"] {
        println!("cargo::rerun-if-env-changed={var}");
    }
    println!("cargo::rerun-if-changed=build.rs");
    if let Err(message) = configure() {
        println!("cargo::error={message}");
    }
}

/// Checks the installation and emits the link and run-time settings, or says what is wrong.
fn configure() -> Result<(), String> {
    let manifest_dir = PathBuf::from(env::var("CARGO_MANIFEST_DIR").map_err(|e| e.to_string())?);
    let repo = manifest_dir.parent().ok_or("the verify crate has no parent directory")?;
    let z3_dir = repo.join("third_party").join("z3");
    let lib_dir = z3_dir.join("lib");
    let version_file = z3_dir.join("VERSION");
    let cli = z3_dir.join("bin").join("z3");
    // A missing file is always out of date, so this script runs again once setup has run.
    println!("cargo::rerun-if-changed={}", version_file.display());
    println!("cargo::rerun-if-changed={}", lib_dir.join("libz3.so").display());

    let target_os = env::var("CARGO_CFG_TARGET_OS").unwrap_or_default();
    if target_os != "linux" {
        return Err(format!(
            "tirproof-verify links the libz3 of the z3-solver Linux wheel; target OS `{target_os}` is not supported"
        ));
    }
    let pinned = env::var("Z3_SYS_Z3_VERSION").ok().filter(|v| !v.is_empty());
    let override_dir = env::var_os("Z3_LIBRARY_PATH_OVERRIDE");
    let (Some(pinned), Some(override_dir), true) =
        (pinned, override_dir, env::var_os("Z3_NO_PKG_CONFIG").is_some_and(|v| !v.is_empty()))
    else {
        return Err(format!(
            "Z3_SYS_Z3_VERSION, Z3_LIBRARY_PATH_OVERRIDE and Z3_NO_PKG_CONFIG must be set, by the [env] table of \
             {}; cargo reads that file only when it runs inside the repository, so run cargo from there (without \
             them z3-sys would link whatever libz3 pkg-config finds, e.g. Debian's 4.8.12)",
            repo.join(".cargo").join("config.toml").display()
        ));
    };

    if !lib_dir.join("libz3.so").exists() || !version_file.exists() || !cli.exists() {
        return Err(format!("Z3 {pinned} is not installed in {}: {SETUP}", z3_dir.display()));
    }
    let installed = fs::read_to_string(&version_file).map_err(|e| format!("{}: {e}", version_file.display()))?;
    let installed = installed.trim();
    if installed != pinned {
        return Err(format!(
            "{} holds Z3 {installed}, but .cargo/config.toml pins Z3 {pinned}: {SETUP}",
            z3_dir.display()
        ));
    }
    if !same_dir(Path::new(&override_dir), &lib_dir) {
        return Err(format!(
            "Z3_LIBRARY_PATH_OVERRIDE is {}, but this repository links the Z3 in {}; unset it in the environment \
             (.cargo/config.toml sets it)",
            Path::new(&override_dir).display(),
            lib_dir.display()
        ));
    }

    let lib_dir = lib_dir.canonicalize().map_err(|e| format!("{}: {e}", lib_dir.display()))?;
    let lib_dir_str = lib_dir.to_str().ok_or_else(|| format!("the path {} is not valid UTF-8", lib_dir.display()))?;
    if lib_dir_str.contains(',') {
        return Err(format!("the path {lib_dir_str} contains a comma, which the linker's -Wl, syntax cannot carry"));
    }
    println!("cargo::rustc-link-search=native={lib_dir_str}");
    println!("cargo::rustc-link-arg=-Wl,-rpath,{lib_dir_str}");
    println!("cargo::metadata=lib_dir={lib_dir_str}");
    println!("cargo::rustc-env=TIRPROOF_Z3_BIN={}", cli.display());
    Ok(())
}

/// Whether two paths name the same existing directory.
fn same_dir(a: &Path, b: &Path) -> bool {
    match (a.canonicalize(), b.canonicalize()) {
        (Ok(a), Ok(b)) => a == b,
        _ => false,
    }
}
