//! Diagnostics shared by the lexer, the parser and the checker.
//!
//! A `Diagnostic` is a located message with optional expected/found parts and notes. Rendering
//! follows the compiler convention `file:line:col: error: message`, then the source line and a
//! caret under the column. Collections keep source order so output is deterministic.

use std::fmt;

use crate::span::Span;

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
            let caret_col = caret_offset(text, self.span.col);
            out.push_str(&format!("\n{pad} |\n{gutter} | {text}\n{pad} | {}^", " ".repeat(caret_col)));
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
    if line == 0 {
        return None;
    }
    source.lines().nth(line as usize - 1).map(|l| l.trim_end_matches('\r'))
}

/// Display width before column `col` (1-based, counted in characters).
fn caret_offset(text: &str, col: u32) -> usize {
    let col = col.max(1) as usize - 1;
    text.chars().take(col).map(|c| if c == '\t' { 4 } else { 1 }).sum()
}

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
    /// Renders every diagnostic, separated by blank lines.
    pub fn render(&self, file_name: &str, source: &str) -> String {
        self.0.iter().map(|d| d.render(file_name, source)).collect::<Vec<_>>().join("\n\n")
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
}
