//! Printed names for variables and buffers.
//!
//! Python has one namespace for everything the printer defines, so variables and buffers share
//! it. A name is taken while its scope is open; a later definition that would clash gets a
//! `_1`, `_2`, ... suffix. Names are sanitized into Python identifiers and never shadow the
//! `T` / `I` module aliases or a keyword. The result depends only on the tree, never on ids.

use std::collections::{HashMap, HashSet};

use crate::buffer::{Buffer, BufferId};
use crate::var::{Var, VarId};

const RESERVED: [&str; 39] = [
    "T", "I", "range", "True", "False", "None", "and", "as", "assert", "async", "await", "break", "class", "continue",
    "def", "del", "elif", "else", "except", "finally", "for", "from", "global", "if", "import", "in", "is", "lambda",
    "nonlocal", "not", "or", "pass", "raise", "return", "try", "while", "with", "yield", "print",
];

#[derive(Default)]
pub(crate) struct Names {
    vars: HashMap<VarId, String>,
    buffers: HashMap<BufferId, String>,
    /// For data variables that belong to a buffer: the buffer that introduced them.
    data_owner: HashMap<VarId, String>,
    /// The buffers of `data_owner`, for printing an alias as `owner.view(...)`.
    owner_buffers: HashMap<VarId, Buffer>,
    taken: HashSet<String>,
    /// Names defined in each open scope, innermost last.
    scopes: Vec<Vec<String>>,
}

impl Names {
    pub(crate) fn open_scope(&mut self) {
        self.scopes.push(Vec::new());
    }

    pub(crate) fn close_scope(&mut self) {
        for name in self.scopes.pop().unwrap_or_default() {
            self.taken.remove(&name);
        }
    }

    fn claim(&mut self, wanted: &str) -> String {
        let base = sanitize(wanted);
        let mut name = base.clone();
        let mut n = 0;
        while self.taken.contains(&name) {
            n += 1;
            name = format!("{base}_{n}");
        }
        self.taken.insert(name.clone());
        if let Some(scope) = self.scopes.last_mut() {
            scope.push(name.clone());
        }
        name
    }

    pub(crate) fn define_var(&mut self, var: &Var) -> String {
        let name = self.claim(var.name());
        self.vars.insert(var.id(), name.clone());
        name
    }

    /// Defines a buffer; its data variable prints as `name.data` unless it already has a name.
    pub(crate) fn define_buffer(&mut self, buffer: &Buffer) -> String {
        let name = self.claim(buffer.name());
        self.buffers.insert(buffer.id(), name.clone());
        let data = buffer.data().id();
        if !self.vars.contains_key(&data) && !self.data_owner.contains_key(&data) {
            self.data_owner.insert(data, name.clone());
            self.owner_buffers.insert(data, buffer.clone());
        }
        name
    }

    /// The buffer that introduced `data` and is still printed under its name, if any.
    pub(crate) fn owner_buffer(&self, data: &Var) -> Option<&Buffer> {
        let owner = self.data_owner.get(&data.id())?;
        self.taken.contains(owner).then(|| self.owner_buffers.get(&data.id())).flatten()
    }

    /// Whether `var` already has a printed form (a name or an owning buffer).
    pub(crate) fn knows_var(&self, var: &Var) -> bool {
        self.vars.contains_key(&var.id()) || self.data_owner.contains_key(&var.id())
    }

    pub(crate) fn var(&self, var: &Var) -> String {
        if let Some(name) = self.vars.get(&var.id()) {
            return name.clone();
        }
        if let Some(owner) = self.data_owner.get(&var.id()) {
            return format!("{owner}.data");
        }
        sanitize(var.name())
    }

    pub(crate) fn buffer(&self, buffer: &Buffer) -> String {
        self.buffers.get(&buffer.id()).cloned().unwrap_or_else(|| sanitize(buffer.name()))
    }
}

/// Turns any string into a Python identifier that is not reserved.
fn sanitize(name: &str) -> String {
    let mut out: String = name.chars().map(|c| if c.is_ascii_alphanumeric() || c == '_' { c } else { '_' }).collect();
    if out.is_empty() {
        out.push('v');
    }
    if out.starts_with(|c: char| c.is_ascii_digit()) {
        out.insert(0, '_');
    }
    if RESERVED.contains(&out.as_str()) {
        out.push('_');
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dtype::DataType;

    #[test]
    fn clashing_names_get_suffixes_until_their_scope_closes() {
        let mut names = Names::default();
        let a = Var::new("i", DataType::INT32);
        let b = Var::new("i", DataType::INT32);
        names.open_scope();
        assert_eq!(names.define_var(&a), "i");
        names.open_scope();
        assert_eq!(names.define_var(&b), "i_1");
        names.close_scope();
        names.close_scope();
        let c = Var::new("i", DataType::INT32);
        assert_eq!(names.define_var(&c), "i");
    }

    #[test]
    fn sanitizes_reserved_and_odd_names() {
        assert_eq!(sanitize("T"), "T_");
        assert_eq!(sanitize("lambda"), "lambda_");
        assert_eq!(sanitize("threadIdx.x"), "threadIdx_x");
        assert_eq!(sanitize("0a"), "_0a");
        assert_eq!(sanitize(""), "v");
    }
}
