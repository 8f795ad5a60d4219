//! The surface syntax tree: what the grammar recognised, before names are resolved.
//!
//! The grammar (`grammar_*.rs`) builds these nodes from tokens; the lowering (`func.rs`,
//! `stmt.rs`, `expr.rs`, ...) turns them into IR. Keeping the two apart lets the lowering look
//! at a whole statement (`x = T.allocate(...)` versus `x = a + b`) before deciding what it is,
//! and lets literal typing see which operands were bare literals.
//!
//! Invariants: every node has the span of its first token; `PExpr::depth` is the nesting below
//! it (a leaf is 1; the left operand of a binary operator is at its own level, so a flat chain
//! `a + b + ...` has depth 2), and the grammar never builds a node deeper than `MAX_NESTING`.
//! Walks over left operands must therefore loop, or run on a stack sized for long chains (the
//! CLI's, see `docs/limits.md`).

use tirproof_ir::expr::{BinOp, CmpOp, LogicOp};
use tirproof_ir::span::Span;

#[derive(Clone, Debug, PartialEq)]
pub(super) struct PExpr {
    pub kind: PExprKind,
    pub span: Span,
    pub depth: u32,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum UnaryOp {
    Neg,
    Pos,
    Invert,
    Not,
}

/// An infix arithmetic operator: an IR operator, or `**` (which has no IR node).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum ArithOp {
    Op(BinOp),
    Pow,
}

#[derive(Clone, Debug, PartialEq)]
pub(super) enum PExprKind {
    Name(String),
    Int(u64),
    Float(f64),
    Str(String),
    Bool(bool),
    NoneLit,
    /// `value.name`.
    Attr {
        value: Box<PExpr>,
        name: String,
    },
    Call {
        func: Box<PExpr>,
        args: Vec<PExpr>,
        kwargs: Vec<Kwarg>,
    },
    /// `value[items]`.
    Subscript {
        value: Box<PExpr>,
        items: Vec<PIndex>,
    },
    Tuple(Vec<PExpr>),
    List(Vec<PExpr>),
    Dict(Vec<(PExpr, PExpr)>),
    Unary {
        op: UnaryOp,
        operand: Box<PExpr>,
    },
    Arith {
        op: ArithOp,
        lhs: Box<PExpr>,
        rhs: Box<PExpr>,
    },
    Cmp {
        op: CmpOp,
        lhs: Box<PExpr>,
        rhs: Box<PExpr>,
    },
    Logic {
        op: LogicOp,
        lhs: Box<PExpr>,
        rhs: Box<PExpr>,
    },
}

/// `name=value` in a call.
#[derive(Clone, Debug, PartialEq)]
pub(super) struct Kwarg {
    pub name: String,
    pub span: Span,
    pub value: PExpr,
}

/// One item of a subscript: a point `e` or a slice `lo:hi[:step]`.
#[derive(Clone, Debug, PartialEq)]
pub(super) enum PIndex {
    Point(PExpr),
    Slice { lo: PExpr, hi: PExpr, step: Option<PExpr>, span: Span },
}

impl PIndex {
    pub fn depth(&self) -> u32 {
        match self {
            PIndex::Point(e) => e.depth,
            PIndex::Slice { lo, hi, step, .. } => lo.depth.max(hi.depth).max(step.as_ref().map_or(0, |s| s.depth)),
        }
    }
}

impl PExpr {
    /// A node; its depth is one more than its deepest child.
    pub fn new(kind: PExprKind, span: Span) -> Self {
        let depth = 1 + kind.child_depth();
        PExpr { kind, span, depth }
    }

    /// `a.b.c` as a string, when the expression is only names and dots.
    pub fn dotted(&self) -> Option<String> {
        match &self.kind {
            PExprKind::Name(name) => Some(name.clone()),
            PExprKind::Attr { value, name } => Some(format!("{}.{name}", value.dotted()?)),
            _ => None,
        }
    }

    /// The callee's dotted name, arguments and keywords, if this is a call.
    pub fn as_call(&self) -> Option<(String, &[PExpr], &[Kwarg])> {
        match &self.kind {
            PExprKind::Call { func, args, kwargs } => Some((func.dotted()?, args, kwargs)),
            _ => None,
        }
    }

    pub fn as_name(&self) -> Option<&str> {
        match &self.kind {
            PExprKind::Name(name) => Some(name),
            _ => None,
        }
    }

    pub fn as_str(&self) -> Option<&str> {
        match &self.kind {
            PExprKind::Str(text) => Some(text),
            _ => None,
        }
    }

    /// True for a bare number literal, possibly negated (`3`, `-1.5`): the operands that
    /// literal typing adapts to the other side.
    pub fn is_number_literal(&self) -> bool {
        match &self.kind {
            PExprKind::Int(_) | PExprKind::Float(_) => true,
            PExprKind::Unary { op: UnaryOp::Neg | UnaryOp::Pos, operand } => operand.is_number_literal(),
            _ => false,
        }
    }

    /// A short description for "found ..." in diagnostics.
    pub fn describe(&self) -> String {
        match &self.kind {
            PExprKind::Name(name) => format!("`{name}`"),
            PExprKind::Int(v) => format!("`{v}`"),
            PExprKind::Float(v) => format!("`{v:?}`"),
            PExprKind::Str(s) => format!("string {s:?}"),
            PExprKind::Bool(b) => format!("`{}`", if *b { "True" } else { "False" }),
            PExprKind::NoneLit => "`None`".to_string(),
            PExprKind::Call { func, .. } => match func.dotted() {
                Some(name) => format!("a call to `{name}`"),
                None => "a call".to_string(),
            },
            PExprKind::Tuple(_) => "a tuple".to_string(),
            PExprKind::List(_) => "a list".to_string(),
            PExprKind::Dict(_) => "a dict".to_string(),
            _ => match self.dotted() {
                Some(name) => format!("`{name}`"),
                None => "an expression".to_string(),
            },
        }
    }
}

impl PExprKind {
    fn child_depth(&self) -> u32 {
        let max_of = |items: &[PExpr]| items.iter().map(|e| e.depth).max().unwrap_or(0);
        match self {
            PExprKind::Name(_)
            | PExprKind::Int(_)
            | PExprKind::Float(_)
            | PExprKind::Str(_)
            | PExprKind::Bool(_)
            | PExprKind::NoneLit => 0,
            PExprKind::Attr { value, .. } => value.depth,
            PExprKind::Call { func, args, kwargs } => {
                func.depth.max(max_of(args)).max(kwargs.iter().map(|k| k.value.depth).max().unwrap_or(0))
            }
            PExprKind::Subscript { value, items } => {
                value.depth.max(items.iter().map(PIndex::depth).max().unwrap_or(0))
            }
            PExprKind::Tuple(items) | PExprKind::List(items) => max_of(items),
            PExprKind::Dict(entries) => entries.iter().map(|(k, v)| k.depth.max(v.depth)).max().unwrap_or(0),
            PExprKind::Unary { operand, .. } => operand.depth,
            // A left operand is not nested: `a + b + c` is a flat chain however long (the
            // grammar builds it in a loop), while a right operand nests as brackets do.
            PExprKind::Arith { lhs, rhs, .. } | PExprKind::Cmp { lhs, rhs, .. } | PExprKind::Logic { lhs, rhs, .. } => {
                lhs.depth.saturating_sub(1).max(rhs.depth)
            }
        }
    }
}

/// A name with where it was written (a binding target).
#[derive(Clone, Debug, PartialEq)]
pub(super) struct Ident {
    pub name: String,
    pub span: Span,
}

#[derive(Clone, Debug, PartialEq)]
pub(super) struct PStmt {
    pub kind: PStmtKind,
    pub span: Span,
}

#[derive(Clone, Debug, PartialEq)]
pub(super) enum PStmtKind {
    /// A bare expression, usually a call such as `T.evaluate(0)`.
    Expr(PExpr),
    /// `target = value`; the target is a name, a tuple of names or a subscript.
    Assign {
        target: PExpr,
        value: PExpr,
    },
    /// `name: annotation = value`.
    /// `name: ann = value`, or `name: ann` alone (TVM's declaration of a scalar).
    AnnAssign {
        name: Ident,
        ann: PExpr,
        value: Option<PExpr>,
    },
    For {
        targets: Vec<Ident>,
        iter: PExpr,
        body: Vec<PStmt>,
    },
    /// `if` with its `elif` branches in order, and the final `else`.
    If {
        branches: Vec<(PExpr, Vec<PStmt>)>,
        else_body: Option<Vec<PStmt>>,
    },
    /// `with item [as targets]:`.
    With {
        item: PExpr,
        targets: Vec<Ident>,
        body: Vec<PStmt>,
    },
    Pass,
}

/// `name: annotation` in a parameter list.
#[derive(Clone, Debug, PartialEq)]
pub(super) struct PParam {
    pub name: Ident,
    pub ann: PExpr,
}

/// A `def` line with its decorators; the body is handed out statement by statement after it
/// (`grammar_file::ItemSink`), so a whole function's syntax tree is never held at once.
#[derive(Clone, Debug, PartialEq)]
pub(super) struct PFuncHeader {
    pub name: Ident,
    pub decorators: Vec<PExpr>,
    pub params: Vec<PParam>,
    pub span: Span,
}

/// How the grammar finished a function's body.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum FuncEnd {
    /// Read to its end. `end` is where its last token starts; `had_errors`: the grammar
    /// reported an error inside it, so lowering it would only repeat consequences of that error.
    Read { end: Span, had_errors: bool },
    /// The body could not be read (a broken one-line body): the function is skipped whole.
    Abandoned,
}

/// `@I.ir_module class Name:`.
#[derive(Clone, Debug, PartialEq)]
pub(super) struct PClass {
    pub name: Ident,
    pub decorators: Vec<PExpr>,
}

/// What the statement grammar hands out as it reads a block: complete statements, and the
/// `for` and `with` statements as an `Open` (the statement with an empty body), the events of
/// their body, and a `Close`. So a reader can lower a loop's statements one by one instead of
/// holding the loop's whole syntax tree.
#[derive(Clone, Debug, PartialEq)]
pub(super) enum BodyEvent {
    Stmt(PStmt),
    Open(PStmt),
    Close,
}

/// Builds syntax trees back from `BodyEvent`s. Invariant: `open` holds the statements opened
/// and not yet closed, outermost first, each with the body read so far.
#[derive(Debug, Default)]
pub(super) struct TreeBuilder {
    open: Vec<PStmt>,
}

impl TreeBuilder {
    /// A builder inside `root`, which its own `Close` completes.
    pub fn rooted(root: PStmt) -> Self {
        TreeBuilder { open: vec![root] }
    }

    /// Whether a statement is open (its `Close` not yet taken).
    pub fn is_open(&self) -> bool {
        !self.open.is_empty()
    }

    /// Takes one event; returns a statement completed outside every open one.
    pub fn event(&mut self, event: BodyEvent) -> Option<PStmt> {
        let done = match event {
            BodyEvent::Stmt(stmt) => stmt,
            BodyEvent::Open(stmt) => {
                self.open.push(stmt);
                return None;
            }
            BodyEvent::Close => self.open.pop()?,
        };
        match self.open.last_mut().and_then(PStmt::body_mut) {
            Some(body) => {
                body.push(done);
                None
            }
            None => Some(done),
        }
    }
}

impl PStmt {
    /// The body of a `for` or `with` statement (the statements `BodyEvent::Open` opens).
    fn body_mut(&mut self) -> Option<&mut Vec<PStmt>> {
        match &mut self.kind {
            PStmtKind::For { body, .. } | PStmtKind::With { body, .. } => Some(body),
            _ => None,
        }
    }
}
