//! LOCM on the command line: the card list and seeding mode, the bot flags
//! (both seats' through the registry's `PlannerArgs`; those of `match` and
//! `bench`, resolved by the same registry), and what `play locm`,
//! `run locm`, `match locm` and `bench locm` do with them. Genome files are
//! read here.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use clap::Args;

use tickbot::agent::locm::{LocmSeats, Seat};
use tickbot::bench::{self, LocmSide};
use tickbot::game::locm::cards::{BUNDLED_CARDLIST, CardTable};
use tickbot::game::locm::plan::draft::DraftBot;
use tickbot::game::locm::plan::genome::Genome;
use tickbot::game::locm::plan::seats::LocmBots;
use tickbot::game::locm::plan::{BattleBot, DraftChoice, PlannerArgs, seat_pair};
use tickbot::game::locm::{Config, DeckRandomness, LocmGame};
use tickbot::map::{self, Level};
use tickbot::par::Workers;
use tickbot::progress::Progress;
use tickbot::sprt::{LlrGauge, SprtSpec};

use tickbot::session::{EntryPlayer, GameEntry};

use super::agent::AgentArgs;
use super::common::{Levels, PlayArgs};
use super::support::{
    Exit, ExitOnError, Failure, default_parallelism, finished, interrupt_budget, llr_status, play_one, print_json,
    print_sprt, progress_bar, progress_bar_with,
};

const BUNDLED_CARDLIST_NAME: &str = "maps/locm/cardlist.txt (bundled)";

/// The card list and where the draft's randomness comes from.
#[derive(Clone, Debug, Args, Default)]
pub(crate) struct LocmRules {
    /// A card list in the referee's format. Default: the bundled LOCM 1.2 list.
    #[arg(long, value_name = "FILE")]
    pub cards: Option<PathBuf>,
    /// Draw the draft and shuffle the decks with the reference referee's
    /// java.util.Random seeded as the referee seeds it, instead of our own stream.
    #[arg(long)]
    pub java_seeding: bool,
}

impl LocmRules {
    pub(crate) fn config(&self) -> anyhow::Result<Config> {
        let table = match &self.cards {
            Some(path) => map::read::<CardTable>(path)?,
            None => CardTable::parse(BUNDLED_CARDLIST).map_err(|error| error.in_file(BUNDLED_CARDLIST_NAME))?,
        };
        let randomness = if self.java_seeding { DeckRandomness::Java } else { DeckRandomness::ChaCha };
        Ok(Config::new(table, randomness))
    }
}

/// A LOCM game's flags: both seats' bots, the card list and the seeding.
#[derive(Clone, Debug, Args, Default)]
pub(crate) struct LocmArgs {
    #[command(flatten)]
    pub planner: PlannerArgs,
    #[command(flatten)]
    pub rules: LocmRules,
}

#[derive(Debug, Args)]
pub(crate) struct PlayLocm {
    #[command(flatten)]
    pub locm: LocmArgs,
    #[command(flatten)]
    pub agents: AgentArgs,
    #[command(flatten)]
    pub options: PlayArgs,
}

#[derive(Debug, Args)]
pub(crate) struct MatchLocm {
    /// Drafter A and drafter B (names as for `play locm --draft`). Either may be
    /// exec:COMMAND, a program speaking the LOCM contest protocol that plays its
    /// seat's whole game (draft and battle; its --battle bot is not used).
    #[arg(long, value_name = "A,B")]
    pub draft: String,
    /// The battle bot of both seats, or one per seat as A,B.
    #[arg(long, value_name = "BOT", default_value = "greedy")]
    pub battle: String,
    /// Games in all (rounded up to an even number: each draft is played twice,
    /// seats swapped). With --sprt, the most games before stopping undecided.
    #[arg(long, default_value_t = 10_000, value_parser = clap::value_parser!(u64).range(1..))]
    pub games: u64,
    /// Stop as soon as a sequential test decides whether A is stronger:
    /// `elo0=0,elo1=5,alpha=0.05,beta=0.05` (generalized SPRT on pairs of games,
    /// logistic Elo, as fishtest computes it), `nelo0=..,nelo1=..` (normalized Elo)
    /// or `p0=0.5,p1=0.55` (Wald's SPRT on A's chance to win a game). alpha and beta
    /// default to 0.05. Reports H0 or H1 accepted, the LLR and its bounds, the games
    /// it took and the Elo estimate; the same seed gives the same verdict after the
    /// same games on any number of threads.
    #[arg(long, value_name = "SPEC")]
    pub sprt: Option<SprtSpec>,
    /// Master seed; draft k plays with a seed derived from (seed, k).
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Threads. Default: the number of cores. Results do not depend on it.
    #[arg(long)]
    pub threads: Option<usize>,
    /// Print one JSON object.
    #[arg(long)]
    pub json: bool,
    #[command(flatten)]
    pub rules: LocmRules,
    #[command(flatten)]
    pub agents: AgentArgs,
}

#[derive(Debug, Args)]
pub(crate) struct BenchLocm {
    /// Games per battle bot (random, then greedy).
    #[arg(long, default_value_t = 20_000, value_parser = clap::value_parser!(u64).range(1..))]
    pub games: u64,
    /// Master seed.
    #[arg(long, default_value_t = 0)]
    pub seed: u64,
    /// The draft bot of both seats.
    #[arg(long, default_value = "random")]
    pub draft: String,
    /// Instead: time every battle turn of this battle bot (e.g. search) over --games
    /// games against greedy, on one thread, and report the longest turn, its
    /// percentiles and the rates.
    #[arg(long, value_name = "BOT")]
    pub turn_times: Option<String>,
    /// Threads. Default: the number of cores.
    #[arg(long)]
    pub threads: Option<usize>,
    /// Print one JSON object (keys: random_games_per_sec, greedy_games_per_sec,
    /// threads, ...); the per-second figures are per CPU-second of one core.
    #[arg(long)]
    pub json: bool,
    #[command(flatten)]
    pub rules: LocmRules,
}

#[derive(Debug, Args)]
pub(crate) struct ServeLocm {
    /// The draft bot (names as for `play locm --draft`, one name).
    #[arg(long, default_value = "closetai")]
    pub draft: String,
    /// The battle bot: random, pass, max-attack, greedy, search or search:fast. The
    /// search stops early, with its best plan so far, at half a turn's time limit;
    /// how often that happened is written to stderr at the end.
    #[arg(long, default_value = "greedy")]
    pub battle: String,
    /// Seed of the bots' randomness (random draft or battle bots).
    #[arg(long, default_value_t = 0)]
    pub seed: u64,
    /// A card list in the referee's format. Default: the bundled LOCM 1.2 list.
    #[arg(long, value_name = "FILE")]
    pub cards: Option<PathBuf>,
}

/// `tickbot agent locm`: one game as one seat over stdin and stdout.
pub(crate) fn serve(args: ServeLocm) -> Result<Exit, Failure> {
    let rules = LocmRules { cards: args.cards.clone(), java_seeding: false };
    let config = rules.config().exit_code(Exit::BadInput)?;
    let draft = draft_bot(&args.draft, config.table().len()).exit_code(Exit::BadInput)?;
    let battle = BattleBot::named(&args.battle).map_err(anyhow::Error::from).exit_code(Exit::BadInput)?;
    let stdin = std::io::stdin().lock();
    let stdout = std::io::stdout().lock();
    let stats = tickbot::agent::serve::serve_locm(stdin, stdout, &config, &draft, battle, args.seed)
        .exit_code(Exit::BadInput)?;
    if stats.searches > 0 {
        eprintln!(
            "search: {} searches, {} states scored, {} cut by the budget, {} cut by the time guard",
            stats.searches, stats.evaluations, stats.budget_stops, stats.time_stops
        );
    }
    Ok(finished())
}

/// Reads the drafter of a `genome:FILE` for a list of `n_cards` cards.
fn read_genome(path: &Path, n_cards: usize) -> anyhow::Result<Genome> {
    let genome = map::read::<Genome>(path)?;
    genome.check_cards(n_cards).map_err(|error| error.in_file(path))?;
    Ok(genome)
}

/// A draft bot by name, or `genome:FILE`.
fn draft_bot(name: &str, n_cards: usize) -> anyhow::Result<DraftBot> {
    DraftChoice::parse(name)?.bot(|path| read_genome(path, n_cards))
}

impl MatchLocm {
    /// Side A, side B, and the battle bots of seat 0 and seat 1.
    fn sides(&self, n_cards: usize) -> anyhow::Result<([LocmSide; 2], [BattleBot; 2])> {
        let [a, b] = seat_pair(&self.draft, "--draft", false)?;
        let side = |name: &str| -> anyhow::Result<LocmSide> {
            Ok(match self.agents.spec(name)? {
                Some(spec) => LocmSide::Agent(spec),
                None => LocmSide::Bots(draft_bot(name, n_cards)?),
            })
        };
        let sides = [side(a)?, side(b)?];
        let [battle0, battle1] = seat_pair(&self.battle, "--battle", true)?;
        Ok((sides, [BattleBot::named(battle0)?, BattleBot::named(battle1)?]))
    }
}

impl LocmArgs {
    /// The bots of both seats, for a list of `n_cards` cards.
    fn bots(&self, n_cards: usize) -> anyhow::Result<LocmBots> {
        self.planner.make(|path| read_genome(path, n_cards))
    }
}

/// The seats `--draft` names when either is `exec:COMMAND` (a program
/// that plays that seat over the contest protocol); `None` when both are
/// tickbot's bots.
fn agent_seats(locm: &LocmArgs, agents: &AgentArgs, n_cards: usize) -> anyhow::Result<Option<[Seat; 2]>> {
    let (drafts, battles) = locm.planner.seat_names()?;
    if !drafts.iter().any(|name| name.starts_with("exec:")) {
        return Ok(None);
    }
    let seat = |seat: usize| -> anyhow::Result<Seat> {
        Ok(match agents.spec(drafts[seat])? {
            Some(spec) => Seat::Agent(spec),
            None => Seat::Bots(draft_bot(drafts[seat], n_cards)?, BattleBot::named(battles[seat])?),
        })
    };
    Ok(Some([seat(0)?, seat(1)?]))
}

pub(crate) fn play(args: PlayLocm) -> Result<Exit, Failure> {
    let config = Arc::new(args.locm.rules.config().exit_code(Exit::BadInput)?);
    if let Some(seats) = agent_seats(&args.locm, &args.agents, config.table().len()).exit_code(Exit::BadInput)? {
        return play_one::<LocmGame, _>(config, move || LocmSeats::new(seats.clone()), &args.options);
    }
    let bots = args.locm.bots(config.table().len()).exit_code(Exit::BadInput)?;
    play_one::<LocmGame, _>(config, move || bots.clone(), &args.options)
}

/// `run locm` and a session's LOCM entries: each card list is a level
/// (none: the one these flags name), played by the bots these flags choose.
pub(crate) fn entry(locm: LocmArgs, levels: &Levels, agents: &AgentArgs) -> anyhow::Result<Arc<dyn EntryPlayer>> {
    let levels = levels.read(|cards| {
        let mut rules = locm.rules.clone();
        rules.cards = cards.map(Path::to_path_buf).or(rules.cards);
        rules.config()
    })?;
    let n_cards = levels[0].1.table().len();
    if let Some(seats) = agent_seats(&locm, agents, n_cards)? {
        return Ok(GameEntry::<LocmGame, ()>::player(levels, move |_: &Config| LocmSeats::new(seats.clone())));
    }
    let bots = locm.bots(n_cards)?;
    Ok(GameEntry::<LocmGame, ()>::player(levels, move |_: &Config| bots.clone()))
}

pub(crate) fn run_match(args: MatchLocm) -> Result<Exit, Failure> {
    let config = args.rules.config().exit_code(Exit::BadInput)?;
    let (sides, battle) = args.sides(config.table().len()).exit_code(Exit::BadInput)?;
    let threads = args.threads.unwrap_or_else(default_parallelism);
    let n_pairs = args.games.div_ceil(2);
    if let Some(spec) = args.sprt {
        let setup = bench::SprtMatch {
            config: &config,
            sides: &sides,
            battle,
            spec,
            max_pairs: n_pairs,
            master_seed: args.seed,
        };
        return run_sprt_match(&setup, threads, args.json);
    }
    let progress = Progress::default();
    let report = {
        let _bar = progress_bar("games", &progress);
        let budget = interrupt_budget();
        bench::play_locm_sides(
            &config,
            &sides,
            battle,
            n_pairs,
            args.seed,
            &Workers { threads, budget: &budget, progress: &progress },
        )
    };
    if args.json {
        print_json(&report)?;
    } else {
        println!(
            "match       {} vs {} (battle {}), seed {}",
            report.draft_a, report.draft_b, report.battle, report.seed
        );
        println!("games       {} ({} drafts, each with seats swapped)", report.games, report.games / 2);
        println!(
            "wins        {} {} ({} as player 0, {} as player 1), {} {}",
            report.draft_a, report.wins_a, report.wins_a_first, report.wins_a_second, report.draft_b, report.wins_b
        );
        println!(
            "win rate    {:.2}% for {} (95% interval {:.2}%..{:.2}%)",
            report.win_rate_a * 100.0,
            report.draft_a,
            report.ci95_low * 100.0,
            report.ci95_high * 100.0
        );
        match (report.games_per_sec, report.games_per_cpu_sec) {
            (Some(wall), Some(cpu)) => {
                println!("speed       {wall:.0} games/s on {} threads ({cpu:.0} per CPU-second)", report.threads)
            }
            _ => println!("speed       too short to time (use more --games)"),
        }
        if report.agent_calls > 0 || report.faults_a + report.faults_b > 0 {
            println!(
                "faults      {} {}, {} {} ({} agent calls)",
                report.draft_a, report.faults_a, report.draft_b, report.faults_b, report.agent_calls
            );
            for example in &report.fault_examples {
                println!("            {example}");
            }
        }
    }
    if report.interrupted {
        eprintln!("interrupted: the figures cover the {} games played", report.games);
    }
    Ok(finished())
}

/// `match locm --sprt`: pairs of games until the test decides.
fn run_sprt_match(setup: &bench::SprtMatch, threads: usize, json: bool) -> Result<Exit, Failure> {
    let (progress, gauge) = (Progress::default(), LlrGauge::default());
    let bounds = setup.spec.bounds();
    let report = {
        let _bar = progress_bar_with("games", &progress, llr_status(&gauge, bounds.lower, bounds.upper));
        let budget = interrupt_budget();
        bench::play_sprt_match(setup, &Workers { threads, budget: &budget, progress: &progress }, &gauge)
    };
    if json {
        print_json(&report)?;
    } else {
        println!(
            "match       {} vs {} (battle {}), seed {}, at most {} games",
            report.draft_a, report.draft_b, report.battle, report.seed, report.max_games
        );
        print_sprt(&report.sprt, report.decision, &report.draft_a);
        let pairs = report.games / 2;
        println!(
            "games       {} counted: {} won {} of {pairs} as player 0 and {} of {pairs} as player 1; {} played",
            report.games, report.draft_a, report.wins_a_first, report.wins_a_second, report.games_played
        );
        match (report.games_per_sec, report.games_per_cpu_sec) {
            (Some(wall), Some(cpu)) => {
                println!("speed       {wall:.0} games/s on {} threads ({cpu:.0} per CPU-second)", report.threads)
            }
            _ => println!("speed       too short to time"),
        }
    }
    if report.interrupted {
        eprintln!("interrupted: the figures cover the {} games counted", report.games);
    }
    Ok(finished())
}

pub(crate) fn bench(args: BenchLocm) -> Result<Exit, Failure> {
    let config = args.rules.config().exit_code(Exit::BadInput)?;
    let draft = draft_bot(&args.draft, config.table().len()).exit_code(Exit::BadInput)?;
    if let Some(name) = &args.turn_times {
        let bot = BattleBot::named(name).map_err(anyhow::Error::from).exit_code(Exit::BadInput)?;
        let report = bench::time_turns(&config, &draft, bot, args.games, args.seed, &interrupt_budget());
        if args.json {
            print_json(&report)?;
        } else {
            println!(
                "turn times   {} vs greedy, draft {}, seed {}: {} games, {} won, {} turns",
                report.bot, report.draft, report.seed, report.games, report.wins, report.turns
            );
            println!(
                "per turn     max {:.2} ms, 99.9% {:.2} ms, 99% {:.2} ms, median {:.3} ms",
                report.max_turn_ms, report.p999_turn_ms, report.p99_turn_ms, report.median_turn_ms
            );
            println!(
                "rates        {:.0} turns per second of the bot's time, {:.1} games per wall second",
                report.turns_per_sec, report.games_per_sec
            );
            println!(
                "search       {} searches, {} states scored, {} cut by the budget, {} by the time guard",
                report.searches, report.evaluations, report.budget_stops, report.time_stops
            );
        }
        return Ok(finished());
    }
    let threads = args.threads.unwrap_or_else(default_parallelism);
    let progress = Progress::default();
    let report = {
        let _bar = progress_bar("games", &progress);
        bench::bench_locm(
            &config,
            &draft,
            args.games,
            args.seed,
            &Workers { threads, budget: &interrupt_budget(), progress: &progress },
        )
    };
    if args.json {
        print_json(&report)?;
    } else {
        println!(
            "games        {} per battle bot, draft {}, seed {}, {} threads",
            report.games, report.draft, report.seed, report.threads
        );
        let speed = |cpu: Option<f64>, wall: Option<f64>| match (cpu, wall) {
            (Some(cpu), Some(wall)) => format!("{cpu:.0} games per CPU-second ({wall:.0} per wall second)"),
            _ => "too short to time (use more --games)".to_string(),
        };
        println!(
            "random       {}, player 0 won {}",
            speed(report.random_games_per_sec, report.random_games_per_wall_sec),
            report.random_player0_wins
        );
        println!(
            "greedy       {}, player 0 won {}",
            speed(report.greedy_games_per_sec, report.greedy_games_per_wall_sec),
            report.greedy_player0_wins
        );
    }
    if report.interrupted {
        eprintln!("interrupted: the figures cover the games played");
    }
    Ok(finished())
}
