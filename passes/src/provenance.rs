//! Keeping provenance (`Stmt::origin`) through the rewrites that copy and rearrange
//! statements.
//!
//! A statement holds one origin, and a consumer (the verifier's data-flow check) collects the
//! origins of the statements enclosing an access, outermost first. A copy of a compound
//! statement whose parts already name their own origin (an inner pipeline's copies) therefore
//! needs the outer origin on something that encloses those parts. `Stmt::seq` flattens nested
//! sequences and would drop an origin set on a sequence, so an origin is never left on a
//! plain sequence: it goes onto each item, and an item that has an origin of its own is
//! wrapped in a one-item sequence that carries the outer one (which `seq` here keeps). A
//! rewrite that replaces a statement (a folded conditional, a lowered block) moves the
//! statement's origin onto what replaces it the same way.

use tirproof_ir::{Origin, Stmt, StmtKind};

/// `stmt` with `origin` as the outermost origin of everything in it.
pub(crate) fn attach(stmt: Stmt, origin: &Origin) -> Stmt {
    if stmt.origin.is_some() {
        return Stmt::synthetic(StmtKind::Seq(vec![stmt])).with_origin(origin.clone());
    }
    match stmt.kind {
        StmtKind::Seq(items) => {
            let items = items.into_iter().map(|item| attach(item, origin)).collect();
            Stmt { kind: StmtKind::Seq(items), ..stmt }
        }
        _ => stmt.with_origin(origin.clone()),
    }
}

/// Puts `new` in the place of `stmt`, which it stands for, provenance included.
pub(crate) fn replace(stmt: &mut Stmt, new: Stmt) {
    *stmt = match stmt.origin.take() {
        Some(origin) => attach(new, &origin),
        None => new,
    };
}

/// Like `Stmt::seq` (nested sequences flattened, a single item returned as is), except that
/// a sequence with an origin stays one item, so its origin is kept.
pub(crate) fn seq(stmts: Vec<Stmt>) -> Stmt {
    let mut flat = Vec::with_capacity(stmts.len());
    for s in stmts {
        match s.kind {
            StmtKind::Seq(inner) if s.origin.is_none() => flat.extend(inner),
            _ => flat.push(s),
        }
    }
    if flat.len() == 1 {
        if let Some(only) = flat.pop() {
            return only;
        }
    }
    Stmt::synthetic(StmtKind::Seq(flat))
}

#[cfg(test)]
mod tests {
    use super::*;
    use tirproof_ir::Expr;

    fn origin(stmt: u32) -> Origin {
        Origin { stmt, stage: 0, iteration: Expr::int(0) }
    }

    fn leaf() -> Stmt {
        Stmt::synthetic(StmtKind::Evaluate(Expr::int(0)))
    }

    /// The origins of the leaves of `s`, outermost first, in order.
    fn chains(s: &Stmt) -> Vec<Vec<u32>> {
        let own: Vec<u32> = s.origin.iter().map(|o| o.stmt).collect();
        match &s.kind {
            StmtKind::Seq(items) => {
                items.iter().flat_map(chains).map(|inner| own.iter().copied().chain(inner).collect()).collect()
            }
            _ => vec![own],
        }
    }

    #[test]
    fn a_sequence_passes_its_origin_to_every_item_and_keeps_inner_origins() {
        let inner = leaf().with_origin(origin(7));
        let copy = attach(Stmt::seq(vec![leaf(), inner]), &origin(1));
        assert!(copy.origin.is_none());
        assert_eq!(chains(&copy), vec![vec![1], vec![1, 7]]);
        // Flattening into an enclosing sequence keeps both chains.
        let outer = Stmt::seq(vec![leaf(), copy]);
        assert_eq!(chains(&outer), vec![vec![], vec![1], vec![1, 7]]);
    }

    #[test]
    fn a_statement_with_its_own_origin_is_wrapped_and_seq_keeps_the_wrapper() {
        let copy = attach(leaf().with_origin(origin(7)), &origin(1));
        assert_eq!(chains(&copy), vec![vec![1, 7]]);
        assert_eq!(chains(&seq(vec![leaf(), copy])), vec![vec![], vec![1, 7]]);
    }

    #[test]
    fn seq_flattens_plain_sequences_and_unwraps_a_single_item() {
        let s = seq(vec![Stmt::seq(vec![leaf(), leaf()]), Stmt::nop()]);
        assert!(matches!(&s.kind, StmtKind::Seq(items) if items.len() == 2));
        assert!(matches!(seq(vec![leaf()]).kind, StmtKind::Evaluate(_)));
    }
}
