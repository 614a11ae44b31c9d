//! The JSON-lines protocol of snake, flag, slide and pipes (any game with a
//! replay encoding): [`JsonAgent`], the planner that asks an external
//! program for each action, and [`serve_json`], tickbot's own planners on
//! the other side of it (`tickbot agent GAME`). `docs/protocols.md` is its
//! description for people writing agents.
//!
//! The program is sent one header line, `{"protocol":"tickbot-jsonl/1",
//! "game":NAME,"seed":SEED,"spec":SPEC}` (SPEC: the game's configuration as
//! a replay header stores it), then one line per tick:
//! `{"tick":T,"actions":[...],"state":STATE,"legal":[...]}`, where
//! `actions` are the action codes played since its previous answer (so an
//! agent may re-simulate the game exactly), STATE the game's snapshot (as
//! `replay export` writes it) and `legal` the legal action codes. It
//! answers each with one line holding an action code (`3` or
//! `{"action":3}`). An answer that is not a legal code is a protocol fault.

use std::io::{self, BufRead, Write};
use std::time::Duration;

use serde::Serialize;

use super::fault::Fault;
use super::process::{AgentSpec, Process};
use crate::game::{GameSpec, Replayable};
use crate::plan::{Budget, Decision, PlanError, Planner};

/// The protocol's name and version, in the header line.
pub const PROTOCOL: &str = "tickbot-jsonl/1";

/// The default time limit of one call (a configurable protocol limit).
pub const DEFAULT_CALL_MS: u64 = 1000;

#[derive(Serialize)]
struct Header<'a> {
    protocol: &'a str,
    game: &'a str,
    seed: u64,
    spec: &'a GameSpec,
}

#[derive(Serialize)]
struct Observation<'a, S> {
    tick: u32,
    actions: &'a [u32],
    state: S,
    legal: &'a [u32],
}

/// A planner that is an external program speaking the JSON-lines protocol.
#[derive(Debug)]
pub struct JsonAgent<G: Replayable> {
    spec: AgentSpec,
    limit: Duration,
    /// The game's seed and configuration, for the header.
    seed: u64,
    game: GameSpec,
    process: Option<Process>,
    /// Codes of the actions played since the agent's previous answer.
    since: Vec<u32>,
    legal: Vec<G::Action>,
    codes: Vec<u32>,
    last_tick: Option<u32>,
}

impl<G: Replayable> JsonAgent<G> {
    /// The agent `spec` for the game of `seed` on `config`, `limit` per call.
    pub fn new(spec: AgentSpec, limit: Duration, seed: u64, config: &G::Config) -> JsonAgent<G> {
        JsonAgent {
            spec,
            limit,
            seed,
            game: G::spec(config),
            process: None,
            since: Vec::new(),
            legal: Vec::new(),
            codes: Vec::new(),
            last_tick: None,
        }
    }

    fn decide(&mut self, game: &G) -> Result<G::Action, Fault> {
        if self.process.is_none() {
            let mut process = Process::spawn(&self.spec)?;
            let header = Header { protocol: PROTOCOL, game: self.game.name(), seed: self.seed, spec: &self.game };
            let line = serde_json::to_string(&header).map_err(|error| Fault::Spawn(error.to_string()))?;
            process.send(&format!("{line}\n"), self.limit)?;
            self.process = Some(process);
        }
        self.legal.clear();
        game.legal_actions(&mut self.legal);
        self.codes.clear();
        self.codes.extend(self.legal.iter().map(|&action| G::action_code(action)));
        let observation =
            Observation { tick: game.tick(), actions: &self.since, state: game.snapshot(), legal: &self.codes };
        let line = serde_json::to_string(&observation).map_err(|error| Fault::Spawn(error.to_string()))?;
        let process = self.process.as_mut().expect("spawned above");
        let answer = process.call(&format!("{line}\n"), self.limit)?;
        let code = parse_answer(&answer).ok_or_else(|| Fault::protocol("not an action code", &answer))?;
        let index = self.codes.iter().position(|&legal| legal == code);
        let index = index.ok_or_else(|| Fault::protocol("not a legal action now", &answer))?;
        self.since.clear();
        self.since.push(code);
        Ok(self.legal[index])
    }
}

/// An answer line: a bare code, or `{"action": code}`.
fn parse_answer(line: &str) -> Option<u32> {
    let line = line.trim();
    if let Ok(code) = line.parse() {
        return Some(code);
    }
    let value: serde_json::Value = serde_json::from_str(line).ok()?;
    u32::try_from(value.get("action")?.as_u64()?).ok()
}

impl<G: Replayable> Planner<G> for JsonAgent<G> {
    fn name(&self) -> &'static str {
        "agent"
    }

    fn params(&self) -> Vec<(String, String)> {
        vec![("command".to_string(), self.spec.command_line())]
    }

    fn agents(&self) -> Vec<Option<String>> {
        vec![Some(self.spec.command_line())]
    }

    fn next_action(&mut self, game: &G, _budget: &Budget) -> Result<Decision<G::Action>, PlanError> {
        // One planner value plays one game: a planner asked about an
        // earlier tick than before is a bug of its caller.
        debug_assert!(self.last_tick.is_none_or(|tick| game.tick() > tick));
        self.last_tick = Some(game.tick());
        match self.decide(game) {
            Ok(action) => Ok(Decision { action, planned: None }),
            Err(fault) => {
                if let Some(process) = self.process.as_mut() {
                    process.end();
                }
                Err(PlanError::GaveUp(format!("agent: {fault}")))
            }
        }
    }
}

/// Why serving stopped before its input ended.
#[derive(Debug, thiserror::Error)]
pub enum JsonServeError {
    #[error("reading or writing: {0}")]
    Io(#[from] io::Error),
    #[error("line {line}: {message}")]
    Input { line: u64, message: String },
}

/// `tickbot agent GAME`: plays one game for a JSON-lines referee whose
/// header names a game of type `G`; `make` makes the planner for its
/// configuration and the header's seed. The game is re-simulated from
/// the actions each observation lists, so the planner sees exactly the
/// state it would see in process.
pub fn serve_json<G: Replayable, P: Planner<G>>(
    mut input: impl BufRead,
    mut output: impl Write,
    make: impl FnOnce(&G::Config, u64) -> Result<P, String>,
) -> Result<(), JsonServeError> {
    let bad = |line: u64, message: String| JsonServeError::Input { line, message };
    let mut text = String::new();
    if input.read_line(&mut text)? == 0 {
        return Ok(());
    }
    let header: serde_json::Value = serde_json::from_str(&text).map_err(|error| bad(1, error.to_string()))?;
    let seed = header["seed"].as_u64().ok_or_else(|| bad(1, "no seed".into()))?;
    let spec: GameSpec = serde_json::from_value(header["spec"].clone()).map_err(|error| bad(1, error.to_string()))?;
    let name = spec.name();
    let config = G::config_of(spec).ok_or_else(|| bad(1, format!("a {name} game, not this one")))?;
    let mut planner = make(&config, seed).map_err(|message| bad(1, message))?;
    let mut game = G::new(&config, seed);
    for line_no in 2.. {
        text.clear();
        if input.read_line(&mut text)? == 0 {
            return Ok(());
        }
        let observation: serde_json::Value =
            serde_json::from_str(&text).map_err(|error| bad(line_no, error.to_string()))?;
        for code in observation["actions"].as_array().into_iter().flatten() {
            let action = code.as_u64().and_then(|code| u32::try_from(code).ok()).and_then(G::action_from_code);
            let action = action.ok_or_else(|| bad(line_no, format!("{code} is no action code")))?;
            game.step(action).map_err(|error| bad(line_no, error.to_string()))?;
        }
        let decision =
            planner.next_action(&game, &Budget::unlimited()).map_err(|error| bad(line_no, error.to_string()))?;
        writeln!(output, "{}", G::action_code(decision.action))?;
        output.flush()?;
    }
    Ok(())
}
