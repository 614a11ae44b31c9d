//! What commands read from the command line and write to stdout besides
//! text: files collected from the paths given, JSON, and a small file
//! rewritten whole (a metrics file) for others to read while we run.

use std::path::{Path, PathBuf};

use anyhow::Context;
use serde::Serialize;

use super::exit::{Exit, ExitOnError, Failure};

pub(crate) fn print_json<T: Serialize>(value: &T) -> Result<(), Failure> {
    let text = serde_json::to_string(value).exit_code(Exit::Runtime)?;
    println!("{text}");
    Ok(())
}

/// Files are taken as given; directories are searched recursively for files
/// ending in `.{extension}`, in sorted order so reports are stable.
pub(crate) fn collect_files(path: &Path, extension: &str, out: &mut Vec<PathBuf>) -> anyhow::Result<()> {
    let metadata = std::fs::metadata(path).with_context(|| format!("cannot read {}", path.display()))?;
    if !metadata.is_dir() {
        out.push(path.to_path_buf());
        return Ok(());
    }
    let mut entries: Vec<PathBuf> = std::fs::read_dir(path)
        .with_context(|| format!("cannot list {}", path.display()))?
        .map(|entry| entry.map(|entry| entry.path()))
        .collect::<Result<_, _>>()
        .with_context(|| format!("cannot list {}", path.display()))?;
    entries.sort();
    for entry in entries {
        if entry.is_dir() {
            collect_files(&entry, extension, out)?;
        } else if entry.extension().is_some_and(|found| found == extension) {
            out.push(entry);
        }
    }
    Ok(())
}

/// Writes `text` to a hidden `.NAME.part` beside `path` and renames it over
/// `path`, so a reader (node-exporter's textfile collector) never sees
/// half a file.
pub(crate) fn replace_file(path: &Path, text: &str) -> anyhow::Result<()> {
    let name = path.file_name().with_context(|| format!("{}: not a file name", path.display()))?;
    let part = path.with_file_name(format!(".{}.part", name.to_string_lossy()));
    std::fs::write(&part, text).and_then(|()| std::fs::rename(&part, path)).map_err(|error| {
        let _ = std::fs::remove_file(&part);
        anyhow::Error::from(error).context(format!("cannot write the metrics file {}", path.display()))
    })
}
