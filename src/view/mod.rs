//! Watching a replay: re-simulates it through its game and hands out each
//! tick as a [`TickView`] (the action that led to it, the state hash, the
//! status, and on request the game's picture and structured state). The
//! modules beside this one turn those into JSON lines (`replay export`),
//! an animated SVG, a GIF and the self-contained HTML viewer (`replay
//! render`). Pure: everything is written to a caller's `Write`; no file is
//! opened here.
//!
//! A replay holds actions, not states, so every state is rebuilt by playing
//! the actions through the game, as verification does. Verification runs
//! first: a replay is shown only as far as it reproduces.

pub mod export;
pub(crate) mod gif;
pub mod html;
pub mod layout;
pub mod raster;
pub(crate) mod svg;

use std::io::{self, Write};
use std::ops::ControlFlow;

use crate::game::picture::Picture;
use crate::game::{GameVisitor, Replayable, Status};
use crate::plan::Budget;
use crate::progress::Progress;
use crate::replay::{self, Divergence, Replay};

/// One tick of a replay as the viewers and the export see it.
#[derive(Clone, Debug, PartialEq)]
pub struct TickView {
    /// 0 is the initial state.
    pub tick: u32,
    /// The action that led to this tick; `None` for tick 0.
    pub action: Option<ActionView>,
    /// The state hash after the tick, as re-simulation computes it (and
    /// verification has checked against the recording).
    pub(crate) hash: u64,
    /// `"running"`, or how the game ended (`"won"`, `"lost"`, ...).
    pub(crate) status: &'static str,
    /// Why the game ended, once it has.
    pub(crate) reason: Option<String>,
    /// The game's picture, if asked for.
    pub picture: Option<Picture>,
    /// The game's structured state, if asked for.
    pub state: Option<serde_json::Value>,
}

impl TickView {
    /// The status as a person reads it: `running` or `won (solved in 16 moves)`.
    pub fn status_text(&self) -> String {
        match &self.reason {
            Some(reason) => format!("{} ({reason})", self.status),
            None => self.status.to_string(),
        }
    }
}

/// An action as the replay stores it and as the game names it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ActionView {
    pub(crate) code: u32,
    pub text: String,
}

/// What to compute at each tick besides the action and the hash.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Want {
    pub picture: bool,
    pub state: bool,
}

/// The ticks to show, both ends included.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TickRange {
    pub from: u32,
    pub to: u32,
}

impl TickRange {
    /// `from..=to` of `replay`, `to` defaulting to its last tick; checked
    /// against the replay's length.
    pub fn of(replay: &Replay, from: Option<u32>, to: Option<u32>) -> Result<TickRange, ViewError> {
        let ticks = replay.frames.len() as u32;
        let (from, to) = (from.unwrap_or(0), to.unwrap_or(ticks));
        for requested in [from, to] {
            if requested > ticks {
                return Err(ViewError::NoSuchTick { requested, ticks });
            }
        }
        if from > to {
            return Err(ViewError::BadRange { from, to });
        }
        Ok(TickRange { from, to })
    }

    /// Ticks in the range.
    pub fn len(&self) -> u32 {
        self.to - self.from + 1
    }

    /// Never true: a range holds at least one tick.
    pub fn is_empty(&self) -> bool {
        false
    }
}

/// Why a replay could not be shown.
#[derive(Debug, thiserror::Error)]
pub enum ViewError {
    #[error("tick {requested} is past the end of the replay ({ticks} ticks)")]
    NoSuchTick { requested: u32, ticks: u32 },
    #[error("--from {from} is after --to {to}")]
    BadRange { from: u32, to: u32 },
    /// The replay stops reproducing within the ticks asked for; the ticks
    /// before it were handed out.
    #[error(transparent)]
    Diverged(#[from] Divergence),
    /// An action verification accepted could not be played again: a bug,
    /// reported rather than hidden.
    #[error("the action at tick {tick} ({action}) cannot be played here, though the replay verified")]
    Unplayable { tick: u32, action: String },
    #[error("interrupted")]
    Interrupted,
    #[error("the picture is {width}×{height} pixels; a GIF is at most 65535 on a side")]
    TooLarge { width: u32, height: u32 },
    #[error("cannot write: {0}")]
    Io(#[from] io::Error),
}

/// Re-simulates `replay` and hands `sink` every tick of `range`, in order,
/// with what `want` asks for. Stops early when `sink` breaks, and with
/// [`ViewError::Interrupted`] when `budget` is cancelled. If the replay
/// diverges at or before `range.to`, the ticks before the divergence are
/// handed out and the divergence is returned.
pub fn walk(
    replay: &Replay,
    range: TickRange,
    want: Want,
    budget: &Budget,
    progress: &Progress,
    sink: &mut dyn FnMut(TickView) -> ControlFlow<()>,
) -> Result<(), ViewError> {
    let divergence = replay::verify(replay).err().filter(|divergence| divergence.tick <= range.to);
    let last = match &divergence {
        Some(divergence) => divergence.tick.checked_sub(1),
        None => Some(range.to),
    };
    if let Some(last) = last.filter(|&last| last >= range.from) {
        progress.set_total(u64::from(last - range.from + 1));
        replay.header.game.visit(Walker { replay, from: range.from, last, want, budget, progress, sink })?;
    }
    match divergence {
        Some(divergence) => Err(ViewError::Diverged(divergence)),
        None => Ok(()),
    }
}

struct Walker<'a> {
    replay: &'a Replay,
    from: u32,
    last: u32,
    want: Want,
    budget: &'a Budget,
    progress: &'a Progress,
    sink: &'a mut dyn FnMut(TickView) -> ControlFlow<()>,
}

impl GameVisitor for Walker<'_> {
    type Output = Result<(), ViewError>;

    fn visit<G: Replayable>(self, config: &G::Config) -> Self::Output {
        let Walker { replay, from, last, want, budget, progress, sink } = self;
        let mut game = G::new(config, replay.header.seed);
        let mut action = None;
        for tick in 0..=last {
            if tick > 0 {
                let code = replay.frames[tick as usize - 1].action;
                // Verification has played these actions already; a failure
                // here would be a bug, reported as the divergence it is.
                let Some(played) = G::action_from_code(code) else { return Err(unplayable::<G>(tick, code)) };
                if game.step(played).is_err() {
                    return Err(unplayable::<G>(tick, code));
                }
                action = Some(ActionView { code, text: played.to_string() });
            }
            if tick < from {
                continue;
            }
            if budget.exhausted().is_some() {
                return Err(ViewError::Interrupted);
            }
            let (status, reason) = match game.status() {
                Status::Running => ("running", None),
                Status::Over(outcome) => (outcome.kind.as_str(), Some(outcome.reason)),
            };
            let view = TickView {
                tick,
                action: action.clone(),
                hash: game.state_hash(),
                status,
                reason,
                picture: want.picture.then(|| game.draw()),
                state: want.state.then(|| serde_json::to_value(game.snapshot()).unwrap_or(serde_json::Value::Null)),
            };
            progress.advance(1);
            if sink(view).is_break() {
                break;
            }
        }
        Ok(())
    }
}

fn unplayable<G: Replayable>(tick: u32, code: u32) -> ViewError {
    let action = G::action_from_code(code).map_or_else(|| format!("#{code}"), |action| action.to_string());
    ViewError::Unplayable { tick, action }
}

/// The picture formats `replay render` writes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    Html,
    Gif,
    Svg,
}

impl Format {
    /// The format a file name's extension asks for.
    pub fn from_extension(extension: &str) -> Option<Format> {
        match extension.to_ascii_lowercase().as_str() {
            "html" | "htm" => Some(Format::Html),
            "gif" => Some(Format::Gif),
            "svg" => Some(Format::Svg),
            _ => None,
        }
    }
}

/// How to render: which ticks, how fast, and the title to show.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RenderOptions {
    pub format: Format,
    pub range: TickRange,
    /// Frames per second when playing.
    pub fps: u32,
    /// Shown above the board (the HTML page's title too).
    pub title: String,
}

/// What each picture format does with the ticks handed to it.
pub(crate) trait Encoder {
    /// Draws one tick (in order, each of the range once).
    fn frame(&mut self, view: &TickView) -> Result<(), ViewError>;
    /// Writes what is still held and flushes.
    fn finish(self: Box<Self>) -> Result<(), ViewError>;
}

/// Renders `options.range` of `replay` as `options.format` onto `out`.
/// Returns the number of frames written.
pub fn render(
    replay: &Replay,
    options: &RenderOptions,
    budget: &Budget,
    progress: &Progress,
    out: &mut dyn Write,
) -> Result<u32, ViewError> {
    let mut encoder: Box<dyn Encoder + '_> = match options.format {
        Format::Html => Box::new(html::Viewer::new(replay, options, out)),
        Format::Gif => Box::new(gif::GifMovie::new(options, out)),
        Format::Svg => Box::new(svg::SvgAnimation::new(options, out)),
    };
    let want = Want { picture: true, state: false };
    let mut frames = 0;
    let mut failure = None;
    walk(replay, options.range, want, budget, progress, &mut |view| match encoder.frame(&view) {
        Ok(()) => {
            frames += 1;
            ControlFlow::Continue(())
        }
        Err(error) => {
            failure = Some(error);
            ControlFlow::Break(())
        }
    })?;
    if let Some(error) = failure {
        return Err(error);
    }
    encoder.finish()?;
    Ok(frames)
}

/// One line naming the game and its level, for titles.
pub(crate) fn replay_description(replay: &Replay) -> String {
    struct Describe;
    impl GameVisitor for Describe {
        type Output = String;
        fn visit<G: Replayable>(self, config: &G::Config) -> String {
            G::describe(config)
        }
    }
    format!("{}: {}", replay.header.game.name(), replay.header.game.visit(Describe))
}

/// The first line of a caption: the tick, of how many, and the action.
pub(crate) fn tick_line(view: &TickView, last: u32) -> String {
    match &view.action {
        Some(action) => format!("tick {} of {last}: {}", view.tick, action.text),
        None => format!("tick {} of {last}: start", view.tick),
    }
}

/// The second line of a caption: the game's own line and the status.
pub(crate) fn status_line(view: &TickView) -> String {
    let caption = view.picture.as_ref().map_or("", |picture| picture.caption.as_str());
    format!("{caption} - {}", view.status_text())
}
