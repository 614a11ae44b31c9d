//! Why bytes are not a usable replay: the one error type every format
//! version's decoder returns.

use std::io;

use crate::replay::format::{FORMAT_VERSION, OLDEST_FORMAT_VERSION};

/// Why a file is not a usable replay.
#[derive(Debug, thiserror::Error)]
pub enum ReplayError {
    #[error("cannot read: {0}")]
    Io(#[from] io::Error),
    #[error("{kind}, not a replay file")]
    NotAFile { kind: &'static str },
    #[error("larger than {limit} bytes: not a replay")]
    TooLarge { limit: u64 },
    #[error("not a tickbot replay (no magic number)")]
    NotAReplay,
    #[error(
        "unsupported replay format version {found} (this tickbot reads versions {OLDEST_FORMAT_VERSION} to {FORMAT_VERSION})"
    )]
    UnsupportedVersion { found: u16 },
    #[error("truncated: ends inside the header")]
    TruncatedHeader,
    #[error("truncated: ends after tick {ticks}, no footer")]
    Truncated { ticks: u32 },
    #[error("corrupt at byte {offset}: {detail}")]
    Corrupt { offset: usize, detail: String },
    /// A version 2 checksum does not match: some byte from `start` to
    /// `end` (exclusive) is damaged.
    #[error("damaged: {what} (bytes {start} to {}) does not match its checksum", end - 1)]
    ChecksumMismatch { what: String, start: usize, end: usize },
}
