//! What one kernel declares (registers, labels) and what its body uses (registers, labels,
//! symbols), each use with its position, checked once the kernel's `}` is read: a use of
//! something the kernel does not declare is an error at the use. Declarations may follow
//! their uses, as in PTX, so nothing is checked before the kernel ends.
//!
//! Invariant: of several undeclared uses, the first in the text is reported.

use std::collections::{HashMap, HashSet};

use super::lex::Pos;
use super::{error_at, reg_of, ParseError};
use crate::module::{Reg, RegClass};

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
    /// Registers declared in nested blocks (`parse::block`), each with its name there.
    fresh: Vec<(Reg, String, Pos)>,
}

impl KernelScope {
    pub(super) fn declare_range(&mut self, prefix: &str, count: u32) {
        let known = self.ranges.entry(prefix.to_string()).or_default();
        *known = (*known).max(count);
    }

    /// One past the highest register of `class` the kernel declares so far.
    pub(super) fn declared_count(&self, class: RegClass) -> u32 {
        let range = self.ranges.get(class.prefix()).copied().unwrap_or(0);
        let single = self.singles.iter().filter(|r| r.class == class).map(|r| r.index + 1).max().unwrap_or(0);
        let fresh = self.fresh.iter().filter(|(r, ..)| r.class == class).map(|(r, ..)| r.index + 1).max().unwrap_or(0);
        range.max(single).max(fresh)
    }

    /// A block-local register `name` got the fresh register `reg`.
    pub(super) fn declare_fresh(&mut self, reg: Reg, name: &str, pos: Pos) {
        self.fresh.push((reg, name.to_string(), pos));
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
        self.declares_in_kernel(reg) || self.fresh.iter().any(|(r, ..)| *r == reg)
    }

    fn declares_in_kernel(&self, reg: Reg) -> bool {
        self.singles.contains(&reg) || self.ranges.get(reg.class.prefix()).is_some_and(|count| reg.index < *count)
    }

    /// A kernel declaration after a block that took one of its registers for a local one.
    fn fresh_clash(&self, kernel: &str) -> Option<ParseError> {
        let (reg, name, pos) = self.fresh.iter().find(|(r, ..)| self.declares_in_kernel(*r))?;
        Some(error_at(
            *pos,
            format!(
                "the kernel `{kernel}` declares {reg} after a block took it for its register `{name}`: declare the \
             kernel's registers before its blocks"
            ),
        ))
    }

    /// Checks every use of the kernel `kernel` against its declarations, its parameters and
    /// the arrays it sees.
    pub(super) fn check(&self, kernel: &str, params: &[&str], arrays: &[&str]) -> Result<(), ParseError> {
        if let Some(error) = self.fresh_clash(kernel) {
            return Err(error);
        }
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
