//! Line information of PTX text: the source files `.file` numbers and the `.loc` in effect at
//! each PTX line, so that a fault at a PTX line names the line of CUDA, Python or TIR it was
//! compiled from.
//!
//! Invariants: a `.loc` applies to the lines after it, up to the next `.loc` or the next
//! `.entry`/`.func`; a `.loc` of line 0 (no source) applies to none; reading never fails (a
//! directive it cannot read is skipped, the parser checks the text).

use std::collections::BTreeMap;
use std::fmt;

/// A position in a source file: `.loc FILE LINE COL`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SourcePos {
    pub file: u32,
    pub line: u32,
    pub col: u32,
}

/// The source files and the `.loc`s of one text.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SourceMap {
    files: BTreeMap<u32, String>,
    /// The PTX line of each `.loc` (or `.entry`, as `None`) and its position, in line order.
    locs: Vec<(u32, Option<SourcePos>)>,
}

/// A source position with the name of its file.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SourceLine<'m> {
    /// The file as `.file` names it (`None`: a number no `.file` declares).
    pub file: Option<&'m str>,
    pub pos: SourcePos,
}

impl fmt::Display for SourceLine<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.file {
            Some(name) => write!(f, "{name}:{}", self.pos.line)?,
            None => write!(f, "file {}:{}", self.pos.file, self.pos.line)?,
        }
        if self.pos.col > 0 {
            write!(f, ":{}", self.pos.col)?;
        }
        Ok(())
    }
}

/// The first string literal of a line, its `\\` escapes undone (as the printer writes names
/// with quotes or backslashes); `None` without a closed one.
fn string_literal(line: &str) -> Option<String> {
    let mut chars = line.split_once('"')?.1.chars();
    let mut out = String::new();
    loop {
        match chars.next()? {
            '"' => return Some(out),
            '\\' => out.push(chars.next()?),
            c => out.push(c),
        }
    }
}

impl SourceMap {
    /// The `.file`s and `.loc`s of PTX text.
    pub fn of_text(text: &str) -> SourceMap {
        let mut map = SourceMap::default();
        for (index, line) in text.lines().enumerate() {
            let number = u32::try_from(index + 1).unwrap_or(u32::MAX);
            let line = line.trim_start();
            let mut words = line.split(|c: char| c.is_whitespace() || c == ',').filter(|w| !w.is_empty());
            match words.next() {
                Some(".file") => {
                    let file = words.next().and_then(|n| n.parse().ok());
                    let name = string_literal(line);
                    if let (Some(file), Some(name)) = (file, name) {
                        map.files.insert(file, name);
                    }
                }
                Some(".loc") => {
                    let mut numbers = words.map(str::parse::<u32>);
                    if let (Some(Ok(file)), Some(Ok(line)), col) = (numbers.next(), numbers.next(), numbers.next()) {
                        let pos = SourcePos { file, line, col: col.and_then(Result::ok).unwrap_or(0) };
                        map.locs.push((number, (line > 0).then_some(pos)));
                    }
                }
                Some(".entry" | ".func") => map.locs.push((number, None)),
                Some(".visible" | ".weak") if line.contains(".entry") || line.contains(".func") => {
                    map.locs.push((number, None));
                }
                _ => {}
            }
        }
        map
    }

    /// Whether the text has any `.loc`.
    pub fn is_empty(&self) -> bool {
        self.locs.iter().all(|(_, pos)| pos.is_none())
    }

    /// The source position in effect at PTX line `ptx_line`.
    pub fn at(&self, ptx_line: u32) -> Option<SourceLine<'_>> {
        let before = self.locs.partition_point(|(line, _)| *line < ptx_line);
        let pos = self.locs.get(before.checked_sub(1)?)?.1?;
        Some(SourceLine { file: self.files.get(&pos.file).map(String::as_str), pos })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_loc_names_the_lines_after_it_in_its_kernel() {
        let text = ".file 1 \"/src/k.cu\", 1700000000, 512\n.visible .entry a()\n{\n\
            .loc 1 12 5\nadd.s32 %r1, %r1, 1;\n.loc 1 14 0, function_name $L__info, inlined_at 1 3 2\nret;\n}\n\
            .entry b()\n{\nret;\n.loc 2 0 0\nret;\n}\n";
        let map = SourceMap::of_text(text);
        assert!(!map.is_empty());
        assert_eq!(map.at(4), None, "the .loc line itself");
        assert_eq!(map.at(5).map(|s| s.to_string()).as_deref(), Some("/src/k.cu:12:5"));
        assert_eq!(map.at(7).map(|s| s.to_string()).as_deref(), Some("/src/k.cu:14"));
        assert_eq!(map.at(11), None, "another kernel");
        assert_eq!(map.at(13), None, "line 0 is no source");
        let quoted = SourceMap::of_text(".file 1 \"a \\\"q\\\".py\"\n.entry c()\n.loc 1 7 1\nret;\n");
        assert_eq!(quoted.at(4).map(|s| s.to_string()).as_deref(), Some("a \"q\".py:7:1"));
        let unnamed = SourceMap::of_text(".entry c()\n.loc 3 7 1\nret;\n");
        assert_eq!(unnamed.at(3).map(|s| s.to_string()).as_deref(), Some("file 3:7:1"));
    }
}
