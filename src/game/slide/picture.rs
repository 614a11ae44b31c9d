//! The sliding puzzle as plain data (`replay export --states`) and as a
//! picture for the viewers: numbered tiles, green where a tile is home.

use serde::Serialize;

use super::SlideGame;
use crate::game::Game;
use crate::game::picture::{Colour, Picture, Tile};

/// What changes during a sliding-puzzle game.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct SlideSnapshot {
    /// Per row, the tiles (0 is the blank).
    pub tiles: Vec<Vec<u8>>,
    /// `[column, row]` of the blank.
    pub blank: [u8; 2],
    /// Tiles on their goal cell, the blank not counted.
    pub tiles_home: u32,
}

impl SlideGame {
    pub(super) fn snapshot_state(&self) -> SlideSnapshot {
        let side = self.config.side;
        SlideSnapshot {
            tiles: self.tiles().chunks(usize::from(side)).map(<[u8]>::to_vec).collect(),
            blank: [self.blank % side, self.blank / side],
            tiles_home: self.score() as u32,
        }
    }

    pub(super) fn draw_board(&self) -> Picture {
        let side = u16::from(self.config.side);
        let n_cells = self.config.n_cells() as u8;
        let mut picture = Picture::new(side, side, 48, 48, Tile::plain(Colour::DarkGrey));
        for (cell, &tile) in self.tiles().iter().enumerate() {
            if tile == 0 {
                continue;
            }
            let home = self.config.goal.cell_of(tile, n_cells) == cell as u8;
            let ground = if home { Colour::LightGreen } else { Colour::Sand };
            picture.tiles[cell] = Tile::plain(ground).with_label(tile.to_string(), Colour::Ink);
        }
        picture.caption = format!("{} of {} tiles home", self.score(), n_cells - 1);
        picture
    }
}
