//! Loading TVMScript files: read, parse, check, and render what went wrong.
//!
//! A `Source` keeps the file name and text together so every diagnostic renders with
//! `file:line:col`, the source line and a caret. I/O failures are errors of the tool
//! (`std::io::Error`), while parse and check failures are diagnostics about the input; so is
//! text that is not UTF-8 (located at its first invalid byte, reported before parsing).
//!
//! Every program text (a file, standard input, a PTX file) is read through `read_program`,
//! which stops after `MAX_PROGRAM_BYTES`: an endless stream (`/dev/zero`, a pipe that never
//! closes its end of data) is an error naming the input and the limit, never a read that grows
//! until the allocator fails.

use std::io::Read;
use std::path::{Path, PathBuf};

use tirproof_foreign::Dialect;
use tirproof_ir::check::check_module;
use tirproof_ir::{Diagnostic, Diagnostics, IRModule};
use tirproof_reader::{decode_source, parse_module};

/// The path that names standard input.
pub const STDIN_PATH: &str = "-";

/// The largest program text read, in bytes (32 MiB: the reader holds about 15 times its input,
/// and generated programs of 100,000 statements are about 4 MB).
pub const MAX_PROGRAM_BYTES: u64 = 32 << 20;

/// Reads all of `input` (named `name` in the error), refusing more than `MAX_PROGRAM_BYTES`.
pub fn read_program(input: impl Read, name: &str) -> std::io::Result<Vec<u8>> {
    let mut bytes = Vec::new();
    input.take(MAX_PROGRAM_BYTES + 1).read_to_end(&mut bytes)?;
    if bytes.len() as u64 > MAX_PROGRAM_BYTES {
        let message = format!(
            "{name} is longer than {} MiB, the most a program may be (MAX_PROGRAM_BYTES)",
            MAX_PROGRAM_BYTES >> 20
        );
        return Err(std::io::Error::new(std::io::ErrorKind::FileTooLarge, message));
    }
    Ok(bytes)
}

/// A file's name and text.
#[derive(Clone, Debug)]
pub struct Source {
    pub name: String,
    pub text: String,
    /// Where the file was not UTF-8 (then `text` is its lossy decoding): the input's fault,
    /// reported as the module's diagnostic, not an I/O error.
    pub decode_error: Option<Diagnostic>,
    /// The foreign IR the file holds (by its extension: `.ttgir`, `.mlir`), read into TIR by
    /// `tirproof_foreign`; `None` for TVMScript.
    pub dialect: Option<Dialect>,
}

impl Source {
    /// A source from text already in memory.
    pub fn new(name: impl Into<String>, text: impl Into<String>) -> Source {
        Source { name: name.into(), text: text.into(), decode_error: None, dialect: None }
    }

    /// Reads the file at `path`; the path `-` is standard input.
    pub fn read(path: &Path) -> std::io::Result<Source> {
        if path == Path::new(STDIN_PATH) {
            return Source::read_stdin();
        }
        let name = path.display().to_string();
        let (text, decode_error) = decode_source(read_program(std::fs::File::open(path)?, &name)?);
        Ok(Source { name, text, decode_error, dialect: Dialect::of_path(path) })
    }

    /// Parses the module; the decoding error instead when the file was not UTF-8.
    pub fn parse(&self) -> Result<IRModule, Diagnostics> {
        if let Some(error) = &self.decode_error {
            return Err(error.clone().into());
        }
        match self.dialect {
            Some(dialect) => {
                let imported = self.import(dialect)?;
                if !imported.notes.is_empty() {
                    let rendered = self.render(&Diagnostics(imported.notes));
                    eprintln!("{}", rendered.trim_end());
                }
                Ok(imported.module)
            }
            None => parse_module(&self.text),
        }
    }

    /// The file read as foreign IR: the module, the TIR it was read from, and what the reader
    /// assumed.
    pub fn import(&self, dialect: Dialect) -> Result<tirproof_foreign::Module, Diagnostics> {
        tirproof_foreign::import(&self.text, dialect)
    }

    /// Reads all of standard input, named `<stdin>` in diagnostics.
    fn read_stdin() -> std::io::Result<Source> {
        let name = "<stdin>".to_owned();
        let (text, decode_error) = decode_source(read_program(std::io::stdin().lock(), &name)?);
        Ok(Source { name, text, decode_error, dialect: None })
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

/// The extensions of the program files a directory is searched for: TVMScript and the foreign
/// IRs `tirproof_foreign` reads.
pub const PROGRAM_EXTENSIONS: [&str; 3] = ["py", "ttgir", "mlir"];

/// Expands directories into the program files below them (sorted by name; see
/// [`PROGRAM_EXTENSIONS`]), keeping files as given.
///
/// The walk does not follow symbolic links to directories, so a link cycle cannot make it loop;
/// a link to a regular file counts as that file. A program entry that is not a regular file (a
/// FIFO, a socket, a device, a dangling link) is an error naming it, never read: reading a FIFO
/// would wait forever for a writer.
pub fn expand_paths(paths: &[PathBuf]) -> std::io::Result<Vec<PathBuf>> {
    let mut out = Vec::new();
    for path in paths {
        if path.is_dir() {
            collect_program_files(path, &mut out)?;
        } else {
            out.push(path.clone());
        }
    }
    Ok(out)
}

fn collect_program_files(dir: &Path, out: &mut Vec<PathBuf>) -> std::io::Result<()> {
    for entry in walkdir::WalkDir::new(dir).follow_links(false).sort_by_file_name() {
        let entry = entry?;
        let is_program =
            entry.path().extension().and_then(|e| e.to_str()).is_some_and(|e| PROGRAM_EXTENSIONS.contains(&e));
        if entry.file_type().is_dir() || !is_program {
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_endless_stream_is_refused_after_the_limit_naming_it() {
        let error = read_program(std::io::repeat(b'#'), "<stdin>").expect_err("refused");
        assert_eq!(error.kind(), std::io::ErrorKind::FileTooLarge);
        let message = error.to_string();
        assert!(message.contains("<stdin>") && message.contains("MAX_PROGRAM_BYTES"), "{message}");
        // Exactly the limit is read whole.
        let at_limit = read_program(std::io::repeat(b'#').take(MAX_PROGRAM_BYTES), "x").expect("read");
        assert_eq!(at_limit.len() as u64, MAX_PROGRAM_BYTES);
    }
}
