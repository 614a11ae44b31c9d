//! The naive oracle the planners are checked against (a breadth-first
//! search over whole game states), and the random small boards they are
//! checked on. Test code only.

use std::collections::{HashSet, VecDeque};

use crate::game::flag::{Config, FlagGame, FlagSetup, Tile};
use crate::game::{Game, OutcomeKind, Status};
use crate::rng::GameRng;

/// The shortest win by breadth-first search over whole game states, or
/// `None`: the naive oracle the planners are checked against.
pub(crate) fn oracle(config: &Config) -> Option<usize> {
    oracle_from(FlagGame::new(config, 0))
}

/// The shortest win from `start` by breadth-first search, or `None`.
pub(crate) fn oracle_from(start: FlagGame) -> Option<usize> {
    let mut seen = HashSet::new();
    let mut queue = VecDeque::from([(start, 0usize)]);
    let mut legal = Vec::new();
    while let Some((game, depth)) = queue.pop_front() {
        if matches!(game.status(), Status::Over(outcome) if outcome.kind == OutcomeKind::Won) {
            return Some(depth);
        }
        legal.clear();
        game.legal_actions(&mut legal);
        for &dir in &legal {
            let mut next = game.clone();
            next.step(dir).unwrap();
            if seen.insert((next.position(), next.visits().to_vec())) {
                queue.push_back((next, depth + 1));
            }
        }
    }
    None
}

/// A random 3×3 or 4×3 board of holes, fragile, cracked and stone tiles
/// with a flag and a start that is not a hole: the small boards the
/// planners are checked against [`oracle`] on.
pub(crate) fn random_small_board(rng: &mut GameRng) -> Config {
    let tiles = [Tile::Hole, Tile::Fragile, Tile::Fragile, Tile::Fragile, Tile::Cracked, Tile::Stone];
    let width = 3 + rng.below(2) as u16;
    random_board(rng, &tiles, width, Tile::Fragile)
}

/// A `width`×3 board of tiles drawn from `tiles`, one of them turned into
/// the flag, and a start drawn at random (on `start_tile` if it fell on a
/// hole).
pub(crate) fn random_board(rng: &mut GameRng, tiles: &[Tile], width: u16, start_tile: Tile) -> Config {
    let height = 3;
    let n_cells = usize::from(width * height);
    let mut setup = FlagSetup {
        width,
        height,
        tiles: (0..n_cells).map(|_| tiles[rng.below(tiles.len() as u32) as usize]).collect(),
        start_col: 0,
        start_row: 0,
    };
    setup.tiles[rng.below(n_cells as u32) as usize] = Tile::Flag;
    let start = rng.below(n_cells as u32) as usize;
    if setup.tiles[start] == Tile::Hole {
        setup.tiles[start] = start_tile;
    }
    (setup.start_col, setup.start_row) = ((start % usize::from(width)) as u16, (start / usize::from(width)) as u16);
    Config::try_from(setup).unwrap()
}
