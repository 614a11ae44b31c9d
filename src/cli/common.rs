//! The command-line pieces every game's file shares: the options of
//! `play`, the levels `run` hands to a game's entry, the `WxH` size
//! parser, and the tables `run` and `stats` print, fitted to the width of
//! the output. Below the per-game files and `support/` (which use it);
//! uses nothing of the binary's.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use anyhow::anyhow;
use clap::Args;

/// The options of `tickbot play` that every game shares.
#[derive(Debug, Args)]
pub(crate) struct PlayArgs {
    /// The game's seed (Snake: where food appears; planners that draw random
    /// numbers draw them from it too).
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// What `--planner 'exec:COMMAND'` becomes (the one documented way to
    /// name an agent; this hidden flag stays as its alias).
    #[arg(long, value_name = "COMMAND", hide = true)]
    pub agent: Option<String>,
    /// The time limit of each call to an agent named by --planner 'exec:COMMAND'
    /// (the JSON-lines protocol, docs/protocols.md), in milliseconds.
    #[arg(long, value_name = "MS", default_value_t = 1000, help_heading = "External agents (exec:COMMAND)")]
    pub agent_call_ms: u64,
    /// Write the replay to this file.
    #[arg(long, value_name = "FILE")]
    pub record: Option<PathBuf>,
    /// Print the final board (redrawn from the replay).
    #[arg(long, requires = "record")]
    pub show: bool,
    /// Longest time one planner call may take before the game is aborted.
    #[arg(long, default_value_t = 10_000, value_name = "MS", env = "TICKBOT_MOVE_BUDGET_MS")]
    pub move_budget_ms: u64,
}

/// The levels of one entry: files (or none: the game's flags name the
/// level), and which of them to play.
#[derive(Debug)]
pub(crate) struct Levels {
    pub files: Vec<PathBuf>,
    /// The name of the one level when there are no files.
    pub default_name: String,
    /// Which levels to play, numbered from 1; `None`: all.
    pub pick: Option<Vec<u32>>,
}

impl Levels {
    /// Each file with its name, or the one default level.
    pub(crate) fn files(&self) -> Vec<(String, Option<&Path>)> {
        if self.files.is_empty() {
            return vec![(self.default_name.clone(), None)];
        }
        self.files.iter().map(|path| (path.display().to_string(), Some(path.as_path()))).collect()
    }

    /// The picked files, each read into a level by `read`.
    pub(crate) fn read<C>(
        &self,
        mut read: impl FnMut(Option<&Path>) -> anyhow::Result<C>,
    ) -> anyhow::Result<Vec<(String, Arc<C>)>> {
        self.pick(self.files())?.into_iter().map(|(name, path)| Ok((name, Arc::new(read(path)?)))).collect()
    }

    /// The picked ones of `levels` (all without `pick`).
    pub(crate) fn pick<T>(&self, levels: Vec<T>) -> anyhow::Result<Vec<T>> {
        let Some(pick) = &self.pick else {
            return Ok(levels);
        };
        let count = levels.len();
        let mut slots: Vec<Option<T>> = levels.into_iter().map(Some).collect();
        pick.iter()
            .map(|&number| {
                let slot = slots.get_mut(number as usize - 1);
                slot.and_then(Option::take).ok_or_else(|| {
                    anyhow!("pick: level {number} is not there, or picked twice (the level holds {count})")
                })
            })
            .collect()
    }
}

/// The largest board side any game accepts on the command line; each game
/// has its own, smaller limit that its rules check.
const MAX_SIDE: u16 = 4096;

/// Parses `WxH`, e.g. `10x10`.
pub(crate) fn parse_size(text: &str) -> Result<(u16, u16), String> {
    let expected = || format!("expected WIDTHxHEIGHT like 10x10, got {text:?}");
    let (width, height) = text.split_once(['x', 'X']).ok_or_else(expected)?;
    let side = |word: &str, name: &str| -> Result<u16, String> {
        let word = word.trim();
        if word.is_empty() || !word.bytes().all(|byte| byte.is_ascii_digit()) {
            return Err(expected());
        }
        match word.parse::<u64>() {
            Ok(0) => Err(format!("the {name} must be at least 1")),
            Ok(value) if value <= u64::from(MAX_SIDE) => Ok(value as u16),
            _ => Err(format!("the {name} {word} is too large: at most {MAX_SIDE}")),
        }
    };
    Ok((side(width, "width")?, side(height, "height")?))
}

/// The width tables fit when stdout is not a terminal (a file, a pipe).
const DEFAULT_WIDTH: usize = 100;
/// Narrower than this, a table is drawn at this width all the same.
const MIN_WIDTH: usize = 40;

/// The columns a table printed now should fit: `$COLUMNS` if set, else
/// the terminal's width, else [`DEFAULT_WIDTH`].
pub(crate) fn output_width() -> usize {
    let from_env = std::env::var("COLUMNS").ok().and_then(|text| text.trim().parse::<usize>().ok());
    let terminal = || console::Term::stdout().size_checked().map(|(_, columns)| usize::from(columns));
    from_env.or_else(terminal).unwrap_or(DEFAULT_WIDTH).max(MIN_WIDTH)
}

/// `text` broken at spaces into lines of at most `width` columns (a word
/// longer than that on a line of its own), every line after the first
/// indented by `indent` spaces.
pub(crate) fn wrap(text: &str, width: usize, indent: usize) -> String {
    let words = text.trim_start_matches(' ');
    let lead = text.len() - words.len();
    let mut wrapped = " ".repeat(lead);
    let mut column = lead;
    for (number, word) in words.split(' ').enumerate() {
        let length = word.chars().count();
        if number > 0 && column + 1 + length > width {
            wrapped.push('\n');
            wrapped.push_str(&" ".repeat(indent));
            column = indent;
        } else if number > 0 {
            wrapped.push(' ');
            column += 1;
        }
        wrapped.push_str(word);
        column += length;
    }
    wrapped
}

/// Which side of its column a cell sits on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Align {
    Left,
    Right,
}

/// One column of a [`Table`]: its header, alignment, the spaces before it
/// and its narrowest width.
#[derive(Clone, Debug)]
pub(crate) struct Column {
    header: String,
    align: Align,
    gap: usize,
    min_width: usize,
    /// Left out first where the table does not fit.
    optional: bool,
}

impl Column {
    pub(crate) fn new(header: &str, align: Align, gap: usize, min_width: usize) -> Column {
        Column { header: header.to_string(), align, gap, min_width, optional: false }
    }

    /// This column, left out where the table would not fit with it.
    pub(crate) fn optional(self) -> Column {
        Column { optional: true, ..self }
    }
}

/// A table of rows named by their first cell (the key: an entry, a
/// group), printed to fit a width: whole when it fits, else without its
/// optional columns, else in panels of as many columns as fit, each panel
/// repeating the keys, so that nothing is cut and no line wraps. A key too
/// long for a third of the width goes on a line of its own above its row.
#[derive(Debug)]
pub(crate) struct Table {
    key: String,
    columns: Vec<Column>,
    rows: Vec<(String, Vec<String>)>,
}

impl Table {
    pub(crate) fn new(key: &str, columns: Vec<Column>) -> Table {
        Table { key: key.to_string(), columns, rows: Vec::new() }
    }

    /// Adds a row: its key and one cell per column.
    pub(crate) fn row(&mut self, key: impl Into<String>, cells: Vec<String>) {
        debug_assert_eq!(cells.len(), self.columns.len());
        self.rows.push((key.into(), cells));
    }

    /// The lines of the table, none wider than `width` unless one column
    /// alone is, each starting with two spaces.
    pub(crate) fn lines(&self, width: usize) -> Vec<String> {
        const INDENT: usize = 2;
        let chars = |text: &str| text.chars().count();
        let widths: Vec<usize> = self
            .columns
            .iter()
            .enumerate()
            .map(|(at, column)| {
                let widest = self.rows.iter().map(|(_, cells)| chars(&cells[at])).max().unwrap_or(0);
                widest.max(chars(&column.header)).max(column.min_width)
            })
            .collect();
        let widest_key = self.rows.iter().map(|(key, _)| chars(key)).max().unwrap_or(0).max(chars(&self.key));
        let span = |key_width: usize, shown: &[usize]| {
            INDENT + key_width + shown.iter().map(|&at| self.columns[at].gap + widths[at]).sum::<usize>()
        };
        // Whole keys if the table fits with them (without its optional
        // columns if need be); else keys capped at a third of the width,
        // a longer one on a line of its own.
        let mut shown: Vec<usize> = (0..self.columns.len()).collect();
        let mut key_width = widest_key;
        if span(key_width, &shown) > width {
            shown.retain(|&at| !self.columns[at].optional);
            if span(key_width, &shown) > width {
                key_width = widest_key.min((width / 3).max(chars(&self.key)));
            }
        }
        // Columns packed into panels, in order, as many as fit each.
        let mut panels: Vec<Vec<usize>> = Vec::new();
        let mut used = width; // forces a first panel
        for at in shown {
            let need = self.columns[at].gap + widths[at];
            if used + need > width && panels.last().is_none_or(|panel| !panel.is_empty()) {
                panels.push(Vec::new());
                used = INDENT + key_width;
            }
            panels.last_mut().expect("a panel was opened").push(at);
            used += need;
        }
        let mut lines = Vec::new();
        for (number, panel) in panels.iter().enumerate() {
            if number > 0 {
                lines.push(String::new());
            }
            let line = |key: &str, cell: &dyn Fn(usize) -> String| {
                let mut text = format!("{:indent$}{key:key_width$}", "", indent = INDENT);
                for &at in panel {
                    let column = &self.columns[at];
                    let (width, value) = (widths[at], cell(at));
                    text.push_str(&" ".repeat(column.gap));
                    match column.align {
                        Align::Left => text.push_str(&format!("{value:<width$}")),
                        Align::Right => text.push_str(&format!("{value:>width$}")),
                    }
                }
                text.trim_end().to_string()
            };
            lines.push(line(&self.key, &|at| self.columns[at].header.clone()));
            for (key, cells) in &self.rows {
                if chars(key) > key_width {
                    lines.push(format!("{:indent$}{key}", "", indent = INDENT));
                    lines.push(line("", &|at| cells[at].clone()));
                } else {
                    lines.push(line(key, &|at| cells[at].clone()));
                }
            }
        }
        lines
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn table() -> Table {
        let mut columns: Vec<Column> = ["games", "won", "mean score", "ticks p50/p90/p99/max"]
            .iter()
            .map(|header| Column::new(header, Align::Right, 2, 0))
            .collect();
        columns[1] = columns[1].clone().optional();
        let mut table = Table::new("entry", columns);
        table.row("snake-cycle", vec!["300".into(), "300".into(), "102.82".into(), "1/2/3/4".into()]);
        table.row("a-very-long-entry-name-indeed", vec!["1".into(), "0".into(), "-0.50".into(), "9/9/9/9".into()]);
        table
    }

    #[test]
    fn a_table_is_whole_where_it_fits_and_in_panels_repeating_the_keys_where_not() {
        let whole = table().lines(200);
        assert_eq!(
            whole,
            [
                "  entry                          games  won  mean score  ticks p50/p90/p99/max",
                "  snake-cycle                      300  300      102.82                1/2/3/4",
                "  a-very-long-entry-name-indeed      1    0       -0.50                9/9/9/9",
            ]
        );
        let narrower = table().lines(77);
        assert_eq!(
            narrower,
            [
                "  entry                          games  mean score  ticks p50/p90/p99/max",
                "  snake-cycle                      300      102.82                1/2/3/4",
                "  a-very-long-entry-name-indeed      1       -0.50                9/9/9/9",
            ],
            "the optional column goes first"
        );
        let narrow = table().lines(45);
        assert!(narrow.iter().all(|line| line.chars().count() <= 45), "{narrow:#?}");
        assert_eq!(
            narrow,
            [
                "  entry            games  mean score",
                "  snake-cycle        300      102.82",
                "  a-very-long-entry-name-indeed",
                "                       1       -0.50",
                "",
                "  entry            ticks p50/p90/p99/max",
                "  snake-cycle                    1/2/3/4",
                "  a-very-long-entry-name-indeed",
                "                                 9/9/9/9",
            ]
        );
    }

    #[test]
    fn long_lines_wrap_at_spaces_with_an_indent() {
        assert_eq!(wrap("  percentiles: one two three", 100, 4), "  percentiles: one two three");
        assert_eq!(wrap("  percentiles: one two three", 20, 4), "  percentiles: one\n    two three");
        assert_eq!(wrap("a verylongword b", 5, 2), "a\n  verylongword\n  b");
    }

    #[test]
    fn sizes_parse_and_bad_ones_say_what_is_wrong() {
        assert_eq!(parse_size("10x12"), Ok((10, 12)));
        assert_eq!(parse_size(" 3 X 4 "), Ok((3, 4)));
        let error = |text| parse_size(text).unwrap_err();
        assert!(error("10").contains("expected WIDTHxHEIGHT"));
        assert!(error("axb").contains("expected WIDTHxHEIGHT"));
        assert_eq!(error("100000x1"), "the width 100000 is too large: at most 4096");
        assert_eq!(error("5x0"), "the height must be at least 1");
    }
}
