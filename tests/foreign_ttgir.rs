//! Triton's own TTGIR (corpus/ttgir, compiled by scripts/foreign_ir.sh) read into token TIR
//! and verified: no wait of Triton's is refuted; every count the verifier calls tight is
//! refuted once raised by one, and so is the removal of a drain it calls tight; and no broken
//! variant of the files makes the reader panic: each gives a module or a located error.

use std::fs;
use std::path::{Path, PathBuf};
use std::time::Duration;

use tirproof_foreign::{import, Dialect};
use tirproof_verify::waits::{verify_func, FuncReport, Options, WaitVerdict};

fn ttgir_files() -> Vec<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("corpus").join("ttgir");
    let mut files: Vec<PathBuf> = fs::read_dir(dir)
        .expect("corpus/ttgir")
        .map(|e| e.expect("an entry").path())
        .filter(|p| p.extension().is_some_and(|x| x == "ttgir"))
        .collect();
    files.sort();
    assert!(files.len() >= 18, "the corpus has Triton's kernels for sm_80 and sm_90");
    files
}

fn options(tightness: bool) -> Options {
    Options { timeout: Duration::from_secs(20), dump_smtlib: false, tightness, budget: Some(Duration::from_secs(120)) }
}

/// The verifier's reports on every function of `text`, tightness measured.
fn verify_text(name: &str, text: &str) -> Vec<FuncReport> {
    verify_with(name, text, true)
}

/// Safety only: enough to say whether a mutant is refuted.
fn verify_mutant(name: &str, text: &str) -> Vec<FuncReport> {
    verify_with(name, text, false)
}

fn verify_with(name: &str, text: &str, tightness: bool) -> Vec<FuncReport> {
    let module = import(text, Dialect::Ttgir).unwrap_or_else(|d| panic!("{name}: {}", d.render(name, text)));
    module.module.functions.iter().map(|f| verify_func(f, &options(tightness)).0).collect()
}

fn refuted(reports: &[FuncReport]) -> Vec<String> {
    let mut out = Vec::new();
    for r in reports {
        for w in &r.waits {
            if matches!(w.verdict, WaitVerdict::Refuted { .. }) {
                out.push(format!("{w}"));
            }
        }
        out.extend(r.findings.iter().map(|f| format!("{f:?}")));
    }
    out
}

/// The lines (1-based) of the waits the verifier calls tight, with the text that holds the
/// count on that line.
fn tight_waits(reports: &[FuncReport], text: &str) -> Vec<(usize, String)> {
    let lines: Vec<&str> = text.lines().collect();
    let mut out = Vec::new();
    for r in reports {
        for w in &r.waits {
            if !matches!(w.verdict, WaitVerdict::ProvedTight) {
                continue;
            }
            let line = w.line as usize;
            let Some(source) = lines.get(line.wrapping_sub(1)) else { continue };
            for key in ["num = ", "pendings = "] {
                if let Some(at) = source.find(key) {
                    let digits: String = source[at + key.len()..].chars().take_while(char::is_ascii_digit).collect();
                    out.push((line, format!("{key}{digits}")));
                }
            }
        }
    }
    out.sort();
    out.dedup();
    out
}

#[test]
fn no_wait_triton_emits_is_refuted_and_every_kernel_has_proved_waits() {
    let mut proved = 0;
    for path in ttgir_files() {
        let name = path.display().to_string();
        let text = fs::read_to_string(&path).expect("readable");
        let reports = verify_text(&name, &text);
        assert!(!reports.is_empty(), "{name}: no function");
        let refutations = refuted(&reports);
        assert!(refutations.is_empty(), "{name}: Triton's waits are refuted:\n{}", refutations.join("\n"));
        assert!(reports.iter().map(|r| r.waits.len()).sum::<usize>() >= 2, "{name}: the waits were not all read");
        proved += reports.iter().map(|r| r.count(WaitVerdict::is_proved)).sum::<usize>();
    }
    assert!(proved >= 40, "only {proved} waits proved over the corpus");
}

#[test]
fn a_tight_count_raised_by_one_or_a_tight_drain_removed_is_refuted() {
    let mut mutants = 0;
    for path in ttgir_files() {
        let name = path.display().to_string();
        let text = fs::read_to_string(&path).expect("readable");
        let reports = verify_text(&name, &text);
        for (line, count) in tight_waits(&reports, &text) {
            let (key, n) = count.rsplit_once(' ').expect("`key = N`");
            let n: i64 = n.parse().expect("a count");
            let mut lines: Vec<String> = text.lines().map(str::to_owned).collect();
            // Raised with its tokens dropped (raised, a count no longer keeps their claim, which
            // the verifier refutes on its own): what is refuted is then the memory it exposes.
            let raised = match lines[line - 1].split_once("ttg.async_wait") {
                Some((head, _)) => format!("{head}ttg.async_wait {{num = {} : i32}}", n + 1),
                None => lines[line - 1].replace(&count, &format!("{key} {}", n + 1)),
            };
            lines[line - 1] = raised;
            let mutant = lines.join("\n");
            let reports = verify_mutant(&name, &mutant);
            // The original has no refutation, so any refutation of the mutant is the raised
            // count's: at the wait, or at the end of the function (groups left in flight).
            assert!(!refuted(&reports).is_empty(), "{name}:{line}: raising `{count}` by one is not refuted");
            mutants += 1;
            let result = text.lines().nth(line - 1).and_then(|l| l.split_once(" = ")).map(|(r, _)| r.trim().to_owned());
            let used_later = result
                .is_some_and(|r| text.matches(&format!("{r} ")).count() + text.matches(&format!("{r},")).count() > 1);
            if n == 0 && !lines[line - 1].contains("ttng.") && !used_later {
                // The drain: removed outright, the program it protected must be refuted.
                let mut removed: Vec<String> = text.lines().map(str::to_owned).collect();
                removed.remove(line - 1);
                let reports = verify_mutant(&name, &removed.join("\n"));
                assert!(!refuted(&reports).is_empty(), "{name}:{line}: removing the drain is not refuted");
                mutants += 1;
            }
        }
    }
    assert!(mutants >= 30, "only {mutants} mutants checked");
}

/// The program with the wait at `line` (1-based) removed: its count made larger than any
/// number of groups the program commits and its tokens dropped, so that the values it defines
/// stay defined.
fn without_wait(text: &str, line: usize) -> Option<String> {
    let mut lines: Vec<String> = text.lines().map(str::to_owned).collect();
    let target = lines.get(line - 1)?.clone();
    lines[line - 1] = if let Some((head, _)) = target.split_once("ttg.async_wait") {
        format!("{head}ttg.async_wait {{num = 100000 : i32}}")
    } else {
        let at = target.find("pendings = ")? + "pendings = ".len();
        let digits = target[at..].chars().take_while(char::is_ascii_digit).count();
        format!("{}100000{}", &target[..at], &target[at + digits..])
    };
    Some(lines.join("\n"))
}

#[test]
fn removing_a_needed_wait_is_refuted_and_removing_one_not_needed_is_not() {
    let (mut needed, mut not_needed) = (0, 0);
    for path in ttgir_files() {
        let name = path.display().to_string();
        let text = fs::read_to_string(&path).expect("readable");
        for report in verify_text(&name, &text) {
            for wait in &report.waits {
                let line = wait.line as usize;
                let expect_refuted = match &wait.verdict {
                    WaitVerdict::ProvedOverSynchronized { best: None, .. } => false,
                    WaitVerdict::ProvedTight | WaitVerdict::ProvedOverSynchronized { .. } => true,
                    _ => continue,
                };
                let Some(mutant) = without_wait(&text, line) else { continue };
                let refutations = refuted(&verify_mutant(&name, &mutant));
                assert_eq!(
                    !refutations.is_empty(),
                    expect_refuted,
                    "{name}:{line}: the wait is {}, but removing it {}: {refutations:?}",
                    if expect_refuted { "needed" } else { "not needed" },
                    if refutations.is_empty() { "is safe" } else { "is refuted" },
                );
                if expect_refuted {
                    needed += 1;
                } else {
                    not_needed += 1;
                }
            }
        }
    }
    assert!(needed >= 25 && not_needed >= 10, "{needed} needed and {not_needed} unneeded waits removed");
}

/// A small deterministic generator of mutation sites.
struct Lcg(u64);

impl Lcg {
    fn below(&mut self, n: usize) -> usize {
        self.0 = self.0.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        ((self.0 >> 33) as usize) % n.max(1)
    }
}

#[test]
fn every_broken_variant_is_read_or_refused_with_a_location() {
    let mut rng = Lcg(0x7472_6974_6f6e);
    let mut refused = 0;
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("corpus");
    let mut inputs: Vec<(PathBuf, Dialect)> = ttgir_files().into_iter().map(|p| (p, Dialect::Ttgir)).collect();
    for (dir, extension, dialect) in [("ptx-foreign", "ttgir", Dialect::Ttgir), ("nvgpu", "mlir", Dialect::Nvgpu)] {
        let mut found: Vec<PathBuf> = fs::read_dir(root.join(dir))
            .expect("the corpus folder")
            .map(|e| e.expect("an entry").path())
            .filter(|p| p.extension().is_some_and(|x| x == extension))
            .collect();
        found.sort();
        assert!(!found.is_empty(), "no .{extension} file in corpus/{dir}");
        inputs.extend(found.into_iter().map(|p| (p, dialect)));
    }
    for (path, dialect) in inputs {
        let text = fs::read_to_string(&path).expect("readable");
        let lines: Vec<&str> = text.lines().collect();
        let chars: Vec<char> = text.chars().collect();
        for round in 0..40 {
            let mutant: String = match round % 5 {
                0 => chars[..rng.below(chars.len())].iter().collect(),
                1 => {
                    let skip = rng.below(lines.len());
                    lines.iter().enumerate().filter(|(i, _)| *i != skip).map(|(_, l)| *l).collect::<Vec<_>>().join("\n")
                }
                2 => {
                    let at = rng.below(chars.len());
                    chars.iter().enumerate().filter(|(i, _)| *i != at).map(|(_, c)| c).collect()
                }
                3 => {
                    let at = rng.below(lines.len());
                    let mut l: Vec<String> = lines.iter().map(|s| (*s).to_owned()).collect();
                    l[at] = l[at].replacen('%', "%undefined_", 2);
                    l.join("\n")
                }
                _ => {
                    let at = rng.below(lines.len());
                    let mut l: Vec<String> = lines.iter().map(|s| (*s).to_owned()).collect();
                    l[at] = l[at]
                        .replace("ttg.local_load", "ttg.local_mystery")
                        .replace("num = ", "num = -")
                        .replace("nvgpu.device_async_copy", "nvgpu.device_async_mystery")
                        .replace("numGroups = ", "numGroups = -");
                    l.join("\n")
                }
            };
            if let Err(diags) = import(&mutant, dialect) {
                refused += 1;
                let line_count = mutant.lines().count().max(1) as u32;
                for d in diags.iter() {
                    assert!(!d.message.is_empty(), "an empty diagnostic");
                    assert!(
                        (1..=line_count + 1).contains(&d.span.line),
                        "{}: diagnostic `{}` at {} is outside the file",
                        path.display(),
                        d.message,
                        d.span
                    );
                }
            }
        }
    }
    assert!(refused > 100, "only {refused} broken variants refused");
}
