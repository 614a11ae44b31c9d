//! The `greedy` battle bot: it takes the single action whose result scores
//! best by the published evaluation ([`evaluate`]), until ending the turn
//! scores at least as well. It scores each candidate without playing it
//! ([`quick_score`]): the view's battle needs no hidden card for that,
//! since nothing is drawn mid-turn.

use crate::game::locm::battle::{
    Battle, Creature, Move, Player, resolve_attack, resolve_attack_on_player, resolve_item,
};
use crate::game::locm::cards::CardTable;

/// The greedy choice among `moves` (every legal action but ending the
/// turn), or ending the turn when nothing scores better.
pub(crate) fn choose(battle: &Battle, table: &CardTable, moves: &[Move]) -> Move {
    let me = battle.current;
    let mut best = Move::EndTurn;
    let base_score = evaluate(battle, me);
    let mut best_score = base_score;
    let mut previous = Move::EndTurn;
    for &candidate in moves {
        // The evaluation does not look at lanes, and ties keep the
        // earlier action: a summon into lane 1 right after the same
        // summon into lane 0 can never be chosen, so skip it.
        if let (Move::Summon { instance, lane: 1 }, Move::Summon { instance: before, lane: 0 }) = (candidate, previous)
            && instance == before
        {
            continue;
        }
        previous = candidate;
        let Some(score) = quick_score(battle, table, candidate, base_score) else { continue };
        if score > best_score {
            best = candidate;
            best_score = score;
        }
    }
    best
}

/// [`evaluate`] after `action`, worked out without playing it: the rules'
/// own pure resolution functions give the creatures after a fight or an
/// item, and only health, creature counts and attack + defense enter the
/// evaluation (runes and draws do not). Saves copying the battle per
/// candidate; a test checks the greedy bot's choices against playing every
/// action. `None` if the action names nothing (it is then not legal).
fn quick_score(battle: &Battle, table: &CardTable, action: Move, base: i32) -> Option<i32> {
    let me = battle.me();
    let opponent = battle.opponent();
    let value = |creature: &Creature| i32::from(creature.attack) + i32::from(creature.defense);
    let alive = |creature: &Creature| 10 + value(creature);
    // (my health change, opponent's health change, change of the board terms)
    let (my_change, opponent_change, board_change) = match action {
        Move::Summon { instance, .. } => {
            let stats = table.stats(me.hand[me.find_hand(instance)?].card);
            let board = 10 + i32::from(stats.attack) + i32::from(stats.defense);
            (i32::from(stats.my_health), i32::from(stats.opponent_health), board)
        }
        Move::Attack { attacker, target: 0 } => {
            let creature = me.board[me.find_creature(attacker)?];
            let (_, drain) = resolve_attack_on_player(&creature);
            (i32::from(drain), -i32::from(creature.attack), 0)
        }
        Move::Attack { attacker, target } => {
            let attacker = me.board[me.find_creature(attacker)?];
            let defender = opponent.board[opponent.find_creature(target)?];
            let combat = resolve_attack(&attacker, &defender);
            let mine =
                if combat.attacker_dies { -alive(&attacker) } else { value(&combat.attacker) - value(&attacker) };
            let theirs =
                if combat.defender_dies { -alive(&defender) } else { value(&combat.defender) - value(&defender) };
            (i32::from(combat.drain), i32::from(combat.breakthrough), mine - theirs)
        }
        Move::Use { item, target } => {
            let stats = table.stats(me.hand[me.find_hand(item)?].card);
            let my_change = i32::from(stats.my_health);
            let mut opponent_change = i32::from(stats.opponent_health);
            let mut board = 0;
            if target == 0 {
                opponent_change += i32::from(stats.defense);
            } else {
                let (owner, sign) = if stats.kind_code == 1 { (me, 1) } else { (opponent, -1) };
                let creature = owner.board[owner.find_creature(target)?];
                let (after, dies) = resolve_item(stats, &creature);
                board = sign * if dies { -alive(&creature) } else { value(&after) - value(&creature) };
            }
            (my_change, opponent_change, board)
        }
        Move::EndTurn => return Some(base),
    };
    // `check_winner`: the opponent at or below 0 loses first.
    if i32::from(opponent.health) + opponent_change <= 0 {
        return Some(1000);
    }
    if i32::from(me.health) + my_change <= 0 {
        return Some(-1000);
    }
    Some(base + 2 * (my_change - opponent_change) + board_change)
}

/// The published greedy evaluation, from `me`'s side: ±1000 for a decided
/// game, else 2 × the health difference, 10 × the difference in creatures
/// (summed over lanes), and the attack + defense of own creatures minus the
/// opponent's.
fn evaluate(battle: &Battle, me: u8) -> i32 {
    if let Some(winner) = battle.winner {
        return if winner == me { 1000 } else { -1000 };
    }
    let mine = &battle.players[usize::from(me)];
    let theirs = &battle.players[usize::from(1 - me)];
    let strength = |player: &Player| -> i32 {
        player.board().iter().map(|creature| i32::from(creature.attack) + i32::from(creature.defense)).sum()
    };
    2 * (i32::from(mine.health) - i32::from(theirs.health))
        + 10 * (i32::from(mine.board_len) - i32::from(theirs.board_len))
        + strength(mine)
        - strength(theirs)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::game::Game;
    use crate::game::locm::battle::HIDDEN_DECKS;
    use crate::game::locm::plan::BattleBot;
    use crate::game::locm::plan::draft::DraftBot;
    use crate::game::locm::plan::seats::LocmBots;
    use crate::game::locm::view::View;
    use crate::game::locm::{Action, Config, LocmGame};

    /// The greedy bot skips summons that cannot win a tie and scores
    /// without playing; it must choose exactly what the plain definition
    /// (play every action, evaluate the result) chooses.
    #[test]
    fn greedy_matches_the_plain_definition() {
        let config = Config::bundled();
        let plain = |battle: &Battle, table: &CardTable| {
            let mut moves = Vec::new();
            battle.legal_moves_without_end(table, &mut moves);
            let mut best = (Move::EndTurn, evaluate(battle, battle.current));
            for candidate in moves {
                let mut next = *battle;
                next.apply(candidate, table, &HIDDEN_DECKS);
                let score = evaluate(&next, battle.current);
                if score > best.1 {
                    best = (candidate, score);
                }
            }
            best.0
        };
        let mut compared = 0;
        let mut chose_item = 0;
        let mut chose_fight = 0;
        for seed in 0..100 {
            let mut game = LocmGame::new(&config, seed);
            let mut bots = LocmBots::new([DraftBot::Random, DraftBot::Random], [BattleBot::Greedy; 2]);
            while game.winner().is_none() {
                let (action, _) = bots.decide(&game);
                if let (Action::Battle(chosen), View::Battle(view)) = (action, game.view()) {
                    assert_eq!(chosen, plain(&view.battle, game.table()), "seed {seed} tick {}", game.tick());
                    compared += 1;
                    chose_item += usize::from(matches!(chosen, Move::Use { .. }));
                    chose_fight += usize::from(matches!(chosen, Move::Attack { target: 1.., .. }));
                }
                game.step(action).unwrap();
            }
        }
        assert!(compared > 1000 && chose_item > 20 && chose_fight > 20, "{compared} {chose_item} {chose_fight}");
    }
}
