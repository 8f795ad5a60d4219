//! The TVMScript parser: `parse_module` turns source text into an `IRModule`.
//!
//! Three stages, each in its own files: the lexer (`text::lex`), the grammar (`cursor.rs`,
//! `grammar_*.rs`: tokens to the surface tree of `ast.rs`), and the lowering (`lower.rs`,
//! `func.rs`, `stmt.rs`, `binder.rs`, `loops.rs`, `block.rs`, `buffer.rs`, `expr.rs`,
//! `call.rs`, `literal.rs`, with name resolution in `scope.rs`: surface tree to IR).
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

#[cfg(test)]
mod error_tests;
#[cfg(test)]
mod fuzz_tests;
#[cfg(test)]
mod tests;

use crate::lex::lex;
use tirproof_ir::diag::{Diagnostic, Diagnostics};
use tirproof_ir::func::IRModule;
use tirproof_ir::span::Span;

use ast::{PClass, PFile};
use cursor::Cursor;
use lower::Lowerer;

/// The deepest syntactic nesting accepted (brackets, operators, indented blocks).
pub(super) const MAX_NESTING: u32 = 200;

/// The deepest statement nesting of the IR built (blocks plus the binders that scope over
/// the rest of a statement list).
pub(super) const MAX_IR_DEPTH: u32 = 500;

/// Parses a whole file: `@I.ir_module class Module:` with `@T.prim_func` functions, or bare
/// `@T.prim_func` functions.
pub fn parse_module(source: &str) -> Result<IRModule, Diagnostics> {
    let lexed = lex(source);
    let mut cursor = Cursor::new(lexed.tokens);
    let file = cursor.file();
    // The tokens go before lowering starts: the syntax tree holds what lowering needs, and
    // the tokens of a large file weigh as much as the tree (docs/limits.md).
    let mut diags = syntax_diagnostics(lexed.diagnostics, cursor.into_diagnostics(), lexed.unclosed_at);
    let module = lower_file(&file, &mut diags);
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

/// Lowers every function that parsed cleanly; appends the lowering errors to `diags`.
fn lower_file(file: &PFile, diags: &mut Vec<Diagnostic>) -> IRModule {
    let mut lowerer = Lowerer::new();
    if let Some(class) = &file.class {
        check_class(class, &mut lowerer);
    }
    let mut module = IRModule { class_name: file.class.as_ref().map(|c| c.name.name.clone()), functions: Vec::new() };
    for f in &file.funcs {
        let broken = f.had_errors || diags.iter().any(|d| (f.span.line..=f.end.line).contains(&d.span.line));
        if module.functions.iter().any(|g| g.name == f.name.name) {
            lowerer.error(
                f.name.span,
                format!("duplicate function `{}`", f.name.name),
                "a new name",
                format!("`{}`", f.name.name),
            );
        }
        if !broken {
            module.functions.push(lowerer.func(f));
        }
    }
    if file.funcs.is_empty() && diags.is_empty() && lowerer.diags.is_empty() {
        lowerer.error(
            Span::new(1, 1),
            "no function found",
            "a `@T.prim_func` function or an `@I.ir_module` class",
            "end of file",
        );
    }
    diags.append(&mut lowerer.diags);
    module
}

/// The class must be decorated `@I.ir_module`.
fn check_class(class: &PClass, lowerer: &mut Lowerer) {
    let ok = matches!(class.decorators.as_slice(), [d] if d.dotted().as_deref() == Some("I.ir_module"));
    if !ok {
        let found = class.decorators.first().map_or_else(|| "no decorator".to_string(), |d| d.describe());
        lowerer.error(class.name.span, "a module class must be decorated with `@I.ir_module`", "`@I.ir_module`", found);
    }
}
