//! Source positions attached to statements and reported by diagnostics and faults.
//!
//! A `Span` is a 1-based line and column into the text the node was parsed from. Nodes built
//! by passes carry the span of the statement they came from, or `Span::UNKNOWN` (line 0).
//! Spans never take part in structural equality or hashing. Lines end at `\r\n`, `\r` or `\n`
//! everywhere (lexer, diagnostics, decoding errors): `source_lines` and `Span::after` are the
//! one home of that rule.

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

/// The lines of `text`, split where the lexer counts a line end: `\r\n`, a lone `\r` (old Mac
/// files) or `\n`. Like `str::lines`, a final line end does not start an empty last line.
pub fn source_lines(text: &str) -> SourceLines<'_> {
    SourceLines { rest: Some(text) }
}

/// The iterator of [`source_lines`].
#[derive(Clone, Debug)]
pub struct SourceLines<'a> {
    rest: Option<&'a str>,
}

impl<'a> Iterator for SourceLines<'a> {
    type Item = &'a str;

    fn next(&mut self) -> Option<&'a str> {
        let rest = self.rest?;
        let Some(end) = rest.find(['\r', '\n']) else {
            self.rest = None;
            return (!rest.is_empty()).then_some(rest);
        };
        let end_len = if rest[end..].starts_with("\r\n") { 2 } else { 1 };
        self.rest = Some(&rest[end + end_len..]);
        Some(&rest[..end])
    }
}

impl Span {
    /// The position just after `prefix` (the text before some point of a file), counting line
    /// ends as [`source_lines`] does and columns in characters.
    pub fn after(prefix: &str) -> Span {
        let line_ends = prefix.matches('\n').count() + prefix.matches('\r').count() - prefix.matches("\r\n").count();
        let line_start = prefix.rfind(['\r', '\n']).map_or(0, |at| at + 1);
        let col = prefix[line_start..].chars().count() + 1;
        Span::new(saturating_u32(line_ends + 1), saturating_u32(col))
    }
}

fn saturating_u32(n: usize) -> u32 {
    u32::try_from(n).unwrap_or(u32::MAX)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_line_end_convention_ends_a_line() {
        let lines: Vec<&str> = source_lines("a\r\nb\rc\nd\n").collect();
        assert_eq!(lines, ["a", "b", "c", "d"]);
        assert_eq!(source_lines("").count(), 0);
        assert_eq!(source_lines("\r\r").collect::<Vec<_>>(), ["", ""]);
    }

    #[test]
    fn position_after_a_prefix_counts_every_line_end_once() {
        assert_eq!(Span::after(""), Span::new(1, 1));
        assert_eq!(Span::after("ab"), Span::new(1, 3));
        assert_eq!(Span::after("a\r\nb\rc\néx"), Span::new(4, 3));
        assert_eq!(Span::after("a\r"), Span::new(2, 1));
    }
}
