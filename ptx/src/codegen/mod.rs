//! Codegen: lowered TIR (after `LOWERING_PASSES`) to a typed PTX module.
//!
//! One `PrimFunc` becomes one kernel. Buffer parameters become `.u64` parameters converted to
//! global addresses, scalar parameters typed parameters; shared and local allocations become
//! arrays of their state space, aligned to 16 bytes; every buffer access computes a 64-bit
//! byte address from its data variable's base. Thread bindings read `%tid`/`%ctaid` and fix
//! the launch shape. Serial loops become `setp` + `bra`, conditions predicated branches,
//! barriers `bar.sync 0`. Async copies, commits and waits follow docs/ptx.md.
//! Given the program's file name, every instruction follows a `.loc` of the TIR statement it
//! was lowered from (the statement's span; a `Line::Loc` only where the position changes), and
//! each shared or local array records the TIR buffer it holds.
//!
//! Invariants: a value of TIR type `t` with `n` lanes is `n` operands of `ty_of(t)`; float
//! arithmetic is `.rn` without contraction, so results are bitwise the interpreter's; a wait is
//! never weaker than the TIR's (a count that cannot be bounded waits for everything, with a
//! note); anything else that cannot be lowered exactly is a `LowerError` at the statement's
//! span.

mod bounds;
mod expr;
mod math;
mod stmt;

pub use stmt::MAX_WAIT_CHAIN;

use std::collections::{HashMap, HashSet};
use std::fmt;

use tirproof_ir::diag::Diagnostic;
use tirproof_ir::dtype::{DataType, TypeCode};
use tirproof_ir::func::{IRModule, PrimFunc};
use tirproof_ir::span::Span;
use tirproof_ir::var::VarId;
use tirproof_passes::manager::{PassManager, PipelineError, UnknownPass};

use crate::module::{
    print_with_lines, Address, Arch, ArchTooOld, Array, BlockDirectives, Inst, Kernel, Label, Launch, Line, Module, Op,
    Operand, Param, Reg, RegClass, SourceLoc, StateSpace, Ty,
};

/// The passes that turn a program as written into what codegen accepts, in order.
///
/// Waits on tokens become counts (`lower-async-tokens`, a closed form or the per-thread counter
/// of commits) and the tokens kept next to them as a claim are dropped (`strip-async-tokens`):
/// the claim is checked on the TIR (`tirproof verify` of `lower-async-tokens`' output), and
/// past this point only the counts run.
pub const LOWERING_PASSES: [&str; 7] = [
    "inject-software-pipeline",
    "lower-async-tokens",
    "strip-async-tokens",
    "lower-opaque-block",
    "flatten-buffer",
    "vectorize-loop",
    "vector-type-rewrite",
];

/// Why the TIR lowering pipeline stopped.
#[derive(Clone, Debug, thiserror::Error)]
pub enum PrepareError {
    #[error(transparent)]
    UnknownPass(#[from] UnknownPass),
    #[error(transparent)]
    Pipeline(#[from] PipelineError),
}

/// Runs `LOWERING_PASSES` over the module (the checker after each).
pub fn lower_tir(module: &mut IRModule) -> Result<(), PrepareError> {
    PassManager::from_names(&LOWERING_PASSES)?.run(module)?;
    Ok(())
}

/// A construct codegen cannot lower, at the statement that holds it.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{span}: in function `{func}`: cannot lower {construct} to PTX: {reason}")]
pub struct LowerError {
    pub func: String,
    pub span: Span,
    /// What was found (`the call T.exp`, `an allocation in scope "global"`).
    pub construct: String,
    pub reason: String,
}

impl LowerError {
    /// The error as a located diagnostic, to render against the source.
    pub fn to_diagnostic(&self) -> Diagnostic {
        Diagnostic::error(self.span, format!("cannot lower {} to PTX: {}", self.construct, self.reason))
            .note(format!("in function `{}`", self.func))
    }
}

/// Something codegen did conservatively, at a statement: an async store done synchronously,
/// a wait made stricter.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Note {
    pub func: String,
    pub span: Span,
    pub message: String,
}

impl fmt::Display for Note {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: in function `{}`: {}", self.span, self.func, self.message)
    }
}

/// A lowered module and the notes codegen left.
#[derive(Clone, Debug, PartialEq)]
pub struct Lowered {
    pub module: Module,
    pub notes: Vec<Note>,
}

/// Lowers every function of an already lowered TIR module (see `lower_tir`) to one kernel each,
/// without source lines (`lower_module_from` has them).
pub fn lower_module(module: &IRModule, arch: Arch) -> Result<Lowered, LowerError> {
    lower_module_from(module, arch, None)
}

/// `lower_module` of a module read from `source_file`: its kernels' instructions carry the TIR
/// lines they come from (`.loc`). `None` (a module from standard input or built in memory):
/// no source lines.
pub fn lower_module_from(module: &IRModule, arch: Arch, source_file: Option<&str>) -> Result<Lowered, LowerError> {
    let mut kernels = Vec::new();
    let mut notes = Vec::new();
    for func in &module.functions {
        let (kernel, func_notes) = lower_func(func, source_file)?;
        kernels.push(kernel);
        notes.extend(func_notes);
    }
    Ok(Lowered { module: Module { arch, kernels }, notes })
}

/// One function lowered to PTX on its own: the lowered TIR function (the kernel's parameters
/// are its parameters, in order), its kernel, the PTX line of each of the kernel's body
/// entries as printed for the target, and codegen's notes.
#[derive(Clone, Debug)]
pub struct LoweredKernel {
    pub func: PrimFunc,
    pub kernel: Kernel,
    pub lines: Vec<u32>,
    pub notes: Vec<Note>,
}

impl LoweredKernel {
    /// The TIR position of the instruction at PTX line `ptx_line` (as the printer numbers the
    /// kernel's lines), where the kernel has source lines.
    pub fn source_at_line(&self, ptx_line: u32) -> Option<SourceLoc> {
        let index = self
            .lines
            .iter()
            .zip(&self.kernel.body)
            .position(|(line, entry)| *line == ptx_line && matches!(entry, Line::Inst(_)))?;
        self.kernel.source_at(index)
    }
}

/// Why a function could not be lowered to a kernel.
#[derive(Clone, Debug, thiserror::Error)]
pub enum KernelError {
    #[error(transparent)]
    Prepare(#[from] PrepareError),
    #[error(transparent)]
    Lower(#[from] LowerError),
    #[error(transparent)]
    Print(#[from] ArchTooOld),
    #[error("lowering `{0}` gave no kernel")]
    NoKernel(String),
}

/// Lowers `func` alone in a module: `LOWERING_PASSES`, codegen for `arch`, and the printer for
/// the lines of the kernel's body. Every executor of a TIR function as PTX lowers it here
/// (`source_file` as in `lower_module_from`).
pub fn lower_kernel(func: &PrimFunc, arch: Arch, source_file: Option<&str>) -> Result<LoweredKernel, KernelError> {
    let mut module = IRModule { class_name: None, functions: vec![func.clone()] };
    lower_tir(&mut module)?;
    let lowered = lower_module_from(&module, arch, source_file)?;
    let (_, lines) = print_with_lines(&lowered.module)?;
    let found =
        (module.functions.into_iter().next(), lowered.module.kernels.into_iter().next(), lines.into_iter().next());
    match found {
        (Some(func), Some(kernel), Some(lines)) => Ok(LoweredKernel { func, kernel, lines, notes: lowered.notes }),
        _ => Err(KernelError::NoKernel(func.name.clone())),
    }
}

/// Lowers one function to a kernel (`source_file` as in `lower_module_from`).
pub fn lower_func(func: &PrimFunc, source_file: Option<&str>) -> Result<(Kernel, Vec<Note>), LowerError> {
    let mut gen = Gen::new(func);
    gen.source_file = source_file.map(str::to_string);
    gen.params(func)?;
    gen.stmt(&func.body)?;
    gen.emit(Op::Ret);
    // The code is generated for this block shape and states it.
    let directives = BlockDirectives { reqntid: Some(gen.launch.block), maxntid: None };
    let kernel = Kernel {
        name: ident(&func.name),
        params: gen.params,
        arrays: gen.arrays,
        launch: gen.launch,
        directives,
        source_file: gen.source_file,
        body: gen.body,
    };
    Ok((kernel, gen.notes))
}

/// Where a data variable's memory starts.
#[derive(Clone, Copy, Debug)]
struct Storage {
    space: StateSpace,
    /// A 64-bit register holding the base address in `space`.
    base: Reg,
}

type R<T> = Result<T, LowerError>;

/// The state of lowering one function.
struct Gen {
    func: String,
    body: Vec<Line>,
    next_reg: [u32; RegClass::ALL.len()],
    next_label: u32,
    /// The lanes each variable in scope evaluates to.
    vars: HashMap<VarId, Vec<Operand>>,
    ranges: bounds::Ranges,
    storages: HashMap<VarId, Storage>,
    params: Vec<Param>,
    arrays: Vec<Array>,
    launch: Launch,
    /// Thread tags bound so far, and the bindings around the statement being lowered (a
    /// statement inside the outermost one is in the kernel: every thread runs it).
    bound: HashSet<String>,
    depth: usize,
    binds_threads: bool,
    /// The async queues the function uses (PTX has one group FIFO per thread).
    queues: std::collections::BTreeSet<i64>,
    in_async: bool,
    span: Span,
    notes: Vec<Note>,
    /// The program's file: with it, instructions carry their statement's position.
    source_file: Option<String>,
    /// The position of the last `Line::Loc` emitted.
    loc: Option<SourceLoc>,
}

impl Gen {
    fn new(func: &PrimFunc) -> Gen {
        Gen {
            func: func.name.clone(),
            body: Vec::new(),
            next_reg: [0; RegClass::ALL.len()],
            next_label: 0,
            vars: HashMap::new(),
            ranges: bounds::Ranges::new(),
            storages: HashMap::new(),
            params: Vec::new(),
            arrays: Vec::new(),
            launch: Launch::default(),
            bound: HashSet::new(),
            depth: 0,
            binds_threads: stmt::binds_threads(&func.body),
            queues: stmt::async_queues(&func.body),
            in_async: false,
            span: func.span,
            notes: Vec::new(),
            source_file: None,
            loc: None,
        }
    }

    fn error(&self, construct: impl Into<String>, reason: impl Into<String>) -> LowerError {
        LowerError { func: self.func.clone(), span: self.span, construct: construct.into(), reason: reason.into() }
    }

    /// Records a note, and repeats it as a comment in the PTX where it applies.
    fn note(&mut self, message: String) {
        self.body.push(Line::Comment(format!("note: {message}")));
        self.notes.push(Note { func: self.func.clone(), span: self.span, message });
    }

    fn reg(&mut self, class: RegClass) -> Reg {
        let pos = RegClass::ALL.iter().position(|c| *c == class).unwrap_or(0);
        let index = self.next_reg[pos];
        self.next_reg[pos] += 1;
        Reg { class, index }
    }

    fn reg_of(&mut self, ty: Ty) -> Reg {
        self.reg(ty.reg_class())
    }

    fn label(&mut self) -> Label {
        self.next_label += 1;
        Label(self.next_label)
    }

    fn emit(&mut self, op: Op) {
        self.mark_source();
        self.body.push(Line::Inst(Inst { guard: None, op }));
    }

    fn emit_guarded(&mut self, pred: Reg, negated: bool, op: Op) {
        self.mark_source();
        let guard = Some(crate::module::Guard { pred, negated });
        self.body.push(Line::Inst(Inst { guard, op }));
    }

    /// Before an instruction: a `.loc` of the statement being lowered, where it is not the
    /// position in effect already (and the program has a file and the statement a span).
    fn mark_source(&mut self) {
        if self.source_file.is_none() || !self.span.is_known() {
            return;
        }
        let loc = SourceLoc { line: self.span.line, col: self.span.col };
        if self.loc != Some(loc) {
            self.loc = Some(loc);
            self.body.push(Line::Loc(loc));
        }
    }

    fn place(&mut self, label: Label) {
        self.body.push(Line::Label(label));
    }

    /// `operand` in a register of type `ty` (a `mov` when it is an immediate).
    fn in_reg(&mut self, ty: Ty, operand: Operand) -> Reg {
        match operand {
            Operand::Reg(r) => r,
            other => {
                // PTX has no 8-bit `mov`: an 8-bit value moves as its 16-bit twin.
                let ty = wide(ty);
                let dst = self.reg_of(ty);
                self.emit(Op::Mov { ty, dst, src: other });
                dst
            }
        }
    }

    /// Parameters: buffers as global base addresses, scalars as variables.
    fn params(&mut self, func: &PrimFunc) -> R<()> {
        for (i, param) in func.params.iter().enumerate() {
            let name = self.param_name(param.buffer.as_ref().map_or(param.var.name(), |b| b.name()), i);
            match &param.buffer {
                Some(buffer) => {
                    self.params.push(Param { name: name.clone(), ty: Ty::U64, array: None });
                    let generic = self.reg(RegClass::B64);
                    self.emit(Op::Ld {
                        space: StateSpace::Param,
                        width: crate::module::Width::V1,
                        ty: Ty::U64,
                        dst: vec![generic],
                        addr: Address::symbol(name),
                    });
                    let base = self.reg(RegClass::B64);
                    self.emit(Op::CvtaToGlobal { dst: base, src: generic });
                    self.storages.insert(buffer.data().id(), Storage { space: StateSpace::Global, base });
                }
                None => {
                    let ty = self.scalar_ty(param.var.dtype(), || format!("the parameter `{}`", param.var.name()))?;
                    if ty == Ty::Pred {
                        return Err(self.error(
                            format!("the bool parameter `{}`", param.var.name()),
                            "PTX parameters cannot be predicates",
                        ));
                    }
                    self.params.push(Param { name: name.clone(), ty, array: None });
                    let dst = self.reg_of(ty);
                    let ld_ty = if ty == Ty::F16 { Ty::B16 } else { ty };
                    self.emit(Op::Ld {
                        space: StateSpace::Param,
                        width: crate::module::Width::V1,
                        ty: ld_ty,
                        dst: vec![dst],
                        addr: Address::symbol(name),
                    });
                    self.vars.insert(param.var.id(), vec![Operand::Reg(dst)]);
                }
            }
        }
        Ok(())
    }

    /// The PTX name of parameter `index`, TIR's own name `tir` where PTX allows it: made an
    /// identifier (`ident`), and suffixed `_p{index}` where an earlier parameter has it or it
    /// could be an array's name (arrays are `NAME_{n}`).
    fn param_name(&self, tir: &str, index: usize) -> String {
        let name = ident(tir);
        let array_like =
            name.rsplit_once('_').is_some_and(|(_, n)| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()));
        if array_like || self.params.iter().any(|p| p.name == name) {
            format!("{name}_p{index}")
        } else {
            name
        }
    }

    /// The PTX type of one lane of `dtype`.
    fn scalar_ty(&self, dtype: DataType, what: impl Fn() -> String) -> R<Ty> {
        ty_of(dtype).ok_or_else(|| self.error(what(), format!("values of type {} are not supported", dtype.element())))
    }
}

/// The PTX type of one lane of a TIR type; `None` for what codegen does not support
/// (bfloat16, handles). An 8-bit integer is `.s8`/`.u8` in memory and lives in a 16-bit
/// register, sign- or zero-extended (`wide`): arithmetic runs on the 16-bit type and is
/// narrowed back after each operation (`Codegen::narrow`), so it wraps at 8 bits as the
/// interpreter does.
pub fn ty_of(dtype: DataType) -> Option<Ty> {
    Some(match (dtype.code, dtype.bits) {
        (TypeCode::Bool, _) => Ty::Pred,
        (TypeCode::Int, 8) => Ty::S8,
        (TypeCode::UInt, 8) => Ty::U8,
        (TypeCode::Int, 16) => Ty::S16,
        (TypeCode::Int, 32) => Ty::S32,
        (TypeCode::Int, 64) => Ty::S64,
        (TypeCode::UInt, 16) => Ty::U16,
        (TypeCode::UInt, 32) => Ty::U32,
        (TypeCode::UInt, 64) => Ty::U64,
        (TypeCode::Float, 16) => Ty::F16,
        (TypeCode::Float, 32) => Ty::F32,
        (TypeCode::Float, 64) => Ty::F64,
        _ => return None,
    })
}

/// A PTX identifier for a TIR name: characters PTX does not allow become `_`, and a name that
/// does not start with a letter gets a `_` in front.
pub fn ident(name: &str) -> String {
    let mut out: String = name.chars().map(|c| if c.is_ascii_alphanumeric() || c == '_' { c } else { '_' }).collect();
    if !out.starts_with(|c: char| c.is_ascii_alphabetic()) {
        out.insert(0, '_');
    }
    out
}

#[cfg(test)]
mod tests;

/// The register type an 8-bit value is computed in (its 16-bit twin); other types are their
/// own.
pub fn wide(ty: Ty) -> Ty {
    match ty {
        Ty::S8 => Ty::S16,
        Ty::U8 => Ty::U16,
        other => other,
    }
}
