//! The sliding puzzle's planners, and the registry that names them: every
//! command that plays the puzzle (`play`, `run`, session files, `bench`)
//! chooses a planner and reads its flags through [`PlannerArgs`].
//!
//! - [`astar`]: A* with Manhattan distance plus linear conflicts (optimal;
//!   it keeps every state it meets, so memory bounds it).
//! - [`idastar`]: IDA* over the additive pattern databases of [`pdb`]
//!   (optimal; the default).
//! - [`ga`]: the genetic algorithm of a 2020 write-up, ours or, with
//!   `--write-up`, the write-up's own (not optimal).
//!
//! The searches work on the blank-first goal only: `canonical.rs` turns a
//! blank-last instance into a blank-first one and their moves back.
//!
//! IDA*'s tables take from a second to minutes to build, so they are built
//! once and kept in an on-disk cache, which is file I/O and so lives outside
//! the game (`src/pdb_cache.rs`). The registry says which tables a board
//! needs ([`PlannerArgs::tables_needed`]); the caller loads them through the
//! cache and hands them to [`PlannerArgs::prepare`], whose [`PlannerMaker`]
//! then makes a fresh planner for each game.

pub mod astar;
pub(crate) mod canonical;
pub mod ga;
pub mod idastar;
pub mod pdb;

use std::path::PathBuf;
use std::sync::Arc;

use clap::{Args, ValueEnum};

use self::astar::{AStar, DEFAULT_MAX_NODES};
use self::ga::{GaPlanner, GaSettings};
use self::idastar::{Checkpoint, IdaStar};
use self::pdb::{Partition, PdbSet};
use crate::game::slide::{Dir, SlideGame};
use crate::plan::{Budget, ChoiceError, Planner, Variant};

/// The planner flags of every sliding-puzzle command.
#[derive(Clone, Debug, Args)]
pub struct PlannerArgs {
    /// The planner.
    #[arg(long, value_enum, default_value_t = PlannerName::Idastar)]
    pub planner: PlannerName,
    /// idastar's pattern databases. Default: 4-4 (3×3), 6-6-3 (4×4), 6-6-6-6 (5×5).
    /// 6-6-6-6 (two tables, turned to serve four groups) and 7-8 take minutes and
    /// 2-3 GB of memory to build the first time; later runs load them from the cache.
    #[arg(long, value_name = "GROUPS", value_parser = parse_partition)]
    pub(crate) pdb: Option<Partition>,
    /// Where pattern databases are cached. Default: $TICKBOT_PDB_DIR, else
    /// $XDG_CACHE_HOME/tickbot, else ~/.cache/tickbot.
    #[arg(long, value_name = "DIR")]
    pub pdb_dir: Option<PathBuf>,
    /// Build the pattern databases in memory; read and write no cache.
    #[arg(long, conflicts_with = "pdb_dir")]
    pub no_pdb_cache: bool,
    /// idastar: threads sharing one search (its large iterations are split
    /// into subtrees). The plan is the same on any number. Default: all cores.
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u16).range(1..))]
    pub(crate) threads: Option<u16>,
    /// astar: give up after storing this many states.
    #[arg(long, default_value_t = DEFAULT_MAX_NODES)]
    pub(crate) max_nodes: u64,
    #[command(flatten)]
    pub(crate) ga: GaArgs,
}

impl Default for PlannerArgs {
    /// What the command line gives when no planner flag is set.
    fn default() -> Self {
        PlannerArgs {
            planner: PlannerName::default(),
            pdb: None,
            pdb_dir: None,
            no_pdb_cache: false,
            threads: None,
            max_nodes: DEFAULT_MAX_NODES,
            ga: GaArgs::default(),
        }
    }
}

/// The sliding puzzle's planners by the names `--planner` takes.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, ValueEnum)]
pub enum PlannerName {
    /// A* with Manhattan distance plus linear conflicts (optimal; 8-puzzles, easy 15-puzzles).
    Astar,
    /// IDA* with additive pattern databases, maxed with the reflected lookup (optimal).
    #[default]
    Idastar,
    /// A genetic algorithm from a 2020 write-up: ours, or its own with --write-up (not optimal).
    Ga,
}

impl PlannerName {
    /// Whether every solution it finds is a shortest one, so that a longer
    /// one is a fault (`bench slide` fails on it).
    pub fn is_optimal(self) -> bool {
        match self {
            PlannerName::Astar | PlannerName::Idastar => true,
            PlannerName::Ga => false,
        }
    }
}

/// The ga planner's parameters. The first five are the write-up's names; the
/// write-up gives no value for any of them, nor has generations per round or a
/// number of rounds: every default here is ours.
#[derive(Clone, Debug, Args)]
#[command(next_help_heading = "ga planner (every default is ours: the write-up publishes no values)")]
pub(crate) struct GaArgs {
    /// The write-up's version exactly: one child per crossing, cut drawn from 1 to
    /// move_count-2, the number crossed rounded half to even; cut to --policy-limit,
    /// then mutate; the carried prefix kept inside the policy (a solution must fit in
    /// --move-count); the winning policy played unshortened. Default (ours): two
    /// children, cut from 1 to move_count-1, rounded up; mutate, then cut; the prefix
    /// frozen on the board with --move-count fresh genes per round; the shortened
    /// solution played. The printed code's three array-view bugs are not reproduced.
    #[arg(long)]
    pub(crate) write_up: bool,
    /// Moves per policy.
    #[arg(long, default_value_t = GaSettings::default().move_count)]
    pub(crate) move_count: usize,
    /// Policies kept after each generation.
    #[arg(long, default_value_t = GaSettings::default().policy_limit)]
    pub(crate) policy_limit: usize,
    /// Percent of the best policies crossed each generation.
    #[arg(long, default_value_t = GaSettings::default().hybrid_rate)]
    pub(crate) hybrid_rate: u32,
    /// Percent chance a policy is mutated each generation.
    #[arg(long, default_value_t = GaSettings::default().mutate_rate)]
    pub(crate) mutate_rate: u32,
    /// Undo a mutation that makes the value worse.
    #[arg(long, default_value_t = GaSettings::default().better_mutate, action = clap::ArgAction::Set)]
    pub(crate) better_mutate: bool,
    /// Generations per round, before the best policy becomes the next round's prefix
    /// (ours: the write-up gives no number).
    #[arg(long, default_value_t = GaSettings::default().generations_per_round)]
    pub(crate) generations_per_round: u64,
    /// Rounds before giving up (ours: the write-up gives no number).
    #[arg(long, default_value_t = GaSettings::default().max_rounds)]
    pub(crate) max_rounds: u32,
}

impl Default for GaArgs {
    fn default() -> Self {
        let p = GaSettings::default();
        GaArgs {
            move_count: p.move_count,
            policy_limit: p.policy_limit,
            hybrid_rate: p.hybrid_rate,
            mutate_rate: p.mutate_rate,
            better_mutate: p.better_mutate,
            generations_per_round: p.generations_per_round,
            max_rounds: p.max_rounds,
            write_up: p.variant == Variant::WriteUp,
        }
    }
}

impl GaArgs {
    /// The GA's settings, its random stream seeded from `seed`.
    fn settings(&self, seed: u64) -> GaSettings {
        GaSettings {
            move_count: self.move_count,
            policy_limit: self.policy_limit,
            hybrid_rate: self.hybrid_rate,
            mutate_rate: self.mutate_rate,
            better_mutate: self.better_mutate,
            generations_per_round: self.generations_per_round,
            max_rounds: self.max_rounds,
            seed,
            variant: Variant::write_up_if(self.write_up),
        }
    }
}

fn parse_partition(text: &str) -> Result<Partition, String> {
    Partition::parse(text)
        .ok_or_else(|| format!("unknown pattern databases {text:?}: use 4-4, 6-6-3, 5-5-5, 7-8 or 6-6-6-6"))
}

impl PlannerArgs {
    /// Checks that the flags go together; call once, before
    /// [`PlannerArgs::prepare`]. Every combination is accepted: the
    /// searches ignore the GA's flags (`--write-up` included), and `--pdb`
    /// is checked against the board by [`PlannerArgs::tables_needed`] once
    /// the board's size is known.
    pub fn check(&self) -> Result<(), ChoiceError> {
        Ok(())
    }

    /// The pattern databases the chosen planner needs for boards of `side`:
    /// those `--pdb` names, or the side's default, for idastar; none for
    /// the others. `--pdb` for another board size is an error.
    pub fn tables_needed(&self, side: u8) -> Result<Option<Partition>, ChoiceError> {
        if self.planner != PlannerName::Idastar {
            return Ok(None);
        }
        let partition = self.pdb.unwrap_or_else(|| Partition::default_for(side));
        if partition.side() != side {
            return Err(ChoiceError::new(format!(
                "--pdb {} is for {}×{} boards, the instances are {side}×{side}",
                partition.name(),
                partition.side(),
                partition.side()
            )));
        }
        Ok(Some(partition))
    }

    /// The chosen planner, ready to make: `tables` are the ones
    /// [`PlannerArgs::tables_needed`] named, loaded; `seed` seeds the ga
    /// planner's random stream.
    ///
    /// # Panics
    /// If the planner needs tables and none are given: a caller bug.
    pub fn prepare(&self, tables: Option<Arc<PdbSet>>, seed: u64) -> PlannerMaker {
        let choice = match self.planner {
            PlannerName::Astar => Choice::AStar { max_nodes: self.max_nodes },
            PlannerName::Idastar => Choice::IdaStar {
                tables: tables.expect("idastar's tables are loaded before it is prepared"),
                threads: self.threads.map_or_else(all_cores, usize::from),
            },
            PlannerName::Ga => Choice::Ga { settings: self.ga.settings(seed) },
        };
        PlannerMaker { choice }
    }
}

/// A planner chosen by [`PlannerArgs`] with what it needs (its pattern
/// databases, its settings): makes a fresh planner for each game, and
/// solves whole boards for `bench slide`.
#[derive(Clone, Debug)]
pub struct PlannerMaker {
    choice: Choice,
}

#[derive(Clone, Debug)]
enum Choice {
    AStar { max_nodes: u64 },
    IdaStar { tables: Arc<PdbSet>, threads: usize },
    Ga { settings: GaSettings },
}

/// One planner's attempt at a whole board.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Attempt {
    /// The solution's moves, or `None` if the planner gave up or ran out of time.
    pub(crate) moves: Option<Vec<Dir>>,
    /// Nodes expanded (the GA: policies evaluated).
    pub(crate) nodes: u64,
    /// The GA only: generations bred over all rounds.
    pub(crate) generations: Option<u64>,
    /// idastar only, when it stopped before the end: where it stood.
    pub(crate) checkpoint: Option<Checkpoint>,
}

impl PlannerMaker {
    /// A fresh planner for one game (one planner plays one game).
    pub fn make(&self) -> Box<dyn Planner<SlideGame>> {
        match &self.choice {
            Choice::AStar { max_nodes } => Box::new(AStar::new(*max_nodes)),
            Choice::IdaStar { tables, threads } => Box::new(IdaStar::with_threads(Arc::clone(tables), *threads)),
            Choice::Ga { settings } => Box::new(GaPlanner::new(*settings)),
        }
    }

    /// Solves `game`'s board from where it stands, within `budget`.
    #[cfg(test)]
    pub(crate) fn solve(&self, game: &SlideGame, budget: &Budget) -> Attempt {
        self.solve_resumable(game, budget, None, &|_| {})
    }

    /// [`PlannerMaker::solve`], and for idastar resumable: it goes on from
    /// `resume` (a checkpoint of the same board) and reports where it stands
    /// to `report` as it goes; a stopped attempt carries its checkpoint.
    /// The other planners start afresh and report nothing.
    pub(crate) fn solve_resumable(
        &self,
        game: &SlideGame,
        budget: &Budget,
        resume: Option<&Checkpoint>,
        report: &(dyn Fn(&Checkpoint) + Sync),
    ) -> Attempt {
        let searched = match &self.choice {
            Choice::AStar { max_nodes } => {
                AStar::new(*max_nodes).solve_game(game, budget).map_err(|stopped| (stopped.nodes, None))
            }
            Choice::IdaStar { tables, threads } => IdaStar::with_threads(Arc::clone(tables), *threads)
                .solve_game_resumable(game, budget, resume, report)
                .map_err(|stopped| (stopped.nodes, stopped.checkpoint.map(|checkpoint| *checkpoint))),
            Choice::Ga { settings } => {
                return match GaPlanner::new(*settings).solve_game(game, budget) {
                    Ok(result) => Attempt {
                        moves: result.moves,
                        nodes: result.evaluations,
                        generations: Some(result.generations),
                        checkpoint: None,
                    },
                    Err(_) => Attempt { moves: None, nodes: 0, generations: None, checkpoint: None },
                };
            }
        };
        match searched {
            Ok((moves, nodes)) => Attempt { moves: Some(moves), nodes, generations: None, checkpoint: None },
            Err((nodes, checkpoint)) => Attempt { moves: None, nodes, generations: None, checkpoint },
        }
    }
}

/// The threads of the machine (1 if it does not say).
fn all_cores() -> usize {
    std::thread::available_parallelism().map_or(1, usize::from)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::game::Game;
    use crate::game::slide::{Config, Goal};
    use clap::Parser;

    /// The registry's flags on a command line of their own.
    #[derive(Debug, Parser)]
    struct Command {
        #[command(flatten)]
        planner: PlannerArgs,
    }

    fn parse(words: &[&str]) -> PlannerArgs {
        Command::try_parse_from(std::iter::once("slide").chain(words.iter().copied())).unwrap().planner
    }

    #[test]
    fn the_defaults_are_the_command_lines() {
        let (parsed, default) = (parse(&[]), PlannerArgs::default());
        assert_eq!((parsed.planner, parsed.pdb, parsed.max_nodes), (default.planner, default.pdb, default.max_nodes));
        assert_eq!(parsed.ga.settings(7), default.ga.settings(7));
        assert_eq!(parse(&["--planner", "ga", "--write-up"]).ga.settings(7).variant, Variant::WriteUp);
    }

    #[test]
    fn only_idastar_needs_tables_and_they_must_fit_the_board() {
        assert_eq!(parse(&[]).tables_needed(4), Ok(Some(Partition::P663)));
        assert_eq!(parse(&["--pdb", "5-5-5"]).tables_needed(4), Ok(Some(Partition::P555)));
        let error = parse(&["--pdb", "4-4"]).tables_needed(4).unwrap_err();
        assert_eq!(error.to_string(), "--pdb 4-4 is for 3×3 boards, the instances are 4×4");
        for name in ["astar", "ga"] {
            assert_eq!(parse(&["--planner", name, "--pdb", "4-4"]).tables_needed(4), Ok(None), "{name}");
        }
    }

    #[test]
    fn each_name_makes_its_planner_and_solves_through_it() {
        let tables = Arc::new(PdbSet::build(Partition::P44));
        let game = SlideGame::new(&Config::fixed(3, &[7, 3, 0, 8, 1, 4, 6, 2, 5], Goal::BlankLast).unwrap(), 0);
        for (name, optimal) in [("astar", true), ("idastar", true), ("ga", false)] {
            let args = parse(&["--planner", name]);
            assert!(args.check().is_ok());
            assert_eq!(args.planner.is_optimal(), optimal);
            let maker = args.prepare(args.tables_needed(3).unwrap().map(|_| Arc::clone(&tables)), 1);
            assert_eq!(maker.make().name(), name);
            let attempt = maker.solve(&game, &Budget::unlimited());
            let moves = attempt.moves.expect("solved");
            assert!(if optimal { moves.len() == 16 } else { moves.len() >= 16 }, "{name}: {} moves", moves.len());
            assert_eq!(attempt.generations.is_some(), name == "ga");
        }
    }
}
