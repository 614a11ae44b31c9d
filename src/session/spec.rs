//! The session file: what a session plays, as written in TOML (`tickbot run
//! --config FILE`), checked and completed (entry names, weights) before
//! anything runs. A mistake is reported with its line and column. The
//! binary turns each entry's game, level, planner and parameters into the
//! game's own command-line flags, so a session file accepts exactly what
//! `tickbot run GAME` accepts.

use std::collections::BTreeMap;
use std::fmt;
use std::path::PathBuf;
use std::str::FromStr;
use std::time::Duration;

use serde::{Deserialize, Serialize};

use crate::sprt::SprtSpec;
use crate::sprt::paired::Measure;

/// A whole session file.
#[derive(Clone, Debug, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct SessionSpec {
    /// The master seed: game `index` of entry `e` plays with a seed derived
    /// from (seed, e, index).
    #[serde(default = "default_seed")]
    pub seed: u64,
    /// Stop after this many games over all entries (the first ones of the
    /// session's fixed order). Without it, every entry with `games` plays
    /// them all, and an entry with only a `weight` plays until `duration`
    /// or Ctrl-C.
    pub games: Option<u64>,
    /// Stop starting games after this long, e.g. "8h", "90m", "1h30m".
    /// Counted from the start of each `run` or `run --resume`.
    #[serde(default, with = "duration_text", skip_serializing_if = "Option::is_none")]
    pub duration: Option<Duration>,
    /// Games played at once. Default: the number of cores.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub jobs: Option<usize>,
    /// Output directory: results.jsonl, manifest.json, replays/.
    #[serde(default = "default_out")]
    pub out: PathBuf,
    /// The longest one planner call may take; a planner over it ends its
    /// game as `timeout`.
    #[serde(default = "default_move_budget_ms")]
    pub move_budget_ms: u64,
    /// Which games keep their replay.
    #[serde(default)]
    pub replays: ReplayPolicy,
    /// Stop keeping replays once they take this much space, e.g. "500MB"
    /// (results go on).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub disk_budget: Option<ByteSize>,
    /// A sequential test between two entries that stops the session once
    /// it decides (`[sprt]`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sprt: Option<SprtSection>,
    /// What to play.
    #[serde(rename = "entry", default)]
    pub entries: Vec<EntrySpec>,
    /// Where each entry starts in the file (byte offsets), for messages.
    #[serde(skip)]
    pub(crate) entry_offsets: Vec<usize>,
    /// Where `[sprt]` starts in the file, for messages.
    #[serde(skip)]
    pub(crate) sprt_offset: usize,
}

/// One entry: a game, its level, a planner, and how many games.
#[derive(Clone, Debug, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct EntrySpec {
    /// The entry's name in results, replay paths and the table. Default:
    /// `GAME-PLANNER`, with `-2`, `-3`, ... for repeats.
    pub name: Option<String>,
    /// snake, flag, slide, pipes or locm.
    pub game: String,
    /// A map file, a folder of maps (`*.txt`, in name order), or an
    /// instance file, or a list of them; game `index` plays level
    /// `index % count`. Default: the level the game's flags name.
    #[serde(default, deserialize_with = "one_or_many", skip_serializing_if = "Vec::is_empty")]
    pub level: Vec<String>,
    /// Only these levels (numbered from 1) of the folder or instance file.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub pick: Option<Vec<u32>>,
    /// The planner, as `--planner` names it (LOCM: the draft bots, A,B).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub planner: Option<String>,
    /// An external program plays instead of a planner (snake, flag, slide
    /// and pipes, over the JSON-lines protocol): the program and its
    /// arguments, run without a shell, e.g. `agent = ["./mybot", "--fast"]`
    /// (`planner = "exec:./mybot --fast"` says the same, split as a shell
    /// would).
    /// LOCM names programs per seat in `planner` instead:
    /// `planner = "exec:./mybot --fast,icebox"`.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub agent: Vec<String>,
    /// The agent's time limit per call, in milliseconds (default 1000).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub agent_call_ms: Option<u64>,
    /// Milliseconds added to each call's limit before it is a timeout
    /// (default 50), for this entry's agents (LOCM's `exec:` seats too).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub agent_margin: Option<u64>,
    /// Each agent's address space limit, MiB.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub agent_memory: Option<u64>,
    /// Each agent's CPU time limit per game, seconds.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub agent_cpu: Option<u64>,
    /// Run this entry's agents in the sandbox.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub sandbox: Option<bool>,
    /// Exactly this many games.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub games: Option<u64>,
    /// A share of the session's games: entries take turns in proportion to
    /// their weights. Default: `games` if given, else 1.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub weight: Option<u64>,
    /// Any other flag of `tickbot run GAME`, without the dashes:
    /// `size = "10x10"`, `write-up = true`, `max-states = 100000`.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub params: BTreeMap<String, ParamValue>,
    /// Flags of `tickbot run GAME` exactly as on the command line (what
    /// `tickbot run GAME FLAGS...` records), after those of `params`.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub args: Vec<String>,
}

/// `[sprt]`: the session compares entry `a` with entry `b` on the same
/// seeds by a sequential test and stops once the test decides.
#[derive(Clone, Debug, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct SprtSection {
    /// Entry A's name: the hypotheses are about A against B.
    pub a: String,
    /// Entry B's name: it plays A's seeds.
    pub b: String,
    /// The test, as `match locm --sprt` takes it: `elo0=0,elo1=5`,
    /// `nelo0=..,nelo1=..` or `p0=..,p1=..`, with `alpha` and `beta`.
    pub test: String,
    /// One-player games: what a pair is compared by (score, ticks or won;
    /// default score). LOCM pairs are the two games of one draft.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub measure: Option<Measure>,
}

/// What is wrong with an `[sprt]` section, if anything: its entries must be
/// the session's two, of one game, with the same games and weight; a LOCM
/// pair's entries seat the same two drafters the other way round.
fn sprt_mistake(section: &SprtSection, entries: &[EntrySpec]) -> Option<String> {
    if let Err(error) = section.test.parse::<SprtSpec>() {
        return Some(format!("sprt: test = {:?}: {error}", section.test));
    }
    let names: Vec<&str> = entries.iter().map(|entry| entry.name.as_deref().unwrap_or("")).collect();
    let find = |name: &str| names.iter().position(|known| *known == name);
    let (Some(a), Some(b)) = (find(&section.a), find(&section.b)) else {
        return Some(format!(
            "sprt: a = {:?} and b = {:?} must name entries of the session (it has {})",
            section.a,
            section.b,
            names.join(", ")
        ));
    };
    if a == b || entries.len() != 2 {
        return Some(format!(
            "sprt: a session with a test plays exactly its two entries, A and B (this one has {} entries{})",
            entries.len(),
            if a == b { ", and a and b name the same one" } else { "" }
        ));
    }
    let (first, second) = (&entries[a], &entries[b]);
    if first.game != second.game {
        return Some(format!(
            "sprt: {} plays {} and {} plays {}: both must play one game",
            names[a], first.game, names[b], second.game
        ));
    }
    if (first.games, first.weight) != (second.games, second.weight) {
        return Some(format!(
            "sprt: {} and {} must have the same games and weight (a pair is one game of each)",
            names[a], names[b]
        ));
    }
    if first.level != second.level || first.pick != second.pick {
        return Some(format!(
            "sprt: {} and {} must play the same levels (a pair is one seed of one level)",
            names[a], names[b]
        ));
    }
    if first.game == "locm" {
        if section.measure.is_some() {
            return Some(
                "sprt: measure is for one-player games: a LOCM pair is one draft with the seats swapped".into(),
            );
        }
        let seats = |entry: &EntrySpec| -> Vec<String> {
            entry.planner.as_deref().unwrap_or("").split(',').map(|seat| seat.trim().to_string()).collect()
        };
        let (mut swapped, theirs) = (seats(first), seats(second));
        swapped.reverse();
        if swapped.len() != 2 || swapped != theirs || swapped[0] == swapped[1] {
            return Some(format!(
                "sprt: a LOCM test plays each draft with the seats swapped: give {} planner = \"X,Y\" and {} \
                 planner = \"Y,X\" (two different drafters)",
                names[a], names[b]
            ));
        }
    }
    None
}

impl EntrySpec {
    /// Whether an `exec:` program plays instead of a planner: `planner =
    /// "exec:..."`, or `--planner exec:...` among its flags (what `run GAME
    /// --planner 'exec:...'` records). Not LOCM's seats.
    pub fn names_exec_planner(&self) -> bool {
        let exec = |value: &str| value.starts_with("exec:");
        self.game != "locm"
            && (self.planner.as_deref().is_some_and(exec)
                || self.args.iter().any(|arg| arg.strip_prefix("--planner=").is_some_and(exec))
                || self.args.windows(2).any(|pair| pair[0] == "--planner" && exec(&pair[1])))
    }
}

/// What is wrong with an entry's `agent`, if anything.
fn agent_mistake(entry: &EntrySpec) -> Option<String> {
    if entry.agent_call_ms == Some(0) {
        return Some("agent_call_ms = 0: an agent needs at least 1 ms per call".into());
    }
    if entry.agent.is_empty() {
        let exec = entry.names_exec_planner() || entry.planner.as_deref().is_some_and(|text| text.starts_with("exec:"));
        let limited = entry.agent_call_ms.is_some() && !exec;
        return limited.then(|| "agent_call_ms: give the agent it limits (agent = [...])".into());
    }
    if entry.game == "locm" {
        return Some(
            "agent: LOCM names a program per seat in planner, e.g. planner = \"exec:./mybot --fast,icebox\"".into(),
        );
    }
    if !["snake", "flag", "slide", "pipes"].contains(&entry.game.as_str()) {
        return Some(format!("agent: {} has no agent protocol; agents play snake, flag, slide and pipes", entry.game));
    }
    if entry.planner.is_some() {
        return Some("agent and planner: give one (the agent plays instead of a planner)".into());
    }
    if entry.agent[0].is_empty() {
        return Some("agent: the first word is the program to run, e.g. agent = [\"./mybot\", \"--fast\"]".into());
    }
    None
}

/// Only where the entries are: a second, lenient reading of the file.
#[derive(Deserialize)]
struct EntryPositions {
    #[serde(default)]
    entry: Vec<toml::Spanned<toml::Value>>,
    #[serde(default)]
    sprt: Option<toml::Spanned<toml::Value>>,
}

/// A flag's value in `params`.
#[derive(Clone, Debug, Deserialize, Serialize, PartialEq)]
#[serde(untagged)]
pub enum ParamValue {
    /// `true` passes the flag alone; `false` leaves it out.
    Switch(bool),
    Integer(i64),
    Number(f64),
    Text(String),
}

/// Which finished games keep their replay.
#[derive(Clone, Copy, Debug, Default, Deserialize, Serialize, PartialEq)]
#[serde(rename_all = "lowercase")]
pub enum ReplayPolicy {
    #[default]
    All,
    /// Lost, stalled, aborted and fault outcomes (panic, timeout, illegal).
    Failures,
    None,
    /// This share of the games, chosen from each game's seed (so the same
    /// games every time).
    Sample(f64),
}

/// A size in bytes, written as a number or with a unit: "500MB", "2GiB".
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ByteSize(pub u64);

/// A mistake in a session file, with where it is.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("line {line}, column {column}: {message}")]
pub struct SpecError {
    pub line: usize,
    pub column: usize,
    pub message: String,
}

fn default_seed() -> u64 {
    1
}

/// Where a session writes when no `--out` or `out` is given.
pub const DEFAULT_OUT: &str = "out";

/// The largest session file `run --config` reads: a session of thousands
/// of entries is far below it, and a wrong path (a disk image, a device)
/// fails at once instead of filling memory.
pub const MAX_SESSION_FILE_BYTES: u64 = 1 << 20;

/// The largest `manifest.json` read back (`stats`, `merge`): a session
/// file's settings and entries, as JSON.
pub const MAX_MANIFEST_BYTES: u64 = 4 * MAX_SESSION_FILE_BYTES;

fn default_out() -> PathBuf {
    PathBuf::from(DEFAULT_OUT)
}

/// The per-move budget when none is given.
pub(crate) const DEFAULT_MOVE_BUDGET_MS: u64 = 10_000;

fn default_move_budget_ms() -> u64 {
    DEFAULT_MOVE_BUDGET_MS
}

/// The games a session can play.
pub(crate) const GAMES: [&str; 5] = ["snake", "flag", "slide", "pipes", "locm"];

impl SessionSpec {
    /// A session of `entries` with every other setting at its default.
    pub fn of(entries: Vec<EntrySpec>) -> SessionSpec {
        SessionSpec {
            seed: default_seed(),
            games: None,
            duration: None,
            jobs: None,
            out: default_out(),
            move_budget_ms: DEFAULT_MOVE_BUDGET_MS,
            replays: ReplayPolicy::default(),
            disk_budget: None,
            sprt: None,
            entries,
            entry_offsets: Vec::new(),
            sprt_offset: 0,
        }
    }

    /// Parses and checks a session file, filling in entry names and weights.
    pub fn parse(text: &str) -> Result<SessionSpec, SpecError> {
        let mut spec: SessionSpec = toml::from_str(text).map_err(|error| {
            let (line, column) = error.span().map_or((1, 1), |span| position(text, span.start));
            SpecError { line, column, message: error.message().trim_end().to_string() }
        })?;
        if let Ok(positions) = toml::from_str::<EntryPositions>(text) {
            spec.entry_offsets = positions.entry.iter().map(|entry| entry.span().start).collect();
            spec.sprt_offset = positions.sprt.map_or(0, |sprt| sprt.span().start);
        }
        spec.complete(text)?;
        Ok(spec)
    }

    /// Checks the entries and fills in their names and weights; `text` is
    /// the file the positions point into ("" for none).
    pub fn complete(&mut self, text: &str) -> Result<(), SpecError> {
        let at = |offset: usize, message: String| {
            let (line, column) = position(text, offset);
            SpecError { line, column, message }
        };
        if self.entries.is_empty() {
            return Err(SpecError { line: 1, column: 1, message: "no [[entry]]: a session plays at least one".into() });
        }
        if let ReplayPolicy::Sample(share) = self.replays {
            if !(share > 0.0 && share <= 1.0) {
                return Err(at(0, format!("replays: sample = {share}: expected a share above 0 and at most 1")));
            }
        }
        if self.jobs == Some(0) {
            return Err(at(0, "jobs = 0: at least 1 game must be played at once".into()));
        }
        let mut names: Vec<String> = Vec::new();
        for (number, entry) in self.entries.iter_mut().enumerate() {
            let span = self.entry_offsets.get(number).copied().unwrap_or(0);
            if !GAMES.contains(&entry.game.as_str()) {
                return Err(at(span, format!("game = {:?}: expected one of {}", entry.game, GAMES.join(", "))));
            }
            if entry.games.is_none() && entry.weight.is_none() {
                return Err(at(
                    span,
                    format!(
                        "entry {}: give games = N (exactly N games) or weight = N (a share of the games until \
                         --games, --duration or Ctrl-C)",
                        entry.name.as_deref().unwrap_or(&entry.game)
                    ),
                ));
            }
            if entry.games == Some(0) || entry.weight == Some(0) {
                return Err(at(span, "games and weight must be at least 1".into()));
            }
            if entry.pick.as_ref().is_some_and(|pick| pick.is_empty() || pick.contains(&0)) {
                return Err(at(span, "pick: expected level numbers counted from 1, e.g. pick = [1, 2]".into()));
            }
            if let Some(message) = agent_mistake(entry) {
                return Err(at(span, message));
            }
            entry.weight = entry.weight.or(entry.games);
            let name = match &entry.name {
                Some(name) => {
                    if name.is_empty()
                        || !name.bytes().all(|byte| byte.is_ascii_alphanumeric() || b"-_.".contains(&byte))
                        || name.starts_with('.')
                    {
                        return Err(at(
                            span,
                            format!("name = {name:?}: use letters, digits, '-', '_' and '.' (it names a folder)"),
                        ));
                    }
                    if names.contains(name) {
                        return Err(at(span, format!("name = {name:?}: two entries have this name")));
                    }
                    name.clone()
                }
                None => {
                    let planner = match entry.agent.is_empty() && !entry.names_exec_planner() {
                        true => entry.planner.as_deref().unwrap_or("default"),
                        false => "agent",
                    };
                    let base: String = format!("{}-{planner}", entry.game)
                        .chars()
                        .map(|letter| if letter.is_ascii_alphanumeric() || letter == '-' { letter } else { '-' })
                        .collect();
                    let mut name = base.clone();
                    let mut repeat = 1;
                    while names.contains(&name) {
                        repeat += 1;
                        name = format!("{base}-{repeat}");
                    }
                    name
                }
            };
            entry.name = Some(name.clone());
            names.push(name);
        }
        if let Some(message) = self.sprt.as_ref().and_then(|section| sprt_mistake(section, &self.entries)) {
            return Err(at(self.sprt_offset, message));
        }
        Ok(())
    }

    /// Line and column where entry `number` starts (1, 1 if not known).
    pub fn entry_position(&self, text: &str, number: usize) -> (usize, usize) {
        position(text, self.entry_offsets.get(number).copied().unwrap_or(0))
    }

    /// The entry's name ([`SessionSpec::complete`] fills it in).
    pub fn entry_name(&self, number: usize) -> &str {
        self.entries[number].name.as_deref().unwrap_or("")
    }

    /// The settings that decide a session's results, as JSON: what a
    /// resumed session must agree on. `jobs`, `duration` and
    /// `move_budget_ms` change only how fast, how long and when a planner is
    /// cut off, and `out` is where the session is, so they are left out.
    pub fn results_key(&self) -> serde_json::Value {
        let mut value = serde_json::to_value(self).unwrap_or_default();
        if let Some(map) = value.as_object_mut() {
            map.remove("jobs");
            map.remove("duration");
            map.remove("move_budget_ms");
            map.remove("out");
        }
        value
    }
}

/// `level = "a"` or `level = ["a", "b"]`.
fn one_or_many<'de, D: serde::Deserializer<'de>>(deserializer: D) -> Result<Vec<String>, D::Error> {
    #[derive(Deserialize)]
    #[serde(untagged)]
    enum Written {
        One(String),
        Many(Vec<String>),
    }
    Ok(match Written::deserialize(deserializer)? {
        Written::One(level) => vec![level],
        Written::Many(levels) => levels,
    })
}

/// 1-based line and column of byte `offset` in `text`.
pub(crate) fn position(text: &str, offset: usize) -> (usize, usize) {
    let before = &text[..offset.min(text.len())];
    let line = before.matches('\n').count() + 1;
    let column = before.rsplit('\n').next().map_or(0, |last| last.chars().count()) + 1;
    (line, column)
}

impl fmt::Display for ReplayPolicy {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ReplayPolicy::All => f.write_str("all"),
            ReplayPolicy::Failures => f.write_str("failures"),
            ReplayPolicy::None => f.write_str("none"),
            ReplayPolicy::Sample(share) => write!(f, "sample={share}"),
        }
    }
}

impl FromStr for ReplayPolicy {
    type Err = String;

    /// `all`, `failures`, `none` or `sample=SHARE` (0 < SHARE <= 1).
    fn from_str(text: &str) -> Result<ReplayPolicy, String> {
        let expected = || format!("expected all, failures, none or sample=SHARE (e.g. sample=0.01), got {text:?}");
        match text.trim() {
            "all" => Ok(ReplayPolicy::All),
            "failures" => Ok(ReplayPolicy::Failures),
            "none" => Ok(ReplayPolicy::None),
            other => {
                let share = other.strip_prefix("sample").map(str::trim_start).and_then(|rest| rest.strip_prefix('='));
                let share: f64 = share.and_then(|share| share.trim().parse().ok()).ok_or_else(expected)?;
                if share > 0.0 && share <= 1.0 { Ok(ReplayPolicy::Sample(share)) } else { Err(expected()) }
            }
        }
    }
}

impl FromStr for ByteSize {
    type Err = String;

    /// A number of bytes with an optional unit: B, KB, MB, GB, TB (powers
    /// of 1000) or KiB, MiB, GiB, TiB (powers of 1024).
    fn from_str(text: &str) -> Result<ByteSize, String> {
        let expected = || format!("expected a size like 500MB, 2GiB or 1000000, got {text:?}");
        let text = text.trim();
        let split = text.find(|letter: char| !letter.is_ascii_digit()).unwrap_or(text.len());
        let (number, unit) = text.split_at(split);
        let number: u64 = number.parse().map_err(|_| expected())?;
        let scale: u64 = match unit.trim().to_ascii_lowercase().as_str() {
            "" | "b" => 1,
            "kb" => 1_000,
            "mb" => 1_000_000,
            "gb" => 1_000_000_000,
            "tb" => 1_000_000_000_000,
            "kib" => 1 << 10,
            "mib" => 1 << 20,
            "gib" => 1 << 30,
            "tib" => 1 << 40,
            _ => return Err(expected()),
        };
        number.checked_mul(scale).map(ByteSize).ok_or_else(expected)
    }
}

impl Serialize for ByteSize {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_u64(self.0)
    }
}

impl<'de> Deserialize<'de> for ByteSize {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<ByteSize, D::Error> {
        #[derive(Deserialize)]
        #[serde(untagged)]
        enum Written {
            Bytes(u64),
            Text(String),
        }
        match Written::deserialize(deserializer)? {
            Written::Bytes(bytes) => Ok(ByteSize(bytes)),
            Written::Text(text) => text.parse().map_err(serde::de::Error::custom),
        }
    }
}

/// Parses a duration: whole numbers with units d, h, m, s, one after the
/// other ("8h", "1h30m", "90s").
pub fn parse_duration(text: &str) -> Result<Duration, String> {
    let expected = || format!("expected a duration like 8h, 90m, 1h30m or 45s, got {text:?}");
    let mut seconds: u64 = 0;
    let mut number = String::new();
    let mut any = false;
    for letter in text.trim().chars() {
        if letter.is_ascii_digit() {
            number.push(letter);
            continue;
        }
        let unit = match letter {
            'd' => 86_400,
            'h' => 3_600,
            'm' => 60,
            's' => 1,
            _ => return Err(expected()),
        };
        let value: u64 = number.parse().map_err(|_| expected())?;
        seconds = value.checked_mul(unit).and_then(|part| seconds.checked_add(part)).ok_or_else(expected)?;
        number.clear();
        any = true;
    }
    if !number.is_empty() || !any || seconds == 0 {
        return Err(expected());
    }
    Ok(Duration::from_secs(seconds))
}

/// `duration = "8h"` in the file; seconds in the manifest.
mod duration_text {
    use std::time::Duration;

    use serde::{Deserialize, Deserializer, Serializer};

    pub(crate) fn serialize<S: Serializer>(value: &Option<Duration>, serializer: S) -> Result<S::Ok, S::Error> {
        match value {
            Some(duration) => serializer.serialize_str(&format!("{}s", duration.as_secs())),
            None => serializer.serialize_none(),
        }
    }

    pub(crate) fn deserialize<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Option<Duration>, D::Error> {
        let text = Option::<String>::deserialize(deserializer)?;
        text.map(|text| super::parse_duration(&text).map_err(serde::de::Error::custom)).transpose()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[track_caller]
    fn check_error(text: &str, line: usize, column: usize, fragment: &str) {
        let error = SessionSpec::parse(text).unwrap_err();
        assert_eq!((error.line, error.column), (line, column), "{error}");
        assert!(error.message.contains(fragment), "{error} should say {fragment:?}");
    }

    #[test]
    fn mistakes_name_the_key_line_and_column() {
        check_error("seed = 1\n[[entry]]\ngame = \"snake\"\ngmes = 3\n", 4, 1, "unknown field `gmes`");
        check_error("seed = \"one\"\n[[entry]]\ngame = \"snake\"\n", 1, 8, "invalid type");
        check_error("[[entry]]\ngame = \"chess\"\n", 1, 1, "game = \"chess\": expected one of snake");
        check_error("replays = { sample = 2.0 }\n[[entry]]\ngame = \"snake\"\n", 1, 1, "sample = 2");
        check_error("duration = \"8 hours\"\n[[entry]]\ngame = \"snake\"\n", 1, 12, "expected a duration");
        check_error("disk_budget = \"lots\"\n[[entry]]\ngame = \"snake\"\n", 1, 15, "expected a size");
        check_error("seed = 1\n", 1, 1, "no [[entry]]");
        check_error("seed = 1\n\n[[entry]]\ngame = \"snake\"\n", 3, 1, "give games = N");
        check_error(
            "[[entry]]\ngame = \"snake\"\nname = \"a\"\ngames = 1\n[[entry]]\ngame = \"flag\"\nname = \"a\"\ngames = 1\n",
            5,
            1,
            "two",
        );
    }

    #[test]
    fn names_weights_and_policies_are_completed() {
        let text = "replays = \"failures\"\ndisk_budget = \"2MiB\"\nduration = \"1h30m\"\n\
                    [[entry]]\ngame = \"snake\"\ngames = 4\n\
                    [[entry]]\ngame = \"snake\"\nplanner = \"bfs-tail\"\nparams = { size = \"6x6\", write-up = true }\nweight = 1\n\
                    [[entry]]\ngame = \"snake\"\nplanner = \"bfs-tail\"\nweight = 3\n";
        let spec = SessionSpec::parse(text).unwrap();
        let names: Vec<_> = (0..3).map(|index| spec.entries[index].name.clone().unwrap()).collect();
        assert_eq!(names, ["snake-default", "snake-bfs-tail", "snake-bfs-tail-2"]);
        let weights: Vec<_> = (0..3).map(|index| spec.entries[index].weight.unwrap()).collect();
        assert_eq!(weights, [4, 1, 3]);
        assert_eq!(spec.replays, ReplayPolicy::Failures);
        assert_eq!(spec.disk_budget, Some(ByteSize(2 << 20)));
        assert_eq!(spec.duration, Some(Duration::from_secs(5400)));
        assert_eq!(spec.entries[1].params["write-up"], ParamValue::Switch(true));
        assert!(spec.results_key().get("duration").is_none());
    }

    #[test]
    fn flag_values_parse() {
        assert_eq!("sample=0.01".parse(), Ok(ReplayPolicy::Sample(0.01)));
        assert_eq!("none".parse(), Ok(ReplayPolicy::None));
        assert!("sample=0".parse::<ReplayPolicy>().is_err());
        assert_eq!("500MB".parse(), Ok(ByteSize(500_000_000)));
        assert_eq!(parse_duration("2d"), Ok(Duration::from_secs(172_800)));
        for bad in ["", "8", "h", "0s", "8x"] {
            assert!(parse_duration(bad).is_err(), "{bad}");
        }
    }
}
