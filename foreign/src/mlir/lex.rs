//! The lexer of MLIR's printed text, the subset both readers need.
//!
//! Tokens keep their 1-based line and column. What the readers interpret is split finely
//! (`%names`, `@symbols`, `#aliases`, `!types`, `^blocks`, punctuation, strings); everything
//! else is a *word*: a run of letters, digits and `_ . $` (a number, a keyword, a shape such as
//! `2x32xf16`, a dialect op name). `->` is one token, so a `>` always closes a `<`.
//! Invariant: lexing never fails on text that is not MLIR; it fails only on an unterminated
//! string or a character no token starts with, with the character's location.

use tirproof_ir::{Diagnostic, Span};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TokKind {
    /// `%name`, `%name#3` (the text keeps the `#3`).
    Value,
    /// `@name` or `@"name"`.
    Symbol,
    /// `#name` (an attribute alias) or a `#dialect.attr` start.
    Hash,
    /// `!name` (a type alias or a dialect type).
    Bang,
    /// `^bb0`.
    Block,
    Word,
    Str,
    Punct,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Tok {
    pub kind: TokKind,
    pub text: String,
    pub span: Span,
    /// Whether this token ends its line (a `{` there opens a region).
    pub line_end: bool,
}

impl Tok {
    pub fn is(&self, punct: &str) -> bool {
        self.kind == TokKind::Punct && self.text == punct
    }

    pub fn is_word(&self, word: &str) -> bool {
        self.kind == TokKind::Word && self.text == word
    }
}

fn is_word_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || matches!(c, '_' | '.' | '$')
}

fn is_name_char(c: char) -> bool {
    is_word_char(c) || c == '-'
}

/// The tokens of `text`; `//` comments are dropped.
pub fn lex(text: &str) -> Result<Vec<Tok>, Diagnostic> {
    let mut toks: Vec<Tok> = Vec::new();
    for (index, line) in tirproof_ir::span::source_lines(text).enumerate() {
        let line_no = u32::try_from(index + 1).unwrap_or(u32::MAX);
        let chars: Vec<(usize, char)> = line.char_indices().collect();
        let mut i = 0;
        let start_count = toks.len();
        while i < chars.len() {
            let (_, c) = chars[i];
            let col = u32::try_from(i + 1).unwrap_or(u32::MAX);
            let span = Span::new(line_no, col);
            if c.is_whitespace() {
                i += 1;
                continue;
            }
            if c == '/' && chars.get(i + 1).is_some_and(|(_, d)| *d == '/') {
                break;
            }
            let take = |i: &mut usize, pred: &dyn Fn(char) -> bool| {
                let begin = *i;
                while *i < chars.len() && pred(chars[*i].1) {
                    *i += 1;
                }
                chars[begin..*i].iter().map(|(_, c)| *c).collect::<String>()
            };
            let tok = match c {
                '%' | '@' | '#' | '!' | '^' => {
                    i += 1;
                    if c == '@' && chars.get(i).is_some_and(|(_, d)| *d == '"') {
                        let s = string(&chars, &mut i, span)?;
                        Tok { kind: TokKind::Symbol, text: s, span, line_end: false }
                    } else {
                        let mut name = take(&mut i, &is_name_char);
                        if c == '%' && chars.get(i).is_some_and(|(_, d)| *d == '#') {
                            i += 1;
                            name.push('#');
                            name.push_str(&take(&mut i, &|d: char| d.is_ascii_digit()));
                        }
                        let kind = match c {
                            '%' => TokKind::Value,
                            '@' => TokKind::Symbol,
                            '#' => TokKind::Hash,
                            '!' => TokKind::Bang,
                            _ => TokKind::Block,
                        };
                        if name.is_empty() && c != '#' && c != '!' {
                            return Err(Diagnostic::error(span, format!("`{c}` is not followed by a name")));
                        }
                        Tok { kind, text: name, span, line_end: false }
                    }
                }
                '"' => {
                    let s = string(&chars, &mut i, span)?;
                    Tok { kind: TokKind::Str, text: s, span, line_end: false }
                }
                '-' if chars.get(i + 1).is_some_and(|(_, d)| *d == '>') => {
                    i += 2;
                    Tok { kind: TokKind::Punct, text: "->".into(), span, line_end: false }
                }
                c if is_word_char(c) => {
                    let mut word = take(&mut i, &is_word_char);
                    // A float's exponent: `1.0e+00`.
                    if word.starts_with(|d: char| d.is_ascii_digit())
                        && word.ends_with(['e', 'E'])
                        && chars.get(i).is_some_and(|(_, d)| matches!(d, '+' | '-'))
                    {
                        word.push(chars[i].1);
                        i += 1;
                        word.push_str(&take(&mut i, &is_word_char));
                    }
                    Tok { kind: TokKind::Word, text: word, span, line_end: false }
                }
                '(' | ')' | '[' | ']' | '{' | '}' | '<' | '>' | ',' | ':' | '=' | '*' | '+' | '-' | '?' | '|' | '/'
                | '&' => {
                    i += 1;
                    Tok { kind: TokKind::Punct, text: c.to_string(), span, line_end: false }
                }
                other => {
                    return Err(Diagnostic::error(span, format!("unexpected character `{}`", other.escape_default())));
                }
            };
            toks.push(tok);
        }
        if toks.len() > start_count {
            if let Some(last) = toks.last_mut() {
                last.line_end = true;
            }
        }
    }
    Ok(toks)
}

/// A string starting at `chars[*i]` (a `"`), with its escapes kept as written.
fn string(chars: &[(usize, char)], i: &mut usize, span: Span) -> Result<String, Diagnostic> {
    *i += 1;
    let mut s = String::new();
    while *i < chars.len() {
        let c = chars[*i].1;
        *i += 1;
        match c {
            '"' => return Ok(s),
            '\\' if *i < chars.len() => {
                s.push(c);
                s.push(chars[*i].1);
                *i += 1;
            }
            _ => s.push(c),
        }
    }
    Err(Diagnostic::error(span, "unterminated string"))
}
