//! The puzzle generator behind `tickbot gen pipes`: a random spanning tree
//! grown from the source (the centre tile, as in Tatham's Net), every tile
//! then turned a random number of quarter turns. All draws come from one
//! [`GameRng`] seeded with the given seed, so a seed always gives the same
//! puzzle.
//!
//! Growth picks uniformly among all the ways the tree can take in one more
//! tile, never giving a tile a fourth pipe unless nothing else can reach the
//! tiles left (so crosses are rare and only forced).
//!
//! With `unique`, the generator then asks the solver for two solutions and,
//! while it finds a second one, perturbs the tree where the two differ
//! (Tatham's approach): add an edge at a tile whose orientation differs,
//! which closes a loop in the tree, and remove another edge of that loop, so
//! the tree stays spanning; the tiles touched are dealt a new random turn.

use crate::game::pipes::solve::Solver;
use crate::game::pipes::{DIR_BITS, Grid, PipesSetup, opposite, rotate_by};
use crate::plan::{Budget, PlanError};
use crate::rng::GameRng;

/// What to generate.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct GenSettings {
    pub width: u16,
    pub height: u16,
    pub wrap: bool,
    /// Perturb the tree until the solver proves the solution unique.
    pub unique: bool,
    pub seed: u64,
}

/// A generated puzzle and the tree it was dealt from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Generated {
    pub setup: PipesSetup,
    /// The tree's masks: a solution (with `unique`, the only one).
    pub solution: Vec<u8>,
    /// Perturbations made to reach uniqueness (0 without `unique`).
    pub adjustments: u32,
}

/// Why no puzzle came out.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum GenerateError {
    #[error("the board is {width}×{height}; each side must be 1..={max}", max = super::MAX_SIDE)]
    BadSize { width: u16, height: u16 },
    #[error("no unique puzzle after {adjustments} adjustments; try another seed or drop --unique")]
    NotUnique { adjustments: u32 },
    /// The budget ran out (Ctrl-C) while the solver checked uniqueness.
    #[error("generation stopped: {0}")]
    Stopped(#[from] PlanError),
}

/// Generates a puzzle as `options` say.
pub fn generate(options: &GenSettings) -> Result<Generated, GenerateError> {
    generate_within(options, &Budget::unlimited())
}

/// [`generate`], stopping with [`GenerateError::Stopped`] once `budget`
/// runs out (the uniqueness checks poll it).
pub fn generate_within(options: &GenSettings, budget: &Budget) -> Result<Generated, GenerateError> {
    let GenSettings { width, height, wrap, unique, seed } = *options;
    if width == 0 || height == 0 || width > super::MAX_SIDE || height > super::MAX_SIDE {
        return Err(GenerateError::BadSize { width, height });
    }
    let grid = Grid { width, height, wrap };
    let mut rng = GameRng::from_seed(seed);
    let (source_col, source_row) = (width / 2, height / 2);
    let source = usize::from(source_row) * usize::from(width) + usize::from(source_col);
    let mut tree = grow_tree(grid, source, &mut rng);
    let mut tiles: Vec<u8> = tree.iter().map(|&mask| rotate_by(mask, rng.below(4) as u8)).collect();
    let mut adjustments = 0;
    if unique {
        let limit = 50 * grid.n_tiles().max(100) as u32;
        let mut solver = Solver::new(grid);
        let mut path = PathScratch::new(grid.n_tiles());
        loop {
            if let Some(error) = budget.exhausted() {
                return Err(error.into());
            }
            let report = solver.run(&tiles, source, 2, budget)?;
            if report.solutions < 2 {
                break;
            }
            if adjustments >= limit {
                return Err(GenerateError::NotUnique { adjustments });
            }
            let other = if solver.solution() != tree.as_slice() { solver.solution() } else { solver.last_solution() };
            let differing: Vec<usize> = (0..tree.len()).filter(|&tile| other[tile] != tree[tile]).collect();
            let tile = differing[rng.below(differing.len() as u32) as usize];
            for changed in perturb(grid, &mut tree, tile, &mut rng, &mut path) {
                tiles[changed] = rotate_by(tree[changed], rng.below(4) as u8);
            }
            adjustments += 1;
        }
    }
    let setup = PipesSetup { width, height, wrap, source_col, source_row, tiles };
    Ok(Generated { setup, solution: tree, adjustments })
}

/// A random spanning tree of `grid` grown from `source`, as masks.
fn grow_tree(grid: Grid, source: usize, rng: &mut GameRng) -> Vec<u8> {
    let n = grid.n_tiles();
    let mut masks = vec![0u8; n];
    let mut in_tree = vec![false; n];
    in_tree[source] = true;
    let mut n_in_tree = 1;
    // Possible extensions (tile in the tree, direction); stale ones are
    // dropped when drawn. Extensions from a tile that already has three
    // pipes wait in `crowded` until nothing else can grow.
    let mut frontier: Vec<(usize, usize)> = (0..4).map(|dir| (source, dir)).collect();
    let mut crowded: Vec<(usize, usize)> = Vec::new();
    while n_in_tree < n {
        if frontier.is_empty() {
            frontier.append(&mut crowded);
        }
        let index = rng.below(frontier.len() as u32) as usize;
        let (tile, dir) = frontier.swap_remove(index);
        let Some(other) = grid.neighbour(tile, dir).filter(|&other| !in_tree[other]) else {
            continue;
        };
        if masks[tile].count_ones() >= 3 && !frontier.is_empty() {
            crowded.push((tile, dir));
            continue;
        }
        masks[tile] |= DIR_BITS[dir];
        masks[other] |= DIR_BITS[opposite(dir)];
        in_tree[other] = true;
        n_in_tree += 1;
        frontier.extend((0..4).map(|dir| (other, dir)));
    }
    masks
}

/// Scratch for the tree path search of [`perturb`].
struct PathScratch {
    came_from: Vec<u32>,
    stack: Vec<usize>,
}

impl PathScratch {
    fn new(n: usize) -> PathScratch {
        PathScratch { came_from: vec![u32::MAX; n], stack: Vec::new() }
    }
}

/// Adds a random non-tree edge at `tile` and removes a random other edge of
/// the loop it closes. Returns the tiles whose masks changed (none if `tile`
/// has no edge to add).
fn perturb(grid: Grid, tree: &mut [u8], tile: usize, rng: &mut GameRng, scratch: &mut PathScratch) -> Vec<usize> {
    let candidates: Vec<(usize, usize)> = (0..4)
        .filter(|&dir| tree[tile] & DIR_BITS[dir] == 0)
        .filter_map(|dir| grid.neighbour(tile, dir).filter(|&other| other != tile).map(|other| (dir, other)))
        .filter(|&(_, other)| tree[tile].count_ones() < 3 && tree[other].count_ones() < 3)
        .collect();
    let candidates = if candidates.is_empty() {
        // Crowded tiles: allow a cross rather than get stuck.
        (0..4)
            .filter(|&dir| tree[tile] & DIR_BITS[dir] == 0)
            .filter_map(|dir| grid.neighbour(tile, dir).filter(|&other| other != tile).map(|other| (dir, other)))
            .collect()
    } else {
        candidates
    };
    if candidates.is_empty() {
        return Vec::new();
    }
    let (dir, other) = candidates[rng.below(candidates.len() as u32) as usize];
    // The tree path from `tile` to `other`: depth-first from `tile`.
    scratch.came_from.fill(u32::MAX);
    scratch.came_from[tile] = tile as u32;
    scratch.stack.clear();
    scratch.stack.push(tile);
    while let Some(at) = scratch.stack.pop() {
        if at == other {
            break;
        }
        for (step, &bit) in DIR_BITS.iter().enumerate() {
            if tree[at] & bit == 0 {
                continue;
            }
            let next = grid.neighbour(at, step).expect("tree edges stay on the board");
            if scratch.came_from[next] == u32::MAX {
                scratch.came_from[next] = at as u32;
                scratch.stack.push(next);
            }
        }
    }
    let mut path_edges: Vec<(usize, usize)> = Vec::new();
    let mut at = other;
    while at != tile {
        let previous = scratch.came_from[at] as usize;
        path_edges.push((previous, at));
        at = previous;
    }
    let (a, b) = path_edges[rng.below(path_edges.len() as u32) as usize];
    tree[tile] |= DIR_BITS[dir];
    tree[other] |= DIR_BITS[opposite(dir)];
    // Remove the edge a–b (on 2-wide tori two edges may join a and b: drop
    // the one the path used, which is the one that is in the tree and not
    // the edge just added).
    let removed_dir = (0..4)
        .find(|&step| {
            tree[a] & DIR_BITS[step] != 0
                && grid.neighbour(a, step) == Some(b)
                && !(a == tile && step == dir)
                && !(a == other && step == opposite(dir) && b == tile)
        })
        .expect("the path edge is in the tree");
    tree[a] &= !DIR_BITS[removed_dir];
    tree[b] &= !DIR_BITS[opposite(removed_dir)];
    let mut changed = vec![tile, other, a, b];
    changed.sort_unstable();
    changed.dedup();
    changed
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::game::pipes::find_flaw;

    #[test]
    fn trees_are_solutions_and_puzzles_are_their_rotations() {
        for (width, height, wrap) in
            [(1, 1, false), (1, 6, false), (3, 3, false), (7, 5, true), (2, 2, true), (12, 9, false)]
        {
            for seed in 0..5 {
                let options = GenSettings { width, height, wrap, unique: false, seed };
                let generated = generate(&options).unwrap();
                let grid = generated.setup.grid();
                let source = usize::from(generated.setup.source_row) * usize::from(width)
                    + usize::from(generated.setup.source_col);
                assert_eq!(find_flaw(grid, source, &generated.solution), Ok(()), "{width}x{height} seed {seed}");
                for (tile, &mask) in generated.setup.tiles.iter().enumerate() {
                    assert!(super::super::is_rotation_of(mask, generated.solution[tile]));
                }
                assert_eq!(generate(&options).unwrap(), generated, "same seed, same puzzle");
            }
        }
        let a = generate(&GenSettings { width: 8, height: 8, wrap: false, unique: false, seed: 1 }).unwrap();
        let b = generate(&GenSettings { width: 8, height: 8, wrap: false, unique: false, seed: 2 }).unwrap();
        assert_ne!(a.setup.tiles, b.setup.tiles);
    }

    #[test]
    fn unique_puzzles_have_one_solution() {
        for (width, height, wrap, seed) in [(5, 5, false, 1), (6, 4, true, 2), (10, 10, false, 3)] {
            let options = GenSettings { width, height, wrap, unique: true, seed };
            let generated = generate(&options).unwrap();
            let grid = generated.setup.grid();
            let source =
                usize::from(generated.setup.source_row) * usize::from(width) + usize::from(generated.setup.source_col);
            assert_eq!(find_flaw(grid, source, &generated.solution), Ok(()));
            let mut solver = Solver::new(grid);
            let report = solver.run(&generated.setup.tiles, source, 2, &Budget::unlimited()).unwrap();
            assert_eq!(report.solutions, 1, "{width}x{height} wrap={wrap}");
            assert_eq!(solver.solution(), generated.solution.as_slice());
        }
    }
}
