//! The per-thread async queues of docs/async-semantics.md.
//!
//! An async store computes its value and address at issue time and joins `uncommitted`; the
//! destination element is marked pending in its storage. A commit moves every uncommitted
//! store of the thread into one new group of the queue (possibly empty). Groups are kept in
//! two senses:
//! - *logically in flight* until a wait retires them (`groups`, FIFO): waits count these, and
//!   a group holding stores never retired by a wait is reported at the end (an empty one is
//!   not: nothing of it can land late, and `cuda_pipeline.h`'s idiom leaves such groups);
//! - *physically complete* once their values landed in memory (`completed`), which the
//!   schedule decides: at commit (eager), when a wait retires them (lazy), or at random
//!   moments in between (random). Physical completion is FIFO per queue, so the completed
//!   groups of a queue are always a prefix of `groups`.
//!
//! `incomplete` counts committed groups not yet physically complete, over all queues, so the
//! random schedule can skip threads with nothing in flight for free. Every store issued and
//! every group committed is counted in the memory's `in_flight` until a wait retires it (or
//! `complete_all` drops it), so the run-wide bounds of `limit` hold: an issue or a commit past
//! one is refused with the `Limit`, and nothing is changed.

use std::collections::VecDeque;

use rand::Rng;

use super::limit::Limit;
use super::memory::{AccessError, GroupRef, Memory, Pending};
use super::race::RaceCtx;

/// One async store: where its value goes and the value itself.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct AsyncStore {
    pub storage: u32,
    pub index: usize,
    pub bits: u64,
    pub line: u32,
}

#[derive(Debug)]
pub struct Group {
    pub seq: u32,
    pub commit_line: u32,
    pub stores: Vec<AsyncStore>,
    pub completed: bool,
}

#[derive(Debug)]
pub struct Queue {
    pub id: i64,
    next_seq: u32,
    pub groups: VecDeque<Group>,
}

/// Who waits, for race bookkeeping: the thread (as its race context names it, see
/// `Thread::race_thread`) and the barriers it has passed.
#[derive(Clone, Copy, Debug)]
pub struct Waiter {
    pub thread: u32,
    pub epoch: u32,
}

/// Something left in flight at the end of a thread: an uncommitted store, or a group holding
/// `stores` stores (more than none), the first issued at `issue_line`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Leftover {
    Uncommitted(AsyncStore),
    Unwaited { queue: i64, seq: u32, commit_line: u32, stores: usize, issue_line: u32 },
}

/// Why an async store could not be issued.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum IssueError {
    /// The destination refused it (out of bounds, pending, racing): a fault of the program.
    Access(AccessError),
    /// The run holds as many stores in flight as the machine allows.
    Limit(Limit),
}

#[derive(Debug, Default)]
pub struct AsyncState {
    pub uncommitted: Vec<AsyncStore>,
    pub queues: Vec<Queue>,
    pub incomplete: usize,
}

fn complete_group(mem: &mut Memory, group: &mut Group) {
    for s in &group.stores {
        if let Some(storage) = mem.storages.get_mut(s.storage as usize) {
            storage.complete(s.index, s.bits);
        }
    }
    group.completed = true;
}

impl AsyncState {
    /// Issues an async store of `bits` to element `off` of `storage`: the element becomes
    /// pending and the store joins `uncommitted`.
    pub fn issue(
        &mut self,
        mem: &mut Memory,
        storage: u32,
        off: i64,
        bits: u64,
        pending: Pending,
        race: Option<&RaceCtx>,
    ) -> Result<(), IssueError> {
        mem.in_flight.add_store().map_err(IssueError::Limit)?;
        let issued = match mem.storages.get_mut(storage as usize) {
            Some(destination) => destination.issue(off, pending, race),
            None => Err(AccessError::OutOfStorage { len: 0 }),
        };
        let index = issued.map_err(|e| {
            mem.in_flight.retire(0, 1);
            IssueError::Access(e)
        })?;
        self.uncommitted.push(AsyncStore { storage, index, bits, line: pending.issue_line });
        Ok(())
    }

    fn queue_index(&mut self, id: i64) -> usize {
        match self.queues.iter().position(|q| q.id == id) {
            Some(i) => i,
            None => {
                self.queues.push(Queue { id, next_seq: 0, groups: VecDeque::new() });
                self.queues.len() - 1
            }
        }
    }

    /// The line of the commit that made group `seq` of `queue`, while the group is in flight.
    pub fn commit_line(&self, queue: i64, seq: u32) -> Option<u32> {
        let q = self.queues.iter().find(|q| q.id == queue)?;
        q.groups.iter().find(|g| g.seq == seq).map(|g| g.commit_line)
    }

    /// How many groups the thread has committed to `queue` so far (what a token counts).
    pub fn committed(&self, queue: i64) -> u32 {
        self.queues.iter().find(|q| q.id == queue).map_or(0, |q| q.next_seq)
    }

    /// Commits every uncommitted store as one new group of `queue`; returns the group's
    /// sequence number within the queue. With `complete_now` (eager) the group lands at once.
    pub fn commit(
        &mut self,
        mem: &mut Memory,
        queue: i64,
        line: u32,
        thread: u32,
        complete_now: bool,
    ) -> Result<u32, Limit> {
        mem.in_flight.add_group()?;
        let qi = self.queue_index(queue);
        let q = &mut self.queues[qi];
        let seq = q.next_seq;
        q.next_seq = q.next_seq.saturating_add(1);
        let stores = std::mem::take(&mut self.uncommitted);
        let group_ref = GroupRef { queue, seq, commit_line: line };
        for s in &stores {
            if let Some(storage) = mem.storages.get_mut(s.storage as usize) {
                storage.set_group(s.index, group_ref, thread);
            }
        }
        let mut group = Group { seq, commit_line: line, stores, completed: false };
        if complete_now {
            complete_group(mem, &mut group);
        } else {
            self.incomplete += 1;
        }
        q.groups.push_back(group);
        Ok(seq)
    }

    /// Retires the oldest groups of `queue` until at most `keep` are in flight, completing
    /// those not yet complete. Returns the first and last retired sequence numbers.
    pub fn wait(&mut self, mem: &mut Memory, queue: i64, keep: usize, waiter: Waiter) -> Option<(u32, u32)> {
        let qi = self.queues.iter().position(|q| q.id == queue)?;
        let mut retired: Option<(u32, u32)> = None;
        while self.queues[qi].groups.len() > keep {
            let Some(mut group) = self.queues[qi].groups.pop_front() else {
                break;
            };
            if !group.completed {
                complete_group(mem, &mut group);
                self.incomplete = self.incomplete.saturating_sub(1);
            }
            mem.in_flight.retire(1, group.stores.len());
            let group_ref = GroupRef { queue, seq: group.seq, commit_line: group.commit_line };
            for s in &group.stores {
                if let Some(storage) = mem.storages.get_mut(s.storage as usize) {
                    storage.mark_waited(s.index, waiter.thread, group_ref, waiter.epoch);
                }
            }
            retired = Some((retired.map_or(group.seq, |r| r.0), group.seq));
        }
        retired
    }

    /// Completes the oldest incomplete group of one randomly chosen queue that has one;
    /// returns its queue and sequence number.
    pub fn complete_random(&mut self, mem: &mut Memory, rng: &mut impl Rng) -> Option<(i64, u32)> {
        let candidates: Vec<usize> =
            (0..self.queues.len()).filter(|&qi| self.queues[qi].groups.iter().any(|g| !g.completed)).collect();
        if candidates.is_empty() {
            return None;
        }
        let qi = candidates[rng.gen_range(0..candidates.len())];
        let queue = &mut self.queues[qi];
        let group = queue.groups.iter_mut().find(|g| !g.completed)?;
        complete_group(mem, group);
        self.incomplete = self.incomplete.saturating_sub(1);
        Some((queue.id, group.seq))
    }

    /// What is still in flight that is a fault at the end of a thread: the first uncommitted
    /// store, else the oldest unwaited group holding a store (queues in order of first use).
    /// Unwaited empty groups are none: the one home of that rule for every executor.
    pub fn leftover(&self) -> Option<Leftover> {
        if let Some(s) = self.uncommitted.first() {
            return Some(Leftover::Uncommitted(*s));
        }
        self.queues.iter().find_map(|q| {
            q.groups.iter().find_map(|g| {
                let first = g.stores.first()?;
                Some(Leftover::Unwaited {
                    queue: q.id,
                    seq: g.seq,
                    commit_line: g.commit_line,
                    stores: g.stores.len(),
                    issue_line: first.line,
                })
            })
        })
    }

    /// Lands everything still in flight, uncommitted stores included, so that outputs are
    /// defined after a thread ends with work outstanding.
    pub fn complete_all(&mut self, mem: &mut Memory) {
        mem.in_flight.retire(0, self.uncommitted.len());
        for s in std::mem::take(&mut self.uncommitted) {
            if let Some(storage) = mem.storages.get_mut(s.storage as usize) {
                storage.complete(s.index, s.bits);
            }
        }
        for q in &mut self.queues {
            for mut g in q.groups.drain(..) {
                mem.in_flight.retire(1, g.stores.len());
                if !g.completed {
                    complete_group(mem, &mut g);
                }
            }
        }
        self.incomplete = 0;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::limit::{InFlight, MAX_ASYNC_STORES_IN_FLIGHT, MAX_GROUPS_IN_FLIGHT};
    use crate::memory::Visibility;
    use crate::value::Num;
    use rand::SeedableRng;
    use rand_chacha::ChaCha8Rng;

    fn setup() -> (Memory, AsyncState, usize) {
        let mut mem = Memory::default();
        let s = mem.alloc("B", Num::Int(32), 4, None, Visibility::Device).unwrap() as usize;
        (mem, AsyncState::default(), s)
    }

    fn issue(mem: &mut Memory, st: &mut AsyncState, s: usize, off: i64, bits: u64) {
        let p = Pending { issue_line: 1, thread: 0, group: None };
        st.issue(mem, s as u32, off, bits, p, None).unwrap();
    }

    const W: Waiter = Waiter { thread: 0, epoch: 0 };

    #[test]
    fn lazy_groups_land_only_when_waited() {
        let (mut mem, mut st, s) = setup();
        issue(&mut mem, &mut st, s, 0, 10);
        assert_eq!(st.commit(&mut mem, 0, 2, 0, false), Ok(0));
        issue(&mut mem, &mut st, s, 1, 11);
        assert_eq!(st.commit(&mut mem, 0, 2, 0, false), Ok(1));
        assert_eq!(st.incomplete, 2);
        assert!(matches!(mem.storages[s].read(0, None), Err(AccessError::Pending(_))));
        assert_eq!(st.wait(&mut mem, 0, 1, W), Some((0, 0)));
        assert_eq!(mem.storages[s].read(0, None), Ok(10));
        assert!(matches!(mem.storages[s].read(1, None), Err(AccessError::Pending(_))));
        assert_eq!(st.wait(&mut mem, 0, 1, W), None);
        assert_eq!(st.wait(&mut mem, 0, 0, W), Some((1, 1)));
        assert_eq!(st.leftover(), None);
    }

    #[test]
    fn eager_groups_land_at_commit_but_stay_unwaited() {
        let (mut mem, mut st, s) = setup();
        issue(&mut mem, &mut st, s, 2, 5);
        st.commit(&mut mem, 3, 7, 0, true).unwrap();
        assert_eq!(mem.storages[s].read(2, None), Ok(5));
        let left = Leftover::Unwaited { queue: 3, seq: 0, commit_line: 7, stores: 1, issue_line: 1 };
        assert_eq!(st.leftover(), Some(left));
    }

    #[test]
    fn random_completion_is_fifo_per_queue() {
        let (mut mem, mut st, s) = setup();
        for i in 0..3 {
            issue(&mut mem, &mut st, s, i, 100 + i as u64);
            st.commit(&mut mem, 0, 1, 0, false).unwrap();
        }
        let mut rng = ChaCha8Rng::seed_from_u64(1);
        assert_eq!(st.complete_random(&mut mem, &mut rng), Some((0, 0)));
        assert_eq!(st.complete_random(&mut mem, &mut rng), Some((0, 1)));
        assert_eq!(mem.storages[s].read(1, None), Ok(101));
        assert!(matches!(mem.storages[s].read(2, None), Err(AccessError::Pending(_))));
        st.complete_all(&mut mem);
        assert_eq!(mem.storages[s].read(2, None), Ok(102));
    }

    #[test]
    fn empty_groups_in_flight_are_no_leftover() {
        let (mut mem, mut st, s) = setup();
        // cuda_pipeline.h's idiom: a group every iteration, copies only in the first ones.
        issue(&mut mem, &mut st, s, 0, 1);
        st.commit(&mut mem, 0, 4, 0, false).unwrap();
        st.commit(&mut mem, 0, 4, 0, false).unwrap();
        st.commit(&mut mem, 0, 4, 0, false).unwrap();
        let left = Leftover::Unwaited { queue: 0, seq: 0, commit_line: 4, stores: 1, issue_line: 1 };
        assert_eq!(st.leftover(), Some(left));
        st.wait(&mut mem, 0, 2, W);
        assert_eq!(st.leftover(), None, "only empty groups are in flight");
        // A group holding copies behind empty ones is still found.
        issue(&mut mem, &mut st, s, 1, 2);
        issue(&mut mem, &mut st, s, 2, 3);
        st.commit(&mut mem, 0, 9, 0, false).unwrap();
        let left = Leftover::Unwaited { queue: 0, seq: 3, commit_line: 9, stores: 2, issue_line: 1 };
        assert_eq!(st.leftover(), Some(left));
    }

    #[test]
    fn empty_commits_make_empty_groups() {
        let (mut mem, mut st, _) = setup();
        assert_eq!(st.commit(&mut mem, 0, 1, 0, false), Ok(0));
        assert_eq!(st.commit(&mut mem, 0, 1, 0, false), Ok(1));
        assert_eq!(st.wait(&mut mem, 0, 0, W), Some((0, 1)));
    }

    #[test]
    fn stores_and_groups_in_flight_are_counted_until_retired_and_bounded() {
        let (mut mem, mut st, s) = setup();
        issue(&mut mem, &mut st, s, 0, 1);
        issue(&mut mem, &mut st, s, 1, 2);
        assert_eq!(mem.in_flight, InFlight { stores: 2, groups: 0 });
        st.commit(&mut mem, 0, 1, 0, true).unwrap();
        st.commit(&mut mem, 0, 1, 0, false).unwrap();
        assert_eq!(mem.in_flight, InFlight { stores: 2, groups: 2 });
        // Landed at commit (eager) is not retired: the stores count until a wait.
        st.wait(&mut mem, 0, 1, W);
        assert_eq!(mem.in_flight, InFlight { stores: 0, groups: 1 });
        // At the bound, an issue is refused and changes nothing.
        mem.in_flight.stores = MAX_ASYNC_STORES_IN_FLIGHT;
        let p = Pending { issue_line: 3, thread: 0, group: None };
        assert_eq!(st.issue(&mut mem, s as u32, 2, 5, p, None), Err(IssueError::Limit(Limit::AsyncStoresInFlight)));
        assert!(st.uncommitted.is_empty());
        assert_eq!(mem.storages[s].read(2, None), Err(AccessError::Poison));
        // A refused issue to a pending element leaves the count as it was.
        mem.in_flight.stores = 0;
        issue(&mut mem, &mut st, s, 2, 5);
        assert!(matches!(
            st.issue(&mut mem, s as u32, 2, 6, p, None),
            Err(IssueError::Access(AccessError::Pending(_)))
        ));
        assert_eq!(mem.in_flight.stores, 1);
        mem.in_flight.groups = MAX_GROUPS_IN_FLIGHT;
        assert_eq!(st.commit(&mut mem, 0, 4, 0, false), Err(Limit::GroupsInFlight));
        assert_eq!(st.uncommitted.len(), 1, "a refused commit keeps its stores uncommitted");
        st.complete_all(&mut mem);
        assert_eq!(mem.in_flight, InFlight { stores: 0, groups: MAX_GROUPS_IN_FLIGHT - 1 });
    }
}
