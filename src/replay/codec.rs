//! The replay wire codec: the only module that names `bincode`.
//!
//! One fixed configuration (little-endian, variable-length integers, a size
//! limit so hostile input cannot ask for huge allocations). The wire format
//! this produces is frozen by the golden replays in `replays/`; changing the
//! codec means changing this file and nothing else. Decoding errors are
//! turned into plain sentences here, with the offset of the byte that was
//! being read when decoding failed.

use std::io::Write;

use bincode::de::read::Reader;
use bincode::error::{AllowedEnumVariants, DecodeError};
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
    /// `at` is the offset, from the start of the value, of the last byte
    /// read before decoding stopped: the damaged byte, or the end of the
    /// field that failed validation.
    #[error("{detail}")]
    Invalid { at: usize, detail: String },
    #[error(transparent)]
    Io(#[from] std::io::Error),
}

/// Encodes `value` onto `writer`.
pub(crate) fn encode_into<T: Serialize, W: Write>(value: &T, writer: &mut W) -> Result<(), CodecError> {
    bincode::serde::encode_into_std_write(value, writer, config()).map(|_| ()).map_err(|error| match error {
        bincode::error::EncodeError::Io { inner, .. } => CodecError::Io(inner),
        other => CodecError::Invalid { at: 0, detail: other.to_string() },
    })
}

/// Encodes `value` onto `writer`, for writers of files: every failure is
/// an I/O error.
pub(crate) fn encode_value<T: Serialize, W: Write>(value: &T, writer: &mut W) -> std::io::Result<()> {
    encode_into(value, writer).map_err(|error| match error {
        CodecError::Io(error) => error,
        other => std::io::Error::other(other.to_string()),
    })
}

/// Decodes one value from the front of `bytes`, returning it and the number
/// of bytes it took.
pub(crate) fn decode_from<T: DeserializeOwned>(bytes: &[u8]) -> Result<(T, usize), CodecError> {
    let mut reader = CountingReader { bytes, at: 0 };
    match bincode::serde::decode_from_reader(&mut reader, config()) {
        Ok(value) => Ok((value, reader.at)),
        Err(DecodeError::UnexpectedEnd { .. }) => Err(CodecError::UnexpectedEnd),
        Err(error) => Err(CodecError::Invalid { at: reader.at.saturating_sub(1), detail: plain(&error) }),
    }
}

/// A slice reader that remembers how far decoding got, so an error can
/// name its byte.
struct CountingReader<'a> {
    bytes: &'a [u8],
    at: usize,
}

impl Reader for CountingReader<'_> {
    fn read(&mut self, out: &mut [u8]) -> Result<(), DecodeError> {
        let Some(source) = self.bytes.get(self.at..self.at + out.len()) else {
            return Err(DecodeError::UnexpectedEnd { additional: self.at + out.len() - self.bytes.len() });
        };
        out.copy_from_slice(source);
        self.at += out.len();
        Ok(())
    }

    fn peek_read(&mut self, n: usize) -> Option<&[u8]> {
        self.bytes.get(self.at..self.at.checked_add(n)?)
    }

    fn consume(&mut self, n: usize) {
        self.at = (self.at + n).min(self.bytes.len());
    }
}

/// A decoding error as a sentence, for people who never saw the codec.
fn plain(error: &DecodeError) -> String {
    match error {
        DecodeError::InvalidBooleanValue(found) => format!("a yes/no field holds {found} (expected 0 or 1)"),
        DecodeError::UnexpectedVariant { type_name, allowed, found } => {
            let expected = match allowed {
                AllowedEnumVariants::Range { min, max } => format!("{min} to {max}"),
                AllowedEnumVariants::Allowed(values) => {
                    values.iter().map(u32::to_string).collect::<Vec<_>>().join(", ")
                }
                _ => "another value".to_string(),
            };
            let what = if type_name.starts_with("Option") { "an optional field's marker" } else { "a choice" };
            format!("{what} holds {found} (expected {expected})")
        }
        DecodeError::InvalidIntegerType { found, .. } => {
            format!("a number has the wrong length marker (found a {found:?} marker)")
        }
        DecodeError::Utf8 { .. } => "a text field is not valid UTF-8".to_string(),
        DecodeError::LimitExceeded => format!("a length exceeds the {} MiB limit", LIMIT_BYTES >> 20),
        DecodeError::OutsideUsizeRange(found) => format!("a length of {found} is too large"),
        // Messages from the games' own validation (`TryFrom<Setup>`) and
        // from serde's derived code, already sentences.
        DecodeError::OtherString(message) => message.clone(),
        other => other.to_string(),
    }
}
