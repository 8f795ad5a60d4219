//! The TVMScript parser: `parse_module` turns source text into an `IRModule`.
//!
//! Three stages, each in its own files: the lexer (`lex`), the grammar (`cursor.rs`,
//! `grammar_*.rs`: tokens to the surface tree of `ast.rs`), and the lowering (`lower.rs`,
//! `func.rs`, `stmt.rs`, `binder.rs`, `loops.rs`, `block.rs`, `buffer.rs`, `expr.rs`,
//! `call.rs`, `literal.rs`, with name resolution in `scope.rs`: surface tree to IR). They run
//! interleaved: the cursor pulls tokens from the lexer as it needs them, and each top-level
//! statement of a function is lowered as soon as the grammar has read it, then its syntax tree
//! is dropped. So reading a file holds its IR and one statement's tree, not the file's tokens
//! and tree (docs/limits.md measures it).
//!
//! Invariants: `parse_module` never panics; every error is a located `Diagnostic`, and all of
//! them are returned, sorted by position. A function is lowered only when the grammar found
//! no error inside it, and grammar errors that merely follow from a lexical error (on the
//! same line, or anywhere after an unclosed bracket) are dropped, so each mistake is reported
//! once. Nesting is capped (`MAX_NESTING` for the syntax, `MAX_IR_DEPTH` for the IR built),
//! and the functions on recursive paths keep small frames, so no stage can overflow the stack:
//! the worst inputs at the caps parse within a 1 MiB stack even in debug builds (tested in
//! `fuzz_tests.rs`).

mod ast;
mod binder;
mod block;
mod buffer;
mod call;
mod cursor;
mod expr;
mod func;
mod grammar_expr;
mod grammar_file;
mod grammar_stmt;
mod literal;
mod loops;
mod lower;
mod scope;
mod stmt;
mod stream;

#[cfg(test)]
mod error_tests;
#[cfg(test)]
mod fuzz_tests;
#[cfg(test)]
mod stream_tests;
#[cfg(test)]
mod tests;

use tirproof_ir::diag::{Diagnostic, Diagnostics};
use tirproof_ir::func::IRModule;
use tirproof_ir::span::Span;

use ast::{BodyEvent, FuncEnd, Ident, PClass, PFuncHeader};
use cursor::Cursor;
use func::FuncBuilder;
use grammar_file::ItemSink;
use lower::Lowerer;

/// The deepest syntactic nesting accepted (brackets, operators, indented blocks).
pub(super) const MAX_NESTING: u32 = 200;

/// The deepest statement nesting of the IR built (blocks plus the binders that scope over
/// the rest of a statement list).
pub(super) const MAX_IR_DEPTH: u32 = 500;

/// Parses a whole file: `@I.ir_module class Module:` with `@T.prim_func` functions, or bare
/// `@T.prim_func` functions.
pub fn parse_module(source: &str) -> Result<IRModule, Diagnostics> {
    read_module(source, |cursor, lowering| cursor.file(lowering))
}

/// `parse_module`, with `read` driving the grammar into the lowering.
fn read_module(source: &str, read: impl FnOnce(&mut Cursor<'_>, &mut ModuleLowering)) -> Result<IRModule, Diagnostics> {
    let mut cursor = Cursor::new(source);
    let mut lowering = ModuleLowering::new();
    read(&mut cursor, &mut lowering);
    let report = cursor.into_report();
    let mut diags = syntax_diagnostics(report.lexical, report.grammar, report.unclosed_at);
    let module = lowering.finish(&mut diags);
    if diags.is_empty() {
        return Ok(module);
    }
    diags.sort_by_key(|d| d.span);
    diags.dedup_by(|a, b| a.span == b.span && a.message == b.message);
    Err(Diagnostics(diags))
}

/// Lexical errors, and the grammar errors that are not consequences of one.
fn syntax_diagnostics(
    lexical: Vec<Diagnostic>,
    grammar: Vec<Diagnostic>,
    unclosed_at: Option<Span>,
) -> Vec<Diagnostic> {
    let follows_lexical = |d: &Diagnostic| {
        lexical.iter().any(|l| l.span.line == d.span.line) || unclosed_at.is_some_and(|at| d.span >= at)
    };
    let kept: Vec<Diagnostic> = grammar.into_iter().filter(|d| !follows_lexical(d)).collect();
    lexical.into_iter().chain(kept).collect()
}

/// The function being lowered while the grammar reads it.
struct OpenFunc {
    builder: FuncBuilder,
    name: Ident,
    span: Span,
    /// How many lowering diagnostics there were before it: a function the grammar found
    /// broken keeps none of its own (they would only repeat consequences of the syntax error).
    diags_before: usize,
}

/// Lowers each function as the grammar hands it out; keeps those that read without error.
struct ModuleLowering {
    lowerer: Lowerer,
    module: IRModule,
    open: Option<OpenFunc>,
    /// Functions the grammar read to their end.
    funcs_read: usize,
}

impl ModuleLowering {
    fn new() -> Self {
        ModuleLowering {
            lowerer: Lowerer::new(),
            module: IRModule { class_name: None, functions: Vec::new() },
            open: None,
            funcs_read: 0,
        }
    }

    /// The module; appends the lowering errors to `diags`.
    fn finish(mut self, diags: &mut Vec<Diagnostic>) -> IRModule {
        if self.funcs_read == 0 && diags.is_empty() && self.lowerer.diags.is_empty() {
            self.lowerer.error(
                Span::new(1, 1),
                "no function found",
                "a `@T.prim_func` function or an `@I.ir_module` class",
                "end of file",
            );
        }
        diags.append(&mut self.lowerer.diags);
        self.module
    }
}

impl ItemSink for ModuleLowering {
    /// The class must be decorated `@I.ir_module`.
    fn class(&mut self, class: PClass) {
        let ok = matches!(class.decorators.as_slice(), [d] if d.dotted().as_deref() == Some("I.ir_module"));
        if !ok {
            let found = class.decorators.first().map_or_else(|| "no decorator".to_string(), |d| d.describe());
            self.lowerer.error(
                class.name.span,
                "a module class must be decorated with `@I.ir_module`",
                "`@I.ir_module`",
                found,
            );
        }
        self.module.class_name = Some(class.name.name);
    }

    fn func_start(&mut self, header: PFuncHeader) {
        let diags_before = self.lowerer.diags.len();
        let builder = self.lowerer.begin_func(&header);
        self.open = Some(OpenFunc { builder, name: header.name, span: header.span, diags_before });
    }

    fn body_event(&mut self, event: BodyEvent) {
        if let Some(open) = &mut self.open {
            self.lowerer.func_event(&mut open.builder, event);
        }
    }

    fn func_end(&mut self, end: FuncEnd, lexical: &[Diagnostic]) {
        let Some(open) = self.open.take() else { return };
        let function = self.lowerer.end_func(open.builder);
        let FuncEnd::Read { end, had_errors } = end else {
            self.lowerer.diags.truncate(open.diags_before);
            return;
        };
        self.funcs_read += 1;
        let broken = had_errors || lexical.iter().any(|d| (open.span.line..=end.line).contains(&d.span.line));
        if broken {
            self.lowerer.diags.truncate(open.diags_before);
        }
        if self.module.functions.iter().any(|g| g.name == open.name.name) {
            self.lowerer.error(
                open.name.span,
                format!("duplicate function `{}`", open.name.name),
                "a new name",
                format!("`{}`", open.name.name),
            );
        }
        if !broken {
            self.module.functions.push(function);
        }
    }
}
