//! `tickbot replay show`: a replay's header and outcome, and the board at
//! one tick or at every tick (written as drawn, so a long replay never
//! sits in memory as boards).

use std::io::Write;
use std::ops::ControlFlow;
use std::path::Path;

use anyhow::Context;

use tickbot::game::{GameSpec, GameVisitor, Replayable};
use tickbot::plan::format_params;
use tickbot::replay::{self, DivergenceKind, RenderError};

use crate::cli::support::{Exit, ExitOnError, Failure};

pub(super) fn show(path: &Path, tick: Option<u32>, all: bool) -> Result<Exit, Failure> {
    let bytes = super::read_bytes(path)?;
    let version = replay::format_version(&bytes)
        .and_then(|version| replay::decode_partial(&bytes).map(|replay| (version, replay)));
    let (version, replay) = version.with_context(|| format!("{}", path.display())).exit_code(Exit::InvalidReplay)?;
    let header = &replay.header;
    let mut out = String::new();
    out.push_str(&format!("replay    {}\n", path.display()));
    out.push_str(&format!("format    version {version}, recorded by tickbot {}\n", header.tickbot_version));
    out.push_str(&format!("game      {}: {}\n", header.game.name(), describe_spec(&header.game)));
    out.push_str(&format!("seed      {}\n", header.seed));
    out.push_str(&format!("planner   {} {}\n", header.planner.name, format_params(&header.planner.params)));
    let ticks = replay.frames.len() as u32;
    match &replay.footer {
        Some(footer) => out.push_str(&format!("outcome   {} after {} ticks\n", footer.outcome, footer.ticks)),
        None => out.push_str(&format!("outcome   none: the file ends after tick {ticks}, no footer\n")),
    }
    let mut stdout = std::io::stdout().lock();
    // A closed pipe (`| head`) is not an error worth reporting: stop quietly.
    let mut write =
        |text: &str| stdout.write_all(text.as_bytes()).map_or(ControlFlow::Break(()), ControlFlow::Continue);
    let rendered = if all {
        // Boards are written as they are drawn: every board of a long
        // replay would not fit in memory at once.
        match write(&out) {
            ControlFlow::Break(()) => Ok(()),
            ControlFlow::Continue(()) => replay::render_each(&replay, &mut |_, board| write(&format!("\n{board}"))),
        }
    } else {
        replay::render_at(&replay, tick.unwrap_or(ticks)).map(|board| {
            let _ = write(&format!("{out}\n{board}"));
        })
    };
    if let Err(error) = rendered {
        // An action that cannot be played where it was recorded is a
        // diverging replay (or, for a code that stands for no action, a
        // damaged one), as `replay verify` reports it, whichever tick was
        // asked for.
        let code = match &error {
            RenderError::NoSuchTick { .. } => Exit::BadInput,
            RenderError::Diverged(divergence) if divergence.kind == DivergenceKind::UnknownAction => {
                Exit::InvalidReplay
            }
            RenderError::Diverged(_) => Exit::Diverged,
        };
        return Err(Failure { code, error: anyhow::Error::from(error).context(path.display().to_string()) });
    }
    Ok(Exit::Success)
}

fn describe_spec(spec: &GameSpec) -> String {
    struct Describe;
    impl GameVisitor for Describe {
        type Output = String;
        fn visit<G: Replayable>(self, config: &G::Config) -> String {
            G::describe(config)
        }
    }
    spec.visit(Describe)
}
