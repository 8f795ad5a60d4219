//! Statements: stores, let bindings, loops, conditionals, sequences, attributes (the async
//! scopes among them), allocations, buffer declarations, evaluation, barriers, thread launches
//! and S-TIR blocks.
//!
//! Every statement carries the `Span` it was parsed from. Binding statements (`Let`,
//! `Allocate`, `AllocBuffer`, `DeclBuffer`, `Attr`, `LaunchThread`) own the statement they
//! scope over as `body`; in the text format that body is usually the rest of the enclosing
//! statement list.

use crate::annotation::Annotations;
use crate::buffer::{Buffer, BufferRegion};
use crate::dtype::DataType;
use crate::expr::Expr;
use crate::span::Span;
use crate::var::Var;

#[derive(Clone, Debug, PartialEq)]
pub struct Stmt {
    pub kind: StmtKind,
    pub span: Span,
    /// Set by passes that copy statements (the pipeline pass): where this one came from.
    /// Like spans, origins take no part in structural equality.
    pub origin: Option<Box<Origin>>,
}

/// The provenance of a statement emitted by a pass: the original statement's position in
/// the pipelined loop body, its stage, and the loop iteration this copy executes.
#[derive(Clone, Debug, PartialEq)]
pub struct Origin {
    pub stmt: u32,
    pub stage: i64,
    pub iteration: Expr,
}

impl Stmt {
    pub fn new(kind: StmtKind, span: Span) -> Self {
        Stmt { kind, span, origin: None }
    }

    /// A statement without a source position.
    pub fn synthetic(kind: StmtKind) -> Self {
        Stmt::new(kind, Span::UNKNOWN)
    }

    pub fn with_origin(mut self, origin: Origin) -> Self {
        self.origin = Some(Box::new(origin));
        self
    }

    /// The empty sequence (a no-op).
    pub fn nop() -> Self {
        Stmt::synthetic(StmtKind::Seq(Vec::new()))
    }

    /// A sequence, flattening nested sequences and dropping empty ones.
    pub fn seq(mut stmts: Vec<Stmt>) -> Self {
        if !stmts.iter().any(|s| matches!(s.kind, StmtKind::Seq(_))) {
            // Nothing to flatten: keep the list instead of copying it (a long function body
            // would otherwise be held twice while its sequence is built).
            if stmts.len() == 1 {
                return stmts.pop().expect("one element");
            }
            stmts.shrink_to_fit();
            return Stmt::synthetic(StmtKind::Seq(stmts));
        }
        let mut flat = Vec::with_capacity(stmts.len());
        for s in stmts {
            match s.kind {
                StmtKind::Seq(inner) => flat.extend(inner),
                _ => flat.push(s),
            }
        }
        if flat.len() == 1 {
            return flat.pop().expect("one element");
        }
        Stmt::synthetic(StmtKind::Seq(flat))
    }

    pub fn is_nop(&self) -> bool {
        matches!(&self.kind, StmtKind::Seq(v) if v.is_empty())
    }

    /// The one statement this one scopes over: the body of a loop, an S-TIR block or a binding
    /// statement; `None` for leaves, sequences and conditionals (which hold several).
    pub fn body(&self) -> Option<&Stmt> {
        match &self.kind {
            StmtKind::For(f) => Some(&f.body),
            StmtKind::Block(b) => Some(&b.body),
            StmtKind::Let { body, .. }
            | StmtKind::Allocate(Allocate { body, .. })
            | StmtKind::AllocBuffer { body, .. }
            | StmtKind::DeclBuffer { body, .. }
            | StmtKind::Attr(AttrStmt { body, .. })
            | StmtKind::LaunchThread { body, .. } => Some(body),
            _ => None,
        }
    }
}

#[derive(Clone, Debug, PartialEq)]
pub enum StmtKind {
    Store(BufferStore),
    /// `x: T.let[T.int32] = value` followed by `body`.
    Let {
        var: Var,
        value: Expr,
        body: Box<Stmt>,
    },
    For(Box<For>),
    If {
        cond: Expr,
        then_case: Box<Stmt>,
        else_case: Option<Box<Stmt>>,
    },
    Seq(Vec<Stmt>),
    Attr(AttrStmt),
    /// Low-level allocation of a data variable (`x = T.allocate(...)`).
    Allocate(Allocate),
    /// `B = T.alloc_buffer(...)` / `T.alloc_shared(...)` / `T.alloc_local(...)` outside blocks:
    /// allocates storage for `buffer` and declares it over `body`.
    AllocBuffer {
        buffer: Buffer,
        annotations: Annotations,
        body: Box<Stmt>,
    },
    /// `B = T.decl_buffer(..., data=X.data)`: a buffer (often an alias) over existing storage.
    DeclBuffer {
        buffer: Buffer,
        body: Box<Stmt>,
    },
    Evaluate(Expr),
    /// `T.tvm_storage_sync("shared")`: a barrier among the threads of a block.
    Barrier {
        scope: String,
    },
    /// `with T.launch_thread("threadIdx.x", 32) as tx:`.
    LaunchThread {
        var: Var,
        tag: String,
        extent: Expr,
        body: Box<Stmt>,
    },
    /// `with T.sblock(...)`, the S-TIR block.
    Block(Box<Block>),
}

impl StmtKind {
    /// The one short name of the statement's kind (`for`, `alloc_buffer`, ...), used wherever a
    /// message, a path or a diff names a kind.
    pub fn name(&self) -> &'static str {
        match self {
            StmtKind::Store(_) => "store",
            StmtKind::Let { .. } => "let",
            StmtKind::For(_) => "for",
            StmtKind::If { .. } => "if",
            StmtKind::Seq(_) => "seq",
            StmtKind::Attr(_) => "attr",
            StmtKind::Allocate(_) => "allocate",
            StmtKind::AllocBuffer { .. } => "alloc_buffer",
            StmtKind::DeclBuffer { .. } => "decl_buffer",
            StmtKind::Evaluate(_) => "evaluate",
            StmtKind::Barrier { .. } => "barrier",
            StmtKind::LaunchThread { .. } => "launch_thread",
            StmtKind::Block(_) => "block",
        }
    }
}

/// `buffer[indices] = value`.
#[derive(Clone, Debug, PartialEq)]
pub struct BufferStore {
    pub buffer: Buffer,
    pub indices: Vec<Expr>,
    pub value: Expr,
}

/// `T.attr(node, key, value)` or an entry of `T.attr({key: value})`, scoping over `body`.
#[derive(Clone, Debug, PartialEq)]
pub struct AttrStmt {
    /// The node argument of the three-argument form; `None` for the dictionary form.
    pub node: Option<Expr>,
    pub key: String,
    pub value: Expr,
    pub body: Box<Stmt>,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Allocate {
    pub data: Var,
    pub dtype: DataType,
    pub extents: Vec<Expr>,
    pub scope: String,
    pub condition: Expr,
    pub annotations: Annotations,
    pub body: Box<Stmt>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ForKind {
    Serial,
    Parallel,
    Vectorized,
    Unrolled,
    ThreadBinding,
}

impl ForKind {
    /// The TVMScript constructor (`T.serial`, ...).
    pub fn constructor(self) -> &'static str {
        match self {
            ForKind::Serial => "T.serial",
            ForKind::Parallel => "T.parallel",
            ForKind::Vectorized => "T.vectorized",
            ForKind::Unrolled => "T.unroll",
            ForKind::ThreadBinding => "T.thread_binding",
        }
    }
}

/// `for var in kind(min, min + extent, annotations=...)`.
#[derive(Clone, Debug, PartialEq)]
pub struct For {
    pub var: Var,
    pub min: Expr,
    pub extent: Expr,
    pub kind: ForKind,
    /// The thread tag of a `ThreadBinding` loop (`threadIdx.x`, `blockIdx.y`, ...).
    pub thread: Option<String>,
    pub annotations: Annotations,
    pub body: Stmt,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum IterKind {
    Spatial,
    Reduce,
}

/// A block iteration variable bound to an expression of the enclosing loops
/// (`vi = T.axis.spatial(16, i)`).
#[derive(Clone, Debug, PartialEq)]
pub struct IterVar {
    pub var: Var,
    pub min: Expr,
    pub extent: Expr,
    pub kind: IterKind,
    pub binding: Expr,
}

/// A buffer allocated by a block (`T.sblock_alloc_buffer`).
#[derive(Clone, Debug, PartialEq)]
pub struct BlockAlloc {
    pub buffer: Buffer,
    pub annotations: Annotations,
}

/// An S-TIR block with its realization (`T.where`).
#[derive(Clone, Debug, PartialEq)]
pub struct Block {
    pub name: String,
    pub iter_vars: Vec<IterVar>,
    /// `T.where(...)`; `None` means always executed.
    pub predicate: Option<Expr>,
    /// `T.reads(...)`; `None` when not written (left for analysis to infer).
    pub reads: Option<Vec<BufferRegion>>,
    pub writes: Option<Vec<BufferRegion>>,
    /// `T.attr({...})` in the block header.
    pub annotations: Annotations,
    pub alloc_buffers: Vec<BlockAlloc>,
    /// `with T.init():`.
    pub init: Option<Stmt>,
    pub body: Stmt,
}

impl Block {
    /// A block without iteration variables, predicate, written regions, annotations or init
    /// that allocates `alloc_buffers` around `body` (TVM's root block, and the blocks that hold
    /// allocations in S-TIR).
    pub fn opaque(name: impl Into<String>, alloc_buffers: Vec<BlockAlloc>, body: Stmt) -> Block {
        Block {
            name: name.into(),
            iter_vars: Vec::new(),
            predicate: None,
            reads: None,
            writes: None,
            annotations: Annotations::default(),
            alloc_buffers,
            init: None,
            body,
        }
    }
}
