//! Pipes end to end: every bundled puzzle solves and the solution passes an
//! independent checker written here; generated puzzles too; puzzles with two
//! solutions and with none; `dfs` and `astar` on small boards with replays
//! that verify; and the binary: play, record, verify, count, gen, bench, and
//! a broken puzzle file.

use predicates::prelude::*;
use tempfile::TempDir;

use tickbot::game::Wire;
use tickbot::game::pipes::generate::{GenSettings, generate};
use tickbot::game::pipes::plan::astar::AStar;
use tickbot::game::pipes::plan::dfs::Dfs;
use tickbot::game::pipes::plan::solve::{Solve, Solver};
use tickbot::game::pipes::{Config, PipesGame, Puzzle};
use tickbot::game::{Game, OutcomeKind};
use tickbot::map::Level;
use tickbot::plan::{Budget, PlanError, Planner, PlayError, Variant};
use tickbot::replay::{self, Replay};

use crate::support::{assert_bad_input, repo_path, tickbot};

/// An independent solved check: it shares no code with the game's rules.
/// Every pipe end must meet a pipe end of its neighbour (on a torus the
/// board wraps; otherwise a pipe off the board is wrong), every tile with
/// pipes must be reached from the source, and the joins must form a tree.
fn independently_solved(width: usize, height: usize, wrap: bool, source: usize, tiles: &[u8]) -> Result<(), String> {
    let step = |tile: usize, dir: usize| -> Option<usize> {
        let (x, y) = ((tile % width) as i64, (tile / width) as i64);
        let (dx, dy) = [(0, -1), (1, 0), (0, 1), (-1, 0)][dir];
        let (mut nx, mut ny) = (x + dx, y + dy);
        if wrap {
            nx = nx.rem_euclid(width as i64);
            ny = ny.rem_euclid(height as i64);
        } else if nx < 0 || ny < 0 || nx >= width as i64 || ny >= height as i64 {
            return None;
        }
        Some(ny as usize * width + nx as usize)
    };
    let mut joins = 0usize;
    for (tile, &mask) in tiles.iter().enumerate() {
        for dir in 0..4 {
            if mask >> dir & 1 == 0 {
                continue;
            }
            let other = step(tile, dir).ok_or(format!("tile {tile} points off the board"))?;
            if tiles[other] >> ((dir + 2) % 4) & 1 == 0 {
                return Err(format!("tile {tile} has an open end"));
            }
            joins += 1;
        }
    }
    let mut reached = vec![false; tiles.len()];
    let mut pending = vec![source];
    reached[source] = true;
    while let Some(tile) = pending.pop() {
        for dir in 0..4 {
            if tiles[tile] >> dir & 1 == 1 {
                let other = step(tile, dir).expect("checked");
                if !reached[other] {
                    reached[other] = true;
                    pending.push(other);
                }
            }
        }
    }
    let with_pipes = tiles.iter().filter(|&&mask| mask != 0).count();
    if (0..tiles.len()).any(|tile| tiles[tile] != 0 && !reached[tile]) {
        return Err("a tile is not fed by the source".into());
    }
    if with_pipes > 0 && joins / 2 != with_pipes - 1 {
        return Err("the network has a loop".into());
    }
    Ok(())
}

fn check_config_solution(config: &Config, tiles: &[u8]) -> Result<(), String> {
    let grid = config.grid();
    independently_solved(usize::from(grid.width), usize::from(grid.height), grid.wrap, config.source(), tiles)
}

/// Plays `config` with `planner` and returns the replay, built in memory
/// exactly as the session records it, and the final tiles.
fn record<P: Planner<PipesGame>>(config: &Config, mut planner: P) -> Result<(Replay, Vec<u8>), PlayError> {
    let replay = replay::record::<PipesGame>(config, 0, &mut planner)?;
    let mut game = PipesGame::new(config, 0);
    for frame in &replay.frames {
        game.step(PipesGame::action_from_code(frame.action).expect("a recorded action")).expect("a legal action");
    }
    Ok((replay, game.tiles().to_vec()))
}

fn bundled() -> Vec<(String, Puzzle)> {
    let mut puzzles = Vec::new();
    for entry in std::fs::read_dir(repo_path("maps/pipes")).expect("maps/pipes exists") {
        let path = entry.unwrap().path();
        if path.extension().is_some_and(|extension| extension == "txt") {
            let text = std::fs::read_to_string(&path).unwrap();
            let puzzle = Puzzle::parse(&text).unwrap_or_else(|error| panic!("{}", error.in_file(&path)));
            puzzles.push((path.file_name().unwrap().to_string_lossy().into_owned(), puzzle));
        }
    }
    puzzles.sort_by(|a, b| a.0.cmp(&b.0));
    puzzles
}

#[test]
fn every_bundled_puzzle_is_solved_and_checks_out() {
    let puzzles = bundled();
    assert!(puzzles.len() >= 10, "expected a range of bundled puzzles, found {}", puzzles.len());
    let (mut n_wrap, mut largest) = (0, 0);
    for (name, puzzle) in puzzles {
        let config = Config::try_from(puzzle.setup.clone()).unwrap();
        let (replay, tiles) = record(&config, Solve::new()).unwrap_or_else(|error| panic!("{name}: {error}"));
        assert_eq!(replay.footer.as_ref().unwrap().outcome.kind, OutcomeKind::Won, "{name}");
        assert!(replay.frames.len() <= config.n_tiles(), "{name}: at most one move per tile");
        check_config_solution(&config, &tiles).unwrap_or_else(|error| panic!("{name}: {error}"));
        // The reference grid is a solution too; on puzzles generated with
        // --unique it is the only one, so ours must be the same.
        let reference = puzzle.solution.expect("bundled puzzles carry their reference solution");
        check_config_solution(&config, &reference).unwrap_or_else(|error| panic!("{name} reference: {error}"));
        if !name.contains("multi") {
            assert_eq!(tiles, reference, "{name} is unique");
        }
        n_wrap += usize::from(config.grid().wrap);
        largest = largest.max(config.n_tiles());
        replay::verify(&replay).unwrap_or_else(|error| panic!("{name}: {error}"));
    }
    assert!(n_wrap >= 3 && largest >= 100 * 100);
}

#[test]
fn generated_puzzles_are_solved_and_check_out() {
    for (width, height) in [(1, 6), (6, 1), (2, 2), (5, 3), (9, 9), (16, 12), (30, 30)] {
        for wrap in [false, true] {
            for seed in 10..13 {
                let generated = generate(&GenSettings { width, height, wrap, unique: false, seed }).unwrap();
                let config = Config::try_from(generated.setup).unwrap();
                let (replay, tiles) = record(&config, Solve::new()).unwrap();
                assert_eq!(replay.footer.unwrap().outcome.kind, OutcomeKind::Won);
                check_config_solution(&config, &tiles)
                    .unwrap_or_else(|error| panic!("{width}x{height} wrap={wrap} seed {seed}: {error}"));
            }
        }
    }
}

/// Solves a generated board with the solver itself: (solutions found, branch
/// points, the first solution).
fn solve_generated(options: &GenSettings, limit: u32) -> (u32, u64, Vec<u8>) {
    let generated = generate(options).unwrap();
    let config = Config::try_from(generated.setup).unwrap();
    let mut solver = Solver::new(config.grid());
    let report = solver.run(config.tiles(), config.source(), limit, &Budget::unlimited()).unwrap();
    let (replay, tiles) = record(&config, Solve::new()).unwrap();
    assert_eq!(replay.footer.unwrap().outcome.kind, OutcomeKind::Won, "{options:?}");
    check_config_solution(&config, &tiles).unwrap_or_else(|error| panic!("{options:?}: {error}"));
    (report.solutions, report.branches, tiles)
}

#[track_caller]
fn check_no_thrash(width: u16, height: u16, wrap: bool, seed: u64, branches_before: u64, at_most: u64) {
    let options = GenSettings { width, height, wrap, unique: false, seed };
    let (solutions, branches, first) = solve_generated(&options, 1);
    assert_eq!(solutions, 1, "{options:?}");
    assert!(
        branches <= at_most,
        "{width}x{height} wrap={wrap} seed {seed}: {branches} branch points (row-major branching alone took {branches_before})"
    );
    // The same board is solved the same way every time.
    assert_eq!(solve_generated(&options, 1), (solutions, branches, first), "{options:?}");
}

#[test]
fn boards_that_used_to_thrash_are_solved_with_little_search() {
    // Generated boards with several solutions where branching on the first
    // undecided tile in row-major order alone thrashed (its branch points
    // in the message); now a few hundred at most.
    check_no_thrash(100, 100, true, 38, 58_199, 1_000);
    check_no_thrash(150, 150, true, 17, 12_449, 2_000);
}

#[test]
fn unique_generated_puzzles_of_some_size_are_unique_and_deduced() {
    for (width, height, wrap, seed) in [(60, 60, false, 1), (60, 60, true, 2), (90, 40, true, 3)] {
        let options = GenSettings { width, height, wrap, unique: true, seed };
        let generated = generate(&options).unwrap();
        assert_eq!(generate(&options).unwrap(), generated, "same seed, same puzzle");
        let (solutions, branches, tiles) = solve_generated(&options, 2);
        assert_eq!(solutions, 1, "{options:?} is unique");
        assert_eq!(branches, 0, "{options:?}: deduction alone decides it");
        assert_eq!(tiles, generated.solution, "{options:?}");
    }
    // Without --unique, the same sizes have several solutions: counting
    // finds a second one.
    let (solutions, _, _) =
        solve_generated(&GenSettings { width: 60, height: 60, wrap: true, unique: false, seed: 2 }, 2);
    assert_eq!(solutions, 2);
}

/// Two dead ends on a 2×1 torus meet across either seam: two solutions.
const TWO_SOLUTIONS: &str = "# two dead ends on a torus\n2 1 wrap 0 0\n11\n";
/// Four bends on a flat 2×2 board can only make a ring: no solution.
const NO_SOLUTION: &str = "# four bends\n2 2 nowrap 0 0\n33\n33\n";

#[test]
fn two_solutions_and_none_are_told_apart() {
    let dir = TempDir::new().unwrap();
    std::fs::write(dir.path().join("two.txt"), TWO_SOLUTIONS).unwrap();
    std::fs::write(dir.path().join("none.txt"), NO_SOLUTION).unwrap();
    tickbot(dir.path())
        .args(["play", "pipes", "--map", "two.txt", "--count"])
        .assert()
        .success()
        .stdout(predicate::str::contains("solutions: 2 (at least 2 solutions)"));
    tickbot(dir.path())
        .args(["play", "pipes", "--map", "none.txt", "--count"])
        .assert()
        .success()
        .stdout(predicate::str::contains("solutions: 0 (no solution)"));
    tickbot(dir.path()).args(["play", "pipes", "--map", "maps-unique.txt", "--count"]).assert().code(2);
    std::fs::copy(repo_path("maps/pipes/10x10-flat.txt"), dir.path().join("unique.txt")).unwrap();
    tickbot(dir.path())
        .args(["play", "pipes", "--map", "unique.txt", "--count"])
        .assert()
        .success()
        .stdout(predicate::str::contains("solutions: 1 (unique)"));
    // Playing the puzzle with two solutions solves it; the one with none
    // gets the verdict "no solution" from every planner.
    tickbot(dir.path())
        .args(["play", "pipes", "--map", "two.txt", "--record", "two.tbr"])
        .assert()
        .success()
        .stdout(predicate::str::contains("won"));
    let none = Config::try_from(Puzzle::parse(NO_SOLUTION).unwrap().setup).unwrap();
    for error in [
        record(&none, Solve::new()).unwrap_err(),
        record(&none, Dfs::new(10_000, Variant::Ours)).unwrap_err(),
        record(&none, AStar::new(10_000, Variant::Ours)).unwrap_err(),
    ] {
        assert!(matches!(&error, PlayError::Plan(PlanError::GaveUp(why)) if why.contains("no solution")), "{error}");
    }
    tickbot(dir.path())
        .args(["play", "pipes", "--map", "none.txt"])
        .assert()
        .success()
        .stdout(predicate::str::contains("aborted").and(predicate::str::contains("no solution")));
}

#[test]
fn dfs_and_astar_solve_small_boards_and_their_replays_verify() {
    let load = |name: &str| {
        let text = std::fs::read_to_string(repo_path(name)).unwrap();
        Config::try_from(Puzzle::parse(&text).unwrap().setup).unwrap()
    };
    for (name, planner) in [
        ("maps/pipes/3x3-flat.txt", "dfs"),
        ("maps/pipes/3x3-wrap.txt", "dfs"),
        ("maps/pipes/3x3-flat.txt", "astar"),
        ("maps/pipes/4x4-flat.txt", "astar"),
        ("maps/pipes/5x5-flat.txt", "astar"),
    ] {
        let config = load(name);
        let (replay, tiles) = match planner {
            "dfs" => record(&config, Dfs::new(2_000_000, Variant::Ours)),
            _ => record(&config, AStar::new(2_000_000, Variant::Ours)),
        }
        .unwrap_or_else(|error| panic!("{planner} on {name}: {error}"));
        assert_eq!(replay.footer.as_ref().unwrap().outcome.kind, OutcomeKind::Won, "{planner} on {name}");
        check_config_solution(&config, &tiles).unwrap();
        let reproduced = replay::verify(&replay).unwrap();
        assert_eq!(reproduced.ticks as usize, replay.frames.len());
        let bytes = replay::encode_to_vec(&replay).unwrap();
        assert_eq!(replay::decode(&bytes).unwrap(), replay);
    }
    // Past its budget, a search says how far it got.
    let error = record(&load("maps/pipes/7x7-flat.txt"), Dfs::new(5_000, Variant::Ours)).unwrap_err();
    assert!(error.to_string().contains("gave up after 5000 states"), "{error}");
    let error = record(&load("maps/pipes/10x10-flat.txt"), AStar::new(10, Variant::Ours)).unwrap_err();
    assert!(error.to_string().contains("at most 64 tiles"), "{error}");
}

/// The write-up's `dfs` and `astar` against counts from an independent,
/// literal transcription of its printed pseudocode (states expanded,
/// distinct states, moves in the search path played).
#[test]
fn the_write_up_searches_expand_the_transcriptions_counts_and_play_their_path() {
    #[track_caller]
    fn check(name: &str, planner: &str, expanded: u64, distinct: u64, path: u32) {
        let text = std::fs::read_to_string(repo_path(name)).unwrap();
        let config = Config::try_from(Puzzle::parse(&text).unwrap().setup).unwrap();
        let mut searcher: Box<dyn Planner<PipesGame>> = match planner {
            "dfs" => Box::new(Dfs::new(2_000_000, Variant::WriteUp)),
            _ => Box::new(AStar::new(2_000_000, Variant::WriteUp)),
        };
        let decision = searcher.next_action(&PipesGame::new(&config, 0), &Budget::unlimited()).unwrap();
        let stats = decision.planned.expect("the first tick plans");
        assert_eq!((stats.nodes, stats.distinct, stats.plan_len), (expanded, Some(distinct), path), "{planner} {name}");
        assert!(searcher.params().contains(&("write_up".to_string(), "true".to_string())));
        // The whole path is played, and it wins on its last move.
        let (replay, tiles) = match planner {
            "dfs" => record(&config, Dfs::new(2_000_000, Variant::WriteUp)),
            _ => record(&config, AStar::new(2_000_000, Variant::WriteUp)),
        }
        .unwrap();
        assert_eq!(replay.footer.as_ref().unwrap().outcome.kind, OutcomeKind::Won, "{planner} {name}");
        assert_eq!(replay.frames.len(), path as usize, "{planner} {name}");
        check_config_solution(&config, &tiles).unwrap();
    }
    check("maps/pipes/3x3-flat.txt", "dfs", 20_108, 20_109, 20_108);
    check("maps/pipes/3x3-wrap.txt", "dfs", 19_788, 19_789, 19_788);
    check("maps/pipes/3x3-flat.txt", "astar", 9, 10, 9);
    check("maps/pipes/3x3-wrap.txt", "astar", 12, 13, 9);
    check("maps/pipes/4x4-flat.txt", "astar", 5_969, 1_184, 19);
    check("maps/pipes/5x5-flat.txt", "astar", 28, 29, 19);
    check("maps/pipes/7x7-flat.txt", "astar", 1_315, 869, 44);
    // The write-up's dfs does not solve 4x4 within the budget; it says how far it got.
    let text = std::fs::read_to_string(repo_path("maps/pipes/4x4-flat.txt")).unwrap();
    let config = Config::try_from(Puzzle::parse(&text).unwrap().setup).unwrap();
    let error = record(&config, Dfs::new(100_000, Variant::WriteUp)).unwrap_err();
    assert!(error.to_string().contains("gave up after 1000") && error.to_string().contains("expanded"), "{error}");
}

#[test]
fn play_records_a_replay_that_verifies_and_shows() {
    let dir = TempDir::new().unwrap();
    let map = repo_path("maps/pipes/40x40-wrap-multi.txt");
    tickbot(dir.path())
        .args(["play", "pipes", "--map", map.to_str().unwrap(), "--planner", "solve", "--record", "x.tbr"])
        .assert()
        .success()
        .stdout(predicate::str::contains("pipes seed 1: won (solved in"));
    tickbot(dir.path())
        .args(["replay", "verify", "x.tbr"])
        .assert()
        .success()
        .stdout(predicate::str::contains("1 replays: 1 reproduced"));
    tickbot(dir.path())
        .args(["replay", "show", "x.tbr", "--tick", "0"])
        .assert()
        .success()
        .stdout(predicate::str::contains("40x40 wrapping Net puzzle").and(predicate::str::contains("tick 0")));
    tickbot(dir.path())
        .args([
            "play",
            "pipes",
            "--planner",
            "astar",
            "--map",
            repo_path("maps/pipes/4x4-flat.txt").to_str().unwrap(),
            "--record",
            "a.tbr",
        ])
        .assert()
        .success();
    tickbot(dir.path()).args(["replay", "verify", "a.tbr"]).assert().success();
    tickbot(dir.path())
        .args(["run", "--games", "2", "--jobs", "1", "pipes"])
        .assert()
        .success()
        .stdout(predicate::str::contains("won 2"));
}

#[test]
fn a_broken_puzzle_names_file_line_and_column() {
    let dir = TempDir::new().unwrap();
    std::fs::write(dir.path().join("broken.txt"), "# broken\n3 2 nowrap 1 1\n4a2\n4x2\n").unwrap();
    assert_bad_input(dir.path(), &["play", "pipes", "--map", "broken.txt"], "broken.txt:4:2: unexpected 'x'");
    std::fs::write(dir.path().join("short.txt"), "3 2 nowrap 1 1\n4a\n").unwrap();
    assert_bad_input(
        dir.path(),
        &["play", "pipes", "--map", "short.txt"],
        "short.txt:2:3: row has 2 tiles, expected 3",
    );
}

#[test]
fn gen_writes_puzzles_the_game_reads_and_unique_ones_are_unique() {
    let dir = TempDir::new().unwrap();
    let output = tickbot(dir.path())
        .args(["gen", "pipes", "--size", "12x8", "--wrap", "--unique", "--seed", "4"])
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    let text = String::from_utf8(output).unwrap();
    assert!(text.starts_with("# generated by `tickbot gen pipes --size 12x8 --wrap --unique --seed 4`"));
    let puzzle = Puzzle::parse(&text).unwrap();
    assert_eq!((puzzle.setup.width, puzzle.setup.height, puzzle.setup.wrap), (12, 8, true));
    std::fs::write(dir.path().join("g.txt"), &text).unwrap();
    tickbot(dir.path())
        .args(["play", "pipes", "--map", "g.txt", "--count"])
        .assert()
        .success()
        .stdout(predicate::str::contains("(unique)"));
    tickbot(dir.path())
        .args(["gen", "pipes", "--size", "12x8", "--wrap", "--unique", "--seed", "4", "--out", "again.txt"])
        .assert()
        .success();
    assert_eq!(std::fs::read_to_string(dir.path().join("again.txt")).unwrap(), text, "same seed, same puzzle");
    tickbot(dir.path()).args(["gen", "pipes", "--size", "0x8"]).assert().code(2);
}

#[test]
fn bench_reports_a_median_per_size() {
    let dir = TempDir::new().unwrap();
    let output = tickbot(dir.path())
        .args(["bench", "pipes", "--planner", "solve", "--repeat", "3", "--json", "--generate", "8x8", "--seeds", "2"])
        .arg(repo_path("maps/pipes/10x10-flat.txt"))
        .arg(repo_path("maps/pipes/10x10-wrap.txt"))
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    let report: serde_json::Value = serde_json::from_slice(&output).unwrap();
    assert_eq!(report["planner"], "solve");
    let sizes = report["sizes"].as_array().unwrap();
    let keys: Vec<(String, bool, u64)> = sizes
        .iter()
        .map(|size| {
            (
                size["size"].as_str().unwrap().to_string(),
                size["wrap"].as_bool().unwrap(),
                size["puzzles"].as_u64().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        keys,
        [
            ("8x8".to_string(), false, 2),
            ("8x8".to_string(), true, 2),
            ("10x10".to_string(), false, 1),
            ("10x10".to_string(), true, 1)
        ]
    );
    assert!(sizes.iter().all(|size| size["solved"] == size["puzzles"]), "{report}");
    // A median lies between the extremes it summarises.
    let ms = |value: &serde_json::Value, key: &str| value[key].as_f64().unwrap();
    assert!(sizes.iter().all(|size| ms(size, "median_ms") <= ms(size, "max_ms")), "{report}");
    let puzzles = report["puzzles"].as_array().unwrap();
    assert_eq!(puzzles.len(), 6);
    assert!(puzzles.iter().all(|puzzle| ms(puzzle, "min_ms") <= ms(puzzle, "median_ms")), "{report}");
}
