//! The file grammar: import lines, decorators, `@I.ir_module class Module:`, and
//! `def name(params) -> ret:` with its body.
//!
//! A file holds either one decorated class of functions or bare functions, never both. Imports
//! are read and ignored (TVM prints them as comments anyway); what the decorators mean is
//! decided in `mod.rs`. Invariants: like statements, a broken function header is reported
//! once and the whole function (header line and body) is skipped; the file rule never fails.

use crate::lex::{Punct, TokenKind};
use tirproof_ir::diag::Diagnostic;

use super::ast::{PClass, PExpr, PFile, PFunc, PParam};
use super::cursor::{Abort, Cursor, PResult};

impl Cursor {
    /// The whole file.
    pub fn file(&mut self) -> PFile {
        let mut file = PFile::default();
        self.imports();
        loop {
            match self.kind() {
                TokenKind::Eof => return file,
                TokenKind::Newline | TokenKind::Dedent => {
                    self.bump();
                }
                TokenKind::Indent => self.unexpected_indent(),
                _ => {
                    if self.item(&mut file).is_err() {
                        self.recover_statement();
                    }
                }
            }
        }
    }

    fn imports(&mut self) {
        loop {
            let result = if self.at_keyword("from") {
                self.import_from_line()
            } else if self.at_keyword("import") {
                self.import_line()
            } else {
                return;
            };
            if result.is_err() {
                self.recover_statement();
            }
        }
    }

    /// `from a.b import c [as d]`.
    fn import_from_line(&mut self) -> PResult<()> {
        self.bump();
        self.dotted_name()?;
        self.expect_keyword("import")?;
        self.import_alias()?;
        self.end_of_line()
    }

    /// `import a.b [as c]`.
    fn import_line(&mut self) -> PResult<()> {
        self.bump();
        self.dotted_name()?;
        if self.eat_keyword("as") {
            self.ident("a name")?;
        }
        self.end_of_line()
    }

    fn import_alias(&mut self) -> PResult<()> {
        self.ident("a name")?;
        if self.eat_keyword("as") {
            self.ident("a name")?;
        }
        Ok(())
    }

    fn dotted_name(&mut self) -> PResult<()> {
        self.ident("a module name")?;
        while self.eat(Punct::Dot) {
            self.ident("a module name")?;
        }
        Ok(())
    }

    /// `@decorator` lines.
    fn decorators(&mut self) -> PResult<Vec<PExpr>> {
        let mut decorators = Vec::new();
        while self.eat(Punct::At) {
            decorators.push(self.expr()?);
            self.end_of_line()?;
            while self.kind() == &TokenKind::Newline {
                self.bump();
            }
        }
        Ok(decorators)
    }

    /// A decorated class or function at the top of the file.
    fn item(&mut self, file: &mut PFile) -> PResult<()> {
        let start = self.span();
        let decorators = self.decorators()?;
        if self.at_keyword("class") {
            if file.class.is_some() || !file.funcs.is_empty() {
                return Err(self.mixed_file(start));
            }
            return self.class(decorators, file);
        }
        if file.class.is_some() {
            return Err(self.mixed_file(start));
        }
        if !self.at_keyword("def") {
            return Err(self.unexpected("`@T.prim_func` and a function, or `@I.ir_module` and a class"));
        }
        let func = self.func(decorators, start)?;
        file.funcs.push(func);
        Ok(())
    }

    fn mixed_file(&mut self, span: tirproof_ir::span::Span) -> Abort {
        let diag = Diagnostic::error(span, "a file holds one `@I.ir_module` class or bare functions, not both")
            .expected("end of file", self.found());
        self.error(diag);
        Abort
    }

    /// `class Name:` and its functions.
    fn class(&mut self, decorators: Vec<PExpr>, file: &mut PFile) -> PResult<()> {
        self.bump();
        let name = self.ident("a class name")?;
        if self.eat(Punct::LParen) {
            self.expect(Punct::RParen, "missing `)`")?;
        }
        self.expect(Punct::Colon, "missing `:`")?;
        self.expect_block_start()?;
        file.class = Some(PClass { name, decorators });
        loop {
            match self.kind() {
                TokenKind::Eof => return Ok(()),
                TokenKind::Dedent => {
                    self.bump();
                    return Ok(());
                }
                TokenKind::Newline => {
                    self.bump();
                }
                TokenKind::Indent => self.unexpected_indent(),
                _ => match self.class_member() {
                    Ok(func) => file.funcs.push(func),
                    Err(Abort) => self.recover_statement(),
                },
            }
        }
    }

    fn class_member(&mut self) -> PResult<PFunc> {
        let start = self.span();
        let decorators = self.decorators()?;
        if !self.at_keyword("def") {
            return Err(self.unexpected("a decorated `def`"));
        }
        self.func(decorators, start)
    }

    /// After the `:` of a class: a line end and an indented block.
    fn expect_block_start(&mut self) -> PResult<()> {
        if self.kind() != &TokenKind::Newline {
            return Err(self.unexpected("end of line"));
        }
        self.bump();
        if self.kind() != &TokenKind::Indent {
            let diag = Diagnostic::error(self.span(), "expected an indented block")
                .expected("an indented block", self.found());
            self.error(diag);
            return Err(Abort);
        }
        self.bump();
        Ok(())
    }

    /// `def name(params) [-> ret]:` and its body.
    fn func(&mut self, decorators: Vec<PExpr>, span: tirproof_ir::span::Span) -> PResult<PFunc> {
        let errors_before = self.diags.len();
        self.bump();
        let name = self.ident("a function name")?;
        let params = self.params()?;
        if self.eat(Punct::Arrow) {
            self.expr()?;
        }
        self.expect(Punct::Colon, "missing `:`")?;
        let body = self.suite()?;
        Ok(PFunc {
            name,
            decorators,
            params,
            body,
            span,
            end: self.prev_span(),
            had_errors: self.diags.len() > errors_before,
        })
    }

    fn params(&mut self) -> PResult<Vec<PParam>> {
        self.expect(Punct::LParen, "missing `(`")?;
        let mut params = Vec::new();
        loop {
            if self.eat(Punct::RParen) {
                return Ok(params);
            }
            let name = self.ident("a parameter name")?;
            if !self.eat(Punct::Colon) {
                let diag = Diagnostic::error(self.span(), format!("parameter `{}` needs a type annotation", name.name))
                    .expected("`:`", self.found());
                self.error(diag);
                return Err(Abort);
            }
            let ann = self.expr()?;
            params.push(PParam { name, ann });
            if !self.at(Punct::RParen) && !self.eat(Punct::Comma) {
                return Err(self.unexpected("`,` or `)`"));
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lex::lex;

    fn parse(src: &str) -> (PFile, Vec<String>) {
        let mut cursor = Cursor::new(lex(src).tokens);
        let file = cursor.file();
        (file, cursor.diags.iter().map(|d| d.headline()).collect())
    }

    #[test]
    fn module_class_with_functions() {
        let src = "from tvm.script import tirx as T\nimport tvm\n\n@I.ir_module\nclass Module:\n    @T.prim_func(s_tir=True)\n    def main(\n        A: T.Buffer((16,), \"float32\"),\n        n: T.int32,\n    ) -> None:\n        pass\n\n    @T.prim_func\n    def f():\n        pass\n";
        let (file, errs) = parse(src);
        assert!(errs.is_empty(), "{errs:?}");
        assert_eq!(file.class.as_ref().map(|c| c.name.name.as_str()), Some("Module"));
        assert_eq!(file.funcs.len(), 2);
        assert_eq!(file.funcs[0].params.len(), 2);
        assert_eq!(file.funcs[1].name.name, "f");
    }

    #[test]
    fn broken_function_is_skipped() {
        let src = "@T.prim_func\ndef f(a T.int32):\n    x = 1\n@T.prim_func\ndef g():\n    pass\n";
        let (file, errs) = parse(src);
        assert_eq!(errs, vec!["2:9: error: parameter `a` needs a type annotation: expected `:`, found `T`"]);
        assert_eq!(file.funcs.len(), 1);
        assert_eq!(file.funcs[0].name.name, "g");
    }
}
