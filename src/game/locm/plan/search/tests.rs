//! The search bot's tests: legal play over many games, a found lethal, the
//! same choice for the same view, and a clear win over greedy.

use super::Searcher;
use super::eval::NO_DECKS;
use crate::game::Game;
use crate::game::locm::battle::{Battle, Creature, Move};
use crate::game::locm::cards::{CardTable, Keywords};
use crate::game::locm::plan::BattleBot;
use crate::game::locm::plan::draft::DraftBot;
use crate::game::locm::plan::seats::LocmBots;
use crate::game::locm::view::View;
use crate::game::locm::{Action, Config, LocmGame};

const NEVER: &dyn Fn() -> bool = &|| false;

/// Plays `games` games of `bots` (seat 0's battle bot against seat 1's) from
/// seed `first`, swapping seats every other game; returns the games seat
/// 0's bots won. `LocmBots::play_out` panics on an illegal action.
fn wins(config: &Config, battle: [BattleBot; 2], first: u64, games: u64) -> u64 {
    let mut won = 0;
    for seed in first..first + games {
        let swap = seed % 2 == 1;
        let seats = if swap { [battle[1], battle[0]] } else { battle };
        let mut bots = LocmBots::new([DraftBot::Evolved, DraftBot::Evolved], seats);
        let winner = bots.play_out(LocmGame::new(config, seed));
        won += u64::from((winner == 0) != swap);
    }
    won
}

#[test]
fn search_plays_only_legal_actions_and_searches_every_turn_it_plays() {
    let config = Config::bundled();
    for (seed, other) in [BattleBot::Random, BattleBot::Greedy, BattleBot::MaxAttack, BattleBot::SearchFast]
        .into_iter()
        .cycle()
        .take(40)
        .enumerate()
    {
        let mut bots = LocmBots::new([DraftBot::Random, DraftBot::Random], [BattleBot::Search, other]);
        let mut game = LocmGame::new(&config, seed as u64);
        let mut turns = 0;
        while game.winner().is_none() {
            let (action, _) = bots.decide(&game);
            if let (View::Battle(view), Action::Battle(chosen)) = (game.view(), action) {
                assert!(view.battle.is_legal(chosen, game.table()), "seed {seed} tick {}: {chosen:?}", game.tick());
                turns += usize::from(view.battle.current == 0 && chosen == Move::EndTurn);
            }
            game.step(action).unwrap();
        }
        let stats = bots.search_stats(0);
        assert!(stats.searches >= turns as u64 && stats.evaluations > 0, "seed {seed}: {stats:?} {turns}");
        assert_eq!(stats.time_stops, 0);
    }
}

/// A battle from the start of a real game, player 0 to move, with its
/// boards and hands emptied and both players at `health`.
fn bare_battle(health: i16) -> (Config, Battle) {
    let config = Config::bundled();
    let mut game = LocmGame::new(&config, 1);
    let mut bots = LocmBots::new([DraftBot::Random, DraftBot::Random], [BattleBot::Pass; 2]);
    while !matches!(game.view(), View::Battle(_)) {
        let (action, _) = bots.decide(&game);
        game.step(action).unwrap();
    }
    let View::Battle(view) = game.view() else { unreachable!() };
    let mut battle = view.battle;
    assert_eq!(battle.current, 0);
    for player in battle.players.iter_mut() {
        set_health(player, health);
        player.hand_len = 0;
        player.board_len = 0;
    }
    (config, battle)
}

/// Health with the runes a player at that health would have left.
fn set_health(player: &mut crate::game::locm::battle::Player, health: i16) {
    player.health = health;
    player.runes = ((health - 1) / 5).clamp(0, 5) as u8;
}

fn put(battle: &mut Battle, owner: usize, instance: u8, lane: u8, (attack, defense): (i16, i16), keywords: u8) {
    let player = &mut battle.players[owner];
    player.board[usize::from(player.board_len)] = Creature {
        instance,
        card: 3,
        lane,
        attack,
        defense,
        keywords: Keywords(keywords),
        can_attack: owner == 0,
        ..Creature::default()
    };
    player.board_len += 1;
}

/// Plays the search's whole turn in `battle`; returns the final state and
/// the actions.
fn play_turn(battle: &Battle, table: &CardTable) -> (Battle, Vec<Move>) {
    let mut searcher = Searcher::default();
    let mut state = *battle;
    let mut actions = Vec::new();
    while state.winner.is_none() {
        let (action, _) = searcher.choose(&state, table, super::DEFAULT_BUDGET, NEVER);
        if action == Move::EndTurn {
            break;
        }
        assert!(state.is_legal(action, table), "{action:?}");
        state.apply(action, table, &NO_DECKS);
        actions.push(action);
    }
    (state, actions)
}

/// Opponent at 7 behind a 1/1 guard in lane 0 and a juicy 6/6 in lane 1.
/// Lethal: the 1/2 kills the guard, then 3 + 4 go to the face; any other
/// order, or trading with the 6/6, leaves the opponent alive.
fn lethal_behind_a_guard() -> (Config, Battle) {
    let (config, mut battle) = bare_battle(7);
    put(&mut battle, 1, 40, 0, (1, 1), Keywords::GUARD);
    put(&mut battle, 1, 42, 1, (6, 6), 0);
    put(&mut battle, 0, 11, 0, (1, 2), 0);
    put(&mut battle, 0, 13, 0, (3, 3), 0);
    put(&mut battle, 0, 15, 1, (4, 4), 0);
    (config, battle)
}

#[test]
fn search_finds_a_lethal_that_needs_the_guard_killed_first() {
    let (config, battle) = lethal_behind_a_guard();
    let (state, actions) = play_turn(&battle, config.table());
    assert_eq!(state.winner, Some(0), "{actions:?}");
    assert_eq!(actions[0], Move::Attack { attacker: 11, target: 40 }, "{actions:?}");
}

#[test]
fn search_trades_instead_of_going_face_into_the_opponents_lethal() {
    // We are at 6, the opponent at 8 with a 6/6 in lane 1 that kills us next
    // turn. Our 7/7 in lane 1 scores more by hitting the face (8 -> 1) than
    // by killing the 6/6, until the opponent's reply is counted.
    let (config, mut battle) = bare_battle(6);
    set_health(&mut battle.players[1], 8);
    put(&mut battle, 1, 42, 1, (6, 6), 0);
    put(&mut battle, 0, 13, 1, (7, 7), 0);
    let (_, actions) = play_turn(&battle, config.table());
    assert_eq!(actions, [Move::Attack { attacker: 13, target: 42 }]);
}

#[test]
fn the_same_view_gets_the_same_choice() {
    let config = Config::bundled();
    let mut compared = 0;
    for seed in 0..6 {
        let mut game = LocmGame::new(&config, seed);
        let mut bots = LocmBots::new([DraftBot::Evolved, DraftBot::Evolved], [BattleBot::Greedy; 2]);
        // A searcher that has searched every earlier view of the game (its
        // buffers and table reused, its plan dropped) chooses as a fresh one.
        let mut second = Searcher::default();
        while game.winner().is_none() {
            if let View::Battle(view) = game.view() {
                let mut first = Searcher::default();
                second.new_game();
                let a = first.choose(&view.battle, game.table(), super::FAST_BUDGET, NEVER);
                let b = second.choose(&view.battle, game.table(), super::FAST_BUDGET, NEVER);
                assert_eq!(a, b, "seed {seed} tick {}", game.tick());
                assert_eq!(first.plan, second.plan);
                compared += 1;
            }
            let (action, _) = bots.decide(&game);
            game.step(action).unwrap();
        }
    }
    assert!(compared > 100, "{compared}");
}

#[test]
fn search_beats_greedy_clearly() {
    let config = Config::bundled();
    let games = 100;
    let won = wins(&config, [BattleBot::SearchFast, BattleBot::Greedy], 1000, games);
    assert!(won >= 65, "search:fast won {won} of {games} against greedy");
}

#[test]
fn the_time_guard_stops_the_search_with_a_legal_plan_and_counts_it() {
    let (config, battle) = lethal_behind_a_guard();
    let table = config.table();
    let mut searcher = Searcher::default();
    let (action, evaluations) = searcher.choose(&battle, table, super::DEFAULT_BUDGET, &|| true);
    assert!(action == Move::EndTurn || battle.is_legal(action, table), "{action:?}");
    assert_eq!(searcher.stats.time_stops, 1);
    assert!(evaluations < 100, "{evaluations}");
    // A guard that is never out of time is asked regularly (once 32 states
    // have been scored since it last was), and the search runs on uncut.
    // A full board, so that the search runs long.
    let (_, mut battle) = bare_battle(30);
    for slot in 0..6u8 {
        let lane = slot % 2;
        put(&mut battle, 0, 11 + 2 * slot, lane, (2 + i16::from(slot), 3), 0);
        put(&mut battle, 1, 40 + 2 * slot, lane, (3, 2 + i16::from(slot)), 0);
    }
    let asked = std::cell::Cell::new(0u64);
    let counting = || {
        asked.set(asked.get() + 1);
        false
    };
    let mut free = Searcher::default();
    let (_, evaluations) = free.choose(&battle, table, super::DEFAULT_BUDGET, &counting);
    assert_eq!(free.stats.time_stops, 0);
    assert!(evaluations >= 100, "{evaluations}");
    // A leaf on this board scores well over 32 states with its reply, so
    // the clock is asked about once a leaf: 28 times in 4,008 states.
    assert!(asked.get() * 200 >= evaluations, "asked {} times in {evaluations} states", asked.get());
}

#[test]
fn a_planned_turn_is_played_from_the_plan_without_searching_again() {
    // 3 damage from 24 breaks no rune (the next is at 20).
    let (config, mut battle) = bare_battle(24);
    put(&mut battle, 0, 11, 0, (1, 1), 0);
    put(&mut battle, 0, 13, 1, (2, 2), 0);
    let table = config.table();
    let mut searcher = Searcher::default();
    let mut state = battle;
    loop {
        let (action, _) = searcher.choose(&state, table, super::DEFAULT_BUDGET, NEVER);
        if action == Move::EndTurn {
            break;
        }
        state.apply(action, table, &NO_DECKS);
    }
    assert_eq!(searcher.stats.searches, 1);
    assert_eq!(state.players[1].health, 21, "both creatures hit the undefended face");
}
