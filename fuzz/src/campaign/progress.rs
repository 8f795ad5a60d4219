//! A campaign's progress log, `progress.jsonl` in its directory: one [`ProgressPoint`] a line,
//! appended at every progress point of every run of the campaign (a resumed run appends to the
//! log of the runs before it), so that the campaign's page can draw its rate over time.
//!
//! Invariants: a line is appended whole and synced ([`crate::publish::append_line`]); a reader
//! skips a line that does not parse (the last one, cut by a kill), so a damaged log loses
//! at most that point; a directory of an earlier version has no log, and reads as none.

use std::io;
use std::path::Path;
use std::time::{SystemTime, UNIX_EPOCH};

use serde::{Deserialize, Serialize};

use super::Summary;
use crate::publish::append_line;

/// The name of the log in a campaign directory.
pub const PROGRESS_LOG: &str = "progress.jsonl";

/// Where a campaign was at one moment of one run.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct ProgressPoint {
    /// Seconds since the Unix epoch, when it was recorded.
    pub unix_seconds: f64,
    /// The summary of the run so far (its `seconds` since the run began).
    pub summary: Summary,
}

impl ProgressPoint {
    /// The point of `summary`, now.
    pub fn now(summary: Summary) -> ProgressPoint {
        let unix_seconds = SystemTime::now().duration_since(UNIX_EPOCH).map_or(0.0, |d| d.as_secs_f64());
        ProgressPoint { unix_seconds, summary }
    }
}

/// Appends `point` to the log of the campaign in `dir`.
pub fn record(dir: &Path, point: &ProgressPoint) -> io::Result<()> {
    let line = serde_json::to_string(point).map_err(io::Error::other)?;
    append_line(&dir.join(PROGRESS_LOG), &line)
}

/// The points of the campaign in `dir`, oldest first; `None` when it has no log.
pub fn read(dir: &Path) -> io::Result<Option<Vec<ProgressPoint>>> {
    let text = match std::fs::read_to_string(dir.join(PROGRESS_LOG)) {
        Ok(text) => text,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(e),
    };
    Ok(Some(text.lines().filter_map(|line| serde_json::from_str(line).ok()).collect()))
}
