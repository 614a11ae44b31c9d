//! The turn search: iterative deepening over the mover's action sequences
//! (summons, attacks and items in any order), every visited state scored
//! as if the turn ended there ([`eval::after_reply`]), states at the depth
//! limit finished greedily. A transposition table keyed by a hash of the
//! turn's changing fields drops orders that reach a state already searched
//! at the same or a shallower depth (two attacks on the face in either
//! order, a summon before or after an unrelated attack). The buffers live
//! in [`Tree`] and are reused from turn to turn: the search allocates
//! nothing once they have grown.

use super::eval::{self, NO_DECKS};
use crate::game::locm::battle::{Battle, Move};
use crate::game::locm::cards::CardTable;

/// Slots in the transposition table (a power of two).
const TABLE_SLOTS: usize = 1 << 14;
/// The deepest iteration: more actions than any turn can hold.
const MAX_DEPTH: u8 = 40;
/// The clock is asked again once this many states have been scored since
/// it last was (checked before each leaf).
const CLOCK_EVERY: u64 = 32;

/// One transposition-table slot: the state's key, the iteration that wrote
/// it (older slots count as empty, so nothing is cleared between
/// iterations) and the depth it was searched at.
#[derive(Clone, Copy, Debug, Default)]
struct Slot {
    key: u64,
    stamp: u32,
    depth: u8,
}

/// How a search ended and what it cost.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct Outcome {
    /// States scored, the opponent's replies included (the budget's unit).
    pub(crate) evaluations: u64,
    /// The deepest iteration started.
    pub(crate) depth: u8,
    /// The node budget ran out before the tree was searched to its end.
    pub(crate) budget_stop: bool,
    /// The time guard stopped it.
    pub(crate) time_stop: bool,
}

/// The search's reusable buffers.
#[derive(Clone, Default)]
pub(crate) struct Tree {
    slots: Vec<Slot>,
    /// Every open node's candidate actions, one segment per depth.
    moves: Vec<Move>,
    /// The actions from the root to the current node.
    path: Vec<Move>,
    stamp: u32,
    best_score: i32,
    evaluations: u64,
    budget: u64,
    /// The scored-state count at which the clock is next asked.
    next_clock: u64,
    frontier_hit: bool,
    outcome: Outcome,
}

impl std::fmt::Debug for Tree {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Tree").field("slots", &self.slots.len()).field("outcome", &self.outcome).finish()
    }
}

/// What one search reads: the position, the rules' table, the budget and
/// the time guard.
pub(crate) struct Limits<'a> {
    pub(crate) budget: u64,
    pub(crate) out_of_time: &'a dyn Fn() -> bool,
}

impl Tree {
    /// Searches the turn of the player to move in `root` and writes the
    /// best action sequence found to `plan` (empty: end the turn now).
    pub(crate) fn search(
        &mut self,
        root: &Battle,
        table: &CardTable,
        limits: &Limits,
        plan: &mut Vec<Move>,
    ) -> Outcome {
        if self.slots.is_empty() {
            self.slots = vec![Slot::default(); TABLE_SLOTS];
        }
        self.moves.clear();
        self.path.clear();
        plan.clear();
        self.best_score = i32::MIN;
        self.evaluations = 0;
        self.budget = limits.budget;
        self.next_clock = 0;
        self.outcome = Outcome::default();
        for limit in 1..=MAX_DEPTH {
            self.stamp = self.stamp.wrapping_add(1).max(1);
            self.frontier_hit = false;
            self.outcome.depth = limit;
            self.visit(root, 0, limit, table, limits, plan);
            if self.outcome.budget_stop || self.outcome.time_stop || !self.frontier_hit {
                break;
            }
        }
        self.outcome.evaluations = self.evaluations;
        self.outcome
    }

    /// Whether the search must stop now (and why, recorded).
    fn must_stop(&mut self, limits: &Limits) -> bool {
        if self.outcome.budget_stop || self.outcome.time_stop {
            return true;
        }
        if self.evaluations >= self.budget {
            self.outcome.budget_stop = true;
            return true;
        }
        // The count grows by more than one per leaf (the reply's states),
        // so the clock is due once it passes the next mark, not on a multiple.
        if self.evaluations >= self.next_clock {
            self.next_clock = self.evaluations + CLOCK_EVERY;
            if (limits.out_of_time)() {
                self.outcome.time_stop = true;
                return true;
            }
        }
        false
    }

    /// Marks `state` as searched at `depth`; false if it already was at
    /// that depth or a shallower one in this iteration.
    fn first_visit(&mut self, state: &Battle, depth: u8) -> bool {
        let key = turn_key(state);
        let mask = self.slots.len() - 1;
        let mut index = key as usize & mask;
        for _ in 0..8 {
            let slot = &mut self.slots[index];
            if slot.stamp != self.stamp {
                *slot = Slot { key, stamp: self.stamp, depth };
                return true;
            }
            if slot.key == key {
                if slot.depth <= depth {
                    return false;
                }
                slot.depth = depth;
                return true;
            }
            index = (index + 1) & mask;
        }
        // A crowded neighbourhood: search the state again rather than lose it.
        true
    }

    /// Scores ending the turn in `state` (reached by `self.path`), keeping
    /// the path if it is the best so far.
    fn score_leaf(&mut self, state: &Battle, table: &CardTable, plan: &mut Vec<Move>) {
        self.evaluations += 1;
        let score = eval::after_reply(state, state.current, table, &mut self.evaluations);
        if score > self.best_score {
            self.best_score = score;
            plan.clear();
            plan.extend_from_slice(&self.path);
        }
    }

    fn visit(
        &mut self,
        state: &Battle,
        depth: u8,
        limit: u8,
        table: &CardTable,
        limits: &Limits,
        plan: &mut Vec<Move>,
    ) {
        if self.must_stop(limits) || !self.first_visit(state, depth) {
            return;
        }
        self.score_leaf(state, table, plan);
        if state.winner.is_some() {
            return;
        }
        let start = self.moves.len();
        let moves = &mut self.moves;
        state.for_each_move(table, |action| {
            if useful(state, action) {
                moves.push(action);
            }
        });
        let end = self.moves.len();
        if start == end {
            return;
        }
        if depth == limit {
            self.frontier_hit = true;
            self.finish_greedily(state, table, plan);
        } else {
            for index in start..end {
                let action = self.moves[index];
                let mut next = *state;
                next.apply(action, table, &NO_DECKS);
                self.path.push(action);
                self.visit(&next, depth + 1, limit, table, limits, plan);
                self.path.pop();
                if self.outcome.budget_stop || self.outcome.time_stop {
                    break;
                }
            }
        }
        self.moves.truncate(start);
    }

    /// At the depth limit: plays the action that raises the static score
    /// most until none does, then scores the end of that turn.
    fn finish_greedily(&mut self, state: &Battle, table: &CardTable, plan: &mut Vec<Move>) {
        let me = state.current;
        let mut state = *state;
        let before = self.path.len();
        let mut score = eval::static_score(&state, me, table);
        while state.winner.is_none() {
            let mut best: Option<(Move, i32)> = None;
            let evaluations = &mut self.evaluations;
            state.for_each_move(table, |action| {
                if !useful(&state, action) {
                    return;
                }
                let mut next = state;
                next.apply(action, table, &NO_DECKS);
                *evaluations += 1;
                let after = eval::static_score(&next, me, table);
                if after > best.map_or(score, |(_, best_score)| best_score) {
                    best = Some((action, after));
                }
            });
            let Some((action, after)) = best else { break };
            state.apply(action, table, &NO_DECKS);
            self.path.push(action);
            score = after;
        }
        self.score_leaf(&state, table, plan);
        self.path.truncate(before);
    }
}

/// Whether `action` can change anything worth searching: a creature with
/// no attack gains nothing by attacking (it deals no damage, breaks no
/// Ward, and only takes damage).
fn useful(state: &Battle, action: Move) -> bool {
    match action {
        Move::Attack { attacker, .. } => {
            let me = state.me();
            me.find_creature(attacker).is_some_and(|index| me.board[index].attack > 0)
        }
        _ => true,
    }
}

/// A hash of what a turn's actions change: both healths, the mover's mana,
/// draws due and hand (as a set of instance ids), and both boards. Mixed by
/// xxh3 over this canonical encoding.
fn turn_key(state: &Battle) -> u64 {
    let mut bytes = [0u8; 13 + 2 * 6 * 7];
    let me = state.me();
    let mut hand: u64 = 0;
    for card in me.hand() {
        hand |= 1 << (card.instance & 63);
    }
    bytes[..8].copy_from_slice(&hand.to_le_bytes());
    bytes[8] = me.mana as u8;
    bytes[9] = me.next_turn_draw;
    bytes[10] = state.players[0].health as u8;
    bytes[11] = state.players[1].health as u8;
    bytes[12] = state.winner.map_or(2, |winner| winner);
    for (side, player) in state.players.iter().enumerate() {
        let mut at = 13 + side * 6 * 7;
        for creature in player.board() {
            bytes[at..at + 7].copy_from_slice(&[
                creature.instance,
                creature.lane,
                creature.attack as u8,
                creature.defense as u8,
                creature.keywords.0,
                u8::from(creature.can_attack),
                u8::from(creature.has_attacked),
            ]);
            at += 7;
        }
    }
    xxhash_rust::xxh3::xxh3_64(&bytes)
}
