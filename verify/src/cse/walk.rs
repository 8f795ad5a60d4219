//! The parallel walk of an original function and its CSE output.
//!
//! CSE changes expressions and inserts `LetStmt`s; everything else (statement kinds, buffers,
//! loops, attributes) must be the same. The walk matches the two trees statement by statement:
//! - a `LetStmt` of the rewritten side whose variable the original does not bind is an inserted
//!   binding: its fault obligation is checked (`trap`), its value joins the environment, and the
//!   walk continues with its body against the same original statement;
//! - matched binders (same variable, or same name and type) map the rewritten variable to the
//!   original one; matched let values join the environment (the original value, or an opaque
//!   symbol when it reads memory: both sides then read the same symbol);
//! - each pair of corresponding expressions that differ is one obligation: equal values and
//!   equal faults (`encode::same_value`) under the environment, assuming the lets in scope
//!   were computed without a fault (the program got there). Bindings leave the environment
//!   with their scope.

use std::collections::HashSet;
use std::time::Duration;

use tirproof_ir::print::{print_expr, print_stmt};
use tirproof_ir::structural::expr_eq;
use tirproof_ir::visit::{walk_expr, Visitor};
use tirproof_ir::{Buffer, CallEffect, Expr, PrimFunc, Stmt, StmtKind, Var, VarId};

use super::congruence::{decomposable, operand_pairs};
use super::encode::mentions_floats;
use super::encode::{same_value, Encoder};
use super::int_model::{self, IntModel};
use super::report::{Obligation, ObligationKind, ValidationReport};
use super::trap::definite_fault;
use super::{EncodeError, Env, LetValue, Side};
use crate::solver::{in_fresh_context, watched, Query, Session, UnknownReason, Verdict, Watchdog};
use z3::ast::Bool;

pub struct Walk<'w> {
    env: Env,
    timeout: Duration,
    /// One solver for the obligations without floats (a fresh Z3 solver costs more than a
    /// small check).
    session: Session<'w>,
    report: ValidationReport,
    path: Vec<String>,
    /// Every variable the original function binds.
    original_binders: HashSet<VarId>,
}

impl Walk<'_> {
    pub fn run(original: &PrimFunc, rewritten: &PrimFunc, timeout: Duration) -> ValidationReport {
        in_fresh_context(|| watched(|watchdog| Walk::run_watched(original, rewritten, (timeout, watchdog))))
    }

    fn run_watched(
        original: &PrimFunc,
        rewritten: &PrimFunc,
        (timeout, watchdog): (Duration, &Watchdog),
    ) -> ValidationReport {
        let mut binders = Binders::default();
        binders.visit_stmt(&original.body);
        let mut walk = Walk {
            env: Env::default(),
            timeout,
            session: Session::new(watchdog),
            report: ValidationReport { function: original.name.clone(), ..ValidationReport::default() },
            path: vec!["body".to_string()],
            original_binders: binders.0,
        };
        if original.params.len() != rewritten.params.len() {
            walk.mismatch("the functions have different parameters");
        } else {
            for (o, n) in original.params.iter().zip(&rewritten.params) {
                walk.bind(&o.var, &n.var);
                if let (Some(ob), Some(nb)) = (&o.buffer, &n.buffer) {
                    walk.bind_buffer(ob, nb);
                }
            }
            walk.stmt(&original.body, &rewritten.body);
        }
        walk.report
    }

    fn bind(&mut self, o: &Var, n: &Var) {
        if o.id() != n.id() {
            self.env.rename.insert(n.id(), o.clone());
        }
    }

    fn bind_buffer(&mut self, o: &Buffer, n: &Buffer) {
        if o.id() != n.id() {
            self.env.buffers.insert(n.id(), o.id());
        }
        self.bind(o.data(), n.data());
    }

    fn same_buffer(&self, o: &Buffer, n: &Buffer) -> bool {
        o.id() == n.id() || self.env.buffers.get(&n.id()) == Some(&o.id())
    }

    fn counterpart(&self, o: &Var, n: &Var) -> bool {
        o.id() == n.id() || (o.name() == n.name() && o.dtype() == n.dtype())
    }

    fn at<R>(&mut self, segment: impl Into<String>, f: impl FnOnce(&mut Self) -> R) -> R {
        self.path.push(segment.into());
        let r = f(self);
        self.path.pop();
        r
    }

    fn path(&self) -> String {
        self.path.join(".")
    }

    fn mismatch(&mut self, why: &str) {
        let path = self.path();
        self.report.obligations.push(Obligation {
            kind: ObligationKind::Structure,
            path,
            original: String::new(),
            rewritten: String::new(),
            verdict: Verdict::Unknown(UnknownReason::NotAsked(format!("the programs differ in structure: {why}"))),
        });
    }

    /// Whether the rewritten statement is a binding CSE inserted before `o`.
    fn inserted(&self, o: &Stmt, n: &Stmt) -> bool {
        let StmtKind::Let { var, .. } = &n.kind else { return false };
        if self.original_binders.contains(&var.id()) {
            return false;
        }
        !matches!(&o.kind, StmtKind::Let { var: ov, .. } if self.counterpart(ov, var))
    }

    fn stmt(&mut self, o: &Stmt, n: &Stmt) {
        if self.inserted(o, n) {
            if let StmtKind::Let { var, value, body } = &n.kind {
                self.binding(o, var, value);
                self.stmt(o, body);
                self.env.lets.remove(&var.id());
            }
            return;
        }
        match (&o.kind, &n.kind) {
            (StmtKind::Store(a), StmtKind::Store(b)) => {
                if !self.same_buffer(&a.buffer, &b.buffer) || a.indices.len() != b.indices.len() {
                    return self.mismatch("stores to different buffers");
                }
                for (k, (x, y)) in a.indices.iter().zip(&b.indices).enumerate() {
                    self.at(format!("store.index[{k}]"), |w| w.rewrite(x, y));
                }
                self.at("store.value", |w| w.rewrite(&a.value, &b.value));
            }
            (StmtKind::Let { var: ov, value: a, body: ob }, StmtKind::Let { var: nv, value: b, body: nb }) => {
                self.at("let.value", |w| w.rewrite(a, b));
                self.bind(ov, nv);
                let bound = if reads_state(a) {
                    LetValue::Opaque
                } else {
                    LetValue::Value { value: a.clone(), side: Side::Original }
                };
                self.env.lets.insert(ov.id(), bound);
                self.at("let.body", |w| w.stmt(ob, nb));
                self.env.lets.remove(&ov.id());
            }
            (StmtKind::Seq(a), StmtKind::Seq(b)) => {
                if a.len() != b.len() {
                    return self.mismatch("sequences of different lengths");
                }
                for (k, (x, y)) in a.iter().zip(b).enumerate() {
                    self.at(format!("seq[{k}]"), |w| w.stmt(x, y));
                }
            }
            (StmtKind::Evaluate(a), StmtKind::Evaluate(b)) => self.at("evaluate", |w| w.rewrite(a, b)),
            (StmtKind::Barrier { scope: a }, StmtKind::Barrier { scope: b }) if a == b => {}
            _ => self.compound(o, n),
        }
    }

    /// Loops, conditionals and scopes.
    fn compound(&mut self, o: &Stmt, n: &Stmt) {
        match (&o.kind, &n.kind) {
            (StmtKind::For(a), StmtKind::For(b)) => {
                if a.kind != b.kind || a.thread != b.thread || a.annotations != b.annotations {
                    return self.mismatch("loops of different kinds or annotations");
                }
                self.at("for.min", |w| w.rewrite(&a.min, &b.min));
                self.at("for.extent", |w| w.rewrite(&a.extent, &b.extent));
                self.bind(&a.var, &b.var);
                self.at("for.body", |w| w.stmt(&a.body, &b.body));
            }
            (
                StmtKind::If { cond: a, then_case: at, else_case: ae },
                StmtKind::If { cond: b, then_case: bt, else_case: be },
            ) => {
                self.at("if.cond", |w| w.rewrite(a, b));
                self.at("if.then", |w| w.stmt(at, bt));
                match (ae, be) {
                    (Some(x), Some(y)) => self.at("if.else", |w| w.stmt(x, y)),
                    (None, None) => {}
                    _ => self.mismatch("an else branch on one side only"),
                }
            }
            (StmtKind::Attr(a), StmtKind::Attr(b)) => {
                if a.key != b.key || a.node.is_some() != b.node.is_some() {
                    return self.mismatch("different attributes");
                }
                if let (Some(x), Some(y)) = (&a.node, &b.node) {
                    self.at("attr.node", |w| w.rewrite(x, y));
                }
                self.at("attr.value", |w| w.rewrite(&a.value, &b.value));
                self.at("attr.body", |w| w.stmt(&a.body, &b.body));
            }
            _ => self.scopes(o, n),
        }
    }

    /// Allocations, declarations, launches and blocks.
    fn scopes(&mut self, o: &Stmt, n: &Stmt) {
        match (&o.kind, &n.kind) {
            (StmtKind::Allocate(a), StmtKind::Allocate(b)) => {
                self.bind(&a.data, &b.data);
                self.at("allocate.body", |w| w.stmt(&a.body, &b.body));
            }
            (StmtKind::AllocBuffer { buffer: a, body: ab, .. }, StmtKind::AllocBuffer { buffer: b, body: bb, .. })
            | (StmtKind::DeclBuffer { buffer: a, body: ab }, StmtKind::DeclBuffer { buffer: b, body: bb }) => {
                self.bind_buffer(a, b);
                self.at("buffer.body", |w| w.stmt(ab, bb));
            }
            (
                StmtKind::LaunchThread { var: a, tag: at, extent: ae, body: ab },
                StmtKind::LaunchThread { var: b, tag: bt, extent: be, body: bb },
            ) if at == bt => {
                self.at("launch.extent", |w| w.rewrite(ae, be));
                self.bind(a, b);
                self.at("launch.body", |w| w.stmt(ab, bb));
            }
            (StmtKind::Block(a), StmtKind::Block(b)) if a.iter_vars.len() == b.iter_vars.len() => {
                for (k, (x, y)) in a.iter_vars.iter().zip(&b.iter_vars).enumerate() {
                    self.at(format!("block.iter_var[{k}]"), |w| w.rewrite(&x.binding, &y.binding));
                    self.bind(&x.var, &y.var);
                }
                for (x, y) in a.alloc_buffers.iter().zip(&b.alloc_buffers) {
                    self.bind_buffer(&x.buffer, &y.buffer);
                }
                match (&a.init, &b.init) {
                    (Some(x), Some(y)) => self.at("block.init", |w| w.stmt(x, y)),
                    (None, None) => {}
                    _ => return self.mismatch("an init statement on one side only"),
                }
                self.at("block.body", |w| w.stmt(&a.body, &b.body));
            }
            _ => self.mismatch(&format!("a {} statement against a {} statement", o.kind.name(), n.kind.name())),
        }
    }

    /// The obligation of a pair of corresponding expressions, unless they are the same.
    fn rewrite(&mut self, o: &Expr, n: &Expr) {
        if self.env.rename.is_empty() && self.env.buffers.is_empty() && expr_eq(o, n) {
            self.report.unchanged += 1;
            return;
        }
        let verdict = self.check_rewrite(o, n);
        self.push(ObligationKind::Rewrite, print_expr(o), print_expr(n), verdict);
    }

    /// The obligation of a binding inserted before `o`, then the binding joins the environment.
    fn binding(&mut self, o: &Stmt, var: &Var, value: &Expr) {
        let verdict = self.check(|enc| {
            let v = enc.expr(value, Side::Rewritten)?;
            let fault = definite_fault(enc, o)?;
            Ok(v.trap.implies(&fault))
        });
        let original = print_stmt(o).lines().next().unwrap_or_default().trim().to_string();
        self.push(
            ObligationKind::Binding,
            format!("(before) {original}"),
            format!("{var} = {}", print_expr(value)),
            verdict,
        );
        let bound = if reads_state(value) {
            LetValue::Opaque
        } else {
            LetValue::Value { value: value.clone(), side: Side::Rewritten }
        };
        self.env.lets.insert(var.id(), bound);
    }

    /// A rewrite obligation: by congruence when both sides apply the same operator and every
    /// operand pair is proved (see `congruence`), else as a whole.
    fn check_rewrite(&mut self, o: &Expr, n: &Expr) -> Verdict {
        if decomposable(o) && decomposable(n) && self.operands_proved(o, n) {
            return Verdict::Proved;
        }
        self.check_whole(o, n)
    }

    /// Whether `o` and `n` are proved to have the same value and faults: the same leaf, by
    /// congruence, or as a whole.
    fn congruent(&mut self, o: &Expr, n: &Expr) -> bool {
        self.same_leaf(o, n) || self.operands_proved(o, n) || self.check_whole(o, n).is_proved()
    }

    /// Both apply the same operator, and every operand pair is [`Walk::congruent`].
    fn operands_proved(&mut self, o: &Expr, n: &Expr) -> bool {
        let pairs = operand_pairs(o, n, |a, b| self.same_buffer(a, b));
        pairs.is_some_and(|pairs| pairs.into_iter().all(|(a, b)| self.congruent(a, b)))
    }

    /// The same constant, or the same variable (a rewritten variable's original counterpart).
    fn same_leaf(&self, o: &Expr, n: &Expr) -> bool {
        match (o, n) {
            (Expr::Var(a), Expr::Var(b)) => {
                a.id() == b.id() || self.env.rename.get(&b.id()).is_some_and(|v| v.id() == a.id())
            }
            (Expr::Int { .. } | Expr::Float { .. } | Expr::Str(_), _) => expr_eq(o, n),
            _ => false,
        }
    }

    /// A rewrite obligation as a whole: the bit-vector model with division and products
    /// uninterpreted, then (for scalar integer expressions) the integer model, then the exact
    /// bit-vector model.
    fn check_whole(&mut self, o: &Expr, n: &Expr) -> Verdict {
        let goal = |enc: &mut Encoder<'_>| {
            let a = enc.expr(o, Side::Original)?;
            let b = enc.expr(n, Side::Rewritten)?;
            same_value(&a, &b)
        };
        let (verdict, divides) = self.check_once(&goal, true);
        if verdict.is_proved() || !divides {
            return verdict;
        }
        if let Some(v @ (Verdict::Proved | Verdict::Refuted(_))) = self.check_integers(o, n) {
            return v;
        }
        self.check_once(&goal, false).0
    }

    /// The rewrite obligation in the integer model, if it can express both sides.
    fn check_integers(&mut self, o: &Expr, n: &Expr) -> Option<Verdict> {
        let mut query =
            Query::new(format!("{}: {} (integer model)", self.report.function, self.path())).with_timeout(self.timeout);
        let built = {
            let mut model = IntModel::with_env(&mut query, &self.env);
            model.reach_all();
            let sides = model.value(o, Side::Original).and_then(|a| Ok((a, model.value(n, Side::Rewritten)?)));
            sides.map(|(a, b)| {
                let equal = int_model::same(&a, &b, o.dtype());
                (model.reached(), Bool::and(&[a.fault.iff(&b.fault), a.fault.not().implies(&equal)]))
            })
        };
        let (reached, goal) = built.ok()?;
        query.require(reached.implies(&goal));
        Some(self.session.check_query(&query))
    }

    /// Runs one obligation: first with integer division uninterpreted (sound, and much easier
    /// for Z3), then, unless that proved it or no division was met, with exact division.
    fn check(&mut self, goal: impl Fn(&mut Encoder<'_>) -> Result<z3::ast::Bool, EncodeError>) -> Verdict {
        let (verdict, divides) = self.check_once(&goal, true);
        if verdict.is_proved() || !divides {
            return verdict;
        }
        self.check_once(&goal, false).0
    }

    fn check_once(
        &mut self,
        goal: &dyn Fn(&mut Encoder<'_>) -> Result<z3::ast::Bool, EncodeError>,
        abstract_division: bool,
    ) -> (Verdict, bool) {
        let model = if abstract_division { " (division uninterpreted)" } else { "" };
        let mut query =
            Query::new(format!("{}: {}{model}", self.report.function, self.path())).with_timeout(self.timeout);
        let built = {
            let mut enc = Encoder::new(&mut query, &self.env);
            if abstract_division {
                enc = enc.abstracting_division();
            }
            enc.reach_all();
            goal(&mut enc).map(|g| (enc.reached(), g, enc.divides, enc.floats))
        };
        match built {
            Ok((reached, goal, divides, floats)) => {
                let obligation = if goal.as_bool() == Some(true) { goal } else { reached.implies(&goal) };
                // Z3 solves float terms far faster on a fresh solver, where it preprocesses
                // them (bit-blasting), than on the session's incremental one. Only the goal
                // counts: one whose float values encoded to identical terms compares traps.
                let fresh = floats && mentions_floats(&obligation);
                query.require(obligation);
                let verdict =
                    if fresh { self.session.check_query_fresh(&query) } else { self.session.check_query(&query) };
                (verdict, divides)
            }
            Err(e) => (Verdict::Unknown(UnknownReason::NotAsked(format!("cannot encode: {e}"))), false),
        }
    }

    fn push(&mut self, kind: ObligationKind, original: String, rewritten: String, verdict: Verdict) {
        let path = self.path();
        self.report.obligations.push(Obligation { kind, path, original, rewritten, verdict });
    }
}

/// Whether an expression reads memory or calls an impure function (its value depends on when
/// it is computed).
pub fn reads_state(e: &Expr) -> bool {
    struct Reads(bool);
    impl Visitor for Reads {
        fn visit_expr(&mut self, e: &Expr) {
            self.0 |= matches!(e, Expr::Load(_)) || matches!(e, Expr::Call(c) if c.effect != CallEffect::Pure);
            walk_expr(self, e);
        }
    }
    let mut r = Reads(false);
    r.visit_expr(e);
    r.0
}

#[derive(Default)]
struct Binders(HashSet<VarId>);

impl Visitor for Binders {
    fn visit_var_def(&mut self, var: &Var) {
        self.0.insert(var.id());
    }
}
