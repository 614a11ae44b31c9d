//! LOCM seats that may be programs: [`LocmSeats`], the planner of a whole
//! game whose seats are each either tickbot's own bots or an external
//! agent spoken to over the contest protocol
//! ([`crate::game::locm::protocol`]), with the contest's time limits.
//!
//! An agent's battle answer is a list of actions for its whole turn; they
//! are handed to the game one per tick, each checked when its time comes
//! and skipped if it is not legal then (the referee does the same), and the
//! turn ends when the list is used up. A fault (timeout, crash, an answer
//! that does not parse) ends the game, lost by the seat at fault.

use std::collections::VecDeque;
use std::time::Duration;

use super::fault::Fault;
use super::process::{AgentSpec, Process};
use crate::game::Game;
use crate::game::locm::battle::Move;
use crate::game::locm::plan::BattleBot;
use crate::game::locm::plan::draft::DraftBot;
use crate::game::locm::plan::seats::LocmBots;
use crate::game::locm::protocol::{self, BATTLE_MS, DRAFT_MS, FIRST_BATTLE_MS, FIRST_DRAFT_MS};
use crate::game::locm::view::View;
use crate::game::locm::{Action, LocmGame};
use crate::plan::{Budget, Decision, PlanError, PlanStats, Planner};

/// Who plays a seat.
#[derive(Clone, Debug)]
pub enum Seat {
    /// tickbot's own draft and battle bots.
    Bots(DraftBot, BattleBot),
    /// A program speaking the contest protocol, one process per game.
    Agent(AgentSpec),
}

impl Seat {
    /// How reports name the seat: the bots' names, or the command.
    pub fn name(&self) -> String {
        match self {
            Seat::Bots(draft, _) => draft.name().to_string(),
            Seat::Agent(spec) => format!("exec:{}", spec.command_line()),
        }
    }
}

/// An external seat during one game.
#[derive(Debug)]
struct AgentSeat {
    spec: AgentSpec,
    process: Option<Process>,
    /// The rest of this turn's answer.
    queue: VecDeque<Action>,
    in_turn: bool,
    battle_calls: u32,
    calls: u64,
}

/// The planner of a whole LOCM game, seat by seat.
#[derive(Debug)]
pub struct LocmSeats {
    /// Plays the seats that are tickbot's bots (the other seat's entries
    /// are never asked).
    bots: LocmBots,
    agents: [Option<AgentSeat>; 2],
    /// The seat at fault and why, once one is.
    fault: Option<(u8, Fault)>,
}

/// How a game between two seats ended.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SeatsResult {
    pub winner: u8,
    /// The loser's fault, when the game ended by one.
    pub fault: Option<(u8, Fault)>,
    /// Calls made to agents (answers read).
    pub calls: u64,
}

impl LocmSeats {
    pub fn new(seats: [Seat; 2]) -> LocmSeats {
        let bots = |seat: &Seat| match seat {
            Seat::Bots(draft, battle) => (draft.clone(), *battle),
            Seat::Agent(_) => (DraftBot::Random, BattleBot::Pass),
        };
        let (draft0, battle0) = bots(&seats[0]);
        let (draft1, battle1) = bots(&seats[1]);
        let agent = |seat: Seat| match seat {
            Seat::Bots(..) => None,
            Seat::Agent(spec) => Some(AgentSeat {
                spec,
                process: None,
                queue: VecDeque::new(),
                in_turn: false,
                battle_calls: 0,
                calls: 0,
            }),
        };
        let [seat0, seat1] = seats;
        LocmSeats {
            bots: LocmBots::new([draft0, draft1], [battle0, battle1]),
            agents: [agent(seat0), agent(seat1)],
            fault: None,
        }
    }

    /// The seat at fault and why, once one is.
    pub fn fault(&self) -> Option<&(u8, Fault)> {
        self.fault.as_ref()
    }

    /// The last of an agent's stderr, for the log.
    pub fn stderr_tail(&mut self, seat: u8) -> Option<String> {
        self.agents[usize::from(seat)].as_mut()?.process.as_mut().map(Process::stderr_tail)
    }

    /// Ends the agents' processes (the game is over).
    pub fn finish(&mut self) {
        for agent in self.agents.iter_mut().flatten() {
            if let Some(mut process) = agent.process.take() {
                process.end_within(Duration::from_millis(20));
            }
        }
    }

    /// Plays `game` to its end: the winner, or the fault that decided it.
    pub fn play_out(&mut self, mut game: LocmGame) -> SeatsResult {
        let result = loop {
            if let Some(winner) = game.winner() {
                break SeatsResult { winner, fault: None, calls: 0 };
            }
            match self.decide(&game) {
                Ok((action, _)) => {
                    if let Err(error) = game.step(action) {
                        panic!("a seat's action was not checked: {error}");
                    }
                }
                Err((seat, fault)) => break SeatsResult { winner: 1 - seat, fault: Some((seat, fault)), calls: 0 },
            }
        };
        self.finish();
        let calls = self.agents.iter().flatten().map(|agent| agent.calls).sum();
        SeatsResult { calls, ..result }
    }

    /// The action of the player to move, or the fault of its agent.
    fn decide(&mut self, game: &LocmGame) -> Result<(Action, u64), (u8, Fault)> {
        if game.tick() == 0 {
            self.start_game();
        }
        let player = game.player_to_move();
        let Some(agent) = self.agents[usize::from(player)].as_mut() else {
            return Ok(self.bots.decide(game));
        };
        let result = agent.decide(game);
        if let Err(fault) = &result {
            self.fault = Some((player, fault.clone()));
            if let Some(process) = agent.process.as_mut() {
                process.end();
            }
        }
        result.map(|action| (action, 1)).map_err(|fault| (player, fault))
    }

    /// A new game: the previous game's processes (if any) end, and the
    /// seats start afresh.
    fn start_game(&mut self) {
        self.finish();
        self.fault = None;
        for agent in self.agents.iter_mut().flatten() {
            agent.queue.clear();
            agent.in_turn = false;
            agent.battle_calls = 0;
            agent.calls = 0;
        }
    }
}

impl AgentSeat {
    fn decide(&mut self, game: &LocmGame) -> Result<Action, Fault> {
        let view = game.view();
        if let View::Draft(draft) = view {
            let limit = if draft.pick() == 0 { FIRST_DRAFT_MS } else { DRAFT_MS };
            let line = self.call(&protocol::turn_input(&view, game.table()), limit)?;
            let index = protocol::parse_draft(&line, draft.choices())
                .map_err(|error| Fault::protocol(error.to_string(), &line))?;
            return Ok(Action::Pick(index));
        }
        if !self.in_turn {
            let limit = if self.battle_calls == 0 { FIRST_BATTLE_MS } else { BATTLE_MS };
            self.battle_calls += 1;
            let line = self.call(&protocol::turn_input(&view, game.table()), limit)?;
            let commands = protocol::parse_turn(&line).map_err(|error| Fault::protocol(error.to_string(), &line))?;
            // A command no state could make legal is skipped now.
            self.queue = commands.into_iter().filter_map(protocol::Command::action).collect();
            self.in_turn = true;
        }
        while let Some(action) = self.queue.pop_front() {
            if game.is_legal(action) {
                return Ok(action);
            }
        }
        self.in_turn = false;
        Ok(Action::Battle(Move::EndTurn))
    }

    fn call(&mut self, input: &str, limit_ms: u64) -> Result<String, Fault> {
        if self.process.is_none() {
            self.process = Some(Process::spawn(&self.spec)?);
        }
        let process = self.process.as_mut().expect("spawned above");
        self.calls += 1;
        process.call(input, Duration::from_millis(limit_ms))
    }
}

impl Planner<LocmGame> for LocmSeats {
    fn name(&self) -> &'static str {
        "locm-seats"
    }

    fn params(&self) -> Vec<(String, String)> {
        let mut params = self.bots.params();
        for (seat, agent) in self.agents.iter().enumerate() {
            if let Some(agent) = agent {
                params.push((format!("agent{seat}"), agent.spec.command_line()));
            }
        }
        params
    }

    fn agents(&self) -> Vec<Option<String>> {
        self.agents.iter().map(|agent| agent.as_ref().map(|agent| agent.spec.command_line())).collect()
    }

    fn next_action(&mut self, game: &LocmGame, _budget: &Budget) -> Result<Decision<Action>, PlanError> {
        match self.decide(game) {
            Ok((action, nodes)) => {
                let kind = if matches!(action, Action::Pick(_)) { "draft" } else { "battle" };
                Ok(Decision { action, planned: Some(PlanStats { kind, nodes, plan_len: 1, ..PlanStats::default() }) })
            }
            Err((seat, fault)) => Err(PlanError::GaveUp(format!("player {seat}: {fault}"))),
        }
    }
}
