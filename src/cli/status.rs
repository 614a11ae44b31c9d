//! `tickbot status`: how far running (or finished) sessions and shards are,
//! read from what they write (the library's `analysis::status` reads it);
//! this file owns the flags, the table, `--watch` (redrawn in place on a
//! terminal), `--json`, and the Prometheus metrics file, rewritten
//! atomically at each look.

use std::fmt::Write as _;
use std::io::{IsTerminal, Write};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use anyhow::anyhow;
use clap::Args;

use tickbot::analysis::status::{
    DirStatus, EntryStatus, LOG_PATH, Liveness, StatusError, StatusReport, StatusWatch, now_ms, prometheus_text,
};

use super::support::{Exit, Failure, interrupted, print_json, replace_file};

/// What `status --help` prints after the flags.
pub(crate) const AFTER_HELP: &str = "\
Reads only what sessions write, never taking a session's lock: DIR/manifest.json,
DIR/results.jsonl (whole lines) and the log DIR/logs/tickbot.jsonl (where the deploy
scripts put it; --log names another for one DIR). Games per second and the games running
come from the log's game_start and game_end events; without a log, the rate is measured
between two looks of --watch. Whether a session runs is whether a process on this machine
holds DIR/session.lock (read from /proc/locks); a shard running on another machine shows
as `not held here`, with the age of its last write.

Exit codes:
  0    shown (with --watch: every directory finished)
  2    bad input: a path that is not a directory, a damaged manifest or results line
  4    runtime failure (cannot read a directory, or cannot write --metrics)
  130  interrupted (Ctrl-C ends --watch)";

#[derive(Debug, Args)]
pub(crate) struct StatusArgs {
    /// Session directories: one session, or the shards of one (`run --shard I/N`),
    /// running or finished. A directory not yet created shows as not started.
    #[arg(required = true, value_name = "DIR")]
    pub dirs: Vec<PathBuf>,
    /// Look again every --interval until every directory has finished (Ctrl-C stops);
    /// redrawn in place on a terminal, else one report after another.
    #[arg(long)]
    pub watch: bool,
    /// Seconds between two looks with --watch.
    #[arg(long, default_value_t = 2.0, value_name = "SECONDS", value_parser = parse_interval)]
    pub interval: f64,
    /// The report as one JSON object (with --watch: one per line).
    #[arg(long)]
    pub json: bool,
    /// Also write the figures to FILE in Prometheus's text format (for
    /// node-exporter's textfile collector: name it *.prom), rewritten atomically
    /// at each look.
    #[arg(long, value_name = "FILE")]
    pub metrics: Option<PathBuf>,
    /// The log of a single DIR, when it is not DIR/logs/tickbot.jsonl.
    #[arg(long, value_name = "FILE")]
    pub log: Option<PathBuf>,
}

fn parse_interval(text: &str) -> Result<f64, String> {
    match text.parse::<f64>() {
        Ok(seconds) if (0.1..=86_400.0).contains(&seconds) => Ok(seconds),
        _ => Err(format!("expected seconds from 0.1 to 86400, like 2 or 0.5; got {text:?}")),
    }
}

pub(crate) fn execute(args: StatusArgs) -> Result<Exit, Failure> {
    if args.log.is_some() && args.dirs.len() > 1 {
        return Err(Failure::bad_input(anyhow!(
            "--log names the log of one directory, and {} were given: put each log in DIR/{LOG_PATH}",
            args.dirs.len()
        )));
    }
    let mut watch = StatusWatch::new(&args.dirs, args.log.clone());
    let redraw = args.watch && !args.json && std::io::stdout().is_terminal();
    loop {
        let started = Instant::now();
        let report = watch.look(now_ms()).map_err(failure)?;
        if let Some(path) = &args.metrics {
            write_metrics(path, &report)?;
        }
        if args.json {
            print_json(&report)?;
        } else {
            let mut text = String::new();
            if redraw {
                // Home, clear the screen: the next report replaces this one.
                text.push_str("\x1b[H\x1b[2J");
            }
            render(&report, &mut text);
            print!("{text}");
            let _ = std::io::stdout().flush();
        }
        if !args.watch || report.all_finished() {
            return Ok(Exit::Success);
        }
        let deadline = started + Duration::from_secs_f64(args.interval);
        while Instant::now() < deadline {
            if interrupted() {
                return Ok(Exit::Interrupted);
            }
            std::thread::sleep(Duration::from_millis(50).min(deadline.saturating_duration_since(Instant::now())));
        }
        if !redraw && !args.json {
            println!();
        }
    }
}

fn failure(error: StatusError) -> Failure {
    let code = match error {
        StatusError::Io { .. } => Exit::Runtime,
        _ => Exit::BadInput,
    };
    Failure { code, error: error.into() }
}

/// Writes the metrics file (atomically: see `replace_file`).
fn write_metrics(path: &Path, report: &StatusReport) -> Result<(), Failure> {
    replace_file(path, &prometheus_text(report)).map_err(|error| Failure { code: Exit::Runtime, error })
}

fn render(report: &StatusReport, out: &mut String) {
    let _ = writeln!(out, "tickbot status: {} directories, {}", report.dirs.len(), utc(report.at_unix_ms));
    let rows: Vec<(String, String)> = report
        .dirs
        .iter()
        .map(|dir| match &dir.shard {
            Some(shard) => (format!("{} ({shard})", short_path(&dir.path)), state(dir)),
            None => (short_path(&dir.path), state(dir)),
        })
        .collect();
    let name_width = rows.iter().map(|(name, _)| name.chars().count()).max().unwrap_or(0).max(9);
    let state_width = rows.iter().map(|(_, state)| state.chars().count()).max().unwrap_or(0).max(5);
    let _ = writeln!(
        out,
        "  {:<name_width$} {:<state_width$} {:>15} {:>9} {:>9} {:>6}  running (slowest)",
        "directory", "state", "games", "games/s", "ETA", "faults"
    );
    for (dir, (name, state)) in report.dirs.iter().zip(rows) {
        let games = if dir.liveness == Liveness::NotStarted { "-".to_string() } else { of(dir.recorded, dir.expected) };
        let _ = writeln!(
            out,
            "  {:<name_width$} {:<state_width$} {:>15} {:>9} {:>9} {:>6}  {}",
            name,
            state,
            games,
            rate(dir.games_per_s),
            eta(dir.eta_s, dir.recorded, dir.expected),
            dir.faults,
            running(dir.running, dir.slowest_running.as_ref().map(|game| (&game.id, game.running_s)), dir.log),
        );
    }
    if report.dirs.len() > 1 {
        let _ = writeln!(
            out,
            "  {:<name_width$} {:<state_width$} {:>15} {:>9} {:>9} {:>6}  {}",
            "all",
            "",
            if report.dirs.iter().any(|dir| dir.liveness == Liveness::NotStarted) {
                format!("{}/?", report.recorded)
            } else {
                of(report.recorded, report.expected)
            },
            rate(report.games_per_s),
            eta(report.eta_s, report.recorded, report.expected),
            report.faults,
            running(report.running, report.slowest_running.as_ref().map(|game| (&game.id, game.running_s)), true),
        );
    }
    if !report.shards_not_given.is_empty() {
        let _ = writeln!(out, "  not given: shard {} (the totals leave them out)", report.shards_not_given.join(", "));
    }
    let _ = writeln!(
        out,
        "  {:<16} {:>15} {:>7} {:>7} {:>7} {:>7} {:>6} {:>8}",
        "entry", "games", "won", "lost", "stalled", "aborted", "faults", "win rate"
    );
    for entry in &report.entries {
        let _ = writeln!(out, "  {}", entry_row(entry));
    }
}

fn entry_row(entry: &EntryStatus) -> String {
    let totals = &entry.totals;
    format!(
        "{:<16} {:>15} {:>7} {:>7} {:>7} {:>7} {:>6} {:>8}",
        entry.entry,
        of(totals.games, entry.expected),
        totals.won,
        totals.lost,
        totals.stalled,
        totals.aborted,
        totals.faults(),
        entry.win_rate.map_or_else(|| "-".to_string(), |rate| format!("{:.1}%", rate * 100.0)),
    )
}

fn state(dir: &DirStatus) -> String {
    let pid = |pid: &Option<u32>| pid.map_or_else(String::new, |pid| format!(" {pid}"));
    let age = dir.last_write_s.map_or_else(String::new, |age| format!(", wrote {} ago", duration(age)));
    match &dir.liveness {
        Liveness::NotStarted => "not started".to_string(),
        Liveness::Running { pid: process } => format!("running (process{})", pid(process)),
        Liveness::Ended if dir.expected.is_some_and(|expected| dir.recorded >= expected) => "finished".to_string(),
        Liveness::Ended => "stopped (resume it)".to_string(),
        Liveness::NotHeldHere { pid: process } => format!("not held here (process{}{age})", pid(process)),
        Liveness::Unknown { pid: process } => format!("unknown (process{}{age})", pid(process)),
    }
}

fn of(recorded: u64, expected: Option<u64>) -> String {
    match expected {
        Some(expected) => format!("{recorded}/{expected}"),
        None => format!("{recorded}/open"),
    }
}

fn rate(games_per_s: Option<f64>) -> String {
    games_per_s.map_or_else(|| "-".to_string(), |rate| format!("{rate:.2}"))
}

fn eta(eta_s: Option<f64>, recorded: u64, expected: Option<u64>) -> String {
    match (expected, eta_s) {
        (Some(expected), _) if recorded >= expected => "done".to_string(),
        (_, Some(seconds)) => duration(seconds),
        _ => "-".to_string(),
    }
}

fn running(count: u64, slowest: Option<(&String, f64)>, log: bool) -> String {
    match slowest {
        Some((id, seconds)) => format!("{count} ({id} for {})", duration(seconds)),
        None if !log => "- (no log)".to_string(),
        None => count.to_string(),
    }
}

/// `42s`, `3m05s`, `2h10m`.
fn duration(seconds: f64) -> String {
    let whole = seconds.round() as u64;
    match whole {
        0..60 => format!("{whole}s"),
        60..3600 => format!("{}m{:02}s", whole / 60, whole % 60),
        _ => format!("{}h{:02}m", whole / 3600, whole % 3600 / 60),
    }
}

/// The path as given, cut to its last 40 characters.
fn short_path(path: &Path) -> String {
    let text = path.display().to_string();
    let count = text.chars().count();
    if count <= 40 { text } else { format!("…{}", text.chars().skip(count - 39).collect::<String>()) }
}

/// `2026-11-26 09:22:30 UTC`.
fn utc(unix_ms: u64) -> String {
    let seconds = unix_ms / 1000;
    let days = (seconds / 86_400) as i64;
    let (year, month, day) = civil_from_days(days);
    let of_day = seconds % 86_400;
    format!("{year:04}-{month:02}-{day:02} {:02}:{:02}:{:02} UTC", of_day / 3600, of_day % 3600 / 60, of_day % 60)
}

/// Howard Hinnant's `civil_from_days`: the date of a day since 1970-01-01.
fn civil_from_days(days: i64) -> (i64, u32, u32) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let day_of_era = z - era * 146_097;
    let year_of_era = (day_of_era - day_of_era / 1460 + day_of_era / 36_524 - day_of_era / 146_096) / 365;
    let day_of_year = day_of_era - (365 * year_of_era + year_of_era / 4 - year_of_era / 100);
    let shifted_month = (5 * day_of_year + 2) / 153;
    let day = (day_of_year - (153 * shifted_month + 2) / 5 + 1) as u32;
    let month = if shifted_month < 10 { shifted_month + 3 } else { shifted_month - 9 } as u32;
    (year_of_era + era * 400 + i64::from(month <= 2), month, day)
}
