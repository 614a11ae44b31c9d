//! LOCM end to end: the 100 matches recorded from the reference Java referee
//! (`tests/data/locm/`, see its SOURCE.md) replayed through our engine in
//! Java seeding mode, comparing at every turn the input our engine would send
//! each player with the recorded one; and the command line (play, record,
//! verify, match, bench).

use predicates::prelude::*;
use tempfile::TempDir;
use tickbot::game::locm::battle::Move;
use tickbot::game::locm::view::View;
use tickbot::game::locm::{Action, Config, DeckRandomness, JavaSeeds, LocmGame};
use tickbot::game::{Game, Status};

use crate::support::{repo_path, tickbot};

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

fn normalise(text: &str) -> Vec<&str> {
    text.lines().map(str::trim_end).filter(|line| !line.is_empty()).collect()
}

/// Parses one referee command as the Java referee does; `None` for text it
/// would reject outright (none occurs in the dataset).
fn parse_command(text: &str) -> Option<Action> {
    let words: Vec<&str> = text.split_whitespace().collect();
    let number = |index: usize| words.get(index).and_then(|word| word.parse::<i64>().ok());
    let target = |value: i64| if value == -1 { Some(0) } else { u8::try_from(value).ok().filter(|&id| id > 0) };
    match *words.first()? {
        "PICK" => Some(Action::Pick(u8::try_from(number(1)?).ok()?)),
        "PASS" => None,
        "SUMMON" => Some(Action::Battle(Move::Summon {
            instance: u8::try_from(number(1)?).ok()?,
            lane: u8::try_from(number(2)?).ok()?,
        })),
        "ATTACK" => {
            Some(Action::Battle(Move::Attack { attacker: u8::try_from(number(1)?).ok()?, target: target(number(2)?)? }))
        }
        "USE" => Some(Action::Battle(Move::Use { item: u8::try_from(number(1)?).ok()?, target: target(number(2)?)? })),
        _ => None,
    }
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
        if normalise(&ours) != normalise(input) {
            return Err(format!("turn {turn_index} (player {player}):\nours:\n{ours}\nrecorded:\n{input}"));
        }
        if matches!(game.view(), View::Draft(_)) {
            let Some(action @ Action::Pick(_)) = parse_command(output.trim()) else {
                return Err(format!("turn {turn_index}: unexpected draft output {output:?}"));
            };
            game.step(action).map_err(|error| error.to_string())?;
            continue;
        }
        for command in output.split(';') {
            let Some(action) = parse_command(command) else { continue };
            // The referee skips an action that is not legal now.
            if game.step(action).is_ok() {
                n_actions += 1;
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
    view.referee_input(game.table())
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
        let output = tickbot(dir.path())
            .args(["match", "locm", "--draft", "icebox,max-attack", "--battle", "greedy", "--games", "60"])
            .args(["--seed", "5", "--json", "--threads", threads])
            .output()
            .unwrap();
        assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
        serde_json::from_slice(&output.stdout).expect("one JSON object")
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
    let output = tickbot(dir.path()).args(["bench", "locm", "--games", "40", "--json"]).output().unwrap();
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    let report: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
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
    tickbot(dir.path())
        .args(["play", "locm", "--draft", "wizard,icebox"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("unknown draft bot \"wizard\""));
    let cards = std::fs::read_to_string(repo_path("maps/locm/cardlist.txt")).unwrap();
    let broken = cards.replacen("3 ; Beavrat ; creature", "3 ; Beavrat ; monster", 1);
    std::fs::write(dir.path().join("cards.txt"), broken).unwrap();
    tickbot(dir.path())
        .args(["play", "locm", "--cards", "cards.txt"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("cards.txt:3:15: type: expected creature"));
    std::fs::write(dir.path().join("genome.txt"), "1 2 3\n4 oops\n").unwrap();
    tickbot(dir.path())
        .args(["match", "locm", "--draft", "genome:genome.txt,icebox", "--games", "2"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("genome.txt:2:3: expected a number"));
    let priorities: Vec<String> = (0..160).map(|index| (160 - index).to_string()).collect();
    std::fs::write(dir.path().join("genome.txt"), priorities.join("\n")).unwrap();
    tickbot(dir.path())
        .args(["match", "locm", "--draft", "genome:genome.txt,icebox", "--games", "4", "--json"])
        .assert()
        .success()
        .stdout(predicate::str::contains("\"draft_a\":\"genome\""));
}
