//! The solver's tables, computed at compile time: each mask's turns, its
//! distinct orientations, the orientations that fit a tile's known edges,
//! and the edges a set of orientations agrees on. A tile's revision reads
//! them instead of testing each turn.

use crate::game::pipes::rotate_by;

/// `ROTATIONS[mask][r]`: `mask` turned `r` quarter turns clockwise.
pub(super) const ROTATIONS: [[u8; 4]; 16] = {
    let mut table = [[0u8; 4]; 16];
    let mut mask = 0;
    while mask < 16 {
        let mut turns = 0;
        while turns < 4 {
            table[mask][turns] = rotate_by(mask as u8, turns as u8);
            turns += 1;
        }
        mask += 1;
    }
    table
};

/// `DOMAINS[mask]`: the rotations of `mask` that give distinct masks (the
/// fewest turns of each), as a bit set over quarter turns 0..4.
pub(super) const DOMAINS: [u8; 16] = {
    let mut table = [0u8; 16];
    let mut mask = 0;
    while mask < 16 {
        let mut turns = 0;
        while turns < 4 {
            let mut seen = false;
            let mut earlier = 0;
            while earlier < turns {
                if ROTATIONS[mask][earlier] == ROTATIONS[mask][turns] {
                    seen = true;
                }
                earlier += 1;
            }
            if !seen {
                table[mask] |= 1 << turns;
            }
            turns += 1;
        }
        mask += 1;
    }
    table
};

/// `FITTING[mask][open | closed << 4]`: the quarter turns of `mask` (as a
/// bit set) that open every edge in `open` and none in `closed`. A tile's
/// revision is a look-up here instead of a test of each turn.
pub(super) const FITTING: [[u8; 256]; 16] = {
    let mut table = [[0u8; 256]; 16];
    let mut mask = 0;
    while mask < 16 {
        let mut known = 0;
        while known < 256 {
            let (open, closed) = ((known & 0xF) as u8, (known >> 4) as u8);
            let mut turns = 0;
            while turns < 4 {
                let turned = ROTATIONS[mask][turns];
                if turned & open == open && turned & closed == 0 {
                    table[mask][known] |= 1 << turns;
                }
                turns += 1;
            }
            known += 1;
        }
        mask += 1;
    }
    table
};

/// `AGREED[mask][turns]`, for a set of quarter turns of `mask`: the pipes
/// every one of them opens, and the pipes any of them opens.
pub(super) const AGREED: [[(u8, u8); 16]; 16] = {
    let mut table = [[(0u8, 0u8); 16]; 16];
    let mut mask = 0;
    while mask < 16 {
        let mut set = 0;
        while set < 16 {
            let (mut all, mut any) = (0xFu8, 0u8);
            let mut turns = 0;
            while turns < 4 {
                if set & (1 << turns) != 0 {
                    all &= ROTATIONS[mask][turns];
                    any |= ROTATIONS[mask][turns];
                }
                turns += 1;
            }
            table[mask][set] = (all, any);
            set += 1;
        }
        mask += 1;
    }
    table
};
