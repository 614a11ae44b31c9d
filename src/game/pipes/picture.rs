//! Pipes on screen ([`Show`]): the board as text (box-drawing characters),
//! as plain data (`replay export --states`) and as a picture for the
//! viewers: every tile's pipes, blue as far as the water from the source
//! reaches through joined ends, grey beyond; dead ends as boxes, the
//! source as a dark disc.

use serde::Serialize;

use super::PipesGame;
use super::config::Config;
use super::grid::{DIR_BITS, opposite};
use crate::game::Show;
use crate::game::picture::{Colour, Mark, Picture, Tile};

/// Unicode box-drawing character for each mask, for `render`.
const BOX_CHARS: [char; 16] = ['·', '╵', '╶', '└', '╷', '│', '┌', '├', '╴', '┘', '─', '┴', '┐', '┤', '┬', '┼'];

/// What changes during a Pipes game.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct PipesSnapshot {
    /// Per row, each tile's connection mask (up 1, right 2, down 4, left 8).
    pub(crate) tiles: Vec<Vec<u8>>,
    /// Pipe ends not met by a neighbour's pipe.
    pub(crate) unmatched_ends: u32,
    /// Tiles the water from the source reaches through joined ends.
    pub(crate) watered: u32,
}

impl PipesGame {
    /// Which tiles the water reaches: a search from the source along pipe
    /// ends that meet a neighbour's.
    pub(crate) fn watered(&self) -> Vec<bool> {
        let grid = self.config.grid();
        let mut reached = vec![false; self.tiles.len()];
        let mut pending = vec![self.config.source()];
        reached[self.config.source()] = true;
        while let Some(tile) = pending.pop() {
            for dir in 0..4 {
                if self.tiles[tile] & DIR_BITS[dir] == 0 {
                    continue;
                }
                let Some(next) = grid.neighbour(tile, dir) else { continue };
                if self.tiles[next] & DIR_BITS[opposite(dir)] != 0 && !reached[next] {
                    reached[next] = true;
                    pending.push(next);
                }
            }
        }
        reached
    }
}

impl Show for PipesGame {
    fn render(&self) -> String {
        let grid = self.config.grid();
        let status = match &self.outcome {
            None => "running".to_string(),
            Some(outcome) => outcome.to_string(),
        };
        let source = self.config.source();
        let width = usize::from(grid.width);
        let mut out = format!(
            "tick {}  unmatched ends {}  source ({}, {})  {status}\n",
            self.tick,
            self.unmatched_ends,
            source % width,
            source / width
        );
        for row in self.tiles.chunks(width) {
            out.extend(row.iter().map(|&mask| BOX_CHARS[usize::from(mask)]));
            out.push('\n');
        }
        out
    }

    type Snapshot = PipesSnapshot;

    fn snapshot(&self) -> PipesSnapshot {
        PipesSnapshot {
            tiles: self.tiles.chunks(usize::from(self.config.grid().width)).map(<[u8]>::to_vec).collect(),
            unmatched_ends: self.unmatched_ends,
            watered: self.watered().iter().filter(|&&wet| wet).count() as u32,
        }
    }

    fn draw(&self) -> Picture {
        let grid = self.config.grid();
        let mut picture = Picture::new(grid.width, grid.height, 24, 24, Tile::plain(Colour::LightGrey));
        picture.link_width = 30;
        let watered = self.watered();
        for (index, (&mask, &wet)) in self.tiles.iter().zip(&watered).enumerate() {
            let colour = if wet { Colour::Blue } else { Colour::DarkGrey };
            let mut tile = Tile::plain(Colour::LightGrey).with_links(mask, colour);
            if mask != 0 && mask.count_ones() == 1 {
                // A dead end: a box, as in Net, shows where the pipe stops.
                tile = tile.with_mark(Mark::Square, colour);
            }
            picture.tiles[index] = tile;
        }
        let source = &mut picture.tiles[self.config.source()];
        source.mark = Mark::Disc;
        source.mark_colour = Colour::DarkBlue;
        let n_watered = watered.iter().filter(|&&wet| wet).count();
        picture.caption =
            format!("water reaches {n_watered} of {} tiles, {} unmatched ends", self.tiles.len(), self.unmatched_ends);
        picture
    }

    fn describe(config: &Config) -> String {
        config.describe_rules()
    }
}
