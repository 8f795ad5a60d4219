//! A campaign's persistent state: `campaign.json` (seed and done prefix) and the signatures
//! already reported under `findings/`. Written atomically; read back to resume.
//!
//! Opening a campaign first repairs what a kill left of a report being replaced (see
//! [`crate::report::recover_findings`]), so every report it reads is complete; the reports
//! whose minimization did not finish are returned, for the campaign to minimize again.

use std::collections::BTreeSet;
use std::io;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::oracle::Signature;
use crate::reduce::Minimization;
use crate::report::{recover_findings, write_atomically};

const STATE_FILE: &str = "campaign.json";

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct CampaignState {
    pub seed: u64,
    /// Every program below this index has been run (and its finding, if any, reported).
    pub done_below: u64,
}

#[derive(Debug, thiserror::Error)]
pub enum CampaignError {
    #[error("{path}: {source}")]
    Io { path: PathBuf, source: io::Error },
    #[error("{path}: not a campaign state file: {message}")]
    BadState { path: PathBuf, message: String },
    #[error("{path} belongs to a campaign with seed {found}; resume it with --seed {found} or use another directory")]
    SeedMismatch { path: PathBuf, found: u64 },
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
/// and those of them still to minimize.
#[derive(Clone, Debug, Default)]
pub struct Findings {
    pub known: BTreeSet<Signature>,
    pub unfinished: Vec<Unfinished>,
}

impl CampaignState {
    /// Opens (or starts) the campaign in `dir`, repairing its reports, and returns what they
    /// hold.
    pub fn open(dir: &Path, seed: u64) -> Result<(CampaignState, Findings), CampaignError> {
        let findings = dir.join("findings");
        std::fs::create_dir_all(&findings).map_err(io_error(dir))?;
        recover_findings(&findings).map_err(io_error(&findings))?;
        let path = dir.join(STATE_FILE);
        let state = match std::fs::read_to_string(&path) {
            Ok(text) => {
                let state: CampaignState = serde_json::from_str(&text)
                    .map_err(|e| CampaignError::BadState { path: path.clone(), message: e.to_string() })?;
                if state.seed != seed {
                    return Err(CampaignError::SeedMismatch { path, found: state.seed });
                }
                state
            }
            Err(e) if e.kind() == io::ErrorKind::NotFound => CampaignState { seed, done_below: 0 },
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
        let Ok(text) = std::fs::read_to_string(&report) else { continue };
        let head: Head = serde_json::from_str(&text)
            .map_err(|e| CampaignError::BadState { path: report.clone(), message: e.to_string() })?;
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
        let (state, found) = CampaignState::open(dir.path(), 7).expect("the campaign loads");
        assert_eq!(state, CampaignState { seed: 7, done_below: 64 });
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
                let (_, found) = CampaignState::open(dir.path(), 7).expect("the campaign resumes");
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
