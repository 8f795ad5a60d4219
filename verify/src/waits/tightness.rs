//! How over-synchronized a proved wait is: is one more group in flight still safe, and how
//! many more?
//!
//! Loosened by `k`, the wait must still keep every use safe and leave nothing in flight at
//! the end. Safety is monotone in `k` (a larger count completes fewer groups), so the search
//! asks: is `k = 1` unsafe (tight)? is every `k >= 2` safe (the wait is not needed)? and
//! otherwise doubles up to [`MAX_SLACK`] and bisects. Each question reuses the queue's
//! encoding with the wait's slack fixed (or bounded below), and checks first the pairs
//! nearest the wait, where a violation usually shows.
//!
//! A refuted wait is measured the other way ([`fix`]): the largest constant count that is
//! safe (lowered by bisection), and how many iterations must be peeled for the written count
//! to hold after them.

use super::checker::{Checker, Loosen};
use super::drained::QueueDrained;
use super::encode::Unsupported;
use super::model::{EventId, LoopId};
use super::obligation::WaitFailure;
use super::report::{Cause, FixHint, Peel, Subject, Undecided, WaitCount, WaitVerdict};
use super::safety::{PairChecks, QueueSafety, StoreUse};

/// Largest loosening the search measures exactly; a wait safe at this one but not at every
/// larger one is reported as over-synchronized by this much.
const MAX_SLACK: i64 = 64;

/// The encodings of one queue, and the pairs whose violations are already reported (the
/// search measures around them).
pub struct Queue<'a> {
    pub safety: &'a QueueSafety,
    pub drained: &'a Result<Option<QueueDrained>, Unsupported>,
    pub excluded: &'a [StoreUse],
}

/// Whether the queue stays safe with one wait loosened.
enum Loosened {
    Safe,
    Unsafe,
    Unknown(Undecided),
}

/// The verdict on a wait that is safe as written.
pub fn tightness(checker: &Checker, queue: &Queue, wait: EventId) -> WaitVerdict {
    let unknown = |why: Undecided| WaitVerdict::Unknown { reason: why.about(Subject::Tightness) };
    match safe_with(checker, queue, Loosen { wait, by: 1, at_least: false }, None) {
        Loosened::Unsafe => return WaitVerdict::ProvedTight,
        Loosened::Unknown(why) => return unknown(why),
        Loosened::Safe => {}
    }
    match safe_with(checker, queue, Loosen { wait, by: 2, at_least: true }, None) {
        Loosened::Safe => return WaitVerdict::ProvedOverSynchronized { best: None, by: None },
        Loosened::Unknown(why) => return unknown(why),
        Loosened::Unsafe => {}
    }
    // Find the largest safe loosening: double, then bisect.
    let (mut good, mut bad) = (1, None);
    let mut by = 2;
    while by <= MAX_SLACK {
        match safe_with(checker, queue, Loosen { wait, by, at_least: false }, None) {
            Loosened::Safe => good = by,
            Loosened::Unsafe => {
                bad = Some(by);
                break;
            }
            Loosened::Unknown(why) => return unknown(why),
        }
        by *= 2;
    }
    if let Some(mut bad) = bad {
        while bad - good > 1 {
            let mid = (good + bad) / 2;
            match safe_with(checker, queue, Loosen { wait, by: mid, at_least: false }, None) {
                Loosened::Safe => good = mid,
                _ => bad = mid,
            }
        }
    }
    let Some(count) = checker.model.event(wait).kind.written_count() else {
        return WaitVerdict::ProvedOverSynchronized { best: None, by: Some(good) };
    };
    let best = match count.as_int() {
        Some(n) => WaitCount::Constant(n + good),
        None => WaitCount::Expr(format!("{} + {good}", tirproof_ir::print::print_expr(count))),
    };
    WaitVerdict::ProvedOverSynchronized { best: Some(best), by: Some(good) }
}

/// Peeling measured up to this many iterations.
const MAX_PEEL: i64 = 8;

/// How a refuted wait whose count is the constant `written` can be fixed (`queue.excluded`
/// holding the violations of the other waits only): the largest constant count that is safe,
/// found by asking the queue's encoding with the wait's count lowered (safety is monotone in
/// the count, so a bisection), and the fewest iterations of the wait's loop after which
/// `written` holds. `None` when a check is undecided: nothing unproved is said.
pub fn fix(checker: &Checker, queue: &Queue, wait: EventId, written: i64) -> Option<FixHint> {
    let lowered_to =
        |count: i64| safe_with(checker, queue, Loosen { wait, by: count - written, at_least: false }, None);
    // Largest safe count in 0..written: `bad` is unsafe, `good` safe (or -1: none is).
    let (mut good, mut bad) = (-1, written);
    match lowered_to(written - 1) {
        Loosened::Safe => good = written - 1,
        Loosened::Unknown(_) => return None,
        Loosened::Unsafe => bad = written - 1,
    }
    while bad - good > 1 {
        let mid = (good + bad) / 2;
        match lowered_to(mid) {
            Loosened::Safe => good = mid,
            Loosened::Unsafe => bad = mid,
            Loosened::Unknown(_) => return None,
        }
    }
    let largest_safe = (good >= 0).then_some(good);
    // Peeling runs the first iterations with the safe count: the rest must hold as written.
    let peel = largest_safe.and_then(|_| peel(checker, queue, wait, written));
    Some(FixHint { largest_safe, peel })
}

/// The fewest iterations of the loop around `wait` after which its written count holds: the
/// uses from that iteration on are safe with it (the peeled ones run the largest safe count,
/// which completes more), and one iteration fewer is not enough.
fn peel(checker: &Checker, queue: &Queue, wait: EventId, written: i64) -> Option<Peel> {
    let model = checker.model;
    let around = *model.serial_loops_of(model.event(wait)).last()?;
    let info = model.loop_info(around);
    let min = info.min.as_int()?;
    let as_written = Loosen { wait, by: 0, at_least: false };
    for iterations in 1..=MAX_PEEL {
        match safe_with(checker, queue, as_written, Some((around, min + iterations))) {
            Loosened::Safe => {
                let variable = info.var.name().to_owned();
                return Some(Peel { count: written, variable, from: min + iterations, iterations });
            }
            Loosened::Unsafe => {}
            Loosened::Unknown(_) => return None,
        }
    }
    None
}

/// Whether the queue stays safe with a wait loosened (only at the iterations of a loop from a
/// value on, with `from`). Only what depends on the wait's count is asked again (the rest was
/// checked as written): first whether the queue is still drained at the end (one check), then
/// the pairs the wait governs, nearest first.
fn safe_with(checker: &Checker, queue: &Queue, loosened: Loosen, from: Option<(LoopId, i64)>) -> Loosened {
    let wait = loosened.wait;
    let _probe = checker.log.probing(loosened, checker.model.event(wait).span.line);
    let loosen = Some(loosened);
    if matches!(queue.drained, Ok(Some(encoded)) if encoded.depends_on(wait)) {
        match drained(checker, queue.drained, loosen) {
            None => {}
            Some(WaitFailure::Unknown(why)) => return Loosened::Unknown(why),
            Some(WaitFailure::Refuted { .. }) => return Loosened::Unsafe,
        }
    }
    let order = queue.safety.nearest_first(checker, wait);
    let checks = PairChecks { order: &order, excluded: queue.excluded, loosen, limit: 1, from };
    let round = checker.safety(queue.safety, &checks);
    if !round.refuted.is_empty() {
        return Loosened::Unsafe;
    }
    if let Some(why) = round.unknown {
        return Loosened::Unknown(why);
    }
    match queue.drained {
        // Safe pairs alone do not make the loosened wait safe.
        Err(Unsupported(why)) => Loosened::Unknown(Cause::NotEncoded(why.clone()).into()),
        Ok(_) => Loosened::Safe,
    }
}

/// Whether the queue is drained at the end, when its encoding exists.
pub fn drained(
    checker: &Checker,
    encoded: &Result<Option<QueueDrained>, Unsupported>,
    loosen: Option<Loosen>,
) -> Option<WaitFailure> {
    match encoded {
        Ok(Some(d)) => checker.drained(d, loosen),
        Ok(None) => None,
        Err(Unsupported(why)) => Some(WaitFailure::Unknown(Cause::NotEncoded(why.clone()).into())),
    }
}
