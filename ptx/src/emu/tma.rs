//! Hopper's asynchronous tensor-memory instructions in the emulator: warp election and warp
//! barriers, mbarriers (`mbarrier.rs`), the Tensor Memory Accelerator's bulk tensor copies
//! through tensor maps (`tensormap.rs`) and the bulk async-group queue of tensor stores.
//!
//! The model (docs/ptx.md, "Hopper: TMA, mbarrier and the bulk store queue"):
//! - A TMA load (`cp.async.bulk.tensor` global to shared) reads its box from global memory when
//!   issued (elements outside the tensor read as zero) and makes every destination byte pending
//!   (the machine's pending writes: touching one before it lands is a fault that names this
//!   copy). It lands on its mbarrier: its bytes complete the barrier's transaction count. Lazy:
//!   copies land only when a wait on their barrier could otherwise never succeed (all arrivals
//!   in, and the copies in flight, oldest first, are exactly the bytes still expected); eager:
//!   at issue; random: at issue or lazily, by a coin of the seed.
//! - A landed copy's bytes are visible to a thread once that thread observed the completion of
//!   the phase the copy counted towards (a `try_wait`/`test_wait` that returned true), or after
//!   a block barrier that some observing thread passed. Other accesses are faults naming the
//!   copy, its mbarrier and phase, and the thread's last wait. For the race detector the copy
//!   is the issuing thread's asynchronous write until it lands (its issue is checked against
//!   every earlier access); once landed, the observation rule above orders it instead.
//! - `try_wait` on a phase that cannot complete yet suspends the thread (a spin loop's only
//!   way out); when no thread of the block can make progress, the wait is a deadlock fault.
//! - A TMA store (`cp.async.bulk.tensor` shared to global, `.bulk_group`) joins its thread's
//!   bulk queue; `cp.async.bulk.commit_group` makes a group of the stores since the last one.
//!   Its shared source is read when `cp.async.bulk.wait_group.read` (or `wait_group`) retires
//!   its group (eager: at commit); writing the source before that is a fault naming the store
//!   and the queue. Its global destination elements are pending from issue until
//!   `cp.async.bulk.wait_group` (without `.read`) retires the group. A group holding stores
//!   in flight when its thread exits is a finding; an empty one is not.
//! - Tensor maps are 128 bytes of our encoding (`tensormap.rs`): `tensormap.replace` writes a
//!   field and marks it set; `tensormap.cp_fenceproxy` (a warp collective) copies a map from
//!   shared to global memory. The writes of a map in shared memory and the collective's read
//!   of it are not tracked for races between lanes (Triton's lanes zero a map and one lane
//!   fills it between `bar.warp.sync`s, which order lanes of a warp but not the race model's
//!   barrier intervals); pending writes and never-written bytes are still faults.
//! - `elect.sync` elects lane 0 of a full mask; `bar.warp.sync` is a rendezvous of the warp's
//!   32 lanes (other masks are not modelled). Neither orders memory for the race detector.
//!
//! Invariants: nothing here panics; every fault names the instruction and the thread; what the
//! model does not cover is `EmuError::UnsupportedAt`.

use std::collections::{HashMap, VecDeque};

use tirproof_machine::fault::FaultKind;
use tirproof_machine::memory::{AccessError, GroupRef, Pending};
use tirproof_machine::thread::Thread;
use tirproof_machine::value::{norm, Num};
use tirproof_machine::Schedule;

use super::alu::mask;
use super::decode::{DAddr, Decoder, Src};
use super::mbarrier::Mbarrier;
use super::tensormap::{self, TensorMap, MAP_BYTES};
use super::{EmuError, Emulator, Frame, Region, Suspend, R};
use crate::module::{Kernel, MbarrierOp, StateSpace, TensormapField, TensormapSpace, TmaOp, Ty, WaitKind, WaitOn};
use tirproof_machine::memory::Memory;

/// The queue id in the machine's pending records of a TMA load's destination bytes.
pub(super) const TMA_QUEUE: i64 = -0x7A;
/// The queue id in the pending records of a bulk tensor store's destination elements.
pub(super) const BULK_QUEUE: i64 = -0x7B;

/// A decoded instruction of this module.
#[derive(Clone, Copy, Debug)]
pub(super) enum DTma {
    Elect { dst: Option<u32>, pred: u32, mask: Src },
    WarpSync { mask: Src },
    Init { addr: DAddr, count: Src },
    Inval { addr: DAddr },
    Arrive { state: Option<u32>, addr: DAddr, count: Option<Src>, tx: Option<Src> },
    Tx { complete: bool, addr: DAddr, tx: Src },
    Wait { test: bool, parity: bool, dst: u32, addr: DAddr, phase: Src },
    Load { dst: DAddr, tmap: DAddr, dims: u8, coords: [Src; 5], mbar: DAddr },
    Store { tmap: DAddr, dims: u8, coords: [Src; 5], src: DAddr },
    Commit,
    WaitGroup { n: u32, read: bool },
    Replace { field: TensormapField, shared: bool, addr: DAddr, ordinal: u32, value: Src },
    MapCopy { dst: DAddr, src: DAddr },
    Fence,
}

impl Decoder<'_> {
    fn coords(&self, coords: &[crate::module::Operand]) -> Result<[Src; 5], EmuError> {
        let mut out = [Src::Imm(0); 5];
        for (slot, c) in out.iter_mut().zip(coords) {
            *slot = self.src(c, Ty::S32)?;
        }
        Ok(out)
    }

    pub(super) fn tma(&self, op: &TmaOp) -> Result<DTma, EmuError> {
        Ok(match op {
            TmaOp::ElectSync { dst, pred, mask } => {
                DTma::Elect { dst: dst.map(|r| self.slot(r)), pred: self.slot(*pred), mask: self.src(mask, Ty::B32)? }
            }
            TmaOp::BarWarpSync { mask } => DTma::WarpSync { mask: self.src(mask, Ty::B32)? },
            TmaOp::CvtaToGeneric { .. } => {
                return Err(EmuError::Unsupported("cvta.global is decoded as a move".into()));
            }
            TmaOp::Mbarrier(m) => match m {
                MbarrierOp::Init { addr, count } => {
                    DTma::Init { addr: self.addr(addr)?, count: self.src(count, Ty::B32)? }
                }
                MbarrierOp::Inval { addr } => DTma::Inval { addr: self.addr(addr)? },
                MbarrierOp::Arrive { state, addr, count, expect_tx } => DTma::Arrive {
                    state: state.map(|r| self.slot(r)),
                    addr: self.addr(addr)?,
                    count: count.as_ref().map(|c| self.src(c, Ty::B32)).transpose()?,
                    tx: expect_tx.as_ref().map(|c| self.src(c, Ty::B32)).transpose()?,
                },
                MbarrierOp::Tx { complete, addr, tx } => {
                    DTma::Tx { complete: *complete, addr: self.addr(addr)?, tx: self.src(tx, Ty::B32)? }
                }
                MbarrierOp::Wait { kind, on, dst, addr, phase } => DTma::Wait {
                    test: *kind == WaitKind::Test,
                    parity: *on == WaitOn::Parity,
                    dst: self.slot(*dst),
                    addr: self.addr(addr)?,
                    phase: self.src(phase, if *on == WaitOn::Parity { Ty::B32 } else { Ty::B64 })?,
                },
            },
            TmaOp::LoadTensor { dst, src, mbar, .. } => DTma::Load {
                dst: self.addr(dst)?,
                tmap: self.addr(&src.tmap)?,
                dims: src.coords.len() as u8,
                coords: self.coords(&src.coords)?,
                mbar: self.addr(mbar)?,
            },
            TmaOp::StoreTensor { dst, src } => DTma::Store {
                tmap: self.addr(&dst.tmap)?,
                dims: dst.coords.len() as u8,
                coords: self.coords(&dst.coords)?,
                src: self.addr(src)?,
            },
            TmaOp::BulkCommit => DTma::Commit,
            TmaOp::BulkWait { n, read } => DTma::WaitGroup { n: *n, read: *read },
            TmaOp::TensormapReplace { field, space, addr, ordinal, value } => {
                let ty = if field.value_bits() == 64 { Ty::B64 } else { Ty::B32 };
                DTma::Replace {
                    field: *field,
                    shared: *space == TensormapSpace::SharedCta,
                    addr: self.addr(addr)?,
                    ordinal: ordinal.unwrap_or(0),
                    value: self.src(value, ty)?,
                }
            }
            TmaOp::TensormapCopy { dst, src } => DTma::MapCopy { dst: self.addr(dst)?, src: self.addr(src)? },
            TmaOp::FenceTensormap { .. } => DTma::Fence,
        })
    }
}

/// A TMA load in flight.
#[derive(Clone, Debug)]
struct LoadCopy {
    id: u32,
    mbar: u64,
    pc: usize,
    thread: u32,
    storage: u32,
    /// Destination byte index in the storage, and the byte.
    bytes: Vec<(usize, u8)>,
    /// The destination's shared address range.
    lo: u64,
    hi: u64,
}

/// A landed TMA load some thread may not see yet.
#[derive(Clone, Copy, Debug)]
struct Landed {
    mbar: u64,
    /// The phase its bytes counted towards.
    phase: u32,
    lo: u64,
    hi: u64,
    pc: usize,
}

/// One element of a bulk tensor store.
#[derive(Clone, Copy, Debug)]
struct StoreElement {
    storage: u32,
    index: usize,
    num: Num,
    /// The shared address of its source bytes.
    src: u64,
}

#[derive(Clone, Debug)]
struct BulkStore {
    pc: usize,
    lo: u64,
    hi: u64,
    element: u64,
    elements: Vec<StoreElement>,
    /// The source values, once read.
    values: Option<Vec<u64>>,
}

#[derive(Clone, Debug, Default)]
struct BulkGroup {
    seq: u32,
    commit_pc: usize,
    stores: Vec<BulkStore>,
    landed: bool,
}

#[derive(Clone, Debug, Default)]
struct BulkQueue {
    uncommitted: Vec<BulkStore>,
    groups: VecDeque<BulkGroup>,
    next_seq: u32,
    last_wait: Option<usize>,
}

/// The state of one block's mbarriers, TMA copies and bulk queues.
#[derive(Debug, Default)]
pub(super) struct TmaBlock {
    mbarriers: HashMap<u64, Mbarrier>,
    in_flight: Vec<LoadCopy>,
    landed: Vec<Landed>,
    /// Per thread: mbarrier address -> phases it has seen complete.
    observed: Vec<HashMap<u64, u32>>,
    /// Per thread: its last mbarrier wait.
    last_wait: Vec<Option<usize>>,
    bulk: Vec<BulkQueue>,
    /// Bulk stores whose source is not read yet.
    unread: usize,
    next_id: u32,
    /// Whether shared accesses must be checked here (landed copies not seen by all, or
    /// store sources not yet read).
    pub(super) watching: bool,
}

impl TmaBlock {
    pub(super) fn new(threads: usize) -> TmaBlock {
        TmaBlock {
            observed: vec![HashMap::new(); threads],
            last_wait: vec![None; threads],
            bulk: vec![BulkQueue::default(); threads],
            ..TmaBlock::default()
        }
    }

    fn update_watching(&mut self) {
        self.watching = !self.landed.is_empty() || self.unread > 0;
    }

    /// A block barrier: landed copies some thread observed are now visible to all.
    pub(super) fn barrier_passed(&mut self) {
        if self.landed.is_empty() {
            return;
        }
        let observed = &self.observed;
        self.landed.retain(|l| !observed.iter().any(|o| o.get(&l.mbar).is_some_and(|seen| *seen > l.phase)));
        self.update_watching();
    }

    /// The shortest prefix of the copies in flight on `mbar` whose bytes are exactly `tx`.
    fn landable(&self, mbar: u64, tx: i64) -> Option<Vec<usize>> {
        if tx <= 0 {
            return None;
        }
        let mut sum = 0i64;
        let mut picked = Vec::new();
        for (k, c) in self.in_flight.iter().enumerate().filter(|(_, c)| c.mbar == mbar) {
            sum += c.bytes.len() as i64;
            picked.push(k);
            if sum == tx {
                return Some(picked);
            }
            if sum > tx {
                return None;
            }
        }
        None
    }

    /// Bytes in flight on `mbar`.
    fn bytes_in_flight(&self, mbar: u64) -> usize {
        self.in_flight.iter().filter(|c| c.mbar == mbar).map(|c| c.bytes.len()).sum()
    }
}

/// Binds the kernel's byte arrays passed by value (host tensor maps): each is global memory
/// of exactly its bytes, named by the parameter (`arrays`), and a map whose `global_address`
/// is a parameter index to relocate gets that buffer's address.
pub(super) fn bind_by_value(
    kernel: &Kernel,
    params: &[u64],
    globals: &[Region<'_>],
    storages: &[u32],
    mem: &mut Memory,
    arrays: &mut HashMap<String, u64>,
) -> Result<(), EmuError> {
    for (index, param) in kernel.params.iter().enumerate() {
        let Some(bytes) = param.array else { continue };
        let address = params.get(index).copied().unwrap_or(0);
        let Some((region, storage)) =
            globals.iter().zip(storages).find(|(r, _)| r.start == address && r.name == param.name)
        else {
            continue;
        };
        if region.unit != 1 || region.bytes != u64::from(bytes) {
            return Err(EmuError::BadArguments(format!(
                "parameter `{}` is {bytes} bytes passed by value: bind a buffer of {bytes} 8-bit elements, not {} bytes \
                 of {}-byte elements",
                param.name, region.bytes, region.unit
            )));
        }
        arrays.insert(param.name.clone(), address);
        let Some(s) = mem.storages.get_mut(*storage as usize) else { continue };
        let byte = |s: &tirproof_machine::memory::Storage, i: u64| {
            s.data.as_slice().get(i as usize).copied().unwrap_or(0) & 0xFF
        };
        let set_at = tensormap::set_offset();
        let set = (0..4).fold(0u64, |acc, k| acc | byte(s, set_at + k) << (8 * k));
        if bytes != tensormap::MAP_BYTES as u32 || set & u64::from(tensormap::RELOCATE) == 0 {
            continue;
        }
        let target = (0..8).fold(0u64, |acc, k| acc | byte(s, k) << (8 * k));
        let buffer = usize::try_from(target)
            .ok()
            .filter(|t| kernel.params.get(*t).is_some_and(|p| p.takes_buffer() && p.array.is_none()))
            .and_then(|t| params.get(t).copied())
            .ok_or_else(|| {
                EmuError::BadArguments(format!(
                    "the tensor map `{}` describes parameter {target}, which is not a buffer parameter",
                    param.name
                ))
            })?;
        let relocated = set & !u64::from(tensormap::RELOCATE);
        let writes = (0..8).map(|k| (k, buffer >> (8 * k))).chain((0..4).map(|k| (set_at + k, relocated >> (8 * k))));
        for (at, value) in writes {
            s.write(at as i64, value & 0xFF, None)
                .map_err(|e| EmuError::BadArguments(format!("the tensor map `{}`: {e:?}", param.name)))?;
        }
    }
    Ok(())
}

/// Whether a pending record is one of this module's (a TMA load or a bulk store).
pub(super) fn owns(p: &Pending) -> bool {
    p.group.is_some_and(|g| g.queue == TMA_QUEUE || g.queue == BULK_QUEUE)
}

/// A coin of the random schedule's seed for copy `id`.
fn coin(seed: u64, id: u32) -> bool {
    let mut z = seed ^ (u64::from(id).wrapping_add(1)).wrapping_mul(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    (z ^ (z >> 31)) & 1 == 1
}

impl<'k> Emulator<'k> {
    /// Whether an async operation issued now lands at once under the schedule.
    fn lands_now(&self, id: u32) -> bool {
        match self.completion.schedule() {
            Schedule::Lazy => false,
            Schedule::Eager => true,
            Schedule::Random(seed) => coin(seed, id),
        }
    }

    fn mbarrier_at(&self, th: &Thread<Frame>, addr: u64, pc: usize) -> R<Mbarrier> {
        match self.tma.mbarriers.get(&addr) {
            Some(m) => Ok(*m),
            None => Err(self.fault(
                FaultKind::ReadPoison,
                format!(
                    "an mbarrier operation on {}, which no mbarrier.init made a barrier",
                    self.place(StateSpace::Shared, addr)
                ),
                th,
                pc,
            )),
        }
    }

    /// Runs instruction `index` of the module's table for `th`; `Some` when the thread stops.
    pub(super) fn tma_step(&mut self, th: &mut Thread<Frame>, index: u32, pc: usize) -> R<Option<Suspend>> {
        let Some(op) = self.code.tma.get(index as usize).copied() else { return Ok(None) };
        let tid = th.tid as usize;
        match op {
            DTma::Elect { .. } | DTma::WarpSync { .. } | DTma::MapCopy { .. } => return Ok(Some(Suspend::Warp(pc))),
            DTma::Fence => {}
            DTma::Init { addr, count } => {
                let a = self.mbarrier_address(th, addr, pc)?;
                let count = self.val(th, count);
                let m = Mbarrier::new(count).map_err(|e| self.fault(FaultKind::OutOfBounds, e.to_string(), th, pc))?;
                self.tma.mbarriers.insert(a, m);
            }
            DTma::Inval { addr } => {
                let a = self.mbarrier_address(th, addr, pc)?;
                self.mbarrier_at(th, a, pc)?;
                if let Some(copy) = self.tma.in_flight.iter().find(|c| c.mbar == a) {
                    let line = self.describe(copy.pc).0;
                    let message = format!(
                        "mbarrier.inval of {} while the cp.async.bulk.tensor at line {line} is in flight on it",
                        self.place(StateSpace::Shared, a)
                    );
                    return Err(self.fault(FaultKind::WritePendingAsync, message, th, pc));
                }
                self.tma.mbarriers.remove(&a);
            }
            DTma::Arrive { state, addr, count, tx } => {
                let a = self.mbarrier_address(th, addr, pc)?;
                let mut m = self.mbarrier_at(th, a, pc)?;
                let count = count.map_or(1, |c| self.val(th, c));
                let tx = tx.map_or(0, |t| self.val(th, t) as i64);
                let token = m
                    .arrive(u32::try_from(count).unwrap_or(u32::MAX), tx)
                    .map_err(|e| self.fault(FaultKind::BarrierDivergence, e.to_string(), th, pc))?;
                self.tma.mbarriers.insert(a, m);
                if let Some(slot) = state {
                    Self::set(th, slot, u64::from(token));
                }
            }
            DTma::Tx { complete, addr, tx } => {
                let a = self.mbarrier_address(th, addr, pc)?;
                let mut m = self.mbarrier_at(th, a, pc)?;
                let bytes = self.val(th, tx) as i64;
                m.transact(if complete { -bytes } else { bytes });
                self.tma.mbarriers.insert(a, m);
            }
            DTma::Wait { test, parity, dst, addr, phase } => {
                let a = self.mbarrier_address(th, addr, pc)?;
                let operand = self.val(th, phase);
                let m = self.mbarrier_at(th, a, pc)?;
                if !m.done(parity, operand) && m.pending == 0 {
                    self.land_on(a)?;
                }
                let m = self.mbarrier_at(th, a, pc)?;
                if let Some(slot) = self.tma.last_wait.get_mut(tid) {
                    *slot = Some(pc);
                }
                if m.done(parity, operand) {
                    if let Some(seen) = self.tma.observed.get_mut(tid) {
                        let entry = seen.entry(a).or_insert(0);
                        *entry = (*entry).max(m.phase);
                    }
                    Self::set(th, dst, 1);
                } else if test {
                    Self::set(th, dst, 0);
                } else {
                    th.frame.pc = pc;
                    return Ok(Some(Suspend::Mbarrier(pc)));
                }
            }
            DTma::Load { dst, tmap, dims, coords, mbar } => self.tma_load(th, (dst, tmap, dims, coords, mbar), pc)?,
            DTma::Store { tmap, dims, coords, src } => self.tma_store(th, tmap, dims, coords, src, pc)?,
            DTma::Commit => {
                let id = self.tma.next_id;
                self.tma.next_id = id.wrapping_add(1);
                let eager = self.lands_now(id);
                let Some(queue) = self.tma.bulk.get_mut(tid) else { return Ok(None) };
                let seq = queue.next_seq;
                queue.next_seq = seq.wrapping_add(1);
                let stores = std::mem::take(&mut queue.uncommitted);
                queue.groups.push_back(BulkGroup { seq, commit_pc: pc, stores, landed: false });
                if eager {
                    let last = queue.groups.len() - 1;
                    self.retire_bulk(th, last, true, pc)?;
                }
            }
            DTma::WaitGroup { n, read } => {
                if let Some(queue) = self.tma.bulk.get_mut(tid) {
                    queue.last_wait = Some(pc);
                }
                let older = self.tma.bulk.get(tid).map_or(0, |q| q.groups.len().saturating_sub(n as usize));
                // `.read`: the older groups' sources are read, the groups stay in flight;
                // without it they complete and leave the queue, oldest first.
                for g in 0..older {
                    let index = if read { g } else { 0 };
                    self.retire_bulk(th, index, !read, pc)?;
                    if !read {
                        if let Some(queue) = self.tma.bulk.get_mut(tid) {
                            queue.groups.pop_front();
                        }
                    }
                }
            }
            DTma::Replace { field, shared, addr, ordinal, value } => {
                let base = self.address(th, addr);
                let value = self.val(th, value);
                self.replace_field(th, base, shared, field, ordinal, value, pc)?;
            }
        }
        Ok(None)
    }

    /// An mbarrier's shared address, which must be 8-byte aligned inside a shared array.
    fn mbarrier_address(&self, th: &Thread<Frame>, addr: DAddr, pc: usize) -> R<u64> {
        let a = self.address(th, addr);
        self.locate(th, StateSpace::Shared, a, 8, pc)?;
        if !a.is_multiple_of(8) {
            let message = format!("an mbarrier at {}, not 8-byte aligned", self.place(StateSpace::Shared, a));
            return Err(self.fault(FaultKind::OutOfBounds, message, th, pc));
        }
        Ok(a)
    }

    /// Under any schedule, lands the copies in flight on `mbar` that complete its phase (all
    /// arrivals are in): the oldest ones whose bytes are exactly those still expected.
    fn land_on(&mut self, mbar: u64) -> R<()> {
        let Some(m) = self.tma.mbarriers.get(&mbar).copied() else { return Ok(()) };
        let Some(picked) = self.tma.landable(mbar, m.tx) else { return Ok(()) };
        for k in picked.into_iter().rev() {
            let copy = self.tma.in_flight.remove(k);
            self.land(copy);
        }
        Ok(())
    }

    /// The bytes of `copy` land; its mbarrier completes their transactions.
    fn land(&mut self, copy: LoadCopy) {
        if let Some(storage) = self.mem.storages.get_mut(copy.storage as usize) {
            for &(i, byte) in &copy.bytes {
                storage.complete(i, u64::from(byte));
                storage.forget_async_write(i, copy.thread);
            }
        }
        let mut phase = 0;
        if let Some(m) = self.tma.mbarriers.get_mut(&copy.mbar) {
            phase = m.phase;
            m.transact(-(copy.bytes.len() as i64));
        }
        self.tma.landed.push(Landed { mbar: copy.mbar, phase, lo: copy.lo, hi: copy.hi, pc: copy.pc });
        self.tma.update_watching();
    }

    /// Reads the tensor map at global address `addr`.
    fn read_map(&mut self, th: &Thread<Frame>, addr: u64, pc: usize) -> R<TensorMap> {
        let mut bytes = [0u8; 128];
        for chunk in 0..MAP_BYTES / 8 {
            let v = self.load(th, StateSpace::Global, addr.wrapping_add(8 * chunk), 8, pc)?;
            for k in 0..8 {
                bytes[(chunk * 8 + k) as usize] = (v >> (8 * k)) as u8;
            }
        }
        TensorMap::decode(&bytes).map_err(|e| match e {
            tensormap::MapError::Unsupported(what) => self.unsupported_at(pc, format!("a tensor map with {what}")),
            other => self.fault(FaultKind::ReadPoison, other.to_string(), th, pc),
        })
    }

    fn coords_of(&self, th: &Thread<Frame>, coords: [Src; 5], dims: u8) -> Vec<i64> {
        coords.iter().take(usize::from(dims)).map(|c| self.val(th, *c) as u32 as i32 as i64).collect()
    }

    /// The map behind a copy, checked against the copy's dimensions.
    fn copy_map(&mut self, th: &Thread<Frame>, tmap: DAddr, dims: u8, pc: usize) -> R<TensorMap> {
        let map_addr = self.address(th, tmap);
        let map = self.read_map(th, map_addr, pc)?;
        if map.rank != usize::from(dims) {
            let message = format!("a {dims}d tensor copy through a tensor map of rank {}", map.rank);
            return Err(self.fault(FaultKind::OutOfBounds, message, th, pc));
        }
        Ok(map)
    }

    fn check_box_alignment(&self, th: &Thread<Frame>, base: u64, pc: usize) -> R<()> {
        if base.is_multiple_of(128) {
            return Ok(());
        }
        let message =
            format!("a tensor copy's shared box at {}, not 128-byte aligned", self.place(StateSpace::Shared, base));
        Err(self.fault(FaultKind::OutOfBounds, message, th, pc))
    }

    fn tma_load(&mut self, th: &mut Thread<Frame>, op: (DAddr, DAddr, u8, [Src; 5], DAddr), pc: usize) -> R<()> {
        let (dst, tmap, dims, coords, mbar) = op;
        let map = self.copy_map(th, tmap, dims, pc)?;
        let coords = self.coords_of(th, coords, dims);
        let base = self.address(th, dst);
        self.check_box_alignment(th, base, pc)?;
        let mbar = self.mbarrier_address(th, mbar, pc)?;
        self.mbarrier_at(th, mbar, pc)?;
        let size = map.box_bytes();
        let (region, storage) = self.locate(th, StateSpace::Shared, base, size, pc)?;
        if self.tma.unread > 0 {
            self.check_store_sources(th, base, size, pc)?;
        }
        // The box must not overwrite what a wgmma in flight still reads, and it is an async-proxy
        // write: the generic writes before it need their writers' fence.proxy.async (emu/wgmma.rs).
        self.check_not_held(th, base, size, "asynchronous copy (cp.async.bulk.tensor)", pc)?;
        let writer = format!("the cp.async.bulk.tensor at line {} (an async-proxy write)", self.describe(pc).0);
        self.async_proxy_read(th, base, size, &writer, pc)?;
        let id = self.tma.next_id;
        self.tma.next_id = id.wrapping_add(1);
        let line = self.describe(pc).0;
        let thread = th.race_thread();
        let group = GroupRef { queue: TMA_QUEUE, seq: id, commit_line: line };
        let race = Self::race(th, pc);
        let mut bytes = Vec::with_capacity(size as usize);
        for (offset, global) in map.elements(&coords) {
            let value = match global {
                Some(g) => self.load(th, StateSpace::Global, g, map.element, pc)?,
                None => 0,
            };
            for k in 0..map.element {
                let at = map.swizzle.apply(base.wrapping_add(offset + k));
                let index = (at - region.start) as usize;
                let pending = Pending { issue_line: line, thread, group: Some(group) };
                let issued = match self.mem.storages.get_mut(storage as usize) {
                    Some(s) => s.issue(index as i64, pending, race.as_ref()),
                    None => Err(AccessError::OutOfStorage { len: 0 }),
                };
                if let Err(e) = issued {
                    // Bytes issued before the failing one stay pending: the run ends here.
                    return Err(self.access_fault(th, e, true, StateSpace::Shared, at, pc));
                }
                bytes.push((index, (value >> (8 * k)) as u8));
            }
        }
        let copy = LoadCopy { id, mbar, pc, thread, storage, bytes, lo: base, hi: base.saturating_add(size) };
        if self.lands_now(id) {
            self.land(copy);
        } else {
            self.tma.in_flight.push(copy);
        }
        Ok(())
    }

    fn tma_store(
        &mut self,
        th: &mut Thread<Frame>,
        tmap: DAddr,
        dims: u8,
        coords: [Src; 5],
        src: DAddr,
        pc: usize,
    ) -> R<()> {
        let map = self.copy_map(th, tmap, dims, pc)?;
        let coords = self.coords_of(th, coords, dims);
        let base = self.address(th, src);
        self.check_box_alignment(th, base, pc)?;
        let size = map.box_bytes();
        self.locate(th, StateSpace::Shared, base, size, pc)?;
        let line = self.describe(pc).0;
        let thread = th.race_thread();
        let tid = th.tid as usize;
        let seq = self.tma.bulk.get(tid).map_or(0, |q| q.next_seq);
        let group = GroupRef { queue: BULK_QUEUE, seq, commit_line: 0 };
        let race = Self::race(th, pc);
        let mut elements = Vec::new();
        for (offset, global) in map.elements(&coords) {
            let Some(g) = global else { continue };
            let (region, storage) = self.locate(th, StateSpace::Global, g, map.element, pc)?;
            if region.unit != map.element {
                let message = format!(
                    "a tensor store of {}-byte elements into buffer `{}` of {}-byte elements",
                    map.element, region.name, region.unit
                );
                return Err(self.unsupported_at(pc, message));
            }
            let index = ((g - region.start) / region.unit) as usize;
            let pending = Pending { issue_line: line, thread, group: Some(group) };
            let issued = match self.mem.storages.get_mut(storage as usize) {
                Some(s) => s.issue(index as i64, pending, race.as_ref()),
                None => Err(AccessError::OutOfStorage { len: 0 }),
            };
            if let Err(e) = issued {
                return Err(self.access_fault(th, e, true, StateSpace::Global, g, pc));
            }
            elements.push(StoreElement {
                storage,
                index,
                num: region.num,
                src: map.swizzle.apply(base.wrapping_add(offset)),
            });
        }
        let store =
            BulkStore { pc, lo: base, hi: base.saturating_add(size), element: map.element, elements, values: None };
        if let Some(queue) = self.tma.bulk.get_mut(tid) {
            queue.uncommitted.push(store);
            self.tma.unread += 1;
            self.tma.update_watching();
        }
        Ok(())
    }

    /// Group `g` of `th`'s bulk queue reads its sources, and with `land` its results land.
    fn retire_bulk(&mut self, th: &mut Thread<Frame>, g: usize, land: bool, pc: usize) -> R<()> {
        let tid = th.tid as usize;
        let Some(mut group) = self.tma.bulk.get_mut(tid).and_then(|q| q.groups.get_mut(g)).map(std::mem::take) else {
            return Ok(());
        };
        let result = self.retire_group(th, &mut group, land, pc);
        if let Some(slot) = self.tma.bulk.get_mut(tid).and_then(|q| q.groups.get_mut(g)) {
            *slot = group;
        }
        result
    }

    fn retire_group(&mut self, th: &mut Thread<Frame>, group: &mut BulkGroup, land: bool, pc: usize) -> R<()> {
        for store in &mut group.stores {
            if store.values.is_none() {
                // The async proxy reads the source: generic writes of it need a fence.proxy.async.
                let reader = format!("the bulk tensor store at line {}", self.describe(store.pc).0);
                self.async_proxy_read(th, store.lo, store.hi - store.lo, &reader, pc)?;
                let mut values = Vec::with_capacity(store.elements.len());
                for e in &store.elements {
                    values.push(self.load(th, StateSpace::Shared, e.src, store.element, pc)?);
                }
                store.values = Some(values);
                self.tma.unread = self.tma.unread.saturating_sub(1);
            }
        }
        if land && !group.landed {
            let thread = th.race_thread();
            let commit_line = self.describe(group.commit_pc).0;
            let gref = GroupRef { queue: BULK_QUEUE, seq: group.seq, commit_line };
            for store in &group.stores {
                let bits = store.element * 8;
                for (e, v) in store.elements.iter().zip(store.values.iter().flatten()) {
                    if let Some(s) = self.mem.storages.get_mut(e.storage as usize) {
                        s.complete(e.index, norm(e.num, mask(*v, bits as u32)));
                        s.set_group(e.index, gref, thread);
                        s.mark_waited(e.index, thread, gref, th.epoch);
                    }
                }
            }
            group.landed = true;
        }
        self.tma.update_watching();
        Ok(())
    }

    /// A write to shared `[addr, addr + size)` while a bulk store still reads it is a fault.
    fn check_store_sources(&self, th: &Thread<Frame>, addr: u64, size: u64, pc: usize) -> R<()> {
        for (owner, queue) in self.tma.bulk.iter().enumerate() {
            let committed = queue.groups.iter().flat_map(|g| g.stores.iter().map(move |s| (s, Some(g))));
            let pending = queue.uncommitted.iter().map(|s| (s, None));
            for (store, group) in committed.chain(pending) {
                if store.values.is_some() || addr >= store.hi || addr.saturating_add(size) <= store.lo {
                    continue;
                }
                let (line, _) = self.describe(store.pc);
                let group = match group {
                    Some(g) => format!("group {} committed at line {}", g.seq, self.describe(g.commit_pc).0),
                    None => "not yet committed".to_string(),
                };
                let waited = match queue.last_wait {
                    Some(w) => {
                        let (l, text) = self.describe(w);
                        format!("; thread {owner}'s last bulk wait was `{text}` at line {l}")
                    }
                    None => format!("; thread {owner} has not waited on its bulk queue"),
                };
                let message = format!(
                    "write of {} while the bulk tensor store at line {line} by thread {owner} still reads it \
                     (bulk async-group queue, {group}): a cp.async.bulk.wait_group.read must retire it first{waited}",
                    self.place(StateSpace::Shared, addr)
                );
                return Err(self.fault(FaultKind::CrossThreadRace, message, th, pc));
            }
        }
        Ok(())
    }

    /// Checks a shared access against landed copies the thread has not observed and store
    /// sources still being read.
    pub(super) fn tma_check_access(&self, th: &Thread<Frame>, addr: u64, size: u64, write: bool, pc: usize) -> R<()> {
        if write && self.tma.unread > 0 {
            self.check_store_sources(th, addr, size, pc)?;
        }
        let tid = th.tid as usize;
        for l in &self.tma.landed {
            if addr >= l.hi || addr.saturating_add(size) <= l.lo {
                continue;
            }
            let seen = self.tma.observed.get(tid).and_then(|o| o.get(&l.mbar)).copied().unwrap_or(0);
            if seen > l.phase {
                continue;
            }
            let what = if write { "write" } else { "read" };
            let line = self.describe(l.pc).0;
            let message = format!(
                "{what} of {} written by the cp.async.bulk.tensor at line {line} (TMA, completing on the mbarrier at \
                 {}), whose phase {} this thread has not observed complete (no mbarrier.try_wait or test_wait of it \
                 returned true for that phase, and no barrier follows one that did){}",
                self.place(StateSpace::Shared, addr),
                self.place(StateSpace::Shared, l.mbar),
                l.phase,
                self.last_wait_note(tid)
            );
            return Err(self.fault(FaultKind::CrossThreadRace, message, th, pc));
        }
        Ok(())
    }

    fn last_wait_note(&self, tid: usize) -> String {
        match self.tma.last_wait.get(tid).copied().flatten() {
            Some(w) => {
                let (line, text) = self.describe(w);
                format!("; this thread's last mbarrier wait was `{text}` at line {line}")
            }
            None => "; this thread has not waited on an mbarrier".to_string(),
        }
    }

    /// The message of an access to a byte or element one of this module's copies has pending.
    pub(super) fn tma_pending_message(&self, p: &Pending, what: &str, place: &str, th: &Thread<Frame>) -> String {
        let Some(group) = p.group else { return String::new() };
        let tid = th.tid as usize;
        if group.queue == TMA_QUEUE {
            let copy = self.tma.in_flight.iter().find(|c| c.id == group.seq);
            let barrier = match copy.and_then(|c| self.tma.mbarriers.get(&c.mbar).map(|m| (c, m))) {
                Some((c, m)) => format!(
                    "it lands when the mbarrier at {} completes phase {} ({} arrivals and {} transaction bytes still \
                     expected, {} bytes of copies in flight)",
                    self.place(StateSpace::Shared, c.mbar),
                    m.phase,
                    m.pending,
                    m.tx,
                    self.tma.bytes_in_flight(c.mbar)
                ),
                None => "its mbarrier is gone".to_string(),
            };
            return format!(
                "{what} of {place} while the cp.async.bulk.tensor at line {} by thread {} (queue TMA) to it is \
                 pending: {barrier}, and no mbarrier wait of this thread observed that{}",
                p.issue_line,
                p.thread,
                self.last_wait_note(tid)
            );
        }
        let waited = match self.tma.bulk.get(p.thread as usize).and_then(|q| q.last_wait) {
            Some(w) => {
                let (line, text) = self.describe(w);
                format!("; the issuing thread's last bulk wait was `{text}` at line {line}")
            }
            None => "; the issuing thread has not waited on its bulk queue".to_string(),
        };
        format!(
            "{what} of {place} while the bulk tensor store at line {} by thread {} (bulk async-group queue) to it is \
             pending: its results land when cp.async.bulk.wait_group (not .read) retires its group{waited}",
            p.issue_line, p.thread
        )
    }

    /// Whether the mbarrier wait at `pc` in `th` would now complete.
    fn wait_ready(&self, th: &Thread<Frame>, pc: usize) -> bool {
        let Some(super::decode::DOp::Tma(index)) = self.code.insts.get(pc).map(|i| i.op) else { return true };
        let Some(DTma::Wait { parity, addr, phase, .. }) = self.code.tma.get(index as usize).copied() else {
            return true;
        };
        let a = self.address(th, addr);
        let Some(m) = self.tma.mbarriers.get(&a) else { return true };
        m.done(parity, self.val(th, phase)) || (m.pending == 0 && self.tma.landable(a, m.tx).is_some())
    }

    /// Threads suspended at an mbarrier wait that can now complete run again; true if any.
    pub(super) fn tma_resume(&self, threads: &[Thread<Frame>], statuses: &mut [Suspend]) -> bool {
        let mut resumed = false;
        for (t, status) in threads.iter().zip(statuses.iter_mut()) {
            if let Suspend::Mbarrier(pc) = *status {
                if self.wait_ready(t, pc) {
                    *status = Suspend::Running;
                    resumed = true;
                }
            }
        }
        resumed
    }

    /// The fault of a wait no thread can complete.
    pub(super) fn tma_deadlock(&self, th: &Thread<Frame>, pc: usize) -> super::Stop {
        let state = self.code.insts.get(pc).and_then(|i| match i.op {
            super::decode::DOp::Tma(index) => match self.code.tma.get(index as usize) {
                Some(DTma::Wait { addr, .. }) => {
                    let a = self.address(th, *addr);
                    self.tma.mbarriers.get(&a).map(|m| (a, *m))
                }
                _ => None,
            },
            _ => None,
        });
        let message = match state {
            Some((a, m)) => format!(
                "deadlock: the mbarrier wait can never complete: the mbarrier at {} is in phase {} with {} of {} \
                 arrivals missing and {} transaction bytes outstanding ({} bytes of copies in flight on it), and no \
                 thread of the block can make progress",
                self.place(StateSpace::Shared, a),
                m.phase,
                m.pending,
                m.expected,
                m.tx,
                self.tma.bytes_in_flight(a)
            ),
            None => "deadlock: an mbarrier wait no thread can complete".to_string(),
        };
        self.fault(FaultKind::BarrierDivergence, message, th, pc)
    }

    /// At the end of a block: copies and stores still in flight are findings.
    pub(super) fn tma_block_end(&mut self, threads: &[Thread<Frame>]) -> R<()> {
        if let Some(copy) = self.tma.in_flight.first() {
            let (line, _) = self.describe(copy.pc);
            let th = threads.iter().find(|t| t.race_thread() == copy.thread).or(threads.first());
            let message = format!(
                "the block ends with the cp.async.bulk.tensor at line {line} in flight (TMA): no wait completed the \
                 phase of its mbarrier at {}",
                self.place(StateSpace::Shared, copy.mbar)
            );
            if let Some(th) = th {
                return Err(self.fault(FaultKind::UnwaitedGroup, message, th, copy.pc));
            }
        }
        for (tid, th) in threads.iter().enumerate() {
            let Some(queue) = self.tma.bulk.get(tid) else { continue };
            let left = queue
                .uncommitted
                .first()
                .map(|s| format!("the bulk tensor store at line {} never committed", self.describe(s.pc).0))
                .or_else(|| {
                    queue.groups.iter().find(|g| !g.stores.is_empty()).map(|g| {
                        format!(
                            "bulk group {} (committed at line {}, holding the store at line {}) never waited for by \
                             cp.async.bulk.wait_group",
                            g.seq,
                            self.describe(g.commit_pc).0,
                            g.stores.first().map_or(0, |s| self.describe(s.pc).0)
                        )
                    })
                });
            if let Some(what) = left {
                let pc = self.code.insts.len().saturating_sub(1);
                return Err(self.fault(FaultKind::UnwaitedGroup, format!("the thread exits with {what}"), th, pc));
            }
        }
        Ok(())
    }

    /// `tensormap.replace`: writes one field of the map at `base` and marks it set.
    #[expect(clippy::too_many_arguments, reason = "one field write: its map, place, field and value")]
    fn replace_field(
        &mut self,
        th: &Thread<Frame>,
        base: u64,
        shared: bool,
        field: TensormapField,
        ordinal: u32,
        value: u64,
        pc: usize,
    ) -> R<()> {
        if !base.is_multiple_of(64) {
            let space = if shared { StateSpace::Shared } else { StateSpace::Global };
            let message = format!("a tensor map at {}, not 64-byte aligned", self.place(space, base));
            return Err(self.fault(FaultKind::OutOfBounds, message, th, pc));
        }
        let (offset, width) = tensormap::field_place(field, ordinal);
        if width < 8 && value >> (8 * width) != 0 {
            return Err(self.unsupported_at(pc, format!("a tensor map {} of {value}", field.name())));
        }
        let set_at = base.wrapping_add(tensormap::set_offset());
        if shared {
            self.map_bytes_write(th, base.wrapping_add(offset), width, value, pc)?;
            let set = self.map_bytes_read(th, set_at, 4, pc)?;
            self.map_bytes_write(th, set_at, 4, set | u64::from(tensormap::bit(field, ordinal)), pc)?;
        } else {
            for k in 0..width {
                self.store(th, StateSpace::Global, base.wrapping_add(offset + k), 1, value >> (8 * k), pc)?;
            }
            let set = self.load(th, StateSpace::Global, set_at, 4, pc)?;
            self.store(th, StateSpace::Global, set_at, 4, set | u64::from(tensormap::bit(field, ordinal)), pc)?;
        }
        Ok(())
    }

    /// Reads `n` bytes of a tensor map in shared memory, untracked for races (see the module doc).
    fn map_bytes_read(&mut self, th: &Thread<Frame>, addr: u64, n: u64, pc: usize) -> R<u64> {
        let (region, storage) = self.locate(th, StateSpace::Shared, addr, n, pc)?;
        let mut value = 0u64;
        for k in 0..n {
            let index = (addr + k - region.start) as i64;
            let read = match self.mem.storages.get_mut(storage as usize) {
                Some(s) => s.read(index, None),
                None => Ok(0),
            };
            let byte = read.map_err(|e| self.access_fault(th, e, false, StateSpace::Shared, addr + k, pc))?;
            value |= (byte & 0xFF) << (8 * k);
        }
        Ok(value)
    }

    /// Writes `n` bytes of a tensor map in shared memory, untracked for races.
    fn map_bytes_write(&mut self, th: &Thread<Frame>, addr: u64, n: u64, value: u64, pc: usize) -> R<()> {
        let (region, storage) = self.locate(th, StateSpace::Shared, addr, n, pc)?;
        for k in 0..n {
            let index = (addr + k - region.start) as i64;
            let written = match self.mem.storages.get_mut(storage as usize) {
                Some(s) => s.write(index, (value >> (8 * k)) & 0xFF, None),
                None => Ok(()),
            };
            written.map_err(|e| self.access_fault(th, e, true, StateSpace::Shared, addr + k, pc))?;
        }
        Ok(())
    }

    /// The warp-wide instructions of this module, for the 32 `lanes` of a warp.
    pub(super) fn tma_warp(&mut self, lanes: &mut [Thread<Frame>], index: u32, pc: usize) -> R<()> {
        let Some(op) = self.code.tma.get(index as usize).copied() else { return Ok(()) };
        let full =
            |emu: &Self, lanes: &[Thread<Frame>], mask: Src| lanes.iter().all(|l| emu.val(l, mask) == 0xFFFF_FFFF);
        match op {
            DTma::Elect { dst, pred, mask } => {
                if !full(self, lanes, mask) {
                    return Err(self.unsupported_at(pc, "elect.sync with a mask other than every lane".into()));
                }
                for (lane, th) in lanes.iter_mut().enumerate() {
                    if let Some(dst) = dst {
                        Self::set(th, dst, 0);
                    }
                    Self::set(th, pred, u64::from(lane == 0));
                }
            }
            DTma::WarpSync { mask } if !full(self, lanes, mask) => {
                return Err(self.unsupported_at(pc, "bar.warp.sync with a mask other than every lane".into()));
            }
            DTma::MapCopy { dst, src } => {
                let Some(first) = lanes.first() else { return Ok(()) };
                let (to, from) = (self.address(first, dst), self.address(first, src));
                if let Some(other) = lanes.iter().find(|l| self.address(l, dst) != to || self.address(l, src) != from) {
                    let message = "the lanes of the warp give tensormap.cp_fenceproxy different addresses".to_string();
                    return Err(self.fault(FaultKind::BarrierDivergence, message, other, pc));
                }
                if !to.is_multiple_of(64) {
                    let message =
                        format!("a tensor map copied to {}, not 64-byte aligned", self.place(StateSpace::Global, to));
                    return Err(self.fault(FaultKind::OutOfBounds, message, first, pc));
                }
                for chunk in 0..MAP_BYTES / 8 {
                    let v = self.map_bytes_read(first, from.wrapping_add(8 * chunk), 8, pc)?;
                    self.store(first, StateSpace::Global, to.wrapping_add(8 * chunk), 8, v, pc)?;
                }
            }
            _ => {}
        }
        Ok(())
    }
}
