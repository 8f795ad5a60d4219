//! The lowering context shared by the files that turn surface syntax into IR, and call
//! argument binding against TVMScript signatures.
//!
//! `Lowerer` owns the scopes, the collected diagnostics and two counters: the IR nesting depth
//! (statement lists plus binders that scope over the rest of a list, capped at `MAX_IR_DEPTH`
//! so that later recursive passes cannot overflow) and the number of enclosing `T.sblock`
//! bodies (for block-only forms). Invariant: lowering never stops at an error; it reports it,
//! substitutes a placeholder (`Expr::int(0)`, an empty statement or a poisoned name) and goes
//! on, so independent errors in one function are all reported.

use tirproof_ir::diag::Diagnostic;
use tirproof_ir::expr::Expr;
use tirproof_ir::span::Span;

use super::ast::{Kwarg, PExpr};
use super::scope::Scopes;
use super::MAX_IR_DEPTH;

pub(super) struct Lowerer {
    pub scopes: Scopes,
    pub diags: Vec<Diagnostic>,
    /// IR statement nesting of the statement being built.
    pub depth: u32,
    /// Number of enclosing `T.sblock` bodies.
    pub blocks: u32,
    /// "nesting too deep" was reported in this function (once is enough).
    pub too_deep_reported: bool,
}

impl Lowerer {
    pub fn new() -> Self {
        Lowerer { scopes: Scopes::default(), diags: Vec::new(), depth: 0, blocks: 0, too_deep_reported: false }
    }

    pub fn error(
        &mut self,
        span: Span,
        message: impl Into<String>,
        expected: impl Into<String>,
        found: impl Into<String>,
    ) {
        self.diags.push(Diagnostic::error(span, message).expected(expected, found));
    }

    /// Reports an error and returns the placeholder expression used in its place.
    pub fn bad_expr(
        &mut self,
        span: Span,
        message: impl Into<String>,
        expected: impl Into<String>,
        found: impl Into<String>,
    ) -> Expr {
        self.error(span, message, expected, found);
        Expr::int(0)
    }

    /// Enters one more level of IR nesting; false (after reporting) when that is too deep.
    pub fn enter(&mut self, levels: u32, span: Span) -> bool {
        let next = self.depth.saturating_add(levels);
        if next > MAX_IR_DEPTH {
            if std::mem::replace(&mut self.too_deep_reported, true) {
                return false;
            }
            self.error(span, "nesting too deep", format!("at most {MAX_IR_DEPTH} nested statements"), "more");
            return false;
        }
        self.depth = next;
        true
    }

    pub fn leave(&mut self, levels: u32) {
        self.depth = self.depth.saturating_sub(levels);
    }

    /// Checks a call with exactly `count` positional arguments and no keywords.
    pub fn exact_args<'a>(
        &mut self,
        callee: &str,
        span: Span,
        args: &'a [PExpr],
        kwargs: &[Kwarg],
        count: usize,
    ) -> Option<&'a [PExpr]> {
        if let Some(kw) = kwargs.first() {
            self.unexpected_keyword(callee, kw);
            return None;
        }
        if args.len() != count {
            self.wrong_count(callee, span, &plural(count, "argument"), args.len());
            return None;
        }
        Some(args)
    }

    pub fn wrong_count(&mut self, callee: &str, span: Span, expected: &str, found: usize) {
        self.error(span, format!("wrong number of arguments to `{callee}`"), expected, found.to_string());
    }

    fn unexpected_keyword(&mut self, callee: &str, kw: &Kwarg) {
        self.error(
            kw.span,
            format!("unexpected keyword argument `{}` to `{callee}`", kw.name),
            "a known argument name",
            format!("`{}`", kw.name),
        );
    }

    /// Matches positional and keyword arguments to the parameters of `sig`.
    pub fn bind_args<'a>(
        &mut self,
        sig: &'static Sig,
        span: Span,
        args: &'a [PExpr],
        kwargs: &'a [Kwarg],
    ) -> Option<Args<'a>> {
        let max_positional = sig.positional.min(sig.params.len());
        if args.len() > max_positional {
            let expected = format!("at most {}", plural(max_positional, "positional argument"));
            self.wrong_count(sig.name, span, &expected, args.len());
            return None;
        }
        let mut slots: Vec<Option<&'a PExpr>> = vec![None; sig.params.len()];
        for (slot, arg) in slots.iter_mut().zip(args) {
            *slot = Some(arg);
        }
        for kw in kwargs {
            let Some(index) = sig.params.iter().position(|p| *p == kw.name) else {
                self.unexpected_keyword(sig.name, kw);
                return None;
            };
            let slot = slots.get_mut(index)?;
            if slot.is_some() {
                self.error(
                    kw.span,
                    format!("argument `{}` of `{}` given twice", kw.name, sig.name),
                    "each argument once",
                    format!("`{}` again", kw.name),
                );
                return None;
            }
            *slot = Some(&kw.value);
        }
        for (name, slot) in sig.params.iter().zip(&slots).take(sig.required) {
            if slot.is_none() {
                self.error(
                    span,
                    format!("missing argument `{name}` to `{}`", sig.name),
                    format!("a value for `{name}`"),
                    plural(args.len() + kwargs.len(), "argument"),
                );
                return None;
            }
        }
        Some(Args { sig, slots })
    }
}

/// "1 argument", "2 arguments".
pub(super) fn plural(count: usize, noun: &str) -> String {
    if count == 1 {
        format!("1 {noun}")
    } else {
        format!("{count} {noun}s")
    }
}

/// A TVMScript function signature: parameter names in order, how many may be positional and
/// how many leading ones are required.
#[derive(Debug)]
pub(super) struct Sig {
    pub name: &'static str,
    pub params: &'static [&'static str],
    pub positional: usize,
    pub required: usize,
}

/// Arguments matched to a signature.
pub(super) struct Args<'a> {
    sig: &'static Sig,
    slots: Vec<Option<&'a PExpr>>,
}

impl<'a> Args<'a> {
    /// The argument for parameter `name`, if given (`None` literals count as not given).
    pub fn get(&self, name: &str) -> Option<&'a PExpr> {
        let index = self.sig.params.iter().position(|p| *p == name)?;
        let arg = (*self.slots.get(index)?)?;
        (arg.kind != super::ast::PExprKind::NoneLit).then_some(arg)
    }
}
