//! Random producer/consumer graphs for the statements of one pipelined loop.
//!
//! Statement `k` reads an input, or results of earlier statements, or both, and writes either
//! its own staging buffer or a global output. The last statement always writes an output, so
//! every loop computes something observable. A statement that reads staging data runs under
//! the conjunction of its producers' conditions (transitively), so it never reads a slot its
//! producer skipped; outputs need no such care, since a skipped element keeps its initial
//! value in the original and the pipelined program alike.

use arbitrary::{Result, Unstructured};

use super::shape::{StmtShape, Target};

/// What statement `k` does.
#[derive(Clone, Debug)]
pub(super) struct StmtPlan {
    /// Earlier statements whose results it reads.
    pub sources: Vec<usize>,
    /// Which of the two inputs it reads, if any.
    pub input: Option<usize>,
    /// Writes a global output instead of a staging buffer.
    pub sink: bool,
    /// Every `var % modulus != residue` that guards it: its own, and (transitively) those of
    /// the statements whose staging data it reads.
    pub conditions: Vec<(i64, i64)>,
    pub constant: f64,
}

impl StmtPlan {
    pub fn shape(&self) -> StmtShape {
        StmtShape {
            sources: self.sources.clone(),
            target: if self.sink { Target::Output } else { Target::Staging },
            predicated: !self.conditions.is_empty(),
        }
    }
}

/// What the statements of a loop may do.
#[derive(Clone, Copy, Debug)]
pub(super) struct PlanOptions {
    pub predicates: bool,
    /// Later statements may read the outputs of earlier ones (not when outputs accumulate:
    /// the pass cannot version an accumulator, and most stage choices would be refused).
    pub read_outputs: bool,
}

/// Plans for `n` statements.
pub(super) fn plan_statements(u: &mut Unstructured<'_>, n: usize, options: PlanOptions) -> Result<Vec<StmtPlan>> {
    let mut plans: Vec<StmtPlan> = Vec::with_capacity(n);
    for k in 0..n {
        let sources = choose_sources(u, &plans, options)?;
        let input = if sources.is_empty() || u.ratio(1, 3)? { Some(u.int_in_range(0..=1)?) } else { None };
        let sink = k + 1 == n || u.ratio(1, 3)?;
        let conditions = choose_conditions(u, &plans, &sources, options)?;
        let constant = f64::from(u.int_in_range(1u8..=8)?) * 0.5;
        plans.push(StmtPlan { sources, input, sink, conditions, constant });
    }
    Ok(plans)
}

/// Up to two earlier statements to read; outputs less often than staging buffers.
fn choose_sources(u: &mut Unstructured<'_>, plans: &[StmtPlan], options: PlanOptions) -> Result<Vec<usize>> {
    let mut sources = Vec::new();
    for (p, plan) in plans.iter().enumerate() {
        let wanted = if plan.sink { options.read_outputs && u.ratio(1, 4)? } else { u.ratio(1, 2)? };
        if wanted && sources.len() < 2 {
            sources.push(p);
        }
    }
    Ok(sources)
}

fn choose_conditions(
    u: &mut Unstructured<'_>,
    plans: &[StmtPlan],
    sources: &[usize],
    options: PlanOptions,
) -> Result<Vec<(i64, i64)>> {
    let mut conditions: Vec<(i64, i64)> = Vec::new();
    if options.predicates && u.ratio(1, 5)? {
        conditions.push((*u.choose(&[2i64, 3])?, u.int_in_range(0..=1)?));
    }
    for plan in sources.iter().filter_map(|&p| plans.get(p)).filter(|plan| !plan.sink) {
        for c in &plan.conditions {
            if !conditions.contains(c) {
                conditions.push(*c);
            }
        }
    }
    Ok(conditions)
}
