//! `solve`: our complete Net solver, and the planner that plays its answer.
//!
//! Constraint propagation over two kinds of variable: each tile's remaining
//! orientations (a 4-bit domain, duplicates of symmetric tiles removed) and
//! each edge's state (unknown, open, closed; border edges of non-wrapping
//! boards start closed), held as a mask of open and one of closed
//! directions in each of its two tiles. A work queue revises a tile
//! whenever one of its edges changes: orientations that disagree with a
//! known edge go (one table look-up), and an edge that every remaining
//! orientation opens (or closes) is set. Three
//! global rules ride on a union-find of the tiles joined by open edges:
//! - loops: opening an edge inside one component is a contradiction, and
//!   after every union each unknown edge that now runs inside the component
//!   is closed (found by walking the smaller of the two merged parts);
//! - closed pockets: each component counts its unknown edges; one that has
//!   none left but does not hold every tile with pipes is a contradiction;
//! - dead ends: each component knows how many pipe ends its tiles have
//!   left to join (their pipes minus twice its inner edges). Two components
//!   with one end left each must not be joined to each other unless they
//!   hold every tile with pipes between them, since they would close a
//!   pocket; so an unknown edge between them is closed. (This is the rule
//!   that gets deduction going on a wrapping board, which has no border to
//!   start from: two dead-end tiles side by side never face each other.)
//!   The component also keeps the XOR of its tiles that still have ends to
//!   join, so when it has one end left, that tile is known without a walk.
//!
//! Where deduction stalls, the search branches. Every change is written to a
//! trail, so backtracking undoes exactly what a branch did (the union-find
//! has no path compression for that reason; union by size keeps it shallow)
//! and nothing is cloned per branch. The search can go on after the first
//! solution to count up to a limit, which is how `--count` and the
//! generator prove uniqueness.
//!
//! Branching: the undecided tile that took part in the most contradictions
//! so far (its weight), else the first undecided tile in row-major order.
//! This is the weighted-degree rule of Boussemart, Hemery, Lecoutre and
//! Sais, "Boosting systematic search by weighting constraints" (ECAI 2004).
//! A sweep in row-major order decides the board front by front; a wrong
//! choice is sometimes refuted only rows later, and chronological
//! backtracking then tries every combination of the unrelated choices made
//! along the front in between: the heavy tail. Once a spot has failed a few
//! times, the weights make the search settle it right after the next
//! backtrack, so the culprit is found without enumerating the rest. As a
//! safety net the search restarts from the root (weights kept) after
//! `FIRST_RESTART_BACKTRACKS` backtracks, a limit that doubles at each
//! restart so the search stays complete (Gomes, Selman and Kautz, "Boosting
//! combinatorial search through randomization", AAAI 1998); no board we
//! generated reaches it. Restarts stop once a solution is found, so
//! counting goes on from it. Nothing is random: a board is always solved
//! the same way.
//!
//! What each candidate did, measured on generated boards 300×300 flat and
//! wrapping, seeds 1 to 20 (tile revisions summed over the run; the root
//! propagation alone is about 90,000 of them):
//! - row-major branching alone, before the dead-end rule: seed 1 flat took
//!   961,540 branch points, wrapping seeds 1 and 2 did not finish in
//!   minutes; 2 of 40 boards over a 20 s limit, the worst wrapping board
//!   finished at 2.4 million revisions;
//! - the branching tile next to what the last branch changed (a frontier
//!   of the network) instead of row-major: worse, 7 of 9 hard boards over
//!   20 s; last-conflict branching (Lecoutre et al. 2009): 11 of 40 over;
//! - a global connectivity test after every branch: the same branch
//!   counts, so the late refutations are not disconnections;
//! - weights with restarts every 256 backtracks, doubling (the first fix,
//!   before the dead-end rule): every board solved, the worst at 24
//!   million revisions; restarting only the last rows of the sweep (Luby
//!   limits) halved the median but left 2 of 40 over 20 s;
//! - the dead-end rule: deduction now decides most of a wrapping board
//!   before any branch; with row-major branching 1 of 40 boards still
//!   thrashed, with weights and no restart the worst took 222,790
//!   revisions, with restarts every 256 backtracks 356,927 (restarts throw
//!   away good work: at 500×500 one board took 14 million). Hence the
//!   weights with a restart limit far above what any board needed.
//!
//! The solver never sees a reference solution: only the tiles as dealt.
//!
//! The parts, one job per file: `tables` (each tile's orientations and what
//! they open, computed at compile time), `solver` (the solver's state and
//! its reset), `propagate` (the rules and the trail that undoes them: the
//! hot loop), `search` (branching, backtracking and restarts), and this file
//! (the planner).

mod propagate;
mod search;
mod solver;
mod tables;
#[cfg(test)]
mod tests;

#[cfg(test)]
pub(crate) use search::SolveReport;
pub use solver::Solver;

use crate::game::pipes::plan::moves_between;
use crate::game::pipes::{PipesGame, Rotate};
use crate::plan::{Budget, Decision, Plan, PlanError, Planner, StoredPlan};

/// The `solve` planner: solves the board on its first call and plays the
/// plan, at most one move per tile (the shortest turn to its orientation in
/// the solution found).
#[derive(Debug)]
pub struct Solve {
    solver: Option<Solver>,
    plan: StoredPlan<PipesGame>,
}

impl Solve {
    pub fn new() -> Solve {
        Solve { solver: None, plan: StoredPlan::default() }
    }
}

impl Default for Solve {
    fn default() -> Self {
        Solve::new()
    }
}

impl Planner<PipesGame> for Solve {
    fn name(&self) -> &'static str {
        "solve"
    }

    fn params(&self) -> Vec<(String, String)> {
        Vec::new()
    }

    fn next_action(&mut self, game: &PipesGame, budget: &Budget) -> Result<Decision<Rotate>, PlanError> {
        let slot = &mut self.solver;
        self.plan.next_action(game, || {
            let config = game.config();
            let solver = match slot {
                Some(solver) if solver.grid() == config.grid() => solver,
                slot => slot.insert(Solver::new(config.grid())),
            };
            let report = solver.run(game.tiles(), config.source(), 1, budget)?;
            if report.solutions == 0 {
                return Err(PlanError::GaveUp("no solution".to_string()));
            }
            let kind = if report.branches == 0 { "deduction" } else { "search" };
            Ok(Plan { actions: moves_between(game.tiles(), solver.solution()), kind, nodes: report.branches })
        })
    }
}
