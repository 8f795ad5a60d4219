//! Seeded generator of unpipelined nvgpu copy loops, the input of MLIR's shared-memory copy
//! pipeliner (`transform.nvgpu.pipeline_shared_memory_copies`), and the pipeliner's options.
//!
//! A program is a small structured value ([`CopyLoop`]) printed to MLIR text
//! ([`CopyLoop::to_mlir`]): a `func.func` with a global `memref` argument and an output
//! `memref`, one workgroup allocation of `parts x width` floats, and one `scf.for` whose body
//! computes its indices, then issues every copy of the iteration (each with its group, or one
//! group for all), then waits, then reads. Each iteration `k` copies into part `k` of the
//! allocation (its own part) or into ring slot `k mod slots`.
//!
//! Invariants (what "valid by construction" means here): every copy moves 1, 2 or 4 `f32`
//! (the transfer sizes mlir-opt's verifier accepts: 4, 8 or 16 bytes) into a part whose width
//! holds them all side by side; every read reads an element of a copy whose group the wait
//! completes, so the unpipelined program is race free; the wait's token names a copy or group
//! that its count completes; the wait's count, when written, is 0, so no group is left in
//! flight when the function ends (nothing after the loop could name a token to drain it). What the pipeliner refuses is reached on purpose, not by
//! accident: a trip count read from an `index` argument, or fewer iterations than stages.

use std::fmt::Write as _;

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// Elements of one copy: the `f32` counts whose 4, 8 or 16 bytes mlir-opt accepts.
pub const COPY_ELEMENTS: [u8; 3] = [1, 2, 4];

/// The most iterations of a loop with a constant trip count.
pub const MAX_TRIP: u8 = 12;

/// The most copies one iteration issues.
pub const MAX_COPIES: usize = 3;

/// The pipeliner's options: `depth` stages (2..=4) and whether the epilogue is peeled out of
/// the loop (otherwise the copies of the last iterations are predicated to zero bytes).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct PipelineOptions {
    pub depth: u8,
    pub peel_epilogue: bool,
}

impl PipelineOptions {
    /// The transform script that runs the pipeliner with these options on every `scf.for`.
    pub fn transform_script(&self) -> String {
        let peel = if self.peel_epilogue { ", peel_epilogue" } else { "" };
        format!(
            concat!(
                "module attributes {{transform.with_named_sequence}} {{\n",
                "  transform.named_sequence @__transform_main(%root: !transform.any_op {{transform.readonly}}) {{\n",
                "    %loop = transform.structured.match ops{{[\"scf.for\"]}} in %root : (!transform.any_op) -> !transform.any_op\n",
                "    %pipelined = transform.nvgpu.pipeline_shared_memory_copies failures(propagate) %loop {{ depth = {depth}{peel} }} : (!transform.any_op) -> !transform.any_op\n",
                "    transform.yield\n",
                "  }}\n",
                "}}\n",
            ),
            depth = self.depth,
            peel = peel,
        )
    }
}

/// How many iterations the loop runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum TripCount {
    /// A constant number of iterations (1..=[`MAX_TRIP`]).
    Constant(u8),
    /// The upper bound is an `index` argument of the function (the pipeliner refuses it).
    Argument,
}

/// Where iteration `k` copies to.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Layout {
    /// Part `k` of an allocation with a part per iteration.
    OwnPart,
    /// Slot `k mod slots` of an allocation of `slots` parts (2..=4).
    Ring { slots: u8 },
}

/// How an iteration's copies are committed.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Grouping {
    /// One `device_async_create_group` after all the copies, naming all their tokens.
    OneGroup,
    /// A group right after each copy.
    GroupPerCopy,
}

/// Which token the iteration's wait names.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum WaitOn {
    /// The token of the group holding the waited copy.
    GroupToken,
    /// The token of the waited copy itself.
    CopyToken,
}

/// One program: the loop and its body (see the module documentation).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct CopyLoop {
    pub trip: TripCount,
    /// The loop variable's step (1..=4); iteration `k` has `i = k * step`.
    pub step: u8,
    pub layout: Layout,
    /// Elements of each copy, in issue order (1..=[`MAX_COPIES`] copies).
    pub copies: Vec<u8>,
    pub grouping: Grouping,
    pub wait_on: WaitOn,
    /// The wait's `numGroups` (0 when written); `None`: the attribute is left out (also 0).
    pub wait_count: Option<u8>,
    /// The copies whose first element is read after the wait (at least one), ascending.
    pub reads: Vec<usize>,
    /// Also read the first read copy's element of iteration `k / 2`'s part (or slot).
    pub read_earlier: bool,
}

/// A program with the options the pipeliner runs with.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Case {
    pub program: CopyLoop,
    pub options: PipelineOptions,
}

/// The case of `seed`.
pub fn generate(seed: u64) -> Case {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let trip =
        if rng.gen_ratio(1, 10) { TripCount::Argument } else { TripCount::Constant(rng.gen_range(1..=MAX_TRIP)) };
    // A dynamic trip count needs a bounded allocation: the ring.
    let layout = if trip == TripCount::Argument || rng.gen_bool(0.4) {
        Layout::Ring { slots: rng.gen_range(2..=4) }
    } else {
        Layout::OwnPart
    };
    let count = rng.gen_range(1..=MAX_COPIES);
    let copies = (0..count).map(|_| COPY_ELEMENTS[rng.gen_range(0..COPY_ELEMENTS.len())]).collect();
    let grouping = if rng.gen_bool(0.5) { Grouping::OneGroup } else { Grouping::GroupPerCopy };
    let mut reads: Vec<usize> = (0..count).filter(|_| rng.gen_bool(0.5)).collect();
    if reads.is_empty() {
        reads.push(rng.gen_range(0..count));
    }
    let program = CopyLoop {
        trip,
        step: rng.gen_range(1..=4),
        layout,
        copies,
        grouping,
        wait_on: if rng.gen_bool(0.5) { WaitOn::GroupToken } else { WaitOn::CopyToken },
        wait_count: rng.gen_bool(0.5).then_some(0),
        reads,
        read_earlier: rng.gen_bool(0.3),
    };
    let options = PipelineOptions { depth: rng.gen_range(2..=4), peel_epilogue: rng.gen_bool(0.5) };
    Case { program, options }
}

impl CopyLoop {
    /// The number of groups one iteration commits.
    pub fn groups(&self) -> usize {
        match self.grouping {
            Grouping::OneGroup => 1,
            Grouping::GroupPerCopy => self.copies.len(),
        }
    }

    /// The group (of its iteration, from 0) that copy `copy` joins.
    pub fn group_of(&self, copy: usize) -> usize {
        match self.grouping {
            Grouping::OneGroup => 0,
            Grouping::GroupPerCopy => copy,
        }
    }

    /// The last group holding a read copy.
    fn last_read_group(&self) -> usize {
        self.reads.iter().map(|&c| self.group_of(c)).max().unwrap_or(0)
    }

    /// The largest `numGroups` that still completes every read copy in the loop: the groups
    /// committed after the last one holding a read copy (a larger count is unsafe).
    pub fn wait_slack(&self) -> u8 {
        u8::try_from(self.groups() - 1 - self.last_read_group()).unwrap_or(0)
    }

    /// The copy whose token (or group token) the wait names: the last read copy, whose group
    /// the count completes.
    pub fn waited_copy(&self) -> usize {
        self.reads.last().copied().unwrap_or(0)
    }

    /// The width of a part: every copy of an iteration side by side.
    pub fn part_width(&self) -> u32 {
        self.copies.iter().map(|&e| u32::from(e)).sum()
    }

    /// The element offset of copy `copy` in its part.
    fn offset_of(&self, copy: usize) -> u32 {
        self.copies[..copy].iter().map(|&e| u32::from(e)).sum()
    }

    /// The parts of the workgroup allocation.
    pub fn parts(&self) -> u32 {
        match (self.layout, self.trip) {
            (Layout::Ring { slots }, _) => u32::from(slots),
            (Layout::OwnPart, TripCount::Constant(trip)) => u32::from(trip),
            (Layout::OwnPart, TripCount::Argument) => u32::from(MAX_TRIP),
        }
    }

    /// Whether the program keeps the invariants of the module documentation (what
    /// [`generate`] makes and [`super::reduce`] keeps).
    pub fn is_valid(&self) -> bool {
        let trip_ok = match self.trip {
            TripCount::Constant(trip) => (1..=MAX_TRIP).contains(&trip),
            TripCount::Argument => matches!(self.layout, Layout::Ring { .. }),
        };
        let layout_ok = match self.layout {
            Layout::OwnPart => true,
            Layout::Ring { slots } => (2..=4).contains(&slots),
        };
        trip_ok
            && layout_ok
            && (1..=4).contains(&self.step)
            && (1..=MAX_COPIES).contains(&self.copies.len())
            && self.copies.iter().all(|e| COPY_ELEMENTS.contains(e))
            && !self.reads.is_empty()
            && self.reads.windows(2).all(|w| w[0] < w[1])
            && self.reads.iter().all(|&c| c < self.copies.len())
            && self.wait_count.is_none_or(|n| n == 0)
    }

    /// The program as MLIR text that mlir-opt 22 parses.
    pub fn to_mlir(&self) -> String {
        let parts = self.parts();
        let width = self.part_width();
        let global_len = u32::from(MAX_TRIP) * width;
        let shared = format!("memref<{parts}x{width}xf32, #gpu.address_space<workgroup>>");
        let global = format!("memref<{global_len}xf32>");
        let mut constants: Vec<u32> = vec![0, 2, u32::from(self.step), width, 2 * u32::from(self.step)];
        constants.extend((0..self.copies.len()).map(|c| self.offset_of(c)));
        if let Layout::Ring { slots } = self.layout {
            constants.push(u32::from(slots));
        }
        let upper = match self.trip {
            TripCount::Constant(trip) => {
                let upper = u32::from(trip) * u32::from(self.step);
                constants.push(upper);
                format!("%c{upper}")
            }
            TripCount::Argument => "%n".to_owned(),
        };
        constants.sort_unstable();
        constants.dedup();

        let mut out = String::new();
        let n_arg = if self.trip == TripCount::Argument { ", %n: index" } else { "" };
        let _ = writeln!(out, "func.func @copy_loop(%global: {global}, %out: memref<1xf32>{n_arg}) {{");
        for c in &constants {
            let _ = writeln!(out, "  %c{c} = arith.constant {c} : index");
        }
        let _ = writeln!(out, "  %zero = arith.constant 0.0 : f32");
        let _ = writeln!(out, "  %shared = memref.alloc() : {shared}");
        let _ = writeln!(
            out,
            "  %sum = scf.for %i = %c0 to {upper} step %c{} iter_args(%acc = %zero) -> f32 {{",
            self.step
        );
        // Indices: the iteration k, its part, the global offset of its tile.
        let k = if self.step == 1 {
            "%i".to_owned()
        } else {
            let _ = writeln!(out, "    %k = arith.divui %i, %c{} : index", self.step);
            "%k".to_owned()
        };
        let part_of = |out: &mut String, name: &str, iteration: &str| match self.layout {
            Layout::OwnPart => iteration.to_owned(),
            Layout::Ring { slots } => {
                let _ = writeln!(out, "    %{name} = arith.remui {iteration}, %c{slots} : index");
                format!("%{name}")
            }
        };
        let part = part_of(&mut out, "part", &k);
        let _ = writeln!(out, "    %tile = arith.muli {k}, %c{width} : index");
        for c in 0..self.copies.len() {
            let _ = writeln!(out, "    %src{c} = arith.addi %tile, %c{} : index", self.offset_of(c));
        }
        // The copies, each with its group or one group for all.
        for (c, elements) in self.copies.iter().enumerate() {
            let _ = writeln!(
                out,
                "    %copy{c} = nvgpu.device_async_copy %global[%src{c}], %shared[{part}, %c{}], {elements} : {global} to {shared}",
                self.offset_of(c)
            );
            if self.grouping == Grouping::GroupPerCopy {
                let _ = writeln!(out, "    %group{c} = nvgpu.device_async_create_group %copy{c}");
            }
        }
        if self.grouping == Grouping::OneGroup {
            let tokens: Vec<String> = (0..self.copies.len()).map(|c| format!("%copy{c}")).collect();
            let _ = writeln!(out, "    %group0 = nvgpu.device_async_create_group {}", tokens.join(", "));
        }
        let waited = self.waited_copy();
        let token = match self.wait_on {
            WaitOn::GroupToken => format!("%group{}", self.group_of(waited)),
            WaitOn::CopyToken => format!("%copy{waited}"),
        };
        let count = self.wait_count.map(|n| format!(" {{numGroups = {n} : i32}}")).unwrap_or_default();
        let _ = writeln!(out, "    nvgpu.device_async_wait {token}{count}");
        // The reads, summed into the accumulator.
        let mut acc = "%acc".to_owned();
        let mut read = |out: &mut String, name: String, part: &str, offset: u32| {
            let _ = writeln!(out, "    %{name} = memref.load %shared[{part}, %c{offset}] : {shared}");
            let _ = writeln!(out, "    %{name}_acc = arith.addf {acc}, %{name} : f32");
            acc = format!("%{name}_acc");
        };
        for &c in &self.reads {
            read(&mut out, format!("x{c}"), &part, self.offset_of(c));
        }
        if self.read_earlier {
            // From the iteration `k`, which the pipeliner carries to the reads through
            // `iter_args`: a division of a carried index, followed exactly by the reader.
            let _ = writeln!(out, "    %earlier = arith.divui {k}, %c2 : index");
            let earlier_part = part_of(&mut out, "earlier_part", "%earlier");
            read(&mut out, "early".to_owned(), &earlier_part, self.offset_of(self.reads[0]));
        }
        let _ = writeln!(out, "    scf.yield {acc} : f32");
        let _ = writeln!(out, "  }}");
        let _ = writeln!(out, "  memref.store %sum, %out[%c0] : memref<1xf32>");
        let _ = writeln!(out, "  return");
        let _ = writeln!(out, "}}");
        out
    }
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use tirproof_foreign::{import, Dialect};
    use tirproof_verify::waits::{verify_func, Options};

    use super::*;

    #[test]
    fn every_generated_program_is_valid_and_read_by_the_nvgpu_reader() {
        for seed in 0..200 {
            let case = generate(seed);
            assert!(case.program.is_valid(), "seed {seed}: {case:?}");
            assert!((2..=4).contains(&case.options.depth), "seed {seed}: {case:?}");
            let text = case.program.to_mlir();
            let module = import(&text, Dialect::Nvgpu)
                .unwrap_or_else(|d| panic!("seed {seed}: {}", d.render("gen.mlir", &text)));
            assert_eq!(module.module.functions.len(), 1, "seed {seed}");
        }
    }

    #[test]
    fn the_generator_reaches_every_shape() {
        let cases: Vec<Case> = (0..200).map(generate).collect();
        let has = |f: &dyn Fn(&Case) -> bool| cases.iter().any(f);
        assert!(has(&|c| c.program.trip == TripCount::Argument));
        assert!(has(&|c| c.program.layout == Layout::OwnPart));
        assert!(has(&|c| matches!(c.program.layout, Layout::Ring { .. })));
        assert!(has(&|c| c.program.copies.len() == MAX_COPIES));
        assert!(has(&|c| c.program.grouping == Grouping::GroupPerCopy && c.program.copies.len() > 1));
        assert!(has(&|c| c.program.wait_on == WaitOn::CopyToken));
        assert!(has(&|c| c.program.wait_count == Some(0)) && has(&|c| c.program.wait_count.is_none()));
        assert!(has(&|c| c.program.read_earlier));
        assert!(has(&|c| c.options.peel_epilogue) && has(&|c| !c.options.peel_epilogue));
        for depth in 2..=4 {
            assert!(has(&|c| c.options.depth == depth), "depth {depth}");
        }
        assert_ne!(generate(1), generate(2));
        assert_eq!(generate(7), generate(7));
    }

    #[test]
    fn the_unpipelined_inputs_verify_safe() {
        let options = Options { timeout: Duration::from_secs(20), dump_smtlib: false, tightness: false, budget: None };
        for seed in 0..30 {
            let case = generate(seed);
            let text = case.program.to_mlir();
            let module = import(&text, Dialect::Nvgpu)
                .unwrap_or_else(|d| panic!("seed {seed}: {}", d.render("gen.mlir", &text)));
            for func in &module.module.functions {
                let report = verify_func(func, &options).0;
                assert!(!report.waits.is_empty(), "seed {seed}: no wait\n{text}");
                assert!(report.all_proved(), "seed {seed}: {report:?}\n{text}");
            }
        }
    }

    /// The twin of the safety test: the same programs with one more group in flight than the
    /// reads allow must be refuted, so the test above can fail.
    #[test]
    fn one_more_group_in_flight_than_the_reads_allow_is_refuted() {
        let options = Options { timeout: Duration::from_secs(20), dump_smtlib: false, tightness: false, budget: None };
        for seed in 0..30 {
            let mut program = generate(seed).program;
            program.wait_count = Some(program.wait_slack() + 1);
            assert!(!program.is_valid());
            let text = program.to_mlir();
            let module = import(&text, Dialect::Nvgpu)
                .unwrap_or_else(|d| panic!("seed {seed}: {}", d.render("gen.mlir", &text)));
            let refuted = module.module.functions.iter().any(|func| {
                let report = verify_func(func, &options).0;
                report.waits.iter().any(|w| w.verdict.is_refuted()) || !report.findings.is_empty()
            });
            assert!(refuted, "seed {seed}: one more group in flight is not refuted\n{text}");
        }
    }
}
