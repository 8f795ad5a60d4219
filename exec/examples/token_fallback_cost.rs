//! The cost of the counter of commits, the fallback `lower-async-tokens` uses where no closed
//! form exists, against the fallback that waits for everything (`wait_group 0`), on the PTX
//! emulator: instructions executed by the whole kernel and the groups each fallback lets stay
//! in flight at its waits, on the corpus programs that need the counter.
//!
//! `cargo run --release -p tirproof-exec --example token_fallback_cost`
//!
//! The emulator has no timing model: instructions are what the counter costs, the groups left
//! in flight what it buys (copies that overlap the computation on a GPU).

use std::path::Path;

use tirproof_exec::engines::kernel_args;
use tirproof_exec::PtxEmulator;
use tirproof_exec::{Engine, Execution, RunConfig};
use tirproof_interp::random_inputs;
use tirproof_ir::async_op::AsyncKey;
use tirproof_ir::visit::{walk_stmt_mut, MutVisitor};
use tirproof_ir::{Expr, IRModule, Stmt, StmtKind};
use tirproof_passes::PassManager;
use tirproof_ptx::emu::{run_kernel, EmuConfig, EmuOutcome};

const PROGRAMS: [&str; 2] = ["corpus/tokens/commit_in_one_arm.py", "corpus/tokens/trip_count_from_memory.py"];

fn main() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    println!("| program | fallback | PTX instructions executed | outputs |");
    println!("| --- | --- | --- | --- |");
    for program in PROGRAMS {
        let text = std::fs::read_to_string(root.join(program)).expect("the corpus file");
        let mut module = tirproof_reader::parse_module(&text).expect("parses");
        PassManager::from_names(&["lower-async-tokens"]).expect("registered").run(&mut module).expect("lowers");
        let counter = module.clone();
        let mut drain = module;
        for func in &mut drain.functions {
            ZeroCountsFromMemory.mutate_stmt(&mut func.body);
        }
        let reference = run(&counter, "counter of commits");
        let other = run(&drain, "wait_group 0");
        println!("| {program} | counter of commits | {} | |", reference.0);
        println!(
            "| {program} | wait_group 0 | {} | {} |",
            other.0,
            if reference.1 == other.1 { "equal" } else { "differ" }
        );
    }
}

/// The instructions the kernel of `module`'s function executes, and its outputs, printed.
fn run(module: &IRModule, what: &str) -> (u64, String) {
    let func = &module.functions[0];
    let inputs = random_inputs(func, 7, &Default::default()).expect("inputs");
    let emulator = PtxEmulator::default();
    let lowered = emulator.lower(func).unwrap_or_else(|e| panic!("{what}: {e}"));
    let args = kernel_args(&lowered.func, &inputs).expect("arguments");
    let result = run_kernel(&lowered.kernel, Some(&lowered.lines), &args, &EmuConfig::default()).expect("emulates");
    assert_eq!(result.outcome, EmuOutcome::Completed, "{what}");
    // The same run through the engine, for its outputs.
    let outputs = match emulator.run(func, &inputs, &RunConfig::default()) {
        Execution::Completed { outputs, .. } => format!("{outputs:?}"),
        other => panic!("{what}: {other:?}"),
    };
    (result.instructions, outputs)
}

/// Replaces every in-flight count that reads memory (the counter's) by 0.
struct ZeroCountsFromMemory;

impl MutVisitor for ZeroCountsFromMemory {
    fn mutate_stmt(&mut self, stmt: &mut Stmt) {
        if let StmtKind::Attr(attr) = &mut stmt.kind {
            if AsyncKey::parse(&attr.key) == Some(AsyncKey::InflightCount) && attr.value.reads_memory() {
                attr.value = Expr::int(0);
            }
        }
        walk_stmt_mut(self, stmt);
    }
}
