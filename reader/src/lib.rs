//! tirproof-reader: TVMScript text, as TVM 0.27 prints it, read into `tirproof-ir`.
//!
//! Three stages: the lexer (`lex`), the grammar (tokens to a surface tree) and the lowering
//! (surface tree to IR, with name resolution), all under `parse`. `parse_module` accepts a
//! module (`@I.ir_module class Module:`) or a bare `@T.prim_func`, reports every error it can
//! recover from as a located [`Diagnostic`], and never panics. The printer lives in
//! `tirproof_ir::print`; what it prints reads back to a structurally equal module. Bytes
//! become text in `decode`, which locates invalid UTF-8.
//!
//! Invariant: this crate only reads; it owns no IR type and knows nothing of execution.

pub mod decode;
pub mod lex;
pub mod parse;

pub use decode::decode_source;
pub use parse::parse_module;
pub use tirproof_ir::diag::{Diagnostic, Diagnostics};
