//! `--format text|json|sarif|github` and the exit codes: SARIF validated against the official
//! 2.1.0 schema (the copy the `serde-sarif` crate ships, so the test runs offline), GitHub
//! annotations well formed, every machine format naming the same findings, bad input in the
//! JSON with its locations, one exit code per outcome, and `--deny over-synchronized`.

mod common;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use common::{code, show, stderr, stdout};
use serde_json::Value;

fn tirproof(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_tirproof")).args(args).output().expect("the binary runs")
}

fn corpus(path: &str) -> String {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("corpus").join(path).display().to_string()
}

/// The programs the tests report on: the pipeline pass's output with its tight wait (in-flight
/// 5), that wait loosened (refuted) and made stricter (over-synchronized), and a file that does
/// not check.
struct Programs {
    _dir: tempfile::TempDir,
    tight: String,
    refuted: String,
    over: String,
    bad: String,
}

fn programs() -> Programs {
    let dir = tempfile::Builder::new().prefix("tirproof-formats-").tempdir().expect("scratch dir");
    let out = tirproof(&["opt", &corpus("pipeline/rfc_c_interleaved.py"), "--passes", "inject-software-pipeline"]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    let text = stdout(&out);
    let count = "\"async_wait_inflight_count\": 5";
    assert!(text.contains(count), "{text}");
    let write = |name: &str, text: String| {
        let path = dir.path().join(name);
        std::fs::write(&path, text).expect("write");
        show(&path)
    };
    Programs {
        tight: write("tight.py", text.clone()),
        refuted: write("refuted.py", text.replace(count, "\"async_wait_inflight_count\": 6")),
        over: write("over.py", text.replace(count, "\"async_wait_inflight_count\": 4")),
        bad: corpus("text/errors/undefined_name.py"),
        _dir: dir,
    }
}

fn json(out: &Output) -> Value {
    serde_json::from_str(&stdout(out)).unwrap_or_else(|e| panic!("not JSON ({e}): {}", stdout(out)))
}

/// The official SARIF 2.1.0 schema, from the source of the `serde-sarif` crate (located by
/// `cargo metadata`, offline).
fn sarif_schema() -> Value {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let manifest = Path::new(env!("CARGO_MANIFEST_DIR")).join("Cargo.toml");
    let out = Command::new(cargo)
        .args(["metadata", "--format-version", "1", "--offline", "--manifest-path"])
        .arg(&manifest)
        .output()
        .expect("cargo metadata runs");
    assert!(out.status.success(), "{}", stderr(&out));
    let metadata: Value = serde_json::from_slice(&out.stdout).expect("metadata is JSON");
    let package = metadata["packages"]
        .as_array()
        .and_then(|packages| packages.iter().find(|p| p["name"] == "serde-sarif"))
        .expect("serde-sarif is a dependency");
    let manifest_path = PathBuf::from(package["manifest_path"].as_str().expect("a manifest path"));
    let schema_path = manifest_path.parent().expect("a crate directory").join("src/schema.json");
    let schema: Value = serde_json::from_str(&std::fs::read_to_string(&schema_path).expect("the schema reads"))
        .expect("the schema is JSON");
    assert!(schema["title"].as_str().is_some_and(|t| t.contains("2.1.0")), "{}", schema["title"]);
    literal_bracket_escaped(schema)
}

/// The schema with the `]` that stands for itself escaped in the `language` patterns (of
/// `run` and `toolComponent`): a lone `]` is a literal in JavaScript's legacy regular
/// expressions but an error to the validator's check of the schema itself. Escaping it changes
/// nothing the patterns match (and tirproof writes no `language`).
fn literal_bracket_escaped(mut schema: Value) -> Value {
    for definition in ["run", "toolComponent"] {
        let pattern = &mut schema["definitions"][definition]["properties"]["language"]["pattern"];
        assert_eq!(pattern.as_str(), Some("^[a-zA-Z]{2}|^[a-zA-Z]{2}-[a-zA-Z]{2}]?$"), "the schema changed");
        *pattern = Value::from(r"^[a-zA-Z]{2}|^[a-zA-Z]{2}-[a-zA-Z]{2}\]?$");
    }
    schema
}

/// The findings a document names, in order: (rule, level, file, line, col, message).
type Named = Vec<(String, String, String, u64, u64, String)>;

fn from_json(document: &Value) -> Named {
    let findings = document["findings"].as_array().expect("findings");
    findings
        .iter()
        .map(|f| {
            (
                f["rule"].as_str().unwrap_or_default().to_owned(),
                f["level"].as_str().unwrap_or_default().to_owned(),
                f["file"].as_str().unwrap_or_default().to_owned(),
                f["line"].as_u64().unwrap_or_default(),
                f["col"].as_u64().unwrap_or_default(),
                f["message"].as_str().unwrap_or_default().to_owned(),
            )
        })
        .collect()
}

/// A URI's percent escapes decoded (the file names SARIF carries).
fn unescape(text: &str) -> String {
    let bytes = text.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' && i + 2 < bytes.len() {
            if let Ok(byte) = u8::from_str_radix(&text[i + 1..i + 3], 16) {
                out.push(byte);
                i += 3;
                continue;
            }
        }
        out.push(bytes[i]);
        i += 1;
    }
    String::from_utf8(out).expect("UTF-8")
}

fn from_sarif(log: &Value) -> Named {
    let results = log["runs"][0]["results"].as_array().expect("results");
    results
        .iter()
        .map(|r| {
            let physical = &r["locations"][0]["physicalLocation"];
            (
                r["ruleId"].as_str().unwrap_or_default().to_owned(),
                r["level"].as_str().unwrap_or_default().to_owned(),
                unescape(physical["artifactLocation"]["uri"].as_str().unwrap_or_default()),
                physical["region"]["startLine"].as_u64().unwrap_or_default(),
                physical["region"]["startColumn"].as_u64().unwrap_or_default(),
                r["message"]["text"].as_str().unwrap_or_default().to_owned(),
            )
        })
        .collect()
}

/// Parses one workflow command line, failing on anything malformed: `::LEVEL PROPS::MESSAGE`
/// with the properties `file`, then `line` and `col` (numbers), then `title`.
fn parse_annotation(line: &str) -> (String, String, String, u64, u64, String) {
    let rest = line.strip_prefix("::").unwrap_or_else(|| panic!("not a workflow command: {line}"));
    let (head, message) = rest.split_once("::").unwrap_or_else(|| panic!("no message: {line}"));
    let (level, properties) = head.split_once(' ').unwrap_or_else(|| panic!("no properties: {line}"));
    assert!(["error", "warning", "notice"].contains(&level), "{line}");
    let mut fields = std::collections::BTreeMap::new();
    for property in properties.split(',') {
        let (key, value) = property.split_once('=').unwrap_or_else(|| panic!("bad property {property}: {line}"));
        assert!(!value.contains(':') && !value.contains('\n'), "{line}");
        assert!(fields.insert(key, value).is_none(), "a property twice: {line}");
    }
    let keys: Vec<&str> = fields.keys().copied().collect();
    assert!(keys.iter().all(|k| ["file", "line", "col", "title"].contains(k)), "{line}");
    assert!(fields.contains_key("file") && fields.contains_key("title"), "{line}");
    assert!(!fields.contains_key("col") || fields.contains_key("line"), "{line}");
    let number = |key| fields.get(key).map_or(0, |v: &&str| v.parse().unwrap_or_else(|_| panic!("{key}: {line}")));
    let level = match level {
        "notice" => "note",
        other => other,
    };
    let unescape_data = |text: &str| text.replace("%0A", "\n").replace("%0D", "\r").replace("%25", "%");
    let property = |text: &str| unescape_data(&text.replace("%3A", ":").replace("%2C", ","));
    (
        property(fields["title"]),
        level.to_owned(),
        property(fields["file"]),
        number("line"),
        number("col"),
        unescape_data(message),
    )
}

fn from_github(text: &str) -> Named {
    text.lines().map(parse_annotation).collect()
}

#[test]
fn sarif_of_every_reporting_command_validates_against_the_2_1_0_schema() {
    let schema = sarif_schema();
    let validator = jsonschema::options().should_validate_formats(true).build(&schema).expect("the schema compiles");
    let p = programs();
    let runs: Vec<Vec<&str>> = vec![
        vec!["verify", &p.tight, &p.refuted, &p.over, &p.bad],
        vec!["check", &p.tight, &p.bad, "/nonexistent/file.py"],
        vec!["fmt", &p.bad],
        vec!["opt", &p.refuted, "--passes", "cse"],
        vec!["run", &p.refuted, "--reference", &p.tight],
        vec!["ptx", &p.bad],
        vec!["corpus", &p.tight],
    ];
    for args in runs {
        let mut with_format = args.clone();
        with_format.extend(["--format", "sarif"]);
        let out = tirproof(&with_format);
        let log = json(&out);
        let errors: Vec<String> =
            validator.iter_errors(&log).map(|e| format!("{e} at {}", e.instance_path())).collect();
        assert!(errors.is_empty(), "{args:?}: {errors:#?}\n{log:#}");
        assert_eq!(log["version"], "2.1.0");
        assert_eq!(log["runs"][0]["invocations"][0]["exitCode"].as_i64(), Some(i64::from(code(&out))), "{args:?}");
    }
    // The schema is strict enough to catch a malformed log.
    let broken = serde_json::json!({ "version": "2.1.0", "runs": [{ "tool": { "driver": {} } }] });
    assert!(validator.iter_errors(&broken).next().is_some());
}

#[test]
fn every_format_names_the_same_findings_and_github_lines_are_well_formed() {
    let p = programs();
    let inputs = [p.tight.as_str(), p.refuted.as_str(), p.over.as_str(), p.bad.as_str()];
    let run = |format: &str| {
        let mut args = vec!["verify"];
        args.extend(inputs);
        args.extend(["--format", format]);
        tirproof(&args)
    };
    let (as_json, as_sarif, as_github, as_text) = (run("json"), run("sarif"), run("github"), run("text"));
    let named = from_json(&json(&as_json));
    assert_eq!(from_sarif(&json(&as_sarif)), named);
    assert_eq!(from_github(&stdout(&as_github)), named);
    // `--json` is `--format json`.
    let mut alias = vec!["verify"];
    alias.extend(inputs);
    alias.push("--json");
    assert_eq!(from_json(&json(&tirproof(&alias))), named);
    for rule in ["wait-proved", "wait-refuted", "wait-over-synchronized", "bad-input"] {
        assert!(named.iter().any(|f| f.0 == rule), "{rule}: {named:#?}");
    }
    // The text names every wait finding, at its line.
    let text = stdout(&as_text);
    for (rule, _, _, line, _, _) in &named {
        if rule.starts_with("wait-") {
            assert!(text.contains(&format!("wait at line {line} ")), "line {line}: {text}");
        }
    }
    // One exit code, whatever the format: bad input outweighs the refuted wait.
    for out in [&as_json, &as_sarif, &as_github, &as_text] {
        assert_eq!(code(out), 4, "{}", stderr(out));
    }
    // A refuted wait's annotation names its file, line and column.
    let refuted = named.iter().find(|f| f.0 == "wait-refuted").expect("a refuted wait");
    assert_eq!((refuted.1.as_str(), refuted.2.as_str()), ("error", p.refuted.as_str()));
    assert!(refuted.3 > 0 && refuted.4 > 0, "{refuted:?}");
    assert!(stdout(&as_github)
        .lines()
        .any(|l| l.starts_with(&format!("::error file={},line={},col=", p.refuted, refuted.3))));
}

#[test]
fn a_file_that_does_not_parse_or_check_carries_its_diagnostics_in_the_json() {
    let p = programs();
    for command in ["verify", "check", "fmt", "run", "ptx", "opt"] {
        let mut args = vec![command, p.bad.as_str()];
        if command == "opt" {
            args.extend(["--passes", "cse"]);
        }
        args.extend(["--format", "json"]);
        let out = tirproof(&args);
        assert_eq!(code(&out), 4, "{command}: {}", stderr(&out));
        let document = json(&out);
        assert_eq!(document["status"], "bad-input", "{command}");
        let file = &document["files"][0];
        assert_eq!((&file["file"], &file["status"]), (&Value::from(p.bad.as_str()), &Value::from("rejected")));
        let diagnostic = &file["diagnostics"][0];
        assert_eq!((diagnostic["line"].as_u64(), diagnostic["col"].as_u64()), (Some(11), Some(18)), "{document:#}");
        assert!(diagnostic["message"].as_str().is_some_and(|m| m.contains("undefined name `j`")), "{document:#}");
    }
    // A file that does not read is bad input too, named in the JSON.
    let out = tirproof(&["check", "/nonexistent/file.py", "--format", "json"]);
    assert_eq!(code(&out), 4, "{}", stderr(&out));
    assert_eq!(json(&out)["files"][0]["status"], "rejected");
}

#[test]
fn each_outcome_has_its_exit_code_and_the_worst_wins() {
    let p = programs();
    let racy = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/witness/contents_racy.py");
    let racy = racy.display().to_string();
    let cases: [(&[&str], i32); 8] = [
        (&["verify", &p.tight], 0),
        (&["verify", &p.refuted], 1),
        (&["check"], 2),
        (&["verify", &racy, "--no-witness"], 3),
        (&["verify", &p.bad], 4),
        (&["verify", &racy, "--no-witness", &p.refuted], 1),
        (&["verify", &p.refuted, &p.bad], 4),
        (&["fmt", "/nonexistent/file.py"], 4),
    ];
    for (args, expected) in cases {
        let out = tirproof(args);
        assert_eq!(code(&out), expected, "{args:?}: {}{}", stdout(&out), stderr(&out));
    }
    let help = stdout(&tirproof(&["verify", "--help"]));
    for line in ["3  unknown", "4  bad input", "4 over 1 over 3 over 0"] {
        assert!(help.contains(line), "{line}: {help}");
    }
}

#[test]
fn deny_over_synchronized_makes_those_waits_errors_that_refute() {
    let p = programs();
    let allowed = tirproof(&["verify", &p.over, "--format", "json"]);
    assert_eq!(code(&allowed), 0, "{}", stderr(&allowed));
    let over = |document: &Value| {
        from_json(document).into_iter().find(|f| f.0 == "wait-over-synchronized").expect("an over-synchronized wait")
    };
    assert_eq!(over(&json(&allowed)).1, "warning");
    let denied = tirproof(&["verify", &p.over, "--format", "json", "--deny", "over-synchronized"]);
    assert_eq!(code(&denied), 1, "{}", stderr(&denied));
    assert_eq!(over(&json(&denied)).1, "error");
    // A tight program has nothing to deny.
    assert_eq!(code(&tirproof(&["verify", &p.tight, "--deny", "over-synchronized"])), 0);
}
