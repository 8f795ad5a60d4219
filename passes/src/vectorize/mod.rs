//! `vectorize-loop`: `T.vectorized` loops become Ramp/Broadcast expressions, one statement
//! for all lanes (the loop variable becomes `Ramp(min, 1, extent)`, uniform operands are
//! broadcast, accesses take vector indices in their last dimension).
//!
//! A loop that cannot be vectorized becomes serial, and the pass's notes (`--explain`) say
//! why: a non-constant extent, a nested loop, an `if` or `T.if_then_else` whose condition
//! depends on the loop variable, a call that is not a pure intrinsic, a commit or wait inside,
//! lanes that would not match, a store at a uniform index, or a written buffer that two
//! iterations might share (`deps.rs`). Loops of extent 1 lose their loop (the variable becomes
//! its minimum) and loops of extent 0 disappear.
//!
//! Invariants: loops are handled innermost first, so an inner loop that stays serial blocks
//! the outer one; vectorizing only rewrites a loop after every check passed, so a blocked
//! loop keeps its body exactly (only its kind changes); the pass never fails.
//!
//! Layout: `expr.rs` vectorizes expressions, `stmt.rs` statements, `deps.rs` proves the
//! reordering legal, `blocker.rs` names the obstacles.

mod blocker;
mod deps;
mod expr;
mod stmt;

pub use blocker::Blocker;

use tirproof_ir::index_arith::const_int;
use tirproof_ir::print::print_expr;
use tirproof_ir::subst::Substitution;
use tirproof_ir::visit::{walk_stmt_mut, MutVisitor};
use tirproof_ir::{Diagnostic, For, ForKind, PrimFunc, Stmt, StmtKind};

use crate::{FunctionPass, FunctionReport};
use expr::Vectorizer;

pub struct VectorizeLoop;

impl FunctionPass for VectorizeLoop {
    const NAME: &'static str = "vectorize-loop";
    const DESCRIPTION: &'static str =
        "turn T.vectorized loops into Ramp/Broadcast statements, or serial loops with an explanation";

    fn run_on_function(&self, func: &mut PrimFunc) -> Result<FunctionReport, Vec<Diagnostic>> {
        let mut driver = Driver { func: func.name.clone(), notes: Vec::new() };
        driver.mutate_stmt(&mut func.body);
        Ok(FunctionReport::notes(driver.notes))
    }
}

/// What became of one vectorized loop.
enum Outcome {
    Vectorized(Stmt),
    Removed,
    Serial(Blocker),
}

struct Driver {
    func: String,
    notes: Vec<String>,
}

impl MutVisitor for Driver {
    fn mutate_stmt(&mut self, stmt: &mut Stmt) {
        walk_stmt_mut(self, stmt);
        let StmtKind::For(f) = &mut stmt.kind else { return };
        if f.kind != ForKind::Vectorized {
            return;
        }
        let head = format!("{}: loop `{}` in `{}`", stmt.span, f.var, self.func);
        match vectorize_loop(f) {
            Outcome::Vectorized(body) => {
                self.notes.push(format!("{head} vectorized into {} lanes", print_expr(&f.extent)));
                let span = stmt.span;
                *stmt = body;
                if !stmt.span.is_known() {
                    stmt.span = span;
                }
            }
            Outcome::Removed => {
                self.notes.push(format!("{head} has no iterations and was removed"));
                *stmt = Stmt::nop();
            }
            Outcome::Serial(why) => {
                self.notes.push(format!("{head} stays serial: {why}"));
                f.kind = ForKind::Serial;
            }
        }
    }
}

fn vectorize_loop(f: &For) -> Outcome {
    let Some(extent) = const_int(&f.extent) else {
        return Outcome::Serial(Blocker::NonConstantExtent(print_expr(&f.extent)));
    };
    if extent <= 0 {
        return Outcome::Removed;
    }
    if extent == 1 {
        return Outcome::Vectorized(Substitution::new().var(&f.var, f.min.clone()).stmt(&f.body));
    }
    let Ok(lanes) = u16::try_from(extent) else {
        return Outcome::Serial(Blocker::TooManyLanes { extent });
    };
    if let Err(why) = deps::check(&f.body, &f.var, extent) {
        return Outcome::Serial(why);
    }
    match Vectorizer::new(&f.var, &f.min, lanes).stmt(&f.body) {
        Ok(body) => Outcome::Vectorized(body),
        Err(why) => Outcome::Serial(why),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Pass;
    use tirproof_ir::print::print_module;
    use tirproof_reader::parse_module;

    fn vectorize(src: &str) -> (String, Vec<String>) {
        let mut m = parse_module(src).expect("parses");
        let notes = VectorizeLoop.run_explained(&mut m).expect("never fails");
        (print_module(&m), notes)
    }

    #[test]
    fn a_copy_loop_becomes_ramps() {
        let (out, notes) = vectorize(
            r#"
@T.prim_func
def main(A: T.Buffer((64,), "float32"), C: T.Buffer((64,), "float32")):
    for j in range(16):
        for i in T.vectorized(4):
            C[j * 4 + i] = A[j * 4 + i] * T.float32(2.0)
"#,
        );
        assert!(
            out.contains("C[T.Ramp(j * 4, 1, 4)] = A[T.Ramp(j * 4, 1, 4)] * T.Broadcast(T.float32(2.0), 4)"),
            "{out}"
        );
        assert!(notes[0].contains("vectorized into 4 lanes"), "{notes:?}");
    }

    #[test]
    fn extents_that_the_checker_rejects_are_still_handled() {
        // The checker wants constant, positive extents; the pass must not depend on that.
        let (out, notes) = vectorize(
            r#"
@T.prim_func
def main(A: T.Buffer((8,), "float32"), n: T.int32):
    for i in T.vectorized(n):
        A[i] = T.float32(0.0)
    for i in T.vectorized(0):
        A[i] = T.float32(1.0)
    for i in T.vectorized(2, 3):
        A[i] = T.float32(2.0)
"#,
        );
        assert!(notes[0].contains("stays serial: its extent `n` is not a constant"), "{notes:?}");
        assert!(notes[1].contains("has no iterations and was removed"), "{notes:?}");
        assert!(out.contains("for i in range(n):") && out.contains("A[2] = T.float32(2.0)"), "{out}");
        assert!(!out.contains("T.float32(1.0)"), "{out}");
    }

    #[test]
    fn impure_calls_and_nested_vectorized_loops_block() {
        let (out, notes) = vectorize(
            r#"
@T.prim_func
def main(A: T.Buffer((64,), "float32")):
    for i in T.vectorized(4):
        A[i] = T.call_extern("float32", "rand")
    for j in T.vectorized(4):
        for i in T.vectorized(4):
            A[j * 4 + i] = T.float32(1.0)
"#,
        );
        assert!(notes[0].contains("the call to `rand` cannot be vectorized (an external call)"), "{notes:?}");
        // The inner loop vectorizes; the outer one then sees a Ramp that depends on `j`.
        assert!(notes[1].contains("vectorized into 4 lanes"), "{notes:?}");
        assert!(notes[2].contains("loop `j` in `main` stays serial: `A` is written in the loop and its index `T.Ramp(j * 4, 1, 4)` is not an affine function of `j`"), "{notes:?}");
        assert!(out.contains("for j in range(4):"), "{out}");
    }

    #[test]
    fn blocked_loops_become_serial_with_a_reason() {
        let (out, notes) = vectorize(
            r#"
@T.prim_func
def main(A: T.Buffer((8,), "float32")):
    for i in T.vectorized(7):
        A[i + 1] = A[i]
"#,
        );
        assert!(out.contains("for i in range(7):"), "{out}");
        assert!(
            notes[0].contains("stays serial: `A` is written in the loop and is accessed at [i + 1] and at [i]"),
            "{notes:?}"
        );
    }
}
