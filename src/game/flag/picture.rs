//! How people see Reach the Flag (the [`Show`] impl): the board as text, as
//! plain data (`replay export --states`) and as a picture for the viewers
//! (tiles coloured by kind with the entries they still take, fallen tiles
//! dark, the flag and the player).

use serde::Serialize;

use super::{Config, FlagGame, Tile};
use crate::game::picture::{Colour, Mark, Picture, Tile as PictureTile};
use crate::game::{Game, Show, Status};

/// What changes during a game of Reach the Flag.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct FlagSnapshot {
    /// `[column, row]`.
    pub(crate) position: [u16; 2],
    /// Entries still needed before every fragile and cracked tile has fallen.
    pub(crate) entries_to_go: u32,
    /// Per row, the entries each tile still takes before it falls (0 for
    /// fallen tiles, holes, stone and the flag).
    pub(crate) visits: Vec<Vec<u8>>,
}

impl Show for FlagGame {
    type Snapshot = FlagSnapshot;

    fn render(&self) -> String {
        let config = self.config();
        let status = match self.status() {
            Status::Running => "running".to_string(),
            Status::Over(outcome) => outcome.to_string(),
        };
        let mut out = format!("tick {}  entries to go {}  {status}\n", self.tick(), self.remaining());
        for row in 0..config.height() {
            for col in 0..config.width() {
                let cell = row * config.width() + col;
                let ch = if cell == self.position() {
                    '@'
                } else {
                    match config.tile(cell) {
                        Tile::Stone => '3',
                        Tile::Flag => 'F',
                        _ => match self.visits()[usize::from(cell)] {
                            0 => '.',
                            1 => '1',
                            _ => '2',
                        },
                    }
                };
                out.push(ch);
            }
            out.push('\n');
        }
        out
    }

    fn snapshot(&self) -> FlagSnapshot {
        let config = self.config();
        let (column, row) = config.col_row(self.position());
        FlagSnapshot {
            position: [column, row],
            entries_to_go: self.remaining(),
            visits: self.visits().chunks(usize::from(config.width())).map(<[u8]>::to_vec).collect(),
        }
    }

    fn draw(&self) -> Picture {
        let config = self.config();
        let mut picture = Picture::new(config.width(), config.height(), 28, 28, PictureTile::plain(Colour::Ink));
        picture.label_chars = 1;
        for cell in 0..config.n_cells() as u16 {
            let visits = self.visits()[usize::from(cell)];
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
        let position = self.position();
        let player = &mut picture.tiles[usize::from(position)];
        player.mark = Mark::Disc;
        player.mark_colour = Colour::Blue;
        // The player hides the tile's own mark: on the flag, an F says so.
        player.label = if position == config.flag() { "F".into() } else { String::new() };
        player.label_colour = Colour::Paper;
        picture.caption = format!("entries to go {}", self.remaining());
        picture
    }

    fn describe(config: &Config) -> String {
        config.describe_rules()
    }
}
