//! The simple battle bots, `random`, `pass` and `max-attack`, and
//! [`BattleBot::choose`], which plays any battle bot's turn (`greedy` is in
//! [`super::greedy`]). A battle bot sees the mover's view of the battle,
//! which hides the opponent's hand and both decks.

use super::BattleBot;
use super::greedy;
use crate::game::locm::battle::{Battle, Move};
use crate::game::locm::cards::CardTable;
use crate::rng::GameRng;

impl BattleBot {
    /// The action to play in `battle` (the mover's view of it). `moves` is
    /// a reused buffer. Returns the action and the candidates it weighed.
    pub(crate) fn choose(
        self,
        battle: &Battle,
        table: &CardTable,
        rng: &mut GameRng,
        moves: &mut Vec<Move>,
    ) -> (Move, u64) {
        moves.clear();
        match self {
            BattleBot::Pass => (Move::EndTurn, 0),
            BattleBot::Random => {
                battle.legal_moves(table, moves);
                (moves[rng.below(moves.len() as u32) as usize], moves.len() as u64)
            }
            BattleBot::MaxAttack => {
                battle.legal_moves_without_end(table, moves);
                (max_attack(battle, table, moves), moves.len() as u64)
            }
            BattleBot::Greedy => {
                battle.legal_moves_without_end(table, moves);
                (greedy::choose(battle, table, moves), moves.len() as u64)
            }
        }
    }
}

/// Summons the strongest affordable creature it can, then attacks with its
/// strongest ready creature (the opponent if allowed, else the first
/// guard), then ends the turn.
fn max_attack(battle: &Battle, table: &CardTable, moves: &[Move]) -> Move {
    let me = battle.me();
    let summon_attack =
        |instance: u8| me.find_hand(instance).map_or(-1, |index| i16::from(table.stats(me.hand[index].card).attack));
    let creature_attack = |instance: u8| me.find_creature(instance).map_or(-1, |index| me.board[index].attack);
    let mut best: Option<(Move, i16)> = None;
    for &candidate in moves {
        if let Move::Summon { instance, .. } = candidate {
            let attack = summon_attack(instance);
            if best.is_none_or(|(_, best_attack)| attack > best_attack) {
                best = Some((candidate, attack));
            }
        }
    }
    if let Some((summon, _)) = best {
        return summon;
    }
    for &candidate in moves {
        if let Move::Attack { attacker, target } = candidate {
            let attack = creature_attack(attacker);
            let better = match best {
                None => true,
                Some((Move::Attack { target: best_target, .. }, best_attack)) => {
                    attack > best_attack || (attack == best_attack && target == 0 && best_target != 0)
                }
                Some(_) => false,
            };
            if better {
                best = Some((candidate, attack));
            }
        }
    }
    best.map_or(Move::EndTurn, |(action, _)| action)
}
