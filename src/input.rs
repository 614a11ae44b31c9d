//! Opening the files a user names as input (replays, session files,
//! results, logs, manifests, maps): regular files only, opened without
//! waiting, and read only up to their format's limit.
//!
//! `File::open` on a FIFO blocks until some other process opens it for
//! writing, and a thread blocked there cannot look at the Ctrl-C flag; a
//! device such as `/dev/zero` never ends. So a file is opened with
//! `O_NONBLOCK` (which makes `open` of a FIFO return at once, and changes
//! nothing for a regular file) and refused unless it is a regular file;
//! and what is read of it stops one byte past its format's limit.

use std::fs::{File, Metadata, OpenOptions};
use std::io::{self, Read};
use std::path::{Path, PathBuf};

/// Why an input file cannot be read.
#[derive(Debug, thiserror::Error)]
pub enum InputError {
    #[error("cannot read {path}: {cause}")]
    Io { path: PathBuf, cause: io::Error },
    #[error("{path} is {kind}, not a regular file")]
    NotAFile { path: PathBuf, kind: &'static str },
    #[error("{path} is larger than {limit} bytes: not {what}")]
    TooLarge { path: PathBuf, limit: u64, what: &'static str },
}

impl InputError {
    /// Whether the file is simply not there (messages may say more).
    pub fn is_not_found(&self) -> bool {
        matches!(self, InputError::Io { cause, .. } if cause.kind() == io::ErrorKind::NotFound)
    }
}

/// What a file that is not a regular file is, for messages: "a directory",
/// "a FIFO", "a character device", ...
pub fn kind_of(metadata: &Metadata) -> &'static str {
    let file_type = metadata.file_type();
    if file_type.is_dir() {
        return "a directory";
    }
    if file_type.is_file() {
        return "a regular file";
    }
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        if file_type.is_fifo() {
            return "a FIFO (named pipe)";
        }
        if file_type.is_char_device() {
            return "a character device";
        }
        if file_type.is_block_device() {
            return "a block device";
        }
        if file_type.is_socket() {
            return "a socket";
        }
    }
    "not a regular file"
}

/// Opens `path` for reading if it is a regular file, without ever waiting
/// in `open` (see the module docs).
pub fn open(path: &Path) -> Result<File, InputError> {
    let io_error = |cause| InputError::Io { path: path.to_path_buf(), cause };
    let mut options = OpenOptions::new();
    options.read(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.custom_flags(libc::O_NONBLOCK);
    }
    let file = options.open(path).map_err(io_error)?;
    let metadata = file.metadata().map_err(io_error)?;
    if !metadata.is_file() {
        return Err(InputError::NotAFile { path: path.to_path_buf(), kind: kind_of(&metadata) });
    }
    Ok(file)
}

/// Reads the whole regular file at `path`, refusing one larger than
/// `limit` bytes (`what` names the format in the message: "a replay").
pub fn read(path: &Path, limit: u64, what: &'static str) -> Result<Vec<u8>, InputError> {
    let file = open(path)?;
    let too_large = || InputError::TooLarge { path: path.to_path_buf(), limit, what };
    let length = file.metadata().map_err(|cause| InputError::Io { path: path.to_path_buf(), cause })?.len();
    if length > limit {
        return Err(too_large());
    }
    let mut bytes = Vec::with_capacity(length as usize);
    // The file may grow after its length was read: still stop past the limit.
    file.take(limit + 1).read_to_end(&mut bytes).map_err(|cause| InputError::Io { path: path.to_path_buf(), cause })?;
    if bytes.len() as u64 > limit {
        return Err(too_large());
    }
    Ok(bytes)
}

/// Reads the regular file at `path` as UTF-8 text of at most `limit` bytes.
pub fn read_text(path: &Path, limit: u64, what: &'static str) -> Result<String, InputError> {
    let bytes = read(path, limit, what)?;
    String::from_utf8(bytes).map_err(|error| InputError::Io {
        path: path.to_path_buf(),
        cause: io::Error::new(io::ErrorKind::InvalidData, format!("not UTF-8 text: {}", error.utf8_error())),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn regular_files_are_read_up_to_their_limit_and_other_files_refused_at_once() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("a.txt");
        std::fs::write(&path, "12345").unwrap();
        assert_eq!(read(&path, 5, "a test file").unwrap(), b"12345");
        let error = read(&path, 4, "a test file").unwrap_err();
        assert_eq!(error.to_string(), format!("{} is larger than 4 bytes: not a test file", path.display()));
        let error = read(dir.path(), 10, "a test file").unwrap_err();
        assert!(matches!(error, InputError::NotAFile { kind: "a directory", .. }), "{error}");
        assert!(read(&dir.path().join("none"), 10, "x").unwrap_err().is_not_found());
        #[cfg(unix)]
        {
            let error = read(Path::new("/dev/zero"), 10, "x").unwrap_err();
            assert!(matches!(error, InputError::NotAFile { kind: "a character device", .. }), "{error}");
            // Nobody writes to this FIFO: a plain open would wait forever.
            let fifo = dir.path().join("fifo");
            assert!(std::process::Command::new("mkfifo").arg(&fifo).status().unwrap().success());
            let error = open(&fifo).unwrap_err();
            assert!(matches!(error, InputError::NotAFile { kind: "a FIFO (named pipe)", .. }), "{error}");
        }
    }
}
