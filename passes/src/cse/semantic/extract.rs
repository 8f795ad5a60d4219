//! Extraction: the term a class is bound to.
//!
//! The cost of a term is its number of nodes, then (to break ties) the sum of the ranks of its
//! nodes: a node written in the program ranks by the order it was added in, any other node
//! ranks after all of them. So among the smallest terms the one written earliest wins, and
//! `cse-semantic` binds what the programmer wrote whenever that is as small as anything else. A
//! term that reads a let variable costs infinitely much: such a variable is visible only in its
//! own scope, and the placement reuses it through the context instead.

use std::collections::{HashMap, HashSet};

use egg::{CostFunction, Extractor, Id, Language};
use tirproof_ir::Expr;

use super::analysis::Graph;
use super::convert::{to_expr, Leaves};
use super::lang::TirLang;

/// The rank of a node not written in the program.
const UNWRITTEN: u64 = 1 << 32;

/// The cost of a term that reads a let variable: never chosen while anything else exists.
const INFINITE: (u64, u64) = (u64::MAX / 4, u64::MAX / 4);

struct SizeThenRank<'a> {
    written: &'a HashMap<TirLang, u64>,
    /// The ids of the let variables.
    banned: &'a HashSet<u32>,
}

impl CostFunction<TirLang> for SizeThenRank<'_> {
    type Cost = (u64, u64);

    fn cost<C>(&mut self, enode: &TirLang, mut costs: C) -> Self::Cost
    where
        C: FnMut(Id) -> Self::Cost,
    {
        if matches!(enode, TirLang::Var(leaf) if self.banned.contains(&leaf.id)) {
            return INFINITE;
        }
        let rank = self.written.get(enode).copied().unwrap_or(UNWRITTEN);
        enode.children().iter().fold((1, rank), |(size, rank), c| {
            let (s, r) = costs(*c);
            (size.saturating_add(s), rank.saturating_add(r))
        })
    }
}

/// The cheapest term of each of `classes` that reads no let variable, as IR (classes whose
/// every term reads one are left out).
pub fn best_terms(
    egraph: &Graph,
    classes: HashSet<Id>,
    written: &HashMap<TirLang, u64>,
    banned: &HashSet<u32>,
    leaves: &Leaves,
) -> HashMap<Id, Expr> {
    let extractor = Extractor::new(egraph, SizeThenRank { written, banned });
    let mut out = HashMap::new();
    for class in classes {
        let (cost, term) = extractor.find_best(class);
        if cost < INFINITE {
            if let Ok(e) = to_expr(&term, leaves) {
                out.insert(egraph.find(class), e);
            }
        }
    }
    out
}
