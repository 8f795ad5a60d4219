//! The PTX parser: text to the typed module, for the subset codegen emits plus the cp.async
//! family as compilers write it (`cp.async.wait_all`, a source size in a register:
//! `cp.async.cg.shared.global [%r1], [%rd2], 16, %r3;`, where 0 bytes of source zero-fill)
//! and what Triton and nvcc emit around their pipelines (widening multiplies, `bfe`, packed
//! 16-bit moves, `ldmatrix`, `mma.sync`, `.extern .shared` arrays, pointer parameter
//! attributes). A kernel's block directives (`.reqntid`, `.maxntid`) are recorded on it
//! (`Kernel::directives`) for the launch check (`crate::launch`). Debug information (`.file`,
//! `.loc`, `.section`) and `.pragma` are skipped. Inline-assembly blocks `{ ... }` with their
//! own registers and labels are flattened by `block`; Hopper's TMA instructions are `tma`'s.
//!
//! Hand-written on purpose: the PTX parsers on crates.io (`ptx-parser` 0.1, an unfinished
//! nom grammar; `ptx-90-parser` and `singe-ptx`, full-ISA ASTs) each produce an AST of their
//! own that would have to be translated into our closed instruction set anyway, and none
//! reports positions for every error; no crate named `ptx-syntax` was found. The subset is
//! small, so a lexer and a recursive-descent parser are shorter than the translation.
//!
//! Invariants: never panics on any input; every error has a line and column; what the printer
//! writes parses back to a module that prints to the same text; registers must use the
//! printer's class prefixes (`%p %rs %r %rd %f %fd`). What the emulator would otherwise refuse
//! far from its cause, or silently misread, is an error at the offending token here: a kernel,
//! parameter or label defined twice, a register no `.reg` declares, a branch to a label the
//! kernel does not define, a symbol that names no parameter or array, a block dimension of 0,
//! and parameter accesses other than `ld.param` of one value from a parameter's name.

mod block;
pub mod debug_info;
mod scope;
mod tma;

mod lex;

use std::collections::{HashMap, HashSet};

use debug_info::SourceMap;
use lex::{lex, Pos, Tok};
use scope::{KernelScope, SymbolKind};

use crate::module::{
    AddrBase, Address, ApproxFn, Arch, Array, BlockDirectives, CacheOp, Cmp, CpAsync, CpSize, Dim, FloatDiv, FloatOp,
    Guard, Inst, IntOp, Kernel, Label, Launch, Line, MmaInput, Module, Op, Operand, PackedHalf, Param, ProxySpace, Reg,
    RegClass, Rounding, ShflMode, Special, StateSpace, Ty, WgmmaA, WgmmaInput, WgmmaMma, Width,
};

/// A parse error at a position of the text.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{line}:{col}: {message}")]
pub struct ParseError {
    pub line: u32,
    pub col: u32,
    pub message: String,
}

/// A parsed module and, per kernel, the line of each body entry, whether the text states its
/// grid (a `// launch: grid` comment before it), and the source positions of its `.loc`s.
#[derive(Clone, Debug, PartialEq)]
pub struct Parsed {
    pub module: Module,
    pub lines: Vec<Vec<u32>>,
    pub grid_stated: Vec<bool>,
    pub sources: debug_info::SourceMap,
}

type R<T> = Result<T, ParseError>;

/// Parses PTX text.
pub fn parse(text: &str) -> R<Parsed> {
    let tokens = lex(text);
    let end = tokens.last().map_or(Pos { line: 1, col: 1 }, |(_, p)| Pos { line: p.line + 1, col: 1 });
    let mut parser = Parser {
        tokens,
        at: 0,
        end,
        labels: HashMap::new(),
        scope: KernelScope::default(),
        blocks: block::Blocks::default(),
    };
    let parsed = parser.module()?;
    Ok(Parsed { sources: SourceMap::of_text(text), ..parsed })
}

struct Parser {
    tokens: Vec<(Tok, Pos)>,
    at: usize,
    end: Pos,
    labels: HashMap<String, Label>,
    /// What the kernel being read declares and uses, checked at its end.
    scope: KernelScope,
    /// The nested blocks open in the kernel body (inline assembly), with their own scopes.
    blocks: block::Blocks,
}

fn ty_of(name: &str) -> Option<Ty> {
    Some(match name {
        "b8" => Ty::B8,
        "b16" => Ty::B16,
        "b32" => Ty::B32,
        "b64" => Ty::B64,
        "u8" => Ty::U8,
        "u16" => Ty::U16,
        "u32" => Ty::U32,
        "u64" => Ty::U64,
        "s8" => Ty::S8,
        "s16" => Ty::S16,
        "s32" => Ty::S32,
        "s64" => Ty::S64,
        "f16" => Ty::F16,
        "f32" => Ty::F32,
        "f64" => Ty::F64,
        "pred" => Ty::Pred,
        "bf16" => Ty::Bf16,
        "tf32" => Ty::Tf32,
        _ => return None,
    })
}

fn space_of(name: &str) -> Option<StateSpace> {
    Some(match name {
        "global" => StateSpace::Global,
        "shared" | "shared::cta" => StateSpace::Shared,
        "local" => StateSpace::Local,
        "param" => StateSpace::Param,
        _ => return None,
    })
}

fn cmp_of(name: &str) -> Option<Cmp> {
    Some(match name {
        "eq" => Cmp::Eq,
        "ne" => Cmp::Ne,
        "neu" => Cmp::Neu,
        "lt" => Cmp::Lt,
        "le" => Cmp::Le,
        "gt" => Cmp::Gt,
        "ge" => Cmp::Ge,
        "lo" => Cmp::Lo,
        "ls" => Cmp::Ls,
        "hi" => Cmp::Hi,
        "hs" => Cmp::Hs,
        "equ" => Cmp::Equ,
        "ltu" => Cmp::Ltu,
        "leu" => Cmp::Leu,
        "gtu" => Cmp::Gtu,
        "geu" => Cmp::Geu,
        "num" => Cmp::Num,
        "nan" => Cmp::Nan,
        _ => return None,
    })
}

fn rounding_of(name: &str) -> Option<Rounding> {
    Some(match name {
        "rn" => Rounding::Rn,
        "rz" => Rounding::Rz,
        "rni" => Rounding::Rni,
        "rzi" => Rounding::Rzi,
        "rna" => Rounding::Rna,
        _ => return None,
    })
}

fn reg_of(word: &str) -> Option<Reg> {
    // Longest prefixes first: `%rd` before `%r`.
    let classes = [RegClass::B64, RegClass::B16, RegClass::F64, RegClass::B32, RegClass::F32, RegClass::Pred];
    classes.into_iter().find_map(|class| {
        let digits = word.strip_prefix(class.prefix())?;
        let index = digits.parse().ok().filter(|_| digits.bytes().all(|b| b.is_ascii_digit()))?;
        Some(Reg { class, index })
    })
}

fn special_of(word: &str) -> Option<Special> {
    let (name, dim) = word.split_once('.')?;
    let dim = Dim::from_name(dim)?;
    match name {
        "%tid" => Some(Special::Tid(dim)),
        "%ctaid" => Some(Special::Ctaid(dim)),
        "%nctaid" => Some(Special::Nctaid(dim)),
        _ => None,
    }
}

fn error_at(pos: Pos, message: impl Into<String>) -> ParseError {
    ParseError { line: pos.line, col: pos.col, message: message.into() }
}

fn int_of(word: &str) -> Option<i64> {
    match word.strip_prefix("0x").or_else(|| word.strip_prefix("0X")) {
        Some(hex) => u64::from_str_radix(hex, 16).ok().map(|v| v as i64),
        None => word.parse().ok(),
    }
}

impl Parser {
    fn pos(&self) -> Pos {
        self.tokens.get(self.at).map_or(self.end, |(_, p)| *p)
    }

    fn error<T>(&self, message: impl Into<String>) -> R<T> {
        Err(error_at(self.pos(), message))
    }

    fn peek(&self) -> Option<&Tok> {
        self.tokens.get(self.at).map(|(t, _)| t)
    }

    fn found(&self) -> String {
        match self.peek() {
            Some(Tok::Word(w)) => format!("`{w}`"),
            Some(Tok::Punct(c)) => format!("`{c}`"),
            Some(Tok::Comment(_)) => "a comment".into(),
            None => "the end of the text".into(),
        }
    }

    fn word(&mut self, what: &str) -> R<String> {
        match self.peek() {
            Some(Tok::Word(w)) => {
                let w = w.clone();
                self.at += 1;
                Ok(w)
            }
            _ => self.error(format!("expected {what}, found {}", self.found())),
        }
    }

    fn eat(&mut self, c: char) -> bool {
        if self.peek() == Some(&Tok::Punct(c)) {
            self.at += 1;
            return true;
        }
        false
    }

    fn expect(&mut self, c: char) -> R<()> {
        if self.eat(c) {
            return Ok(());
        }
        self.error(format!("expected `{c}`, found {}", self.found()))
    }

    fn expect_word(&mut self, expected: &str) -> R<()> {
        let pos = self.at;
        let w = self.word(&format!("`{expected}`"))?;
        if w != expected {
            self.at = pos;
            return self.error(format!("expected `{expected}`, found `{w}`"));
        }
        Ok(())
    }

    fn number(&mut self, what: &str) -> R<i64> {
        let negative = self.eat('-');
        let pos = self.at;
        let w = self.word(what)?;
        match int_of(&w) {
            Some(v) => Ok(if negative { v.wrapping_neg() } else { v }),
            None => {
                self.at = pos;
                self.error(format!("expected {what}, found `{w}`"))
            }
        }
    }

    fn count(&mut self, what: &str) -> R<u32> {
        let pos = self.at;
        let v = self.number(what)?;
        u32::try_from(v).or_else(|_| {
            self.at = pos;
            self.error(format!("{what} {v} is out of range"))
        })
    }

    fn module(&mut self) -> R<Parsed> {
        let mut arch = None;
        let mut grid = [1u32; 3];
        let mut grid_stated = Vec::new();
        let mut stated = false;
        let mut kernels = Vec::new();
        let mut lines = Vec::new();
        // Module-level `.shared` arrays belong to every kernel after them.
        let mut module_arrays = Vec::new();
        let mut kernel_names = HashSet::new();
        while let Some(tok) = self.peek().cloned() {
            match tok {
                Tok::Word(w) if w == ".file" || w == ".loc" => self.skip_line(),
                Tok::Word(w) if w == ".section" => self.skip_section()?,
                Tok::Word(w) if w == ".global" => self.skip_global_data()?,
                Tok::Word(w) if w == ".extern" || w == ".shared" => module_arrays.push(self.array()?),
                Tok::Comment(text) => {
                    self.at += 1;
                    if let Some(dims) = text.strip_prefix("launch: grid ") {
                        grid = self.dims(dims)?;
                        stated = true;
                    }
                }
                Tok::Word(w) if w == ".version" => {
                    self.at += 1;
                    self.word("a version")?;
                }
                Tok::Word(w) if w == ".target" => {
                    self.at += 1;
                    let pos = self.at;
                    let name = self.word("an architecture")?;
                    arch = Some(name.parse::<Arch>().or_else(|e| {
                        self.at = pos;
                        self.error(e.to_string())
                    })?);
                }
                Tok::Word(w) if w == ".address_size" => {
                    self.at += 1;
                    if self.number("an address size")? != 64 {
                        return self.error("only `.address_size 64` is supported");
                    }
                }
                Tok::Word(w) if w == ".visible" || w == ".entry" => {
                    let (mut kernel, kernel_lines) = self.kernel(grid, &module_arrays, &mut kernel_names)?;
                    kernel.arrays.splice(0..0, module_arrays.iter().cloned());
                    kernels.push(kernel);
                    lines.push(kernel_lines);
                    grid_stated.push(std::mem::take(&mut stated));
                    grid = [1; 3];
                }
                _ => return self.error(format!("expected a directive or `.entry`, found {}", self.found())),
            }
        }
        let Some(arch) = arch else { return self.error("the module has no `.target`") };
        Ok(Parsed { module: Module { arch, kernels }, lines, grid_stated, sources: SourceMap::default() })
    }

    /// `a, b, c` in a comment.
    fn dims(&self, text: &str) -> R<[u32; 3]> {
        let parts: Vec<Option<u32>> = text.split(',').map(|p| p.trim().parse().ok()).collect();
        match parts.as_slice() {
            [Some(x), Some(y), Some(z)] => Ok([*x, *y, *z]),
            _ => self.error(format!("a launch grid must be three numbers, not `{text}`")),
        }
    }

    /// A kernel; `module_arrays` are the module-level arrays before it, `kernel_names` the
    /// names of the kernels before it.
    fn kernel(
        &mut self,
        grid: [u32; 3],
        module_arrays: &[Array],
        kernel_names: &mut HashSet<String>,
    ) -> R<(Kernel, Vec<u32>)> {
        self.scope = KernelScope::default();
        self.blocks.reset();
        if self.peek() == Some(&Tok::Word(".visible".into())) {
            self.at += 1;
        }
        self.expect_word(".entry")?;
        let name_pos = self.pos();
        let name = self.word("the kernel's name")?;
        if !kernel_names.insert(name.clone()) {
            return Err(error_at(name_pos, format!("the kernel `{name}` is defined twice")));
        }
        self.expect('(')?;
        let mut params: Vec<Param> = Vec::new();
        while !self.eat(')') {
            if !params.is_empty() {
                self.expect(',')?;
            }
            self.expect_word(".param")?;
            // `.param .align 64 .b8 name[128]`: attributes may precede the type.
            self.param_attributes()?;
            let ty = self.ty()?;
            self.param_attributes()?;
            let param_pos = self.pos();
            let param_name = self.word("a parameter name")?;
            if params.iter().any(|p| p.name == param_name) {
                return Err(error_at(param_pos, format!("the parameter `{param_name}` is declared twice")));
            }
            // A byte array passed by value (a host tensor map, `--- Hopper TMA ---`).
            let array = if self.eat('[') {
                if ty != Ty::B8 {
                    return Err(error_at(param_pos, "only `.b8` arrays may be passed by value"));
                }
                let bytes = self.count("a size in bytes")?;
                self.expect(']')?;
                Some(bytes)
            } else {
                None
            };
            params.push(Param { name: param_name, ty, array });
        }
        let mut launch = Launch { block: [1; 3], grid, dynamic_shared: 0 };
        let mut directives = BlockDirectives::default();
        while let Some(Tok::Word(w)) = self.peek() {
            let slot = match w.as_str() {
                ".reqntid" => &mut directives.reqntid,
                ".maxntid" => &mut directives.maxntid,
                _ => break,
            };
            self.at += 1;
            let mut dims = [1u32; 3];
            for (k, dim) in dims.iter_mut().enumerate() {
                if k > 0 && !self.eat(',') {
                    break;
                }
                let pos = self.pos();
                *dim = self.count("a thread count")?;
                if *dim == 0 {
                    return Err(error_at(pos, "a block dimension must be at least 1 thread, not 0"));
                }
            }
            *slot = Some(dims);
            // Without `--block`, a kernel runs with the block its header names.
            launch.block = dims;
        }
        self.expect('{')?;
        let mut arrays = Vec::new();
        let mut body = Vec::new();
        let mut lines = Vec::new();
        loop {
            let pos = self.pos();
            match self.peek().cloned() {
                None => return self.error("expected `}` at the end of the kernel"),
                Some(Tok::Punct('}')) if self.blocks.depth() > 0 => self.close_block(),
                Some(Tok::Punct('{')) => self.open_block()?,
                Some(Tok::Punct('}')) => {
                    self.at += 1;
                    break;
                }
                Some(Tok::Comment(text)) => {
                    self.at += 1;
                    body.push(Line::Comment(text));
                    lines.push(pos.line);
                }
                Some(Tok::Word(w)) if w == ".reg" => self.reg_declaration()?,
                Some(Tok::Word(w)) if w == ".pragma" => self.skip_statement(),
                Some(Tok::Word(w)) if w == ".loc" || w == ".file" => self.skip_line(),
                Some(Tok::Word(w)) if w == ".shared" || w == ".local" || w == ".extern" => arrays.push(self.array()?),
                Some(Tok::Word(w))
                    if !w.starts_with(['.', '%'])
                        && self.tokens.get(self.at + 1).map(|t| &t.0) == Some(&Tok::Punct(':')) =>
                {
                    let w = self.blocks.label(&w);
                    if !self.scope.define_label(&w) {
                        return Err(error_at(pos, format!("the label `{w}` is defined twice in the kernel")));
                    }
                    self.at += 2;
                    body.push(Line::Label(self.label(&w)));
                    lines.push(pos.line);
                }
                Some(_) => {
                    body.push(Line::Inst(self.inst()?));
                    lines.push(pos.line);
                }
            }
        }
        let scope = std::mem::take(&mut self.scope);
        let param_names: Vec<&str> = params.iter().map(|p| p.name.as_str()).collect();
        let by_value = params.iter().filter(|p| p.array.is_some()).map(|p| p.name.as_str());
        let array_names: Vec<&str> =
            module_arrays.iter().chain(&arrays).map(|a| a.name.as_str()).chain(by_value).collect();
        scope.check(&name, &param_names, &array_names)?;
        Ok((Kernel { name, params, arrays, launch, directives, source_file: None, body }, lines))
    }

    /// `.reg .TYPE %name<N>;` (registers `%name0` to `%name{N-1}`) or `.reg .TYPE %a, %b;`.
    fn reg_declaration(&mut self) -> R<()> {
        self.at += 1;
        let ty = self.ty()?;
        loop {
            let pos = self.pos();
            let name = self.word("a register name")?;
            let in_block = self.blocks.depth() > 0;
            let local_name = in_block && name.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_');
            if !(name.starts_with('%') || local_name) {
                return Err(error_at(pos, format!("expected a register name such as `%r`, found `{name}`")));
            }
            if self.eat('<') {
                let count = self.count("a register count")?;
                self.expect('>')?;
                if in_block {
                    (0..count).for_each(|i| self.declare_block_reg(&format!("{name}{i}"), ty, pos));
                } else {
                    self.scope.declare_range(&name, count);
                }
            } else if in_block {
                self.declare_block_reg(&name, ty, pos);
            } else {
                self.scope.declare_one(&name);
            }
            if !self.eat(',') {
                return self.expect(';');
            }
        }
    }

    fn skip_statement(&mut self) {
        while let Some(tok) = self.peek().cloned() {
            self.at += 1;
            if tok == Tok::Punct(';') {
                break;
            }
        }
    }

    fn label(&mut self, name: &str) -> Label {
        if let Some(label) = self.labels.get(name) {
            return *label;
        }
        // Our own labels keep their numbers; others are numbered after every possible one.
        let label = match name.strip_prefix("$L").and_then(|n| n.parse().ok()) {
            Some(n) => Label(n),
            None => Label(u32::MAX - self.labels.len() as u32),
        };
        self.labels.insert(name.to_string(), label);
        label
    }

    fn ty(&mut self) -> R<Ty> {
        let pos = self.at;
        let w = self.word("a type")?;
        // bf16 and tf32 name instruction types only; values of them live in `.b16`/`.b32`.
        match w.strip_prefix('.').and_then(ty_of).filter(|t| !matches!(t, Ty::Bf16 | Ty::Tf32)) {
            Some(ty) => Ok(ty),
            None => {
                self.at = pos;
                self.error(format!("expected a type such as `.u64`, found `{w}`"))
            }
        }
    }

    /// Skips the rest of the current line (directives without a `;`: `.loc`, `.file`).
    fn skip_line(&mut self) {
        let line = self.pos().line;
        while self.at < self.tokens.len() && self.pos().line == line {
            self.at += 1;
        }
    }

    /// Module-level `.global` data (`.global .align 1 .b8 name[11] = {95, ...};`, such as the
    /// reflection names NVVM leaves behind unused) up to its `;`: dropped, so a kernel that
    /// names it is refused at that use (no array of that name).
    fn skip_global_data(&mut self) -> R<()> {
        self.at += 1;
        let mut depth = 0u32;
        loop {
            match self.peek() {
                None => return self.error("expected `;` at the end of the `.global` declaration"),
                Some(Tok::Punct('{')) => depth += 1,
                Some(Tok::Punct('}')) => depth = depth.saturating_sub(1),
                Some(Tok::Punct(';')) if depth == 0 => {
                    self.at += 1;
                    return Ok(());
                }
                _ => {}
            }
            self.at += 1;
        }
    }

    /// `.section name { ... }` (debug information), braces balanced.
    fn skip_section(&mut self) -> R<()> {
        self.at += 1;
        self.word("a section name")?;
        self.expect('{')?;
        let mut depth = 1u32;
        while depth > 0 {
            match self.peek() {
                None => return self.error("expected `}` at the end of the section"),
                Some(Tok::Punct('{')) => depth += 1,
                Some(Tok::Punct('}')) => depth -= 1,
                _ => {}
            }
            self.at += 1;
        }
        Ok(())
    }

    /// What may follow a parameter's type: `.ptr`, a state space, `.align N`.
    fn param_attributes(&mut self) -> R<()> {
        loop {
            match self.peek() {
                Some(Tok::Word(w)) if w == ".ptr" || w == ".global" || w == ".shared" || w == ".const" => {
                    self.at += 1;
                }
                Some(Tok::Word(w)) if w == ".align" => {
                    self.at += 1;
                    self.count("an alignment")?;
                }
                _ => return Ok(()),
            }
        }
    }

    /// `[.extern] .shared .align 16 .b8 name[bytes];` (no size after `.extern`).
    fn array(&mut self) -> R<Array> {
        let dynamic = self.peek() == Some(&Tok::Word(".extern".into()));
        if dynamic {
            self.at += 1;
        }
        let space = if self.word("a state space")? == ".shared" { StateSpace::Shared } else { StateSpace::Local };
        let mut align = 1;
        if self.peek() == Some(&Tok::Word(".align".into())) {
            self.at += 1;
            align = self.count("an alignment")?;
        }
        self.expect_word(".b8")?;
        let name = self.word("an array name")?;
        self.expect('[')?;
        let bytes = if dynamic { 0 } else { self.count("a size in bytes")? };
        self.expect(']')?;
        self.expect(';')?;
        if dynamic && space != StateSpace::Shared {
            return self.error("only `.shared` arrays may be `.extern`");
        }
        Ok(Array { space, name, align, bytes: u64::from(bytes), dynamic, origin: None })
    }

    fn reg(&mut self) -> R<Reg> {
        let pos = self.at;
        let at = self.pos();
        let w = self.word("a register")?;
        let reg = self.blocks.reg(&w).or_else(|| reg_of(&w)).ok_or(()).or_else(|()| {
            self.at = pos;
            self.error(format!("expected a register (%p, %rs, %r, %rd, %f or %fd and a number), found `{w}`"))
        })?;
        self.scope.use_reg(reg, at);
        Ok(reg)
    }

    /// A destination register, or the sink `_`: a fresh register of `ty` nothing reads.
    fn reg_or_fresh_sink(&mut self, ty: Ty) -> R<Reg> {
        if matches!(self.peek(), Some(Tok::Word(w)) if w == "_") {
            let at = self.pos();
            self.at += 1;
            return Ok(self.fresh_reg(ty, "_", at));
        }
        self.reg()
    }

    fn operand(&mut self) -> R<Operand> {
        if self.eat('-') {
            return Ok(Operand::Imm(self.number("a number")?.wrapping_neg()));
        }
        let pos = self.at;
        let at = self.pos();
        let w = self.word("an operand")?;
        if let Some(r) = self.blocks.reg(&w).or_else(|| reg_of(&w)) {
            self.scope.use_reg(r, at);
            return Ok(Operand::Reg(r));
        }
        if let Some(s) = special_of(&w) {
            return Ok(Operand::Special(s));
        }
        if let Some(hex) = w.strip_prefix("0f").or_else(|| w.strip_prefix("0F")) {
            if let Ok(bits) = u32::from_str_radix(hex, 16) {
                return Ok(Operand::F32(bits));
            }
        }
        if let Some(hex) = w.strip_prefix("0d").or_else(|| w.strip_prefix("0D")) {
            if let Ok(bits) = u64::from_str_radix(hex, 16) {
                return Ok(Operand::F64(bits));
            }
        }
        if let Some(v) = int_of(&w) {
            return Ok(Operand::Imm(v));
        }
        if w.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_') {
            self.scope.use_symbol(&w, at, SymbolKind::Array);
            return Ok(Operand::Symbol(w));
        }
        self.at = pos;
        self.error(format!("expected an operand, found `{w}`"))
    }

    /// `[base]`, `[base+off]`, `[base+-off]`; a symbol base names an array.
    fn address(&mut self) -> R<Address> {
        self.address_of(SymbolKind::Array)
    }

    /// An address whose symbol base, if any, names a `kind`.
    fn address_of(&mut self, kind: SymbolKind) -> R<Address> {
        self.expect('[')?;
        let pos = self.at;
        let at = self.pos();
        let w = self.word("an address")?;
        let base = match self.blocks.reg(&w).or_else(|| reg_of(&w)) {
            Some(r) => {
                self.scope.use_reg(r, at);
                AddrBase::Reg(r)
            }
            None if w.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_') => {
                self.scope.use_symbol(&w, at, kind);
                AddrBase::Symbol(w)
            }
            None => {
                self.at = pos;
                return self.error(format!("expected a register or a name in an address, found `{w}`"));
            }
        };
        let offset = if self.eat('+') { self.number("an offset")? } else { 0 };
        self.expect(']')?;
        Ok(Address { base, offset })
    }

    /// `{a, b}` or a single operand.
    fn group<T>(&mut self, one: impl Fn(&mut Self) -> R<T>) -> R<Vec<T>> {
        if !self.eat('{') {
            return Ok(vec![one(self)?]);
        }
        let mut items = vec![one(self)?];
        while self.eat(',') {
            items.push(one(self)?);
        }
        self.expect('}')?;
        Ok(items)
    }

    fn comma(&mut self) -> R<()> {
        self.expect(',')
    }

    fn inst(&mut self) -> R<Inst> {
        let guard = if self.eat('@') {
            let negated = self.eat('!');
            Some(Guard { pred: self.reg()?, negated })
        } else {
            None
        };
        let start = self.at;
        let opcode = self.word("an instruction")?;
        let parts: Vec<&str> = opcode.split('.').collect();
        let op = self.op(&parts).or_else(|e| {
            if e.message.starts_with("unsupported") {
                self.at = start;
                return self.error(format!("unsupported instruction `{opcode}`"));
            }
            Err(e)
        })?;
        self.expect(';')?;
        Ok(Inst { guard, op })
    }

    fn unsupported<T>(&self) -> R<T> {
        self.error("unsupported")
    }

    /// The instruction type: the last part of the opcode.
    fn suffix_ty(&self, parts: &[&str]) -> R<Ty> {
        match parts.last().and_then(|p| ty_of(p)) {
            Some(ty) => Ok(ty),
            None => self.unsupported(),
        }
    }

    fn op(&mut self, parts: &[&str]) -> R<Op> {
        let Some((&head, mods)) = parts.split_first() else { return self.unsupported() };
        Ok(match head {
            "mov" => {
                let ty = self.suffix_ty(parts)?;
                if self.eat('{') {
                    // A half the kernel does not want is the sink `_`.
                    let half = if ty.bits() == 64 { Ty::B32 } else { Ty::B16 };
                    let lo = self.reg_or_fresh_sink(half)?;
                    self.comma()?;
                    let hi = self.reg_or_fresh_sink(half)?;
                    self.expect('}')?;
                    self.comma()?;
                    return Ok(Op::Unpack { ty, dst: [lo, hi], src: self.operand()? });
                }
                let dst = self.reg()?;
                self.comma()?;
                if self.eat('{') {
                    let lo = self.operand()?;
                    self.comma()?;
                    let hi = self.operand()?;
                    self.expect('}')?;
                    return Ok(Op::Pack { ty, dst, parts: [lo, hi] });
                }
                Op::Mov { ty, dst, src: self.operand()? }
            }
            "mul" | "mad" if mods.first() == Some(&"wide") => {
                let ty = self.suffix_ty(parts)?;
                if !matches!(ty, Ty::S32 | Ty::U32) {
                    return self.unsupported();
                }
                let (dst, a, b) = self.three()?;
                if head == "mul" {
                    return Ok(Op::MulWide { ty, dst, a, b });
                }
                self.comma()?;
                Op::MadWide { ty, dst, a, b, c: self.operand()? }
            }
            "bfe" => {
                let ty = self.suffix_ty(parts)?;
                let (dst, a, pos) = self.three()?;
                self.comma()?;
                Op::Bfe { ty, dst, a, pos, len: self.operand()? }
            }
            "neg" => {
                let ty = self.suffix_ty(parts)?;
                let dst = self.reg()?;
                self.comma()?;
                Op::Neg { ty, dst, a: self.operand()? }
            }
            "ldmatrix" => self.ldmatrix(mods)?,
            // --- Hopper TMA: elect, warp barrier, mbarrier, bulk tensor copies, tensor maps ---
            h if tma::is_tma(h, mods) => self.tma(h, mods)?,
            "ex2" | "lg2" | "rcp" | "rsqrt" | "sqrt" | "sin" | "cos" | "tanh" => self.approx(head, mods)?,
            "shfl" => self.shfl(mods)?,
            "mma" => self.mma(mods)?,
            "min" | "max" if parts.last().and_then(|t| ty_of(t)).is_some_and(Ty::is_float) => {
                self.float_special(head, mods)?
            }
            "div"
                if parts.last().and_then(|t| ty_of(t)).is_some_and(Ty::is_float)
                    && !matches!(mods, ["rn", _] | [_]) =>
            {
                self.float_special(head, mods)?
            }
            "add" | "sub" | "mul" | "div" | "rem" | "min" | "max" | "and" | "or" | "xor" | "shl" | "shr" => {
                let ty = self.suffix_ty(parts)?;
                // Float arithmetic rounds to nearest even, the default or written `.rn`;
                // other roundings and `.ftz`/`.sat` are not modelled.
                if ty.is_float() && (!matches!(mods, ["rn", _] | [_]) || matches!(ty, Ty::Bf16 | Ty::Tf32)) {
                    return self.unsupported();
                }
                let (dst, a, b) = self.three()?;
                if ty.is_float() {
                    let op = match head {
                        "add" => FloatOp::Add,
                        "sub" => FloatOp::Sub,
                        "mul" => FloatOp::Mul,
                        "div" => FloatOp::Div,
                        _ => return self.unsupported(),
                    };
                    return Ok(Op::Float { op, ty, dst, a, b });
                }
                let op = match head {
                    "add" => IntOp::Add,
                    "sub" => IntOp::Sub,
                    "mul" if mods.first() == Some(&"lo") => IntOp::MulLo,
                    "div" => IntOp::Div,
                    "rem" => IntOp::Rem,
                    "min" => IntOp::Min,
                    "max" => IntOp::Max,
                    "and" => IntOp::And,
                    "or" => IntOp::Or,
                    "xor" => IntOp::Xor,
                    "shl" => IntOp::Shl,
                    "shr" => IntOp::Shr,
                    _ => return self.unsupported(),
                };
                Op::Int { op, ty, dst, a, b }
            }
            "mad" | "fma" => {
                let ty = self.suffix_ty(parts)?;
                if matches!(ty, Ty::Bf16 | Ty::Tf32) {
                    return self.unsupported();
                }
                let (dst, a, b) = self.three()?;
                self.comma()?;
                let c = self.operand()?;
                if head == "mad" {
                    Op::Mad { ty, dst, a, b, c }
                } else {
                    Op::Fma { ty, dst, a, b, c }
                }
            }
            "not" => {
                let ty = self.suffix_ty(parts)?;
                let dst = self.reg()?;
                self.comma()?;
                Op::Not { ty, dst, a: self.operand()? }
            }
            "cvt" if matches!(mods.last(), Some(&"f32")) && mods.iter().any(|m| *m == "f16x2" || *m == "bf16x2") => {
                self.cvt_pack(mods)?
            }
            "cvt" => {
                let (rounding, types) = match mods {
                    [r, d, s] => (Some(rounding_of(r).ok_or(()).or_else(|()| self.unsupported())?), [*d, *s]),
                    [d, s] => (None, [*d, *s]),
                    _ => return self.unsupported(),
                };
                let (Some(dst_ty), Some(src_ty)) = (ty_of(types[0]), ty_of(types[1])) else {
                    return self.unsupported();
                };
                // tf32 is only ever made from an f32, rounding to nearest away from zero,
                // and `.rna` makes nothing else.
                let tf32 = (dst_ty, src_ty, rounding) == (Ty::Tf32, Ty::F32, Some(Rounding::Rna));
                if !tf32 && (dst_ty == Ty::Tf32 || src_ty == Ty::Tf32 || rounding == Some(Rounding::Rna)) {
                    return self.unsupported();
                }
                // On sm_80, bf16 converts to and from f32 only (the others need sm_90).
                let bf16 = [dst_ty, src_ty].contains(&Ty::Bf16);
                if bf16 && !matches!((dst_ty, src_ty), (Ty::F32, Ty::Bf16) | (Ty::Bf16, Ty::F32)) {
                    return self.unsupported();
                }
                let dst = self.reg()?;
                self.comma()?;
                Op::Cvt { dst_ty, src_ty, rounding, dst, src: self.operand()? }
            }
            "cvta" if mods == ["to", "global", "u64"] => {
                let dst = self.reg()?;
                self.comma()?;
                Op::CvtaToGlobal { dst, src: self.reg()? }
            }
            "setp" => {
                let (Some(cmp), Some(ty)) = (mods.first().and_then(|c| cmp_of(c)), mods.get(1).and_then(|t| ty_of(t)))
                else {
                    return self.unsupported();
                };
                if mods.len() != 2 || (cmp.float_only() && !ty.is_float()) || matches!(ty, Ty::Bf16 | Ty::Tf32) {
                    return self.unsupported();
                }
                let (dst, a, b) = self.three()?;
                Op::Setp { cmp, ty, dst, a, b }
            }
            "selp" => {
                let ty = self.suffix_ty(parts)?;
                let (dst, a, b) = self.three()?;
                self.comma()?;
                Op::Selp { ty, dst, a, b, pred: self.reg()? }
            }
            "bra" if matches!(mods, [] | ["uni"]) => {
                let pos = self.pos();
                let word = self.word("a label")?;
                let name = self.blocks.label(&word);
                self.scope.use_label(&name, pos);
                Op::Bra { target: self.label(&name) }
            }
            "ld" | "st" => self.memory(head == "ld", mods)?,
            "cp" => self.cp_async(mods)?,
            "bar" if mods == ["sync"] => Op::BarSync(self.count("a barrier number")?),
            "ret" => Op::Ret,
            // Hopper's warpgroup MMA queue and the async-proxy fence.
            "wgmma" => self.wgmma(mods)?,
            "fence" if mods.starts_with(&["proxy", "async"]) => self.fence_proxy_async(&mods[2..])?,
            _ => return self.unsupported(),
        })
    }

    /// `wgmma.fence/commit_group/wait_group.sync.aligned` and `wgmma.mma_async`.
    fn wgmma(&mut self, mods: &[&str]) -> R<Op> {
        Ok(match mods {
            ["fence", "sync", "aligned"] => Op::WgmmaFence,
            ["commit_group", "sync", "aligned"] => Op::WgmmaCommitGroup,
            ["wait_group", "sync", "aligned"] => Op::WgmmaWaitGroup(self.count("a group count")?),
            ["mma_async", "sync", "aligned", shape, "f32", a_ty, b_ty] if a_ty == b_ty => {
                let Some(input) = WgmmaInput::of_name(a_ty) else { return self.unsupported() };
                let n = shape
                    .strip_prefix("m64n")
                    .and_then(|rest| rest.strip_suffix(&format!("k{}", input.k())))
                    .and_then(|n| n.parse::<u32>().ok());
                let Some(n) = n else { return self.unsupported() };
                self.wgmma_mma(n, input)?
            }
            _ => return self.unsupported(),
        })
    }

    /// The operands of `wgmma.mma_async` of shape `m64n{n}`.
    fn wgmma_mma(&mut self, n: u32, input: WgmmaInput) -> R<Op> {
        let start = self.at;
        let d = self.group(|p| p.reg())?;
        self.comma()?;
        let a = if self.peek() == Some(&Tok::Punct('{')) {
            WgmmaA::Regs(self.regs::<4>("the A fragment")?)
        } else {
            WgmmaA::Desc(self.reg()?)
        };
        self.comma()?;
        let b = self.reg()?;
        self.comma()?;
        let scale_d = self.operand()?;
        if matches!(scale_d, Operand::Imm(v) if v != 0 && v != 1) {
            return self.error("the scale-d operand of wgmma is a predicate, 0 or 1");
        }
        let mut imms = Vec::new();
        while self.eat(',') {
            let pos = self.at;
            match self.operand()? {
                Operand::Imm(v) => imms.push((v, pos)),
                _ => {
                    self.at = pos;
                    return self.error("expected an immediate (scale or transpose) of wgmma");
                }
            }
        }
        let trans_count = match (input, &a) {
            (WgmmaInput::Tf32, _) => 0,
            (_, WgmmaA::Desc(_)) => 2,
            (_, WgmmaA::Regs(_)) => 1,
        };
        if imms.len() != 2 + trans_count {
            let names = match trans_count {
                0 => "imm-scale-a, imm-scale-b",
                1 => "imm-scale-a, imm-scale-b, imm-trans-b",
                _ => "imm-scale-a, imm-scale-b, imm-trans-a, imm-trans-b",
            };
            return self.error(format!("this wgmma takes {names} after scale-d, not {} immediates", imms.len()));
        }
        let mut scale = |(v, pos): (i64, usize)| match v {
            1 => Ok(false),
            -1 => Ok(true),
            _ => {
                self.at = pos;
                self.error("a wgmma scale immediate is 1 or -1")
            }
        };
        let negate_a = scale(imms[0])?;
        let negate_b = scale(imms[1])?;
        let mut flag = |(v, pos): (i64, usize)| match v {
            0 => Ok(false),
            1 => Ok(true),
            _ => {
                self.at = pos;
                self.error("a wgmma transpose immediate is 0 or 1")
            }
        };
        let (trans_a, trans_b) = match trans_count {
            2 => (flag(imms[2])?, flag(imms[3])?),
            1 => (false, flag(imms[2])?),
            _ => (false, false),
        };
        let mma = WgmmaMma { n, input, d, a, b, scale_d, negate_a, negate_b, trans_a, trans_b };
        if let Err(e) = mma.check() {
            self.at = start;
            return self.error(e.to_string());
        }
        Ok(Op::WgmmaMmaAsync(Box::new(mma)))
    }

    /// `fence.proxy.async{.global, .shared::cta, .shared::cluster}` (`mods` after `async`); the
    /// lexer splits `shared::cta` into `shared`, `:`, `:`, `cta`.
    fn fence_proxy_async(&mut self, mods: &[&str]) -> R<Op> {
        let space = match mods {
            [] => ProxySpace::All,
            ["shared"] => {
                if !(self.eat(':') && self.eat(':')) {
                    return self.unsupported();
                }
                let scope = self.word("a scope (cta or cluster)")?;
                match ProxySpace::of_name(&format!("shared::{scope}")) {
                    Some(space) => space,
                    None => return self.unsupported(),
                }
            }
            [one] => match ProxySpace::of_name(one) {
                Some(space) => space,
                None => return self.unsupported(),
            },
            _ => return self.unsupported(),
        };
        Ok(Op::FenceProxyAsync(space))
    }

    /// `ldmatrix.sync.aligned.m8n8.x{1,2,4}[.trans].shared[::cta].b16 {d...}, [addr]`.
    fn ldmatrix(&mut self, mods: &[&str]) -> R<Op> {
        let (count, trans) = match mods {
            ["sync", "aligned", "m8n8", x, rest @ ..] => {
                let trans = rest.first() == Some(&"trans");
                let rest = if trans { &rest[1..] } else { rest };
                if !matches!(rest, ["shared", "b16"] | ["shared::cta", "b16"]) {
                    return self.unsupported();
                }
                match *x {
                    "x1" => (1, trans),
                    "x2" => (2, trans),
                    "x4" => (4, trans),
                    _ => return self.unsupported(),
                }
            }
            _ => return self.unsupported(),
        };
        let pos = self.at;
        let dst = self.group(|p| p.reg())?;
        if dst.len() != count {
            self.at = pos;
            return self.error(format!("ldmatrix .x{count} loads {count} registers, not {}", dst.len()));
        }
        self.comma()?;
        Ok(Op::Ldmatrix { trans, dst, addr: self.address()? })
    }

    /// `mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {d0..d3}, {a0..a3}, {b0, b1}, {c0..c3}`,
    /// with `bf16` inputs too, and `m16n8k8` with `tf32` ones.
    fn mma(&mut self, mods: &[&str]) -> R<Op> {
        let input = match mods {
            ["sync", "aligned", "m16n8k16", "row", "col", "f32", "f16", "f16", "f32"] => MmaInput::F16,
            ["sync", "aligned", "m16n8k16", "row", "col", "f32", "bf16", "bf16", "f32"] => MmaInput::Bf16,
            ["sync", "aligned", "m16n8k8", "row", "col", "f32", "tf32", "tf32", "f32"] => MmaInput::Tf32,
            _ => return self.unsupported(),
        };
        let d = self.regs::<4>("the D fragment")?;
        self.comma()?;
        let a = self.regs::<4>("the A fragment")?;
        self.comma()?;
        let b = self.regs::<2>("the B fragment")?;
        self.comma()?;
        let c = self.regs::<4>("the C fragment")?;
        Ok(Op::Mma { input, d, a, b, c })
    }

    // Compilers' sm_80 instructions.

    /// `min`/`max{.ftz}{.NaN}.f32`, `div.full{.ftz}.f32`, `div.approx{.ftz}.f32`.
    fn float_special(&mut self, head: &str, mods: &[&str]) -> R<Op> {
        let Some((ty, flags)) = mods.split_last().and_then(|(t, rest)| Some((ty_of(t)?, rest))) else {
            return self.unsupported();
        };
        if head == "div" {
            let (div, ftz) = match flags {
                ["full"] => (FloatDiv::Full, false),
                ["full", "ftz"] => (FloatDiv::Full, true),
                ["approx"] => (FloatDiv::Approx, false),
                ["approx", "ftz"] => (FloatDiv::Approx, true),
                _ => return self.unsupported(),
            };
            if ty != Ty::F32 {
                return self.unsupported();
            }
            let (dst, a, b) = self.three()?;
            return Ok(Op::DivApprox { div, ftz, dst, a, b });
        }
        let (ftz, nan) = match flags {
            [] => (false, false),
            ["ftz"] => (true, false),
            ["NaN"] => (false, true),
            ["ftz", "NaN"] => (true, true),
            _ => return self.unsupported(),
        };
        // `.ftz` is for f32 only; f64 has no `.NaN` form.
        if !matches!((ty, ftz, nan), (Ty::F32, _, _) | (Ty::F64, false, false)) {
            return self.unsupported();
        }
        let (dst, a, b) = self.three()?;
        Ok(Op::FloatMinMax { max: head == "max", ftz, nan, ty, dst, a, b })
    }

    /// `ex2.approx{.ftz}.f32 d, a` and its siblings (`tanh` has no `.ftz`).
    fn approx(&mut self, head: &str, mods: &[&str]) -> R<Op> {
        let Some(func) = ApproxFn::ALL.into_iter().find(|f| f.mnemonic() == head) else { return self.unsupported() };
        let ftz = match mods {
            ["approx", "f32"] => false,
            ["approx", "ftz", "f32"] if func.takes_ftz() => true,
            _ => return self.unsupported(),
        };
        let dst = self.reg()?;
        self.comma()?;
        Ok(Op::Approx { func, ftz, dst, a: self.operand()? })
    }

    /// `cvt.rn{.relu}.f16x2.f32 d, a, b` and `.bf16x2` (`.rz` too).
    fn cvt_pack(&mut self, mods: &[&str]) -> R<Op> {
        let (rounding, relu, to) = match mods {
            [r, "f16x2", "f32"] => (*r, false, PackedHalf::F16x2),
            [r, "relu", "f16x2", "f32"] => (*r, true, PackedHalf::F16x2),
            [r, "bf16x2", "f32"] => (*r, false, PackedHalf::Bf16x2),
            [r, "relu", "bf16x2", "f32"] => (*r, true, PackedHalf::Bf16x2),
            _ => return self.unsupported(),
        };
        let rounding = match rounding_of(rounding) {
            Some(r @ (Rounding::Rn | Rounding::Rz)) => r,
            _ => return self.unsupported(),
        };
        let (dst, a, b) = self.three()?;
        Ok(Op::CvtPack { to, rounding, relu, dst, a, b })
    }

    /// `shfl.sync.MODE.b32 d{|p}, a, b, c, membermask`.
    fn shfl(&mut self, mods: &[&str]) -> R<Op> {
        let mode = match mods {
            ["sync", mode, "b32"] => ShflMode::ALL.into_iter().find(|m| m.name() == *mode),
            _ => None,
        };
        let Some(mode) = mode else { return self.unsupported() };
        let dst = self.reg()?;
        let pred = if self.eat('|') { Some(self.reg()?) } else { None };
        self.comma()?;
        let a = self.operand()?;
        self.comma()?;
        let b = self.operand()?;
        self.comma()?;
        let c = self.operand()?;
        self.comma()?;
        Ok(Op::Shfl { mode, dst, pred, a, b, c, mask: self.operand()? })
    }

    /// `{r, ...}` of exactly `N` registers.
    fn regs<const N: usize>(&mut self, what: &str) -> R<[Reg; N]> {
        let pos = self.at;
        let regs = self.group(|p| p.reg())?;
        let found = regs.len();
        <[Reg; N]>::try_from(regs).or_else(|_| {
            self.at = pos;
            self.error(format!("{what} is {N} registers, not {found}"))
        })
    }

    /// `dst, a, b`.
    fn three(&mut self) -> R<(Reg, Operand, Operand)> {
        let dst = self.reg()?;
        self.comma()?;
        let a = self.operand()?;
        self.comma()?;
        Ok((dst, a, self.operand()?))
    }

    fn memory(&mut self, load: bool, mods: &[&str]) -> R<Op> {
        let (space, width, ty) = match mods {
            [s, t] => (space_of(s), Some(Width::V1), ty_of(t)),
            [s, "v2", t] => (space_of(s), Some(Width::V2), ty_of(t)),
            [s, "v4", t] => (space_of(s), Some(Width::V4), ty_of(t)),
            _ => (None, None, None),
        };
        let (Some(space), Some(width), Some(ty)) = (space, width, ty) else { return self.unsupported() };
        if space == StateSpace::Param {
            return self.param_load(load, width, ty);
        }
        if load {
            let dst = self.group(|p| p.reg())?;
            self.comma()?;
            return Ok(Op::Ld { space, width, ty, dst, addr: self.address()? });
        }
        let addr = self.address()?;
        self.comma()?;
        Ok(Op::St { space, width, ty, addr, src: self.group(|p| p.operand())? })
    }

    /// `ld.param.TYPE %r, [name]`: one value from a parameter by its name, the only parameter
    /// access the emulator models (the opcode is the current token's predecessor).
    fn param_load(&mut self, load: bool, width: Width, ty: Ty) -> R<Op> {
        let opcode = self.at - 1;
        let at_opcode = |message: &str| Err(error_at(self.tokens[opcode].1, message));
        if !load {
            return at_opcode(
                "a store to the parameter space is not supported (only `ld.param` of a parameter by name)",
            );
        }
        if width != Width::V1 {
            return at_opcode("a vector load from the parameter space is not supported (load each parameter by name)");
        }
        let dst = vec![self.reg()?];
        self.comma()?;
        if self.tokens.get(self.at + 1).is_some_and(|(t, _)| matches!(t, Tok::Word(w) if reg_of(w).is_some())) {
            self.at += 1;
            return self.error("a parameter load through a register is not supported (name the parameter: `[NAME]`)");
        }
        Ok(Op::Ld { space: StateSpace::Param, width, ty, dst, addr: self.address_of(SymbolKind::Param)? })
    }

    fn cp_async(&mut self, mods: &[&str]) -> R<Op> {
        Ok(match mods {
            ["async", "commit_group"] => Op::CpAsyncCommitGroup,
            ["async", "wait_group"] => Op::CpAsyncWaitGroup(self.count("a group count")?),
            ["async", "wait_all"] => Op::CpAsyncWaitAll,
            ["async", cache, "shared", "global"] => {
                let cache = match *cache {
                    "ca" => CacheOp::Ca,
                    "cg" => CacheOp::Cg,
                    _ => return self.unsupported(),
                };
                let dst = self.address()?;
                self.comma()?;
                let src = self.address()?;
                self.comma()?;
                let pos = self.at;
                let bytes = self.count("a copy size")?;
                let Some(size) = CpSize::of_bytes(bytes) else {
                    self.at = pos;
                    return self.error(format!("cp.async copies 4, 8 or 16 bytes, not {bytes}"));
                };
                let copy = CpAsync::new(cache, size, dst, src).or_else(|e| {
                    self.at = pos;
                    self.error(e.to_string())
                })?;
                if self.eat(',') {
                    Op::CpAsync(copy.with_src_size(self.operand()?))
                } else {
                    Op::CpAsync(copy)
                }
            }
            _ => return self.unsupported(),
        })
    }
}

#[cfg(test)]
mod tests;
