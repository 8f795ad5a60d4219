//! The rule table (`rules`) as egg rewrites: each rule's applier is wrapped in a condition that
//! checks the rule's types on the class of its first pattern variable and its side conditions
//! on the analysis facts (`analysis`).
//!
//! Invariant: `holds` is at least as strict as the SMT meaning verify gives each side condition
//! (see README.md): it reads immediates only, and checks ranges in 128-bit arithmetic.

use egg::{ConditionalApplier, Id, Pattern, Rewrite, Subst, Var};
use tirproof_ir::{DataType, TypeCode};

use super::analysis::{Facts, Graph};
use super::lang::TirLang;
use super::rules::{Rule, Side, TypeClass, RULES};

/// Why a rule of the table cannot be used.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum RuleError {
    #[error("rule `{rule}`: pattern `{pattern}` does not parse: {message}")]
    Pattern { rule: String, pattern: String, message: String },
    #[error("rule `{rule}`: {message}")]
    Invalid { rule: String, message: String },
}

/// The type class of a type, if rules can hold for it.
pub fn type_class(t: DataType) -> Option<TypeClass> {
    match t.code {
        TypeCode::Int => Some(TypeClass::SignedInt),
        TypeCode::UInt => Some(TypeClass::UnsignedInt),
        TypeCode::Float | TypeCode::BFloat => Some(TypeClass::Float),
        TypeCode::Bool => Some(TypeClass::Bool),
        TypeCode::Handle => None,
    }
}

/// Parses a pattern of `rule`.
pub fn pattern(rule: &Rule, text: &str) -> Result<Pattern<TirLang>, RuleError> {
    text.parse().map_err(|e: egg::RecExprParseError<_>| RuleError::Pattern {
        rule: rule.name.to_string(),
        pattern: text.to_string(),
        message: e.to_string(),
    })
}

/// The variable whose class decides the type of a match: the first of `lhs`.
pub fn type_var(lhs: &Pattern<TirLang>) -> Option<Var> {
    lhs.vars().into_iter().next()
}

/// The egg rewrites of the whole table.
pub fn rewrites() -> Result<Vec<Rewrite<TirLang, Facts>>, RuleError> {
    RULES.iter().map(rewrite).collect()
}

fn rewrite(rule: &Rule) -> Result<Rewrite<TirLang, Facts>, RuleError> {
    let invalid = |message: &str| RuleError::Invalid { rule: rule.name.to_string(), message: message.to_string() };
    let lhs = pattern(rule, rule.lhs)?;
    let rhs = pattern(rule, rule.rhs)?;
    let typed_by = type_var(&lhs).ok_or_else(|| invalid("the left side has no variable"))?;
    if rhs.vars().iter().any(|v| !lhs.vars().contains(v)) {
        return Err(invalid("the right side uses a variable the left side does not bind"));
    }
    let sides = rule.sides.iter().map(|s| parse_side(*s)).collect::<Result<Vec<_>, _>>().map_err(|m| invalid(&m))?;
    let types = rule.types;
    let condition = move |egraph: &mut Graph, _id: Id, subst: &Subst| {
        let t = egraph[subst[typed_by]].data.dtype;
        type_class(t).is_some_and(|c| types.contains(&c)) && sides.iter().all(|s| holds(egraph, subst, s, t))
    };
    Rewrite::new(rule.name, lhs, ConditionalApplier { condition, applier: rhs }).map_err(|m| invalid(&m))
}

/// A side condition with its variables parsed.
#[derive(Clone, Copy, Debug)]
enum ParsedSide {
    ConstEq(Var, i64),
    PositiveConst(Var),
    ProductFits(Var, Var),
    PowerOfTwo(Var),
    NoTrap(Var),
}

fn parse_side(side: Side) -> Result<ParsedSide, String> {
    let var = |name: &str| name.parse::<Var>().map_err(|e| format!("side condition variable `{name}`: {e}"));
    Ok(match side {
        Side::ConstEq(v, c) => ParsedSide::ConstEq(var(v)?, c),
        Side::PositiveConst(v) => ParsedSide::PositiveConst(var(v)?),
        Side::ProductFits(a, b) => ParsedSide::ProductFits(var(a)?, var(b)?),
        Side::PowerOfTwo(v) => ParsedSide::PowerOfTwo(var(v)?),
        Side::NoTrap(v) => ParsedSide::NoTrap(var(v)?),
    })
}

/// Whether a side condition holds for a match whose variables have type `t`.
fn holds(egraph: &Graph, subst: &Subst, side: &ParsedSide, t: DataType) -> bool {
    let constant = |v: &Var| egraph[subst[*v]].data.constant;
    let (min, max) = range(t);
    match side {
        ParsedSide::ConstEq(v, c) => constant(v) == Some(*c),
        ParsedSide::PositiveConst(v) => constant(v).is_some_and(|c| c > 0),
        ParsedSide::ProductFits(a, b) => match (constant(a), constant(b)) {
            (Some(x), Some(y)) if x > 0 && y > 0 => {
                let p = i128::from(x) * i128::from(y);
                (min..=max).contains(&p)
            }
            _ => false,
        },
        ParsedSide::PowerOfTwo(v) => constant(v).is_some_and(|c| c > 0 && (c & (c - 1)) == 0 && i128::from(c) <= max),
        ParsedSide::NoTrap(v) => !egraph[subst[*v]].data.may_trap,
    }
}

/// The range of an integer type (bool is 0..=1), in 128 bits.
fn range(t: DataType) -> (i128, i128) {
    let bits = u32::from(t.bits.clamp(1, 64));
    match t.code {
        TypeCode::Int => (-(1i128 << (bits - 1)), (1i128 << (bits - 1)) - 1),
        _ => (0, (1i128 << bits) - 1),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_rule_compiles() {
        let rewrites = rewrites().expect("the table is valid");
        assert_eq!(rewrites.len(), RULES.len());
    }

    #[test]
    fn names_are_unique() {
        for (i, r) in RULES.iter().enumerate() {
            assert!(RULES[i + 1..].iter().all(|s| s.name != r.name), "{}", r.name);
        }
    }

    #[test]
    fn ranges_are_exact() {
        assert_eq!(range(DataType::INT32), (-(1 << 31), (1 << 31) - 1));
        assert_eq!(range(DataType::new(TypeCode::UInt, 8, 1)), (0, 255));
        assert_eq!(range(DataType::BOOL), (0, 1));
    }
}
