//! Snake: the game state and its rules. The board, the map format and the
//! presets are in `setup`, the pictures in `picture`, the planners in `plan`.
//!
//! One food at a time, placed uniformly on a free cell from the game's own
//! [`GameRng`]; eating grows the snake by one. Lost on hitting a wall or the
//! body, won when the body fills every free cell, stalled when no food is
//! eaten for `stall_limit` ticks or the episode reaches `max_ticks`.

pub(crate) mod picture;
pub mod plan;
mod setup;

use std::collections::VecDeque;
use std::sync::Arc;

pub use crate::game::Dir;
use crate::game::{Game, GameSpec, IllegalAction, Outcome, OutcomeKind, StateHasher, Status, Wire};
use crate::rng::GameRng;
pub use setup::{Config, DEFAULT_START_LENGTH, SnakeSetup, Start, StartRule, TailRule};

/// A game of Snake in progress.
#[derive(Clone, Debug)]
pub struct SnakeGame {
    config: Arc<Config>,
    /// Head first.
    body: VecDeque<u16>,
    /// `occupied[cell]`: the body covers `cell`.
    occupied: Vec<bool>,
    heading: Dir,
    food: Option<u16>,
    tick: u32,
    ticks_since_food: u32,
    rng: GameRng,
    outcome: Option<Outcome>,
}

impl SnakeGame {
    pub(crate) fn config(&self) -> &Config {
        &self.config
    }
    /// The body, head first.
    pub(crate) fn body(&self) -> &VecDeque<u16> {
        &self.body
    }
    pub(crate) fn head(&self) -> u16 {
        self.body[0]
    }
    pub(crate) fn tail(&self) -> u16 {
        self.body[self.body.len() - 1]
    }
    pub fn len(&self) -> usize {
        self.body.len()
    }
    /// Never true: a snake has at least its head.
    pub fn is_empty(&self) -> bool {
        self.body.is_empty()
    }
    pub(crate) fn heading(&self) -> Dir {
        self.heading
    }
    pub(crate) fn food(&self) -> Option<u16> {
        self.food
    }
    pub(crate) fn is_occupied(&self, cell: u16) -> bool {
        self.occupied[usize::from(cell)]
    }
    /// Ticks since the last meal (or the start): the game stalls when this
    /// reaches [`Config::stall_limit`].
    pub(crate) fn ticks_since_food(&self) -> u32 {
        self.ticks_since_food
    }

    /// Whether `dir` may be played now: never back into the neck.
    pub(crate) fn is_legal(&self, dir: Dir) -> bool {
        self.outcome.is_none() && (self.body.len() < 2 || dir != self.heading.opposite())
    }

    fn place_food(&mut self) {
        let n_empty = self.config.n_free_cells - self.body.len() as u32;
        debug_assert!(n_empty > 0);
        let draw = self.rng.below(n_empty);
        self.food = Some(self.nth_empty_cell(draw));
    }

    /// The `n`-th cell (row-major, from 0) that is neither wall nor body.
    fn nth_empty_cell(&self, n: u32) -> u16 {
        let mut remaining = n;
        for cell in 0..self.config.n_cells() as u16 {
            if self.config.is_wall(cell) || self.is_occupied(cell) {
                continue;
            }
            if remaining == 0 {
                return cell;
            }
            remaining -= 1;
        }
        unreachable!("fewer empty cells than counted");
    }

    fn end(&mut self, kind: OutcomeKind, reason: String) {
        self.outcome = Some(Outcome::new(kind, reason));
    }
}

impl Game for SnakeGame {
    type Config = Config;
    type Action = Dir;
    const NAME: &'static str = "snake";

    fn new(config: &Config, seed: u64) -> SnakeGame {
        let mut occupied = vec![false; config.n_cells()];
        for &cell in &config.start_body {
            occupied[usize::from(cell)] = true;
        }
        let heading = match config.start {
            StartRule::At(start) => start.heading,
            StartRule::Random | StartRule::Default => Dir::Right,
        };
        let mut game = SnakeGame {
            config: Arc::new(config.clone()),
            body: config.start_body.iter().copied().collect(),
            occupied,
            heading,
            food: None,
            tick: 0,
            ticks_since_food: 0,
            rng: GameRng::from_seed(seed),
            outcome: None,
        };
        if game.body.is_empty() {
            // A random start: the head's cell is the stream's first draw.
            let draw = game.rng.below(config.n_free_cells);
            let cell = game.nth_empty_cell(draw);
            game.body.push_back(cell);
            game.occupied[usize::from(cell)] = true;
        }
        if game.body.len() as u32 == config.n_free_cells {
            game.end(OutcomeKind::Won, "the start snake already fills the board".into());
        } else {
            game.place_food();
        }
        game
    }

    fn legal_actions(&self, out: &mut Vec<Dir>) {
        out.extend(Dir::ALL.into_iter().filter(|&dir| self.is_legal(dir)));
    }

    fn step(&mut self, dir: Dir) -> Result<(), IllegalAction> {
        if !self.is_legal(dir) {
            let reason =
                if self.outcome.is_some() { "the game is over" } else { "the snake cannot reverse into its neck" };
            return Err(IllegalAction { action: dir.to_string(), tick: self.tick, reason });
        }
        self.tick += 1;
        self.heading = dir;
        let head = self.head();
        let Some(next) = self.config.neighbour(head, dir).filter(|&cell| !self.config.is_wall(cell)) else {
            self.end(OutcomeKind::Lost, format!("hit a wall moving {dir} at tick {}", self.tick));
            return Ok(());
        };
        let eats = self.food == Some(next);
        let tail = self.tail();
        let tail_leaves = !eats && self.config.tail_rule == TailRule::Vacates;
        if self.is_occupied(next) && !(next == tail && tail_leaves) {
            self.end(OutcomeKind::Lost, format!("hit its own body moving {dir} at tick {}", self.tick));
            return Ok(());
        }
        if !eats {
            self.body.pop_back();
            self.occupied[usize::from(tail)] = false;
        }
        self.body.push_front(next);
        self.occupied[usize::from(next)] = true;
        if eats {
            self.ticks_since_food = 0;
            if self.body.len() as u32 == self.config.n_free_cells {
                self.food = None;
                self.end(OutcomeKind::Won, format!("filled the board at tick {}", self.tick));
                return Ok(());
            }
            self.place_food();
        } else {
            self.ticks_since_food += 1;
        }
        if self.ticks_since_food >= self.config.stall_limit {
            self.end(OutcomeKind::Stalled, format!("no food eaten in {} ticks", self.config.stall_limit));
        } else if self.config.max_ticks.is_some_and(|cap| self.tick >= cap) {
            self.end(OutcomeKind::Stalled, format!("reached the episode cap of {} ticks", self.tick));
        }
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

    fn score(&self) -> i64 {
        self.body.len() as i64
    }

    fn hash_state(&self, hasher: &mut StateHasher) {
        hasher.u32(self.tick);
        hasher.u32(self.ticks_since_food);
        hasher.u8(self.heading.code());
        hasher.u16(self.food.unwrap_or(u16::MAX));
        hasher.u32(self.body.len() as u32);
        for &cell in &self.body {
            hasher.u16(cell);
        }
        hasher.u128(self.rng.word_pos());
        hasher.u8(match &self.outcome {
            None => 0,
            Some(outcome) => 1 + outcome.kind as u8,
        });
    }
}

impl Wire for SnakeGame {
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
        GameSpec::Snake(config.clone())
    }

    fn config_of(spec: GameSpec) -> Option<Config> {
        match spec {
            GameSpec::Snake(config) => Some(config),
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::game::Show;
    use crate::map::Level;
    use crate::rng::GameRng;

    fn level(map: &str) -> Config {
        Config::try_from(SnakeSetup::parse(map).expect("map parses")).expect("map validates")
    }

    fn cell(config: &Config, col: u16, row: u16) -> u16 {
        row * config.width() + col
    }

    fn lost(game: &SnakeGame) -> bool {
        matches!(game.status(), Status::Over(Outcome { kind: OutcomeKind::Lost, .. }))
    }

    fn reason_contains(game: &SnakeGame, text: &str) -> bool {
        matches!(game.status(), Status::Over(outcome) if outcome.reason.contains(text))
    }

    fn over_kind(game: &SnakeGame) -> Option<OutcomeKind> {
        match game.status() {
            Status::Running => None,
            Status::Over(outcome) => Some(outcome.kind),
        }
    }

    impl SnakeGame {
        /// A game in the position drawn by `picture`: `X` wall, `.` free,
        /// `*` the food, `0` the head and `1`..`9`, `a`..`z` the rest of the
        /// body in order. For tests that need a position play cannot easily
        /// reach; later food comes from `seed`'s stream as usual.
        pub(crate) fn from_picture(picture: &str, tail_rule: TailRule, seed: u64) -> SnakeGame {
            let rows: Vec<&str> = picture.lines().map(str::trim).filter(|row| !row.is_empty()).collect();
            let width = rows[0].len() as u16;
            let mut walls = Vec::new();
            let mut ranked = Vec::new();
            let mut food = None;
            for (row, line) in rows.iter().enumerate() {
                assert_eq!(line.len(), usize::from(width), "ragged picture");
                for (col, ch) in line.chars().enumerate() {
                    let index = (row * usize::from(width) + col) as u16;
                    walls.push(ch == 'X');
                    match ch {
                        'X' | '.' => {}
                        '*' => food = Some(index),
                        _ => ranked.push((ch.to_digit(36).expect("body cells are 0-9, a-z"), index)),
                    }
                }
            }
            ranked.sort_unstable();
            let body: Vec<u16> = ranked.into_iter().map(|(_, index)| index).collect();
            let head = body[0];
            let heading = match body.get(1) {
                Some(&neck) if neck + 1 == head => Dir::Right,
                Some(&neck) if neck == head + 1 => Dir::Left,
                Some(&neck) if neck + width == head => Dir::Down,
                Some(_) => Dir::Up,
                None => Dir::Right,
            };
            let start = Start { col: head % width, row: head / width, heading, length: 1 };
            let setup = SnakeSetup {
                width,
                height: rows.len() as u16,
                walls,
                start: StartRule::At(start),
                tail_rule,
                stall_limit: None,
                max_ticks: None,
            };
            let config = Config::try_from(setup).expect("picture validates");
            let mut game = SnakeGame::new(&config, seed);
            game.occupied.fill(false);
            for &index in &body {
                game.occupied[usize::from(index)] = true;
            }
            game.body = body.into_iter().collect();
            game.heading = heading;
            game.food = food;
            game
        }
    }

    #[test]
    fn eating_grows_the_snake_and_the_tail_stays() {
        let mut game = SnakeGame::from_picture("....\n.*01\n....", TailRule::Vacates, 1);
        let tail = game.tail();
        game.step(Dir::Left).unwrap();
        assert_eq!(game.len(), 3);
        assert_eq!(game.tail(), tail, "the tail does not move on a meal");
        assert!(game.is_occupied(tail));
        assert_eq!(game.score(), 3);
        assert_eq!(game.status(), Status::Running);
        let food = game.food().expect("new food");
        assert!(!game.is_occupied(food), "new food lands on a free cell");
        // Without food the length stays and the tail moves.
        game.food = Some(cell(game.config(), 3, 2));
        game.step(Dir::Up).unwrap();
        assert_eq!(game.len(), 3);
        assert!(!game.is_occupied(tail));
    }

    #[test]
    fn walls_and_the_board_edge_kill() {
        let mut game = SnakeGame::from_picture("...*\nX01.", TailRule::Vacates, 1);
        game.step(Dir::Left).unwrap();
        assert!(lost(&game));
        assert!(reason_contains(&game, "hit a wall"));
        // Heading left along the top edge.
        let mut game = SnakeGame::from_picture("*.01\n....", TailRule::Vacates, 1);
        game.step(Dir::Left).unwrap();
        assert!(!lost(&game), "moving along the edge is fine");
        game.step(Dir::Up).unwrap();
        assert!(lost(&game), "leaving the board is a wall hit");
    }

    #[test]
    fn running_into_the_body_kills() {
        // The head turning down runs into 5, which is not the tail (6).
        let mut game = SnakeGame::from_picture("*....\n.210.\n.3456\n.....", TailRule::Vacates, 1);
        game.step(Dir::Down).unwrap();
        assert!(lost(&game));
        assert!(reason_contains(&game, "own body"));
    }

    #[test]
    fn tail_cell_rule() {
        // The head (0) is beside the tail (3): moving down enters its cell.
        let square = "*...\n.01.\n.32.\n....";
        let mut game = SnakeGame::from_picture(square, TailRule::Vacates, 1);
        game.step(Dir::Down).unwrap();
        assert_eq!(game.status(), Status::Running, "Vacates: the tail leaves first");
        assert_eq!(game.head(), cell(game.config(), 1, 2));
        assert_eq!(game.len(), 4);

        let mut game = SnakeGame::from_picture(square, TailRule::Blocks, 1);
        game.step(Dir::Down).unwrap();
        assert!(lost(&game), "Blocks: the tail's cell is body until the tick ends");

        // Eating never lets the tail leave, so even under Vacates a head that
        // eats as it enters the tail's cell hits the body. (Play never puts
        // food there; the rule must not depend on that.)
        let mut game = SnakeGame::from_picture(square, TailRule::Vacates, 1);
        game.food = Some(game.tail());
        game.step(Dir::Down).unwrap();
        assert!(lost(&game));
    }

    #[test]
    fn reversing_into_the_neck_is_rejected_and_changes_nothing() {
        // Heading left: right is the neck.
        let mut game = SnakeGame::from_picture("*...\n.01.\n....", TailRule::Vacates, 1);
        let (hash, picture) = (game.state_hash(), game.render());
        let error = game.step(Dir::Right).unwrap_err();
        assert_eq!(error.tick, 0);
        assert!(error.reason.contains("reverse"), "{error}");
        assert_eq!((game.state_hash(), game.render()), (hash, picture));
        assert_eq!(game.tick(), 0);
        let mut legal = Vec::new();
        game.legal_actions(&mut legal);
        assert_eq!(legal, vec![Dir::Up, Dir::Down, Dir::Left]);
    }

    #[test]
    fn filling_the_board_wins() {
        // 1×3: a snake of 2 and one free cell, which must hold the food.
        let config = level("start 1 0 right 2\n...");
        let mut game = SnakeGame::new(&config, 9);
        assert_eq!(game.food(), Some(2));
        game.step(Dir::Right).unwrap();
        assert_eq!(over_kind(&game), Some(OutcomeKind::Won));
        assert_eq!(game.food(), None);
        assert!(game.step(Dir::Right).unwrap_err().reason.contains("over"));

        // 2×2: going round and round the square eats every food in turn,
        // however it spawns, and the fourth cell wins.
        let config = level("start 1 0 right 1\n..\n..");
        for seed in 0..20 {
            let mut game = SnakeGame::new(&config, seed);
            for &dir in [Dir::Down, Dir::Left, Dir::Up, Dir::Right].iter().cycle().take(40) {
                if over_kind(&game).is_some() {
                    break;
                }
                game.step(dir).unwrap();
            }
            assert_eq!(over_kind(&game), Some(OutcomeKind::Won), "seed {seed}");
            assert_eq!(game.len(), 4);
        }

        let full = level("start 2 0 right 3\n...");
        assert_eq!(over_kind(&SnakeGame::new(&full, 0)), Some(OutcomeKind::Won));
    }

    #[test]
    fn stall_limit_and_episode_cap() {
        let mut setup = SnakeSetup::parse("start 0 0 down 1\n......\n......\n......").unwrap();
        setup.stall_limit = Some(3);
        let config = Config::try_from(setup.clone()).unwrap();
        // Walk the top row and back without eating; seed picked so the food
        // is never on that row.
        let seed = (0..).find(|&seed| SnakeGame::new(&config, seed).food().is_some_and(|food| food >= 12)).unwrap();
        let mut game = SnakeGame::new(&config, seed);
        for (tick, dir) in [Dir::Right, Dir::Right, Dir::Right].into_iter().enumerate() {
            assert_eq!(game.status(), Status::Running, "tick {tick}");
            game.step(dir).unwrap();
        }
        assert_eq!(over_kind(&game), Some(OutcomeKind::Stalled));
        assert!(reason_contains(&game, "no food eaten in 3 ticks"));

        setup.stall_limit = None;
        setup.max_ticks = Some(2);
        let config = Config::try_from(setup).unwrap();
        let mut game = SnakeGame::new(&config, seed);
        game.step(Dir::Right).unwrap();
        assert_eq!(game.status(), Status::Running);
        game.step(Dir::Right).unwrap();
        assert_eq!(over_kind(&game), Some(OutcomeKind::Stalled));
        assert!(reason_contains(&game, "episode cap of 2"));
    }

    #[test]
    fn food_is_always_on_a_free_cell() {
        let config = level("X.....\n..XX..\n......\n.X..X.\n......");
        for seed in 0..50 {
            let mut game = SnakeGame::new(&config, seed);
            let mut moves = GameRng::from_seed(seed ^ 0xF00D);
            let mut legal = Vec::new();
            while game.status() == Status::Running {
                let food = game.food().expect("a running game has food");
                assert!(!config.is_wall(food) && !game.is_occupied(food), "seed {seed} tick {}", game.tick());
                legal.clear();
                game.legal_actions(&mut legal);
                // Prefer moves that do not die at once, so games get long.
                let safe: Vec<Dir> = legal
                    .iter()
                    .copied()
                    .filter(|&dir| {
                        let mut next = game.clone();
                        next.step(dir).is_ok() && !lost(&next)
                    })
                    .collect();
                let pool = if safe.is_empty() { &legal } else { &safe };
                game.step(pool[moves.below(pool.len() as u32) as usize]).unwrap();
            }
        }
    }

    #[test]
    fn same_seed_same_hashes_and_different_seed_different_food() {
        let config = Config::try_from(SnakeSetup::open(8, 8)).unwrap();
        let play = |seed: u64| {
            let mut game = SnakeGame::new(&config, seed);
            let mut hashes = vec![game.state_hash()];
            for dir in [Dir::Right, Dir::Down, Dir::Down, Dir::Left, Dir::Down] {
                game.step(dir).unwrap();
                hashes.push(game.state_hash());
            }
            hashes
        };
        assert_eq!(play(42), play(42));
        assert_ne!(play(42), play(43));
        let foods: std::collections::HashSet<Option<u16>> =
            (0..20).map(|seed| SnakeGame::new(&config, seed).food()).collect();
        assert!(foods.len() > 5, "food barely depends on the seed: {foods:?}");
    }

    #[test]
    fn a_random_start_is_one_cell_drawn_from_the_seed() {
        let config = level("start random\nX....\n..X..\n.....");
        let mut heads = std::collections::BTreeSet::new();
        for seed in 0..40 {
            let game = SnakeGame::new(&config, seed);
            assert_eq!(game.len(), 1);
            let head = game.head();
            assert!(!config.is_wall(head), "seed {seed}");
            assert_ne!(game.food(), Some(head), "seed {seed}");
            assert_eq!(SnakeGame::new(&config, seed).state_hash(), game.state_hash(), "the same seed, the same game");
            heads.insert(head);
        }
        assert!(heads.len() > 6, "the start barely depends on the seed: {heads:?}");
        assert!(config.describe_rules().contains("start length 1 on a random free cell"));
        // Any first move is legal: there is no neck to reverse into.
        let game = SnakeGame::new(&config, 3);
        let mut legal = Vec::new();
        game.legal_actions(&mut legal);
        assert_eq!(legal, Dir::ALL);
    }

    #[test]
    fn start_line_tail_line_and_default_start() {
        let parsed = SnakeSetup::parse("# title\nstart 4 1 up 3\ntail blocks\n.....\n.....\n.....\n.....\n").unwrap();
        assert_eq!(parsed.start, StartRule::At(Start { col: 4, row: 1, heading: Dir::Up, length: 3 }));
        assert_eq!(parsed.tail_rule, TailRule::Blocks);
        assert_eq!((parsed.width, parsed.height), (5, 4));
        let config = Config::try_from(parsed).unwrap();
        let game = SnakeGame::new(&config, 0);
        let body: Vec<u16> = game.body().iter().copied().collect();
        assert_eq!(body, vec![cell(&config, 4, 1), cell(&config, 4, 2), cell(&config, 4, 3)]);
        assert_eq!(game.heading(), Dir::Up);

        // No start line: length 3 heading right, the tail on the first free
        // cell (row-major) with room for the body.
        let config = level("XX..X...\n........\n");
        assert_eq!(
            config.start(),
            StartRule::At(Start { col: 7, row: 0, heading: Dir::Right, length: DEFAULT_START_LENGTH })
        );
        let body: Vec<u16> = SnakeGame::new(&config, 0).body().iter().copied().collect();
        assert_eq!(body, vec![7, 6, 5]);
        assert_eq!(config.tail_rule(), TailRule::Vacates);
        assert_eq!(config.stall_limit(), 8 * 2 * 4);
    }
}
