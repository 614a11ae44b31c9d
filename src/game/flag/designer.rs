//! The level designer's generator (`tickbot gen flag --walk LEN`): one long
//! walk of a given length over a bare board, with revisits; each cell's tile
//! comes from how often the walk entered it.
//!
//! A cell entered once becomes fragile, twice cracked, three or more times a
//! stone; the walk's last cell becomes the flag; cells never entered are
//! holes. The start cell counts as entered once (as the rules count it), so
//! the walk itself wins the map: every fragile and cracked tile takes exactly
//! the entries the walk makes, and stones and the flag take any number. The
//! walk is returned as the witness solution. Unlike [`super::generate`],
//! which stops once a share of the board is walked and rarely revisits, this
//! walk runs for its full length and so makes the stone- and crack-heavy
//! maps a designer draws by walking a level. Deterministic for a seed
//! (random numbers from [`GameRng`] only).

use super::generate::cut_where_won;
use super::{Config, Dir, FlagSetup, MAX_CELLS, MAX_SIDE, Tile};
use crate::rng::GameRng;

/// What to generate.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DesignerSettings {
    pub width: u16,
    pub height: u16,
    pub seed: u64,
    /// Moves in the walk.
    pub walk_len: u32,
    /// Chance, in percent, that a step picks any neighbour on the board
    /// (perhaps one walked before) while a never-entered neighbour is at
    /// hand; otherwise it picks a never-entered one. 100 is a plain random
    /// walk; 0 revisits only when boxed in.
    pub revisit_percent: u32,
}

impl DesignerSettings {
    /// A walk of `walk_len` moves over `width`×`height` with the default
    /// 25% revisit chance.
    pub fn new(width: u16, height: u16, walk_len: u32, seed: u64) -> DesignerSettings {
        DesignerSettings { width, height, seed, walk_len, revisit_percent: 25 }
    }

    /// The command line that generates these settings' map.
    pub fn command_line(&self) -> String {
        format!(
            "tickbot gen flag --size {}x{} --seed {} --walk {} --revisit {}",
            self.width, self.height, self.seed, self.walk_len, self.revisit_percent
        )
    }
}

/// Why no map could be generated.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum DesignerError {
    #[error("the board must be at least 2 cells and at most {MAX_SIDE}×{MAX_SIDE} and {MAX_CELLS} cells (got {0}×{1})")]
    Size(u16, u16),
    #[error("--walk must be 1..=100000 moves (got {0})")]
    WalkLength(u32),
    #[error("--revisit must be 0..=100 (got {0})")]
    Revisit(u32),
}

/// Longest walk accepted: far beyond any board's interest, short enough
/// that a mistyped length cannot make the generator run for long.
const MAX_WALK: u32 = 100_000;

/// A designer map and the walk that wins it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Designed {
    pub setup: FlagSetup,
    /// The witness: a winning move sequence, the walk (cut where the game
    /// is already won, which can happen when the walk crosses the flag after
    /// its last fragile or cracked entry).
    pub walk: Vec<Dir>,
}

impl Designed {
    /// The validated level.
    #[cfg(test)]
    pub(crate) fn config(&self) -> Config {
        Config::try_from(self.setup.clone()).expect("designed maps are valid")
    }
}

/// Lays the walk and derives the map.
pub fn design(settings: &DesignerSettings) -> Result<Designed, DesignerError> {
    let (width, height) = (settings.width, settings.height);
    let n_cells = usize::from(width) * usize::from(height);
    if width == 0 || height == 0 || width > MAX_SIDE || height > MAX_SIDE || !(2..=MAX_CELLS).contains(&n_cells) {
        return Err(DesignerError::Size(width, height));
    }
    if !(1..=MAX_WALK).contains(&settings.walk_len) {
        return Err(DesignerError::WalkLength(settings.walk_len));
    }
    if settings.revisit_percent > 100 {
        return Err(DesignerError::Revisit(settings.revisit_percent));
    }
    // Only for its neighbour table: a 1-flag board of the right size.
    let mut bare = FlagSetup { width, height, tiles: vec![Tile::Hole; n_cells], start_col: 0, start_row: 0 };
    bare.tiles[0] = Tile::Flag;
    let geometry = Config::try_from(bare).expect("a bare board is valid");
    let mut rng = GameRng::from_seed(settings.seed);
    let start = rng.below(n_cells as u32) as u16;
    let mut entries = vec![0u32; n_cells];
    entries[usize::from(start)] = 1;
    let mut position = start;
    let mut walk = Vec::with_capacity(settings.walk_len as usize);
    for _ in 0..settings.walk_len {
        let mut any = [Dir::Up; 4];
        let mut n_any = 0;
        let mut fresh = [Dir::Up; 4];
        let mut n_fresh = 0;
        for dir in Dir::ALL {
            let Some(next) = geometry.neighbour(position, dir) else { continue };
            any[n_any] = dir;
            n_any += 1;
            if entries[usize::from(next)] == 0 {
                fresh[n_fresh] = dir;
                n_fresh += 1;
            }
        }
        let dir = if n_fresh > 0 && !rng.chance(settings.revisit_percent, 100) {
            fresh[rng.below(n_fresh as u32) as usize]
        } else {
            any[rng.below(n_any as u32) as usize]
        };
        position = geometry.neighbour(position, dir).expect("a neighbour on the board");
        entries[usize::from(position)] += 1;
        walk.push(dir);
    }
    let mut tiles: Vec<Tile> = entries
        .iter()
        .map(|&count| match count {
            0 => Tile::Hole,
            1 => Tile::Fragile,
            2 => Tile::Cracked,
            _ => Tile::Stone,
        })
        .collect();
    tiles[usize::from(position)] = Tile::Flag;
    let setup = FlagSetup { width, height, tiles, start_col: start % width, start_row: start / width };
    // Keep only the moves the game accepts before it is won.
    let walk = cut_where_won(&setup, settings.seed, walk);
    Ok(Designed { setup, walk })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::game::flag::play_moves;
    use crate::game::{Game, OutcomeKind, Show, Status};

    #[test]
    fn designed_maps_are_won_by_their_walk_and_tiles_count_its_entries() {
        for seed in 0..12 {
            for (width, height, walk_len, revisit) in
                [(10, 10, 350, 25), (16, 16, 150, 25), (12, 12, 250, 100), (20, 20, 300, 0), (2, 1, 5, 25)]
            {
                let settings = DesignerSettings {
                    revisit_percent: revisit,
                    ..DesignerSettings::new(width, height, walk_len, seed)
                };
                let designed = design(&settings).unwrap();
                let config = designed.config();
                let game = play_moves(&config, &designed.walk).expect("the walk is legal");
                assert!(
                    matches!(game.status(), Status::Over(outcome) if outcome.kind == OutcomeKind::Won),
                    "seed {seed} {width}x{height}:\n{}",
                    game.render()
                );
                assert!(designed.walk.len() <= walk_len as usize);
                // Entries of the witness per cell give back the tiles.
                let mut entries = vec![0u32; config.n_cells()];
                let mut cell = config.start();
                entries[usize::from(cell)] = 1;
                for &dir in &designed.walk {
                    cell = config.neighbour(cell, dir).unwrap();
                    entries[usize::from(cell)] += 1;
                }
                for (index, &tile) in config.tiles().iter().enumerate() {
                    let expected = match entries[index] {
                        _ if index == usize::from(config.flag()) => Tile::Flag,
                        0 => Tile::Hole,
                        1 => Tile::Fragile,
                        2 => Tile::Cracked,
                        _ => Tile::Stone,
                    };
                    // A walk cut short leaves its unplayed cells' tiles as
                    // the full walk made them: only compare a whole walk.
                    if designed.walk.len() == walk_len as usize {
                        assert_eq!(tile, expected, "seed {seed} {width}x{height} cell {index}");
                    }
                }
            }
        }
    }

    #[test]
    fn revisits_make_stones_and_the_same_seed_gives_the_same_map() {
        let plain =
            design(&DesignerSettings { revisit_percent: 100, ..DesignerSettings::new(10, 10, 350, 3) }).unwrap();
        let avoiding =
            design(&DesignerSettings { revisit_percent: 0, ..DesignerSettings::new(10, 10, 350, 3) }).unwrap();
        assert!(plain.config().count(Tile::Stone) > avoiding.config().count(Tile::Stone));
        let settings = DesignerSettings::new(9, 7, 120, 4);
        assert_eq!(design(&settings), design(&settings));
        assert_ne!(design(&settings).unwrap().setup, design(&DesignerSettings { seed: 5, ..settings }).unwrap().setup);
        assert_eq!(design(&DesignerSettings::new(1, 1, 10, 0)), Err(DesignerError::Size(1, 1)));
        assert_eq!(design(&DesignerSettings::new(5, 5, 0, 0)), Err(DesignerError::WalkLength(0)));
        assert_eq!(design(&DesignerSettings { revisit_percent: 101, ..settings }), Err(DesignerError::Revisit(101)));
    }
}
