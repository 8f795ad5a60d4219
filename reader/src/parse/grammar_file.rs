//! The file grammar: import lines, decorators, `@I.ir_module class Module:`, and
//! `def name(params) -> ret:` with its body.
//!
//! The grammar hands what it reads to an `ItemSink` as it goes (a class header, a function
//! header, each top-level statement of the body, the function's end), so the lowering can
//! turn each statement into IR and drop its syntax tree before the next one is read: the
//! memory of reading a file is its IR, not its IR plus its tokens and syntax tree.
//!
//! A file holds either one decorated class of functions or bare functions, never both. Imports
//! are read and ignored (TVM prints them as comments anyway); what the decorators mean is
//! decided in `mod.rs`. Invariants: like statements, a broken function header is reported
//! once and the whole function (header line and body) is skipped; the file rule never fails.

use crate::lex::{Punct, TokenKind};
use tirproof_ir::diag::Diagnostic;
use tirproof_ir::span::Span;

use super::ast::{BodyEvent, FuncEnd, PClass, PExpr, PFuncHeader, PParam};
use super::cursor::{Abort, Cursor, PResult};

/// Receives a file as the grammar reads it. Calls come in source order: `class` at most once,
/// then for each function whose header parsed: `func_start`, the events of its body (every
/// `Open` closed), and `func_end`.
pub(super) trait ItemSink {
    fn class(&mut self, class: PClass);
    fn func_start(&mut self, header: PFuncHeader);
    fn body_event(&mut self, event: BodyEvent);
    /// `lexical`: the lexical errors found so far, which cover the whole function (the
    /// lexer runs ahead of the grammar).
    fn func_end(&mut self, end: FuncEnd, lexical: &[Diagnostic]);
}

/// What the file rule has seen, to refuse a file that mixes a class and bare functions.
#[derive(Default)]
struct FileState {
    class: bool,
    funcs: usize,
}

impl Cursor<'_> {
    /// The whole file, handed to `sink`.
    pub fn file(&mut self, sink: &mut dyn ItemSink) {
        let mut state = FileState::default();
        self.imports();
        loop {
            match self.kind() {
                TokenKind::Eof => return,
                TokenKind::Newline | TokenKind::Dedent => {
                    self.bump();
                }
                TokenKind::Indent => self.unexpected_indent(),
                _ => {
                    if self.item(&mut state, sink).is_err() {
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
    fn item(&mut self, state: &mut FileState, sink: &mut dyn ItemSink) -> PResult<()> {
        let start = self.span();
        let decorators = self.decorators()?;
        if self.at_keyword("class") {
            if state.class || state.funcs > 0 {
                return Err(self.mixed_file(start));
            }
            state.class = true;
            return self.class(decorators, sink);
        }
        if state.class {
            return Err(self.mixed_file(start));
        }
        if !self.at_keyword("def") {
            return Err(self.unexpected("`@T.prim_func` and a function, or `@I.ir_module` and a class"));
        }
        self.func(decorators, start, sink)?;
        state.funcs += 1;
        Ok(())
    }

    fn mixed_file(&mut self, span: Span) -> Abort {
        let diag = Diagnostic::error(span, "a file holds one `@I.ir_module` class or bare functions, not both")
            .expected("end of file", self.found());
        self.error(diag);
        Abort
    }

    /// `class Name:` and its functions.
    fn class(&mut self, decorators: Vec<PExpr>, sink: &mut dyn ItemSink) -> PResult<()> {
        self.bump();
        let name = self.ident("a class name")?;
        if self.eat(Punct::LParen) {
            self.expect(Punct::RParen, "missing `)`")?;
        }
        self.expect(Punct::Colon, "missing `:`")?;
        self.expect_block_start()?;
        sink.class(PClass { name, decorators });
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
                _ => {
                    if self.class_member(sink).is_err() {
                        self.recover_statement();
                    }
                }
            }
        }
    }

    fn class_member(&mut self, sink: &mut dyn ItemSink) -> PResult<()> {
        let start = self.span();
        let decorators = self.decorators()?;
        if !self.at_keyword("def") {
            return Err(self.unexpected("a decorated `def`"));
        }
        self.func(decorators, start, sink)
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

    /// `def name(params) [-> ret]:` and its body, statement by statement.
    fn func(&mut self, decorators: Vec<PExpr>, span: Span, sink: &mut dyn ItemSink) -> PResult<()> {
        let errors_before = self.diags.len();
        self.bump();
        let name = self.ident("a function name")?;
        let params = self.params()?;
        if self.eat(Punct::Arrow) {
            self.expr()?;
        }
        self.expect(Punct::Colon, "missing `:`")?;
        sink.func_start(PFuncHeader { name, decorators, params, span });
        let body = self.suite_into(&mut |event| sink.body_event(event));
        let end = match body {
            Ok(()) => FuncEnd::Read { end: self.prev_span(), had_errors: self.diags.len() > errors_before },
            Err(Abort) => FuncEnd::Abandoned,
        };
        sink.func_end(end, self.lexical_diagnostics());
        body
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
    use crate::parse::ast::{PStmt, TreeBuilder};

    /// A function as the grammar handed it out.
    struct ReadFunc {
        header: PFuncHeader,
        tree: TreeBuilder,
        body: Vec<PStmt>,
        end: Option<FuncEnd>,
    }

    /// Collects what the grammar hands out.
    #[derive(Default)]
    struct Collected {
        class: Option<PClass>,
        funcs: Vec<ReadFunc>,
    }

    impl ItemSink for Collected {
        fn class(&mut self, class: PClass) {
            self.class = Some(class);
        }
        fn func_start(&mut self, header: PFuncHeader) {
            self.funcs.push(ReadFunc { header, tree: TreeBuilder::default(), body: Vec::new(), end: None });
        }
        fn body_event(&mut self, event: BodyEvent) {
            if let Some(f) = self.funcs.last_mut() {
                f.body.extend(f.tree.event(event));
            }
        }
        fn func_end(&mut self, end: FuncEnd, _lexical: &[Diagnostic]) {
            if let Some(f) = self.funcs.last_mut() {
                f.end = Some(end);
            }
        }
    }

    fn parse(src: &str) -> (Collected, Vec<String>) {
        let mut cursor = Cursor::new(src);
        let mut file = Collected::default();
        cursor.file(&mut file);
        (file, cursor.diags.iter().map(|d| d.headline()).collect())
    }

    #[test]
    fn module_class_with_functions() {
        let src = "from tvm.script import tirx as T\nimport tvm\n\n@I.ir_module\nclass Module:\n    @T.prim_func(s_tir=True)\n    def main(\n        A: T.Buffer((16,), \"float32\"),\n        n: T.int32,\n    ) -> None:\n        pass\n\n    @T.prim_func\n    def f():\n        pass\n";
        let (file, errs) = parse(src);
        assert!(errs.is_empty(), "{errs:?}");
        assert_eq!(file.class.as_ref().map(|c| c.name.name.as_str()), Some("Module"));
        assert_eq!(file.funcs.len(), 2);
        assert_eq!(file.funcs[0].header.params.len(), 2);
        assert_eq!(file.funcs[1].header.name.name, "f");
        assert!(file.funcs.iter().all(|f| matches!(f.end, Some(FuncEnd::Read { had_errors: false, .. }))));
    }

    #[test]
    fn broken_function_is_skipped() {
        let src = "@T.prim_func\ndef f(a T.int32):\n    x = 1\n@T.prim_func\ndef g():\n    pass\n";
        let (file, errs) = parse(src);
        assert_eq!(errs, vec!["2:9: error: parameter `a` needs a type annotation: expected `:`, found `T`"]);
        assert_eq!(file.funcs.len(), 1);
        assert_eq!(file.funcs[0].header.name.name, "g");
    }

    #[test]
    fn body_statements_are_handed_out_in_order_and_a_broken_body_is_marked() {
        let src = "@T.prim_func\ndef f():\n    x = 1\n    for i in range(2):\n        y = 2\n    z = (\n@T.prim_func\ndef g(): 1 +\n";
        let (file, errs) = parse(src);
        assert!(!errs.is_empty());
        let lines: Vec<u32> = file.funcs[0].body.iter().map(|s| s.span.line).collect();
        assert_eq!(lines, vec![3, 4]);
        assert!(matches!(file.funcs[0].end, Some(FuncEnd::Read { had_errors: true, .. })));
    }
}
