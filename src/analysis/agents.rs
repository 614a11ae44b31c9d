//! External agents in `tickbot stats`: per entry, seat and command, the
//! games an agent played and its faults by kind (`timeout`, `crash`,
//! `protocol`, `spawn`), each kind with the first reason seen. The
//! commands come from the results lines' `agents` field; a fault's kind
//! and seat from its reason, which says `agent: KIND: ...` (one-seat
//! games) or `player SEAT: KIND: ...` (LOCM).

use std::collections::BTreeMap;

use serde::Serialize;

use crate::session::store::ResultLine;

/// The fault kinds, in the order reports show them.
pub const FAULT_KINDS: [&str; 4] = ["timeout", "crash", "protocol", "spawn"];

/// One agent's games and faults.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct AgentReport {
    pub entry: String,
    /// The seat it played (LOCM), `None` in one-seat games.
    pub seat: Option<u8>,
    /// The command, as typed.
    pub command: String,
    pub games: u64,
    /// Its faults, kind by kind in [`FAULT_KINDS`]' order, those it had.
    pub faults: Vec<FaultCount>,
}

/// Faults of one kind, with the first one's reason.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct FaultCount {
    pub kind: &'static str,
    pub count: u64,
    pub example: String,
}

impl AgentReport {
    /// All its faults.
    pub fn total_faults(&self) -> u64 {
        self.faults.iter().map(|fault| fault.count).sum()
    }
}

/// An agent: its entry, seat and command.
type AgentKey = (String, Option<u8>, String);

/// An agent's games, and its faults per kind in [`FAULT_KINDS`]' order.
type AgentCounts = (u64, [Option<FaultCount>; 4]);

/// The agents of the results read so far.
#[derive(Debug, Default)]
pub(crate) struct AgentTally {
    agents: BTreeMap<AgentKey, AgentCounts>,
}

impl AgentTally {
    /// Counts `line`'s agents (none: nothing to count).
    pub(crate) fn add(&mut self, line: &ResultLine) {
        if line.agents.is_empty() {
            return;
        }
        let fault = fault_of(&line.reason);
        let one_seat = line.agents.len() == 1;
        for (seat, command) in line.agents.iter().enumerate() {
            let Some(command) = command else { continue };
            let seat = (!one_seat).then_some(seat as u8);
            let key = (line.entry.clone(), seat, command.clone());
            let (games, faults) = self.agents.entry(key).or_default();
            *games += 1;
            let Some((fault_seat, kind, reason)) = fault else { continue };
            if fault_seat.is_some() && fault_seat != seat {
                continue;
            }
            let slot = &mut faults[FAULT_KINDS.iter().position(|&known| known == kind).expect("a known kind")];
            match slot {
                Some(count) => count.count += 1,
                None => *slot = Some(FaultCount { kind, count: 1, example: reason.to_string() }),
            }
        }
    }

    pub(crate) fn report(&self) -> Vec<AgentReport> {
        self.agents
            .iter()
            .map(|((entry, seat, command), (games, faults))| AgentReport {
                entry: entry.clone(),
                seat: *seat,
                command: command.clone(),
                games: *games,
                faults: faults.iter().flatten().cloned().collect(),
            })
            .collect()
    }
}

/// The agent fault a results line's reason tells of: the seat (`None`: a
/// one-seat game's agent), the kind, and the fault's own words (from the
/// kind on).
fn fault_of(reason: &str) -> Option<(Option<u8>, &'static str, &str)> {
    let (seat, rest) = match reason.find("agent: ") {
        Some(at) => (None, &reason[at + "agent: ".len()..]),
        None => {
            let at = reason.find("player ")?;
            let rest = &reason[at + "player ".len()..];
            let (seat, rest) = rest.split_once(": ")?;
            (Some(seat.parse::<u8>().ok()?), rest)
        }
    };
    let kind =
        FAULT_KINDS.into_iter().find(|kind| rest.strip_prefix(kind).is_some_and(|tail| tail.starts_with(':')))?;
    Some((seat, kind, rest))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reasons_name_the_kind_and_the_seat_at_fault() {
        let json = "at tick 1: planner gave up: agent: crash: exited with status 3";
        assert_eq!(fault_of(json), Some((None, "crash", "crash: exited with status 3")));
        let locm =
            "at tick 4: planner gave up: player 1: timeout: no answer within 100 ms (waited 151 ms, overrun 51 ms)";
        assert_eq!(fault_of(locm).map(|(seat, kind, _)| (seat, kind)), Some((Some(1), "timeout")));
        assert_eq!(fault_of("filled the board at tick 30"), None);
        assert_eq!(fault_of("at tick 2: planner gave up: no plan"), None);
    }
}
