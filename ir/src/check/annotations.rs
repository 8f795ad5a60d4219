//! The software-pipeline annotations on loops: `software_pipeline_stage`,
//! `software_pipeline_order` and `software_pipeline_async_stages`.
//!
//! The rules live in `crate::pipeline_annotations`, which the pipeline pass reads its spec
//! with too, so the checker refuses exactly what the pass would, with the same messages; here
//! they are only reported at the loop.

use super::Checker;
use crate::pipeline_annotations::pipeline_annotation_errors;
use crate::stmt::For;

impl Checker {
    pub(super) fn check_loop_annotations(&mut self, f: &For) {
        for error in pipeline_annotation_errors(&f.annotations) {
            self.error(error.to_string());
        }
    }
}
