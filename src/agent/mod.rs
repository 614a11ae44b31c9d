//! External agents: a program stands where a bot is named, one process per
//! game, asked for its moves over a line protocol with a time limit per
//! call, its faults recorded as outcomes. [`process`] runs one agent
//! process (spawn, calls, ending and reaping); [`launch`] is what the
//! agent's process does before it becomes the agent (death with tickbot,
//! limits, the sandbox); [`fault`] is what can go wrong; [`locm`] plays
//! LOCM seats over the contest protocol, [`json`] the other games over
//! JSON lines; [`serve`] is the other side,
//! tickbot's bots as a contest-protocol agent.

pub mod fault;
pub mod json;
pub mod launch;
pub mod locm;
pub mod process;
pub mod serve;

pub use self::fault::{Exit, Fault};
pub use self::process::{AgentSpec, Limits, Process};
