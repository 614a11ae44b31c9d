//! `tickbot replay upgrade`: rewrites format version 1 replays as the
//! current version, in place and atomically, each new file checked to
//! decode and verify as the old one did before it replaces it.

use std::path::{Path, PathBuf};

use tickbot::replay::{self, DivergenceKind};

use super::{display_paths, replay_files};
use crate::cli::support::{Exit, Failure, interrupted};

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

pub(super) fn upgrade(paths: &[PathBuf]) -> Result<Exit, Failure> {
    let super::ReplayFiles { files, skipped, unreadable } = replay_files(paths);
    for skipped in &skipped {
        println!("{}", skipped.line());
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
    let bytes = replay::read_file(path).map_err(|error| invalid(error.to_string()))?;
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
