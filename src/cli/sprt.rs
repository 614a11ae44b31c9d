//! `tickbot bench sprt`: a sequential test's error rates and games checked
//! by simulation (thousands of seeded tests at exactly H0 and at exactly
//! H1), against the games a fixed-size test with the same alpha and beta
//! needs.

use clap::Args;
use serde::Serialize;

use tickbot::progress::Progress;
use tickbot::sprt::{SimulatedHypothesis, Simulation, SimulationSettings, SprtSpec, Unit, simulate, simulate_at};

use super::support::{Exit, Failure, finished, interrupt_flag, print_json, progress_bar};

#[derive(Debug, Args)]
pub(crate) struct BenchSprt {
    /// The test: elo0=0,elo1=5 (generalized SPRT, logistic Elo), nelo0=..,nelo1=..
    /// (normalized Elo) or p0=0.5,p1=0.55 (Wald), with alpha and beta (default 0.05).
    #[arg(long, value_name = "SPEC")]
    pub sprt: SprtSpec,
    /// Sequential tests at H0, and as many at H1.
    #[arg(long, default_value_t = 2000, value_parser = clap::value_parser!(u64).range(1..))]
    pub runs: u64,
    /// The share of drawn games (the rest decided so that the expected score is
    /// the hypothesis's).
    #[arg(long, default_value_t = 0.0)]
    pub draw_rate: f64,
    /// Observe pairs of games (pentanomial) instead of single games.
    #[arg(long)]
    pub pairs: bool,
    /// A test still undecided after this many games stops undecided.
    #[arg(long, default_value_t = 1_000_000, value_parser = clap::value_parser!(u64).range(1..))]
    pub max_games: u64,
    /// Master seed: run r at H0 draws from a stream seeded from (seed, 2r), at H1 (seed, 2r + 1).
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Also simulate at these planted strengths (in the hypotheses' unit: Elo,
    /// normalized Elo or p), e.g. between H0 and H1, where a test takes longest.
    #[arg(long = "at", value_name = "VALUE", value_delimiter = ',', allow_negative_numbers = true)]
    pub planted: Vec<f64>,
    /// Print one JSON object.
    #[arg(long)]
    pub json: bool,
}

/// `bench sprt --json`: the simulation at H0 and H1, and at each planted strength.
#[derive(Debug, Serialize)]
struct BenchSprtReport {
    #[serde(flatten)]
    simulation: Simulation,
    planted: Vec<SimulatedHypothesis>,
}

pub(crate) fn bench(args: BenchSprt) -> Result<Exit, Failure> {
    let settings = SimulationSettings {
        runs: args.runs,
        max_games: args.max_games,
        seed: args.seed,
        draw_rate: args.draw_rate,
        unit: if args.pairs { Unit::Pairs } else { Unit::Games },
    };
    let progress = Progress::default();
    let (mut simulation, planted) = {
        let _bar = progress_bar("tests", &progress);
        let cancel = interrupt_flag();
        let simulation = simulate(&args.sprt, &settings, &progress, &cancel).map_err(Failure::bad_input)?;
        let mut planted = Vec::new();
        for (k, &value) in args.planted.iter().enumerate() {
            match simulate_at(&args.sprt, &settings, value, k as u64, &progress, &cancel).map_err(Failure::bad_input)? {
                Some(at) => planted.push(at),
                None => break,
            }
        }
        (simulation, planted)
    };
    simulation.interrupted |= planted.len() < args.planted.len();
    let interrupted = simulation.interrupted;
    if args.json {
        print_json(&BenchSprtReport { simulation, planted })?;
    } else {
        print_simulation(&simulation, &planted);
    }
    if interrupted {
        eprintln!("interrupted: the figures cover the tests finished");
    }
    Ok(finished())
}

fn print_simulation(simulation: &Simulation, planted: &[SimulatedHypothesis]) {
    let settings = &simulation.settings;
    let unit = if settings.unit == Unit::Pairs { "pairs of games" } else { "games" };
    println!(
        "sprt        {} over {unit}, {:.0}% draws, {} tests at each hypothesis, seed {}",
        simulation.spec,
        100.0 * settings.draw_rate,
        settings.runs,
        settings.seed
    );
    println!(
        "  {:<10} {:>8} {:>8} {:>9} {:>21} {:>8} {:>10} {:>8} {:>8}",
        "at", "H0", "H1", "undecided", "error (95% interval)", "design", "mean games", "median", "p90"
    );
    for (name, at) in [("H0", &simulation.at_h0), ("H1", &simulation.at_h1)] {
        print_row(name, at);
    }
    for at in planted {
        print_row("planted", at);
    }
    if !planted.is_empty() {
        println!("  (at a planted strength, the error column is the share of tests that accepted H1)");
    }
    if let Some(fixed) = simulation.fixed_size_games {
        let mean = (simulation.at_h0.mean_games + simulation.at_h1.mean_games) / 2.0;
        println!(
            "  fixed-size test with the same alpha and beta: {fixed:.0} games; the sequential test's mean at H0 and H1 \
             is {:.0}% of it",
            100.0 * mean / fixed
        );
    }
}

fn print_row(name: &str, at: &SimulatedHypothesis) {
    let (low, high) = at.error_interval;
    println!(
        "  {:<10} {:>8} {:>8} {:>9} {:>21} {:>8.3} {:>10.0} {:>8.0} {:>8.0}",
        format!("{name} {}", at.value),
        at.accepted_h0,
        at.accepted_h1,
        at.undecided,
        format!("{:.3} ({low:.3}-{high:.3})", at.error_rate),
        at.designed_error,
        at.mean_games,
        at.median_games,
        at.p90_games
    );
}
