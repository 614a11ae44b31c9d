//! A game of Reach the Flag in progress: the player's cell, the entries
//! each tile still takes, how a move changes them and how the game ends
//! (the [`Game`] and [`Wire`] impls).

use std::sync::Arc;

use super::{Config, Dir};
use crate::game::{Game, GameSpec, IllegalAction, Outcome, OutcomeKind, StateHasher, Status, Wire};

/// A game of Reach the Flag in progress.
#[derive(Clone, Debug)]
pub struct FlagGame {
    config: Arc<Config>,
    /// Entries each cell still takes before it falls; 0 for fallen tiles,
    /// holes and permanent tiles (see [`Tile::is_permanent`]).
    visits: Vec<u8>,
    position: u16,
    /// The sum of `visits`.
    remaining: u32,
    tick: u32,
    outcome: Option<Outcome>,
    /// The game's seed. The rules draw nothing from it; planners that draw
    /// random numbers (the GA) seed themselves from it, so a replay's seed
    /// names the plan too.
    seed: u64,
}

impl FlagGame {
    /// The seed the game was created with.
    pub(crate) fn seed(&self) -> u64 {
        self.seed
    }
    pub(crate) fn config(&self) -> &Config {
        &self.config
    }
    /// The player's cell.
    pub(crate) fn position(&self) -> u16 {
        self.position
    }
    /// Entries each cell still takes before it falls.
    pub(crate) fn visits(&self) -> &[u8] {
        &self.visits
    }
    /// Entries still needed before every fragile and cracked tile has fallen.
    pub(crate) fn remaining(&self) -> u32 {
        self.remaining
    }

    /// Whether the player may stand on `cell` now: a permanent tile or one
    /// that has not fallen.
    pub(crate) fn is_standing(&self, cell: u16) -> bool {
        self.config.tile(cell).is_permanent() || self.visits[usize::from(cell)] > 0
    }

    /// The cell a move in `dir` leads to, if the move is legal now.
    pub(crate) fn target(&self, dir: Dir) -> Option<u16> {
        if self.outcome.is_some() {
            return None;
        }
        self.config.neighbour(self.position, dir).filter(|&cell| self.is_standing(cell))
    }

    fn settle(&mut self) {
        if self.remaining == 0 && self.position == self.config.flag() {
            self.outcome = Some(Outcome::new(OutcomeKind::Won, format!("reached the flag at tick {}", self.tick)));
        } else if Dir::ALL.iter().all(|&dir| self.target(dir).is_none()) {
            let reason = format!("no move left at tick {} with {} tile entries to go", self.tick, self.remaining);
            self.outcome = Some(Outcome::new(OutcomeKind::Lost, reason));
        }
    }
}

impl Game for FlagGame {
    type Config = Config;
    type Action = Dir;
    const NAME: &'static str = "flag";

    fn new(config: &Config, seed: u64) -> FlagGame {
        let visits = config.initial_visits();
        let remaining = visits.iter().map(|&count| u32::from(count)).sum();
        let mut game = FlagGame {
            config: Arc::new(config.clone()),
            visits,
            position: config.start(),
            remaining,
            tick: 0,
            outcome: None,
            seed,
        };
        game.settle();
        game
    }

    fn legal_actions(&self, out: &mut Vec<Dir>) {
        out.extend(Dir::ALL.into_iter().filter(|&dir| self.target(dir).is_some()));
    }

    fn step(&mut self, dir: Dir) -> Result<(), IllegalAction> {
        let Some(next) = self.target(dir) else {
            let reason = if self.outcome.is_some() {
                "the game is over"
            } else if self.config.neighbour(self.position, dir).is_none() {
                "the move leaves the board"
            } else {
                "the move is into a hole"
            };
            return Err(IllegalAction { action: dir.to_string(), tick: self.tick, reason });
        };
        self.tick += 1;
        self.position = next;
        let visits = &mut self.visits[usize::from(next)];
        if *visits > 0 {
            *visits -= 1;
            self.remaining -= 1;
        }
        self.settle();
        Ok(())
    }

    fn status(&self) -> Status {
        match &self.outcome {
            None => Status::Running,
            Some(outcome) => Status::Over(outcome.clone()),
        }
    }

    fn tick(&self) -> u32 {
        self.tick
    }

    /// Tile entries made so far (the start tile's included).
    fn score(&self) -> i64 {
        let total: u32 = self.config.tiles().iter().map(|tile| u32::from(tile.visits())).sum();
        i64::from(total - self.remaining)
    }

    fn hash_state(&self, hasher: &mut StateHasher) {
        hasher.u32(self.tick);
        hasher.u16(self.position);
        hasher.u32(self.visits.len() as u32);
        hasher.bytes(&self.visits);
        hasher.u8(match &self.outcome {
            None => 0,
            Some(outcome) => 1 + outcome.kind as u8,
        });
    }
}

impl Wire for FlagGame {
    fn action_code(dir: Dir) -> u32 {
        u32::from(dir.code())
    }

    fn action_from_code(code: u32) -> Option<Dir> {
        Dir::from_code(code)
    }

    /// Four directions: codes 0 to 3.
    fn action_code_bound(_config: &Config) -> u32 {
        Dir::ALL.len() as u32
    }

    fn spec(config: &Config) -> GameSpec {
        GameSpec::Flag(config.clone())
    }

    fn config_of(spec: GameSpec) -> Option<Config> {
        match spec {
            GameSpec::Flag(config) => Some(config),
            _ => None,
        }
    }
}

/// Plays `moves` from the start of `config` and returns the game; stops at
/// the first illegal move with its error.
#[cfg(test)]
pub(crate) fn play_moves(config: &Config, moves: &[Dir]) -> Result<FlagGame, IllegalAction> {
    let mut game = FlagGame::new(config, 0);
    for &dir in moves {
        game.step(dir)?;
    }
    Ok(game)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::game::Show;
    use crate::map::Level;

    fn level(map: &str) -> Config {
        Config::parse(map).unwrap_or_else(|error| panic!("{error}"))
    }

    fn moves(text: &str) -> Vec<Dir> {
        text.chars().map(|letter| Dir::from_letter(letter).expect("a move letter")).collect()
    }

    fn kind(game: &FlagGame) -> Option<OutcomeKind> {
        match game.status() {
            Status::Running => None,
            Status::Over(outcome) => Some(outcome.kind),
        }
    }

    /// One row of the rules table: a map, moves, and what must hold after.
    #[track_caller]
    fn check(map: &str, played: &str, outcome: Option<OutcomeKind>, remaining: u32, picture: &str) {
        let config = level(map);
        let game = play_moves(&config, &moves(played)).unwrap_or_else(|error| panic!("{error}"));
        assert_eq!(kind(&game), outcome, "{}", game.render());
        assert_eq!(game.remaining(), remaining, "{}", game.render());
        let board: String = game.render().lines().skip(1).collect::<Vec<_>>().join("\n");
        assert_eq!(board, picture.trim(), "\n{}", game.render());
        assert_eq!(game.tick(), played.len() as u32);
    }

    #[test]
    fn rules_table() {
        // The start tile counts as entered once: a fragile start falls.
        check("start 0 0\n11F", "", None, 1, "@1F");
        // Entering a fragile tile makes it fall behind the player.
        check("start 0 0\n11F", "r", None, 0, ".@F");
        // All fallen and on the flag: won.
        check("start 0 0\n11F", "rr", Some(OutcomeKind::Won), 0, "..@");
        // A cracked tile takes two entries; a cracked start is entered once.
        check("start 0 0\n21F\n1..", "", None, 3, "@1F\n1..");
        check("start 0 0\n21F\n1..", "d", None, 2, "11F\n@..");
        check("start 0 0\n21F\n1..", "du", None, 1, "@1F\n...");
        check("start 0 0\n21F\n1..", "dur", None, 0, ".@F\n...");
        check("start 0 0\n21F\n1..", "durr", Some(OutcomeKind::Won), 0, "..@\n...");
        // The flag may be crossed; standing on it with tiles left is no win.
        check("start 0 0\n1F1", "r", None, 1, ".@1");
        check("start 0 0\n1F1", "rr", None, 0, ".F@");
        check("start 0 0\n1F1", "rrl", Some(OutcomeKind::Won), 0, ".@.");
        // Stones never fall and may be crossed again and again.
        check("start 0 0\n13F\n.1.", "rdur", Some(OutcomeKind::Won), 0, ".3@\n...");
        // Lost: no legal move while tiles remain.
        check("start 1 0\n111\nF..", "r", Some(OutcomeKind::Lost), 1, "1.@\nF..");
        // Won at tick 0: a start on the flag with nothing to do.
        check("start 1 0\n.F3", "", Some(OutcomeKind::Won), 0, ".@3");
        // Lost at tick 0: nowhere to go.
        check("start 0 0\n1.F", "", Some(OutcomeKind::Lost), 0, "@.F");
    }

    #[test]
    fn illegal_moves_are_rejected_and_change_nothing() {
        let config = level("start 0 0\n11F\n11.");
        let mut game = FlagGame::new(&config, 0);
        let (hash, picture) = (game.state_hash(), game.render());
        let off_board = game.step(Dir::Up).unwrap_err();
        assert_eq!(off_board.reason, "the move leaves the board");
        let mut legal = Vec::new();
        game.legal_actions(&mut legal);
        assert_eq!(legal, vec![Dir::Right, Dir::Down]);
        game.step(Dir::Down).unwrap();
        // The start tile fell at tick 0: going back is a move into a hole.
        let error = game.step(Dir::Up).unwrap_err();
        assert_eq!((error.reason, error.tick), ("the move is into a hole", 1));
        for dir in [Dir::Right, Dir::Up, Dir::Right] {
            game.step(dir).unwrap();
        }
        assert_eq!(kind(&game), Some(OutcomeKind::Won));
        assert_eq!(game.step(Dir::Left).unwrap_err().reason, "the game is over");
        let mut fresh = FlagGame::new(&config, 0);
        assert!(fresh.step(Dir::Left).is_err());
        assert_eq!((fresh.state_hash(), fresh.render()), (hash, picture));
        legal.clear();
        game.legal_actions(&mut legal);
        assert!(legal.is_empty(), "a finished game has no legal action");
    }

    #[test]
    fn hashes_tell_states_apart() {
        let config = level("start 0 0\n131\n1F1");
        let a = play_moves(&config, &moves("rd")).unwrap();
        let b = play_moves(&config, &moves("dr")).unwrap();
        assert_eq!(a.position(), b.position());
        assert_ne!(a.state_hash(), b.state_hash());
        let again = play_moves(&config, &moves("rd")).unwrap();
        assert_eq!(a.state_hash(), again.state_hash());
        assert_eq!(FlagGame::new(&config, 1).state_hash(), FlagGame::new(&config, 2).state_hash(), "no randomness");
    }

    /// One shortest solution per original round, in the original's move
    /// letters (found by an independent breadth-first search over the
    /// original maps before they were converted; round 5 with the drawn
    /// flag). Played in our orientation, each must win on its last move.
    const ORIGINAL_SOLUTIONS: [&str; 19] = [
        "uuuuu",
        "rrrrr",
        "rrrrrurd",
        "rrrudr",
        "rrrudrlddddurl",
        "ddruurddruuuuldl",
        "ddlldrrddruuurdruullul",
        "ddluuuulddlddrrdlllluruluruurdll",
        "ruddrdruluurdrdrdrululuurdrrdrululu",
        "uuuuudldrruudrrr",
        "dduldddruudruudrddldd",
        "uurdduddruuuuruddruudrddlddlulddrd",
        "ruddruuuddrruulduururdrddurdldddulduldrdld",
        "rruruuddrdlddlurrrrurdudruulluullduu",
        "duruuulduldlddruddldrrdrruuudludd",
        "rdruuuddrddruuduruudulllrururdrddrddddlllruudrrur",
        "ddururuudrdururdddudldduldlluudrrrdddudruduuuruuu",
        "ddrdrdddlluddluuluuurudddrullldl",
        "ulddluddluuuurruurdrdrdddlulrddrdlludulddrdr",
    ];

    #[test]
    fn the_original_solutions_win_the_converted_rounds() {
        for (index, solution) in ORIGINAL_SOLUTIONS.iter().enumerate() {
            let path = format!("{}/maps/flag/round-{:02}.txt", env!("CARGO_MANIFEST_DIR"), index + 1);
            let config = level(&std::fs::read_to_string(&path).expect("bundled map"));
            let all = moves(solution);
            let game = play_moves(&config, &all).unwrap_or_else(|error| panic!("{path}: {error}"));
            assert_eq!(kind(&game), Some(OutcomeKind::Won), "{path}\n{}", game.render());
            let before_last = play_moves(&config, &all[..all.len() - 1]).unwrap();
            assert_eq!(kind(&before_last), None, "{path}: won early");
        }
    }
}
