//! The `tickbot` binary: parses the command line, sets up logging, calls the
//! library, prints results, and maps errors to the documented exit codes.
//! The only place that prints to stdout.

#![allow(clippy::print_stdout, clippy::print_stderr)]

mod cli;
mod commands;
mod runner;

use std::process::ExitCode;

use clap::Parser;

fn main() -> ExitCode {
    // Like other Unix filters, end quietly when the reader of our output goes
    // away (`tickbot bench ... --json | head`) instead of panicking on EPIPE.
    sigpipe::reset();
    let cli = cli::Cli::parse();
    match commands::execute(cli) {
        Ok(code) => ExitCode::from(code as u8),
        Err(failure) => {
            eprintln!("error: {:#}", failure.error);
            ExitCode::from(failure.code as u8)
        }
    }
}
