//! MLIR's nvgpu dialect, as mlir-opt 22 prints it, into token TIR.
//!
//! Each `func.func` / `gpu.func` with a body (nested `module` / `gpu.module` walked) becomes
//! one TIR function. A `memref` argument is a global buffer parameter of its static shape; a
//! workgroup allocation (`memref.alloc`/`alloca` in `#gpu.address_space<workgroup>` or space 3,
//! a workgroup `memref.global` through `memref.get_global`, a `gpu.func` workgroup attribution)
//! is a shared buffer of its exact shape. `memref.subview` makes a [`View`] (buffer, offset of
//! each buffer dimension, the buffer dimension of each view index), so every access lands on
//! the elements it touches.
//! A `device_async_copy` of N elements is an `async_copy_token` and N asynchronous element
//! stores (all N, also with a source-elements operand: cp.async fills the rest with zeros); a
//! group is an empty commit and an `async_group_token`; a wait keeps its `numGroups` (0 when
//! absent) as the count that runs and its token as the claim the verifier checks.
//! Synchronous accesses of shared memory (`memref.load/store`, `vector.load/store`,
//! `vector.transfer_read/write`, `nvgpu.ldmatrix`) read or write their elements; global and
//! private memory is not audited (no async op writes it) and its accesses are not emitted.
//! Threads come from `gpu.known_block_size` or a `gpu.launch` with constant sizes; a function
//! that reads no thread id is one thread.
//! Invariant: every op with a workgroup memref operand is modelled or refused with its
//! location; so is every async op of nvgpu/nvvm that is not one of the three above.

use std::collections::HashMap;

use tirproof_ir::{Diagnostic, Span};

use crate::lower::{DialectOps, Lower, Result, Val, View};
use crate::mlir::query::{element_bytes, shape_word};
use crate::mlir::{Module, Op, Tok, TokKind};
use crate::sym::{Bin, IntTy, Sym};
use crate::{Imported, ImportedFunc};

/// A memref type: its static shape, element type and whether it is workgroup memory.
#[derive(Clone, Debug)]
struct MemRefTy {
    shape: Vec<i64>,
    elem: String,
    workgroup: bool,
}

pub fn import(module: &Module) -> std::result::Result<Imported, Diagnostic> {
    let mut funcs = Vec::new();
    let mut globals = HashMap::new();
    collect(&module.ops, &mut funcs, &mut globals)?;
    if funcs.is_empty() {
        let at = module.ops.first().map_or(Span::new(1, 1), |o| o.span);
        return Err(Diagnostic::error(at, "no `func.func` or `gpu.func` with a body in this MLIR"));
    }
    let mut out = Imported::default();
    for func in funcs {
        out.functions.push(import_func(func, &globals, &mut out.notes)?);
    }
    Ok(out)
}

/// The functions with a body, and the workgroup `memref.global`s by symbol.
fn collect<'m>(ops: &'m [Op], funcs: &mut Vec<&'m Op>, globals: &mut HashMap<String, MemRefTy>) -> Result<()> {
    for op in ops {
        match op.name.as_str() {
            "func.func" | "gpu.func" => {
                if !op.regions.is_empty() {
                    funcs.push(op);
                }
            }
            "memref.global" => {
                let name = symbol(op).ok_or_else(|| Diagnostic::error(op.span, "a `memref.global` without a name"))?;
                if let Some(ty) = memref_type(after_colon(&op.body))? {
                    if ty.workgroup {
                        globals.insert(name, ty);
                    }
                }
            }
            _ => {
                for region in &op.regions {
                    for block in &region.blocks {
                        collect(&block.ops, funcs, globals)?;
                    }
                }
            }
        }
    }
    Ok(())
}

fn symbol(op: &Op) -> Option<String> {
    op.body.iter().find(|t| t.kind == TokKind::Symbol).map(|t| t.text.clone())
}

/// The tokens after the first top-level `:` of `body`.
fn after_colon(body: &[Tok]) -> &[Tok] {
    let mut depth = 0usize;
    for (i, tok) in body.iter().enumerate() {
        match tok.text.as_str() {
            "(" | "[" | "<" | "{" if tok.kind == TokKind::Punct => depth += 1,
            ")" | "]" | ">" | "}" if tok.kind == TokKind::Punct => depth = depth.saturating_sub(1),
            ":" if tok.kind == TokKind::Punct && depth == 0 => return &body[i + 1..],
            _ => {}
        }
    }
    &[]
}

/// The `memref<...>` type that `ty` starts with (`None` when it is no memref); a dynamic or
/// unreadable shape is an error at `at`.
fn memref_type(ty: &[Tok]) -> Result<Option<MemRefTy>> {
    let Some(start) = ty.iter().position(|t| t.is_word("memref")) else { return Ok(None) };
    let at = ty[start].span;
    let bad = |what: &str| Diagnostic::error(at, format!("a memref type tirproof cannot read: {what}"));
    if !ty.get(start + 1).is_some_and(|t| t.is("<")) {
        return Err(bad("expected `memref<`"));
    }
    let mut depth = 0usize;
    let mut items: Vec<Vec<&Tok>> = vec![Vec::new()];
    for tok in &ty[start + 1..] {
        if tok.kind == TokKind::Punct {
            match tok.text.as_str() {
                "<" | "[" | "(" => {
                    depth += 1;
                    if depth == 1 {
                        continue;
                    }
                }
                ">" | "]" | ")" => {
                    depth = depth.saturating_sub(1);
                    if depth == 0 {
                        break;
                    }
                }
                "," if depth == 1 => {
                    items.push(Vec::new());
                    continue;
                }
                _ => {}
            }
        }
        if let Some(last) = items.last_mut() {
            last.push(tok);
        }
    }
    let shape = match items.first().map(Vec::as_slice) {
        Some([word]) if word.kind == TokKind::Word => word.text.as_str(),
        Some(toks) if toks.iter().any(|t| t.is("?")) => {
            return Err(Diagnostic::error(
                at,
                "a memref with a dynamic dimension `?`: tirproof reads static shapes only (give the size)",
            ))
        }
        _ => return Err(bad("expected its shape")),
    };
    let (shape, elem) = shape_word(shape).ok_or_else(|| bad("expected its shape"))?;
    let workgroup = items.iter().skip(1).any(|item| match item.as_slice() {
        [space] => space.is_word("3"),
        [hash, open, word, ..] => {
            hash.kind == TokKind::Hash && hash.text == "gpu.address_space" && open.is("<") && word.is_word("workgroup")
        }
        _ => false,
    });
    Ok(Some(MemRefTy { shape, elem: elem.to_owned(), workgroup }))
}

/// The TIR dtype of an MLIR element type.
fn dtype(at: Span, elem: &str) -> Result<&'static str> {
    Ok(match elem {
        "f32" => "float32",
        "f16" => "float16",
        "bf16" => "bfloat16",
        "f64" => "float64",
        "i8" => "int8",
        "i16" => "int16",
        "i32" => "int32",
        "i64" | "index" => "int64",
        "i1" => "bool",
        other => {
            return Err(Diagnostic::error(at, format!("a memref of `{other}`, an element type tirproof does not read")))
        }
    })
}

/// The shape of a TIR buffer: rank 0 is one element.
fn tir_shape(shape: &[i64]) -> String {
    match shape {
        [] => "(1,)".to_owned(),
        [d] => format!("({d},)"),
        ds => format!("({})", ds.iter().map(ToString::to_string).collect::<Vec<_>>().join(", ")),
    }
}

/// `s` as an `int64` expression.
fn i64_of(s: Sym) -> Sym {
    match (s.ty(), s.as_const()) {
        (IntTy::I64, _) => s,
        (_, Some(v)) => Sym::int(v, IntTy::I64),
        _ => Sym::Cast(IntTy::I64, Box::new(s)),
    }
}

fn add(a: Sym, b: Sym) -> Sym {
    Sym::bin(Bin::Add, i64_of(a), i64_of(b))
}

/// `%v[%i, ...]` at `body[*at]`: the value and its index values; `*at` moves past the `]`.
fn subscript<'t>(op: &Op, body: &'t [Tok], at: &mut usize) -> Result<(&'t Tok, Vec<&'t Tok>)> {
    let err = || Diagnostic::error(op.span, format!("expected `%memref[%index, ...]` in `{}`", op.name));
    let base = body.get(*at).filter(|t| t.kind == TokKind::Value).ok_or_else(err)?;
    if !body.get(*at + 1).is_some_and(|t| t.is("[")) {
        return Err(err());
    }
    *at += 2;
    let mut index = Vec::new();
    loop {
        let tok = body.get(*at).ok_or_else(err)?;
        *at += 1;
        match tok.kind {
            TokKind::Value => index.push(tok),
            TokKind::Punct if tok.is(",") => {}
            TokKind::Punct if tok.is("]") => return Ok((base, index)),
            _ => return Err(err()),
        }
    }
}

/// Skips `%value ,` at `body[*at]`.
fn skip_value(op: &Op, body: &[Tok], at: &mut usize) -> Result<()> {
    match (body.get(*at), body.get(*at + 1)) {
        (Some(v), Some(c)) if v.kind == TokKind::Value && c.is(",") => {
            *at += 2;
            Ok(())
        }
        _ => Err(Diagnostic::error(op.span, format!("expected `%value, %memref[...]` in `{}`", op.name))),
    }
}

/// The shape of the `vector<...>` type in `body`'s types.
fn vector_shape(op: &Op) -> Result<Vec<i64>> {
    let ty = after_colon(&op.body);
    ty.iter()
        .position(|t| t.is_word("vector"))
        .and_then(|i| ty.get(i + 2))
        .and_then(|w| shape_word(&w.text))
        .map(|(dims, _)| dims)
        .ok_or_else(|| Diagnostic::error(op.span, format!("`{}` without a `vector<...>` type tirproof reads", op.name)))
}

#[derive(Clone, Copy)]
enum Access {
    Read,
    Write,
}

struct Nvgpu<'m> {
    globals: &'m HashMap<String, MemRefTy>,
    /// Shared buffers declared so far, by the global's symbol (for `memref.get_global`).
    declared: HashMap<String, String>,
    header: Vec<String>,
    sinks: Vec<&'static str>,
    /// The thread index variables in scope, x/y/z, and the block's sizes.
    threads: Option<([String; 3], [i64; 3])>,
}

const AXES: [&str; 3] = ["x", "y", "z"];

impl Nvgpu<'_> {
    fn shared_buffer(&mut self, l: &mut Lower, base: &str, at: Span, ty: &MemRefTy) -> Result<View> {
        let name = l.em.fresh(base);
        let dt = dtype(at, &ty.elem)?;
        self.header.push(format!("{name} = T.alloc_buffer({}, \"{dt}\", scope=\"shared\")", tir_shape(&ty.shape)));
        Ok(whole(name, true, dt, ty))
    }

    fn view(&self, l: &Lower, op: &Op, tok: &Tok) -> Result<Option<View>> {
        match l.val(tok)? {
            Val::View(v) => Ok(Some(v)),
            Val::Opaque => Ok(None),
            _ => Err(Diagnostic::error(tok.span, format!("`%{}` in `{}` is not a memref", tok.text, op.name))),
        }
    }

    fn indices(&self, l: &Lower, toks: &[&Tok]) -> Result<Vec<Sym>> {
        toks.iter()
            .map(|t| match l.val(t)? {
                Val::Int(s) => Ok(s),
                _ => Err(Diagnostic::error(t.span, format!("`%{}` is not an integer index", t.text))),
            })
            .collect()
    }

    /// The buffer index of view index `idx`.
    fn place(view: &View, idx: &[Sym]) -> String {
        if view.offsets.is_empty() {
            return "0".to_owned();
        }
        let mut out: Vec<Sym> = view.offsets.iter().cloned().map(i64_of).collect();
        for (i, s) in idx.iter().enumerate() {
            if let Some(d) = view.dims.get(i) {
                out[*d] = add(out[*d].clone(), s.clone());
            }
        }
        out.iter().map(ToString::to_string).collect::<Vec<_>>().join(", ")
    }

    /// Opens a loop over each of `extents` (the trailing dimensions of `idx`): the indices of
    /// one element, the loop variables by trailing dimension (`None` for an extent of 1), and
    /// how many loops to close.
    fn element_loops(l: &mut Lower, at: Span, idx: &[Sym], extents: &[i64]) -> (Vec<Sym>, Vec<Option<Sym>>, usize) {
        let mut vars = Vec::new();
        for &n in extents {
            if n == 1 {
                vars.push(None);
                continue;
            }
            let e = l.em.fresh("e");
            l.em.open(at, format!("for {e} in range({n}):"));
            vars.push(Some(Sym::Name(e, IntTy::I32)));
        }
        let opened = vars.iter().flatten().count();
        (offset_trailing(idx, &vars), vars, opened)
    }

    /// A synchronous read or write of the elements `extents` spans from `idx` of `view`.
    fn touch(&mut self, l: &mut Lower, at: Span, view: &View, idx: &[Sym], extents: &[i64], access: Access) {
        if !view.shared {
            return;
        }
        let (idx, _, opened) = Self::element_loops(l, at, idx, extents);
        let place = Self::place(view, &idx);
        let dt = dtype_static(&view.dtype);
        match access {
            Access::Read => {
                if !self.sinks.contains(&dt) {
                    self.sinks.push(dt);
                    self.header.push(format!("sink_{dt} = T.alloc_buffer((1,), \"{dt}\", scope=\"local\")"));
                }
                l.em.line(at, format!("sink_{dt}[0] = {}[{place}]", view.buffer));
            }
            Access::Write => {
                let zero = if dt == "bool" { "T.bool(False)".to_owned() } else { format!("T.{dt}(0)") };
                l.em.line(at, format!("{}[{place}] = {zero}", view.buffer));
            }
        }
        for _ in 0..opened {
            l.em.close(at);
        }
    }

    /// The result of a load: an integer is data, anything else opaque.
    fn load_result(l: &mut Lower, op: &Op) {
        let ty = op.result_type();
        for r in &op.results {
            match ty {
                [t, ..] if matches!(t.text.as_str(), "i1" | "i8" | "i16" | "i32" | "i64" | "index") => {
                    let v = l.data_scalar(op.span, r, &t.text);
                    l.bind(r, v);
                }
                _ => l.bind(r, Val::Opaque),
            }
        }
    }

    /// `memref.load` / `vector.load` / `vector.transfer_read` / `nvgpu.ldmatrix`: `%m[...]`
    /// first; `store`s: `%value, %m[...]`.
    fn access(&mut self, l: &mut Lower, op: &Op, access: Access, extents: Extents) -> Result<()> {
        let mut at = 0;
        if matches!(access, Access::Write) {
            skip_value(op, &op.body, &mut at)?;
        }
        let (base, index) = subscript(op, &op.body, &mut at)?;
        if op.has_attr("permutation_map") {
            return Err(Diagnostic::error(op.span, format!("`{}` with a `permutation_map` is not read", op.name)));
        }
        let view = self.view(l, op, base)?;
        let idx = self.indices(l, &index)?;
        if let Some(view) = view {
            if idx.len() != view.dims.len() {
                return Err(Diagnostic::error(
                    op.span,
                    format!("`{}` indexes a memref of rank {} with {} indices", op.name, view.dims.len(), idx.len()),
                ));
            }
            let extents = match extents {
                Extents::One => Vec::new(),
                Extents::Vector => vector_shape(op)?,
                Extents::Row => vec![16 / element_bytes(mlir_elem(&view.dtype)).unwrap_or(16).max(1)],
            };
            if extents.len() > idx.len() {
                return Err(Diagnostic::error(
                    op.span,
                    format!("`{}` of a vector of higher rank than its memref", op.name),
                ));
            }
            self.touch(l, op.span, &view, &idx, &extents, access);
        }
        if matches!(access, Access::Read) {
            Self::load_result(l, op);
        }
        Ok(())
    }

    /// `nvgpu.device_async_copy %src[...], %dst[...], N [, %srcElements]`.
    fn copy(&mut self, l: &mut Lower, op: &Op) -> Result<()> {
        let result = op.results.first().cloned().unwrap_or_default();
        let body = &op.body;
        let mut at = 0;
        let (src, src_index) = subscript(op, body, &mut at)?;
        let err = || Diagnostic::error(op.span, "expected `nvgpu.device_async_copy %src[...], %dst[...], N`");
        if !body.get(at).is_some_and(|t| t.is(",")) {
            return Err(err());
        }
        at += 1;
        let (dst, dst_index) = subscript(op, body, &mut at)?;
        let count: i64 = match (body.get(at), body.get(at + 1)) {
            (Some(c), Some(n)) if c.is(",") => n.text.parse().map_err(|_| err())?,
            _ => return Err(err()),
        };
        let src = self
            .view(l, op, src)?
            .ok_or_else(|| Diagnostic::error(src.span, "a copy from a memref tirproof does not follow"))?;
        let dst = self
            .view(l, op, dst)?
            .ok_or_else(|| Diagnostic::error(dst.span, "a copy into a memref tirproof does not follow"))?;
        if !dst.shared {
            return Err(Diagnostic::error(op.span, "a `device_async_copy` into memory that is not workgroup memory"));
        }
        let (src_idx, dst_idx) = (self.indices(l, &src_index)?, self.indices(l, &dst_index)?);
        if src_idx.len() != src.dims.len() || dst_idx.len() != dst.dims.len() || dst_idx.is_empty() {
            return Err(Diagnostic::error(
                op.span,
                "a `device_async_copy` whose indices do not match its memrefs' ranks",
            ));
        }
        l.copy_token(op.span, &result);
        l.em.open(op.span, "with T.attr(0, \"async_scope\", 1):");
        let (dst_idx, vars, opened) = Self::element_loops(l, op.span, &dst_idx, &[count]);
        let src_idx = offset_trailing(&src_idx, &vars);
        let value = if src.dtype == dst.dtype {
            format!("{}[{}]", src.buffer, Self::place(&src, &src_idx))
        } else {
            format!("T.Cast(\"{}\", {}[{}])", dst.dtype, src.buffer, Self::place(&src, &src_idx))
        };
        l.em.line(op.span, format!("{}[{}] = {value}", dst.buffer, Self::place(&dst, &dst_idx)));
        for _ in 0..opened {
            l.em.close(op.span);
        }
        l.em.close(op.span);
        Ok(())
    }

    /// `memref.subview %m[offsets] [sizes] [strides] : T to U`.
    fn subview(&mut self, l: &mut Lower, op: &Op) -> Result<()> {
        let result = op.results.first().cloned().unwrap_or_default();
        let body = &op.body;
        let err = |what: &str| Diagnostic::error(op.span, format!("`memref.subview`: {what}"));
        let base = body.first().filter(|t| t.kind == TokKind::Value).ok_or_else(|| err("expected `%memref[`"))?;
        let mut lists: Vec<Vec<&Tok>> = Vec::new();
        let mut at = 1;
        while lists.len() < 3 {
            if !body.get(at).is_some_and(|t| t.is("[")) {
                return Err(err("expected `[offsets] [sizes] [strides]`"));
            }
            at += 1;
            let mut list = Vec::new();
            loop {
                let tok = body.get(at).ok_or_else(|| err("an unclosed `[`"))?;
                at += 1;
                if tok.is("]") {
                    break;
                }
                if !tok.is(",") {
                    list.push(tok);
                }
            }
            lists.push(list);
        }
        let Some(parent) = self.view(l, op, base)? else {
            l.bind(&result, Val::Opaque);
            return Ok(());
        };
        let (offsets, sizes, strides) = (&lists[0], &lists[1], &lists[2]);
        if offsets.len() != parent.dims.len() || sizes.len() != offsets.len() || strides.len() != offsets.len() {
            return Err(err("the offsets, sizes and strides do not match the source's rank"));
        }
        let sizes: Vec<i64> = sizes
            .iter()
            .map(|t| t.text.parse().map_err(|_| err("a dynamic size (only static sizes are read)")))
            .collect::<Result<_>>()?;
        if strides.iter().any(|t| !t.is_word("1")) {
            return Err(err("a stride other than 1 (only unit strides are read)"));
        }
        let result_shape = op
            .body
            .iter()
            .rposition(|t| t.is_word("to"))
            .and_then(|i| memref_type(&op.body[i + 1..]).transpose())
            .transpose()?
            .map(|t| t.shape)
            .ok_or_else(|| err("expected `to memref<...>`"))?;
        let mut view = parent.clone();
        for (i, tok) in offsets.iter().enumerate() {
            let offset = match tok.kind {
                TokKind::Value => match l.val(tok)? {
                    Val::Int(s) => s,
                    _ => return Err(Diagnostic::error(tok.span, "an offset that is not an integer")),
                },
                _ => Sym::int(tok.text.parse().map_err(|_| err("an offset tirproof cannot read"))?, IntTy::I64),
            };
            let d = parent.dims[i];
            view.offsets[d] = add(view.offsets[d].clone(), offset);
        }
        // Rank reduction drops unit dimensions, matched left to right against the result's shape.
        let mut kept = Vec::new();
        let mut r = 0;
        for (i, &size) in sizes.iter().enumerate() {
            if result_shape.get(r) == Some(&size) {
                kept.push(parent.dims[i]);
                r += 1;
            } else if size != 1 {
                return Err(err("the result's shape does not match the sizes"));
            }
        }
        if r != result_shape.len() {
            return Err(err("the result's shape does not match the sizes"));
        }
        view.dims = kept;
        l.bind(&result, Val::View(view));
        Ok(())
    }

    /// Opens `gpu.launch blocks(...) in (...) threads(%tx, %ty, %tz) in (%sx = %c32, ...)`:
    /// binds its block arguments and opens the thread launches (3 blocks to close).
    fn open_launch(&mut self, l: &mut Lower, op: &Op) -> Result<()> {
        let group = |word: &str| -> Vec<&Tok> {
            let Some(start) = op.body.iter().position(|t| t.is_word(word)) else { return Vec::new() };
            let mut out = Vec::new();
            let mut closed = 0;
            for tok in &op.body[start + 1..] {
                if tok.is(")") {
                    closed += 1;
                    if closed == 2 {
                        break;
                    }
                }
                if tok.kind == TokKind::Value {
                    out.push(tok);
                }
            }
            out
        };
        let threads = group("threads");
        let blocks = group("blocks");
        if threads.len() != 9 || blocks.len() != 9 {
            return Err(Diagnostic::error(op.span, "expected `gpu.launch blocks(...) in (...) threads(...) in (...)`"));
        }
        let mut sizes = [1i64; 3];
        for (a, size) in sizes.iter_mut().enumerate() {
            let tok = threads[4 + 2 * a];
            *size = match l.val(tok)? {
                Val::Int(s) => s.as_const().filter(|v| *v > 0),
                _ => None,
            }
            .ok_or_else(|| {
                Diagnostic::error(
                    tok.span,
                    "a `gpu.launch` block size that is not a positive constant: the threads are unknown",
                )
            })?;
        }
        for a in 0..3 {
            for tok in [blocks[a], blocks[3 + 2 * a]] {
                let v = l.data_scalar(op.span, &tok.text, "index");
                l.bind(&tok.text, v);
            }
            l.bind(&threads[3 + 2 * a].text, Val::Int(Sym::int(sizes[a], IntTy::I64)));
        }
        let vars = self.open_threads(l, op.span, sizes);
        for (a, var) in vars.iter().enumerate() {
            l.bind(&threads[a].text, Val::Int(Sym::Cast(IntTy::I64, Box::new(Sym::Name(var.clone(), IntTy::I32)))));
        }
        self.threads = Some((vars, sizes));
        Ok(())
    }

    fn open_threads(&mut self, l: &mut Lower, at: Span, sizes: [i64; 3]) -> [String; 3] {
        let vars = AXES.map(|a| l.em.fresh(&format!("t{a}")));
        for var in &vars {
            l.assume_nonneg(var);
        }
        for (a, var) in vars.iter().enumerate() {
            l.em.open(at, format!("with T.launch_thread(\"threadIdx.{}\", {}) as {var}:", AXES[a], sizes[a]));
        }
        vars
    }
}

/// `idx` with each loop variable of `vars` added to its trailing dimension.
fn offset_trailing(idx: &[Sym], vars: &[Option<Sym>]) -> Vec<Sym> {
    let mut idx = idx.to_vec();
    let first = idx.len().saturating_sub(vars.len());
    for (k, var) in vars.iter().enumerate() {
        if let (Some(var), Some(slot)) = (var, idx.get_mut(first + k)) {
            *slot = add(slot.clone(), var.clone());
        }
    }
    idx
}

/// Which elements an access spans from its index.
#[derive(Clone, Copy)]
enum Extents {
    One,
    /// The shape of its vector type, over the memref's trailing dimensions.
    Vector,
    /// 16 bytes along the last dimension (one `ldmatrix` row).
    Row,
}

fn dtype_static(dt: &str) -> &'static str {
    ["float32", "float16", "bfloat16", "float64", "int8", "int16", "int32", "int64", "bool"]
        .into_iter()
        .find(|d| *d == dt)
        .unwrap_or("float32")
}

fn mlir_elem(dt: &str) -> &'static str {
    match dt {
        "float16" | "bfloat16" | "int16" => "f16",
        "float64" | "int64" => "f64",
        "int8" | "bool" => "i8",
        _ => "f32",
    }
}

/// The whole of a buffer of type `ty` as a view.
fn whole(buffer: String, shared: bool, dt: &str, ty: &MemRefTy) -> View {
    View {
        buffer,
        shared,
        dtype: dt.to_owned(),
        offsets: ty.shape.iter().map(|_| Sym::int(0, IntTy::I64)).collect(),
        dims: (0..ty.shape.len()).collect(),
    }
}

impl DialectOps for Nvgpu<'_> {
    fn op(&mut self, l: &mut Lower, op: &Op) -> Result<bool> {
        let result = op.results.first().cloned().unwrap_or_default();
        match op.name.as_str() {
            "memref.alloc" | "memref.alloca" => match memref_type(op.result_type())? {
                Some(ty) if ty.workgroup => {
                    if !op.operands().is_empty() {
                        return Err(Diagnostic::error(op.span, "a workgroup allocation of a dynamic size"));
                    }
                    let view = self.shared_buffer(l, &result, op.span, &ty)?;
                    l.bind(&result, Val::View(view));
                }
                Some(ty) => {
                    let dt = dtype(op.span, &ty.elem)?;
                    l.bind(&result, Val::View(whole(result.clone(), false, dt, &ty)));
                }
                None => l.bind(&result, Val::Opaque),
            },
            "memref.get_global" => {
                let name =
                    symbol(op).ok_or_else(|| Diagnostic::error(op.span, "a `memref.get_global` without a name"))?;
                match self.globals.get(&name) {
                    Some(ty) => {
                        let ty = ty.clone();
                        let dt = dtype(op.span, &ty.elem)?;
                        let buffer = match self.declared.get(&name) {
                            Some(b) => b.clone(),
                            None => {
                                let v = self.shared_buffer(l, &name, op.span, &ty)?;
                                self.declared.insert(name, v.buffer.clone());
                                v.buffer
                            }
                        };
                        l.bind(&result, Val::View(whole(buffer, true, dt, &ty)));
                    }
                    None => {
                        // A global not in workgroup memory (or not declared): not audited.
                        match memref_type(op.result_type())? {
                            Some(ty) if ty.workgroup => {
                                return Err(Diagnostic::error(
                                    op.span,
                                    format!("`@{name}` is not a workgroup `memref.global` of this module"),
                                ))
                            }
                            _ => l.bind(&result, Val::Opaque),
                        }
                    }
                }
            }
            "memref.subview" => self.subview(l, op)?,
            "memref.dealloc" => {}
            "memref.load" => self.access(l, op, Access::Read, Extents::One)?,
            "memref.store" => self.access(l, op, Access::Write, Extents::One)?,
            "vector.load" | "vector.transfer_read" => self.access(l, op, Access::Read, Extents::Vector)?,
            "vector.store" | "vector.transfer_write" => self.access(l, op, Access::Write, Extents::Vector)?,
            "nvgpu.ldmatrix" => self.access(l, op, Access::Read, Extents::Row)?,
            "nvgpu.device_async_copy" => self.copy(l, op)?,
            "nvgpu.device_async_create_group" => {
                for tok in op.operands() {
                    if !matches!(l.val(tok)?, Val::Token(_)) {
                        return Err(Diagnostic::error(tok.span, format!("`%{}` is not a copy's token", tok.text)));
                    }
                }
                l.commit_group(op.span, &result);
            }
            "nvgpu.device_async_wait" => {
                let count = op.int_attr("numGroups").unwrap_or(0);
                if count < 0 {
                    return Err(Diagnostic::error(op.span, "a negative `numGroups`"));
                }
                let mut tokens = Vec::new();
                for tok in op.operands() {
                    match l.val(tok)? {
                        Val::Token(t) => tokens.push(t),
                        _ => return Err(Diagnostic::error(tok.span, format!("`%{}` is not an async token", tok.text))),
                    }
                }
                l.wait_groups(op.span, count, &tokens);
            }
            "gpu.barrier" => l.em.line(op.span, "T.tvm_storage_sync(\"shared\")"),
            "gpu.thread_id" | "gpu.block_dim" => {
                let axis = op.first_word().and_then(|w| AXES.iter().position(|a| w.is_word(a)));
                let axis = axis.ok_or_else(|| {
                    Diagnostic::error(op.span, format!("`{}` without a dimension x, y or z", op.name))
                })?;
                let Some((vars, sizes)) = &self.threads else {
                    return Err(Diagnostic::error(
                        op.span,
                        format!(
                            "`{}`: the block size is unknown (add `gpu.known_block_size = array<i32: X, Y, Z>` to the function, or launch it with `gpu.launch` of constant sizes)",
                            op.name
                        ),
                    ));
                };
                let val = if op.name == "gpu.thread_id" {
                    Sym::Cast(IntTy::I64, Box::new(Sym::Name(vars[axis].clone(), IntTy::I32)))
                } else {
                    Sym::int(sizes[axis], IntTy::I64)
                };
                l.let_int(op.span, &result, val);
            }
            "gpu.block_id" | "gpu.grid_dim" | "gpu.lane_id" => {
                let v = l.data_scalar(op.span, &result, "index");
                l.bind(&result, v);
            }
            "gpu.terminator" => {}
            "gpu.launch" => {
                let Some(block) = crate::lower::single_block(op, 0)? else {
                    return Err(Diagnostic::error(op.span, "a `gpu.launch` without a body"));
                };
                let outer = self.threads.take();
                self.open_launch(l, op)?;
                l.block(block, self)?;
                for _ in 0..3 {
                    l.em.close(op.span);
                }
                self.threads = outer;
            }
            name if name.contains("async") || name.starts_with("nvgpu.mbarrier") || name.starts_with("nvgpu.tma") => {
                return Err(Diagnostic::error(
                    op.span,
                    format!("`{name}` is an asynchronous op tirproof does not model"),
                ));
            }
            _ => return Ok(false),
        }
        Ok(true)
    }
}

/// `gpu.known_block_size = array<i32: X, Y, Z>` on a function.
fn known_block_size(func: &Op) -> Option<[i64; 3]> {
    let b = &func.body;
    let at = b.iter().position(|t| t.text == "gpu.known_block_size")?;
    let colon = at + b[at..].iter().position(|t| t.is(":"))?;
    let nums: Vec<i64> = b[colon + 1..]
        .iter()
        .take_while(|t| !t.is(">"))
        .filter(|t| t.kind == TokKind::Word)
        .map(|t| t.text.parse().ok())
        .collect::<Option<_>>()?;
    match nums.as_slice() {
        [x, y, z] if *x > 0 && *y > 0 && *z > 0 => Some([*x, *y, *z]),
        _ => None,
    }
}

/// Whether `gpu.thread_id` or `gpu.block_dim` occurs outside a `gpu.launch`.
fn reads_thread_id(ops: &[Op]) -> bool {
    ops.iter().any(|op| {
        matches!(op.name.as_str(), "gpu.thread_id" | "gpu.block_dim")
            || (op.name != "gpu.launch" && op.regions.iter().any(|r| r.blocks.iter().any(|b| reads_thread_id(&b.ops))))
    })
}

fn import_func(func: &Op, globals: &HashMap<String, MemRefTy>, notes: &mut Vec<Diagnostic>) -> Result<ImportedFunc> {
    let name = symbol(func).ok_or_else(|| Diagnostic::error(func.span, "a function without a name"))?;
    let mut l = Lower::new();
    let mut dialect = Nvgpu { globals, declared: HashMap::new(), header: Vec::new(), sinks: Vec::new(), threads: None };
    let scalars = crate::signature(&mut l, func)?;
    let mut params = Vec::new();
    if let Some(open) = func.body.iter().position(|t| t.is("(")) {
        for (arg, ty) in crate::arguments(&func.body, open) {
            if let Some(ty) = memref_type(ty)? {
                let var = l.em.fresh(&arg.text);
                let dt = dtype(arg.span, &ty.elem)?;
                if ty.workgroup {
                    return Err(Diagnostic::error(
                        arg.span,
                        "a workgroup memref passed as an argument: tirproof cannot see its allocation",
                    ));
                }
                params.push(format!("{var}: T.Buffer({}, \"{dt}\")", tir_shape(&ty.shape)));
                l.bind(&arg.text, Val::View(whole(var, false, dt, &ty)));
            }
        }
    }
    // `gpu.func`'s workgroup attributions.
    if let Some(open) = func.body.windows(2).position(|w| w[0].is_word("workgroup") && w[1].is("(")) {
        for (arg, ty) in crate::arguments(&func.body, open + 1) {
            match memref_type(ty)? {
                Some(ty) => {
                    let view =
                        dialect.shared_buffer(&mut l, &arg.text, arg.span, &MemRefTy { workgroup: true, ..ty })?;
                    l.bind(&arg.text, Val::View(view));
                }
                None => return Err(Diagnostic::error(arg.span, "a workgroup attribution that is not a memref")),
            }
        }
    }
    let block = crate::lower::single_block(func, 0)?
        .ok_or_else(|| Diagnostic::error(func.span, "a function without a body"))?;
    let threaded = reads_thread_id(&block.ops);
    let mut opened = 0;
    // A known block size makes every thread of it run the body, reading its index or not:
    // threads that copy to the same addresses race, and the verifier sees that.
    if let Some(sizes) = known_block_size(func) {
        let vars = dialect.open_threads(&mut l, func.span, sizes);
        dialect.threads = Some((vars, sizes));
        opened = 3;
    } else if !threaded && !block.ops.iter().any(|o| o.name == "gpu.launch") {
        notes.push(Diagnostic::warning(
            func.span,
            "no block size (`gpu.known_block_size`) and no thread index: read as one thread; launched with several, every thread would copy to and read the same addresses, which is not checked",
        ));
    }
    l.block(block, &mut dialect)?;
    for _ in 0..opened {
        l.em.close(func.span);
    }
    let mut header = dialect.header;
    header.append(&mut l.locals);
    let mut all_params = params;
    if l.data > 0 {
        all_params.push(format!("data: T.Buffer(({},), \"int32\")", l.data));
    }
    all_params.extend(scalars);
    Ok(crate::finish_func(&name, func.span, all_params, header, l))
}
