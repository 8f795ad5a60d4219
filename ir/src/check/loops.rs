//! Loop kinds, thread tags and the extents they require.
//!
//! Rules: a `T.thread_binding` loop names a valid thread tag (`thread::ThreadTag`) and
//! other loops name none; thread loops and thread launches have a positive constant or a
//! variable extent (the launch size must be known when the kernel starts); a vectorized loop
//! has a constant positive extent (it becomes a vector of that many lanes).

use super::Checker;
use crate::expr::Expr;
use crate::print::print_expr;
use crate::stmt::{For, ForKind};
use crate::thread::ThreadTag;
use crate::var::Var;

impl Checker {
    pub(super) fn check_loop_kind(&mut self, f: &For) {
        self.check_loop_tag(f);
        match f.kind {
            ForKind::ThreadBinding => {
                self.check_thread_extent(&f.extent, format_args!("thread-binding loop `{}`", f.var));
            }
            ForKind::Vectorized => self.check_vector_extent(f),
            ForKind::Serial | ForKind::Parallel | ForKind::Unrolled => {}
        }
    }

    fn check_loop_tag(&mut self, f: &For) {
        match (f.kind, &f.thread) {
            (ForKind::ThreadBinding, None) => {
                self.error(format!("thread-binding loop `{}` has no thread tag", f.var));
            }
            (ForKind::ThreadBinding, Some(tag)) if ThreadTag::parse(tag).is_none() => {
                self.error(format!("unknown thread tag `{tag}` on loop `{}`", f.var));
            }
            (ForKind::ThreadBinding, Some(_)) | (_, None) => {}
            (kind, Some(tag)) => self.error(format!(
                "`{}` loop `{}` has a thread tag `{tag}`; only `T.thread_binding` loops bind threads",
                kind.constructor(),
                f.var
            )),
        }
    }

    fn check_vector_extent(&mut self, f: &For) {
        match f.extent.as_int() {
            Some(n) if n > 0 => {}
            Some(n) => self.error(format!("vectorized loop `{}` needs a positive extent, found {n}", f.var)),
            None => self.error(format!(
                "vectorized loop `{}` needs a constant extent, found {}",
                f.var,
                print_expr(&f.extent)
            )),
        }
    }

    /// Thread counts are positive constants or variables (symbolic launch sizes).
    fn check_thread_extent(&mut self, extent: &Expr, what: std::fmt::Arguments<'_>) {
        match extent {
            Expr::Int { value, .. } if *value <= 0 => {
                self.error(format!("{what} must have a positive extent, found {value}"));
            }
            Expr::Int { .. } | Expr::Var(_) => {}
            _ => self.error(format!("{what} must have a constant or variable extent, found {}", print_expr(extent))),
        }
    }

    pub(super) fn check_launch(&mut self, var: &Var, tag: &str, extent: &Expr) {
        if ThreadTag::parse(tag).is_none() {
            self.error(format!("unknown thread tag `{tag}` in `T.launch_thread`"));
        }
        self.check_thread_extent(extent, format_args!("thread launch `{var}`"));
    }
}
