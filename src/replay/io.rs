//! Reading and writing replay files: the durable writer (temporary file,
//! sync, rename) and the decoder that never panics on any input bytes.

use std::fs::{self, File};
use std::io::{self, BufWriter, Write};
use std::path::{Path, PathBuf};

use crate::replay::codec::{self, CodecError};
use crate::replay::format::{FORMAT_VERSION, Footer, Frame, Header, MAGIC, Record, Replay};

/// Why a file is not a usable replay.
#[derive(Debug, thiserror::Error)]
pub enum ReplayError {
    #[error("cannot read: {0}")]
    Io(#[from] io::Error),
    #[error("not a tickbot replay (no magic number)")]
    NotAReplay,
    #[error("unsupported replay format version {found} (this tickbot reads version {FORMAT_VERSION})")]
    UnsupportedVersion { found: u16 },
    #[error("truncated: ends inside the header")]
    TruncatedHeader,
    #[error("truncated: ends after tick {ticks}, no footer")]
    Truncated { ticks: u32 },
    #[error("corrupt at byte {offset}: {detail}")]
    Corrupt { offset: usize, detail: String },
}

/// Decodes a whole replay. A file cut short returns
/// [`ReplayError::Truncated`]; use [`decode_partial`] to get its frames.
pub fn decode(bytes: &[u8]) -> Result<Replay, ReplayError> {
    let replay = decode_partial(bytes)?;
    if replay.footer.is_none() {
        return Err(ReplayError::Truncated { ticks: replay.frames.len() as u32 });
    }
    Ok(replay)
}

/// Decodes as much as is whole: a file cut short by a crash yields its
/// header and every complete frame, with `footer: None`.
pub fn decode_partial(bytes: &[u8]) -> Result<Replay, ReplayError> {
    let prefix_len = MAGIC.len() + 2;
    if bytes.len() < MAGIC.len() || bytes[..MAGIC.len()] != MAGIC {
        return Err(ReplayError::NotAReplay);
    }
    let Some(version) = bytes.get(MAGIC.len()..prefix_len) else {
        return Err(ReplayError::TruncatedHeader);
    };
    let version = u16::from_le_bytes([version[0], version[1]]);
    if version != FORMAT_VERSION {
        return Err(ReplayError::UnsupportedVersion { found: version });
    }
    let mut offset = prefix_len;
    let header: Header = match codec::decode_from(&bytes[offset..]) {
        Ok((header, used)) => {
            offset += used;
            header
        }
        Err(CodecError::UnexpectedEnd) => return Err(ReplayError::TruncatedHeader),
        Err(error) => return Err(ReplayError::Corrupt { offset, detail: format!("header: {error}") }),
    };
    let mut frames = Vec::new();
    while offset < bytes.len() {
        match codec::decode_from::<Record>(&bytes[offset..]) {
            Ok((Record::Frame(frame), used)) => {
                offset += used;
                frames.push(frame);
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
            Err(error) => {
                let detail = format!("record after tick {}: {error}", frames.len());
                return Err(ReplayError::Corrupt { offset, detail });
            }
        }
    }
    Ok(Replay { header, frames, footer: None })
}

/// Writes a replay record by record onto any writer.
#[derive(Debug)]
pub struct ReplayWriter<W: Write> {
    out: W,
    ticks: u32,
}

impl<W: Write> ReplayWriter<W> {
    /// Writes the magic number, the version and `header`.
    pub fn new(mut out: W, header: &Header) -> io::Result<ReplayWriter<W>> {
        out.write_all(&MAGIC)?;
        out.write_all(&FORMAT_VERSION.to_le_bytes())?;
        encode(header, &mut out)?;
        Ok(ReplayWriter { out, ticks: 0 })
    }

    pub(crate) fn frame(&mut self, frame: Frame) -> io::Result<()> {
        self.ticks += 1;
        encode(&Record::Frame(frame), &mut self.out)
    }

    /// Writes the footer and hands back the writer.
    pub(crate) fn finish(mut self, footer: Footer) -> io::Result<W> {
        encode(&Record::Footer(footer), &mut self.out)?;
        self.out.flush()?;
        Ok(self.out)
    }
}

fn encode<T: serde::Serialize>(value: &T, out: &mut impl Write) -> io::Result<()> {
    codec::encode_into(value, out).map_err(|error| match error {
        CodecError::Io(error) => error,
        other => io::Error::other(other.to_string()),
    })
}

/// Encodes a whole replay in memory (tests, tools).
pub fn encode_to_vec(replay: &Replay) -> io::Result<Vec<u8>> {
    let mut writer = ReplayWriter::new(Vec::new(), &replay.header)?;
    for &frame in &replay.frames {
        writer.frame(frame)?;
    }
    match &replay.footer {
        Some(footer) => writer.finish(footer.clone()),
        None => Ok(writer.out),
    }
}

/// A replay being written to disk. It lives at `<path>.part` until
/// [`ReplayFile::finish`] syncs it and renames it to `path`, so a finished
/// name always holds a complete replay, and a crash leaves a `.part` file
/// that still decodes up to its last whole frame.
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

    /// Writes the footer, syncs the data, and moves the file into place.
    pub(crate) fn finish(self, footer: Footer) -> io::Result<PathBuf> {
        let file = self.writer.finish(footer)?.into_inner().map_err(|error| error.into_error())?;
        file.sync_all()?;
        drop(file);
        fs::rename(&self.part_path, &self.path)?;
        if let Some(parent) = self.path.parent().filter(|parent| !parent.as_os_str().is_empty()) {
            // Persist the rename itself; not every platform can open a
            // directory, and the data is already safe, so failure is fine.
            if let Ok(dir) = File::open(parent) {
                let _ = dir.sync_all();
            }
        }
        Ok(self.path)
    }
}

/// Where a replay is written before it is complete.
pub(crate) fn part_path(path: &Path) -> PathBuf {
    let mut name = path.as_os_str().to_owned();
    name.push(".part");
    PathBuf::from(name)
}
