//! The solver's tests: small boards by hand, counts against brute force,
//! and generated boards of every shape.

use super::SolveReport;
use super::solver::{NO_TILE, Solver};
use super::tables::DOMAINS;
use crate::game::pipes::generate::{GenSettings, generate};
use crate::game::pipes::{DIR_BITS, Grid, find_flaw, opposite, rotate_by};
use crate::plan::Budget;
use crate::rng::GameRng;

/// Whether tile `a` and its neighbour in `dir` have pipes to each other.
fn joined(grid: Grid, tiles: &[u8], a: usize, dir: usize) -> bool {
    grid.neighbour(a, dir).is_some_and(|b| tiles[a] & DIR_BITS[dir] != 0 && tiles[b] & DIR_BITS[opposite(dir)] != 0)
}

fn solve(grid: Grid, tiles: &[u8], limit: u32) -> (SolveReport, Vec<u8>) {
    let mut solver = Solver::new(grid);
    let report = solver.run(tiles, 0, limit, &Budget::unlimited()).unwrap();
    (report, solver.solution().to_vec())
}

#[test]
fn the_neighbour_table_follows_the_grid() {
    for (width, height) in [(1, 1), (1, 4), (4, 1), (2, 2), (5, 3)] {
        for wrap in [false, true] {
            let grid = Grid { width, height, wrap };
            let solver = Solver::new(grid);
            for tile in 0..grid.n_tiles() {
                for dir in 0..4 {
                    let expected = grid.neighbour(tile, dir).map_or(NO_TILE, |other| other as u32);
                    assert_eq!(
                        solver.neighbours[tile][dir], expected,
                        "{width}x{height} wrap={wrap} tile {tile} dir {dir}"
                    );
                }
            }
        }
    }
}

#[test]
fn domains_drop_symmetric_duplicates() {
    assert_eq!(DOMAINS[0], 0b0001);
    assert_eq!(DOMAINS[0xF], 0b0001);
    assert_eq!(DOMAINS[0x5], 0b0011);
    assert_eq!(DOMAINS[0xA], 0b0011);
    assert_eq!(DOMAINS[0x1], 0b1111);
    assert_eq!(DOMAINS[0x7], 0b1111);
}

#[test]
fn solves_a_small_flat_board_by_deduction() {
    let grid = Grid { width: 3, height: 1, wrap: false };
    let (report, solution) = solve(grid, &[4, 5, 1], 2);
    assert_eq!(report.solutions, 1);
    assert_eq!(report.branches, 0);
    assert_eq!(solution, vec![2, 0xa, 8]);
    assert!(joined(grid, &solution, 0, 1));
}

#[test]
fn finds_two_solutions_and_none() {
    // Two dead ends on a 2×1 torus meet across either seam.
    let grid = Grid { width: 2, height: 1, wrap: true };
    let (report, solution) = solve(grid, &[1, 1], 5);
    assert_eq!(report.solutions, 2);
    assert_eq!(find_flaw(grid, 0, &solution), Ok(()));
    // Three dead ends cannot form a tree.
    let grid = Grid { width: 3, height: 1, wrap: false };
    assert_eq!(solve(grid, &[1, 1, 1], 2).0.solutions, 0);
    // Four bends on a flat 2×2 board can only make a ring.
    let grid = Grid { width: 2, height: 2, wrap: false };
    assert_eq!(solve(grid, &[3, 3, 3, 3], 2).0.solutions, 0);
}

/// Every distinct orientation of every tile, checked by `find_flaw`:
/// the number of solutions by brute force.
fn brute_force_count(grid: Grid, source: usize, tiles: &[u8]) -> u32 {
    let options: Vec<Vec<u8>> = tiles
        .iter()
        .map(|&mask| {
            (0..4)
                .filter(|&turns| DOMAINS[usize::from(mask)] & (1 << turns) != 0)
                .map(|turns| rotate_by(mask, turns))
                .collect()
        })
        .collect();
    let mut current = vec![0u8; tiles.len()];
    let mut count = 0;
    let mut index = vec![0usize; tiles.len()];
    loop {
        for tile in 0..tiles.len() {
            current[tile] = options[tile][index[tile]];
        }
        if find_flaw(grid, source, &current).is_ok() {
            count += 1;
        }
        let mut tile = 0;
        while tile < tiles.len() {
            index[tile] += 1;
            if index[tile] < options[tile].len() {
                break;
            }
            index[tile] = 0;
            tile += 1;
        }
        if tile == tiles.len() {
            return count;
        }
    }
}

#[test]
fn counts_agree_with_brute_force_on_small_boards() {
    let mut rng = GameRng::from_seed(5);
    let mut seen = [0u32; 3];
    for (width, height) in [(1, 4), (2, 2), (2, 3), (3, 3), (4, 2)] {
        for wrap in [false, true] {
            let grid = Grid { width, height, wrap };
            for case in 0..40u64 {
                // Generated boards (solvable, often in several ways),
                // every other one with a tile replaced at random (often
                // unsolvable then).
                let options = GenSettings { width, height, wrap, unique: false, seed: case };
                let generated = generate(&options).unwrap();
                let mut tiles = generated.setup.tiles;
                if case % 2 == 1 {
                    let tile = rng.below(tiles.len() as u32) as usize;
                    tiles[tile] = [0, 1, 3, 5, 7, 0xf][rng.below(6) as usize];
                }
                let source = usize::from(generated.setup.source_row) * usize::from(width)
                    + usize::from(generated.setup.source_col);
                let expected = brute_force_count(grid, source, &tiles);
                let mut solver = Solver::new(grid);
                let report = solver.run(&tiles, source, 1000, &Budget::unlimited()).unwrap();
                assert_eq!(report.solutions, expected, "{width}x{height} wrap={wrap} {tiles:x?} source {source}");
                if expected > 0 {
                    assert_eq!(find_flaw(grid, source, solver.solution()), Ok(()));
                }
                seen[expected.min(2) as usize] += 1;
            }
        }
    }
    assert!(seen.iter().all(|&n| n > 0), "cases with 0, 1 and 2+ solutions all occur: {seen:?}");
}

#[test]
fn solves_generated_boards_of_every_shape() {
    for (width, height) in [(1, 1), (1, 6), (6, 1), (2, 2), (3, 3), (2, 7), (13, 11), (40, 40)] {
        for wrap in [false, true] {
            for seed in 0..3 {
                let generated = generate(&GenSettings { width, height, wrap, unique: false, seed }).unwrap();
                let setup = &generated.setup;
                let source = usize::from(setup.source_row) * usize::from(width) + usize::from(setup.source_col);
                let mut solver = Solver::new(setup.grid());
                let report = solver.run(&setup.tiles, source, 1, &Budget::unlimited()).unwrap();
                assert_eq!(report.solutions, 1, "{width}x{height} wrap={wrap} seed {seed}");
                assert_eq!(find_flaw(setup.grid(), source, solver.solution()), Ok(()));
            }
        }
    }
}
