//! A session that runs a sequential test between two of its entries, A
//! and B: B plays A's seeds, game `i` of A and game `i` of B are pair `i`,
//! and the pairs are counted in index order ([`SequentialTest`]) as they
//! complete, so the verdict and the pair it came at depend neither on the
//! jobs nor on the order games finished, and a resumed, sharded or merged
//! session reaches the one an uninterrupted run reaches.
//!
//! A pair of a one-player game is one observation: A's game against B's by
//! a [`Measure`] (a win, draw or loss for A; the trinomial test). A LOCM
//! pair is the same draft played twice with the seats swapped (A's entry
//! seats drafter X first, B's seats it second): both games count from X's
//! view as one pair (the pentanomial test).

use std::collections::BTreeMap;

use serde::Serialize;

use crate::game::OutcomeKind;
use crate::session::Shard;
use crate::session::spec::SessionSpec;
use crate::sprt::paired::{Measure, PairedGame, compare};
use crate::sprt::{Decision, LlrGauge, Observation, Points, SequentialTest, Sprt, SprtSpec, SprtStatus, Unit};

/// How the two games of a pair make one observation.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Pairing {
    /// One-player games: A's result against B's by the measure.
    Measure(Measure),
    /// LOCM: the two games of one draft, seats swapped, from the view of
    /// A's first drafter.
    SeatsSwapped,
}

/// The test a session runs: its two entries (by number and name), the
/// hypotheses and error rates, and how a pair is counted.
#[derive(Clone, Debug, PartialEq)]
pub struct SessionTest {
    pub a: usize,
    pub b: usize,
    pub a_name: String,
    pub b_name: String,
    pub spec: SprtSpec,
    pub pairing: Pairing,
    /// Whose results the test counts: A's entry, or for LOCM the drafter A
    /// seats first.
    pub view: String,
}

impl SessionTest {
    /// The test of a checked session file ([`SessionSpec::complete`]), if
    /// it has an `[sprt]` section.
    pub fn of(session: &SessionSpec) -> Option<SessionTest> {
        let section = session.sprt.as_ref()?;
        let number = |name: &str| (0..session.entries.len()).find(|&number| session.entry_name(number) == name);
        let (a, b) = (number(&section.a)?, number(&section.b)?);
        let spec = section.test.parse().ok()?;
        let (pairing, view) = match session.entries[a].game.as_str() {
            "locm" => {
                let planner = session.entries[a].planner.as_deref().unwrap_or("");
                let first = planner.split(',').next().unwrap_or(planner).trim();
                // A program is named by its entry: its command line is no name.
                let view = if first.starts_with("exec:") { section.a.clone() } else { first.to_string() };
                (Pairing::SeatsSwapped, view)
            }
            _ => (Pairing::Measure(section.measure.unwrap_or(Measure::Score)), section.a.clone()),
        };
        Some(SessionTest { a, b, a_name: section.a.clone(), b_name: section.b.clone(), spec, pairing, view })
    }

    /// Which side entry `number` plays: 0 for A, 1 for B.
    pub fn side(&self, number: usize) -> Option<usize> {
        if number == self.a {
            Some(0)
        } else if number == self.b {
            Some(1)
        } else {
            None
        }
    }

    /// Which side the entry named `name` plays.
    pub fn side_named(&self, name: &str) -> Option<usize> {
        if name == self.a_name {
            Some(0)
        } else if name == self.b_name {
            Some(1)
        } else {
            None
        }
    }

    /// The entry whose seeds entry `number` plays: A's for B, its own for
    /// every other.
    pub(crate) fn seed_entry(&self, number: usize) -> usize {
        if number == self.b { self.a } else { number }
    }

    /// A test with no pair counted yet.
    pub fn start(&self) -> PairTest {
        let unit = match self.pairing {
            Pairing::Measure(_) => Unit::Games,
            Pairing::SeatsSwapped => Unit::Pairs,
        };
        PairTest {
            pairing: self.pairing,
            halves: BTreeMap::new(),
            test: SequentialTest::new(Sprt::new(self.spec, unit)),
            pairs: 0,
        }
    }
}

/// What a game of a pair shows.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Half {
    pub outcome: OutcomeKind,
    pub score: i64,
    pub ticks: u32,
}

impl Half {
    fn paired(self) -> PairedGame {
        PairedGame { won: self.outcome == OutcomeKind::Won, score: self.score, ticks: self.ticks }
    }

    /// Seat 0's result: LOCM's won is seat 0's win, lost seat 1's; any
    /// other ending (a fault, an abort) counts as a draw.
    fn seat_zero(self) -> Points {
        match self.outcome {
            OutcomeKind::Won => Points::Win,
            OutcomeKind::Lost => Points::Loss,
            _ => Points::Draw,
        }
    }
}

/// A session's test while its games come in, in any order.
#[derive(Clone, Debug)]
pub struct PairTest {
    pairing: Pairing,
    /// Pairs with one game in so far, by index.
    halves: BTreeMap<u64, [Option<Half>; 2]>,
    test: SequentialTest,
    /// Pairs completed, those past the decision included.
    pairs: u64,
}

impl PairTest {
    /// Records game `index` of `side` (0: A, 1: B). Once both games of a
    /// pair are in, it goes to the test, which counts pairs in index order.
    /// A game recorded twice keeps its first record. Returns the decision
    /// if there is one.
    pub fn add(&mut self, side: usize, index: u64, half: Half) -> Option<Decision> {
        let slot = self.halves.entry(index).or_default();
        if slot[side].is_some() {
            return self.test.decision();
        }
        slot[side] = Some(half);
        let [Some(a), Some(b)] = *slot else { return self.test.decision() };
        self.halves.remove(&index);
        self.pairs += 1;
        let observation = match self.pairing {
            Pairing::Measure(measure) => Observation::Game(compare(measure, &a.paired(), &b.paired()).0),
            // B's game seats A's first drafter second: B's seat 0 losing is its win.
            Pairing::SeatsSwapped => Observation::Pair(a.seat_zero(), b.seat_zero().reversed()),
        };
        self.test.record(index, observation)
    }

    pub fn decision(&self) -> Option<Decision> {
        self.test.decision()
    }

    /// The test as it stands: up to its decision, or over the unbroken run
    /// of pairs from 0.
    pub fn verdict(&self) -> SessionVerdict {
        SessionVerdict {
            pairing: self.pairing,
            status: self.test.sprt().status(),
            decision: self.test.decision(),
            pairs: self.pairs,
        }
    }
}

/// A session's test while it runs: counted as games finish.
#[derive(Clone, Debug)]
pub(crate) struct RunningTest {
    sprt: SessionTest,
    pairs: PairTest,
    /// Whether a decision stops the session: only a whole one's (a shard
    /// sees only its share of the pairs, and plays all of its games).
    stops: bool,
    /// Where the LLR goes for a progress bar.
    gauge: Option<LlrGauge>,
}

impl RunningTest {
    /// The test over the games a results file already records.
    pub(crate) fn resume(
        sprt: &SessionTest,
        kept: &[(String, u64, Half)],
        shard: Shard,
        gauge: Option<LlrGauge>,
    ) -> RunningTest {
        let mut pairs = sprt.start();
        for (entry, index, half) in kept {
            if let Some(side) = sprt.side_named(entry) {
                pairs.add(side, *index, *half);
            }
        }
        let test = RunningTest { sprt: sprt.clone(), pairs, stops: shard == Shard::WHOLE, gauge };
        test.show();
        test
    }

    /// Whether the test has decided and that ends the session.
    pub(crate) fn stops_the_session(&self) -> bool {
        self.stops && self.pairs.decision().is_some()
    }

    /// Counts game `index` of entry `number`; returns the decision if this
    /// game brought it and it ends the session.
    pub(crate) fn count(&mut self, number: usize, index: u64, half: Half) -> Option<Decision> {
        let side = self.sprt.side(number)?;
        let before = self.pairs.decision();
        let after = self.pairs.add(side, index, half);
        self.show();
        after.filter(|_| before.is_none() && self.stops)
    }

    /// Puts the LLR over the pairs counted on the gauge.
    fn show(&self) {
        if let Some(gauge) = &self.gauge {
            let sprt = self.pairs.test.sprt();
            gauge.set(sprt.llr(), sprt.observations());
        }
    }

    pub(crate) fn verdict(&self) -> SessionVerdict {
        self.pairs.verdict()
    }
}

/// A session's test as reports show it (the key names are a documented
/// interface of `stats --json`).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct SessionVerdict {
    pub pairing: Pairing,
    /// The test over the pairs counted: up to the decision, or all of the
    /// unbroken run from pair 0.
    pub status: SprtStatus,
    /// Where it decided: `null` if it has not.
    pub decision: Option<Decision>,
    /// Pairs with both games recorded, those past the decision included.
    pub pairs: u64,
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sprt::Verdict;

    fn half(outcome: OutcomeKind, ticks: u32) -> Half {
        Half { outcome, score: 0, ticks }
    }

    fn test(pairing: Pairing, spec: &str) -> PairTest {
        let test = SessionTest {
            a: 0,
            b: 1,
            a_name: "a".into(),
            b_name: "b".into(),
            spec: spec.parse().unwrap(),
            pairing,
            view: "a".into(),
        };
        test.start()
    }

    #[test]
    fn a_pair_counts_once_both_games_are_in_and_in_index_order() {
        // A wins every pair by ticks: Wald's LLR climbs by ln(0.9/0.5) a pair.
        let feed = |order: &[(usize, u64)]| {
            let mut test = test(Pairing::Measure(Measure::Ticks), "p0=0.5,p1=0.9");
            let mut decided_after = None;
            for &(side, index) in order {
                let ticks = if side == 0 { 10 } else { 20 };
                if test.add(side, index, half(OutcomeKind::Won, ticks)).is_some() && decided_after.is_none() {
                    decided_after = Some((side, index));
                }
            }
            (test.verdict(), decided_after)
        };
        let in_order: Vec<(usize, u64)> = (0..8).flat_map(|index| [(0, index), (1, index)]).collect();
        let (verdict, _) = feed(&in_order);
        // ln 19 / ln 1.8 = 5.01: the sixth pair decides.
        assert_eq!(verdict.decision.map(|decision| (decision.verdict, decision.observations)), Some((Verdict::H1, 6)));
        assert_eq!((verdict.pairs, verdict.status.games), (8, 6));
        // All of A's games first, then B's backwards: the same decision,
        // reached only when pair 5 and every pair before it are complete.
        let scrambled: Vec<(usize, u64)> = (0..8).map(|index| (0, index)).chain((0..8).rev().map(|i| (1, i))).collect();
        let (again, decided_after) = feed(&scrambled);
        assert_eq!(again.decision, verdict.decision);
        assert_eq!(again.status, verdict.status);
        assert_eq!(decided_after, Some((1, 0)));
    }

    #[test]
    fn a_seat_swapped_pair_counts_from_a_s_first_drafter() {
        let mut test = test(Pairing::SeatsSwapped, "elo0=0,elo1=50");
        // Draft 0: X wins as seat 0 (A won) and as seat 1 (B lost).
        test.add(0, 0, half(OutcomeKind::Won, 30));
        test.add(1, 0, half(OutcomeKind::Lost, 30));
        // Draft 1: seat 0 wins both games: one each.
        test.add(0, 1, half(OutcomeKind::Won, 30));
        test.add(1, 1, half(OutcomeKind::Won, 30));
        // Draft 2: X loses as seat 0, and B's game was a timeout (a draw).
        test.add(0, 2, half(OutcomeKind::Lost, 30));
        test.add(1, 2, half(OutcomeKind::Timeout, 30));
        // A game recorded twice keeps its first record.
        test.add(0, 2, half(OutcomeKind::Won, 30));
        let status = test.verdict().status;
        assert_eq!(status.unit, Unit::Pairs);
        assert_eq!(status.pentanomial, Some([0, 1, 1, 0, 1]));
        assert_eq!(status.losses_draws_wins, [2, 1, 3]);
    }
}
