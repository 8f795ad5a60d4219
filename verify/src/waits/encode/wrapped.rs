//! Conditions of one loop variable whose arithmetic wraps (`i + 2147483647 > 0`), evaluated
//! exactly over the variable's range into a set of intervals.
//!
//! Every other operand must be an integer constant. An integer expression is piecewise affine
//! in the variable: on each piece of the range it equals `a * v + b` after wrapping, and a
//! sum or product by a constant of width `w` splits a piece where its exact value crosses a
//! multiple of `2^w` (a slope of at most 1 in magnitude crosses few). A comparison of two such
//! expressions is, on each common piece, a linear inequality in `v`: an interval. Connectives
//! are operations on sorted disjoint interval lists. Invariant: the set returned holds exactly
//! the values of the range where the condition is true, under the program's fixed-width
//! semantics; anything else (a division, a load, a parameter, too many pieces) is `None`.

use tirproof_ir::{BinOp, CmpOp, Expr, LogicOp, VarId};

use crate::waits::ranges::ValueRange;

use super::guards::flip;

/// Sorted, disjoint, closed intervals.
pub(super) type Intervals = Vec<(i128, i128)>;

/// More pieces than this and the condition is left to the other encodings.
const MOST_PIECES: usize = 16;

/// The values of `[lo, hi]` where `cond` holds, `cond` mentioning only the variable `var`
/// and constants.
pub(super) fn holds_on(cond: &Expr, var: VarId, (lo, hi): (i128, i128)) -> Option<Intervals> {
    let set = boolean(cond, var, (lo, hi))?;
    (set.len() <= MOST_PIECES).then_some(set)
}

fn boolean(e: &Expr, var: VarId, dom: (i128, i128)) -> Option<Intervals> {
    match e {
        Expr::Int { value, .. } if e.dtype().is_bool() => Some(if *value != 0 { vec![dom] } else { vec![] }),
        Expr::Not(inner) => Some(complement(&boolean(inner, var, dom)?, dom)),
        Expr::Logic { op, lhs, rhs } => {
            let (a, b) = (boolean(lhs, var, dom)?, boolean(rhs, var, dom)?);
            Some(match op {
                LogicOp::And => intersect(&a, &b),
                LogicOp::Or => union(&a, &b),
            })
        }
        Expr::Binary { op: op @ (BinOp::BitAnd | BinOp::BitOr), lhs, rhs } if e.dtype().is_bool() => {
            let (a, b) = (boolean(lhs, var, dom)?, boolean(rhs, var, dom)?);
            Some(if *op == BinOp::BitAnd { intersect(&a, &b) } else { union(&a, &b) })
        }
        Expr::Select { cond, on_true, on_false } | Expr::IfThenElse { cond, on_true, on_false }
            if e.dtype().is_bool() =>
        {
            let c = boolean(cond, var, dom)?;
            let (t, f) = (boolean(on_true, var, dom)?, boolean(on_false, var, dom)?);
            Some(union(&intersect(&c, &t), &intersect(&complement(&c, dom), &f)))
        }
        Expr::Cmp { op, lhs, rhs } if lhs.dtype().is_integer() => {
            let (a, b) = (affine(lhs, var, dom)?, affine(rhs, var, dom)?);
            let mut set = Vec::new();
            for &(pa, sa, ca) in &a {
                for &(pb, sb, cb) in &b {
                    let Some(piece) = meet(pa, pb) else { continue };
                    // (sa - sb) * v + (ca - cb) op 0 on the piece.
                    set = union(&set, &solve(*op, sa - sb, ca - cb, piece));
                }
            }
            (set.len() <= MOST_PIECES).then_some(set)
        }
        _ => None,
    }
}

/// One piece of the range and the expression's slope and offset there.
type Piece = ((i128, i128), i128, i128);

/// `e` as pieces `a * v + b` over `dom`, after wrapping to its type.
fn affine(e: &Expr, var: VarId, dom: (i128, i128)) -> Option<Vec<Piece>> {
    let pieces = match e {
        Expr::Int { value, .. } => vec![(dom, 0, i128::from(*value))],
        Expr::Var(v) if v.id() == var => vec![(dom, 1, 0)],
        Expr::Cast { value, dtype } if dtype.is_integer() && value.dtype().is_integer() => affine(value, var, dom)?,
        Expr::Binary { op: op @ (BinOp::Add | BinOp::Sub), lhs, rhs } => {
            let (a, b) = (affine(lhs, var, dom)?, affine(rhs, var, dom)?);
            let sign = if *op == BinOp::Add { 1 } else { -1 };
            let mut out = Vec::new();
            for &(pa, sa, ca) in &a {
                for &(pb, sb, cb) in &b {
                    if let Some(piece) = meet(pa, pb) {
                        out.push((piece, sa + sign * sb, ca + sign * cb));
                    }
                }
            }
            out
        }
        Expr::Binary { op: BinOp::Mul, lhs, rhs } => {
            let (k, other) = match (lhs.as_int(), rhs.as_int()) {
                (Some(k), _) => (k, rhs),
                (_, Some(k)) => (k, lhs),
                _ => return None,
            };
            let k = i128::from(k);
            affine(other, var, dom)?.into_iter().map(|(p, s, c)| (p, s * k, c * k)).collect()
        }
        _ => return None,
    };
    let full = ValueRange::of_type(e.dtype())?;
    let mut wrapped = Vec::new();
    for piece in pieces {
        wrapped.extend(wrap(piece, (full.lo, full.hi))?);
        if wrapped.len() > MOST_PIECES {
            return None;
        }
    }
    Some(wrapped)
}

/// A piece split where `s * v + c` leaves `[min, max]`, each part shifted back by a multiple
/// of the type's size `max - min + 1`.
fn wrap(((lo, hi), s, c): Piece, (min, max): (i128, i128)) -> Option<Vec<Piece>> {
    let size = max - min + 1;
    let (first, last) = (s * lo + c, s * hi + c);
    let (least, most) = (first.min(last), first.max(last));
    // The multiples k of `size` with `x - k * size` in range for some x of [least, most].
    let k_lo = (least - min).div_euclid(size);
    let k_hi = (most - min).div_euclid(size);
    if k_hi - k_lo > MOST_PIECES as i128 {
        return None;
    }
    let mut out = Vec::new();
    for k in k_lo..=k_hi {
        // Where min <= s * v + c - k * size <= max.
        let shifted = c - k * size;
        let within =
            intersect(&solve(CmpOp::Ge, s, shifted - min, (lo, hi)), &solve(CmpOp::Le, s, shifted - max, (lo, hi)));
        out.extend(within.into_iter().map(|piece| (piece, s, shifted)));
    }
    Some(out)
}

/// The values of `piece` where `s * v + c op 0`.
fn solve(op: CmpOp, s: i128, c: i128, piece: (i128, i128)) -> Intervals {
    let (lo, hi) = piece;
    let all = vec![piece];
    if s == 0 {
        let holds = match op {
            CmpOp::Eq => c == 0,
            CmpOp::Ne => c != 0,
            CmpOp::Lt => c < 0,
            CmpOp::Le => c <= 0,
            CmpOp::Gt => c > 0,
            CmpOp::Ge => c >= 0,
        };
        return if holds { all } else { vec![] };
    }
    // Normalize to v op' t with t rational -c / s, rounding to integers.
    // Multiplying by -1 turns the comparison around.
    let (op, s, c) = if s < 0 { (flip(op), -s, -c) } else { (op, s, c) };
    // s * v + c op 0, s > 0.
    let floor = |n: i128| n.div_euclid(s);
    let ceil = |n: i128| -((-n).div_euclid(s));
    let clip = |a: i128, b: i128| if a.max(lo) <= b.min(hi) { vec![(a.max(lo), b.min(hi))] } else { vec![] };
    match op {
        CmpOp::Lt => clip(lo, ceil(-c) - 1),
        CmpOp::Le => clip(lo, floor(-c)),
        CmpOp::Gt => clip(floor(-c) + 1, hi),
        CmpOp::Ge => clip(ceil(-c), hi),
        CmpOp::Eq => {
            if (-c).rem_euclid(s) == 0 {
                clip(-c / s, -c / s)
            } else {
                vec![]
            }
        }
        CmpOp::Ne => complement(&solve(CmpOp::Eq, s, c, piece), piece),
    }
}

fn meet(a: (i128, i128), b: (i128, i128)) -> Option<(i128, i128)> {
    let (lo, hi) = (a.0.max(b.0), a.1.min(b.1));
    (lo <= hi).then_some((lo, hi))
}

fn intersect(a: &Intervals, b: &Intervals) -> Intervals {
    let mut out = Vec::new();
    for x in a {
        for y in b {
            if let Some(m) = meet(*x, *y) {
                out.push(m);
            }
        }
    }
    normalize(out)
}

fn union(a: &Intervals, b: &Intervals) -> Intervals {
    normalize(a.iter().chain(b).copied().collect())
}

fn complement(a: &Intervals, (lo, hi): (i128, i128)) -> Intervals {
    let mut out = Vec::new();
    let mut next = lo;
    for &(x, y) in a {
        if x > next {
            out.push((next, x - 1));
        }
        next = next.max(y + 1);
    }
    if next <= hi {
        out.push((next, hi));
    }
    out
}

/// Sorted, with overlapping or touching intervals merged.
fn normalize(mut v: Intervals) -> Intervals {
    v.sort_unstable();
    let mut out: Intervals = Vec::new();
    for (x, y) in v {
        match out.last_mut() {
            Some(last) if x <= last.1 + 1 => last.1 = last.1.max(y),
            _ => out.push((x, y)),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn solving_rounds_toward_the_values_that_satisfy() {
        // 2v - 3 < 0: v <= 1.
        assert_eq!(solve(CmpOp::Lt, 2, -3, (-10, 10)), vec![(-10, 1)]);
        // -v + 5 >= 0: v <= 5.
        assert_eq!(solve(CmpOp::Ge, -1, 5, (0, 10)), vec![(0, 5)]);
        assert_eq!(solve(CmpOp::Ne, 1, -3, (0, 5)), vec![(0, 2), (4, 5)]);
        assert_eq!(solve(CmpOp::Eq, 2, -3, (0, 5)), vec![]);
    }

    #[test]
    fn a_sum_that_overflows_int32_wraps_to_negative() {
        // v + 2147483647 over [0, 10]: 2147483647 at 0, then wrapped.
        let pieces = wrap(((0, 10), 1, 2_147_483_647), (-2_147_483_648, 2_147_483_647)).expect("pieces");
        assert_eq!(pieces, vec![((0, 0), 1, 2_147_483_647), ((1, 10), 1, 2_147_483_647 - 4_294_967_296)]);
    }

    #[test]
    fn connectives_are_set_operations() {
        let dom = (0, 9);
        assert_eq!(complement(&vec![(2, 3), (5, 5)], dom), vec![(0, 1), (4, 4), (6, 9)]);
        assert_eq!(union(&vec![(0, 2)], &vec![(3, 4), (8, 9)]), vec![(0, 4), (8, 9)]);
        assert_eq!(intersect(&vec![(0, 4)], &vec![(3, 9)]), vec![(3, 4)]);
    }
}
