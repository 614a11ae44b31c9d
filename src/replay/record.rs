//! Recording a game in memory: [`record`] plays one game with a planner and
//! returns its replay exactly as the session would write it to a file.

use crate::game::Replayable;
use crate::plan::{Budget, Planner, PlayError, play_to_end};
use crate::replay::format::{Footer, Frame, FrameHash, Header, PlannerInfo, Replay};

impl Header {
    /// The header of a game of `G` on `config` from `seed`, played by `planner`.
    pub(crate) fn new<G: Replayable>(config: &G::Config, seed: u64, planner: &(impl Planner<G> + ?Sized)) -> Header {
        Header {
            tickbot_version: env!("CARGO_PKG_VERSION").to_string(),
            game: G::spec(config),
            seed,
            planner: PlannerInfo { name: planner.name().to_string(), params: planner.params() },
            initial_hash: G::new(config, seed).state_hash(),
        }
    }
}

/// Plays one game of `G` on `config` from `seed` with `planner` (a fresh one:
/// see [`Planner`]) to its end, without a time limit, and returns its replay
/// as the current format version stores it (see [`Replay::compacted`]).
pub fn record<G: Replayable>(
    config: &G::Config,
    seed: u64,
    planner: &mut (impl Planner<G> + ?Sized),
) -> Result<Replay, PlayError> {
    let header = Header::new::<G>(config, seed, planner);
    let mut game = G::new(config, seed);
    let mut frames = Vec::new();
    let outcome = play_to_end(&mut game, planner, &Budget::unlimited(), |action, game| {
        frames.push(Frame { action: G::action_code(action), hash: FrameHash::Full(game.state_hash()) });
    })?;
    let footer = Footer { outcome, ticks: game.tick(), final_hash: game.state_hash() };
    Ok(Replay { header, frames, footer: Some(footer) }.compacted())
}
