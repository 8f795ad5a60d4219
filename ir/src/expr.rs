//! Expressions: immediates, variables, arithmetic, comparisons, logic, selects, casts,
//! vectors (Ramp, Broadcast), Let, buffer loads and calls.
//!
//! Trees own their children (`Box`); variables and buffers are shared handles. Every
//! expression has a type, computed by `Expr::dtype` from its operands rather than stored, so
//! a tree can never disagree with itself. Operators' `Display` is their text syntax.
//! Semantics (shared by the interpreter, the verifier and the passes): integer `+ - *` wrap
//! in two's complement; `FloorDiv`/`FloorMod` round towards negative infinity (TVMScript `//`
//! and `%`); `TruncDiv`/`TruncMod` round towards zero; `Select` evaluates both arms, while
//! `IfThenElse` evaluates only the taken one.

use std::fmt;

use crate::buffer::Buffer;
use crate::dtype::DataType;
use crate::var::Var;

/// Binary arithmetic and bitwise operators.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum BinOp {
    Add,
    Sub,
    Mul,
    /// `/`: IEEE division for floats, truncating division for integers (TVM's `tir.Div`).
    Div,
    FloorDiv,
    FloorMod,
    TruncDiv,
    TruncMod,
    Min,
    Max,
    BitAnd,
    BitOr,
    BitXor,
    Shl,
    Shr,
}

/// How an operator is written in TVMScript.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum OpSyntax {
    /// An infix operator with its Python precedence (higher binds tighter).
    Infix(&'static str, u8),
    /// A call such as `T.truncdiv(a, b)`.
    Call(&'static str),
}

/// Python precedences used by the printer and the parser.
pub mod prec {
    pub const OR: u8 = 1;
    pub const AND: u8 = 2;
    pub const NOT: u8 = 3;
    pub const CMP: u8 = 4;
    pub const BIT_OR: u8 = 5;
    pub const BIT_XOR: u8 = 6;
    pub const BIT_AND: u8 = 7;
    pub const SHIFT: u8 = 8;
    pub const ADD: u8 = 9;
    pub const MUL: u8 = 10;
    pub const UNARY: u8 = 11;
    pub const ATOM: u8 = 12;
}

impl BinOp {
    pub const ALL: [BinOp; 15] = [
        BinOp::Add,
        BinOp::Sub,
        BinOp::Mul,
        BinOp::Div,
        BinOp::FloorDiv,
        BinOp::FloorMod,
        BinOp::TruncDiv,
        BinOp::TruncMod,
        BinOp::Min,
        BinOp::Max,
        BinOp::BitAnd,
        BinOp::BitOr,
        BinOp::BitXor,
        BinOp::Shl,
        BinOp::Shr,
    ];

    pub fn syntax(self) -> OpSyntax {
        use OpSyntax::{Call, Infix};
        match self {
            BinOp::Add => Infix("+", prec::ADD),
            BinOp::Sub => Infix("-", prec::ADD),
            BinOp::Mul => Infix("*", prec::MUL),
            BinOp::Div => Infix("/", prec::MUL),
            BinOp::FloorDiv => Infix("//", prec::MUL),
            BinOp::FloorMod => Infix("%", prec::MUL),
            BinOp::TruncDiv => Call("T.truncdiv"),
            BinOp::TruncMod => Call("T.truncmod"),
            BinOp::Min => Call("T.min"),
            BinOp::Max => Call("T.max"),
            BinOp::BitAnd => Infix("&", prec::BIT_AND),
            BinOp::BitOr => Infix("|", prec::BIT_OR),
            BinOp::BitXor => Infix("^", prec::BIT_XOR),
            BinOp::Shl => Infix("<<", prec::SHIFT),
            BinOp::Shr => Infix(">>", prec::SHIFT),
        }
    }

    /// Whether `a op b == b op a` for every type the operator accepts.
    pub fn is_commutative(self) -> bool {
        matches!(self, BinOp::Add | BinOp::Mul | BinOp::Min | BinOp::Max | BinOp::BitAnd | BinOp::BitOr | BinOp::BitXor)
    }

    /// Division-like operators, which trap on a zero divisor for integers.
    pub fn is_division(self) -> bool {
        matches!(self, BinOp::Div | BinOp::FloorDiv | BinOp::FloorMod | BinOp::TruncDiv | BinOp::TruncMod)
    }

    /// Bitwise operators, defined on integers and bools only.
    pub fn is_bitwise(self) -> bool {
        matches!(self, BinOp::BitAnd | BinOp::BitOr | BinOp::BitXor | BinOp::Shl | BinOp::Shr)
    }
}

impl fmt::Display for BinOp {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.syntax() {
            OpSyntax::Infix(s, _) | OpSyntax::Call(s) => f.write_str(s),
        }
    }
}

/// Comparisons; the result is bool with the operands' lane count.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum CmpOp {
    Eq,
    Ne,
    Lt,
    Le,
    Gt,
    Ge,
}

impl CmpOp {
    pub const ALL: [CmpOp; 6] = [CmpOp::Eq, CmpOp::Ne, CmpOp::Lt, CmpOp::Le, CmpOp::Gt, CmpOp::Ge];

    /// Whether `a op b` holds (for floats, NaN compares unequal to everything): the one
    /// meaning of a comparison, for executors and folders alike.
    #[inline]
    pub fn holds<T: PartialOrd>(self, a: &T, b: &T) -> bool {
        match self {
            CmpOp::Eq => a == b,
            CmpOp::Ne => a != b,
            CmpOp::Lt => a < b,
            CmpOp::Le => a <= b,
            CmpOp::Gt => a > b,
            CmpOp::Ge => a >= b,
        }
    }

    pub fn symbol(self) -> &'static str {
        match self {
            CmpOp::Eq => "==",
            CmpOp::Ne => "!=",
            CmpOp::Lt => "<",
            CmpOp::Le => "<=",
            CmpOp::Gt => ">",
            CmpOp::Ge => ">=",
        }
    }
}

impl fmt::Display for CmpOp {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.symbol())
    }
}

/// Short-circuit-free boolean connectives (`and`, `or`): both operands are pure.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum LogicOp {
    And,
    Or,
}

impl fmt::Display for LogicOp {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            LogicOp::And => "and",
            LogicOp::Or => "or",
        })
    }
}

/// What a call may do, from the weakest to the strongest effect (TVM's CallEffectKind).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum CallEffect {
    /// Depends on its arguments only.
    Pure,
    /// May read memory or other state, writes nothing.
    ReadState,
    /// May write state.
    UpdateState,
    /// Anything.
    Opaque,
}

impl fmt::Display for CallEffect {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            CallEffect::Pure => "pure",
            CallEffect::ReadState => "read-state",
            CallEffect::UpdateState => "update-state",
            CallEffect::Opaque => "opaque",
        })
    }
}

/// A call to an intrinsic (`T.exp(x)`) or an external function (`T.call_extern`).
#[derive(Clone, Debug, PartialEq)]
pub struct Call {
    /// The intrinsic name without the `T.` prefix, or the external symbol.
    pub name: String,
    pub dtype: DataType,
    pub args: Vec<Expr>,
    pub effect: CallEffect,
    /// True for `T.call_extern("dtype", "name", ...)`.
    pub external: bool,
}

/// `buffer[indices]`.
#[derive(Clone, Debug, PartialEq)]
pub struct BufferLoad {
    pub buffer: Buffer,
    pub indices: Vec<Expr>,
}

impl BufferLoad {
    /// Lanes of the index: the last index carries the vector lanes (docs/buffers-and-lanes.md
    /// limits Ramp to the last dimension), the others must be scalar.
    pub fn index_lanes(&self) -> u16 {
        self.indices.last().map_or(1, |i| i.dtype().lanes)
    }

    /// docs/buffers-and-lanes.md: an N-lane index into an M-lane buffer yields N*M lanes.
    pub fn dtype(&self) -> DataType {
        let elem = self.buffer.dtype();
        elem.with_lanes(elem.lanes.saturating_mul(self.index_lanes()))
    }
}

/// An expression. See the module documentation for the semantics.
#[derive(Clone, Debug, PartialEq)]
pub enum Expr {
    Int {
        value: i64,
        dtype: DataType,
    },
    Float {
        value: f64,
        dtype: DataType,
    },
    Str(String),
    Var(Var),
    Binary {
        op: BinOp,
        lhs: Box<Expr>,
        rhs: Box<Expr>,
    },
    Cmp {
        op: CmpOp,
        lhs: Box<Expr>,
        rhs: Box<Expr>,
    },
    Logic {
        op: LogicOp,
        lhs: Box<Expr>,
        rhs: Box<Expr>,
    },
    Not(Box<Expr>),
    /// Evaluates both arms, then picks one.
    Select {
        cond: Box<Expr>,
        on_true: Box<Expr>,
        on_false: Box<Expr>,
    },
    /// Evaluates only the taken arm (`T.if_then_else`).
    IfThenElse {
        cond: Box<Expr>,
        on_true: Box<Expr>,
        on_false: Box<Expr>,
    },
    Cast {
        dtype: DataType,
        value: Box<Expr>,
    },
    Ramp {
        base: Box<Expr>,
        stride: Box<Expr>,
        lanes: u16,
    },
    Broadcast {
        value: Box<Expr>,
        lanes: u16,
    },
    Let {
        var: Var,
        value: Box<Expr>,
        body: Box<Expr>,
    },
    Load(BufferLoad),
    Call(Call),
}

impl Expr {
    /// Whether evaluating the expression loads from memory (a `Load` anywhere in it).
    pub fn reads_memory(&self) -> bool {
        struct Found(bool);
        impl crate::visit::Visitor for Found {
            fn visit_expr(&mut self, e: &Expr) {
                self.0 |= matches!(e, Expr::Load(_));
                crate::visit::walk_expr(self, e);
            }
        }
        let mut found = Found(false);
        crate::visit::Visitor::visit_expr(&mut found, self);
        found.0
    }

    /// An int32 immediate.
    pub fn int(value: i64) -> Expr {
        Expr::Int { value, dtype: DataType::INT32 }
    }
    pub fn int_of(value: i64, dtype: DataType) -> Expr {
        Expr::Int { value, dtype }
    }
    pub fn bool(value: bool) -> Expr {
        Expr::Int { value: i64::from(value), dtype: DataType::BOOL }
    }
    pub fn float(value: f64, dtype: DataType) -> Expr {
        Expr::Float { value, dtype }
    }
    pub fn var(var: &Var) -> Expr {
        Expr::Var(var.clone())
    }
    pub fn binary(op: BinOp, lhs: Expr, rhs: Expr) -> Expr {
        Expr::Binary { op, lhs: Box::new(lhs), rhs: Box::new(rhs) }
    }
    pub fn cmp(op: CmpOp, lhs: Expr, rhs: Expr) -> Expr {
        Expr::Cmp { op, lhs: Box::new(lhs), rhs: Box::new(rhs) }
    }
    pub fn logic(op: LogicOp, lhs: Expr, rhs: Expr) -> Expr {
        Expr::Logic { op, lhs: Box::new(lhs), rhs: Box::new(rhs) }
    }
    pub fn floordiv(lhs: Expr, rhs: Expr) -> Expr {
        Expr::binary(BinOp::FloorDiv, lhs, rhs)
    }
    pub fn floormod(lhs: Expr, rhs: Expr) -> Expr {
        Expr::binary(BinOp::FloorMod, lhs, rhs)
    }
    pub fn lt(lhs: Expr, rhs: Expr) -> Expr {
        Expr::cmp(CmpOp::Lt, lhs, rhs)
    }
    pub fn le(lhs: Expr, rhs: Expr) -> Expr {
        Expr::cmp(CmpOp::Le, lhs, rhs)
    }
    pub fn ge(lhs: Expr, rhs: Expr) -> Expr {
        Expr::cmp(CmpOp::Ge, lhs, rhs)
    }
    pub fn eq(lhs: Expr, rhs: Expr) -> Expr {
        Expr::cmp(CmpOp::Eq, lhs, rhs)
    }
    pub fn and(lhs: Expr, rhs: Expr) -> Expr {
        Expr::logic(LogicOp::And, lhs, rhs)
    }
    pub fn or(lhs: Expr, rhs: Expr) -> Expr {
        Expr::logic(LogicOp::Or, lhs, rhs)
    }
    pub fn logical_not(value: Expr) -> Expr {
        Expr::Not(Box::new(value))
    }
    pub fn select(cond: Expr, on_true: Expr, on_false: Expr) -> Expr {
        Expr::Select { cond: Box::new(cond), on_true: Box::new(on_true), on_false: Box::new(on_false) }
    }
    pub fn if_then_else(cond: Expr, on_true: Expr, on_false: Expr) -> Expr {
        Expr::IfThenElse { cond: Box::new(cond), on_true: Box::new(on_true), on_false: Box::new(on_false) }
    }
    pub fn cast(dtype: DataType, value: Expr) -> Expr {
        Expr::Cast { dtype, value: Box::new(value) }
    }
    pub fn ramp(base: Expr, stride: Expr, lanes: u16) -> Expr {
        Expr::Ramp { base: Box::new(base), stride: Box::new(stride), lanes }
    }
    pub fn broadcast(value: Expr, lanes: u16) -> Expr {
        Expr::Broadcast { value: Box::new(value), lanes }
    }
    pub fn let_in(var: Var, value: Expr, body: Expr) -> Expr {
        Expr::Let { var, value: Box::new(value), body: Box::new(body) }
    }
    pub fn load(buffer: &Buffer, indices: Vec<Expr>) -> Expr {
        Expr::Load(BufferLoad { buffer: buffer.clone(), indices })
    }

    /// The type of the expression, derived from its operands. Both operands of a binary,
    /// comparison or logical operator have one type (the checker refuses a tree where they
    /// differ), so it is read from an operand that is not itself such a node when there is
    /// one: along a chain `a + b + ...` (left-leaning) or `a + (b + ...)` that is the short
    /// side, so every walk that asks the type of each node stays linear, and the loop costs no
    /// stack. Passing a comparison or logical node makes the result bool of the same lanes.
    pub fn dtype(&self) -> DataType {
        let is_operator = |e: &Expr| matches!(e, Expr::Binary { .. } | Expr::Cmp { .. } | Expr::Logic { .. });
        let mut e = self;
        let mut boolean = false;
        while let Expr::Binary { lhs, rhs, .. } | Expr::Cmp { lhs, rhs, .. } | Expr::Logic { lhs, rhs, .. } = e {
            boolean |= !matches!(e, Expr::Binary { .. });
            e = if is_operator(lhs) && !is_operator(rhs) { rhs } else { lhs };
        }
        let leaf = e.leaf_dtype();
        if boolean {
            leaf.bool_like()
        } else {
            leaf
        }
    }

    /// The type of a node that is not a binary, comparison or logical operator.
    fn leaf_dtype(&self) -> DataType {
        let e = self;
        match e {
            Expr::Int { dtype, .. } | Expr::Float { dtype, .. } | Expr::Cast { dtype, .. } => *dtype,
            Expr::Str(_) => DataType::HANDLE,
            Expr::Var(v) => v.dtype(),
            Expr::Binary { lhs, .. } => lhs.dtype(),
            Expr::Cmp { lhs, .. } | Expr::Logic { lhs, .. } => lhs.dtype().bool_like(),
            Expr::Not(value) => value.dtype().bool_like(),
            Expr::Select { on_true, .. } | Expr::IfThenElse { on_true, .. } => on_true.dtype(),
            Expr::Ramp { base, lanes, .. } => base.dtype().with_lanes(*lanes),
            Expr::Broadcast { value, lanes } => {
                let v = value.dtype();
                v.with_lanes(v.lanes.saturating_mul(*lanes))
            }
            Expr::Let { body, .. } => body.dtype(),
            Expr::Load(load) => load.dtype(),
            Expr::Call(call) => call.dtype,
        }
    }

    /// The value of an integer or bool immediate.
    pub fn as_int(&self) -> Option<i64> {
        match self {
            Expr::Int { value, .. } => Some(*value),
            _ => None,
        }
    }

    pub fn as_var(&self) -> Option<&Var> {
        match self {
            Expr::Var(v) => Some(v),
            _ => None,
        }
    }

    /// True for immediates (int, float, bool, string).
    pub fn is_const(&self) -> bool {
        matches!(self, Expr::Int { .. } | Expr::Float { .. } | Expr::Str(_))
    }
}

impl From<&Var> for Expr {
    fn from(v: &Var) -> Self {
        Expr::Var(v.clone())
    }
}

impl From<i64> for Expr {
    fn from(v: i64) -> Self {
        Expr::int(v)
    }
}

impl std::ops::Add for Expr {
    type Output = Expr;
    fn add(self, rhs: Expr) -> Expr {
        Expr::binary(BinOp::Add, self, rhs)
    }
}

impl std::ops::Sub for Expr {
    type Output = Expr;
    fn sub(self, rhs: Expr) -> Expr {
        Expr::binary(BinOp::Sub, self, rhs)
    }
}

impl std::ops::Mul for Expr {
    type Output = Expr;
    fn mul(self, rhs: Expr) -> Expr {
        Expr::binary(BinOp::Mul, self, rhs)
    }
}
