//! `tickbot stats`: what finished sessions say. Opens the results files
//! (a session directory's `results.jsonl`, or files given by name, gzip
//! if they end in `.gz`) and the logs (a log directory's `tickbot.jsonl`
//! and its rotated files, oldest first), feeds them line by line to
//! `tickbot::analysis`, and prints its reports as tables or JSON, with a
//! chart on request.

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};

use anyhow::{Context, anyhow};
use clap::Args;
use flate2::read::MultiGzDecoder;

use tickbot::analysis::agents::{AgentReport, FAULT_KINDS};
use tickbot::analysis::logs::{LogReport, LogSummary, read_log};
use tickbot::analysis::paired::{
    GroupOutcomes, GroupTest, PairedComparison, PairedSides, SideOf, read_outcomes, read_paired, read_session_test,
};
use tickbot::analysis::{
    AnalysisError, Comparison, GameRef, GroupReport, Percentiles, Report, Summary, chart, compare, parse_group_by,
    read_results,
};
use tickbot::input;
use tickbot::progress::Progress;
use tickbot::session::SessionTest;
use tickbot::session::spec::{DEFAULT_OUT, MAX_MANIFEST_BYTES, SessionSpec};
use tickbot::session::store::{MANIFEST_FILE, Manifest, RESULTS_FILE};
use tickbot::sprt::SprtSpec;
use tickbot::sprt::paired::Measure;

use super::common::{Align, Column, Table, output_width, wrap};
use super::support::{
    Exit, ExitOnError, Failure, interrupt_flag, interrupted, print_json, print_session_test, print_sprt, progress_bar,
};

#[derive(Debug, Args)]
pub(crate) struct StatsArgs {
    /// Session directories (their results.jsonl) or results files (.jsonl, or .jsonl.gz).
    /// Default: `out`, where `tickbot run` writes.
    #[arg(value_name = "DIR|FILE")]
    pub paths: Vec<PathBuf>,
    /// Group games by these fields, separated by commas: entry, game, planner, level.
    #[arg(long, default_value = "entry", value_name = "FIELDS")]
    pub by: String,
    /// Compare two sessions (each a DIR or FILE) or two groups of the PATHS (entry
    /// names, or values of --by): win rates side by side, their difference with a 95%
    /// interval and a two-proportion z-test.
    #[arg(long, num_args = 2, value_names = ["A", "B"])]
    pub compare: Option<Vec<String>>,
    /// With --compare: a sequential test (SPRT) over the seeds both sides played,
    /// each seed a win, draw or loss for A by --measure, in A's game order: where
    /// it would have stopped, H0 or H1, the LLR and its bounds. Without --compare:
    /// in a session with a test ([sprt]), that test's pairs under SPEC; else each
    /// group's own games (won a win, lost a loss, anything else a draw; for
    /// LOCM, seat 0's view). SPEC as for `match locm --sprt`: elo0=0,elo1=5,
    /// nelo0=..,nelo1=.., or p0=0.5,p1=0.55, with alpha and beta (default 0.05).
    #[arg(long, value_name = "SPEC", conflicts_with = "plot")]
    pub sprt: Option<SprtSpec>,
    /// What --compare compares on a seed both sides played: score (higher is
    /// better), ticks (a won game beats one not won; of two won games, fewer
    /// ticks is better) or won.
    #[arg(long, default_value = "score", value_name = "MEASURE")]
    pub measure: Measure,
    /// Sum up the JSON-lines logs in DIR (tickbot.jsonl and its rotated files, .gz
    /// too) or one log FILE: plans per planner (debug-level `plan` events), warnings
    /// and errors with their first occurrence.
    #[arg(long, value_name = "DIR|FILE", conflicts_with_all = ["compare", "plot", "sprt"])]
    pub logs: Option<PathBuf>,
    /// Also draw the win rates and planner times per group as an SVG chart (the
    /// name must end in .svg).
    #[arg(long, value_name = "FILE.svg")]
    pub plot: Option<PathBuf>,
    /// Print one JSON document instead of tables.
    #[arg(long)]
    pub json: bool,
    /// How many of the slowest and of the failed games to list.
    #[arg(long, default_value_t = 5, value_name = "N")]
    pub top: usize,
}

pub(crate) fn execute(args: StatsArgs) -> Result<Exit, Failure> {
    if let Some(plot) = &args.plot {
        if !plot.extension().is_some_and(|extension| extension.eq_ignore_ascii_case("svg")) {
            return Err(Failure::bad_input(anyhow!(
                "--plot {}: the chart is an SVG document; name it NAME.svg (a browser shows it, and `convert` or \
                 `rsvg-convert` turn it into a PNG)",
                plot.display()
            )));
        }
    }
    if let Some(logs) = &args.logs {
        return logs_report(logs, &args.paths, args.json);
    }
    let by = parse_group_by(&args.by).map_err(|message| Failure::bad_input(anyhow!("--by {}: {message}", args.by)))?;
    if let Some(pair) = &args.compare {
        return compare_two(&pair[0], &pair[1], &args, by);
    }
    let paths = sessions_or_default(&args.paths);
    let files = results_files(&paths)?;
    let session_test = match &files[..] {
        [file] => session_test(file),
        _ => None,
    };
    if let Some(spec) = args.sprt {
        if let Some(mut test) = session_test {
            test.spec = spec;
            return session_test_report(&test, file_of(&files), &args, None);
        }
        return group_tests(spec, &args, &by);
    }
    let mut summary = Summary::new(by, args.top);
    summary.order_entries(session_order(&files));
    let complete = read_all(&files, &mut summary)?;
    let mut report = summary.report();
    resolve_replays(&mut report.slowest, &paths);
    resolve_replays(&mut report.failed, &paths);
    if let Some(plot) = &args.plot {
        write_chart(plot, &report.groups, &files)?;
    }
    if let Some(test) = session_test.filter(|_| complete) {
        return session_test_report(&test, file_of(&files), &args, Some(&report));
    }
    if args.json {
        print_json(&report)?;
    } else {
        print_report(&report, &files);
    }
    Ok(if complete { Exit::Success } else { stopped() })
}

fn file_of(files: &[PathBuf]) -> &Path {
    &files[0]
}

/// The test of the session whose results `file` is (from the manifest
/// beside it), if it runs one.
fn session_test(file: &Path) -> Option<SessionTest> {
    let manifest = file.with_file_name(MANIFEST_FILE);
    let text = input::read(&manifest, MAX_MANIFEST_BYTES, "a session manifest").ok()?;
    let manifest = serde_json::from_slice::<Manifest>(&text).ok()?;
    let mut spec = serde_json::from_value::<SessionSpec>(manifest.config).ok()?;
    spec.complete("").ok()?;
    SessionTest::of(&spec)
}

/// A session's own test between its two entries, counted from its
/// results in index order as the session counted it: after the summary
/// (`report`), or alone (`stats DIR --sprt SPEC`, another test over the
/// same pairs).
fn session_test_report(
    test: &SessionTest,
    file: &Path,
    args: &StatsArgs,
    report: Option<&Report>,
) -> Result<Exit, Failure> {
    let progress = Progress::with_total(std::fs::metadata(file).map_or(0, |metadata| metadata.len()));
    let mut pairs = test.start();
    let complete = {
        let _bar = progress_bar("reading results", &progress);
        let reader = open_lines(file)?;
        read_session_test(reader, file, test, &mut pairs, &progress, &interrupt_flag()).map_err(analysis_failure)?
    };
    let verdict = pairs.verdict();
    if args.json {
        match report {
            Some(report) => {
                let mut value = serde_json::to_value(report).exit_code(Exit::Runtime)?;
                value["session_sprt"] = serde_json::to_value(&verdict).exit_code(Exit::Runtime)?;
                print_json(&value)?;
            }
            None => print_json(&verdict)?,
        }
    } else {
        if let Some(report) = report {
            print_report(report, &[file.to_path_buf()]);
            println!();
        }
        print_session_test(&verdict, test);
    }
    Ok(if complete && !interrupted() { Exit::Success } else { stopped() })
}

fn stopped() -> Exit {
    eprintln!("interrupted: the figures above cover the lines read so far");
    Exit::Interrupted
}

/// The paths given, or the directory `run` writes to by default.
fn sessions_or_default(paths: &[PathBuf]) -> Vec<PathBuf> {
    if paths.is_empty() { vec![PathBuf::from(DEFAULT_OUT)] } else { paths.to_vec() }
}

/// Each path's results file: a directory's `results.jsonl`, a file as given.
fn results_files(paths: &[PathBuf]) -> Result<Vec<PathBuf>, Failure> {
    paths
        .iter()
        .map(|path| {
            let metadata = std::fs::metadata(path).map_err(|_| {
                Failure::bad_input(anyhow!(
                    "{}: no such file or directory (give a session directory or results file; without one, stats \
                     reads `{DEFAULT_OUT}`, where `tickbot run` writes)",
                    path.display()
                ))
            })?;
            if metadata.is_dir() {
                let file = path.join(RESULTS_FILE);
                if !file.is_file() {
                    return Err(Failure::bad_input(anyhow!(
                        "{} has no {RESULTS_FILE}: not a session directory (a session writes it with `tickbot run \
                         --out {}`)",
                        path.display(),
                        path.display()
                    )));
                }
                Ok(file)
            } else if metadata.is_file() {
                Ok(path.clone())
            } else {
                Err(Failure::bad_input(anyhow!(
                    "{} is {}, not a results file or a session directory (stats reads files, never a FIFO or a \
                     device, which could wait or run on forever)",
                    path.display(),
                    input::kind_of(&metadata)
                )))
            }
        })
        .collect()
}

/// A file's lines, decompressed if its name ends in `.gz`; opened without
/// waiting, and only if it is a regular file.
fn open_lines(path: &Path) -> Result<Box<dyn BufRead>, Failure> {
    let file = input::open(path).exit_code(Exit::BadInput)?;
    const BUFFER: usize = 1 << 18;
    Ok(if path.extension().is_some_and(|extension| extension == "gz") {
        Box::new(BufReader::with_capacity(BUFFER, MultiGzDecoder::new(file)))
    } else {
        Box::new(BufReader::with_capacity(BUFFER, file))
    })
}

/// The entries of the sessions the results files belong to, in session
/// order: each file's `manifest.json` beside it, where there is one.
/// Groups are reported in this order (a results file is in the order
/// games finished, which is not it).
fn session_order(files: &[PathBuf]) -> Vec<String> {
    let mut names: Vec<String> = Vec::new();
    for file in files {
        let manifest = file.with_file_name(MANIFEST_FILE);
        let Ok(text) = input::read(&manifest, MAX_MANIFEST_BYTES, "a session manifest") else { continue };
        let Ok(manifest) = serde_json::from_slice::<Manifest>(&text) else { continue };
        let Ok(mut spec) = serde_json::from_value::<SessionSpec>(manifest.config) else { continue };
        if spec.complete("").is_err() {
            continue;
        }
        for number in 0..spec.entries.len() {
            let name = spec.entry_name(number);
            if !names.iter().any(|known| known == name) {
                names.push(name.to_string());
            }
        }
    }
    names
}

/// Reads every file into `summary`; `false` if Ctrl-C stopped it.
fn read_all(files: &[PathBuf], summary: &mut Summary) -> Result<bool, Failure> {
    let bytes = files.iter().filter_map(|file| std::fs::metadata(file).ok()).map(|metadata| metadata.len()).sum();
    let progress = Progress::with_total(bytes);
    let _bar = progress_bar("reading results", &progress);
    let cancel = interrupt_flag();
    for file in files {
        let reader = open_lines(file)?;
        if !read_results(reader, file, summary, &progress, &cancel).map_err(analysis_failure)? {
            return Ok(false);
        }
    }
    Ok(!interrupted())
}

/// Exit 2 for input at fault, 4 for a machine that failed to read it.
fn analysis_failure(error: AnalysisError) -> Failure {
    let code = if error.is_bad_input() { Exit::BadInput } else { Exit::Runtime };
    Failure { code, error: error.into() }
}

/// Makes a listed game's replay path one that `tickbot replay show` opens
/// from here: results name replays as the session was given its `--out`,
/// so a session run from another folder (or merged, or moved) is looked
/// up under each given session directory as `replays/ENTRY/INDEX.tbr`.
fn resolve_replays(games: &mut [GameRef], paths: &[PathBuf]) {
    for game in games {
        let Some(replay) = &game.replay else { continue };
        if replay.is_file() {
            continue;
        }
        let found = paths
            .iter()
            .filter(|path| path.is_dir())
            .map(|dir| dir.join("replays").join(format!("{}.tbr", game.id)))
            .find(|candidate| candidate.is_file());
        if let Some(found) = found {
            game.replay = Some(found);
        }
    }
}

fn write_chart(path: &Path, groups: &[GroupReport], files: &[PathBuf]) -> Result<(), Failure> {
    let names: Vec<String> = files.iter().map(|file| file.display().to_string()).collect();
    let svg = chart::stats_chart(groups, &format!("tickbot stats {}", names.join(" "))).exit_code(Exit::Runtime)?;
    let part = path.with_extension("svg.part");
    std::fs::write(&part, svg)
        .and_then(|()| std::fs::rename(&part, path))
        .with_context(|| format!("cannot write the chart {}", path.display()))
        .exit_code(Exit::Runtime)?;
    eprintln!("chart: {}", path.display());
    Ok(())
}

fn ms(microseconds: u64) -> String {
    format!("{:.1}", microseconds as f64 / 1000.0)
}

fn four(values: Percentiles, show: impl Fn(u64) -> String) -> String {
    format!("{}/{}/{}/{}", show(values.p50), show(values.p90), show(values.p99), show(values.max))
}

fn print_groups(groups: &[&GroupReport], title: &str) {
    let right = |header: &str, gap: usize| Column::new(header, Align::Right, gap, 0);
    let columns = vec![
        right("games", 2),
        right("won", 1),
        right("lost", 1),
        right("stalled", 1),
        right("aborted", 1),
        right("faults", 1),
        right("win %", 2),
        right("95% interval", 1),
        right("mean score", 2),
        right("± 95%", 1),
        right("ticks p50/p90/p99/max", 2),
        right("planner ms p50/p90/p99/max", 2),
        right("games/s", 2),
    ];
    let mut table = Table::new(title, columns);
    for group in groups {
        let (low, high) = group.win_interval;
        let (score_low, score_high) = group.score_interval;
        table.row(
            group.name.clone(),
            vec![
                group.games.to_string(),
                group.won.to_string(),
                group.lost.to_string(),
                group.stalled.to_string(),
                group.aborted.to_string(),
                group.faults.to_string(),
                format!("{:.1}", 100.0 * group.win_rate),
                format!("{:.1}-{:.1}", 100.0 * low, 100.0 * high),
                format!("{:.2}", group.score_mean),
                format!("{:.2}", (score_high - score_low) / 2.0),
                four(group.ticks, |value| value.to_string()),
                four(group.planner_us, ms),
                format!("{:.1}", group.games_per_second),
            ],
        );
    }
    for line in table.lines(output_width()) {
        println!("{line}");
    }
}

/// The most of an agent's command shown on its line.
const COMMAND_SHOWN: usize = 100;

/// External agents: per entry (and seat), the command, its games and its
/// faults by kind with the first reason of each.
fn print_agents(agents: &[AgentReport]) {
    if agents.is_empty() {
        return;
    }
    println!("  external agents: games and faults (kinds: {}):", FAULT_KINDS.join(", "));
    let width = output_width();
    for agent in agents {
        let seat = agent.seat.map_or_else(String::new, |seat| format!(" seat {seat}"));
        let kinds: Vec<String> = agent.faults.iter().map(|fault| format!("{} {}", fault.kind, fault.count)).collect();
        let faults = match agent.total_faults() {
            0 => "no faults".to_string(),
            total => format!("{total} faults: {}", kinds.join(", ")),
        };
        let mut command: String = agent.command.chars().take(COMMAND_SHOWN).collect();
        if agent.command.chars().count() > COMMAND_SHOWN {
            command.push('…');
        }
        let command = command.replace('\n', "\\n");
        println!(
            "{}",
            wrap(&format!("    {}{seat}: {} games, {faults}  {command}", agent.entry, agent.games), width, 6)
        );
        for fault in &agent.faults {
            println!("{}", wrap(&format!("      first {}: {}", fault.kind, fault.example), width, 8));
        }
    }
}

fn print_games(title: &str, games: &[GameRef]) {
    if games.is_empty() {
        return;
    }
    println!("  {title}:");
    let width = output_width();
    for game in games {
        let replay =
            game.replay.as_ref().map_or_else(|| "(no replay kept)".to_string(), |path| path.display().to_string());
        let line = format!(
            "    {}  {} after {} ticks, {} ms ({} ms planning): {}",
            game.id,
            game.outcome,
            game.ticks,
            ms(game.elapsed_us),
            ms(game.planner_us),
            game.reason
        );
        // The replay on a line of its own where both would not fit.
        if line.chars().count() + 2 + replay.chars().count() <= width {
            println!("{line}  {replay}");
        } else {
            println!("{}\n      {replay}", wrap(&line, width, 6));
        }
    }
}

fn print_report(report: &Report, files: &[PathBuf]) {
    let names: Vec<String> = files.iter().map(|file| file.display().to_string()).collect();
    let heading = format!("tickbot stats: {} games from {}", report.lines, names.join(", "));
    println!("{}", wrap(&heading, output_width(), 2));
    let by: Vec<&str> = report.by.iter().map(|field| field.name()).collect();
    let mut rows: Vec<&GroupReport> = report.groups.iter().collect();
    if report.groups.len() != 1 || !by.is_empty() {
        rows.push(&report.overall);
    }
    print_groups(&rows, &by.join(" / "));
    print_games(&format!("slowest {}", report.slowest.len()), &report.slowest);
    if report.failed_total > 0 {
        print_games(
            &format!(
                "failed (panic, timeout, illegal): {} games, the first {}",
                report.failed_total,
                report.failed.len()
            ),
            &report.failed,
        );
    }
    print_agents(&report.agents);
    if report.torn_lines > 0 {
        println!("  {} last line(s) cut short and skipped (a session still running, or killed)", report.torn_lines);
    }
    println!("{}", wrap(&format!("  percentiles: {}", report.sketch), output_width(), 4));
    println!("  games/s: per second of the games' own time");
}

/// `--compare A B`: two sessions, or two groups of the given results.
fn compare_two(a: &str, b: &str, args: &StatsArgs, by: Vec<tickbot::analysis::GroupField>) -> Result<Exit, Failure> {
    let is_session = |name: &str| Path::new(name).exists();
    let mut sides = PairedSides::default();
    let (first, second, complete) = match (is_session(a), is_session(b)) {
        (true, true) if args.paths.is_empty() => {
            let mut reports = Vec::new();
            let mut complete = true;
            for side in [a, b] {
                let files = results_files(&[PathBuf::from(side)])?;
                let mut summary = Summary::new(Vec::new(), 0);
                complete &= read_all(&files, &mut summary)?;
                let mut overall = summary.report().overall;
                overall.name = side.to_string();
                reports.push(overall);
                let route = SideOf::All(reports.len() - 1);
                complete &= read_all_paired(&files, &route, &mut sides)?;
            }
            let second = reports.pop().expect("two sides");
            (reports.pop().expect("two sides"), second, complete)
        }
        _ => {
            let files = results_files(&sessions_or_default(&args.paths))?;
            let mut summary = Summary::new(by.clone(), 0);
            summary.order_entries(session_order(&files));
            let complete = read_all(&files, &mut summary)?;
            let report = summary.report();
            let find = |name: &str| {
                report.groups.iter().find(|group| group.name == name).cloned().ok_or_else(|| {
                    let names: Vec<&str> = report.groups.iter().map(|group| group.name.as_str()).collect();
                    let fields: Vec<&str> = by.iter().map(|field| field.name()).collect();
                    Failure::bad_input(anyhow!(
                        "--compare: no {} named {name:?} in the results; there are: {}",
                        fields.join(" / "),
                        names.join(", ")
                    ))
                })
            };
            let (first, second) = (find(a)?, find(b)?);
            let route = SideOf::Groups { by: by.clone(), a: first.name.clone(), b: second.name.clone() };
            let complete = complete && read_all_paired(&files, &route, &mut sides)?;
            (first, second, complete)
        }
    };
    let Some(mut comparison) = compare(&first, &second) else {
        return Err(Failure::bad_input(anyhow!("--compare: {a} or {b} has no games")));
    };
    let paired = sides.report(args.measure, args.sprt);
    if args.sprt.is_some() && paired.paired.is_none() {
        return Err(Failure::bad_input(anyhow!(
            "--sprt with --compare tests the seeds both sides played, and {a} and {b} share none: run both with the \
             same session file and seed (only the planner differing), or test one side's own games with --sprt alone"
        )));
    }
    if paired.paired.is_some() || paired.sprt.is_some() {
        comparison.paired = Some(paired);
    }
    if let Some(plot) = &args.plot {
        write_chart(plot, &[first, second], &[])?;
    }
    if args.json {
        print_json(&comparison)?;
    } else {
        print_comparison(&comparison);
    }
    Ok(if complete { Exit::Success } else { stopped() })
}

/// Reads every file into the pairing's sides; `false` if Ctrl-C stopped it.
fn read_all_paired(files: &[PathBuf], route: &SideOf, sides: &mut PairedSides) -> Result<bool, Failure> {
    let bytes = files.iter().filter_map(|file| std::fs::metadata(file).ok()).map(|metadata| metadata.len()).sum();
    let progress = Progress::with_total(bytes);
    let _bar = progress_bar("pairing seeds", &progress);
    let cancel = interrupt_flag();
    for file in files {
        let reader = open_lines(file)?;
        if !read_paired(reader, file, route, sides, &progress, &cancel).map_err(analysis_failure)? {
            return Ok(false);
        }
    }
    Ok(!interrupted())
}

/// `--sprt` without `--compare`: each group's own games, tested in index order.
fn group_tests(spec: SprtSpec, args: &StatsArgs, by: &[tickbot::analysis::GroupField]) -> Result<Exit, Failure> {
    let files = results_files(&sessions_or_default(&args.paths))?;
    let bytes = files.iter().filter_map(|file| std::fs::metadata(file).ok()).map(|metadata| metadata.len()).sum();
    let progress = Progress::with_total(bytes);
    let mut outcomes = GroupOutcomes::default();
    let mut complete = true;
    {
        let _bar = progress_bar("reading results", &progress);
        let cancel = interrupt_flag();
        for file in &files {
            let reader = open_lines(file)?;
            if !read_outcomes(reader, file, by, &mut outcomes, &progress, &cancel).map_err(analysis_failure)? {
                complete = false;
                break;
            }
        }
    }
    let tests = outcomes.report(spec);
    if args.json {
        print_json(&tests)?;
    } else {
        print_group_tests(&tests, &files);
    }
    Ok(if complete && !interrupted() { Exit::Success } else { stopped() })
}

fn print_group_tests(tests: &[GroupTest], files: &[PathBuf]) {
    let names: Vec<String> = files.iter().map(|file| file.display().to_string()).collect();
    println!("tickbot stats --sprt: each group's games in index order, from {}", names.join(", "));
    for test in tests {
        println!();
        println!("group       {} ({} games)", test.group, test.sprt.available);
        print_sprt(&test.sprt.status, test.sprt.decision, &test.group);
    }
}

fn print_paired(paired: &PairedComparison) {
    if let Some(report) = &paired.paired {
        let (low, high) = report.difference_interval;
        println!(
            "  paired on {} shared seeds by {}: A better {}, equal {}, B better {}; sign test p = {}: {}",
            report.pairs,
            report.measure.name(),
            report.a_better,
            report.equal,
            report.b_better,
            p_value(report.sign_test_p),
            if report.significant { "significant at 5%" } else { "not significant at 5%" }
        );
        if report.differences > 0 {
            println!(
                "  {} A - B: mean {:+.3} (95% interval {:+.3} to {:+.3}) over {} pairs",
                report.measure.name(),
                report.mean_difference + 0.0,
                low,
                high,
                report.differences
            );
        }
    } else {
        println!("  paired: the two sides share no seed (run both with the same session file and seed)");
    }
    if paired.only_a + paired.only_b + paired.repeated > 0 {
        println!(
            "  seeds only A played {}, only B {}; games on a seed their side had played before (not paired) {}",
            paired.only_a, paired.only_b, paired.repeated
        );
    }
    if let Some(sprt) = &paired.sprt {
        println!(
            "  sequential test over the {} pairs in A's game order (each pair one game of the test, won by the side \
             better on it):",
            sprt.available
        );
        print_sprt(&sprt.status, sprt.decision, "A");
    }
}

/// Four decimals, or the power of ten below them, so that p never reads 0.
fn p_value(p: f64) -> String {
    if p >= 1e-4 { format!("{p:.4}") } else { format!("{p:.1e}") }
}

fn print_comparison(comparison: &Comparison) {
    let Comparison { a, b, test, paired } = comparison;
    println!("tickbot stats --compare: A = {}, B = {}", a.name, b.name);
    print_groups(&[a, b], "");
    let (low, high) = test.difference_interval;
    let p_value = p_value(test.p_value);
    println!(
        "  win rate A - B: {:+.1} points (95% interval {:+.1} to {:+.1}); two-proportion z = {:.2}, p = {p_value}: {}",
        100.0 * test.difference,
        100.0 * low,
        100.0 * high,
        test.z,
        if test.significant { "significant at 5%" } else { "not significant at 5% (no difference shown)" }
    );
    if let Some(paired) = paired {
        print_paired(paired);
    }
}

/// The log files of `path`, oldest first: a file as given; in a directory,
/// every `NAME.jsonl` with its rotated `NAME.jsonl.N` (and `.gz`) files,
/// the highest number first (file-rotate's numbering: `.1` is the newest
/// rotated file).
fn log_files(path: &Path) -> Result<Vec<PathBuf>, Failure> {
    if path.is_file() {
        return Ok(vec![path.to_path_buf()]);
    }
    let entries = std::fs::read_dir(path)
        .with_context(|| format!("cannot read the log directory {}", path.display()))
        .exit_code(Exit::BadInput)?;
    let mut files: Vec<(String, std::cmp::Reverse<u64>, PathBuf)> = Vec::new();
    for entry in entries.flatten() {
        let file = entry.path();
        let name = entry.file_name().to_string_lossy().into_owned();
        let plain = name.strip_suffix(".gz").unwrap_or(&name);
        let Some(at) = plain.find(".jsonl") else { continue };
        let (base, rest) = plain.split_at(at + ".jsonl".len());
        let rotation = match rest.strip_prefix('.') {
            None if rest.is_empty() => 0,
            Some(number) => match number.parse::<u64>() {
                Ok(number) => number,
                Err(_) => continue,
            },
            None => continue,
        };
        files.push((base.to_string(), std::cmp::Reverse(rotation), file));
    }
    files.sort();
    if files.is_empty() {
        return Err(Failure::bad_input(anyhow!(
            "{} holds no *.jsonl log files (tickbot writes them with --log-dir, default logs/)",
            path.display()
        )));
    }
    Ok(files.into_iter().map(|(_, _, file)| file).collect())
}

fn logs_report(path: &Path, paths: &[PathBuf], json: bool) -> Result<Exit, Failure> {
    if !paths.is_empty() {
        return Err(Failure::bad_input(anyhow!("--logs reads logs only: give no results files with it")));
    }
    let files = log_files(path)?;
    let bytes = files.iter().filter_map(|file| std::fs::metadata(file).ok()).map(|metadata| metadata.len()).sum();
    let progress = Progress::with_total(bytes);
    let bar = progress_bar("reading logs", &progress);
    let cancel = interrupt_flag();
    let mut summary = LogSummary::default();
    let mut complete = true;
    for file in &files {
        let reader = open_lines(file)?;
        if !read_log(reader, file, &mut summary, &progress, &cancel).map_err(analysis_failure)? {
            complete = false;
            break;
        }
    }
    drop(bar);
    let report = summary.report();
    if json {
        print_json(&report)?;
    } else {
        print_logs(&report, &files);
    }
    Ok(if complete && !interrupted() { Exit::Success } else { stopped() })
}

fn print_logs(report: &LogReport, files: &[PathBuf]) {
    let names: Vec<String> = files.iter().map(|file| file.display().to_string()).collect();
    let heading = format!("tickbot stats --logs: {} lines from {} (oldest first)", report.lines, names.join(", "));
    println!("{}", wrap(&heading, output_width(), 2));
    if report.skipped_lines > 0 {
        println!("  {} lines are not JSON and were skipped", report.skipped_lines);
    }
    if report.planners.is_empty() {
        println!("  no plan events: they are logged at debug level (`--log-level debug`)");
    } else {
        let right = |header: &str| Column::new(header, Align::Right, 2, 0);
        let columns = vec![
            right("plans"),
            right("planning s"),
            right("µs per plan p50/p90/p99/max"),
            right("nodes"),
            right("nodes p50/p90/p99/max"),
        ];
        let mut table = Table::new("planner", columns);
        for plans in &report.planners {
            table.row(
                plans.planner.clone(),
                vec![
                    plans.plans.to_string(),
                    format!("{:.3}", plans.elapsed_us_total as f64 / 1e6),
                    four(plans.elapsed_us, |value| value.to_string()),
                    plans.nodes_total.to_string(),
                    four(plans.nodes, |value| value.to_string()),
                ],
            );
        }
        for line in table.lines(output_width()) {
            println!("{line}");
        }
    }
    println!("  warnings {}, errors {}", report.warnings, report.errors);
    for message in &report.messages {
        println!(
            "    {:5} {:>7}x  {}  (first: {}:{} at {})",
            message.level.to_uppercase(),
            message.count,
            message.message,
            message.first.file,
            message.first.line,
            message.first.timestamp
        );
    }
    println!("{}", wrap(&format!("  percentiles: {}", report.sketch), output_width(), 4));
}
