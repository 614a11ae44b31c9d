//! Version 2 of the replay format: a checksummed header, then blocks of up
//! to 64 ticks with actions packed at the game's width, 8-bit hashes and a
//! full hash at each block's end (layout and guarantees in `format.rs`).
//!
//! The blocks are not compressed: two thirds of a block are hash bits,
//! which no compressor shrinks, and the actions are already packed at 2
//! bits for the grid games.

use std::io::{self, Write};

use xxhash_rust::xxh3::{xxh3_64, xxh3_64_with_seed};

use crate::replay::codec::{self, CodecError, encode_value};
use crate::replay::error::ReplayError;
use crate::replay::format::{self, BLOCK_TICKS, Footer, Frame, FrameHash, Header, MAGIC, Replay};

/// The version number in the file.
pub(crate) const VERSION: u16 = 2;

/// Bytes before the codec-encoded header: magic, version, header length,
/// action bits.
const FIXED_LEN: usize = MAGIC.len() + 2 + 4 + 1;

/// The largest footer a reader accepts: an outcome's reason is a sentence.
const FOOTER_LIMIT: usize = 1 << 16;

/// The tag of the footer block (a frames block starts with its tick count).
const FOOTER_TAG: u8 = 0;

/// Decodes a version 2 file (`bytes` is the whole file, its magic number
/// and version already checked) up to its last whole block.
pub(crate) fn decode_partial(bytes: &[u8]) -> Result<Replay, ReplayError> {
    let Some(fixed) = bytes.get(..FIXED_LEN) else { return Err(ReplayError::TruncatedHeader) };
    let header_len = u32::from_le_bytes([fixed[10], fixed[11], fixed[12], fixed[13]]) as usize;
    let action_bits = fixed[14];
    let header_end = FIXED_LEN + header_len;
    let Some(stored) = bytes.get(header_end..header_end + 8) else { return Err(ReplayError::TruncatedHeader) };
    let header_checksum = read_u64(stored);
    let header_bytes = &bytes[FIXED_LEN..header_end];
    if xxh3_64(&bytes[..header_end]) != header_checksum {
        // Where decoding the header fails, if it does, points at the damage.
        if let Err(CodecError::Invalid { at, detail }) = codec::decode_from::<Header>(header_bytes) {
            let detail = format!("header: {detail} (and the header's checksum does not match)");
            return Err(ReplayError::Corrupt { offset: FIXED_LEN + at, detail });
        }
        return Err(ReplayError::ChecksumMismatch { what: "the header".into(), start: 0, end: header_end + 8 });
    }
    if action_bits > 32 {
        let detail = format!("actions of {action_bits} bits (at most 32)");
        return Err(ReplayError::Corrupt { offset: FIXED_LEN - 1, detail });
    }
    let header = match codec::decode_from::<Header>(header_bytes) {
        Ok((header, used)) if used == header_len => header,
        Ok((_, used)) => {
            let detail = format!("the header takes {used} of its {header_len} bytes");
            return Err(ReplayError::Corrupt { offset: FIXED_LEN + used, detail });
        }
        Err(CodecError::Invalid { at, detail }) => {
            return Err(ReplayError::Corrupt { offset: FIXED_LEN + at, detail: format!("header: {detail}") });
        }
        Err(_) => {
            let detail = format!("the header ends before its {header_len} bytes");
            return Err(ReplayError::Corrupt { offset: header_end, detail });
        }
    };
    let mut replay = Replay { header, frames: Vec::new(), footer: None };
    let mut previous_checksum = header_checksum;
    let mut offset = header_end + 8;
    let mut short_block = None;
    while let Some(&tag) = bytes.get(offset) {
        let start = offset;
        let block_end = if tag == FOOTER_TAG {
            let Some(length) = bytes.get(start + 1..start + 5) else { break };
            let length = u32::from_le_bytes([length[0], length[1], length[2], length[3]]) as usize;
            if length > FOOTER_LIMIT {
                let detail = format!("a footer of {length} bytes (at most {FOOTER_LIMIT})");
                return Err(ReplayError::Corrupt { offset: start + 1, detail });
            }
            start + 5 + length
        } else {
            let ticks = usize::from(tag);
            if ticks > BLOCK_TICKS as usize {
                let detail = format!("a block of {ticks} ticks (at most {BLOCK_TICKS})");
                return Err(ReplayError::Corrupt { offset: start, detail });
            }
            if let Some(previous) = short_block {
                let detail = format!("a block follows one of {previous} ticks (only the last may be short)");
                return Err(ReplayError::Corrupt { offset: start, detail });
            }
            start + 1 + packed_len(ticks, action_bits) + (ticks - 1) + 8
        };
        let Some(stored) = bytes.get(block_end..block_end + 8) else { break };
        let checksum = xxh3_64_with_seed(&bytes[start..block_end], previous_checksum);
        if checksum != read_u64(stored) {
            let what = if tag == FOOTER_TAG {
                "the footer".to_string()
            } else {
                let first = replay.frames.len() + 1;
                format!("the block of ticks {first} to {}", first + usize::from(tag) - 1)
            };
            return Err(ReplayError::ChecksumMismatch { what, start, end: block_end + 8 });
        }
        previous_checksum = checksum;
        offset = block_end + 8;
        if tag == FOOTER_TAG {
            let footer = match codec::decode_from::<Footer>(&bytes[start + 5..block_end]) {
                Ok((footer, used)) if start + 5 + used == block_end => footer,
                Ok(_) | Err(_) => {
                    let detail = "the footer does not decode to its length".to_string();
                    return Err(ReplayError::Corrupt { offset: start + 5, detail });
                }
            };
            if offset != bytes.len() {
                let detail = format!("{} bytes after the footer", bytes.len() - offset);
                return Err(ReplayError::Corrupt { offset, detail });
            }
            replay.footer = Some(footer);
            return Ok(replay);
        }
        let ticks = usize::from(tag);
        decode_frames(&bytes[start + 1..block_end], ticks, action_bits, &mut replay.frames)
            .map_err(|detail| ReplayError::Corrupt { offset: start + 1, detail })?;
        if ticks < BLOCK_TICKS as usize {
            short_block = Some(ticks);
        }
    }
    Ok(replay)
}

/// Bytes that `ticks` actions of `action_bits` bits take.
fn packed_len(ticks: usize, action_bits: u8) -> usize {
    (ticks * usize::from(action_bits)).div_ceil(8)
}

fn read_u64(bytes: &[u8]) -> u64 {
    let mut word = [0; 8];
    word.copy_from_slice(&bytes[..8]);
    u64::from_le_bytes(word)
}

/// Unpacks a frames block's body (after its tick count, before its
/// checksum) onto `frames`.
fn decode_frames(body: &[u8], ticks: usize, action_bits: u8, frames: &mut Vec<Frame>) -> Result<(), String> {
    let (packed, hashes) = body.split_at(packed_len(ticks, action_bits));
    let (shorts, full) = hashes.split_at(ticks - 1);
    let mask = (1u64 << action_bits) - 1;
    let (mut bits, mut filled, mut next) = (0u64, 0u8, packed.iter());
    for index in 0..ticks {
        while filled < action_bits {
            bits |= u64::from(*next.next().ok_or("the actions end early")?) << filled;
            filled += 8;
        }
        let action = (bits & mask) as u32;
        bits >>= action_bits;
        filled -= action_bits;
        let hash = match shorts.get(index) {
            Some(&short) => FrameHash::Short(short),
            None => FrameHash::Full(read_u64(full)),
        };
        frames.push(Frame { action, hash });
    }
    if bits != 0 {
        return Err("the padding after the actions is not zero".to_string());
    }
    Ok(())
}

/// Writes version 2 onto any writer, a block at a time.
#[derive(Debug)]
pub(crate) struct BlockWriter<W: Write> {
    pub(crate) out: W,
    action_bits: u8,
    /// The checksum of the last thing written, which seeds the next one.
    checksum: u64,
    /// The frames of the block being filled.
    pending: Vec<Frame>,
    /// The bytes of a block, reused.
    block: Vec<u8>,
    ticks: u32,
}

impl<W: Write> BlockWriter<W> {
    pub(crate) fn new(mut out: W, header: &Header) -> io::Result<BlockWriter<W>> {
        let action_bits = format::action_bits(&header.game);
        let mut block = Vec::with_capacity(256);
        block.extend_from_slice(&MAGIC);
        block.extend_from_slice(&VERSION.to_le_bytes());
        block.extend_from_slice(&[0; 4]);
        block.push(action_bits);
        encode_value(header, &mut block)?;
        let header_len = u32::try_from(block.len() - FIXED_LEN).map_err(io::Error::other)?;
        block[10..14].copy_from_slice(&header_len.to_le_bytes());
        let checksum = xxh3_64(&block);
        block.extend_from_slice(&checksum.to_le_bytes());
        out.write_all(&block)?;
        block.clear();
        let pending = Vec::with_capacity(BLOCK_TICKS as usize);
        Ok(BlockWriter { out, action_bits, checksum, pending, block, ticks: 0 })
    }

    pub(crate) fn frame(&mut self, frame: Frame) -> io::Result<()> {
        self.ticks += 1;
        if self.action_bits < 32 && frame.action >> self.action_bits != 0 {
            let message = format!(
                "tick {}: action code {} does not fit the game's {} bits",
                self.ticks, frame.action, self.action_bits
            );
            return Err(io::Error::new(io::ErrorKind::InvalidInput, message));
        }
        self.pending.push(frame);
        if self.pending.len() == BLOCK_TICKS as usize { self.write_frames() } else { Ok(()) }
    }

    fn write_frames(&mut self) -> io::Result<()> {
        let Some(last) = self.pending.last() else { return Ok(()) };
        let Some(full) = last.hash.full() else {
            let message = format!("tick {} ends a block but has only a short hash", self.ticks);
            return Err(io::Error::new(io::ErrorKind::InvalidInput, message));
        };
        self.block.clear();
        self.block.push(self.pending.len() as u8);
        let (mut bits, mut filled) = (0u64, 0u8);
        for frame in &self.pending {
            bits |= u64::from(frame.action) << filled;
            filled += self.action_bits;
            while filled >= 8 {
                self.block.push(bits as u8);
                bits >>= 8;
                filled -= 8;
            }
        }
        if filled > 0 {
            self.block.push(bits as u8);
        }
        let shorts = self.pending.len() - 1;
        self.block.extend(self.pending[..shorts].iter().map(|frame| frame.hash.short()));
        self.block.extend_from_slice(&full.to_le_bytes());
        self.pending.clear();
        self.write_block()
    }

    /// Seals `self.block` with its checksum and writes it.
    fn write_block(&mut self) -> io::Result<()> {
        self.checksum = xxh3_64_with_seed(&self.block, self.checksum);
        self.block.extend_from_slice(&self.checksum.to_le_bytes());
        self.out.write_all(&self.block)
    }

    /// Writes the frames not yet written and the footer.
    pub(crate) fn finish(mut self, footer: &Footer) -> io::Result<W> {
        self.write_frames()?;
        self.block.clear();
        self.block.push(FOOTER_TAG);
        self.block.extend_from_slice(&[0; 4]);
        encode_value(footer, &mut self.block)?;
        let length = (self.block.len() - 5) as u32;
        self.block[1..5].copy_from_slice(&length.to_le_bytes());
        self.write_block()?;
        self.out.flush()?;
        Ok(self.out)
    }

    /// Writes the frames not yet written, without a footer (a replay cut
    /// short, re-encoded).
    pub(crate) fn finish_without_footer(mut self) -> io::Result<W> {
        self.write_frames()?;
        self.out.flush()?;
        Ok(self.out)
    }
}
