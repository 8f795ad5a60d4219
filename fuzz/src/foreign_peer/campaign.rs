//! An audit campaign against one foreign peer: programs drawn from consecutive seeds, each
//! given to the peer and judged; the first program of each [`Signature`] is minimized (edits of
//! the structured program kept while the signature holds) and becomes a [`Finding`]; the
//! [`Summary`] counts programs and findings per outcome class.
//!
//! Nothing here prints or writes files: the caller sees [`Event`]s (progress, findings) and
//! writes what it wants. Invariant: the campaign stops at its time or program limit, or when
//! `stop` is set, after the program it is on; every program counted is in exactly one row.

use std::collections::{BTreeMap, HashSet};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use super::class::{Signature, TritonClass};
use super::ttgir_gen::Program;
use super::{Audited, Auditor, ForeignPeer};

/// What a campaign runs.
#[derive(Clone, Debug)]
pub struct AuditConfig {
    pub peer: ForeignPeer,
    pub seed: u64,
    pub duration: Duration,
    pub max_programs: Option<u64>,
    /// Time for minimizing one finding.
    pub minimize_budget: Duration,
    /// How often a [`Event::Progress`] is sent.
    pub progress_every: Duration,
}

/// A minimized finding.
#[derive(Clone, Debug)]
pub struct Finding {
    /// 1, 2, ... in the order found.
    pub number: usize,
    pub signature: Signature,
    /// The seed of the program that first showed it.
    pub seed: u64,
    /// The minimized program and the peer's judged answer on it.
    pub minimized: Audited,
    /// Lines of the program before and after minimizing.
    pub lines_before: usize,
    pub peer: ForeignPeer,
    pub peer_version: String,
}

/// Programs and findings of one outcome class.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Row {
    pub programs: u64,
    pub findings: u64,
}

/// What a campaign did.
#[derive(Clone, Debug)]
pub struct Summary {
    pub peer: ForeignPeer,
    /// Why the peer did not run (then nothing else is filled in).
    pub skipped: Option<String>,
    pub version: String,
    pub seed: u64,
    pub programs: u64,
    pub seconds: f64,
    /// By class row ([`TritonClass::row`]).
    pub rows: BTreeMap<&'static str, Row>,
    /// Every signature found, with its programs.
    pub signatures: BTreeMap<Signature, u64>,
}

impl Summary {
    fn new(config: &AuditConfig) -> Summary {
        Summary {
            peer: config.peer,
            skipped: None,
            version: String::new(),
            seed: config.seed,
            programs: 0,
            seconds: 0.0,
            rows: BTreeMap::new(),
            signatures: BTreeMap::new(),
        }
    }

    /// The summary as Markdown: a table of outcome classes, then the signatures.
    pub fn markdown(&self) -> String {
        let peer = self.peer.name();
        if let Some(why) = &self.skipped {
            return format!("# Audit of {peer}\n\nskipped: {why}\n");
        }
        let mut out = format!(
            "# Audit of {peer} {}\n\n{} programs in {:.0} s, seed {}\n\n| outcome | programs | unique findings |\n| --- | --- | --- |\n",
            self.version, self.programs, self.seconds, self.seed
        );
        for row in TritonClass::TABLE {
            let counts = self.rows.get(row).copied().unwrap_or_default();
            if counts.programs > 0 {
                out.push_str(&format!("| {} | {} | {} |\n", describe_row(row), counts.programs, counts.findings));
            }
        }
        if !self.signatures.is_empty() {
            out.push_str("\nFindings by signature (programs):\n\n");
            for (signature, programs) in &self.signatures {
                let whose = if signature.class.is_tirproof_limitation() { " (tirproof's reader)" } else { "" };
                out.push_str(&format!("- `{signature}`: {programs}{whose}\n"));
            }
        }
        out
    }
}

/// A table row's words.
fn describe_row(row: &str) -> String {
    match row {
        "agree" => "agree (every wait safe and tight)".into(),
        "over-synchronized" => "over-synchronized (safe, not tight)".into(),
        "unsafe" => "unsafe (a wait refuted, or groups left in flight)".into(),
        "output-unreadable" => "output unreadable (tirproof's limitation)".into(),
        "unknown" => "unknown (verifier undecided; skipped)".into(),
        other => other.to_string(),
    }
}

/// What a campaign reports while it runs.
#[derive(Debug)]
pub enum Event<'a> {
    Progress { programs: u64, elapsed: Duration, findings: usize },
    Finding(&'a Finding),
}

/// The seed of program `index` of campaign `seed`.
pub fn program_seed(seed: u64, index: u64) -> u64 {
    // splitmix64 of the pair, so neighbouring campaigns do not share programs.
    let mut z = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15).wrapping_add(index).wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// Runs a campaign (see the module documentation).
pub fn run(config: &AuditConfig, stop: &AtomicBool, observe: &mut dyn FnMut(Event<'_>)) -> Summary {
    let mut summary = Summary::new(config);
    let mut auditor = match config.peer.start() {
        Ok(auditor) => auditor,
        Err(why) => {
            summary.skipped = Some(why);
            return summary;
        }
    };
    summary.version = auditor.version().to_string();
    let start = Instant::now();
    let mut last_progress = start;
    let mut seen = HashSet::new();
    let mut findings = 0usize;
    for index in 0.. {
        if stop.load(Ordering::Relaxed)
            || start.elapsed() >= config.duration
            || config.max_programs.is_some_and(|max| index >= max)
        {
            break;
        }
        let seed = program_seed(config.seed, index);
        let audited = auditor.audit(&Program::generate(seed));
        summary.programs += 1;
        let signature = audited.judged.signature.clone();
        let row = summary.rows.entry(signature.class.row()).or_default();
        row.programs += 1;
        if signature.class.is_finding() {
            *summary.signatures.entry(signature.clone()).or_default() += 1;
            if seen.insert(signature.clone()) {
                row.findings += 1;
                findings += 1;
                let lines_before = audited.text.lines().count();
                let minimized = minimize(auditor.as_mut(), audited, config.minimize_budget);
                let finding = Finding {
                    number: findings,
                    signature,
                    seed,
                    minimized,
                    lines_before,
                    peer: config.peer,
                    peer_version: summary.version.clone(),
                };
                observe(Event::Finding(&finding));
            }
        }
        if last_progress.elapsed() >= config.progress_every {
            last_progress = Instant::now();
            observe(Event::Progress { programs: summary.programs, elapsed: start.elapsed(), findings });
        }
    }
    summary.seconds = start.elapsed().as_secs_f64();
    summary
}

/// Shrinks `found` by the edits of [`Program::shrink_candidates`], first that keeps the
/// signature first, until none does or `budget` is spent.
pub fn minimize(auditor: &mut dyn Auditor, found: Audited, budget: Duration) -> Audited {
    let deadline = Instant::now() + budget;
    let mut best = found;
    'shrink: while Instant::now() < deadline {
        for candidate in best.program.shrink_candidates() {
            if Instant::now() >= deadline {
                break 'shrink;
            }
            let audited = auditor.audit(&candidate);
            if audited.judged.signature == best.judged.signature {
                best = audited;
                continue 'shrink;
            }
        }
        break;
    }
    best
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn program_seeds_differ_between_programs_and_campaigns() {
        let seeds: HashSet<u64> = (0..2).flat_map(|c| (0..500).map(move |i| program_seed(c, i))).collect();
        assert_eq!(seeds.len(), 1000);
    }

    #[test]
    fn a_skipped_summary_says_why() {
        let config = AuditConfig {
            peer: ForeignPeer::Triton,
            seed: 1,
            duration: Duration::from_secs(1),
            max_programs: None,
            minimize_budget: Duration::from_secs(1),
            progress_every: Duration::from_secs(30),
        };
        let mut summary = Summary::new(&config);
        summary.skipped = Some("Triton is not installed".into());
        assert_eq!(summary.markdown(), "# Audit of triton\n\nskipped: Triton is not installed\n");
    }
}
