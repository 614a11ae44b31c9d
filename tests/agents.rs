//! External agents that misbehave, each with its documented outcome, and
//! none of their processes left behind (no zombie, no orphan); processes
//! that die with tickbot, even by `kill -9`; the sandbox keeping a bot off
//! the network and out of every directory but its own; and contest-protocol
//! agents playing whole LOCM games.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use nix::sys::wait::{WaitPidFlag, WaitStatus, waitpid};
use nix::unistd::Pid;
use predicates::prelude::*;
use tempfile::TempDir;
use tickbot::agent::locm::{LocmSeats, Seat};
use tickbot::agent::{AgentSpec, Exit, Fault, Limits, Process};
use tickbot::game::Game;
use tickbot::game::Status;
use tickbot::game::locm::plan::draft::DraftBot;
use tickbot::game::locm::plan::seats::LocmBots;
use tickbot::game::locm::plan::{BattleBot, DraftName};
use tickbot::game::locm::{Action, Config, LocmGame};
use tickbot::plan::{Budget, Planner};

/// `sh -c SCRIPT` as an agent, through tickbot's launcher.
fn shell(script: &str) -> AgentSpec {
    AgentSpec {
        program: "sh".to_string(),
        args: vec!["-c".to_string(), script.to_string()],
        dir: None,
        limits: Limits { margin: Duration::from_millis(20), ..Limits::default() },
        launcher: Some(PathBuf::from(env!("CARGO_BIN_EXE_tickbot"))),
    }
}

/// Every process whose process group is `pgid`, zombies included.
fn group_members(pgid: u32) -> Vec<u32> {
    let mut members = Vec::new();
    for entry in std::fs::read_dir("/proc").unwrap().flatten() {
        let Ok(pid) = entry.file_name().to_string_lossy().parse::<u32>() else { continue };
        let Ok(stat) = std::fs::read_to_string(entry.path().join("stat")) else { continue };
        // Fields after the command's closing parenthesis: state ppid pgrp ...
        let Some(rest) = stat.rsplit_once(')').map(|(_, rest)| rest) else { continue };
        let fields: Vec<&str> = rest.split_whitespace().collect();
        if fields.get(2).and_then(|pgrp| pgrp.parse::<u32>().ok()) == Some(pgid) {
            members.push(pid);
        }
    }
    members
}

/// Waits up to two seconds for group `pgid` to be empty. Members that
/// died as orphans may have been adopted by this test process (tickbot's
/// agents make the process that runs them a child subreaper, and the tests
/// run them too): this reaps those, as init would.
fn assert_group_gone(pgid: u32) {
    let give_up = Instant::now() + Duration::from_secs(2);
    loop {
        while let Ok(WaitStatus::Exited(..) | WaitStatus::Signaled(..)) =
            waitpid(Pid::from_raw(-(pgid as i32)), Some(WaitPidFlag::WNOHANG))
        {}
        if group_members(pgid).is_empty() {
            break;
        }
        assert!(Instant::now() < give_up, "processes of group {pgid} remain: {:?}", group_members(pgid));
        std::thread::sleep(Duration::from_millis(10));
    }
}

/// Spawns `script`, makes one call with a 100 ms limit, ends the agent and
/// checks its group is gone; returns the call's fault.
fn one_call(script: &str) -> Fault {
    let mut process = Process::spawn(&shell(script)).expect("spawns");
    let pgid = process.id();
    let started = Instant::now();
    let fault = process.call("hello\n", Duration::from_millis(100)).expect_err("a fault");
    assert!(started.elapsed() < Duration::from_secs(2), "a call is bounded: {:?}", started.elapsed());
    process.end();
    assert_group_gone(pgid);
    fault
}

#[test]
fn an_agent_that_answers_is_read_line_by_line() {
    let mut process = Process::spawn(&shell("while read line; do echo \"got $line\"; done")).unwrap();
    assert_eq!(process.call("one\n", Duration::from_millis(1000)).unwrap(), "got one");
    assert_eq!(process.call("two\n", Duration::from_millis(1000)).unwrap(), "got two");
    let pgid = process.id();
    drop(process);
    assert_group_gone(pgid);
}

#[test]
fn a_sleeping_or_silent_agent_times_out_with_its_overrun() {
    for script in ["read line; sleep 5", "cat > /dev/null", "read line; printf 'PASS'; sleep 5"] {
        match one_call(script) {
            Fault::Timeout { limit, waited } => {
                assert_eq!(limit, Duration::from_millis(100));
                assert!(waited >= Duration::from_millis(120), "{script}: {waited:?}");
            }
            other => panic!("{script}: {other}"),
        }
    }
}

#[test]
fn an_agent_that_exits_or_crashes_is_a_crash_with_its_status_or_signal() {
    assert_eq!(one_call("read line; exit 3"), Fault::Crash(Exit::Code(3)));
    assert_eq!(one_call("read line; kill -SEGV $$"), Fault::Crash(Exit::Signal(11)));
    assert_eq!(one_call("exec 1>&-; sleep 5"), Fault::Crash(Exit::ClosedOutput));
    // A program that does not exist: the launcher says so and exits 127.
    let mut missing = shell("");
    missing.program = "/nonexistent/bot".to_string();
    let mut process = Process::spawn(&missing).unwrap();
    assert_eq!(process.call("x\n", Duration::from_millis(1000)), Err(Fault::Crash(Exit::Code(127))));
    assert!(process.stderr_tail().contains("/nonexistent/bot"), "{}", process.stderr_tail());
}

#[test]
fn a_flood_is_a_protocol_fault_and_is_read_no_further() {
    let fault = one_call("read line; yes | tr -d '\\n'");
    let Fault::Protocol { reason, line } = fault else { panic!("{fault}") };
    assert_eq!(reason, "a line longer than 65536 bytes");
    assert!(line.starts_with("yyyy") && line.chars().count() <= 121, "{line}");
}

#[test]
fn an_agent_that_ignores_sigterm_or_forks_children_is_killed_with_them() {
    let script = "trap '' TERM; sleep 300 & sleep 300 & read line; sleep 300";
    let mut process = Process::spawn(&shell(script)).unwrap();
    let pgid = process.id();
    std::thread::sleep(Duration::from_millis(100));
    assert!(group_members(pgid).len() >= 3, "{:?}", group_members(pgid));
    assert!(matches!(process.call("x\n", Duration::from_millis(50)), Err(Fault::Timeout { .. })));
    drop(process);
    assert_group_gone(pgid);
}

#[test]
fn stderr_is_kept_bounded_and_never_blocks_the_agent() {
    // 1 MiB on stderr before the answer: a pipe holds 64 KiB, so this
    // answers only if stderr is drained meanwhile.
    let script = "read line; head -c 1048576 /dev/zero | tr '\\0' e >&2; echo 'last words' >&2; echo done";
    let mut process = Process::spawn(&shell(script)).unwrap();
    assert_eq!(process.call("x\n", Duration::from_millis(5000)).unwrap(), "done");
    let tail = process.stderr_tail();
    assert!(tail.len() <= 4096 && tail.ends_with("last words\n"), "{} bytes", tail.len());
}

#[test]
fn agents_die_with_tickbot_even_by_kill_9() {
    let dir = TempDir::new().unwrap();
    let pid_file = dir.path().join("agent.pid");
    let agent = format!("exec:sh -c 'echo $$ > {}; sleep 300'", pid_file.display());
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_tickbot"))
        .current_dir(dir.path())
        .args(["match", "locm", "--draft", &format!("{agent},icebox"), "--games", "2", "--threads", "1"])
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let give_up = Instant::now() + Duration::from_secs(20);
    let agent_pid = loop {
        if let Some(pid) = std::fs::read_to_string(&pid_file).ok().and_then(|text| text.trim().parse::<u32>().ok()) {
            break pid;
        }
        assert!(Instant::now() < give_up, "the agent never started");
        std::thread::sleep(Duration::from_millis(10));
    };
    assert!(Path::new(&format!("/proc/{agent_pid}")).exists());
    child.kill().unwrap(); // SIGKILL: tickbot cleans nothing up itself.
    child.wait().unwrap();
    assert_group_gone(agent_pid);
}

/// A LOCM agent in sh that reads each turn's input as the protocol lays
/// it out and answers every turn with `answer`.
fn locm_agent(answer: &str) -> AgentSpec {
    let skip = "i=0; while [ $i -lt $n ]; do read x; i=$((i+1)); done";
    shell(&format!("while read me; do read them; read h n; {skip}; read n; {skip}; echo '{answer}'; done"))
}

#[test]
fn a_locm_agent_plays_whole_games_over_the_contest_protocol() {
    let config = Config::bundled();
    let mut seats = LocmSeats::new([Seat::Bots(DraftBot::Icebox, BattleBot::Greedy), Seat::Agent(locm_agent("PASS"))]);
    for seed in 0..3 {
        let result = seats.play_out(LocmGame::new(&config, seed));
        // Passing every turn (and taking the first card) loses to greedy.
        assert_eq!((result.winner, &result.fault), (0, &None), "seed {seed}");
        assert!(result.calls > 30, "{} calls", result.calls);
    }
}

#[test]
fn a_garbage_answer_loses_a_locm_game_by_a_protocol_fault() {
    let config = Config::bundled();
    let mut seats = LocmSeats::new([Seat::Agent(locm_agent("HELLO")), Seat::Bots(DraftBot::Icebox, BattleBot::Greedy)]);
    let result = seats.play_out(LocmGame::new(&config, 3));
    assert_eq!(result.winner, 1);
    let Some((0, Fault::Protocol { line, .. })) = &result.fault else { panic!("{:?}", result.fault) };
    assert_eq!(line, "HELLO");
}

/// `tickbot agent locm` with these bots, as an agent.
fn tickbot_agent(draft: &str, battle: &str) -> AgentSpec {
    let tickbot = env!("CARGO_BIN_EXE_tickbot");
    let mut spec = AgentSpec::parse(&format!("exec:{tickbot} agent locm --draft {draft} --battle {battle}"))
        .expect("exec:")
        .expect("a command");
    // Tests are not timed: a loaded machine must not turn into timeouts.
    spec.limits.margin = Duration::from_secs(5);
    spec.launcher = Some(PathBuf::from(tickbot));
    spec
}

/// The actions of a whole game played by `planner`.
fn actions_of(planner: &mut impl Planner<LocmGame>, seed: u64) -> (Vec<Action>, Option<u8>) {
    let mut game = LocmGame::new(&Config::bundled(), seed);
    let mut actions = Vec::new();
    while game.status() == Status::Running {
        let decision = planner.next_action(&game, &Budget::unlimited()).expect("an action");
        game.step(decision.action).expect("a legal action");
        actions.push(decision.action);
    }
    (actions, game.winner())
}

#[test]
fn tickbot_agent_processes_play_exactly_the_in_process_games() {
    let pairs = [(("icebox", "greedy"), ("closetai", "max-attack")), (("coac", "pass"), ("chad", "greedy"))];
    for ((draft0, battle0), (draft1, battle1)) in pairs {
        for seed in 0..2 {
            let named = |name: &str| DraftName::from_name(name).unwrap().bot();
            let battle = |name: &str| BattleBot::named(name).unwrap();
            let mut in_process = LocmBots::new([named(draft0), named(draft1)], [battle(battle0), battle(battle1)]);
            let mut agents = LocmSeats::new([
                Seat::Agent(tickbot_agent(draft0, battle0)),
                Seat::Agent(tickbot_agent(draft1, battle1)),
            ]);
            let (expected, winner) = actions_of(&mut in_process, seed);
            let (played, agents_winner) = actions_of(&mut agents, seed);
            assert_eq!(agents.fault(), None);
            assert_eq!(played.len(), expected.len(), "{draft0} vs {draft1}, seed {seed}");
            assert_eq!(played, expected, "{draft0} vs {draft1}, seed {seed}");
            assert_eq!(agents_winner, winner);
        }
    }
}

/// The replay `play` records with `args`.
fn play_and_read(dir: &Path, name: &str, args: &[&str]) -> tickbot::replay::Replay {
    let file = format!("{name}.tbr");
    crate::support::tickbot(dir).args(args).args(["--record", &file]).assert().success();
    tickbot::replay::decode(&std::fs::read(dir.join(&file)).unwrap()).expect("a replay")
}

#[test]
fn the_json_lines_games_played_by_tickbot_agent_processes_record_the_in_process_replays() {
    let dir = TempDir::new().unwrap();
    let tickbot = env!("CARGO_BIN_EXE_tickbot");
    let flag_map = crate::support::repo_path("maps/flag/round-03.txt");
    let pipes_map = crate::support::repo_path("maps/pipes/10x10-flat.txt");
    let (flag_map, pipes_map) = (flag_map.to_str().unwrap(), pipes_map.to_str().unwrap());
    let cases: [(&str, Vec<&str>, Vec<&str>); 7] = [
        ("snake", vec!["--size", "8x8", "--seed", "5"], vec!["--planner", "bfs-tail"]),
        ("snake", vec!["--size", "6x6", "--seed", "2"], vec!["--planner", "cycle"]),
        ("flag", vec!["--map", flag_map, "--seed", "1"], vec!["--planner", "exact"]),
        ("pipes", vec!["--map", pipes_map, "--seed", "1"], vec!["--planner", "solve"]),
        // idastar with its pattern databases, and the ga, which draws from
        // the game's seed on both sides.
        ("slide", vec!["--size", "3", "--seed", "4"], vec!["--planner", "idastar", "--no-pdb-cache"]),
        ("slide", vec!["--size", "3", "--seed", "9"], vec!["--planner", "ga"]),
        ("slide", vec!["--tiles", "8 6 7 2 5 4 3 0 1", "--seed", "1"], vec!["--planner", "astar"]),
    ];
    for (index, (game, level, planner)) in cases.iter().enumerate() {
        let mut in_process = vec!["play", game];
        in_process.extend(level.iter().chain(planner));
        let expected = play_and_read(dir.path(), &format!("in-{index}"), &in_process);
        let agent = format!("exec:{tickbot} agent {game} {}", planner.join(" "));
        let mut external = vec!["play", game];
        external.extend(level.iter().chain(&["--planner", agent.as_str()]));
        let played = play_and_read(dir.path(), &format!("agent-{index}"), &external);
        assert!(expected.frames.len() > 1, "{game}: {} frames", expected.frames.len());
        assert_eq!(played.frames, expected.frames, "{game} {planner:?}");
        assert_eq!(played.header.planner.name, "agent");
    }
}

#[test]
fn a_json_lines_agent_that_answers_an_illegal_code_fails_its_game_with_the_reason() {
    let dir = TempDir::new().unwrap();
    crate::support::tickbot(dir.path())
        .args([
            "play",
            "snake",
            "--size",
            "6x6",
            "--planner=exec:sh -c 'read header; while read line; do echo 99; done'",
        ])
        .assert()
        .stdout(predicates::str::contains("protocol: not a legal action now: \"99\""));
}

#[test]
fn a_sandboxed_agent_cannot_connect_or_write_outside_its_directory() {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    let outside = TempDir::new().unwrap();
    let target = outside.path().join("escaped");
    let script = format!(
        "read line; \
         if echo x > {target}; then w=wrote-outside; else w=no-write-outside; fi; \
         if echo y > inside; then i=wrote-inside; else i=no-write-inside; fi; \
         if bash -c 'echo hi > /dev/tcp/127.0.0.1/{port}' 2>/dev/null; then n=connected; else n=no-connect; fi; \
         echo \"$w $i $n $(env | cut -d= -f1 | sort | tr '\\n' ,)\"",
        target = target.display()
    );
    let mut open = shell(&script);
    // Unsandboxed, the same script does escape: the test can fail.
    let scratch = TempDir::new().unwrap();
    open.dir = Some(scratch.path().to_path_buf());
    let mut process = Process::spawn(&open).unwrap();
    let answer = process.call("go\n", Duration::from_secs(10)).unwrap();
    assert!(answer.starts_with("wrote-outside wrote-inside connected"), "{answer}");
    drop(process);
    std::fs::remove_file(&target).unwrap();
    open.limits.sandbox = true;
    let mut process = Process::spawn(&open).unwrap();
    let answer = process.call("go\n", Duration::from_secs(10)).unwrap();
    // The environment is what tickbot names (sh adds PWD itself).
    let expected = "no-write-outside wrote-inside no-connect HOME,PATH,PWD,TMPDIR,";
    assert_eq!(answer, expected, "stderr: {}", process.stderr_tail());
    assert!(!target.exists());
}

#[test]
fn play_locm_takes_a_program_for_a_seat_and_records_the_in_process_replay() {
    let dir = TempDir::new().unwrap();
    let tickbot = env!("CARGO_BIN_EXE_tickbot");
    let bots = ["--battle", "greedy,max-attack", "--seed", "3"];
    let mut in_process = vec!["play", "locm", "--draft", "icebox,closetai"];
    in_process.extend(bots);
    let expected = play_and_read(dir.path(), "in", &in_process);
    let seat0 = format!("exec:{tickbot} agent locm --draft icebox --battle greedy,closetai");
    let mut external = vec!["play", "locm", "--draft", seat0.as_str(), "--agent-margin", "5000"];
    external.extend(bots);
    let played = play_and_read(dir.path(), "agent", &external);
    assert_eq!(played.frames, expected.frames);
    let params = &played.header.planner.params;
    assert!(params.iter().any(|(name, value)| name == "agent0" && value.ends_with("--battle greedy")), "{params:?}");
    crate::support::tickbot(dir.path()).args(["replay", "verify", "agent.tbr"]).assert().success();
}

#[test]
fn run_locm_plays_programs_for_a_seat_and_a_fault_aborts_the_game_with_its_reason() {
    let dir = TempDir::new().unwrap();
    let tickbot = env!("CARGO_BIN_EXE_tickbot");
    let seat0 = format!("exec:{tickbot} agent locm --draft icebox --battle greedy,closetai");
    crate::support::tickbot(dir.path())
        .args(["run", "--games", "2", "--jobs", "1", "--out", "good", "locm", "--draft", &seat0])
        .assert()
        .success()
        .stdout(predicates::str::contains("finished 2 games").and(predicates::str::contains("failed 0")));
    crate::support::tickbot(dir.path())
        .args([
            "run",
            "--games",
            "1",
            "--jobs",
            "1",
            "--out",
            "bad",
            "locm",
            "--draft",
            "exec:sh -c 'read x; exit 7',icebox",
        ])
        .assert()
        .stdout(predicates::str::contains("aborted 1"));
    let results = std::fs::read_to_string(dir.path().join("bad/results.jsonl")).unwrap();
    assert!(results.contains("player 0: crash: exited with status 7"), "{results}");
    crate::support::tickbot(dir.path()).args(["replay", "verify", "good/replays"]).assert().success();
}

#[test]
fn a_cpu_time_limit_ends_an_agent_that_spins() {
    let mut spec = shell("read line; while :; do :; done");
    spec.limits.cpu_seconds = Some(1);
    let mut process = Process::spawn(&spec).unwrap();
    let pgid = process.id();
    // A long call: the limit is CPU time, which a loaded machine hands out slowly.
    match process.call("go\n", Duration::from_secs(60)) {
        Err(Fault::Crash(Exit::Signal(signal))) => assert!(signal == 24 || signal == 9, "signal {signal}"),
        other => panic!("{other:?}"),
    }
    drop(process);
    assert_group_gone(pgid);
}

/// A session of snake, flag, pipes and slide entries; `agents` makes each entry's
/// planner a `tickbot agent GAME --planner NAME` process instead.
fn jsonl_session(dir: &Path, agents: bool) -> PathBuf {
    let tickbot = env!("CARGO_BIN_EXE_tickbot");
    let entries = [
        ("snake", "bfs-tail", "params = { size = \"8x8\" }\n".to_string()),
        ("flag", "exact", format!("level = {:?}\n", crate::support::repo_path("maps/flag/round-03.txt"))),
        ("pipes", "solve", format!("level = {:?}\n", crate::support::repo_path("maps/pipes/10x10-flat.txt"))),
        ("slide", "idastar", "params = { size = 3 }\n".to_string()),
    ];
    let mut text = String::from("seed = 11\n");
    for (game, planner, level) in entries {
        let player = match agents {
            true => format!("agent = [{tickbot:?}, \"agent\", \"{game}\", \"--planner\", \"{planner}\"]\n"),
            false => format!("planner = \"{planner}\"\n"),
        };
        text.push_str(&format!("[[entry]]\nname = \"{game}\"\ngame = \"{game}\"\n{level}{player}games = 3\n"));
    }
    let path = dir.join(if agents { "agents.toml" } else { "in-process.toml" });
    std::fs::write(&path, text).unwrap();
    path
}

/// A session's results by id, without the fields that may differ between
/// a planner and the same planner served as an agent (its name, the
/// agent's command, timings, where the replay is, and a default level's
/// name, which lists the entry's flags and so the planner), each with its
/// replay decoded.
fn session_results(dir: &Path, out: &str) -> Vec<(String, tickbot::replay::Replay)> {
    let text = std::fs::read_to_string(dir.join(out).join("results.jsonl")).unwrap();
    let mut results: Vec<(String, tickbot::replay::Replay)> = text
        .lines()
        .map(|line| {
            let mut value: serde_json::Value = serde_json::from_str(line).unwrap();
            let object = value.as_object_mut().unwrap();
            for field in ["planner", "planner_us", "elapsed_us", "level", "agents"] {
                object.remove(field);
            }
            let replay = object.remove("replay").unwrap();
            let bytes = std::fs::read(dir.join(replay.as_str().unwrap())).unwrap();
            (value.to_string(), tickbot::replay::decode(&bytes).unwrap())
        })
        .collect();
    results.sort_by(|a, b| a.0.cmp(&b.0));
    results
}

#[test]
fn a_session_whose_entries_are_tickbot_agent_processes_plays_the_in_process_session() {
    let dir = TempDir::new().unwrap();
    for (agents, out) in [(false, "in"), (true, "agents")] {
        let session = jsonl_session(dir.path(), agents);
        // The agents inherit the pattern-database cache's place.
        crate::support::tickbot(dir.path())
            .env("TICKBOT_PDB_DIR", dir.path().join("pdb"))
            .args(["run", "--config", session.to_str().unwrap(), "--out", out, "--jobs", "2"])
            .assert()
            .success();
    }
    let (expected, played) = (session_results(dir.path(), "in"), session_results(dir.path(), "agents"));
    assert_eq!(expected.len(), 12);
    assert_eq!(played.len(), expected.len());
    for ((expected_line, expected), (line, played)) in expected.iter().zip(&played) {
        assert_eq!(line, expected_line);
        assert!(expected.frames.len() > 1, "{line}: {} frames", expected.frames.len());
        // The replay is the in-process one but for the header's planner,
        // which names the command that played.
        assert_eq!(played.frames, expected.frames, "{line}");
        assert_eq!(played.header.game, expected.header.game, "{line}");
        assert_eq!(played.header.seed, expected.header.seed, "{line}");
        assert_eq!(played.header.initial_hash, expected.header.initial_hash, "{line}");
        assert_eq!(played.header.planner.name, "agent");
        assert!(played.header.planner.params[0].1.contains(" agent "), "{:?}", played.header.planner);
    }
}

#[test]
fn a_session_entry_agent_is_checked_before_anything_runs() {
    let dir = TempDir::new().unwrap();
    let cases = [
        ("game = \"locm\"\nagent = [\"./bot\"]\n", "planner = \"exec:./mybot --fast,icebox\""),
        ("game = \"snake\"\nagent = [\"./bot\"]\nplanner = \"cycle\"\n", "agent and planner: give one"),
        ("game = \"slide\"\nagent = [\"\"]\n", "agent: the first word is the program to run"),
        ("game = \"snake\"\nagent_call_ms = 5\n", "give the agent it limits"),
    ];
    for (entry, message) in cases {
        std::fs::write(dir.path().join("s.toml"), format!("[[entry]]\n{entry}games = 1\n")).unwrap();
        crate::support::tickbot(dir.path())
            .args(["run", "--config", "s.toml"])
            .assert()
            .code(2)
            .stderr(predicates::str::contains(message));
    }
}

/// An agent script that tries to write `outside` and then answers every
/// observation with the first legal action (a python3 program).
fn jsonl_agent_writing(outside: &Path) -> String {
    let program = format!(
        "import json, sys\n\
         sys.stdin.readline()\n\
         try:\n    open({outside:?}, 'w').write('x')\n\
         except OSError:\n    pass\n\
         for line in sys.stdin:\n    print(json.loads(line)['legal'][0], flush=True)\n",
        outside = outside.display().to_string()
    );
    format!("exec:python3 -c {}", shell_words::quote(&program))
}

#[test]
fn run_applies_the_agent_limits_and_the_sandbox_to_every_game_s_agents() {
    let dir = TempDir::new().unwrap();
    let outside = TempDir::new().unwrap();
    let target = outside.path().join("escaped");
    let agent = jsonl_agent_writing(&target);
    let run = |out: &str, extra: &[&str]| {
        crate::support::tickbot(dir.path())
            .args([
                "run",
                "--games",
                "1",
                "--jobs",
                "1",
                "--out",
                out,
                "slide",
                "--max-ticks",
                "20",
                "--planner",
                &agent,
            ])
            .args(extra)
            .assert()
            .success()
            .stdout(predicates::str::contains("finished 1 games"));
        let results = std::fs::read_to_string(dir.path().join(out).join("results.jsonl")).unwrap();
        assert!(results.contains("\"planner\":\"agent\""), "{results}");
    };
    // Unsandboxed, the agent does write outside: the test can fail.
    run("open", &[]);
    assert!(target.exists());
    std::fs::remove_file(&target).unwrap();
    run("sandboxed", &["--sandbox", "--agent-margin", "2000"]);
    assert!(!target.exists(), "a sandboxed agent of `run slide` wrote outside its directory");
    // A session entry's own field does the same.
    let session = format!(
        "[[entry]]\ngame = \"slide\"\nplanner = {agent:?}\nsandbox = true\nparams = {{ max-ticks = 20 }}\ngames = 1\n"
    );
    std::fs::write(dir.path().join("s.toml"), session).unwrap();
    crate::support::tickbot(dir.path()).args(["run", "--config", "s.toml", "--out", "entry"]).assert().success();
    let results = std::fs::read_to_string(dir.path().join("entry/results.jsonl")).unwrap();
    assert!(results.contains("\"entry\":\"slide-agent\""), "{results}");
    assert!(!target.exists(), "a sandboxed entry's agent wrote outside its directory");
}

/// A JSON-lines agent (python3) that holds `mib` MiB before its first
/// answer, then answers the first legal action every tick.
fn jsonl_agent_allocating(mib: u64) -> String {
    let program = format!(
        "import json, sys\n\
         sys.stdin.readline()\n\
         held = bytearray({mib} * 1024 * 1024)\n\
         for line in sys.stdin:\n    print(json.loads(line)['legal'][0], flush=True)\n"
    );
    format!("exec:python3 -c {}", shell_words::quote(&program))
}

#[test]
fn an_agent_past_its_memory_limit_is_a_crash_with_its_reason_and_the_session_goes_on() {
    let dir = TempDir::new().unwrap();
    let session = |limit: u64| {
        format!(
            "seed = 3\n\
             [[entry]]\nname = \"greedy\"\ngame = \"snake\"\nplanner = {agent:?}\nagent_memory = {limit}\n\
             agent_call_ms = 10000\nparams = {{ size = \"6x6\" }}\ngames = 2\n\
             [[entry]]\nname = \"cycle\"\ngame = \"snake\"\nplanner = \"cycle\"\nparams = {{ size = \"6x6\" }}\ngames = 2\n",
            agent = jsonl_agent_allocating(256)
        )
    };
    let results = |limit: u64, out: &str| -> Vec<serde_json::Value> {
        std::fs::write(dir.path().join(format!("{out}.toml")), session(limit)).unwrap();
        crate::support::tickbot(dir.path())
            .args(["run", "--config", &format!("{out}.toml"), "--out", out, "--jobs", "1"])
            .assert()
            .success();
        let text = std::fs::read_to_string(dir.path().join(out).join("results.jsonl")).unwrap();
        text.lines().map(|line| serde_json::from_str(line).unwrap()).collect()
    };
    // With room enough, the agent plays its games out: the limit is what ends it.
    for result in results(4096, "roomy") {
        assert_ne!(result["outcome"], "aborted", "{result}");
    }
    let limited = results(64, "limited");
    assert_eq!(limited.len(), 4);
    for result in &limited {
        let reason = result["reason"].as_str().unwrap();
        if result["entry"] == "greedy" {
            assert_eq!(result["outcome"], "aborted", "{result}");
            assert!(reason.contains("agent: crash: exited with status 1"), "{reason}");
        } else {
            assert_eq!(result["outcome"], "won", "{result}");
        }
    }
}

#[test]
fn stats_counts_each_agent_s_games_and_faults_by_kind_with_a_reason() {
    let dir = TempDir::new().unwrap();
    let session = "\
        [[entry]]\nname = \"crashy\"\ngame = \"snake\"\nplanner = \"exec:sh -c 'read h; exit 3'\"\nparams = { size = \"6x6\" }\ngames = 2\n\
        [[entry]]\nname = \"garbage\"\ngame = \"snake\"\nagent = [\"sh\", \"-c\", \"read h; read o; echo 99\"]\nparams = { size = \"6x6\" }\ngames = 1\n\
        [[entry]]\nname = \"locm\"\ngame = \"locm\"\nplanner = \"exec:sh -c 'read x; exit 7',icebox\"\ngames = 1\n\
        [[entry]]\nname = \"own\"\ngame = \"snake\"\nplanner = \"cycle\"\nparams = { size = \"6x6\" }\ngames = 1\n";
    std::fs::write(dir.path().join("s.toml"), session).unwrap();
    crate::support::tickbot(dir.path()).args(["run", "--config", "s.toml", "--out", "out"]).assert().success();
    let output = crate::support::tickbot(dir.path()).args(["stats", "out", "--json"]).output().unwrap();
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    let report: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    let agents: Vec<(String, serde_json::Value, String, u64, String)> = report["agents"]
        .as_array()
        .unwrap()
        .iter()
        .map(|agent| {
            let faults: Vec<String> = agent["faults"]
                .as_array()
                .unwrap()
                .iter()
                .map(|fault| format!("{} {} {}", fault["kind"], fault["count"], fault["example"]))
                .collect();
            (
                agent["entry"].as_str().unwrap().to_string(),
                agent["seat"].clone(),
                agent["command"].as_str().unwrap().to_string(),
                agent["games"].as_u64().unwrap(),
                faults.join("; "),
            )
        })
        .collect();
    let expected = [
        ("crashy", serde_json::Value::Null, "sh -c 'read h; exit 3'", 2, r#""crash" 2 "crash: exited with status 3""#),
        (
            "garbage",
            serde_json::Value::Null,
            "sh -c 'read h; read o; echo 99'",
            1,
            r#""protocol" 1 "protocol: not a legal action now: \"99\"""#,
        ),
        ("locm", serde_json::json!(0), "sh -c 'read x; exit 7'", 1, r#""crash" 1 "crash: exited with status 7""#),
    ];
    assert_eq!(agents.len(), expected.len(), "{agents:?}");
    for (found, (entry, seat, command, games, faults)) in agents.iter().zip(expected) {
        assert_eq!((found.0.as_str(), &found.1, found.2.as_str(), found.3), (entry, &seat, command, games));
        assert_eq!(found.4, faults);
    }
    // The table says it too.
    crate::support::tickbot(dir.path())
        .args(["stats", "out"])
        .assert()
        .success()
        .stdout(predicates::str::contains("locm seat 0: 1 games, 1 faults: crash 1"));
}

#[test]
fn run_s_agent_call_ms_is_the_limit_of_each_call() {
    let dir = TempDir::new().unwrap();
    let slow = "exec:sh -c 'read h; while read o; do sleep 0.3; echo 0; done'";
    crate::support::tickbot(dir.path())
        .args(["run", "snake", "--size", "6x6", "--games", "1", "--out", "out", "--planner", slow])
        .args(["--agent-call-ms", "100", "--agent-margin", "20"])
        .assert()
        .success();
    let results = std::fs::read_to_string(dir.path().join("out/results.jsonl")).unwrap();
    assert!(results.contains("agent: timeout: no answer within 100 ms"), "{results}");
}
