//! The compile step from a `PrimFunc` to the internal `Program`.
//!
//! It resolves variables to frame slots (each definition site gets its own slot; scopes are
//! restored on exit, so a variable reused by two sibling loops is fine), buffers to buffer
//! slots, operators to their scalar kind, and statements to instructions. It also checks the
//! typing rules the evaluator relies on (operand types agree, lanes follow docs/buffers-and-lanes.md), so the
//! evaluator never meets a lane mismatch. Buffers used without a declaration of their own
//! (aliases made by `buffer_decl`, which has no statement) get their layout evaluated where
//! their data variable is defined.
//!
//! Split: `expr` (expressions and accesses), `stmt` (statements), `threads` (thread blocks,
//! async attribute chains and S-TIR blocks).

mod expr;

pub(crate) use expr::MAX_DIMS;
mod stmt;
mod threads;

use std::collections::{HashMap, HashSet};

use tirproof_ir::buffer::{Buffer, BufferId};
use tirproof_ir::func::PrimFunc;
use tirproof_ir::span::Span;
use tirproof_ir::var::{Var, VarId};
use tirproof_ir::visit::{walk_func, Visitor};

use super::program::{BufInfo, CtxKind, CtxNode, Ins, LayoutIns, ParamBinding, Program, StmtInfo, NO_CTX, NO_STMT};
use tirproof_machine::error::ExecError;
use tirproof_machine::value::Num;

type CResult<T> = Result<T, ExecError>;

fn ill(message: impl Into<String>) -> ExecError {
    ExecError::IllFormed(message.into())
}

/// Where a variable lives in the frame.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum VarSlot {
    Scalar(u32, Num),
    Vector(u32, Num, u16),
    Data(u32),
}

/// Variable bindings with an undo log, so leaving a scope restores shadowed bindings.
#[derive(Default)]
struct Scope {
    map: HashMap<VarId, VarSlot>,
    undo: Vec<(VarId, Option<VarSlot>)>,
}

impl Scope {
    fn bind(&mut self, var: &Var, slot: VarSlot) {
        let old = self.map.insert(var.id(), slot);
        self.undo.push((var.id(), old));
    }

    fn get(&self, var: &Var) -> Option<VarSlot> {
        self.map.get(&var.id()).copied()
    }

    fn mark(&self) -> usize {
        self.undo.len()
    }

    fn restore(&mut self, mark: usize) {
        while self.undo.len() > mark {
            let Some((id, old)) = self.undo.pop() else { break };
            match old {
                Some(slot) => self.map.insert(id, slot),
                None => self.map.remove(&id),
            };
        }
    }
}

/// Finds buffers that are used but never declared (parameter, allocation, `DeclBuffer`,
/// block allocation), grouped by their data variable.
#[derive(Default)]
struct BufferCensus {
    defined: HashSet<BufferId>,
    used: Vec<Buffer>,
    seen: HashSet<BufferId>,
}

impl Visitor for BufferCensus {
    fn visit_buffer_def(&mut self, buffer: &Buffer) {
        self.defined.insert(buffer.id());
        tirproof_ir::visit::walk_buffer_def(self, buffer);
    }
    fn visit_buffer_use(&mut self, buffer: &Buffer) {
        if self.seen.insert(buffer.id()) {
            self.used.push(buffer.clone());
        }
    }
}

pub(crate) struct Compiler {
    code: Vec<Ins>,
    stmts: Vec<StmtInfo>,
    ctxs: Vec<CtxNode>,
    ctx: u32,
    /// The line of the statement being compiled (what a token-making call records).
    line: u32,
    scope: Scope,
    n_scalars: u32,
    n_vectors: u32,
    n_data: u32,
    buf_slots: HashMap<BufferId, u32>,
    buffers: Vec<BufInfo>,
    /// Undeclared buffers by data variable.
    implicit: HashMap<VarId, Vec<Buffer>>,
    /// Inside a kernel launch (the outermost `blockIdx` or `threadIdx` binding).
    in_region: bool,
    /// Inside an `async_scope`.
    in_async: bool,
    /// Instructions emitted so far that cost fuel (to give empty loop bodies a cost).
    counted: usize,
}

/// Compiles `func` to the internal form.
pub(crate) fn compile(func: &PrimFunc) -> CResult<Program> {
    compile_with(func, true)
}

/// Compiles only the parameters of `func` (enough to compute their shapes).
pub(crate) fn compile_params(func: &PrimFunc) -> CResult<Program> {
    compile_with(func, false)
}

fn compile_with(func: &PrimFunc, with_body: bool) -> CResult<Program> {
    let mut census = BufferCensus::default();
    walk_func(&mut census, func);
    let mut implicit: HashMap<VarId, Vec<Buffer>> = HashMap::new();
    for b in census.used.into_iter().filter(|b| !census.defined.contains(&b.id())) {
        implicit.entry(b.data().id()).or_default().push(b);
    }
    let mut c = Compiler {
        line: func.span.line,
        code: Vec::new(),
        stmts: Vec::new(),
        ctxs: Vec::new(),
        ctx: NO_CTX,
        scope: Scope::default(),
        n_scalars: 0,
        n_vectors: 0,
        n_data: 0,
        buf_slots: HashMap::new(),
        buffers: Vec::new(),
        implicit,
        in_region: false,
        in_async: false,
        counted: 0,
    };
    let (params, param_aliases) = c.params(func)?;
    if with_body {
        c.stmt(&func.body)?;
    }
    c.emit(Ins::End);
    Ok(Program {
        code: c.code,
        stmts: c.stmts,
        ctxs: c.ctxs,
        buffers: c.buffers,
        n_scalars: c.n_scalars as usize,
        n_vectors: c.n_vectors as usize,
        n_data: c.n_data as usize,
        params,
        param_aliases,
    })
}

impl Compiler {
    /// Binds scalar parameters first (buffer shapes may use them), then buffers.
    fn params(&mut self, func: &PrimFunc) -> CResult<(Vec<ParamBinding>, Vec<LayoutIns>)> {
        let mut params = Vec::new();
        for p in func.params.iter().filter(|p| p.buffer.is_none()) {
            match self.bind_var(&p.var)? {
                VarSlot::Scalar(slot, num) => {
                    params.push(ParamBinding::Scalar { name: p.var.name().to_string(), slot, num })
                }
                VarSlot::Vector(..) => {
                    return Err(ExecError::Unsupported(format!("vector parameter `{}`", p.var.name())))
                }
                // A bare handle: any buffer over it fails when declared (it has no storage).
                VarSlot::Data(_) => {}
            }
        }
        let mut aliases = Vec::new();
        for p in &func.params {
            let Some(buffer) = &p.buffer else { continue };
            let data = match self.scope.get(buffer.data()) {
                // A second parameter buffer over the same data: an alias of the first.
                Some(VarSlot::Data(slot)) => {
                    aliases.push(self.layout_ins(buffer)?);
                    slot
                }
                _ => {
                    let slot = self.new_data();
                    self.scope.bind(buffer.data(), VarSlot::Data(slot));
                    params.push(ParamBinding::Buffer {
                        name: buffer.name().to_string(),
                        layout: self.layout_ins(buffer)?,
                    });
                    for alias in self.implicit.remove(&buffer.data().id()).unwrap_or_default() {
                        aliases.push(self.layout_ins(&alias)?);
                    }
                    slot
                }
            };
            self.scope.bind(&p.var, VarSlot::Data(data));
        }
        Ok((params, aliases))
    }

    fn emit(&mut self, ins: Ins) -> u32 {
        if ins.stmt() != NO_STMT {
            self.counted += 1;
        }
        self.code.push(ins);
        self.pc() - 1
    }

    fn pc(&self) -> u32 {
        u32::try_from(self.code.len()).unwrap_or(u32::MAX)
    }

    /// A new statement id at the current context.
    fn stmt_id(&mut self, span: Span) -> u32 {
        self.stmts.push(StmtInfo { span, ctx: self.ctx });
        u32::try_from(self.stmts.len() - 1).unwrap_or(NO_STMT - 1)
    }

    fn new_scalar(&mut self) -> u32 {
        self.n_scalars += 1;
        self.n_scalars - 1
    }

    fn new_data(&mut self) -> u32 {
        self.n_data += 1;
        self.n_data - 1
    }

    /// Gives `var` a fresh slot of the right sort and binds it.
    fn bind_var(&mut self, var: &Var) -> CResult<VarSlot> {
        let dtype = var.dtype();
        let slot = if dtype.is_handle() {
            VarSlot::Data(self.new_data())
        } else {
            let num = Num::of(dtype).ok_or_else(|| ill(format!("variable `{var}` has unsupported type {dtype}")))?;
            if dtype.lanes == 1 {
                VarSlot::Scalar(self.new_scalar(), num)
            } else {
                self.n_vectors += 1;
                VarSlot::Vector(self.n_vectors - 1, num, dtype.lanes)
            }
        };
        self.scope.bind(var, slot);
        Ok(slot)
    }

    /// Binds a variable that must be a scalar integer (loop and thread variables).
    fn bind_int_var(&mut self, var: &Var) -> CResult<(u32, Num)> {
        match self.bind_var(var)? {
            VarSlot::Scalar(slot, num) if num.is_integer() => Ok((slot, num)),
            _ => Err(ill(format!("loop variable `{var}` must be a scalar integer, not {}", var.dtype()))),
        }
    }

    fn buf_slot(&mut self, buffer: &Buffer) -> CResult<u32> {
        if let Some(slot) = self.buf_slots.get(&buffer.id()) {
            return Ok(*slot);
        }
        let dtype = buffer.dtype();
        let num = Num::of(dtype)
            .ok_or_else(|| ExecError::Unsupported(format!("buffer `{buffer}` of element type {dtype}")))?;
        let slot = u32::try_from(self.buffers.len()).map_err(|_| ill("too many buffers"))?;
        self.buffers.push(BufInfo { name: buffer.name().to_string(), num, lanes: dtype.lanes });
        self.buf_slots.insert(buffer.id(), slot);
        Ok(slot)
    }

    /// Enters a loop or thread binding context; returns the previous one.
    fn push_ctx(&mut self, var: &Var, slot: u32, num: Num, kind: CtxKind) -> u32 {
        self.ctxs.push(CtxNode { parent: self.ctx, name: var.name().to_string(), slot, num, kind });
        std::mem::replace(&mut self.ctx, u32::try_from(self.ctxs.len() - 1).unwrap_or(NO_CTX))
    }

    /// Points the jump or exit of the instruction at `at` to `target`.
    fn patch(&mut self, at: u32, target: u32) {
        match self.code.get_mut(at as usize) {
            Some(Ins::LoopInit(l)) => l.exit = target,
            Some(Ins::Branch { target: t, .. }) | Some(Ins::Jump { target: t }) => *t = target,
            Some(Ins::RegionStart(r)) => r.end = target,
            Some(Ins::ThreadBind(t)) => t.skip = target,
            _ => {}
        }
    }

    /// Evaluates the layouts of undeclared buffers over `data`, right after it is defined.
    fn materialize_implicit(&mut self, data: &Var) -> CResult<()> {
        for buffer in self.implicit.get(&data.id()).cloned().unwrap_or_default() {
            let layout = self.layout_ins(&buffer)?;
            self.emit(Ins::Materialize(Box::new(layout)));
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tests::build::*;

    #[test]
    fn compiles_a_copy_loop() {
        let f = copy_func(16);
        let p = compile(&f).unwrap();
        assert!(matches!(p.code.last(), Some(Ins::End)));
        assert_eq!(p.params.len(), 2);
    }

    #[test]
    fn rejects_mismatched_operands() {
        let a = buf("A", F32, &[4]);
        let i = Var::new("i", I32);
        let bad = for_(&i, 4, store(&a, vec![ev(&i)], fl(1.0) + ev(&i)));
        let f = func(vec![&a], vec![], bad);
        assert!(matches!(compile(&f), Err(ExecError::IllFormed(_))));
    }

    #[test]
    fn rejects_unbound_variables() {
        let a = buf("A", F32, &[4]);
        let j = Var::new("j", I32);
        let f = func(vec![&a], vec![], store(&a, vec![ev(&j)], fl(1.0)));
        let err = compile(&f).unwrap_err();
        assert_eq!(err, ExecError::IllFormed("variable `j` is used outside its scope".into()));
    }
}
