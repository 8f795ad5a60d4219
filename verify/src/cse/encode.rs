//! IR expressions to symbolic values (`sym`), inside one `Query`.
//!
//! Variables: a let-bound variable of the environment stands for its value (encoded once per
//! query); any other variable is a fresh query variable named after it (floats are declared as
//! their IEEE bit pattern and linked to a float term, so counterexamples show the bits). In rule
//! proofs, pattern variables are arbitrary values that may also fault (`declare_faulty`).
//!
//! Memory and effects: a load is an uninterpreted function of the buffer, the index lanes and a
//! memory version; a call that is not pure is an uninterpreted function of its arguments and
//! its rank among the impure calls of its side, and bumps that side's memory version. Both
//! sides of an obligation start from the same memory, so the same loads in the same order
//! denote the same values. Pure calls are uninterpreted functions of their arguments, lane by
//! lane (they never fault). Integer-to-float casts and `truncmod` of floats are uninterpreted
//! too. Uninterpreted parts only prove what holds for every interpretation, so they never make
//! a proof unsound; they can only make one fail.
//!
//! Reaching: a let of the environment was computed before the expression, so its value did not
//! fault; `reached` collects that fact for every let read (`reach_all` reads them all), and
//! obligations assume it.
//!
//! Faults: division and modulo by zero, shifts out of range and float-to-int casts out of range;
//! operands fault first; a lazy `if_then_else` with a scalar condition faults only through its
//! taken arm; a `Let` faults when its value or its body does.

use std::collections::{HashMap, HashSet};

use tirproof_ir::{BufferId, BufferLoad, Call, CallEffect, DataType, Expr, Var, VarId};
use z3::ast::RoundingMode;
use z3::ast::{Ast, Bool, Dynamic, Float, BV};
use z3::{AstKind, FuncDecl, Sort, SortKind};

use super::sym::{any, bv_width, float_format, from_bool, is_signed, lane_sort, Lane, Sym};
use super::{cast, float_ops, int_ops, EncodeError, Env, LetValue, Side};
use crate::solver::{Query, Signedness};

/// The encoder of one query.
pub struct Encoder<'a> {
    query: &'a mut Query,
    env: &'a Env,
    /// Free variables declared so far, by (original) id.
    free: HashMap<VarId, Sym>,
    /// Values of let-bound variables already encoded, by (original) id.
    lets: HashMap<VarId, Vec<Lane>>,
    names: HashSet<String>,
    /// Uninterpreted functions by name, one per signature.
    functions: HashMap<String, Vec<(Vec<Sort>, Sort, FuncDecl)>>,
    /// Whether any float term was encoded.
    pub floats: bool,
    strings: Vec<String>,
    /// Memory version and impure-call count of each side.
    memory: [u32; 2],
    impure: [u32; 2],
    fresh: u32,
    /// One fact per let of the environment read so far: its value did not fault (the program
    /// computed it before reaching the expression).
    reached: Vec<Bool>,
    /// Integer division, modulo and the product of two non-immediates as uninterpreted
    /// functions of their operands (faults stay exact; a product is a function of its operands
    /// taken in unsigned order, so it still commutes): a sound abstraction that spares Z3 the
    /// bit-blasting of dividers and multipliers.
    abstract_division: bool,
    /// Whether an operation the abstraction changes was met.
    pub divides: bool,
}

impl<'a> Encoder<'a> {
    pub fn new(query: &'a mut Query, env: &'a Env) -> Self {
        Encoder {
            query,
            env,
            free: HashMap::new(),
            lets: HashMap::new(),
            names: HashSet::new(),
            functions: HashMap::new(),
            floats: false,
            strings: Vec::new(),
            memory: [0; 2],
            impure: [0; 2],
            fresh: 0,
            reached: Vec::new(),
            abstract_division: false,
            divides: false,
        }
    }

    /// The same encoder with integer division uninterpreted (see `abstract_division`).
    pub fn abstracting_division(mut self) -> Self {
        self.abstract_division = true;
        self
    }

    /// Encodes every let of the environment (all are in scope), so that `reached` says all of
    /// them were computed without a fault. A let whose value cannot be encoded is skipped (a
    /// weaker assumption is still a sound one).
    pub fn reach_all(&mut self) {
        let env = self.env;
        let mut ids: Vec<&VarId> = env.lets.keys().collect();
        ids.sort();
        for id in ids {
            if let (Some(LetValue::Value { value, side }), false) = (env.lets.get(id), self.lets.contains_key(id)) {
                if let Ok(sym) = self.expr(value, *side) {
                    self.reached.push(sym.trap.not());
                    self.lets.insert(*id, sym.lanes);
                }
            }
        }
    }

    /// That the lets of the environment that were read computed their values without a fault:
    /// the condition under which the program reaches what was encoded.
    pub fn reached(&self) -> Bool {
        if self.reached.is_empty() {
            Bool::from_bool(true)
        } else {
            Bool::and(&self.reached)
        }
    }

    /// Assumes `fact` in the query.
    pub fn assume(&mut self, fact: Bool) {
        self.query.assume(fact);
    }

    /// Starts a new memory state for `side` (after a statement that may store).
    pub fn bump_memory(&mut self, side: Side) {
        self.memory[side as usize] += 1;
    }

    /// Binds `var` (an id of the original program, or of a new variable) to `lanes`.
    pub fn bind(&mut self, var: VarId, lanes: Vec<Lane>) {
        self.lets.insert(var, lanes);
    }

    /// Declares `var` as a pattern variable: any value, and a fault flag. Returns the value and
    /// the fault condition.
    pub fn declare_faulty(&mut self, var: &Var) -> Result<Sym, EncodeError> {
        let mut sym = self.declare(var)?;
        let name = self.unique(&format!("{}.faults", var.name()));
        let flag = self.query.bv(&name, 1, Signedness::Unsigned)?;
        sym.trap = flag.eq(BV::from_u64(1, 1));
        self.free.insert(var.id(), sym.clone());
        Ok(sym)
    }

    /// The id `var` has in the environment when read from `side`.
    fn resolve(&self, var: &Var, side: Side) -> VarId {
        match side {
            Side::Rewritten => self.env.rename.get(&var.id()).map_or(var.id(), Var::id),
            Side::Original => var.id(),
        }
    }

    fn buffer(&self, id: BufferId, side: Side) -> BufferId {
        match side {
            Side::Rewritten => self.env.buffers.get(&id).copied().unwrap_or(id),
            Side::Original => id,
        }
    }

    fn unique(&mut self, base: &str) -> String {
        let mut name = base.to_string();
        let mut k = 1;
        while !self.names.insert(name.clone()) {
            name = format!("{base}#{k}");
            k += 1;
        }
        name
    }

    /// A fresh query variable for `var` (one per lane).
    fn declare(&mut self, var: &Var) -> Result<Sym, EncodeError> {
        let t = var.dtype();
        let lanes = (0..t.lanes)
            .map(|k| {
                let base = if t.lanes > 1 { format!("{}[{k}]", var.name()) } else { var.name().to_string() };
                let name = self.unique(&base);
                self.declare_lane(&name, t)
            })
            .collect::<Result<Vec<_>, _>>()?;
        Ok(Sym::pure(lanes))
    }

    fn declare_lane(&mut self, name: &str, t: DataType) -> Result<Lane, EncodeError> {
        if !t.is_float() {
            let width = bv_width(t)?;
            return Ok(Lane::Bv(self.query.bv(name, width, reading(is_signed(t), width))?));
        }
        let (e, s) = float_format(t)?;
        let bits = self.query.bv(name, u32::from(t.bits), reading(false, u32::from(t.bits)))?;
        self.fresh += 1;
        let value = Float::new_const(format!("fp_{}", self.fresh), e, s);
        self.query.assume(value.to_ieee_bv().eq(&bits));
        Ok(Lane::Fp(value))
    }

    /// An uninterpreted function `name` applied to `args`, with result sort `range`: one
    /// function per name and signature (sorts compare as Z3 terms, without printing them).
    fn apply(&mut self, name: &str, args: &[Lane], range: &Sort) -> Dynamic {
        let dynamic: Vec<Dynamic> = args.iter().map(Lane::dynamic).collect();
        let sorts: Vec<Sort> = dynamic.iter().map(|d| d.get_sort()).collect();
        let overloads = self.functions.entry(name.to_owned()).or_default();
        let known = overloads.iter().position(|(domain, r, _)| domain == &sorts && r == range);
        let index = known.unwrap_or_else(|| {
            let f = FuncDecl::new(format!("uf_{name}"), &sorts.iter().collect::<Vec<_>>(), range);
            overloads.push((sorts, range.clone(), f));
            overloads.len() - 1
        });
        let refs: Vec<&dyn Ast> = dynamic.iter().map(|d| d as &dyn Ast).collect();
        overloads[index].2.apply(&refs)
    }

    fn apply_lane(&mut self, name: &str, args: &[Lane], t: DataType) -> Result<Lane, EncodeError> {
        let range = lane_sort(t)?;
        let out = self.apply(name, args, &range);
        let bad = || EncodeError::Internal(format!("uninterpreted `{name}` has the wrong sort"));
        Ok(if t.is_float() {
            Lane::Fp(out.as_float().ok_or_else(bad)?)
        } else {
            Lane::Bv(out.as_bv().ok_or_else(bad)?)
        })
    }

    /// The value of `e`, read as part of `side`.
    pub fn expr(&mut self, e: &Expr, side: Side) -> Result<Sym, EncodeError> {
        // Every float term comes from a node of float type, and every node passes here.
        self.floats |= e.dtype().is_float();
        match e {
            Expr::Int { value, dtype } => int_immediate(*value, *dtype),
            Expr::Float { value, dtype } => float_immediate(*value, *dtype),
            Expr::Str(s) => Ok(Sym::pure(vec![self.string(s)])),
            Expr::Var(v) => self.var(v, side),
            Expr::Binary { op, lhs, rhs } => {
                let (a, b) = (self.expr(lhs, side)?, self.expr(rhs, side)?);
                self.binary(*op, lhs.dtype(), a, b)
            }
            Expr::Cmp { op, lhs, rhs } => {
                let (a, b) = (self.expr(lhs, side)?, self.expr(rhs, side)?);
                let t = lhs.dtype();
                lanewise(&a, &b, |x, y| {
                    Ok(from_bool(&if t.is_float() {
                        float_ops::compare(*op, x.fp()?, y.fp()?)
                    } else {
                        int_ops::compare(*op, is_signed(t), x.bv()?, y.bv()?)
                    }))
                })
            }
            Expr::Logic { op, lhs, rhs } => {
                let (a, b) = (self.expr(lhs, side)?, self.expr(rhs, side)?);
                let and = *op == tirproof_ir::LogicOp::And;
                lanewise(&a, &b, |x, y| Ok(Lane::Bv(if and { x.bv()?.bvand(y.bv()?) } else { x.bv()?.bvor(y.bv()?) })))
            }
            Expr::Not(v) => {
                let a = self.expr(v, side)?;
                let lanes =
                    a.lanes.iter().map(|l| Ok(Lane::Bv(l.bv()?.bvnot()))).collect::<Result<_, EncodeError>>()?;
                Ok(Sym::new(lanes, a.trap))
            }
            Expr::Select { cond, on_true, on_false } => self.select(cond, on_true, on_false, side, false),
            Expr::IfThenElse { cond, on_true, on_false } => self.select(cond, on_true, on_false, side, true),
            Expr::Cast { dtype, value } => self.cast(*dtype, value, side),
            Expr::Ramp { base, stride, lanes } => self.ramp(base, stride, *lanes, side),
            Expr::Broadcast { value, lanes } => {
                let v = self.expr(value, side)?;
                let out = v.lanes.iter().cycle().take(v.lanes.len() * usize::from(*lanes)).cloned().collect();
                Ok(Sym::new(out, v.trap))
            }
            Expr::Let { var, value, body } => {
                let v = self.expr(value, side)?;
                let id = self.resolve(var, side);
                self.lets.insert(id, v.lanes.clone());
                let b = self.expr(body, side)?;
                Ok(Sym::new(b.lanes, any(&[&v.trap, &b.trap])))
            }
            Expr::Load(load) => self.load(load, side),
            Expr::Call(call) => self.call(call, side),
        }
    }

    fn var(&mut self, v: &Var, side: Side) -> Result<Sym, EncodeError> {
        let id = self.resolve(v, side);
        if let Some(lanes) = self.lets.get(&id) {
            return Ok(Sym::pure(lanes.clone()));
        }
        if let Some(sym) = self.free.get(&id) {
            return Ok(sym.clone());
        }
        let env = self.env;
        if let Some(LetValue::Value { value, side: value_side }) = env.lets.get(&id) {
            let sym = self.expr(value, *value_side)?;
            self.reached.push(sym.trap.not());
            self.lets.insert(id, sym.lanes.clone());
            return Ok(Sym::pure(sym.lanes));
        }
        let sym = self.declare(v)?;
        self.free.insert(id, sym.clone());
        Ok(sym)
    }

    fn string(&mut self, s: &str) -> Lane {
        let index = match self.strings.iter().position(|t| t == s) {
            Some(i) => i,
            None => {
                self.strings.push(s.to_string());
                self.strings.len() - 1
            }
        };
        Lane::Bv(BV::new_const(format!("str_{index}"), 64))
    }

    fn binary(&mut self, op: tirproof_ir::BinOp, t: DataType, a: Sym, b: Sym) -> Result<Sym, EncodeError> {
        let mut faults = vec![a.trap.clone(), b.trap.clone()];
        let mut lanes = Vec::with_capacity(a.lanes.len());
        if a.lanes.len() != b.lanes.len() {
            return Err(EncodeError::Internal("operands with different lanes".into()));
        }
        for (x, y) in a.lanes.iter().zip(&b.lanes) {
            if t.is_float() {
                match float_ops::binary(op, x.fp()?, y.fp()?)? {
                    Some(v) => lanes.push(Lane::Fp(v)),
                    None => lanes.push(self.apply_lane(&format!("{op}_{t}"), &[x.clone(), y.clone()], t.element())?),
                }
            } else {
                let (mut v, fault) = int_ops::binary(op, is_signed(t), x.bv()?, y.bv()?);
                if let Some(args) = abstracted(op, x.bv()?, y.bv()?) {
                    self.divides = true;
                    if self.abstract_division {
                        v = self.apply_lane(&format!("{op:?}_{t}"), &args, t.element())?.bv()?.clone();
                    }
                }
                lanes.push(Lane::Bv(v));
                faults.push(fault);
            }
        }
        Ok(Sym::new(lanes, Bool::or(&faults)))
    }

    fn select(&mut self, c: &Expr, t: &Expr, f: &Expr, side: Side, lazy: bool) -> Result<Sym, EncodeError> {
        let (c, t, f) = (self.expr(c, side)?, self.expr(t, side)?, self.expr(f, side)?);
        let conds: Vec<Bool> = c.lanes.iter().map(Lane::truthy).collect();
        let pick = |k: usize| conds.get(k).or(conds.first()).cloned().unwrap_or_else(|| Bool::from_bool(false));
        let lanes = t
            .lanes
            .iter()
            .zip(&f.lanes)
            .enumerate()
            .map(|(k, (x, y))| {
                let cond = pick(k);
                Ok(match (x, y) {
                    (Lane::Bv(x), Lane::Bv(y)) => Lane::Bv(cond.ite(x, y)),
                    (Lane::Fp(x), Lane::Fp(y)) => Lane::Fp(cond.ite(x, y)),
                    _ => return Err(EncodeError::Internal("select arms of different types".into())),
                })
            })
            .collect::<Result<Vec<_>, EncodeError>>()?;
        // A scalar condition lets a lazy select evaluate only the taken arm; a vector one needs both.
        let trap = if lazy && conds.len() == 1 {
            any(&[&c.trap, &conds[0].ite(&t.trap, &f.trap)])
        } else {
            any(&[&c.trap, &t.trap, &f.trap])
        };
        Ok(Sym::new(lanes, trap))
    }

    fn cast(&mut self, to: DataType, value: &Expr, side: Side) -> Result<Sym, EncodeError> {
        let from = value.dtype();
        let v = self.expr(value, side)?;
        let mut faults = vec![v.trap.clone()];
        let mut lanes = Vec::with_capacity(v.lanes.len());
        for lane in &v.lanes {
            match cast::cast(lane, from, to)? {
                Some((out, fault)) => {
                    lanes.push(out);
                    faults.push(fault);
                }
                None => lanes.push(self.apply_lane(
                    &format!("cast_{from}_{to}"),
                    std::slice::from_ref(lane),
                    to.element(),
                )?),
            }
        }
        Ok(Sym::new(lanes, Bool::or(&faults)))
    }

    fn ramp(&mut self, base: &Expr, stride: &Expr, lanes: u16, side: Side) -> Result<Sym, EncodeError> {
        let t = base.dtype();
        let (b, s) = (self.expr(base, side)?, self.expr(stride, side)?);
        let (b0, s0) = (b.lanes.first(), s.lanes.first());
        let (Some(b0), Some(s0)) = (b0, s0) else { return Err(EncodeError::Internal("empty ramp".into())) };
        let out = (0..lanes)
            .map(|k| {
                Ok(if t.is_float() {
                    let rm = RoundingMode::round_nearest_ties_to_even();
                    let (e, sb) = float_format(t)?;
                    let i = Float::from_f64(f64::from(k)).to_fp_with_rounding_mode(&rm, &Sort::float(e, sb));
                    Lane::Fp(b0.fp()?.add_with_rounding_mode(i.mul_with_rounding_mode(s0.fp()?, &rm), &rm))
                } else {
                    let w = bv_width(t)?;
                    Lane::Bv(b0.bv()?.bvadd(BV::from_u64(u64::from(k), w).bvmul(s0.bv()?)))
                })
            })
            .collect::<Result<Vec<_>, EncodeError>>()?;
        Ok(Sym::new(out, any(&[&b.trap, &s.trap])))
    }

    fn load(&mut self, load: &BufferLoad, side: Side) -> Result<Sym, EncodeError> {
        let mut faults = Vec::new();
        let mut args = Vec::new();
        for i in &load.indices {
            let s = self.expr(i, side)?;
            faults.push(s.trap);
            args.extend(s.lanes);
        }
        let buffer = self.buffer(load.buffer.id(), side).0;
        let version = self.memory[side as usize];
        let t = load.dtype();
        let lanes = (0..t.lanes)
            .map(|k| self.apply_lane(&format!("load_b{buffer}_m{version}_l{k}"), &args, t.element()))
            .collect::<Result<Vec<_>, _>>()?;
        let oob = self.apply(&format!("oob_b{buffer}_m{version}"), &args, &Sort::bool());
        faults.push(oob.as_bool().ok_or_else(|| EncodeError::Internal("bounds check is not a bool".into()))?);
        Ok(Sym::new(lanes, Bool::or(&faults)))
    }

    fn call(&mut self, call: &Call, side: Side) -> Result<Sym, EncodeError> {
        let args = call.args.iter().map(|a| self.expr(a, side)).collect::<Result<Vec<_>, _>>()?;
        let mut faults: Vec<Bool> = args.iter().map(|a| a.trap.clone()).collect();
        let t = call.dtype;
        let name = if call.effect == CallEffect::Pure {
            format!("call_{}", call.name)
        } else {
            // The k-th impure call of a side: same rank, same state, same result.
            let rank = self.impure[side as usize];
            self.impure[side as usize] += 1;
            self.memory[side as usize] += 1;
            let all: Vec<Lane> = args.iter().flat_map(|a| a.lanes.clone()).collect();
            let fault = self.apply(&format!("fault_{}_{rank}", call.name), &all, &Sort::bool());
            faults.push(fault.as_bool().ok_or_else(|| EncodeError::Internal("call fault is not a bool".into()))?);
            format!("impure_{}_{rank}", call.name)
        };
        let lanes = (0..usize::from(t.lanes))
            .map(|k| {
                let lane_args: Vec<Lane> =
                    args.iter().filter_map(|a| a.lanes.get(k).or(a.lanes.first()).cloned()).collect();
                self.apply_lane(&name, &lane_args, t.element())
            })
            .collect::<Result<Vec<_>, _>>()?;
        Ok(Sym::new(lanes, Bool::or(&faults)))
    }
}

/// How a counterexample shows a variable: signed types signed, others unsigned, except that
/// 64-bit values are shown as signed (their two's complement bits), since a counterexample
/// holds `i64`s.
fn reading(signed: bool, width: u32) -> Signedness {
    if signed || width == 64 {
        Signedness::Signed
    } else {
        Signedness::Unsigned
    }
}

/// The arguments of the uninterpreted function that stands for `a op b` in the abstraction, if
/// it abstracts this operation: divisions, and products of two non-immediates (in unsigned
/// order, so that the abstraction is symmetric like the product).
fn abstracted(op: tirproof_ir::BinOp, a: &BV, b: &BV) -> Option<Vec<Lane>> {
    use tirproof_ir::BinOp;
    match op {
        _ if op.is_division() => Some(vec![Lane::Bv(a.clone()), Lane::Bv(b.clone())]),
        BinOp::Mul if a.as_u64().is_none() && b.as_u64().is_none() => {
            let a_first = a.bvule(b);
            Some(vec![Lane::Bv(a_first.ite(a, b)), Lane::Bv(a_first.ite(b, a))])
        }
        _ => None,
    }
}

fn lanewise(a: &Sym, b: &Sym, f: impl Fn(&Lane, &Lane) -> Result<Lane, EncodeError>) -> Result<Sym, EncodeError> {
    if a.lanes.len() != b.lanes.len() {
        return Err(EncodeError::Internal("operands with different lanes".into()));
    }
    let lanes = a.lanes.iter().zip(&b.lanes).map(|(x, y)| f(x, y)).collect::<Result<_, _>>()?;
    Ok(Sym::new(lanes, any(&[&a.trap, &b.trap])))
}

fn int_immediate(value: i64, t: DataType) -> Result<Sym, EncodeError> {
    let lane = Lane::Bv(BV::from_i64(value, bv_width(t)?));
    Ok(Sym::pure(vec![lane; usize::from(t.lanes)]))
}

fn float_immediate(value: f64, t: DataType) -> Result<Sym, EncodeError> {
    let (e, s) = float_format(t)?;
    let rm = RoundingMode::round_nearest_ties_to_even();
    let lane = Lane::Fp(Float::from_f64(value).to_fp_with_rounding_mode(&rm, &Sort::float(e, s)));
    Ok(Sym::pure(vec![lane; usize::from(t.lanes)]))
}

/// `a` and `b` are the same value with the same faults: they fault together, and when they do
/// not, every lane is equal.
/// Whether `term` has a floating-point subterm (a walk of its DAG, each shared node once).
pub fn mentions_floats(term: &Bool) -> bool {
    let mut seen = HashSet::new();
    let mut stack = vec![Dynamic::from_ast(term)];
    while let Some(node) = stack.pop() {
        if node.get_sort().kind() == SortKind::FloatingPoint {
            return true;
        }
        if node.kind() == AstKind::App {
            stack.extend(node.children().into_iter().filter(|c| seen.insert(c.clone())));
        }
    }
    false
}

pub fn same_value(a: &Sym, b: &Sym) -> Result<Bool, EncodeError> {
    if a.lanes.len() != b.lanes.len() {
        return Err(EncodeError::Internal(format!("{} lanes against {}", a.lanes.len(), b.lanes.len())));
    }
    // Identical terms are left out: when both sides encode to the same terms (a rewrite
    // that only named a subexpression), the goal is the constant `true` and needs no solver.
    let pairs = a.lanes.iter().zip(&b.lanes).filter(|(x, y)| !x.identical(y));
    let lanes = pairs.map(|(x, y)| x.same(y)).collect::<Result<Vec<_>, _>>()?;
    let mut goal = Vec::new();
    if a.trap != b.trap {
        goal.push(a.trap.iff(&b.trap));
    }
    if !lanes.is_empty() {
        goal.push(a.trap.not().implies(Bool::and(&lanes)));
    }
    Ok(if goal.is_empty() { Bool::from_bool(true) } else { Bool::and(&goal) })
}

#[cfg(test)]
mod tests {
    use z3::ast::{Bool, Float, BV};

    use super::{mentions_floats, same_value, Lane, Sym};
    use crate::solver::in_fresh_context;

    #[test]
    fn floats_are_found_only_in_goals_that_have_them() {
        in_fresh_context(|| {
            let (x, y) = (Float::new_const("x", 8, 24), Float::new_const("y", 8, 24));
            let b = Bool::new_const("b");
            assert!(mentions_floats(&b.implies(x.eq(&y))));
            assert!(!mentions_floats(&b.implies(BV::new_const("i", 32).eq(BV::from_u64(1, 32)))));
            assert!(!mentions_floats(&Bool::from_bool(true)));
        });
    }

    #[test]
    fn identical_sides_need_no_solver_and_different_ones_do() {
        in_fresh_context(|| {
            let lane = |name: &str| Lane::Fp(Float::new_const(name, 8, 24));
            let trap = Bool::new_const("trap");
            let side = |name: &str| Sym { lanes: vec![lane(name)], trap: trap.clone() };
            let same = same_value(&side("x"), &side("x")).expect("one type");
            assert_eq!(same.as_bool(), Some(true));
            let different = same_value(&side("x"), &side("y")).expect("one type");
            assert_eq!(different.as_bool(), None);
            assert!(mentions_floats(&different));
        });
    }
}
