//! The `search` bot's evaluation of an end-of-turn state: a static score of
//! the board from one player's side ([`static_score`]), and the same score
//! after the opponent's likely reply on the visible board ([`after_reply`]).
//!
//! The creature values follow the shape of Coac's evaluation (CEC 2019 and
//! 2020 winner; acatai/Strategy-Card-Game-AI-Competition,
//! `contest-2020-07-CEC/Coac`): a creature that can hit is worth a flat
//! amount plus its defense and twice its attack, Ward counts its attack
//! again, Lethal and Guard add a constant, and health counts far less than
//! the board. The reply model is ours: the opponent's creatures attack
//! greedily (each step the attack that lowers our score most), and a board
//! that lets them reach our face for lethal scores as lost.

use crate::game::locm::battle::{Battle, Creature, Decks, LANES, Move, Player};
use crate::game::locm::cards::{CardTable, Keywords};

/// A won (or lost) game: above any board score.
pub(crate) const WIN: i32 = 1_000_000;
/// A board on which the opponent has lethal through our guards: lost, but
/// ranked among lost boards by the static score.
const THREATENED: i32 = WIN / 2;
/// An item kept in our hand, beyond the worth of any card in hand: removal
/// saved for a target worth it (Coac values a kept item likewise). Only our
/// own side's hand is seen.
const KEPT_ITEM: i32 = 15;
/// No deck is read within a turn or a reply (nothing is drawn).
pub(crate) const NO_DECKS: Decks = [[0; 30]; 2];

/// The worth of one creature on the board.
fn creature_value(creature: &Creature) -> i32 {
    let attack = i32::from(creature.attack);
    let defense = i32::from(creature.defense);
    let keywords = creature.keywords;
    let mut value = 0;
    if attack > 0 {
        let ward = if keywords.has(Keywords::WARD) { attack } else { 0 };
        let lethal = if keywords.has(Keywords::LETHAL) { 4 } else { 0 };
        value += 5 * (defense + 2 * attack + ward + lethal) + 20;
        if keywords.has(Keywords::DRAIN) {
            value += 2 * attack;
        }
        if keywords.has(Keywords::BREAKTHROUGH) {
            value += attack;
        }
    } else {
        // A wall still soaks damage, most of all behind Guard or Ward.
        value += 2 * defense + if keywords.has(Keywords::WARD) { 5 } else { 0 };
    }
    if keywords.has(Keywords::GUARD) {
        value += 9 + 2 * defense;
    }
    value
}

/// Health, worth more as it runs low.
fn health_value(health: i16) -> i32 {
    let health = i32::from(health);
    let mut value = 2 * health;
    if health < 10 {
        value -= 4 * (10 - health);
    }
    if health < 5 {
        value -= 60;
    }
    value
}

/// A player's side: health, board, cards in hand and cards due.
fn side_value(player: &Player) -> i32 {
    let board: i32 = player.board().iter().map(creature_value).sum();
    let due = i32::from(player.next_turn_draw).min(8 - i32::from(player.hand_len)).max(0);
    health_value(player.health) + board + 4 * i32::from(player.hand_len) + 5 * due
}

/// The static score of `battle` from `me`'s side: [`side_value`] of each,
/// and our kept items.
pub(crate) fn static_score(battle: &Battle, me: u8, table: &CardTable) -> i32 {
    if let Some(winner) = battle.winner {
        return if winner == me { WIN } else { -WIN };
    }
    let mine = &battle.players[usize::from(me)];
    let items = mine.hand().iter().filter(|card| !table.stats(card.card).is_creature()).count() as i32;
    side_value(mine) + KEPT_ITEM * items - side_value(&battle.players[usize::from(1 - me)])
}

/// Whether the opponent's creatures can deal `me` lethal damage next turn
/// through lanes `me` does not guard (its hand, unseen, is not counted).
fn lethal_threat(battle: &Battle, me: u8) -> bool {
    let mine = &battle.players[usize::from(me)];
    let theirs = &battle.players[usize::from(1 - me)];
    let mut guarded = [false; LANES];
    for creature in mine.board() {
        if creature.keywords.has(Keywords::GUARD) {
            guarded[usize::from(creature.lane)] = true;
        }
    }
    let reach: i32 = theirs
        .board()
        .iter()
        .filter(|creature| !guarded[usize::from(creature.lane)])
        .map(|creature| i32::from(creature.attack))
        .sum();
    reach >= i32::from(mine.health)
}

/// The score of ending `me`'s turn in `battle`, after the opponent's reply:
/// its creatures, all ready, attack greedily against our score until no
/// attack lowers it. Its hand is unseen and left out. `evaluations` counts
/// the states scored.
pub(crate) fn after_reply(battle: &Battle, me: u8, table: &CardTable, evaluations: &mut u64) -> i32 {
    if battle.winner.is_some() {
        return static_score(battle, me, table);
    }
    let mut reply = *battle;
    let opponent = 1 - me;
    reply.current = opponent;
    for creature in reply.players[usize::from(me)].board.iter_mut() {
        creature.can_attack = false;
        creature.has_attacked = false;
    }
    let theirs = &mut reply.players[usize::from(opponent)];
    theirs.hand_len = 0;
    theirs.mana = 0;
    for creature in theirs.board.iter_mut() {
        creature.can_attack = true;
        creature.has_attacked = false;
    }
    if lethal_threat(&reply, me) {
        return -THREATENED + static_score(battle, me, table);
    }
    let mut score = static_score(&reply, me, table);
    loop {
        let mut best: Option<(Move, i32)> = None;
        reply.for_each_move(table, |action| {
            if let Move::Attack { attacker, .. } = action
                && reply.me().find_creature(attacker).is_some_and(|index| reply.me().board[index].attack > 0)
            {
                let mut next = reply;
                next.apply(action, table, &NO_DECKS);
                *evaluations += 1;
                let after = static_score(&next, me, table);
                if after < best.map_or(score, |(_, best_score)| best_score) {
                    best = Some((action, after));
                }
            }
        });
        let Some((action, after)) = best else { return score };
        reply.apply(action, table, &NO_DECKS);
        score = after;
        if reply.winner.is_some() {
            return score;
        }
    }
}
