//! The LOCM 1.2 contest protocol as text, byte for byte as the reference
//! Java referee speaks it: the lines a seat is sent each turn
//! ([`turn_input`]), and how an answer line is read ([`parse_draft`],
//! [`parse_turn`]), including the referee's leniency (text after an action,
//! empty actions) and its strictness (a double space is an error). What it
//! does is written down in `docs/protocols.md`; the source is the referee
//! of acatai/Strategy-Card-Game-AI-Competition, `referee1.2-java`
//! (`engine/Action.java`, `engine/DraftPhase.java`, `engine/GameState.java`,
//! `engine/EngineReferee.java`) at commit 844c2264ed4b.
//!
//! Parsing is separate from legality: a command that parses is checked
//! against the state when its turn comes ([`Command::action`] then
//! [`super::LocmGame::is_legal`]) and skipped if illegal, as the referee
//! skips it; only text that does not parse is an error.

use std::fmt::Write;

use super::Action;
use super::battle::Move;
use super::cards::CardTable;
use super::view::View;

/// The time limits of the contest, in milliseconds: the first draft turn,
/// the later draft turns, each player's first battle turn, the later
/// battle turns (`Constants.TIMELIMIT_*`, two lanes).
pub const FIRST_DRAFT_MS: u64 = 1000;
pub const DRAFT_MS: u64 = 100;
pub const FIRST_BATTLE_MS: u64 = 1000;
pub const BATTLE_MS: u64 = 200;

/// The lines the referee sends the player to move for `view`, each ending
/// in `\n` (see [`View::referee_input`]).
pub fn turn_input(view: &View, table: &CardTable) -> String {
    view.referee_input(table)
}

/// Why an answer is not a command the referee accepts: the game is lost.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct ParseError(pub &'static str);

/// A draft answer as the index (0, 1 or 2) of the card it picks in
/// `choices`: `PICK n`, `CHOOSE card-id` (the first of the three with that
/// id) or `PASS` (the first card). Anything after the argument is text the
/// referee shows and ignores. The line is not trimmed: ` PICK 1` and
/// `PICK  1` are errors, as they are for the referee.
pub fn parse_draft(line: &str, choices: [u8; 3]) -> Result<u8, ParseError> {
    let mut words = line.splitn(3, ' ');
    let keyword = words.next().unwrap_or("");
    let argument = words.next();
    match keyword {
        "PASS" => Ok(0),
        "PICK" => match argument.map(java_int) {
            Some(Some(value @ 0..=2)) => Ok(value as u8),
            Some(Some(_)) => Err(ParseError("PICK takes 0, 1 or 2")),
            _ => Err(ParseError("expected PICK [0,1,2], CHOOSE card-id or PASS")),
        },
        "CHOOSE" => {
            let value = argument.and_then(java_int).ok_or(ParseError("expected CHOOSE card-id"))?;
            choices
                .iter()
                .position(|&card| i32::from(card) == value)
                .map(|index| index as u8)
                .ok_or(ParseError("CHOOSE takes the id of one of the three cards"))
        }
        _ => Err(ParseError("expected PICK [0,1,2], CHOOSE card-id or PASS")),
    }
}

/// One battle command as it parsed: the referee's two integer arguments,
/// whatever their range (legality is checked when the command is played).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Command {
    Summon { instance: i32, lane: i32 },
    Attack { attacker: i32, target: i32 },
    Use { item: i32, target: i32 },
}

impl Command {
    /// The action it stands for, or `None` when no state could make it
    /// legal (an id or lane out of range: the referee would skip it).
    pub fn action(self) -> Option<Action> {
        let id = |value: i32| u8::try_from(value).ok().filter(|&id| id > 0);
        // -1 is the opponent's face, our target 0.
        let target = |value: i32| if value == -1 { Some(0) } else { id(value) };
        let action = match self {
            Command::Summon { instance, lane } => {
                Move::Summon { instance: id(instance)?, lane: u8::try_from(lane).ok().filter(|&lane| lane < 2)? }
            }
            Command::Attack { attacker, target: to } => Move::Attack { attacker: id(attacker)?, target: target(to)? },
            Command::Use { item, target: to } => Move::Use { item: id(item)?, target: target(to)? },
        };
        Some(Action::Battle(action))
    }
}

/// A battle answer: actions separated by `;`, each trimmed, empty ones and
/// `PASS` dropped, text after an action's arguments ignored. The first
/// action that does not parse makes the whole answer an error, as it does
/// for the referee (which then ends the game).
pub fn parse_turn(line: &str) -> Result<Vec<Command>, ParseError> {
    let mut commands = Vec::new();
    for action in line.split(';') {
        let action = java_trim(action);
        if action.is_empty() {
            continue;
        }
        let (keyword, rest) = match action.split_once(' ') {
            Some((keyword, rest)) => (java_trim(keyword), Some(rest)),
            None => (action, None),
        };
        let two = || -> Option<(i32, i32)> {
            let mut args = rest?.splitn(3, ' ');
            Some((java_int(args.next()?)?, java_int(args.next()?)?))
        };
        let command = match keyword {
            "PASS" => continue,
            "SUMMON" => {
                let (instance, lane) = two().ok_or(ParseError("SUMMON takes two integers (card id and lane)"))?;
                Command::Summon { instance, lane }
            }
            "ATTACK" => {
                let (attacker, target) = two().ok_or(ParseError("ATTACK takes two integers (card id and target)"))?;
                Command::Attack { attacker, target }
            }
            "USE" => {
                let (item, target) = two().ok_or(ParseError("USE takes two integers (card id and target)"))?;
                Command::Use { item, target }
            }
            _ => return Err(ParseError("an action is SUMMON, ATTACK, USE or PASS")),
        };
        commands.push(command);
    }
    Ok(commands)
}

/// Java's `String.trim`: strips every character up to U+0020 at both ends.
fn java_trim(text: &str) -> &str {
    text.trim_matches(|c: char| c <= ' ')
}

/// Java's `Integer.parseInt` for ASCII text: an optional sign, then
/// digits, within `i32`. (Java also takes non-ASCII digits; no bot writes
/// them.)
fn java_int(text: &str) -> Option<i32> {
    text.parse().ok()
}

/// A battle answer as a bot would write it: the actions joined by `;`, or
/// `PASS` for none.
pub fn format_turn(actions: &[Action]) -> String {
    let mut out = String::new();
    for action in actions {
        if !out.is_empty() {
            out.push(';');
        }
        let _ = write!(out, "{action}");
    }
    if out.is_empty() {
        out.push_str("PASS");
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn draft_answers_read_as_the_referee_reads_them() {
        let choices = [12, 40, 12];
        assert_eq!(parse_draft("PICK 2", choices), Ok(2));
        assert_eq!(parse_draft("PICK 1 my favourite", choices), Ok(1));
        assert_eq!(parse_draft("PICK +1", choices), Ok(1));
        assert_eq!(parse_draft("PASS", choices), Ok(0));
        assert_eq!(parse_draft("PASS 2", choices), Ok(0));
        assert_eq!(parse_draft("CHOOSE 40", choices), Ok(1));
        assert_eq!(parse_draft("CHOOSE 12", choices), Ok(0));
        for bad in ["PICK 3", "PICK", "PICK  1", " PICK 1", "pick 1", "CHOOSE 41", "CHOOSE x", "", "SUMMON 1 0"] {
            assert!(parse_draft(bad, choices).is_err(), "{bad:?}");
        }
    }

    #[test]
    fn battle_answers_read_as_the_referee_reads_them() {
        let parsed = parse_turn("SUMMON 3 1;ATTACK 3 -1 go face; ;PASS;USE 7 12 ;  ATTACK 5 9").unwrap();
        assert_eq!(
            parsed,
            [
                Command::Summon { instance: 3, lane: 1 },
                Command::Attack { attacker: 3, target: -1 },
                Command::Use { item: 7, target: 12 },
                Command::Attack { attacker: 5, target: 9 },
            ]
        );
        assert_eq!(parse_turn("PASS"), Ok(Vec::new()));
        assert_eq!(parse_turn(""), Ok(Vec::new()));
        assert_eq!(parse_turn("SUMMON 99999 7"), Ok(vec![Command::Summon { instance: 99999, lane: 7 }]));
        for bad in ["SUMMON 1", "ATTACK  1 2", "ATTACK 1 x", "MOVE 1 2", "SUMMON 1 0;FOO", "USE", "summon 1 0"] {
            assert!(parse_turn(bad).is_err(), "{bad:?}");
        }
    }

    #[test]
    fn commands_out_of_range_stand_for_no_action() {
        assert_eq!(Command::Summon { instance: 3, lane: 2 }.action(), None);
        assert_eq!(Command::Summon { instance: 256, lane: 0 }.action(), None);
        assert_eq!(Command::Attack { attacker: 4, target: 0 }.action(), None);
        assert_eq!(
            Command::Attack { attacker: 4, target: -1 }.action(),
            Some(Action::Battle(Move::Attack { attacker: 4, target: 0 }))
        );
        assert_eq!(
            Command::Use { item: 9, target: 2 }.action(),
            Some(Action::Battle(Move::Use { item: 9, target: 2 }))
        );
    }

    #[test]
    fn a_turn_written_by_format_turn_reads_back() {
        let actions = [
            Action::Battle(Move::Summon { instance: 3, lane: 1 }),
            Action::Battle(Move::Attack { attacker: 3, target: 0 }),
        ];
        let text = format_turn(&actions);
        assert_eq!(text, "SUMMON 3 1;ATTACK 3 -1");
        let back: Vec<Action> = parse_turn(&text).unwrap().into_iter().filter_map(Command::action).collect();
        assert_eq!(back, actions);
        assert_eq!(format_turn(&[]), "PASS");
    }
}
