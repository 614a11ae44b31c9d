//! The drawing vocabulary a game draws its board in for the viewers
//! (`replay render`): a grid of tiles, each a ground colour, bands from its
//! centre to its edges, one centred mark and a short label, plus a caption
//! line. Pure data, no pixels: `crate::view` turns pictures into SVG, GIF
//! and the HTML viewer's data, and the viewer's script draws the same tiles
//! the same way. A picture is never hashed and never stored in a replay.

use serde::Serialize;

/// The colours a picture may use: a fixed palette, so that a GIF needs no
/// colour quantisation and every renderer agrees on the exact shade.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
pub enum Colour {
    #[default]
    Paper,
    Ink,
    LightGrey,
    Grey,
    DarkGrey,
    Sand,
    Brown,
    Orange,
    Yellow,
    Red,
    Pink,
    LightGreen,
    Green,
    DarkGreen,
    LightBlue,
    Blue,
    DarkBlue,
    Purple,
}

impl Colour {
    /// Every colour, in palette order (a colour's index is its `as u8`).
    pub const ALL: [Colour; 18] = [
        Colour::Paper,
        Colour::Ink,
        Colour::LightGrey,
        Colour::Grey,
        Colour::DarkGrey,
        Colour::Sand,
        Colour::Brown,
        Colour::Orange,
        Colour::Yellow,
        Colour::Red,
        Colour::Pink,
        Colour::LightGreen,
        Colour::Green,
        Colour::DarkGreen,
        Colour::LightBlue,
        Colour::Blue,
        Colour::DarkBlue,
        Colour::Purple,
    ];

    /// The colour as red, green and blue bytes.
    pub(crate) fn rgb(self) -> [u8; 3] {
        match self {
            Colour::Paper => [0xfa, 0xfa, 0xf5],
            Colour::Ink => [0x1e, 0x1e, 0x24],
            Colour::LightGrey => [0xdc, 0xdc, 0xd8],
            Colour::Grey => [0x9a, 0x9a, 0xa0],
            Colour::DarkGrey => [0x50, 0x50, 0x58],
            Colour::Sand => [0xee, 0xd9, 0xa8],
            Colour::Brown => [0x9c, 0x6b, 0x3c],
            Colour::Orange => [0xf0, 0x8c, 0x28],
            Colour::Yellow => [0xf5, 0xd0, 0x2a],
            Colour::Red => [0xd6, 0x32, 0x30],
            Colour::Pink => [0xf2, 0xb4, 0xb4],
            Colour::LightGreen => [0xb8, 0xe6, 0xa8],
            Colour::Green => [0x3c, 0xb0, 0x4a],
            Colour::DarkGreen => [0x1e, 0x6e, 0x2c],
            Colour::LightBlue => [0xac, 0xd2, 0xf2],
            Colour::Blue => [0x2a, 0x78, 0xd8],
            Colour::DarkBlue => [0x1c, 0x3c, 0x8c],
            Colour::Purple => [0x8c, 0x50, 0xb4],
        }
    }

    /// `#rrggbb`, for SVG and the HTML viewer.
    pub(crate) fn hex(self) -> String {
        let [red, green, blue] = self.rgb();
        format!("#{red:02x}{green:02x}{blue:02x}")
    }
}

/// The one shape drawn in a tile's centre, over its bands.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
pub enum Mark {
    #[default]
    None,
    /// A disc as wide as the bands: the joint where bands meet.
    Joint,
    /// A large disc (a snake's head, food, the player).
    Disc,
    /// A circle outline.
    Ring,
    /// A centred square (the pipes' water source).
    Square,
    /// A pennant on a pole (the goal).
    Flag,
}

impl Mark {
    /// Every mark, in the order of its index (a mark's index is its `as u8`).
    pub const ALL: [Mark; 6] = [Mark::None, Mark::Joint, Mark::Disc, Mark::Ring, Mark::Square, Mark::Flag];
}

/// Bits of [`Tile::links`]: a band from the centre to the middle of the
/// top, right, bottom or left edge (the Pipes mask order).
pub(crate) const UP: u8 = 1;
pub(crate) const RIGHT: u8 = 2;
pub(crate) const DOWN: u8 = 4;
pub(crate) const LEFT: u8 = 8;

/// One cell of a picture. Drawn in this order: ground, bands, mark, label.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Tile {
    pub ground: Colour,
    /// Bands from the centre to the edges: [`UP`] | [`RIGHT`] | [`DOWN`] | [`LEFT`].
    pub links: u8,
    pub link_colour: Colour,
    pub mark: Mark,
    pub mark_colour: Colour,
    /// At most a few short lines (`\n` between them), drawn centred.
    pub label: String,
    pub label_colour: Colour,
}

impl Tile {
    /// A plain tile of one colour.
    pub(crate) fn plain(ground: Colour) -> Tile {
        Tile { ground, ..Tile::default() }
    }

    /// This tile with bands `links` in `colour`.
    pub(crate) fn with_links(mut self, links: u8, colour: Colour) -> Tile {
        self.links = links;
        self.link_colour = colour;
        self
    }

    /// This tile with `mark` in `colour`.
    pub(crate) fn with_mark(mut self, mark: Mark, colour: Colour) -> Tile {
        self.mark = mark;
        self.mark_colour = colour;
        self
    }

    /// This tile with `label` in `colour`.
    pub(crate) fn with_label(mut self, label: impl Into<String>, colour: Colour) -> Tile {
        self.label = label.into();
        self.label_colour = colour;
        self
    }
}

/// A board drawn as a grid of tiles, with a one-line caption (the game's
/// own measure: "length 12", "turn 4, health 30 / 22"). A game's pictures
/// keep one size for the whole game.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Picture {
    pub columns: u16,
    pub rows: u16,
    /// The size a tile is drawn at, in pixels, before a renderer scales the
    /// whole picture to fit.
    pub(crate) tile_width: u16,
    pub(crate) tile_height: u16,
    /// The width of bands, in percent of the tile's smaller side.
    pub(crate) link_width: u8,
    /// The labels are sized for this many lines of this many characters:
    /// one size for every tile of the game, so text does not jump about.
    pub(crate) label_lines: u8,
    pub(crate) label_chars: u8,
    /// Row-major, `columns * rows` tiles.
    pub tiles: Vec<Tile>,
    pub caption: String,
}

impl Picture {
    /// A picture of `columns` × `rows` tiles of `fill`.
    pub(crate) fn new(columns: u16, rows: u16, tile_width: u16, tile_height: u16, fill: Tile) -> Picture {
        let tiles = vec![fill; usize::from(columns) * usize::from(rows)];
        Picture {
            columns,
            rows,
            tile_width,
            tile_height,
            link_width: 50,
            label_lines: 1,
            label_chars: 2,
            tiles,
            caption: String::new(),
        }
    }

    /// The tile at (`column`, `row`).
    pub(crate) fn tile_mut(&mut self, column: u16, row: u16) -> &mut Tile {
        &mut self.tiles[usize::from(row) * usize::from(self.columns) + usize::from(column)]
    }

    /// The tile at (`column`, `row`).
    pub fn tile(&self, column: u16, row: u16) -> &Tile {
        &self.tiles[usize::from(row) * usize::from(self.columns) + usize::from(column)]
    }
}
