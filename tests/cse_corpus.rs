//! Every CSE corpus case, run through both `cse` and `cse-semantic`, is validated by Z3: each
//! rewritten expression and each inserted binding is proved. The corpus holds the cases for
//! every rule and every "never" of the passes, so this is where their outputs get proved.

use std::path::Path;
use std::time::Duration;

use tirproof::source::expand_paths;
use tirproof_passes::cse::{eliminate_module, Mode};
use tirproof_reader::parse_module;
use tirproof_verify::cse::validate_module;

#[test]
fn every_cse_corpus_case_is_validated_for_both_passes() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("corpus").join("cse");
    let files = expand_paths(std::slice::from_ref(&root)).expect("the corpus is readable");
    assert!(files.len() >= 20, "the CSE corpus has {} cases", files.len());
    let mut failures = Vec::new();
    for file in files {
        let text = std::fs::read_to_string(&file).expect("readable");
        let Ok(module) = parse_module(&text) else { continue };
        for mode in [Mode::Syntactic, Mode::Semantic] {
            let mut output = module.clone();
            eliminate_module(&mut output, mode);
            for report in validate_module(&module, &output, Duration::from_secs(30)) {
                if !report.is_proved() {
                    failures.push(format!("{} ({mode:?}): {report}", file.display()));
                }
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// Every rule of the table is exercised by some corpus case (named in its `# desc:` line).
#[test]
fn every_rule_has_a_corpus_case() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("corpus").join("cse");
    let files = expand_paths(std::slice::from_ref(&root)).expect("the corpus is readable");
    let headers: String = files
        .iter()
        .map(|f| std::fs::read_to_string(f).unwrap_or_default())
        .flat_map(|t| t.lines().filter(|l| l.starts_with("# desc:")).map(str::to_string).collect::<Vec<_>>())
        .collect::<Vec<_>>()
        .join("\n");
    let missing: Vec<&str> = tirproof_passes::cse::semantic::rules::RULES
        .iter()
        .map(|r| r.name)
        .filter(|name| !headers.split(|c: char| !(c.is_alphanumeric() || c == '-')).any(|w| w == *name))
        .collect();
    assert!(missing.is_empty(), "rules without a corpus case: {missing:?}");
}
