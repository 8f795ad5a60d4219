//! The dialect-independent half of importing: values, `arith` on scalars, `scf` control flow
//! and the function shell, shared by the Triton and the nvgpu readers.
//!
//! Every SSA value becomes a [`Val`]: an integer or boolean expression (a TIR `let`), an async
//! token (an `int64` let made by `async_copy_token`/`async_group_token`), a view of shared
//! memory, or an opaque value (tensors, pointers, floats), which is parsed and located but not
//! interpreted. Loop-carried values are recognized where they have a closed form in the
//! iteration number (a sum, a ring counter `select(x + 1 >= N, 0, x + 1)`, a value the body
//! computes afresh); tokens and other values go through local buffers of one element, the
//! form the verifier follows tokens through.
//! Invariant (the soundness of the audit): an integer whose value the reader cannot follow is
//! read from the `data` parameter, so it may be anything; an op that touches shared memory or
//! the async machinery in a way not modelled is an error, never skipped.

use std::collections::{HashMap, HashSet};

use tirproof_ir::{Diagnostic, Span};

use crate::emit::Emitter;
use crate::mlir::query::scalar_type;
use crate::mlir::{Block, Op, Tok, TokKind};
use crate::sym::{Bin, Cmp, IntTy, Sym};

/// A view of shared memory: `cells` cells from `base` of buffer `buffer`.
#[derive(Clone, Debug)]
pub struct Mem {
    pub buffer: String,
    pub base: Sym,
    pub cells: i64,
}

/// A view of a multi-dimensional buffer (an MLIR memref and its subviews): index `i` of the
/// view is index `dims[i]` of `buffer`, and `offsets[d]` is added to the buffer's index `d`.
#[derive(Clone, Debug)]
pub struct View {
    pub buffer: String,
    /// Whether the buffer is shared (workgroup) memory, whose accesses the audit follows.
    pub shared: bool,
    pub dtype: String,
    pub offsets: Vec<Sym>,
    pub dims: Vec<usize>,
}

#[derive(Clone, Debug)]
pub enum Val {
    Int(Sym),
    Bool(Sym),
    Token(Sym),
    /// The result of a wait: what a read names to say which wait it relies on.
    WaitToken,
    Mem(Mem),
    View(View),
    /// The result of an asynchronous dot, written into cell `.0` of the accumulators' shadow
    /// until the dot's group retires (an integer to the loop analysis, so that it is carried).
    Acc(Sym),
    Opaque,
}

pub type Result<T> = std::result::Result<T, Diagnostic>;

/// What a dialect adds to the common ops.
pub trait DialectOps {
    /// Called before every op, the common ones included.
    fn before(&mut self, _l: &mut Lower, _op: &Op) -> Result<()> {
        Ok(())
    }

    /// The value a loop's carried value `index` starts with, given its initial value (a
    /// dialect may know more, from an earlier reading of the loop's yield).
    fn carried_init(&mut self, _loop_at: Span, _index: usize, init: Val) -> Val {
        init
    }

    /// Called at the end of every block, before its scope closes.
    fn end_block(&mut self, _l: &mut Lower, _at: Span) {}

    /// What a loop at `loop_at` yields, once read.
    fn loop_yields(&mut self, _loop_at: Span, _yields: &[Val]) {}

    /// Lowers `op` if it belongs to the dialect; `Ok(false)` when it does not.
    fn op(&mut self, l: &mut Lower, op: &Op) -> Result<bool>;
}

pub struct Lower {
    pub em: Emitter,
    pub env: HashMap<String, Val>,
    /// Each let's definition and when it was made (to inline the lets of one loop body).
    defs: HashMap<String, (usize, Sym)>,
    seq: usize,
    pub params: Vec<String>,
    /// Buffer declarations at the top of the function body.
    pub locals: Vec<String>,
    /// Scalars read from `data`.
    pub data: usize,
    yields: Vec<Vec<Val>>,
    pub notes: Vec<Diagnostic>,
    /// Variables known to be non-negative (iteration counters, loop variables from a
    /// non-negative start, thread indices, lets of non-negative expressions).
    nonneg: HashSet<String>,
    /// The iteration numbers of the loops around the current position, innermost last.
    pub loops: Vec<Sym>,
}

impl Lower {
    pub fn new() -> Lower {
        Lower {
            em: Emitter::new(1),
            env: HashMap::new(),
            defs: HashMap::new(),
            seq: 0,
            params: Vec::new(),
            locals: Vec::new(),
            data: 0,
            yields: Vec::new(),
            notes: Vec::new(),
            nonneg: HashSet::new(),
            loops: Vec::new(),
        }
    }

    pub fn val(&self, tok: &Tok) -> Result<Val> {
        self.env
            .get(&tok.text)
            .cloned()
            .ok_or_else(|| Diagnostic::error(tok.span, format!("`%{}` is not defined", tok.text)))
    }

    pub fn bind(&mut self, name: &str, val: Val) {
        self.env.insert(name.to_owned(), val);
    }

    /// Binds `name` to a `let` of `sym` (constants are bound as they are).
    pub fn let_int(&mut self, at: Span, name: &str, sym: Sym) -> Sym {
        let bool_ = sym.is_bool();
        if matches!(sym, Sym::Int(..) | Sym::Bool(_)) {
            self.bind(name, if bool_ { Val::Bool(sym.clone()) } else { Val::Int(sym.clone()) });
            return sym;
        }
        let var = self.em.fresh(name);
        self.em.line(at, format!("{var} = {sym}"));
        if !bool_ && self.is_nonneg(&sym) {
            self.nonneg.insert(var.clone());
        }
        let named = if bool_ { Sym::BoolName(var.clone()) } else { Sym::Name(var.clone(), sym.ty()) };
        self.seq += 1;
        self.defs.insert(var, (self.seq, sym));
        self.bind(name, if bool_ { Val::Bool(named.clone()) } else { Val::Int(named.clone()) });
        named
    }

    /// A `let` of `sym` named after `base`, made known to the loop analysis; constants and
    /// names are returned as they are.
    pub fn let_sym(&mut self, at: Span, base: &str, sym: Sym) -> Sym {
        if matches!(sym, Sym::Int(..) | Sym::Bool(_) | Sym::Name(..) | Sym::BoolName(_)) {
            return sym;
        }
        let var = self.em.fresh(base);
        self.em.line(at, format!("{var} = {sym}"));
        let ty = sym.ty();
        self.seq += 1;
        self.defs.insert(var.clone(), (self.seq, sym));
        Sym::Name(var, ty)
    }

    /// Records that variable `name` is never negative.
    pub fn assume_nonneg(&mut self, name: &str) {
        self.nonneg.insert(name.to_owned());
    }

    /// Whether `sym` is never negative (overflow aside, as everywhere in the reader).
    pub fn is_nonneg(&self, sym: &Sym) -> bool {
        match sym {
            Sym::Int(v, _) => *v >= 0,
            Sym::Name(n, _) => self.nonneg.contains(n),
            Sym::Cast(_, a) => self.is_nonneg(a),
            Sym::Bin(Bin::Add | Bin::Mul | Bin::Min, a, b) => self.is_nonneg(a) && self.is_nonneg(b),
            Sym::Bin(Bin::Max, a, b) => self.is_nonneg(a) || self.is_nonneg(b),
            Sym::Bin(Bin::TruncDiv | Bin::TruncMod | Bin::FloorDiv, a, b) => {
                self.is_nonneg(a) && b.as_const().is_some_and(|d| d > 0)
            }
            Sym::Bin(Bin::FloorMod, _, b) => b.as_const().is_some_and(|d| d > 0),
            Sym::Select(_, a, b) => self.is_nonneg(a) && self.is_nonneg(b),
            _ => false,
        }
    }

    /// A fresh read of `data` (any value), bound by a `let` of its own: an expression that
    /// uses it (`T.Select(a >= 0, a // 2, v)`) then reads no memory itself, so the verifier
    /// keeps its other arm exact instead of taking the whole value for data.
    pub fn data_sym(&mut self, at: Span, ty: IntTy) -> Sym {
        let slot = self.data;
        self.data += 1;
        let read = Sym::Name(format!("data[{slot}]"), IntTy::I32);
        let read = if ty == IntTy::I32 { read } else { Sym::Cast(ty, Box::new(read)) };
        let var = self.em.fresh(&format!("data_{slot}"));
        self.em.line(at, format!("{var} = {read}"));
        Sym::Name(var, ty)
    }

    /// A scalar the reader does not follow: read from `data`, so it may be any value.
    pub fn data_scalar(&mut self, at: Span, name: &str, ty: &str) -> Val {
        let slot = self.data;
        self.data += 1;
        let read = format!("data[{slot}]");
        match ty {
            "i1" => {
                let sym = Sym::Cmp(Cmp::Ne, Box::new(Sym::Name(read, IntTy::I32)), Box::new(Sym::Int(0, IntTy::I32)));
                Val::Bool(self.let_int(at, name, sym))
            }
            "i64" | "index" => {
                Val::Int(self.let_int(at, name, Sym::Cast(IntTy::I64, Box::new(Sym::Name(read, IntTy::I32)))))
            }
            _ => Val::Int(self.let_int(at, name, Sym::Name(read, IntTy::I32))),
        }
    }

    /// `result = async_copy_token(0)`: the token of the group the copy that follows joins.
    pub fn copy_token(&mut self, at: Span, result: &str) {
        let var = self.em.fresh(result);
        self.em.line(at, format!("{var} = T.call_extern(\"int64\", \"async_copy_token\", 0)"));
        self.bind(result, Val::Token(Sym::Name(var, IntTy::I64)));
    }

    /// A commit of the copies issued since the last one, and `result` bound to its group's token.
    pub fn commit_group(&mut self, at: Span, result: &str) {
        self.em.open(at, "with T.attr(0, \"async_commit_queue_scope\", 0):");
        self.em.close(at);
        let var = self.em.fresh(result);
        self.em.line(at, format!("{var} = T.call_extern(\"int64\", \"async_group_token\", 0)"));
        self.bind(result, Val::Token(Sym::Name(var, IntTy::I64)));
    }

    /// A wait of queue 0 leaving `count` groups in flight, claiming to complete `tokens`.
    pub fn wait_groups(&mut self, at: Span, count: i64, tokens: &[Sym]) {
        self.em.open(at, "with T.attr(0, \"async_wait_queue_scope\", 0):");
        self.em.open(at, format!("with T.attr(0, \"async_wait_inflight_count\", {count}):"));
        match tokens {
            [] => {}
            [t] => self.em.open(at, format!("with T.attr(0, \"async_wait_tokens\", {t}):")),
            ts => {
                let list: Vec<String> = ts.iter().map(ToString::to_string).collect();
                self.em.open(at, format!("with T.attr(0, \"async_wait_tokens\", T.tvm_tuple({})):", list.join(", ")));
            }
        }
        if !tokens.is_empty() {
            self.em.close(at);
        }
        self.em.close(at);
        self.em.close(at);
    }

    /// A fresh one-element local buffer; returns its name.
    pub fn local(&mut self, base: &str, dtype: &str) -> String {
        let name = self.em.fresh(base);
        self.locals.push(format!("{name} = T.alloc_buffer((1,), \"{dtype}\", scope=\"local\")"));
        name
    }

    /// `sym` with every let made after `since` replaced by its definition.
    fn expand(&self, sym: &Sym, since: usize) -> Sym {
        sym.subst(&|n| match self.defs.get(n) {
            Some((seq, def)) if *seq > since => Some(self.expand(def, since)),
            _ => None,
        })
    }

    pub fn block(&mut self, block: &Block, dialect: &mut dyn DialectOps) -> Result<()> {
        for op in &block.ops {
            self.op(op, dialect)?;
        }
        dialect.end_block(self, block.ops.last().map_or(Span::UNKNOWN, |o| o.span));
        Ok(())
    }

    pub fn op(&mut self, op: &Op, dialect: &mut dyn DialectOps) -> Result<()> {
        // SSA: a value is defined once (MLIR's verifier refuses the rest).
        if let Some(twice) = op.results.iter().find(|r| self.env.contains_key(r.as_str())) {
            return Err(Diagnostic::error(op.span, format!("`%{twice}` is defined twice")));
        }
        dialect.before(self, op)?;
        if let Some(rest) = op.name.strip_prefix("arith.") {
            return self.arith(op, rest);
        }
        match op.name.as_str() {
            "scf.for" => return self.scf_for(op, dialect),
            "scf.if" => return self.scf_if(op, dialect),
            "scf.while" => return self.scf_while(op, dialect),
            "scf.yield" | "scf.condition" => {
                let vals = op.operands().into_iter().map(|t| self.val(t)).collect::<Result<Vec<_>>>()?;
                self.yields.push(vals);
                return Ok(());
            }
            "tt.return" | "func.return" | "gpu.return" | "llvm.return" => return Ok(()),
            _ => {}
        }
        if dialect.op(self, op)? {
            return Ok(());
        }
        self.opaque(op)
    }

    /// An op the reader does not interpret: its scalar integer results are data; it must not
    /// touch shared memory or the async machinery, here or in its regions.
    pub fn opaque(&mut self, op: &Op) -> Result<()> {
        if is_async_name(&op.name) {
            return Err(Diagnostic::error(
                op.span,
                format!("`{}` is an asynchronous or synchronizing op that tirproof does not model", op.name),
            ));
        }
        for tok in op.operands() {
            if let Ok(Val::Mem(_) | Val::Token(_) | Val::View(View { shared: true, .. })) = self.val(tok) {
                return Err(Diagnostic::error(
                    op.span,
                    format!(
                        "`{}` uses shared memory or an async token, and tirproof does not model what it does with them",
                        op.name
                    ),
                ));
            }
        }
        for region in &op.regions {
            for block in &region.blocks {
                for inner in &block.ops {
                    if is_async_name(&inner.name) {
                        return Err(Diagnostic::error(
                            inner.span,
                            format!("`{}` inside `{}`, a region tirproof does not model", inner.name, op.name),
                        ));
                    }
                }
            }
        }
        let ty = scalar_type(op.result_type()).map(str::to_owned);
        for r in &op.results {
            match ty.as_deref() {
                Some(t @ ("i1" | "i8" | "i16" | "i32" | "i64" | "index")) if op.results.len() == 1 => {
                    let v = self.data_scalar(op.span, r, t);
                    self.bind(r, v);
                }
                _ => self.bind(r, Val::Opaque),
            }
        }
        Ok(())
    }

    fn int_operands(&self, op: &Op) -> Result<Option<Vec<Sym>>> {
        let mut out = Vec::new();
        for tok in op.operands() {
            match self.val(tok)? {
                Val::Int(s) | Val::Bool(s) => out.push(s),
                _ => return Ok(None),
            }
        }
        Ok(Some(out))
    }

    fn arith(&mut self, op: &Op, kind: &str) -> Result<()> {
        let result = op.results.first().cloned().unwrap_or_default();
        let ty = scalar_type(op.result_type()).map(str::to_owned);
        let int_ty = match ty.as_deref() {
            Some("i64" | "index") => IntTy::I64,
            _ => IntTy::I32,
        };
        if kind == "constant" {
            let val = constant(op, ty.as_deref(), int_ty);
            self.bind(&result, val);
            return Ok(());
        }
        let Some(args) = self.int_operands(op)? else {
            for r in &op.results {
                self.bind(r, Val::Opaque);
            }
            return Ok(());
        };
        let arg = |i: usize| -> Result<Sym> {
            args.get(i)
                .cloned()
                .ok_or_else(|| Diagnostic::error(op.span, format!("`{}` needs {} operands", op.name, i + 1)))
        };
        // Operands of the kinds the op takes, or the result is data: MLIR's verifier would
        // refuse the op, and tirproof reads what it cannot type as any value.
        let logic = matches!(kind, "andi" | "ori" | "xori") && ty.as_deref() == Some("i1");
        let well_typed = match kind {
            "select" => {
                args.len() == 3
                    && args[0].is_bool()
                    && args[1].is_bool() == args[2].is_bool()
                    && (args[1].is_bool() || args[1].ty() == args[2].ty())
            }
            "index_cast" | "index_castui" | "extsi" | "extui" | "trunci" => args.len() == 1,
            _ if logic => args.iter().all(Sym::is_bool),
            "cmpi" => args.iter().all(|a| !a.is_bool()) && args.windows(2).all(|w| w[0].ty() == w[1].ty()),
            // The operands of the result's type.
            _ => args.iter().all(|a| !a.is_bool() && a.ty() == int_ty),
        } && (kind != "select" || args[1].is_bool() || args[1].ty() == int_ty);
        if !well_typed {
            return self.arith_data(op, &result, ty.as_deref());
        }
        let bin = |b: Bin| -> Result<Sym> { Ok(Sym::bin(b, arg(0)?, arg(1)?)) };
        let sym = match kind {
            "addi" => bin(Bin::Add)?,
            "subi" => bin(Bin::Sub)?,
            "muli" => bin(Bin::Mul)?,
            "divsi" => bin(Bin::TruncDiv)?,
            "remsi" => bin(Bin::TruncMod)?,
            "floordivsi" => bin(Bin::FloorDiv)?,
            "maxsi" => bin(Bin::Max)?,
            "minsi" => bin(Bin::Min)?,
            "ceildivsi" => {
                let (a, b) = (arg(0)?, arg(1)?);
                let one = Sym::int(1, a.ty());
                // Positive divisors only; other ceildivs are data.
                match b.as_const() {
                    Some(d) if d > 0 => {
                        Sym::bin(Bin::FloorDiv, Sym::bin(Bin::Add, a, Sym::bin(Bin::Sub, b, one)), Sym::int(d, int_ty))
                    }
                    _ => return self.arith_data(op, &result, ty.as_deref()),
                }
            }
            // Unsigned division by a positive constant: as signed where the dividend is
            // non-negative, data where it is not (it would be read as a huge number).
            "divui" | "remui" => {
                let (a, b) = (arg(0)?, arg(1)?);
                match b.as_const() {
                    Some(y) if y > 0 => {
                        let op_ = if kind == "divui" { Bin::TruncDiv } else { Bin::TruncMod };
                        let signed = Sym::bin(op_, a.clone(), Sym::int(y, int_ty));
                        if self.is_nonneg(&a) {
                            signed
                        } else {
                            let other = self.data_sym(op.span, int_ty);
                            Sym::select(Sym::cmp(Cmp::Ge, a, Sym::int(0, int_ty)), signed, other)
                        }
                    }
                    _ => return self.arith_data(op, &result, ty.as_deref()),
                }
            }
            "maxui" | "minui" => return self.arith_data(op, &result, ty.as_deref()),
            "andi" | "ori" | "xori" if ty.as_deref() == Some("i1") => {
                let (a, b) = (arg(0)?, arg(1)?);
                match kind {
                    "andi" => Sym::And(Box::new(a), Box::new(b)),
                    "ori" => Sym::Or(Box::new(a), Box::new(b)),
                    _ => match (a, b) {
                        (x, Sym::Bool(true)) | (Sym::Bool(true), x) => Sym::Not(Box::new(x)),
                        (a, b) => Sym::cmp(
                            Cmp::Ne,
                            Sym::select(a, Sym::int(1, IntTy::I32), Sym::int(0, IntTy::I32)),
                            Sym::select(b, Sym::int(1, IntTy::I32), Sym::int(0, IntTy::I32)),
                        ),
                    },
                }
            }
            "cmpi" => {
                let pred = op.first_word().map(|t| t.text.clone()).unwrap_or_default();
                let Some((cmp, unsigned)) = Cmp::of_predicate(&pred) else {
                    return Err(Diagnostic::error(op.span, format!("unknown `arith.cmpi` predicate `{pred}`")));
                };
                let (a, b) = (arg(0)?, arg(1)?);
                if unsigned && !(self.is_nonneg(&a) && self.is_nonneg(&b)) {
                    return self.arith_data(op, &result, Some("i1"));
                }
                Sym::cmp(cmp, a, b)
            }
            "select" => Sym::select(arg(0)?, arg(1)?, arg(2)?),
            "index_cast" | "index_castui" | "extsi" | "extui" | "trunci" => {
                let a = arg(0)?;
                if kind == "extui" && !self.is_nonneg(&a) && !a.is_bool() {
                    return self.arith_data(op, &result, ty.as_deref());
                }
                if a.is_bool() {
                    Sym::select(a, Sym::int(1, int_ty), Sym::int(0, int_ty))
                } else if a.ty() == int_ty {
                    a
                } else if kind == "trunci" {
                    return self.arith_data(op, &result, ty.as_deref());
                } else {
                    match a.as_const() {
                        Some(v) => Sym::int(v, int_ty),
                        None => Sym::Cast(int_ty, Box::new(a)),
                    }
                }
            }
            _ => return self.arith_data(op, &result, ty.as_deref()),
        };
        self.let_int(op.span, &result, sym);
        Ok(())
    }

    fn arith_data(&mut self, op: &Op, result: &str, ty: Option<&str>) -> Result<()> {
        let v = self.data_scalar(op.span, result, ty.unwrap_or("i32"));
        self.bind(result, v);
        Ok(())
    }

    /// `scf.for %iv = %lb to %ub step %st iter_args(%a = %init, ...) -> (...) {...}`.
    fn scf_for(&mut self, op: &Op, dialect: &mut dyn DialectOps) -> Result<()> {
        let b = &op.body;
        let err = |at: Span| Diagnostic::error(at, "expected `scf.for %iv = %lb to %ub step %step`");
        let at = |i: usize| b.get(i).ok_or_else(|| err(op.span));
        let iv = at(0)?;
        if iv.kind != TokKind::Value || !at(1)?.is("=") || !at(3)?.is_word("to") || !at(5)?.is_word("step") {
            return Err(err(iv.span));
        }
        if self.env.contains_key(&iv.text) {
            return Err(Diagnostic::error(iv.span, format!("`%{}` is defined twice", iv.text)));
        }
        let bound = |i: usize| -> Result<Sym> {
            match self.val(at(i)?)? {
                Val::Int(s) => Ok(s),
                _ => Err(Diagnostic::error(at(i)?.span, "a loop bound that is not an integer")),
            }
        };
        let (lb, ub, st) = (bound(2)?, bound(4)?, bound(6)?);
        if lb.is_bool() || ub.is_bool() || lb.ty() != ub.ty() || ub.ty() != st.ty() {
            return Err(Diagnostic::error(op.span, "loop bounds and step of different types"));
        }
        let mut carried = Vec::new();
        if b.get(7).is_some_and(|t| t.is_word("iter_args")) {
            let mut i = 9;
            while let (Some(arg), Some(eq), Some(init)) = (b.get(i), b.get(i + 1), b.get(i + 2)) {
                if arg.kind != TokKind::Value || !eq.is("=") || init.kind != TokKind::Value {
                    return Err(Diagnostic::error(arg.span, "expected `%arg = %init` in `iter_args`"));
                }
                if self.env.contains_key(&arg.text)
                    || carried.iter().any(|(n, _, _): &(String, Val, Span)| *n == arg.text)
                {
                    return Err(Diagnostic::error(arg.span, format!("`%{}` is defined twice", arg.text)));
                }
                let start = dialect.carried_init(op.span, carried.len(), self.val(init)?);
                carried.push((arg.text.clone(), start, arg.span));
                i += 3;
                if b.get(i).is_some_and(|t| t.is(",")) {
                    i += 1;
                } else {
                    break;
                }
            }
        }
        let step = match st.as_const() {
            Some(s) if s > 0 => s,
            _ => return Err(Diagnostic::error(at(6)?.span, "a loop step that is not a positive constant")),
        };
        let ty = lb.ty();
        let extent = match (lb.as_const(), ub.as_const()) {
            (Some(l), Some(u)) => Sym::int(((u - l + step - 1).max(0)) / step, ty),
            _ => Sym::bin(
                Bin::Max,
                Sym::bin(
                    Bin::FloorDiv,
                    Sym::bin(Bin::Add, Sym::bin(Bin::Sub, ub, lb.clone()), Sym::int(step - 1, ty)),
                    Sym::int(step, ty),
                ),
                Sym::int(0, ty),
            ),
        };
        let k = self.em.fresh("k");
        self.assume_nonneg(&k);
        let kv = Sym::Name(k.clone(), ty);
        // Carried values that go through buffers are stored before the loop.
        let mut plans = Vec::new();
        for (name, init, span) in &carried {
            let plan = self.carry_in(name, init, *span)?;
            plans.push(plan);
        }
        let pre = self.em.slot(op.span);
        self.em.open(op.span, format!("for {k} in range({extent}):"));
        let since = self.seq;
        let top = self.em.slot(op.span);
        // What the body defines (its block arguments among them) is out of scope after it:
        // MLIR reuses those names in sibling regions.
        let outer_env = self.env.clone();
        let iv_sym = Sym::bin(Bin::Add, lb.clone(), Sym::bin(Bin::Mul, kv.clone(), Sym::int(step, ty)));
        self.let_int(op.span, &iv.text, iv_sym);
        for (plan, (name, _, _)) in plans.iter().zip(&carried) {
            self.carry_bind(name, plan);
        }
        let region = single_block(op, 0)?.ok_or_else(|| err(op.span))?;
        let depth = self.yields.len();
        self.loops.push(kv.clone());
        let read = self.block(region, dialect);
        self.loops.pop();
        read?;
        let yields = self.region_yield(depth);
        dialect.loop_yields(op.span, &yields);
        if yields.len() != carried.len() {
            return Err(Diagnostic::error(
                op.span,
                format!("the loop carries {} values but yields {}", carried.len(), yields.len()),
            ));
        }
        for (plan, y) in plans.iter().zip(&yields) {
            if let (Carry::Int { init: Val::Mem(a), .. }, Val::Mem(b)) = (plan, y) {
                if a.buffer != b.buffer || a.cells != b.cells {
                    return Err(Diagnostic::error(
                        op.span,
                        "the loop carries a shared-memory view that changes allocation or size",
                    ));
                }
            } else if let Carry::Int { init: Val::Mem(_), .. } = plan {
                return Err(Diagnostic::error(
                    op.span,
                    "the loop carries a shared-memory view but yields something else for it",
                ));
            }
        }
        // Closed forms of the carried integers, to a fixed point.
        let mut closed: HashMap<String, Sym> = HashMap::new();
        loop {
            let before = closed.len();
            for (plan, y) in plans.iter().zip(&yields) {
                let Carry::Int { var, init } = plan else { continue };
                if closed.contains_key(var) {
                    continue;
                }
                let Some(ysym) = int_of(y) else { continue };
                let y = self.expand(&ysym, since).subst(&|n| closed.get(n).cloned());
                if let Some(c) = closed_form(var, init, &y, &k, &plans) {
                    closed.insert(var.clone(), c);
                }
            }
            if closed.len() == before {
                break;
            }
        }
        for (plan, y) in plans.iter().zip(&yields) {
            match plan {
                Carry::Int { var, .. } => match closed.get(var) {
                    Some(c) => {
                        self.em.fill(top, format!("{var} = {c}"));
                    }
                    None => {
                        let buf = self.carry_buffer(var, plan, pre, top);
                        self.store_carried(op.span, &buf, y);
                    }
                },
                Carry::Buffer { buf, .. } => {
                    if !matches!(y, Val::Token(_)) {
                        return Err(Diagnostic::error(
                            op.span,
                            "the loop carries a group's token but yields something else for it",
                        ));
                    }
                    self.store_carried(op.span, buf, y);
                }
                Carry::Same(_) => {}
            }
        }
        self.em.close(op.span);
        self.env = outer_env;
        // The results: the carried values after the last iteration.
        for ((plan, r), (name, init, _)) in plans.iter().zip(&op.results).zip(&carried) {
            let _ = name;
            let val = match plan {
                Carry::Int { var, .. } => match closed.get(var) {
                    Some(c) => {
                        let after = c.subst(&|n| (n == k).then(|| extent.clone()));
                        self.wrap(init, after)
                    }
                    None => self.load_carried(op.span, r, &format!("{var}_carried"), init),
                },
                Carry::Buffer { buf, .. } => self.load_carried(op.span, r, buf, init),
                Carry::Same(v) => v.clone(),
            };
            self.bind_result(op.span, r, val);
        }
        Ok(())
    }

    fn wrap(&self, like: &Val, sym: Sym) -> Val {
        match like {
            Val::Bool(_) => Val::Bool(sym),
            Val::Acc(_) => Val::Acc(sym),
            Val::Mem(m) => Val::Mem(Mem { base: sym, ..m.clone() }),
            _ => Val::Int(sym),
        }
    }

    fn bind_result(&mut self, at: Span, name: &str, val: Val) {
        match val {
            Val::Int(s) => {
                self.let_int(at, name, s);
            }
            Val::Acc(s) => {
                let cell = self.let_sym(at, name, s);
                self.bind(name, Val::Acc(cell));
            }
            Val::Bool(s) => {
                self.let_int(at, name, s);
            }
            Val::Mem(m) => {
                let base = self.let_sym(at, &format!("{name}_base"), m.base);
                self.bind(name, Val::Mem(Mem { base, ..m }));
            }
            v => self.bind(name, v),
        }
    }

    /// How a carried value is kept, decided before the body is read.
    fn carry_in(&mut self, name: &str, init: &Val, at: Span) -> Result<Carry> {
        Ok(match init {
            Val::Token(t) => {
                let buf = self.local(&format!("{name}_carried"), "int64");
                self.em.line(at, format!("{buf}[0] = {t}"));
                Carry::Buffer { buf, kind: CarryKind::Token }
            }
            Val::Int(s) | Val::Bool(s) | Val::Acc(s) => {
                let var = self.em.fresh(name);
                Carry::Int { var, init: init.clone_with(s.clone()) }
            }
            Val::Mem(m) => {
                let var = self.em.fresh(&format!("{name}_base"));
                Carry::Int { var, init: Val::Mem(m.clone()) }
            }
            Val::View(_) => {
                return Err(Diagnostic::error(
                    at,
                    format!("`%{name}` carries a memref view through the loop, which tirproof does not follow"),
                ))
            }
            Val::WaitToken | Val::Opaque => Carry::Same(init.clone()),
        })
    }

    fn carry_bind(&mut self, name: &str, plan: &Carry) {
        match plan {
            Carry::Int { var, init } => {
                let sym = match init {
                    Val::Bool(_) => Sym::BoolName(var.clone()),
                    Val::Mem(m) => Sym::Name(var.clone(), m.base.ty()),
                    Val::Int(s) | Val::Acc(s) => Sym::Name(var.clone(), s.ty()),
                    _ => Sym::Name(var.clone(), IntTy::I32),
                };
                self.bind(name, self.wrap(init, sym));
            }
            Carry::Buffer { buf, kind: CarryKind::Token } => {
                let var = self.em.fresh(name);
                self.em.line(Span::UNKNOWN, format!("{var} = {buf}[0]"));
                self.bind(name, Val::Token(Sym::Name(var, IntTy::I64)));
            }
            Carry::Same(v) => self.bind(name, v.clone()),
        }
    }

    /// An integer without a closed form goes through a buffer after all: set before the loop
    /// (slot `pre`), read at the top of the body (slot `top`). Its value is then data to the
    /// verifier, which is sound (it may be anything), if less precise.
    fn carry_buffer(&mut self, var: &str, plan: &Carry, pre: usize, top: usize) -> String {
        let Carry::Int { init, .. } = plan else { return String::new() };
        let buf = format!("{var}_carried");
        self.locals.push(format!("{buf} = T.alloc_buffer((1,), \"int64\", scope=\"local\")"));
        self.em.fill(pre, store_line(&buf, init).unwrap_or_default());
        self.em.fill(top, format!("{var} = {}", load_expr(&buf, init)));
        buf
    }

    fn store_carried(&mut self, at: Span, buf: &str, y: &Val) {
        if let Some(line) = store_line(buf, y) {
            self.em.line(at, line);
        }
    }

    fn load_carried(&mut self, at: Span, name: &str, buf: &str, like: &Val) -> Val {
        let var = self.em.fresh(name);
        self.em.line(at, format!("{var} = {}", load_expr(buf, like)));
        match like {
            Val::Token(_) => Val::Token(Sym::Name(var, IntTy::I64)),
            Val::Bool(_) => Val::Bool(Sym::BoolName(var)),
            _ => self.wrap(like, Sym::Name(var, int_ty_of(like))),
        }
    }

    /// `scf.if %c [-> (...)] { ... } [else { ... }]`.
    fn scf_if(&mut self, op: &Op, dialect: &mut dyn DialectOps) -> Result<()> {
        let cond_tok = op
            .operands()
            .into_iter()
            .next()
            .ok_or_else(|| Diagnostic::error(op.span, "`scf.if` without a condition"))?;
        let cond = match self.val(cond_tok)? {
            Val::Bool(s) => s,
            _ => return Err(Diagnostic::error(cond_tok.span, "an `scf.if` condition that is not a scalar `i1`")),
        };
        let since = self.seq;
        // Results that are tokens or values without a common expression go through buffers.
        let mut arms: Vec<Vec<Val>> = Vec::new();
        let mut slots = Vec::new();
        for i in 0..op.regions.len().min(2) {
            let header = if i == 0 { format!("if {cond}:") } else { "else:".to_owned() };
            self.em.open(op.span, header);
            let env = self.env.clone();
            let depth = self.yields.len();
            if let Some(block) = single_block(op, i)? {
                self.block(block, dialect)?;
            }
            let y = self.region_yield(depth);
            if y.len() != op.results.len() {
                return Err(Diagnostic::error(
                    op.span,
                    format!("`scf.if` has {} results but its region yields {}", op.results.len(), y.len()),
                ));
            }
            slots.push(self.em.slot(op.span));
            self.em.close(op.span);
            self.env = env;
            arms.push(y);
        }
        for (r, (i, name)) in op.results.iter().enumerate().map(|(i, n)| (n, (i, n))) {
            let _ = r;
            let (Some(a), Some(b)) = (arms.first().and_then(|a| a.get(i)), arms.get(1).and_then(|a| a.get(i))) else {
                continue;
            };
            let val = match (a, b) {
                (Val::Acc(_), Val::Opaque) | (Val::Opaque, Val::Acc(_)) => {
                    return Err(Diagnostic::error(
                        op.span,
                        "an `scf.if` that yields an asynchronous dot's result from one arm only",
                    ));
                }
                (Val::Int(x), Val::Int(y)) | (Val::Bool(x), Val::Bool(y)) | (Val::Acc(x), Val::Acc(y)) => {
                    let (x, y) = (self.expand(x, since), self.expand(y, since));
                    if self.defined_before(&x, since) && self.defined_before(&y, since) {
                        Some(self.wrap(a, Sym::select(cond.clone(), x, y)))
                    } else {
                        None
                    }
                }
                (Val::Mem(x), Val::Mem(y)) if x.buffer == y.buffer && x.cells == y.cells => {
                    let (xb, yb) = (self.expand(&x.base, since), self.expand(&y.base, since));
                    if self.defined_before(&xb, since) && self.defined_before(&yb, since) {
                        Some(Val::Mem(Mem { base: Sym::select(cond.clone(), xb, yb), ..x.clone() }))
                    } else {
                        None
                    }
                }
                (Val::View(_), _) | (_, Val::View(_)) => {
                    return Err(Diagnostic::error(
                        op.span,
                        format!("`%{name}` is a memref view chosen by `scf.if`, which tirproof does not follow"),
                    ))
                }
                (Val::WaitToken, Val::WaitToken) => Some(Val::WaitToken),
                (Val::Opaque, _) | (_, Val::Opaque) => Some(Val::Opaque),
                _ => None,
            };
            match val {
                Some(v) => self.bind_result(op.span, name, v),
                None => {
                    let same_kind = match (a, b) {
                        (Val::Mem(x), Val::Mem(y)) => x.buffer == y.buffer && x.cells == y.cells,
                        (Val::Token(_), Val::Token(_)) | (Val::Int(_), Val::Int(_)) | (Val::Bool(_), Val::Bool(_)) => {
                            true
                        }
                        _ => false,
                    };
                    if !same_kind {
                        return Err(Diagnostic::error(
                            op.span,
                            "the arms of this `scf.if` yield values of different kinds or views of different memory",
                        ));
                    }
                    let buf = self.local(&format!("{name}_if"), "int64");
                    for (arm, slot) in arms.iter().zip(&slots) {
                        let line = store_line(&buf, &arm[i]).ok_or_else(|| {
                            Diagnostic::error(op.span, "`scf.if` arms yield values of different kinds")
                        })?;
                        self.em.fill(*slot, line);
                    }
                    let v = self.load_carried(op.span, name, &buf, a);
                    self.bind_result(op.span, name, v);
                }
            }
        }
        Ok(())
    }

    /// What the region read since the yield stack had `depth` entries yielded (nothing when it
    /// ends without `scf.yield`); the stack is back to `depth` after.
    fn region_yield(&mut self, depth: usize) -> Vec<Val> {
        let y = if self.yields.len() > depth { self.yields.pop().unwrap_or_default() } else { Vec::new() };
        self.yields.truncate(depth);
        y
    }

    /// Whether every let `sym` reads was made before `since` (so it is in scope after an
    /// `scf.if` whose arms made the others).
    fn defined_before(&self, sym: &Sym, since: usize) -> bool {
        sym.names().iter().all(|n| self.defs.get(n).is_none_or(|(seq, _)| *seq <= since))
    }

    /// `scf.while`: its trip count is data. The `before` region runs once more than `do`.
    fn scf_while(&mut self, op: &Op, _dialect: &mut dyn DialectOps) -> Result<()> {
        Err(Diagnostic::error(op.span, "`scf.while` is not read yet: write the loop as `scf.for` with a trip count"))
    }
}

impl Default for Lower {
    fn default() -> Self {
        Lower::new()
    }
}

enum CarryKind {
    Token,
}

enum Carry {
    Int {
        var: String,
        init: Val,
    },
    Buffer {
        buf: String,
        kind: CarryKind,
    },
    /// A value every iteration sees unchanged as far as the model goes (opaque, a wait's).
    Same(Val),
}

impl Val {
    fn clone_with(&self, s: Sym) -> Val {
        match self {
            Val::Bool(_) => Val::Bool(s),
            Val::Acc(_) => Val::Acc(s),
            _ => Val::Int(s),
        }
    }
}

fn int_of(v: &Val) -> Option<Sym> {
    match v {
        Val::Int(s) | Val::Bool(s) | Val::Acc(s) => Some(s.clone()),
        Val::Mem(m) => Some(m.base.clone()),
        _ => None,
    }
}

/// The store of `v` into the one-element `int64` buffer `buf`; `None` for a value kept
/// nowhere (a wait's token, an opaque value).
fn store_line(buf: &str, v: &Val) -> Option<String> {
    Some(match v {
        Val::Token(t) => format!("{buf}[0] = {t}"),
        Val::Int(s) | Val::Acc(s) | Val::Mem(Mem { base: s, .. }) => format!("{buf}[0] = T.Cast(\"int64\", {s})"),
        Val::Bool(s) => format!("{buf}[0] = T.Select({s}, T.int64(1), T.int64(0))"),
        Val::WaitToken | Val::View(_) | Val::Opaque => return None,
    })
}

/// The value of a value like `like` read back from `buf`.
fn load_expr(buf: &str, like: &Val) -> String {
    match like {
        Val::Token(_) => format!("{buf}[0]"),
        Val::Bool(_) => format!("{buf}[0] != T.int64(0)"),
        _ => format!("T.Cast(\"{}\", {buf}[0])", int_ty_of(like).tir()),
    }
}

fn int_ty_of(v: &Val) -> IntTy {
    int_of(v).map_or(IntTy::I32, |s| s.ty())
}

/// The value of carried `var` at the start of iteration `k`, where `init` is its value before
/// the loop and `y` (expanded: only loop invariants, `k` and carried names) what one
/// iteration yields for the next.
fn closed_form(var: &str, init: &Val, y: &Sym, k: &str, plans: &[Carry]) -> Option<Sym> {
    let init = int_of(init)?;
    let ty = init.ty();
    let kv = Sym::Name(k.to_owned(), ty);
    let carried: Vec<&str> = plans
        .iter()
        .filter_map(|p| match p {
            Carry::Int { var, .. } => Some(var.as_str()),
            _ => None,
        })
        .collect();
    let k_minus_1 = Sym::bin(Bin::Sub, kv.clone(), Sym::int(1, ty));
    // A value computed afresh each iteration.
    if carried.iter().all(|c| !y.mentions(c)) {
        let prev = y.subst(&|n| (n == k).then(|| k_minus_1.clone()));
        return Some(Sym::select(Sym::cmp(Cmp::Eq, kv, Sym::int(0, ty)), init, prev));
    }
    let this = Sym::Name(var.to_owned(), ty);
    let invariant = |s: &Sym| !s.mentions(k) && carried.iter().all(|c| !s.mentions(c));
    // x + c
    if let Sym::Bin(Bin::Add, a, b) = y {
        for (x, c) in [(a, b), (b, a)] {
            if **x == this && invariant(c) {
                return Some(Sym::bin(Bin::Add, init, Sym::bin(Bin::Mul, (**c).clone(), kv)));
            }
        }
    }
    // A ring counter x -> (x + 1) mod N, from an initial value in [-1, N).
    let plus_one = Sym::bin(Bin::Add, this.clone(), Sym::int(1, ty));
    let ring = match y {
        Sym::Select(c, a, b) => match (&**c, a.as_const(), b.as_const()) {
            (Sym::Cmp(Cmp::Ge, l, n), Some(0), None) | (Sym::Cmp(Cmp::Eq, l, n), Some(0), None)
                if **l == plus_one && **b == plus_one =>
            {
                n.as_const()
            }
            (Sym::Cmp(Cmp::Lt, l, n), None, Some(0)) if **l == plus_one && **a == plus_one => n.as_const(),
            _ => None,
        },
        Sym::Bin(Bin::TruncMod | Bin::FloorMod, l, n) if **l == plus_one => n.as_const(),
        _ => None,
    };
    if let (Some(n), Some(i)) = (ring, init.as_const()) {
        if n > 0 && (-1..n).contains(&i) {
            let wrapped = Sym::bin(Bin::FloorMod, Sym::bin(Bin::Add, kv.clone(), Sym::int(i, ty)), Sym::int(n, ty));
            return Some(if i >= 0 {
                wrapped
            } else {
                Sym::select(Sym::cmp(Cmp::Eq, kv, Sym::int(0, ty)), init, wrapped)
            });
        }
    }
    None
}

/// `arith.constant 32 : i32`, `true`, `-1 : i32`; anything else (floats, tensors) is opaque.
fn constant(op: &Op, ty: Option<&str>, int_ty: IntTy) -> Val {
    let b = &op.body;
    let (neg, at) = if b.first().is_some_and(|t| t.is("-")) { (true, 1) } else { (false, 0) };
    let Some(tok) = b.get(at) else { return Val::Opaque };
    if tok.is_word("true") || tok.is_word("false") {
        return Val::Bool(Sym::Bool(tok.text == "true"));
    }
    match (ty, tok.text.parse::<i64>()) {
        (Some("i1"), Ok(v)) => Val::Bool(Sym::Bool(v != 0)),
        (Some("i8" | "i16" | "i32" | "i64" | "index"), Ok(v)) => Val::Int(Sym::int(if neg { -v } else { v }, int_ty)),
        _ => Val::Opaque,
    }
}

/// The one block of `op`'s region `index` (`None` when the op has no such region). A region
/// of several blocks is unstructured control flow, which the readers refuse rather than read
/// one block of.
pub fn single_block(op: &Op, index: usize) -> Result<Option<&Block>> {
    let Some(region) = op.regions.get(index) else { return Ok(None) };
    match region.blocks.as_slice() {
        [] => Ok(None),
        [block] => Ok(Some(block)),
        [_, second, ..] => {
            let at = second.ops.first().map_or(op.span, |o| o.span);
            Err(Diagnostic::error(
                at,
                format!(
                    "a region of `{}` with several blocks (unstructured control flow), which tirproof does not read",
                    op.name
                ),
            ))
        }
    }
}

/// Whether an op belongs to the async machinery (never skipped inside an opaque region).
pub fn is_async_name(name: &str) -> bool {
    const WORDS: [&str; 11] =
        ["async", "local_", "barrier", "tma", "fence", "wait", "arrive", "commit", "wgmma", "tmem", "tc_gen5"];
    let op = name.rsplit_once('.').map_or(name, |(_, op)| op);
    WORDS.iter().any(|w| op.contains(w))
}
