//! `tickbot bench locm` and `tickbot match locm`: many full LOCM games
//! (draft and battle) spread over threads. Each game depends only on its
//! seed and its bots, and results are summed in game order, so every figure
//! but the speed is the same for any number of threads. Speed is measured
//! in CPU time per thread (see [`crate::par`]), since the machine may be
//! shared; a run too short to time is reported without a rate.

use serde::Serialize;

use crate::agent::locm::{LocmSeats, Seat, SeatsResult};
use crate::game::Game;
use crate::game::locm::plan::BattleBot;
use crate::game::locm::plan::draft::DraftBot;
use crate::game::locm::plan::seats::LocmBots;
use crate::game::locm::{Config, LocmGame};
use crate::par::{Gathered, Workers, map_indexed};
use crate::rng::derive_seed;
use crate::stats::wilson_interval;

/// Plays the game of `seed` with `bots` and returns the winner (0 or 1);
/// see [`LocmBots::play_out`].
pub fn play_game(config: &Config, seed: u64, bots: &mut LocmBots) -> u8 {
    bots.play_out(LocmGame::new(config, seed))
}

/// `tickbot bench locm`'s report. The key names are a documented interface.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct LocmBenchReport {
    /// Full random-vs-random games per CPU-second (per core); `null` when
    /// the run was too short to time.
    pub random_games_per_sec: Option<f64>,
    /// Full greedy-vs-greedy games per CPU-second (per core); `null` likewise.
    pub greedy_games_per_sec: Option<f64>,
    /// The same, per wall-clock second over all threads.
    pub random_games_per_wall_sec: Option<f64>,
    pub greedy_games_per_wall_sec: Option<f64>,
    /// Games played per battle bot.
    pub games: u64,
    /// Player 0's wins among the greedy games (a check that the runs are alike).
    pub greedy_player0_wins: u64,
    pub random_player0_wins: u64,
    pub draft: String,
    pub seed: u64,
    pub threads: usize,
    /// Ctrl-C stopped the benchmark: the figures cover the games played.
    pub interrupted: bool,
}

/// The shortest time a rate is computed over: below it, the clocks' grain
/// (and thread start-up) would make the rate meaningless.
pub(crate) const MIN_TIMED_SECONDS: f64 = 0.05;

/// `count` per `seconds`, if `seconds` is long enough to mean anything.
pub(super) fn rate(count: usize, seconds: f64) -> Option<f64> {
    (seconds >= MIN_TIMED_SECONDS).then(|| count as f64 / seconds)
}

/// Plays `n_games` random-vs-random and `n_games` greedy-vs-greedy games
/// (drafts by `draft`) and reports their speed.
pub fn bench_locm(
    config: &Config,
    draft: &DraftBot,
    n_games: u64,
    master_seed: u64,
    workers: &Workers,
) -> LocmBenchReport {
    workers.progress.set_total(2 * n_games);
    let run = |battle: BattleBot| {
        let make = || LocmBots::new([draft.clone(), draft.clone()], [battle, battle]);
        let play = |bots: &mut LocmBots, index| play_game(config, derive_seed(master_seed, index), bots);
        map_indexed(n_games, workers, make, play)
    };
    let random = run(BattleBot::Random);
    let greedy = run(BattleBot::Greedy);
    let player0_wins = |gathered: &Gathered<u8>| gathered.results.iter().filter(|(_, winner)| *winner == 0).count();
    LocmBenchReport {
        random_games_per_sec: rate(random.results.len(), random.cpu_seconds),
        greedy_games_per_sec: rate(greedy.results.len(), greedy.cpu_seconds),
        random_games_per_wall_sec: rate(random.results.len(), random.wall_seconds),
        greedy_games_per_wall_sec: rate(greedy.results.len(), greedy.wall_seconds),
        games: n_games,
        greedy_player0_wins: player0_wins(&greedy) as u64,
        random_player0_wins: player0_wins(&random) as u64,
        draft: draft.name().to_string(),
        seed: master_seed,
        threads: random.threads,
        interrupted: random.stopped_early() || greedy.stopped_early(),
    }
}

/// `tickbot match locm`'s report.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct LocmMatchReport {
    pub draft_a: String,
    pub draft_b: String,
    pub battle: String,
    /// Games played (every draft twice, seats swapped, unless interrupted).
    pub games: u64,
    pub seed: u64,
    /// Games drafter A won, over both seats.
    pub wins_a: u64,
    pub wins_b: u64,
    /// A's wins as player 0 and as player 1.
    pub wins_a_first: u64,
    pub wins_a_second: u64,
    pub win_rate_a: f64,
    /// The 95% Wilson interval of `win_rate_a`.
    pub ci95_low: f64,
    pub ci95_high: f64,
    /// Games per wall-clock second over all threads, and per CPU-second;
    /// `null` when the run was too short to time.
    pub games_per_sec: Option<f64>,
    pub games_per_cpu_sec: Option<f64>,
    pub threads: usize,
    /// Ctrl-C stopped the match: the figures cover the games played.
    pub interrupted: bool,
    /// Games A and B lost by a fault of their agent (timeout, crash, an
    /// answer that is not the protocol's), counted in the wins above.
    pub faults_a: u64,
    pub faults_b: u64,
    /// The first few faults: game index, side, player and reason.
    pub fault_examples: Vec<String>,
    /// Answers read from agents in all.
    pub agent_calls: u64,
}

/// How many faults a report describes.
const FAULT_EXAMPLES: usize = 10;

/// Drafter A against drafter B over `n_pairs` drafts (at least one), each
/// played twice with the seats swapped (same seed: same triples and shuffle
/// stream), so `2 * n_pairs` games. `battle` plays both seats.
pub fn play_match(
    config: &Config,
    draft_a: &DraftBot,
    draft_b: &DraftBot,
    battle: [BattleBot; 2],
    n_pairs: u64,
    master_seed: u64,
    workers: &Workers,
) -> LocmMatchReport {
    let sides = [Side::Bots(draft_a.clone()), Side::Bots(draft_b.clone())];
    play_sides(config, &sides, battle, n_pairs, master_seed, workers)
}

/// One side of a match: a drafter (with the seat's battle bot), or an
/// external agent that plays its seat's whole game.
#[derive(Clone, Debug)]
pub enum Side {
    Bots(DraftBot),
    Agent(crate::agent::AgentSpec),
}

impl Side {
    fn seat(&self, battle: BattleBot) -> Seat {
        match self {
            Side::Bots(draft) => Seat::Bots(draft.clone(), battle),
            Side::Agent(spec) => Seat::Agent(spec.clone()),
        }
    }

    /// The name a report gives the side: the drafter's, or `exec:` and the
    /// command as typed.
    pub(super) fn name(&self) -> String {
        match self {
            Side::Bots(draft) => draft.name().to_string(),
            Side::Agent(spec) => format!("exec:{}", spec.command_line()),
        }
    }
}

/// The two seatings of a match between sides: A in seat 0, then in seat 1.
pub(super) fn side_seatings([a, b]: &[Side; 2], battle: [BattleBot; 2]) -> (LocmSeats, LocmSeats) {
    (LocmSeats::new([a.seat(battle[0]), b.seat(battle[1])]), LocmSeats::new([b.seat(battle[0]), a.seat(battle[1])]))
}

/// Game `index` of a match between sides, as [`play_in_match`] plays it
/// between bots: draft `index / 2`, A in seat `index % 2`.
pub(super) fn play_side_game(
    config: &Config,
    (a_first, b_first): &mut (LocmSeats, LocmSeats),
    master_seed: u64,
    index: u64,
) -> SeatsResult {
    let seed = derive_seed(master_seed, index / 2);
    let seats = if index % 2 == 0 { a_first } else { b_first };
    seats.play_out(LocmGame::new(config, seed))
}

/// [`play_match`] between two sides, either of which may be an agent.
pub fn play_sides(
    config: &Config,
    sides: &[Side; 2],
    battle: [BattleBot; 2],
    n_pairs: u64,
    master_seed: u64,
    workers: &Workers,
) -> LocmMatchReport {
    let [a, b] = sides;
    let n_games = 2 * n_pairs.max(1);
    workers.progress.set_total(n_games);
    let make = || side_seatings(sides, battle);
    let play = |seats: &mut _, index: u64| play_side_game(config, seats, master_seed, index);
    let gathered = map_indexed(n_games, workers, make, play);
    // Game 2k has A in seat 0, game 2k+1 in seat 1.
    let won_by_a = |(index, result): &(u64, SeatsResult)| u64::from(result.winner) == index % 2;
    let wins_a_first = gathered.results.iter().filter(|game| game.0 % 2 == 0 && won_by_a(game)).count() as u64;
    let wins_a_second = gathered.results.iter().filter(|game| game.0 % 2 == 1 && won_by_a(game)).count() as u64;
    let played = gathered.results.len() as u64;
    let wins_a = wins_a_first + wins_a_second;
    let (ci95_low, ci95_high) = wilson_interval(wins_a, played).unwrap_or((0.0, 1.0));
    let (mut faults_a, mut faults_b, mut fault_examples) = (0, 0, Vec::new());
    for (index, result) in &gathered.results {
        let Some((seat, fault)) = &result.fault else { continue };
        let a_at_fault = u64::from(*seat) == index % 2;
        if a_at_fault {
            faults_a += 1
        } else {
            faults_b += 1
        }
        if fault_examples.len() < FAULT_EXAMPLES {
            let side = if a_at_fault { "A" } else { "B" };
            fault_examples.push(format!("game {index}: {side} (player {seat}) {fault}"));
        }
    }
    LocmMatchReport {
        draft_a: a.name(),
        draft_b: b.name(),
        battle: format!("{},{}", battle[0].name(), battle[1].name()),
        games: played,
        seed: master_seed,
        wins_a,
        wins_b: played - wins_a,
        wins_a_first,
        wins_a_second,
        win_rate_a: wins_a as f64 / played.max(1) as f64,
        ci95_low,
        ci95_high,
        games_per_sec: rate(gathered.results.len(), gathered.wall_seconds),
        games_per_cpu_sec: rate(gathered.results.len(), gathered.cpu_seconds),
        threads: gathered.threads,
        interrupted: gathered.stopped_early(),
        faults_a,
        faults_b,
        fault_examples,
        agent_calls: gathered.results.iter().map(|(_, result)| result.calls).sum(),
    }
}

/// A match's bots in both seatings: A in seat 0, and B in seat 0.
pub(super) fn seatings(draft_a: &DraftBot, draft_b: &DraftBot, battle: [BattleBot; 2]) -> (LocmBots, LocmBots) {
    (
        LocmBots::new([draft_a.clone(), draft_b.clone()], battle),
        LocmBots::new([draft_b.clone(), draft_a.clone()], battle),
    )
}

/// Game `index` of a match: games 2k and 2k + 1 play draft k (the seed
/// derived from (master seed, k)), A in seat 0 and then in seat 1. Returns
/// the winning seat.
pub(super) fn play_in_match(
    config: &Config,
    (a_first, b_first): &mut (LocmBots, LocmBots),
    master_seed: u64,
    index: u64,
) -> u8 {
    let seed = derive_seed(master_seed, index / 2);
    if index % 2 == 0 { play_game(config, seed, a_first) } else { play_game(config, seed, b_first) }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn no_rate_is_made_up_for_a_run_too_short_to_time() {
        assert_eq!(rate(100, 0.0), None);
        assert_eq!(rate(100, MIN_TIMED_SECONDS / 2.0), None);
        assert_eq!(rate(100, 0.5), Some(200.0));
    }

    #[test]
    fn match_results_do_not_depend_on_the_thread_count() {
        let config = Config::bundled();
        let run = |threads| {
            let (a, b) = (&DraftBot::Icebox, &DraftBot::MaxAttack);
            let (budget, progress) = (crate::plan::Budget::unlimited(), crate::progress::Progress::default());
            let workers = Workers { threads, budget: &budget, progress: &progress };
            let mut report = play_match(&config, a, b, [BattleBot::Greedy; 2], 20, 4, &workers);
            report.games_per_sec = None;
            report.games_per_cpu_sec = None;
            report.threads = 0;
            report
        };
        let one = run(1);
        assert_eq!(one, run(3));
        assert_eq!(one.games, 40);
        assert_eq!(one.wins_a + one.wins_b, 40);
        assert!(one.ci95_low <= one.win_rate_a && one.win_rate_a <= one.ci95_high);
    }
}
