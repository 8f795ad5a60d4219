//! The software-pipeline annotations on loops: `software_pipeline_stage`,
//! `software_pipeline_order` and `software_pipeline_async_stages`.
//!
//! Rules: each is a list of integers (`AnnValue::Int`, or an integer immediate expression);
//! stage and order lists of one loop have the same length; stages are non-negative; the order
//! is a permutation of `0..n`; every async stage is a stage of the loop. Whether the lists
//! match the loop body's statements is left to the pipeline pass, which knows how it splits
//! the body.

use super::Checker;
use crate::annotation::{AnnValue, Annotations, PIPELINE_ASYNC_STAGES, PIPELINE_ORDER, PIPELINE_STAGE};
use crate::expr::Expr;
use crate::stmt::For;

impl Checker {
    pub(super) fn check_loop_annotations(&mut self, f: &For) {
        let stages = self.int_list_annotation(&f.annotations, PIPELINE_STAGE);
        let order = self.int_list_annotation(&f.annotations, PIPELINE_ORDER);
        let async_stages = self.int_list_annotation(&f.annotations, PIPELINE_ASYNC_STAGES);
        if let (Some(s), Some(o)) = (&stages, &order) {
            if s.len() != o.len() {
                self.error(format!(
                    "annotations `{PIPELINE_STAGE}` and `{PIPELINE_ORDER}` have different lengths ({} and {})",
                    s.len(),
                    o.len()
                ));
            }
        }
        if let Some(s) = &stages {
            self.check_stages(s);
        }
        if let Some(o) = &order {
            self.check_order(o);
        }
        if let (Some(s), Some(a)) = (&stages, &async_stages) {
            self.check_async_stages(s, a);
        }
    }

    /// The value of `key` as integers; `None` when absent or malformed (malformed is reported).
    fn int_list_annotation(&mut self, anns: &Annotations, key: &str) -> Option<Vec<i64>> {
        let value = anns.get(key)?;
        let AnnValue::List(items) = value else {
            self.error(format!("annotation `{key}` must be a list of integers, found {}", value.kind_name()));
            return None;
        };
        let mut out = Vec::with_capacity(items.len());
        for item in items {
            match int_item(item) {
                Some(i) => out.push(i),
                None => {
                    self.error(format!(
                        "annotation `{key}` must be a list of integers, found a list containing {}",
                        item.kind_name()
                    ));
                    return None;
                }
            }
        }
        Some(out)
    }

    fn check_stages(&mut self, stages: &[i64]) {
        if let Some(neg) = stages.iter().find(|s| **s < 0) {
            self.error(format!("annotation `{PIPELINE_STAGE}` has a negative stage {neg}"));
        }
    }

    fn check_order(&mut self, order: &[i64]) {
        let n = order.len();
        let mut seen = vec![false; n];
        let is_permutation = order.iter().all(|o| {
            let slot = usize::try_from(*o).ok().and_then(|i| seen.get_mut(i));
            match slot {
                Some(s) if !*s => {
                    *s = true;
                    true
                }
                _ => false,
            }
        });
        if !is_permutation {
            self.error(format!("annotation `{PIPELINE_ORDER}` must be a permutation of 0..{n}, found {order:?}"));
        }
    }

    fn check_async_stages(&mut self, stages: &[i64], async_stages: &[i64]) {
        for a in async_stages {
            if !stages.contains(a) {
                self.error(format!(
                    "async stage {a} in `{PIPELINE_ASYNC_STAGES}` is not a stage of this loop (stages {stages:?})"
                ));
            }
        }
    }
}

/// An integer list item: an int, or an integer immediate expression.
fn int_item(item: &AnnValue) -> Option<i64> {
    match item {
        AnnValue::Int(i) => Some(*i),
        AnnValue::Expr(Expr::Int { value, dtype }) if dtype.is_integer() => Some(*value),
        _ => None,
    }
}
