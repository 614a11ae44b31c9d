//! Re-simulating a replay: rebuild the game from its header, play every
//! recorded action, and compare each tick's state hash with the recorded one.
//! Also renders the board at a chosen tick for `replay show`. A tick whose
//! recorded hash is short (format version 2) is checked on its 8 bits; a
//! divergence report then also names the last tick whose full hash matched.

use std::ops::ControlFlow;

use crate::game::{GameVisitor, Outcome, OutcomeKind, Replayable, Status};
use crate::replay::format::{Frame, FrameHash, Replay};

/// A replay that reproduced exactly.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Reproduced {
    pub ticks: u32,
    pub outcome: Outcome,
}

/// The first point where re-simulation and the recording disagree.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("diverges at tick {tick}: {detail} (action {action}, expected hash {expected}, actual {actual:016x})")]
pub struct Divergence {
    /// The tick whose result differs; 0 for the initial state or the footer
    /// of an empty replay.
    pub tick: u32,
    /// What disagrees: the state, the legality of the action, or an action
    /// code that stands for no action at all.
    pub kind: DivergenceKind,
    /// The recorded action at that tick, as the game names it (or its raw
    /// code if the game has no such action); `-` where no action applies.
    pub action: String,
    /// The recorded hash: in full, or (format version 2 between block
    /// ends) its low 8 bits.
    pub expected: FrameHash,
    /// The state hash re-simulation computed, in full.
    pub actual: u64,
    pub detail: String,
}

/// What kind of disagreement a [`Divergence`] is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DivergenceKind {
    /// The state (or the footer) differs from the recording: the game no
    /// longer plays as it did.
    State,
    /// The recorded action is an action of the game but not legal where it
    /// was recorded: the game no longer plays as it did.
    IllegalAction,
    /// The recorded action code stands for no action of the game: the file
    /// is damaged (or was written by something else), not the game.
    UnknownAction,
}

/// Re-simulates `replay`. A replay without a footer is checked as far as it
/// goes, and its outcome is reported as aborted.
pub fn verify(replay: &Replay) -> Result<Reproduced, Divergence> {
    replay.header.game.visit(Verifier { replay })
}

struct Verifier<'a> {
    replay: &'a Replay,
}

impl GameVisitor for Verifier<'_> {
    type Output = Result<Reproduced, Divergence>;

    fn visit<G: Replayable>(self, config: &G::Config) -> Self::Output {
        let replay = self.replay;
        let mut game = G::new(config, replay.header.seed);
        let mut last_hash = game.state_hash();
        let diverge = |tick, action: String, expected, actual, detail: String| {
            Err(Divergence { tick, kind: DivergenceKind::State, action, expected, actual, detail })
        };
        if last_hash != replay.header.initial_hash {
            let detail = "the initial state differs".to_string();
            return diverge(0, "-".into(), FrameHash::Full(replay.header.initial_hash), last_hash, detail);
        }
        // The last tick whose full hash matched: where a short hash misses a
        // divergence, the state is known good up to here.
        let mut known_good = 0;
        for (index, frame) in replay.frames.iter().enumerate() {
            let tick = index as u32 + 1;
            let action = play_frame(&mut game, G::action_code_bound(config), tick, frame)?;
            let hash = game.state_hash();
            if !frame.hash.matches(hash) {
                let detail = match frame.hash {
                    FrameHash::Full(_) => "state hash differs".to_string(),
                    FrameHash::Short(_) => format!(
                        "state hash differs in its recorded 8 bits (the state matched in full after tick {known_good}; \
                         it diverged after that, most likely at this tick)"
                    ),
                };
                return diverge(tick, action.to_string(), frame.hash, hash, detail);
            }
            if let FrameHash::Full(_) = frame.hash {
                known_good = tick;
            }
            last_hash = hash;
        }
        let ticks = replay.frames.len() as u32;
        let status = game.status();
        let Some(footer) = &replay.footer else {
            let outcome = match status {
                Status::Over(outcome) => outcome,
                Status::Running => Outcome::new(OutcomeKind::Aborted, format!("no footer after tick {ticks}")),
            };
            return Ok(Reproduced { ticks, outcome });
        };
        let mismatch =
            |detail: String| diverge(ticks, "-".into(), FrameHash::Full(footer.final_hash), last_hash, detail);
        if footer.ticks != ticks {
            return mismatch(format!("the footer says {} ticks but the replay has {ticks}", footer.ticks));
        }
        if footer.final_hash != last_hash {
            return mismatch("the footer's final hash differs".into());
        }
        let consistent = match &status {
            Status::Running => footer.outcome.kind.ended_early(),
            Status::Over(outcome) => *outcome == footer.outcome,
        };
        if !consistent {
            let actual = match &status {
                Status::Running => "still running".to_string(),
                Status::Over(outcome) => outcome.to_string(),
            };
            return mismatch(format!("the footer says {} but the game is {actual}", footer.outcome));
        }
        Ok(Reproduced { ticks, outcome: footer.outcome.clone() })
    }
}

/// Plays `frame`'s action on `game` as tick `tick`; a code that stands for
/// no action (or is not below `bound`, the game's
/// [`Game::action_code_bound`] for its configuration), or an action that is
/// illegal now, is a divergence at `tick`
/// (the state is left as it was, and its hash, the one before the tick, is
/// the "actual" one).
fn play_frame<G: Replayable>(game: &mut G, bound: u32, tick: u32, frame: &Frame) -> Result<G::Action, Divergence> {
    let diverge = |game: &G, kind, action: String, detail: String| Divergence {
        tick,
        kind,
        action,
        expected: frame.hash,
        actual: game.state_hash(),
        detail,
    };
    let action = G::action_from_code(frame.action).filter(|_| frame.action < bound);
    let Some(action) = action else {
        let detail = format!("action code {} is not a {} action: the file is damaged", frame.action, G::NAME);
        return Err(diverge(game, DivergenceKind::UnknownAction, format!("#{}", frame.action), detail));
    };
    if let Err(illegal) = game.step(action) {
        return Err(diverge(game, DivergenceKind::IllegalAction, action.to_string(), illegal.to_string()));
    }
    Ok(action)
}

/// Why a board could not be rendered.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum RenderError {
    /// The tick asked for is not in the replay.
    #[error("tick {requested} is past the end of the replay ({ticks} ticks)")]
    NoSuchTick { requested: u32, ticks: u32 },
    /// A recorded action cannot be played where it was recorded (illegal
    /// there, or a code that stands for no action): the replay diverges
    /// there, as [`verify`] reports it.
    #[error(transparent)]
    Diverged(#[from] Divergence),
}

/// Renders the board after `tick` ticks (0 = the initial state).
pub fn render_at(replay: &Replay, tick: u32) -> Result<String, RenderError> {
    let ticks = replay.frames.len() as u32;
    if tick > ticks {
        return Err(RenderError::NoSuchTick { requested: tick, ticks });
    }
    let mut found = None;
    replay.header.game.visit(Renderer {
        replay,
        last: tick,
        sink: &mut |at, board| {
            if at == tick {
                found = Some(board);
            }
            ControlFlow::Continue(())
        },
    })?;
    found.ok_or(RenderError::NoSuchTick { requested: tick, ticks })
}

/// Renders the board at every tick, the initial state first, handing each
/// to `sink` with its tick as soon as it is drawn: a long replay of a large
/// board would not fit in memory as a list of boards. `sink` may stop early
/// (a closed output) by returning `Break`. The boards before an action that
/// cannot be played are handed out before the error is returned.
pub fn render_each(replay: &Replay, sink: &mut dyn FnMut(u32, String) -> ControlFlow<()>) -> Result<(), RenderError> {
    replay.header.game.visit(Renderer { replay, last: u32::MAX, sink })
}

struct Renderer<'a> {
    replay: &'a Replay,
    /// The last tick to render.
    last: u32,
    sink: &'a mut dyn FnMut(u32, String) -> ControlFlow<()>,
}

impl GameVisitor for Renderer<'_> {
    type Output = Result<(), RenderError>;

    fn visit<G: Replayable>(self, config: &G::Config) -> Self::Output {
        let Renderer { replay, last, sink } = self;
        let mut game = G::new(config, replay.header.seed);
        let bound = G::action_code_bound(config);
        if sink(0, game.render()).is_break() {
            return Ok(());
        }
        for (index, frame) in replay.frames.iter().enumerate().take(last as usize) {
            let tick = index as u32 + 1;
            play_frame(&mut game, bound, tick, frame)?;
            if sink(tick, game.render()).is_break() {
                break;
            }
        }
        Ok(())
    }
}
