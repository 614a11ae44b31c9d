//! Re-simulating a replay: rebuild the game from its header, play every
//! recorded action, and compare each tick's state hash with the recorded one.
//! Also renders the board at a chosen tick for `replay show`.

use crate::game::{Game, GameVisitor, Outcome, OutcomeKind, Status};
use crate::replay::format::Replay;

/// A replay that reproduced exactly.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Reproduced {
    pub ticks: u32,
    pub outcome: Outcome,
}

/// The first point where re-simulation and the recording disagree.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("diverges at tick {tick}: {detail} (action {action}, expected hash {expected:016x}, actual {actual:016x})")]
pub struct Divergence {
    /// The tick whose result differs; 0 for the initial state or the footer
    /// of an empty replay.
    pub tick: u32,
    /// The recorded action at that tick, as the game names it (or its raw
    /// code if the game has no such action); `-` where no action applies.
    pub action: String,
    pub expected: u64,
    pub actual: u64,
    pub detail: String,
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

    fn visit<G: Game>(self, config: &G::Config) -> Self::Output {
        let replay = self.replay;
        let mut game = G::new(config, replay.header.seed);
        let mut last_hash = game.state_hash();
        let diverge = |tick, action: String, expected, actual, detail: String| {
            Err(Divergence { tick, action, expected, actual, detail })
        };
        if last_hash != replay.header.initial_hash {
            let detail = "the initial state differs".to_string();
            return diverge(0, "-".into(), replay.header.initial_hash, last_hash, detail);
        }
        for (index, frame) in replay.frames.iter().enumerate() {
            let tick = index as u32 + 1;
            let Some(action) = G::action_from_code(frame.action) else {
                let detail = format!("action code {} is not a {} action", frame.action, G::NAME);
                return diverge(tick, format!("#{}", frame.action), frame.hash, last_hash, detail);
            };
            if let Err(illegal) = game.step(action) {
                return diverge(tick, action.to_string(), frame.hash, last_hash, illegal.to_string());
            }
            let hash = game.state_hash();
            if hash != frame.hash {
                let detail = "state hash differs".to_string();
                return diverge(tick, action.to_string(), frame.hash, hash, detail);
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
        let mismatch = |detail: String| diverge(ticks, "-".into(), footer.final_hash, last_hash, detail);
        if footer.ticks != ticks {
            return mismatch(format!("the footer says {} ticks but the replay has {ticks}", footer.ticks));
        }
        if footer.final_hash != last_hash {
            return mismatch("the footer's final hash differs".into());
        }
        let consistent = match &status {
            Status::Running => footer.outcome.kind == OutcomeKind::Aborted,
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

/// Why a board could not be rendered.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum RenderError {
    /// The tick asked for is not in the replay.
    #[error("tick {requested} is past the end of the replay ({ticks} ticks)")]
    NoSuchTick { requested: u32, ticks: u32 },
    /// A recorded action is not legal where it was played.
    #[error(transparent)]
    Diverged(#[from] Divergence),
    /// A recorded action code stands for no action of the game: the file is damaged.
    #[error("tick {tick}: action code {code} is not a {game} action")]
    UnknownAction { tick: u32, code: u32, game: &'static str },
}

/// Renders the board after `tick` ticks (0 = the initial state).
pub fn render_at(replay: &Replay, tick: u32) -> Result<String, RenderError> {
    let ticks = replay.frames.len() as u32;
    if tick > ticks {
        return Err(RenderError::NoSuchTick { requested: tick, ticks });
    }
    let mut boards = replay.header.game.visit(Renderer { replay, ticks: Some(tick) })?;
    boards.pop().ok_or(RenderError::NoSuchTick { requested: tick, ticks })
}

/// Renders the board at every tick, the initial state first.
pub fn render_all(replay: &Replay) -> Result<Vec<String>, RenderError> {
    replay.header.game.visit(Renderer { replay, ticks: None })
}

struct Renderer<'a> {
    replay: &'a Replay,
    /// `Some(t)`: only the board after `t` ticks; `None`: every board.
    ticks: Option<u32>,
}

impl GameVisitor for Renderer<'_> {
    type Output = Result<Vec<String>, RenderError>;

    fn visit<G: Game>(self, config: &G::Config) -> Self::Output {
        let mut game = G::new(config, self.replay.header.seed);
        let mut boards = Vec::new();
        let wanted = |tick: u32| self.ticks.is_none_or(|wanted| wanted == tick);
        if wanted(0) {
            boards.push(game.render());
        }
        let last = self.ticks.unwrap_or(u32::MAX);
        for (index, frame) in self.replay.frames.iter().enumerate().take(last as usize) {
            let tick = index as u32 + 1;
            let Some(action) = G::action_from_code(frame.action) else {
                return Err(RenderError::UnknownAction { tick, code: frame.action, game: G::NAME });
            };
            if let Err(illegal) = game.step(action) {
                return Err(RenderError::Diverged(Divergence {
                    tick,
                    action: action.to_string(),
                    expected: frame.hash,
                    actual: game.state_hash(),
                    detail: illegal.to_string(),
                }));
            }
            if wanted(tick) {
                boards.push(game.render());
            }
        }
        Ok(boards)
    }
}
