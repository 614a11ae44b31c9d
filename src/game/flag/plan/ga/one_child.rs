//! The write-up's generation loop for the `ga` planner, whose crossover
//! makes one child per pair of parents (the shared engine in `crate::ga`
//! makes two): kept apart so that it runs exactly as the write-up has it.

use super::move_strings::MoveStrings;
use super::{GaRun, GaSettings};
use crate::plan::ga::Problem;
use crate::rng::GameRng;

/// The write-up's generation loop, whose crossover makes one child per
/// pair of parents: evaluate; stop at a fitness of 0 (the first such
/// chromosome in population order); rank (stably); carry the best `elites`
/// over; fill the rest with one child each of two parents drawn from the
/// best `parents`; mutate every member (the elites too unless frozen).
pub(super) fn evolve_one_child(
    problem: &MoveStrings,
    settings: &GaSettings,
    mut rng: GameRng,
    mut stop: impl FnMut(u64) -> bool,
) -> GaRun {
    let mut population: Vec<Vec<u8>> = (0..settings.population).map(|_| problem.random_genome(&mut rng)).collect();
    let mut fitness: Vec<u32> = population.iter().map(|genome| problem.fitness(genome)).collect();
    let mut next: Vec<Vec<u8>> = population.clone();
    let mut ranked: Vec<usize> = Vec::with_capacity(settings.population);
    let mut generations = 0u64;
    let mut evaluations = settings.population as u64;
    let (solution, stopped) = loop {
        if let Some(index) = fitness.iter().position(|&value| value == 0) {
            break (Some(index), false);
        }
        if generations >= settings.max_generations {
            break (None, false);
        }
        if stop(generations) {
            break (None, true);
        }
        ranked.clear();
        ranked.extend(0..population.len());
        ranked.sort_by_key(|&index| fitness[index]);
        let parents = &ranked[..settings.parents];
        for (slot, &elite) in next.iter_mut().zip(&ranked[..settings.elites]) {
            slot.clone_from(&population[elite]);
        }
        for slot in &mut next[settings.elites..] {
            let first = &population[parents[rng.below(settings.parents as u32) as usize]];
            let second = &population[parents[rng.below(settings.parents as u32) as usize]];
            one_child_crossover(first, second, &mut rng, slot);
        }
        let first_mutated = if settings.mutate_elites { 0 } else { settings.elites };
        for genome in &mut next[first_mutated..] {
            problem.mutate(genome, &mut rng);
        }
        std::mem::swap(&mut population, &mut next);
        for (value, genome) in fitness.iter_mut().zip(&population) {
            *value = problem.fitness(genome);
        }
        evaluations += settings.population as u64;
        generations += 1;
    };
    let best = solution.unwrap_or_else(|| (0..population.len()).min_by_key(|&index| fitness[index]).unwrap_or(0));
    GaRun {
        plan: solution.map(|index| problem.moves(&population[index])),
        generations,
        best_fitness: fitness[best],
        evaluations,
        stopped,
    }
}

/// The write-up's crossover: two cuts drawn in `0..len`; `child` takes
/// `second`'s genes from the smaller cut to the larger, both included, and
/// `first`'s elsewhere.
fn one_child_crossover(first: &[u8], second: &[u8], rng: &mut GameRng, child: &mut Vec<u8>) {
    let len = first.len();
    let cut_a = rng.below(len as u32) as usize;
    let cut_b = rng.below(len as u32) as usize;
    let (start, end) = (cut_a.min(cut_b), cut_a.max(cut_b));
    child.clear();
    child.extend_from_slice(&first[..start]);
    child.extend_from_slice(&second[start..=end]);
    child.extend_from_slice(&first[end + 1..]);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_write_ups_crossover_makes_one_child_with_an_inclusive_segment() {
        let first: Vec<u8> = vec![0; 10];
        let second: Vec<u8> = vec![1; 10];
        let mut rng = GameRng::from_seed(3);
        let mut child = Vec::new();
        let (mut whole, mut single) = (false, false);
        for _ in 0..2000 {
            one_child_crossover(&first, &second, &mut rng, &mut child);
            assert_eq!(child.len(), 10);
            // The second parent's genes form one run of at least one gene.
            let start = child.iter().position(|&gene| gene == 1).expect("the segment is never empty");
            let end = child.iter().rposition(|&gene| gene == 1).unwrap();
            assert!(child[start..=end].iter().all(|&gene| gene == 1), "{child:?}");
            whole |= (start, end) == (0, 9);
            single |= start == end;
        }
        assert!(whole && single, "the cuts reach both ends and may coincide");
    }
}
