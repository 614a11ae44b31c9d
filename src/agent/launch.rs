//! The launcher, tickbot's hidden `agent-exec` command: the agent's own
//! process, before it becomes the agent, asks to die with tickbot
//! (`PR_SET_PDEATHSIG`), takes its resource limits, enters the sandbox if
//! asked, starts its watchdog ([`watch`]: the group dies with tickbot), then
//! `exec`s the agent's program (no shell). Also the reaping of a finished
//! agent's process group ([`reap_group`]).
//!
//! The sandbox, per agent and opt-in (`docs/protocols.md` says what it
//! protects against and what it does not):
//! - a network namespace of its own (`unshare(CLONE_NEWNET)`, inside a new
//!   user namespace when tickbot is not root): no interface but a loopback
//!   that is down, so no connection to anything;
//! - Landlock: reading and running files anywhere, writing only beneath its
//!   working directory (a fresh scratch directory tickbot removes after the
//!   game), and no TCP bind or connect where the kernel has Landlock's
//!   network rules;
//! - limits: file size 64 MiB, 256 open files, no core dumps, plus the
//!   agent's own memory and CPU limits;
//! - an environment of `PATH`, `HOME` and `TMPDIR` only (set by the parent),
//!   and no descriptors but stdin, stdout and stderr (tickbot opens every
//!   other descriptor close-on-exec).

use std::convert::Infallible;
use std::ffi::CString;
use std::os::fd::AsFd;
use std::process::{Command, Stdio};
use std::sync::Once;

use landlock::{
    ABI, Access, AccessFs, AccessNet, CompatLevel, Compatible, Ruleset, RulesetAttr, RulesetCreatedAttr, RulesetStatus,
    path_beneath_rules,
};
use nix::errno::Errno;
use nix::poll::{PollFd, PollFlags, PollTimeout, poll};
use nix::sched::{CloneFlags, unshare};
use nix::sys::prctl;
use nix::sys::resource::{Resource, setrlimit};
use nix::sys::signal::{Signal, killpg};
use nix::sys::wait::{WaitPidFlag, waitpid};
use nix::unistd::{Pid, execvp, getpgrp, getppid};

/// What `tickbot agent-exec` was asked to do.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct LaunchArgs {
    /// tickbot's process id: if the launcher's parent is already another
    /// process, tickbot died before the death signal was armed.
    pub parent: u32,
    pub memory_bytes: Option<u64>,
    pub cpu_seconds: Option<u64>,
    pub sandbox: bool,
    pub program: String,
    pub args: Vec<String>,
}

/// Why the launcher could not become the agent.
#[derive(Debug, thiserror::Error)]
pub enum LaunchError {
    #[error("tickbot (process {0}) is gone")]
    ParentGone(u32),
    #[error("{what}: {error}")]
    System { what: &'static str, error: Errno },
    #[error("sandbox: {0}")]
    Sandbox(String),
    #[error("watchdog: {0}")]
    Watchdog(String),
    #[error("{0}: contains a NUL byte")]
    Nul(String),
}

fn system(what: &'static str) -> impl FnOnce(Errno) -> LaunchError {
    move |error| LaunchError::System { what, error }
}

/// Sets this process up as `args` say and replaces it with the agent; it
/// returns only on failure.
pub fn exec(args: &LaunchArgs) -> Result<Infallible, LaunchError> {
    prctl::set_pdeathsig(Signal::SIGKILL).map_err(system("PR_SET_PDEATHSIG"))?;
    // The parent may have died between our fork and the line above.
    if getppid().as_raw() as u32 != args.parent {
        return Err(LaunchError::ParentGone(args.parent));
    }
    if let Some(bytes) = args.memory_bytes {
        setrlimit(Resource::RLIMIT_AS, bytes, bytes).map_err(system("RLIMIT_AS"))?;
    }
    if let Some(seconds) = args.cpu_seconds {
        setrlimit(Resource::RLIMIT_CPU, seconds, seconds).map_err(system("RLIMIT_CPU"))?;
    }
    spawn_watchdog()?;
    if args.sandbox {
        enter_sandbox()?;
    }
    let cstring = |text: &str| CString::new(text).map_err(|_| LaunchError::Nul(text.to_string()));
    let program = cstring(&args.program)?;
    let mut argv = vec![program.clone()];
    for arg in &args.args {
        argv.push(cstring(arg)?);
    }
    Err(execvp(&program, &argv).map_err(system("exec")).unwrap_err())
}

/// Starts the agent's watchdog, `tickbot agent-watch` (see [`watch`]), in
/// the agent's process group, sharing only its stdin.
fn spawn_watchdog() -> Result<(), LaunchError> {
    let launcher = std::env::current_exe().map_err(|error| LaunchError::Sandbox(error.to_string()))?;
    Command::new(launcher)
        .arg("agent-watch")
        .stdin(Stdio::inherit())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .map_err(|error| LaunchError::Watchdog(error.to_string()))?;
    Ok(())
}

/// The watchdog: waits until the other end of its stdin (tickbot's end of
/// the agent's input) is closed, then kills its whole process group, agent
/// and children included. tickbot closes it when a game ends; the kernel
/// closes it when tickbot dies, however it dies: `PR_SET_PDEATHSIG` kills
/// only the agent's own process, this kills what it forked too.
pub fn watch() -> ! {
    let stdin = std::io::stdin();
    loop {
        let mut fds = [PollFd::new(stdin.as_fd(), PollFlags::empty())];
        match poll(&mut fds, PollTimeout::NONE) {
            Err(Errno::EINTR) => continue,
            Ok(_) if fds[0].revents().is_some_and(|events| events.is_empty()) => continue,
            _ => break,
        }
    }
    let _ = killpg(getpgrp(), Signal::SIGKILL);
    std::process::exit(0)
}

fn enter_sandbox() -> Result<(), LaunchError> {
    const MIB: u64 = 1024 * 1024;
    setrlimit(Resource::RLIMIT_FSIZE, 64 * MIB, 64 * MIB).map_err(system("RLIMIT_FSIZE"))?;
    setrlimit(Resource::RLIMIT_NOFILE, 256, 256).map_err(system("RLIMIT_NOFILE"))?;
    setrlimit(Resource::RLIMIT_CORE, 0, 0).map_err(system("RLIMIT_CORE"))?;
    unshare(CloneFlags::CLONE_NEWNET)
        .or_else(|_| unshare(CloneFlags::CLONE_NEWUSER | CloneFlags::CLONE_NEWNET))
        .map_err(|error| LaunchError::Sandbox(format!("no network namespace: {error}")))?;
    let here = std::env::current_dir().map_err(|error| LaunchError::Sandbox(error.to_string()))?;
    let abi = ABI::V5;
    let sandbox_error = |error: landlock::RulesetError| LaunchError::Sandbox(error.to_string());
    let status = Ruleset::default()
        .set_compatibility(CompatLevel::BestEffort)
        .handle_access(AccessFs::from_all(abi))
        .map_err(sandbox_error)?
        .handle_access(AccessNet::BindTcp | AccessNet::ConnectTcp)
        .map_err(sandbox_error)?
        .create()
        .map_err(sandbox_error)?
        .add_rules(path_beneath_rules(["/"], AccessFs::from_read(abi)))
        .map_err(sandbox_error)?
        .add_rules(path_beneath_rules([here.as_path()], AccessFs::from_all(abi)))
        .map_err(sandbox_error)?
        .add_rules(path_beneath_rules(["/dev/null"], AccessFs::from_all(abi)))
        .map_err(sandbox_error)?
        .restrict_self()
        .map_err(sandbox_error)?;
    if status.ruleset == RulesetStatus::NotEnforced {
        return Err(LaunchError::Sandbox("this kernel does not enforce Landlock".to_string()));
    }
    Ok(())
}

/// Makes tickbot the reaper of its agents' orphans (once per process), so
/// that the children an agent forked are reaped by [`reap_group`] rather
/// than left as zombies of whatever the system's init is.
pub(crate) fn become_subreaper() {
    static ONCE: Once = Once::new();
    ONCE.call_once(|| {
        let _ = prctl::set_child_subreaper(true);
    });
}

/// Reaps every process of group `pgid` that is tickbot's child (an
/// agent's forked children, once its leader died and tickbot adopted
/// them). The group has been sent SIGKILL: this waits for at most a
/// second.
pub(crate) fn reap_group(pgid: Pid) {
    let give_up = std::time::Instant::now() + std::time::Duration::from_secs(1);
    while std::time::Instant::now() < give_up {
        match waitpid(Pid::from_raw(-pgid.as_raw()), Some(WaitPidFlag::WNOHANG)) {
            Ok(nix::sys::wait::WaitStatus::StillAlive) => std::thread::sleep(std::time::Duration::from_millis(1)),
            Ok(_) | Err(Errno::EINTR) => {}
            // ECHILD: none left.
            Err(_) => return,
        }
    }
}
