//! The form TVM's `InjectSoftwarePipeline` takes: S-TIR. A pass input as the generators write
//! it allocates with `T.alloc_buffer` statements; TVM's pass looks for the buffers it may
//! version among the allocations of the block that is the pipelined loop's body, and TVM's
//! S-TIR functions allocate only in blocks.
//!
//! [`for_tvm`] turns every run of `T.alloc_buffer` statements into one opaque block
//! (`with T.sblock(""):`) that allocates those buffers and holds what they scoped over, and
//! marks the function `s_tir=True`. Nothing else changes: statements, loops, annotations and
//! the order of everything stay, and TVM's parser infers each block's reads and writes. A
//! function already in S-TIR is left as it is.

use tirproof_ir::visit::{walk_stmt_mut, MutVisitor};
use tirproof_ir::{Block, BlockAlloc, IRModule, Stmt, StmtKind};

/// `module` in the S-TIR form TVM's pass takes (see the module documentation).
pub fn for_tvm(module: &IRModule) -> IRModule {
    let mut module = module.clone();
    for func in module.functions.iter_mut().filter(|f| !f.s_tir) {
        func.s_tir = true;
        AllocationsToBlocks.mutate_stmt(&mut func.body);
    }
    module
}

struct AllocationsToBlocks;

impl MutVisitor for AllocationsToBlocks {
    fn mutate_stmt(&mut self, stmt: &mut Stmt) {
        if matches!(stmt.kind, StmtKind::AllocBuffer { .. }) {
            let mut current = std::mem::replace(stmt, Stmt::synthetic(StmtKind::Seq(Vec::new())));
            let span = current.span;
            let mut alloc_buffers = Vec::new();
            // A run of allocations, each scoping over the next, becomes one block.
            let body = loop {
                match current.kind {
                    StmtKind::AllocBuffer { buffer, annotations, body } => {
                        alloc_buffers.push(BlockAlloc { buffer, annotations });
                        current = *body;
                    }
                    kind => break Stmt { kind, span: current.span, origin: current.origin },
                }
            };
            stmt.span = span;
            stmt.kind = StmtKind::Block(Box::new(Block::opaque("", alloc_buffers, body)));
        }
        walk_stmt_mut(self, stmt);
    }
}

#[cfg(test)]
mod tests {
    use tirproof_ir::print::print_module;
    use tirproof_reader::parse_module;

    use super::*;

    #[test]
    fn allocations_become_the_blocks_that_hold_them() {
        let text = "@T.prim_func\ndef main(A: T.Buffer((8,), \"float32\"), C: T.Buffer((8,), \"float32\")):\n    L = T.alloc_buffer((1,), \"float32\", scope=\"local\")\n    for i in T.serial(8, annotations={\"software_pipeline_stage\": [0, 1], \"software_pipeline_order\": [0, 1], \"software_pipeline_async_stages\": [0]}):\n        S = T.alloc_buffer((1,), \"float32\", scope=\"shared\")\n        U = T.alloc_buffer((1,), \"float32\", scope=\"shared\")\n        S[0] = A[i]\n        U[0] = S[0]\n        C[i] = U[0] + L[0]\n";
        let module = parse_module(text).expect("parses");
        let printed = print_module(&for_tvm(&module));
        let expected = "@T.prim_func(s_tir=True)\ndef main(A: T.Buffer((8,), \"float32\"), C: T.Buffer((8,), \"float32\")):\n    with T.sblock(\"\"):\n        L = T.sblock_alloc_buffer((1,), \"float32\", scope=\"local\")\n        for i in T.serial(8, annotations={\"software_pipeline_stage\": [0, 1], \"software_pipeline_order\": [0, 1], \"software_pipeline_async_stages\": [0]}):\n            with T.sblock(\"\"):\n                S = T.sblock_alloc_buffer((1,), \"float32\", scope=\"shared\")\n                U = T.sblock_alloc_buffer((1,), \"float32\", scope=\"shared\")\n                S[0] = A[i]\n                U[0] = S[0]\n                C[i] = U[0] + L[0]\n";
        assert!(printed.ends_with(expected), "{printed}");
        // What it makes reads back as itself, and an S-TIR function is left alone.
        let reread = parse_module(&printed).expect("reads back");
        assert_eq!(print_module(&for_tvm(&reread)), printed);
    }
}
