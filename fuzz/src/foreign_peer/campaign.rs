//! An audit campaign against one foreign peer, written once over [`Auditor`]: cases drawn from
//! consecutive seeds, each given to the peer and judged; the first case of each signature is
//! minimized (the auditor's shrinking steps kept while the signature holds) and becomes a
//! [`Finding`]; the [`Summary`] counts programs and findings per row.
//!
//! Nothing here prints or writes files: the caller sees [`Event`]s (progress, findings) and
//! writes what it wants. Invariant: the campaign stops at its time or program limit, or when
//! `stop` is set, after the program it is on; every program counted is in exactly one row (a
//! skip in its [`NotAudited`] row).

use std::collections::{BTreeMap, HashSet};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use super::{Audited, Auditor, ForeignPeer, NotAudited, PeerClass, PeerSignature};

/// What a campaign runs.
#[derive(Clone, Debug)]
pub struct AuditConfig {
    pub seed: u64,
    pub duration: Duration,
    pub max_programs: Option<u64>,
    /// Time for minimizing one finding.
    pub minimize_budget: Duration,
    /// How often a [`Event::Progress`] is sent.
    pub progress_every: Duration,
}

impl AuditConfig {
    /// A campaign of `programs` programs from `seed`, however long they take, each finding
    /// minimized for at most `minimize_budget`, with no progress events.
    pub fn of_programs(seed: u64, programs: u64, minimize_budget: Duration) -> AuditConfig {
        AuditConfig {
            seed,
            duration: Duration::MAX,
            max_programs: Some(programs),
            minimize_budget,
            progress_every: Duration::MAX,
        }
    }
}

/// A minimized finding.
pub struct Finding<A: Auditor + ?Sized> {
    /// 1, 2, ... in the order found.
    pub number: usize,
    pub signature: A::Signature,
    /// The seed of the program that first showed it.
    pub seed: u64,
    /// The minimized case and the peer's judged answer on it.
    pub minimized: Audited<A>,
    /// Lines of the program before minimizing.
    pub lines_before: usize,
    pub peer_version: String,
}

/// Programs and findings of one row.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Row {
    pub programs: u64,
    pub findings: u64,
}

/// What a campaign did.
#[derive(Clone, Debug)]
pub struct Summary<S: PeerSignature> {
    pub peer: ForeignPeer,
    /// Why the peer did not run (then nothing else is filled in).
    pub skipped: Option<String>,
    pub version: String,
    pub seed: u64,
    pub programs: u64,
    pub seconds: f64,
    /// By row ([`PeerClass::row`], or [`NotAudited::row`] for a skip).
    pub rows: BTreeMap<&'static str, Row>,
    /// Every signature found, with its programs.
    pub signatures: BTreeMap<S, u64>,
    /// The reason of the first skip of each skip row.
    pub first_skips: BTreeMap<&'static str, String>,
}

impl<S: PeerSignature> Summary<S> {
    fn new(peer: ForeignPeer, seed: u64) -> Summary<S> {
        Summary {
            peer,
            skipped: None,
            version: String::new(),
            seed,
            programs: 0,
            seconds: 0.0,
            rows: BTreeMap::new(),
            signatures: BTreeMap::new(),
            first_skips: BTreeMap::new(),
        }
    }

    /// The summary of a campaign whose peer could not be started (`why`).
    pub fn skipped(peer: ForeignPeer, seed: u64, why: String) -> Summary<S> {
        Summary { skipped: Some(why), ..Summary::new(peer, seed) }
    }

    /// The summary as Markdown: a table of rows, then the signatures.
    pub fn markdown(&self) -> String {
        let peer = self.peer.name();
        if let Some(why) = &self.skipped {
            return format!("# Audit of {peer}\n\nskipped: {why}\n");
        }
        let mut out = format!(
            "# Audit of {peer} {}\n\n{} programs in {:.0} s, seed {}\n\n| outcome | programs | unique findings |\n| --- | --- | --- |\n",
            self.version, self.programs, self.seconds, self.seed
        );
        let class_rows = S::Class::ROWS.iter().map(|&row| (row, S::Class::describe_row(row)));
        let skip_rows = NotAudited::ROWS.iter().map(|&row| (row, NotAudited::describe_row(row)));
        for (row, words) in class_rows.chain(skip_rows) {
            let counts = self.rows.get(row).copied().unwrap_or_default();
            if counts.programs > 0 {
                out.push_str(&format!("| {words} | {} | {} |\n", counts.programs, counts.findings));
            }
        }
        if !self.signatures.is_empty() {
            out.push_str("\nFindings by signature (programs):\n\n");
            for (signature, programs) in &self.signatures {
                let whose = if signature.class().is_tirproof_limitation() { " (tirproof's reader)" } else { "" };
                out.push_str(&format!("- `{signature}`: {programs}{whose}\n"));
            }
        }
        if !self.first_skips.is_empty() {
            out.push_str("\nFirst skip of each kind:\n\n");
            for (row, why) in &self.first_skips {
                let first = why.lines().next().unwrap_or("");
                out.push_str(&format!("- {row}: {first}\n"));
            }
        }
        out
    }
}

/// What a campaign reports while it runs.
pub enum Event<'a, A: Auditor + ?Sized> {
    Progress { programs: u64, elapsed: Duration, findings: usize },
    Finding(&'a Finding<A>),
}

/// The seed of program `index` of campaign `seed`.
pub fn program_seed(seed: u64, index: u64) -> u64 {
    // splitmix64 of the pair, so neighbouring campaigns do not share programs.
    let mut z = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15).wrapping_add(index).wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// Runs a campaign with the started `auditor` (see the module documentation).
pub fn run<A: Auditor>(
    config: &AuditConfig,
    mut auditor: A,
    stop: &AtomicBool,
    observe: &mut dyn FnMut(Event<'_, A>),
) -> Summary<A::Signature> {
    let mut summary = Summary::new(A::PEER, config.seed);
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
        summary.programs += 1;
        match auditor.audit(&A::generate(seed)) {
            Err(skip) => {
                summary.rows.entry(skip.row()).or_default().programs += 1;
                summary.first_skips.entry(skip.row()).or_insert_with(|| skip.why().to_string());
            }
            Ok(audited) => {
                let signature = audited.signature.clone();
                let row = summary.rows.entry(signature.class().row()).or_default();
                row.programs += 1;
                if signature.class().is_finding() {
                    *summary.signatures.entry(signature.clone()).or_default() += 1;
                    if seen.insert(signature.clone()) {
                        row.findings += 1;
                        findings += 1;
                        let lines_before = audited.text.lines().count();
                        let minimized = minimize(&mut auditor, audited, config.minimize_budget);
                        let finding = Finding {
                            number: findings,
                            signature,
                            seed,
                            minimized,
                            lines_before,
                            peer_version: summary.version.clone(),
                        };
                        observe(Event::Finding(&finding));
                    }
                }
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

/// Shrinks `found` by the auditor's shrinking steps, the first that keeps the signature
/// first, until none does or `budget` is spent.
pub fn minimize<A: Auditor>(auditor: &mut A, found: Audited<A>, budget: Duration) -> Audited<A> {
    // A budget past what an `Instant` holds is no limit: a year is as good.
    let deadline = Instant::now() + budget.min(Duration::from_secs(365 * 24 * 3600));
    let mut best = found;
    'shrink: while Instant::now() < deadline {
        for candidate in A::shrink_candidates(&best.case) {
            if Instant::now() >= deadline {
                break 'shrink;
            }
            if let Ok(audited) = auditor.audit(&candidate) {
                if audited.signature == best.signature {
                    best = audited;
                    continue 'shrink;
                }
            }
        }
        break;
    }
    best
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::foreign_peer::campaign::Finding;

    #[test]
    fn program_seeds_differ_between_programs_and_campaigns() {
        let seeds: HashSet<u64> = (0..2).flat_map(|c| (0..500).map(move |i| program_seed(c, i))).collect();
        assert_eq!(seeds.len(), 1000);
    }

    #[test]
    fn a_skipped_summary_says_why() {
        let summary = Summary::<crate::foreign_peer::Signature>::skipped(
            ForeignPeer::Triton,
            1,
            "Triton is not installed".into(),
        );
        assert_eq!(summary.markdown(), "# Audit of triton\n\nskipped: Triton is not installed\n");
    }

    /// A peer of numbers: a case is a number, shrinking halves it or takes two or one off, its class
    /// is whether it is even, odd (a finding) or above 90 (not audited: a skip).
    struct Parity;

    #[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
    enum ParityClass {
        Even,
        Odd,
    }

    impl std::fmt::Display for ParityClass {
        fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
            f.write_str(self.row())
        }
    }

    impl PeerClass for ParityClass {
        const ROWS: &'static [&'static str] = &["even", "odd"];
        fn row(&self) -> &'static str {
            match self {
                ParityClass::Even => "even",
                ParityClass::Odd => "odd",
            }
        }
        fn describe_row(row: &str) -> String {
            format!("{row} numbers")
        }
        fn is_finding(&self) -> bool {
            *self == ParityClass::Odd
        }
        fn is_tirproof_limitation(&self) -> bool {
            false
        }
    }

    impl PeerSignature for ParityClass {
        type Class = ParityClass;
        fn class(&self) -> &ParityClass {
            self
        }
    }

    impl Auditor for Parity {
        type Case = u64;
        type Signature = ParityClass;
        type Judged = ();
        const PEER: ForeignPeer = ForeignPeer::Mlir;
        const FINDING_FILES: &'static [&'static str] = &["report.md"];
        fn version(&self) -> &str {
            "1"
        }
        fn generate(seed: u64) -> u64 {
            seed % 100
        }
        fn shrink_candidates(case: &u64) -> Vec<u64> {
            [case / 2, case.saturating_sub(2), case.saturating_sub(1)].into_iter().filter(|c| c < case).collect()
        }
        fn audit(&mut self, case: &u64) -> Result<Audited<Self>, NotAudited> {
            if *case > 90 {
                return Err(NotAudited::InputNotSafe { why: format!("{case} is too big") });
            }
            let signature = if case.is_multiple_of(2) { ParityClass::Even } else { ParityClass::Odd };
            Ok(Audited { case: *case, text: "x\n".repeat(usize::try_from(*case).unwrap_or(0)), signature, judged: () })
        }
        fn finding_files(finding: &Finding<Self>) -> Vec<(&'static str, String)> {
            vec![("report.md", finding.signature.to_string())]
        }
    }

    #[test]
    fn a_campaign_counts_every_program_once_and_minimizes_one_finding_per_signature() {
        let config = AuditConfig::of_programs(3, 200, Duration::from_secs(10));
        let mut found = Vec::new();
        let summary = run(&config, Parity, &AtomicBool::new(false), &mut |event| {
            if let Event::Finding(finding) = event {
                found.push((finding.signature.clone(), finding.minimized.case, finding.lines_before));
            }
        });
        assert_eq!(summary.programs, 200);
        assert_eq!(summary.rows.values().map(|r| r.programs).sum::<u64>(), 200, "{:?}", summary.rows);
        let skips = summary.rows.get("input-not-safe").map_or(0, |r| r.programs);
        assert!(skips > 0 && summary.first_skips["input-not-safe"].ends_with("is too big"), "{summary:?}");
        // One odd finding, minimized to the smallest odd number reachable: 1.
        assert_eq!(found.len(), 1, "{found:?}");
        assert_eq!((found[0].0.clone(), found[0].1), (ParityClass::Odd, 1));
        assert!(found[0].2 > 1);
        assert_eq!(summary.rows["odd"].findings, 1);
        assert_eq!(summary.signatures[&ParityClass::Odd], summary.rows["odd"].programs);
        let markdown = summary.markdown();
        assert!(
            markdown.contains("| odd numbers |") && markdown.contains("| skipped: the input does not verify safe |")
        );
        assert!(!markdown.contains("Even"), "{markdown}");
    }

    #[test]
    fn a_stopped_campaign_runs_nothing() {
        let config = AuditConfig {
            seed: 3,
            duration: Duration::from_secs(60),
            max_programs: None,
            minimize_budget: Duration::from_secs(10),
            progress_every: Duration::from_secs(3600),
        };
        let summary = run(&config, Parity, &AtomicBool::new(true), &mut |_| {});
        assert_eq!(summary.programs, 0);
        assert_eq!(summary.version, "1");
    }
}
