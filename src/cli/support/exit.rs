//! The exit codes the binary documents (the table `--help` prints, and the
//! `Exit` each command returns), and `Failure`: an error on its way out
//! with the code it maps to.

/// The exit-code table `--help` prints after a command's options.
pub(crate) const EXIT_CODES: &str = "\
Exit codes:
  0    success (for `replay verify`: every replay reproduced exactly)
  1    `replay verify`/`show`: a replay diverged (an action that is illegal where it
       was recorded, or a state hash that differs, at some tick; `show` says so
       for `--tick` at or after that tick and for `--all`)
  2    bad command line or bad input (an unreadable or invalid map, a missing file, a
       shard's variables that disagree or are not numbers, ...)
  3    `replay verify`/`show`/`upgrade`: a file is not a valid replay (foreign, truncated,
       unsupported format version, corrupt or damaged, or an action code that stands
       for no action); 1 takes precedence when both occur
  4    runtime failure (cannot write replays, results or logs)
  130  interrupted (Ctrl-C or SIGTERM): finished work is kept and reported;
       a second Ctrl-C ends at once
  141  the reader of the output went away (`... | head`): ended quietly by SIGPIPE";

/// The documented exit codes (see `tickbot --help`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Exit {
    Success = 0,
    Diverged = 1,
    BadInput = 2,
    InvalidReplay = 3,
    Runtime = 4,
    Interrupted = 130,
}

/// An error on its way out, with the exit code it maps to.
#[derive(Debug)]
pub(crate) struct Failure {
    pub code: Exit,
    pub error: anyhow::Error,
}

impl Failure {
    pub(crate) fn bad_input(error: impl Into<anyhow::Error>) -> Failure {
        Failure { code: Exit::BadInput, error: error.into() }
    }
}

pub(crate) trait ExitOnError<T> {
    fn exit_code(self, code: Exit) -> Result<T, Failure>;
}

impl<T, E: Into<anyhow::Error>> ExitOnError<T> for Result<T, E> {
    fn exit_code(self, code: Exit) -> Result<T, Failure> {
        self.map_err(|error| Failure { code, error: error.into() })
    }
}
