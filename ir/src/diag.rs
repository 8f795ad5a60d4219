//! Diagnostics shared by the lexer, the parser and the checker.
//!
//! A `Diagnostic` is a located message with optional expected/found parts and notes. Rendering
//! follows the compiler convention `file:line:col: error: message`, then the source line and a
//! caret under the column. Collections keep source order so output is deterministic.

use std::fmt;

use crate::span::{source_lines, Span};

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Severity {
    Error,
    Warning,
}

impl fmt::Display for Severity {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Severity::Error => "error",
            Severity::Warning => "warning",
        })
    }
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Diagnostic {
    pub severity: Severity,
    pub span: Span,
    pub message: String,
    /// What the reader expected at `span`, e.g. "`)`".
    pub expected: Option<String>,
    /// What was there instead, e.g. "`:`".
    pub found: Option<String>,
    pub notes: Vec<String>,
}

impl Diagnostic {
    pub fn error(span: Span, message: impl Into<String>) -> Self {
        Diagnostic {
            severity: Severity::Error,
            span,
            message: message.into(),
            expected: None,
            found: None,
            notes: Vec::new(),
        }
    }

    pub fn warning(span: Span, message: impl Into<String>) -> Self {
        Diagnostic { severity: Severity::Warning, ..Diagnostic::error(span, message) }
    }

    pub fn expected(mut self, expected: impl Into<String>, found: impl Into<String>) -> Self {
        self.expected = Some(expected.into());
        self.found = Some(found.into());
        self
    }

    pub fn note(mut self, note: impl Into<String>) -> Self {
        self.notes.push(note.into());
        self
    }

    /// The one-line headline: `line:col: error: message (expected X, found Y)`.
    pub fn headline(&self) -> String {
        let mut line = format!("{}: {}: {}", self.span, self.severity, self.message);
        if let (Some(e), Some(f)) = (&self.expected, &self.found) {
            line.push_str(&format!(": expected {e}, found {f}"));
        }
        line
    }

    /// Renders the diagnostic with the file name, the source line and a caret.
    pub fn render(&self, file_name: &str, source: &str) -> String {
        let mut out = format!("{file_name}:{}", self.headline());
        if let Some(text) = source_line(source, self.span.line) {
            let gutter = self.span.line.to_string();
            let pad = " ".repeat(gutter.len());
            let (echo, caret_col) = echo_line(text, self.span.col);
            out.push_str(&format!("\n{pad} |\n{gutter} | {echo}\n{pad} | {}^", " ".repeat(caret_col)));
        }
        for note in &self.notes {
            out.push_str(&format!("\n  = note: {note}"));
        }
        out
    }
}

impl fmt::Display for Diagnostic {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.headline())
    }
}

fn source_line(source: &str, line: u32) -> Option<&str> {
    let index = usize::try_from(line).ok()?.checked_sub(1)?;
    source_lines(source).nth(index)
}

/// The source line as it is safe to print, and the display column of the caret under column
/// `col` (1-based, in characters). Control characters (terminal escape sequences among them)
/// and bidirectional overrides are escaped visibly, so echoing a line cannot drive the
/// terminal or reorder what the reader sees; tabs become four spaces so the caret lines up.
fn echo_line(text: &str, col: u32) -> (String, usize) {
    let mut before = col.max(1) as usize - 1;
    let mut echo = String::new();
    let mut caret = 0;
    // A long line is shown as a window around the caret, marked `...` where it is cut.
    let first = before.saturating_sub(MAX_ECHOED_CHARS / 2);
    let cut_after = text.chars().count() > first + MAX_ECHOED_CHARS;
    if first > 0 {
        echo.push_str("...");
        caret += 3;
        before -= first;
    }
    for (index, c) in text.chars().skip(first).take(MAX_ECHOED_CHARS).enumerate() {
        let start = echo.len();
        let shown_as_is = match c {
            '\t' => {
                echo.push_str("    ");
                false
            }
            c if c.is_control() || is_bidi_control(c) => {
                echo.push_str(&escaped(c));
                false
            }
            c => {
                echo.push(c);
                true
            }
        };
        if index < before {
            // A replacement is ASCII, one column per byte; any other character takes one.
            caret += if shown_as_is { 1 } else { echo.len() - start };
        }
    }
    if cut_after {
        echo.push_str("...");
    }
    (echo, caret)
}

/// `\x1b` for the C0 and C1 controls, `\u{202e}` beyond, as Python writes them.
fn escaped(c: char) -> String {
    let code = u32::from(c);
    if code < 0x100 {
        format!("\\x{code:02x}")
    } else {
        format!("\\u{{{code:x}}}")
    }
}

/// Characters that reorder displayed text (the "Trojan Source" set).
fn is_bidi_control(c: char) -> bool {
    matches!(c, '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}' | '\u{200e}' | '\u{200f}' | '\u{061c}')
}

/// How many diagnostics of one file are rendered.
pub const MAX_RENDERED: usize = 100;

/// Source lines longer than this many characters are echoed as a window around the caret.
const MAX_ECHOED_CHARS: usize = 160;

/// Several diagnostics, in source order.
#[derive(Clone, Debug, Default, PartialEq, Eq, thiserror::Error)]
pub struct Diagnostics(pub Vec<Diagnostic>);

impl Diagnostics {
    pub fn new() -> Self {
        Diagnostics(Vec::new())
    }
    pub fn push(&mut self, d: Diagnostic) {
        self.0.push(d);
    }
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
    pub fn len(&self) -> usize {
        self.0.len()
    }
    pub fn has_errors(&self) -> bool {
        self.0.iter().any(|d| d.severity == Severity::Error)
    }
    pub fn iter(&self) -> std::slice::Iter<'_, Diagnostic> {
        self.0.iter()
    }
    /// Sorts by position, keeping the insertion order of equal positions.
    pub fn sort(&mut self) {
        self.0.sort_by_key(|d| d.span);
    }
    /// Renders the first `MAX_RENDERED` diagnostics, separated by blank lines, then how many
    /// more there are: a file full of one mistake (thousands of unclosed brackets) should not
    /// bury the first ones or take memory in proportion to its square.
    pub fn render(&self, file_name: &str, source: &str) -> String {
        let mut out = self.0.iter().take(MAX_RENDERED).map(|d| d.render(file_name, source)).collect::<Vec<_>>();
        let hidden = self.0.len().saturating_sub(MAX_RENDERED);
        if hidden > 0 {
            let plural = if hidden == 1 { "" } else { "s" };
            out.push(format!("{file_name}: {hidden} more diagnostic{plural} not shown"));
        }
        out.join("\n\n")
    }
}

impl fmt::Display for Diagnostics {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, d) in self.0.iter().enumerate() {
            if i > 0 {
                writeln!(f)?;
            }
            write!(f, "{d}")?;
        }
        Ok(())
    }
}

impl From<Diagnostic> for Diagnostics {
    fn from(d: Diagnostic) -> Self {
        Diagnostics(vec![d])
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn renders_location_line_and_caret() {
        let src = "def f():\n    x = (1 +\n";
        let d = Diagnostic::error(Span::new(2, 13), "unexpected end of input").expected("an expression", "end of file");
        let text = d.render("a.py", src);
        assert_eq!(
            text,
            "a.py:2:13: error: unexpected end of input: expected an expression, found end of file\n  |\n2 |     x = (1 +\n  |             ^"
        );
    }

    #[test]
    fn lines_end_at_lone_carriage_returns_too() {
        let src = "def f():\r    x = 1\r    y = (\r";
        let d = Diagnostic::error(Span::new(3, 9), "unclosed `(`");
        assert!(d.render("a.py", src).ends_with("\n3 |     y = (\n  |         ^"), "{}", d.render("a.py", src));
    }

    #[test]
    fn control_characters_are_echoed_escaped_with_the_caret_in_place() {
        let src = "x = \u{1b}[31m\u{202e}\t$";
        let d = Diagnostic::error(Span::new(1, 12), "unexpected character `$`");
        let text = d.render("a.py", src);
        assert!(!text.contains('\u{1b}') && !text.contains('\u{202e}') && !text.contains('\t'), "{text:?}");
        let echoed = "x = \\x1b[31m\\u{202e}    $";
        let caret_col = echoed.len() - 1;
        assert!(text.ends_with(&format!("1 | {echoed}\n  | {}^", " ".repeat(caret_col))), "{text}");
    }

    #[test]
    fn long_lines_are_echoed_around_the_caret_and_many_diagnostics_are_capped() {
        let line = format!("x = {}", "(".repeat(10_000));
        let unclosed: Vec<Diagnostic> =
            (5..10_005).map(|col| Diagnostic::error(Span::new(1, col), "unclosed `(`")).collect();
        let text = Diagnostics(unclosed).render("a.py", &line);
        assert!(text.len() < 100 * 600, "{} bytes", text.len());
        assert!(text.ends_with("a.py: 9900 more diagnostics not shown"), "{}", &text[text.len() - 80..]);
        let far = Diagnostic::error(Span::new(1, 5000), "unclosed `(`").render("a.py", &line);
        let echoed: Vec<&str> = far.lines().skip(2).collect();
        let caret = echoed[1].find('^').unwrap_or(0);
        assert!(echoed[0].starts_with("1 | ...(") && echoed[0].ends_with("(..."), "{far}");
        assert_eq!(echoed[0].as_bytes()[caret], b'(', "{far}");
        assert!(echoed[0].len() < 200);
    }
}
