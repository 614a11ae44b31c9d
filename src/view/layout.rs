//! Where things go in a rendered board: the scale of the tiles, the caption
//! band above them, and the size of every shape in a tile. The raster (GIF),
//! the SVG and the HTML viewer's script use these same numbers, so the three
//! draw the same board.

use crate::game::picture::Picture;

/// Height of the caption band above the board: two lines of text.
pub(crate) const CAPTION_HEIGHT: u32 = 32;
/// Boards narrower than this are scaled up by a whole factor.
const MIN_WIDTH: u32 = 360;
/// Boards wider than this are scaled down.
const MAX_WIDTH: u32 = 1200;
/// Scaling up stops before a tile is larger than this.
const MAX_TILE: u32 = 96;

/// The pixel size of a rendered picture and of its tiles.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Layout {
    pub(crate) columns: u32,
    pub(crate) rows: u32,
    pub(crate) tile_width: u32,
    pub(crate) tile_height: u32,
    /// Band width in percent of a tile's smaller side.
    pub(crate) link_width: u32,
    /// The font of every label, if one fits the label size the game asks for.
    pub(crate) font: Option<Font>,
    pub(crate) width: u32,
    pub(crate) height: u32,
}

impl Layout {
    /// The layout for a game whose pictures look like `picture`.
    pub fn new(picture: &Picture) -> Layout {
        let columns = u32::from(picture.columns).max(1);
        let rows = u32::from(picture.rows).max(1);
        let (mut tile_width, mut tile_height) =
            (u32::from(picture.tile_width).max(1), u32::from(picture.tile_height).max(1));
        let board = columns * tile_width;
        if board < MIN_WIDTH {
            let factor = MIN_WIDTH.div_ceil(board).min(MAX_TILE / tile_width.max(tile_height)).max(1);
            (tile_width, tile_height) = (tile_width * factor, tile_height * factor);
        } else if board > MAX_WIDTH {
            let narrower = (MAX_WIDTH / columns).max(4);
            tile_height = (tile_height * narrower / tile_width).max(4);
            tile_width = narrower;
        }
        let lines = u32::from(picture.label_lines).max(1);
        let chars = u32::from(picture.label_chars).max(1);
        let font = FONTS
            .into_iter()
            .find(|font| lines * font.height + 2 <= tile_height && chars * font.width + 2 <= tile_width);
        Layout {
            font,
            columns,
            rows,
            tile_width,
            tile_height,
            link_width: u32::from(picture.link_width),
            width: columns * tile_width,
            height: CAPTION_HEIGHT + rows * tile_height,
        }
    }

    /// The top-left pixel of tile `index` (row-major).
    pub(crate) fn tile_origin(&self, index: usize) -> (u32, u32) {
        let index = index as u32;
        ((index % self.columns) * self.tile_width, CAPTION_HEIGHT + (index / self.columns) * self.tile_height)
    }

    /// The sizes of the shapes in a tile.
    pub(crate) fn shapes(&self) -> Shapes {
        let (width, height) = (self.tile_width, self.tile_height);
        let side = width.min(height);
        Shapes {
            band: (side * self.link_width / 100).max(1),
            disc: (side * 7 / 10).max(1),
            ring_stroke: (side / 10).max(1),
            square: (side / 2).max(1),
            pole_left: width * 3 / 10,
            pole_width: (width / 12).max(1),
            pole_top: height * 3 / 20,
            pole_bottom: height * 17 / 20,
            pennant_right: width * 3 / 4,
            pennant_bottom: height * 9 / 20,
        }
    }
}

/// Shape sizes in a tile, in pixels, measured from the tile's top-left
/// corner: bands are `band` wide through the centre; discs and rings are
/// `disc` across, centred; a square is `square` on a side; the flag is a
/// pole from (`pole_left`, `pole_top`) `pole_width` wide down to
/// `pole_bottom`, and a pennant from the pole's right edge to
/// `pennant_right`, from `pole_top` down to `pennant_bottom`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Shapes {
    pub(crate) band: u32,
    pub(crate) disc: u32,
    pub(crate) ring_stroke: u32,
    pub(crate) square: u32,
    pub(crate) pole_left: u32,
    pub(crate) pole_width: u32,
    pub(crate) pole_top: u32,
    pub(crate) pole_bottom: u32,
    pub(crate) pennant_right: u32,
    pub(crate) pennant_bottom: u32,
}

/// A fixed-width font size (the font that fits the picture's label size
/// with a pixel to spare on each side, largest first): the cell of one character, in pixels.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Font {
    pub(crate) width: u32,
    pub(crate) height: u32,
}

/// The sizes labels are drawn at, largest first (the raster's bitmap fonts;
/// the SVG and the HTML viewer use a monospace font of the same height).
pub(crate) const FONTS: [Font; 4] = [
    Font { width: 10, height: 20 },
    Font { width: 9, height: 15 },
    Font { width: 6, height: 10 },
    Font { width: 4, height: 6 },
];
