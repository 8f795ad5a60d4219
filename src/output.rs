//! Where the CLI's results go: files named on the command line, and standard output.
//!
//! Invariants of [`write_file`]: a regular file, or a path where nothing is yet, is replaced
//! atomically (a temporary file in the same directory, renamed over it) and keeps the
//! permission mode it had; anything else (`/dev/null`, a FIFO, a character device) is opened
//! and written through, never replaced; a symbolic link is followed to what it points to and
//! stays a link; a failed write leaves no temporary file behind.
//!
//! [`refuse_inputs`] is the one check that an output is not an input. Directories of files
//! (reports, dumps, output buffers) are published through `tirproof_fuzz::publish`.
//!
//! Standard output is written through [`print`] (the `out!` and `outln!` macros), which
//! returns the write error instead of panicking the way `println!` does: a reader that went
//! away ([`StdoutError::is_closed_pipe`]) ends the command quietly, anything else (a full
//! disk) is an error of the tool.

use std::fmt;
use std::fs::{self, OpenOptions};
use std::io::{self, Write};
use std::path::{Path, PathBuf};

/// How many symbolic links in a row a path may go through (the kernel's own limit, `ELOOP`).
const MAX_LINKS: usize = 40;

/// Why an output file could not be written.
#[derive(Debug, thiserror::Error)]
pub enum WriteError {
    /// The I/O error is part of the message, not a source, so a chain of errors does not
    /// repeat it.
    #[error("cannot write {path}: {error}")]
    Io { path: PathBuf, error: io::Error },
    #[error("cannot write {path}: it is a directory")]
    Directory { path: PathBuf },
    #[error("cannot write {path}: more than {MAX_LINKS} symbolic links in a row")]
    TooManyLinks { path: PathBuf },
    #[error("cannot write {path}: it is an input of the command ({input}); name another output")]
    IsAnInput { path: PathBuf, input: PathBuf },
}

/// Refuses an output that is one of the command's inputs (the same file, through any link),
/// before anything is written: writing it would destroy the input.
pub fn refuse_inputs(output: &Path, inputs: &[&Path]) -> Result<(), WriteError> {
    let Ok(written) = fs::canonicalize(output) else { return Ok(()) };
    match inputs.iter().find(|input| fs::canonicalize(input).is_ok_and(|read| read == written)) {
        Some(input) => Err(WriteError::IsAnInput { path: output.to_path_buf(), input: input.to_path_buf() }),
        None => Ok(()),
    }
}

/// Writes `bytes` to `path` (see the module's invariants).
pub fn write_file(path: &Path, bytes: &[u8]) -> Result<(), WriteError> {
    let target = resolve_links(path)?;
    let io_error = |error| WriteError::Io { path: path.to_path_buf(), error };
    match fs::metadata(&target) {
        Ok(meta) if meta.is_dir() => Err(WriteError::Directory { path: path.to_path_buf() }),
        Ok(meta) if meta.is_file() => replace(&target, bytes, Some(meta.permissions())).map_err(io_error),
        Ok(_) => write_through(&target, bytes).map_err(io_error),
        Err(e) if e.kind() == io::ErrorKind::NotFound => replace(&target, bytes, None).map_err(io_error),
        Err(e) => Err(io_error(e)),
    }
}

/// The path a chain of symbolic links ends at (the path itself when it is not a link; the end
/// of the chain need not exist).
fn resolve_links(path: &Path) -> Result<PathBuf, WriteError> {
    let mut current = path.to_path_buf();
    for _ in 0..MAX_LINKS {
        match fs::symlink_metadata(&current) {
            Ok(meta) if meta.file_type().is_symlink() => {
                let target =
                    fs::read_link(&current).map_err(|error| WriteError::Io { path: current.clone(), error })?;
                current = match current.parent() {
                    Some(dir) if target.is_relative() => dir.join(target),
                    _ => target,
                };
            }
            _ => return Ok(current),
        }
    }
    Err(WriteError::TooManyLinks { path: path.to_path_buf() })
}

/// Writes a temporary file beside `path` and renames it over `path`. The temporary file
/// removes itself when anything fails before the rename.
fn replace(path: &Path, bytes: &[u8], permissions: Option<fs::Permissions>) -> io::Result<()> {
    let dir = path.parent().filter(|p| !p.as_os_str().is_empty()).unwrap_or(Path::new("."));
    let name = path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    let mut tmp =
        tempfile::Builder::new().prefix(&format!(".{name}.")).suffix(".tmp").tempfile_in(dir).map_err(without_path)?;
    tmp.write_all(bytes)?;
    if let Some(permissions) = permissions {
        tmp.as_file().set_permissions(permissions)?;
    }
    tmp.as_file().sync_all()?;
    tmp.persist(path).map_err(|e| e.error)?;
    Ok(())
}

/// The error without the temporary file's name `tempfile` adds to it: the user named the
/// output, and the temporary file never outlives the failure.
fn without_path(error: io::Error) -> io::Error {
    // `tempfile` wraps the system's error in one whose message ends `at path "..."`.
    match error.get_ref().map(ToString::to_string) {
        Some(message) => match message.split_once(" at path ") {
            Some((cause, _)) => io::Error::new(error.kind(), cause.to_owned()),
            None => error,
        },
        None => error,
    }
}

/// Opens what is at `path` (a device, a FIFO) for writing and writes `bytes` into it.
fn write_through(path: &Path, bytes: &[u8]) -> io::Result<()> {
    let mut file = OpenOptions::new().write(true).truncate(true).open(path)?;
    file.write_all(bytes)?;
    file.flush()
}

/// A failed write to standard output.
#[derive(Debug, thiserror::Error)]
#[error("cannot write to standard output")]
pub struct StdoutError(#[source] pub io::Error);

impl StdoutError {
    /// The reader went away (`tirproof ... | head -1`): the conventional response is to stop
    /// writing and exit quietly.
    pub fn is_closed_pipe(&self) -> bool {
        self.0.kind() == io::ErrorKind::BrokenPipe
    }
}

/// Writes `args` to standard output, returning the error rather than panicking.
pub fn print(args: fmt::Arguments) -> Result<(), StdoutError> {
    io::stdout().lock().write_fmt(args).map_err(StdoutError)
}

/// Flushes standard output (what is still buffered when a command ends).
pub fn flush_stdout() -> Result<(), StdoutError> {
    io::stdout().lock().flush().map_err(StdoutError)
}

/// `print!` that returns a [`StdoutError`] instead of panicking.
#[macro_export]
macro_rules! out {
    ($($arg:tt)*) => { $crate::output::print(format_args!($($arg)*)) };
}

/// `println!` that returns a [`StdoutError`] instead of panicking.
#[macro_export]
macro_rules! outln {
    () => { $crate::output::print(format_args!("\n")) };
    ($($arg:tt)*) => { $crate::output::print(format_args!("{}\n", format_args!($($arg)*))) };
}

#[cfg(test)]
mod tests {
    use super::*;

    #[cfg(unix)]
    use std::os::unix::fs::PermissionsExt;

    fn leftovers(dir: &Path) -> Vec<String> {
        let mut names: Vec<String> = fs::read_dir(dir)
            .into_iter()
            .flatten()
            .flatten()
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .filter(|n| n.starts_with('.'))
            .collect();
        names.sort();
        names
    }

    #[test]
    fn a_new_file_and_a_regular_file_are_replaced_and_keep_their_mode() -> Result<(), Box<dyn std::error::Error>> {
        let dir = tempfile::tempdir()?;
        let path = dir.path().join("out.py");
        write_file(&path, b"one")?;
        assert_eq!(fs::read(&path)?, b"one");
        #[cfg(unix)]
        fs::set_permissions(&path, fs::Permissions::from_mode(0o600))?;
        write_file(&path, b"two")?;
        assert_eq!(fs::read(&path)?, b"two");
        #[cfg(unix)]
        assert_eq!(fs::metadata(&path)?.permissions().mode() & 0o777, 0o600);
        assert!(leftovers(dir.path()).is_empty());
        Ok(())
    }

    #[cfg(unix)]
    #[test]
    fn a_symlink_is_followed_and_stays_a_link() -> Result<(), Box<dyn std::error::Error>> {
        let dir = tempfile::tempdir()?;
        let real = dir.path().join("real.py");
        fs::write(&real, "old")?;
        let link = dir.path().join("link.py");
        std::os::unix::fs::symlink("real.py", &link)?;
        write_file(&link, b"new")?;
        assert!(fs::symlink_metadata(&link)?.file_type().is_symlink());
        assert_eq!(fs::read(&real)?, b"new");
        // A dangling link creates what it points to.
        let dangling = dir.path().join("dangling.py");
        std::os::unix::fs::symlink("made.py", &dangling)?;
        write_file(&dangling, b"made")?;
        assert_eq!(fs::read(dir.path().join("made.py"))?, b"made");
        assert!(fs::symlink_metadata(&dangling)?.file_type().is_symlink());
        Ok(())
    }

    #[cfg(unix)]
    #[test]
    fn a_device_is_written_through_and_a_directory_refused() -> Result<(), Box<dyn std::error::Error>> {
        write_file(Path::new("/dev/null"), b"nothing")?;
        assert!(!fs::metadata("/dev/null")?.is_file());
        let dir = tempfile::tempdir()?;
        assert!(matches!(write_file(dir.path(), b"x"), Err(WriteError::Directory { .. })));
        Ok(())
    }

    #[cfg(unix)]
    #[test]
    fn a_failed_write_leaves_no_temporary_file() -> Result<(), Box<dyn std::error::Error>> {
        let dir = tempfile::tempdir()?;
        let path = dir.path().join("out.py");
        fs::create_dir(&path)?;
        // The rename over a directory fails after the temporary file was written.
        assert!(replace(&path, b"x", None).is_err());
        assert!(leftovers(dir.path()).is_empty(), "{:?}", leftovers(dir.path()));
        Ok(())
    }
}
