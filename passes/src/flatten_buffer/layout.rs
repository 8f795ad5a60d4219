//! The physical layout of one buffer: its flattened 1-D alias and the map from N-D indices to
//! the flat index.
//!
//! The flat index of `B[i_0, ..., i_k]` is `elem_offset + sum(i_d * stride_d)`, with the
//! buffer's explicit strides or, when it has none, compact row-major ones. The alias has the
//! same name, data variable, element type and scope, no strides, offset 0, and one dimension
//! spanning every element the layout can reach (`elem_offset + sum((extent_d - 1) *
//! stride_d) + 1`, which is `elem_offset + prod(shape)` for compact layouts) — exactly the
//! storage the interpreter gives such a layout, so in-bounds accesses stay in bounds.
//!
//! Invariants: a vector index only in the last dimension (docs/buffers-and-lanes.md); a Ramp there
//! stays a Ramp (base = the flat base, stride = its stride times the last stride); any other
//! vector index becomes `Broadcast(base) + index * Broadcast(stride)`. All index arithmetic is
//! done in one integer type, the widest of the layout's and the indices' types.

use tirproof_ir::index_arith::{add, const_int, convert, imm, mul, product, wider};
use tirproof_ir::{Buffer, BufferSpec, DataType, Expr};

/// How one buffer's accesses are flattened.
#[derive(Clone, Debug)]
pub(super) struct FlatLayout {
    /// The 1-D buffer over the same data.
    pub flat: Buffer,
    strides: Vec<Expr>,
    elem_offset: Expr,
    /// The integer type of the layout's own expressions.
    dtype: DataType,
}

/// With constant extents, strides and offset: the last element the layout reaches, computed
/// exactly, must be indexable in `dtype`; otherwise the flat extent would wrap (a stride near
/// `2^63` gave a negative one) and the flattened program would address other memory.
fn check_reach(shape: &[Expr], strides: &[Expr], elem_offset: &Expr, dtype: DataType) -> Result<(), String> {
    let Some(offset) = const_int(elem_offset) else { return Ok(()) };
    let mut last = i128::from(offset);
    for (extent, stride) in shape.iter().zip(strides) {
        let (Some(extent), Some(stride)) = (const_int(extent), const_int(stride)) else { return Ok(()) };
        if extent <= 0 {
            return Ok(());
        }
        last += i128::from(extent - 1) * i128::from(stride);
    }
    let most = (1i128 << (dtype.bits.clamp(1, 64) - 1)) - 1;
    if last + 1 > most {
        return Err(format!(
            "its layout reaches element {last} (elem_offset + sum((extent - 1) * stride)), which {dtype} cannot index"
        ));
    }
    if last < 0 {
        return Err(format!("its layout reaches element {last}, before the start of its storage"));
    }
    Ok(())
}

/// Whether `buffer` is already physical: one dimension, unit stride, offset 0.
pub(super) fn is_flat(buffer: &Buffer) -> bool {
    let unit_strides = match buffer.strides() {
        [] => true,
        [s] => const_int(s) == Some(1),
        _ => false,
    };
    buffer.shape().len() == 1 && unit_strides && const_int(buffer.elem_offset()) == Some(0)
}

impl FlatLayout {
    /// The layout of `buffer`, or why it cannot be flattened.
    pub(super) fn of(buffer: &Buffer) -> Result<FlatLayout, String> {
        let shape = buffer.shape();
        let explicit = buffer.strides();
        if !explicit.is_empty() && explicit.len() != shape.len() {
            let strides =
                if explicit.len() == 1 { "1 stride".to_string() } else { format!("{} strides", explicit.len()) };
            return Err(format!("it has {strides} for {} dimensions", shape.len()));
        }
        let mut dtype = DataType::INT32;
        for e in shape.iter().chain(explicit).chain(std::iter::once(buffer.elem_offset())) {
            let t = e.dtype();
            if !(t.is_integer() && t.is_scalar()) {
                return Err(format!("its shape, strides or offset has the non-integer type {t}"));
            }
            dtype = wider(dtype, t);
        }
        let strides: Vec<Expr> = if explicit.is_empty() {
            (0..shape.len()).map(|d| product(shape[d + 1..].iter().cloned(), dtype)).collect()
        } else {
            explicit.iter().map(|s| convert(s.clone(), dtype)).collect()
        };
        let elem_offset = convert(buffer.elem_offset().clone(), dtype);
        check_reach(shape, &strides, &elem_offset, dtype)?;
        let len = if explicit.is_empty() {
            add(elem_offset.clone(), product(shape.iter().cloned(), dtype))
        } else {
            let reach = shape.iter().zip(&strides).fold(elem_offset.clone(), |acc, (extent, stride)| {
                let last = add(convert(extent.clone(), dtype), imm(-1, dtype));
                add(acc, mul(last, stride.clone()))
            });
            add(reach, imm(1, dtype))
        };
        let mut spec: BufferSpec = buffer.to_spec();
        spec.shape = vec![len];
        spec.strides = Vec::new();
        spec.elem_offset = Expr::int(0);
        Ok(FlatLayout { flat: spec.build(), strides, elem_offset, dtype })
    }

    /// The flat index of an access with `indices`, or why it cannot be flattened.
    pub(super) fn index(&self, indices: &[Expr]) -> Result<Expr, String> {
        if indices.len() != self.strides.len() {
            return Err(format!("{} indices for {} dimensions", indices.len(), self.strides.len()));
        }
        let t = indices.iter().fold(self.dtype, |acc, i| wider(acc, i.dtype()));
        let Some((last, leading)) = indices.split_last() else {
            return Ok(convert(self.elem_offset.clone(), t));
        };
        let mut base = convert(self.elem_offset.clone(), t);
        for (d, (index, stride)) in leading.iter().zip(&self.strides).enumerate() {
            if index.dtype().is_vector() {
                return Err(format!("index {d} is a vector; only the last index may be one"));
            }
            base = add(base, mul(convert(index.clone(), t), convert(stride.clone(), t)));
        }
        let stride = convert(self.strides[leading.len()].clone(), t);
        Ok(last_index(base, last, stride, t))
    }
}

/// `base + last * stride`, keeping a Ramp a Ramp.
fn last_index(base: Expr, last: &Expr, stride: Expr, t: DataType) -> Expr {
    let lanes = last.dtype().lanes;
    if lanes == 1 {
        return add(base, mul(convert(last.clone(), t), stride));
    }
    if let Expr::Ramp { base: b, stride: s, lanes } = last {
        let b = convert((**b).clone(), t);
        let s = convert((**s).clone(), t);
        return Expr::ramp(add(base, mul(b, stride.clone())), mul(s, stride), *lanes);
    }
    let vector = t.with_lanes(lanes);
    let mut index = if last.dtype() == vector { last.clone() } else { Expr::cast(vector, last.clone()) };
    if const_int(&stride) != Some(1) {
        index = index * Expr::broadcast(stride, lanes);
    }
    if const_int(&base) != Some(0) {
        index = Expr::broadcast(base, lanes) + index;
    }
    index
}

#[cfg(test)]
mod tests {
    use super::*;
    use tirproof_ir::Var;

    fn buffer(shape: &[i64], strides: &[i64], offset: i64) -> Buffer {
        let mut spec = BufferSpec::new("A", DataType::FLOAT32, shape.iter().map(|d| Expr::int(*d)).collect(), "global");
        spec.strides = strides.iter().map(|s| Expr::int(*s)).collect();
        spec.elem_offset = Expr::int(offset);
        spec.build()
    }

    #[test]
    fn compact_layouts_are_row_major() {
        let l = FlatLayout::of(&buffer(&[16, 32], &[], 0)).unwrap();
        assert_eq!(l.flat.shape(), &[Expr::int(512)]);
        let i = Var::new("i", DataType::INT32);
        let idx = l.index(&[Expr::var(&i), Expr::int(3)]).unwrap();
        assert_eq!(idx, Expr::var(&i) * Expr::int(32) + Expr::int(3));
    }

    #[test]
    fn strides_and_offsets_are_honoured() {
        let l = FlatLayout::of(&buffer(&[4, 4], &[1, 8], 5)).unwrap();
        // The last element is 5 + 3*1 + 3*8 = 32, so 33 elements are reachable.
        assert_eq!(l.flat.shape(), &[Expr::int(33)]);
        assert_eq!(l.index(&[Expr::int(2), Expr::int(1)]).unwrap(), Expr::int(15));
    }

    #[test]
    fn ramps_stay_ramps() {
        let l = FlatLayout::of(&buffer(&[4, 8], &[], 0)).unwrap();
        let idx = l.index(&[Expr::int(1), Expr::ramp(Expr::int(4), Expr::int(1), 4)]).unwrap();
        assert_eq!(idx, Expr::ramp(Expr::int(12), Expr::int(1), 4));
        let strided = FlatLayout::of(&buffer(&[8, 4], &[1, 8], 0)).unwrap();
        let idx = strided.index(&[Expr::int(1), Expr::ramp(Expr::int(0), Expr::int(1), 4)]).unwrap();
        assert_eq!(idx, Expr::ramp(Expr::int(1), Expr::int(8), 4));
    }

    #[test]
    fn refuses_vectors_outside_the_last_dimension() {
        let l = FlatLayout::of(&buffer(&[4, 8], &[], 0)).unwrap();
        let err = l.index(&[Expr::ramp(Expr::int(0), Expr::int(1), 4), Expr::int(0)]).unwrap_err();
        assert!(err.contains("index 0 is a vector"), "{err}");
        assert!(FlatLayout::of(&buffer(&[4, 8], &[1], 0)).is_err());
    }
}
