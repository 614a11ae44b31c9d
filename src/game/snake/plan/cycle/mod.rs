//! `cycle`: a Snake planner that never loses on a board with a Hamiltonian
//! cycle it can find, and that takes every shortcut to the food it can
//! prove safe.
//!
//! **The cycle.** Cut the board into blocks, each a small loop (2×2 blocks
//! where they tile the board; see `cover.rs` for the other shapes), and let
//! the snake drive round each loop in one fixed turning sense. In every
//! cell it then has two moves: on round its block, or across into the next
//! block. Choose, for every pair of side-by-side blocks, whether the snake
//! may cross between them: if the crossings form a spanning tree of the
//! blocks, the moves form one Hamiltonian cycle (the walk round the tree),
//! and a snake that follows it never dies.
//!
//! **What we keep.** Not one tree but the set of trees the body allows. Each
//! body cell but the head fixes one crossing: the move it made says whether
//! its block's crossing on that side is open or shut. The body lies on the
//! cycle of some tree exactly when those fixings agree, the open crossings
//! hold no loop, and the crossings left free still join every block (then
//! Kruskal's algorithm finds such a tree). We call that state *consistent*;
//! [`Cycle::consistent`] checks it in time linear in the body and the board.
//! From a consistent state the snake is safe forever: the cycle of any such
//! tree runs through the body in order, so its next cell is free.
//!
//! **Shortcuts.** Every tick we look for a shortest path to the food that
//! obeys the turning sense, over cells that are free by the time the head
//! gets there (the tail moves on as the head advances). A virtual snake
//! follows it; if the state after the meal is consistent, the path is
//! *committed*: the snake plays it out and is consistent again when it eats.
//! Four searches are tried in turn, as each may find a safe path the others
//! miss: two tie-break orders, and two that also refuse to cross into a
//! block the body still covers on arrival unless the body's own tree joins
//! the two blocks (a crossing that would close a loop).
//!
//! **No safe path.** Then the snake moves without committing: it takes the
//! first move of a path toward the food (the loop-refusing one if found)
//! or, when the first path's end would cut blocks off from the rest, of a
//! path into those blocks, so that it fills pockets before they close. It
//! takes that move only if the state after it is consistent, and otherwise
//! the other move, which then is (some tree's cycle takes one of the two,
//! and that one keeps the body on that cycle). Every state is consistent or
//! on a committed path, so the snake cannot lose. If one board-sweep of
//! ticks passes without a meal, it stops looking for shortcuts, fixes one
//! tree and follows its cycle to the food, which it reaches within a sweep:
//! it never stalls (given a stall limit of at least two sweeps; the default
//! is four). While no safe path turns up, the four searches run every
//! second tick and only the first in between.
//!
//! This is our own design. It learned from twanvl/snake's cell-tree agents
//! (commit ee180ede14ea15cc83d5e469de00404bd6c8e98b: driving round 2×2
//! cells, two moves a cell, moves only to the parent cell or a new one),
//! from arduano/snake-solver (commit 1ab022bbd113fab6c6e68a6b7806975df1cb94ac:
//! a spanning tree traced from the body, a path over it, the tree grown round
//! the path, detours where it cannot be) and from MatejKotas/AutoSnake3
//! (commit f36d1135cdea0f4a37c766a9e34b3d38cfdb5281, after AlphaPhoenix's
//! dynamic Hamiltonian cycle repair: keep a cycle through the body and edit
//! it as the snake goes). The consistency test, which replaces the cell-tree
//! agents' reachability heuristics by a proof and lets one check stand for
//! every tree at once, and the pocket steering are ours.
//!
//! **Which boards.** `Cover::of` builds the blocks: 2×2 blocks where the
//! free cells tile into them; on a rectangle with an odd side, 2×2, 3×2
//! and 2×3 blocks (`grid.rs`); on any other board, a Hamiltonian cycle found
//! by search (`search.rs`) cut into small loops (`split.rs`). An odd × odd
//! rectangle has no Hamiltonian cycle (it has more cells of one chessboard
//! colour than of the other); there one 3×3 block holds a *switch*, so the
//! cycles run through every cell but one of two, and the snake picks which
//! as it passes. Under `tail vacates` that still wins every game; under
//! `tail blocks` a state is kept safe only while two cells are free, so
//! the snake is sure of every cell but two and wins only when the last
//! foods fall right. Where the search proves there is no cycle (a dead
//! end: a head that enters it cannot turn back, so no planner can promise
//! even one meal there) or gives up, and while a start body lies on no
//! cycle of the blocks, `cycle` plays as the default `bfs-tail`, which
//! never stalls but may lose; see docs/games/snake.md.
//!
//! It owns only its tables and scratch buffers, sized once per board:
//! planning a tick allocates nothing.

mod cover;
mod grid;
mod loops;
mod search;
mod split;

use crate::game::Game;
use crate::game::snake::plan::bfs_tail::BfsTail;
use crate::game::snake::plan::cycle::cover::{CLOCKWISE, COUNTERCLOCKWISE, Cover, NO_EDGE, find, union};
use crate::game::snake::plan::cycle::loops::{NONE, free_neighbours};
use crate::game::snake::{Config, Dir, SnakeGame, TailRule};
use crate::plan::{Budget, Decision, PlanError, PlanStats, Planner};

/// The path searches tried in turn: (across first, tree rule).
/// While no safe path turns up, all the path searches run every
/// `FULL_SEARCH_EVERY`-th tick and only the first in between: halves the
/// cost of those ticks and, measured over 30×30 games, costs no moves.
const FULL_SEARCH_EVERY: u32 = 2;
const ATTEMPTS: [(bool, bool); 4] = [(false, false), (true, false), (false, true), (true, true)];

/// What the planner is doing in the current game.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Mode {
    /// The board or the body fits no block cycle: play as `bfs-tail`.
    Fallback,
    /// Driving round the blocks in this turning sense.
    Blocks(usize),
}

/// The `cycle` planner. See the module docs.
#[derive(Debug)]
pub struct Cycle {
    width: u16,
    tail_rule: TailRule,
    n_free_cells: usize,
    cover: Option<Cover>,
    mode: Mode,
    fallback: BfsTail,
    /// `free_at[cell]`: how many moves from now the head may enter the cell
    /// (0 if it is free now). Set for the current body only.
    free_at: Vec<u32>,
    /// BFS scratch: a cell is seen iff `seen[cell] == stamp`.
    seen: Vec<u32>,
    stamp: u32,
    dist: Vec<u32>,
    came_from: Vec<u16>,
    queue: Vec<u16>,
    /// The last shortest path found, first step first, the food last.
    path: Vec<u16>,
    /// The committed path, first step first; `plan[plan_next..]` is left.
    plan: Vec<u16>,
    plan_next: usize,
    /// A body to test for consistency, head first.
    virtual_body: Vec<u16>,
    /// Consistency scratch: crossing `e` is fixed iff `fixed[e] == fix_stamp`,
    /// open iff also `open[e]`.
    fixed: Vec<u32>,
    open: Vec<bool>,
    fix_stamp: u32,
    opened: Vec<u32>,
    parent: Vec<u32>,
    /// The tree being followed once a sweep has passed without food.
    tree: Vec<bool>,
    following_tree: bool,
    /// Blocks a failed plan would cut off from the head's block.
    cut_off: Vec<bool>,
    /// The last failed consistency test failed for want of joins (not for a
    /// loop or a clash), so `parent` holds the blocks' components.
    joined_too_few: bool,
    /// `block_free_at[block]`: the largest `free_at` of the block's cells.
    block_free_at: Vec<u32>,
    /// `block_parent[block]`: for a block the body covers, the block the
    /// body entered it from (walking from the tail), else [`NO_EDGE`].
    block_parent: Vec<u32>,
    last_tick: Option<u32>,
    nodes: u64,
    uncommitted_streak: u32,
}

impl Cycle {
    /// A planner sized for `config`'s board.
    pub fn new(config: &Config) -> Cycle {
        let n_cells = config.n_cells();
        let cover = Cover::of(config);
        let n_edges = cover.as_ref().map_or(0, |cover| cover.edges.len());
        let n_blocks = cover.as_ref().map_or(1, |cover| cover.n_blocks);
        Cycle {
            width: config.width(),
            tail_rule: config.tail_rule(),
            n_free_cells: config.n_free_cells() as usize,
            cover,
            mode: Mode::Fallback,
            fallback: BfsTail::new(config),
            free_at: vec![0; n_cells],
            seen: vec![0; n_cells],
            stamp: 0,
            dist: vec![0; n_cells],
            came_from: vec![NONE; n_cells],
            queue: vec![0; n_cells],
            path: Vec::with_capacity(n_cells),
            plan: Vec::with_capacity(n_cells),
            plan_next: 0,
            virtual_body: Vec::with_capacity(n_cells + 1),
            fixed: vec![0; n_edges],
            open: vec![false; n_edges],
            fix_stamp: 0,
            opened: Vec::with_capacity(n_edges),
            parent: vec![0; n_blocks],
            tree: vec![false; n_edges],
            following_tree: false,
            cut_off: vec![false; n_blocks],
            joined_too_few: false,
            block_free_at: vec![0; n_blocks],
            block_parent: vec![NO_EDGE; n_blocks],
            last_tick: None,
            nodes: 0,
            uncommitted_streak: 0,
        }
    }

    /// Whether the board has a block tiling, so that `cycle` can promise
    /// never to lose on it (given a start body that lies on a block cycle,
    /// as every straight start body and every length-1 start does).
    #[cfg(test)]
    pub(crate) fn board_has_block_cycle(config: &Config) -> bool {
        Cover::of(config).is_some()
    }

    /// Whether the last game planned so far plays on a block cycle.
    #[cfg(test)]
    pub(crate) fn on_block_cycle(&self) -> bool {
        matches!(self.mode, Mode::Blocks(_))
    }

    fn dir_to(&self, from: u16, to: u16) -> Dir {
        if to + 1 == from {
            Dir::Left
        } else if from + 1 == to {
            Dir::Right
        } else if to + self.width == from {
            Dir::Up
        } else {
            Dir::Down
        }
    }

    /// Whether `self.virtual_body` (head first) lies on the cycle of some
    /// block tree under `sense`; with `keep_tree`, also stores one such tree
    /// in `self.tree`.
    fn consistent(&mut self, sense: usize, keep_tree: bool) -> bool {
        self.joined_too_few = false;
        let Some(cover) = &self.cover else { return false };
        self.fix_stamp = self.fix_stamp.wrapping_add(1);
        if self.fix_stamp == 0 {
            self.fixed.fill(0);
            self.fix_stamp = 1;
        }
        if cover.cycle_len < self.n_free_cells && !fits_short_cycles(cover, &self.virtual_body, self.tail_rule) {
            return false;
        }
        self.opened.clear();
        let (moves, crossing) = (&cover.moves[sense], &cover.crossing[sense]);
        for pair in self.virtual_body.windows(2) {
            let (next, cell) = (pair[0], pair[1]);
            let [round, across] = moves[usize::from(cell)];
            let open = if next == across {
                true
            } else if next == round {
                false
            } else {
                return false;
            };
            let edge = crossing[usize::from(cell)];
            if edge == NO_EDGE {
                continue;
            }
            let slot = edge as usize;
            if self.fixed[slot] == self.fix_stamp {
                if self.open[slot] != open {
                    return false;
                }
            } else {
                self.fixed[slot] = self.fix_stamp;
                self.open[slot] = open;
                if open {
                    self.opened.push(edge);
                }
            }
        }
        for (index, parent) in self.parent.iter_mut().enumerate() {
            *parent = index as u32;
        }
        if keep_tree {
            self.tree.fill(false);
        }
        // A loop among the open crossings already fails the test, but the
        // joins are still counted, so that `parent` tells which blocks the
        // body cuts off (see `mark_cut_off`).
        let mut looped = false;
        let mut merges = 0;
        for &edge in &self.opened {
            let (a, b) = cover.edges[edge as usize];
            if union(&mut self.parent, a, b) {
                merges += 1;
                if keep_tree {
                    self.tree[edge as usize] = true;
                }
            } else {
                looped = true;
            }
        }
        for (edge, &(a, b)) in cover.edges.iter().enumerate() {
            if self.fixed[edge] == self.fix_stamp {
                continue;
            }
            if union(&mut self.parent, a, b) {
                merges += 1;
                if keep_tree {
                    self.tree[edge] = true;
                }
            }
        }
        self.joined_too_few = merges + 1 != cover.n_free_blocks;
        !looped && !self.joined_too_few
    }

    /// Loads the real body into `virtual_body`, with `next` in front (and
    /// the tail dropped unless `eats`) when given.
    fn load(&mut self, game: &SnakeGame, next: Option<(u16, bool)>) {
        self.virtual_body.clear();
        let mut len = game.len();
        if let Some((cell, eats)) = next {
            self.virtual_body.push(cell);
            if !eats {
                len -= 1;
            }
        }
        self.virtual_body.extend(game.body().iter().take(len));
    }

    /// The shortest path from the head to the food under `sense`, over cells
    /// free by the time the head arrives, into `self.path`.
    fn shortest_path(&mut self, game: &SnakeGame, sense: usize, across_first: bool, tree_rule: bool) -> bool {
        match game.food() {
            Some(food) => self.shortest_path_to(game, sense, across_first, tree_rule, food),
            None => false,
        }
    }

    /// The shortest path from the head to `goal` under `sense` (to any cell
    /// of a block marked in `cut_off` when `goal` is [`NONE`]), over cells
    /// free by the time the head arrives, into `self.path`.
    fn shortest_path_to(
        &mut self,
        game: &SnakeGame,
        sense: usize,
        across_first: bool,
        tree_rule: bool,
        food: u16,
    ) -> bool {
        let Some(cover) = &self.cover else { return false };
        let moves = &cover.moves[sense];
        self.stamp = self.stamp.wrapping_add(1);
        if self.stamp == 0 {
            self.seen.fill(0);
            self.stamp = 1;
        }
        self.path.clear();
        let start = game.head();
        self.seen[usize::from(start)] = self.stamp;
        self.dist[usize::from(start)] = 0;
        self.queue[0] = start;
        let (mut read, mut write) = (0, 1);
        while read < write {
            let cell = self.queue[read];
            read += 1;
            self.nodes += 1;
            let arrive = self.dist[usize::from(cell)] + 1;
            let [round, across] = moves[usize::from(cell)];
            for next in if across_first { [across, round] } else { [round, across] } {
                if next == NONE
                    || self.seen[usize::from(next)] == self.stamp
                    || self.free_at[usize::from(next)] > arrive
                {
                    continue;
                }
                if tree_rule && next == across {
                    let block = cover.block_of[usize::from(next)];
                    let from = cover.block_of[usize::from(cell)];
                    if block != from
                        && self.block_free_at[block as usize] > arrive
                        && self.block_parent[from as usize] != block
                    {
                        continue;
                    }
                }
                self.seen[usize::from(next)] = self.stamp;
                self.dist[usize::from(next)] = arrive;
                self.came_from[usize::from(next)] = cell;
                if next == food || (food == NONE && self.cut_off[cover.block_of[usize::from(next)] as usize]) {
                    let mut cell = next;
                    while cell != start {
                        self.path.push(cell);
                        cell = self.came_from[usize::from(cell)];
                    }
                    self.path.reverse();
                    return true;
                }
                self.queue[write] = next;
                write += 1;
            }
        }
        false
    }

    /// Whether the state after playing `self.path` to the food is
    /// consistent (or the meal fills the board).
    fn path_is_safe(&mut self, game: &SnakeGame, sense: usize) -> bool {
        let len_after = game.len() + 1;
        if len_after >= self.n_free_cells {
            return true;
        }
        self.virtual_body.clear();
        self.virtual_body.extend(self.path.iter().rev().take(len_after));
        let rest = len_after - self.virtual_body.len();
        self.virtual_body.extend(game.body().iter().take(rest));
        if len_after + 1 == self.n_free_cells && self.tail_rule == TailRule::Blocks {
            // The snake then fills every cycle: safe only if the one cell
            // left is beside the food, where the head moves in and wins.
            return self.last_cell_beside_head(game.config());
        }
        self.consistent(sense, false)
    }

    /// Whether the virtual head has a free neighbour that the virtual body
    /// does not cover.
    fn last_cell_beside_head(&self, config: &Config) -> bool {
        let head = self.virtual_body[0];
        free_neighbours(config, head).into_iter().any(|cell| cell != NONE && !self.virtual_body.contains(&cell))
    }

    fn set_free_at(&mut self, game: &SnakeGame, clear: bool) {
        let Some(cover) = &self.cover else { return };
        let len = game.len() as u32;
        let extra = match self.tail_rule {
            TailRule::Vacates => 0,
            TailRule::Blocks => 1,
        };
        for (index, &cell) in game.body().iter().enumerate() {
            // The neck is never the next cell, even when it is the tail.
            let at = if clear {
                0
            } else if index == 1 {
                (len - 1 + extra).max(2)
            } else {
                len - index as u32 + extra
            };
            self.free_at[usize::from(cell)] = at;
            let block = cover.block_of[usize::from(cell)] as usize;
            if clear {
                self.block_free_at[block] = 0;
                self.block_parent[block] = NO_EDGE;
            } else {
                self.block_free_at[block] = self.block_free_at[block].max(at);
            }
        }
        if !clear {
            // Walking from the tail, each block's parent is the block the
            // body first entered it from.
            let mut previous = NO_EDGE;
            for &cell in game.body().iter().rev() {
                let block = cover.block_of[usize::from(cell)];
                if self.block_parent[block as usize] == NO_EDGE && block != previous {
                    self.block_parent[block as usize] = previous;
                }
                previous = block;
            }
        }
    }

    /// Notices a new game: picks the mode and forgets the last game's plan.
    fn observe(&mut self, game: &SnakeGame) {
        let new_game = self.last_tick.is_none_or(|tick| game.tick() != tick.wrapping_add(1));
        self.last_tick = Some(game.tick());
        if new_game {
            self.mode = Mode::Fallback;
            self.plan.clear();
            self.plan_next = 0;
            self.following_tree = false;
        }
        if self.mode == Mode::Fallback && self.cover.is_some() {
            // A body that lies on no block cycle may come to lie on one once
            // its tail has moved on; a cheap test every tick until then.
            self.load(game, None);
            if let Some(sense) = [COUNTERCLOCKWISE, CLOCKWISE].into_iter().find(|&sense| self.consistent(sense, false))
            {
                self.mode = Mode::Blocks(sense);
            }
        }
        if game.ticks_since_food() == 0 {
            self.following_tree = false;
        }
    }

    fn decide(&mut self, game: &SnakeGame, sense: usize) -> (Dir, PlanStats) {
        let head = game.head();
        let stats =
            |kind, nodes, plan_len: usize| PlanStats { kind, nodes, plan_len: plan_len as u32, ..PlanStats::default() };
        let moves = self.cover.as_ref().expect("block mode has a cover").moves[sense][usize::from(head)];

        if self.following_tree {
            let cover = self.cover.as_ref().expect("block mode has a cover");
            let edge = cover.crossing[sense][usize::from(head)];
            let mut next = if edge != NO_EDGE && self.tree[edge as usize] { moves[1] } else { moves[0] };
            if edge == NO_EDGE && moves[1] != NONE {
                // The switch's entry: into the food if it is one of the
                // switch's cells and that is safe, else whichever is.
                let food_first = if game.food() == Some(moves[1]) { [moves[1], moves[0]] } else { moves };
                next = food_first.into_iter().find(|&next| self.is_safe_move(game, sense, next)).unwrap_or(moves[0]);
            }
            return (self.dir_to(head, next), stats("tree", 0, 1));
        }

        let committed_left = self.plan.len() - self.plan_next;
        if committed_left > 0 {
            let next = self.plan[self.plan_next];
            self.advance_plan();
            return (self.dir_to(head, next), stats("path", 0, committed_left));
        }
        self.set_free_at(game, false);
        let mut found = false;
        let mut safe = false;
        let mut preferred = NONE;
        let mut pocket_first = NONE;
        self.uncommitted_streak += 1;
        let n_attempts = if self.uncommitted_streak % FULL_SEARCH_EVERY == 1 { ATTEMPTS.len() } else { 1 };
        for (across_first, tree_rule) in ATTEMPTS.into_iter().take(n_attempts) {
            if !self.shortest_path(game, sense, across_first, tree_rule) {
                continue;
            }
            if !found || (tree_rule && !across_first) {
                preferred = self.path[0];
                found = true;
            }
            safe = self.path_is_safe(game, sense);
            if safe {
                break;
            }
            if pocket_first == NONE && self.mark_cut_off(game) && self.shortest_path_to(game, sense, false, false, NONE)
            {
                pocket_first = self.path[0];
            }
        }
        self.set_free_at(game, true);
        let preferred = if pocket_first != NONE { pocket_first } else { preferred };
        if safe {
            self.uncommitted_streak = 0;
            return self.commit(head, "food");
        }
        if game.ticks_since_food() as usize >= self.n_free_cells {
            // A sweep without food: fix one tree and follow its cycle, which
            // reaches the food within a sweep.
            self.load(game, None);
            let ok = self.consistent(sense, true);
            debug_assert!(ok || self.short_cycles(), "an uncommitted state is always consistent");
            if ok {
                self.following_tree = true;
                return self.decide(game, sense);
            }
        }
        // The path's first move if it keeps the state consistent, else the
        // other move, which then does.
        let candidates = if preferred == moves[1] { [moves[1], moves[0]] } else { [moves[0], moves[1]] };
        for next in candidates {
            if self.is_safe_move(game, sense, next) {
                let kind = if next == preferred { "toward" } else { "cycle" };
                return (self.dir_to(head, next), stats(kind, self.nodes, 1));
            }
        }
        // Only where the cycles miss a cell can a state have no safe move:
        // under `tail blocks`, a snake one cell short of filling them must
        // eat the food in front of it. Take any move into a free cell.
        debug_assert!(self.short_cycles(), "a consistent state always has a consistent move");
        let free = |next: u16| next != NONE && (!game.is_occupied(next) || self.enters_leaving_tail(game, next));
        let next = candidates.into_iter().find(|&next| free(next));
        let dir = match next {
            Some(next) => self.dir_to(head, next),
            None => Dir::ALL.into_iter().find(|&dir| game.is_legal(dir)).unwrap_or(game.heading()),
        };
        (dir, stats("none", self.nodes, 1))
    }

    /// Whether moving into `next` is legal and leaves the state consistent
    /// (or wins).
    fn is_safe_move(&mut self, game: &SnakeGame, sense: usize, next: u16) -> bool {
        if next == NONE || (game.is_occupied(next) && !self.enters_leaving_tail(game, next)) {
            return false;
        }
        let eats = game.food() == Some(next);
        if self.short_cycles() && eats && game.len() + 1 >= self.n_free_cells {
            return true;
        }
        self.load(game, Some((next, eats)));
        if self.short_cycles() && eats && game.len() + 2 == self.n_free_cells && self.tail_rule == TailRule::Blocks {
            return self.last_cell_beside_head(game.config());
        }
        self.consistent(sense, false)
    }

    /// Whether the cover's cycles miss some free cell (a switch's hole, or
    /// cells left out).
    fn short_cycles(&self) -> bool {
        self.cover.as_ref().is_some_and(|cover| cover.cycle_len < self.n_free_cells)
    }

    /// After a failed [`Cycle::consistent`] that joined too few blocks, marks
    /// in `cut_off` the blocks not joined to the food's block; `false` if
    /// none is cut off that way.
    fn mark_cut_off(&mut self, game: &SnakeGame) -> bool {
        if !self.joined_too_few {
            return false;
        }
        let (Some(cover), Some(food)) = (&self.cover, game.food()) else { return false };
        if !cover.covers(food) {
            return false;
        }
        let food_root = find(&mut self.parent, cover.block_of[usize::from(food)]);
        let mut any = false;
        for block in 0..self.cut_off.len() {
            let free_block = block < cover.n_blocks && cover.block_free[block];
            let cut = free_block && find(&mut self.parent, block as u32) != food_root;
            self.cut_off[block] = cut;
            any |= cut;
        }
        any
    }

    /// Makes the path just found the committed plan and plays its first move.
    fn commit(&mut self, head: u16, kind: &'static str) -> (Dir, PlanStats) {
        std::mem::swap(&mut self.plan, &mut self.path);
        self.plan_next = 0;
        let (next, len) = (self.plan[0], self.plan.len());
        self.advance_plan();
        (self.dir_to(head, next), PlanStats { kind, nodes: self.nodes, plan_len: len as u32, ..PlanStats::default() })
    }

    fn advance_plan(&mut self) {
        self.plan_next += 1;
        if self.plan_next == self.plan.len() {
            self.plan.clear();
            self.plan_next = 0;
        }
    }

    /// Whether moving into `cell`, which the body covers, is allowed because
    /// it is the tail's cell and the tail leaves this tick.
    fn enters_leaving_tail(&self, game: &SnakeGame, cell: u16) -> bool {
        // At length two the tail is the neck, and reversing is illegal.
        self.tail_rule == TailRule::Vacates && game.len() > 2 && cell == game.tail() && game.food() != Some(cell)
    }
}

impl Planner<SnakeGame> for Cycle {
    fn name(&self) -> &'static str {
        "cycle"
    }

    fn params(&self) -> Vec<(String, String)> {
        Vec::new()
    }

    fn next_action(&mut self, game: &SnakeGame, budget: &Budget) -> Result<Decision<Dir>, PlanError> {
        // A game on a large board runs for hundreds of thousands of ticks:
        // look at the cancel flag (an atomic load) once a tick, so Ctrl-C
        // stops it within a tick.
        if let Some(error) = budget.exhausted() {
            return Err(error);
        }
        self.observe(game);
        self.nodes = 0;
        match self.mode {
            Mode::Fallback => self.fallback.next_action(game, budget),
            Mode::Blocks(sense) => {
                let (action, stats) = self.decide(game, sense);
                Ok(Decision { action, planned: Some(stats) })
            }
        }
    }
}

/// The checks a body must pass, beyond lying on a cycle of the blocks, when
/// the cover's cycles miss a cell: every cell covered, at most one of the
/// switch's cells, and under `tail blocks` a free cell left on the cycle.
fn fits_short_cycles(cover: &Cover, body: &[u16], tail_rule: TailRule) -> bool {
    if body.iter().any(|&cell| !cover.covers(cell)) {
        return false;
    }
    if tail_rule == TailRule::Blocks && body.len() >= cover.cycle_len {
        return false;
    }
    match cover.switch {
        Some([a, b]) => !(body.contains(&a) && body.contains(&b)),
        None => true,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::game::snake::{SnakeSetup, StartRule};
    use crate::game::{OutcomeKind, Status};
    use crate::plan::play_to_end;
    use crate::rng::derive_seed;

    /// One game: how it ended, after how many ticks, at what length.
    fn play(config: &Config, seed: u64) -> (OutcomeKind, u32, usize) {
        let mut game = SnakeGame::new(config, seed);
        let mut planner = Cycle::new(config);
        let outcome = play_to_end(&mut game, &mut planner, &Budget::unlimited(), |_, _| {}).expect("legal moves");
        assert!(planner.on_block_cycle() || matches!(game.status(), Status::Over(_)));
        (outcome.kind, game.tick(), game.len())
    }

    #[track_caller]
    fn check_always_wins(setup: SnakeSetup, n_games: u64) {
        let config = Config::try_from(setup).expect("valid board");
        for index in 0..n_games {
            let (kind, ticks, _) = play(&config, derive_seed(0, index));
            assert_eq!(kind, OutcomeKind::Won, "{} game {index} after {ticks} ticks", config.describe_rules());
        }
    }

    #[test]
    fn wins_every_game_on_small_even_boards() {
        for (width, height) in [(4, 4), (6, 4), (6, 6), (8, 6), (8, 8)] {
            for tail_rule in [TailRule::Vacates, TailRule::Blocks] {
                check_always_wins(SnakeSetup { tail_rule, ..SnakeSetup::open(width, height) }, 30);
            }
            check_always_wins(SnakeSetup { start: StartRule::Random, ..SnakeSetup::open(width, height) }, 20);
        }
        check_always_wins(SnakeSetup::chuyangliu(), 100);
    }

    /// A board with walls inside (a 12×12 arena, 2×2 pillars, as
    /// `maps/snake/arena12.txt`): its free cells tile into 2×2 blocks at an
    /// odd offset, so it has a block cycle and `cycle` must never lose.
    #[test]
    fn wins_every_game_on_a_walled_board_that_has_a_cycle() {
        let arena = "start 4 1 right 3\n\
            XXXXXXXXXXXX\nX..........X\nX..........X\nX..XX..XX..X\nX..XX..XX..X\nX..........X\n\
            X..........X\nX..XX..XX..X\nX..XX..XX..X\nX..........X\nX..........X\nXXXXXXXXXXXX";
        let setup = <SnakeSetup as crate::map::Level>::parse(arena).unwrap();
        assert!(Cycle::board_has_block_cycle(&Config::try_from(setup.clone()).unwrap()));
        for tail_rule in [TailRule::Vacates, TailRule::Blocks] {
            check_always_wins(SnakeSetup { tail_rule, ..setup.clone() }, 30);
        }
        check_always_wins(SnakeSetup { start: StartRule::Random, ..setup }, 30);
    }

    #[test]
    fn wins_every_game_on_rectangles_with_an_odd_side() {
        for (width, height) in [(3, 4), (5, 6), (6, 7), (7, 8), (9, 4), (4, 3)] {
            for tail_rule in [TailRule::Vacates, TailRule::Blocks] {
                let open = SnakeSetup { tail_rule, ..SnakeSetup::open(width, height) };
                check_always_wins(open.clone(), 10);
                check_always_wins(SnakeSetup { start: StartRule::Random, ..open }, 10);
            }
        }
    }

    /// Two 6×7 rooms joined by one-cell doors (`maps/snake/two_rooms.txt`):
    /// no 2×2 tiling fits, so the cycle comes from the search.
    #[test]
    fn wins_every_game_on_a_walled_board_whose_cycle_is_searched_for() {
        let rooms = "start 2 1 right 3\n......X......\n......X......\n.............\n......X......\n\
            ......X......\n.............\n......X......";
        let setup = <SnakeSetup as crate::map::Level>::parse(rooms).unwrap();
        for tail_rule in [TailRule::Vacates, TailRule::Blocks] {
            check_always_wins(SnakeSetup { tail_rule, ..setup.clone() }, 10);
            check_always_wins(SnakeSetup { tail_rule, start: StartRule::Random, ..setup.clone() }, 10);
        }
    }

    /// An odd × odd board has no Hamiltonian cycle. The switch gives cycles
    /// through all cells but one, either of two: under `tail vacates` the
    /// snake still wins every game; under `tail blocks` it is guaranteed all
    /// cells but two, and loses only with one cell left.
    #[test]
    fn on_odd_by_odd_boards_it_wins_under_vacates_and_fills_all_but_two_under_blocks() {
        for (width, height) in [(3, 3), (5, 5), (7, 5)] {
            let open = SnakeSetup::open(width, height);
            check_always_wins(open.clone(), 20);
            check_always_wins(SnakeSetup { start: StartRule::Random, ..open.clone() }, 20);
            let n_cells = usize::from(width * height);
            for start in [StartRule::Default, StartRule::Random] {
                let config =
                    Config::try_from(SnakeSetup { start, tail_rule: TailRule::Blocks, ..open.clone() }).unwrap();
                for index in 0..20 {
                    let (kind, ticks, len) = play(&config, derive_seed(0, index));
                    let at_least = if kind == OutcomeKind::Lost { n_cells - 1 } else { n_cells - 2 };
                    assert!(
                        len >= at_least,
                        "{width}x{height} game {index}: {kind:?} at length {len} after {ticks} ticks"
                    );
                }
            }
        }
    }

    /// Where no cycle exists and no switch helps (a dead end: the head
    /// cannot turn back out of it), `cycle` plays exactly as the default
    /// `bfs-tail`, move for move.
    #[test]
    fn on_a_board_with_a_dead_end_it_plays_as_bfs_tail() {
        let setup = <SnakeSetup as crate::map::Level>::parse("......\n......\n......\n......\n.XXXXX").unwrap();
        let config = Config::try_from(setup).unwrap();
        assert!(!Cycle::board_has_block_cycle(&config));
        for index in 0..20 {
            let seed = derive_seed(0, index);
            let play_with = |planner: &mut dyn Planner<SnakeGame>| {
                let mut game = SnakeGame::new(&config, seed);
                let mut moves = Vec::new();
                let outcome = play_to_end(&mut game, planner, &Budget::unlimited(), |dir, _| moves.push(dir)).unwrap();
                (outcome.kind, moves)
            };
            let mut cycle = Cycle::new(&config);
            let (kind, moves) = play_with(&mut cycle);
            assert!(!cycle.on_block_cycle());
            assert_eq!((kind, moves), play_with(&mut BfsTail::new(&config)), "game {index}");
        }
    }

    /// A start body that lies on no block cycle (bent against both turning
    /// senses) is played as `bfs-tail` until it does, then on the cycle.
    #[test]
    fn a_start_off_every_block_cycle_joins_one_later_and_wins() {
        let mut game = SnakeGame::from_picture("*.....\n...0..\n..21..\n......\n......\n......", TailRule::Vacates, 4);
        let config = game.config().clone();
        let mut planner = Cycle::new(&config);
        let first = planner.next_action(&game, &Budget::unlimited()).unwrap();
        assert!(!planner.on_block_cycle(), "the bent start lies on no block cycle");
        game.step(first.action).unwrap();
        let outcome = play_to_end(&mut game, &mut planner, &Budget::unlimited(), |_, _| {}).unwrap();
        assert!(planner.on_block_cycle());
        assert_eq!(outcome.kind, OutcomeKind::Won);
    }

    #[test]
    fn a_cancelled_budget_stops_it_within_a_tick() {
        let config = Config::try_from(SnakeSetup::open(8, 8)).unwrap();
        let game = SnakeGame::new(&config, 1);
        let flag = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(true));
        let error = Cycle::new(&config).next_action(&game, &Budget::new(None, Some(flag))).unwrap_err();
        assert!(matches!(error, PlanError::Cancelled), "{error:?}");
    }
}
