//! Sessions in progress (`tickbot status`): for each session or shard
//! directory, the games recorded of the total, outcomes per entry, faults,
//! games per second and an ETA, the games running now and the slowest of
//! them, and whether a process still holds the directory's lock; summed
//! over the directories. Also the same figures in Prometheus's text format,
//! for node-exporter's textfile collector.
//!
//! It only reads what a session writes, and never disturbs one: the
//! manifest, `results.jsonl` (whole lines only: a line being appended is
//! left for the next look) and the JSON-lines log in `DIR/logs/` (where
//! the deploy scripts put it), all opened read-only. Whether the lock is
//! held is read from `/proc/locks` (Linux), never by taking the lock, so a
//! session starting while we look is never refused. The rate and the
//! running games come from the log's `game_start` and `game_end` events;
//! without a log, the rate comes from the results counted between two
//! looks ([`StatusWatch::look`] again).
//!
//! Each look reads only what was appended since the last one (a file that
//! shrank, a log rotated or a results file whose torn line a resume cut,
//! is read again from its start), so `--watch` costs little however long
//! the session: memory is per entry, plus one timestamp per game ended in
//! the rate's window and one per game running.

use std::collections::{BTreeMap, VecDeque};
use std::fs::{self, File};
use std::io::{self, BufRead, BufReader, Read, Seek, SeekFrom};
use std::path::{Path, PathBuf};
use std::time::{SystemTime, UNIX_EPOCH};

use serde::{Deserialize, Serialize};

use crate::game::OutcomeKind;
use crate::session::spec::SessionSpec;
use crate::session::store::{LOCK_FILE, MANIFEST_FILE, Manifest, RESULTS_FILE, Recorded};
use crate::session::{LiveEntry, Schedule, Shard, Totals};

/// Where the deploy scripts (and `status`) look for a directory's log.
pub const LOG_PATH: &str = "logs/tickbot.jsonl";

/// Games per second are counted over the games ended in this last stretch.
pub const RATE_WINDOW_MS: u64 = 5 * 60 * 1000;

/// At most this much of an existing log is read at the first look: its
/// end, where the running games and the recent rate are.
const LOG_TAIL_BYTES: u64 = 16 << 20;

/// Why a directory cannot be shown.
#[derive(Debug, thiserror::Error)]
pub enum StatusError {
    #[error("{path}: not a session manifest: {message}")]
    Manifest { path: PathBuf, message: String },
    #[error("{path}: line {line} is damaged ({text:?}): only a last line can be incomplete")]
    Line { path: PathBuf, line: u64, text: String },
    #[error("{path} is not a directory")]
    NotADirectory { path: PathBuf },
    #[error("{path}: {cause}")]
    Io { path: PathBuf, cause: io::Error },
}

fn io_error(path: &Path) -> impl Fn(io::Error) -> StatusError + '_ {
    move |cause| StatusError::Io { path: path.to_path_buf(), cause }
}

/// Whether a session is running in a directory, as its lock says.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(tag = "state", rename_all = "snake_case")]
pub enum Liveness {
    /// No manifest yet: the session has not started (or the path is wrong).
    NotStarted,
    /// A process on this machine holds the lock.
    Running { pid: Option<u32> },
    /// The lock file is empty: the last session ended (finished or stopped
    /// cleanly, Ctrl-C included).
    Ended,
    /// The lock file names a process but no process on this machine holds
    /// the lock: it was killed, or it runs on another machine.
    NotHeldHere { pid: Option<u32> },
    /// This system cannot tell (no `/proc/locks`).
    Unknown { pid: Option<u32> },
}

impl Liveness {
    /// Whether games may still be running (or the session may go on).
    pub fn may_be_running(&self) -> bool {
        matches!(self, Liveness::Running { .. } | Liveness::NotHeldHere { .. } | Liveness::Unknown { .. })
    }
}

/// One entry's games so far, in one directory or over all.
#[derive(Clone, Debug, Serialize)]
pub struct EntryStatus {
    pub entry: String,
    /// Games this directory (or these directories) plays of the entry, if
    /// the session has a fixed number.
    pub expected: Option<u64>,
    pub totals: Totals,
    /// Won of recorded, 0 to 1.
    pub win_rate: Option<f64>,
}

/// A game that has started and not yet ended.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct RunningGame {
    pub id: String,
    pub running_s: f64,
}

/// One directory's status.
#[derive(Clone, Debug, Serialize)]
pub struct DirStatus {
    pub path: PathBuf,
    /// `I/N` for a shard, `None` for a whole session.
    pub shard: Option<String>,
    #[serde(flatten)]
    pub liveness: Liveness,
    pub recorded: u64,
    pub expected: Option<u64>,
    pub faults: u64,
    /// Games ended per second over the rate window, while the session runs.
    pub games_per_s: Option<f64>,
    /// Seconds until every expected game is recorded, at that rate.
    pub eta_s: Option<f64>,
    /// Games started and not ended (only while a process holds the lock).
    pub running: u64,
    pub slowest_running: Option<RunningGame>,
    /// Seconds since the results file or the log was last written.
    pub last_write_s: Option<f64>,
    /// Whether the log was found (without it: no running games, and the
    /// rate only from one look to the next).
    pub log: bool,
    pub entries: Vec<EntryStatus>,
}

/// Every directory's status, and their sums.
#[derive(Clone, Debug, Serialize)]
pub struct StatusReport {
    /// When this look was taken, milliseconds since the Unix epoch.
    pub at_unix_ms: u64,
    pub dirs: Vec<DirStatus>,
    pub recorded: u64,
    pub expected: Option<u64>,
    pub faults: u64,
    pub games_per_s: Option<f64>,
    /// When the last directory will be done, if each goes on at its rate.
    pub eta_s: Option<f64>,
    pub running: u64,
    pub slowest_running: Option<RunningGame>,
    /// Per entry over every directory, in the session file's order.
    pub entries: Vec<EntryStatus>,
    /// Shards of the session that no directory given plays (`I/N`).
    pub shards_not_given: Vec<String>,
}

impl StatusReport {
    /// Whether every directory's session has ended with all its games
    /// recorded (or stopped, for one without a fixed number).
    pub fn all_finished(&self) -> bool {
        self.dirs.iter().all(|dir| {
            !matches!(dir.liveness, Liveness::NotStarted)
                && !dir.liveness.may_be_running()
                && dir.expected.is_none_or(|expected| dir.recorded >= expected)
        })
    }
}

/// The directories watched, and what was read of them so far.
#[derive(Debug)]
pub struct StatusWatch {
    dirs: Vec<DirWatch>,
}

/// One directory: its manifest once there is one, and the read positions.
#[derive(Debug)]
struct DirWatch {
    path: PathBuf,
    log_path: PathBuf,
    session: Option<SessionInfo>,
    results: Tail,
    recorded: BTreeMap<String, Recorded>,
    totals: BTreeMap<String, Totals>,
    results_line: u64,
    log: Tail,
    log_seen: bool,
    /// Start time (ms) of each game started and not yet ended.
    running: BTreeMap<String, u64>,
    /// End times (ms) of the games ended in the rate window, oldest first.
    ended: VecDeque<u64>,
    /// Results counted at earlier looks, for the rate without a log.
    looks: VecDeque<(u64, u64)>,
}

/// What the manifest says.
#[derive(Debug)]
struct SessionInfo {
    shard: Shard,
    entries: Vec<String>,
    /// Games of each entry this directory plays, if bounded.
    expected: Option<Vec<u64>>,
    master_seed: u64,
}

/// A read position in a file that only grows (or starts again).
#[derive(Debug, Default)]
struct Tail {
    offset: u64,
    /// Bytes read past the last newline: a line still being written.
    partial: Vec<u8>,
}

/// The fields of a results line read here.
#[derive(Deserialize)]
struct ResultFields {
    id: String,
    entry: String,
    index: u64,
    outcome: OutcomeKind,
    ticks: u32,
    score: i64,
    #[serde(default)]
    planner_us: u64,
}

/// The fields of a log line read here.
#[derive(Deserialize)]
struct LogFields {
    #[serde(default)]
    timestamp: String,
    #[serde(default)]
    message: String,
    id: Option<String>,
}

impl StatusWatch {
    /// Watches `dirs`; `log` names the log file of a single directory (else
    /// each directory's [`LOG_PATH`]).
    pub fn new(dirs: &[PathBuf], log: Option<PathBuf>) -> StatusWatch {
        let dirs = dirs
            .iter()
            .map(|path| DirWatch {
                path: path.clone(),
                log_path: log.clone().filter(|_| dirs.len() == 1).unwrap_or_else(|| path.join(LOG_PATH)),
                session: None,
                results: Tail::default(),
                recorded: BTreeMap::new(),
                totals: BTreeMap::new(),
                results_line: 0,
                log: Tail::default(),
                log_seen: false,
                running: BTreeMap::new(),
                ended: VecDeque::new(),
                looks: VecDeque::new(),
            })
            .collect();
        StatusWatch { dirs }
    }

    /// Reads what the directories' sessions wrote since the last look and
    /// reports; `now_ms` is the time of the look (ms since the Unix epoch).
    pub fn look(&mut self, now_ms: u64) -> Result<StatusReport, StatusError> {
        let mut dirs = Vec::with_capacity(self.dirs.len());
        for dir in &mut self.dirs {
            dirs.push(dir.look(now_ms)?);
        }
        let sessions: Vec<&SessionInfo> = self.dirs.iter().filter_map(|dir| dir.session.as_ref()).collect();
        let mut shards_not_given = Vec::new();
        if let Some(first) = sessions.first() {
            let count = first.shard.count();
            let one_session = sessions.iter().all(|session| {
                session.master_seed == first.master_seed
                    && session.shard.count() == count
                    && session.entries == first.entries
            });
            if count > 1 && one_session {
                shards_not_given = (0..count)
                    .filter(|index| !sessions.iter().any(|session| session.shard.index() == *index))
                    .map(|index| format!("{index}/{count}"))
                    .collect();
            }
        }
        Ok(sum_up(now_ms, dirs, shards_not_given))
    }
}

/// The report of one session from its own counts in memory (`run
/// --metrics`), in the same form as a look at its directory: `path` is
/// its directory, `games_per_s` the rate its caller measured.
pub fn live_report(
    now_ms: u64,
    path: &Path,
    shard: Option<Shard>,
    liveness: Liveness,
    live: &[LiveEntry],
    games_per_s: Option<f64>,
) -> StatusReport {
    let entries: Vec<EntryStatus> = live
        .iter()
        .map(|entry| EntryStatus {
            entry: entry.name.clone(),
            expected: entry.expected,
            totals: entry.totals.clone(),
            win_rate: win_rate(&entry.totals),
        })
        .collect();
    let recorded: u64 = entries.iter().map(|entry| entry.totals.games).sum();
    let expected: Option<u64> = entries.iter().map(|entry| entry.expected).sum();
    let games_per_s = games_per_s.filter(|_| liveness.may_be_running());
    let dir = DirStatus {
        path: path.to_path_buf(),
        shard: shard.filter(|&shard| shard != Shard::WHOLE).map(|shard| shard.to_string()),
        liveness,
        recorded,
        expected,
        faults: entries.iter().map(|entry| entry.totals.faults()).sum(),
        games_per_s,
        eta_s: eta(recorded, expected, games_per_s),
        // The loop does not count its running games for this report: as a
        // look at a directory without a log shows them.
        running: 0,
        slowest_running: None,
        last_write_s: None,
        log: false,
        entries,
    };
    sum_up(now_ms, vec![dir], Vec::new())
}

/// Seconds until `expected` games are recorded at `games_per_s`.
fn eta(recorded: u64, expected: Option<u64>, games_per_s: Option<f64>) -> Option<f64> {
    match (expected, games_per_s) {
        (Some(expected), _) if recorded >= expected => Some(0.0),
        (Some(expected), Some(rate)) if rate > 0.0 => Some((expected - recorded) as f64 / rate),
        _ => None,
    }
}

/// The sums over the directories.
fn sum_up(now_ms: u64, dirs: Vec<DirStatus>, shards_not_given: Vec<String>) -> StatusReport {
    let mut entries: Vec<EntryStatus> = Vec::new();
    for entry in dirs.iter().flat_map(|dir| &dir.entries) {
        match entries.iter_mut().find(|sum| sum.entry == entry.entry) {
            Some(sum) => {
                sum.totals.merge(&entry.totals);
                sum.expected = sum.expected.zip(entry.expected).map(|(a, b)| a + b);
            }
            None => entries.push(entry.clone()),
        }
    }
    for entry in &mut entries {
        entry.win_rate = win_rate(&entry.totals);
    }
    let rates: Vec<f64> = dirs.iter().filter_map(|dir| dir.games_per_s).collect();
    let games_per_s = (!rates.is_empty()).then(|| rates.iter().sum());
    // Directories run side by side: all are done when the slowest is, and
    // a directory with games left and no rate leaves the time unknown.
    let eta_s = dirs.iter().try_fold(0.0f64, |latest, dir| match (dir.expected, dir.eta_s) {
        (Some(expected), _) if dir.recorded >= expected => Some(latest),
        (_, Some(eta)) => Some(latest.max(eta)),
        _ => None,
    });
    let slowest_running =
        dirs.iter().filter_map(|dir| dir.slowest_running.clone()).max_by(|a, b| a.running_s.total_cmp(&b.running_s));
    StatusReport {
        at_unix_ms: now_ms,
        recorded: dirs.iter().map(|dir| dir.recorded).sum(),
        expected: dirs.iter().map(|dir| dir.expected).sum(),
        faults: dirs.iter().map(|dir| dir.faults).sum(),
        games_per_s,
        eta_s: eta_s.filter(|_| !dirs.is_empty()),
        running: dirs.iter().map(|dir| dir.running).sum(),
        slowest_running,
        entries,
        shards_not_given,
        dirs,
    }
}

fn win_rate(totals: &Totals) -> Option<f64> {
    (totals.games > 0).then(|| totals.won as f64 / totals.games as f64)
}

impl DirWatch {
    fn look(&mut self, now_ms: u64) -> Result<DirStatus, StatusError> {
        match fs::metadata(&self.path) {
            Ok(metadata) if !metadata.is_dir() => {
                return Err(StatusError::NotADirectory { path: self.path.clone() });
            }
            Ok(_) => {}
            Err(cause) if cause.kind() == io::ErrorKind::NotFound => return Ok(self.not_started()),
            Err(cause) => return Err(StatusError::Io { path: self.path.clone(), cause }),
        }
        if self.session.is_none() {
            match read_session(&self.path)? {
                Some(session) => self.session = Some(session),
                None => return Ok(self.not_started()),
            }
        }
        let liveness = liveness(&self.path)?;
        self.read_results()?;
        self.read_log(now_ms)?;
        let held = matches!(liveness, Liveness::Running { .. });
        if held {
            // Games a killed run started are not running: only those the
            // run holding the lock (which rewrote the lock file) started.
            let run_started = modified_ms(&self.path.join(LOCK_FILE)).unwrap_or(0);
            self.running.retain(|_, started| *started + 1000 >= run_started);
        }
        let recorded: u64 = self.recorded.values().map(Recorded::count).sum();
        let games_per_s = self.rate(now_ms, recorded, liveness.may_be_running());
        let session = self.session.as_ref().expect("read above");
        let expected = session.expected.as_ref().map(|counts| counts.iter().sum::<u64>());
        let eta_s = eta(recorded, expected, games_per_s);
        let slowest_running = if held {
            self.running.iter().min_by_key(|(_, started)| **started).map(|(id, started)| RunningGame {
                id: id.clone(),
                running_s: now_ms.saturating_sub(*started) as f64 / 1000.0,
            })
        } else {
            None
        };
        let entries: Vec<EntryStatus> = session
            .entries
            .iter()
            .enumerate()
            .map(|(number, name)| {
                let totals = self.totals.get(name).cloned().unwrap_or_default();
                EntryStatus {
                    entry: name.clone(),
                    expected: session.expected.as_ref().map(|counts| counts[number]),
                    win_rate: win_rate(&totals),
                    totals,
                }
            })
            .collect();
        let last_write =
            [self.path.join(RESULTS_FILE), self.log_path.clone()].iter().filter_map(|path| modified_ms(path)).max();
        Ok(DirStatus {
            path: self.path.clone(),
            shard: (session.shard.count() > 1).then(|| session.shard.to_string()),
            recorded,
            expected,
            faults: self.totals.values().map(Totals::faults).sum(),
            games_per_s,
            eta_s,
            running: if held { self.running.len() as u64 } else { 0 },
            slowest_running,
            last_write_s: last_write.map(|at| now_ms.saturating_sub(at) as f64 / 1000.0),
            log: self.log_seen,
            entries,
            liveness,
        })
    }

    fn not_started(&self) -> DirStatus {
        DirStatus {
            path: self.path.clone(),
            shard: None,
            liveness: Liveness::NotStarted,
            recorded: 0,
            expected: None,
            faults: 0,
            games_per_s: None,
            eta_s: None,
            running: 0,
            slowest_running: None,
            last_write_s: None,
            log: false,
            entries: Vec::new(),
        }
    }

    /// Games per second: from the log's game ends in the window, else from
    /// the results counted at the looks in it. `None` once the session has
    /// ended, or before two looks without a log.
    fn rate(&mut self, now_ms: u64, recorded: u64, may_be_running: bool) -> Option<f64> {
        let window_start = now_ms.saturating_sub(RATE_WINDOW_MS);
        self.looks.push_back((now_ms, recorded));
        while self.looks.len() > 2 && self.looks[1].0 <= window_start {
            self.looks.pop_front();
        }
        if !may_be_running {
            return None;
        }
        if self.log_seen {
            while self.ended.front().is_some_and(|&at| at < window_start) {
                self.ended.pop_front();
            }
            // Since the window's start, or since the first game ended in it
            // (a session started a minute ago is not measured over five).
            let since = self.ended.front().copied()?.max(window_start);
            let span_ms = now_ms.saturating_sub(since).max(1000);
            return Some(self.ended.len() as f64 * 1000.0 / span_ms as f64);
        }
        let &(first_ms, first_count) = self.looks.front()?;
        (now_ms > first_ms).then(|| recorded.saturating_sub(first_count) as f64 * 1000.0 / (now_ms - first_ms) as f64)
    }

    fn read_results(&mut self) -> Result<(), StatusError> {
        let path = self.path.join(RESULTS_FILE);
        let mut lines = Vec::new();
        let restarted = read_appended(&path, &mut self.results, None, &mut lines)?;
        if restarted {
            self.recorded.clear();
            self.totals.clear();
            self.results_line = 0;
        }
        for line in lines {
            self.results_line += 1;
            let fields: ResultFields = serde_json::from_slice(&line).map_err(|_| StatusError::Line {
                path: path.clone(),
                line: self.results_line,
                text: String::from_utf8_lossy(&line).trim_end().chars().take(80).collect(),
            })?;
            self.running.remove(&fields.id);
            if self.recorded.entry(fields.entry.clone()).or_default().insert(fields.index) {
                self.totals.entry(fields.entry).or_default().add(
                    fields.outcome,
                    fields.ticks,
                    fields.score,
                    fields.planner_us,
                );
            }
        }
        Ok(())
    }

    fn read_log(&mut self, now_ms: u64) -> Result<(), StatusError> {
        let mut lines = Vec::new();
        let first = self.log.offset == 0 && self.log.partial.is_empty();
        let restarted = read_appended(&self.log_path, &mut self.log, first.then_some(LOG_TAIL_BYTES), &mut lines)?;
        self.log_seen = self.log_path.is_file();
        if restarted {
            // Rotated: what it said about running games still holds, and the
            // new file goes on from there.
            self.log.partial.clear();
        }
        let window_start = now_ms.saturating_sub(RATE_WINDOW_MS);
        for line in lines {
            // A line that is not an event (cut by a crash, or the first line
            // of a tail read from the middle) is not ours to judge here.
            let Ok(fields) = serde_json::from_slice::<LogFields>(&line) else { continue };
            let (Some(id), Some(at)) = (fields.id, parse_timestamp_ms(&fields.timestamp)) else { continue };
            match fields.message.as_str() {
                "game_start" => {
                    self.running.insert(id, at);
                }
                "game_end" => {
                    self.running.remove(&id);
                    if at >= window_start {
                        self.ended.push_back(at);
                    }
                }
                "game_stopped" => {
                    self.running.remove(&id);
                }
                _ => {}
            }
        }
        Ok(())
    }
}

/// Reads the whole lines appended to `path` since `tail` (none if it does
/// not exist); a file shorter than what was read is read again from its
/// start, and the result says so. `first_tail` limits a first read to the
/// file's last bytes (its first, partial, line is then dropped).
fn read_appended(
    path: &Path,
    tail: &mut Tail,
    first_tail: Option<u64>,
    lines: &mut Vec<Vec<u8>>,
) -> Result<bool, StatusError> {
    let error = io_error(path);
    let mut file = match File::open(path) {
        Ok(file) => file,
        Err(cause) if cause.kind() == io::ErrorKind::NotFound => return Ok(false),
        Err(cause) => return Err(error(cause)),
    };
    let length = file.metadata().map_err(&error)?.len();
    let read_so_far = tail.offset + tail.partial.len() as u64;
    let restarted = length < read_so_far;
    if restarted {
        *tail = Tail::default();
    }
    let mut skip_first_line = false;
    if let Some(limit) = first_tail.filter(|&limit| length > limit) {
        tail.offset = length - limit;
        skip_first_line = true;
    }
    let start = tail.offset + tail.partial.len() as u64;
    file.seek(SeekFrom::Start(start)).map_err(&error)?;
    let mut reader = BufReader::new(file.take(length - start));
    let mut pending = std::mem::take(&mut tail.partial);
    loop {
        let read = reader.read_until(b'\n', &mut pending).map_err(&error)?;
        if read == 0 {
            break;
        }
        if pending.last() != Some(&b'\n') {
            break;
        }
        tail.offset += pending.len() as u64;
        if skip_first_line {
            skip_first_line = false;
            pending.clear();
            continue;
        }
        lines.push(std::mem::take(&mut pending));
    }
    tail.partial = pending;
    Ok(restarted)
}

/// The manifest, the session's entries and what this directory plays; `None`
/// before the manifest is written.
fn read_session(dir: &Path) -> Result<Option<SessionInfo>, StatusError> {
    let path = dir.join(MANIFEST_FILE);
    let bytes = match fs::read(&path) {
        Ok(bytes) => bytes,
        Err(cause) if cause.kind() == io::ErrorKind::NotFound => return Ok(None),
        Err(cause) => return Err(StatusError::Io { path, cause }),
    };
    let bad = |message: String| StatusError::Manifest { path: path.clone(), message };
    let manifest: Manifest = serde_json::from_slice(&bytes).map_err(|error| bad(error.to_string()))?;
    let mut spec: SessionSpec = serde_json::from_value(manifest.config).map_err(|error| bad(error.to_string()))?;
    spec.complete("").map_err(|error| bad(error.message))?;
    let shard = manifest.shard.unwrap_or(Shard::WHOLE);
    let expected = Schedule::new(
        spec.entries.iter().map(|entry| entry.weight.unwrap_or(1)).collect(),
        spec.entries.iter().map(|entry| entry.games).collect(),
        spec.games,
    )
    .entry_counts()
    .map(|counts| counts.into_iter().map(|games| shard.games_of(games)).collect());
    let entries = (0..spec.entries.len()).map(|number| spec.entry_name(number).to_string()).collect();
    Ok(Some(SessionInfo { shard, entries, expected, master_seed: manifest.master_seed }))
}

/// Whether a process holds the directory's lock, read without taking it.
fn liveness(dir: &Path) -> Result<Liveness, StatusError> {
    let path = dir.join(LOCK_FILE);
    let text = match fs::read_to_string(&path) {
        Ok(text) => text,
        Err(cause) if cause.kind() == io::ErrorKind::NotFound => return Ok(Liveness::Ended),
        Err(cause) => return Err(StatusError::Io { path, cause }),
    };
    let pid = text.trim().parse::<u32>().ok();
    match lock_held(&path) {
        Some(true) => Ok(Liveness::Running { pid }),
        Some(false) if text.trim().is_empty() => Ok(Liveness::Ended),
        Some(false) => Ok(Liveness::NotHeldHere { pid }),
        None if text.trim().is_empty() => Ok(Liveness::Ended),
        None => Ok(Liveness::Unknown { pid }),
    }
}

/// Whether `/proc/locks` lists a lock on the file's inode; `None` where
/// there is no `/proc/locks`. (Only the inode is compared: the device
/// numbers it shows are not always `stat`'s, on overlay filesystems.)
fn lock_held(path: &Path) -> Option<bool> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        let inode = fs::metadata(path).ok()?.ino();
        let locks = fs::read_to_string("/proc/locks").ok()?;
        Some(locks.lines().any(|line| lock_line_inode(line) == Some(inode)))
    }
    #[cfg(not(unix))]
    {
        let _ = path;
        None
    }
}

/// The inode a `/proc/locks` line names (`1: FLOCK ADVISORY WRITE 123
/// fe:00:5750792 0 EOF`; a waiting lock's line has a `->` field more).
fn lock_line_inode(line: &str) -> Option<u64> {
    let device_inode = line.split_whitespace().find(|field| field.matches(':').count() == 2)?;
    device_inode.rsplit(':').next()?.parse().ok()
}

fn modified_ms(path: &Path) -> Option<u64> {
    let modified = fs::metadata(path).ok()?.modified().ok()?;
    Some(modified.duration_since(UNIX_EPOCH).ok()?.as_millis() as u64)
}

/// Milliseconds since the Unix epoch now.
pub fn now_ms() -> u64 {
    SystemTime::now().duration_since(UNIX_EPOCH).map_or(0, |since| since.as_millis() as u64)
}

/// An RFC 3339 UTC timestamp as the log writes it
/// (`2026-11-26T09:22:30.513111Z`), in ms since the Unix epoch. Written
/// here rather than taking a date crate for one fixed format.
pub(crate) fn parse_timestamp_ms(text: &str) -> Option<u64> {
    let bytes = text.as_bytes();
    if bytes.len() < 20 || bytes[4] != b'-' || bytes[7] != b'-' || bytes[10] != b'T' || !text.ends_with('Z') {
        return None;
    }
    let number = |from: usize, to: usize| text.get(from..to)?.parse::<i64>().ok();
    let (year, month, day) = (number(0, 4)?, number(5, 7)?, number(8, 10)?);
    let (hour, minute, second) = (number(11, 13)?, number(14, 16)?, number(17, 19)?);
    let fraction = text.get(19..text.len() - 1)?;
    let millis = match fraction.strip_prefix('.') {
        Some(digits) if !digits.is_empty() && digits.bytes().all(|byte| byte.is_ascii_digit()) => {
            format!("{digits:0<3}")[..3].parse::<i64>().ok()?
        }
        None if fraction.is_empty() => 0,
        _ => return None,
    };
    if !(1..=12).contains(&month) || !(1..=31).contains(&day) || hour > 23 || minute > 59 || second > 60 {
        return None;
    }
    // Days from the civil date (Howard Hinnant's `days_from_civil`).
    let year = if month <= 2 { year - 1 } else { year };
    let era = year.div_euclid(400);
    let year_of_era = year - era * 400;
    let day_of_year = (153 * ((month + 9) % 12) + 2) / 5 + day - 1;
    let day_of_era = year_of_era * 365 + year_of_era / 4 - year_of_era / 100 + day_of_year;
    let days = era * 146_097 + day_of_era - 719_468;
    let ms = ((days * 24 + hour) * 60 + minute) * 60_000 + second * 1000 + millis;
    u64::try_from(ms).ok()
}

/// The report in Prometheus's text exposition format (metric names in
/// `docs/guide.md`), one series per directory (label `dir`) and per entry
/// and outcome.
pub fn prometheus_text(report: &StatusReport) -> String {
    use std::fmt::Write;
    let mut text = String::new();
    let label = |value: &str| value.replace('\\', "\\\\").replace('"', "\\\"").replace('\n', "\\n");
    let mut metric = |name: &str, kind: &str, help: &str, rows: &[(String, f64)]| {
        let _ = writeln!(text, "# HELP {name} {help}\n# TYPE {name} {kind}");
        for (labels, value) in rows {
            let _ = writeln!(text, "{name}{{{labels}}} {value}");
        }
    };
    let dir_label = |dir: &DirStatus| format!("dir=\"{}\"", label(&dir.path.display().to_string()));
    let per_dir = |value: &dyn Fn(&DirStatus) -> Option<f64>| -> Vec<(String, f64)> {
        report.dirs.iter().filter_map(|dir| Some((dir_label(dir), value(dir)?))).collect()
    };
    let outcomes: Vec<(String, f64)> = report
        .dirs
        .iter()
        .flat_map(|dir| {
            dir.entries.iter().flat_map(move |entry| {
                let totals = &entry.totals;
                [
                    ("won", totals.won),
                    ("lost", totals.lost),
                    ("stalled", totals.stalled),
                    ("aborted", totals.aborted),
                    ("panic", totals.panic),
                    ("timeout", totals.timeout),
                    ("illegal", totals.illegal),
                ]
                .map(|(outcome, games)| {
                    let labels = format!("{},entry=\"{}\",outcome=\"{outcome}\"", dir_label(dir), label(&entry.entry));
                    (labels, games as f64)
                })
            })
        })
        .collect();
    metric(
        "tickbot_games_recorded_total",
        "counter",
        "Games recorded in the results file, by entry and outcome.",
        &outcomes,
    );
    metric(
        "tickbot_games_expected",
        "gauge",
        "Games the directory plays in all (absent for a session without a fixed number).",
        &per_dir(&|dir| dir.expected.map(|games| games as f64)),
    );
    metric(
        "tickbot_faults",
        "gauge",
        "Games ended by a planner fault (panic, timeout, illegal).",
        &per_dir(&|dir| Some(dir.faults as f64)),
    );
    metric(
        "tickbot_games_per_second",
        "gauge",
        "Games ended per second over the last five minutes, while the session runs.",
        &per_dir(&|dir| dir.games_per_s),
    );
    metric(
        "tickbot_eta_seconds",
        "gauge",
        "Seconds until every expected game is recorded, at the current rate.",
        &per_dir(&|dir| dir.eta_s),
    );
    metric(
        "tickbot_running_games",
        "gauge",
        "Games started and not yet ended.",
        &per_dir(&|dir| Some(dir.running as f64)),
    );
    metric(
        "tickbot_slowest_running_game_seconds",
        "gauge",
        "How long the longest-running game has run.",
        &per_dir(&|dir| Some(dir.slowest_running.as_ref().map_or(0.0, |game| game.running_s))),
    );
    metric(
        "tickbot_session_running",
        "gauge",
        "1 while a process on this machine holds the directory's lock, else 0.",
        &per_dir(&|dir| Some(f64::from(u8::from(matches!(dir.liveness, Liveness::Running { .. }))))),
    );
    metric(
        "tickbot_status_timestamp_seconds",
        "gauge",
        "When these figures were read (Unix time).",
        &[(String::new(), report.at_unix_ms as f64 / 1000.0)],
    );
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn log_timestamps_read_as_unix_milliseconds() {
        assert_eq!(parse_timestamp_ms("1970-01-01T00:00:00Z"), Some(0));
        assert_eq!(parse_timestamp_ms("2026-11-26T09:22:30.513111Z"), Some(1_795_684_950_513));
        assert_eq!(parse_timestamp_ms("2000-02-29T23:59:59.5Z"), Some(951_868_799_500));
        for bad in
            ["", "2026-11-26 09:22:30Z", "2026-13-01T00:00:00Z", "2026-11-26T09:22:30.Z", "2026-11-26T09:22:30+01:00"]
        {
            assert_eq!(parse_timestamp_ms(bad), None, "{bad}");
        }
    }

    #[test]
    fn proc_locks_lines_name_their_inode() {
        assert_eq!(lock_line_inode("1: FLOCK  ADVISORY  WRITE 4192 fe:00:5750792 0 EOF"), Some(5_750_792));
        assert_eq!(lock_line_inode("1: -> FLOCK  ADVISORY  WRITE 4193 00:2f:12 0 EOF"), Some(12));
        assert_eq!(lock_line_inode("garbage"), None);
    }
}
