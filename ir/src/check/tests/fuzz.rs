//! Property tests on random IR: the checker never panics, and structural equality and hashing
//! agree with alpha-renaming.
//!
//! Programs are generated as plain recipes (`E`, `S`) and then built into IR by `Builder` in
//! one of two modes: `Mode::Wild` takes variables and buffers from a fixed pool regardless of
//! scope (so uses may be unbound and bindings repeated), `Mode::Scoped` binds fresh variables
//! and uses only what is in scope, which must give no scoping diagnostics. Types are random in
//! both modes, so most programs are ill-typed.

use proptest::collection::vec;
use proptest::prelude::*;

use super::*;
use crate::annotation::{ASYNC_COMMIT_QUEUE_SCOPE, ASYNC_SCOPE, ASYNC_WAIT_INFLIGHT_COUNT, ASYNC_WAIT_QUEUE_SCOPE};
use crate::buffer::{Buffer, BufferSpec};
use crate::dtype::DataType;
use crate::expr::{BinOp, Call, CallEffect, CmpOp, LogicOp};
use crate::stmt::{AttrStmt, Block, BufferStore, ForKind, IterKind, IterVar, StmtKind};
use crate::structural::{func_diff, func_eq, func_hash};
use crate::var::Var;

const TYPES: [DataType; 7] = [
    DataType::INT32,
    DataType::INT32,
    DataType::INT64,
    DataType::FLOAT32,
    DataType::BOOL,
    DataType::INT32.with_lanes(4),
    DataType::FLOAT32.with_lanes(4),
];
const KINDS: [ForKind; 5] =
    [ForKind::Serial, ForKind::Parallel, ForKind::Vectorized, ForKind::Unrolled, ForKind::ThreadBinding];
const TAGS: [&str; 4] = ["threadIdx.x", "blockIdx.x", "vthread", "bogus"];
const ATTR_KEYS: [&str; 5] =
    [ASYNC_SCOPE, ASYNC_COMMIT_QUEUE_SCOPE, ASYNC_WAIT_QUEUE_SCOPE, ASYNC_WAIT_INFLIGHT_COUNT, "pragma_note"];
const ANN_KEYS: [&str; 7] = [
    PIPELINE_STAGE,
    PIPELINE_ORDER,
    PIPELINE_ASYNC_STAGES,
    ASYNC_SCOPE,
    ASYNC_WAIT_QUEUE_SCOPE,
    ASYNC_WAIT_INFLIGHT_COUNT,
    "note",
];

/// An expression recipe; `u8` fields pick from pools modulo their size.
#[derive(Clone, Debug)]
enum E {
    Int(i8, u8),
    Float(i8),
    Str,
    Var(u8),
    Bin(u8, Box<E>, Box<E>),
    Cmp(u8, Box<E>, Box<E>),
    Logic(bool, Box<E>, Box<E>),
    Not(Box<E>),
    Select(bool, Box<E>, Box<E>, Box<E>),
    Cast(u8, Box<E>),
    Ramp(Box<E>, Box<E>, u8),
    Broadcast(Box<E>, u8),
    Let(u8, Box<E>, Box<E>),
    Load(u8, Vec<E>),
    Call(Vec<E>),
}

/// An annotation value recipe.
#[derive(Clone, Debug)]
enum A {
    Int(i8),
    Str,
    List(Vec<A>),
    Expr(E),
}

/// A statement recipe.
#[derive(Clone, Debug)]
enum S {
    Store(u8, Vec<E>, E),
    Let(u8, E, Box<S>),
    For(u8, u8, Option<u8>, E, Vec<(u8, A)>, Box<S>),
    If(E, Box<S>, Option<Box<S>>),
    Seq(Vec<S>),
    Attr(u8, E, Box<S>),
    AllocBuffer(u8, Box<S>),
    DeclBuffer(u8, Box<S>),
    Allocate(u8, Vec<E>, Box<S>),
    Eval(E),
    Barrier,
    Launch(u8, u8, E, Box<S>),
    Block(Vec<(u8, E)>, Option<E>, Vec<u8>, Vec<(u8, Vec<E>)>, Vec<(u8, A)>, Box<S>),
}

fn bx<T>(t: T) -> Box<T> {
    Box::new(t)
}

fn expr_recipe() -> impl Strategy<Value = E> {
    let leaf = prop_oneof![
        (any::<i8>(), any::<u8>()).prop_map(|(v, t)| E::Int(v, t)),
        any::<i8>().prop_map(E::Float),
        Just(E::Str),
        any::<u8>().prop_map(E::Var),
    ];
    leaf.prop_recursive(4, 24, 3, |inner| {
        prop_oneof![
            (any::<u8>(), inner.clone(), inner.clone()).prop_map(|(o, a, b)| E::Bin(o, bx(a), bx(b))),
            (any::<u8>(), inner.clone(), inner.clone()).prop_map(|(o, a, b)| E::Cmp(o, bx(a), bx(b))),
            (any::<bool>(), inner.clone(), inner.clone()).prop_map(|(o, a, b)| E::Logic(o, bx(a), bx(b))),
            inner.clone().prop_map(|a| E::Not(bx(a))),
            (any::<bool>(), inner.clone(), inner.clone(), inner.clone()).prop_map(|(k, c, a, b)| E::Select(
                k,
                bx(c),
                bx(a),
                bx(b)
            )),
            (any::<u8>(), inner.clone()).prop_map(|(t, a)| E::Cast(t, bx(a))),
            (inner.clone(), inner.clone(), 0u8..5).prop_map(|(a, b, l)| E::Ramp(bx(a), bx(b), l)),
            (inner.clone(), 0u8..5).prop_map(|(a, l)| E::Broadcast(bx(a), l)),
            (any::<u8>(), inner.clone(), inner.clone()).prop_map(|(v, a, b)| E::Let(v, bx(a), bx(b))),
            (any::<u8>(), vec(inner.clone(), 0..3)).prop_map(|(b, i)| E::Load(b, i)),
            vec(inner, 0..3).prop_map(E::Call),
        ]
    })
}

fn ann_recipe() -> impl Strategy<Value = A> {
    let leaf = prop_oneof![any::<i8>().prop_map(A::Int), Just(A::Str), expr_recipe().prop_map(A::Expr)];
    leaf.prop_recursive(2, 8, 4, |inner| vec(inner, 0..4).prop_map(A::List))
}

fn anns_recipe() -> impl Strategy<Value = Vec<(u8, A)>> {
    vec((any::<u8>(), ann_recipe()), 0..3)
}

fn stmt_recipe() -> impl Strategy<Value = S> {
    let e = expr_recipe;
    let leaf = prop_oneof![
        (any::<u8>(), vec(e(), 0..3), e()).prop_map(|(b, i, v)| S::Store(b, i, v)),
        e().prop_map(S::Eval),
        Just(S::Barrier),
    ];
    leaf.prop_recursive(4, 32, 4, move |inner| {
        prop_oneof![
            (any::<u8>(), e(), inner.clone()).prop_map(|(v, x, b)| S::Let(v, x, bx(b))),
            (any::<u8>(), any::<u8>(), proptest::option::of(any::<u8>()), e(), anns_recipe(), inner.clone())
                .prop_map(|(v, k, t, x, a, b)| S::For(v, k, t, x, a, bx(b))),
            (e(), inner.clone(), proptest::option::of(inner.clone())).prop_map(|(c, t, f)| S::If(c, bx(t), f.map(bx))),
            vec(inner.clone(), 0..4).prop_map(S::Seq),
            (any::<u8>(), e(), inner.clone()).prop_map(|(k, v, b)| S::Attr(k, v, bx(b))),
            (any::<u8>(), inner.clone()).prop_map(|(k, b)| S::AllocBuffer(k, bx(b))),
            (any::<u8>(), inner.clone()).prop_map(|(k, b)| S::DeclBuffer(k, bx(b))),
            (any::<u8>(), vec(e(), 0..2), inner.clone()).prop_map(|(v, x, b)| S::Allocate(v, x, bx(b))),
            (any::<u8>(), any::<u8>(), e(), inner.clone()).prop_map(|(v, t, x, b)| S::Launch(v, t, x, bx(b))),
            (
                vec((any::<u8>(), e()), 0..2),
                proptest::option::of(e()),
                vec(any::<u8>(), 0..2),
                vec((any::<u8>(), vec(e(), 0..2)), 0..2),
                anns_recipe(),
                inner,
            )
                .prop_map(|(iv, p, al, rg, an, b)| S::Block(iv, p, al, rg, an, bx(b))),
        ]
    })
}

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Mode {
    Wild,
    Scoped,
}

/// Builds IR from recipes. In `Scoped` mode `vars`/`bufs` hold what is in scope.
struct Builder {
    mode: Mode,
    pool_vars: Vec<Var>,
    pool_bufs: Vec<Buffer>,
    vars: Vec<Var>,
    bufs: Vec<Buffer>,
    line: u32,
}

fn pick<T: Clone>(items: &[T], k: u8) -> Option<T> {
    if items.is_empty() {
        None
    } else {
        Some(items[usize::from(k) % items.len()].clone())
    }
}

impl Builder {
    fn new(mode: Mode) -> Self {
        let pool_vars: Vec<Var> = TYPES.iter().enumerate().map(|(k, t)| var(&format!("p{k}"), *t)).collect();
        let a = buf("A", F32, &[16]);
        let pool_bufs = vec![
            a.clone(),
            buf("B", F32, &[4, 4]),
            buf("C", F32.with_lanes(4), &[4]),
            shared("S", DataType::INT32, &[8]),
            alias("A_v", &a, F32.with_lanes(4), &[4]),
        ];
        Builder { mode, pool_vars, pool_bufs, vars: Vec::new(), bufs: Vec::new(), line: 1 }
    }

    fn func(mut self, body: &S) -> PrimFunc {
        let params = vec![bparam(&self.pool_bufs[0]), bparam(&self.pool_bufs[1]), sparam(&self.pool_vars[0])];
        self.vars.push(self.pool_vars[0].clone());
        self.bufs.extend([self.pool_bufs[0].clone(), self.pool_bufs[1].clone()]);
        let body = self.stmt(body);
        func(params, body)
    }

    fn use_var(&self, k: u8) -> Option<Var> {
        match self.mode {
            Mode::Wild => pick(&self.pool_vars, k),
            Mode::Scoped => pick(&self.vars, k),
        }
    }

    /// A variable to bind; in `Scoped` mode a fresh one, pushed into scope by the caller.
    fn new_var(&self, k: u8) -> Var {
        let model = pick(&self.pool_vars, k).unwrap_or_else(|| i32v("z"));
        match self.mode {
            Mode::Wild => model,
            Mode::Scoped => model.fresh_copy(),
        }
    }

    fn use_buffer(&self, k: u8) -> Option<Buffer> {
        match self.mode {
            Mode::Wild => pick(&self.pool_bufs, k),
            Mode::Scoped => pick(&self.bufs, k),
        }
    }

    /// A buffer to allocate: in `Scoped` mode a fresh copy with its own data variable.
    fn new_buffer(&self, k: u8) -> Buffer {
        let model = pick(&self.pool_bufs, k).unwrap_or_else(|| buf("X", F32, &[1]));
        match self.mode {
            Mode::Wild => model,
            Mode::Scoped => {
                let mut spec = model.to_spec();
                spec.data = model.data().fresh_copy();
                spec.build()
            }
        }
    }

    /// A buffer to declare over existing storage: in `Scoped` mode an alias of one in scope.
    fn new_alias(&self, k: u8) -> Option<Buffer> {
        match self.mode {
            Mode::Wild => pick(&self.pool_bufs, k),
            Mode::Scoped => {
                let of = pick(&self.bufs, k)?;
                let mut spec: BufferSpec = of.to_spec();
                spec.name = format!("{}_alias", of.name());
                Some(spec.build())
            }
        }
    }

    /// Runs `f` with `vars` in scope (Scoped mode only changes anything).
    fn with_vars<T>(&mut self, vars: &[Var], bufs: &[Buffer], f: impl FnOnce(&mut Self) -> T) -> T {
        let (nv, nb) = (self.vars.len(), self.bufs.len());
        self.vars.extend_from_slice(vars);
        self.bufs.extend_from_slice(bufs);
        let out = f(self);
        self.vars.truncate(nv);
        self.bufs.truncate(nb);
        out
    }

    fn expr(&mut self, e: &E) -> Expr {
        match e {
            E::Int(v, t) => Expr::int_of(i64::from(*v), TYPES[usize::from(*t) % 5]),
            E::Float(v) => Expr::float(f64::from(*v) / 2.0, F32),
            E::Str => Expr::Str("s".into()),
            E::Var(k) => self.use_var(*k).map_or_else(|| int(0), |x| v(&x)),
            E::Bin(o, a, b) => {
                let op = BinOp::ALL[usize::from(*o) % BinOp::ALL.len()];
                Expr::binary(op, self.expr(a), self.expr(b))
            }
            E::Cmp(o, a, b) => Expr::cmp(CmpOp::ALL[usize::from(*o) % 6], self.expr(a), self.expr(b)),
            E::Logic(o, a, b) => {
                let op = if *o { LogicOp::And } else { LogicOp::Or };
                Expr::logic(op, self.expr(a), self.expr(b))
            }
            E::Not(a) => Expr::logical_not(self.expr(a)),
            E::Select(lazy, c, a, b) => {
                let (c, a, b) = (self.expr(c), self.expr(a), self.expr(b));
                if *lazy {
                    Expr::if_then_else(c, a, b)
                } else {
                    Expr::select(c, a, b)
                }
            }
            E::Cast(t, a) => Expr::cast(TYPES[usize::from(*t) % TYPES.len()], self.expr(a)),
            E::Ramp(a, b, l) => Expr::ramp(self.expr(a), self.expr(b), u16::from(*l)),
            E::Broadcast(a, l) => Expr::broadcast(self.expr(a), u16::from(*l)),
            E::Let(k, a, b) => {
                let value = self.expr(a);
                let x = self.new_var(*k);
                let body = self.with_vars(std::slice::from_ref(&x), &[], |s| s.expr(b));
                Expr::let_in(x, value, body)
            }
            E::Load(k, idx) => {
                let indices = idx.iter().map(|i| self.expr(i)).collect();
                match self.use_buffer(*k) {
                    Some(b) => load(&b, indices),
                    None => int(0),
                }
            }
            E::Call(args) => Expr::Call(Call {
                name: "f".into(),
                dtype: F32,
                args: args.iter().map(|a| self.expr(a)).collect(),
                effect: CallEffect::Pure,
                external: true,
            }),
        }
    }

    fn ann(&mut self, a: &A) -> AnnValue {
        match a {
            A::Int(i) => AnnValue::Int(i64::from(*i)),
            A::Str => AnnValue::Str("s".into()),
            A::List(items) => AnnValue::List(items.iter().map(|i| self.ann(i)).collect()),
            A::Expr(e) => AnnValue::Expr(self.expr(e)),
        }
    }

    fn anns(&mut self, entries: &[(u8, A)]) -> crate::annotation::Annotations {
        let mut out = crate::annotation::Annotations::new();
        for (k, a) in entries {
            let value = self.ann(a);
            out.entries.push((ANN_KEYS[usize::from(*k) % ANN_KEYS.len()].to_string(), value));
        }
        out
    }

    fn stmt(&mut self, s: &S) -> Stmt {
        self.line += 1;
        let line = self.line;
        let kind = self.stmt_kind(s);
        Stmt::new(kind, crate::span::Span::new(line, 1))
    }

    fn stmt_kind(&mut self, s: &S) -> StmtKind {
        match s {
            S::Store(k, idx, value) => {
                let indices = idx.iter().map(|i| self.expr(i)).collect();
                let value = self.expr(value);
                match self.use_buffer(*k) {
                    Some(buffer) => StmtKind::Store(BufferStore { buffer, indices, value }),
                    None => StmtKind::Evaluate(value),
                }
            }
            S::Let(k, value, body) => {
                let value = self.expr(value);
                let x = self.new_var(*k);
                let body = self.with_vars(std::slice::from_ref(&x), &[], |s| s.stmt(body));
                StmtKind::Let { var: x, value, body: bx(body) }
            }
            S::For(k, kind, tag, extent, anns, body) => self.for_kind(*k, *kind, *tag, extent, anns, body),
            S::If(c, t, e) => StmtKind::If {
                cond: self.expr(c),
                then_case: bx(self.stmt(t)),
                else_case: e.as_ref().map(|e| bx(self.stmt(e))),
            },
            S::Seq(items) => StmtKind::Seq(items.iter().map(|i| self.stmt(i)).collect()),
            S::Attr(k, value, body) => StmtKind::Attr(AttrStmt {
                node: None,
                key: ATTR_KEYS[usize::from(*k) % ATTR_KEYS.len()].to_string(),
                value: self.expr(value),
                body: bx(self.stmt(body)),
            }),
            S::AllocBuffer(k, body) => {
                let b = self.new_buffer(*k);
                let body = self.with_vars(&[], std::slice::from_ref(&b), |s| s.stmt(body));
                StmtKind::AllocBuffer { buffer: b, annotations: Default::default(), body: bx(body) }
            }
            S::DeclBuffer(k, body) => match self.new_alias(*k) {
                Some(b) => {
                    let body = self.with_vars(&[], std::slice::from_ref(&b), |s| s.stmt(body));
                    StmtKind::DeclBuffer { buffer: b, body: bx(body) }
                }
                None => self.stmt(body).kind,
            },
            S::Allocate(k, extents, body) => {
                let extents = extents.iter().map(|e| self.expr(e)).collect();
                let data = self.new_var(*k);
                let body = self.with_vars(std::slice::from_ref(&data), &[], |s| s.stmt(body));
                let mut st = allocate(&data, F32, extents, body);
                std::mem::replace(&mut st.kind, StmtKind::Seq(vec![]))
            }
            S::Eval(e) => StmtKind::Evaluate(self.expr(e)),
            S::Barrier => StmtKind::Barrier { scope: "shared".into() },
            S::Launch(k, t, extent, body) => {
                let extent = self.expr(extent);
                let x = self.new_var(*k);
                let body = self.with_vars(std::slice::from_ref(&x), &[], |s| s.stmt(body));
                StmtKind::LaunchThread {
                    var: x,
                    tag: TAGS[usize::from(*t) % TAGS.len()].to_string(),
                    extent,
                    body: bx(body),
                }
            }
            S::Block(ivs, pred, allocs, regions, anns, body) => self.block_kind(ivs, pred, allocs, regions, anns, body),
        }
    }

    fn for_kind(&mut self, k: u8, kind: u8, tag: Option<u8>, extent: &E, anns: &[(u8, A)], body: &S) -> StmtKind {
        let extent = self.expr(extent);
        let annotations = self.anns(anns);
        let x = self.new_var(k);
        let body = self.with_vars(std::slice::from_ref(&x), &[], |s| s.stmt(body));
        let mut f = loop_of(KINDS[usize::from(kind) % KINDS.len()], &x, extent, body);
        f.thread = tag.map(|t| TAGS[usize::from(t) % TAGS.len()].to_string());
        f.annotations = annotations;
        StmtKind::For(bx(f))
    }

    fn block_kind(
        &mut self,
        ivs: &[(u8, E)],
        pred: &Option<E>,
        allocs: &[u8],
        regions: &[(u8, Vec<E>)],
        anns: &[(u8, A)],
        body: &S,
    ) -> StmtKind {
        let bindings: Vec<Expr> = ivs.iter().map(|(_, e)| self.expr(e)).collect();
        let vars: Vec<Var> = ivs.iter().map(|(k, _)| self.new_var(*k)).collect();
        let iter_vars = vars
            .iter()
            .zip(bindings)
            .map(|(x, binding)| IterVar {
                var: x.clone(),
                min: int(0),
                extent: int(4),
                kind: IterKind::Spatial,
                binding,
            })
            .collect();
        let alloc_bufs: Vec<Buffer> = allocs.iter().map(|k| self.new_buffer(*k)).collect();
        // The predicate sees the iteration variables but not the block's own allocations.
        let predicate = self.with_vars(&vars, &[], |s| pred.as_ref().map(|p| s.expr(p)));
        self.with_vars(&vars, &alloc_bufs, |s| {
            let reads = regions
                .iter()
                .filter_map(|(k, pts)| {
                    let pts = pts.iter().map(|p| s.expr(p)).collect();
                    s.use_buffer(*k).map(|b| region(&b, pts))
                })
                .collect();
            let annotations = s.anns(anns);
            let body = s.stmt(body);
            StmtKind::Block(bx(Block {
                name: "b".into(),
                iter_vars,
                predicate,
                reads: Some(reads),
                writes: None,
                annotations,
                alloc_buffers: alloc_bufs.iter().map(block_alloc).collect(),
                init: None,
                body,
            }))
        })
    }
}

fn config() -> ProptestConfig {
    ProptestConfig { cases: 1024, failure_persistence: None, ..ProptestConfig::default() }
}

/// Messages that only a scoping or SSA error produces.
fn is_scope_error(message: &str) -> bool {
    ["undefined", "undeclared", "outside the scope", "bound twice", "declared twice", "not in scope"]
        .iter()
        .any(|m| message.contains(m))
}

proptest! {
    #![proptest_config(config())]

    #[test]
    fn checker_never_panics_on_random_ir(recipe in stmt_recipe()) {
        let wild = Builder::new(Mode::Wild).func(&recipe);
        let diags = check_func(&wild);
        prop_assert!(diags.iter().all(|d| d.span.is_known()));
        let module = IRModule { class_name: None, functions: vec![wild] };
        prop_assert_eq!(check_module(&module).len(), diags.len());
    }

    #[test]
    fn scoped_random_ir_has_no_scoping_errors(recipe in stmt_recipe()) {
        let f = Builder::new(Mode::Scoped).func(&recipe);
        let diags = check_func(&f);
        let scope_errors: Vec<_> = diags.iter().filter(|d| is_scope_error(&d.message)).collect();
        prop_assert!(scope_errors.is_empty(), "{:?}", scope_errors);
    }

    #[test]
    fn alpha_renaming_preserves_equality_and_hash(recipe in stmt_recipe()) {
        let f = Builder::new(Mode::Scoped).func(&recipe);
        let g = alpha_rename(&f);
        prop_assert_eq!(func_diff(&f, &g), None);
        prop_assert_eq!(func_hash(&f), func_hash(&g));
        let wild = Builder::new(Mode::Wild).func(&recipe);
        prop_assert!(func_eq(&wild, &wild.clone()));
        let renamed = alpha_rename(&wild);
        if func_eq(&wild, &renamed) {
            prop_assert_eq!(func_hash(&wild), func_hash(&renamed));
        }
    }

    #[test]
    fn independently_built_programs_are_equal(recipe in stmt_recipe()) {
        let f = Builder::new(Mode::Scoped).func(&recipe);
        let g = Builder::new(Mode::Scoped).func(&recipe);
        prop_assert_eq!(func_diff(&f, &g), None);
        prop_assert_eq!(func_hash(&f), func_hash(&g));
    }
}
