//! What a generated pipeline looks like, and which of the patterns the pipeline pass must
//! handle it exercises.
//!
//! A `PipelineShape` describes one pipelined loop: its annotations, its extent, and per
//! statement which earlier statements it reads and where it writes; a nested pipeline's shape
//! holds the inner loop's shape. `PipelineShape::patterns` classifies a shape so that tests and
//! statistics can check that generation reaches every pattern.

use std::collections::BTreeSet;
use std::fmt;

/// The shape of a generated pipeline, for reports, statistics and the minimizer.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PipelineShape {
    pub stages: Vec<i64>,
    pub orders: Vec<i64>,
    pub async_stages: Vec<i64>,
    /// `None` for a symbolic extent.
    pub extent: Option<i64>,
    pub min: i64,
    pub lanes: u16,
    pub threads: i64,
    /// One entry per statement of the loop body, in program order.
    pub statements: Vec<StmtShape>,
    /// The memory scope of the loop's staging buffers (`global`, `shared` or `local`).
    pub staging_scope: String,
    /// For a nested pipeline, the pipelined loop inside the outer loop's last statement.
    pub inner: Option<Box<PipelineShape>>,
    /// For an irregular pipeline (which the pass may refuse), the irregular patterns it has.
    pub irregular: Option<BTreeSet<Pattern>>,
}

/// What one statement of a pipelined loop reads and writes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StmtShape {
    /// Earlier statements whose results this one reads.
    pub sources: Vec<usize>,
    /// Where its result goes.
    pub target: Target,
    /// Whether it runs under a condition on the loop variable.
    pub predicated: bool,
}

/// Where a statement writes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Target {
    /// A staging buffer the function allocates, at an index that does not depend on the loop.
    Staging,
    /// A global output parameter, at this iteration's element.
    Output,
    /// Nothing: a barrier.
    Nothing,
}

/// A situation the pipeline pass must handle; see `PipelineShape::patterns`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Pattern {
    /// A loop body of this many statements.
    Statements(usize),
    /// Data staged through an allocated buffer of this scope.
    StagedThroughGlobal,
    StagedThroughShared,
    StagedThroughLocal,
    /// A statement reads the global output an earlier statement wrote in the same iteration.
    ReadsEarlierOutput,
    ExtentOne,
    ExtentTwo,
    /// A prime extent above 2.
    PrimeExtent,
    /// Fewer iterations than stages: the loop never reaches its steady state.
    ExtentBelowStages,
    /// At least 64 iterations.
    LargeExtent,
    SymbolicExtent,
    /// A loop that starts above 0.
    NonzeroMin,
    /// A consumer runs before its producer within a step (`order` differs from stage order).
    ConsumerOrderedFirst,
    /// A statement of another stage is ordered between two producers of one stage.
    InterleavedProducers,
    /// One producer read by consumers in two different stages.
    ConsumersInSeveralStages,
    /// An async statement reads what another async stage produced: one queue feeds another.
    AsyncChain,
    /// One statement reads from two different async stages.
    TwoAsyncStagesFeedOne,
    Predicated,
    ThreadBinding,
    VectorCopy,
    /// An outer pipelined loop whose body holds an inner pipelined loop.
    Nested,
    /// A writer of staging data under `i % k == r` (irregular pipelines from here on).
    PredicatedOnIteration,
    /// A statement under `i < last`: skipped only at the last iteration.
    SkipsLastIteration,
    /// A statement under a condition on input data.
    PredicatedOnData,
    /// A consumer of staging data that does not run under its writers' condition.
    ConsumerNotUnderProducerCondition,
    /// Staging allocated inside the loop body.
    StagingAllocatedInside,
    /// Staging allocated above the loop.
    StagingAllocatedOutside,
    /// A consumer reads the slot of another iteration in a ring indexed by the loop variable.
    ReadsOtherIterationSlot,
    /// A writer over an inner loop whose window of elements moves with the loop variable
    /// (`B[i + w]`), so consecutive iterations write overlapping elements.
    SlidingWindow,
    /// Two writers of one staging buffer in one stage.
    SeveralWritersOneStage,
    /// Two writers of one staging buffer in different stages.
    SeveralWritersSeveralStages,
    /// A consumer that also writes the staging element it read.
    ConsumerWritesStaging,
    /// A thread reads what another wrote, with the barriers that makes safe.
    ThreadExchangeWithBarriers,
    /// A thread reads what another wrote, without barriers: the original races.
    ThreadExchangeWithoutBarriers,
    /// Several blocks (`blockIdx.x`).
    SeveralBlocks,
}

impl fmt::Display for Pattern {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Pattern::Statements(n) => write!(f, "statements {n}"),
            other => write!(f, "{other:?}"),
        }
    }
}

/// The patterns every default configuration must reach (statement counts 1 to 6 included).
pub fn expected_patterns() -> Vec<Pattern> {
    let mut all: Vec<Pattern> = (1..=6).map(Pattern::Statements).collect();
    all.extend([
        Pattern::StagedThroughGlobal,
        Pattern::StagedThroughShared,
        Pattern::StagedThroughLocal,
        Pattern::ReadsEarlierOutput,
        Pattern::ExtentOne,
        Pattern::ExtentTwo,
        Pattern::PrimeExtent,
        Pattern::ExtentBelowStages,
        Pattern::LargeExtent,
        Pattern::SymbolicExtent,
        Pattern::NonzeroMin,
        Pattern::ConsumerOrderedFirst,
        Pattern::InterleavedProducers,
        Pattern::ConsumersInSeveralStages,
        Pattern::AsyncChain,
        Pattern::TwoAsyncStagesFeedOne,
        Pattern::Predicated,
        Pattern::ThreadBinding,
        Pattern::VectorCopy,
        Pattern::Nested,
    ]);
    all.extend(irregular_patterns());
    all
}

/// The patterns only irregular pipelines make (`GenConfig`'s irregular switches).
pub fn irregular_patterns() -> [Pattern; 14] {
    [
        Pattern::PredicatedOnIteration,
        Pattern::SkipsLastIteration,
        Pattern::PredicatedOnData,
        Pattern::ConsumerNotUnderProducerCondition,
        Pattern::StagingAllocatedInside,
        Pattern::StagingAllocatedOutside,
        Pattern::ReadsOtherIterationSlot,
        Pattern::SlidingWindow,
        Pattern::SeveralWritersOneStage,
        Pattern::SeveralWritersSeveralStages,
        Pattern::ConsumerWritesStaging,
        Pattern::ThreadExchangeWithBarriers,
        Pattern::ThreadExchangeWithoutBarriers,
        Pattern::SeveralBlocks,
    ]
}

impl PipelineShape {
    /// Every pattern this pipeline (and its inner pipeline, if any) exercises.
    pub fn patterns(&self) -> BTreeSet<Pattern> {
        let mut found = BTreeSet::new();
        self.add_patterns(&mut found);
        found
    }

    /// Whether the pass may refuse this program (an irregular pipeline), so that a refusal is
    /// no failure and an original that faults is not the pass's fault.
    pub fn may_be_refused(&self) -> bool {
        self.irregular.is_some()
    }

    /// Whether this is an outer pipeline with an inner one.
    pub fn is_nested(&self) -> bool {
        self.inner.is_some()
    }

    fn add_patterns(&self, found: &mut BTreeSet<Pattern>) {
        found.insert(Pattern::Statements(self.statements.len()));
        self.add_extent_patterns(found);
        self.add_dataflow_patterns(found);
        self.add_order_patterns(found);
        self.add_async_patterns(found);
        if self.statements.iter().any(|s| s.predicated) {
            found.insert(Pattern::Predicated);
        }
        if self.threads > 1 {
            found.insert(Pattern::ThreadBinding);
        }
        if self.lanes > 1 {
            found.insert(Pattern::VectorCopy);
        }
        if let Some(irregular) = &self.irregular {
            found.extend(irregular.iter().copied());
        }
        if let Some(inner) = &self.inner {
            found.insert(Pattern::Nested);
            inner.add_patterns(found);
        }
    }

    fn add_extent_patterns(&self, found: &mut BTreeSet<Pattern>) {
        let Some(extent) = self.extent else {
            found.insert(Pattern::SymbolicExtent);
            return;
        };
        let stage_count = self.stages.iter().copied().max().unwrap_or(0) + 1;
        let checks = [
            (extent == 1, Pattern::ExtentOne),
            (extent == 2, Pattern::ExtentTwo),
            (extent > 2 && is_prime(extent), Pattern::PrimeExtent),
            (extent < stage_count, Pattern::ExtentBelowStages),
            (extent >= 64, Pattern::LargeExtent),
            (self.min > 0, Pattern::NonzeroMin),
        ];
        found.extend(checks.into_iter().filter(|(holds, _)| *holds).map(|(_, p)| p));
    }

    fn add_dataflow_patterns(&self, found: &mut BTreeSet<Pattern>) {
        let reads_staging = self.edges().any(|(p, _)| self.target(p) == Some(Target::Staging));
        if reads_staging {
            found.insert(match self.staging_scope.as_str() {
                "global" => Pattern::StagedThroughGlobal,
                "shared" => Pattern::StagedThroughShared,
                _ => Pattern::StagedThroughLocal,
            });
        }
        if self.edges().any(|(p, _)| self.target(p) == Some(Target::Output)) {
            found.insert(Pattern::ReadsEarlierOutput);
        }
    }

    fn add_order_patterns(&self, found: &mut BTreeSet<Pattern>) {
        if self.edges().any(|(p, c)| self.order(c) < self.order(p)) {
            found.insert(Pattern::ConsumerOrderedFirst);
        }
        if self.has_interleaved_producers() {
            found.insert(Pattern::InterleavedProducers);
        }
        let consumer_stages =
            |p: usize| -> BTreeSet<i64> { self.edges().filter(|&(q, _)| q == p).map(|(_, c)| self.stage(c)).collect() };
        if (0..self.statements.len()).any(|p| consumer_stages(p).len() > 1) {
            found.insert(Pattern::ConsumersInSeveralStages);
        }
    }

    fn add_async_patterns(&self, found: &mut BTreeSet<Pattern>) {
        let is_async = |k: usize| self.async_stages.contains(&self.stage(k));
        if self.edges().any(|(p, c)| is_async(p) && is_async(c) && self.stage(p) != self.stage(c)) {
            found.insert(Pattern::AsyncChain);
        }
        let feeds_from_two = self.statements.iter().any(|s| {
            let async_sources: BTreeSet<i64> =
                s.sources.iter().filter(|&&p| is_async(p)).map(|&p| self.stage(p)).collect();
            async_sources.len() > 1
        });
        if feeds_from_two {
            found.insert(Pattern::TwoAsyncStagesFeedOne);
        }
    }

    /// Two producers of one stage with a statement of another stage ordered between them.
    fn has_interleaved_producers(&self) -> bool {
        let producers: Vec<usize> = (0..self.statements.len()).filter(|&p| self.edges().any(|(q, _)| q == p)).collect();
        producers.iter().any(|&a| {
            producers.iter().any(|&b| {
                self.stage(a) == self.stage(b)
                    && (0..self.statements.len()).any(|m| {
                        self.stage(m) != self.stage(a) && self.order(a) < self.order(m) && self.order(m) < self.order(b)
                    })
            })
        })
    }

    /// Every (producer, consumer) pair of the loop body (not of its inner loop).
    pub fn edges(&self) -> impl Iterator<Item = (usize, usize)> + '_ {
        self.statements.iter().enumerate().flat_map(|(c, s)| s.sources.iter().map(move |&p| (p, c)))
    }

    fn stage(&self, k: usize) -> i64 {
        self.stages.get(k).copied().unwrap_or(0)
    }

    fn order(&self, k: usize) -> i64 {
        self.orders.get(k).copied().unwrap_or(0)
    }

    fn target(&self, k: usize) -> Option<Target> {
        self.statements.get(k).map(|s| s.target)
    }
}

fn is_prime(n: i64) -> bool {
    n >= 2 && (2..n).take_while(|d| d * d <= n).all(|d| n % d != 0)
}
