//! The one integration-test binary: golden replays, record/verify properties,
//! the CLI end to end, and the architecture's invariants.

mod agents;
mod analysis;
mod cli;
mod docs;
mod flag;
mod golden;
mod input_files;
mod locm;
mod out_dir;
mod pipes;
mod replay_props;
mod sequential;
mod session;
mod shard;
mod slide;
mod snake;
mod sprt_session;
mod status;
mod support;
mod tidy;
mod view;
