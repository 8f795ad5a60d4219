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
