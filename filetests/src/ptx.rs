//! `# ptx:` check lines: the PTX lowered from a case's program (the lowering pipeline, then
//! codegen for sm_80, as `tirproof ptx` does) contains each line's text, in the order of the
//! lines, like FileCheck's CHECK: each is searched for after the end of the previous match.
//!
//! They apply to a case of any kind, after its own checks pass; a program that cannot be
//! lowered fails the case with the reason.

use tirproof_ptx::module::print;
use tirproof_ptx::{lower_module, lower_tir, Arch};
use tirproof_reader::parse_module;

use crate::{Case, Verdict};

/// The case's PTX, or why there is none.
fn lowered_ptx(case: &Case) -> Result<String, String> {
    let mut module = parse_module(case.body()).map_err(|e| format!("the program does not parse: {e}"))?;
    lower_tir(&mut module).map_err(|e| format!("the lowering pipeline refuses the program: {e}"))?;
    let lowered = lower_module(&module, Arch::Sm80).map_err(|e| format!("codegen refuses the program: {e}"))?;
    print(&lowered.module).map_err(|e| e.to_string())
}

/// `verdict`, unless it passed and a `# ptx:` line does not match.
pub fn check(case: &Case, verdict: Verdict) -> Verdict {
    if case.ptx_checks.is_empty() || !matches!(verdict, Verdict::Pass | Verdict::Proved(_)) {
        return verdict;
    }
    let ptx = match lowered_ptx(case) {
        Ok(ptx) => ptx,
        Err(why) => return Verdict::Fail(format!("`# ptx:` lines, but no PTX: {why}")),
    };
    let mut from = 0;
    for expected in &case.ptx_checks {
        match ptx.get(from..).and_then(|rest| rest.find(expected.as_str())) {
            Some(at) => from += at + expected.len(),
            None => {
                let line = ptx.get(..from).map_or(1, |before| before.matches('\n').count() + 1);
                return Verdict::Fail(format!("`# ptx: {expected}` not found in the PTX after line {line}:\n{ptx}"));
            }
        }
    }
    verdict
}
