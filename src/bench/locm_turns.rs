//! `tickbot bench locm --turn-times BOT`: times every battle turn of one
//! battle bot over many full games against `greedy`, in process and on one
//! thread, to show that a searching bot stays far inside the contest's
//! 200 ms per turn. Reports the longest turn and the high percentiles
//! beside the rates; wall time, so the load matters (give it with them).

use std::time::Instant;

use serde::Serialize;

use crate::game::Game;
use crate::game::locm::battle::Move;
use crate::game::locm::plan::BattleBot;
use crate::game::locm::plan::draft::DraftBot;
use crate::game::locm::plan::seats::LocmBots;
use crate::game::locm::view::View;
use crate::game::locm::{Action, Config, LocmGame};
use crate::plan::Budget;
use crate::rng::derive_seed;

/// `tickbot bench locm --turn-times`'s report. The key names are a
/// documented interface.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct TurnTimesReport {
    pub bot: String,
    pub draft: String,
    pub seed: u64,
    /// Games played (the bot takes seat 0 in even games, seat 1 in odd ones).
    pub games: u64,
    /// The timed bot's wins against greedy.
    pub wins: u64,
    /// The timed bot's battle turns, and its searches and their cuts
    /// (zero unless it is a search bot).
    pub turns: u64,
    pub searches: u64,
    pub evaluations: u64,
    pub budget_stops: u64,
    pub time_stops: u64,
    /// The bot's own time (all its decisions of a turn summed), in
    /// milliseconds: the longest turn, the 99.9th and 99th percentiles and
    /// the median.
    pub max_turn_ms: f64,
    pub p999_turn_ms: f64,
    pub p99_turn_ms: f64,
    pub median_turn_ms: f64,
    /// The bot's turns per second of its own time, and whole games per
    /// wall second (both seats' bots, drafts included).
    pub turns_per_sec: f64,
    pub games_per_sec: f64,
    pub interrupted: bool,
}

/// Plays `n_games` games of `bot` against `greedy` (both drafting with
/// `draft`) from seeds derived from `master_seed`, timing `bot`'s turns;
/// stops between games once `budget` is exhausted (Ctrl-C).
pub fn time_turns(
    config: &Config,
    draft: &DraftBot,
    bot: BattleBot,
    n_games: u64,
    master_seed: u64,
    budget: &Budget,
) -> TurnTimesReport {
    let started = Instant::now();
    let mut turn_us: Vec<f64> = Vec::new();
    let mut report = TurnTimesReport {
        bot: bot.name().to_string(),
        draft: draft.name().to_string(),
        seed: master_seed,
        games: 0,
        wins: 0,
        turns: 0,
        searches: 0,
        evaluations: 0,
        budget_stops: 0,
        time_stops: 0,
        max_turn_ms: 0.0,
        p999_turn_ms: 0.0,
        p99_turn_ms: 0.0,
        median_turn_ms: 0.0,
        turns_per_sec: 0.0,
        games_per_sec: 0.0,
        interrupted: false,
    };
    for index in 0..n_games {
        if budget.exhausted().is_some() {
            report.interrupted = true;
            break;
        }
        let seat = (index % 2) as u8;
        let battle = if seat == 0 { [bot, BattleBot::Greedy] } else { [BattleBot::Greedy, bot] };
        let mut bots = LocmBots::new([draft.clone(), draft.clone()], battle);
        let mut game = LocmGame::new(config, derive_seed(master_seed, index));
        let mut turn = 0.0;
        while game.winner().is_none() {
            let ours = matches!(game.view(), View::Battle(view) if view.battle.current == seat);
            let clock = Instant::now();
            let (action, _) = bots.decide(&game);
            if ours {
                turn += clock.elapsed().as_secs_f64() * 1e6;
            }
            game.step(action).expect("the bots play legal actions");
            if ours && (action == Action::Battle(Move::EndTurn) || game.winner().is_some()) {
                turn_us.push(turn);
                turn = 0.0;
            }
        }
        report.games += 1;
        report.wins += u64::from(game.winner() == Some(seat));
        let stats = bots.search_stats(seat);
        report.searches += stats.searches;
        report.evaluations += stats.evaluations;
        report.budget_stops += stats.budget_stops;
        report.time_stops += stats.time_stops;
    }
    turn_us.sort_by(f64::total_cmp);
    let at = |quantile: f64| {
        let index = ((turn_us.len() as f64 * quantile).ceil() as usize).clamp(1, turn_us.len().max(1)) - 1;
        turn_us.get(index).map_or(0.0, |us| us / 1000.0)
    };
    report.turns = turn_us.len() as u64;
    report.max_turn_ms = turn_us.last().map_or(0.0, |us| us / 1000.0);
    report.p999_turn_ms = at(0.999);
    report.p99_turn_ms = at(0.99);
    report.median_turn_ms = at(0.5);
    let own_seconds: f64 = turn_us.iter().sum::<f64>() / 1e6;
    report.turns_per_sec = if own_seconds > 0.0 { report.turns as f64 / own_seconds } else { 0.0 };
    report.games_per_sec = report.games as f64 / started.elapsed().as_secs_f64().max(1e-9);
    report
}
