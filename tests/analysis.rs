//! `tickbot stats`, `run --shard` and `merge` through the real binary: the
//! figures of `stats` agree with a direct computation over the same lines;
//! `--compare` tells entries that truly differ from the same entry under
//! other seeds; `--logs` counts the plans of each planner.

use std::collections::BTreeMap;
use std::path::Path;

use serde_json::Value;
use tempfile::TempDir;

use crate::support::tickbot;

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
    won: bool,
    ticks: u64,
    score: i64,
    planner_us: u64,
}

fn synthetic_lines(count: usize) -> Vec<Line> {
    let mut state = 0x2545_f491_4f6c_dd1d;
    let entries = [("alpha", 90), ("beta", 55), ("gamma", 10)];
    (0..count)
        .map(|number| {
            let (entry, win_percent) = entries[number % entries.len()];
            let won = next(&mut state) % 100 < win_percent;
            // Heavy tails, so the percentiles reach far past the histogram's
            // exact range (below 2048) into its 0.1% buckets.
            let ticks = 1 + next(&mut state) % 1000 * (1 + next(&mut state) % 200);
            let planner_us = next(&mut state) % 10_000 * (1 + next(&mut state) % 5000);
            let score = (next(&mut state) % 400) as i64 - 100;
            Line { entry, won, ticks, score, planner_us }
        })
        .collect()
}

fn write_results(path: &Path, lines: &[Line]) {
    let mut text = String::new();
    for (number, line) in lines.iter().enumerate() {
        let outcome = if line.won { "won" } else { "lost" };
        text.push_str(&format!(
            "{{\"id\":\"{entry}/{number:06}\",\"entry\":\"{entry}\",\"index\":{number},\"game\":\"snake\",\
             \"level\":\"open\",\"planner\":\"p\",\"seed\":{number},\"outcome\":\"{outcome}\",\"reason\":\"\",\
             \"ticks\":{ticks},\"score\":{score},\"planner_us\":{planner_us},\"elapsed_us\":{elapsed},\
             \"replay\":null}}\n",
            entry = line.entry,
            ticks = line.ticks,
            score = line.score,
            planner_us = line.planner_us,
            elapsed = line.planner_us + 10,
        ));
    }
    // A last line cut short, as a killed session leaves it: skipped.
    text.push_str("{\"id\":\"alpha/9999");
    std::fs::write(path, text).unwrap();
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

#[track_caller]
fn check_percentiles(reported: &Value, mut values: Vec<u64>, what: &str) {
    values.sort_unstable();
    for (name, q) in [("p50", 0.5), ("p90", 0.9), ("p99", 0.99)] {
        let exact = nearest_rank(&values, q) as f64;
        let found = reported[name].as_f64().unwrap();
        assert!((found - exact).abs() <= exact * 0.001, "{what} {name}: {found}, exactly {exact}");
    }
    assert_eq!(reported["max"].as_u64(), values.last().copied(), "{what} max");
}

#[test]
fn stats_agrees_with_a_direct_computation() {
    let dir = TempDir::new().unwrap();
    let lines = synthetic_lines(3000);
    write_results(&dir.path().join("results.jsonl"), &lines);
    let output = tickbot(dir.path()).args(["stats", "results.jsonl", "--json"]).output().unwrap();
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    let report: Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(report["lines"], 3000);
    assert_eq!(report["torn_lines"], 1);
    let groups = report["groups"].as_array().unwrap();
    let names: Vec<&str> = groups.iter().map(|group| group["name"].as_str().unwrap()).collect();
    assert_eq!(names, ["alpha", "beta", "gamma"], "groups in order of first appearance");
    let mut by_entry: BTreeMap<&str, Vec<&Line>> = BTreeMap::new();
    for line in &lines {
        by_entry.entry(line.entry).or_default().push(line);
    }
    for group in groups {
        let name = group["name"].as_str().unwrap();
        let mine = &by_entry[name];
        let games = mine.len() as f64;
        let won = mine.iter().filter(|line| line.won).count() as f64;
        assert_eq!(group["games"].as_f64(), Some(games), "{name}");
        assert_eq!(group["won"].as_f64(), Some(won), "{name}");
        assert_eq!(group["lost"].as_f64(), Some(games - won), "{name}");
        assert!((group["win_rate"].as_f64().unwrap() - won / games).abs() < 1e-12, "{name}");
        let (low, high) = wilson(won, games);
        assert!((group["win_interval"][0].as_f64().unwrap() - low).abs() < 1e-9, "{name}");
        assert!((group["win_interval"][1].as_f64().unwrap() - high).abs() < 1e-9, "{name}");
        let mean = mine.iter().map(|line| line.score as f64).sum::<f64>() / games;
        assert!((group["score_mean"].as_f64().unwrap() - mean).abs() < 1e-9, "{name}");
        check_percentiles(&group["ticks"], mine.iter().map(|line| line.ticks).collect(), name);
        check_percentiles(&group["planner_us"], mine.iter().map(|line| line.planner_us).collect(), name);
    }
    // The slowest games, slowest first, are the largest elapsed times.
    let mut elapsed: Vec<u64> = lines.iter().map(|line| line.planner_us + 10).collect();
    elapsed.sort_unstable_by(|a, b| b.cmp(a));
    let slowest: Vec<u64> =
        report["slowest"].as_array().unwrap().iter().map(|game| game["elapsed_us"].as_u64().unwrap()).collect();
    assert_eq!(slowest, elapsed[..5]);
}

#[test]
fn stats_refuses_bad_input_naming_the_line_and_the_flag() {
    let dir = TempDir::new().unwrap();
    std::fs::write(dir.path().join("bad.jsonl"), "{\"id\":1}\n{}\n").unwrap();
    #[track_caller]
    fn check(dir: &Path, args: &[&str], fragment: &str) {
        let output = tickbot(dir).args(args).output().unwrap();
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert_eq!(output.status.code(), Some(2), "{args:?}: {stderr}");
        assert!(stderr.contains(fragment), "{args:?} should say {fragment:?}: {stderr}");
    }
    check(dir.path(), &["stats", "bad.jsonl"], "bad.jsonl:1:");
    check(dir.path(), &["stats", "bad.jsonl", "--by", "seed"], "--by seed: \"seed\" is not a field to group by");
    check(dir.path(), &["stats", "nowhere"], "nowhere: no such file or directory");
    check(dir.path(), &["stats", "."], "has no results.jsonl: not a session directory");
    check(dir.path(), &["stats", "--compare", "a", "b"], "neither a session directory nor a results file");
}

/// Plays `run ARGS...` into `out` in `dir`, with debug logs in `logs/`.
fn run(dir: &Path, args: &[&str]) {
    let output = tickbot(dir).args(["--log-level", "debug", "--log-dir", "logs", "run"]).args(args).output().unwrap();
    assert!(output.status.success(), "{args:?}: {}", String::from_utf8_lossy(&output.stderr));
}

fn compare(dir: &Path, args: &[&str]) -> Value {
    let output = tickbot(dir).args(["stats", "--json"]).args(args).output().unwrap();
    assert!(output.status.success(), "{args:?}: {}", String::from_utf8_lossy(&output.stderr));
    serde_json::from_slice(&output.stdout).unwrap()
}

#[test]
fn compare_tells_a_true_difference_from_a_change_of_seed() {
    let dir = TempDir::new().unwrap();
    let session = "seed = 3\n\
        [[entry]]\nname = \"ours\"\ngame = \"snake\"\nplanner = \"bfs-tail\"\nparams = { size = \"6x6\" }\ngames = 40\n\
        [[entry]]\nname = \"write-up\"\ngame = \"snake\"\nplanner = \"bfs-tail\"\n\
        params = { size = \"6x6\", write-up = true }\ngames = 40\n";
    std::fs::write(dir.path().join("session.toml"), session).unwrap();
    run(dir.path(), &["--config", "session.toml", "--out", "both", "--replays", "none"]);
    let differ = compare(dir.path(), &["both", "--compare", "ours", "write-up"]);
    assert_eq!(differ["a"]["games"], 40);
    assert_eq!(differ["test"]["significant"], true, "{differ}");
    assert!(differ["test"]["p_value"].as_f64().unwrap() < 0.01, "{differ}");

    for seed in ["1", "2"] {
        let out = format!("seed{seed}");
        let size = ["--size", "6x6", "--planner", "bfs-tail"];
        run(dir.path(), &[&["--games", "40", "--seed", seed, "--out", &out, "--replays", "none", "snake"][..], &size].concat());
    }
    let same = compare(dir.path(), &["--compare", "seed1", "seed2"]);
    assert_eq!((same["a"]["games"].as_u64(), same["b"]["games"].as_u64()), (Some(40), Some(40)));
    assert_eq!(same["test"]["significant"], false, "{same}");

    // The debug log holds a plan event per plan: counted per planner.
    let logs = compare(dir.path(), &["--logs", "logs"]);
    let planners: Vec<&str> =
        logs["planners"].as_array().unwrap().iter().map(|plans| plans["planner"].as_str().unwrap()).collect();
    assert_eq!(planners, ["bfs-tail"], "{logs}");
    assert!(logs["planners"][0]["plans"].as_u64().unwrap() > 160 * 36, "a plan per food at least: {logs}");
}
