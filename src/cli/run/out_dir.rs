//! `run --out`: which directories a session may be written into (never a
//! file, the root, the home directory, another running session's, or one
//! holding files a session did not write), taking the session's lock, and
//! what `--overwrite` deletes (only what a session wrote).

use std::path::{Path, PathBuf};

use anyhow::{Context, anyhow};
use tickbot::input;
use tickbot::session::store::{LOCK_FILE, MANIFEST_FILE, REPLAY_DIR, RESULTS_FILE};
use tickbot::session::{SessionDir, SessionError};

use crate::cli::support::{Exit, ExitOnError, Failure};

pub(super) fn lock(out: &Path) -> Result<SessionDir, Failure> {
    let dir = SessionDir::lock(out).map_err(|error| {
        let code =
            if matches!(error, tickbot::session::SessionError::InUse { .. }) { Exit::BadInput } else { Exit::Runtime };
        Failure { code, error: error.into() }
    })?;
    if let Some(pid) = dir.stale_owner {
        tracing::info!(pid, "a stale lock from a session that is no longer running was taken over");
    }
    Ok(dir)
}

/// The refusal of a new session in a directory that holds one.
pub(super) fn already_a_session(out: &Path) -> Failure {
    Failure::bad_input(anyhow!(
        "{} already holds a session; continue it with `tickbot run --resume {}`, choose another --out, or pass \
         --overwrite to delete its results.jsonl, manifest.json and replays and start over",
        out.display(),
        out.display()
    ))
}

/// What a would-be session directory holds.
#[derive(Debug, Default)]
pub(super) struct OutContents {
    /// A results file, a manifest or a replay folder with something in it.
    pub(super) holds_session: bool,
    /// Names of what no session writes (this run's log folder aside).
    others: Vec<String>,
}

impl OutContents {
    pub(super) fn of(dir: &Path, log_dir: &Path) -> std::io::Result<OutContents> {
        let log_dir = std::fs::canonicalize(log_dir).ok();
        let mut contents = OutContents::default();
        let mut names: Vec<std::ffi::OsString> =
            std::fs::read_dir(dir)?.map(|entry| entry.map(|entry| entry.file_name())).collect::<Result<_, _>>()?;
        names.sort();
        for name in names {
            let path = dir.join(&name);
            let text = name.to_string_lossy();
            if [RESULTS_FILE, MANIFEST_FILE].contains(&text.as_ref()) {
                contents.holds_session = true;
            } else if text == REPLAY_DIR {
                contents.holds_session |= std::fs::read_dir(&path).is_ok_and(|mut entries| entries.next().is_some());
            } else if text == LOCK_FILE || text == format!("{MANIFEST_FILE}.part") {
                // Written by a session that stopped before its first game.
            } else if log_dir
                .as_ref()
                .is_some_and(|log_dir| std::fs::canonicalize(&path).is_ok_and(|path| log_dir.starts_with(path)))
            {
                // This run's own log folder (`--log-dir OUT/logs`).
            } else {
                contents.others.push(text.into_owned());
            }
        }
        Ok(contents)
    }
}

/// Refuses an `--out` that a new session must not write into, before
/// anything is written: a file; the filesystem's root or the home
/// directory; a directory another session holds; a non-empty directory
/// that holds no session (`--overwrite` deletes only what a session
/// writes, and a session does not mix its files with others'); and one
/// that holds a session, unless `--overwrite`.
pub(super) fn check_out_dir(out: &Path, overwrite: bool, log_dir: &Path) -> Result<(), Failure> {
    let shown = out.display();
    let metadata = match std::fs::metadata(out) {
        Ok(metadata) => metadata,
        Err(_) => {
            // It does not exist (or cannot be seen): `lock` creates it, and
            // says why if it cannot. A file on the way is bad input.
            if let Some(file) = out.ancestors().skip(1).find(|ancestor| ancestor.is_file()) {
                return Err(Failure::bad_input(anyhow!(
                    "--out {shown}: {} is a file, not a directory; give a directory for the session",
                    file.display()
                )));
            }
            return Ok(());
        }
    };
    if !metadata.is_dir() {
        return Err(Failure::bad_input(anyhow!(
            "--out {shown}: this is {}, not a directory; give a new or empty directory for the session (it is \
             created if missing)",
            input::kind_of(&metadata)
        )));
    }
    let canonical = std::fs::canonicalize(out).unwrap_or_else(|_| out.to_path_buf());
    let home =
        std::env::var_os("HOME").filter(|home| !home.is_empty()).and_then(|home| std::fs::canonicalize(home).ok());
    let refused = if canonical.parent().is_none() {
        Some("the root of the filesystem")
    } else if home.as_deref() == Some(canonical.as_path()) {
        Some("your home directory")
    } else {
        None
    };
    if let Some(what) = refused {
        return Err(Failure::bad_input(anyhow!(
            "--out {shown} is {what}: a session writes results.jsonl, manifest.json, session.lock and replays/ \
             into its directory, so give it one of its own (for example --out {})",
            canonical.join("tickbot-session").display()
        )));
    }
    if let Some(owner) = SessionDir::holder(out) {
        return Err(Failure::bad_input(SessionError::InUse { path: out.to_path_buf(), owner }));
    }
    let contents =
        OutContents::of(out, log_dir).with_context(|| format!("cannot list --out {shown}")).exit_code(Exit::Runtime)?;
    if contents.holds_session {
        return if overwrite { Ok(()) } else { Err(already_a_session(out)) };
    }
    if let Some(first) = contents.others.first() {
        return Err(Failure::bad_input(anyhow!(
            "--out {shown} is not empty and holds no session ({} entries, such as {first:?}): a session goes into a \
             new or empty directory, or one that holds a session, so that --overwrite never deletes what tickbot \
             did not write; choose another --out (for example --out {})",
            contents.others.len(),
            out.join("tickbot-session").display()
        )));
    }
    Ok(())
}

/// `--overwrite`: deletes what a session wrote and nothing else: its
/// results file and manifest, and under its replay folder the replays
/// (`*.tbr`) and unfinished replays (`*.part`), then the folders left
/// empty. The lock stays: this run holds it.
pub(super) fn remove_session_files(dir: &SessionDir) -> Result<(), Failure> {
    let cannot = |path: &Path, error: std::io::Error| Failure {
        code: Exit::Runtime,
        error: anyhow::Error::from(error).context(format!("cannot delete {}", path.display())),
    };
    for name in [RESULTS_FILE.to_string(), MANIFEST_FILE.to_string(), format!("{MANIFEST_FILE}.part")] {
        let path = dir.path().join(name);
        match std::fs::remove_file(&path) {
            Err(error) if error.kind() != std::io::ErrorKind::NotFound => return Err(cannot(&path, error)),
            _ => {}
        }
    }
    remove_replays(&dir.replay_dir()).map_err(|(path, error)| cannot(&path, error))
}

/// Deletes the `*.tbr` and `*.part` files under `folder`, then `folder`
/// and the folders below it if that left them empty.
fn remove_replays(folder: &Path) -> Result<(), (PathBuf, std::io::Error)> {
    let entries = match std::fs::read_dir(folder) {
        Ok(entries) => entries,
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => return Ok(()),
        Err(error) => return Err((folder.to_path_buf(), error)),
    };
    for entry in entries {
        let entry = entry.map_err(|error| (folder.to_path_buf(), error))?;
        let path = entry.path();
        let file_type = entry.file_type().map_err(|error| (path.clone(), error))?;
        if file_type.is_dir() {
            remove_replays(&path)?;
        } else if path.extension().is_some_and(|extension| extension == "tbr" || extension == "part") {
            std::fs::remove_file(&path).map_err(|error| (path.clone(), error))?;
        }
    }
    if std::fs::read_dir(folder).is_ok_and(|mut entries| entries.next().is_none()) {
        std::fs::remove_dir(folder).map_err(|error| (folder.to_path_buf(), error))?;
    }
    Ok(())
}
