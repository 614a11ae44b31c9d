//! The dispatch of every subcommand, and what the game-independent ones do
//! (`replay verify`, `replay show`). Part of the binary: above `src/cli/`
//! and `src/runner.rs`, which it uses.

use std::io::Write;
use std::ops::ControlFlow;
use std::path::{Path, PathBuf};

use anyhow::Context;
use serde::Serialize;

use tickbot::game::{Game, GameSpec, GameVisitor};
use tickbot::plan::format_params;
use tickbot::replay::{self, RenderError, ReplayError};
use tickbot::telemetry::{self, LogConfig, TelemetryError};

use crate::cli::{
    self, BenchGame, Cli, Command, EvalCommand, EvolveCommand, GenGame, MatchGame, PlayGame, ReplayCommand,
};
use crate::runner::{Exit, ExitOnError, Failure, collect_files, print_json};

pub fn execute(cli: Cli) -> Result<Exit, Failure> {
    let writes_log = !matches!(cli.command, Command::Replay(_) | Command::Gen(_));
    let log = LogConfig { level: cli.log_level.clone(), dir: writes_log.then(|| cli.log_dir.clone()) };
    if let Err(error) = telemetry::init(&log) {
        let code = match error {
            TelemetryError::Filter { .. } => Exit::BadInput,
            TelemetryError::File { .. } => Exit::Runtime,
        };
        return Err(Failure { code, error: error.into() });
    }
    crate::runner::install_interrupt_handler().exit_code(Exit::Runtime)?;
    match cli.command {
        Command::Run(args) => cli::run::execute(args),
        Command::Play(PlayGame::Snake(args)) => cli::snake::play(args),
        Command::Play(PlayGame::Flag(args)) => cli::flag::play(args),
        Command::Play(PlayGame::Slide(args)) => cli::slide::play(args),
        Command::Play(PlayGame::Pipes(args)) => cli::pipes::play(args),
        Command::Play(PlayGame::Locm(args)) => cli::locm::play(args),
        Command::Replay(ReplayCommand::Verify { paths, json }) => verify(&paths, json),
        Command::Replay(ReplayCommand::Show { path, tick, all }) => show(&path, tick, all),
        Command::Replay(ReplayCommand::Export { path, json: _, states, from, to }) => {
            cli::view::export(&path, states, from, to)
        }
        Command::Replay(ReplayCommand::Render { path, out, from, to, fps }) => {
            cli::view::render(&path, &out, from, to, fps)
        }
        Command::Bench(BenchGame::Snake(args)) => cli::snake::bench(args),
        Command::Bench(BenchGame::Flag(args)) => cli::flag::bench(args),
        Command::Bench(BenchGame::Slide(args)) => cli::slide::bench(args),
        Command::Bench(BenchGame::Pipes(args)) => cli::pipes::bench(args),
        Command::Bench(BenchGame::Locm(args)) => cli::locm::bench(args),
        Command::Match(MatchGame::Locm(args)) => cli::locm::run_match(args),
        Command::Gen(GenGame::Flag(args)) => cli::flag::generate(args),
        Command::Gen(GenGame::Pipes(args)) => cli::pipes::generate(args),
        Command::Evolve(EvolveCommand::Draft(args)) => cli::evolve::evolve(args),
        Command::Eval(EvalCommand::Draft(args)) => cli::evolve::eval(args),
    }
}

/// One line of `replay verify --json`.
#[derive(Debug, Serialize)]
struct FileReport {
    path: PathBuf,
    status: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    ticks: Option<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    outcome: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    reason: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    tick: Option<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    action: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    expected_hash: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    actual_hash: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    detail: Option<String>,
}

#[derive(Debug, Serialize)]
struct VerifyReport {
    files: Vec<FileReport>,
    ok: usize,
    diverged: usize,
    invalid: usize,
    /// Paths given that could not be read, with why.
    unreadable: Vec<String>,
}

fn verify(paths: &[PathBuf], json: bool) -> Result<Exit, Failure> {
    // A path that cannot be read is reported, and the others are verified
    // all the same: one bad argument should not hide the other results.
    let mut files = Vec::new();
    let mut unreadable = Vec::new();
    for path in paths {
        if let Err(error) = collect_files(path, "tbr", &mut files) {
            unreadable.push(format!("{error:#}"));
        }
    }
    let mut reports = Vec::with_capacity(files.len());
    for path in files {
        let report = verify_file(&path);
        if !json {
            println!("{}", describe_report(&report));
        }
        reports.push(report);
    }
    let count = |status| reports.iter().filter(|report| report.status == status).count();
    let report = VerifyReport {
        ok: count("ok"),
        diverged: count("diverged"),
        invalid: count("invalid"),
        files: reports,
        unreadable: unreadable.clone(),
    };
    if json {
        print_json(&report)?;
    } else {
        println!(
            "{} replays: {} reproduced, {} diverged, {} invalid",
            report.files.len(),
            report.ok,
            report.diverged,
            report.invalid
        );
    }
    for error in &unreadable {
        eprintln!("error: {error}");
    }
    Ok(if report.diverged > 0 {
        Exit::Diverged
    } else if report.invalid > 0 {
        Exit::InvalidReplay
    } else if !unreadable.is_empty() {
        Exit::BadInput
    } else if report.files.is_empty() {
        eprintln!("error: no .tbr replay files found in {}", display_paths(paths));
        Exit::BadInput
    } else {
        Exit::Success
    })
}

fn display_paths(paths: &[PathBuf]) -> String {
    paths.iter().map(|path| path.display().to_string()).collect::<Vec<_>>().join(", ")
}

fn verify_file(path: &Path) -> FileReport {
    let mut report = FileReport {
        path: path.to_path_buf(),
        status: "invalid",
        ticks: None,
        outcome: None,
        reason: None,
        tick: None,
        action: None,
        expected_hash: None,
        actual_hash: None,
        detail: None,
    };
    let replay = match std::fs::read(path).map_err(ReplayError::from).and_then(|bytes| replay::decode(&bytes)) {
        Ok(replay) => replay,
        Err(error) => {
            report.detail = Some(error.to_string());
            return report;
        }
    };
    match replay::verify(&replay) {
        Ok(reproduced) => {
            report.status = "ok";
            report.ticks = Some(reproduced.ticks);
            report.outcome = Some(reproduced.outcome.kind.to_string());
            report.reason = Some(reproduced.outcome.reason);
        }
        Err(divergence) => {
            report.status = "diverged";
            report.tick = Some(divergence.tick);
            report.action = Some(divergence.action);
            report.expected_hash = Some(format!("{:016x}", divergence.expected));
            report.actual_hash = Some(format!("{:016x}", divergence.actual));
            report.detail = Some(divergence.detail);
        }
    }
    report
}

fn describe_report(report: &FileReport) -> String {
    let path = report.path.display();
    let detail = report.detail.as_deref().unwrap_or("");
    match report.status {
        "ok" => format!(
            "ok        {path}: {} ticks, {} ({})",
            report.ticks.unwrap_or(0),
            report.outcome.as_deref().unwrap_or(""),
            report.reason.as_deref().unwrap_or("")
        ),
        "diverged" => format!(
            "DIVERGED  {path}: tick {}: {detail} (action {}, expected hash {}, actual {})",
            report.tick.unwrap_or(0),
            report.action.as_deref().unwrap_or("-"),
            report.expected_hash.as_deref().unwrap_or("-"),
            report.actual_hash.as_deref().unwrap_or("-")
        ),
        _ => format!("INVALID   {path}: {detail}"),
    }
}

fn show(path: &Path, tick: Option<u32>, all: bool) -> Result<Exit, Failure> {
    let bytes =
        std::fs::read(path).with_context(|| format!("cannot read {}", path.display())).exit_code(Exit::BadInput)?;
    let replay =
        replay::decode_partial(&bytes).with_context(|| format!("{}", path.display())).exit_code(Exit::InvalidReplay)?;
    let header = &replay.header;
    let mut out = String::new();
    out.push_str(&format!("replay    {}\n", path.display()));
    out.push_str(&format!(
        "format    version {}, recorded by tickbot {}\n",
        replay::FORMAT_VERSION,
        header.tickbot_version
    ));
    out.push_str(&format!("game      {}: {}\n", header.game.name(), describe_spec(&header.game)));
    out.push_str(&format!("seed      {}\n", header.seed));
    out.push_str(&format!("planner   {} {}\n", header.planner.name, format_params(&header.planner.params)));
    let ticks = replay.frames.len() as u32;
    match &replay.footer {
        Some(footer) => out.push_str(&format!("outcome   {} after {} ticks\n", footer.outcome, footer.ticks)),
        None => out.push_str(&format!("outcome   none: the file ends after tick {ticks}, no footer\n")),
    }
    let mut stdout = std::io::stdout().lock();
    // A closed pipe (`| head`) is not an error worth reporting: stop quietly.
    let mut write =
        |text: &str| stdout.write_all(text.as_bytes()).map_or(ControlFlow::Break(()), ControlFlow::Continue);
    let rendered = if all {
        // Boards are written as they are drawn: every board of a long
        // replay would not fit in memory at once.
        match write(&out) {
            ControlFlow::Break(()) => Ok(()),
            ControlFlow::Continue(()) => replay::render_each(&replay, &mut |_, board| write(&format!("\n{board}"))),
        }
    } else {
        replay::render_at(&replay, tick.unwrap_or(ticks)).map(|board| {
            let _ = write(&format!("{out}\n{board}"));
        })
    };
    if let Err(error) = rendered {
        // An action that cannot be played where it was recorded is a
        // diverging replay, as `replay verify` reports it, whichever tick
        // was asked for.
        let code = match error {
            RenderError::NoSuchTick { .. } => Exit::BadInput,
            RenderError::Diverged(_) => Exit::Diverged,
        };
        return Err(Failure { code, error: anyhow::Error::from(error).context(path.display().to_string()) });
    }
    Ok(Exit::Success)
}

fn describe_spec(spec: &GameSpec) -> String {
    struct Describe;
    impl GameVisitor for Describe {
        type Output = String;
        fn visit<G: Game>(self, config: &G::Config) -> String {
            G::describe(config)
        }
    }
    spec.visit(Describe)
}
