//! Fuzzing campaigns: many generated programs through the oracle chain on several threads;
//! findings deduplicated by signature, each reported as soon as it is found, then minimized.
//!
//! In the default mix, one program in [`ASYNC_ONE_IN`] is an arbitrary async program (for the
//! `verify` oracle) or, for every other one of those (one in [`TOKENS_ONE_IN`]), a token
//! program (for the `schedules`, `verify` and `token-lowering` oracles); the others are pipeline pass inputs (and,
//! mixed, invalid or mutated ones). A campaign may instead name its generators
//! ([`CampaignConfig::generators`]): program `i` then comes from the `i % len`-th of them.
//!
//! Program `i` of a campaign with seed `s` is generated from bytes drawn from a ChaCha stream
//! keyed by `(s, i)`, so any program can be regenerated from its origin line. The output
//! directory holds `campaign.json` (the seed and the index below which every program is done,
//! rewritten atomically) and `findings/<signature>/` (a report per signature, see
//! [`crate::report`]). Starting a campaign on an existing directory resumes it: same seed,
//! from the recorded index, with the signatures already reported counted as known.
//!
//! A finding is written (unminimized, its minimization "in progress") before it is announced,
//! and rewritten when minimized, both crash-consistently (see [`crate::report`]), so a campaign
//! killed at any moment loses no finding it has printed; a resumed campaign minimizes again
//! every finding whose minimization did not end, before it runs new programs.
//!
//! A campaign ends at its deadline (`duration`) or when its stop flag is set (Ctrl-C): no new
//! program starts, and the running Z3 checks and minimizations stop within a few seconds (the
//! programs they cut are left for a resumed campaign, the minimizations stay "in progress").

mod lock;
pub mod page;
pub mod progress;
mod state;

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use arbitrary::Unstructured;
use rand::{RngCore, SeedableRng};
use rand_chacha::ChaCha8Rng;
use tirproof_ir::IRModule;

use crate::cutoff::Cutoff;
use crate::gen::{
    async_program, invalid_annotation_program, mutated_text, pipeline_program, token_program, AsyncGenConfig,
    GenConfig, TokenGenConfig,
};
use crate::oracle::{
    parse_text, Chain, ChainConfig, ChainResult, Failure, InputMode, OracleName, Outcome, PassVariant, Signature,
    SkipReason,
};
use crate::reduce::{reduce_until, Minimization, ReduceConfig, ReduceError, Reduction, Size};
use crate::report::{write_finding, write_text_report, ReportContext};

pub use lock::{CampaignLock, Owner};
pub use state::{CampaignError, CampaignState, Damaged, FindingOptions, Findings, Unfinished};

/// Bytes of generator input per program.
const BYTES_PER_PROGRAM: usize = 512;
/// Program `i` is an arbitrary async program when `i % ASYNC_ONE_IN == ASYNC_ONE_IN - 1`.
pub const ASYNC_ONE_IN: u64 = 4;
/// In the default mix, program `i` is a token program when `i % TOKENS_ONE_IN == TOKENS_AT`:
/// every other index of an async program, so that the pass inputs of a seed stay the ones it
/// always gave.
pub const TOKENS_ONE_IN: u64 = 8;
const TOKENS_AT: u64 = 7;

#[derive(Clone, Debug)]
pub struct CampaignConfig {
    pub out: PathBuf,
    pub seed: u64,
    pub jobs: usize,
    /// Stop starting programs after this long (`None`: only `max_programs` stops it).
    pub duration: Option<Duration>,
    /// Stop after this many programs in total (counting those of earlier runs).
    pub max_programs: Option<u64>,
    pub chain: ChainConfig,
    pub gen: GenConfig,
    /// Time budget of each minimization.
    pub reduce_budget: Duration,
    /// Time budget of each program's oracles; a program that runs out of it counts its stopped
    /// oracles as skips. At the end of the campaign (`duration`), the programs still running
    /// are stopped too, and left for a resumed campaign to run again.
    pub program_budget: Duration,
    /// Also programs with invalid annotations and mutated text (one in ten each).
    pub mixed: bool,
    /// The generators to draw programs from, in turn; empty: the default mix (see the module
    /// documentation).
    pub generators: Vec<Generator>,
    /// Set from outside (Ctrl-C) to end the campaign as its deadline would.
    pub stop: Option<Arc<AtomicBool>>,
    /// How often a progress point is made: appended to the progress log, the page rewritten,
    /// [`Event::Progress`] sent (`Duration::MAX`: only at the end).
    pub progress_every: Duration,
}

/// What a campaign tells its observer (the CLI's progress bar).
#[derive(Clone, Debug)]
pub enum Event {
    /// A program went through the chain.
    Program { index: u64, failed: bool },
    /// A progress point: the summary of this run so far (also in the progress log and the page).
    Progress { summary: Summary },
    /// A new signature, written (unminimized) to `dir`.
    Finding { signature: Signature, dir: PathBuf, origin: String },
    /// A finding was minimized and its report rewritten.
    Minimized { signature: Signature, dir: PathBuf, before: Size, after: Size, seconds: f64 },
    /// A finding could not be written or minimized.
    Problem { message: String },
    /// The campaign took over the lock of a campaign that was killed (see [`CampaignLock`]).
    StaleLock { owner: Owner },
    /// The campaign's end is [`GRACE`] past and these programs still run (in a step that no
    /// deadline reaches); the state is saved with them not done, and `summary` is final but
    /// for them. The observer may end the process.
    Overdue { summary: Summary, running: Vec<u64> },
}

/// Pass, skip and fail counts per oracle.
#[derive(Clone, Debug, Default, serde::Serialize, serde::Deserialize)]
pub struct OracleCounts {
    pub pass: u64,
    pub skip: u64,
    pub fail: u64,
    /// Of the skips, those where the verifier did not decide an arbitrary program.
    pub undecided: u64,
    /// The skips by the kind of their reason ([`SkipReason::kind`]).
    pub skips: BTreeMap<String, u64>,
    /// The undecided verdicts by the kind of their reason ([`UndecidedKind::name`]; absent
    /// from the summaries of earlier versions).
    #[serde(default)]
    pub undecided_reasons: BTreeMap<String, u64>,
}

#[derive(Clone, Debug, Default, serde::Serialize, serde::Deserialize)]
pub struct Summary {
    pub seed: u64,
    /// Programs run by this invocation.
    pub programs: u64,
    /// The index this invocation started at (above 0 when resumed).
    pub resumed_at: u64,
    pub seconds: f64,
    pub oracles: BTreeMap<String, OracleCounts>,
    /// Programs per generator.
    pub generators: BTreeMap<String, u64>,
    /// Every signature seen, with how many programs showed it in this invocation.
    pub signatures: BTreeMap<String, u64>,
    /// Signatures first reported by this invocation.
    pub new_findings: Vec<String>,
    /// Why the campaign ended.
    pub end: CampaignEnd,
    /// Findings whose minimization is still to finish (a resumed campaign finishes it).
    pub unfinished_minimizations: Vec<String>,
}

/// Why a campaign ended.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum CampaignEnd {
    /// It ran the programs it was asked for.
    #[default]
    Finished,
    /// Its time (`duration`) ran out.
    TimeUp,
    /// Its stop flag was set (Ctrl-C).
    Stopped,
}

impl std::fmt::Display for CampaignEnd {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            CampaignEnd::Finished => "finished",
            CampaignEnd::TimeUp => "time up",
            CampaignEnd::Stopped => "stopped",
        })
    }
}

/// The pipeline pass input of campaign `seed` at `index` (what the index gives when it is not
/// one of the async programs).
pub fn program(seed: u64, index: u64, gen: &GenConfig) -> IRModule {
    match pass_input(seed, index, gen) {
        Input::Module(module, _) => module,
        Input::Text(_) => IRModule { class_name: None, functions: Vec::new() },
    }
}

/// The program of campaign `seed` at `index`: an async program for one index in
/// [`ASYNC_ONE_IN`], otherwise a pass input.
fn generated(seed: u64, index: u64, gen: &GenConfig) -> Input {
    if index % TOKENS_ONE_IN == TOKENS_AT {
        return tokens_input(seed, index);
    }
    if index % ASYNC_ONE_IN != ASYNC_ONE_IN - 1 {
        return pass_input(seed, index, gen);
    }
    async_input(seed, index)
}

/// The arbitrary async program of campaign `seed` at `index`.
fn async_input(seed: u64, index: u64) -> Input {
    let bytes = program_bytes(seed, index);
    match async_program(&mut Unstructured::new(&bytes), &AsyncGenConfig::default()) {
        Ok((module, _)) => Input::Module(located(module), InputMode::AsyncProgram),
        Err(_) => Input::Module(IRModule { class_name: None, functions: Vec::new() }, InputMode::AsyncProgram),
    }
}

/// The token program of campaign `seed` at `index`.
fn tokens_input(seed: u64, index: u64) -> Input {
    let bytes = program_bytes(seed, index);
    match token_program(&mut Unstructured::new(&bytes), &TokenGenConfig::default()) {
        Ok((module, _)) => Input::Module(located(module), InputMode::TokenProgram),
        Err(_) => Input::Module(IRModule { class_name: None, functions: Vec::new() }, InputMode::TokenProgram),
    }
}

/// The pass input of campaign `seed` at `index`, valid unless it is one the pass may refuse.
fn pass_input(seed: u64, index: u64, gen: &GenConfig) -> Input {
    let bytes = program_bytes(seed, index);
    // The generator succeeds on any bytes (running out picks the smallest choices).
    match pipeline_program(&mut Unstructured::new(&bytes), gen) {
        Ok((module, shape)) if shape.may_be_refused() => Input::Module(located(module), InputMode::Unknown),
        Ok((module, _)) => Input::Module(located(module), InputMode::Valid),
        Err(_) => Input::Module(IRModule { class_name: None, functions: Vec::new() }, InputMode::Valid),
    }
}

/// A campaign's input: a module and what it is known to be, or text for the parser.
#[derive(Clone, Debug)]
pub enum Input {
    Module(IRModule, InputMode),
    Text(String),
}

/// Which generator made a campaign's input.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Generator {
    /// Pipeline pass inputs (`pipeline_program`).
    Pipeline,
    /// Pass inputs with invalid annotations.
    InvalidAnnotations,
    /// Mutated text of a pass input.
    MutatedText,
    /// Arbitrary async programs (`async_program`).
    AsyncProgram,
    /// Token programs (`token_program`).
    Tokens,
}

impl Generator {
    pub const ALL: [Generator; 5] = [
        Generator::Pipeline,
        Generator::InvalidAnnotations,
        Generator::MutatedText,
        Generator::AsyncProgram,
        Generator::Tokens,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Generator::Pipeline => "pipeline",
            Generator::InvalidAnnotations => "invalid-annotations",
            Generator::MutatedText => "mutated-text",
            Generator::AsyncProgram => "async-program",
            Generator::Tokens => "tokens",
        }
    }
}

/// A generator name that is not one of [`Generator::ALL`].
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("unknown generator `{0}` (expected one of: {known})", known = Generator::ALL.map(Generator::name).join(", "))]
pub struct UnknownGenerator(pub String);

impl std::str::FromStr for Generator {
    type Err = UnknownGenerator;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Generator::ALL.into_iter().find(|g| g.name() == s).ok_or_else(|| UnknownGenerator(s.to_string()))
    }
}

impl std::fmt::Display for Generator {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

impl Input {
    /// The generator that made this input.
    pub fn generator(&self) -> Generator {
        match self {
            Input::Module(_, InputMode::AsyncProgram) => Generator::AsyncProgram,
            Input::Module(_, InputMode::TokenProgram) => Generator::Tokens,
            Input::Module(_, InputMode::InvalidAnnotations) => Generator::InvalidAnnotations,
            Input::Module(..) => Generator::Pipeline,
            Input::Text(_) => Generator::MutatedText,
        }
    }
}

/// Input `index` of campaign `seed` in the default mix: with `mixed`, one in ten has invalid
/// annotations and one in ten is mutated text; the rest are valid programs.
pub fn input(seed: u64, index: u64, gen: &GenConfig, mixed: bool) -> Input {
    match index % 10 {
        7 if mixed => invalid_input(seed, index, gen),
        9 if mixed => text_input(seed, index, gen),
        _ => generated(seed, index, gen),
    }
}

/// Input `index` of campaign `seed` from `generators` in turn (the default mix, [`input`],
/// when there are none).
pub fn input_from(seed: u64, index: u64, gen: &GenConfig, mixed: bool, generators: &[Generator]) -> Input {
    if generators.is_empty() {
        return input(seed, index, gen, mixed);
    }
    let at = usize::try_from(index % generators.len() as u64).unwrap_or(0);
    match generators[at] {
        Generator::Pipeline => pass_input(seed, index, gen),
        Generator::InvalidAnnotations => invalid_input(seed, index, gen),
        Generator::MutatedText => text_input(seed, index, gen),
        Generator::AsyncProgram => async_input(seed, index),
        Generator::Tokens => tokens_input(seed, index),
    }
}

/// A program with invalid annotations (a valid one when the bytes make none).
fn invalid_input(seed: u64, index: u64, gen: &GenConfig) -> Input {
    let bytes = program_bytes(seed, index);
    match invalid_annotation_program(&mut Unstructured::new(&bytes)) {
        Ok((module, _)) => Input::Module(module, InputMode::InvalidAnnotations),
        Err(_) => generated(seed, index, gen),
    }
}

/// The mutated text of a pass input.
fn text_input(seed: u64, index: u64, gen: &GenConfig) -> Input {
    let bytes = program_bytes(seed, index);
    let base = tirproof_ir::print::print_module(&program(seed, index, gen));
    Input::Text(mutated_text(&mut Unstructured::new(&bytes), &base).unwrap_or(base))
}

/// `module` read back from its text, so that the pass's refusals, faults and refutations point
/// at lines of the text a report prints (a generated statement has no location, and an
/// unlocated refusal is a failure).
fn located(module: IRModule) -> IRModule {
    match parse_text(&tirproof_ir::print::print_module(&module)) {
        Ok(Some(parsed)) => parsed,
        _ => module,
    }
}

pub fn program_bytes(seed: u64, index: u64) -> Vec<u8> {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    rng.set_stream(index);
    let mut bytes = vec![0u8; BYTES_PER_PROGRAM];
    rng.fill_bytes(&mut bytes);
    bytes
}

/// Where program `index` of campaign `seed` came from, for reports.
pub fn origin(seed: u64, index: u64) -> String {
    format!("tirproof fuzz campaign seed {seed}, program {index}")
}

/// Runs a campaign (see the module documentation), calling `observe` from worker threads.
pub fn run_campaign(config: &CampaignConfig, observe: &(dyn Fn(Event) + Sync)) -> Result<Summary, CampaignError> {
    let (lock, stale) = CampaignLock::take(&config.out)?;
    if let Some(owner) = stale {
        observe(Event::StaleLock { owner });
    }
    let options = FindingOptions::of(config);
    let (mut state, found) = CampaignState::open(&config.out, config.seed, &options)?;
    for Damaged { report, reason, moved_to } in &found.damaged {
        let message = format!(
            "{} is damaged ({reason}): its finding is set aside in {}, and reported again if found again",
            report.display(),
            moved_to.display()
        );
        observe(Event::Problem { message });
    }
    let start_index = state.done_below;
    let shared = Shared {
        config,
        observe,
        next: AtomicU64::new(start_index),
        in_flight: Mutex::new(BTreeSet::new()),
        cut: Mutex::new(BTreeSet::new()),
        known: Mutex::new(found.known),
        unfinished: Mutex::new(found.unfinished.into_iter().rev().collect()),
        still_unfinished: Mutex::new(BTreeSet::new()),
        summary: Mutex::new(Summary { seed: config.seed, resumed_at: start_index, ..Summary::default() }),
        enough: AtomicBool::new(false),
        abandoned: AtomicBool::new(false),
        cutoff: Cutoff { deadline: config.duration.map(|d| Instant::now() + d), stop: config.stop.clone() },
        state_lock: Mutex::new(()),
        lock: &lock,
    };
    let began = Instant::now();
    let jobs = config.jobs.max(1);
    let not_started = std::thread::scope(|scope| {
        let mut workers = Vec::with_capacity(jobs);
        let mut not_started = None;
        for _ in 0..jobs {
            match std::thread::Builder::new().spawn_scoped(scope, || shared.work()) {
                Ok(worker) => workers.push(worker),
                Err(source) => {
                    // The workers already running stop after their program; the campaign
                    // ends with an error rather than running short of what was asked.
                    shared.abandoned.store(true, Ordering::SeqCst);
                    not_started = Some(CampaignError::Threads { started: workers.len(), jobs, source });
                    break;
                }
            }
        }
        shared.watch_the_end(&workers, began);
        not_started
    });
    state.done_below = shared.done_below();
    state.save(&config.out)?;
    shared.progress_point(shared.summary(began), false);
    match not_started {
        Some(error) => Err(error),
        None => Ok(shared.summary(began)),
    }
}

/// How long the workers get to finish after the campaign's end before the campaign reports
/// itself overdue (a step that no deadline reaches, such as a long encoding, holds them).
pub const GRACE: Duration = Duration::from_secs(3);

struct Shared<'a> {
    config: &'a CampaignConfig,
    observe: &'a (dyn Fn(Event) + Sync),
    next: AtomicU64,
    in_flight: Mutex<BTreeSet<u64>>,
    /// Programs the end of the campaign stopped before they were done.
    cut: Mutex<BTreeSet<u64>>,
    known: Mutex<BTreeSet<Signature>>,
    /// Findings of earlier runs still to minimize (the next one last).
    unfinished: Mutex<Vec<Unfinished>>,
    /// Findings whose minimization this run did not finish either.
    still_unfinished: Mutex<BTreeSet<String>>,
    summary: Mutex<Summary>,
    /// The programs asked for are all claimed.
    enough: AtomicBool,
    /// Not every worker could be started: the campaign ends after the running programs.
    abandoned: AtomicBool,
    /// The campaign's deadline and stop flag.
    cutoff: Cutoff,
    state_lock: Mutex<()>,
    /// The campaign directory's lock, released before the observer may end the process.
    lock: &'a CampaignLock,
}

impl Shared<'_> {
    /// Waits for `workers`; once the campaign's end is `GRACE` past and some still run, saves
    /// the state (their programs not done) and tells the observer, which may end the process
    /// (every report on disk is complete at any moment).
    fn watch_the_end(&self, workers: &[std::thread::ScopedJoinHandle<'_, ()>], began: Instant) {
        let mut ended_at = None;
        let mut last_point = began;
        while !workers.iter().all(|w| w.is_finished()) {
            std::thread::sleep(Duration::from_millis(50));
            if last_point.elapsed() >= self.config.progress_every {
                last_point = Instant::now();
                self.progress_point(self.summary(began), true);
            }
            if !self.cutoff.reached() {
                continue;
            }
            let ended = *ended_at.get_or_insert_with(Instant::now);
            if ended.elapsed() >= GRACE {
                if let Err(e) = self.state(self.done_below()).save(&self.config.out) {
                    (self.observe)(Event::Problem { message: e.to_string() });
                }
                if let Err(e) = self.lock.release() {
                    (self.observe)(Event::Problem { message: format!("cannot release the campaign's lock: {e}") });
                }
                let running = lock(&self.in_flight).iter().copied().collect();
                (self.observe)(Event::Overdue { summary: self.summary(began), running });
                return;
            }
        }
    }

    /// Appends `summary` to the progress log and rewrites the page; tells the observer when
    /// `announce` (the end's point is the final summary's, which the caller prints).
    fn progress_point(&self, summary: Summary, announce: bool) {
        let out = &self.config.out;
        if let Err(e) = progress::record(out, &progress::ProgressPoint::now(summary.clone())) {
            let message = format!("cannot append to {}: {e}", out.join(progress::PROGRESS_LOG).display());
            (self.observe)(Event::Problem { message });
        }
        if let Err(e) = page::write_page(out) {
            (self.observe)(Event::Problem { message: format!("cannot write the campaign's page: {e}") });
        }
        if announce {
            (self.observe)(Event::Progress { summary });
        }
    }

    /// The index below which every program is done: not one still running, nor one the end
    /// of the campaign cut short.
    fn done_below(&self) -> u64 {
        let first_cut = lock(&self.cut).first().copied().unwrap_or(u64::MAX);
        let first_running = lock(&self.in_flight).first().copied().unwrap_or(u64::MAX);
        let claimed = self.next.load(Ordering::SeqCst).min(self.config.max_programs.unwrap_or(u64::MAX));
        claimed.min(first_cut).min(first_running)
    }

    /// The summary so far.
    fn summary(&self, began: Instant) -> Summary {
        let mut summary = lock(&self.summary).clone();
        summary.seconds = began.elapsed().as_secs_f64();
        summary.end = if self.cutoff.stopped() {
            CampaignEnd::Stopped
        } else if self.cutoff.reached() {
            CampaignEnd::TimeUp
        } else {
            CampaignEnd::Finished
        };
        let pending: Vec<String> = lock(&self.unfinished).iter().map(|u| u.signature.to_string()).collect();
        let left = lock(&self.still_unfinished).clone();
        summary.unfinished_minimizations =
            left.into_iter().chain(pending).collect::<BTreeSet<_>>().into_iter().collect();
        summary
    }

    fn work(&self) {
        while let Some(unfinished) = self.claim_unfinished() {
            self.minimize_again(&unfinished);
        }
        while let Some(index) = self.claim() {
            let input = self.input(index);
            *lock(&self.summary).generators.entry(input.generator().name().to_string()).or_default() += 1;
            match input {
                Input::Module(module, mode) => self.run_module(index, &module, mode),
                Input::Text(text) => self.run_text(index, &text),
            }
            self.finish(index);
        }
    }

    /// The campaign's program `index`.
    fn input(&self, index: u64) -> Input {
        let config = self.config;
        input_from(config.seed, index, &config.gen, config.mixed, &config.generators)
    }

    fn run_module(&self, index: u64, module: &IRModule, mode: InputMode) {
        let chain = ChainConfig { seed: index, mode, ..self.config.chain.clone() };
        let own = Instant::now() + self.config.program_budget;
        let result = Chain { config: &chain }.run_cut(module, &self.cutoff.until(own));
        if result.stopped() && self.cutoff.reached() {
            // Cut short by the end of the campaign, not by its own budget: not done.
            lock(&self.cut).insert(index);
        }
        self.record(&result);
        let failed = result.failure().is_some();
        (self.observe)(Event::Program { index, failed });
        if let Some(failure) = result.failure() {
            self.handle_failure(index, module, &chain, &result, failure);
        }
    }

    /// The next finding of an earlier run to minimize again, unless the campaign is over.
    fn claim_unfinished(&self) -> Option<Unfinished> {
        if self.cutoff.reached() || self.abandoned.load(Ordering::SeqCst) {
            return None;
        }
        lock(&self.unfinished).pop()
    }

    /// Minimizes again a finding whose minimization an earlier run did not finish, from its
    /// program regenerated.
    fn minimize_again(&self, unfinished: &Unfinished) {
        let Unfinished { signature, dir, program, .. } = unfinished;
        let (module, mode) = match self.input(*program) {
            Input::Module(module, mode) => (module, mode),
            Input::Text(text) => match parse_text(&text) {
                Ok(Some(module)) => (module, InputMode::Unknown),
                _ => return,
            },
        };
        let chain = ChainConfig { seed: *program, mode, ..self.config.chain.clone() };
        let origin = origin(self.config.seed, *program);
        self.minimize(dir, &module, &chain, signature, &origin, *program);
    }

    /// Mutated text: a parser or checker panic is reported as it is (there is no program to
    /// minimize); what parses and checks goes through the chain like any other program.
    fn run_text(&self, index: u64, text: &str) {
        match parse_text(text) {
            Ok(Some(module)) => self.run_module(index, &module, InputMode::Unknown),
            Ok(None) => {
                lock(&self.summary).programs += 1;
                (self.observe)(Event::Program { index, failed: false });
            }
            Err(failure) => {
                let result = ChainResult {
                    outcomes: vec![(OracleName::NoPanic, Outcome::Fail(failure.clone()), Duration::ZERO)],
                    output: None,
                };
                self.record(&result);
                (self.observe)(Event::Program { index, failed: true });
                let signature = failure.signature();
                let Some((dir, origin)) = self.claim_new(&signature, index) else { return };
                if let Err(e) = write_text_report(&dir, &failure, text, &origin) {
                    (self.observe)(Event::Problem { message: format!("cannot write {}: {e}", dir.display()) });
                }
                (self.observe)(Event::Finding { signature, dir, origin });
            }
        }
    }

    /// The next program index, or `None` when the campaign is over.
    fn claim(&self) -> Option<u64> {
        if self.enough.load(Ordering::SeqCst) || self.abandoned.load(Ordering::SeqCst) || self.cutoff.reached() {
            return None;
        }
        let index = self.next.fetch_add(1, Ordering::SeqCst);
        if self.config.max_programs.is_some_and(|max| index >= max) {
            self.enough.store(true, Ordering::SeqCst);
            return None;
        }
        lock(&self.in_flight).insert(index);
        Some(index)
    }

    /// Marks `index` done and saves the campaign state when the done prefix grew.
    fn finish(&self, index: u64) {
        let done_below = {
            let mut in_flight = lock(&self.in_flight);
            in_flight.remove(&index);
            in_flight.first().copied().unwrap_or_else(|| self.next.load(Ordering::SeqCst))
        };
        if index.is_multiple_of(64) {
            self.save_state(done_below);
        }
    }

    /// The campaign's state with every program below `done_below` done.
    fn state(&self, done_below: u64) -> CampaignState {
        let options = Some(FindingOptions::of(self.config));
        CampaignState { seed: self.config.seed, done_below, options }
    }

    fn save_state(&self, done_below: u64) {
        let _guard = lock(&self.state_lock);
        if let Err(e) = self.state(done_below).save(&self.config.out) {
            (self.observe)(Event::Problem { message: e.to_string() });
        }
    }

    fn record(&self, result: &ChainResult) {
        let mut summary = lock(&self.summary);
        summary.programs += 1;
        for (oracle, outcome, _) in &result.outcomes {
            let counts = summary.oracles.entry(oracle.name().to_string()).or_default();
            match outcome {
                Outcome::Pass => counts.pass += 1,
                Outcome::Skip(reason) => {
                    counts.skip += 1;
                    if let SkipReason::VerifierUnknown(kind, _) = reason {
                        counts.undecided += 1;
                        *counts.undecided_reasons.entry(kind.name().to_string()).or_default() += 1;
                    }
                    *counts.skips.entry(reason.kind().to_string()).or_default() += 1;
                }
                Outcome::Fail(_) => counts.fail += 1,
            }
        }
        if let Some(failure) = result.failure() {
            *summary.signatures.entry(failure.signature().to_string()).or_default() += 1;
        }
    }

    /// Reports a new signature at once (its minimization in progress), then minimizes it and
    /// rewrites the report.
    fn handle_failure(
        &self,
        index: u64,
        input: &IRModule,
        chain: &ChainConfig,
        result: &ChainResult,
        failure: &Failure,
    ) {
        let signature = failure.signature();
        let Some((dir, origin)) = self.claim_new(&signature, index) else { return };
        let mut unreduced = Reduction::unreduced(input, result, failure, chain.seed);
        unreduced.peer = chain.peer;
        unreduced.mode = chain.mode;
        unreduced.minimization = Minimization::InProgress;
        self.write(&dir, &unreduced, &origin, index, chain);
        (self.observe)(Event::Finding { signature: signature.clone(), dir: dir.clone(), origin: origin.clone() });
        self.minimize(&dir, input, chain, &signature, &origin, index);
    }

    /// Minimizes the finding `signature` of program `index` and rewrites its report, with
    /// the minimization's status (still in progress when the campaign's end stopped it).
    fn minimize(
        &self,
        dir: &Path,
        input: &IRModule,
        chain: &ChainConfig,
        signature: &Signature,
        origin: &str,
        index: u64,
    ) {
        let config =
            ReduceConfig { chain: chain.clone(), oracle: Some(signature.oracle), budget: self.config.reduce_budget };
        match reduce_until(input, &config, &self.cutoff) {
            Ok(r) if r.failure.signature() == *signature => {
                self.write(dir, &r, origin, index, chain);
                if !r.minimization.is_final() {
                    lock(&self.still_unfinished).insert(signature.to_string());
                    return;
                }
                let seconds = r.elapsed.as_secs_f64();
                let (before, after) = (r.original_size, r.reduced_size);
                let (signature, dir) = (signature.clone(), dir.to_path_buf());
                (self.observe)(Event::Minimized { signature, dir, before, after, seconds });
            }
            Ok(_) => {}
            Err(ReduceError::Cut) => {
                lock(&self.still_unfinished).insert(signature.to_string());
            }
            Err(e) => (self.observe)(Event::Problem { message: format!("minimizing {signature}: {e}") }),
        }
    }

    /// Records `signature` as found by program `index`: its report directory and origin line,
    /// or `None` when it was already known.
    fn claim_new(&self, signature: &Signature, index: u64) -> Option<(PathBuf, String)> {
        if !lock(&self.known).insert(signature.clone()) {
            return None;
        }
        lock(&self.summary).new_findings.push(signature.to_string());
        Some((self.config.out.join("findings").join(signature.slug()), origin(self.config.seed, index)))
    }

    fn write(&self, dir: &Path, reduction: &Reduction, origin: &str, index: u64, chain: &ChainConfig) {
        let context =
            ReportContext { origin, program: Some(index), planted_bug: chain.pass == PassVariant::PlantedBug };
        if let Err(e) = write_finding(dir, reduction, &context) {
            (self.observe)(Event::Problem { message: format!("cannot write {}: {e}", dir.display()) });
        }
    }
}

/// A poisoned lock only means another worker panicked while holding it; the data (counters
/// and sets) is still consistent enough to go on with.
fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}
