//! The draft's 30 triples, drawn as the reference referee draws them
//! (`DraftPhase.PrepareChoices`): a pool of 60 distinct cards, then three
//! distinct pool members per pick, from the referee's `java.util.Random`
//! or from our own stream.

use super::PICKS;
use super::cards::CardTable;
use super::java_random::JavaRandom;
use crate::rng::GameRng;

/// Distinct cards the draft's triples are drawn from.
pub(crate) const POOL_SIZE: usize = 60;

/// The 30 triples of a draft, as card ids.
pub(crate) type Draft = [[u8; 3]; PICKS];

/// `DraftPhase.PrepareChoices` with `java.util.Random(draft_seed)`: a pool
/// of 60 distinct cards (by index into the list in id order, redrawn on
/// repeats), then per pick three distinct pool members.
pub(super) fn java_triples(table: &CardTable, draft_seed: i64) -> Draft {
    let mut random = JavaRandom::new(draft_seed);
    let n_cards = table.len() as i32;
    draw_triples(|bound| random.next_int(bound) as usize, n_cards)
}

/// The same procedure driven by our own stream.
pub(super) fn chacha_triples(rng: &mut GameRng, n_cards: usize) -> Draft {
    draw_triples(|bound| rng.below(bound as u32) as usize, n_cards as i32)
}

fn draw_triples(mut below: impl FnMut(i32) -> usize, n_cards: i32) -> Draft {
    let mut pool = [0u8; POOL_SIZE];
    for slot in 0..POOL_SIZE {
        let card = loop {
            let candidate = below(n_cards) as u8 + 1;
            if !pool[..slot].contains(&candidate) {
                break candidate;
            }
        };
        pool[slot] = card;
    }
    let mut triples = [[0u8; 3]; PICKS];
    for triple in triples.iter_mut() {
        let first = pool[below(POOL_SIZE as i32)];
        let second = loop {
            let card = pool[below(POOL_SIZE as i32)];
            if card != first {
                break card;
            }
        };
        let third = loop {
            let card = pool[below(POOL_SIZE as i32)];
            if card != first && card != second {
                break card;
            }
        };
        *triple = [first, second, third];
    }
    triples
}
