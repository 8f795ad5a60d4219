//! The PTX lexer: words, numbers, punctuation and comments, each with its line and column.
//!
//! A word is a run of `[A-Za-z0-9_$%.]`, so opcodes (`ld.global.v4.f32`), directives
//! (`.version`), registers (`%rd3`, `%tid.x`), labels (`$L3`), versions (`7.0`) and numbers
//! (`16`, `0f3F800000`) are single words the parser classifies; `::` between word characters
//! belongs to the word (`st.shared::cta.b32`, `.mbarrier::complete_tx::bytes`). Comments are kept as tokens:
//! the printer writes the launch grid and codegen's notes as comments.
//!
//! Invariant: lexing never fails on any input; a character that belongs to no token becomes
//! a `Punct` the parser rejects with its position.

/// A position in the text, 1-based.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Pos {
    pub line: u32,
    pub col: u32,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Tok {
    Word(String),
    Punct(char),
    /// The text of a `//` comment (after the slashes, trimmed), or of a `/* */` one.
    Comment(String),
}

fn is_word(c: char) -> bool {
    c.is_ascii_alphanumeric() || matches!(c, '_' | '$' | '%' | '.')
}

/// The tokens of `text` with their positions.
pub fn lex(text: &str) -> Vec<(Tok, Pos)> {
    let chars: Vec<char> = text.chars().collect();
    let mut out = Vec::new();
    let (mut i, mut line, mut col) = (0usize, 1u32, 1u32);
    let advance = |c: char, line: &mut u32, col: &mut u32| {
        if c == '\n' {
            *line += 1;
            *col = 1;
        } else {
            *col += 1;
        }
    };
    while let Some(&c) = chars.get(i) {
        let pos = Pos { line, col };
        if c.is_whitespace() {
            advance(c, &mut line, &mut col);
            i += 1;
        } else if c == '/' && chars.get(i + 1) == Some(&'/') {
            let start = i + 2;
            while chars.get(i).is_some_and(|c| *c != '\n') {
                advance(chars[i], &mut line, &mut col);
                i += 1;
            }
            out.push((Tok::Comment(chars[start..i].iter().collect::<String>().trim().to_string()), pos));
        } else if c == '/' && chars.get(i + 1) == Some(&'*') {
            let start = i + 2;
            i += 2;
            col += 2;
            while i < chars.len() && !(chars[i] == '*' && chars.get(i + 1) == Some(&'/')) {
                advance(chars[i], &mut line, &mut col);
                i += 1;
            }
            let end = i.min(chars.len());
            out.push((Tok::Comment(chars[start.min(end)..end].iter().collect::<String>().trim().to_string()), pos));
            i = (i + 2).min(chars.len());
            col += 2;
        } else if is_word(c) {
            let start = i;
            loop {
                if chars.get(i).is_some_and(|c| is_word(*c)) {
                    i += 1;
                    col += 1;
                } else if chars.get(i) == Some(&':')
                    && chars.get(i + 1) == Some(&':')
                    && chars.get(i + 2).is_some_and(|c| is_word(*c))
                {
                    // A qualifier's scope (`.shared::cta`, `mbarrier::complete_tx::bytes`).
                    i += 2;
                    col += 2;
                } else {
                    break;
                }
            }
            out.push((Tok::Word(chars[start..i].iter().collect()), pos));
        } else {
            out.push((Tok::Punct(c), pos));
            advance(c, &mut line, &mut col);
            i += 1;
        }
    }
    out
}
