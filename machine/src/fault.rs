//! Program faults: the closed set of ways a well-formed program can go wrong at run time.
//!
//! A `Fault` is an outcome, never a host error. It records where it happened (the statement's
//! span, the values of the enclosing loop variables, the thread) and a short history of the
//! memory and synchronization events that led to it. `Display` is a deterministic one-line
//! summary; `details()` adds the kind and the history.

use std::fmt;

use tirproof_ir::span::Span;

/// The kinds of program fault.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum FaultKind {
    /// An index outside the buffer's shape or the storage behind it.
    OutOfBounds,
    /// Integer division or modulo by zero.
    DivisionByZero,
    /// A read of allocated memory that was never written.
    ReadPoison,
    /// A read of a location with a pending asynchronous write.
    ReadPendingAsync,
    /// A write to a location with a pending asynchronous write.
    WritePendingAsync,
    /// Two accesses to one location by threads of one block, at least one a write, that no
    /// barrier (and, for an asynchronous write, no wait followed by a barrier) orders.
    CrossThreadRace,
    /// Two threads of one block storing one and the same value to one location with no
    /// barrier in between (typically a statement outside every `threadIdx.*` binding, which
    /// every thread of the block executes): not a race on the value, but a redundant store by
    /// every thread that a lowering should not emit.
    RedundantStore,
    /// Two accesses to one location by different blocks of one kernel launch, at least one a
    /// write (nothing orders blocks).
    CrossBlockRace,
    /// Lanes of one warp storing different values to one location in one execution of one
    /// store instruction: one lane's write lands, and which one is not determined (a
    /// nondeterministic result, not a race between threads).
    WarpStoreConflict,
    /// `async_wait_inflight_count` below zero.
    NegativeWait,
    /// An async group holding stores (or an uncommitted async store) never waited for before
    /// the end. An empty group left in flight is no fault: nothing of it can land late.
    UnwaitedGroup,
    /// Threads of one block reached different barriers (or some none).
    BarrierDivergence,
    /// The statement budget ran out.
    FuelExhausted,
    /// A float-to-int cast of NaN or of a value outside the target range.
    InvalidCast,
    /// A shift by a negative amount or by at least the width.
    ShiftOutOfRange,
    /// A buffer or allocation whose extent evaluates to a negative number.
    NegativeExtent,
    /// A wait on a token whose group its thread has not committed (or of another queue, or
    /// a value that is no token), a count that leaves a group its tokens name in flight, or
    /// the token of a last commit that never happened.
    TokenWait,
}

impl FaultKind {
    pub const ALL: [FaultKind; 17] = [
        FaultKind::OutOfBounds,
        FaultKind::DivisionByZero,
        FaultKind::ReadPoison,
        FaultKind::ReadPendingAsync,
        FaultKind::WritePendingAsync,
        FaultKind::CrossThreadRace,
        FaultKind::RedundantStore,
        FaultKind::CrossBlockRace,
        FaultKind::WarpStoreConflict,
        FaultKind::NegativeWait,
        FaultKind::UnwaitedGroup,
        FaultKind::BarrierDivergence,
        FaultKind::FuelExhausted,
        FaultKind::InvalidCast,
        FaultKind::ShiftOutOfRange,
        FaultKind::NegativeExtent,
        FaultKind::TokenWait,
    ];

    /// A stable identifier (`out-of-bounds`, `read-pending-async`, ...) for reports.
    pub fn name(self) -> &'static str {
        match self {
            FaultKind::OutOfBounds => "out-of-bounds",
            FaultKind::DivisionByZero => "division-by-zero",
            FaultKind::ReadPoison => "read-poison",
            FaultKind::ReadPendingAsync => "read-pending-async",
            FaultKind::WritePendingAsync => "write-pending-async",
            FaultKind::CrossThreadRace => "cross-thread-race",
            FaultKind::RedundantStore => "redundant-store",
            FaultKind::CrossBlockRace => "cross-block-race",
            FaultKind::WarpStoreConflict => "warp-store-conflict",
            FaultKind::NegativeWait => "negative-wait",
            FaultKind::UnwaitedGroup => "unwaited-group",
            FaultKind::BarrierDivergence => "barrier-divergence",
            FaultKind::FuelExhausted => "fuel-exhausted",
            FaultKind::InvalidCast => "invalid-cast",
            FaultKind::ShiftOutOfRange => "shift-out-of-range",
            FaultKind::NegativeExtent => "negative-extent",
            FaultKind::TokenWait => "token-wait",
        }
    }
}

impl fmt::Display for FaultKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A located program fault.
#[derive(Clone, Debug, PartialEq)]
pub struct Fault {
    pub kind: FaultKind,
    /// What went wrong, naming buffers, indices, elements, groups and lines.
    pub message: String,
    /// The statement that faulted (`Span::UNKNOWN` for faults at the end of the function).
    pub span: Span,
    /// Enclosing loop variables, outermost first.
    pub loop_vars: Vec<(String, i64)>,
    /// The thread: enclosing `threadIdx.*` / `blockIdx.*` bindings, innermost axis first as
    /// written (`threadIdx.x = 3`, `blockIdx.x = 0`).
    pub thread: Vec<(String, i64)>,
    /// The last events before the fault (stores, commits, waits, completions, barriers),
    /// oldest first, one line each.
    pub history: Vec<String>,
}

impl Fault {
    /// The summary line, the kind and the event history (when there is one), one per line.
    pub fn details(&self) -> String {
        let mut out = format!("{self}\nkind: {}\n", self.kind);
        if !self.history.is_empty() {
            out.push_str("history (oldest first):\n");
            for event in &self.history {
                out.push_str("  ");
                out.push_str(event);
                out.push('\n');
            }
        }
        out
    }
}

fn write_pairs(f: &mut fmt::Formatter<'_>, pairs: &[(String, i64)]) -> fmt::Result {
    for (i, (name, value)) in pairs.iter().enumerate() {
        if i > 0 {
            f.write_str(", ")?;
        }
        write!(f, "{name} = {value}")?;
    }
    Ok(())
}

impl fmt::Display for Fault {
    /// `line 12: <message> at i = 1, j = 0 (threadIdx.x = 0)`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.span.is_known() {
            write!(f, "line {}: {}", self.span.line, self.message)?;
        } else {
            write!(f, "{}", self.message)?;
        }
        if !self.loop_vars.is_empty() {
            f.write_str(" at ")?;
            write_pairs(f, &self.loop_vars)?;
        }
        if !self.thread.is_empty() {
            f.write_str(" (")?;
            write_pairs(f, &self.thread)?;
            f.write_str(")")?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn display_is_one_line_with_context() {
        let fault = Fault {
            kind: FaultKind::OutOfBounds,
            message: "out-of-bounds read of A[16] (shape [16])".into(),
            span: Span::new(12, 5),
            loop_vars: vec![("i".into(), 1), ("j".into(), 0)],
            thread: vec![("threadIdx.x".into(), 0)],
            history: vec!["line 11: store C[0] (element 0)".into()],
        };
        assert_eq!(
            fault.to_string(),
            "line 12: out-of-bounds read of A[16] (shape [16]) at i = 1, j = 0 (threadIdx.x = 0)"
        );
        let details = fault.details();
        assert!(details.contains("kind: out-of-bounds"));
        assert!(details.contains("  line 11: store C[0] (element 0)"));
        // A fault without events says nothing about them.
        let quiet = Fault { history: Vec::new(), ..fault };
        assert_eq!(quiet.details(), format!("{quiet}\nkind: out-of-bounds\n"));
    }

    #[test]
    fn names_are_distinct() {
        let mut names: Vec<_> = FaultKind::ALL.iter().map(|k| k.name()).collect();
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), FaultKind::ALL.len());
    }
}
