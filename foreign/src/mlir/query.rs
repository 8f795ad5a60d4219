//! Questions the readers ask of an op's own tokens: its operands, an integer attribute, the
//! types it names. They read the printed syntax of the ops the readers interpret; the answers
//! for other ops are best effort and never trusted for an async op.

use super::lex::{Tok, TokKind};
use super::parse::Op;

impl Op {
    /// The `%values` of its body before the first `:` outside brackets (its types follow that)
    /// and outside any attribute dictionary.
    pub fn operands(&self) -> Vec<&Tok> {
        let mut out = Vec::new();
        let mut braces = 0usize;
        let mut depth = 0usize;
        for tok in &self.body {
            match tok.text.as_str() {
                "{" if tok.kind == TokKind::Punct => braces += 1,
                "}" if tok.kind == TokKind::Punct => braces = braces.saturating_sub(1),
                "(" | "[" | "<" if tok.kind == TokKind::Punct => depth += 1,
                ")" | "]" | ">" if tok.kind == TokKind::Punct => depth = depth.saturating_sub(1),
                ":" if tok.kind == TokKind::Punct && braces == 0 && depth == 0 => break,
                _ => {}
            }
            if tok.kind == TokKind::Value && braces == 0 {
                out.push(tok);
            }
        }
        out
    }

    /// `name = 12 : i32` in an attribute dictionary (also `name = -1`).
    pub fn int_attr(&self, name: &str) -> Option<i64> {
        let body = &self.body;
        (0..body.len()).find_map(|i| {
            if body[i].text != name || !body.get(i + 1).is_some_and(|t| t.is("=")) {
                return None;
            }
            let (neg, at) = if body.get(i + 2).is_some_and(|t| t.is("-")) { (true, i + 3) } else { (false, i + 2) };
            let v: i64 = body.get(at)?.text.parse().ok()?;
            Some(if neg { -v } else { v })
        })
    }

    /// Whether its attribute dictionary has `name`.
    pub fn has_attr(&self, name: &str) -> bool {
        self.body.windows(2).any(|w| w[0].text == name && w[1].is("="))
    }

    /// The tokens after the last top-level `->`, or after the first top-level `:` when there is
    /// no arrow: the type of its (first) result in the printed forms the readers know.
    pub fn result_type(&self) -> &[Tok] {
        let mut depth = 0usize;
        let mut colon = None;
        let mut arrow = None;
        for (i, tok) in self.body.iter().enumerate() {
            if tok.kind != TokKind::Punct {
                continue;
            }
            match tok.text.as_str() {
                "(" | "[" | "<" | "{" => depth += 1,
                ")" | "]" | ">" | "}" => depth = depth.saturating_sub(1),
                ":" if depth == 0 && colon.is_none() => colon = Some(i + 1),
                "->" if depth == 0 => arrow = Some(i + 1),
                _ => {}
            }
        }
        match arrow.or(colon) {
            Some(i) => &self.body[i..],
            None => &[],
        }
    }

    /// The first word of the body (a predicate such as `sgt`, a constant).
    pub fn first_word(&self) -> Option<&Tok> {
        self.body.first().filter(|t| t.kind == TokKind::Word)
    }
}

/// A scalar type's name when `ty` is exactly one (`i32`, `index`, ...).
pub fn scalar_type(ty: &[Tok]) -> Option<&str> {
    match ty {
        [t] if t.kind == TokKind::Word => Some(t.text.as_str()),
        [t, paren] if t.kind == TokKind::Word && paren.is(")") => Some(t.text.as_str()),
        _ => None,
    }
}

/// `2x32x32xf16` as its dimensions and element type.
pub fn shape_word(word: &str) -> Option<(Vec<i64>, &str)> {
    let mut dims = Vec::new();
    let mut rest = word;
    loop {
        let Some(x) = rest.find('x') else {
            return Some((dims, rest)).filter(|(_, e)| !e.is_empty());
        };
        match rest[..x].parse::<i64>() {
            Ok(d) if d >= 0 => {
                dims.push(d);
                rest = &rest[x + 1..];
            }
            _ => return Some((dims, rest)).filter(|(_, e)| !e.is_empty()),
        }
    }
}

/// Bytes of one element of an MLIR element type; `None` for a type the readers do not size.
pub fn element_bytes(ty: &str) -> Option<i64> {
    Some(match ty {
        "f64" | "i64" | "index" => 8,
        "f32" | "i32" | "tf32" => 4,
        "f16" | "bf16" | "i16" => 2,
        "i8" | "i1" => 1,
        t if t.starts_with("f8") => 1,
        _ => return None,
    })
}
