//! The emulator's encoding of a tensor map (`CUtensorMap`): 128 bytes that PTX treats as
//! opaque, written field by field by `tensormap.replace` (or by the launch, for a host map)
//! and read by `cp.async.bulk.tensor`. The layout is ours (the hardware's is undocumented),
//! little-endian:
//!
//! | bytes    | field                                                        |
//! |----------|--------------------------------------------------------------|
//! | 0..8     | `global_address`                                             |
//! | 8..12    | `rank` (the rank minus 1, as `tensormap.replace` writes it)  |
//! | 12..16   | `elemtype` (the PTX ISA's numbering: 6 is `.f16`, 7 `.f32`)  |
//! | 16..36   | `global_dim[0..5]`, 4 bytes each                             |
//! | 40..72   | `global_stride[0..4]`, 8 bytes each, in bytes (of dimension ordinal + 1) |
//! | 72..92   | `box_dim[0..5]`, 4 bytes each                                |
//! | 92..112  | `element_stride[0..5]`, 4 bytes each                         |
//! | 112..116 | `interleave_layout`, `swizzle_mode`, `swizzle_atomicity`, `fill_mode`, 1 byte each |
//! | 116..120 | the set of fields written (one bit per field and ordinal, `bit`); bit 31: `RELOCATE` |
//!
//! A host tensor map (a `.param .align 64 .b8 name[128]` argument, `HostTensorMap`) cannot know
//! the address the emulator gives its buffer: it holds the buffer parameter's index in
//! `global_address` and sets `RELOCATE`, and the launch writes the address there.
//! A zeroed map has no field set (Triton zeroes the 128 bytes before replacing fields). A
//! copy needs the address, the rank, the element type and, per dimension, the extent, the box
//! and the element stride, and the byte stride of every dimension but the first; one of these
//! never set is an error naming it. The layout, swizzle, atomicity and fill fields read 0 when
//! unset, which is their default (no interleave, no swizzle, zero fill).
//!
//! Invariants: `TensorMap::decode` accepts only maps the copy model supports (rank 1-5,
//! element stride 1, no interleave, zero fill, a swizzle whose span equals the box's inner
//! row when there is one); anything else is a `MapError` saying what.

use crate::module::TensormapField;

/// Bytes of a tensor map.
pub(super) const MAP_BYTES: u64 = 128;
/// Where the set of written fields lives.
const SET_OFFSET: u64 = 116;
/// The set-word bit of a host map whose `global_address` is a parameter index to relocate.
pub(super) const RELOCATE: u32 = 1 << 31;

/// A tensor map the host passes by value, as a launch describes it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct HostTensorMap {
    /// The index of the buffer parameter the map describes.
    pub buffer_param: u32,
    /// The PTX ISA's element type number (`tensormap.replace.tile.elemtype`: 6 is `.f16`).
    pub elemtype: u32,
    /// Extents, dimension 0 (contiguous) first; 1 to 5 of them.
    pub dims: Vec<u64>,
    /// Byte strides of dimensions 1.. (one fewer than `dims`).
    pub strides: Vec<u64>,
    /// The box, as `dims`.
    pub box_dims: Vec<u64>,
    /// Swizzle span in bytes: 0 (none), 32, 64 or 128.
    pub swizzle: u32,
}

impl HostTensorMap {
    /// The 128 bytes of the map in the emulator's encoding, its address to relocate.
    pub fn encode(&self) -> Result<[u8; 128], String> {
        let rank = self.dims.len();
        if !(1..=5).contains(&rank) || self.box_dims.len() != rank || self.strides.len() + 1 != rank {
            return Err(format!(
                "a tensor map of {rank} dimensions needs as many box dimensions ({} given) and one stride fewer ({} given)",
                self.box_dims.len(),
                self.strides.len()
            ));
        }
        let swizzle = match self.swizzle {
            0 => 0,
            32 => 1,
            64 => 2,
            128 => 3,
            other => return Err(format!("a swizzle of {other} bytes (0, 32, 64 or 128)")),
        };
        let mut bytes = [0u8; 128];
        let mut set = RELOCATE;
        let mut put = |field: TensormapField, ordinal: u32, value: u64| {
            let (offset, width) = field_place(field, ordinal);
            for k in 0..width {
                bytes[(offset + k) as usize] = (value >> (8 * k)) as u8;
            }
            set |= bit(field, ordinal);
        };
        put(TensormapField::GlobalAddress, 0, u64::from(self.buffer_param));
        put(TensormapField::Rank, 0, rank as u64 - 1);
        put(TensormapField::Elemtype, 0, u64::from(self.elemtype));
        for d in 0..rank {
            let ordinal = d as u32;
            put(TensormapField::GlobalDim, ordinal, self.dims[d]);
            put(TensormapField::BoxDim, ordinal, self.box_dims[d]);
            put(TensormapField::ElementStride, ordinal, 1);
            if d > 0 {
                put(TensormapField::GlobalStride, ordinal - 1, self.strides[d - 1]);
            }
        }
        put(TensormapField::SwizzleMode, 0, swizzle);
        for k in 0..4 {
            bytes[(SET_OFFSET + k) as usize] = (set >> (8 * k)) as u8;
        }
        Ok(bytes)
    }
}

/// Where a field (of dimension `ordinal` for per-dimension fields) lives: byte offset, width.
pub(super) fn field_place(field: TensormapField, ordinal: u32) -> (u64, u64) {
    let k = u64::from(ordinal);
    match field {
        TensormapField::GlobalAddress => (0, 8),
        TensormapField::Rank => (8, 4),
        TensormapField::Elemtype => (12, 4),
        TensormapField::GlobalDim => (16 + 4 * k, 4),
        TensormapField::GlobalStride => (40 + 8 * k, 8),
        TensormapField::BoxDim => (72 + 4 * k, 4),
        TensormapField::ElementStride => (92 + 4 * k, 4),
        TensormapField::InterleaveLayout => (112, 1),
        TensormapField::SwizzleMode => (113, 1),
        TensormapField::SwizzleAtomicity => (114, 1),
        TensormapField::FillMode => (115, 1),
    }
}

/// The bit of the set-of-fields word that says `field` (of `ordinal`) was written.
pub(super) fn bit(field: TensormapField, ordinal: u32) -> u32 {
    let k = ordinal.min(4);
    match field {
        TensormapField::GlobalAddress => 1,
        TensormapField::Rank => 1 << 1,
        TensormapField::Elemtype => 1 << 2,
        TensormapField::GlobalDim => 1 << (3 + k),
        TensormapField::GlobalStride => 1 << (8 + k.min(3)),
        TensormapField::BoxDim => 1 << (12 + k),
        TensormapField::ElementStride => 1 << (17 + k),
        TensormapField::InterleaveLayout => 1 << 22,
        TensormapField::SwizzleMode => 1 << 23,
        TensormapField::SwizzleAtomicity => 1 << 24,
        TensormapField::FillMode => 1 << 25,
    }
}

/// The byte offset of the set-of-fields word.
pub(super) fn set_offset() -> u64 {
    SET_OFFSET
}

/// How a box is laid out in shared memory: 16-byte chunks of each 128-byte line permuted by
/// the line's index (the PTX ISA's swizzle modes).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Swizzle {
    None,
    B32,
    B64,
    B128,
}

impl Swizzle {
    /// The span in bytes (0 for none).
    pub(super) fn span(self) -> u64 {
        match self {
            Swizzle::None => 0,
            Swizzle::B32 => 32,
            Swizzle::B64 => 64,
            Swizzle::B128 => 128,
        }
    }

    /// The shared address a byte at the unswizzled address `addr` lands at: bits 4.. of the
    /// 16-byte chunk XORed with bits 7.. of the address (1, 2 or 3 bits for 32, 64, 128 bytes).
    pub(super) fn apply(self, addr: u64) -> u64 {
        let mask = match self {
            Swizzle::None => return addr,
            Swizzle::B32 => 1,
            Swizzle::B64 => 3,
            Swizzle::B128 => 7,
        };
        addr ^ (((addr >> 7) & mask) << 4)
    }
}

/// A decoded tensor map.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct TensorMap {
    pub address: u64,
    pub rank: usize,
    /// Bytes of one element.
    pub element: u64,
    pub dims: [u64; 5],
    /// Bytes between consecutive indices of each dimension (`strides[0]` is the element).
    pub strides: [u64; 5],
    pub box_dims: [u64; 5],
    pub swizzle: Swizzle,
}

/// Why a tensor map cannot drive a copy.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub(super) enum MapError {
    #[error("the tensor map's {0} was never set (tensormap.replace or the launch must set it)")]
    Unset(String),
    #[error("the tensor map is invalid: {0}")]
    Invalid(String),
    #[error("{0}")]
    Unsupported(String),
}

fn le(bytes: &[u8; 128], offset: u64, width: u64) -> u64 {
    let start = offset as usize;
    bytes[start..start + width as usize].iter().rev().fold(0u64, |acc, b| acc << 8 | u64::from(*b))
}

/// Bytes of an element of the ISA's element type `code`.
fn element_bytes(code: u64) -> Result<u64, MapError> {
    Ok(match code {
        0 => 1,
        1 | 6 | 10 => 2,
        2 | 3 | 7 | 8 | 11 | 12 => 4,
        4 | 5 | 9 => 8,
        13..=15 => return Err(MapError::Unsupported(format!("packed sub-byte element type {code}"))),
        _ => return Err(MapError::Invalid(format!("element type {code}"))),
    })
}

impl TensorMap {
    /// Decodes the 128 bytes of a map.
    pub(super) fn decode(bytes: &[u8; 128]) -> Result<TensorMap, MapError> {
        let set = le(bytes, SET_OFFSET, 4) as u32;
        if set & RELOCATE != 0 {
            return Err(MapError::Invalid("a host map whose buffer the launch did not relocate".into()));
        }
        let get = |field: TensormapField, ordinal: u32| -> Result<u64, MapError> {
            if set & bit(field, ordinal) == 0 {
                let dim = if field.has_ordinal() { format!(" of dimension {ordinal}") } else { String::new() };
                return Err(MapError::Unset(format!("{}{dim}", field.name())));
            }
            let (offset, width) = field_place(field, ordinal);
            Ok(le(bytes, offset, width))
        };
        let optional = |field: TensormapField| {
            let (offset, width) = field_place(field, 0);
            le(bytes, offset, width)
        };
        let address = get(TensormapField::GlobalAddress, 0)?;
        let rank = get(TensormapField::Rank, 0)? as usize + 1;
        if rank > 5 {
            return Err(MapError::Invalid(format!("rank {rank} (at most 5)")));
        }
        let element = element_bytes(get(TensormapField::Elemtype, 0)?)?;
        let mut map = TensorMap {
            address,
            rank,
            element,
            dims: [1; 5],
            strides: [element; 5],
            box_dims: [1; 5],
            swizzle: Swizzle::None,
        };
        for d in 0..rank {
            let ordinal = d as u32;
            map.dims[d] = get(TensormapField::GlobalDim, ordinal)?;
            map.box_dims[d] = get(TensormapField::BoxDim, ordinal)?;
            if d > 0 {
                map.strides[d] = get(TensormapField::GlobalStride, ordinal - 1)?;
            }
            let element_stride = get(TensormapField::ElementStride, ordinal)?;
            if element_stride != 1 {
                return Err(MapError::Unsupported(format!("an element stride of {element_stride} (only 1)")));
            }
            if map.box_dims[d] == 0 || map.box_dims[d] > 256 {
                return Err(MapError::Invalid(format!("box dimension {d} of {} (1 to 256)", map.box_dims[d])));
            }
        }
        if optional(TensormapField::InterleaveLayout) != 0 {
            return Err(MapError::Unsupported("an interleaved layout".into()));
        }
        if optional(TensormapField::FillMode) != 0 {
            return Err(MapError::Unsupported("a fill mode other than zero".into()));
        }
        map.swizzle = match optional(TensormapField::SwizzleMode) {
            0 => Swizzle::None,
            1 => Swizzle::B32,
            2 => Swizzle::B64,
            3 => Swizzle::B128,
            other => return Err(MapError::Unsupported(format!("swizzle mode {other}"))),
        };
        let row = map.box_dims[0] * map.element;
        if map.swizzle != Swizzle::None && row != map.swizzle.span() {
            return Err(MapError::Unsupported(format!(
                "a box row of {row} bytes with a {}-byte swizzle (only rows of the swizzle's span)",
                map.swizzle.span()
            )));
        }
        if !row.is_multiple_of(16) {
            return Err(MapError::Invalid(format!("a box row of {row} bytes (a multiple of 16)")));
        }
        Ok(map)
    }

    /// Bytes of one box in shared memory.
    pub(super) fn box_bytes(&self) -> u64 {
        self.box_dims[..self.rank].iter().product::<u64>() * self.element
    }

    /// For each element of the box at `coords` in order (dimension 0 fastest): its offset in
    /// the box (before swizzling) and its global address, `None` when out of the tensor.
    pub(super) fn elements(&self, coords: &[i64]) -> Vec<(u64, Option<u64>)> {
        let count: u64 = self.box_dims[..self.rank].iter().product();
        let mut out = Vec::with_capacity(count as usize);
        for linear in 0..count {
            let mut rest = linear;
            let mut address = Some(self.address);
            for d in 0..self.rank {
                let index = (rest % self.box_dims[d]) as i64;
                rest /= self.box_dims[d];
                let g = coords.get(d).copied().unwrap_or(0).saturating_add(index);
                address = match address {
                    Some(a) if g >= 0 && (g as u64) < self.dims[d] => {
                        Some(a.wrapping_add((g as u64).wrapping_mul(self.strides[d])))
                    }
                    _ => None,
                };
            }
            out.push((linear * self.element, address));
        }
        out
    }

    /// The 128 bytes of a map with every field the copy needs set (a host map of a launch).
    #[cfg(test)]
    pub(super) fn encode(&self, elemtype: u32) -> [u8; 128] {
        let mut bytes = [0u8; 128];
        let mut put = |field: TensormapField, ordinal: u32, value: u64, set: &mut u32| {
            let (offset, width) = field_place(field, ordinal);
            for k in 0..width {
                bytes[(offset + k) as usize] = (value >> (8 * k)) as u8;
            }
            *set |= bit(field, ordinal);
        };
        let mut set = 0u32;
        put(TensormapField::GlobalAddress, 0, self.address, &mut set);
        put(TensormapField::Rank, 0, self.rank.saturating_sub(1) as u64, &mut set);
        put(TensormapField::Elemtype, 0, u64::from(elemtype), &mut set);
        for d in 0..self.rank {
            let ordinal = d as u32;
            put(TensormapField::GlobalDim, ordinal, self.dims[d], &mut set);
            put(TensormapField::BoxDim, ordinal, self.box_dims[d], &mut set);
            put(TensormapField::ElementStride, ordinal, 1, &mut set);
            if d > 0 {
                put(TensormapField::GlobalStride, ordinal - 1, self.strides[d], &mut set);
            }
        }
        let swizzle = match self.swizzle {
            Swizzle::None => 0,
            Swizzle::B32 => 1,
            Swizzle::B64 => 2,
            Swizzle::B128 => 3,
        };
        put(TensormapField::SwizzleMode, 0, swizzle, &mut set);
        for k in 0..4 {
            bytes[(SET_OFFSET + k) as usize] = (set >> (8 * k)) as u8;
        }
        bytes
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn map() -> TensorMap {
        TensorMap {
            address: 0x1000,
            rank: 2,
            element: 2,
            dims: [100, 50, 1, 1, 1],
            strides: [2, 256, 2, 2, 2],
            box_dims: [64, 8, 1, 1, 1],
            swizzle: Swizzle::B128,
        }
    }

    #[test]
    fn encoding_round_trips_and_unset_fields_are_named() {
        let bytes = map().encode(6);
        assert_eq!(TensorMap::decode(&bytes), Ok(map()));
        let mut missing = bytes;
        missing[SET_OFFSET as usize + 1] &= !((bit(TensormapField::BoxDim, 1) >> 8) as u8);
        let err = TensorMap::decode(&missing).unwrap_err();
        assert_eq!(err.to_string(), MapError::Unset("box_dim of dimension 1".into()).to_string());
        assert!(matches!(TensorMap::decode(&[0u8; 128]), Err(MapError::Unset(f)) if f == "global_address"));
    }

    #[test]
    fn swizzle_permutes_chunks_within_lines() {
        assert_eq!(Swizzle::B128.apply(0x1000), 0x1000);
        // Line 1 of a 1024-byte block: chunk 0 goes to chunk 1.
        assert_eq!(Swizzle::B128.apply(0x1080), 0x1090);
        assert_eq!(Swizzle::B128.apply(0x1380 + 0x70 + 3), 0x1380 + 3);
        assert_eq!(Swizzle::B64.apply(0x1180), 0x1180 ^ 0x30);
        assert_eq!(Swizzle::B32.apply(0x1080), 0x1090);
        assert_eq!(Swizzle::None.apply(0x1080), 0x1080);
    }

    #[test]
    fn box_elements_outside_the_tensor_have_no_address() {
        let elements = map().elements(&[96, 49]);
        assert_eq!(elements.len(), 64 * 8);
        assert_eq!(elements[0], (0, Some(0x1000 + 49 * 256 + 96 * 2)));
        assert_eq!(elements[4], (8, None), "column 100 is past the tensor's 100 columns");
        assert_eq!(elements[64], (128, None), "row 50 is past the tensor's 50 rows");
    }
}
