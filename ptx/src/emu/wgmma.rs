//! Hopper's warpgroup MMA queue (`wgmma.mma_async`, `wgmma.commit_group`,
//! `wgmma.wait_group`, `wgmma.fence`) and the async-proxy fence (`fence.proxy.async`), on the
//! emulator (docs/ptx.md, "Hopper's wgmma queue and the async proxy").
//!
//! A warpgroup is the 128 threads `128g .. 128g + 127` of a block. `wgmma.mma_async`,
//! `commit_group` and `wait_group` are rendezvous of the warpgroup, like the warp-wide
//! instructions of `warp.rs`: every thread stops there, and once all 128 have arrived the
//! instruction runs once for the warpgroup. The queue is the warpgroup's: an issued
//! `mma_async` is uncommitted until a `commit_group` makes the uncommitted ones a group (an
//! empty one too); `wait_group n` retires all but the `n` most recent groups. A group's
//! products are computed when it completes: under the lazy schedule when a wait retires it,
//! under the eager one at its commit, under a random one at a seeded moment in between
//! (between the block's scheduling rounds). Until a wait retires it, an instruction holds:
//! - the shared-memory bytes of its descriptor operands (read at issue for the checks a read
//!   makes: bounds, copies in flight, races, the proxy fence; read again for the values when
//!   it completes), so a write of them by any thread (`st.shared`, a `cp.async`) faults;
//! - its accumulator registers and its A registers, in every thread of the warpgroup, so an
//!   instruction naming one faults, except the next `wgmma.mma_async` whose D is the very same
//!   registers (the ISA orders accumulations of one chain without a fence).
//!
//! A warpgroup that ends with an instruction still in flight faults. The holds last until the
//! wait under every schedule, as PTX only promises the operands are free after it. A thread
//! that names a register a wgmma takes as D or A must run `wgmma.fence` before that wgmma is
//! issued (the ISA's rule), else the wgmma faults naming the access.
//!
//! The async proxy: a `wgmma` reads shared memory through the async proxy, so the last
//! generic-proxy write of every byte it reads (`st.shared`, a `cp.async` landing) must be
//! followed by a `fence.proxy.async` of the writing thread; for a `cp.async`, the fence counts
//! only once the wait that retires the copy has passed (the copy lands no later). A barrier
//! then carries the order to the reading warpgroup, which the race checks of the read at issue
//! verify. A fence by another thread than the writer does not count (the ISA's fence orders
//! the executing thread's accesses). `async_proxy_read` is that check for any async-proxy
//! reader of shared memory.
//!
//! Arithmetic: inputs are widened to f32 exactly (f16, bf16, and tf32 as the top 19 bits of
//! its 32: the hardware ignores the low 13), products are exact in f32 and are added to the
//! accumulator in `k` order, one rounding per addition (PTX leaves the order open, as for
//! `mma.sync`). Shared-memory layouts follow the ISA's canonical K-major and MN-major layouts
//! with the 32, 64 and 128-byte swizzles (the XOR of the 16-byte chunk index with address
//! bits 7 and up); a descriptor with a base offset, and the MN-major layout without a swizzle,
//! are refused as unsupported.
//!
//! Invariants: every fault names the queue (`wgmma`), the instruction in flight (its line)
//! and the wait that left it in flight or that no wait retired it; holds are released exactly
//! when their instruction's group is retired; nothing here panics.

use std::collections::VecDeque;

use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use tirproof_machine::fault::FaultKind;
use tirproof_machine::held::{HeldBytes, ProxyShadow, Release, IN_FLIGHT};
use tirproof_machine::thread::Thread;
use tirproof_machine::Schedule;

use super::alu::f16_to_f32;
use super::decode::{DOp, DWgmma, DWgmmaA, Decoded, Src};
use super::{Emulator, Frame, StateSpace, ARRAY_BASE, R};
use crate::module::WgmmaInput;

/// Threads in a warpgroup.
pub(super) const WARPGROUP: usize = 128;

/// Rows of A and D of every `wgmma.mma_async` (`m64`).
const M: usize = 64;

/// The swizzle mode of a matrix descriptor, by the bytes of its atom's rows.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Swizzle {
    None,
    B32,
    B64,
    B128,
}

impl Swizzle {
    /// 16-byte chunks in a row of the swizzle atom.
    fn chunks(self) -> u64 {
        match self {
            Swizzle::None => 1,
            Swizzle::B32 => 2,
            Swizzle::B64 => 4,
            Swizzle::B128 => 8,
        }
    }

    /// Bits 4 and up of an address XORed with bits 7 and up: one bit per doubling of the row.
    fn apply(self, addr: u64) -> u64 {
        let mask = self.chunks() - 1;
        addr ^ (((addr >> 7) & mask) << 4)
    }
}

/// A shared-memory matrix descriptor (PTX ISA, "Matrix Descriptor Format").
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Descriptor {
    start: u64,
    leading: u64,
    stride: u64,
    base_offset: u64,
    swizzle: Swizzle,
}

impl Descriptor {
    fn decode(bits: u64) -> Descriptor {
        let field = |shift: u32| ((bits >> shift) & 0x3FFF) << 4;
        let swizzle = match bits >> 62 {
            0 => Swizzle::None,
            1 => Swizzle::B128,
            2 => Swizzle::B64,
            _ => Swizzle::B32,
        };
        Descriptor { start: field(0), leading: field(16), stride: field(32), base_offset: (bits >> 49) & 7, swizzle }
    }

    /// The shared address of element (`mn`, `k`) of a matrix of `bytes`-byte elements stored
    /// K-major (`mn_major` false) or MN-major, in the ISA's canonical layouts; `None` for the
    /// layouts not modelled.
    fn address(&self, mn: u64, k: u64, bytes: u64, mn_major: bool) -> Option<u64> {
        if self.base_offset != 0 {
            return None;
        }
        // Elements per 16 bytes.
        let t = 16 / bytes;
        let chunks = self.swizzle.chunks();
        let offset = match (self.swizzle, mn_major) {
            (Swizzle::None, false) => (mn % 8) * 16 + (mn / 8) * self.stride + (k % t) * bytes + (k / t) * self.leading,
            (Swizzle::None, true) => return None,
            (_, false) => {
                if k * bytes >= 16 * chunks {
                    return None;
                }
                (mn % 8) * 16 * chunks + (mn / 8) * self.stride + k * bytes
            }
            (_, true) => {
                let per_row = t * chunks;
                (mn % per_row) * bytes + (mn / per_row) * self.leading + (k % 8) * 16 * chunks + (k / 8) * self.stride
            }
        };
        Some(self.swizzle.apply(self.start + offset))
    }
}

/// An element of A or B as f32 (exact).
fn widen(input: WgmmaInput, bits: u64) -> f32 {
    match input {
        WgmmaInput::F16 => f16_to_f32(bits),
        WgmmaInput::Bf16 => f32::from_bits(((bits & 0xFFFF) as u32) << 16),
        WgmmaInput::Tf32 => f32::from_bits((bits as u32) & 0xFFFF_E000),
    }
}

/// The (row, k) of A element `half` (0 or 1, of a 16-bit pair) of register `reg` of thread
/// `t` of the warpgroup, for A in registers.
fn a_fragment_place(input: WgmmaInput, t: usize, reg: usize, half: usize) -> (usize, usize) {
    let (warp, lane) = (t / 32, t % 32);
    let (group, pair) = (lane / 4, lane % 4);
    let row = 16 * warp + group + 8 * (reg % 2);
    match input {
        WgmmaInput::F16 | WgmmaInput::Bf16 => (row, 2 * pair + 8 * (reg / 2) + half),
        WgmmaInput::Tf32 => (row, pair + 4 * (reg / 2)),
    }
}

/// The (row, column) of D register `i` of thread `t` of the warpgroup.
fn d_place(t: usize, i: usize) -> (usize, usize) {
    let (warp, lane) = (t / 32, t % 32);
    let (group, pair) = (lane / 4, lane % 4);
    let (chunk, r) = (i / 4, i % 4);
    (16 * warp + group + 8 * (r / 2), 8 * chunk + 2 * pair + r % 2)
}

/// One `wgmma.mma_async` issued and not yet retired.
#[derive(Clone, Debug)]
struct InFlight {
    /// The instruction and its operands (`Decoded::wgmmas`).
    pc: usize,
    op: u32,
    /// Shared addresses of A's elements (row-major, 64 x K) when A comes from a descriptor,
    /// and of B's (K x N, row-major).
    a_addrs: Vec<u64>,
    b_addrs: Vec<u64>,
    scale_d: bool,
    /// Its product is in the D registers.
    done: bool,
}

/// A committed group of a warpgroup's queue.
#[derive(Clone, Debug)]
struct Group {
    seq: u32,
    commit_pc: usize,
    mmas: Vec<InFlight>,
}

/// A warpgroup's queue.
#[derive(Clone, Debug, Default)]
struct Queue {
    uncommitted: Vec<InFlight>,
    groups: VecDeque<Group>,
    committed: u32,
    last_wait: Option<usize>,
    /// Per register slot: whether an in-flight instruction holds it (one bit each).
    held_slots: Vec<u64>,
    holds_regs: bool,
}

impl Queue {
    fn in_flight(&self) -> impl Iterator<Item = (Option<&Group>, &InFlight)> {
        let committed = self.groups.iter().flat_map(|g| g.mmas.iter().map(move |m| (Some(g), m)));
        committed.chain(self.uncommitted.iter().map(|m| (None, m)))
    }

    fn holds(&self, slot: u32) -> bool {
        self.holds_regs && self.held_slots.get(slot as usize / 64).is_some_and(|w| w >> (slot % 64) & 1 == 1)
    }
}

/// A thread's `cp.async` copies in flight, for the reach of its proxy fences: the shared bytes
/// (window start, length, issuing instruction) of each committed group not yet retired and of
/// the uncommitted copies. Their bytes stay recorded as writes no fence orders until the wait
/// that retires their group lands them (`ProxyShadow::land`).
#[derive(Clone, Debug, Default)]
struct Copies {
    uncommitted: Vec<(usize, usize, u32)>,
    groups: VecDeque<Vec<(usize, usize, u32)>>,
}

/// The wgmma queues and async-proxy shadow of the running block.
pub(super) struct WgmmaState {
    queues: Vec<Queue>,
    held: HeldBytes,
    proxy: ProxyShadow,
    copies: Vec<Copies>,
    /// The random schedule's own stream (so the cp.async groups draw theirs unchanged).
    rng: Option<StdRng>,
    /// Per instruction: whether it names a register some wgmma takes as D or A (and is no
    /// wgmma itself), so it must be fenced from the next wgmma by a `wgmma.fence`.
    touches: Vec<bool>,
    /// Per register slot: whether some wgmma takes it as D or A.
    operand_slots: Vec<bool>,
    n_slots: usize,
    /// Per thread and slot (`tid * n_slots + slot`): 1 + the instruction that last named the
    /// register since the thread's last `wgmma.fence`, 0 if none did.
    unfenced: Vec<u32>,
}

/// What `describe_flight` says about an instruction in flight.
struct Flight {
    line: u32,
    group: String,
    wait: String,
}

impl WgmmaState {
    pub(super) fn new(threads: usize, shared_bytes: usize, code: &Decoded, schedule: Schedule) -> WgmmaState {
        let n_slots = code.n_slots;
        let queue = Queue { held_slots: vec![0; n_slots.div_ceil(64)], ..Queue::default() };
        let mut operand_slots = vec![false; n_slots];
        for slot in code.wgmmas.iter().flat_map(DWgmma::held_slots) {
            if let Some(s) = operand_slots.get_mut(slot as usize) {
                *s = true;
            }
        }
        let touches = code
            .insts
            .iter()
            .zip(&code.reg_uses)
            .map(|(inst, uses)| {
                !matches!(inst.op, DOp::WgmmaMma(_))
                    && uses.iter().any(|(slot, _)| operand_slots.get(*slot as usize).copied().unwrap_or(false))
            })
            .collect();
        WgmmaState {
            touches,
            operand_slots,
            n_slots,
            unfenced: vec![0; threads * n_slots],
            queues: vec![queue; threads.div_ceil(WARPGROUP)],
            held: HeldBytes::new(shared_bytes),
            proxy: ProxyShadow::new(shared_bytes, threads),
            copies: vec![Copies::default(); threads],
            rng: match schedule {
                Schedule::Random(seed) => Some(StdRng::seed_from_u64(seed ^ 0x0077_676d_6d61)),
                Schedule::Lazy | Schedule::Eager => None,
            },
        }
    }

    /// Notes that thread `tid` ran instruction `pc` (naming `uses`): the wgmma operand
    /// registers it names need a `wgmma.fence` before the next wgmma.
    #[inline(always)]
    pub(super) fn note_access(&mut self, tid: u32, pc: usize, uses: &[(u32, crate::module::Reg)]) {
        if !self.touches.get(pc).copied().unwrap_or(false) {
            return;
        }
        let base = tid as usize * self.n_slots;
        for (slot, _) in uses {
            if self.operand_slots.get(*slot as usize).copied().unwrap_or(false) {
                if let Some(at) = self.unfenced.get_mut(base + *slot as usize) {
                    *at = pc as u32 + 1;
                }
            }
        }
    }

    /// `wgmma.fence` of thread `tid`: its register accesses so far are ordered before the
    /// warpgroup's next wgmma.
    pub(super) fn register_fence(&mut self, tid: u32) {
        let base = tid as usize * self.n_slots;
        if let Some(entries) = self.unfenced.get_mut(base..base + self.n_slots) {
            entries.iter_mut().for_each(|e| *e = 0);
        }
    }

    /// Whether the warpgroup of thread `tid` holds registers (the fast path of every step).
    #[inline(always)]
    pub(super) fn holds_regs(&self, tid: u32) -> bool {
        self.queues.get(tid as usize / WARPGROUP).is_some_and(|q| q.holds_regs)
    }

    fn recompute_held_slots(&mut self, wg: usize, wgmmas: &[DWgmma]) {
        let Some(queue) = self.queues.get_mut(wg) else { return };
        queue.held_slots.iter_mut().for_each(|w| *w = 0);
        let mut any = false;
        let slots: Vec<u32> =
            queue.in_flight().flat_map(|(_, m)| wgmmas.get(m.op as usize).map(DWgmma::held_slots)).flatten().collect();
        for slot in slots {
            if let Some(w) = queue.held_slots.get_mut(slot as usize / 64) {
                *w |= 1 << (slot % 64);
                any = true;
            }
        }
        queue.holds_regs = any;
    }
}

impl Emulator<'_> {
    /// The byte of the shared window at shared address `addr`.
    fn window_byte(addr: u64) -> usize {
        addr.saturating_sub(ARRAY_BASE) as usize
    }

    /// The text for the instruction in flight `m` (in `group`, if committed) of queue `wg`.
    fn describe_flight(&self, wg: usize, group: Option<&Group>, m: &InFlight) -> Flight {
        let line = self.describe(m.pc).0;
        let group = match group {
            Some(g) => format!("group {} committed at line {}", g.seq, self.describe(g.commit_pc).0),
            None => "not yet committed".to_string(),
        };
        let last_wait = self.wgmma.as_ref().and_then(|s| s.queues.get(wg)).and_then(|q| q.last_wait);
        let wait = match last_wait {
            Some(pc) => {
                let (line, text) = self.describe(pc);
                format!("the warpgroup's last wait, `{text}` at line {line}, left it in flight")
            }
            None => "no wgmma.wait_group of the warpgroup has retired it".to_string(),
        };
        Flight { line, group, wait }
    }

    /// Checks that no in-flight wgmma holds the shared bytes `addr .. addr + len` that thread
    /// `th` writes at `pc` (`what`: the kind of write, for the message).
    pub(super) fn check_not_held(&self, th: &Thread<Frame>, addr: u64, len: u64, what: &str, pc: usize) -> R<()> {
        let Some(state) = &self.wgmma else { return Ok(()) };
        let (start, owner) = (Self::window_byte(addr), th.tid / WARPGROUP as u32);
        if let Some((byte, release)) = state.held.released_to_others(start, len as usize, th.epoch, owner) {
            let place = self.place(StateSpace::Shared, ARRAY_BASE + byte as u64);
            let (line, text) = self.describe(release.site as usize);
            let who = match release.owner {
                Release::SEVERAL => "another warpgroup".to_string(),
                other => format!("warpgroup {other}"),
            };
            let message = format!(
                "queue `wgmma`: {what} of {place} races with the wgmma.mma_async of {who} that read it until \
                 `{text}` at line {line} retired it; no barrier since orders that wait_group before this thread of \
                 warpgroup {owner}"
            );
            return Err(self.fault(FaultKind::CrossThreadRace, message, th, pc));
        }
        let Some(byte) = state.held.first_held(start, len as usize) else { return Ok(()) };
        let hit =
            |addrs: &[u64], e: u64| addrs.iter().any(|a| (Self::window_byte(*a)..).take(e as usize).any(|b| b == byte));
        for (wg, queue) in state.queues.iter().enumerate() {
            for (group, m) in queue.in_flight() {
                let Some(op) = self.code.wgmmas.get(m.op as usize) else { continue };
                let e = u64::from(op.input.bytes());
                let operand = if hit(&m.a_addrs, e) {
                    "A"
                } else if hit(&m.b_addrs, e) {
                    "B"
                } else {
                    continue;
                };
                let flight = self.describe_flight(wg, group, m);
                let place = self.place(StateSpace::Shared, ARRAY_BASE + byte as u64);
                let message = format!(
                    "queue `wgmma`: {what} of {place} while the wgmma.mma_async at line {} of warpgroup {wg}, which \
                     reads it as its {operand} operand, is pending ({}); {}",
                    flight.line, flight.group, flight.wait
                );
                return Err(self.fault(FaultKind::WritePendingAsync, message, th, pc));
            }
        }
        Ok(())
    }

    /// Checks an async-proxy read of the shared bytes `addr .. addr + len` by thread `th` at
    /// `pc` (`reader`: who reads, for the message): the last generic-proxy write of each must
    /// be ordered by a `fence.proxy.async` of its writer.
    pub(super) fn async_proxy_read(&self, th: &Thread<Frame>, addr: u64, len: u64, reader: &str, pc: usize) -> R<()> {
        let Some(state) = &self.wgmma else { return Ok(()) };
        let Some((byte, write)) = state.proxy.first_unfenced(Self::window_byte(addr), len as usize) else {
            return Ok(());
        };
        let place = self.place(StateSpace::Shared, ARRAY_BASE + byte as u64);
        let (line, text) = self.describe(write.site as usize);
        let message = format!(
            "async proxy: {reader}'s read of {place} races with its last write, `{text}` at line {line} by thread {}, \
             made through the generic proxy with no fence.proxy.async of that thread after it",
            write.thread
        );
        Err(self.fault(FaultKind::CrossThreadRace, message, th, pc))
    }

    /// A generic-proxy write of the shared bytes `addr .. addr + len` by `th` at `pc`
    /// (`st.shared`): it must not touch what a wgmma in flight reads, and it is recorded for
    /// the proxy fence.
    pub(super) fn generic_shared_write(&mut self, th: &Thread<Frame>, addr: u64, len: u64, pc: usize) -> R<()> {
        self.check_not_held(th, addr, len, "write", pc)?;
        if let Some(state) = &mut self.wgmma {
            let seq = state.proxy.tick();
            state.proxy.write(Self::window_byte(addr), len as usize, th.tid, pc as u32, seq);
        }
        Ok(())
    }

    /// A `cp.async` of `th` at `pc` to the shared bytes `addr .. addr + len`: it may land at any
    /// moment until its wait, so it must not touch what a wgmma in flight reads; it is a
    /// generic-proxy write that a fence orders only after the wait that retires it.
    pub(super) fn copy_issued(&mut self, th: &Thread<Frame>, addr: u64, len: u64, pc: usize) -> R<()> {
        self.check_not_held(th, addr, len, "asynchronous copy (cp.async)", pc)?;
        if let Some(state) = &mut self.wgmma {
            let start = Self::window_byte(addr);
            state.proxy.write(start, len as usize, th.tid, pc as u32, IN_FLIGHT);
            if let Some(copies) = state.copies.get_mut(th.tid as usize) {
                copies.uncommitted.push((start, len as usize, pc as u32));
            }
        }
        Ok(())
    }

    /// A `cp.async.commit_group` of thread `tid`.
    pub(super) fn copies_committed(&mut self, tid: u32) {
        if let Some(copies) = self.wgmma.as_mut().and_then(|s| s.copies.get_mut(tid as usize)) {
            let group = std::mem::take(&mut copies.uncommitted);
            copies.groups.push_back(group);
        }
    }

    /// A `cp.async.wait_group keep` of thread `tid`.
    pub(super) fn copies_waited(&mut self, tid: u32, keep: usize) {
        let Some(state) = self.wgmma.as_mut() else { return };
        let Some(copies) = state.copies.get_mut(tid as usize) else { return };
        while copies.groups.len() > keep {
            let Some(group) = copies.groups.pop_front() else { break };
            // Retired: from now on the thread's fences order these copies' bytes.
            let landed = state.proxy.tick();
            for (start, len, site) in group {
                state.proxy.land(start, len, tid, site, landed);
            }
        }
    }

    /// `fence.proxy.async` of thread `tid`: orders its generic writes before now; the bytes of
    /// its copies still in flight are recorded as `IN_FLIGHT`, which no fence reaches.
    pub(super) fn proxy_fence(&mut self, tid: u32) {
        if let Some(state) = &mut self.wgmma {
            let now = state.proxy.tick();
            state.proxy.fence(tid, now);
        }
    }

    /// Faults if thread `th` at `pc` names a register an in-flight wgmma of its warpgroup holds
    /// (the caller checked `WgmmaState::holds_regs`).
    pub(super) fn check_held_regs(&self, th: &Thread<Frame>, pc: usize) -> R<()> {
        let Some(state) = &self.wgmma else { return Ok(()) };
        let wg = th.tid as usize / WARPGROUP;
        let Some(queue) = state.queues.get(wg) else { return Ok(()) };
        let Some(uses) = self.code.reg_uses.get(pc) else { return Ok(()) };
        let Some((slot, reg)) = uses.iter().find(|(slot, _)| queue.holds(*slot)).copied() else { return Ok(()) };
        for (group, m) in queue.in_flight() {
            let Some(op) = self.code.wgmmas.get(m.op as usize) else { continue };
            let role = if op.d.contains(&slot) {
                "an accumulator (D)"
            } else if op.held_slots().contains(&slot) {
                "an A register"
            } else {
                continue;
            };
            let flight = self.describe_flight(wg, group, m);
            let message = format!(
                "queue `wgmma`: the instruction names {reg}, {role} of the wgmma.mma_async at line {}, which is \
                 pending ({}); {}",
                flight.line, flight.group, flight.wait
            );
            let writes = self.code.insts.get(pc).is_some_and(|i| writes_slot(&i.op, slot));
            let kind = if writes { FaultKind::WritePendingAsync } else { FaultKind::ReadPendingAsync };
            return Err(self.fault(kind, message, th, pc));
        }
        Ok(())
    }

    /// Runs the warpgroup instruction at `pc` for the 128 threads `lanes` of warpgroup `wg`.
    pub(super) fn warpgroup_instruction(&mut self, lanes: &mut [Thread<Frame>], wg: usize, pc: usize) -> R<()> {
        let Some(inst) = self.code.insts.get(pc).copied() else { return Ok(()) };
        match inst.op {
            DOp::WgmmaMma(index) => self.wgmma_issue(lanes, wg, index, pc)?,
            DOp::WgmmaCommit => {
                let eager = self.completion.lands_at_commit();
                let Some(queue) = self.wgmma.as_mut().and_then(|s| s.queues.get_mut(wg)) else { return Ok(()) };
                queue.committed += 1;
                let mmas = std::mem::take(&mut queue.uncommitted);
                queue.groups.push_back(Group { seq: queue.committed, commit_pc: pc, mmas });
                let last = queue.groups.len() - 1;
                if eager {
                    self.complete_group(lanes, wg, last)?;
                }
            }
            DOp::WgmmaWait(keep) => {
                let Some(queue) = self.wgmma.as_mut().and_then(|s| s.queues.get_mut(wg)) else { return Ok(()) };
                queue.last_wait = Some(pc);
                let retire = queue.groups.len().saturating_sub(keep as usize);
                let epoch = lanes.first().map_or(0, |t| t.epoch);
                for _ in 0..retire {
                    self.complete_group(lanes, wg, 0)?;
                    self.retire_oldest(wg, epoch, pc);
                }
            }
            _ => {}
        }
        Ok(())
    }

    /// Issues the `wgmma.mma_async` `index` of warpgroup `wg` at `pc`.
    fn wgmma_issue(&mut self, lanes: &mut [Thread<Frame>], wg: usize, index: u32, pc: usize) -> R<()> {
        let Some(op) = self.code.wgmmas.get(index as usize).cloned() else { return Ok(()) };
        let Some(lead) = lanes.first() else { return Ok(()) };
        // The ISA has every thread give the same descriptors and scale-d (`.aligned`).
        let uniform = |slot: Option<u32>| -> Option<u64> {
            let first = self.val(lead, Src::Reg(slot?));
            lanes.iter().all(|t| self.val(t, Src::Reg(slot.unwrap_or(0))) == first).then_some(first)
        };
        let a_desc = match op.a {
            DWgmmaA::Desc(slot) => match uniform(Some(slot)) {
                Some(bits) => Some(Descriptor::decode(bits)),
                None => {
                    return Err(self.unsupported_at(pc, "threads of the warpgroup give different A descriptors".into()))
                }
            },
            DWgmmaA::Regs(_) => None,
        };
        let Some(b_bits) = uniform(Some(op.b)) else {
            return Err(self.unsupported_at(pc, "threads of the warpgroup give different B descriptors".into()));
        };
        let b_desc = Descriptor::decode(b_bits);
        let scale_d = match op.scale_d {
            Src::Reg(slot) => match uniform(Some(slot)) {
                Some(v) => v != 0,
                None => return Err(self.unsupported_at(pc, "threads of the warpgroup give different scale-d".into())),
            },
            other => self.val(lead, other) != 0,
        };
        self.check_chain(lead, wg, &op, pc)?;
        self.check_register_fence(lanes, &op, pc)?;
        let (n, k, e) = (op.n as u64, u64::from(op.input.k()), u64::from(op.input.bytes()));
        let unsupported = |emu: &Self, which: &str, d: &Descriptor| {
            emu.unsupported_at(
                pc,
                format!("the {which} descriptor's layout ({:?} swizzle, base offset {})", d.swizzle, d.base_offset),
            )
        };
        let mut a_addrs = Vec::new();
        if let Some(desc) = a_desc {
            for row in 0..M as u64 {
                for kk in 0..k {
                    let Some(addr) = desc.address(row, kk, e, op.trans_a) else {
                        return Err(unsupported(self, "A", &desc));
                    };
                    a_addrs.push(addr);
                }
            }
        }
        let mut b_addrs = Vec::with_capacity((k * n) as usize);
        for kk in 0..k {
            for col in 0..n {
                let Some(addr) = b_desc.address(col, kk, e, op.trans_b) else {
                    return Err(unsupported(self, "B", &b_desc));
                };
                b_addrs.push(addr);
            }
        }
        // The reads at issue: bounds, copies in flight, poison and races (as the warpgroup's
        // first thread), then the proxy fence.
        let lead = &lanes[0];
        for addr in a_addrs.iter().chain(&b_addrs) {
            self.load(lead, StateSpace::Shared, *addr, e, pc)?;
            self.async_proxy_read(lead, *addr, e, "the wgmma.mma_async", pc)?;
        }
        let Some(state) = self.wgmma.as_mut() else { return Ok(()) };
        for addr in a_addrs.iter().chain(&b_addrs) {
            let start = Self::window_byte(*addr);
            state.held.hold(start..start + e as usize);
        }
        let flight = InFlight { pc, op: index, a_addrs, b_addrs, scale_d, done: false };
        if let Some(queue) = state.queues.get_mut(wg) {
            queue.uncommitted.push(flight);
        }
        state.recompute_held_slots(wg, &self.code.wgmmas);
        Ok(())
    }

    /// Every thread must have run a `wgmma.fence` since it last named a register the wgmma at
    /// `pc` takes as D or A (the ISA's rule; chained wgmmas need none, and are not noted).
    fn check_register_fence(&self, lanes: &[Thread<Frame>], op: &DWgmma, pc: usize) -> R<()> {
        let Some(state) = &self.wgmma else { return Ok(()) };
        for lane in lanes {
            let base = lane.tid as usize * state.n_slots;
            for slot in op.held_slots() {
                let at = state.unfenced.get(base + slot as usize).copied().unwrap_or(0);
                if at == 0 {
                    continue;
                }
                let access = at as usize - 1;
                let reg = self
                    .code
                    .reg_uses
                    .get(access)
                    .and_then(|u| u.iter().find(|(s, _)| *s == slot))
                    .map_or_else(|| format!("register slot {slot}"), |(_, r)| r.to_string());
                let (line, text) = self.describe(access);
                let message = format!(
                    "queue `wgmma`: the access of {reg} by `{text}` at line {line} races with this wgmma.mma_async, \
                     which takes it as an operand: no wgmma.fence of the thread between them"
                );
                return Err(self.fault(FaultKind::CrossThreadRace, message, lane, pc));
            }
        }
        Ok(())
    }

    /// A new wgmma may name registers an in-flight one holds only as the same accumulators.
    fn check_chain(&self, lead: &Thread<Frame>, wg: usize, op: &DWgmma, pc: usize) -> R<()> {
        let Some(queue) = self.wgmma.as_ref().and_then(|s| s.queues.get(wg)) else { return Ok(()) };
        if !queue.holds_regs {
            return Ok(());
        }
        for (group, m) in queue.in_flight() {
            let Some(other) = self.code.wgmmas.get(m.op as usize) else { continue };
            let held = other.held_slots();
            let chained = other.d == op.d;
            let clash = op.slots().into_iter().find(|s| held.contains(s) && !(chained && op.d.contains(s)));
            if let Some(slot) = clash {
                let reg = self
                    .code
                    .reg_uses
                    .get(pc)
                    .and_then(|u| u.iter().find(|(s, _)| *s == slot))
                    .map_or_else(|| format!("register slot {slot}"), |(_, r)| r.to_string());
                let flight = self.describe_flight(wg, group, m);
                let message = format!(
                    "queue `wgmma`: this wgmma.mma_async names {reg}, which the wgmma.mma_async at line {} holds while \
                     it is pending ({}), and only the same accumulators may chain; {}",
                    flight.line, flight.group, flight.wait
                );
                return Err(self.fault(FaultKind::ReadPendingAsync, message, lead, pc));
            }
        }
        Ok(())
    }

    /// Computes the products of group `at` (an index into the queue) of warpgroup `wg` not
    /// yet computed, into the D registers of `lanes`.
    fn complete_group(&mut self, lanes: &mut [Thread<Frame>], wg: usize, at: usize) -> R<()> {
        let Some(group) = self.wgmma.as_mut().and_then(|s| s.queues.get_mut(wg)).and_then(|q| q.groups.get_mut(at))
        else {
            return Ok(());
        };
        let mmas = std::mem::take(&mut group.mmas);
        let mut computed = Vec::with_capacity(mmas.len());
        let mut result = Ok(());
        for mut m in mmas {
            if !m.done && result.is_ok() {
                result = self.compute(lanes, &m);
                m.done = true;
            }
            computed.push(m);
        }
        if let Some(group) = self.wgmma.as_mut().and_then(|s| s.queues.get_mut(wg)).and_then(|q| q.groups.get_mut(at)) {
            group.mmas = computed;
        }
        result
    }

    /// Retires the oldest group of warpgroup `wg` by the wait at `pc` in barrier epoch
    /// `epoch`: its holds end.
    fn retire_oldest(&mut self, wg: usize, epoch: u32, pc: usize) {
        let Some(state) = self.wgmma.as_mut() else { return };
        let Some(group) = state.queues.get_mut(wg).and_then(|q| q.groups.pop_front()) else { return };
        let release = Release { epoch, owner: wg as u32, site: pc as u32 };
        for m in &group.mmas {
            let e = self.code.wgmmas.get(m.op as usize).map_or(1, |op| op.input.bytes() as usize);
            for addr in m.a_addrs.iter().chain(&m.b_addrs) {
                let start = Self::window_byte(*addr);
                state.held.release(start..start + e, release);
            }
        }
        state.recompute_held_slots(wg, &self.code.wgmmas);
    }

    /// Under a random schedule: completes the oldest incomplete group of each warpgroup of
    /// `threads` with probability 1/2.
    pub(super) fn wgmma_random_step(&mut self, threads: &mut [Thread<Frame>]) -> R<()> {
        let Some(state) = self.wgmma.as_mut() else { return Ok(()) };
        let Some(rng) = state.rng.as_mut() else { return Ok(()) };
        let mut picks = Vec::new();
        for (wg, queue) in state.queues.iter().enumerate() {
            if let Some(at) = queue.groups.iter().position(|g| g.mmas.iter().any(|m| !m.done)) {
                if rng.gen_bool(0.5) {
                    picks.push((wg, at));
                }
            }
        }
        for (wg, at) in picks {
            let start = wg * WARPGROUP;
            if let Some(lanes) = threads.get_mut(start..start + WARPGROUP) {
                self.complete_group(lanes, wg, at)?;
            }
        }
        Ok(())
    }

    /// Faults if a warpgroup of the ending block has a wgmma in flight.
    pub(super) fn wgmma_exit_check(&self, threads: &[Thread<Frame>]) -> R<()> {
        let Some(state) = &self.wgmma else { return Ok(()) };
        for (wg, queue) in state.queues.iter().enumerate() {
            let Some((group, m)) = queue.in_flight().next() else { continue };
            let flight = self.describe_flight(wg, group, m);
            let message = format!(
                "queue `wgmma`: warpgroup {wg} exits with the wgmma.mma_async at line {} ({}) in flight, never waited \
                 for; {}",
                flight.line, flight.group, flight.wait
            );
            let Some(lead) = threads.get(wg * WARPGROUP) else { continue };
            return Err(self.fault(FaultKind::UnwaitedGroup, message, lead, queue.last_wait.unwrap_or(m.pc)));
        }
        Ok(())
    }

    /// D = A * B (+ D) of one instruction, for the 128 threads `lanes`.
    fn compute(&mut self, lanes: &mut [Thread<Frame>], m: &InFlight) -> R<()> {
        let Some(op) = self.code.wgmmas.get(m.op as usize).cloned() else { return Ok(()) };
        let (n, k, e) = (op.n as usize, op.input.k() as usize, u64::from(op.input.bytes()));
        let sign = |negate: bool| if negate { -1.0f32 } else { 1.0 };
        let mut a = vec![0f32; M * k];
        match op.a {
            DWgmmaA::Desc(_) => {
                for (slot, addr) in a.iter_mut().zip(&m.a_addrs) {
                    *slot = widen(op.input, self.shared_value(*addr, e, m.pc)?);
                }
            }
            DWgmmaA::Regs(regs) => {
                for (t, lane) in lanes.iter().enumerate() {
                    for (r, reg) in regs.iter().enumerate() {
                        let bits = self.val(lane, Src::Reg(*reg));
                        let halves = if op.input == WgmmaInput::Tf32 { 1 } else { 2 };
                        for half in 0..halves {
                            let (row, kk) = a_fragment_place(op.input, t, r, half);
                            let value = if halves == 1 { bits } else { bits >> (16 * half) };
                            if let Some(slot) = a.get_mut(row * k + kk) {
                                *slot = widen(op.input, value);
                            }
                        }
                    }
                }
            }
        }
        let mut b = vec![0f32; k * n];
        for (slot, addr) in b.iter_mut().zip(&m.b_addrs) {
            *slot = widen(op.input, self.shared_value(*addr, e, m.pc)?);
        }
        let scale = sign(op.negate_a) * sign(op.negate_b);
        for (t, lane) in lanes.iter_mut().enumerate() {
            for (i, slot) in op.d.iter().enumerate() {
                let (row, col) = d_place(t, i);
                let mut acc = if m.scale_d { f32::from_bits(self.val(lane, Src::Reg(*slot)) as u32) } else { 0.0 };
                for kk in 0..k {
                    acc += scale * a[row * k + kk] * b[kk * n + col];
                }
                Self::set(lane, *slot, u64::from(acc.to_bits()));
            }
        }
        Ok(())
    }

    /// The `bytes`-byte value at shared address `addr` (little-endian), read without checks:
    /// the issue checked the read and the holds kept it unchanged since.
    fn shared_value(&mut self, addr: u64, bytes: u64, pc: usize) -> R<u64> {
        let region = self.shared.iter().find(|r| addr >= r.start && addr + bytes <= r.start + r.bytes).copied();
        let Some(region) = region else {
            return Err(
                self.unsupported_at(pc, format!("a wgmma operand at shared address {addr:#x} outside every array"))
            );
        };
        let storage = self.shared_storages.get(region.slot).copied().unwrap_or(0);
        let mut value = 0u64;
        for i in 0..bytes {
            let off = (addr + i - region.start) as i64;
            let byte = self.mem.storages.get_mut(storage as usize).and_then(|s| s.read(off, None).ok()).unwrap_or(0);
            value |= (byte & 0xFF) << (8 * i);
        }
        Ok(value)
    }
}

/// Whether `op` writes register slot `slot` (its destination).
fn writes_slot(op: &DOp, slot: u32) -> bool {
    match *op {
        DOp::Mov { dst, .. }
        | DOp::Int { dst, .. }
        | DOp::Mad { dst, .. }
        | DOp::MulWide { dst, .. }
        | DOp::MadWide { dst, .. }
        | DOp::Bfe { dst, .. }
        | DOp::Neg { dst, .. }
        | DOp::Pack { dst, .. }
        | DOp::Not { dst, .. }
        | DOp::Float { dst, .. }
        | DOp::Fma { dst, .. }
        | DOp::Cvt { dst, .. }
        | DOp::Setp { dst, .. }
        | DOp::Selp { dst, .. }
        | DOp::LdParam { dst, .. } => dst == slot,
        DOp::Unpack { lo, hi, .. } => lo == slot || hi == slot,
        DOp::Ld { dst, n, .. } => dst.iter().take(usize::from(n)).any(|d| *d == slot),
        DOp::Ldmatrix { dst, count, .. } => dst.iter().take(usize::from(count)).any(|d| *d == slot),
        DOp::Mma { d, .. } => d.contains(&slot),
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn descriptors_decode_their_fields() {
        // Triton's A of a 64x32 f16 tile: 64-byte swizzle, 512 bytes between 8-row groups.
        let d = Descriptor::decode(0x8000_0020_0000_0000 | 0x100);
        assert_eq!(d, Descriptor { start: 0x1000, leading: 0, stride: 512, base_offset: 0, swizzle: Swizzle::B64 });
        assert_eq!(Descriptor::decode(0x4000_0040_0000_0000).swizzle, Swizzle::B128);
        assert_eq!(Descriptor::decode(3 << 62).swizzle, Swizzle::B32);
    }

    #[test]
    fn k_major_swizzled_addresses_xor_the_chunk_with_the_row() {
        let d = Descriptor { start: 0x1000, leading: 0, stride: 1024, base_offset: 0, swizzle: Swizzle::B128 };
        // Row 0: no XOR; row 1, element 0: chunk 0 ^ 1 = chunk 1 of the second 128-byte row.
        assert_eq!(d.address(0, 3, 2, false), Some(0x1000 + 6));
        assert_eq!(d.address(1, 0, 2, false), Some(0x1000 + 128 + 16));
        // Row 9: the second 8-row group (stride), row 1 of it: chunk 1 XOR 1 is chunk 0.
        assert_eq!(d.address(9, 8, 2, false), Some(0x1000 + 1024 + 128));
        // The none swizzle: 8x16-byte core matrices, K steps of 16 bytes by the leading offset.
        let d = Descriptor { start: 0x1000, leading: 256, stride: 128, base_offset: 0, swizzle: Swizzle::None };
        assert_eq!(d.address(9, 9, 2, false), Some(0x1000 + 16 + 128 + 2 + 256));
    }

    #[test]
    fn mn_major_swizzled_addresses_run_along_mn() {
        let d = Descriptor { start: 0x2000, leading: 8192, stride: 1024, base_offset: 0, swizzle: Swizzle::B128 };
        // N 0..63 of one K row are one 128-byte row; K row 1 is the next, XORed by 1.
        assert_eq!(d.address(5, 0, 2, true), Some(0x2000 + 10));
        assert_eq!(d.address(5, 1, 2, true), Some(0x2000 + 128 + (10 ^ 16)));
        // K 8 starts the next 8-row group (stride); N 64 the next atom along N (leading).
        assert_eq!(d.address(0, 8, 2, true), Some(0x2000 + 1024));
        assert_eq!(d.address(64, 0, 2, true), Some(0x2000 + 8192));
        assert_eq!(Descriptor { swizzle: Swizzle::None, ..d }.address(0, 0, 2, true), None);
        assert_eq!(Descriptor { base_offset: 1, ..d }.address(0, 0, 2, true), None);
    }

    #[test]
    fn fragments_follow_the_isa_layout() {
        // Thread 37: warp 1, lane 5: group 1, pair 1.
        assert_eq!(d_place(37, 0), (17, 2));
        assert_eq!(d_place(37, 3), (25, 3));
        assert_eq!(d_place(37, 5), (17, 11));
        assert_eq!(a_fragment_place(WgmmaInput::F16, 37, 0, 1), (17, 3));
        assert_eq!(a_fragment_place(WgmmaInput::F16, 37, 3, 0), (25, 10));
        assert_eq!(a_fragment_place(WgmmaInput::Tf32, 37, 2, 0), (17, 5));
    }

    #[test]
    fn inputs_widen_exactly() {
        assert_eq!(widen(WgmmaInput::F16, 0x3C00), 1.0);
        assert_eq!(widen(WgmmaInput::Bf16, 0xBF80), -1.0);
        assert_eq!(widen(WgmmaInput::Tf32, u64::from(1.0f32.to_bits() | 0x1FFF)), 1.0);
    }
}
