//! The entry search's lower bound and its cuts: what a state still needs
//! (entries, permanent entries, colours) and whether it may still be won
//! (reachability, dead ends and the articulation-point rule, from one
//! depth-first walk with Tarjan's low links).

use super::Search;
use crate::game::flag::NO_CELL;

impl Search<'_> {
    /// A lower bound on the moves still needed to win ([`super::INFINITE`] when
    /// the flag cannot be reached at the end).
    pub(crate) fn lower_bound(&self) -> u32 {
        let tables = self.tables;
        let here = usize::from(self.position);
        if self.remaining == 0 {
            return tables.flag_cost[here];
        }
        let same = usize::from(tables.colour[here]);
        let flag_colour = usize::from(tables.colour[usize::from(tables.flag)]);
        // Entry k (1-based) lands on the other colour when k is odd: a walk of
        // L moves makes ceil(L/2) entries on the other colour, floor(L/2) on
        // this one, and the last entry is the flag.
        let other_entries = self.remaining_by_colour[1 - same] + u32::from(flag_colour != same);
        let same_entries = self.remaining_by_colour[same] + u32::from(flag_colour == same);
        // A tile whose every way in is a permanent tile (no live fragile or
        // cracked neighbour, and not beside the player) is entered from a
        // stone or the flag each time: one permanent entry before each of its
        // entries (the first may be the cell the player stands on), and the
        // final flag entry comes after them all.
        let mut walled_entries = 0;
        for &tile in &tables.near_permanent {
            let owed = self.visits[usize::from(tile)];
            if owed > 0 && self.is_walled_in(tile) {
                walled_entries += u32::from(owed);
            }
        }
        let on_permanent = u32::from(tables.permanent[here]);
        let permanent_entries = 1 + walled_entries.saturating_sub(on_permanent);
        let mut bound =
            (self.remaining + permanent_entries).max((2 * other_entries).saturating_sub(1)).max(2 * same_entries);
        let parity = u32::from(same != flag_colour);
        if bound % 2 != parity {
            bound += 1;
        }
        bound
    }

    /// Whether no fragile or cracked tile can lead into `tile` any more: its
    /// neighbours are permanent, fallen or holes, and the player is not on one.
    fn is_walled_in(&self, tile: u16) -> bool {
        self.tables.neighbours[usize::from(tile)].iter().all(|&next| {
            next == NO_CELL
                || (next != self.position
                    && (self.tables.permanent[usize::from(next)] || self.visits[usize::from(next)] == 0))
        })
    }

    /// Whether the position can still be won as far as cheap tests tell.
    ///
    /// Every owed tile and the flag must be reachable over tiles that have
    /// not fallen. When the player stands on a fragile or cracked tile, the
    /// board without that cell falls into pieces: the flag's piece, reached
    /// last, and others the player can only visit and come back from, each
    /// return taking one of the entries the player's tile has left (a fallen
    /// tile has none, so everything must then be in the flag's piece).
    ///
    /// A tile with one usable neighbour `n` is entered from `n` and left to
    /// it (`n, t, n, t, ..., n`): all such tiles hanging off `n` need that
    /// many entries of `n`.
    ///
    /// A fragile or cracked tile `u` whose removal cuts the board into
    /// pieces can only be crossed as often as it has entries left, and each
    /// crossing moves the player from one piece to another. The player
    /// starts in their own piece and ends on the flag, so with `m` other
    /// pieces that hold owed tiles or the flag, `u` needs `m` passes when the
    /// flag is in one of them, and `m + 1` (out and back home) when the flag
    /// is in the player's piece.
    ///
    /// All of it comes from one depth-first search from the player's cell
    /// over the standing cells (Tarjan's low links: a child whose subtree
    /// cannot reach above its parent is a piece cut off by the parent, and
    /// the root's children are the pieces around the player).
    pub(crate) fn may_be_won(&mut self) -> bool {
        let tables = self.tables;
        self.next_stamp();
        self.returns_needed = 0;
        let Some(pieces_to_return_from) = self.walk_pieces::<true>() else { return false };
        let root_index = usize::from(self.position);
        if self.live_below[root_index] != self.live_cells || !self.flag_below[root_index] {
            return false;
        }
        // On a permanent tile the player may come back at will; on another,
        // each piece left and returned from takes one of its entries, and
        // the flag's piece comes last. (A dead end beside the player adds
        // its extra trips to `returns_needed`.)
        tables.permanent[root_index]
            || pieces_to_return_from + self.returns_needed <= u32::from(self.visits[root_index])
    }

    /// A fresh stamp for the flood-fill and dead-end scratch, clearing the
    /// scratch when the stamps wrap around.
    fn next_stamp(&mut self) {
        self.stamp = self.stamp.wrapping_add(1);
        if self.stamp == 0 {
            self.seen_stamp.fill(0);
            self.demand_stamp.fill(0);
            self.stamp = 1;
        }
    }

    /// The depth-first walk from the player's cell over the standing cells
    /// behind [`Self::may_be_won`] (Tarjan's low links): fails (`None`) as
    /// soon as a fragile or cracked tile has fewer entries left than the
    /// pieces it cuts off need passes, or, with `DEAD_ENDS`, as soon as a
    /// dead end is short of entries ([`Self::dead_end_has_room`], which
    /// also counts the extra trips a dead end beside the player needs in
    /// `returns_needed`). Otherwise returns the pieces around the player
    /// that must be visited and left again, and leaves in `live_below` and
    /// `flag_below` of the player's cell what the walk reached.
    ///
    /// One walk for both uses: the one-pass [`Self::may_be_won`] checks the
    /// dead ends on the way; the two-pass version it is tested against
    /// checks them in its own breadth-first fill first.
    fn walk_pieces<const DEAD_ENDS: bool>(&mut self) -> Option<u32> {
        let tables = self.tables;
        let root = self.position;
        self.discovered.fill(0);
        self.dfs_stack.clear();
        // Pieces around the player that must be visited and left again.
        let mut pieces_to_return_from = 0;
        let mut time = 1;
        self.open(root, time);
        while let Some(top) = self.dfs_stack.last_mut() {
            let (cell, next_dir) = *top;
            if next_dir < 4 {
                top.1 += 1;
                let next = tables.neighbours[usize::from(cell)][usize::from(next_dir)];
                if next == NO_CELL || !(next == root || self.is_standing(next)) {
                    continue;
                }
                let index = usize::from(next);
                if self.discovered[index] == 0 {
                    let owed = self.visits[index];
                    if DEAD_ENDS && owed > 0 && !self.dead_end_has_room(next, owed) {
                        return None;
                    }
                    time += 1;
                    self.open(next, time);
                } else {
                    let low = self.low_link[usize::from(cell)].min(self.discovered[index]);
                    self.low_link[usize::from(cell)] = low;
                }
                continue;
            }
            self.dfs_stack.pop();
            let index = usize::from(cell);
            if cell != root && !tables.permanent[index] {
                // Every child of `cell` is done: its cut-off pieces are known.
                let pieces = self.pieces_cut_off[index];
                let passes = if self.flag_cut_off[index] { pieces } else { pieces + u32::from(pieces > 0) };
                if passes > u32::from(self.visits[index]) {
                    return None;
                }
            }
            let Some(&(parent, _)) = self.dfs_stack.last() else { break };
            let parent_index = usize::from(parent);
            self.low_link[parent_index] = self.low_link[parent_index].min(self.low_link[index]);
            self.live_below[parent_index] += self.live_below[index];
            self.flag_below[parent_index] |= self.flag_below[index];
            if parent == root {
                pieces_to_return_from += u32::from(self.live_below[index] > 0 && !self.flag_below[index]);
            } else if self.low_link[index] >= self.discovered[parent_index]
                && (self.live_below[index] > 0 || self.flag_below[index])
            {
                self.pieces_cut_off[parent_index] += 1;
                self.flag_cut_off[parent_index] |= self.flag_below[index];
            }
        }
        Some(pieces_to_return_from)
    }

    /// [`Self::may_be_won`] as it was first written, in two passes (a
    /// breadth-first fill per piece, then the articulation search): the
    /// one-pass version must agree with it.
    #[cfg(test)]
    fn may_be_won_by_two_passes(&mut self) -> bool {
        self.pieces_are_reachable() && self.passes_suffice()
    }

    /// The reachability and dead-end half of the two-pass version.
    #[cfg(test)]
    fn pieces_are_reachable(&mut self) -> bool {
        let tables = self.tables;
        self.next_stamp();
        let stamp = self.stamp;
        let here = self.position;
        if tables.permanent[usize::from(here)] {
            // The player can come back here at will: one piece through it.
            let Some((live_reached, _)) = self.fill(here) else { return false };
            return live_reached == self.live_cells && self.seen_stamp[usize::from(tables.flag)] == stamp;
        }
        self.seen_stamp[usize::from(here)] = stamp;
        self.returns_needed = 0;
        let Some((mut live_reached, touches_player)) = self.fill(tables.flag) else { return false };
        if !touches_player {
            return false;
        }
        for next in tables.neighbours[usize::from(here)] {
            if next == NO_CELL || self.seen_stamp[usize::from(next)] == stamp || !self.is_standing(next) {
                continue;
            }
            let Some((reached, _)) = self.fill(next) else { return false };
            // A piece with nothing owed (stones only) need not be visited.
            live_reached += reached;
            self.returns_needed += u32::from(reached > 0);
        }
        // The player's own tile, if it still owes entries, is live too.
        let owed_here = self.visits[usize::from(here)];
        live_reached += u32::from(owed_here > 0);
        live_reached == self.live_cells && self.returns_needed <= u32::from(owed_here)
    }

    /// The articulation-point half of the two-pass version: the walk of
    /// [`Self::may_be_won`] without its dead-end checks (the fill made them).
    #[cfg(test)]
    fn passes_suffice(&mut self) -> bool {
        self.walk_pieces::<false>().is_some()
    }

    /// Starts `cell` in the depth-first walk, discovered at `time`.
    fn open(&mut self, cell: u16, time: u32) {
        let index = usize::from(cell);
        self.discovered[index] = time;
        self.low_link[index] = time;
        self.live_below[index] = u32::from(self.visits[index] > 0);
        self.flag_below[index] = cell == self.tables.flag;
        self.pieces_cut_off[index] = 0;
        self.flag_cut_off[index] = false;
        self.dfs_stack.push((cell, 0));
    }

    /// Breadth-first fill from `from` over standing cells not yet seen in
    /// this call. Returns the live cells reached and whether the piece
    /// touches the player's cell, or `None` when a dead end is short of
    /// entries.
    #[cfg(test)]
    fn fill(&mut self, from: u16) -> Option<(u32, bool)> {
        let tables = self.tables;
        let stamp = self.stamp;
        let here = self.position;
        self.queue.clear();
        self.queue.push(from);
        self.seen_stamp[usize::from(from)] = stamp;
        let mut live_reached = 0;
        let mut touches_player = from == here;
        let mut head = 0;
        while head < self.queue.len() {
            let cell = self.queue[head];
            head += 1;
            let owed = self.visits[usize::from(cell)];
            if owed > 0 {
                live_reached += 1;
                if cell != here && !self.dead_end_has_room(cell, owed) {
                    return None;
                }
            }
            for next in tables.neighbours[usize::from(cell)] {
                if next == NO_CELL {
                    continue;
                }
                touches_player |= next == here;
                if self.seen_stamp[usize::from(next)] == stamp || !self.is_standing(next) {
                    continue;
                }
                self.seen_stamp[usize::from(next)] = stamp;
                self.queue.push(next);
            }
        }
        Some((live_reached, touches_player))
    }

    /// The dead-end rule for live `tile`, accumulated per neighbour.
    fn dead_end_has_room(&mut self, tile: u16, owed: u8) -> bool {
        let tables = self.tables;
        let here = self.position;
        let mut usable = 0;
        let mut only = NO_CELL;
        for next in tables.neighbours[usize::from(tile)] {
            if next != NO_CELL && (next == here || self.is_standing(next)) {
                usable += 1;
                only = next;
            }
        }
        if usable != 1 || tables.permanent[usize::from(only)] {
            return usable > 0;
        }
        if only == here {
            // A piece of its own beside the player: each entry is a trip out
            // and back. The first trip is counted as the piece's return.
            self.returns_needed += u32::from(owed) - 1;
            return true;
        }
        let index = usize::from(only);
        if self.demand_stamp[index] != self.stamp {
            self.demand_stamp[index] = self.stamp;
            self.demand[index] = 0;
        }
        self.demand[index] += u32::from(owed);
        self.demand[index] < u32::from(self.visits[index])
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::game::flag::plan::entry_search::BoardTables;
    use crate::game::flag::plan::oracle::{oracle_from, random_board};
    use crate::game::flag::{Config, FlagGame, Tile};
    use crate::game::{Game, Show, Status};
    use crate::map::Level;
    use crate::plan::Budget;
    use crate::rng::GameRng;
    /// Every state reachable on random small boards: the bound never exceeds
    /// the true distance to a win, and the cuts never drop a winnable state.
    #[test]
    fn bounds_and_cuts_are_sound_in_every_reachable_state() {
        let tiles = [Tile::Hole, Tile::Fragile, Tile::Fragile, Tile::Cracked, Tile::Cracked, Tile::Stone];
        let mut rng = GameRng::from_seed(5);
        let budget = Budget::unlimited();
        let mut checked = 0;
        for _ in 0..60 {
            let config = random_board(&mut rng, &tiles, 3, Tile::Cracked);
            let tables = BoardTables::new(&config);
            let mut pending = vec![FlagGame::new(&config, 0)];
            let mut seen = std::collections::HashSet::new();
            let mut legal = Vec::new();
            while let Some(game) = pending.pop() {
                if game.status() != Status::Running {
                    continue;
                }
                let mut search = Search::new(&tables, game.visits(), game.position(), &budget);
                assert_eq!(search.may_be_won(), search.may_be_won_by_two_passes(), "{}", game.render());
                if let Some(distance) = oracle_from(game.clone()) {
                    checked += 1;
                    assert!(search.lower_bound() as usize <= distance, "bound too high:\n{}", game.render());
                    assert!(search.remaining == 0 || search.may_be_won(), "winnable state cut:\n{}", game.render());
                }
                legal.clear();
                game.legal_actions(&mut legal);
                for &dir in &legal {
                    let mut next = game.clone();
                    next.step(dir).unwrap();
                    if seen.insert((next.position(), next.visits().to_vec())) {
                        pending.push(next);
                    }
                }
            }
        }
        assert!(checked > 200, "only {checked} winnable states checked");
    }

    /// The one-pass cut and the two-pass version it was first written as
    /// share the articulation walk: on every state of random walks over the
    /// bundled maps (the boards the planners meet, larger than the random
    /// small boards above), the two still agree.
    #[test]
    fn the_one_pass_and_two_pass_cuts_agree_on_the_bundled_maps() {
        let mut paths: Vec<String> = (1..=19).map(|round| format!("maps/flag/round-{round:02}.txt")).collect();
        paths.push("maps/flag/extra/no-solution.txt".to_string());
        let budget = Budget::unlimited();
        let mut rng = GameRng::from_seed(32);
        let (mut compared, mut cut) = (0, 0);
        let mut legal = Vec::new();
        for path in &paths {
            let text = std::fs::read_to_string(format!("{}/{path}", env!("CARGO_MANIFEST_DIR"))).expect("bundled map");
            let config = Config::parse(&text).unwrap();
            let tables = BoardTables::new(&config);
            for _ in 0..40 {
                let mut game = FlagGame::new(&config, 0);
                while game.status() == Status::Running {
                    let mut search = Search::new(&tables, game.visits(), game.position(), &budget);
                    let one_pass = search.may_be_won();
                    assert_eq!(one_pass, search.may_be_won_by_two_passes(), "{path}\n{}", game.render());
                    (compared, cut) = (compared + 1, cut + usize::from(!one_pass));
                    legal.clear();
                    game.legal_actions(&mut legal);
                    game.step(legal[rng.below(legal.len() as u32) as usize]).unwrap();
                }
            }
        }
        assert!(
            compared > 10_000 && cut > 2_000 && compared - cut > 2_000,
            "{compared} states compared, {cut} of them cut: widen the sample"
        );
    }
}
