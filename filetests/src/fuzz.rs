//! `# test: fuzz` cases: the program passes the fuzzers' oracle chain (the `# oracles:`
//! listed, or all). A finding of a campaign becomes one of these in `corpus/regressions/`
//! once fixed; `tirproof reduce` writes it ready to copy.

use tirproof_fuzz::oracle::{Chain, ChainConfig, OracleName};

use super::{Case, Verdict};

pub fn run_fuzz(case: &Case) -> Verdict {
    let module = match tirproof_reader::parse_module(case.body()) {
        Ok(m) => m,
        Err(diags) => return Verdict::Fail(format!("does not parse: {diags}")),
    };
    let oracles: Result<Vec<OracleName>, _> = case.oracles.iter().map(|o| o.parse()).collect();
    let oracles = match oracles {
        Ok(list) if list.is_empty() => OracleName::DEFAULT.to_vec(),
        Ok(list) => list,
        Err(e) => return Verdict::Fail(e.to_string()),
    };
    let config = ChainConfig { oracles, seed: case.seed, ..ChainConfig::default() };
    let result = Chain { config: &config }.run(&module);
    match result.failure() {
        None => Verdict::Pass,
        Some(f) => Verdict::Fail(format!("{f}\n{}", f.counterexample.as_deref().unwrap_or(""))),
    }
}
