//! The short event history attached to faults: the last few stores, async issues, commits,
//! waits, completions and barriers.
//!
//! A fixed ring of `CAPACITY` plain-data events, so recording on the hot path is one copy
//! with no allocation; events are turned into text only when a fault is reported.

/// How many events a fault shows.
pub const CAPACITY: usize = 8;

use tirproof_ir::{Axis, ThreadTag};

/// Which thread did something: the coordinates of the axes present in its block.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Who {
    /// Bit `a` set when axis `a` exists in the block; 0 outside thread blocks.
    pub axes: u8,
    pub coords: [u32; 3],
}

impl Who {
    /// `threadIdx.x = 1, threadIdx.y = 0`, or empty outside thread blocks.
    pub fn label(&self) -> String {
        let parts: Vec<String> = self.coordinates().map(|(tag, value)| format!("{tag} = {value}")).collect();
        parts.join(", ")
    }

    /// The thread index of each axis present in the block, in axis order.
    pub fn coordinates(&self) -> impl Iterator<Item = (ThreadTag, u32)> + '_ {
        Axis::ALL
            .into_iter()
            .filter(|a| self.axes & (1 << a.index()) != 0)
            .map(|a| (ThreadTag::Thread(a), self.coords[a.index()]))
    }
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum EventKind {
    #[default]
    Barrier,
    Store {
        buf: u32,
        elem: i64,
    },
    AsyncStore {
        buf: u32,
        elem: i64,
    },
    Commit {
        queue: i64,
        seq: u32,
    },
    Wait {
        queue: i64,
        keep: i64,
        retired: Option<(u32, u32)>,
    },
    /// A group landed by the schedule (random), not by a wait.
    Complete {
        queue: i64,
        seq: u32,
    },
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Event {
    pub kind: EventKind,
    /// The statement (resolved to its line only when rendered).
    pub stmt: u32,
    pub who: Who,
}

#[derive(Clone, Debug, Default)]
pub struct History {
    ring: [Event; CAPACITY],
    recorded: usize,
}

impl History {
    #[inline]
    pub fn push(&mut self, event: Event) {
        self.ring[self.recorded % CAPACITY] = event;
        self.recorded = self.recorded.wrapping_add(1);
    }

    /// The recorded events, oldest first.
    pub fn events(&self) -> Vec<Event> {
        let n = self.recorded.min(CAPACITY);
        (self.recorded - n..self.recorded).map(|i| self.ring[i % CAPACITY]).collect()
    }

    /// The events as text, oldest first; `buf_name` names buffers by slot and `line` gives
    /// the line of a statement.
    pub fn render(&self, buf_name: &dyn Fn(u32) -> String, line: &dyn Fn(u32) -> u32) -> Vec<String> {
        self.events().iter().map(|e| render_event(e, buf_name, line(e.stmt))).collect()
    }
}

fn render_event(e: &Event, buf_name: &dyn Fn(u32) -> String, line: u32) -> String {
    let what = match e.kind {
        EventKind::Barrier => "barrier".to_string(),
        EventKind::Store { buf, elem } => format!("store to {} (element {elem})", buf_name(buf)),
        EventKind::AsyncStore { buf, elem } => format!("async store to {} (element {elem}) issued", buf_name(buf)),
        EventKind::Commit { queue, seq } => format!("commit group {seq} of queue {queue}"),
        EventKind::Wait { queue, keep, retired } => {
            let retired = match retired {
                Some((a, b)) if a == b => format!("retired group {a}"),
                Some((a, b)) => format!("retired groups {a} to {b}"),
                None => "nothing to retire".to_string(),
            };
            format!("wait on queue {queue} until at most {keep} in flight ({retired})")
        }
        EventKind::Complete { queue, seq } => format!("group {seq} of queue {queue} completed by the schedule"),
    };
    let line = if line == 0 { "line ?".to_string() } else { format!("line {line}") };
    let who = e.who.label();
    if who.is_empty() {
        format!("{line}: {what}")
    } else {
        format!("{line}: {who}: {what}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keeps_the_last_events_in_order() {
        let mut h = History::default();
        for line in 1..=10 {
            h.push(Event { kind: EventKind::Commit { queue: 0, seq: line }, stmt: line, who: Who::default() });
        }
        let lines: Vec<u32> = h.events().iter().map(|e| e.stmt).collect();
        assert_eq!(lines, (3..=10).collect::<Vec<_>>());
    }

    #[test]
    fn renders_threads_and_buffers() {
        let mut h = History::default();
        h.push(Event {
            kind: EventKind::AsyncStore { buf: 0, elem: 3 },
            stmt: 7,
            who: Who { axes: 1, coords: [2, 0, 0] },
        });
        h.push(Event {
            kind: EventKind::Wait { queue: 0, keep: 1, retired: Some((0, 2)) },
            stmt: 9,
            who: Who::default(),
        });
        let text = h.render(&|_| "B".to_string(), &|stmt| stmt);
        assert_eq!(text[0], "line 7: threadIdx.x = 2: async store to B (element 3) issued");
        assert_eq!(text[1], "line 9: wait on queue 0 until at most 1 in flight (retired groups 0 to 2)");
    }
}
