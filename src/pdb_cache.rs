//! The on-disk cache of the sliding puzzle's pattern databases: where it
//! lives, the file layout (with an xxh3 checksum), and load-or-build. The
//! tables themselves are built by `game::slide::plan::pdb`, which does no I/O.
//!
//! File layout (all integers little-endian): the magic `TBPDB1\n`, the board
//! side (u8), whether the build knew the blank (u8: 1, as every build does), the
//! table's tile count (u8) and tiles (u8 each), the entry count (u64), the
//! entries (one byte each), then the xxh3-64 of everything before it (u64).
//! A file is used only if all of it matches the table asked for (its name
//! names the side and tiles too), so a file of another board, group or
//! abstraction, or a damaged one, is rebuilt and rewritten, never trusted.
//! A change to what a table holds for the same key must change the magic.

use std::path::{Path, PathBuf};
use std::time::Instant;

use rayon::prelude::*;
use xxhash_rust::xxh3::xxh3_64;

use crate::game::slide::plan::pdb::{Partition, PatternDb, PdbSet};
use crate::plan::{Budget, PlanError};
use crate::progress::Progress;

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
    /// Why the cache could not be used or written, if it could not (the
    /// tables are then built, or kept, in memory only).
    pub unusable: Option<String>,
    /// Wall time spent building, and spent loading.
    pub build_seconds: f64,
    pub load_seconds: f64,
}

/// Why no tables came out.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum CacheError {
    /// The budget ran out (Ctrl-C) during a build. The tables finished
    /// before it are saved; nothing of the unfinished ones is.
    #[error("building the pattern databases stopped: {0}")]
    Stopped(#[from] PlanError),
}

/// The cache file name of one group's table.
pub(crate) fn file_name(partition: Partition, tiles: &[u8]) -> String {
    let tiles: Vec<String> = tiles.iter().map(u8::to_string).collect();
    format!("slide{}-blank-{}.pdb", partition.side(), tiles.join("_"))
}

/// The abstraction byte of the file layout: the build knew the blank.
const BLANK_AWARE: u8 = 1;

/// The bytes of a table file.
pub(crate) fn encode(table: &PatternDb) -> Vec<u8> {
    let mut bytes = Vec::with_capacity(table.entries().len() + 64);
    bytes.extend_from_slice(MAGIC);
    bytes.push(table.side());
    bytes.push(BLANK_AWARE);
    bytes.push(table.tiles().len() as u8);
    bytes.extend_from_slice(table.tiles());
    bytes.extend_from_slice(&(table.entries().len() as u64).to_le_bytes());
    bytes.extend_from_slice(table.entries());
    let checksum = xxh3_64(&bytes);
    bytes.extend_from_slice(&checksum.to_le_bytes());
    bytes
}

/// Reads a table file back; `None` unless it is exactly the table expected.
pub(crate) fn decode(bytes: &[u8], side: u8, tiles: &[u8]) -> Option<PatternDb> {
    let (body, checksum) = bytes.split_at_checked(bytes.len().checked_sub(8)?)?;
    if xxh3_64(body) != u64::from_le_bytes(checksum.try_into().ok()?) {
        return None;
    }
    let rest = body.strip_prefix(MAGIC)?;
    let (&[file_side, file_blank, n_tiles], rest) = rest.split_first_chunk::<3>()?;
    let (file_tiles, rest) = rest.split_at_checked(usize::from(n_tiles))?;
    let (count, entries) = rest.split_first_chunk::<8>()?;
    if file_side != side || file_blank != BLANK_AWARE || file_tiles != tiles {
        return None;
    }
    if u64::from_le_bytes(*count) != entries.len() as u64 {
        return None;
    }
    PatternDb::from_entries(side, tiles, entries.to_vec()).ok()
}

/// A partition's tables as far as the cache holds them: [`load`] reads
/// what it can, [`Loaded::build`] builds the rest.
#[derive(Debug)]
pub struct Loaded {
    partition: Partition,
    dir: Option<PathBuf>,
    tables: Vec<Option<PatternDb>>,
    report: CacheReport,
}

/// Reads `partition`'s tables from `dir`. A `dir` that exists but is not a
/// usable directory is not used (the report says why).
pub fn load(partition: Partition, dir: Option<&Path>) -> Loaded {
    let mut report = CacheReport::default();
    let dir = dir.and_then(|dir| match std::fs::metadata(dir) {
        Ok(metadata) if !metadata.is_dir() => {
            report.unusable = Some(format!("{} is not a directory", dir.display()));
            None
        }
        _ => Some(dir.to_path_buf()),
    });
    let side = partition.side();
    let started = Instant::now();
    let tables: Vec<Option<PatternDb>> = partition
        .tables()
        .iter()
        .map(|tiles| {
            let path = dir.as_ref()?.join(file_name(partition, tiles));
            let bytes = std::fs::read(&path).ok()?;
            let table = decode(&bytes, side, tiles);
            if table.is_none() {
                report.corrupt.push(path);
            }
            table
        })
        .collect();
    report.load_seconds = started.elapsed().as_secs_f64();
    report.loaded = tables.iter().filter(|table| table.is_some()).count();
    Loaded { partition, dir, tables, report }
}

impl Loaded {
    /// How many tables are still to be built.
    pub fn missing(&self) -> usize {
        self.tables.iter().filter(|table| table.is_none()).count()
    }

    /// The states the missing tables' builds settle: the total that
    /// [`Loaded::build`] counts its progress towards.
    pub fn missing_states(&self) -> u64 {
        let side = self.partition.side();
        (self.partition.tables().iter().zip(&self.tables))
            .filter(|(_, table)| table.is_none())
            .map(|(tiles, _)| PatternDb::build_states(side, tiles.len()))
            .sum()
    }

    /// The memory the missing tables' builds take together at their peak,
    /// in bytes (they run at the same time).
    pub fn missing_build_bytes(&self) -> u64 {
        let side = self.partition.side();
        (self.partition.tables().iter().zip(&self.tables))
            .filter(|(_, table)| table.is_none())
            .map(|(tiles, _)| PatternDb::build_bytes(side, tiles.len()))
            .sum()
    }

    /// The directory tables are saved to, if any.
    pub fn dir(&self) -> Option<&Path> {
        self.dir.as_deref()
    }

    /// What loading found so far (corrupt files, an unusable directory).
    pub fn report(&self) -> &CacheReport {
        &self.report
    }

    /// Builds the missing tables (on all cores), saves each finished one,
    /// and assembles the set. Stops when `budget` runs out; counts settled
    /// states in `progress` (its total is set to [`Loaded::missing_states`]).
    /// A table that cannot be saved is kept in memory and the report says
    /// why.
    pub fn build(self, budget: &Budget, progress: &Progress) -> Result<(PdbSet, CacheReport), CacheError> {
        let total = self.missing_states();
        let Loaded { partition, dir, mut tables, mut report } = self;
        let groups = partition.tables();
        let side = partition.side();
        let missing: Vec<usize> = (0..groups.len()).filter(|&g| tables[g].is_none()).collect();
        if !missing.is_empty() {
            progress.set_total(total);
            let started = Instant::now();
            let built: Vec<(usize, Result<PatternDb, PlanError>)> =
                missing.par_iter().map(|&g| (g, PatternDb::build_within(side, &groups[g], budget, progress))).collect();
            report.build_seconds = started.elapsed().as_secs_f64();
            let mut stopped = None;
            for (g, table) in built {
                let table = match table {
                    Ok(table) => table,
                    Err(error) => {
                        stopped = Some(error);
                        continue;
                    }
                };
                report.built += 1;
                if let (Some(dir), None) = (&dir, &report.unusable) {
                    let path = dir.join(file_name(partition, &groups[g]));
                    if let Err(error) = save(&path, &table) {
                        report.unusable = Some(format!("cannot write {}: {error}", path.display()));
                    }
                }
                tables[g] = Some(table);
            }
            if let Some(error) = stopped {
                return Err(CacheError::Stopped(error));
            }
        }
        let tables = tables.into_iter().map(|table| table.expect("loaded or built")).collect();
        Ok((PdbSet::from_tables(partition, tables), report))
    }
}

/// Loads `partition`'s tables from `dir`, building (on all cores) and saving
/// any that are missing or corrupt. Without a directory, builds every table.
#[cfg(test)]
pub(crate) fn load_or_build(
    partition: Partition,
    dir: Option<&Path>,
    budget: &Budget,
    progress: &Progress,
) -> Result<(PdbSet, CacheReport), CacheError> {
    load(partition, dir).build(budget, progress)
}

/// Writes `table` to `path` through a `.part` file and a rename, so a file
/// under the final name is always whole; a failed write leaves no `.part`.
fn save(path: &Path, table: &PatternDb) -> std::io::Result<()> {
    if let Some(parent) = path.parent() {
        std::fs::create_dir_all(parent)?;
    }
    let part = path.with_extension("pdb.part");
    let written = std::fs::write(&part, encode(table)).and_then(|()| std::fs::rename(&part, path));
    if written.is_err() {
        let _ = std::fs::remove_file(&part);
    }
    written
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tables_round_trip_and_damage_is_caught() {
        let table = PatternDb::build(3, &[1, 2, 3, 4]);
        let bytes = encode(&table);
        assert_eq!(decode(&bytes, 3, &[1, 2, 3, 4]), Some(table.clone()));
        assert_eq!(decode(&bytes, 3, &[5, 6, 7, 8]), None, "another group");
        assert_eq!(decode(&bytes, 4, &[1, 2, 3, 4]), None, "another board");
        // A whole, checksummed file of another abstraction (the blank-blind
        // build of earlier versions) is refused as well.
        let mut blind = bytes[..bytes.len() - 8].to_vec();
        blind[MAGIC.len() + 1] = 0;
        let checksum = xxh3_64(&blind);
        blind.extend_from_slice(&checksum.to_le_bytes());
        assert_eq!(decode(&blind, 3, &[1, 2, 3, 4]), None, "another abstraction");
        for at in [0, 9, 20, bytes.len() - 1] {
            let mut damaged = bytes.clone();
            damaged[at] ^= 1;
            assert_eq!(decode(&damaged, 3, &[1, 2, 3, 4]), None, "byte {at}");
        }
        assert_eq!(decode(&bytes[..bytes.len() - 3], 3, &[1, 2, 3, 4]), None);
        assert_eq!(decode(&[], 3, &[1, 2, 3, 4]), None);
    }

    #[test]
    fn the_cache_is_built_once_then_loaded_and_a_corrupt_file_is_rebuilt() {
        let dir = tempfile::TempDir::new().unwrap();
        let (first, report) =
            load_or_build(Partition::P44, Some(dir.path()), &Budget::unlimited(), &Progress::default()).unwrap();
        assert_eq!((report.loaded, report.built), (0, 2));
        let (second, report) =
            load_or_build(Partition::P44, Some(dir.path()), &Budget::unlimited(), &Progress::default()).unwrap();
        assert_eq!((report.loaded, report.built), (2, 0));
        assert_eq!(first.tables(), second.tables());
        let path = dir.path().join(file_name(Partition::P44, &[1, 2, 3, 4]));
        let mut bytes = std::fs::read(&path).unwrap();
        bytes[100] ^= 0xFF;
        std::fs::write(&path, bytes).unwrap();
        let (third, report) =
            load_or_build(Partition::P44, Some(dir.path()), &Budget::unlimited(), &Progress::default()).unwrap();
        assert_eq!((report.loaded, report.built, report.corrupt), (1, 1, vec![path.clone()]));
        assert_eq!(first.tables(), third.tables());
        assert_eq!(std::fs::read(&path).unwrap(), encode(&first.tables()[0]), "rewritten whole");
    }

    #[test]
    fn a_cache_path_that_is_a_file_is_not_used_and_the_tables_are_built_in_memory() {
        let dir = tempfile::TempDir::new().unwrap();
        let file = dir.path().join("not-a-dir");
        std::fs::write(&file, b"x").unwrap();
        let (tables, report) = load_or_build(Partition::P44, Some(&file), &Budget::unlimited(), &Progress::default())
            .expect("built in memory");
        assert_eq!(tables.tables().len(), 2);
        assert_eq!((report.loaded, report.built), (0, 2));
        assert_eq!(report.unusable, Some(format!("{} is not a directory", file.display())));
        assert_eq!(std::fs::read(&file).unwrap(), b"x", "the file is left alone");
    }

    #[test]
    fn a_cancelled_build_stops_and_leaves_no_file() {
        let dir = tempfile::TempDir::new().unwrap();
        let cancel = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(true));
        let progress = Progress::default();
        let loaded = load(Partition::P555, Some(dir.path()));
        assert_eq!(loaded.missing(), 3);
        let result = loaded.build(&Budget::new(None, Some(cancel)), &progress);
        assert_eq!(result.err(), Some(CacheError::Stopped(PlanError::Cancelled)));
        assert_eq!(progress.total(), 3 * PatternDb::build_states(4, 5));
        assert!(progress.done() < progress.total() / 10, "stopped early: {}", progress.done());
        let left: Vec<_> = std::fs::read_dir(dir.path()).unwrap().collect();
        assert!(left.is_empty(), "files left behind: {left:?}");
    }
}
