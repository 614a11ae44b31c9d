//! What the binary does with input files that are not what they should
//! be: a FIFO (which would block `open`), a device that never ends, a
//! regular file far larger than its format allows, a results line torn in
//! the middle; and a command blocked in `open` stopped by a signal.

use std::path::Path;
use std::time::Duration;

use tempfile::TempDir;

use crate::support::{repo_path, tickbot};

/// Long enough for a debug build on a loaded machine; a command that
/// waits on a FIFO never finishes at all.
const NEVER: Duration = Duration::from_secs(120);

#[cfg(unix)]
fn mkfifo(path: &Path) {
    let made = std::process::Command::new("mkfifo").arg(path).status().expect("mkfifo runs");
    assert!(made.success(), "mkfifo {}", path.display());
}

/// Runs the binary with `args` in `dir` (ended after [`NEVER`]) and checks
/// its exit code and that stdout or stderr says `fragment`.
#[track_caller]
fn check(dir: &Path, args: &[&str], code: i32, fragment: &str) {
    let output = tickbot(dir).args(args).timeout(NEVER).output().unwrap();
    let (stdout, stderr) = (String::from_utf8_lossy(&output.stdout), String::from_utf8_lossy(&output.stderr));
    assert_eq!(output.status.code(), Some(code), "{args:?}\nstdout: {stdout}\nstderr: {stderr}");
    assert!(
        stdout.contains(fragment) || stderr.contains(fragment),
        "{args:?} should say {fragment:?}\nstdout: {stdout}\nstderr: {stderr}"
    );
    assert!(!stderr.contains("panicked"), "{args:?} panicked: {stderr}");
}

/// A FIFO among the replays is skipped (said so) rather than waited on;
/// named as a replay, a map, a session file or results, it is refused.
#[cfg(unix)]
#[test]
fn a_fifo_is_skipped_or_refused_never_waited_on() {
    let dir = TempDir::new().unwrap();
    let replays = dir.path().join("replays");
    std::fs::create_dir(&replays).unwrap();
    std::fs::copy(repo_path("replays/snake-4x4-seed1.tbr"), replays.join("snake.tbr")).unwrap();
    mkfifo(&replays.join("x.tbr"));
    check(
        dir.path(),
        &["replay", "verify", "replays"],
        0,
        "skipped   replays/x.tbr: a FIFO (named pipe), not a replay file",
    );
    check(dir.path(), &["replay", "verify", "replays"], 0, "1 replays: 1 reproduced, 0 diverged, 0 invalid (1 skipped");
    let json = crate::support::json_output(dir.path(), &["replay", "verify", "--json", "replays"]);
    assert_eq!(json["skipped"][0]["path"], "replays/x.tbr", "{json}");
    check(dir.path(), &["replay", "stats", "replays"], 0, "skipped   replays/x.tbr");
    check(dir.path(), &["replay", "show", "replays/x.tbr"], 2, "replays/x.tbr: a FIFO (named pipe), not a replay file");
    check(dir.path(), &["play", "snake", "--map", "replays/x.tbr"], 2, "a FIFO (named pipe), not a level file");
    check(
        dir.path(),
        &["run", "--config", "replays/x.tbr"],
        2,
        "replays/x.tbr is a FIFO (named pipe), not a regular file",
    );
    check(dir.path(), &["stats", "replays/x.tbr"], 2, "replays/x.tbr is a FIFO (named pipe), not a results file");
}

/// `/dev/zero` never ends: it is refused as a device at once, not read
/// until memory runs out (and `stats` no longer calls it missing).
#[cfg(unix)]
#[test]
fn a_device_is_refused_at_once_as_a_device() {
    let dir = TempDir::new().unwrap();
    check(dir.path(), &["stats", "/dev/zero"], 2, "/dev/zero is a character device, not a results file");
    check(dir.path(), &["replay", "show", "/dev/zero"], 2, "/dev/zero: a character device, not a replay file");
    check(dir.path(), &["replay", "verify", "/dev/zero"], 2, "skipped   /dev/zero: a character device");
    check(dir.path(), &["run", "--config", "/dev/zero"], 2, "/dev/zero is a character device, not a regular file");
    check(dir.path(), &["play", "snake", "--map", "/dev/zero"], 2, "/dev/zero: a character device, not a level file");
    check(dir.path(), &["merge", "/dev/zero", "--out", "m"], 2, "/dev/zero has no manifest.json");
}

/// Regular files past their format's limit fail at once with the limit
/// named (sparse files: they take no disk).
#[test]
fn a_file_larger_than_its_format_allows_is_refused_without_reading_it_whole() {
    let dir = TempDir::new().unwrap();
    let sparse = |name: &str, length: u64| {
        let file = std::fs::File::create(dir.path().join(name)).unwrap();
        file.set_len(length).unwrap();
    };
    sparse("huge.toml", (1 << 20) + 1);
    check(
        dir.path(),
        &["run", "--config", "huge.toml"],
        2,
        "huge.toml is larger than 1048576 bytes: not a session file",
    );
    sparse("huge.tbr", (1 << 30) + 1);
    // The magic number is checked first: zeros are not a replay.
    check(dir.path(), &["replay", "verify", "huge.tbr"], 3, "not a tickbot replay");
    let mut start = std::fs::read(repo_path("replays/snake-4x4-seed1.tbr")).unwrap();
    start.truncate(64);
    let file = std::fs::OpenOptions::new().write(true).open(dir.path().join("huge.tbr")).unwrap();
    std::io::Write::write_all(&mut &file, &start).unwrap();
    check(dir.path(), &["replay", "verify", "huge.tbr"], 3, "larger than 1073741824 bytes: not a replay");
    check(dir.path(), &["replay", "show", "huge.tbr"], 3, "larger than 1073741824 bytes: not a replay");
    // One results "line" of 2 MiB: past the longest line read.
    sparse("results.jsonl", 2 << 20);
    check(dir.path(), &["stats", "results.jsonl"], 2, "longer than 1048576 bytes: not a results file");
}

/// A results line cut in the middle of a value, then more lines: the error
/// names the line and the column where it stops, not column 0.
#[test]
fn a_line_torn_in_the_middle_of_a_results_file_is_reported_where_it_stops() {
    let dir = TempDir::new().unwrap();
    tickbot(dir.path()).args(["run", "--games", "2", "snake", "--size", "4x4"]).assert().success();
    let path = dir.path().join("out/results.jsonl");
    let text = std::fs::read_to_string(&path).unwrap();
    let first = text.lines().next().unwrap();
    let torn = &first[..40];
    std::fs::write(&path, format!("{torn}\n{text}")).unwrap();
    let place = format!("out/results.jsonl:1:{}: not a results line", torn.chars().count() + 1);
    check(dir.path(), &["stats", "out"], 2, &place);
}

/// A command blocked in `open` (here, `render` creating its `.part` file,
/// which someone made a FIFO nobody reads) cannot poll the interrupt flag:
/// SIGTERM still ends it, with exit 130, a few seconds later.
#[cfg(unix)]
#[test]
fn sigterm_ends_a_command_blocked_in_open() {
    use std::process::{Command, Stdio};
    use std::time::Instant;

    let dir = TempDir::new().unwrap();
    mkfifo(&dir.path().join("snake.html.part"));
    let replay = repo_path("replays/snake-4x4-seed1.tbr");
    let mut child = Command::new(assert_cmd::cargo::cargo_bin("tickbot"))
        .current_dir(dir.path())
        .args(["replay", "render", replay.to_str().unwrap(), "--out", "snake.html"])
        .env_remove("RUST_LOG")
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // Wait until the main thread waits for the FIFO's other end, so the
    // signal handlers are surely installed (where the kernel does not say,
    // a few seconds do).
    let wchan = format!("/proc/{}/wchan", child.id());
    let started = Instant::now();
    loop {
        let waiting = std::fs::read_to_string(&wchan).unwrap_or_default();
        if waiting.contains("fifo") || waiting.contains("partner") {
            break;
        }
        if (waiting.is_empty() || waiting == "0") && started.elapsed() > Duration::from_secs(5) {
            break;
        }
        assert!(started.elapsed() < NEVER, "never blocked in open ({waiting:?})");
        std::thread::sleep(Duration::from_millis(20));
    }
    let sent = Command::new("kill").args(["-TERM", &child.id().to_string()]).status().unwrap();
    assert!(sent.success());
    let signalled = Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        if signalled.elapsed() > NEVER {
            let _ = child.kill();
            panic!("still running {} s after SIGTERM", NEVER.as_secs());
        }
        std::thread::sleep(Duration::from_millis(50));
    };
    let mut stderr = String::new();
    std::io::Read::read_to_string(&mut child.stderr.take().unwrap(), &mut stderr).unwrap();
    assert_eq!(status.code(), Some(130), "{stderr}");
    assert!(stderr.contains("still running 10 s after the signal"), "{stderr}");
}
