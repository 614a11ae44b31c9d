//! Version 1 of the replay format: a codec-encoded record per tick (see
//! `format.rs`). tickbot no longer writes it for recordings, but reads and
//! verifies it forever, and can write it back byte for byte (the golden
//! replays check that the encoding is unique).

use std::io::{self, Write};

use serde::{Deserialize, Serialize};

use crate::replay::codec::{self, CodecError, encode_value};
use crate::replay::error::ReplayError;
use crate::replay::format::{Footer, Frame, FrameHash, Header, MAGIC, Replay};

/// The version number in the file.
pub(crate) const VERSION: u16 = 1;

/// One tick as version 1 stores it: every hash in full.
#[derive(Clone, Copy, Debug, Serialize, Deserialize)]
struct WireFrame {
    action: u32,
    hash: u64,
}

/// What follows the header, repeatedly.
#[derive(Clone, Debug, Serialize, Deserialize)]
enum Record {
    Frame(WireFrame),
    Footer(Footer),
}

/// Decodes the header and every whole record after the magic number and
/// version (`bytes` is the whole file).
pub(crate) fn decode_partial(bytes: &[u8]) -> Result<Replay, ReplayError> {
    let mut offset = MAGIC.len() + 2;
    let header: Header = match codec::decode_from(&bytes[offset..]) {
        Ok((header, used)) => {
            offset += used;
            header
        }
        Err(CodecError::UnexpectedEnd) => return Err(ReplayError::TruncatedHeader),
        Err(CodecError::Invalid { at, detail }) => {
            return Err(ReplayError::Corrupt { offset: offset + at, detail: format!("header: {detail}") });
        }
        Err(CodecError::Io(error)) => return Err(error.into()),
    };
    let mut frames = Vec::new();
    while offset < bytes.len() {
        match codec::decode_from::<Record>(&bytes[offset..]) {
            Ok((Record::Frame(WireFrame { action, hash }), used)) => {
                offset += used;
                frames.push(Frame { action, hash: FrameHash::Full(hash) });
            }
            Ok((Record::Footer(footer), used)) => {
                offset += used;
                if offset != bytes.len() {
                    let detail = format!("{} bytes after the footer", bytes.len() - offset);
                    return Err(ReplayError::Corrupt { offset, detail });
                }
                return Ok(Replay { header, frames, footer: Some(footer) });
            }
            Err(CodecError::UnexpectedEnd) => break,
            Err(CodecError::Invalid { at, detail }) => {
                let detail = format!("record after tick {}: {detail}", frames.len());
                return Err(ReplayError::Corrupt { offset: offset + at, detail });
            }
            Err(CodecError::Io(error)) => return Err(error.into()),
        }
    }
    Ok(Replay { header, frames, footer: None })
}

/// Writes `replay` as version 1. Every frame needs its full hash: a
/// version 2 replay cannot be written back as version 1.
pub(crate) fn encode(replay: &Replay, out: &mut impl Write) -> io::Result<()> {
    out.write_all(&MAGIC)?;
    out.write_all(&VERSION.to_le_bytes())?;
    encode_value(&replay.header, out)?;
    for (index, frame) in replay.frames.iter().enumerate() {
        let Some(hash) = frame.hash.full() else {
            let message = format!("tick {} has only a short hash: version 1 needs every hash in full", index + 1);
            return Err(io::Error::new(io::ErrorKind::InvalidInput, message));
        };
        encode_value(&Record::Frame(WireFrame { action: frame.action, hash }), out)?;
    }
    if let Some(footer) = &replay.footer {
        encode_value(&Record::Footer(footer.clone()), out)?;
    }
    Ok(())
}
