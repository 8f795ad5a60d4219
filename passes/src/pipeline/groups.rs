//! Commit groups and wait counts.
//!
//! In every step of the pipelined schedule the statements run in `order`. Asynchronous
//! statements of one stage that are adjacent in that order form a *run*, committed as one
//! group; a run is split before a statement that must wait for the run's own queue, because
//! a group cannot be waited on before it is committed. Each async stage has its own queue and
//! all runs of a queue share its stage, so in every step where a stage is active its queue
//! receives the same `runs_per_step` groups. That regularity gives exact counts:
//!
//! * groups of queue q committed before consumer c at step t:
//!   `G = R_q * clamp(t - s_q, 0, ext) + [0 <= t - s_q < ext] * B_c`, where `B_c` counts the
//!   runs of q committed before c within a step;
//! * the group of producer p's iteration j: `g = j * R_q + index_of_run(p)`;
//! * the largest safe in-flight count at c is `min over needed groups (G - 1 - g)`.
//!
//! The counts are the largest safe ones only when `needs` lists real dependences: two writers
//! of one staging buffer that write provably distinct elements do not depend on each other
//! (`deps`), so they share a run instead of the second waiting for the first.
//!
//! Predicated statements keep these counts exact because the commit encloses the predicate: a
//! group whose stores are all predicated off is still committed (empty).

use std::collections::BTreeMap;

use tirproof_ir::pipeline_annotations::PipelineSpec;

use super::deps::Dep;

/// A maximal set of async statements committed together.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Run {
    /// The stage of every member (queues are per stage).
    pub stage: i64,
    /// Statement indices, in execution order.
    pub members: Vec<usize>,
    /// Position of this run among the runs of its queue within a step.
    pub index_in_queue: i64,
}

#[derive(Clone, Debug)]
pub struct Groups {
    /// Statement indices in execution order within a step.
    pub exec_order: Vec<usize>,
    pub runs: Vec<Run>,
    /// For each statement, the run it belongs to.
    pub run_of: Vec<Option<usize>>,
    /// Runs per step of each async stage.
    pub runs_per_step: BTreeMap<i64, i64>,
    /// For each statement: the async producers it depends on, per producer stage.
    pub needs: Vec<BTreeMap<i64, Vec<(usize, i64)>>>,
    /// For each statement: whether it depends on any other statement.
    consumes: Vec<bool>,
    /// For each statement: whether any other statement depends on it.
    produces: Vec<bool>,
    stages: Vec<i64>,
}

impl Groups {
    pub fn build(spec: &PipelineSpec, deps: impl IntoIterator<Item = Dep>) -> Groups {
        let n = spec.len();
        let mut needs: Vec<BTreeMap<i64, Vec<(usize, i64)>>> = vec![BTreeMap::new(); n];
        let mut consumes = vec![false; n];
        let mut produces = vec![false; n];
        for d in deps {
            consumes[d.consumer] |= d.producer != d.consumer;
            produces[d.producer] |= d.producer != d.consumer;
            if spec.is_async(d.producer) {
                needs[d.consumer].entry(spec.stages[d.producer]).or_default().push((d.producer, d.delta));
            }
        }
        let mut exec_order: Vec<usize> = (0..n).collect();
        exec_order.sort_by_key(|&k| spec.orders[k]);
        let mut runs: Vec<Run> = Vec::new();
        let mut run_of = vec![None; n];
        let mut open = false;
        for &k in &exec_order {
            let stage = spec.stages[k];
            if !spec.is_async(k) {
                open = false;
                continue;
            }
            let joins = open && runs.last().is_some_and(|r| r.stage == stage) && !needs[k].contains_key(&stage);
            if !joins {
                runs.push(Run { stage, members: Vec::new(), index_in_queue: 0 });
            }
            let last = runs.len() - 1;
            runs[last].members.push(k);
            run_of[k] = Some(last);
            open = true;
        }
        let mut runs_per_step: BTreeMap<i64, i64> = BTreeMap::new();
        for run in &mut runs {
            let count = runs_per_step.entry(run.stage).or_default();
            run.index_in_queue = *count;
            *count += 1;
        }
        Groups { exec_order, runs, run_of, runs_per_step, needs, consumes, produces, stages: spec.stages.clone() }
    }

    /// Position of statement `k` in the execution order.
    fn position(&self, k: usize) -> usize {
        self.exec_order.iter().position(|&x| x == k).unwrap_or(0)
    }

    /// Runs of `stage` committed before statement `k` within one step.
    fn committed_before(&self, stage: i64, k: usize) -> i64 {
        let pos = self.position(k);
        let count = self
            .runs
            .iter()
            .filter(|r| r.stage == stage)
            .filter(|r| r.members.last().is_some_and(|&last| self.position(last) < pos))
            .count();
        count as i64
    }

    /// Groups of queue `stage` committed before statement `k` runs at step `t`.
    pub fn committed_at(&self, stage: i64, k: usize, t: i64, ext: i64) -> i64 {
        let r = self.runs_per_step.get(&stage).copied().unwrap_or(0);
        let done_steps = (t - stage).clamp(0, ext);
        let current = if (0..ext).contains(&(t - stage)) { self.committed_before(stage, k) } else { 0 };
        r * done_steps + current
    }

    /// The largest safe in-flight count for statement `k` at step `t` on queue `stage`, or
    /// `None` when nothing it needs is in flight there (no wait is needed).
    pub fn wait_count(&self, stage: i64, k: usize, t: i64, ext: i64) -> Option<i64> {
        let r = self.runs_per_step.get(&stage).copied().unwrap_or(0);
        let iteration = t - self.stages[k];
        let committed = self.committed_at(stage, k, t, ext);
        let needs = self.needs[k].get(&stage)?;
        needs
            .iter()
            .filter_map(|&(p, delta)| {
                let j = iteration - delta;
                if j < 0 || j >= ext {
                    return None;
                }
                let run = self.runs[self.run_of[p]?].index_in_queue;
                Some(committed - 1 - (j * r + run))
            })
            .min()
    }

    /// The groups statement `k` needs complete at step `t` on queue `stage`: for each async
    /// producer it depends on whose iteration is in `[0, ext)`, the producer's run and how
    /// many iterations before `k`'s it is (the group `j * R_q + index_of_run`;
    /// [`Groups::wait_count`] is the count that completes the newest of them).
    pub fn needed_groups(&self, stage: i64, k: usize, t: i64, ext: i64) -> Vec<(usize, i64)> {
        let iteration = t - self.stages[k];
        let Some(needs) = self.needs[k].get(&stage) else { return Vec::new() };
        let mut out: Vec<(usize, i64)> = needs
            .iter()
            .filter_map(|&(p, delta)| {
                let j = iteration - delta;
                (0..ext).contains(&j).then_some((self.run_of[p]?, delta))
            })
            .collect();
        out.sort_unstable();
        out.dedup();
        out
    }

    /// How many iterations' tokens of run `r` must be kept at once: from the step that
    /// commits an iteration's group to the last step that waits for it, one slot each.
    pub fn token_depth(&self, r: usize) -> i64 {
        let producer_stage = self.runs[r].stage;
        let mut depth = 1;
        for (k, per_queue) in self.needs.iter().enumerate() {
            for &(p, delta) in per_queue.values().flatten() {
                if self.run_of[p] == Some(r) {
                    depth = depth.max(self.stages[k] + delta - producer_stage + 1);
                }
            }
        }
        depth
    }

    /// Whether statement `k` reads what another statement of the loop writes.
    pub fn has_producers(&self, k: usize) -> bool {
        self.consumes[k]
    }

    /// Whether another statement of the loop reads (or rewrites) what statement `k` writes.
    pub fn has_consumers(&self, k: usize) -> bool {
        self.produces[k]
    }

    /// The queues statement `k` may wait on, in ascending order.
    pub fn queues_needed(&self, k: usize) -> impl Iterator<Item = i64> + '_ {
        self.needs[k].keys().copied()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeSet;

    fn spec(stages: &[i64], orders: &[i64], asyncs: &[i64]) -> PipelineSpec {
        PipelineSpec {
            stages: stages.to_vec(),
            orders: orders.to_vec(),
            async_stages: asyncs.iter().copied().collect::<BTreeSet<_>>(),
        }
    }

    fn dep(producer: usize, consumer: usize) -> Dep {
        Dep { producer, consumer, delta: 0 }
    }

    #[test]
    fn rfc_interleaved_producers_wait_for_five() {
        // stages [0, 0, 3], order [0, 2, 1]: copy A, compute, copy B.
        let g = Groups::build(&spec(&[0, 0, 3], &[0, 2, 1], &[0]), [dep(0, 2), dep(1, 2)]);
        assert_eq!(g.runs.len(), 2);
        assert_eq!(g.wait_count(0, 2, 10, 16), Some(5));
    }

    #[test]
    fn two_stage_example_waits_for_one_then_drains() {
        let g = Groups::build(&spec(&[0, 1], &[0, 1], &[0]), [dep(0, 1)]);
        assert_eq!(g.wait_count(0, 1, 5, 16), Some(1));
        // The epilogue step: nothing is committed any more.
        assert_eq!(g.wait_count(0, 1, 16, 16), Some(0));
    }

    #[test]
    fn adjacent_producers_share_a_group() {
        let g = Groups::build(&spec(&[0, 0, 3], &[0, 1, 2], &[0]), [dep(0, 2), dep(1, 2)]);
        assert_eq!(g.runs.len(), 1);
        assert_eq!(g.wait_count(0, 2, 10, 16), Some(3));
    }

    #[test]
    fn a_producer_that_needs_its_own_queue_starts_a_new_group() {
        let g = Groups::build(&spec(&[0, 0], &[0, 1], &[0]), [dep(0, 1)]);
        assert_eq!(g.runs.len(), 2);
        assert_eq!(g.wait_count(0, 1, 3, 16), Some(0));
    }
}
