//! Programs the pipeline pass must refuse: a valid generated pipeline (flat or nested) with
//! one pipelined loop's annotations (or kind) broken in a random way the pass checks for.
//!
//! Every `Defect` is one the pass reports as an error whatever the rest of the program is:
//! the annotation lists are malformed, disagree with each other or with the loop body, or
//! order a consumer before one of its producers (a producer/consumer pair taken from the
//! program's shape). The program is returned as parsed from its printed text, so diagnostics
//! point at a line and column of `print_module(&program)`.

use arbitrary::{Result, Unstructured};
use tirproof_ir::annotation::{PIPELINE_ASYNC_STAGES, PIPELINE_ORDER, PIPELINE_STAGE};
use tirproof_ir::print::print_module;
use tirproof_ir::visit::{walk_stmt_mut, MutVisitor};
use tirproof_ir::{AnnValue, Annotations, For, ForKind, IRModule, Stmt, StmtKind};
use tirproof_reader::parse_module;

use super::ir::int_list;
use super::shape::PipelineShape;
use super::{pipeline_program, GenConfig};

/// How the annotations of the chosen loop are broken.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Defect {
    /// The stage and order lists have different lengths.
    StageOrderLengths,
    /// Both lists agree with each other but not with the number of statements in the body.
    StatementCount,
    /// The order repeats an entry.
    OrderDuplicate,
    /// An order entry outside `0..n` (negative or huge).
    OrderOutOfRange,
    NegativeStage,
    /// An async stage that no statement is in.
    AsyncStageWithoutStatement,
    /// An annotation that is not a list of integers.
    WrongType,
    /// A consumer in an earlier stage than its producer.
    ConsumerInEarlierStage,
    /// A consumer ordered before its producer within one stage.
    ConsumerOrderedFirst,
    /// No order (program order applies) and stages that put a consumer before its producer.
    StagesWithoutOrder,
    /// A pipelined loop that is not serial.
    NotSerial,
}

impl Defect {
    /// Every defect, in declaration order.
    pub const ALL: [Defect; 11] = [
        Defect::StageOrderLengths,
        Defect::StatementCount,
        Defect::OrderDuplicate,
        Defect::OrderOutOfRange,
        Defect::NegativeStage,
        Defect::AsyncStageWithoutStatement,
        Defect::WrongType,
        Defect::ConsumerInEarlierStage,
        Defect::ConsumerOrderedFirst,
        Defect::StagesWithoutOrder,
        Defect::NotSerial,
    ];
}

/// Huge values a broken list may hold; they must be reported, never overflow.
const EXTREMES: [i64; 4] = [1 << 31, (1 << 31) - 1, i64::MAX, -(1 << 31)];

/// A program whose pipeline annotations are invalid, and how.
pub fn invalid_annotation_program(u: &mut Unstructured<'_>) -> Result<(IRModule, Defect)> {
    // Without conditions: the pass rewrites an inner pipeline before the outer one, and may
    // drop inner statements whose condition never holds (`k1 % 2 != 0` with one iteration),
    // and with them the outer dependences a broken order would violate. No irregular
    // pipelines: their statements depend on each other in ways their shapes do not record.
    let config = GenConfig { predicates: false, ..GenConfig::accepted() };
    let (mut module, shape) = pipeline_program(u, &config)?;
    let (target, loop_shape) = match &shape.inner {
        Some(inner) if u.arbitrary::<bool>()? => (1, inner.as_ref()),
        _ => (0, &shape),
    };
    let wanted = *u.choose(&Defect::ALL)?;
    let (breakage, defect) = break_loop(u, loop_shape, wanted)?;
    let mut corrupt = Corrupt { target, seen: 0, breakage: Some(breakage) };
    for func in &mut module.functions {
        corrupt.mutate_stmt(&mut func.body);
    }
    Ok((with_source_positions(module), defect))
}

/// The module as parsed from its own printed text; unchanged (without positions) in the
/// unexpected case that the text does not parse back.
fn with_source_positions(module: IRModule) -> IRModule {
    parse_module(&print_module(&module)).unwrap_or(module)
}

/// What to do to the chosen loop.
enum Breakage {
    Annotations(Annotations),
    Kind(ForKind),
}

/// The annotation lists being broken; `orders: None` drops the order key.
struct Lists {
    stages: Vec<i64>,
    orders: Option<Vec<i64>>,
    async_stages: Vec<i64>,
}

impl Lists {
    fn of(shape: &PipelineShape) -> Self {
        Lists {
            stages: shape.stages.clone(),
            orders: Some(shape.orders.clone()),
            async_stages: shape.async_stages.clone(),
        }
    }

    /// Keeps only async stages some statement is still in, so that a moved statement is the
    /// only defect.
    fn drop_empty_async_stages(&mut self) {
        let stages = &self.stages;
        self.async_stages.retain(|s| stages.contains(s));
    }

    fn annotations(&self) -> Annotations {
        let mut a = Annotations::new();
        a.insert(PIPELINE_STAGE, int_list(&self.stages));
        if let Some(orders) = &self.orders {
            a.insert(PIPELINE_ORDER, int_list(orders));
        }
        if !self.async_stages.is_empty() {
            a.insert(PIPELINE_ASYNC_STAGES, int_list(&self.async_stages));
        }
        a
    }
}

/// Breaks the loop as `defect` asks, or (when the loop has no producer/consumer pair, or a
/// single statement to duplicate an order entry of) in the nearest way it allows; returns
/// the defect applied.
fn break_loop(u: &mut Unstructured<'_>, shape: &PipelineShape, defect: Defect) -> Result<(Breakage, Defect)> {
    let mut lists = Lists::of(shape);
    let n = lists.stages.len();
    let edge = choose_edge(u, shape)?;
    let applied = match (defect, edge) {
        (Defect::NotSerial, _) => {
            let kind = *u.choose(&[ForKind::Unrolled, ForKind::Parallel, ForKind::Vectorized])?;
            return Ok((Breakage::Kind(kind), defect));
        }
        (Defect::WrongType, _) => return Ok((wrong_type(u, &lists)?, defect)),
        (Defect::StageOrderLengths, _) => {
            change_one_length(u, &mut lists)?;
            defect
        }
        (Defect::StatementCount, _) => {
            describe_other_count(u, &mut lists, n)?;
            defect
        }
        (Defect::OrderDuplicate, _) if n >= 2 => {
            duplicate_order(u, &mut lists, n)?;
            defect
        }
        (Defect::OrderDuplicate | Defect::OrderOutOfRange, _) => {
            order_out_of_range(u, &mut lists, n)?;
            Defect::OrderOutOfRange
        }
        (Defect::AsyncStageWithoutStatement, _) => {
            add_empty_async_stage(u, &mut lists)?;
            defect
        }
        (Defect::ConsumerInEarlierStage, Some(edge)) => {
            stage_consumer_first(u, &mut lists, edge)?;
            defect
        }
        (Defect::ConsumerOrderedFirst, Some(edge)) => {
            order_consumer_first(&mut lists, edge);
            defect
        }
        (Defect::StagesWithoutOrder, edge) => {
            lists.orders = None;
            match edge {
                Some(edge) => stage_consumer_first(u, &mut lists, edge)?,
                None => negative_stage(u, &mut lists, n)?,
            }
            defect
        }
        (Defect::NegativeStage | Defect::ConsumerInEarlierStage | Defect::ConsumerOrderedFirst, _) => {
            negative_stage(u, &mut lists, n)?;
            Defect::NegativeStage
        }
    };
    Ok((Breakage::Annotations(lists.annotations()), applied))
}

/// A random (producer, consumer) pair of the loop, if it has one.
fn choose_edge(u: &mut Unstructured<'_>, shape: &PipelineShape) -> Result<Option<(usize, usize)>> {
    let edges: Vec<(usize, usize)> = shape.edges().collect();
    if edges.is_empty() {
        return Ok(None);
    }
    Ok(Some(*u.choose(&edges)?))
}

fn change_one_length(u: &mut Unstructured<'_>, lists: &mut Lists) -> Result<()> {
    let n = lists.stages.len() as i64;
    let grow = u.arbitrary::<bool>()?;
    let list = match (&mut lists.orders, u.arbitrary::<bool>()?) {
        (Some(orders), true) => orders,
        _ => &mut lists.stages,
    };
    if grow || list.is_empty() {
        list.push(n);
    } else {
        list.pop();
    }
    Ok(())
}

/// Lists for no statements or more than `n` (at least 2): the levels of a generated loop
/// body (looking through its allocations) have 1 or `n` statements, never those counts.
fn describe_other_count(u: &mut Unstructured<'_>, lists: &mut Lists, n: usize) -> Result<()> {
    let count = if u.ratio(1, 4)? { 0 } else { n as i64 + 1 + i64::from(u.int_in_range(0u8..=2)?) };
    lists.stages = (0..count).map(|k| k % 2).collect();
    lists.orders = Some((0..count).collect());
    lists.drop_empty_async_stages();
    Ok(())
}

fn duplicate_order(u: &mut Unstructured<'_>, lists: &mut Lists, n: usize) -> Result<()> {
    let a = u.choose_index(n)?;
    let b = (a + 1 + u.choose_index(n - 1)?) % n;
    if let Some(orders) = &mut lists.orders {
        if let Some(&value) = orders.get(b) {
            orders[a] = value;
        }
    }
    Ok(())
}

fn order_out_of_range(u: &mut Unstructured<'_>, lists: &mut Lists, n: usize) -> Result<()> {
    let bad = match u.int_in_range(0u8..=2)? {
        0 => n as i64 + i64::from(u.int_in_range(0u8..=3)?),
        1 => -1 - i64::from(u.int_in_range(0u8..=3)?),
        _ => *u.choose(&EXTREMES)?,
    };
    let orders = lists.orders.get_or_insert_with(|| (0..n as i64).collect());
    let k = u.choose_index(orders.len().max(1))?;
    match orders.get_mut(k) {
        Some(slot) => *slot = bad,
        None => orders.push(bad),
    }
    Ok(())
}

fn negative_stage(u: &mut Unstructured<'_>, lists: &mut Lists, n: usize) -> Result<()> {
    let bad = if u.ratio(1, 4)? { -(1 << 31) } else { -1 - i64::from(u.int_in_range(0u8..=3)?) };
    let k = u.choose_index(n.max(1))?;
    match lists.stages.get_mut(k) {
        Some(slot) => *slot = bad,
        None => lists.stages.push(bad),
    }
    Ok(())
}

fn add_empty_async_stage(u: &mut Unstructured<'_>, lists: &mut Lists) -> Result<()> {
    let max_stage = lists.stages.iter().copied().max().unwrap_or(0);
    let missing = match u.int_in_range(0u8..=2)? {
        0 => max_stage + 1 + i64::from(u.int_in_range(0u8..=3)?),
        1 => -1,
        _ => *u.choose(&EXTREMES)?,
    };
    lists.async_stages.push(missing);
    Ok(())
}

/// Moves the producer past the consumer's stage.
fn stage_consumer_first(
    u: &mut Unstructured<'_>,
    lists: &mut Lists,
    (producer, consumer): (usize, usize),
) -> Result<()> {
    let consumer_stage = lists.stages.get(consumer).copied().unwrap_or(0);
    if let Some(slot) = lists.stages.get_mut(producer) {
        *slot = consumer_stage + 1 + i64::from(u.int_in_range(0u8..=1)?);
    }
    lists.drop_empty_async_stages();
    Ok(())
}

/// Puts the consumer in its producer's stage, ordered before it.
fn order_consumer_first(lists: &mut Lists, (producer, consumer): (usize, usize)) {
    if let Some(&stage) = lists.stages.get(producer) {
        if let Some(slot) = lists.stages.get_mut(consumer) {
            *slot = stage;
        }
    }
    if let Some(orders) = &mut lists.orders {
        if let (Some(&p), Some(&c)) = (orders.get(producer), orders.get(consumer)) {
            if c > p {
                orders.swap(producer, consumer);
            }
        }
    }
    lists.drop_empty_async_stages();
}

/// One of the three annotations replaced by a value that is not a list of integers.
fn wrong_type(u: &mut Unstructured<'_>, lists: &Lists) -> Result<Breakage> {
    let key = *u.choose(&[PIPELINE_STAGE, PIPELINE_ORDER, PIPELINE_ASYNC_STAGES])?;
    let value = match u.int_in_range(0u8..=8)? {
        0 => AnnValue::Int(i64::from(u.int_in_range(0u8..=3)?)),
        1 => AnnValue::Float(0.5),
        2 => AnnValue::Bool(true),
        3 => AnnValue::Str("0, 1".into()),
        4 => AnnValue::Dict(Annotations::new()),
        5 => AnnValue::List(vec![AnnValue::Int(0), AnnValue::Float(1.5)]),
        6 => AnnValue::List(vec![AnnValue::Str("0".into())]),
        7 => AnnValue::List(vec![AnnValue::Bool(false), AnnValue::Int(1)]),
        _ => AnnValue::List(vec![int_list(&[0, 1])]),
    };
    let mut annotations = lists.annotations();
    annotations.insert(key, value);
    Ok(Breakage::Annotations(annotations))
}

/// Applies the breakage to the `target`-th pipelined loop in pre-order.
struct Corrupt {
    target: usize,
    seen: usize,
    breakage: Option<Breakage>,
}

impl MutVisitor for Corrupt {
    fn mutate_stmt(&mut self, stmt: &mut Stmt) {
        if let StmtKind::For(f) = &mut stmt.kind {
            if f.annotations.get(PIPELINE_STAGE).is_some() {
                if self.seen == self.target {
                    apply(f, self.breakage.take());
                }
                self.seen += 1;
            }
        }
        walk_stmt_mut(self, stmt);
    }
}

fn apply(f: &mut For, breakage: Option<Breakage>) {
    match breakage {
        Some(Breakage::Annotations(annotations)) => f.annotations = annotations,
        Some(Breakage::Kind(kind)) => f.kind = kind,
        None => {}
    }
}
