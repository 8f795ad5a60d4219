//! stub
pub struct VectorizeLoop;
impl crate::Pass for VectorizeLoop {
    fn name(&self) -> &'static str { "vectorize-loop" }
    fn description(&self) -> &'static str { "" }
    fn run(&self, _m: &mut tirproof_ir::IRModule) -> Result<(), crate::PassError> { Ok(()) }
}
