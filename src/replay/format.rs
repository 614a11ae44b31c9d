//! The replay file format (`.tbr`): what is stored, in what order.
//!
//! ```text
//! magic "TICKBOT\x1a" (8 bytes) | format version (u16, little-endian)
//! Header                          (codec-encoded)
//! Record::Frame  x ticks          (codec-encoded; one per tick)
//! Record::Footer                  (codec-encoded; absent if the writer crashed)
//! ```
//! Replays hold actions and state hashes only, never a game's state as it is
//! in memory, so a replay verifies however its plan was found.
//!
//! The codec stores structs field by field in declaration order and enums by
//! variant index, never by name. So every type a replay holds is part of the
//! format: these below, [`GameSpec`], each game's `*Setup` (a game's `Config`
//! is stored as its setup) and the types inside them, and [`Outcome`]. Their
//! bytes are frozen per game by `golden::replay_header_bytes_are_frozen`;
//! changing one needs a [`FORMAT_VERSION`] bump.

use serde::{Deserialize, Serialize};

use crate::game::{GameSpec, Outcome};

/// The first bytes of every replay file.
pub(crate) const MAGIC: [u8; 8] = *b"TICKBOT\x1a";

/// The version of the layout and of every type below. Bump it on any change
/// that alters the bytes, and keep reading the old versions if possible.
pub const FORMAT_VERSION: u16 = 1;

/// Everything needed to rebuild the game: it embeds the whole level, so a
/// replay does not depend on files in `maps/`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Header {
    /// The tickbot version that recorded it (informational).
    pub tickbot_version: String,
    pub game: GameSpec,
    pub seed: u64,
    pub planner: PlannerInfo,
    /// The state hash before the first tick.
    pub initial_hash: u64,
}

/// Which planner played, with its parameters (informational: verification
/// never runs the planner).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct PlannerInfo {
    pub name: String,
    pub params: Vec<(String, String)>,
}

/// One tick: the action played and the state hash after it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Frame {
    pub action: u32,
    pub hash: u64,
}

/// How the game ended.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Footer {
    pub outcome: Outcome,
    pub ticks: u32,
    pub final_hash: u64,
}

/// What follows the header, repeatedly.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) enum Record {
    Frame(Frame),
    Footer(Footer),
}

/// A decoded replay file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Replay {
    pub header: Header,
    pub frames: Vec<Frame>,
    /// `None` when the file was cut short before its footer.
    pub footer: Option<Footer>,
}
