//! Snake's board and rules before play: the unvalidated [`SnakeSetup`] (what
//! a map file, the command line or a replay header says), the map format,
//! the presets, and the validated [`Config`] a game is built from.

use serde::{Deserialize, Serialize};

use super::Dir;
use crate::map::{Level, MapError, content_lines};

/// Largest board side we accept; cell indices must fit in a `u16`.
const MAX_SIDE: u16 = 200;

/// Whether the head may move into the cell the tail leaves on the same tick.
/// Benchmarks differ on this, so it is a rule, not a constant.
///
/// Part of the replay format (see `replay::format`): stored by variant index;
/// changing the variants' order or number needs a format version bump.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum TailRule {
    /// The tail moves first; the head may take its cell (unless eating).
    Vacates,
    /// The tail's cell counts as body until the tick ends (chuyangliu/snake).
    Blocks,
}

/// Where the snake starts: its head, the way it faces, and its length. The
/// body trails straight behind the head.
///
/// Part of the replay format (see `replay::format`): stored field by field in
/// this order; changing the fields needs a format version bump.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Start {
    pub col: u16,
    pub row: u16,
    pub heading: Dir,
    pub length: u16,
}

/// How a game places the snake.
///
/// Part of the replay format (see `replay::format`): stored by variant
/// index, and the first two variants encode exactly as the `Option<Start>`
/// they replaced (`None`, `Some(start)`), so replays recorded before
/// `Random` existed decode unchanged; changing the variants' order needs a
/// format version bump.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum StartRule {
    /// Length 3 trailing right, the tail on the first free cell (row-major)
    /// with room for the body.
    Default,
    /// This head, heading and length, the body trailing straight behind.
    At(Start),
    /// Length 1 on a free cell drawn uniformly from the game's seed (before
    /// the first food), as twanvl/snake starts its games.
    Random,
}

/// Everything a Snake game is built from, unvalidated: what a map file, the
/// command line or a replay header says. [`Config::try_from`] validates it.
///
/// Part of the replay format (see `replay::format`): stored field by field in
/// this order; changing the fields needs a format version bump.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct SnakeSetup {
    pub width: u16,
    pub height: u16,
    /// Row-major, `width * height` entries; `true` is a wall.
    pub walls: Vec<bool>,
    pub start: StartRule,
    pub tail_rule: TailRule,
    /// Ticks without food before the game is stalled; `None`: width·height·4.
    pub stall_limit: Option<u32>,
    /// The episode cap in ticks, if any.
    pub max_ticks: Option<u32>,
}

/// A validated Snake configuration. Only [`Config::try_from`] builds one, so
/// a `Config` always describes a playable game.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(try_from = "SnakeSetup", into = "SnakeSetup")]
pub struct Config {
    pub(super) width: u16,
    pub(super) height: u16,
    pub(super) walls: Vec<bool>,
    /// [`StartRule::At`] or [`StartRule::Random`]: validation resolves
    /// [`StartRule::Default`].
    pub(super) start: StartRule,
    pub(super) tail_rule: TailRule,
    pub(super) stall_limit: u32,
    pub(super) max_ticks: Option<u32>,
    /// Cells that are not walls: the length of a snake that has won.
    pub(super) n_free_cells: u32,
    /// The start body, head first; empty for a random start.
    pub(super) start_body: Vec<u16>,
}

/// The default start length when the map does not give one.
pub const DEFAULT_START_LENGTH: u16 = 3;

impl SnakeSetup {
    /// An open `width`×`height` board with the default rules.
    pub fn open(width: u16, height: u16) -> SnakeSetup {
        SnakeSetup {
            width,
            height,
            walls: vec![false; usize::from(width) * usize::from(height)],
            start: StartRule::Default,
            tail_rule: TailRule::Vacates,
            stall_limit: None,
            max_ticks: None,
        }
    }

    /// The rules of the widely quoted chuyangliu/snake benchmark: 8×8
    /// playable cells, length 4 in the top-left corner heading right, the
    /// head may not enter the tail's cell, episodes capped at 5000 steps
    /// (and no other stall rule, as there).
    pub fn chuyangliu() -> SnakeSetup {
        SnakeSetup {
            start: StartRule::At(Start { col: 3, row: 0, heading: Dir::Right, length: 4 }),
            tail_rule: TailRule::Blocks,
            stall_limit: Some(5000),
            max_ticks: Some(5000),
            ..SnakeSetup::open(8, 8)
        }
    }
}

impl Level for SnakeSetup {
    /// Parses a map: `X` wall, `.` free, optional `start COL ROW DIR LENGTH`
    /// (or `start random`) and `tail vacates|blocks` lines before the grid,
    /// `#` comment lines.
    fn parse(text: &str) -> Result<SnakeSetup, MapError> {
        let mut start = None;
        let mut tail_rule = TailRule::Vacates;
        let mut width = 0usize;
        let mut rows: Vec<Vec<bool>> = Vec::new();
        let mut first_grid_line = 0;
        for (line_no, line) in content_lines(text) {
            let mut words = line.split_whitespace();
            let keyword = words.next().unwrap_or_default();
            if rows.is_empty() && keyword == "start" {
                start = Some((line_no, parse_start(line_no, line)?));
                continue;
            }
            if rows.is_empty() && keyword == "tail" {
                tail_rule = match words.next() {
                    Some("vacates") => TailRule::Vacates,
                    Some("blocks") => TailRule::Blocks,
                    _ => return Err(MapError::at(line_no, 0, "expected `tail vacates` or `tail blocks`")),
                };
                continue;
            }
            let mut cells = Vec::with_capacity(line.len());
            for (index, ch) in line.chars().enumerate() {
                match ch {
                    'X' => cells.push(true),
                    '.' => cells.push(false),
                    other => {
                        return Err(MapError::at(
                            line_no,
                            index + 1,
                            format!("unexpected {other:?}: a cell is 'X' (wall) or '.' (free)"),
                        ));
                    }
                }
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
            return Err(MapError::whole("no grid: expected rows of 'X' (wall) and '.' (free)"));
        }
        let too_big = |n: usize| n > usize::from(MAX_SIDE);
        if too_big(width) || too_big(rows.len()) {
            return Err(MapError::whole(format!("the board may be at most {MAX_SIDE}×{MAX_SIDE}")));
        }
        let (width, height, walls) = (width as u16, rows.len() as u16, rows.concat());
        // Check the start here too, where its line is known, so the error
        // can point at it.
        if let Some((line_no, StartRule::At(start))) = start {
            lay_start_body(width, height, &walls, start).map_err(|error| MapError::at(line_no, 0, error.message))?;
        }
        Ok(SnakeSetup {
            width,
            height,
            walls,
            start: start.map_or(StartRule::Default, |(_, start)| start),
            tail_rule,
            stall_limit: None,
            max_ticks: None,
        })
    }
}

fn parse_start(line_no: usize, line: &str) -> Result<StartRule, MapError> {
    let expected = "expected `start COL ROW DIRECTION LENGTH`, e.g. `start 1 1 right 3`, or `start random`";
    let words: Vec<&str> = line.split_whitespace().collect();
    if words[..] == ["start", "random"] {
        return Ok(StartRule::Random);
    }
    let [_, col, row, heading, length] = words[..] else {
        return Err(MapError::at(line_no, 0, expected));
    };
    let number = |word: &str| word.parse::<u16>().map_err(|_| MapError::at(line_no, 0, expected));
    let heading = Dir::from_word(heading)
        .ok_or_else(|| MapError::at(line_no, 0, format!("unknown direction {heading:?}: {expected}")))?;
    Ok(StartRule::At(Start { col: number(col)?, row: number(row)?, heading, length: number(length)? }))
}

impl TryFrom<SnakeSetup> for Config {
    type Error = MapError;

    fn try_from(setup: SnakeSetup) -> Result<Config, MapError> {
        let SnakeSetup { width, height, walls, start, tail_rule, stall_limit, max_ticks } = setup;
        if width == 0 || height == 0 || width > MAX_SIDE || height > MAX_SIDE {
            return Err(MapError::whole(format!("board is {width}×{height}; each side must be 1..={MAX_SIDE}")));
        }
        let n_cells = usize::from(width) * usize::from(height);
        if walls.len() != n_cells {
            return Err(MapError::whole(format!("{} wall flags for {n_cells} cells", walls.len())));
        }
        let n_free_cells = walls.iter().filter(|&&wall| !wall).count() as u32;
        let (start, start_body) = match start {
            StartRule::Random if n_free_cells == 0 => return Err(MapError::whole("no free cell to start on")),
            StartRule::Random => (StartRule::Random, Vec::new()),
            StartRule::At(start) => (StartRule::At(start), lay_start_body(width, height, &walls, start)?),
            StartRule::Default => {
                let start = default_start(width, &walls)?;
                (StartRule::At(start), lay_start_body(width, height, &walls, start)?)
            }
        };
        let stall_limit = stall_limit.unwrap_or(u32::from(width) * u32::from(height) * 4);
        if stall_limit == 0 || max_ticks == Some(0) {
            return Err(MapError::whole("stall limit and episode cap must be at least 1 tick"));
        }
        Ok(Config { width, height, walls, start, tail_rule, stall_limit, max_ticks, n_free_cells, start_body })
    }
}

impl From<Config> for SnakeSetup {
    fn from(config: Config) -> SnakeSetup {
        SnakeSetup {
            width: config.width,
            height: config.height,
            walls: config.walls,
            start: config.start,
            tail_rule: config.tail_rule,
            stall_limit: Some(config.stall_limit),
            max_ticks: config.max_ticks,
        }
    }
}

/// Length 3 trailing right, tail on the first free cell (row-major) that has
/// room for it.
fn default_start(width: u16, walls: &[bool]) -> Result<Start, MapError> {
    let length = DEFAULT_START_LENGTH;
    let fits = |cell: usize| {
        let col = cell % usize::from(width);
        col + usize::from(length) <= usize::from(width) && (cell..cell + usize::from(length)).all(|c| !walls[c])
    };
    let tail = (0..walls.len()).find(|&cell| fits(cell)).ok_or_else(|| {
        MapError::whole("no `start` line, and no row has 3 free cells in a row for the default start")
    })?;
    let head = tail + usize::from(length) - 1;
    Ok(Start {
        col: (head % usize::from(width)) as u16,
        row: (head / usize::from(width)) as u16,
        heading: Dir::Right,
        length,
    })
}

/// The start body, head first, trailing straight behind the head.
fn lay_start_body(width: u16, height: u16, walls: &[bool], start: Start) -> Result<Vec<u16>, MapError> {
    if start.length == 0 {
        return Err(MapError::whole("start length must be at least 1"));
    }
    let back = start.heading.opposite();
    let (mut col, mut row) = (i32::from(start.col), i32::from(start.row));
    let mut body = Vec::with_capacity(usize::from(start.length));
    for _ in 0..start.length {
        if col < 0 || row < 0 || col >= i32::from(width) || row >= i32::from(height) {
            return Err(MapError::whole(format!(
                "the start snake (head at column {}, row {}, heading {}, length {}) does not fit on the board",
                start.col, start.row, start.heading, start.length
            )));
        }
        let cell = (row * i32::from(width) + col) as usize;
        if walls[cell] {
            return Err(MapError::whole(format!("the start snake lies on a wall at column {col}, row {row}")));
        }
        body.push(cell as u16);
        let (dc, dr) = delta(back);
        col += dc;
        row += dr;
    }
    Ok(body)
}

fn delta(dir: Dir) -> (i32, i32) {
    match dir {
        Dir::Up => (0, -1),
        Dir::Right => (1, 0),
        Dir::Down => (0, 1),
        Dir::Left => (-1, 0),
    }
}

impl Config {
    pub(crate) fn width(&self) -> u16 {
        self.width
    }
    pub(crate) fn height(&self) -> u16 {
        self.height
    }
    pub(crate) fn n_cells(&self) -> usize {
        usize::from(self.width) * usize::from(self.height)
    }
    pub(crate) fn is_wall(&self, cell: u16) -> bool {
        self.walls[usize::from(cell)]
    }
    pub(crate) fn tail_rule(&self) -> TailRule {
        self.tail_rule
    }
    pub(crate) fn stall_limit(&self) -> u32 {
        self.stall_limit
    }
    pub(crate) fn max_ticks(&self) -> Option<u32> {
        self.max_ticks
    }
    #[cfg(test)]
    pub(crate) fn start(&self) -> StartRule {
        self.start
    }
    /// The length of a snake that fills the board.
    pub(crate) fn n_free_cells(&self) -> u32 {
        self.n_free_cells
    }

    /// The cell one step from `cell` in `dir`, or `None` off the board. Walls
    /// are not checked.
    pub(crate) fn neighbour(&self, cell: u16, dir: Dir) -> Option<u16> {
        let (col, row) = (cell % self.width, cell / self.width);
        match dir {
            Dir::Up if row > 0 => Some(cell - self.width),
            Dir::Down if row + 1 < self.height => Some(cell + self.width),
            Dir::Left if col > 0 => Some(cell - 1),
            Dir::Right if col + 1 < self.width => Some(cell + 1),
            _ => None,
        }
    }

    /// A one-line summary of the rules, for reports.
    pub(crate) fn describe_rules(&self) -> String {
        let tail = match self.tail_rule {
            TailRule::Vacates => "head may enter the tail's cell",
            TailRule::Blocks => "head may not enter the tail's cell",
        };
        let cap = match self.max_ticks {
            Some(cap) => format!(", episode cap {cap} ticks"),
            None => String::new(),
        };
        let start = match self.start {
            StartRule::At(start) => {
                format!("start length {} at ({},{}) heading {}", start.length, start.col, start.row, start.heading)
            }
            StartRule::Random | StartRule::Default => "start length 1 on a random free cell".to_string(),
        };
        format!(
            "{}x{} board, {} free cells, {start}, {tail}, stall after {} ticks without food{cap}",
            self.width, self.height, self.n_free_cells, self.stall_limit
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[track_caller]
    fn check_error(text: &str, line: usize, column: usize, fragment: &str) {
        let error = match SnakeSetup::parse(text) {
            Err(error) => error,
            Ok(setup) => Config::try_from(setup).expect_err("the map should be rejected"),
        };
        assert_eq!((error.line, error.column), (line, column), "{error}");
        assert!(error.message.contains(fragment), "{error:?} should mention {fragment:?}");
    }

    #[test]
    fn map_errors_name_line_and_column() {
        check_error("# a map\n....\n..o.\n", 3, 3, "unexpected 'o'");
        check_error("....\n...\n", 2, 4, "row has 3 cells, but the first row (line 1) has 4");
        check_error("....\n.....\n", 2, 5, "row has 5 cells");
        check_error("tail sideways\n....\n", 1, 0, "expected `tail vacates` or `tail blocks`");
        check_error("start 1 1 right\n....\n", 1, 0, "expected `start COL ROW DIRECTION LENGTH`");
        check_error("start 1 1 north 2\n....\n", 1, 0, "unknown direction \"north\"");
        check_error("start a 1 right 2\n....\n", 1, 0, "expected `start");
        check_error("....\nstart 1 0 right 2\n", 2, 1, "unexpected 's'");
        check_error("# only a comment\n\n", 0, 0, "no grid");
        check_error("start 1 0 right 3\n.....\n", 1, 0, "does not fit");
        check_error("# c\nstart 3 0 right 3\n..X..\n", 2, 0, "lies on a wall at column 2, row 0");
        check_error("start 1 0 right 0\n.....\n", 1, 0, "at least 1");
        check_error("X.X.X\n..X..\n", 0, 0, "no row has 3 free cells");
        check_error(&".".repeat(201), 0, 0, "at most 200");
    }
}
