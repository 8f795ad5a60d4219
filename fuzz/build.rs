//! Embeds the directory of the libz3 that tirproof-verify links as a run-time search path of
//! this package's tests, examples and fuzz targets, so they run without LD_LIBRARY_PATH.

fn main() {
    if let Ok(dir) = std::env::var("DEP_TIRPROOF_Z3_LIB_DIR") {
        println!("cargo::rustc-link-arg=-Wl,-rpath,{dir}");
    }
}
