//! Long sessions through the real binary: a session killed with SIGKILL at
//! random moments and resumed ends with exactly the results and replays of
//! an uninterrupted one; a second session into a directory in use is
//! refused; a full disk (for the session's directory or for its log) and a
//! read-only directory stop a session cleanly (exit 4, one message naming
//! the path, nothing torn) and it resumes once the disk has room; the replay policies and the disk budget keep exactly
//! the replays they promise.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::{Command as StdCommand, Stdio};
use std::time::{Duration, Instant};

use tempfile::TempDir;

use crate::support::{replay_files, repo_path, shard_variables, tickbot};

/// A small session over three games; `snake_size` sets how long its Snake
/// games (and so its replays) are.
pub(crate) fn write_session(dir: &Path, snake_size: &str, snake_games: u32) -> PathBuf {
    let text = format!(
        "seed = 7\n\
         [[entry]]\nname = \"open\"\ngame = \"snake\"\nparams = {{ size = \"{snake_size}\" }}\ngames = {snake_games}\n\
         [[entry]]\nname = \"pipes\"\ngame = \"pipes\"\nlevel = [\"{pipes3}\", \"{pipes5}\"]\ngames = 8\n\
         [[entry]]\nname = \"flag\"\ngame = \"flag\"\nlevel = \"{flag}\"\ngames = 6\n",
        pipes3 = repo_path("maps/pipes/3x3-flat.txt").display(),
        pipes5 = repo_path("maps/pipes/5x5-wrap.txt").display(),
        flag = repo_path("maps/flag/round-03.txt").display(),
    );
    let path = dir.join("session.toml");
    std::fs::write(&path, text).unwrap();
    path
}

/// The results of a finished session, sorted by id, without the fields
/// that depend on the wall clock (`planner_us`, `elapsed_us`) or on where
/// the directory is (`replay`, replaced by the replay's bytes). Checks on
/// the way that every line is whole and no id is recorded twice.
pub(crate) fn comparable(dir: &Path, out: &str) -> Vec<(String, Vec<u8>)> {
    let out = dir.join(out);
    let text = std::fs::read_to_string(out.join("results.jsonl")).unwrap();
    assert!(text.is_empty() || text.ends_with('\n'), "a torn last line");
    let mut ids = BTreeSet::new();
    let mut lines: Vec<(String, Vec<u8>)> = text
        .lines()
        .map(|line| {
            let mut value: serde_json::Value =
                serde_json::from_str(line).unwrap_or_else(|error| panic!("{line:?}: {error}"));
            let object = value.as_object_mut().unwrap();
            assert!(ids.insert(object["id"].as_str().unwrap().to_string()), "{line} is recorded twice");
            object.remove("planner_us");
            object.remove("elapsed_us");
            let replay = object.remove("replay").unwrap();
            let bytes = std::fs::read(dir.join(replay.as_str().unwrap())).unwrap();
            (value.to_string(), bytes)
        })
        .collect();
    lines.sort();
    lines
}

pub(crate) fn result_lines(out: &Path) -> usize {
    std::fs::read_to_string(out.join("results.jsonl")).map_or(0, |text| text.lines().count())
}

pub(crate) fn part_files(dir: &Path) -> Vec<PathBuf> {
    let mut found = Vec::new();
    let mut pending = vec![dir.to_path_buf()];
    while let Some(dir) = pending.pop() {
        for entry in std::fs::read_dir(&dir).into_iter().flatten().flatten() {
            let path = entry.path();
            if path.is_dir() {
                pending.push(path);
            } else if path.extension().is_some_and(|extension| extension == "part") {
                found.push(path);
            }
        }
    }
    found
}

/// A small xorshift for the kill moments (test timing only, no game state).
fn next(state: &mut u64) -> u64 {
    *state ^= *state << 13;
    *state ^= *state >> 7;
    *state ^= *state << 17;
    *state
}

/// Runs `tickbot START...` in `dir`, then `tickbot RESUME...`, `rounds`
/// runs in all, with `env` set; each is killed with SIGKILL (no chance to
/// clean up) once a few more lines (a random number) are in `out`'s
/// results and a random moment more has passed. Returns how many runs were
/// killed (one that ended first is not). The caller finishes the session.
pub(crate) fn kill_and_resume(
    dir: &Path,
    out: &Path,
    start: &[&str],
    resume: &[&str],
    env: &[(&str, &str)],
    rounds: usize,
    state: &mut u64,
) -> usize {
    let binary = assert_cmd::cargo::cargo_bin("tickbot");
    let mut kills = 0;
    for round in 0..rounds {
        let mut command = StdCommand::new(&binary);
        command.current_dir(dir).env("TICKBOT_MOVE_BUDGET_MS", "600000");
        for name in shard_variables() {
            command.env_remove(name);
        }
        command.envs(env.iter().copied());
        command.args(if round == 0 { start } else { resume });
        let mut child = command.stdout(Stdio::null()).stderr(Stdio::null()).spawn().unwrap();
        let target = result_lines(out) + 1 + (next(state) % 4) as usize;
        let started = Instant::now();
        while result_lines(out) < target && child.try_wait().unwrap().is_none() {
            assert!(started.elapsed() < Duration::from_secs(120), "no progress in two minutes");
            std::thread::sleep(Duration::from_millis(2));
        }
        std::thread::sleep(Duration::from_millis(next(state) % 15));
        if child.try_wait().unwrap().is_none() {
            child.kill().unwrap();
            kills += 1;
        }
        child.wait().unwrap();
    }
    kills
}

#[test]
fn a_session_killed_at_random_moments_and_resumed_ends_as_an_uninterrupted_one() {
    let dir = TempDir::new().unwrap();
    // Boards big enough that the session lasts several group commits: it
    // must still be running when it is killed.
    let config = write_session(dir.path(), "20x20", 24);
    tickbot(dir.path())
        .args(["run", "--config", config.to_str().unwrap(), "--out", "whole", "--log-dir", "logs"])
        .assert()
        .success();
    let whole = comparable(dir.path(), "whole");
    assert_eq!(whole.len(), 38);

    let parts = dir.path().join("parts");
    let start = ["--log-dir", "logs", "run", "--config", config.to_str().unwrap(), "--out", "parts"];
    let resume = ["--log-dir", "logs", "run", "--resume", "parts"];
    let mut state = 0x9e37_79b9_7f4a_7c15;
    let kills = kill_and_resume(dir.path(), &parts, &start, &resume, &[], 4, &mut state);
    assert!(kills >= 3, "the session ended before it was killed three times ({kills})");
    tickbot(dir.path()).args(["--log-dir", "logs", "run", "--resume", "parts"]).assert().success();
    assert!(part_files(&parts).is_empty());
    assert_eq!(
        comparable(dir.path(), "parts"),
        whole,
        "the resumed session's results differ from the uninterrupted one's"
    );
    let replays = replay_files(&parts.join("replays"));
    assert_eq!(replays.len(), 38);
    tickbot(dir.path())
        .args(["replay", "verify", "parts/replays"])
        .assert()
        .success()
        .stdout(predicates::str::contains("38 replays: 38 reproduced, 0 diverged, 0 invalid"));
}

#[test]
fn resume_refuses_what_is_not_the_same_session() {
    let dir = TempDir::new().unwrap();
    let config = write_session(dir.path(), "6x6", 2);
    let config = config.to_str().unwrap();
    tickbot(dir.path()).args(["run", "--config", config, "--out", "s"]).assert().success();
    #[track_caller]
    fn check(dir: &Path, args: &[&str], code: i32, fragment: &str) {
        let output = tickbot(dir).args(args).output().unwrap();
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert_eq!(output.status.code(), Some(code), "{args:?}: {stderr}");
        assert!(stderr.contains(fragment), "{args:?} should say {fragment:?}: {stderr}");
    }
    check(dir.path(), &["run", "--config", config, "--out", "s"], 2, "already holds a session; continue it with");
    check(dir.path(), &["run", "--resume", "s", "--seed", "8"], 2, "--seed with --resume");
    check(dir.path(), &["run", "--resume", "nowhere"], 2, "nowhere has no manifest.json");
    let other = dir.path().join("other.toml");
    std::fs::write(&other, std::fs::read_to_string(config).unwrap().replace("seed = 7", "seed = 8")).unwrap();
    check(dir.path(), &["run", "--resume", "s", "--config", other.to_str().unwrap()], 2, "differs in: seed");
    let manifest = dir.path().join("s/manifest.json");
    let text = std::fs::read_to_string(&manifest).unwrap();
    std::fs::write(&manifest, text.replace(env!("CARGO_PKG_VERSION"), "0.0.0-old")).unwrap();
    check(dir.path(), &["run", "--resume", "s"], 2, "was started by tickbot 0.0.0-old");
    std::fs::write(&manifest, text).unwrap();
    // The same session resumes, and plays nothing more: it is complete.
    tickbot(dir.path())
        .args(["run", "--resume", "s", "--config", config])
        .assert()
        .success()
        .stdout(predicates::str::contains("finished 16 games"));
    // A torn last line is cut away and its game played again.
    let results = dir.path().join("s/results.jsonl");
    let whole = std::fs::read_to_string(&results).unwrap();
    std::fs::write(&results, &whole[..whole.len() - 10]).unwrap();
    tickbot(dir.path()).args(["run", "--resume", "s"]).assert().success();
    assert_eq!(comparable(dir.path(), "s").len(), 16);
}

#[test]
fn a_second_session_into_a_directory_in_use_is_refused_at_once() {
    let dir = TempDir::new().unwrap();
    let config = write_session(dir.path(), "12x12", 400);
    let binary = assert_cmd::cargo::cargo_bin("tickbot");
    let mut first = StdCommand::new(&binary)
        .current_dir(dir.path())
        .args(["run", "--config", config.to_str().unwrap(), "--out", "busy", "--jobs", "1"])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let started = Instant::now();
    while !dir.path().join("busy/manifest.json").exists() {
        assert!(started.elapsed() < Duration::from_secs(60));
        std::thread::sleep(Duration::from_millis(5));
    }
    let output = tickbot(dir.path()).args(["run", "--resume", "busy"]).output().unwrap();
    first.kill().unwrap();
    first.wait().unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("is in use by another session (process "), "{stderr}");
    // The killed session's lock is stale: a resume takes it.
    tickbot(dir.path()).args(["run", "--resume", "busy", "--games", "1"]).assert().code(2);
    let output = tickbot(dir.path()).args(["run", "--resume", "busy", "--duration", "1s"]).output().unwrap();
    assert_eq!(output.status.code(), Some(0), "{}", String::from_utf8_lossy(&output.stderr));
}

/// A tmpfs of `size` mounted at `path` for the life of the value, if this
/// machine lets us mount one (root, outside most containers' limits).
struct Tmpfs {
    path: PathBuf,
}

impl Tmpfs {
    fn mount(path: &Path, size: &str) -> Option<Tmpfs> {
        std::fs::create_dir_all(path).unwrap();
        let options = format!("size={size}");
        let mounted = StdCommand::new("mount")
            .args(["-t", "tmpfs", "-o", &options, "tmpfs"])
            .arg(path)
            .stderr(Stdio::null())
            .status()
            .is_ok_and(|status| status.success());
        mounted.then(|| Tmpfs { path: path.to_path_buf() })
    }

    fn remount(&self, options: &str) {
        let status = StdCommand::new("mount").args(["-o", options]).arg(&self.path).status().unwrap();
        assert!(status.success(), "remount {options}");
    }
}

impl Drop for Tmpfs {
    fn drop(&mut self) {
        let _ = StdCommand::new("umount").arg(&self.path).status();
    }
}

/// What a stopped session must leave: exit 4, one error naming a path in
/// `out`, whole lines in the results and the log, no `.part` file.
#[track_caller]
fn check_stopped_cleanly(output: &std::process::Output, out: &Path, log: &Path) {
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(4), "{stderr}");
    let errors: Vec<&str> = stderr.lines().filter(|line| line.starts_with("error:")).collect();
    assert_eq!(errors.len(), 1, "{stderr}");
    assert!(errors[0].contains(&out.display().to_string()), "the message names no path in {}: {stderr}", out.display());
    for file in [out.join("results.jsonl"), log.to_path_buf()] {
        let text = std::fs::read_to_string(&file).unwrap_or_default();
        assert!(text.is_empty() || text.ends_with('\n'), "{} ends in a torn line", file.display());
        for line in text.lines() {
            serde_json::from_str::<serde_json::Value>(line).unwrap_or_else(|error| panic!("{line:?}: {error}"));
        }
    }
    assert!(part_files(out).is_empty(), "{:?}", part_files(out));
}

#[test]
#[allow(clippy::print_stderr)] // says when it is skipped, and how to check by hand
fn a_full_disk_stops_the_session_cleanly_and_it_resumes_once_there_is_room() {
    let dir = TempDir::new().unwrap();
    let Some(disk) = Tmpfs::mount(&dir.path().join("disk"), "64k") else {
        eprintln!(
            "skipped: cannot mount a tmpfs here (needs root). Manual check: mount a 64k tmpfs, run a session into \
             it with --log-dir on it too, expect exit 4 and one error naming the file; remount it larger and \
             `run --resume` finishes"
        );
        return;
    };
    let config = write_session(dir.path(), "10x10", 12);
    let out = disk.path.join("out");
    let log_dir = disk.path.join("logs");
    let output = tickbot(dir.path())
        .args(["--log-dir", log_dir.to_str().unwrap(), "run", "--config", config.to_str().unwrap()])
        .args(["--out", out.to_str().unwrap()])
        .output()
        .unwrap();
    check_stopped_cleanly(&output, &out, &log_dir.join("tickbot.jsonl"));
    let recorded = result_lines(&out);
    disk.remount("remount,size=20m");
    tickbot(dir.path())
        .args(["--log-dir", log_dir.to_str().unwrap(), "run", "--resume", out.to_str().unwrap()])
        .assert()
        .success();
    assert!(result_lines(&out) > recorded);
    assert_eq!(comparable(Path::new("/"), out.to_str().unwrap()).len(), 26);
    tickbot(dir.path()).arg("replay").arg("verify").arg(out.join("replays")).assert().success();
}

#[test]
#[allow(clippy::print_stderr)] // says when it is skipped, and how to check by hand
fn a_log_that_cannot_be_written_stops_the_session_and_it_resumes_into_the_uninterrupted_results() {
    let dir = TempDir::new().unwrap();
    let Some(disk) = Tmpfs::mount(&dir.path().join("logs"), "16k") else {
        eprintln!(
            "skipped: cannot mount a tmpfs here (needs root). Manual check: mount a 16k tmpfs, run a session with \
             --log-dir on it, expect exit 4 and one error naming the log file; remount it larger and `run --resume` \
             finishes with the results of an uninterrupted run"
        );
        return;
    };
    // About 40 log lines fill the 16k disk; the session has 74 games, two lines each.
    let config = write_session(dir.path(), "6x6", 60);
    tickbot(dir.path())
        .args(["--log-dir", "whole-logs", "run", "--config", config.to_str().unwrap(), "--out", "whole"])
        .assert()
        .success();
    let log = disk.path.join("tickbot.jsonl");
    let logs = disk.path.to_str().unwrap();
    let output = tickbot(dir.path())
        .args(["--log-dir", logs, "run", "--config", config.to_str().unwrap(), "--out", "parts"])
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(4), "{stderr}");
    let errors: Vec<&str> = stderr.lines().filter(|line| line.starts_with("error:")).collect();
    assert!(errors.len() == 1 && errors[0].contains(&log.display().to_string()), "{stderr}");
    let parts = dir.path().join("parts");
    let recorded = result_lines(&parts);
    assert!(recorded < 74, "the session went on past the full log ({recorded} games)");
    assert!(part_files(&parts).is_empty(), "{:?}", part_files(&parts));
    let text = std::fs::read_to_string(&log).unwrap();
    assert!(text.is_empty() || text.ends_with('\n'), "the log ends in a torn line");
    // Every recorded game's `game_end` line is in the log: none is recorded
    // whose log line was lost.
    let ends = text.lines().filter(|line| line.contains("\"game_end\"")).count();
    assert!(ends >= recorded, "{recorded} games recorded, {ends} game_end lines");
    disk.remount("remount,size=20m");
    tickbot(dir.path()).args(["--log-dir", logs, "run", "--resume", "parts"]).assert().success();
    assert_eq!(comparable(dir.path(), "parts"), comparable(dir.path(), "whole"));
}

#[test]
#[allow(clippy::print_stderr)] // says when it is skipped, and how to check by hand
fn a_read_only_directory_stops_the_session_with_one_clear_error() {
    let dir = TempDir::new().unwrap();
    let config = write_session(dir.path(), "6x6", 4);
    let Some(disk) = Tmpfs::mount(&dir.path().join("disk"), "20m") else {
        eprintln!(
            "skipped: cannot mount a tmpfs here (needs root; as root a chmod does not stop writes). Manual check: \
             `mount -o remount,ro` a session's filesystem and `run --resume` it: exit 4, one error naming the lock \
             file, results untouched"
        );
        return;
    };
    let out = disk.path.join("out");
    let log_dir = dir.path().join("logs");
    tickbot(dir.path())
        .args(["--log-dir", log_dir.to_str().unwrap(), "run", "--config", config.to_str().unwrap(), "--games", "5"])
        .args(["--out", out.to_str().unwrap()])
        .assert()
        .success();
    let before = std::fs::read(out.join("results.jsonl")).unwrap();
    disk.remount("remount,ro");
    let output = tickbot(dir.path())
        .args(["--log-dir", log_dir.to_str().unwrap(), "run", "--resume", out.to_str().unwrap()])
        .output()
        .unwrap();
    check_stopped_cleanly(&output, &out, &log_dir.join("tickbot.jsonl"));
    assert_eq!(std::fs::read(out.join("results.jsonl")).unwrap(), before);
    disk.remount("remount,rw");
}

/// Each results line of `out` as (outcome, replay path if one was kept).
fn outcomes_and_replays(dir: &Path, out: &str) -> Vec<(String, Option<String>)> {
    let text = std::fs::read_to_string(dir.join(out).join("results.jsonl")).unwrap();
    let mut lines: Vec<(String, String, Option<String>)> = text
        .lines()
        .map(|line| {
            let value: serde_json::Value = serde_json::from_str(line).unwrap();
            let replay = value["replay"].as_str().map(str::to_string);
            (value["id"].as_str().unwrap().to_string(), value["outcome"].as_str().unwrap().to_string(), replay)
        })
        .collect();
    lines.sort();
    lines.into_iter().map(|(_, outcome, replay)| (outcome, replay)).collect()
}

#[test]
fn replay_policies_and_the_disk_budget_decide_which_games_keep_a_replay() {
    let dir = TempDir::new().unwrap();
    let session = |out: &str, extra: &[&str]| {
        let mut args = vec!["run", "--games", "30", "--jobs", "1", "--seed", "3", "--out", out];
        args.extend_from_slice(extra);
        args.extend_from_slice(&["snake", "--planner", "bfs-tail", "--size", "6x6"]);
        tickbot(dir.path()).args(&args).assert().success().get_output().stdout.clone()
    };

    // failures: a replay for every game not won, none for the others.
    session("failures", &["--replays", "failures"]);
    let games = outcomes_and_replays(dir.path(), "failures");
    assert_eq!(games.len(), 30);
    let won = games.iter().filter(|(outcome, _)| outcome == "won").count();
    assert!(won > 0 && won < 30, "the test needs both kinds: {games:?}");
    for (outcome, replay) in &games {
        assert_eq!(replay.is_some(), outcome != "won", "{outcome} {replay:?}");
    }
    assert_eq!(replay_files(&dir.path().join("failures/replays")).len(), 30 - won);

    // sample=0.5: some games, the same ones in another run of the session.
    session("sample", &["--replays", "sample=0.5"]);
    session("sample-again", &["--replays", "sample=0.5"]);
    let kept = |out: &str| -> Vec<bool> {
        outcomes_and_replays(dir.path(), out).iter().map(|(_, replay)| replay.is_some()).collect()
    };
    let sampled = kept("sample");
    let count = sampled.iter().filter(|&&kept| kept).count();
    assert!(count > 0 && count < 30, "{sampled:?}");
    assert_eq!(sampled, kept("sample-again"), "the sample depends on the seeds only");

    // A disk budget of one byte: the first game keeps its replay (nothing
    // is used when it starts), every later one none, and the session says so.
    let stdout = session("budget", &["--disk-budget", "1"]);
    assert!(String::from_utf8_lossy(&stdout).contains("the disk budget was reached"));
    assert_eq!(kept("budget"), [vec![true], vec![false; 29]].concat());
    assert_eq!(replay_files(&dir.path().join("budget/replays")).len(), 1);
    tickbot(dir.path())
        .args(["replay", "verify", "failures/replays", "sample/replays", "budget/replays"])
        .assert()
        .success();
}
