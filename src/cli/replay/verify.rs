//! `tickbot replay verify`: re-simulates each replay and checks every
//! tick's state hash; a line per file (or one JSON report) and the exit
//! code of the worst finding.

use std::path::{Path, PathBuf};

use serde::Serialize;

use tickbot::replay::{self, DivergenceKind};

use super::{ReplayFiles, Skipped, display_paths, replay_files};
use crate::cli::support::{Exit, Failure, print_json};

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
    /// Files with a `.tbr` name that are not regular files (a FIFO, a
    /// device), left unread.
    skipped: Vec<Skipped>,
    /// Paths given that could not be read, with why.
    unreadable: Vec<String>,
}

pub(super) fn verify(paths: &[PathBuf], json: bool) -> Result<Exit, Failure> {
    let ReplayFiles { files, skipped, unreadable } = replay_files(paths);
    if !json {
        for skipped in &skipped {
            println!("{}", skipped.line());
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
        skipped,
        unreadable: unreadable.clone(),
    };
    if json {
        print_json(&report)?;
    } else {
        let skipped = match report.skipped.len() {
            0 => String::new(),
            count => format!(" ({count} skipped: not regular files)"),
        };
        println!(
            "{} replays: {} reproduced, {} diverged, {} invalid{skipped}",
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
    let replay = match replay::read_file(path).and_then(|bytes| replay::decode(&bytes)) {
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
