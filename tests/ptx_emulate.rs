//! The PTX emulator against the TIR interpreter: every corpus program that lowers to PTX runs
//! under lazy, eager and random completion with outputs bitwise equal to the interpreter's on
//! the original program, and a wait loosened by one in emitted PTX faults under lazy (and
//! passes under eager, which is why timing hides such bugs on hardware).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use tirproof::source::{expand_paths, Source};
use tirproof_interp::{random_inputs, run, Inputs, RunConfig, ScalarValue, Schedule};
use tirproof_ir::func::PrimFunc;
use tirproof_ir::IRModule;
use tirproof_machine::value::Num;
use tirproof_machine::FaultKind;
use tirproof_ptx::emu::{run_kernel, EmuConfig, EmuOutcome, EmuResult, KernelArg};
use tirproof_ptx::module::{print_with_lines, Kernel, Line, Op};
use tirproof_ptx::{lower_module, lower_tir, Arch};

const SCHEDULES: [Schedule; 3] = [Schedule::Lazy, Schedule::Eager, Schedule::Random(3)];

/// Faults of TIR that PTX defines away: the saturating wait chain waits for every group on a
/// negative count, shifts clamp their amount, `cvt.rzi` saturates.
const TIR_ONLY_FAULTS: [FaultKind; 3] = [FaultKind::NegativeWait, FaultKind::ShiftOutOfRange, FaultKind::InvalidCast];

fn corpus_files() -> Vec<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("corpus");
    let dirs: Vec<PathBuf> = ["pipeline", "rfc", "tvm", "lowering", "verify", "regressions", "faults", "cse"]
        .iter()
        .map(|d| root.join(d))
        .collect();
    expand_paths(&dirs).expect("the corpus lists")
}

/// The kernel arguments for a function's parameters, from the interpreter's inputs.
fn kernel_args(func: &PrimFunc, inputs: &Inputs) -> Vec<KernelArg> {
    func.params
        .iter()
        .map(|p| match &p.buffer {
            Some(b) => KernelArg::Buffer(inputs.buffers[b.name()].clone()),
            None => {
                let num = Num::of(p.var.dtype()).expect("a scalar type");
                KernelArg::Scalar(inputs.scalars[p.var.name()].to_bits(num))
            }
        })
        .collect()
}

fn emulate(kernel: &Kernel, lines: &[u32], func: &PrimFunc, inputs: &Inputs, schedule: Schedule) -> EmuResult {
    // The interpreter's budget is 10^8 statements; corpus programs need far fewer instructions.
    let config = EmuConfig { schedule, thread_order_seed: None, fuel: 20_000_000 };
    run_kernel(kernel, Some(lines), &kernel_args(func, inputs), &config).expect("the emulator runs the kernel")
}

/// Parses, lowers and generates PTX: the original module, the lowered one and the PTX.
fn lowered(file: &Path) -> Option<(IRModule, IRModule, tirproof_ptx::Module)> {
    lowered_with_notes(file).map(|(original, module, ptx, _)| (original, module, ptx))
}

/// [`lowered`], and whether codegen made the program stricter than the TIR (with a note): a
/// wait stricter than the TIR's, or an async store it had to do synchronously (`cp.async`
/// copies from global to shared memory only).
fn lowered_with_notes(file: &Path) -> Option<(IRModule, IRModule, tirproof_ptx::Module, bool)> {
    let src = Source::read(file).expect("reads");
    let original = src.parse_and_check().ok()?;
    let mut module = original.clone();
    lower_tir(&mut module).ok()?;
    let ptx = lower_module(&module, Arch::Sm80).ok()?;
    let stricter = ptx
        .notes
        .iter()
        .any(|note| note.message.contains("cp.async.wait_group") || note.message.contains("done synchronously"));
    Some((original, module, ptx.module, stricter))
}

fn scalars(func: &PrimFunc) -> BTreeMap<String, ScalarValue> {
    func.scalar_params().map(|v| (v.name().to_string(), ScalarValue::Int(5))).collect()
}

#[test]
fn corpus_programs_emulate_equal_to_the_interpreter() {
    let mut compared = 0;
    for file in corpus_files() {
        let Some((original, lowered_module, ptx, stricter)) = lowered_with_notes(&file) else { continue };
        let (_, lines) = print_with_lines(&ptx).expect("prints");
        for ((func, kernel), lines) in original.functions.iter().zip(&ptx.kernels).zip(&lines) {
            let inputs = random_inputs(func, 7, &scalars(func)).expect("inputs");
            let reference = run(func, &inputs, &RunConfig::default()).expect("the interpreter runs");
            let lowered_func = lowered_module.get(&func.name).expect("the lowered function");
            if let Some(expected) = reference.outcome.fault().filter(|f| !TIR_ONLY_FAULTS.contains(&f.kind)) {
                // A program the interpreter shows faulty faults in the emulator too.
                let result = emulate(kernel, lines, lowered_func, &inputs, Schedule::Lazy);
                if stricter && result.outcome == EmuOutcome::Completed {
                    // A wait codegen made stricter (one it could not bound waits for every
                    // group), or a store it made synchronous, may complete the copy the TIR
                    // left pending.
                    println!("{}: the interpreter faults ({expected}); the stricter PTX runs clean", file.display());
                    continue;
                }
                let one_warp = kernel.launch.block.iter().map(|d| u64::from(*d)).product::<u64>() <= 32;
                if expected.kind == FaultKind::RedundantStore && one_warp && result.outcome == EmuOutcome::Completed {
                    // Every thread storing one value at one instruction: in PTX, lanes of one
                    // warp doing so are one warp store, no race.
                    println!("{}: the interpreter faults ({expected}); in PTX it is one warp store", file.display());
                    continue;
                }
                let EmuOutcome::Fault(fault) = &result.outcome else {
                    panic!("{}: the interpreter faults ({expected}), the emulator does not", file.display())
                };
                println!("{}: both fault: {expected} / {fault}", file.display());
                continue;
            }
            if !reference.outcome.is_completed() {
                println!("skipped {}: {:?}", file.display(), reference.outcome);
                continue;
            }
            for schedule in SCHEDULES {
                let result = emulate(kernel, lines, lowered_func, &inputs, schedule);
                let where_ = format!("{} under {schedule}", file.display());
                assert_eq!(result.outcome, EmuOutcome::Completed, "{where_}");
                for (param, out) in lowered_func.params.iter().zip(&result.buffers) {
                    let (Some(buffer), Some(out)) = (&param.buffer, out) else { continue };
                    let expected = &reference.outputs[buffer.name()];
                    assert_eq!(out.bits(), expected.bits(), "{where_}: buffer {}", buffer.name());
                }
            }
            compared += 1;
        }
    }
    println!("{compared} corpus functions emulated equal to the interpreter under lazy, eager and random");
    assert!(compared >= 60, "only {compared} compared");
}

/// Loosens the first `cp.async.wait_group n` of the kernel to `n + 1`.
fn loosen_first_wait(kernel: &mut Kernel) {
    let first = kernel.body.iter_mut().find_map(|line| match line {
        Line::Inst(inst) => match &mut inst.op {
            Op::CpAsyncWaitGroup(n) => Some(n),
            _ => None,
        },
        _ => None,
    });
    *first.expect("a wait") += 1;
}

/// The first kernel of a corpus program with its first wait loosened by one, its PTX lines,
/// and the function's inputs and interpreter run.
struct Planted {
    ptx: tirproof_ptx::Module,
    lines: Vec<Vec<u32>>,
    lowered: IRModule,
    original: IRModule,
    inputs: Inputs,
}

fn planted(name: &str) -> Planted {
    let file = Path::new(env!("CARGO_MANIFEST_DIR")).join("corpus").join(name);
    let (original, lowered, mut ptx) = lowered(&file).expect("lowers");
    loosen_first_wait(&mut ptx.kernels[0]);
    let (_, lines) = print_with_lines(&ptx).expect("prints");
    let func = &original.functions[0];
    let inputs = random_inputs(func, 7, &scalars(func)).expect("inputs");
    Planted { ptx, lines, lowered, original, inputs }
}

impl Planted {
    fn run(&self, schedule: Schedule) -> EmuResult {
        emulate(&self.ptx.kernels[0], &self.lines[0], &self.lowered.functions[0], &self.inputs, schedule)
    }
}

#[test]
fn a_wait_loosened_by_one_faults_under_lazy_and_passes_under_eager() {
    // Each thread reads back only what it copied itself: only the schedule can expose the
    // loosened wait, and lazy does at the first read it no longer protects.
    for name in ["pipeline/vector_copy.py", "pipeline/rfc_c_adjacent.py", "lowering/chain_pipelined_vector_copy.py"] {
        let p = planted(name);
        let lazy = p.run(Schedule::Lazy);
        let EmuOutcome::Fault(fault) = &lazy.outcome else { panic!("{name}: the loosened wait passes under lazy") };
        assert_eq!(fault.kind, FaultKind::ReadPendingAsync, "{name}: {fault}");
        assert!(fault.message.contains("ld.shared") && fault.span.is_known(), "{name}: {fault}");
        println!("{name}: {fault}");
        let eager = p.run(Schedule::Eager);
        assert_eq!(eager.outcome, EmuOutcome::Completed, "{name}");
        let func = &p.original.functions[0];
        let reference = run(func, &p.inputs, &RunConfig::default()).expect("runs");
        for (param, out) in p.lowered.functions[0].params.iter().zip(&eager.buffers) {
            if let (Some(b), Some(out)) = (&param.buffer, out) {
                assert_eq!(out.bits(), reference.outputs[b.name()].bits(), "{name}: {}", b.name());
            }
        }
    }
}

#[test]
fn a_fault_in_ptx_read_from_text_names_its_line() {
    let p = planted("pipeline/vector_copy.py");
    let text = tirproof_ptx::module::print(&p.ptx).expect("prints");
    let parsed = tirproof_ptx::parse::parse(&text).expect("parses");
    let func = &p.lowered.functions[0];
    let result = emulate(&parsed.module.kernels[0], &parsed.lines[0], func, &p.inputs, Schedule::Lazy);
    let EmuOutcome::Fault(fault) = result.outcome else { panic!("the loosened wait passes") };
    let line = text.lines().nth(fault.span.line as usize - 1).expect("the line exists");
    assert!(line.contains("ld.shared") && fault.message.contains(line.trim()), "{fault}\n{line}");
}

#[test]
fn a_wait_loosened_before_a_cross_thread_read_races_under_every_schedule() {
    // Another thread's copy is visible only after the issuer's wait and a barrier, whatever
    // the timing: under lazy the read finds the copy still pending, under eager it races.
    let p = planted("pipeline/thread_binding_exchange.py");
    for schedule in SCHEDULES {
        let EmuOutcome::Fault(fault) = p.run(schedule).outcome else { panic!("passes under {schedule}") };
        let expected = [FaultKind::ReadPendingAsync, FaultKind::CrossThreadRace];
        assert!(expected.contains(&fault.kind) && fault.message.contains("ld.shared"), "{schedule}: {fault}");
        if schedule == Schedule::Eager {
            assert!(fault.message.contains("races with the asynchronous write by thread"), "{fault}");
        }
    }
}
