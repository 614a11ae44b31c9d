//! Reading and writing replay files: the durable writer (temporary file,
//! sync, rename), and the decoder of every format version, which never
//! panics on any input bytes and never allocates more than the input's size
//! calls for.

use std::fs::{self, File};
use std::io::{self, BufWriter, Read, Write};
use std::path::{Path, PathBuf};

pub use crate::replay::error::ReplayError;
use crate::replay::format::{Footer, Frame, Header, MAGIC, Replay};
use crate::replay::{v1, v2};

/// The largest replay file tickbot reads: about 600 million ticks in
/// version 2 (1.6 bytes a tick for Snake), 90 million in version 1. A path
/// to anything larger (a disk image, a log) fails at once instead of
/// filling memory.
pub const MAX_REPLAY_BYTES: u64 = 1 << 30;

/// Reads the replay file at `path`: a regular file (a FIFO or a device is
/// refused without waiting on it) that starts with the magic number, at
/// most [`MAX_REPLAY_BYTES`] long. Decode the bytes with [`decode`] or
/// [`decode_partial`].
pub fn read_file(path: &Path) -> Result<Vec<u8>, ReplayError> {
    let file = crate::input::open(path).map_err(input_error)?;
    let mut start = Vec::with_capacity(MAGIC.len());
    (&file).take(MAGIC.len() as u64).read_to_end(&mut start)?;
    if start.len() == MAGIC.len() && start[..] != MAGIC {
        return Err(ReplayError::NotAReplay);
    }
    let length = file.metadata()?.len();
    if length > MAX_REPLAY_BYTES {
        return Err(ReplayError::TooLarge { limit: MAX_REPLAY_BYTES });
    }
    let mut bytes = start;
    bytes.reserve(length.saturating_sub(MAGIC.len() as u64) as usize);
    (&file).take(MAX_REPLAY_BYTES + 1 - bytes.len() as u64).read_to_end(&mut bytes)?;
    if bytes.len() as u64 > MAX_REPLAY_BYTES {
        return Err(ReplayError::TooLarge { limit: MAX_REPLAY_BYTES });
    }
    Ok(bytes)
}

fn input_error(error: crate::input::InputError) -> ReplayError {
    match error {
        crate::input::InputError::Io { cause, .. } => ReplayError::Io(cause),
        crate::input::InputError::NotAFile { kind, .. } => ReplayError::NotAFile { kind },
        crate::input::InputError::TooLarge { limit, .. } => ReplayError::TooLarge { limit },
    }
}

/// The format version of a replay file, from its first ten bytes.
pub fn format_version(bytes: &[u8]) -> Result<u16, ReplayError> {
    if bytes.len() < MAGIC.len() || bytes[..MAGIC.len()] != MAGIC {
        return Err(ReplayError::NotAReplay);
    }
    let Some(&[low, high]) = bytes.get(MAGIC.len()..MAGIC.len() + 2) else {
        return Err(ReplayError::TruncatedHeader);
    };
    Ok(u16::from_le_bytes([low, high]))
}

/// Decodes a whole replay of any version. A file cut short returns
/// [`ReplayError::Truncated`]; use [`decode_partial`] to get its frames.
pub fn decode(bytes: &[u8]) -> Result<Replay, ReplayError> {
    let replay = decode_partial(bytes)?;
    if replay.footer.is_none() {
        return Err(ReplayError::Truncated { ticks: replay.frames.len() as u32 });
    }
    Ok(replay)
}

/// Decodes as much as is whole: a file cut short by a crash yields its
/// header and every complete frame (version 1) or block (version 2), with
/// `footer: None`.
pub fn decode_partial(bytes: &[u8]) -> Result<Replay, ReplayError> {
    match format_version(bytes)? {
        v1::VERSION => v1::decode_partial(bytes),
        v2::VERSION => v2::decode_partial(bytes),
        found => Err(ReplayError::UnsupportedVersion { found }),
    }
}

/// Writes a replay in the current format version, frame by frame, onto any
/// writer. Frames are given with their full hashes (or, re-encoding a
/// decoded replay, as they were decoded); the writer keeps what the format
/// stores.
#[derive(Debug)]
pub struct ReplayWriter<W: Write> {
    blocks: v2::BlockWriter<W>,
}

impl<W: Write> ReplayWriter<W> {
    /// Writes the magic number, the version and `header`.
    pub(crate) fn new(out: W, header: &Header) -> io::Result<ReplayWriter<W>> {
        Ok(ReplayWriter { blocks: v2::BlockWriter::new(out, header)? })
    }

    pub(crate) fn frame(&mut self, frame: Frame) -> io::Result<()> {
        self.blocks.frame(frame)
    }

    /// Writes the footer and hands back the writer.
    pub(crate) fn finish(self, footer: &Footer) -> io::Result<W> {
        self.blocks.finish(footer)
    }
}

/// Encodes a whole replay in memory in the current format version (tests,
/// tools, `replay upgrade`).
pub fn encode_to_vec(replay: &Replay) -> io::Result<Vec<u8>> {
    let mut writer = v2::BlockWriter::new(Vec::new(), &replay.header)?;
    for &frame in &replay.frames {
        writer.frame(frame)?;
    }
    match &replay.footer {
        Some(footer) => writer.finish(footer),
        None => writer.finish_without_footer(),
    }
}

/// Encodes a whole replay in memory as format version 1, which needs every
/// frame's full hash (a replay decoded from version 1 has them).
pub fn encode_v1_to_vec(replay: &Replay) -> io::Result<Vec<u8>> {
    let mut bytes = Vec::new();
    v1::encode(replay, &mut bytes)?;
    Ok(bytes)
}

/// A replay being written to disk. It lives at `<path>.part` until its
/// writer has sealed it ([`ReplayFile::seal`]), synced it and renamed it to
/// `path` (a session does the last two for many replays at once), so a
/// finished name always holds a complete replay, and a crash leaves a
/// `.part` file that still decodes up to its last whole block.
#[derive(Debug)]
pub struct ReplayFile {
    writer: ReplayWriter<BufWriter<File>>,
    part_path: PathBuf,
    path: PathBuf,
}

impl ReplayFile {
    pub(crate) fn create(path: &Path, header: &Header) -> io::Result<ReplayFile> {
        let part_path = part_path(path);
        if let Some(parent) = path.parent().filter(|parent| !parent.as_os_str().is_empty()) {
            fs::create_dir_all(parent)?;
        }
        let file = File::create(&part_path)?;
        let writer = ReplayWriter::new(BufWriter::new(file), header)?;
        Ok(ReplayFile { writer, part_path, path: path.to_path_buf() })
    }

    pub(crate) fn frame(&mut self, frame: Frame) -> io::Result<()> {
        self.writer.frame(frame)
    }

    pub(crate) fn path(&self) -> &Path {
        &self.path
    }

    pub(crate) fn part_path(&self) -> &Path {
        &self.part_path
    }

    /// Writes the footer and flushes: complete at `<path>.part`, not synced.
    pub(crate) fn seal(self, footer: &Footer) -> io::Result<File> {
        self.writer.finish(footer)?.into_inner().map_err(|error| error.into_error())
    }
}

/// Writes `bytes` to `path` durably: to `<path>.part`, synced, then renamed
/// over `path`, so `path` holds either its old content or all of `bytes`.
pub fn write_atomically(path: &Path, bytes: &[u8]) -> io::Result<()> {
    let part_path = part_path(path);
    let mut file = File::create(&part_path)?;
    file.write_all(bytes)?;
    finish_file(file, &part_path, path)
}

fn finish_file(file: File, part_path: &Path, path: &Path) -> io::Result<()> {
    file.sync_all()?;
    drop(file);
    fs::rename(part_path, path)?;
    if let Some(parent) = path.parent().filter(|parent| !parent.as_os_str().is_empty()) {
        // Persist the rename itself; not every platform can open a
        // directory, and the data is already safe, so failure is fine.
        if let Ok(dir) = File::open(parent) {
            let _ = dir.sync_all();
        }
    }
    Ok(())
}

/// Where a replay is written before it is complete.
pub(crate) fn part_path(path: &Path) -> PathBuf {
    let mut name = path.as_os_str().to_owned();
    name.push(".part");
    PathBuf::from(name)
}
