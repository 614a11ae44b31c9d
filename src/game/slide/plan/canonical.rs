//! The blank-first view of a puzzle that the searches and the pattern
//! databases work on, and the way back from a move in that view to a move
//! on the real board.

use crate::game::slide::{Board, Dir, Goal, MAX_CELLS};

/// A blank-first view of an instance, for the solvers: the board itself when
/// the goal is blank-first; for blank-last, the board turned half round with
/// every tile `v` renamed `side² - v`, which turns the blank-last goal into
/// the blank-first one and each blank move into its opposite.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Canonical {
    pub(crate) side: u8,
    pub(crate) board: Board,
    turned: bool,
}

impl Canonical {
    pub(crate) fn new(side: u8, board: &Board, goal: Goal) -> Canonical {
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::game::slide::{Config, apply_moves, goal_board, is_solvable};

    const WRITE_UP_INFERRED: [u8; 9] = [7, 3, 0, 8, 1, 4, 6, 2, 5];

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
}
