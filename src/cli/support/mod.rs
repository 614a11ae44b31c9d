//! What every command shares, below the commands (which use it) and above
//! the library: the exit codes and the failures that carry them, the
//! Ctrl-C/SIGTERM flag, progress bars, playing one game or a session on the
//! async session runner, printing JSON and collecting files. Each file
//! here owns one of these; the commands import them from here.

pub mod exit;
pub mod interrupt;
pub mod output;
pub mod progress;
pub mod session;

pub use exit::{EXIT_CODES, Exit, ExitOnError, Failure};
pub use interrupt::{finished, install_interrupt_handler, interrupt_budget, interrupt_flag, interrupted};
pub use output::{collect_files, print_json};
pub use progress::progress_bar;
pub use session::{play_one, run_session};

/// How many threads (or games at once) long work uses by default: the
/// machine's cores.
pub fn default_parallelism() -> usize {
    std::thread::available_parallelism().map_or(1, usize::from)
}
