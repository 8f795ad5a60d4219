//! What a command found, and the one place it is rendered for machines and turned into an
//! exit code.
//!
//! Every command that reports diagnostics or verdicts builds a [`Report`]: the inputs it read
//! ([`FileEntry`]) and its [`Finding`]s, each of a [`Rule`] with a stable id, a [`Level`], an
//! [`ExitStatus`] and a `file:line:col` [`Location`]. `--format` picks the renderer: `text` is
//! the command's own human output (printed as it goes; the report adds nothing to it), `json`,
//! `sarif` (SARIF 2.1.0) and `github` (workflow annotations) render the report on standard
//! output, where nothing else is written. Whatever the format, diagnostics for people still go
//! to standard error.
//!
//! Invariants: the exit code is the report's [`ExitStatus`] (the worst of its findings' by
//! [`ExitStatus::worst`]), so every format of one run ends with the same code; every machine
//! format names exactly the report's findings, in the same order; rule ids never change
//! meaning (a code-scanning UI tracks results by them).

use std::fmt::Write as _;
use std::process::ExitCode;

use serde_json::{json, Map, Value};
use tirproof_ir::diag::Severity;
use tirproof_ir::{Diagnostic, Diagnostics};

/// How a command reports.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, clap::ValueEnum)]
pub enum Format {
    /// For people: the command's own output.
    #[default]
    Text,
    /// One JSON document.
    Json,
    /// SARIF 2.1.0, for code-scanning UIs.
    Sarif,
    /// GitHub workflow annotations (`::error file=F,line=L,col=C::message`).
    Github,
}

/// The `--format` flag every reporting command takes, with `--json` kept as its alias.
#[derive(Clone, Debug, clap::Args)]
pub struct FormatArgs {
    /// How to report: text for people, or json, sarif (SARIF 2.1.0) or github (workflow
    /// annotations) on standard output, which then holds nothing else.
    #[arg(long, value_enum, default_value_t = Format::Text)]
    format: Format,
    /// The same as `--format json`.
    #[arg(long, conflicts_with = "format")]
    json: bool,
}

impl FormatArgs {
    /// The format asked for.
    pub fn format(&self) -> Format {
        if self.json {
            Format::Json
        } else {
            self.format
        }
    }

    /// Whether standard output is the command's human output (and not a report's).
    pub fn is_text(&self) -> bool {
        self.format() == Format::Text
    }
}

/// The exit status of every command, one code each.
///
/// When several apply, the worst wins: bad input over refuted over unknown over clean
/// ([`ExitStatus::worst`]); a usage error stops the command before any verdict.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ExitStatus {
    /// 0: everything read, checked, and proved or run clean.
    Clean,
    /// 1: a finding: a wait or an obligation refuted, a run that faults, outputs that differ,
    /// a failed corpus case, an over-synchronized wait under `--deny over-synchronized`.
    Refuted,
    /// 2: a usage error (the arguments, an output that would overwrite data or could not be
    /// written).
    Usage,
    /// 3: something undecided (a verdict unknown or only bounded) and nothing refuted.
    Unknown,
    /// 4: an input that does not read, parse or check (or that a pass refuses).
    BadInput,
}

/// The exit codes, as `--help` and the README state them.
pub const EXIT_CODES_HELP: &str = "\
Exit codes:
  0  clean: everything read, checked, and proved or run clean
  1  refuted: a finding (a wait refuted, a run that faults, outputs that differ,
     a failed corpus case, an over-synchronized wait under --deny over-synchronized)
  2  usage error, or an output that could not be written or would overwrite data
  3  unknown: some verdict undecided (or bounded only), nothing refuted
  4  bad input: a file that does not read, parse or check
  141  standard output was closed before everything was written (`| head`)
When several apply, the worst wins: 4 over 1 over 3 over 0.";

impl ExitStatus {
    /// The process exit code.
    pub fn code(self) -> u8 {
        match self {
            ExitStatus::Clean => 0,
            ExitStatus::Refuted => 1,
            ExitStatus::Usage => 2,
            ExitStatus::Unknown => 3,
            ExitStatus::BadInput => 4,
        }
    }

    /// How much a status outweighs others when several apply.
    fn weight(self) -> u8 {
        match self {
            ExitStatus::Clean => 0,
            ExitStatus::Unknown => 1,
            ExitStatus::Refuted => 2,
            ExitStatus::BadInput => 3,
            ExitStatus::Usage => 4,
        }
    }

    /// The status of a run where both apply.
    #[must_use]
    pub fn worst(self, other: ExitStatus) -> ExitStatus {
        if other.weight() > self.weight() {
            other
        } else {
            self
        }
    }

    /// The status by its name in JSON.
    pub fn name(self) -> &'static str {
        match self {
            ExitStatus::Clean => "clean",
            ExitStatus::Refuted => "refuted",
            ExitStatus::Usage => "usage",
            ExitStatus::Unknown => "unknown",
            ExitStatus::BadInput => "bad-input",
        }
    }
}

impl From<ExitStatus> for ExitCode {
    fn from(status: ExitStatus) -> ExitCode {
        ExitCode::from(status.code())
    }
}

/// An input that could not be read: exit 4, where other errors of a command are usage (2).
#[derive(Debug, thiserror::Error)]
#[error("cannot read {path}: {error}")]
pub struct ReadError {
    pub path: String,
    pub error: std::io::Error,
}

/// How severe a finding is, as SARIF and GitHub name levels.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Level {
    Error,
    Warning,
    Note,
}

impl Level {
    fn sarif(self) -> &'static str {
        match self {
            Level::Error => "error",
            Level::Warning => "warning",
            Level::Note => "note",
        }
    }

    fn github(self) -> &'static str {
        match self {
            Level::Error => "error",
            Level::Warning => "warning",
            Level::Note => "notice",
        }
    }
}

/// The kinds of findings; each has a stable id (SARIF's rule id).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Rule {
    /// An error of reading, parsing or checking an input.
    BadInput,
    /// A warning about an input (its parse or check).
    InputWarning,
    /// A pass refuses the module.
    PassRefused,
    /// A statement the lowering to PTX cannot lower.
    LoweringRefused,
    /// A wait proved safe (and tight, or not measured).
    WaitProved,
    /// A wait proved safe, with more in flight safe too.
    WaitOverSynchronized,
    /// A wait with a counterexample.
    WaitRefuted,
    /// A wait not decided (or proved for bounded loops only).
    WaitUnknown,
    /// A refuted obligation no single wait is responsible for (a race, a group never waited).
    FunctionRefuted,
    /// An undecided obligation no single wait is responsible for.
    FunctionUnknown,
    /// A run that faults.
    RunFault,
    /// Two runs whose outputs differ (or one of them faults).
    RunMismatch,
    /// A pass's output the checker rejects.
    PassBroken,
    /// A rewrite of a CSE pass that `opt --validate` refutes.
    RewriteRefuted,
    /// A rewrite of a CSE pass that `opt --validate` does not decide.
    RewriteUnknown,
    /// A corpus case that fails.
    CaseFailed,
}

impl Rule {
    /// Every rule, in the order of SARIF's `rules` array.
    pub const ALL: [Rule; 16] = [
        Rule::BadInput,
        Rule::InputWarning,
        Rule::PassRefused,
        Rule::LoweringRefused,
        Rule::WaitProved,
        Rule::WaitOverSynchronized,
        Rule::WaitRefuted,
        Rule::WaitUnknown,
        Rule::FunctionRefuted,
        Rule::FunctionUnknown,
        Rule::RunFault,
        Rule::RunMismatch,
        Rule::PassBroken,
        Rule::RewriteRefuted,
        Rule::RewriteUnknown,
        Rule::CaseFailed,
    ];

    /// The stable id.
    pub fn id(self) -> &'static str {
        match self {
            Rule::BadInput => "bad-input",
            Rule::InputWarning => "input-warning",
            Rule::PassRefused => "pass-refused",
            Rule::LoweringRefused => "lowering-refused",
            Rule::WaitProved => "wait-proved",
            Rule::WaitOverSynchronized => "wait-over-synchronized",
            Rule::WaitRefuted => "wait-refuted",
            Rule::WaitUnknown => "wait-unknown",
            Rule::FunctionRefuted => "function-refuted",
            Rule::FunctionUnknown => "function-unknown",
            Rule::RunFault => "run-fault",
            Rule::RunMismatch => "run-mismatch",
            Rule::PassBroken => "pass-broken",
            Rule::RewriteRefuted => "rewrite-refuted",
            Rule::RewriteUnknown => "rewrite-unknown",
            Rule::CaseFailed => "case-failed",
        }
    }

    /// One line on what a finding of the rule means.
    pub fn description(self) -> &'static str {
        match self {
            Rule::BadInput => "The input does not read, parse or check.",
            Rule::InputWarning => "A warning about the input.",
            Rule::PassRefused => "A pass refuses the module.",
            Rule::LoweringRefused => "The lowering to PTX cannot lower a statement.",
            Rule::WaitProved => "The async wait is proved safe.",
            Rule::WaitOverSynchronized => "The async wait is safe, and would be with more groups in flight.",
            Rule::WaitRefuted => "The async wait is refuted: an execution uses data before its copy completes.",
            Rule::WaitUnknown => "The async wait is not decided (or proved for bounded loops only).",
            Rule::FunctionRefuted => "An obligation no single wait is responsible for is refuted.",
            Rule::FunctionUnknown => "An obligation no single wait is responsible for is not decided.",
            Rule::RunFault => "The program faults when run.",
            Rule::RunMismatch => "The program and its reference give different outputs.",
            Rule::PassBroken => "The checker rejects a pass's output.",
            Rule::RewriteRefuted => "A rewrite of a CSE pass is refuted.",
            Rule::RewriteUnknown => "A rewrite of a CSE pass is not decided.",
            Rule::CaseFailed => "A corpus case fails.",
        }
    }

    /// The level and exit status of a finding of the rule.
    fn defaults(self) -> (Level, ExitStatus) {
        match self {
            Rule::BadInput | Rule::PassRefused | Rule::LoweringRefused => (Level::Error, ExitStatus::BadInput),
            Rule::InputWarning | Rule::WaitOverSynchronized => (Level::Warning, ExitStatus::Clean),
            Rule::WaitProved => (Level::Note, ExitStatus::Clean),
            Rule::WaitUnknown | Rule::FunctionUnknown | Rule::RewriteUnknown => (Level::Warning, ExitStatus::Unknown),
            Rule::WaitRefuted
            | Rule::FunctionRefuted
            | Rule::RunFault
            | Rule::RunMismatch
            | Rule::PassBroken
            | Rule::RewriteRefuted
            | Rule::CaseFailed => (Level::Error, ExitStatus::Refuted),
        }
    }
}

/// Where a finding is: a file, and a line and column in it (from 1; 0 where the finding is
/// about the whole file).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Location {
    pub file: String,
    pub line: u32,
    pub col: u32,
}

impl Location {
    /// A place in `file`.
    pub fn at(file: &str, line: u32, col: u32) -> Location {
        Location { file: file.to_owned(), line, col }
    }

    /// The whole of `file`.
    pub fn file(file: &str) -> Location {
        Location::at(file, 0, 0)
    }

    /// The start of `line` of `text` (the column of its first character that is not blank),
    /// where a finding knows its line only.
    pub fn line_of(file: &str, text: &str, line: u32) -> Location {
        let col = (line > 0)
            .then(|| text.lines().nth(line as usize - 1))
            .flatten()
            .map_or(1, |l| l.chars().take_while(|c| c.is_whitespace()).count() + 1);
        Location::at(file, line, if line == 0 { 0 } else { u32::try_from(col).unwrap_or(1) })
    }
}

/// One thing a command found.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Finding {
    pub rule: Rule,
    pub level: Level,
    pub status: ExitStatus,
    pub message: String,
    pub location: Location,
}

impl Finding {
    /// A finding of `rule`, with the rule's level and status.
    pub fn new(rule: Rule, location: Location, message: impl Into<String>) -> Finding {
        let (level, status) = rule.defaults();
        Finding { rule, level, status, message: message.into(), location }
    }

    /// The same finding made an error that refutes (`--deny`).
    #[must_use]
    pub fn denied(self) -> Finding {
        Finding { level: Level::Error, status: ExitStatus::Refuted, ..self }
    }

    /// A parse or check diagnostic of `file`: an error is bad input, a warning is not.
    pub fn of_diagnostic(file: &str, diagnostic: &Diagnostic) -> Finding {
        let rule = match diagnostic.severity {
            Severity::Error => Rule::BadInput,
            Severity::Warning => Rule::InputWarning,
        };
        let mut message = diagnostic.message.clone();
        if let Some(expected) = &diagnostic.expected {
            let _ = write!(message, " (expected {expected}");
            if let Some(found) = &diagnostic.found {
                let _ = write!(message, ", found {found}");
            }
            message.push(')');
        }
        Finding::new(rule, Location::at(file, diagnostic.span.line, diagnostic.span.col), message)
    }
}

/// What became of an input.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FileStatus {
    /// Read, parsed and checked.
    Checked,
    /// Checked, and its waits verified (`verify`).
    Verified,
    /// Not read, or it does not parse or check: its bad-input findings say why.
    Rejected,
}

impl FileStatus {
    fn name(self) -> &'static str {
        match self {
            FileStatus::Checked => "checked",
            FileStatus::Verified => "verified",
            FileStatus::Rejected => "rejected",
        }
    }
}

/// An input of the command.
#[derive(Clone, Debug)]
pub struct FileEntry {
    pub file: String,
    pub status: FileStatus,
}

/// What a command found, rendered once at its end.
#[derive(Clone, Debug)]
pub struct Report {
    /// The subcommand (`verify`), named in JSON.
    pub command: &'static str,
    pub files: Vec<FileEntry>,
    pub findings: Vec<Finding>,
}

/// The version of the JSON document's layout (`{schema_version, command, exit_code, status,
/// files: [{file, status, diagnostics}], findings: [{rule, level, message, file, line, col}]}`
/// and, for `verify`, its `summary` and `functions`): raised when a field changes meaning or
/// goes away, not when one is added.
pub const JSON_SCHEMA_VERSION: u32 = 1;

/// The SARIF version written, and the schema it follows.
const SARIF_VERSION: &str = "2.1.0";
const SARIF_SCHEMA: &str = "https://json.schemastore.org/sarif-2.1.0.json";

impl Report {
    pub fn new(command: &'static str) -> Report {
        Report { command, files: Vec::new(), findings: Vec::new() }
    }

    /// Records an input as `status`.
    /// Records `file` with `status`; a file recorded before keeps one entry, with the later
    /// status (a program checked and then refused by a pass is rejected).
    pub fn file(&mut self, file: &str, status: FileStatus) {
        match self.files.iter_mut().find(|entry| entry.file == file) {
            Some(entry) => entry.status = status,
            None => self.files.push(FileEntry { file: file.to_owned(), status }),
        }
    }

    pub fn add(&mut self, finding: Finding) {
        self.findings.push(finding);
    }

    /// Records `file` as rejected with its diagnostics.
    pub fn reject(&mut self, file: &str, diagnostics: &Diagnostics) {
        self.file(file, FileStatus::Rejected);
        self.findings.extend(diagnostics.0.iter().map(|d| Finding::of_diagnostic(file, d)));
    }

    /// Records an input that could not be read (printed to standard error too).
    pub fn unreadable(&mut self, error: &ReadError) {
        eprintln!("error: {error}");
        self.file(&error.path, FileStatus::Rejected);
        self.add(Finding::new(Rule::BadInput, Location::file(&error.path), error.to_string()));
    }

    /// The worst status of the findings.
    pub fn status(&self) -> ExitStatus {
        self.findings.iter().fold(ExitStatus::Clean, |worst, f| worst.worst(f.status))
    }

    /// Renders the report in `format` on standard output (nothing for text) and answers the
    /// exit code.
    pub fn finish(&self, format: Format) -> anyhow::Result<ExitCode> {
        self.finish_with(format, Map::new())
    }

    /// [`Report::finish`], with fields of the command's own added to the JSON document.
    pub fn finish_with(&self, format: Format, extra: Map<String, Value>) -> anyhow::Result<ExitCode> {
        match format {
            Format::Text => {}
            Format::Json => crate::outln!("{}", serde_json::to_string_pretty(&self.json(extra))?)?,
            Format::Sarif => crate::outln!("{}", serde_json::to_string_pretty(&self.sarif())?)?,
            Format::Github => crate::out!("{}", self.github())?,
        }
        Ok(self.status().into())
    }

    /// The JSON document.
    pub fn json(&self, extra: Map<String, Value>) -> Value {
        let status = self.status();
        let files: Vec<Value> = self
            .files
            .iter()
            .map(|entry| {
                let diagnostics: Vec<Value> = self
                    .findings
                    .iter()
                    .filter(|f| matches!(f.rule, Rule::BadInput | Rule::InputWarning) && f.location.file == entry.file)
                    .map(|f| {
                        json!({
                            "severity": f.level.sarif(),
                            "line": f.location.line,
                            "col": f.location.col,
                            "message": f.message,
                        })
                    })
                    .collect();
                json!({ "file": entry.file, "status": entry.status.name(), "diagnostics": diagnostics })
            })
            .collect();
        let findings: Vec<Value> = self
            .findings
            .iter()
            .map(|f| {
                json!({
                    "rule": f.rule.id(),
                    "level": f.level.sarif(),
                    "status": f.status.name(),
                    "message": f.message,
                    "file": f.location.file,
                    "line": f.location.line,
                    "col": f.location.col,
                })
            })
            .collect();
        let mut document = Map::new();
        document.insert("schema_version".into(), json!(JSON_SCHEMA_VERSION));
        document.insert("command".into(), json!(self.command));
        document.insert("exit_code".into(), json!(status.code()));
        document.insert("status".into(), json!(status.name()));
        document.extend(extra);
        document.insert("files".into(), Value::Array(files));
        document.insert("findings".into(), Value::Array(findings));
        Value::Object(document)
    }

    /// The SARIF 2.1.0 log: one run, every rule, a result per finding.
    pub fn sarif(&self) -> Value {
        let rules: Vec<Value> = Rule::ALL
            .iter()
            .map(|rule| {
                json!({
                    "id": rule.id(),
                    "shortDescription": { "text": rule.description() },
                    "defaultConfiguration": { "level": rule.defaults().0.sarif() },
                })
            })
            .collect();
        let results: Vec<Value> = self
            .findings
            .iter()
            .map(|f| {
                let index = Rule::ALL.iter().position(|r| *r == f.rule).unwrap_or_default();
                let mut physical = json!({ "artifactLocation": { "uri": uri(&f.location.file) } });
                if f.location.line > 0 {
                    let mut region = json!({ "startLine": f.location.line });
                    if f.location.col > 0 {
                        region["startColumn"] = json!(f.location.col);
                    }
                    physical["region"] = region;
                }
                json!({
                    "ruleId": f.rule.id(),
                    "ruleIndex": index,
                    "level": f.level.sarif(),
                    "message": { "text": f.message },
                    "locations": [{ "physicalLocation": physical }],
                })
            })
            .collect();
        let status = self.status();
        json!({
            "$schema": SARIF_SCHEMA,
            "version": SARIF_VERSION,
            "runs": [{
                "tool": { "driver": {
                    "name": "tirproof",
                    "version": env!("CARGO_PKG_VERSION"),
                    "rules": rules,
                }},
                "invocations": [{
                    "commandLine": format!("tirproof {}", self.command),
                    "executionSuccessful": true,
                    "exitCode": status.code(),
                }],
                "results": results,
            }],
        })
    }

    /// GitHub workflow annotations, one line per finding.
    pub fn github(&self) -> String {
        let mut lines = String::new();
        for f in &self.findings {
            let mut properties = format!("file={}", github_property(&f.location.file));
            if f.location.line > 0 {
                let _ = write!(properties, ",line={}", f.location.line);
                if f.location.col > 0 {
                    let _ = write!(properties, ",col={}", f.location.col);
                }
            }
            let _ = write!(properties, ",title={}", github_property(f.rule.id()));
            let _ = writeln!(lines, "::{} {properties}::{}", f.level.github(), github_data(&f.message));
        }
        lines
    }
}

/// A file name as a URI reference: every byte but unreserved characters and `/` escaped.
fn uri(file: &str) -> String {
    let mut out = String::with_capacity(file.len());
    for byte in file.bytes() {
        if byte.is_ascii_alphanumeric() || b"-._~/".contains(&byte) {
            out.push(char::from(byte));
        } else {
            let _ = write!(out, "%{byte:02X}");
        }
    }
    out
}

/// The message of a workflow command: `%`, CR and LF escaped, so it stays one line.
fn github_data(text: &str) -> String {
    text.replace('%', "%25").replace('\r', "%0D").replace('\n', "%0A")
}

/// A property of a workflow command: also `:` and `,`, which end properties.
fn github_property(text: &str) -> String {
    github_data(text).replace(':', "%3A").replace(',', "%2C")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_worst_status_wins_bad_input_over_refuted_over_unknown_over_clean() {
        use ExitStatus::*;
        let order = [Clean, Unknown, Refuted, BadInput];
        for (i, low) in order.iter().enumerate() {
            for high in &order[i..] {
                assert_eq!(low.worst(*high), *high);
                assert_eq!(high.worst(*low), *high);
            }
        }
        assert_eq!([Clean, Refuted, Usage, Unknown, BadInput].map(ExitStatus::code), [0, 1, 2, 3, 4]);
    }

    #[test]
    fn rule_ids_are_distinct() {
        let mut ids: Vec<&str> = Rule::ALL.iter().map(|r| r.id()).collect();
        ids.sort_unstable();
        ids.dedup();
        assert_eq!(ids.len(), Rule::ALL.len());
    }

    #[test]
    fn annotations_escape_what_would_end_them() {
        let mut report = Report::new("check");
        report.add(Finding::new(Rule::BadInput, Location::at("a,b:c.py", 3, 4), "50% done\nnext: x"));
        assert_eq!(report.github(), "::error file=a%2Cb%3Ac.py,line=3,col=4,title=bad-input::50%25 done%0Anext: x\n");
        assert_eq!(uri("dir/a b<1>.py"), "dir/a%20b%3C1%3E.py");
    }

    #[test]
    fn a_line_without_a_column_points_at_its_first_character() {
        assert_eq!(Location::line_of("f", "a\n    b\n", 2), Location::at("f", 2, 5));
        assert_eq!(Location::line_of("f", "a\n", 0), Location::file("f"));
    }
}
