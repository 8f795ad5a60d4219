//! The TVMScript lexer: source text to a token stream, Python style.
//!
//! `Lexer` hands out tokens one at a time (`next_token`), so a reader holds only the tokens it
//! looks ahead at, never the whole file's (a token weighs as much as the text it came from);
//! `lex` collects the whole stream for tests and tools.
//!
//! It owns the token vocabulary (`Token`, `TokenKind`, `Punct`) and the layout rules:
//! `INDENT`/`DEDENT` from leading whitespace, implicit line joining inside `()`, `[]`, `{}`,
//! backslash continuation, `#` comments, blank lines. Keywords are plain `Name`s; the parser
//! decides what they mean.
//!
//! Invariants:
//! - The lexer never panics; its stream ends with exactly one `Eof`, after which `next_token`
//!   keeps answering `Eof`.
//! - A `Newline` ends every logical line that holds a token; blank and comment-only lines make
//!   none. `Indent`/`Dedent` only follow a `Newline` (or open the file) and balance at `Eof`.
//! - Every token and diagnostic has a 1-based line:col; columns count characters, and lines end
//!   at `\r\n`, a lone `\r` or `\n` (as `tirproof_ir::span::source_lines` splits them).
//! - Errors never stop the lexer: it reports, skips the offending text and carries on, so the
//!   parser still sees the rest of the file.

use std::collections::VecDeque;
use std::fmt;

use tirproof_ir::diag::Diagnostic;
use tirproof_ir::span::Span;

/// Operators and delimiters.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Punct {
    Plus,
    Minus,
    Star,
    Slash,
    SlashSlash,
    Percent,
    StarStar,
    Amp,
    Pipe,
    Caret,
    Tilde,
    Shl,
    Shr,
    Lt,
    Le,
    Gt,
    Ge,
    EqEq,
    Ne,
    Assign,
    Colon,
    Comma,
    Dot,
    LParen,
    RParen,
    LBracket,
    RBracket,
    LBrace,
    RBrace,
    Arrow,
    At,
}

impl Punct {
    /// Longest first, so that a greedy scan over this table is maximal munch.
    const TABLE: [(&'static str, Punct); 31] = [
        ("//", Punct::SlashSlash),
        ("**", Punct::StarStar),
        ("<<", Punct::Shl),
        (">>", Punct::Shr),
        ("<=", Punct::Le),
        (">=", Punct::Ge),
        ("==", Punct::EqEq),
        ("!=", Punct::Ne),
        ("->", Punct::Arrow),
        ("+", Punct::Plus),
        ("-", Punct::Minus),
        ("*", Punct::Star),
        ("/", Punct::Slash),
        ("%", Punct::Percent),
        ("&", Punct::Amp),
        ("|", Punct::Pipe),
        ("^", Punct::Caret),
        ("~", Punct::Tilde),
        ("<", Punct::Lt),
        (">", Punct::Gt),
        ("=", Punct::Assign),
        (":", Punct::Colon),
        (",", Punct::Comma),
        (".", Punct::Dot),
        ("(", Punct::LParen),
        (")", Punct::RParen),
        ("[", Punct::LBracket),
        ("]", Punct::RBracket),
        ("{", Punct::LBrace),
        ("}", Punct::RBrace),
        ("@", Punct::At),
    ];

    /// The source spelling.
    pub fn as_str(self) -> &'static str {
        Punct::TABLE.iter().find(|(_, p)| *p == self).map_or("?", |(text, _)| text)
    }

    /// The closing delimiter of an opening one.
    fn closer(self) -> Option<Punct> {
        match self {
            Punct::LParen => Some(Punct::RParen),
            Punct::LBracket => Some(Punct::RBracket),
            Punct::LBrace => Some(Punct::RBrace),
            _ => None,
        }
    }
}

impl fmt::Display for Punct {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

#[derive(Clone, Debug, PartialEq)]
pub enum TokenKind {
    /// An identifier or keyword.
    Name(String),
    /// A non-negative integer literal (the sign is a separate `-`).
    Int(u64),
    Float(f64),
    /// A string literal with its escapes resolved.
    Str(String),
    Punct(Punct),
    Newline,
    Indent,
    Dedent,
    Eof,
}

impl TokenKind {
    /// How diagnostics name the token ("found ...").
    pub fn describe(&self) -> String {
        match self {
            TokenKind::Name(name) => format!("`{name}`"),
            TokenKind::Int(value) => format!("`{value}`"),
            TokenKind::Float(value) => format!("`{value:?}`"),
            TokenKind::Str(text) => format!("string {text:?}"),
            TokenKind::Punct(p) => format!("`{p}`"),
            TokenKind::Newline => "end of line".to_string(),
            TokenKind::Indent => "indentation".to_string(),
            TokenKind::Dedent => "end of the indented block".to_string(),
            TokenKind::Eof => "end of file".to_string(),
        }
    }
}

#[derive(Clone, Debug, PartialEq)]
pub struct Token {
    pub kind: TokenKind,
    pub span: Span,
}

/// The result of lexing: all tokens (ending with `Eof`) and every lexical error.
#[derive(Clone, Debug, Default)]
pub struct Lexed {
    pub tokens: Vec<Token>,
    pub diagnostics: Vec<Diagnostic>,
    /// Where an unclosed bracket opened: everything after it is one unterminated line, so
    /// the parser's later complaints are consequences, not news.
    pub unclosed_at: Option<Span>,
}

/// Splits all of `source` into tokens. Never fails; errors are in `Lexed::diagnostics`.
pub fn lex(source: &str) -> Lexed {
    let mut lexer = Lexer::new(source);
    let mut tokens = Vec::new();
    loop {
        let token = lexer.next_token();
        let last = token.kind == TokenKind::Eof;
        tokens.push(token);
        if last {
            break;
        }
    }
    Lexed { tokens, diagnostics: lexer.diags, unclosed_at: lexer.unclosed_at }
}

/// Width of a tab in indentation (Python's historical rule: to the next multiple of 8).
const TAB_WIDTH: u32 = 8;

/// The token stream of one source text.
pub struct Lexer<'a> {
    source: &'a str,
    /// Byte offset of the next character.
    pos: usize,
    line: u32,
    col: u32,
    /// Tokens scanned but not yet handed out (one step of the scan can make several:
    /// dedents, a line end before the end of the file).
    ready: VecDeque<Token>,
    /// Whether the last token made is not a `Newline`: the logical line holds a token.
    line_has_token: bool,
    diags: Vec<Diagnostic>,
    /// Indentation widths of the open blocks; the bottom entry is 0.
    indents: Vec<u32>,
    /// Open brackets with where they opened.
    brackets: Vec<(Punct, Span)>,
    at_line_start: bool,
    /// Where the file ended, once the closing tokens are made.
    end: Option<Span>,
    unclosed_at: Option<Span>,
}

impl<'a> Lexer<'a> {
    pub fn new(source: &'a str) -> Self {
        Lexer {
            source,
            pos: 0,
            line: 1,
            col: 1,
            ready: VecDeque::new(),
            line_has_token: false,
            diags: Vec::new(),
            indents: vec![0],
            brackets: Vec::new(),
            at_line_start: true,
            end: None,
            unclosed_at: None,
        }
    }

    /// The next token; `Eof` at the end and forever after.
    pub fn next_token(&mut self) -> Token {
        loop {
            if let Some(token) = self.ready.pop_front() {
                return token;
            }
            if let Some(end) = self.end {
                return Token { kind: TokenKind::Eof, span: end };
            }
            self.step();
        }
    }

    /// The lexical errors found so far, in the order they were found.
    pub fn diagnostics(&self) -> &[Diagnostic] {
        &self.diags
    }

    /// Every lexical error and where an unclosed bracket opened (complete once `Eof` was
    /// handed out).
    pub fn into_diagnostics(self) -> (Vec<Diagnostic>, Option<Span>) {
        (self.diags, self.unclosed_at)
    }

    /// The characters ahead, with every line end (`\r\n`, a lone `\r`, `\n`) read as `\n`, as
    /// Python's universal newlines do, so lines count as `tirproof_ir::span::source_lines`
    /// splits them.
    fn ahead(&self) -> impl Iterator<Item = char> + 'a {
        let mut rest = self.source.get(self.pos..).unwrap_or_default().chars().peekable();
        std::iter::from_fn(move || {
            let c = rest.next()?;
            if c == '\r' {
                rest.next_if_eq(&'\n');
                return Some('\n');
            }
            Some(c)
        })
    }

    fn peek(&self) -> Option<char> {
        self.ahead().next()
    }

    fn peek_at(&self, ahead: usize) -> Option<char> {
        self.ahead().nth(ahead)
    }

    fn here(&self) -> Span {
        Span::new(self.line, self.col)
    }

    /// Consumes one character, keeping line and column up to date.
    fn bump(&mut self) -> Option<char> {
        let rest = self.source.get(self.pos..).unwrap_or_default();
        let c = rest.chars().next()?;
        self.pos += c.len_utf8();
        if c == '\r' && rest.as_bytes().get(1) == Some(&b'\n') {
            self.pos += 1;
        }
        let c = if c == '\r' { '\n' } else { c };
        if c == '\n' {
            self.line = self.line.saturating_add(1);
            self.col = 1;
        } else {
            self.col = self.col.saturating_add(1);
        }
        Some(c)
    }

    fn push(&mut self, kind: TokenKind, span: Span) {
        self.line_has_token = kind != TokenKind::Newline;
        self.ready.push_back(Token { kind, span });
    }

    fn error(&mut self, diag: Diagnostic) {
        self.diags.push(diag);
    }

    /// Scans one piece of the text (which may make no token, or several).
    fn step(&mut self) {
        if self.at_line_start && self.brackets.is_empty() {
            self.indentation();
        }
        let Some(c) = self.peek() else {
            self.finish();
            return;
        };
        match c {
            ' ' | '\t' | '\x0c' => {
                self.bump();
            }
            '\n' => self.newline(),
            '#' => self.skip_comment(),
            '\\' => self.continuation(),
            '"' | '\'' => self.string(),
            c if c.is_ascii_digit() => self.number(),
            '.' if self.peek_at(1).is_some_and(|d| d.is_ascii_digit()) => self.number(),
            c if is_name_start(c) => self.name(),
            _ => self.punct(),
        }
    }

    /// At the end of the text: closes the last line, reports unclosed brackets, closes the
    /// open blocks and makes the `Eof`.
    fn finish(&mut self) {
        let end = self.here();
        if self.line_has_token {
            self.push(TokenKind::Newline, end);
        }
        self.unclosed_at = self.brackets.first().map(|(_, span)| *span);
        for (open, span) in std::mem::take(&mut self.brackets) {
            let close = open.closer().map_or("?", Punct::as_str);
            self.error(
                Diagnostic::error(span, format!("unclosed `{open}`")).expected(format!("`{close}`"), "end of file"),
            );
        }
        while self.indents.len() > 1 {
            self.indents.pop();
            self.push(TokenKind::Dedent, end);
        }
        self.push(TokenKind::Eof, end);
        self.end = Some(end);
    }

    /// At the start of a line outside brackets: skips blank and comment-only lines, then
    /// compares the indentation with the open blocks and emits `Indent`/`Dedent`.
    fn indentation(&mut self) {
        loop {
            let mut width: u32 = 0;
            while let Some(c) = self.peek() {
                match c {
                    ' ' => width = width.saturating_add(1),
                    '\t' => width = (width / TAB_WIDTH).saturating_add(1).saturating_mul(TAB_WIDTH),
                    '\x0c' => width = 0,
                    _ => break,
                }
                self.bump();
            }
            match self.peek() {
                None => return,
                Some('#') => self.skip_comment(),
                Some('\n') => {
                    self.bump();
                }
                Some(_) => {
                    self.at_line_start = false;
                    self.set_indent(width);
                    return;
                }
            }
        }
    }

    fn set_indent(&mut self, width: u32) {
        let span = self.here();
        let current = self.indents.last().copied().unwrap_or(0);
        if width > current {
            self.indents.push(width);
            self.push(TokenKind::Indent, span);
            return;
        }
        while self.indents.last().is_some_and(|&top| top > width) {
            self.indents.pop();
            self.push(TokenKind::Dedent, span);
        }
        if self.indents.last().is_some_and(|&top| top < width) {
            // Between two levels: report it, then treat the line as a new (unexpected)
            // level so that the block structure stays balanced.
            self.error(
                Diagnostic::error(span, "unindent does not match any outer indentation level")
                    .expected("an indentation used by an enclosing block", format!("{width} columns")),
            );
            self.indents.push(width);
            self.push(TokenKind::Indent, span);
        }
    }

    fn newline(&mut self) {
        let span = self.here();
        self.bump();
        if !self.brackets.is_empty() {
            return;
        }
        if self.line_has_token {
            self.push(TokenKind::Newline, span);
        }
        self.at_line_start = true;
    }

    fn skip_comment(&mut self) {
        while self.peek().is_some_and(|c| c != '\n') {
            self.bump();
        }
    }

    /// A backslash joins the next physical line to this one.
    fn continuation(&mut self) {
        let span = self.here();
        self.bump();
        if self.peek() == Some('\n') {
            self.bump();
        } else {
            self.error(
                Diagnostic::error(span, "unexpected character `\\`").expected("a line break after `\\`", "text"),
            );
        }
    }

    fn name(&mut self) {
        let span = self.here();
        let mut text = String::new();
        while let Some(c) = self.peek().filter(|&c| is_name_char(c)) {
            text.push(c);
            self.bump();
        }
        self.push(TokenKind::Name(text), span);
    }

    fn punct(&mut self) {
        let span = self.here();
        let found = Punct::TABLE
            .iter()
            .find(|(text, _)| text.chars().enumerate().all(|(i, expected)| self.peek_at(i) == Some(expected)));
        let Some(&(text, punct)) = found else {
            let c = self.bump().unwrap_or(' ');
            self.error(
                Diagnostic::error(span, format!("unexpected character `{}`", c.escape_debug()))
                    .expected("a token", format!("`{}`", c.escape_debug())),
            );
            return;
        };
        for _ in text.chars() {
            self.bump();
        }
        self.track_bracket(punct, span);
        self.push(TokenKind::Punct(punct), span);
    }

    /// Keeps the bracket stack; closing brackets that match nothing are reported here.
    fn track_bracket(&mut self, punct: Punct, span: Span) {
        if punct.closer().is_some() {
            self.brackets.push((punct, span));
            return;
        }
        if !matches!(punct, Punct::RParen | Punct::RBracket | Punct::RBrace) {
            return;
        }
        match self.brackets.pop() {
            None => self.error(
                Diagnostic::error(span, format!("unmatched `{punct}`"))
                    .expected("an opening bracket before it", format!("`{punct}`")),
            ),
            Some((open, _)) if open.closer() != Some(punct) => {
                let close = open.closer().map_or("?", Punct::as_str);
                self.error(
                    Diagnostic::error(span, format!("mismatched `{punct}`"))
                        .expected(format!("`{close}`"), format!("`{punct}`")),
                );
            }
            Some(_) => {}
        }
    }

    fn number(&mut self) {
        let span = self.here();
        if self.peek() == Some('0') && self.peek_at(1).is_some_and(|c| matches!(c, 'x' | 'X' | 'o' | 'O' | 'b' | 'B')) {
            self.radix_number(span);
            return;
        }
        let mut text = String::new();
        let mut is_float = false;
        self.digits(&mut text);
        if self.peek() == Some('.') {
            is_float = true;
            text.push('.');
            self.bump();
            self.digits(&mut text);
        }
        if self.peek().is_some_and(|c| c == 'e' || c == 'E') && self.exponent_follows() {
            is_float = true;
            self.bump();
            text.push('e');
            if let Some(sign) = self.peek().filter(|&c| c == '+' || c == '-') {
                text.push(sign);
                self.bump();
            }
            self.digits(&mut text);
        }
        if self.reject_suffix(span, &text) {
            return;
        }
        if is_float {
            let value = text.parse::<f64>().unwrap_or(f64::NAN);
            self.push(TokenKind::Float(value), span);
        } else {
            self.push_int(text.parse::<u64>().ok(), span, &text);
        }
    }

    /// `e` starts an exponent only when digits follow (with an optional sign).
    fn exponent_follows(&self) -> bool {
        match self.peek_at(1) {
            Some('+' | '-') => self.peek_at(2).is_some_and(|c| c.is_ascii_digit()),
            Some(c) => c.is_ascii_digit(),
            None => false,
        }
    }

    fn digits(&mut self, text: &mut String) {
        while let Some(c) = self.peek().filter(|c| c.is_ascii_digit() || *c == '_') {
            if c != '_' {
                text.push(c);
            }
            self.bump();
        }
    }

    fn radix_number(&mut self, span: Span) {
        self.bump();
        let radix = match self.bump() {
            Some('x' | 'X') => 16,
            Some('o' | 'O') => 8,
            _ => 2,
        };
        let mut text = String::new();
        while let Some(c) = self.peek().filter(|c| c.is_digit(radix) || *c == '_') {
            if c != '_' {
                text.push(c);
            }
            self.bump();
        }
        if self.reject_suffix(span, &text) {
            return;
        }
        if text.is_empty() {
            self.error(Diagnostic::error(span, "invalid number literal").expected("digits", "nothing"));
            return;
        }
        self.push_int(u64::from_str_radix(&text, radix).ok(), span, &text);
    }

    fn push_int(&mut self, value: Option<u64>, span: Span, text: &str) {
        match value {
            Some(v) => self.push(TokenKind::Int(v), span),
            None => {
                self.error(
                    Diagnostic::error(span, "integer literal is too large")
                        .expected("a value below 2**64", format!("`{text}`")),
                );
                self.push(TokenKind::Int(0), span);
            }
        }
    }

    /// A number glued to letters (`1abc`) is one bad token, not two good ones.
    fn reject_suffix(&mut self, span: Span, text: &str) -> bool {
        if !self.peek().is_some_and(is_name_char) {
            return false;
        }
        let mut found = text.to_string();
        while let Some(c) = self.peek().filter(|&c| is_name_char(c)) {
            found.push(c);
            self.bump();
        }
        self.error(Diagnostic::error(span, "invalid number literal").expected("a number", format!("`{found}`")));
        true
    }

    fn string(&mut self) {
        let span = self.here();
        let quote = self.bump().unwrap_or('"');
        let triple = self.peek() == Some(quote) && self.peek_at(1) == Some(quote);
        if triple {
            self.bump();
            self.bump();
        }
        let mut text = String::new();
        loop {
            match self.peek() {
                None => return self.unterminated(span, text),
                Some('\n') if !triple => return self.unterminated(span, text),
                Some('\\') => self.escape(&mut text),
                Some(c) if c == quote && (!triple || self.triple_close(quote)) => {
                    let count = if triple { 3 } else { 1 };
                    for _ in 0..count {
                        self.bump();
                    }
                    self.push(TokenKind::Str(text), span);
                    return;
                }
                Some(c) => {
                    text.push(c);
                    self.bump();
                }
            }
        }
    }

    fn triple_close(&self, quote: char) -> bool {
        self.peek_at(1) == Some(quote) && self.peek_at(2) == Some(quote)
    }

    fn unterminated(&mut self, span: Span, text: String) {
        self.error(Diagnostic::error(span, "unterminated string").expected("a closing quote", "end of line"));
        // A missing quote usually swallowed closing brackets of this line; forget the ones
        // opened on it so that the next line starts a fresh statement.
        while self.brackets.last().is_some_and(|(_, open)| open.line == span.line) {
            self.brackets.pop();
        }
        self.push(TokenKind::Str(text), span);
    }

    /// Reads one escape sequence after a backslash inside a string.
    fn escape(&mut self, text: &mut String) {
        let span = self.here();
        self.bump();
        let Some(c) = self.bump() else { return };
        let simple = match c {
            'n' => Some('\n'),
            't' => Some('\t'),
            'r' => Some('\r'),
            '0' => Some('\0'),
            'a' => Some('\x07'),
            'b' => Some('\x08'),
            'f' => Some('\x0c'),
            'v' => Some('\x0b'),
            '\\' | '\'' | '"' => Some(c),
            _ => None,
        };
        if let Some(s) = simple {
            text.push(s);
            return;
        }
        match c {
            '\n' => {}
            'x' => self.hex_escape(text, 2, span),
            'u' => self.hex_escape(text, 4, span),
            'U' => self.hex_escape(text, 8, span),
            other => {
                // Python keeps unknown escapes verbatim.
                text.push('\\');
                text.push(other);
            }
        }
    }

    fn hex_escape(&mut self, text: &mut String, len: usize, span: Span) {
        let mut value: u32 = 0;
        for _ in 0..len {
            match self.peek().and_then(|c| c.to_digit(16)) {
                Some(d) => {
                    value = value.saturating_mul(16).saturating_add(d);
                    self.bump();
                }
                None => {
                    self.error(
                        Diagnostic::error(span, "invalid escape sequence")
                            .expected(format!("{len} hexadecimal digits"), "fewer"),
                    );
                    return;
                }
            }
        }
        match char::from_u32(value) {
            Some(c) => text.push(c),
            None => self.error(
                Diagnostic::error(span, "invalid escape sequence")
                    .expected("a Unicode scalar value", format!("{value:#x}")),
            ),
        }
    }
}

fn is_name_start(c: char) -> bool {
    c == '_' || c.is_alphabetic()
}

fn is_name_char(c: char) -> bool {
    c == '_' || c.is_alphanumeric()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kinds(source: &str) -> Vec<TokenKind> {
        let lexed = lex(source);
        assert!(lexed.diagnostics.is_empty(), "{:?}", lexed.diagnostics);
        lexed.tokens.into_iter().map(|t| t.kind).collect()
    }

    fn name(s: &str) -> TokenKind {
        TokenKind::Name(s.to_string())
    }

    fn p(p: Punct) -> TokenKind {
        TokenKind::Punct(p)
    }

    #[test]
    fn indents_and_dedents() {
        use TokenKind::{Dedent, Eof, Indent, Newline};
        let toks = kinds("if a:\n    b\n\n    # c\n  \nd\n");
        assert_eq!(
            toks,
            vec![
                name("if"),
                name("a"),
                p(Punct::Colon),
                Newline,
                Indent,
                name("b"),
                Newline,
                Dedent,
                name("d"),
                Newline,
                Eof
            ]
        );
    }

    #[test]
    fn brackets_join_lines() {
        use TokenKind::{Eof, Int, Newline};
        let toks = kinds("f(1,\n      2)\n");
        assert_eq!(
            toks,
            vec![name("f"), p(Punct::LParen), Int(1), p(Punct::Comma), Int(2), p(Punct::RParen), Newline, Eof]
        );
    }

    #[test]
    fn numbers_and_operators() {
        use TokenKind::{Eof, Float, Int, Newline};
        let toks = kinds("0x1F 10 1.5 1e-5 .5 2. a//b**c<<=>>!=->@");
        assert_eq!(
            toks,
            vec![
                Int(31),
                Int(10),
                Float(1.5),
                Float(1e-5),
                Float(0.5),
                Float(2.0),
                name("a"),
                p(Punct::SlashSlash),
                name("b"),
                p(Punct::StarStar),
                name("c"),
                p(Punct::Shl),
                p(Punct::Assign),
                p(Punct::Shr),
                p(Punct::Ne),
                p(Punct::Arrow),
                p(Punct::At),
                Newline,
                Eof
            ]
        );
    }

    #[test]
    fn strings_with_escapes() {
        use TokenKind::{Eof, Newline, Str};
        let toks = kinds(r#""a\"b\n" 'c\'d' "\x41\u00e9" "q\z""#);
        assert_eq!(
            toks,
            vec![Str("a\"b\n".into()), Str("c'd".into()), Str("Aé".into()), Str("q\\z".into()), Newline, Eof]
        );
    }

    #[test]
    fn spans_are_one_based() {
        let lexed = lex("x = 1\n  # c\ny  =  \"s\"\n");
        let spans: Vec<_> = lexed.tokens.iter().map(|t| (t.span.line, t.span.col)).collect();
        assert_eq!(spans, vec![(1, 1), (1, 3), (1, 5), (1, 6), (3, 1), (3, 4), (3, 7), (3, 10), (4, 1)]);
    }

    #[test]
    fn reports_lexical_errors() {
        let lexed = lex("a = \"abc\nb = $\nc = (1,\n");
        let msgs: Vec<_> = lexed.diagnostics.iter().map(|d| (d.span.to_string(), d.message.clone())).collect();
        assert_eq!(
            msgs,
            vec![
                ("1:5".to_string(), "unterminated string".to_string()),
                ("2:5".to_string(), "unexpected character `$`".to_string()),
                ("3:5".to_string(), "unclosed `(`".to_string()),
            ]
        );
        assert_eq!(lexed.unclosed_at, Some(Span::new(3, 5)));
        assert_eq!(lexed.tokens.last().map(|t| &t.kind), Some(&TokenKind::Eof));
    }

    #[test]
    fn bad_dedent_is_reported() {
        let lexed = lex("if a:\n    b\n  c\n");
        assert_eq!(lexed.diagnostics.len(), 1);
        assert_eq!(lexed.diagnostics[0].span, Span::new(3, 3));
        assert_eq!(lexed.diagnostics[0].message, "unindent does not match any outer indentation level");
    }

    #[test]
    fn dedents_balance_at_eof() {
        let lexed = lex("a:\n  b:\n    c");
        let indents = lexed.tokens.iter().filter(|t| t.kind == TokenKind::Indent).count();
        let dedents = lexed.tokens.iter().filter(|t| t.kind == TokenKind::Dedent).count();
        assert_eq!((indents, dedents), (2, 2));
    }
}
