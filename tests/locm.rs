//! LOCM end to end: the 100 matches recorded from the reference Java referee
//! (`tests/data/locm/`, see its SOURCE.md) replayed through our engine in
//! Java seeding mode, comparing at every turn the input our engine would send
//! each player with the recorded one; and the command line (play, record,
//! verify, match, bench).

use predicates::prelude::*;
use tempfile::TempDir;
use tickbot::game::locm::battle::Move;
use tickbot::game::locm::plan::draft::DraftBot;
use tickbot::game::locm::plan::seats::LocmBots;
use tickbot::game::locm::plan::{BattleBot, DraftName};
use tickbot::game::locm::protocol;
use tickbot::game::locm::view::View;
use tickbot::game::locm::{Action, Config, DeckRandomness, JavaSeeds, LocmGame};
use tickbot::game::{Game, Status};

use crate::support::{assert_bad_input, json_output, repo_path, tickbot};

/// One recorded match: the seeds, each turn's (player, input, output) in
/// play order, and the winner.
struct RecordedMatch {
    seeds: JavaSeeds,
    turns: Vec<(u8, String, String)>,
    winner: u8,
}

fn parse_match(line: &str) -> RecordedMatch {
    let end = line.rfind('}').expect("a JSON object");
    let json: serde_json::Value = serde_json::from_str(&line[..=end]).expect("valid JSON");
    let tail: Vec<&str> = line[end + 1..].split_whitespace().collect();
    let winner = if tail[0] == "1" { 0 } else { 1 };
    let seed = |name: &str| -> i64 {
        tail.iter()
            .find_map(|word| word.strip_prefix(name).and_then(|rest| rest.strip_prefix('=')))
            .expect("seed present")
            .parse()
            .expect("numeric seed")
    };
    let seeds = JavaSeeds {
        draft: seed("draftChoicesSeed"),
        shuffle: [seed("shufflePlayer0Seed"), seed("shufflePlayer1Seed")],
    };
    let frames = json["errors"]["0"].as_array().expect("frames").len();
    let mut turns = Vec::new();
    for frame in 0..frames {
        for player in 0..2u8 {
            let key = player.to_string();
            if let Some(input) = json["errors"][&key][frame].as_str() {
                let output = json["outputs"][&key][frame].as_str().unwrap_or("").to_string();
                turns.push((player, input.to_string(), output));
            }
        }
    }
    RecordedMatch { seeds, turns, winner }
}

/// Whether `ours` is what the referee sent, as the recording shows it:
/// every line byte for byte, but for the trailing spaces of the last line,
/// which the recording trimmed.
fn same_input(ours: &str, recorded: &str) -> bool {
    let ours: Vec<&str> = ours.strip_suffix('\n').unwrap_or(ours).split('\n').collect();
    let recorded: Vec<&str> = recorded.strip_suffix('\n').unwrap_or(recorded).split('\n').collect();
    let last = ours.len().saturating_sub(1);
    ours.len() == recorded.len()
        && ours.iter().zip(&recorded).enumerate().all(
            |(index, (a, b))| {
                if index == last { a.trim_end() == b.trim_end() } else { a == b }
            },
        )
}

/// Replays a match; `Err` describes the first difference. `show` turns the
/// engine's view into the text compared with the recording (the tests
/// mutate it to prove the comparison can fail).
fn replay_match(
    config: &Config,
    recorded: &RecordedMatch,
    show: &dyn Fn(&View, &LocmGame) -> String,
) -> Result<(usize, usize), String> {
    let mut game = LocmGame::with_java_seeds(config, recorded.seeds);
    let mut n_actions = 0;
    for (turn_index, (player, input, output)) in recorded.turns.iter().enumerate() {
        if game.status() != Status::Running {
            return Err(format!("turn {turn_index}: the game is already over"));
        }
        if game.player_to_move() != *player {
            return Err(format!("turn {turn_index}: player {} to move, recording has {player}", game.player_to_move()));
        }
        let ours = show(&game.view(), &game);
        if !same_input(&ours, input) {
            return Err(format!("turn {turn_index} (player {player}):\nours:\n{ours}\nrecorded:\n{input}"));
        }
        if let View::Draft(draft) = game.view() {
            let index = protocol::parse_draft(output.trim_end(), draft.choices())
                .map_err(|error| format!("turn {turn_index}: draft output {output:?}: {error}"))?;
            game.step(Action::Pick(index)).map_err(|error| error.to_string())?;
            continue;
        }
        let commands = protocol::parse_turn(output).map_err(|error| format!("turn {turn_index}: {error}"))?;
        for command in commands {
            // The referee skips an action that is not legal now.
            match command.action() {
                Some(action) if game.is_legal(action) => {
                    game.step(action).map_err(|error| error.to_string())?;
                    n_actions += 1;
                }
                _ => {}
            }
            if game.status() != Status::Running {
                break;
            }
        }
        if game.status() == Status::Running {
            game.step(Action::Battle(Move::EndTurn)).map_err(|error| error.to_string())?;
        }
    }
    match game.winner() {
        Some(winner) if winner == recorded.winner => Ok((recorded.turns.len(), n_actions)),
        other => Err(format!("winner {other:?}, recording has {}", recorded.winner)),
    }
}

fn dataset() -> Vec<RecordedMatch> {
    let text = std::fs::read_to_string(repo_path("tests/data/locm/consistency-dataset-v1.2.txt")).expect("dataset");
    text.lines().filter(|line| !line.trim().is_empty()).map(parse_match).collect()
}

fn java_config() -> Config {
    Config::bundled().with_randomness(DeckRandomness::Java)
}

fn referee_text(view: &View, game: &LocmGame) -> String {
    protocol::turn_input(view, game.table())
}

#[test]
fn all_100_reference_matches_reproduce() {
    let config = java_config();
    let matches = dataset();
    assert_eq!(matches.len(), 100);
    let mut failures = Vec::new();
    let mut total_turns = 0;
    let mut total_actions = 0;
    for (index, recorded) in matches.iter().enumerate() {
        match replay_match(&config, recorded, &referee_text) {
            Ok((turns, actions)) => {
                total_turns += turns;
                total_actions += actions;
            }
            Err(error) => failures.push(format!("match {index}: {error}")),
        }
    }
    assert!(failures.is_empty(), "{} of 100 diverged; first:\n{}", failures.len(), failures[0]);
    // Every match has 60 draft turns and a real battle.
    assert!(total_turns > 100 * 70, "{total_turns} turns");
    assert!(total_actions > 100 * 20, "{total_actions} actions");
}

/// The comparison can fail: showing every creature's card effects (that is,
/// without the referee's display quirk) or starting the draft from another
/// seed makes recorded matches diverge.
#[test]
fn conformance_check_detects_a_missing_quirk_and_a_wrong_seed() {
    let config = java_config();
    let matches = dataset();
    let without_quirk = |view: &View, game: &LocmGame| {
        let mut view = *view;
        if let View::Battle(battle_view) = &mut view {
            for player in battle_view.battle.players.iter_mut() {
                for creature in player.board.iter_mut() {
                    creature.effects_hidden = false;
                }
            }
        }
        view.referee_input(game.table())
    };
    let diverged = matches.iter().filter(|recorded| replay_match(&config, recorded, &without_quirk).is_err()).count();
    assert!(diverged > 0, "the display quirk is never visible");
    let mut shifted = parse_match(
        std::fs::read_to_string(repo_path("tests/data/locm/consistency-dataset-v1.2.txt"))
            .unwrap()
            .lines()
            .next()
            .unwrap(),
    );
    shifted.seeds.draft += 1;
    assert!(replay_match(&config, &shifted, &referee_text).is_err());
}

#[test]
fn play_records_a_replay_that_verifies() {
    let dir = TempDir::new().unwrap();
    tickbot(dir.path())
        .args(["play", "locm", "--draft", "closetai,icebox", "--battle", "greedy,greedy", "--seed", "3"])
        .args(["--record", "game.tbr", "--show"])
        .assert()
        .success()
        .stdout(
            predicate::str::contains("locm seed 3: won (player 0 wins").and(predicate::str::contains("battle: turn")),
        );
    tickbot(dir.path())
        .args(["replay", "verify", "game.tbr"])
        .assert()
        .success()
        .stdout(predicate::str::contains("1 reproduced, 0 diverged"));
}

#[test]
fn the_search_bot_plays_games_whose_replays_verify() {
    let dir = TempDir::new().unwrap();
    tickbot(dir.path())
        .args(["run", "--games", "4", "--jobs", "2", "locm", "--draft", "coac,evolved", "--battle", "search,greedy"])
        .assert()
        .success()
        .stdout(predicate::str::contains("finished 4 games").and(predicate::str::contains("failed 0")));
    tickbot(dir.path())
        .args(["play", "locm", "--draft", "evolved", "--battle", "search:fast,search", "--seed", "5"])
        .args(["--record", "game.tbr"])
        .assert()
        .success();
    tickbot(dir.path())
        .args(["replay", "verify", "out/replays", "game.tbr"])
        .assert()
        .success()
        .stdout(predicate::str::contains("5 replays: 5 reproduced, 0 diverged, 0 invalid"));
}

#[test]
fn run_plays_many_games_whose_replays_verify() {
    let dir = TempDir::new().unwrap();
    tickbot(dir.path())
        .args(["run", "--games", "6", "--jobs", "2", "locm", "--draft", "chad,random", "--battle", "greedy,random"])
        .assert()
        .success()
        .stdout(predicate::str::contains("finished 6 games").and(predicate::str::contains("failed 0")));
    tickbot(dir.path())
        .args(["run", "--games", "2", "--out", "java", "locm", "--java-seeding"])
        .assert()
        .success()
        .stdout(predicate::str::contains("java draft and shuffle"));
    tickbot(dir.path())
        .args(["replay", "verify", "out/replays", "java/replays"])
        .assert()
        .success()
        .stdout(predicate::str::contains("8 replays: 8 reproduced, 0 diverged, 0 invalid"));
}

#[test]
fn match_is_deterministic_whatever_the_thread_count() {
    let dir = TempDir::new().unwrap();
    let run = |threads: &str| -> serde_json::Value {
        let mut args = vec!["match", "locm", "--draft", "icebox,max-attack", "--battle", "greedy", "--games", "60"];
        args.extend(["--seed", "5", "--json", "--threads", threads]);
        json_output(dir.path(), &args)
    };
    let one = run("1");
    let two = run("2");
    assert_eq!(one["games"], 60);
    for key in ["wins_a", "wins_b", "wins_a_first", "wins_a_second", "win_rate_a", "ci95_low", "ci95_high"] {
        assert_eq!(one[key], two[key], "{key}");
    }
    assert_eq!(one["wins_a"].as_u64().unwrap() + one["wins_b"].as_u64().unwrap(), 60);
    // A rate is games over at least MIN_TIMED_SECONDS (0.05 s), so at most
    // 20 per game, or null for a run too short to time.
    for report in [&one, &two] {
        for key in ["games_per_sec", "games_per_cpu_sec"] {
            let rate = &report[key];
            assert!(
                rate.is_null() || (rate.as_f64().unwrap() > 0.0 && rate.as_f64().unwrap() <= 60.0 * 20.0),
                "{key}: {report}"
            );
        }
    }
    assert_eq!((one["threads"].as_u64(), two["threads"].as_u64()), (Some(1), Some(2)));
}

#[test]
fn bench_reports_the_documented_keys() {
    let dir = TempDir::new().unwrap();
    let report = json_output(dir.path(), &["bench", "locm", "--games", "40", "--json"]);
    // A rate is games over at least MIN_TIMED_SECONDS (0.05 s), so at most
    // 20 per game, or null for a run too short to time (the rate over a
    // measured zero was once 10^11 games per second).
    for key in
        ["random_games_per_sec", "greedy_games_per_sec", "random_games_per_wall_sec", "greedy_games_per_wall_sec"]
    {
        let rate = &report[key];
        assert!(
            rate.is_null() || (rate.as_f64().unwrap() > 0.0 && rate.as_f64().unwrap() <= 40.0 * 20.0),
            "{key}: {report}"
        );
    }
    assert_eq!(report["games"], 40);
    // The default is one thread per core.
    let cores = std::thread::available_parallelism().map_or(1, |cores| cores.get()) as u64;
    assert_eq!(report["threads"].as_u64(), Some(cores), "{report}");
}

#[test]
fn bad_bots_card_lists_and_genomes_are_exit_code_2_with_file_and_line() {
    let dir = TempDir::new().unwrap();
    assert_bad_input(dir.path(), &["play", "locm", "--draft", "wizard,icebox"], "unknown draft bot \"wizard\"");
    let cards = std::fs::read_to_string(repo_path("maps/locm/cardlist.txt")).unwrap();
    let broken = cards.replacen("3 ; Beavrat ; creature", "3 ; Beavrat ; monster", 1);
    std::fs::write(dir.path().join("cards.txt"), broken).unwrap();
    assert_bad_input(dir.path(), &["play", "locm", "--cards", "cards.txt"], "cards.txt:3:15: type: expected creature");
    std::fs::write(dir.path().join("genome.txt"), "1 2 3\n4 oops\n").unwrap();
    assert_bad_input(
        dir.path(),
        &["match", "locm", "--draft", "genome:genome.txt,icebox", "--games", "2"],
        "genome.txt:2:3: expected a number",
    );
    let priorities: Vec<String> = (0..160).map(|index| (160 - index).to_string()).collect();
    std::fs::write(dir.path().join("genome.txt"), priorities.join("\n")).unwrap();
    tickbot(dir.path())
        .args(["match", "locm", "--draft", "genome:genome.txt,icebox", "--games", "4", "--json"])
        .assert()
        .success()
        .stdout(predicate::str::contains("\"draft_a\":\"genome\""));
}

/// A small draft evolution, every flag that shapes it spelled out.
const SMALL_EVOLUTION: [&str; 14] =
    ["--population", "8", "--tg", "1", "--sr", "1", "--sg", "2", "--probe-games", "2", "--seed", "7", "--pm", "0.1"];

fn evolve(dir: &std::path::Path, out: &str, generations: &str, threads: &str) {
    tickbot(dir)
        .args(["evolve", "draft", "--out", out, "--generations", generations, "--threads", threads])
        .args(SMALL_EVOLUTION)
        .assert()
        .success()
        .stdout(predicate::str::contains(format!("evolved     {generations} of {generations} generations")));
}

/// The log's reports without their timings, for comparing runs.
fn untimed_log(path: &std::path::Path) -> Vec<serde_json::Value> {
    let text = std::fs::read_to_string(path).unwrap();
    text.lines()
        .map(|line| {
            let mut report: serde_json::Value = serde_json::from_str(line).unwrap();
            report.as_object_mut().unwrap().remove("seconds");
            report
        })
        .collect()
}

/// Starts a run, stops it with `signal` once the checkpoint of generation
/// `after` exists, and checks how it ended.
#[cfg(unix)]
fn interrupted_run(dir: &std::path::Path, out: &str, signal: &str, after: u64) {
    use std::process::{Command as StdCommand, Stdio};
    use std::time::{Duration, Instant};

    let mut child = StdCommand::new(assert_cmd::cargo::cargo_bin("tickbot"))
        .current_dir(dir)
        .args(["evolve", "draft", "--out", out, "--generations", "25", "--threads", "2"])
        .args(SMALL_EVOLUTION)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let checkpoint = dir.join(out).join(format!("generations/{after:04}.json"));
    let started = Instant::now();
    while !checkpoint.exists() {
        assert!(started.elapsed() < Duration::from_secs(120), "no checkpoint {after} after two minutes");
        std::thread::sleep(Duration::from_millis(1));
    }
    let sent = StdCommand::new("kill").args([signal, &child.id().to_string()]).status().unwrap();
    assert!(sent.success());
    let status = child.wait().unwrap();
    assert!(!dir.join(out).join("generations/0025.json").exists(), "the run finished before the {signal}");
    if signal == "-INT" {
        assert_eq!(status.code(), Some(130), "Ctrl-C stops with 130");
    } else {
        assert_eq!(status.code(), None, "killed by a signal");
    }
}

#[cfg(unix)]
#[test]
fn an_evolution_killed_or_interrupted_and_resumed_ends_byte_identical() {
    let dir = TempDir::new().unwrap();
    evolve(dir.path(), "whole", "25", "2");
    let whole_best = std::fs::read(dir.path().join("whole/best.txt")).unwrap();
    let whole_log = untimed_log(&dir.path().join("whole/log.jsonl"));
    assert_eq!(whole_log.len(), 26, "one report per generation and one for the start");
    for (out, signal, after) in [("killed", "-KILL", 3), ("stopped", "-INT", 6)] {
        interrupted_run(dir.path(), out, signal, after);
        tickbot(dir.path())
            .args(["evolve", "draft", "--resume", out, "--threads", "1"])
            .assert()
            .success()
            .stdout(predicate::str::contains("evolved     25 of 25 generations"));
        let best = std::fs::read(dir.path().join(out).join("best.txt")).unwrap();
        assert!(best == whole_best, "{out}: best.txt differs from the uninterrupted run's");
        assert_eq!(untimed_log(&dir.path().join(out).join("log.jsonl")), whole_log, "{out}: the logs differ");
        let checkpoint = |run: &str| {
            let path = dir.path().join(run).join("generations/0025.json");
            let mut value: serde_json::Value = serde_json::from_slice(&std::fs::read(path).unwrap()).unwrap();
            value["report"].as_object_mut().unwrap().remove("seconds");
            value
        };
        assert_eq!(checkpoint(out), checkpoint("whole"), "{out}: the final populations differ");
    }
    // The result does not depend on the thread count either.
    evolve(dir.path(), "one-thread", "25", "1");
    assert!(std::fs::read(dir.path().join("one-thread/best.txt")).unwrap() == whole_best);
    // best.txt is a drafter.
    tickbot(dir.path())
        .args(["match", "locm", "--draft", "genome:whole/best.txt,closetai", "--games", "4", "--json"])
        .assert()
        .success();
    // A finished run refuses to start over in the same directory.
    assert_bad_input(
        dir.path(),
        &["evolve", "draft", "--out", "whole"],
        "already holds a draft evolution: continue it with --resume",
    );
}

/// The `points` of every polyline with exactly `len` points, in document order.
fn polylines(svg: &str, len: usize) -> Vec<Vec<(f64, f64)>> {
    svg.split("<polyline")
        .skip(1)
        .filter_map(|element| {
            let points = element.split("points=\"").nth(1)?.split('"').next()?;
            let parsed: Vec<(f64, f64)> = points
                .split_whitespace()
                .map(|pair| {
                    let (x, y) = pair.split_once(',').expect("x,y");
                    (x.parse().unwrap(), y.parse().unwrap())
                })
                .collect();
            (parsed.len() == len).then_some(parsed)
        })
        .collect()
}

/// The least-squares line through `points` and its largest residual.
fn fit(points: &[(f64, f64)]) -> (f64, f64, f64) {
    let n = points.len() as f64;
    let (mean_x, mean_y) = (points.iter().map(|p| p.0).sum::<f64>() / n, points.iter().map(|p| p.1).sum::<f64>() / n);
    let covariance: f64 = points.iter().map(|p| (p.0 - mean_x) * (p.1 - mean_y)).sum();
    let variance: f64 = points.iter().map(|p| (p.0 - mean_x) * (p.0 - mean_x)).sum();
    let slope = covariance / variance;
    let intercept = mean_y - slope * mean_x;
    let worst = points.iter().map(|p| (p.1 - intercept - slope * p.0).abs()).fold(0.0, f64::max);
    (intercept, slope, worst)
}

#[test]
fn eval_draws_a_chart_that_agrees_with_its_json_lines() {
    let dir = TempDir::new().unwrap();
    evolve(dir.path(), "run", "4", "2");
    tickbot(dir.path())
        .args(["eval", "draft", "run", "--games", "2", "--curve-games", "20"])
        .assert()
        .success()
        .stdout(predicate::str::contains("W vs best").and(predicate::str::contains("eval.svg")));
    let rows: Vec<serde_json::Value> = std::fs::read_to_string(dir.path().join("run/eval.jsonl"))
        .unwrap()
        .lines()
        .map(|line| serde_json::from_str(line).unwrap())
        .collect();
    assert_eq!(rows.iter().map(|row| row["generation"].as_u64().unwrap()).collect::<Vec<_>>(), [1, 2, 3, 4]);
    let svg = std::fs::read_to_string(dir.path().join("run/eval.svg")).unwrap();
    assert!(svg.starts_with("<svg") && svg.contains("Learning curve"), "an SVG chart");
    let lines = polylines(&svg, 4);
    let keys = ["vs_best", "vs_worst", "vs_population", "best_vs_closetai", "best_vs_icebox"];
    assert_eq!(lines.len(), keys.len(), "one line of 4 points per series");
    // Every point's height is one linear function of its value (both
    // panels share the 0-100% axis), and each panel's x follows the generation.
    let mut heights = Vec::new();
    for (line, key) in lines.iter().zip(keys) {
        for (point, row) in line.iter().zip(&rows) {
            heights.push((100.0 * row[key].as_f64().unwrap(), point.1));
        }
        let (_, x_slope, x_error) =
            fit(&line.iter().zip(&rows).map(|(p, row)| (row["generation"].as_f64().unwrap(), p.0)).collect::<Vec<_>>());
        assert!(x_slope > 0.0 && x_error < 1.0, "{key}: x does not follow the generation");
    }
    let (_, slope, error) = fit(&heights);
    assert!(slope < 0.0 && error < 1.0, "the chart's heights disagree with eval.jsonl: slope {slope}, error {error}");
}

#[test]
fn bad_evolution_flags_and_files_are_exit_code_2_naming_the_value() {
    let dir = TempDir::new().unwrap();
    let cases: [(&[&str], &str); 6] = [
        (&["--population", "1"], "--population 1: the population must hold at least 2 members"),
        (&["--pm", "2"], "--pm 2: expected a probability between 0 and 1"),
        (&["--pm", "often"], "invalid value 'often' for '--pm <P>'"),
        (&["--ts", "3", "--tournament", "knockout"], "--ts 3: a knock-out bracket needs a power of two"),
        (&["--battle", "smart"], "unknown --battle \"smart\""),
        (&["--wc", "1.5"], "--wc 1.5: expected a weight between 0 and 1"),
    ];
    for (flags, expected) in cases {
        tickbot(dir.path())
            .args(["evolve", "draft", "--out", "bad"])
            .args(flags)
            .assert()
            .code(2)
            .stderr(predicate::str::contains(expected));
    }
    assert_bad_input(dir.path(), &["evolve", "draft", "--resume", "nowhere"], "nowhere");
    std::fs::create_dir_all(dir.path().join("broken/generations")).unwrap();
    std::fs::write(dir.path().join("broken/generations/0000.json"), "{\"format\":\n  oops}").unwrap();
    assert_bad_input(
        dir.path(),
        &["evolve", "draft", "--resume", "broken"],
        "0000.json:2:3: not a draft evolution checkpoint",
    );
    let short: Vec<String> = (0..159).map(|index| index.to_string()).collect();
    std::fs::write(dir.path().join("short.txt"), short.join(" ")).unwrap();
    assert_bad_input(
        dir.path(),
        &["match", "locm", "--draft", "genome:short.txt,closetai"],
        "short.txt: 159 priorities; expected one per card, 160",
    );
}

#[test]
fn the_bundled_evolved_drafter_plays_its_golden_replay() {
    let config = Config::bundled();
    let mut bots = LocmBots::new(
        [DraftName::from_name("evolved").unwrap().bot(), DraftBot::ClosetAi],
        [BattleBot::Greedy, BattleBot::Greedy],
    );
    let recorded = tickbot::replay::record::<LocmGame>(&config, 4, &mut bots).unwrap();
    let golden = std::fs::read(repo_path("replays/v2/locm-evolved-closetai-greedy-seed4.tbr")).unwrap();
    assert!(
        tickbot::replay::encode_to_vec(&recorded).unwrap() == golden,
        "the bundled genome no longer plays its golden replay: record it again (replays/README.md)"
    );
}
