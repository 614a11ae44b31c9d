//! `bfs-tail`: our planner after Hawstein's write-up (GitHub Hawstein/snake-ai,
//! `snake.py`, 2013): take the shortest path to the food when a virtual snake
//! that follows it can still reach its own tail afterwards; otherwise follow
//! the tail, keeping as far from it as possible; otherwise make any safe move.
//! The program itself, transcribed exactly, is `--write-up`
//! ([`super::write_up`]).
//!
//! Where the strategy departs from the program even with every knob below
//! off ([`BfsTailSettings::bare`]):
//! - ties go to the earlier direction in `[Up, Right, Down, Left]`, not the
//!   program's `[LEFT, RIGHT, UP, DOWN]`;
//! - the food path is one BFS from the head, played out whole by the virtual
//!   snake, where the program runs BFS from the food and re-runs it after
//!   every virtual step;
//! - the tail check accepts a head that ends beside its tail when a route
//!   to the tail exists (right after the tail leaves, under the tail rule),
//!   where the program refuses every such meal for a snake longer than 3;
//! - following the tail simulates each move and keeps those after which a
//!   route to the tail remains, preferring the longest such route (and may
//!   eat on the way, when eating keeps the tail reachable), where the program
//!   takes the free neighbour farthest from the tail with the food as an
//!   obstacle;
//! - the last resort takes the move that keeps the most free cells within
//!   reach, where the program takes the free neighbour nearest the food.
//!
//! And three additions, each a knob of [`BfsTailSettings`]:
//! - the tail check after eating demands a route one step longer than the
//!   rules need (`slack`), so that a food spawning on the snake's only way
//!   out does not kill it;
//! - the tail-following branch prefers moves into body configurations seen
//!   least often since the last meal, so it does not retrace a cycle (the
//!   write-up's own known failure is chasing its tail forever);
//! - once the snake has shown it will not find a safe meal (it is back in
//!   the same configuration `gamble_after` times, or has gone `patience`
//!   sweeps of the board without food, or would stall within one sweep), it
//!   takes the shortest path to the food even though the tail check fails,
//!   reported as the plan kind `"gamble"`: a stall is a certain failure.
//!
//! It owns only its scratch buffers, sized once per board: planning a tick
//! allocates nothing. It knows Snake's rules (the tail rule, growth), which is
//! why it lives beside the game rather than in `plan/`.

use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};

use crate::game::Game;
use crate::game::snake::{Config, Dir, SnakeGame, TailRule};
use crate::plan::{Budget, Decision, PlanError, PlanStats, Planner};

/// A cell index with no neighbour in some direction (off the board or a wall).
const NONE: u16 = u16::MAX;

/// What the tail-following branch does about body configurations it has
/// already been in since the last meal.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum LoopRule {
    /// Nothing: the write-up as written, which can chase its tail forever.
    /// Only the tests' [`BfsTailSettings::bare`] turns loop handling off.
    #[cfg_attr(not(test), expect(dead_code))]
    Ignore,
    /// Prefer the move into the configuration seen least often, and only
    /// then the one farthest from the tail.
    Avoid,
}

/// The planner's knobs, recorded in replay headers by [`Planner::params`].
/// [`BfsTailSettings::default`] is what the benchmarks measure;
/// [`BfsTailSettings::bare`] turns the three additions off.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct BfsTailSettings {
    /// How many further meals the route to the tail must survive after the
    /// food is eaten. With 0 (the write-up) a food that spawns on the only
    /// way out kills the snake; 1 leaves room for it.
    pub(crate) slack: u32,
    /// How the tail-following branch treats configurations it has been in.
    pub(crate) loop_rule: LoopRule,
    /// Gamble once the snake is in the same body configuration for the
    /// `gamble_after`-th time since its last meal; 0: never.
    pub(crate) gamble_after: u32,
    /// Gamble after `patience` sweeps of the board (`n_free_cells` ticks
    /// each) without food; 0: never.
    pub(crate) patience: u32,
    /// Gamble once fewer than `n_free_cells` ticks remain before the game
    /// would stall (its stall limit or its episode cap).
    pub(crate) near_deadline: bool,
}

impl Default for BfsTailSettings {
    /// Chosen by measuring 1000 to 5000 seeded games on the chuyangliu preset
    /// and an open 10×10 board. `slack` 1 lifts the fill rate there from about
    /// 57% to about 65%; 2 gains a little more but stalls again. Gambling
    /// after the 6th return to a configuration or 8 sweeps without food ends
    /// every stall while keeping chuyangliu games under about 2600 ticks of
    /// the 5000 allowed (gambling sooner wins less often). The deadline rule
    /// is the safety net for tight stall limits such as the default 4 sweeps,
    /// where the other two never fire.
    fn default() -> Self {
        BfsTailSettings { slack: 1, loop_rule: LoopRule::Avoid, gamble_after: 6, patience: 8, near_deadline: true }
    }
}

impl BfsTailSettings {
    /// The strategy without our three additions: no slack, no loop
    /// handling, never a gamble (still not the program: see the module docs).
    #[cfg(test)]
    pub(crate) fn bare() -> BfsTailSettings {
        BfsTailSettings { slack: 0, loop_rule: LoopRule::Ignore, gamble_after: 0, patience: 0, near_deadline: false }
    }
}

/// Hashes a `u64` key that is already a good hash (see [`BfsTail::v_hash`]),
/// so the visit table skips SipHash on the hot path. Keys are never iterated,
/// so the table's order cannot leak into decisions.
#[derive(Debug, Default)]
struct PassThrough(u64);

impl Hasher for PassThrough {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        for &byte in bytes {
            self.0 = self.0.rotate_left(8) ^ u64::from(byte);
        }
    }
    fn write_u64(&mut self, value: u64) {
        self.0 = value;
    }
}

type VisitTable = HashMap<u64, u32, BuildHasherDefault<PassThrough>>;

/// The `bfs-tail` planner. One instance may play many games in turn; it
/// notices a new game or a different board by itself (and only then
/// allocates, to resize).
#[derive(Debug)]
pub struct BfsTail {
    params: BfsTailSettings,
    width: u16,
    height: u16,
    tail_rule: TailRule,
    n_free_cells: usize,
    /// `neighbours[cell][dir]`: the non-wall cell one step away, or [`NONE`].
    neighbours: Vec<[u16; 4]>,
    /// The virtual snake: a ring buffer of `n_cells` entries, head at
    /// `ring_head`, `ring_len` long; `occupied` marks its cells.
    ring: Vec<u16>,
    ring_head: usize,
    ring_len: usize,
    occupied: Vec<bool>,
    /// BFS scratch: a cell is seen in the current search iff `seen[cell] == stamp`,
    /// so starting a search costs nothing.
    seen: Vec<u32>,
    stamp: u32,
    dist: Vec<u32>,
    /// The direction taken to first reach each cell (index into [`Dir::ALL`]).
    came_by: Vec<u8>,
    queue: Vec<u16>,
    /// The current food path, first move first.
    path: Vec<Dir>,
    /// Cells popped from BFS queues during the current tick.
    nodes: u64,
    /// How often each body configuration (hashed) was seen since the last meal.
    visits: VisitTable,
    /// Set once the snake has shown it will not find a safe meal; cleared by
    /// the next meal.
    gambling: bool,
    /// What the last call saw, to notice a meal or a new game.
    last_tick: Option<u32>,
    last_len: usize,
    last_food: Option<u16>,
}

/// One candidate move of the fallback branches, ranked by [`better`].
#[derive(Clone, Copy, Debug)]
struct Candidate {
    dir: Dir,
    visits: u32,
    score: u32,
    plan_len: u32,
}

/// What the food branch found.
#[derive(Clone, Copy, Debug)]
struct FoodPlan {
    first: Dir,
    len: u32,
    /// The tail check passed (or eating fills the board).
    safe: bool,
}

impl BfsTail {
    /// A planner sized for `config`'s board, with the default parameters.
    pub fn new(config: &Config) -> BfsTail {
        BfsTail::with_params(config, BfsTailSettings::default())
    }

    /// A planner sized for `config`'s board.
    pub(crate) fn with_params(config: &Config, params: BfsTailSettings) -> BfsTail {
        let mut planner = BfsTail {
            params,
            width: 0,
            height: 0,
            tail_rule: config.tail_rule(),
            n_free_cells: 0,
            neighbours: Vec::new(),
            ring: Vec::new(),
            ring_head: 0,
            ring_len: 0,
            occupied: Vec::new(),
            seen: Vec::new(),
            stamp: 0,
            dist: Vec::new(),
            came_by: Vec::new(),
            queue: Vec::new(),
            path: Vec::new(),
            nodes: 0,
            visits: VisitTable::default(),
            gambling: false,
            last_tick: None,
            last_len: 0,
            last_food: None,
        };
        planner.resize(config);
        planner
    }

    /// Sizes every buffer for `config`.
    fn resize(&mut self, config: &Config) {
        let n_cells = config.n_cells();
        self.width = config.width();
        self.height = config.height();
        self.tail_rule = config.tail_rule();
        self.n_free_cells = config.n_free_cells() as usize;
        self.neighbours = (0..n_cells).map(|cell| neighbours_of(config, cell as u16)).collect();
        self.ring = vec![0; n_cells];
        self.ring_head = 0;
        self.ring_len = 0;
        self.occupied = vec![false; n_cells];
        self.seen = vec![0; n_cells];
        self.stamp = 0;
        self.dist = vec![0; n_cells];
        self.came_by = vec![0; n_cells];
        self.queue = vec![0; n_cells];
        self.path = Vec::with_capacity(n_cells);
        // One entry per tick between meals, and the gamble triggers (or the
        // stall limit) end a meal's wait; past a generous size we let the
        // table grow rather than reserve memory most games never touch.
        let entries = match self.params.patience {
            0 => config.stall_limit() as usize,
            sweeps => (sweeps as usize).saturating_mul(self.n_free_cells).min(config.stall_limit() as usize),
        };
        self.visits = VisitTable::with_capacity_and_hasher(entries.min(1 << 16) + 1, Default::default());
    }

    /// Whether this planner's buffers fit `config`'s board.
    fn fits(&self, config: &Config) -> bool {
        self.width == config.width()
            && self.height == config.height()
            && self.tail_rule == config.tail_rule()
            && self.n_free_cells == config.n_free_cells() as usize
            && self.neighbours.iter().enumerate().all(|(cell, &around)| around == neighbours_of(config, cell as u16))
    }

    fn neighbour(&self, cell: u16, dir: Dir) -> u16 {
        self.neighbours[usize::from(cell)][dir as usize]
    }

    // ---- the virtual snake -------------------------------------------------

    /// Makes the virtual snake a copy of the real one.
    fn load(&mut self, game: &SnakeGame) {
        for index in 0..self.ring_len {
            let cell = self.ring[(self.ring_head + index) % self.ring.len()];
            self.occupied[usize::from(cell)] = false;
        }
        self.ring_head = 0;
        self.ring_len = game.len();
        for (index, &cell) in game.body().iter().enumerate() {
            self.ring[index] = cell;
            self.occupied[usize::from(cell)] = true;
        }
    }

    fn v_head(&self) -> u16 {
        self.ring[self.ring_head]
    }

    fn v_tail(&self) -> u16 {
        self.ring[(self.ring_head + self.ring_len - 1) % self.ring.len()]
    }

    /// Moves the virtual head to `next`, growing when it eats. The caller has
    /// checked that the move is allowed.
    fn v_step(&mut self, next: u16, eats: bool) {
        if !eats {
            let tail = self.v_tail();
            self.occupied[usize::from(tail)] = false;
            self.ring_len -= 1;
        }
        self.ring_head = (self.ring_head + self.ring.len() - 1) % self.ring.len();
        self.ring[self.ring_head] = next;
        self.ring_len += 1;
        self.occupied[usize::from(next)] = true;
    }

    /// A hash of the virtual body, head first. The food does not move between
    /// meals, so the body alone tells the configurations of one meal apart.
    fn v_hash(&self) -> u64 {
        let mut hash = self.ring_len as u64;
        for index in 0..self.ring_len {
            let cell = self.ring[(self.ring_head + index) % self.ring.len()];
            hash = (hash.rotate_left(5) ^ u64::from(cell)).wrapping_mul(0x517C_C1B7_2722_0A95);
        }
        // SplitMix64's finaliser, so that similar bodies spread over the table.
        hash = (hash ^ (hash >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        hash = (hash ^ (hash >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        hash ^ (hash >> 31)
    }

    /// Whether the virtual head has a free cell beside it.
    fn v_can_move(&self) -> bool {
        let head = self.v_head();
        Dir::ALL.into_iter().any(|dir| {
            let next = self.neighbour(head, dir);
            next != NONE && !self.occupied[usize::from(next)]
        })
    }

    /// How often the virtual snake's configuration was seen since the last
    /// meal, as far as the loop rule cares.
    fn v_visits(&self) -> u32 {
        match self.params.loop_rule {
            LoopRule::Ignore => 0,
            LoopRule::Avoid => self.visits.get(&self.v_hash()).copied().unwrap_or(0),
        }
    }

    /// Loads the real snake and plays `dir` on the virtual one, if the move
    /// is legal and runs into nothing: a free cell, or the tail's cell when
    /// the rules let the tail leave first (never when the move eats, since
    /// then the tail stays). `false` if the move dies or is illegal.
    fn try_move(&mut self, game: &SnakeGame, dir: Dir) -> bool {
        if !game.is_legal(dir) {
            return false;
        }
        self.load(game);
        let next = self.neighbour(self.v_head(), dir);
        if next == NONE {
            return false;
        }
        let eats = game.food() == Some(next);
        let enters_leaving_tail = self.tail_rule == TailRule::Vacates && next == self.v_tail() && !eats;
        if self.occupied[usize::from(next)] && !enters_leaving_tail {
            return false;
        }
        self.v_step(next, eats);
        true
    }

    // ---- searches ----------------------------------------------------------

    fn new_search(&mut self) {
        self.stamp = self.stamp.wrapping_add(1);
        if self.stamp == 0 {
            // The stamps wrapped: forget every old mark, once in 4 billion searches.
            self.seen.fill(0);
            self.stamp = 1;
        }
    }

    /// The shortest path from the virtual head to `food` over free cells,
    /// into `self.path`; `false` when there is none. Ties go to the earlier
    /// direction in [`Dir::ALL`], the order BFS expands them in.
    fn path_to(&mut self, food: u16) -> bool {
        self.new_search();
        self.path.clear();
        let start = self.v_head();
        self.seen[usize::from(start)] = self.stamp;
        self.queue[0] = start;
        let (mut read, mut write) = (0, 1);
        let mut found = false;
        'search: while read < write {
            let cell = self.queue[read];
            read += 1;
            self.nodes += 1;
            for (index, dir) in Dir::ALL.into_iter().enumerate() {
                let next = self.neighbour(cell, dir);
                if next == NONE || self.seen[usize::from(next)] == self.stamp || self.occupied[usize::from(next)] {
                    continue;
                }
                self.seen[usize::from(next)] = self.stamp;
                self.came_by[usize::from(next)] = index as u8;
                if next == food {
                    found = true;
                    break 'search;
                }
                self.queue[write] = next;
                write += 1;
            }
        }
        if !found {
            return false;
        }
        let mut cell = food;
        while cell != start {
            let dir = Dir::ALL[usize::from(self.came_by[usize::from(cell)])];
            self.path.push(dir);
            cell = self.neighbour(cell, dir.opposite());
        }
        self.path.reverse();
        true
    }

    /// The shortest route at least `min_len` moves long from the virtual head
    /// to its own tail over free cells, or `None`. The head enters the tail's
    /// cell at the end of the route, so the tail must have left by then: it
    /// leaves after one tick, one more per meal on the way, and under
    /// [`TailRule::Blocks`] only at the end of that tick. See
    /// [`BfsTail::min_route`].
    fn tail_route(&mut self, min_len: u32) -> Option<u32> {
        let (head, tail) = (self.v_head(), self.v_tail());
        if self.ring_len <= 2 {
            // A snake of one or two cells keeps its tail beside its head
            // whatever free cell it moves to.
            return self.v_can_move().then_some(min_len);
        }
        if min_len <= 1 && Dir::ALL.into_iter().any(|dir| self.neighbour(head, dir) == tail) {
            return Some(1);
        }
        self.new_search();
        let mut write = 0;
        for dir in Dir::ALL {
            let next = self.neighbour(head, dir);
            if next != NONE && !self.occupied[usize::from(next)] && self.seen[usize::from(next)] != self.stamp {
                self.seen[usize::from(next)] = self.stamp;
                self.dist[usize::from(next)] = 1;
                self.queue[write] = next;
                write += 1;
            }
        }
        let mut read = 0;
        while read < write {
            let cell = self.queue[read];
            read += 1;
            self.nodes += 1;
            let dist = self.dist[usize::from(cell)];
            for dir in Dir::ALL {
                let next = self.neighbour(cell, dir);
                // A route that reaches the tail too soon is no use, but the
                // search goes on: a longer one may come round another side.
                if next == tail && dist + 1 >= min_len {
                    return Some(dist + 1);
                }
                if next == NONE || self.seen[usize::from(next)] == self.stamp || self.occupied[usize::from(next)] {
                    continue;
                }
                self.seen[usize::from(next)] = self.stamp;
                self.dist[usize::from(next)] = dist + 1;
                self.queue[write] = next;
                write += 1;
            }
        }
        None
    }

    /// The shortest route to the tail that is safe to follow with `meals`
    /// meals on the way. Under [`TailRule::Blocks`] that is 2 with none (a
    /// head merely next to its tail cannot follow it, since the tail's cell
    /// stays body for the tick); under [`TailRule::Vacates`] it is 1. Each
    /// meal keeps the tail in place one tick longer.
    fn min_route(&self, meals: u32) -> u32 {
        let base = match self.tail_rule {
            TailRule::Vacates => 1,
            TailRule::Blocks => 2,
        };
        base + meals
    }

    /// The number of free cells the virtual head can reach.
    fn free_area(&mut self) -> u32 {
        self.new_search();
        let head = self.v_head();
        self.seen[usize::from(head)] = self.stamp;
        self.queue[0] = head;
        let (mut read, mut write) = (0, 1);
        while read < write {
            let cell = self.queue[read];
            read += 1;
            self.nodes += 1;
            for dir in Dir::ALL {
                let next = self.neighbour(cell, dir);
                if next == NONE || self.seen[usize::from(next)] == self.stamp || self.occupied[usize::from(next)] {
                    continue;
                }
                self.seen[usize::from(next)] = self.stamp;
                self.queue[write] = next;
                write += 1;
            }
        }
        write as u32 - 1
    }

    // ---- the decision ------------------------------------------------------

    /// Notices a new game (resizing for a different board) and a meal, which
    /// both start a fresh record of configurations.
    fn observe(&mut self, game: &SnakeGame) {
        let new_game = self.last_tick.is_none_or(|tick| game.tick() != tick.wrapping_add(1));
        if new_game && !self.fits(game.config()) {
            self.resize(game.config());
        }
        if new_game || game.len() != self.last_len || game.food() != self.last_food {
            self.visits.clear();
            self.gambling = false;
        }
        self.last_tick = Some(game.tick());
        self.last_len = game.len();
        self.last_food = game.food();
    }

    /// Records the current configuration and decides whether the snake has
    /// shown it will not find a safe meal.
    fn update_gamble(&mut self, game: &SnakeGame) {
        let params = self.params;
        if params.loop_rule == LoopRule::Avoid || params.gamble_after > 0 {
            self.load(game);
            let count = self.visits.entry(self.v_hash()).or_insert(0);
            *count += 1;
            self.gambling |= params.gamble_after > 0 && *count >= params.gamble_after;
        }
        let config = game.config();
        let sweep = config.n_free_cells();
        if params.patience > 0 {
            self.gambling |= game.ticks_since_food() >= params.patience.saturating_mul(sweep);
        }
        if params.near_deadline {
            let to_stall = config.stall_limit().saturating_sub(game.ticks_since_food());
            let to_cap = config.max_ticks().map_or(u32::MAX, |cap| cap.saturating_sub(game.tick()));
            self.gambling |= to_stall.min(to_cap) <= sweep;
        }
    }

    /// Steps 1 and 2 of the write-up: the shortest path to the food, played
    /// out by a virtual snake to see whether it can still reach its tail.
    fn food_plan(&mut self, game: &SnakeGame) -> Option<FoodPlan> {
        let food = game.food()?;
        self.load(game);
        if !self.path_to(food) {
            return None;
        }
        for index in 0..self.path.len() {
            let next = self.neighbour(self.v_head(), self.path[index]);
            self.v_step(next, next == food);
        }
        let fills_board = self.ring_len >= self.n_free_cells;
        let min_len = self.min_route(self.params.slack);
        let safe = fills_board || self.tail_route(min_len).is_some();
        Some(FoodPlan { first: self.path[0], len: self.path.len() as u32, safe })
    }

    /// Step 3: among the moves after which the tail is still reachable, the
    /// one whose head ends farthest from the tail, to buy space (after the
    /// loop rule's preference).
    fn tail_move(&mut self, game: &SnakeGame) -> Option<Candidate> {
        let min_len = self.min_route(0);
        let mut best = None;
        for dir in Dir::ALL {
            if !self.try_move(game, dir) {
                continue;
            }
            let candidate = if self.ring_len >= self.n_free_cells {
                // Eating fills the board: nothing can beat that.
                Candidate { dir, visits: 0, score: u32::MAX, plan_len: 1 }
            } else {
                let Some(route) = self.tail_route(min_len) else {
                    continue;
                };
                Candidate { dir, visits: self.v_visits(), score: route, plan_len: route + 1 }
            };
            best = Some(better(best, candidate));
        }
        best
    }

    /// Step 4: any move that does not die at once, keeping the most free
    /// cells within the head's reach.
    fn any_move(&mut self, game: &SnakeGame) -> Option<Candidate> {
        let mut best = None;
        for dir in Dir::ALL {
            if !self.try_move(game, dir) {
                continue;
            }
            let candidate = Candidate { dir, visits: self.v_visits(), score: self.free_area(), plan_len: 1 };
            best = Some(better(best, candidate));
        }
        best
    }

    fn decide(&mut self, game: &SnakeGame) -> (Dir, PlanStats) {
        self.nodes = 0;
        self.observe(game);
        self.update_gamble(game);
        let stats = |kind, nodes, plan_len| PlanStats { kind, nodes, plan_len, ..PlanStats::default() };
        let food = self.food_plan(game);
        if let Some(plan) = food.filter(|plan| plan.safe) {
            return (plan.first, stats("food", self.nodes, plan.len));
        }
        // Even a gamble that looks hopeless beats waiting: a stall is as
        // certain a failure, and the next food may land where it helps.
        if let Some(plan) = food.filter(|_| self.gambling) {
            return (plan.first, stats("gamble", self.nodes, plan.len));
        }
        if let Some(candidate) = self.tail_move(game) {
            return (candidate.dir, stats("tail", self.nodes, candidate.plan_len));
        }
        if let Some(candidate) = self.any_move(game) {
            return (candidate.dir, stats("any", self.nodes, candidate.plan_len));
        }
        // Every move dies: the game is lost whatever we play.
        let dir = Dir::ALL.into_iter().find(|&dir| game.is_legal(dir)).unwrap_or(game.heading());
        (dir, stats("none", self.nodes, 1))
    }
}

/// `config`'s non-wall neighbours of `cell`, in [`Dir::ALL`] order.
fn neighbours_of(config: &Config, cell: u16) -> [u16; 4] {
    Dir::ALL.map(|dir| match config.neighbour(cell, dir) {
        Some(next) if !config.is_wall(next) => next,
        _ => NONE,
    })
}

/// The better of the best so far and a new candidate: fewer visits first,
/// then the higher score; on a tie the earlier one, which came first in
/// [`Dir::ALL`] order.
fn better(best: Option<Candidate>, candidate: Candidate) -> Candidate {
    match best {
        Some(best) if (best.visits, u32::MAX - best.score) <= (candidate.visits, u32::MAX - candidate.score) => best,
        _ => candidate,
    }
}

impl Planner<SnakeGame> for BfsTail {
    fn name(&self) -> &'static str {
        "bfs-tail"
    }

    fn params(&self) -> Vec<(String, String)> {
        let BfsTailSettings { slack, loop_rule, gamble_after, patience, near_deadline } = self.params;
        let loop_rule = match loop_rule {
            LoopRule::Ignore => "ignore",
            LoopRule::Avoid => "avoid",
        };
        [
            ("slack", slack.to_string()),
            ("loop_rule", loop_rule.to_string()),
            ("gamble_after", gamble_after.to_string()),
            ("patience", patience.to_string()),
            ("near_deadline", near_deadline.to_string()),
        ]
        .into_iter()
        .map(|(name, value)| (name.to_string(), value))
        .collect()
    }

    fn next_action(&mut self, game: &SnakeGame, _budget: &Budget) -> Result<Decision<Dir>, PlanError> {
        // A tick costs a handful of BFS passes over the board, far below any
        // budget worth polling for.
        let (action, stats) = self.decide(game);
        Ok(Decision { action, planned: Some(stats) })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::game::Show;
    use crate::game::snake::SnakeSetup;
    use crate::game::{OutcomeKind, Status};
    use crate::plan::play_to_end;
    use crate::rng::derive_seed;

    fn decide(planner: &mut BfsTail, game: &SnakeGame) -> (Dir, PlanStats) {
        let decision = planner.next_action(game, &Budget::unlimited()).expect("bfs-tail always answers");
        (decision.action, decision.planned.expect("every tick is a plan"))
    }

    fn dies(game: &SnakeGame, dir: Dir) -> bool {
        let mut next = game.clone();
        next.step(dir).is_err() || matches!(next.status(), Status::Over(outcome) if outcome.kind == OutcomeKind::Lost)
    }

    /// Plays `config` with seed `seed` to its end; the outcome and the moves.
    fn play(planner: &mut BfsTail, config: &Config, seed: u64) -> (OutcomeKind, Vec<Dir>) {
        let mut game = SnakeGame::new(config, seed);
        let mut moves = Vec::new();
        let outcome = play_to_end(&mut game, planner, &Budget::unlimited(), |dir, _| moves.push(dir))
            .expect("bfs-tail never plays an illegal move");
        (outcome.kind, moves)
    }

    #[test]
    fn legal_moves_only_and_no_death_while_a_safe_move_exists() {
        for tail_rule in [TailRule::Vacates, TailRule::Blocks] {
            let config = Config::try_from(SnakeSetup { tail_rule, ..SnakeSetup::open(5, 5) }).unwrap();
            let mut planner = BfsTail::new(&config);
            for seed in 0..30 {
                let mut game = SnakeGame::new(&config, seed);
                while game.status() == Status::Running {
                    let (dir, stats) = decide(&mut planner, &game);
                    assert!(game.is_legal(dir), "{tail_rule:?} seed {seed}: illegal {dir}");
                    assert!(["food", "gamble", "tail", "any", "none"].contains(&stats.kind));
                    assert!(stats.plan_len >= 1);
                    let safe_exists = Dir::ALL.into_iter().any(|other| !dies(&game, other));
                    assert!(
                        !(safe_exists && dies(&game, dir)),
                        "{tail_rule:?} seed {seed}: {dir} dies although a safe move exists\n{}",
                        game.render()
                    );
                    assert_eq!(stats.kind == "none", !safe_exists);
                    game.step(dir).unwrap();
                }
            }
        }
    }

    /// The shortest path to the food runs into a dead end: after eating, the
    /// head (at the food) has no way out, so the tail check must refuse it
    /// and the planner must go up into the open instead.
    #[test]
    fn tail_check_refuses_a_path_into_a_dead_end() {
        let picture = "XXX....\n*..0123\nXXXXXXX";
        for tail_rule in [TailRule::Vacates, TailRule::Blocks] {
            for params in [BfsTailSettings::default(), BfsTailSettings::bare()] {
                let game = SnakeGame::from_picture(picture, tail_rule, 0);
                let mut planner = BfsTail::with_params(game.config(), params);
                let (dir, stats) = decide(&mut planner, &game);
                assert_eq!((dir, stats.kind), (Dir::Up, "tail"), "{tail_rule:?} {params:?}");
            }
        }
    }

    /// Eating leaves the head beside its tail with every other neighbour
    /// body. Under `Vacates` it can follow the tail into its cell; under
    /// `Blocks` the tail's cell is body for the tick, so it cannot.
    #[test]
    fn a_head_beside_its_tail_is_enough_only_when_the_tail_vacates() {
        let picture = "432.\n*01.";
        let bare = BfsTailSettings::bare();
        let game = SnakeGame::from_picture(picture, TailRule::Vacates, 0);
        let mut planner = BfsTail::with_params(game.config(), bare);
        let (dir, stats) = decide(&mut planner, &game);
        assert_eq!((dir, stats.kind, stats.plan_len), (Dir::Left, "food", 1));

        let game = SnakeGame::from_picture(picture, TailRule::Blocks, 0);
        let mut planner = BfsTail::with_params(game.config(), bare);
        let (dir, stats) = decide(&mut planner, &game);
        assert_eq!((dir, stats.kind), (Dir::Left, "any"), "eating is refused, though it is the only move");

        // And the Vacates snake does survive after eating there.
        let mut game = SnakeGame::from_picture(picture, TailRule::Vacates, 0);
        let mut planner = BfsTail::with_params(game.config(), bare);
        for _ in 0..30 {
            if game.status() != Status::Running {
                break;
            }
            let (dir, _) = decide(&mut planner, &game);
            game.step(dir).unwrap();
        }
        assert!(!matches!(game.status(), Status::Over(outcome) if outcome.kind == OutcomeKind::Lost));
    }

    #[test]
    fn same_seed_same_moves_even_with_a_reused_planner() {
        let config = Config::try_from(SnakeSetup::chuyangliu()).unwrap();
        let seed = derive_seed(0, 7);
        let first = play(&mut BfsTail::new(&config), &config, seed);
        let mut reused = BfsTail::new(&config);
        play(&mut reused, &config, derive_seed(0, 8));
        assert_eq!(play(&mut reused, &config, seed), first);
        assert_ne!(play(&mut reused, &config, derive_seed(0, 9)).1, first.1);
        // A planner built for another board resizes itself on the first tick.
        let small = Config::try_from(SnakeSetup::open(6, 6)).unwrap();
        assert_eq!(play(&mut BfsTail::new(&small), &config, seed), first);
    }

    /// A cheap version of the chuyangliu benchmark: the anti-loop rules must
    /// keep every game from stalling, which the bare strategy does not.
    #[test]
    fn chuyangliu_games_do_not_stall() {
        let config = Config::try_from(SnakeSetup::chuyangliu()).unwrap();
        let mut planner = BfsTail::new(&config);
        let mut total_length = 0;
        for index in 0..50 {
            let mut game = SnakeGame::new(&config, derive_seed(0, index));
            let outcome = play_to_end(&mut game, &mut planner, &Budget::unlimited(), |_, _| {}).unwrap();
            assert_ne!(outcome.kind, OutcomeKind::Stalled, "episode {index}: {outcome}");
            total_length += game.len();
        }
        let average = total_length as f64 / 50.0;
        assert!(average >= 61.0, "average length {average}");

        let mut bare = BfsTail::with_params(&config, BfsTailSettings::bare());
        let stalled =
            (0..20).filter(|&index| play(&mut bare, &config, derive_seed(0, index)).0 == OutcomeKind::Stalled).count();
        assert!(stalled > 0, "the bare strategy stalls on these seeds, so this test can catch a regression");
    }

    #[test]
    fn buffers_are_sized_once() {
        let config = Config::try_from(SnakeSetup::chuyangliu()).unwrap();
        let mut planner = BfsTail::new(&config);
        let capacities = |planner: &BfsTail| {
            (
                planner.ring.as_ptr(),
                planner.queue.as_ptr(),
                planner.path.as_ptr(),
                planner.path.capacity(),
                planner.visits.capacity(),
                planner.seen.as_ptr(),
            )
        };
        let before = capacities(&planner);
        for index in 0..5 {
            play(&mut planner, &config, derive_seed(0, index));
        }
        assert_eq!(capacities(&planner), before);
    }

    /// Every bundled map parses, validates, and can be played to its end.
    /// (Tests may read files; the library under `game/` never does.)
    #[test]
    fn bundled_maps_parse_and_play() {
        let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/maps/snake");
        let mut n_maps = 0;
        for entry in std::fs::read_dir(dir).expect("maps/snake exists") {
            let path = entry.unwrap().path();
            let setup: SnakeSetup = crate::map::read(&path).unwrap();
            let config = Config::try_from(setup).map_err(|error| error.in_file(&path)).unwrap();
            let mut planner = BfsTail::new(&config);
            for seed in 0..2 {
                let (outcome, moves) = play(&mut planner, &config, seed);
                assert!(
                    moves.len() > 10,
                    "{}: seed {seed} ended as {outcome} after {} moves",
                    path.display(),
                    moves.len()
                );
            }
            n_maps += 1;
        }
        assert!(n_maps >= 3, "expected the Hawstein board and at least two more, found {n_maps}");
    }

    #[test]
    fn params_name_every_knob() {
        let config = Config::try_from(SnakeSetup::open(6, 6)).unwrap();
        let planner = BfsTail::new(&config);
        let names: Vec<String> = planner.params().into_iter().map(|(name, _)| name).collect();
        assert_eq!(names, ["slack", "loop_rule", "gamble_after", "patience", "near_deadline"]);
        assert_eq!(Planner::<SnakeGame>::name(&planner), "bfs-tail");
    }
}
