//! The JSON-lines logs summed up (`tickbot stats --logs`): per planner, the
//! plans made, their planning time and search nodes (from the debug-level
//! `plan` events), and the warnings and errors, counted per message with
//! where each first occurred. Which files a log directory holds, oldest
//! first, and gzip or not, is the binary's business: this reads lines.
//!
//! Memory is flat in the log's length: per planner two histograms (see the
//! parent module), the planners of the games running at a time (a `plan`
//! event names its planner; one from an older log that does not is matched
//! to its game's `game_start` by id), and at most [`MESSAGES_KEPT`]
//! distinct messages.

use std::collections::BTreeMap;
use std::io::BufRead;
use std::path::Path;
use std::sync::atomic::AtomicBool;

use serde::{Deserialize, Serialize};

use super::{AnalysisError, Measure, Percentiles};
use crate::progress::Progress;

/// Distinct warning and error messages counted one by one; later ones
/// are counted together.
pub(crate) const MESSAGES_KEPT: usize = 100;

/// The fields of a log line this summary reads; the others are skipped.
#[derive(Deserialize)]
struct LogLine {
    #[serde(default)]
    timestamp: String,
    #[serde(default)]
    level: String,
    #[serde(default)]
    message: String,
    id: Option<String>,
    planner: Option<String>,
    nodes: Option<u64>,
    elapsed_us: Option<u64>,
}

/// Where a line is.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Place {
    pub file: String,
    pub line: u64,
    pub timestamp: String,
}

/// The plans of one planner.
#[derive(Clone, Debug)]
struct PlannerPlans {
    planner: String,
    plans: u64,
    elapsed_us: Measure,
    nodes: Measure,
    elapsed_sum: u64,
    nodes_sum: u64,
}

/// One planner's plans in the report.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct PlannerReport {
    pub planner: String,
    pub plans: u64,
    /// Planning time per plan, microseconds.
    pub elapsed_us: Percentiles,
    pub elapsed_us_total: u64,
    pub nodes: Percentiles,
    pub nodes_total: u64,
}

/// A warning or error message: how often, and its first occurrence.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct MessageReport {
    pub level: String,
    /// The event's message (`MESSAGES_KEPT` reached: "(other messages)").
    pub message: String,
    pub count: u64,
    pub first: Place,
}

/// Log lines summed up as they are read.
#[derive(Debug, Default)]
pub struct LogSummary {
    planners: Vec<PlannerPlans>,
    planner_index: BTreeMap<String, usize>,
    /// The planner of each game started and not yet ended.
    running: BTreeMap<String, String>,
    messages: Vec<MessageReport>,
    message_index: BTreeMap<(String, String), usize>,
    warnings: u64,
    errors: u64,
    lines: u64,
    /// Lines that are not JSON (a log written by hand, or cut by a crash),
    /// or longer than [`super::MAX_LINE_BYTES`].
    skipped: u64,
}

/// What `stats --logs` reports.
#[derive(Clone, Debug, Serialize)]
pub struct LogReport {
    pub planners: Vec<PlannerReport>,
    pub warnings: u64,
    pub errors: u64,
    /// Per message, in order of first occurrence.
    pub messages: Vec<MessageReport>,
    pub lines: u64,
    pub skipped_lines: u64,
    pub sketch: &'static str,
}

impl LogSummary {
    fn add(&mut self, line: LogLine, file: &str, number: u64) {
        match line.message.as_str() {
            "game_start" => {
                if let (Some(id), Some(planner)) = (line.id, line.planner) {
                    self.running.insert(id, planner);
                }
            }
            "game_end" | "game_stopped" => {
                if let Some(id) = &line.id {
                    self.running.remove(id);
                }
            }
            "plan" => {
                let planner = line
                    .planner
                    .or_else(|| line.id.as_ref().and_then(|id| self.running.get(id).cloned()))
                    .unwrap_or_else(|| "(unknown)".to_string());
                let number = match self.planner_index.get(&planner) {
                    Some(&number) => number,
                    None => {
                        self.planners.push(PlannerPlans {
                            planner: planner.clone(),
                            plans: 0,
                            elapsed_us: Measure::new(),
                            nodes: Measure::new(),
                            elapsed_sum: 0,
                            nodes_sum: 0,
                        });
                        self.planner_index.insert(planner, self.planners.len() - 1);
                        self.planners.len() - 1
                    }
                };
                let plans = &mut self.planners[number];
                plans.plans += 1;
                let (elapsed, nodes) = (line.elapsed_us.unwrap_or(0), line.nodes.unwrap_or(0));
                plans.elapsed_us.add(elapsed);
                plans.nodes.add(nodes);
                plans.elapsed_sum += elapsed;
                plans.nodes_sum += nodes;
            }
            _ => {}
        }
        let level = line.level.to_ascii_lowercase();
        match level.as_str() {
            "warn" => self.warnings += 1,
            "error" => self.errors += 1,
            _ => return,
        }
        let message = if self.message_index.len() < MESSAGES_KEPT
            || self.message_index.contains_key(&(level.clone(), line.message.clone()))
        {
            line.message
        } else {
            "(other messages)".to_string()
        };
        let key = (level, message);
        match self.message_index.get(&key) {
            Some(&number) => self.messages[number].count += 1,
            None => {
                let first = Place { file: file.to_string(), line: number, timestamp: line.timestamp };
                self.messages.push(MessageReport { level: key.0.clone(), message: key.1.clone(), count: 1, first });
                self.message_index.insert(key, self.messages.len() - 1);
            }
        }
    }

    pub fn report(&self) -> LogReport {
        LogReport {
            planners: self
                .planners
                .iter()
                .map(|plans| PlannerReport {
                    planner: plans.planner.clone(),
                    plans: plans.plans,
                    elapsed_us: plans.elapsed_us.percentiles(),
                    elapsed_us_total: plans.elapsed_sum,
                    nodes: plans.nodes.percentiles(),
                    nodes_total: plans.nodes_sum,
                })
                .collect(),
            warnings: self.warnings,
            errors: self.errors,
            messages: self.messages.clone(),
            lines: self.lines,
            skipped_lines: self.skipped,
            sketch: super::SKETCH,
        }
    }
}

/// Reads one log file's lines (oldest file first, for first occurrences)
/// into `summary`; `file` names it in the report. Lines that are not JSON
/// are counted and skipped: a log is a record of what happened, and one
/// damaged line should not hide the rest. Stops early (`Ok(false)`) once
/// `cancel` is set.
pub fn read_log(
    reader: impl BufRead,
    path: &Path,
    summary: &mut LogSummary,
    progress: &Progress,
    cancel: &AtomicBool,
) -> Result<bool, AnalysisError> {
    let file = path.display().to_string();
    super::for_each_line(reader, path, progress, cancel, |number, line| {
        summary.lines += 1;
        match line {
            super::Line::Whole(line) => match serde_json::from_slice::<LogLine>(line) {
                Ok(parsed) => summary.add(parsed, &file, number),
                Err(_) => summary.skipped += 1,
            },
            super::Line::TooLong => summary.skipped += 1,
        }
        Ok(())
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plans_are_counted_per_planner_and_warnings_by_message_with_their_first_place() {
        let text = concat!(
            r#"{"timestamp":"t1","level":"INFO","message":"game_start","id":"a/000000","planner":"cycle"}"#,
            "\n",
            r#"{"timestamp":"t2","level":"DEBUG","message":"plan","id":"a/000000","nodes":15,"elapsed_us":4}"#,
            "\n",
            r#"{"timestamp":"t3","level":"DEBUG","message":"plan","planner":"bfs-tail","nodes":7,"elapsed_us":9}"#,
            "\n",
            r#"{"timestamp":"t4","level":"WARN","message":"planner chose an illegal action","id":"a/000000"}"#,
            "\n",
            "not json\n",
            r#"{"timestamp":"t5","level":"WARN","message":"planner chose an illegal action"}"#,
            "\n",
            r#"{"timestamp":"t6","level":"INFO","message":"game_end","id":"a/000000"}"#,
            "\n",
            r#"{"timestamp":"t7","level":"DEBUG","message":"plan","id":"a/000000","nodes":1,"elapsed_us":1}"#,
            "\n",
        );
        let mut summary = LogSummary::default();
        let cancel = AtomicBool::new(false);
        read_log(text.as_bytes(), Path::new("x.jsonl"), &mut summary, &Progress::default(), &cancel).unwrap();
        let report = summary.report();
        let planners: Vec<(&str, u64, u64)> =
            report.planners.iter().map(|plans| (plans.planner.as_str(), plans.plans, plans.nodes_total)).collect();
        assert_eq!(planners, [("cycle", 1, 15), ("bfs-tail", 1, 7), ("(unknown)", 1, 1)]);
        assert_eq!((report.warnings, report.errors, report.skipped_lines, report.lines), (2, 0, 1, 8));
        assert_eq!(report.messages.len(), 1);
        assert_eq!(report.messages[0].count, 2);
        assert_eq!(report.messages[0].first, Place { file: "x.jsonl".into(), line: 4, timestamp: "t4".into() });
    }
}
