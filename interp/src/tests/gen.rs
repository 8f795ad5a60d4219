//! Program generators for the property tests.
//!
//! Programs are generated as small templates (`Tm` expressions, `St` statements) whose
//! variable and buffer references are indices taken modulo what is in scope, then lowered to
//! IR by `Lower`. In *safe* mode the lowering makes every program fault-free by construction:
//! indices are wrapped into bounds (or into the thread's own elements), integer divisors and
//! shift amounts are forced into range, and float-to-int casts are avoided. In *wild* mode
//! nothing is wrapped and every construct may appear (async attributes, barriers, threads,
//! allocations with any size, vector types, unknown calls): such programs only have to run
//! without panicking.

use proptest::prelude::*;
use proptest::strategy::Union;

use super::build::*;
use tirproof_ir::buffer::Buffer;
use tirproof_ir::dtype::{DataType, TypeCode};
use tirproof_ir::expr::{BinOp, Expr};
use tirproof_ir::stmt::Stmt;
use tirproof_ir::var::Var;

/// A typed-on-demand expression template.
#[derive(Clone, Debug)]
pub(crate) enum Tm {
    Const(i64),
    Var(u8),
    Bin(u8, Box<Tm>, Box<Tm>),
    /// `lazy`, two compared operands, two arms.
    Sel(bool, Box<Tm>, Box<Tm>, Box<Tm>, Box<Tm>),
    Load(u8, Box<Tm>),
    Cast(Box<Tm>),
    Call(u8, Box<Tm>),
    Let(Box<Tm>, Box<Tm>),
}

/// A statement template.
#[derive(Clone, Debug)]
pub(crate) enum St {
    Store(u8, Tm, Tm),
    Loop(u8, Vec<St>),
    If(Tm, Tm, Vec<St>, Vec<St>),
    Let(Tm, Vec<St>),
    Commit(u8, Vec<St>),
    Async(Vec<St>),
    Wait(u8, i8, Vec<St>),
    Barrier,
    Threads(u8, Vec<St>),
    Alloc(u8, Vec<St>),
}

pub(crate) fn tm() -> impl Strategy<Value = Tm> {
    let leaf = prop_oneof![(-8i64..8).prop_map(Tm::Const), any::<u8>().prop_map(Tm::Var)];
    leaf.prop_recursive(4, 24, 4, |inner| {
        let b = |t: Tm| Box::new(t);
        prop_oneof![
            3 => (any::<u8>(), inner.clone(), inner.clone()).prop_map(move |(o, x, y)| Tm::Bin(o, b(x), b(y))),
            1 => (any::<bool>(), inner.clone(), inner.clone(), inner.clone(), inner.clone())
                .prop_map(move |(l, c1, c2, x, y)| Tm::Sel(l, b(c1), b(c2), b(x), b(y))),
            3 => (any::<u8>(), inner.clone()).prop_map(move |(k, i)| Tm::Load(k, b(i))),
            1 => inner.clone().prop_map(move |x| Tm::Cast(b(x))),
            1 => (any::<u8>(), inner.clone()).prop_map(move |(f, x)| Tm::Call(f, b(x))),
            1 => (inner.clone(), inner.clone()).prop_map(move |(v, x)| Tm::Let(b(v), b(x))),
        ]
    })
}

/// Statement lists; `wild` adds the async, barrier, thread and allocation constructs.
pub(crate) fn stmts(wild: bool) -> impl Strategy<Value = Vec<St>> {
    let leaf = (any::<u8>(), tm(), tm()).prop_map(|(k, i, v)| St::Store(k, i, v));
    let stmt = leaf.prop_recursive(3, 20, 3, move |inner| {
        let body = prop::collection::vec(inner.clone(), 1..3);
        let mut arms: Vec<BoxedStrategy<St>> = vec![
            (any::<u8>(), body.clone()).prop_map(|(e, b)| St::Loop(e, b)).boxed(),
            (tm(), tm(), body.clone(), prop::collection::vec(inner.clone(), 0..2))
                .prop_map(|(a, c, t, e)| St::If(a, c, t, e))
                .boxed(),
            (tm(), body.clone()).prop_map(|(v, b)| St::Let(v, b)).boxed(),
        ];
        if wild {
            arms.extend([
                (any::<u8>(), body.clone()).prop_map(|(q, b)| St::Commit(q, b)).boxed(),
                body.clone().prop_map(St::Async).boxed(),
                (any::<u8>(), -2i8..4, body.clone()).prop_map(|(q, n, b)| St::Wait(q, n, b)).boxed(),
                Just(St::Barrier).boxed(),
                (any::<u8>(), body.clone()).prop_map(|(n, b)| St::Threads(n, b)).boxed(),
                (any::<u8>(), body.clone()).prop_map(|(n, b)| St::Alloc(n, b)).boxed(),
            ]);
        }
        Union::new(arms)
    });
    prop::collection::vec(stmt, 1..4)
}

/// How a buffer may be indexed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Mode {
    /// Any element (wrapped into bounds in safe mode).
    Any,
    /// Only the current thread's `OWN` elements (`tx * OWN + k`).
    Own,
}

/// Elements each thread owns in the thread-safe programs.
pub(crate) const OWN: i64 = 4;

#[derive(Clone, Debug)]
pub(crate) struct Slot {
    pub(crate) buf: Buffer,
    pub(crate) len: i64,
    pub(crate) read: Option<Mode>,
    pub(crate) write: Option<Mode>,
}

pub(crate) struct Lower {
    pub(crate) safe: bool,
    pub(crate) vars: Vec<Var>,
    pub(crate) bufs: Vec<Slot>,
    /// The thread variable for `Own` accesses.
    pub(crate) tx: Option<Var>,
    fresh: usize,
}

const INT_OPS: [BinOp; 15] = BinOp::ALL;
const FLOAT_OPS: [BinOp; 8] =
    [BinOp::Add, BinOp::Sub, BinOp::Mul, BinOp::Div, BinOp::Min, BinOp::Max, BinOp::FloorDiv, BinOp::FloorMod];
const FLOAT_CALLS: [&str; 9] =
    ["T.sqrt", "T.fabs", "T.floor", "T.ceil", "T.exp", "T.tanh", "T.round", "T.trunc", "T.sigmoid"];

fn pick<T: Copy>(items: &[T], k: u8) -> T {
    items[usize::from(k) % items.len()]
}

impl Lower {
    pub(crate) fn new(safe: bool, bufs: Vec<Slot>, tx: Option<Var>) -> Lower {
        let vars = tx.iter().cloned().collect();
        Lower { safe, vars, bufs, tx, fresh: 0 }
    }

    fn fresh(&mut self, prefix: &str) -> Var {
        self.fresh += 1;
        Var::new(format!("{prefix}{}", self.fresh), I32)
    }

    fn constant(dtype: DataType, c: i64) -> Expr {
        let scalar = dtype.element();
        let e = if scalar.is_float() {
            Expr::float(c as f64 * 0.25, scalar)
        } else if scalar.is_bool() {
            Expr::bool(c & 1 == 1)
        } else {
            Expr::int_of(c, scalar)
        };
        if dtype.lanes > 1 {
            Expr::broadcast(e, dtype.lanes)
        } else {
            e
        }
    }

    /// `e` (int32) made safe as a divisor: in 1..=7.
    fn positive(e: Expr) -> Expr {
        Expr::floormod(e, int(7)) + int(1)
    }

    pub(crate) fn expr(&mut self, t: &Tm, dtype: DataType) -> Expr {
        match t {
            Tm::Const(c) => Lower::constant(dtype, *c),
            Tm::Var(k) => match self.vars.len() {
                0 => Lower::constant(dtype, i64::from(*k % 8)),
                n => {
                    let v = ev(&self.vars[usize::from(*k) % n]);
                    self.convert(v, I32, dtype)
                }
            },
            Tm::Bin(o, a, b) => self.binary(*o, a, b, dtype),
            Tm::Sel(lazy, c1, c2, a, b) => {
                let cond = Expr::lt(self.expr(c1, I32), self.expr(c2, I32));
                let cond = if dtype.lanes > 1 { Expr::broadcast(cond, dtype.lanes) } else { cond };
                let (x, y) = (self.expr(a, dtype), self.expr(b, dtype));
                if *lazy {
                    Expr::if_then_else(cond, x, y)
                } else {
                    Expr::select(cond, x, y)
                }
            }
            Tm::Load(k, i) => self.load(*k, i, dtype),
            Tm::Cast(a) => {
                let from = if dtype.element().is_float() { I32 } else { F32 };
                if self.safe && from == F32 {
                    return self.expr(a, dtype);
                }
                let v = self.expr(a, from.with_lanes(dtype.lanes));
                Expr::cast(dtype, v)
            }
            Tm::Call(f, a) => self.call(*f, a, dtype),
            Tm::Let(v, body) => {
                let value = self.expr(v, I32);
                let var = self.fresh("v");
                self.vars.push(var.clone());
                let body = self.expr(body, dtype);
                self.vars.pop();
                Expr::let_in(var, value, body)
            }
        }
    }

    /// An int32 expression seen as `dtype` (cast, or broadcast for vectors).
    fn convert(&self, v: Expr, from: DataType, dtype: DataType) -> Expr {
        let scalar = dtype.element();
        let v = if scalar == from { v } else { Expr::cast(scalar, v) };
        if dtype.lanes > 1 {
            Expr::broadcast(v, dtype.lanes)
        } else {
            v
        }
    }

    fn binary(&mut self, o: u8, a: &Tm, b: &Tm, dtype: DataType) -> Expr {
        let scalar = dtype.element();
        if scalar.is_bool() {
            let op = pick(&[BinOp::BitAnd, BinOp::BitOr, BinOp::BitXor], o);
            return Expr::binary(op, self.expr(a, dtype), self.expr(b, dtype));
        }
        let op = if scalar.is_float() { pick(&FLOAT_OPS, o) } else { pick(&INT_OPS, o) };
        let x = self.expr(a, dtype);
        let safe_int = self.safe && !scalar.is_float();
        let y = match op {
            _ if !safe_int => self.expr(b, dtype),
            BinOp::Div | BinOp::FloorDiv | BinOp::FloorMod | BinOp::TruncDiv | BinOp::TruncMod => {
                let d = Lower::positive(self.expr(b, I32));
                self.convert(d, I32, dtype)
            }
            BinOp::Shl | BinOp::Shr => {
                let amount = Expr::floormod(self.expr(b, I32), int(i64::from(scalar.bits)));
                self.convert(amount, I32, dtype)
            }
            _ => self.expr(b, dtype),
        };
        Expr::binary(op, x, y)
    }

    fn call(&mut self, f: u8, a: &Tm, dtype: DataType) -> Expr {
        let scalar = dtype.element();
        let name = if scalar.is_float() {
            pick(&FLOAT_CALLS, f)
        } else if !self.safe && f.is_multiple_of(5) {
            "T.mystery"
        } else {
            pick(&["T.abs", "T.popcount"], f)
        };
        if scalar.is_bool() {
            return self.expr(a, dtype);
        }
        let arg = self.expr(a, dtype);
        call(name, dtype, vec![arg])
    }

    /// An index into `slot` in `mode`. Wild programs leave one index in four unwrapped
    /// (`k` decides), so that most of them get past their first access.
    fn index(&mut self, t: &Tm, slot: &Slot, mode: Mode, k: u8) -> Expr {
        let e = self.expr(t, I32);
        if !self.safe && k.is_multiple_of(4) {
            return e;
        }
        match (mode, &self.tx) {
            (Mode::Own, Some(tx)) => ev(tx) * int(OWN) + Expr::floormod(e, int(OWN)),
            _ => Expr::floormod(e, int(slot.len.max(1))),
        }
    }

    fn load(&mut self, k: u8, i: &Tm, dtype: DataType) -> Expr {
        let candidates: Vec<Slot> = self
            .bufs
            .iter()
            .filter(|s| s.read.is_some() && s.len > 0)
            .filter(|s| s.buf.dtype() == dtype || (s.buf.dtype() == dtype.element() && dtype.lanes > 1))
            .cloned()
            .collect();
        if candidates.is_empty() {
            return Lower::constant(dtype, i64::from(k % 8));
        }
        let slot = &candidates[usize::from(k) % candidates.len()];
        let mode = slot.read.unwrap_or(Mode::Any);
        let idx = self.index(i, slot, mode, k);
        if slot.buf.dtype() == dtype {
            ld(&slot.buf, vec![idx])
        } else {
            // A vector load from a scalar buffer: a ramp index.
            ld(&slot.buf, vec![Expr::ramp(idx, int(1), dtype.lanes)])
        }
    }

    pub(crate) fn stmts(&mut self, ss: &[St]) -> Stmt {
        seq(ss.iter().map(|s| self.stmt(s)).collect())
    }

    fn scoped(&mut self, v: &Var, body: &[St]) -> Stmt {
        self.vars.push(v.clone());
        let s = self.stmts(body);
        self.vars.pop();
        s
    }

    fn stmt(&mut self, s: &St) -> Stmt {
        match s {
            St::Store(k, i, v) => self.store(*k, i, v),
            St::Loop(e, body) => {
                let v = self.fresh("i");
                let extent = if self.safe { i64::from(e % 4) + 1 } else { i64::from(e % 8) - 2 };
                let body = self.scoped(&v, body);
                for_e(&v, int(extent), body)
            }
            St::If(a, b, then_case, else_case) => {
                let cond = Expr::lt(self.expr(a, I32), self.expr(b, I32));
                let then_case = self.stmts(then_case);
                let else_case = (!else_case.is_empty()).then(|| Box::new(self.stmts(else_case)));
                Stmt::synthetic(tirproof_ir::stmt::StmtKind::If { cond, then_case: Box::new(then_case), else_case })
            }
            St::Let(value, body) => {
                let value = self.expr(value, I32);
                let v = self.fresh("x");
                let body = self.scoped(&v, body);
                let_(&v, value, body)
            }
            St::Commit(q, body) => commit(i64::from(q % 3), self.stmts(body)),
            St::Async(body) => async_scope(self.stmts(body)),
            St::Wait(q, n, body) => wait(i64::from(q % 3), int(i64::from(*n)), self.stmts(body)),
            St::Barrier => barrier(),
            St::Threads(n, body) => {
                let v = self.fresh("t");
                let tag = pick(&["threadIdx.x", "threadIdx.y", "blockIdx.x"], *n);
                let body = self.scoped(&v, body);
                for_thread(&v, tag, i64::from(n % 4), body)
            }
            St::Alloc(n, body) => {
                let len = i64::from(n % 10) - 1;
                let scope = pick(&["shared", "local", "global"], *n);
                let dtype = pick(&[F32, I32, F16, BOOL], n / 3);
                let buf =
                    tirproof_ir::buffer::BufferSpec::new(format!("L{}", self.fresh), dtype, vec![int(len)], scope)
                        .build();
                self.bufs.push(Slot { buf: buf.clone(), len, read: Some(Mode::Any), write: Some(Mode::Any) });
                let body = self.stmts(body);
                self.bufs.pop();
                alloc(&buf, body)
            }
        }
    }

    fn store(&mut self, k: u8, i: &Tm, v: &Tm) -> Stmt {
        let candidates: Vec<Slot> = self.bufs.iter().filter(|s| s.write.is_some() && s.len > 0).cloned().collect();
        if candidates.is_empty() {
            return seq(vec![]);
        }
        let slot = &candidates[usize::from(k) % candidates.len()];
        let idx = self.index(i, slot, slot.write.unwrap_or(Mode::Any), k);
        let dtype = slot.buf.dtype();
        let value = self.expr(v, dtype);
        store(&slot.buf, vec![idx], value)
    }
}

/// The types the wild generator's parameters cover.
pub(crate) fn wild_types() -> Vec<DataType> {
    vec![I32, F32, F16, I8, I64, F64, BOOL, DataType::new(TypeCode::UInt, 8, 1), DataType::new(TypeCode::BFloat, 16, 1)]
}

/// Removes every async attribute (the synchronous reading of a program).
pub(crate) fn strip_async(s: &Stmt) -> Stmt {
    use tirproof_ir::stmt::StmtKind;
    let kind = match &s.kind {
        StmtKind::Attr(a) if tirproof_ir::async_op::AsyncKey::parse(&a.key).is_some() => return strip_async(&a.body),
        StmtKind::Seq(v) => StmtKind::Seq(v.iter().map(strip_async).collect()),
        StmtKind::For(f) => {
            let mut f = f.clone();
            f.body = strip_async(&f.body);
            StmtKind::For(f)
        }
        StmtKind::If { cond, then_case, else_case } => StmtKind::If {
            cond: cond.clone(),
            then_case: Box::new(strip_async(then_case)),
            else_case: else_case.as_ref().map(|e| Box::new(strip_async(e))),
        },
        StmtKind::Let { var, value, body } => {
            StmtKind::Let { var: var.clone(), value: value.clone(), body: Box::new(strip_async(body)) }
        }
        StmtKind::AllocBuffer { buffer, annotations, body } => StmtKind::AllocBuffer {
            buffer: buffer.clone(),
            annotations: annotations.clone(),
            body: Box::new(strip_async(body)),
        },
        StmtKind::Attr(a) => {
            let mut a = a.clone();
            a.body = Box::new(strip_async(&a.body));
            StmtKind::Attr(a)
        }
        other => other.clone(),
    };
    Stmt::new(kind, s.span)
}
