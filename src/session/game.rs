//! One game from start to record: an entry's games (`GameEntry`, the one
//! generic `EntryPlayer`), and for each game its replay opened, its ticks
//! played (`ticks.rs`) on the worker's thread, then the finished game
//! (`LiveGame`, whoever ends it: its worker, or the watchdog when its
//! planner never returns) sorted out: recorded or dropped, its replay
//! sealed for the next group commit or deleted, its record made and its
//! `game_end` logged.

use std::fmt;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Instant;

use tracing::info;

use crate::game::{OutcomeKind, Replayable};
use crate::plan::Planner;
use crate::replay::{Footer, Header, PlannerInfo};
use crate::session::commit::{Pending, ReplayPart};
use crate::session::entry::Keep;
use crate::session::report::Agents;
use crate::session::ticks::{Ending, Halt, play_ticks};
use crate::session::workers::{Abandoned, Done, Finished, Lane, Reached};
use crate::session::{EntryPlayer, GAME_EVENTS, GameJob, GameRecord, game_id};

/// The games of one game type: its levels (game `index` plays level
/// `index % levels`) and a planner maker (a fresh planner per game).
pub struct GameEntry<G: Replayable, F> {
    /// Named as the results file names them (shared by each game's record).
    levels: Vec<(Arc<str>, Arc<G::Config>)>,
    make_planner: F,
    planner: &'static str,
}

impl<G: Replayable, F> fmt::Debug for GameEntry<G, F> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let levels: Vec<&str> = self.levels.iter().map(|(name, _)| &**name).collect();
        f.debug_struct("GameEntry")
            .field("game", &G::NAME)
            .field("levels", &levels)
            .field("planner", &self.planner)
            .finish()
    }
}

impl<G, F, P> GameEntry<G, F>
where
    G: Replayable,
    F: Fn(&G::Config, u64) -> P + Send + Sync + 'static,
    P: Planner<G>,
{
    /// `levels` (at least one) are named as the results file names them;
    /// `make_planner` is given each game's level and seed (an external
    /// agent's protocol header names the seed).
    pub fn seeded(levels: Vec<(String, Arc<G::Config>)>, make_planner: F) -> Arc<dyn EntryPlayer> {
        assert!(!levels.is_empty(), "an entry plays at least one level");
        let planner = make_planner(&levels[0].1, 0).name();
        let levels = levels.into_iter().map(|(name, level)| (Arc::from(name), level)).collect();
        Arc::new(GameEntry::<G, F> { levels, make_planner, planner })
    }
}

impl<G: Replayable> GameEntry<G, ()> {
    /// `levels` (at least one) are named as the results file names them;
    /// `make_planner` makes each game's planner from its level.
    pub fn player<P: Planner<G>>(
        levels: Vec<(String, Arc<G::Config>)>,
        make_planner: impl Fn(&G::Config) -> P + Send + Sync + 'static,
    ) -> Arc<dyn EntryPlayer> {
        GameEntry::<G, _>::seeded(levels, move |level: &G::Config, _seed: u64| make_planner(level))
    }
}

/// An entry of one game played by `planner` (`tickbot play`).
pub(super) fn single<G: Replayable, P: Planner<G>>(level: Arc<G::Config>, planner: P) -> Arc<dyn EntryPlayer> {
    let name = planner.name();
    let planner = Mutex::new(Some(planner));
    let make_planner = move |_: &G::Config, _: u64| {
        planner.lock().unwrap_or_else(PoisonError::into_inner).take().expect("a single game's planner plays once")
    };
    Arc::new(GameEntry::<G, _> { levels: vec![(Arc::from(""), level)], make_planner, planner: name })
}

impl<G, F, P> EntryPlayer for GameEntry<G, F>
where
    G: Replayable,
    F: Fn(&G::Config, u64) -> P + Send + Sync + 'static,
    P: Planner<G>,
{
    fn game(&self) -> &'static str {
        G::NAME
    }

    fn planner(&self) -> &'static str {
        self.planner
    }

    fn rules(&self) -> String {
        G::describe(&self.levels[0].1)
    }

    fn play(&self, job: GameJob, lane: &Lane) -> Option<Finished> {
        let (name, level) = &self.levels[(job.index % self.levels.len() as u64) as usize];
        let planner = (self.make_planner)(level, job.seed);
        play_game::<G, P>(level, name, planner, job, lane)
    }
}

/// Plays one game on the calling thread to its end (or until the session
/// stops it), recording it. `None`: the watchdog took the game.
fn play_game<G: Replayable, P: Planner<G>>(
    level: &G::Config,
    level_name: &Arc<str>,
    mut planner: P,
    job: GameJob,
    lane: &Lane,
) -> Option<Finished> {
    let started = Instant::now();
    let planner_name = planner.name();
    let agents = planner.agents();
    let mut game = G::new(level, job.seed);
    let id = game_id(&job.entry, job.index);
    // Strings as `&str`, not `%` (Display): a per-game line is written
    // straight from them, where `Display` goes through a formatter.
    info!(target: GAME_EVENTS, game = G::NAME, id = id.as_str(), seed = job.seed, planner = planner_name, "game_start");
    let mut reached = Reached { ticks: game.tick(), score: game.score(), ..Reached::default() };
    let replay = match &job.replay_path {
        Some(path) => {
            reached.last_hash = game.state_hash();
            let header = Header {
                tickbot_version: env!("CARGO_PKG_VERSION").to_string(),
                game: G::spec(level),
                seed: job.seed,
                planner: PlannerInfo { name: planner_name.to_string(), params: planner.params() },
                initial_hash: reached.last_hash,
            };
            match ReplayPart::create(path, &header) {
                Ok(part) => Some(part),
                Err(error) => return Some(Finished::failed(error)),
            }
        }
        None => None,
    };
    lane.begin(LiveGame {
        entry_number: job.entry_number,
        id,
        job,
        game: G::NAME,
        level: Arc::clone(level_name),
        planner: planner_name,
        agents,
        started,
        reached,
        replay,
    });
    let ending = play_ticks(&mut game, &mut planner, lane, &mut reached);
    let mut live = match lane.take() {
        Ok(live) => live.expect("the game stays in its lane until it is taken"),
        Err(Abandoned) => return None,
    };
    live.reached = reached;
    match ending {
        Ok(ending) => Some(live.finish(ending, &lane.ctx.disk_used)),
        Err(Halt::Failed(error)) => {
            live.discard();
            Some(Finished::failed(error))
        }
        Err(Halt::Abandoned) => None,
    }
}

/// A game as far as it has been played: what its record and its replay's
/// footer need, and the replay being written.
#[derive(Debug)]
pub(super) struct LiveGame {
    entry_number: usize,
    id: String,
    job: GameJob,
    game: &'static str,
    level: Arc<str>,
    planner: &'static str,
    /// The external programs that play, per seat (`Planner::agents`).
    agents: Vec<Option<String>>,
    started: Instant,
    /// How far it was played: kept with each frame while a replay is
    /// written, else set by whoever ends the game (the worker keeps its
    /// own while it plays).
    pub(super) reached: Reached,
    pub(super) replay: Option<ReplayPart>,
}

impl LiveGame {
    pub(super) fn id(&self) -> &str {
        &self.id
    }

    /// Ends the game as `ending` says: recorded, its replay sealed for the
    /// next commit (or deleted if not kept), or dropped with its replay.
    pub(super) fn finish(self, ending: Ending, disk_used: &AtomicU64) -> Finished {
        let outcome = match ending {
            Ending::Over(outcome) => outcome,
            Ending::Interrupted(outcome) if self.job.record_interrupted => outcome,
            Ending::Interrupted(_) => {
                info!(id = %self.id, "game_stopped");
                self.discard();
                return Finished(Done::Stopped);
            }
        };
        let keep = self.job.keep == Keep::Always || outcome.kind != OutcomeKind::Won;
        let replay = match self.replay {
            Some(part) if keep => {
                let reached = self.reached;
                let footer = Footer { outcome: outcome.clone(), ticks: reached.ticks, final_hash: reached.last_hash };
                match part.seal(&footer) {
                    Ok(sealed) => {
                        disk_used.fetch_add(sealed.bytes, Ordering::Relaxed);
                        Some(sealed)
                    }
                    Err(error) => return Finished::failed(error),
                }
            }
            not_kept => {
                not_kept.into_iter().for_each(ReplayPart::discard);
                None
            }
        };
        let record = GameRecord {
            id: self.id,
            entry: self.job.entry,
            index: self.job.index,
            seed: self.job.seed,
            game: self.game,
            level: self.level,
            planner: self.planner,
            outcome: outcome.kind,
            reason: outcome.reason,
            ticks: self.reached.ticks,
            score: self.reached.score,
            planner_us: self.reached.planner_time.as_micros() as u64,
            elapsed_us: self.started.elapsed().as_micros() as u64,
            replay: replay.as_ref().map(|sealed| sealed.path().to_path_buf()),
            agents: (!self.agents.is_empty()).then(|| Box::new(Agents(self.agents))),
        };
        log_game_end(&record);
        Finished(Done::Recorded(Pending { entry_number: self.entry_number, record, replay }))
    }

    /// Drops the game, deleting its replay.
    pub(super) fn discard(self) {
        self.replay.into_iter().for_each(ReplayPart::discard);
    }
}

/// The `game_end` event, with the game's record.
fn log_game_end(record: &GameRecord) {
    info!(
        target: GAME_EVENTS,
        game = record.game,
        id = record.id.as_str(),
        seed = record.seed,
        planner = record.planner,
        outcome = record.outcome.as_str(),
        reason = record.reason.as_str(),
        ticks = record.ticks,
        score = record.score,
        planner_us = record.planner_us,
        elapsed_us = record.elapsed_us,
        "game_end"
    );
}
