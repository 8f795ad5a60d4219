//! The corpus filetest runner: every `.py` file under `corpus/` is one test.
//! `BLESS=1 cargo test --test filetests` rewrites the expectations that can be regenerated.

use std::path::Path;

use libtest_mimic::{Arguments, Failed, Trial};
use tirproof::source::expand_paths;
use tirproof_filetests::{bless_requested, run_file, Verdict};

fn main() {
    let args = Arguments::from_args();
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("corpus");
    let files = expand_paths(std::slice::from_ref(&root)).expect("the corpus directory is readable");
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
