//! The TVMScript text format as TVM 0.27 prints it: lexer, parser and printer.
//!
//! `parse_module` accepts a module (`@I.ir_module class Module:`) or a bare `@T.prim_func`
//! and reports every error it can recover from as a located `Diagnostic`; it never panics.
//! `print_module` is deterministic, and what it prints parses back to a structurally equal
//! module.

pub mod lex;
mod names;
pub mod parse;
pub mod print;

pub use parse::parse_module;
pub use print::{print_expr, print_func, print_module, print_module_with_provenance, print_stmt};
