//! How an external agent can fail, as an outcome to record: [`Fault`] says
//! what happened (too slow, dead, or an answer that is not the protocol's)
//! with the figures and the text a person needs to see why.

use std::fmt;
use std::time::Duration;

/// The most of an offending line a fault keeps.
pub const LINE_SHOWN: usize = 120;

/// Why an agent's game ended without its answer.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum Fault {
    /// No whole line came within the call's limit (plus the margin).
    #[error("timeout: no answer within {} ms (waited {} ms, overrun {} ms)", .limit.as_millis(), .waited.as_millis(), .waited.saturating_sub(*.limit).as_millis())]
    Timeout { limit: Duration, waited: Duration },
    /// The agent's output closed: it exited, was killed, or shut stdout.
    #[error("crash: {0}")]
    Crash(Exit),
    /// A line came, but not one the protocol accepts.
    #[error("protocol: {reason}: {line:?}")]
    Protocol { reason: String, line: String },
    /// The agent could not be started at all.
    #[error("spawn: {0}")]
    Spawn(String),
}

impl Fault {
    /// The one-word kind, as `stats` counts them.
    pub fn kind(&self) -> &'static str {
        match self {
            Fault::Timeout { .. } => "timeout",
            Fault::Crash(_) => "crash",
            Fault::Protocol { .. } => "protocol",
            Fault::Spawn(_) => "spawn",
        }
    }

    /// A protocol fault on `line`, kept to its first [`LINE_SHOWN`] characters.
    pub fn protocol(reason: impl Into<String>, line: &str) -> Fault {
        Fault::Protocol { reason: reason.into(), line: truncate(line, LINE_SHOWN) }
    }
}

/// How an agent's process ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Exit {
    Code(i32),
    Signal(i32),
    /// Its output closed but it still ran (it was then killed).
    ClosedOutput,
}

impl fmt::Display for Exit {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Exit::Code(code) => write!(f, "exited with status {code}"),
            Exit::Signal(signal) => {
                let name = nix::sys::signal::Signal::try_from(*signal).map_or("unknown", |signal| signal.as_str());
                write!(f, "killed by signal {signal} ({name})")
            }
            Exit::ClosedOutput => f.write_str("closed its output"),
        }
    }
}

/// `text` cut to at most `max` characters, with `…` where it was cut.
pub(crate) fn truncate(text: &str, max: usize) -> String {
    match text.char_indices().nth(max) {
        None => text.to_string(),
        Some((end, _)) => format!("{}…", &text[..end]),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn faults_say_what_happened_with_their_figures() {
        let timeout = Fault::Timeout { limit: Duration::from_millis(100), waited: Duration::from_millis(135) };
        assert_eq!(timeout.to_string(), "timeout: no answer within 100 ms (waited 135 ms, overrun 35 ms)");
        assert_eq!(Fault::Crash(Exit::Code(3)).to_string(), "crash: exited with status 3");
        assert_eq!(Fault::Crash(Exit::Signal(11)).to_string(), "crash: killed by signal 11 (SIGSEGV)");
        let long = "x".repeat(500);
        let Fault::Protocol { line, .. } = Fault::protocol("bad", &long) else { unreachable!() };
        assert_eq!(line.chars().count(), LINE_SHOWN + 1);
        assert_eq!(Fault::protocol("bad", "PICK 9").to_string(), "protocol: bad: \"PICK 9\"");
        assert_eq!(truncate("héllo", 2), "hé…");
    }
}
