//! Reach the Flag: the crumbling-tile puzzle's rules, its map format and its
//! validated configuration.
//!
//! A grid of tiles: holes, fragile tiles (fall after one entry), cracked
//! tiles (fall after two), stones (never fall) and one flag (never falls, may
//! be crossed). The player moves one cell per tick onto a tile that has not
//! fallen; the start tile counts as entered once at tick 0. Won when every
//! fragile and cracked tile has fallen and the player stands on the flag;
//! lost when no move is left otherwise. The planners live beside the rules:
//! `exact` (a complete search), `search` (an anytime search for large maps)
//! and `ga` (the write-up's genetic algorithm with `write_up`, ours by
//! default); `generate` and `designer` lay random solvable maps.

pub mod designer;
pub mod exact;
pub mod ga;
pub mod generate;
pub mod picture;
pub mod search;

use std::sync::Arc;

use serde::{Deserialize, Serialize};

pub use crate::game::Dir;
use crate::game::{Game, GameSpec, IllegalAction, Outcome, OutcomeKind, Show, StateHasher, Status, Wire};
use crate::map::{MapError, content_lines};

/// Largest board side we accept.
pub(crate) const MAX_SIDE: u16 = 64;
/// Largest number of cells we accept: planners keep per-cell scratch arrays
/// of this size on the stack, so a board never makes them allocate.
pub(crate) const MAX_CELLS: usize = 1024;

/// Writes `moves` as letters (`uurd...`), the form plans are printed in.
pub fn letters(moves: &[Dir]) -> String {
    moves.iter().map(|dir| dir.letter().to_ascii_lowercase()).collect()
}

/// One cell of the map as drawn.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Tile {
    /// Not walkable (`.` or `0`).
    Hole,
    /// Falls after one entry (`1`).
    Fragile,
    /// Falls after two entries (`2`).
    Cracked,
    /// Never falls (`3`).
    Stone,
    /// Never falls; the goal (`5` or `F`).
    Flag,
}

impl Tile {
    /// Entries the tile takes before it falls; 0 for tiles that never fall
    /// (and for holes).
    pub(crate) fn visits(self) -> u8 {
        match self {
            Tile::Fragile => 1,
            Tile::Cracked => 2,
            Tile::Hole | Tile::Stone | Tile::Flag => 0,
        }
    }

    /// Whether the tile never falls.
    pub(crate) fn is_permanent(self) -> bool {
        matches!(self, Tile::Stone | Tile::Flag)
    }

    /// The character the map format uses for the tile.
    pub(crate) fn symbol(self) -> char {
        match self {
            Tile::Hole => '.',
            Tile::Fragile => '1',
            Tile::Cracked => '2',
            Tile::Stone => '3',
            Tile::Flag => 'F',
        }
    }

    fn parse(ch: char) -> Option<Tile> {
        match ch {
            '.' | '0' => Some(Tile::Hole),
            '1' => Some(Tile::Fragile),
            '2' => Some(Tile::Cracked),
            '3' => Some(Tile::Stone),
            '5' | 'F' => Some(Tile::Flag),
            _ => None,
        }
    }
}

/// A level as a map file, the command line or a replay header says it,
/// unvalidated. [`Config::try_from`] validates it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct FlagSetup {
    pub width: u16,
    pub height: u16,
    /// Row-major, row 0 at the top, `width * height` entries.
    pub tiles: Vec<Tile>,
    /// Start column.
    pub start_col: u16,
    /// Start row (0 is the top).
    pub start_row: u16,
}

impl FlagSetup {
    /// Parses a map: an optional `start COL ROW` line, then one grid line
    /// per row (`.`/`0` hole, `1` fragile, `2` cracked, `3` stone, `5`/`F`
    /// flag). `#` starts a comment, on its own line or after the content.
    pub fn parse(text: &str) -> Result<FlagSetup, MapError> {
        let mut start: Option<(usize, u16, u16)> = None;
        let mut rows: Vec<Vec<Tile>> = Vec::new();
        let mut width = 0usize;
        let mut first_grid_line = 0;
        let mut flag_seen: Option<(usize, usize)> = None;
        for (line_no, line) in content_lines(text) {
            let line = line.split('#').next().unwrap_or_default().trim_end();
            if line.trim_start().starts_with("start") {
                if let Some((first, _, _)) = start {
                    return Err(MapError::at(line_no, 0, format!("a second `start` line (the first is line {first})")));
                }
                let (col, row) = parse_start(line_no, line)?;
                start = Some((line_no, col, row));
                continue;
            }
            let mut cells = Vec::with_capacity(line.len());
            for (index, ch) in line.chars().enumerate() {
                let Some(tile) = Tile::parse(ch) else {
                    return Err(MapError::at(
                        line_no,
                        index + 1,
                        format!(
                            "unexpected {ch:?}: a cell is '.' or '0' (hole), '1' (fragile), '2' (cracked), \
                             '3' (stone) or '5'/'F' (flag)"
                        ),
                    ));
                };
                if tile == Tile::Flag {
                    if let Some((flag_line, flag_column)) = flag_seen {
                        return Err(MapError::at(
                            line_no,
                            index + 1,
                            format!("a second flag (the first is at line {flag_line}, column {flag_column})"),
                        ));
                    }
                    flag_seen = Some((line_no, index + 1));
                }
                cells.push(tile);
            }
            if rows.is_empty() {
                width = cells.len();
                first_grid_line = line_no;
            } else if cells.len() != width {
                return Err(MapError::at(
                    line_no,
                    cells.len().min(width) + 1,
                    format!("row has {} cells, but the first row (line {first_grid_line}) has {width}", cells.len()),
                ));
            }
            rows.push(cells);
        }
        if rows.is_empty() {
            return Err(MapError::whole("no grid: expected rows of '.', '1', '2', '3' and one '5' or 'F'"));
        }
        if width > usize::from(MAX_SIDE) || rows.len() > usize::from(MAX_SIDE) || width * rows.len() > MAX_CELLS {
            return Err(MapError::whole(format!(
                "the board is {width}×{}; it may be at most {MAX_SIDE}×{MAX_SIDE} and {MAX_CELLS} cells",
                rows.len()
            )));
        }
        if flag_seen.is_none() {
            return Err(MapError::whole("no flag: exactly one cell must be '5' or 'F'"));
        }
        let Some((start_line, start_col, start_row)) = start else {
            return Err(MapError::whole("no `start COL ROW` line (column, then row; row 0 is the top grid line)"));
        };
        let setup =
            FlagSetup { width: width as u16, height: rows.len() as u16, tiles: rows.concat(), start_col, start_row };
        // Check the start here, where its line is known, so the error can
        // point at it.
        setup.check_start().map_err(|message| MapError::at(start_line, 0, message))?;
        Ok(setup)
    }

    fn check_start(&self) -> Result<usize, String> {
        let (col, row) = (self.start_col, self.start_row);
        if col >= self.width || row >= self.height {
            return Err(format!("the start (column {col}, row {row}) is off the {}×{} board", self.width, self.height));
        }
        let cell = usize::from(row) * usize::from(self.width) + usize::from(col);
        if self.tiles.get(cell) == Some(&Tile::Hole) {
            return Err(format!("the start (column {col}, row {row}) is on a hole"));
        }
        Ok(cell)
    }

    /// The map in the file format, with `comment` lines (each prefixed
    /// with `# `) first.
    pub fn to_text(&self, comment: &str) -> String {
        let mut out = String::new();
        for line in comment.lines() {
            out.push_str("# ");
            out.push_str(line);
            out.push('\n');
        }
        out.push_str(&format!("start {} {}\n", self.start_col, self.start_row));
        for row in self.tiles.chunks(usize::from(self.width.max(1))) {
            out.extend(row.iter().map(|tile| tile.symbol()));
            out.push('\n');
        }
        out
    }
}

fn parse_start(line_no: usize, line: &str) -> Result<(u16, u16), MapError> {
    let expected = "expected `start COL ROW`, e.g. `start 0 4` (row 0 is the top grid line)";
    let words: Vec<&str> = line.split_whitespace().collect();
    let [_, col, row] = words[..] else {
        return Err(MapError::at(line_no, 0, expected));
    };
    let number = |word: &str| word.parse::<u16>().map_err(|_| MapError::at(line_no, 0, expected));
    Ok((number(col)?, number(row)?))
}

/// Marks a missing neighbour in [`Config::neighbour`]'s table.
pub(crate) const NO_CELL: u16 = u16::MAX;

/// A validated level. Only [`Config::try_from`] builds one, so a `Config`
/// always describes a playable game: a board within limits, one flag, a
/// start on a tile.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(try_from = "FlagSetup", into = "FlagSetup")]
pub struct Config {
    width: u16,
    height: u16,
    tiles: Vec<Tile>,
    start: u16,
    flag: u16,
    /// `neighbours[4 * cell + dir]`: the cell one step away, or [`NO_CELL`]
    /// off the board. Holes are not excluded.
    neighbours: Vec<u16>,
}

impl TryFrom<FlagSetup> for Config {
    type Error = MapError;

    fn try_from(setup: FlagSetup) -> Result<Config, MapError> {
        let (width, height) = (setup.width, setup.height);
        if width == 0 || height == 0 || width > MAX_SIDE || height > MAX_SIDE {
            return Err(MapError::whole(format!("board is {width}×{height}; each side must be 1..={MAX_SIDE}")));
        }
        let n_cells = usize::from(width) * usize::from(height);
        if n_cells > MAX_CELLS {
            return Err(MapError::whole(format!("board has {n_cells} cells; at most {MAX_CELLS} are allowed")));
        }
        if setup.tiles.len() != n_cells {
            return Err(MapError::whole(format!("{} tiles for {n_cells} cells", setup.tiles.len())));
        }
        let flags: Vec<usize> = (0..n_cells).filter(|&cell| setup.tiles[cell] == Tile::Flag).collect();
        let [flag] = flags[..] else {
            return Err(MapError::whole(format!("the board has {} flags; it must have exactly one", flags.len())));
        };
        let start = setup.check_start().map_err(MapError::whole)?;
        let mut neighbours = Vec::with_capacity(4 * n_cells);
        for cell in 0..n_cells {
            let (col, row) = ((cell % usize::from(width)) as u16, (cell / usize::from(width)) as u16);
            for dir in Dir::ALL {
                let next = match dir {
                    Dir::Up if row > 0 => cell - usize::from(width),
                    Dir::Down if row + 1 < height => cell + usize::from(width),
                    Dir::Left if col > 0 => cell - 1,
                    Dir::Right if col + 1 < width => cell + 1,
                    _ => usize::from(NO_CELL),
                };
                neighbours.push(next as u16);
            }
        }
        Ok(Config { width, height, tiles: setup.tiles, start: start as u16, flag: flag as u16, neighbours })
    }
}

impl From<Config> for FlagSetup {
    fn from(config: Config) -> FlagSetup {
        FlagSetup {
            width: config.width,
            height: config.height,
            start_col: config.start % config.width,
            start_row: config.start / config.width,
            tiles: config.tiles,
        }
    }
}

impl Config {
    /// Parses and validates a map text.
    pub fn parse(text: &str) -> Result<Config, MapError> {
        Config::try_from(FlagSetup::parse(text)?)
    }

    pub(crate) fn width(&self) -> u16 {
        self.width
    }
    pub(crate) fn height(&self) -> u16 {
        self.height
    }
    pub(crate) fn n_cells(&self) -> usize {
        self.tiles.len()
    }
    pub(crate) fn tile(&self, cell: u16) -> Tile {
        self.tiles[usize::from(cell)]
    }
    pub fn tiles(&self) -> &[Tile] {
        &self.tiles
    }
    /// The start cell (row-major index).
    #[cfg(test)]
    pub(crate) fn start(&self) -> u16 {
        self.start
    }
    /// The flag cell (row-major index).
    pub(crate) fn flag(&self) -> u16 {
        self.flag
    }
    /// `(column, row)` of `cell`.
    pub(crate) fn col_row(&self, cell: u16) -> (u16, u16) {
        (cell % self.width, cell / self.width)
    }

    /// The cell one step from `cell` in `dir`, or `None` off the board.
    /// Holes are not checked.
    pub(crate) fn neighbour(&self, cell: u16, dir: Dir) -> Option<u16> {
        let next = self.neighbours[4 * usize::from(cell) + usize::from(dir.code())];
        (next != NO_CELL).then_some(next)
    }

    /// The four neighbours of `cell` in [`Dir::ALL`] order, [`NO_CELL`] off
    /// the board.
    pub(crate) fn neighbours(&self, cell: u16) -> [u16; 4] {
        let at = 4 * usize::from(cell);
        [self.neighbours[at], self.neighbours[at + 1], self.neighbours[at + 2], self.neighbours[at + 3]]
    }

    /// How many tiles of `kind` the board has.
    pub(crate) fn count(&self, kind: Tile) -> usize {
        self.tiles.iter().filter(|&&tile| tile == kind).count()
    }

    /// Visits each tile still needs at tick 0 (the start tile's entry
    /// already counted), indexed by cell.
    pub(crate) fn initial_visits(&self) -> Vec<u8> {
        let mut visits: Vec<u8> = self.tiles.iter().map(|tile| tile.visits()).collect();
        let start = usize::from(self.start);
        visits[start] = visits[start].saturating_sub(1);
        visits
    }

    /// A one-line summary, for reports.
    pub(crate) fn describe_rules(&self) -> String {
        let (start_col, start_row) = self.col_row(self.start);
        let (flag_col, flag_row) = self.col_row(self.flag);
        format!(
            "{}x{} board, {} fragile, {} cracked, {} stone tiles, start at ({start_col},{start_row}), flag at \
             ({flag_col},{flag_row})",
            self.width,
            self.height,
            self.count(Tile::Fragile),
            self.count(Tile::Cracked),
            self.count(Tile::Stone)
        )
    }
}

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
    pub fn config(&self) -> &Config {
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
    #[cfg(test)]
    pub(crate) fn remaining(&self) -> u32 {
        self.remaining
    }

    /// Whether the player may stand on `cell` now: a permanent tile or one
    /// that has not fallen.
    pub(crate) fn is_standing(&self, cell: u16) -> bool {
        self.config.tile(cell).is_permanent() || self.visits[usize::from(cell)] > 0
    }

    /// The cell a move in `dir` leads to, if the move is legal now.
    pub fn target(&self, dir: Dir) -> Option<u16> {
        if self.outcome.is_some() {
            return None;
        }
        self.config.neighbour(self.position, dir).filter(|&cell| self.is_standing(cell))
    }

    fn settle(&mut self) {
        if self.remaining == 0 && self.position == self.config.flag {
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
            position: config.start,
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
        let total: u32 = self.config.tiles.iter().map(|tile| u32::from(tile.visits())).sum();
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
}

impl Show for FlagGame {
    fn render(&self) -> String {
        let config = &self.config;
        let status = match &self.outcome {
            None => "running".to_string(),
            Some(outcome) => outcome.to_string(),
        };
        let mut out = format!("tick {}  entries to go {}  {status}\n", self.tick, self.remaining);
        for row in 0..config.height {
            for col in 0..config.width {
                let cell = row * config.width + col;
                let ch = if cell == self.position {
                    '@'
                } else {
                    match config.tile(cell) {
                        Tile::Stone => '3',
                        Tile::Flag => 'F',
                        _ => match self.visits[usize::from(cell)] {
                            0 => '.',
                            1 => '1',
                            _ => '2',
                        },
                    }
                };
                out.push(ch);
            }
            out.push('\n');
        }
        out
    }

    type Snapshot = picture::FlagSnapshot;

    fn snapshot(&self) -> picture::FlagSnapshot {
        self.snapshot_state()
    }

    fn draw(&self) -> crate::game::picture::Picture {
        self.draw_board()
    }

    fn describe(config: &Config) -> String {
        config.describe_rules()
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

    #[track_caller]
    fn check_error(text: &str, line: usize, column: usize, fragment: &str) {
        let error = Config::parse(text).expect_err("the map should be rejected");
        assert_eq!((error.line, error.column), (line, column), "{error}");
        assert!(error.message.contains(fragment), "{error:?} should mention {fragment:?}");
    }

    #[test]
    fn map_errors_name_line_and_column() {
        check_error("start 0 0\n11F\n1x1\n", 3, 2, "unexpected 'x'");
        check_error("start 0 0\n11F\n11\n", 3, 3, "row has 2 cells, but the first row (line 2) has 3");
        check_error("start 0 0\n1F\n5.\n", 3, 1, "a second flag (the first is at line 2, column 2)");
        check_error("start 0 0\n111\n", 0, 0, "no flag");
        check_error("11F\n", 0, 0, "no `start COL ROW` line");
        check_error("# map\nstart 3 0\n11F\n", 2, 0, "off the 3×1 board");
        check_error("start 1 0\n1.F\n", 1, 0, "is on a hole");
        check_error("start 0\n11F\n", 1, 0, "expected `start COL ROW`");
        check_error("start a b\n11F\n", 1, 0, "expected `start COL ROW`");
        check_error("start 0 0\nstart 1 0\n11F\n", 2, 0, "a second `start` line (the first is line 1)");
        check_error("# nothing\n", 0, 0, "no grid");
        check_error(&format!("start 0 0\nF{}\n", "1".repeat(64)), 0, 0, "at most 64×64");
    }

    #[test]
    fn comments_after_content_and_zero_holes_parse_and_round_trip() {
        let text = "# comment lines start with '#'\nstart 0 4          # column, row\n...1.\n...51\n...1.\n...1.\n\
                    1113.\n...1.\n";
        let config = level(text);
        assert_eq!((config.width(), config.height()), (5, 6));
        assert_eq!(config.col_row(config.start()), (0, 4));
        assert_eq!(config.col_row(config.flag()), (3, 1));
        assert_eq!((config.count(Tile::Fragile), config.count(Tile::Stone)), (8, 1));
        let zeros = level("start 0 0\n10F\n");
        assert_eq!(zeros.tile(1), Tile::Hole);
        // The text form parses back to the same level.
        let round_trip = level(&FlagSetup::from(config.clone()).to_text("again"));
        assert_eq!(round_trip, config);
    }

    #[test]
    fn a_hostile_setup_is_refused() {
        let good = FlagSetup::parse("start 0 0\n11F\n").unwrap();
        let cases: Vec<(FlagSetup, &str)> = vec![
            (FlagSetup { tiles: vec![Tile::Fragile; 3], ..good.clone() }, "0 flags"),
            (FlagSetup { tiles: vec![Tile::Flag; 3], ..good.clone() }, "3 flags"),
            (FlagSetup { tiles: vec![Tile::Fragile], ..good.clone() }, "1 tiles for 3 cells"),
            (FlagSetup { start_col: 9, ..good.clone() }, "off the"),
            (FlagSetup { width: 0, tiles: vec![], ..good.clone() }, "each side"),
            (FlagSetup { width: 40, height: 40, tiles: vec![Tile::Hole; 1600], ..good.clone() }, "at most 1024"),
        ];
        for (setup, fragment) in cases {
            let error = Config::try_from(setup).expect_err("refused");
            assert!(error.message.contains(fragment), "{error} should mention {fragment:?}");
        }
        assert!(Config::try_from(good).is_ok());
    }
}
