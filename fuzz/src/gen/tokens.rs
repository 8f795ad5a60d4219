//! Token programs: asynchronous copies into shared memory whose waits name the groups they
//! are for (`async_wait_tokens`, docs/async-semantics.md "Tokens"), for holding the
//! interpreter's schedules, the wait verifier and a lowering of tokens to counts to each other.
//!
//! A program is a sequence of **units** under random control (loops of constant trip count,
//! of the parameter `n` and of a count read from `K`; `if`s on the parameter `p` and on loop
//! variables), optionally in every thread of a `threadIdx.x` binding of 2 to 4. A unit copies
//! into slots of two elements of the staging `S` that it alone uses, commits the copies to
//! queues 0, 1 or 2, keeps the tokens of their groups (made by `async_group_token` after the
//! commit or `async_copy_token` before the copy) in lets, in constant slots of the local
//! `int64` buffer `toks`, in a ring `toks[(i + a) % N]` across iterations or stored in both
//! arms of an `if`, waits on one or several of them (alone, or with a claimed in-flight count
//! that is exact or smaller than the tokens need), and reads the slots into `Out`:
//! - `Straight`: one to three copies, each maybe followed by filler groups on its queue, one
//!   nested wait per queue, the reads, then a wait on the last group of each queue with fillers;
//! - `Branch`: both arms of an `if` copy into one slot and store its token; a wait after it;
//! - `Ring`: a prologue of `D` copies, then a loop that prefetches slot `(i + D) % N` and reads
//!   slot `i % N` after waiting on its token (the pipeline case), then a wait on the last group;
//! - `Nested`: a constant loop of copies whose tokens come out of the loop into one wait.
//!
//! Invariants: the checker accepts every program, and print and parse give it back. Every
//! unit is **closed**: when it ends, every group it committed has completed (its last wait
//! names the last group of each queue it committed to; empty groups committed after the last
//! unit may stay in flight, which is no fault), so any unit may run under any
//! control, any number of times, after any other, and an exact count depends only on the
//! unit's own commits between the named group and the wait (straight-line code). Each thread
//! touches only its own region of `S` and its own elements of `Out`, so threads need no
//! barriers. Indices are in bounds for every parameter value and every input (modulo the
//! buffer's length). Hence a program without a planted mistake runs clean under every
//! schedule with the same outputs; a program with one ([`PlantedMistake`], one in
//! [`TokenGenConfig::faulty_one_in`]) has it in a unit at the top level, which always runs,
//! and faults under the lazy schedule with the mistake's [`PlantedMistake::fault`].

use std::collections::BTreeSet;
use std::fmt;

use arbitrary::{Result, Unstructured};
use tirproof_interp::FaultKind;
use tirproof_ir::async_op::{asynchronous, commit, token_op, wait_until, TokenOp, WaitUntil};
use tirproof_ir::{build, Axis, Buffer, CmpOp, DataType, Expr, IRModule, Stmt, ThreadTag, Var};

use super::ir::{bound_loop, float_buffer, module, serial_loop, store};

/// Elements of one slot (what one copy fills).
const SLOT: i64 = 2;
/// Slots of one thread's region of `S`.
const SLOTS: i64 = 24;
/// Elements of one thread's region of `S`.
const REGION: i64 = SLOTS * SLOT;
/// Elements of the local token buffer `toks`.
const TOKENS: i64 = 16;
/// Elements of `Out` per thread: read sites beyond share elements (one thread writes them
/// in program order).
const SITES: i64 = 16;
/// Elements of the float input `A`.
const INPUT_LEN: i64 = 64;
/// Elements of the int32 input `K`.
const DATA_LEN: i64 = 4;
/// Queues a program commits to.
const QUEUES: [i64; 3] = [0, 1, 2];

/// What a token program may contain.
#[derive(Clone, Debug)]
pub struct TokenGenConfig {
    /// A `threadIdx.x` binding of 2 to 4 threads, each with its own copies.
    pub threads: bool,
    /// Loops whose trip count is the parameter `n` (and `if`s on the parameter `p`).
    pub parameters: bool,
    /// Loops whose trip count is read from `K`.
    pub data_extents: bool,
    /// One program in this many has one planted mistake (0: none).
    pub faulty_one_in: u8,
}

impl Default for TokenGenConfig {
    fn default() -> Self {
        TokenGenConfig { threads: true, parameters: true, data_extents: true, faulty_one_in: 4 }
    }
}

/// The one mistake a faulty token program carries, and what it does under the lazy schedule.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum PlantedMistake {
    /// The wait names the token of an older group than the copy it is meant for.
    WrongToken,
    /// A count one larger than the named group allows, claimed to cover it.
    CountTooLarge,
    /// A wait on a copy's token before the commit that makes its group.
    NotYetCommitted,
    /// A read of the copy before the wait on its token.
    ReadWithoutWait,
}

impl PlantedMistake {
    pub const ALL: [PlantedMistake; 4] = [
        PlantedMistake::WrongToken,
        PlantedMistake::CountTooLarge,
        PlantedMistake::NotYetCommitted,
        PlantedMistake::ReadWithoutWait,
    ];

    /// The fault the lazy interpreter stops the program with.
    pub fn fault(self) -> FaultKind {
        match self {
            PlantedMistake::WrongToken | PlantedMistake::ReadWithoutWait => FaultKind::ReadPendingAsync,
            PlantedMistake::CountTooLarge | PlantedMistake::NotYetCommitted => FaultKind::TokenWait,
        }
    }
}

/// A situation a token program exercises.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum TokenPattern {
    /// A token of the last committed group (`async_group_token`).
    GroupToken,
    /// A token of the next commit's group (`async_copy_token`).
    CopyToken,
    /// A token kept in a let.
    TokenInLet,
    /// A token kept in a constant slot of the local `toks`.
    TokenInLocalSlot,
    /// Tokens kept in a ring `toks[(i + a) % N]` across iterations.
    TokenRing,
    /// A token stored in both arms of an `if`.
    TokenFromBranch,
    /// Tokens made in a loop, waited on after it.
    TokensOutOfLoop,
    /// A wait naming several tokens (`T.tvm_tuple`).
    SeveralTokens,
    /// Waits on tokens of different queues, nested.
    SeveralQueues,
    /// Groups committed after the named one (fillers), left in flight by an exact count.
    FillerGroups,
    /// A wait on tokens alone.
    TokensOnly,
    /// Tokens with the exact count they need.
    ExactCount,
    /// Tokens with a count smaller than they need (over-synchronized).
    SmallerCount,
    /// A loop of constant trip count.
    ConstantLoop,
    /// A loop whose trip count is the parameter `n`.
    SymbolicLoop,
    /// A loop whose trip count is read from memory.
    DataLoop,
    /// Loops nested around a unit.
    NestedLoops,
    /// An `if` on the parameter `p`.
    IfOnParameter,
    /// An `if` on a loop variable.
    IfOnLoopVariable,
    /// Threads of a `threadIdx.x` binding.
    Threads,
    /// Empty groups committed after the last unit and never waited for (no fault).
    EmptyGroupsAtEnd,
}

impl TokenPattern {
    /// Every pattern, for the test that generation reaches each.
    pub const ALL: [TokenPattern; 21] = [
        TokenPattern::GroupToken,
        TokenPattern::CopyToken,
        TokenPattern::TokenInLet,
        TokenPattern::TokenInLocalSlot,
        TokenPattern::TokenRing,
        TokenPattern::TokenFromBranch,
        TokenPattern::TokensOutOfLoop,
        TokenPattern::SeveralTokens,
        TokenPattern::SeveralQueues,
        TokenPattern::FillerGroups,
        TokenPattern::TokensOnly,
        TokenPattern::ExactCount,
        TokenPattern::SmallerCount,
        TokenPattern::ConstantLoop,
        TokenPattern::SymbolicLoop,
        TokenPattern::DataLoop,
        TokenPattern::NestedLoops,
        TokenPattern::IfOnParameter,
        TokenPattern::IfOnLoopVariable,
        TokenPattern::Threads,
        TokenPattern::EmptyGroupsAtEnd,
    ];
}

impl fmt::Display for TokenPattern {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(self, f)
    }
}

/// What a generated token program looks like.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct TokenShape {
    pub patterns: BTreeSet<TokenPattern>,
    /// The planted mistake, if any (`None`: the program is correct by construction).
    pub mistake: Option<PlantedMistake>,
    pub threads: i64,
    /// The queues committed to.
    pub queues: BTreeSet<i64>,
}

/// A random token program and its shape (see the module documentation).
pub fn token_program(u: &mut Unstructured<'_>, cfg: &TokenGenConfig) -> Result<(IRModule, TokenShape)> {
    let faulty = cfg.faulty_one_in > 0 && u.int_in_range(1..=cfg.faulty_one_in)? == 1;
    let mistake = if faulty { Some(*u.choose(&PlantedMistake::ALL)?) } else { None };
    let threads = if cfg.threads && u.ratio(1, 3)? { u.int_in_range(2..=4)? } else { 1 };
    let mut b = Builder::new(cfg, threads);
    // In one program in three every wait claims a count, which the verifier decides today.
    b.counted = u.ratio(1, 3)?;
    let stmts = b.top_level(u, mistake)?;
    let module = b.module(stmts);
    let shape = TokenShape { patterns: b.patterns, mistake, threads, queues: b.queues };
    Ok((module, shape))
}

/// Where a token is kept once made.
enum Holder {
    Let(Var),
    /// An element of `toks`.
    Local(Expr),
}

/// A statement of a unit, or a let over the unit's statements after it.
enum Item {
    Stmt(Stmt),
    Let(Var, Expr),
}

/// The statements of `items` in order, each let over the rest.
fn close(items: Vec<Item>) -> Stmt {
    let mut rest: Vec<Stmt> = Vec::new();
    for item in items.into_iter().rev() {
        match item {
            Item::Stmt(s) => rest.insert(0, s),
            Item::Let(var, value) => {
                let body = if rest.is_empty() { build::evaluate(Expr::int(0)) } else { Stmt::seq(rest) };
                rest = vec![build::let_stmt(&var, value, body)];
            }
        }
    }
    if rest.is_empty() {
        return build::evaluate(Expr::int(0));
    }
    Stmt::seq(rest)
}

/// The units.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Unit {
    Straight,
    Branch,
    Ring,
    Nested,
}

/// The controls around a unit.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Control {
    ConstantLoop,
    SymbolicLoop,
    DataLoop,
    IfOnParameter,
    IfOnLoopVariable,
}

/// The resources a unit reserves: its slots of `S` and elements of `toks`.
#[derive(Clone, Copy)]
struct Reserved {
    slot: i64,
    token: i64,
}

struct Builder<'c> {
    cfg: &'c TokenGenConfig,
    threads: i64,
    tx: Var,
    n: Option<Var>,
    p: Option<Var>,
    input: Buffer,
    data: Buffer,
    out: Buffer,
    staging: Buffer,
    toks: Buffer,
    /// Next free slot and `toks` element.
    next: Reserved,
    /// The next read site.
    site: i64,
    /// Enclosing loop variables, outermost first, and whether one of them runs `n` times.
    loops: Vec<Var>,
    in_symbolic_loop: bool,
    patterns: BTreeSet<TokenPattern>,
    queues: BTreeSet<i64>,
    /// Fresh names for loop variables and lets.
    fresh: usize,
    /// Every wait claims a count (none waits on tokens alone).
    counted: bool,
}

impl<'c> Builder<'c> {
    fn new(cfg: &'c TokenGenConfig, threads: i64) -> Self {
        Builder {
            cfg,
            threads,
            tx: Var::new("tx", DataType::INT32),
            n: None,
            p: None,
            input: float_buffer("A", INPUT_LEN, "global"),
            data: build::buffer("K", DataType::INT32, &[DATA_LEN], "global"),
            out: float_buffer("Out", SITES * threads, "global"),
            staging: float_buffer("S", REGION * threads, "shared"),
            toks: build::buffer("toks", DataType::INT64, &[TOKENS], "local"),
            next: Reserved { slot: 0, token: 0 },
            site: 0,
            loops: Vec::new(),
            in_symbolic_loop: false,
            patterns: BTreeSet::new(),
            queues: BTreeSet::new(),
            fresh: 0,
            counted: false,
        }
    }

    /// The function around the top-level statements.
    fn module(&mut self, stmts: Vec<Stmt>) -> IRModule {
        let mut body = build::alloc_buffer(&self.staging, build::alloc_buffer(&self.toks, Stmt::seq(stmts)));
        if self.threads > 1 {
            self.patterns.insert(TokenPattern::Threads);
            body = bound_loop(&self.tx, self.threads, ThreadTag::Thread(Axis::X), body);
        }
        let scalars: Vec<Var> = self.n.iter().chain(self.p.iter()).cloned().collect();
        module(&[self.input.clone(), self.data.clone(), self.out.clone()], &scalars, body)
    }

    /// One to three top-level items, the planted mistake (if any) in a unit of its own.
    fn top_level(&mut self, u: &mut Unstructured<'_>, mistake: Option<PlantedMistake>) -> Result<Vec<Stmt>> {
        // The faulty unit first, so that it always has its slots.
        let faulty = match mistake {
            Some(mistake) => self.straight(u, Some(mistake))?,
            None => None,
        };
        let mut stmts = Vec::new();
        for _ in 0..u.int_in_range(1..=3)? {
            stmts.extend(self.item(u, 2)?);
        }
        if let Some(faulty) = faulty {
            let at = u.int_in_range(0..=stmts.len())?;
            stmts.insert(at, faulty);
        }
        if stmts.is_empty() {
            stmts.extend(self.straight(u, None)?);
        }
        // Sometimes `cuda_pipeline.h`'s ending: commits with nothing to commit and no wait
        // after them. Every unit is closed, so these groups are empty: no fault.
        if u.ratio(1, 4)? {
            self.patterns.insert(TokenPattern::EmptyGroupsAtEnd);
            for _ in 0..u.int_in_range(1..=2)? {
                let queue = *u.choose(&QUEUES)?;
                stmts.push(commit(Expr::int(queue), build::evaluate(Expr::int(0))));
            }
        }
        Ok(stmts)
    }

    /// A unit, maybe under a control (up to `depth` controls deep).
    fn item(&mut self, u: &mut Unstructured<'_>, depth: u32) -> Result<Option<Stmt>> {
        if depth == 0 || u.ratio(1, 2)? {
            return self.unit(u);
        }
        let mut controls = vec![Control::ConstantLoop, Control::IfOnParameter];
        if self.cfg.parameters && !self.in_symbolic_loop {
            controls.push(Control::SymbolicLoop);
        }
        if self.cfg.data_extents {
            controls.push(Control::DataLoop);
        }
        if !self.loops.is_empty() {
            controls.push(Control::IfOnLoopVariable);
        }
        let control = *u.choose(&controls)?;
        if !self.loops.is_empty()
            && matches!(control, Control::ConstantLoop | Control::SymbolicLoop | Control::DataLoop)
        {
            self.patterns.insert(TokenPattern::NestedLoops);
        }
        match control {
            Control::ConstantLoop | Control::SymbolicLoop | Control::DataLoop => {
                let extent = match control {
                    Control::ConstantLoop => {
                        self.patterns.insert(TokenPattern::ConstantLoop);
                        Expr::int(u.int_in_range(1..=3)?)
                    }
                    Control::SymbolicLoop => self.symbolic_extent(),
                    _ => self.data_extent(u)?,
                };
                let var = self.fresh_var("i", DataType::INT32);
                let saved = self.in_symbolic_loop;
                self.in_symbolic_loop |= control == Control::SymbolicLoop;
                self.loops.push(var.clone());
                let body = self.items(u, depth - 1);
                self.loops.pop();
                self.in_symbolic_loop = saved;
                Ok(body?.map(|body| serial_loop(&var, Expr::int(0), extent, Default::default(), body)))
            }
            Control::IfOnParameter | Control::IfOnLoopVariable => {
                let cond = self.condition(u, control)?;
                let then_case = self.items(u, depth - 1)?;
                let else_case = if u.arbitrary()? { self.items(u, depth - 1)? } else { None };
                Ok(then_case.map(|then_case| build::if_then(cond, then_case, else_case)))
            }
        }
    }

    /// One or two items in sequence.
    fn items(&mut self, u: &mut Unstructured<'_>, depth: u32) -> Result<Option<Stmt>> {
        let mut stmts = Vec::new();
        for _ in 0..u.int_in_range(1..=2)? {
            stmts.extend(self.item(u, depth)?);
        }
        Ok((!stmts.is_empty()).then(|| Stmt::seq(stmts)))
    }

    /// A random unit, or nothing when the slots or token elements are used up.
    fn unit(&mut self, u: &mut Unstructured<'_>) -> Result<Option<Stmt>> {
        let unit = *u.choose(&[Unit::Straight, Unit::Branch, Unit::Ring, Unit::Nested])?;
        match unit {
            Unit::Straight => self.straight(u, None),
            Unit::Branch => self.branch(u),
            Unit::Ring => self.ring(u),
            Unit::Nested => self.nested(u),
        }
    }

    fn fresh_var(&mut self, name: &str, dtype: DataType) -> Var {
        self.fresh += 1;
        Var::new(format!("{name}{}", self.fresh), dtype)
    }

    /// `n`, the trip count parameter.
    fn symbolic_extent(&mut self) -> Expr {
        self.patterns.insert(TokenPattern::SymbolicLoop);
        Expr::var(self.n.get_or_insert_with(|| Var::new("n", DataType::INT32)))
    }

    /// `K[c] % 4`: a trip count read from memory, 0 to 3.
    fn data_extent(&mut self, u: &mut Unstructured<'_>) -> Result<Expr> {
        self.patterns.insert(TokenPattern::DataLoop);
        let element = Expr::load(&self.data, vec![Expr::int(u.int_in_range(0..=DATA_LEN - 1)?)]);
        Ok(Expr::floormod(element, Expr::int(4)))
    }

    /// `p > c`, or `i % 2 == r` on an enclosing loop variable.
    fn condition(&mut self, u: &mut Unstructured<'_>, control: Control) -> Result<Expr> {
        if control == Control::IfOnLoopVariable {
            if let Some(var) = self.loops.last().cloned() {
                self.patterns.insert(TokenPattern::IfOnLoopVariable);
                let residue = Expr::int(u.int_in_range(0..=1)?);
                return Ok(Expr::cmp(CmpOp::Eq, Expr::floormod(Expr::var(&var), Expr::int(2)), residue));
            }
        }
        self.patterns.insert(TokenPattern::IfOnParameter);
        let p = self.p.get_or_insert_with(|| Var::new("p", DataType::INT32));
        Ok(Expr::cmp(CmpOp::Gt, Expr::var(p), Expr::int(u.int_in_range(0..=8)?)))
    }

    /// Reserves `slots` slots and `tokens` elements of `toks`; `None` when they are used up.
    fn reserve(&mut self, slots: i64, tokens: i64) -> Option<Reserved> {
        let at = self.next;
        if at.slot + slots > SLOTS || at.token + tokens > TOKENS - 1 {
            return None;
        }
        self.next = Reserved { slot: at.slot + slots, token: at.token + tokens };
        Some(at)
    }

    fn queue(&mut self, u: &mut Unstructured<'_>) -> Result<i64> {
        let q = *u.choose(&QUEUES)?;
        self.queues.insert(q);
        Ok(q)
    }

    /// The element `e` of slot `slot` of this thread's region.
    fn element(&self, slot: Expr, e: i64) -> Expr {
        let base = if self.threads > 1 { Expr::var(&self.tx) * Expr::int(REGION) } else { Expr::int(0) };
        base + slot * Expr::int(SLOT) + Expr::int(e)
    }

    /// A source index into `A`: a constant, or affine in an enclosing loop variable, modulo
    /// its length.
    fn source(&self, u: &mut Unstructured<'_>, offset: Expr) -> Result<Expr> {
        let c = Expr::int(u.int_in_range(0..=INPUT_LEN - 1)?);
        let index = match self.loops.last() {
            Some(var) if u.arbitrary()? => Expr::var(var) * Expr::int(u.int_in_range(1..=3)?) + c + offset,
            _ => c + offset,
        };
        Ok(index)
    }

    /// The asynchronous stores filling slot `slot` from `A` at `source` (not committed).
    fn stores(&self, slot: &Expr, source: &Expr) -> Stmt {
        let stores = (0..SLOT)
            .map(|e| {
                let from = Expr::floormod(source.clone() + Expr::int(e), Expr::int(INPUT_LEN));
                store(&self.staging, self.element(slot.clone(), e), Expr::load(&self.input, vec![from]))
            })
            .collect();
        asynchronous(Stmt::seq(stores))
    }

    /// A copy into `slot` committed to `q`, with its token made by `op` and kept by
    /// `holder`: the items in order.
    fn copy(
        &mut self,
        u: &mut Unstructured<'_>,
        q: i64,
        slot: Expr,
        op: TokenOp,
        holder: &Holder,
    ) -> Result<Vec<Item>> {
        let source = self.source(u, Expr::int(0))?;
        let copy = Item::Stmt(commit(Expr::int(q), self.stores(&slot, &source)));
        let token = self.keep(holder, op, q);
        Ok(match op {
            TokenOp::NextCommit => vec![token, copy],
            TokenOp::LastCommitted => vec![copy, token],
        })
    }

    /// The item keeping the token of `op` on `q` in `holder`.
    fn keep(&mut self, holder: &Holder, op: TokenOp, q: i64) -> Item {
        self.patterns.insert(match op {
            TokenOp::LastCommitted => TokenPattern::GroupToken,
            TokenOp::NextCommit => TokenPattern::CopyToken,
        });
        let value = token_op(op, Expr::int(q));
        match holder {
            Holder::Let(var) => Item::Let(var.clone(), value),
            Holder::Local(index) => Item::Stmt(store(&self.toks, index.clone(), value)),
        }
    }

    /// The token a holder keeps.
    fn held(&self, holder: &Holder) -> Expr {
        match holder {
            Holder::Let(var) => Expr::var(var),
            Holder::Local(index) => Expr::load(&self.toks, vec![index.clone()]),
        }
    }

    /// A let or a constant element of `toks` (`index`).
    fn holder(&mut self, u: &mut Unstructured<'_>, index: i64) -> Result<Holder> {
        Ok(if u.arbitrary()? {
            self.patterns.insert(TokenPattern::TokenInLet);
            Holder::Let(self.fresh_var("tok", DataType::INT64))
        } else {
            self.patterns.insert(TokenPattern::TokenInLocalSlot);
            Holder::Local(Expr::int(index))
        })
    }

    /// `Out[site] = S[slot, e] + 1` for this thread's next site.
    fn read(&mut self, u: &mut Unstructured<'_>, slot: Expr) -> Result<Stmt> {
        let e = u.int_in_range(0..=SLOT - 1)?;
        let site = self.site % SITES;
        self.site += 1;
        let thread = if self.threads > 1 { Expr::var(&self.tx) } else { Expr::int(0) };
        let index = Expr::int(site * self.threads) + thread;
        let value = Expr::load(&self.staging, vec![self.element(slot, e)]) + Expr::float(1.0, DataType::FLOAT32);
        Ok(store(&self.out, index, value))
    }

    /// The wait on `q` until the groups `tokens` name complete, maybe with a claimed count:
    /// the `exact` one the tokens need (groups committed to `q` after the last named one)
    /// or a smaller one.
    fn wait(&mut self, u: &mut Unstructured<'_>, q: i64, tokens: Vec<Expr>, exact: i64, body: Stmt) -> Result<Stmt> {
        if tokens.len() > 1 {
            self.patterns.insert(TokenPattern::SeveralTokens);
        }
        let least = if self.counted { 2 } else { 0 };
        let until = match u.int_in_range(least..=3)? {
            0 | 1 => {
                self.patterns.insert(TokenPattern::TokensOnly);
                WaitUntil::Tokens(tokens)
            }
            2 => {
                self.patterns.insert(TokenPattern::ExactCount);
                WaitUntil::InFlightClaiming { count: Expr::int(exact), tokens }
            }
            _ => {
                self.patterns.insert(if exact > 0 { TokenPattern::SmallerCount } else { TokenPattern::ExactCount });
                let count = u.int_in_range(0..=(exact - 1).max(0))?;
                WaitUntil::InFlightClaiming { count: Expr::int(count), tokens }
            }
        };
        Ok(wait_until(Expr::int(q), until, body))
    }

    /// The wait on the last group committed to `q` (a token made just before it), closing a
    /// unit: after it every group of `q` has completed.
    fn close_queue(&mut self, u: &mut Unstructured<'_>, q: i64, body: Stmt) -> Result<Vec<Item>> {
        // The last element of `toks` is no unit's: it holds a token only from here to the wait.
        let holder = self.holder(u, TOKENS - 1)?;
        let last = self.keep(&holder, TokenOp::LastCommitted, q);
        let tokens = vec![self.held(&holder)];
        Ok(vec![last, Item::Stmt(self.wait(u, q, tokens, 0, body)?)])
    }

    /// A `Straight` unit (see the module documentation), with `mistake` planted in it.
    fn straight(&mut self, u: &mut Unstructured<'_>, mistake: Option<PlantedMistake>) -> Result<Option<Stmt>> {
        let copies = if mistake.is_some() { 1 } else { u.int_in_range(1..=3)? };
        let fillers_of: Vec<i64> = (0..copies).map(|_| u.int_in_range(0..=2)).collect::<Result<_>>()?;
        let slots = copies + fillers_of.iter().sum::<i64>() + 1;
        let Some(at) = self.reserve(slots, copies + 1) else { return Ok(None) };
        let mut next_slot = at.slot;
        let mut take_slot = || {
            next_slot += 1;
            next_slot - 1
        };
        let mut items = Vec::new();
        // Per copy: its queue, slot and token; per queue, commits in order (`true`: a copy).
        let mut copies_made: Vec<(i64, i64, Expr)> = Vec::new();
        let mut commits: Vec<(i64, Option<usize>)> = Vec::new();
        let mut older_token = None;
        let first_queue = self.queue(u)?;
        if mistake == Some(PlantedMistake::WrongToken) {
            // An older group on the copy's queue, whose token the wait names instead.
            let slot = take_slot();
            let holder = Holder::Let(self.fresh_var("older", DataType::INT64));
            items.extend(self.copy(u, first_queue, Expr::int(slot), TokenOp::LastCommitted, &holder)?);
            older_token = Some(self.held(&holder));
            commits.push((first_queue, None));
        }
        for (c, &fillers) in fillers_of.iter().enumerate() {
            let q = if c == 0 { first_queue } else { self.queue(u)? };
            let slot = take_slot();
            let op = if mistake == Some(PlantedMistake::NotYetCommitted) {
                TokenOp::NextCommit
            } else {
                *u.choose(&TokenOp::ALL)?
            };
            let holder = self.holder(u, at.token + c as i64)?;
            if mistake == Some(PlantedMistake::NotYetCommitted) {
                // The token, the stores, a wait on it, and only then the commit.
                let token = self.keep(&holder, op, q);
                let source = self.source(u, Expr::int(0))?;
                let read = self.read(u, Expr::int(slot))?;
                let wait = wait_until(Expr::int(q), WaitUntil::Tokens(vec![self.held(&holder)]), read);
                let stores = self.stores(&Expr::int(slot), &source);
                let commit_now = commit(Expr::int(q), build::evaluate(Expr::int(0)));
                items.extend([token, Item::Stmt(stores), Item::Stmt(wait), Item::Stmt(commit_now)]);
                return Ok(Some(close(items)));
            }
            items.extend(self.copy(u, q, Expr::int(slot), op, &holder)?);
            copies_made.push((q, slot, self.held(&holder)));
            commits.push((q, Some(c)));
            for _ in 0..fillers {
                self.patterns.insert(TokenPattern::FillerGroups);
                let filler = take_slot();
                let source = self.source(u, Expr::int(0))?;
                items.push(Item::Stmt(commit(Expr::int(q), self.stores(&Expr::int(filler), &source))));
                commits.push((q, None));
            }
        }
        if mistake == Some(PlantedMistake::ReadWithoutWait) {
            let (_, slot, _) = copies_made[0];
            items.push(Item::Stmt(self.read(u, Expr::int(slot))?));
        }
        // The reads, inside one wait per queue (nested, first queue outermost).
        let mut reads = Vec::new();
        for &(_, slot, _) in &copies_made {
            reads.push(self.read(u, Expr::int(slot))?);
        }
        let mut body = Stmt::seq(reads);
        let queues: Vec<i64> = {
            let mut seen = Vec::new();
            for &(q, _, _) in &copies_made {
                if !seen.contains(&q) {
                    seen.push(q);
                }
            }
            seen
        };
        if queues.len() > 1 {
            self.patterns.insert(TokenPattern::SeveralQueues);
        }
        for &q in queues.iter().rev() {
            let named: Vec<usize> = (0..copies_made.len()).filter(|&c| copies_made[c].0 == q).collect();
            let last = *named.last().unwrap_or(&0);
            // All of the queue's tokens, or only the last one (its group is the newest).
            let mut tokens: Vec<Expr> = if u.arbitrary()? {
                named.iter().map(|&c| copies_made[c].2.clone()).collect()
            } else {
                vec![copies_made[last].2.clone()]
            };
            let position = commits.iter().position(|&(cq, copy)| cq == q && copy == Some(last)).unwrap_or(0);
            let exact = commits[position + 1..].iter().filter(|&&(cq, _)| cq == q).count() as i64;
            body = match mistake {
                Some(PlantedMistake::WrongToken) => {
                    tokens = older_token.iter().cloned().collect();
                    wait_until(Expr::int(q), WaitUntil::Tokens(tokens), body)
                }
                Some(PlantedMistake::CountTooLarge) => {
                    let until = WaitUntil::InFlightClaiming { count: Expr::int(exact + 1), tokens };
                    wait_until(Expr::int(q), until, body)
                }
                _ => self.wait(u, q, tokens, exact, body)?,
            };
        }
        items.push(Item::Stmt(body));
        // Close every queue with groups maybe still in flight.
        for &q in &queues {
            if mistake.is_some() || commits.iter().any(|&(cq, copy)| cq == q && copy.is_none()) {
                let nothing = build::evaluate(Expr::int(0));
                items.extend(self.close_queue(u, q, nothing)?);
            }
        }
        Ok(Some(close(items)))
    }

    /// A `Branch` unit: both arms of an `if` copy into one slot and store its token.
    fn branch(&mut self, u: &mut Unstructured<'_>) -> Result<Option<Stmt>> {
        let Some(at) = self.reserve(1, 1) else { return Ok(None) };
        self.patterns.insert(TokenPattern::TokenFromBranch);
        let q = self.queue(u)?;
        let control = if self.loops.is_empty() { Control::IfOnParameter } else { Control::IfOnLoopVariable };
        let cond = self.condition(u, control)?;
        let holder = Holder::Local(Expr::int(at.token));
        let slot = Expr::int(at.slot);
        let mut arm = |b: &mut Self| -> Result<Stmt> {
            let op = *u.choose(&TokenOp::ALL)?;
            Ok(close(b.copy(u, q, slot.clone(), op, &holder)?))
        };
        let then_case = arm(self)?;
        let else_case = arm(self)?;
        let read = self.read(u, slot.clone())?;
        let token = self.held(&holder);
        let wait = self.wait(u, q, vec![token], 0, read)?;
        Ok(Some(Stmt::seq(vec![build::if_then(cond, then_case, Some(else_case)), wait])))
    }

    /// A `Ring` unit: the pipeline case, tokens in `toks[(i + a) % N]`.
    fn ring(&mut self, u: &mut Unstructured<'_>) -> Result<Option<Stmt>> {
        let ring = u.int_in_range(2..=4)?;
        let ahead = u.int_in_range(1..=ring - 1)?;
        let Some(at) = self.reserve(ring, ring) else { return Ok(None) };
        self.patterns.insert(TokenPattern::TokenRing);
        let q = self.queue(u)?;
        let extent = match u.int_in_range(0u8..=2)? {
            1 if self.cfg.parameters && !self.in_symbolic_loop => self.symbolic_extent(),
            2 if self.cfg.data_extents => self.data_extent(u)?,
            _ => {
                self.patterns.insert(TokenPattern::ConstantLoop);
                Expr::int(u.int_in_range(1..=6)?)
            }
        };
        let slot_of = |k: Expr| Expr::int(at.slot) + Expr::floormod(k, Expr::int(ring));
        let token_of = |k: Expr| Holder::Local(Expr::int(at.token) + Expr::floormod(k, Expr::int(ring)));
        let mut items = Vec::new();
        for k in 0..ahead {
            let op = *u.choose(&TokenOp::ALL)?;
            items.extend(self.copy(u, q, slot_of(Expr::int(k)), op, &token_of(Expr::int(k)))?);
        }
        let i = self.fresh_var("i", DataType::INT32);
        self.loops.push(i.clone());
        let next = Expr::var(&i) + Expr::int(ahead);
        let op = *u.choose(&TokenOp::ALL)?;
        let mut body = self.copy(u, q, slot_of(next.clone()), op, &token_of(next))?;
        let read = self.read(u, slot_of(Expr::var(&i)))?;
        let token = self.held(&token_of(Expr::var(&i)));
        body.push(Item::Stmt(self.wait(u, q, vec![token], ahead, read)?));
        self.loops.pop();
        items.push(Item::Stmt(serial_loop(&i, Expr::int(0), extent, Default::default(), close(body))));
        // The prefetched groups the loop left in flight.
        let last = self.read(u, slot_of(Expr::int(0)))?;
        items.extend(self.close_queue(u, q, last)?);
        Ok(Some(close(items)))
    }

    /// A `Nested` unit: tokens made in a constant loop, waited on after it.
    fn nested(&mut self, u: &mut Unstructured<'_>) -> Result<Option<Stmt>> {
        let count = u.int_in_range(1..=3)?;
        let Some(at) = self.reserve(count, count) else { return Ok(None) };
        self.patterns.insert(TokenPattern::TokensOutOfLoop);
        let q = self.queue(u)?;
        let j = self.fresh_var("j", DataType::INT32);
        self.loops.push(j.clone());
        let op = *u.choose(&TokenOp::ALL)?;
        let holder = Holder::Local(Expr::int(at.token) + Expr::var(&j));
        let body = close(self.copy(u, q, Expr::int(at.slot) + Expr::var(&j), op, &holder)?);
        self.loops.pop();
        let inner = serial_loop(&j, Expr::int(0), Expr::int(count), Default::default(), body);
        let tokens: Vec<Expr> = if u.arbitrary()? {
            (0..count).map(|k| Expr::load(&self.toks, vec![Expr::int(at.token + k)])).collect()
        } else {
            vec![Expr::load(&self.toks, vec![Expr::int(at.token + count - 1)])]
        };
        let reads = vec![self.read(u, Expr::int(at.slot))?, self.read(u, Expr::int(at.slot + count - 1))?];
        let wait = self.wait(u, q, tokens, 0, Stmt::seq(reads))?;
        Ok(Some(Stmt::seq(vec![inner, wait])))
    }
}
