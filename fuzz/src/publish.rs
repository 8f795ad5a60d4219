//! Publishing a directory of files: the one way every command writes a set of files into a
//! directory the user names (a report, campaign findings, SMT-LIB dumps, generated programs,
//! output buffers).
//!
//! Invariants:
//! - Nothing this module did not write is ever removed, moved or replaced. A directory is
//!   written into, never replaced: it is created when missing; an existing one is accepted
//!   only when every entry in it is a name of its [`Layout`] (or a leftover of this module),
//!   and refused otherwise, naming what is there. A path that is not a directory is refused.
//! - Every file name is a plain name (not empty, no `/`, no leading `.`): the hidden names in
//!   the directory belong to this module's journal.
//! - Crash consistency: the new files are first written and synced beside their places as
//!   `.NAME.staged`, then a marker `.publishing` is written, the staged files are renamed over
//!   their places, and the marker removed ([`PublishStep`] names each step). [`recover`]
//!   repairs what a kill left: with the marker, the renames are finished; without it, the
//!   staged files are removed. So a directory holds one publication's files or the one
//!   before, never a mix.

use std::fs::File;
use std::io::{self, Write as _};
use std::path::{Path, PathBuf};

/// The names one kind of directory holds: what may already be there when it is written into.
#[derive(Clone, Copy, Debug)]
pub struct Layout {
    /// What the directory is, for messages (`a report`, `SMT-LIB dumps`).
    pub what: &'static str,
    /// Whether a (plain) file name is one this kind of directory holds.
    pub owns: fn(&str) -> bool,
}

/// Why a directory was not published.
#[derive(Debug, thiserror::Error)]
pub enum PublishError {
    #[error("{dir} is not a directory; name a directory for {what} (it is created when missing)")]
    NotADirectory { dir: PathBuf, what: &'static str },
    #[error(
        "{dir} holds files that are not {what} ({}); name a new or empty directory, nothing in it is replaced",
        .names.join(", ")
    )]
    Foreign { dir: PathBuf, what: &'static str, names: Vec<String> },
    #[error("`{name}` is not a plain file name for {what} in {dir}")]
    BadName { dir: PathBuf, what: &'static str, name: String },
    /// The I/O error is part of the message, not a source, so a chain of errors does not
    /// repeat it.
    #[error("{path}: {error}")]
    Io { path: PathBuf, error: io::Error },
}

impl PublishError {
    /// Whether the directory was refused (rather than an I/O failure).
    pub fn is_refusal(&self) -> bool {
        !matches!(self, PublishError::Io { .. })
    }
}

fn io_at(path: &Path) -> impl FnOnce(io::Error) -> PublishError + '_ {
    move |error| PublishError::Io { path: path.to_path_buf(), error }
}

/// The steps of a publication, in order; a kill can fall between any two.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PublishStep {
    /// The directory exists (created, or accepted as it was).
    DirectoryReady,
    /// One more file is written and synced as `.NAME.staged`.
    FileStaged,
    /// The marker is written and the directory synced: the publication will be finished.
    Committed,
    /// One more staged file is renamed over its place.
    FileMovedIn,
    /// The marker is removed: the publication is over.
    Done,
}

impl std::fmt::Display for PublishStep {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            PublishStep::DirectoryReady => "directory ready",
            PublishStep::FileStaged => "a file staged",
            PublishStep::Committed => "publication committed",
            PublishStep::FileMovedIn => "a file moved in",
            PublishStep::Done => "publication done",
        })
    }
}

/// The marker of a committed publication.
const MARKER: &str = ".publishing";
const STAGED: &str = ".staged";

/// Whether `name` is a plain file name: what [`publish`] writes.
pub fn is_plain_name(name: &str) -> bool {
    !name.is_empty() && !name.starts_with('.') && !name.contains(['/', '\\', '\0'])
}

/// The name a staged file has while its publication is under way.
fn staged_name(name: &str) -> String {
    format!(".{name}{STAGED}")
}

/// Whether a hidden entry is this module's: the marker or a staged file.
fn is_journal(name: &str) -> bool {
    name == MARKER || name.strip_prefix('.').and_then(|n| n.strip_suffix(STAGED)).is_some_and(is_plain_name)
}

/// Checks that `dir` can be published into as `layout`, without writing anything: it is
/// missing, or a directory holding only `layout`'s names and this module's leftovers.
pub fn check(dir: &Path, layout: Layout) -> Result<(), PublishError> {
    match std::fs::metadata(dir) {
        Ok(meta) if meta.is_dir() => {}
        Ok(_) => return Err(PublishError::NotADirectory { dir: dir.to_path_buf(), what: layout.what }),
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(()),
        Err(e) => return Err(io_at(dir)(e)),
    }
    let mut foreign = Vec::new();
    for entry in std::fs::read_dir(dir).map_err(io_at(dir))? {
        let entry = entry.map_err(io_at(dir))?;
        let name = entry.file_name().to_string_lossy().into_owned();
        let ours = if is_plain_name(&name) { (layout.owns)(&name) } else { is_journal(&name) };
        if !ours || !entry.file_type().map_err(io_at(dir))?.is_file() {
            foreign.push(name);
        }
    }
    if foreign.is_empty() {
        return Ok(());
    }
    foreign.sort();
    const SHOWN: usize = 3;
    if foreign.len() > SHOWN {
        let more = foreign.len() - SHOWN;
        foreign.truncate(SHOWN);
        foreign.push(format!("and {more} more"));
    }
    Err(PublishError::Foreign { dir: dir.to_path_buf(), what: layout.what, names: foreign })
}

/// Writes `files` (plain names and their contents) into the directory `dir` as `layout` (see
/// the module's invariants).
pub fn publish<'a>(
    dir: &Path,
    layout: Layout,
    files: impl IntoIterator<Item = (&'a str, &'a [u8])>,
) -> Result<(), PublishError> {
    publish_stepwise(dir, layout, files, &mut |_| Ok(()))
}

/// [`publish`], calling `after` after each step; an error from it stops the publication
/// there, as a kill would (the fault-injection tests use it).
pub fn publish_stepwise<'a>(
    dir: &Path,
    layout: Layout,
    files: impl IntoIterator<Item = (&'a str, &'a [u8])>,
    after: &mut dyn FnMut(PublishStep) -> io::Result<()>,
) -> Result<(), PublishError> {
    let files: Vec<(&str, &[u8])> = files.into_iter().collect();
    if let Some((name, _)) = files.iter().find(|(name, _)| !is_plain_name(name)) {
        return Err(PublishError::BadName { dir: dir.to_path_buf(), what: layout.what, name: name.to_string() });
    }
    check(dir, layout)?;
    std::fs::create_dir_all(dir).map_err(io_at(dir))?;
    recover(dir).map_err(io_at(dir))?;
    let step = |after: &mut dyn FnMut(PublishStep) -> io::Result<()>, s| after(s).map_err(io_at(dir));
    step(after, PublishStep::DirectoryReady)?;
    for (name, bytes) in &files {
        let staged = dir.join(staged_name(name));
        write_synced(&staged, bytes).map_err(io_at(&staged))?;
        step(after, PublishStep::FileStaged)?;
    }
    let marker = dir.join(MARKER);
    write_synced(&marker, b"").map_err(io_at(&marker))?;
    sync_dir(dir).map_err(io_at(dir))?;
    step(after, PublishStep::Committed)?;
    for (name, _) in &files {
        std::fs::rename(dir.join(staged_name(name)), dir.join(name)).map_err(io_at(&dir.join(name)))?;
        step(after, PublishStep::FileMovedIn)?;
    }
    sync_dir(dir).map_err(io_at(dir))?;
    std::fs::remove_file(&marker).map_err(io_at(&marker))?;
    step(after, PublishStep::Done)
}

/// Repairs what a kill left of a publication into `dir`: a committed one is finished, any
/// other staged file removed. Returns whether anything was repaired.
pub fn recover(dir: &Path) -> io::Result<bool> {
    let committed = dir.join(MARKER).exists();
    let mut repaired = false;
    for entry in std::fs::read_dir(dir)? {
        let name = entry?.file_name().to_string_lossy().into_owned();
        let Some(place) = name.strip_prefix('.').and_then(|n| n.strip_suffix(STAGED)).filter(|n| is_plain_name(n))
        else {
            continue;
        };
        if committed {
            std::fs::rename(dir.join(&name), dir.join(place))?;
        } else {
            std::fs::remove_file(dir.join(&name))?;
        }
        repaired = true;
    }
    if committed {
        sync_dir(dir)?;
        std::fs::remove_file(dir.join(MARKER))?;
        repaired = true;
    }
    if repaired {
        sync_dir(dir)?;
    }
    Ok(repaired)
}

/// Appends `line` and a newline to the log at `path` (created when missing) in one write,
/// synced: a kill leaves the log with the line or without it, or at worst with the line cut
/// short at the end, which readers of a log skip. A log is the one kind of file in a
/// directory that grows rather than being replaced.
pub fn append_line(path: &Path, line: &str) -> io::Result<()> {
    let mut file = std::fs::OpenOptions::new().create(true).append(true).open(path)?;
    let mut bytes = Vec::with_capacity(line.len() + 1);
    bytes.extend_from_slice(line.as_bytes());
    bytes.push(b'\n');
    file.write_all(&bytes)?;
    file.sync_all()
}

/// Writes `bytes` to a new file at `path` and syncs it to disk.
pub(crate) fn write_synced(path: &Path, bytes: &[u8]) -> io::Result<()> {
    let mut file = File::create(path)?;
    file.write_all(bytes)?;
    file.sync_all()
}

/// Syncs a directory's entries (renames into it) to disk; where directories cannot be opened
/// (not Unix), there is nothing to sync.
pub(crate) fn sync_dir(dir: &Path) -> io::Result<()> {
    if cfg!(unix) {
        File::open(dir)?.sync_all()
    } else {
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const LAYOUT: Layout = Layout { what: "a test report", owns: |n| n.ends_with(".txt") };

    fn names(dir: &Path) -> Vec<String> {
        let mut names: Vec<String> = std::fs::read_dir(dir)
            .expect("list")
            .map(|e| e.expect("entry").file_name().to_string_lossy().into_owned())
            .collect();
        names.sort();
        names
    }

    #[test]
    fn a_directory_with_other_files_or_a_file_is_refused_and_left_alone() {
        let scratch = tempfile::tempdir().expect("scratch");
        let dir = scratch.path().join("out");
        std::fs::create_dir(&dir).expect("mkdir");
        std::fs::write(dir.join("mine.py"), "mine").expect("write");
        let err = publish(&dir, LAYOUT, [("a.txt", &b"a"[..])]).expect_err("refused");
        assert!(matches!(err, PublishError::Foreign { .. }) && err.to_string().contains("mine.py"), "{err}");
        assert_eq!(names(&dir), ["mine.py"]);
        let file = scratch.path().join("file");
        std::fs::write(&file, "mine").expect("write");
        assert!(matches!(publish(&file, LAYOUT, []), Err(PublishError::NotADirectory { .. })));
        assert_eq!(std::fs::read_to_string(&file).expect("kept"), "mine");
        assert!(matches!(publish(&dir, LAYOUT, [("..txt", &b""[..])]), Err(PublishError::BadName { .. })));
    }

    #[test]
    fn a_kill_at_any_step_leaves_one_version_after_recovery() {
        for kill_after in 0.. {
            let scratch = tempfile::tempdir().expect("scratch");
            let dir = scratch.path().join("out");
            publish(&dir, LAYOUT, [("a.txt", &b"v1"[..]), ("b.txt", &b"v1"[..])]).expect("v1");
            let mut steps = 0;
            let finished = publish_stepwise(&dir, LAYOUT, [("a.txt", &b"v2"[..]), ("b.txt", &b"v2"[..])], &mut |s| {
                if steps == kill_after {
                    return Err(io::Error::other(format!("killed after {s}")));
                }
                steps += 1;
                Ok(())
            })
            .is_ok();
            recover(&dir).expect("recovers");
            assert_eq!(names(&dir), ["a.txt", "b.txt"], "killed after {kill_after} steps");
            let a = std::fs::read_to_string(dir.join("a.txt")).expect("a");
            assert_eq!(a, std::fs::read_to_string(dir.join("b.txt")).expect("b"), "killed after {kill_after}");
            if finished {
                assert_eq!(a, "v2");
                break;
            }
        }
    }
}
