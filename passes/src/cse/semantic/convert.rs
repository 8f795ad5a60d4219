//! Between IR expressions and the e-graph language: adding an expression to an e-graph (or
//! looking a node up), and turning an extracted term or an instantiated pattern back into IR.
//!
//! Invariant: `to_expr(node_of(e))` rebuilds `e` node for node (same operators, types and
//! leaves), so what extraction returns is an ordinary IR expression of the right type.

use std::collections::HashMap;

use egg::{Id, Language, RecExpr};
use tirproof_ir::structural::expr_eq;
use tirproof_ir::{BinOp, Call, CallEffect, CmpOp, Expr, LogicOp, Var};

use super::analysis::Graph;
use super::lang::{BroadcastLanes, CallHead, CastTo, FloatLeaf, IntLeaf, OpaqueLeaf, RampLanes, TirLang, VarLeaf};

/// The leaves met so far: variables by id, and opaque expressions by index.
#[derive(Debug, Default)]
pub struct Leaves {
    vars: HashMap<u32, Var>,
    opaque: Vec<Expr>,
}

impl Leaves {
    /// The opaque leaf for `e`, added when `add`.
    fn opaque(&mut self, e: &Expr, add: bool) -> Option<OpaqueLeaf> {
        let dtype = e.dtype();
        if let Some(i) = self.opaque.iter().position(|o| expr_eq(o, e)) {
            return Some(OpaqueLeaf { index: u32::try_from(i).ok()?, dtype });
        }
        if !add {
            return None;
        }
        self.opaque.push(e.clone());
        Some(OpaqueLeaf { index: u32::try_from(self.opaque.len() - 1).ok()?, dtype })
    }

    pub fn var(&self, id: u32) -> Option<&Var> {
        self.vars.get(&id)
    }

    pub fn remember(&mut self, var: &Var) {
        self.vars.insert(var.id().0, var.clone());
    }
}

/// The node of `e` with operands `kids`, or `None` when the language cannot express it (a load,
/// a let, an impure call) or a child has no class. `add` lets it register new opaque leaves.
pub fn node_of(e: &Expr, kids: &[Id], leaves: &mut Leaves, add: bool) -> Option<TirLang> {
    let two = || -> Option<[Id; 2]> { kids.try_into().ok() };
    Some(match e {
        Expr::Int { value, dtype } => TirLang::Int(IntLeaf { value: *value, dtype: *dtype }),
        Expr::Float { value, dtype } => TirLang::Float(FloatLeaf { bits: value.to_bits(), dtype: *dtype }),
        Expr::Var(v) => {
            if add {
                leaves.remember(v);
            }
            TirLang::Var(VarLeaf { id: v.id().0, dtype: v.dtype() })
        }
        Expr::Str(_) => TirLang::Opaque(leaves.opaque(e, add)?),
        Expr::Binary { op, .. } => binary(*op, two()?),
        Expr::Cmp { op, .. } => compare(*op, two()?),
        Expr::Logic { op: LogicOp::And, .. } => TirLang::And(two()?),
        Expr::Logic { op: LogicOp::Or, .. } => TirLang::Or(two()?),
        Expr::Not(_) => TirLang::Not(kids.try_into().ok()?),
        Expr::Select { .. } => TirLang::Select(kids.try_into().ok()?),
        Expr::IfThenElse { .. } => TirLang::IfThenElse(kids.try_into().ok()?),
        Expr::Cast { dtype, .. } => TirLang::Cast(CastTo(*dtype), kids.try_into().ok()?),
        Expr::Ramp { lanes, .. } => TirLang::Ramp(RampLanes(*lanes), two()?),
        Expr::Broadcast { lanes, .. } => TirLang::Broadcast(BroadcastLanes(*lanes), kids.try_into().ok()?),
        Expr::Call(call) if call.effect == CallEffect::Pure => {
            let head = CallHead { name: call.name.clone(), dtype: call.dtype, external: call.external };
            TirLang::Call(head, kids.into())
        }
        Expr::Call(_) | Expr::Load(_) | Expr::Let { .. } => return None,
    })
}

fn binary(op: BinOp, k: [Id; 2]) -> TirLang {
    match op {
        BinOp::Add => TirLang::Add(k),
        BinOp::Sub => TirLang::Sub(k),
        BinOp::Mul => TirLang::Mul(k),
        BinOp::Div => TirLang::Div(k),
        BinOp::FloorDiv => TirLang::FloorDiv(k),
        BinOp::FloorMod => TirLang::FloorMod(k),
        BinOp::TruncDiv => TirLang::TruncDiv(k),
        BinOp::TruncMod => TirLang::TruncMod(k),
        BinOp::Min => TirLang::Min(k),
        BinOp::Max => TirLang::Max(k),
        BinOp::BitAnd => TirLang::BitAnd(k),
        BinOp::BitOr => TirLang::BitOr(k),
        BinOp::BitXor => TirLang::BitXor(k),
        BinOp::Shl => TirLang::Shl(k),
        BinOp::Shr => TirLang::Shr(k),
    }
}

fn compare(op: CmpOp, k: [Id; 2]) -> TirLang {
    match op {
        CmpOp::Eq => TirLang::Eq(k),
        CmpOp::Ne => TirLang::Ne(k),
        CmpOp::Lt => TirLang::Lt(k),
        CmpOp::Le => TirLang::Le(k),
        CmpOp::Gt => TirLang::Gt(k),
        CmpOp::Ge => TirLang::Ge(k),
    }
}

/// Adds `e` to `egraph`; `added` receives every node in the order it was added.
pub fn add(egraph: &mut Graph, e: &Expr, leaves: &mut Leaves, added: &mut Vec<TirLang>) -> Option<Id> {
    let kids =
        crate::cse::eligible::children(e).map(|(c, _)| add(egraph, c, leaves, added)).collect::<Option<Vec<Id>>>()?;
    let node = node_of(e, &kids, leaves, true)?;
    added.push(node.clone());
    Some(egraph.add(node))
}

/// Why a term could not be turned back into IR.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("the e-graph term `{0}` has no IR form (unknown leaf or wrong operand count)")]
pub struct ToExprError(pub String);

/// The IR form of the term rooted at the last node of `term`.
pub fn to_expr(term: &RecExpr<TirLang>, leaves: &Leaves) -> Result<Expr, ToExprError> {
    let nodes = term.as_ref();
    let root = nodes.len().checked_sub(1).ok_or_else(|| ToExprError("<empty>".into()))?;
    build(nodes, root, &mut |leaf| leaf_expr(leaf, leaves))
}

/// Builds the IR of `nodes[at]`; `leaf` turns leaves (and pattern variables, for patterns)
/// into IR.
pub fn build<L: Language + std::fmt::Display + AsTir>(
    nodes: &[L],
    at: usize,
    leaf: &mut dyn FnMut(&L) -> Result<Expr, ToExprError>,
) -> Result<Expr, ToExprError> {
    let node = &nodes[at];
    let Some(op) = node.as_tir() else { return leaf(node) };
    let kids = op
        .children()
        .iter()
        .map(|c| build(nodes, usize::from(*c), leaf))
        .collect::<Result<Vec<Expr>, ToExprError>>()?;
    match op_expr(op, kids) {
        Some(e) => Ok(e),
        None if op.children().is_empty() => leaf(node),
        None => Err(ToExprError(node.to_string())),
    }
}

/// A node that may be a language node (terms) or a pattern variable (patterns).
pub trait AsTir {
    fn as_tir(&self) -> Option<&TirLang>;
}

impl AsTir for TirLang {
    fn as_tir(&self) -> Option<&TirLang> {
        Some(self)
    }
}

impl AsTir for egg::ENodeOrVar<TirLang> {
    fn as_tir(&self) -> Option<&TirLang> {
        match self {
            egg::ENodeOrVar::ENode(n) => Some(n),
            egg::ENodeOrVar::Var(_) => None,
        }
    }
}

fn leaf_expr(node: &TirLang, leaves: &Leaves) -> Result<Expr, ToExprError> {
    match node {
        TirLang::Var(l) => leaves.var(l.id).map(Expr::var).ok_or_else(|| ToExprError(node.to_string())),
        TirLang::Opaque(l) => leaves.opaque.get(l.index as usize).cloned().ok_or_else(|| ToExprError(node.to_string())),
        _ => Err(ToExprError(node.to_string())),
    }
}

/// The IR node of an operator or immediate with operands `kids`; `None` for variables and
/// opaque leaves (the caller resolves them) and for a wrong operand count.
fn op_expr(n: &TirLang, kids: Vec<Expr>) -> Option<Expr> {
    let mut it = kids.into_iter();
    let mut next = || it.next();
    Some(match n {
        TirLang::Int(l) => Expr::int_of(l.value, l.dtype),
        TirLang::Float(l) => Expr::float(f64::from_bits(l.bits), l.dtype),
        TirLang::Var(_) | TirLang::Opaque(_) => return None,
        TirLang::Not(_) => Expr::logical_not(next()?),
        TirLang::Select(_) => Expr::select(next()?, next()?, next()?),
        TirLang::IfThenElse(_) => Expr::if_then_else(next()?, next()?, next()?),
        TirLang::Cast(to, _) => Expr::cast(to.0, next()?),
        TirLang::Ramp(lanes, _) => Expr::ramp(next()?, next()?, lanes.0),
        TirLang::Broadcast(lanes, _) => Expr::broadcast(next()?, lanes.0),
        TirLang::Call(head, _) => Expr::Call(Call {
            name: head.name.clone(),
            dtype: head.dtype,
            args: std::iter::from_fn(next).collect(),
            effect: CallEffect::Pure,
            external: head.external,
        }),
        TirLang::And(_) => Expr::and(next()?, next()?),
        TirLang::Or(_) => Expr::or(next()?, next()?),
        other => {
            let (a, b) = (next()?, next()?);
            match binary_op(other) {
                Some(op) => Expr::binary(op, a, b),
                None => Expr::cmp(compare_op(other)?, a, b),
            }
        }
    })
}

fn binary_op(n: &TirLang) -> Option<BinOp> {
    Some(match n {
        TirLang::Add(_) => BinOp::Add,
        TirLang::Sub(_) => BinOp::Sub,
        TirLang::Mul(_) => BinOp::Mul,
        TirLang::Div(_) => BinOp::Div,
        TirLang::FloorDiv(_) => BinOp::FloorDiv,
        TirLang::FloorMod(_) => BinOp::FloorMod,
        TirLang::TruncDiv(_) => BinOp::TruncDiv,
        TirLang::TruncMod(_) => BinOp::TruncMod,
        TirLang::Min(_) => BinOp::Min,
        TirLang::Max(_) => BinOp::Max,
        TirLang::BitAnd(_) => BinOp::BitAnd,
        TirLang::BitOr(_) => BinOp::BitOr,
        TirLang::BitXor(_) => BinOp::BitXor,
        TirLang::Shl(_) => BinOp::Shl,
        TirLang::Shr(_) => BinOp::Shr,
        _ => return None,
    })
}

fn compare_op(n: &TirLang) -> Option<CmpOp> {
    Some(match n {
        TirLang::Eq(_) => CmpOp::Eq,
        TirLang::Ne(_) => CmpOp::Ne,
        TirLang::Lt(_) => CmpOp::Lt,
        TirLang::Le(_) => CmpOp::Le,
        TirLang::Gt(_) => CmpOp::Gt,
        TirLang::Ge(_) => CmpOp::Ge,
        _ => return None,
    })
}
