//! The sliding puzzle end to end through the real binary: the write-up's
//! example (rejected as printed, solved as its answer implies, by every
//! planner, with replays that verify), bad instance files, the bench JSON
//! interface, `run slide`, and the planners' plans replayed in memory.

use std::path::Path;

use assert_cmd::Command;
use predicates::prelude::*;
use tempfile::TempDir;

use tickbot::game::OutcomeKind;
use tickbot::game::slide::plan::astar::AStar;
use tickbot::game::slide::plan::ga::{GaPlanner, GaSettings};
use tickbot::game::slide::plan::idastar::IdaStar;
use tickbot::game::slide::plan::pdb::{Partition, PdbSet};
use tickbot::game::slide::{Config, Goal, SlideGame};
use tickbot::plan::Planner;
use tickbot::replay::{self, Replay};

use crate::support::{self, assert_bad_input, repo_path};

const WRITE_UP_START: &str = "7 3 0 8 1 4 6 2 5";
const WRITE_UP_PRINTED: &str = "7 3 0 8 1 4 6 5 2";

fn tickbot(dir: &Path) -> Command {
    let mut command = support::tickbot(dir);
    command.env("TICKBOT_PDB_DIR", dir.join("pdb"));
    command
}

#[test]
fn the_write_ups_printed_start_is_rejected_as_unsolvable() {
    let dir = TempDir::new().unwrap();
    assert_bad_input(
        dir.path(),
        &["play", "slide", "--tiles", WRITE_UP_PRINTED, "--planner", "astar"],
        "unsolvable: this board has the wrong permutation parity",
    );
}

#[test]
fn every_planner_solves_the_write_ups_start_and_its_replay_verifies() {
    let dir = TempDir::new().unwrap();
    let cases = [("astar", "1"), ("idastar", "1"), ("ga", "1"), ("ga", "2"), ("ga", "3"), ("ga --write-up", "1")];
    for (planner, seed) in cases {
        let name = format!("{}-{seed}.tbr", planner.replace(' ', ""));
        let mut words = planner.split(' ');
        let planner = words.next().unwrap();
        let output = tickbot(dir.path())
            .args(["play", "slide", "--tiles", WRITE_UP_START, "--planner", planner, "--seed", seed, "--record", &name])
            .args(words)
            .assert()
            .success()
            .get_output()
            .stdout
            .clone();
        let text = String::from_utf8(output).unwrap();
        assert!(text.contains("won (solved in"), "{planner}: {text}");
        if planner != "ga" {
            assert!(text.contains("won (solved in 16 moves)"), "{planner} is optimal: {text}");
        }
    }
    tickbot(dir.path())
        .args(["replay", "verify", "."])
        .assert()
        .success()
        .stdout(predicate::str::contains("6 replays: 6 reproduced"));
    // The pattern databases went to the cache and are read back next time.
    tickbot(dir.path())
        .args(["play", "slide", "--tiles", WRITE_UP_START])
        .assert()
        .success()
        .stderr(predicate::str::contains("2 loaded"));
}

#[test]
fn bad_instance_files_name_the_file_line_and_problem() {
    let dir = TempDir::new().unwrap();
    let cases = [
        ("1 2 3 4 5 6 7 8\n", "bad.txt:1: expected 9, 16 or 25 numbers"),
        ("# ok\n1 2 3 4 5 6 7 8 0\n1 1 2 3 4 5 6 7 8\n", "bad.txt:3: tile 1 appears twice"),
        (&format!("{WRITE_UP_PRINTED}\n"), "bad.txt:1: unsolvable"),
    ];
    for (text, expected) in cases {
        std::fs::write(dir.path().join("bad.txt"), text).unwrap();
        assert_bad_input(dir.path(), &["bench", "slide", "--instances", "bad.txt", "--planner", "astar"], expected);
    }
}

#[test]
fn bench_prints_the_documented_json_in_file_order_and_checks_optimality() {
    let dir = TempDir::new().unwrap();
    let instances = repo_path("maps/slide/eight.txt");
    for planner in ["astar", "idastar"] {
        let output = tickbot(dir.path())
            .args(["bench", "slide", "--planner", planner, "--json", "--instances"])
            .arg(&instances)
            .assert()
            .success()
            .get_output()
            .stdout
            .clone();
        let report: serde_json::Value = serde_json::from_slice(&output).unwrap();
        let lines = report["instances"].as_array().unwrap();
        let ids: Vec<u64> = lines.iter().map(|line| line["id"].as_u64().unwrap()).collect();
        assert_eq!(ids, [1, 2, 3, 4]);
        let moves: Vec<u64> = lines.iter().map(|line| line["moves"].as_u64().unwrap()).collect();
        assert_eq!(moves, [16, 2, 31, 31], "{planner}");
        assert!(lines.iter().all(|line| line["nodes"].is_u64() && line["seconds"].is_f64()));
        assert!(report["total_seconds"].is_f64());
        assert_eq!(report["optimal_checked"], 4);
        assert_eq!(report["not_optimal"], serde_json::json!([]));
    }
}

/// `--ids` picks and orders instances; `--checkpoint` keeps the run's state,
/// which `--resume` reports as it was and refuses for other instances; an
/// existing checkpoint file is never overwritten.
#[test]
fn bench_ids_checkpoint_and_resume() {
    let dir = TempDir::new().unwrap();
    let instances = repo_path("maps/slide/eight.txt");
    let bench = |extra: &[&str]| {
        let mut command = tickbot(dir.path());
        command.args(["bench", "slide", "--planner", "idastar", "--json", "--instances"]).arg(&instances);
        command.args(extra);
        command
    };
    let ids = |output: &[u8]| -> Vec<(u64, u64)> {
        let report: serde_json::Value = serde_json::from_slice(output).unwrap();
        let lines = report["instances"].as_array().unwrap();
        lines.iter().map(|line| (line["id"].as_u64().unwrap(), line["moves"].as_u64().unwrap())).collect()
    };
    let output = bench(&["--ids", "3,1", "--checkpoint", "state.json"]).assert().success().get_output().stdout.clone();
    assert_eq!(ids(&output), [(3, 31), (1, 16)]);
    let state: serde_json::Value =
        serde_json::from_slice(&std::fs::read(dir.path().join("state.json")).unwrap()).unwrap();
    assert_eq!(state["ids"], serde_json::json!([3, 1]));
    assert_eq!(state["finished"].as_array().unwrap().len(), 2);
    // Resumed when finished: the same instances, reported as they were.
    let output = bench(&["--ids", "3,1", "--resume", "state.json"]).assert().success().get_output().stdout.clone();
    assert_eq!(ids(&output), [(3, 31), (1, 16)]);
    bench(&["--ids", "1,3", "--resume", "state.json"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("the checkpoint is of another benchmark"));
    bench(&["--ids", "3,1", "--checkpoint", "state.json"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("already holds a benchmark"));
    bench(&["--ids", "5"]).assert().code(2).stderr(predicate::str::contains("--ids 5: the file"));
}

#[test]
fn a_wrong_published_optimum_fails_the_bench() {
    let dir = TempDir::new().unwrap();
    std::fs::write(dir.path().join("wrong.txt"), "7 3 0 8 1 4 6 2 5  # optimal 14\n").unwrap();
    tickbot(dir.path())
        .args(["bench", "slide", "--instances", "wrong.txt", "--planner", "astar"])
        .assert()
        .code(4)
        .stderr(predicate::str::contains("longer than the published optimum: instances [1]"));
}

#[test]
fn run_slide_plays_random_starts_that_verify() {
    let dir = TempDir::new().unwrap();
    tickbot(dir.path())
        .args(["run", "--games", "3", "--jobs", "2", "slide", "--planner", "astar"])
        .assert()
        .success()
        .stdout(predicate::str::contains("finished 3 games: won 3"));
    tickbot(dir.path())
        .args(["replay", "verify", "out/replays"])
        .assert()
        .success()
        .stdout(predicate::str::contains("3 replays: 3 reproduced"));
}

/// Plays `planner` on `config` in memory and returns the replay.
fn record<P: Planner<SlideGame>>(config: &Config, mut planner: P) -> Replay {
    replay::record::<SlideGame>(config, 0, &mut planner).expect("the planner plays legal moves")
}

#[test]
fn plans_of_every_planner_on_both_goals_replay_and_verify() {
    let tables = std::sync::Arc::new(PdbSet::build(Partition::P44));
    for goal in [Goal::BlankLast, Goal::BlankFirst] {
        let config = Config::fixed(3, &[8, 6, 7, 2, 5, 4, 3, 0, 1], goal).or_else(|_| {
            // One of the two goals needs the other parity: swap two tiles.
            Config::fixed(3, &[6, 8, 7, 2, 5, 4, 3, 0, 1], goal)
        });
        let config = config.unwrap();
        let replays = [
            record(&config, AStar::new(1_000_000)),
            record(&config, IdaStar::new(std::sync::Arc::clone(&tables))),
            record(&config, GaPlanner::new(GaSettings::default())),
        ];
        let lengths: Vec<u32> = replays.iter().map(|replay| replay.footer.as_ref().unwrap().ticks).collect();
        assert_eq!(lengths[0], lengths[1], "both optimal on {goal:?}");
        assert!(lengths[2] >= lengths[0]);
        for replay in &replays {
            let bytes = replay::encode_to_vec(replay).unwrap();
            let reproduced = replay::verify(&replay::decode(&bytes).unwrap()).unwrap();
            assert_eq!(reproduced.outcome.kind, OutcomeKind::Won);
        }
    }
}
