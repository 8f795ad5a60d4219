//! A campaign's persistent state: `campaign.json` (seed and done prefix) and the signatures
//! already reported under `findings/`. Written atomically; read back to resume.

use std::collections::BTreeSet;
use std::io;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::oracle::Signature;
use crate::report::write_atomically;

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

impl CampaignState {
    /// Opens (or starts) the campaign in `dir` and returns the signatures already reported.
    pub fn open(dir: &Path, seed: u64) -> Result<(CampaignState, BTreeSet<Signature>), CampaignError> {
        std::fs::create_dir_all(dir.join("findings")).map_err(io_error(dir))?;
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
        Ok((state, known_signatures(dir)?))
    }

    /// Writes `campaign.json` atomically.
    pub fn save(&self, dir: &Path) -> Result<(), CampaignError> {
        let path = dir.join(STATE_FILE);
        let text = serde_json::to_string_pretty(self).unwrap_or_default() + "\n";
        write_atomically(&path, text.as_bytes()).map_err(io_error(&path))
    }
}

/// The signatures of the reports under `dir/findings`. A report whose signature names an
/// oracle or class this version does not have is left out: no program can fail with it again.
fn known_signatures(dir: &Path) -> Result<BTreeSet<Signature>, CampaignError> {
    /// The part of `report.json` read back, spelled as written.
    #[derive(Deserialize)]
    struct Head {
        signature: SignatureText,
    }
    #[derive(Deserialize)]
    struct SignatureText {
        oracle: String,
        class: String,
    }
    let findings = dir.join("findings");
    let mut known = BTreeSet::new();
    for entry in std::fs::read_dir(&findings).map_err(io_error(&findings))? {
        let entry = entry.map_err(io_error(&findings))?;
        let report = entry.path().join("report.json");
        let Ok(text) = std::fs::read_to_string(&report) else { continue };
        let head: Head = serde_json::from_str(&text)
            .map_err(|e| CampaignError::BadState { path: report.clone(), message: e.to_string() })?;
        if let Ok(signature) = Signature::parse(&head.signature.oracle, &head.signature.class) {
            known.insert(signature);
        }
    }
    Ok(known)
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
        let (state, known) = CampaignState::open(dir.path(), 7).expect("the campaign loads");
        assert_eq!(state, CampaignState { seed: 7, done_below: 64 });
        let wanted = Signature { oracle: OracleName::WaitsTight, class: FailureClass::WaitRefuted };
        assert_eq!(known.into_iter().collect::<Vec<_>>(), vec![wanted]);
    }
}
