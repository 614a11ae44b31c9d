//! `SelectParents`: P tournaments of `ts` distinct members each, drawn from
//! the generation's stream, played on the generation's drafts, `tg` games
//! per pair and seat order. A round robin makes the best two by wins the
//! parents (ties to the earlier drawn); a knock-out bracket makes the two
//! finalists the parents (a drawn match to the earlier drawn). Every
//! tournament's matches of one round are played as one batch.

use super::genes::{Member, drafters};
use super::jobs::GenerationGames;
use super::seeds::PHASE_TOURNAMENT;
use super::settings::Tournament;
use crate::game::locm::plan::draft::DraftBot;
use crate::plan::ga::distinct_indices;
use crate::rng::GameRng;

/// One match of a round: the tournament it belongs to, and its two
/// members (indices into the population).
type Match = (usize, [u32; 2]);

/// The two parents of every child, one per tournament, and the games
/// played; `None` if the budget ran out.
pub(crate) fn select_parents(
    games: &GenerationGames,
    population: &[Member],
    rng: &mut GameRng,
) -> Option<(Vec<[usize; 2]>, u64)> {
    let entrants = draw_entrants(population.len(), games.settings.tournament_size, rng);
    let drafters = drafters(population);
    match games.settings.tournament {
        Tournament::RoundRobin => round_robin(games, &drafters, &entrants),
        Tournament::Knockout => knockout(games, &drafters, entrants),
    }
}

/// Each tournament's members, `ts` distinct ones per tournament, one
/// tournament per member of the population.
fn draw_entrants(size: usize, ts: usize, rng: &mut GameRng) -> Vec<Vec<u32>> {
    let (mut scratch, mut drawn) = (Vec::new(), Vec::new());
    let mut entrants: Vec<Vec<u32>> = Vec::with_capacity(size);
    for _ in 0..size {
        distinct_indices(size, ts, rng, &mut scratch, &mut drawn);
        entrants.push(drawn.clone());
    }
    entrants
}

/// One round of every tournament's matches at once: each side's wins per
/// match, and the games played.
fn play_round(
    games: &GenerationGames,
    drafters: &[DraftBot],
    matches: &[Match],
    phase: u64,
) -> Option<(Vec<(u32, u32)>, u64)> {
    let tg = games.settings.tournament_games;
    let pairs: Vec<[u32; 2]> = matches.iter().map(|&(_, pair)| pair).collect();
    let wins = games.play_matches(drafters, &pairs, tg, phase)?;
    let played = wins.len() as u64 * 2 * u64::from(tg);
    Some((wins, played))
}

/// Every pair of each tournament plays; the two with the most wins become
/// the parents.
fn round_robin(
    games: &GenerationGames,
    drafters: &[DraftBot],
    entrants: &[Vec<u32>],
) -> Option<(Vec<[usize; 2]>, u64)> {
    let ts = games.settings.tournament_size;
    let pairs: Vec<(usize, usize)> = (0..ts).flat_map(|x| (x + 1..ts).map(move |y| (x, y))).collect();
    let matches: Vec<Match> = entrants
        .iter()
        .enumerate()
        .flat_map(|(tournament, members)| pairs.iter().map(move |&(x, y)| (tournament, [members[x], members[y]])))
        .collect();
    let (wins, played) = play_round(games, drafters, &matches, PHASE_TOURNAMENT)?;
    let mut points = vec![vec![0u32; ts]; entrants.len()];
    for ((tournament, _), (&(x, y), &(wins_x, wins_y))) in matches.iter().zip(pairs.iter().cycle().zip(&wins)) {
        points[*tournament][x] += wins_x;
        points[*tournament][y] += wins_y;
    }
    let parents = entrants
        .iter()
        .zip(&points)
        .map(|(members, points)| {
            let mut order: Vec<usize> = (0..ts).collect();
            order.sort_by_key(|&place| std::cmp::Reverse(points[place]));
            [members[order[0]] as usize, members[order[1]] as usize]
        })
        .collect();
    Some((parents, played))
}

/// A bracket per tournament, round after round (each with its own phase
/// seed) until two remain: they become the parents.
fn knockout(
    games: &GenerationGames,
    drafters: &[DraftBot],
    mut alive: Vec<Vec<u32>>,
) -> Option<(Vec<[usize; 2]>, u64)> {
    let mut played = 0;
    let mut phase = PHASE_TOURNAMENT;
    while alive[0].len() > 2 {
        let matches: Vec<Match> = alive
            .iter()
            .enumerate()
            .flat_map(|(tournament, members)| members.chunks(2).map(move |pair| (tournament, [pair[0], pair[1]])))
            .collect();
        let (wins, round_games) = play_round(games, drafters, &matches, phase)?;
        played += round_games;
        for members in &mut alive {
            members.clear();
        }
        for (&(tournament, pair), &(wins_first, wins_second)) in matches.iter().zip(&wins) {
            alive[tournament].push(if wins_second > wins_first { pair[1] } else { pair[0] });
        }
        phase += 1;
    }
    Some((alive.iter().map(|members| [members[0] as usize, members[1] as usize]).collect(), played))
}
