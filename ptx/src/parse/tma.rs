//! Parsing of Hopper's asynchronous tensor-memory instructions (`module::TmaOp`): `elect.sync`,
//! `bar.warp.sync`, `cvta.global.u64`, `mbarrier.*`, `cp.async.bulk.tensor`, the bulk group
//! instructions, `tensormap.replace`, `tensormap.cp_fenceproxy` and `fence.proxy.tensormap`.
//!
//! Memory-ordering qualifiers the emulator's model already implies (`.release`, `.acquire`,
//! `.relaxed` of an mbarrier operation at CTA scope, `.cta`, `.tile`) are read and dropped;
//! anything that changes what an instruction does and is not modelled (multicast, cache hints,
//! im2col, cluster-scope arrivals) is an unsupported instruction at its opcode.
//!
//! Invariant: every error has the position of the token it is about, as in `parse`.

use super::lex::Tok;
use super::{Parser, R};
use crate::module::{
    Address, MbarrierOp, Op, Reg, TensorCoords, TensormapField, TensormapSpace, TmaOp, WaitKind, WaitOn,
};

/// Whether the opcode `head.mods...` is one of this module's.
pub(super) fn is_tma(head: &str, mods: &[&str]) -> bool {
    match head {
        "elect" | "mbarrier" | "tensormap" => true,
        "bar" => mods == ["warp", "sync"],
        "cvta" => mods == ["global", "u64"] || mods == ["param", "u64"],
        "cp" => mods.starts_with(&["async", "bulk"]),
        "fence" => mods.len() >= 2 && mods[0] == "proxy" && mods[1].starts_with("tensormap"),
        _ => false,
    }
}

/// Qualifiers of ordering and scope that change nothing in the emulator's model.
fn is_ordering(m: &str) -> bool {
    matches!(m, "release" | "acquire" | "relaxed" | "cta" | "sem" | "tile")
}

impl Parser {
    pub(super) fn tma(&mut self, head: &str, mods: &[&str]) -> R<Op> {
        let op = match head {
            "elect" if mods == ["sync"] => {
                let dst = if self.peek() == Some(&Tok::Word("_".into())) {
                    self.at += 1;
                    None
                } else {
                    Some(self.reg()?)
                };
                self.expect('|')?;
                let pred = self.reg()?;
                self.comma()?;
                TmaOp::ElectSync { dst, pred, mask: self.operand()? }
            }
            "bar" => TmaOp::BarWarpSync { mask: self.operand()? },
            "cvta" => {
                let dst = self.reg()?;
                self.comma()?;
                TmaOp::CvtaToGeneric { param: mods.first() == Some(&"param"), dst, src: self.reg()? }
            }
            "mbarrier" => TmaOp::Mbarrier(self.mbarrier(mods)?),
            "cp" => self.bulk(mods)?,
            "tensormap" => self.tensormap(mods)?,
            "fence" => match mods {
                ["proxy", "tensormap::generic", "acquire", "gpu"] => {
                    let addr = self.address()?;
                    self.comma()?;
                    self.tensormap_size()?;
                    TmaOp::FenceTensormap { acquire: Some(addr) }
                }
                ["proxy", "tensormap::generic", "release", "gpu"] => TmaOp::FenceTensormap { acquire: None },
                _ => return self.unsupported(),
            },
            _ => return self.unsupported(),
        };
        Ok(Op::Tma(op))
    }

    /// The `128` bytes of a tensor map copy or fence (the only size PTX allows).
    fn tensormap_size(&mut self) -> R<()> {
        let pos = self.at;
        let size = self.count("a tensor map's size")?;
        if size != 128 {
            self.at = pos;
            return self.error(format!("a tensor map is 128 bytes, not {size}"));
        }
        Ok(())
    }

    /// A state register or the sink `_`.
    fn reg_or_sink(&mut self) -> R<Option<Reg>> {
        if self.peek() == Some(&Tok::Word("_".into())) {
            self.at += 1;
            return Ok(None);
        }
        self.reg().map(Some)
    }

    fn mbarrier(&mut self, mods: &[&str]) -> R<MbarrierOp> {
        let Some((&kind, rest)) = mods.split_first() else { return self.unsupported() };
        let mut expect_tx = false;
        let mut parity = false;
        let mut space_ok = false;
        let mut typed = false;
        for m in rest {
            match *m {
                "expect_tx" if kind == "arrive" => expect_tx = true,
                "parity" if kind == "try_wait" || kind == "test_wait" => parity = true,
                "shared::cta" | "shared" => space_ok = true,
                "b64" => typed = true,
                m if is_ordering(m) => {}
                _ => return self.unsupported(),
            }
        }
        if !space_ok || !typed {
            return self.unsupported();
        }
        Ok(match kind {
            "init" => {
                let addr = self.address()?;
                self.comma()?;
                MbarrierOp::Init { addr, count: self.operand()? }
            }
            "inval" => MbarrierOp::Inval { addr: self.address()? },
            "arrive" => {
                let state = self.reg_or_sink()?;
                self.comma()?;
                let addr = self.address()?;
                let operand = if self.eat(',') { Some(self.operand()?) } else { None };
                if expect_tx {
                    let Some(tx) = operand else { return self.error("mbarrier.arrive.expect_tx needs a byte count") };
                    MbarrierOp::Arrive { state, addr, count: None, expect_tx: Some(tx) }
                } else {
                    MbarrierOp::Arrive { state, addr, count: operand, expect_tx: None }
                }
            }
            "expect_tx" | "complete_tx" => {
                let addr = self.address()?;
                self.comma()?;
                MbarrierOp::Tx { complete: kind == "complete_tx", addr, tx: self.operand()? }
            }
            "try_wait" | "test_wait" => {
                let dst = self.reg()?;
                self.comma()?;
                let addr = self.address()?;
                self.comma()?;
                let phase = self.operand()?;
                // A suspend-time hint changes no outcome.
                if kind == "try_wait" && self.eat(',') {
                    self.operand()?;
                }
                let kind = if kind == "try_wait" { WaitKind::Try } else { WaitKind::Test };
                let on = if parity { WaitOn::Parity } else { WaitOn::State };
                MbarrierOp::Wait { kind, on, dst, addr, phase }
            }
            _ => return self.unsupported(),
        })
    }

    /// `[tmap, {c0, ...}]` with `dims` coordinates.
    fn tensor_coords(&mut self, dims: usize) -> R<TensorCoords> {
        self.expect('[')?;
        let at = self.pos();
        let w = self.word("a tensor map's address")?;
        let tmap = match self.blocks.reg(&w).or_else(|| super::reg_of(&w)) {
            Some(r) => {
                self.scope.use_reg(r, at);
                Address::reg(r, 0)
            }
            None => {
                self.scope.use_symbol(&w, at, super::scope::SymbolKind::Param);
                Address::symbol(w)
            }
        };
        self.comma()?;
        let pos = self.at;
        let coords = self.group(|p| p.operand())?;
        if coords.len() != dims {
            self.at = pos;
            return self.error(format!("a {dims}d tensor copy takes {dims} coordinates, not {}", coords.len()));
        }
        self.expect(']')?;
        Ok(TensorCoords { tmap, coords })
    }

    fn bulk(&mut self, mods: &[&str]) -> R<TmaOp> {
        Ok(match mods {
            ["async", "bulk", "commit_group"] => TmaOp::BulkCommit,
            ["async", "bulk", "wait_group"] => TmaOp::BulkWait { n: self.count("a group count")?, read: false },
            ["async", "bulk", "wait_group", "read"] => TmaOp::BulkWait { n: self.count("a group count")?, read: true },
            ["async", "bulk", "tensor", dims, rest @ ..] => {
                let dims = match dims.strip_suffix('d').and_then(|d| d.parse::<usize>().ok()) {
                    Some(d @ 1..=5) => d,
                    _ => return self.unsupported(),
                };
                let rest: Vec<&str> = rest.iter().copied().filter(|m| !is_ordering(m)).collect();
                match rest.as_slice() {
                    [space @ ("shared::cta" | "shared::cluster"), "global", "mbarrier::complete_tx::bytes"] => {
                        let cluster = *space == "shared::cluster";
                        let dst = self.address()?;
                        self.comma()?;
                        let src = self.tensor_coords(dims)?;
                        self.comma()?;
                        TmaOp::LoadTensor { dst, src, mbar: self.address()?, cluster }
                    }
                    ["global", "shared::cta", "bulk_group"] => {
                        let dst = self.tensor_coords(dims)?;
                        self.comma()?;
                        TmaOp::StoreTensor { dst, src: self.address()? }
                    }
                    _ => return self.unsupported(),
                }
            }
            _ => return self.unsupported(),
        })
    }

    fn tensormap(&mut self, mods: &[&str]) -> R<TmaOp> {
        match mods {
            ["replace", "tile", field, space, "b1024", bits] => {
                let Some(field) = TensormapField::from_name(field) else { return self.unsupported() };
                let space = match *space {
                    "shared::cta" => TensormapSpace::SharedCta,
                    "global" => TensormapSpace::Global,
                    _ => return self.unsupported(),
                };
                if *bits != format!("b{}", field.value_bits()) {
                    return self.unsupported();
                }
                let addr = self.address()?;
                self.comma()?;
                let ordinal = if field.has_ordinal() {
                    let pos = self.at;
                    let ordinal = self.count("a dimension")?;
                    if ordinal > 4 {
                        self.at = pos;
                        return self.error(format!("a tensor has at most 5 dimensions, not ordinal {ordinal}"));
                    }
                    self.comma()?;
                    Some(ordinal)
                } else {
                    None
                };
                Ok(TmaOp::TensormapReplace { field, space, addr, ordinal, value: self.operand()? })
            }
            ["cp_fenceproxy", "global", "shared::cta", "tensormap::generic", "release", "gpu", "sync", "aligned"] => {
                let dst = self.address()?;
                self.comma()?;
                let src = self.address()?;
                self.comma()?;
                self.tensormap_size()?;
                Ok(TmaOp::TensormapCopy { dst, src })
            }
            _ => self.unsupported(),
        }
    }
}
