//! `ScoreChildrenPopulation`: `sr` rounds in which the children, sorted by
//! their win rate so far (stable, best first), play in pairs (neighbours,
//! or first with last), `sg` games per pair and seat order; each child's
//! fitness is then its win rate over all its scoring games. An odd child
//! out sits a round out.

use super::genes::{Member, drafters};
use super::jobs::GenerationGames;
use super::seeds::PHASE_SCORING;
use super::settings::Pairing;

/// Sets each child's fitness to its win rate over the scoring rounds; the
/// games played, or `None` if the budget ran out.
pub(crate) fn score_children(games: &GenerationGames, children: &mut [Member]) -> Option<u64> {
    let size = children.len();
    let drafters = drafters(children);
    let (mut wins, mut played_by) = (vec![0u32; size], vec![0u32; size]);
    let mut played = 0;
    for round in 0..u64::from(games.settings.scoring_rounds) {
        let order = best_first(&wins, &played_by);
        let pairs = pair_up(&order, games.settings.pairing);
        let results = games.play_matches(&drafters, &pairs, games.settings.scoring_games, PHASE_SCORING + round)?;
        for (pair, (wins_first, wins_second)) in pairs.iter().zip(results) {
            let per_pair = wins_first + wins_second;
            wins[pair[0] as usize] += wins_first;
            wins[pair[1] as usize] += wins_second;
            played_by[pair[0] as usize] += per_pair;
            played_by[pair[1] as usize] += per_pair;
            played += u64::from(per_pair);
        }
    }
    let rate = |wins: u32, games: u32| if games == 0 { 0.0 } else { f64::from(wins) / f64::from(games) };
    for (child, (&wins, &games)) in children.iter_mut().zip(wins.iter().zip(&played_by)) {
        child.fitness = rate(wins, games);
    }
    Some(played)
}

/// The children by win rate so far, best first (a stable sort: ties, and
/// children that have not played, keep their order). Integer
/// cross-multiplication: the order never depends on rounding.
fn best_first(wins: &[u32], games: &[u32]) -> Vec<usize> {
    let mut order: Vec<usize> = (0..wins.len()).collect();
    order.sort_by(|&x, &y| {
        let (left, right) =
            (u64::from(wins[y]) * u64::from(games[x].max(1)), u64::from(wins[x]) * u64::from(games[y].max(1)));
        left.cmp(&right)
    });
    order
}

/// The round's pairs of the sorted children.
fn pair_up(order: &[usize], pairing: Pairing) -> Vec<[u32; 2]> {
    let size = order.len();
    match pairing {
        Pairing::Neighbours => order.chunks_exact(2).map(|pair| [pair[0] as u32, pair[1] as u32]).collect(),
        Pairing::FirstLast => {
            (0..size / 2).map(|place| [order[place] as u32, order[size - 1 - place] as u32]).collect()
        }
    }
}
