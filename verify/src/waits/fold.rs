//! Z3 terms with their constants folded as they are built: `0 + x` is `x`, `min(3, 3)` is
//! `3`, `true and c` is `c`, a comparison of numerals is `true` or `false`.
//!
//! Why: the closed forms of `encode` are full of such terms when loop bounds are constants,
//! and the solver would simplify them again at every check. Invariant: every function
//! returns a term equal (for all values of its variables) to the one the plain `z3`
//! constructor would build; arithmetic that would overflow an i64 is left to Z3, whose
//! integers are unbounded.

use z3::ast::{Bool, Int};

/// The value of a numeral that fits in an i64.
fn numeral(t: &Int) -> Option<i64> {
    t.as_i64()
}

/// `terms[0] + terms[1] + ...` (0 when empty).
pub fn add(terms: &[Int]) -> Int {
    arithmetic(terms, 0, i64::checked_add, Int::add)
}

/// `a - b`.
pub fn sub(a: &Int, b: &Int) -> Int {
    match (numeral(a), numeral(b)) {
        (_, Some(0)) => a.clone(),
        (Some(x), Some(y)) if x.checked_sub(y).is_some() => Int::from_i64(x - y),
        _ => Int::sub(&[a.clone(), b.clone()]),
    }
}

/// `terms[0] * terms[1] * ...` (1 when empty).
pub fn mul(terms: &[Int]) -> Int {
    if terms.iter().any(|t| numeral(t) == Some(0)) {
        return Int::from_i64(0);
    }
    arithmetic(terms, 1, i64::checked_mul, Int::mul)
}

/// `terms` combined by an associative, commutative operation with neutral element
/// `neutral`: the numerals are combined into one (while it fits in an i64), which is left out
/// when it is `neutral`.
fn arithmetic(terms: &[Int], neutral: i64, combine: fn(i64, i64) -> Option<i64>, build: fn(&[Int]) -> Int) -> Int {
    let mut constant = neutral;
    let mut rest = Vec::new();
    for t in terms {
        match numeral(t).and_then(|v| combine(constant, v)) {
            Some(c) => constant = c,
            None => rest.push(t.clone()),
        }
    }
    if constant != neutral || rest.is_empty() {
        rest.push(Int::from_i64(constant));
    }
    match rest.as_slice() {
        [one] => one.clone(),
        _ => build(&rest),
    }
}

/// `-a`.
pub fn neg(a: &Int) -> Int {
    match numeral(a).and_then(i64::checked_neg) {
        Some(v) => Int::from_i64(v),
        None => a.unary_minus(),
    }
}

/// SMT-LIB's `div`: Euclidean division (the remainder is never negative); by 0 it is
/// unspecified, so that is left to Z3.
pub fn div(a: &Int, b: &Int) -> Int {
    match (numeral(a), numeral(b)) {
        (Some(x), Some(y)) if x.checked_div_euclid(y).is_some() => Int::from_i64(x.div_euclid(y)),
        _ => a.div(b),
    }
}

/// SMT-LIB's `mod`: the Euclidean remainder (never negative); by 0 it is unspecified, so
/// that is left to Z3.
pub fn modulo(a: &Int, b: &Int) -> Int {
    match (numeral(a), numeral(b)) {
        (Some(x), Some(y)) if x.checked_rem_euclid(y).is_some() => Int::from_i64(x.rem_euclid(y)),
        _ => a.modulo(b),
    }
}

/// `if c then a else b`.
pub fn ite(c: &Bool, a: &Int, b: &Int) -> Int {
    match c.as_bool() {
        Some(true) => a.clone(),
        Some(false) => b.clone(),
        None if a == b => a.clone(),
        None => c.ite(a, b),
    }
}

/// `max(a, b)`.
pub fn max(a: &Int, b: &Int) -> Int {
    ite(&ge(a, b), a, b)
}

/// `min(a, b)`.
pub fn min(a: &Int, b: &Int) -> Int {
    ite(&le(a, b), a, b)
}

/// All of `terms` (true when empty).
pub fn and(terms: &[Bool]) -> Bool {
    connective(terms, true, Bool::and)
}

/// Any of `terms` (false when empty).
pub fn or(terms: &[Bool]) -> Bool {
    connective(terms, false, Bool::or)
}

/// `terms` joined by `and` (`neutral` true) or `or` (`neutral` false): the neutral constant
/// is left out, the other one decides.
fn connective(terms: &[Bool], neutral: bool, build: fn(&[Bool]) -> Bool) -> Bool {
    let mut rest = Vec::new();
    for t in terms {
        match t.as_bool() {
            Some(v) if v == neutral => {}
            Some(v) => return Bool::from_bool(v),
            None => rest.push(t.clone()),
        }
    }
    match rest.as_slice() {
        [] => Bool::from_bool(neutral),
        [one] => one.clone(),
        _ => build(&rest),
    }
}

/// `not a`.
pub fn not(a: &Bool) -> Bool {
    match a.as_bool() {
        Some(v) => Bool::from_bool(!v),
        None => a.not(),
    }
}

/// `a implies b`.
pub fn implies(a: &Bool, b: &Bool) -> Bool {
    or(&[not(a), b.clone()])
}

/// Comparisons, folded when both sides are numerals.
macro_rules! comparison {
    ($name:ident, $z3:ident, $op:tt) => {
        #[doc = concat!("`a ", stringify!($op), " b`.")]
        pub fn $name(a: &Int, b: &Int) -> Bool {
            match (numeral(a), numeral(b)) {
                (Some(x), Some(y)) => Bool::from_bool(x $op y),
                _ => a.$z3(b),
            }
        }
    };
}

comparison!(lt, lt, <);
comparison!(le, le, <=);
comparison!(gt, gt, >);
comparison!(ge, ge, >=);
comparison!(eq, eq, ==);

#[cfg(test)]
mod tests {
    use super::*;

    fn n(v: i64) -> Int {
        Int::from_i64(v)
    }

    #[test]
    fn constants_fold_and_variables_stay() {
        let x = Int::new_const("x");
        assert_eq!(add(&[n(0), n(3), n(4)]).as_i64(), Some(7));
        assert_eq!(add(&[n(0), x.clone()]), x);
        assert_eq!(add(&[]).as_i64(), Some(0));
        assert_eq!(sub(&x, &n(0)), x);
        assert_eq!(mul(&[n(1), x.clone()]), x);
        assert_eq!(mul(&[n(0), x.clone()]).as_i64(), Some(0));
        assert_eq!(mul(&[n(2), n(3)]).as_i64(), Some(6));
        assert_eq!(min(&n(3), &n(3)).as_i64(), Some(3));
        assert_eq!(max(&n(0), &n(-2)).as_i64(), Some(0));
        assert_eq!(ite(&lt(&x, &n(1)), &x, &x), x);
        assert_eq!(and(&[Bool::from_bool(true), lt(&n(1), &n(2))]).as_bool(), Some(true));
        assert_eq!(or(&[Bool::from_bool(false), eq(&n(1), &n(2))]).as_bool(), Some(false));
        assert_eq!(implies(&Bool::from_bool(false), &lt(&x, &n(0))).as_bool(), Some(true));
        assert_eq!(not(&ge(&n(2), &n(1))).as_bool(), Some(false));
        assert_eq!(neg(&n(3)).as_i64(), Some(-3));
    }

    #[test]
    fn division_is_euclidean_like_smtlib() {
        use z3::ast::Ast;
        for (a, b) in [(7, 2), (-7, 2), (7, -2), (-7, -2), (6, 3), (0, -5)] {
            let by_z3 = n(a).div(n(b)).simplify().as_i64();
            assert_eq!(div(&n(a), &n(b)).as_i64(), by_z3, "{a} div {b}");
        }
        assert_eq!(div(&n(7), &n(0)).as_i64(), None);
    }

    #[test]
    fn overflow_is_left_to_z3() {
        let big = add(&[n(i64::MAX), n(1)]);
        assert_eq!(big.as_i64(), None);
        assert_eq!(sub(&n(i64::MIN), &n(1)).as_i64(), None);
        assert_eq!(mul(&[n(i64::MAX), n(2)]).as_i64(), None);
    }
}
