//! Random solvable Reach the Flag maps: lay a random walk and derive each
//! tile from how often the walk entered it.
//!
//! A cell the walk entered once becomes fragile, twice cracked; the walk's
//! last cell becomes the flag, and stones replace some walked cells. The walk
//! itself then wins the map (stones and the flag take any number of entries),
//! so every map generated is solvable by construction, and the walk is
//! returned as the witness. Deterministic for a seed (random numbers from
//! [`GameRng`] only).

use super::{Config, Dir, FlagGame, FlagSetup, MAX_CELLS, MAX_SIDE, NO_CELL, Tile};
use crate::game::{Game, Status};
use crate::rng::GameRng;

/// What to generate.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct GenSettings {
    pub width: u16,
    pub height: u16,
    pub seed: u64,
    /// Walked cells turned into stones.
    pub stones: usize,
    /// The walk stops once it has entered this percentage of the cells.
    pub fill_percent: u32,
    /// Chance, in percent, that a step re-enters a cell entered once
    /// (making it cracked) when a fresh cell is also at hand.
    pub cracked_percent: u32,
}

impl GenSettings {
    /// `width`×`height`, 70% of the cells walked, 10% re-entry chance, no stones.
    pub fn new(width: u16, height: u16, seed: u64) -> GenSettings {
        GenSettings { width, height, seed, stones: 0, fill_percent: 70, cracked_percent: 10 }
    }

    /// The command line that generates these settings' map.
    pub fn command_line(&self) -> String {
        format!(
            "tickbot gen flag --size {}x{} --seed {} --stones {} --fill {} --cracked {}",
            self.width, self.height, self.seed, self.stones, self.fill_percent, self.cracked_percent
        )
    }
}

/// Why no map could be generated.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum GenerateError {
    #[error("the board must be at least 2 cells and at most {MAX_SIDE}×{MAX_SIDE} and {MAX_CELLS} cells (got {0}×{1})")]
    Size(u16, u16),
    #[error("--fill must be 1..=100 and --cracked 0..=100 (got {fill} and {cracked})")]
    Percent { fill: u32, cracked: u32 },
    #[error("{wanted} stones asked for, but the walk entered only {available} cells besides the flag")]
    TooManyStones { wanted: usize, available: usize },
}

/// A generated map and a walk that wins it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Generated {
    pub setup: FlagSetup,
    pub walk: Vec<Dir>,
}

impl Generated {
    /// The validated level.
    #[cfg(test)]
    pub(crate) fn config(&self) -> Config {
        Config::try_from(self.setup.clone()).expect("generated maps are valid")
    }
}

/// Walk attempts before settling for the longest walk found.
const ATTEMPTS: u32 = 200;

/// Generates a solvable map.
pub fn generate(settings: &GenSettings) -> Result<Generated, GenerateError> {
    let (width, height) = (settings.width, settings.height);
    let n_cells = usize::from(width) * usize::from(height);
    if width == 0 || height == 0 || width > MAX_SIDE || height > MAX_SIDE || !(2..=MAX_CELLS).contains(&n_cells) {
        return Err(GenerateError::Size(width, height));
    }
    if !(1..=100).contains(&settings.fill_percent) || settings.cracked_percent > 100 {
        return Err(GenerateError::Percent { fill: settings.fill_percent, cracked: settings.cracked_percent });
    }
    let setup = FlagSetup { width, height, tiles: vec![Tile::Hole; n_cells], start_col: 0, start_row: 0 };
    // Only for its neighbour table: a 1-flag board of the right size.
    let mut board = setup.clone();
    board.tiles[0] = Tile::Flag;
    let geometry = Config::try_from(board).expect("a bare board is valid");
    let target = (n_cells * settings.fill_percent as usize).div_ceil(100).max(2);
    let mut rng = GameRng::from_seed(settings.seed);
    let (start, counts, walk) = longest_walk(&geometry, target, settings.cracked_percent, &mut rng);
    let mut tiles: Vec<Tile> = counts
        .iter()
        .map(|&count| match count {
            0 => Tile::Hole,
            1 => Tile::Fragile,
            _ => Tile::Cracked,
        })
        .collect();
    let mut end = start;
    for &dir in &walk {
        end = geometry.neighbour(end, dir).expect("the walk stays on the board");
    }
    tiles[usize::from(end)] = Tile::Flag;
    let mut walked: Vec<usize> = (0..n_cells).filter(|&cell| counts[cell] > 0 && cell != usize::from(end)).collect();
    if settings.stones > walked.len() {
        return Err(GenerateError::TooManyStones { wanted: settings.stones, available: walked.len() });
    }
    rng.shuffle(&mut walked);
    for &cell in &walked[..settings.stones] {
        tiles[cell] = Tile::Stone;
    }
    let (start_col, start_row) = (start % width, start / width);
    let setup = FlagSetup { width, height, tiles, start_col, start_row };
    // With stones, the walk may cross the flag after its last fragile entry
    // and so win before its end: keep only the moves the game accepts.
    let walk = cut_where_won(&setup, settings.seed, walk);
    Ok(Generated { setup, walk })
}

/// The walk of the first of [`ATTEMPTS`] tries that enters `target` cells,
/// or else the one that entered the most: its start, how often it entered
/// each cell, and its moves. A step re-enters a cell entered once with
/// `cracked_percent` chance when a fresh cell is also at hand.
fn longest_walk(geometry: &Config, target: usize, cracked_percent: u32, rng: &mut GameRng) -> (u16, Vec<u8>, Vec<Dir>) {
    let mut best: Option<(u16, Vec<u8>, Vec<Dir>)> = None;
    let n_cells = geometry.n_cells();
    let mut counts = vec![0u8; n_cells];
    for _ in 0..ATTEMPTS {
        let start = rng.below(n_cells as u32) as u16;
        counts.fill(0);
        counts[usize::from(start)] = 1;
        let mut entered = 1;
        let mut position = start;
        let mut walk = Vec::new();
        while entered < target {
            let mut fresh = [(Dir::Up, NO_CELL); 4];
            let mut n_fresh = 0;
            let mut again = [(Dir::Up, NO_CELL); 4];
            let mut n_again = 0;
            for dir in Dir::ALL {
                let Some(next) = geometry.neighbour(position, dir) else { continue };
                match counts[usize::from(next)] {
                    0 => {
                        fresh[n_fresh] = (dir, next);
                        n_fresh += 1;
                    }
                    1 => {
                        again[n_again] = (dir, next);
                        n_again += 1;
                    }
                    _ => {}
                }
            }
            let reenter = n_again > 0 && (n_fresh == 0 || rng.chance(cracked_percent, 100));
            let (dir, next) = if reenter {
                again[rng.below(n_again as u32) as usize]
            } else if n_fresh > 0 {
                fresh[rng.below(n_fresh as u32) as usize]
            } else {
                break;
            };
            if counts[usize::from(next)] == 0 {
                entered += 1;
            }
            counts[usize::from(next)] += 1;
            walk.push(dir);
            position = next;
        }
        let better = best
            .as_ref()
            .is_none_or(|(_, best_counts, _)| entered > best_counts.iter().filter(|&&count| count > 0).count());
        if better && !walk.is_empty() {
            best = Some((start, counts.clone(), walk));
        }
        if entered >= target {
            break;
        }
    }
    best.expect("a board of 2+ cells always allows one step")
}

/// `walk` cut where it wins the map `setup` (a walk may cross the flag
/// after its last fragile or cracked entry and so win before its end): the
/// moves the game accepts.
pub(super) fn cut_where_won(setup: &FlagSetup, seed: u64, mut walk: Vec<Dir>) -> Vec<Dir> {
    let config = Config::try_from(setup.clone()).expect("generated maps are valid");
    let mut game = FlagGame::new(&config, seed);
    let mut played = 0;
    while game.status() == Status::Running && played < walk.len() {
        game.step(walk[played]).expect("the walk is legal on its own map");
        played += 1;
    }
    walk.truncate(played);
    walk
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::game::OutcomeKind;
    use crate::game::Show;
    use crate::game::flag::play_moves;

    #[test]
    fn generated_maps_are_won_by_their_walk_and_fill_as_asked() {
        for seed in 0..20 {
            for (width, height, stones) in [(10, 10, 0), (8, 6, 3), (12, 12, 5), (2, 1, 0)] {
                let settings = GenSettings { stones, ..GenSettings::new(width, height, seed) };
                let generated = generate(&settings).unwrap();
                let config = generated.config();
                let game = play_moves(&config, &generated.walk).expect("the walk is legal");
                assert!(
                    matches!(game.status(), Status::Over(outcome) if outcome.kind == OutcomeKind::Won),
                    "seed {seed} {width}x{height}:\n{}",
                    game.render()
                );
                assert_eq!(config.count(Tile::Stone), stones);
                if (width, height) == (10, 10) {
                    let walked = config.tiles().iter().filter(|&&tile| tile != Tile::Hole).count();
                    assert!(walked >= 70, "seed {seed}: only {walked} tiles");
                }
            }
        }
    }

    #[test]
    fn same_seed_same_map_and_bad_settings_are_refused() {
        let settings = GenSettings::new(9, 7, 4);
        assert_eq!(generate(&settings), generate(&settings));
        assert_ne!(generate(&settings).unwrap().setup, generate(&GenSettings { seed: 5, ..settings }).unwrap().setup);
        assert_eq!(generate(&GenSettings::new(1, 1, 0)), Err(GenerateError::Size(1, 1)));
        assert!(matches!(generate(&GenSettings { fill_percent: 0, ..settings }), Err(GenerateError::Percent { .. })));
        assert!(matches!(generate(&GenSettings { stones: 500, ..settings }), Err(GenerateError::TooManyStones { .. })));
    }
}
