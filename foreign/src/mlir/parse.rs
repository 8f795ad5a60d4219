//! The generic op tree of MLIR's printed text: every op with its results, name, the tokens of
//! its own syntax, its regions and its location, whatever its dialect.
//!
//! MLIR prints one op per line; a `{` that ends a line opens a region, and the region's `}`
//! starts a line, after which the op goes on (`} else {`, `} do {`, `} loc(#loc3)`). Ops of
//! every dialect are read this way without knowing their syntax, so an op the readers do not
//! interpret is still parsed and located. `#alias = ...` and `!alias = ...` lines are kept as
//! aliases (the readers look up `#loc` aliases to name source lines).
//! Invariant: the tree holds every token of the text exactly once (an op's body, its
//! location, a block header or an alias), and every failure is a located diagnostic.

use std::collections::HashMap;

use tirproof_ir::{Diagnostic, Span};

use super::lex::{lex, Tok, TokKind};

/// An op: `%r, %s = name body {regions} loc(...)`.
#[derive(Clone, Debug)]
pub struct Op {
    /// The values it defines, `%acc_58#0` ... for `%acc_58:15 = ...`.
    pub results: Vec<String>,
    pub name: String,
    /// Where the op starts (its first result, or its name).
    pub span: Span,
    /// The tokens of its own syntax, regions and location left out.
    pub body: Vec<Tok>,
    pub regions: Vec<Region>,
    /// The tokens inside its trailing `loc(...)`.
    pub loc: Vec<Tok>,
}

#[derive(Clone, Debug, Default)]
pub struct Region {
    pub blocks: Vec<Block>,
}

#[derive(Clone, Debug, Default)]
pub struct Block {
    /// `^bb1(%a: i32)`'s arguments with their types' tokens; empty for an entry block whose
    /// arguments the op's own syntax declares.
    pub args: Vec<(String, Vec<Tok>)>,
    pub ops: Vec<Op>,
}

/// A whole file.
#[derive(Clone, Debug, Default)]
pub struct Module {
    pub ops: Vec<Op>,
    /// `#name = ...` and `!name = ...` definitions, by `#name` / `!name`.
    pub aliases: HashMap<String, Vec<Tok>>,
}

/// Parses MLIR text into its op tree.
pub fn parse(text: &str) -> Result<Module, Diagnostic> {
    let toks = lex(text)?;
    let mut parser = Parser { toks: &toks, pos: 0 };
    let mut module = Module::default();
    while let Some(tok) = parser.peek() {
        if matches!(tok.kind, TokKind::Hash | TokKind::Bang) && parser.peek_at(1).is_some_and(|t| t.is("=")) {
            let key = format!("{}{}", if tok.kind == TokKind::Hash { "#" } else { "!" }, tok.text);
            parser.pos += 2;
            let value = parser.rest_of_line()?;
            module.aliases.insert(key, value);
            continue;
        }
        if tok.is("}") {
            return Err(Diagnostic::error(tok.span, "`}` closes no region"));
        }
        module.ops.push(parser.op()?);
    }
    Ok(module)
}

struct Parser<'t> {
    toks: &'t [Tok],
    pos: usize,
}

impl<'t> Parser<'t> {
    fn peek(&self) -> Option<&'t Tok> {
        self.toks.get(self.pos)
    }

    fn peek_at(&self, ahead: usize) -> Option<&'t Tok> {
        self.toks.get(self.pos + ahead)
    }

    fn next(&mut self) -> Option<&'t Tok> {
        let tok = self.toks.get(self.pos);
        self.pos += 1;
        tok
    }

    fn end_span(&self) -> Span {
        self.toks.last().map_or(Span::new(1, 1), |t| t.span)
    }

    /// Whether the token at `pos` is the first of its line.
    fn starts_line(&self, pos: usize) -> bool {
        pos == 0 || self.toks[pos - 1].span.line != self.toks[pos].span.line
    }

    /// The tokens up to the end of the line, brackets balanced.
    fn rest_of_line(&mut self) -> Result<Vec<Tok>, Diagnostic> {
        let mut out = Vec::new();
        let mut depth = Depth::default();
        while let Some(tok) = self.next() {
            depth.track(tok)?;
            out.push(tok.clone());
            if tok.line_end && depth.is_zero() {
                return Ok(out);
            }
        }
        Err(depth.unclosed(self.end_span()))
    }

    fn op(&mut self) -> Result<Op, Diagnostic> {
        let first = self.peek().ok_or_else(|| Diagnostic::error(self.end_span(), "expected an op"))?;
        let span = first.span;
        let mut results = Vec::new();
        if first.kind == TokKind::Value {
            loop {
                let tok = self.next().ok_or_else(|| Diagnostic::error(span, "expected a result"))?;
                if tok.kind != TokKind::Value {
                    return Err(Diagnostic::error(tok.span, "expected a result").expected("`%name`", &tok.text));
                }
                let mut count = 1;
                if self.peek().is_some_and(|t| t.is(":")) {
                    self.pos += 1;
                    let n = self.next().ok_or_else(|| Diagnostic::error(tok.span, "expected a result count"))?;
                    count = n.text.parse::<usize>().ok().filter(|c| (1..=4096).contains(c)).ok_or_else(|| {
                        Diagnostic::error(n.span, "expected a result count").expected("a number", &n.text)
                    })?;
                }
                if count == 1 {
                    results.push(tok.text.clone());
                } else {
                    results.extend((0..count).map(|i| format!("{}#{i}", tok.text)));
                }
                match self.next() {
                    Some(t) if t.is(",") => continue,
                    Some(t) if t.is("=") => break,
                    Some(t) => {
                        return Err(Diagnostic::error(t.span, "expected `=` after the results").expected("`=`", &t.text))
                    }
                    None => return Err(Diagnostic::error(span, "expected `=` after the results")),
                }
            }
        }
        let name_tok = self.next().ok_or_else(|| Diagnostic::error(span, "expected an op name"))?;
        if !matches!(name_tok.kind, TokKind::Word | TokKind::Str) {
            return Err(Diagnostic::error(name_tok.span, "expected an op name").expected("an op name", &name_tok.text));
        }
        let mut op =
            Op { results, name: name_tok.text.clone(), span, body: Vec::new(), regions: Vec::new(), loc: Vec::new() };
        if name_tok.line_end {
            return Ok(op);
        }
        let mut depth = Depth::default();
        while let Some(tok) = self.next() {
            if tok.is("{") && tok.line_end {
                op.regions.push(self.region(tok.span)?);
                // The region's `}` ends the op when it ends its line.
                if self.toks[self.pos - 1].line_end && depth.is_zero() {
                    break;
                }
                continue;
            }
            depth.track(tok)?;
            op.body.push(tok.clone());
            if tok.line_end && depth.is_zero() {
                break;
            }
            if self.pos == self.toks.len() && !depth.is_zero() {
                return Err(depth.unclosed(self.end_span()));
            }
        }
        split_loc(&mut op);
        Ok(op)
    }

    /// A region after its `{`, up to and including its `}`.
    fn region(&mut self, open: Span) -> Result<Region, Diagnostic> {
        let mut region = Region::default();
        let mut block = Block::default();
        loop {
            let Some(tok) = self.peek() else {
                return Err(
                    Diagnostic::error(open, "this region is never closed").expected("`}`", "the end of the file")
                );
            };
            if tok.is("}") && self.starts_line(self.pos) {
                self.pos += 1;
                region.blocks.push(block);
                return Ok(region);
            }
            if tok.kind == TokKind::Block {
                if !block.ops.is_empty() || !block.args.is_empty() {
                    region.blocks.push(std::mem::take(&mut block));
                }
                self.pos += 1;
                block.args = self.block_args()?;
                continue;
            }
            block.ops.push(self.op()?);
        }
    }

    /// `(%a: i32, %b: f32):` after a block label (or just `:`).
    fn block_args(&mut self) -> Result<Vec<(String, Vec<Tok>)>, Diagnostic> {
        let mut args = Vec::new();
        if self.peek().is_some_and(|t| t.is("(")) {
            self.pos += 1;
            loop {
                let tok = self.next().ok_or_else(|| Diagnostic::error(self.end_span(), "unclosed block arguments"))?;
                if tok.is(")") {
                    break;
                }
                if tok.is(",") {
                    continue;
                }
                if tok.kind != TokKind::Value {
                    return Err(Diagnostic::error(tok.span, "expected a block argument").expected("`%name`", &tok.text));
                }
                let colon = self.next().ok_or_else(|| Diagnostic::error(tok.span, "expected `:`"))?;
                if !colon.is(":") {
                    return Err(Diagnostic::error(colon.span, "expected `:` after a block argument")
                        .expected("`:`", &colon.text));
                }
                let mut ty = Vec::new();
                let mut depth = Depth::default();
                while let Some(t) = self.peek() {
                    if depth.is_zero() && (t.is(",") || t.is(")")) {
                        break;
                    }
                    depth.track(t)?;
                    ty.push(t.clone());
                    self.pos += 1;
                }
                args.push((tok.text.clone(), ty));
            }
        }
        match self.next() {
            Some(t) if t.is(":") => Ok(args),
            Some(t) => Err(Diagnostic::error(t.span, "expected `:` after a block label").expected("`:`", &t.text)),
            None => Err(Diagnostic::error(self.end_span(), "expected `:` after a block label")),
        }
    }
}

/// Moves a trailing `loc(...)` out of the op's body.
fn split_loc(op: &mut Op) {
    let n = op.body.len();
    if n < 3 || !op.body[n - 1].is(")") {
        return;
    }
    let mut depth = 0usize;
    for start in (0..n).rev() {
        let tok = &op.body[start];
        if tok.is(")") {
            depth += 1;
        } else if tok.is("(") {
            depth -= 1;
            if depth == 0 {
                if start > 0 && op.body[start - 1].is_word("loc") {
                    op.loc = op.body[start + 1..n - 1].to_vec();
                    op.body.truncate(start - 1);
                }
                return;
            }
        }
    }
}

/// Open brackets of each kind, so that a line end inside them does not end an op.
#[derive(Default)]
struct Depth {
    open: Vec<(char, Span)>,
}

impl Depth {
    fn track(&mut self, tok: &Tok) -> Result<(), Diagnostic> {
        if tok.kind != TokKind::Punct {
            return Ok(());
        }
        let closes = match tok.text.as_str() {
            "(" | "[" | "<" | "{" => {
                self.open.push((tok.text.chars().next().unwrap_or('('), tok.span));
                return Ok(());
            }
            ")" => '(',
            "]" => '[',
            ">" => '<',
            "}" => '{',
            _ => return Ok(()),
        };
        match self.open.pop() {
            Some((open, _)) if open == closes => Ok(()),
            Some((open, span)) => {
                Err(Diagnostic::error(tok.span, format!("`{}` does not close the `{open}` at {span}", tok.text)))
            }
            None => Err(Diagnostic::error(tok.span, format!("`{}` closes nothing", tok.text))),
        }
    }

    fn is_zero(&self) -> bool {
        self.open.is_empty()
    }

    fn unclosed(&self, at: Span) -> Diagnostic {
        match self.open.last() {
            Some((open, span)) => Diagnostic::error(*span, format!("this `{open}` is never closed")),
            None => Diagnostic::error(at, "unexpected end of the file"),
        }
    }
}
