//! Readers of other compilers' async IR: Triton's TTGIR and MLIR's nvgpu dialect, read into
//! tirproof's token TIR so that the verifier proves, refutes or remarks on their waits as on
//! any TIR (docs/foreign-ir.md says what each op becomes).
//!
//! The text is parsed into MLIR's generic op tree ([`mlir`]), each function is lowered to
//! TVMScript text with the foreign location of every line ([`emit`]), and that text is read by
//! tirproof's own reader, so what the verifier sees can be printed and run. Every span of the
//! module returned points into the foreign file.
//! Invariant: an import either gives a module whose every async operation stands for one of
//! the foreign program's, or a located diagnostic; unknown syntax is never skipped silently.

pub mod emit;
pub mod lower;
pub mod mlir;
pub mod nvgpu;
pub mod sym;
pub mod ttgir;

use std::path::Path;

use tirproof_ir::visit::{walk_stmt_mut, MutVisitor};
use tirproof_ir::{Diagnostic, Diagnostics, IRModule, Span, Stmt, StmtKind};

use lower::Lower;
use mlir::TokKind;

/// The foreign IRs tirproof reads.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Dialect {
    /// Triton's TTGIR (`.ttgir`).
    Ttgir,
    /// MLIR with the nvgpu dialect (`.mlir`).
    Nvgpu,
}

impl Dialect {
    /// The dialect a file's extension names.
    pub fn of_path(path: &Path) -> Option<Dialect> {
        match path.extension()?.to_str()? {
            "ttgir" => Some(Dialect::Ttgir),
            "mlir" => Some(Dialect::Nvgpu),
            _ => None,
        }
    }
}

/// One function as TVMScript lines, each with the foreign span it stands for.
#[derive(Clone, Debug)]
pub struct ImportedFunc {
    pub name: String,
    pub lines: Vec<String>,
    pub origins: Vec<Span>,
}

#[derive(Clone, Debug, Default)]
pub struct Imported {
    pub functions: Vec<ImportedFunc>,
    /// Warnings about what the import assumed.
    pub notes: Vec<Diagnostic>,
}

/// A foreign file read into TIR.
#[derive(Clone, Debug)]
pub struct Module {
    /// The module, every span in the foreign file.
    pub module: IRModule,
    /// The TVMScript the module was read from.
    pub tir: String,
    pub notes: Vec<Diagnostic>,
}

/// Reads `text` of `dialect` into TIR.
pub fn import(text: &str, dialect: Dialect) -> Result<Module, Diagnostics> {
    let tree = mlir::parse(text)?;
    let mut imported = match dialect {
        Dialect::Ttgir => ttgir::import(&tree)?,
        Dialect::Nvgpu => nvgpu::import(&tree)?,
    };
    let mut tir = String::from("# from tvm.script import tirx as T\n");
    let mut origins = vec![Span::UNKNOWN];
    let mut names = std::collections::HashSet::new();
    for f in &mut imported.functions {
        // Two symbols may clean up to one Python name (`@a.b`, `@a_b`): the later is renamed.
        let mut name = f.name.clone();
        while !names.insert(name.clone()) {
            name.push('_');
        }
        if name != f.name {
            if let Some(def) = f.lines.get_mut(1) {
                *def = def.replacen(&format!("def {}(", f.name), &format!("def {name}("), 1);
            }
            f.name = name;
        }
        tir.push('\n');
        origins.push(Span::UNKNOWN);
        for (line, at) in f.lines.iter().zip(&f.origins) {
            tir.push_str(line);
            tir.push('\n');
            origins.push(*at);
        }
    }
    let mut module = match tirproof_reader::parse_module(&tir) {
        Ok(m) => m,
        Err(diags) => return Err(internal(&tir, &diags)),
    };
    let checked = tirproof_ir::check::check_module(&module);
    if checked.has_errors() {
        return Err(internal(&tir, &checked));
    }
    let mut remap = Remap { origins: &origins };
    for func in &mut module.functions {
        remap.mutate_stmt(&mut func.body);
    }
    Ok(Module { module, tir, notes: imported.notes })
}

/// The message of the diagnostic for a translation tirproof's own reader or checker refuses:
/// a bug of the import, never of the input (the fuzz target panics on it).
pub const INTERNAL_ERROR: &str = "tirproof could not read its own translation of this file (a bug in tirproof)";

/// A translation the reader rejects is tirproof's fault, not the input's: say so, with the TIR.
fn internal(tir: &str, diags: &Diagnostics) -> Diagnostics {
    let rendered = diags.render("<imported TIR>", tir);
    Diagnostic::error(Span::new(1, 1), INTERNAL_ERROR).note(rendered).into()
}

struct Remap<'a> {
    origins: &'a [Span],
}

impl Remap<'_> {
    /// The foreign span of a line of the TIR.
    fn origin(&self, span: Span) -> Span {
        usize::try_from(span.line)
            .ok()
            .and_then(|l| l.checked_sub(1))
            .and_then(|i| self.origins.get(i))
            .copied()
            .unwrap_or(Span::UNKNOWN)
    }
}

impl MutVisitor for Remap<'_> {
    fn mutate_stmt(&mut self, stmt: &mut Stmt) {
        stmt.span = self.origin(stmt.span);
        if let StmtKind::Block(block) = &mut stmt.kind {
            block.annotations.span = self.origin(block.annotations.span);
        }
        walk_stmt_mut(self, stmt);
    }
}

/// The scalar parameters of a function's signature `@name(%a: i32 {attrs} loc(...), ...)`:
/// integers become TIR parameters; pointers, tensors and memrefs are bound by the dialect.
pub(crate) fn signature(l: &mut Lower, func: &mlir::Op) -> lower::Result<Vec<String>> {
    let mut params = Vec::new();
    let body = &func.body;
    let Some(open) = body.iter().position(|t| t.is("(")) else {
        return Ok(params);
    };
    for (tok, ty) in arguments(body, open) {
        let kind = ty.first().map(|t| t.kind);
        let ty = ty.first().map(|t| t.text.as_str()).unwrap_or("");
        match (kind, ty) {
            (Some(TokKind::Word), "i32" | "i64" | "index" | "i1" | "i8" | "i16") => {
                let var = l.em.fresh(&tok.text);
                let (tir_ty, int_ty) = match ty {
                    "i64" | "index" => ("T.int64", sym::IntTy::I64),
                    _ => ("T.int32", sym::IntTy::I32),
                };
                params.push(format!("{var}: {tir_ty}"));
                let val = if ty == "i1" {
                    lower::Val::Bool(sym::Sym::Cmp(
                        sym::Cmp::Ne,
                        Box::new(sym::Sym::Name(var, int_ty)),
                        Box::new(sym::Sym::int(0, int_ty)),
                    ))
                } else {
                    lower::Val::Int(sym::Sym::Name(var, int_ty))
                };
                l.bind(&tok.text, val);
            }
            _ => l.bind(&tok.text, lower::Val::Opaque),
        }
    }
    Ok(params)
}

/// The arguments `(%a: type {attrs} loc(...), ...)` of the group opening at `body[open]`:
/// each `%a` with the tokens from its type on.
pub(crate) fn arguments(body: &[mlir::Tok], open: usize) -> Vec<(&mlir::Tok, &[mlir::Tok])> {
    let mut out = Vec::new();
    let mut depth = 0usize;
    for (i, tok) in body.iter().enumerate().skip(open) {
        if tok.kind == TokKind::Punct {
            match tok.text.as_str() {
                "(" | "[" | "<" | "{" => depth += 1,
                ")" | "]" | ">" | "}" => {
                    depth = depth.saturating_sub(1);
                    if depth == 0 {
                        break;
                    }
                }
                _ => {}
            }
        }
        if depth == 1 && tok.kind == TokKind::Value && body.get(i + 1).is_some_and(|t| t.is(":")) {
            out.push((tok, body.get(i + 2..).unwrap_or(&[])));
        }
    }
    out
}

/// A function's lines: the header, its buffers, then the body `l` emitted.
pub(crate) fn finish_func(name: &str, at: Span, params: Vec<String>, header: Vec<String>, l: Lower) -> ImportedFunc {
    let mut clean: String = name.chars().map(|c| if c.is_ascii_alphanumeric() || c == '_' { c } else { '_' }).collect();
    // A Python identifier: not empty, no leading digit, no keyword.
    const KEYWORDS: [&str; 35] = [
        "False", "None", "True", "and", "as", "assert", "async", "await", "break", "class", "continue", "def", "del",
        "elif", "else", "except", "finally", "for", "from", "global", "if", "import", "in", "is", "lambda", "nonlocal",
        "not", "or", "pass", "raise", "return", "try", "while", "with", "yield",
    ];
    if clean.is_empty()
        || clean.starts_with(|c: char| c.is_ascii_digit())
        || KEYWORDS.contains(&clean.as_str())
        || clean == "T"
    {
        clean.insert_str(0, "f_");
    }
    let (mut body, mut body_origins) = l.em.finish();
    if body.is_empty() {
        // A function with nothing to run still needs a statement after its declarations.
        body.push("    T.evaluate(0)".to_owned());
        body_origins.push(at);
    }
    let mut lines = vec!["@T.prim_func".to_owned(), format!("def {clean}({}):", params.join(", "))];
    let mut origins = vec![at, at];
    for h in header {
        lines.push(format!("    {h}"));
        origins.push(at);
    }
    lines.extend(body);
    origins.extend(body_origins);
    ImportedFunc { name: clean, lines, origins }
}
