//! The search: branching on the undecided tile with the most conflicts,
//! chronological backtracking over the trail, restarts, and counting
//! solutions up to a limit.

use super::solver::{Choice, NO_TILE, Solver, Undo};
use super::tables::ROTATIONS;
use crate::plan::{Budget, PlanError};

/// How often (in branches) the search polls its time budget.
const BUDGET_POLL_BRANCHES: u64 = 256;

/// Backtracks before the first restart; each restart multiplies the limit
/// by [`RESTART_GROWTH`], so some run is always long enough to finish. The
/// generated boards up to 500×500 need at most about 2,000, so only a
/// board that thrashes anyway restarts.
const FIRST_RESTART_BACKTRACKS: u64 = 4096;
const RESTART_GROWTH: u64 = 2;

/// What one run of the solver found.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SolveReport {
    /// Solutions found, at most the limit asked for. With limit 2, a count of
    /// 1 proves the solution unique and 0 proves there is none.
    pub solutions: u32,
    /// Branch points tried (0: deduction alone decided everything).
    pub branches: u64,
    /// Tile revisions made by propagation.
    pub revisions: u64,
    /// Times the search backtracked: after a contradiction, or to look for
    /// another solution.
    pub backtracks: u64,
    /// Times the search started again from the root.
    pub(crate) restarts: u64,
}

impl Solver {
    /// Searches the orientations of `tiles` (the board as dealt, with the
    /// source at `source`) for up to `max_solutions` solutions. The first is
    /// kept in [`Solver::solution`]. Fails only when `budget` runs out.
    pub fn run(
        &mut self,
        tiles: &[u8],
        source: usize,
        max_solutions: u32,
        budget: &Budget,
    ) -> Result<SolveReport, PlanError> {
        assert_eq!(tiles.len(), self.grid.n_tiles(), "tiles for another board");
        self.reset(tiles);
        let mut report = SolveReport { solutions: 0, branches: 0, revisions: 0, backtracks: 0, restarts: 0 };
        let source_is_dry = self.tiles[source].base == 0 && self.n_with_pipes > 0;
        let mut consistent = !source_is_dry && self.propagate();
        if !consistent {
            report.revisions = self.revisions;
            return Ok(report);
        }
        // From here on changes can be undone.
        self.recording = true;
        let root_trail_len = self.trail.len();
        let mut restart_limit = FIRST_RESTART_BACKTRACKS;
        let mut backtracks_since_restart = 0u64;
        loop {
            if consistent {
                match self.branch_tile() {
                    None => {
                        report.solutions += 1;
                        self.keep_solution(report.solutions);
                        if report.solutions >= max_solutions {
                            break;
                        }
                        consistent = false;
                    }
                    Some(tile) => {
                        report.branches += 1;
                        if report.branches % BUDGET_POLL_BRANCHES == 0 {
                            if let Some(error) = budget.exhausted() {
                                return Err(error);
                            }
                        }
                        let domain = self.tiles[tile as usize].domain;
                        let first = domain & domain.wrapping_neg();
                        self.choices.push(Choice {
                            trail_len: self.trail.len(),
                            scan_cursor: self.scan_cursor,
                            tile,
                            untried: domain & !first,
                        });
                        consistent = self.assign(tile, first);
                    }
                }
            } else {
                if report.solutions == 0 {
                    self.note_conflict();
                }
                report.backtracks += 1;
                backtracks_since_restart += 1;
                if report.solutions == 0 && backtracks_since_restart > restart_limit && !self.choices.is_empty() {
                    // Start again from the root with what the conflicts
                    // taught the branching rule.
                    self.undo_to(root_trail_len);
                    self.choices.clear();
                    self.scan_cursor = 0;
                    report.restarts += 1;
                    backtracks_since_restart = 0;
                    restart_limit = restart_limit.saturating_mul(RESTART_GROWTH);
                    consistent = true;
                    continue;
                }
                match self.choices.pop() {
                    None => break,
                    Some(choice) => {
                        self.undo_to(choice.trail_len);
                        self.scan_cursor = choice.scan_cursor;
                        if choice.untried == 0 {
                            continue;
                        }
                        let next = choice.untried & choice.untried.wrapping_neg();
                        let untried = choice.untried & !next;
                        // The last option needs no branch point of its own:
                        // it is forced by the choices above it, and undoing
                        // the parent undoes it too.
                        if untried != 0 {
                            self.choices.push(Choice { untried, ..choice });
                        }
                        consistent = self.assign(choice.tile, next);
                    }
                }
            }
        }
        report.revisions = self.revisions;
        Ok(report)
    }

    /// Reads the solution every tile's one orientation left makes, the
    /// `count`th found; the first is kept in [`Solver::solution`].
    fn keep_solution(&mut self, count: u32) {
        for tile in 0..self.tiles.len() {
            let turns = self.tiles[tile].domain.trailing_zeros() as usize;
            self.last_solution[tile] = ROTATIONS[usize::from(self.tiles[tile].base)][turns];
        }
        if count == 1 {
            self.solution.copy_from_slice(&self.last_solution);
        }
    }

    /// Restricts `tile` to the orientations in `domain` and propagates.
    fn assign(&mut self, tile: u32, domain: u8) -> bool {
        let old = self.tiles[tile as usize].domain;
        self.record(Undo::Domain { tile, old });
        self.tiles[tile as usize].domain = domain;
        self.enqueue(tile);
        self.propagate()
    }

    /// Weighs the tiles of the last contradiction.
    fn note_conflict(&mut self) {
        for tile in self.conflict {
            if tile == NO_TILE {
                continue;
            }
            if self.weight[tile as usize] == 0 {
                self.hot.push(tile);
            }
            self.weight[tile as usize] += 1;
        }
        self.conflict = [NO_TILE; 2];
    }

    /// The tile to branch on, or `None` when every tile is decided: the
    /// undecided tile that took part in the most contradictions, else the
    /// first undecided tile in row-major order.
    fn branch_tile(&mut self) -> Option<u32> {
        let mut best: Option<(u32, u32)> = None;
        for &tile in &self.hot {
            let weight = self.weight[tile as usize];
            if self.tiles[tile as usize].domain.count_ones() > 1 && best.is_none_or(|(_, most)| weight > most) {
                best = Some((tile, weight));
            }
        }
        if let Some((tile, _)) = best {
            return Some(tile);
        }
        let n = self.tiles.len();
        while self.scan_cursor < n {
            if self.tiles[self.scan_cursor].domain.count_ones() > 1 {
                return Some(self.scan_cursor as u32);
            }
            self.scan_cursor += 1;
        }
        None
    }
}
