//! Loading TVMScript files: read, parse, check, and render what went wrong.
//!
//! A `Source` keeps the file name and text together so every diagnostic renders with
//! `file:line:col`, the source line and a caret. I/O failures are errors of the tool
//! (`std::io::Error`), while parse and check failures are diagnostics about the input.

use std::path::{Path, PathBuf};

use tirproof_ir::check::check_module;
use tirproof_ir::{Diagnostics, IRModule};
use tirproof_reader::parse_module;

/// The path that names standard input.
pub const STDIN_PATH: &str = "-";

/// A file's name and text.
#[derive(Clone, Debug)]
pub struct Source {
    pub name: String,
    pub text: String,
}

impl Source {
    /// Reads the file at `path`; the path `-` is standard input.
    pub fn read(path: &Path) -> std::io::Result<Source> {
        if path == Path::new(STDIN_PATH) {
            return Source::read_stdin();
        }
        let text = std::fs::read_to_string(path)?;
        Ok(Source { name: path.display().to_string(), text })
    }

    /// Reads all of standard input, named `<stdin>` in diagnostics.
    fn read_stdin() -> std::io::Result<Source> {
        let mut text = String::new();
        std::io::Read::read_to_string(&mut std::io::stdin(), &mut text)?;
        Ok(Source { name: "<stdin>".to_owned(), text })
    }

    /// Parses the module, then checks it; diagnostics of whichever stage failed.
    pub fn parse_and_check(&self) -> Result<IRModule, Diagnostics> {
        let module = parse_module(&self.text)?;
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
