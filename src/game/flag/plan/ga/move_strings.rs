//! The `ga` planner's problem: a chromosome is a fixed-length string of
//! moves, played from the state the plan starts in; its fitness (minimised)
//! is what it leaves owed, its distance to the flag and its void genes.
//! The hot loop of the GA.

use super::{Fitness, GaSettings, Mutation};
use crate::game::flag::{Config, Dir, NO_CELL};
use crate::plan::ga::{self, Problem};
use crate::rng::GameRng;

/// Marks a tile that never falls in [`MoveStrings`]' visit counts.
const PERMANENT: u8 = u8::MAX;

thread_local! {
    /// Scratch visit counts for [`MoveStrings::play`], one per thread.
    static SCRATCH: std::cell::RefCell<Vec<u8>> = const { std::cell::RefCell::new(Vec::new()) };
}

/// One GA problem: a board and the state to plan from.
#[derive(Debug)]
pub(crate) struct MoveStrings {
    width: u16,
    flag_col: u16,
    flag_row: u16,
    start: u16,
    /// Entries each cell still takes, [`PERMANENT`] for stones and the flag,
    /// and one extra cell at the end (index `n_cells`), a hole that stands
    /// for "off the board".
    initial_visits: Vec<u8>,
    initial_owed: u32,
    /// `neighbours[4 * cell + dir]`; `n_cells` (the off-board hole) off the board.
    neighbours: Vec<u16>,
    length: usize,
    mutation: Mutation,
    owed_weight: u32,
    void_penalty: u32,
}

/// What playing a chromosome from the start leads to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Played {
    owed: u32,
    end: u16,
    voids: u32,
}

impl MoveStrings {
    /// The problem of winning `config` from `visits` with the player on `position`.
    pub(crate) fn new(config: &Config, visits: &[u8], position: u16, settings: &GaSettings) -> MoveStrings {
        let (flag_col, flag_row) = config.col_row(config.flag());
        let off_board = config.n_cells() as u16;
        let neighbours = (0..config.n_cells() as u16)
            .flat_map(|cell| config.neighbours(cell))
            .map(|next| if next == NO_CELL { off_board } else { next })
            .collect();
        let mut initial_visits: Vec<u8> = visits.to_vec();
        for (cell, tile) in config.tiles().iter().enumerate() {
            if tile.is_permanent() {
                initial_visits[cell] = PERMANENT;
            }
        }
        initial_visits.push(0);
        MoveStrings {
            width: config.width(),
            flag_col,
            flag_row,
            start: position,
            initial_visits,
            initial_owed: visits.iter().map(|&count| u32::from(count)).sum(),
            neighbours,
            length: settings.length_for(config),
            mutation: settings.mutation,
            owed_weight: match settings.fitness {
                Fitness::Linear => 1,
                Fitness::DoubleOwed => 2,
            },
            void_penalty: settings.void_penalty,
        }
    }

    /// Plays `genes`, calling `on_move` with each move that is not void,
    /// until `on_move` returns false.
    fn play(&self, genes: &[u8], mut on_move: impl FnMut(u8, u32, u16) -> bool) -> Played {
        // A per-thread scratch copy of the visits: no allocation and no
        // large memset per evaluation (this is the GA's hot loop).
        SCRATCH.with_borrow_mut(|visits| {
            visits.clear();
            visits.extend_from_slice(&self.initial_visits);
            let mut owed = self.initial_owed;
            let mut position = self.start;
            let mut voids = 0;
            for &gene in genes {
                let next = self.neighbours[4 * usize::from(position) + usize::from(gene)];
                let count = visits[usize::from(next)];
                if count == 0 {
                    // A hole, a fallen tile, or off the board.
                    voids += 1;
                    continue;
                }
                if count != PERMANENT {
                    visits[usize::from(next)] = count - 1;
                    owed -= 1;
                }
                position = next;
                if !on_move(gene, owed, position) {
                    break;
                }
            }
            Played { owed, end: position, voids }
        })
    }

    /// [`MoveStrings::play`] without the callback, written without
    /// data-dependent branches: genes are random, so "void or not" is a coin
    /// flip the branch predictor would lose about half the time.
    fn play_all(&self, genes: &[u8]) -> Played {
        SCRATCH.with_borrow_mut(|visits| {
            visits.clear();
            visits.extend_from_slice(&self.initial_visits);
            let mut owed = self.initial_owed;
            let mut position = self.start;
            let mut voids = 0;
            // Locals, so the compiler need not reload them after each store.
            let neighbours: &[u16] = &self.neighbours;
            let visits: &mut [u8] = visits;
            for &gene in genes {
                let next = neighbours[4 * usize::from(position) + usize::from(gene & 3)];
                let count = visits[usize::from(next)];
                let void = count == 0;
                let takes_entry = !void & (count != PERMANENT);
                visits[usize::from(next)] = count - u8::from(takes_entry);
                owed -= u32::from(takes_entry);
                voids += u32::from(void);
                position = if void { position } else { next };
            }
            Played { owed, end: position, voids }
        })
    }

    fn score(&self, played: Played) -> u32 {
        let (col, row) = (played.end % self.width, played.end / self.width);
        let distance = u32::from(col.abs_diff(self.flag_col)) + u32::from(row.abs_diff(self.flag_row));
        let base = self.owed_weight * played.owed + distance;
        if base == 0 { 0 } else { base + self.void_penalty * played.voids }
    }

    /// The moves `genes` makes in the game: void genes removed, cut where
    /// the game is won.
    pub(crate) fn moves(&self, genes: &[u8]) -> Vec<Dir> {
        let flag = self.flag_row * self.width + self.flag_col;
        let mut moves = Vec::with_capacity(genes.len());
        self.play(genes, |gene, owed, position| {
            moves.push(Dir::from_code(u32::from(gene)).expect("genes are direction codes"));
            !(owed == 0 && position == flag)
        });
        moves
    }
}

impl Problem for MoveStrings {
    type Genome = Vec<u8>;
    type Fitness = u32;

    fn random_genome(&self, rng: &mut GameRng) -> Vec<u8> {
        (0..self.length).map(|_| rng.below(4) as u8).collect()
    }

    fn fitness(&self, genome: &Vec<u8>) -> u32 {
        self.score(self.play_all(genome))
    }

    fn is_solution(&self, fitness: u32) -> bool {
        fitness == 0
    }

    fn crossover(&self, a: &Vec<u8>, b: &Vec<u8>, rng: &mut GameRng, child_a: &mut Vec<u8>, child_b: &mut Vec<u8>) {
        ga::two_point_crossover(a, b, rng, child_a, child_b);
    }

    fn mutate(&self, genome: &mut Vec<u8>, rng: &mut GameRng) {
        let random_move = |rng: &mut GameRng| rng.below(4) as u8;
        match self.mutation {
            Mutation::SwapElseReset { swap_percent } => {
                if rng.chance(swap_percent, 100) {
                    ga::swap_two_genes(genome, rng);
                } else {
                    ga::reset_one_gene(genome, rng, random_move);
                }
            }
            Mutation::Reset { percent } => {
                if rng.chance(percent, 100) {
                    ga::reset_one_gene(genome, rng, random_move);
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::game::Game;
    use crate::game::flag::{FlagGame, letters};
    use crate::map::Level;

    #[test]
    fn fitness_counts_owed_entries_distance_and_void_genes() {
        let config = Config::parse("start 0 0\n123\n..F").unwrap();
        let game = FlagGame::new(&config, 0);
        let settings = GaSettings { chromosome_length: Some(4), ..GaSettings::default() };
        let problem = MoveStrings::new(&config, game.visits(), game.position(), &settings);
        let code = |dir: Dir| dir.code();
        // Owed 2 (the cracked tile), distance 3, no move: 5.
        assert_eq!(problem.fitness(&Vec::new()), 5);
        // Up and left are void at the start: owed 2 + distance 3 + 2 voids.
        assert_eq!(problem.fitness(&vec![code(Dir::Up), code(Dir::Left)]), 7);
        // r r d: owed 1 (the cracked tile once more), distance 0, no void.
        assert_eq!(problem.fitness(&vec![code(Dir::Right), code(Dir::Right), code(Dir::Down)]), 1);
        // r r l u r d: the `u` is void (off the board); the rest wins, so the
        // void penalty is dropped and the plan leaves the void gene out.
        let win: Vec<u8> = [Dir::Right, Dir::Right, Dir::Left, Dir::Up, Dir::Right, Dir::Down].map(code).to_vec();
        assert_eq!(problem.fitness(&win), 0);
        assert_eq!(letters(&problem.moves(&win)), "rrlrd");
        let double = GaSettings { fitness: Fitness::DoubleOwed, void_penalty: 0, ..settings };
        let problem = MoveStrings::new(&config, game.visits(), game.position(), &double);
        assert_eq!(problem.fitness(&vec![code(Dir::Up), code(Dir::Left)]), 2 * 2 + 3);
    }
}
