//! Closed forms of commit counts: integer polynomials over atoms.
//!
//! An atom is a loop variable, a parameter, an expression of them that is no sum or product
//! (`n // 2`), or an unknown: the commits of a statement whose number depends on the path,
//! standing for one value per instance of the loops around it. Two counts taken after the
//! same unknown subtract it away, so a difference of counts can be closed even where the
//! counts are not.
//!
//! Invariants: a polynomial never holds a zero coefficient, so two polynomials are equal
//! exactly when their maps are; arithmetic on coefficients is checked (an overflow is
//! `None`, never a wrong count); an unknown is never turned into an expression, and
//! substituting a loop variable an unknown depends on fails.

use std::collections::{BTreeMap, HashMap};

use tirproof_ir::index_arith::{add, const_int, convert, imm, mul, wider};
use tirproof_ir::subst::Substitution;
use tirproof_ir::visit::{walk_expr, Visitor};
use tirproof_ir::{BinOp, DataType, Expr, Var, VarId};

use crate::fold::fold_expr;

/// A factor of a monomial.
#[derive(Clone, Debug, PartialEq)]
enum Atom {
    /// A variable the counts may mention, or an expression of them that is no sum or product.
    Term(Expr),
    /// The commits of a path-dependent statement, one value per instance of `loops`.
    Unknown { loops: Vec<VarId> },
}

/// A polynomial: monomials (sorted atom ids) with their non-zero coefficients.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct Poly {
    terms: BTreeMap<Vec<usize>, i64>,
}

impl Poly {
    pub(crate) fn constant(value: i64) -> Poly {
        let mut terms = BTreeMap::new();
        if value != 0 {
            terms.insert(Vec::new(), value);
        }
        Poly { terms }
    }

    /// The value of a constant polynomial.
    pub(crate) fn as_const(&self) -> Option<i64> {
        match self.terms.len() {
            0 => Some(0),
            1 => self.terms.get(&Vec::new()).copied(),
            _ => None,
        }
    }

    pub(crate) fn add(&self, other: &Poly) -> Option<Poly> {
        let mut terms = self.terms.clone();
        for (mono, c) in &other.terms {
            let sum = terms.get(mono).copied().unwrap_or(0).checked_add(*c)?;
            if sum == 0 {
                terms.remove(mono);
            } else {
                terms.insert(mono.clone(), sum);
            }
        }
        Some(Poly { terms })
    }

    pub(crate) fn scale(&self, factor: i64) -> Option<Poly> {
        if factor == 0 {
            return Some(Poly::default());
        }
        let terms = self.terms.iter().map(|(m, c)| Some((m.clone(), c.checked_mul(factor)?))).collect::<Option<_>>()?;
        Some(Poly { terms })
    }

    pub(crate) fn sub(&self, other: &Poly) -> Option<Poly> {
        self.add(&other.scale(-1)?)
    }

    pub(crate) fn offset(&self, value: i64) -> Option<Poly> {
        self.add(&Poly::constant(value))
    }

    pub(crate) fn mul(&self, other: &Poly) -> Option<Poly> {
        let mut out = Poly::default();
        for (ma, ca) in &self.terms {
            for (mb, cb) in &other.terms {
                let mut mono: Vec<usize> = ma.iter().chain(mb).copied().collect();
                mono.sort_unstable();
                let mut term = BTreeMap::new();
                term.insert(mono, ca.checked_mul(*cb)?);
                out = out.add(&Poly { terms: term })?;
            }
        }
        Some(out)
    }
}

/// The atoms of one function's counts, and the variables and pure lets counts may mention.
#[derive(Clone, Debug, Default)]
pub(crate) struct Atoms {
    table: Vec<Atom>,
    /// Loop variables, thread variables and parameters in scope.
    allowed: Vec<VarId>,
    /// Let-bound variables with values that load nothing: counts use the value.
    lets: HashMap<VarId, Expr>,
}

impl Atoms {
    /// `var` may appear in counts from now on.
    pub(crate) fn allow(&mut self, var: &Var) {
        self.allowed.push(var.id());
    }

    /// A mark of the variables in scope, to return to with [`Atoms::leave`].
    pub(crate) fn enter(&self) -> usize {
        self.allowed.len()
    }

    /// Forgets the variables allowed since `mark`.
    pub(crate) fn leave(&mut self, mark: usize) {
        self.allowed.truncate(mark);
    }

    /// `var` is bound to `value`; counts read the value when it loads nothing.
    pub(crate) fn bind(&mut self, var: &Var, value: &Expr) {
        if pure(value) {
            let inlined = self.inline(value);
            self.lets.insert(var.id(), inlined);
        }
    }

    fn intern(&mut self, atom: Atom) -> usize {
        match self.table.iter().position(|a| *a == atom) {
            Some(id) => id,
            None => {
                self.table.push(atom);
                self.table.len() - 1
            }
        }
    }

    /// A fresh unknown count that depends on the loops `loops`.
    pub(crate) fn unknown(&mut self, loops: Vec<VarId>) -> Poly {
        self.table.push(Atom::Unknown { loops });
        Poly { terms: BTreeMap::from([(vec![self.table.len() - 1], 1)]) }
    }

    /// `value` with the pure lets it mentions replaced by their values.
    fn inline(&self, value: &Expr) -> Expr {
        let mut subst = Substitution::new();
        let mut any = false;
        for (id, bound) in &self.lets {
            if let Some(var) = find_var(value, *id) {
                subst.set_var(&var, bound.clone());
                any = true;
            }
        }
        if any {
            subst.expr(value)
        } else {
            value.clone()
        }
    }

    /// The closed form of an integer expression, or `None` when it loads, calls or mentions a
    /// variable counts may not mention.
    pub(crate) fn poly(&mut self, e: &Expr) -> Option<Poly> {
        match e {
            Expr::Int { value, dtype } if dtype.is_integer() => Some(Poly::constant(*value)),
            Expr::Var(v) if self.lets.contains_key(&v.id()) => {
                let value = self.lets[&v.id()].clone();
                self.poly(&value)
            }
            Expr::Var(v) if self.allowed.contains(&v.id()) => {
                let id = self.intern(Atom::Term(e.clone()));
                Some(Poly { terms: BTreeMap::from([(vec![id], 1)]) })
            }
            Expr::Binary { op: BinOp::Add, lhs, rhs } => self.poly(lhs)?.add(&self.poly(rhs)?),
            Expr::Binary { op: BinOp::Sub, lhs, rhs } => self.poly(lhs)?.sub(&self.poly(rhs)?),
            Expr::Binary { op: BinOp::Mul, lhs, rhs } => self.poly(lhs)?.mul(&self.poly(rhs)?),
            Expr::Cast { dtype, value } if dtype.is_integer() && dtype.bits >= value.dtype().bits => self.poly(value),
            Expr::Binary { .. } if pure(e) => {
                let inlined = self.inline(e);
                if !self.mentions_only_allowed(&inlined) {
                    return None;
                }
                let id = self.intern(Atom::Term(inlined));
                Some(Poly { terms: BTreeMap::from([(vec![id], 1)]) })
            }
            _ => None,
        }
    }

    fn mentions_only_allowed(&self, e: &Expr) -> bool {
        struct Vars<'a>(&'a [VarId], bool);
        impl Visitor for Vars<'_> {
            fn visit_expr(&mut self, e: &Expr) {
                if let Expr::Var(v) = e {
                    self.1 &= self.0.contains(&v.id());
                }
                walk_expr(self, e);
            }
        }
        let mut vars = Vars(&self.allowed, true);
        vars.visit_expr(e);
        vars.1
    }

    /// Whether `p` depends on `var` (through a term or an unknown).
    pub(crate) fn mentions(&self, p: &Poly, var: &Var) -> bool {
        p.terms.keys().flatten().any(|id| match &self.table[*id] {
            Atom::Term(e) => find_var(e, var.id()).is_some(),
            Atom::Unknown { loops } => loops.contains(&var.id()),
        })
    }

    /// `p` with `var` replaced by `value`; `None` when an unknown depends on `var`.
    pub(crate) fn substitute(&mut self, p: &Poly, var: &Var, value: &Poly) -> Option<Poly> {
        let mut out = Poly::default();
        for (mono, c) in &p.terms {
            let mut product = Poly::constant(*c);
            for id in mono {
                let factor = match self.table[*id].clone() {
                    Atom::Term(Expr::Var(v)) if v == *var => value.clone(),
                    Atom::Term(e) if find_var(&e, var.id()).is_some() => {
                        let mut replaced = Substitution::new().var(var, self.expr(value, var.dtype())?).expr(&e);
                        fold_expr(&mut replaced);
                        self.poly(&replaced)?
                    }
                    Atom::Unknown { loops } if loops.contains(&var.id()) => return None,
                    _ => Poly { terms: BTreeMap::from([(vec![*id], 1)]) },
                };
                product = product.mul(&factor)?;
            }
            out = out.add(&product)?;
        }
        Some(out)
    }

    /// The integer type an expression of `p` has: the widest of its terms' types, at least
    /// `at_least`.
    fn dtype_of(&self, p: &Poly, at_least: DataType) -> DataType {
        p.terms.keys().flatten().fold(at_least, |t, id| match &self.table[*id] {
            Atom::Term(e) if e.dtype().is_integer() => wider(t, e.dtype()),
            _ => t,
        })
    }

    /// `p` as an expression (of type `dtype` or wider, if a term is); `None` when it holds an
    /// unknown.
    pub(crate) fn expr(&self, p: &Poly, dtype: DataType) -> Option<Expr> {
        let dtype = self.dtype_of(p, dtype);
        let mut sum: Option<Expr> = None;
        let mut constant = 0;
        for (mono, c) in &p.terms {
            if mono.is_empty() {
                constant = *c;
                continue;
            }
            let mut term = imm(*c, dtype);
            for id in mono {
                let Atom::Term(e) = &self.table[*id] else { return None };
                let factor = convert(e.clone(), dtype);
                term = if const_int(&term) == Some(1) { factor } else { mul(term, factor) };
            }
            sum = Some(match sum {
                None => term,
                Some(s) => add(s, term),
            });
        }
        Some(match sum {
            None => imm(constant, dtype),
            Some(s) if constant == 0 => s,
            Some(s) => crate::fold::add(s, imm(constant, dtype)),
        })
    }
}

/// Whether `e` reads no memory and calls nothing.
pub(crate) fn pure(e: &Expr) -> bool {
    struct Pure(bool);
    impl Visitor for Pure {
        fn visit_expr(&mut self, e: &Expr) {
            self.0 &= !matches!(e, Expr::Load(_) | Expr::Call(_));
            walk_expr(self, e);
        }
    }
    let mut p = Pure(true);
    p.visit_expr(e);
    p.0
}

/// The variable of id `id` that `e` mentions.
fn find_var(e: &Expr, id: VarId) -> Option<Var> {
    struct Find(VarId, Option<Var>);
    impl Visitor for Find {
        fn visit_expr(&mut self, e: &Expr) {
            if let Expr::Var(v) = e {
                if v.id() == self.0 {
                    self.1 = Some(v.clone());
                }
            }
            walk_expr(self, e);
        }
    }
    let mut find = Find(id, None);
    find.visit_expr(e);
    find.1
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn differences_of_counts_cancel_terms_and_unknowns() {
        let mut atoms = Atoms::default();
        let i = Var::new("i", DataType::INT32);
        atoms.allow(&i);
        let unknown = atoms.unknown(Vec::new());
        let twice = Expr::binary(BinOp::Mul, Expr::var(&i), Expr::int(2));
        let at_p = atoms.poly(&twice).unwrap().add(&unknown).unwrap().offset(1).unwrap();
        let at_w = at_p.offset(3).unwrap();
        assert_eq!(at_w.sub(&at_p).unwrap().as_const(), Some(3));
        assert_eq!(atoms.expr(&at_p, DataType::INT32), None, "an unknown has no expression");
        let before = atoms.poly(&Expr::var(&i)).unwrap().offset(-1).unwrap();
        let shifted = atoms.substitute(&at_p, &i, &before);
        assert_eq!(shifted.unwrap().sub(&at_p).unwrap().as_const(), Some(-2));
        let in_loop = atoms.unknown(vec![i.id()]);
        assert_eq!(atoms.substitute(&in_loop, &i, &Poly::constant(0)), None);
    }
}
