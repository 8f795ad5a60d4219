//! Extraction: the term a class is bound to.
//!
//! The cost of a term is its number of nodes, then (to break ties) the sum of the ranks of its
//! nodes: a node written in the program ranks by the order it was added in, any other node
//! ranks after all of them. So among the smallest terms the one written earliest wins, and
//! `cse-semantic` binds what the programmer wrote whenever that is as small as anything else.

use std::collections::HashMap;

use egg::{CostFunction, Extractor, Id, Language};
use tirproof_ir::Expr;

use super::analysis::Graph;
use super::convert::{to_expr, Leaves, ToExprError};
use super::lang::TirLang;

/// The rank of a node not written in the program.
const UNWRITTEN: u64 = 1 << 32;

struct SizeThenRank<'a> {
    written: &'a HashMap<TirLang, u64>,
}

impl CostFunction<TirLang> for SizeThenRank<'_> {
    type Cost = (u64, u64);

    fn cost<C>(&mut self, enode: &TirLang, mut costs: C) -> Self::Cost
    where
        C: FnMut(Id) -> Self::Cost,
    {
        let rank = self.written.get(enode).copied().unwrap_or(UNWRITTEN);
        enode.children().iter().fold((1, rank), |(size, rank), c| {
            let (s, r) = costs(*c);
            (size.saturating_add(s), rank.saturating_add(r))
        })
    }
}

/// The cheapest term of `class`, as IR.
pub fn best(egraph: &Graph, class: Id, written: &HashMap<TirLang, u64>, leaves: &Leaves) -> Result<Expr, ToExprError> {
    let extractor = Extractor::new(egraph, SizeThenRank { written });
    let (_, term) = extractor.find_best(class);
    to_expr(&term, leaves)
}
