//! The PTX emulator: runs a kernel of the typed module over a grid of blocks of threads, on
//! the memory model of `tirproof-machine` (docs/async-semantics.md, docs/ptx.md).
//!
//! Buffers are storages of their tensors' elements at 256-byte aligned global addresses;
//! `.shared` arrays are byte storages per block and `.local` arrays byte storages per thread,
//! so pending copies, poison and races are tracked per element (per byte in arrays). Threads of
//! a block run one at a time up to their next `bar.sync` (a block barrier), then all pass it
//! together. `cp.async` reads its source at issue and makes its destination pending; a commit
//! makes a group (an empty one too); `wait_group n` retires all but the `n` most recent groups
//! (`wait_all` is a commit and `wait_group 0`); groups land per the schedule: lazy when a wait
//! retires them, eager at commit, random in between. The warp-wide `ldmatrix` and `mma.sync`
//! are rendezvous of the 32 lanes of a warp (threads `32w .. 32w + 31` of the block): each
//! lane stops there, and once all have arrived the instruction runs for the warp (`warp.rs`),
//! each lane's rows read with that lane's pending-copy and race checks. Hopper's mbarriers,
//! TMA copies and bulk store queue are `tma.rs`'s: a thread waiting on an mbarrier phase that
//! cannot complete yet is suspended (`Suspend::Mbarrier`) until it can, or reported as a
//! deadlock when no thread can make progress.
//!
//! Lanes of one warp that store to one location in one execution of one `st` are one warp
//! store, not a race: each lane counts its arrivals at each store instruction (predicated off
//! or not), and the race rules (`tirproof_machine::race`, "One warp store") take lanes with
//! equal counts at one instruction and epoch for one execution; of different values that is a
//! `WarpStoreConflict` naming both lanes and values. A thread may end with empty groups in
//! flight (`cuda_pipeline.h` commits one every iteration and never waits for the last ones);
//! a group holding copies at the end is an `UnwaitedGroup` saying how many and from where.
//!
//! Invariants: every fault names the PTX instruction (and its line), the thread and the
//! instruction count; the executor's own failures (`EmuError`) are never program faults;
//! nothing here panics on any kernel or argument list.

mod alu;
pub mod approx;
mod decode;
mod mbarrier;
mod shuffle;
pub mod tensormap;
mod tma;
mod warp;
mod wgmma;

use std::collections::HashMap;

use tirproof_ir::span::Span;
use tirproof_ir::{Axis, ThreadTag};
use tirproof_machine::async_queue::{IssueError, Leftover, Waiter};
use tirproof_machine::error::ExecError;
use tirproof_machine::fault::{Fault, FaultKind};
use tirproof_machine::history::Who;
use tirproof_machine::limit::Limit;
use tirproof_machine::memory::{AccessError, Data, Memory, Pending, Visibility};
use tirproof_machine::race::{BlockCounter, Race, RaceCtx, WARP_LANES};
use tirproof_machine::thread::{coords_of, Thread, ThreadOrder};
use tirproof_machine::value::{norm, Num};
use tirproof_machine::{Completion, Schedule, Tensor};

pub use crate::args::KernelArg;
use crate::module::{ArrayOrigin, Kernel, Label, Line, StateSpace, Ty};
use alu::mask;
use decode::{DAddr, DOp, Decoded, Layout, Src};

/// Where the first buffer parameter lives; each buffer starts 256-byte aligned after the last.
const GLOBAL_BASE: u64 = 0x1_0000_0000;
/// Where the arrays of the shared and local state spaces start (each space on its own).
const ARRAY_BASE: u64 = 0x1000;
/// The most threads one launch may have.
const MAX_THREADS: u64 = 1 << 20;

/// How to run.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct EmuConfig {
    pub schedule: Schedule,
    /// `None`: the threads of a block run in order between barriers; `Some(seed)`: in a
    /// seeded permutation redrawn for every phase (as in the interpreter, from one
    /// `tirproof_machine::thread::ThreadOrder`).
    pub thread_order_seed: Option<u64>,
    /// The most instructions all threads together may execute. Setting up a block is charged
    /// to it too, one unit per byte of the block's `.shared` arrays and its threads' `.local`
    /// arrays, so a launch of large arrays that executes little is bounded like any other.
    pub fuel: u64,
}

impl Default for EmuConfig {
    fn default() -> Self {
        EmuConfig { schedule: Schedule::Lazy, thread_order_seed: None, fuel: 1_000_000_000 }
    }
}

/// How a run ended.
#[derive(Clone, Debug, PartialEq)]
pub enum EmuOutcome {
    Completed,
    Fault(Box<Fault>),
}

/// A run's outcome, the buffers after it (in parameter order; `None` for scalars) and the
/// instructions executed.
#[derive(Clone, Debug, PartialEq)]
pub struct EmuResult {
    pub outcome: EmuOutcome,
    pub buffers: Vec<Option<Tensor>>,
    pub instructions: u64,
}

/// Why the emulator could not run a kernel (never a fault of the program).
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum EmuError {
    #[error("the symbol `{0}` is neither a parameter nor an array of the kernel")]
    UnknownSymbol(String),
    #[error("the label `{0}` is not in the kernel")]
    UnknownLabel(Label),
    #[error("unsupported: {0}")]
    Unsupported(String),
    /// What the emulator does not model, met at an instruction (PTX line `line`, text `inst`).
    #[error("line {line}: unsupported: {what}, at `{inst}`")]
    UnsupportedAt { line: u32, inst: String, what: String },
    #[error("bad arguments: {0}")]
    BadArguments(String),
    #[error(transparent)]
    Machine(#[from] ExecError),
}

impl EmuError {
    /// The PTX line of the instruction the error is at, where it is at one.
    pub fn line(&self) -> Option<u32> {
        match self {
            EmuError::UnsupportedAt { line, .. } => Some(*line),
            _ => None,
        }
    }
}

/// What stops a thread: a fault of the program or a failure of the emulator.
enum Stop {
    Fault(Box<Fault>),
    Error(EmuError),
}

impl From<EmuError> for Stop {
    fn from(e: EmuError) -> Self {
        Stop::Error(e)
    }
}

type R<T> = Result<T, Stop>;

/// Why a thread stopped running.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Suspend {
    Barrier(usize),
    /// At the warp-wide instruction `pc`, waiting for the other lanes of the warp.
    Warp(usize),
    /// At the mbarrier wait `pc`, whose phase cannot complete yet (emu/tma.rs).
    Mbarrier(usize),
    /// At the warpgroup-wide instruction `pc` (`wgmma`), waiting for the other threads of the
    /// warpgroup.
    Warpgroup(usize),
    End,
    /// Not stopped: runs in the next phase.
    Running,
}

/// A thread's registers, program counter and local arrays.
#[derive(Clone, Debug, Default)]
struct Frame {
    regs: Vec<u64>,
    pc: usize,
    local: Vec<u32>,
    /// Per store instruction (`Emulator::store_sites`), the times the thread arrived at it;
    /// empty until the first arrival, and while races are not tracked.
    arrivals: Vec<u32>,
}

/// A range of addresses of one state space backed by a storage.
#[derive(Clone, Copy, Debug)]
struct Region<'k> {
    /// The parameter or array it backs, for messages.
    name: &'k str,
    /// Whether it is the launch's dynamic shared memory (`.extern .shared`).
    dynamic: bool,
    start: u64,
    bytes: u64,
    /// The index among the space's storages (parameters, block arrays, thread arrays).
    slot: usize,
    /// Bytes per element of the storage.
    unit: u64,
    num: Num,
    /// The TIR buffer an array of codegen's holds, to name its elements in messages.
    origin: Option<&'k ArrayOrigin>,
}

struct Emulator<'k> {
    kernel: &'k Kernel,
    code: Decoded,
    lines: Vec<u32>,
    mem: Memory,
    completion: Completion,
    order: ThreadOrder,
    fuel: u64,
    /// Fuel charged for setting up blocks (bytes of their arrays) so far.
    setup_charged: u64,
    /// What the fuel leaves for instructions: `fuel - setup_charged`.
    instruction_budget: u64,
    count: u64,
    globals: Vec<Region<'k>>,
    global_storages: Vec<u32>,
    shared: Vec<Region<'k>>,
    shared_storages: Vec<u32>,
    local: Vec<Region<'k>>,
    params: Vec<u64>,
    block_coords: [u32; 3],
    /// Per thread of the running block, the last `cp.async.wait_group` it executed (for the
    /// message of a fault on a copy that wait left in flight).
    last_waits: Vec<Option<usize>>,
    /// The running block's mbarriers, TMA copies and bulk store queues.
    tma: tma::TmaBlock,
    /// The running block's wgmma queues and async-proxy shadow, for kernels that use wgmma.
    wgmma: Option<wgmma::WgmmaState>,
    /// Per instruction, its index among the kernel's `st` instructions (`NO_STORE` for the
    /// others), which indexes `Frame::arrivals`.
    store_sites: Vec<u32>,
    n_store_sites: usize,
}

/// `Emulator::store_sites` of an instruction that is no `st`.
const NO_STORE: u32 = u32::MAX;

/// Runs `kernel` on `args` over its launch shape. `lines` gives the PTX line of each body
/// entry (from the printer or the parser), for messages.
pub fn run_kernel(
    kernel: &Kernel,
    lines: Option<&[u32]>,
    args: &[KernelArg],
    config: &EmuConfig,
) -> Result<EmuResult, EmuError> {
    let mut emu = Emulator::new(kernel, lines, args, config)?;
    let outcome = match emu.run() {
        Ok(()) => EmuOutcome::Completed,
        Err(Stop::Fault(fault)) => EmuOutcome::Fault(fault),
        Err(Stop::Error(e)) => return Err(e),
    };
    let buffers = emu.take_buffers(args);
    Ok(EmuResult { outcome, buffers, instructions: emu.count })
}

/// Why an access of `size` bytes at `addr` is in no region of `space`: past the end of the
/// buffer or array below it (which says how large that one is), or below every one.
fn outside(regions: &[Region<'_>], space: StateSpace, addr: u64, size: u64) -> String {
    let below = regions.iter().filter(|r| r.start <= addr).max_by_key(|r| r.start);
    match below {
        Some(r) if r.dynamic && r.bytes == 0 => format!(
            "an access of {size} bytes at byte {} of the dynamic shared memory `{}`, which the launch sizes 0 \
             bytes: give the launch its shared bytes (--shared, or \"shared\" in a launch file)",
            addr - r.start,
            r.name
        ),
        Some(r) => {
            let kind = if space == StateSpace::Global { "buffer" } else { "array" };
            format!(
                "{kind} `{}` has {} bytes, the kernel accesses bytes {}..{} of it ({size} at {space} address {addr:#x})",
                r.name,
                r.bytes,
                addr - r.start,
                (addr - r.start).saturating_add(size)
            )
        }
        None => format!("an access of {size} bytes at {space} address {addr:#x} is outside every {space} buffer"),
    }
}

/// Lays out arrays of one state space one after another, each aligned; returns the regions.
fn array_regions<'k>(kernel: &'k Kernel, space: StateSpace, addresses: &mut HashMap<String, u64>) -> Vec<Region<'k>> {
    let mut next = ARRAY_BASE;
    let mut regions = Vec::new();
    for array in kernel.arrays.iter().filter(|a| a.space == space) {
        let align = u64::from(array.align.max(1));
        let start = next.div_ceil(align) * align;
        let bytes = if array.dynamic { kernel.launch.dynamic_shared } else { array.bytes };
        addresses.insert(array.name.clone(), start);
        let (name, dynamic, origin) = (array.name.as_str(), array.dynamic, array.origin.as_ref());
        let slot = regions.len();
        regions.push(Region { name, dynamic, start, bytes, slot, unit: 1, num: Num::UInt(8), origin });
        next = start + bytes.max(1);
    }
    regions
}

impl<'k> Emulator<'k> {
    fn new(
        kernel: &'k Kernel,
        lines: Option<&[u32]>,
        args: &[KernelArg],
        config: &EmuConfig,
    ) -> Result<Self, EmuError> {
        if args.len() != kernel.params.len() {
            return Err(EmuError::BadArguments(format!(
                "kernel `{}` takes {} parameters, {} given",
                kernel.name,
                kernel.params.len(),
                args.len()
            )));
        }
        let mut mem = Memory::default();
        let mut globals = Vec::new();
        let mut global_storages = Vec::new();
        let mut params = Vec::new();
        let mut next = GLOBAL_BASE;
        for (param, arg) in kernel.params.iter().zip(args) {
            match arg {
                KernelArg::Buffer(tensor) => {
                    let num = Num::of(tensor.dtype.element())
                        .filter(|n| n.width() >= 8 || *n == Num::Bool)
                        .ok_or_else(|| EmuError::Unsupported(format!("buffers of {}", tensor.dtype)))?;
                    // A bool is one byte, as codegen lays it out.
                    let unit = u64::from(num.width().div_ceil(8));
                    let len = tensor.bits().len();
                    let data = Data::Shared(tensor.shared_bits());
                    let storage = mem
                        .alloc(&param.name, num, len as i64, Some(data), Visibility::Device)
                        .map_err(|t| EmuError::Unsupported(format!("the buffer `{}`: {t:?}", param.name)))?;
                    let bytes = len as u64 * unit;
                    let (name, slot) = (param.name.as_str(), global_storages.len());
                    globals.push(Region { name, dynamic: false, start: next, bytes, slot, unit, num, origin: None });
                    global_storages.push(storage);
                    params.push(next);
                    next = (next + bytes.max(1)).div_ceil(256) * 256;
                }
                KernelArg::Scalar(_) if param.array.is_some() => {
                    return Err(EmuError::BadArguments(format!(
                        "parameter `{}` is a byte array passed by value (a tensor map): bind a buffer of its bytes",
                        param.name
                    )));
                }
                KernelArg::Scalar(bits) => params.push(mask(*bits, param.ty.bits())),
            }
        }
        let mut arrays = HashMap::new();
        // --- Hopper TMA: byte arrays passed by value (host tensor maps) are global memory at
        // the parameter's name, their buffer's address relocated (emu/tensormap.rs) ---
        tma::bind_by_value(kernel, &params, &globals, &global_storages, &mut mem, &mut arrays)?;
        let shared = array_regions(kernel, StateSpace::Shared, &mut arrays);
        let local = array_regions(kernel, StateSpace::Local, &mut arrays);
        let param_index = kernel.params.iter().enumerate().map(|(i, p)| (p.name.clone(), i as u32)).collect();
        let code = decode::decode(kernel, &Layout { arrays, params: param_index })?;
        let lines = match lines {
            Some(l) => l.to_vec(),
            None => (1..=kernel.body.len() as u32).collect(),
        };
        let mut n_store_sites = 0;
        let store_sites = code
            .insts
            .iter()
            .map(|inst| match inst.op {
                DOp::St { .. } => {
                    n_store_sites += 1;
                    n_store_sites as u32 - 1
                }
                _ => NO_STORE,
            })
            .collect();
        Ok(Emulator {
            kernel,
            code,
            lines,
            mem,
            completion: Completion::new(config.schedule),
            order: ThreadOrder::new(config.thread_order_seed),
            fuel: config.fuel,
            setup_charged: 0,
            instruction_budget: config.fuel,
            count: 0,
            globals,
            global_storages,
            shared,
            shared_storages: Vec::new(),
            local,
            params,
            block_coords: [0; 3],
            last_waits: Vec::new(),
            tma: tma::TmaBlock::default(),
            wgmma: None,
            store_sites,
            n_store_sites,
        })
    }

    fn run(&mut self) -> R<()> {
        let launch = self.kernel.launch;
        let threads_per_block: u64 = launch.block.iter().map(|d| u64::from(*d)).product();
        let blocks: u64 = launch.grid.iter().map(|d| u64::from(*d)).product();
        if threads_per_block.saturating_mul(blocks) > MAX_THREADS {
            return Err(
                EmuError::Unsupported(format!("a launch of {blocks} blocks of {threads_per_block} threads")).into()
            );
        }
        let mut counter = BlockCounter::default();
        let launch_id = counter.launch();
        let tracked = threads_per_block * blocks > 1;
        for b in 0..blocks as u32 {
            self.block_coords = coords_of(b, launch.grid);
            let block = counter.next_block();
            let race =
                tracked.then_some(RaceCtx { launch: launch_id, block, thread: 0, epoch: 0, site: 0, instance: 0 });
            self.run_block(threads_per_block as u32, race)?;
        }
        Ok(())
    }

    fn alloc_arrays(&mut self, space: StateSpace, visibility: Visibility) -> R<Vec<u32>> {
        let regions = if space == StateSpace::Shared { &self.shared } else { &self.local };
        let mut storages = Vec::new();
        for region in regions.clone() {
            let storage = self
                .mem
                .alloc(&format!("{space} array"), Num::UInt(8), region.bytes as i64, None, visibility)
                .map_err(|t| EmuError::Unsupported(format!("an array: {t:?}")))?;
            storages.push(storage);
        }
        Ok(storages)
    }

    /// Charges the fuel for setting up a block of `n` threads, before anything is allocated.
    fn charge_block_setup(&mut self, n: u32) -> R<()> {
        let bytes = |regions: &[Region]| regions.iter().fold(0u64, |sum, r| sum.saturating_add(r.bytes));
        let setup = bytes(&self.shared).saturating_add(bytes(&self.local).saturating_mul(u64::from(n)));
        self.setup_charged = self.setup_charged.saturating_add(setup);
        self.instruction_budget = self.fuel.saturating_sub(self.setup_charged);
        if self.count <= self.instruction_budget {
            return Ok(());
        }
        let message = format!(
            "the budget of {} instructions ran out setting up a block whose .shared and .local arrays take {setup} \
             bytes (setup is charged one instruction per byte; {} charged so far)",
            self.fuel, self.setup_charged
        );
        Err(self.fault(FaultKind::FuelExhausted, message, &Thread::main(Frame::default()), 0))
    }

    fn run_block(&mut self, n: u32, race: Option<RaceCtx>) -> R<()> {
        self.charge_block_setup(n)?;
        self.shared_storages = self.alloc_arrays(StateSpace::Shared, Visibility::Block)?;
        self.last_waits = vec![None; n as usize];
        self.tma = tma::TmaBlock::new(n as usize);
        if !self.code.reg_uses.is_empty() {
            let end = self.shared.iter().map(|r| r.start + r.bytes).max().unwrap_or(ARRAY_BASE);
            let window = end.saturating_sub(ARRAY_BASE) as usize;
            let schedule = self.completion.schedule();
            self.wgmma = Some(wgmma::WgmmaState::new(n as usize, window, &self.code, schedule));
        }
        let dims = self.kernel.launch.block;
        let axes = (0..3).filter(|a| dims[*a] > 1 || *a == 0).fold(0u8, |acc, a| acc | (1 << a));
        let mut threads = Vec::new();
        for tid in 0..n {
            let frame = Frame {
                regs: vec![0; self.code.n_slots],
                pc: 0,
                local: self.alloc_arrays(StateSpace::Local, Visibility::Thread)?,
                arrivals: Vec::new(),
            };
            let mut thread = Thread::main(frame);
            thread.tid = tid;
            thread.who = Who { axes, coords: coords_of(tid, dims) };
            thread.in_region = true;
            thread.race = race.map(|r| RaceCtx { thread: tid, ..r });
            threads.push(thread);
        }
        let mut statuses = vec![Suspend::Running; threads.len()];
        loop {
            for t in self.order.next_phase(threads.len()) {
                if statuses[t] == Suspend::Running {
                    statuses[t] = self.run_thread(&mut threads[t])?;
                }
            }
            if self.warp_rendezvous(&mut threads, &mut statuses)? {
                continue;
            }
            if self.wgmma.is_some() {
                self.wgmma_random_step(&mut threads)?;
                if self.warpgroup_rendezvous(&mut threads, &mut statuses)? {
                    continue;
                }
            }
            // --- Hopper TMA: waits whose mbarrier phase can now complete run again ---
            if self.tma_resume(&threads, &mut statuses) {
                continue;
            }
            match statuses.first() {
                Some(Suspend::Barrier(pc)) if statuses.iter().all(|s| *s == Suspend::Barrier(*pc)) => {
                    threads.iter_mut().for_each(|t| t.pass_barrier());
                    statuses.iter_mut().for_each(|s| *s = Suspend::Running);
                    self.tma.barrier_passed();
                }
                Some(Suspend::End) | None if statuses.iter().all(|s| *s == Suspend::End) => break,
                _ => {
                    let waiting = threads.iter().zip(&statuses).find_map(|(t, s)| match s {
                        Suspend::Mbarrier(pc) => Some((t, *pc)),
                        _ => None,
                    });
                    if let Some((t, pc)) = waiting {
                        return Err(self.tma_deadlock(t, pc));
                    }
                    let stuck = threads.iter().zip(&statuses).find_map(|(t, s)| match s {
                        Suspend::Barrier(pc) => Some((t, *pc, 0)),
                        Suspend::Warp(pc) => Some((t, *pc, 1)),
                        Suspend::Warpgroup(pc) => Some((t, *pc, 2)),
                        Suspend::End | Suspend::Running | Suspend::Mbarrier(_) => None,
                    });
                    let Some((t, pc, collective)) = stuck else { break };
                    let message = match collective {
                        1 => format!(
                            "the lanes of warp {} that take part did not all reach this warp-wide instruction (all 32, \
                             or for shfl.sync the lanes of its membermask)",
                            t.tid / 32
                        ),
                        2 => format!(
                            "the threads of warpgroup {} did not all reach this warpgroup-wide instruction",
                            t.tid as usize / wgmma::WARPGROUP
                        ),
                        _ => "threads of the block reached different barriers, or some none".to_string(),
                    };
                    return Err(self.fault(FaultKind::BarrierDivergence, message, t, pc));
                }
            }
        }
        self.tma_block_end(&threads)?;
        self.wgmma_exit_check(&threads)?;
        for thread in &mut threads {
            // Empty groups may stay in flight (no leftover); they are retired here all the same.
            let left = thread.asyncs.leftover();
            thread.asyncs.complete_all(&mut self.mem);
            if let Some(left) = left {
                let what = match left {
                    Leftover::Uncommitted(store) => {
                        format!("a cp.async issued at line {} and never committed", store.line)
                    }
                    Leftover::Unwaited { seq, commit_line, stores, issue_line, .. } => {
                        // Shared memory is a storage of bytes: one store per byte copied.
                        let held = format!("{stores} bytes of cp.async copies, the first issued at line {issue_line}");
                        format!("group {seq} (committed at line {commit_line}) never waited for, holding {held}")
                    }
                };
                let message = format!("the thread exits with {what}");
                let pc = self.code.insts.len().saturating_sub(1);
                return Err(self.fault(FaultKind::UnwaitedGroup, message, thread, pc));
            }
            for storage in thread.frame.local.drain(..) {
                self.mem.free(storage);
            }
        }
        for storage in std::mem::take(&mut self.shared_storages) {
            self.mem.free(storage);
        }
        Ok(())
    }

    /// The fault `kind` at instruction `pc` of thread `th`.
    fn fault(&self, kind: FaultKind, message: String, th: &Thread<Frame>, pc: usize) -> Stop {
        let (line, text) = self.describe(pc);
        let mut thread: Vec<(String, i64)> =
            th.who.coordinates().map(|(tag, value)| (tag.to_string(), i64::from(value))).collect();
        for axis in Axis::ALL.into_iter().filter(|a| self.kernel.launch.grid[a.index()] > 1) {
            thread.push((ThreadTag::Block(axis).to_string(), i64::from(self.block_coords[axis.index()])));
        }
        Stop::Fault(Box::new(Fault {
            kind,
            message: format!("{message}, at `{text}` after {} instructions", self.count),
            span: Span::new(line, 1),
            loop_vars: Vec::new(),
            thread,
            history: Vec::new(),
        }))
    }

    /// What the emulator does not model, at instruction `pc`.
    fn unsupported_at(&self, pc: usize, what: String) -> Stop {
        let (line, inst) = self.describe(pc);
        Stop::Error(EmuError::UnsupportedAt { line, inst, what })
    }

    /// The PTX line and text of instruction `pc`.
    fn describe(&self, pc: usize) -> (u32, String) {
        let Some(inst) = self.code.insts.get(pc) else { return (0, "the end of the kernel".into()) };
        let index = inst.line_index as usize;
        let line = self.lines.get(index).copied().unwrap_or(0);
        let text = match self.kernel.body.get(index) {
            Some(Line::Inst(i)) => i.to_string(),
            _ => String::new(),
        };
        (line, text)
    }

    #[inline(always)]
    fn val(&self, th: &Thread<Frame>, src: Src) -> u64 {
        match src {
            Src::Reg(r) => th.frame.regs.get(r as usize).copied().unwrap_or(0),
            Src::Imm(v) => v,
            Src::Tid(d) => u64::from(th.who.coords.get(d).copied().unwrap_or(0)),
            Src::Ctaid(d) => u64::from(self.block_coords.get(d).copied().unwrap_or(0)),
        }
    }

    #[inline(always)]
    fn set(th: &mut Thread<Frame>, dst: u32, value: u64) {
        if let Some(slot) = th.frame.regs.get_mut(dst as usize) {
            *slot = value;
        }
    }

    fn run_thread(&mut self, th: &mut Thread<Frame>) -> R<Suspend> {
        let random = self.completion.lands_between_steps();
        loop {
            let pc = th.frame.pc;
            let Some(inst) = self.code.insts.get(pc).copied() else { return Ok(Suspend::End) };
            self.count += 1;
            if self.count > self.instruction_budget {
                let setup = match self.setup_charged {
                    0 => String::new(),
                    charged => format!(" ({charged} of it charged for setting up blocks' .shared and .local arrays)"),
                };
                let message = format!("the budget of {} instructions ran out{setup}", self.fuel);
                return Err(self.fault(FaultKind::FuelExhausted, message, th, pc));
            }
            if random && th.asyncs.incomplete > 0 {
                self.completion.maybe_complete(&mut th.asyncs, &mut self.mem);
            }
            th.frame.pc = pc + 1;
            if let Some((pred, negated)) = inst.guard {
                if (self.val(th, Src::Reg(pred)) != 0) == negated {
                    if let DOp::St { .. } = inst.op {
                        self.arrive(th, pc);
                    }
                    continue;
                }
            }
            // Registers an in-flight wgmma holds (its own chain is checked at its rendezvous).
            if let Some(state) = &mut self.wgmma {
                if let Some(uses) = self.code.reg_uses.get(pc) {
                    state.note_access(th.tid, pc, uses);
                }
                if state.holds_regs(th.tid) && !matches!(inst.op, DOp::WgmmaMma(_)) {
                    self.check_held_regs(th, pc)?;
                }
            }
            match inst.op {
                DOp::Mov { dst, src } => Self::set(th, dst, self.val(th, src)),
                DOp::Int { op, ty, dst, a, b } => {
                    let (a, b) = (self.val(th, a), self.val(th, b));
                    match alu::int(op, ty, a, b) {
                        Some(r) => Self::set(th, dst, r),
                        None => {
                            return Err(self.fault(
                                FaultKind::DivisionByZero,
                                format!("integer division by zero (the divisor is 0 as a `{ty}` value)"),
                                th,
                                pc,
                            ))
                        }
                    }
                }
                DOp::Mad { ty, dst, a, b, c } => {
                    let r = alu::mad(ty, self.val(th, a), self.val(th, b), self.val(th, c));
                    Self::set(th, dst, r);
                }
                DOp::MulWide { signed, dst, a, b } => {
                    Self::set(th, dst, alu::mul_wide(signed, self.val(th, a), self.val(th, b)));
                }
                DOp::MadWide { signed, dst, a, b, c } => {
                    let product = alu::mul_wide(signed, self.val(th, a), self.val(th, b));
                    Self::set(th, dst, product.wrapping_add(self.val(th, c)));
                }
                DOp::Bfe { signed, width, dst, a, pos, len } => {
                    let r = alu::bfe(signed, width, self.val(th, a), self.val(th, pos), self.val(th, len));
                    Self::set(th, dst, r);
                }
                DOp::Neg { ty, dst, a } => Self::set(th, dst, alu::neg(ty, self.val(th, a))),
                DOp::Pack { half, dst, lo, hi } => {
                    Self::set(th, dst, mask(self.val(th, lo), half) | mask(self.val(th, hi), half) << half);
                }
                DOp::Unpack { half, lo, hi, src } => {
                    let v = self.val(th, src);
                    Self::set(th, lo, mask(v, half));
                    Self::set(th, hi, mask(v >> half, half));
                }
                DOp::Ldmatrix { .. } | DOp::Mma { .. } | DOp::Shfl { .. } => return Ok(Suspend::Warp(pc)),
                DOp::Not { ty, dst, a } => {
                    let width = if ty == Ty::Pred { 1 } else { ty.bits() };
                    Self::set(th, dst, mask(!self.val(th, a), width));
                }
                DOp::Float { op, ty, dst, a, b } => {
                    Self::set(th, dst, alu::float(op, ty, self.val(th, a), self.val(th, b)));
                }
                DOp::Fma { ty, dst, a, b, c } => {
                    Self::set(th, dst, alu::fma(ty, self.val(th, a), self.val(th, b), self.val(th, c)));
                }
                DOp::Cvt { dst_ty, src_ty, rounding, dst, src } => {
                    Self::set(th, dst, alu::cvt(dst_ty, src_ty, rounding, self.val(th, src)));
                }
                DOp::Setp { cmp, ty, dst, a, b } => {
                    Self::set(th, dst, u64::from(alu::compare(cmp, ty, self.val(th, a), self.val(th, b))));
                }
                DOp::Selp { dst, a, b, pred } => {
                    let pick = if self.val(th, Src::Reg(pred)) != 0 { a } else { b };
                    Self::set(th, dst, self.val(th, pick));
                }
                DOp::Bra { target } => th.frame.pc = target as usize,
                DOp::LdParam { dst, param } => {
                    Self::set(th, dst, self.params.get(param as usize).copied().unwrap_or(0))
                }
                DOp::Ld { space, ty, n, dst, addr } => {
                    let base = self.address(th, addr);
                    let size = u64::from(ty.bits() / 8);
                    for (k, slot) in dst.iter().take(usize::from(n)).enumerate() {
                        let value = self.load(th, space, base.wrapping_add(k as u64 * size), size, pc)?;
                        // `ld.s8` into a 16-bit register sign-extends (`.u8` zero-extends).
                        let value = if ty == Ty::S8 { mask(alu::sext(value, 8) as u64, 16) } else { value };
                        Self::set(th, *slot, value);
                    }
                }
                DOp::St { space, ty, n, src, addr } => {
                    self.arrive(th, pc);
                    let base = self.address(th, addr);
                    let size = u64::from(ty.bits() / 8);
                    if space == StateSpace::Shared && self.wgmma.is_some() {
                        self.generic_shared_write(th, base, size * u64::from(n), pc)?;
                    }
                    for (k, s) in src.iter().take(usize::from(n)).enumerate() {
                        let value = self.val(th, *s);
                        self.store(th, space, base.wrapping_add(k as u64 * size), size, value, pc)?;
                    }
                }
                DOp::CpAsync { bytes, dst, src, src_size } => {
                    // The source size is a `.u32` operand.
                    let limit =
                        src_size.map_or(u64::from(bytes), |s| alu::operand(self.val(th, s), 32).min(u64::from(bytes)));
                    let (dst, src) = (self.address(th, dst), self.address(th, src));
                    if self.wgmma.is_some() {
                        self.copy_issued(th, dst, u64::from(bytes), pc)?;
                    }
                    self.cp_async(th, dst, src, u64::from(bytes), limit, pc)?;
                }
                DOp::Commit => self.commit(th, pc)?,
                DOp::Wait(n) => self.wait(th, n as usize, pc),
                DOp::WaitAll => {
                    self.commit(th, pc)?;
                    self.wait(th, 0, pc);
                }
                DOp::Bar => return Ok(Suspend::Barrier(pc)),
                // --- Hopper TMA ---
                DOp::Tma(index) => {
                    if let Some(suspend) = self.tma_step(th, index, pc)? {
                        return Ok(suspend);
                    }
                }
                DOp::Ret => {
                    th.frame.pc = self.code.insts.len();
                    return Ok(Suspend::End);
                }

                // Compilers' sm_80 instructions.
                DOp::FloatMinMax { max, ftz, nan, ty, dst, a, b } => {
                    Self::set(th, dst, approx::min_max(max, ftz, nan, ty, self.val(th, a), self.val(th, b)));
                }
                DOp::Approx { func, ftz, dst, a } => Self::set(th, dst, approx::approx(func, ftz, self.val(th, a))),
                DOp::DivApprox { ftz, dst, a, b } => {
                    Self::set(th, dst, approx::div(ftz, self.val(th, a), self.val(th, b)));
                }
                DOp::CvtPack { to, rounding, relu, dst, a, b } => {
                    Self::set(th, dst, approx::cvt_pack(to, rounding, relu, self.val(th, a), self.val(th, b)));
                }
                // Hopper's wgmma queue (emu/wgmma.rs): `wgmma.fence` orders the thread's
                // register accesses before the next wgmma; the rest are rendezvous of the
                // warpgroup.
                DOp::WgmmaFence => {
                    if let Some(state) = &mut self.wgmma {
                        state.register_fence(th.tid);
                    }
                }
                DOp::WgmmaMma(_) | DOp::WgmmaCommit | DOp::WgmmaWait(_) => return Ok(Suspend::Warpgroup(pc)),
                DOp::FenceProxyAsync { shared } => {
                    if shared {
                        self.proxy_fence(th.tid);
                    }
                }
            }
        }
    }

    fn commit(&mut self, th: &mut Thread<Frame>, pc: usize) -> R<()> {
        if self.wgmma.is_some() {
            self.copies_committed(th.tid);
        }
        let line = self.describe(pc).0;
        let thread = th.race_thread();
        match th.asyncs.commit(&mut self.mem, 0, line, thread, self.completion.lands_at_commit()) {
            Ok(_) => Ok(()),
            Err(limit) => Err(Self::limit_exceeded(line, limit)),
        }
    }

    /// The emulator's error for a bound of the machine passed at PTX line `line`.
    fn limit_exceeded(line: u32, limit: Limit) -> Stop {
        Stop::Error(EmuError::Machine(ExecError::LimitExceeded { line, limit }))
    }

    fn wait(&mut self, th: &mut Thread<Frame>, keep: usize, pc: usize) {
        let waiter = Waiter { thread: th.race_thread(), epoch: th.epoch };
        th.asyncs.wait(&mut self.mem, 0, keep, waiter);
        if self.wgmma.is_some() {
            self.copies_waited(th.tid, keep);
        }
        if let Some(slot) = self.last_waits.get_mut(th.tid as usize) {
            *slot = Some(pc);
        }
    }

    /// Runs the warp-wide instruction of every warp whose lanes have all arrived at it (for
    /// `shfl.sync`, every lane its membermask names); true when one ran.
    fn warp_rendezvous(&mut self, threads: &mut [Thread<Frame>], statuses: &mut [Suspend]) -> R<bool> {
        let mut ran = false;
        for start in (0..threads.len()).step_by(warp::WARP) {
            let end = (start + warp::WARP).min(threads.len());
            let waiting_at = |s: &Suspend| match s {
                Suspend::Warp(pc) => Some(*pc),
                _ => None,
            };
            // Each instruction lanes wait at, in increasing order (usually just one: only
            // shuffles of part of a warp, or diverged lanes, leave lanes at several).
            let mut next = statuses[start..end].iter().filter_map(waiting_at).min();
            while let Some(pc) = next {
                next = statuses[start..end].iter().filter_map(waiting_at).filter(|p| *p > pc).min();
                if matches!(self.code.insts.get(pc).map(|i| i.op), Some(DOp::Shfl { .. })) {
                    ran |= self.shfl_rendezvous(&mut threads[start..end], &mut statuses[start..end], pc)?;
                    continue;
                }
                if !statuses[start..end].iter().all(|s| *s == Suspend::Warp(pc)) {
                    continue;
                }
                if end - start < warp::WARP {
                    let message = format!("a warp-wide instruction in a warp of {} threads (it needs 32)", end - start);
                    return Err(self.unsupported_at(pc, message));
                }
                self.warp_instruction(&mut threads[start..end], pc)?;
                statuses[start..end].iter_mut().for_each(|s| *s = Suspend::Running);
                ran = true;
            }
        }
        Ok(ran)
    }

    /// Runs the warpgroup-wide instruction of the first warpgroup whose threads have all
    /// arrived at it; true when one ran.
    fn warpgroup_rendezvous(&mut self, threads: &mut [Thread<Frame>], statuses: &mut [Suspend]) -> R<bool> {
        for start in (0..threads.len()).step_by(wgmma::WARPGROUP) {
            let end = (start + wgmma::WARPGROUP).min(threads.len());
            let Some(Suspend::Warpgroup(pc)) = statuses.get(start).copied() else { continue };
            if !statuses[start..end].iter().all(|s| *s == Suspend::Warpgroup(pc)) {
                continue;
            }
            if end - start < wgmma::WARPGROUP {
                let message =
                    format!("a warpgroup-wide instruction in a warpgroup of {} threads (it needs 128)", end - start);
                return Err(self.unsupported_at(pc, message));
            }
            self.warpgroup_instruction(&mut threads[start..end], start / wgmma::WARPGROUP, pc)?;
            statuses[start..end].iter_mut().for_each(|s| *s = Suspend::Running);
            // One warpgroup at a time: its threads run on while the others still wait, so
            // what one warpgroup's wait does not order for another is seen.
            return Ok(true);
        }
        Ok(false)
    }

    /// `ldmatrix` or `mma.sync` at `pc` for the 32 `lanes` of a warp.
    fn warp_instruction(&mut self, lanes: &mut [Thread<Frame>], pc: usize) -> R<()> {
        let Some(inst) = self.code.insts.get(pc).copied() else { return Ok(()) };
        match inst.op {
            DOp::Ldmatrix { count, trans, dst, addr } => {
                let count = usize::from(count);
                let mut matrices = [[[0u16; 8]; 8]; 4];
                for (m, rows) in matrices.iter_mut().enumerate().take(count) {
                    for (r, row) in rows.iter_mut().enumerate() {
                        let lane = &lanes[m * 8 + r];
                        let base = self.address(lane, addr);
                        for half in 0..2u64 {
                            let word = self.load(lane, StateSpace::Shared, base.wrapping_add(8 * half), 8, pc)?;
                            for j in 0..4 {
                                row[half as usize * 4 + j] = (word >> (16 * j)) as u16;
                            }
                        }
                    }
                }
                for (index, lane) in lanes.iter_mut().enumerate() {
                    for (m, slot) in dst.iter().enumerate().take(count) {
                        Self::set(lane, *slot, warp::ldmatrix_fragment(&matrices[m], index, trans));
                    }
                }
            }
            DOp::Mma { input, d, a, b, c } => {
                let mut frags =
                    warp::MmaFragments { a: [[0; 4]; warp::WARP], b: [[0; 2]; warp::WARP], c: [[0; 4]; warp::WARP] };
                for (index, lane) in lanes.iter().enumerate() {
                    frags.a[index] = a.map(|r| self.val(lane, Src::Reg(r)));
                    frags.b[index] = b.map(|r| self.val(lane, Src::Reg(r)));
                    frags.c[index] = c.map(|r| self.val(lane, Src::Reg(r)));
                }
                let out = warp::mma(input, &frags);
                for (lane, regs) in lanes.iter_mut().zip(out) {
                    for (slot, value) in d.iter().zip(regs) {
                        Self::set(lane, *slot, value);
                    }
                }
            }
            // --- Hopper TMA ---
            DOp::Tma(index) => self.tma_warp(lanes, index, pc)?,
            _ => {}
        }
        Ok(())
    }

    fn address(&self, th: &Thread<Frame>, addr: DAddr) -> u64 {
        addr.reg.map_or(0, |r| self.val(th, Src::Reg(r))).wrapping_add(addr.offset)
    }

    /// The region of `space` holding `[addr, addr + size)`, and the storage behind it.
    fn locate(&self, th: &Thread<Frame>, space: StateSpace, addr: u64, size: u64, pc: usize) -> R<(Region<'k>, u32)> {
        let (regions, storages): (&[Region<'k>], &[u32]) = match space {
            StateSpace::Global => (&self.globals, &self.global_storages),
            StateSpace::Shared => (&self.shared, &self.shared_storages),
            StateSpace::Local => (&self.local, &th.frame.local),
            StateSpace::Param => return Err(self.unsupported_at(pc, "a parameter access through an address".into())),
        };
        let found = regions.iter().find(|r| addr >= r.start && addr.wrapping_add(size) <= r.start + r.bytes);
        let Some(region) = found.copied() else {
            return Err(self.fault(FaultKind::OutOfBounds, outside(regions, space, addr, size), th, pc));
        };
        let offset = addr - region.start;
        // A buffer of another element type than the kernel's accesses (a float64 file for
        // 4-byte loads) is most likely the launch's mistake: say which buffer and type.
        let hint = match space {
            StateSpace::Global => {
                format!(
                    " (buffer `{}` holds {}: bind a buffer of {size}-byte elements)",
                    region.name,
                    region.num.dtype()
                )
            }
            _ => format!(" (array `{}`)", region.name),
        };
        if !offset.is_multiple_of(size.min(region.unit).max(1))
            || (size > region.unit && !size.is_multiple_of(region.unit))
        {
            let message = format!("a misaligned access of {size} bytes at byte {offset}{hint}");
            return Err(self.fault(FaultKind::OutOfBounds, message, th, pc));
        }
        if size < region.unit {
            let message = format!("an access of {size} bytes to {space} memory of {}-byte elements{hint}", region.unit);
            return Err(self.unsupported_at(pc, message));
        }
        let storage = storages.get(region.slot).copied().unwrap_or(0);
        Ok((region, storage))
    }

    fn race(th: &Thread<Frame>, pc: usize) -> Option<RaceCtx> {
        th.race.map(|r| RaceCtx { site: pc as u32, ..r })
    }

    /// Counts an arrival of `th` at the store instruction `pc` (predicated off or not), when
    /// its accesses are tracked for races.
    #[inline]
    fn arrive(&self, th: &mut Thread<Frame>, pc: usize) {
        if th.race.is_none() {
            return;
        }
        let Some(&site) = self.store_sites.get(pc) else { return };
        if th.frame.arrivals.is_empty() {
            th.frame.arrivals = vec![0; self.n_store_sites];
        }
        if let Some(n) = th.frame.arrivals.get_mut(site as usize) {
            *n = n.saturating_add(1);
        }
    }

    /// Which execution of the store instruction `pc` by `th` this is (`RaceCtx::instance`):
    /// its arrivals there so far; 0 at an instruction that is no `st`.
    fn store_instance(&self, th: &Thread<Frame>, pc: usize) -> u32 {
        let site = self.store_sites.get(pc).copied().unwrap_or(NO_STORE);
        th.frame.arrivals.get(site as usize).copied().unwrap_or(0)
    }

    /// Reads `size` bytes (one element, or several smaller ones composed little-endian).
    fn load(&mut self, th: &Thread<Frame>, space: StateSpace, addr: u64, size: u64, pc: usize) -> R<u64> {
        let (region, storage) = self.locate(th, space, addr, size, pc)?;
        if space == StateSpace::Shared && self.tma.watching {
            self.tma_check_access(th, addr, size, false, pc)?;
        }
        let race = Self::race(th, pc);
        let first = ((addr - region.start) / region.unit) as i64;
        let mut value = 0u64;
        for k in 0..(size / region.unit) as i64 {
            let Some(s) = self.mem.storages.get_mut(storage as usize) else { return Ok(0) };
            let bits = match s.try_read(first + k, race.as_ref()) {
                Some(bits) => bits,
                None => match s.read(first + k, race.as_ref()) {
                    Ok(bits) => bits,
                    Err(e) => return Err(self.access_fault(th, e, false, space, addr, pc)),
                },
            };
            value |= mask(bits, (region.unit * 8) as u32) << (k as u64 * region.unit * 8);
        }
        Ok(value)
    }

    fn store(&mut self, th: &Thread<Frame>, space: StateSpace, addr: u64, size: u64, value: u64, pc: usize) -> R<()> {
        let (region, storage) = self.locate(th, space, addr, size, pc)?;
        if space == StateSpace::Shared && self.tma.watching {
            self.tma_check_access(th, addr, size, true, pc)?;
        }
        let race = Self::race(th, pc).map(|r| RaceCtx { instance: self.store_instance(th, pc), ..r });
        let first = ((addr - region.start) / region.unit) as i64;
        let unit_bits = (region.unit * 8) as u32;
        for k in 0..(size / region.unit) as i64 {
            let bits = norm(region.num, mask(value >> (k as u64 * u64::from(unit_bits)), unit_bits));
            let Some(s) = self.mem.storages.get_mut(storage as usize) else { return Ok(()) };
            if !s.try_write(first + k, bits, race.as_ref()) {
                if let Err(e) = s.write(first + k, bits, race.as_ref()) {
                    if let AccessError::Race(race) = &e {
                        if race.warp_store {
                            let units = (first, size / region.unit, unit_bits);
                            return Err(self.warp_store_conflict(th, race, storage, units, value, space, addr, pc));
                        }
                    }
                    return Err(self.access_fault(th, e, true, space, addr, pc));
                }
            }
        }
        Ok(())
    }

    /// The fault of lanes of one warp storing different values to one place in one execution
    /// of the store at `pc`: `th` stores `value` to the `units.1` elements of `storage` from
    /// `units.0` (of `units.2` bits each), where the other lane's value still is (the elements
    /// before the first that differs hold both lanes' equal bits).
    #[expect(clippy::too_many_arguments, reason = "the store's place, both values and the instruction")]
    fn warp_store_conflict(
        &self,
        th: &Thread<Frame>,
        race: &Race,
        storage: u32,
        (first, count, unit_bits): (i64, u64, u32),
        value: u64,
        space: StateSpace,
        addr: u64,
        pc: usize,
    ) -> Stop {
        let data = self.mem.storages.get(storage as usize).map_or(&[][..], |s| s.data.as_slice());
        let other = (0..count).fold(0u64, |acc, k| {
            let bits = data.get(first as usize + k as usize).copied().unwrap_or(0);
            acc | mask(bits, unit_bits) << (k * u64::from(unit_bits))
        });
        let ours = mask(value, (count * u64::from(unit_bits)) as u32);
        let (lane, other_lane) = (race.current.thread % WARP_LANES, race.other.thread % WARP_LANES);
        let message = format!(
            "nondeterministic warp store to {}: lanes {lane} and {other_lane} of warp {} store different values in \
             one execution of this instruction ({ours:#x} by lane {lane}, {other:#x} by lane {other_lane}); which \
             one lands is not determined",
            self.place(space, addr),
            race.current.thread / WARP_LANES
        );
        self.fault(FaultKind::WarpStoreConflict, message, th, pc)
    }

    /// `cp.async`: reads the first `limit` bytes of the source now (the rest is zeros) and
    /// issues the destination elements as pending writes of the thread.
    fn cp_async(&mut self, th: &mut Thread<Frame>, dst: u64, src: u64, bytes: u64, limit: u64, pc: usize) -> R<()> {
        let (dst_region, dst_storage) = self.locate(th, StateSpace::Shared, dst, bytes, pc)?;
        // No chunk larger than the copy: a 4-byte copy from a buffer of 8-byte elements reads
        // 4 bytes of one (which `load` refuses, naming the buffer's type).
        let chunk = dst_region.unit.max(self.src_unit(src)).min(8).min(bytes.max(1));
        let line = self.describe(pc).0;
        let race = Self::race(th, pc);
        let thread = th.race_thread();
        for start in (0..bytes).step_by(chunk as usize) {
            let value = if start >= limit {
                0
            } else {
                let v = self.load(th, StateSpace::Global, src + start, chunk, pc)?;
                if limit - start < chunk {
                    mask(v, ((limit - start) * 8) as u32)
                } else {
                    v
                }
            };
            let unit_bits = (dst_region.unit * 8) as u32;
            let first = ((dst + start - dst_region.start) / dst_region.unit) as i64;
            for k in 0..(chunk / dst_region.unit) as i64 {
                let bits = norm(dst_region.num, mask(value >> (k as u64 * u64::from(unit_bits)), unit_bits));
                let pending = Pending { issue_line: line, thread, group: None };
                match th.asyncs.issue(&mut self.mem, dst_storage, first + k, bits, pending, race.as_ref()) {
                    Ok(()) => {}
                    Err(IssueError::Access(e)) => {
                        return Err(self.access_fault(th, e, true, StateSpace::Shared, dst, pc))
                    }
                    Err(IssueError::Limit(limit)) => return Err(Self::limit_exceeded(line, limit)),
                }
            }
        }
        Ok(())
    }

    /// The element size of the global buffer at `addr` (1 when none: the load then faults).
    fn src_unit(&self, addr: u64) -> u64 {
        self.globals.iter().find(|r| addr >= r.start && addr < r.start + r.bytes).map_or(1, |r| r.unit)
    }

    fn access_fault(
        &self,
        th: &Thread<Frame>,
        e: AccessError,
        write: bool,
        space: StateSpace,
        addr: u64,
        pc: usize,
    ) -> Stop {
        let what = if write { "write" } else { "read" };
        let place = self.place(space, addr);
        let (kind, message) = match e {
            AccessError::OutOfStorage { len } => {
                (FaultKind::OutOfBounds, format!("{what} of {place} outside its storage of {len} elements"))
            }
            AccessError::Poison => (FaultKind::ReadPoison, format!("read of {place}, never written")),
            // --- Hopper TMA: a TMA load's or a bulk store's pending bytes ---
            AccessError::Pending(p) if tma::owns(&p) => {
                let kind = if write { FaultKind::WritePendingAsync } else { FaultKind::ReadPendingAsync };
                (kind, self.tma_pending_message(&p, what, &place, th))
            }
            AccessError::Pending(p) => {
                let kind = if write { FaultKind::WritePendingAsync } else { FaultKind::ReadPendingAsync };
                let group = match p.group {
                    Some(g) => format!("group {} committed at line {}", g.seq, g.commit_line),
                    None => "not yet committed".to_string(),
                };
                let waited = match self.last_waits.get(p.thread as usize).copied().flatten() {
                    Some(wait) => {
                        let (line, text) = self.describe(wait);
                        format!("; the issuing thread's last wait was `{text}` at line {line}")
                    }
                    None => "; the issuing thread has not waited yet".to_string(),
                };
                let issuer =
                    if p.thread == th.race_thread() { String::new() } else { format!(" by thread {}", p.thread) };
                (
                    kind,
                    format!(
                        "{what} of {place} while the cp.async at line {}{issuer} to it is pending ({group}){waited}",
                        p.issue_line
                    ),
                )
            }
            AccessError::Race(race) => {
                let other_line = self.describe(race.other.site as usize).0;
                let message = format!(
                    "{} {what} of {place} races with the {} by thread {} at line {other_line}",
                    race.scope, race.other.kind, race.other.thread
                );
                (race.fault_kind(), message)
            }
        };
        self.fault(kind, message, th, pc)
    }

    /// An address as the buffer or array it is in and the index there (`S[12]`): of the
    /// buffer's elements, of the elements of the TIR buffer an array holds (where codegen
    /// recorded it), or of an array's bytes; the address itself where it is in none.
    fn place(&self, space: StateSpace, addr: u64) -> String {
        let regions: &[Region<'k>] = match space {
            StateSpace::Global => &self.globals,
            StateSpace::Shared => &self.shared,
            StateSpace::Local => &self.local,
            StateSpace::Param => &[],
        };
        match regions.iter().find(|r| addr >= r.start && addr < r.start + r.bytes.max(1)) {
            Some(Region { origin: Some(origin), start, .. }) if origin.element_bytes > 0 => {
                format!("{}[{}]", origin.buffer, (addr - start) / u64::from(origin.element_bytes))
            }
            Some(r) if r.unit > 1 => format!("{}[{}]", r.name, (addr - r.start) / r.unit),
            Some(r) => format!("{space} {}[byte {}]", r.name, addr - r.start),
            None => format!("{space} address {addr:#x}"),
        }
    }

    fn take_buffers(&mut self, args: &[KernelArg]) -> Vec<Option<Tensor>> {
        let mut storages = self.global_storages.iter();
        args.iter()
            .map(|arg| match arg {
                KernelArg::Buffer(tensor) => {
                    let storage = storages.next().and_then(|s| self.mem.storages.get_mut(*s as usize))?;
                    let data = std::mem::replace(&mut storage.data, Data::Owned(Vec::new()));
                    Some(Tensor::from_shared(tensor.dtype, tensor.shape.clone(), data.into_shared()))
                }
                KernelArg::Scalar(_) => None,
            })
            .collect()
    }
}
