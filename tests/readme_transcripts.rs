//! The README's transcripts are the tool's real output: every ```` ```console ```` block of
//! README.md is run and compared with what it shows.
//!
//! A transcript is a sequence of commands, each a line starting with `$ ` (continued by lines
//! ending in `\`), each followed by the output it prints (standard output and standard error
//! together, as a terminal shows them). An output ending in a line `[exit N]` also says the exit
//! status; otherwise the status must be 0. The commands of one block run in order in one fresh
//! directory, in which `corpus` and `examples` are the repository's, with the `tirproof` under
//! test first on the PATH; what they write stays in that directory.
//!
//! Timings are not compared: a number followed by `ms` or `s` matches any number there. With
//! `TIRPROOF_BLESS=1` the test writes the outputs it got into README.md instead of comparing.

use std::path::{Path, PathBuf};
use std::process::Command;

/// One command of a transcript and the output shown for it.
struct Step {
    command: String,
    shown: Vec<String>,
}

/// A ```` ```console ```` block: the README's lines `body` (0-based, the fences excluded).
struct Transcript {
    body: std::ops::Range<usize>,
    steps: Vec<Step>,
}

fn readme_path() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("README.md")
}

fn transcripts(lines: &[&str]) -> Vec<Transcript> {
    let mut found = Vec::new();
    let mut at = 0;
    while at < lines.len() {
        if lines[at].trim_end() != "```console" {
            at += 1;
            continue;
        }
        let start = at + 1;
        let end = (start..lines.len()).find(|&k| lines[k].trim_end() == "```").expect("a closed console block");
        let mut steps: Vec<Step> = Vec::new();
        let mut k = start;
        while k < end {
            if let Some(first) = lines[k].strip_prefix("$ ") {
                let mut command = first.to_string();
                while command.ends_with('\\') && k + 1 < end {
                    k += 1;
                    command.push('\n');
                    command.push_str(lines[k]);
                }
                steps.push(Step { command, shown: Vec::new() });
            } else {
                let step = steps.last_mut().unwrap_or_else(|| panic!("README.md:{}: output before any command", k + 1));
                step.shown.push(lines[k].to_string());
            }
            k += 1;
        }
        found.push(Transcript { body: start..end, steps });
        at = end + 1;
    }
    found
}

/// The text with every timing (a number and `ms` or `s`) replaced by `<time>`.
fn without_timings(text: &str) -> String {
    static TIMING: std::sync::LazyLock<regex::Regex> =
        std::sync::LazyLock::new(|| regex::Regex::new(r"\b\d+(\.\d+)? ?(ms|s)\b").expect("a valid pattern"));
    TIMING.replace_all(text, "<time>").into_owned()
}

/// Runs `command` in `dir` and returns what a terminal shows, with `[exit N]` when N is not 0.
fn run(command: &str, dir: &Path) -> Vec<String> {
    let binary = Path::new(env!("CARGO_BIN_EXE_tirproof"));
    let path =
        format!("{}:{}", binary.parent().expect("a folder").display(), std::env::var("PATH").unwrap_or_default());
    let out = Command::new("sh")
        .arg("-c")
        .arg(format!("exec 2>&1\n{command}"))
        .current_dir(dir)
        .env("PATH", path)
        .env("NO_COLOR", "1")
        .output()
        .expect("sh runs");
    let text = String::from_utf8_lossy(&out.stdout).replace(&dir.display().to_string(), ".");
    let mut lines: Vec<String> = text.lines().map(str::to_string).collect();
    match out.status.code() {
        Some(0) => {}
        Some(code) => lines.push(format!("[exit {code}]")),
        None => lines.push("[killed by a signal]".to_string()),
    }
    lines
}

#[test]
fn every_console_block_of_the_readme_is_the_tools_real_output() {
    let text = std::fs::read_to_string(readme_path()).expect("README.md");
    let lines: Vec<&str> = text.lines().collect();
    let found = transcripts(&lines);
    assert!(!found.is_empty(), "README.md has no ```console transcript");
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let bless = std::env::var_os("TIRPROOF_BLESS").is_some_and(|v| v == "1");
    let mut blessed: Vec<String> = lines.iter().map(|l| l.to_string()).collect();
    let mut failures = Vec::new();
    // Blocks are rewritten from the last so that earlier line numbers stay valid.
    for transcript in found.iter().rev() {
        let dir = tempfile::tempdir().expect("a temporary folder");
        for shared in ["corpus", "examples"] {
            std::os::unix::fs::symlink(root.join(shared), dir.path().join(shared)).expect("a link");
        }
        let mut got_block = Vec::new();
        for step in &transcript.steps {
            let got = run(&step.command, dir.path());
            let same = got.len() == step.shown.len()
                && got.iter().zip(&step.shown).all(|(g, s)| without_timings(g) == without_timings(s));
            if !same {
                failures.push(format!(
                    "README.md:{}: `$ {}`\n--- shown ---\n{}\n--- got ---\n{}",
                    transcript.body.start + 1,
                    step.command,
                    step.shown.join("\n"),
                    got.join("\n")
                ));
            }
            got_block.push(format!("$ {}", step.command));
            // A line that differs only in its timings keeps the README's, so blessing changes
            // only what changed.
            let kept = got.iter().enumerate().map(|(k, line)| match step.shown.get(k) {
                Some(shown) if without_timings(shown) == without_timings(line) => shown.clone(),
                _ => line.clone(),
            });
            got_block.extend(kept);
        }
        blessed.splice(transcript.body.clone(), got_block);
    }
    if bless {
        std::fs::write(readme_path(), blessed.join("\n") + "\n").expect("README.md written");
        return;
    }
    assert!(
        failures.is_empty(),
        "{} README transcript steps differ from the tool (TIRPROOF_BLESS=1 rewrites them):\n\n{}",
        failures.len(),
        failures.join("\n\n")
    );
}

#[test]
fn timings_are_masked_and_nothing_else() {
    assert_eq!(without_timings("main (19 queries, 161 ms)"), "main (19 queries, <time>)");
    assert_eq!(without_timings("in 0.25 s, 3 waits"), "in <time>, 3 waits");
    assert_eq!(without_timings("12s later"), "<time> later");
    assert_eq!(without_timings("sm_80, 3 stages, s2_i_0 = 1"), "sm_80, 3 stages, s2_i_0 = 1");
    assert_eq!(without_timings("i = 2 steps"), "i = 2 steps");
}
