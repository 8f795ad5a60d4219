//! Lowering of `for` loops: `range(...)`, `T.serial`/`T.parallel`/`T.vectorized`/`T.unroll`,
//! `T.thread_binding` and `T.grid` (nested serial loops).
//!
//! Bounds follow the printer's min/extent rule (`expr::min_extent`): one argument is the
//! extent from 0; two are `(min, end)`. The loop variable takes the extent's type (int32, or
//! int64 when the bounds are int64). Invariants: a loop whose header has an error still has
//! its body lowered (with the loop variables poisoned), so errors inside it are reported
//! without cascading from the header.

use tirproof_ir::annotation::Annotations;
use tirproof_ir::expr::Expr;
use tirproof_ir::span::Span;
use tirproof_ir::stmt::{For, ForKind, Stmt, StmtKind};
use tirproof_ir::var::Var;

use super::ast::{Ident, Kwarg, PExpr, PStmt};
use super::expr::{constant_like, min_extent};
use super::literal::{literal, Lit};
use super::lower::{Args, Lowerer, Sig};
use super::scope::Binding;
use super::stmt::Lowered;
use super::stream::{Finish, Frame, Inner};

const RANGE_SIG: Sig = Sig { name: "range", params: &["start", "stop", "step"], positional: 3, required: 1 };

macro_rules! kind_sig {
    ($name:literal) => {
        Sig { name: $name, params: &["start", "stop", "annotations"], positional: 2, required: 1 }
    };
}

const SERIAL_SIG: Sig = kind_sig!("T.serial");
const PARALLEL_SIG: Sig = kind_sig!("T.parallel");
const VECTORIZED_SIG: Sig = kind_sig!("T.vectorized");
const UNROLL_SIG: Sig = kind_sig!("T.unroll");

const THREAD_BINDING_SIG: Sig =
    Sig { name: "T.thread_binding", params: &["start", "stop", "thread", "annotations"], positional: 3, required: 1 };

/// Everything of a loop but its variable and body.
struct Header {
    min: Expr,
    extent: Expr,
    kind: ForKind,
    thread: Option<String>,
    annotations: Annotations,
}

impl Lowerer {
    /// A `for` statement. Nested loops recurse through here, `lower_opened` and `list`, so the
    /// header is read by `loop_specs` (whose frame is gone before the body is lowered).
    pub fn for_loop(&mut self, targets: &[Ident], iter: &PExpr, body: &[PStmt], span: Span) -> Lowered {
        let frame = self.open_for(targets, iter, span);
        self.lower_opened(frame, body)
    }

    /// Lowers a loop header and binds its variables for the body. After a broken header the
    /// body is still lowered, with the targets poisoned, for its own errors.
    pub fn open_for(&mut self, targets: &[Ident], iter: &PExpr, span: Span) -> Frame {
        let Some(loops) = self.loop_specs(targets, iter, span) else {
            self.scopes.push();
            for target in targets {
                self.poison(target);
            }
            // As a nested statement list: one level and one scope frame more.
            if !self.enter(1, span) {
                return Frame::skip(1);
            }
            self.scopes.push();
            return Frame::lower(2, 1, Finish::Nothing);
        };
        let levels = u32::try_from(loops.len()).unwrap_or(u32::MAX);
        let nest = Finish::Loop(LoopNest { loops, span });
        if !self.enter(levels, span) {
            // Too deep: the loops stay, with an empty body.
            return Frame { inner: Inner::Skip { scopes: 0, nested: 0 }, finish: nest };
        }
        self.scopes.push();
        if let Finish::Loop(LoopNest { loops, .. }) = &nest {
            self.bind_loop_vars(loops);
        }
        Frame::lower(1, levels, nest)
    }

    /// The loops a header makes: one, or one per extent of `T.grid`; `None` after an error.
    fn loop_specs(&mut self, targets: &[Ident], iter: &PExpr, span: Span) -> Option<Vec<LoopSpec>> {
        let Some((callee, args, kwargs)) = iter.as_call() else {
            self.unsupported_iterator(iter.span, iter.describe());
            return None;
        };
        let header = match callee.as_str() {
            "T.grid" => return self.grid_specs(targets, iter.span, args, kwargs),
            "range" => self.range_header(iter.span, args, kwargs),
            "T.serial" => self.kind_header(&SERIAL_SIG, ForKind::Serial, iter.span, args, kwargs),
            "T.parallel" => self.kind_header(&PARALLEL_SIG, ForKind::Parallel, iter.span, args, kwargs),
            "T.vectorized" => self.kind_header(&VECTORIZED_SIG, ForKind::Vectorized, iter.span, args, kwargs),
            "T.unroll" => self.kind_header(&UNROLL_SIG, ForKind::Unrolled, iter.span, args, kwargs),
            "T.thread_binding" => self.thread_header(iter.span, args, kwargs),
            _ => {
                self.unsupported_iterator(iter.span, format!("`{callee}`"));
                None
            }
        };
        let target = match targets {
            [one] => Some(one),
            _ => {
                let found = targets.len().to_string();
                self.error(span, "wrong number of loop variables", "1 loop variable", found);
                None
            }
        };
        let (header, target) = (header?, target?);
        let var = Var::new(target.name.clone(), header.extent.dtype());
        Some(vec![LoopSpec { name: target.name.clone(), var, header }])
    }

    fn unsupported_iterator(&mut self, span: Span, found: String) {
        self.error(
            span,
            "unsupported loop iterator",
            "`range(...)`, `T.serial(...)`, `T.thread_binding(...)`, `T.grid(...)`, ...",
            found,
        );
    }

    fn bind_loop_vars(&mut self, loops: &[LoopSpec]) {
        for spec in loops {
            let binding = Binding::LoopVar {
                var: spec.var.clone(),
                min: spec.header.min.clone(),
                extent: spec.header.extent.clone(),
            };
            self.scopes.bind(&spec.name, binding);
        }
    }

    /// `(min, extent)` from `start` alone (the extent) or `start, stop`.
    fn bounds(&mut self, start: &PExpr, stop: Option<&PExpr>) -> (Expr, Expr) {
        match stop {
            None => {
                let extent = self.expr(start);
                (constant_like(0, extent.dtype()), extent)
            }
            Some(stop) => {
                let (min, end) = self.unify(start, stop);
                min_extent(min, end)
            }
        }
    }

    fn range_header(&mut self, span: Span, args: &[PExpr], kwargs: &[Kwarg]) -> Option<Header> {
        let bound = self.bind_args(&RANGE_SIG, span, args, kwargs)?;
        if let Some(step) = bound.get("step") {
            if literal(step) != Some(Lit::Int(1)) {
                self.error(step.span, "loop steps other than 1 are not supported", "`1`", step.describe());
                return None;
            }
        }
        let (min, extent) = self.bounds(bound.get("start")?, bound.get("stop"));
        Some(Header { min, extent, kind: ForKind::Serial, thread: None, annotations: Annotations::new() })
    }

    fn kind_header(
        &mut self,
        sig: &'static Sig,
        kind: ForKind,
        span: Span,
        args: &[PExpr],
        kwargs: &[Kwarg],
    ) -> Option<Header> {
        let bound = self.bind_args(sig, span, args, kwargs)?;
        let (min, extent) = self.bounds(bound.get("start")?, bound.get("stop"));
        let annotations = self.loop_annotations(&bound);
        Some(Header { min, extent, kind, thread: None, annotations })
    }

    fn loop_annotations(&mut self, bound: &Args<'_>) -> Annotations {
        bound.get("annotations").map(|a| self.annotations(a)).unwrap_or_default()
    }

    /// `T.thread_binding(extent, thread="threadIdx.x")`, `T.thread_binding(a, b, thread=...)`,
    /// and the positional `T.thread_binding(extent, "threadIdx.x")`.
    fn thread_header(&mut self, span: Span, args: &[PExpr], kwargs: &[Kwarg]) -> Option<Header> {
        let bound = self.bind_args(&THREAD_BINDING_SIG, span, args, kwargs)?;
        let mut stop = bound.get("stop");
        let mut thread = bound.get("thread");
        if thread.is_none() && stop.is_some_and(|s| s.as_str().is_some()) {
            thread = stop.take();
        }
        let Some(thread) = thread else {
            self.error(
                span,
                "missing argument `thread` to `T.thread_binding`",
                "`thread=\"threadIdx.x\"`",
                "no thread",
            );
            return None;
        };
        let tag = self.string_arg(thread, "the thread tag")?;
        if !self.thread_tag_ok(&tag, thread.span) {
            return None;
        }
        let (min, extent) = self.bounds(bound.get("start")?, stop);
        let annotations = self.loop_annotations(&bound);
        Some(Header { min, extent, kind: ForKind::ThreadBinding, thread: Some(tag), annotations })
    }

    /// `for i, j in T.grid(4, 8):` is `for i in range(4): for j in range(8):`.
    fn grid_specs(
        &mut self,
        targets: &[Ident],
        call_span: Span,
        args: &[PExpr],
        kwargs: &[Kwarg],
    ) -> Option<Vec<LoopSpec>> {
        if let Some(kw) = kwargs.first() {
            self.error(
                kw.span,
                format!("unexpected keyword argument `{}` to `T.grid`", kw.name),
                "extents",
                format!("`{}`", kw.name),
            );
            return None;
        }
        if args.is_empty() || args.len() != targets.len() {
            self.error(
                call_span,
                "wrong number of loop variables for `T.grid`",
                format!("one loop variable per extent ({})", args.len()),
                targets.len().to_string(),
            );
            return None;
        }
        let mut loops = Vec::with_capacity(args.len());
        for (target, extent) in targets.iter().zip(args) {
            let extent = self.expr(extent);
            let header = Header {
                min: constant_like(0, extent.dtype()),
                kind: ForKind::Serial,
                thread: None,
                annotations: Annotations::new(),
                extent,
            };
            let var = Var::new(target.name.clone(), header.extent.dtype());
            loops.push(LoopSpec { name: target.name.clone(), var, header });
        }
        Some(loops)
    }
}

/// One loop of a header: its variable's name, the variable, and the bounds and kind.
struct LoopSpec {
    name: String,
    var: Var,
    header: Header,
}

/// The loops of one `for` header, waiting for their body.
pub(super) struct LoopNest {
    loops: Vec<LoopSpec>,
    span: Span,
}

impl LoopNest {
    pub fn wrap(self, body: Stmt) -> Stmt {
        nest_loops(self.loops, body, self.span)
    }
}

/// Builds the loop nest around `body`, the last spec innermost.
fn nest_loops(loops: Vec<LoopSpec>, body: Stmt, span: Span) -> Stmt {
    let mut stmt = body;
    for LoopSpec { var, header, .. } in loops.into_iter().rev() {
        let for_ = For {
            var,
            min: header.min,
            extent: header.extent,
            kind: header.kind,
            thread: header.thread,
            annotations: header.annotations,
            body: stmt,
        };
        stmt = Stmt::new(StmtKind::For(Box::new(for_)), span);
    }
    stmt
}
