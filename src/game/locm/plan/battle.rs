//! The simple battle bots, `random`, `pass` and `max-attack`, and
//! [`BattleBot::choose`], which plays any battle bot's turn (`greedy` is in
//! [`super::greedy`], `search` in [`super::search`]). A battle bot sees the
//! mover's view of the battle, which hides the opponent's hand and both
//! decks.

use super::search::{DEFAULT_BUDGET, FAST_BUDGET, Searcher};
use super::{BattleBot, greedy};
use crate::game::locm::battle::{Battle, Move};
use crate::game::locm::cards::CardTable;
use crate::rng::GameRng;

/// A seat's reusable battle buffers: the move list, and the search bot's
/// tree and plan.
#[derive(Debug)]
pub(crate) struct BattleScratch {
    pub(crate) moves: Vec<Move>,
    pub(crate) search: Searcher,
}

/// Room for the moves of nearly any turn from the start: a game's fresh
/// seats would otherwise grow their list seven or eight times a game.
const MOVES_ROOM: usize = 64;

impl Default for BattleScratch {
    fn default() -> BattleScratch {
        BattleScratch { moves: Vec::with_capacity(MOVES_ROOM), search: Searcher::default() }
    }
}

/// Keeps the move list's room: a session's planners are clones of one,
/// and a `Vec`'s clone has only its length's.
impl Clone for BattleScratch {
    fn clone(&self) -> BattleScratch {
        let mut moves = Vec::with_capacity(self.moves.capacity());
        moves.extend_from_slice(&self.moves);
        BattleScratch { moves, search: self.search.clone() }
    }
}

impl BattleBot {
    /// The action to play in `battle` (the mover's view of it), with the
    /// seat's `scratch` buffers. `out_of_time` is the search's time guard
    /// (in-process play passes one that is never out of time). Returns the
    /// action and the candidates it weighed.
    pub(crate) fn choose(
        self,
        battle: &Battle,
        table: &CardTable,
        rng: &mut GameRng,
        scratch: &mut BattleScratch,
        out_of_time: &dyn Fn() -> bool,
    ) -> (Move, u64) {
        let moves = &mut scratch.moves;
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
            BattleBot::Search => scratch.search.choose(battle, table, DEFAULT_BUDGET, out_of_time),
            BattleBot::SearchFast => scratch.search.choose(battle, table, FAST_BUDGET, out_of_time),
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
