//! Pipes (Simon Tatham's "Net"): the game state, its action and its rules.
//!
//! A W×H grid of pipe tiles, each a 4-bit connection mask (Up=1, Right=2,
//! Down=4, Left=8). One action rotates one tile a quarter turn clockwise,
//! anticlockwise, or a half turn. The puzzle is solved when every tile with
//! a pipe is joined to the source in one network with no open end, no pipe
//! into the border (non-wrapping boards) and no loop. Empty tiles (mask 0)
//! are accepted and take no part. The game draws no random numbers: the
//! puzzle is fixed by the file, so the seed is ignored.
//!
//! The rules, one job per file: `grid` (tile masks, turns and the neighbour
//! relation), `flaw` (the solved check), `config` (the setup and the
//! validated [`Config`]), `text` (the puzzle file format), [`picture`]
//! (text, snapshots and pictures), and this file (the game).
//! The planners (`solve`, `dfs`, `astar`) and their registry live in
//! [`plan`]; the generator, which proves uniqueness with the solver, in
//! [`generate`].

mod config;
mod flaw;
pub mod generate;
mod grid;
pub(crate) mod picture;
pub mod plan;
mod text;

use std::fmt;
use std::sync::Arc;

pub(crate) use config::MAX_SIDE;
pub use config::{Config, MAX_SEARCH_PATH, PipesSetup};
pub use flaw::find_flaw;
pub use grid::Grid;
pub use grid::{DIR_BITS, opposite, rotate_by};
pub use text::Puzzle;

use crate::game::{Game, GameSpec, IllegalAction, Outcome, OutcomeKind, StateHasher, Status, Wire};

/// A quarter turn clockwise, one anticlockwise, or a half turn.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) enum Turn {
    Clockwise = 0,
    Anticlockwise = 1,
    Half = 2,
}

impl Turn {
    /// The same turn as a number of clockwise quarter turns.
    pub(crate) const fn quarter_turns(self) -> u8 {
        match self {
            Turn::Clockwise => 1,
            Turn::Half => 2,
            Turn::Anticlockwise => 3,
        }
    }

    /// The one turn that makes `quarter_turns` clockwise quarter turns, or
    /// `None` for a whole number of turns (nothing to do).
    pub(crate) const fn from_quarter_turns(quarter_turns: u8) -> Option<Turn> {
        match quarter_turns % 4 {
            1 => Some(Turn::Clockwise),
            2 => Some(Turn::Half),
            3 => Some(Turn::Anticlockwise),
            _ => None,
        }
    }

    fn from_code(code: u32) -> Option<Turn> {
        match code {
            0 => Some(Turn::Clockwise),
            1 => Some(Turn::Anticlockwise),
            2 => Some(Turn::Half),
            _ => None,
        }
    }

    fn name(self) -> &'static str {
        match self {
            Turn::Clockwise => "cw",
            Turn::Anticlockwise => "ccw",
            Turn::Half => "half",
        }
    }
}

/// The action of a Pipes tick: turn one tile (row-major index).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Rotate {
    pub(crate) tile: u32,
    pub(crate) turn: Turn,
}

impl fmt::Display for Rotate {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "tile {} {}", self.tile, self.turn.name())
    }
}

/// A Pipes game in progress: the tiles as currently turned.
#[derive(Clone, Debug)]
pub struct PipesGame {
    config: Arc<Config>,
    tiles: Vec<u8>,
    tick: u32,
    /// Pipe ends not met by a pipe from the neighbour (border ends included):
    /// kept up to date per move so that the full solved check runs only
    /// when this is zero.
    unmatched_ends: u32,
    /// Pipe ends on the board: a rotation moves a tile's ends, never adds
    /// or removes one, so they are counted once (the score is asked for
    /// after every move, and a count costs a pass over the board).
    total_ends: u32,
    outcome: Option<Outcome>,
}

impl PipesGame {
    pub(crate) fn config(&self) -> &Config {
        &self.config
    }
    /// The tiles as currently turned.
    pub fn tiles(&self) -> &[u8] {
        &self.tiles
    }

    /// Unmatched pipe ends of `tile` (0..=4).
    fn unmatched_ends_of(&self, tile: usize) -> u32 {
        let grid = self.config.grid();
        let mask = self.tiles[tile];
        (0..4)
            .filter(|&dir| {
                mask & DIR_BITS[dir] != 0
                    && grid.neighbour(tile, dir).is_none_or(|other| self.tiles[other] & DIR_BITS[opposite(dir)] == 0)
            })
            .count() as u32
    }

    /// Unmatched ends of `tile` and of its neighbours whose matching depends
    /// on it (each neighbour counted once, even on tiny wrapping boards).
    fn unmatched_ends_around(&self, tile: usize) -> u32 {
        let grid = self.config.grid();
        let mut around = [tile; 5];
        let mut n = 1;
        for dir in 0..4 {
            if let Some(other) = grid.neighbour(tile, dir) {
                if !around[..n].contains(&other) {
                    around[n] = other;
                    n += 1;
                }
            }
        }
        around[..n].iter().map(|&tile| self.unmatched_ends_of(tile)).sum()
    }

    fn update_outcome(&mut self) {
        if self.unmatched_ends == 0 && find_flaw(self.config.grid(), self.config.source(), &self.tiles).is_ok() {
            self.outcome = Some(Outcome::new(OutcomeKind::Won, format!("solved in {} moves", self.tick)));
        } else if self.tick >= self.config.max_ticks() {
            self.outcome =
                Some(Outcome::new(OutcomeKind::Stalled, format!("not solved after {} moves", self.config.max_ticks())));
        }
    }
}

impl Game for PipesGame {
    type Config = Config;
    type Action = Rotate;
    const NAME: &'static str = "pipes";

    /// The seed is ignored: a puzzle has no randomness once it is laid out.
    fn new(config: &Config, _seed: u64) -> PipesGame {
        let mut game = PipesGame {
            config: Arc::new(config.clone()),
            tiles: config.tiles().to_vec(),
            tick: 0,
            unmatched_ends: 0,
            total_ends: config.tiles().iter().map(|mask| mask.count_ones()).sum(),
            outcome: None,
        };
        game.unmatched_ends = (0..game.tiles.len()).map(|tile| game.unmatched_ends_of(tile)).sum();
        game.update_outcome();
        game
    }

    fn legal_actions(&self, out: &mut Vec<Rotate>) {
        if self.outcome.is_some() {
            return;
        }
        for tile in 0..self.tiles.len() as u32 {
            for turn in [Turn::Clockwise, Turn::Anticlockwise, Turn::Half] {
                out.push(Rotate { tile, turn });
            }
        }
    }

    fn step(&mut self, action: Rotate) -> Result<(), IllegalAction> {
        let illegal = |reason| Err(IllegalAction { action: action.to_string(), tick: self.tick, reason });
        if self.outcome.is_some() {
            return illegal("the game is over");
        }
        let tile = action.tile as usize;
        if tile >= self.tiles.len() {
            return illegal("no such tile");
        }
        let before = self.unmatched_ends_around(tile);
        self.tiles[tile] = rotate_by(self.tiles[tile], action.turn.quarter_turns());
        let after = self.unmatched_ends_around(tile);
        self.unmatched_ends = self.unmatched_ends + after - before;
        self.tick += 1;
        self.update_outcome();
        Ok(())
    }

    fn status(&self) -> Status {
        match &self.outcome {
            None => Status::Running,
            Some(outcome) => Status::Over(outcome.clone()),
        }
    }

    fn tick(&self) -> u32 {
        self.tick
    }

    /// Pipe ends joined to a neighbour's: rises towards the total as the
    /// puzzle comes together.
    fn score(&self) -> i64 {
        i64::from(self.total_ends) - i64::from(self.unmatched_ends)
    }

    fn hash_state(&self, hasher: &mut StateHasher) {
        hasher.u32(self.tick);
        hasher.u32(self.tiles.len() as u32);
        hasher.bytes(&self.tiles);
        hasher.u8(match &self.outcome {
            None => 0,
            Some(outcome) => 1 + outcome.kind as u8,
        });
    }
}

impl Wire for PipesGame {
    fn action_code(action: Rotate) -> u32 {
        action.tile * 3 + action.turn as u32
    }

    fn action_from_code(code: u32) -> Option<Rotate> {
        Some(Rotate { tile: code / 3, turn: Turn::from_code(code % 3)? })
    }

    /// Three turns of each tile: `tile * 3 + turn`.
    fn action_code_bound(config: &Config) -> u32 {
        (config.grid().n_tiles() as u32).saturating_mul(3)
    }

    fn spec(config: &Config) -> GameSpec {
        GameSpec::Pipes(config.clone())
    }

    fn config_of(spec: GameSpec) -> Option<Config> {
        match spec {
            GameSpec::Pipes(config) => Some(config),
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::grid::rotate_cw;
    use super::*;
    use crate::game::Show;
    use crate::map::Level;

    fn config(text: &str) -> Config {
        Config::try_from(Puzzle::parse(text).expect("parses").setup).expect("validates")
    }

    #[test]
    fn rotation_follows_the_formula_and_cycles() {
        // Up -> right -> down -> left -> up.
        assert_eq!(rotate_cw(1), 2);
        assert_eq!(rotate_cw(2), 4);
        assert_eq!(rotate_cw(4), 8);
        assert_eq!(rotate_cw(8), 1);
        // A vertical straight becomes horizontal; an up-right bend right-down.
        assert_eq!(rotate_cw(0x5), 0xa);
        assert_eq!(rotate_cw(0x3), 0x6);
        assert_eq!(rotate_cw(0x7), 0xe);
        for mask in 0..16u8 {
            assert_eq!(rotate_by(mask, 4), mask);
            assert_eq!(rotate_by(mask, 1), ((mask << 1) | (mask >> 3)) & 0xF);
            assert_eq!(mask.count_ones(), rotate_cw(mask).count_ones());
            for turn in [Turn::Clockwise, Turn::Anticlockwise, Turn::Half] {
                let code = PipesGame::action_code(Rotate { tile: 7, turn });
                assert_eq!(PipesGame::action_from_code(code), Some(Rotate { tile: 7, turn }));
            }
            // Clockwise then anticlockwise is no turn at all.
            assert_eq!(rotate_by(rotate_by(mask, Turn::Clockwise.quarter_turns()), 3), mask);
        }
        assert_eq!(PipesGame::action_from_code(3 * 5 + 3), Some(Rotate { tile: 6, turn: Turn::Clockwise }));
    }

    #[test]
    fn game_detects_the_solution_and_counts_moves() {
        let config = config("3 1 nowrap 1 0\n4a1\n");
        let mut game = PipesGame::new(&config, 99);
        assert_eq!(game.status(), Status::Running);
        assert_eq!(game.score(), 0, "no end is joined yet");
        let (hash, picture) = (game.state_hash(), game.render());
        assert_eq!(PipesGame::new(&config, 1).state_hash(), hash, "the seed plays no part");
        game.step(Rotate { tile: 0, turn: Turn::Anticlockwise }).unwrap();
        assert_eq!(game.tiles(), [2, 0xa, 1]);
        assert_eq!(game.status(), Status::Running);
        assert_eq!(game.score(), 2);
        game.step(Rotate { tile: 2, turn: Turn::Anticlockwise }).unwrap();
        assert!(matches!(game.status(), Status::Over(Outcome { kind: OutcomeKind::Won, .. })));
        assert_eq!(game.tick(), 2);
        assert_eq!(game.score(), 4);
        assert_ne!(game.render(), picture);
        let error = game.step(Rotate { tile: 0, turn: Turn::Half }).unwrap_err();
        assert!(error.reason.contains("over"));
        let mut fresh = PipesGame::new(&config, 0);
        assert!(fresh.step(Rotate { tile: 3, turn: Turn::Half }).unwrap_err().reason.contains("no such tile"));
        assert_eq!(fresh.state_hash(), hash, "a rejected move changes nothing");
    }

    #[test]
    fn a_solved_puzzle_is_won_at_once_and_aimless_play_stalls() {
        let solved = config("2 1 nowrap 0 0\n28\n");
        assert!(matches!(PipesGame::new(&solved, 0).status(), Status::Over(Outcome { kind: OutcomeKind::Won, .. })));
        let config = config("2 1 nowrap 0 0\n82\n");
        let mut game = PipesGame::new(&config, 0);
        // Two dead ends have 16 orientations: the cap is 15 moves, not 4 × 2.
        assert_eq!(config.max_ticks(), 15);
        for tick in 0..config.max_ticks() {
            assert_eq!(game.status(), Status::Running);
            let turn = if tick % 2 == 0 { Turn::Clockwise } else { Turn::Anticlockwise };
            game.step(Rotate { tile: 0, turn }).unwrap();
        }
        assert!(matches!(game.status(), Status::Over(Outcome { kind: OutcomeKind::Stalled, .. })));
    }

    #[test]
    fn unmatched_ends_and_the_score_stay_exact_on_tiny_wrapping_boards() {
        // On 1- and 2-wide tori a tile is its own or a double neighbour: the
        // incremental count must still equal a recount after every move.
        for (width, height) in [(1, 1), (1, 3), (2, 2), (2, 3), (3, 3)] {
            let n = usize::from(width * height);
            let tiles: Vec<u8> = (0..n).map(|tile| [1, 3, 5, 7, 0xf, 0][tile % 6]).collect();
            let setup = PipesSetup { width, height, wrap: true, source_col: 0, source_row: 0, tiles };
            let config = Config::try_from(setup).unwrap();
            let mut game = PipesGame::new(&config, 0);
            for step in 0..40u32 {
                if game.status() != Status::Running {
                    break;
                }
                let turn = [Turn::Clockwise, Turn::Half, Turn::Anticlockwise][(step % 3) as usize];
                game.step(Rotate { tile: step * 7 % n as u32, turn }).unwrap();
                let recount: u32 = (0..n).map(|tile| game.unmatched_ends_of(tile)).sum();
                assert_eq!(game.unmatched_ends, recount, "{width}x{height} step {step}");
                let ends: u32 = game.tiles.iter().map(|mask| mask.count_ones()).sum();
                assert_eq!(game.score(), i64::from(ends) - i64::from(recount), "{width}x{height} step {step}");
            }
        }
    }
}
