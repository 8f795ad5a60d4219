//! A generator of N-D buffer programs for the lowering passes' property tests, written as
//! TVMScript text (so a failing case prints as a file that reproduces it).
//!
//! Programs read a 2-D input `A` and write a 2-D output `B` (each compact, row-padded or
//! column-major, with an element offset) and a 1-D `O`, through loops that are vectorized
//! (whole rows, or split 4-wide), serial, or made of S-TIR blocks (with `T.where`, reduction
//! blocks with `T.init`), optionally staged through a scratch buffer with async copies. Some
//! vectorized loops cannot be vectorized (a varying `if`, a shifted dependence, a non-affine
//! index) and must come out serial.
//!
//! Invariants: every program parses, checks and runs without a fault (every index is in
//! bounds, every scratch element is written before it is read in the same row, every async
//! group is waited before its data is read); the same bytes always give the same program.

use arbitrary::{Result, Unstructured};

/// The dimensions of a generated program.
struct Dims {
    rows: i64,
    cols: i64,
}

/// A 2-D float32 buffer declaration with a random layout.
fn layout(u: &mut Unstructured<'_>, name: &str, d: &Dims) -> Result<String> {
    let shape = format!("({}, {})", d.rows, d.cols);
    let offset = *u.choose(&[0i64, 2, 4, 8])?;
    Ok(match u.int_in_range(0..=2)? {
        0 => format!("{name}: T.Buffer({shape}, \"float32\")"),
        1 => {
            let pad = *u.choose(&[0i64, 1, 4])?;
            format!("{name}: T.Buffer({shape}, \"float32\", strides=({}, 1), elem_offset={offset})", d.cols + pad)
        }
        _ => {
            let pad = *u.choose(&[0i64, 3])?;
            format!("{name}: T.Buffer({shape}, \"float32\", strides=(1, {}), elem_offset={offset})", d.rows + pad)
        }
    })
}

/// A float32 expression of row `r` and column `c` (both names of int32 expressions).
fn value(u: &mut Unstructured<'_>, d: &Dims, r: &str, c: &str, depth: u32) -> Result<String> {
    let leaf = depth == 0 || u.ratio(1, 3)?;
    if leaf {
        return Ok(match u.int_in_range(0..=4)? {
            0 | 1 => format!("A[{r}, {c}]"),
            2 => format!("A[{r}, ({c} * 3 + 1) % {}]", d.cols),
            3 => format!("T.float32({}.5)", u.int_in_range(0..=9)?),
            _ => format!("T.Cast(\"float32\", {c} + {r} * 2)"),
        });
    }
    let (a, b) = (value(u, d, r, c, depth - 1)?, value(u, d, r, c, depth - 1)?);
    Ok(match u.int_in_range(0..=5)? {
        0 => format!("({a} + {b})"),
        1 => format!("({a} * {b})"),
        2 => format!("({a} - {b})"),
        3 => format!("T.max({a}, {b})"),
        4 => format!("T.Select({c} < {}, {a}, {b})", u.int_in_range(1..=d.cols)?),
        _ => format!("T.if_then_else({r} < 1, {a}, {b})"),
    })
}

/// Lines of a program body, with indentation.
struct Body {
    lines: Vec<String>,
    blocks: bool,
    scratch: bool,
}

impl Body {
    fn line(&mut self, depth: usize, text: impl AsRef<str>) {
        self.lines.push(format!("{}{}", "    ".repeat(depth), text.as_ref()));
    }
}

/// One top-level statement (a loop nest over the rows).
fn statement(u: &mut Unstructured<'_>, d: &Dims, out: &mut Body) -> Result<()> {
    let (rows, cols) = (d.rows, d.cols);
    match u.int_in_range(0..=8)? {
        0 => {
            let min = u.int_in_range(0..=1)?;
            out.line(1, format!("for r in range({rows}):"));
            out.line(2, format!("for c in T.vectorized({min}, {cols}):"));
            let v = value(u, d, "r", "c", 2)?;
            out.line(3, format!("B[r, c] = {v}"));
        }
        1 => {
            out.line(1, format!("for r in range({rows}):"));
            out.line(2, format!("for co in range({}):", cols / 4));
            out.line(3, "for ci in T.vectorized(4):");
            let v = value(u, d, "r", "(co * 4 + ci)", 2)?;
            out.line(4, format!("B[r, co * 4 + ci] = {v}"));
        }
        2 => {
            out.scratch = true;
            out.line(1, format!("for r in range({rows}):"));
            out.line(2, format!("for c in T.vectorized({cols}):"));
            let v = value(u, d, "r", "c", 1)?;
            out.line(3, format!("S[r, c] = {v}"));
            out.line(2, format!("for c in T.vectorized({cols}):"));
            let v = value(u, d, "r", "c", 1)?;
            out.line(3, format!("B[r, c] = S[r, c] * T.float32(2.0) + {v}"));
        }
        3 => {
            out.line(1, format!("for r in range({rows}):"));
            out.line(2, format!("for c in T.vectorized({cols}):"));
            let v = value(u, d, "r", "c", 1)?;
            out.line(3, format!("B[r, c] = B[r, c] + {v}"));
        }
        4 => blocked_loop(u, d, out)?,
        5 | 6 => block_nest(u, d, out)?,
        7 => {
            out.blocks = true;
            out.line(1, format!("for r, k in T.grid({rows}, {cols}):"));
            out.line(2, "with T.sblock(\"red\"):");
            out.line(3, format!("vr = T.axis.spatial({rows}, r)"));
            out.line(3, format!("vk = T.axis.reduce({cols}, k)"));
            out.line(3, "with T.init():");
            out.line(4, "O[vr] = T.float32(0.0)");
            out.line(3, "O[vr] = O[vr] + A[vr, vk]");
        }
        _ => {
            out.scratch = true;
            out.line(1, format!("for r in range({rows}):"));
            out.line(2, "with T.attr({\"async_commit_queue_scope\": 0}):");
            out.line(3, format!("for c in T.vectorized({cols}):"));
            out.line(4, "with T.attr({\"async_scope\": 1}):");
            let v = value(u, d, "r", "c", 1)?;
            out.line(5, format!("S[r, c] = {v}"));
            out.line(2, "with T.attr({\"async_wait_queue_scope\": 0, \"async_wait_inflight_count\": 0}):");
            out.line(3, format!("for c in T.vectorized({cols}):"));
            out.line(4, "B[r, c] = S[r, c]");
        }
    }
    Ok(())
}

/// A vectorized loop the pass must leave serial.
fn blocked_loop(u: &mut Unstructured<'_>, d: &Dims, out: &mut Body) -> Result<()> {
    let (rows, cols) = (d.rows, d.cols);
    out.line(1, format!("for r in range({rows}):"));
    match u.int_in_range(0..=2)? {
        0 => {
            out.line(2, format!("for c in T.vectorized({cols}):"));
            out.line(3, format!("if c < {}:", u.int_in_range(1..=cols)?));
            let v = value(u, d, "r", "c", 1)?;
            out.line(4, format!("B[r, c] = {v}"));
        }
        1 => {
            out.line(2, format!("for c in T.vectorized({}):", cols - 1));
            out.line(3, "B[r, c + 1] = B[r, c] + T.float32(1.0)");
        }
        _ => {
            out.line(2, format!("for c in T.vectorized({cols}):"));
            let v = value(u, d, "r", "c", 1)?;
            out.line(3, format!("B[r, (c + 1) % {cols}] = {v}"));
        }
    }
    Ok(())
}

/// A loop nest whose statement is an S-TIR block, vectorized or serial, maybe predicated.
fn block_nest(u: &mut Unstructured<'_>, d: &Dims, out: &mut Body) -> Result<()> {
    out.blocks = true;
    let (rows, cols) = (d.rows, d.cols);
    let kind = if u.arbitrary()? { format!("T.vectorized({cols})") } else { format!("range({cols})") };
    out.line(1, format!("for r in range({rows}):"));
    out.line(2, format!("for c in {kind}:"));
    out.line(3, "with T.sblock(\"elem\"):");
    out.line(4, format!("vr = T.axis.spatial({rows}, r)"));
    out.line(4, format!("vc = T.axis.spatial({cols}, c)"));
    if u.ratio(1, 3)? {
        out.line(4, format!("T.where(c < {})", u.int_in_range(1..=cols)?));
    }
    let v = value(u, d, "vr", "vc", 2)?;
    out.line(4, format!("B[vr, vc] = {v}"));
    Ok(())
}

/// A random program as TVMScript text.
pub fn nd_program(u: &mut Unstructured<'_>) -> Result<String> {
    let d = Dims { rows: u.int_in_range(1..=3)?, cols: *u.choose(&[4i64, 8])? };
    let a = layout(u, "A", &d)?;
    let b = layout(u, "B", &d)?;
    let mut body = Body { lines: Vec::new(), blocks: false, scratch: false };
    for _ in 0..u.int_in_range(1..=3)? {
        statement(u, &d, &mut body)?;
    }
    let decorator = if body.blocks { "@T.prim_func(s_tir=True)" } else { "@T.prim_func" };
    let mut text = format!("{decorator}\ndef main({a}, {b}, O: T.Buffer(({},), \"float32\")):\n", d.rows);
    if body.scratch {
        let scope = *u.choose(&["shared", "local"])?;
        text.push_str(&format!("    S = T.alloc_buffer(({}, {}), \"float32\", scope=\"{scope}\")\n", d.rows, d.cols));
    }
    for line in &body.lines {
        text.push_str(line);
        text.push('\n');
    }
    Ok(text)
}
