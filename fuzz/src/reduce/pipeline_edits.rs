//! Edits of pipelined loops: remove one of the loop's statements (with its entries of the
//! stage and order annotations), drop one async stage, lower one statement's stage.
//!
//! Each keeps the annotations consistent with the body: the stage list and the order list have
//! one entry per statement, the orders are renumbered to a permutation, and async stages that
//! no statement uses any more are dropped.

use tirproof_ir::annotation::{PIPELINE_ASYNC_STAGES, PIPELINE_ORDER, PIPELINE_STAGE};
use tirproof_ir::{AnnValue, For, Stmt, StmtKind};

/// The annotations of a pipelined loop, as integer lists.
pub struct Spec {
    pub stages: Vec<i64>,
    pub orders: Vec<i64>,
    pub async_stages: Vec<i64>,
}

impl Spec {
    pub fn of(f: &For) -> Option<Spec> {
        let list = |key: &str| f.annotations.get(key).and_then(AnnValue::as_int_list);
        let stages = list(PIPELINE_STAGE)?;
        let orders = list(PIPELINE_ORDER)?;
        Some(Spec { stages, orders, async_stages: list(PIPELINE_ASYNC_STAGES).unwrap_or_default() })
    }

    fn write(&self, f: &mut For) {
        let ints = |v: &[i64]| AnnValue::List(v.iter().map(|&x| AnnValue::Int(x)).collect());
        f.annotations.insert(PIPELINE_STAGE, ints(&self.stages));
        f.annotations.insert(PIPELINE_ORDER, ints(&self.orders));
        if f.annotations.get(PIPELINE_ASYNC_STAGES).is_some() {
            f.annotations.insert(PIPELINE_ASYNC_STAGES, ints(&self.async_stages));
        }
    }

    /// Drops async stages no statement is in.
    fn prune_async(&mut self) {
        let stages = self.stages.clone();
        self.async_stages.retain(|s| stages.contains(s));
    }
}

/// Which edit of a pipelined loop.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LoopEdit {
    RemoveStatement,
    DropAsyncStage,
    LowerStage,
}

impl LoopEdit {
    /// How many places this edit can apply to in `f`.
    pub fn sites(self, f: &For) -> usize {
        let Some(spec) = Spec::of(f) else { return 0 };
        match self {
            LoopEdit::RemoveStatement if spec.stages.len() >= 2 => spec.stages.len(),
            LoopEdit::RemoveStatement => 0,
            LoopEdit::DropAsyncStage => spec.async_stages.len(),
            LoopEdit::LowerStage => spec.stages.len(),
        }
    }

    /// Applies the edit at `site` (below [`LoopEdit::sites`]); false when it does not apply.
    pub fn apply(self, f: &mut For, site: usize) -> bool {
        let Some(mut spec) = Spec::of(f) else { return false };
        let applied = match self {
            LoopEdit::RemoveStatement => remove_statement(f, &mut spec, site),
            LoopEdit::DropAsyncStage => {
                site < spec.async_stages.len() && {
                    spec.async_stages.remove(site);
                    true
                }
            }
            LoopEdit::LowerStage => lower_stage(&mut spec, site),
        };
        if applied {
            spec.write(f);
        }
        applied
    }
}

fn lower_stage(spec: &mut Spec, k: usize) -> bool {
    match spec.stages.get_mut(k) {
        Some(stage) if *stage > 0 => {
            *stage -= 1;
            spec.prune_async();
            true
        }
        _ => false,
    }
}

fn remove_statement(f: &mut For, spec: &mut Spec, k: usize) -> bool {
    let n = spec.stages.len();
    if k >= n || spec.orders.len() != n {
        return false;
    }
    let Some(stmts) = statements_mut(&mut f.body, n) else { return false };
    stmts.remove(k);
    spec.stages.remove(k);
    spec.orders.remove(k);
    spec.orders = ranks(&spec.orders);
    spec.prune_async();
    true
}

/// Each value replaced by its rank (ties by position): a permutation of `0..len`.
fn ranks(values: &[i64]) -> Vec<i64> {
    let mut by_value: Vec<usize> = (0..values.len()).collect();
    by_value.sort_by_key(|&i| (values[i], i));
    let mut out = vec![0; values.len()];
    for (rank, i) in by_value.into_iter().enumerate() {
        out[i] = rank as i64;
    }
    out
}

/// The level of `body` with `n` statements, looking through allocations, declarations, lets
/// and the body block as the pass does.
fn statements_mut(body: &mut Stmt, n: usize) -> Option<&mut Vec<Stmt>> {
    if matches!(&body.kind, StmtKind::Seq(items) if items.len() == n) {
        let StmtKind::Seq(items) = &mut body.kind else { return None };
        return Some(items);
    }
    match &mut body.kind {
        StmtKind::AllocBuffer { body, .. } | StmtKind::DeclBuffer { body, .. } | StmtKind::Let { body, .. } => {
            statements_mut(body, n)
        }
        StmtKind::Block(block) => statements_mut(&mut block.body, n),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::ranks;

    #[test]
    fn ranks_are_a_permutation_in_value_order() {
        assert_eq!(ranks(&[3, 0, 2]), vec![2, 0, 1]);
        assert_eq!(ranks(&[1, 1, 0]), vec![1, 2, 0]);
    }
}
