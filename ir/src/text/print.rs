//! The printer (placeholder until it lands).

use crate::expr::Expr;
use crate::func::{IRModule, PrimFunc};
use crate::stmt::Stmt;

pub fn print_module(module: &IRModule) -> String {
    format!("{module:?}")
}
pub fn print_func(func: &PrimFunc) -> String {
    format!("{func:?}")
}
pub fn print_stmt(stmt: &Stmt) -> String {
    format!("{stmt:?}")
}
pub fn print_expr(expr: &Expr) -> String {
    format!("{expr:?}")
}
