//! Differential runs for filetests: the transformed module must agree with the original.
//!
//! Each function is run on seeded random inputs under every standard schedule (lazy, eager,
//! two random ones) with two thread orders; functions with integer scalar parameters (a
//! symbolic extent, say) are run for several small and large values of them, so that short
//! loops, exact fits and the steady state are all exercised.

use std::collections::BTreeMap;

use tirproof_ir::interp::{random_inputs, RunConfig, ScalarValue};
use tirproof_ir::{IRModule, PrimFunc};

use super::Verdict;
use crate::compare::{compare, standard_schedules};

/// Values given to every integer scalar parameter in turn.
const SCALAR_VALUES: [i64; 6] = [1, 2, 3, 4, 7, 17];

pub(super) fn equivalent(original: &IRModule, transformed: &IRModule) -> Result<(), Verdict> {
    for func in &original.functions {
        let Some(other) = transformed.get(&func.name) else {
            return Err(Verdict::Fail(format!("the transformed module has no function `{}`", func.name)));
        };
        equivalent_func(func, other)?;
    }
    Ok(())
}

fn equivalent_func(original: &PrimFunc, transformed: &PrimFunc) -> Result<(), Verdict> {
    for scalars in scalar_assignments(original) {
        let inputs = random_inputs(original, 0, &scalars).map_err(|e| Verdict::Fail(format!("inputs: {e}")))?;
        for schedule in standard_schedules() {
            for thread_order_seed in [None, Some(1)] {
                let config = RunConfig { schedule, thread_order_seed, ..RunConfig::default() };
                let outcome = compare(original, transformed, &inputs, &config)
                    .map_err(|e| Verdict::Fail(format!("the interpreter cannot run `{}`: {e}", original.name)))?;
                if let Some(m) = outcome.mismatch {
                    return Err(Verdict::Fail(format!(
                        "`{}` under {schedule} (thread order {thread_order_seed:?}, scalars {scalars:?}): {m}",
                        original.name
                    )));
                }
            }
        }
    }
    Ok(())
}

fn scalar_assignments(func: &PrimFunc) -> Vec<BTreeMap<String, ScalarValue>> {
    let ints: Vec<String> =
        func.scalar_params().filter(|v| v.dtype().is_integer()).map(|v| v.name().to_string()).collect();
    if ints.is_empty() {
        return vec![BTreeMap::new()];
    }
    SCALAR_VALUES
        .iter()
        .map(|&value| ints.iter().map(|name| (name.clone(), ScalarValue::Int(value))).collect())
        .collect()
}
