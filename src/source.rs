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

    pub fn read(path: &Path) -> std::io::Result<Source> {
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

/// Expands directories into the `.py` files below them (sorted), keeping files as given.
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
    let mut entries: Vec<PathBuf> = std::fs::read_dir(dir)?.map(|e| e.map(|e| e.path())).collect::<Result<_, _>>()?;
    entries.sort();
    for path in entries {
        if path.is_dir() {
            collect_py_files(&path, out)?;
        } else if path.extension().is_some_and(|e| e == "py") {
            out.push(path);
        }
    }
    Ok(())
}
