//! What one kernel declares (registers, labels) and what its body uses (registers, labels,
//! symbols), each use with its position, checked once the kernel's `}` is read: a use of
//! something the kernel does not declare is an error at the use. Declarations may follow
//! their uses, as in PTX, so nothing is checked before the kernel ends.
//!
//! Invariant: of several undeclared uses, the first in the text is reported.

use std::collections::{HashMap, HashSet};

use super::lex::Pos;
use super::{error_at, reg_of, ParseError};
use crate::module::Reg;

/// What a symbol in the body must name.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum SymbolKind {
    /// A parameter (`ld.param`'s address).
    Param,
    /// A `.shared` or `.local` array of the kernel or the module (any other symbol).
    Array,
}

#[derive(Debug, Default)]
pub(super) struct KernelScope {
    /// `.reg .T %r<4>;`: the prefix `%r` and the count 4 (the largest when declared again).
    ranges: HashMap<String, u32>,
    /// `.reg .T %r7;`: single registers.
    singles: HashSet<Reg>,
    labels: HashSet<String>,
    reg_uses: Vec<(Reg, Pos)>,
    label_uses: Vec<(String, Pos)>,
    symbol_uses: Vec<(String, Pos, SymbolKind)>,
}

impl KernelScope {
    pub(super) fn declare_range(&mut self, prefix: &str, count: u32) {
        let known = self.ranges.entry(prefix.to_string()).or_default();
        *known = (*known).max(count);
    }

    pub(super) fn declare_one(&mut self, name: &str) {
        if let Some(reg) = reg_of(name) {
            self.singles.insert(reg);
        }
    }

    /// Records the label `name`'s definition; false when the kernel already defines it.
    pub(super) fn define_label(&mut self, name: &str) -> bool {
        self.labels.insert(name.to_string())
    }

    pub(super) fn use_reg(&mut self, reg: Reg, pos: Pos) {
        self.reg_uses.push((reg, pos));
    }

    pub(super) fn use_label(&mut self, name: &str, pos: Pos) {
        self.label_uses.push((name.to_string(), pos));
    }

    pub(super) fn use_symbol(&mut self, name: &str, pos: Pos, kind: SymbolKind) {
        self.symbol_uses.push((name.to_string(), pos, kind));
    }

    fn declares(&self, reg: Reg) -> bool {
        self.singles.contains(&reg) || self.ranges.get(reg.class.prefix()).is_some_and(|count| reg.index < *count)
    }

    /// Checks every use of the kernel `kernel` against its declarations, its parameters and
    /// the arrays it sees.
    pub(super) fn check(&self, kernel: &str, params: &[&str], arrays: &[&str]) -> Result<(), ParseError> {
        let registers = self.reg_uses.iter().filter(|(reg, _)| !self.declares(*reg)).map(|&(reg, pos)| {
            let prefix = reg.class.prefix();
            let declared = match self.ranges.get(prefix) {
                Some(&count) if count > 0 => format!("`.reg` declares {prefix}0 to {prefix}{}", count - 1),
                _ => format!("no `.reg` declares {prefix}<N>"),
            };
            error_at(pos, format!("the register `{prefix}{}` is not declared ({declared})", reg.index))
        });
        let labels = self.label_uses.iter().filter(|(name, _)| !self.labels.contains(name)).map(|(name, pos)| {
            error_at(*pos, format!("a branch to `{name}`, a label the kernel `{kernel}` does not define"))
        });
        let symbols = self.symbol_uses.iter().filter_map(|(name, pos, kind)| {
            let message = match kind {
                SymbolKind::Param if params.contains(&name.as_str()) => return None,
                SymbolKind::Array if arrays.contains(&name.as_str()) => return None,
                SymbolKind::Param => format!("`{name}` is not a parameter of the kernel `{kernel}`"),
                SymbolKind::Array if params.contains(&name.as_str()) => {
                    format!("the parameter `{name}` is read only by `ld.param`, not as an address or a value")
                }
                SymbolKind::Array => format!("`{name}` names no array of the kernel `{kernel}` or of the module"),
            };
            Some(error_at(*pos, message))
        });
        match registers.chain(labels).chain(symbols).min_by_key(|e| (e.line, e.col)) {
            Some(error) => Err(error),
            None => Ok(()),
        }
    }
}
