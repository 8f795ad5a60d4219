//! Mutations of program text, for fuzzing the parser: a few random token- and line-level edits
//! of a printed program (delete, duplicate or swap tokens or lines, extreme numbers, changed
//! identifiers, unbalanced brackets, odd characters, a truncation).
//!
//! The text is split into tokens that cover it exactly (identifiers, numbers, runs of
//! spaces, newlines, single other characters), so splitting never loses a character and
//! every edit keeps the result valid UTF-8. The result may or may not parse; the parser must
//! answer either way without panicking.

use arbitrary::{Result, Unstructured};

/// Numbers that stress the parser's integer and float handling.
const EXTREME_NUMBERS: [&str; 14] = [
    "-1",
    "0",
    "-0",
    "2147483647",
    "2147483648",
    "-2147483649",
    "4294967296",
    "9223372036854775807",
    "9223372036854775808",
    "-9223372036854775808",
    "18446744073709551616",
    "99999999999999999999999999999",
    "1e308",
    "0.0000000000000000000000001",
];

/// Replacement identifiers: undefined names, keywords, and names TVMScript gives meaning to.
const IDENTIFIERS: [&str; 12] =
    ["x_undefined", "T", "I", "def", "for", "in", "with", "range", "float32", "int64", "annotations", "None"];

/// Tokens to insert: brackets (unbalancing them), separators and other syntax.
const INSERTABLE: [&str; 20] =
    ["(", ")", "[", "]", "{", "}", ":", ",", "=", ".", "\"", "'", "#", "\\", "\t", "\n", "    ", "T.", "λ", "\u{0}"];

/// How many edits one mutation makes at most.
const MAX_EDITS: u8 = 4;

/// `base` with one to four random edits.
pub fn mutated_text(u: &mut Unstructured<'_>, base: &str) -> Result<String> {
    let mut tokens = tokenize(base);
    let edits = u.int_in_range(1..=MAX_EDITS)?;
    for _ in 0..edits {
        edit(u, &mut tokens)?;
    }
    Ok(tokens.concat())
}

fn edit(u: &mut Unstructured<'_>, tokens: &mut Vec<String>) -> Result<()> {
    match u.int_in_range(0u8..=10)? {
        0 => delete_token(u, tokens),
        1 => duplicate_token(u, tokens),
        2 => swap_tokens(u, tokens),
        3 => replace_number(u, tokens),
        4 => replace_identifier(u, tokens),
        5 => insert_token(u, tokens),
        6 => delete_line(u, tokens),
        7 => duplicate_line(u, tokens),
        8 => swap_lines(u, tokens),
        9 => delete_bracket(u, tokens),
        _ => truncate(u, tokens),
    }
}

/// Splits text into tokens whose concatenation is the text.
fn tokenize(text: &str) -> Vec<String> {
    let mut tokens: Vec<String> = Vec::new();
    let mut current = String::new();
    let mut current_class = None;
    for c in text.chars() {
        let class = char_class(c);
        let joins = class != CharClass::Other && Some(class) == current_class;
        if !joins && !current.is_empty() {
            tokens.push(std::mem::take(&mut current));
        }
        current.push(c);
        current_class = Some(class);
    }
    if !current.is_empty() {
        tokens.push(current);
    }
    tokens
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum CharClass {
    Word,
    Space,
    Other,
}

fn char_class(c: char) -> CharClass {
    if c.is_alphanumeric() || c == '_' {
        CharClass::Word
    } else if c == ' ' {
        CharClass::Space
    } else {
        CharClass::Other
    }
}

/// A random index below `len`, or `None` when there is nothing to choose from.
fn pick(u: &mut Unstructured<'_>, len: usize) -> Result<Option<usize>> {
    if len == 0 {
        return Ok(None);
    }
    u.choose_index(len).map(Some)
}

/// A random index among the tokens satisfying `keep`.
fn pick_where(u: &mut Unstructured<'_>, tokens: &[String], keep: impl Fn(&str) -> bool) -> Result<Option<usize>> {
    let candidates: Vec<usize> = (0..tokens.len()).filter(|&k| keep(&tokens[k])).collect();
    Ok(pick(u, candidates.len())?.and_then(|k| candidates.get(k).copied()))
}

fn is_number(token: &str) -> bool {
    token.starts_with(|c: char| c.is_ascii_digit())
}

fn is_identifier(token: &str) -> bool {
    token.starts_with(|c: char| c.is_alphabetic() || c == '_')
}

fn is_bracket(token: &str) -> bool {
    matches!(token, "(" | ")" | "[" | "]" | "{" | "}")
}

fn delete_token(u: &mut Unstructured<'_>, tokens: &mut Vec<String>) -> Result<()> {
    if let Some(k) = pick(u, tokens.len())? {
        tokens.remove(k);
    }
    Ok(())
}

fn duplicate_token(u: &mut Unstructured<'_>, tokens: &mut Vec<String>) -> Result<()> {
    if let Some(k) = pick(u, tokens.len())? {
        let copy = tokens[k].clone();
        tokens.insert(k, copy);
    }
    Ok(())
}

fn swap_tokens(u: &mut Unstructured<'_>, tokens: &mut [String]) -> Result<()> {
    if let (Some(a), Some(b)) = (pick(u, tokens.len())?, pick(u, tokens.len())?) {
        tokens.swap(a, b);
    }
    Ok(())
}

fn replace_number(u: &mut Unstructured<'_>, tokens: &mut [String]) -> Result<()> {
    if let Some(k) = pick_where(u, tokens, is_number)? {
        tokens[k] = (*u.choose(&EXTREME_NUMBERS)?).to_string();
    }
    Ok(())
}

/// Another identifier of the text, or one from `IDENTIFIERS`.
fn replace_identifier(u: &mut Unstructured<'_>, tokens: &mut [String]) -> Result<()> {
    let Some(k) = pick_where(u, tokens, is_identifier)? else {
        return Ok(());
    };
    let replacement = match pick_where(u, tokens, is_identifier)? {
        Some(other) if u.arbitrary::<bool>()? => tokens[other].clone(),
        _ => (*u.choose(&IDENTIFIERS)?).to_string(),
    };
    tokens[k] = replacement;
    Ok(())
}

fn insert_token(u: &mut Unstructured<'_>, tokens: &mut Vec<String>) -> Result<()> {
    let at = pick(u, tokens.len() + 1)?.unwrap_or(0);
    tokens.insert(at, (*u.choose(&INSERTABLE)?).to_string());
    Ok(())
}

fn delete_bracket(u: &mut Unstructured<'_>, tokens: &mut Vec<String>) -> Result<()> {
    if let Some(k) = pick_where(u, tokens, is_bracket)? {
        tokens.remove(k);
    }
    Ok(())
}

fn truncate(u: &mut Unstructured<'_>, tokens: &mut Vec<String>) -> Result<()> {
    if let Some(k) = pick(u, tokens.len())? {
        tokens.truncate(k);
    }
    Ok(())
}

/// The token ranges of the lines (each line includes its newline token).
fn line_ranges(tokens: &[String]) -> Vec<std::ops::Range<usize>> {
    let mut ranges = Vec::new();
    let mut start = 0;
    for (k, t) in tokens.iter().enumerate() {
        if t == "\n" {
            ranges.push(start..k + 1);
            start = k + 1;
        }
    }
    if start < tokens.len() {
        ranges.push(start..tokens.len());
    }
    ranges
}

fn delete_line(u: &mut Unstructured<'_>, tokens: &mut Vec<String>) -> Result<()> {
    let lines = line_ranges(tokens);
    if let Some(line) = pick(u, lines.len())?.and_then(|k| lines.get(k).cloned()) {
        tokens.drain(line);
    }
    Ok(())
}

fn duplicate_line(u: &mut Unstructured<'_>, tokens: &mut Vec<String>) -> Result<()> {
    let lines = line_ranges(tokens);
    if let Some(line) = pick(u, lines.len())?.and_then(|k| lines.get(k).cloned()) {
        let copy: Vec<String> = tokens[line.clone()].to_vec();
        tokens.splice(line.end..line.end, copy);
    }
    Ok(())
}

fn swap_lines(u: &mut Unstructured<'_>, tokens: &mut Vec<String>) -> Result<()> {
    let lines = line_ranges(tokens);
    let (Some(a), Some(b)) = (pick(u, lines.len())?, pick(u, lines.len())?) else {
        return Ok(());
    };
    let mut pieces: Vec<Vec<String>> = lines.iter().map(|r| tokens[r.clone()].to_vec()).collect();
    pieces.swap(a, b);
    *tokens = pieces.concat();
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tokens_cover_the_text() {
        let text = "for i in T.serial(16, annotations={\"a\": [0, 1]}):\n    B[0] = A[i] * 2.5\n";
        assert_eq!(tokenize(text).concat(), text);
    }

    #[test]
    fn no_bytes_still_mutate() {
        let mut u = Unstructured::new(&[]);
        let text = "x = 1\n";
        assert!(mutated_text(&mut u, text).is_ok());
    }
}
