//! The statement grammar: indented blocks, simple statements and the compound statements
//! `for`, `if`/`elif`/`else` and `with`.
//!
//! Invariants: `block_body_into` never fails — a statement that fails is reported once and
//! skipped with `recover_statement`, so several independent errors in one block are all
//! found. `elif` chains are collected in a loop (no recursion per branch). A block deeper than
//! `MAX_NESTING` is reported and skipped whole.

use crate::lex::{Punct, TokenKind};
use tirproof_ir::diag::Diagnostic;

use super::ast::{BodyEvent, Ident, PExpr, PExprKind, PStmt, PStmtKind, TreeBuilder};
use super::cursor::{Abort, Cursor, PResult};

impl Cursor<'_> {
    /// Statements up to the end of the current indented block (its `Dedent` is consumed),
    /// handed to `each` as they are read. This and `stmt_into`, the compound statements and
    /// `suite_into` form the recursive path of nested blocks, so they keep small frames.
    fn block_body_into(&mut self, each: &mut dyn FnMut(BodyEvent)) {
        loop {
            match self.kind() {
                TokenKind::Dedent => {
                    self.bump();
                    return;
                }
                TokenKind::Eof => return,
                TokenKind::Newline => {
                    self.bump();
                }
                TokenKind::Indent => self.unexpected_indent(),
                _ => {
                    if self.stmt_into(each).is_err() {
                        self.recover_statement();
                    }
                }
            }
        }
    }

    pub fn unexpected_indent(&mut self) {
        let diag = Diagnostic::error(self.span(), "unexpected indentation")
            .expected("a statement at the indentation of the enclosing block", "more indentation");
        self.error(diag);
        self.skip_block();
    }

    /// The body after the `:` of a compound statement (an indented block, or one simple
    /// statement on the same line), as syntax trees.
    pub fn suite(&mut self) -> PResult<Vec<PStmt>> {
        let mut tree = TreeBuilder::default();
        let mut body = Vec::new();
        self.suite_into(&mut |event| body.extend(tree.event(event)))?;
        Ok(body)
    }

    /// `suite`, handing out each statement as soon as it is read.
    pub fn suite_into(&mut self, each: &mut dyn FnMut(BodyEvent)) -> PResult<()> {
        if !self.at_line_end() {
            each(BodyEvent::Stmt(self.simple_stmt()?));
            return Ok(());
        }
        self.bump();
        if self.kind() != &TokenKind::Indent {
            // Report, but do not abort: the next line is a statement of the outer block.
            self.missing_block();
            return Ok(());
        }
        if self.enter().is_err() {
            self.skip_block();
            return Ok(());
        }
        self.bump();
        self.block_body_into(each);
        self.leave();
        Ok(())
    }

    fn missing_block(&mut self) {
        let diag =
            Diagnostic::error(self.span(), "expected an indented block").expected("an indented block", self.found());
        self.error(diag);
    }

    /// Parses one statement and hands it out.
    fn stmt_into(&mut self, each: &mut dyn FnMut(BodyEvent)) -> PResult<()> {
        let TokenKind::Name(word) = self.kind() else {
            return self.simple_stmt_into(each);
        };
        match word.as_str() {
            "pass" => self.pass_into(each),
            "for" => self.for_stmt(each),
            "if" => self.if_stmt(each),
            "with" => self.with_stmt(each),
            "while" => Err(self.unsupported("`while` loops are not supported")),
            "elif" | "else" => Err(self.unsupported("`elif`/`else` without a matching `if`")),
            "def" | "class" => Err(self.unsupported("nested definitions are not supported")),
            "return" => Err(self.unsupported("`return` is not supported in a `T.prim_func`")),
            _ => self.simple_stmt_into(each),
        }
    }

    fn pass_into(&mut self, each: &mut dyn FnMut(BodyEvent)) -> PResult<()> {
        let span = self.bump().span;
        self.end_of_line()?;
        each(BodyEvent::Stmt(PStmt { kind: PStmtKind::Pass, span }));
        Ok(())
    }

    fn simple_stmt_into(&mut self, each: &mut dyn FnMut(BodyEvent)) -> PResult<()> {
        let stmt = self.simple_stmt()?;
        each(BodyEvent::Stmt(stmt));
        Ok(())
    }

    /// The body of an opened `for` or `with`, then its `Close` (also after an error, so that
    /// every `Open` is closed).
    fn opened_body(&mut self, opened: PStmt, each: &mut dyn FnMut(BodyEvent)) -> PResult<()> {
        each(BodyEvent::Open(opened));
        let body = self.suite_into(each);
        each(BodyEvent::Close);
        body
    }

    fn unsupported(&mut self, message: &str) -> Abort {
        let diag = Diagnostic::error(self.span(), message).expected("a statement", self.found());
        self.error(diag);
        Abort
    }

    /// A statement that ends at the line end: an expression, an assignment, or an annotated
    /// assignment.
    fn simple_stmt(&mut self) -> PResult<PStmt> {
        let span = self.span();
        let first = self.expr_list()?;
        let kind = if self.eat(Punct::Colon) {
            let PExprKind::Name(name) = &first.kind else {
                let diag = Diagnostic::error(first.span, "only a name can have a type annotation")
                    .expected("a name", first.describe());
                self.error(diag);
                return Err(Abort);
            };
            let name = Ident { name: name.clone(), span: first.span };
            let ann = self.expr()?;
            let value = if self.eat(Punct::Assign) { Some(self.expr()?) } else { None };
            PStmtKind::AnnAssign { name, ann, value }
        } else if self.eat(Punct::Assign) {
            let value = self.expr_list()?;
            PStmtKind::Assign { target: first, value }
        } else {
            PStmtKind::Expr(first)
        };
        self.end_of_line()?;
        Ok(PStmt { kind, span })
    }

    pub fn end_of_line(&mut self) -> PResult<()> {
        match self.kind() {
            TokenKind::Newline => {
                self.bump();
                Ok(())
            }
            TokenKind::Eof => Ok(()),
            _ => Err(self.unexpected("end of line")),
        }
    }

    /// `name` or `name, name, ...`, optionally in parentheses.
    fn targets(&mut self) -> PResult<Vec<Ident>> {
        let parens = self.eat(Punct::LParen);
        let mut names = vec![self.ident("a name")?];
        while self.eat(Punct::Comma) {
            if self.at_keyword("in") || self.at(Punct::Colon) || self.at(Punct::RParen) {
                break;
            }
            names.push(self.ident("a name")?);
        }
        if parens {
            self.expect(Punct::RParen, "missing `)`")?;
        }
        Ok(names)
    }

    fn for_stmt(&mut self, each: &mut dyn FnMut(BodyEvent)) -> PResult<()> {
        let (span, targets, iter) = self.for_header()?;
        self.opened_body(PStmt { kind: PStmtKind::For { targets, iter, body: Vec::new() }, span }, each)
    }

    fn for_header(&mut self) -> PResult<(tirproof_ir::span::Span, Vec<Ident>, PExpr)> {
        let span = self.bump().span;
        let targets = self.targets()?;
        self.expect_keyword("in")?;
        let iter = self.expr()?;
        self.expect(Punct::Colon, "missing `:`")?;
        Ok((span, targets, iter))
    }

    fn if_stmt(&mut self, each: &mut dyn FnMut(BodyEvent)) -> PResult<()> {
        let span = self.bump().span;
        let mut branches = Vec::new();
        self.branch_into(&mut branches)?;
        let mut else_body = None;
        loop {
            if self.eat_keyword("elif") {
                if self.branch_into(&mut branches).is_err() {
                    self.recover_statement();
                }
            } else if self.eat_keyword("else") {
                match self.expect(Punct::Colon, "missing `:`") {
                    Ok(_) => else_body = Some(self.suite()?),
                    Err(Abort) => self.recover_statement(),
                }
                break;
            } else {
                break;
            }
        }
        each(BodyEvent::Stmt(PStmt { kind: PStmtKind::If { branches, else_body }, span }));
        Ok(())
    }

    /// `cond: suite` of an `if` or `elif`.
    fn branch_into(&mut self, branches: &mut Vec<(PExpr, Vec<PStmt>)>) -> PResult<()> {
        let cond = self.branch_header()?;
        let body = self.suite()?;
        branches.push((cond, body));
        Ok(())
    }

    fn branch_header(&mut self) -> PResult<PExpr> {
        let cond = self.expr()?;
        self.expect(Punct::Colon, "missing `:`")?;
        Ok(cond)
    }

    fn with_stmt(&mut self, each: &mut dyn FnMut(BodyEvent)) -> PResult<()> {
        let (span, item, targets) = self.with_header()?;
        self.opened_body(PStmt { kind: PStmtKind::With { item, targets, body: Vec::new() }, span }, each)
    }

    fn with_header(&mut self) -> PResult<(tirproof_ir::span::Span, PExpr, Vec<Ident>)> {
        let span = self.bump().span;
        let item = self.expr()?;
        let targets = if self.eat_keyword("as") { self.targets()? } else { Vec::new() };
        self.expect(Punct::Colon, "missing `:`")?;
        Ok((span, item, targets))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(src: &str) -> (Vec<PStmt>, Vec<String>) {
        let mut cursor = Cursor::new(src);
        let mut tree = TreeBuilder::default();
        let mut stmts = Vec::new();
        cursor.block_body_into(&mut |event| stmts.extend(tree.event(event)));
        (stmts, cursor.diags.iter().map(|d| d.headline()).collect())
    }

    #[test]
    fn compound_statements() {
        let (stmts, errs) = parse("for i in range(4):\n    if i < 2:\n        pass\n    elif i < 3: x = 1\n    else:\n        A[i] = 0\nwith T.attr({}) as a, b:\n    T.evaluate(0)\n");
        assert!(errs.is_empty(), "{errs:?}");
        assert_eq!(stmts.len(), 2);
        let PStmtKind::For { body, .. } = &stmts[0].kind else { panic!() };
        let PStmtKind::If { branches, else_body } = &body[0].kind else { panic!() };
        assert_eq!(branches.len(), 2);
        assert!(else_body.is_some());
        let PStmtKind::With { targets, .. } = &stmts[1].kind else { panic!() };
        assert_eq!(targets.len(), 2);
    }

    #[test]
    fn recovers_at_statement_boundaries() {
        let (stmts, errs) = parse("x = (1 + )\nfor i in range(4)\n    y = 2\nz = 3\nw = = 4\n");
        assert_eq!(
            errs,
            vec![
                "1:10: error: unexpected token: expected an expression, found `)`",
                "2:18: error: missing `:`: expected `:`, found end of line",
                "5:5: error: unexpected token: expected an expression, found `=`",
            ]
        );
        assert_eq!(stmts.len(), 1);
    }

    #[test]
    fn missing_block_is_reported_once() {
        let (stmts, errs) = parse("if a:\nb = 1\n");
        assert_eq!(errs, vec!["2:1: error: expected an indented block: expected an indented block, found `b`"]);
        assert_eq!(stmts.len(), 2);
    }
}
