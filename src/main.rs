//! The `tickbot` binary's entry point: parses the command line, hands it to
//! `commands::execute`, and turns the outcome into the documented exit code.
//! The binary (this file, `commands.rs`, `runner.rs`, `cli/`) is the only
//! code that prints; the library returns values and typed errors.

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
