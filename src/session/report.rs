//! What a session reports: the record of each finished game (the results
//! file's line), the running totals over finished games, and the report
//! of a whole run, per entry and overall.

use std::path::PathBuf;
use std::sync::Arc;

use serde::Serialize;

use crate::game::OutcomeKind;
use crate::session::sprt::SessionVerdict;
use crate::session::{SessionError, json_line};

/// One finished game: the line appended to the results file.
/// `planner_us` and `elapsed_us` are wall-clock times; every other field is
/// a function of the session file and the game's id.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct GameRecord {
    pub(crate) id: String,
    pub(crate) entry: Arc<str>,
    pub(crate) index: u64,
    pub(crate) game: &'static str,
    pub(crate) level: Arc<str>,
    pub(crate) planner: &'static str,
    pub seed: u64,
    pub outcome: OutcomeKind,
    pub reason: String,
    pub ticks: u32,
    pub score: i64,
    /// Time spent in the planner, over all its calls (quick calls are
    /// timed in windows, with the game's steps between them: `ticks.rs`).
    pub(crate) planner_us: u64,
    pub elapsed_us: u64,
    pub replay: Option<PathBuf>,
    /// The external programs that played, per seat (see
    /// [`crate::plan::Planner::agents`]); absent when none did (boxed: a
    /// record waits in the workers' queues, and most have none).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) agents: Option<Box<Agents>>,
}

impl GameRecord {
    /// Appends the record's results line: its JSON, as serde_json writes
    /// it, and a newline. By hand (`json_line.rs`) unless it names the
    /// external programs that played, or a replay path that is not UTF-8
    /// (which serde_json refuses: the error returned).
    pub(crate) fn push_line(&self, line: &mut String) -> Result<(), serde_json::Error> {
        let replay = self.replay.as_deref().map(std::path::Path::to_str);
        if self.agents.is_some() || replay == Some(None) {
            line.push_str(&serde_json::to_string(self)?);
            line.push('\n');
            return Ok(());
        }
        line.push_str("{\"id\":");
        json_line::push_str(line, &self.id);
        json_line::push_str_entry(line, "entry", &self.entry);
        json_line::push_u64_entry(line, "index", self.index);
        json_line::push_str_entry(line, "game", self.game);
        json_line::push_str_entry(line, "level", &self.level);
        json_line::push_str_entry(line, "planner", self.planner);
        json_line::push_u64_entry(line, "seed", self.seed);
        json_line::push_str_entry(line, "outcome", self.outcome.as_str());
        json_line::push_str_entry(line, "reason", &self.reason);
        json_line::push_u64_entry(line, "ticks", self.ticks.into());
        json_line::push_i64_entry(line, "score", self.score);
        json_line::push_u64_entry(line, "planner_us", self.planner_us);
        json_line::push_u64_entry(line, "elapsed_us", self.elapsed_us);
        json_line::push_key(line, "replay");
        match replay.flatten() {
            Some(path) => json_line::push_str(line, path),
            None => line.push_str("null"),
        }
        line.push_str("}\n");
        Ok(())
    }
}

/// The external programs that played a game, per seat (`None`: tickbot's).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(transparent)]
pub(crate) struct Agents(pub(crate) Vec<Option<String>>);

/// Running totals over finished games.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct Totals {
    pub games: u64,
    pub won: u64,
    pub lost: u64,
    pub stalled: u64,
    pub aborted: u64,
    pub panic: u64,
    pub timeout: u64,
    pub illegal: u64,
    pub(crate) ticks: u64,
    pub(crate) score: i64,
    /// The best score of any finished game; 0 before the first.
    pub best_score: i64,
    pub planner_us: u64,
}

impl Totals {
    pub(crate) fn add(&mut self, outcome: OutcomeKind, ticks: u32, score: i64, planner_us: u64) {
        self.best_score = if self.games == 0 { score } else { self.best_score.max(score) };
        self.games += 1;
        *match outcome {
            OutcomeKind::Won => &mut self.won,
            OutcomeKind::Lost => &mut self.lost,
            OutcomeKind::Stalled => &mut self.stalled,
            OutcomeKind::Aborted => &mut self.aborted,
            OutcomeKind::Panic => &mut self.panic,
            OutcomeKind::Timeout => &mut self.timeout,
            OutcomeKind::Illegal => &mut self.illegal,
        } += 1;
        self.ticks += u64::from(ticks);
        self.score += score;
        self.planner_us += planner_us;
    }

    /// Adds another entry's totals.
    pub(crate) fn merge(&mut self, other: &Totals) {
        self.best_score = match (self.games, other.games) {
            (_, 0) => self.best_score,
            (0, _) => other.best_score,
            _ => self.best_score.max(other.best_score),
        };
        self.games += other.games;
        self.won += other.won;
        self.lost += other.lost;
        self.stalled += other.stalled;
        self.aborted += other.aborted;
        self.panic += other.panic;
        self.timeout += other.timeout;
        self.illegal += other.illegal;
        self.ticks += other.ticks;
        self.score += other.score;
        self.planner_us += other.planner_us;
    }

    /// Planner faults: panics, timeouts and illegal actions.
    pub fn faults(&self) -> u64 {
        self.panic + self.timeout + self.illegal
    }

    pub fn mean_score(&self) -> f64 {
        self.score as f64 / self.games.max(1) as f64
    }

    pub fn mean_ticks(&self) -> f64 {
        self.ticks as f64 / self.games.max(1) as f64
    }
}

/// One entry's line of the final table.
#[derive(Clone, Debug, Serialize)]
pub struct EntryReport {
    pub name: String,
    pub game: &'static str,
    pub planner: &'static str,
    /// Over the whole session, games recorded before a resume included.
    pub totals: Totals,
}

/// What a session did: per-entry and overall totals (the whole session's,
/// a resumed one's earlier games included), and why it stopped early.
#[derive(Debug)]
pub struct SessionReport {
    pub entries: Vec<EntryReport>,
    pub overall: Totals,
    /// Games finished by this run (not those recorded before a resume).
    pub played_now: u64,
    /// Games stopped part way by a shutdown or a failure: not recorded,
    /// played again by a resumed session.
    pub unfinished: u64,
    /// The session was stopped by a shutdown signal.
    pub interrupted: bool,
    /// The session reached its duration.
    pub timed_out: bool,
    /// A results line or replay could not be written: nothing was started
    /// after it and the running games were stopped.
    pub stopped_by: Option<SessionError>,
    /// Replays stopped being kept when the disk budget was reached.
    pub disk_budget_reached: bool,
    pub elapsed_us: u64,
    /// The session's sequential test over every pair recorded, if it runs one.
    pub sprt: Option<SessionVerdict>,
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;

    fn outcome() -> impl Strategy<Value = OutcomeKind> {
        proptest::sample::select(vec![
            OutcomeKind::Won,
            OutcomeKind::Lost,
            OutcomeKind::Stalled,
            OutcomeKind::Aborted,
            OutcomeKind::Panic,
            OutcomeKind::Timeout,
            OutcomeKind::Illegal,
        ])
    }

    proptest! {
        #[test]
        fn a_results_line_is_the_record_as_serde_json_writes_it(
            (id, entry, level, reason) in ("[a-z/0-9]{1,12}", ".{0,8}", ".{0,30}", "(.|\n|\"|\\\\){0,30}"),
            (index, seed, ticks, score, planner_us, elapsed_us) in
                (any::<u64>(), any::<u64>(), any::<u32>(), any::<i64>(), any::<u64>(), any::<u64>()),
            outcome in outcome(),
            replay in proptest::option::of("[a-z/ \"]{1,20}"),
            agents in proptest::option::of(proptest::collection::vec(proptest::option::of("[a-z ]{1,8}"), 2)),
        ) {
            let record = GameRecord {
                id,
                entry: Arc::from(entry),
                index,
                game: "locm",
                level: Arc::from(level),
                planner: "locm-bots",
                seed,
                outcome,
                reason,
                ticks,
                score,
                planner_us,
                elapsed_us,
                replay: replay.map(PathBuf::from),
                agents: agents.map(|agents| Box::new(Agents(agents))),
            };
            let mut line = String::from("an earlier line\n");
            record.push_line(&mut line).unwrap();
            prop_assert_eq!(line, format!("an earlier line\n{}\n", serde_json::to_string(&record).unwrap()));
        }
    }

    #[cfg(unix)]
    #[test]
    fn a_replay_path_that_is_not_utf8_is_refused_as_serde_json_refuses_it() {
        use std::os::unix::ffi::OsStrExt;
        let record = GameRecord {
            id: "snake/000000".into(),
            entry: Arc::from("snake"),
            index: 0,
            game: "snake",
            level: Arc::from("10x10"),
            planner: "cycle",
            seed: 1,
            outcome: OutcomeKind::Won,
            reason: "ate every apple".into(),
            ticks: 10,
            score: 3,
            planner_us: 4,
            elapsed_us: 5,
            replay: Some(PathBuf::from(std::ffi::OsStr::from_bytes(b"r\xffplay.tbr"))),
            agents: None,
        };
        let mut line = String::new();
        let refused = record.push_line(&mut line).unwrap_err();
        assert_eq!(refused.to_string(), serde_json::to_string(&record).unwrap_err().to_string());
    }
}
