//! `tickbot bench locm` and `tickbot match locm`: many full LOCM games
//! (draft and battle) spread over threads. Each game depends only on its
//! seed and its bots, and results are summed in game order, so every figure
//! but the speed is the same for any number of threads. Speed is measured
//! in CPU time per thread (`/proc/thread-self/schedstat`, falling back to
//! wall time), since the machine may be shared.

use std::time::Instant;

use serde::Serialize;

use crate::game::Game;
use crate::game::locm::baselines::DraftBot;
use crate::game::locm::bots::{BattleBot, LocmBots};
use crate::game::locm::{Config, LocmGame};
use crate::rng::derive_seed;

/// Plays one game with `bots` and returns the winner (0 or 1).
///
/// # Panics
/// If a bot chooses an illegal action: the bots only choose among legal
/// ones, so that would be a bug.
pub fn play_game(config: &Config, seed: u64, bots: &mut LocmBots) -> u8 {
    let mut game = LocmGame::new(config, seed);
    loop {
        if let Some(winner) = game.winner() {
            return winner;
        }
        let (action, _) = bots.decide(&game);
        if let Err(error) = game.step(action) {
            panic!("a bot chose an illegal action: {error}");
        }
    }
}

/// CPU time this thread has used, in seconds, if the platform tells us.
fn thread_cpu_seconds() -> Option<f64> {
    let text = std::fs::read_to_string("/proc/thread-self/schedstat").ok()?;
    let nanos: u64 = text.split_whitespace().next()?.parse().ok()?;
    Some(nanos as f64 / 1e9)
}

/// Games `0..n_games` on `threads` threads; `play(index)` plays game
/// `index` with the worker's own state from `make_state`. Returns the
/// results in game order, the wall seconds and the summed CPU seconds.
fn play_indexed<S, R: Send>(
    n_games: u64,
    threads: usize,
    make_state: impl Fn() -> S + Sync,
    play: impl Fn(&mut S, u64) -> R + Sync,
) -> (Vec<R>, f64, f64) {
    let threads = threads.clamp(1, n_games.max(1) as usize);
    let started = Instant::now();
    let per_thread: Vec<(Vec<(u64, R)>, f64)> = std::thread::scope(|scope| {
        let workers: Vec<_> = (0..threads)
            .map(|worker| {
                let make_state = &make_state;
                let play = &play;
                scope.spawn(move || {
                    let cpu_start = thread_cpu_seconds();
                    let wall_start = Instant::now();
                    let mut state = make_state();
                    let mut results = Vec::new();
                    for index in (worker as u64..n_games).step_by(threads) {
                        results.push((index, play(&mut state, index)));
                    }
                    let cpu = match (cpu_start, thread_cpu_seconds()) {
                        (Some(start), Some(end)) => end - start,
                        _ => wall_start.elapsed().as_secs_f64(),
                    };
                    (results, cpu)
                })
            })
            .collect();
        workers.into_iter().map(|worker| worker.join().expect("game thread panicked")).collect()
    });
    let wall = started.elapsed().as_secs_f64();
    let mut cpu = 0.0;
    let mut indexed = Vec::with_capacity(n_games as usize);
    for (results, seconds) in per_thread {
        indexed.extend(results);
        cpu += seconds;
    }
    indexed.sort_unstable_by_key(|(index, _)| *index);
    (indexed.into_iter().map(|(_, result)| result).collect(), wall, cpu)
}

/// `tickbot bench locm`'s report. The key names are a documented interface.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct LocmBenchReport {
    /// Full random-vs-random games per CPU-second (per core).
    pub random_games_per_sec: f64,
    /// Full greedy-vs-greedy games per CPU-second (per core).
    pub greedy_games_per_sec: f64,
    /// The same, per wall-clock second over all threads.
    pub random_games_per_wall_sec: f64,
    pub greedy_games_per_wall_sec: f64,
    pub games: u64,
    /// Player 0's wins among the greedy games (a check that the runs are alike).
    pub greedy_player0_wins: u64,
    pub random_player0_wins: u64,
    pub draft: String,
    pub seed: u64,
    pub threads: usize,
}

/// Plays `n_games` random-vs-random and `n_games` greedy-vs-greedy games
/// (drafts by `draft`) and reports their speed.
pub fn bench_locm(
    config: &Config,
    draft: &DraftBot,
    n_games: u64,
    master_seed: u64,
    threads: usize,
) -> LocmBenchReport {
    let run = |battle: BattleBot| {
        let make = || LocmBots::new([draft.clone(), draft.clone()], [battle, battle]);
        let (winners, wall, cpu) = play_indexed(n_games, threads, make, |bots, index| {
            play_game(config, derive_seed(master_seed, index), bots)
        });
        let wins = winners.iter().filter(|&&winner| winner == 0).count() as u64;
        (n_games as f64 / cpu.max(1e-9), n_games as f64 / wall.max(1e-9), wins)
    };
    let (random_cpu, random_wall, random_wins) = run(BattleBot::Random);
    let (greedy_cpu, greedy_wall, greedy_wins) = run(BattleBot::Greedy);
    LocmBenchReport {
        random_games_per_sec: random_cpu,
        greedy_games_per_sec: greedy_cpu,
        random_games_per_wall_sec: random_wall,
        greedy_games_per_wall_sec: greedy_wall,
        games: n_games,
        greedy_player0_wins: greedy_wins,
        random_player0_wins: random_wins,
        draft: draft.name().to_string(),
        seed: master_seed,
        threads: threads.clamp(1, n_games.max(1) as usize),
    }
}

/// `tickbot match locm`'s report.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct LocmMatchReport {
    pub draft_a: String,
    pub draft_b: String,
    pub battle: String,
    pub games: u64,
    pub seed: u64,
    /// Games drafter A won, over both seats.
    pub wins_a: u64,
    pub wins_b: u64,
    /// A's wins as player 0 and as player 1.
    pub wins_a_first: u64,
    pub wins_a_second: u64,
    pub win_rate_a: f64,
    /// The 95% normal-approximation interval of `win_rate_a`.
    pub ci95_low: f64,
    pub ci95_high: f64,
    /// Games per wall-clock second over all threads, and per CPU-second.
    pub games_per_sec: f64,
    pub games_per_cpu_sec: f64,
    pub threads: usize,
}

/// Drafter A against drafter B over `n_pairs` drafts, each played twice
/// with the seats swapped (same seed: same triples and shuffle stream), so
/// `2 * n_pairs` games. `battle` plays both seats.
pub fn play_match(
    config: &Config,
    draft_a: &DraftBot,
    draft_b: &DraftBot,
    battle: [BattleBot; 2],
    n_pairs: u64,
    master_seed: u64,
    threads: usize,
) -> LocmMatchReport {
    let n_games = 2 * n_pairs;
    let make = || {
        (
            LocmBots::new([draft_a.clone(), draft_b.clone()], battle),
            LocmBots::new([draft_b.clone(), draft_a.clone()], battle),
        )
    };
    let (winners, wall, cpu) = play_indexed(n_games, threads, make, |(a_first, b_first), index| {
        let seed = derive_seed(master_seed, index / 2);
        if index % 2 == 0 { play_game(config, seed, a_first) } else { play_game(config, seed, b_first) }
    });
    let wins_a_first = winners.iter().step_by(2).filter(|&&winner| winner == 0).count() as u64;
    let wins_a_second = winners.iter().skip(1).step_by(2).filter(|&&winner| winner == 1).count() as u64;
    let wins_a = wins_a_first + wins_a_second;
    let n = n_games.max(1) as f64;
    let rate = wins_a as f64 / n;
    let half_width = 1.96 * (rate * (1.0 - rate) / n).sqrt();
    LocmMatchReport {
        draft_a: draft_a.name().to_string(),
        draft_b: draft_b.name().to_string(),
        battle: format!("{},{}", battle[0].name(), battle[1].name()),
        games: n_games,
        seed: master_seed,
        wins_a,
        wins_b: n_games - wins_a,
        wins_a_first,
        wins_a_second,
        win_rate_a: rate,
        ci95_low: (rate - half_width).max(0.0),
        ci95_high: (rate + half_width).min(1.0),
        games_per_sec: n_games as f64 / wall.max(1e-9),
        games_per_cpu_sec: n_games as f64 / cpu.max(1e-9),
        threads: threads.clamp(1, n_games.max(1) as usize),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn match_results_do_not_depend_on_the_thread_count() {
        let config = Config::bundled();
        let run = |threads| {
            let mut report =
                play_match(&config, &DraftBot::Icebox, &DraftBot::MaxAttack, [BattleBot::Greedy; 2], 20, 4, threads);
            report.games_per_sec = 0.0;
            report.games_per_cpu_sec = 0.0;
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
