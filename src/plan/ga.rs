//! The genetic-algorithm engine the GA planners share: a population of
//! genomes ranked by a fitness to minimise, bred generation by generation
//! under one of two replacement schemes, plus the usual operators on
//! fixed-length gene strings.
//!
//! A problem says what a genome is, how to make a random one, how fit it is
//! and how to cross and mutate it ([`Problem`]); the engine owns the loop:
//! evaluation, ranking, selection, replacement and stopping ([`Evolution`]).
//!
//! Determinism: every random draw comes from one [`GameRng`], drawn in the
//! same order whatever the thread count. Fitness may be evaluated on rayon's
//! threads, but each genome's fitness depends on that genome alone and the
//! results are collected in population order, and ranking is a stable sort,
//! so a seed gives the same run on one thread or many.
//!
//! The operators below the engine also serve loops of their own (the LOCM
//! draft evolution, whose fitness comes from games between members):
//! uniform, order and linear order crossover, roulette-wheel selection, uniform and
//! normal draws from a [`GameRng`].
//!
//! The engine reuses its genomes' storage from one generation to the next
//! (`clone_from`, and operators that write into existing children), so a
//! generation allocates nothing once the first one is built.

use std::cmp::Ordering;
use std::fmt::Debug;

use rayon::prelude::*;
use thiserror::Error;

use crate::rng::GameRng;

/// What a GA searches over. Fitness is minimised.
pub(crate) trait Problem: Sync {
    type Genome: Clone + Debug + Send + Sync;
    type Fitness: Copy + PartialOrd + Debug + Send + Sync;

    /// A genome of the initial population.
    fn random_genome(&self, rng: &mut GameRng) -> Self::Genome;

    fn fitness(&self, genome: &Self::Genome) -> Self::Fitness;

    /// Whether this fitness ends the search (typically: it is zero).
    fn is_solution(&self, fitness: Self::Fitness) -> bool;

    /// Writes two children of `a` and `b` into `child_a` and `child_b`,
    /// whose old contents may be overwritten (their storage is reused).
    fn crossover(
        &self,
        a: &Self::Genome,
        b: &Self::Genome,
        rng: &mut GameRng,
        child_a: &mut Self::Genome,
        child_b: &mut Self::Genome,
    );

    /// Mutates a genome in place; the problem decides how often and how.
    fn mutate(&self, genome: &mut Self::Genome, rng: &mut GameRng);
}

/// How one generation becomes the next.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Scheme {
    /// The best `elites` are carried over unchanged; the rest of the next
    /// generation are children of two parents drawn uniformly from the best
    /// `parents` (rank selection), each child mutated once.
    Generational { parents: usize, elites: usize },
    /// As [`Scheme::Generational`], but the elites' copies are offered to
    /// `mutate` like every child, as the Reach the Flag write-up's GA did (its
    /// elites were kept by reference and mutated with the rest). The best
    /// genome can then be lost, which keeps the population moving.
    GenerationalMutatingElites { parents: usize, elites: usize },
    /// The best `crossover_percent`% of the population are each crossed with a
    /// partner drawn uniformly from the whole population; the children join
    /// the population, every member is then offered to `mutate`, and the
    /// whole is ranked and cut back to the population size (μ+λ).
    Plus { crossover_percent: u32 },
}

/// The engine's parameters.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct EvolutionSettings {
    pub(crate) population: usize,
    pub(crate) scheme: Scheme,
    /// The search stops unsolved after this many generations.
    pub(crate) max_generations: u64,
    /// Evaluate fitness on rayon's threads. Worth it only when a fitness
    /// costs well over a microsecond; the result is the same either way.
    pub(crate) parallel: bool,
}

#[derive(Clone, Debug, PartialEq, Eq, Error)]
pub enum GaError {
    #[error("the population must hold at least 2 genomes (got {0})")]
    PopulationTooSmall(usize),
    #[error("parents ({parents}) must be between 1 and the population ({population})")]
    Parents { parents: usize, population: usize },
    #[error("elites ({elites}) must be below the population ({population})")]
    Elites { elites: usize, population: usize },
    #[error("the crossover percentage must be between 1 and 100 (got {0})")]
    CrossoverPercent(u32),
}

impl EvolutionSettings {
    pub(crate) fn validate(&self) -> Result<(), GaError> {
        let population = self.population;
        if population < 2 {
            return Err(GaError::PopulationTooSmall(population));
        }
        match self.scheme {
            Scheme::Generational { parents, elites } | Scheme::GenerationalMutatingElites { parents, elites } => {
                if parents == 0 || parents > population {
                    return Err(GaError::Parents { parents, population });
                }
                if elites >= population {
                    return Err(GaError::Elites { elites, population });
                }
            }
            Scheme::Plus { crossover_percent } => {
                if !(1..=100).contains(&crossover_percent) {
                    return Err(GaError::CrossoverPercent(crossover_percent));
                }
            }
        }
        Ok(())
    }
}

/// A genome with its fitness.
#[derive(Clone, Debug)]
pub(crate) struct Scored<G, F> {
    pub(crate) genome: G,
    pub(crate) fitness: F,
}

/// How a run ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum RunEnd {
    /// The best genome is a solution, found in this generation (0: the
    /// initial population).
    Solved { generation: u64 },
    /// `max_generations` passed without a solution.
    GenerationCap,
    /// The caller's stop check said stop.
    Stopped,
}

/// One GA run in progress. The population is always ranked, best first.
pub(crate) struct Evolution<'p, P: Problem> {
    problem: &'p P,
    params: EvolutionSettings,
    rng: GameRng,
    population: Vec<Scored<P::Genome, P::Fitness>>,
    /// Last generation's genomes, kept for their storage.
    spare: Vec<Scored<P::Genome, P::Fitness>>,
    generation: u64,
}

impl<P: Problem> Debug for Evolution<'_, P> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Evolution")
            .field("params", &self.params)
            .field("generation", &self.generation)
            .field("best", &self.population.first())
            .finish_non_exhaustive()
    }
}

impl<'p, P: Problem> Evolution<'p, P> {
    /// Draws and ranks the initial population.
    pub(crate) fn new(problem: &'p P, params: EvolutionSettings, mut rng: GameRng) -> Result<Self, GaError> {
        params.validate()?;
        let genomes: Vec<P::Genome> = (0..params.population).map(|_| problem.random_genome(&mut rng)).collect();
        let fitness = evaluate(problem, &genomes, params.parallel);
        let population = genomes.into_iter().zip(fitness).map(|(genome, fitness)| Scored { genome, fitness }).collect();
        let mut evolution = Evolution { problem, params, rng, population, spare: Vec::new(), generation: 0 };
        rank(&mut evolution.population);
        Ok(evolution)
    }

    pub(crate) fn best(&self) -> &Scored<P::Genome, P::Fitness> {
        &self.population[0]
    }

    /// The ranked population, best first.
    #[cfg(test)]
    pub(crate) fn population(&self) -> &[Scored<P::Genome, P::Fitness>] {
        &self.population
    }

    /// Generations bred so far.
    pub(crate) fn generation(&self) -> u64 {
        self.generation
    }

    /// Breeds, evaluates and ranks one generation.
    pub(crate) fn step(&mut self) {
        match self.params.scheme {
            Scheme::Generational { parents, elites } => self.step_generational(parents, elites, false),
            Scheme::GenerationalMutatingElites { parents, elites } => self.step_generational(parents, elites, true),
            Scheme::Plus { crossover_percent } => self.step_plus(crossover_percent),
        }
        self.generation += 1;
    }

    /// Steps until a solution, the generation cap, or `stop` returns true
    /// (asked before each generation, e.g. to honour a time budget).
    pub(crate) fn run(&mut self, mut stop: impl FnMut(&Self) -> bool) -> RunEnd {
        loop {
            if self.problem.is_solution(self.best().fitness) {
                return RunEnd::Solved { generation: self.generation };
            }
            if self.generation >= self.params.max_generations {
                return RunEnd::GenerationCap;
            }
            if stop(self) {
                return RunEnd::Stopped;
            }
            self.step();
        }
    }

    fn step_generational(&mut self, parents: usize, elites: usize, mutate_elites: bool) {
        let size = self.params.population;
        let mut next = std::mem::take(&mut self.spare);
        // Reuse last generation's genomes as storage for this one's.
        while next.len() < size {
            next.push(self.population[next.len()].clone());
        }
        next.truncate(size);
        for (slot, elite) in next.iter_mut().zip(&self.population[..elites]) {
            slot.genome.clone_from(&elite.genome);
            slot.fitness = elite.fitness;
        }
        let mut filled = elites;
        while filled < size {
            let a = self.rng.below(parents as u32) as usize;
            let b = self.rng.below(parents as u32) as usize;
            let (first, rest) = next[filled..].split_at_mut(1);
            let child_a = &mut first[0].genome;
            match rest.first_mut() {
                Some(second) => {
                    let child_b = &mut second.genome;
                    self.problem.crossover(
                        &self.population[a].genome,
                        &self.population[b].genome,
                        &mut self.rng,
                        child_a,
                        child_b,
                    );
                    self.problem.mutate(child_a, &mut self.rng);
                    self.problem.mutate(child_b, &mut self.rng);
                    filled += 2;
                }
                None => {
                    // One place left: breed a pair and keep the first child.
                    let mut discard = child_a.clone();
                    self.problem.crossover(
                        &self.population[a].genome,
                        &self.population[b].genome,
                        &mut self.rng,
                        child_a,
                        &mut discard,
                    );
                    self.problem.mutate(child_a, &mut self.rng);
                    filled += 1;
                }
            }
        }
        // The elites' copies are mutated after the children are bred, so
        // the parents the children were drawn from were the unmutated ones.
        let first_scored = if mutate_elites {
            for elite in &mut next[..elites] {
                self.problem.mutate(&mut elite.genome, &mut self.rng);
            }
            0
        } else {
            elites
        };
        self.score(&mut next[first_scored..]);
        self.spare = std::mem::replace(&mut self.population, next);
        rank(&mut self.population);
    }

    fn step_plus(&mut self, crossover_percent: u32) {
        let size = self.population.len();
        let crossed = (size * crossover_percent as usize).div_ceil(100);
        let mut children = std::mem::take(&mut self.spare);
        while children.len() < 2 * crossed {
            children.push(self.population[0].clone());
        }
        children.truncate(2 * crossed);
        for index in 0..crossed {
            let partner = self.rng.below(size as u32) as usize;
            let (pair, _) = children[2 * index..].split_at_mut(2);
            let (first, second) = pair.split_at_mut(1);
            self.problem.crossover(
                &self.population[index].genome,
                &self.population[partner].genome,
                &mut self.rng,
                &mut first[0].genome,
                &mut second[0].genome,
            );
        }
        self.population.append(&mut children);
        for member in &mut self.population {
            self.problem.mutate(&mut member.genome, &mut self.rng);
        }
        let mut everyone = std::mem::take(&mut self.population);
        self.score(&mut everyone);
        rank(&mut everyone);
        self.spare.extend(everyone.drain(size..));
        self.population = everyone;
    }

    fn score(&self, members: &mut [Scored<P::Genome, P::Fitness>]) {
        let problem = self.problem;
        if self.params.parallel {
            members.par_iter_mut().for_each(|member| member.fitness = problem.fitness(&member.genome));
        } else {
            for member in members {
                member.fitness = problem.fitness(&member.genome);
            }
        }
    }
}

fn evaluate<P: Problem>(problem: &P, genomes: &[P::Genome], parallel: bool) -> Vec<P::Fitness> {
    if parallel {
        genomes.par_iter().map(|genome| problem.fitness(genome)).collect()
    } else {
        genomes.iter().map(|genome| problem.fitness(genome)).collect()
    }
}

/// Best first. Stable, so equal fitnesses keep their order and the ranking
/// is the same on every run; an incomparable fitness (NaN) counts as equal.
fn rank<G, F: PartialOrd>(population: &mut [Scored<G, F>]) {
    population.sort_by(|a, b| a.fitness.partial_cmp(&b.fitness).unwrap_or(Ordering::Equal));
}

/// Two-point crossover of equal-length gene strings: the children swap the
/// genes between two cut points drawn uniformly (`0 <= i <= j <= len`).
pub(crate) fn two_point_crossover<T: Copy>(
    a: &[T],
    b: &[T],
    rng: &mut GameRng,
    child_a: &mut Vec<T>,
    child_b: &mut Vec<T>,
) {
    debug_assert_eq!(a.len(), b.len());
    let len = a.len();
    let mut i = rng.below(len as u32 + 1) as usize;
    let mut j = rng.below(len as u32 + 1) as usize;
    if i > j {
        std::mem::swap(&mut i, &mut j);
    }
    fill_crossed(a, b, i, j, child_a);
    fill_crossed(b, a, i, j, child_b);
}

/// One-point crossover: a cut drawn uniformly in `1..len` (both parts
/// non-empty when `len >= 2`); child a is a's head and b's tail.
pub(crate) fn one_point_crossover<T: Copy>(
    a: &[T],
    b: &[T],
    rng: &mut GameRng,
    child_a: &mut Vec<T>,
    child_b: &mut Vec<T>,
) {
    debug_assert_eq!(a.len(), b.len());
    let len = a.len();
    let cut = if len < 2 { len } else { 1 + rng.below(len as u32 - 1) as usize };
    fill_crossed(a, b, cut, len, child_a);
    fill_crossed(b, a, cut, len, child_b);
}

/// `child` = `outer` with `inner`'s genes in `from..to`.
fn fill_crossed<T: Copy>(outer: &[T], inner: &[T], from: usize, to: usize, child: &mut Vec<T>) {
    child.clear();
    child.extend_from_slice(&outer[..from]);
    child.extend_from_slice(&inner[from..to]);
    child.extend_from_slice(&outer[to..]);
}

/// Swaps two genes drawn uniformly (possibly the same one).
pub(crate) fn swap_two_genes<T>(genes: &mut [T], rng: &mut GameRng) {
    if genes.is_empty() {
        return;
    }
    let i = rng.below(genes.len() as u32) as usize;
    let j = rng.below(genes.len() as u32) as usize;
    genes.swap(i, j);
}

/// Replaces one gene drawn uniformly with `allele(rng)`.
pub(crate) fn reset_one_gene<T>(genes: &mut [T], rng: &mut GameRng, allele: impl FnOnce(&mut GameRng) -> T) {
    if genes.is_empty() {
        return;
    }
    let i = rng.below(genes.len() as u32) as usize;
    genes[i] = allele(rng);
}

/// A uniform float in `[0, 1)`: the top 53 bits of one raw word, so every
/// value is a multiple of 2^-53 and the draw is the same on every platform.
pub(crate) fn unit_interval(rng: &mut GameRng) -> f64 {
    (rng.next_u64() >> 11) as f64 * (1.0 / (1u64 << 53) as f64)
}

/// `true` with probability `probability` (clamped to `[0, 1]`).
pub(crate) fn happens(probability: f64, rng: &mut GameRng) -> bool {
    unit_interval(rng) < probability
}

/// A standard normal draw (Box–Muller, one value of the pair). `ln`, `sqrt`
/// and `cos` come from the platform's maths library: the same binary on the
/// same machine gives the same values, which is what a resumed run needs.
pub(crate) fn standard_normal(rng: &mut GameRng) -> f64 {
    // 1 - u is in (0, 1], so the logarithm is finite.
    let radius = (-2.0 * (1.0 - unit_interval(rng)).ln()).sqrt();
    radius * (std::f64::consts::TAU * unit_interval(rng)).cos()
}

/// Roulette-wheel (fitness-proportional) selection: index `i` with
/// probability `weights[i] / sum`. Negative or non-finite weights count as
/// zero; when every weight is zero the draw is uniform. The sum is taken in
/// index order, so the draw never depends on how the weights were computed
/// elsewhere.
pub(crate) fn roulette_wheel(weights: &[f64], rng: &mut GameRng) -> usize {
    debug_assert!(!weights.is_empty());
    let weight = |value: f64| if value.is_finite() && value > 0.0 { value } else { 0.0 };
    let total: f64 = weights.iter().map(|&value| weight(value)).sum();
    if total <= 0.0 {
        return rng.below(weights.len() as u32) as usize;
    }
    let mut target = unit_interval(rng) * total;
    let mut last_positive = 0;
    for (index, &value) in weights.iter().enumerate() {
        let value = weight(value);
        if value > 0.0 {
            if target < value {
                return index;
            }
            target -= value;
            last_positive = index;
        }
    }
    // Rounding can leave a sliver past the last weight: it belongs to it.
    last_positive
}

/// `count` distinct indices below `n`, uniformly, in the order drawn
/// (a partial Fisher–Yates shuffle over `scratch`, whose storage is reused).
///
/// # Panics
/// If `count > n`.
pub(crate) fn distinct_indices(n: usize, count: usize, rng: &mut GameRng, scratch: &mut Vec<u32>, out: &mut Vec<u32>) {
    assert!(count <= n, "{count} distinct indices below {n}");
    scratch.clear();
    scratch.extend(0..n as u32);
    out.clear();
    for drawn in 0..count {
        let pick = drawn + rng.below((n - drawn) as u32) as usize;
        scratch.swap(drawn, pick);
        out.push(scratch[drawn]);
    }
}

/// Uniform crossover with one child: each gene comes from `a` or `b` with
/// probability 1/2 (one random bit per gene).
pub(crate) fn uniform_crossover<T: Copy>(a: &[T], b: &[T], rng: &mut GameRng, child: &mut Vec<T>) {
    debug_assert_eq!(a.len(), b.len());
    child.clear();
    let mut bits = 0u64;
    for (index, (&gene_a, &gene_b)) in a.iter().zip(b).enumerate() {
        if index % 64 == 0 {
            bits = rng.next_u64();
        }
        child.push(if bits & 1 == 0 { gene_a } else { gene_b });
        bits >>= 1;
    }
}

/// The start both order crossovers share: `child` becomes a copy of `a`,
/// two cut points `i <= j` are drawn uniformly, and `is_taken` marks the
/// genes of `a[i..j]`, which the child keeps. `None` (the child stays a
/// copy) for permutations too short to cross.
fn keep_a_segment(
    a: &[u8],
    rng: &mut GameRng,
    is_taken: &mut Vec<bool>,
    child: &mut Vec<u8>,
) -> Option<(usize, usize)> {
    let len = a.len();
    child.clear();
    child.extend_from_slice(a);
    if len < 2 {
        return None;
    }
    let mut i = rng.below(len as u32 + 1) as usize;
    let mut j = rng.below(len as u32 + 1) as usize;
    if i > j {
        std::mem::swap(&mut i, &mut j);
    }
    is_taken.clear();
    is_taken.resize(256, false);
    for &gene in &a[i..j] {
        is_taken[usize::from(gene)] = true;
    }
    Some((i, j))
}

/// Order crossover (OX1) of two permutations, one child: the child keeps
/// `a`'s genes between two cut points drawn uniformly (`i <= j`), and the
/// other places, from `j` onwards and wrapping around, take the remaining
/// genes in the order they appear in `b` starting at `j`. `is_taken` is a
/// reused buffer indexed by gene value.
pub(crate) fn order_crossover(a: &[u8], b: &[u8], rng: &mut GameRng, is_taken: &mut Vec<bool>, child: &mut Vec<u8>) {
    debug_assert_eq!(a.len(), b.len());
    let len = a.len();
    let Some((_, j)) = keep_a_segment(a, rng, is_taken, child) else { return };
    let mut place = j % len;
    for offset in 0..len {
        let gene = b[(j + offset) % len];
        if !is_taken[usize::from(gene)] {
            child[place] = gene;
            place = (place + 1) % len;
        }
    }
}

/// Linear order crossover (LOX; Falkenauer and Bouffouix, 1991) of two
/// permutations, one child: the child keeps `a`'s genes between two cut
/// points drawn uniformly (`i <= j`), and the other places, left to right,
/// take the remaining genes in the order they appear in `b` from its front.
/// Unlike [`order_crossover`], which starts both at the second cut and
/// wraps around (right for cyclic tours), it keeps `b`'s front genes near
/// the front: what matters when the permutation is a ranking.
pub(crate) fn linear_order_crossover(
    a: &[u8],
    b: &[u8],
    rng: &mut GameRng,
    is_taken: &mut Vec<bool>,
    child: &mut Vec<u8>,
) {
    debug_assert_eq!(a.len(), b.len());
    let len = a.len();
    let Some((i, j)) = keep_a_segment(a, rng, is_taken, child) else { return };
    let mut places = (0..i).chain(j..len);
    for &gene in b {
        if !is_taken[usize::from(gene)] {
            let place = places.next().expect("as many free places as genes left");
            child[place] = gene;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// OneMax turned around: minimise the number of zero bits.
    struct CountZeros {
        len: usize,
    }

    impl Problem for CountZeros {
        type Genome = Vec<u8>;
        type Fitness = u32;

        fn random_genome(&self, rng: &mut GameRng) -> Vec<u8> {
            (0..self.len).map(|_| rng.below(2) as u8).collect()
        }
        fn fitness(&self, genome: &Vec<u8>) -> u32 {
            genome.iter().filter(|&&bit| bit == 0).count() as u32
        }
        fn is_solution(&self, fitness: u32) -> bool {
            fitness == 0
        }
        fn crossover(&self, a: &Vec<u8>, b: &Vec<u8>, rng: &mut GameRng, x: &mut Vec<u8>, y: &mut Vec<u8>) {
            two_point_crossover(a, b, rng, x, y);
        }
        fn mutate(&self, genome: &mut Vec<u8>, rng: &mut GameRng) {
            if rng.chance(1, 2) {
                reset_one_gene(genome, rng, |rng| rng.below(2) as u8);
            }
        }
    }

    fn params(scheme: Scheme, parallel: bool) -> EvolutionSettings {
        EvolutionSettings { population: 40, scheme, max_generations: 2000, parallel }
    }

    const GENERATIONAL: Scheme = Scheme::Generational { parents: 25, elites: 5 };
    const PLUS: Scheme = Scheme::Plus { crossover_percent: 30 };

    #[test]
    fn both_schemes_solve_an_easy_problem() {
        let problem = CountZeros { len: 48 };
        for scheme in [GENERATIONAL, PLUS] {
            let mut evolution = Evolution::new(&problem, params(scheme, false), GameRng::from_seed(3)).unwrap();
            let end = evolution.run(|_| false);
            assert!(matches!(end, RunEnd::Solved { .. }), "{scheme:?} ended {end:?}");
            assert_eq!(evolution.best().fitness, 0);
            assert_eq!(evolution.population().len(), 40);
        }
    }

    #[test]
    fn population_stays_ranked_and_elites_never_get_worse() {
        let problem = CountZeros { len: 64 };
        for scheme in [GENERATIONAL, PLUS] {
            let mut evolution = Evolution::new(&problem, params(scheme, false), GameRng::from_seed(9)).unwrap();
            let mut best = evolution.best().fitness;
            for _ in 0..30 {
                evolution.step();
                let fitness: Vec<u32> = evolution.population().iter().map(|member| member.fitness).collect();
                assert!(fitness.windows(2).all(|pair| pair[0] <= pair[1]), "{scheme:?}: not ranked: {fitness:?}");
                for member in evolution.population() {
                    assert_eq!(member.fitness, problem.fitness(&member.genome), "stale fitness");
                }
                if scheme == GENERATIONAL {
                    assert!(evolution.best().fitness <= best, "the elite got worse");
                }
                best = evolution.best().fitness;
            }
        }
    }

    #[test]
    fn same_seed_same_run_on_one_thread_or_many() {
        let problem = CountZeros { len: 80 };
        let trace = |parallel: bool, threads: usize| {
            let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).build().unwrap();
            pool.install(|| {
                let mut evolution = Evolution::new(&problem, params(GENERATIONAL, parallel), GameRng::from_seed(5))
                    .expect("valid parameters");
                let end = evolution.run(|_| false);
                (end, evolution.best().genome.clone())
            })
        };
        let reference = trace(false, 1);
        assert_eq!(trace(true, 1), reference);
        assert_eq!(trace(true, 2), reference);
        assert!(matches!(reference.0, RunEnd::Solved { .. }));
        let initial = |seed| {
            let evolution = Evolution::new(&problem, params(GENERATIONAL, false), GameRng::from_seed(seed)).unwrap();
            evolution.population().iter().map(|member| member.genome.clone()).collect::<Vec<_>>()
        };
        assert_eq!(initial(5), initial(5));
        assert_ne!(initial(5), initial(6), "the seed must matter");
    }

    #[test]
    fn stop_and_cap_end_a_run() {
        let problem = CountZeros { len: 500 };
        let mut capped = params(GENERATIONAL, false);
        capped.max_generations = 3;
        let mut evolution = Evolution::new(&problem, capped, GameRng::from_seed(1)).unwrap();
        assert_eq!(evolution.run(|_| false), RunEnd::GenerationCap);
        assert_eq!(evolution.generation(), 3);
        let mut evolution = Evolution::new(&problem, params(GENERATIONAL, false), GameRng::from_seed(1)).unwrap();
        assert_eq!(evolution.run(|evolution| evolution.generation() == 7), RunEnd::Stopped);
        assert_eq!(evolution.generation(), 7);
    }

    #[test]
    fn bad_parameters_are_refused() {
        let problem = CountZeros { len: 4 };
        let cases = [
            (EvolutionSettings { population: 1, ..params(GENERATIONAL, false) }, GaError::PopulationTooSmall(1)),
            (
                params(Scheme::Generational { parents: 41, elites: 0 }, false),
                GaError::Parents { parents: 41, population: 40 },
            ),
            (
                params(Scheme::Generational { parents: 10, elites: 40 }, false),
                GaError::Elites { elites: 40, population: 40 },
            ),
            (params(Scheme::Plus { crossover_percent: 0 }, false), GaError::CrossoverPercent(0)),
        ];
        for (bad, expected) in cases {
            assert_eq!(Evolution::new(&problem, bad, GameRng::from_seed(0)).err(), Some(expected));
        }
    }

    #[test]
    fn mutating_elites_solves_keeps_fitness_fresh_and_can_lose_the_best() {
        let problem = CountZeros { len: 48 };
        let scheme = Scheme::GenerationalMutatingElites { parents: 25, elites: 5 };
        let mut evolution = Evolution::new(&problem, params(scheme, false), GameRng::from_seed(3)).unwrap();
        let mut got_worse = false;
        let mut best = evolution.best().fitness;
        for _ in 0..200 {
            evolution.step();
            for member in evolution.population() {
                assert_eq!(member.fitness, problem.fitness(&member.genome), "stale fitness");
            }
            got_worse |= evolution.best().fitness > best;
            best = evolution.best().fitness;
        }
        assert!(got_worse, "with every member mutated, the best must sometimes be lost");
        let mut evolution = Evolution::new(&problem, params(scheme, false), GameRng::from_seed(3)).unwrap();
        assert!(matches!(evolution.run(|_| false), RunEnd::Solved { .. }));
        let bad = params(Scheme::GenerationalMutatingElites { parents: 0, elites: 1 }, false);
        assert_eq!(
            Evolution::new(&problem, bad, GameRng::from_seed(0)).err(),
            Some(GaError::Parents { parents: 0, population: 40 })
        );
    }

    #[test]
    fn crossovers_keep_every_gene_in_place() {
        let a: Vec<u16> = (0..20).collect();
        let b: Vec<u16> = (100..120).collect();
        let mut rng = GameRng::from_seed(2);
        let (mut x, mut y) = (Vec::new(), Vec::new());
        for _ in 0..200 {
            for one_point in [false, true] {
                if one_point {
                    one_point_crossover(&a, &b, &mut rng, &mut x, &mut y);
                } else {
                    two_point_crossover(&a, &b, &mut rng, &mut x, &mut y);
                }
                assert_eq!((x.len(), y.len()), (20, 20));
                for i in 0..20 {
                    // Position i of each child comes from position i of a parent, and
                    // the two children take complementary parents there.
                    let from_a = x[i] == a[i];
                    assert!(from_a || x[i] == b[i]);
                    assert_eq!(y[i], if from_a { b[i] } else { a[i] });
                }
                if one_point {
                    assert_eq!(x[0], a[0], "a one-point child starts with its first parent's head");
                    assert_eq!(x[19], b[19], "and ends with the other's tail");
                }
            }
        }
    }

    #[test]
    fn order_crossover_keeps_a_slice_of_the_first_parent_and_yields_a_permutation() {
        let a: Vec<u8> = (1..=30).collect();
        let b: Vec<u8> = (1..=30).rev().collect();
        let mut rng = GameRng::from_seed(4);
        let (mut taken, mut child) = (Vec::new(), Vec::new());
        let mut differs_from_both = false;
        for _ in 0..300 {
            order_crossover(&a, &b, &mut rng, &mut taken, &mut child);
            let mut sorted = child.clone();
            sorted.sort_unstable();
            assert_eq!(sorted, a, "not a permutation: {child:?}");
            differs_from_both |= child != a && child != b;
        }
        assert!(differs_from_both);
        // Cuts 1..4 keep a's 12, 4, 5; from place 4 on, wrapping, the rest
        // follow in b's order from its place 4: 125, 78, 3, then 23.
        let a = [23, 12, 4, 5, 78, 3, 125];
        let b = [125, 78, 3, 23, 4, 12, 5];
        let found = (0..500).any(|_| {
            order_crossover(&a, &b, &mut rng, &mut taken, &mut child);
            child == [23, 12, 4, 5, 125, 78, 3]
        });
        assert!(found, "cuts 1..4 must give [23, 12, 4, 5, 125, 78, 3]");
    }

    #[test]
    fn linear_order_crossover_fills_from_the_front_in_the_other_parents_order() {
        let mut rng = GameRng::from_seed(5);
        let (mut taken, mut child) = (Vec::new(), Vec::new());
        let a: Vec<u8> = (1..=30).collect();
        let b: Vec<u8> = (1..=30).rev().collect();
        for _ in 0..300 {
            linear_order_crossover(&a, &b, &mut rng, &mut taken, &mut child);
            let mut sorted = child.clone();
            sorted.sort_unstable();
            assert_eq!(sorted, a, "not a permutation: {child:?}");
        }
        // Cuts 1..4 keep a's 12, 4, 5; places 0, 4, 5, 6 take the rest in
        // b's order from its front: 125, 78, 3, 23.
        let a = [23, 12, 4, 5, 78, 3, 125];
        let b = [125, 78, 3, 23, 4, 12, 5];
        let found = (0..500).any(|_| {
            linear_order_crossover(&a, &b, &mut rng, &mut taken, &mut child);
            child == [125, 12, 4, 5, 78, 3, 23]
        });
        assert!(found, "cuts 1..4 must give [125, 12, 4, 5, 78, 3, 23]");
    }

    #[test]
    fn uniform_crossover_takes_each_gene_from_one_parent_about_half_the_time() {
        let a = vec![0u32; 1000];
        let b = vec![1u32; 1000];
        let mut rng = GameRng::from_seed(8);
        let mut child = Vec::new();
        uniform_crossover(&a, &b, &mut rng, &mut child);
        let from_b = child.iter().filter(|&&gene| gene == 1).count();
        assert_eq!(child.len(), 1000);
        assert!((430..570).contains(&from_b), "{from_b}");
    }

    #[test]
    fn roulette_wheel_follows_the_weights() {
        let mut rng = GameRng::from_seed(6);
        let weights = [0.0, 1.0, 3.0, -2.0, f64::NAN];
        let mut seen = [0u32; 5];
        for _ in 0..8000 {
            seen[roulette_wheel(&weights, &mut rng)] += 1;
        }
        assert_eq!((seen[0], seen[3], seen[4]), (0, 0, 0), "{seen:?}");
        assert!((1700..2300).contains(&seen[1]), "{seen:?}");
        let mut uniform = [0u32; 4];
        for _ in 0..4000 {
            uniform[roulette_wheel(&[0.0; 4], &mut rng)] += 1;
        }
        assert!(uniform.iter().all(|&count| (850..1150).contains(&count)), "{uniform:?}");
    }

    #[test]
    fn distinct_indices_are_distinct_and_uniform_draws_look_right() {
        let mut rng = GameRng::from_seed(2);
        let (mut scratch, mut out) = (Vec::new(), Vec::new());
        for _ in 0..100 {
            distinct_indices(10, 4, &mut rng, &mut scratch, &mut out);
            let mut sorted = out.clone();
            sorted.sort_unstable();
            sorted.dedup();
            assert_eq!(sorted.len(), 4);
            assert!(out.iter().all(|&index| index < 10));
        }
        let draws: Vec<f64> = (0..20_000).map(|_| standard_normal(&mut rng)).collect();
        let mean = draws.iter().sum::<f64>() / draws.len() as f64;
        let variance = draws.iter().map(|x| (x - mean) * (x - mean)).sum::<f64>() / draws.len() as f64;
        assert!(mean.abs() < 0.03 && (variance - 1.0).abs() < 0.05, "mean {mean}, variance {variance}");
        let units: Vec<f64> = (0..1000).map(|_| unit_interval(&mut rng)).collect();
        assert!(units.iter().all(|&u| (0.0..1.0).contains(&u)));
        assert!((0..1000).filter(|_| happens(0.25, &mut rng)).count().abs_diff(250) < 60);
    }
}
