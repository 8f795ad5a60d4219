//! The expression grammar: tokens to `PExpr`, with Python's precedence.
//!
//! Precedence, loosest first: `or` < `and` < `not` < comparisons < `|` < `^` < `&` <
//! `<<` `>>` < `+` `-` < `*` `/` `//` `%` < unary `-` `+` `~` < `**` < postfix (`.name`,
//! calls, subscripts) < atoms. Binary operators are parsed by precedence climbing and are
//! left-associative; `**` is right-associative. Comparisons do not chain (`a < b < c` is an
//! error, TIR has no chained comparison).
//!
//! Invariants: every recursion that the input controls goes through `Cursor::enter`, and every
//! node is built through `node`, which refuses trees higher than `MAX_NESTING`; so neither the
//! grammar nor any later walk over its output can overflow the stack. Prefix operators are
//! collected in a loop, so a long run of `-` costs no stack.

use crate::lex::{Punct, TokenKind};
use tirproof_ir::diag::Diagnostic;
use tirproof_ir::expr::{BinOp, CmpOp, LogicOp};
use tirproof_ir::span::Span;

use super::ast::{ArithOp, Kwarg, PExpr, PExprKind, PIndex, UnaryOp};
use super::cursor::{is_keyword, Abort, Cursor, PResult};
use super::MAX_NESTING;

/// Binding powers (higher binds tighter), as in `tirproof_ir::expr::prec`.
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

impl Cursor<'_> {
    /// One expression (no bare tuple).
    pub fn expr(&mut self) -> PResult<PExpr> {
        self.enter()?;
        let result = self.binary(OR);
        self.leave();
        result
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
    fn node(&mut self, mut kind: PExprKind, span: Span) -> PResult<PExpr> {
        // Lists grow by doubling from 4 elements: a subscript's one index would keep room for
        // four (a slice-sized `PIndex` each, about 1 KB per subscript), so the syntax tree of
        // a large file stays alive several times its size. Trimmed as each node is built.
        match &mut kind {
            PExprKind::Call { args, kwargs, .. } => {
                args.shrink_to_fit();
                kwargs.shrink_to_fit();
            }
            PExprKind::Subscript { items, .. } => items.shrink_to_fit(),
            PExprKind::Tuple(items) | PExprKind::List(items) => items.shrink_to_fit(),
            PExprKind::Dict(items) => items.shrink_to_fit(),
            _ => {}
        }
        let node = PExpr::new(kind, span);
        if node.depth > MAX_NESTING {
            return Err(self.too_deep(span));
        }
        Ok(node)
    }

    /// Binary operators by precedence climbing. The recursive path through here (`expr` ->
    /// `binary` -> `operand` -> `primary` -> brackets -> `expr`) stacks up once per bracket
    /// level, so these functions only dispatch and keep their frames small; the work is in
    /// helpers that return before the recursion goes deeper.
    fn binary(&mut self, min: u8) -> PResult<PExpr> {
        let mut lhs = self.first_operand(min)?;
        while let Some(op) = self.infix_at_least(min) {
            lhs = self.binary_rhs(lhs, op)?;
        }
        Ok(lhs)
    }

    fn first_operand(&mut self, min: u8) -> PResult<PExpr> {
        if self.at_keyword("not") {
            self.not_expr(min)
        } else {
            self.operand()
        }
    }

    /// The infix operator at the cursor if it binds at least as tightly as `min`.
    fn infix_at_least(&self, min: u8) -> Option<(u8, Infix)> {
        self.infix().filter(|(prec, _)| *prec >= min)
    }

    /// Consumes the operator and its right operand. Each recursive call raises the minimum
    /// precedence, so this recursion is bounded by the number of precedence levels.
    fn binary_rhs(&mut self, lhs: PExpr, (prec, op): (u8, Infix)) -> PResult<PExpr> {
        self.bump();
        let rhs = self.binary(prec + 1)?;
        let node = self.combine(op, lhs, rhs)?;
        if matches!(op, Infix::Cmp(_)) {
            self.refuse_chained_comparison()?;
        }
        Ok(node)
    }

    fn combine(&mut self, op: Infix, lhs: PExpr, rhs: PExpr) -> PResult<PExpr> {
        let span = lhs.span;
        let (lhs, rhs) = (Box::new(lhs), Box::new(rhs));
        let kind = match op {
            Infix::Arith(op) => PExprKind::Arith { op, lhs, rhs },
            Infix::Cmp(op) => PExprKind::Cmp { op, lhs, rhs },
            Infix::Logic(op) => PExprKind::Logic { op, lhs, rhs },
        };
        self.node(kind, span)
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

    /// `not x`, which binds looser than comparisons, where the context allows it.
    fn not_expr(&mut self, min: u8) -> PResult<PExpr> {
        if min > NOT {
            return Err(self.unexpected("an expression"));
        }
        let span = self.bump().span;
        self.enter()?;
        let operand = self.binary(NOT);
        self.leave();
        self.unary_node(UnaryOp::Not, operand?, span)
    }

    fn unary_node(&mut self, op: UnaryOp, operand: PExpr, span: Span) -> PResult<PExpr> {
        let operand = Box::new(operand);
        self.node(PExprKind::Unary { op, operand }, span)
    }

    /// A unary-level operand: prefix `-` `+` `~` (collected in a loop, not by recursion),
    /// a primary, and an optional `** operand` (which binds tighter than the prefixes).
    fn operand(&mut self) -> PResult<PExpr> {
        let prefixes = self.prefixes();
        let value = self.primary()?;
        self.finish_operand(value, prefixes)
    }

    fn prefixes(&mut self) -> Vec<(UnaryOp, Span)> {
        let mut prefixes = Vec::new();
        loop {
            let op = match self.kind() {
                TokenKind::Punct(Punct::Minus) => UnaryOp::Neg,
                TokenKind::Punct(Punct::Plus) => UnaryOp::Pos,
                TokenKind::Punct(Punct::Tilde) => UnaryOp::Invert,
                _ => return prefixes,
            };
            prefixes.push((op, self.bump().span));
        }
    }

    /// `** exponent`, then the prefixes, innermost first.
    fn finish_operand(&mut self, mut value: PExpr, mut prefixes: Vec<(UnaryOp, Span)>) -> PResult<PExpr> {
        if self.eat(Punct::StarStar) {
            self.enter()?;
            let exponent = self.operand();
            self.leave();
            value = self.combine(Infix::Arith(ArithOp::Pow), value, exponent?)?;
        }
        while let Some((op, span)) = prefixes.pop() {
            value = self.unary_node(op, value, span)?;
        }
        Ok(value)
    }

    /// An atom or a bracketed expression, followed by `.name`, calls and subscripts.
    fn primary(&mut self) -> PResult<PExpr> {
        let mut value = self.primary_head()?;
        while self.at(Punct::Dot) || self.at(Punct::LParen) || self.at(Punct::LBracket) {
            value = self.postfix(value)?;
        }
        Ok(value)
    }

    fn primary_head(&mut self) -> PResult<PExpr> {
        match self.kind() {
            TokenKind::Punct(Punct::LParen) => self.paren(),
            TokenKind::Punct(Punct::LBracket) => self.list(),
            TokenKind::Punct(Punct::LBrace) => self.dict(),
            _ => self.atom(),
        }
    }

    fn postfix(&mut self, value: PExpr) -> PResult<PExpr> {
        match self.kind() {
            TokenKind::Punct(Punct::Dot) => self.attr_suffix(value),
            TokenKind::Punct(Punct::LParen) => self.call_suffix(value),
            _ => self.subscript_suffix(value),
        }
    }

    fn attr_suffix(&mut self, value: PExpr) -> PResult<PExpr> {
        self.bump();
        let name = self.ident("an attribute name")?;
        let span = value.span;
        let value = Box::new(value);
        self.node(PExprKind::Attr { value, name: name.name }, span)
    }

    /// A leaf: a name, a keyword literal, a number or strings.
    fn atom(&mut self) -> PResult<PExpr> {
        let span = self.span();
        let kind = match self.kind() {
            TokenKind::Name(name) => {
                let name = name.clone();
                self.name_atom(name)?
            }
            TokenKind::Int(v) => {
                let v = *v;
                self.bump();
                PExprKind::Int(v)
            }
            TokenKind::Float(v) => {
                let v = *v;
                self.bump();
                PExprKind::Float(v)
            }
            TokenKind::Str(_) => PExprKind::Str(self.strings()),
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
        let mut items = Vec::new();
        let single = self.items_into(Punct::RParen, &mut items)?;
        match (single, items.pop()) {
            (true, Some(only)) => Ok(only),
            (_, last) => self.tuple_node(items, last, span),
        }
    }

    fn tuple_node(&mut self, mut items: Vec<PExpr>, last: Option<PExpr>, span: Span) -> PResult<PExpr> {
        items.extend(last);
        self.node(PExprKind::Tuple(items), span)
    }

    fn list(&mut self) -> PResult<PExpr> {
        let span = self.bump().span;
        let mut items = Vec::new();
        self.items_into(Punct::RBracket, &mut items)?;
        self.node(PExprKind::List(items), span)
    }

    /// Comma-separated expressions up to `close` (a trailing comma allowed). Returns whether
    /// it was exactly one item without a comma (a parenthesised expression, not a tuple).
    fn items_into(&mut self, close: Punct, items: &mut Vec<PExpr>) -> PResult<bool> {
        let mut comma = false;
        while !self.eat(close) {
            self.expr_into(items)?;
            comma |= self.separator(close, "`,` or `{close}`")?;
        }
        Ok(items.len() == 1 && !comma)
    }

    /// Parses one expression and appends it (so that callers hold no expression temporary).
    fn expr_into(&mut self, items: &mut Vec<PExpr>) -> PResult<()> {
        let value = self.expr()?;
        items.push(value);
        Ok(())
    }

    /// After an item: a comma (true), or the closing bracket ahead (false); else an error.
    fn separator(&mut self, close: Punct, expected: &str) -> PResult<bool> {
        if self.eat(Punct::Comma) {
            return Ok(true);
        }
        if self.at(close) {
            return Ok(false);
        }
        Err(self.unexpected(&expected.replace("{close}", close.as_str())))
    }

    fn dict(&mut self) -> PResult<PExpr> {
        let span = self.bump().span;
        let mut entries = Vec::new();
        loop {
            if self.eat(Punct::RBrace) {
                return self.node(PExprKind::Dict(entries), span);
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

    /// `func(args, name=value, ...)`.
    fn call_suffix(&mut self, func: PExpr) -> PResult<PExpr> {
        self.bump();
        let mut args = Vec::new();
        let mut kwargs = Vec::new();
        while !self.eat(Punct::RParen) {
            self.call_arg(&mut args, &mut kwargs)?;
            self.separator(Punct::RParen, "`,` or `{close}`")?;
        }
        self.call_node(func, args, kwargs)
    }

    fn call_node(&mut self, func: PExpr, args: Vec<PExpr>, kwargs: Vec<Kwarg>) -> PResult<PExpr> {
        let span = func.span;
        let func = Box::new(func);
        self.node(PExprKind::Call { func, args, kwargs }, span)
    }

    /// One argument: `name=value` or a positional one (not after a keyword argument).
    fn call_arg(&mut self, args: &mut Vec<PExpr>, kwargs: &mut Vec<Kwarg>) -> PResult<()> {
        if self.at_kwarg() {
            let name = self.ident("a keyword name")?;
            self.bump();
            let mut value = Vec::new();
            self.expr_into(&mut value)?;
            kwargs.extend(value.pop().map(|value| Kwarg { name: name.name, span: name.span, value }));
            return Ok(());
        }
        if !kwargs.is_empty() {
            return Err(self.positional_after_keyword());
        }
        self.expr_into(args)
    }

    fn positional_after_keyword(&mut self) -> Abort {
        let diag = Diagnostic::error(self.span(), "positional argument after keyword argument")
            .expected("`name=value`", self.found());
        self.error(diag);
        Abort
    }

    fn at_kwarg(&self) -> bool {
        matches!(self.kind(), TokenKind::Name(n) if !is_keyword(n))
            && self.peek_second().kind == TokenKind::Punct(Punct::Assign)
    }

    /// `value[i, lo:hi, lo:hi:step, ...]`.
    fn subscript_suffix(&mut self, value: PExpr) -> PResult<PExpr> {
        self.bump();
        let mut items = Vec::new();
        loop {
            self.index_into(&mut items)?;
            let comma = self.separator(Punct::RBracket, "`,` or `{close}`")?;
            if !comma || self.at(Punct::RBracket) {
                self.bump();
                break;
            }
        }
        let span = value.span;
        let value = Box::new(value);
        self.node(PExprKind::Subscript { value, items }, span)
    }

    /// One subscript item, `e` or `lo:hi[:step]`, appended to `items`.
    fn index_into(&mut self, items: &mut Vec<PIndex>) -> PResult<()> {
        let span = self.span();
        let mut parts = Vec::new();
        self.expr_into(&mut parts)?;
        if self.eat(Punct::Colon) {
            self.expr_into(&mut parts)?;
            if self.eat(Punct::Colon) {
                self.expr_into(&mut parts)?;
            }
        }
        items.extend(index_from_parts(parts, span));
        Ok(())
    }
}

/// `[e]` is a point, `[lo, hi]` and `[lo, hi, step]` are slices.
fn index_from_parts(parts: Vec<PExpr>, span: Span) -> Option<PIndex> {
    let mut parts = parts.into_iter();
    let lo = parts.next()?;
    let Some(hi) = parts.next() else {
        return Some(PIndex::Point(lo));
    };
    let step = parts.next();
    Some(PIndex::Slice { lo, hi, step, span })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(src: &str) -> Result<PExpr, Vec<String>> {
        let mut cursor = Cursor::new(src);
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
        let right_nested = format!("{}a{}", "a + (".repeat(300), ")".repeat(300));
        assert!(parse(&right_nested).unwrap_err()[0].contains("nesting too deep"));
    }

    #[test]
    fn left_associative_chains_are_not_nesting() {
        for op in [" + ", " * ", " and ", " | "] {
            let long = vec!["a"; 1000].join(op);
            assert!(parse(&long).is_ok(), "a chain of `{op}`");
        }
    }
}
