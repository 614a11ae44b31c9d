//! Binary replays: the format, the codec, durable writing, decoding and
//! verification. See `format.rs` for the layout.

pub mod codec;
pub mod format;
pub mod io;
pub mod record;
pub mod verify;

pub use format::{FORMAT_VERSION, Footer, Frame, Header, PlannerInfo, Replay};
pub use io::{ReplayError, ReplayFile, ReplayWriter, decode, decode_partial, encode_to_vec};
pub use record::record;
pub use verify::{Divergence, RenderError, Reproduced, render_at, render_each, verify};
