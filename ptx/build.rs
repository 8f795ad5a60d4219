//! The tests pair the emulator with the verifier (tests/foreign.rs), which links libz3: embed
//! the directory `.cargo/config.toml` names for it as a run-time search path of the tests, so
//! they run without LD_LIBRARY_PATH. The library itself does not link Z3.

fn main() {
    println!("cargo::rerun-if-env-changed=Z3_LIBRARY_PATH_OVERRIDE");
    if let Ok(dir) = std::env::var("Z3_LIBRARY_PATH_OVERRIDE") {
        println!("cargo::rustc-link-arg-tests=-Wl,-rpath,{dir}");
    }
}
