//! tirproof-ir: the TIR data structures, the TVMScript printer, the well-formedness checker
//! and structural equality. The reader of the text format is `tirproof-reader`; execution
//! is `tirproof-machine` (the memory model) and `tirproof-interp` (TIR over it).
//!
//! Everything above this crate (passes, verifier, PTX, fuzzers, CLI) speaks these types.
//! Nothing here prints to the terminal or exits the process: errors are values.

pub mod annotation;
pub mod async_op;
pub mod buffer;
pub mod build;
pub mod dtype;
pub mod expr;
pub mod func;
pub mod span;
pub mod stmt;
pub mod thread;
pub mod var;
pub mod visit;

pub use annotation::{AnnValue, Annotations};
pub use buffer::{Buffer, BufferId, BufferRegion, BufferSpec, Range};
pub use dtype::{DataType, TypeCode};
pub use expr::{BinOp, BufferLoad, Call, CallEffect, CmpOp, Expr, LogicOp};
pub use func::{IRModule, Param, PrimFunc};
pub use span::Span;
pub use stmt::{
    Allocate, AttrStmt, Block, BlockAlloc, BufferStore, For, ForKind, IterKind, IterVar, Origin, Stmt, StmtKind,
};
pub use thread::{Axis, Launch, ThreadTag};
pub use var::{Var, VarId};

pub mod check;
pub mod diag;
pub mod index_arith;
pub mod int_arith;
pub mod intrinsics;
pub mod pipeline_annotations;
pub mod print;
pub mod structural;
pub mod subst;

pub use diag::{Diagnostic, Diagnostics};
