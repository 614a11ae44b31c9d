//! `tickbot status` through the real binary: over three shards of a
//! running session it counts what their results files hold at that moment
//! and names the process holding each lock, a shard killed with SIGKILL
//! shows as no longer held, and once all have finished the totals are the
//! session's; a line still being written is not counted; the Prometheus
//! file sums to the same games; a lock held by another process is seen
//! without being taken; bad input is refused with exit 2.

use std::path::{Path, PathBuf};
use std::process::{Child, Command as StdCommand, Stdio};
use std::time::{Duration, Instant};

use serde_json::Value;

use tickbot::session::SessionDir;

use crate::session::{result_lines, write_session};
use crate::support::{assert_bad_input, json_output, shard_variables, tickbot};

/// Starts shard `index` of 3 of the session in `dir`, its log in SHARD/logs.
fn start_shard(dir: &Path, index: u64, resume: bool) -> Child {
    let out = format!("shards/{index}");
    let log = format!("{out}/logs");
    let shard = format!("{index}/3");
    let mut command = StdCommand::new(assert_cmd::cargo::cargo_bin("tickbot"));
    command.current_dir(dir).env("TICKBOT_MOVE_BUDGET_MS", "600000").env_remove("RUST_LOG");
    for name in shard_variables() {
        command.env_remove(name);
    }
    if resume {
        command.args(["--log-dir", &log, "run", "--resume", &out, "--jobs", "1"]);
    } else {
        command.args(["--log-dir", &log, "run", "--config", "session.toml", "--out", &out, "--shard", &shard]);
        command.args(["--jobs", "1"]);
    }
    command.stdout(Stdio::null()).stderr(Stdio::null()).spawn().unwrap()
}

fn shard_dirs(dir: &Path) -> Vec<String> {
    (0..3).map(|index| dir.join(format!("shards/{index}")).display().to_string()).collect()
}

fn status(dir: &Path, dirs: &[String]) -> Value {
    let mut args = vec!["status", "--json"];
    args.extend(dirs.iter().map(String::as_str));
    json_output(dir, &args)
}

/// Each entry's won and recorded games in a results file.
fn tally(path: &Path) -> Vec<(String, u64, u64)> {
    let mut tally: Vec<(String, u64, u64)> = Vec::new();
    for line in std::fs::read_to_string(path).unwrap().lines() {
        let value: Value = serde_json::from_str(line).unwrap();
        let entry = value["entry"].as_str().unwrap();
        let won = u64::from(value["outcome"] == "won");
        match tally.iter_mut().find(|(name, _, _)| name == entry) {
            Some(row) => {
                row.1 += 1;
                row.2 += won;
            }
            None => tally.push((entry.to_string(), 1, won)),
        }
    }
    tally
}

#[test]
fn status_over_three_running_shards_counts_their_results_files_and_sees_their_locks() {
    let temp = tempfile::tempdir().unwrap();
    let dir = temp.path();
    // 3 shards of 14 + 8 + 6 games.
    write_session(dir, "30x30", 14);
    let dirs = shard_dirs(dir);
    let mut children: Vec<Child> = (0..3).map(|index| start_shard(dir, index, false)).collect();
    let mut looks_while_held = 0;
    let mut killed = false;
    let started = Instant::now();
    while children.iter_mut().any(|child| child.try_wait().unwrap().is_none()) {
        assert!(started.elapsed() < Duration::from_secs(300), "the shards did not finish in five minutes");
        let before: Vec<usize> = (0..3).map(|index| result_lines(&dir.join(format!("shards/{index}")))).collect();
        let report = status(dir, &dirs);
        let after: Vec<usize> = (0..3).map(|index| result_lines(&dir.join(format!("shards/{index}")))).collect();
        for (index, shard) in report["dirs"].as_array().unwrap().iter().enumerate() {
            let recorded = shard["recorded"].as_u64().unwrap() as usize;
            assert!(before[index] <= recorded && recorded <= after[index], "shard {index}: {shard}");
            let alive = children[index].try_wait().unwrap().is_none();
            let games_left = shard["expected"].as_u64().is_some_and(|expected| recorded < expected as usize);
            if alive && games_left && shard["state"] != "not_started" {
                // Alive after the look, with its manifest written and games
                // left to play: it held its lock throughout (a shard whose
                // last game is recorded may let go of its lock before it
                // exits).
                assert_eq!(shard["state"], "running", "{shard}");
                assert_eq!(shard["pid"].as_u64(), Some(u64::from(children[index].id())), "{shard}");
                looks_while_held += 1;
            }
        }
        // Shard 1 killed part way: its lock file still names it, no process holds it.
        if !killed && after[1] >= 2 && children[1].try_wait().unwrap().is_none() {
            let pid = children[1].id();
            children[1].kill().unwrap();
            children[1].wait().unwrap();
            killed = true;
            let shard = &status(dir, &dirs)["dirs"][1];
            assert_eq!(shard["state"], "not_held_here", "{shard}");
            assert_eq!(shard["pid"].as_u64(), Some(u64::from(pid)), "{shard}");
            assert_eq!(shard["running"], 0, "a killed shard's games are not running: {shard}");
            children[1] = start_shard(dir, 1, true);
        }
        std::thread::sleep(Duration::from_millis(100));
    }
    for child in &mut children {
        assert!(child.wait().unwrap().success());
    }
    assert!(killed, "shard 1 finished before it could be killed");
    assert!(looks_while_held > 0, "no look saw a running shard");

    let report = status(dir, &dirs);
    assert_eq!((report["recorded"].as_u64(), report["expected"].as_u64()), (Some(28), Some(28)), "{report}");
    assert_eq!(report["running"], 0);
    assert!(report["shards_not_given"].as_array().unwrap().is_empty());
    for shard in report["dirs"].as_array().unwrap() {
        assert_eq!(shard["state"], "ended", "{shard}");
        assert_eq!(shard["eta_s"], 0.0, "{shard}");
    }
    // Per entry, the outcomes the three results files hold.
    let mut expected: Vec<(String, u64, u64)> = Vec::new();
    for index in 0..3 {
        for (entry, games, won) in tally(&dir.join(format!("shards/{index}/results.jsonl"))) {
            match expected.iter_mut().find(|(name, _, _)| *name == entry) {
                Some(row) => {
                    row.1 += games;
                    row.2 += won;
                }
                None => expected.push((entry, games, won)),
            }
        }
    }
    let entries: Vec<(String, u64, u64)> = report["entries"]
        .as_array()
        .unwrap()
        .iter()
        .map(|entry| {
            let totals = &entry["totals"];
            (
                entry["entry"].as_str().unwrap().to_string(),
                totals["games"].as_u64().unwrap(),
                totals["won"].as_u64().unwrap(),
            )
        })
        .collect();
    assert_eq!(entries, expected);
    assert_eq!(entries.iter().map(|(_, games, _)| *games).collect::<Vec<_>>(), [14, 8, 6]);

    // Two shards of three: the third is named, and --watch over finished
    // directories reports once and ends.
    let output = tickbot(dir).args(["status", "--watch", "--interval", "0.2", &dirs[0], &dirs[2]]).output().unwrap();
    let text = String::from_utf8_lossy(&output.stdout);
    assert!(output.status.success(), "{text}");
    assert_eq!(text.matches("tickbot status:").count(), 1, "{text}");
    assert!(text.contains("not given: shard 1/3"), "{text}");
}

/// A finished session of 14 + 8 + 6 games in `dir/out`.
fn finished_session(dir: &Path) -> PathBuf {
    write_session(dir, "8x8", 14);
    tickbot(dir).args(["--log-dir", "out/logs", "run", "--config", "session.toml", "--out", "out"]).assert().success();
    dir.join("out")
}

#[test]
fn a_line_being_written_is_not_counted_and_the_metrics_sum_to_the_games() {
    let temp = tempfile::tempdir().unwrap();
    let dir = temp.path();
    let out = finished_session(dir);
    let results = out.join("results.jsonl");
    let text = std::fs::read_to_string(&results).unwrap();
    // Half of a line more, as a session appending it would leave it for a moment.
    let first = text.lines().next().unwrap();
    std::fs::write(&results, format!("{text}{}", &first[..first.len() / 2])).unwrap();
    let report = json_output(dir, &["status", "--json", "--metrics", "metrics.prom", "out"]);
    assert_eq!((report["recorded"].as_u64(), report["expected"].as_u64()), (Some(28), Some(28)), "{report}");
    assert_eq!(report["dirs"][0]["state"], "ended");
    assert_eq!(report["dirs"][0]["log"], true);

    let metrics = std::fs::read_to_string(dir.join("metrics.prom")).unwrap();
    let mut recorded = 0.0;
    for line in metrics.lines().filter(|line| !line.starts_with('#')) {
        let (series, value) = line.rsplit_once(' ').unwrap();
        let value: f64 = value.parse().unwrap_or_else(|_| panic!("not a sample: {line}"));
        assert!(series.starts_with("tickbot_") && series.ends_with('}'), "{line}");
        if series.starts_with("tickbot_games_recorded_total{") {
            recorded += value;
        }
    }
    assert_eq!(recorded, 28.0, "{metrics}");
    assert!(metrics.contains("tickbot_games_expected{dir=\"out\"} 28"), "{metrics}");
    assert!(!dir.join(".metrics.prom.part").exists());
}

#[test]
fn a_lock_held_by_another_process_is_seen_without_being_taken() {
    let temp = tempfile::tempdir().unwrap();
    let dir = temp.path();
    let out = finished_session(dir);
    let held = SessionDir::lock(&out).unwrap();
    let report = json_output(dir, &["status", "--json", "out"]);
    assert_eq!(report["dirs"][0]["state"], "running", "{report}");
    assert_eq!(report["dirs"][0]["pid"].as_u64(), Some(u64::from(std::process::id())));
    drop(held);
    let report = json_output(dir, &["status", "--json", "out"]);
    assert_eq!(report["dirs"][0]["state"], "ended", "{report}");
}

#[test]
fn status_refuses_what_is_not_a_session() {
    let temp = tempfile::tempdir().unwrap();
    let dir = temp.path();
    std::fs::write(dir.join("file"), "").unwrap();
    assert_bad_input(dir, &["status", "file"], "file is not a directory");
    assert_bad_input(dir, &["status", "--log", "x.jsonl", "a", "b"], "--log names the log of one directory");
    assert_bad_input(dir, &["status", "--watch", "--interval", "0", "a"], "expected seconds");
    // A directory not made yet is a shard not started.
    let report = json_output(dir, &["status", "--json", "later"]);
    assert_eq!(report["dirs"][0]["state"], "not_started", "{report}");

    let out = finished_session(dir);
    let results = out.join("results.jsonl");
    let text = std::fs::read_to_string(&results).unwrap();
    std::fs::write(&results, format!("garbage\n{text}")).unwrap();
    assert_bad_input(dir, &["status", "out"], "results.jsonl: line 1 is damaged");
    std::fs::write(out.join("manifest.json"), "{").unwrap();
    assert_bad_input(dir, &["status", "out"], "manifest.json: not a session manifest");
}

/// The samples of a Prometheus text file whose series name starts with
/// `prefix`, as (series, value).
fn samples(text: &str, prefix: &str) -> Vec<(String, f64)> {
    text.lines()
        .filter(|line| !line.starts_with('#') && line.starts_with(prefix))
        .map(|line| {
            let (series, value) = line.rsplit_once(' ').unwrap();
            (series.to_string(), value.parse().unwrap_or_else(|_| panic!("not a sample: {line}")))
        })
        .collect()
}

#[test]
fn a_run_with_metrics_leaves_the_figures_status_reads_from_its_directory() {
    let temp = tempfile::tempdir().unwrap();
    let dir = temp.path();
    write_session(dir, "8x8", 14);
    tickbot(dir)
        .args(["--log-dir", "out/logs", "run", "--config", "session.toml", "--out", "out", "--metrics", "run.prom"])
        .assert()
        .success();
    let written = std::fs::read_to_string(dir.join("run.prom")).unwrap();
    assert!(!dir.join(".run.prom.part").exists(), "the hidden file was renamed over the metrics file");
    let recorded: f64 = samples(&written, "tickbot_games_recorded_total{").iter().map(|(_, value)| value).sum();
    assert_eq!(recorded, result_lines(&dir.join("out")) as f64, "{written}");
    assert_eq!(recorded, 28.0, "{written}");
    assert_eq!(samples(&written, "tickbot_games_expected{"), [("tickbot_games_expected{dir=\"out\"}".into(), 28.0)]);
    assert_eq!(samples(&written, "tickbot_session_running{"), [("tickbot_session_running{dir=\"out\"}".into(), 0.0)]);
    // The same series as `tickbot status --metrics` reads from the directory.
    json_output(dir, &["status", "--json", "--metrics", "status.prom", "out"]);
    let read = std::fs::read_to_string(dir.join("status.prom")).unwrap();
    for prefix in
        ["tickbot_games_recorded_total{", "tickbot_games_expected{", "tickbot_faults{", "tickbot_eta_seconds{"]
    {
        assert_eq!(samples(&written, prefix), samples(&read, prefix), "{prefix}");
    }
    let names =
        |text: &str| text.lines().filter(|line| line.starts_with("# TYPE")).map(String::from).collect::<Vec<_>>();
    assert_eq!(names(&written), names(&read));
}

#[test]
fn a_metrics_file_that_cannot_be_written_is_a_warning_and_a_directory_is_refused() {
    let temp = tempfile::tempdir().unwrap();
    let dir = temp.path();
    write_session(dir, "8x8", 2);
    std::fs::create_dir(dir.join("metrics")).unwrap();
    let run =
        |metrics: &str| ["run", "--config", "session.toml", "--out", "out", "--metrics", metrics].map(String::from);
    let args = run("metrics");
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    assert_bad_input(dir, &args, "--metrics metrics: this is a directory");
    let args = run("missing/run.prom");
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    assert_bad_input(dir, &args, "the folder missing does not exist");
    assert!(!dir.join("out").exists(), "refused before the session started");
    // Its hidden .part a directory: every write fails, and the session
    // plays to its end all the same, with a warning in its log.
    std::fs::create_dir(dir.join(".run.prom.part")).unwrap();
    tickbot(dir)
        .args(["--log-dir", "logs", "run", "--config", "session.toml", "--out", "out", "--metrics", "run.prom"])
        .assert()
        .success();
    assert_eq!(result_lines(&dir.join("out")), 16);
    assert!(!dir.join("run.prom").exists());
    let log = std::fs::read_to_string(dir.join("logs/tickbot.jsonl")).unwrap();
    assert_eq!(log.matches("the metrics file was not written").count(), 1, "warned once: {log}");
}
