//! The TVMScript text an imported function becomes, with the foreign location of every line.
//!
//! Lines are written in order with an indentation level; a *slot* is a place reserved in the
//! middle of a block and filled later (a loop-carried value is defined at the top of the body
//! only once the body's `scf.yield` is known). A block that stays empty gets `T.evaluate(0)`.
//! Invariant: `origins[i]` is the foreign span of TIR line `i + 1` of the finished text, so
//! every diagnostic and verdict about the TIR can be put back on the line it came from.

use std::collections::HashSet;

use tirproof_ir::Span;

enum Line {
    Text { indent: usize, text: String, at: Span },
    Slot(usize),
}

#[derive(Default)]
pub struct Emitter {
    lines: Vec<Line>,
    slots: Vec<(usize, Span, Vec<String>)>,
    indent: usize,
    /// For each open block, how many lines existed when it opened.
    open: Vec<usize>,
    used: HashSet<String>,
}

impl Emitter {
    pub fn new(indent: usize) -> Emitter {
        Emitter { indent, ..Emitter::default() }
    }

    pub fn line(&mut self, at: Span, text: impl Into<String>) {
        self.lines.push(Line::Text { indent: self.indent, text: text.into(), at });
    }

    /// A header line (`for ...:`, `with ...:`, `if ...:`) whose block follows.
    pub fn open(&mut self, at: Span, text: impl Into<String>) {
        self.line(at, text);
        self.indent += 1;
        self.open.push(self.lines.len());
    }

    /// Ends the innermost block.
    pub fn close(&mut self, at: Span) {
        let start = self.open.pop().unwrap_or(0);
        // A slot may stay empty (it is filled after the block closes): a block of slots alone
        // gets a statement too.
        if !self.lines[start..].iter().any(|l| matches!(l, Line::Text { .. })) {
            self.line(at, "T.evaluate(0)");
        }
        self.indent = self.indent.saturating_sub(1);
    }

    /// How many blocks enclose the current position (0: the function body).
    pub fn depth(&self) -> usize {
        self.open.len()
    }

    /// Reserves a place at the current position for lines written later.
    pub fn slot(&mut self, at: Span) -> usize {
        let id = self.slots.len();
        self.slots.push((self.indent, at, Vec::new()));
        self.lines.push(Line::Slot(id));
        id
    }

    pub fn fill(&mut self, slot: usize, text: impl Into<String>) {
        self.slots[slot].2.push(text.into());
    }

    /// A name not used before, from `base` (made a Python identifier).
    pub fn fresh(&mut self, base: &str) -> String {
        let mut clean: String =
            base.chars().map(|c| if c.is_ascii_alphanumeric() || c == '_' { c } else { '_' }).collect();
        if clean.is_empty() || clean.starts_with(|c: char| c.is_ascii_digit()) {
            clean.insert(0, '_');
        }
        let mut name = format!("v{clean}");
        if !clean.starts_with('_') {
            name = format!("v_{clean}");
        }
        let mut n = 1;
        while !self.used.insert(name.clone()) {
            n += 1;
            name = format!("v_{clean}_{n}");
        }
        name
    }

    /// The lines at their indentation (4 spaces a level) and each line's foreign span.
    pub fn finish(self) -> (Vec<String>, Vec<Span>) {
        let mut text = Vec::new();
        let mut origins = Vec::new();
        for line in self.lines {
            match line {
                Line::Text { indent, text: t, at } => {
                    text.push(format!("{}{t}", "    ".repeat(indent)));
                    origins.push(at);
                }
                Line::Slot(id) => {
                    let (indent, at, lines) = &self.slots[id];
                    for t in lines {
                        text.push(format!("{}{t}", "    ".repeat(*indent)));
                        origins.push(*at);
                    }
                }
            }
        }
        (text, origins)
    }
}
