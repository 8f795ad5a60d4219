//! The `round-trip` oracle: a program printed and parsed back is the same program (modulo
//! renaming), and printing it again gives the same text.

use tirproof_ir::print::print_module;
use tirproof_ir::structural::module_diff;
use tirproof_ir::IRModule;
use tirproof_reader::parse_module;

use super::{Failure, FailureClass, OracleName, Outcome};

pub fn check(module: &IRModule, what: &str) -> Outcome {
    let text = print_module(module);
    let parsed = match parse_module(&text) {
        Ok(parsed) => parsed,
        Err(errors) => {
            let message = format!("the printed {what} does not parse: {errors}");
            return Outcome::Fail(Failure::new(OracleName::RoundTrip, FailureClass::ReparseFailed, message));
        }
    };
    if let Some(diff) = module_diff(module, &parsed) {
        let message = format!("the printed {what} parses to a different program: {diff}");
        return Outcome::Fail(Failure::new(OracleName::RoundTrip, FailureClass::RoundTripChanged, message));
    }
    let again = print_module(&parsed);
    if again != text {
        let message = format!("printing the reparsed {what} gives different text");
        return Outcome::Fail(Failure::new(OracleName::RoundTrip, FailureClass::RoundTripChanged, message));
    }
    Outcome::Pass
}

/// Parses and checks mutated text: `Ok(None)` when the parser or checker refuses it (with
/// diagnostics: the expected outcome for most mutations), `Err` when either panics.
pub fn parse_text(text: &str) -> Result<Option<IRModule>, Failure> {
    let parsed = super::panics::catch(|| {
        let module = parse_module(text).ok()?;
        let diags = tirproof_ir::check::check_module(&module);
        (!diags.has_errors()).then_some(module)
    });
    parsed.map_err(|panic| {
        let class = FailureClass::Panic { during: OracleName::RoundTrip, location: panic.location.clone() };
        let message = format!("panic while parsing or checking text at {}: {}", panic.location, panic.message);
        Failure::new(OracleName::NoPanic, class, message)
    })
}
