//! Lowering of one `@T.prim_func`: decorators, parameters, the function prelude
//! (`T.func_attr`, `T.match_buffer`, symbolic `n = T.int32()`) and the body.
//!
//! Parameters are bound in two passes — scalars and handles first, then buffers — so a buffer
//! shape may use a scalar parameter written after it. A buffer parameter `A: T.Buffer(...)`
//! becomes a handle variable `A_handle` mapped to the buffer `A` (whose data variable is named
//! `A`). The prelude is the leading run of `T.func_attr`, `X = T.match_buffer(h, ...)` and
//! `n = T.int32()` statements; `T.match_buffer` maps a handle parameter that has no buffer
//! yet. The body arrives one statement at a time (`FuncBuilder`), as the grammar reads it.
//! Invariant: each function is lowered in fresh scopes and counters, so errors never leak
//! between functions.

use tirproof_ir::annotation::Annotations;
use tirproof_ir::buffer::SCOPE_GLOBAL;
use tirproof_ir::dtype::DataType;
use tirproof_ir::func::{Param, PrimFunc};
use tirproof_ir::span::Span;
use tirproof_ir::stmt::{Block, BlockAlloc, Stmt, StmtKind};
use tirproof_ir::var::Var;

use super::ast::{BodyEvent, Ident, Kwarg, PExpr, PExprKind, PFuncHeader, PIndex, PParam, PStmt, PStmtKind};
use super::buffer::{BUFFER_SIG, MATCH_BUFFER_SIG};
use super::literal::dtype_of_name;
use super::lower::Lowerer;
use super::scope::{Binding, Scopes};
use super::stmt::ListState;
use super::stream::Frames;

/// `n = T.int32()`: a symbolic variable for shapes, allowed among the prelude statements.
fn is_var_decl(target: &PExpr, value: &PExpr) -> bool {
    target.as_name().is_some()
        && value.as_call().is_some_and(|(callee, args, _)| args.is_empty() && dtype_of_name(&callee).is_some())
}

/// What a parameter annotation declares.
enum ParamKind<'a> {
    Scalar(DataType),
    /// `T.Buffer(args, kwargs)` (or the subscript form `T.Buffer[args]`).
    Buffer(Vec<PExpr>, &'a [Kwarg], Span),
}

/// A function whose body is being lowered statement by statement.
pub(super) struct FuncBuilder {
    name: String,
    span: Span,
    s_tir: bool,
    private: bool,
    params: Vec<Param>,
    attrs: Annotations,
    /// Still in the leading run of prelude statements.
    in_prelude: bool,
    /// `B = T.sblock_alloc_buffer(...)` in the prelude of an S-TIR function: the allocations
    /// of the implicit root block, as TVM prints them (the block itself only in a comment).
    root_allocs: Vec<BlockAlloc>,
    /// The `for` and `with` statements open around the next event.
    frames: Frames,
    body: ListState,
}

impl Lowerer {
    /// Starts a function: decorators and parameters, in fresh scopes.
    pub fn begin_func(&mut self, header: &PFuncHeader) -> FuncBuilder {
        self.scopes = Scopes::default();
        self.depth = 0;
        self.blocks = 0;
        self.too_deep_reported = false;
        let (s_tir, private) = self.decorators(&header.decorators, header.span);
        self.scopes.push();
        let params = self.params(&header.params);
        FuncBuilder {
            name: header.name.name.clone(),
            span: header.span,
            s_tir,
            private,
            params,
            attrs: Annotations::new(),
            in_prelude: true,
            root_allocs: Vec::new(),
            frames: Frames::default(),
            body: ListState::default(),
        }
    }

    /// Lowers the next event of the body. The prelude is the leading run of prelude
    /// statements at the function's own level.
    pub fn func_event(&mut self, f: &mut FuncBuilder, event: BodyEvent) {
        if f.in_prelude && f.frames.is_empty() {
            if let BodyEvent::Stmt(stmt) = &event {
                if self.prelude_stmt(stmt, &mut f.params, &mut f.attrs) {
                    return;
                }
                if f.s_tir && self.root_alloc(stmt, &mut f.root_allocs) {
                    return;
                }
            }
            f.in_prelude = false;
        }
        if let Some(lowered) = self.body_event(&mut f.frames, event) {
            self.absorb(lowered, &mut f.body);
        }
    }

    /// The function, once its whole body was lowered.
    pub fn end_func(&mut self, mut f: FuncBuilder) -> PrimFunc {
        if let Some(lowered) = self.close_all(&mut f.frames) {
            self.absorb(lowered, &mut f.body);
        }
        let mut body = self.fold(f.body);
        if !f.root_allocs.is_empty() {
            let alloc_buffers = std::mem::take(&mut f.root_allocs);
            body = Stmt::new(StmtKind::Block(Box::new(Block::opaque("root", alloc_buffers, body))), f.span);
        }
        self.scopes.pop();
        let FuncBuilder { name, span, s_tir, private, params, attrs, .. } = f;
        PrimFunc { name, params, attrs, body, s_tir, private, span }
    }

    /// `@T.prim_func`, `@T.prim_func(s_tir=True, private=True)`: returns (s_tir, private).
    fn decorators(&mut self, decorators: &[PExpr], span: Span) -> (bool, bool) {
        let mut found = false;
        let (mut s_tir, mut private) = (false, false);
        for d in decorators {
            if d.dotted().as_deref() == Some("T.prim_func") {
                found = true;
                continue;
            }
            match d.as_call() {
                Some((callee, [], kwargs)) if callee == "T.prim_func" => {
                    found = true;
                    for kw in kwargs {
                        let flag = match kw.name.as_str() {
                            "s_tir" => &mut s_tir,
                            "private" => &mut private,
                            _ => {
                                self.error(
                                    kw.span,
                                    format!("unexpected keyword argument `{}` to `T.prim_func`", kw.name),
                                    "`s_tir` or `private`",
                                    format!("`{}`", kw.name),
                                );
                                continue;
                            }
                        };
                        *flag = self.const_bool(&kw.value, &format!("`{}`", kw.name)).unwrap_or(false);
                    }
                }
                _ => self.error(d.span, "unsupported decorator", "`@T.prim_func`", d.describe()),
            }
        }
        if !found {
            self.error(span, "missing `@T.prim_func`", "`@T.prim_func` before `def`", "no such decorator");
        }
        (s_tir, private)
    }

    fn params(&mut self, params: &[PParam]) -> Vec<Param> {
        let mut slots: Vec<Option<Param>> = Vec::new();
        let mut buffers = Vec::new();
        for (index, param) in params.iter().enumerate() {
            if params.iter().take(index).any(|p| p.name.name == param.name.name) {
                self.error(
                    param.name.span,
                    format!("duplicate parameter `{}`", param.name.name),
                    "a new name",
                    format!("`{}`", param.name.name),
                );
            }
            match self.param_kind(&param.ann) {
                Some(ParamKind::Scalar(dtype)) => {
                    let var = Var::new(param.name.name.clone(), dtype);
                    self.scopes.bind(&param.name.name, Binding::Var(var.clone()));
                    slots.push(Some(Param { var, buffer: None }));
                }
                Some(ParamKind::Buffer(args, kwargs, span)) => {
                    buffers.push((slots.len(), &param.name, args, kwargs, span));
                    slots.push(None);
                }
                None => {
                    self.poison(&param.name);
                }
            }
        }
        for (slot, name, args, kwargs, span) in buffers {
            let param = self.buffer_param(name, &args, kwargs, span);
            if let (Some(slot), Some(param)) = (slots.get_mut(slot), param) {
                *slot = Some(param);
            }
        }
        slots.into_iter().flatten().collect()
    }

    fn param_kind<'a>(&mut self, ann: &'a PExpr) -> Option<ParamKind<'a>> {
        match &ann.kind {
            PExprKind::Call { func, args, kwargs } if func.dotted().as_deref() == Some("T.Buffer") => {
                Some(ParamKind::Buffer(args.clone(), kwargs, ann.span))
            }
            PExprKind::Subscript { value, items } if value.dotted().as_deref() == Some("T.Buffer") => {
                let args = items
                    .iter()
                    .filter_map(|item| match item {
                        PIndex::Point(e) => Some(e.clone()),
                        PIndex::Slice { .. } => None,
                    })
                    .collect();
                Some(ParamKind::Buffer(args, &[], ann.span))
            }
            // `T.handle("float32", "global")` spells a typed pointer; it is still a handle.
            PExprKind::Call { func, .. } if func.dotted().as_deref() == Some("T.handle") => {
                Some(ParamKind::Scalar(DataType::HANDLE))
            }
            _ => match ann.dotted().as_deref().and_then(dtype_of_name) {
                Some(dtype) if dtype.is_scalar() => Some(ParamKind::Scalar(dtype)),
                _ => {
                    self.error(
                        ann.span,
                        "unsupported parameter annotation",
                        "`T.Buffer(...)`, `T.handle` or a scalar type such as `T.int32`",
                        ann.describe(),
                    );
                    None
                }
            },
        }
    }

    fn buffer_param(&mut self, name: &Ident, args: &[PExpr], kwargs: &[Kwarg], span: Span) -> Option<Param> {
        let buffer = self
            .bind_args(&BUFFER_SIG, span, args, kwargs)
            .and_then(|bound| self.buffer_from_args(&name.name, &bound, SCOPE_GLOBAL, span));
        let Some(buffer) = buffer else {
            self.poison(name);
            return None;
        };
        self.scopes.bind(&name.name, Binding::Buffer(buffer.clone()));
        let var = Var::new(format!("{}_handle", name.name), DataType::HANDLE);
        Some(Param { var, buffer: Some(buffer) })
    }

    /// Reads `stmt` as a prelude statement into `attrs` and `params`; false when it is not one
    /// (the prelude ends there).
    fn prelude_stmt(&mut self, stmt: &PStmt, params: &mut [Param], attrs: &mut Annotations) -> bool {
        match &stmt.kind {
            PStmtKind::Expr(e) if e.as_call().is_some_and(|(c, ..)| c == "T.func_attr") => {
                if let Some((callee, args, kwargs)) = e.as_call() {
                    if let Some([dict]) = self.exact_args(&callee, e.span, args, kwargs, 1) {
                        for (key, value) in self.annotations(dict).entries {
                            attrs.insert(key, value);
                        }
                    }
                }
            }
            PStmtKind::Assign { target, value } if value.as_call().is_some_and(|(c, ..)| c == "T.match_buffer") => {
                self.match_buffer(target, value, params);
            }
            PStmtKind::Assign { target, value } if is_var_decl(target, value) => {
                if let (Some(name), Some(dtype)) =
                    (target.as_name(), value.as_call().and_then(|(c, ..)| dtype_of_name(&c)))
                {
                    self.scopes.bind(name, Binding::Var(Var::new(name, dtype)));
                }
            }
            _ => return false,
        }
        true
    }

    /// Reads `stmt` as an allocation of the implicit root block into `allocs`; false when it
    /// is not one.
    fn root_alloc(&mut self, stmt: &PStmt, allocs: &mut Vec<BlockAlloc>) -> bool {
        let PStmtKind::Assign { target, value } = &stmt.kind else { return false };
        let Some((callee, args, kwargs)) = value.as_call() else { return false };
        let Some(name) = target.as_name().filter(|_| callee == "T.sblock_alloc_buffer") else { return false };
        let name = Ident { name: name.to_string(), span: target.span };
        allocs.extend(self.sblock_alloc(&name, value.span, args, kwargs));
        true
    }

    /// `A = T.match_buffer(a, shape, dtype, ...)`.
    fn match_buffer(&mut self, target: &PExpr, value: &PExpr, params: &mut [Param]) {
        let Some(name) = target.as_name().map(|n| Ident { name: n.to_string(), span: target.span }) else {
            self.error(target.span, "`T.match_buffer` binds one name", "a name", target.describe());
            return;
        };
        let Some((_, args, kwargs)) = value.as_call() else {
            return;
        };
        let Some(bound) = self.bind_args(&MATCH_BUFFER_SIG, value.span, args, kwargs) else {
            self.poison(&name);
            return;
        };
        let handle = bound.get("param").and_then(|p| p.as_name().map(|n| (n, p.span)));
        let slot = handle.and_then(|(h, _)| {
            params.iter().position(|p| p.var.name() == h && p.buffer.is_none() && p.var.dtype().is_handle())
        });
        let Some(slot) = slot else {
            let found = bound.get("param").map_or_else(|| "nothing".to_string(), PExpr::describe);
            let span = handle.map_or(value.span, |(_, s)| s);
            self.error(
                span,
                "`T.match_buffer` needs a handle parameter without a buffer",
                "a `T.handle` parameter",
                found,
            );
            self.poison(&name);
            return;
        };
        let Some(buffer) = self.buffer_from_args(&name.name, &bound, SCOPE_GLOBAL, value.span) else {
            self.poison(&name);
            return;
        };
        self.scopes.bind(&name.name, Binding::Buffer(buffer.clone()));
        if let Some(param) = params.get_mut(slot) {
            param.buffer = Some(buffer);
        }
    }
}
