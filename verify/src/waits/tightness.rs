//! How over-synchronized a proved wait is: is one more group in flight still safe, and how
//! many more?
//!
//! Loosened by `k`, the wait must still keep every use safe and leave nothing in flight at
//! the end. Safety is monotone in `k` (a larger count completes fewer groups), so the search
//! asks: is `k = 1` unsafe (tight)? is every `k >= 2` safe (the wait is not needed)? and
//! otherwise doubles up to [`MAX_SLACK`] and bisects. Each question reuses the queue's
//! encoding with the wait's slack fixed (or bounded below), and checks first the pairs
//! nearest the wait, where a violation usually shows.

use super::checker::{Checker, Loosen};
use super::drained::QueueDrained;
use super::encode::Unsupported;
use super::model::EventId;
use super::obligation::WaitFailure;
use super::report::{Cause, Subject, Undecided, WaitCount, WaitVerdict};
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
    match safe_with(checker, queue, Loosen { wait, by: 1, at_least: false }) {
        Loosened::Unsafe => return WaitVerdict::ProvedTight,
        Loosened::Unknown(why) => return unknown(why),
        Loosened::Safe => {}
    }
    match safe_with(checker, queue, Loosen { wait, by: 2, at_least: true }) {
        Loosened::Safe => return WaitVerdict::ProvedOverSynchronized { best: None, by: None },
        Loosened::Unknown(why) => return unknown(why),
        Loosened::Unsafe => {}
    }
    // Find the largest safe loosening: double, then bisect.
    let (mut good, mut bad) = (1, None);
    let mut by = 2;
    while by <= MAX_SLACK {
        match safe_with(checker, queue, Loosen { wait, by, at_least: false }) {
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
            match safe_with(checker, queue, Loosen { wait, by: mid, at_least: false }) {
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

/// Whether the queue stays safe with a wait loosened. Only what depends on the wait's count is
/// asked again (the rest was checked as written): first whether the queue is still drained at
/// the end (one check), then the pairs the wait governs, nearest first.
fn safe_with(checker: &Checker, queue: &Queue, loosened: Loosen) -> Loosened {
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
    let checks = PairChecks { order: &order, excluded: queue.excluded, loosen, limit: 1 };
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
