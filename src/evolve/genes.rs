//! The members of a draft evolution and what breeding does to their genes:
//! the two encodings ([`Genes`]), the random first population, crossover
//! and mutation (`CrossoverChildren`, `MutateChildren`), the active-genes
//! merge (`PopulationSelectMerge`) and the baseline's elitist replacement.
//! Every random draw comes from the generation's one stream, in member
//! order, so a generation is the same on any number of threads.

use std::sync::Arc;

use serde::{Deserialize, Serialize};

use super::settings::{DraftEvolutionSettings, MergeScope, Representation, SequenceCrossover};
use crate::game::locm::draft::Draft;
use crate::game::locm::plan::draft::DraftBot;
use crate::game::locm::plan::genome::Genome;
use crate::plan::ga::{
    happens, linear_order_crossover, order_crossover, roulette_wheel, standard_normal, uniform_crossover, unit_interval,
};
use crate::rng::GameRng;

/// A member's genes.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Genes {
    /// Indexed by card id − 1; the highest offered is picked.
    Priorities(Vec<f64>),
    /// Card ids, best first.
    Order(Vec<u8>),
}

impl Genes {
    /// The strategy as a per-card priority vector (what `genome:FILE`
    /// loads): an order's card at place k of n gets priority n − k.
    pub(crate) fn to_genome(&self) -> Genome {
        match self {
            Genes::Priorities(priorities) => Genome { priorities: priorities.clone() },
            Genes::Order(order) => {
                let n = order.len();
                let mut priorities = vec![0.0; n];
                for (place, &card) in order.iter().enumerate() {
                    priorities[usize::from(card) - 1] = (n - place) as f64;
                }
                Genome { priorities }
            }
        }
    }

    /// Genes: one per card.
    pub(crate) fn len(&self) -> usize {
        match self {
            Genes::Priorities(genes) => genes.len(),
            Genes::Order(genes) => genes.len(),
        }
    }
}

/// A member of the population.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Member {
    pub fitness: f64,
    pub genes: Genes,
}

/// The members as drafters, in member order.
pub(crate) fn drafters(members: &[Member]) -> Vec<DraftBot> {
    members.iter().map(|member| DraftBot::Genome(Arc::new(member.genes.to_genome()))).collect()
}

/// A random strategy for a list of `n_cards` cards.
pub(crate) fn random_genes(representation: Representation, n_cards: usize, rng: &mut GameRng) -> Genes {
    match representation {
        Representation::Priority | Representation::PriorityGauss => {
            Genes::Priorities((0..n_cards).map(|_| unit_interval(rng)).collect())
        }
        Representation::Sequence => {
            let mut order: Vec<u8> = (1..=n_cards as u8).collect();
            rng.shuffle(&mut order);
            Genes::Order(order)
        }
    }
}

/// Whether `order` holds every card id 1..=n_cards once.
pub(crate) fn is_permutation(order: &[u8], n_cards: usize) -> bool {
    let mut seen = vec![false; n_cards + 1];
    order.len() == n_cards
        && order.iter().all(|&card| {
            let fresh = (1..=n_cards).contains(&usize::from(card)) && !seen[usize::from(card)];
            if fresh {
                seen[usize::from(card)] = true;
            }
            fresh
        })
}

/// `CrossoverChildren` and `MutateChildren`: one child of `population`'s
/// members per pair of `parents`, with no fitness yet.
pub(crate) fn breed(
    population: &[Member],
    parents: &[[usize; 2]],
    settings: &DraftEvolutionSettings,
    rng: &mut GameRng,
) -> Vec<Member> {
    let mut taken = Vec::new();
    parents
        .iter()
        .map(|&[a, b]| {
            let genes = match (&population[a].genes, &population[b].genes) {
                (Genes::Priorities(a), Genes::Priorities(b)) => {
                    Genes::Priorities(cross_priorities(a, b, settings, rng))
                }
                (Genes::Order(a), Genes::Order(b)) => Genes::Order(cross_orders(a, b, settings, rng, &mut taken)),
                _ => unreachable!("a population holds one representation (checked on resume)"),
            };
            Member { fitness: 0.0, genes }
        })
        .collect()
}

/// Uniform crossover, then each gene redrawn (or, Gaussian, moved) with
/// probability `pm`.
fn cross_priorities(a: &[f64], b: &[f64], settings: &DraftEvolutionSettings, rng: &mut GameRng) -> Vec<f64> {
    let mut child = Vec::with_capacity(a.len());
    uniform_crossover(a, b, rng, &mut child);
    let gauss = settings.representation == Representation::PriorityGauss;
    for gene in &mut child {
        if happens(settings.mutation, rng) {
            *gene = if gauss {
                (*gene + settings.sigma * standard_normal(rng)).clamp(0.0, 1.0)
            } else {
                unit_interval(rng)
            };
        }
    }
    child
}

/// Order crossover (linear or OX1), then each place swapped with a random
/// one with probability `pm`. `taken` is the crossover's reused buffer.
fn cross_orders(
    a: &[u8],
    b: &[u8],
    settings: &DraftEvolutionSettings,
    rng: &mut GameRng,
    taken: &mut Vec<bool>,
) -> Vec<u8> {
    let mut child = Vec::with_capacity(a.len());
    match settings.sequence_crossover {
        SequenceCrossover::Ox1 => order_crossover(a, b, rng, taken, &mut child),
        SequenceCrossover::Linear => linear_order_crossover(a, b, rng, taken, &mut child),
    }
    for place in 0..child.len() {
        if happens(settings.mutation, rng) {
            let other = rng.below(child.len() as u32) as usize;
            child.swap(place, other);
        }
    }
    child
}

/// `PopulationSelectMerge`: as many members as `population`, each a
/// roulette-drawn parent merged with a roulette-drawn child on the genes
/// of the cards in `draft` (or on every gene, `--merge all`).
pub(crate) fn merge(
    population: &[Member],
    children: &[Member],
    draft: &Draft,
    settings: &DraftEvolutionSettings,
    rng: &mut GameRng,
) -> Vec<Member> {
    let n_cards = population[0].genes.len();
    let mut active = vec![settings.merge == MergeScope::All; n_cards + 1];
    for &card in draft.iter().flatten() {
        active[usize::from(card)] = true;
    }
    let parent_fitness: Vec<f64> = population.iter().map(|member| member.fitness).collect();
    let child_fitness: Vec<f64> = children.iter().map(|member| member.fitness).collect();
    let mut refill = Vec::new();
    (0..population.len())
        .map(|_| {
            let parent = &population[roulette_wheel(&parent_fitness, rng)];
            let child = &children[roulette_wheel(&child_fitness, rng)];
            let genes = match (&parent.genes, &child.genes) {
                (Genes::Priorities(parent_genes), Genes::Priorities(child_genes)) => {
                    Genes::Priorities(merge_priorities(parent_genes, child_genes, &active, settings))
                }
                (Genes::Order(parent_order), Genes::Order(child_order)) => {
                    Genes::Order(merge_orders(parent_order, child_order, &active, &mut refill))
                }
                _ => unreachable!("a population holds one representation (checked on resume)"),
            };
            Member { fitness: 0.9 * parent.fitness + 0.1 * child.fitness, genes }
        })
        .collect()
}

/// The parent's priorities with the active ones taken from the child
/// (AG), or moved towards the child's by `wc` (AG-weights, priority-gauss).
fn merge_priorities(parent: &[f64], child: &[f64], active: &[bool], settings: &DraftEvolutionSettings) -> Vec<f64> {
    let weight = settings.child_weight;
    let mut genes = parent.to_vec();
    for (card, gene) in genes.iter_mut().enumerate() {
        if active[card + 1] {
            *gene = match settings.representation {
                Representation::PriorityGauss => weight * child[card] + (1.0 - weight) * *gene,
                _ => child[card],
            };
        }
    }
    genes
}

/// The parent's order with the places that hold active cards refilled by
/// those cards in the child's order. `refill` is a reused buffer.
fn merge_orders(parent: &[u8], child: &[u8], active: &[bool], refill: &mut Vec<u8>) -> Vec<u8> {
    refill.clear();
    refill.extend(child.iter().copied().filter(|&card| active[usize::from(card)]));
    let mut next_refill = refill.iter();
    parent
        .iter()
        .map(|&card| {
            if active[usize::from(card)] {
                *next_refill.next().expect("as many active cards in both orders")
            } else {
                card
            }
        })
        .collect()
}

/// The baseline's replacement: the best `elites` members of `population`,
/// then the best children (stable sorts: ties keep member order).
pub(crate) fn replace(population: &[Member], mut children: Vec<Member>, elites: usize) -> Vec<Member> {
    let by_fitness = |a: &Member, b: &Member| b.fitness.total_cmp(&a.fitness);
    let mut parents = population.to_vec();
    parents.sort_by(by_fitness);
    children.sort_by(by_fitness);
    parents.truncate(elites);
    parents.extend(children.into_iter().take(population.len() - elites));
    parents
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::evolve::settings::tests::small;

    #[test]
    fn the_sequence_merge_refills_active_slots_in_the_childs_order() {
        // [23,12,4,5,78,3,125] merged with a child ordering the active cards
        // 78, 4, 12 gives [23,78,4,5,12,3,125].
        let settings = DraftEvolutionSettings { representation: Representation::Sequence, population: 2, ..small() };
        let mut parent: Vec<u8> = vec![23, 12, 4, 5, 78, 3, 125];
        parent.extend((1..=160u8).filter(|card| ![23, 12, 4, 5, 78, 3, 125].contains(card)));
        let mut child: Vec<u8> = vec![78, 4, 12];
        child.extend((1..=160u8).filter(|card| ![78, 4, 12].contains(card)));
        let mut draft = [[1u8, 2, 3]; 30];
        draft[0] = [78, 4, 12];
        for triple in draft.iter_mut().skip(1) {
            *triple = [78, 4, 12];
        }
        let population = vec![Member { fitness: 1.0, genes: Genes::Order(parent.clone()) }; 2];
        let children = vec![Member { fitness: 1.0, genes: Genes::Order(child) }; 2];
        let merged = merge(&population, &children, &draft, &settings, &mut GameRng::from_seed(0));
        let Genes::Order(order) = &merged[0].genes else { panic!("an order") };
        assert_eq!(&order[..7], [23, 78, 4, 5, 12, 3, 125]);
        assert_eq!(order[7..], parent[7..]);
        assert_eq!(merged[0].fitness, 1.0);
    }
}
