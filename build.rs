//! Embeds the run-time search paths of the libz3 that tirproof-verify links, so the CLI and
//! this package's tests run without LD_LIBRARY_PATH: the clone's own `third_party/z3/lib`
//! (for `cargo run` and the tests), then `$ORIGIN/../lib/tirproof`, where
//! `scripts/install.sh` puts a copy beside an installed binary (so the install keeps working
//! when the clone moves or is deleted).

fn main() {
    if let Ok(dir) = std::env::var("DEP_TIRPROOF_Z3_LIB_DIR") {
        println!("cargo::rustc-link-arg=-Wl,-rpath,{dir}");
    }
    // `$ORIGIN` is expanded by the dynamic loader, not a shell: the linker gets it verbatim.
    println!("cargo::rustc-link-arg-bins=-Wl,-rpath,$ORIGIN/../lib/tirproof");
}
