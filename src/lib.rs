//! tickbot plays tick-based games unattended, records each game as a binary
//! replay, and proves tick by tick that a replay reproduces exactly.
//!
//! This library holds the games, the planners, replays, the session runner
//! and the benchmarks; the `tickbot` binary is a thin command line over it
//! (parsing flags, printing, exit codes). See `ARCHITECTURE.md` for the map.
//!
//! The names most users need are re-exported here. Playing and checking one
//! game of Snake:
//!
//! ```
//! use tickbot::game::snake::{Config, SnakeSetup, plan::bfs_tail::BfsTail};
//! use tickbot::{SnakeGame, replay};
//!
//! let config = Config::try_from(SnakeSetup::open(6, 6)).expect("an open board is valid");
//! // One planner plays one game: a fresh one per game.
//! let recorded = replay::record::<SnakeGame>(&config, 7, &mut BfsTail::new(&config)).expect("legal moves");
//! let reproduced = replay::verify(&recorded).expect("a replay reproduces");
//! assert_eq!(reproduced.ticks as usize, recorded.frames.len());
//! ```

pub mod agent;
pub mod analysis;
pub mod bench;
pub mod evolve;
pub mod game;
pub mod input;
pub mod map;
pub mod par;
pub mod pdb_cache;
pub mod plan;
pub mod progress;
pub mod replay;
pub mod rng;
pub mod session;
pub mod sprt;
pub mod stats;
pub mod telemetry;
pub mod view;

pub use game::flag::FlagGame;
pub use game::locm::LocmGame;
pub use game::pipes::PipesGame;
pub use game::slide::SlideGame;
pub use game::snake::SnakeGame;
pub use game::{Game, Outcome, OutcomeKind, Status};
pub use plan::{Budget, Planner};
