//! Variables: loop variables, let-bound values, parameters and buffer data pointers.
//!
//! A `Var` is a cheap, shared handle. Identity is the `VarId`, never the name: two variables
//! may share a name (the printer disambiguates), and structural equality works modulo
//! renaming. `Display` prints the name, as the text format does.

use std::fmt;
use std::hash::{Hash, Hasher};
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::Arc;

use crate::dtype::DataType;

/// Identity of a variable, unique within the process.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct VarId(pub u32);

impl fmt::Display for VarId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "v{}", self.0)
    }
}

static NEXT_VAR: AtomicU32 = AtomicU32::new(1);

#[derive(Debug)]
pub struct VarNode {
    pub id: VarId,
    pub name: String,
    pub dtype: DataType,
}

/// A variable. Cloning shares the node; equality and hashing use the id.
#[derive(Clone, Debug)]
pub struct Var(Arc<VarNode>);

impl Var {
    /// A fresh variable, distinct from every other.
    pub fn new(name: impl Into<String>, dtype: DataType) -> Self {
        let id = VarId(NEXT_VAR.fetch_add(1, Ordering::Relaxed));
        Var(Arc::new(VarNode { id, name: name.into(), dtype }))
    }

    /// A fresh variable with the same name and type (for passes that duplicate a binding).
    pub fn fresh_copy(&self) -> Self {
        Var::new(self.name(), self.dtype())
    }

    pub fn id(&self) -> VarId {
        self.0.id
    }
    pub fn name(&self) -> &str {
        &self.0.name
    }
    pub fn dtype(&self) -> DataType {
        self.0.dtype
    }
}

impl PartialEq for Var {
    fn eq(&self, other: &Self) -> bool {
        self.0.id == other.0.id
    }
}
impl Eq for Var {}

impl Hash for Var {
    fn hash<H: Hasher>(&self, state: &mut H) {
        self.0.id.hash(state);
    }
}

impl PartialOrd for Var {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}
impl Ord for Var {
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        self.0.id.cmp(&other.0.id)
    }
}

impl fmt::Display for Var {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0.name)
    }
}
