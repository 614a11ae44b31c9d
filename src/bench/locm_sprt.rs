//! `tickbot match locm --sprt`: a match that stops as soon as a sequential
//! test decides. Drafts are played in batches of pairs (each draft twice,
//! seats swapped) over threads; after each batch its pairs are fed to the
//! test in draft order, and the test decides at the first pair whose LLR
//! crosses a bound. The verdict and the games it took depend only on the
//! seed and the bots: not on the thread count, nor on the batch sizes
//! (games a batch played past the deciding pair are not counted). A side
//! may be an external agent (`exec:`): its games go through its process, and
//! a fault loses the game for the seat at fault, as in the fixed-size match.

use serde::Serialize;

use super::locm::{Side, play_in_match, play_side_game, rate, seatings, side_seatings};
use crate::game::locm::Config;
use crate::game::locm::plan::BattleBot;
use crate::par::{Workers, map_indexed};
use crate::sprt::{Decision, LlrGauge, Observation, Points, SequentialTest, Sprt, SprtSpec, SprtStatus, Unit};

/// Pairs in the first batch; each batch doubles up to [`LAST_BATCH`]. Small
/// batches first, so that a test decided in a few dozen games plays few
/// more; larger ones later keep the threads busy.
const FIRST_BATCH: u64 = 16;
const LAST_BATCH: u64 = 256;

/// `tickbot match locm --sprt`'s report. The key names are a documented
/// interface of `--json`.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct LocmSprtReport {
    pub draft_a: String,
    pub draft_b: String,
    pub battle: String,
    pub seed: u64,
    /// Games played that a side lost by an agent's fault (timeout, crash,
    /// protocol), over all games played.
    pub faults_a: u64,
    pub faults_b: u64,
    /// The most games the match would play undecided.
    pub max_games: u64,
    /// The test over the pairs counted, from drafter A's view.
    pub sprt: SprtStatus,
    /// When the test decided; `null` if it reached `max_games` (or Ctrl-C) first.
    pub decision: Option<Decision>,
    /// Games counted by the test (two per draft), A's wins among them, and
    /// those as player 0 and as player 1.
    pub games: u64,
    pub wins_a: u64,
    pub wins_a_first: u64,
    pub wins_a_second: u64,
    /// Games played, including those of the last batch past the deciding pair.
    pub games_played: u64,
    /// Games per wall-clock second over all threads, and per CPU-second;
    /// `null` when the run was too short to time.
    pub games_per_sec: Option<f64>,
    pub games_per_cpu_sec: Option<f64>,
    pub threads: usize,
    /// Ctrl-C stopped the match: the figures cover the pairs counted.
    pub interrupted: bool,
}

/// What a sequential match is: the bots, the test, its limit and seed.
#[derive(Clone, Copy, Debug)]
pub struct SprtMatch<'a> {
    pub config: &'a Config,
    /// Side A (tested against B) and side B: drafters, or agents.
    pub sides: &'a [Side; 2],
    /// The battle bots of seat 0 and seat 1 (of the sides that are bots).
    pub battle: [BattleBot; 2],
    pub spec: SprtSpec,
    /// Drafts at most (two games each).
    pub max_pairs: u64,
    pub master_seed: u64,
}

/// Plays drafter A against drafter B until the test decides or
/// `max_pairs` drafts are played. The LLR after each batch goes to `gauge`.
pub fn play_sprt_match(setup: &SprtMatch, workers: &Workers, gauge: &LlrGauge) -> LocmSprtReport {
    let SprtMatch { config, sides, battle, spec, max_pairs, master_seed } = *setup;
    let max_pairs = max_pairs.max(1);
    workers.progress.set_total(2 * max_pairs);
    let mut test = SequentialTest::new(Sprt::new(spec, Unit::Pairs));
    // Per draft, whether A won as player 0 and as player 1.
    let mut pairs_won: Vec<(bool, bool)> = Vec::new();
    let (mut faults_a, mut faults_b) = (0, 0);
    let (mut wall_seconds, mut cpu_seconds, mut threads, mut interrupted) = (0.0, 0.0, 1, false);
    let mut batch = FIRST_BATCH;
    while (pairs_won.len() as u64) < max_pairs && test.decision().is_none() {
        let first_pair = pairs_won.len() as u64;
        let n_pairs = batch.min(max_pairs - first_pair);
        let first_game = 2 * first_pair;
        // Per game, the winning seat and the seat at fault if any.
        let gathered = match sides {
            [Side::Bots(a), Side::Bots(b)] => {
                let make = || seatings(a, b, battle);
                let play =
                    |bots: &mut _, index: u64| (play_in_match(config, bots, master_seed, first_game + index), None);
                map_indexed(2 * n_pairs, workers, make, play)
            }
            _ => {
                let make = || side_seatings(sides, battle);
                let play = |seats: &mut _, index: u64| {
                    let result = play_side_game(config, seats, master_seed, first_game + index);
                    (result.winner, result.fault.map(|(seat, _)| seat))
                };
                map_indexed(2 * n_pairs, workers, make, play)
            }
        };
        for (index, (_, fault)) in &gathered.results {
            // Game 2k has A in seat 0, game 2k + 1 in seat 1.
            match fault.map(|seat| u64::from(seat) == index % 2) {
                Some(true) => faults_a += 1,
                Some(false) => faults_b += 1,
                None => {}
            }
        }
        (wall_seconds, cpu_seconds, threads) =
            (wall_seconds + gathered.wall_seconds, cpu_seconds + gathered.cpu_seconds, gathered.threads);
        // Finished games are a prefix of the batch: keep its whole pairs.
        for pair in gathered.results.chunks_exact(2) {
            let (a_first, a_second) = (pair[0].1.0 == 0, pair[1].1.0 == 1);
            let index = pairs_won.len() as u64;
            test.record(index, Observation::Pair(points(a_first), points(a_second)));
            pairs_won.push((a_first, a_second));
        }
        gauge.set(test.sprt().llr(), test.sprt().games());
        if gathered.stopped_early() {
            interrupted = true;
            break;
        }
        batch = (batch * 2).min(LAST_BATCH);
    }
    let counted = test.sprt().observations() as usize;
    let wins_a_first = pairs_won[..counted].iter().filter(|(first, _)| *first).count() as u64;
    let wins_a_second = pairs_won[..counted].iter().filter(|(_, second)| *second).count() as u64;
    let games_played = 2 * pairs_won.len();
    LocmSprtReport {
        draft_a: sides[0].name(),
        draft_b: sides[1].name(),
        battle: format!("{},{}", battle[0].name(), battle[1].name()),
        seed: master_seed,
        faults_a,
        faults_b,
        max_games: 2 * max_pairs,
        sprt: test.sprt().status(),
        decision: test.decision(),
        games: 2 * counted as u64,
        wins_a: wins_a_first + wins_a_second,
        wins_a_first,
        wins_a_second,
        games_played: games_played as u64,
        games_per_sec: rate(games_played, wall_seconds),
        games_per_cpu_sec: rate(games_played, cpu_seconds),
        threads,
        interrupted,
    }
}

fn points(won: bool) -> Points {
    if won { Points::Win } else { Points::Loss }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::game::locm::plan::draft::DraftBot;
    use crate::plan::Budget;
    use crate::progress::Progress;

    fn run(draft_a: &DraftBot, draft_b: &DraftBot, spec: &str, max_pairs: u64, threads: usize) -> LocmSprtReport {
        let config = Config::bundled();
        let sides = [Side::Bots(draft_a.clone()), Side::Bots(draft_b.clone())];
        let setup = SprtMatch {
            config: &config,
            sides: &sides,
            battle: [BattleBot::Greedy; 2],
            spec: spec.parse().unwrap(),
            max_pairs,
            master_seed: 3,
        };
        let (budget, progress) = (Budget::unlimited(), Progress::default());
        let mut report =
            play_sprt_match(&setup, &Workers { threads, budget: &budget, progress: &progress }, &LlrGauge::default());
        (report.games_per_sec, report.games_per_cpu_sec, report.threads) = (None, None, 0);
        report
    }

    #[test]
    fn a_sequential_match_decides_the_same_on_any_thread_count() {
        // Icebox against max-attack: about 68% of the games over 20,000
        // (docs/benchmarks.md), some 130 Elo, decided within a few batches.
        let one = run(&DraftBot::Icebox, &DraftBot::MaxAttack, "elo0=0,elo1=50", 2000, 1);
        let decision = one.decision.expect("decided");
        assert_eq!(decision.verdict, crate::sprt::Verdict::H1, "{one:#?}");
        assert_eq!(one.games, 2 * decision.observations);
        assert!(one.games_played >= one.games, "{one:#?}");
        assert!(
            (one.games as f64) < one.sprt.fixed_size_games.unwrap(),
            "fewer games than a fixed-size test: {one:#?}"
        );
        assert_eq!(one.sprt.games, one.games);
        assert_eq!(one.sprt.losses_draws_wins[2], one.wins_a);
        let two = run(&DraftBot::Icebox, &DraftBot::MaxAttack, "elo0=0,elo1=50", 2000, 2);
        assert_eq!(one, two);
    }

    #[test]
    fn an_undecided_match_stops_at_its_limit() {
        let report = run(&DraftBot::Icebox, &DraftBot::Icebox, "elo0=-5,elo1=5", 40, 2);
        assert_eq!(report.decision, None, "{report:#?}");
        assert_eq!((report.games, report.games_played, report.max_games), (80, 80, 80));
        assert!(!report.interrupted);
    }
}
