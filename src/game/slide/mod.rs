//! The sliding puzzle (8, 15 and 24 tiles): the game state and its rules.
//! The board, its goals and the parity check are in `board.rs`, the setup
//! and the validated [`Config`] a replay header carries in `config.rs`, the
//! instance-file format in `instances.rs`, the pictures in `picture.rs`,
//! and the planners in `plan/`.
//!
//! An action names the direction the **blank** moves (`up` swaps the blank
//! with the tile above it). The game is won when the board equals the goal;
//! it stalls after `max_ticks` moves.

mod board;
mod config;
mod instances;
pub(crate) mod picture;
pub mod plan;

use std::sync::Arc;

pub(crate) use board::{Board, MAX_CELLS, goal_board, neighbour};
pub use board::{Goal, random_board, side_for_cells};
#[cfg(test)]
pub(crate) use board::{MAX_SIDE, MIN_SIDE, apply_moves, is_solvable};
pub use config::{BoardError, Config, SlideSetup, Start};
pub use instances::{Instance, InstanceSet};

pub use crate::game::Dir;
use crate::game::{Game, GameSpec, IllegalAction, Outcome, OutcomeKind, StateHasher, Status, Wire};
use crate::rng::GameRng;

/// A sliding-puzzle game in progress.
#[derive(Clone, Debug)]
pub struct SlideGame {
    config: Arc<Config>,
    board: Board,
    blank: u8,
    tick: u32,
    outcome: Option<Outcome>,
}

impl SlideGame {
    pub(crate) fn config(&self) -> &Config {
        &self.config
    }
    pub(crate) fn board(&self) -> &Board {
        &self.board
    }
    /// The occupied part of the board, row-major.
    pub fn tiles(&self) -> &[u8] {
        &self.board[..self.config.n_cells()]
    }
    pub(crate) fn is_solved(&self) -> bool {
        self.board == goal_board(self.config.side(), self.config.goal())
    }

    fn settle(&mut self) {
        let max_ticks = self.config.max_ticks();
        if self.is_solved() {
            self.outcome = Some(Outcome::new(OutcomeKind::Won, format!("solved in {} moves", self.tick)));
        } else if self.tick >= max_ticks {
            self.outcome = Some(Outcome::new(
                OutcomeKind::Stalled,
                format!("not solved within the episode cap of {max_ticks} ticks"),
            ));
        }
    }
}

impl Game for SlideGame {
    type Config = Config;
    type Action = Dir;
    const NAME: &'static str = "slide";

    fn new(config: &Config, seed: u64) -> SlideGame {
        let board = match config.start() {
            Some(board) => *board,
            None => random_board(config.side(), config.goal(), &mut GameRng::from_seed(seed)),
        };
        let blank = board[..config.n_cells()].iter().position(|&tile| tile == 0).expect("a board has a blank") as u8;
        let mut game = SlideGame { config: Arc::new(config.clone()), board, blank, tick: 0, outcome: None };
        game.settle();
        game
    }

    fn legal_actions(&self, out: &mut Vec<Dir>) {
        if self.outcome.is_none() {
            out.extend(Dir::ALL.into_iter().filter(|&dir| neighbour(self.config.side(), self.blank, dir).is_some()));
        }
    }

    fn step(&mut self, dir: Dir) -> Result<(), IllegalAction> {
        if self.outcome.is_some() {
            return Err(IllegalAction { action: dir.to_string(), tick: self.tick, reason: "the game is over" });
        }
        let Some(next) = neighbour(self.config.side(), self.blank, dir) else {
            return Err(IllegalAction {
                action: dir.to_string(),
                tick: self.tick,
                reason: "the blank cannot move off the board",
            });
        };
        self.board.swap(usize::from(self.blank), usize::from(next));
        self.blank = next;
        self.tick += 1;
        self.settle();
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

    /// Tiles already on their goal cell (the blank not counted).
    fn score(&self) -> i64 {
        let n_cells = self.config.n_cells() as u8;
        (0..n_cells)
            .filter(|&cell| {
                let tile = self.board[usize::from(cell)];
                tile != 0 && self.config.goal().cell_of(tile, n_cells) == cell
            })
            .count() as i64
    }

    fn hash_state(&self, hasher: &mut StateHasher) {
        hasher.u32(self.tick);
        hasher.u8(self.config.side());
        hasher.bytes(self.tiles());
        hasher.u8(match &self.outcome {
            None => 0,
            Some(outcome) => 1 + outcome.kind as u8,
        });
    }
}

impl Wire for SlideGame {
    fn action_code(dir: Dir) -> u32 {
        u32::from(dir.code())
    }

    fn action_from_code(code: u32) -> Option<Dir> {
        Dir::from_code(code)
    }

    /// Four directions of the blank: codes 0 to 3.
    fn action_code_bound(_config: &Config) -> u32 {
        Dir::ALL.len() as u32
    }

    fn spec(config: &Config) -> GameSpec {
        GameSpec::Slide(config.clone())
    }

    fn config_of(spec: GameSpec) -> Option<Config> {
        match spec {
            GameSpec::Slide(config) => Some(config),
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const WRITE_UP_INFERRED: [u8; 9] = [7, 3, 0, 8, 1, 4, 6, 2, 5];

    #[test]
    fn the_write_ups_answer_solves_the_inferred_start() {
        // The post's answer in the blank's own directions (instance.json).
        let moves: Vec<Dir> = "LDDLUURDRDLLURRD".chars().map(|ch| Dir::from_letter(ch).unwrap()).collect();
        let config = Config::fixed(3, &WRITE_UP_INFERRED, Goal::BlankLast).unwrap();
        let mut game = SlideGame::new(&config, 0);
        for (index, &dir) in moves.iter().enumerate() {
            assert_eq!(game.status(), Status::Running, "solved early at move {index}");
            game.step(dir).unwrap();
        }
        assert!(matches!(game.status(), Status::Over(Outcome { kind: OutcomeKind::Won, .. })));
        assert_eq!(game.tick(), 16);
        assert!(game.step(Dir::Up).is_err(), "no move after the end");
    }

    #[test]
    fn random_boards_are_solvable_permutations_and_follow_the_seed() {
        for side in MIN_SIDE..=MAX_SIDE {
            let config =
                Config::try_from(SlideSetup { side, start: Start::Random, goal: Goal::BlankFirst, max_ticks: None })
                    .unwrap();
            let a = SlideGame::new(&config, 11);
            assert_eq!(a.tiles(), SlideGame::new(&config, 11).tiles());
            assert_ne!(a.tiles(), SlideGame::new(&config, 12).tiles());
            let mut sorted = a.tiles().to_vec();
            sorted.sort_unstable();
            assert_eq!(sorted, (0..side * side).collect::<Vec<_>>());
            assert!(is_solvable(side, a.board(), Goal::BlankFirst));
        }
    }

    #[test]
    fn moves_off_the_board_are_illegal_and_leave_the_state_alone() {
        let config = Config::fixed(3, &[0, 1, 2, 3, 4, 5, 6, 7, 8], Goal::BlankLast).unwrap();
        let mut game = SlideGame::new(&config, 0);
        let before = game.state_hash();
        assert!(game.step(Dir::Up).is_err());
        assert!(game.step(Dir::Left).is_err());
        assert_eq!(game.state_hash(), before);
        let mut legal = Vec::new();
        game.legal_actions(&mut legal);
        assert_eq!(legal, [Dir::Right, Dir::Down]);
        game.step(Dir::Right).unwrap();
        assert_eq!(game.tiles(), [1, 0, 2, 3, 4, 5, 6, 7, 8]);
        assert_ne!(game.state_hash(), before);
    }

    #[test]
    fn the_episode_cap_stalls_the_game() {
        let config =
            Config::fixed(3, &[0, 1, 2, 3, 4, 5, 6, 7, 8], Goal::BlankLast).unwrap().with_max_ticks(2).unwrap();
        let mut game = SlideGame::new(&config, 0);
        game.step(Dir::Right).unwrap();
        game.step(Dir::Left).unwrap();
        assert!(matches!(game.status(), Status::Over(Outcome { kind: OutcomeKind::Stalled, .. })));
    }
}
