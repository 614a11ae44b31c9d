//! The animated SVG: the first tick's board drawn once, then one group per
//! tick holding only the tiles that differ from it and the caption, shown
//! for one frame's time in turn by a SMIL `animate` (looping). Each distinct
//! tile is drawn once in `<defs>` and placed with `<use>`, so a long game
//! costs a few bytes per changed tile per tick.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::io::Write;

use crate::game::picture::{Colour, DOWN, LEFT, Mark, RIGHT, Tile, UP};
use crate::view::layout::{CAPTION_HEIGHT, Layout};
use crate::view::{RenderOptions, TickView, ViewError, status_line, tick_line};

/// An SVG animation being written, frame by frame.
pub(crate) struct SvgAnimation<'a> {
    out: &'a mut dyn Write,
    layout: Option<Layout>,
    title: String,
    frames: u32,
    /// Seconds per frame.
    frame_seconds: f64,
    last_tick: u32,
    written: u32,
    base: Vec<Tile>,
    /// Each distinct tile and its id.
    ids: BTreeMap<Tile, usize>,
}

impl<'a> SvgAnimation<'a> {
    pub(crate) fn new(options: &RenderOptions, out: &'a mut dyn Write) -> SvgAnimation<'a> {
        SvgAnimation {
            out,
            layout: None,
            title: options.title.clone(),
            frames: options.range.len(),
            frame_seconds: 1.0 / f64::from(options.fps.max(1)),
            last_tick: options.range.to,
            written: 0,
            base: Vec::new(),
            ids: BTreeMap::new(),
        }
    }

    fn id_of(&mut self, tile: &Tile) -> usize {
        let next = self.ids.len();
        *self.ids.entry(tile.clone()).or_insert(next)
    }
}

impl super::Encoder for SvgAnimation<'_> {
    fn frame(&mut self, view: &TickView) -> Result<(), ViewError> {
        let Some(picture) = &view.picture else { return Ok(()) };
        let mut text = String::new();
        let layout = match self.layout {
            Some(layout) => layout,
            None => {
                let layout = Layout::new(picture);
                self.layout = Some(layout);
                let (width, height) = (layout.width, layout.height);
                let _ = write!(
                    text,
                    "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{width}\" height=\"{height}\" \
                     viewBox=\"0 0 {width} {height}\" font-family=\"monospace\">\n<title>{}</title>\n\
                     <rect width=\"{width}\" height=\"{height}\" fill=\"{}\"/>\n<g>",
                    escape(&self.title),
                    Colour::Paper.hex()
                );
                self.base = picture.tiles.clone();
                for (index, tile) in picture.tiles.iter().enumerate() {
                    let id = self.id_of(tile);
                    let (x, y) = layout.tile_origin(index);
                    let _ = write!(text, "<use href=\"#t{id}\" x=\"{x}\" y=\"{y}\"/>");
                }
                text.push_str("</g>\n");
                layout
            }
        };
        if self.frames > 1 {
            let begin = f64::from(self.written) * self.frame_seconds;
            let total = f64::from(self.frames) * self.frame_seconds;
            let _ = write!(
                text,
                "<g display=\"none\"><animate attributeName=\"display\" values=\"inline;none\" \
                 keyTimes=\"0;{:.9}\" calcMode=\"discrete\" dur=\"{total:.3}s\" begin=\"{begin:.3}s\" \
                 repeatCount=\"indefinite\"/>",
                1.0 / f64::from(self.frames)
            );
        } else {
            text.push_str("<g>");
        }
        let changed: Vec<(usize, Tile)> = picture
            .tiles
            .iter()
            .enumerate()
            .filter(|(index, tile)| self.base.get(*index) != Some(tile))
            .map(|(index, tile)| (index, tile.clone()))
            .collect();
        for (index, tile) in changed {
            let id = self.id_of(&tile);
            let (x, y) = layout.tile_origin(index);
            let _ = write!(text, "<use href=\"#t{id}\" x=\"{x}\" y=\"{y}\"/>");
        }
        let _ = writeln!(
            text,
            "<rect width=\"{}\" height=\"{CAPTION_HEIGHT}\" fill=\"{}\"/>\
             <text x=\"4\" y=\"14\" font-size=\"12\" fill=\"{ink}\">{}</text>\
             <text x=\"4\" y=\"28\" font-size=\"12\" fill=\"{ink}\">{}</text></g>",
            layout.width,
            Colour::Paper.hex(),
            escape(&tick_line(view, self.last_tick)),
            escape(&status_line(view)),
            ink = Colour::Ink.hex()
        );
        self.written += 1;
        self.out.write_all(text.as_bytes())?;
        Ok(())
    }

    fn finish(self: Box<Self>) -> Result<(), ViewError> {
        let Some(layout) = self.layout else { return Ok(()) };
        let mut text = String::from("<defs>\n");
        let mut tiles: Vec<(&usize, &Tile)> = self.ids.iter().map(|(tile, id)| (id, tile)).collect();
        tiles.sort();
        for (id, tile) in tiles {
            let _ = writeln!(text, "<g id=\"t{id}\">{}</g>", tile_svg(&layout, tile));
        }
        text.push_str("</defs>\n</svg>\n");
        self.out.write_all(text.as_bytes())?;
        self.out.flush()?;
        Ok(())
    }
}

/// One tile drawn at the origin, as `layout.rs` places its shapes.
fn tile_svg(layout: &Layout, tile: &Tile) -> String {
    let (width, height) = (layout.tile_width, layout.tile_height);
    let shapes = layout.shapes();
    let mut out = format!("<rect width=\"{width}\" height=\"{height}\" fill=\"{}\"/>", tile.ground.hex());
    let rect = |out: &mut String, x: u32, y: u32, w: u32, h: u32, colour: Colour| {
        let _ = write!(out, "<rect x=\"{x}\" y=\"{y}\" width=\"{w}\" height=\"{h}\" fill=\"{}\"/>", colour.hex());
    };
    if tile.links != 0 {
        let band = shapes.band;
        let band_left = (width - band.min(width)) / 2;
        let band_top = (height - band.min(height)) / 2;
        let colour = tile.link_colour;
        if tile.links & UP != 0 {
            rect(&mut out, band_left, 0, band, band_top + band, colour);
        }
        if tile.links & DOWN != 0 {
            rect(&mut out, band_left, band_top, band, height - band_top, colour);
        }
        if tile.links & LEFT != 0 {
            rect(&mut out, 0, band_top, band_left + band, band, colour);
        }
        if tile.links & RIGHT != 0 {
            rect(&mut out, band_left, band_top, width - band_left, band, colour);
        }
    }
    let (centre_x, centre_y) = (f64::from(width) / 2.0, f64::from(height) / 2.0);
    let colour = tile.mark_colour.hex();
    match tile.mark {
        Mark::None => {}
        Mark::Joint | Mark::Disc => {
            let diameter = if tile.mark == Mark::Joint { shapes.band } else { shapes.disc };
            let _ = write!(
                out,
                "<circle cx=\"{centre_x}\" cy=\"{centre_y}\" r=\"{}\" fill=\"{colour}\"/>",
                f64::from(diameter) / 2.0
            );
        }
        Mark::Ring => {
            let stroke = f64::from(shapes.ring_stroke);
            let _ = write!(
                out,
                "<circle cx=\"{centre_x}\" cy=\"{centre_y}\" r=\"{}\" fill=\"none\" stroke=\"{colour}\" \
                 stroke-width=\"{stroke}\"/>",
                (f64::from(shapes.disc) - stroke) / 2.0
            );
        }
        Mark::Square => {
            let side = shapes.square;
            rect(&mut out, (width - side) / 2, (height - side) / 2, side, side, tile.mark_colour);
        }
        Mark::Flag => {
            rect(
                &mut out,
                shapes.pole_left,
                shapes.pole_top,
                shapes.pole_width,
                shapes.pole_bottom - shapes.pole_top,
                Colour::Ink,
            );
            let pennant_left = shapes.pole_left + shapes.pole_width;
            rect(
                &mut out,
                pennant_left,
                shapes.pole_top,
                shapes.pennant_right.saturating_sub(pennant_left),
                shapes.pennant_bottom - shapes.pole_top,
                tile.mark_colour,
            );
        }
    }
    if !tile.label.is_empty() {
        let lines = tile.label.lines().count() as u32;
        if let Some(font) = layout.font {
            let top = height.saturating_sub(lines * font.height) / 2;
            for (line, text) in tile.label.lines().enumerate() {
                // The baseline sits about a fifth of the line above its bottom.
                let baseline = top + line as u32 * font.height + font.height * 4 / 5;
                let _ = write!(
                    out,
                    "<text x=\"{centre_x}\" y=\"{baseline}\" font-size=\"{}\" text-anchor=\"middle\" \
                     fill=\"{}\">{}</text>",
                    font.height,
                    tile.label_colour.hex(),
                    escape(text)
                );
            }
        }
    }
    out
}

/// `text` with the characters XML gives a meaning escaped.
pub(crate) fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            _ => out.push(c),
        }
    }
    out
}
