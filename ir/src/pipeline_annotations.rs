//! The rules of the three software-pipeline annotations on a loop, in one place:
//! `software_pipeline_stage`, `software_pipeline_order` and `software_pipeline_async_stages`.
//!
//! `read_pipeline_spec` reads a pipelined loop's annotations into a typed `PipelineSpec` (the
//! pipeline pass transforms with it) and `pipeline_annotation_errors` lists the problems of
//! whichever of them a loop has (the well-formedness checker reports them); both apply the same
//! rules with the same messages. Rules: each annotation present is a list of integers (`AnnValue::Int`, or an
//! integer immediate expression); the stage and order lists have the same length; stages lie in
//! `0..=MAX_STAGE`; the order is a permutation of `0..n`; every async stage is a stage of the
//! loop. A missing order means program order, a missing async list means no async stage.
//! Whether the lists match the loop body's statements is left to the pass, which knows how it
//! splits the body.
//!
//! Invariant: every problem found is reported, in a fixed order (malformed lists, lengths,
//! order, stages, async stages); a list that is malformed takes part in no further rule.

use std::collections::BTreeSet;
use std::fmt;

use crate::annotation::{AnnValue, Annotations, PIPELINE_ASYNC_STAGES, PIPELINE_ORDER, PIPELINE_STAGE};
use crate::expr::Expr;

/// The largest stage accepted: the pass peels that many steps and keeps that many versions of
/// a staging buffer, so a larger stage is a typo, not a pipeline (and would overflow).
pub const MAX_STAGE: i64 = 256;

/// The validated pipeline annotations of one loop: one stage and one order entry per
/// statement of the loop body.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PipelineSpec {
    pub stages: Vec<i64>,
    pub orders: Vec<i64>,
    pub async_stages: BTreeSet<i64>,
}

impl PipelineSpec {
    pub fn len(&self) -> usize {
        self.stages.len()
    }

    pub fn is_empty(&self) -> bool {
        self.stages.is_empty()
    }

    pub fn max_stage(&self) -> i64 {
        self.stages.iter().copied().max().unwrap_or(0)
    }

    pub fn is_async(&self, stmt: usize) -> bool {
        self.stages.get(stmt).is_some_and(|s| self.async_stages.contains(s))
    }
}

/// One of the three pipeline annotation keys; `Display` is the key as written.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PipelineKey {
    Stage,
    Order,
    AsyncStages,
}

impl PipelineKey {
    pub fn key(self) -> &'static str {
        match self {
            PipelineKey::Stage => PIPELINE_STAGE,
            PipelineKey::Order => PIPELINE_ORDER,
            PipelineKey::AsyncStages => PIPELINE_ASYNC_STAGES,
        }
    }
}

impl fmt::Display for PipelineKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.key())
    }
}

/// A list of integers as Python writes it: `[0, 1, 3]`.
#[derive(Clone, Copy, Debug)]
pub struct IntList<'a>(pub &'a [i64]);

impl fmt::Display for IntList<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("[")?;
        for (i, value) in self.0.iter().enumerate() {
            if i > 0 {
                f.write_str(", ")?;
            }
            write!(f, "{value}")?;
        }
        f.write_str("]")
    }
}

/// Why the pipeline annotations of a loop are invalid.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum SpecError {
    #[error("annotation `{key}` must be a list of integers, found {found}")]
    NotAList { key: PipelineKey, found: &'static str },
    #[error("annotation `{key}` must be a list of integers, found a list containing {found}")]
    NotAnInteger { key: PipelineKey, found: &'static str },
    #[error(
        "`{PIPELINE_STAGE}` has {stages} entries but `{PIPELINE_ORDER}` has {orders}; both need one entry per statement"
    )]
    LengthsDiffer { stages: usize, orders: usize },
    #[error("`{PIPELINE_ORDER}` {} is not a permutation of 0..{}", IntList(.orders), .orders.len())]
    OrderNotAPermutation { orders: Vec<i64> },
    #[error("pipeline stage {0} is negative; stages start at 0")]
    NegativeStage(i64),
    #[error("pipeline stage {0} is larger than {MAX_STAGE}, the most supported")]
    StageTooLarge(i64),
    #[error("async stage {stage} has no statement (the stages are {})", IntList(.stages))]
    AsyncStageWithoutStatement { stage: i64, stages: Vec<i64> },
}

/// Whether a loop asks to be pipelined.
pub fn is_pipelined(annotations: &Annotations) -> bool {
    annotations.get(PIPELINE_STAGE).is_some()
}

/// Reads and validates the pipeline annotations of a pipelined loop: `None` when the loop is
/// not pipelined (it has no stage list), `Err` with every problem found when they are invalid.
pub fn read_pipeline_spec(annotations: &Annotations) -> Option<Result<PipelineSpec, Vec<SpecError>>> {
    if !is_pipelined(annotations) {
        return None;
    }
    let lists = Lists::validate(annotations);
    if !lists.errors.is_empty() {
        return Some(Err(lists.errors));
    }
    // Without errors the stage list is present and well formed.
    let stages = lists.stages.unwrap_or_default();
    let orders = lists.orders.unwrap_or_else(|| (0..stages.len() as i64).collect());
    let async_stages = lists.async_stages.unwrap_or_default().into_iter().collect();
    Some(Ok(PipelineSpec { stages, orders, async_stages }))
}

/// Every problem of whichever pipeline annotations a loop has, pipelined or not (what the
/// checker reports).
pub fn pipeline_annotation_errors(annotations: &Annotations) -> Vec<SpecError> {
    Lists::validate(annotations).errors
}

/// The three lists as read (`None`: absent or malformed) and the problems found.
struct Lists {
    stages: Option<Vec<i64>>,
    orders: Option<Vec<i64>>,
    async_stages: Option<Vec<i64>>,
    errors: Vec<SpecError>,
}

impl Lists {
    fn validate(annotations: &Annotations) -> Lists {
        let mut errors = Vec::new();
        let stages = int_list(annotations, PipelineKey::Stage, &mut errors);
        let orders = int_list(annotations, PipelineKey::Order, &mut errors);
        let async_stages = int_list(annotations, PipelineKey::AsyncStages, &mut errors);
        if let (Some(stages), Some(orders)) = (&stages, &orders) {
            if stages.len() != orders.len() {
                errors.push(SpecError::LengthsDiffer { stages: stages.len(), orders: orders.len() });
            }
        }
        if let Some(orders) = &orders {
            if !is_permutation(orders) {
                errors.push(SpecError::OrderNotAPermutation { orders: orders.clone() });
            }
        }
        if let Some(stages) = &stages {
            if let Some(&bad) = stages.iter().find(|&&s| s < 0) {
                errors.push(SpecError::NegativeStage(bad));
            }
            if let Some(&bad) = stages.iter().find(|&&s| s > MAX_STAGE) {
                errors.push(SpecError::StageTooLarge(bad));
            }
        }
        if let (Some(stages), Some(async_stages)) = (&stages, &async_stages) {
            for &stage in async_stages.iter().filter(|s| !stages.contains(s)) {
                errors.push(SpecError::AsyncStageWithoutStatement { stage, stages: stages.clone() });
            }
        }
        Lists { stages, orders, async_stages, errors }
    }
}

/// The value of `key` as integers; `None` when absent or malformed (malformed is reported).
fn int_list(annotations: &Annotations, key: PipelineKey, errors: &mut Vec<SpecError>) -> Option<Vec<i64>> {
    let value = annotations.get(key.key())?;
    let AnnValue::List(items) = value else {
        errors.push(SpecError::NotAList { key, found: value.kind_name() });
        return None;
    };
    let mut out = Vec::with_capacity(items.len());
    for item in items {
        match int_item(item) {
            Some(i) => out.push(i),
            None => {
                errors.push(SpecError::NotAnInteger { key, found: item.kind_name() });
                return None;
            }
        }
    }
    Some(out)
}

/// An integer list item: an int, or an integer immediate expression.
fn int_item(item: &AnnValue) -> Option<i64> {
    match item {
        AnnValue::Int(i) => Some(*i),
        AnnValue::Expr(Expr::Int { value, dtype }) if dtype.is_integer() => Some(*value),
        _ => None,
    }
}

fn is_permutation(orders: &[i64]) -> bool {
    let n = orders.len() as i64;
    let distinct: BTreeSet<i64> = orders.iter().copied().collect();
    distinct.len() == orders.len() && orders.iter().all(|&o| (0..n).contains(&o))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ann(entries: &[(&str, Vec<i64>)]) -> Annotations {
        let mut a = Annotations::new();
        for (k, v) in entries {
            a.insert(*k, AnnValue::List(v.iter().map(|i| AnnValue::Int(*i)).collect()));
        }
        a
    }

    fn messages(annotations: &Annotations) -> Vec<String> {
        pipeline_annotation_errors(annotations).iter().map(ToString::to_string).collect()
    }

    fn spec(annotations: &Annotations) -> PipelineSpec {
        match read_pipeline_spec(annotations) {
            Some(Ok(spec)) => spec,
            other => panic!("not a valid spec: {other:?}"),
        }
    }

    #[test]
    fn reads_a_valid_spec() {
        let spec = spec(&ann(&[
            (PIPELINE_STAGE, vec![0, 0, 3]),
            (PIPELINE_ORDER, vec![0, 2, 1]),
            (PIPELINE_ASYNC_STAGES, vec![0]),
        ]));
        assert_eq!(spec.max_stage(), 3);
        assert!(spec.is_async(1) && !spec.is_async(2));
    }

    #[test]
    fn reports_every_problem() {
        let annotations =
            ann(&[(PIPELINE_STAGE, vec![0, -1]), (PIPELINE_ORDER, vec![0, 0, 1]), (PIPELINE_ASYNC_STAGES, vec![2])]);
        assert!(matches!(read_pipeline_spec(&annotations), Some(Err(errors)) if errors.len() == 4));
        let errors = messages(&annotations);
        assert_eq!(
            errors,
            vec![
                "`software_pipeline_stage` has 2 entries but `software_pipeline_order` has 3; both need one entry per statement",
                "`software_pipeline_order` [0, 0, 1] is not a permutation of 0..3",
                "pipeline stage -1 is negative; stages start at 0",
                "async stage 2 has no statement (the stages are [0, -1])",
            ]
        );
    }

    #[test]
    fn missing_order_means_program_order() {
        let spec = spec(&ann(&[(PIPELINE_STAGE, vec![0, 1])]));
        assert_eq!(spec.orders, vec![0, 1]);
        assert!(spec.async_stages.is_empty());
    }

    #[test]
    fn a_loop_without_stages_is_not_pipelined_but_its_other_lists_are_checked() {
        assert_eq!(read_pipeline_spec(&ann(&[(PIPELINE_ORDER, vec![1, 0])])), None);
        assert_eq!(
            messages(&ann(&[(PIPELINE_ORDER, vec![1, 1])])),
            vec!["`software_pipeline_order` [1, 1] is not a permutation of 0..2"]
        );
    }

    #[test]
    fn a_malformed_list_takes_part_in_no_other_rule() {
        let mut annotations = ann(&[(PIPELINE_ORDER, vec![0, 1, 2])]);
        annotations.insert(PIPELINE_STAGE, AnnValue::Str("0, 1".into()));
        assert_eq!(
            messages(&annotations),
            vec!["annotation `software_pipeline_stage` must be a list of integers, found a string"]
        );
    }

    #[test]
    fn stages_beyond_the_limit_are_refused() {
        assert_eq!(
            messages(&ann(&[(PIPELINE_STAGE, vec![0, MAX_STAGE + 1])])),
            vec!["pipeline stage 257 is larger than 256, the most supported"]
        );
    }
}
