//! Merging the directories of a sharded session (`run --shard I/N`) into
//! one session directory, as if the session had run unsplit on one
//! machine: the manifests must agree (tickbot version, master seed, the
//! settings that decide results, shard count), an id recorded twice (a
//! shard run again elsewhere) is kept once, missing ids are listed as
//! runs, and the output is `results.jsonl` entry by entry (in the session
//! file's order), each entry's games by index, with every line byte for
//! byte as its shard wrote it but for its replay path; the replays are
//! hard-linked where the filesystem allows, else copied; and a manifest
//! of the whole session, so `replay verify`, `stats` and `run --resume`
//! (which plays any missing games) take the merged directory as they take
//! an unsplit one.
//!
//! Memory: about 40 bytes per results line (where each line is, not the
//! line), never the lines themselves. Nothing is written into the shard
//! directories, and the output is built in a hidden directory beside
//! `--out` and renamed into place only when whole, so a stopped merge
//! leaves no half-merged `--out`.

use std::collections::BTreeMap;
use std::fmt;
use std::fs::{self, File};
use std::io::{self, BufRead, BufReader, BufWriter, Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};

use serde::Deserialize;

use crate::game::OutcomeKind;
use crate::progress::Progress;
use crate::session::spec::{MAX_MANIFEST_BYTES, SessionSpec};
use crate::session::sprt::{Half, SessionTest, SessionVerdict};
use crate::session::store::{MANIFEST_FILE, Manifest, REPLAY_DIR, RESULTS_FILE, SessionDir};
use crate::session::{Schedule, Shard, game_id, replay_path};

/// The longest results line read: one is a few hundred bytes, so a longer
/// one is damage (or not a results file), never held in memory whole.
const MAX_LINE_BYTES: u64 = 1 << 20;

/// At most this many runs of missing ids are kept for the report; the
/// count of missing games is always whole.
const MAX_MISSING_RUNS: usize = 1000;

/// Why shard directories cannot be merged.
#[derive(Debug, thiserror::Error)]
pub enum MergeError {
    #[error("{path} has no {MANIFEST_FILE}: it is not a session directory")]
    NotASession { path: PathBuf },
    #[error("{path} is in use by a running session{}: merge it once that session has ended",
        .owner.map_or_else(String::new, |pid| format!(" (process {pid})")))]
    InUse { path: PathBuf, owner: Option<u32> },
    #[error("{path}: not a session manifest: {message}")]
    Manifest { path: PathBuf, message: String },
    #[error("{path} is not a shard of the session in {first}: {difference}")]
    Mismatch { path: PathBuf, first: PathBuf, difference: String },
    #[error("{path}: line {line}: {message}")]
    Line { path: PathBuf, line: u64, message: String },
    #[error("{results}: line {line} records {id} with a replay, but {replay} is missing")]
    MissingReplay { results: PathBuf, line: u64, id: String, replay: PathBuf },
    #[error("{path} is not empty: merge into a new or empty directory")]
    OutNotEmpty { path: PathBuf },
    #[error("--out {path} is a file, not a directory: give a new or empty directory for the merged session")]
    OutIsAFile { path: PathBuf },
    #[error("{path}: {cause}")]
    Io { path: PathBuf, cause: io::Error },
    #[error("interrupted: nothing was written to {out}")]
    Interrupted { out: PathBuf },
}

fn io_error(path: &Path) -> impl Fn(io::Error) -> MergeError + '_ {
    move |cause| MergeError::Io { path: path.to_path_buf(), cause }
}

/// One directory to merge.
#[derive(Debug)]
struct Source {
    path: PathBuf,
    manifest: Manifest,
    shard: Shard,
}

/// Where one results line is: its game, which source, and its bytes there.
#[derive(Clone, Copy, Debug)]
struct LineRef {
    entry: u32,
    index: u64,
    source: u32,
    line: u64,
    offset: u64,
    length: u32,
    has_replay: bool,
}

/// The fields of a results line the merge reads.
#[derive(Deserialize)]
struct LineFields {
    entry: String,
    index: u64,
    #[serde(default)]
    replay: Option<String>,
    /// What the game showed, for a session's test.
    outcome: Option<OutcomeKind>,
    #[serde(default)]
    ticks: u32,
    #[serde(default)]
    score: i64,
}

/// A game of a session's test as the merge reads it: its entry, index,
/// directory, and what it showed.
type TestGame = (u32, u64, u32, Half);

/// A run of missing ids of one entry: `first`, `first + step`, ... `last`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MissingRun {
    pub(crate) entry: String,
    pub(crate) first: u64,
    pub(crate) last: u64,
    pub(crate) step: u64,
    pub(crate) games: u64,
}

impl fmt::Display for MissingRun {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let first = game_id(&self.entry, self.first);
        match (self.games, self.step) {
            (1, _) => write!(f, "{first}"),
            (2, step) if step > 1 => write!(f, "{first} and {}", game_id(&self.entry, self.last)),
            (games, 1) => write!(f, "{first} to {} ({games} games)", game_id(&self.entry, self.last)),
            (games, step) => {
                write!(f, "{first} to {} in steps of {step} ({games} games)", game_id(&self.entry, self.last))
            }
        }
    }
}

/// Missing ids, gathered in order into runs of one step.
#[derive(Debug, Default)]
pub struct Missing {
    /// The first runs, at most [`MAX_MISSING_RUNS`].
    pub runs: Vec<MissingRun>,
    /// Runs left out of `runs`.
    pub more_runs: u64,
    pub games: u64,
    open: Option<MissingRun>,
}

impl Missing {
    /// Adds the ids `from..to` of `entry`, which are missing.
    fn add(&mut self, entry: &str, from: u64, to: u64) {
        for index in from..to {
            self.games += 1;
            if let Some(run) = &mut self.open {
                if run.entry == entry && (run.games == 1 || index - run.last == run.step) {
                    run.step = index - run.last;
                    run.last = index;
                    run.games += 1;
                    continue;
                }
                // A run of two at an odd step whose next id is one on: the
                // second starts the next run (a range of consecutive ids).
                if run.games == 2 && run.step > 1 && index == run.last + 1 && run.entry == entry {
                    let second = run.last;
                    run.last = run.first;
                    run.games = 1;
                    run.step = 1;
                    self.close();
                    self.open = Some(MissingRun { entry: entry.into(), first: second, last: index, step: 1, games: 2 });
                    continue;
                }
            }
            self.close();
            self.open = Some(MissingRun { entry: entry.into(), first: index, last: index, step: 1, games: 1 });
        }
    }

    fn close(&mut self) {
        if let Some(run) = self.open.take() {
            if self.runs.len() < MAX_MISSING_RUNS {
                self.runs.push(run);
            } else {
                self.more_runs += 1;
            }
        }
    }
}

/// Shard directories read, checked against each other, and indexed: what
/// [`Merge::write`] writes. Nothing is written until then.
#[derive(Debug)]
pub struct Merge {
    sources: Vec<Source>,
    entry_names: Vec<String>,
    /// Kept lines, in id order, one per id.
    lines: Vec<LineRef>,
    /// The shard count every directory agrees on (1: whole sessions).
    pub shard_count: u64,
    /// Ids recorded by more than one directory: the first directory given keeps each.
    pub duplicates: u64,
    /// Last lines cut short by a killed shard, left out (their games are missing).
    pub torn_lines: u64,
    /// Whether the session has a fixed number of games; if not (entries
    /// with a weight and no game count, stopped by a duration or Ctrl-C),
    /// only ids below each entry's highest recorded one can be missing.
    pub bounded: bool,
    /// Games of the whole session (bounded), or up to each entry's highest recorded id.
    pub expected: u64,
    pub missing: Missing,
    /// The session's sequential test over the merged games in index order,
    /// if it runs one: the verdict of the session run unsplit. Games of A
    /// and B past its decision are never missing.
    pub sprt: Option<(SessionTest, SessionVerdict)>,
}

/// What [`Merge::write`] did.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct Written {
    pub games: u64,
    /// Replays hard-linked (the shard's file and the merged one share the disk space).
    pub linked: u64,
    /// Replays copied (another filesystem, or one without hard links).
    pub copied: u64,
}

impl Merge {
    /// Reads the manifests and results files of `dirs` (read only), checks
    /// that they are shards of one session, and finds the missing ids.
    /// `progress` counts the directories read.
    pub fn open(dirs: &[PathBuf], progress: &Progress) -> Result<Merge, MergeError> {
        let mut sources = Vec::new();
        for path in dirs {
            sources.push(read_source(path)?);
        }
        let first = sources.first().expect("at least one directory");
        let spec = session_spec(first)?;
        for source in &sources[1..] {
            check_same_session(first, &spec, source)?;
        }
        let entry_names: Vec<String> =
            (0..spec.entries.len()).map(|number| spec.entry_name(number).to_string()).collect();
        let entry_numbers: BTreeMap<&str, u32> =
            entry_names.iter().enumerate().map(|(number, name)| (name.as_str(), number as u32)).collect();
        progress.set_total(sources.len() as u64);
        let test = SessionTest::of(&spec);
        let test_entries: Vec<u32> = test.iter().flat_map(|test| [test.a as u32, test.b as u32]).collect();
        let mut lines = Vec::new();
        let mut test_games = Vec::new();
        let mut torn_lines = 0;
        for (number, source) in sources.iter().enumerate() {
            let into = Indexed { lines: &mut lines, test_entries: &test_entries, test_games: &mut test_games };
            torn_lines += index_results(source, number as u32, &entry_numbers, into)?;
            progress.advance(1);
        }
        let sprt = test.map(|test| {
            let verdict = test_verdict(&test, test_games);
            (test, verdict)
        });
        // A whole session stops once its test decides: A's and B's games
        // from the deciding pair on were never meant to be played.
        let decided_at = sprt
            .as_ref()
            .and_then(|(test, verdict)| verdict.decision.map(|decision| ([test.a, test.b], decision.observations)));
        lines.sort_unstable_by_key(|line| (line.entry, line.index, line.source));
        let before = lines.len();
        lines.dedup_by_key(|line| (line.entry, line.index));
        let duplicates = (before - lines.len()) as u64;
        let counts = Schedule::new(
            spec.entries.iter().map(|entry| entry.weight.unwrap_or(1)).collect(),
            spec.entries.iter().map(|entry| entry.games).collect(),
            spec.games,
        )
        .entry_counts();
        let bounded = counts.is_some();
        let counts = counts.unwrap_or_else(|| {
            let mut highest = vec![0; entry_names.len()];
            for line in &lines {
                highest[line.entry as usize] = line.index + 1;
            }
            highest
        });
        let mut missing = Missing::default();
        let mut at = 0;
        for (entry, &count) in counts.iter().enumerate() {
            let mut next = 0;
            while at < lines.len() && lines[at].entry as usize == entry {
                let index = lines[at].index;
                if index >= count {
                    let source = &sources[lines[at].source as usize];
                    return Err(MergeError::Line {
                        path: source.path.join(RESULTS_FILE),
                        line: lines[at].line,
                        message: format!(
                            "records {}, but the session plays {count} games of {}",
                            game_id(&entry_names[entry], index),
                            entry_names[entry]
                        ),
                    });
                }
                let below = match decided_at {
                    Some((tested, pairs)) if tested.contains(&entry) => index.min(pairs),
                    _ => index,
                };
                missing.add(&entry_names[entry], next.min(below), below);
                next = index + 1;
                at += 1;
            }
            let count = match decided_at {
                Some((tested, pairs)) if tested.contains(&entry) => count.min(pairs),
                _ => count,
            };
            missing.add(&entry_names[entry], next.min(count), count);
        }
        missing.close();
        let shard_count = first.shard.count();
        Ok(Merge {
            sources,
            entry_names,
            lines,
            shard_count,
            duplicates,
            torn_lines,
            bounded,
            expected: counts.iter().sum(),
            missing,
            sprt,
        })
    }

    /// Games recorded, each id once.
    pub fn games(&self) -> u64 {
        self.lines.len() as u64
    }

    /// Directories read.
    pub fn directories(&self) -> usize {
        self.sources.len()
    }

    /// The shard each directory plays, in the order given.
    pub fn shards(&self) -> Vec<Shard> {
        self.sources.iter().map(|source| source.shard).collect()
    }

    /// Writes the merged session to `out` (which must not exist or be an
    /// empty directory): built in `.NAME.merging-PID` beside it, renamed
    /// to `out` when whole. `progress` counts the games written; `cancel`
    /// stops the merge, deleting what it wrote.
    pub fn write(&self, out: &Path, progress: &Progress, cancel: &AtomicBool) -> Result<Written, MergeError> {
        check_out(out)?;
        let name = out.file_name().ok_or_else(|| MergeError::Io {
            path: out.to_path_buf(),
            cause: io::Error::new(io::ErrorKind::InvalidInput, "--out must name a directory"),
        })?;
        let parent = match out.parent() {
            Some(parent) if !parent.as_os_str().is_empty() => parent.to_path_buf(),
            _ => PathBuf::from("."),
        };
        fs::create_dir_all(&parent).map_err(io_error(&parent))?;
        let prefix = format!(".{}.merging-", name.to_string_lossy());
        remove_stale_staging(&parent, &prefix);
        let building = parent.join(format!("{prefix}{}", std::process::id()));
        // The lock first, then the folder: a folder whose lock can be taken
        // is one whose merge is gone (see `remove_stale_staging`).
        let lock_path = staging_lock(&building);
        let lock = File::create(&lock_path).map_err(io_error(&lock_path))?;
        let _lock_guard = RemoveOnDrop(Some(lock_path.clone()));
        match fs4::FileExt::try_lock(&lock) {
            Ok(()) => {}
            Err(fs4::TryLockError::WouldBlock) => {
                let cause = io::Error::new(io::ErrorKind::WouldBlock, "locked by another merge");
                return Err(MergeError::Io { path: lock_path, cause });
            }
            Err(fs4::TryLockError::Error(cause)) => return Err(MergeError::Io { path: lock_path, cause }),
        }
        if building.exists() {
            // Named after this process: left by an earlier merge whose
            // process had the same id and was killed.
            fs::remove_dir_all(&building).map_err(io_error(&building))?;
        }
        fs::create_dir(&building).map_err(io_error(&building))?;
        let mut guard = RemoveOnDrop(Some(building.clone()));
        progress.set_total(self.games());
        let written = self.write_into(&building, out, progress, cancel)?;
        if out.exists() {
            fs::remove_dir(out).map_err(io_error(out))?;
        }
        fs::rename(&building, out).map_err(io_error(out))?;
        guard.0 = None;
        sync_dir(&parent);
        Ok(written)
    }

    fn write_into(
        &self,
        building: &Path,
        out: &Path,
        progress: &Progress,
        cancel: &AtomicBool,
    ) -> Result<Written, MergeError> {
        let results_path = building.join(RESULTS_FILE);
        let mut results = BufWriter::new(File::create(&results_path).map_err(io_error(&results_path))?);
        let mut files: Vec<File> = Vec::new();
        for source in &self.sources {
            let path = source.path.join(RESULTS_FILE);
            files.push(File::open(&path).map_err(io_error(&path))?);
        }
        let mut written = Written::default();
        let mut link = true;
        let mut line = Vec::new();
        let mut made_dir: Option<u32> = None;
        for reference in &self.lines {
            if cancel.load(Ordering::Relaxed) {
                return Err(MergeError::Interrupted { out: out.to_path_buf() });
            }
            let source = &self.sources[reference.source as usize];
            let source_results = source.path.join(RESULTS_FILE);
            let file = &mut files[reference.source as usize];
            line.resize(reference.length as usize, 0);
            file.seek(SeekFrom::Start(reference.offset))
                .and_then(|_| file.read_exact(&mut line))
                .map_err(io_error(&source_results))?;
            if reference.has_replay {
                let entry = &self.entry_names[reference.entry as usize];
                let from = replay_path(&source.path.join(REPLAY_DIR), entry, reference.index);
                let to = replay_path(&building.join(REPLAY_DIR), entry, reference.index);
                if !from.is_file() {
                    return Err(MergeError::MissingReplay {
                        results: source_results,
                        line: reference.line,
                        id: game_id(entry, reference.index),
                        replay: from,
                    });
                }
                if made_dir != Some(reference.entry) {
                    let dir = to.parent().expect("a replay path has a folder");
                    fs::create_dir_all(dir).map_err(io_error(dir))?;
                    made_dir = Some(reference.entry);
                }
                if link {
                    match fs::hard_link(&from, &to) {
                        Ok(()) => written.linked += 1,
                        Err(cause) if cannot_link(&cause) => link = false,
                        Err(cause) => return Err(MergeError::Io { path: to, cause }),
                    }
                }
                if !link {
                    copy_synced(&from, &to)?;
                    written.copied += 1;
                }
                let merged = replay_path(&out.join(REPLAY_DIR), entry, reference.index);
                line = with_replay(&line, &merged).ok_or_else(|| MergeError::Line {
                    path: source_results.clone(),
                    line: reference.line,
                    message: "expected the line to end with its \"replay\" path, as tickbot writes it".into(),
                })?;
            }
            results.write_all(&line).map_err(io_error(&results_path))?;
            written.games += 1;
            progress.advance(1);
        }
        let results = results.into_inner().map_err(|error| MergeError::Io {
            path: results_path.clone(),
            cause: io::Error::new(error.error().kind(), error.error().to_string()),
        })?;
        results.sync_all().map_err(io_error(&results_path))?;
        let first = &self.sources[0];
        let mut manifest = first.manifest.clone();
        manifest.shard = None;
        manifest.started_unix_s =
            self.sources.iter().map(|source| source.manifest.started_unix_s).min().unwrap_or_default();
        if let Some(config) = manifest.config.as_object_mut() {
            config.insert("out".into(), serde_json::Value::String(out.display().to_string()));
        }
        let manifest_path = building.join(MANIFEST_FILE);
        let mut text = serde_json::to_vec_pretty(&manifest)
            .map_err(|error| MergeError::Io { path: manifest_path.clone(), cause: io::Error::other(error) })?;
        text.push(b'\n');
        let mut file = File::create(&manifest_path).map_err(io_error(&manifest_path))?;
        file.write_all(&text).and_then(|()| file.sync_all()).map_err(io_error(&manifest_path))?;
        sync_dir(building);
        Ok(written)
    }
}

/// Refuses an `out` that holds anything.
pub fn check_out(out: &Path) -> Result<(), MergeError> {
    match fs::read_dir(out) {
        Ok(mut entries) => match entries.next() {
            None => Ok(()),
            Some(_) => Err(MergeError::OutNotEmpty { path: out.to_path_buf() }),
        },
        Err(cause) if cause.kind() == io::ErrorKind::NotFound => Ok(()),
        Err(cause) if cause.kind() == io::ErrorKind::NotADirectory => {
            Err(MergeError::OutIsAFile { path: out.to_path_buf() })
        }
        Err(cause) => Err(MergeError::Io { path: out.to_path_buf(), cause }),
    }
}

/// The lock file beside a staging folder: held by its merge while it runs.
fn staging_lock(building: &Path) -> PathBuf {
    let mut name = building.as_os_str().to_os_string();
    name.push(".lock");
    PathBuf::from(name)
}

/// Deletes the staging folders (`PREFIX` + a process id) under `parent`
/// that a merge killed part way left behind (`kill -9`, a reboot): those
/// whose lock file no process holds, or that have none. A process id alone
/// cannot tell, since a merge may run on another machine sharing the
/// folder, and ids are reused; the lock is released by the system when its
/// holder dies, wherever it ran. Best effort: what cannot be deleted stays.
fn remove_stale_staging(parent: &Path, prefix: &str) {
    let Ok(entries) = fs::read_dir(parent) else { return };
    for entry in entries.flatten() {
        let name = entry.file_name();
        let Some(rest) = name.to_str().and_then(|name| name.strip_prefix(prefix)) else { continue };
        let rest = rest.strip_suffix(".lock").unwrap_or(rest);
        if rest.is_empty() || !rest.bytes().all(|byte| byte.is_ascii_digit()) {
            continue;
        }
        let building = parent.join(format!("{prefix}{rest}"));
        let lock_path = staging_lock(&building);
        let lock = match File::open(&lock_path) {
            Ok(lock) => Some(lock),
            Err(cause) if cause.kind() == io::ErrorKind::NotFound => None,
            Err(_) => continue,
        };
        if let Some(lock) = &lock {
            if fs4::FileExt::try_lock(lock).is_err() {
                continue; // a merge running now
            }
        }
        tracing::info!(folder = %building.display(), "removing the staging folder of a merge that was stopped");
        let _ = fs::remove_dir_all(&building);
        if lock.is_some() {
            let _ = fs::remove_file(&lock_path);
        }
    }
}

/// Deletes a half-built output when the merge stops early (a folder, or
/// the staging lock file).
struct RemoveOnDrop(Option<PathBuf>);

impl Drop for RemoveOnDrop {
    fn drop(&mut self) {
        if let Some(path) = self.0.take() {
            let _ = if path.is_dir() { fs::remove_dir_all(path) } else { fs::remove_file(path) };
        }
    }
}

/// Errors after which copying is the way: another filesystem, or one
/// that refuses hard links (or this user's links to the file).
fn cannot_link(cause: &io::Error) -> bool {
    matches!(cause.kind(), io::ErrorKind::CrossesDevices | io::ErrorKind::Unsupported | io::ErrorKind::PermissionDenied)
}

fn copy_synced(from: &Path, to: &Path) -> Result<(), MergeError> {
    fs::copy(from, to).map_err(io_error(to))?;
    File::open(to).and_then(|file| file.sync_all()).map_err(io_error(to))
}

/// Syncs a directory so the renames in it survive a power cut (where the
/// platform can open one).
fn sync_dir(dir: &Path) {
    if let Ok(dir) = File::open(dir) {
        let _ = dir.sync_all();
    }
}

/// `line` (a results line as tickbot writes it, `"replay"` last) with its
/// replay path replaced by `replay`; `None` if it does not end that way.
fn with_replay(line: &[u8], replay: &Path) -> Option<Vec<u8>> {
    let text = std::str::from_utf8(line).ok()?;
    const KEY: &str = ",\"replay\":";
    let at = text.rfind(KEY)? + KEY.len();
    let value = text[at..].strip_suffix('\n')?.strip_suffix('}')?;
    serde_json::from_str::<String>(value).ok()?;
    let replay = serde_json::to_string(replay.to_str()?).ok()?;
    Some(format!("{}{replay}}}\n", &text[..at]).into_bytes())
}

fn read_source(path: &Path) -> Result<Source, MergeError> {
    let manifest_path = path.join(MANIFEST_FILE);
    let bytes = match crate::input::read(&manifest_path, MAX_MANIFEST_BYTES, "a session manifest") {
        Ok(bytes) => bytes,
        // NotADirectory: the path is a file or a device.
        Err(crate::input::InputError::Io { cause, .. })
            if matches!(cause.kind(), io::ErrorKind::NotFound | io::ErrorKind::NotADirectory) =>
        {
            return Err(MergeError::NotASession { path: path.to_path_buf() });
        }
        Err(crate::input::InputError::Io { cause, .. }) => return Err(MergeError::Io { path: manifest_path, cause }),
        Err(error) => return Err(MergeError::Manifest { path: manifest_path, message: error.to_string() }),
    };
    if let Some(owner) = SessionDir::holder(path) {
        return Err(MergeError::InUse { path: path.to_path_buf(), owner });
    }
    let manifest: Manifest = serde_json::from_slice(&bytes)
        .map_err(|error| MergeError::Manifest { path: manifest_path.clone(), message: error.to_string() })?;
    let shard = manifest.shard.unwrap_or(Shard::WHOLE);
    Ok(Source { path: path.to_path_buf(), manifest, shard })
}

fn session_spec(source: &Source) -> Result<SessionSpec, MergeError> {
    let bad = |message: String| MergeError::Manifest { path: source.path.join(MANIFEST_FILE), message };
    let mut spec: SessionSpec =
        serde_json::from_value(source.manifest.config.clone()).map_err(|error| bad(error.to_string()))?;
    spec.complete("").map_err(|error| bad(error.message))?;
    Ok(spec)
}

fn check_same_session(first: &Source, first_spec: &SessionSpec, other: &Source) -> Result<(), MergeError> {
    let mismatch =
        |difference: String| MergeError::Mismatch { path: other.path.clone(), first: first.path.clone(), difference };
    let (ours, theirs) = (&first.manifest, &other.manifest);
    if ours.tickbot_version != theirs.tickbot_version {
        return Err(mismatch(format!(
            "it was played by tickbot {}, {} by tickbot {}",
            theirs.tickbot_version,
            first.path.display(),
            ours.tickbot_version
        )));
    }
    if ours.master_seed != theirs.master_seed {
        return Err(mismatch(format!(
            "its master seed is {}, that of {} is {}",
            theirs.master_seed,
            first.path.display(),
            ours.master_seed
        )));
    }
    let (first_key, other_key) = (first_spec.results_key(), session_spec(other)?.results_key());
    if first_key != other_key {
        let mut keys: Vec<String> = first_key
            .as_object()
            .into_iter()
            .flatten()
            .filter(|(key, value)| other_key.get(key.as_str()) != Some(value))
            .map(|(key, _)| key.clone())
            .collect();
        keys.extend(
            other_key
                .as_object()
                .into_iter()
                .flatten()
                .map(|(key, _)| key)
                .filter(|key| first_key.get(key.as_str()).is_none())
                .cloned(),
        );
        return Err(mismatch(format!("its session differs in: {}", keys.join(", "))));
    }
    if first.shard.count() != other.shard.count() {
        let describe = |shard: Shard| {
            if shard.count() == 1 { "a whole session".to_string() } else { format!("shard {shard}") }
        };
        return Err(mismatch(format!(
            "it is {}, and {} is {}: the shard counts differ",
            describe(other.shard),
            first.path.display(),
            describe(first.shard)
        )));
    }
    Ok(())
}

/// The test over the games of A and B, each id taken from the first
/// directory that records it (as the merged results take it).
fn test_verdict(test: &SessionTest, mut games: Vec<TestGame>) -> SessionVerdict {
    games.sort_unstable_by_key(|&(entry, index, source, _)| (entry, index, source));
    games.dedup_by_key(|&mut (entry, index, _, _)| (entry, index));
    let mut pairs = test.start();
    for (entry, index, _, half) in games {
        if let Some(side) = test.side(entry as usize) {
            pairs.add(side, index, half);
        }
    }
    pairs.verdict()
}

/// Where [`index_results`] puts what it reads.
struct Indexed<'a> {
    lines: &'a mut Vec<LineRef>,
    /// The entries of the session's test, whose games go to `test_games`.
    test_entries: &'a [u32],
    test_games: &'a mut Vec<TestGame>,
}

/// Adds where each whole line of `source`'s results file is to `lines`
/// (and the games of the test's entries to `test_games`); returns 1 if its
/// last line is torn (left out), else 0.
fn index_results(
    source: &Source,
    number: u32,
    entry_numbers: &BTreeMap<&str, u32>,
    into: Indexed<'_>,
) -> Result<u64, MergeError> {
    let Indexed { lines, test_entries, test_games } = into;
    let path = source.path.join(RESULTS_FILE);
    let file = match crate::input::open(&path) {
        Ok(file) => file,
        // A shard stopped before its first game: nothing recorded.
        Err(error) if error.is_not_found() => return Ok(0),
        Err(crate::input::InputError::Io { cause, .. }) => return Err(MergeError::Io { path, cause }),
        Err(error) => return Err(MergeError::Line { path, line: 0, message: error.to_string() }),
    };
    let mut reader = BufReader::new(file);
    let mut buffer = Vec::new();
    let (mut offset, mut line_number) = (0u64, 0u64);
    loop {
        buffer.clear();
        let read = (&mut reader).take(MAX_LINE_BYTES + 1).read_until(b'\n', &mut buffer).map_err(io_error(&path))?;
        if read == 0 {
            return Ok(0);
        }
        line_number += 1;
        if buffer.len() as u64 > MAX_LINE_BYTES {
            return Err(MergeError::Line {
                path,
                line: line_number,
                message: format!("longer than {MAX_LINE_BYTES} bytes: not a results line"),
            });
        }
        let parsed = serde_json::from_slice::<LineFields>(&buffer);
        let fields = match parsed {
            Ok(fields) if buffer.ends_with(b"\n") => fields,
            _ => {
                // Only a killed session's last line can be torn.
                let mut rest = [0u8; 1];
                if reader.read(&mut rest).map_err(io_error(&path))? == 0 {
                    return Ok(1);
                }
                let shown: String = String::from_utf8_lossy(&buffer).trim_end().chars().take(80).collect();
                return Err(MergeError::Line {
                    path,
                    line: line_number,
                    message: format!("damaged ({shown:?}): only the last line can be cut short by a crash"),
                });
            }
        };
        let bad = |message: String| MergeError::Line { path: path.clone(), line: line_number, message };
        let Some(&entry) = entry_numbers.get(fields.entry.as_str()) else {
            return Err(bad(format!("entry {:?} is not in the session's manifest", fields.entry)));
        };
        if !source.shard.plays(fields.index) {
            return Err(bad(format!(
                "records {}, which shard {} does not play (its index mod {} is not {})",
                game_id(&fields.entry, fields.index),
                source.shard,
                source.shard.count(),
                source.shard.index()
            )));
        }
        let length = u32::try_from(read).map_err(|_| bad("a line of 4 GiB or more".into()))?;
        if test_entries.contains(&entry) {
            let outcome = fields.outcome.ok_or_else(|| bad("no outcome: not a results line".into()))?;
            let half = Half { outcome, score: fields.score, ticks: fields.ticks };
            test_games.push((entry, fields.index, number, half));
        }
        lines.push(LineRef {
            entry,
            index: fields.index,
            source: number,
            line: line_number,
            offset,
            length,
            has_replay: fields.replay.is_some(),
        });
        offset += read as u64;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn runs(missing: &[(&str, u64)]) -> Vec<String> {
        let mut gathered = Missing::default();
        for &(entry, index) in missing {
            gathered.add(entry, index, index + 1);
        }
        gathered.close();
        assert_eq!(gathered.games, missing.len() as u64);
        gathered.runs.iter().map(ToString::to_string).collect()
    }

    #[test]
    fn missing_ids_are_reported_as_runs() {
        assert_eq!(runs(&[("a", 3)]), ["a/000003"]);
        assert_eq!(runs(&[("a", 3), ("a", 4), ("a", 5)]), ["a/000003 to a/000005 (3 games)"]);
        assert_eq!(
            runs(&[("a", 1), ("a", 4), ("a", 7), ("b", 1), ("b", 4)]),
            ["a/000001 to a/000007 in steps of 3 (3 games)", "b/000001 and b/000004"]
        );
        // A gap, then a range: the range is not swallowed by the gap's step.
        assert_eq!(runs(&[("a", 1), ("a", 5), ("a", 6), ("a", 7)]), ["a/000001", "a/000005 to a/000007 (3 games)"]);
    }

    #[test]
    fn a_replay_path_is_replaced_and_the_rest_of_the_line_kept() {
        let line = b"{\"id\":\"a/000001\",\"score\":3,\"replay\":\"s0/replays/a/000001.tbr\"}\n";
        let merged = with_replay(line, Path::new("m/replays/a/000001.tbr")).unwrap();
        assert_eq!(merged, b"{\"id\":\"a/000001\",\"score\":3,\"replay\":\"m/replays/a/000001.tbr\"}\n");
        assert_eq!(with_replay(b"{\"replay\":\"x\",\"score\":3}\n", Path::new("y")), None);
    }
}
