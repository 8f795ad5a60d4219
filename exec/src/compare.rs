//! The equivalence driver: runs an original and a transformed function under every run of a
//! [`Plan`] (configurations times assignments of the integer scalar parameters) on the same
//! seeded inputs, and reports the first disagreement as a closed [`Inequivalence`].
//!
//! This is the one equivalence check of the pipeline filetests and the proptests
//! ([`check_equivalent`], the thorough plan) and of the fuzzers' oracles (the fast plan); a
//! single run ([`compare`]) serves `tirproof run --reference`. Both programs must complete
//! without a fault, and every output buffer must be bitwise equal. It is built on
//! the [`Engine`] trait, so either side may run on any engine.

use std::collections::BTreeMap;
use std::fmt;

use tirproof_interp::{random_inputs, ExecError, Inputs, RunConfig, ScalarValue, Schedule, Tensor};
use tirproof_ir::{IRModule, PrimFunc};

use crate::{compare_runs, Comparison, Difference, Engine, EngineFailure, Interpreter, Side, Subject};

/// The schedules every thorough check runs under: the adversarial one, the synchronous one,
/// and two random ones.
pub fn standard_schedules() -> Vec<Schedule> {
    vec![Schedule::Lazy, Schedule::Eager, Schedule::Random(1), Schedule::Random(2)]
}

/// Values the thorough plan gives every integer scalar parameter in turn: every extent shorter
/// than a deep pipeline (each has its own specialized code), exact fits and the steady state.
pub const SCALAR_VALUES: [i64; 15] = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 17, 31];

/// Values the fast plan gives every integer scalar parameter: still every extent shorter than
/// a deep pipeline, an exact fit and a steady state.
pub const FAST_SCALAR_VALUES: [i64; 9] = [1, 2, 3, 4, 5, 6, 7, 13, 31];

/// Thread orders of the thorough plan: in order, and one seeded permutation.
const THOROUGH_THREAD_ORDERS: [Option<u64>; 2] = [None, Some(1)];

/// Which runs an equivalence check makes: every configuration for every assignment of the
/// scalar values, on inputs drawn from one seed.
#[derive(Clone, Debug, PartialEq)]
pub struct Plan {
    /// Schedule and thread order of each run, in order.
    pub configs: Vec<RunConfig>,
    /// Values given to the integer scalar parameters in turn (all of them the same value).
    pub scalar_values: Vec<i64>,
    /// Seed of the random inputs.
    pub input_seed: u64,
}

impl Plan {
    /// The filetests' plan: each of `schedules` with threads in order and permuted, for every
    /// one of [`SCALAR_VALUES`].
    pub fn thorough(schedules: &[Schedule]) -> Plan {
        let configs = schedules
            .iter()
            .flat_map(|&schedule| {
                THOROUGH_THREAD_ORDERS.into_iter().map(move |thread_order_seed| RunConfig {
                    schedule,
                    thread_order_seed,
                    ..RunConfig::default()
                })
            })
            .collect();
        Plan { configs, scalar_values: SCALAR_VALUES.to_vec(), input_seed: 0 }
    }

    /// The campaigns' plan: lazy and eager with threads in order, and a random schedule with
    /// permuted threads, both seeded by `seed` like the inputs, for [`FAST_SCALAR_VALUES`].
    pub fn fast(seed: u64) -> Plan {
        let configs = vec![
            RunConfig { schedule: Schedule::Lazy, ..RunConfig::default() },
            RunConfig { schedule: Schedule::Eager, ..RunConfig::default() },
            RunConfig { schedule: Schedule::Random(seed), thread_order_seed: Some(seed), ..RunConfig::default() },
        ];
        Plan { configs, scalar_values: FAST_SCALAR_VALUES.to_vec(), input_seed: seed }
    }

    /// One assignment per scalar value (every integer scalar parameter of `func` gets that
    /// value), or the one empty assignment when there are none.
    pub fn scalar_assignments(&self, func: &PrimFunc) -> Vec<BTreeMap<String, ScalarValue>> {
        let ints: Vec<String> =
            func.scalar_params().filter(|v| v.dtype().is_integer()).map(|v| v.name().to_string()).collect();
        if ints.is_empty() {
            return vec![BTreeMap::new()];
        }
        let assign = |value| ints.iter().map(|name| (name.clone(), ScalarValue::Int(value))).collect();
        self.scalar_values.iter().map(|&value| assign(value)).collect()
    }
}

/// The engine of each side: the same engine twice compares two functions; two engines on one
/// function compare the engines.
#[derive(Clone, Copy)]
pub struct Engines<'e> {
    pub original: &'e dyn Engine,
    pub transformed: &'e dyn Engine,
}

impl Engines<'static> {
    /// The reference interpreter on both sides.
    pub fn interpreter() -> Self {
        Engines { original: &Interpreter, transformed: &Interpreter }
    }
}

impl Engines<'_> {
    fn get(&self, side: Side) -> &dyn Engine {
        match side {
            Side::Original => self.original,
            Side::Transformed => self.transformed,
        }
    }
}

/// One run of a plan: a configuration and the scalar values.
#[derive(Clone, Debug, PartialEq)]
pub struct Trial {
    pub config: RunConfig,
    pub scalars: BTreeMap<String, ScalarValue>,
}

impl fmt::Display for Trial {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}, ", self.config.schedule)?;
        match self.config.thread_order_seed {
            None => f.write_str("threads in order")?,
            Some(seed) => write!(f, "threads permuted by seed {seed}")?,
        }
        write!(f, ", with {}", show_scalars(&self.scalars))
    }
}

/// Why two programs are not equivalent under a plan: the first disagreement found (boxed
/// where returned: it is large, and only ever built once per check).
#[derive(Clone, Debug, thiserror::Error)]
pub enum Inequivalence {
    #[error("the transformed module has no function `{0}`")]
    MissingFunction(String),
    /// No random inputs could be made for the original function.
    #[error("no inputs for `{func}`: {error}")]
    Inputs { func: String, error: ExecError },
    /// No configuration of the plan runs on both engines (`engine`, of `side`, refuses some).
    #[error(
        "`{func}`: no configuration of the plan runs on both engines (the {engine} of the {side} side refuses some)"
    )]
    NoSupportedConfig { func: String, side: Side, engine: &'static str },
    #[error("`{func}` under {trial}: {failure}")]
    Engine { func: String, trial: Trial, failure: EngineFailure },
    /// The programs behave differently (never [`Difference::Equal`]).
    #[error("`{func}` under {trial}: {difference}")]
    Differs { func: String, trial: Trial, difference: Difference },
}

/// Runs every function of `original` against its namesake in `transformed` under `plan`.
pub fn check_modules(
    plan: &Plan,
    engines: Engines<'_>,
    original: &IRModule,
    transformed: &IRModule,
) -> Result<(), Box<Inequivalence>> {
    for func in &original.functions {
        let other =
            transformed.get(&func.name).ok_or_else(|| Box::new(Inequivalence::MissingFunction(func.name.clone())))?;
        check_functions(plan, engines, func, other)?;
    }
    Ok(())
}

/// Runs `original` and `transformed` under `plan`, on inputs made for `original`.
pub fn check_functions(
    plan: &Plan,
    engines: Engines<'_>,
    original: &PrimFunc,
    transformed: &PrimFunc,
) -> Result<(), Box<Inequivalence>> {
    let func = || original.name.clone();
    let configs = supported_configs(plan, engines, original)?;
    let original_side = Subject { engine: engines.original, func: original };
    let transformed_side = Subject { engine: engines.transformed, func: transformed };
    for scalars in plan.scalar_assignments(original) {
        let inputs = random_inputs(original, plan.input_seed, &scalars)
            .map_err(|error| Inequivalence::Inputs { func: func(), error })?;
        for config in &configs {
            let trial = || Trial { config: *config, scalars: scalars.clone() };
            match compare_runs(original_side, transformed_side, &inputs, config) {
                Ok(Comparison { difference: Difference::Equal, .. }) => {}
                Ok(Comparison { difference, .. }) => {
                    return Err(Box::new(Inequivalence::Differs { func: func(), trial: trial(), difference }));
                }
                Err(failure) => return Err(Box::new(Inequivalence::Engine { func: func(), trial: trial(), failure })),
            }
        }
    }
    Ok(())
}

/// The plan's configurations both engines support; an error naming an engine that refuses
/// some when none is left.
fn supported_configs(plan: &Plan, engines: Engines<'_>, func: &PrimFunc) -> Result<Vec<RunConfig>, Box<Inequivalence>> {
    let refuses = |side: Side, config: &RunConfig| !engines.get(side).supports(config);
    let configs: Vec<RunConfig> =
        plan.configs.iter().filter(|c| Side::BOTH.iter().all(|&side| !refuses(side, c))).copied().collect();
    if !configs.is_empty() {
        return Ok(configs);
    }
    let side =
        Side::BOTH.into_iter().find(|&side| plan.configs.iter().any(|c| refuses(side, c))).unwrap_or(Side::Original);
    Err(Box::new(Inequivalence::NoSupportedConfig { func: func.name.clone(), side, engine: engines.get(side).name() }))
}

/// Checks with the reference interpreter that every function of `original` agrees with its
/// namesake in `transformed` under the thorough plan with `schedules`; the error says which
/// run disagreed and how.
pub fn check_equivalent(original: &IRModule, transformed: &IRModule, schedules: &[Schedule]) -> Result<(), String> {
    check_modules(&Plan::thorough(schedules), Engines::interpreter(), original, transformed).map_err(|e| e.to_string())
}

/// Runs both functions with the reference interpreter on `inputs` under `config` and compares
/// them.
pub fn compare(
    original: &PrimFunc,
    transformed: &PrimFunc,
    inputs: &Inputs,
    config: &RunConfig,
) -> Result<Comparison, EngineFailure> {
    let side = |func| Subject { engine: &Interpreter, func };
    compare_runs(side(original), side(transformed), inputs, config)
}

/// `n = 3` (or `no scalar parameters`).
pub fn show_scalars(scalars: &BTreeMap<String, ScalarValue>) -> String {
    if scalars.is_empty() {
        return "no scalar parameters".into();
    }
    scalars
        .iter()
        .map(|(name, value)| match value {
            ScalarValue::Int(v) => format!("{name} = {v}"),
            other => format!("{name} = {other:?}"),
        })
        .collect::<Vec<_>>()
        .join(", ")
}

/// The values of a tensor as a list (`[1, 2.5, ...]`), all of them.
pub fn show_tensor(tensor: &Tensor) -> String {
    let values: Vec<String> = if tensor.dtype.is_float() {
        tensor.to_f64_vec().iter().map(|v| format!("{v}")).collect()
    } else {
        tensor.to_i64_vec().iter().map(i64::to_string).collect()
    };
    format!("[{}]", values.join(", "))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Execution;

    /// The interpreter, but only under the eager schedule.
    struct EagerOnly;

    impl Engine for EagerOnly {
        fn name(&self) -> &'static str {
            "eager-only interpreter"
        }

        fn supports(&self, config: &RunConfig) -> bool {
            config.schedule == Schedule::Eager
        }

        fn run(&self, func: &PrimFunc, inputs: &Inputs, config: &RunConfig) -> Execution {
            Interpreter.run(func, inputs, config)
        }
    }

    /// An engine that completes without computing anything.
    struct Forgetful;

    impl Engine for Forgetful {
        fn name(&self) -> &'static str {
            "forgetful engine"
        }

        fn supports(&self, _config: &RunConfig) -> bool {
            true
        }

        fn run(&self, _func: &PrimFunc, _inputs: &Inputs, _config: &RunConfig) -> Execution {
            Execution::Completed { outputs: Default::default() }
        }
    }

    fn copy_function() -> PrimFunc {
        let text = "# from tvm.script import tirx as T\n\n@T.prim_func\ndef main(A: T.Buffer((4,), \"float32\")):\n    A[0] = A[1]\n";
        let module = tirproof_reader::parse_module(text).unwrap_or_else(|e| panic!("{e}"));
        module.functions.into_iter().next().expect("one function")
    }

    #[test]
    fn two_engines_run_only_the_configurations_both_support() {
        let func = copy_function();
        let engines = Engines { original: &Interpreter, transformed: &EagerOnly };
        let both = Plan::thorough(&[Schedule::Lazy, Schedule::Eager]);
        assert!(check_functions(&both, engines, &func, &func).is_ok());
        match check_functions(&Plan::thorough(&[Schedule::Lazy]), engines, &func, &func).map_err(|e| *e) {
            Err(Inequivalence::NoSupportedConfig { side, .. }) => assert_eq!(side, Side::Transformed),
            other => panic!("expected no supported configuration, got {other:?}"),
        }
    }

    #[test]
    fn an_engine_that_loses_an_output_differs() {
        let func = copy_function();
        let engines = Engines { original: &Interpreter, transformed: &Forgetful };
        match check_functions(&Plan::fast(0), engines, &func, &func).map_err(|e| *e) {
            Err(Inequivalence::Differs { difference, .. }) => {
                assert_eq!(difference, Difference::OutputMissing { buffer: "A".into(), side: Side::Transformed });
            }
            other => panic!("expected a difference, got {other:?}"),
        }
    }
}
