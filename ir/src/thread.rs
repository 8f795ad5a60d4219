//! Thread tags and launches: the closed set of names a thread binding may bind
//! (`T.thread_binding(..., thread="threadIdx.x")`, `T.launch_thread("blockIdx.y", n)`), and the
//! one view of a statement as the launch it binds.
//!
//! The IR keeps a tag as the text it was written with (so the checker can name an unknown one);
//! everything that decides what a binding means parses it here, once, into a [`ThreadTag`].
//!
//! Invariants: `ThreadTag::parse(t.as_str()) == Some(t)` for every tag; a statement is a launch
//! exactly when it is a `T.launch_thread` or a `T.thread_binding` loop with a tag, whatever the
//! tag says (an unknown tag is the checker's to report, so [`Launch::tag`] is `None` then).

use std::fmt;

use crate::expr::Expr;
use crate::stmt::{For, ForKind, Stmt, StmtKind};
use crate::var::Var;

/// One of the three axes of a block of threads or a grid of blocks.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Axis {
    X,
    Y,
    Z,
}

impl Axis {
    pub const ALL: [Axis; 3] = [Axis::X, Axis::Y, Axis::Z];

    /// 0, 1 or 2.
    pub fn index(self) -> usize {
        self as usize
    }

    /// `x`, `y` or `z`.
    pub fn name(self) -> &'static str {
        match self {
            Axis::X => "x",
            Axis::Y => "y",
            Axis::Z => "z",
        }
    }

    fn parse(name: &str) -> Option<Axis> {
        Axis::ALL.into_iter().find(|a| a.name() == name)
    }
}

/// A thread tag: the thread index, the block index or a virtual thread, on an axis.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum ThreadTag {
    /// `threadIdx.x`: a thread of a block.
    Thread(Axis),
    /// `blockIdx.x`: a block of the grid.
    Block(Axis),
    /// `vthread` (no axis) or `vthread.x`: a loop the executors run serially.
    Virtual(Option<Axis>),
}

impl ThreadTag {
    /// Every tag, in the order error messages and generators list them.
    pub const ALL: [ThreadTag; 10] = [
        ThreadTag::Thread(Axis::X),
        ThreadTag::Thread(Axis::Y),
        ThreadTag::Thread(Axis::Z),
        ThreadTag::Block(Axis::X),
        ThreadTag::Block(Axis::Y),
        ThreadTag::Block(Axis::Z),
        ThreadTag::Virtual(None),
        ThreadTag::Virtual(Some(Axis::X)),
        ThreadTag::Virtual(Some(Axis::Y)),
        ThreadTag::Virtual(Some(Axis::Z)),
    ];

    /// The tag written `tag`, if it is one.
    pub fn parse(tag: &str) -> Option<ThreadTag> {
        if tag == "vthread" {
            return Some(ThreadTag::Virtual(None));
        }
        let (kind, axis) = tag.split_once('.')?;
        let axis = Axis::parse(axis)?;
        match kind {
            "threadIdx" => Some(ThreadTag::Thread(axis)),
            "blockIdx" => Some(ThreadTag::Block(axis)),
            "vthread" => Some(ThreadTag::Virtual(Some(axis))),
            _ => None,
        }
    }

    /// The TVMScript spelling (`threadIdx.x`).
    pub fn as_str(self) -> &'static str {
        match self {
            ThreadTag::Thread(Axis::X) => "threadIdx.x",
            ThreadTag::Thread(Axis::Y) => "threadIdx.y",
            ThreadTag::Thread(Axis::Z) => "threadIdx.z",
            ThreadTag::Block(Axis::X) => "blockIdx.x",
            ThreadTag::Block(Axis::Y) => "blockIdx.y",
            ThreadTag::Block(Axis::Z) => "blockIdx.z",
            ThreadTag::Virtual(None) => "vthread",
            ThreadTag::Virtual(Some(Axis::X)) => "vthread.x",
            ThreadTag::Virtual(Some(Axis::Y)) => "vthread.y",
            ThreadTag::Virtual(Some(Axis::Z)) => "vthread.z",
        }
    }

    /// The axis of a thread index (`threadIdx.*`); `None` for blocks and virtual threads.
    pub fn thread_axis(self) -> Option<Axis> {
        match self {
            ThreadTag::Thread(axis) => Some(axis),
            _ => None,
        }
    }

    /// Whether the tag binds a block of the grid (`blockIdx.*`).
    pub fn is_block(self) -> bool {
        matches!(self, ThreadTag::Block(_))
    }
}

impl fmt::Display for ThreadTag {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A thread binding seen the same way whether it is a `T.thread_binding` loop or a
/// `T.launch_thread` (which starts at zero).
#[derive(Clone, Copy, Debug)]
pub struct Launch<'a> {
    pub var: &'a Var,
    /// The tag as written.
    pub written: &'a str,
    /// The tag, `None` when the written one is unknown.
    pub tag: Option<ThreadTag>,
    /// The loop's minimum; `None` for a launch (zero of the variable's type).
    pub min: Option<&'a Expr>,
    pub extent: &'a Expr,
    pub body: &'a Stmt,
}

impl<'a> Launch<'a> {
    /// The launch of `T.launch_thread(tag, extent)` binding `var` over `body`.
    pub fn of_launch_thread(var: &'a Var, tag: &'a str, extent: &'a Expr, body: &'a Stmt) -> Launch<'a> {
        Launch { var, written: tag, tag: ThreadTag::parse(tag), min: None, extent, body }
    }
}

impl For {
    /// The launch of a `T.thread_binding` loop with a tag.
    pub fn launch(&self) -> Option<Launch<'_>> {
        let written = self.thread.as_deref().filter(|_| self.kind == ForKind::ThreadBinding)?;
        Some(Launch {
            var: &self.var,
            written,
            tag: ThreadTag::parse(written),
            min: Some(&self.min),
            extent: &self.extent,
            body: &self.body,
        })
    }
}

impl Stmt {
    /// The launch this statement binds: a `T.thread_binding` loop with a tag or a
    /// `T.launch_thread`.
    pub fn launch(&self) -> Option<Launch<'_>> {
        match &self.kind {
            StmtKind::For(f) => f.launch(),
            StmtKind::LaunchThread { var, tag, extent, body } => Some(Launch::of_launch_thread(var, tag, extent, body)),
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_tag_parses_back_and_nothing_else_parses() {
        for tag in ThreadTag::ALL {
            assert_eq!(ThreadTag::parse(tag.as_str()), Some(tag));
            assert_eq!(tag.to_string(), tag.as_str());
        }
        for wrong in ["threadIdx", "threadIdx.w", "blockIdx.", "vthread.", "warpIdx.x", "", "ThreadIdx.x"] {
            assert_eq!(ThreadTag::parse(wrong), None, "{wrong}");
        }
    }

    #[test]
    fn thread_axes_are_the_thread_index_only() {
        assert_eq!(ThreadTag::parse("threadIdx.z").and_then(ThreadTag::thread_axis), Some(Axis::Z));
        assert_eq!(ThreadTag::parse("blockIdx.x").and_then(ThreadTag::thread_axis), None);
        assert!(ThreadTag::parse("blockIdx.y").is_some_and(ThreadTag::is_block));
        assert!(!ThreadTag::parse("vthread").is_some_and(ThreadTag::is_block));
    }
}
