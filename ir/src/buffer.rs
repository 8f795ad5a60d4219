//! Buffers: typed, shaped views of memory behind one data variable.
//!
//! A buffer has a name, a data variable (a `handle`), an element type (possibly a vector type),
//! a logical shape, optional strides (empty means compact row-major), an element offset and a
//! storage scope. Several buffers may alias one data variable (docs/buffers-and-lanes.md): they then
//! share storage, and a pass that changes one must change all of them. Buffers are shared
//! handles; identity is the `BufferId`. `Display` prints the name.

use std::fmt;
use std::hash::{Hash, Hasher};
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::Arc;

use crate::dtype::DataType;
use crate::expr::Expr;
use crate::var::Var;

/// Identity of a buffer, unique within the process.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct BufferId(pub u32);

impl fmt::Display for BufferId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "b{}", self.0)
    }
}

static NEXT_BUFFER: AtomicU32 = AtomicU32::new(1);

/// The storage scope of a buffer's memory.
pub const SCOPE_GLOBAL: &str = "global";
pub const SCOPE_SHARED: &str = "shared";
pub const SCOPE_LOCAL: &str = "local";

#[derive(Debug)]
pub struct BufferNode {
    pub id: BufferId,
    pub name: String,
    /// The data pointer; aliases share it.
    pub data: Var,
    pub dtype: DataType,
    pub shape: Vec<Expr>,
    /// Per-dimension strides in elements; empty means compact row-major.
    pub strides: Vec<Expr>,
    pub elem_offset: Expr,
    /// "global", "shared", "shared.dyn", "local", ...
    pub scope: String,
    /// Alignment in bytes as written (`align=`), 0 when not given.
    pub align: i64,
    /// `offset_factor=` as written, 0 when not given.
    pub offset_factor: i64,
}

/// Fields of a buffer other than its identity, for building one.
#[derive(Clone, Debug)]
pub struct BufferSpec {
    pub name: String,
    pub data: Var,
    pub dtype: DataType,
    pub shape: Vec<Expr>,
    pub strides: Vec<Expr>,
    pub elem_offset: Expr,
    pub scope: String,
    pub align: i64,
    pub offset_factor: i64,
}

impl BufferSpec {
    /// A compact buffer with a fresh data variable of the same name.
    pub fn new(name: impl Into<String>, dtype: DataType, shape: Vec<Expr>, scope: impl Into<String>) -> Self {
        let name = name.into();
        let data = Var::new(name.clone(), DataType::HANDLE);
        BufferSpec {
            name,
            data,
            dtype,
            shape,
            strides: Vec::new(),
            elem_offset: Expr::int(0),
            scope: scope.into(),
            align: 0,
            offset_factor: 0,
        }
    }

    pub fn build(self) -> Buffer {
        let id = BufferId(NEXT_BUFFER.fetch_add(1, Ordering::Relaxed));
        Buffer(Arc::new(BufferNode {
            id,
            name: self.name,
            data: self.data,
            dtype: self.dtype,
            shape: self.shape,
            strides: self.strides,
            elem_offset: self.elem_offset,
            scope: self.scope,
            align: self.align,
            offset_factor: self.offset_factor,
        }))
    }
}

/// A buffer. Cloning shares the node; equality and hashing use the id.
#[derive(Clone, Debug)]
pub struct Buffer(Arc<BufferNode>);

impl Buffer {
    pub fn id(&self) -> BufferId {
        self.0.id
    }
    pub fn name(&self) -> &str {
        &self.0.name
    }
    pub fn data(&self) -> &Var {
        &self.0.data
    }
    pub fn dtype(&self) -> DataType {
        self.0.dtype
    }
    pub fn shape(&self) -> &[Expr] {
        &self.0.shape
    }
    pub fn strides(&self) -> &[Expr] {
        &self.0.strides
    }
    pub fn elem_offset(&self) -> &Expr {
        &self.0.elem_offset
    }
    pub fn scope(&self) -> &str {
        &self.0.scope
    }
    pub fn node(&self) -> &BufferNode {
        &self.0
    }

    /// The fields of this buffer, to derive a new buffer (which gets a new identity).
    pub fn to_spec(&self) -> BufferSpec {
        let n = &*self.0;
        BufferSpec {
            name: n.name.clone(),
            data: n.data.clone(),
            dtype: n.dtype,
            shape: n.shape.clone(),
            strides: n.strides.clone(),
            elem_offset: n.elem_offset.clone(),
            scope: n.scope.clone(),
            align: n.align,
            offset_factor: n.offset_factor,
        }
    }

    /// The shape as constants, when every extent is one.
    pub fn const_shape(&self) -> Option<Vec<i64>> {
        self.0.shape.iter().map(Expr::as_int).collect()
    }

    /// Number of elements when the shape is constant.
    pub fn const_len(&self) -> Option<i64> {
        self.const_shape()?.iter().try_fold(1i64, |acc, d| acc.checked_mul(*d))
    }
}

impl PartialEq for Buffer {
    fn eq(&self, other: &Self) -> bool {
        self.0.id == other.0.id
    }
}
impl Eq for Buffer {}

impl Hash for Buffer {
    fn hash<H: Hasher>(&self, state: &mut H) {
        self.0.id.hash(state);
    }
}

impl fmt::Display for Buffer {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0.name)
    }
}

/// A half-open interval `[min, min + extent)` of one dimension.
#[derive(Clone, Debug, PartialEq)]
pub struct Range {
    pub min: Expr,
    pub extent: Expr,
}

impl Range {
    /// The single point `[index, index + 1)`.
    pub fn point(index: Expr) -> Self {
        Range { min: index, extent: Expr::int(1) }
    }
}

/// A rectangular region of a buffer, as in `T.reads(A[0:16, i])`.
#[derive(Clone, Debug, PartialEq)]
pub struct BufferRegion {
    pub buffer: Buffer,
    pub region: Vec<Range>,
}
