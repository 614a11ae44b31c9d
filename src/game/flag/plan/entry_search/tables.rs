//! The entry search's tables that depend on the board alone, built once per
//! level: the macro moves (every tile that can be entered next from a cell,
//! at its cost in moves over permanent tiles), cell colours, the walk to the
//! flag and the Zobrist keys; and turning an entry order back into moves.

use super::INFINITE;
use crate::game::flag::{Config, Dir, NO_CELL, Tile};
use crate::rng::GameRng;

/// The board-dependent tables of the entry search, built once per level.
#[derive(Clone, Debug)]
pub(crate) struct BoardTables {
    pub(crate) n_cells: usize,
    pub(super) flag: u16,
    pub(super) permanent: Vec<bool>,
    /// `(column + row) % 2` of each cell.
    pub(super) colour: Vec<u8>,
    pub(super) neighbours: Vec<[u16; 4]>,
    /// Macro moves from cell `p`: `macro_targets[macro_start[p]..macro_start[p + 1]]`,
    /// each a non-permanent tile with the fewest moves to enter it over
    /// permanent tiles only.
    pub(super) macro_start: Vec<u32>,
    pub(super) macro_targets: Vec<(u16, u32)>,
    /// Fragile and cracked tiles with a permanent neighbour: the only ones
    /// that can be reachable with no other way in (see `lower_bound`).
    pub(super) near_permanent: Vec<u16>,
    /// Whether each cell is a neighbour of the flag.
    pub(super) beside_flag: Vec<bool>,
    /// Fewest moves from a cell to the flag over permanent tiles only;
    /// [`INFINITE`] if there is no such walk. 0 on the flag.
    pub(super) flag_cost: Vec<u32>,
    /// Zobrist keys: `entry_keys[3 * cell + visits]` for visits 1 and 2.
    pub(super) entry_keys: Vec<u64>,
    pub(super) position_keys: Vec<u64>,
}

impl BoardTables {
    /// The tables of `config`'s board.
    pub(crate) fn new(config: &Config) -> BoardTables {
        let n_cells = config.n_cells();
        let permanent: Vec<bool> = config.tiles().iter().map(|tile| tile.is_permanent()).collect();
        let colour = (0..n_cells as u16)
            .map(|cell| {
                let (col, row) = config.col_row(cell);
                ((col + row) % 2) as u8
            })
            .collect();
        let neighbours: Vec<[u16; 4]> = (0..n_cells as u16).map(|cell| config.neighbours(cell)).collect();
        let MacroMoves { macro_start, macro_targets, flag_cost } = MacroMoves::new(config, &neighbours);
        let near_permanent = (0..n_cells as u16)
            .filter(|&cell| matches!(config.tile(cell), Tile::Fragile | Tile::Cracked))
            .filter(|&cell| {
                neighbours[usize::from(cell)].iter().any(|&next| next != NO_CELL && permanent[usize::from(next)])
            })
            .collect();
        let mut beside_flag = vec![false; n_cells];
        for next in neighbours[usize::from(config.flag())] {
            if next != NO_CELL {
                beside_flag[usize::from(next)] = true;
            }
        }
        let mut keys = GameRng::from_seed(0x5EED_F1A6);
        let entry_keys = (0..3 * n_cells).map(|_| keys.next_u64()).collect();
        let position_keys = (0..n_cells).map(|_| keys.next_u64()).collect();
        BoardTables {
            n_cells,
            flag: config.flag(),
            permanent,
            colour,
            neighbours,
            macro_start,
            macro_targets,
            near_permanent,
            beside_flag,
            flag_cost,
            entry_keys,
            position_keys,
        }
    }

    /// Turns the entry order into moves: the shortest permanent-only walk
    /// before each entry, then to the flag.
    pub(crate) fn expand(&self, mut position: u16, entries: &[u16]) -> Vec<Dir> {
        let mut moves = Vec::new();
        for &target in entries {
            self.walk(position, target, &mut moves);
            position = target;
        }
        if position != self.flag {
            self.walk(position, self.flag, &mut moves);
        }
        moves
    }

    /// Appends the fewest moves from `from` to `to` whose intermediate cells
    /// are all permanent (the macro move the search chose).
    fn walk(&self, from: u16, to: u16, moves: &mut Vec<Dir>) {
        let mut parent = vec![NO_CELL; self.n_cells];
        let mut queue = vec![from];
        let mut head = 0;
        let mut seen = vec![false; self.n_cells];
        seen[usize::from(from)] = true;
        while head < queue.len() {
            let cell = queue[head];
            head += 1;
            if cell == to && cell != from {
                break;
            }
            if cell != from && !self.permanent[usize::from(cell)] {
                continue;
            }
            for next in self.neighbours[usize::from(cell)] {
                if next == NO_CELL || (seen[usize::from(next)] && next != to) || parent[usize::from(next)] != NO_CELL {
                    continue;
                }
                // Only `to` and permanent tiles may be stepped on; holes and
                // other fragile tiles are never part of a macro move.
                if next != to && !self.permanent[usize::from(next)] {
                    continue;
                }
                seen[usize::from(next)] = true;
                parent[usize::from(next)] = cell;
                queue.push(next);
            }
        }
        let mut path = vec![to];
        let mut cell = to;
        while parent[usize::from(cell)] != from {
            cell = parent[usize::from(cell)];
            assert_ne!(cell, NO_CELL, "the search chose a macro move with no walk");
            path.push(cell);
        }
        let mut here = from;
        for &next in path.iter().rev() {
            let dir = Dir::ALL
                .into_iter()
                .find(|&dir| self.neighbours[usize::from(here)][usize::from(dir.code())] == next)
                .expect("consecutive cells of a walk are neighbours");
            moves.push(dir);
            here = next;
        }
    }
}

/// The macro moves of every cell and each cell's walk to the flag.
struct MacroMoves {
    macro_start: Vec<u32>,
    macro_targets: Vec<(u16, u32)>,
    flag_cost: Vec<u32>,
}

impl MacroMoves {
    /// One breadth-first walk over permanent tiles from each cell: the tiles
    /// it can enter next, each at its fewest moves, and the flag.
    fn new(config: &Config, neighbours: &[[u16; 4]]) -> MacroMoves {
        let n_cells = config.n_cells();
        let mut macro_start = Vec::with_capacity(n_cells + 1);
        let mut macro_targets = Vec::new();
        let mut flag_cost = vec![INFINITE; n_cells];
        let mut distance = vec![INFINITE; n_cells];
        let mut queue: Vec<u16> = Vec::with_capacity(n_cells);
        let mut best_target = vec![INFINITE; n_cells];
        for start in 0..n_cells {
            macro_start.push(macro_targets.len() as u32);
            if config.tile(start as u16) == Tile::Hole {
                continue;
            }
            distance.fill(INFINITE);
            best_target.fill(INFINITE);
            queue.clear();
            distance[start] = 0;
            queue.push(start as u16);
            let mut head = 0;
            while head < queue.len() {
                let cell = queue[head];
                head += 1;
                let here = distance[usize::from(cell)];
                for next in neighbours[usize::from(cell)] {
                    if next == NO_CELL {
                        continue;
                    }
                    let next_index = usize::from(next);
                    match config.tile(next) {
                        Tile::Hole => {}
                        Tile::Fragile | Tile::Cracked => {
                            best_target[next_index] = best_target[next_index].min(here + 1);
                        }
                        Tile::Stone | Tile::Flag => {
                            if distance[next_index] == INFINITE {
                                distance[next_index] = here + 1;
                                queue.push(next);
                            }
                        }
                    }
                }
            }
            flag_cost[start] = distance[usize::from(config.flag())];
            let first = macro_targets.len();
            for (target, &cost) in best_target.iter().enumerate() {
                if cost != INFINITE {
                    macro_targets.push((target as u16, cost));
                }
            }
            macro_targets[first..].sort_by_key(|&(target, cost)| (cost, target));
        }
        macro_start.push(macro_targets.len() as u32);
        MacroMoves { macro_start, macro_targets, flag_cost }
    }
}
