//! tickbot: plays tick-based games unattended and records verifiable replays.
//!
//! The library holds everything; `main.rs` only parses arguments, sets up
//! logging and maps errors to exit codes. See `ARCHITECTURE.md` for the map.

pub mod bench;
pub mod ga;
pub mod game;
pub mod map;
pub mod par;
pub mod pdb_cache;
pub mod plan;
pub mod progress;
pub mod replay;
pub mod rng;
pub mod session;
pub mod stats;
pub mod telemetry;
