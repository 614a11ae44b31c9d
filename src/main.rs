//! The `tickbot` binary's entry point: parses the command line, hands it to
//! `cli::execute`, and turns the outcome into the documented exit code.
//! The binary (this file and `cli/`) is the only code that prints; the
//! library returns values and typed errors.

#![allow(clippy::print_stdout, clippy::print_stderr)]

mod cli;

use std::process::ExitCode;

use clap::Parser;

fn main() -> ExitCode {
    // Like other Unix filters, end quietly when the reader of our output goes
    // away (`tickbot bench ... --json | head`) instead of panicking on EPIPE.
    sigpipe::reset();
    match cli::execute(cli::Cli::parse_from(cli::agent::with_exec_planners(std::env::args_os()))) {
        Ok(code) => ExitCode::from(code as u8),
        Err(failure) => {
            eprintln!("error: {:#}", failure.error);
            ExitCode::from(failure.code as u8)
        }
    }
}
