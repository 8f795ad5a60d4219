//! The well-formedness checker (placeholder until it lands).

use crate::diag::Diagnostics;
use crate::func::IRModule;

/// Checks every function of `module` and returns all errors found.
pub fn check_module(_module: &IRModule) -> Diagnostics {
    Diagnostics::new()
}
