//! A campaign's persistent state: `campaign.json` (seed and done prefix) and the signatures
//! already reported under `findings/`. Written atomically; read back to resume.
//!
//! Opening a campaign first repairs what a kill left of a report being replaced (see
//! [`crate::report::recover_findings`]), so every report it reads is complete; the reports
//! whose minimization did not finish are returned, for the campaign to minimize again.

use std::collections::BTreeSet;
use std::io;
use std::path::{Path, PathBuf};
use std::time::Duration;

use serde::{Deserialize, Serialize};

use super::lock::Owner;
use super::{CampaignConfig, Generator, UnknownGenerator};
use crate::oracle::{OracleName, PassVariant, Signature};
use crate::peer::PeerMode;
use crate::reduce::Minimization;
use crate::report::{recover_findings, write_atomically};

const STATE_FILE: &str = "campaign.json";

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct CampaignState {
    pub seed: u64,
    /// Every program below this index has been run (and its finding, if any, reported).
    pub done_below: u64,
    /// The options the campaign was started with (`None` in state files of earlier versions,
    /// which did not record them: such a campaign resumes with the options given, and records
    /// them).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub options: Option<FindingOptions>,
}

/// The options besides the seed that decide what a campaign finds: recorded when it starts,
/// and a resumed campaign must be given the same (so that its findings are of one campaign).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(try_from = "RecordedOptions", into = "RecordedOptions")]
pub struct FindingOptions {
    /// `--planted-bug`: the pass with its deliberate bug.
    pub pass: PassVariant,
    /// The oracles run (`--oracle`), `no-panic` (always run) among them.
    pub oracles: BTreeSet<OracleName>,
    /// TVM's passes (`--peer`), when the `tvm` oracle runs.
    pub peer: Option<PeerMode>,
    /// Whether the generators mix in invalid and mutated programs (not `--valid-only`).
    pub mixed: bool,
    /// The time limit of each Z3 check (`--timeout`).
    pub timeout: Duration,
    /// The time budget of each program's oracles (`--program-budget`).
    pub program_budget: Duration,
    /// The generators named (`--generator`; empty: the default mix).
    pub generators: Vec<Generator>,
}

/// [`FindingOptions`] as `campaign.json` spells them.
#[derive(Serialize, Deserialize)]
struct RecordedOptions {
    planted_bug: bool,
    oracles: Vec<String>,
    peer: Option<String>,
    valid_only: bool,
    timeout_ms: u64,
    program_budget_ms: u64,
    /// Absent from the state of an earlier version, which knew only the default mix.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    generators: Vec<String>,
}

fn millis(duration: Duration) -> u64 {
    u64::try_from(duration.as_millis()).unwrap_or(u64::MAX)
}

impl From<FindingOptions> for RecordedOptions {
    fn from(options: FindingOptions) -> Self {
        RecordedOptions {
            planted_bug: options.pass == PassVariant::PlantedBug,
            oracles: options.oracles.iter().map(|o| o.name().to_string()).collect(),
            peer: options.peer.map(|p| p.name().to_string()),
            valid_only: !options.mixed,
            timeout_ms: millis(options.timeout),
            program_budget_ms: millis(options.program_budget),
            generators: options.generators.iter().map(|g| g.name().to_string()).collect(),
        }
    }
}

impl TryFrom<RecordedOptions> for FindingOptions {
    type Error = String;

    fn try_from(recorded: RecordedOptions) -> Result<Self, String> {
        let oracles = recorded.oracles.iter().map(|o| o.parse::<OracleName>().map_err(|e| e.to_string()));
        Ok(FindingOptions {
            pass: if recorded.planted_bug { PassVariant::PlantedBug } else { PassVariant::Real },
            oracles: oracles.collect::<Result<_, _>>()?,
            peer: recorded.peer.map(|p| p.parse::<PeerMode>().map_err(|e| e.to_string())).transpose()?,
            mixed: !recorded.valid_only,
            timeout: Duration::from_millis(recorded.timeout_ms),
            program_budget: Duration::from_millis(recorded.program_budget_ms),
            generators: recorded
                .generators
                .iter()
                .map(|g| g.parse().map_err(|e: UnknownGenerator| e.to_string()))
                .collect::<Result<_, _>>()?,
        })
    }
}

/// How one option of [`FindingOptions`] is shown in a refusal.
type ShowOption = fn(&FindingOptions) -> String;

impl FindingOptions {
    /// The options of a campaign run with `config`.
    pub fn of(config: &CampaignConfig) -> FindingOptions {
        let chain = &config.chain;
        let mut oracles: BTreeSet<OracleName> = chain.oracles.iter().copied().collect();
        oracles.insert(OracleName::NoPanic);
        FindingOptions {
            pass: chain.pass,
            peer: oracles.contains(&OracleName::Tvm).then_some(chain.peer),
            oracles,
            mixed: config.mixed,
            timeout: chain.timeout,
            program_budget: config.program_budget,
            generators: config.generators.clone(),
        }
    }

    /// The first option that differs from `other`: its name on the command line, and how each
    /// side has it.
    fn first_difference(&self, other: &FindingOptions) -> Option<(&'static str, String, String)> {
        fn given(on: bool) -> String {
            if on { "given" } else { "not given" }.to_string()
        }
        let sides: [(&'static str, ShowOption); 7] = [
            ("--planted-bug", |o| given(o.pass == PassVariant::PlantedBug)),
            ("--oracle", |o| o.oracles.iter().map(|o| o.name()).collect::<Vec<_>>().join(", ")),
            ("--peer", |o| o.peer.map_or("none", PeerMode::name).to_string()),
            ("--valid-only", |o| given(!o.mixed)),
            ("--timeout", |o| format!("{:?}", o.timeout)),
            ("--program-budget", |o| format!("{:?}", o.program_budget)),
            ("--generator", |o| match o.generators.is_empty() {
                true => "the default mix".to_string(),
                false => o.generators.iter().map(|g| g.name()).collect::<Vec<_>>().join(", "),
            }),
        ];
        sides.into_iter().map(|(option, show)| (option, show(self), show(other))).find(|(_, a, b)| a != b)
    }
}

#[derive(Debug, thiserror::Error)]
pub enum CampaignError {
    #[error("{path}: {source}")]
    Io { path: PathBuf, source: io::Error },
    #[error("{path}: not a campaign state file: {message}")]
    BadState { path: PathBuf, message: String },
    #[error("{path} belongs to a campaign with seed {found}; resume it with --seed {found} or use another directory")]
    SeedMismatch { path: PathBuf, found: u64 },
    #[error("{path} belongs to a campaign started with {option}: {recorded}, and this run has {option}: {given}; resume it with the options it was started with, or use another directory")]
    OptionChanged { path: PathBuf, option: &'static str, recorded: String, given: String },
    #[error("{path} is in use by another campaign ({}); wait for it to end or use another directory", .owner.as_ref().map_or_else(|| "its owner is not written yet".to_string(), ToString::to_string))]
    Locked { path: PathBuf, owner: Option<Owner> },
    #[error("cannot start worker thread {} of {jobs}: {source}", .started + 1)]
    Threads { started: usize, jobs: usize, source: io::Error },
}

fn io_error(path: &Path) -> impl FnOnce(io::Error) -> CampaignError + '_ {
    move |source| CampaignError::Io { path: path.to_path_buf(), source }
}

/// A reported finding whose minimization a kill or the end of a campaign interrupted.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Unfinished {
    pub signature: Signature,
    /// The report's directory.
    pub dir: PathBuf,
    /// The campaign program that showed it.
    pub program: u64,
    pub minimization: Minimization,
}

/// What a campaign directory holds besides `campaign.json`: the signatures already reported,
/// those of them still to minimize, and the reports set aside as damaged.
#[derive(Clone, Debug, Default)]
pub struct Findings {
    pub known: BTreeSet<Signature>,
    pub unfinished: Vec<Unfinished>,
    pub damaged: Vec<Damaged>,
}

/// A finding whose `report.json` could not be read back (cut short by a full disk, say): its
/// directory is moved, whole, from `findings/` to `damaged/` in the campaign directory, so
/// that the campaign resumes without it and reports its signature again if it comes back.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Damaged {
    /// The report that could not be read.
    pub report: PathBuf,
    /// Why.
    pub reason: String,
    /// Where its finding's directory is now.
    pub moved_to: PathBuf,
}

/// Where findings set aside as damaged go, in the campaign directory.
const DAMAGED_DIR: &str = "damaged";

/// Moves the finding `finding` (a directory under `DIR/findings`) to `DIR/damaged/`, under
/// its own name or, when that is taken, the first of `NAME.1`, `NAME.2`, ... that is free.
fn set_aside(dir: &Path, finding: &Path) -> io::Result<PathBuf> {
    let damaged = dir.join(DAMAGED_DIR);
    std::fs::create_dir_all(&damaged)?;
    let name = finding.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    let target = (0u32..)
        .map(|n| damaged.join(if n == 0 { name.clone() } else { format!("{name}.{n}") }))
        .find(|candidate| !candidate.exists())
        .unwrap_or_else(|| damaged.join(name));
    std::fs::rename(finding, &target)?;
    Ok(target)
}

impl CampaignState {
    /// Opens (or starts) the campaign in `dir`, repairing its reports, and returns what they
    /// hold.
    pub fn open(dir: &Path, seed: u64, options: &FindingOptions) -> Result<(CampaignState, Findings), CampaignError> {
        let findings = dir.join("findings");
        std::fs::create_dir_all(&findings).map_err(io_error(dir))?;
        recover_findings(&findings).map_err(io_error(&findings))?;
        let path = dir.join(STATE_FILE);
        let state = match std::fs::read_to_string(&path) {
            Ok(text) => {
                let state: CampaignState = serde_json::from_str(&text)
                    .map_err(|e| CampaignError::BadState { path: path.clone(), message: e.to_string() })?;
                let mut state: CampaignState = state;
                if state.seed != seed {
                    return Err(CampaignError::SeedMismatch { path, found: state.seed });
                }
                match &state.options {
                    Some(recorded) => {
                        if let Some((option, recorded, given)) = recorded.first_difference(options) {
                            return Err(CampaignError::OptionChanged { path, option, recorded, given });
                        }
                    }
                    None => state.options = Some(options.clone()),
                }
                state
            }
            Err(e) if e.kind() == io::ErrorKind::NotFound => {
                CampaignState { seed, done_below: 0, options: Some(options.clone()) }
            }
            Err(e) => return Err(CampaignError::Io { path, source: e }),
        };
        Ok((state, read_findings(dir)?))
    }

    /// Writes `campaign.json` atomically.
    pub fn save(&self, dir: &Path) -> Result<(), CampaignError> {
        let path = dir.join(STATE_FILE);
        let text = serde_json::to_string_pretty(self).unwrap_or_default() + "\n";
        write_atomically(&path, text.as_bytes()).map_err(io_error(&path))
    }
}

/// The signatures of the reports under `dir/findings`, and the unfinished ones. A report
/// whose signature names an oracle or class this version does not have is left out: no
/// program can fail with it again. Hidden entries (a report being written) are not reports.
fn read_findings(dir: &Path) -> Result<Findings, CampaignError> {
    /// The part of `report.json` read back, spelled as written (reports of earlier versions
    /// have no minimization status: their minimization ran to its end).
    #[derive(Deserialize)]
    struct Head {
        signature: SignatureText,
        #[serde(default = "finished")]
        minimization: Minimization,
        #[serde(default)]
        program: Option<u64>,
    }
    fn finished() -> Minimization {
        Minimization::Done
    }
    #[derive(Deserialize)]
    struct SignatureText {
        oracle: String,
        class: String,
    }
    let findings = dir.join("findings");
    let mut found = Findings::default();
    for entry in std::fs::read_dir(&findings).map_err(io_error(&findings))? {
        let entry = entry.map_err(io_error(&findings))?;
        if entry.file_name().to_string_lossy().starts_with('.') {
            continue;
        }
        let report = entry.path().join("report.json");
        let head = match std::fs::read_to_string(&report) {
            Ok(text) => serde_json::from_str::<Head>(&text).map_err(|e| e.to_string()),
            Err(e) if e.kind() == io::ErrorKind::InvalidData => Err(e.to_string()),
            Err(_) => continue,
        };
        let head = match head {
            Ok(head) => head,
            Err(reason) => {
                let moved_to = set_aside(dir, &entry.path()).map_err(io_error(&report))?;
                found.damaged.push(Damaged { report, reason, moved_to });
                continue;
            }
        };
        let Ok(signature) = Signature::parse(&head.signature.oracle, &head.signature.class) else { continue };
        if let (false, Some(program)) = (head.minimization.is_final(), head.program) {
            let minimization = head.minimization;
            found.unfinished.push(Unfinished {
                signature: signature.clone(),
                dir: entry.path(),
                program,
                minimization,
            });
        }
        found.known.insert(signature);
    }
    found.unfinished.sort_by_key(|u| u.program);
    Ok(found)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::oracle::{FailureClass, OracleName};

    /// The options of a campaign with the default options of the command line.
    fn options() -> FindingOptions {
        FindingOptions {
            pass: PassVariant::Real,
            oracles: OracleName::DEFAULT.iter().copied().chain([OracleName::NoPanic]).collect(),
            peer: None,
            mixed: true,
            timeout: Duration::from_secs(10),
            program_budget: Duration::from_secs(60),
            generators: Vec::new(),
        }
    }

    /// A campaign records the options that decide what it finds; a resume with any of them
    /// changed is refused, naming it with both values; with the same ones it resumes.
    #[test]
    fn a_resume_with_other_options_is_refused_naming_the_option() {
        let dir = tempfile::tempdir().expect("a temporary directory");
        let (state, _) = CampaignState::open(dir.path(), 7, &options()).expect("a new campaign");
        state.save(dir.path()).expect("saved");
        let changes: [(&str, FindingOptions); 7] = [
            ("--planted-bug", FindingOptions { pass: PassVariant::PlantedBug, ..options() }),
            ("--oracle", FindingOptions { oracles: [OracleName::NoPanic, OracleName::Pipeline].into(), ..options() }),
            ("--peer", FindingOptions { peer: Some(PeerMode::Pipeline), ..options() }),
            ("--valid-only", FindingOptions { mixed: false, ..options() }),
            ("--timeout", FindingOptions { timeout: Duration::from_secs(2), ..options() }),
            ("--program-budget", FindingOptions { program_budget: Duration::from_secs(5), ..options() }),
            ("--generator", FindingOptions { generators: vec![Generator::Tokens], ..options() }),
        ];
        for (name, changed) in changes {
            match CampaignState::open(dir.path(), 7, &changed) {
                Err(CampaignError::OptionChanged { option, recorded, given, .. }) => {
                    assert_eq!(option, name);
                    assert_ne!(recorded, given);
                }
                other => panic!("{name} changed on resume: {other:?}"),
            }
        }
        let (state, _) = CampaignState::open(dir.path(), 7, &options()).expect("the same options resume");
        assert_eq!(state.options, Some(options()));
    }

    /// A truncated `report.json` does not block the campaign: its finding is moved (never
    /// removed) to `damaged/`, said, and the other findings still load.
    #[test]
    fn a_damaged_report_is_set_aside_and_the_campaign_resumes() {
        let dir = tempfile::tempdir().expect("a temporary directory");
        let good = dir.path().join("findings/waits-tight--wait-refuted");
        std::fs::create_dir_all(&good).expect("create the finding");
        let report = r#"{"signature": {"oracle": "waits-tight", "class": "wait-refuted"}}"#;
        std::fs::write(good.join("report.json"), report).expect("write the report");
        for name in ["pipeline--refused", "pipeline--refused.1"] {
            // Set aside twice under the same name: the second does not replace the first.
            let bad = dir.path().join("findings/pipeline--refused");
            std::fs::create_dir_all(&bad).expect("create the finding");
            std::fs::write(bad.join("report.json"), r#"{"signature": {"oracle": "pipe"#).expect("write");
            std::fs::write(bad.join("REPORT.md"), name).expect("write");
            let (_, found) = CampaignState::open(dir.path(), 7, &options()).expect("the campaign resumes");
            assert_eq!(found.known.len(), 1, "the good report still counts");
            assert_eq!(found.damaged.len(), 1);
            let moved = &found.damaged[0].moved_to;
            assert_eq!(moved, &dir.path().join("damaged").join(name));
            assert_eq!(std::fs::read_to_string(moved.join("REPORT.md")).expect("kept"), name);
            assert!(found.damaged[0].reason.contains("EOF"), "{:?}", found.damaged[0]);
            assert!(!bad.exists());
        }
    }

    /// A campaign directory as an earlier version wrote it loads, with its signatures typed.
    #[test]
    fn reports_load_back_as_typed_signatures() {
        let dir = tempfile::tempdir().expect("a temporary directory");
        let finding = dir.path().join("findings/waits-tight--wait-refuted");
        std::fs::create_dir_all(&finding).expect("create the finding");
        let report = r#"{"signature": {"oracle": "waits-tight", "class": "wait-refuted"}, "oracle": "waits-tight"}"#;
        std::fs::write(finding.join("report.json"), report).expect("write the report");
        let gone = dir.path().join("findings/gone");
        std::fs::create_dir_all(&gone).expect("create the finding");
        std::fs::write(gone.join("report.json"), r#"{"signature": {"oracle": "gone", "class": "gone"}}"#)
            .expect("write the report");
        std::fs::write(dir.path().join(STATE_FILE), r#"{"seed": 7, "done_below": 64}"#).expect("write the state");
        let (state, found) = CampaignState::open(dir.path(), 7, &options()).expect("the campaign loads");
        let adopted = Some(options());
        assert_eq!(state, CampaignState { seed: 7, done_below: 64, options: adopted }, "it records its options");
        let wanted = Signature { oracle: OracleName::WaitsTight, class: FailureClass::WaitRefuted };
        assert_eq!(found.known.into_iter().collect::<Vec<_>>(), vec![wanted]);
        assert!(found.unfinished.is_empty(), "reports of earlier versions were minimized to their end");
    }

    const SLUG: &str = "waits-tight--wait-refuted";

    /// The files of version `v` of a report: each says which version it belongs to.
    fn version(v: &str) -> Vec<(String, String)> {
        let json = format!(
            r#"{{"signature": {{"oracle": "waits-tight", "class": "wait-refuted"}}, "minimization": "in-progress", "program": 3, "v": "{v}"}}"#
        );
        vec![
            ("report.json".into(), json),
            ("REPORT.md".into(), format!("# {v}\n")),
            ("minimized.py".into(), format!("# {v}\n")),
        ]
    }

    /// Publishes `files` as the report `dir`, killed (stopped with an error) after `kill_after`
    /// steps; whether it ran to its end.
    fn publish_killed(dir: &Path, files: &[(String, String)], kill_after: usize) -> bool {
        let mut steps = 0;
        let files = files.iter().map(|(n, t)| (n.as_str(), t.as_str()));
        crate::report::publish_stepwise(dir, files, &mut |step| {
            if steps == kill_after {
                return Err(io::Error::other(format!("killed after: {step}")));
            }
            steps += 1;
            Ok(())
        })
        .is_ok()
    }

    /// The version every file of the report `dir` holds (they must agree), if it exists.
    fn complete_version(dir: &Path) -> Option<String> {
        if !dir.exists() {
            return None;
        }
        let versions: BTreeSet<String> = ["REPORT.md", "minimized.py"]
            .iter()
            .map(|f| {
                std::fs::read_to_string(dir.join(f))
                    .expect("every file is there")
                    .trim_start_matches("# ")
                    .trim()
                    .to_string()
            })
            .collect();
        let json = std::fs::read_to_string(dir.join("report.json")).expect("report.json is there");
        assert_eq!(versions.len(), 1, "files of two versions: {versions:?}");
        let v = versions.into_iter().next().unwrap_or_default();
        assert!(json.contains(&format!(r#""v": "{v}""#)), "report.json of another version: {json}");
        Some(v)
    }

    /// A kill after any step of writing or rewriting a report, then a resume: the report is
    /// complete (one version, never a mix), a report once written is never lost, the campaign
    /// knows the signature exactly when its report is there, and nothing temporary is left.
    #[test]
    fn a_kill_at_any_step_of_publishing_a_report_loses_nothing() {
        for rewrite in [false, true] {
            for kill_after in 0.. {
                let dir = tempfile::tempdir().expect("a temporary directory");
                let report = dir.path().join("findings").join(SLUG);
                if rewrite {
                    assert!(publish_killed(&report, &version("v1"), usize::MAX));
                }
                let finished = publish_killed(&report, &version("v2"), kill_after);
                let (_, found) = CampaignState::open(dir.path(), 7, &options()).expect("the campaign resumes");
                let v = complete_version(&report);
                match (rewrite, finished) {
                    (_, true) => assert_eq!(v.as_deref(), Some("v2")),
                    (true, false) => assert!(v.is_some(), "killed after {kill_after} steps: the report is lost"),
                    (false, false) => {}
                }
                assert_eq!(found.known.len(), usize::from(v.is_some()), "known exactly when reported");
                assert_eq!(found.unfinished.len(), usize::from(v.is_some()), "its minimization is to finish");
                let left: Vec<String> = std::fs::read_dir(dir.path().join("findings"))
                    .expect("findings")
                    .map(|e| e.expect("entry").file_name().to_string_lossy().into_owned())
                    .filter(|n| n.starts_with('.'))
                    .collect();
                assert!(left.is_empty(), "killed after {kill_after} steps, left: {left:?}");
                if finished {
                    break;
                }
            }
        }
    }
}
