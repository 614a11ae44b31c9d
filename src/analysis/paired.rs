//! Finished sessions compared game by game and tested sequentially: two
//! sides (two sessions, or two groups of one) matched on the seeds both
//! played, each seed's pair a win, draw or loss for side A with the paired
//! interval of the mean difference; and a sequential test (SPRT) over those
//! pairs, or over one group's own games, replayed in game-index order to
//! say where it would have stopped; and a session's own test between
//! its two entries, from their games.
//!
//! Unlike the summary, this holds every game of the sides in memory (a key
//! and a few numbers per game): pairs can only be matched once both sides
//! are read, and a finished results file need not be in index order.

use std::collections::BTreeMap;
use std::collections::btree_map::Entry;
use std::io::BufRead;
use std::path::Path;
use std::sync::atomic::AtomicBool;

use serde::Serialize;

use super::{AnalysisError, GroupField, for_each_result};
use crate::game::OutcomeKind;
use crate::progress::Progress;
use crate::session::sprt::{Half, PairTest, SessionTest};
use crate::session::store::ResultLine;
use crate::sprt::paired::{Measure, PairedGame, PairedReport, PairedSummary, compare};
use crate::sprt::{Decision, Observation, Points, SequentialTest, Sprt, SprtSpec, SprtStatus, Unit};

/// A game as the pairing keeps it: where it stands in its entry's order,
/// and what it showed.
#[derive(Clone, Copy, Debug)]
struct Kept {
    index: u64,
    game: PairedGame,
}

/// What pairs two games: the same game and seed. (Not the level: its name
/// holds the planner's flags, which is what two sides usually differ in.)
type SeedKey = (String, u64);

/// The games of two sides, by seed, as they are read.
#[derive(Debug, Default)]
pub struct PairedSides {
    sides: [BTreeMap<SeedKey, Kept>; 2],
    /// Games whose seed its side had already played (the first is kept).
    repeated: u64,
}

/// Which side a line belongs to.
#[derive(Clone, Debug)]
pub enum SideOf {
    /// Every line of the file: side 0 (A) or 1 (B).
    All(usize),
    /// Lines whose group (`--by`) is named `a` go to A, `b` to B; the rest
    /// to neither.
    Groups { by: Vec<GroupField>, a: String, b: String },
}

impl SideOf {
    fn side(&self, line: &ResultLine) -> Option<usize> {
        match self {
            SideOf::All(side) => Some(*side),
            SideOf::Groups { by, a, b } => {
                let name = group_name(by, line);
                if name == *a {
                    Some(0)
                } else if name == *b {
                    Some(1)
                } else {
                    None
                }
            }
        }
    }
}

/// A line's group name as the summary names it.
fn group_name(by: &[GroupField], line: &ResultLine) -> String {
    if by.is_empty() {
        return "all".to_string();
    }
    by.iter().map(|field| field.of(line)).collect::<Vec<_>>().join(" / ")
}

fn paired_game(line: &ResultLine) -> PairedGame {
    PairedGame { won: line.outcome == OutcomeKind::Won, score: line.score, ticks: line.ticks }
}

/// Reads a results file's lines into the sides `route` names.
pub fn read_paired(
    reader: impl BufRead,
    path: &Path,
    route: &SideOf,
    sides: &mut PairedSides,
    progress: &Progress,
    cancel: &AtomicBool,
) -> Result<bool, AnalysisError> {
    for_each_result(reader, path, progress, cancel, |line| {
        let Some(line) = line else { return };
        let Some(side) = route.side(line) else { return };
        let key = (line.game.clone(), line.seed);
        let kept = Kept { index: line.index, game: paired_game(line) };
        // Keep the first game of a seed, as read.
        match sides.sides[side].entry(key) {
            Entry::Occupied(_) => sides.repeated += 1,
            Entry::Vacant(slot) => {
                slot.insert(kept);
            }
        }
    })
}

/// Two sides compared on the seeds both played (the key names are a
/// documented interface of `stats --json`).
#[derive(Clone, Debug, Serialize)]
pub struct PairedComparison {
    /// Seeds only one side played.
    pub only_a: u64,
    pub only_b: u64,
    /// Games whose seed their side had played before (only the first counts).
    pub repeated: u64,
    /// The pairs summed up; `None` when the sides share no seed.
    pub paired: Option<PairedReport>,
    /// The sequential test over the pairs in A's game order, when asked for
    /// and there are pairs.
    pub sprt: Option<SequentialReport>,
}

/// A sequential test replayed over finished games in index order.
#[derive(Clone, Debug, Serialize)]
pub struct SequentialReport {
    /// The test over the observations up to its decision (or all of them).
    pub status: SprtStatus,
    /// Where it decided: `null` if it never did.
    pub decision: Option<Decision>,
    /// Observations there were; those past the decision are not counted.
    pub available: u64,
}

/// Feeds `outcomes` in order into a test of `spec` over single games, and
/// stops at its decision.
fn replay_test(spec: SprtSpec, outcomes: impl Iterator<Item = Points>) -> SequentialReport {
    let mut test = SequentialTest::new(Sprt::new(spec, Unit::Games));
    let mut available = 0;
    for (index, points) in outcomes.enumerate() {
        test.record(index as u64, Observation::Game(points));
        available += 1;
    }
    SequentialReport { status: test.sprt().status(), decision: test.decision(), available }
}

impl PairedSides {
    /// A against B on every shared seed, in the order of A's game index;
    /// with `spec`, the sequential test over those pairs.
    pub fn report(&self, measure: Measure, spec: Option<SprtSpec>) -> PairedComparison {
        let [a, b] = &self.sides;
        let mut pairs: Vec<(u64, Points, Option<f64>)> = a
            .iter()
            .filter_map(|(key, first)| {
                let second = b.get(key)?;
                let (points, difference) = compare(measure, &first.game, &second.game);
                Some((first.index, points, difference))
            })
            .collect();
        // The key breaks ties of index (two games' pairs with the same
        // index): the sort is stable over the map's ordered iteration.
        pairs.sort_by_key(|&(index, _, _)| index);
        let shared = pairs.len() as u64;
        let mut summary = PairedSummary::default();
        for &(_, points, difference) in &pairs {
            summary.add(points, difference);
        }
        PairedComparison {
            only_a: a.len() as u64 - shared,
            only_b: b.len() as u64 - shared,
            repeated: self.repeated,
            paired: (shared > 0).then(|| summary.report(measure)),
            sprt: spec.filter(|_| shared > 0).map(|spec| replay_test(spec, pairs.iter().map(|&(_, points, _)| points))),
        }
    }
}

/// Reads a results file's games of a session's two tested entries into
/// its test, which counts the pairs in index order whatever the file's
/// order (as the session counted them while it ran).
pub fn read_session_test(
    reader: impl BufRead,
    path: &Path,
    test: &SessionTest,
    pairs: &mut PairTest,
    progress: &Progress,
    cancel: &AtomicBool,
) -> Result<bool, AnalysisError> {
    for_each_result(reader, path, progress, cancel, |line| {
        let Some(line) = line else { return };
        if let Some(side) = test.side_named(&line.entry) {
            pairs.add(side, line.index, Half { outcome: line.outcome, score: line.score, ticks: line.ticks });
        }
    })
}

/// Each group's own games as wins, draws and losses for a sequential test:
/// won is a win, lost a loss, any other ending (stalled, aborted, a planner
/// fault) a draw.
#[derive(Debug, Default)]
pub struct GroupOutcomes {
    groups: BTreeMap<String, Vec<(u64, Points)>>,
}

/// One group's sequential test (a documented interface of `stats --json`).
#[derive(Clone, Debug, Serialize)]
pub struct GroupTest {
    pub group: String,
    pub sprt: SequentialReport,
}

/// Reads a results file's lines into their groups (`by`).
pub fn read_outcomes(
    reader: impl BufRead,
    path: &Path,
    by: &[GroupField],
    outcomes: &mut GroupOutcomes,
    progress: &Progress,
    cancel: &AtomicBool,
) -> Result<bool, AnalysisError> {
    for_each_result(reader, path, progress, cancel, |line| {
        let Some(line) = line else { return };
        let points = match line.outcome {
            OutcomeKind::Won => Points::Win,
            OutcomeKind::Lost => Points::Loss,
            _ => Points::Draw,
        };
        outcomes.groups.entry(group_name(by, line)).or_default().push((line.index, points));
    })
}

impl GroupOutcomes {
    /// Each group's test, its games in index order (groups by name).
    pub fn report(&self, spec: SprtSpec) -> Vec<GroupTest> {
        self.groups
            .iter()
            .map(|(group, games)| {
                let mut games = games.clone();
                games.sort_by_key(|&(index, _)| index);
                GroupTest { group: group.clone(), sprt: replay_test(spec, games.into_iter().map(|(_, points)| points)) }
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn line(entry: &str, index: u64, seed: u64, outcome: OutcomeKind, score: i64) -> String {
        let outcome = serde_json::to_string(&outcome).unwrap();
        format!(
            "{{\"id\":\"{entry}/{index:06}\",\"entry\":\"{entry}\",\"index\":{index},\"game\":\"snake\",\"level\":\"open\",\
             \"planner\":\"p\",\"seed\":{seed},\"outcome\":{outcome},\"reason\":\"\",\"ticks\":10,\"score\":{score},\
             \"replay\":null}}\n"
        )
    }

    fn read(text: &str, route: &SideOf, sides: &mut PairedSides) {
        let done = read_paired(
            text.as_bytes(),
            Path::new("r.jsonl"),
            route,
            sides,
            &Progress::default(),
            &AtomicBool::new(false),
        );
        assert!(done.unwrap());
    }

    #[test]
    fn sides_pair_on_shared_seeds_in_the_order_of_a_s_games() {
        let mut sides = PairedSides::default();
        // A played seeds 10..15 (index i has seed 10 + i), written out of order; B 12..17.
        let a: String = [3, 0, 4, 1, 2].iter().map(|&i| line("a", i, 10 + i, OutcomeKind::Won, 5 + i as i64)).collect();
        let b: String = (2..7).map(|i| line("b", i - 2, 10 + i, OutcomeKind::Lost, 6)).collect();
        read(&a, &SideOf::All(0), &mut sides);
        read(&b, &SideOf::All(1), &mut sides);
        read(&line("a", 9, 12, OutcomeKind::Lost, 0), &SideOf::All(0), &mut sides);
        let report = sides.report(Measure::Score, Some("p0=0.5,p1=0.9".parse().unwrap()));
        assert_eq!((report.only_a, report.only_b, report.repeated), (2, 2, 1));
        let paired = report.paired.unwrap();
        // Seeds 12, 13, 14: A scored 7, 8, 9 against 6.
        assert_eq!((paired.pairs, paired.a_better, paired.equal, paired.b_better), (3, 3, 0, 0));
        assert!((paired.mean_difference - 2.0).abs() < 1e-12);
        let sprt = report.sprt.unwrap();
        assert_eq!((sprt.available, sprt.status.losses_draws_wins), (3, [0, 0, 3]));
        // Wald: each win adds ln 1.8; three wins (1.76) stay below ln 19.
        assert!((sprt.status.llr - 3.0 * 1.8f64.ln()).abs() < 1e-12 && sprt.decision.is_none());
    }

    #[test]
    fn groups_route_by_name_and_a_group_test_stops_at_its_decision() {
        let text: String = (0..40)
            .map(|i| line(if i % 2 == 0 { "x" } else { "y" }, i / 2, i, OutcomeKind::Won, 0))
            .chain([line("x", 20, 99, OutcomeKind::Stalled, 0)])
            .collect();
        let route = SideOf::Groups { by: vec![GroupField::Entry], a: "x".into(), b: "z".into() };
        let mut sides = PairedSides::default();
        read(&text, &route, &mut sides);
        assert_eq!((sides.sides[0].len(), sides.sides[1].len()), (21, 0));
        let mut outcomes = GroupOutcomes::default();
        let done = read_outcomes(
            text.as_bytes(),
            Path::new("r"),
            &[GroupField::Entry],
            &mut outcomes,
            &Progress::default(),
            &AtomicBool::new(false),
        );
        assert!(done.unwrap());
        let tests = outcomes.report("p0=0.5,p1=0.6".parse().unwrap());
        assert_eq!(tests.iter().map(|test| test.group.as_str()).collect::<Vec<_>>(), ["x", "y"]);
        // 17 straight wins reach ln 19 (see the Wald test in sprt): x has 20 wins then a draw.
        let x = &tests[0].sprt;
        assert_eq!((x.available, x.decision.map(|decision| decision.observations)), (21, Some(17)));
        assert_eq!(x.status.games, 17);
    }
}
