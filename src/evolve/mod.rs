//! Evolving Legends of Code and Magic draft strategies: the active-genes
//! evolution of Kowalski and Miernik (IEEE CEC 2020) with its variants and a
//! baseline without active genes ([`draft`]), the write-up's results step
//! that plays a finished run's winner against every generation ([`eval`]),
//! and the SVG chart of that step ([`chart`]).
//!
//! The evolution's parts: its [`settings`], the members' [`genes`] and
//! what breeding does to them, the [`tournament`] that selects parents,
//! the [`scoring`] of children, the games themselves ([`jobs`]), the
//! [`seeds`] every random draw comes from, and the [`checkpoint`] a run
//! resumes from.
//!
//! A planner-side tool: it plays whole games through the rules and the bots
//! and no rules module uses it. It reads and writes no file and prints
//! nothing: the binary stores the checkpoints, logs and charts these types
//! produce.

pub mod chart;
pub mod checkpoint;
pub mod draft;
pub mod eval;
pub(crate) mod genes;
pub(crate) mod jobs;
pub(crate) mod scoring;
pub(crate) mod seeds;
pub mod settings;
pub(crate) mod tournament;
