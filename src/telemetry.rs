//! Logging setup: human-readable lines on stderr, JSON lines appended to a
//! log file for later analysis (rotated by size, a fixed number of old
//! files kept), and progress bars for spans that ask for one (a field named
//! `indicatif.pb_show`), drawn so that log lines print above them instead
//! of through them.
//!
//! Events worth knowing by name: `game_start` and `game_end` (info, target
//! `tickbot::games`; one per game, with `game`, `index`, `seed`, `planner`,
//! `outcome`, `reason`, `ticks`, `score`, `elapsed_us`), and `plan` (debug;
//! one per plan, with the planner's `kind`, `nodes`, `plan_len`,
//! `elapsed_us`, `distinct` from planners that count distinct states apart,
//! and `first_solution_us` and `lower_bound` from anytime planners). The
//! message is the event name.

use std::fs::{self, OpenOptions};
use std::io::{self, IsTerminal, Write};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, MutexGuard, OnceLock, PoisonError};

use file_rotate::compression::Compression;
use file_rotate::suffix::AppendCount;
use file_rotate::{ContentLimit, FileRotate};
use tracing::field::{Field, Visit};
use tracing::{Event, Subscriber};
use tracing_indicatif::IndicatifLayer;
use tracing_indicatif::filter::IndicatifFilter;
use tracing_subscriber::filter::{FilterExt, filter_fn};
use tracing_subscriber::fmt::MakeWriter;
use tracing_subscriber::fmt::format::{Format, Json, Writer};
use tracing_subscriber::fmt::time::{FormatTime, SystemTime};
use tracing_subscriber::fmt::{FmtContext, FormatEvent, FormatFields};
use tracing_subscriber::layer::SubscriberExt;
use tracing_subscriber::registry::LookupSpan;
use tracing_subscriber::util::SubscriberInitExt;
use tracing_subscriber::{EnvFilter, Layer};

use crate::session::json_line::{push_i64_entry, push_key, push_str_entry, push_u64_entry};
use crate::session::{SessionError, SessionLog, push_zero_padded};

/// The file JSON events are appended to, inside the log directory.
pub(crate) const LOG_FILE_NAME: &str = "tickbot.jsonl";

/// The log file is rotated once it passes this size: `tickbot.jsonl`
/// becomes `tickbot.jsonl.1`, the older ones move up by one.
pub(crate) const LOG_ROTATE_BYTES: usize = 64 << 20;

/// Rotated log files kept (`tickbot.jsonl.1` to `.10`): at most about
/// 700 MB of logs however long a session runs.
pub(crate) const LOG_FILES_KEPT: usize = 10;

/// Where and how much to log.
#[derive(Clone, Debug)]
pub struct LogConfig {
    /// A filter directive (`info`, `debug`, `tickbot=debug,warn`). `None`:
    /// `RUST_LOG` if set, else `info`.
    pub level: Option<String>,
    /// Directory of the JSON log file; `None`: no file.
    pub dir: Option<PathBuf>,
    /// When no level is given, stderr leaves the per-game events
    /// (`tickbot::games`) to the file: a session of thousands of games
    /// would otherwise bury its progress bar and warnings under them.
    pub quiet_games_on_stderr: bool,
}

/// Why logging could not be set up.
#[derive(Debug, thiserror::Error)]
pub enum TelemetryError {
    #[error("{origin} {directive:?}: {message}")]
    Filter { origin: &'static str, directive: String, message: String },
    #[error("log file {path}: {cause}")]
    File { path: PathBuf, cause: io::Error },
}

/// The levels a filter may name.
const LEVELS: [&str; 6] = ["off", "error", "warn", "info", "debug", "trace"];

/// Checks a filter the way a user means it: comma-separated directives,
/// each a level or `TARGET=LEVEL`. `EnvFilter` alone would take an unknown
/// word such as `nonsense` for a target name and silently log nothing.
fn check_directives(directive: &str) -> Result<(), String> {
    let is_level = |word: &str| LEVELS.iter().any(|level| level.eq_ignore_ascii_case(word.trim()));
    for part in directive.split(',').map(str::trim).filter(|part| !part.is_empty()) {
        let level = part.rsplit_once('=').map_or(part, |(_, level)| level);
        if !is_level(level) {
            return Err(format!(
                "{level:?} is not a log level: use {} (or TARGET=LEVEL directives separated by commas, e.g. \
                 tickbot=debug,warn)",
                LEVELS.join(", ")
            ));
        }
    }
    Ok(())
}

fn filter(config: &LogConfig, on_stderr: bool) -> Result<EnvFilter, TelemetryError> {
    let (origin, directive) = match &config.level {
        Some(level) => ("--log-level", level.clone()),
        None => match std::env::var(EnvFilter::DEFAULT_ENV) {
            Ok(directive) => ("$RUST_LOG", directive),
            Err(_) if on_stderr && config.quiet_games_on_stderr => {
                ("the default log level", format!("info,{}=warn", crate::session::GAME_EVENTS))
            }
            Err(_) => ("the default log level", "info".to_string()),
        },
    };
    let error = |message: String| TelemetryError::Filter { origin, directive: directive.clone(), message };
    check_directives(&directive).map_err(error)?;
    EnvFilter::try_new(&directive).map_err(|cause| error(cause.to_string()))
}

/// The log file's lines: `tracing-subscriber`'s JSON lines (flattened,
/// no spans). The per-game events, thousands a second in a session of
/// quick games, are written straight into a reused buffer instead of
/// through its formatter, whose writer adaptor checks the UTF-8 of every
/// piece it is given (more than half of what such a line cost), with the
/// timestamp's date and time of day formatted once a second
/// ([`Timestamps`]) and each `Display` field formatted whole before it is
/// escaped: the same bytes, in a fifth of the time. Any other event goes
/// to that formatter.
struct FileFormat {
    json: Format<Json, SystemTime>,
}

impl Default for FileFormat {
    fn default() -> FileFormat {
        let json = tracing_subscriber::fmt::format().json().flatten_event(true).with_current_span(false);
        FileFormat { json: json.with_span_list(false) }
    }
}

impl<S, N> FormatEvent<S, N> for FileFormat
where
    S: Subscriber + for<'a> LookupSpan<'a>,
    N: for<'w> FormatFields<'w> + 'static,
{
    fn format_event(&self, ctx: &FmtContext<'_, S, N>, mut writer: Writer<'_>, event: &Event<'_>) -> std::fmt::Result {
        let meta = event.metadata();
        if meta.target() != crate::session::GAME_EVENTS {
            return self.json.format_event(ctx, writer, event);
        }
        thread_local! {
            static LINE: std::cell::RefCell<GameLine> = const { std::cell::RefCell::new(GameLine::new()) };
        }
        LINE.with_borrow_mut(|GameLine { timestamps, text, line }| {
            line.clear();
            line.push_str("{\"timestamp\":\"");
            timestamps.write(std::time::SystemTime::now(), line);
            // The level's name and the target are ours: nothing to escape.
            line.push_str("\",\"level\":\"");
            line.push_str(meta.level().as_str());
            line.push('"');
            event.record(&mut Fields { line, text });
            line.push_str(",\"target\":\"");
            line.push_str(crate::session::GAME_EVENTS);
            line.push_str("\"}\n");
            writer.write_str(line)
        })
    }
}

/// A per-game line's buffers, reused from one line to the next.
struct GameLine {
    timestamps: Timestamps,
    /// A field's `Debug` text, before it is escaped.
    text: String,
    line: String,
}

impl GameLine {
    const fn new() -> GameLine {
        GameLine { timestamps: Timestamps::new(), text: String::new(), line: String::new() }
    }
}

/// Timestamps as `tracing-subscriber`'s `SystemTime` writes them
/// (RFC 3339 in UTC, to the microsecond: `2026-11-26T14:50:11.123456Z`),
/// the date and time of day formatted once per second: formatting them
/// afresh took more than a quarter of a per-game line's time.
struct Timestamps {
    /// The second `prefix` is, in seconds since the Unix epoch.
    second: Option<u64>,
    /// That second's date and time of day, up to its seconds.
    prefix: String,
}

impl Timestamps {
    const fn new() -> Timestamps {
        Timestamps { second: None, prefix: String::new() }
    }

    fn write(&mut self, now: std::time::SystemTime, out: &mut String) {
        let Ok(since_epoch) = now.duration_since(std::time::UNIX_EPOCH) else {
            // A clock before 1970: rare enough to format in full.
            let _ = SystemTime.format_time(&mut Writer::new(out));
            return;
        };
        let second = since_epoch.as_secs();
        if self.second != Some(second) {
            use std::fmt::Write as _;
            self.prefix.clear();
            let time = chrono::DateTime::from_timestamp(second as i64, 0).unwrap_or_default();
            let _ = write!(self.prefix, "{}", time.format("%Y-%m-%dT%H:%M:%S"));
            self.second = Some(second);
        }
        out.push_str(&self.prefix);
        out.push('.');
        push_zero_padded(out, u64::from(since_epoch.subsec_micros()), 6);
        out.push('Z');
    }
}

/// An event's fields into the JSON line being written, each as
/// `tracing-serde`'s map visitor writes it (its `Debug` text for what
/// is neither a number, a bool nor a string).
struct Fields<'a> {
    line: &'a mut String,
    text: &'a mut String,
}

impl Visit for Fields<'_> {
    fn record_bool(&mut self, field: &Field, value: bool) {
        push_key(self.line, field.name());
        self.line.push_str(if value { "true" } else { "false" });
    }

    fn record_debug(&mut self, field: &Field, value: &dyn std::fmt::Debug) {
        use std::fmt::Write as _;
        self.text.clear();
        let _ = write!(self.text, "{value:?}");
        push_str_entry(self.line, field.name(), self.text);
    }

    fn record_u64(&mut self, field: &Field, value: u64) {
        push_u64_entry(self.line, field.name(), value);
    }

    fn record_i64(&mut self, field: &Field, value: i64) {
        push_i64_entry(self.line, field.name(), value);
    }

    fn record_f64(&mut self, field: &Field, value: f64) {
        push_key(self.line, field.name());
        self.line.push_str(&serde_json::Value::from(value).to_string());
    }

    fn record_str(&mut self, field: &Field, value: &str) {
        push_str_entry(self.line, field.name(), value);
    }
}

/// What the progress layer takes: spans that ask for a bar, never an
/// event. Saying so per callsite (not per call, as `IndicatifFilter`
/// alone does) lets an event no other layer wants cost nothing: otherwise
/// a debug event, with the other layers at `info`, is still built and
/// offered to every layer on each call, and `enabled!` says it is wanted.
fn progress_filter<S: Subscriber + for<'a> LookupSpan<'a>>() -> impl tracing_subscriber::layer::Filter<S> {
    IndicatifFilter::new(false).and(filter_fn(|meta| meta.is_span()))
}

/// The log file of this process, once [`init`] has opened one.
static LOG_FILE: OnceLock<LogFile> = OnceLock::new();

/// The JSON log file the global subscriber writes, if it writes one.
pub fn log_file() -> Option<LogFile> {
    LOG_FILE.get().cloned()
}

/// Installs the global subscriber. Call once, from `main`.
pub fn init(config: &LogConfig) -> Result<(), TelemetryError> {
    let progress_layer = IndicatifLayer::new();
    let stderr_layer = tracing_subscriber::fmt::layer()
        .with_writer(progress_layer.get_stderr_writer())
        .with_ansi(io::stderr().is_terminal())
        .with_target(false)
        .compact()
        .with_filter(filter(config, true)?);
    let file_layer = match &config.dir {
        Some(dir) => {
            let file = LogFile::new(RotatingLog::open(dir)?);
            let _ = LOG_FILE.set(file.clone());
            // A mutex around the file: every event is written whole, never
            // dropped quietly (unlike a lossy non-blocking writer).
            // Per-game events wait under a lock of their own until 64 KiB
            // of them wait or the session's next commit writes them, before
            // it records their games; any other event writes them first,
            // then itself. Rotation happens between writes, so a line is
            // never split across two files.
            let layer = tracing_subscriber::fmt::layer()
                .json()
                .event_format(FileFormat::default())
                .with_writer(file)
                .with_filter(filter(config, false)?);
            Some(layer)
        }
        None => None,
    };
    tracing_subscriber::registry()
        .with(stderr_layer)
        .with(file_layer)
        .with(progress_layer.with_filter(progress_filter()))
        .init();
    Ok(())
}

/// The JSON log file, shared by the subscriber that writes it and the
/// session that checks it.
#[derive(Clone)]
pub struct LogFile(Arc<SharedLog>);

/// The file and the per-game lines waiting for it, each under its own
/// lock: a worker adding its game's lines never waits while another
/// thread writes the file, short of writing them itself once they pass
/// `waiting_limit`. Lock order: the file, then the waiting lines.
struct SharedLog {
    file: Mutex<RotatingLog>,
    waiting: Mutex<WaitingLines>,
    /// Waiting lines are written out once they reach this many bytes,
    /// flush or not.
    waiting_limit: usize,
}

/// Whole per-game lines not yet written, and how many.
#[derive(Default)]
struct WaitingLines {
    bytes: Vec<u8>,
    lines: u64,
}

impl std::fmt::Debug for LogFile {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_tuple("LogFile").field(&self.lock().path).finish()
    }
}

fn locked<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(PoisonError::into_inner)
}

impl LogFile {
    fn new(log: RotatingLog) -> LogFile {
        LogFile::with_waiting_limit(log, LOG_WAITING_BYTES)
    }

    fn with_waiting_limit(log: RotatingLog, waiting_limit: usize) -> LogFile {
        LogFile(Arc::new(SharedLog { file: Mutex::new(log), waiting: Mutex::default(), waiting_limit }))
    }

    fn lock(&self) -> MutexGuard<'_, RotatingLog> {
        locked(&self.0.file)
    }

    /// Writes the waiting lines out unless the file is busy (a write
    /// blocked on a hung disk): for a process about to end in a hurry.
    pub fn try_write_waiting(&self) {
        if let Ok(mut log) = self.0.file.try_lock() {
            self.0.write_waiting(&mut log);
        }
    }

    /// Writes the waiting lines out; then the first write that failed,
    /// as the error a session stops with.
    pub fn failure(&self) -> Option<SessionError> {
        let mut log = self.lock();
        self.0.write_waiting(&mut log);
        let (kind, message) = log.failed.as_ref()?;
        let lost = match log.dropped {
            1 => "1 line lost".to_string(),
            lines => format!("{lines} lines lost"),
        };
        Some(SessionError::Log { path: log.path.clone(), cause: io::Error::new(*kind, format!("{message} ({lost})")) })
    }
}

impl SessionLog for LogFile {
    fn flush(&self) -> Result<(), SessionError> {
        self.failure().map_or(Ok(()), Err)
    }
}

impl SharedLog {
    /// Writes the waiting lines in one call; if it fails, they are all
    /// lost (the file is cut back to before them) and counted. The lines
    /// are swapped out for the file's spare buffer, so the workers go on
    /// adding theirs during the write.
    fn write_waiting(&self, log: &mut RotatingLog) {
        {
            let mut waiting = locked(&self.waiting);
            if waiting.bytes.is_empty() {
                return;
            }
            std::mem::swap(&mut *waiting, &mut log.spare);
        }
        let lines = std::mem::take(&mut log.spare);
        if let Err(error) = log.write_all(&lines.bytes) {
            log.lost(lines.lines, &error);
        }
        log.spare = WaitingLines { lines: 0, ..lines };
        log.spare.bytes.clear();
    }
}

/// One event's write: a per-game event's (`game`) waits for the next
/// flush, any other's goes to the file at once.
pub struct LogLine<'a> {
    log: &'a SharedLog,
    game: bool,
}

impl std::fmt::Debug for LogLine<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LogLine").field("path", &locked(&self.log.file).path).field("game", &self.game).finish()
    }
}

impl Write for LogLine<'_> {
    /// The whole line in one call. A line the file cannot take is
    /// counted and remembered, not returned: the subscriber would only
    /// print it, line after line.
    fn write(&mut self, line: &[u8]) -> io::Result<usize> {
        if self.game {
            let full = {
                let mut waiting = locked(&self.log.waiting);
                waiting.bytes.extend_from_slice(line);
                waiting.lines += 1;
                waiting.bytes.len() >= self.log.waiting_limit
            };
            if full {
                self.log.write_waiting(&mut locked(&self.log.file));
            }
        } else {
            // The waiting lines first: the file keeps the events' order.
            let mut log = locked(&self.log.file);
            self.log.write_waiting(&mut log);
            if let Err(error) = log.write_all(line) {
                log.lost(1, &error);
            }
        }
        Ok(line.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

impl<'a> MakeWriter<'a> for LogFile {
    type Writer = LogLine<'a>;

    fn make_writer(&'a self) -> LogLine<'a> {
        LogLine { log: &self.0, game: false }
    }

    fn make_writer_for(&'a self, meta: &tracing::Metadata<'_>) -> LogLine<'a> {
        LogLine { log: &self.0, game: meta.target() == crate::session::GAME_EVENTS }
    }
}

/// Waiting per-game lines are written out once they reach this size,
/// flush or not (by the worker whose line crosses it): a hundred-odd
/// games' lines, written in one call. Small, so that the two buffers
/// that take turns stay in the processor's cache and their pages stay
/// mapped: left to the commit, a busy session's lines took a megabyte a
/// batch of memory touched for the first time (at LOCM's pace, 240 more
/// page faults in the first 2,000 games).
const LOG_WAITING_BYTES: usize = 64 << 10;

/// The JSON log: `file-rotate` underneath, and a write that fails part
/// way (a full disk) cut back to where it began, so the file never ends in
/// a torn line.
struct RotatingLog {
    inner: FileRotate<AppendCount>,
    path: PathBuf,
    /// The current file's length, followed write by write (rather than
    /// asked of the file system before each line).
    len: u64,
    rotate_bytes: u64,
    /// The first write that failed.
    failed: Option<(io::ErrorKind, String)>,
    /// Lines that could not be written.
    dropped: u64,
    /// The buffer the waiting lines are swapped into to be written,
    /// kept for its room.
    spare: WaitingLines,
}

impl RotatingLog {
    fn open(dir: &Path) -> Result<RotatingLog, TelemetryError> {
        RotatingLog::with_limits(dir, LOG_ROTATE_BYTES, LOG_FILES_KEPT)
    }

    fn with_limits(dir: &Path, rotate_bytes: usize, files_kept: usize) -> Result<RotatingLog, TelemetryError> {
        let path = dir.join(LOG_FILE_NAME);
        let error = |cause| TelemetryError::File { path: path.clone(), cause };
        fs::create_dir_all(dir).map_err(error)?;
        // Opened once here for a clear error: `FileRotate` would only
        // drop the lines of a file it cannot open.
        let file = OpenOptions::new().create(true).append(true).open(&path).map_err(error)?;
        let len = file.metadata().map_err(error)?.len();
        let inner = FileRotate::new(
            &path,
            AppendCount::new(files_kept),
            ContentLimit::BytesSurpassed(rotate_bytes),
            Compression::None,
            None,
        );
        Ok(RotatingLog {
            inner,
            path,
            len,
            rotate_bytes: rotate_bytes as u64,
            failed: None,
            dropped: 0,
            spare: WaitingLines::default(),
        })
    }

    fn lost(&mut self, lines: u64, error: &io::Error) {
        self.dropped += lines;
        self.failed.get_or_insert_with(|| (error.kind(), error.to_string()));
    }
}

impl Write for RotatingLog {
    fn write(&mut self, line: &[u8]) -> io::Result<usize> {
        // `file-rotate` rotates before a write once the file has passed
        // its limit: the line then starts a new, empty file.
        let rotates = self.len > self.rotate_bytes;
        let before = if rotates { 0 } else { self.len };
        if let Err(error) = self.inner.write_all(line) {
            if let Ok(file) = OpenOptions::new().write(true).open(&self.path) {
                // Cut back a torn line, never a file the rotation failed to move.
                let len = file.metadata().map_or(0, |metadata| metadata.len());
                if len > before && !(rotates && len > self.rotate_bytes) {
                    let _ = file.set_len(before);
                }
            }
            self.len = fs::metadata(&self.path).map_or(before, |metadata| metadata.len());
            return Err(error);
        }
        self.len = before + line.len() as u64;
        Ok(line.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        self.inner.flush()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_log_rotates_between_whole_lines_and_keeps_a_fixed_number_of_files() {
        let dir = tempfile::tempdir().unwrap();
        let mut log = RotatingLog::with_limits(dir.path(), 1000, 3).unwrap();
        for number in 0..200 {
            log.write_all(format!("{{\"line\":{number},\"pad\":\"{}\"}}\n", "x".repeat(60)).as_bytes()).unwrap();
        }
        let mut names: Vec<String> =
            fs::read_dir(dir.path()).unwrap().map(|entry| entry.unwrap().file_name().into_string().unwrap()).collect();
        names.sort();
        assert_eq!(names, ["tickbot.jsonl", "tickbot.jsonl.1", "tickbot.jsonl.2", "tickbot.jsonl.3"]);
        let mut numbers = Vec::new();
        for name in names.iter().rev() {
            let text = fs::read_to_string(dir.path().join(name)).unwrap();
            assert!(text.ends_with('\n'), "{name} ends in a torn line");
            for line in text.lines() {
                let value: serde_json::Value = serde_json::from_str(line).unwrap();
                numbers.push(value["line"].as_u64().unwrap());
            }
        }
        // The newest lines, in order, none missing between the oldest kept and the last.
        assert_eq!(numbers.last(), Some(&199));
        assert!(numbers.windows(2).all(|pair| pair[1] == pair[0] + 1), "{numbers:?}");
    }

    #[test]
    fn game_lines_wait_for_a_flush_and_any_other_event_writes_them_first_in_order() {
        let dir = tempfile::tempdir().unwrap();
        let file = LogFile::new(RotatingLog::open(dir.path()).unwrap());
        let messages = || -> Vec<String> {
            let text = fs::read_to_string(dir.path().join(LOG_FILE_NAME)).unwrap();
            text.lines()
                .map(|line| serde_json::from_str::<serde_json::Value>(line).unwrap()["message"].to_string())
                .collect()
        };
        let layer = tracing_subscriber::fmt::layer().json().flatten_event(true).with_writer(file.clone());
        tracing::subscriber::with_default(tracing_subscriber::registry().with(layer), || {
            tracing::info!(target: crate::session::GAME_EVENTS, "game_start");
            assert!(messages().is_empty(), "a game line was written before a flush");
            assert!(file.failure().is_none());
            assert_eq!(messages(), ["\"game_start\""]);
            tracing::info!(target: crate::session::GAME_EVENTS, "game_end");
            tracing::warn!("other");
        });
        assert_eq!(messages(), ["\"game_start\"", "\"game_end\"", "\"other\""]);
    }

    #[test]
    fn game_lines_past_the_waiting_limit_are_written_without_a_flush() {
        let dir = tempfile::tempdir().unwrap();
        let file = LogFile::with_waiting_limit(RotatingLog::open(dir.path()).unwrap(), 1000);
        let lines = || fs::read_to_string(dir.path().join(LOG_FILE_NAME)).unwrap().lines().count();
        let layer = tracing_subscriber::fmt::layer().json().flatten_event(true).with_writer(file.clone());
        tracing::subscriber::with_default(tracing_subscriber::registry().with(layer), || {
            for number in 0..30 {
                tracing::info!(target: crate::session::GAME_EVENTS, number, "game_end");
            }
        });
        // Lines of about a hundred bytes: written ten or so at a time.
        let written = lines();
        assert!((9..30).contains(&written), "{written} of 30 lines written before a flush");
        assert!(file.failure().is_none());
        assert_eq!(lines(), 30);
    }

    #[test]
    fn filters_name_levels_and_unknown_words_are_refused() {
        for good in ["info", "DEBUG", "off", "tickbot=debug", "tickbot=debug,warn", " warn , tickbot::session=trace "] {
            assert_eq!(check_directives(good), Ok(()), "{good}");
        }
        for (bad, word) in [("nonsense", "nonsense"), ("tickbot=loud", "loud"), ("info,verbose", "verbose")] {
            let message = check_directives(bad).unwrap_err();
            assert!(message.starts_with(&format!("{word:?} is not a log level: use off, error, warn")), "{message}");
        }
    }

    /// A writer into a shared buffer, for a subscriber under test.
    #[derive(Clone, Default)]
    struct Captured(Arc<Mutex<Vec<u8>>>);

    impl Write for Captured {
        fn write(&mut self, bytes: &[u8]) -> io::Result<usize> {
            self.0.lock().unwrap().extend_from_slice(bytes);
            Ok(bytes.len())
        }

        fn flush(&mut self) -> io::Result<()> {
            Ok(())
        }
    }

    impl<'a> MakeWriter<'a> for Captured {
        type Writer = Captured;

        fn make_writer(&'a self) -> Captured {
            self.clone()
        }
    }

    impl Captured {
        /// The lines written, each without its timestamp (the two
        /// formatters read the clock apart).
        fn lines(&self) -> Vec<String> {
            let text = String::from_utf8(self.0.lock().unwrap().clone()).unwrap();
            text.lines()
                .map(|line| {
                    let (_, rest) = line.split_once("\",\"level\":").expect("a timestamp, then the level");
                    rest.to_string()
                })
                .collect()
        }
    }

    #[test]
    fn per_game_lines_are_the_bytes_the_json_formatter_writes() {
        let (stock, ours) = (Captured::default(), Captured::default());
        let subscriber = tracing_subscriber::registry()
            .with(
                tracing_subscriber::fmt::layer()
                    .json()
                    .flatten_event(true)
                    .with_current_span(false)
                    .with_span_list(false)
                    .with_writer(stock.clone()),
            )
            .with(
                tracing_subscriber::fmt::layer().json().event_format(FileFormat::default()).with_writer(ours.clone()),
            );
        tracing::subscriber::with_default(subscriber, || {
            let outcome = crate::game::OutcomeKind::Timeout;
            let reason = "said \"no\"\tat tick 3: \u{e9}\u{1F40D} \\ \u{7}";
            tracing::info!(
                target: crate::session::GAME_EVENTS,
                game = "snake",
                id = %"snake/000042",
                seed = u64::MAX,
                outcome = %outcome,
                reason = %reason,
                ticks = 3u32,
                score = -7i64,
                kept = true,
                share = 0.1f64,
                debugged = ?Some("x"),
                "game_end"
            );
            tracing::warn!(target: crate::session::GAME_EVENTS, planner = "cycle", "game_start");
            // Any other event is the stock formatter's own.
            tracing::info!(answer = 42, "another event");
        });
        let lines = stock.lines();
        assert_eq!(lines.len(), 3);
        assert!(lines[0].contains("\"reason\":\"said \\\"no\\\"\\tat tick 3"), "{}", lines[0]);
        assert_eq!(ours.lines(), lines);
    }

    #[test]
    fn timestamps_are_written_as_the_stock_formatter_writes_them() {
        use std::time::{Duration, UNIX_EPOCH};
        let mut timestamps = Timestamps::new();
        let mut written = |since_epoch: Duration| {
            let mut out = String::new();
            timestamps.write(UNIX_EPOCH + since_epoch, &mut out);
            out
        };
        assert_eq!(written(Duration::ZERO), "1970-01-01T00:00:00.000000Z");
        // A leap day, the same second again (from the cache), the next one.
        assert_eq!(written(Duration::new(1_709_164_799, 999_999_999)), "2024-02-28T23:59:59.999999Z");
        assert_eq!(written(Duration::new(1_709_164_799, 5_000)), "2024-02-28T23:59:59.000005Z");
        assert_eq!(written(Duration::new(1_709_164_800, 0)), "2024-02-29T00:00:00.000000Z");
        assert_eq!(written(Duration::new(1_795_704_611, 123_456_789)), "2026-11-26T14:50:11.123456Z");
        // Against the stock formatter, a moment apart.
        let mut stock = String::new();
        SystemTime.format_time(&mut Writer::new(&mut stock)).unwrap();
        let ours = written(std::time::SystemTime::now().duration_since(UNIX_EPOCH).unwrap());
        let parse = |text: &str| chrono::DateTime::parse_from_rfc3339(text).unwrap();
        assert_eq!((ours.len(), ours.as_bytes()[10], ours.as_bytes()[26]), (stock.len(), b'T', b'Z'));
        assert!((parse(&ours) - parse(&stock)).num_seconds().abs() <= 1, "{ours} against {stock}");
    }

    #[test]
    fn an_event_below_every_layers_level_is_not_wanted() {
        let file = tracing_subscriber::fmt::layer().json().with_writer(Captured::default());
        let subscriber = tracing_subscriber::registry()
            .with(file.with_filter(EnvFilter::new("info")))
            .with(IndicatifLayer::new().with_filter(progress_filter()));
        tracing::subscriber::with_default(subscriber, || {
            assert!(tracing::enabled!(tracing::Level::INFO));
            assert!(!tracing::enabled!(tracing::Level::DEBUG), "a debug event would be built on every call");
        });
    }
}
