//! Shrinking a case while a property holds (for campaigns: while its [`super::DedupKey`]
//! stays the same): fewer copies, fewer iterations, fewer stages, fewer reads, smaller copies,
//! a unit step, a smaller ring, one group, a wait without a count.
//!
//! Invariants: every candidate tried keeps the generator's invariants
//! ([`CopyLoop::is_valid`]), so what is kept is a program whose unpipelined form verifies safe;
//! each accepted step makes the case strictly smaller ([`size`]), so reduction ends.

use super::gen::{Case, CopyLoop, Grouping, Layout, TripCount};

/// The most candidates tried (each one runs mlir-opt and the verifier in a campaign).
pub const MAX_TRIES: usize = 200;

/// The smallest case reachable from `case` by single shrinking steps each of which `keeps`
/// holds for (`keeps` is not asked about `case` itself).
pub fn reduce(case: &Case, mut keeps: impl FnMut(&Case) -> bool) -> Case {
    let mut best = case.clone();
    let mut tries = 0;
    'shrink: loop {
        for candidate in candidates(&best) {
            if tries == MAX_TRIES {
                break 'shrink;
            }
            tries += 1;
            if keeps(&candidate) {
                best = candidate;
                continue 'shrink;
            }
        }
        break;
    }
    best
}

/// How big a case is: what [`reduce`] makes smaller.
pub fn size(case: &Case) -> u32 {
    let p = &case.program;
    let trip = match p.trip {
        TripCount::Constant(trip) => u32::from(trip),
        TripCount::Argument => 0,
    };
    let slots = match p.layout {
        Layout::OwnPart => 0,
        Layout::Ring { slots } => u32::from(slots),
    };
    let copies: u32 = p.copies.iter().map(|&e| 8 + u32::from(e)).sum();
    let reads = 4 * u32::try_from(p.reads.len()).unwrap_or(u32::MAX) + 4 * u32::from(p.read_earlier);
    let grouping = u32::from(p.grouping == Grouping::GroupPerCopy);
    let count = p.wait_count.map_or(0, |n| 1 + u32::from(n));
    copies + trip + u32::from(case.options.depth) + reads + u32::from(p.step) + slots + grouping + count
}

/// The valid cases one shrinking step from `case`, biggest steps first.
pub fn candidates(case: &Case) -> Vec<Case> {
    let p = &case.program;
    let mut programs: Vec<CopyLoop> = Vec::new();
    for copy in (0..p.copies.len()).rev() {
        programs.extend(without_copy(p, copy));
    }
    if let TripCount::Constant(trip) = p.trip {
        for smaller in [1, trip / 2, trip.saturating_sub(1)] {
            if smaller >= 1 && smaller < trip {
                programs.push(CopyLoop { trip: TripCount::Constant(smaller), ..p.clone() });
            }
        }
    }
    for read in 0..p.reads.len() {
        let mut fewer = p.clone();
        fewer.reads.remove(read);
        programs.push(fewer);
    }
    if p.read_earlier {
        programs.push(CopyLoop { read_earlier: false, ..p.clone() });
    }
    for (copy, &elements) in p.copies.iter().enumerate() {
        if elements > 1 {
            let mut smaller = p.clone();
            smaller.copies[copy] = 1;
            programs.push(smaller);
        }
    }
    if p.step > 1 {
        programs.push(CopyLoop { step: 1, ..p.clone() });
    }
    if let Layout::Ring { slots } = p.layout {
        programs.push(CopyLoop { layout: Layout::Ring { slots: slots - 1 }, ..p.clone() });
    }
    if p.grouping == Grouping::GroupPerCopy {
        programs.push(CopyLoop { grouping: Grouping::OneGroup, ..p.clone() });
    }
    if p.wait_count.is_some() {
        programs.push(CopyLoop { wait_count: None, ..p.clone() });
    }
    let mut cases: Vec<Case> = programs
        .into_iter()
        .filter(CopyLoop::is_valid)
        .map(|program| Case { program, options: case.options })
        .collect();
    if case.options.depth > 2 {
        let mut options = case.options;
        options.depth -= 1;
        cases.push(Case { program: p.clone(), options });
    }
    cases
}

/// `program` without copy `copy`: its reads dropped, the later copies' indices moved down.
/// `None` when nothing would be read.
fn without_copy(program: &CopyLoop, copy: usize) -> Option<CopyLoop> {
    let mut fewer = program.clone();
    fewer.copies.remove(copy);
    fewer.reads = program.reads.iter().filter(|&&r| r != copy).map(|&r| if r > copy { r - 1 } else { r }).collect();
    if fewer.reads.is_empty() {
        return None;
    }
    Some(fewer)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mlir_peer::gen::generate;

    #[test]
    fn every_candidate_is_valid_and_smaller() {
        for seed in 0..100 {
            let case = generate(seed);
            for candidate in candidates(&case) {
                assert!(candidate.program.is_valid(), "seed {seed}: {candidate:?}");
                assert!(size(&candidate) < size(&case), "seed {seed}: {candidate:?} from {case:?}");
            }
        }
    }

    #[test]
    fn a_property_of_the_shape_is_kept_and_the_rest_shrinks_away() {
        let case = (0..200)
            .map(generate)
            .find(|c| c.program.copies.len() == 3 && c.options.depth == 4 && c.program.trip != TripCount::Argument)
            .expect("a case");
        let keeps = |c: &Case| c.options.depth >= 3 && c.program.copies.len() >= 2;
        let small = reduce(&case, keeps);
        assert_eq!(small.options.depth, 3);
        assert_eq!(small.program.copies, vec![1, 1]);
        assert_eq!(small.program.trip, TripCount::Constant(1));
        assert_eq!(small.program.reads.len(), 1);
        assert!(!small.program.read_earlier);
        assert_eq!(small.program.step, 1);
        // Nothing is kept: the case stays as it is.
        assert_eq!(reduce(&case, |_| false), case);
    }
}
