//! `tickbot replay stats`: the sizes and ticks of replays summed per game
//! and format version, and the bytes per tick.

use std::path::PathBuf;

use anyhow::anyhow;
use serde::Serialize;

use tickbot::replay::{self, ReplayError};

use super::display_paths;
use crate::cli::support::{Exit, Failure, interrupted, print_json};

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

pub(super) fn stats(paths: &[PathBuf], json: bool) -> Result<Exit, Failure> {
    let found = super::replay_files(paths);
    if let Some(error) = found.unreadable.first() {
        return Err(Failure::bad_input(anyhow!("{error}")));
    }
    for skipped in &found.skipped {
        eprintln!("{}", skipped.line());
    }
    let files = found.files;
    let mut groups = std::collections::BTreeMap::<(&'static str, u16), SizeStats>::new();
    let mut invalid = 0;
    for path in &files {
        if interrupted() {
            break;
        }
        let bytes = match replay::read_file(path) {
            Ok(bytes) => bytes,
            Err(ReplayError::Io(cause)) => {
                return Err(Failure::bad_input(anyhow!("cannot read {}: {cause}", path.display())));
            }
            Err(_) => {
                invalid += 1;
                continue;
            }
        };
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
