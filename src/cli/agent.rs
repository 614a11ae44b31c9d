//! The agent commands: `agent-exec`, the hidden launcher every external
//! agent is started through (it arms the death signal, the limits and the
//! sandbox, then becomes the agent: see `tickbot::agent::launch`), and the
//! flags that turn `exec:COMMAND` into an agent for `play`, `run` and
//! `match`.

use std::ffi::OsString;
use std::sync::Arc;
use std::time::Duration;

use clap::Args;

use tickbot::agent::json::{DEFAULT_CALL_MS, JsonAgent, serve_json};
use tickbot::agent::launch::{self, LaunchArgs};
use tickbot::agent::{AgentSpec, Limits};
use tickbot::game::Replayable;
use tickbot::plan::Planner;
use tickbot::session::{EntryPlayer, GameEntry};

use super::common::PlayArgs;
use super::support::{Exit, ExitOnError, Failure, finished};

/// `tickbot agent-exec --parent PID [--memory BYTES] [--cpu SECONDS] [--sandbox] -- PROGRAM ARGS...`
#[derive(Debug, Args)]
pub(crate) struct AgentExec {
    #[arg(long)]
    parent: u32,
    #[arg(long)]
    memory: Option<u64>,
    #[arg(long)]
    cpu: Option<u64>,
    #[arg(long)]
    sandbox: bool,
    #[arg(required = true, trailing_var_arg = true, allow_hyphen_values = true)]
    command: Vec<String>,
}

/// Becomes the agent; returns only if that failed (exit 127, as a shell
/// says "command not found").
pub(crate) fn exec(args: AgentExec) -> Result<Exit, Failure> {
    let launch = LaunchArgs {
        parent: args.parent,
        memory_bytes: args.memory,
        cpu_seconds: args.cpu,
        sandbox: args.sandbox,
        program: args.command[0].clone(),
        args: args.command[1..].to_vec(),
    };
    let Err(error) = launch::exec(&launch);
    eprintln!("tickbot agent-exec: {}: {error}", launch.program);
    std::process::exit(127)
}

/// How external agents (`exec:COMMAND` where a bot is named) are run.
#[derive(Clone, Debug, Args)]
pub(crate) struct AgentArgs {
    /// Milliseconds added to every call's time limit before it is a timeout
    /// (pipes and a loaded machine take time too).
    #[arg(long, value_name = "MS", default_value_t = 50, help_heading = "External agents (exec:COMMAND)")]
    pub agent_margin: u64,
    /// Each agent's address space limit, in MiB.
    #[arg(long, value_name = "MIB", help_heading = "External agents (exec:COMMAND)")]
    pub agent_memory: Option<u64>,
    /// Each agent's CPU time limit per game, in seconds.
    #[arg(long, value_name = "SECONDS", help_heading = "External agents (exec:COMMAND)")]
    pub agent_cpu: Option<u64>,
    /// Run agents in the sandbox: no network, a private scratch directory as the
    /// working directory and the only place they may write, a clean environment,
    /// file and descriptor limits (see docs/protocols.md).
    #[arg(long, help_heading = "External agents (exec:COMMAND)")]
    pub sandbox: bool,
}

impl Default for AgentArgs {
    /// The flags' defaults, for commands that do not take them (`run`).
    fn default() -> AgentArgs {
        AgentArgs { agent_margin: 50, agent_memory: None, agent_cpu: None, sandbox: false }
    }
}

impl AgentArgs {
    /// The agent `name` stands for, if it is `exec:COMMAND`; an error for
    /// an `exec:` that names no program.
    pub(crate) fn spec(&self, name: &str) -> anyhow::Result<Option<AgentSpec>> {
        let Some(parsed) = AgentSpec::parse(name) else { return Ok(None) };
        self.limit(parsed.map_err(anyhow::Error::msg)?).map(Some)
    }

    /// `spec` with these limits, started through tickbot's launcher.
    fn limit(&self, mut spec: AgentSpec) -> anyhow::Result<AgentSpec> {
        spec.limits = Limits {
            margin: Duration::from_millis(self.agent_margin),
            memory_bytes: self.agent_memory.map(|mib| mib * 1024 * 1024),
            cpu_seconds: self.agent_cpu,
            sandbox: self.sandbox,
            ..Limits::default()
        };
        spec.launcher = Some(std::env::current_exe()?);
        Ok(spec)
    }
}

/// The external agent `play GAME --planner 'exec:COMMAND'` names (`--agent`
/// after [`with_exec_planners`]), as a planner of `G` for the game of
/// `options.seed` on `config`, with the limits `agents` set.
pub(crate) fn json_agent<G: Replayable>(
    options: &PlayArgs,
    agents: &AgentArgs,
    config: &G::Config,
) -> Result<Option<JsonAgent<G>>, Failure> {
    let Some(command) = options.agent.as_deref() else { return Ok(None) };
    let spec = agents.spec(&format!("exec:{command}")).exit_code(Exit::BadInput)?.expect("an exec: prefix");
    Ok(Some(JsonAgent::new(spec, Duration::from_millis(options.agent_call_ms), options.seed, config)))
}

/// The games whose `--planner` may be `exec:COMMAND` (LOCM names its
/// programs per seat in `--draft`).
const JSON_GAMES: [&str; 4] = ["snake", "flag", "slide", "pipes"];

/// Takes the first `--planner exec:COMMAND` (or `--planner=exec:COMMAND`)
/// out of `words` and returns its value, `exec:` included.
pub(crate) fn take_exec_planner(words: &mut Vec<String>) -> Option<String> {
    let is_exec = |value: &str| value.starts_with("exec:");
    let at = words.iter().enumerate().position(|(index, word)| {
        (word == "--planner" && words.get(index + 1).is_some_and(|value| is_exec(value)))
            || word.strip_prefix("--planner=").is_some_and(is_exec)
    })?;
    let word = words.remove(at);
    Some(match word.strip_prefix("--planner=") {
        Some(value) => value.to_string(),
        None => words.remove(at),
    })
}

/// The command line as clap is to read it. The planners' `--planner` flags
/// are lists of names, so an `exec:COMMAND` there is taken out first:
/// `play GAME --planner 'exec:COMMAND'` becomes `play GAME --agent
/// COMMAND`, and `run GAME` drops it (its entry reads its own flags from
/// the command line and takes it out again, see `run::build_entry`).
pub(crate) fn with_exec_planners(args: impl Iterator<Item = OsString>) -> Vec<OsString> {
    let args: Vec<OsString> = args.collect();
    let Some(mut words) = args.iter().map(|arg| arg.to_str().map(str::to_string)).collect::<Option<Vec<String>>>()
    else {
        return args;
    };
    // The command, then its game (run-wide flags may stand between them).
    let Some(command) = words.iter().position(|word| word == "play" || word == "run") else { return args };
    let Some(game) = words[command..].iter().position(|word| JSON_GAMES.contains(&word.as_str())) else {
        return args;
    };
    let mut tail = words.split_off(command + game + 1);
    if let Some(value) = take_exec_planner(&mut tail) {
        if words[command] == "play" {
            tail.extend(["--agent".to_string(), value["exec:".len()..].to_string()]);
        }
    }
    words.extend(tail);
    words.into_iter().map(OsString::from).collect()
}

/// What plays a session entry's games instead of a planner: a program over
/// the JSON-lines protocol, one process per game.
#[derive(Clone, Debug)]
pub(crate) struct EntryAgent {
    spec: AgentSpec,
    call: Duration,
}

impl EntryAgent {
    /// The agent an entry names, as `agent = [PROGRAM, ARGS...]` (`words`)
    /// or as `exec` (its `planner = "exec:COMMAND"`, or `--planner` among
    /// its flags); none if neither. `call_ms` per call, with `limits`.
    pub(crate) fn of(
        words: &[String],
        exec: Option<&str>,
        call_ms: Option<u64>,
        limits: &AgentArgs,
    ) -> anyhow::Result<Option<EntryAgent>> {
        let spec = match (words.split_first(), exec) {
            (Some(_), Some(_)) => anyhow::bail!("agent and planner = \"exec:...\": give one"),
            (None, Some(exec)) => AgentSpec::parse(exec).expect("an exec: prefix").map_err(anyhow::Error::msg)?,
            (Some((program, args)), None) => AgentSpec {
                program: program.clone(),
                args: args.to_vec(),
                dir: None,
                limits: Limits::default(),
                launcher: None,
            },
            (None, None) => return Ok(None),
        };
        let spec = limits.limit(spec)?;
        Ok(Some(EntryAgent { spec, call: Duration::from_millis(call_ms.unwrap_or(DEFAULT_CALL_MS)) }))
    }

    /// The entry whose games on `levels` this agent plays, each told its seed.
    pub(crate) fn player<G: Replayable>(self, levels: Vec<(String, Arc<G::Config>)>) -> Arc<dyn EntryPlayer> {
        let EntryAgent { spec, call } = self;
        GameEntry::<G, _>::seeded(levels, move |level: &G::Config, seed: u64| {
            JsonAgent::<G>::new(spec.clone(), call, seed, level)
        })
    }
}

/// `tickbot agent GAME` for the JSON-lines games: plays one game for the
/// referee on stdin and stdout with the planner `make` makes for the
/// header's configuration and seed (it may fail: slide's pattern databases).
pub(crate) fn serve<G: Replayable, P: Planner<G>>(
    make: impl FnOnce(&G::Config, u64) -> Result<P, Failure>,
) -> Result<Exit, Failure> {
    let (stdin, stdout) = (std::io::stdin().lock(), std::io::stdout().lock());
    let make = |config: &G::Config, seed| make(config, seed).map_err(|failure| format!("{:#}", failure.error));
    serve_json::<G, P>(stdin, stdout, make).exit_code(Exit::BadInput)?;
    Ok(finished())
}
