//! Functions and modules.
//!
//! A `PrimFunc` has parameters (scalars, or handles with a buffer from the buffer map), a body
//! and attributes. An `IRModule` holds several functions in source order; a module read from a
//! file with a bare `@T.prim_func` has no class name.

use crate::annotation::Annotations;
use crate::buffer::Buffer;
use crate::span::Span;
use crate::stmt::Stmt;
use crate::var::Var;

/// One parameter: a scalar variable, or a handle whose buffer is in the buffer map.
#[derive(Clone, Debug, PartialEq)]
pub struct Param {
    pub var: Var,
    /// The buffer this handle is mapped to (the function's buffer map).
    pub buffer: Option<Buffer>,
}

#[derive(Clone, Debug, PartialEq)]
pub struct PrimFunc {
    pub name: String,
    pub params: Vec<Param>,
    /// `T.func_attr({...})`.
    pub attrs: Annotations,
    pub body: Stmt,
    /// `@T.prim_func(s_tir=True)`.
    pub s_tir: bool,
    /// `@T.prim_func(private=True)`.
    pub private: bool,
    pub span: Span,
}

impl PrimFunc {
    /// The buffers of the buffer map, in parameter order.
    pub fn param_buffers(&self) -> impl Iterator<Item = &Buffer> {
        self.params.iter().filter_map(|p| p.buffer.as_ref())
    }

    /// The scalar (non-buffer) parameters.
    pub fn scalar_params(&self) -> impl Iterator<Item = &Var> {
        self.params.iter().filter(|p| p.buffer.is_none()).map(|p| &p.var)
    }
}

#[derive(Clone, Debug, Default, PartialEq)]
pub struct IRModule {
    /// The class name of `@I.ir_module class Module:`; `None` for a bare function.
    pub class_name: Option<String>,
    pub functions: Vec<PrimFunc>,
}

impl IRModule {
    pub fn get(&self, name: &str) -> Option<&PrimFunc> {
        self.functions.iter().find(|f| f.name == name)
    }

    pub fn get_mut(&mut self, name: &str) -> Option<&mut PrimFunc> {
        self.functions.iter_mut().find(|f| f.name == name)
    }
}
