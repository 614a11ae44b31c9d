//! `bfs-tail --write-up`: Hawstein's 2013 Snake program (GitHub
//! Hawstein/snake-ai, `snake.py`, commit c8e1eb44aa32ead989feadcd15f749952b9f1cdc,
//! described in the blog post "如何用Python写一个贪吃蛇AI") transcribed
//! function by function, tie-breaks and all. Our own `bfs-tail`
//! (`bfs_tail.rs`) is the improved default; this file is the reference.
//!
//! Every tick, as the program's main loop does:
//! 1. `board_reset` + `board_refresh`: BFS **from the food** over cells the
//!    body does not cover (the whole body, tail included, is an obstacle),
//!    giving every reached cell its distance to the food. The food counts
//!    as reachable when the head touches a cell the BFS took from its queue.
//! 2. If so, `find_safe_way`: a virtual snake eats by stepping to the
//!    neighbour with the smallest distance, the BFS from the food re-run on
//!    its own board after every virtual step (`virtual_shortest_move`;
//!    that board is not reset between steps, so a distance can only shrink:
//!    cells keep the smaller of their old and new distance, as in the
//!    program). Then `is_tail_inside`: BFS from the virtual tail with the
//!    food's cell as an obstacle; the meal is safe when the virtual head
//!    touches a cell that BFS reached, **unless the head lies beside its
//!    tail and the snake is longer than 3**. Safe: the real snake takes the
//!    neighbour with the smallest distance to the food. Not safe:
//!    `follow_tail`.
//! 3. Otherwise (or not safe) `follow_tail`: BFS from the real tail with the
//!    food's cell as an obstacle, then the free, reached neighbour with the
//!    **largest** distance from the tail. This branch never eats.
//! 4. If that finds nothing, `any_possible_move`: the neighbour not covered
//!    by the body with the smallest distance to the food (unreached free
//!    cells count as far away, but still count).
//!
//! Every choice scans the moves in the program's order `[LEFT, RIGHT, UP,
//! DOWN]` with strict `<` / `>`, so a tie goes to the earlier move.
//!
//! Two places where the program has no answer and we must pick one: the
//! virtual snake can walk into a dead end (every neighbour covered: the
//! program would crash on a bad index) or wander without eating (its board
//! keeps stale distances: the program would loop forever). We stop it after
//! `4 × cells` virtual steps or at the dead end and call the meal unsafe,
//! which sends the real snake to `follow_tail`. And when no move is left the
//! program stops; we play the first legal move, which loses.
//!
//! Our rules replace the program's fixed board (18×8 cells inside walls) by
//! any board: "the move is possible" means the neighbour is on the board and
//! not a wall. The program never lets its head enter the cell its tail is
//! leaving (the tail is an obstacle in every search), so under either
//! [`TailRule`](crate::game::snake::TailRule) it plays the same moves.

use std::collections::VecDeque;

use crate::game::snake::{Config, Dir, SnakeGame};
use crate::plan::{Budget, Decision, PlanError, PlanStats, Planner};

/// The program's move order, `mov = [LEFT, RIGHT, UP, DOWN]`.
const MOV: [Dir; 4] = [Dir::Left, Dir::Right, Dir::Up, Dir::Down];
/// No neighbour that way: off the board or a wall.
const NONE: u16 = u16::MAX;
/// The program's board codes: `FOOD = 0`; `UNDEFINED` exceeds every
/// distance; `SNAKE` exceeds `UNDEFINED`.
const FOOD: u32 = 0;

/// The write-up's planner. See the module docs.
#[derive(Debug)]
pub(crate) struct WriteUp {
    /// `neighbours[cell][i]`: the cell one step `MOV[i]` away, or [`NONE`].
    neighbours: Vec<[u16; 4]>,
    walls: Vec<bool>,
    undefined: u32,
    snake_code: u32,
    board: Vec<u32>,
    tmpboard: Vec<u32>,
    /// The real snake and the virtual one, head first.
    snake: VecDeque<u16>,
    tmpsnake: VecDeque<u16>,
    /// `covered[cell] == cover_stamp`: the snake being reset covers `cell`.
    covered: Vec<u32>,
    cover_stamp: u32,
    /// BFS scratch: `inqueue[cell] == queue_stamp` once `cell` was taken from
    /// the queue; `pushed` likewise once it was put on it (the program may
    /// queue a cell twice, but only its first turn counts, so one push keeps
    /// the order).
    inqueue: Vec<u32>,
    pushed: Vec<u32>,
    queue_stamp: u32,
    queue: Vec<u16>,
    food: u16,
    nodes: u64,
    /// Virtual runs stopped where the program would crash or loop.
    virtual_failures: u64,
}

impl WriteUp {
    /// A planner sized for `config`'s board.
    pub(crate) fn new(config: &Config) -> WriteUp {
        let n_cells = config.n_cells();
        let neighbours = (0..n_cells as u16)
            .map(|cell| {
                MOV.map(|dir| match config.neighbour(cell, dir) {
                    Some(next) if !config.is_wall(next) => next,
                    _ => NONE,
                })
            })
            .collect();
        // The program's UNDEFINED is (HEIGHT + 1) * (WIDTH + 1): larger than
        // any distance on the board.
        let undefined = (u32::from(config.height()) + 1) * (u32::from(config.width()) + 1);
        WriteUp {
            neighbours,
            walls: (0..n_cells as u16).map(|cell| config.is_wall(cell)).collect(),
            undefined,
            snake_code: 2 * undefined,
            board: vec![0; n_cells],
            tmpboard: vec![0; n_cells],
            snake: VecDeque::with_capacity(n_cells + 1),
            tmpsnake: VecDeque::with_capacity(n_cells + 1),
            covered: vec![0; n_cells],
            cover_stamp: 0,
            inqueue: vec![0; n_cells],
            pushed: vec![0; n_cells],
            queue_stamp: 0,
            queue: Vec::with_capacity(n_cells),
            food: NONE,
            nodes: 0,
            virtual_failures: 0,
        }
    }

    /// `board_reset`: the food 0, cells the snake leaves free UNDEFINED, the
    /// rest SNAKE.
    fn board_reset(&mut self, virtual_snake: bool) {
        self.cover_stamp = self.cover_stamp.wrapping_add(1);
        if self.cover_stamp == 0 {
            self.covered.fill(0);
            self.cover_stamp = 1;
        }
        let snake = if virtual_snake { &self.tmpsnake } else { &self.snake };
        for &cell in snake {
            self.covered[usize::from(cell)] = self.cover_stamp;
        }
        let board = if virtual_snake { &mut self.tmpboard } else { &mut self.board };
        for (cell, value) in board.iter_mut().enumerate() {
            *value = if cell == usize::from(self.food) {
                FOOD
            } else if self.covered[cell] != self.cover_stamp && !self.walls[cell] {
                self.undefined
            } else {
                self.snake_code
            };
        }
    }

    /// `board_refresh`: BFS from `start`, lowering each reached cell to one
    /// more than the cell it was reached from (never raising it). Returns
    /// whether `head` touches a cell taken from the queue.
    fn board_refresh(&mut self, start: u16, head: u16, virtual_board: bool) -> bool {
        self.queue_stamp = self.queue_stamp.wrapping_add(1);
        if self.queue_stamp == 0 {
            self.inqueue.fill(0);
            self.pushed.fill(0);
            self.queue_stamp = 1;
        }
        let board = if virtual_board { &mut self.tmpboard } else { &mut self.board };
        self.queue.clear();
        self.queue.push(start);
        self.pushed[usize::from(start)] = self.queue_stamp;
        let mut found = false;
        let mut read = 0;
        while read < self.queue.len() {
            let idx = self.queue[read];
            read += 1;
            self.nodes += 1;
            self.inqueue[usize::from(idx)] = self.queue_stamp;
            for next in self.neighbours[usize::from(idx)] {
                if next == NONE {
                    continue;
                }
                if next == head {
                    found = true;
                }
                let slot = usize::from(next);
                if board[slot] < self.snake_code {
                    if board[slot] > board[usize::from(idx)] + 1 {
                        board[slot] = board[usize::from(idx)] + 1;
                    }
                    if self.inqueue[slot] != self.queue_stamp && self.pushed[slot] != self.queue_stamp {
                        self.pushed[slot] = self.queue_stamp;
                        self.queue.push(next);
                    }
                }
            }
        }
        found
    }

    /// `choose_shortest_safe_move`: the neighbour with the smallest value
    /// below SNAKE, the first in `MOV` order on a tie.
    fn choose_shortest(&self, head: u16, virtual_board: bool) -> Option<usize> {
        let board = if virtual_board { &self.tmpboard } else { &self.board };
        let mut best = None;
        let mut min = self.snake_code;
        for (index, &next) in self.neighbours[usize::from(head)].iter().enumerate() {
            if next != NONE && board[usize::from(next)] < min {
                min = board[usize::from(next)];
                best = Some(index);
            }
        }
        best
    }

    /// `choose_longest_safe_move` on the virtual board: the neighbour with
    /// the largest value below UNDEFINED, the first in `MOV` order on a tie.
    fn choose_longest(&self, head: u16) -> Option<usize> {
        let mut best = None;
        let mut max = None;
        for (index, &next) in self.neighbours[usize::from(head)].iter().enumerate() {
            if next == NONE {
                continue;
            }
            let value = self.tmpboard[usize::from(next)];
            if value < self.undefined && max.is_none_or(|max| value > max) {
                max = Some(value);
                best = Some(index);
            }
        }
        best
    }

    /// `virtual_shortest_move`: the virtual snake eats by the food's
    /// distances, re-running the BFS on its own board after every step.
    /// `false` where the program would crash or loop (see the module docs).
    fn virtual_shortest_move(&mut self) -> bool {
        self.tmpsnake.clone_from(&self.snake);
        self.board_reset(true);
        let limit = 4 * self.board.len();
        for _ in 0..limit {
            let head = self.tmpsnake[0];
            self.board_refresh(self.food, head, true);
            let Some(index) = self.choose_shortest(head, true) else {
                return false;
            };
            let next = self.neighbours[usize::from(head)][index];
            self.tmpsnake.push_front(next);
            if next == self.food {
                self.board_reset(true);
                self.tmpboard[usize::from(self.food)] = self.snake_code;
                return true;
            }
            self.tmpboard[usize::from(next)] = self.snake_code;
            let tail = self.tmpsnake.pop_back().expect("the snake has a tail");
            self.tmpboard[usize::from(tail)] = self.undefined;
        }
        false
    }

    /// `is_tail_inside`: after the virtual meal, can the virtual head reach
    /// its tail (and is it not merely beside it, for a snake longer than 3)?
    fn is_tail_inside(&mut self) -> bool {
        let (head, tail) = (self.tmpsnake[0], self.tmpsnake[self.tmpsnake.len() - 1]);
        self.tmpboard[usize::from(tail)] = FOOD;
        self.tmpboard[usize::from(self.food)] = self.snake_code;
        let mut result = self.board_refresh(tail, head, true);
        if self.tmpsnake.len() > 3 && self.neighbours[usize::from(head)].contains(&tail) {
            result = false;
        }
        result
    }

    /// `follow_tail`: the free neighbour farthest from the real tail, the
    /// food's cell an obstacle.
    fn follow_tail(&mut self) -> Option<usize> {
        self.tmpsnake.clone_from(&self.snake);
        self.board_reset(true);
        let (head, tail) = (self.snake[0], self.snake[self.snake.len() - 1]);
        self.tmpboard[usize::from(tail)] = FOOD;
        self.tmpboard[usize::from(self.food)] = self.snake_code;
        self.board_refresh(tail, head, true);
        self.tmpboard[usize::from(tail)] = self.snake_code;
        self.choose_longest(head)
    }

    /// `any_possible_move`: the uncovered neighbour nearest the food.
    fn any_possible_move(&mut self) -> Option<usize> {
        self.board_reset(false);
        let head = self.snake[0];
        self.board_refresh(self.food, head, false);
        self.choose_shortest(head, false)
    }

    /// One pass of the program's main loop; the move and the branch that chose it.
    fn decide(&mut self, game: &SnakeGame) -> (Option<usize>, &'static str) {
        self.snake.clear();
        self.snake.extend(game.body().iter().copied());
        self.food = game.food().unwrap_or(NONE);
        let head = self.snake[0];
        self.board_reset(false);
        let (mut best, mut kind) = if self.board_refresh(self.food, head, false) {
            // find_safe_way
            let ate = self.virtual_shortest_move();
            self.virtual_failures += u64::from(!ate);
            if ate && self.is_tail_inside() {
                (self.choose_shortest(head, false), "food")
            } else {
                (self.follow_tail(), "tail")
            }
        } else {
            (self.follow_tail(), "tail")
        };
        if best.is_none() {
            best = self.any_possible_move();
            kind = "any";
        }
        (best, kind)
    }
}

impl Planner<SnakeGame> for WriteUp {
    fn name(&self) -> &'static str {
        "bfs-tail"
    }

    fn params(&self) -> Vec<(String, String)> {
        vec![("write_up".to_string(), "true".to_string())]
    }

    fn next_action(&mut self, game: &SnakeGame, _budget: &Budget) -> Result<Decision<Dir>, PlanError> {
        self.nodes = 0;
        let (best, kind) = self.decide(game);
        let (action, kind) = match best {
            Some(index) => (MOV[index], kind),
            // The program stops here; every move loses, so play the first legal one.
            None => (MOV.into_iter().find(|&dir| game.is_legal(dir)).unwrap_or(game.heading()), "none"),
        };
        Ok(Decision {
            action,
            planned: Some(PlanStats { kind, nodes: self.nodes, plan_len: 1, ..PlanStats::default() }),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::game::snake::SnakeSetup;
    use crate::game::{Game, OutcomeKind};
    use crate::plan::play_to_end;
    use crate::rng::derive_seed;

    /// The figures a literal transcription of the program scores on the
    /// chuyangliu rules, master seed 0, which `tickbot bench snake --episodes
    /// 1000 --preset chuyangliu --planner bfs-tail --write-up` prints: average
    /// length 60.67, fill 33.7%, 333 lost, 330 stalled, 2120.7 average steps.
    /// And the virtual snake never meets a case the program has no answer for.
    #[test]
    fn reproduces_the_transcription_figures_on_1000_chuyangliu_games() {
        let config = Config::try_from(SnakeSetup::chuyangliu()).unwrap();
        let (mut won, mut lost, mut stalled, mut length, mut steps, mut virtual_failures) = (0, 0, 0, 0, 0, 0);
        for index in 0..1000 {
            // One planner value plays one game.
            let mut planner = WriteUp::new(&config);
            let mut game = SnakeGame::new(&config, derive_seed(0, index));
            let outcome = play_to_end(&mut game, &mut planner, &Budget::unlimited(), |_, _| {}).unwrap();
            match outcome.kind {
                OutcomeKind::Won => won += 1,
                OutcomeKind::Lost => lost += 1,
                OutcomeKind::Stalled => stalled += 1,
                other => panic!("game {index} ended {other:?}"),
            }
            length += game.len();
            steps += u64::from(game.tick());
            virtual_failures += planner.virtual_failures;
        }
        assert_eq!((won, lost, stalled), (337, 333, 330));
        assert_eq!((length, steps), (60_666, 2_120_676));
        assert_eq!(virtual_failures, 0);
    }
}
