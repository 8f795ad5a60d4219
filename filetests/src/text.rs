//! The text-format kinds: `print`, `roundtrip` and `error`.

use tirproof_ir::check::check_module;
use tirproof_ir::print::print_module;
use tirproof_ir::structural::{module_diff, module_eq};
use tirproof_ir::{Diagnostics, IRModule};
use tirproof_reader::parse_module;

use super::{Case, Verdict};

/// Parses the case's file, then checks it; the diagnostics of whichever stage failed, in
/// source order.
fn parse_and_check(case: &Case) -> Result<IRModule, Diagnostics> {
    let module = parse_module(&case.text)?;
    let mut diags = check_module(&module);
    diags.sort();
    diags.has_errors().then_some(diags).map_or(Ok(module), Err)
}

/// Parses and checks the case, printing diagnostics into the failure message.
pub(super) fn load_module(case: &Case) -> Result<IRModule, Verdict> {
    parse_and_check(case).map_err(|d| Verdict::Fail(format!("the program does not load:\n{}", case.render(&d))))
}

/// Prints `module`, re-parses the text and requires an equal module and a stable printout.
pub(super) fn round_trip(module: &IRModule) -> Result<String, Verdict> {
    let printed = print_module(module);
    let reparsed = parse_module(&printed).map_err(|d| {
        Verdict::Fail(format!(
            "the printed program does not parse:\n{}\n--- printed ---\n{printed}",
            d.render("<printed>", &printed)
        ))
    })?;
    if !module_eq(module, &reparsed) {
        let diff = module_diff(module, &reparsed).unwrap_or_default();
        return Err(Verdict::Fail(format!(
            "re-parsing the printed program gives another module: {diff}\n--- printed ---\n{printed}"
        )));
    }
    let again = print_module(&reparsed);
    if again != printed {
        return Err(Verdict::Fail(format!("printing is not stable:\n--- first ---\n{printed}--- second ---\n{again}")));
    }
    Ok(printed)
}

/// `# check:` lines must appear in the printed text in order.
fn run_checks(case: &Case, printed: &str) -> Result<(), Verdict> {
    let mut rest = printed;
    for check in &case.checks {
        match rest.find(check.as_str()) {
            Some(pos) => rest = &rest[pos + check.len()..],
            None => {
                return Err(Verdict::Fail(format!("`# check: {check}` not found (in order) in:\n{printed}")));
            }
        }
    }
    Ok(())
}

pub(super) fn run_print(case: &Case, bless: bool) -> Verdict {
    let outcome = load_module(case).and_then(|m| round_trip(&m));
    let printed = match outcome {
        Ok(p) => p,
        Err(v) => return v,
    };
    if let Err(v) = run_checks(case, &printed) {
        return v;
    }
    if printed == case.body() {
        Verdict::Pass
    } else if bless {
        case.rewrite(&case.header, &printed)
    } else {
        Verdict::Fail(format!(
            "the printer prints the program differently (run with BLESS=1 to accept):\n--- expected ---\n{}--- printed ---\n{printed}",
            case.body()
        ))
    }
}

pub(super) fn run_roundtrip(case: &Case) -> Verdict {
    let printed = match load_module(case).and_then(|m| round_trip(&m)) {
        Ok(p) => p,
        Err(v) => return v,
    };
    match run_checks(case, &printed) {
        Ok(()) => Verdict::Pass,
        Err(v) => v,
    }
}

pub(super) fn run_error(case: &Case, bless: bool) -> Verdict {
    let actual: Vec<String> = match parse_and_check(case) {
        Ok(_) => Vec::new(),
        Err(diags) => diags.iter().map(|d| d.headline()).collect(),
    };
    if actual.is_empty() {
        return Verdict::Fail("expected diagnostics, but the program parses and checks cleanly".to_string());
    }
    compare_errors(case, actual, bless)
}

/// Compares diagnostics headlines with the case's `# error:` lines (rewriting them in bless mode).
pub(super) fn compare_errors(case: &Case, actual: Vec<String>, bless: bool) -> Verdict {
    if actual == case.errors {
        return Verdict::Pass;
    }
    if bless {
        let mut header: Vec<String> =
            case.header.iter().filter(|l| super::directive(l).is_none_or(|(k, _)| k != "error")).cloned().collect();
        header.extend(actual.iter().map(|e| format!("# error: {e}")));
        return case.rewrite(&header, case.body());
    }
    Verdict::Fail(format!(
        "diagnostics differ (run with BLESS=1 to accept):\n--- expected ---\n{}\n--- actual ---\n{}",
        case.errors.join("\n"),
        actual.join("\n")
    ))
}
