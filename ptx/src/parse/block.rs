//! Nested blocks of a kernel body (`{ .reg .pred p; waitLoop: ...; @!p bra waitLoop; }`), as
//! compilers paste inline assembly: a block has its own scope. Registers it declares are
//! local to it and get fresh slots of their class after every register the kernel declares
//! (so `%p1` declared in a block is not the kernel's `%p1`, and a name without a class prefix,
//! `complete`, is a register there); labels it defines are local too and renamed uniquely, so
//! several blocks may each define `waitLoop`. Blocks nest; a name resolves in the innermost
//! block that declares it, then in the kernel.
//!
//! The typed module has no blocks: the body is flat, and the renamed registers and labels
//! print as ordinary ones, so the printed text is valid PTX with the same meaning.
//!
//! Invariants: a block's labels are known from its `{` on (a branch may precede its target);
//! its registers from their `.reg` on, which PTX requires before their use; a fresh register
//! never coincides with one the kernel declares (checked when the kernel ends).

use std::collections::HashMap;

use super::lex::{Pos, Tok};
use super::{error_at, Parser, R};
use crate::module::{Reg, RegClass, Ty};

/// What one open block declares.
#[derive(Debug, Default)]
pub(super) struct Block {
    /// A register's name in the block -> its fresh register.
    regs: HashMap<String, Reg>,
    /// A label's name in the block -> its unique name in the kernel.
    labels: HashMap<String, String>,
}

/// The blocks open in the kernel being read and the fresh registers handed out.
#[derive(Debug, Default)]
pub(super) struct Blocks {
    open: Vec<Block>,
    /// Blocks opened so far in the module (for unique label names).
    opened: u32,
    /// The next fresh index per register class.
    next: HashMap<RegClass, u32>,
}

impl Blocks {
    pub(super) fn depth(&self) -> usize {
        self.open.len()
    }

    /// The fresh register `name` denotes in the innermost block that declares it.
    pub(super) fn reg(&self, name: &str) -> Option<Reg> {
        self.open.iter().rev().find_map(|b| b.regs.get(name).copied())
    }

    /// The kernel-wide name of the label `name` as seen from the innermost open block.
    pub(super) fn label(&self, name: &str) -> String {
        self.open.iter().rev().find_map(|b| b.labels.get(name).cloned()).unwrap_or_else(|| name.to_string())
    }

    /// Forgets every block of the previous kernel (block numbering goes on, keeping names unique).
    pub(super) fn reset(&mut self) {
        self.open.clear();
        self.next.clear();
    }
}

impl Parser {
    /// At a `{` in a kernel body: opens a block, its labels found ahead.
    pub(super) fn open_block(&mut self) -> R<()> {
        self.at += 1;
        let mut labels = HashMap::new();
        let mut depth = 0u32;
        let mut k = self.at;
        let id = self.blocks.opened;
        self.blocks.opened = self.blocks.opened.saturating_add(1);
        while let Some((tok, pos)) = self.tokens.get(k) {
            match tok {
                Tok::Punct('{') => depth += 1,
                Tok::Punct('}') if depth == 0 => break,
                Tok::Punct('}') => depth -= 1,
                Tok::Word(w)
                    if depth == 0
                        && self.tokens.get(k + 1).map(|t| &t.0) == Some(&Tok::Punct(':'))
                        && labels.insert(w.clone(), format!("{w}$b{id}")).is_some() =>
                {
                    return Err(error_at(*pos, format!("the label `{w}` is defined twice in one block")));
                }
                _ => {}
            }
            k += 1;
        }
        if k >= self.tokens.len() {
            return self.error("a block `{` without its `}`");
        }
        self.blocks.open.push(Block { regs: HashMap::new(), labels });
        Ok(())
    }

    /// At a `}` closing an open block.
    pub(super) fn close_block(&mut self) {
        self.at += 1;
        self.blocks.open.pop();
    }

    /// Declares `name` (of type `ty`) in the innermost block: a fresh register of its class.
    pub(super) fn declare_block_reg(&mut self, name: &str, ty: Ty, pos: Pos) {
        let reg = self.fresh_reg(ty, name, pos);
        if let Some(block) = self.blocks.open.last_mut() {
            block.regs.insert(name.to_string(), reg);
        }
    }

    /// A register of `ty`'s class that nothing else names, after every one the kernel declares:
    /// for a block's own register, or for the sink `_` a destination may be (its value unused).
    pub(super) fn fresh_reg(&mut self, ty: Ty, name: &str, pos: Pos) -> Reg {
        let class = ty.reg_class();
        let first = self.scope.declared_count(class);
        let next = self.blocks.next.entry(class).or_insert(first);
        let reg = Reg { class, index: (*next).max(first) };
        *next = reg.index.saturating_add(1);
        self.scope.declare_fresh(reg, name, pos);
        reg
    }
}
