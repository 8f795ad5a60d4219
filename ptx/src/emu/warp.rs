//! The warp-wide instructions: where each lane's fragment of an `ldmatrix` or an
//! `mma.sync` (`m16n8k16` of f16 or bf16, `m16n8k8` of tf32) lives, as the PTX ISA lays them
//! out, the arithmetic of `mma`, and the source lane of each lane of a `shfl.sync`.
//!
//! Lanes are numbered 0-31 within their warp; `group = lane / 4` and `pair = lane % 4` name
//! a lane's row and column pair in every fragment. A fragment register holds two 16-bit
//! elements, the lower-indexed one in its low half.
//!
//! Invariants: the functions here only move and combine values; the memory accesses (with
//! their pending-copy and race checks) and the lanes' rendezvous are the emulator's. `mma`
//! multiplies exactly (an f16 product fits an f32) and adds in f32 in `k` order, one rounding
//! per addition: PTX leaves the order of the additions open, so results that do not round the
//! same in every order may differ from hardware in the last bits.

use super::alu::f16_to_f32;
use super::approx::{bf16_value, tf32_value};
use crate::module::{MmaInput, ShflMode};

/// Lanes in a warp.
pub(super) const WARP: usize = 32;

/// Rows of one 8x8 `ldmatrix` matrix, each the eight 16-bit elements one lane's address
/// points at (lane `8 * matrix + row` gives matrix `matrix`'s row `row`).
pub(super) type Rows = [[u16; 8]; 8];

/// The register `lane` receives for one matrix of an `ldmatrix` (`.trans`: of its transpose).
pub(super) fn ldmatrix_fragment(rows: &Rows, lane: usize, trans: bool) -> u64 {
    let (group, pair) = (lane / 4 % 8, lane % 4);
    let (first, second) = if trans {
        (rows[2 * pair][group], rows[2 * pair + 1][group])
    } else {
        (rows[group][2 * pair], rows[group][2 * pair + 1])
    };
    u64::from(first) | u64::from(second) << 16
}

/// The fragments of one `mma` as the 32 lanes hold them: A's four registers, B's two, C's
/// four (f32 bits), per lane.
pub(super) struct MmaFragments {
    pub a: [[u64; 4]; WARP],
    pub b: [[u64; 2]; WARP],
    pub c: [[u64; 4]; WARP],
}

/// The low (0) or high (1) 16-bit element of a fragment register, as f32 (exact).
fn half(input: MmaInput, reg: u64, which: usize) -> f32 {
    let bits = reg >> (16 * which);
    match input {
        MmaInput::Bf16 => bf16_value(bits),
        MmaInput::F16 | MmaInput::Tf32 => f16_to_f32(bits),
    }
}

/// D = A * B + C for `m16n8k16` (f16, bf16) or `m16n8k8` (tf32); returns each lane's four D
/// registers (f32 bits). Products of these inputs are exact in f32.
pub(super) fn mma(input: MmaInput, frags: &MmaFragments) -> [[u64; 4]; WARP] {
    let mut a = [[0f32; 16]; 16];
    let mut b = [[0f32; 8]; 16];
    let mut c = [[0f32; 8]; 16];
    for lane in 0..WARP {
        let (group, pair) = (lane / 4, lane % 4);
        let col = 2 * pair;
        if input == MmaInput::Tf32 {
            // One element per register: A (g, p), (g+8, p), (g, p+4), (g+8, p+4); B (p, g), (p+4, g).
            let [a0, a1, a2, a3] = frags.a[lane].map(tf32_value);
            (a[group][pair], a[group + 8][pair], a[group][pair + 4], a[group + 8][pair + 4]) = (a0, a1, a2, a3);
            let [b0, b1] = frags.b[lane].map(tf32_value);
            (b[pair][group], b[pair + 4][group]) = (b0, b1);
        } else {
            for h in 0..2 {
                // A, row-major: registers 0-3 hold (row g, cols 2p..), (g+8, 2p..), (g, 2p+8..), (g+8, 2p+8..).
                a[group][col + h] = half(input, frags.a[lane][0], h);
                a[group + 8][col + h] = half(input, frags.a[lane][1], h);
                a[group][col + 8 + h] = half(input, frags.a[lane][2], h);
                a[group + 8][col + 8 + h] = half(input, frags.a[lane][3], h);
                // B, column-major: registers 0-1 hold (rows 2p.., col g), (rows 2p+8.., col g).
                b[col + h][group] = half(input, frags.b[lane][0], h);
                b[col + 8 + h][group] = half(input, frags.b[lane][1], h);
            }
        }
        for h in 0..2 {
            // C: (g, 2p), (g, 2p+1), (g+8, 2p), (g+8, 2p+1).
            c[group][col + h] = f32::from_bits(frags.c[lane][h] as u32);
            c[group + 8][col + h] = f32::from_bits(frags.c[lane][2 + h] as u32);
        }
    }
    let depth = input.k();
    let mut d = [[0f32; 8]; 16];
    for (i, row) in d.iter_mut().enumerate() {
        for (j, out) in row.iter_mut().enumerate() {
            let mut acc = c[i][j];
            for k in 0..depth {
                acc += a[i][k] * b[k][j];
            }
            *out = acc;
        }
    }
    let mut out = [[0u64; 4]; WARP];
    for (lane, regs) in out.iter_mut().enumerate() {
        let (group, col) = (lane / 4, 2 * (lane % 4));
        *regs = [d[group][col], d[group][col + 1], d[group + 8][col], d[group + 8][col + 1]]
            .map(|v| u64::from(v.to_bits()));
    }
    out
}

/// The lane whose value lane `lane` receives from `shfl.sync` of `mode` with operands `b` and
/// `c` (the clamp in bits 0-4, the segment mask in bits 8-12), as the PTX ISA computes it, and
/// whether it is in range; out of range, the lane receives its own value.
pub(super) fn shfl_source(mode: ShflMode, lane: u32, b: u32, c: u32) -> (u32, bool) {
    let (b, clamp, segment) = (b & 0x1f, c & 0x1f, (c >> 8) & 0x1f);
    let max_lane = (lane & segment) | (clamp & !segment);
    let min_lane = lane & segment;
    let (source, in_range) = match mode {
        ShflMode::Up => (lane.wrapping_sub(b), lane >= b && lane - b >= max_lane),
        ShflMode::Down => (lane + b, lane + b <= max_lane),
        ShflMode::Bfly => (lane ^ b, lane ^ b <= max_lane),
        ShflMode::Idx => (min_lane | (b & !segment), (min_lane | (b & !segment)) <= max_lane),
    };
    if in_range {
        (source, true)
    } else {
        (lane, false)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn f16_bits(v: f32) -> u64 {
        u64::from(half::f16::from_f32(v).to_bits())
    }

    #[test]
    fn ldmatrix_fragments_follow_the_isa_layout() {
        let mut rows: Rows = [[0; 8]; 8];
        for (r, row) in rows.iter_mut().enumerate() {
            for (c, e) in row.iter_mut().enumerate() {
                *e = (r * 8 + c) as u16;
            }
        }
        // Lane 5: group 1, pair 1 -> row 1, columns 2 and 3.
        assert_eq!(ldmatrix_fragment(&rows, 5, false), 10 | 11 << 16);
        // Transposed: rows 2 and 3 of column 1.
        assert_eq!(ldmatrix_fragment(&rows, 5, true), 17 | 25 << 16);
    }

    #[test]
    fn mma_computes_the_product_plus_the_accumulator() {
        let a: [[f32; 16]; 16] = std::array::from_fn(|i| std::array::from_fn(|k| ((i * 3 + k * 5) % 7) as f32 - 3.0));
        let b: [[f32; 8]; 16] = std::array::from_fn(|i| std::array::from_fn(|j| ((i + j * 2) % 5) as f32 - 2.0));
        let c: [[f32; 8]; 16] = std::array::from_fn(|i| std::array::from_fn(|j| (i * 8 + j) as f32));
        let d = mma(MmaInput::F16, &fragments_of(MmaInput::F16, &a, &b, &c));
        for (lane, regs) in d.iter().enumerate() {
            let (g, p) = (lane / 4, 2 * (lane % 4));
            for (r, (i, j)) in [(g, p), (g, p + 1), (g + 8, p), (g + 8, p + 1)].into_iter().enumerate() {
                let want: f32 = c[i][j] + (0..16).map(|k| a[i][k] * b[k][j]).sum::<f32>();
                assert_eq!(f32::from_bits(regs[r] as u32), want, "lane {lane} element ({i}, {j})");
            }
        }
    }
    #[test]
    fn shuffle_sources_follow_the_isa() {
        let all = |mode, b, c| (0..32).map(|lane| shfl_source(mode, lane, b, c)).collect::<Vec<_>>();
        // Butterfly over the whole warp (c = 31): lane ^ b, always in range.
        assert!(all(ShflMode::Bfly, 2, 31).iter().enumerate().all(|(l, s)| *s == (l as u32 ^ 2, true)));
        // Down by 4 clamped at 31: the top four lanes keep their own value, predicate false.
        assert_eq!(shfl_source(ShflMode::Down, 27, 4, 31), (31, true));
        assert_eq!(shfl_source(ShflMode::Down, 28, 4, 31), (28, false));
        // Up by 1 (c = 0): lane 0 keeps its own.
        assert_eq!(shfl_source(ShflMode::Up, 0, 1, 0), (0, false));
        assert_eq!(shfl_source(ShflMode::Up, 5, 1, 0), (4, true));
        // Segments of 8 lanes (segment mask 0x18 in bits 8-12, clamp 7): up stays in the segment.
        let seg8 = (0x18 << 8) | 7;
        assert_eq!(shfl_source(ShflMode::Up, 8, 1, seg8 & !7), (8, false));
        assert_eq!(shfl_source(ShflMode::Up, 9, 1, seg8 & !7), (8, true));
        assert_eq!(shfl_source(ShflMode::Down, 15, 1, seg8), (15, false));
        assert_eq!(shfl_source(ShflMode::Down, 14, 1, seg8), (15, true));
        // Idx broadcasts lane b of each segment; the whole warp reads lane 0 with c = 31.
        assert!(all(ShflMode::Idx, 0, 31).iter().all(|s| *s == (0, true)));
        assert_eq!(shfl_source(ShflMode::Idx, 13, 2, seg8), (10, true));
        // Idx with a clamp below b: out of range.
        assert_eq!(shfl_source(ShflMode::Idx, 3, 6, 4), (3, false));
        // Only b's low five bits count.
        assert_eq!(shfl_source(ShflMode::Bfly, 1, 33, 31), (0, true));
    }

    /// 16-bit fragments of A (16x16), B (16x8) and C (16x8) for one of the 16-bit inputs.
    fn fragments_of(input: MmaInput, a: &[[f32; 16]; 16], b: &[[f32; 8]; 16], c: &[[f32; 8]; 16]) -> MmaFragments {
        let bits = |v: f32| match input {
            MmaInput::Bf16 => u64::from(half::bf16::from_f32(v).to_bits()),
            _ => f16_bits(v),
        };
        let mut frags = MmaFragments { a: [[0; 4]; WARP], b: [[0; 2]; WARP], c: [[0; 4]; WARP] };
        let pack = |lo: f32, hi: f32| bits(lo) | bits(hi) << 16;
        for lane in 0..WARP {
            let (g, p) = (lane / 4, 2 * (lane % 4));
            frags.a[lane] = [
                pack(a[g][p], a[g][p + 1]),
                pack(a[g + 8][p], a[g + 8][p + 1]),
                pack(a[g][p + 8], a[g][p + 9]),
                pack(a[g + 8][p + 8], a[g + 8][p + 9]),
            ];
            frags.b[lane] = [pack(b[p][g], b[p + 1][g]), pack(b[p + 8][g], b[p + 9][g])];
            frags.c[lane] = [c[g][p], c[g][p + 1], c[g + 8][p], c[g + 8][p + 1]].map(|v| u64::from(v.to_bits()));
        }
        frags
    }

    #[test]
    fn bf16_and_tf32_mma_compute_the_product_plus_the_accumulator() {
        // Values a bf16 holds exactly but an f16 does not (2^20): read as f16 they would be
        // infinities, so the bf16 decoding is what makes these right.
        let a: [[f32; 16]; 16] =
            std::array::from_fn(|i| std::array::from_fn(|k| (((i * 3 + k * 5) % 7) as f32 - 3.0) * 1048576.0));
        let b: [[f32; 8]; 16] = std::array::from_fn(|i| std::array::from_fn(|j| ((i + j * 2) % 5) as f32 - 2.0));
        let c: [[f32; 8]; 16] = std::array::from_fn(|i| std::array::from_fn(|j| (i * 8 + j) as f32 * 1048576.0));
        let d = mma(MmaInput::Bf16, &fragments_of(MmaInput::Bf16, &a, &b, &c));
        for (lane, regs) in d.iter().enumerate() {
            let (g, p) = (lane / 4, 2 * (lane % 4));
            for (r, (i, j)) in [(g, p), (g, p + 1), (g + 8, p), (g + 8, p + 1)].into_iter().enumerate() {
                let want: f32 = c[i][j] + (0..16).map(|k| a[i][k] * b[k][j]).sum::<f32>();
                assert_eq!(f32::from_bits(regs[r] as u32), want, "bf16: lane {lane} element ({i}, {j})");
            }
        }
        // tf32, m16n8k8: one element per register; the 13 low bits of an operand are ignored.
        let c: [[f32; 8]; 16] = std::array::from_fn(|i| std::array::from_fn(|j| (i * 8 + j) as f32));
        let a8: [[f32; 8]; 16] = std::array::from_fn(|i| std::array::from_fn(|k| ((i * 3 + k * 5) % 7) as f32 - 2.5));
        let b8: [[f32; 8]; 8] = std::array::from_fn(|k| std::array::from_fn(|j| ((k + j * 2) % 5) as f32 + 0.25));
        let mut frags = MmaFragments { a: [[0; 4]; WARP], b: [[0; 2]; WARP], c: [[0; 4]; WARP] };
        let low_bits = |v: f32| u64::from(v.to_bits() | 0x1FFF);
        for lane in 0..WARP {
            let (g, t) = (lane / 4, lane % 4);
            frags.a[lane] = [a8[g][t], a8[g + 8][t], a8[g][t + 4], a8[g + 8][t + 4]].map(low_bits);
            frags.b[lane] = [b8[t][g], b8[t + 4][g]].map(low_bits);
            let (p, q) = (2 * t, 2 * t + 1);
            frags.c[lane] = [c[g][p], c[g][q], c[g + 8][p], c[g + 8][q]].map(|v| u64::from(v.to_bits()));
        }
        let d = mma(MmaInput::Tf32, &frags);
        for (lane, regs) in d.iter().enumerate() {
            let (g, p) = (lane / 4, 2 * (lane % 4));
            for (r, (i, j)) in [(g, p), (g, p + 1), (g + 8, p), (g + 8, p + 1)].into_iter().enumerate() {
                let want: f32 = c[i][j] + (0..8).map(|k| a8[i][k] * b8[k][j]).sum::<f32>();
                assert_eq!(f32::from_bits(regs[r] as u32), want, "tf32: lane {lane} element ({i}, {j})");
            }
        }
    }
}
