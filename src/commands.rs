//! The dispatch of every subcommand, and what the game-independent ones do
//! (`replay verify`, `replay show`, `replay upgrade`). Part of the binary: above `src/cli/`
//! and `src/runner.rs`, which it uses.

use std::io::Write;
use std::ops::ControlFlow;
use std::path::{Path, PathBuf};

use anyhow::Context;
use serde::Serialize;

use tickbot::game::{GameSpec, GameVisitor, Replayable};
use tickbot::plan::format_params;
use tickbot::replay::{self, DivergenceKind, RenderError, ReplayError};
use tickbot::telemetry::{self, LogConfig, TelemetryError};

use crate::cli::{
    self, BenchGame, Cli, Command, EvalCommand, EvolveCommand, GenGame, MatchGame, PlayGame, ReplayCommand,
};
use crate::runner::{Exit, ExitOnError, Failure, collect_files, interrupted, print_json};

pub fn execute(cli: Cli) -> Result<Exit, Failure> {
    let writes_log =
        !matches!(cli.command, Command::Replay(_) | Command::Gen(_) | Command::Stats(_) | Command::Merge(_));
    let log = LogConfig {
        level: cli.log_level.clone(),
        dir: writes_log.then(|| cli.log_dir.clone()),
        quiet_games_on_stderr: matches!(cli.command, Command::Run(_)),
    };
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
        Command::Stats(args) => cli::stats::execute(args),
        Command::Merge(args) => cli::merge::execute(args),
        Command::Play(PlayGame::Snake(args)) => cli::snake::play(args),
        Command::Play(PlayGame::Flag(args)) => cli::flag::play(args),
        Command::Play(PlayGame::Slide(args)) => cli::slide::play(args),
        Command::Play(PlayGame::Pipes(args)) => cli::pipes::play(args),
        Command::Play(PlayGame::Locm(args)) => cli::locm::play(args),
        Command::Replay(ReplayCommand::Verify { paths, json }) => verify(&paths, json),
        Command::Replay(ReplayCommand::Show { path, tick, all }) => show(&path, tick, all),
        Command::Replay(ReplayCommand::Upgrade { paths }) => upgrade(&paths),
        Command::Replay(ReplayCommand::Stats { paths, json }) => stats(&paths, json),
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
            // A code that stands for no action is damage to the file, not
            // a game that plays differently.
            report.status = match divergence.kind {
                DivergenceKind::UnknownAction => "invalid",
                DivergenceKind::State | DivergenceKind::IllegalAction => "diverged",
            };
            report.tick = Some(divergence.tick);
            report.expected_hash = Some(divergence.expected.to_string());
            report.actual_hash = Some(format!("{:016x}", divergence.actual));
            report.detail = Some(match divergence.kind {
                DivergenceKind::UnknownAction => format!("tick {}: {}", divergence.tick, divergence.detail),
                DivergenceKind::State | DivergenceKind::IllegalAction => divergence.detail,
            });
            report.action = Some(divergence.action);
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
    let version = replay::format_version(&bytes)
        .and_then(|version| replay::decode_partial(&bytes).map(|replay| (version, replay)));
    let (version, replay) = version.with_context(|| format!("{}", path.display())).exit_code(Exit::InvalidReplay)?;
    let header = &replay.header;
    let mut out = String::new();
    out.push_str(&format!("replay    {}\n", path.display()));
    out.push_str(&format!("format    version {version}, recorded by tickbot {}\n", header.tickbot_version));
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
        // diverging replay (or, for a code that stands for no action, a
        // damaged one), as `replay verify` reports it, whichever tick was
        // asked for.
        let code = match &error {
            RenderError::NoSuchTick { .. } => Exit::BadInput,
            RenderError::Diverged(divergence) if divergence.kind == DivergenceKind::UnknownAction => {
                Exit::InvalidReplay
            }
            RenderError::Diverged(_) => Exit::Diverged,
        };
        return Err(Failure { code, error: anyhow::Error::from(error).context(path.display().to_string()) });
    }
    Ok(Exit::Success)
}

/// What `replay upgrade` did with one file.
enum Upgraded {
    Rewritten { before: usize, after: usize },
    AlreadyCurrent,
}

/// Why `replay upgrade` left a file as it was.
struct NotUpgraded {
    code: Exit,
    reason: String,
}

fn upgrade(paths: &[PathBuf]) -> Result<Exit, Failure> {
    let mut files = Vec::new();
    let mut unreadable = Vec::new();
    for path in paths {
        if let Err(error) = collect_files(path, "tbr", &mut files) {
            unreadable.push(format!("{error:#}"));
        }
    }
    let (mut rewritten, mut skipped, mut refused) = (0, 0, Vec::new());
    let (mut bytes_before, mut bytes_after) = (0, 0);
    for path in &files {
        if interrupted() {
            break;
        }
        match upgrade_file(path) {
            Ok(Upgraded::Rewritten { before, after }) => {
                rewritten += 1;
                bytes_before += before;
                bytes_after += after;
                let ratio = before as f64 / after.max(1) as f64;
                println!("upgraded  {}: {before} -> {after} bytes ({ratio:.1} times smaller)", path.display());
            }
            Ok(Upgraded::AlreadyCurrent) => {
                skipped += 1;
                println!("skipped   {}: already format version {}", path.display(), replay::FORMAT_VERSION);
            }
            Err(NotUpgraded { code: Exit::Runtime, reason }) => {
                return Err(Failure { code: Exit::Runtime, error: anyhow::anyhow!("{}: {reason}", path.display()) });
            }
            Err(not_upgraded) => {
                println!("NOT DONE  {}: {}", path.display(), not_upgraded.reason);
                refused.push(not_upgraded.code);
            }
        }
    }
    println!(
        "{} replays: {rewritten} upgraded ({bytes_before} -> {bytes_after} bytes), {skipped} already version {}, \
         {} not upgraded",
        files.len(),
        replay::FORMAT_VERSION,
        refused.len()
    );
    for error in &unreadable {
        eprintln!("error: {error}");
    }
    Ok(if interrupted() {
        Exit::Interrupted
    } else if refused.contains(&Exit::Diverged) {
        Exit::Diverged
    } else if !refused.is_empty() {
        Exit::InvalidReplay
    } else if !unreadable.is_empty() {
        Exit::BadInput
    } else if files.is_empty() {
        eprintln!("error: no .tbr replay files found in {}", display_paths(paths));
        Exit::BadInput
    } else {
        Exit::Success
    })
}

/// Rewrites one version 1 file as the current version, after checking that
/// it verifies and that the new bytes decode to the same replay and verify
/// the same way.
fn upgrade_file(path: &Path) -> Result<Upgraded, NotUpgraded> {
    let invalid = |reason: String| NotUpgraded { code: Exit::InvalidReplay, reason };
    let bytes = std::fs::read(path).map_err(|error| invalid(format!("cannot read: {error}")))?;
    let version = replay::format_version(&bytes).map_err(|error| invalid(error.to_string()))?;
    if version == replay::FORMAT_VERSION {
        return Ok(Upgraded::AlreadyCurrent);
    }
    let decoded = replay::decode(&bytes).map_err(|error| invalid(error.to_string()))?;
    let reproduced = replay::verify(&decoded).map_err(|divergence| NotUpgraded {
        code: if divergence.kind == DivergenceKind::UnknownAction { Exit::InvalidReplay } else { Exit::Diverged },
        reason: format!("does not verify: {divergence}"),
    })?;
    let runtime = |reason: String| NotUpgraded { code: Exit::Runtime, reason };
    let upgraded = replay::encode_to_vec(&decoded).map_err(|error| runtime(format!("cannot encode: {error}")))?;
    let check =
        replay::decode(&upgraded).map_err(|error| runtime(format!("the upgraded bytes do not decode: {error}")))?;
    if check != decoded.compacted() || replay::verify(&check).as_ref() != Ok(&reproduced) {
        return Err(runtime("the upgraded replay does not verify as the original does".into()));
    }
    replay::write_atomically(path, &upgraded).map_err(|error| runtime(format!("cannot write: {error}")))?;
    Ok(Upgraded::Rewritten { before: bytes.len(), after: upgraded.len() })
}

/// One line of `replay stats`: the replays of one game in one version.
#[derive(Debug, Default, Serialize)]
struct SizeStats {
    game: &'static str,
    version: u16,
    files: usize,
    ticks: u64,
    bytes: u64,
    bytes_per_tick: f64,
}

fn stats(paths: &[PathBuf], json: bool) -> Result<Exit, Failure> {
    let mut files = Vec::new();
    for path in paths {
        collect_files(path, "tbr", &mut files).exit_code(Exit::BadInput)?;
    }
    let mut groups = std::collections::BTreeMap::<(&'static str, u16), SizeStats>::new();
    let mut invalid = 0;
    for path in &files {
        if interrupted() {
            break;
        }
        let bytes =
            std::fs::read(path).with_context(|| format!("cannot read {}", path.display())).exit_code(Exit::BadInput)?;
        let decoded = replay::format_version(&bytes).and_then(|version| Ok((version, replay::decode_partial(&bytes)?)));
        let Ok((version, decoded)) = decoded else {
            invalid += 1;
            continue;
        };
        let game = decoded.header.game.name();
        let group =
            groups.entry((game, version)).or_insert_with(|| SizeStats { game, version, ..SizeStats::default() });
        group.files += 1;
        group.ticks += decoded.frames.len() as u64;
        group.bytes += bytes.len() as u64;
    }
    for group in groups.values_mut() {
        group.bytes_per_tick = group.bytes as f64 / group.ticks.max(1) as f64;
        if json {
            print_json(group)?;
        } else {
            println!(
                "{:<6} version {}: {} files, {} ticks, {} bytes, {:.2} bytes per tick",
                group.game, group.version, group.files, group.ticks, group.bytes, group.bytes_per_tick
            );
        }
    }
    if invalid > 0 {
        eprintln!("{invalid} files are not valid replays and were not counted");
    }
    Ok(if interrupted() {
        Exit::Interrupted
    } else if invalid > 0 {
        Exit::InvalidReplay
    } else if files.is_empty() {
        eprintln!("error: no .tbr replay files found in {}", display_paths(paths));
        Exit::BadInput
    } else {
        Exit::Success
    })
}

fn describe_spec(spec: &GameSpec) -> String {
    struct Describe;
    impl GameVisitor for Describe {
        type Output = String;
        fn visit<G: Replayable>(self, config: &G::Config) -> String {
            G::describe(config)
        }
    }
    spec.visit(Describe)
}
