//! The lock of a campaign directory: one campaign at a time runs in a directory.
//!
//! The lock is an OS advisory lock (`flock`, through `fs4`) on `DIR/campaign.lock`, held for as
//! long as the [`CampaignLock`] lives. The kernel releases it when its process ends, however it
//! ends (SIGKILL included), so a lock whose owner is gone is free by construction, never a guess
//! from a process id that may have been reused.
//!
//! Invariants: the file's content names the owner ([`Owner`]: process, host, start time), for
//! the refusal of a second campaign; it is written once the lock is held and emptied when the
//! campaign ends, so an owner found in a free lock is the trace of a campaign that was killed
//! (a stale lock: taken over, and the caller told). The file is never removed: removing it
//! would let a second campaign lock a new file while the first still holds the old one.

use std::fs::File;
use std::io::{self, Read, Seek, Write};
use std::path::{Path, PathBuf};
use std::time::SystemTime;

use fs4::{FileExt, TryLockError};
use serde::{Deserialize, Serialize};

use super::state::CampaignError;

const LOCK_FILE: &str = "campaign.lock";

/// Which campaign holds (or held) a lock.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Owner {
    pub pid: u32,
    pub host: String,
    /// When it took the lock (RFC 3339, UTC).
    pub started: String,
}

impl Owner {
    fn this_process() -> Owner {
        Owner {
            pid: std::process::id(),
            host: gethostname::gethostname().to_string_lossy().into_owned(),
            started: humantime::format_rfc3339_seconds(SystemTime::now()).to_string(),
        }
    }
}

impl std::fmt::Display for Owner {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "process {} on {}, started {}", self.pid, self.host, self.started)
    }
}

/// The held lock of a campaign directory; released (and its owner emptied) when dropped.
#[derive(Debug)]
pub struct CampaignLock {
    file: File,
}

impl CampaignLock {
    /// Takes the lock of the campaign directory `dir` (created if need be), or says which
    /// campaign holds it. With the lock comes the owner of a stale lock taken over, if any.
    pub fn take(dir: &Path) -> Result<(CampaignLock, Option<Owner>), CampaignError> {
        let path = dir.join(LOCK_FILE);
        let io_error = |source| CampaignError::Io { path: path.clone(), source };
        std::fs::create_dir_all(dir).map_err(|source| CampaignError::Io { path: dir.to_path_buf(), source })?;
        let mut file =
            File::options().read(true).write(true).create(true).truncate(false).open(&path).map_err(io_error)?;
        match FileExt::try_lock(&file) {
            Ok(()) => {}
            Err(TryLockError::WouldBlock) => {
                return Err(CampaignError::Locked {
                    path: dir.to_path_buf(),
                    owner: read_owner(&mut file).ok().flatten(),
                })
            }
            Err(TryLockError::Error(source)) => return Err(io_error(source)),
        }
        let stale = read_owner(&mut file).map_err(io_error)?;
        let lock = CampaignLock { file };
        lock.write_owner(Some(&Owner::this_process())).map_err(io_error)?;
        Ok((lock, stale))
    }

    /// Empties the owner: the campaign ended (the lock itself goes with the file handle).
    pub fn release(&self) -> io::Result<()> {
        self.write_owner(None)
    }

    fn write_owner(&self, owner: Option<&Owner>) -> io::Result<()> {
        let mut file = &self.file;
        file.set_len(0)?;
        file.rewind()?;
        if let Some(owner) = owner {
            file.write_all(serde_json::to_string(owner).map_err(io::Error::other)?.as_bytes())?;
            file.write_all(b"\n")?;
        }
        file.sync_all()
    }

    /// The lock file of the campaign directory `dir`.
    pub fn path(dir: &Path) -> PathBuf {
        dir.join(LOCK_FILE)
    }
}

impl Drop for CampaignLock {
    fn drop(&mut self) {
        // Best effort: an owner left behind only makes the next campaign say it took over.
        let _ = self.release();
    }
}

/// The owner written in a lock file: `None` when it is empty; an unreadable owner (a write a
/// kill cut short) is an unknown one.
fn read_owner(file: &mut File) -> io::Result<Option<Owner>> {
    let mut text = String::new();
    file.rewind()?;
    file.read_to_string(&mut text)?;
    if text.trim().is_empty() {
        return Ok(None);
    }
    let unknown = || Owner { pid: 0, host: "an unknown host".into(), started: "at an unknown time".into() };
    Ok(Some(serde_json::from_str(&text).unwrap_or_else(|_| unknown())))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_held_lock_is_refused_naming_its_owner_and_freed_when_dropped() {
        let dir = tempfile::tempdir().expect("a temporary directory");
        let (held, stale) = CampaignLock::take(dir.path()).expect("the first campaign locks");
        assert_eq!(stale, None);
        match CampaignLock::take(dir.path()) {
            Err(CampaignError::Locked { owner: Some(owner), .. }) => assert_eq!(owner.pid, std::process::id()),
            other => panic!("a second campaign in the same directory: {other:?}"),
        }
        drop(held);
        let (_again, stale) = CampaignLock::take(dir.path()).expect("free once the first ended");
        assert_eq!(stale, None, "a campaign that ended leaves no owner");
    }

    #[test]
    fn the_owner_of_a_killed_campaign_is_taken_over() {
        let dir = tempfile::tempdir().expect("a temporary directory");
        let killed = Owner { pid: 4_000_000, host: "elsewhere".into(), started: "2020-01-01T00:00:00Z".into() };
        let text = serde_json::to_string(&killed).expect("serializes");
        std::fs::write(CampaignLock::path(dir.path()), text).expect("writes the lock");
        let (_lock, stale) = CampaignLock::take(dir.path()).expect("a stale lock is free");
        assert_eq!(stale, Some(killed));
        let written = std::fs::read_to_string(CampaignLock::path(dir.path())).expect("the lock file");
        assert!(written.contains(&format!("\"pid\":{}", std::process::id())), "{written}");
    }
}
