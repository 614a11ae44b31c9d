//! What every command shares, below the commands (which use it) and above
//! the library: the exit codes and the failures that carry them, the
//! Ctrl-C/SIGTERM flag, progress bars, playing one game or a session on the
//! async session runner, printing JSON and collecting files, showing a
//! sequential test. Each file
//! here owns one of these; the commands import them from here.

pub(crate) mod exit;
pub(crate) mod interrupt;
pub(crate) mod output;
pub(crate) mod progress;
pub(crate) mod session;
pub(crate) mod sprt;

pub(crate) use exit::{EXIT_CODES, Exit, ExitOnError, Failure};
pub(crate) use interrupt::{finished, install_interrupt_handler, interrupt_budget, interrupt_flag, interrupted};
pub(crate) use output::{collect_files, print_json, replace_file};
pub(crate) use progress::{progress_bar, progress_bar_with};
pub(crate) use session::{SessionMetrics, play_one, run_session};
pub(crate) use sprt::{llr_status, print_session_test, print_sprt};

/// How many threads (or games at once) long work uses by default: the
/// machine's cores.
pub(crate) fn default_parallelism() -> usize {
    std::thread::available_parallelism().map_or(1, usize::from)
}
