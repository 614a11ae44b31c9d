//! One game from start to record: an entry's games (`GameEntry`, the one
//! generic `EntryPlayer`), and for each game its replay opened, its ticks
//! played (`ticks.rs`), then the finished game sorted out: recorded or
//! dropped, its replay finished and kept or deleted, its record made and
//! its `game_end` logged.

use std::fmt;
use std::future::Future;
use std::path::{Path, PathBuf};
use std::pin::Pin;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Instant;

use tracing::info;

use crate::game::{OutcomeKind, Replayable};
use crate::plan::Planner;
use crate::replay::{Footer, Header, ReplayFile};
use crate::session::entry::Keep;
use crate::session::ticks::{Ending, play_ticks};
use crate::session::{EntryPlayer, GAME_EVENTS, GameJob, GameRecord, GameResult, SessionError, game_id};

/// The games of one game type: its levels (game `index` plays level
/// `index % levels`) and a planner maker (a fresh planner per game).
pub struct GameEntry<G: Replayable, F> {
    levels: Vec<(String, Arc<G::Config>)>,
    make_planner: F,
    planner: &'static str,
}

impl<G: Replayable, F> fmt::Debug for GameEntry<G, F> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let levels: Vec<&str> = self.levels.iter().map(|(name, _)| name.as_str()).collect();
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
    F: Fn(&G::Config) -> P + Send + Sync + 'static,
    P: Planner<G>,
{
    /// `levels` (at least one) are named as the results file names them.
    pub fn player(levels: Vec<(String, Arc<G::Config>)>, make_planner: F) -> Arc<dyn EntryPlayer> {
        assert!(!levels.is_empty(), "an entry plays at least one level");
        let planner = make_planner(&levels[0].1).name();
        Arc::new(GameEntry::<G, F> { levels, make_planner, planner })
    }
}

impl<G, F, P> EntryPlayer for GameEntry<G, F>
where
    G: Replayable,
    F: Fn(&G::Config) -> P + Send + Sync + 'static,
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

    fn play(self: Arc<Self>, job: GameJob) -> Pin<Box<dyn Future<Output = GameResult> + Send>> {
        Box::pin(async move {
            let (name, level) = &self.levels[(job.index % self.levels.len() as u64) as usize];
            let planner = (self.make_planner)(level);
            play_game::<G, P>(Arc::clone(level), name.clone(), planner, job).await
        })
    }
}

/// Plays one game to its end (or until cancelled), recording it.
pub(super) async fn play_game<G: Replayable, P: Planner<G>>(
    level: Arc<G::Config>,
    level_name: String,
    planner: P,
    job: GameJob,
) -> GameResult {
    let started = Instant::now();
    let planner_name = planner.name();
    let game = G::new(&level, job.seed);
    let id = game_id(&job.entry, job.index);
    info!(target: GAME_EVENTS, game = G::NAME, id = %id, seed = job.seed, planner = planner_name, "game_start");
    let header = Header::new::<G>(&level, job.seed, &planner);
    let mut replay = create_replay(job.replay_path.as_deref(), &header)?;
    let played = match play_ticks(game, planner, header.initial_hash, replay.as_mut(), &job, &id).await {
        Ok(played) => played,
        Err(error) => {
            delete_replay(replay);
            return Err(error);
        }
    };
    let outcome = match played.ending {
        Ending::Over(outcome) => outcome,
        Ending::Interrupted(outcome) if job.record_interrupted => outcome,
        Ending::Interrupted(_) => {
            delete_replay(replay);
            info!(id = %id, "game_stopped");
            return Ok(None);
        }
    };
    let keep = job.keep == Keep::Always || outcome.kind != OutcomeKind::Won;
    let footer = Footer { outcome: outcome.clone(), ticks: played.ticks, final_hash: played.last_hash };
    let replay_written = finish_replay(replay, keep, footer, &job.disk_used).await?;
    let record = GameRecord {
        id,
        entry: job.entry,
        index: job.index,
        seed: job.seed,
        game: G::NAME,
        level: level_name,
        planner: planner_name,
        outcome: outcome.kind,
        reason: outcome.reason,
        ticks: played.ticks,
        score: played.score,
        planner_us: played.planner_time.as_micros() as u64,
        elapsed_us: started.elapsed().as_micros() as u64,
        replay: replay_written,
    };
    log_game_end(&record);
    Ok(Some(record))
}

/// Opens the game's replay, if it writes one.
fn create_replay(path: Option<&Path>, header: &Header) -> Result<Option<ReplayFile>, SessionError> {
    let Some(path) = path else { return Ok(None) };
    let file = ReplayFile::create(path, header).map_err(|cause| {
        remove_part(path);
        replay_error(path, cause)
    })?;
    Ok(Some(file))
}

/// Finishes a replay that is kept (its footer written, the file synced and
/// moved into place, its size counted against the disk budget) and deletes
/// one that is not. The path of the kept replay.
async fn finish_replay(
    replay: Option<ReplayFile>,
    keep: bool,
    footer: Footer,
    disk_used: &AtomicU64,
) -> Result<Option<PathBuf>, SessionError> {
    let file = match replay {
        Some(file) if keep => file,
        not_kept => {
            delete_replay(not_kept);
            return Ok(None);
        }
    };
    let path = file.path().to_path_buf();
    let finished = tokio::task::spawn_blocking(move || file.finish(footer)).await;
    let finished = finished.map_err(|error| SessionError::Task(error.to_string()))?;
    match finished {
        Ok(path) => {
            let bytes = std::fs::metadata(&path).map_or(0, |metadata| metadata.len());
            disk_used.fetch_add(bytes, Ordering::Relaxed);
            Ok(Some(path))
        }
        Err(cause) => {
            remove_part(&path);
            Err(replay_error(&path, cause))
        }
    }
}

/// The `game_end` event, with the game's record.
fn log_game_end(record: &GameRecord) {
    info!(
        target: GAME_EVENTS,
        game = record.game,
        id = %record.id,
        seed = record.seed,
        planner = record.planner,
        outcome = %record.outcome,
        reason = %record.reason,
        ticks = record.ticks,
        score = record.score,
        planner_us = record.planner_us,
        elapsed_us = record.elapsed_us,
        "game_end"
    );
}

fn replay_error(path: &Path, cause: std::io::Error) -> SessionError {
    SessionError::Replay { path: path.to_path_buf(), cause }
}

/// Closes an unfinished replay and deletes it.
fn delete_replay(replay: Option<ReplayFile>) {
    if let Some(file) = replay {
        let path = file.path().to_path_buf();
        drop(file);
        remove_part(&path);
    }
}

/// Deletes the `.part` file of an unfinished replay: nothing half-written
/// is left behind.
fn remove_part(path: &Path) {
    let mut part = path.as_os_str().to_owned();
    part.push(".part");
    let _ = std::fs::remove_file(PathBuf::from(part));
}
