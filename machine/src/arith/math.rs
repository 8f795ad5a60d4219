//! Pure math intrinsics (`T.exp`, `T.sqrt`, `T.pow`, ...), computed in the element type.
//!
//! float32 uses the `f32` functions and float64 the `f64` ones, except `exp` (and `sigmoid`,
//! which uses it) in float32: that is `exp::exp_f32`, one fixed float64 sequence that the PTX
//! lowering of `T.exp` performs instruction for instruction, so executors agree bit for bit.
//! float16 and bfloat16 compute in f32 and round once to the element type. `abs` also accepts integers (wrapping at MIN);
//! `popcount` takes integers; `isnan`/`isinf`/`isfinite` return bool. Names are looked up
//! without the `T.` or `tir.` prefix; anything else is not a pure intrinsic we model.

use half::{bf16, f16};

use super::exp::exp_f32;
use crate::value::{norm, Num};

/// A modelled intrinsic.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MathFn {
    Exp,
    Exp2,
    Exp10,
    Log,
    Log2,
    Log10,
    Log1p,
    Expm1,
    Sqrt,
    Rsqrt,
    Fabs,
    Floor,
    Ceil,
    Round,
    Trunc,
    Tanh,
    Sigmoid,
    Sin,
    Cos,
    Tan,
    Asin,
    Acos,
    Atan,
    Sinh,
    Cosh,
    Pow,
    Fmod,
    Atan2,
    Hypot,
    Copysign,
    IsNan,
    IsInf,
    IsFinite,
    Abs,
    Popcount,
}

/// What a function takes and returns.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Signature {
    /// Float in, same float out.
    FloatUnary,
    FloatBinary,
    /// Float in, bool out.
    FloatTest,
    /// Int or float in, same kind out.
    AnyUnary,
    /// Int in, same int out.
    IntUnary,
}

const TABLE: [(&str, MathFn); 37] = [
    ("exp", MathFn::Exp),
    ("exp2", MathFn::Exp2),
    ("exp10", MathFn::Exp10),
    ("log", MathFn::Log),
    ("log2", MathFn::Log2),
    ("log10", MathFn::Log10),
    ("log1p", MathFn::Log1p),
    ("expm1", MathFn::Expm1),
    ("sqrt", MathFn::Sqrt),
    ("rsqrt", MathFn::Rsqrt),
    ("fabs", MathFn::Fabs),
    ("floor", MathFn::Floor),
    ("ceil", MathFn::Ceil),
    ("round", MathFn::Round),
    ("nearbyint", MathFn::Round),
    ("trunc", MathFn::Trunc),
    ("tanh", MathFn::Tanh),
    ("sigmoid", MathFn::Sigmoid),
    ("sin", MathFn::Sin),
    ("cos", MathFn::Cos),
    ("tan", MathFn::Tan),
    ("asin", MathFn::Asin),
    ("acos", MathFn::Acos),
    ("atan", MathFn::Atan),
    ("sinh", MathFn::Sinh),
    ("cosh", MathFn::Cosh),
    ("pow", MathFn::Pow),
    ("fmod", MathFn::Fmod),
    ("atan2", MathFn::Atan2),
    ("hypot", MathFn::Hypot),
    ("copysign", MathFn::Copysign),
    ("isnan", MathFn::IsNan),
    ("isinf", MathFn::IsInf),
    ("isfinite", MathFn::IsFinite),
    ("abs", MathFn::Abs),
    ("popcount", MathFn::Popcount),
    ("fabsf", MathFn::Fabs),
];

impl MathFn {
    /// The intrinsic called `name` (with or without a `T.` / `tir.` prefix).
    pub fn lookup(name: &str) -> Option<MathFn> {
        let bare = name.strip_prefix("T.").or_else(|| name.strip_prefix("tir.")).unwrap_or(name);
        TABLE.iter().find(|(n, _)| *n == bare).map(|(_, f)| *f)
    }

    pub fn signature(self) -> Signature {
        match self {
            MathFn::Pow | MathFn::Fmod | MathFn::Atan2 | MathFn::Hypot | MathFn::Copysign => Signature::FloatBinary,
            MathFn::IsNan | MathFn::IsInf | MathFn::IsFinite => Signature::FloatTest,
            MathFn::Abs => Signature::AnyUnary,
            MathFn::Popcount => Signature::IntUnary,
            _ => Signature::FloatUnary,
        }
    }

    pub fn arity(self) -> usize {
        match self.signature() {
            Signature::FloatBinary => 2,
            _ => 1,
        }
    }
}

macro_rules! float_unary {
    ($f:expr, $x:expr, $t:ty) => {{
        let x: $t = $x;
        match $f {
            MathFn::Exp => x.exp(),
            MathFn::Exp2 => x.exp2(),
            MathFn::Exp10 => (10.0 as $t).powf(x),
            MathFn::Log => x.ln(),
            MathFn::Log2 => x.log2(),
            MathFn::Log10 => x.log10(),
            MathFn::Log1p => x.ln_1p(),
            MathFn::Expm1 => x.exp_m1(),
            MathFn::Sqrt => x.sqrt(),
            MathFn::Rsqrt => 1.0 / x.sqrt(),
            MathFn::Fabs | MathFn::Abs => x.abs(),
            MathFn::Floor => x.floor(),
            MathFn::Ceil => x.ceil(),
            MathFn::Round => x.round_ties_even(),
            MathFn::Trunc => x.trunc(),
            MathFn::Tanh => x.tanh(),
            MathFn::Sigmoid => 1.0 / (1.0 + (-x).exp()),
            MathFn::Sin => x.sin(),
            MathFn::Cos => x.cos(),
            MathFn::Tan => x.tan(),
            MathFn::Asin => x.asin(),
            MathFn::Acos => x.acos(),
            MathFn::Atan => x.atan(),
            MathFn::Sinh => x.sinh(),
            MathFn::Cosh => x.cosh(),
            // Not unary; the compiler checks arity, so this arm is never taken.
            _ => x,
        }
    }};
}

macro_rules! float_binary {
    ($f:expr, $x:expr, $y:expr, $t:ty) => {{
        let (x, y): ($t, $t) = ($x, $y);
        match $f {
            MathFn::Pow => x.powf(y),
            MathFn::Fmod => x % y,
            MathFn::Atan2 => x.atan2(y),
            MathFn::Hypot => x.hypot(y),
            _ => x.copysign(y),
        }
    }};
}

/// Applies a float function in the element type `num` (at most two arguments).
fn float_map(num: Num, args: &[u64], f32_fn: impl Fn(&[f32]) -> f32, f64_fn: impl Fn(&[f64]) -> f64) -> u64 {
    fn lanes<T: Copy + Default>(args: &[u64], load: impl Fn(u64) -> T) -> [T; 2] {
        let mut xs = [T::default(); 2];
        for (x, b) in xs.iter_mut().zip(args) {
            *x = load(*b);
        }
        xs
    }
    match num {
        Num::F64 => f64_fn(&lanes(args, f64::from_bits)).to_bits(),
        Num::F32 => u64::from(f32_fn(&lanes(args, |b| f32::from_bits(b as u32))).to_bits()),
        Num::F16 => {
            let r = f32_fn(&lanes(args, |b| f16::from_bits(b as u16).to_f32()));
            u64::from(f16::from_f32(r).to_bits())
        }
        _ => {
            let r = f32_fn(&lanes(args, |b| bf16::from_bits(b as u16).to_f32()));
            u64::from(bf16::from_f32(r).to_bits())
        }
    }
}

/// A unary function in float32 (and, through it, float16 and bfloat16).
fn f32_unary(f: MathFn, x: f32) -> f32 {
    match f {
        MathFn::Exp => exp_f32(x),
        MathFn::Sigmoid => 1.0 / (1.0 + exp_f32(-x)),
        _ => float_unary!(f, x, f32),
    }
}

fn first<T: Copy + Default>(xs: &[T]) -> T {
    xs.first().copied().unwrap_or_default()
}

fn second<T: Copy + Default>(xs: &[T]) -> T {
    xs.get(1).copied().unwrap_or_default()
}

/// `f(args)` for one lane; `num` is the kind of the arguments (the compiler checked arity and
/// kinds against `signature`).
pub fn apply(f: MathFn, num: Num, args: &[u64]) -> u64 {
    let a = first(args);
    match f.signature() {
        Signature::FloatUnary => {
            float_map(num, args, |xs| f32_unary(f, first(xs)), |xs| float_unary!(f, first(xs), f64))
        }
        Signature::FloatBinary => float_map(
            num,
            args,
            |xs| float_binary!(f, first(xs), second(xs), f32),
            |xs| float_binary!(f, first(xs), second(xs), f64),
        ),
        Signature::FloatTest => {
            let x = crate::value::float_to_f64(num, a);
            u64::from(match f {
                MathFn::IsNan => x.is_nan(),
                MathFn::IsInf => x.is_infinite(),
                _ => x.is_finite(),
            })
        }
        Signature::AnyUnary if num.is_float() => float_map(num, args, |xs| first(xs).abs(), |xs| first(xs).abs()),
        Signature::AnyUnary => match num {
            Num::Int(_) => norm(num, (a as i64).wrapping_abs() as u64),
            _ => a,
        },
        Signature::IntUnary => {
            // Count the bits of the value at its own width (a negative int32 has 32 bits set
            // at most, not 64).
            let width = num.width();
            let masked = if width >= 64 { a } else { a & ((1u64 << width) - 1) };
            u64::from(masked.count_ones())
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::value::{float_from_f64, float_to_f64};

    fn call(name: &str, num: Num, args: &[f64]) -> f64 {
        let f = MathFn::lookup(name).unwrap();
        let bits: Vec<u64> = args.iter().map(|a| float_from_f64(num, *a)).collect();
        float_to_f64(num, apply(f, num, &bits))
    }

    #[test]
    fn lookup_strips_prefixes() {
        assert_eq!(MathFn::lookup("T.exp"), Some(MathFn::Exp));
        assert_eq!(MathFn::lookup("tir.sqrt"), Some(MathFn::Sqrt));
        assert_eq!(MathFn::lookup("call_extern"), None);
    }

    #[test]
    fn float_functions_in_element_type() {
        assert_eq!(call("sqrt", Num::F32, &[2.0]), f64::from(2f32.sqrt()));
        assert_eq!(call("exp", Num::F64, &[1.0]), 1f64.exp());
        assert_eq!(call("round", Num::F32, &[2.5]), 2.0);
        assert_eq!(call("round", Num::F32, &[3.5]), 4.0);
        assert_eq!(call("floor", Num::F16, &[-1.5]), -2.0);
        assert_eq!(call("pow", Num::F32, &[2.0, 10.0]), 1024.0);
        assert_eq!(call("fmod", Num::F32, &[-7.0, 2.0]), -1.0);
        assert_eq!(call("sigmoid", Num::F64, &[0.0]), 0.5);
        assert_eq!(call("sqrt", Num::F16, &[2.0]), f16::from_f32(2f32.sqrt()).to_f64());
    }

    #[test]
    fn integer_functions() {
        let abs = MathFn::lookup("abs").unwrap();
        assert_eq!(apply(abs, Num::Int(32), &[(-5i64) as u64]), 5);
        assert_eq!(apply(abs, Num::Int(32), &[i64::from(i32::MIN) as u64]) as i64, i64::from(i32::MIN));
        let pop = MathFn::lookup("popcount").unwrap();
        assert_eq!(apply(pop, Num::Int(32), &[(-1i64) as u64]), 32);
        let isnan = MathFn::lookup("isnan").unwrap();
        assert_eq!(apply(isnan, Num::F32, &[u64::from(f32::NAN.to_bits())]), 1);
    }
}
