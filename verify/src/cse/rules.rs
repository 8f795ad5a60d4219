//! Soundness of the rewrite rules of `cse-semantic`: each rule is one Z3 query per type it is
//! enabled for.
//!
//! A rule `lhs -> rhs` is sound for a type when, for all values of its pattern variables *and*
//! all ways they may fault, the right side faults exactly when the left side does and otherwise
//! has the same value, assuming its side conditions. Each side condition has one meaning here
//! (`side_condition`), which the e-graph's check of the condition implies (it reads immediates).
//!
//! Every proof has a twin that must be refuted (`twins`): the rule with one root operator
//! changed, and, for a rule with side conditions, the rule without them. A twin that is not
//! refuted means the encoding proves too much (or the side condition is useless).

use std::collections::HashMap;
use std::time::Duration;

use tirproof_ir::{BinOp, CmpOp, DataType, Expr, LogicOp, TypeCode, Var};
use tirproof_passes::cse::semantic::instantiate;
use tirproof_passes::cse::semantic::rewrites::{pattern, RuleError};
use tirproof_passes::cse::semantic::rules::{Rule, Side as RuleSide, TypeClass};
use z3::ast::{Bool, Int, BV};

use super::encode::{same_value, Encoder};
use super::int_model::IntModel;
use super::sym::{Lane, Sym};
use super::{EncodeError, Env, Side};
use crate::solver::{Query, Verdict};

/// Why a rule could not be checked.
#[derive(Clone, Debug, thiserror::Error)]
pub enum RuleCheckError {
    #[error(transparent)]
    Rule(#[from] RuleError),
    #[error("rule `{rule}`: {message}")]
    Instantiate { rule: String, message: String },
    #[error("rule `{rule}`: {source}")]
    Encode { rule: String, source: EncodeError },
}

/// The types each class of types is proved for.
pub fn types_of(class: TypeClass) -> Vec<DataType> {
    let uint = |bits| DataType::new(TypeCode::UInt, bits, 1);
    match class {
        TypeClass::SignedInt => vec![DataType::INT8, DataType::INT32, DataType::INT64],
        TypeClass::UnsignedInt => vec![uint(8), uint(32), uint(64)],
        TypeClass::Float => {
            vec![DataType::FLOAT16, DataType::new(TypeCode::BFloat, 16, 1), DataType::FLOAT32, DataType::FLOAT64]
        }
        TypeClass::Bool => vec![DataType::BOOL],
    }
}

/// Every type `rule` must be proved for.
pub fn rule_types(rule: &Rule) -> Vec<DataType> {
    rule.types.iter().flat_map(|c| types_of(*c)).collect()
}

/// A rule instantiated at one type: IR expressions over pattern variables.
pub struct Instance {
    pub lhs: Expr,
    pub rhs: Expr,
    vars: HashMap<String, Var>,
}

/// Instantiates `rule` at `dtype` (every pattern variable gets that type).
pub fn instance(rule: &Rule, dtype: DataType) -> Result<Instance, RuleCheckError> {
    let lhs = pattern(rule, rule.lhs)?;
    let rhs = pattern(rule, rule.rhs)?;
    let vars: HashMap<String, Var> =
        lhs.vars().iter().map(|v| (v.to_string(), Var::new(v.to_string().trim_start_matches('?'), dtype))).collect();
    let build = |p| {
        instantiate(p, &|name: &str| vars.get(name).map(Expr::var))
            .map_err(|e| RuleCheckError::Instantiate { rule: rule.name.to_string(), message: e.to_string() })
    };
    Ok(Instance { lhs: build(&lhs)?, rhs: build(&rhs)?, vars })
}

/// Proves (or refutes) `lhs == rhs` for arbitrary, possibly faulting pattern variables, under
/// `sides`. Instances with integer division are tried in the integer model first (where Z3
/// reasons about quotients instead of bit-blasting dividers), everything else in the
/// bit-vector model first; the other model is tried when the first cannot decide. Both models
/// are exact, so a verdict of either is a verdict.
pub fn check_instance(
    name: &str,
    inst: &Instance,
    sides: &[RuleSide],
    timeout: Duration,
) -> Result<Verdict, RuleCheckError> {
    let divides = has_division(&inst.lhs) || has_division(&inst.rhs);
    if divides {
        if let Ok(v @ (Verdict::Proved | Verdict::Refuted(_))) = check_integers(name, inst, sides, timeout) {
            return Ok(v);
        }
    }
    let verdict = check_bit_vectors(name, inst, sides, timeout)?;
    if divides || !matches!(verdict, Verdict::Unknown(_)) {
        return Ok(verdict);
    }
    match check_integers(name, inst, sides, timeout) {
        Ok(v @ (Verdict::Proved | Verdict::Refuted(_))) => Ok(v),
        _ => Ok(verdict),
    }
}

fn has_division(e: &Expr) -> bool {
    match e {
        Expr::Binary { op, lhs, rhs } => op.is_division() || has_division(lhs) || has_division(rhs),
        Expr::Cmp { lhs, rhs, .. } | Expr::Logic { lhs, rhs, .. } => has_division(lhs) || has_division(rhs),
        Expr::Not(v) => has_division(v),
        _ => false,
    }
}

/// The query in the integer model (`int_model`).
fn check_integers(name: &str, inst: &Instance, sides: &[RuleSide], timeout: Duration) -> Result<Verdict, EncodeError> {
    let mut query = Query::new(format!("{name} (integer model)")).with_timeout(timeout);
    let goal = {
        let mut model = IntModel::new(&mut query);
        let mut syms = HashMap::new();
        for n in sorted_names(inst) {
            syms.insert(n.clone(), model.declare_faulty(&inst.vars[n])?);
        }
        for side in sides {
            let fact = int_side_condition(*side, &syms, &inst.vars)?;
            model.assume(fact);
        }
        let (a, fa) = model.expr(&inst.lhs)?;
        let (b, fb) = model.expr(&inst.rhs)?;
        Bool::and(&[fa.iff(&fb), fa.not().implies(a.eq(&b))])
    };
    query.require(goal);
    Ok(query.check())
}

fn sorted_names(inst: &Instance) -> Vec<&String> {
    let mut names: Vec<&String> = inst.vars.keys().collect();
    names.sort();
    names
}

/// The side conditions in the integer model; a power of two is a bitwise fact it cannot state.
fn int_side_condition(
    side: RuleSide,
    syms: &HashMap<String, (Int, Bool)>,
    vars: &HashMap<String, Var>,
) -> Result<Bool, EncodeError> {
    let get = |name: &str| syms.get(name).cloned().ok_or_else(|| EncodeError::Internal(format!("unbound `{name}`")));
    let zero = Int::from_i64(0);
    Ok(match side {
        RuleSide::ConstEq(name, c) => {
            let (v, f) = get(name)?;
            Bool::and(&[v.eq(Int::from_i64(c)), f.not()])
        }
        RuleSide::PositiveConst(name) => {
            let (v, f) = get(name)?;
            Bool::and(&[v.gt(&zero), f.not()])
        }
        RuleSide::ProductFits(a, b) => {
            let ((x, fx), (y, fy)) = (get(a)?, get(b)?);
            let t = vars.get(a).map(Var::dtype).ok_or_else(|| EncodeError::Internal(a.to_string()))?;
            let bits = u32::from(t.bits) - u32::from(t.is_int());
            let max = Int::from_u128((1u128 << bits) - 1);
            let product = Int::mul(&[x.clone(), y.clone()]);
            Bool::and(&[x.gt(&zero), y.gt(&zero), fx.not(), fy.not(), product.le(&max)])
        }
        RuleSide::PowerOfTwo(_) => return Err(EncodeError::Unsupported("a power-of-two condition".into())),
        RuleSide::NoTrap(name) => get(name)?.1.not(),
    })
}

/// The query in the bit-vector model (`encode`).
fn check_bit_vectors(
    name: &str,
    inst: &Instance,
    sides: &[RuleSide],
    timeout: Duration,
) -> Result<Verdict, RuleCheckError> {
    let env = Env::default();
    let mut query = Query::new(name).with_timeout(timeout);
    let encode_error = |source| RuleCheckError::Encode { rule: name.to_string(), source };
    let goal = {
        let mut enc = Encoder::new(&mut query, &env);
        let mut syms = HashMap::new();
        for n in sorted_names(inst) {
            syms.insert(n.clone(), enc.declare_faulty(&inst.vars[n]).map_err(encode_error)?);
        }
        for side in sides {
            let fact = side_condition(*side, &syms, &inst.vars).map_err(encode_error)?;
            enc.assume(fact);
        }
        let a = enc.expr(&inst.lhs, Side::Original).map_err(encode_error)?;
        let b = enc.expr(&inst.rhs, Side::Original).map_err(encode_error)?;
        same_value(&a, &b).map_err(encode_error)?
    };
    query.require(goal);
    Ok(query.check())
}

/// Proves `rule` at `dtype`.
pub fn prove(rule: &Rule, dtype: DataType, timeout: Duration) -> Result<Verdict, RuleCheckError> {
    let inst = instance(rule, dtype)?;
    check_instance(&format!("rule {} at {dtype}", rule.name), &inst, rule.sides, timeout)
}

/// A variant of a rule that must be refuted.
pub struct Twin {
    pub what: String,
    pub instance: Instance,
    pub sides: &'static [RuleSide],
}

/// The twins of `rule` at `dtype`: the root operator of its right side changed (of its left
/// side when the right side is a variable), and, if it has side conditions, the rule without
/// them.
pub fn twins(rule: &Rule, dtype: DataType) -> Result<Vec<Twin>, RuleCheckError> {
    let mut out = Vec::new();
    let mut inst = instance(rule, dtype)?;
    let mutated = if matches!(inst.rhs, Expr::Var(_)) {
        mutate(&inst.lhs).map(|m| (std::mem::replace(&mut inst.lhs, m), "left"))
    } else {
        mutate(&inst.rhs).map(|m| (std::mem::replace(&mut inst.rhs, m), "right"))
    };
    if let Some((_, which)) = mutated {
        out.push(Twin {
            what: format!("{} with the root operator of its {which} side changed", rule.name),
            instance: inst,
            sides: rule.sides,
        });
    }
    if !rule.sides.is_empty() {
        out.push(Twin {
            what: format!("{} without its side conditions", rule.name),
            instance: instance(rule, dtype)?,
            sides: &[],
        });
    }
    Ok(out)
}

/// The expression with its root operator replaced by a different one of the same shape (a
/// `not` is dropped).
pub fn mutate(e: &Expr) -> Option<Expr> {
    Some(match e {
        Expr::Binary { op, lhs, rhs } => {
            let other = match op {
                BinOp::Add | BinOp::Sub => BinOp::Mul,
                BinOp::Mul => BinOp::Add,
                BinOp::FloorDiv => BinOp::FloorMod,
                BinOp::FloorMod => BinOp::FloorDiv,
                BinOp::TruncDiv | BinOp::Div => BinOp::TruncMod,
                BinOp::TruncMod => BinOp::TruncDiv,
                BinOp::Min => BinOp::Max,
                BinOp::Max => BinOp::Min,
                BinOp::BitAnd => BinOp::BitOr,
                BinOp::BitOr | BinOp::BitXor => BinOp::BitAnd,
                BinOp::Shl => BinOp::Shr,
                BinOp::Shr => BinOp::Shl,
            };
            Expr::binary(other, (**lhs).clone(), (**rhs).clone())
        }
        Expr::Cmp { op, lhs, rhs } => {
            let other = match op {
                CmpOp::Eq => CmpOp::Ne,
                CmpOp::Ne => CmpOp::Eq,
                CmpOp::Lt => CmpOp::Le,
                CmpOp::Le => CmpOp::Lt,
                CmpOp::Gt => CmpOp::Ge,
                CmpOp::Ge => CmpOp::Gt,
            };
            Expr::cmp(other, (**lhs).clone(), (**rhs).clone())
        }
        Expr::Logic { op, lhs, rhs } => {
            let other = if *op == LogicOp::And { LogicOp::Or } else { LogicOp::And };
            Expr::logic(other, (**lhs).clone(), (**rhs).clone())
        }
        Expr::Not(inner) => (**inner).clone(),
        _ => return None,
    })
}

/// The SMT meaning of a side condition. Conditions on immediates also say the variable does not
/// fault (an immediate never does).
fn side_condition(
    side: RuleSide,
    syms: &HashMap<String, Sym>,
    vars: &HashMap<String, Var>,
) -> Result<Bool, EncodeError> {
    let get = |name: &str| -> Result<(BV, Bool, DataType), EncodeError> {
        let sym = syms.get(name).ok_or_else(|| EncodeError::Internal(format!("side condition on unbound `{name}`")))?;
        let dtype = vars.get(name).map(Var::dtype).ok_or_else(|| EncodeError::Internal(name.to_string()))?;
        match sym.lanes.first() {
            Some(Lane::Bv(b)) => Ok((b.clone(), sym.trap.clone(), dtype)),
            _ => Err(EncodeError::Unsupported(format!("side condition on the non-integer `{name}`"))),
        }
    };
    let positive = |v: &BV, t: DataType| {
        let zero = BV::from_u64(0, v.get_size());
        if t.is_int() {
            v.bvsgt(&zero)
        } else {
            v.eq(&zero).not()
        }
    };
    Ok(match side {
        RuleSide::ConstEq(name, c) => {
            let (v, trap, _) = get(name)?;
            Bool::and(&[v.eq(BV::from_i64(c, v.get_size())), trap.not()])
        }
        RuleSide::PositiveConst(name) => {
            let (v, trap, t) = get(name)?;
            Bool::and(&[positive(&v, t), trap.not()])
        }
        RuleSide::ProductFits(a, b) => {
            let (x, tx, t) = get(a)?;
            let (y, ty, _) = get(b)?;
            let signed = t.is_int();
            let mut facts = vec![positive(&x, t), positive(&y, t), tx.not(), ty.not(), x.bvmul_no_overflow(&y, signed)];
            if signed {
                facts.push(x.bvmul_no_underflow(&y));
            }
            Bool::and(&facts)
        }
        RuleSide::PowerOfTwo(name) => {
            let (v, trap, t) = get(name)?;
            let w = v.get_size();
            let single_bit = v.bvand(v.bvsub(BV::from_u64(1, w))).eq(BV::from_u64(0, w));
            Bool::and(&[positive(&v, t), single_bit, trap.not()])
        }
        RuleSide::NoTrap(name) => get(name)?.1.not(),
    })
}
