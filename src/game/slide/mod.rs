//! The sliding puzzle (8, 15 and 24 tiles): the board, its rules, the two
//! goal conventions, the solvability (parity) check, the instance-file
//! format, and the validated [`Config`] a replay header carries.
//!
//! An action names the direction the **blank** moves (`up` swaps the blank
//! with the tile above it). The game is won when the board equals the goal;
//! it stalls after `max_ticks` moves. The solvers in this folder work on the
//! blank-first goal only: [`Canonical`] turns a blank-last instance into a
//! blank-first one (a half turn and a relabelling) and turns moves back.

pub mod astar;
pub mod ga;
pub mod idastar;
pub mod pdb;
pub mod picture;

use std::sync::Arc;

use serde::{Deserialize, Serialize};

pub use crate::game::Dir;
use crate::game::{Game, GameSpec, IllegalAction, Outcome, OutcomeKind, Show, StateHasher, Status, Wire};
use crate::map::{MapError, content_lines};
use crate::rng::GameRng;

/// Largest board side: 5×5 (the 24-puzzle). Cells fit in a `u8` and a board
/// in the 25-byte array [`Board`].
pub(crate) const MAX_SIDE: u8 = 5;
/// Smallest board side: 3×3 (the 8-puzzle).
pub(crate) const MIN_SIDE: u8 = 3;
/// Cells of the largest board.
pub(crate) const MAX_CELLS: usize = 25;
/// Default episode cap: far above any optimal solution (at most 208 moves on
/// a 24-puzzle) and above what the GA's shortened plans need.
pub(crate) const DEFAULT_MAX_TICKS: u32 = 100_000;

/// Where the blank belongs when the puzzle is solved.
///
/// Part of the replay format (see `replay::format`): stored by variant index;
/// changing the variants' order or number needs a format version bump.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Goal {
    /// `1 2 3 / 4 5 6 / 7 8 _`: tile `v` on cell `v - 1`, the blank last.
    BlankLast,
    /// `_ 1 2 / 3 4 5 / 6 7 8`: tile `v` on cell `v`, the blank on cell 0
    /// (the research instance sets use this one).
    BlankFirst,
}

impl Goal {
    /// The cell where `tile` (0 = blank) belongs on a board of `n_cells`.
    pub(crate) fn cell_of(self, tile: u8, n_cells: u8) -> u8 {
        match self {
            Goal::BlankFirst => tile,
            Goal::BlankLast if tile == 0 => n_cells - 1,
            Goal::BlankLast => tile - 1,
        }
    }

    /// The tile that belongs on `cell`.
    pub(crate) fn tile_at(self, cell: u8, n_cells: u8) -> u8 {
        match self {
            Goal::BlankFirst => cell,
            Goal::BlankLast if cell == n_cells - 1 => 0,
            Goal::BlankLast => cell + 1,
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Goal::BlankFirst => "blank-first",
            Goal::BlankLast => "blank-last",
        }
    }
}

/// Cells row-major; `board[cell]` is the tile there (0 = blank). Only the
/// first `side²` entries are used.
pub(crate) type Board = [u8; MAX_CELLS];

/// How the start board is chosen.
///
/// Part of the replay format (see `replay::format`): stored by variant index;
/// changing the variants' order or number needs a format version bump.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Start {
    /// This board, row-major, 0 = blank.
    Tiles(Vec<u8>),
    /// A uniformly random solvable board drawn from the game's seed.
    Random,
}

/// Everything a sliding-puzzle game is built from, unvalidated: what an
/// instance file, the command line or a replay header says.
///
/// Part of the replay format (see `replay::format`): stored field by field in
/// this order; changing the fields needs a format version bump.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct SlideSetup {
    pub side: u8,
    pub start: Start,
    pub goal: Goal,
    /// The episode cap in ticks; `None`: [`DEFAULT_MAX_TICKS`].
    pub max_ticks: Option<u32>,
}

/// A validated sliding-puzzle configuration: a side of 3..=5, a start that
/// is a permutation of `0..side²` and can reach the goal. Only
/// [`Config::try_from`] builds one.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(try_from = "SlideSetup", into = "SlideSetup")]
pub struct Config {
    side: u8,
    /// `None`: drawn from the seed.
    start: Option<Board>,
    goal: Goal,
    max_ticks: u32,
}

/// Why a board is not a playable start.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum BoardError {
    #[error("the board side must be {MIN_SIDE}, 4 or {MAX_SIDE} (got {0})")]
    Side(u8),
    #[error("expected {expected} numbers (a {side}×{side} board), got {got}")]
    Count { expected: usize, got: usize, side: u8 },
    #[error("tile {tile} is out of range: tiles are 0 (the blank) to {max}")]
    OutOfRange { tile: u32, max: usize },
    #[error("tile {0} appears twice")]
    Duplicate(u8),
    #[error(
        "unsolvable: this board has the wrong permutation parity for the {goal} goal \
         (it can only reach the goal with two tiles swapped)"
    )]
    Unsolvable { goal: &'static str },
    #[error("the episode cap must be at least 1 tick")]
    ZeroCap,
}

impl From<BoardError> for MapError {
    fn from(error: BoardError) -> MapError {
        MapError::whole(error.to_string())
    }
}

/// The board side for `count` cells, if it is one we play.
pub fn side_for_cells(count: usize) -> Option<u8> {
    (MIN_SIDE..=MAX_SIDE).find(|&side| usize::from(side) * usize::from(side) == count)
}

/// Checks that `tiles` is a start for a `side`×`side` board and returns it
/// as a [`Board`]. The reachability check is [`is_solvable`].
pub(crate) fn board_from_tiles(side: u8, tiles: &[u8], goal: Goal) -> Result<Board, BoardError> {
    if !(MIN_SIDE..=MAX_SIDE).contains(&side) {
        return Err(BoardError::Side(side));
    }
    let n_cells = usize::from(side) * usize::from(side);
    if tiles.len() != n_cells {
        return Err(BoardError::Count { expected: n_cells, got: tiles.len(), side });
    }
    let mut seen = [false; MAX_CELLS];
    let mut board = [0u8; MAX_CELLS];
    for (cell, &tile) in tiles.iter().enumerate() {
        if usize::from(tile) >= n_cells {
            return Err(BoardError::OutOfRange { tile: u32::from(tile), max: n_cells - 1 });
        }
        if seen[usize::from(tile)] {
            return Err(BoardError::Duplicate(tile));
        }
        seen[usize::from(tile)] = true;
        board[cell] = tile;
    }
    if !is_solvable(side, &board, goal) {
        return Err(BoardError::Unsolvable { goal: goal.name() });
    }
    Ok(board)
}

/// Whether `board` can reach `goal`. Every move swaps the blank with a
/// neighbour: one transposition of the cell permutation, and one step of
/// the blank's taxicab distance to its goal cell. So the permutation that
/// takes the board to the goal has the parity of that distance in every
/// reachable board, and (a classic result) every board with matching
/// parities is reachable.
pub(crate) fn is_solvable(side: u8, board: &Board, goal: Goal) -> bool {
    let n_cells = side * side;
    // target[cell]: the cell where the tile now on `cell` belongs.
    let mut visited = [false; MAX_CELLS];
    let mut transpositions = 0u32;
    for first in 0..n_cells {
        if visited[usize::from(first)] {
            continue;
        }
        let mut cell = first;
        let mut length = 0u32;
        while !visited[usize::from(cell)] {
            visited[usize::from(cell)] = true;
            cell = goal.cell_of(board[usize::from(cell)], n_cells);
            length += 1;
        }
        transpositions += length - 1;
    }
    let blank = board[..usize::from(n_cells)].iter().position(|&tile| tile == 0).expect("a board has a blank") as u8;
    let home = goal.cell_of(0, n_cells);
    let distance = (blank / side).abs_diff(home / side) + (blank % side).abs_diff(home % side);
    transpositions % 2 == u32::from(distance) % 2
}

/// The goal board.
pub(crate) fn goal_board(side: u8, goal: Goal) -> Board {
    let n_cells = side * side;
    let mut board = [0u8; MAX_CELLS];
    for cell in 0..n_cells {
        board[usize::from(cell)] = goal.tile_at(cell, n_cells);
    }
    board
}

/// A uniformly random solvable board: a shuffle, then, if its parity is
/// wrong, the first two tiles (not the blank) swapped, which flips it.
pub fn random_board(side: u8, goal: Goal, rng: &mut GameRng) -> Board {
    let n_cells = usize::from(side) * usize::from(side);
    let mut board = [0u8; MAX_CELLS];
    for (cell, slot) in board[..n_cells].iter_mut().enumerate() {
        *slot = cell as u8;
    }
    rng.shuffle(&mut board[..n_cells]);
    if !is_solvable(side, &board, goal) {
        let mut tiles = (0..n_cells).filter(|&cell| board[cell] != 0);
        let (a, b) = (tiles.next().expect("3+ tiles"), tiles.next().expect("3+ tiles"));
        board.swap(a, b);
    }
    board
}

impl TryFrom<SlideSetup> for Config {
    type Error = BoardError;

    fn try_from(setup: SlideSetup) -> Result<Config, BoardError> {
        let SlideSetup { side, start, goal, max_ticks } = setup;
        if !(MIN_SIDE..=MAX_SIDE).contains(&side) {
            return Err(BoardError::Side(side));
        }
        let start = match start {
            Start::Tiles(tiles) => Some(board_from_tiles(side, &tiles, goal)?),
            Start::Random => None,
        };
        let max_ticks = max_ticks.unwrap_or(DEFAULT_MAX_TICKS);
        if max_ticks == 0 {
            return Err(BoardError::ZeroCap);
        }
        Ok(Config { side, start, goal, max_ticks })
    }
}

impl From<Config> for SlideSetup {
    fn from(config: Config) -> SlideSetup {
        let n_cells = config.n_cells();
        SlideSetup {
            side: config.side,
            start: match config.start {
                Some(board) => Start::Tiles(board[..n_cells].to_vec()),
                None => Start::Random,
            },
            goal: config.goal,
            max_ticks: Some(config.max_ticks),
        }
    }
}

impl Config {
    /// A fixed start. Errors say what is wrong with the board.
    pub fn fixed(side: u8, tiles: &[u8], goal: Goal) -> Result<Config, BoardError> {
        Config::try_from(SlideSetup { side, start: Start::Tiles(tiles.to_vec()), goal, max_ticks: None })
    }

    pub fn side(&self) -> u8 {
        self.side
    }
    pub(crate) fn n_cells(&self) -> usize {
        usize::from(self.side) * usize::from(self.side)
    }
    pub(crate) fn goal(&self) -> Goal {
        self.goal
    }
    /// The fixed start, if the start is not drawn from the seed.
    #[cfg(test)]
    pub(crate) fn start(&self) -> Option<&Board> {
        self.start.as_ref()
    }

    /// The same level with another episode cap.
    pub fn with_max_ticks(mut self, max_ticks: u32) -> Result<Config, BoardError> {
        if max_ticks == 0 {
            return Err(BoardError::ZeroCap);
        }
        self.max_ticks = max_ticks;
        Ok(self)
    }

    /// A one-line summary, for reports.
    pub(crate) fn describe_rules(&self) -> String {
        let start = match &self.start {
            Some(board) => format!("start {}", tiles_text(&board[..self.n_cells()])),
            None => "random solvable start from the seed".to_string(),
        };
        let n_tiles = self.n_cells() - 1;
        format!("{n_tiles}-puzzle, {} goal, {start}, episode cap {} ticks", self.goal.name(), self.max_ticks)
    }
}

/// Tiles as space-separated numbers.
pub(crate) fn tiles_text(tiles: &[u8]) -> String {
    tiles.iter().map(|tile| tile.to_string()).collect::<Vec<_>>().join(" ")
}

/// The neighbour of `cell` in direction `dir` on a `side`×`side` board.
pub(crate) fn neighbour(side: u8, cell: u8, dir: Dir) -> Option<u8> {
    let (row, col) = (cell / side, cell % side);
    match dir {
        Dir::Up if row > 0 => Some(cell - side),
        Dir::Down if row + 1 < side => Some(cell + side),
        Dir::Left if col > 0 => Some(cell - 1),
        Dir::Right if col + 1 < side => Some(cell + 1),
        _ => None,
    }
}

/// Applies blank moves to `board` (whose blank is on `blank`); `None` if a
/// move leaves the board.
#[cfg(test)]
pub(crate) fn apply_moves(side: u8, board: &Board, moves: &[Dir]) -> Option<Board> {
    let mut board = *board;
    let n_cells = usize::from(side) * usize::from(side);
    let mut blank = board[..n_cells].iter().position(|&tile| tile == 0)? as u8;
    for &dir in moves {
        let next = neighbour(side, blank, dir)?;
        board.swap(usize::from(blank), usize::from(next));
        blank = next;
    }
    Some(board)
}

/// A blank-first view of an instance, for the solvers: the board itself when
/// the goal is blank-first; for blank-last, the board turned half round with
/// every tile `v` renamed `side² - v`, which turns the blank-last goal into
/// the blank-first one and each blank move into its opposite.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Canonical {
    pub side: u8,
    pub board: Board,
    turned: bool,
}

impl Canonical {
    pub fn new(side: u8, board: &Board, goal: Goal) -> Canonical {
        let n_cells = side * side;
        match goal {
            Goal::BlankFirst => Canonical { side, board: *board, turned: false },
            Goal::BlankLast => {
                let mut turned = [0u8; MAX_CELLS];
                for cell in 0..n_cells {
                    let tile = board[usize::from(cell)];
                    turned[usize::from(n_cells - 1 - cell)] = if tile == 0 { 0 } else { n_cells - tile };
                }
                Canonical { side, board: turned, turned: true }
            }
        }
    }

    /// A solver's move on the canonical board, as a move on the real one.
    pub(crate) fn real_move(&self, dir: Dir) -> Dir {
        if self.turned { dir.opposite() } else { dir }
    }
}

/// Reads an instance file: one board per line (`side²` numbers, row-major,
/// 0 = blank), optionally followed by `# optimal N` (the published optimal
/// length); `goal blank-first` / `goal blank-last` lines set the convention
/// for the lines after them (default blank-last); other `#` lines are
/// comments.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Instance {
    /// 1-based position among the file's instances.
    pub id: u32,
    /// The line it came from.
    pub line: usize,
    pub config: Config,
    /// The published optimal length, when the file gives one.
    pub optimal: Option<u32>,
}

/// Parses an instance file (see [`Instance`]). Errors name the line and,
/// where one number is at fault, its column.
pub fn parse_instances(text: &str) -> Result<Vec<Instance>, MapError> {
    let mut goal = Goal::BlankLast;
    let mut instances = Vec::new();
    for (line_no, line) in content_lines(text) {
        let (board_text, comment) = match line.split_once('#') {
            Some((board, comment)) => (board, Some(comment)),
            None => (line, None),
        };
        let mut words = board_text.split_whitespace();
        if board_text.trim_start().starts_with("goal") {
            words.next();
            goal = match (words.next(), words.next()) {
                (Some("blank-first"), None) => Goal::BlankFirst,
                (Some("blank-last"), None) => Goal::BlankLast,
                _ => return Err(MapError::at(line_no, 0, "expected `goal blank-first` or `goal blank-last`")),
            };
            continue;
        }
        let optimal = match comment.map(str::trim) {
            Some(comment) if comment.starts_with("optimal") => {
                let number = comment["optimal".len()..].trim();
                Some(number.parse::<u32>().map_err(|_| {
                    MapError::at(line_no, 0, format!("expected `# optimal N` with N a number, got {number:?}"))
                })?)
            }
            _ => None,
        };
        let tiles = parse_tiles_at(line_no, board_text)?;
        let side = side_for_cells(tiles.len()).ok_or_else(|| {
            MapError::at(
                line_no,
                0,
                format!("expected 9, 16 or 25 numbers (a 3×3, 4×4 or 5×5 board), got {}", tiles.len()),
            )
        })?;
        let config = Config::fixed(side, &tiles, goal).map_err(|error| MapError::at(line_no, 0, error.to_string()))?;
        instances.push(Instance { id: instances.len() as u32 + 1, line: line_no, config, optimal });
    }
    if instances.is_empty() {
        return Err(MapError::whole("no instance: expected lines of 9, 16 or 25 numbers"));
    }
    Ok(instances)
}

/// Parses space-separated tiles, as given by `--tiles "7 3 0 8 1 4 6 2 5"`.
pub fn parse_tiles(text: &str) -> Result<Vec<u8>, MapError> {
    parse_tiles_at(0, text)
}

fn parse_tiles_at(line_no: usize, text: &str) -> Result<Vec<u8>, MapError> {
    let mut tiles = Vec::new();
    let mut column = 1;
    for word in text.split(|ch: char| ch.is_whitespace() || ch == ',') {
        if !word.is_empty() {
            let tile = word.parse::<u8>().ok().filter(|&tile| usize::from(tile) < MAX_CELLS).ok_or_else(|| {
                MapError::at(line_no, column, format!("expected a tile number 0..24 (0 = blank), got {word:?}"))
            })?;
            tiles.push(tile);
        }
        column += word.chars().count() + 1;
    }
    Ok(tiles)
}

/// A sliding-puzzle game in progress.
#[derive(Clone, Debug)]
pub struct SlideGame {
    config: Arc<Config>,
    board: Board,
    blank: u8,
    tick: u32,
    outcome: Option<Outcome>,
}

impl SlideGame {
    pub fn config(&self) -> &Config {
        &self.config
    }
    pub(crate) fn board(&self) -> &Board {
        &self.board
    }
    /// The occupied part of the board, row-major.
    pub fn tiles(&self) -> &[u8] {
        &self.board[..self.config.n_cells()]
    }
    pub fn is_solved(&self) -> bool {
        self.board == goal_board(self.config.side, self.config.goal)
    }

    fn settle(&mut self) {
        if self.is_solved() {
            self.outcome = Some(Outcome::new(OutcomeKind::Won, format!("solved in {} moves", self.tick)));
        } else if self.tick >= self.config.max_ticks {
            self.outcome = Some(Outcome::new(
                OutcomeKind::Stalled,
                format!("not solved within the episode cap of {} ticks", self.config.max_ticks),
            ));
        }
    }
}

impl Game for SlideGame {
    type Config = Config;
    type Action = Dir;
    const NAME: &'static str = "slide";

    fn new(config: &Config, seed: u64) -> SlideGame {
        let board = match config.start {
            Some(board) => board,
            None => random_board(config.side, config.goal, &mut GameRng::from_seed(seed)),
        };
        let blank = board[..config.n_cells()].iter().position(|&tile| tile == 0).expect("a board has a blank") as u8;
        let mut game = SlideGame { config: Arc::new(config.clone()), board, blank, tick: 0, outcome: None };
        game.settle();
        game
    }

    fn legal_actions(&self, out: &mut Vec<Dir>) {
        if self.outcome.is_none() {
            out.extend(Dir::ALL.into_iter().filter(|&dir| neighbour(self.config.side, self.blank, dir).is_some()));
        }
    }

    fn step(&mut self, dir: Dir) -> Result<(), IllegalAction> {
        if self.outcome.is_some() {
            return Err(IllegalAction { action: dir.to_string(), tick: self.tick, reason: "the game is over" });
        }
        let Some(next) = neighbour(self.config.side, self.blank, dir) else {
            return Err(IllegalAction {
                action: dir.to_string(),
                tick: self.tick,
                reason: "the blank cannot move off the board",
            });
        };
        self.board.swap(usize::from(self.blank), usize::from(next));
        self.blank = next;
        self.tick += 1;
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

    /// Tiles already on their goal cell (the blank not counted).
    fn score(&self) -> i64 {
        let n_cells = self.config.n_cells() as u8;
        (0..n_cells)
            .filter(|&cell| {
                let tile = self.board[usize::from(cell)];
                tile != 0 && self.config.goal.cell_of(tile, n_cells) == cell
            })
            .count() as i64
    }

    fn hash_state(&self, hasher: &mut StateHasher) {
        hasher.u32(self.tick);
        hasher.u8(self.config.side);
        hasher.bytes(self.tiles());
        hasher.u8(match &self.outcome {
            None => 0,
            Some(outcome) => 1 + outcome.kind as u8,
        });
    }
}

impl Wire for SlideGame {
    fn action_code(dir: Dir) -> u32 {
        u32::from(dir.code())
    }

    fn action_from_code(code: u32) -> Option<Dir> {
        Dir::from_code(code)
    }

    /// Four directions of the blank: codes 0 to 3.
    fn action_code_bound(_config: &Config) -> u32 {
        Dir::ALL.len() as u32
    }

    fn spec(config: &Config) -> GameSpec {
        GameSpec::Slide(config.clone())
    }
}

impl Show for SlideGame {
    fn render(&self) -> String {
        let status = match &self.outcome {
            None => "running".to_string(),
            Some(outcome) => outcome.to_string(),
        };
        let mut out = format!("tick {}  {} tiles home  {status}\n", self.tick, self.score());
        let side = usize::from(self.config.side);
        for row in self.tiles().chunks(side) {
            let cells: Vec<String> =
                row.iter().map(|&tile| if tile == 0 { " _".to_string() } else { format!("{tile:>2}") }).collect();
            out.push_str(&cells.join(" "));
            out.push('\n');
        }
        out
    }

    type Snapshot = picture::SlideSnapshot;

    fn snapshot(&self) -> picture::SlideSnapshot {
        self.snapshot_state()
    }

    fn draw(&self) -> crate::game::picture::Picture {
        self.draw_board()
    }

    fn describe(config: &Config) -> String {
        config.describe_rules()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const WRITE_UP_PRINTED: [u8; 9] = [7, 3, 0, 8, 1, 4, 6, 5, 2];
    const WRITE_UP_INFERRED: [u8; 9] = [7, 3, 0, 8, 1, 4, 6, 2, 5];

    #[test]
    fn the_write_ups_printed_start_is_rejected_as_unsolvable() {
        let error = Config::fixed(3, &WRITE_UP_PRINTED, Goal::BlankLast).unwrap_err();
        assert_eq!(error, BoardError::Unsolvable { goal: "blank-last" });
        assert!(error.to_string().starts_with("unsolvable: "), "{error}");
        assert!(Config::fixed(3, &WRITE_UP_INFERRED, Goal::BlankLast).is_ok());
    }

    #[test]
    fn the_write_ups_answer_solves_the_inferred_start() {
        // The post's answer in the blank's own directions (instance.json).
        let moves: Vec<Dir> = "LDDLUURDRDLLURRD".chars().map(|ch| Dir::from_letter(ch).unwrap()).collect();
        let config = Config::fixed(3, &WRITE_UP_INFERRED, Goal::BlankLast).unwrap();
        let mut game = SlideGame::new(&config, 0);
        for (index, &dir) in moves.iter().enumerate() {
            assert_eq!(game.status(), Status::Running, "solved early at move {index}");
            game.step(dir).unwrap();
        }
        assert!(matches!(game.status(), Status::Over(Outcome { kind: OutcomeKind::Won, .. })));
        assert_eq!(game.tick(), 16);
        assert!(game.step(Dir::Up).is_err(), "no move after the end");
    }

    #[test]
    fn parity_matches_reachability_on_small_scrambles() {
        // Every board reached by moves is solvable; swapping two tiles of it
        // never is. Both goals, all three sizes.
        let mut rng = GameRng::from_seed(5);
        for side in MIN_SIDE..=MAX_SIDE {
            for goal in [Goal::BlankFirst, Goal::BlankLast] {
                for _ in 0..50 {
                    let mut board = goal_board(side, goal);
                    let mut blank = goal.cell_of(0, side * side);
                    for _ in 0..rng.below(60) {
                        let dir = Dir::ALL[rng.below(4) as usize];
                        if let Some(next) = neighbour(side, blank, dir) {
                            board.swap(usize::from(blank), usize::from(next));
                            blank = next;
                        }
                    }
                    assert!(is_solvable(side, &board, goal));
                    let n = usize::from(side * side);
                    let tiles: Vec<usize> = (0..n).filter(|&cell| board[cell] != 0).collect();
                    let mut swapped = board;
                    swapped.swap(tiles[0], tiles[n - 2]);
                    assert!(!is_solvable(side, &swapped, goal));
                }
            }
        }
    }

    #[test]
    fn random_boards_are_solvable_permutations_and_follow_the_seed() {
        for side in MIN_SIDE..=MAX_SIDE {
            let config =
                Config::try_from(SlideSetup { side, start: Start::Random, goal: Goal::BlankFirst, max_ticks: None })
                    .unwrap();
            let a = SlideGame::new(&config, 11);
            assert_eq!(a.tiles(), SlideGame::new(&config, 11).tiles());
            assert_ne!(a.tiles(), SlideGame::new(&config, 12).tiles());
            let mut sorted = a.tiles().to_vec();
            sorted.sort_unstable();
            assert_eq!(sorted, (0..side * side).collect::<Vec<_>>());
            assert!(is_solvable(side, a.board(), Goal::BlankFirst));
        }
    }

    #[test]
    fn canonical_view_turns_blank_last_into_blank_first() {
        let config = Config::fixed(3, &WRITE_UP_INFERRED, Goal::BlankLast).unwrap();
        let canonical = Canonical::new(3, config.start().unwrap(), Goal::BlankLast);
        assert!(is_solvable(3, &canonical.board, Goal::BlankFirst));
        assert_eq!(
            Canonical::new(3, &goal_board(3, Goal::BlankLast), Goal::BlankLast).board,
            goal_board(3, Goal::BlankFirst)
        );
        // The post's answer, turned, solves the canonical board.
        let moves: Vec<Dir> = "LDDLUURDRDLLURRD".chars().map(|ch| Dir::from_letter(ch).unwrap().opposite()).collect();
        assert_eq!(apply_moves(3, &canonical.board, &moves), Some(goal_board(3, Goal::BlankFirst)));
    }

    #[test]
    fn instance_files_parse_goal_lines_and_optimal_lengths() {
        let text = "# a comment\n1 2 3 4 5 6 7 0 8  # optimal 1\ngoal blank-first\n1 0 2 3 4 5 6 7 8\n";
        let instances = parse_instances(text).unwrap();
        assert_eq!(instances.len(), 2);
        assert_eq!((instances[0].id, instances[0].line, instances[0].optimal), (1, 2, Some(1)));
        assert_eq!(instances[0].config.goal(), Goal::BlankLast);
        assert_eq!((instances[1].id, instances[1].line, instances[1].optimal), (2, 4, None));
        assert_eq!(instances[1].config.goal(), Goal::BlankFirst);
    }

    #[track_caller]
    fn check_bad(text: &str, line: usize, column: usize, message: &str) {
        let error = parse_instances(text).unwrap_err();
        assert_eq!((error.line, error.column), (line, column), "{error}");
        assert!(error.message.contains(message), "{:?} lacks {message:?}", error.message);
    }

    #[test]
    fn bad_instance_files_name_the_line_and_the_problem() {
        check_bad("1 2 3\n", 1, 0, "expected 9, 16 or 25 numbers");
        check_bad("\n1 2 3 4 5 6 7 8 8\n", 2, 0, "tile 8 appears twice");
        check_bad("1 2 3 4 5 6 7 8 9\n", 1, 0, "tile 9 is out of range");
        check_bad("1 2 x 4 5 6 7 8 0\n", 1, 5, "got \"x\"");
        check_bad("7 3 0 8 1 4 6 5 2\n", 1, 0, "unsolvable");
        check_bad("goal sideways\n", 1, 0, "expected `goal blank-first` or `goal blank-last`");
        check_bad("1 2 3 4 5 6 7 8 0 # optimal many\n", 1, 0, "expected `# optimal N`");
        assert_eq!(parse_instances("# nothing\n").unwrap_err().line, 0);
    }

    #[test]
    fn hostile_setups_do_not_validate() {
        let setup = |side, tiles: Vec<u8>| SlideSetup {
            side,
            start: Start::Tiles(tiles),
            goal: Goal::BlankLast,
            max_ticks: None,
        };
        assert!(Config::try_from(setup(2, vec![1, 2, 3, 0])).is_err());
        assert!(Config::try_from(setup(6, (0..36).collect())).is_err());
        assert!(Config::try_from(setup(3, vec![0; 9])).is_err());
        let ok = Config::try_from(setup(3, vec![1, 2, 3, 4, 5, 6, 7, 8, 0])).unwrap();
        let json = serde_json::to_string(&ok).unwrap();
        assert_eq!(serde_json::from_str::<Config>(&json).unwrap(), ok);
        let bad = json.replace("[1,2,3,4,5,6,7,8,0]", "[1,2,3,4,5,6,8,7,0]");
        assert!(serde_json::from_str::<Config>(&bad).is_err());
    }

    #[test]
    fn moves_off_the_board_are_illegal_and_leave_the_state_alone() {
        let config = Config::fixed(3, &[0, 1, 2, 3, 4, 5, 6, 7, 8], Goal::BlankLast).unwrap();
        let mut game = SlideGame::new(&config, 0);
        let before = game.state_hash();
        assert!(game.step(Dir::Up).is_err());
        assert!(game.step(Dir::Left).is_err());
        assert_eq!(game.state_hash(), before);
        let mut legal = Vec::new();
        game.legal_actions(&mut legal);
        assert_eq!(legal, [Dir::Right, Dir::Down]);
        game.step(Dir::Right).unwrap();
        assert_eq!(game.tiles(), [1, 0, 2, 3, 4, 5, 6, 7, 8]);
        assert_ne!(game.state_hash(), before);
    }

    #[test]
    fn the_episode_cap_stalls_the_game() {
        let config =
            Config::fixed(3, &[0, 1, 2, 3, 4, 5, 6, 7, 8], Goal::BlankLast).unwrap().with_max_ticks(2).unwrap();
        let mut game = SlideGame::new(&config, 0);
        game.step(Dir::Right).unwrap();
        game.step(Dir::Left).unwrap();
        assert!(matches!(game.status(), Status::Over(Outcome { kind: OutcomeKind::Stalled, .. })));
    }
}
