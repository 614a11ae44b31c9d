//! The replay wire codec: the only module that names `bincode`.
//!
//! One fixed configuration (little-endian, variable-length integers, a size
//! limit so hostile input cannot ask for huge allocations). The wire format
//! this produces is frozen by the golden replays in `replays/`; changing the
//! codec means changing this file and nothing else.

use std::io::Write;

use serde::Serialize;
use serde::de::DeserializeOwned;

/// The largest single value (header or record) we will decode: generous for
/// any embedded level, small enough that garbage cannot exhaust memory.
const LIMIT_BYTES: usize = 64 << 20;

fn config() -> impl bincode::config::Config {
    bincode::config::standard().with_little_endian().with_variable_int_encoding().with_limit::<LIMIT_BYTES>()
}

/// Why a value could not be decoded.
#[derive(Debug, thiserror::Error)]
pub(crate) enum CodecError {
    /// The bytes stop in the middle of a value.
    #[error("unexpected end of data")]
    UnexpectedEnd,
    /// The bytes are not a valid encoding (or fail validation on decode).
    #[error("{0}")]
    Invalid(String),
    #[error(transparent)]
    Io(#[from] std::io::Error),
}

/// Encodes `value` onto `writer`.
pub(crate) fn encode_into<T: Serialize, W: Write>(value: &T, writer: &mut W) -> Result<(), CodecError> {
    bincode::serde::encode_into_std_write(value, writer, config()).map(|_| ()).map_err(|error| match error {
        bincode::error::EncodeError::Io { inner, .. } => CodecError::Io(inner),
        other => CodecError::Invalid(other.to_string()),
    })
}

/// Decodes one value from the front of `bytes`, returning it and the number
/// of bytes it took.
pub(crate) fn decode_from<T: DeserializeOwned>(bytes: &[u8]) -> Result<(T, usize), CodecError> {
    bincode::serde::decode_from_slice(bytes, config()).map_err(|error| match error {
        bincode::error::DecodeError::UnexpectedEnd { .. } => CodecError::UnexpectedEnd,
        other => CodecError::Invalid(other.to_string()),
    })
}
