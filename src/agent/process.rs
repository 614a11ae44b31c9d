//! One agent process for one game: spawned without a shell in a process
//! group of its own, asked question after question ([`Process::call`]:
//! write the input, read one line back before the call's deadline), and
//! ended with its whole group and reaped when the game ends or the value
//! is dropped, whatever state it is in.
//!
//! Reading is bounded: a line longer than [`Limits::line_bytes`] is a
//! protocol fault, and stderr is drained all the time (a bot that writes a
//! lot of it never blocks) and only its last [`Limits::stderr_bytes`] kept.
//! Its stdin is one end of a socket pair, not a pipe, so that writing to an
//! agent that died is an error we see (`MSG_NOSIGNAL`) rather than a
//! SIGPIPE that would end tickbot. Polling (`poll(2)`) on non-blocking
//! descriptors keeps it all on the caller's thread: no reader threads.
//!
//! Two guarantees need the child to act before it runs the agent's code:
//! dying with tickbot (`PR_SET_PDEATHSIG`, so not even `kill -9` of tickbot
//! leaves it running) and the resource limits and sandbox of [`Limits`].
//! tickbot forbids `unsafe`, and so `pre_exec`; instead the child is a
//! launcher, tickbot's own hidden `agent-exec` command, that sets them up
//! for itself and then `exec`s the agent ([`super::launch`]). Without a
//! launcher (unit tests) the agent runs directly, with neither.

use std::io::Read;
use std::os::fd::{AsFd, AsRawFd, OwnedFd};
use std::os::unix::net::UnixStream;
use std::os::unix::process::{CommandExt, ExitStatusExt};
use std::path::PathBuf;
use std::process::{Child, ChildStderr, ChildStdout, Command, Stdio};
use std::sync::{Mutex, OnceLock, mpsc};
use std::time::{Duration, Instant};

use nix::errno::Errno;
use nix::fcntl::{FcntlArg, OFlag, fcntl};
use nix::poll::{PollFd, PollFlags, PollTimeout, poll};
use nix::sys::signal::{Signal, killpg};
use nix::sys::socket::{MsgFlags, send};
use nix::unistd::Pid;

use super::fault::{Exit, Fault};

/// What an agent may use and how long it may take.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Limits {
    /// Added to every call's own limit before it is a timeout (the pipes
    /// and the scheduler take time too, more so on a loaded machine).
    pub margin: Duration,
    /// The longest answer line read; longer is a protocol fault.
    pub line_bytes: usize,
    /// The tail of stderr kept for the log.
    pub stderr_bytes: usize,
    /// Address space (`RLIMIT_AS`), bytes. Needs the launcher.
    pub memory_bytes: Option<u64>,
    /// CPU time (`RLIMIT_CPU`), seconds. Needs the launcher.
    pub cpu_seconds: Option<u64>,
    /// Run in the sandbox (see [`super::launch`]). Needs the launcher.
    pub sandbox: bool,
}

impl Default for Limits {
    fn default() -> Limits {
        Limits {
            margin: Duration::from_millis(50),
            line_bytes: 64 * 1024,
            stderr_bytes: 4 * 1024,
            memory_bytes: None,
            cpu_seconds: None,
            sandbox: false,
        }
    }
}

/// An agent as a user names it: a program and its arguments, run in a
/// working directory, through tickbot's launcher when one is given.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AgentSpec {
    pub program: String,
    pub args: Vec<String>,
    /// The working directory; `None`: tickbot's own (a sandboxed agent
    /// always gets a fresh scratch directory instead).
    pub dir: Option<PathBuf>,
    pub limits: Limits,
    /// tickbot's own executable, which runs `agent-exec`.
    pub launcher: Option<PathBuf>,
}

impl AgentSpec {
    /// The agent `exec:PROGRAM ARGS...` names: the text after `exec:`,
    /// split into words as a POSIX shell would (quotes and backslashes),
    /// but never run by a shell. `None` if `text` does not start `exec:`.
    pub fn parse(text: &str) -> Option<Result<AgentSpec, String>> {
        let command = text.strip_prefix("exec:")?;
        Some(match shell_words::split(command) {
            Ok(words) if !words.is_empty() => Ok(AgentSpec {
                program: words[0].clone(),
                args: words[1..].to_vec(),
                dir: None,
                limits: Limits::default(),
                launcher: None,
            }),
            Ok(_) => Err("exec: names no program".to_string()),
            Err(error) => Err(format!("exec:{command}: {error}")),
        })
    }

    /// The command as the user typed it, for reports and replay headers.
    pub fn command_line(&self) -> String {
        shell_words::join(std::iter::once(&self.program).chain(&self.args))
    }

    fn command(&self) -> Result<Command, Fault> {
        let limits = &self.limits;
        let needs_launcher = limits.memory_bytes.is_some() || limits.cpu_seconds.is_some() || limits.sandbox;
        let mut command = match &self.launcher {
            Some(launcher) => {
                let mut command = Command::new(launcher);
                command.arg("agent-exec").arg("--parent").arg(std::process::id().to_string());
                if let Some(bytes) = limits.memory_bytes {
                    command.arg("--memory").arg(bytes.to_string());
                }
                if let Some(seconds) = limits.cpu_seconds {
                    command.arg("--cpu").arg(seconds.to_string());
                }
                if limits.sandbox {
                    command.arg("--sandbox");
                }
                command.arg("--").arg(&self.program).args(&self.args);
                command
            }
            None if needs_launcher => {
                return Err(Fault::Spawn("limits and the sandbox need tickbot's launcher".into()));
            }
            None => {
                let mut command = Command::new(&self.program);
                command.args(&self.args);
                command
            }
        };
        if let Some(dir) = &self.dir {
            command.current_dir(dir);
        }
        command.process_group(0);
        Ok(command)
    }
}

/// A running agent.
#[derive(Debug)]
pub struct Process {
    child: Child,
    stdin: Option<UnixStream>,
    stdout: ChildStdout,
    stderr: Option<ChildStderr>,
    /// Bytes read from stdout and not yet handed out as lines.
    pending: Vec<u8>,
    stdout_closed: bool,
    stderr_tail: Vec<u8>,
    limits: Limits,
    /// The scratch directory of a sandboxed agent, removed at the end.
    scratch: Option<tempfile::TempDir>,
    ended: bool,
}

impl Process {
    /// Starts `spec`.
    pub fn spawn(spec: &AgentSpec) -> Result<Process, Fault> {
        let mut command = spec.command()?;
        let scratch = if spec.limits.sandbox {
            let dir = tempfile::Builder::new()
                .prefix("tickbot-agent-")
                .tempdir()
                .map_err(|error| Fault::Spawn(format!("scratch directory: {error}")))?;
            command.current_dir(dir.path()).env_clear().env("PATH", "/usr/local/bin:/usr/bin:/bin");
            command.env("HOME", dir.path()).env("TMPDIR", dir.path());
            Some(dir)
        } else {
            None
        };
        let (ours, theirs) = UnixStream::pair().map_err(|error| Fault::Spawn(error.to_string()))?;
        command.stdin(Stdio::from(OwnedFd::from(theirs))).stdout(Stdio::piped()).stderr(Stdio::piped());
        super::launch::become_subreaper();
        let mut child = spawn_from_one_thread(command)
            .map_err(|error| Fault::Spawn(format!("{}: {error}", spec.command_line())))?;
        let (stdout, stderr) = (child.stdout.take(), child.stderr.take());
        let (Some(stdout), Some(stderr)) = (stdout, stderr) else {
            return Err(Fault::Spawn("no pipes".into()));
        };
        for fd in [ours.as_fd(), stdout.as_fd(), stderr.as_fd()] {
            fcntl(fd, FcntlArg::F_SETFL(OFlag::O_NONBLOCK)).map_err(|error| Fault::Spawn(error.to_string()))?;
        }
        Ok(Process {
            child,
            stdin: Some(ours),
            stdout,
            stderr: Some(stderr),
            pending: Vec::new(),
            stdout_closed: false,
            stderr_tail: Vec::new(),
            limits: spec.limits.clone(),
            scratch,
            ended: false,
        })
    }

    /// The process id (also its process group's).
    pub fn id(&self) -> u32 {
        self.child.id()
    }

    /// Writes `input` and reads one line back (without its `\n`, and a `\r`
    /// before it), all within `limit` plus the margin.
    pub fn call(&mut self, input: &str, limit: Duration) -> Result<String, Fault> {
        let start = Instant::now();
        let deadline = start + limit + self.limits.margin;
        self.write_all(input.as_bytes(), start, deadline, limit)?;
        loop {
            if let Some(line) = self.take_line()? {
                return Ok(line);
            }
            if self.stdout_closed {
                return Err(Fault::Crash(self.exit_after_close()));
            }
            let now = Instant::now();
            if now >= deadline {
                return Err(Fault::Timeout { limit, waited: now - start });
            }
            self.wait_readable(deadline - now)?;
            self.read_available();
        }
    }

    /// Writes `input` with no answer expected (a protocol's opening lines).
    pub fn send(&mut self, input: &str, limit: Duration) -> Result<(), Fault> {
        let start = Instant::now();
        self.write_all(input.as_bytes(), start, start + limit + self.limits.margin, limit)
    }

    /// The last bytes the agent wrote to stderr (at most the limit's).
    pub fn stderr_tail(&mut self) -> String {
        self.read_available();
        String::from_utf8_lossy(&self.stderr_tail).into_owned()
    }

    fn write_all(&mut self, mut bytes: &[u8], start: Instant, deadline: Instant, limit: Duration) -> Result<(), Fault> {
        while !bytes.is_empty() {
            let Some(stdin) = &self.stdin else { return Err(Fault::Crash(self.exit_after_close())) };
            match send(stdin.as_raw_fd(), bytes, MsgFlags::MSG_NOSIGNAL | MsgFlags::MSG_DONTWAIT) {
                Ok(written) => bytes = &bytes[written..],
                Err(Errno::EAGAIN) => {
                    let now = Instant::now();
                    if now >= deadline {
                        return Err(Fault::Timeout { limit, waited: now - start });
                    }
                    // Drain its output meanwhile: an agent blocked writing
                    // to us would never read what we write.
                    let mut fds = [PollFd::new(stdin.as_fd(), PollFlags::POLLOUT)];
                    let _ = poll(&mut fds, poll_timeout(deadline - now).min(PollTimeout::from(10u8)));
                    self.read_available();
                }
                Err(Errno::EINTR) => {}
                Err(_) => {
                    self.stdin = None;
                    return Err(Fault::Crash(self.exit_after_close()));
                }
            }
        }
        Ok(())
    }

    /// Hands out the next whole line of `pending`, if there is one.
    fn take_line(&mut self) -> Result<Option<String>, Fault> {
        let Some(end) = self.pending.iter().position(|&byte| byte == b'\n') else {
            if self.pending.len() > self.limits.line_bytes {
                let start = String::from_utf8_lossy(&self.pending[..256.min(self.pending.len())]).into_owned();
                let reason = format!("a line longer than {} bytes", self.limits.line_bytes);
                return Err(Fault::protocol(reason, &start));
            }
            return Ok(None);
        };
        let mut line: Vec<u8> = self.pending.drain(..=end).collect();
        line.pop();
        if line.last() == Some(&b'\r') {
            line.pop();
        }
        if line.len() > self.limits.line_bytes {
            let reason = format!("a line longer than {} bytes", self.limits.line_bytes);
            return Err(Fault::protocol(reason, &String::from_utf8_lossy(&line[..256])));
        }
        match String::from_utf8(line) {
            Ok(line) => Ok(Some(line)),
            Err(error) => Err(Fault::protocol("not UTF-8", &String::from_utf8_lossy(error.as_bytes()))),
        }
    }

    /// Waits until stdout or stderr has something to read, or `timeout`.
    fn wait_readable(&mut self, timeout: Duration) -> Result<(), Fault> {
        let mut fds = vec![PollFd::new(self.stdout.as_fd(), PollFlags::POLLIN)];
        if let Some(stderr) = &self.stderr {
            fds.push(PollFd::new(stderr.as_fd(), PollFlags::POLLIN));
        }
        match poll(&mut fds, poll_timeout(timeout)) {
            Ok(_) | Err(Errno::EINTR) => Ok(()),
            Err(error) => Err(Fault::Spawn(format!("poll: {error}"))),
        }
    }

    /// Reads whatever stdout and stderr hold now, without blocking: stdout
    /// into `pending` (up to just past the line limit, so a flood is read
    /// no further), stderr into its bounded tail.
    fn read_available(&mut self) {
        let mut buffer = [0u8; 16 * 1024];
        while !self.stdout_closed && self.pending.len() <= self.limits.line_bytes {
            match self.stdout.read(&mut buffer) {
                Ok(0) => self.stdout_closed = true,
                Ok(n) => self.pending.extend_from_slice(&buffer[..n]),
                Err(error) if error.kind() == std::io::ErrorKind::Interrupted => {}
                Err(_) => break,
            }
            if self.pending.contains(&b'\n') {
                break;
            }
        }
        while let Some(stderr) = &mut self.stderr {
            match stderr.read(&mut buffer) {
                Ok(0) => self.stderr = None,
                Ok(n) => {
                    self.stderr_tail.extend_from_slice(&buffer[..n]);
                    let keep = self.limits.stderr_bytes;
                    if self.stderr_tail.len() > 2 * keep {
                        let cut = self.stderr_tail.len() - keep;
                        self.stderr_tail.drain(..cut);
                    }
                }
                Err(error) if error.kind() == std::io::ErrorKind::Interrupted => {}
                Err(_) => break,
            }
        }
        if self.stderr_tail.len() > self.limits.stderr_bytes {
            let cut = self.stderr_tail.len() - self.limits.stderr_bytes;
            self.stderr_tail.drain(..cut);
        }
    }

    /// How the process ended, its output being closed: its status if it
    /// exits within a moment, else it is killed as one that closed its
    /// output.
    fn exit_after_close(&mut self) -> Exit {
        let give_up = Instant::now() + Duration::from_millis(200);
        loop {
            if let Ok(Some(status)) = self.child.try_wait() {
                return match (status.code(), status.signal()) {
                    (Some(code), _) => Exit::Code(code),
                    (None, Some(signal)) => Exit::Signal(signal),
                    (None, None) => Exit::ClosedOutput,
                };
            }
            if Instant::now() >= give_up {
                self.end();
                return Exit::ClosedOutput;
            }
            std::thread::sleep(Duration::from_millis(1));
        }
    }

    /// Ends the agent: closes its stdin (a well-behaved bot exits on end of
    /// input), gives it `grace` to exit, then kills its whole process group
    /// and reaps it. Idempotent.
    pub fn end_within(&mut self, grace: Duration) {
        if self.ended {
            return;
        }
        self.ended = true;
        self.stdin = None;
        let pgid = Pid::from_raw(self.child.id() as i32);
        let give_up = Instant::now() + grace;
        while Instant::now() < give_up {
            if let Ok(Some(_)) = self.child.try_wait() {
                break;
            }
            std::thread::sleep(Duration::from_millis(1));
        }
        // Whether or not the leader exited, its children may live on in
        // its group: they go too.
        let _ = killpg(pgid, Signal::SIGKILL);
        let _ = self.child.wait();
        super::launch::reap_group(pgid);
        self.scratch = None;
    }

    /// [`Process::end_within`] with no grace: the game is over.
    pub fn end(&mut self) {
        self.end_within(Duration::ZERO);
    }
}

impl Drop for Process {
    fn drop(&mut self) {
        self.end_within(Duration::from_millis(20));
    }
}

/// Spawns `command` from one thread that lives as long as tickbot: the
/// kernel sends `PR_SET_PDEATHSIG` when the *thread* that forked the child
/// ends, and the threads that play games come and go (a thread pool may
/// retire one mid-game).
fn spawn_from_one_thread(command: Command) -> std::io::Result<Child> {
    type Request = (Command, mpsc::Sender<std::io::Result<Child>>);
    static SPAWNER: OnceLock<Mutex<mpsc::Sender<Request>>> = OnceLock::new();
    let spawner = SPAWNER.get_or_init(|| {
        let (sender, receiver) = mpsc::channel::<Request>();
        std::thread::Builder::new()
            .name("agent-spawner".into())
            .spawn(move || {
                for (mut command, reply) in receiver {
                    let _ = reply.send(command.spawn());
                }
            })
            .expect("a thread to spawn agents from");
        Mutex::new(sender)
    });
    let (reply, answer) = mpsc::channel();
    let sent = spawner.lock().map_err(|_| std::io::Error::other("agent spawner poisoned"))?.send((command, reply));
    sent.map_err(|_| std::io::Error::other("agent spawner gone"))?;
    answer.recv().map_err(|_| std::io::Error::other("agent spawner gone"))?
}

fn poll_timeout(timeout: Duration) -> PollTimeout {
    // Round up: a zero timeout would spin until the deadline.
    let millis = timeout.as_micros().div_ceil(1000).min(i32::MAX as u128);
    PollTimeout::try_from(millis as i32).unwrap_or(PollTimeout::MAX)
}
