//! `tickbot replay export`: one JSON line per tick (the tick, the action
//! that led to it, the state hash, the status, and on request the game's
//! state), walked through `tickbot::view`.

use std::io::{BufWriter, Write};
use std::ops::ControlFlow;
use std::path::Path;

use anyhow::Context;

use tickbot::progress::Progress;
use tickbot::view::{self, TickRange, Want};

use super::{failure, read};
use crate::cli::support::{Exit, ExitOnError, Failure, interrupt_budget, progress_bar};

/// `replay export FILE --json [--states] [--from T] [--to T]`.
pub(super) fn export(path: &Path, states: bool, from: Option<u32>, to: Option<u32>) -> Result<Exit, Failure> {
    let replay = read(path)?;
    let range = TickRange::of(&replay, from, to).map_err(|error| failure(path, error))?;
    let progress = Progress::default();
    let _bar = progress_bar("exporting (ticks)", &progress);
    let mut stdout = BufWriter::new(std::io::stdout().lock());
    let want = Want { picture: false, state: states };
    let walked = view::walk(&replay, range, want, &interrupt_budget(), &progress, &mut |tick| {
        let line = view::export::json_line(&tick);
        // A closed pipe ends the process (SIGPIPE); any other write error stops here.
        match writeln!(stdout, "{line}") {
            Ok(()) => ControlFlow::Continue(()),
            Err(_) => ControlFlow::Break(()),
        }
    });
    stdout.flush().context("cannot write to standard output").exit_code(Exit::Runtime)?;
    walked.map_err(|error| failure(path, error))?;
    Ok(Exit::Success)
}
