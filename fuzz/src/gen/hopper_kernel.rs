//! Hopper (`.target sm_90a`) pipelined kernels with a known verdict: the `ptx` fuzz target's
//! Hopper shapes, and a differential check of the emulator's TMA, mbarrier and bulk store
//! queue models.
//!
//! A kernel is one block of 128 threads (one warpgroup). A host tensor map describes a small
//! global f32 tensor of 8 columns and `8 * TRIPS` rows; iteration `i` (of `TRIPS`, 1..=6) loads
//! its 8 x 8 box (rows `8i..8i+8`, 256 bytes) by `cp.async.bulk.tensor.2d` into slot
//! `i % STAGES` (`STAGES` 1..=4) of shared memory, issued by thread 0 after its
//! `mbarrier.arrive.expect_tx` on the slot's mbarrier (one arrival expected). The code is a
//! software pipeline, written unrolled: a prologue issues the first `min(STAGES, TRIPS)`
//! loads; iteration `i` waits on slot `i % STAGES`'s mbarrier with parity `(i / STAGES) % 2` (a
//! `try_wait.parity` spin loop in an inline-assembly block), every thread `t` reads element
//! `t % 64` of the slot and adds it to its sum, then, when load `i + STAGES` exists, a
//! `bar.sync` (every consumer done with the slot) precedes its issue into the same slot. At the
//! end every thread stores its sum to `out[t]`: directly, or (sometimes) into a shared staging
//! tile that thread 0 stores through a second host map and the bulk queue (`fence.proxy.async`,
//! `bar.sync`, `cp.async.bulk.tensor.2d...bulk_group`, `commit_group`, `wait_group.read 0`,
//! `wait_group 0`).
//!
//! The verdict rule: a kernel is [`HopperVerdict::Safe`] when every wait the pipeline needs is
//! there; then `out[t]` is the exact sum over `i` of `a[64i + t % 64]` (small integers, exact
//! in f32) under every schedule and thread order. It is [`HopperVerdict::Racy`] when exactly one
//! needed wait is broken ([`HopperBreak`]): an mbarrier wait skipped or on the wrong parity
//! (the slot is read while its copy is pending), the barrier before a refill dropped (thread 0's
//! copy overwrites a slot other consumers have not read), or, with the bulk store, the barrier
//! before it dropped (its source read before the other threads wrote it) or its final
//! `wait_group 0` dropped (the thread exits with the store in flight). A racy kernel must fault
//! under the lazy schedule, naming the queue or barrier involved.

use std::fmt::Write as _;

use arbitrary::{Result, Unstructured};
use tirproof_ir::{DataType, TypeCode};
use tirproof_machine::Tensor;
use tirproof_ptx::emu::tensormap::HostTensorMap;
use tirproof_ptx::emu::KernelArg;

use super::PtxCase;

/// Threads of the block: one warpgroup.
pub const HOPPER_THREADS: usize = 128;
/// Elements of one box (8 x 8 f32) and its bytes.
const BOX_ELEMENTS: usize = 64;
const BOX_BYTES: usize = BOX_ELEMENTS * 4;
/// Where the slots start in the shared array (after the mbarriers), and the staging tile.
const SLOTS_OFFSET: usize = 1024;
const STAGING_OFFSET: usize = 2048;
/// Bytes of the shared array.
const SHARED_BYTES: usize = 4096;

/// What a generated Hopper kernel must do on the emulator.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum HopperVerdict {
    /// Runs clean and equal to the expected output under every schedule and thread order.
    Safe,
    /// Faults under the lazy schedule because of the one broken wait.
    Racy(HopperBreak),
}

/// The one wait a racy kernel breaks.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum HopperBreak {
    /// Iteration `iter` reads its slot without waiting on the slot's mbarrier.
    SkippedMbarrierWait { iter: usize },
    /// Iteration `iter` waits on the wrong parity (returns at once, before its copy lands).
    WrongParity { iter: usize },
    /// No `bar.sync` between iteration `iter`'s consumers and the refill of its slot.
    MissingRefillBarrier { iter: usize },
    /// No `bar.sync` between the threads' writes of the staging tile and its bulk store.
    MissingStoreBarrier,
    /// The bulk store's `cp.async.bulk.wait_group 0` is dropped.
    MissingBulkWait,
}

impl HopperBreak {
    /// Words the lazy fault's message must contain (the queue and the wait involved).
    pub fn fault_words(self) -> &'static [&'static str] {
        match self {
            Self::SkippedMbarrierWait { .. } | Self::WrongParity { .. } => &["cp.async.bulk.tensor", "TMA", "mbarrier"],
            Self::MissingRefillBarrier { .. } => &["mbarrier"],
            Self::MissingStoreBarrier => &["bulk"],
            Self::MissingBulkWait => &["bulk"],
        }
    }
}

/// A generated Hopper kernel with its verdict and, for a safe one, the expected `out`.
#[derive(Clone, Debug)]
pub struct HopperCase {
    pub case: PtxCase,
    pub stages: usize,
    pub trips: usize,
    pub bulk_store: bool,
    pub verdict: HopperVerdict,
    /// `out` (parameter 1) after a clean run: one f32 per thread.
    pub expected: Vec<f64>,
}

/// Index of the output buffer among the kernel's arguments.
pub const HOPPER_OUT_PARAM: usize = 1;

/// The input tensor's element `index` (small integers, every sum exact in f32).
fn input_value(index: usize, salt: usize) -> f64 {
    ((index * 5 + salt) % 7) as f64 - 3.0
}

/// A generated Hopper pipeline kernel (see the module doc), racy one time in two.
pub fn hopper_kernel(u: &mut Unstructured) -> Result<HopperCase> {
    let stages = u.int_in_range(1..=4usize)?;
    let trips = u.int_in_range(1..=6usize)?;
    let bulk_store = u.arbitrary::<bool>()?;
    let salt = u.int_in_range(0..=6usize)?;
    let mut breaks = Vec::new();
    for iter in 0..trips {
        breaks.push(HopperBreak::SkippedMbarrierWait { iter });
        breaks.push(HopperBreak::WrongParity { iter });
        if iter + stages < trips {
            breaks.push(HopperBreak::MissingRefillBarrier { iter });
        }
    }
    if bulk_store {
        breaks.push(HopperBreak::MissingStoreBarrier);
        breaks.push(HopperBreak::MissingBulkWait);
    }
    let verdict = if u.arbitrary::<bool>()? { HopperVerdict::Racy(*u.choose(&breaks)?) } else { HopperVerdict::Safe };
    let broken = match verdict {
        HopperVerdict::Racy(b) => Some(b),
        HopperVerdict::Safe => None,
    };
    let text = kernel_text(stages, trips, bulk_store, broken);
    let rows = 8 * trips;
    let a: Vec<f64> = (0..rows * 8).map(|i| input_value(i, salt)).collect();
    let expected: Vec<f64> = (0..HOPPER_THREADS)
        .map(|t| (0..trips).map(|i| a[i * BOX_ELEMENTS + t % BOX_ELEMENTS]).sum())
        .collect();
    let buffer = |values: &[f64]| {
        Tensor::from_f64(DataType::FLOAT32, vec![values.len()], values).map_err(|_| arbitrary::Error::IncorrectFormat)
    };
    let a_map = HostTensorMap {
        buffer_param: 0,
        elemtype: 7,
        dims: vec![8, rows as u64],
        strides: vec![32],
        box_dims: vec![8, 8],
        swizzle: 0,
    };
    // `out` as 4 rows of 32 f32, one box: thread t's sum at row t / 32, column t % 32.
    let out_map = HostTensorMap {
        buffer_param: 1,
        elemtype: 7,
        dims: vec![32, 4],
        strides: vec![128],
        box_dims: vec![32, 4],
        swizzle: 0,
    };
    let args = vec![
        KernelArg::Buffer(buffer(&a)?),
        KernelArg::Buffer(buffer(&vec![0.0; HOPPER_THREADS])?),
        KernelArg::Buffer(map_tensor(&a_map)?),
        KernelArg::Buffer(map_tensor(&out_map)?),
    ];
    Ok(HopperCase { case: PtxCase { text, args }, stages, trips, bulk_store, verdict, expected })
}

/// The 128 bytes of a host tensor map, as the argument of its `.b8 [128]` parameter.
fn map_tensor(map: &HostTensorMap) -> Result<Tensor> {
    let bytes = map.encode().map_err(|_| arbitrary::Error::IncorrectFormat)?;
    Tensor::from_bits(DataType::new(TypeCode::UInt, 8, 1), vec![128], bytes.iter().map(|b| u64::from(*b)).collect())
        .map_err(|_| arbitrary::Error::IncorrectFormat)
}

/// The kernel's text; `broken` drops or alters the one wait it names.
fn kernel_text(stages: usize, trips: usize, bulk_store: bool, broken: Option<HopperBreak>) -> String {
    let mut body = String::new();
    let issue = |body: &mut String, load: usize| {
        let slot = load % stages;
        let _ = writeln!(
            body,
            "\tadd.s32 %r3, %r1, {mbar};\n\tadd.s32 %r2, %r1, {dst};\n\tmov.b32 %r6, {row};\n\
             \t@!%p1 mbarrier.arrive.expect_tx.shared::cta.b64 _, [%r3], {BOX_BYTES};\n\
             \t@!%p1 cp.async.bulk.tensor.2d.shared::cta.global.mbarrier::complete_tx::bytes [%r2], [%rd1, {{%r5, %r6}}], [%r3];",
            mbar = 8 * slot,
            dst = SLOTS_OFFSET + BOX_BYTES * slot,
            row = 8 * load,
        );
    };
    for slot in 0..stages {
        let _ = writeln!(body, "\tadd.s32 %r3, %r1, {};\n\t@!%p1 mbarrier.init.shared::cta.b64 [%r3], 1;", 8 * slot);
    }
    body.push_str("\tbar.sync 0;\n");
    // Prologue: the first loads, one per slot.
    for load in 0..stages.min(trips) {
        issue(&mut body, load);
    }
    for iter in 0..trips {
        let slot = iter % stages;
        let parity = (iter / stages) % 2;
        let _ = writeln!(body, "\t// iteration {iter}: slot {slot}, parity {parity}\n\tadd.s32 %r3, %r1, {};", 8 * slot);
        match broken {
            Some(HopperBreak::SkippedMbarrierWait { iter: i }) if i == iter => {}
            _ => {
                let parity = if broken == Some(HopperBreak::WrongParity { iter }) { 1 - parity } else { parity };
                let _ = writeln!(
                    body,
                    "\t{{\n\t.reg .pred complete;\n\twaitLoop:\n\
                     \tmbarrier.try_wait.parity.shared::cta.b64 complete, [%r3], {parity};\n\
                     \t@!complete bra.uni waitLoop;\n\t}}"
                );
            }
        }
        let _ = writeln!(
            body,
            "\tadd.s32 %r2, %r1, {};\n\tadd.s32 %r2, %r2, %r4;\n\tld.shared.f32 %f1, [%r2];\n\tadd.f32 %f0, %f0, %f1;",
            SLOTS_OFFSET + BOX_BYTES * slot
        );
        if iter + stages < trips {
            if broken != Some(HopperBreak::MissingRefillBarrier { iter }) {
                body.push_str("\tbar.sync 0;\n");
            }
            issue(&mut body, iter + stages);
        }
    }
    if bulk_store {
        let _ = writeln!(
            body,
            "\tadd.s32 %r7, %r1, {STAGING_OFFSET};\n\tshl.b32 %r8, %r0, 2;\n\tadd.s32 %r8, %r7, %r8;\n\
             \tst.shared.f32 [%r8], %f0;\n\tfence.proxy.async.shared::cta;"
        );
        if broken != Some(HopperBreak::MissingStoreBarrier) {
            body.push_str("\tbar.sync 0;\n");
        }
        body.push_str(
            "\t@!%p1 cp.async.bulk.tensor.2d.global.shared::cta.bulk_group [%rd2, {%r5, %r5}], [%r7];\n\
             \tcp.async.bulk.commit_group;\n\tcp.async.bulk.wait_group.read 0;\n",
        );
        if broken != Some(HopperBreak::MissingBulkWait) {
            body.push_str("\tcp.async.bulk.wait_group 0;\n");
        }
    } else {
        body.push_str(
            "\tld.param.u64 %rd3, [k_out];\n\tmul.wide.u32 %rd4, %r0, 4;\n\tadd.s64 %rd4, %rd3, %rd4;\n\
             \tst.global.f32 [%rd4], %f0;\n",
        );
    }
    format!(
        ".version 8.6\n.target sm_90a\n.address_size 64\n\n// launch: grid 1, 1, 1\n.visible .entry k(\n\
         \t.param .u64 k_a,\n\t.param .u64 k_out,\n\t.param .align 64 .b8 k_amap[128],\n\
         \t.param .align 64 .b8 k_omap[128]\n)\n.reqntid {HOPPER_THREADS}, 1, 1\n{{\n\
         \t.reg .pred %p<4>;\n\t.reg .b32 %r<12>;\n\t.reg .b64 %rd<8>;\n\t.reg .f32 %f<4>;\n\
         \t.shared .align 1024 .b8 smem[{SHARED_BYTES}];\n\n\
         \tmov.u32 %r0, %tid.x;\n\tmov.u32 %r1, smem;\n\tsetp.ne.s32 %p1, %r0, 0;\n\
         \tand.b32 %r4, %r0, {mask};\n\tshl.b32 %r4, %r4, 2;\n\tmov.b32 %r5, 0;\n\
         \tmov.b64 %rd1, k_amap;\n\tmov.b64 %rd2, k_omap;\n\tmov.f32 %f0, 0f00000000;\n\
         {body}\tret;\n}}\n",
        mask = BOX_ELEMENTS - 1,
    )
}
