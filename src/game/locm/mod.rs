//! Legends of Code and Magic 1.2: the game state and its [`Game`]
//! implementation, which plays the draft and the battle one decision per
//! tick, with its replay encoding ([`Wire`]) and pictures ([`Show`]). The
//! configuration is in [`config`], the card list in [`cards`], the draft's
//! triples in [`draft`], the battle rules in [`battle`], what a player may
//! see in [`view`]; the bots are in [`plan`].
//!
//! One tick is one decision: a draft pick (player 0, then player 1, for each
//! of the 30 triples), or one battle action, or the end of a turn. Both
//! seats are played by the same planner, which must only look at
//! [`LocmGame::view`].

pub mod battle;
pub mod cards;
pub(crate) mod config;
pub(crate) mod draft;
pub(crate) mod java_random;
pub mod observe;
pub(crate) mod picture;
pub mod plan;
pub mod protocol;
pub mod view;

use std::fmt;
use std::sync::Arc;

pub use self::config::{Config, DeckRandomness, JavaSeeds, LocmSetup};

use self::battle::{Battle, DECK_SIZE, Decks, Move};
use self::cards::CardTable;
use self::draft::{Draft, chacha_triples, java_triples};
use self::java_random::JavaRandom;
use self::view::{DraftView, Performed, View};
use crate::game::{Game, GameSpec, IllegalAction, Outcome, OutcomeKind, Show, StateHasher, Status, Wire};
use crate::rng::GameRng;

/// Picks per player.
pub(crate) const PICKS: usize = DECK_SIZE;
/// The most actions a player can perform in one turn: at most 8 cards
/// played (the hand limit; nothing is drawn mid-turn) and one attack per
/// creature that was on the board or arrived with Charge (6 + 8).
pub(crate) const MAX_ACTIONS_PER_TURN: usize = 24;

/// Where the deck shuffle's randomness comes from after the draft.
#[derive(Clone, Debug)]
enum Shuffler {
    ChaCha(Box<GameRng>),
    Java([i64; 2]),
}

/// One decision: a draft pick (0..=2 of the triple) or a battle action.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Action {
    Pick(u8),
    Battle(Move),
}

impl fmt::Display for Action {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let target = |target: u8| if target == 0 { -1 } else { i32::from(target) };
        match *self {
            Action::Pick(index) => write!(f, "PICK {index}"),
            Action::Battle(Move::Summon { instance, lane }) => write!(f, "SUMMON {instance} {lane}"),
            Action::Battle(Move::Attack { attacker, target: to }) => write!(f, "ATTACK {attacker} {}", target(to)),
            Action::Battle(Move::Use { item, target: to }) => write!(f, "USE {item} {}", target(to)),
            Action::Battle(Move::EndTurn) => f.write_str("END"),
        }
    }
}

/// A game of LOCM: the draft, then the battle.
#[derive(Clone, Debug)]
pub struct LocmGame {
    table: Arc<CardTable>,
    seed: u64,
    tick: u32,
    /// The card ids of the 30 triples.
    triples: Draft,
    /// Each player's picks, in order.
    picks: [[u8; PICKS]; 2],
    /// Picks made by both players together: pick number `n_picks / 2` is
    /// being made by player `n_picks % 2`.
    n_picks: u8,
    shuffler: Shuffler,
    /// `Some` once the draft is over.
    battle: Option<Battle>,
    /// The shuffled decks, once the draft is over.
    decks: Decks,
    /// What each player did in its latest turn (the opponent sees it).
    performed: [[Performed; MAX_ACTIONS_PER_TURN]; 2],
    n_performed: [u8; 2],
}

impl LocmGame {
    /// A game seeded with the reference referee's explicit seeds (Java mode).
    pub fn with_java_seeds(config: &Config, seeds: JavaSeeds) -> LocmGame {
        let triples = java_triples(config.table(), seeds.draft);
        LocmGame::from_parts(config, 0, triples, Shuffler::Java(seeds.shuffle))
    }

    fn from_parts(config: &Config, seed: u64, triples: Draft, shuffler: Shuffler) -> LocmGame {
        LocmGame {
            table: Arc::clone(config.table()),
            seed,
            tick: 0,
            triples,
            picks: [[0; PICKS]; 2],
            n_picks: 0,
            shuffler,
            battle: None,
            decks: [[0; DECK_SIZE]; 2],
            performed: [[Performed::default(); MAX_ACTIONS_PER_TURN]; 2],
            n_performed: [0; 2],
        }
    }

    /// The 30 triples [`Game::new`] draws for `seed` with our own
    /// randomness: the draft alone, to be played many times with
    /// [`LocmGame::on_draft`].
    pub(crate) fn draw_draft(config: &Config, seed: u64) -> Draft {
        chacha_triples(&mut GameRng::from_seed(seed), config.table().len())
    }

    /// A game on the given triples whose deck shuffles (and bots' streams)
    /// come from `seed`: one draft played with many shuffles, as the draft
    /// evolution plays it. Such a game cannot be recorded (a replay header
    /// holds the seed, not the triples).
    pub(crate) fn on_draft(config: &Config, triples: Draft, seed: u64) -> LocmGame {
        let shuffler = Shuffler::ChaCha(Box::new(GameRng::from_seed(seed)));
        LocmGame::from_parts(config, seed, triples, shuffler)
    }

    /// The seed the game was built with (bots derive their own streams from it).
    pub(crate) fn seed(&self) -> u64 {
        self.seed
    }

    /// Whether `action` may be played now: [`Game::step`] would take it.
    pub fn is_legal(&self, action: Action) -> bool {
        match (action, &self.battle) {
            (Action::Pick(index), None) => index <= 2,
            (Action::Battle(action), Some(battle)) => battle.winner.is_none() && battle.is_legal(action, &self.table),
            _ => false,
        }
    }

    /// The card table the game plays with.
    pub fn table(&self) -> &Arc<CardTable> {
        &self.table
    }

    /// The battle, once the draft is over.
    pub(crate) fn battle(&self) -> Option<&Battle> {
        self.battle.as_ref()
    }

    /// The player who decides the next tick.
    pub fn player_to_move(&self) -> u8 {
        match &self.battle {
            Some(battle) => battle.current,
            None => self.n_picks % 2,
        }
    }

    /// The winner, once there is one.
    pub fn winner(&self) -> Option<u8> {
        self.battle.as_ref().and_then(|battle| battle.winner)
    }

    /// Each player's picks so far.
    pub(crate) fn picks(&self, player: u8) -> &[u8] {
        let made = usize::from(self.n_picks / 2) + usize::from(player == 0 && self.n_picks % 2 == 1);
        &self.picks[usize::from(player)][..made.min(PICKS)]
    }

    /// What the player to move may see.
    pub fn view(&self) -> View {
        let player = self.player_to_move();
        match &self.battle {
            None => {
                let pick = self.n_picks / 2;
                let mut picked = [0; PICKS];
                let own = self.picks(player);
                picked[..own.len()].copy_from_slice(own);
                View::Draft(DraftView {
                    player,
                    pick,
                    choices: self.triples[usize::from(pick)],
                    picked,
                    n_picked: own.len() as u8,
                    opponent_picked: self.picks(1 - player).len() as u8,
                })
            }
            Some(battle) => {
                let opponent = usize::from(1 - player);
                View::Battle(view::BattleView {
                    battle: battle.hidden_from(player),
                    opponent_actions: self.performed[opponent],
                    n_opponent_actions: self.n_performed[opponent],
                })
            }
        }
    }

    fn finish_draft(&mut self) {
        let mut decks = self.picks;
        match &mut self.shuffler {
            Shuffler::ChaCha(rng) => {
                for deck in decks.iter_mut() {
                    rng.shuffle(deck);
                }
            }
            Shuffler::Java(seeds) => {
                for (deck, seed) in decks.iter_mut().zip(seeds.iter()) {
                    JavaRandom::new(*seed).shuffle(deck);
                }
            }
        }
        self.decks = decks;
        self.battle = Some(Battle::start(&self.decks));
    }

    fn illegal(&self, action: Action, reason: &'static str) -> IllegalAction {
        IllegalAction { action: action.to_string(), tick: self.tick, reason }
    }
}

impl Game for LocmGame {
    type Config = Config;
    type Action = Action;
    const NAME: &'static str = "locm";

    fn new(config: &Config, seed: u64) -> LocmGame {
        match config.randomness() {
            DeckRandomness::ChaCha => {
                let mut rng = GameRng::from_seed(seed);
                let triples = chacha_triples(&mut rng, config.table().len());
                LocmGame::from_parts(config, seed, triples, Shuffler::ChaCha(Box::new(rng)))
            }
            DeckRandomness::Java => {
                let mut game = LocmGame::with_java_seeds(config, JavaSeeds::from_game_seed(seed));
                game.seed = seed;
                game
            }
        }
    }

    fn legal_actions(&self, out: &mut Vec<Action>) {
        match &self.battle {
            None => out.extend((0..3).map(Action::Pick)),
            Some(battle) => {
                if battle.winner.is_some() {
                    return;
                }
                battle.for_each_move(&self.table, |action| out.push(Action::Battle(action)));
                out.push(Action::Battle(Move::EndTurn));
            }
        }
    }

    fn step(&mut self, action: Action) -> Result<(), IllegalAction> {
        match (action, &mut self.battle) {
            (Action::Pick(index), None) => {
                if index > 2 {
                    return Err(self.illegal(action, "a pick is 0, 1 or 2"));
                }
                let player = usize::from(self.n_picks % 2);
                let pick = usize::from(self.n_picks / 2);
                self.picks[player][pick] = self.triples[pick][usize::from(index)];
                self.n_picks += 1;
                if usize::from(self.n_picks) == 2 * PICKS {
                    self.finish_draft();
                }
            }
            (Action::Pick(_), Some(_)) => return Err(self.illegal(action, "the draft is over")),
            (Action::Battle(_), None) => return Err(self.illegal(action, "the draft is not over")),
            (Action::Battle(action_move), Some(battle)) => {
                if !battle.is_legal(action_move, &self.table) {
                    return Err(self.illegal(action, "not a legal battle action now"));
                }
                let player = usize::from(battle.current);
                if action_move != Move::EndTurn {
                    let record = Performed::describe(battle, action_move);
                    let count = usize::from(self.n_performed[player]);
                    if count < MAX_ACTIONS_PER_TURN {
                        self.performed[player][count] = record;
                        self.n_performed[player] += 1;
                    }
                }
                battle.apply(action_move, &self.table, &self.decks);
                if action_move == Move::EndTurn {
                    self.n_performed[usize::from(battle.current)] = 0;
                }
            }
        }
        self.tick += 1;
        Ok(())
    }

    // Inline: a session asks this before every tick, and out of line
    // the question cost more than the loop's other bookkeeping together.
    #[inline]
    fn status(&self) -> Status {
        match self.winner() {
            None => Status::Running,
            Some(0) => Status::Over(Outcome::new(OutcomeKind::Won, self.end_reason(0))),
            Some(_) => Status::Over(Outcome::new(OutcomeKind::Lost, self.end_reason(1))),
        }
    }

    fn tick(&self) -> u32 {
        self.tick
    }

    /// +1 once player 0 has won, -1 once player 1 has, 0 while running.
    fn score(&self) -> i64 {
        match self.winner() {
            None => 0,
            Some(0) => 1,
            Some(_) => -1,
        }
    }

    fn hash_state(&self, hasher: &mut StateHasher) {
        hasher.u32(self.tick);
        hasher.u8(self.n_picks);
        for triple in &self.triples {
            hasher.bytes(triple);
        }
        for picks in &self.picks {
            hasher.bytes(picks);
        }
        match &self.shuffler {
            Shuffler::ChaCha(rng) => hasher.u128(rng.word_pos()),
            Shuffler::Java(seeds) => {
                hasher.u64(seeds[0] as u64);
                hasher.u64(seeds[1] as u64);
            }
        }
        if let Some(battle) = &self.battle {
            for deck in &self.decks {
                hasher.bytes(deck);
            }
            battle.hash_into(hasher);
            for (records, &count) in self.performed.iter().zip(self.n_performed.iter()) {
                hasher.u8(count);
                for record in &records[..usize::from(count)] {
                    hasher.bytes(&[record.kind as u8, record.card, record.instance, record.argument as u8]);
                }
            }
        }
    }
}

impl Wire for LocmGame {
    fn action_code(action: Action) -> u32 {
        match action {
            Action::Pick(index) => u32::from(index),
            Action::Battle(Move::EndTurn) => 3,
            Action::Battle(Move::Summon { instance, lane }) => 1 << 16 | u32::from(instance) << 8 | u32::from(lane),
            Action::Battle(Move::Attack { attacker, target }) => 2 << 16 | u32::from(attacker) << 8 | u32::from(target),
            Action::Battle(Move::Use { item, target }) => 3 << 16 | u32::from(item) << 8 | u32::from(target),
        }
    }

    fn action_from_code(code: u32) -> Option<Action> {
        let kind = code >> 16;
        let instance = ((code >> 8) & 0xFF) as u8;
        let argument = (code & 0xFF) as u8;
        let valid_instance = (1..=battle::MAX_INSTANCE as u8).contains(&instance);
        let valid_target = usize::from(argument) <= battle::MAX_INSTANCE;
        match kind {
            0 if code <= 2 => Some(Action::Pick(code as u8)),
            0 if code == 3 => Some(Action::Battle(Move::EndTurn)),
            1 if valid_instance && usize::from(argument) < battle::LANES => {
                Some(Action::Battle(Move::Summon { instance, lane: argument }))
            }
            2 if valid_instance && valid_target => {
                Some(Action::Battle(Move::Attack { attacker: instance, target: argument }))
            }
            3 if valid_instance && valid_target => Some(Action::Battle(Move::Use { item: instance, target: argument })),
            _ => None,
        }
    }

    /// The highest kind (3, use an item) with the highest instance and target.
    fn action_code_bound(_config: &Config) -> u32 {
        (3 << 16 | (battle::MAX_INSTANCE as u32) << 8 | battle::MAX_INSTANCE as u32) + 1
    }

    fn spec(config: &Config) -> GameSpec {
        GameSpec::Locm(config.clone())
    }

    fn config_of(spec: GameSpec) -> Option<Config> {
        match spec {
            GameSpec::Locm(config) => Some(config),
            _ => None,
        }
    }
}

impl Show for LocmGame {
    fn render(&self) -> String {
        view::render(self)
    }

    type Snapshot = picture::LocmSnapshot;

    fn snapshot(&self) -> picture::LocmSnapshot {
        self.snapshot_state()
    }

    fn draw(&self) -> crate::game::picture::Picture {
        self.draw_board()
    }

    fn describe(config: &Config) -> String {
        let randomness = match config.randomness() {
            DeckRandomness::ChaCha => "chacha",
            DeckRandomness::Java => "java",
        };
        format!("LOCM 1.2, {} cards, {randomness} draft and shuffle", config.table().len())
    }
}

impl LocmGame {
    fn end_reason(&self, winner: u8) -> String {
        let Some(battle) = &self.battle else { return String::new() };
        end_reason(winner, battle.turn, battle.players[usize::from(1 - winner)].health)
    }
}

/// `player {winner} wins on turn {turn}, player {loser} at {health}
/// health`, written piece by piece: a session asks for it once a game,
/// and `format!` took 1,500 instructions of a quick game's 130,000.
fn end_reason(winner: u8, turn: i16, loser_health: i16) -> String {
    let number = |reason: &mut String, number: i16| reason.push_str(itoa::Buffer::new().format(number));
    let mut reason = String::with_capacity(48);
    reason.push_str("player ");
    reason.push(char::from(b'0' + winner));
    reason.push_str(" wins on turn ");
    number(&mut reason, turn);
    reason.push_str(", player ");
    reason.push(char::from(b'1' - winner));
    reason.push_str(" at ");
    number(&mut reason, loser_health);
    reason.push_str(" health");
    reason
}

#[cfg(test)]
mod tests;
