//! The internal form the compiler produces and the executor runs.
//!
//! Statements become a flat instruction list with jumps, so a thread's whole control state
//! is a program counter plus its frame: a thread suspended at a barrier resumes by jumping
//! back in. Expressions stay trees (`CExpr`) with every variable resolved to a slot, every
//! buffer to a buffer slot and every operator specialised to its scalar kind and lane count,
//! checked once at compile time.
//!
//! Invariants: jump targets are inside `code`; slot numbers are below the frame sizes
//! recorded here; each `CExpr` node's `lanes()` is the lane count it evaluates to, and its
//! children have the lane counts the evaluator expects (checked by the compiler).

use tirproof_ir::async_op::TokenOp;
use tirproof_ir::expr::{BinOp, CmpOp, LogicOp};
use tirproof_ir::span::Span;
use tirproof_ir::ThreadTag;

use tirproof_machine::arith::math::MathFn;
use tirproof_machine::error::ExecError;
use tirproof_machine::memory::Visibility;
use tirproof_machine::value::Num;

/// Marks an instruction that is not a statement of its own (costs no fuel).
pub(crate) const NO_STMT: u32 = u32::MAX;
/// The parent of an outermost context node.
pub(crate) const NO_CTX: u32 = u32::MAX;

/// A compiled expression.
#[derive(Debug)]
pub(crate) enum CExpr {
    Const(u64),
    ConstV(Box<[u64]>),
    Slot(u32),
    SlotV {
        slot: u32,
        lanes: u16,
    },
    Bin(Box<BinNode>),
    Cmp(Box<CmpNode>),
    Logic(Box<LogicNode>),
    Not {
        value: Box<CExpr>,
        lanes: u16,
    },
    Select(Box<SelectNode>),
    Cast(Box<CastNode>),
    Ramp(Box<RampNode>),
    Broadcast(Box<BroadcastNode>),
    Let(Box<LetNode>),
    Load(Box<LoadNode>),
    Call(Box<CallNode>),
    /// A token of one of the thread's queues (`tirproof_ir::async_op::TokenOp`).
    Token(Box<TokenNode>),
    /// A construct that cannot be evaluated; reported only if reached.
    Fail {
        error: Box<ExecError>,
        lanes: u16,
    },
}

impl CExpr {
    /// The number of lanes this expression evaluates to.
    pub(crate) fn lanes(&self) -> u16 {
        match self {
            CExpr::Const(_) | CExpr::Slot(_) => 1,
            CExpr::ConstV(v) => u16::try_from(v.len()).unwrap_or(u16::MAX),
            CExpr::SlotV { lanes, .. } | CExpr::Not { lanes, .. } | CExpr::Fail { lanes, .. } => *lanes,
            CExpr::Bin(n) => n.lanes,
            CExpr::Cmp(n) => n.lanes,
            CExpr::Logic(n) => n.lanes,
            CExpr::Select(n) => n.lanes,
            CExpr::Cast(n) => n.lanes,
            CExpr::Ramp(n) => n.lanes,
            CExpr::Broadcast(n) => n.lanes,
            CExpr::Let(n) => n.body.lanes(),
            CExpr::Load(n) => n.lanes,
            CExpr::Call(n) => n.lanes,
            CExpr::Token(_) => 1,
        }
    }
}

#[derive(Debug)]
pub(crate) struct BinNode {
    pub(crate) op: BinOp,
    pub(crate) num: Num,
    pub(crate) lanes: u16,
    pub(crate) lhs: CExpr,
    pub(crate) rhs: CExpr,
}

#[derive(Debug)]
pub(crate) struct CmpNode {
    pub(crate) op: CmpOp,
    /// Kind of the operands (the result is bool).
    pub(crate) num: Num,
    pub(crate) lanes: u16,
    pub(crate) lhs: CExpr,
    pub(crate) rhs: CExpr,
}

#[derive(Debug)]
pub(crate) struct LogicNode {
    pub(crate) op: LogicOp,
    pub(crate) lanes: u16,
    pub(crate) lhs: CExpr,
    pub(crate) rhs: CExpr,
}

/// `Select` (both arms evaluated) or `if_then_else` (`lazy`: only the taken arm, unless the
/// condition is a vector, in which case both are evaluated and blended per lane).
#[derive(Debug)]
pub(crate) struct SelectNode {
    pub(crate) lazy: bool,
    pub(crate) lanes: u16,
    /// Kind of the condition (tested with `truthy`).
    pub(crate) cond_num: Num,
    pub(crate) cond: CExpr,
    pub(crate) on_true: CExpr,
    pub(crate) on_false: CExpr,
}

#[derive(Debug)]
pub(crate) struct CastNode {
    pub(crate) from: Num,
    pub(crate) to: Num,
    pub(crate) lanes: u16,
    pub(crate) value: CExpr,
}

#[derive(Debug)]
pub(crate) struct RampNode {
    pub(crate) num: Num,
    pub(crate) lanes: u16,
    pub(crate) base: CExpr,
    pub(crate) stride: CExpr,
}

/// Repeats the (possibly vector) value until `lanes` lanes.
#[derive(Debug)]
pub(crate) struct BroadcastNode {
    pub(crate) lanes: u16,
    pub(crate) value: CExpr,
}

/// Where a `Let` puts its value.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum SlotRef {
    Scalar(u32),
    Vector(u32),
}

#[derive(Debug)]
pub(crate) struct LetNode {
    pub(crate) slot: SlotRef,
    pub(crate) value: CExpr,
    pub(crate) body: CExpr,
}

/// A buffer access: per-dimension indices (only the last may be a vector), the buffer slot
/// and the kinds of the indices.
#[derive(Debug)]
pub(crate) struct Access {
    pub(crate) buf: u32,
    pub(crate) indices: Vec<CExpr>,
    pub(crate) index_nums: Vec<Num>,
    /// Lanes of the last index (N).
    pub(crate) index_lanes: u16,
    /// For `B[v]` with one scalar variable index: its slot and kind (the fast path).
    pub(crate) var_index: Option<(u32, Num)>,
}

#[derive(Debug)]
pub(crate) struct LoadNode {
    pub(crate) access: Access,
    /// N * M.
    pub(crate) lanes: u16,
}

#[derive(Debug)]
pub(crate) struct CallNode {
    pub(crate) func: MathFn,
    /// Kind of the arguments.
    pub(crate) arg_num: Num,
    pub(crate) lanes: u16,
    pub(crate) args: Vec<CExpr>,
}

/// `async_group_token(queue)` or `async_copy_token(queue)`.
#[derive(Debug)]
pub(crate) struct TokenNode {
    pub(crate) op: TokenOp,
    pub(crate) queue: CExpr,
    pub(crate) queue_num: Num,
    /// The line of the statement that makes the token.
    pub(crate) line: u32,
}

/// A wait that names tokens: it waits until their groups complete, or, with a count, waits
/// for the count and checks that this completes them.
#[derive(Debug)]
pub(crate) struct WaitTokensIns {
    pub(crate) stmt: u32,
    pub(crate) queue: (CExpr, Num),
    pub(crate) count: Option<(CExpr, Num)>,
    pub(crate) tokens: Vec<(CExpr, Num)>,
}

/// Instructions that evaluate a buffer's layout into the frame.
#[derive(Debug)]
pub(crate) struct LayoutIns {
    pub(crate) buf: u32,
    pub(crate) data: u32,
    pub(crate) shape: Vec<CExpr>,
    pub(crate) strides: Vec<CExpr>,
    pub(crate) elem_offset: CExpr,
}

/// How big an allocation is.
#[derive(Debug)]
pub(crate) enum AllocSize {
    /// `T.allocate`: the product of the extents, times the lanes of the type.
    Extents { extents: Vec<CExpr>, lanes: u16 },
    /// A buffer allocation: what its layout spans (the layout is stored too).
    Buffer(LayoutIns),
}

#[derive(Debug)]
pub(crate) struct AllocIns {
    pub(crate) stmt: u32,
    pub(crate) data: u32,
    pub(crate) name: String,
    pub(crate) num: Num,
    pub(crate) size: AllocSize,
    /// One storage per block of threads (shared or global scope inside a thread block):
    /// the first thread to get here allocates it, the others reuse it.
    pub(crate) per_block: bool,
    /// Which threads see it (from its scope): races are tracked unless only one does.
    pub(crate) visibility: Visibility,
}

#[derive(Debug)]
pub(crate) struct StoreIns {
    pub(crate) stmt: u32,
    pub(crate) access: Access,
    pub(crate) value: CExpr,
    /// Inside an `async_scope`.
    pub(crate) is_async: bool,
}

#[derive(Debug)]
pub(crate) struct LoopIns {
    pub(crate) stmt: u32,
    pub(crate) var: u32,
    /// A hidden scalar slot holding `min + extent` (as i64).
    pub(crate) end: u32,
    pub(crate) num: Num,
    pub(crate) min: CExpr,
    pub(crate) min_num: Num,
    pub(crate) extent: CExpr,
    pub(crate) extent_num: Num,
    /// Where to go when the loop runs zero times.
    pub(crate) exit: u32,
}

/// Which coordinate a binding reads: a thread's in its block, or its block's in the grid.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Coord {
    Thread(usize),
    Block(usize),
}

impl Coord {
    /// The coordinate a tag binds (`None` for `vthread` and unknown tags, which are loops).
    pub(crate) fn of(tag: &str) -> Option<Coord> {
        match ThreadTag::parse(tag)? {
            ThreadTag::Thread(axis) => Some(Coord::Thread(axis.index())),
            ThreadTag::Block(axis) => Some(Coord::Block(axis.index())),
            _ => None,
        }
    }
}

/// Starts a kernel launch: the extents of each thread axis and of each block axis (several
/// bindings of one axis take the largest), evaluated in the launching frame.
#[derive(Debug)]
pub(crate) struct RegionIns {
    pub(crate) stmt: u32,
    pub(crate) extents: [Vec<(CExpr, Num)>; 3],
    pub(crate) blocks: [Vec<(CExpr, Num)>; 3],
    /// The `RegionEnd` instruction.
    pub(crate) end: u32,
}

/// Binds a thread or block variable to the running thread's coordinate; coordinates beyond
/// this binding's own extent skip its body.
#[derive(Debug)]
pub(crate) struct ThreadBindIns {
    pub(crate) stmt: u32,
    pub(crate) slot: u32,
    pub(crate) num: Num,
    pub(crate) coord: Coord,
    pub(crate) min: CExpr,
    pub(crate) min_num: Num,
    pub(crate) extent: CExpr,
    pub(crate) extent_num: Num,
    pub(crate) skip: u32,
}

#[derive(Debug)]
pub(crate) enum Ins {
    /// A statement with no effect of its own (attributes, declarations): costs `n`.
    Tick {
        stmt: u32,
        n: u32,
    },
    Store(Box<StoreIns>),
    /// Scalar `Let` (or a block iteration variable, with `stmt == NO_STMT`).
    SetScalar {
        stmt: u32,
        slot: u32,
        value: CExpr,
    },
    SetVector {
        stmt: u32,
        slot: u32,
        value: CExpr,
    },
    LoopInit(Box<LoopIns>),
    /// `var += 1`; back to `body` while `var < end`.
    LoopNext {
        var: u32,
        end: u32,
        body: u32,
    },
    /// Falls through when `cond` is true, else jumps to `target`.
    Branch {
        stmt: u32,
        cond: CExpr,
        cond_num: Num,
        target: u32,
    },
    Jump {
        target: u32,
    },
    Alloc(Box<AllocIns>),
    /// The end of an allocation's scope.
    Free {
        data: u32,
        per_block: bool,
    },
    Materialize(Box<LayoutIns>),
    Eval {
        stmt: u32,
        value: CExpr,
    },
    Barrier {
        stmt: u32,
    },
    Wait {
        stmt: u32,
        queue: CExpr,
        queue_num: Num,
        count: CExpr,
        count_num: Num,
    },
    WaitTokens(Box<WaitTokensIns>),
    Commit {
        stmt: u32,
        queue: CExpr,
        queue_num: Num,
    },
    RegionStart(Box<RegionIns>),
    RegionEnd,
    /// A step through the blocks of a kernel (`blockIdx` bindings), for race detection.
    ThreadBind(Box<ThreadBindIns>),
    End,
}

impl Ins {
    /// The statement an instruction belongs to, for locating faults.
    pub(crate) fn stmt(&self) -> u32 {
        match self {
            Ins::Tick { stmt, .. }
            | Ins::SetScalar { stmt, .. }
            | Ins::SetVector { stmt, .. }
            | Ins::Branch { stmt, .. }
            | Ins::Eval { stmt, .. }
            | Ins::Barrier { stmt }
            | Ins::Wait { stmt, .. }
            | Ins::Commit { stmt, .. } => *stmt,
            Ins::WaitTokens(w) => w.stmt,
            Ins::Store(s) => s.stmt,
            Ins::LoopInit(l) => l.stmt,
            Ins::Alloc(a) => a.stmt,
            Ins::RegionStart(r) => r.stmt,
            Ins::ThreadBind(t) => t.stmt,
            Ins::LoopNext { .. }
            | Ins::Jump { .. }
            | Ins::Free { .. }
            | Ins::Materialize(_)
            | Ins::RegionEnd
            | Ins::End => NO_STMT,
        }
    }
}

/// Where a statement is, for fault reports.
#[derive(Clone, Copy, Debug)]
pub(crate) struct StmtInfo {
    pub(crate) span: Span,
    /// The innermost enclosing loop or thread binding (`NO_CTX` for none).
    pub(crate) ctx: u32,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum CtxKind {
    Loop,
    /// A `threadIdx` binding with its tag.
    Thread(String),
    /// A `blockIdx` binding with its tag: a loop over the blocks of a kernel.
    Block(String),
}

/// One enclosing loop or thread binding; nodes form a tree through `parent`.
#[derive(Clone, Debug)]
pub(crate) struct CtxNode {
    pub(crate) parent: u32,
    pub(crate) name: String,
    pub(crate) slot: u32,
    pub(crate) num: Num,
    pub(crate) kind: CtxKind,
}

/// What the program knows about a buffer statically.
#[derive(Clone, Debug)]
pub(crate) struct BufInfo {
    pub(crate) name: String,
    pub(crate) num: Num,
    pub(crate) lanes: u16,
}

/// How the caller's inputs enter the frame.
#[derive(Debug)]
pub(crate) enum ParamBinding {
    Scalar { name: String, slot: u32, num: Num },
    Buffer { name: String, layout: LayoutIns },
}

#[derive(Debug)]
pub(crate) struct Program {
    pub(crate) code: Vec<Ins>,
    pub(crate) stmts: Vec<StmtInfo>,
    pub(crate) ctxs: Vec<CtxNode>,
    pub(crate) buffers: Vec<BufInfo>,
    pub(crate) n_scalars: usize,
    pub(crate) n_vectors: usize,
    pub(crate) n_data: usize,
    pub(crate) params: Vec<ParamBinding>,
    /// Layouts of buffers never declared themselves, evaluated right after the parameter
    /// storages exist (aliases of parameters).
    pub(crate) param_aliases: Vec<LayoutIns>,
}
