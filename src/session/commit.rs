//! Group commit: finished games made durable together. A game's replay is
//! written as `<path>.part` while it plays and sealed (footer written,
//! flushed, not synced) when it ends; every few tens of milliseconds the
//! session commits the games finished since the last commit in one go:
//!
//! 1. every sealed replay is synced (`fdatasync`, several at once, so the
//!    filesystem's journal takes them in one commit instead of one each);
//! 2. each is renamed from `.part` to its name, and each directory that
//!    gained a name is synced (a directory made since the last commit,
//!    its parent too);
//! 3. the games' results lines are appended in one write and synced once.
//!
//! So a results line is durable only after its replay, as when each game
//! was synced on its own. A crash (`kill -9`, a power cut) at any point
//! leaves: `.part` files (deleted on resume, their games played again);
//! replays under their names whose lines were not yet synced (their games
//! are played again and the same bytes renamed over them); or a last
//! results line cut short (cut away on resume). Either way a resumed
//! session ends with exactly the results of an uninterrupted one.

use std::collections::BTreeSet;
use std::fs::{self, File};
use std::io;
use std::path::{Path, PathBuf};

use crate::replay::io::part_path;
use crate::replay::{Footer, Frame, Header, ReplayFile};
use crate::session::{GameRecord, ResultsFile, SessionError};

/// Threads that sync replays at once in a commit: enough for the journal
/// to gather the syncs of a busy commit, few enough to cost little.
const SYNC_THREADS: usize = 16;

/// A replay being written: frames go to `<path>.part` through a buffer.
#[derive(Debug)]
pub(super) struct ReplayPart {
    file: ReplayFile,
}

impl ReplayPart {
    /// Creates `<path>.part` (and its folder) and writes the header.
    pub(super) fn create(path: &Path, header: &Header) -> Result<ReplayPart, SessionError> {
        match ReplayFile::create(path, header) {
            Ok(file) => Ok(ReplayPart { file }),
            Err(cause) => {
                let _ = fs::remove_file(part_path(path));
                Err(replay_error(path, cause))
            }
        }
    }

    pub(super) fn frame(&mut self, frame: Frame) -> Result<(), SessionError> {
        self.file.frame(frame).map_err(|cause| replay_error(self.file.path(), cause))
    }

    /// Writes the footer and flushes the file: complete, not yet durable.
    /// On failure the `.part` file is deleted.
    pub(super) fn seal(self, footer: &Footer) -> Result<Sealed, SessionError> {
        let path = self.file.path().to_path_buf();
        match self.file.seal(footer).and_then(|file| Ok((file.metadata()?.len(), file))) {
            Ok((bytes, file)) => Ok(Sealed { file, path, bytes }),
            Err(cause) => {
                let _ = fs::remove_file(part_path(&path));
                Err(replay_error(&path, cause))
            }
        }
    }

    /// Closes the file and deletes it: nothing half-written is left.
    pub(super) fn discard(self) {
        let part = self.file.part_path().to_path_buf();
        drop(self.file);
        let _ = fs::remove_file(part);
    }
}

/// A complete replay under its `.part` name, waiting for a commit.
#[derive(Debug)]
pub(super) struct Sealed {
    file: File,
    path: PathBuf,
    /// Its size, for the disk budget.
    pub(super) bytes: u64,
}

impl Sealed {
    pub(super) fn path(&self) -> &Path {
        &self.path
    }

    /// Deletes it (a game not recorded after all).
    pub(super) fn discard(self) {
        let part = part_path(&self.path);
        drop(self.file);
        let _ = fs::remove_file(part);
    }
}

/// One finished game waiting for a commit: its record (the results line;
/// `None` for a game played alone, which has no results file) and its
/// sealed replay, if it keeps one.
#[derive(Debug)]
pub(super) struct Pending {
    pub(super) entry_number: usize,
    pub(super) record: GameRecord,
    pub(super) replay: Option<Sealed>,
}

/// What a commit did: the games now durable, or the error that stopped
/// it with the games it could not record.
pub(super) struct Committed {
    pub(super) recorded: Vec<(usize, GameRecord)>,
    pub(super) failure: Option<(SessionError, usize)>,
}

/// The directories whose own entries are known durable: a replay folder
/// made since is synced in its parent at its first commit.
#[derive(Debug, Default)]
pub(super) struct KnownDirs(BTreeSet<PathBuf>);

/// Commits `games` in order (see the module docs), leaving the list empty
/// (its room kept for later batches): replays synced and renamed, their
/// directories synced, then the results lines appended and synced once.
/// On a failure nothing of the batch is recorded; replays not yet renamed
/// are deleted.
pub(super) fn commit(games: &mut Vec<Pending>, results: Option<&mut ResultsFile>, known: &mut KnownDirs) -> Committed {
    let count = games.len();
    let mut records = Vec::with_capacity(count);
    let mut replays = Vec::new();
    for game in games.drain(..) {
        records.push((game.entry_number, game.record));
        replays.extend(game.replay);
    }
    if let Err(error) = make_durable(replays, known) {
        return Committed { recorded: Vec::new(), failure: Some((error, count)) };
    }
    let appended = match results {
        Some(file) => file.append_all(records.iter().map(|(_, record)| record)),
        None => Ok(()),
    };
    match appended {
        Ok(()) => Committed { recorded: records, failure: None },
        Err(error) => Committed { recorded: Vec::new(), failure: Some((error, count)) },
    }
}

/// Syncs the replays (several threads at once), renames each into place
/// and syncs the directories that gained names.
fn make_durable(replays: Vec<Sealed>, known: &mut KnownDirs) -> Result<(), SessionError> {
    if replays.is_empty() {
        return Ok(());
    }
    let synced =
        in_parallel(&replays, |replay| replay.file.sync_data().map_err(|cause| replay_error(&replay.path, cause)));
    if let Err(error) = synced {
        replays.into_iter().for_each(Sealed::discard);
        return Err(error);
    }
    let mut dirs = BTreeSet::new();
    let mut replays = replays.into_iter();
    while let Some(replay) = replays.next() {
        let Sealed { file, path, .. } = replay;
        drop(file);
        if let Err(cause) = fs::rename(part_path(&path), &path) {
            let _ = fs::remove_file(part_path(&path));
            replays.for_each(Sealed::discard);
            return Err(replay_error(&path, cause));
        }
        let parent = folder_of(&path);
        if dirs.insert(parent.to_path_buf()) && !known.0.contains(parent) {
            // A folder new since the last commit: its own name too.
            dirs.extend(parent.parent().map(|grand| folder_of_name(grand).to_path_buf()));
        }
    }
    let dirs: Vec<PathBuf> = dirs.into_iter().collect();
    in_parallel(&dirs, |dir| sync_dir(dir))?;
    known.0.extend(dirs);
    Ok(())
}

/// The folder a file's name is in (`.` for a bare name).
fn folder_of(path: &Path) -> &Path {
    folder_of_name(path.parent().unwrap_or(Path::new(".")))
}

/// A folder's path, `.` where it is empty (the parent of a bare name).
fn folder_of_name(folder: &Path) -> &Path {
    if folder.as_os_str().is_empty() { Path::new(".") } else { folder }
}

/// Runs `work` on every item, on up to [`SYNC_THREADS`] threads; the first
/// error, if any.
fn in_parallel<T: Sync>(items: &[T], work: impl Fn(&T) -> Result<(), SessionError> + Sync) -> Result<(), SessionError> {
    if items.len() <= 1 {
        return items.iter().try_for_each(work);
    }
    let threads = items.len().min(SYNC_THREADS);
    let chunk = items.len().div_ceil(threads);
    let work = &work;
    std::thread::scope(|scope| {
        let handles: Vec<_> =
            items.chunks(chunk).map(|chunk| scope.spawn(move || chunk.iter().try_for_each(work))).collect();
        let mut first = Ok(());
        for handle in handles {
            let result = handle.join().unwrap_or_else(|_| Err(SessionError::Task("a sync thread panicked".into())));
            if first.is_ok() {
                first = result;
            }
        }
        first
    })
}

/// Syncs a directory so the names made in it survive a power cut. Not
/// every platform can open or sync a directory, and the replays' data is
/// synced already, so a failure is ignored (as for the manifest's).
fn sync_dir(dir: &Path) -> Result<(), SessionError> {
    if let Ok(handle) = File::open(dir) {
        let _ = handle.sync_all();
    }
    Ok(())
}

fn replay_error(path: &Path, cause: io::Error) -> SessionError {
    SessionError::Replay { path: path.to_path_buf(), cause }
}
