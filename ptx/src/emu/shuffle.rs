//! `shfl.sync` as a warp collective: the lanes its membermask names meet at the instruction,
//! then each receives the value of the source lane the mode computes (`warp::shfl_source`).
//!
//! Lanes run one at a time, each up to the shuffle, where it waits (`Suspend::Warp`). After
//! every phase, the lanes waiting at one shuffle are grouped by the membermask each one
//! holds; a group runs once every lane of its mask is there. What the ISA leaves undefined is
//! a fault naming the lanes (kind `BarrierDivergence`, the kind of a collective the threads
//! do not reach together): a lane whose mask does not name itself, a mask naming lanes the
//! warp does not have, two lanes of one mask arriving with different masks, and a lane
//! reading from a lane outside the mask. A mask whose lanes never all arrive is the
//! emulator's deadlock fault at the end of the phase (`run_block`).
//!
//! Invariant: every lane of a group reads its operands before any lane's destination is
//! written, as on hardware (`d` may be `a`).

use tirproof_machine::fault::FaultKind;
use tirproof_machine::thread::Thread;

use super::decode::DOp;
use super::{alu, warp, Emulator, Frame, Suspend, R};

impl Emulator<'_> {
    /// Runs the groups of `lanes` (a warp) waiting at the shuffle `pc` whose membermask's
    /// lanes have all arrived; true when one ran.
    pub(super) fn shfl_rendezvous(
        &mut self,
        lanes: &mut [Thread<Frame>],
        statuses: &mut [Suspend],
        pc: usize,
    ) -> R<bool> {
        let Some(DOp::Shfl { mode, dst, pred, a, b, c, mask }) = self.code.insts.get(pc).map(|i| i.op) else {
            return Ok(false);
        };
        let waiting = |statuses: &[Suspend], lane: usize| statuses.get(lane) == Some(&Suspend::Warp(pc));
        let present = if lanes.len() >= warp::WARP { u32::MAX } else { (1u32 << lanes.len()) - 1 };
        let mut ran = false;
        for lane in 0..lanes.len() {
            if !waiting(statuses, lane) {
                continue;
            }
            let members = alu::operand(self.val(&lanes[lane], mask), 32) as u32;
            let warp_no = lanes[lane].tid / 32;
            if members & (1 << lane) == 0 {
                let message = format!(
                    "lane {lane} of warp {warp_no} executes shfl.sync with membermask {members:#010x}, which does not \
                     name it (undefined in PTX)"
                );
                return Err(self.fault(FaultKind::BarrierDivergence, message, &lanes[lane], pc));
            }
            if members & !present != 0 {
                let message = format!(
                    "shfl.sync with membermask {members:#010x} names lanes warp {warp_no} does not have (it has {} \
                     threads)",
                    lanes.len()
                );
                return Err(self.fault(FaultKind::BarrierDivergence, message, &lanes[lane], pc));
            }
            let members_of = |members: u32| (0..lanes.len()).filter(move |l| members & (1 << l) != 0);
            if !members_of(members).all(|l| waiting(statuses, l)) {
                // The group's other lanes may still come.
                continue;
            }
            if let Some(other) =
                members_of(members).find(|l| alu::operand(self.val(&lanes[*l], mask), 32) as u32 != members)
            {
                let theirs = alu::operand(self.val(&lanes[other], mask), 32) as u32;
                let message = format!(
                    "lanes {lane} and {other} of warp {warp_no} meet at shfl.sync with membermasks {members:#010x} and \
                     {theirs:#010x}: every lane a membermask names must execute the shuffle with that mask"
                );
                return Err(self.fault(FaultKind::BarrierDivergence, message, &lanes[lane], pc));
            }
            // Every member reads before any writes (`d` may be `a`).
            let mut results = [(0u64, false); warp::WARP];
            for member in members_of(members) {
                let th = &lanes[member];
                let (b_val, c_val) = (self.val(th, b) as u32, self.val(th, c) as u32);
                let (source, in_range) = warp::shfl_source(mode, member as u32, b_val, c_val);
                if members & (1 << source) == 0 {
                    let message = format!(
                        "lane {member} of warp {warp_no} reads lane {source} in shfl.sync, which membermask \
                         {members:#010x} leaves out (its value is undefined in PTX)"
                    );
                    return Err(self.fault(FaultKind::BarrierDivergence, message, th, pc));
                }
                results[member] = (self.val(&lanes[source as usize], a), in_range);
            }
            for member in members_of(members) {
                let (value, in_range) = results[member];
                Self::set(&mut lanes[member], dst, alu::mask(value, 32));
                if let Some(p) = pred {
                    Self::set(&mut lanes[member], p, u64::from(in_range));
                }
                statuses[member] = Suspend::Running;
            }
            ran = true;
        }
        Ok(ran)
    }
}
