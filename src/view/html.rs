//! The HTML viewer: one self-contained page (no network: its script, style
//! and data are inline) that draws the board at any tick on a canvas, with
//! a slider, play/pause, steps and the action and status of each tick.
//!
//! The page holds no picture per tick and no game rules. Rust draws every
//! tick's [`Picture`] and stores only what changed: a table of the distinct
//! tiles, the whole grid every `keyframe_every` ticks, and per tick the
//! cells that changed (cell, tile). The script rebuilds a tick from the
//! keyframe before it, so seeking anywhere in a 100,000-tick game touches at
//! most one keyframe interval, and what it draws is exactly what the game
//! drew (the page's own state is never simulated).

use std::collections::BTreeMap;
use std::io::Write;

use serde::{Deserialize, Serialize};

use crate::game::picture::{Colour, Picture, Tile};
use crate::replay::Replay;
use crate::view::layout::Layout;
use crate::view::{RenderOptions, TickView, ViewError};

/// The page, with `__TITLE__` and `__DATA__` to fill in.
const TEMPLATE: &str = include_str!("viewer.html");

/// Everything the page's script reads: the JSON inside the page's
/// `<script id="replay-data">` element.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ViewerData {
    pub title: String,
    /// The game and its level, one line.
    pub(crate) description: String,
    /// The first and last tick shown; frame `i` is tick `from + i`.
    pub from: u32,
    pub to: u32,
    pub(crate) fps: u32,
    pub(crate) columns: u32,
    pub(crate) rows: u32,
    pub(crate) tile_width: u32,
    pub(crate) tile_height: u32,
    pub(crate) link_width: u32,
    /// The label font's character cell; 0 × 0 when labels are not drawn.
    pub(crate) font_width: u32,
    pub(crate) font_height: u32,
    /// `#rrggbb` by colour index.
    pub(crate) palette: Vec<String>,
    /// Each distinct tile: `[ground, links, link colour, mark, mark colour,
    /// label colour, label]`.
    pub tiles: Vec<(u8, u8, u8, u8, u8, u8, String)>,
    pub keyframe_every: u32,
    /// The grid (tile indices, row-major) of frames 0, `keyframe_every`, ...
    pub keyframes: Vec<Vec<u32>>,
    /// Pairs (cell, tile) in frame order: frame `i`'s changes from frame
    /// `i - 1` are `changes[2 * change_ends[i - 1] .. 2 * change_ends[i]]`.
    pub changes: Vec<u32>,
    /// Per frame, the number of pairs in `changes` up to its end.
    pub change_ends: Vec<u32>,
    /// Distinct action texts; the first is the start (no action).
    pub actions: Vec<String>,
    /// The replay's action code of each entry of `actions` (-1 for none).
    pub action_codes: Vec<i64>,
    /// Per frame, an index into `actions`.
    pub action_of: Vec<u32>,
    pub captions: Vec<String>,
    pub caption_of: Vec<u32>,
    pub statuses: Vec<String>,
    pub status_of: Vec<u32>,
    /// `(frame, checksum)` of the grid the game drew at the frame before
    /// each keyframe and at the last frame ([`grid_checksum`]): the page
    /// checks its own rebuilding against them when its address has `check`.
    pub checks: Vec<(u32, u32)>,
}

/// FNV-1a over a grid's tile indices, as the page's script computes it.
pub fn grid_checksum(grid: &[u32]) -> u32 {
    grid.iter().fold(2_166_136_261u32, |hash, &tile| (hash ^ tile).wrapping_mul(16_777_619))
}

/// The page being built, frame by frame.
pub(crate) struct Viewer<'a> {
    out: &'a mut dyn Write,
    data: ViewerData,
    tile_ids: BTreeMap<Tile, u32>,
    action_ids: BTreeMap<(i64, String), u32>,
    caption_ids: BTreeMap<String, u32>,
    status_ids: BTreeMap<String, u32>,
    grid: Vec<u32>,
    frames: u32,
}

impl<'a> Viewer<'a> {
    pub(crate) fn new(replay: &Replay, options: &RenderOptions, out: &'a mut dyn Write) -> Viewer<'a> {
        let data = ViewerData {
            title: options.title.clone(),
            description: super::replay_description(replay),
            from: options.range.from,
            to: options.range.to,
            fps: options.fps,
            palette: Colour::ALL.iter().map(|colour| colour.hex()).collect(),
            ..ViewerData::default()
        };
        Viewer {
            out,
            data,
            tile_ids: BTreeMap::new(),
            action_ids: BTreeMap::new(),
            caption_ids: BTreeMap::new(),
            status_ids: BTreeMap::new(),
            grid: Vec::new(),
            frames: 0,
        }
    }

    fn tile_id(&mut self, tile: &Tile) -> u32 {
        if let Some(&id) = self.tile_ids.get(tile) {
            return id;
        }
        let id = self.data.tiles.len() as u32;
        self.data.tiles.push((
            tile.ground as u8,
            tile.links,
            tile.link_colour as u8,
            tile.mark as u8,
            tile.mark_colour as u8,
            tile.label_colour as u8,
            tile.label.clone(),
        ));
        self.tile_ids.insert(tile.clone(), id);
        id
    }

    fn start(&mut self, picture: &Picture) {
        let layout = Layout::new(picture);
        let data = &mut self.data;
        (data.columns, data.rows) = (layout.columns, layout.rows);
        (data.tile_width, data.tile_height, data.link_width) =
            (layout.tile_width, layout.tile_height, layout.link_width);
        let font = layout.font.map_or((0, 0), |font| (font.width, font.height));
        (data.font_width, data.font_height) = font;
        // A keyframe costs a grid; the changes between two cost a few cells
        // per tick: one keyframe per grid's worth of ticks keeps both parts
        // about the same size and a seek at most that many ticks of changes.
        data.keyframe_every = (layout.columns * layout.rows).clamp(64, 4096);
        self.grid = vec![u32::MAX; picture.tiles.len()];
    }
}

/// The index of `key` in `table`, added at the end if new.
fn intern<K: Ord + Clone>(ids: &mut BTreeMap<K, u32>, table: &mut Vec<String>, key: &K, text: &str) -> u32 {
    if let Some(&id) = ids.get(key) {
        return id;
    }
    let id = table.len() as u32;
    table.push(text.to_string());
    ids.insert(key.clone(), id);
    id
}

impl super::Encoder for Viewer<'_> {
    fn frame(&mut self, view: &TickView) -> Result<(), ViewError> {
        let Some(picture) = &view.picture else { return Ok(()) };
        if self.frames == 0 {
            self.start(picture);
        }
        let mut changes = Vec::new();
        for (cell, tile) in picture.tiles.iter().enumerate().take(self.grid.len()) {
            let id = self.tile_id(tile);
            if self.grid[cell] != id {
                self.grid[cell] = id;
                changes.push(cell as u32);
                changes.push(id);
            }
        }
        if self.frames % self.data.keyframe_every == 0 {
            self.data.keyframes.push(self.grid.clone());
        }
        if self.frames > 0 {
            self.data.changes.extend_from_slice(&changes);
        }
        self.data.change_ends.push(self.data.changes.len() as u32 / 2);
        let (code, text) = match &view.action {
            Some(action) => (i64::from(action.code), action.text.clone()),
            None => (-1, "start".to_string()),
        };
        let key = (code, text.clone());
        let action = intern(&mut self.action_ids, &mut self.data.actions, &key, &text);
        if action as usize == self.data.action_codes.len() {
            self.data.action_codes.push(code);
        }
        self.data.action_of.push(action);
        let caption = intern(&mut self.caption_ids, &mut self.data.captions, &picture.caption, &picture.caption);
        self.data.caption_of.push(caption);
        let status = view.status_text();
        let status = intern(&mut self.status_ids, &mut self.data.statuses, &status, &status);
        self.data.status_of.push(status);
        if (self.frames + 1) % self.data.keyframe_every == 0 {
            self.data.checks.push((self.frames, grid_checksum(&self.grid)));
        }
        self.frames += 1;
        Ok(())
    }

    fn finish(mut self: Box<Self>) -> Result<(), ViewError> {
        if let Some(last) = self.frames.checked_sub(1).filter(|last| (last + 1) % self.data.keyframe_every.max(1) != 0)
        {
            self.data.checks.push((last, grid_checksum(&self.grid)));
        }
        let json = serde_json::to_string(&self.data).map_err(|error| ViewError::Io(error.into()))?;
        // `</` would end the script element early; `<\/` is the same JSON.
        let json = json.replace("</", "<\\/");
        let title = super::svg::escape(&self.data.title);
        let (head, tail) = TEMPLATE.split_once("__DATA__").unwrap_or((TEMPLATE, ""));
        let head = head.replacen("__TITLE__", &title, 1);
        for part in [head.as_bytes(), json.as_bytes(), tail.as_bytes()] {
            self.out.write_all(part)?;
        }
        self.out.flush()?;
        Ok(())
    }
}

/// The viewer data embedded in a page written by `replay render`, for
/// tests and tools; `None` if the page holds none.
pub fn embedded_data(page: &str) -> Option<ViewerData> {
    let start = page.find("<script id=\"replay-data\" type=\"application/json\">")?;
    let after = &page[start..];
    let open_end = after.find('>')? + 1;
    let close = after.find("</script>")?;
    serde_json::from_str(&after[open_end..close]).ok()
}
