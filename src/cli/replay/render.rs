//! `tickbot replay render`: a replay drawn for watching, as an HTML page,
//! an animated GIF or an SVG (the format follows `--out`'s extension),
//! written as `NAME.part` and renamed into place once whole.

use std::fs::File;
use std::io::BufWriter;
use std::path::{Path, PathBuf};

use anyhow::{Context, anyhow};

use tickbot::progress::Progress;
use tickbot::view::{self, Format, RenderOptions, TickRange};

use super::{failure, read};
use crate::cli::support::{Exit, ExitOnError, Failure, interrupt_budget, progress_bar};

/// `replay render FILE --out NAME.html|NAME.gif|NAME.svg [--from T] [--to T] [--fps N]`.
pub(super) fn render(path: &Path, out: &Path, from: Option<u32>, to: Option<u32>, fps: u32) -> Result<Exit, Failure> {
    let extension = out.extension().and_then(|extension| extension.to_str()).unwrap_or("");
    let Some(format) = Format::from_extension(extension) else {
        return Err(Failure::bad_input(anyhow!(
            "--out {}: the file name must end in .html, .gif or .svg (the format to write)",
            out.display()
        )));
    };
    let replay = read(path)?;
    let range = TickRange::of(&replay, from, to).map_err(|error| failure(path, error))?;
    // A page or picture is made to be shared: its title names the replay
    // file, not the directories of the machine it was rendered on.
    let name = path.file_name().map_or_else(|| path.display().to_string(), |name| name.to_string_lossy().into_owned());
    let title = format!("{name} (ticks {} to {})", range.from, range.to);
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

/// Where a picture is written before it is whole.
fn part_path(path: &Path) -> PathBuf {
    let mut name = path.as_os_str().to_owned();
    name.push(".part");
    PathBuf::from(name)
}
