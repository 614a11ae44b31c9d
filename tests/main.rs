//! The one integration-test binary: golden replays, record/verify properties,
//! the CLI end to end, and the architecture's invariants.

mod cli;
mod golden;
mod pipes;
mod replay_props;
mod support;
mod tidy;
