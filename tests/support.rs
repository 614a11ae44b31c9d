//! Helpers shared by the integration tests: playing and recording games in
//! memory, and locating the repository.

use std::path::{Path, PathBuf};

use assert_cmd::Command;

use tickbot::game::snake::plan::bfs_tail::BfsTail;
use tickbot::game::snake::{Config, SnakeGame, SnakeSetup};
use tickbot::replay::{self, Replay};

pub(crate) fn repo_root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

pub(crate) fn repo_path(relative: &str) -> PathBuf {
    repo_root().join(relative)
}

/// The real binary, run in `dir` the way a user runs it, with a generous
/// per-move budget: tests run planners unoptimised on shared machines, where
/// the default 10 s could turn a win into "aborted".
pub(crate) fn tickbot(dir: &Path) -> Command {
    let mut command = Command::cargo_bin("tickbot").expect("the binary is built");
    command.current_dir(dir).env_remove("RUST_LOG").env("TICKBOT_MOVE_BUDGET_MS", "600000");
    for name in shard_variables() {
        command.env_remove(name);
    }
    command
}

/// The batch engines' array variables `run` reads: removed from every test
/// run of the binary, so tests run inside a job array play whole sessions.
pub(crate) fn shard_variables() -> impl Iterator<Item = &'static str> {
    use tickbot::session::shard::{COUNT_VARIABLES, INDEX_VARIABLES, SLURM_MIN};
    INDEX_VARIABLES.into_iter().chain(COUNT_VARIABLES).chain([SLURM_MIN])
}

pub(crate) fn chuyangliu() -> Config {
    Config::try_from(SnakeSetup::chuyangliu()).expect("the preset is valid")
}

pub(crate) fn open_board(width: u16, height: u16) -> Config {
    Config::try_from(SnakeSetup::open(width, height)).expect("an open board is valid")
}

/// Plays one Snake game with bfs-tail and returns its replay, built in memory
/// exactly as the session records it.
pub(crate) fn record_snake(config: &Config, seed: u64) -> Replay {
    replay::record::<SnakeGame>(config, seed, &mut BfsTail::new(config)).expect("bfs-tail plays legal moves")
}

/// Every `*.tbr` file below `dir`, sorted.
pub(crate) fn replay_files(dir: &Path) -> Vec<PathBuf> {
    let mut found = Vec::new();
    let mut pending = vec![dir.to_path_buf()];
    while let Some(dir) = pending.pop() {
        for entry in std::fs::read_dir(&dir).expect("readable directory") {
            let path = entry.expect("readable entry").path();
            if path.is_dir() {
                pending.push(path);
            } else if path.extension().is_some_and(|extension| extension == "tbr") {
                found.push(path);
            }
        }
    }
    found.sort();
    found
}

/// Runs the binary with `args` in `dir` and checks that it refuses them as
/// bad input: exit code 2, and `message` in what it prints on stderr.
pub(crate) fn assert_bad_input(dir: &Path, args: &[&str], message: &str) {
    tickbot(dir).args(args).assert().code(2).stderr(predicates::str::contains(message));
}

/// Runs the binary with `args` in `dir`, checks that it succeeds (showing
/// its stderr if not), and returns the one JSON document it printed.
#[track_caller]
pub(crate) fn json_output(dir: &Path, args: &[&str]) -> serde_json::Value {
    let output = tickbot(dir).args(args).output().expect("the binary runs");
    assert!(output.status.success(), "{args:?}: {}", String::from_utf8_lossy(&output.stderr));
    serde_json::from_slice(&output.stdout).unwrap_or_else(|error| panic!("{args:?} printed no JSON document: {error}"))
}
