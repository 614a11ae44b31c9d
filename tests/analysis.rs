//! `tickbot stats` through the real binary: its figures agree with a direct
//! computation over the same lines; `--compare` tells entries that truly
//! differ from one entry under another seed; `--logs` counts the plans of
//! each planner across rotated and gzipped files; `--plot` draws a valid
//! SVG; a line that is not a result exits 2 naming the file and line.

use std::collections::BTreeMap;
use std::io::Write;
use std::path::Path;

use serde_json::Value;
use tempfile::TempDir;

use crate::support::{assert_bad_input, json_output, tickbot};

/// A small xorshift for synthetic results (test data only, no game state).
fn next(state: &mut u64) -> u64 {
    *state ^= *state << 13;
    *state ^= *state >> 7;
    *state ^= *state << 17;
    *state
}

/// One synthetic results line.
struct Line {
    entry: &'static str,
    outcome: &'static str,
    ticks: u64,
    score: i64,
    planner_us: u64,
    elapsed_us: u64,
}

fn synthetic_lines(count: usize) -> Vec<Line> {
    let mut state = 0x2545_f491_4f6c_dd1d;
    let entries = [("alpha", 90), ("beta", 55), ("gamma", 10)];
    (0..count)
        .map(|number| {
            let (entry, win_percent) = entries[number % entries.len()];
            let draw = next(&mut state) % 100;
            let outcome = match draw {
                _ if draw < win_percent => "won",
                _ if draw % 7 == 0 => "stalled",
                _ if draw % 11 == 0 => "timeout",
                _ => "lost",
            };
            // Heavy tails, so the percentiles reach far past the histogram's
            // exact range (below 2048) into its 0.1% buckets.
            let ticks = 1 + next(&mut state) % 1000 * (1 + next(&mut state) % 200);
            let planner_us = next(&mut state) % 10_000 * (1 + next(&mut state) % 5000);
            let score = (next(&mut state) % 400) as i64 - 100;
            let elapsed_us = planner_us + next(&mut state) % 1000;
            Line { entry, outcome, ticks, score, planner_us, elapsed_us }
        })
        .collect()
}

fn results_text(lines: &[Line]) -> String {
    let mut text = String::new();
    for (number, line) in lines.iter().enumerate() {
        text.push_str(&format!(
            "{{\"id\":\"{entry}/{number:06}\",\"entry\":\"{entry}\",\"index\":{number},\"game\":\"snake\",\
             \"level\":\"open\",\"planner\":\"p\",\"seed\":{number},\"outcome\":\"{outcome}\",\"reason\":\"\",\
             \"ticks\":{ticks},\"score\":{score},\"planner_us\":{planner_us},\"elapsed_us\":{elapsed},\
             \"replay\":null}}\n",
            entry = line.entry,
            outcome = line.outcome,
            ticks = line.ticks,
            score = line.score,
            planner_us = line.planner_us,
            elapsed = line.elapsed_us,
        ));
    }
    text
}

/// The nearest-rank quantile: the smallest value with at least `q` of the
/// values at or below it.
fn nearest_rank(sorted: &[u64], q: f64) -> u64 {
    let rank = ((q * sorted.len() as f64).ceil() as usize).max(1);
    sorted[rank - 1]
}

/// The 95% Wilson interval, written out again here from its formula.
fn wilson(successes: f64, trials: f64) -> (f64, f64) {
    let z: f64 = 1.959_963_984_540_054;
    let p = successes / trials;
    let denominator = 1.0 + z * z / trials;
    let centre = (p + z * z / (2.0 * trials)) / denominator;
    let half = z / denominator * (p * (1.0 - p) / trials + z * z / (4.0 * trials * trials)).sqrt();
    (centre - half, centre + half)
}

/// The histogram's stated error: a percentile is never below the exact
/// nearest-rank value v and less than v/1024 above it; the maximum exact.
#[track_caller]
fn check_percentiles(reported: &Value, mut values: Vec<u64>, what: &str) {
    values.sort_unstable();
    for (name, q) in [("p50", 0.5), ("p90", 0.9), ("p99", 0.99)] {
        let exact = nearest_rank(&values, q);
        let found = reported[name].as_u64().unwrap();
        assert!(exact <= found && found - exact <= exact / 1024, "{what} {name}: {found}, exactly {exact}");
    }
    assert_eq!(reported["max"].as_u64(), values.last().copied(), "{what} max");
}

#[test]
fn stats_agrees_with_a_direct_computation() {
    let dir = TempDir::new().unwrap();
    let lines = synthetic_lines(3000);
    // A last line cut short, as a killed session leaves it: skipped.
    let text = results_text(&lines) + "{\"id\":\"alpha/9999";
    std::fs::write(dir.path().join("results.jsonl"), text).unwrap();
    let report = stats(dir.path(), &["results.jsonl"]);
    assert_eq!(report["lines"], 3000);
    assert_eq!(report["torn_lines"], 1);
    let groups = report["groups"].as_array().unwrap();
    let names: Vec<&str> = groups.iter().map(|group| group["name"].as_str().unwrap()).collect();
    assert_eq!(names, ["alpha", "beta", "gamma"], "groups in order of first appearance");
    let mut by_entry: BTreeMap<&str, Vec<&Line>> = BTreeMap::new();
    for line in &lines {
        by_entry.entry(line.entry).or_default().push(line);
        by_entry.entry("all").or_default().push(line);
    }
    for group in groups.iter().chain([&report["overall"]]) {
        let name = group["name"].as_str().unwrap();
        let mine = &by_entry[name];
        let games = mine.len() as f64;
        let count = |outcome: &str| mine.iter().filter(|line| line.outcome == outcome).count() as f64;
        let won = count("won");
        for outcome in ["won", "lost", "stalled", "timeout"] {
            assert_eq!(group[outcome].as_f64(), Some(count(outcome)), "{name} {outcome}");
        }
        assert_eq!(group["faults"].as_f64(), Some(count("timeout")), "{name}");
        assert_eq!(group["games"].as_f64(), Some(games), "{name}");
        assert!((group["win_rate"].as_f64().unwrap() - won / games).abs() < 1e-12, "{name}");
        let (low, high) = wilson(won, games);
        assert!((group["win_interval"][0].as_f64().unwrap() - low).abs() < 1e-9, "{name}");
        assert!((group["win_interval"][1].as_f64().unwrap() - high).abs() < 1e-9, "{name}");
        let mean = mine.iter().map(|line| line.score as f64).sum::<f64>() / games;
        let variance = mine.iter().map(|line| (line.score as f64 - mean).powi(2)).sum::<f64>() / (games - 1.0);
        let half_width = 1.959_963_984_540_054 * (variance / games).sqrt();
        assert!((group["score_mean"].as_f64().unwrap() - mean).abs() < 1e-9, "{name}");
        assert!((group["score_interval"][1].as_f64().unwrap() - (mean + half_width)).abs() < 1e-9, "{name}");
        check_percentiles(&group["ticks"], mine.iter().map(|line| line.ticks).collect(), name);
        check_percentiles(&group["planner_us"], mine.iter().map(|line| line.planner_us).collect(), name);
        let elapsed_s = mine.iter().map(|line| line.elapsed_us).sum::<u64>() as f64 / 1e6;
        assert!((group["games_per_second"].as_f64().unwrap() - games / elapsed_s).abs() < 1e-9, "{name}");
    }
    // The slowest games, slowest first, are the largest elapsed times; the
    // failed ones are the timeouts, first ones first.
    let mut elapsed: Vec<u64> = lines.iter().map(|line| line.elapsed_us).collect();
    elapsed.sort_unstable_by(|a, b| b.cmp(a));
    let slowest: Vec<u64> =
        report["slowest"].as_array().unwrap().iter().map(|game| game["elapsed_us"].as_u64().unwrap()).collect();
    assert_eq!(slowest, elapsed[..5]);
    let timeouts: Vec<String> = lines
        .iter()
        .enumerate()
        .filter(|(_, line)| line.outcome == "timeout")
        .map(|(number, line)| format!("{}/{number:06}", line.entry))
        .collect();
    let failed: Vec<&str> =
        report["failed"].as_array().unwrap().iter().map(|game| game["id"].as_str().unwrap()).collect();
    assert_eq!(failed, timeouts[..5]);
    assert_eq!(report["failed_total"].as_u64(), Some(timeouts.len() as u64));
}

#[test]
fn plot_writes_a_well_formed_svg_with_each_group() {
    let dir = TempDir::new().unwrap();
    std::fs::write(dir.path().join("results.jsonl"), results_text(&synthetic_lines(300))).unwrap();
    let output = tickbot(dir.path()).args(["stats", "results.jsonl", "--plot", "figures.svg"]).output().unwrap();
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    let svg = std::fs::read_to_string(dir.path().join("figures.svg")).unwrap();
    let document = roxmltree::Document::parse(&svg).unwrap_or_else(|error| panic!("not XML: {error}"));
    let root = document.root_element();
    assert_eq!((root.tag_name().name(), root.tag_name().namespace()), ("svg", Some("http://www.w3.org/2000/svg")));
    assert_eq!((root.attribute("width"), root.attribute("height")), (Some("1100"), Some("480")));
    let texts: Vec<&str> = document.descendants().filter_map(|node| node.text()).map(str::trim).collect();
    for label in ["alpha", "beta", "gamma", "win rate, 95% Wilson interval"] {
        assert!(texts.contains(&label), "{label} is not drawn: {texts:?}");
    }
    assert!(!dir.path().join("figures.svg.part").exists());
}

#[test]
fn stats_refuses_bad_input_naming_the_line_and_the_flag() {
    let dir = TempDir::new().unwrap();
    std::fs::write(dir.path().join("bad.jsonl"), "{\"id\":1}\n{}\n").unwrap();
    // A damaged line in the middle of good ones: an error, not a torn end.
    let good = results_text(&synthetic_lines(3));
    let damaged = good.replacen("\"ticks\":", "\"ticks\":\"x", 3).replacen("\"ticks\":\"x", "\"ticks\":", 2);
    std::fs::write(dir.path().join("middle.jsonl"), damaged).unwrap();
    std::fs::write(dir.path().join("damaged.jsonl.gz"), "not gzip at all\n").unwrap();
    assert_bad_input(
        dir.path(),
        &["stats", "bad.jsonl"],
        "bad.jsonl:1:7: not a results line: invalid type: integer `1`, expected a string\n",
    );
    assert_bad_input(dir.path(), &["stats", "middle.jsonl"], "middle.jsonl:3:");
    assert_bad_input(dir.path(), &["stats", "damaged.jsonl.gz"], "damaged.jsonl.gz");
    assert_bad_input(
        dir.path(),
        &["stats", "bad.jsonl", "--by", "seed"],
        "--by seed: \"seed\" is not a field to group by",
    );
    assert_bad_input(dir.path(), &["stats", "nowhere"], "nowhere: no such file or directory");
    assert_bad_input(dir.path(), &["stats", "."], "has no results.jsonl: not a session directory");
    // Without paths, stats reads `out`, where `run` writes by default.
    let without_out = "out: no such file or directory (give a session directory or results file";
    assert_bad_input(dir.path(), &["stats"], without_out);
    assert_bad_input(dir.path(), &["stats", "--compare", "a", "b"], without_out);
    std::fs::create_dir(dir.path().join("empty")).unwrap();
    assert_bad_input(dir.path(), &["stats", "--logs", "empty"], "holds no *.jsonl log files");
}

/// `tickbot [GLOBAL...] run ARGS...` in `dir`.
#[track_caller]
fn run(dir: &Path, global: &[&str], args: &[&str]) {
    let output = tickbot(dir).args(global).arg("run").args(args).output().unwrap();
    assert!(output.status.success(), "{args:?}: {}", String::from_utf8_lossy(&output.stderr));
}

/// `tickbot stats --json ARGS...` in `dir`.
#[track_caller]
fn stats(dir: &Path, args: &[&str]) -> Value {
    json_output(dir, &[&["stats", "--json"], args].concat())
}

/// Snake on an open 6×6 board, 40 games an entry: bfs-tail wins about 90%
/// of them and the write-up's program (which stalls chasing its tail) about
/// 40%, a gap the two-proportion test finds with p near 1e-5, while the
/// whole test plays in a few seconds.
#[test]
fn compare_tells_a_true_difference_from_a_change_of_seed() {
    let dir = TempDir::new().unwrap();
    let session = "seed = 3\n\
        [[entry]]\nname = \"ours\"\ngame = \"snake\"\nplanner = \"bfs-tail\"\nparams = { size = \"6x6\" }\ngames = 40\n\
        [[entry]]\nname = \"write-up\"\ngame = \"snake\"\nplanner = \"bfs-tail\"\n\
        params = { size = \"6x6\", write-up = true }\ngames = 40\n";
    std::fs::write(dir.path().join("session.toml"), session).unwrap();
    run(dir.path(), &[], &["--config", "session.toml", "--out", "both", "--replays", "none"]);
    let differ = stats(dir.path(), &["both", "--compare", "ours", "write-up"]);
    assert_eq!((differ["a"]["games"].as_u64(), differ["b"]["games"].as_u64()), (Some(40), Some(40)));
    assert_eq!(differ["test"]["significant"], true, "{differ}");
    assert!(differ["test"]["p_value"].as_f64().unwrap() < 0.001, "{differ}");
    assert!(differ["test"]["difference_interval"][0].as_f64().unwrap() > 0.0, "{differ}");

    // The same entry under two seeds. With no true difference a 5% test
    // flags one seed pair in twenty, so the pair is fixed: the test is
    // deterministic (this pair's p-value is about 0.4).
    for seed in ["1", "2"] {
        let out = format!("seed{seed}");
        let snake = ["snake", "--size", "6x6", "--planner", "bfs-tail"];
        run(
            dir.path(),
            &[],
            &[&["--games", "40", "--seed", seed, "--out", &out, "--replays", "none"][..], &snake].concat(),
        );
    }
    let same = stats(dir.path(), &["--compare", "seed1", "seed2"]);
    assert_eq!((same["a"]["games"].as_u64(), same["b"]["games"].as_u64()), (Some(40), Some(40)));
    assert_eq!(same["test"]["significant"], false, "{same}");
    let (low, high) =
        (same["test"]["difference_interval"][0].as_f64(), same["test"]["difference_interval"][1].as_f64());
    assert!(low.unwrap() < 0.0 && high.unwrap() > 0.0, "{same}");
}

/// Per planner: plans, their summed nodes and planning time.
fn plans_per_planner(text: &str) -> BTreeMap<String, (u64, u64, u64)> {
    let mut plans = BTreeMap::new();
    for line in text.lines() {
        let event: Value = serde_json::from_str(line).unwrap();
        if event["message"] == "plan" {
            let planner = event["planner"].as_str().unwrap().to_string();
            let figures: &mut (u64, u64, u64) = plans.entry(planner).or_default();
            figures.0 += 1;
            figures.1 += event["nodes"].as_u64().unwrap();
            figures.2 += event["elapsed_us"].as_u64().unwrap();
        }
    }
    plans
}

#[track_caller]
fn check_plans(report: &Value, expected: &BTreeMap<String, (u64, u64, u64)>) {
    let found: BTreeMap<String, (u64, u64, u64)> = report["planners"]
        .as_array()
        .unwrap()
        .iter()
        .map(|plans| {
            let figure = |name: &str| plans[name].as_u64().unwrap();
            let planner = plans["planner"].as_str().unwrap().to_string();
            (planner, (figure("plans"), figure("nodes_total"), figure("elapsed_us_total")))
        })
        .collect();
    assert_eq!(&found, expected);
}

/// tickbot rotates its log uncompressed (`tickbot.jsonl.1` is the newest
/// old file); a `.gz` is what file-rotate's compressing mode or logrotate
/// leaves. A real debug log cut into three such files reads as the whole.
#[test]
fn logs_count_plans_per_planner_across_rotated_and_gzipped_files() {
    let dir = TempDir::new().unwrap();
    let session = "seed = 5\n\
        [[entry]]\nname = \"tail\"\ngame = \"snake\"\nplanner = \"bfs-tail\"\nparams = { size = \"6x6\" }\ngames = 4\n\
        [[entry]]\nname = \"cycle\"\ngame = \"snake\"\nplanner = \"cycle\"\nparams = { size = \"6x6\" }\ngames = 4\n";
    std::fs::write(dir.path().join("session.toml"), session).unwrap();
    let global = ["--log-level", "debug", "--log-dir", "logs"];
    run(dir.path(), &global, &["--config", "session.toml", "--out", "out", "--replays", "none"]);
    let log = std::fs::read_to_string(dir.path().join("logs/tickbot.jsonl")).unwrap();
    let expected = plans_per_planner(&log);
    assert_eq!(expected.keys().collect::<Vec<_>>(), ["bfs-tail", "cycle"]);
    let whole = stats(dir.path(), &["--logs", "logs"]);
    check_plans(&whole, &expected);
    assert_eq!(whole["lines"].as_u64(), Some(log.lines().count() as u64));

    // Oldest third gzipped as `.2.gz`, then `.1`, then the current file,
    // with a warning in each of the old ones.
    let lines: Vec<&str> = log.lines().collect();
    let third = lines.len() / 3;
    let warning = r#"{"timestamp":"T","level":"WARN","message":"disk nearly full"}"#;
    let part = |range: std::ops::Range<usize>, extra: &str| {
        let mut text = lines[range].join("\n") + "\n";
        text.push_str(extra);
        text
    };
    let rotated = dir.path().join("rotated");
    std::fs::create_dir(&rotated).unwrap();
    let mut gzip = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    gzip.write_all(part(0..third, &format!("{warning}\n")).as_bytes()).unwrap();
    std::fs::write(rotated.join("tickbot.jsonl.2.gz"), gzip.finish().unwrap()).unwrap();
    std::fs::write(rotated.join("tickbot.jsonl.1"), part(third..2 * third, &format!("{warning}\n"))).unwrap();
    std::fs::write(rotated.join("tickbot.jsonl"), part(2 * third..lines.len(), "")).unwrap();
    let report = stats(dir.path(), &["--logs", "rotated"]);
    check_plans(&report, &expected);
    assert_eq!(report["lines"].as_u64(), Some(lines.len() as u64 + 2));
    assert_eq!(report["warnings"], 2);
    let first = &report["messages"][0];
    assert_eq!((first["message"].as_str(), first["count"].as_u64()), (Some("disk nearly full"), Some(2)));
    assert!(first["first"]["file"].as_str().unwrap().ends_with("tickbot.jsonl.2.gz"), "oldest file first: {first}");
    assert_eq!(first["first"]["line"].as_u64(), Some(third as u64 + 1));
}

/// The lines of `args`' stdout, checked to fit `COLUMNS=100`.
#[track_caller]
fn fitted_lines(dir: &Path, args: &[&str]) -> Vec<String> {
    let output = tickbot(dir).env("COLUMNS", "100").args(args).output().unwrap();
    assert!(output.status.success(), "{args:?}: {}", String::from_utf8_lossy(&output.stderr));
    let lines: Vec<String> = String::from_utf8_lossy(&output.stdout).lines().map(str::to_string).collect();
    for line in &lines {
        assert!(line.chars().count() <= 100, "{args:?}: {} columns: {line}", line.chars().count());
    }
    lines
}

/// `run` and `stats` fit 100 columns, and `stats` lists the entries in the
/// session's order whatever order their games finished in.
#[test]
fn tables_fit_the_width_and_stats_keeps_the_session_order() {
    let temp = TempDir::new().unwrap();
    let dir = temp.path();
    let config = crate::session::write_session(dir, "4x4", 2);
    fitted_lines(dir, &["run", "--config", config.to_str().unwrap(), "--out", "s"]);
    // Games finish in any order: the last entry's first.
    let path = dir.join("s/results.jsonl");
    let text = std::fs::read_to_string(&path).unwrap();
    let reversed: Vec<&str> = text.lines().rev().collect();
    std::fs::write(&path, reversed.join("\n") + "\n").unwrap();
    let lines = fitted_lines(dir, &["stats", "s", "--top", "20"]);
    let place = |entry: &str| {
        lines.iter().position(|line| line.starts_with(&format!("  {entry} "))).unwrap_or_else(|| {
            panic!("no row for {entry}: {lines:#?}");
        })
    };
    assert!(place("open") < place("pipes") && place("pipes") < place("flag"), "{lines:#?}");
}
