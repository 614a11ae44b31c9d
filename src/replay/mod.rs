//! Binary replays: the format, the codec, durable writing, decoding of every
//! format version, and verification. See `format.rs` for the layouts.

pub(crate) mod codec;
mod error;
pub(crate) mod format;
pub(crate) mod io;
pub mod record;
mod v1;
mod v2;
pub mod verify;

pub use format::{BLOCK_TICKS, FORMAT_VERSION, Footer, Frame, FrameHash, Header, PlannerInfo, Replay};
pub use io::{
    MAX_REPLAY_BYTES, ReplayError, ReplayFile, ReplayWriter, decode, decode_partial, encode_to_vec, encode_v1_to_vec,
    format_version, read_file, write_atomically,
};
pub use record::record;
pub use verify::{Divergence, DivergenceKind, RenderError, Reproduced, render_at, render_each, verify};
