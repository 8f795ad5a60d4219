//! Counts of verdicts, of one function or summed over many: each wait counted once under its
//! own verdict, and the findings no single wait is responsible for (groups in flight at the
//! end, races, data flow) counted apart, so every line's parts add up to its total.

use std::fmt;

use super::report::{FuncReport, WaitVerdict};

/// Verdicts per wait and function-level findings.
#[derive(Clone, Copy, Default, Debug, PartialEq, Eq, serde::Serialize)]
pub struct Tally {
    pub functions: usize,
    pub waits: usize,
    pub tight: usize,
    pub over: usize,
    /// Proved, tightness not measured.
    pub untested: usize,
    /// Proved for a bounded number of iterations only.
    pub bounded: usize,
    pub refuted: usize,
    pub unknown: usize,
    /// Refuted obligations no single wait is responsible for.
    pub findings_refuted: usize,
    /// Undecided obligations no single wait is responsible for.
    pub findings_unknown: usize,
}

impl Tally {
    pub fn of(report: &FuncReport) -> Tally {
        let mut tally = Tally { functions: 1, waits: report.waits.len(), ..Tally::default() };
        for wait in &report.waits {
            let slot = match wait.verdict {
                WaitVerdict::ProvedTight => &mut tally.tight,
                WaitVerdict::ProvedOverSynchronized { .. } => &mut tally.over,
                WaitVerdict::Proved => &mut tally.untested,
                WaitVerdict::ProvedBounded { .. } => &mut tally.bounded,
                WaitVerdict::Refuted { .. } => &mut tally.refuted,
                WaitVerdict::Unknown { .. } => &mut tally.unknown,
            };
            *slot += 1;
        }
        tally.findings_refuted = report.findings.len();
        tally.findings_unknown = report.unknown.len();
        tally
    }

    pub fn add(&mut self, other: &Tally) {
        self.functions += other.functions;
        self.waits += other.waits;
        self.tight += other.tight;
        self.over += other.over;
        self.untested += other.untested;
        self.bounded += other.bounded;
        self.refuted += other.refuted;
        self.unknown += other.unknown;
        self.findings_refuted += other.findings_refuted;
        self.findings_unknown += other.findings_unknown;
    }

    /// Function-level findings, refuted or not.
    pub fn findings(&self) -> usize {
        self.findings_refuted + self.findings_unknown
    }

    /// Whether there is anything to count: a wait or a finding.
    pub fn is_empty(&self) -> bool {
        self.waits == 0 && self.findings() == 0
    }

    /// `N waits: a proved and tight, b over-synchronized, c refuted, d unknown`, with the
    /// verdicts only some runs have (tightness not measured, bounded) when they occur.
    pub fn waits_line(&self) -> impl fmt::Display + '_ {
        WaitsLine(self)
    }

    /// `N function-level findings (not about one wait): a refuted, b unknown`, when there are any.
    pub fn findings_line(&self) -> Option<String> {
        (self.findings() > 0).then(|| {
            format!(
                "{} (not about one wait): {} refuted, {} unknown",
                plural(self.findings(), "function-level finding"),
                self.findings_refuted,
                self.findings_unknown
            )
        })
    }
}

/// Both lines joined with `; `.
impl fmt::Display for Tally {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.waits_line())?;
        match self.findings_line() {
            Some(findings) => write!(f, "; {findings}"),
            None => Ok(()),
        }
    }
}

struct WaitsLine<'a>(&'a Tally);

impl fmt::Display for WaitsLine<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let t = self.0;
        write!(f, "{}: {} proved and tight, {} over-synchronized", plural(t.waits, "wait"), t.tight, t.over)?;
        if t.untested > 0 {
            write!(f, ", {} proved (tightness not measured)", t.untested)?;
        }
        if t.bounded > 0 {
            write!(f, ", {} proved for a bounded number of iterations only", t.bounded)?;
        }
        write!(f, ", {} refuted, {} unknown", t.refuted, t.unknown)
    }
}

/// `1 wait`, `2 waits`, `3 function-level findings`.
pub fn plural(n: usize, noun: &str) -> String {
    match (n, noun.strip_suffix('y')) {
        (1, _) => format!("1 {noun}"),
        (_, Some(stem)) => format!("{n} {stem}ies"),
        (_, None) => format!("{n} {noun}s"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_parts_of_each_line_add_up_and_findings_are_apart() {
        let t = Tally { functions: 1, waits: 1, refuted: 1, findings_refuted: 1, ..Tally::default() };
        assert_eq!(
            t.to_string(),
            "1 wait: 0 proved and tight, 0 over-synchronized, 1 refuted, 0 unknown; \
             1 function-level finding (not about one wait): 1 refuted, 0 unknown"
        );
        let t = Tally { waits: 2, tight: 2, ..Tally::default() };
        assert_eq!(t.to_string(), "2 waits: 2 proved and tight, 0 over-synchronized, 0 refuted, 0 unknown");
        assert_eq!(plural(2, "function-level finding"), "2 function-level findings");
        assert_eq!(plural(3, "query"), "3 queries");
    }
}
