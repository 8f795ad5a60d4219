//! Property: on random expression DAGs (shared subterms repeated as written, commuted and
//! reassociated, under loops, lets, selects and lazy `if_then_else`), `cse` and `cse-semantic`
//! produce a program the checker accepts, that computes what the original computes (the
//! interpreter, bitwise), and that Z3 validates (every rewrite and every binding proved).
//!
//! 256 cases by default; set `TIRPROOF_PROPTEST_CASES` for longer runs and
//! `TIRPROOF_PROPTEST_SEED` for other programs.

use std::fmt::Write as _;
use std::time::Duration;

use proptest::prelude::*;
use tirproof::compare::check_equivalent;
use tirproof_interp::Schedule;
use tirproof_ir::check::check_module;
use tirproof_ir::print::print_module;
use tirproof_passes::cse::{eliminate_module, Mode};
use tirproof_reader::parse_module;
use tirproof_verify::cse::validate_module;

/// A fixed seed (override with `TIRPROOF_PROPTEST_SEED`): every case runs Z3 queries with
/// long time limits, so `cargo test` should meet the same programs every time.
fn seed() -> proptest::test_runner::RngSeed {
    let seed = std::env::var("TIRPROOF_PROPTEST_SEED").ok().and_then(|v| v.parse().ok()).unwrap_or(1);
    proptest::test_runner::RngSeed::Fixed(seed)
}

fn cases() -> u32 {
    std::env::var("TIRPROOF_PROPTEST_CASES").ok().and_then(|v| v.parse().ok()).unwrap_or(256)
}

/// Scalar parameters: the checker's scalar values are 1 to 17, so they are safe divisors.
const PARAMS: [&str; 3] = ["x", "y", "z"];

#[derive(Clone, Copy, Debug)]
enum Op {
    Add,
    Sub,
    Mul,
    FloorDiv,
    FloorMod,
    Min,
    Max,
}

#[derive(Clone, Copy, Debug)]
enum Variant {
    Same,
    Commuted,
    Reassociated,
}

#[derive(Clone, Debug)]
enum Tree {
    Param(usize),
    Const(i64),
    /// A shared subterm of the pool, written as is, commuted or reassociated.
    Shared(usize, Variant),
    Op(Op, Box<Tree>, Box<Tree>),
    /// `select` (eager) or `if_then_else` (lazy) on `a < b`.
    Choose {
        lazy: bool,
        a: Box<Tree>,
        b: Box<Tree>,
        then: Box<Tree>,
        other: Box<Tree>,
    },
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        3 => Just(Op::Add),
        2 => Just(Op::Sub),
        2 => Just(Op::Mul),
        1 => Just(Op::FloorDiv),
        1 => Just(Op::FloorMod),
        1 => Just(Op::Min),
        1 => Just(Op::Max),
    ]
}

fn tree(pool: usize, depth: u32) -> impl Strategy<Value = Tree> {
    let leaf = prop_oneof![
        3 => (0..PARAMS.len()).prop_map(Tree::Param),
        1 => (-4i64..9).prop_map(Tree::Const),
        4 => (0..pool.max(1), prop_oneof![Just(Variant::Same), Just(Variant::Commuted), Just(Variant::Reassociated)])
            .prop_map(move |(i, v)| if pool == 0 { Tree::Param(i % PARAMS.len()) } else { Tree::Shared(i, v) }),
    ];
    leaf.prop_recursive(depth, 24, 3, |inner| {
        prop_oneof![
            4 => (op(), inner.clone(), inner.clone()).prop_map(|(o, a, b)| Tree::Op(o, Box::new(a), Box::new(b))),
            1 => (any::<bool>(), inner.clone(), inner.clone(), inner.clone(), inner).prop_map(|(lazy, a, b, t, o)| {
                Tree::Choose { lazy, a: Box::new(a), b: Box::new(b), then: Box::new(t), other: Box::new(o) }
            }),
        ]
    })
}

/// Writes `t` as TVMScript; `pool` holds the shared subterms.
fn write(t: &Tree, pool: &[Tree], out: &mut String) {
    match t {
        Tree::Param(i) => out.push_str(PARAMS[*i]),
        Tree::Const(c) if *c < 0 => write!(out, "({c})").unwrap_or_default(),
        Tree::Const(c) => write!(out, "{c}").unwrap_or_default(),
        Tree::Shared(i, v) => write(&variant(&pool[*i % pool.len()], *v), pool, out),
        Tree::Op(o, a, b) => {
            let divisor;
            // Divisors are parameters (1 to 17) or non-zero constants, so no run faults.
            let b: &Tree = match (o, &**b) {
                (Op::FloorDiv | Op::FloorMod, Tree::Const(c)) if *c != 0 => b,
                (Op::FloorDiv | Op::FloorMod, _) => {
                    divisor = Tree::Param(pool.len() % PARAMS.len());
                    &divisor
                }
                _ => b,
            };
            let call = |name: &str, out: &mut String| {
                write!(out, "T.{name}(").unwrap_or_default();
                write(a, pool, out);
                out.push_str(", ");
                write(b, pool, out);
                out.push(')');
            };
            let infix = |sym: &str, out: &mut String| {
                out.push('(');
                write(a, pool, out);
                write!(out, " {sym} ").unwrap_or_default();
                write(b, pool, out);
                out.push(')');
            };
            match o {
                Op::Add => infix("+", out),
                Op::Sub => infix("-", out),
                Op::Mul => infix("*", out),
                Op::FloorDiv => infix("//", out),
                Op::FloorMod => infix("%", out),
                Op::Min => call("min", out),
                Op::Max => call("max", out),
            }
        }
        Tree::Choose { lazy, a, b, then, other } => {
            out.push_str(if *lazy { "T.if_then_else(" } else { "T.Select(" });
            write(a, pool, out);
            out.push_str(" < ");
            write(b, pool, out);
            for arm in [then, other] {
                out.push_str(", ");
                write(arm, pool, out);
            }
            out.push(')');
        }
    }
}

/// A shared subterm as written, with its operands swapped, or regrouped.
fn variant(t: &Tree, v: Variant) -> Tree {
    match (v, t) {
        (Variant::Commuted, Tree::Op(o @ (Op::Add | Op::Mul | Op::Min | Op::Max), a, b)) => {
            Tree::Op(*o, b.clone(), a.clone())
        }
        (Variant::Reassociated, Tree::Op(Op::Add, ab, c)) => match &**ab {
            Tree::Op(Op::Add, a, b) => Tree::Op(Op::Add, a.clone(), Box::new(Tree::Op(Op::Add, b.clone(), c.clone()))),
            _ => t.clone(),
        },
        _ => t.clone(),
    }
}

#[derive(Clone, Debug)]
struct Program {
    pool: Vec<Tree>,
    stores: Vec<Tree>,
    looped: Vec<Tree>,
    let_value: Tree,
}

fn program() -> impl Strategy<Value = Program> {
    prop::collection::vec(tree(0, 2), 1..4).prop_flat_map(|pool| {
        let n = pool.len();
        (Just(pool), prop::collection::vec(tree(n, 3), 1..6), prop::collection::vec(tree(n, 2), 0..3), tree(n, 2))
            .prop_map(|(pool, stores, looped, let_value)| Program { pool, stores, looped, let_value })
    })
}

fn text(p: &Program) -> String {
    let mut out = String::from(
        "from tvm.script import tirx as T\n\n@T.prim_func\ndef main(x: T.int32, y: T.int32, z: T.int32, A: T.Buffer((32,), \"int32\")):\n",
    );
    out.push_str("    w: T.let[T.int32] = ");
    write(&p.let_value, &p.pool, &mut out);
    out.push('\n');
    for (k, s) in p.stores.iter().enumerate() {
        write!(out, "    A[{k}] = w + ").unwrap_or_default();
        write(s, &p.pool, &mut out);
        out.push('\n');
    }
    if !p.looped.is_empty() {
        out.push_str("    for j in range(x):\n");
        for (k, s) in p.looped.iter().enumerate() {
            write!(out, "        A[16 + {k} * 4 + j % 4] = j + ").unwrap_or_default();
            write(s, &p.pool, &mut out);
            out.push('\n');
        }
    }
    out
}

proptest! {
    #![proptest_config(ProptestConfig { cases: cases(), rng_seed: seed(), failure_persistence: None, max_shrink_iters: 64, ..ProptestConfig::default() })]

    #[test]
    fn cse_keeps_the_meaning_and_is_validated(p in program()) {
        let source = text(&p);
        let module = parse_module(&source).map_err(|d| TestCaseError::fail(d.render("<generated>", &source)))?;
        for mode in [Mode::Syntactic, Mode::Semantic] {
            let mut output = module.clone();
            eliminate_module(&mut output, mode);
            let printed = print_module(&output);
            let diags = check_module(&output);
            prop_assert!(!diags.has_errors(), "{mode:?}: the checker rejects:\n{diags}\n{printed}");
            let same = check_equivalent(&module, &output, &[Schedule::Lazy]);
            prop_assert!(same.is_ok(), "{mode:?}: {}\n--- original ---\n{source}--- output ---\n{printed}", same.err().unwrap_or_default());
            for report in validate_module(&module, &output, Duration::from_secs(20)) {
                prop_assert!(report.is_proved(), "{mode:?}: {report}\n--- original ---\n{source}--- output ---\n{printed}");
            }
        }
    }
}
