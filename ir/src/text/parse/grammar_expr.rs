//! The expression grammar: tokens to `PExpr`, with Python's precedence.
//!
//! Precedence, loosest first: `or` < `and` < `not` < comparisons < `|` < `^` < `&` <
//! `<<` `>>` < `+` `-` < `*` `/` `//` `%` < unary `-` `+` `~` < `**` < postfix (`.name`,
//! calls, subscripts) < atoms. Binary operators are parsed by precedence climbing and are
//! left-associative; `**` is right-associative. Comparisons do not chain (`a < b < c` is an
//! error, TIR has no chained comparison).
//!
//! Invariants: every recursive descent goes through `Cursor::nested`, and every node is built
//! through `node`, which refuses trees higher than `MAX_NESTING`; so neither the grammar nor
//! any later walk over its output can overflow the stack.

use crate::diag::Diagnostic;
use crate::expr::{BinOp, CmpOp, LogicOp};
use crate::span::Span;
use crate::text::lex::{Punct, TokenKind};

use super::ast::{ArithOp, Kwarg, PExpr, PExprKind, PIndex, UnaryOp};
use super::cursor::{is_keyword, Abort, Cursor, PResult};
use super::MAX_NESTING;

/// Binding powers (higher binds tighter), as in `crate::expr::prec`.
const OR: u8 = 1;
const AND: u8 = 2;
const NOT: u8 = 3;
const CMP: u8 = 4;

#[derive(Clone, Copy, Debug)]
enum Infix {
    Arith(ArithOp),
    Cmp(CmpOp),
    Logic(LogicOp),
}

impl Cursor {
    /// One expression (no bare tuple).
    pub fn expr(&mut self) -> PResult<PExpr> {
        self.nested(|p| p.binary(OR))
    }

    /// `e` or `e1, e2, ...` (a tuple without parentheses, as in `vi, vj = ...`).
    pub fn expr_list(&mut self) -> PResult<PExpr> {
        let first = self.expr()?;
        if !self.at(Punct::Comma) {
            return Ok(first);
        }
        let span = first.span;
        let mut items = vec![first];
        while self.eat(Punct::Comma) {
            if self.ends_expr_list() {
                break;
            }
            items.push(self.expr()?);
        }
        self.node(PExprKind::Tuple(items), span)
    }

    fn ends_expr_list(&self) -> bool {
        self.at_line_end()
            || self.at(Punct::Assign)
            || self.at(Punct::Colon)
            || self.at(Punct::RParen)
            || self.at_keyword("in")
    }

    /// Builds a node, refusing one higher than `MAX_NESTING`.
    fn node(&mut self, kind: PExprKind, span: Span) -> PResult<PExpr> {
        let node = PExpr::new(kind, span);
        if node.depth > MAX_NESTING {
            return Err(self.too_deep(span));
        }
        Ok(node)
    }

    fn binary(&mut self, min: u8) -> PResult<PExpr> {
        let mut lhs = self.prefix(min)?;
        while let Some((prec, op)) = self.infix() {
            if prec < min {
                break;
            }
            self.bump();
            // Each recursive call raises the minimum precedence, so this recursion is bounded by
            // the number of precedence levels, not by the input.
            let rhs = self.binary(prec + 1)?;
            let span = lhs.span;
            let (lhs_box, rhs_box) = (Box::new(lhs), Box::new(rhs));
            let kind = match op {
                Infix::Arith(op) => PExprKind::Arith { op, lhs: lhs_box, rhs: rhs_box },
                Infix::Cmp(op) => PExprKind::Cmp { op, lhs: lhs_box, rhs: rhs_box },
                Infix::Logic(op) => PExprKind::Logic { op, lhs: lhs_box, rhs: rhs_box },
            };
            lhs = self.node(kind, span)?;
            if matches!(op, Infix::Cmp(_)) {
                self.refuse_chained_comparison()?;
            }
        }
        Ok(lhs)
    }

    fn refuse_chained_comparison(&mut self) -> PResult<()> {
        if let Some((_, Infix::Cmp(op))) = self.infix() {
            let diag = Diagnostic::error(self.span(), "chained comparison")
                .expected("`and` between two comparisons", format!("`{op}`"));
            self.error(diag);
            return Err(Abort);
        }
        Ok(())
    }

    /// The infix operator at the cursor with its binding power.
    fn infix(&self) -> Option<(u8, Infix)> {
        let arith = |prec: u8, op: BinOp| (prec, Infix::Arith(ArithOp::Op(op)));
        let cmp = |op: CmpOp| (CMP, Infix::Cmp(op));
        let found = match self.kind() {
            TokenKind::Name(n) if n == "or" => (OR, Infix::Logic(LogicOp::Or)),
            TokenKind::Name(n) if n == "and" => (AND, Infix::Logic(LogicOp::And)),
            TokenKind::Punct(Punct::EqEq) => cmp(CmpOp::Eq),
            TokenKind::Punct(Punct::Ne) => cmp(CmpOp::Ne),
            TokenKind::Punct(Punct::Lt) => cmp(CmpOp::Lt),
            TokenKind::Punct(Punct::Le) => cmp(CmpOp::Le),
            TokenKind::Punct(Punct::Gt) => cmp(CmpOp::Gt),
            TokenKind::Punct(Punct::Ge) => cmp(CmpOp::Ge),
            TokenKind::Punct(Punct::Pipe) => arith(5, BinOp::BitOr),
            TokenKind::Punct(Punct::Caret) => arith(6, BinOp::BitXor),
            TokenKind::Punct(Punct::Amp) => arith(7, BinOp::BitAnd),
            TokenKind::Punct(Punct::Shl) => arith(8, BinOp::Shl),
            TokenKind::Punct(Punct::Shr) => arith(8, BinOp::Shr),
            TokenKind::Punct(Punct::Plus) => arith(9, BinOp::Add),
            TokenKind::Punct(Punct::Minus) => arith(9, BinOp::Sub),
            TokenKind::Punct(Punct::Star) => arith(10, BinOp::Mul),
            TokenKind::Punct(Punct::Slash) => arith(10, BinOp::Div),
            TokenKind::Punct(Punct::SlashSlash) => arith(10, BinOp::FloorDiv),
            TokenKind::Punct(Punct::Percent) => arith(10, BinOp::FloorMod),
            _ => return None,
        };
        Some(found)
    }

    /// `not` (when the context allows it), or a unary expression.
    fn prefix(&mut self, min: u8) -> PResult<PExpr> {
        if !self.at_keyword("not") {
            return self.unary();
        }
        if min > NOT {
            return Err(self.unexpected("an expression"));
        }
        let span = self.bump().span;
        let operand = self.nested(|p| p.binary(NOT))?;
        self.node(PExprKind::Unary { op: UnaryOp::Not, operand: Box::new(operand) }, span)
    }

    fn unary(&mut self) -> PResult<PExpr> {
        let op = match self.kind() {
            TokenKind::Punct(Punct::Minus) => UnaryOp::Neg,
            TokenKind::Punct(Punct::Plus) => UnaryOp::Pos,
            TokenKind::Punct(Punct::Tilde) => UnaryOp::Invert,
            _ => return self.power(),
        };
        let span = self.bump().span;
        let operand = self.nested(|p| p.unary())?;
        self.node(PExprKind::Unary { op, operand: Box::new(operand) }, span)
    }

    fn power(&mut self) -> PResult<PExpr> {
        let base = self.postfix()?;
        if !self.eat(Punct::StarStar) {
            return Ok(base);
        }
        let exponent = self.nested(|p| p.unary())?;
        let span = base.span;
        self.node(PExprKind::Arith { op: ArithOp::Pow, lhs: Box::new(base), rhs: Box::new(exponent) }, span)
    }

    fn postfix(&mut self) -> PResult<PExpr> {
        let mut value = self.atom()?;
        loop {
            let span = value.span;
            let kind = if self.eat(Punct::Dot) {
                let name = self.ident("an attribute name")?;
                PExprKind::Attr { value: Box::new(value), name: name.name }
            } else if self.at(Punct::LParen) {
                let (args, kwargs) = self.call_args()?;
                PExprKind::Call { func: Box::new(value), args, kwargs }
            } else if self.at(Punct::LBracket) {
                let items = self.subscript()?;
                PExprKind::Subscript { value: Box::new(value), items }
            } else {
                return Ok(value);
            };
            value = self.node(kind, span)?;
        }
    }

    fn atom(&mut self) -> PResult<PExpr> {
        let span = self.span();
        let kind = match self.kind().clone() {
            TokenKind::Name(name) => self.name_atom(name)?,
            TokenKind::Int(v) => {
                self.bump();
                PExprKind::Int(v)
            }
            TokenKind::Float(v) => {
                self.bump();
                PExprKind::Float(v)
            }
            TokenKind::Str(_) => PExprKind::Str(self.strings()),
            TokenKind::Punct(Punct::LParen) => return self.paren(),
            TokenKind::Punct(Punct::LBracket) => self.list()?,
            TokenKind::Punct(Punct::LBrace) => self.dict()?,
            _ => return Err(self.unexpected("an expression")),
        };
        self.node(kind, span)
    }

    fn name_atom(&mut self, name: String) -> PResult<PExprKind> {
        let kind = match name.as_str() {
            "True" => PExprKind::Bool(true),
            "False" => PExprKind::Bool(false),
            "None" => PExprKind::NoneLit,
            _ if is_keyword(&name) => return Err(self.unexpected("an expression")),
            _ => PExprKind::Name(name),
        };
        self.bump();
        Ok(kind)
    }

    /// Adjacent string literals concatenate, as in Python.
    fn strings(&mut self) -> String {
        let mut text = String::new();
        while let TokenKind::Str(part) = self.kind() {
            text.push_str(part);
            self.bump();
        }
        text
    }

    /// `(e)`, `()` or `(e1, e2, ...)`.
    fn paren(&mut self) -> PResult<PExpr> {
        let span = self.bump().span;
        if self.eat(Punct::RParen) {
            return self.node(PExprKind::Tuple(Vec::new()), span);
        }
        let first = self.expr()?;
        if self.eat(Punct::RParen) {
            return Ok(first);
        }
        if !self.at(Punct::Comma) {
            return Err(self.unexpected("`,` or `)`"));
        }
        let mut items = vec![first];
        self.comma_items(Punct::RParen, &mut items)?;
        self.node(PExprKind::Tuple(items), span)
    }

    fn list(&mut self) -> PResult<PExprKind> {
        self.bump();
        let mut items = Vec::new();
        if !self.eat(Punct::RBracket) {
            items.push(self.expr()?);
            self.comma_items(Punct::RBracket, &mut items)?;
        }
        Ok(PExprKind::List(items))
    }

    /// After a first item: `, item`* with an optional trailing comma, then `close`.
    fn comma_items(&mut self, close: Punct, items: &mut Vec<PExpr>) -> PResult<()> {
        loop {
            if self.eat(close) {
                return Ok(());
            }
            if !self.eat(Punct::Comma) {
                return Err(self.unexpected(&format!("`,` or `{close}`")));
            }
            if self.eat(close) {
                return Ok(());
            }
            items.push(self.expr()?);
        }
    }

    fn dict(&mut self) -> PResult<PExprKind> {
        self.bump();
        let mut entries = Vec::new();
        loop {
            if self.eat(Punct::RBrace) {
                return Ok(PExprKind::Dict(entries));
            }
            let key = self.expr()?;
            self.expect(Punct::Colon, "missing `:` in a dict entry")?;
            let value = self.expr()?;
            entries.push((key, value));
            if !self.at(Punct::RBrace) && !self.eat(Punct::Comma) {
                return Err(self.unexpected("`,` or `}`"));
            }
        }
    }

    /// `(args, name=value, ...)` of a call.
    fn call_args(&mut self) -> PResult<(Vec<PExpr>, Vec<Kwarg>)> {
        self.bump();
        let mut args = Vec::new();
        let mut kwargs: Vec<Kwarg> = Vec::new();
        loop {
            if self.eat(Punct::RParen) {
                return Ok((args, kwargs));
            }
            if self.at_kwarg() {
                let name = self.ident("a keyword name")?;
                self.bump();
                let value = self.expr()?;
                kwargs.push(Kwarg { name: name.name, span: name.span, value });
            } else {
                let span = self.span();
                let value = self.expr()?;
                if !kwargs.is_empty() {
                    let diag = Diagnostic::error(span, "positional argument after keyword argument")
                        .expected("`name=value`", value.describe());
                    self.error(diag);
                    return Err(Abort);
                }
                args.push(value);
            }
            if !self.at(Punct::RParen) && !self.eat(Punct::Comma) {
                return Err(self.unexpected("`,` or `)`"));
            }
        }
    }

    fn at_kwarg(&self) -> bool {
        matches!(self.kind(), TokenKind::Name(n) if !is_keyword(n))
            && self.peek_nth(1).kind == TokenKind::Punct(Punct::Assign)
    }

    /// `[i, lo:hi, lo:hi:step, ...]`.
    fn subscript(&mut self) -> PResult<Vec<PIndex>> {
        self.bump();
        let mut items = Vec::new();
        loop {
            items.push(self.index()?);
            if self.eat(Punct::RBracket) {
                return Ok(items);
            }
            if !self.eat(Punct::Comma) {
                return Err(self.unexpected("`,` or `]`"));
            }
            if self.eat(Punct::RBracket) {
                return Ok(items);
            }
        }
    }

    fn index(&mut self) -> PResult<PIndex> {
        let span = self.span();
        let lo = self.expr()?;
        if !self.eat(Punct::Colon) {
            return Ok(PIndex::Point(lo));
        }
        let hi = self.expr()?;
        let step = if self.eat(Punct::Colon) { Some(self.expr()?) } else { None };
        Ok(PIndex::Slice { lo, hi, step, span })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::text::lex::lex;

    fn parse(src: &str) -> Result<PExpr, Vec<String>> {
        let mut cursor = Cursor::new(lex(src).tokens);
        match cursor.expr_list() {
            Ok(e) if cursor.at_line_end() => Ok(e),
            Ok(_) => Err(vec!["trailing tokens".to_string()]),
            Err(_) => Err(cursor.diags.iter().map(|d| d.headline()).collect()),
        }
    }

    /// A compact rendering of the tree, to check precedence.
    fn show(e: &PExpr) -> String {
        match &e.kind {
            PExprKind::Name(n) => n.clone(),
            PExprKind::Int(v) => v.to_string(),
            PExprKind::Arith { op, lhs, rhs } => {
                let op = match op {
                    ArithOp::Op(op) => op.to_string(),
                    ArithOp::Pow => "**".to_string(),
                };
                format!("({} {op} {})", show(lhs), show(rhs))
            }
            PExprKind::Cmp { op, lhs, rhs } => format!("({} {op} {})", show(lhs), show(rhs)),
            PExprKind::Logic { op, lhs, rhs } => format!("({} {op} {})", show(lhs), show(rhs)),
            PExprKind::Unary { op, operand } => format!("{op:?}({})", show(operand)),
            PExprKind::Tuple(items) => format!("<{}>", items.iter().map(show).collect::<Vec<_>>().join(", ")),
            other => format!("{other:?}"),
        }
    }

    #[test]
    fn python_precedence() {
        let cases = [
            ("a + b * c", "(a + (b * c))"),
            ("a - b - c", "((a - b) - c)"),
            ("-a ** 2", "Neg((a ** 2))"),
            ("a ** b ** c", "(a ** (b ** c))"),
            ("not a < b and c or d", "((Not((a < b)) and c) or d)"),
            ("a | b ^ c & d << 1 + 2", "(a | (b ^ (c & (d << (1 + 2)))))"),
            ("a // b % c", "((a // b) % c)"),
            ("i, j", "<i, j>"),
            ("(i + 1) % 2", "((i + 1) % 2)"),
        ];
        for (src, expected) in cases {
            assert_eq!(show(&parse(src).unwrap()), expected, "{src}");
        }
    }

    #[test]
    fn rejects_chained_comparison() {
        assert_eq!(
            parse("a < b < c").unwrap_err(),
            vec!["1:7: error: chained comparison: expected `and` between two comparisons, found `<`"]
        );
    }

    #[test]
    fn refuses_deep_nesting() {
        let src = format!("{}1{}", "(".repeat(300), ")".repeat(300));
        let errs = parse(&src).unwrap_err();
        assert_eq!(errs.len(), 1);
        assert!(errs[0].contains("nesting too deep"), "{errs:?}");
        let long = vec!["a"; 500].join(" + ");
        assert!(parse(&long).unwrap_err()[0].contains("nesting too deep"));
    }
}
