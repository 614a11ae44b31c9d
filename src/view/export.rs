//! `replay export --json`: one JSON object per tick, for analysis in other
//! tools. Field names are part of the command's promise; adding a field is
//! fine, renaming one is not.

use serde::Serialize;

use crate::view::TickView;

/// One line of the export.
#[derive(Debug, Serialize)]
struct Line<'a> {
    tick: u32,
    /// The action that led to this tick, as the game names it; `null` at tick 0.
    action: Option<&'a str>,
    /// The same action as the replay stores it.
    code: Option<u32>,
    /// The state hash after the tick, 16 hex digits (a JSON number would
    /// lose bits in most readers).
    hash: String,
    status: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    reason: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    state: Option<&'a serde_json::Value>,
}

/// `view` as one line of JSON (no newline).
pub fn json_line(view: &TickView) -> String {
    let line = Line {
        tick: view.tick,
        action: view.action.as_ref().map(|action| action.text.as_str()),
        code: view.action.as_ref().map(|action| action.code),
        hash: format!("{:016x}", view.hash),
        status: view.status,
        reason: view.reason.as_deref(),
        state: view.state.as_ref(),
    };
    // Plain strings, numbers and a `Value`: serialising cannot fail.
    serde_json::to_string(&line).unwrap_or_default()
}
