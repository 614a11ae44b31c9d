//! The `idastar` planner: IDA* over blank-first boards with the additive
//! pattern databases of `pdb/`, the larger of the regular and the reflected
//! sums (Korf & Felner 2002). Optimal.
//!
//! - `kernel.rs`: one thread's depth-first search below a bound, the inner
//!   loop (incremental lookups, no move back, nothing allocated per node).
//! - `split.rs`: a large iteration split into subtrees that threads share;
//!   the solution is the one-thread search's whatever the threads.
//! - `checkpoint.rs`: where a search stands, to resume it later.
//!
//! The bound starts at the root's heuristic and rises to the least f that
//! exceeded it, rounded up to the parity every solution shares (the
//! blank's row plus column: each move changes it by one), so no iteration
//! is spent on lengths no solution can have.

mod checkpoint;
mod kernel;
mod split;

use std::sync::Arc;

pub use self::checkpoint::{Checkpoint, CheckpointError, SplitProgress};
use self::kernel::{Kernel, MAX_DEPTH};
use self::split::Iteration;
use super::canonical::Canonical;
use super::pdb::PdbSet;
use crate::game::slide::{Board, Dir, SlideGame};
use crate::plan::{Budget, Decision, Plan, PlanError, Planner, Stopped, StoredPlan};

/// An iteration that generated at least this many nodes makes the next one
/// split into subtrees (shared by the threads, and recorded one by one in
/// the checkpoint). Smaller ones run whole on one thread: a few tenths of a
/// second.
const SPLIT_FROM_NODES: u64 = 1 << 22;

/// An optimal solution on the canonical (blank-first) board.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Solution {
    /// Blank moves on the canonical board.
    pub(crate) moves: Vec<Dir>,
    /// Nodes generated over all iterations (every child made and evaluated,
    /// as Korf & Felner count them; the root is not counted).
    pub(crate) nodes: u64,
}

/// A search stopped before its end.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Interrupted {
    pub(crate) error: PlanError,
    /// Nodes generated, the work cut short included.
    pub(crate) nodes: u64,
    /// Where it stood: resume from here. `None` when it stopped before its
    /// first iteration or gave up. Boxed: it is large, and rare.
    pub(crate) checkpoint: Option<Box<Checkpoint>>,
}

impl From<Interrupted> for Stopped {
    fn from(interrupted: Interrupted) -> Stopped {
        Stopped { error: interrupted.error, nodes: interrupted.nodes }
    }
}

/// How a search runs and where it starts.
#[derive(Clone, Copy)]
pub(crate) struct Run<'a> {
    /// Threads sharing a split iteration (1: the calling thread alone).
    pub(crate) threads: usize,
    /// A checkpoint of an earlier run of the same search, to go on from.
    pub(crate) resume: Option<&'a Checkpoint>,
    /// Called after each finished subtree and each finished iteration with
    /// where the search stands (from any of the threads, one at a time).
    pub(crate) report: &'a (dyn Fn(&Checkpoint) + Sync),
    /// An iteration after one that generated at least this many nodes is
    /// split ([`SPLIT_FROM_NODES`]; tests split small searches).
    pub(crate) split_from_nodes: u64,
}

impl Run<'_> {
    /// One thread, from the start, reporting to no one.
    pub(crate) fn plain() -> Run<'static> {
        Run { threads: 1, resume: None, report: &|_| {}, split_from_nodes: SPLIT_FROM_NODES }
    }
}

/// Solves `board` (blank-first goal, `tables.side()` wide) optimally.
pub(crate) fn solve(tables: &PdbSet, board: &Board, budget: &Budget, run: Run) -> Result<Solution, Interrupted> {
    match tables.max_group_tiles() {
        0..=4 => solve_with::<4>(tables, board, budget, run),
        5..=6 => solve_with::<6>(tables, board, budget, run),
        _ => solve_with::<8>(tables, board, budget, run),
    }
}

fn solve_with<const K: usize>(
    tables: &PdbSet,
    board: &Board,
    budget: &Budget,
    run: Run,
) -> Result<Solution, Interrupted> {
    let side = tables.side();
    let n = usize::from(side) * usize::from(side);
    let root = Kernel::<K>::new(tables, board, budget);
    let (regular, reflected) = root.sums();
    if regular == 0 {
        return Ok(Solution { moves: Vec::new(), nodes: 0 });
    }
    let parity = (root.blank() / side + root.blank() % side) % 2;
    let at_parity = |bound: u32| bound + u32::from(bound % 2 != u32::from(parity));
    let gave_up = |why: String, nodes| Interrupted { error: PlanError::GaveUp(why), nodes, checkpoint: None };
    let mut state = match run.resume {
        Some(checkpoint) => {
            check_resume(checkpoint, &board[..n], tables, parity).map_err(|error| gave_up(error.to_string(), 0))?;
            checkpoint.clone()
        }
        None => Checkpoint {
            board: board[..n].to_vec(),
            pdb: tables.partition().name().to_string(),
            bound: at_parity(regular.max(reflected)),
            iterations: 0,
            nodes: 0,
            last_iteration_nodes: 0,
            split: None,
        },
    };
    loop {
        if state.bound as usize >= MAX_DEPTH {
            return Err(gave_up(format!("no solution within {MAX_DEPTH} moves"), state.nodes));
        }
        let outcome = if state.split.is_some() || state.last_iteration_nodes >= run.split_from_nodes {
            split::iterate(&root, &mut state, run.threads, run.report)
        } else {
            let mut kernel = root.clone();
            let found = kernel.search(0, kernel.previous_blank(0), state.bound);
            match (found, kernel.halted) {
                (Some(length), _) => {
                    state.nodes += kernel.generated;
                    Iteration::Found(kernel.path[..length].to_vec())
                }
                (None, None) => {
                    state.nodes += kernel.generated;
                    state.last_iteration_nodes = kernel.generated;
                    Iteration::Exhausted { min_exceeded: kernel.min_exceeded }
                }
                (None, Some(kernel::Halt::Budget(error))) => Iteration::Halted { error, unrecorded: kernel.generated },
                (None, Some(kernel::Halt::Overtaken)) => unreachable!("only a split subtree is overtaken"),
            }
        };
        match outcome {
            Iteration::Found(codes) => {
                let moves = codes.iter().map(|&code| Dir::ALL[usize::from(code)]).collect();
                return Ok(Solution { moves, nodes: state.nodes });
            }
            Iteration::Halted { error, unrecorded } => {
                let nodes = state.nodes + unrecorded;
                return Err(Interrupted { error, nodes, checkpoint: Some(Box::new(state)) });
            }
            Iteration::Exhausted { min_exceeded } => {
                if min_exceeded == u32::MAX {
                    return Err(gave_up("no move left within any bound".to_string(), state.nodes));
                }
                if let Some(split) = state.split.take() {
                    state.last_iteration_nodes = split.nodes;
                }
                state.iterations += 1;
                state.bound = at_parity(min_exceeded.max(state.bound + 1));
                (run.report)(&state);
            }
        }
    }
}

/// Whether `checkpoint` can resume the search of `board` with `tables`.
fn check_resume(checkpoint: &Checkpoint, board: &[u8], tables: &PdbSet, parity: u8) -> Result<(), CheckpointError> {
    if checkpoint.board != board {
        return Err(CheckpointError::OtherBoard);
    }
    if checkpoint.pdb != tables.partition().name() {
        return Err(CheckpointError::OtherTables(checkpoint.pdb.clone()));
    }
    if checkpoint.bound % 2 != u32::from(parity) {
        return Err(CheckpointError::Damaged("its bound has the wrong parity"));
    }
    if checkpoint.split.as_ref().is_some_and(|split| !split.is_well_formed()) {
        return Err(CheckpointError::Damaged("its finished subtrees are not sorted, disjoint ranges"));
    }
    Ok(())
}

/// The `idastar` planner. Plans once, on the first tick, and hands the plan
/// out move by move.
#[derive(Debug)]
pub struct IdaStar {
    tables: Arc<PdbSet>,
    threads: usize,
    plan: StoredPlan<SlideGame>,
}

impl IdaStar {
    /// The planner on one thread.
    pub fn new(tables: Arc<PdbSet>) -> IdaStar {
        IdaStar::with_threads(tables, 1)
    }

    /// The planner sharing each large iteration among `threads` threads
    /// (the plan is the same on any number).
    pub fn with_threads(tables: Arc<PdbSet>, threads: usize) -> IdaStar {
        IdaStar { tables, threads: threads.max(1), plan: StoredPlan::default() }
    }

    /// Solves `game`'s current board; the moves are real (not canonical).
    pub fn solve_game(&self, game: &SlideGame, budget: &Budget) -> Result<(Vec<Dir>, u64), Stopped> {
        let run = Run { threads: self.threads, ..Run::plain() };
        solve_game(&self.tables, game, budget, run).map_err(Stopped::from)
    }

    /// [`IdaStar::solve_game`], resumable: from `run.resume` if given,
    /// reporting to `run.report`; a stopped search says where it stood.
    pub(crate) fn solve_game_resumable(
        &self,
        game: &SlideGame,
        budget: &Budget,
        resume: Option<&Checkpoint>,
        report: &(dyn Fn(&Checkpoint) + Sync),
    ) -> Result<(Vec<Dir>, u64), Interrupted> {
        solve_game(&self.tables, game, budget, Run { threads: self.threads, resume, report, ..Run::plain() })
    }
}

fn solve_game(tables: &PdbSet, game: &SlideGame, budget: &Budget, run: Run) -> Result<(Vec<Dir>, u64), Interrupted> {
    let config = game.config();
    if config.side() != tables.side() {
        let error = PlanError::GaveUp(format!(
            "the {} pattern databases are for {}×{} boards, this board is {}×{}",
            tables.partition().name(),
            tables.side(),
            tables.side(),
            config.side(),
            config.side()
        ));
        return Err(Interrupted { error, nodes: 0, checkpoint: None });
    }
    let canonical = Canonical::new(config.side(), game.board(), config.goal());
    let solution = solve(tables, &canonical.board, budget, run)?;
    Ok((solution.moves.iter().map(|&dir| canonical.real_move(dir)).collect(), solution.nodes))
}

impl Planner<SlideGame> for IdaStar {
    fn name(&self) -> &'static str {
        "idastar"
    }

    fn params(&self) -> Vec<(String, String)> {
        vec![("pdb".to_string(), self.tables.partition().name().to_string())]
    }

    fn next_action(&mut self, game: &SlideGame, budget: &Budget) -> Result<Decision<Dir>, PlanError> {
        let (tables, threads) = (&self.tables, self.threads);
        self.plan.next_action(game, || {
            let run = Run { threads, ..Run::plain() };
            let (actions, nodes) = solve_game(tables, game, budget, run).map_err(|stopped| stopped.error)?;
            Ok(Plan { actions, kind: "idastar", nodes })
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::game::slide::plan::pdb::Partition;
    use crate::game::slide::{Goal, apply_moves, goal_board, neighbour};

    #[test]
    fn solves_the_write_ups_puzzle_in_sixteen_moves() {
        let tables = PdbSet::build(Partition::P44);
        let start = Canonical::new(
            3,
            &[7, 3, 0, 8, 1, 4, 6, 2, 5, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0],
            Goal::BlankLast,
        );
        let solution = solve(&tables, &start.board, &Budget::unlimited(), Run::plain()).unwrap();
        assert_eq!(solution.moves.len(), 16);
        assert_eq!(apply_moves(3, &start.board, &solution.moves), Some(goal_board(3, Goal::BlankFirst)));
    }

    #[test]
    fn a_cancelled_budget_stops_the_search() {
        let tables = PdbSet::build(Partition::P44);
        let flag = Arc::new(std::sync::atomic::AtomicBool::new(true));
        let budget = Budget::new(None, Some(flag));
        // The budget is looked at on the first node, then every 16384.
        let start = [0, 8, 7, 6, 5, 4, 3, 2, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0];
        let stopped = solve(&tables, &start, &budget, Run::plain()).unwrap_err();
        assert_eq!(stopped.error, PlanError::Cancelled);
        assert_eq!(stopped.nodes, 0, "stopped at the first look");
        let checkpoint = stopped.checkpoint.expect("stopped in its first iteration");
        assert_eq!((checkpoint.iterations, checkpoint.nodes), (0, 0));
    }

    /// Every reachable 8-puzzle state, by breadth-first search from the
    /// goal: `(board, distance)`.
    fn every_eight_puzzle_state() -> Vec<(Board, u8)> {
        use crate::game::slide::plan::pdb::rank;
        let goal = goal_board(3, Goal::BlankFirst);
        let index_of = |board: &Board| {
            let mut positions = [0u8; 9];
            for cell in 0..9 {
                positions[usize::from(board[cell])] = cell as u8;
            }
            rank(&positions, 9)
        };
        let mut seen = vec![false; 362_880];
        seen[index_of(&goal)] = true;
        let mut states = vec![(goal, 0u8)];
        let mut at = 0;
        while at < states.len() {
            let (board, distance) = states[at];
            at += 1;
            let blank = board[..9].iter().position(|&tile| tile == 0).unwrap() as u8;
            for dir in Dir::ALL {
                if let Some(next) = neighbour(3, blank, dir) {
                    let mut child = board;
                    child.swap(usize::from(blank), usize::from(next));
                    let index = index_of(&child);
                    if !seen[index] {
                        seen[index] = true;
                        states.push((child, distance + 1));
                    }
                }
            }
        }
        states
    }

    #[test]
    fn every_eight_puzzle_state_is_solved_at_its_breadth_first_distance() {
        let states = every_eight_puzzle_state();
        assert_eq!(states.len(), 181_440);
        assert_eq!(states.iter().map(|&(_, distance)| distance).max(), Some(31));
        let tables = PdbSet::build(Partition::P44);
        let goal = goal_board(3, Goal::BlankFirst);
        for (index, (board, distance)) in states.iter().enumerate() {
            let solution = solve(&tables, board, &Budget::unlimited(), Run::plain()).unwrap();
            assert_eq!(solution.moves.len(), usize::from(*distance), "idastar on {:?}", &board[..9]);
            assert_eq!(apply_moves(3, board, &solution.moves), Some(goal));
            assert!(tables.heuristic(board) <= u32::from(*distance), "admissible");
            // A* keeps every state it meets: check it on a stride that still
            // covers every distance.
            if index % 61 == 0 {
                let solution =
                    crate::game::slide::plan::astar::solve(3, board, &Budget::unlimited(), 1_000_000).unwrap();
                assert_eq!(solution.moves.len(), usize::from(*distance), "astar on {:?}", &board[..9]);
                assert_eq!(apply_moves(3, board, &solution.moves), Some(goal));
            }
        }
    }

    #[test]
    fn fifteen_puzzle_solutions_are_optimal_and_the_bound_admissible_along_them() {
        use crate::game::slide::plan::astar;
        use crate::rng::GameRng;
        // 5-5-5 is the smallest 15-puzzle partition that builds in seconds.
        let tables = p555();
        let goal = goal_board(4, Goal::BlankFirst);
        let mut rng = GameRng::from_seed(4);
        for _ in 0..12 {
            let steps = 30 + rng.below(16);
            let board = random_walk(steps, &mut rng);
            let solution = solve(tables, &board, &Budget::unlimited(), Run::plain()).unwrap();
            let reference = astar::solve(4, &board, &Budget::unlimited(), 5_000_000).unwrap();
            assert_eq!(solution.moves.len(), reference.moves.len(), "{:?}", &board[..16]);
            // Along an optimal path the distance left is known exactly.
            let mut along = board;
            for (done, &dir) in solution.moves.iter().enumerate() {
                assert!(tables.heuristic(&along) as usize <= solution.moves.len() - done);
                along = apply_moves(4, &along, &[dir]).unwrap();
            }
            assert_eq!(along, goal);
        }
    }

    /// The 5-5-5 tables, built once for the tests that share them.
    fn p555() -> &'static PdbSet {
        static TABLES: std::sync::OnceLock<PdbSet> = std::sync::OnceLock::new();
        TABLES.get_or_init(|| PdbSet::build(Partition::P555))
    }

    /// A 15-puzzle board `steps` random moves from the goal, never straight back.
    fn random_walk(steps: u32, rng: &mut crate::rng::GameRng) -> Board {
        let mut board = goal_board(4, Goal::BlankFirst);
        let mut blank = 0u8;
        let mut last: Option<Dir> = None;
        for _ in 0..steps {
            let dir = Dir::ALL[rng.below(4) as usize];
            if let (Some(next), false) = (neighbour(4, blank, dir), Some(dir.opposite()) == last) {
                board.swap(usize::from(blank), usize::from(next));
                blank = next;
                last = Some(dir);
            }
        }
        board
    }

    /// Splitting iterations into subtrees changes neither the plan nor, on
    /// one thread, the node count whether the search runs whole or is
    /// stopped half-way and resumed; on two threads the plan is the same.
    #[test]
    fn split_and_resumed_searches_find_the_one_thread_plan() {
        use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
        let tables = p555();
        let board = random_walk(200, &mut crate::rng::GameRng::from_seed(21));
        let plain = solve(tables, &board, &Budget::unlimited(), Run::plain()).unwrap();
        let split = |threads| Run { threads, split_from_nodes: 1, ..Run::plain() };
        let reports = AtomicUsize::new(0);
        let count = |_: &Checkpoint| {
            reports.fetch_add(1, Ordering::Relaxed);
        };
        let whole = solve(tables, &board, &Budget::unlimited(), Run { report: &count, ..split(1) }).unwrap();
        assert_eq!(whole.moves, plain.moves);
        let reports = reports.into_inner();
        assert!(reports > 20, "{reports} subtrees and iterations: the search was not split");
        assert_eq!(solve(tables, &board, &Budget::unlimited(), split(2)).unwrap().moves, plain.moves);
        // Stopped after half its reports, then resumed on one and on two threads.
        let cancel = Arc::new(AtomicBool::new(false));
        let budget = Budget::new(None, Some(Arc::clone(&cancel)));
        let seen = AtomicUsize::new(0);
        let stop_half_way = |_: &Checkpoint| {
            if seen.fetch_add(1, Ordering::Relaxed) + 1 == reports / 2 {
                cancel.store(true, Ordering::Relaxed);
            }
        };
        let stopped = solve(tables, &board, &budget, Run { report: &stop_half_way, ..split(1) }).unwrap_err();
        assert_eq!(stopped.error, PlanError::Cancelled);
        let checkpoint = stopped.checkpoint.expect("stopped within an iteration");
        assert!(checkpoint.nodes > 0 && checkpoint.nodes < whole.nodes);
        let resumed =
            solve(tables, &board, &Budget::unlimited(), Run { resume: Some(&checkpoint), ..split(1) }).unwrap();
        assert_eq!((resumed.moves.len(), resumed.nodes), (whole.moves.len(), whole.nodes));
        assert_eq!(resumed.moves, plain.moves);
        let resumed =
            solve(tables, &board, &Budget::unlimited(), Run { resume: Some(&checkpoint), ..split(2) }).unwrap();
        assert_eq!(resumed.moves, plain.moves);
        // A checkpoint of another board is refused.
        let other = random_walk(20, &mut crate::rng::GameRng::from_seed(22));
        let refused = solve(tables, &other, &Budget::unlimited(), Run { resume: Some(&checkpoint), ..split(1) });
        assert!(matches!(refused, Err(Interrupted { error: PlanError::GaveUp(_), .. })));
    }
}
