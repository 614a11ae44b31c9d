//! Sessions that run a sequential test between two entries, through the
//! real binary: the session stops by itself once the test decides, with
//! the verdict a test fed its pairs one at a time in index order reaches
//! (Snake by a measure; LOCM's seat-swapped drafts as pentanomial pairs,
//! with a seat played by a program too), on any number of jobs; killed with SIGKILL and resumed, it reaches the
//! uninterrupted verdict; split over shards and merged, it gives the
//! unsplit verdict at the same pair, in `merge` and in `stats`; and bad
//! `[sprt]` sections or `--sprt` flags exit 2 saying why.

use std::collections::BTreeMap;
use std::path::Path;

use serde_json::Value;
use tempfile::TempDir;

use tickbot::sprt::{Points, Sprt, SprtSpec, Unit, Verdict};

use crate::session::kill_and_resume;
use crate::support::{assert_bad_input, json_output, tickbot};

const SNAKE_TEST: &str = "elo0=0,elo1=50";

/// A session of Snake's `cycle` (A) against `bfs-tail` (B) on `size`
/// boards, compared by whether the game was won: `cycle` always fills the
/// board, `bfs-tail` now and then traps itself.
fn snake_session(dir: &Path, size: &str, games: u64) -> String {
    let text = format!(
        "seed = 3\n\
         [sprt]\na = \"cycle\"\nb = \"bfs\"\ntest = \"{SNAKE_TEST}\"\nmeasure = \"won\"\n\
         [[entry]]\nname = \"cycle\"\ngame = \"snake\"\nplanner = \"cycle\"\ngames = {games}\nparams = {{ size = \"{size}\" }}\n\
         [[entry]]\nname = \"bfs\"\ngame = \"snake\"\nplanner = \"bfs-tail\"\ngames = {games}\nparams = {{ size = \"{size}\" }}\n"
    );
    std::fs::write(dir.join("sprt.toml"), text).unwrap();
    "sprt.toml".to_string()
}

fn run(dir: &Path, args: &[&str]) -> String {
    let output = tickbot(dir).arg("run").args(args).output().unwrap();
    assert!(output.status.success(), "{args:?}: {}", String::from_utf8_lossy(&output.stderr));
    String::from_utf8(output.stdout).unwrap()
}

/// The results lines of a session directory, by entry and index.
fn results(out: &Path) -> BTreeMap<(String, u64), Value> {
    let text = std::fs::read_to_string(out.join("results.jsonl")).unwrap();
    text.lines()
        .map(|line| {
            let value: Value = serde_json::from_str(line).unwrap();
            ((value["entry"].as_str().unwrap().to_string(), value["index"].as_u64().unwrap()), value)
        })
        .collect()
}

/// The test fed pair 0, 1, ... of the results one at a time until it
/// decides: `(pairs, verdict, llr)`. `points` turns a pair's two games
/// (A's, B's) into the observation.
fn decide_by_hand(
    out: &Path,
    (a, b): (&str, &str),
    spec: &str,
    unit: Unit,
    points: impl Fn(&Value, &Value) -> (Points, Option<Points>),
) -> (u64, Verdict, f64) {
    let results = results(out);
    let mut sprt = Sprt::new(spec.parse::<SprtSpec>().unwrap(), unit);
    for index in 0.. {
        let (Some(first), Some(second)) = (results.get(&(a.into(), index)), results.get(&(b.into(), index))) else {
            panic!("pair {index} is incomplete and the test has not decided");
        };
        assert_eq!(first["seed"], second["seed"], "B plays A's seeds");
        match points(first, second) {
            (game, None) => sprt.add_game(game),
            (one, Some(other)) => sprt.add_pair(one, other),
        }
        if sprt.verdict() != Verdict::Continue {
            return (index + 1, sprt.verdict(), sprt.llr());
        }
    }
    unreachable!()
}

fn won(line: &Value) -> bool {
    line["outcome"] == "won"
}

fn session_verdict(dir: &Path, out: &str) -> Value {
    json_output(dir, &["stats", out, "--json"])["session_sprt"].clone()
}

#[test]
fn a_session_with_a_test_stops_itself_with_the_verdict_of_its_pairs_in_index_order_on_any_jobs() {
    let dir = TempDir::new().unwrap();
    let session = snake_session(dir.path(), "6x6", 200);
    let mut verdicts = Vec::new();
    for jobs in ["1", "3"] {
        let out = format!("out{jobs}");
        let printed = run(dir.path(), &["--config", &session, "--out", &out, "--jobs", jobs, "--replays", "none"]);
        assert!(printed.contains("H1 accepted"), "{printed}");
        let recorded = results(&dir.path().join(&out)).len();
        let by_hand = decide_by_hand(&dir.path().join(&out), ("cycle", "bfs"), SNAKE_TEST, Unit::Games, |a, b| {
            (Points::of_ordering(won(a).cmp(&won(b))), None)
        });
        assert_eq!(by_hand.1, Verdict::H1);
        assert!(recorded < 400 && recorded as u64 >= 2 * by_hand.0, "{recorded} games for {by_hand:?}");
        let verdict = session_verdict(dir.path(), &out);
        assert_eq!(verdict["decision"]["observations"].as_u64(), Some(by_hand.0), "{verdict}");
        assert_eq!(verdict["status"]["llr"].as_f64(), Some(by_hand.2));
        verdicts.push((verdict["decision"].clone(), verdict["status"].clone()));
    }
    assert_eq!(verdicts[0], verdicts[1], "the verdict does not depend on the jobs");
}

#[test]
fn a_locm_session_counts_each_seat_swapped_draft_as_a_pentanomial_pair() {
    let dir = TempDir::new().unwrap();
    let text = "seed = 5\n\
                [[entry]]\nname = \"icebox-first\"\ngame = \"locm\"\nplanner = \"icebox,max-attack\"\ngames = 300\n\
                [[entry]]\nname = \"icebox-second\"\ngame = \"locm\"\nplanner = \"max-attack,icebox\"\ngames = 300\n";
    std::fs::write(dir.path().join("locm.toml"), text).unwrap();
    let spec = "elo0=0,elo1=50";
    let printed = run(dir.path(), &["--config", "locm.toml", "--out", "out", "--sprt", spec, "--replays", "none"]);
    assert!(printed.contains("H1 accepted"), "{printed}");
    // Icebox's points: A's seat 0 winning, and B's seat 0 losing.
    let (pairs, verdict, llr) =
        decide_by_hand(&dir.path().join("out"), ("icebox-first", "icebox-second"), spec, Unit::Pairs, |a, b| {
            let first = if won(a) { Points::Win } else { Points::Loss };
            let second = if won(b) { Points::Loss } else { Points::Win };
            (first, Some(second))
        });
    assert_eq!(verdict, Verdict::H1);
    assert!(results(&dir.path().join("out")).len() < 600);
    let session = session_verdict(dir.path(), "out");
    assert_eq!(session["status"]["unit"], "pairs");
    assert_eq!(session["decision"]["observations"].as_u64(), Some(pairs), "{session}");
    assert_eq!(session["status"]["llr"].as_f64(), Some(llr));
    let pentanomial: u64 =
        session["status"]["pentanomial"].as_array().unwrap().iter().map(|n| n.as_u64().unwrap()).sum();
    assert_eq!(pentanomial, pairs);
    // Icebox as a contest-protocol program (tickbot's own agent) in both
    // entries: the same games, so the same verdict at the same draft.
    let agent = format!("exec:{} agent locm --draft icebox", assert_cmd::cargo::cargo_bin("tickbot").display());
    let text = text
        .replace("\"icebox,max-attack\"", &format!("\"{agent},max-attack\""))
        .replace("\"max-attack,icebox\"", &format!("\"max-attack,{agent}\""));
    std::fs::write(dir.path().join("agents.toml"), text).unwrap();
    let printed = run(dir.path(), &["--config", "agents.toml", "--out", "agents", "--sprt", spec, "--replays", "none"]);
    let level = results(&dir.path().join("agents"))[&("icebox-first".to_string(), 0)]["level"].clone();
    assert!(level.as_str().unwrap().contains("exec:"), "{level}");
    assert!(printed.contains("H1 accepted"), "{printed}");
    let agents = session_verdict(dir.path(), "agents");
    assert_eq!((&agents["decision"], &agents["status"]), (&session["decision"], &session["status"]));
}

#[test]
fn a_session_killed_and_resumed_reaches_the_uninterrupted_verdict() {
    let dir = TempDir::new().unwrap();
    // Boards large enough that a session lasts long enough to be killed.
    let session = snake_session(dir.path(), "14x14", 200);
    let args = |out: &str| ["--config", &session, "--out", out, "--jobs", "2", "--replays", "none"].map(String::from);
    run(dir.path(), &args("whole").iter().map(String::as_str).collect::<Vec<_>>());
    let start: Vec<String> = ["run".to_string()].into_iter().chain(args("killed")).collect();
    let start: Vec<&str> = start.iter().map(String::as_str).collect();
    let resume = ["run", "--resume", "killed"];
    let mut state = 0x5eed;
    let kills = kill_and_resume(dir.path(), &dir.path().join("killed"), &start, &resume, &[], 3, &mut state);
    assert!(kills >= 1, "the session ended before it could be killed");
    let finished = run(dir.path(), &["--resume", "killed"]);
    let (whole, killed) = (session_verdict(dir.path(), "whole"), session_verdict(dir.path(), "killed"));
    assert!(whole["decision"]["verdict"] == "H1", "{whole}");
    assert_eq!((&killed["decision"], &killed["status"]), (&whole["decision"], &whole["status"]));
    // The resumed runs counted the games recorded before them: the session
    // stopped by itself, and the last run printed the verdict.
    let pairs = whole["decision"]["observations"].as_u64().unwrap();
    assert!(results(&dir.path().join("killed")).len() < 400);
    assert!(finished.contains(&format!("H1 accepted (elo1=50 rather than elo0=0) after {pairs} pairs")), "{finished}");
    // A decided session has nothing left to play.
    let again = run(dir.path(), &["--resume", "killed"]);
    assert!(again.contains("nothing left to play"), "{again}");
}

#[test]
fn shards_play_their_share_and_merge_gives_the_unsplit_verdict() {
    let dir = TempDir::new().unwrap();
    let session = snake_session(dir.path(), "6x6", 60);
    run(dir.path(), &["--config", &session, "--out", "whole", "--replays", "none"]);
    for shard in ["0/2", "1/2"] {
        let out = format!("shard{}", &shard[..1]);
        let printed = run(dir.path(), &["--config", &session, "--out", &out, "--shard", shard, "--replays", "none"]);
        assert!(!printed.contains("\nverdict "), "a shard gives no verdict of its own: {printed}");
        assert_eq!(results(&dir.path().join(&out)).len(), 60, "a shard plays all of its games");
    }
    let merged = tickbot(dir.path()).args(["merge", "shard1", "shard0", "--out", "merged"]).output().unwrap();
    assert!(merged.status.success(), "{}", String::from_utf8_lossy(&merged.stderr));
    let whole = session_verdict(dir.path(), "whole");
    let pairs = whole["decision"]["observations"].as_u64().unwrap();
    assert!(whole["decision"]["verdict"] == "H1" && pairs < 60, "{whole}");
    let printed = String::from_utf8(merged.stdout).unwrap();
    assert!(printed.contains(&format!("H1 accepted (elo1=50 rather than elo0=0) after {pairs} pairs")), "{printed}");
    let merged = session_verdict(dir.path(), "merged");
    assert_eq!((&merged["decision"], &merged["status"]), (&whole["decision"], &whole["status"]));
    // `stats --sprt` with the session's test over the merged pairs agrees.
    let again = json_output(dir.path(), &["stats", "merged", "--sprt", SNAKE_TEST, "--json"]);
    assert_eq!((&again["decision"], &again["status"]), (&whole["decision"], &whole["status"]));
    // The unsplit session stopped early, and merging it alone lists nothing missing.
    let alone = tickbot(dir.path()).args(["merge", "whole", "--out", "whole-merged"]).output().unwrap();
    assert!(alone.status.success(), "{}", String::from_utf8_lossy(&alone.stderr));
}

#[test]
fn bad_tests_in_session_files_and_flags_exit_2_saying_why() {
    let dir = TempDir::new().unwrap();
    let entry = |name: &str, planner: &str| {
        format!("[[entry]]\nname = \"{name}\"\ngame = \"snake\"\nplanner = \"{planner}\"\ngames = 4\n")
    };
    let write = |text: String| std::fs::write(dir.path().join("bad.toml"), text).unwrap();
    let two = format!("{}{}", entry("x", "cycle"), entry("y", "bfs-tail"));
    write(format!("[sprt]\na = \"x\"\nb = \"z\"\ntest = \"elo0=0,elo1=5\"\n{two}"));
    assert_bad_input(dir.path(), &["run", "--config", "bad.toml"], "must name entries of the session (it has x, y)");
    write(format!("[sprt]\na = \"x\"\nb = \"y\"\ntest = \"elo0=5,elo1=0\"\n{two}"));
    assert_bad_input(dir.path(), &["run", "--config", "bad.toml"], "bad.toml:1:1: sprt: test = \"elo0=5,elo1=0\"");
    write(format!("[sprt]\na = \"x\"\nb = \"y\"\ntest = \"p0=0.5,p1=0.6\"\nmeasure = \"length\"\n{two}"));
    assert_bad_input(dir.path(), &["run", "--config", "bad.toml"], "unknown variant `length`");
    write(format!("{two}{}", entry("w", "cycle")));
    assert_bad_input(dir.path(), &["run", "--config", "bad.toml", "--sprt", "elo0=0,elo1=5"], "exactly two entries");
    let locm = "[[entry]]\nname = \"p\"\ngame = \"locm\"\nplanner = \"icebox,random\"\ngames = 4\n\
                [[entry]]\nname = \"q\"\ngame = \"locm\"\nplanner = \"icebox,random\"\ngames = 4\n";
    write(locm.to_string());
    assert_bad_input(dir.path(), &["run", "--config", "bad.toml", "--sprt", "elo0=0,elo1=5"], "seats swapped");
    write(two);
    run(dir.path(), &["--config", "bad.toml", "--out", "ok", "--sprt", "elo0=0,elo1=5", "--replays", "none"]);
    assert_bad_input(dir.path(), &["run", "--resume", "ok", "--sprt", "elo0=0,elo1=9"], "--sprt with --resume");
}
