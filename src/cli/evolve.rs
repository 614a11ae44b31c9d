//! `tickbot evolve draft` and `tickbot eval draft`: the LOCM draft
//! evolution's flags, its run directory (checkpoints, best genomes, the
//! per-generation log), resuming, progress and summary; and the results
//! step's table, JSON lines and chart.
//!
//! A run directory holds `generations/NNNN.json` (the checkpoint after
//! generation NNNN, 0 the initial population; the newest is what `--resume`
//! continues from), `best/NNNN.txt` (each generation's best, loadable by
//! `genome:FILE`), `best.txt` (the latest best) and `log.jsonl` (one report
//! per generation). Files are written as `.part`, synced and renamed, so a
//! crash leaves either the old or the new version.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::Instant;

use anyhow::{Context, anyhow};
use clap::{ArgGroup, Args, ValueEnum};
use serde::Serialize;

use tickbot::evolve::chart::eval_chart;
use tickbot::evolve::checkpoint::{Checkpoint, GenerationReport};
use tickbot::evolve::draft::DraftEvolution;
use tickbot::evolve::eval::{EvalRow, EvalSettings, RunInfo, evaluate_generation};
use tickbot::evolve::settings::{
    DraftEvolutionSettings, Init, MergeScope, Pairing, Representation, Scheme, SequenceCrossover, Tournament,
};
use tickbot::game::locm::Config;
use tickbot::par::Workers;
use tickbot::progress::Progress;

use super::support::{Exit, ExitOnError, Failure, default_parallelism, interrupt_budget, print_json, progress_bar};

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub(crate) enum RepresentationArg {
    /// A priority in [0, 1] per card; uniform mutation; merge AG (copy the child's genes).
    Priority,
    /// A priority per card; Gaussian mutation (--sigma); merge AG-weights (--wc).
    PriorityGauss,
    /// A permutation of card ids; order crossover, swap mutation; refill merge.
    Sequence,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub(crate) enum SequenceCrossoverArg {
    /// Order crossover as the write-up names it: free places filled from the second cut,
    /// wrapping around.
    Ox1,
    /// Linear order crossover (ours): free places filled from the front, keeping a
    /// ranking's head at the head.
    Linear,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub(crate) enum MergeArg {
    /// Merge the generation's active genes (the cards of its draft).
    Active,
    /// Merge every gene (AG-all).
    All,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub(crate) enum SchemeArg {
    /// A fresh draft per generation, roulette-drawn parents and children merged.
    ActiveGenes,
    /// No active genes: fixed drafts (--baseline-drafts), the best --elites parents
    /// kept, the rest replaced by the best children.
    Baseline,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub(crate) enum TournamentArg {
    /// Every pair plays; the two with most wins become parents.
    RoundRobin,
    /// A knock-out bracket (--ts a power of two); the finalists become parents.
    Knockout,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub(crate) enum PairingArg {
    /// Sorted children play their neighbours (1st-2nd, 3rd-4th, ...).
    Neighbours,
    /// Sorted children play their mirror (1st-last, 2nd-second to last, ...).
    FirstLast,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub(crate) enum InitArg {
    /// Every initial fitness is 0.
    Zero,
    /// Games against random other members on random drafts (--init-games).
    Pairs,
    /// Games against a fixed drafter (--init-opponent) on random drafts.
    Against,
}

#[derive(Debug, Args)]
#[command(group(ArgGroup::new("settings").multiple(true)))]
pub(crate) struct EvolveDraft {
    /// The run directory to create (it must not hold a run yet).
    #[arg(long, value_name = "DIR", required_unless_present = "resume")]
    pub out: Option<PathBuf>,
    /// Continue the run in DIR from its newest checkpoint, with its own settings;
    /// the result is exactly that of a run never stopped.
    #[arg(long, value_name = "DIR", conflicts_with_all = ["settings", "out"])]
    pub resume: Option<PathBuf>,
    /// The run's seed: every draft, game and random draw derives from it.
    #[arg(long, default_value_t = 1, group = "settings")]
    pub seed: u64,
    #[arg(long, value_enum, default_value = "priority-gauss", group = "settings")]
    pub representation: RepresentationArg,
    /// The crossover of --representation sequence.
    #[arg(long, value_enum, default_value = "linear", group = "settings")]
    pub sequence_crossover: SequenceCrossoverArg,
    #[arg(long, value_enum, default_value = "active", group = "settings")]
    pub merge: MergeArg,
    #[arg(long, value_enum, default_value = "active-genes", group = "settings")]
    pub scheme: SchemeArg,
    /// P: members of the population.
    #[arg(long, default_value_t = 100, value_name = "P", group = "settings")]
    pub population: usize,
    /// G: generations to breed.
    #[arg(long, default_value_t = 100, value_name = "G", group = "settings")]
    pub generations: u64,
    /// Members per tournament.
    #[arg(long, default_value_t = 4, value_name = "N", group = "settings")]
    pub ts: usize,
    #[arg(long, value_enum, default_value = "round-robin", group = "settings")]
    pub tournament: TournamentArg,
    /// Tournament games per pair and seat order.
    #[arg(long, default_value_t = 5, value_name = "N", group = "settings")]
    pub tg: u32,
    /// Scoring rounds for the children.
    #[arg(long, default_value_t = 2, value_name = "N", group = "settings")]
    pub sr: u32,
    /// Scoring games per pair and seat order.
    #[arg(long, default_value_t = 20, value_name = "N", group = "settings")]
    pub sg: u32,
    #[arg(long, value_enum, default_value = "neighbours", group = "settings")]
    pub pairing: PairingArg,
    /// Per-gene mutation probability.
    #[arg(long, default_value_t = 0.05, value_name = "P", group = "settings")]
    pub pm: f64,
    /// The child's weight in the AG-weights merge (priority-gauss).
    #[arg(long, default_value_t = 0.75, value_name = "W", group = "settings")]
    pub wc: f64,
    /// The Gaussian mutation's standard deviation (priority-gauss).
    #[arg(long, default_value_t = 0.1, value_name = "S", group = "settings")]
    pub sigma: f64,
    /// The initial population's fitness.
    #[arg(long, value_enum, default_value = "zero", group = "settings")]
    pub init: InitArg,
    /// Games per member for --init pairs or against.
    #[arg(long, default_value_t = 20, value_name = "N", group = "settings")]
    pub init_games: u32,
    /// The fixed drafter of --init against.
    #[arg(long, default_value = "closetai", value_name = "BOT", group = "settings")]
    pub init_opponent: String,
    /// The baseline's fixed drafts.
    #[arg(long, default_value_t = 10, value_name = "N", group = "settings")]
    pub baseline_drafts: u32,
    /// The baseline's parents kept unchanged each generation.
    #[arg(long, default_value_t = 10, value_name = "N", group = "settings")]
    pub elites: usize,
    /// The battle bot of both seats: random, pass, max-attack, greedy, search or
    /// search:fast (the fast mode, a smaller budget, for evolution).
    #[arg(long, default_value = "greedy", value_name = "BOT", group = "settings")]
    pub battle: String,
    /// Games of each generation's best against ClosetAI on fixed drafts (the progress probe).
    #[arg(long, default_value_t = 200, value_name = "N", group = "settings")]
    pub probe_games: u32,
    /// Threads. Default: the number of cores. Results do not depend on it.
    #[arg(long, value_parser = clap::value_parser!(u16).range(1..))]
    pub threads: Option<u16>,
    /// Print the summary as one JSON object.
    #[arg(long)]
    pub json: bool,
}

impl EvolveDraft {
    fn settings(&self) -> DraftEvolutionSettings {
        DraftEvolutionSettings {
            representation: match self.representation {
                RepresentationArg::Priority => Representation::Priority,
                RepresentationArg::PriorityGauss => Representation::PriorityGauss,
                RepresentationArg::Sequence => Representation::Sequence,
            },
            sequence_crossover: match self.sequence_crossover {
                SequenceCrossoverArg::Ox1 => SequenceCrossover::Ox1,
                SequenceCrossoverArg::Linear => SequenceCrossover::Linear,
            },
            merge: match self.merge {
                MergeArg::Active => MergeScope::Active,
                MergeArg::All => MergeScope::All,
            },
            scheme: match self.scheme {
                SchemeArg::ActiveGenes => Scheme::ActiveGenes,
                SchemeArg::Baseline => Scheme::Baseline,
            },
            population: self.population,
            generations: self.generations,
            tournament_size: self.ts,
            tournament: match self.tournament {
                TournamentArg::RoundRobin => Tournament::RoundRobin,
                TournamentArg::Knockout => Tournament::Knockout,
            },
            tournament_games: self.tg,
            scoring_rounds: self.sr,
            scoring_games: self.sg,
            pairing: match self.pairing {
                PairingArg::Neighbours => Pairing::Neighbours,
                PairingArg::FirstLast => Pairing::FirstLast,
            },
            mutation: self.pm,
            child_weight: self.wc,
            sigma: self.sigma,
            init: match self.init {
                InitArg::Zero => Init::Zero,
                InitArg::Pairs => Init::Pairs,
                InitArg::Against => Init::Against,
            },
            init_games: self.init_games,
            init_opponent: self.init_opponent.clone(),
            baseline_drafts: self.baseline_drafts,
            elites: self.elites,
            battle: self.battle.clone(),
            probe_games: self.probe_games,
        }
    }
}

#[derive(Debug, Args)]
pub(crate) struct EvalDraft {
    /// A run directory made by `tickbot evolve draft`.
    #[arg(value_name = "DIR")]
    pub dir: PathBuf,
    /// Games of the final winner against each member of each generation, per seat order.
    #[arg(long, default_value_t = 10, value_name = "N", value_parser = clap::value_parser!(u32).range(1..))]
    pub games: u32,
    /// Games of each generation's best against ClosetAI and against Icebox (fresh drafts).
    #[arg(long, default_value_t = 400, value_name = "N", value_parser = clap::value_parser!(u32).range(2..))]
    pub curve_games: u32,
    /// Threads. Default: the number of cores. Results do not depend on it.
    #[arg(long, value_parser = clap::value_parser!(u16).range(1..))]
    pub threads: Option<u16>,
    /// Print every generation's row as one JSON array.
    #[arg(long)]
    pub json: bool,
}

/// `tickbot evolve draft`'s summary. The key names are a documented interface.
#[derive(Debug, Serialize)]
struct EvolveSummary {
    dir: PathBuf,
    command: String,
    /// Generations finished in the run so far.
    generations: u64,
    /// Generations this invocation bred (fewer than `generations` after a resume).
    generations_this_run: u64,
    /// Games this invocation played: evolution, probe, and both.
    evolution_games: u64,
    probe_games: u64,
    games: u64,
    seconds: f64,
    games_per_sec: Option<f64>,
    threads: usize,
    best_fitness: f64,
    best_probe_win_rate: f64,
    interrupted: bool,
}

fn config() -> Config {
    Config::bundled()
}

pub(crate) fn evolve(args: EvolveDraft) -> Result<Exit, Failure> {
    let threads = args.threads.map_or_else(default_parallelism, usize::from);
    let config = config();
    let budget = interrupt_budget();
    let started = Instant::now();
    let (dir, mut evolution, progress) = match &args.resume {
        Some(dir) => {
            let checkpoint = newest_checkpoint(dir)?;
            let evolution = DraftEvolution::resume(&config, checkpoint).exit_code(Exit::BadInput)?;
            rewrite_log(dir, evolution.generation())?;
            write_best(dir, &evolution)?;
            let progress = Progress::with_total(estimated_games(evolution.settings(), evolution.generation()));
            (dir.clone(), evolution, progress)
        }
        None => {
            let dir = args.out.clone().ok_or_else(|| Failure::bad_input(anyhow!("--out DIR is required")))?;
            let settings = args.settings();
            settings.validate().exit_code(Exit::BadInput)?;
            prepare_run_dir(&dir)?;
            let progress = Progress::with_total(estimated_games(&settings, 0));
            let workers = Workers { threads, budget: &budget, progress: &progress };
            let Some(evolution) = start_run(&dir, &config, settings, args.seed, &workers, started)? else {
                eprintln!("interrupted before the initial population was scored: nothing to resume");
                return Ok(Exit::Interrupted);
            };
            (dir, evolution, progress)
        }
    };
    let start_generation = evolution.generation();
    // A fresh run counts the initial population's games; a resumed one only
    // what this invocation plays.
    let (evolution_games, probe_games) = match args.resume {
        Some(_) => (0, 0),
        None => (evolution.report().games, evolution.report().probe_games),
    };
    let workers = Workers { threads, budget: &budget, progress: &progress };
    let (evolution_games, probe_games) =
        breed_to_the_end(&dir, &mut evolution, &workers, started, (evolution_games, probe_games))?;
    let seconds = started.elapsed().as_secs_f64();
    let games = evolution_games + probe_games;
    let summary = EvolveSummary {
        dir: dir.clone(),
        command: evolution.settings().command_line(evolution.seed()),
        generations: evolution.generation(),
        generations_this_run: evolution.generation() - start_generation,
        evolution_games,
        probe_games,
        games,
        seconds,
        games_per_sec: (seconds >= 0.05).then(|| games as f64 / seconds),
        threads,
        best_fitness: evolution.best().fitness,
        best_probe_win_rate: evolution.report().probe_win_rate,
        interrupted: !evolution.is_finished(),
    };
    print_summary(&summary, &evolution, args.json)?;
    // A run whose last generation was written is a success, even if Ctrl-C
    // came while it was being written.
    Ok(if summary.interrupted { Exit::Interrupted } else { Exit::Success })
}

/// Draws and scores a new run's initial population and saves it as
/// generation 0; `None` if interrupted first.
fn start_run(
    dir: &Path,
    config: &Config,
    settings: DraftEvolutionSettings,
    seed: u64,
    workers: &Workers,
    started: Instant,
) -> Result<Option<DraftEvolution>, Failure> {
    let evolution = {
        let _bar = progress_bar("games (initial population)", workers.progress);
        DraftEvolution::start(config, settings, seed, workers).exit_code(Exit::BadInput)?
    };
    let Some(mut evolution) = evolution else { return Ok(None) };
    evolution.set_seconds(started.elapsed().as_secs_f64());
    save_generation(dir, &evolution)?;
    Ok(Some(evolution))
}

/// Breeds and saves generation after generation until the run is finished
/// or interrupted, logging each; the evolution and probe games played,
/// counted on from `(evolution_games, probe_games)`.
fn breed_to_the_end(
    dir: &Path,
    evolution: &mut DraftEvolution,
    workers: &Workers,
    started: Instant,
    (mut evolution_games, mut probe_games): (u64, u64),
) -> Result<(u64, u64), Failure> {
    let settings = evolution.settings().clone();
    let _bar = progress_bar("games", workers.progress);
    while !evolution.is_finished() {
        let generation_started = Instant::now();
        if evolution.step(workers).is_none() {
            break;
        }
        evolution.set_seconds(generation_started.elapsed().as_secs_f64());
        save_generation(dir, evolution)?;
        let report = evolution.report();
        evolution_games += report.games;
        probe_games += report.probe_games;
        let elapsed = started.elapsed().as_secs_f64();
        let games_per_sec = (evolution_games + probe_games) as f64 / elapsed.max(1e-9);
        let remaining = estimated_games(&settings, report.generation);
        tracing::info!(
            generation = report.generation,
            of = settings.generations,
            fitness_mean = format!("{:.3}", report.fitness_mean),
            fitness_max = format!("{:.3}", report.fitness_max),
            probe_vs_closetai = format!("{:.1}%", 100.0 * report.probe_win_rate),
            games_per_sec = format!("{games_per_sec:.0}"),
            eta = format!("{:.0}s", remaining as f64 / games_per_sec.max(1.0)),
            "generation"
        );
    }
    Ok((evolution_games, probe_games))
}

/// `evolve draft`'s summary on stdout, and how to continue an interrupted run.
fn print_summary(summary: &EvolveSummary, evolution: &DraftEvolution, json: bool) -> Result<(), Failure> {
    if json {
        print_json(summary)?;
    } else {
        let generations = evolution.settings().generations;
        println!("evolved     {} of {generations} generations, {}", summary.generations, summary.command);
        let speed = summary.games_per_sec.map_or("too short to time".to_string(), |rate| format!("{rate:.0} games/s"));
        println!(
            "games       {} in {:.1} s on {} threads: {speed} ({} evolution, {} probe, {} generations this run)",
            summary.games,
            summary.seconds,
            summary.threads,
            summary.evolution_games,
            summary.probe_games,
            summary.generations_this_run
        );
        println!(
            "best        fitness {:.4}, {:.1}% against ClosetAI on the {}-game probe",
            summary.best_fitness,
            100.0 * summary.best_probe_win_rate,
            evolution.report().probe_games
        );
        println!("written     {}", summary.dir.join("best.txt").display());
    }
    if summary.interrupted {
        eprintln!(
            "interrupted after generation {}: continue with `tickbot evolve draft --resume {}`",
            evolution.generation(),
            summary.dir.display()
        );
    }
    Ok(())
}

/// Games still to play after `generation`, the probes included.
fn estimated_games(settings: &DraftEvolutionSettings, generation: u64) -> u64 {
    let per_generation = settings.games_per_generation() + 2 * u64::from(settings.probe_games).div_ceil(2);
    settings.generations.saturating_sub(generation) * per_generation
}

fn prepare_run_dir(dir: &Path) -> Result<(), Failure> {
    if dir.join("generations").read_dir().is_ok_and(|mut entries| entries.next().is_some()) {
        return Err(Failure::bad_input(anyhow!(
            "{} already holds a draft evolution: continue it with --resume {0}, or choose another --out",
            dir.display()
        )));
    }
    for sub in ["generations", "best"] {
        let path = dir.join(sub);
        std::fs::create_dir_all(&path)
            .with_context(|| format!("cannot create {}", path.display()))
            .exit_code(Exit::Runtime)?;
    }
    Ok(())
}

fn generation_path(dir: &Path, generation: u64) -> PathBuf {
    dir.join("generations").join(format!("{generation:04}.json"))
}

/// Writes `bytes` to `path` via `path.part`, synced, then renamed.
fn write_durably(path: &Path, bytes: &[u8]) -> Result<(), Failure> {
    let part = path.with_extension(format!(
        "{}part",
        path.extension().map_or(String::new(), |extension| format!("{}.", extension.to_string_lossy()))
    ));
    let write = || -> std::io::Result<()> {
        let mut file = std::fs::File::create(&part)?;
        file.write_all(bytes)?;
        file.sync_all()?;
        std::fs::rename(&part, path)
    };
    write().with_context(|| format!("cannot write {}", path.display())).exit_code(Exit::Runtime)
}

/// The checkpoint, the generation's best and `best.txt`, then the log line.
fn save_generation(dir: &Path, evolution: &DraftEvolution) -> Result<(), Failure> {
    let generation = evolution.generation();
    let checkpoint = serde_json::to_vec(&evolution.checkpoint()).exit_code(Exit::Runtime)?;
    write_durably(&generation_path(dir, generation), &checkpoint)?;
    write_best(dir, evolution)?;
    let line = serde_json::to_string(evolution.report()).exit_code(Exit::Runtime)?;
    let log = dir.join("log.jsonl");
    let append = || -> std::io::Result<()> {
        let mut file = std::fs::OpenOptions::new().create(true).append(true).open(&log)?;
        writeln!(file, "{line}")
    };
    append().with_context(|| format!("cannot append to {}", log.display())).exit_code(Exit::Runtime)
}

fn write_best(dir: &Path, evolution: &DraftEvolution) -> Result<(), Failure> {
    let text = evolution.best_text();
    let best_dir = dir.join("best");
    std::fs::create_dir_all(&best_dir)
        .with_context(|| format!("cannot create {}", best_dir.display()))
        .exit_code(Exit::Runtime)?;
    write_durably(&best_dir.join(format!("{:04}.txt", evolution.generation())), text.as_bytes())?;
    write_durably(&dir.join("best.txt"), text.as_bytes())
}

/// The generations a run directory holds checkpoints of, in order.
fn checkpoint_generations(dir: &Path) -> Result<Vec<u64>, Failure> {
    let generations_dir = dir.join("generations");
    let entries = std::fs::read_dir(&generations_dir)
        .with_context(|| {
            format!("cannot read {}: is {} a draft evolution's directory?", generations_dir.display(), dir.display())
        })
        .exit_code(Exit::BadInput)?;
    let mut generations: Vec<u64> = entries
        .filter_map(|entry| {
            let name = entry.ok()?.file_name().into_string().ok()?;
            name.strip_suffix(".json")?.parse().ok()
        })
        .collect();
    generations.sort_unstable();
    if generations.is_empty() {
        return Err(Failure::bad_input(anyhow!("{} holds no checkpoint", generations_dir.display())));
    }
    Ok(generations)
}

fn read_checkpoint(dir: &Path, generation: u64) -> Result<Checkpoint, Failure> {
    let path = generation_path(dir, generation);
    let text = std::fs::read_to_string(&path)
        .with_context(|| format!("cannot read {}", path.display()))
        .exit_code(Exit::BadInput)?;
    serde_json::from_str(&text).map_err(|error| {
        Failure::bad_input(anyhow!(
            "{}:{}:{}: not a draft evolution checkpoint: {error}",
            path.display(),
            error.line(),
            error.column()
        ))
    })
}

fn newest_checkpoint(dir: &Path) -> Result<Checkpoint, Failure> {
    let generations = checkpoint_generations(dir)?;
    read_checkpoint(dir, *generations.last().expect("not empty"))
}

/// `log.jsonl` again from the checkpoints up to `last`: a run killed
/// between a checkpoint and its log line, or after a log line whose
/// checkpoint is gone, gets a log that matches its checkpoints.
fn rewrite_log(dir: &Path, last: u64) -> Result<(), Failure> {
    let mut text = String::new();
    for generation in checkpoint_generations(dir)?.into_iter().filter(|&generation| generation <= last) {
        let report: GenerationReport = read_checkpoint(dir, generation)?.report;
        text.push_str(&serde_json::to_string(&report).exit_code(Exit::Runtime)?);
        text.push('\n');
    }
    write_durably(&dir.join("log.jsonl"), text.as_bytes())
}

pub(crate) fn eval(args: EvalDraft) -> Result<Exit, Failure> {
    let threads = args.threads.map_or_else(default_parallelism, usize::from);
    let config = config();
    let generations = checkpoint_generations(&args.dir)?;
    let last = read_checkpoint(&args.dir, *generations.last().expect("not empty"))?;
    let winner = last.population[last.report.best].genes.clone();
    let run = RunInfo { config: &config, settings: &last.settings, seed: last.seed };
    let eval = EvalSettings { games_per_member: args.games, curve_games: args.curve_games };
    let budget = interrupt_budget();
    let bred: Vec<u64> = generations.iter().copied().filter(|&generation| generation >= 1).collect();
    let per_row =
        2 * u64::from(args.games) * last.settings.population as u64 + 2 * 2 * u64::from(args.curve_games).div_ceil(2);
    let progress = Progress::with_total(per_row * bred.len() as u64);
    let mut rows: Vec<EvalRow> = Vec::with_capacity(bred.len());
    {
        let _bar = progress_bar("games", &progress);
        for &generation in &bred {
            let population = read_checkpoint(&args.dir, generation)?.population;
            match evaluate_generation(
                run,
                generation,
                &population,
                &winner,
                eval,
                &Workers { threads, budget: &budget, progress: &progress },
            ) {
                Some(row) => rows.push(row),
                None => break,
            }
        }
    }
    let mut lines = String::new();
    for row in &rows {
        lines.push_str(&serde_json::to_string(row).exit_code(Exit::Runtime)?);
        lines.push('\n');
    }
    write_durably(&args.dir.join("eval.jsonl"), lines.as_bytes())?;
    let title = format!(
        "Draft evolution, {} (seed {}): W = best of generation {}",
        name_of(&last.settings),
        last.seed,
        last.report.generation
    );
    let svg = eval_chart(&rows, &title).exit_code(Exit::Runtime)?;
    write_durably(&args.dir.join("eval.svg"), svg.as_bytes())?;
    if args.json {
        print_json(&rows)?;
    } else {
        println!("generation  W vs best  W vs worst  W vs all  best vs ClosetAI  best vs Icebox");
        let step = (rows.len() / 20).max(1);
        for (index, row) in rows.iter().enumerate() {
            if index % step == 0 || index + 1 == rows.len() {
                println!(
                    "{:>10}  {:>8.1}%  {:>9.1}%  {:>7.1}%  {:>15.1}%  {:>13.1}%",
                    row.generation,
                    100.0 * row.vs_best,
                    100.0 * row.vs_worst,
                    100.0 * row.vs_population,
                    100.0 * row.best_vs_closetai,
                    100.0 * row.best_vs_icebox
                );
            }
        }
        println!("written     {} and {}", args.dir.join("eval.jsonl").display(), args.dir.join("eval.svg").display());
    }
    if rows.len() < bred.len() {
        eprintln!("interrupted: {} of {} generations evaluated (written)", rows.len(), bred.len());
        return Ok(Exit::Interrupted);
    }
    // Every generation evaluated: a success, even if Ctrl-C came at the end.
    Ok(Exit::Success)
}

fn name_of(settings: &DraftEvolutionSettings) -> String {
    let line = settings.command_line(0);
    let representation = line.split("--representation ").nth(1).and_then(|rest| rest.split(' ').next()).unwrap_or("");
    let merge = if settings.merge == MergeScope::All { ", merge all" } else { "" };
    let scheme = if settings.scheme == Scheme::Baseline { "baseline" } else { "active genes" };
    format!("{representation}, {scheme}{merge}")
}
