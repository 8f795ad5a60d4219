//! TVM's barriers against tirproof's model of threads (docs/async-semantics.md, "Threads"):
//! a kernel whose first `threadIdx.x` scope writes shared memory and whose second reads what
//! another thread wrote races as written (nothing orders sibling scopes), and TVM 0.27's
//! `ThreadSync("shared")` inserts the barrier that makes it clean. Without TVM
//! (`scripts/setup_tvm.sh`) the test says it was skipped and why.

use std::collections::BTreeMap;
use std::time::Duration;

use tirproof_fuzz::peer::{with_worker, TvmOp, TvmReply};
use tirproof_interp::{random_inputs, run, FaultKind, Outcome, RunConfig, Schedule};
use tirproof_ir::IRModule;
use tirproof_reader::parse_module;

/// Each block reverses its 32 elements through shared memory; `READ` is the second scope's
/// index into it.
const EXCHANGE: &str = r#"# from tvm.script import tirx as T

@T.prim_func
def main(A: T.Buffer((64,), "float32"), B: T.Buffer((64,), "float32")):
    for bx in T.thread_binding(2, thread="blockIdx.x"):
        S = T.alloc_buffer((32,), "float32", scope="shared")
        for tx in T.thread_binding(32, thread="threadIdx.x"):
            S[tx] = A[bx * 32 + tx]
        for tx in T.thread_binding(32, thread="threadIdx.x"):
            B[bx * 32 + tx] = S[READ]
"#;

const LIMIT: Duration = Duration::from_secs(60);

/// The outcome of every schedule on `module`'s function: the fault kinds, `None` for a
/// completed run.
fn faults(module: &IRModule) -> Vec<Option<FaultKind>> {
    let func = &module.functions[0];
    let inputs = random_inputs(func, 7, &BTreeMap::new()).expect("inputs");
    [Schedule::Lazy, Schedule::Eager, Schedule::Random(3)]
        .into_iter()
        .flat_map(|schedule| [None, Some(1)].map(move |order| (schedule, order)))
        .map(|(schedule, order)| {
            let config = RunConfig { schedule, thread_order_seed: order, ..RunConfig::default() };
            match run(func, &inputs, &config).expect("the interpreter runs it").outcome {
                Outcome::Completed => None,
                Outcome::Fault(fault) => Some(fault.kind),
            }
        })
        .collect()
}

/// TVM's `ThreadSync("shared")` on `text`, read back; `None` when TVM is not installed.
fn thread_sync(text: &str) -> Option<String> {
    match with_worker(|worker| worker.request(TvmOp::ThreadSync, text, LIMIT)) {
        Ok(TvmReply::Printed(printed)) => Some(printed),
        Ok(TvmReply::Refused(refusal)) => panic!("TVM refuses the program: {}: {}", refusal.kind, refusal.message),
        Err(error) if !error.is_tvm_failure() => {
            eprintln!("skipped: {error}");
            None
        }
        Err(error) => panic!("TVM failed: {error}"),
    }
}

#[test]
fn the_race_between_sibling_thread_scopes_is_gone_after_tvms_thread_sync() {
    let racy = EXCHANGE.replace("READ", "31 - tx");
    let before = parse_module(&racy).expect("parses");
    // Every run faults: the first thread to run reads an element whose writer has not run
    // yet (a read of memory never written), or, once the writer has run, races with it.
    let racing = |f: &Option<FaultKind>| matches!(f, Some(FaultKind::CrossThreadRace | FaultKind::ReadPoison));
    assert!(faults(&before).iter().all(racing), "{:?}", faults(&before));
    let Some(synced) = thread_sync(&racy) else { return };
    assert_eq!(synced.matches("T.tvm_storage_sync(\"shared\")").count(), 1, "{synced}");
    let after = parse_module(&synced).unwrap_or_else(|d| panic!("{}", d.render("tvm.py", &synced)));
    assert!(faults(&after).iter().all(Option::is_none), "{:?}\n{synced}", faults(&after));
}

#[test]
fn thread_sync_is_conservative_where_each_thread_reads_its_own_element() {
    // Its twin: no thread reads another's element, so the program is clean as written.
    // ThreadSync cannot tell the two scopes' `tx` apart and adds its barrier anyway, which
    // keeps it clean.
    let own = EXCHANGE.replace("READ", "tx");
    let before = parse_module(&own).expect("parses");
    assert!(faults(&before).iter().all(Option::is_none), "{:?}", faults(&before));
    let Some(synced) = thread_sync(&own) else { return };
    assert_eq!(synced.matches("T.tvm_storage_sync(\"shared\")").count(), 1, "{synced}");
    let after = parse_module(&synced).unwrap_or_else(|d| panic!("{}", d.render("tvm.py", &synced)));
    assert!(faults(&after).iter().all(Option::is_none), "{:?}\n{synced}", faults(&after));
}
