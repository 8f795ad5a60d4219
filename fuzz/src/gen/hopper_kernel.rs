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
//! One kernel in three consumes with `wgmma` instead ([`HopperConsumer::Wgmma`]): every thread
//! first writes 16 bytes of A (64 x 16 f16, the ISA's K-major layout without swizzle) to shared
//! memory, `fence.proxy.async`, `bar.sync`; the map's source is then f16 and each box is one B
//! (16 x 8, 256 bytes in core matrices); iteration `i` issues `wgmma.fence`, a
//! `wgmma.mma_async m64n8k16` through two descriptors (A's, and the slot's as B) accumulating
//! into four registers, `wgmma.commit_group` and `wgmma.wait_group depth` (`depth` 0, or 1 with
//! two slots or more), after which the slot of iteration `i - depth` is free: `bar.sync` and its
//! refill. A final `wgmma.wait_group 0` precedes the store of the accumulators (`out[4t..4t+4]`).
//!
//! The verdict rule: a kernel is [`HopperVerdict::Safe`] when every wait the pipeline needs is
//! there; then `out[t]` is the exact sum over `i` of `a[64i + t % 64]` (small integers, exact
//! in f32) under every schedule and thread order. It is [`HopperVerdict::Racy`] when exactly one
//! needed wait is broken ([`HopperBreak`]): an mbarrier wait skipped or on the wrong parity
//! (the slot is read while its copy is pending), the barrier before a refill dropped (thread 0's
//! copy overwrites a slot other consumers have not read; under the lazy schedule thread 0 may
//! instead run a whole phase ahead, so another thread's wait on that parity is a deadlock:
//! either fault names the mbarrier), or, with the bulk store, the barrier
//! before it dropped (its source read before the other threads wrote it) or its final
//! `wait_group 0` dropped (the thread exits with the store in flight); with `wgmma`, a
//! `wgmma.wait_group` loosened by one where a refill or the final store follows (a copy
//! overwrites B of a product in flight, or its accumulators are read), or A's
//! `fence.proxy.async` dropped. A break that would change nothing (a loosened final wait with
//! nothing in flight) is never drawn. With a `wgmma` consumer the expected `out` is the exact
//! sum over `i` of A x B_i. A racy kernel must fault under the lazy schedule, its message naming
//! the queue and the wait ([`HopperBreak::fault_words`]).

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
    /// The `wgmma.wait_group` of iteration `iter` (`iter == TRIPS`: the final one before the
    /// accumulators are stored) allows one group more than the pipeline needs.
    LoosenedWgmmaWait { iter: usize },
    /// No `fence.proxy.async` between the threads' generic writes of A and the wgmmas reading it.
    MissingProxyFence,
}

/// What the consumers of a slot do.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum HopperConsumer {
    /// Every thread reads one element of the slot and adds it to its sum.
    Loads,
    /// A `wgmma m64n8k16` multiplies A (in shared memory) by the slot (B) into the
    /// accumulators; `depth` (0 or 1) groups stay in flight after each iteration's wait.
    Wgmma { depth: usize },
}

impl HopperBreak {
    /// Words the lazy fault's message must contain (the queue and the wait involved).
    pub fn fault_words(self) -> &'static [&'static str] {
        match self {
            Self::SkippedMbarrierWait { .. } | Self::WrongParity { .. } => {
                &["cp.async.bulk.tensor", "TMA", "mbarrier wait"]
            }
            Self::MissingRefillBarrier { .. } => &["mbarrier", "wait"],
            Self::MissingStoreBarrier => &["bulk", "wait_group.read"],
            Self::MissingBulkWait => &["bulk", "wait_group"],
            Self::LoosenedWgmmaWait { .. } => &["wgmma", "wait_group"],
            Self::MissingProxyFence => &["fence.proxy.async", "wgmma"],
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
    pub consumer: HopperConsumer,
    pub verdict: HopperVerdict,
    /// `out` (parameter 1) after a clean run: one f32 per thread (its sum), or four (its
    /// accumulators, thread t's at `4t..4t+4`).
    pub expected: Vec<f64>,
}

/// Index of the output buffer among the kernel's arguments.
pub const HOPPER_OUT_PARAM: usize = 1;
/// Bytes of A (64 x 16 f16) in shared memory, for the wgmma consumer.
const A_BYTES: usize = 64 * 16 * 2;
/// wgmma descriptors' fields besides the start address (no swizzle, K-major): A's second
/// K-half 1024 bytes on, B's 128, 8-row groups 128 bytes apart.
const A_DESC_FIELDS: u64 = 0x8_0040_0000;
const B_DESC_FIELDS: u64 = 0x8_0008_0000;

/// The input tensor's element `index` (small integers, every sum exact in f32).
fn input_value(index: usize, salt: usize) -> f64 {
    ((index * 5 + salt) % 7) as f64 - 3.0
}

/// A(m, k) and iteration `iter`'s B(k, n) of the wgmma consumer (small integers: every sum
/// of products is exact in f32, in any order).
fn a_value(m: usize, k: usize, salt: usize) -> f64 {
    ((m * 3 + k * 5 + salt) % 5) as f64 - 2.0
}

fn b_value(iter: usize, k: usize, n: usize, salt: usize) -> f64 {
    ((k * 7 + n * 2 + iter * 3 + salt) % 5) as f64 - 2.0
}

fn f16_bits(v: f64) -> u64 {
    // Small integers: exact in f16 (sign, exponent 15 + e, 10 bits of mantissa).
    let sign = if v < 0.0 { 0x8000 } else { 0 };
    let a = v.abs() as u64;
    if a == 0 {
        return sign;
    }
    let e = 63 - a.leading_zeros() as u64;
    sign | (15 + e) << 10 | ((a << 10 >> e) & 0x3ff)
}

/// A generated Hopper pipeline kernel (see the module doc), racy one time in two.
pub fn hopper_kernel(u: &mut Unstructured) -> Result<HopperCase> {
    let stages = u.int_in_range(1..=4usize)?;
    let trips = u.int_in_range(1..=6usize)?;
    // A group left in flight holds its slot: with one slot the next load could never land.
    let consumer = if u.ratio(1, 3)? {
        HopperConsumer::Wgmma { depth: if stages > 1 { u.int_in_range(0..=1usize)? } else { 0 } }
    } else {
        HopperConsumer::Loads
    };
    let bulk_store = consumer == HopperConsumer::Loads && u.arbitrary::<bool>()?;
    let salt = u.int_in_range(0..=6usize)?;
    let mut breaks = Vec::new();
    for iter in 0..trips {
        breaks.push(HopperBreak::SkippedMbarrierWait { iter });
        breaks.push(HopperBreak::WrongParity { iter });
        match consumer {
            HopperConsumer::Loads if iter + stages < trips => breaks.push(HopperBreak::MissingRefillBarrier { iter }),
            HopperConsumer::Wgmma { depth } if refill_after(iter, depth, stages, trips).is_some() => {
                breaks.push(HopperBreak::LoosenedWgmmaWait { iter });
            }
            _ => {}
        }
    }
    if bulk_store {
        breaks.push(HopperBreak::MissingStoreBarrier);
        breaks.push(HopperBreak::MissingBulkWait);
    }
    if let HopperConsumer::Wgmma { depth } = consumer {
        // The final wait matters only when a group is still in flight before it.
        if depth > 0 {
            breaks.push(HopperBreak::LoosenedWgmmaWait { iter: trips });
        }
        breaks.push(HopperBreak::MissingProxyFence);
    }
    let verdict = if u.arbitrary::<bool>()? { HopperVerdict::Racy(*u.choose(&breaks)?) } else { HopperVerdict::Safe };
    let broken = match verdict {
        HopperVerdict::Racy(b) => Some(b),
        HopperVerdict::Safe => None,
    };
    let text = kernel_text(stages, trips, bulk_store, consumer, broken);
    let buffer = |dtype: DataType, values: &[f64]| {
        Tensor::from_f64(dtype, vec![values.len()], values).map_err(|_| arbitrary::Error::IncorrectFormat)
    };
    let (source, source_map, a_image, expected) = match consumer {
        HopperConsumer::Loads => {
            let rows = 8 * trips;
            let a: Vec<f64> = (0..rows * 8).map(|i| input_value(i, salt)).collect();
            let expected =
                (0..HOPPER_THREADS).map(|t| (0..trips).map(|i| a[i * BOX_ELEMENTS + t % BOX_ELEMENTS]).sum()).collect();
            let map = HostTensorMap {
                buffer_param: 0,
                elemtype: 7,
                dims: vec![8, rows as u64],
                strides: vec![32],
                box_dims: vec![8, 8],
                swizzle: 0,
            };
            (buffer(DataType::FLOAT32, &a)?, map, vec![0], expected)
        }
        HopperConsumer::Wgmma { .. } => {
            // B_i as 16 rows of 8 f16 (K-major core matrices): row (k / 8) * 8 + n, column k % 8.
            let mut b = vec![0.0; trips * 128];
            for (iter, tile) in b.chunks_mut(128).enumerate() {
                for k in 0..16 {
                    for n in 0..8 {
                        tile[((k / 8) * 8 + n) * 8 + k % 8] = b_value(iter, k, n, salt);
                    }
                }
            }
            let mut a = vec![0u64; A_BYTES / 2];
            for m in 0..64 {
                for k in 0..16 {
                    a[((m % 8) * 16 + (m / 8) * 128 + (k % 8) * 2 + (k / 8) * 1024) / 2] =
                        f16_bits(a_value(m, k, salt));
                }
            }
            let words: Vec<u64> = a.chunks(2).map(|p| p[0] | p[1] << 16).collect();
            let mut expected = Vec::new();
            for t in 0..HOPPER_THREADS {
                let (w, g, p) = (t / 32, t % 32 / 4, t % 4);
                for (dr, dc) in [(0, 0), (0, 1), (8, 0), (8, 1)] {
                    let (row, col) = (16 * w + g + dr, 2 * p + dc);
                    let product =
                        |iter| (0..16).map(|k| a_value(row, k, salt) * b_value(iter, k, col, salt)).sum::<f64>();
                    expected.push((0..trips).map(product).sum());
                }
            }
            let map = HostTensorMap {
                buffer_param: 0,
                elemtype: 6,
                dims: vec![8, 16 * trips as u64],
                strides: vec![16],
                box_dims: vec![8, 16],
                swizzle: 0,
            };
            (buffer(DataType::FLOAT16, &b)?, map, words, expected)
        }
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
    let a_words = Tensor::from_bits(DataType::INT32, vec![a_image.len()], a_image)
        .map_err(|_| arbitrary::Error::IncorrectFormat)?;
    let args = vec![
        KernelArg::Buffer(source),
        KernelArg::Buffer(buffer(DataType::FLOAT32, &vec![0.0; expected.len()])?),
        KernelArg::Buffer(map_tensor(&source_map)?),
        KernelArg::Buffer(map_tensor(&out_map)?),
        KernelArg::Buffer(a_words),
    ];
    Ok(HopperCase { case: PtxCase { text, args }, stages, trips, bulk_store, consumer, verdict, expected })
}

/// The load a wgmma kernel issues after iteration `iter`'s wait, if any: with `depth` groups
/// left in flight, iteration `iter - depth`'s slot is free then.
fn refill_after(iter: usize, depth: usize, stages: usize, trips: usize) -> Option<usize> {
    let done = iter.checked_sub(depth)?;
    (done + stages < trips).then_some(done + stages)
}

/// The 128 bytes of a host tensor map, as the argument of its `.b8 [128]` parameter.
fn map_tensor(map: &HostTensorMap) -> Result<Tensor> {
    let bytes = map.encode().map_err(|_| arbitrary::Error::IncorrectFormat)?;
    Tensor::from_bits(DataType::new(TypeCode::UInt, 8, 1), vec![128], bytes.iter().map(|b| u64::from(*b)).collect())
        .map_err(|_| arbitrary::Error::IncorrectFormat)
}

/// The kernel's text; `broken` drops or alters the one wait it names.
fn kernel_text(
    stages: usize,
    trips: usize,
    bulk_store: bool,
    consumer: HopperConsumer,
    broken: Option<HopperBreak>,
) -> String {
    let mut body = String::new();
    let box_bytes = match consumer {
        HopperConsumer::Loads => BOX_BYTES,
        HopperConsumer::Wgmma { .. } => 256,
    };
    let issue = |body: &mut String, load: usize| {
        let slot = load % stages;
        let _ = writeln!(
            body,
            "\tadd.s32 %r3, %r1, {mbar};\n\tadd.s32 %r2, %r1, {dst};\n\tmov.b32 %r6, {row};\n\
             \t@!%p1 mbarrier.arrive.expect_tx.shared::cta.b64 _, [%r3], {box_bytes};\n\
             \t@!%p1 cp.async.bulk.tensor.2d.shared::cta.global.mbarrier::complete_tx::bytes [%r2], [%rd1, {{%r5, %r6}}], [%r3];",
            mbar = 8 * slot,
            dst = SLOTS_OFFSET + BOX_BYTES * slot,
            row = match consumer {
                HopperConsumer::Loads => 8 * load,
                HopperConsumer::Wgmma { .. } => 16 * load,
            },
        );
    };
    for slot in 0..stages {
        let _ = writeln!(body, "\tadd.s32 %r3, %r1, {};\n\t@!%p1 mbarrier.init.shared::cta.b64 [%r3], 1;", 8 * slot);
    }
    if matches!(consumer, HopperConsumer::Wgmma { .. }) {
        // Every thread copies 16 bytes of A's image into shared memory (generic writes the
        // wgmmas read through the async proxy: they need the fence), then A's descriptor.
        let _ = writeln!(
            body,
            "\tld.param.u64 %rd5, [k_w];\n\tshl.b32 %r8, %r0, 4;\n\tcvt.u64.u32 %rd6, %r8;\n\tadd.s64 %rd5, %rd5, %rd6;\n\
             \tld.global.v4.b32 {{%r20, %r21, %r22, %r23}}, [%rd5];\n\tadd.s32 %r7, %r1, {STAGING_OFFSET};\n\
             \tadd.s32 %r8, %r7, %r8;\n\tst.shared.v4.b32 [%r8], {{%r20, %r21, %r22, %r23}};"
        );
        if broken != Some(HopperBreak::MissingProxyFence) {
            body.push_str("\tfence.proxy.async.shared::cta;\n");
        }
        let _ = writeln!(
            body,
            "\tshr.u32 %r8, %r7, 4;\n\tcvt.u64.u32 %rd6, %r8;\n\tor.b64 %rd6, %rd6, {A_DESC_FIELDS};\n\
             \tmov.b32 %r20, 0;\n\tmov.b32 %r21, 0;\n\tmov.b32 %r22, 0;\n\tmov.b32 %r23, 0;"
        );
    }
    body.push_str("\tbar.sync 0;\n");
    // Prologue: the first loads, one per slot.
    for load in 0..stages.min(trips) {
        issue(&mut body, load);
    }
    for iter in 0..trips {
        let slot = iter % stages;
        let parity = (iter / stages) % 2;
        let _ =
            writeln!(body, "\t// iteration {iter}: slot {slot}, parity {parity}\n\tadd.s32 %r3, %r1, {};", 8 * slot);
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
        let slot_address = SLOTS_OFFSET + BOX_BYTES * slot;
        match consumer {
            HopperConsumer::Loads => {
                let _ = writeln!(
                    body,
                    "\tadd.s32 %r2, %r1, {slot_address};\n\tadd.s32 %r2, %r2, %r4;\n\tld.shared.f32 %f1, [%r2];\n\
                     \tadd.f32 %f0, %f0, %f1;"
                );
                if iter + stages < trips {
                    if broken != Some(HopperBreak::MissingRefillBarrier { iter }) {
                        body.push_str("\tbar.sync 0;\n");
                    }
                    issue(&mut body, iter + stages);
                }
            }
            HopperConsumer::Wgmma { depth } => {
                let loosened = usize::from(broken == Some(HopperBreak::LoosenedWgmmaWait { iter }));
                let _ = writeln!(
                    body,
                    "\tadd.s32 %r2, %r1, {slot_address};\n\tshr.u32 %r8, %r2, 4;\n\tcvt.u64.u32 %rd7, %r8;\n\
                     \tor.b64 %rd7, %rd7, {B_DESC_FIELDS};\n\twgmma.fence.sync.aligned;\n\
                     \twgmma.mma_async.sync.aligned.m64n8k16.f32.f16.f16 {{%r20, %r21, %r22, %r23}}, %rd6, %rd7, 1, 1, 1, 0, 0;\n\
                     \twgmma.commit_group.sync.aligned;\n\twgmma.wait_group.sync.aligned {};",
                    depth + loosened
                );
                if let Some(load) = refill_after(iter, depth, stages, trips) {
                    body.push_str("\tbar.sync 0;\n");
                    issue(&mut body, load);
                }
            }
        }
    }
    if let HopperConsumer::Wgmma { .. } = consumer {
        let loosened = usize::from(broken == Some(HopperBreak::LoosenedWgmmaWait { iter: trips }));
        let _ = writeln!(
            body,
            "\twgmma.wait_group.sync.aligned {loosened};\n\tld.param.u64 %rd3, [k_out];\n\tmul.wide.u32 %rd4, %r0, 16;\n\
             \tadd.s64 %rd4, %rd3, %rd4;\n\tst.global.v4.b32 [%rd4], {{%r20, %r21, %r22, %r23}};"
        );
    } else if bulk_store {
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
         \t.param .align 64 .b8 k_omap[128],\n\t.param .u64 k_w\n)\n.reqntid {HOPPER_THREADS}, 1, 1\n{{\n\
         \t.reg .pred %p<4>;\n\t.reg .b32 %r<24>;\n\t.reg .b64 %rd<8>;\n\t.reg .f32 %f<4>;\n\
         \t.shared .align 1024 .b8 smem[{SHARED_BYTES}];\n\n\
         \tmov.u32 %r0, %tid.x;\n\tmov.u32 %r1, smem;\n\tsetp.ne.s32 %p1, %r0, 0;\n\
         \tand.b32 %r4, %r0, {mask};\n\tshl.b32 %r4, %r4, 2;\n\tmov.b32 %r5, 0;\n\
         \tmov.b64 %rd1, k_amap;\n\tmov.b64 %rd2, k_omap;\n\tmov.f32 %f0, 0f00000000;\n\
         {body}\tret;\n}}\n",
        mask = BOX_ELEMENTS - 1,
    )
}
