//! MLIR's printed text: the lexer, the generic op tree, and the queries every reader asks of
//! an op (its operands, an integer attribute, its types).

pub mod lex;
pub mod parse;
pub mod query;

pub use lex::{Tok, TokKind};
pub use parse::{parse, Block, Module, Op, Region};
