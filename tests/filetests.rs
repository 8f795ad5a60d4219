//! The corpus filetest runner: every `.py` file under `corpus/` is one test.
//! `BLESS=1 cargo test --test filetests` rewrites the expectations that can be regenerated.

use std::path::Path;

use libtest_mimic::{Arguments, Failed, Trial};
use tirproof::source::expand_paths;
use tirproof_filetests::{bless_requested, run_file, Verdict};

fn main() {
    let args = Arguments::from_args();
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("corpus");
    // The foreign IR of the corpus (`.ttgir`, `.mlir`) has its own tests (foreign_ttgir,
    // foreign_nvgpu); a filetest is TVMScript with its `# test:` header.
    let files: Vec<_> = expand_paths(std::slice::from_ref(&root))
        .expect("the corpus directory is readable")
        .into_iter()
        .filter(|p| p.extension().is_some_and(|e| e == "py"))
        .collect();
    let bless = bless_requested();
    let trials = files
        .into_iter()
        .map(|path| {
            let name = path.strip_prefix(&root).unwrap_or(&path).display().to_string();
            Trial::test(name, move || match run_file(&path, bless) {
                Verdict::Pass | Verdict::Proved(_) | Verdict::Blessed => Ok(()),
                Verdict::Fail(why) => Err(Failed::from(why)),
            })
        })
        .collect();
    libtest_mimic::run(&args, trials).exit();
}
