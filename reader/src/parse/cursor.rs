//! The grammar's token cursor: lookahead, expectations, the nesting guard and error recovery.
//!
//! The cursor pulls tokens from the lexer as it goes and holds only `LOOKAHEAD` of them, so
//! reading a file never holds its whole token stream (docs/limits.md).
//!
//! Invariants: the cursor never moves past `Eof` and `peek` is total (an empty stream reads
//! as `Eof`), so no grammar rule can index out of bounds. A rule that reports an error returns
//! `Err(Abort)`; the statement loop then calls `recover_statement`, which skips to the next
//! line at the same indentation (the header line and any indented block under it), so one
//! mistake yields one diagnostic and parsing resumes. Recursion depth is counted by
//! `enter`/`leave` and capped at `MAX_NESTING`.

use std::collections::VecDeque;

use crate::lex::{Lexer, Punct, Token, TokenKind};
use tirproof_ir::diag::Diagnostic;
use tirproof_ir::span::Span;

use super::ast::Ident;
use super::MAX_NESTING;

/// A rule gave up after reporting an error; the caller recovers at a statement boundary.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Abort;

pub(super) type PResult<T> = Result<T, Abort>;

/// Python keywords: never identifiers, whatever the dialect does with them.
const KEYWORDS: [&str; 35] = [
    "False", "None", "True", "and", "as", "assert", "async", "await", "break", "class", "continue", "def", "del",
    "elif", "else", "except", "finally", "for", "from", "global", "if", "import", "in", "is", "lambda", "nonlocal",
    "not", "or", "pass", "raise", "return", "try", "while", "with", "yield",
];

pub(super) fn is_keyword(name: &str) -> bool {
    KEYWORDS.contains(&name)
}

/// How many tokens the grammar looks at before deciding: the current one and the next
/// (`name =` in keyword arguments).
const LOOKAHEAD: usize = 2;

static EOF_TOKEN: Token = Token { kind: TokenKind::Eof, span: Span::UNKNOWN };

pub(super) struct Cursor<'a> {
    lexer: Lexer<'a>,
    /// The next `LOOKAHEAD` tokens (the lexer answers `Eof` forever at the end).
    ahead: VecDeque<Token>,
    pub diags: Vec<Diagnostic>,
    depth: u32,
    /// The span of the last consumed token (where a construct ended).
    prev: Span,
}

/// What reading a whole file reported.
pub(super) struct SyntaxReport {
    pub lexical: Vec<Diagnostic>,
    pub grammar: Vec<Diagnostic>,
    /// Where an unclosed bracket opened, if one did.
    pub unclosed_at: Option<Span>,
}

impl<'a> Cursor<'a> {
    pub fn new(source: &'a str) -> Self {
        let mut lexer = Lexer::new(source);
        let ahead = (0..LOOKAHEAD).map(|_| lexer.next_token()).collect();
        Cursor { lexer, ahead, diags: Vec::new(), depth: 0, prev: Span::new(1, 1) }
    }

    /// The lexical and grammar diagnostics (the lexical ones are complete once the grammar
    /// reached `Eof`).
    pub fn into_report(self) -> SyntaxReport {
        let (lexical, unclosed_at) = self.lexer.into_diagnostics();
        SyntaxReport { lexical, grammar: self.diags, unclosed_at }
    }

    /// The lexical errors found so far (the lexer runs `LOOKAHEAD` tokens ahead).
    pub fn lexical_diagnostics(&self) -> &[Diagnostic] {
        self.lexer.diagnostics()
    }

    pub fn peek(&self) -> &Token {
        self.ahead.front().unwrap_or(&EOF_TOKEN)
    }

    /// The token after the current one.
    pub fn peek_second(&self) -> &Token {
        self.ahead.get(1).unwrap_or(&EOF_TOKEN)
    }

    pub fn kind(&self) -> &TokenKind {
        &self.peek().kind
    }

    pub fn span(&self) -> Span {
        self.peek().span
    }

    /// Where the last consumed token started.
    pub fn prev_span(&self) -> Span {
        self.prev
    }

    /// Consumes the current token (staying on `Eof`).
    pub fn bump(&mut self) -> Token {
        let Some(token) = self.ahead.pop_front() else {
            return EOF_TOKEN.clone();
        };
        if token.kind != TokenKind::Eof {
            self.prev = token.span;
        }
        self.ahead.push_back(self.lexer.next_token());
        token
    }

    pub fn at(&self, p: Punct) -> bool {
        self.kind() == &TokenKind::Punct(p)
    }

    pub fn eat(&mut self, p: Punct) -> bool {
        let found = self.at(p);
        if found {
            self.bump();
        }
        found
    }

    pub fn at_keyword(&self, keyword: &str) -> bool {
        matches!(self.kind(), TokenKind::Name(n) if n == keyword)
    }

    pub fn eat_keyword(&mut self, keyword: &str) -> bool {
        let found = self.at_keyword(keyword);
        if found {
            self.bump();
        }
        found
    }

    pub fn at_line_end(&self) -> bool {
        matches!(self.kind(), TokenKind::Newline | TokenKind::Eof)
    }

    /// What the current token is, for "found ...".
    pub fn found(&self) -> String {
        self.kind().describe()
    }

    pub fn error(&mut self, diag: Diagnostic) {
        self.diags.push(diag);
    }

    /// Reports that `expected` was wanted here, and gives up on the statement.
    pub fn unexpected(&mut self, expected: &str) -> Abort {
        let diag = Diagnostic::error(self.span(), "unexpected token").expected(expected, self.found());
        self.error(diag);
        Abort
    }

    /// Consumes `p` or reports `message` (e.g. "missing `:`").
    pub fn expect(&mut self, p: Punct, message: &str) -> PResult<Span> {
        if self.at(p) {
            return Ok(self.bump().span);
        }
        let diag = Diagnostic::error(self.span(), message).expected(format!("`{p}`"), self.found());
        self.error(diag);
        Err(Abort)
    }

    pub fn expect_keyword(&mut self, keyword: &str) -> PResult<Span> {
        if self.at_keyword(keyword) {
            return Ok(self.bump().span);
        }
        Err(self.unexpected(&format!("`{keyword}`")))
    }

    /// An identifier that is not a keyword; `what` names it for the diagnostic.
    pub fn ident(&mut self, what: &str) -> PResult<Ident> {
        match self.kind() {
            TokenKind::Name(name) if !is_keyword(name) => {
                let name = name.clone();
                let span = self.bump().span;
                Ok(Ident { name, span })
            }
            _ => Err(self.unexpected(what)),
        }
    }

    /// Enters one nesting level; refuses (after reporting) beyond `MAX_NESTING`. Every
    /// successful `enter` is paired with one `leave`.
    pub fn enter(&mut self) -> PResult<()> {
        if self.depth >= MAX_NESTING {
            return Err(self.too_deep(self.span()));
        }
        self.depth += 1;
        Ok(())
    }

    pub fn leave(&mut self) {
        self.depth = self.depth.saturating_sub(1);
    }

    pub fn too_deep(&mut self, span: Span) -> Abort {
        let diag = Diagnostic::error(span, "nesting too deep")
            .expected(format!("at most {MAX_NESTING} levels of nesting"), "more");
        self.error(diag);
        Abort
    }

    /// Skips the rest of the current logical line and any indented block under it.
    pub fn recover_statement(&mut self) {
        while !self.at_line_end() {
            if self.kind() == &TokenKind::Dedent || self.kind() == &TokenKind::Indent {
                break;
            }
            self.bump();
        }
        if self.kind() == &TokenKind::Newline {
            self.bump();
        }
        if self.kind() == &TokenKind::Indent {
            self.skip_block();
        }
    }

    /// Skips a whole indented block, from its `Indent` to the matching `Dedent`.
    pub fn skip_block(&mut self) {
        let mut open: usize = 0;
        loop {
            match self.kind() {
                TokenKind::Eof => return,
                TokenKind::Indent => open += 1,
                TokenKind::Dedent => {
                    open = open.saturating_sub(1);
                    if open == 0 {
                        self.bump();
                        return;
                    }
                }
                _ => {}
            }
            self.bump();
        }
    }
}
