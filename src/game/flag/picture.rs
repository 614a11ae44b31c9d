//! Reach the Flag as plain data (`replay export --states`) and as a picture
//! for the viewers: tiles coloured by kind with the entries they still take,
//! fallen tiles dark, the flag and the player.

use serde::Serialize;

use super::{FlagGame, Tile};
use crate::game::picture::{Colour, Mark, Picture, Tile as PictureTile};

/// What changes during a game of Reach the Flag.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct FlagSnapshot {
    /// `[column, row]`.
    pub position: [u16; 2],
    /// Entries still needed before every fragile and cracked tile has fallen.
    pub entries_to_go: u32,
    /// Per row, the entries each tile still takes before it falls (0 for
    /// fallen tiles, holes, stone and the flag).
    pub visits: Vec<Vec<u8>>,
}

impl FlagGame {
    pub(super) fn snapshot_state(&self) -> FlagSnapshot {
        let (column, row) = self.config.col_row(self.position);
        FlagSnapshot {
            position: [column, row],
            entries_to_go: self.remaining,
            visits: self.visits.chunks(usize::from(self.config.width)).map(<[u8]>::to_vec).collect(),
        }
    }

    pub(super) fn draw_board(&self) -> Picture {
        let config = &self.config;
        let mut picture = Picture::new(config.width, config.height, 28, 28, PictureTile::plain(Colour::Ink));
        picture.label_chars = 1;
        for cell in 0..config.n_cells() as u16 {
            let visits = self.visits[usize::from(cell)];
            let tile = match config.tile(cell) {
                Tile::Hole => PictureTile::plain(Colour::Ink),
                Tile::Stone => PictureTile::plain(Colour::Grey),
                Tile::Flag => PictureTile::plain(Colour::Grey).with_mark(Mark::Flag, Colour::Red),
                kind @ (Tile::Fragile | Tile::Cracked) if visits > 0 => {
                    let ground = if kind == Tile::Fragile { Colour::Sand } else { Colour::Orange };
                    PictureTile::plain(ground).with_label(visits.to_string(), Colour::Ink)
                }
                // Fallen: darker than a hole, so the path taken shows.
                Tile::Fragile | Tile::Cracked => PictureTile::plain(Colour::DarkGrey),
            };
            picture.tiles[usize::from(cell)] = tile;
        }
        let player = &mut picture.tiles[usize::from(self.position)];
        player.mark = Mark::Disc;
        player.mark_colour = Colour::Blue;
        // The player hides the tile's own mark: on the flag, an F says so.
        player.label = if self.position == config.flag { "F".into() } else { String::new() };
        player.label_colour = Colour::Paper;
        picture.caption = format!("entries to go {}", self.remaining);
        picture
    }
}
