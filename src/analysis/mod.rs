//! Reading finished sessions back (`tickbot stats`): per group of games
//! (by entry, game, planner or level) the outcomes, the win rate with its
//! Wilson interval, the mean score with its interval, percentiles of ticks
//! and planner time, games per second, and, over all, the slowest and the
//! failed games with their replays; two groups compared (`compare`); the
//! JSON-lines logs summed up (`logs`); and a chart (`chart`). No printing:
//! the binary shows the reports.
//!
//! One pass over each results file, in memory flat in its length: per group
//! a few counters, a running mean and variance, and two histograms, plus
//! the `top` slowest games (a bounded heap) and the first `top` failed ones.
//!
//! Percentiles come from HdrHistogram (the `hdrhistogram` crate, the Rust
//! port kept by the HdrHistogram project) at 3 significant digits: a
//! reported percentile is the top of the bucket holding the nearest-rank
//! value v (the smallest recorded value with at least that share of the
//! values at or below it), capped at the maximum: never below v and less
//! than v/1024 above it (under 0.1%; exact below 2048), and the maximum
//! is kept exactly. It is
//! chosen over a t-digest or DDSketch because our values are integers
//! (ticks, microseconds), its error is bounded per value rather than per
//! rank, its memory depends only on the largest value, never on the count
//! (1,024 eight-byte counters per doubling of the range: about 190 KB for
//! microseconds up to an hour), and histograms merge exactly.

pub mod agents;
pub mod chart;
pub mod logs;
pub mod paired;
pub mod status;

use std::cmp::Reverse;
use std::collections::{BTreeMap, BinaryHeap};
use std::io::{self, BufRead, Read};
use std::path::{Path, PathBuf};
use std::str::FromStr;
use std::sync::atomic::{AtomicBool, Ordering};

use hdrhistogram::Histogram;
use serde::Serialize;

use crate::game::OutcomeKind;
use crate::progress::Progress;
use crate::session::Totals;
use crate::session::store::ResultLine;
use crate::stats::{Moments, ProportionTest, two_proportion_test, wilson_interval};

/// Significant digits the histograms keep: values within 0.1%.
pub(crate) const SIGNIFICANT_DIGITS: u8 = 3;

/// What the percentiles are, for reports.
pub(crate) const SKETCH: &str =
    "HdrHistogram, 3 significant digits: nearest-rank percentiles at most 0.1% high, exact max";

/// Joins a group's values into one lookup key (a control character no
/// entry, game, planner or level name holds).
const KEY_SEPARATOR: char = '\u{1f}';

/// Lines read between two looks at the cancel flag.
const CANCEL_POLL_LINES: u64 = 1 << 14;

/// A field games can be grouped by.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum GroupField {
    Entry,
    Game,
    Planner,
    Level,
}

impl GroupField {
    pub fn name(self) -> &'static str {
        match self {
            GroupField::Entry => "entry",
            GroupField::Game => "game",
            GroupField::Planner => "planner",
            GroupField::Level => "level",
        }
    }

    fn of(self, line: &ResultLine) -> &str {
        match self {
            GroupField::Entry => &line.entry,
            GroupField::Game => &line.game,
            GroupField::Planner => &line.planner,
            GroupField::Level => &line.level,
        }
    }
}

impl FromStr for GroupField {
    type Err = String;

    fn from_str(text: &str) -> Result<GroupField, String> {
        match text.trim() {
            "entry" => Ok(GroupField::Entry),
            "game" => Ok(GroupField::Game),
            "planner" => Ok(GroupField::Planner),
            "level" => Ok(GroupField::Level),
            other => Err(format!("{other:?} is not a field to group by: use entry, game, planner or level")),
        }
    }
}

/// Parses `--by`: fields separated by commas, e.g. `game,planner`.
pub fn parse_group_by(text: &str) -> Result<Vec<GroupField>, String> {
    let mut fields = Vec::new();
    for word in text.split(',') {
        let field: GroupField = word.parse()?;
        if fields.contains(&field) {
            return Err(format!("{} is named twice in {text:?}", field.name()));
        }
        fields.push(field);
    }
    Ok(fields)
}

/// Why a results file could not be read.
#[derive(Debug, thiserror::Error)]
pub enum AnalysisError {
    #[error("cannot read {path}: {cause}")]
    Read { path: PathBuf, cause: io::Error },
    #[error("{path}:{line}:{column}: not a results line: {message}")]
    Line { path: PathBuf, line: u64, column: usize, message: String },
}

impl AnalysisError {
    /// Whether the input itself is at fault (a line that is not a result,
    /// a damaged gzip stream, bytes that are not text) rather than the
    /// machine (a disk that fails to read).
    pub fn is_bad_input(&self) -> bool {
        match self {
            AnalysisError::Line { .. } => true,
            AnalysisError::Read { cause, .. } => {
                matches!(
                    cause.kind(),
                    io::ErrorKind::InvalidData | io::ErrorKind::InvalidInput | io::ErrorKind::UnexpectedEof
                )
            }
        }
    }
}

/// Nearest-rank percentiles of one measure.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Percentiles {
    pub p50: u64,
    pub p90: u64,
    pub p99: u64,
    pub max: u64,
}

/// A histogram of one measure and its exact maximum.
#[derive(Clone, Debug)]
struct Measure {
    histogram: Histogram<u64>,
    max: u64,
}

impl Measure {
    fn new() -> Measure {
        let histogram = Histogram::new(SIGNIFICANT_DIGITS).expect("3 significant digits are in range");
        Measure { histogram, max: 0 }
    }

    fn add(&mut self, value: u64) {
        // `record` grows the histogram to hold the value; `saturating_record`
        // would clamp it to the current top (2047 for a new histogram)
        // instead. Growing can only fail where a `usize` cannot count the
        // buckets u64 values need, which no 64-bit target is.
        if self.histogram.record(value).is_err() {
            self.histogram.saturating_record(value);
        }
        self.max = self.max.max(value);
    }

    fn percentiles(&self) -> Percentiles {
        if self.histogram.is_empty() {
            return Percentiles::default();
        }
        // The histogram reports the top of a value's bucket: never above
        // the largest value seen.
        let at = |quantile: f64| self.histogram.value_at_quantile(quantile).min(self.max);
        Percentiles { p50: at(0.5), p90: at(0.9), p99: at(0.99), max: self.max }
    }
}

/// The running figures of one group of games.
#[derive(Clone, Debug)]
struct Group {
    key: Vec<String>,
    /// The session place of the first of its entries (`usize::MAX`: none known).
    rank: usize,
    totals: Totals,
    score: Moments,
    ticks: Measure,
    planner_us: Measure,
    elapsed_us: u64,
}

impl Group {
    fn new(key: Vec<String>) -> Group {
        Group {
            key,
            rank: usize::MAX,
            totals: Totals::default(),
            score: Moments::default(),
            ticks: Measure::new(),
            planner_us: Measure::new(),
            elapsed_us: 0,
        }
    }

    fn add(&mut self, line: &ResultLine) {
        self.totals.add(line.outcome, line.ticks, line.score, line.planner_us);
        self.score.add(line.score as f64);
        self.ticks.add(u64::from(line.ticks));
        self.planner_us.add(line.planner_us);
        self.elapsed_us += line.elapsed_us;
    }

    fn report(&self, by: &[GroupField]) -> GroupReport {
        let totals = &self.totals;
        // The mean from the exact integer sum (a running mean can end a
        // hair off, printing -0.00 for a mean of 0); the running moments
        // give the spread.
        let score_mean = totals.score as f64 / totals.games.max(1) as f64;
        let (low, high) = self.score.mean_interval();
        let score_half_width = (high - low) / 2.0;
        let name = if self.key.is_empty() { "all".to_string() } else { self.key.join(" / ") };
        GroupReport {
            name,
            key: by.iter().map(|field| field.name()).zip(self.key.iter().cloned()).collect(),
            games: totals.games,
            won: totals.won,
            lost: totals.lost,
            stalled: totals.stalled,
            aborted: totals.aborted,
            faults: totals.faults(),
            panic: totals.panic,
            timeout: totals.timeout,
            illegal: totals.illegal,
            win_rate: totals.won as f64 / totals.games.max(1) as f64,
            win_interval: wilson_interval(totals.won, totals.games).unwrap_or((0.0, 1.0)),
            score_mean,
            score_interval: (score_mean - score_half_width, score_mean + score_half_width),
            ticks: self.ticks.percentiles(),
            planner_us: self.planner_us.percentiles(),
            games_per_second: if self.elapsed_us == 0 {
                0.0
            } else {
                totals.games as f64 / (self.elapsed_us as f64 / 1e6)
            },
        }
    }
}

/// One group's figures.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct GroupReport {
    /// The group's values joined by " / " ("all" for the whole input).
    pub name: String,
    /// Each grouping field with its value.
    pub(crate) key: BTreeMap<&'static str, String>,
    pub games: u64,
    pub won: u64,
    pub lost: u64,
    pub stalled: u64,
    pub aborted: u64,
    /// Panics, timeouts and illegal actions.
    pub faults: u64,
    pub(crate) panic: u64,
    pub(crate) timeout: u64,
    pub(crate) illegal: u64,
    pub win_rate: f64,
    /// The 95% Wilson interval of the win rate.
    pub win_interval: (f64, f64),
    pub score_mean: f64,
    /// The 95% interval of the mean score (normal approximation).
    pub score_interval: (f64, f64),
    pub ticks: Percentiles,
    /// Planner time per game, in microseconds.
    pub planner_us: Percentiles,
    /// Games per second of the games' own time (the sum of `elapsed_us`):
    /// what one game slot plays; a session playing N at once plays up to
    /// N times as many.
    pub games_per_second: f64,
}

/// A game worth a look, with its replay.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct GameRef {
    pub id: String,
    pub outcome: OutcomeKind,
    pub reason: String,
    pub ticks: u32,
    pub planner_us: u64,
    pub elapsed_us: u64,
    pub replay: Option<PathBuf>,
}

impl GameRef {
    fn of(line: &ResultLine) -> GameRef {
        GameRef {
            id: line.id.clone(),
            outcome: line.outcome,
            reason: line.reason.clone(),
            ticks: line.ticks,
            planner_us: line.planner_us,
            elapsed_us: line.elapsed_us,
            replay: line.replay.clone(),
        }
    }
}

/// A slow game in the bounded heap: ordered by time, then by arrival (the
/// earlier game first among equals), so the kept set does not depend on
/// anything but the input.
#[derive(Debug, PartialEq, Eq)]
struct Slow {
    elapsed_us: u64,
    arrival: Reverse<u64>,
    game: GameRef,
}

impl Ord for Slow {
    fn cmp(&self, other: &Slow) -> std::cmp::Ordering {
        (self.elapsed_us, self.arrival).cmp(&(other.elapsed_us, other.arrival))
    }
}

impl PartialOrd for Slow {
    fn partial_cmp(&self, other: &Slow) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

/// Results lines summed up as they are read.
#[derive(Debug)]
pub struct Summary {
    by: Vec<GroupField>,
    groups: Vec<Group>,
    /// Group number by key (its values joined by [`KEY_SEPARATOR`]), for
    /// lookups only: groups are reported in session order where it is
    /// known, else in the order they first appear.
    index: BTreeMap<String, usize>,
    key_buffer: String,
    overall: Group,
    top: usize,
    slowest: BinaryHeap<Reverse<Slow>>,
    failed: Vec<GameRef>,
    failed_total: u64,
    lines: u64,
    torn_lines: u64,
    /// Each entry's place in its session (see [`Summary::order_entries`]).
    entry_rank: BTreeMap<String, usize>,
    agents: agents::AgentTally,
}

impl Summary {
    /// Groups by `by` (none: one group), keeping the `top` slowest and the
    /// first `top` failed games.
    pub fn new(by: Vec<GroupField>, top: usize) -> Summary {
        Summary {
            by,
            groups: Vec::new(),
            index: BTreeMap::new(),
            key_buffer: String::new(),
            overall: Group::new(Vec::new()),
            top,
            slowest: BinaryHeap::new(),
            failed: Vec::new(),
            failed_total: 0,
            lines: 0,
            torn_lines: 0,
            entry_rank: BTreeMap::new(),
            agents: agents::AgentTally::default(),
        }
    }

    /// Reports the groups in the order of these entries (the session's)
    /// rather than in the order their first games finished: a group comes
    /// where its first entry does; groups of entries not named keep their
    /// order of appearance, after the others.
    pub fn order_entries(&mut self, entries: Vec<String>) {
        self.entry_rank = entries.into_iter().enumerate().map(|(rank, name)| (name, rank)).collect();
    }

    /// Counts one finished game.
    pub(crate) fn add(&mut self, line: &ResultLine) {
        self.lines += 1;
        self.overall.add(line);
        self.agents.add(line);
        // The key as one string in a reused buffer: a lookup allocates
        // nothing, and a key is stored once per new group.
        self.key_buffer.clear();
        for (position, field) in self.by.iter().enumerate() {
            if position > 0 {
                self.key_buffer.push(KEY_SEPARATOR);
            }
            self.key_buffer.push_str(field.of(line));
        }
        let number = match self.index.get(self.key_buffer.as_str()) {
            Some(&number) => number,
            None => {
                let key = self.by.iter().map(|field| field.of(line).to_string()).collect();
                self.groups.push(Group::new(key));
                self.index.insert(self.key_buffer.clone(), self.groups.len() - 1);
                self.groups.len() - 1
            }
        };
        let rank = self.entry_rank.get(line.entry.as_str()).copied().unwrap_or(usize::MAX);
        let group = &mut self.groups[number];
        group.rank = group.rank.min(rank);
        group.add(line);
        // A game enters the heap only if it beats the fastest kept one (a
        // later arrival never beats an equal time), so its fields are copied
        // only then: once the heap is full, most lines copy nothing.
        let enters = self.top > 0
            && (self.slowest.len() < self.top
                || self.slowest.peek().is_some_and(|Reverse(least)| line.elapsed_us > least.elapsed_us));
        if enters {
            if self.slowest.len() == self.top {
                self.slowest.pop();
            }
            let slow = Slow { elapsed_us: line.elapsed_us, arrival: Reverse(self.lines), game: GameRef::of(line) };
            self.slowest.push(Reverse(slow));
        }
        if matches!(line.outcome, OutcomeKind::Panic | OutcomeKind::Timeout | OutcomeKind::Illegal) {
            self.failed_total += 1;
            if self.failed.len() < self.top {
                self.failed.push(GameRef::of(line));
            }
        }
    }

    /// The report of everything counted so far.
    pub fn report(&self) -> Report {
        let mut slowest: Vec<&Slow> = self.slowest.iter().map(|Reverse(slow)| slow).collect();
        slowest.sort_by(|a, b| b.cmp(a));
        let mut groups: Vec<&Group> = self.groups.iter().collect();
        // Stable: groups of equal rank keep their order of appearance.
        groups.sort_by_key(|group| group.rank);
        Report {
            by: self.by.clone(),
            groups: groups.into_iter().map(|group| group.report(&self.by)).collect(),
            overall: self.overall.report(&[]),
            slowest: slowest.into_iter().map(|slow| slow.game.clone()).collect(),
            failed: self.failed.clone(),
            failed_total: self.failed_total,
            agents: self.agents.report(),
            lines: self.lines,
            torn_lines: self.torn_lines,
            sketch: SKETCH,
        }
    }
}

/// What `stats` reports.
#[derive(Clone, Debug, Serialize)]
pub struct Report {
    pub by: Vec<GroupField>,
    pub groups: Vec<GroupReport>,
    pub overall: GroupReport,
    /// The slowest games (by `elapsed_us`), slowest first.
    pub slowest: Vec<GameRef>,
    /// The first failed games (panic, timeout, illegal) in reading order.
    pub failed: Vec<GameRef>,
    pub failed_total: u64,
    /// External agents: games and faults per entry, seat and command.
    pub agents: Vec<agents::AgentReport>,
    pub lines: u64,
    /// Last lines cut short (a session still running, or killed) and skipped.
    pub torn_lines: u64,
    /// How the percentiles are computed.
    pub sketch: &'static str,
}

/// The longest line either reader takes: a results line is a few hundred
/// bytes and a log line rarely more than a few thousand, so a file with a
/// longer one (a binary file, `/dev/zero` through a pipe) is not what it
/// should be, and is not read into memory whole.
pub const MAX_LINE_BYTES: usize = 1 << 20;

/// Reads a results file from `reader` into `summary`, one line at a time.
/// A last line cut short (no newline, not JSON) is skipped and counted as
/// torn; any other line that is not a result is an error naming `path`,
/// the line and the column. Advances `progress` by the bytes read; stops
/// early (returning `Ok(false)`) once `cancel` is set.
pub fn read_results(
    reader: impl BufRead,
    path: &Path,
    summary: &mut Summary,
    progress: &Progress,
    cancel: &AtomicBool,
) -> Result<bool, AnalysisError> {
    for_each_result(reader, path, progress, cancel, |line| match line {
        Some(line) => summary.add(line),
        None => summary.torn_lines += 1,
    })
}

/// Each line of a results file, parsed: `None` for a last line cut short,
/// an error for any other line that is not a result (as [`read_results`]).
pub(crate) fn for_each_result(
    reader: impl BufRead,
    path: &Path,
    progress: &Progress,
    cancel: &AtomicBool,
    mut each: impl FnMut(Option<&ResultLine>),
) -> Result<bool, AnalysisError> {
    for_each_line(reader, path, progress, cancel, |number, line| {
        let Line::Whole(line) = line else {
            return Err(AnalysisError::Line {
                path: path.to_path_buf(),
                line: number,
                column: MAX_LINE_BYTES + 1,
                message: format!("longer than {MAX_LINE_BYTES} bytes: not a results file"),
            });
        };
        match serde_json::from_slice::<ResultLine>(line) {
            Ok(parsed) => each(Some(&parsed)),
            Err(_) if line.last() != Some(&b'\n') => each(None),
            Err(error) => {
                // serde_json ends its message with the place, which ours
                // already names in the file's own line numbers.
                let message = error.to_string();
                let place = format!(" at line {} column {}", error.line(), error.column());
                let message = message.strip_suffix(&place).unwrap_or(&message).to_string();
                return Err(AnalysisError::Line {
                    path: path.to_path_buf(),
                    line: number,
                    column: column(line, &error),
                    message,
                });
            }
        }
        Ok(())
    })
}

/// The 1-based column of a JSON error in `line`. serde_json counts the
/// line's own newline as the start of a second line, at column 0: an error
/// there (a line that stops in the middle of a value) is at the line's end.
fn column(line: &[u8], error: &serde_json::Error) -> usize {
    if error.line() > 1 || error.column() == 0 {
        let text = line.strip_suffix(b"\n").unwrap_or(line);
        String::from_utf8_lossy(text).chars().count() + 1
    } else {
        error.column()
    }
}

/// One line as [`for_each_line`] hands it over.
pub(crate) enum Line<'a> {
    /// The whole line, with its newline if it has one.
    Whole(&'a [u8]),
    /// A line longer than [`MAX_LINE_BYTES`], skipped unread.
    TooLong,
}

/// The one pass both readers make: every line that is not blank, with its
/// number (from 1) and its newline, in one buffer reused from line to line;
/// a line longer than [`MAX_LINE_BYTES`] is read past, never held.
/// Advances `progress` by the bytes read; returns `Ok(false)` when `cancel`
/// stopped it early, `Ok(true)` at the end of the input.
pub(crate) fn for_each_line(
    mut reader: impl BufRead,
    path: &Path,
    progress: &Progress,
    cancel: &AtomicBool,
    mut each: impl FnMut(u64, Line<'_>) -> Result<(), AnalysisError>,
) -> Result<bool, AnalysisError> {
    let read_error = |cause| AnalysisError::Read { path: path.to_path_buf(), cause };
    let mut line = Vec::new();
    let mut number = 0u64;
    loop {
        line.clear();
        let read = (&mut reader).take(MAX_LINE_BYTES as u64 + 1).read_until(b'\n', &mut line).map_err(read_error)?;
        if read == 0 {
            return Ok(true);
        }
        number += 1;
        progress.advance(read as u64);
        if number % CANCEL_POLL_LINES == 0 && cancel.load(Ordering::Relaxed) {
            return Ok(false);
        }
        if line.len() > MAX_LINE_BYTES && line.last() != Some(&b'\n') {
            // Read past the rest of the line without keeping it.
            loop {
                let buffer = reader.fill_buf().map_err(read_error)?;
                if buffer.is_empty() {
                    break;
                }
                let (used, end) = match buffer.iter().position(|&byte| byte == b'\n') {
                    Some(at) => (at + 1, true),
                    None => (buffer.len(), false),
                };
                reader.consume(used);
                progress.advance(used as u64);
                if end {
                    break;
                }
                if cancel.load(Ordering::Relaxed) {
                    return Ok(false);
                }
            }
            each(number, Line::TooLong)?;
        } else if !line.iter().all(u8::is_ascii_whitespace) {
            each(number, Line::Whole(&line))?;
        }
    }
}

/// Two groups side by side, and whether their win rates differ.
#[derive(Clone, Debug, Serialize)]
pub struct Comparison {
    pub a: GroupReport,
    pub b: GroupReport,
    /// The pooled two-proportion z-test of A's win rate against B's.
    pub test: ProportionTest,
    /// Game by game on the seeds both sides played, when there are any
    /// (or a sequential test was asked for).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub paired: Option<paired::PairedComparison>,
}

/// Compares two groups' win rates; `None` when either has no games.
pub fn compare(a: &GroupReport, b: &GroupReport) -> Option<Comparison> {
    let test = two_proportion_test(a.won, a.games, b.won, b.games)?;
    Some(Comparison { a: a.clone(), b: b.clone(), test, paired: None })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn line(entry: &str, outcome: OutcomeKind, ticks: u32, elapsed_us: u64) -> ResultLine {
        ResultLine {
            id: format!("{entry}/000000"),
            entry: entry.into(),
            index: 0,
            game: "snake".into(),
            level: "open 6x6".into(),
            planner: "bfs-tail".into(),
            seed: 1,
            outcome,
            reason: String::new(),
            ticks,
            score: i64::from(ticks) / 2,
            planner_us: u64::from(ticks) * 3,
            elapsed_us,
            replay: None,
            agents: Vec::new(),
        }
    }

    #[test]
    fn groups_keep_their_first_order_and_the_heap_keeps_the_slowest() {
        let mut summary = Summary::new(vec![GroupField::Entry], 2);
        for (entry, outcome, elapsed) in [
            ("b", OutcomeKind::Won, 5),
            ("a", OutcomeKind::Lost, 50),
            ("b", OutcomeKind::Timeout, 7),
            ("a", OutcomeKind::Won, 30),
            ("b", OutcomeKind::Won, 50),
        ] {
            summary.add(&line(entry, outcome, 10, elapsed));
        }
        let report = summary.report();
        let names: Vec<&str> = report.groups.iter().map(|group| group.name.as_str()).collect();
        assert_eq!(names, ["b", "a"]);
        assert_eq!((report.groups[0].games, report.groups[0].won, report.groups[0].faults), (3, 2, 1));
        let slowest: Vec<(u64, &str)> = report.slowest.iter().map(|game| (game.elapsed_us, game.id.as_str())).collect();
        assert_eq!(slowest, [(50, "a/000000"), (50, "b/000000")], "ties go to the earlier game");
        assert_eq!((report.failed.len(), report.failed_total), (1, 1));
        assert_eq!(report.overall.games, 5);
    }

    #[test]
    fn percentiles_hold_values_far_above_a_new_histograms_range() {
        let mut measure = Measure::new();
        for value in [1, 2, 5, 7, 3000, 100_000] {
            measure.add(value);
        }
        // Nearest ranks 3 and 6 of six values; 100,000 is kept to within
        // its bucket (width 64 there) and capped at the exact maximum.
        assert_eq!(measure.percentiles(), Percentiles { p50: 5, p90: 100_000, p99: 100_000, max: 100_000 });
        let mut measure = Measure::new();
        (1..=10_000u64).for_each(|value| measure.add(value * 1000));
        let p50 = measure.percentiles().p50;
        assert!((5_000_000..5_000_000 + 5_000_000 / 1024).contains(&p50), "{p50}");
    }

    #[test]
    fn group_fields_parse_and_bad_ones_say_what_is_expected() {
        assert_eq!(parse_group_by("game,planner"), Ok(vec![GroupField::Game, GroupField::Planner]));
        assert!(parse_group_by("entry,entry").unwrap_err().contains("named twice"));
        assert!(parse_group_by("seed").unwrap_err().contains("use entry, game, planner or level"));
    }
}
