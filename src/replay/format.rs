//! The replay file format (`.tbr`): what is stored, in what order, and what
//! each version guarantees.
//!
//! Every version starts with the magic number `TICKBOT\x1a` (8 bytes) and
//! the format version (u16, little-endian). tickbot writes version 2 and
//! reads versions 1 and 2, forever.
//!
//! # Version 2: compact and checksummed
//!
//! ```text
//! magic (8) | version 2 (u16 LE) | header length (u32 LE) | action bits (u8)
//! Header                      (codec-encoded, exactly `header length` bytes)
//! header checksum             (u64 LE: xxh3-64 of every byte above)
//! blocks, each ending in its checksum (u64 LE: xxh3-64 of the block's bytes,
//! seeded with the previous checksum, so blocks cannot be dropped or swapped):
//!   frames block: tick count n (u8, 1..=64)
//!                 | n action codes, `action bits` each, least significant bit
//!                   first, the last byte padded with zero bits
//!                 | the low 8 bits of the state hash after each of the first
//!                   n - 1 ticks (n - 1 bytes)
//!                 | the full state hash after the block's last tick (u64 LE)
//!                 | checksum
//!   footer block: 0 (u8) | length (u32 LE) | Footer (codec-encoded) | checksum
//! ```
//! Every frames block holds [`BLOCK_TICKS`] ticks except the last one before
//! the footer, so a replay has exactly one encoding. `action bits` is the
//! fewest bits that hold every code below the game's
//! [`Game::action_code_bound`](crate::game::Game::action_code_bound) (2 for
//! the four directions of Snake), stored in the file so that a game which
//! later gains actions still reads its old replays.
//!
//! What version 2 guarantees:
//! - **Every byte is protected.** The header and each block carry an xxh3-64
//!   checksum, so a damaged byte anywhere (header, length, action, hash,
//!   footer) makes the file fail to decode, except with probability 2⁻⁶⁴.
//! - **Every tick is checked** against an 8-bit hash, and every 64th tick
//!   and the last one (the footer's final hash) against the full 64-bit
//!   hash. When re-simulation drifts from the recording at tick `t`, the
//!   8-bit hash at `t` still matches with probability 1/256, so the tick
//!   verification names is `t` with probability 255/256, and `t + k` or
//!   later with probability 256⁻ᵏ; it is never past the end of `t`'s block,
//!   whose 64-bit hash misses a divergence with probability 2⁻⁶⁴. The
//!   divergence report also names the last tick known to be good (the
//!   previous block's end).
//! - **Truncation is survivable**: a file cut short decodes up to its last
//!   whole block (a multiple of 64 ticks) and reports itself truncated.
//!
//! # Version 1: a record per tick
//!
//! ```text
//! magic (8) | version 1 (u16 LE)
//! Header                          (codec-encoded)
//! Record::Frame  x ticks          (codec-encoded; action and full state hash)
//! Record::Footer                  (codec-encoded; absent if the writer crashed)
//! ```
//! About 11 bytes per tick, every hash in full, but the header has no
//! checksum: a damaged header byte that still decodes (a version string, a
//! planner parameter, a wall) goes unnoticed. `tickbot replay upgrade`
//! rewrites version 1 files as version 2.
//!
//! # What may not change
//!
//! Replays hold actions and state hashes only, never a game's state as it is
//! in memory, so a replay verifies however its plan was found. The codec
//! stores structs field by field in declaration order and enums by variant
//! index, never by name. So every type a replay holds is part of the format:
//! [`Header`], [`PlannerInfo`], [`Footer`], [`GameSpec`], each game's
//! `*Setup` (a game's `Config` is stored as its setup) and the types inside
//! them, and [`Outcome`]. Their bytes are frozen per game by
//! `golden::replay_header_bytes_are_frozen`; changing one needs a new format
//! version.

use std::fmt;

use serde::{Deserialize, Serialize};

use crate::game::{GameSpec, GameVisitor, Outcome, Replayable};

/// The first bytes of every replay file.
pub(crate) const MAGIC: [u8; 8] = *b"TICKBOT\x1a";

/// The version tickbot writes. Bump it on any change that alters the bytes,
/// and keep reading the old versions.
pub const FORMAT_VERSION: u16 = 2;

/// The oldest version tickbot still reads (and verifies).
pub(crate) const OLDEST_FORMAT_VERSION: u16 = 1;

/// Ticks per frames block in version 2, and so the spacing of the full
/// 64-bit state hashes.
pub const BLOCK_TICKS: u32 = 64;

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

/// One tick: the action played and the state hash after it, in full or in
/// part (see [`FrameHash`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Frame {
    pub action: u32,
    pub hash: FrameHash,
}

/// What a frame records of the state hash after its tick.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FrameHash {
    /// All 64 bits: every tick of a version 1 replay, and the last tick of
    /// each block of a version 2 replay.
    Full(u64),
    /// The low 8 bits: the other ticks of a version 2 replay.
    Short(u8),
}

impl FrameHash {
    /// What version 2 records after tick `tick` (1-based) of a replay of
    /// `ticks` ticks: the full hash at the end of each block and at the end.
    pub(crate) fn for_tick(tick: u32, ticks: u32, hash: u64) -> FrameHash {
        if tick % BLOCK_TICKS == 0 || tick == ticks { FrameHash::Full(hash) } else { FrameHash::Short(hash as u8) }
    }

    /// Whether `hash` (a full state hash) agrees with what was recorded.
    pub(crate) fn matches(self, hash: u64) -> bool {
        match self {
            FrameHash::Full(full) => full == hash,
            FrameHash::Short(short) => short == hash as u8,
        }
    }

    /// The full hash, where it was recorded.
    pub(crate) fn full(self) -> Option<u64> {
        match self {
            FrameHash::Full(full) => Some(full),
            FrameHash::Short(_) => None,
        }
    }

    /// The 8 bits version 2 records between checkpoints.
    pub(crate) fn short(self) -> u8 {
        match self {
            FrameHash::Full(full) => full as u8,
            FrameHash::Short(short) => short,
        }
    }
}

/// Full hashes as 16 hex digits, short ones as 2.
impl fmt::Display for FrameHash {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            FrameHash::Full(full) => write!(f, "{full:016x}"),
            FrameHash::Short(short) => write!(f, "{short:02x}"),
        }
    }
}

/// How the game ended.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Footer {
    pub outcome: Outcome,
    pub ticks: u32,
    pub final_hash: u64,
}

/// A decoded replay file, of either version: the header, each tick's action
/// and hash, and the footer.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Replay {
    pub header: Header,
    pub frames: Vec<Frame>,
    /// `None` when the file was cut short before its footer.
    pub footer: Option<Footer>,
}

impl Replay {
    /// This replay as version 2 stores it: the hashes between block ends
    /// cut to their low 8 bits. Hashes already short stay as they are.
    pub fn compacted(mut self) -> Replay {
        let ticks = self.frames.len() as u32;
        for (index, frame) in self.frames.iter_mut().enumerate() {
            let tick = index as u32 + 1;
            if FrameHash::for_tick(tick, ticks, 0) == FrameHash::Short(0) {
                frame.hash = FrameHash::Short(frame.hash.short());
            }
        }
        self
    }
}

/// The number of bits version 2 stores per action for a game on `spec`.
pub(crate) fn action_bits(spec: &GameSpec) -> u8 {
    struct Bound;
    impl GameVisitor for Bound {
        type Output = u32;
        fn visit<G: Replayable>(self, config: &G::Config) -> u32 {
            G::action_code_bound(config)
        }
    }
    let bound = spec.visit(Bound);
    (u32::BITS - bound.saturating_sub(1).leading_zeros()) as u8
}
