//! Ctrl-C and SIGTERM: the flag the first signal sets and every long
//! command polls, and what a command reads from it (a budget that runs
//! out, the exit code of one that printed what it had).

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, OnceLock};

use tickbot::plan::Budget;

use super::exit::Exit;

/// Set by the first Ctrl-C or SIGTERM; a second Ctrl-C ends the process at once.
static INTERRUPTED: OnceLock<Arc<AtomicBool>> = OnceLock::new();

/// Installs the Ctrl-C/SIGTERM handlers: the first signal sets the flag that
/// every long command polls (it then stops promptly, prints what it has and
/// exits 130); a second Ctrl-C exits with 130 at once. Call once, early.
pub(crate) fn install_interrupt_handler() -> std::io::Result<()> {
    use signal_hook::consts::{SIGINT, SIGTERM};
    let flag = Arc::clone(INTERRUPTED.get_or_init(Arc::default));
    // The conditional shutdown is registered first, so it sees the flag as
    // the previous signal left it.
    signal_hook::flag::register_conditional_shutdown(SIGINT, Exit::Interrupted as i32, Arc::clone(&flag))?;
    signal_hook::flag::register(SIGINT, Arc::clone(&flag))?;
    signal_hook::flag::register(SIGTERM, flag)?;
    Ok(())
}

/// The flag a signal sets.
pub(crate) fn interrupt_flag() -> Arc<AtomicBool> {
    Arc::clone(INTERRUPTED.get_or_init(Arc::default))
}

pub(crate) fn interrupted() -> bool {
    interrupt_flag().load(Ordering::Relaxed)
}

/// A budget with no deadline that runs out on Ctrl-C or SIGTERM: what long
/// library work (benchmarks, matches, table builds) polls.
pub(crate) fn interrupt_budget() -> Budget {
    Budget::new(None, Some(interrupt_flag()))
}

/// `Exit::Interrupted` if a signal came, else `Exit::Success`: the code of
/// a command that printed what it had.
pub(crate) fn finished() -> Exit {
    if interrupted() { Exit::Interrupted } else { Exit::Success }
}
