//! How the pass lays out each storage the loop touches: a staging buffer to version (every
//! read sees a write of its own iteration by an earlier statement), memory that keeps one
//! version (and why), or memory whose indices move with the loop; how many versions a staging
//! buffer needs; whether threads exchange data through shared memory.

use std::collections::HashSet;

use tirproof_ir::{Buffer, BufferId};

use super::*;

/// Whether a shared-memory storage is written and accessed at differing indices, or at
/// indices that move with the iteration.
pub(super) fn exchanges(uses: &[(usize, Access)]) -> bool {
    let shared = uses[0].1.buffer.scope().starts_with("shared");
    let written = uses.iter().any(|(_, a)| a.write);
    // An index that moves with the iteration may meet another thread's index of another
    // iteration (`B[tx + i]`), as accesses at different indices may in one iteration.
    let moving = uses.iter().any(|(_, a)| !a.invariant);
    shared
        && written
        && (moving || uses.iter().any(|(_, a)| a.indices != uses[0].1.indices || a.buffer != uses[0].1.buffer))
}

/// How the pass lays out one storage touched by the loop.
pub(super) enum Layout {
    /// Every iteration writes, then reads, its own values: one version per iteration in flight.
    Staging(Buffer),
    /// Loop-invariant indices, but one version only; the reason says why.
    Single(SingleVersion),
    /// Indices that depend on the loop variable: the memory keeps its layout.
    Variant,
}

/// Why a storage accessed at loop-invariant indices cannot get a version per iteration.
#[derive(Clone, Copy, Debug)]
pub(super) enum SingleVersion {
    /// Only buffers the function allocates can be versioned.
    NotAllocated,
    /// The statement reads the storage and writes it too, carrying values between iterations.
    ReaderWrites { stmt: usize },
    /// The statement reads the storage before any statement of the same iteration writes it.
    ReadFirst { stmt: usize },
    /// The statement may read without a write of the same iteration before it (the write is
    /// conditional), so it may see a value written in an earlier iteration.
    ConditionalWrite { reader: usize },
    /// Nothing in the loop reads what it writes.
    Unread,
}

/// The layout of this storage: staging (to version), or why it keeps one version.
pub(super) fn staging_buffer(
    uses: &[(usize, Access)],
    candidates: &HashSet<BufferId>,
    locals: &HashSet<BufferId>,
    indices: &IndexRelation<'_>,
) -> Result<Layout, String> {
    let first = &uses[0].1.buffer;
    if uses.iter().any(|(_, a)| !a.invariant) {
        return Ok(Layout::Variant);
    }
    // The statements that write, and those that read; the first of those meeting a test is
    // the least.
    let writes = |c: usize| uses.iter().any(|(k, a)| *k == c && a.write);
    let readers = || uses.iter().filter(|(_, a)| !a.write).map(|(k, _)| *k);
    let first_writer = uses.iter().filter(|(_, a)| a.write).map(|(k, _)| *k).min();
    let early_reader = readers().filter(|&c| !writes(c) && first_writer.is_none_or(|p| p > c)).min();
    if let (Some(c), true) = (early_reader, locals.contains(&first.id())) {
        return Err(format!(
            "statement {c} reads `{first}`, which the loop body allocates, before any statement of the same iteration writes it"
        ));
    }
    if !candidates.contains(&first.id()) {
        return Ok(Layout::Single(SingleVersion::NotAllocated));
    }
    if let Some(stmt) = readers().filter(|&c| writes(c)).min() {
        return Ok(Layout::Single(SingleVersion::ReaderWrites { stmt }));
    }
    if let Some(stmt) = readers().filter(|&c| first_writer.is_none_or(|p| p > c)).min() {
        return Ok(Layout::Single(SingleVersion::ReadFirst { stmt }));
    }
    // A reader here has a writer before it, and no reader writes: a reader makes two
    // statements.
    if readers().next().is_none() {
        return Ok(Layout::Single(SingleVersion::Unread));
    }
    // Every read must see a write of its own iteration: an earlier statement writes the
    // element under (a subset of) the reader's own conditions.
    let covered = |c: usize, read: &Access| {
        uses.iter().any(|(p, w)| {
            *p < c
                && w.write
                && w.guards.iter().all(|g| read.guards.contains(g))
                && !indices.relate(&w.indices, &read.indices).is_disjoint()
        })
    };
    if let Some((reader, _)) = uses.iter().find(|(c, a)| !a.write && !covered(*c, a)) {
        return Ok(Layout::Single(SingleVersion::ConditionalWrite { reader: *reader }));
    }
    if uses.iter().any(|(_, a)| a.buffer != *first) {
        return Err(format!(
            "staging buffer `{first}` is accessed through aliases; versioning aliased buffers is not supported"
        ));
    }
    Ok(Layout::Staging(first.clone()))
}

impl SingleVersion {
    /// Why `buffer` keeps one version, as the end of a diagnostic.
    pub(super) fn explain(self, buffer: &Buffer) -> String {
        match self {
            SingleVersion::NotAllocated => format!(
                "`{buffer}` would need versions, which only a buffer the function allocates (T.alloc_buffer) can have"
            ),
            SingleVersion::ReaderWrites { stmt } => format!(
                "`{buffer}` cannot be versioned because statement {stmt} both reads and writes it, carrying its value from one iteration to the next"
            ),
            SingleVersion::ReadFirst { stmt } => format!(
                "`{buffer}` cannot be versioned because statement {stmt} reads it before any statement of the same iteration writes it"
            ),
            SingleVersion::ConditionalWrite { reader } => format!(
                "`{buffer}` cannot be versioned because its write is conditional: statement {reader} may read a value of `{buffer}` written in an earlier iteration"
            ),
            SingleVersion::Unread => {
                format!("`{buffer}` cannot be versioned because no statement of the loop reads what another writes")
            }
        }
    }
}

/// The fewest versions such that a producer's next write to a slot comes after every use of
/// that slot in the iteration that wrote it.
pub(super) fn versions_needed(uses: &[(usize, Access)], key: &impl Fn(usize) -> (i64, i64), whole_steps: bool) -> i64 {
    let mut versions = 1;
    for (a, acc) in uses {
        if !acc.write {
            continue;
        }
        for (b, _) in uses {
            if a < b {
                let ((sa, oa), (sb, ob)) = (key(*a), key(*b));
                versions = versions.max(sb - sa + i64::from(oa <= ob || whole_steps));
            }
        }
    }
    versions
}
