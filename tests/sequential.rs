//! Sequential tests through the real binary: `match locm --sprt` decides
//! H1 between drafters of different strength and H0 for a drafter against
//! itself, each in fewer games than a fixed-size test, and the same on any
//! thread count; `stats --compare --sprt` pairs two sessions on their
//! shared seeds in A's game order and stops where the test over those
//! outcomes, fed one at a time, stops; `stats --sprt` tests a group's own
//! games; bad specs and unpaired sides exit 2 saying why.

use std::path::Path;

use serde_json::Value;
use tempfile::TempDir;

use tickbot::sprt::{Points, Sprt, SprtSpec, Unit, Verdict};

use crate::support::{assert_bad_input, json_output};

fn sprt_match(dir: &Path, drafts: &str, spec: &str, threads: &str) -> Value {
    let args = ["match", "locm", "--draft", drafts, "--sprt", spec, "--seed", "5", "--threads", threads, "--json"];
    json_output(dir, &args)
}

#[test]
fn a_sequential_match_decides_h1_for_the_stronger_drafter_and_h0_against_itself() {
    let dir = TempDir::new().unwrap();
    // Icebox wins about 68% against max-attack (docs/benchmarks.md).
    let stronger = sprt_match(dir.path(), "icebox,max-attack", "elo0=0,elo1=50", "2");
    assert_eq!(stronger["decision"]["verdict"], "H1", "{stronger}");
    let games = stronger["games"].as_u64().unwrap();
    assert_eq!(games, 2 * stronger["decision"]["observations"].as_u64().unwrap());
    assert!(stronger["sprt"]["llr"].as_f64().unwrap() >= stronger["sprt"]["bounds"]["upper"].as_f64().unwrap());
    assert!((games as f64) < stronger["sprt"]["fixed_size_games"].as_f64().unwrap(), "{stronger}");
    assert!(stronger["sprt"]["estimate"]["elo"].as_f64().unwrap() > 50.0, "{stronger}");
    // The same seed on one thread: the same verdict after the same games.
    let one_thread = sprt_match(dir.path(), "icebox,max-attack", "elo0=0,elo1=50", "1");
    for key in ["decision", "games", "wins_a"] {
        assert_eq!(one_thread[key], stronger[key], "{key}");
    }
    assert_eq!(one_thread["sprt"]["llr"], stronger["sprt"]["llr"]);
    // Against itself every draft splits its pair: no evidence of a gain of 5 Elo.
    let itself = sprt_match(dir.path(), "icebox,icebox", "elo0=0,elo1=5", "2");
    assert_eq!(itself["decision"]["verdict"], "H0", "{itself}");
    assert!(itself["sprt"]["llr"].as_f64().unwrap() <= itself["sprt"]["bounds"]["lower"].as_f64().unwrap());
    assert!(itself["games"].as_u64().unwrap() < 1000, "{itself}");
}

#[test]
fn an_agent_side_is_tested_sequentially_to_the_in_process_verdict() {
    // `tickbot agent locm` plays exactly the in-process games, so a
    // sequential match with it as side A must stop where icebox's does.
    let dir = TempDir::new().unwrap();
    let in_process = sprt_match(dir.path(), "icebox,max-attack", "elo0=0,elo1=50", "2");
    let agent = format!("exec:{} agent locm --draft icebox --battle greedy", env!("CARGO_BIN_EXE_tickbot"));
    let drafts = format!("{agent},max-attack");
    let args = ["--sprt", "elo0=0,elo1=50", "--seed", "5", "--threads", "2", "--agent-margin", "5000", "--json"];
    let external = json_output(dir.path(), &[&["match", "locm", "--draft", drafts.as_str()][..], &args[..]].concat());
    assert_eq!(external["decision"]["verdict"], "H1", "{external}");
    for key in ["decision", "games", "wins_a", "wins_a_first", "wins_a_second"] {
        assert_eq!(external[key], in_process[key], "{key}");
    }
    assert_eq!(external["sprt"]["llr"], in_process["sprt"]["llr"]);
    assert_eq!((external["faults_a"].as_u64(), external["faults_b"].as_u64()), (Some(0), Some(0)), "{external}");
    assert!(external["draft_a"].as_str().unwrap().starts_with("exec:"), "{external}");
}

#[test]
fn a_bad_spec_exits_2_naming_what_is_wrong() {
    let dir = TempDir::new().unwrap();
    let base = ["match", "locm", "--draft", "icebox,random", "--sprt"];
    assert_bad_input(dir.path(), &[&base[..], &["elo0=5,elo1=0"]].concat(), "elo0 must be below elo1");
    assert_bad_input(dir.path(), &[&base[..], &["elo0=0,elo1=5,alpha=2"]].concat(), "together below 1");
    assert_bad_input(dir.path(), &["stats", "--sprt", "p0=0.5"], "p0 and p1 go together");
    assert_bad_input(dir.path(), &["stats", "--compare", "a", "b", "--measure", "length"], "use score, ticks or won");
    assert_bad_input(
        dir.path(),
        &["bench", "sprt", "--sprt", "p0=0.5,p1=0.6", "--at", "1.5"],
        "not strictly between 0 and 1",
    );
    assert_bad_input(
        dir.path(),
        &["bench", "sprt", "--sprt", "elo0=0,elo1=900", "--draw-rate", "0.5"],
        "draws count half, so at most 0.7500",
    );
}

/// One results line of a Snake session.
fn line(entry: &str, index: u64, seed: u64, outcome: &str, ticks: u64, score: i64) -> String {
    format!(
        "{{\"id\":\"{entry}/{index:06}\",\"entry\":\"{entry}\",\"index\":{index},\"game\":\"snake\",\
         \"level\":\"--planner {entry}\",\"planner\":\"{entry}\",\"seed\":{seed},\"outcome\":\"{outcome}\",\
         \"reason\":\"\",\"ticks\":{ticks},\"score\":{score},\"planner_us\":5,\"elapsed_us\":9,\"replay\":null}}\n"
    )
}

/// Seed `i`'s game by each side: A is better on about two seeds in three
/// (fewer ticks), equal on some, worse on the rest.
fn ticks_of(i: u64) -> (u64, u64) {
    match (i * 7919) % 10 {
        0..=5 => (100, 130),
        6 => (120, 120),
        _ => (140, 110),
    }
}

fn seed_of(i: u64) -> u64 {
    1_000_003 * i + 17
}

#[test]
fn compare_with_sprt_pairs_sessions_on_their_seeds_and_stops_where_the_test_does() {
    let dir = TempDir::new().unwrap();
    let n = 400;
    // A's session finished out of order (threads); B's holds an extra seed A never played.
    let mut a_lines: Vec<String> = (0..n).map(|i| line("a", i, seed_of(i), "won", ticks_of(i).0, 36)).collect();
    a_lines.reverse();
    let b_lines: Vec<String> = (0..=n).map(|i| line("b", i, seed_of(i), "won", ticks_of(i).1, 36)).collect();
    std::fs::write(dir.path().join("a.jsonl"), a_lines.concat()).unwrap();
    std::fs::write(dir.path().join("b.jsonl"), b_lines.concat()).unwrap();
    let spec = "elo0=0,elo1=40,alpha=0.05,beta=0.1";
    let args = ["stats", "--compare", "a.jsonl", "b.jsonl", "--measure", "ticks", "--sprt", spec, "--json"];
    let report = json_output(dir.path(), &args);
    let paired = &report["paired"];
    assert_eq!((paired["only_a"].as_u64(), paired["only_b"].as_u64()), (Some(0), Some(1)), "{paired}");
    // The same test fed the seeds' outcomes one at a time, in index order.
    let mut sprt = Sprt::new(spec.parse::<SprtSpec>().unwrap(), Unit::Games);
    let mut expected = None;
    for i in 0..n {
        let (a, b) = ticks_of(i);
        sprt.add_game(Points::of_ordering(b.cmp(&a)));
        if sprt.verdict() != Verdict::Continue {
            expected = Some((i + 1, sprt.verdict()));
            break;
        }
    }
    let (observations, verdict) = expected.expect("the planted gap decides within 400 seeds");
    assert_eq!(verdict, Verdict::H1);
    let decision = &paired["sprt"]["decision"];
    assert_eq!(decision["observations"].as_u64(), Some(observations), "{paired}");
    assert_eq!(decision["verdict"], "H1");
    assert_eq!(paired["sprt"]["status"]["llr"].as_f64(), Some(sprt.llr()));
    assert_eq!(paired["sprt"]["available"].as_u64(), Some(n));
    // The paired figures over all 400 seeds.
    let summary = &paired["paired"];
    let a_better = (0..n).filter(|&i| ticks_of(i).0 < ticks_of(i).1).count() as u64;
    assert_eq!(summary["a_better"].as_u64(), Some(a_better));
    let mean: f64 = (0..n).map(|i| ticks_of(i).0 as f64 - ticks_of(i).1 as f64).sum::<f64>() / n as f64;
    assert!((summary["mean_difference"].as_f64().unwrap() - mean).abs() < 1e-9, "{summary}");
    let (low, high) =
        (summary["difference_interval"][0].as_f64().unwrap(), summary["difference_interval"][1].as_f64().unwrap());
    assert!(low < mean && mean < high && high < 0.0, "{summary}");
}

#[test]
fn stats_sprt_alone_tests_each_group_and_unpaired_sides_are_refused() {
    let dir = TempDir::new().unwrap();
    // Entry "x" wins every game, "y" one game in four.
    let text: String = (0..120)
        .map(|i| {
            let entry = if i % 2 == 0 { "x" } else { "y" };
            let won = entry == "x" || i % 8 == 1;
            line(entry, i / 2, 7 + i, if won { "won" } else { "lost" }, 50, 1)
        })
        .collect();
    std::fs::write(dir.path().join("r.jsonl"), text).unwrap();
    let tests = json_output(dir.path(), &["stats", "r.jsonl", "--sprt", "p0=0.5,p1=0.6", "--json"]);
    let verdicts: Vec<(&str, &str)> = tests
        .as_array()
        .unwrap()
        .iter()
        .map(|test| (test["group"].as_str().unwrap(), test["sprt"]["decision"]["verdict"].as_str().unwrap()))
        .collect();
    assert_eq!(verdicts, [("x", "H1"), ("y", "H0")]);
    // 17 straight wins reach ln 19 at p1/p0 = 1.2.
    assert_eq!(tests[0]["sprt"]["decision"]["observations"].as_u64(), Some(17));
    assert_bad_input(
        dir.path(),
        &["stats", "r.jsonl", "--compare", "x", "y", "--sprt", "elo0=0,elo1=5"],
        "x and y share none",
    );
}
