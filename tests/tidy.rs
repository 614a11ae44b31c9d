//! The architecture's invariants (ARCHITECTURE.md), checked on the source
//! text so they stay true: who may name the codec, who may do I/O or await,
//! what may never feed a replay, and that every file says what it owns.

use std::path::{Path, PathBuf};

use crate::support::repo_root;

struct SourceFile {
    /// Relative to the repository root, with `/` separators.
    path: String,
    text: String,
}

fn rust_files(dir: &str) -> Vec<SourceFile> {
    let mut files = Vec::new();
    let mut pending = vec![repo_root().join(dir)];
    while let Some(dir) = pending.pop() {
        let Ok(entries) = std::fs::read_dir(&dir) else { continue };
        for entry in entries {
            let path: PathBuf = entry.unwrap().path();
            if path.is_dir() {
                pending.push(path);
            } else if path.extension().is_some_and(|extension| extension == "rs") {
                let text = std::fs::read_to_string(&path).unwrap();
                let relative = path.strip_prefix(repo_root()).unwrap();
                files.push(SourceFile { path: slash_path(relative), text });
            }
        }
    }
    assert!(!files.is_empty(), "no Rust files under {dir}");
    files
}

fn slash_path(path: &Path) -> String {
    path.components().map(|part| part.as_os_str().to_string_lossy()).collect::<Vec<_>>().join("/")
}

/// Lines of shipped code: no comments (prose may name anything) and nothing
/// from the first `#[cfg(test)]` on (tests may use floats and the like).
fn code_lines(text: &str) -> impl Iterator<Item = (usize, &str)> {
    text.lines()
        .enumerate()
        .map(|(index, line)| (index + 1, line))
        .take_while(|(_, line)| line.trim() != "#[cfg(test)]")
        .filter(|(_, line)| !line.trim_start().starts_with("//"))
}

#[track_caller]
fn forbid(files: &[SourceFile], allowed: &[&str], needles: &[&str], why: &str) {
    let mut offences = Vec::new();
    for file in files.iter().filter(|file| !allowed.contains(&file.path.as_str())) {
        for (line_no, line) in code_lines(&file.text) {
            for needle in needles {
                if line.contains(needle) {
                    offences.push(format!("{}:{line_no}: {needle}", file.path));
                }
            }
        }
    }
    assert!(offences.is_empty(), "{why}:\n{}", offences.join("\n"));
}

#[test]
fn only_the_codec_module_names_bincode() {
    forbid(&rust_files("src"), &["src/replay/codec.rs"], &["bincode"], "bincode is named outside src/replay/codec.rs");
}

#[test]
fn games_know_nothing_of_io_async_logging_or_clocks() {
    let game_files: Vec<SourceFile> = rust_files("src/game");
    forbid(
        &game_files,
        &[],
        &["tokio", "tracing", "std::fs", "File::", "Instant", "SystemTime", "println!", "replay::"],
        "game/ must stay a pure function of config, seed and actions",
    );
}

#[test]
fn nothing_nondeterministic_can_reach_game_state() {
    let files = rust_files("src");
    forbid(
        &files,
        &[],
        &[
            "thread_rng",
            "StdRng",
            "rand::rng()",
            "gen_range",
            "random_range",
            "SliceRandom",
            "DefaultHasher",
            "from_entropy",
        ],
        "randomness must come from GameRng; hashes from xxh3",
    );
    let game_files = rust_files("src/game");
    // Planners may keep lookup-only hash tables (bfs-tail counts visits per
    // body configuration) and score with floats: what they decide is
    // recorded as actions, so the replay does not depend on how. Each must
    // still be deterministic for a seed, which its own tests check. The
    // rules, which make the state, may use neither.
    forbid(&game_files, PLANNER_FILES, &["HashMap", "HashSet"], "game state must not depend on hash-table order");
    forbid(&game_files, PLANNER_FILES, &["f32", "f64"], "game state must not depend on float arithmetic");
}

/// Files in `src/game/` that hold planners, not rules.
const PLANNER_FILES: &[&str] = &[
    "src/game/snake/bfs_tail.rs",
    "src/game/flag/exact.rs",
    "src/game/flag/ga.rs",
    "src/game/slide/astar.rs",
    "src/game/slide/idastar.rs",
    "src/game/slide/ga.rs",
    "src/game/slide/pdb.rs",
    "src/game/pipes/dfs.rs",
    "src/game/pipes/astar.rs",
    "src/game/pipes/solve.rs",
    "src/game/locm/baselines.rs",
    "src/game/locm/bots.rs",
];

/// The binary's files: everything else is the library.
fn is_binary(path: &str) -> bool {
    path == "src/main.rs" || path == "src/commands.rs" || path.starts_with("src/cli/")
}

#[test]
fn only_the_session_runner_awaits() {
    let library: Vec<SourceFile> = rust_files("src").into_iter().filter(|file| !is_binary(&file.path)).collect();
    forbid(&library, &["src/session.rs"], &[".await", "async fn", "tokio::"], "async belongs in src/session.rs");
}

#[test]
fn only_the_binary_prints() {
    let library: Vec<SourceFile> = rust_files("src").into_iter().filter(|file| !is_binary(&file.path)).collect();
    forbid(
        &library,
        &[],
        &["println!", "print!(", "eprintln!", "eprint!(", "std::io::stdout"],
        "only the binary prints",
    );
    forbid(&library, &[], &["anyhow"], "anyhow is for the binary");
}

#[test]
fn every_file_says_what_it_owns() {
    let mut files = rust_files("src");
    files.extend(rust_files("tests"));
    files.extend(rust_files("benches"));
    let silent: Vec<&str> =
        files.iter().filter(|file| !file.text.starts_with("//!")).map(|file| file.path.as_str()).collect();
    assert!(silent.is_empty(), "files without a leading //! line: {silent:?}");
}
