//! `tickbot replay`: its six subcommands' flags (`ReplayCommand`), the
//! dispatch to the file of each (`verify.rs`, `show.rs`, `upgrade.rs`,
//! `stats.rs`, `export.rs`, `render.rs`), and what several of them share:
//! finding the replay files under the paths given, reading one replay, and
//! the exit code of each way a replay cannot be shown.

use std::path::{Path, PathBuf};

use anyhow::Context;
use clap::Subcommand;

use tickbot::input;
use tickbot::replay::{self, Replay, ReplayError};
use tickbot::view::ViewError;

use super::support::{EXIT_CODES, Exit, ExitOnError, Failure, collect_files};

mod export;
mod render;
mod show;
mod stats;
mod upgrade;
mod verify;

#[derive(Debug, Subcommand)]
pub(crate) enum ReplayCommand {
    /// Re-simulate replays and check every tick's state hash. Directories are
    /// searched recursively for *.tbr files.
    #[command(after_help = EXIT_CODES)]
    Verify {
        #[arg(required = true, value_name = "FILE|DIR")]
        paths: Vec<PathBuf>,
        /// Print one JSON report instead of a line per file.
        #[arg(long)]
        json: bool,
    },
    /// Print a replay's header and outcome, and the board at a tick.
    #[command(after_help = EXIT_CODES)]
    Show {
        #[arg(value_name = "FILE")]
        path: PathBuf,
        /// Show the board after this many ticks (0: the start). Default: the last tick.
        #[arg(long, conflicts_with = "all")]
        tick: Option<u32>,
        /// Show the board at every tick.
        #[arg(long)]
        all: bool,
    },
    /// Rewrite format version 1 replays as version 2 (about 7 times smaller,
    /// every byte checksummed), in place and atomically; each new file is
    /// verified before it replaces the old one. Version 2 files are skipped.
    /// Directories are searched recursively for *.tbr files.
    #[command(after_help = EXIT_CODES)]
    Upgrade {
        #[arg(required = true, value_name = "FILE|DIR")]
        paths: Vec<PathBuf>,
    },
    /// Sum the sizes and ticks of replays per game and format version, and
    /// print the bytes per tick. Directories are searched recursively.
    #[command(after_help = EXIT_CODES)]
    Stats {
        #[arg(required = true, value_name = "FILE|DIR")]
        paths: Vec<PathBuf>,
        /// Print one JSON line per game and version instead of a table.
        #[arg(long)]
        json: bool,
    },
    /// Print one JSON line per tick: the tick, the action that led to it (text and
    /// code), the state hash, the status, and with --states the game's own state.
    /// Stops with exit 1 at a tick that does not reproduce.
    #[command(after_help = EXIT_CODES)]
    Export {
        #[arg(value_name = "FILE")]
        path: PathBuf,
        /// Write JSON lines (the export's one format; required so that others can come).
        #[arg(long, required = true)]
        json: bool,
        /// Add each tick's state as the game holds it, under "state".
        #[arg(long)]
        states: bool,
        /// The first tick to export (0: the start).
        #[arg(long, value_name = "T")]
        from: Option<u32>,
        /// The last tick to export. Default: the last tick.
        #[arg(long, value_name = "T")]
        to: Option<u32>,
    },
    /// Draw a replay for watching: a self-contained HTML page with a slider and
    /// play/pause (it handles games of any length), or an animated GIF or SVG for
    /// sharing. The format follows --out's extension.
    #[command(after_help = EXIT_CODES)]
    Render {
        #[arg(value_name = "FILE")]
        path: PathBuf,
        /// The file to write: NAME.html, NAME.gif or NAME.svg.
        #[arg(long, value_name = "NAME.html|NAME.gif|NAME.svg")]
        out: PathBuf,
        /// The first tick to draw (0: the start).
        #[arg(long, value_name = "T")]
        from: Option<u32>,
        /// The last tick to draw. Default: the last tick (a GIF or SVG of a long game
        /// is large: pick a stretch).
        #[arg(long, value_name = "T")]
        to: Option<u32>,
        /// Ticks per second when playing.
        #[arg(long, default_value_t = 10, value_name = "N", value_parser = clap::value_parser!(u32).range(1..=100))]
        fps: u32,
    },
}

/// Runs one `replay` subcommand.
pub(crate) fn execute(command: ReplayCommand) -> Result<Exit, Failure> {
    match command {
        ReplayCommand::Verify { paths, json } => verify::verify(&paths, json),
        ReplayCommand::Show { path, tick, all } => show::show(&path, tick, all),
        ReplayCommand::Upgrade { paths } => upgrade::upgrade(&paths),
        ReplayCommand::Stats { paths, json } => stats::stats(&paths, json),
        ReplayCommand::Export { path, json: _, states, from, to } => export::export(&path, states, from, to),
        ReplayCommand::Render { path, out, from, to, fps } => render::render(&path, &out, from, to, fps),
    }
}

/// The `.tbr` files under `paths`, what was skipped, and for each path that
/// cannot be read, why: it is reported, and the others are handled all the
/// same, since one bad argument should not hide the other results.
fn replay_files(paths: &[PathBuf]) -> ReplayFiles {
    let mut found = Vec::new();
    let mut unreadable = Vec::new();
    for path in paths {
        if let Err(error) = collect_files(path, "tbr", &mut found) {
            unreadable.push(format!("{error:#}"));
        }
    }
    // A FIFO, a socket or a device is never opened: reading a FIFO waits
    // for a writer that may never come. Looking at its type does not wait.
    let mut files = Vec::new();
    let mut skipped = Vec::new();
    for path in found {
        match std::fs::metadata(&path) {
            Ok(metadata) if !metadata.is_file() => {
                skipped.push(Skipped { path, why: format!("{}, not a replay file", input::kind_of(&metadata)) });
            }
            _ => files.push(path),
        }
    }
    ReplayFiles { files, skipped, unreadable }
}

/// What [`replay_files`] found.
struct ReplayFiles {
    files: Vec<PathBuf>,
    /// Files with a `.tbr` name that are not regular files, left unread.
    skipped: Vec<Skipped>,
    /// Paths given that could not be read, with why.
    unreadable: Vec<String>,
}

/// A file left unread, and why.
#[derive(Debug, serde::Serialize)]
struct Skipped {
    path: PathBuf,
    why: String,
}

impl Skipped {
    /// The line a command prints for it.
    fn line(&self) -> String {
        format!("skipped   {}: {}", self.path.display(), self.why)
    }
}

/// The bytes of one replay file, bounded and never waiting on a FIFO:
/// exit 2 for a path that cannot be read or is not a regular file, 3 for a
/// file that is not a replay.
fn read_bytes(path: &Path) -> Result<Vec<u8>, Failure> {
    replay::read_file(path).map_err(|error| {
        let code = match error {
            ReplayError::Io(_) | ReplayError::NotAFile { .. } => Exit::BadInput,
            _ => Exit::InvalidReplay,
        };
        Failure { code, error: anyhow::Error::from(error).context(path.display().to_string()) }
    })
}

fn display_paths(paths: &[PathBuf]) -> String {
    paths.iter().map(|path| path.display().to_string()).collect::<Vec<_>>().join(", ")
}

/// Reads a replay to walk it (`export`, `render`): a file cut short is
/// read up to its last whole block.
fn read(path: &Path) -> Result<Replay, Failure> {
    let bytes = read_bytes(path)?;
    replay::decode_partial(&bytes).with_context(|| format!("{}", path.display())).exit_code(Exit::InvalidReplay)
}

/// The exit code each way of not showing a replay maps to.
fn failure(path: &Path, error: ViewError) -> Failure {
    let code = match &error {
        ViewError::NoSuchTick { .. } | ViewError::BadRange { .. } | ViewError::TooLarge { .. } => Exit::BadInput,
        ViewError::Diverged(_) | ViewError::Unplayable { .. } => Exit::Diverged,
        ViewError::Interrupted => Exit::Interrupted,
        ViewError::Io(_) => Exit::Runtime,
    };
    Failure { code, error: anyhow::Error::from(error).context(path.display().to_string()) }
}
