//! The rewrite rules of `cse-semantic`, as data: one table, read by the e-graph (`rewrites`)
//! and by the soundness proofs of tirproof-verify (`cse::rules`), which prove every rule with
//! Z3 for every type it is enabled for. See README.md beside this file for what a rule must
//! satisfy before it is added here.
//!
//! Conventions: patterns are egg s-expressions over the operators of `lang` (`+ - * // %
//! min max & | ^ == != < <= > >= and or not`); every pattern variable has the rule's type (the
//! root may be bool, for comparisons); `types` lists the types the rule holds for, checked on
//! the class of the first variable of `lhs`; `sides` are conditions on the matched classes,
//! all of which must hold. A rule is one direction; its converse, when sound, is another row.

/// The types a rule may hold for (of its pattern variables; any width, any lanes).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum TypeClass {
    /// Two's-complement integers, `int8` to `int64`: `+ - *` wrap.
    SignedInt,
    /// Unsigned integers, `uint8` to `uint64`: `+ - *` wrap.
    UnsignedInt,
    /// IEEE floats (`float16`, `bfloat16`, `float32`, `float64`): no reassociation.
    Float,
    /// `bool`.
    Bool,
}

/// A side condition, on the e-classes a match binds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Side {
    /// The variable's class holds the integer immediate `value`.
    ConstEq(&'static str, i64),
    /// The variable's class holds an integer immediate greater than zero.
    PositiveConst(&'static str),
    /// Both variables hold integer immediates greater than zero whose product is representable
    /// in the type.
    ProductFits(&'static str, &'static str),
    /// The variable holds an immediate that is a power of two (greater than zero), so it
    /// divides 2^bits and wrapping keeps residues modulo it.
    PowerOfTwo(&'static str),
    /// No member of the variable's class can fault (so a rule may drop it).
    NoTrap(&'static str),
}

/// One rewrite rule: `lhs` may be replaced by `rhs` for `types`, when `sides` hold.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Rule {
    pub name: &'static str,
    pub lhs: &'static str,
    pub rhs: &'static str,
    pub sides: &'static [Side],
    pub types: &'static [TypeClass],
}

use Side::{ConstEq, NoTrap, PositiveConst, PowerOfTwo, ProductFits};
use TypeClass::{Bool, Float, SignedInt as S, UnsignedInt as U};

const INT: &[TypeClass] = &[S, U];
const NUM: &[TypeClass] = &[S, U, Float];
const INT_BOOL: &[TypeClass] = &[S, U, Bool];
const ALL: &[TypeClass] = &[S, U, Float, Bool];
const NONE: &[Side] = &[];

const fn rule(name: &'static str, lhs: &'static str, rhs: &'static str, types: &'static [TypeClass]) -> Rule {
    Rule { name, lhs, rhs, sides: NONE, types }
}

const fn cond(
    name: &'static str,
    lhs: &'static str,
    rhs: &'static str,
    sides: &'static [Side],
    types: &'static [TypeClass],
) -> Rule {
    Rule { name, lhs, rhs, sides, types }
}

/// Every rule `cse-semantic` runs.
pub const RULES: &[Rule] = &[
    // Commutativity. Float `+` and `*` commute (IEEE results do not depend on the order; only
    // NaN payloads may, and Z3 has one NaN). Float `min`/`max` do not: TVM computes them as
    // `select(a < b, a, b)`, which picks the second operand when either is NaN.
    rule("add-comm", "(+ ?a ?b)", "(+ ?b ?a)", NUM),
    rule("mul-comm", "(* ?a ?b)", "(* ?b ?a)", NUM),
    rule("min-comm", "(min ?a ?b)", "(min ?b ?a)", INT),
    rule("max-comm", "(max ?a ?b)", "(max ?b ?a)", INT),
    rule("bitand-comm", "(& ?a ?b)", "(& ?b ?a)", INT_BOOL),
    rule("bitor-comm", "(| ?a ?b)", "(| ?b ?a)", INT_BOOL),
    rule("bitxor-comm", "(^ ?a ?b)", "(^ ?b ?a)", INT_BOOL),
    rule("and-comm", "(and ?a ?b)", "(and ?b ?a)", &[Bool]),
    rule("or-comm", "(or ?a ?b)", "(or ?b ?a)", &[Bool]),
    rule("eq-comm", "(== ?a ?b)", "(== ?b ?a)", ALL),
    rule("ne-comm", "(!= ?a ?b)", "(!= ?b ?a)", ALL),
    rule("lt-flip", "(< ?a ?b)", "(> ?b ?a)", ALL),
    rule("gt-flip", "(> ?a ?b)", "(< ?b ?a)", ALL),
    rule("le-flip", "(<= ?a ?b)", "(>= ?b ?a)", ALL),
    rule("ge-flip", "(>= ?a ?b)", "(<= ?b ?a)", ALL),
    // Associativity: wrapping integers only (float sums round differently).
    rule("add-assoc-left", "(+ ?a (+ ?b ?c))", "(+ (+ ?a ?b) ?c)", INT),
    rule("add-assoc-right", "(+ (+ ?a ?b) ?c)", "(+ ?a (+ ?b ?c))", INT),
    rule("mul-assoc-left", "(* ?a (* ?b ?c))", "(* (* ?a ?b) ?c)", INT),
    rule("mul-assoc-right", "(* (* ?a ?b) ?c)", "(* ?a (* ?b ?c))", INT),
    rule("min-assoc", "(min (min ?a ?b) ?c)", "(min ?a (min ?b ?c))", INT),
    rule("max-assoc", "(max (max ?a ?b) ?c)", "(max ?a (max ?b ?c))", INT),
    rule("and-assoc", "(and (and ?a ?b) ?c)", "(and ?a (and ?b ?c))", &[Bool]),
    rule("or-assoc", "(or (or ?a ?b) ?c)", "(or ?a (or ?b ?c))", &[Bool]),
    // Subtraction with addition (integers wrap, so these hold exactly).
    rule("add-sub-assoc", "(- (+ ?a ?b) ?c)", "(+ ?a (- ?b ?c))", INT),
    rule("add-sub-assoc-rev", "(+ ?a (- ?b ?c))", "(- (+ ?a ?b) ?c)", INT),
    rule("sub-sub", "(- (- ?a ?b) ?c)", "(- ?a (+ ?b ?c))", INT),
    rule("sub-sub-rev", "(- ?a (+ ?b ?c))", "(- (- ?a ?b) ?c)", INT),
    rule("sub-add-swap", "(+ (- ?a ?b) ?c)", "(- (+ ?a ?c) ?b)", INT),
    rule("sub-add-swap-rev", "(- (+ ?a ?c) ?b)", "(+ (- ?a ?b) ?c)", INT),
    // Distributivity (integers: multiplication distributes over wrapping sums).
    rule("mul-add-distribute", "(* ?a (+ ?b ?c))", "(+ (* ?a ?b) (* ?a ?c))", INT),
    rule("mul-add-factor", "(+ (* ?a ?b) (* ?a ?c))", "(* ?a (+ ?b ?c))", INT),
    rule("mul-sub-distribute", "(* ?a (- ?b ?c))", "(- (* ?a ?b) (* ?a ?c))", INT),
    rule("mul-sub-factor", "(- (* ?a ?b) (* ?a ?c))", "(* ?a (- ?b ?c))", INT),
    // Identities: the dropped operand is an immediate, which never faults.
    cond("add-zero", "(+ ?a ?z)", "?a", &[ConstEq("?z", 0)], INT),
    cond("sub-zero", "(- ?a ?z)", "?a", &[ConstEq("?z", 0)], INT),
    cond("mul-one", "(* ?a ?o)", "?a", &[ConstEq("?o", 1)], INT),
    cond("floordiv-one", "(// ?a ?o)", "?a", &[ConstEq("?o", 1)], INT),
    cond("add-sub-cancel", "(- (+ ?a ?b) ?b)", "?a", &[NoTrap("?b")], INT),
    rule("not-not", "(not (not ?a))", "?a", &[Bool]),
    rule("not-lt", "(not (< ?a ?b))", "(>= ?a ?b)", INT),
    rule("not-le", "(not (<= ?a ?b))", "(> ?a ?b)", INT),
    // The division family. `(x * c) // c -> x` is NOT here: `x * c` wraps.
    cond("floordiv-nest", "(// (// ?a ?b) ?c)", "(// ?a (* ?b ?c))", &[ProductFits("?b", "?c")], INT),
    rule("floormod-idem", "(% (% ?a ?b) ?b)", "(% ?a ?b)", INT),
    cond("floormod-add-multiple", "(% (+ ?a (* ?b ?c)) ?c)", "(% ?a ?c)", &[PowerOfTwo("?c"), NoTrap("?b")], INT),
    cond("floordiv-floormod-recombine", "(+ (* (// ?a ?c) ?c) (% ?a ?c))", "?a", &[PositiveConst("?c")], INT),
];

/// The rule called `name`.
pub fn rule_named(name: &str) -> Option<&'static Rule> {
    RULES.iter().find(|r| r.name == name)
}
