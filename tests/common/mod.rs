//! Drives the built `sentinel` binary through stdin/stdout the way a GUI does. Every wait has a
//! timeout, so an engine that hangs fails the test instead of hanging the suite, and a failure
//! prints the whole transcript.

#![allow(dead_code)]

use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, Command, ExitStatus, Stdio};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// How long any single expected answer may take. Generous: the machine is shared.
pub const TIMEOUT: Duration = Duration::from_secs(10);

/// `sentinel ARGS`, to be started with all three standard streams piped to the test; a test
/// may change its environment or folder first (`Engine::start_command`).
pub fn command(args: &[&str]) -> Command {
    let mut command = Command::new(env!("CARGO_BIN_EXE_sentinel"));
    command.args(args).stdin(Stdio::piped()).stdout(Stdio::piped()).stderr(Stdio::piped());
    command
}

fn spawn(args: &[&str]) -> Child {
    command(args).spawn().expect("the sentinel binary starts")
}

pub struct Engine {
    child: Child,
    stdin: Option<ChildStdin>,
    lines: Receiver<String>,
    /// Everything sent (`> `) and received (`< `), for failure messages.
    transcript: Vec<String>,
    /// Every line received so far, for checks over a whole session.
    received: Vec<String>,
    /// What the engine wrote to stderr so far.
    stderr: Arc<Mutex<String>>,
}

impl Engine {
    pub fn start() -> Engine {
        Engine::start_with(&[])
    }

    pub fn start_with(args: &[&str]) -> Engine {
        Engine::start_command(command(args))
    }

    /// Starts `command` (from `command`), as a GUI that sets up the process its own way does.
    pub fn start_command(mut command: Command) -> Engine {
        let mut child = command.spawn().expect("the sentinel binary starts");
        let stdout = child.stdout.take().unwrap();
        let stderr = Arc::new(Mutex::new(String::new()));
        let mut pipe = child.stderr.take().unwrap();
        let collected = Arc::clone(&stderr);
        std::thread::spawn(move || {
            let mut buffer = [0; 4096];
            while let Ok(n @ 1..) = std::io::Read::read(&mut pipe, &mut buffer) {
                collected.lock().unwrap().push_str(&String::from_utf8_lossy(&buffer[..n]));
            }
        });
        let (sender, lines) = mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { break };
                if sender.send(line).is_err() {
                    break;
                }
            }
        });
        let stdin = child.stdin.take();
        Engine { child, stdin, lines, transcript: Vec::new(), received: Vec::new(), stderr }
    }

    /// Every line the engine has written to stdout so far (and the test has read).
    pub fn received(&self) -> &[String] {
        &self.received
    }

    /// What the engine has written to stderr so far.
    pub fn stderr(&self) -> String {
        self.stderr.lock().unwrap().clone()
    }

    /// Whether `text` shows up on stderr within `timeout`: stderr is read on its own thread,
    /// so a line logged before a move may arrive after it.
    pub fn stderr_shows(&self, text: &str, timeout: Duration) -> bool {
        let deadline = Instant::now() + timeout;
        while !self.stderr().contains(text) {
            if Instant::now() > deadline {
                return false;
            }
            std::thread::sleep(Duration::from_millis(10));
        }
        true
    }

    /// Starts the engine and opens UCI, checking the handshake ends with `uciok`.
    pub fn uci() -> Engine {
        let mut engine = Engine::start();
        engine.send("uci");
        engine.expect_line("uciok");
        engine
    }

    /// Starts the engine and opens XBoard protocol 2, up to `feature done=1`.
    pub fn xboard() -> Engine {
        let mut engine = Engine::start();
        engine.send("xboard");
        engine.send("protover 2");
        engine.expect_line("feature done=1");
        engine
    }

    pub fn send(&mut self, line: &str) {
        self.transcript.push(format!("> {line}"));
        let stdin = self.stdin.as_mut().expect("stdin is open");
        if let Err(e) = writeln!(stdin, "{line}").and_then(|_| stdin.flush()) {
            self.fail(&format!("cannot send '{line}': {e}"));
        }
    }

    /// Sends raw bytes (which need not be UTF-8) as they are.
    pub fn send_bytes(&mut self, bytes: &[u8]) {
        self.transcript.push(format!("> {}", String::from_utf8_lossy(bytes).trim_end()));
        let stdin = self.stdin.as_mut().expect("stdin is open");
        if let Err(e) = stdin.write_all(bytes).and_then(|_| stdin.flush()) {
            self.fail(&format!("cannot send bytes: {e}"));
        }
    }

    /// Closes the engine's stdin, as a GUI that dies does.
    pub fn close_stdin(&mut self) {
        self.transcript.push("> (stdin closed)".to_string());
        self.stdin = None;
    }

    /// The next line, or `None` if none comes within `timeout` (or the engine closed stdout).
    pub fn next_line(&mut self, timeout: Duration) -> Option<String> {
        match self.lines.recv_timeout(timeout) {
            Ok(line) => {
                self.transcript.push(format!("< {line}"));
                self.received.push(line.clone());
                Some(line)
            }
            Err(RecvTimeoutError::Timeout | RecvTimeoutError::Disconnected) => None,
        }
    }

    /// Reads lines until one satisfies `done`, returning all of them (that one last). Fails
    /// the test if none does within `timeout`.
    pub fn expect_within(&mut self, timeout: Duration, what: &str, done: impl Fn(&str) -> bool) -> Vec<String> {
        let deadline = Instant::now() + timeout;
        let mut seen = Vec::new();
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            match self.next_line(left) {
                Some(line) => {
                    let finished = done(&line);
                    seen.push(line);
                    if finished {
                        return seen;
                    }
                }
                None => self.fail(&format!("no {what} within {timeout:?}")),
            }
        }
    }

    pub fn expect(&mut self, what: &str, done: impl Fn(&str) -> bool) -> Vec<String> {
        self.expect_within(TIMEOUT, what, done)
    }

    /// Reads up to the line equal to `line`.
    pub fn expect_line(&mut self, line: &str) -> Vec<String> {
        self.expect(&format!("'{line}'"), |l| l == line)
    }

    /// Reads up to a line starting with `prefix` and returns that line.
    pub fn expect_prefix(&mut self, prefix: &str) -> String {
        self.expect(&format!("line starting '{prefix}'"), |l| l.starts_with(prefix)).pop().unwrap()
    }

    /// All lines that arrive within `duration` (for checking that something does NOT happen).
    pub fn lines_for(&mut self, duration: Duration) -> Vec<String> {
        let deadline = Instant::now() + duration;
        let mut seen = Vec::new();
        while let Some(line) = self.next_line(deadline.saturating_duration_since(Instant::now())) {
            seen.push(line);
        }
        seen
    }

    /// Waits for the process to end.
    pub fn wait_exit(&mut self, timeout: Duration) -> ExitStatus {
        let deadline = Instant::now() + timeout;
        loop {
            if let Some(status) = self.child.try_wait().expect("try_wait") {
                return status;
            }
            if Instant::now() > deadline {
                self.fail(&format!("the engine did not exit within {timeout:?}"));
            }
            std::thread::sleep(Duration::from_millis(10));
        }
    }

    pub fn fail(&self, message: &str) -> ! {
        panic!("{message}\ntranscript:\n{}\nstderr:\n{}", self.transcript.join("\n"), self.stderr());
    }

    /// Fails with the transcript unless `condition` holds.
    pub fn check(&self, condition: bool, message: &str) {
        if !condition {
            self.fail(message);
        }
    }
}

impl Drop for Engine {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Runs `sentinel ARGS` to the end with stdin closed, returning (exit code, stdout, stderr).
/// Fails if it takes longer than `TIMEOUT`.
pub fn run(args: &[&str]) -> (Option<i32>, String, String) {
    run_with_input(args, "")
}

/// Runs `sentinel ARGS` with `input` on stdin (then closed), as a script piping into it would.
pub fn run_with_input(args: &[&str], input: &str) -> (Option<i32>, String, String) {
    let mut child = spawn(args);
    let mut stdin = child.stdin.take().unwrap();
    let input = input.to_string();
    // Written from a thread, so that a long script cannot fill the pipe while nobody reads.
    std::thread::spawn(move || {
        let _ = stdin.write_all(input.as_bytes());
    });
    let read_all = |mut pipe: Box<dyn std::io::Read + Send>| {
        std::thread::spawn(move || {
            let mut text = String::new();
            let _ = pipe.read_to_string(&mut text);
            text
        })
    };
    let stdout = read_all(Box::new(child.stdout.take().unwrap()));
    let stderr = read_all(Box::new(child.stderr.take().unwrap()));
    let deadline = Instant::now() + TIMEOUT;
    let status = loop {
        if let Some(status) = child.try_wait().expect("try_wait") {
            break status;
        }
        if Instant::now() > deadline {
            let _ = child.kill();
            panic!("sentinel {} did not finish within {TIMEOUT:?}", args.join(" "));
        }
        std::thread::sleep(Duration::from_millis(10));
    };
    (status.code(), stdout.join().unwrap(), stderr.join().unwrap())
}

/// A Polyglot book with one entry per position: the start position's key (from the format's
/// specification) with 1.e4, and the key after 1.e4 with 1...e5. Polyglot moves are
/// to-file | to-row << 3 | from-file << 6 | from-row << 9.
pub fn write_book(name: &str) -> std::path::PathBuf {
    let entries: [(u64, u16); 2] =
        [(0x463b_9618_1691_fc9c, 4 | 3 << 3 | 4 << 6 | 1 << 9), (0x823c_9b50_fd11_4196, 4 | 4 << 3 | 4 << 6 | 6 << 9)];
    let mut sorted = entries.to_vec();
    sorted.sort();
    let mut bytes = Vec::new();
    for (key, mv) in sorted {
        bytes.extend_from_slice(&key.to_be_bytes());
        bytes.extend_from_slice(&mv.to_be_bytes());
        bytes.extend_from_slice(&10u16.to_be_bytes());
        bytes.extend_from_slice(&0u32.to_be_bytes());
    }
    let path = std::env::temp_dir().join(format!("sentinel-{}-{name}.bin", std::process::id()));
    std::fs::write(&path, bytes).unwrap();
    path
}
