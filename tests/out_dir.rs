//! Where a session may write: `run --out` refuses the filesystem's root,
//! the home directory, a file and a directory holding other things, and
//! does so before any expensive set-up; `--overwrite` deletes only what a
//! session wrote; `merge` clears the staging folders of merges that were
//! killed.

use std::path::{Path, PathBuf};

use tempfile::TempDir;

use crate::support::{assert_bad_input, tickbot};

fn names(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|entry| entry.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

#[test]
fn run_refuses_the_root_the_home_directory_files_and_unrelated_directories() {
    let dir = TempDir::new().unwrap();
    let run = ["run", "--games", "1", "snake", "--size", "4x4", "--out"];
    fn with_out<'a>(run: &[&'a str], out: &'a str) -> Vec<&'a str> {
        [run, &[out]].concat()
    }
    let with_out = |out: &'static str| with_out(&run, out);
    // The root, with a board that cannot be built: the directory is
    // checked first, and a build that does not check it writes nothing.
    assert_bad_input(
        dir.path(),
        &["run", "--games", "1", "--out", "/", "snake", "--size", "1x1"],
        "--out / is the root of the filesystem",
    );
    // The home directory, wherever it is.
    let home = dir.path().join("home");
    std::fs::create_dir(&home).unwrap();
    tickbot(dir.path())
        .env("HOME", &home)
        .args(run)
        .arg(&home)
        .assert()
        .code(2)
        .stderr(predicates::str::contains("is your home directory"));
    assert!(names(&home).is_empty(), "nothing written into the home directory");
    // A directory holding something that is not a session.
    std::fs::create_dir(dir.path().join("photos")).unwrap();
    std::fs::write(dir.path().join("photos/cat.jpg"), "meow").unwrap();
    assert_bad_input(dir.path(), &with_out("photos"), "--out photos is not empty and holds no session");
    assert_bad_input(dir.path(), &[&with_out("photos")[..], &["--overwrite"]].concat(), "holds no session");
    assert_eq!(names(&dir.path().join("photos")), ["cat.jpg"]);
    // A file, and a path through a file: bad input, not a runtime failure.
    std::fs::write(dir.path().join("notes.txt"), "mine").unwrap();
    assert_bad_input(dir.path(), &with_out("notes.txt"), "--out notes.txt: this is a regular file, not a directory");
    assert_bad_input(dir.path(), &with_out("notes.txt/s"), "notes.txt is a file, not a directory");
    assert_bad_input(
        dir.path(),
        &["--log-dir", "notes.txt", "run", "--games", "1", "snake", "--size", "4x4"],
        "--log-dir notes.txt: this is a file, not a directory",
    );
    assert_bad_input(dir.path(), &["run", "--resume", "notes.txt"], "--resume notes.txt: this is a file");
    assert_eq!(std::fs::read_to_string(dir.path().join("notes.txt")).unwrap(), "mine");
    // An empty directory, and one holding only this run's log folder, are fine.
    std::fs::create_dir(dir.path().join("empty")).unwrap();
    tickbot(dir.path()).args(with_out("empty")).assert().success();
    tickbot(dir.path())
        .args(["--log-dir", "own/logs", "run", "--games", "1", "--out", "own", "snake", "--size", "4x4"])
        .assert()
        .success();
}

#[test]
fn overwrite_deletes_only_what_a_session_wrote() {
    let dir = TempDir::new().unwrap();
    let run = ["run", "--games", "2", "snake", "--size", "4x4"];
    tickbot(dir.path()).args(run).assert().success();
    let out = dir.path().join("out");
    std::fs::write(out.join("notes.txt"), "mine").unwrap();
    std::fs::write(out.join("replays/README"), "mine too").unwrap();
    let kept = out.join("replays/keep");
    std::fs::create_dir(&kept).unwrap();
    std::fs::write(kept.join("plot.svg"), "<svg/>").unwrap();
    assert_bad_input(dir.path(), &run, "out already holds a session");
    tickbot(dir.path()).args(run).arg("--overwrite").assert().success();
    assert_eq!(std::fs::read_to_string(out.join("notes.txt")).unwrap(), "mine");
    assert_eq!(std::fs::read_to_string(out.join("replays/README")).unwrap(), "mine too");
    assert_eq!(std::fs::read_to_string(kept.join("plot.svg")).unwrap(), "<svg/>");
    assert_eq!(std::fs::read_to_string(out.join("results.jsonl")).unwrap().lines().count(), 2, "the new session's");
}

/// Holds `out`'s session lock the way a running session does, until
/// dropped.
fn hold_lock(out: &Path) -> std::fs::File {
    std::fs::create_dir_all(out).unwrap();
    let lock = std::fs::File::create(out.join("session.lock")).unwrap();
    fs4::FileExt::try_lock(&lock).unwrap();
    std::io::Write::write_all(&mut &lock, format!("{}\n", std::process::id()).as_bytes()).unwrap();
    lock
}

/// A run that will be refused (the directory in use, or holding a
/// session) is refused before it builds pattern databases: none is
/// written to the empty cache.
#[test]
fn a_refused_run_builds_no_pattern_database_first() {
    let dir = TempDir::new().unwrap();
    let cache: PathBuf = dir.path().join("cache");
    let run = |out: &str| {
        let args =
            ["run", "--games", "1", "--out", out, "slide", "--size", "4", "--planner", "idastar", "--pdb", "6-6-3"];
        let pdb_dir = ["--pdb-dir", cache.to_str().unwrap()];
        tickbot(dir.path()).args(args).args(pdb_dir).timeout(std::time::Duration::from_secs(120)).output().unwrap()
    };
    let _lock = hold_lock(&dir.path().join("busy"));
    let output = run("busy");
    assert_eq!(output.status.code(), Some(2), "{}", String::from_utf8_lossy(&output.stderr));
    assert!(String::from_utf8_lossy(&output.stderr).contains("busy is in use by another session"));
    std::fs::create_dir(dir.path().join("done")).unwrap();
    std::fs::write(dir.path().join("done/results.jsonl"), "").unwrap();
    let output = run("done");
    assert_eq!(output.status.code(), Some(2), "{}", String::from_utf8_lossy(&output.stderr));
    assert!(String::from_utf8_lossy(&output.stderr).contains("done already holds a session"));
    assert!(!cache.exists() || names(&cache).is_empty(), "pattern databases built: {:?}", names(&cache));
}

/// A merge killed part way (`kill -9`) leaves `.NAME.merging-PID`: the
/// next merge into NAME removes it, but not one a running merge holds.
#[test]
fn a_merge_removes_the_staging_folders_of_killed_merges() {
    let temp = TempDir::new().unwrap();
    let dir = temp.path();
    let config = crate::session::write_session(dir, "4x4", 2);
    let config = config.to_str().unwrap();
    for shard in ["0/2", "1/2"] {
        let out = format!("shard-{}", &shard[..1]);
        tickbot(dir).args(["run", "--config", config, "--out", &out, "--shard", shard]).assert().success();
    }
    // Left by killed merges: one with its unlocked lock file, one without.
    for pid in ["4000001", "4000002"] {
        let stale = dir.join(format!(".m.merging-{pid}"));
        std::fs::create_dir_all(stale.join("replays")).unwrap();
        std::fs::write(stale.join("results.jsonl"), "{}\n").unwrap();
    }
    std::fs::write(dir.join(".m.merging-4000001.lock"), "").unwrap();
    // A merge running now (its lock held).
    let running = dir.join(".m.merging-4000003");
    std::fs::create_dir(&running).unwrap();
    let lock = std::fs::File::create(dir.join(".m.merging-4000003.lock")).unwrap();
    fs4::FileExt::try_lock(&lock).unwrap();
    std::fs::write(dir.join("notes.txt"), "mine").unwrap();
    crate::support::assert_bad_input(
        dir,
        &["merge", "shard-0", "shard-1", "--out", "notes.txt"],
        "--out notes.txt is a file, not a directory",
    );
    tickbot(dir).args(["merge", "shard-0", "shard-1", "--out", "m"]).assert().success();
    let left: Vec<String> = names(dir).into_iter().filter(|name| name.contains("merging")).collect();
    assert_eq!(left, [".m.merging-4000003", ".m.merging-4000003.lock"]);
    tickbot(dir).args(["replay", "verify", "m/replays"]).assert().success();
}
