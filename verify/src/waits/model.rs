//! The verification model of a function: its loops and the events the async obligations talk
//! about (commits, waits, barriers, asynchronous stores and every other buffer access), each
//! with its position in program order.
//!
//! A position is the path from the function body to the event: `Step::Loop` enters a loop's
//! body (one step per iteration variable), `Step::Child(k)` picks the k-th part of a
//! statement, `Step::Branch(k)` the then (0) or else (1) branch of an `if`. Two event
//! instances are ordered by comparing their paths: equal loop steps compare the iteration
//! values, the first differing child step decides, and within one thread two instances that
//! part at the branches of one execution of an `if` never both run. An attribute scope has
//! three parts: 0 before its body (where a wait happens), 1 the body, 2 after it (where a
//! commit happens), so directly nested attributes run wait, body, commit in any nesting order.
//! Let values without loads, block iteration bindings and `T.where` predicates are
//! substituted or recorded as guards; block annotations with async keys act as attributes
//! around the block body.
//!
//! Loads are events where the interpreter executes them: a `let` that reads memory reads it
//! where it is bound (its variable stays a data value, see [`Model::data_vars`]), a load in an
//! arm of `T.if_then_else` only under the arm's condition (the arm is lazy; `T.Select` reads
//! both), loads in a loop's bounds before the loop, loads in a wait count before the wait.
//!
//! Loops and events are named by ids ([`LoopId`], [`EventId`]): positions in the model's
//! lists, in the order the walk met them, so an outer loop has a smaller id than the loops in
//! its body. Queues are named by the program's own numbers ([`QueueId`]).

use std::cmp::Ordering;
use std::collections::{HashMap, HashSet};
use std::fmt;

use tirproof_ir::async_op::{decode_annotations, decode_chain, decode_token_op, AsyncOps, TokenOp};
use tirproof_ir::index_arith::{coefficient, gcd};

use serde::Serialize;
use tirproof_ir::print::print_expr;
use tirproof_ir::subst::Substitution;
use tirproof_ir::visit::{walk_expr, walk_func, walk_stmt, Visitor};
use tirproof_ir::ThreadTag;
use tirproof_ir::{AttrStmt, BinOp, Buffer, CallEffect, Expr, ForKind, PrimFunc, Span, Stmt, StmtKind, Var, VarId};

/// A loop of a [`Model`]: its position in [`Model::loops`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct LoopId(usize);

/// An event of a [`Model`]: its position in [`Model::events`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct EventId(usize);

/// An async queue, by the number the program gives it (the value of its commit and wait
/// scopes).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(transparent)]
pub struct QueueId(i64);

impl LoopId {
    /// The position in [`Model::loops`].
    pub fn index(self) -> usize {
        self.0
    }
}

impl EventId {
    /// The position in [`Model::events`].
    pub fn index(self) -> usize {
        self.0
    }
}

impl QueueId {
    /// The queue's number in the program.
    #[must_use]
    pub fn number(self) -> i64 {
        self.0
    }
}

impl fmt::Display for LoopId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "loop {}", self.0)
    }
}

impl fmt::Display for EventId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "e{}", self.0)
    }
}

impl fmt::Display for QueueId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "queue {}", self.0)
    }
}

/// One step of a position path. (Ordered so that paths sort in program order where they part
/// at two children of one statement; see `summary.rs` for where that is relied on.)
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Step {
    Loop(LoopId),
    Child(u32),
    /// The then (0) or else (1) branch of an `if`: in one execution of the `if`, only one
    /// of the two runs.
    Branch(u32),
}

#[derive(Clone, Debug)]
pub struct LoopInfo {
    pub var: Var,
    pub min: Expr,
    pub extent: Expr,
    /// Thread and block bindings: each thread has its own queues, so only the same value
    /// of these variables relates two instances of one thread.
    pub per_thread: bool,
    /// A block binding (`blockIdx.*`): threads of different blocks share no shared memory
    /// and no barrier.
    pub block: bool,
    /// A serial loop around a launch (host code): each iteration launches its kernels anew,
    /// so like a thread binding (`per_thread` is set too) only the same value relates two
    /// instances of one thread's queues, and unlike one, different values never race (the
    /// launches run one after the other).
    pub host: bool,
    /// The thread tag of a thread or block binding, when it has a known one.
    pub tag: Option<ThreadTag>,
    /// The binding whose variable stands for this one's: bindings of one tag in one launch
    /// are the same threads (the thread index is one value per thread, whichever binding reads
    /// it), so their values are one variable. Itself for every other loop.
    pub same_threads_as: LoopId,
    /// Where the loop is written.
    pub span: Span,
    /// How many iterations the loop can have in an execution whose accesses stay in bounds
    /// (the program's precondition), when an access in its body bounds it: see
    /// [`iteration_bound`].
    pub max_iterations: Option<i64>,
    /// Bounds on the iterations that run an access under a range condition on the loop's
    /// variable (`i + a < X`): fewer than the bound of them ran the access in bounds. Which
    /// iterations those are (a prefix or a suffix of the loop), the query computes: `X` may
    /// depend on parameters and outer loops. See [`iteration_bound`].
    pub guarded_max_iterations: Vec<(i64, RangeGuard)>,
    /// The conditions around the loop (an event in its body under more is conditional
    /// within the loop).
    pub guards: Vec<Expr>,
    /// The loops around this one, outermost first.
    pub enclosing: Vec<LoopId>,
}

/// A condition `var + offset op bound` on a loop's variable (`op` an ordering), with a
/// `bound` that neither mentions the variable nor reads memory; `var + offset` is computed in
/// `dtype` (it may wrap, which the query rules out before it uses the condition).
#[derive(Clone, Debug)]
pub struct RangeGuard {
    pub op: tirproof_ir::CmpOp,
    pub offset: i64,
    pub dtype: tirproof_ir::DataType,
    pub bound: Expr,
}

/// A buffer access, in scalar elements of its storage.
#[derive(Clone, Debug)]
pub struct Access {
    pub buffer: Buffer,
    pub indices: Vec<Expr>,
}

#[derive(Clone, Debug)]
pub enum EventKind {
    Commit {
        queue: QueueId,
    },
    Wait {
        queue: QueueId,
        until: Until,
    },
    Barrier,
    /// Where a token expression is evaluated (a token-making call, or a load of a token from
    /// memory): no effect of its own, a point the token's group is counted at.
    TokenPoint,
    /// A store inside `async_scope`, with the commit that closes its group.
    AsyncStore {
        access: Access,
        commit: Option<EventId>,
    },
    /// Any other load or store.
    Use {
        access: Access,
        write: bool,
    },
    /// The end of the function, or of a launch (the end of its root binding's body): every
    /// group of the threads there must be complete.
    End,
}

/// When a wait stops completing groups, as the encoding reads it.
#[derive(Clone, Debug)]
pub enum Until {
    /// At most this many groups in flight.
    InFlight(Expr),
    /// When the newest group the tokens name has completed; with `claimed`, the count that
    /// runs, which the program claims covers the tokens.
    Tokens { tokens: Vec<TokenSource>, claimed: Option<Expr>, shown: Vec<String> },
}

impl EventKind {
    /// The count a wait runs with when one is written; `None` for a wait on tokens alone and
    /// for every other event.
    pub fn written_count(&self) -> Option<&Expr> {
        match self {
            EventKind::Wait { until, .. } => until.runs(),
            _ => None,
        }
    }
}

impl Until {
    /// The count that runs, when one is written.
    pub fn runs(&self) -> Option<&Expr> {
        match self {
            Until::InFlight(count) | Until::Tokens { claimed: Some(count), .. } => Some(count),
            Until::Tokens { claimed: None, .. } => None,
        }
    }

    /// The tokens named (none for a count alone).
    pub fn tokens(&self) -> &[TokenSource] {
        match self {
            Until::InFlight(_) => &[],
            Until::Tokens { tokens, .. } => tokens,
        }
    }
}

/// Where the value of a token comes from (see `tokens.rs` for how its group is counted).
#[derive(Clone, Debug)]
pub enum TokenSource {
    /// A token-making call evaluated at `point` (an [`EventKind::TokenPoint`]).
    Made { point: EventId, op: TokenOp, queue: QueueId },
    /// A load of `access` at `point`: the token the last store to that element wrote.
    Loaded { point: EventId, access: Access },
    /// Another token plus a constant: the group `by` later (earlier, when negative).
    Offset { base: Box<TokenSource>, by: i64 },
}

impl TokenSource {
    /// Where the token's expression is evaluated.
    pub fn point(&self) -> EventId {
        match self {
            TokenSource::Made { point, .. } | TokenSource::Loaded { point, .. } => *point,
            TokenSource::Offset { base, .. } => base.point(),
        }
    }
}

/// A store of an `int64` value into memory: the store's event and, when the value is a token,
/// where it comes from (why not, otherwise). A load of a token reads the last of these.
#[derive(Clone, Debug)]
pub struct TokenStore {
    pub store: EventId,
    pub value: Result<TokenSource, String>,
}

#[derive(Clone, Debug)]
pub struct Event {
    pub kind: EventKind,
    pub path: Vec<Step>,
    /// Conditions under which the event happens (enclosing `if`s and block predicates).
    pub guards: Vec<Expr>,
    /// For each of `guards`, the length of the path where it is evaluated: a condition of
    /// an `if` or a block predicate is evaluated once per instance of `path[..depth]`, so two
    /// events whose guards agree up to there, at equal values of those loops, saw one
    /// evaluation of it.
    pub guard_depths: Vec<usize>,
    pub span: Span,
    /// The statement, printed, for reports.
    pub text: String,
    /// Where the pass that emitted the event's statement copied it from: (original statement,
    /// original iteration) for each enclosing copy, outermost first. Empty without provenance.
    pub origins: Vec<(u32, Expr)>,
}

#[derive(Clone, Debug, Default)]
pub struct Model {
    pub loops: Vec<LoopInfo>,
    pub events: Vec<Event>,
    /// Scalar parameters: free in every query.
    pub params: Vec<Var>,
    /// Variables bound by `let` to values read from memory: unknown data, a fresh value
    /// wherever an expression mentions them.
    pub data_vars: HashSet<VarId>,
    /// The value each `let` of `data_vars` that is not a token was bound to: an expression
    /// that mentions one is encoded with the value, its loads fresh unknowns, so the parts of
    /// it that read no memory stay exact (`T.Select(i >= 0, i // 2, A[0])` is `i // 2`
    /// wherever `i >= 0`).
    pub data_defs: HashMap<VarId, Expr>,
    /// Storage (data variables) the function may write: every store's, and every handle used
    /// as a value (an address taken or passed may be written through); `None` when a call may
    /// write any memory.
    pub written: Option<HashSet<VarId>>,
    /// Parameters that are an extent of a parameter buffer: a program where one is negative
    /// is ill-formed (the interpreter refuses it), so they are at least 0 (a precondition).
    pub extent_params: HashSet<VarId>,
    /// Constructs the model could not represent exactly, with where they are.
    pub unsupported: Vec<(Span, String)>,
    /// Constructs whose meaning the encoding does not capture: every verdict of the function
    /// is unknown.
    pub unencoded: Vec<(Span, String)>,
    /// Every store of an `int64` value, in event order: where loaded tokens come from.
    pub token_stores: Vec<TokenStore>,
    /// Every token-making call the model evaluates: its point, kind and queue.
    pub tokens_made: Vec<(EventId, TokenOp, QueueId)>,
    /// Storage the function allocates, with the loops around each allocation: every
    /// iteration of those loops allocates it afresh (uninitialized).
    pub allocated: HashMap<VarId, Vec<LoopId>>,
    /// Storage whose handle the function uses as a value (passed to a call, its address
    /// taken): it may be written other than by the stores the model sees.
    pub handles_used: HashSet<VarId>,
}

impl Model {
    /// Whether every condition on data around event `e` is one evaluation with a condition
    /// around event `u` (the same `if` or block predicate, see [`Event::guard_depths`]):
    /// then, at equal values of the loops on the first `depth` steps of their paths, both
    /// saw the same outcome. The deepest such `depth`, or `None` when some condition on data
    /// of `e` is not around `u`.
    pub fn shared_data_conditions(&self, e: EventId, u: EventId) -> Option<usize> {
        let (a, b) = (self.event(e), self.event(u));
        let mut deepest = 0;
        for (k, g) in a.guards.iter().enumerate() {
            if !self.varies_with_data(g) {
                continue;
            }
            let d = a.guard_depths[k];
            let same = b.guards.get(k) == Some(g)
                && b.guard_depths.get(k) == Some(&d)
                && a.path.get(..d).is_some_and(|p| b.path.get(..d) == Some(p));
            if !same {
                return None;
            }
            deepest = deepest.max(d);
        }
        Some(deepest)
    }

    pub fn of(func: &PrimFunc) -> Model {
        let mut b = Builder {
            model: Model::default(),
            path: Vec::new(),
            guards: Vec::new(),
            guard_depths: Vec::new(),
            commits: Vec::new(),
            in_async: false,
            span: func.span,
            origins: Vec::new(),
            token_vars: HashMap::new(),
        };
        b.model.params = func.scalar_params().cloned().collect();
        b.model.written = written_storage(func);
        b.model.handles_used = handles_used(func);
        for buffer in func.param_buffers() {
            for extent in buffer.shape() {
                if let Expr::Var(v) = extent {
                    b.model.extent_params.insert(v.id());
                }
            }
        }
        // The body is child 0 and the end a later child, so the end comes after every event
        // even when the body is a single loop (its path would otherwise start with the loop).
        b.child(0, |b| b.stmt(&func.body));
        b.child(u32::MAX, |b| b.push_event(EventKind::End, "the end of the function".into()));
        let mut model = b.model;
        // A token-making call the model does not evaluate where the interpreter does (inside
        // another expression, or duplicated by inlining) may fault or name another group.
        let calls = token_calls(func);
        if calls != model.tokens_made.len() {
            model.unencoded.push((
                func.span,
                format!(
                    "{calls} token-making calls, {} of them at a place the encoding follows",
                    model.tokens_made.len()
                ),
            ));
        }
        model.mark_host_loops();
        model.unify_thread_bindings();
        for l in 0..model.loops.len() {
            let (bound, guarded) = iteration_bound(&model, LoopId(l));
            model.loops[l].max_iterations = bound;
            model.loops[l].guarded_max_iterations = guarded;
        }
        model
    }

    /// The loops an event's path enters, outermost first.
    pub fn loops_of(&self, event: &Event) -> Vec<LoopId> {
        event.path.iter().filter_map(|s| if let Step::Loop(l) = s { Some(*l) } else { None }).collect()
    }

    /// The loops an event's path enters that are not thread or block bindings, outermost
    /// first: those whose values an instance of the event has of its own.
    pub fn serial_loops_of(&self, event: &Event) -> Vec<LoopId> {
        self.loops_of(event).into_iter().filter(|l| !self.loop_info(*l).per_thread).collect()
    }

    /// The order in which one thread runs two instances, each an event and the values of its
    /// serial loops (`serial_loops_of`): by their paths, where they part, the instance of the
    /// earlier iteration or of the earlier statement first; events at one position by id.
    pub fn execution_order(&self, a: (EventId, &[(LoopId, i64)]), b: (EventId, &[(LoopId, i64)])) -> Ordering {
        let value = |at: &[(LoopId, i64)], l: LoopId| at.iter().find(|(k, _)| *k == l).map(|(_, v)| *v);
        for (x, y) in self.event(a.0).path.iter().zip(&self.event(b.0).path) {
            match (x, y) {
                (Step::Loop(l), Step::Loop(m)) if l == m => {
                    if let (Some(u), Some(v)) = (value(a.1, *l), value(b.1, *l)) {
                        if u != v {
                            return u.cmp(&v);
                        }
                    }
                }
                _ if x == y => {}
                _ => return x.cmp(y),
            }
        }
        a.0.cmp(&b.0)
    }

    /// The thread and block bindings, in id order.
    pub fn thread_loops(&self) -> impl Iterator<Item = LoopId> + '_ {
        self.loops_by_id().filter(|(_, l)| l.per_thread).map(|(id, _)| id)
    }

    pub fn event(&self, id: EventId) -> &Event {
        &self.events[id.0]
    }

    pub fn loop_info(&self, id: LoopId) -> &LoopInfo {
        &self.loops[id.0]
    }

    /// Every event with its id, in id order.
    pub fn events_by_id(&self) -> impl Iterator<Item = (EventId, &Event)> {
        self.events.iter().enumerate().map(|(i, e)| (EventId(i), e))
    }

    /// Every loop with its id, in id order.
    pub fn loops_by_id(&self) -> impl Iterator<Item = (LoopId, &LoopInfo)> {
        self.loops.iter().enumerate().map(|(i, l)| (LoopId(i), l))
    }

    /// Whether any statement carries provenance.
    pub fn has_provenance(&self) -> bool {
        self.events.iter().any(|e| !e.origins.is_empty())
    }

    /// Whether evaluating `e` reads memory (a load, or a variable a `let` bound to one).
    pub fn reads_data(&self, e: &Expr) -> bool {
        has_loads([e]) || vars_of(e).iter().any(|v| self.data_vars.contains(v))
    }

    /// Whether `e` reads memory that is one value wherever and whenever it is read: every load
    /// of `e` is of storage nothing in the function writes, at indices of parameters and
    /// constants alone (no loop, thread or `let` variable, no load), and `e` mentions no
    /// variable a `let` bound to data. Such a read is one unknown for a whole execution, like
    /// a parameter, and a condition on it one choice.
    pub fn reads_fixed_data(&self, e: &Expr) -> bool {
        let Some(written) = &self.written else { return false };
        if vars_of(e).iter().any(|v| self.data_vars.contains(v)) {
            return false;
        }
        let mut loads = Loads { found: Vec::new(), arms: Vec::new() };
        loads.visit_expr(e);
        let is_param = |v: &VarId| self.params.iter().any(|p| p.id() == *v);
        !loads.found.is_empty()
            && loads.found.iter().all(|(buffer, indices, _)| {
                !written.contains(&buffer.data().id())
                    && !has_loads(indices)
                    && indices.iter().all(|index| vars_of(index).iter().all(is_param))
            })
    }

    /// Whether `e` reads memory that may differ between its evaluations: reads data, and not
    /// only fixed data (see [`Model::reads_fixed_data`]).
    pub fn varies_with_data(&self, e: &Expr) -> bool {
        self.reads_data(e) && !self.reads_fixed_data(e)
    }

    pub fn is_loop_var(&self, var: VarId) -> Option<LoopId> {
        self.loops.iter().position(|l| l.var.id() == var).map(LoopId)
    }

    /// The launch an event belongs to: the root binding of its kernel (the outermost thread
    /// or block binding on its path), or `None` for code outside every launch. Queues belong
    /// to a thread for the life of its launch: commits, waits and ends of different launches
    /// never relate.
    pub fn launch_of(&self, event: &Event) -> Option<LoopId> {
        event.path.iter().find_map(|s| match s {
            Step::Loop(l) if self.loop_info(*l).per_thread && !self.loop_info(*l).host => Some(*l),
            _ => None,
        })
    }

    /// The queue whose group an async store joins: its commit scope's, or, for a store
    /// outside every commit scope (which joins the next commit its thread runs, of any
    /// queue), the one queue its launch commits to. A launch that never commits leaves the
    /// store in flight whatever queue is named: the first its waits name, or queue 0. `None`
    /// when the launch commits to several queues (which one comes next is not encoded).
    pub fn store_queue(&self, store: EventId) -> Option<QueueId> {
        let EventKind::AsyncStore { commit, .. } = &self.event(store).kind else { return None };
        let queue_of = |e: EventId| match self.event(e).kind {
            EventKind::Commit { queue } | EventKind::Wait { queue, .. } => Some(queue),
            _ => None,
        };
        if let Some(k) = commit {
            return queue_of(*k);
        }
        let in_launch = |is_commit: bool| -> HashSet<QueueId> {
            self.events_by_id()
                .filter(|(e, event)| {
                    matches!(event.kind, EventKind::Commit { .. }) == is_commit && self.same_launch(*e, store)
                })
                .filter_map(|(e, _)| queue_of(e))
                .collect()
        };
        let commits = in_launch(true);
        match commits.len() {
            0 => Some(in_launch(false).into_iter().min().unwrap_or(QueueId(0))),
            1 => commits.into_iter().next(),
            _ => None,
        }
    }

    /// Whether two events belong to one launch (or both to code outside every launch).
    pub fn same_launch(&self, a: EventId, b: EventId) -> bool {
        self.launch_of(self.event(a)) == self.launch_of(self.event(b))
    }

    /// The thread and block variables of a launch's threads, one per binding tag (and one per
    /// binding without a known tag): what tells its threads apart, whichever of its bindings
    /// an event is in, or none (code at block level runs in every thread of the block).
    pub fn launch_threads(&self, root: LoopId) -> Vec<LoopId> {
        self.loops_by_id()
            .filter(|(id, l)| {
                l.per_thread && !l.host && l.same_threads_as == *id && (*id == root || l.enclosing.contains(&root))
            })
            .map(|(id, _)| id)
            .collect()
    }

    /// Bindings of one tag in one launch, none inside another, are the same threads: each
    /// stands for the first of them (see [`LoopInfo::same_threads_as`]). Bindings of one tag
    /// with different bounds (which TVM refuses) are not encoded.
    fn unify_thread_bindings(&mut self) {
        let mut first: HashMap<(LoopId, ThreadTag), LoopId> = HashMap::new();
        for id in 0..self.loops.len() {
            let info = &self.loops[id];
            let Some(tag) = info.tag.filter(|_| info.per_thread && !info.host) else { continue };
            // A launch root is the root of its own launch: sibling launches never share threads.
            let root = info
                .enclosing
                .iter()
                .copied()
                .find(|l| {
                    let outer = &self.loops[l.0];
                    outer.per_thread && !outer.host
                })
                .unwrap_or(LoopId(id));
            let rep = *first.entry((root, tag)).or_insert(LoopId(id));
            if rep.0 == id || self.loops[id].enclosing.contains(&rep) {
                continue;
            }
            let (a, b) = (&self.loops[rep.0], &self.loops[id]);
            if a.min != b.min || a.extent != b.extent {
                let why = format!(
                    "bindings of {} with different bounds in one launch: range({}, {}) and range({}, {})",
                    tag.as_str(),
                    print_expr(&a.min),
                    print_expr(&a.extent),
                    print_expr(&b.min),
                    print_expr(&b.extent)
                );
                self.unencoded.push((b.span, why));
                continue;
            }
            self.loops[id].same_threads_as = rep;
        }
    }

    /// Marks the serial loops around a launch as host loops (see [`LoopInfo::host`]). Async
    /// events in such a loop outside every launch would need the loop counted as serial:
    /// not encoded (unknown).
    fn mark_host_loops(&mut self) {
        let hosts: HashSet<LoopId> = self
            .loops
            .iter()
            .filter(|l| l.per_thread)
            .flat_map(|l| l.enclosing.iter().copied())
            .filter(|l| !self.loops[l.0].per_thread)
            .collect();
        for l in &hosts {
            self.loops[l.0].per_thread = true;
            self.loops[l.0].host = true;
        }
        let host_async: Vec<Span> = self
            .events
            .iter()
            .filter(|e| {
                matches!(e.kind, EventKind::Commit { .. } | EventKind::Wait { .. } | EventKind::AsyncStore { .. })
            })
            .filter(|e| self.launch_of(e).is_none() && self.loops_of(e).iter().any(|l| hosts.contains(l)))
            .map(|e| e.span)
            .collect();
        for span in host_async {
            self.unencoded.push((span, "an async operation in a serial loop that also launches kernels".into()));
        }
    }
}

struct Builder {
    model: Model,
    path: Vec<Step>,
    guards: Vec<Expr>,
    guard_depths: Vec<usize>,
    /// Enclosing commit scopes (their events are created when the scope closes; the ids are
    /// reserved when it opens).
    commits: Vec<EventId>,
    in_async: bool,
    span: Span,
    origins: Vec<(u32, Expr)>,
    /// Variables bound by `let` to a token, and where its value comes from.
    token_vars: HashMap<VarId, TokenSource>,
}

impl Builder {
    fn child<R>(&mut self, k: u32, f: impl FnOnce(&mut Self) -> R) -> R {
        self.at(Step::Child(k), f)
    }

    fn branch<R>(&mut self, k: u32, f: impl FnOnce(&mut Self) -> R) -> R {
        self.at(Step::Branch(k), f)
    }

    /// A condition around what follows, evaluated at the current path.
    fn push_guard(&mut self, cond: Expr) {
        self.guards.push(cond);
        self.guard_depths.push(self.path.len());
    }

    fn pop_guard(&mut self) {
        self.guards.pop();
        self.guard_depths.pop();
    }

    /// Runs `f` one `step` deeper in the path.
    fn at<R>(&mut self, step: Step, f: impl FnOnce(&mut Self) -> R) -> R {
        self.path.push(step);
        let r = f(self);
        self.path.pop();
        r
    }

    fn push_event(&mut self, kind: EventKind, text: String) -> EventId {
        let id = EventId(self.model.events.len());
        self.model.events.push(Event {
            kind,
            path: self.path.clone(),
            guards: self.guards.clone(),
            guard_depths: self.guard_depths.clone(),
            span: self.span,
            text,
            origins: self.origins.clone(),
        });
        id
    }

    fn unsupported(&mut self, why: impl Into<String>) {
        self.model.unsupported.push((self.span, why.into()));
    }

    fn stmt(&mut self, stmt: &Stmt) {
        let saved = self.span;
        if stmt.span.is_known() {
            self.span = stmt.span;
        }
        if let Some(o) = &stmt.origin {
            self.origins.push((o.stmt, o.iteration.clone()));
        }
        self.stmt_kind(stmt);
        if stmt.origin.is_some() {
            self.origins.pop();
        }
        self.span = saved;
    }

    fn stmt_kind(&mut self, stmt: &Stmt) {
        match &stmt.kind {
            StmtKind::Seq(items) => {
                for (k, item) in items.iter().enumerate() {
                    self.child(k as u32, |b| b.stmt(item));
                }
            }
            StmtKind::Store(store) => {
                self.accesses_in_exprs(store.indices.iter().chain(std::iter::once(&store.value)));
                let access = Access { buffer: store.buffer.clone(), indices: store.indices.clone() };
                let text = tirproof_ir::print::print_stmt(stmt).trim().to_string();
                // A stored `int64` may be a token a later wait loads: where its value comes
                // from is evaluated with the store's other operands.
                let token = (store.value.dtype() == tirproof_ir::DataType::INT64 && !self.in_async)
                    .then(|| self.child(0, |b| b.token_source(&store.value)));
                let id = self.child(1, |b| {
                    if b.in_async {
                        let commit = b.commits.last().copied();
                        b.push_event(EventKind::AsyncStore { access, commit }, text)
                    } else {
                        b.push_event(EventKind::Use { access, write: true }, text)
                    }
                });
                if let Some(value) = token {
                    self.model.token_stores.push(TokenStore { store: id, value });
                }
            }
            StmtKind::Evaluate(e) => self.accesses_in_exprs(std::iter::once(e)),
            StmtKind::Barrier { .. } => {
                self.push_event(EventKind::Barrier, "T.tvm_storage_sync(\"shared\")".into());
            }
            StmtKind::If { cond, then_case, else_case } => {
                self.accesses_in_exprs(std::iter::once(cond));
                self.push_guard(cond.clone());
                self.branch(0, |b| b.stmt(then_case));
                self.pop_guard();
                if let Some(e) = else_case {
                    self.push_guard(Expr::logical_not(cond.clone()));
                    self.branch(1, |b| b.stmt(e));
                    self.pop_guard();
                }
            }
            StmtKind::For(f) => {
                let (binding, tag) = match (&f.kind, &f.thread) {
                    (ForKind::ThreadBinding, Some(tag)) => (Binding::of_tag(tag), ThreadTag::parse(tag)),
                    (ForKind::ThreadBinding, None) => (Binding::Thread, None),
                    _ => (Binding::Serial, None),
                };
                let bounds = [&f.min, &f.extent];
                if !has_loads(bounds) {
                    return self.for_loop(&f.var, &f.min, &f.extent, (binding, tag), &f.body);
                }
                self.child(0, |b| b.accesses_in_exprs(bounds.into_iter()));
                self.child(1, |b| b.for_loop(&f.var, &f.min, &f.extent, (binding, tag), &f.body));
            }
            StmtKind::LaunchThread { var, extent, body, tag } => {
                self.for_loop(var, &Expr::int(0), extent, (Binding::of_tag(tag), ThreadTag::parse(tag)), body)
            }
            StmtKind::Let { var, value, body } if names_token(value) => {
                // A token is evaluated where the `let` binds it: the groups committed before
                // that point, not before each use, decide which group it names.
                let source = self.child(0, |b| {
                    b.accesses_in_exprs(std::iter::once(value));
                    b.token_source(value)
                });
                if let Ok(source) = source {
                    self.token_vars.insert(var.id(), source);
                }
                self.model.data_vars.insert(var.id());
                self.child(1, |b| b.stmt(body));
            }
            StmtKind::Let { var, value, body } if has_loads([value]) => {
                // The value is read here, once; uses of the variable read nothing.
                self.child(0, |b| b.accesses_in_exprs(std::iter::once(value)));
                self.model.data_vars.insert(var.id());
                self.model.data_defs.insert(var.id(), value.clone());
                self.child(1, |b| b.stmt(body));
            }
            StmtKind::Let { var, value, body } => {
                let inlined = Substitution::new().var(var, value.clone()).stmt(body);
                self.stmt(&inlined);
            }
            StmtKind::Attr(a) => self.attr(a),
            StmtKind::Allocate(a) => {
                self.allocate(a.data.id());
                self.stmt(&a.body)
            }
            StmtKind::AllocBuffer { buffer, body, .. } => {
                self.allocate(storage(buffer));
                self.stmt(body)
            }
            StmtKind::DeclBuffer { body, .. } => self.stmt(body),
            StmtKind::Block(block) => self.block(block),
        }
    }

    fn for_loop(
        &mut self,
        var: &Var,
        min: &Expr,
        extent: &Expr,
        (binding, tag): (Binding, Option<ThreadTag>),
        body: &Stmt,
    ) {
        let id = LoopId(self.model.loops.len());
        self.model.loops.push(LoopInfo {
            var: var.clone(),
            min: min.clone(),
            extent: extent.clone(),
            per_thread: binding != Binding::Serial,
            block: binding == Binding::Block,
            host: false,
            tag,
            same_threads_as: id,
            span: self.span,
            max_iterations: None,
            guarded_max_iterations: Vec::new(),
            guards: self.guards.clone(),
            enclosing: self.path.iter().filter_map(|s| if let Step::Loop(l) = s { Some(*l) } else { None }).collect(),
        });
        let launch_root = binding != Binding::Serial
            && !self.path.iter().any(|s| matches!(s, Step::Loop(l) if self.model.loops[l.0].per_thread));
        self.path.push(Step::Loop(id));
        if launch_root {
            // The body is child 0 and the launch's end a later child, as for the function.
            self.child(0, |b| b.stmt(body));
            self.child(u32::MAX, |b| b.push_event(EventKind::End, "the end of the launch".into()));
        } else {
            self.stmt(body);
        }
        self.path.pop();
    }

    /// An attribute: an async chain (decoded by `async_op::decode_chain`, the one definition
    /// the interpreter and the checker share) or any other attribute, which only scopes.
    fn attr(&mut self, attr: &AttrStmt) {
        let Some(chain) = decode_chain(attr) else {
            return self.child(1, |b| b.stmt(&attr.body));
        };
        match chain.ops() {
            Ok(ops) => self.async_ops(&ops, chain.body),
            Err(why) => {
                self.model.unencoded.push((self.span, why.to_string()));
                self.child(1, |b| b.stmt(chain.body));
            }
        }
    }

    /// What a chain does around `body`: its wait, the body (asynchronous under
    /// `async_scope`), its commit.
    fn async_ops(&mut self, ops: &AsyncOps, body: &Stmt) {
        if let Some(wait) = &ops.wait {
            if let Some(queue) = self.queue(&wait.queue) {
                self.child(0, |b| {
                    // A count or a token read from memory is read just before the wait.
                    b.accesses_in_exprs(wait.inflight().into_iter().chain(wait.tokens()));
                    if let Some((until, text)) = b.until(queue, wait.inflight(), wait.tokens()) {
                        b.child(1, |b| b.push_event(EventKind::Wait { queue, until }, text));
                    }
                });
            }
        }
        // Reserve the commit's id so stores inside can name it; its position is set after.
        // A commit left out would let the stores of its scope join a later group: nothing is
        // claimed then.
        if ops.commit.as_ref().is_some_and(|q| q.as_int().is_none()) {
            self.model.unencoded.push((self.span, "a commit whose queue id is not a constant".into()));
        }
        let commit = ops.commit.as_ref().and_then(|q| self.queue(q)).map(|queue| {
            let id = self.push_event(EventKind::Commit { queue }, format!("commit({queue})"));
            self.commits.push(id);
            id
        });
        let saved = self.in_async;
        self.in_async |= ops.asynchronous;
        self.child(1, |b| b.stmt(body));
        self.in_async = saved;
        if let Some(id) = commit {
            self.commits.pop();
            self.path.push(Step::Child(2));
            self.model.events[id.0].path = self.path.clone();
            self.path.pop();
        }
    }

    /// What a wait on `queue` waits for, and its text. Tokens whose source the encoding cannot
    /// follow leave a written count as the wait (the claim unchecked), and leave a wait on
    /// tokens alone out: nothing is claimed about its function then (leaving the wait out
    /// would refute what it protects).
    fn until(&mut self, queue: QueueId, count: Option<&Expr>, tokens: &[Expr]) -> Option<(Until, String)> {
        let shown = |e: &[Expr]| e.iter().map(print_expr).collect::<Vec<_>>().join(", ");
        if tokens.is_empty() {
            let count = count?;
            return Some((Until::InFlight(count.clone()), format!("wait({queue}, in-flight {})", print_expr(count))));
        }
        let sources: Result<Vec<TokenSource>, String> =
            self.child(0, |b| tokens.iter().map(|t| b.token_source(t)).collect());
        match (sources, count) {
            (Ok(tokens_from), _) => {
                let text = match count {
                    Some(c) => format!("wait({queue}, in-flight {}, claiming tokens {})", print_expr(c), shown(tokens)),
                    None => format!("wait({queue}, tokens {})", shown(tokens)),
                };
                let shown = tokens.iter().map(print_expr).collect();
                Some((Until::Tokens { tokens: tokens_from, claimed: count.cloned(), shown }, text))
            }
            (Err(why), Some(count)) => {
                self.unsupported(format!("the tokens a wait claims to cover are not checked: {why}"));
                Some((Until::InFlight(count.clone()), format!("wait({queue}, in-flight {})", print_expr(count))))
            }
            (Err(why), None) => {
                self.model.unencoded.push((self.span, format!("a wait on tokens whose source is not followed: {why}")));
                None
            }
        }
    }

    /// Where the token `e` comes from, evaluated at the current position (a token-making call
    /// or a load gets a [`EventKind::TokenPoint`] there).
    fn token_source(&mut self, e: &Expr) -> Result<TokenSource, String> {
        match e {
            Expr::Var(v) => {
                self.token_vars.get(&v.id()).cloned().ok_or_else(|| format!("`{}` is not bound to a token", v.name()))
            }
            Expr::Call(call) => match decode_token_op(call) {
                Some(Ok((op, queue))) => {
                    let queue = queue
                        .as_int()
                        .map(QueueId)
                        .ok_or_else(|| format!("a token of a queue that is not a constant: {}", print_expr(queue)))?;
                    let point = self.push_event(EventKind::TokenPoint, print_expr(e));
                    self.model.tokens_made.push((point, op, queue));
                    Ok(TokenSource::Made { point, op, queue })
                }
                Some(Err(why)) => Err(why),
                None => Err(format!("a token computed by `{}`", print_expr(e))),
            },
            Expr::Load(load) => {
                let access = Access { buffer: load.buffer.clone(), indices: load.indices.clone() };
                let point = self.push_event(EventKind::TokenPoint, print_expr(e));
                Ok(TokenSource::Loaded { point, access })
            }
            Expr::Binary { op: op @ (BinOp::Add | BinOp::Sub), lhs, rhs } if rhs.as_int().is_some() => {
                let by = rhs.as_int().unwrap_or(0);
                let by = if *op == BinOp::Sub { by.checked_neg() } else { Some(by) };
                let by = by.ok_or_else(|| format!("a token offset out of range: {}", print_expr(e)))?;
                let base = Box::new(self.token_source(lhs)?);
                Ok(TokenSource::Offset { base, by })
            }
            other => Err(format!("a token computed as `{}`", print_expr(other))),
        }
    }

    /// Records that `data` is allocated here, inside the loops of the current path.
    fn allocate(&mut self, data: VarId) {
        let loops = self.path.iter().filter_map(|s| if let Step::Loop(l) = s { Some(*l) } else { None }).collect();
        self.model.allocated.insert(data, loops);
    }

    fn queue(&mut self, value: &Expr) -> Option<QueueId> {
        let q = value.as_int();
        if q.is_none() {
            self.unsupported(format!("a queue id that is not a constant: {}", print_expr(value)));
        }
        q.map(QueueId)
    }

    fn block(&mut self, block: &tirproof_ir::Block) {
        for alloc in &block.alloc_buffers {
            self.allocate(storage(&alloc.buffer));
        }
        let mut subst = Substitution::new();
        for iv in &block.iter_vars {
            subst = subst.var(&iv.var, iv.binding.clone());
        }
        let body = subst.stmt(&block.body);
        if block.init.is_some() {
            self.unsupported("a block with T.init()");
        }
        let predicate = block.predicate.as_ref().map(|p| subst.expr(p));
        if let Some(p) = &predicate {
            self.push_guard(p.clone());
        }
        // Block annotations with async keys are one chain around the body.
        match decode_annotations(&block.annotations) {
            Ok(Some(ops)) => {
                let ops = AsyncOps {
                    wait: ops.wait.map(|w| w.map_exprs(|e| subst.expr(e))),
                    asynchronous: ops.asynchronous,
                    commit: ops.commit.map(|q| subst.expr(&q)),
                };
                // The async operations are located where their dictionary is written.
                let block_span = self.span;
                if block.annotations.span.is_known() {
                    self.span = block.annotations.span;
                }
                self.child(0, |b| b.async_ops(&ops, &body));
                self.span = block_span;
            }
            Ok(None) => self.child(0, |b| b.stmt(&body)),
            Err(why) => {
                self.model.unencoded.push((self.span, why.to_string()));
                self.child(0, |b| b.stmt(&body));
            }
        }
        if predicate.is_some() {
            self.pop_guard();
        }
    }

    /// Loads inside expressions are uses too (they happen before the statement's store),
    /// each under the conditions of the `T.if_then_else` arms around it.
    fn accesses_in_exprs<'e>(&mut self, exprs: impl Iterator<Item = &'e Expr>) {
        let mut loads = Loads { found: Vec::new(), arms: Vec::new() };
        for e in exprs {
            loads.visit_expr(e);
        }
        self.child(0, |b| {
            for (buffer, indices, arms) in loads.found {
                let text =
                    format!("{}[{}]", buffer.name(), indices.iter().map(print_expr).collect::<Vec<_>>().join(", "));
                let depth = b.guards.len();
                for arm in arms {
                    b.push_guard(arm);
                }
                b.push_event(EventKind::Use { access: Access { buffer, indices }, write: false }, text);
                b.guards.truncate(depth);
                b.guard_depths.truncate(depth);
            }
        });
    }
}

/// Whether a `let` of `value` binds a token: a token-making call, or an `int64` load (a token
/// kept in memory, or any other `int64`, which stays data all the same), or one of them plus a
/// constant.
fn names_token(value: &Expr) -> bool {
    match value {
        Expr::Call(call) => decode_token_op(call).is_some(),
        Expr::Load(load) => load.dtype() == tirproof_ir::DataType::INT64,
        Expr::Binary { op: BinOp::Add | BinOp::Sub, lhs, rhs } => rhs.as_int().is_some() && names_token(lhs),
        _ => false,
    }
}

/// The most iterations loop `l` can run while an access directly in its body (under no inner
/// loop, and under no condition or one that holds at least every m-th iteration) stays in
/// bounds.
///
/// Why this holds: for an index dimension `c * v + rest` (c a nonzero constant, `rest` the
/// same in every iteration: no load) of extent `N`, two's-complement arithmetic computes the
/// exact progression modulo `2^w`; stepping by `|c| <= 2^(w-1) - N` it cannot leave `[0, N)`
/// and come back without landing outside it in between, which faults. So the iterations that
/// run the access number at most `(N - 1) / |c| + 1`, and an instance of any event of the
/// body is at most one iteration past them (the access may come after it in the body). Under
/// a condition that holds at least every m-th iteration, the step is `m * |c|` and the
/// iterations `m` times as many, plus `m`.
///
/// An access under a range condition `i + a < X` (or `<=`, `>`, `>=`) gives a bound on the
/// iterations where the condition held (the second part; the query counts them).
pub fn iteration_bound(model: &Model, l: LoopId) -> (Option<i64>, Vec<(i64, RangeGuard)>) {
    let info = model.loop_info(l);
    if info.per_thread {
        return (None, Vec::new());
    }
    let mut best: Option<i64> = None;
    let mut guarded: Vec<(i64, RangeGuard)> = Vec::new();
    for event in &model.events {
        let (EventKind::Use { access, .. } | EventKind::AsyncStore { access, .. }) = &event.kind else { continue };
        let Some(at) = event.path.iter().position(|s| *s == Step::Loop(l)) else { continue };
        // Directly in the body, or in the then-branch of one condition that skips at most one
        // iteration in a row (`i != c`) or runs every m-th (`i % m == r`). An inner serial
        // loop of constant bounds and at least one iteration runs its body in every iteration
        // too: its first iteration's access is the one counted (the index's other variables
        // are fixed there, so its `rest` is the same in every iteration of `l`).
        let always_runs = |inner: LoopId| {
            let inner = model.loop_info(inner);
            !inner.per_thread && inner.min.as_int().is_some() && inner.extent.as_int().is_some_and(|n| n >= 1)
        };
        let direct = event.path[at + 1..].iter().all(|s| match s {
            Step::Child(_) | Step::Branch(0) => true,
            Step::Loop(inner) => always_runs(*inner),
            Step::Branch(_) => false,
        });
        let inner_vars: Vec<VarId> = event.path[at + 1..]
            .iter()
            .filter_map(|s| if let Step::Loop(inner) = s { Some(model.loop_info(*inner).var.id()) } else { None })
            .collect();
        let (period, condition) = match &event.guards[info.guards.len().min(event.guards.len())..] {
            [] => (Some(1), None),
            // A condition on an inner loop's variable may fail in the inner loop's first
            // iteration, the one counted; the encoding of a range condition has no value for
            // that variable either.
            [only] if vars_of(only).iter().any(|v| inner_vars.contains(v)) => (None, None),
            [only] => match skipping_period(model, only, &info.var) {
                Some(period) => (Some(period), None),
                None => match range_guard(model, only, &info.var) {
                    Some(guard) => (Some(1), Some(guard)),
                    None => (None, None),
                },
            },
            _ => (None, None),
        };
        let node = access.buffer.node();
        let Some(period) = period else { continue };
        if !direct || !node.strides.is_empty() || node.elem_offset.as_int() != Some(0) {
            continue;
        }
        for (index, extent) in access.indices.iter().zip(&node.shape) {
            // A ramp's lanes all stay in bounds: its base within the extent less its spread.
            let (index, spread) = match index {
                Expr::Ramp { base, stride, lanes } => match stride.as_int() {
                    Some(s) => (&**base, s.unsigned_abs().saturating_mul(u64::from(*lanes).saturating_sub(1))),
                    None => continue,
                },
                other => (other, 0),
            };
            let extent = extent.as_int().and_then(|n| n.checked_sub(i64::try_from(spread).ok()?));
            // `rest` must be the same in every iteration: no value read from memory.
            let c = (!model.reads_data(index)).then(|| coefficient(index, &info.var, &HashMap::new())).flatten();
            let (Some(n), Some(c)) = (extent, c) else { continue };
            // Between two runs of the access the index moves by at most `period * |c|`.
            let width = index.dtype().bits.clamp(1, 64);
            let limit = (1i128 << (width - 1)) - i128::from(n);
            let step = i128::from(c.unsigned_abs()) * i128::from(period);
            if n <= 0 || c == 0 || step > limit {
                continue;
            }
            let runs = (n - 1) / c.abs() + 1;
            let Some(bound) = runs.checked_mul(period).and_then(|b| b.checked_add(period)) else { continue };
            match &condition {
                None => best = Some(best.map_or(bound, |b| b.min(bound))),
                Some(guard) => guarded.push((bound, guard.clone())),
            }
        }
    }
    // A conditional bound no smaller than the unconditional one adds nothing.
    guarded.retain(|(bound, _)| best.is_none_or(|b| *bound < b));
    (best, guarded)
}

/// `cond` as `var + offset op X` with `op` an ordering and `X` free of `var` and of memory,
/// flipping `X op var + offset`; `None` for other conditions.
fn range_guard(model: &Model, cond: &Expr, var: &Var) -> Option<RangeGuard> {
    use tirproof_ir::CmpOp;
    let Expr::Cmp { op, lhs, rhs } = cond else { return None };
    // `var`, `var + c`, `c + var` or `var - c`: the offset.
    let shifted = |e: &Expr| -> Option<i64> {
        let is_var = |e: &Expr| matches!(e, Expr::Var(v) if v == var);
        match e {
            _ if is_var(e) => Some(0),
            Expr::Binary { op: BinOp::Add, lhs, rhs } if is_var(lhs) => rhs.as_int(),
            Expr::Binary { op: BinOp::Add, lhs, rhs } if is_var(rhs) => lhs.as_int(),
            Expr::Binary { op: BinOp::Sub, lhs, rhs } if is_var(lhs) => rhs.as_int()?.checked_neg(),
            _ => None,
        }
    };
    let free = |e: &Expr| !vars_of(e).contains(&var.id()) && !model.reads_data(e);
    let flipped = match op {
        CmpOp::Lt => CmpOp::Gt,
        CmpOp::Le => CmpOp::Ge,
        CmpOp::Gt => CmpOp::Lt,
        CmpOp::Ge => CmpOp::Le,
        CmpOp::Eq | CmpOp::Ne => return None,
    };
    let (op, offset, shifted_side, bound) = match (shifted(lhs), shifted(rhs)) {
        (Some(offset), _) if free(rhs) => (*op, offset, lhs, rhs),
        (_, Some(offset)) if free(lhs) => (flipped, offset, rhs, lhs),
        _ => return None,
    };
    Some(RangeGuard { op, offset, dtype: shifted_side.dtype(), bound: (**bound).clone() })
}

/// How many iterations in a row a condition on `var` can span between two where it holds, at
/// most, or `None` when it may never hold again:
/// - `e != c` with `e` affine in `var`: 2. Its value moves by the coefficient modulo `2^w`
///   every iteration, which is not 0 (checked at the type's width: `(i * 65536) * 65536` is
///   constant in int32), so it equals `c` at most once in a row.
/// - `var % m != r` (`m >= 2`): 2, consecutive values have different residues. With an affine
///   `e` in place of `var` whose coefficient is prime to `m` and at most `2^(w-2)`, 3: the
///   residues still differ but where `e` wraps, which happens at most every other iteration.
/// - `var % m == r` (`0 <= r < m`): `m`. With `e = var + b` (or `b - var`) in place of `var`: `2m`, since `e`
///   wraps at most once in a loop (its values span fewer than `2^w` integers) and the wrap
///   shifts the residues once.
fn skipping_period(model: &Model, cond: &Expr, var: &Var) -> Option<i64> {
    use tirproof_ir::CmpOp;
    let Expr::Cmp { op, lhs, rhs } = cond else { return None };
    let is_var = |e: &Expr| matches!(e, Expr::Var(v) if v == var);
    let step = |e: &Expr| wrapped_coefficient(model, e, var).filter(|c| *c != 0);
    match (op, &**lhs, rhs.as_int()) {
        (CmpOp::Ne, Expr::Binary { op: BinOp::FloorMod | BinOp::TruncMod, lhs: x, rhs: m }, Some(_)) => {
            let m = m.as_int().filter(|m| *m >= 2)?;
            if is_var(x) {
                return Some(2);
            }
            let c = step(x)?;
            let quarter = 1i64 << (x.dtype().bits.clamp(2, 64) - 2).min(62);
            (gcd(c.unsigned_abs(), m.unsigned_abs()) == 1 && c.abs() <= quarter).then_some(3)
        }
        (CmpOp::Eq, Expr::Binary { op: BinOp::FloorMod, lhs: x, rhs: m }, Some(r)) => {
            // A residue out of `[0, m)` is never equal.
            let m = m.as_int().filter(|m| (1..=1 << 16).contains(m) && (0..*m).contains(&r))?;
            if is_var(x) {
                return Some(m);
            }
            (step(x)?.abs() == 1).then_some(2 * m)
        }
        (CmpOp::Ne, e, Some(_)) => step(e).map(|_| 2),
        _ => None,
    }
}

/// The coefficient of `var` in the integer expression `e` as the machine computes it: reduced
/// to the signed range of `e`'s type (so a multiple of `2^w` is 0); `None` when `e` is not
/// affine in `var` or reads memory.
fn wrapped_coefficient(model: &Model, e: &Expr, var: &Var) -> Option<i64> {
    if !e.dtype().is_integer() || model.reads_data(e) {
        return None;
    }
    let c = i128::from(coefficient(e, var, &HashMap::new())?);
    let width = u32::from(e.dtype().bits.clamp(1, 64));
    let modulus = 1i128 << width;
    let reduced = c.rem_euclid(modulus);
    let signed = if reduced >= modulus / 2 { reduced - modulus } else { reduced };
    i64::try_from(signed).ok()
}

/// What a loop's variable stands for.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Binding {
    Serial,
    Thread,
    Block,
}

impl Binding {
    fn of_tag(tag: &str) -> Self {
        if ThreadTag::parse(tag).is_some_and(ThreadTag::is_block) {
            Binding::Block
        } else {
            Binding::Thread
        }
    }
}

/// The loads of expressions, with the conditions of the lazy arms they are in.
struct Loads {
    found: Vec<(Buffer, Vec<Expr>, Vec<Expr>)>,
    /// The conditions of the `T.if_then_else` arms being visited.
    arms: Vec<Expr>,
}

impl Visitor for Loads {
    fn visit_expr(&mut self, e: &Expr) {
        match e {
            Expr::Load(l) => self.found.push((l.buffer.clone(), l.indices.clone(), self.arms.clone())),
            // Only the taken arm is evaluated (`T.Select` evaluates both: walked below).
            Expr::IfThenElse { cond, on_true, on_false } => {
                self.visit_expr(cond);
                self.arms.push((**cond).clone());
                self.visit_expr(on_true);
                self.arms.pop();
                self.arms.push(Expr::logical_not((**cond).clone()));
                self.visit_expr(on_false);
                self.arms.pop();
                return;
            }
            _ => {}
        }
        walk_expr(self, e);
    }
}

/// The storage `func` may write (see [`Model::written`]).
fn written_storage(func: &PrimFunc) -> Option<HashSet<VarId>> {
    struct Writes {
        written: HashSet<VarId>,
        anything: bool,
    }
    impl Visitor for Writes {
        fn visit_stmt(&mut self, s: &Stmt) {
            if let StmtKind::Store(store) = &s.kind {
                self.written.insert(store.buffer.data().id());
            }
            walk_stmt(self, s);
        }
        fn visit_expr(&mut self, e: &Expr) {
            match e {
                // A token-making call reads the thread's queues and writes nothing.
                Expr::Call(call) if decode_token_op(call).is_some() => {}
                Expr::Call(call) if call.effect >= CallEffect::UpdateState => self.anything = true,
                Expr::Var(v) if v.dtype().is_handle() => {
                    self.written.insert(v.id());
                }
                _ => {}
            }
            walk_expr(self, e);
        }
    }
    let mut writes = Writes { written: HashSet::new(), anything: false };
    walk_func(&mut writes, func);
    (!writes.anything).then_some(writes.written)
}

/// The storage whose handle `func` uses as a value.
fn handles_used(func: &PrimFunc) -> HashSet<VarId> {
    struct Handles(HashSet<VarId>);
    impl Visitor for Handles {
        fn visit_expr(&mut self, e: &Expr) {
            if let Expr::Var(v) = e {
                if v.dtype().is_handle() {
                    self.0.insert(v.id());
                }
            }
            walk_expr(self, e);
        }
    }
    let mut handles = Handles(HashSet::new());
    walk_func(&mut handles, func);
    handles.0
}

/// How many token-making calls the function's text holds.
fn token_calls(func: &PrimFunc) -> usize {
    struct Calls(usize);
    impl Visitor for Calls {
        fn visit_expr(&mut self, e: &Expr) {
            if let Expr::Call(call) = e {
                self.0 += usize::from(decode_token_op(call).is_some());
            }
            walk_expr(self, e);
        }
    }
    let mut calls = Calls(0);
    walk_func(&mut calls, func);
    calls.0
}

/// Whether any of `exprs` reads memory.
fn has_loads<'e>(exprs: impl IntoIterator<Item = &'e Expr>) -> bool {
    let mut loads = Loads { found: Vec::new(), arms: Vec::new() };
    for e in exprs {
        loads.visit_expr(e);
    }
    !loads.found.is_empty()
}

/// Variables an expression mentions.
pub fn vars_of(e: &Expr) -> Vec<VarId> {
    struct Vars(Vec<VarId>);
    impl Visitor for Vars {
        fn visit_expr(&mut self, e: &Expr) {
            if let Expr::Var(v) = e {
                self.0.push(v.id());
            }
            walk_expr(self, e);
        }
    }
    let mut v = Vars(Vec::new());
    v.visit_expr(e);
    v.0
}

/// Storage identity of a buffer: its data variable.
pub fn storage(buffer: &Buffer) -> VarId {
    buffer.data().id()
}
