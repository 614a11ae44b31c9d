//! Drawing a picture into pixels (for the GIF): each pixel is a palette
//! index, the palette is [`Colour::ALL`]. Shapes follow `layout.rs` in
//! integer arithmetic, so the same replay always gives the same bytes. Text
//! uses the bitmap fonts of `embedded-graphics` (drawn through its
//! `DrawTarget`), rather than fonts of our own.

use std::convert::Infallible;

use embedded_graphics::Drawable;
use embedded_graphics::mono_font::ascii::{FONT_4X6, FONT_6X10, FONT_9X15, FONT_10X20};
use embedded_graphics::mono_font::{MonoFont, MonoTextStyle};
use embedded_graphics::pixelcolor::BinaryColor;
use embedded_graphics::prelude::{DrawTarget, OriginDimensions, Pixel, Point, Size};
use embedded_graphics::text::{Alignment, Baseline, Text, TextStyleBuilder};

use crate::game::picture::{Colour, DOWN, LEFT, Mark, Picture, RIGHT, Tile, UP};
use crate::view::layout::{Font, Layout};
use crate::view::{TickView, status_line, tick_line};

/// A picture in palette indices, row-major.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Canvas {
    pub(crate) width: u32,
    pub(crate) height: u32,
    pub pixels: Vec<u8>,
}

impl Canvas {
    /// A canvas of `layout`'s size in `fill`.
    pub(crate) fn new(layout: &Layout, fill: Colour) -> Canvas {
        Canvas {
            width: layout.width,
            height: layout.height,
            pixels: vec![fill as u8; layout.width as usize * layout.height as usize],
        }
    }

    /// Fills the rectangle from (`x`, `y`), clipped to the canvas.
    pub(crate) fn fill_rect(&mut self, x: u32, y: u32, width: u32, height: u32, colour: Colour) {
        let (right, bottom) = ((x + width).min(self.width), (y + height).min(self.height));
        for row in y.min(bottom)..bottom {
            let start = (row * self.width) as usize;
            self.pixels[start + x.min(right) as usize..start + right as usize].fill(colour as u8);
        }
    }

    /// Fills the pixels whose centres lie within the circle of `diameter`
    /// centred at twice-coordinates (`centre_x2`, `centre_y2`), less those
    /// within `hole` of the centre (a ring).
    fn fill_circle(&mut self, centre_x2: i64, centre_y2: i64, diameter: u32, hole: u32, colour: Colour) {
        let radius2 = i64::from(diameter);
        let inner2 = i64::from(hole);
        let (left, top) = ((centre_x2 - radius2) / 2, (centre_y2 - radius2) / 2);
        for y in top.max(0)..((centre_y2 + radius2) / 2 + 1).min(i64::from(self.height)) {
            for x in left.max(0)..((centre_x2 + radius2) / 2 + 1).min(i64::from(self.width)) {
                let (dx, dy) = (2 * x + 1 - centre_x2, 2 * y + 1 - centre_y2);
                let distance = dx * dx + dy * dy;
                if distance <= radius2 * radius2 && distance > inner2 * inner2 {
                    self.pixels[(y as u32 * self.width + x as u32) as usize] = colour as u8;
                }
            }
        }
    }

    /// Writes `text` in `font` and `colour`: centred on `x` or starting at
    /// it, with its top at `y`.
    pub(crate) fn text(&mut self, text: &str, x: i32, y: i32, font: Font, centred: bool, colour: Colour) {
        let mono: &MonoFont<'static> = match (font.width, font.height) {
            (10, 20) => &FONT_10X20,
            (9, 15) => &FONT_9X15,
            (6, 10) => &FONT_6X10,
            _ => &FONT_4X6,
        };
        let alignment = if centred { Alignment::Center } else { Alignment::Left };
        let style = TextStyleBuilder::new().alignment(alignment).baseline(Baseline::Top).build();
        let mut ink = Ink { canvas: self, colour };
        let Ok(_) = Text::with_text_style(text, Point::new(x, y), MonoTextStyle::new(mono, BinaryColor::On), style)
            .draw(&mut ink);
    }

    /// The frame of one tick as the GIF shows it: its picture under a
    /// caption naming the tick (of `last_tick`), the action and the status.
    pub fn for_tick(layout: &Layout, view: &TickView, last_tick: u32) -> Canvas {
        let mut canvas = Canvas::new(layout, Colour::Paper);
        if let Some(picture) = &view.picture {
            let (first, second) = (tick_line(view, last_tick), status_line(view));
            canvas.draw(layout, picture, [&first, &second]);
        }
        canvas
    }

    /// Draws `picture` with its two caption lines, as `layout` places it.
    pub(crate) fn draw(&mut self, layout: &Layout, picture: &Picture, caption: [&str; 2]) {
        self.fill_rect(0, 0, layout.width, crate::view::layout::CAPTION_HEIGHT, Colour::Paper);
        let font = Font { width: 6, height: 10 };
        let fits = (layout.width.saturating_sub(8) / font.width) as usize;
        for (line, text) in caption.iter().enumerate() {
            let shown: String = text.chars().take(fits).collect();
            self.text(&shown, 4, 4 + 14 * line as i32, font, false, Colour::Ink);
        }
        for (index, tile) in picture.tiles.iter().enumerate() {
            self.draw_tile(layout, index, tile);
        }
    }

    fn draw_tile(&mut self, layout: &Layout, index: usize, tile: &Tile) {
        let (x, y) = layout.tile_origin(index);
        let (width, height) = (layout.tile_width, layout.tile_height);
        let shapes = layout.shapes();
        self.fill_rect(x, y, width, height, tile.ground);
        let (centre_x2, centre_y2) = (i64::from(2 * x + width), i64::from(2 * y + height));
        if tile.links != 0 {
            let band = shapes.band;
            let band_left = x + (width - band.min(width)) / 2;
            let band_top = y + (height - band.min(height)) / 2;
            let colour = tile.link_colour;
            if tile.links & UP != 0 {
                self.fill_rect(band_left, y, band, band_top - y + band, colour);
            }
            if tile.links & DOWN != 0 {
                self.fill_rect(band_left, band_top, band, y + height - band_top, colour);
            }
            if tile.links & LEFT != 0 {
                self.fill_rect(x, band_top, band_left - x + band, band, colour);
            }
            if tile.links & RIGHT != 0 {
                self.fill_rect(band_left, band_top, x + width - band_left, band, colour);
            }
        }
        let colour = tile.mark_colour;
        match tile.mark {
            Mark::None => {}
            Mark::Joint => self.fill_circle(centre_x2, centre_y2, shapes.band, 0, colour),
            Mark::Disc => self.fill_circle(centre_x2, centre_y2, shapes.disc, 0, colour),
            Mark::Ring => {
                let hole = shapes.disc.saturating_sub(2 * shapes.ring_stroke);
                self.fill_circle(centre_x2, centre_y2, shapes.disc, hole, colour);
            }
            Mark::Square => {
                let side = shapes.square;
                self.fill_rect(x + (width - side) / 2, y + (height - side) / 2, side, side, colour);
            }
            Mark::Flag => {
                let pole_height = shapes.pole_bottom - shapes.pole_top;
                self.fill_rect(x + shapes.pole_left, y + shapes.pole_top, shapes.pole_width, pole_height, Colour::Ink);
                let pennant_left = shapes.pole_left + shapes.pole_width;
                self.fill_rect(
                    x + pennant_left,
                    y + shapes.pole_top,
                    shapes.pennant_right.saturating_sub(pennant_left),
                    shapes.pennant_bottom - shapes.pole_top,
                    colour,
                );
            }
        }
        if !tile.label.is_empty() {
            let lines = tile.label.lines().count() as u32;
            if let Some(font) = layout.font {
                let top = y + height.saturating_sub(lines * font.height) / 2;
                for (line, text) in tile.label.lines().enumerate() {
                    let line_top = top + line as u32 * font.height;
                    self.text(text, (x + width / 2) as i32, line_top as i32, font, true, tile.label_colour);
                }
            }
        }
    }
}

/// `embedded-graphics`' view of a canvas: lit pixels take `colour`.
struct Ink<'a> {
    canvas: &'a mut Canvas,
    colour: Colour,
}

impl OriginDimensions for Ink<'_> {
    fn size(&self) -> Size {
        Size::new(self.canvas.width, self.canvas.height)
    }
}

impl DrawTarget for Ink<'_> {
    type Color = BinaryColor;
    type Error = Infallible;

    fn draw_iter<I: IntoIterator<Item = Pixel<BinaryColor>>>(&mut self, pixels: I) -> Result<(), Infallible> {
        for Pixel(point, colour) in pixels {
            let inside = point.x >= 0
                && point.y >= 0
                && (point.x as u32) < self.canvas.width
                && (point.y as u32) < self.canvas.height;
            if inside && colour == BinaryColor::On {
                self.canvas.pixels[(point.y as u32 * self.canvas.width + point.x as u32) as usize] = self.colour as u8;
            }
        }
        Ok(())
    }
}
