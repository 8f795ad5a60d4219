//! Token programs written directly as Triton 3.9 TTGIR: a structured program ([`Program`]) drawn
//! from a seed, printed as text Triton's parser accepts ([`Program::print`]), and the edits that
//! shrink it ([`Program::shrink_candidates`]).
//!
//! Every program has one shape: a fixed header (the layouts `#blocked`, `#shared`, `#smem`, a
//! module of 4 warps for `cuda:80`, a `tt.func` taking a pointer, the trip `%n` and a condition
//! bound `%c`), one or two rings of `slots` shared-memory slots (`ttg.local_alloc` with
//! `allocation.offset`), a prologue of committed groups, an `scf.for` that carries a read and a
//! write ring counter (`select(x + 1 >= N, 0, x + 1)`), an accumulator and one group token per
//! prologue group (the oldest is dropped at each `scf.yield`, the newest appended), and after
//! the loop an optional wait on a token carried out of it, an optional drain, an optional read,
//! and a store of the accumulator (every read feeds it, so Triton's canonicalizer keeps them).
//!
//! Invariant: whatever the structure (after any shrinking edit too), the printed text is valid
//! TTGIR: every value is defined before its use and has its type; a wait names only tokens in
//! scope. The programs are not all safe: the `num` of each wait is what the generator believes
//! (Triton recomputes it), a copy may be left uncommitted and the tokens a wait names need not
//! cover the slot read after it.

use std::fmt::Write as _;

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// How many copies one group holds: one into the first ring, or one into each ring.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Copies {
    One,
    Two,
}

/// Copies of one tile, maybe committed as a group.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Group {
    pub copies: Copies,
    /// Whether an `async_commit_group` follows the copies (an uncommitted copy joins the next
    /// group that is committed, or none).
    pub committed: bool,
}

/// Where a copy and its commit run in the loop body.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Guard {
    Always,
    /// Inside `scf.if %cond`, in both arms.
    BothArms,
    /// Inside `scf.if %cond`; the else arm yields the newest token unchanged.
    ThenArm,
}

/// The tokens a wait names.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum WaitOn {
    /// No token.
    Nothing,
    /// The oldest group token in flight (the one the slot read next was committed with).
    Oldest,
    /// The newest group token.
    Newest,
    /// The oldest and the newest.
    OldestAndNewest,
    /// The token of the last copy issued in the body before the wait (not a group token);
    /// the oldest group token when there is none.
    LastCopy,
}

/// One statement of the loop body.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum LoopOp {
    Wait {
        on: WaitOn,
        num: u8,
    },
    /// A `local_load` of the read slot (of each ring in use), naming the last wait's token.
    Load,
    /// Copies into the write slot and their commit.
    Issue {
        group: Group,
        guard: Guard,
    },
}

/// The loop's trip count.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Trip {
    Const(u8),
    /// The `%n` argument.
    Arg,
}

/// A token program (see the module documentation).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Program {
    /// Slots of each ring, 2 to 4.
    pub slots: u8,
    /// Groups committed before the loop; one token per group is carried by the loop.
    pub prologue: Vec<Group>,
    pub trip: Trip,
    pub body: Vec<LoopOp>,
    /// A wait after the loop on the oldest token the loop yields, with this `num`.
    pub carried_out: Option<u8>,
    /// `ttg.async_wait {num = 0}` after the loop.
    pub drain: bool,
    /// A read of slot 0 after the loop.
    pub epilogue_load: bool,
}

/// Bytes of one slot: 128 `f32`.
const SLOT_BYTES: u32 = 512;

impl Program {
    /// The program of `seed`.
    pub fn generate(seed: u64) -> Program {
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        let slots = rng.gen_range(2..=4u8);
        let stages = rng.gen_range(1..=slots);
        let two = rng.gen_bool(0.25);
        let copies = |rng: &mut ChaCha8Rng| if two && rng.gen_bool(0.8) { Copies::Two } else { Copies::One };
        let prologue: Vec<Group> =
            (0..stages - 1).map(|_| Group { copies: copies(&mut rng), committed: true }).collect();
        let depth = prologue.len();
        let trip = if rng.gen_bool(0.5) { Trip::Arg } else { Trip::Const(rng.gen_range(1..=6)) };
        let believed = |rng: &mut ChaCha8Rng, exact: usize| -> u8 {
            let exact = exact as i64 + if rng.gen_bool(0.2) { rng.gen_range(-1..=1) } else { 0 };
            exact.clamp(0, 8) as u8
        };
        let mut body = Vec::new();
        // Groups committed in the body so far (for the believed counts).
        let mut issued = 0usize;
        let waits = if rng.gen_bool(0.8) { 1 } else { 2 };
        for w in 0..waits {
            let on = match rng.gen_range(0..10) {
                0 => WaitOn::Nothing,
                1 => WaitOn::Newest,
                2 => WaitOn::OldestAndNewest,
                3 => WaitOn::LastCopy,
                _ => WaitOn::Oldest,
            };
            let exact = match on {
                WaitOn::Oldest | WaitOn::OldestAndNewest | WaitOn::LastCopy => (depth + issued).saturating_sub(1),
                WaitOn::Newest | WaitOn::Nothing => 0,
            };
            body.push(LoopOp::Wait { on, num: believed(&mut rng, exact) });
            body.push(LoopOp::Load);
            if w == 0 || rng.gen_bool(0.5) {
                let guard = match rng.gen_range(0..6) {
                    0 => Guard::BothArms,
                    1 => Guard::ThenArm,
                    _ => Guard::Always,
                };
                let committed = rng.gen_range(0..12) != 0;
                body.push(LoopOp::Issue { group: Group { copies: copies(&mut rng), committed }, guard });
                issued += 1;
            }
        }
        if rng.gen_bool(0.15) {
            // A wait on a copy's token before its commit: the copy is issued first.
            let at = body.iter().position(|op| matches!(op, LoopOp::Issue { .. })).unwrap_or(0);
            body.insert(at, LoopOp::Wait { on: WaitOn::LastCopy, num: 0 });
        }
        let carried_out = (depth > 0 && rng.gen_bool(0.3)).then(|| believed(&mut rng, depth - 1));
        Program { slots, prologue, trip, body, carried_out, drain: rng.gen_bool(0.8), epilogue_load: rng.gen_bool(0.3) }
    }

    /// Whether any group copies into the second ring.
    fn uses_second_ring(&self) -> bool {
        let two = |g: &Group| g.copies == Copies::Two;
        self.prologue.iter().any(two)
            || self.body.iter().any(|op| matches!(op, LoopOp::Issue { group, .. } if two(group)))
    }

    /// The waits the printed program has, in order, each with where it is.
    pub fn wait_sites(&self) -> Vec<WaitSite> {
        self.render().1
    }

    /// Programs one edit smaller, simplest edits first.
    pub fn shrink_candidates(&self) -> Vec<Program> {
        let mut out = Vec::new();
        let mut edit = |f: &dyn Fn(&mut Program)| {
            let mut p = self.clone();
            f(&mut p);
            if p != *self {
                out.push(p);
            }
        };
        for i in 0..self.body.len() {
            edit(&|p| {
                p.body.remove(i);
            });
        }
        if !self.prologue.is_empty() {
            edit(&|p| {
                p.prologue.pop();
            });
        }
        edit(&|p| p.carried_out = None);
        edit(&|p| p.epilogue_load = false);
        edit(&|p| p.drain = false);
        edit(&|p| p.trip = Trip::Const(2));
        if let Trip::Const(n) = self.trip {
            if n > 1 {
                edit(&|p| p.trip = Trip::Const(n - 1));
            }
        }
        if self.slots > 2 {
            edit(&|p| p.slots -= 1);
        }
        for i in 0..self.body.len() {
            edit(&|p| match &mut p.body[i] {
                LoopOp::Issue { guard, .. } => *guard = Guard::Always,
                LoopOp::Wait { on, .. } => *on = WaitOn::Oldest,
                LoopOp::Load => {}
            });
            edit(&|p| {
                if let LoopOp::Issue { group, .. } = &mut p.body[i] {
                    group.copies = Copies::One;
                }
            });
            edit(&|p| {
                if let LoopOp::Wait { num, .. } = &mut p.body[i] {
                    *num = 0;
                }
            });
        }
        for g in 0..self.prologue.len() {
            edit(&|p| p.prologue[g].copies = Copies::One);
        }
        out
    }

    /// The program as TTGIR text.
    pub fn print(&self) -> String {
        self.render().0
    }

    /// The text and the sites of its waits, in order.
    fn render(&self) -> (String, Vec<WaitSite>) {
        Printer::new(self).print()
    }
}

/// Where a wait of the printed program is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Place {
    Loop,
    AfterLoop,
}

/// What a wait names.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum SiteTokens {
    Nothing,
    Group,
    Copy,
    CarriedOut,
}

/// A wait's structural context: what a finding's signature is made of.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct WaitSite {
    pub place: Place,
    pub tokens: SiteTokens,
    /// Whether the loop commits a group inside an `scf.if`.
    pub guarded_commit: bool,
}

impl WaitSite {
    /// `loop/group-token/guarded-commit`.
    pub fn key(&self) -> String {
        let place = match self.place {
            Place::Loop => "in-loop",
            Place::AfterLoop => "after-loop",
        };
        let tokens = match self.tokens {
            SiteTokens::Nothing => "no-token",
            SiteTokens::Group => "group-token",
            SiteTokens::Copy => "copy-token",
            SiteTokens::CarriedOut => "carried-out-token",
        };
        let guarded = if self.guarded_commit { "/commit-in-if" } else { "" };
        format!("{place}/{tokens}{guarded}")
    }
}

const HEADER: &str = r#"#blocked = #ttg.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
#shared = #ttg.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0]}>
#smem = #ttg.shared_memory
"#;

const TOKEN: &str = "!ttg.async.token";
const TILE: &str = "tensor<128xf32, #blocked>";
const PTRS: &str = "tensor<128x!tt.ptr<f32>, #blocked>";

struct Printer<'p> {
    p: &'p Program,
    out: String,
    next: usize,
    ring: String,
    slot: String,
    sites: Vec<WaitSite>,
    /// Whether the loop commits a group inside an `scf.if`.
    guarded: bool,
}

impl<'p> Printer<'p> {
    fn new(p: &'p Program) -> Self {
        let ring = format!("!ttg.memdesc<{}x128xf32, #shared, #smem, mutable>", p.slots);
        let slot = "!ttg.memdesc<128xf32, #shared, #smem, mutable>".to_string();
        let guarded = p.body.iter().any(|op| matches!(op, LoopOp::Issue { guard: g, .. } if *g != Guard::Always));
        Printer { p, out: String::new(), next: 0, ring, slot, sites: Vec::new(), guarded }
    }

    fn fresh(&mut self, stem: &str) -> String {
        self.next += 1;
        format!("%{stem}{}", self.next)
    }

    fn line(&mut self, indent: usize, text: &str) {
        let _ = writeln!(self.out, "{:indent$}{text}", "", indent = indent * 2);
    }

    fn rings(&self) -> Vec<&'static str> {
        if self.p.uses_second_ring() {
            vec!["%ring_a", "%ring_b"]
        } else {
            vec!["%ring_a"]
        }
    }

    /// Copies of `group` into slot `index` of the rings; the last copy's token, and the
    /// group's token when committed.
    fn issue(&mut self, indent: usize, group: Group, index: &str) -> (String, Option<String>) {
        let rings = match group.copies {
            Copies::One => vec!["%ring_a"],
            Copies::Two => vec!["%ring_a", "%ring_b"],
        };
        let mut copies = Vec::new();
        for ring in rings {
            let view = self.fresh("dst");
            let (ring_ty, slot_ty) = (self.ring.clone(), self.slot.clone());
            self.line(indent, &format!("{view} = ttg.memdesc_index {ring}[{index}] : {ring_ty} -> {slot_ty}"));
            let copy = self.fresh("copy");
            self.line(
                indent,
                &format!("{copy} = ttg.async_copy_global_to_local %ptrs, {view} : {PTRS} -> <128xf32, #shared, #smem, mutable>"),
            );
            copies.push(copy);
        }
        let last = copies.last().cloned().unwrap_or_default();
        if !group.committed {
            return (last, None);
        }
        let commit = self.fresh("group");
        self.line(indent, &format!("{commit} = ttg.async_commit_group tokens {}", copies.join(", ")));
        (last, Some(commit))
    }

    /// Reads of slot `index` of every ring in use, added to `acc`; the new accumulator.
    fn load(&mut self, indent: usize, index: &str, wait: Option<&str>, acc: &str) -> String {
        let mut acc = acc.to_string();
        for ring in self.rings() {
            let view = self.fresh("src");
            let (ring_ty, slot_ty) = (self.ring.clone(), self.slot.clone());
            self.line(indent, &format!("{view} = ttg.memdesc_index {ring}[{index}] : {ring_ty} -> {slot_ty}"));
            let value = self.fresh("tile");
            let token = wait.map(|w| format!(" token {w}")).unwrap_or_default();
            self.line(indent, &format!("{value} = ttg.local_load {view}{token} : {slot_ty} -> {TILE}"));
            let sum = self.fresh("acc");
            self.line(indent, &format!("{sum} = arith.addf {acc}, {value} : {TILE}"));
            acc = sum;
        }
        acc
    }

    fn wait(&mut self, indent: usize, place: Place, tokens: (SiteTokens, &[String]), num: u8) -> String {
        let (kind, tokens) = tokens;
        let kind = if tokens.is_empty() { SiteTokens::Nothing } else { kind };
        self.sites.push(WaitSite { place, tokens: kind, guarded_commit: self.guarded });
        let w = self.fresh("wait");
        let named = if tokens.is_empty() { String::new() } else { format!(" {}", tokens.join(", ")) };
        self.line(indent, &format!("{w} = ttg.async_wait{named} {{num = {num} : i32}}"));
        w
    }

    /// A ring counter advanced by one: `select(x + 1 >= N, 0, x + 1)`.
    fn advance(&mut self, indent: usize, x: &str) -> String {
        let (plus, wraps, next) = (self.fresh("inc"), self.fresh("wraps"), self.fresh("idx"));
        self.line(indent, &format!("{plus} = arith.addi {x}, %c1_i32 : i32"));
        self.line(indent, &format!("{wraps} = arith.cmpi sge, {plus}, %cslots : i32"));
        self.line(indent, &format!("{next} = arith.select {wraps}, %c0_i32, {plus} : i32"));
        next
    }

    fn print(mut self) -> (String, Vec<WaitSite>) {
        let p = self.p;
        let rings = self.rings();
        let shared = SLOT_BYTES * u32::from(p.slots) * rings.len() as u32;
        self.out.push_str(HEADER);
        self.line(0, &format!("module attributes {{\"ttg.num-ctas\" = 1 : i32, \"ttg.num-warps\" = 4 : i32, ttg.shared = {shared} : i32, ttg.target = \"cuda:80\", \"ttg.threads-per-warp\" = 32 : i32}} {{"));
        self.line(1, "tt.func public @peer(%x: !tt.ptr<f32> {tt.divisibility = 16 : i32}, %n: i32, %c: i32) attributes {noinline = false} {");
        self.line(2, "%c0_i32 = arith.constant 0 : i32");
        self.line(2, "%c1_i32 = arith.constant 1 : i32");
        self.line(2, "%c-1_i32 = arith.constant -1 : i32");
        self.line(2, &format!("%cslots = arith.constant {} : i32", p.slots));
        self.line(2, &format!("%zero = arith.constant dense<0.000000e+00> : {TILE}"));
        self.line(2, "%range = tt.make_range {end = 128 : i32, start = 0 : i32} : tensor<128xi32, #blocked>");
        self.line(2, &format!("%base = tt.splat %x : !tt.ptr<f32> -> {PTRS}"));
        self.line(2, &format!("%ptrs = tt.addptr %base, %range : {PTRS}, tensor<128xi32, #blocked>"));
        for (i, ring) in rings.iter().enumerate() {
            let offset = SLOT_BYTES * u32::from(p.slots) * i as u32;
            let ty = self.ring.clone();
            self.line(2, &format!("{ring} = ttg.local_alloc {{allocation.offset = {offset} : i32}} : () -> {ty}"));
        }
        let mut carried = Vec::new();
        for (i, group) in p.prologue.iter().enumerate() {
            let index = format!("%cslot{i}");
            self.line(2, &format!("{index} = arith.constant {} : i32", i % usize::from(p.slots)));
            let (_, token) = self.issue(2, *group, &index);
            carried.push(token.unwrap_or_default());
        }
        let ub = match p.trip {
            Trip::Const(n) => {
                self.line(2, &format!("%trip = arith.constant {n} : i32"));
                "%trip"
            }
            Trip::Arg => "%n",
        };
        let depth = carried.len();
        let args: Vec<String> = (0..depth).map(|i| format!("%tok{i}")).collect();
        let mut iter_args = vec![
            "%acc_in = %zero".to_string(),
            "%read_in = %c-1_i32".to_string(),
            format!("%write_in = %c{}_i32", if depth == 0 { "-1".to_string() } else { (depth - 1).to_string() }),
        ];
        if depth > 0 && depth - 1 > 1 {
            self.line(2, &format!("%c{}_i32 = arith.constant {} : i32", depth - 1, depth - 1));
        }
        iter_args.extend(args.iter().zip(&carried).map(|(a, t)| format!("{a} = {t}")));
        let mut types = vec![TILE.to_string(), "i32".into(), "i32".into()];
        types.extend((0..depth).map(|_| TOKEN.to_string()));
        let results = 3 + depth;
        self.line(
            2,
            &format!(
                "%loop:{results} = scf.for %i = %c0_i32 to {ub} step %c1_i32 iter_args({}) -> ({}) : i32 {{",
                iter_args.join(", "),
                types.join(", ")
            ),
        );
        let read = self.advance(3, "%read_in");
        let write = self.advance(3, "%write_in");
        let mut fifo = args.clone();
        let mut acc = "%acc_in".to_string();
        let mut last_wait: Option<String> = None;
        let mut last_copy: Option<String> = None;
        let mut cond: Option<String> = None;
        for op in &p.body {
            match *op {
                LoopOp::Wait { on, num } => {
                    let oldest = fifo.first().cloned();
                    let newest = fifo.last().cloned();
                    let tokens: Vec<String> = match on {
                        WaitOn::Nothing => vec![],
                        WaitOn::Oldest => oldest.into_iter().collect(),
                        WaitOn::Newest => newest.into_iter().collect(),
                        WaitOn::OldestAndNewest => {
                            let mut t: Vec<String> = oldest.into_iter().chain(newest).collect();
                            t.dedup();
                            t
                        }
                        WaitOn::LastCopy => last_copy.clone().or(oldest).into_iter().collect(),
                    };
                    let kind = match on {
                        WaitOn::LastCopy if last_copy.is_some() => SiteTokens::Copy,
                        _ => SiteTokens::Group,
                    };
                    last_wait = Some(self.wait(3, Place::Loop, (kind, &tokens), num));
                }
                LoopOp::Load => acc = self.load(3, &read, last_wait.as_deref(), &acc),
                LoopOp::Issue { group, guard: Guard::Always } => {
                    let (copy, token) = self.issue(3, group, &write);
                    last_copy = Some(copy);
                    fifo.extend(token);
                }
                LoopOp::Issue { group, guard } => {
                    let cond = match &cond {
                        Some(c) => c.clone(),
                        None => {
                            let c = self.fresh("cond");
                            self.line(3, &format!("{c} = arith.cmpi slt, %i, %c : i32"));
                            cond = Some(c.clone());
                            c
                        }
                    };
                    // The arms yield a token only when the group is committed and there is a
                    // token for the else arm to pass on.
                    let yields = group.committed && (guard == Guard::BothArms || !fifo.is_empty());
                    let result = self.fresh("if");
                    if yields {
                        self.line(3, &format!("{result} = scf.if {cond} -> ({TOKEN}) {{"));
                    } else {
                        self.line(3, &format!("scf.if {cond} {{"));
                    }
                    let (_, token) = self.issue(4, group, &write);
                    if yields {
                        self.line(4, &format!("scf.yield {} : {TOKEN}", token.clone().unwrap_or_default()));
                    }
                    // An empty else arm is left out, as Triton prints it.
                    if guard == Guard::BothArms || yields {
                        self.line(3, "} else {");
                    }
                    if guard == Guard::BothArms {
                        let (_, token) = self.issue(4, group, &write);
                        if yields {
                            self.line(4, &format!("scf.yield {} : {TOKEN}", token.unwrap_or_default()));
                        }
                    } else if yields {
                        let newest = fifo.last().cloned().unwrap_or_default();
                        self.line(4, &format!("scf.yield {newest} : {TOKEN}"));
                    }
                    self.line(3, "}");
                    if yields {
                        fifo.push(result);
                    }
                }
            }
        }
        let mut yielded = vec![acc, read, write];
        yielded.extend(fifo[fifo.len() - depth..].iter().cloned());
        self.line(3, &format!("scf.yield {} : {}", yielded.join(", "), types.join(", ")));
        self.line(2, "}");
        let mut last_wait = None;
        if let (Some(num), true) = (p.carried_out, depth > 0) {
            last_wait = Some(self.wait(2, Place::AfterLoop, (SiteTokens::CarriedOut, &["%loop#3".to_string()]), num));
        }
        if p.drain {
            last_wait = Some(self.wait(2, Place::AfterLoop, (SiteTokens::Nothing, &[]), 0));
        }
        let mut acc = "%loop#0".to_string();
        if p.epilogue_load {
            acc = self.load(2, "%c0_i32", last_wait.as_deref(), &acc);
        }
        self.line(2, &format!("tt.store %ptrs, {acc} : {PTRS}"));
        self.line(2, "tt.return");
        self.line(1, "}");
        self.line(0, "}");
        (self.out, self.sites)
    }
}

#[cfg(test)]
mod tests {
    use tirproof_foreign::{import, Dialect};

    use super::*;

    #[test]
    fn every_generated_program_imports() {
        for seed in 0..200 {
            let program = Program::generate(seed);
            let text = program.print();
            if let Err(diagnostics) = import(&text, Dialect::Ttgir) {
                panic!("seed {seed}: {}\n{text}", diagnostics.render("generated.ttgir", &text));
            }
            for smaller in program.shrink_candidates() {
                let text = smaller.print();
                if let Err(diagnostics) = import(&text, Dialect::Ttgir) {
                    panic!("seed {seed}, shrunk: {}\n{text}", diagnostics.render("shrunk.ttgir", &text));
                }
            }
        }
    }

    #[test]
    fn seeds_give_the_same_program_and_different_seeds_vary() {
        assert_eq!(Program::generate(7), Program::generate(7));
        let distinct: std::collections::HashSet<String> = (0..50).map(|s| Program::generate(s).print()).collect();
        assert!(distinct.len() > 40, "only {} distinct programs of 50", distinct.len());
    }

    #[test]
    fn the_generator_reaches_every_construct() {
        let programs: Vec<Program> = (0..300).map(Program::generate).collect();
        let body = |f: &dyn Fn(&LoopOp) -> bool| programs.iter().any(|p| p.body.iter().any(f));
        assert!(body(&|op| matches!(op, LoopOp::Issue { guard: Guard::BothArms, .. })));
        assert!(body(&|op| matches!(op, LoopOp::Issue { guard: Guard::ThenArm, .. })));
        assert!(body(&|op| matches!(op, LoopOp::Issue { group: Group { copies: Copies::Two, .. }, .. })));
        assert!(body(&|op| matches!(op, LoopOp::Issue { group: Group { committed: false, .. }, .. })));
        assert!(body(&|op| matches!(op, LoopOp::Wait { on: WaitOn::LastCopy, .. })));
        assert!(programs.iter().any(|p| p.carried_out.is_some() && !p.prologue.is_empty()));
        assert!(programs.iter().any(|p| !p.drain));
        assert!(programs.iter().any(|p| p.trip == Trip::Arg));
        assert!(programs.iter().any(|p| p.slots == 4 && p.prologue.len() == 3));
    }

    #[test]
    fn wait_sites_follow_the_printed_waits() {
        for seed in 0..100 {
            let program = Program::generate(seed);
            let printed = program.print().matches("ttg.async_wait").count();
            assert_eq!(program.wait_sites().len(), printed, "seed {seed}");
        }
    }

    #[test]
    fn site_keys_tell_contexts_apart() {
        let site = |place, tokens, guarded_commit| WaitSite { place, tokens, guarded_commit }.key();
        assert_eq!(site(Place::Loop, SiteTokens::Group, false), "in-loop/group-token");
        assert_eq!(site(Place::AfterLoop, SiteTokens::CarriedOut, true), "after-loop/carried-out-token/commit-in-if");
        assert_ne!(site(Place::Loop, SiteTokens::Copy, false), site(Place::Loop, SiteTokens::Group, false));
    }
}
