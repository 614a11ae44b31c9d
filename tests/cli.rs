//! The real binary, end to end, the way a user runs it: the main job, play
//! and record, verify (good, corrupted, truncated, foreign files), show,
//! bench, bad maps, and Ctrl-C in the middle of a run.

use std::path::Path;
use std::process::Command as StdCommand;

use predicates::prelude::*;
use tempfile::TempDir;

use crate::support::{assert_bad_input, json_output, replay_files, tickbot};

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
        .stdout(predicate::str::contains("finished 4 games"))
        // A session leaves its per-game events to the log file (checked
        // below) unless a level is asked for.
        .stderr(predicate::str::contains("game_end").not());
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
    tickbot(dir.path())
        .args(["--log-level", "info", "run", "--games", "1", "--out", "again", "snake", "--size", "8x8"])
        .assert()
        .success()
        .stderr(predicate::str::contains("game_end"));
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
    assert_bad_input(dir.path(), &["replay", "show", "a.tbr", "--tick", "999999"], "past the end of the replay");
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
    assert_bad_input(dir.path(), &["play", "snake", "--map", "broken.txt"], "broken.txt:4:3: unexpected '?'");
    assert_bad_input(dir.path(), &["play", "snake", "--map", "missing.txt"], "missing.txt: cannot read: ");
    assert_bad_input(dir.path(), &["play", "snake", "--size", "2x2"], "--size 2x2:");
}

#[test]
fn bench_prints_the_documented_json_keys() {
    let dir = TempDir::new().unwrap();
    let report = json_output(dir.path(), &["bench", "snake", "--episodes", "12", "--preset", "chuyangliu", "--json"]);
    for key in
        ["episodes", "avg_length", "avg_steps", "fill_rate", "lost", "stalled", "moves_per_sec", "planner", "rules"]
    {
        assert!(report.get(key).is_some(), "{key} missing in {report}");
    }
    assert_eq!(report["episodes"], 12);
    assert_eq!(report["planner"], "cycle");
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
    let leftovers: Vec<_> = all_files(&dir.path().join("out/replays"))
        .into_iter()
        .filter(|path| path.extension().is_some_and(|extension| extension == "part"))
        .collect();
    assert!(leftovers.is_empty(), "unfinished replays left behind: {leftovers:?}");
    // The running games are stopped and not recorded: a resumed session
    // plays them again.
    assert!(lines.iter().all(|line| line["outcome"] != "aborted"), "{lines:?}");
    tickbot(dir.path()).args(["replay", "verify", "out/replays"]).assert().code(0);
}

/// Every file below `dir`.
fn all_files(dir: &Path) -> Vec<std::path::PathBuf> {
    let mut found = Vec::new();
    let mut pending = vec![dir.to_path_buf()];
    while let Some(dir) = pending.pop() {
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() { pending.push(path) } else { found.push(path) }
        }
    }
    found
}

/// Runs the binary with `args` in `dir` and checks its exit code and that
/// stderr (or stdout, for a success) says what the user must read.
#[track_caller]
fn check(dir: &Path, args: &[&str], code: i32, fragment: &str) {
    let output = tickbot(dir).env("TICKBOT_PDB_DIR", dir.join("pdb")).args(args).output().unwrap();
    let (stdout, stderr) = (String::from_utf8_lossy(&output.stdout), String::from_utf8_lossy(&output.stderr));
    assert_eq!(output.status.code(), Some(code), "{args:?}\nstdout: {stdout}\nstderr: {stderr}");
    let text = if code == 0 { &stdout } else { &stderr };
    assert!(text.contains(fragment), "{args:?} should say {fragment:?}\nstdout: {stdout}\nstderr: {stderr}");
    assert!(!stderr.contains("panicked"), "{args:?} panicked: {stderr}");
}

#[test]
fn bad_options_and_inputs_are_refused_with_what_is_wrong() {
    let dir = TempDir::new().unwrap();
    let korf = crate::support::repo_path("maps/slide/korf100.txt");
    let korf = korf.to_str().unwrap();
    std::fs::write(dir.path().join("wide.txt"), "100000 2 nowrap 0 0\n").unwrap();
    // The first board is one move from the goal, the second already solved.
    std::fs::write(dir.path().join("too-high.txt"), "1 2 3 4 5 6 7 0 8  # optimal 5\n1 2 3 4 5 6 7 8 0  # optimal 0\n")
        .unwrap();
    std::fs::write(dir.path().join("too-low.txt"), "1 2 3 4 5 6 7 0 8  # optimal 0\n").unwrap();
    std::fs::write(dir.path().join("empty.txt"), "# no instances\n").unwrap();
    let cases: &[(&[&str], i32, &str)] = &[
        (&["bench", "slide", "--limit", "0"], 2, "invalid value '0' for '--limit <N>'"),
        (&["bench", "slide", "--random", "0"], 2, "invalid value '0' for '--random <N>'"),
        (&["bench", "slide", "--instances", "empty.txt"], 2, "empty.txt: no instance: expected lines"),
        (&["--log-level", "nonsense", "play", "snake"], 2, "\"nonsense\" is not a log level: use off, error, warn"),
        (&["play", "slide", "--size", "4", "--tiles", "1 2 3 4 5 6 7 0 8"], 2, "--tiles has 9 numbers"),
        (&["play", "slide", "--tiles", "1,2,3,4,5,6,7,0,8", "--planner", "astar"], 0, "won (solved in 1 moves)"),
        (&["play", "slide", "--help"], 0, "separated by spaces or commas"),
        (&["play", "snake", "--size", "1x1"], 2, "--size 1x1: too small for the default start"),
        (&["play", "snake", "--size", "2x4"], 2, "or give --start COL,ROW,DIR,LEN, e.g. --start 0,2,down,3"),
        (&["play", "slide", "--instances", korf, "--index", "0"], 2, "--index 0: instances are numbered from 1"),
        (&["play", "slide", "--instances", korf, "--index", "101"], 2, "holds 100 instances, numbered from 1"),
        (&["play", "pipes", "--map", "wide.txt"], 2, "wide.txt:1: width 100000 is too large"),
        (&["play", "slide", "--size", "4", "--pdb", "4-4"], 2, "--pdb 4-4 is for 3×3 boards, the instances are 4×4"),
        (
            &["bench", "slide", "--instances", "too-high.txt", "--planner", "astar"],
            2,
            "instance 1: solved in 1 moves, the file says `# optimal 5`",
        ),
        (
            &["bench", "slide", "--instances", "too-low.txt", "--planner", "astar"],
            4,
            "solutions longer than the published optimum: instances [1]",
        ),
        (&["run", "--jobs", "0"], 2, "invalid value '0' for '--jobs <JOBS>'"),
        (&["match", "locm", "--draft", "random,random", "--games", "0"], 2, "invalid value '0' for '--games <GAMES>'"),
        (&["bench", "locm", "--games", "0"], 2, "invalid value '0' for '--games <GAMES>'"),
        (&["play", "snake", "--size", "100000x1"], 2, "the width 100000 is too large: at most 4096"),
        (&["bench", "locm", "--games", "100"], 0, "too short to time"),
        (&["bench", "snake", "--episodes", "0"], 2, "invalid value '0' for '--episodes <EPISODES>'"),
        (&["bench", "flag", "--planner", "ga", "--seeds", "0"], 2, "invalid value '0' for '--seeds <SEEDS>'"),
        (&["bench", "flag", "--count", "0"], 2, "invalid value '0' for '--count <COUNT>'"),
        (&["bench", "pipes", "--seeds", "0"], 2, "invalid value '0' for '--seeds <N>'"),
        (
            &["run", "--games", "1", "pipes", "--planner", "dfs"],
            2,
            "--planner dfs handles boards of at most 64 tiles (8x8), not 100",
        ),
        (&["play", "pipes", "--planner", "astar"], 2, "--planner astar handles boards of at most 64 tiles"),
        (&["stats", "--plot", "chart.png"], 2, "--plot chart.png: the chart is an SVG document; name it NAME.svg"),
    ];
    for &(args, code, fragment) in cases {
        check(dir.path(), args, code, fragment);
    }
}

#[test]
fn a_file_in_place_of_the_replay_directory_is_one_error() {
    let dir = TempDir::new().unwrap();
    std::fs::create_dir(dir.path().join("out")).unwrap();
    std::fs::write(dir.path().join("out/replays"), b"").unwrap();
    let output = tickbot(dir.path()).args(["run", "--games", "5", "snake", "--size", "6x6"]).output().unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(4), "{stderr}");
    assert_eq!(stderr.matches("error").count(), 1, "{stderr}");
    assert!(stderr.contains("the replay directory out/replays is a file"), "{stderr}");
}

#[test]
fn a_pattern_database_directory_that_is_a_file_falls_back_to_memory() {
    let dir = TempDir::new().unwrap();
    std::fs::write(dir.path().join("cache"), b"").unwrap();
    let output = tickbot(dir.path())
        .args(["play", "slide", "--tiles", "7 3 0 8 1 4 6 2 5", "--pdb-dir", "cache"])
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "{stderr}");
    assert!(String::from_utf8_lossy(&output.stdout).contains("won (solved in 16 moves)"));
    assert_eq!(stderr.matches("cache is not a directory").count(), 1, "said once: {stderr}");
    assert!(!stderr.contains("os error"), "{stderr}");
    assert_eq!(std::fs::read(dir.path().join("cache")).unwrap(), b"", "the file is left alone");
}

/// Starts the binary in `dir`, waits until a line of its stderr contains
/// `ready`, sends `signal` (`INT` or `TERM`), and returns its exit code and
/// all it wrote to stderr.
#[cfg(unix)]
fn signal_when_ready(dir: &Path, args: &[&str], ready: &str, signal: &str) -> (Option<i32>, String) {
    use std::io::{BufRead, BufReader};
    use std::time::{Duration, Instant};

    let mut child = StdCommand::new(assert_cmd::cargo::cargo_bin("tickbot"))
        .current_dir(dir)
        .args(args)
        .env_remove("RUST_LOG")
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let stderr = child.stderr.take().unwrap();
    let (ready_sender, ready_receiver) = std::sync::mpsc::channel();
    let wanted = ready.to_string();
    let reader = std::thread::spawn(move || {
        let mut text = String::new();
        for line in BufReader::new(stderr).lines().map_while(Result::ok) {
            if line.contains(&wanted) {
                let _ = ready_sender.send(());
            }
            text.push_str(&line);
            text.push('\n');
        }
        text
    });
    if ready_receiver.recv_timeout(Duration::from_secs(120)).is_err() {
        let _ = child.kill();
        panic!("{args:?} never printed {ready:?}: {}", reader.join().unwrap());
    }
    // The handler is installed before anything is printed, so the signal
    // can follow the line at once: the less it waits, the surer it is to
    // come while the work is still under way, however fast the machine.
    let sent = StdCommand::new("kill").args([&format!("-{signal}"), &child.id().to_string()]).status().unwrap();
    assert!(sent.success());
    let signalled = Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        if signalled.elapsed() > Duration::from_secs(60) {
            let _ = child.kill();
            panic!("{args:?} still ran a minute after SIG{signal}");
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    (status.code(), reader.join().unwrap())
}

/// Ctrl-C during a first pattern-database build: exit 130 and no table
/// left half-written (the small 3-tile table may have finished and been
/// saved whole; the 6-tile ones take minutes unoptimised).
#[cfg(unix)]
#[test]
fn ctrl_c_stops_a_pattern_database_build_and_leaves_no_partial_table() {
    let dir = TempDir::new().unwrap();
    let args = ["play", "slide", "--size", "4", "--pdb", "6-6-3", "--pdb-dir", "pdb"];
    let (code, stderr) = signal_when_ready(dir.path(), &args, "building pattern databases 6-6-3", "INT");
    assert_eq!(code, Some(130), "{stderr}");
    assert!(stderr.contains("interrupted while building the pattern databases"), "{stderr}");
    let mut left: Vec<String> = std::fs::read_dir(dir.path().join("pdb"))
        .map(|entries| entries.map(|entry| entry.unwrap().file_name().to_string_lossy().into_owned()).collect())
        .unwrap_or_default();
    left.retain(|name| name != "slide4-blank-13_14_15.pdb");
    assert!(left.is_empty(), "unfinished tables left behind: {left:?}");
}

/// SIGTERM while `gen pipes --unique` checks a large board: exit 130, no
/// puzzle printed.
#[cfg(unix)]
#[test]
fn sigterm_stops_a_unique_puzzle_generation() {
    let dir = TempDir::new().unwrap();
    // The largest board, so that the signal comes long before the end
    // (0.56 s in a debug build on the development machine).
    let args = ["gen", "pipes", "--size", "500x500", "--unique", "--out", "puzzle.txt"];
    let (code, stderr) = signal_when_ready(dir.path(), &args, "generating a 500×500 puzzle", "TERM");
    assert_eq!(code, Some(130), "{stderr}");
    assert!(stderr.contains("interrupted while generating the puzzle"), "{stderr}");
    assert!(!dir.path().join("puzzle.txt").exists());
}
