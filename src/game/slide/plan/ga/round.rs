//! One round of the GA, shared by both versions: policies played from a
//! start board, and their value (the summed Euclidean distance of every
//! symbol to its goal cell), as a [`Problem`] of the shared engine.

use std::sync::atomic::{AtomicU64, Ordering};

use super::GaSettings;
use crate::game::slide::{Board, Dir, Goal, MAX_CELLS, neighbour};
use crate::plan::ga::{Problem, one_point_crossover};
use crate::rng::GameRng;

/// `sqrt(d)` for every squared distance on a 5×5 board (at most 4² + 4²).
fn sqrt_table() -> [f64; 33] {
    let mut table = [0.0; 33];
    for (squared, root) in table.iter_mut().enumerate() {
        *root = (squared as f64).sqrt();
    }
    table
}

/// One round's search space: policies played from the board the prefix
/// leads to.
pub(super) struct Round {
    side: u8,
    n_cells: usize,
    start: Board,
    start_blank: u8,
    /// `home[symbol]`: the goal cell of each symbol (0 = the blank).
    home: [u8; MAX_CELLS],
    roots: [f64; 33],
    /// The blank move of each gene code.
    gene_moves: [Dir; 4],
    pub(crate) params: GaSettings,
    pub(crate) evaluations: AtomicU64,
}

impl Round {
    /// Policies of `params` played from `start` towards `goal`, each gene
    /// code `c` moving the blank `gene_moves[c]`.
    pub(crate) fn new(side: u8, start: &Board, goal: Goal, gene_moves: [Dir; 4], params: GaSettings) -> Round {
        let n_cells = usize::from(side) * usize::from(side);
        let mut home = [0u8; MAX_CELLS];
        for tile in 0..n_cells as u8 {
            home[usize::from(tile)] = goal.cell_of(tile, n_cells as u8);
        }
        let start_blank = start[..n_cells].iter().position(|&tile| tile == 0).expect("a blank") as u8;
        Round {
            side,
            n_cells,
            start: *start,
            start_blank,
            home,
            roots: sqrt_table(),
            gene_moves,
            params,
            evaluations: AtomicU64::new(0),
        }
    }

    fn play(&self, policy: &[u8]) -> Board {
        let mut board = self.start;
        let mut blank = self.start_blank;
        for &gene in policy {
            if let Some(next) = neighbour(self.side, blank, self.gene_moves[usize::from(gene)]) {
                board.swap(usize::from(blank), usize::from(next));
                blank = next;
            }
        }
        board
    }

    fn value_of(&self, board: &Board) -> f64 {
        let side = self.side;
        let mut total = 0.0;
        for cell in 0..self.n_cells as u8 {
            let home = self.home[usize::from(board[usize::from(cell)])];
            let d_row = (cell / side).abs_diff(home / side);
            let d_col = (cell % side).abs_diff(home % side);
            total += self.roots[usize::from(d_row * d_row + d_col * d_col)];
        }
        total
    }
}

impl Problem for Round {
    type Genome = Vec<u8>;
    type Fitness = f64;

    fn random_genome(&self, rng: &mut GameRng) -> Vec<u8> {
        (0..self.params.move_count).map(|_| rng.below(4) as u8).collect()
    }

    fn fitness(&self, genome: &Vec<u8>) -> f64 {
        self.evaluations.fetch_add(1, Ordering::Relaxed);
        self.value_of(&self.play(genome))
    }

    fn is_solution(&self, fitness: f64) -> bool {
        fitness == 0.0
    }

    fn crossover(&self, a: &Vec<u8>, b: &Vec<u8>, rng: &mut GameRng, child_a: &mut Vec<u8>, child_b: &mut Vec<u8>) {
        one_point_crossover(a, b, rng, child_a, child_b);
    }

    fn mutate(&self, genome: &mut Vec<u8>, rng: &mut GameRng) {
        if genome.is_empty() || !rng.chance(self.params.mutate_rate, 100) {
            return;
        }
        let gene = rng.below(genome.len() as u32) as usize;
        let new_allele = rng.below(4) as u8;
        if !self.params.better_mutate {
            genome[gene] = new_allele;
            return;
        }
        let before = self.fitness(genome);
        let old_allele = std::mem::replace(&mut genome[gene], new_allele);
        if self.fitness(genome) > before {
            genome[gene] = old_allele;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::game::slide::goal_board;

    #[test]
    fn the_value_is_zero_only_at_the_goal() {
        let round = |board: Board| Round::new(3, &board, Goal::BlankLast, Dir::ALL, GaSettings::default());
        let goal = goal_board(3, Goal::BlankLast);
        assert_eq!(round(goal).value_of(&goal), 0.0);
        // The post's example value: ≈15.48 for 7 3 _ / 8 1 4 / 6 2 5.
        let mut start = [0u8; MAX_CELLS];
        start[..9].copy_from_slice(&[7, 3, 0, 8, 1, 4, 6, 2, 5]);
        let value = round(start).value_of(&start);
        assert!((value - 15.479).abs() < 0.001, "{value}");
    }
}
