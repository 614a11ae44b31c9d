//! The on-disk cache of the sliding puzzle's pattern databases: where it
//! lives, the file layout (with an xxh3 checksum), and load-or-build. The
//! tables themselves are built by `game::slide::pdb`, which does no I/O.
//!
//! File layout (all integers little-endian): the magic `TBPDB1\n`, the board
//! side (u8), whether the build knew the blank (u8), the group's tile count
//! (u8) and tiles (u8 each), the entry count (u64), the entries (one byte
//! each), then the xxh3-64 of everything before it (u64). A file that does
//! not match is rebuilt and rewritten, never trusted.

use std::path::{Path, PathBuf};
use std::time::Instant;

use rayon::prelude::*;
use xxhash_rust::xxh3::xxh3_64;

use crate::game::slide::pdb::{Partition, PatternDb, PdbSet};

const MAGIC: &[u8] = b"TBPDB1\n";

/// The environment variable that overrides the cache directory.
pub(crate) const PDB_DIR_ENV: &str = "TICKBOT_PDB_DIR";

/// The default cache directory: `$TICKBOT_PDB_DIR`, else
/// `$XDG_CACHE_HOME/tickbot`, else `~/.cache/tickbot`.
pub fn default_dir() -> Option<PathBuf> {
    let from_env = |name: &str| std::env::var_os(name).filter(|value| !value.is_empty()).map(PathBuf::from);
    from_env(PDB_DIR_ENV)
        .or_else(|| from_env("XDG_CACHE_HOME").map(|dir| dir.join("tickbot")))
        .or_else(|| from_env("HOME").map(|home| home.join(".cache").join("tickbot")))
}

/// What loading a partition's tables took.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct CacheReport {
    /// Tables read from the cache.
    pub loaded: usize,
    /// Tables built (missing or corrupt).
    pub built: usize,
    /// Files found corrupt and rebuilt.
    pub corrupt: Vec<PathBuf>,
    /// Wall time spent building, and spent loading.
    pub build_seconds: f64,
    pub load_seconds: f64,
}

#[derive(Debug, thiserror::Error)]
pub enum CacheError {
    #[error("cannot write the pattern database {path}: {source}")]
    Write { path: PathBuf, source: std::io::Error },
}

/// The cache file name of one group's table.
pub(crate) fn file_name(partition: Partition, tiles: &[u8]) -> String {
    let tiles: Vec<String> = tiles.iter().map(u8::to_string).collect();
    let kind = if partition.blank_aware(tiles.len()) { "blank" } else { "blind" };
    format!("slide{}-{kind}-{}.pdb", partition.side(), tiles.join("_"))
}

/// The bytes of a table file.
pub(crate) fn encode(table: &PatternDb, blank_aware: bool) -> Vec<u8> {
    let mut bytes = Vec::with_capacity(table.entries().len() + 64);
    bytes.extend_from_slice(MAGIC);
    bytes.push(table.side());
    bytes.push(u8::from(blank_aware));
    bytes.push(table.tiles().len() as u8);
    bytes.extend_from_slice(table.tiles());
    bytes.extend_from_slice(&(table.entries().len() as u64).to_le_bytes());
    bytes.extend_from_slice(table.entries());
    let checksum = xxh3_64(&bytes);
    bytes.extend_from_slice(&checksum.to_le_bytes());
    bytes
}

/// Reads a table file back; `None` unless it is exactly the table expected.
pub fn decode(bytes: &[u8], side: u8, tiles: &[u8], blank_aware: bool) -> Option<PatternDb> {
    let (body, checksum) = bytes.split_at_checked(bytes.len().checked_sub(8)?)?;
    if xxh3_64(body) != u64::from_le_bytes(checksum.try_into().ok()?) {
        return None;
    }
    let rest = body.strip_prefix(MAGIC)?;
    let (&[file_side, file_blank, n_tiles], rest) = rest.split_first_chunk::<3>()?;
    let (file_tiles, rest) = rest.split_at_checked(usize::from(n_tiles))?;
    let (count, entries) = rest.split_first_chunk::<8>()?;
    if file_side != side || file_blank != u8::from(blank_aware) || file_tiles != tiles {
        return None;
    }
    if u64::from_le_bytes(*count) != entries.len() as u64 {
        return None;
    }
    PatternDb::from_entries(side, tiles, entries.to_vec()).ok()
}

/// Loads `partition`'s tables from `dir`, building (on all cores) and saving
/// any that are missing or corrupt. Without a directory, builds every table.
pub fn load_or_build(partition: Partition, dir: Option<&Path>) -> Result<(PdbSet, CacheReport), CacheError> {
    let mut report = CacheReport::default();
    let groups = partition.groups();
    let side = partition.side();
    let started = Instant::now();
    let mut tables: Vec<Option<PatternDb>> = groups
        .iter()
        .map(|tiles| {
            let path = dir?.join(file_name(partition, tiles));
            let bytes = std::fs::read(&path).ok()?;
            let table = decode(&bytes, side, tiles, partition.blank_aware(tiles.len()));
            if table.is_none() {
                report.corrupt.push(path);
            }
            table
        })
        .collect();
    report.load_seconds = started.elapsed().as_secs_f64();
    report.loaded = tables.iter().filter(|table| table.is_some()).count();
    let missing: Vec<usize> = (0..groups.len()).filter(|&g| tables[g].is_none()).collect();
    if !missing.is_empty() {
        let started = Instant::now();
        let built: Vec<(usize, PatternDb)> = missing
            .par_iter()
            .map(|&g| (g, PatternDb::build(side, &groups[g], partition.blank_aware(groups[g].len()))))
            .collect();
        report.build_seconds = started.elapsed().as_secs_f64();
        report.built = built.len();
        for (g, table) in built {
            if let Some(dir) = dir {
                save(&dir.join(file_name(partition, &groups[g])), &table, partition.blank_aware(groups[g].len()))?;
            }
            tables[g] = Some(table);
        }
    }
    let tables = tables.into_iter().map(|table| table.expect("loaded or built")).collect();
    Ok((PdbSet::from_tables(partition, tables), report))
}

/// Writes `table` to `path` through a `.part` file and a rename, so a file
/// under the final name is always whole.
fn save(path: &Path, table: &PatternDb, blank_aware: bool) -> Result<(), CacheError> {
    let error = |source| CacheError::Write { path: path.to_path_buf(), source };
    if let Some(parent) = path.parent() {
        std::fs::create_dir_all(parent).map_err(error)?;
    }
    let part = path.with_extension("pdb.part");
    std::fs::write(&part, encode(table, blank_aware)).map_err(error)?;
    std::fs::rename(&part, path).map_err(error)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tables_round_trip_and_damage_is_caught() {
        let table = PatternDb::build(3, &[1, 2, 3, 4], true);
        let bytes = encode(&table, true);
        assert_eq!(decode(&bytes, 3, &[1, 2, 3, 4], true), Some(table.clone()));
        assert_eq!(decode(&bytes, 3, &[1, 2, 3, 4], false), None, "another build kind");
        assert_eq!(decode(&bytes, 3, &[5, 6, 7, 8], true), None, "another group");
        for at in [0, 9, 20, bytes.len() - 1] {
            let mut damaged = bytes.clone();
            damaged[at] ^= 1;
            assert_eq!(decode(&damaged, 3, &[1, 2, 3, 4], true), None, "byte {at}");
        }
        assert_eq!(decode(&bytes[..bytes.len() - 3], 3, &[1, 2, 3, 4], true), None);
        assert_eq!(decode(&[], 3, &[1, 2, 3, 4], true), None);
    }

    #[test]
    fn the_cache_is_built_once_then_loaded_and_a_corrupt_file_is_rebuilt() {
        let dir = tempfile::TempDir::new().unwrap();
        let (first, report) = load_or_build(Partition::P44, Some(dir.path())).unwrap();
        assert_eq!((report.loaded, report.built), (0, 2));
        let (second, report) = load_or_build(Partition::P44, Some(dir.path())).unwrap();
        assert_eq!((report.loaded, report.built), (2, 0));
        assert_eq!(first.groups(), second.groups());
        let path = dir.path().join(file_name(Partition::P44, &[1, 2, 3, 4]));
        let mut bytes = std::fs::read(&path).unwrap();
        bytes[100] ^= 0xFF;
        std::fs::write(&path, bytes).unwrap();
        let (third, report) = load_or_build(Partition::P44, Some(dir.path())).unwrap();
        assert_eq!((report.loaded, report.built, report.corrupt), (1, 1, vec![path.clone()]));
        assert_eq!(first.groups(), third.groups());
        assert_eq!(std::fs::read(&path).unwrap(), encode(&first.groups()[0], true), "rewritten whole");
    }
}
