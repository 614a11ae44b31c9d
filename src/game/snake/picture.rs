//! Snake as plain data (`replay export --states`) and as a picture for the
//! viewers: walls, the body as one green band from tail to head, the food.

use serde::Serialize;

use super::{Config, Dir, SnakeGame};
use crate::game::Show;
use crate::game::picture::{Colour, DOWN, LEFT, Mark, Picture, RIGHT, Tile, UP};

/// What changes during a game of Snake; cells are `[column, row]`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct SnakeSnapshot {
    pub(crate) length: u32,
    pub(crate) heading: Dir,
    /// Head first.
    pub(crate) body: Vec<[u16; 2]>,
    pub(crate) food: Option<[u16; 2]>,
    pub(crate) ticks_since_food: u32,
}

impl SnakeGame {
    fn cell_at(&self, cell: u16) -> [u16; 2] {
        let width = self.config.width;
        [cell % width, cell / width]
    }

    pub(super) fn snapshot_state(&self) -> SnakeSnapshot {
        SnakeSnapshot {
            length: self.body.len() as u32,
            heading: self.heading,
            body: self.body.iter().map(|&cell| self.cell_at(cell)).collect(),
            food: self.food.map(|cell| self.cell_at(cell)),
            ticks_since_food: self.ticks_since_food,
        }
    }

    pub(super) fn draw_board(&self) -> Picture {
        let config = &self.config;
        let floor = Tile::plain(Colour::LightGrey);
        let mut picture = Picture::new(config.width, config.height, 16, 16, floor);
        picture.link_width = 56;
        for cell in 0..config.n_cells() as u16 {
            if config.is_wall(cell) {
                picture.tiles[usize::from(cell)] = Tile::plain(Colour::DarkGrey);
            }
        }
        if let Some(food) = self.food {
            picture.tiles[usize::from(food)] = Tile::plain(Colour::LightGrey).with_mark(Mark::Disc, Colour::Red);
        }
        let body: Vec<u16> = self.body.iter().copied().collect();
        for (index, &cell) in body.iter().enumerate() {
            let mut links = 0;
            if index > 0 {
                links |= self.direction_bit(cell, body[index - 1]);
            }
            if index + 1 < body.len() {
                links |= self.direction_bit(cell, body[index + 1]);
            }
            let mark = if index == 0 { (Mark::Disc, Colour::DarkGreen) } else { (Mark::Joint, Colour::Green) };
            picture.tiles[usize::from(cell)] =
                Tile::plain(Colour::LightGrey).with_links(links, Colour::Green).with_mark(mark.0, mark.1);
        }
        picture.caption = format!("length {} of {}", self.body.len(), config.n_free_cells);
        picture
    }

    /// The band from `from` towards the next segment `to` (a neighbour).
    fn direction_bit(&self, from: u16, to: u16) -> u8 {
        let [from_col, from_row] = self.cell_at(from);
        let [to_col, to_row] = self.cell_at(to);
        if to_row < from_row {
            UP
        } else if to_row > from_row {
            DOWN
        } else if to_col < from_col {
            LEFT
        } else if to_col > from_col {
            RIGHT
        } else {
            0
        }
    }
}

impl Show for SnakeGame {
    fn render(&self) -> String {
        let config = &self.config;
        let status = match &self.outcome {
            None => "running".to_string(),
            Some(outcome) => outcome.to_string(),
        };
        let mut out = format!("tick {}  length {}  {status}\n", self.tick, self.body.len());
        for row in 0..config.height {
            for col in 0..config.width {
                let cell = row * config.width + col;
                let ch = if Some(cell) == self.body.front().copied() {
                    '@'
                } else if self.is_occupied(cell) {
                    'o'
                } else if Some(cell) == self.food {
                    '*'
                } else if config.is_wall(cell) {
                    'X'
                } else {
                    '.'
                };
                out.push(ch);
            }
            out.push('\n');
        }
        out
    }

    type Snapshot = SnakeSnapshot;

    fn snapshot(&self) -> SnakeSnapshot {
        self.snapshot_state()
    }

    fn draw(&self) -> crate::game::picture::Picture {
        self.draw_board()
    }

    fn describe(config: &Config) -> String {
        config.describe_rules()
    }
}
