//! A campaign's progress and its page: without a terminal, `tirproof fuzz` prints a progress
//! line every `--progress-every`, appends a point to DIR/progress.jsonl and keeps
//! DIR/page/index.html current; `tirproof report DIR` writes the page, refuses a directory
//! that is not a campaign's, and draws no plot (saying why) for a campaign without a progress
//! log. The page is opened in a real headless browser (Chromium, `scripts/chromium.sh`) where
//! one is installed: its screenshot is not blank and its DOM holds the plot and the findings;
//! elsewhere that test is skipped, saying why.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn tirproof(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_tirproof")).args(args).output().expect("the binary runs")
}

fn stdout(out: &Output) -> String {
    String::from_utf8_lossy(&out.stdout).into_owned()
}

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

/// A campaign with the planted bug (a finding in the first programs) for a few seconds, with
/// a progress point every second, into `dir`.
fn campaign(dir: &Path) -> Output {
    let dir = dir.display().to_string();
    let args = ["fuzz", "--out", &dir, "--jobs", "1", "--planted-bug", "--valid-only", "--time", "5s"];
    let more = ["--progress-every", "1s", "--reduce-budget", "10s", "--oracle", "pipeline", "--oracle", "equivalence"];
    tirproof(&[&args[..], &more[..]].concat())
}

fn scratch() -> tempfile::TempDir {
    tempfile::Builder::new().prefix("tirproof-page-").tempdir().expect("scratch dir")
}

fn page_of(dir: &Path) -> String {
    std::fs::read_to_string(dir.join("page/index.html")).expect("the page is written")
}

#[test]
fn a_campaign_without_a_terminal_prints_progress_and_keeps_its_page() {
    let scratch = scratch();
    let dir = scratch.path().join("campaign");
    let out = campaign(&dir);
    let text = stdout(&out);
    let progress: Vec<&str> = text.lines().filter(|l| l.contains(" s: ") && l.contains(" programs (")).collect();
    assert!(progress.len() >= 2, "no progress lines every second:\n{text}\n{}", stderr(&out));
    assert!(text.contains("page: "), "{text}");
    let log = std::fs::read_to_string(dir.join("progress.jsonl")).expect("a progress log");
    assert!(log.lines().count() >= 3, "{log}");
    let page = page_of(&dir);
    assert!(page.contains("<svg"), "the page has no plot");
    assert!(page.contains("equivalence/fault:output:read-pending-async"), "the page lacks the finding");
    assert!(page.contains("../findings/") && page.contains("REPORT.md"), "no link to the report");
    assert!(page.contains("Skips by reason") && page.contains("Undecided verdicts by reason"));
    // (An SVG's `xmlns="http://..."` names a namespace; nothing fetches it.)
    for fetch in ["<script", "<link", "@import", "url(", "src=", "href=\"http", "xlink:href"] {
        assert!(!page.contains(fetch), "the page fetches something ({fetch})");
    }
}

#[test]
fn report_writes_the_page_of_a_campaign_and_refuses_other_directories() {
    let scratch = scratch();
    let dir = scratch.path().join("campaign");
    campaign(&dir);
    std::fs::remove_dir_all(dir.join("page")).expect("the page is there");
    let out = tirproof(&["report", &dir.display().to_string()]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(stdout(&out).contains("index.html"), "{}", stdout(&out));
    assert!(page_of(&dir).contains("<svg"));
    // A campaign of an earlier version has no progress log: no plot, and the page says why.
    std::fs::remove_file(dir.join("progress.jsonl")).expect("the log is there");
    let out = tirproof(&["report", &dir.display().to_string()]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let page = page_of(&dir);
    assert!(!page.contains("<svg") && page.contains("no progress log"), "{page}");
    assert!(page.contains("read-pending-async"), "the findings are still there");
    // Not a campaign: refused, and nothing written into it.
    let other = scratch.path().join("other");
    std::fs::create_dir(&other).expect("mkdir");
    let out = tirproof(&["report", &other.display().to_string()]);
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("is not a campaign directory"), "{}", stderr(&out));
    assert_eq!(std::fs::read_dir(&other).expect("list").count(), 0);
}

/// The headless browser: `TIRPROOF_CHROMIUM`, `chromium` on the path, or the one
/// `scripts/chromium.sh` unpacked into third_party/chromium.
fn chromium() -> Result<PathBuf, String> {
    if let Some(path) = std::env::var_os("TIRPROOF_CHROMIUM") {
        return Ok(PathBuf::from(path));
    }
    let unpacked = Path::new(env!("CARGO_MANIFEST_DIR")).join("third_party/chromium/chromium");
    let on_path = std::env::var_os("PATH")
        .into_iter()
        .flat_map(|paths| std::env::split_paths(&paths).collect::<Vec<_>>())
        .flat_map(|dir| ["chromium", "chromium-browser"].map(|name| dir.join(name)))
        .chain([unpacked])
        .find(|path| path.is_file());
    on_path.ok_or_else(|| "no Chromium (install it with scripts/chromium.sh, or set TIRPROOF_CHROMIUM)".to_string())
}

fn headless(browser: &Path, args: &[&str]) -> Output {
    let common = ["--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars", "--no-first-run"];
    Command::new(browser).args(common).args(args).output().expect("the browser runs")
}

#[test]
fn the_page_renders_in_a_headless_browser() {
    let browser = match chromium() {
        Ok(browser) => browser,
        Err(why) => {
            eprintln!("skipped: {why}");
            return;
        }
    };
    let scratch = scratch();
    let dir = scratch.path().join("campaign");
    campaign(&dir);
    let url = format!("file://{}", dir.join("page/index.html").display());
    let shot = scratch.path().join("page.png");
    let out = headless(&browser, &[&format!("--screenshot={}", shot.display()), "--window-size=1000,1400", &url]);
    assert!(shot.is_file(), "no screenshot: {}", stderr(&out));
    let decoder = png::Decoder::new(std::fs::File::open(&shot).expect("the screenshot opens"));
    let mut reader = decoder.read_info().expect("a PNG");
    let mut pixels = vec![0; reader.output_buffer_size()];
    let frame = reader.next_frame(&mut pixels).expect("its pixels");
    assert_eq!((frame.width, frame.height), (1000, 1400));
    let pixels = &pixels[..frame.buffer_size()];
    let stride = frame.color_type.samples();
    let white = pixels.chunks(stride).filter(|p| p[..3] == [255, 255, 255]).count();
    let total = pixels.len() / stride;
    // Text, tables and the plot's line cover a part of the page, not none of it.
    assert!(white < total * 99 / 100, "the screenshot is blank: {white} of {total} pixels white");
    let blue = pixels.chunks(stride).filter(|p| p[2] > 200 && p[0] < 80 && p[1] < 80).count();
    assert!(blue > 50, "the plot's line is not on the screenshot ({blue} blue pixels)");
    let dom = headless(&browser, &["--dump-dom", &url]);
    let dom = stdout(&dom);
    assert!(dom.contains("<svg") && dom.contains("programs per second"), "the DOM lacks the plot");
    assert!(dom.contains("read-pending-async"), "the DOM lacks the finding");
}
