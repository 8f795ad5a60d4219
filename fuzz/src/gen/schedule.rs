//! Choosing valid pipeline annotations for a dependence graph.
//!
//! Given, per statement, the earlier statements it reads, the choices here always satisfy what
//! the pipeline pass requires: a consumer is never in an earlier stage than its producers, and
//! within one stage it comes later in the order; the order is a permutation of `0..n`; every
//! async stage is a stage some statement is in, and none is the stage of a statement the
//! caller keeps synchronous.

use arbitrary::{Result, Unstructured};

use super::shape::{PipelineShape, StmtShape};

/// The three annotation lists of one pipelined loop.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) struct PipelineAnnotations {
    pub stages: Vec<i64>,
    pub orders: Vec<i64>,
    pub async_stages: Vec<i64>,
}

impl PipelineAnnotations {
    /// The shape of a loop with these annotations, starting at 0 with one lane and one
    /// thread, a symbolic extent and no inner loop; the caller overrides what differs.
    pub fn into_shape(self, statements: Vec<StmtShape>, staging_scope: &str) -> PipelineShape {
        PipelineShape {
            stages: self.stages,
            orders: self.orders,
            async_stages: self.async_stages,
            extent: None,
            min: 0,
            lanes: 1,
            threads: 1,
            statements,
            staging_scope: staging_scope.to_string(),
            inner: None,
            irregular: None,
        }
    }
}

/// Random valid annotations for statements whose producers are `sources[k]` (all `< k`);
/// the stages of the statements in `synchronous` are never async.
pub(super) fn choose_annotations(
    u: &mut Unstructured<'_>,
    sources: &[Vec<usize>],
    synchronous: &[usize],
) -> Result<PipelineAnnotations> {
    let stages = choose_stages(u, sources)?;
    let orders = choose_order(u, sources, &stages)?;
    let forbidden: Vec<i64> = synchronous.iter().filter_map(|&k| stages.get(k)).copied().collect();
    let async_stages = choose_async(u, &stages, &forbidden)?;
    Ok(PipelineAnnotations { stages, orders, async_stages })
}

/// Each statement at 0 to 2 stages past its latest producer.
fn choose_stages(u: &mut Unstructured<'_>, sources: &[Vec<usize>]) -> Result<Vec<i64>> {
    let mut stages: Vec<i64> = Vec::with_capacity(sources.len());
    for producers in sources {
        let floor = producers.iter().filter_map(|&p| stages.get(p)).copied().max().unwrap_or(0);
        stages.push(floor + i64::from(u.int_in_range(0u8..=2)?));
    }
    Ok(stages)
}

/// A random execution order in which a producer precedes its same-stage consumers.
fn choose_order(u: &mut Unstructured<'_>, sources: &[Vec<usize>], stages: &[i64]) -> Result<Vec<i64>> {
    let n = sources.len();
    let mut placed = vec![false; n];
    let mut orders = vec![0i64; n];
    for position in 0..n {
        let ready: Vec<usize> = (0..n)
            .filter(|&k| !placed[k])
            .filter(|&k| sources[k].iter().all(|&p| placed[p] || stages[p] < stages[k]))
            .collect();
        // Program order is always ready, so `ready` is never empty; `choose` fails only on
        // an empty list, which would be a bug here rather than a lack of bytes.
        let k = *u.choose(&ready)?;
        placed[k] = true;
        orders[k] = position as i64;
    }
    Ok(orders)
}

/// A random subset of the stages in use, except the `forbidden` ones.
fn choose_async(u: &mut Unstructured<'_>, stages: &[i64], forbidden: &[i64]) -> Result<Vec<i64>> {
    let mut used: Vec<i64> = stages.iter().filter(|s| !forbidden.contains(s)).copied().collect();
    used.sort_unstable();
    used.dedup();
    let mut chosen = Vec::new();
    for s in used {
        if u.arbitrary::<bool>()? {
            chosen.push(s);
        }
    }
    Ok(chosen)
}
