//! Loading TVMScript files: read, parse, check, and render what went wrong.
//!
//! A `Source` keeps the file name and text together so every diagnostic renders with
//! `file:line:col`, the source line and a caret. I/O failures are errors of the tool
//! (`std::io::Error`), while parse and check failures are diagnostics about the input; so is
//! text that is not UTF-8 (located at its first invalid byte, reported before parsing).

use std::path::{Path, PathBuf};

use tirproof_ir::check::check_module;
use tirproof_ir::{Diagnostic, Diagnostics, IRModule};
use tirproof_reader::{decode_source, parse_module};

/// The path that names standard input.
pub const STDIN_PATH: &str = "-";

/// A file's name and text.
#[derive(Clone, Debug)]
pub struct Source {
    pub name: String,
    pub text: String,
    /// Where the file was not UTF-8 (then `text` is its lossy decoding): the input's fault,
    /// reported as the module's diagnostic, not an I/O error.
    pub decode_error: Option<Diagnostic>,
}

impl Source {
    /// A source from text already in memory.
    pub fn new(name: impl Into<String>, text: impl Into<String>) -> Source {
        Source { name: name.into(), text: text.into(), decode_error: None }
    }

    /// Reads the file at `path`; the path `-` is standard input.
    pub fn read(path: &Path) -> std::io::Result<Source> {
        if path == Path::new(STDIN_PATH) {
            return Source::read_stdin();
        }
        let (text, decode_error) = decode_source(std::fs::read(path)?);
        Ok(Source { name: path.display().to_string(), text, decode_error })
    }

    /// Parses the module; the decoding error instead when the file was not UTF-8.
    pub fn parse(&self) -> Result<IRModule, Diagnostics> {
        if let Some(error) = &self.decode_error {
            return Err(error.clone().into());
        }
        parse_module(&self.text)
    }

    /// Reads all of standard input, named `<stdin>` in diagnostics.
    fn read_stdin() -> std::io::Result<Source> {
        let mut bytes = Vec::new();
        std::io::Read::read_to_end(&mut std::io::stdin(), &mut bytes)?;
        let (text, decode_error) = decode_source(bytes);
        Ok(Source { name: "<stdin>".to_owned(), text, decode_error })
    }

    /// Parses the module, then checks it; diagnostics of whichever stage failed.
    pub fn parse_and_check(&self) -> Result<IRModule, Diagnostics> {
        let module = self.parse()?;
        let mut diags = check_module(&module);
        diags.sort();
        if diags.has_errors() {
            return Err(diags);
        }
        Ok(module)
    }

    /// Renders diagnostics against this file.
    pub fn render(&self, diags: &Diagnostics) -> String {
        diags.render(&self.name, &self.text)
    }
}

/// Expands directories into the `.py` files below them (sorted by name), keeping files as given.
///
/// The walk does not follow symbolic links to directories, so a link cycle cannot make it loop;
/// a link to a regular file counts as that file. A `.py` entry that is not a regular file (a
/// FIFO, a socket, a device, a dangling link) is an error naming it, never read: reading a FIFO
/// would wait forever for a writer.
pub fn expand_paths(paths: &[PathBuf]) -> std::io::Result<Vec<PathBuf>> {
    let mut out = Vec::new();
    for path in paths {
        if path.is_dir() {
            collect_py_files(path, &mut out)?;
        } else {
            out.push(path.clone());
        }
    }
    Ok(out)
}

fn collect_py_files(dir: &Path, out: &mut Vec<PathBuf>) -> std::io::Result<()> {
    for entry in walkdir::WalkDir::new(dir).follow_links(false).sort_by_file_name() {
        let entry = entry?;
        if entry.file_type().is_dir() || entry.path().extension().is_none_or(|e| e != "py") {
            continue;
        }
        let is_regular = std::fs::metadata(entry.path()).is_ok_and(|m| m.is_file());
        if !is_regular {
            let message = format!("{} is not a regular file", entry.path().display());
            return Err(std::io::Error::new(std::io::ErrorKind::InvalidInput, message));
        }
        out.push(entry.into_path());
    }
    Ok(())
}
