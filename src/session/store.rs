//! A session's directory on disk: the lock that keeps a second session
//! out, `manifest.json` (what the session plays, written before its first
//! game), `results.jsonl` (one line per finished game, appended and synced
//! a group at a time), and what a resumed session reads back from them: the games
//! already recorded and their running totals. Plain blocking I/O: each
//! append is one write and one sync for the games of a group commit
//! (`commit.rs`).

use std::collections::{BTreeMap, BTreeSet};
use std::fs::{self, File, OpenOptions};
use std::io::{self, BufRead, BufReader, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::game::OutcomeKind;
use crate::session::sprt::Half;
use crate::session::{GameRecord, SessionError, Shard, Totals};

/// The results file's name inside a session directory.
pub const RESULTS_FILE: &str = "results.jsonl";
/// The manifest's name inside a session directory.
pub const MANIFEST_FILE: &str = "manifest.json";
/// The lock file's name inside a session directory.
pub const LOCK_FILE: &str = "session.lock";
/// The replays' folder inside a session directory.
pub const REPLAY_DIR: &str = "replays";

/// What a session directory records about its session, before any game.
#[derive(Clone, Debug, Deserialize, Serialize, PartialEq)]
pub struct Manifest {
    /// The tickbot version that started the session.
    pub tickbot_version: String,
    /// Seconds since the Unix epoch when the session first started.
    pub started_unix_s: u64,
    pub master_seed: u64,
    /// The effective session file, entries named and weighted, as JSON.
    pub config: serde_json::Value,
    /// The one shard of the session this directory plays (`run --shard`);
    /// absent for a whole session, and for a merged one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub shard: Option<Shard>,
}

/// A session directory held for the life of this value: the lock file is
/// locked (the operating system drops the lock when the process ends,
/// however it ends, so a lock left by a killed session is never in force).
#[derive(Debug)]
pub struct SessionDir {
    path: PathBuf,
    lock: File,
    /// The process that held the lock before, if its lock file named one
    /// and it is gone: a stale lock, taken over.
    pub stale_owner: Option<u32>,
}

impl SessionDir {
    /// Creates `path` if needed and locks it; refuses a directory another
    /// session holds, naming its process.
    pub fn lock(path: &Path) -> Result<SessionDir, SessionError> {
        let error = |cause| SessionError::Dir { path: path.to_path_buf(), cause };
        fs::create_dir_all(path).map_err(error)?;
        let lock_path = path.join(LOCK_FILE);
        let mut lock = OpenOptions::new()
            .read(true)
            .write(true)
            .create(true)
            .truncate(false)
            .open(&lock_path)
            .map_err(|cause| SessionError::Dir { path: lock_path.clone(), cause })?;
        let mut previous = String::new();
        let _ = io::Read::read_to_string(&mut lock, &mut previous);
        let previous_owner = previous.trim().parse::<u32>().ok();
        // fs4's lock (flock on Unix) rather than std's, which needs a newer Rust.
        match fs4::FileExt::try_lock(&lock) {
            Ok(()) => {}
            Err(fs4::TryLockError::WouldBlock) => {
                return Err(SessionError::InUse { path: path.to_path_buf(), owner: previous_owner });
            }
            Err(fs4::TryLockError::Error(cause)) => return Err(SessionError::Dir { path: lock_path, cause }),
        }
        let write_owner = |lock: &mut File| -> io::Result<()> {
            lock.set_len(0)?;
            lock.seek(SeekFrom::Start(0))?;
            // Not synced: the process named is only read while it holds
            // the lock, and a crash releases the lock with the process.
            writeln!(lock, "{}", std::process::id())
        };
        write_owner(&mut lock).map_err(|cause| SessionError::Dir { path: lock_path, cause })?;
        let stale_owner = previous_owner.filter(|&owner| owner != std::process::id());
        Ok(SessionDir { path: path.to_path_buf(), lock, stale_owner })
    }

    /// Whether a running session holds `path`, without taking the lock or
    /// writing anything: `Some` with the process its lock file names if
    /// one does, `None` if none does (or the directory has no lock file).
    pub fn holder(path: &Path) -> Option<Option<u32>> {
        let mut lock = File::open(path.join(LOCK_FILE)).ok()?;
        match fs4::FileExt::try_lock_shared(&lock) {
            Err(fs4::TryLockError::WouldBlock) => {
                let mut owner = String::new();
                let _ = io::Read::read_to_string(&mut lock, &mut owner);
                Some(owner.trim().parse().ok())
            }
            // Closing the file releases the shared lock.
            _ => None,
        }
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    pub fn results_path(&self) -> PathBuf {
        self.path.join(RESULTS_FILE)
    }

    pub fn manifest_path(&self) -> PathBuf {
        self.path.join(MANIFEST_FILE)
    }

    pub fn replay_dir(&self) -> PathBuf {
        self.path.join(REPLAY_DIR)
    }

    /// The manifest, if the directory has one.
    pub fn read_manifest(&self) -> Result<Option<Manifest>, SessionError> {
        let path = self.manifest_path();
        match fs::read(&path) {
            Ok(bytes) => serde_json::from_slice(&bytes)
                .map(Some)
                .map_err(|error| SessionError::Manifest { path, message: error.to_string() }),
            Err(cause) if cause.kind() == io::ErrorKind::NotFound => Ok(None),
            Err(cause) => Err(SessionError::Dir { path, cause }),
        }
    }

    /// Writes the manifest durably (temporary file, sync, rename).
    pub fn write_manifest(&self, manifest: &Manifest) -> Result<(), SessionError> {
        let path = self.manifest_path();
        let part = self.path.join(format!("{MANIFEST_FILE}.part"));
        let write = || -> io::Result<()> {
            let mut text = serde_json::to_vec_pretty(manifest).map_err(io::Error::other)?;
            text.push(b'\n');
            let mut file = File::create(&part)?;
            file.write_all(&text)?;
            file.sync_all()?;
            fs::rename(&part, &path)?;
            sync_dir(&self.path);
            Ok(())
        };
        write().map_err(|cause| {
            let _ = fs::remove_file(&part);
            SessionError::Dir { path: path.clone(), cause }
        })
    }

    /// Deletes every `*.part` file under the replay folder: replays that a
    /// killed session never finished. Their games are not in the results,
    /// so they are played again.
    pub fn remove_unfinished_replays(&self) -> Result<u64, SessionError> {
        let mut removed = 0;
        let mut pending = vec![self.replay_dir()];
        while let Some(dir) = pending.pop() {
            let entries = match fs::read_dir(&dir) {
                Ok(entries) => entries,
                Err(cause) if cause.kind() == io::ErrorKind::NotFound => continue,
                Err(cause) => return Err(SessionError::Dir { path: dir, cause }),
            };
            for entry in entries {
                let path = entry.map_err(|cause| SessionError::Dir { path: dir.clone(), cause })?.path();
                if path.is_dir() {
                    pending.push(path);
                } else if path.extension().is_some_and(|extension| extension == "part") {
                    fs::remove_file(&path).map_err(|cause| SessionError::Dir { path: path.clone(), cause })?;
                    removed += 1;
                }
            }
        }
        Ok(removed)
    }

    /// Bytes the replay folder holds now (for the disk budget).
    pub(crate) fn replay_bytes(&self) -> u64 {
        let mut bytes = 0;
        let mut pending = vec![self.replay_dir()];
        while let Some(dir) = pending.pop() {
            for entry in fs::read_dir(&dir).into_iter().flatten().flatten() {
                match entry.metadata() {
                    Ok(metadata) if metadata.is_dir() => pending.push(entry.path()),
                    Ok(metadata) => bytes += metadata.len(),
                    Err(_) => {}
                }
            }
        }
        bytes
    }
}

impl Drop for SessionDir {
    /// An emptied lock file says the session ended; one still naming a
    /// process says it was killed (the next session reports a stale lock).
    fn drop(&mut self) {
        let _ = self.lock.set_len(0);
    }
}

/// Syncs a directory so a rename in it survives a power cut; not every
/// platform can open a directory, and the data is already safe, so a
/// failure is ignored.
fn sync_dir(dir: &Path) {
    if let Ok(dir) = File::open(dir) {
        let _ = dir.sync_all();
    }
}

/// The games one entry has recorded: all indices below `prefix`, and the
/// ones above it in `beyond`. Games finish nearly in order, so `beyond`
/// stays as small as the number of games played at once.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct Recorded {
    prefix: u64,
    beyond: BTreeSet<u64>,
}

impl Recorded {
    pub(crate) fn insert(&mut self, index: u64) -> bool {
        if index < self.prefix || !self.beyond.insert(index) {
            return false;
        }
        while self.beyond.remove(&self.prefix) {
            self.prefix += 1;
        }
        true
    }

    pub(crate) fn contains(&self, index: u64) -> bool {
        index < self.prefix || self.beyond.contains(&index)
    }

    pub(crate) fn count(&self) -> u64 {
        self.prefix + self.beyond.len() as u64
    }
}

/// What a results file says so far: per entry, the games recorded and
/// their totals.
#[derive(Debug, Default)]
pub struct Recovered {
    pub(crate) recorded: BTreeMap<String, Recorded>,
    pub totals: BTreeMap<String, Totals>,
    /// Bytes of a torn last line that were cut away.
    pub torn_bytes: u64,
    /// The games of the entries asked for ([`ResultsFile::open_keeping`]):
    /// entry, index and what the game showed, in the file's order.
    pub(crate) kept: Vec<(String, u64, Half)>,
}

/// The fields of a results line a resumed session needs.
#[derive(Deserialize)]
struct RecordedLine {
    entry: String,
    index: u64,
    outcome: OutcomeKind,
    ticks: u32,
    score: i64,
    #[serde(default)]
    planner_us: u64,
}

/// A whole results line, read back (`tickbot stats` reads these): the
/// fields of a `GameRecord` in the same order, owned, so that a line read
/// and written again is the same bytes.
#[derive(Clone, Debug, Deserialize, Serialize, PartialEq, Eq)]
pub(crate) struct ResultLine {
    pub(crate) id: String,
    pub(crate) entry: String,
    pub(crate) index: u64,
    pub(crate) game: String,
    pub(crate) level: String,
    pub(crate) planner: String,
    pub(crate) seed: u64,
    pub(crate) outcome: OutcomeKind,
    pub(crate) reason: String,
    pub(crate) ticks: u32,
    pub(crate) score: i64,
    #[serde(default)]
    pub(crate) planner_us: u64,
    #[serde(default)]
    pub(crate) elapsed_us: u64,
    pub(crate) replay: Option<PathBuf>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub(crate) agents: Vec<Option<String>>,
}

/// The results file, open for appending.
#[derive(Debug)]
pub struct ResultsFile {
    file: File,
    path: PathBuf,
    /// The lines of a commit, kept for the next one's.
    lines: String,
}

impl ResultsFile {
    /// Opens (creating) the results file at `path`. A last line cut short
    /// by a crash (no newline, or not JSON) is cut away; a damaged line
    /// before the last is an error naming it. Returns what the file holds.
    pub fn open(path: &Path) -> Result<(ResultsFile, Recovered), SessionError> {
        ResultsFile::open_keeping(path, &[])
    }

    /// [`ResultsFile::open`], keeping every game of the entries named in
    /// `keep` (a session's test, rebuilt on resume, needs its two entries').
    pub fn open_keeping(path: &Path, keep: &[&str]) -> Result<(ResultsFile, Recovered), SessionError> {
        let error = |cause| SessionError::Results { path: path.to_path_buf(), cause };
        let file = OpenOptions::new().read(true).append(true).create(true).open(path).map_err(error)?;
        let mut recovered = Recovered::default();
        if !file.metadata().map_err(error)?.is_file() {
            // A device or pipe (`/dev/full` in tests): nothing to read back.
            return Ok((ResultsFile { file, path: path.to_path_buf(), lines: String::new() }, recovered));
        }
        let mut reader = BufReader::new(&file);
        let mut line = Vec::new();
        let mut good_end = 0u64;
        let mut line_number = 0u64;
        loop {
            line.clear();
            let read = reader.read_until(b'\n', &mut line).map_err(error)?;
            if read == 0 {
                break;
            }
            line_number += 1;
            let whole = line.last() == Some(&b'\n');
            match serde_json::from_slice::<RecordedLine>(&line) {
                Ok(parsed) if whole => {
                    good_end += read as u64;
                    if recovered.recorded.entry(parsed.entry.clone()).or_default().insert(parsed.index) {
                        if keep.contains(&parsed.entry.as_str()) {
                            let half = Half { outcome: parsed.outcome, score: parsed.score, ticks: parsed.ticks };
                            recovered.kept.push((parsed.entry.clone(), parsed.index, half));
                        }
                        recovered.totals.entry(parsed.entry).or_default().add(
                            parsed.outcome,
                            parsed.ticks,
                            parsed.score,
                            parsed.planner_us,
                        );
                    }
                }
                _ => {
                    // Only the last line can be torn: a crash interrupts the
                    // one write in progress, and every earlier one was synced.
                    let mut rest = Vec::new();
                    io::Read::read_to_end(&mut reader, &mut rest).map_err(error)?;
                    if !rest.is_empty() {
                        return Err(SessionError::Corrupt {
                            path: path.to_path_buf(),
                            line: line_number,
                            message: String::from_utf8_lossy(&line).trim_end().chars().take(80).collect(),
                        });
                    }
                    recovered.torn_bytes = read as u64;
                    break;
                }
            }
        }
        drop(reader);
        if recovered.torn_bytes > 0 {
            file.set_len(good_end).map_err(error)?;
            file.sync_all().map_err(error)?;
        }
        Ok((ResultsFile { file, path: path.to_path_buf(), lines: String::new() }, recovered))
    }

    /// Appends the records as lines in one write and syncs them once. A
    /// write that fails part way is cut back, so the file never ends in a
    /// torn line and holds either all of them or none.
    pub(crate) fn append_all<'a>(&mut self, records: impl Iterator<Item = &'a GameRecord>) -> Result<(), SessionError> {
        let error = |cause| SessionError::Results { path: self.path.clone(), cause };
        let mut lines = std::mem::take(&mut self.lines);
        lines.clear();
        for record in records {
            record.push_line(&mut lines).map_err(|cause| error(io::Error::other(cause)))?;
        }
        let written = self.write_lines(lines.as_bytes());
        self.lines = lines;
        written
    }

    fn write_lines(&mut self, lines: &[u8]) -> Result<(), SessionError> {
        let error = |cause| SessionError::Results { path: self.path.clone(), cause };
        if lines.is_empty() {
            return Ok(());
        }
        let before = self.file.metadata().map_err(error)?.len();
        let written = self.file.write_all(lines).and_then(|()| self.file.sync_data());
        if let Err(cause) = written {
            let _ = self.file.set_len(before);
            let _ = self.file.sync_data();
            return Err(error(cause));
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn recorded_sets_stay_small_when_games_finish_nearly_in_order() {
        let mut recorded = Recorded::default();
        for index in [1, 0, 3, 2, 5] {
            assert!(recorded.insert(index));
        }
        assert!(!recorded.insert(2));
        assert_eq!((recorded.prefix, recorded.beyond.len(), recorded.count()), (4, 1, 5));
        assert!(recorded.contains(5) && !recorded.contains(4));
    }

    #[test]
    fn a_second_lock_is_refused_and_a_dropped_one_is_free() {
        let dir = tempfile::tempdir().unwrap();
        let held = SessionDir::lock(dir.path()).unwrap();
        let refused = SessionDir::lock(dir.path()).unwrap_err();
        assert!(matches!(refused, SessionError::InUse { owner: Some(pid), .. } if pid == std::process::id()));
        drop(held);
        SessionDir::lock(dir.path()).unwrap();
    }

    #[test]
    fn a_torn_last_line_is_cut_and_a_damaged_middle_line_refused() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join(RESULTS_FILE);
        let line = |index: u64| {
            format!(
                "{{\"entry\":\"a\",\"index\":{index},\"outcome\":\"won\",\"ticks\":3,\"score\":2,\"planner_us\":5}}\n"
            )
        };
        fs::write(&path, format!("{}{}{{\"entry\":\"a\",\"ind", line(0), line(1))).unwrap();
        let (_, recovered) = ResultsFile::open(&path).unwrap();
        assert_eq!(recovered.recorded["a"].count(), 2);
        assert_eq!(recovered.totals["a"].won, 2);
        assert!(recovered.torn_bytes > 0);
        assert_eq!(fs::read_to_string(&path).unwrap(), format!("{}{}", line(0), line(1)));
        fs::write(&path, format!("{}garbage\n{}", line(0), line(1))).unwrap();
        let error = ResultsFile::open(&path).unwrap_err();
        assert!(matches!(error, SessionError::Corrupt { line: 2, .. }), "{error}");
    }
}
