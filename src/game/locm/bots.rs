//! The battle bots (`random`, `pass`, `max-attack`, `greedy`) and
//! [`LocmBots`], the planner that plays both seats of a game: each seat's
//! draft bot during the draft, its battle bot afterwards. Bots see only the
//! player's [`View`]; the greedy bot simulates its own actions on the view's
//! battle, which needs no hidden card (nothing is drawn mid-turn).

use super::baselines::DraftBot;
use super::battle::{Battle, Creature, Move, resolve_attack, resolve_attack_on_player, resolve_item};
use super::cards::CardTable;
use super::view::View;
use super::{Action, LocmGame};
use crate::game::Game;
use crate::plan::{Budget, Decision, PlanError, PlanStats, Planner};
use crate::rng::{GameRng, derive_seed};

/// A battle strategy.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BattleBot {
    /// Uniform among the legal actions, ending the turn included.
    Random,
    /// Always ends the turn.
    Pass,
    /// Summons the strongest affordable creature it can, then attacks with
    /// its strongest ready creature (the opponent if allowed, else the first
    /// guard), then ends the turn. Never uses items.
    MaxAttack,
    /// Takes the single action whose result scores best, until ending the
    /// turn scores at least as well (see [`evaluate`]).
    Greedy,
}

impl BattleBot {
    /// The bot's name on the command line.
    pub fn name(self) -> &'static str {
        match self {
            BattleBot::Random => "random",
            BattleBot::Pass => "pass",
            BattleBot::MaxAttack => "max-attack",
            BattleBot::Greedy => "greedy",
        }
    }

    /// The bot of a command-line name.
    pub fn from_name(name: &str) -> Option<BattleBot> {
        Some(match name {
            "random" => BattleBot::Random,
            "pass" => BattleBot::Pass,
            "max-attack" => BattleBot::MaxAttack,
            "greedy" => BattleBot::Greedy,
            _ => return None,
        })
    }

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
                let me = battle.current;
                let mut best = Move::EndTurn;
                let base_score = evaluate(battle, me);
                let mut best_score = base_score;
                let mut previous = Move::EndTurn;
                for &candidate in moves.iter() {
                    // The evaluation does not look at lanes, and ties keep the
                    // earlier action: a summon into lane 1 right after the same
                    // summon into lane 0 can never be chosen, so skip it.
                    if let (Move::Summon { instance, lane: 1 }, Move::Summon { instance: before, lane: 0 }) =
                        (candidate, previous)
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
                (best, moves.len() as u64)
            }
        }
    }
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

/// The published greedy evaluation, from `me`'s side: ±1000 for a decided
/// game, else 2 × the health difference, 10 × the difference in creatures
/// (summed over lanes), and the attack + defense of own creatures minus the
/// opponent's.
pub(crate) fn evaluate(battle: &Battle, me: u8) -> i32 {
    if let Some(winner) = battle.winner {
        return if winner == me { 1000 } else { -1000 };
    }
    let mine = &battle.players[usize::from(me)];
    let theirs = &battle.players[usize::from(1 - me)];
    let strength = |player: &super::battle::Player| -> i32 {
        player.board().iter().map(|creature| i32::from(creature.attack) + i32::from(creature.defense)).sum()
    };
    2 * (i32::from(mine.health) - i32::from(theirs.health))
        + 10 * (i32::from(mine.board_len) - i32::from(theirs.board_len))
        + strength(mine)
        - strength(theirs)
}

/// The planner for a whole game: a draft bot and a battle bot per seat.
/// Its random stream is derived from the game's seed when a game starts, so
/// a game's actions depend only on the seed and the bots.
#[derive(Clone, Debug)]
pub struct LocmBots {
    pub draft: [DraftBot; 2],
    pub battle: [BattleBot; 2],
    rng: GameRng,
    moves: Vec<Move>,
}

/// The stream label bots use under the game seed.
const BOT_STREAM: u64 = 0x6C6F_636D_626F_7473;

impl LocmBots {
    /// Player 0's and player 1's bots.
    pub fn new(draft: [DraftBot; 2], battle: [BattleBot; 2]) -> LocmBots {
        LocmBots { draft, battle, rng: GameRng::from_seed(0), moves: Vec::with_capacity(64) }
    }

    /// The action the bot of the player to move chooses, with the number of
    /// candidates it weighed.
    pub(crate) fn decide(&mut self, game: &LocmGame) -> (Action, u64) {
        if game.tick() == 0 {
            self.rng = GameRng::from_seed(derive_seed(game.seed(), BOT_STREAM));
        }
        let table = game.table();
        match game.view() {
            View::Draft(draft) => {
                let bot = &self.draft[usize::from(draft.player)];
                (Action::Pick(bot.choose(&draft, table, &mut self.rng)), 3)
            }
            View::Battle(view) => {
                let bot = self.battle[usize::from(view.battle.current)];
                let (action, weighed) = bot.choose(&view.battle, table, &mut self.rng, &mut self.moves);
                (Action::Battle(action), weighed)
            }
        }
    }
}

impl Planner<LocmGame> for LocmBots {
    fn name(&self) -> &'static str {
        "locm-bots"
    }

    fn params(&self) -> Vec<(String, String)> {
        vec![
            ("draft".to_string(), format!("{},{}", self.draft[0].name(), self.draft[1].name())),
            ("battle".to_string(), format!("{},{}", self.battle[0].name(), self.battle[1].name())),
        ]
    }

    fn next_action(&mut self, game: &LocmGame, _budget: &Budget) -> Result<Decision<Action>, PlanError> {
        let (action, nodes) = self.decide(game);
        let kind = if matches!(action, Action::Pick(_)) { "draft" } else { "battle" };
        Ok(Decision { action, planned: Some(PlanStats { kind, nodes, plan_len: 1, ..PlanStats::default() }) })
    }
}
