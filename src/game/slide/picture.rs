//! How a sliding-puzzle game shows itself ([`Show`]): as text, as plain
//! data (`replay export --states`) and as a picture for the viewers,
//! numbered tiles, green where a tile is home.

use serde::Serialize;

use super::{Config, SlideGame};
use crate::game::picture::{Colour, Picture, Tile};
use crate::game::{Game, Show};

/// What changes during a sliding-puzzle game.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct SlideSnapshot {
    /// Per row, the tiles (0 is the blank).
    pub(crate) tiles: Vec<Vec<u8>>,
    /// `[column, row]` of the blank.
    pub(crate) blank: [u8; 2],
    /// Tiles on their goal cell, the blank not counted.
    pub(crate) tiles_home: u32,
}

impl Show for SlideGame {
    fn render(&self) -> String {
        let status = match &self.outcome {
            None => "running".to_string(),
            Some(outcome) => outcome.to_string(),
        };
        let mut out = format!("tick {}  {} tiles home  {status}\n", self.tick, self.score());
        let side = usize::from(self.config.side());
        for row in self.tiles().chunks(side) {
            let cells: Vec<String> =
                row.iter().map(|&tile| if tile == 0 { " _".to_string() } else { format!("{tile:>2}") }).collect();
            out.push_str(&cells.join(" "));
            out.push('\n');
        }
        out
    }

    type Snapshot = SlideSnapshot;

    fn snapshot(&self) -> SlideSnapshot {
        let side = self.config.side();
        SlideSnapshot {
            tiles: self.tiles().chunks(usize::from(side)).map(<[u8]>::to_vec).collect(),
            blank: [self.blank % side, self.blank / side],
            tiles_home: self.score() as u32,
        }
    }

    fn draw(&self) -> Picture {
        let side = u16::from(self.config.side());
        let n_cells = self.config.n_cells() as u8;
        let mut picture = Picture::new(side, side, 48, 48, Tile::plain(Colour::DarkGrey));
        for (cell, &tile) in self.tiles().iter().enumerate() {
            if tile == 0 {
                continue;
            }
            let home = self.config.goal().cell_of(tile, n_cells) == cell as u8;
            let ground = if home { Colour::LightGreen } else { Colour::Sand };
            picture.tiles[cell] = Tile::plain(ground).with_label(tile.to_string(), Colour::Ink);
        }
        picture.caption = format!("{} of {} tiles home", self.score(), n_cells - 1);
        picture
    }

    fn describe(config: &Config) -> String {
        config.describe_rules()
    }
}
