//! Integer and boolean expressions of the imported program, kept as trees so that loop-carried
//! values can be recognized (a counter, a ring index) and printed as TIR.
//!
//! Invariant: a `Sym` means exactly what its TIR printing computes; MLIR's signed division and
//! remainder truncate, so they print as `T.truncdiv`/`T.truncmod`, and unsigned comparisons
//! are kept only where both sides are known non-negative constants (otherwise the reader
//! treats the value as data).

use std::fmt;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum IntTy {
    I32,
    I64,
}

impl IntTy {
    pub fn tir(self) -> &'static str {
        match self {
            IntTy::I32 => "int32",
            IntTy::I64 => "int64",
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Bin {
    Add,
    Sub,
    Mul,
    TruncDiv,
    TruncMod,
    FloorDiv,
    FloorMod,
    Min,
    Max,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Cmp {
    Eq,
    Ne,
    Lt,
    Le,
    Gt,
    Ge,
}

impl Cmp {
    /// `arith.cmpi`'s predicate; unsigned ones compare as signed, which the caller allows
    /// only where that is the same.
    pub fn of_predicate(p: &str) -> Option<(Cmp, bool)> {
        Some(match p {
            "eq" => (Cmp::Eq, false),
            "ne" => (Cmp::Ne, false),
            "slt" => (Cmp::Lt, false),
            "sle" => (Cmp::Le, false),
            "sgt" => (Cmp::Gt, false),
            "sge" => (Cmp::Ge, false),
            "ult" => (Cmp::Lt, true),
            "ule" => (Cmp::Le, true),
            "ugt" => (Cmp::Gt, true),
            "uge" => (Cmp::Ge, true),
            _ => return None,
        })
    }

    fn text(self) -> &'static str {
        match self {
            Cmp::Eq => "==",
            Cmp::Ne => "!=",
            Cmp::Lt => "<",
            Cmp::Le => "<=",
            Cmp::Gt => ">",
            Cmp::Ge => ">=",
        }
    }
}

#[derive(Clone, Debug, PartialEq)]
pub enum Sym {
    Int(i64, IntTy),
    Bool(bool),
    /// A TIR variable: a parameter, a loop variable or a `let`.
    Name(String, IntTy),
    BoolName(String),
    Bin(Bin, Box<Sym>, Box<Sym>),
    Cmp(Cmp, Box<Sym>, Box<Sym>),
    And(Box<Sym>, Box<Sym>),
    Or(Box<Sym>, Box<Sym>),
    Not(Box<Sym>),
    Select(Box<Sym>, Box<Sym>, Box<Sym>),
    Cast(IntTy, Box<Sym>),
}

impl Sym {
    pub fn int(v: i64, ty: IntTy) -> Sym {
        Sym::Int(v, ty)
    }

    pub fn ty(&self) -> IntTy {
        match self {
            Sym::Int(_, t) | Sym::Name(_, t) | Sym::Cast(t, _) => *t,
            Sym::Bin(_, a, _) | Sym::Select(_, a, _) => a.ty(),
            _ => IntTy::I32,
        }
    }

    pub fn is_bool(&self) -> bool {
        matches!(self, Sym::Bool(_) | Sym::BoolName(_) | Sym::Cmp(..) | Sym::And(..) | Sym::Or(..) | Sym::Not(_))
            || matches!(self, Sym::Select(_, a, _) if a.is_bool())
    }

    pub fn as_const(&self) -> Option<i64> {
        match self {
            Sym::Int(v, _) => Some(*v),
            _ => None,
        }
    }

    /// `op(a, b)`, folded where both are constants (with the type's wrap-around).
    pub fn bin(op: Bin, a: Sym, b: Sym) -> Sym {
        let ty = a.ty();
        if let (Some(x), Some(y)) = (a.as_const(), b.as_const()) {
            if let Some(v) = fold(op, x, y, ty) {
                return Sym::Int(v, ty);
            }
        }
        match (op, a.as_const(), b.as_const()) {
            (Bin::Add, Some(0), _) => return b,
            (Bin::Add | Bin::Sub, _, Some(0)) | (Bin::Mul, _, Some(1)) => return a,
            (Bin::Mul, Some(1), _) => return b,
            (Bin::Mul, Some(0), _) | (Bin::Mul, _, Some(0)) => return Sym::Int(0, ty),
            _ => {}
        }
        Sym::Bin(op, Box::new(a), Box::new(b))
    }

    pub fn cmp(op: Cmp, a: Sym, b: Sym) -> Sym {
        if let (Some(x), Some(y)) = (a.as_const(), b.as_const()) {
            return Sym::Bool(match op {
                Cmp::Eq => x == y,
                Cmp::Ne => x != y,
                Cmp::Lt => x < y,
                Cmp::Le => x <= y,
                Cmp::Gt => x > y,
                Cmp::Ge => x >= y,
            });
        }
        Sym::Cmp(op, Box::new(a), Box::new(b))
    }

    pub fn select(c: Sym, a: Sym, b: Sym) -> Sym {
        match c {
            Sym::Bool(true) => a,
            Sym::Bool(false) => b,
            _ if a == b => a,
            c => Sym::Select(Box::new(c), Box::new(a), Box::new(b)),
        }
    }

    /// Replaces every `Name` that `f` maps.
    pub fn subst(&self, f: &dyn Fn(&str) -> Option<Sym>) -> Sym {
        let go = |s: &Sym| s.subst(f);
        match self {
            Sym::Name(n, _) | Sym::BoolName(n) => f(n).unwrap_or_else(|| self.clone()),
            Sym::Int(..) | Sym::Bool(_) => self.clone(),
            Sym::Bin(op, a, b) => Sym::bin(*op, go(a), go(b)),
            Sym::Cmp(op, a, b) => Sym::cmp(*op, go(a), go(b)),
            Sym::And(a, b) => Sym::And(Box::new(go(a)), Box::new(go(b))),
            Sym::Or(a, b) => Sym::Or(Box::new(go(a)), Box::new(go(b))),
            Sym::Not(a) => Sym::Not(Box::new(go(a))),
            Sym::Select(c, a, b) => Sym::select(go(c), go(a), go(b)),
            Sym::Cast(t, a) => Sym::Cast(*t, Box::new(go(a))),
        }
    }

    /// Whether `name` occurs.
    pub fn mentions(&self, name: &str) -> bool {
        self.names().iter().any(|n| n == name)
    }

    /// The names it reads.
    pub fn names(&self) -> Vec<String> {
        let mut out = Vec::new();
        self.collect_names(&mut out);
        out
    }

    fn collect_names(&self, out: &mut Vec<String>) {
        match self {
            Sym::Name(n, _) | Sym::BoolName(n) => out.push(n.clone()),
            Sym::Int(..) | Sym::Bool(_) => {}
            Sym::Bin(_, a, b) | Sym::Cmp(_, a, b) | Sym::And(a, b) | Sym::Or(a, b) => {
                a.collect_names(out);
                b.collect_names(out);
            }
            Sym::Not(a) | Sym::Cast(_, a) => a.collect_names(out),
            Sym::Select(c, a, b) => {
                c.collect_names(out);
                a.collect_names(out);
                b.collect_names(out);
            }
        }
    }
}

fn fold(op: Bin, x: i64, y: i64, ty: IntTy) -> Option<i64> {
    let v = match op {
        Bin::Add => x.checked_add(y)?,
        Bin::Sub => x.checked_sub(y)?,
        Bin::Mul => x.checked_mul(y)?,
        Bin::TruncDiv => x.checked_div(y)?,
        Bin::TruncMod => x.checked_rem(y)?,
        Bin::FloorDiv => x.checked_div_euclid(y).filter(|_| y > 0)?,
        Bin::FloorMod => x.checked_rem_euclid(y).filter(|_| y > 0)?,
        Bin::Min => x.min(y),
        Bin::Max => x.max(y),
    };
    match ty {
        IntTy::I32 => i32::try_from(v).ok().map(i64::from),
        IntTy::I64 => Some(v),
    }
}

impl fmt::Display for Sym {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Sym::Int(v, IntTy::I32) => write!(f, "{v}"),
            Sym::Int(v, IntTy::I64) => write!(f, "T.int64({v})"),
            Sym::Bool(b) => f.write_str(if *b { "T.bool(True)" } else { "T.bool(False)" }),
            Sym::Name(n, _) | Sym::BoolName(n) => f.write_str(n),
            Sym::Bin(op, a, b) => match op {
                Bin::Add => write!(f, "({a} + {b})"),
                Bin::Sub => write!(f, "({a} - {b})"),
                Bin::Mul => write!(f, "({a} * {b})"),
                Bin::FloorDiv => write!(f, "({a} // {b})"),
                Bin::FloorMod => write!(f, "({a} % {b})"),
                Bin::TruncDiv => write!(f, "T.truncdiv({a}, {b})"),
                Bin::TruncMod => write!(f, "T.truncmod({a}, {b})"),
                Bin::Min => write!(f, "T.min({a}, {b})"),
                Bin::Max => write!(f, "T.max({a}, {b})"),
            },
            Sym::Cmp(op, a, b) => write!(f, "({a} {} {b})", op.text()),
            Sym::And(a, b) => write!(f, "T.And({a}, {b})"),
            Sym::Or(a, b) => write!(f, "T.Or({a}, {b})"),
            Sym::Not(a) => write!(f, "T.Not({a})"),
            Sym::Select(c, a, b) => write!(f, "T.Select({c}, {a}, {b})"),
            Sym::Cast(t, a) => write!(f, "T.Cast(\"{}\", {a})", t.tir()),
        }
    }
}
