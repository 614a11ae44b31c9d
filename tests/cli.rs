//! The real binary, end to end, the way a user runs it: the main job, play
//! and record, verify (good, corrupted, truncated, foreign files), show,
//! bench, bad maps, and Ctrl-C in the middle of a run.

use std::path::Path;
use std::process::Command as StdCommand;

use predicates::prelude::*;
use tempfile::TempDir;

use crate::support::{replay_files, tickbot};

fn json_lines(path: &Path) -> Vec<serde_json::Value> {
    let text = std::fs::read_to_string(path).expect("readable file");
    text.lines()
        .map(|line| serde_json::from_str(line).unwrap_or_else(|error| panic!("{line:?} is not JSON: {error}")))
        .collect()
}

#[test]
fn run_writes_verifiable_replays_results_and_logs() {
    let dir = TempDir::new().unwrap();
    tickbot(dir.path())
        .args(["run", "--games", "4", "--jobs", "2", "snake", "--size", "8x8"])
        .assert()
        .success()
        .stdout(predicate::str::contains("finished 4 games"));
    let results = json_lines(&dir.path().join("out/results.jsonl"));
    assert_eq!(results.len(), 4);
    let mut indexes: Vec<u64> = results.iter().map(|line| line["index"].as_u64().unwrap()).collect();
    indexes.sort_unstable();
    assert_eq!(indexes, [0, 1, 2, 3]);
    for line in &results {
        for key in ["seed", "game", "planner", "outcome", "reason", "ticks", "score", "elapsed_us", "replay"] {
            assert!(line.get(key).is_some(), "{key} missing in {line}");
        }
    }
    assert_eq!(replay_files(&dir.path().join("out/replays")).len(), 4);
    tickbot(dir.path())
        .args(["replay", "verify", "out/replays"])
        .assert()
        .success()
        .stdout(predicate::str::contains("4 replays: 4 reproduced, 0 diverged, 0 invalid"));
    let log = json_lines(&dir.path().join("logs/tickbot.jsonl"));
    let ends: Vec<_> = log.iter().filter(|event| event["message"] == "game_end").collect();
    assert_eq!(ends.len(), 4);
    assert!(ends.iter().all(|event| event["elapsed_us"].is_u64() && event["ticks"].is_u64()));
    assert_eq!(log.iter().filter(|event| event["message"] == "game_start").count(), 4);
}

#[test]
fn results_do_not_depend_on_concurrency() {
    let outcomes = |jobs: &str| {
        let dir = TempDir::new().unwrap();
        tickbot(dir.path()).args(["run", "--games", "4", "--jobs", jobs, "snake", "--size", "6x6"]).assert().success();
        let mut lines = json_lines(&dir.path().join("out/results.jsonl"));
        lines.sort_by_key(|line| line["index"].as_u64());
        let files: Vec<Vec<u8>> =
            replay_files(&dir.path().join("out/replays")).iter().map(|path| std::fs::read(path).unwrap()).collect();
        let summary: Vec<_> =
            lines.iter().map(|line| (line["seed"].clone(), line["ticks"].clone(), line["score"].clone())).collect();
        (summary, files)
    };
    assert_eq!(outcomes("1"), outcomes("3"));
}

#[test]
fn play_records_identical_bytes_for_the_same_seed_and_show_draws_the_board() {
    let dir = TempDir::new().unwrap();
    for name in ["a.tbr", "b.tbr"] {
        tickbot(dir.path())
            .args(["play", "snake", "--preset", "chuyangliu", "--seed", "7", "--record", name])
            .assert()
            .success()
            .stdout(predicate::str::contains("snake seed 7:"));
    }
    let first = std::fs::read(dir.path().join("a.tbr")).unwrap();
    assert_eq!(first, std::fs::read(dir.path().join("b.tbr")).unwrap());
    tickbot(dir.path())
        .args(["replay", "show", "a.tbr", "--tick", "3"])
        .assert()
        .success()
        .stdout(predicate::str::contains("seed      7").and(predicate::str::contains("tick 3  length 4")));
    tickbot(dir.path())
        .args(["replay", "show", "a.tbr", "--tick", "999999"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("past the end of the replay"));
}

#[test]
fn verify_reports_each_kind_of_bad_file_with_its_exit_code() {
    let dir = TempDir::new().unwrap();
    tickbot(dir.path())
        .args(["play", "snake", "--size", "6x6", "--seed", "3", "--record", "good.tbr"])
        .assert()
        .success();
    let good = std::fs::read(dir.path().join("good.tbr")).unwrap();
    let write = |name: &str, bytes: &[u8]| std::fs::write(dir.path().join(name), bytes).unwrap();

    tickbot(dir.path()).args(["replay", "verify", "good.tbr"]).assert().code(0);

    // The last bytes are the footer's checksum: damage is caught before
    // anything is re-simulated.
    let mut footer_damaged = good.clone();
    *footer_damaged.last_mut().unwrap() ^= 0x01;
    write("damaged.tbr", &footer_damaged);
    tickbot(dir.path())
        .args(["replay", "verify", "damaged.tbr"])
        .assert()
        .code(3)
        .stdout(predicate::str::contains("INVALID").and(predicate::str::contains("does not match its checksum")));

    // A footer written with the wrong final hash is a divergence.
    let mut decoded = tickbot::replay::decode(&good).unwrap();
    decoded.footer.as_mut().unwrap().final_hash ^= 1;
    write("footer.tbr", &tickbot::replay::encode_to_vec(&decoded).unwrap());
    tickbot(dir.path())
        .args(["replay", "verify", "footer.tbr"])
        .assert()
        .code(1)
        .stdout(predicate::str::contains("DIVERGED"));

    write("truncated.tbr", &good[..good.len() - 20]);
    tickbot(dir.path())
        .args(["replay", "verify", "truncated.tbr"])
        .assert()
        .code(3)
        .stdout(predicate::str::is_match(r"truncated\.tbr: truncated: ends after tick \d+, no footer").unwrap());

    write("foreign.tbr", b"PK\x03\x04 definitely a zip file");
    tickbot(dir.path())
        .args(["replay", "verify", "foreign.tbr"])
        .assert()
        .code(3)
        .stdout(predicate::str::contains("not a tickbot replay"));

    let mut future = good.clone();
    future[8] = 42;
    write("future.tbr", &future);
    tickbot(dir.path())
        .args(["replay", "verify", "future.tbr", "--json"])
        .assert()
        .code(3)
        .stdout(predicate::str::contains("unsupported replay format version 42"));

    write("empty.tbr", b"");
    tickbot(dir.path()).args(["replay", "verify", "empty.tbr"]).assert().code(3);

    // Divergence wins over invalid files when both occur.
    tickbot(dir.path()).args(["replay", "verify", "."]).assert().code(1).stdout(predicate::str::contains("7 replays"));
}

#[test]
fn verify_json_names_the_divergent_tick_and_action() {
    let dir = TempDir::new().unwrap();
    tickbot(dir.path()).args(["play", "snake", "--size", "6x6", "--seed", "4", "--record", "x.tbr"]).assert().success();
    let bytes = std::fs::read(dir.path().join("x.tbr")).unwrap();
    let mut decoded = tickbot::replay::decode(&bytes).unwrap();
    decoded.frames[9].action = (decoded.frames[9].action + 1) % 4;
    std::fs::write(dir.path().join("x.tbr"), tickbot::replay::encode_to_vec(&decoded).unwrap()).unwrap();
    let output =
        tickbot(dir.path()).args(["replay", "verify", "--json", "x.tbr"]).assert().code(1).get_output().clone();
    let report: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    let file = &report["files"][0];
    assert_eq!(file["status"], "diverged");
    assert_eq!(file["tick"], 10);
    assert!(file["action"].is_string() && file["expected_hash"].is_string() && file["actual_hash"].is_string());
    assert_eq!(report["diverged"], 1);
}

#[test]
fn bad_maps_name_the_file_line_and_column() {
    let dir = TempDir::new().unwrap();
    std::fs::write(dir.path().join("broken.txt"), "# a map\nXXXX\nX..X\nX.?X\nXXXX\n").unwrap();
    tickbot(dir.path())
        .args(["play", "snake", "--map", "broken.txt"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("broken.txt:4:3: unexpected '?'"));
    tickbot(dir.path())
        .args(["play", "snake", "--map", "missing.txt"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("cannot read map missing.txt"));
    tickbot(dir.path())
        .args(["play", "snake", "--size", "2x2"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("--size 2x2:"));
}

#[test]
fn bench_prints_the_documented_json_keys() {
    let dir = TempDir::new().unwrap();
    let output = tickbot(dir.path())
        .args(["bench", "snake", "--episodes", "12", "--preset", "chuyangliu", "--json"])
        .assert()
        .success()
        .get_output()
        .clone();
    let report: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    for key in
        ["episodes", "avg_length", "avg_steps", "fill_rate", "lost", "stalled", "moves_per_sec", "planner", "rules"]
    {
        assert!(report.get(key).is_some(), "{key} missing in {report}");
    }
    assert_eq!(report["episodes"], 12);
    assert_eq!(report["planner"], "bfs-tail");
}

#[test]
fn help_documents_the_exit_codes() {
    let dir = TempDir::new().unwrap();
    tickbot(dir.path())
        .arg("--help")
        .assert()
        .success()
        .stdout(predicate::str::contains("Exit codes:").and(predicate::str::contains("130")));
}

/// Ctrl-C in the middle of a long run: exit 130, every results line parses,
/// every replay left behind is complete and verifies, no `.part` files.
#[cfg(unix)]
#[test]
fn ctrl_c_leaves_only_complete_replays_and_parseable_results() {
    use std::time::{Duration, Instant};

    let dir = TempDir::new().unwrap();
    let binary = assert_cmd::cargo::cargo_bin("tickbot");
    let mut child = StdCommand::new(&binary)
        .current_dir(dir.path())
        .args(["run", "--games", "100000", "--jobs", "2", "snake", "--size", "12x12"])
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let results = dir.path().join("out/results.jsonl");
    let started = Instant::now();
    while std::fs::read_to_string(&results).map_or(0, |text| text.lines().count()) < 3 {
        assert!(started.elapsed() < Duration::from_secs(120), "no results after two minutes");
        std::thread::sleep(Duration::from_millis(20));
    }
    let killed = StdCommand::new("kill").args(["-INT", &child.id().to_string()]).status().unwrap();
    assert!(killed.success());
    let status = child.wait().unwrap();
    assert_eq!(status.code(), Some(130));
    let lines = json_lines(&results);
    assert!(lines.len() >= 3);
    let replays = replay_files(&dir.path().join("out/replays"));
    assert_eq!(replays.len(), lines.len(), "one replay per results line");
    let leftovers: Vec<_> = std::fs::read_dir(dir.path().join("out/replays"))
        .unwrap()
        .map(|entry| entry.unwrap().path())
        .filter(|path| path.extension().is_some_and(|extension| extension == "part"))
        .collect();
    assert!(leftovers.is_empty(), "unfinished replays left behind: {leftovers:?}");
    assert!(lines.iter().any(|line| line["outcome"] == "aborted"), "the running games are aborted, not lost");
    tickbot(dir.path()).args(["replay", "verify", "out/replays"]).assert().code(0);
}
