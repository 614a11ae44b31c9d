//! What `replay export` and `replay render` do: read the replay, walk it
//! through `tickbot::view`, and print the JSON lines or write the picture
//! (as `NAME.part`, renamed into place once whole). Part of the binary.

use std::fs::File;
use std::io::{BufWriter, Write};
use std::ops::ControlFlow;
use std::path::{Path, PathBuf};

use anyhow::{Context, anyhow};

use tickbot::progress::Progress;
use tickbot::replay::{self, Replay};
use tickbot::view::{self, Format, RenderOptions, TickRange, ViewError, Want};

use crate::runner::{Exit, ExitOnError, Failure, interrupt_budget, progress_bar};

/// `replay export FILE --json [--states] [--from T] [--to T]`.
pub fn export(path: &Path, states: bool, from: Option<u32>, to: Option<u32>) -> Result<Exit, Failure> {
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

/// `replay render FILE --out NAME.html|NAME.gif|NAME.svg [--from T] [--to T] [--fps N]`.
pub fn render(path: &Path, out: &Path, from: Option<u32>, to: Option<u32>, fps: u32) -> Result<Exit, Failure> {
    let extension = out.extension().and_then(|extension| extension.to_str()).unwrap_or("");
    let Some(format) = Format::from_extension(extension) else {
        return Err(Failure::bad_input(anyhow!(
            "--out {}: the file name must end in .html, .gif or .svg (the format to write)",
            out.display()
        )));
    };
    let replay = read(path)?;
    let range = TickRange::of(&replay, from, to).map_err(|error| failure(path, error))?;
    let title = format!("{} (ticks {} to {})", path.display(), range.from, range.to);
    let options = RenderOptions { format, range, fps, title };
    let part = part_path(out);
    let file =
        File::create(&part).with_context(|| format!("cannot create {}", part.display())).exit_code(Exit::Runtime)?;
    let mut writer = BufWriter::new(file);
    let progress = Progress::default();
    let rendered = {
        let _bar = progress_bar(&format!("rendering {}", out.display()), &progress);
        view::render(&replay, &options, &interrupt_budget(), &progress, &mut writer)
    };
    let finished = rendered.map_err(|error| failure(path, error)).and_then(|frames| {
        let file = writer.into_inner().map_err(|error| error.into_error()).and_then(|file| file.sync_all());
        file.and_then(|()| std::fs::rename(&part, out))
            .with_context(|| format!("cannot write {}", out.display()))
            .exit_code(Exit::Runtime)?;
        Ok(frames)
    });
    match finished {
        Ok(frames) => {
            let size = std::fs::metadata(out).map_or(0, |metadata| metadata.len());
            println!("wrote {}: {frames} frames (ticks {} to {}), {size} bytes", out.display(), range.from, range.to);
            Ok(Exit::Success)
        }
        Err(failure) => {
            // A half-written picture is no use to anyone.
            let _ = std::fs::remove_file(&part);
            Err(failure)
        }
    }
}

fn read(path: &Path) -> Result<Replay, Failure> {
    let bytes =
        std::fs::read(path).with_context(|| format!("cannot read {}", path.display())).exit_code(Exit::BadInput)?;
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

/// Where a picture is written before it is whole.
fn part_path(path: &Path) -> PathBuf {
    let mut name = path.as_os_str().to_owned();
    name.push(".part");
    PathBuf::from(name)
}
