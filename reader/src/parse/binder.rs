//! Statements that scope over a body: the `Binder` they lower to, and the calls that make
//! them, written either over the rest of the list (`x = T.allocate(...)`, bare `T.attr(...)`)
//! or as `with call as x:`.
//!
//! `scoped_call` recognises `T.attr`, `T.launch_thread`, `T.LetStmt`, `T.allocate`,
//! `T.alloc_buffer`/`T.alloc_shared`/`T.alloc_local`, `T.decl_buffer` and `A.view(...)`
//! and returns the binder plus the name binding to add; the caller decides which scope frame
//! the name goes into. Invariants: the binding is never added here (so a `with` body can
//! get its own frame); `Binder::levels` is the IR nesting the binder adds, which the caller
//! counts against the depth limit.

use tirproof_ir::annotation::Annotations;
use tirproof_ir::buffer::Buffer;
use tirproof_ir::dtype::DataType;
use tirproof_ir::expr::Expr;
use tirproof_ir::span::Span;
use tirproof_ir::stmt::{Allocate, AttrStmt, BufferStore, Stmt, StmtKind};
use tirproof_ir::var::Var;

use super::ast::{Ident, Kwarg, PExpr, PExprKind};
use super::lower::{Lowerer, Sig};
use super::scope::{scalar_indices, Binding};

/// A statement waiting for its body.
pub(super) enum Binder {
    Let {
        var: Var,
        value: Expr,
    },
    /// One `AttrStmt` per entry, the first entry outermost.
    Attr {
        node: Option<Expr>,
        entries: Vec<(String, Expr)>,
    },
    Allocate {
        data: Var,
        dtype: DataType,
        extents: Vec<Expr>,
        scope: String,
        condition: Expr,
        annotations: Annotations,
    },
    AllocBuffer {
        buffer: Buffer,
        annotations: Annotations,
    },
    DeclBuffer {
        buffer: Buffer,
    },
    /// TVM's scalar (`x: T.float32 = e`, `x = T.local_scalar(T.float32)`): a one-element
    /// buffer, its element stored `value` first when there is one.
    Scalar {
        buffer: Buffer,
        value: Option<Expr>,
    },
    Launch {
        var: Var,
        tag: String,
        extent: Expr,
    },
}

impl Binder {
    /// How many statements deep the binder nests its body.
    pub fn levels(&self) -> u32 {
        match self {
            Binder::Attr { entries, .. } => u32::try_from(entries.len()).unwrap_or(u32::MAX),
            _ => 1,
        }
    }

    /// The statement with `body` in place.
    pub fn wrap(self, span: Span, body: Stmt) -> Stmt {
        let body = Box::new(body);
        let kind = match self {
            Binder::Let { var, value } => StmtKind::Let { var, value, body },
            Binder::Attr { node, entries } => {
                return entries.into_iter().rev().fold(*body, |inner, (key, value)| {
                    let attr = AttrStmt { node: node.clone(), key, value, body: Box::new(inner) };
                    Stmt::new(StmtKind::Attr(attr), span)
                });
            }
            Binder::Allocate { data, dtype, extents, scope, condition, annotations } => {
                StmtKind::Allocate(Allocate { data, dtype, extents, scope, condition, annotations, body })
            }
            Binder::AllocBuffer { buffer, annotations } => StmtKind::AllocBuffer { buffer, annotations, body },
            Binder::DeclBuffer { buffer } => StmtKind::DeclBuffer { buffer, body },
            Binder::Scalar { buffer, value } => {
                let body = match value {
                    Some(value) => {
                        let indices = scalar_indices(&buffer);
                        let store = BufferStore { buffer: buffer.clone(), indices, value };
                        Box::new(Stmt::seq(vec![Stmt::new(StmtKind::Store(store), span), *body]))
                    }
                    None => body,
                };
                StmtKind::AllocBuffer { buffer, annotations: Annotations::default(), body }
            }
            Binder::Launch { var, tag, extent } => StmtKind::LaunchThread { var, tag, extent, body },
        };
        Stmt::new(kind, span)
    }
}

/// The outcome of `scoped_call`.
#[expect(clippy::large_enum_variant, reason = "a short-lived return value, moved once into the statement it builds")]
pub(super) enum Scoped {
    /// The binder, and the name it binds (with what it binds it to).
    Binder { binder: Binder, bind: Option<(String, Binding)> },
    /// Not a scoping form; the caller handles it.
    NotMine,
    /// A scoping form with an error, already reported.
    Failed,
}

const LAUNCH_SIG: Sig = Sig { name: "T.launch_thread", params: &["thread", "extent"], positional: 2, required: 2 };

const LET_STMT_SIG: Sig = Sig { name: "T.LetStmt", params: &["value", "var"], positional: 1, required: 1 };

impl Lowerer {
    /// Recognises and lowers a scoping call; `name` is the assigned or `as` name, if any.
    pub fn scoped_call(&mut self, call: &PExpr, name: Option<&Ident>) -> Scoped {
        let Some((callee, args, kwargs)) = call.as_call() else {
            return Scoped::NotMine;
        };
        let span = call.span;
        match callee.as_str() {
            "T.attr" => self.attr_binder(span, args, kwargs, name),
            "T.launch_thread" => self.launch_binder(span, args, kwargs, name),
            "T.LetStmt" => self.let_stmt_binder(span, args, kwargs, name),
            "T.allocate" => self.allocate_binder(span, args, kwargs, name),
            "T.alloc_buffer" | "T.alloc_shared" | "T.alloc_local" => {
                self.alloc_buffer_binder(&callee, span, args, kwargs, name)
            }
            "T.decl_buffer" => self.decl_buffer_binder(span, args, kwargs, name),
            _ => self.view_binder(&callee, span, args, kwargs, name),
        }
    }

    /// The name a form must be assigned to; reports when there is none.
    pub fn needs_name<'n>(&mut self, callee: &str, span: Span, name: Option<&'n Ident>) -> Option<&'n Ident> {
        if name.is_none() {
            self.error(
                span,
                format!("`{callee}` must bind a name"),
                format!("`name = {callee}(...)` or `with {callee}(...) as name:`"),
                "a bare call",
            );
        }
        name
    }

    /// `T.attr({"key": value, ...})` or `T.attr(node, "key", value)`.
    fn attr_binder(&mut self, span: Span, args: &[PExpr], kwargs: &[Kwarg], name: Option<&Ident>) -> Scoped {
        if let Some(name) = name {
            self.error(name.span, "`T.attr` does not bind a name", "a bare `T.attr(...)`", format!("`{}`", name.name));
            return Scoped::Failed;
        }
        let before = self.diags.len();
        let (node, entries) = match (args, kwargs) {
            ([dict], []) => (None, self.attr_entries(dict)),
            ([node, key, value], []) => {
                let node = self.attr_node(node);
                let key = self.string_arg(key, "the attribute key");
                let value = self.expr(value);
                (Some(node), key.map(|k| vec![(k, value)]).unwrap_or_default())
            }
            _ => {
                self.wrong_count("T.attr", span, "1 argument (a dict) or 3 arguments", args.len() + kwargs.len());
                return Scoped::Failed;
            }
        };
        if self.diags.len() > before {
            return Scoped::Failed;
        }
        Scoped::Binder { binder: Binder::Attr { node, entries }, bind: None }
    }

    fn attr_entries(&mut self, dict: &PExpr) -> Vec<(String, Expr)> {
        let PExprKind::Dict(entries) = &dict.kind else {
            self.error(dict.span, "expected a dict of attributes", "`{\"key\": value, ...}`", dict.describe());
            return Vec::new();
        };
        let mut out = Vec::new();
        for (key, value) in entries {
            let key = self.dict_key(key);
            let value = self.expr(value);
            if let Some(key) = key {
                out.push((key, value));
            }
        }
        out
    }

    /// The node of a three-argument `T.attr`: an expression, or a buffer's data variable.
    fn attr_node(&mut self, node: &PExpr) -> Expr {
        if let Some(Binding::Buffer(buffer)) = node.as_name().and_then(|n| self.scopes.lookup(n)) {
            return Expr::var(buffer.data());
        }
        self.expr(node)
    }

    /// `tx = T.launch_thread("threadIdx.x", 32)`, or `T.launch_thread(env, 32)` for a variable
    /// made by `T.env_thread`.
    fn launch_binder(&mut self, span: Span, args: &[PExpr], kwargs: &[Kwarg], name: Option<&Ident>) -> Scoped {
        let Some(bound) = self.bind_args(&LAUNCH_SIG, span, args, kwargs) else {
            return Scoped::Failed;
        };
        let (Some(thread), Some(extent)) = (bound.get("thread"), bound.get("extent")) else {
            return Scoped::Failed;
        };
        let extent = self.expr(extent);
        let env = thread.as_name().and_then(|n| match self.scopes.lookup(n) {
            Some(Binding::EnvThread { var, tag }) => Some((var.clone(), tag.clone())),
            _ => None,
        });
        let (var, tag) = match env {
            Some(found) => found,
            None => {
                let Some(tag) = self.string_arg(thread, "the thread tag") else {
                    return Scoped::Failed;
                };
                let Some(name) = self.needs_name("T.launch_thread", span, name) else {
                    return Scoped::Failed;
                };
                let dtype = extent.dtype();
                let dtype = if dtype.is_integer() && dtype.is_scalar() { dtype } else { DataType::INT32 };
                (Var::new(name.name.clone(), dtype), tag)
            }
        };
        if !self.thread_tag_ok(&tag, thread.span) {
            return Scoped::Failed;
        }
        let bind = name.map(|n| (n.name.clone(), Binding::Var(var.clone())));
        Scoped::Binder { binder: Binder::Launch { var, tag, extent }, bind }
    }

    /// Reports an unknown thread tag.
    pub fn thread_tag_ok(&mut self, tag: &str, span: Span) -> bool {
        if tirproof_ir::ThreadTag::parse(tag).is_some() {
            return true;
        }
        self.error(
            span,
            format!("unknown thread tag `{tag}`"),
            "a tag such as \"threadIdx.x\", \"blockIdx.y\" or \"vthread\"",
            format!("string {tag:?}"),
        );
        false
    }

    /// `tx = T.env_thread("threadIdx.x")`.
    pub fn env_thread(&mut self, name: &Ident, span: Span, args: &[PExpr], kwargs: &[Kwarg]) -> super::stmt::Lowered {
        let tag = match self.exact_args("T.env_thread", span, args, kwargs, 1) {
            Some([tag]) => self.string_arg(tag, "the thread tag"),
            _ => None,
        };
        let Some(tag) = tag.filter(|t| self.thread_tag_ok(t, span)) else {
            return self.poison(name);
        };
        let var = Var::new(name.name.clone(), DataType::INT32);
        self.scopes.bind(&name.name, Binding::EnvThread { var, tag });
        super::stmt::Lowered::Nothing
    }

    /// `with T.LetStmt(value) as x:`.
    fn let_stmt_binder(&mut self, span: Span, args: &[PExpr], kwargs: &[Kwarg], name: Option<&Ident>) -> Scoped {
        let Some(bound) = self.bind_args(&LET_STMT_SIG, span, args, kwargs) else {
            return Scoped::Failed;
        };
        let Some(value) = bound.get("value") else {
            return Scoped::Failed;
        };
        let value = self.expr(value);
        let Some(name) = self.needs_name("T.LetStmt", span, name) else {
            return Scoped::Failed;
        };
        let var = Var::new(name.name.clone(), value.dtype());
        Scoped::Binder {
            bind: Some((name.name.clone(), Binding::Var(var.clone()))),
            binder: Binder::Let { var, value },
        }
    }
}
