//! `tickbot agent locm`: tickbot's own LOCM bots as a contest-protocol
//! agent on stdin and stdout, so that another referee (the Java one, a
//! CodinGame-style runner, tickbot itself) can play them. Each turn's input
//! is read as the protocol lays it out, turned back into the view the bots
//! see in process ([`Observer`]), and the bots' decisions for the whole
//! turn are worked out on that view and written as one line.

use std::io::{self, BufRead, Write};
use std::time::{Duration, Instant};

use crate::game::locm::battle::{DECK_SIZE, Move};
use crate::game::locm::cards::CardTable;
use crate::game::locm::observe::Observer;
use crate::game::locm::plan::BattleBot;
use crate::game::locm::plan::battle::BattleScratch;
use crate::game::locm::plan::draft::DraftBot;
use crate::game::locm::plan::search::SearchStats;
use crate::game::locm::protocol::{self, BATTLE_MS, FIRST_BATTLE_MS, ParseError};
use crate::game::locm::view::View;
use crate::game::locm::{Action, Config};
use crate::rng::{GameRng, derive_seed};

/// Why serving stopped before its input ended.
#[derive(Debug, thiserror::Error)]
pub enum ServeError {
    #[error("reading or writing: {0}")]
    Io(#[from] io::Error),
    #[error("turn {turn}: {error}")]
    Input { turn: u64, error: ParseError },
}

/// The stream label of the served bots' randomness under `--seed`.
const SERVE_STREAM: u64 = 0x7365_7276_6520_6273;

/// The share of a battle turn's time limit the search may use before its
/// time guard stops it with the best plan so far: the rest is left for
/// reading, writing and a slow scheduler.
const SEARCH_SHARE: f64 = 0.5;

/// Plays one game as one seat: reads turns from `input` until it ends,
/// writes an answer line per turn to `output`. Returns the search bot's
/// counters (all zero for the other bots).
pub fn serve_locm(
    mut input: impl BufRead,
    mut output: impl Write,
    config: &Config,
    draft: &DraftBot,
    battle: BattleBot,
    seed: u64,
) -> Result<SearchStats, ServeError> {
    let table: &CardTable = config.table();
    let mut observer = Observer::new();
    let mut rng = GameRng::from_seed(derive_seed(seed, SERVE_STREAM));
    let mut scratch = BattleScratch::default();
    let hidden_decks = [[0; DECK_SIZE]; 2];
    let mut battle_turns = 0;
    for turn in 0.. {
        let Some(lines) = read_turn(&mut input)? else { return Ok(scratch.search.stats) };
        let started = Instant::now();
        let lines: Vec<&str> = lines.iter().map(String::as_str).collect();
        let view = observer.observe(&lines, table).map_err(|error| ServeError::Input { turn, error })?;
        match view {
            View::Draft(draft_view) => {
                let index = draft.choose(&draft_view, table, &mut rng);
                observer.picked(draft_view.choices()[usize::from(index)]);
                writeln!(output, "PICK {index}")?;
            }
            View::Battle(battle_view) => {
                let limit_ms = if battle_turns == 0 { FIRST_BATTLE_MS } else { BATTLE_MS };
                battle_turns += 1;
                let allowed = Duration::from_millis(limit_ms).mul_f64(SEARCH_SHARE);
                let out_of_time = || started.elapsed() >= allowed;
                let mut state = battle_view.battle;
                let mut actions = Vec::new();
                while state.winner.is_none() {
                    let (action, _) = battle.choose(&state, table, &mut rng, &mut scratch, &out_of_time);
                    if action == Move::EndTurn {
                        break;
                    }
                    actions.push(Action::Battle(action));
                    state.apply(action, table, &hidden_decks);
                }
                writeln!(output, "{}", protocol::format_turn(&actions))?;
            }
        }
        output.flush()?;
    }
    Ok(scratch.search.stats)
}

/// One turn's lines, read as the protocol lays them out; `None` at the
/// end of the input.
fn read_turn(input: &mut impl BufRead) -> Result<Option<Vec<String>>, ServeError> {
    let mut lines = Vec::new();
    let mut next = |lines: &mut Vec<String>| -> Result<bool, ServeError> {
        let mut line = String::new();
        if input.read_line(&mut line)? == 0 {
            return Ok(false);
        }
        lines.push(line.trim_end_matches(['\n', '\r']).to_string());
        Ok(true)
    };
    let count = |line: &str, index: usize| -> Result<usize, ServeError> {
        let word = line.split_whitespace().nth(index).unwrap_or("");
        word.parse().map_err(|_| ServeError::Input { turn: 0, error: ParseError("a count was expected") })
    };
    if !next(&mut lines)? {
        return Ok(None);
    }
    for _ in 0..2 {
        if !next(&mut lines)? {
            return Err(io::Error::from(io::ErrorKind::UnexpectedEof).into());
        }
    }
    let n_actions = count(&lines[2], 1)?;
    for _ in 0..=n_actions {
        if !next(&mut lines)? {
            return Err(io::Error::from(io::ErrorKind::UnexpectedEof).into());
        }
    }
    let n_cards = count(&lines[3 + n_actions], 0)?;
    for _ in 0..n_cards {
        if !next(&mut lines)? {
            return Err(io::Error::from(io::ErrorKind::UnexpectedEof).into());
        }
    }
    Ok(Some(lines))
}
