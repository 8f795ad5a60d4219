//! stub
pub struct VectorTypeRewrite;
impl crate::Pass for VectorTypeRewrite {
    fn name(&self) -> &'static str { "vector-type-rewrite" }
    fn description(&self) -> &'static str { "" }
    fn run(&self, _m: &mut tirproof_ir::IRModule) -> Result<(), crate::PassError> { Ok(()) }
}
