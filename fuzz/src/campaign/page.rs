//! A campaign directory as one self-contained HTML page, `page/index.html` in it: the rate
//! of programs over time (from the progress log, [`super::progress`]), outcomes per oracle and
//! per generator, skips and undecided verdicts by reason, and the findings in the order they
//! were found, each with its minimized program and a link to its report.
//!
//! Invariants: the page fetches nothing when viewed (no script, style sheet, font or image
//! from elsewhere: the plot is inline SVG drawn by plotters, the style inline); it is written
//! through [`crate::publish`] into its own folder, so a kill leaves the page before or after;
//! a directory without `campaign.json` is refused ([`PageError::NotACampaign`]); a campaign
//! of an earlier version (no progress log) gets a page without the plot, which says why.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::io;
use std::path::{Path, PathBuf};

use plotters::prelude::*;

use super::progress::{self, ProgressPoint, PROGRESS_LOG};
use super::{CampaignState, OracleCounts, Summary};
use crate::publish::{publish, Layout, PublishError};

/// The page's folder in a campaign directory, and its one file.
pub const PAGE_DIR: &str = "page";
pub const PAGE_FILE: &str = "index.html";

const LAYOUT: Layout = Layout { what: "a campaign's page", owns: |name| name == PAGE_FILE };

/// Why a page was not written.
#[derive(Debug, thiserror::Error)]
pub enum PageError {
    #[error("{dir} is not a campaign directory ({why}); name the directory given to `tirproof fuzz --out`")]
    NotACampaign { dir: PathBuf, why: String },
    #[error("{path}: {error}")]
    Io { path: PathBuf, error: io::Error },
    #[error(transparent)]
    Publish(#[from] PublishError),
}

/// Renders the campaign in `dir` and writes its page; the page's path.
pub fn write_page(dir: &Path) -> Result<PathBuf, PageError> {
    let html = render(dir)?;
    let folder = dir.join(PAGE_DIR);
    publish(&folder, LAYOUT, [(PAGE_FILE, html.as_bytes())])?;
    Ok(folder.join(PAGE_FILE))
}

/// The page of the campaign in `dir`.
pub fn render(dir: &Path) -> Result<String, PageError> {
    let state_path = dir.join("campaign.json");
    let state: CampaignState = match std::fs::read_to_string(&state_path) {
        Ok(text) => serde_json::from_str(&text)
            .map_err(|e| PageError::NotACampaign { dir: dir.to_path_buf(), why: format!("campaign.json: {e}") })?,
        Err(e) if matches!(e.kind(), io::ErrorKind::NotFound | io::ErrorKind::NotADirectory) => {
            let why = "it has no campaign.json".to_string();
            return Err(PageError::NotACampaign { dir: dir.to_path_buf(), why });
        }
        Err(error) => return Err(PageError::Io { path: state_path, error }),
    };
    let points = progress::read(dir).map_err(|error| PageError::Io { path: dir.join(PROGRESS_LOG), error })?;
    let summary = match &points {
        Some(points) if !points.is_empty() => Some(merged(points)),
        _ => read_summary(dir),
    };
    let findings = read_findings(dir);
    let mut page = String::new();
    head(&mut page, &state);
    match points.as_deref() {
        Some(points) if points.len() >= 2 => {
            page.push_str("<h2>Programs per second</h2>\n");
            page.push_str(&rate_plot(points));
        }
        Some(_) => page.push_str(
            "<h2>Programs per second</h2>\n<p class=\"note\">Not enough progress points yet to draw the rate.</p>\n",
        ),
        None => page.push_str(
            "<h2>Programs per second</h2>\n<p class=\"note\">This campaign has no progress log \
             (it was run by an earlier version of tirproof), so its rate over time is not drawn.</p>\n",
        ),
    }
    match &summary {
        Some(summary) => outcomes(&mut page, summary),
        None => page.push_str("<p class=\"note\">No summary yet: the campaign has not reached a progress point.</p>\n"),
    }
    findings_section(&mut page, &findings);
    page.push_str("</body>\n</html>\n");
    Ok(page)
}

/// The summaries of every run in `points` added up: a run's last point counts (a run starts
/// where its seconds go back).
fn merged(points: &[ProgressPoint]) -> Summary {
    let mut total = Summary::default();
    for (at, point) in points.iter().enumerate() {
        let last_of_run = points.get(at + 1).is_none_or(|next| next.summary.seconds < point.summary.seconds);
        if !last_of_run {
            continue;
        }
        let run = &point.summary;
        total.seed = run.seed;
        total.programs += run.programs;
        total.seconds += run.seconds;
        total.end = run.end;
        for (oracle, counts) in &run.oracles {
            add_counts(total.oracles.entry(oracle.clone()).or_default(), counts);
        }
        add_map(&mut total.generators, &run.generators);
        add_map(&mut total.signatures, &run.signatures);
    }
    total
}

fn add_counts(total: &mut OracleCounts, counts: &OracleCounts) {
    total.pass += counts.pass;
    total.skip += counts.skip;
    total.fail += counts.fail;
    total.undecided += counts.undecided;
    add_map(&mut total.skips, &counts.skips);
    add_map(&mut total.undecided_reasons, &counts.undecided_reasons);
}

fn add_map(total: &mut BTreeMap<String, u64>, more: &BTreeMap<String, u64>) {
    for (key, n) in more {
        *total.entry(key.clone()).or_default() += n;
    }
}

/// `summary.json` of a campaign without a progress log, if it has one.
fn read_summary(dir: &Path) -> Option<Summary> {
    serde_json::from_str(&std::fs::read_to_string(dir.join("summary.json")).ok()?).ok()
}

/// One finding as its report says it.
struct Found {
    /// Its folder's name under `findings/`.
    name: String,
    signature: String,
    message: String,
    program: Option<u64>,
    minimization: String,
    minimized: Option<String>,
}

/// The findings under `dir/findings`, in the order they were found (by the program that
/// showed them); a folder without a readable report is left out.
fn read_findings(dir: &Path) -> Vec<Found> {
    let Ok(entries) = std::fs::read_dir(dir.join("findings")) else { return Vec::new() };
    let mut found: Vec<Found> = entries
        .filter_map(Result::ok)
        .filter(|e| !e.file_name().to_string_lossy().starts_with('.'))
        .filter_map(|entry| {
            let path = entry.path();
            let report: serde_json::Value =
                serde_json::from_str(&std::fs::read_to_string(path.join("report.json")).ok()?).ok()?;
            let text = |key: &str| report[key].as_str().unwrap_or_default().to_string();
            let signature = &report["signature"];
            Some(Found {
                name: entry.file_name().to_string_lossy().into_owned(),
                signature: format!(
                    "{}/{}",
                    signature["oracle"].as_str().unwrap_or("?"),
                    signature["class"].as_str().unwrap_or("?")
                ),
                message: text("message"),
                program: report["program"].as_u64(),
                minimization: text("minimization"),
                minimized: std::fs::read_to_string(path.join("minimized.py")).ok(),
            })
        })
        .collect();
    found.sort_by(|a, b| (a.program.is_none(), a.program, &a.name).cmp(&(b.program.is_none(), b.program, &b.name)));
    found
}

/// The text with `&`, `<`, `>` and `"` escaped for HTML.
fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            c => out.push(c),
        }
    }
    out
}

fn head(page: &mut String, state: &CampaignState) {
    let _ = write!(
        page,
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n\
         <title>tirproof campaign, seed {seed}</title>\n<style>\n\
         body {{ font-family: sans-serif; margin: 2em; color: #222; }}\n\
         table {{ border-collapse: collapse; margin: 0.5em 0 1.5em; }}\n\
         th, td {{ border: 1px solid #ccc; padding: 0.2em 0.6em; text-align: right; }}\n\
         th:first-child, td:first-child {{ text-align: left; }}\n\
         pre {{ background: #f4f4f4; padding: 0.6em; overflow-x: auto; }}\n\
         .note {{ color: #666; font-style: italic; }}\n\
         </style>\n</head>\n<body>\n<h1>tirproof campaign, seed {seed}</h1>\n\
         <p>Programs below {done} are done.</p>\n",
        seed = state.seed,
        done = state.done_below,
    );
}

/// The rate of each interval between two points of one run, against minutes since the first.
fn rate_plot(points: &[ProgressPoint]) -> String {
    let start = points[0].unix_seconds;
    let series: Vec<(f64, f64)> = points
        .windows(2)
        .filter(|pair| pair[1].summary.seconds > pair[0].summary.seconds)
        .map(|pair| {
            let (a, b) = (&pair[0].summary, &pair[1].summary);
            let rate = b.programs.saturating_sub(a.programs) as f64 / (b.seconds - a.seconds);
            ((pair[1].unix_seconds - start) / 60.0, rate)
        })
        .collect();
    let mut svg = String::new();
    let drawn = draw_rate(&mut svg, &series);
    match drawn {
        Ok(()) => format!("<div class=\"plot\">{svg}</div>\n"),
        Err(e) => format!("<p class=\"note\">The plot could not be drawn: {}</p>\n", escape(&e)),
    }
}

fn draw_rate(svg: &mut String, series: &[(f64, f64)]) -> Result<(), String> {
    let x_end = series.iter().map(|p| p.0).fold(0.0_f64, f64::max).max(1.0 / 60.0);
    let y_end = series.iter().map(|p| p.1).fold(0.0_f64, f64::max).max(1.0) * 1.1;
    let root = SVGBackend::with_string(svg, (800, 320)).into_drawing_area();
    root.fill(&WHITE).map_err(|e| e.to_string())?;
    let mut chart = ChartBuilder::on(&root)
        .margin(12)
        .x_label_area_size(36)
        .y_label_area_size(56)
        .build_cartesian_2d(0.0..x_end, 0.0..y_end)
        .map_err(|e| e.to_string())?;
    chart.configure_mesh().x_desc("minutes").y_desc("programs per second").draw().map_err(|e| e.to_string())?;
    chart.draw_series(LineSeries::new(series.iter().copied(), &BLUE)).map_err(|e| e.to_string())?;
    chart.draw_series(series.iter().map(|&p| Circle::new(p, 3, BLUE.filled()))).map_err(|e| e.to_string())?;
    root.present().map_err(|e| e.to_string())
}

fn outcomes(page: &mut String, summary: &Summary) {
    let _ = writeln!(page, "<p>{} programs in {:.0} s.</p>", summary.programs, summary.seconds);
    page.push_str("<h2>Outcomes per oracle</h2>\n<table>\n<tr><th>oracle</th><th>pass</th><th>skip</th><th>fail</th><th>undecided</th></tr>\n");
    for (oracle, c) in &summary.oracles {
        let _ = writeln!(
            page,
            "<tr><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>",
            escape(oracle),
            c.pass,
            c.skip,
            c.fail,
            c.undecided
        );
    }
    page.push_str("</table>\n<h2>Programs per generator</h2>\n<table>\n<tr><th>generator</th><th>programs</th></tr>\n");
    for (generator, n) in &summary.generators {
        let _ = writeln!(page, "<tr><td>{}</td><td>{n}</td></tr>", escape(generator));
    }
    page.push_str("</table>\n");
    reasons(page, "Skips by reason", summary, |c| &c.skips);
    reasons(page, "Undecided verdicts by reason", summary, |c| &c.undecided_reasons);
}

/// A table of (oracle, reason, count) rows of the map `of` each oracle's counts.
fn reasons(page: &mut String, title: &str, summary: &Summary, of: fn(&OracleCounts) -> &BTreeMap<String, u64>) {
    let _ = writeln!(page, "<h2>{title}</h2>");
    let rows: Vec<(&String, &String, &u64)> = summary
        .oracles
        .iter()
        .flat_map(|(oracle, c)| of(c).iter().map(move |(reason, n)| (oracle, reason, n)))
        .collect();
    if rows.is_empty() {
        page.push_str("<p class=\"note\">None.</p>\n");
        return;
    }
    page.push_str("<table>\n<tr><th>oracle</th><th>reason</th><th>programs</th></tr>\n");
    for (oracle, reason, n) in rows {
        let _ = writeln!(page, "<tr><td>{}</td><td>{}</td><td>{n}</td></tr>", escape(oracle), escape(reason));
    }
    page.push_str("</table>\n");
}

fn findings_section(page: &mut String, findings: &[Found]) {
    let _ = writeln!(page, "<h2>Findings ({})</h2>", findings.len());
    if findings.is_empty() {
        page.push_str("<p class=\"note\">No findings.</p>\n");
    }
    for (number, found) in findings.iter().enumerate() {
        let program = found.program.map_or_else(|| "unknown program".to_string(), |p| format!("program {p}"));
        let _ = write!(
            page,
            "<div class=\"finding\">\n<h3>{}. <code>{}</code></h3>\n<p>Found by {program}; minimization {}. \
             <a href=\"../findings/{name}/REPORT.md\">report</a></p>\n<p>{}</p>\n",
            number + 1,
            escape(&found.signature),
            escape(&found.minimization),
            escape(&found.message),
            name = escape(&found.name),
        );
        match &found.minimized {
            Some(text) => {
                let _ = writeln!(page, "<pre>{}</pre>", escape(text));
            }
            None => page.push_str("<p class=\"note\">No minimized program.</p>\n"),
        }
        page.push_str("</div>\n");
    }
}
