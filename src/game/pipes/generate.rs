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
//! With `unique`, the generator then runs the solver's deduction alone (no
//! search) and, where deduction leaves tiles undecided, changes the tree
//! there (Tatham's approach): add an edge at an undecided tile, which closes
//! a loop in the tree, and remove another edge of that loop, so the tree
//! stays spanning; the tiles touched are dealt a new random turn. Then it
//! deduces again, until deduction decides every tile: a puzzle that
//! deduction alone solves has exactly one solution. Each round changes the
//! tree at every group of undecided tiles at once (one change per
//! [`TILES_PER_CHANGE`] undecided tiles of a group, at least one), and only
//! along short loops, so one deduction over the board (linear in its size)
//! serves many changes and a change stays local: a 300×300 board takes
//! about a dozen rounds. (Proving uniqueness by counting solutions after
//! each single change, as before, took minutes at 300×300.)
//!
//! The generator is not part of the rules: it stands above the planners,
//! since it runs the solver, which the rules never name.

use crate::game::pipes::plan::solve::Solver;
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
    #[error(
        "no unique puzzle after {adjustments} adjustments in {MAX_ROUNDS} rounds; try another seed or drop --unique"
    )]
    NotUnique { adjustments: u32 },
    /// The budget ran out (Ctrl-C) between rounds of `--unique`.
    #[error("generation stopped: {0}")]
    Stopped(#[from] PlanError),
}

/// Rounds of deduce-and-change before `--unique` gives up. Boards up to
/// 500×500 need a few dozen at most.
const MAX_ROUNDS: u32 = 1000;

/// Undecided tiles of one group per change made to the tree in a round.
const TILES_PER_CHANGE: usize = 24;

/// The longest loop a change may close (tree path plus the new edge), so
/// that it changes the tree only near the undecided tile.
const MAX_LOOP: usize = 24;

/// Generates a puzzle as `options` say.
pub fn generate(options: &GenSettings) -> Result<Generated, GenerateError> {
    generate_within(options, &Budget::unlimited())
}

/// [`generate`], stopping with [`GenerateError::Stopped`] once `budget`
/// runs out (polled before each round of `--unique`).
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
        let mut solver = Solver::new(grid);
        let mut scratch = Scratch::new(grid.n_tiles());
        let mut rounds = 0;
        loop {
            if let Some(error) = budget.exhausted() {
                return Err(error.into());
            }
            let consistent = solver.deduce(&tiles, source);
            debug_assert!(consistent, "the tree is a solution");
            let sites = change_sites(grid, &solver, &mut rng, &mut scratch);
            if sites.is_empty() {
                break;
            }
            if rounds >= MAX_ROUNDS {
                return Err(GenerateError::NotUnique { adjustments });
            }
            for tile in sites {
                let changed = perturb(grid, &mut tree, tile, &mut rng, &mut scratch);
                adjustments += u32::from(!changed.is_empty());
                for tile in changed {
                    tiles[tile] = rotate_by(tree[tile], rng.below(4) as u8);
                }
            }
            rounds += 1;
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

/// Scratch for [`change_sites`] and [`perturb`], reused across rounds:
/// marks stamped with a round number, so nothing is cleared per search.
struct Scratch {
    stamp: Vec<u32>,
    current: u32,
    came_from: Vec<u32>,
    queue: Vec<usize>,
    group: Vec<usize>,
}

impl Scratch {
    fn new(n: usize) -> Scratch {
        Scratch { stamp: vec![0; n], current: 0, came_from: vec![0; n], queue: Vec::new(), group: Vec::new() }
    }

    /// Starts a new search: every tile unmarked.
    fn next_search(&mut self) {
        self.current = self.current.wrapping_add(1);
        if self.current == 0 {
            self.stamp.fill(0);
            self.current = 1;
        }
    }

    fn marked(&self, tile: usize) -> bool {
        self.stamp[tile] == self.current
    }

    fn mark(&mut self, tile: usize) {
        self.stamp[tile] = self.current;
    }
}

/// The tiles to change the tree at: the tiles deduction left undecided fall
/// into groups of neighbours; from each group, one random member per
/// [`TILES_PER_CHANGE`] of them (at least one). Groups are found in
/// row-major order of their first tile, so the draws are reproducible.
fn change_sites(grid: Grid, solver: &Solver, rng: &mut GameRng, scratch: &mut Scratch) -> Vec<usize> {
    let mut sites = Vec::new();
    scratch.next_search();
    for start in 0..grid.n_tiles() {
        if solver.is_decided(start) || scratch.marked(start) {
            continue;
        }
        scratch.group.clear();
        scratch.queue.clear();
        scratch.queue.push(start);
        scratch.mark(start);
        while let Some(tile) = scratch.queue.pop() {
            scratch.group.push(tile);
            for dir in 0..4 {
                if let Some(other) = grid.neighbour(tile, dir) {
                    if !solver.is_decided(other) && !scratch.marked(other) {
                        scratch.mark(other);
                        scratch.queue.push(other);
                    }
                }
            }
        }
        let n_changes = scratch.group.len().div_ceil(TILES_PER_CHANGE);
        for _ in 0..n_changes {
            sites.push(scratch.group[rng.below(scratch.group.len() as u32) as usize]);
        }
    }
    sites
}

/// Adds a random non-tree edge at `tile` and removes a random other edge of
/// the loop it closes, preferring an edge whose loop is at most
/// [`MAX_LOOP`] long; failing that, it takes any loop but removes one of the
/// [`MAX_LOOP`] edges of it nearest `tile`. Returns the tiles whose masks
/// changed (none if `tile` has no edge to add).
fn perturb(grid: Grid, tree: &mut [u8], tile: usize, rng: &mut GameRng, scratch: &mut Scratch) -> Vec<usize> {
    let open_sides = |tree: &[u8], crowded_ok: bool| -> Vec<(usize, usize)> {
        (0..4)
            .filter(|&dir| tree[tile] & DIR_BITS[dir] == 0)
            .filter_map(|dir| grid.neighbour(tile, dir).filter(|&other| other != tile).map(|other| (dir, other)))
            .filter(|&(_, other)| crowded_ok || (tree[tile].count_ones() < 3 && tree[other].count_ones() < 3))
            .collect()
    };
    let mut candidates = open_sides(tree, false);
    if candidates.is_empty() {
        // Crowded tiles: allow a cross rather than get stuck.
        candidates = open_sides(tree, true);
    }
    let mut short = candidates.clone();
    let mut found = None;
    while found.is_none() && !short.is_empty() {
        let (dir, other) = short.swap_remove(rng.below(short.len() as u32) as usize);
        found = tree_path(grid, tree, tile, other, MAX_LOOP - 1, scratch).map(|path| (dir, other, path));
    }
    if found.is_none() && !candidates.is_empty() {
        let (dir, other) = candidates[rng.below(candidates.len() as u32) as usize];
        found = tree_path(grid, tree, tile, other, usize::MAX, scratch).map(|path| (dir, other, path));
    }
    if let Some((dir, other, path_edges)) = found {
        // The path runs from `other` back to `tile`: the nearest edges to
        // `tile` and `other` are at the two ends.
        let near = MAX_LOOP / 2;
        let index = if path_edges.len() <= 2 * near {
            rng.below(path_edges.len() as u32) as usize
        } else {
            let pick = rng.below(2 * near as u32) as usize;
            if pick < near { pick } else { path_edges.len() - 2 * near + pick }
        };
        let (a, b) = path_edges[index];
        tree[tile] |= DIR_BITS[dir];
        tree[other] |= DIR_BITS[opposite(dir)];
        // Remove the edge a–b (on 2-wide tori two edges may join a and b:
        // drop the one the path used, which is the one that is in the tree
        // and not the edge just added).
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
        return changed;
    }
    Vec::new()
}

/// The edges of the tree path from `from` to `to` (listed from `to`),
/// found breadth first from `from`; `None` if it is longer than
/// `max_edges`.
fn tree_path(
    grid: Grid,
    tree: &[u8],
    from: usize,
    to: usize,
    max_edges: usize,
    scratch: &mut Scratch,
) -> Option<Vec<(usize, usize)>> {
    scratch.next_search();
    scratch.mark(from);
    scratch.queue.clear();
    scratch.queue.push(from);
    let mut depth_end = 1;
    let mut depth = 0;
    let mut head = 0;
    while head < scratch.queue.len() {
        if head == depth_end {
            depth += 1;
            depth_end = scratch.queue.len();
            if depth > max_edges {
                return None;
            }
        }
        let at = scratch.queue[head];
        head += 1;
        if at == to {
            let mut path = Vec::new();
            let mut step = to;
            while step != from {
                let previous = scratch.came_from[step] as usize;
                path.push((previous, step));
                step = previous;
            }
            return Some(path);
        }
        for (dir, &bit) in DIR_BITS.iter().enumerate() {
            if tree[at] & bit == 0 {
                continue;
            }
            let next = grid.neighbour(at, dir).expect("tree edges stay on the board");
            if !scratch.marked(next) {
                scratch.mark(next);
                scratch.came_from[next] = at as u32;
                scratch.queue.push(next);
            }
        }
    }
    None
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
                    assert!(super::super::grid::is_rotation_of(mask, generated.solution[tile]));
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
