//! Snake end to end: the `cycle` planner records the same bytes for the same
//! seed and its replays verify; it never loses on an odd-sided rectangle or
//! on the walled two-rooms board; `--start random` and `--write-up` on the
//! command line, and the flag combination that makes no sense.

use predicates::prelude::*;
use tempfile::TempDir;

use tickbot::game::OutcomeKind;
use tickbot::game::snake::plan::cycle::Cycle;
use tickbot::game::snake::{Config, SnakeGame, SnakeSetup, StartRule, TailRule};
use tickbot::replay;

use crate::support::{assert_bad_input, chuyangliu, open_board, tickbot};

#[track_caller]
fn check_same_bytes_and_verifies(config: &Config, seed: u64) {
    let record =
        || replay::record::<SnakeGame>(config, seed, &mut Cycle::new(config)).expect("cycle plays legal moves");
    let first = replay::encode_to_vec(&record()).unwrap();
    assert_eq!(first, replay::encode_to_vec(&record()).unwrap(), "seed {seed}: the same seed, the same bytes");
    let decoded = replay::decode(&first).unwrap();
    let reproduced = replay::verify(&decoded).unwrap();
    assert_eq!(reproduced.outcome.kind, OutcomeKind::Won, "seed {seed}");
}

#[test]
fn cycle_records_the_same_bytes_for_the_same_seed_and_its_replays_verify() {
    check_same_bytes_and_verifies(&chuyangliu(), 3);
    check_same_bytes_and_verifies(&open_board(10, 10), 1);
    let random_start = Config::try_from(SnakeSetup { start: StartRule::Random, ..SnakeSetup::open(8, 8) }).unwrap();
    check_same_bytes_and_verifies(&random_start, 5);
    // Another seed, another game.
    let record = |seed| replay::record::<SnakeGame>(&random_start, seed, &mut Cycle::new(&random_start)).unwrap();
    assert_ne!(replay::encode_to_vec(&record(5)).unwrap(), replay::encode_to_vec(&record(6)).unwrap());
}

#[test]
fn the_command_line_offers_random_starts_and_the_write_up() {
    let dir = TempDir::new().unwrap();
    tickbot(dir.path())
        .args(["bench", "snake", "--episodes", "20", "--size", "8x8", "--start", "random", "--json"])
        .assert()
        .success()
        .stdout(
            predicate::str::contains("\"planner\":\"cycle\"")
                .and(predicate::str::contains("start length 1 on a random free cell"))
                .and(predicate::str::contains("\"won\":20")),
        );
    tickbot(dir.path())
        .args(["bench", "snake", "--episodes", "3", "--preset", "chuyangliu", "--write-up", "--json"])
        .assert()
        .success()
        .stdout(predicate::str::contains("\"planner\":\"bfs-tail\"").and(predicate::str::contains("write_up=true")));
    assert_bad_input(
        dir.path(),
        &["play", "snake", "--preset", "chuyangliu", "--write-up", "--planner", "cycle"],
        "--write-up plays bfs-tail's 2013 program",
    );
    assert_bad_input(dir.path(), &["play", "snake", "--size", "8x8", "--start", "somewhere"], "or random");
}

/// Boards no 2×2 tiling fits: a 7×8 rectangle (3×2 and 2×3 blocks) and
/// `two_rooms.txt` (a cycle found by search). Every game is won, under both
/// tail rules and both start rules, and its replay verifies; the command
/// line's bench agrees.
#[test]
fn cycle_never_loses_on_7x8_or_on_the_two_rooms_board() {
    let two_rooms: SnakeSetup = tickbot::map::read(std::path::Path::new("maps/snake/two_rooms.txt")).unwrap();
    for board in [SnakeSetup::open(7, 8), two_rooms] {
        for tail_rule in [TailRule::Vacates, TailRule::Blocks] {
            for start in [board.start, StartRule::Random] {
                let config = Config::try_from(SnakeSetup { tail_rule, start, ..board.clone() }).unwrap();
                for seed in 0..4 {
                    check_same_bytes_and_verifies(&config, seed);
                }
            }
        }
    }
    let dir = TempDir::new().unwrap();
    let map = std::fs::canonicalize("maps/snake/two_rooms.txt").unwrap();
    for board in [["--size", "7x8"], ["--map", map.to_str().unwrap()]] {
        tickbot(dir.path())
            .args(["bench", "snake", "--episodes", "20", "--json"])
            .args(board)
            .assert()
            .success()
            .stdout(predicate::str::contains("\"won\":20").and(predicate::str::contains("\"lost\":0")));
    }
}
