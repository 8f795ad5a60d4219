//! Reading and validating the three pipeline annotations of a loop.
//!
//! `software_pipeline_stage` and `software_pipeline_order` give one entry per statement of the
//! loop body; `software_pipeline_async_stages` lists stages whose statements become
//! asynchronous. When the order is missing the statements keep program order. Every problem
//! is reported against the loop, and all problems found are reported together.

use std::collections::BTreeSet;

use tirproof_ir::annotation::{PIPELINE_ASYNC_STAGES, PIPELINE_ORDER, PIPELINE_STAGE};
use tirproof_ir::{AnnValue, Annotations, Diagnostic, Span};

/// The validated annotations of one loop.
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

/// Whether a loop asks to be pipelined.
pub fn is_pipelined(annotations: &Annotations) -> bool {
    annotations.get(PIPELINE_STAGE).is_some()
}

/// Reads the annotations; `Err` holds every problem found.
pub fn read_spec(annotations: &Annotations, span: Span) -> Result<PipelineSpec, Vec<Diagnostic>> {
    let mut errors = Vec::new();
    let stages = int_list(annotations, PIPELINE_STAGE, span, &mut errors).unwrap_or_default();
    let orders = match annotations.get(PIPELINE_ORDER) {
        None => Some((0..stages.len() as i64).collect()),
        Some(_) => int_list(annotations, PIPELINE_ORDER, span, &mut errors),
    };
    let async_list = match annotations.get(PIPELINE_ASYNC_STAGES) {
        None => Some(Vec::new()),
        Some(_) => int_list(annotations, PIPELINE_ASYNC_STAGES, span, &mut errors),
    };
    let (Some(orders), Some(async_list)) = (orders, async_list) else {
        return Err(errors);
    };
    check_lengths(&stages, &orders, span, &mut errors);
    check_permutation(&orders, span, &mut errors);
    check_stages(&stages, span, &mut errors);
    let async_stages = check_async_stages(&stages, &async_list, span, &mut errors);
    if errors.is_empty() {
        Ok(PipelineSpec { stages, orders, async_stages })
    } else {
        Err(errors)
    }
}

fn int_list(ann: &Annotations, key: &str, span: Span, errors: &mut Vec<Diagnostic>) -> Option<Vec<i64>> {
    let value = ann.get(key)?;
    match value.as_int_list() {
        Some(list) => Some(list),
        None => {
            let found = match value {
                AnnValue::List(_) => "a list with non-integer entries",
                other => other.kind_name(),
            };
            errors
                .push(Diagnostic::error(span, format!("annotation `{key}` must be a list of integers, found {found}")));
            None
        }
    }
}

fn check_lengths(stages: &[i64], orders: &[i64], span: Span, errors: &mut Vec<Diagnostic>) {
    if stages.len() != orders.len() {
        errors.push(Diagnostic::error(
            span,
            format!(
                "`{PIPELINE_STAGE}` has {} entries but `{PIPELINE_ORDER}` has {}; both need one entry per statement",
                stages.len(),
                orders.len()
            ),
        ));
    }
}

fn check_permutation(orders: &[i64], span: Span, errors: &mut Vec<Diagnostic>) {
    let n = orders.len() as i64;
    let distinct: BTreeSet<i64> = orders.iter().copied().collect();
    if distinct.len() != orders.len() || orders.iter().any(|&o| o < 0 || o >= n) {
        errors.push(Diagnostic::error(
            span,
            format!("`{PIPELINE_ORDER}` {} is not a permutation of 0..{n}", show(orders)),
        ));
    }
}

/// The largest stage accepted: the pass peels that many steps and keeps that many versions of
/// a staging buffer, so a larger stage is a typo, not a pipeline (and would overflow).
pub const MAX_STAGE: i64 = 256;

fn check_stages(stages: &[i64], span: Span, errors: &mut Vec<Diagnostic>) {
    if let Some(bad) = stages.iter().find(|&&s| s < 0) {
        errors.push(Diagnostic::error(span, format!("pipeline stage {bad} is negative; stages start at 0")));
    }
    if let Some(bad) = stages.iter().find(|&&s| s > MAX_STAGE) {
        errors.push(Diagnostic::error(
            span,
            format!("pipeline stage {bad} is larger than {MAX_STAGE}, the most supported"),
        ));
    }
}

fn check_async_stages(stages: &[i64], list: &[i64], span: Span, errors: &mut Vec<Diagnostic>) -> BTreeSet<i64> {
    let used: BTreeSet<i64> = stages.iter().copied().collect();
    for stage in list {
        if !used.contains(stage) {
            errors.push(Diagnostic::error(
                span,
                format!("async stage {stage} has no statement (the stages are {})", show(stages)),
            ));
        }
    }
    list.iter().copied().collect()
}

pub(crate) fn show(list: &[i64]) -> String {
    let parts: Vec<String> = list.iter().map(i64::to_string).collect();
    format!("[{}]", parts.join(", "))
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

    fn messages(result: Result<PipelineSpec, Vec<Diagnostic>>) -> Vec<String> {
        result.err().unwrap_or_default().into_iter().map(|d| d.message).collect()
    }

    #[test]
    fn reads_a_valid_spec() {
        let spec = read_spec(
            &ann(&[(PIPELINE_STAGE, vec![0, 0, 3]), (PIPELINE_ORDER, vec![0, 2, 1]), (PIPELINE_ASYNC_STAGES, vec![0])]),
            Span::UNKNOWN,
        )
        .expect("valid");
        assert_eq!(spec.max_stage(), 3);
        assert!(spec.is_async(1) && !spec.is_async(2));
    }

    #[test]
    fn reports_every_problem() {
        let errors = messages(read_spec(
            &ann(&[(PIPELINE_STAGE, vec![0, -1]), (PIPELINE_ORDER, vec![0, 0, 1]), (PIPELINE_ASYNC_STAGES, vec![2])]),
            Span::UNKNOWN,
        ));
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
        let spec = read_spec(&ann(&[(PIPELINE_STAGE, vec![0, 1])]), Span::UNKNOWN).expect("valid");
        assert_eq!(spec.orders, vec![0, 1]);
    }
}
