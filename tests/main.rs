//! The one integration-test binary: golden replays, record/verify properties,
//! the CLI end to end, and the architecture's invariants.

mod agents;
mod analysis;
mod cli;
mod docs;
mod flag;
mod golden;
mod locm;
mod pipes;
mod replay_props;
mod session;
mod shard;
mod slide;
mod snake;
mod support;
mod tidy;
mod view;
