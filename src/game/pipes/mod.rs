//! Pipes (Simon Tatham's "Net"): the rules, the tile masks, the puzzle file
//! format, the validated `Config`, and the solved check.
//!
//! A W×H grid of pipe tiles, each a 4-bit connection mask (Up=1, Right=2,
//! Down=4, Left=8). One action rotates one tile a quarter turn clockwise,
//! anticlockwise, or a half turn. The puzzle is solved when every tile with
//! a pipe is joined to the source in one network with no open end, no pipe
//! into the border (non-wrapping boards) and no loop. Empty tiles (mask 0)
//! are accepted and take no part. The game draws no random numbers: the
//! puzzle is fixed by the file, so the seed is ignored.
//!
//! The planners live beside the rules because they know them: `solve`
//! (constraint propagation and backtracking), `dfs` and `astar` (searches
//! from the write-up, ours or its own, on boards of at most 64 tiles), and
//! the generator.

pub mod astar;
pub mod dfs;
pub mod generate;
pub mod picture;
pub mod small;
pub mod solve;

use std::fmt;
use std::sync::Arc;

use serde::{Deserialize, Serialize};

use crate::game::{Game, GameSpec, IllegalAction, Outcome, OutcomeKind, Show, StateHasher, Status, Wire};
use crate::map::{MapError, content_lines};

/// Largest board side we accept: 500×500 tiles keep every tile index and
/// action code far inside a `u32`.
pub(crate) const MAX_SIDE: u16 = 500;

/// The connection bit of each direction, indexed by direction (0 up, 1 right,
/// 2 down, 3 left): the order of the bits in a mask.
pub(crate) const DIR_BITS: [u8; 4] = [1, 2, 4, 8];

/// Direction names for messages, in direction order.
pub(crate) const DIR_NAMES: [&str; 4] = ["up", "right", "down", "left"];

/// A mask turned a quarter turn clockwise: up becomes right, and so on.
pub(crate) const fn rotate_cw(mask: u8) -> u8 {
    ((mask << 1) | (mask >> 3)) & 0xF
}

/// A mask turned `quarter_turns` quarter turns clockwise.
pub(crate) const fn rotate_by(mask: u8, quarter_turns: u8) -> u8 {
    let mut mask = mask & 0xF;
    let mut left = quarter_turns % 4;
    while left > 0 {
        mask = rotate_cw(mask);
        left -= 1;
    }
    mask
}

/// The direction opposite `dir` (direction indices 0..4).
pub(crate) const fn opposite(dir: usize) -> usize {
    (dir + 2) % 4
}

/// A quarter turn clockwise, one anticlockwise, or a half turn.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Turn {
    Clockwise = 0,
    Anticlockwise = 1,
    Half = 2,
}

impl Turn {
    /// The same turn as a number of clockwise quarter turns.
    pub(crate) const fn quarter_turns(self) -> u8 {
        match self {
            Turn::Clockwise => 1,
            Turn::Half => 2,
            Turn::Anticlockwise => 3,
        }
    }

    /// The one turn that makes `quarter_turns` clockwise quarter turns, or
    /// `None` for a whole number of turns (nothing to do).
    pub(crate) const fn from_quarter_turns(quarter_turns: u8) -> Option<Turn> {
        match quarter_turns % 4 {
            1 => Some(Turn::Clockwise),
            2 => Some(Turn::Half),
            3 => Some(Turn::Anticlockwise),
            _ => None,
        }
    }

    fn from_code(code: u32) -> Option<Turn> {
        match code {
            0 => Some(Turn::Clockwise),
            1 => Some(Turn::Anticlockwise),
            2 => Some(Turn::Half),
            _ => None,
        }
    }

    fn name(self) -> &'static str {
        match self {
            Turn::Clockwise => "cw",
            Turn::Anticlockwise => "ccw",
            Turn::Half => "half",
        }
    }
}

/// The action of a Pipes tick: turn one tile (row-major index).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Rotate {
    pub tile: u32,
    pub turn: Turn,
}

impl fmt::Display for Rotate {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "tile {} {}", self.tile, self.turn.name())
    }
}

/// The board's shape and topology: the neighbour relation every part of the
/// game (rules, solver, generator, searches) shares.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Grid {
    pub width: u16,
    pub height: u16,
    /// Whether the board is a torus: the right edge joins the left one, the
    /// bottom the top.
    pub wrap: bool,
}

impl Grid {
    pub fn n_tiles(&self) -> usize {
        usize::from(self.width) * usize::from(self.height)
    }

    /// The tile one step from `tile` in direction `dir` (0 up, 1 right,
    /// 2 down, 3 left), or `None` past the border of a non-wrapping board.
    /// On a wrapping board one tile wide, a tile is its own left and right
    /// neighbour.
    pub(crate) fn neighbour(&self, tile: usize, dir: usize) -> Option<usize> {
        let width = usize::from(self.width);
        let height = usize::from(self.height);
        let (col, row) = (tile % width, tile / width);
        let (col, row) = match dir {
            0 if row > 0 => (col, row - 1),
            0 if self.wrap => (col, height - 1),
            1 if col + 1 < width => (col + 1, row),
            1 if self.wrap => (0, row),
            2 if row + 1 < height => (col, row + 1),
            2 if self.wrap => (col, 0),
            3 if col > 0 => (col - 1, row),
            3 if self.wrap => (width - 1, row),
            _ => return None,
        };
        Some(row * width + col)
    }
}

/// Why a board of tiles is not solved: the first flaw found, in the order
/// the variants are listed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Flaw {
    /// A pipe points off a non-wrapping board.
    IntoWall { tile: usize, dir: usize },
    /// A pipe points at a neighbour with no pipe back.
    OpenEnd { tile: usize, dir: usize },
    /// A tile with pipes that the source's network does not reach.
    Dry { tile: usize },
    /// Every end is joined and every tile is fed, but the network has a loop.
    Loop,
}

impl fmt::Display for Flaw {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            Flaw::IntoWall { tile, dir } => write!(f, "tile {tile} points {} into the border", DIR_NAMES[dir]),
            Flaw::OpenEnd { tile, dir } => write!(f, "tile {tile} has an open end pointing {}", DIR_NAMES[dir]),
            Flaw::Dry { tile } => write!(f, "tile {tile} is not connected to the source"),
            Flaw::Loop => f.write_str("the network has a loop"),
        }
    }
}

/// Checks `tiles` on `grid` with the source at `source`: `Ok` when solved.
/// Allocates a visited list; the game calls it only once every end is
/// joined, which is rare, so that is cheap.
pub(crate) fn find_flaw(grid: Grid, source: usize, tiles: &[u8]) -> Result<(), Flaw> {
    let mut arm_ends = 0usize;
    let mut n_with_pipes = 0usize;
    for (tile, &mask) in tiles.iter().enumerate() {
        if mask != 0 {
            n_with_pipes += 1;
        }
        for dir in 0..4 {
            if mask & DIR_BITS[dir] == 0 {
                continue;
            }
            arm_ends += 1;
            match grid.neighbour(tile, dir) {
                None => return Err(Flaw::IntoWall { tile, dir }),
                Some(other) if tiles[other] & DIR_BITS[opposite(dir)] == 0 => {
                    return Err(Flaw::OpenEnd { tile, dir });
                }
                Some(_) => {}
            }
        }
    }
    // Every end is matched, so the joins are exactly arm_ends / 2 edges.
    let mut seen = vec![false; tiles.len()];
    let mut stack = vec![source];
    seen[source] = true;
    let mut reached = 0usize;
    while let Some(tile) = stack.pop() {
        reached += 1;
        for (dir, &bit) in DIR_BITS.iter().enumerate() {
            if tiles[tile] & bit != 0 {
                let other = grid.neighbour(tile, dir).expect("checked above");
                if !seen[other] {
                    seen[other] = true;
                    stack.push(other);
                }
            }
        }
    }
    if let Some(tile) = (0..tiles.len()).find(|&tile| tiles[tile] != 0 && !seen[tile]) {
        return Err(Flaw::Dry { tile });
    }
    // A source without pipes on a board with other pipes is caught as Dry
    // above; here the network is connected, so it is a tree iff it has one
    // edge fewer than it has tiles.
    if n_with_pipes > 0 && arm_ends / 2 != reached - 1 {
        return Err(Flaw::Loop);
    }
    Ok(())
}

/// A puzzle as a file, the generator or a replay header describes it,
/// unvalidated. [`Config::try_from`] validates it.
///
/// Part of the replay format (see `replay::format`): stored field by field in
/// this order; changing the fields needs a format version bump.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct PipesSetup {
    pub width: u16,
    pub height: u16,
    pub wrap: bool,
    pub source_col: u16,
    pub source_row: u16,
    /// Row-major connection masks, `width * height` of them.
    pub tiles: Vec<u8>,
}

/// A parsed puzzle file: the puzzle, and the reference solution if the file
/// has one. The solution is for tests only; it never reaches a `Config`, so
/// no planner can see it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Puzzle {
    pub setup: PipesSetup,
    pub solution: Option<Vec<u8>>,
}

const HEADER_HELP: &str = "expected `WIDTH HEIGHT wrap|nowrap SOURCE_COL SOURCE_ROW`, e.g. `5 5 nowrap 2 2`";

impl Puzzle {
    /// Parses the plain-text format: a header line `W H wrap|nowrap SX SY`,
    /// `H` lines of `W` hex digits, and optionally `H` more lines holding a
    /// reference solution. `#` starts a comment (a whole line, or the rest
    /// of the header line); blank lines are skipped.
    pub fn parse(text: &str) -> Result<Puzzle, MapError> {
        let mut lines = content_lines(text);
        let Some((header_line, header)) = lines.next() else {
            return Err(MapError::whole(format!("empty puzzle: {HEADER_HELP}")));
        };
        let header = header.split('#').next().unwrap_or_default();
        let words: Vec<&str> = header.split_whitespace().collect();
        let [width, height, topology, source_col, source_row] = words[..] else {
            return Err(MapError::at(header_line, 0, HEADER_HELP));
        };
        let number = |word: &str, what: &str| {
            if word.is_empty() || !word.bytes().all(|byte| byte.is_ascii_digit()) {
                return Err(MapError::at(header_line, 0, format!("{what} {word:?} is not a number: {HEADER_HELP}")));
            }
            word.parse::<u16>().map_err(|_| {
                MapError::at(
                    header_line,
                    0,
                    format!("{what} {word} is too large: a board's sides are at most {MAX_SIDE}"),
                )
            })
        };
        let (width, height) = (number(width, "width")?, number(height, "height")?);
        if width == 0 || height == 0 || width > MAX_SIDE || height > MAX_SIDE {
            return Err(MapError::at(
                header_line,
                0,
                format!("the board is {width}×{height}; each side must be 1..={MAX_SIDE}"),
            ));
        }
        let wrap = match topology {
            "wrap" => true,
            "nowrap" => false,
            other => {
                return Err(MapError::at(header_line, 0, format!("topology {other:?} is neither wrap nor nowrap")));
            }
        };
        let (source_col, source_row) = (number(source_col, "source column")?, number(source_row, "source row")?);
        if source_col >= width || source_row >= height {
            return Err(MapError::at(
                header_line,
                0,
                format!("source ({source_col}, {source_row}) is off the {width}×{height} board"),
            ));
        }
        let mut grids: Vec<Vec<u8>> = Vec::new();
        let mut current = Vec::with_capacity(usize::from(width) * usize::from(height));
        let mut last_line = header_line;
        // The line of every grid row, so a bad solution tile can be located.
        let mut row_lines = Vec::with_capacity(2 * usize::from(height));
        for (line_no, line) in lines {
            last_line = line_no;
            row_lines.push(line_no);
            if grids.len() == 2 {
                return Err(MapError::at(
                    line_no,
                    1,
                    "unexpected line after the solution grid (a file holds a puzzle and at most one solution)",
                ));
            }
            let digits = line.split('#').next().unwrap_or_default().trim_end();
            let mut n_digits = 0usize;
            for (index, ch) in digits.chars().enumerate() {
                let Some(mask) = ch.to_digit(16) else {
                    return Err(MapError::at(
                        line_no,
                        index + 1,
                        format!("unexpected {ch:?}: a tile is one hex digit 0-9 or a-f (Up=1 Right=2 Down=4 Left=8)"),
                    ));
                };
                n_digits += 1;
                current.push(mask as u8);
            }
            if n_digits != usize::from(width) {
                return Err(MapError::at(
                    line_no,
                    n_digits.min(usize::from(width)) + 1,
                    format!("row has {n_digits} tiles, expected {width} (the header's width)"),
                ));
            }
            if current.len() == usize::from(width) * usize::from(height) {
                grids.push(std::mem::take(&mut current));
            }
        }
        if !current.is_empty() || grids.is_empty() {
            let which = if grids.is_empty() { "puzzle" } else { "solution" };
            let rows = current.len() / usize::from(width);
            return Err(MapError::at(
                last_line + 1,
                0,
                format!("the {which} grid ends after {rows} rows, expected {height} (the header's height)"),
            ));
        }
        let mut grids = grids.into_iter();
        let tiles = grids.next().expect("checked above");
        let solution = grids.next();
        let setup = PipesSetup { width, height, wrap, source_col, source_row, tiles };
        if let Some(solution) = &solution {
            if let Some(tile) = (0..solution.len()).find(|&tile| !is_rotation_of(solution[tile], setup.tiles[tile])) {
                let width = usize::from(width);
                let line_no = row_lines[usize::from(height) + tile / width];
                return Err(MapError::at(
                    line_no,
                    tile % width + 1,
                    format!(
                        "solution tile {:x} is not a rotation of the puzzle's tile {:x}",
                        solution[tile], setup.tiles[tile]
                    ),
                ));
            }
        }
        Ok(Puzzle { setup, solution })
    }
}

/// Whether `candidate` is `mask` turned some number of quarter turns.
pub(crate) fn is_rotation_of(candidate: u8, mask: u8) -> bool {
    (0..4).any(|turns| rotate_by(mask, turns) == candidate)
}

impl PipesSetup {
    /// The puzzle in the file format: header, grid, and `solution` after a
    /// blank line if given. `comment` lines come first, each after `# `.
    pub fn to_text(&self, comments: &[String], solution: Option<&[u8]>) -> String {
        let mut out = String::new();
        for comment in comments {
            out.push_str("# ");
            out.push_str(comment);
            out.push('\n');
        }
        let topology = if self.wrap { "wrap" } else { "nowrap" };
        out.push_str(&format!("{} {} {topology} {} {}\n", self.width, self.height, self.source_col, self.source_row));
        let push_grid = |out: &mut String, grid: &[u8]| {
            for row in grid.chunks(usize::from(self.width)) {
                for &mask in row {
                    out.push(char::from_digit(u32::from(mask), 16).unwrap_or('?'));
                }
                out.push('\n');
            }
        };
        push_grid(&mut out, &self.tiles);
        if let Some(solution) = solution {
            out.push('\n');
            push_grid(&mut out, solution);
        }
        out
    }

    pub fn grid(&self) -> Grid {
        Grid { width: self.width, height: self.height, wrap: self.wrap }
    }
}

/// The longest search path the episode cap makes room for: far more than
/// the write-up's searches expand within their default budget of 2,000,000
/// states, and small enough that a game on a large board still ends.
pub const MAX_SEARCH_PATH: u32 = 1 << 24;

/// A validated puzzle. Only [`Config::try_from`] builds one, so a `Config`
/// always describes a playable game (though not always a solvable one).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(try_from = "PipesSetup", into = "PipesSetup")]
pub struct Config {
    grid: Grid,
    source: u32,
    tiles: Vec<u8>,
    /// The episode cap: a game still unsolved after four moves per tile, or
    /// after as many moves as the board has orientations less one if that
    /// is more, is stalled. One move per tile is enough to solve; the second
    /// bound lets the write-up's searches play their whole search path,
    /// which never visits a state twice. That bound is itself capped at
    /// [`MAX_SEARCH_PATH`] moves, so large boards keep a finite episode.
    max_ticks: u32,
}

impl TryFrom<PipesSetup> for Config {
    type Error = MapError;

    fn try_from(setup: PipesSetup) -> Result<Config, MapError> {
        let PipesSetup { width, height, wrap, source_col, source_row, tiles } = setup;
        if width == 0 || height == 0 || width > MAX_SIDE || height > MAX_SIDE {
            return Err(MapError::whole(format!("board is {width}×{height}; each side must be 1..={MAX_SIDE}")));
        }
        let grid = Grid { width, height, wrap };
        if tiles.len() != grid.n_tiles() {
            return Err(MapError::whole(format!("{} tiles for a {width}×{height} board", tiles.len())));
        }
        if let Some(tile) = tiles.iter().position(|&mask| mask > 0xF) {
            return Err(MapError::whole(format!("tile {tile} has mask {}; masks are 0..=15", tiles[tile])));
        }
        if source_col >= width || source_row >= height {
            return Err(MapError::whole(format!(
                "source ({source_col}, {source_row}) is off the {width}×{height} board"
            )));
        }
        let source = u32::from(source_row) * u32::from(width) + u32::from(source_col);
        let orientations = tiles.iter().fold(1u64, |product, &mask| {
            let period = (1..=4).find(|&turns| rotate_by(mask, turns) == mask).unwrap_or(4);
            product.saturating_mul(u64::from(period))
        });
        let search_path = (orientations - 1).min(u64::from(MAX_SEARCH_PATH)) as u32;
        let max_ticks = (4 * grid.n_tiles() as u32).max(search_path);
        Ok(Config { grid, source, tiles, max_ticks })
    }
}

impl From<Config> for PipesSetup {
    fn from(config: Config) -> PipesSetup {
        let width = u32::from(config.grid.width);
        PipesSetup {
            width: config.grid.width,
            height: config.grid.height,
            wrap: config.grid.wrap,
            source_col: (config.source % width) as u16,
            source_row: (config.source / width) as u16,
            tiles: config.tiles,
        }
    }
}

impl Config {
    pub fn grid(&self) -> Grid {
        self.grid
    }
    pub fn n_tiles(&self) -> usize {
        self.grid.n_tiles()
    }
    /// The source tile, row-major.
    pub fn source(&self) -> usize {
        self.source as usize
    }
    /// The tiles as the puzzle gives them (scrambled).
    pub fn tiles(&self) -> &[u8] {
        &self.tiles
    }
    #[cfg(test)]
    pub(crate) fn max_ticks(&self) -> u32 {
        self.max_ticks
    }
    pub(crate) fn describe_rules(&self) -> String {
        let Grid { width, height, wrap } = self.grid;
        let topology = if wrap { "wrapping" } else { "non-wrapping" };
        let source = self.source();
        format!(
            "{width}x{height} {topology} Net puzzle, source at ({}, {}), unsolved after {} moves is stalled",
            source % usize::from(width),
            source / usize::from(width),
            self.max_ticks
        )
    }
}

/// Unicode box-drawing character for each mask, for `render`.
const BOX_CHARS: [char; 16] = ['·', '╵', '╶', '└', '╷', '│', '┌', '├', '╴', '┘', '─', '┴', '┐', '┤', '┬', '┼'];

/// A Pipes game in progress: the tiles as currently turned.
#[derive(Clone, Debug)]
pub struct PipesGame {
    config: Arc<Config>,
    tiles: Vec<u8>,
    tick: u32,
    /// Pipe ends not met by a pipe from the neighbour (border ends included):
    /// kept up to date per move so that the full solved check runs only
    /// when this is zero.
    unmatched_ends: u32,
    outcome: Option<Outcome>,
}

impl PipesGame {
    pub fn config(&self) -> &Config {
        &self.config
    }
    /// The tiles as currently turned.
    pub fn tiles(&self) -> &[u8] {
        &self.tiles
    }

    /// Unmatched pipe ends of `tile` (0..=4).
    fn unmatched_ends_of(&self, tile: usize) -> u32 {
        let grid = self.config.grid;
        let mask = self.tiles[tile];
        (0..4)
            .filter(|&dir| {
                mask & DIR_BITS[dir] != 0
                    && grid.neighbour(tile, dir).is_none_or(|other| self.tiles[other] & DIR_BITS[opposite(dir)] == 0)
            })
            .count() as u32
    }

    /// Unmatched ends of `tile` and of its neighbours whose matching depends
    /// on it (each neighbour counted once, even on tiny wrapping boards).
    fn unmatched_ends_around(&self, tile: usize) -> u32 {
        let grid = self.config.grid;
        let mut around = [tile; 5];
        let mut n = 1;
        for dir in 0..4 {
            if let Some(other) = grid.neighbour(tile, dir) {
                if !around[..n].contains(&other) {
                    around[n] = other;
                    n += 1;
                }
            }
        }
        around[..n].iter().map(|&tile| self.unmatched_ends_of(tile)).sum()
    }

    fn update_outcome(&mut self) {
        if self.unmatched_ends == 0 && find_flaw(self.config.grid, self.config.source(), &self.tiles).is_ok() {
            self.outcome = Some(Outcome::new(OutcomeKind::Won, format!("solved in {} moves", self.tick)));
        } else if self.tick >= self.config.max_ticks {
            self.outcome =
                Some(Outcome::new(OutcomeKind::Stalled, format!("not solved after {} moves", self.config.max_ticks)));
        }
    }
}

impl Game for PipesGame {
    type Config = Config;
    type Action = Rotate;
    const NAME: &'static str = "pipes";

    /// The seed is ignored: a puzzle has no randomness once it is laid out.
    fn new(config: &Config, _seed: u64) -> PipesGame {
        let mut game = PipesGame {
            config: Arc::new(config.clone()),
            tiles: config.tiles.clone(),
            tick: 0,
            unmatched_ends: 0,
            outcome: None,
        };
        game.unmatched_ends = (0..game.tiles.len()).map(|tile| game.unmatched_ends_of(tile)).sum();
        game.update_outcome();
        game
    }

    fn legal_actions(&self, out: &mut Vec<Rotate>) {
        if self.outcome.is_some() {
            return;
        }
        for tile in 0..self.tiles.len() as u32 {
            for turn in [Turn::Clockwise, Turn::Anticlockwise, Turn::Half] {
                out.push(Rotate { tile, turn });
            }
        }
    }

    fn step(&mut self, action: Rotate) -> Result<(), IllegalAction> {
        let illegal = |reason| Err(IllegalAction { action: action.to_string(), tick: self.tick, reason });
        if self.outcome.is_some() {
            return illegal("the game is over");
        }
        let tile = action.tile as usize;
        if tile >= self.tiles.len() {
            return illegal("no such tile");
        }
        let before = self.unmatched_ends_around(tile);
        self.tiles[tile] = rotate_by(self.tiles[tile], action.turn.quarter_turns());
        let after = self.unmatched_ends_around(tile);
        self.unmatched_ends = self.unmatched_ends + after - before;
        self.tick += 1;
        self.update_outcome();
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

    /// Pipe ends joined to a neighbour's: rises towards the total as the
    /// puzzle comes together.
    fn score(&self) -> i64 {
        let total_ends: u32 = self.tiles.iter().map(|mask| mask.count_ones()).sum();
        i64::from(total_ends) - i64::from(self.unmatched_ends)
    }

    fn hash_state(&self, hasher: &mut StateHasher) {
        hasher.u32(self.tick);
        hasher.u32(self.tiles.len() as u32);
        hasher.bytes(&self.tiles);
        hasher.u8(match &self.outcome {
            None => 0,
            Some(outcome) => 1 + outcome.kind as u8,
        });
    }
}

impl Wire for PipesGame {
    fn action_code(action: Rotate) -> u32 {
        action.tile * 3 + action.turn as u32
    }

    fn action_from_code(code: u32) -> Option<Rotate> {
        Some(Rotate { tile: code / 3, turn: Turn::from_code(code % 3)? })
    }

    /// Three turns of each tile: `tile * 3 + turn`.
    fn action_code_bound(config: &Config) -> u32 {
        (config.grid().n_tiles() as u32).saturating_mul(3)
    }

    fn spec(config: &Config) -> GameSpec {
        GameSpec::Pipes(config.clone())
    }
}

impl Show for PipesGame {
    fn render(&self) -> String {
        let grid = self.config.grid;
        let status = match &self.outcome {
            None => "running".to_string(),
            Some(outcome) => outcome.to_string(),
        };
        let source = self.config.source();
        let width = usize::from(grid.width);
        let mut out = format!(
            "tick {}  unmatched ends {}  source ({}, {})  {status}\n",
            self.tick,
            self.unmatched_ends,
            source % width,
            source / width
        );
        for row in self.tiles.chunks(width) {
            out.extend(row.iter().map(|&mask| BOX_CHARS[usize::from(mask)]));
            out.push('\n');
        }
        out
    }

    type Snapshot = picture::PipesSnapshot;

    fn snapshot(&self) -> picture::PipesSnapshot {
        self.snapshot_state()
    }

    fn draw(&self) -> crate::game::picture::Picture {
        self.draw_board()
    }

    fn describe(config: &Config) -> String {
        config.describe_rules()
    }
}

/// The moves that turn `from` into `to`, tile by tile (at most one per
/// tile, since turns of different tiles commute).
/// `to[i]` must be a rotation of `from[i]`.
pub(crate) fn moves_between(from: &[u8], to: &[u8]) -> Vec<Rotate> {
    let mut moves = Vec::new();
    for (tile, (&start, &goal)) in from.iter().zip(to).enumerate() {
        let quarter_turns = (0..4).find(|&turns| rotate_by(start, turns) == goal).unwrap_or(0);
        if let Some(turn) = Turn::from_quarter_turns(quarter_turns) {
            moves.push(Rotate { tile: tile as u32, turn });
        }
    }
    moves
}

#[cfg(test)]
mod tests {
    use super::*;

    fn config(text: &str) -> Config {
        Config::try_from(Puzzle::parse(text).expect("parses").setup).expect("validates")
    }

    #[test]
    fn rotation_follows_the_formula_and_cycles() {
        // Up -> right -> down -> left -> up.
        assert_eq!(rotate_cw(1), 2);
        assert_eq!(rotate_cw(2), 4);
        assert_eq!(rotate_cw(4), 8);
        assert_eq!(rotate_cw(8), 1);
        // A vertical straight becomes horizontal; an up-right bend right-down.
        assert_eq!(rotate_cw(0x5), 0xa);
        assert_eq!(rotate_cw(0x3), 0x6);
        assert_eq!(rotate_cw(0x7), 0xe);
        for mask in 0..16u8 {
            assert_eq!(rotate_by(mask, 4), mask);
            assert_eq!(rotate_by(mask, 1), ((mask << 1) | (mask >> 3)) & 0xF);
            assert_eq!(mask.count_ones(), rotate_cw(mask).count_ones());
            for turn in [Turn::Clockwise, Turn::Anticlockwise, Turn::Half] {
                let code = PipesGame::action_code(Rotate { tile: 7, turn });
                assert_eq!(PipesGame::action_from_code(code), Some(Rotate { tile: 7, turn }));
            }
            // Clockwise then anticlockwise is no turn at all.
            assert_eq!(rotate_by(rotate_by(mask, Turn::Clockwise.quarter_turns()), 3), mask);
        }
        assert_eq!(PipesGame::action_from_code(3 * 5 + 3), Some(Rotate { tile: 6, turn: Turn::Clockwise }));
    }

    #[test]
    fn solved_on_both_topologies() {
        // A 3×1 row: right dead end, horizontal straight, left dead end.
        assert_eq!(find_flaw(Grid { width: 3, height: 1, wrap: false }, 0, &[2, 0xa, 8]), Ok(()));
        // Wrapping: two horizontal bends meeting across the seam.
        let wrap = Grid { width: 2, height: 1, wrap: true };
        assert_eq!(find_flaw(wrap, 0, &[8, 2]), Ok(()));
        // The same tiles on a flat board point into the border.
        let flat = Grid { width: 2, height: 1, wrap: false };
        assert_eq!(find_flaw(flat, 0, &[8, 2]), Err(Flaw::IntoWall { tile: 0, dir: 3 }));
        // On the torus, two straights across a 2-wide seam make a loop.
        assert_eq!(find_flaw(wrap, 0, &[0xa, 0xa]), Err(Flaw::Loop));
        // On a 1-wide torus a horizontal straight meets itself: a loop.
        assert_eq!(find_flaw(Grid { width: 1, height: 1, wrap: true }, 0, &[0xa]), Err(Flaw::Loop));
    }

    #[test]
    fn loops_open_ends_walls_and_dry_tiles_are_rejected() {
        let grid = Grid { width: 2, height: 2, wrap: false };
        // A 2×2 ring: every end joined, but a loop.
        assert_eq!(find_flaw(grid, 0, &[6, 0xc, 3, 9]), Err(Flaw::Loop));
        // Break one joint: an open end.
        assert_eq!(find_flaw(grid, 0, &[6, 0xc, 3, 1]), Err(Flaw::OpenEnd { tile: 2, dir: 1 }));
        // A tree of three plus a lone tile with a pipe into the wall.
        assert_eq!(find_flaw(grid, 0, &[6, 8, 1, 4]), Err(Flaw::IntoWall { tile: 3, dir: 2 }));
        // Two separate joined pairs: the one away from the source is dry.
        assert_eq!(find_flaw(grid, 0, &[2, 8, 2, 8]), Err(Flaw::Dry { tile: 2 }));
        // Empty tiles take no part.
        assert_eq!(find_flaw(grid, 0, &[2, 8, 0, 0]), Ok(()));
    }

    #[test]
    fn game_detects_the_solution_and_counts_moves() {
        let config = config("3 1 nowrap 1 0\n4a1\n");
        let mut game = PipesGame::new(&config, 99);
        assert_eq!(game.status(), Status::Running);
        assert_eq!(game.score(), 0, "no end is joined yet");
        let (hash, picture) = (game.state_hash(), game.render());
        assert_eq!(PipesGame::new(&config, 1).state_hash(), hash, "the seed plays no part");
        game.step(Rotate { tile: 0, turn: Turn::Anticlockwise }).unwrap();
        assert_eq!(game.tiles(), [2, 0xa, 1]);
        assert_eq!(game.status(), Status::Running);
        assert_eq!(game.score(), 2);
        game.step(Rotate { tile: 2, turn: Turn::Anticlockwise }).unwrap();
        assert!(matches!(game.status(), Status::Over(Outcome { kind: OutcomeKind::Won, .. })));
        assert_eq!(game.tick(), 2);
        assert_eq!(game.score(), 4);
        assert_ne!(game.render(), picture);
        let error = game.step(Rotate { tile: 0, turn: Turn::Half }).unwrap_err();
        assert!(error.reason.contains("over"));
        let mut fresh = PipesGame::new(&config, 0);
        assert!(fresh.step(Rotate { tile: 3, turn: Turn::Half }).unwrap_err().reason.contains("no such tile"));
        assert_eq!(fresh.state_hash(), hash, "a rejected move changes nothing");
    }

    #[test]
    fn a_solved_puzzle_is_won_at_once_and_aimless_play_stalls() {
        let solved = config("2 1 nowrap 0 0\n28\n");
        assert!(matches!(PipesGame::new(&solved, 0).status(), Status::Over(Outcome { kind: OutcomeKind::Won, .. })));
        let config = config("2 1 nowrap 0 0\n82\n");
        let mut game = PipesGame::new(&config, 0);
        // Two dead ends have 16 orientations: the cap is 15 moves, not 4 × 2.
        assert_eq!(config.max_ticks(), 15);
        for tick in 0..config.max_ticks() {
            assert_eq!(game.status(), Status::Running);
            let turn = if tick % 2 == 0 { Turn::Clockwise } else { Turn::Anticlockwise };
            game.step(Rotate { tile: 0, turn }).unwrap();
        }
        assert!(matches!(game.status(), Status::Over(Outcome { kind: OutcomeKind::Stalled, .. })));
    }

    #[test]
    fn unmatched_ends_stay_exact_on_tiny_wrapping_boards() {
        // On 1- and 2-wide tori a tile is its own or a double neighbour: the
        // incremental count must still equal a recount after every move.
        for (width, height) in [(1, 1), (1, 3), (2, 2), (2, 3), (3, 3)] {
            let n = usize::from(width * height);
            let tiles: Vec<u8> = (0..n).map(|tile| [1, 3, 5, 7, 0xf, 0][tile % 6]).collect();
            let setup = PipesSetup { width, height, wrap: true, source_col: 0, source_row: 0, tiles };
            let config = Config::try_from(setup).unwrap();
            let mut game = PipesGame::new(&config, 0);
            for step in 0..40u32 {
                if game.status() != Status::Running {
                    break;
                }
                let turn = [Turn::Clockwise, Turn::Half, Turn::Anticlockwise][(step % 3) as usize];
                game.step(Rotate { tile: step * 7 % n as u32, turn }).unwrap();
                let recount: u32 = (0..n).map(|tile| game.unmatched_ends_of(tile)).sum();
                assert_eq!(game.unmatched_ends, recount, "{width}x{height} step {step}");
            }
        }
    }

    #[test]
    fn moves_between_takes_the_shortest_turn() {
        assert_eq!(
            moves_between(&[1, 1, 1, 1, 5], &[1, 2, 4, 8, 5]),
            vec![
                Rotate { tile: 1, turn: Turn::Clockwise },
                Rotate { tile: 2, turn: Turn::Half },
                Rotate { tile: 3, turn: Turn::Anticlockwise },
            ]
        );
    }

    #[test]
    fn parse_reads_header_grid_comments_and_solution() {
        let puzzle =
            Puzzle::parse("# a puzzle\n3 2 wrap 1 1   # width, height\n4a2\nfe0 # row two\n\n2a8\nfe0\n").unwrap();
        assert_eq!(puzzle.setup.grid(), Grid { width: 3, height: 2, wrap: true });
        assert_eq!((puzzle.setup.source_col, puzzle.setup.source_row), (1, 1));
        assert_eq!(puzzle.setup.tiles, vec![4, 0xa, 2, 0xf, 0xe, 0]);
        assert_eq!(puzzle.solution, Some(vec![2, 0xa, 8, 0xf, 0xe, 0]));
        let text = puzzle.setup.to_text(&["made by hand".to_string()], puzzle.solution.as_deref());
        assert_eq!(Puzzle::parse(&text).unwrap(), puzzle);
        assert!(text.starts_with("# made by hand\n3 2 wrap 1 1\n"));
    }

    #[track_caller]
    fn check_error(text: &str, line: usize, column: usize, fragment: &str) {
        let error = match Puzzle::parse(text) {
            Err(error) => error,
            Ok(puzzle) => Config::try_from(puzzle.setup).expect_err("the puzzle should be rejected"),
        };
        assert_eq!((error.line, error.column), (line, column), "{error}");
        assert!(error.message.contains(fragment), "{error:?} should mention {fragment:?}");
    }

    #[test]
    fn parse_errors_name_line_and_column() {
        check_error("", 0, 0, "empty puzzle");
        check_error("3 2 nowrap 1\n", 1, 0, "expected `WIDTH HEIGHT");
        check_error("3 x nowrap 1 1\n", 1, 0, "height \"x\" is not a number");
        check_error("100000 2 nowrap 0 0\n", 1, 0, "width 100000 is too large: a board's sides are at most 500");
        check_error("600 2 nowrap 0 0\n", 1, 0, "each side must be 1..=500");
        check_error("0 2 nowrap 0 0\n", 1, 0, "each side must be 1..=500");
        check_error("3 2 torus 1 1\n", 1, 0, "neither wrap nor nowrap");
        check_error("3 2 wrap 3 1\n", 1, 0, "source (3, 1) is off the 3×2 board");
        check_error("# c\n3 2 wrap 1 1\n4a2\n4g2\n", 4, 2, "unexpected 'g'");
        check_error("3 2 wrap 1 1\n4a\n", 2, 3, "row has 2 tiles, expected 3");
        check_error("3 2 wrap 1 1\n4a21\n", 2, 4, "row has 4 tiles");
        check_error("3 2 wrap 1 1\n4a2\n", 3, 0, "the puzzle grid ends after 1 rows, expected 2");
        check_error("3 2 wrap 1 1\n4a2\n4a2\n\n4a2\n", 6, 0, "the solution grid ends after 1 rows");
        check_error("3 1 wrap 1 0\n4a2\n\n4a3\n", 4, 3, "solution tile 3 is not a rotation of the puzzle's tile 2");
        check_error("3 1 wrap 1 0\n4a2\n\n4a2\n4a2\n", 5, 1, "unexpected line after the solution grid");
    }

    #[test]
    fn hostile_setups_are_rejected() {
        let setup = PipesSetup { width: 2, height: 2, wrap: false, source_col: 0, source_row: 0, tiles: vec![1; 4] };
        assert!(Config::try_from(PipesSetup { tiles: vec![1; 3], ..setup.clone() }).is_err());
        assert!(Config::try_from(PipesSetup { tiles: vec![1, 2, 3, 16], ..setup.clone() }).is_err());
        assert!(Config::try_from(PipesSetup { source_row: 2, ..setup.clone() }).is_err());
        assert!(Config::try_from(PipesSetup { width: 0, tiles: vec![], ..setup.clone() }).is_err());
        let config = Config::try_from(setup.clone()).unwrap();
        assert_eq!(PipesSetup::from(config), setup);
    }
}
