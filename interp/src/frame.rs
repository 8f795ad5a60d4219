//! Per-thread variable frames and evaluated buffer layouts.
//!
//! The compiler resolves every variable to a slot: scalar slots hold canonical bits, vector
//! slots hold one canonical scalar per lane, data slots hold the index of the storage a data
//! variable points to (`NO_STORAGE` when none). A buffer's layout (shape, strides, offset) is
//! evaluated once where the buffer is declared, so accesses only do index arithmetic.
//! Threads of a block start from a copy of the frame of the code that launched them.

use tirproof_machine::value::Num;

/// A data slot that points at no storage.
pub(crate) const NO_STORAGE: u32 = u32::MAX;

/// A buffer's evaluated layout over a storage.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Layout {
    /// The data slot of the storage.
    pub(crate) data: u32,
    /// Kind of the buffer's lanes.
    pub(crate) num: Num,
    /// Lanes of the buffer's element type (M in "an N-lane index yields N*M lanes").
    pub(crate) lanes: i64,
    pub(crate) shape: Vec<i64>,
    /// Strides in elements of the buffer's type (compact row-major when not given).
    pub(crate) strides: Vec<i64>,
    pub(crate) elem_offset: i64,
    /// The storage's kind when it differs from `num` (an alias reinterpreting the bits).
    pub(crate) storage_num: Option<Num>,
    /// `(extent, stride)` of a one-dimensional layout, kept inline for the fast path.
    dim1: Option<(i64, i64)>,
}

impl Layout {
    /// Builds a layout; `strides` empty means compact row-major. `None` on overflow.
    pub(crate) fn new(
        data: u32,
        num: Num,
        lanes: i64,
        shape: Vec<i64>,
        strides: Vec<i64>,
        elem_offset: i64,
    ) -> Option<Layout> {
        let strides = if strides.is_empty() {
            let mut out = vec![0i64; shape.len()];
            let mut acc = 1i64;
            for (k, extent) in shape.iter().enumerate().rev() {
                out[k] = acc;
                acc = acc.checked_mul((*extent).max(0))?;
            }
            out
        } else {
            strides
        };
        let dim1 = match (&shape[..], &strides[..]) {
            ([extent], [stride]) => Some((*extent, *stride)),
            _ => None,
        };
        Some(Layout { data, num, lanes, shape, strides, elem_offset, storage_num: None, dim1 })
    }

    /// The scalar offset of the first lane of element `idx`, or `None` when an index is
    /// outside its dimension (or the arithmetic overflows).
    #[inline]
    pub(crate) fn scalar_offset(&self, idx: &[i64]) -> Option<i64> {
        if let (Some((extent, stride)), [i]) = (self.dim1, idx) {
            // One dimension, the common case after flattening.
            if *i < 0 || *i >= extent {
                return None;
            }
            return self.elem_offset.checked_add(i.checked_mul(stride)?)?.checked_mul(self.lanes);
        }
        let mut off = self.elem_offset;
        for ((i, extent), stride) in idx.iter().zip(&self.shape).zip(&self.strides) {
            if *i < 0 || *i >= *extent {
                return None;
            }
            off = off.checked_add(i.checked_mul(*stride)?)?;
        }
        off.checked_mul(self.lanes)
    }

    /// How many scalar elements a storage needs to hold every element of this layout.
    pub(crate) fn storage_len(&self) -> Option<i64> {
        if self.shape.iter().any(|e| *e <= 0) {
            return Some(0);
        }
        let mut last = self.elem_offset;
        for (extent, stride) in self.shape.iter().zip(&self.strides) {
            last = last.checked_add((extent - 1).checked_mul(*stride)?)?;
        }
        last.checked_add(1)?.checked_mul(self.lanes)
    }

    /// Whether the layout is compact row-major from element 0 (so a tensor of the buffer's
    /// shape describes its storage exactly).
    pub(crate) fn is_compact(&self) -> bool {
        match Layout::new(self.data, self.num, self.lanes, self.shape.clone(), Vec::new(), 0) {
            Some(compact) => compact.strides == self.strides && self.elem_offset == 0,
            None => false,
        }
    }
}

/// The variables of one thread.
#[derive(Clone, Debug, Default)]
pub(crate) struct Frame {
    pub(crate) scalars: Vec<u64>,
    pub(crate) vectors: Vec<Vec<u64>>,
    pub(crate) data: Vec<u32>,
    pub(crate) layouts: Vec<Option<Layout>>,
    /// Where the thread last made a token of each (queue, group): what a token fault names.
    pub(crate) token_lines: std::collections::HashMap<(i64, i64), u32>,
}

impl Frame {
    pub(crate) fn new(scalars: usize, vectors: usize, data: usize, buffers: usize) -> Frame {
        Frame {
            scalars: vec![0; scalars],
            vectors: vec![Vec::new(); vectors],
            data: vec![NO_STORAGE; data],
            layouts: vec![None; buffers],
            token_lines: std::collections::HashMap::new(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn compact_row_major_offsets() {
        let l = Layout::new(0, Num::F32, 1, vec![2, 3], Vec::new(), 0).unwrap();
        assert_eq!(l.strides, vec![3, 1]);
        assert_eq!(l.scalar_offset(&[1, 2]), Some(5));
        assert_eq!(l.scalar_offset(&[2, 0]), None);
        assert_eq!(l.scalar_offset(&[0, -1]), None);
        assert_eq!(l.storage_len(), Some(6));
        assert!(l.is_compact());
    }

    #[test]
    fn vector_elements_and_offsets_count_scalars() {
        let l = Layout::new(0, Num::F32, 4, vec![4], Vec::new(), 1).unwrap();
        assert_eq!(l.scalar_offset(&[2]), Some(12));
        assert_eq!(l.storage_len(), Some(20));
        assert!(!l.is_compact());
    }

    #[test]
    fn explicit_strides() {
        let l = Layout::new(0, Num::F32, 1, vec![2, 2], vec![8, 2], 0).unwrap();
        assert_eq!(l.scalar_offset(&[1, 1]), Some(10));
        assert_eq!(l.storage_len(), Some(11));
    }
}
