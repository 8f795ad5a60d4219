//! Triton's TTGIR, as Triton 3.9 prints it, into token TIR.
//!
//! A Triton program is one CTA; its async ops are uniform across the CTA's threads (every
//! thread issues its part of a copy, commits and waits alike), so the CTA is read as one
//! thread, and the barriers Triton inserts after TTGIR are not part of this audit (the PTX
//! check covers them). Shared memory is one buffer `S` of *cells*: the greatest common divisor
//! of every allocation's offset and size, every slot's size and every scratch region's, so
//! that each view is a whole number of cells. A copy writes every cell of its destination
//! (a masked-off element is still written: cp.async fills it with zeros), a `local_load` reads
//! every cell of its view (a subslice reads its parent's cells: more than it reads, never
//! less), and an op with `allocation.offset`/`allocation.size` (a layout conversion's scratch)
//! writes and reads its region.
//! Invariant: allocations that carry `allocation.offset` overlap exactly where Triton placed
//! them; without offsets (TTGIR before allocation) they are laid out disjoint, and the import
//! says so in a warning.

use std::collections::HashSet;

use tirproof_ir::{Diagnostic, Span};

use crate::lower::{DialectOps, Lower, Mem, Result, Val};
use crate::mlir::query::{element_bytes, shape_word};
use crate::mlir::{Module, Op, Tok, TokKind};
use crate::sym::{Bin, IntTy, Sym};
use crate::{Imported, ImportedFunc};

/// The name of the shared-memory buffer of cells.
const SHARED: &str = "S";

/// How shared memory is cut into cells.
struct Layout {
    cell: i64,
    cells: i64,
    /// Offsets given to allocations without `allocation.offset`, by op position.
    assigned: Vec<(Span, i64)>,
    /// Every allocation: its name, first cell and cells.
    allocs: Vec<(String, i64, i64)>,
    /// Whether the function issues asynchronous warp-group dots.
    dots: bool,
    /// The asynchronous dots, by where they are, in order: each owns `ring` cells of the
    /// accumulators' shadow.
    dot_ops: Vec<Span>,
    /// Cells per dot: more than the most dots any dot wait leaves in flight, plus one, so that
    /// a dot in flight never shares its cell with a later issue of the same dot.
    ring: i64,
}

pub fn import(module: &Module) -> std::result::Result<Imported, Diagnostic> {
    let mut out = Imported::default();
    let mut funcs = Vec::new();
    collect_funcs(&module.ops, &mut funcs);
    if funcs.is_empty() {
        let at = module.ops.first().map_or(Span::new(1, 1), |o| o.span);
        return Err(Diagnostic::error(at, "no `tt.func` in this TTGIR"));
    }
    let total = module_shared(&module.ops);
    for func in funcs {
        out.functions.push(import_func(func, total, &mut out.notes)?);
    }
    Ok(out)
}

fn collect_funcs<'m>(ops: &'m [Op], out: &mut Vec<&'m Op>) {
    for op in ops {
        if op.name == "tt.func" {
            // A declaration (`tt.func private @__nv_expf(...)`, no body) has nothing to read.
            if !op.regions.is_empty() {
                out.push(op);
            }
        } else {
            for region in &op.regions {
                for block in &region.blocks {
                    collect_funcs(&block.ops, out);
                }
            }
        }
    }
}

/// `ttg.shared = N` on the module.
fn module_shared(ops: &[Op]) -> Option<i64> {
    ops.iter().find(|o| o.name == "module").and_then(|o| {
        let b = &o.body;
        (0..b.len()).find_map(|i| {
            (b[i].text == "ttg.shared" && b.get(i + 1).is_some_and(|t| t.is("=")))
                .then(|| b.get(i + 2)?.text.parse().ok())?
        })
    })
}

/// Every op of `ops`, nested ones included, in order.
fn walk<'m>(ops: &'m [Op], f: &mut dyn FnMut(&'m Op)) {
    for op in ops {
        f(op);
        for region in &op.regions {
            for block in &region.blocks {
                walk(&block.ops, f);
            }
        }
    }
}

/// The bytes of the `!ttg.memdesc<...>` type that ends `ty`.
fn memdesc_bytes(ty: &[Tok]) -> Option<i64> {
    let at = ty
        .iter()
        .rposition(|t| t.kind == TokKind::Bang && t.text == "ttg.memdesc")
        .map(|i| i + 2)
        // `async_copy_global_to_local`'s result type prints without the `!ttg.memdesc`.
        .or_else(|| ty.first().filter(|t| t.is("<")).map(|_| 1))?;
    let (dims, elem) = shape_word(&ty.get(at)?.text)?;
    let mut bytes = element_bytes(elem)?;
    for d in dims {
        bytes = bytes.checked_mul(d)?;
    }
    Some(bytes)
}

fn gcd(a: i64, b: i64) -> i64 {
    if b == 0 {
        a
    } else {
        gcd(b, a % b)
    }
}

/// The largest number of cells the import makes (larger layouts are refused with the sizes).
const MAX_CELLS: i64 = 1 << 14;

fn layout(func: &Op, total: Option<i64>, notes: &mut Vec<Diagnostic>) -> Result<Layout> {
    let mut sizes = Vec::new();
    let mut assigned = Vec::new();
    let mut next_free = 0i64;
    let mut end = 0i64;
    let mut missing = None;
    let mut failure = None;
    let mut raw_allocs = Vec::new();
    let mut dots = false;
    let mut dot_ops = Vec::new();
    let mut pendings = 0;
    let ops = func.regions.first().and_then(|r| r.blocks.first()).map_or(&[][..], |b| &b.ops[..]);
    walk(ops, &mut |op| {
        let offset = op.int_attr("allocation.offset");
        if op.name == "ttg.local_alloc" {
            let Some(bytes) = memdesc_bytes(op.result_type()) else {
                failure
                    .get_or_insert(Diagnostic::error(op.span, "a `ttg.local_alloc` whose type tirproof cannot size"));
                return;
            };
            let offset = offset.unwrap_or_else(|| {
                missing.get_or_insert(op.span);
                let o = next_free;
                assigned.push((op.span, o));
                o
            });
            raw_allocs.push((offset, bytes));
            next_free = next_free.max(offset + bytes);
            end = end.max(offset + bytes);
            sizes.extend([offset, bytes]);
        } else if let Some(offset) = offset {
            let size = op.int_attr("allocation.size");
            let size = size.or(total.map(|t| t - offset)).unwrap_or(0);
            end = end.max(offset + size);
            sizes.extend([offset, size]);
        } else if op.name == "ttng.warp_group_dot" {
            if is_async_dot(op) {
                dots = true;
                dot_ops.push(op.span);
            }
        } else if op.name == "ttng.warp_group_dot_wait" {
            pendings = pendings.max(op.int_attr("pendings").unwrap_or(0));
        } else if op.name == "ttg.memdesc_index" {
            if let Some(bytes) = memdesc_bytes(op.result_type()) {
                sizes.push(bytes);
            }
        }
    });
    if let Some(f) = failure {
        return Err(f);
    }
    if let Some(at) = missing {
        notes.push(Diagnostic::warning(
            at,
            "no `allocation.offset` on the shared-memory allocations (TTGIR before Triton's allocation pass): they are taken to be disjoint, so reuse of shared memory by a later allocation is not checked",
        ));
    }
    let end = end.max(total.unwrap_or(0));
    let cell = sizes.iter().copied().filter(|s| *s > 0).fold(0, gcd).max(1);
    let cells = (end + cell - 1) / cell;
    if cells > MAX_CELLS {
        return Err(Diagnostic::error(
            func.span,
            format!("shared memory of {end} bytes in cells of {cell} bytes is {cells} cells, more than the {MAX_CELLS} tirproof models"),
        ));
    }
    let allocs = raw_allocs.iter().map(|(o, b)| (format!("{SHARED}@{}", o / cell), o / cell, b / cell)).collect();
    Ok(Layout { cell, cells: cells.max(1), assigned, allocs, dots, dot_ops, ring: pendings.clamp(0, 64) + 2 })
}

struct Ttgir {
    layout: Layout,
    /// Allocations (by their first cell) written after they are made; `None` while the
    /// first reading collects them.
    written: Option<HashSet<String>>,
    collected: HashSet<String>,
    /// Copies issued and not yet committed, emitted at their commit: with several queues the
    /// verifier needs each asynchronous store inside the commit that groups it.
    pending: Vec<(Span, Mem)>,
    /// Whether the import has said that proxy fences are not checked.
    fence_noted: bool,
    /// The loops' carried values (by the loop's place and the value's index) that the first
    /// reading found to carry an asynchronous dot's result.
    acc_carried: HashSet<(Span, usize)>,
}

/// The queue asynchronous warp-group dots (wgmma) are modelled on.
const DOT_QUEUE: u32 = 1;

/// The shadow of `S` that an in-flight wgmma holds: it writes the cells it reads
/// asynchronously, so a write of `S` (which first reads the shadow) before the dot's group
/// retires is a race.
const SHADOW: &str = "W";

/// The accumulators' shadow: each asynchronous dot writes a cell of it in its group, and a
/// read of the dot's result reads that cell, so reading a result before its dot retires is a
/// race at the dot wait. Its last cell is no dot's (the value a loop starts with).
const ACC: &str = "ACC";

fn is_async_dot(op: &Op) -> bool {
    op.body.windows(3).any(|w| w[0].text == "isAsync" && w[1].is("=") && w[2].is_word("true"))
}

#[derive(Clone, Copy)]
enum Access {
    AsyncWrite,
    Write,
    Read,
}

impl Ttgir {
    fn view(&self, l: &Lower, tok: &Tok) -> Result<Mem> {
        match l.val(tok)? {
            Val::Mem(m) => Ok(m),
            _ => Err(Diagnostic::error(tok.span, format!("`%{}` is not a shared-memory view", tok.text))),
        }
    }

    fn touch(&mut self, l: &mut Lower, at: Span, m: &Mem, access: Access) {
        let index = |c: Option<&str>| -> String {
            match c {
                Some(c) => format!("{}", Sym::bin(Bin::Add, m.base.clone(), Sym::Name(c.to_owned(), m.base.ty()))),
                None => format!("{}", m.base),
            }
        };
        let stmt = |i: String| -> String {
            match access {
                Access::AsyncWrite => format!("{SHARED}[{i}] = G[0]"),
                Access::Write => format!("{SHARED}[{i}] = T.float32(0)"),
                Access::Read => format!("sink[0] = {SHARED}[{i}]"),
            }
        };
        if self.layout.dots && !matches!(access, Access::Read) {
            // A write must not meet an in-flight wgmma's read: read the shadow first.
            self.each_cell(l, at, m, &|i| format!("sink[0] = {SHADOW}[{i}]"));
        }
        if matches!(access, Access::Write | Access::AsyncWrite) {
            self.collected.insert(m.buffer.clone());
        }
        if matches!(access, Access::AsyncWrite) {
            l.em.open(at, "with T.attr(0, \"async_scope\", 1):");
        }
        if m.cells == 1 {
            l.em.line(at, stmt(index(None)));
        } else {
            let c = l.em.fresh("c");
            l.em.open(at, format!("for {c} in range({}):", m.cells));
            l.em.line(at, stmt(index(Some(&c))));
            l.em.close(at);
        }
        if matches!(access, Access::AsyncWrite) {
            l.em.close(at);
        }
    }

    /// The accumulators' cell no dot writes.
    fn no_dot_cell(&self) -> i64 {
        self.layout.dot_ops.len() as i64 * self.layout.ring
    }

    /// `line(index)` for every cell of `m`, in a loop when there are several.
    fn each_cell(&self, l: &mut Lower, at: Span, m: &Mem, line: &dyn Fn(String) -> String) {
        if m.cells == 1 {
            l.em.line(at, line(m.base.to_string()));
        } else {
            let c = l.em.fresh("c");
            l.em.open(at, format!("for {c} in range({}):", m.cells));
            l.em.line(at, line(Sym::bin(Bin::Add, m.base.clone(), Sym::Name(c, m.base.ty())).to_string()));
            l.em.close(at);
        }
    }

    /// Marks every allocation that overlaps cells `[start, start + cells)` written.
    fn overlapping_written(&mut self, start: i64, cells: i64) {
        for (name, first, n) in &self.layout.allocs {
            if *first < start + cells && start < first + n {
                self.collected.insert(name.clone());
            }
        }
    }

    /// An asynchronous warp-group dot: its shared operands are read now (they must be
    /// complete) and held until its group on the dot queue retires.
    fn dot(&mut self, l: &mut Lower, op: &Op) -> Result<()> {
        let result = op.results.first().cloned().unwrap_or_default();
        let is_async = is_async_dot(op);
        let mut held = Vec::new();
        for tok in op.operands() {
            match l.val(tok)? {
                Val::Mem(m) => {
                    self.touch(l, op.span, &m, Access::Read);
                    held.push(m);
                }
                // A synchronous dot reads its accumulator now; an asynchronous one chains on
                // it (in order, as the hardware allows).
                Val::Acc(cell) if !is_async => l.em.line(op.span, format!("sink[0] = {ACC}[{cell}]")),
                _ => {}
            }
        }
        if !is_async {
            l.bind(&result, Val::Opaque);
            return Ok(());
        }
        let index = self.layout.dot_ops.iter().position(|s| *s == op.span).unwrap_or(0);
        let ring = self.layout.ring;
        let first = Sym::int(index as i64 * ring, IntTy::I32);
        let cell = match l.loops.last() {
            Some(k) => Sym::bin(Bin::Add, first, Sym::bin(Bin::FloorMod, k.clone(), Sym::int(ring, IntTy::I32))),
            None => first,
        };
        let cell = l.let_sym(op.span, &format!("{result}_cell"), cell);
        l.em.open(op.span, format!("with T.attr(0, \"async_commit_queue_scope\", {DOT_QUEUE}):"));
        for m in held.iter().filter(|m| self.written.as_ref().is_some_and(|w| w.contains(&m.buffer))) {
            l.em.open(op.span, "with T.attr(0, \"async_scope\", 1):");
            self.each_cell(l, op.span, m, &|i| format!("{SHADOW}[{i}] = G[0]"));
            l.em.close(op.span);
        }
        l.em.open(op.span, "with T.attr(0, \"async_scope\", 1):");
        l.em.line(op.span, format!("{ACC}[{cell}] = G[0]"));
        l.em.close(op.span);
        l.em.close(op.span);
        l.bind(&result, Val::Acc(cell));
        Ok(())
    }

    /// Emits the copies issued since the last commit: inside the commit scope when `commit`,
    /// else (something else comes between a copy and its commit) on their own.
    fn flush(&mut self, l: &mut Lower, commit: Option<Span>) {
        let pending = std::mem::take(&mut self.pending);
        if let Some(at) = commit {
            l.em.open(at, "with T.attr(0, \"async_commit_queue_scope\", 0):");
        }
        for (at, m) in &pending {
            self.touch(l, *at, m, Access::AsyncWrite);
        }
        if let Some(at) = commit {
            l.em.close(at);
        }
    }

    fn cells_of(&self, at: Span, ty: &[Tok]) -> Result<i64> {
        let bytes = memdesc_bytes(ty)
            .ok_or_else(|| Diagnostic::error(at, "a shared-memory view whose type tirproof cannot size"))?;
        if bytes % self.layout.cell != 0 {
            return Err(Diagnostic::error(
                at,
                format!("a view of {bytes} bytes is not a whole number of {}-byte cells", self.layout.cell),
            ));
        }
        Ok(bytes / self.layout.cell)
    }

    fn tokens(&self, l: &Lower, op: &Op) -> Result<Vec<Sym>> {
        let mut out = Vec::new();
        for tok in op.operands() {
            match l.val(tok)? {
                Val::Token(t) => out.push(t),
                Val::WaitToken => {}
                _ => return Err(Diagnostic::error(tok.span, format!("`%{}` is not an async token", tok.text))),
            }
        }
        Ok(out)
    }
}

impl DialectOps for Ttgir {
    fn carried_init(&mut self, loop_at: Span, index: usize, init: Val) -> Val {
        match init {
            Val::Opaque if self.acc_carried.contains(&(loop_at, index)) => {
                Val::Acc(Sym::int(self.no_dot_cell(), IntTy::I32))
            }
            v => v,
        }
    }

    fn end_block(&mut self, l: &mut Lower, _at: Span) {
        // Copies not committed in their block are emitted in it: the values they write are
        // out of scope after it.
        if !self.pending.is_empty() {
            self.flush(l, None);
        }
    }

    fn loop_yields(&mut self, loop_at: Span, yields: &[Val]) {
        for (index, y) in yields.iter().enumerate() {
            if matches!(y, Val::Acc(_)) {
                self.acc_carried.insert((loop_at, index));
            }
        }
    }

    fn before(&mut self, l: &mut Lower, op: &Op) -> Result<()> {
        // A dot's result read by anything but a dot, a dot wait or the control flow that
        // carries it must come from a retired dot.
        let carries = op.name.starts_with("scf.") || op.name.starts_with("ttng.warp_group_dot");
        if !carries {
            for tok in op.operands() {
                if let Ok(Val::Acc(cell)) = l.val(tok) {
                    l.em.line(op.span, format!("sink[0] = {ACC}[{cell}]"));
                }
            }
        }
        let keeps = op.name == "ttg.async_commit_group"
            || op.name == "ttg.async_copy_global_to_local"
            || op.name.starts_with("ttg.memdesc_")
            || op.name.starts_with("arith.")
            || !(op.name.starts_with("ttg.")
                || op.name.starts_with("ttng.")
                || op.name.starts_with("scf.")
                || op.name.starts_with("gpu.")
                || op.name.starts_with("tt.return"));
        if !keeps && !self.pending.is_empty() {
            self.flush(l, None);
        }
        Ok(())
    }

    fn op(&mut self, l: &mut Lower, op: &Op) -> Result<bool> {
        let result = op.results.first().cloned().unwrap_or_default();
        let cell = self.layout.cell;
        match op.name.as_str() {
            "ttg.local_alloc" => {
                let offset = match op.int_attr("allocation.offset") {
                    Some(o) => o,
                    None => self.layout.assigned.iter().find(|(s, _)| *s == op.span).map_or(0, |(_, o)| *o),
                };
                let cells = self.cells_of(op.span, op.result_type())?;
                let m = Mem {
                    buffer: format!("{SHARED}@{}", offset / cell),
                    base: Sym::int(offset / cell, IntTy::I32),
                    cells,
                };
                if !op.operands().is_empty() {
                    self.touch(l, op.span, &m, Access::Write);
                    if l.em.depth() == 0 {
                        // Written once where it is made, before anything can read it.
                        self.collected.remove(&m.buffer);
                    }
                }
                l.bind(&result, Val::Mem(m));
            }
            "ttg.local_dealloc" => {}
            "ttg.memdesc_index" => {
                let ops = op.operands();
                let (Some(parent), Some(index)) = (ops.first(), ops.get(1)) else {
                    return Err(Diagnostic::error(op.span, "expected `ttg.memdesc_index %view[%index]`"));
                };
                let parent = self.view(l, parent)?;
                let index = match l.val(index)? {
                    Val::Int(s) => s,
                    _ => return Err(Diagnostic::error(index.span, "an index that is not an integer")),
                };
                let cells = self.cells_of(op.span, op.result_type())?;
                let ty = parent.base.ty();
                let index = if index.ty() == ty { index } else { Sym::Cast(ty, Box::new(index)) };
                let base = Sym::bin(Bin::Add, parent.base.clone(), Sym::bin(Bin::Mul, index, Sym::int(cells, ty)));
                let base = l.let_sym(op.span, &result, base);
                l.bind(&result, Val::Mem(Mem { base, cells, ..parent }));
            }
            "ttg.memdesc_subslice" | "ttg.memdesc_trans" | "ttg.memdesc_reshape" | "ttg.memdesc_reinterpret" => {
                let parent =
                    op.operands().first().copied().ok_or_else(|| Diagnostic::error(op.span, "a view of nothing"))?;
                let m = self.view(l, parent)?;
                l.bind(&result, Val::Mem(m));
            }
            "ttg.async_copy_global_to_local" => {
                let dst = op.operands().get(1).copied().ok_or_else(|| {
                    Diagnostic::error(op.span, "expected `ttg.async_copy_global_to_local %src, %dst`")
                })?;
                let m = self.view(l, dst)?;
                let var = l.em.fresh(&result);
                l.em.line(op.span, format!("{var} = T.call_extern(\"int64\", \"async_copy_token\", 0)"));
                l.bind(&result, Val::Token(Sym::Name(var, IntTy::I64)));
                self.pending.push((op.span, m));
            }
            "ttg.async_commit_group" => {
                self.flush(l, Some(op.span));
                let var = l.em.fresh(&result);
                l.em.line(op.span, format!("{var} = T.call_extern(\"int64\", \"async_group_token\", 0)"));
                l.bind(&result, Val::Token(Sym::Name(var, IntTy::I64)));
            }
            "ttg.async_wait" => {
                let num =
                    op.int_attr("num").ok_or_else(|| Diagnostic::error(op.span, "`ttg.async_wait` without `num`"))?;
                let tokens = self.tokens(l, op)?;
                wait(l, op.span, 0, num, &tokens);
                l.bind(&result, Val::WaitToken);
            }
            "ttng.warp_group_dot" => self.dot(l, op)?,
            "ttng.warp_group_dot_wait" => {
                let pendings = op
                    .int_attr("pendings")
                    .ok_or_else(|| Diagnostic::error(op.span, "`ttng.warp_group_dot_wait` without `pendings`"))?;
                // Its operands pass through (the newest dot's result may still be pending):
                // they are not a claim.
                for (i, tok) in op.operands().into_iter().enumerate() {
                    let passed = l.val(tok)?;
                    if let Some(r) = op.results.get(i) {
                        l.bind(r, passed);
                    }
                }
                wait(l, op.span, DOT_QUEUE, pendings, &[]);
            }
            // A program's coordinates are parameters (symbolic, as a launch gives them), not
            // data, so that the loop bounds Triton derives from them stay exact.
            "tt.get_program_id" | "tt.get_num_programs" => {
                let axis = op.first_word().map_or("x", |t| t.text.as_str()).to_owned();
                let base = if op.name == "tt.get_program_id" { "program_id" } else { "num_programs" };
                let var = l.em.fresh(&format!("{base}_{axis}"));
                l.params.push(format!("{var}: T.int32"));
                l.bind(&result, Val::Int(Sym::Name(var, IntTy::I32)));
            }
            "tt.load" => match op.result_type() {
                [ptr, open, elem, close] if ptr.text == "tt.ptr" && open.is("<") && close.is(">") => {
                    let v = l.data_scalar(op.span, &result, &elem.text);
                    l.bind(&result, v);
                }
                _ => return Ok(false),
            },
            "ttg.local_load" => {
                let src = op
                    .operands()
                    .first()
                    .copied()
                    .ok_or_else(|| Diagnostic::error(op.span, "expected `ttg.local_load %view`"))?;
                let m = self.view(l, src)?;
                self.touch(l, op.span, &m, Access::Read);
                l.bind(&result, Val::Opaque);
            }
            "ttg.local_store" => {
                let dst = op
                    .operands()
                    .get(1)
                    .copied()
                    .ok_or_else(|| Diagnostic::error(op.span, "expected `ttg.local_store %value, %view`"))?;
                let m = self.view(l, dst)?;
                self.touch(l, op.span, &m, Access::Write);
            }
            "ttng.fence_async_shared" => {
                if !self.fence_noted {
                    self.fence_noted = true;
                    l.notes.push(Diagnostic::warning(
                        op.span,
                        "proxy fences (`ttng.fence_async_shared`) are read as no-ops: whether one orders shared-memory writes before an asynchronous dot's reads is not checked",
                    ));
                }
            }
            "gpu.barrier" | "ttg.barrier" => l.em.line(op.span, "T.tvm_storage_sync(\"shared\")"),
            _ => {
                let Some(offset) = op.int_attr("allocation.offset") else {
                    return Ok(false);
                };
                // Scratch of an op that Triton lowers through shared memory.
                let size = op.int_attr("allocation.size").unwrap_or(self.layout.cells * cell - offset);
                let m = Mem {
                    buffer: format!("{SHARED}@scratch"),
                    base: Sym::int(offset / cell, IntTy::I32),
                    cells: ((size + cell - 1) / cell).max(1),
                };
                self.overlapping_written(offset / cell, m.cells);
                self.touch(l, op.span, &m, Access::Write);
                self.touch(l, op.span, &m, Access::Read);
                l.opaque(&Op { body: op.body.clone(), regions: Vec::new(), ..op.clone() })?;
            }
        }
        Ok(true)
    }
}

/// A wait on `queue` leaving `count` groups in flight, claiming `tokens`' groups complete.
fn wait(l: &mut Lower, at: Span, queue: u32, count: i64, tokens: &[Sym]) {
    l.em.open(at, format!("with T.attr(0, \"async_wait_queue_scope\", {queue}):"));
    l.em.open(at, format!("with T.attr(0, \"async_wait_inflight_count\", {count}):"));
    match tokens {
        [] => {}
        [t] => l.em.open(at, format!("with T.attr(0, \"async_wait_tokens\", {t}):")),
        ts => {
            let list: Vec<String> = ts.iter().map(ToString::to_string).collect();
            l.em.open(at, format!("with T.attr(0, \"async_wait_tokens\", T.tvm_tuple({})):", list.join(", ")));
        }
    }
    if !tokens.is_empty() {
        l.em.close(at);
    }
    l.em.close(at);
    l.em.close(at);
}

fn import_func(func: &Op, total: Option<i64>, notes: &mut Vec<Diagnostic>) -> Result<ImportedFunc> {
    let name = func
        .body
        .iter()
        .find(|t| t.kind == TokKind::Symbol)
        .map(|t| t.text.clone())
        .ok_or_else(|| Diagnostic::error(func.span, "a `tt.func` without a name"))?;
    let layout = layout(func, total, notes)?;
    let cells = layout.cells;
    let dots = layout.dots;
    let block = crate::lower::single_block(func, 0)?
        .ok_or_else(|| Diagnostic::error(func.span, "a `tt.func` without a body"))?;
    // The first reading finds which allocations are written after they are made (only those
    // get a wgmma's shadow); the second is the import.
    let mut dialect = Ttgir {
        layout,
        written: None,
        collected: HashSet::new(),
        pending: Vec::new(),
        fence_noted: false,
        acc_carried: HashSet::new(),
    };
    let mut written = None;
    let mut l = Lower::new();
    let mut params = Vec::new();
    for _ in 0..2 {
        l = Lower::new();
        dialect.written = written.take();
        dialect.collected.clear();
        dialect.fence_noted = false;
        params = crate::signature(&mut l, func)?;
        l.block(block, &mut dialect)?;
        written = Some(std::mem::take(&mut dialect.collected));
    }
    let mut header = vec![
        format!("{SHARED} = T.alloc_buffer(({cells},), \"float32\", scope=\"shared\")"),
        "sink = T.alloc_buffer((1,), \"float32\", scope=\"local\")".to_owned(),
    ];
    if dots {
        header.push(format!("{SHADOW} = T.alloc_buffer(({cells},), \"float32\", scope=\"shared\")"));
        // The shadow holds no data: it starts written, so only a pending dot makes it racy.
        header.push(format!("for shadow_cell in range({cells}):"));
        header.push(format!("    {SHADOW}[shadow_cell] = T.float32(0)"));
        let acc_cells = dialect.no_dot_cell() + 1;
        header.push(format!("{ACC} = T.alloc_buffer(({acc_cells},), \"float32\", scope=\"local\")"));
        header.push(format!("for acc_cell in range({acc_cells}):"));
        header.push(format!("    {ACC}[acc_cell] = T.float32(0)"));
    }
    header.append(&mut l.locals);
    let mut all_params = vec!["G: T.Buffer((1,), \"float32\")".to_owned()];
    if l.data > 0 {
        all_params.push(format!("data: T.Buffer(({},), \"int32\")", l.data));
    }
    all_params.extend(params);
    all_params.append(&mut l.params);
    notes.append(&mut l.notes);
    Ok(crate::finish_func(&name, func.span, all_params, header, l))
}
