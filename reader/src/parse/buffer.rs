//! Buffers: the arguments shared by `T.Buffer`, `T.match_buffer`, `T.decl_buffer`,
//! `T.alloc_buffer`/`T.alloc_shared`/`T.alloc_local` and `T.sblock_alloc_buffer`, and the
//! allocation and declaration statements built from them (`T.allocate`, `A.view(...)`).
//!
//! Defaults follow TVMScript: dtype "float32", scope "global" (or "shared"/"local" for the
//! shorthands), compact strides, element offset 0, and a fresh data variable named like the
//! buffer unless `data=` names an existing handle (which makes the new buffer an alias, as in
//! `T.decl_buffer(..., data=A.data)` and `A.view(...)`). Invariant: a buffer is only built
//! when every argument lowered without error; otherwise the caller poisons the name.

use tirproof_ir::annotation::Annotations;
use tirproof_ir::buffer::{Buffer, BufferSpec, SCOPE_GLOBAL, SCOPE_LOCAL, SCOPE_SHARED};
use tirproof_ir::dtype::DataType;
use tirproof_ir::expr::Expr;
use tirproof_ir::span::Span;
use tirproof_ir::var::Var;

use super::ast::{Ident, Kwarg, PExpr, PExprKind};
use super::binder::{Binder, Scoped};
use super::lower::{Args, Lowerer, Sig};
use super::scope::Binding;

/// Parameters every buffer constructor accepts, in TVMScript's positional order, between
/// constructor-specific leading (`param`) and trailing (`annotations`) ones.
macro_rules! buffer_sig {
    ($name:literal, [$($lead:literal),*], [$($tail:literal),*], $required:literal) => {
        Sig {
            name: $name,
            params: &[
                $($lead,)* "shape", "dtype", "data", "strides", "elem_offset", "scope", "align", "offset_factor",
                "buffer_type", "axis_separators", $($tail,)*
            ],
            positional: usize::MAX,
            required: $required,
        }
    };
}

pub(super) const BUFFER_SIG: Sig = buffer_sig!("T.Buffer", [], [], 1);
pub(super) const MATCH_BUFFER_SIG: Sig = buffer_sig!("T.match_buffer", ["param"], [], 2);
pub(super) const SBLOCK_ALLOC_SIG: Sig = buffer_sig!("T.sblock_alloc_buffer", [], ["annotations"], 1);
const DECL_BUFFER_SIG: Sig = buffer_sig!("T.decl_buffer", [], [], 1);
const ALLOC_BUFFER_SIG: Sig = buffer_sig!("T.alloc_buffer", [], ["annotations"], 1);
const ALLOC_SHARED_SIG: Sig = buffer_sig!("T.alloc_shared", [], ["annotations"], 1);
const ALLOC_LOCAL_SIG: Sig = buffer_sig!("T.alloc_local", [], ["annotations"], 1);

const ALLOCATE_SIG: Sig = Sig {
    name: "T.allocate",
    params: &["extents", "dtype", "scope", "condition", "annotations"],
    positional: 4,
    required: 2,
};

impl Lowerer {
    /// The buffer described by `args`, named `name`; `None` after reporting an error.
    pub fn buffer_from_args(&mut self, name: &str, args: &Args<'_>, default_scope: &str, span: Span) -> Option<Buffer> {
        let before = self.diags.len();
        let shape = match args.get("shape") {
            Some(shape) => self.shape(shape),
            None => {
                self.error(span, "missing argument `shape`", "a shape such as `(16,)`", "nothing");
                Vec::new()
            }
        };
        let dtype = match args.get("dtype") {
            Some(dtype) => self.dtype_arg(dtype).unwrap_or(DataType::FLOAT32),
            None => DataType::FLOAT32,
        };
        let data = match args.get("data") {
            Some(data) => self.data_var(data),
            None => Some(Var::new(name, DataType::HANDLE)),
        };
        let mut spec = BufferSpec::new(name, dtype, shape, default_scope);
        if let Some(data) = data {
            spec.data = data;
        }
        self.buffer_options(args, &mut spec);
        (self.diags.len() == before).then(|| spec.build())
    }

    /// Strides, offset, scope, alignment and the accepted-but-ignored options.
    fn buffer_options(&mut self, args: &Args<'_>, spec: &mut BufferSpec) {
        if let Some(strides) = args.get("strides") {
            spec.strides = self.shape(strides);
        }
        if let Some(offset) = args.get("elem_offset") {
            spec.elem_offset = self.expr(offset);
        }
        if let Some(scope) = args.get("scope").and_then(|s| self.string_arg(s, "the storage scope")) {
            spec.scope = scope;
        }
        if let Some(align) = args.get("align").and_then(|a| self.const_int(a, "`align`")) {
            spec.align = align;
        }
        if let Some(factor) = args.get("offset_factor").and_then(|f| self.const_int(f, "`offset_factor`")) {
            spec.offset_factor = factor;
        }
        if let Some(kind) = args.get("buffer_type") {
            // "default" or "auto": only TVM's own passes care.
            self.string_arg(kind, "`buffer_type`");
        }
        if let Some(separators) = args.get("axis_separators") {
            if !matches!(&separators.kind, PExprKind::List(items) | PExprKind::Tuple(items) if items.is_empty()) {
                self.error(
                    separators.span,
                    "axis separators are not supported",
                    "`axis_separators=[]`",
                    separators.describe(),
                );
            }
        }
    }

    /// A shape or stride list: a tuple, a list, or a single extent.
    pub fn shape(&mut self, e: &PExpr) -> Vec<Expr> {
        match &e.kind {
            PExprKind::Tuple(items) | PExprKind::List(items) => items.iter().map(|d| self.extent(d)).collect(),
            _ => vec![self.extent(e)],
        }
    }

    /// One extent of a shape. A string names a symbolic extent (TVM prints `("n",)` for an
    /// extent variable not defined yet where it prints the buffer, such as a scalar parameter
    /// after the buffer's): the variable of that name, or a new `int32` one bound here.
    fn extent(&mut self, e: &PExpr) -> Expr {
        let PExprKind::Str(name) = &e.kind else { return self.expr(e) };
        if let Some(var) = self.scopes.lookup(name).and_then(|b| b.var().cloned()) {
            return Expr::var(&var);
        }
        let var = Var::new(name.clone(), DataType::INT32);
        self.scopes.bind(name, Binding::Var(var.clone()));
        Expr::var(&var)
    }

    /// The handle variable named by `data=` (`A.data`, or an allocated variable).
    fn data_var(&mut self, e: &PExpr) -> Option<Var> {
        match self.expr(e) {
            Expr::Var(var) if var.dtype().is_handle() => Some(var),
            _ => {
                self.error(e.span, "`data=` must be a handle variable", "e.g. `A.data`", e.describe());
                None
            }
        }
    }

    fn annotations_arg(&mut self, args: &Args<'_>) -> Annotations {
        args.get("annotations").map(|a| self.annotations(a)).unwrap_or_default()
    }

    /// `x = T.allocate([16], "float32", "shared")`.
    pub fn allocate_binder(&mut self, span: Span, args: &[PExpr], kwargs: &[Kwarg], name: Option<&Ident>) -> Scoped {
        let Some(name) = self.needs_name("T.allocate", span, name) else {
            return Scoped::Failed;
        };
        let Some(bound) = self.bind_args(&ALLOCATE_SIG, span, args, kwargs) else {
            return Scoped::Failed;
        };
        let before = self.diags.len();
        let extents = bound.get("extents").map(|e| self.shape(e)).unwrap_or_default();
        let dtype = bound.get("dtype").and_then(|d| self.dtype_arg(d));
        let scope = match bound.get("scope") {
            Some(scope) => self.string_arg(scope, "the storage scope"),
            None => Some(SCOPE_GLOBAL.to_string()),
        };
        let condition = bound.get("condition").map_or_else(|| Expr::bool(true), |c| self.expr(c));
        let annotations = self.annotations_arg(&bound);
        let (Some(dtype), Some(scope)) = (dtype, scope) else {
            return Scoped::Failed;
        };
        if self.diags.len() > before {
            return Scoped::Failed;
        }
        let data = Var::new(name.name.clone(), DataType::HANDLE);
        Scoped::Binder {
            bind: Some((name.name.clone(), Binding::Var(data.clone()))),
            binder: Binder::Allocate { data, dtype, extents, scope, condition, annotations },
        }
    }

    /// `B = T.alloc_buffer(...)`, `T.alloc_shared(...)`, `T.alloc_local(...)` outside blocks.
    pub fn alloc_buffer_binder(
        &mut self,
        callee: &str,
        span: Span,
        args: &[PExpr],
        kwargs: &[Kwarg],
        name: Option<&Ident>,
    ) -> Scoped {
        let (sig, scope) = match callee {
            "T.alloc_shared" => (&ALLOC_SHARED_SIG, SCOPE_SHARED),
            "T.alloc_local" => (&ALLOC_LOCAL_SIG, SCOPE_LOCAL),
            _ => (&ALLOC_BUFFER_SIG, SCOPE_GLOBAL),
        };
        let Some(name) = self.needs_name(callee, span, name) else {
            return Scoped::Failed;
        };
        let Some(bound) = self.bind_args(sig, span, args, kwargs) else {
            return Scoped::Failed;
        };
        let annotations = self.annotations_arg(&bound);
        let Some(buffer) = self.buffer_from_args(&name.name, &bound, scope, span) else {
            return Scoped::Failed;
        };
        Scoped::Binder {
            bind: Some((name.name.clone(), Binding::Buffer(buffer.clone()))),
            binder: Binder::AllocBuffer { buffer, annotations },
        }
    }

    /// `A_1 = T.decl_buffer((16,), "float32", data=A.data)`.
    pub fn decl_buffer_binder(&mut self, span: Span, args: &[PExpr], kwargs: &[Kwarg], name: Option<&Ident>) -> Scoped {
        let Some(name) = self.needs_name("T.decl_buffer", span, name) else {
            return Scoped::Failed;
        };
        let Some(bound) = self.bind_args(&DECL_BUFFER_SIG, span, args, kwargs) else {
            return Scoped::Failed;
        };
        match self.buffer_from_args(&name.name, &bound, SCOPE_GLOBAL, span) {
            Some(buffer) => Scoped::Binder {
                bind: Some((name.name.clone(), Binding::Buffer(buffer.clone()))),
                binder: Binder::DeclBuffer { buffer },
            },
            None => Scoped::Failed,
        }
    }

    /// `A_1 = A.view(512)` / `A.view((16, 32))`: an alias of `A` with a new shape.
    pub fn view_binder(
        &mut self,
        callee: &str,
        span: Span,
        args: &[PExpr],
        kwargs: &[Kwarg],
        name: Option<&Ident>,
    ) -> Scoped {
        let Some(base) = callee.strip_suffix(".view").and_then(|b| self.scopes.buffer(b)).cloned() else {
            return Scoped::NotMine;
        };
        let Some(name) = self.needs_name(callee, span, name) else {
            return Scoped::Failed;
        };
        let before = self.diags.len();
        let shape = match args {
            [single] => self.shape(single),
            _ => args.iter().map(|d| self.expr(d)).collect(),
        };
        let mut dtype = base.dtype();
        for kw in kwargs {
            if kw.name == "dtype" {
                dtype = self.dtype_arg(&kw.value).unwrap_or(dtype);
            } else {
                self.error(
                    kw.span,
                    format!("unexpected keyword argument `{}` to `{callee}`", kw.name),
                    "`dtype`",
                    format!("`{}`", kw.name),
                );
            }
        }
        if shape.is_empty() || self.diags.len() > before {
            if shape.is_empty() {
                self.wrong_count(callee, span, "a shape", 0);
            }
            return Scoped::Failed;
        }
        let mut spec = base.to_spec();
        spec.name = name.name.clone();
        spec.dtype = dtype;
        spec.shape = shape;
        spec.strides = Vec::new();
        let buffer = spec.build();
        Scoped::Binder {
            bind: Some((name.name.clone(), Binding::Buffer(buffer.clone()))),
            binder: Binder::DeclBuffer { buffer },
        }
    }
}
