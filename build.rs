//! Build script of the `tirproof` package: the CLI and the root tests link libz3 through
//! tirproof-verify, and link arguments do not cross packages, so this script embeds the
//! directory of the pinned libz3 (which tirproof-verify's build script exports as
//! `DEP_TIRPROOF_Z3_LIB_DIR` through its `links` key) as a run-time search path of every binary,
//! test, example and benchmark of the package. Nothing else is configured here.

fn main() {
    println!("cargo::rerun-if-changed=build.rs");
    println!("cargo::rerun-if-env-changed=DEP_TIRPROOF_Z3_LIB_DIR");
    match std::env::var("DEP_TIRPROOF_Z3_LIB_DIR") {
        Ok(dir) => println!("cargo::rustc-link-arg=-Wl,-rpath,{dir}"),
        Err(_) => println!(
            "cargo::error=DEP_TIRPROOF_Z3_LIB_DIR is not set: tirproof-verify's build script exports it (see verify/build.rs)"
        ),
    }
}
