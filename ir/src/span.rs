//! Source positions attached to statements and reported by diagnostics and faults.
//!
//! A `Span` is a 1-based line and column into the text the node was parsed from. Nodes built
//! by passes carry the span of the statement they came from, or `Span::UNKNOWN` (line 0).
//! Spans never take part in structural equality or hashing.

use std::fmt;

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Span {
    pub line: u32,
    pub col: u32,
}

impl Span {
    pub const UNKNOWN: Span = Span { line: 0, col: 0 };

    pub const fn new(line: u32, col: u32) -> Self {
        Span { line, col }
    }

    pub const fn is_known(self) -> bool {
        self.line != 0
    }
}

impl fmt::Display for Span {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.is_known() {
            write!(f, "{}:{}", self.line, self.col)
        } else {
            f.write_str("<unknown>")
        }
    }
}
