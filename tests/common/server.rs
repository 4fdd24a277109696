//! A `sentinel serve` for a test to talk to, and the HTTP it talks: the server started as a
//! child process on a port of its own and killed when the test is done, and requests written
//! and answers read by hand over TCP, so that a test sees the bytes a client would. Each test
//! file of the server includes it (`#[path = "common/server.rs"] mod server;`) and adds its own
//! way of starting it and its own clients, so that starting, stopping, sending and reading an
//! answer are written once.

// Each test file uses a part: tests/serve_games.rs talks through clients of its own.
#![allow(dead_code)]

use serde_json::Value;
use std::fmt::Display;
use std::io::{BufRead, BufReader, Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// Generous: the machine is shared, and a test binary's searches run beside other tests'.
pub const TIMEOUT: Duration = Duration::from_secs(30);

/// `sentinel serve --listen LISTEN`, for a test to add its arguments to before
/// `Server::start_command`.
pub fn command(listen: &str) -> Command {
    let mut command = Command::new(env!("CARGO_BIN_EXE_sentinel"));
    command.args(["serve", "--listen", listen]).stdin(Stdio::null()).stdout(Stdio::piped()).stderr(Stdio::piped());
    command
}

pub struct Server {
    child: Child,
    pub addr: SocketAddr,
    stderr: Arc<Mutex<String>>,
}

impl Server {
    /// Starts `command` (from `command`) and waits for the line that says where it listens.
    pub fn start_command(mut command: Command) -> Server {
        let mut child = command.spawn().expect("the sentinel binary starts");
        let stderr = Arc::new(Mutex::new(String::new()));
        let mut pipe = child.stderr.take().unwrap();
        let collected = Arc::clone(&stderr);
        // Read as it comes, not at the end: a test waits for lines of the log while it runs.
        std::thread::spawn(move || {
            let mut buffer = [0; 4096];
            while let Ok(n @ 1..) = pipe.read(&mut buffer) {
                collected.lock().unwrap().push_str(&String::from_utf8_lossy(&buffer[..n]));
            }
        });
        let (sender, lines) = std::sync::mpsc::channel();
        let stdout = child.stdout.take().unwrap();
        // Read to the end even once nobody listens, so that the server never blocks on a full pipe.
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines().map_while(Result::ok) {
                let _ = sender.send(line);
            }
        });
        let line = lines
            .recv_timeout(TIMEOUT)
            .unwrap_or_else(|_| panic!("the server says where it listens; stderr: {}", stderr.lock().unwrap()));
        let mut addr: SocketAddr =
            line.strip_prefix("listening on http://").expect("a 'listening on' line").parse().unwrap();
        // A server listening on every address (0.0.0.0) is reached on loopback.
        if addr.ip().is_unspecified() {
            addr.set_ip(std::net::Ipv4Addr::LOCALHOST.into());
        }
        Server { child, addr, stderr }
    }

    /// What the server has logged so far.
    pub fn stderr(&self) -> String {
        self.stderr.lock().unwrap().clone()
    }

    pub fn get(&self, path: &str) -> Response {
        self.request("GET", path, &[], None)
    }

    pub fn post(&self, path: &str, json: &str) -> Response {
        self.request("POST", path, &[("Content-Type", "application/json")], Some(json.as_bytes()))
    }

    /// `request` to this server; the test fails, with the server's log, when no answer comes.
    pub fn request(&self, method: &str, path: &str, headers: &[(&str, &str)], body: Option<&[u8]>) -> Response {
        request(self.addr, method, path, headers, body).unwrap_or_else(|e| panic!("{e}\nstderr: {}", self.stderr()))
    }

    /// Sends `bytes` as they are and reads the whole answer, as `send`.
    pub fn raw(&self, bytes: &[u8]) -> Response {
        send(self.addr, bytes).unwrap_or_else(|e| panic!("{e}\nstderr: {}", self.stderr()))
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

#[derive(Debug)]
pub struct Response {
    pub status: u16,
    /// Names in lower case.
    pub headers: Vec<(String, String)>,
    /// Unchunked.
    pub body: String,
}

impl Response {
    /// The answer in `bytes`, if they are one.
    pub fn parse(bytes: &[u8]) -> Option<Response> {
        let end = bytes.windows(4).position(|w| w == b"\r\n\r\n")?;
        let head = std::str::from_utf8(&bytes[..end]).ok()?;
        let mut lines = head.split("\r\n");
        let status = lines.next()?.split_whitespace().nth(1)?.parse().ok()?;
        let headers: Vec<(String, String)> = lines
            .filter_map(|line| line.split_once(':'))
            .map(|(name, value)| (name.trim().to_ascii_lowercase(), value.trim().to_string()))
            .collect();
        let mut body = bytes[end + 4..].to_vec();
        if headers.iter().any(|(name, value)| name == "transfer-encoding" && value.contains("chunked")) {
            body = unchunk(&body);
        }
        Some(Response { status, headers, body: String::from_utf8_lossy(&body).into_owned() })
    }

    /// The first header named `name` (in lower case).
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers.iter().find(|(n, _)| n == name).map(|(_, value)| value.as_str())
    }

    pub fn json(&self) -> Value {
        serde_json::from_str(&self.body).unwrap_or_else(|e| panic!("not JSON ({e}): {self:?}"))
    }
}

fn unchunk(mut body: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    while let Some(end) = body.windows(2).position(|w| w == b"\r\n") {
        let size = usize::from_str_radix(std::str::from_utf8(&body[..end]).unwrap_or("0").trim(), 16).unwrap_or(0);
        if size == 0 {
            break;
        }
        let start = end + 2;
        out.extend_from_slice(&body[start..(start + size).min(body.len())]);
        body = &body[(start + size + 2).min(body.len())..];
    }
    out
}

/// `method path` to `addr` on a connection of its own, with `headers` (a `Host` naming `addr`
/// unless one of them is a `Host`) and `body` with its `Content-Length`; the answer, as `send`.
pub fn request(
    addr: SocketAddr,
    method: &str,
    path: &str,
    headers: &[(&str, &str)],
    body: Option<&[u8]>,
) -> Result<Response, String> {
    let mut head = format!("{method} {path} HTTP/1.1\r\nConnection: close\r\n");
    if !headers.iter().any(|(name, _)| name.eq_ignore_ascii_case("host")) {
        head.push_str(&format!("Host: {addr}\r\n"));
    }
    for (name, value) in headers {
        head.push_str(&format!("{name}: {value}\r\n"));
    }
    if let Some(body) = body {
        head.push_str(&format!("Content-Length: {}\r\n", body.len()));
    }
    head.push_str("\r\n");
    let mut bytes = head.into_bytes();
    bytes.extend_from_slice(body.unwrap_or_default());
    send(addr, &bytes)
}

/// Sends `bytes` to `addr` as they are and reads the whole answer; what came instead when it
/// is none.
pub fn send(addr: SocketAddr, bytes: &[u8]) -> Result<Response, String> {
    let mut stream = TcpStream::connect(addr).map_err(|e| format!("cannot connect to {addr}: {e}"))?;
    stream.set_read_timeout(Some(TIMEOUT)).map_err(|e| e.to_string())?;
    // A refusal may come before the whole body is sent; the answer is what counts.
    let _ = stream.write_all(bytes);
    let mut answer = Vec::new();
    if let Err(e) = stream.read_to_end(&mut answer)
        && answer.is_empty()
    {
        return Err(format!("no answer: {e}"));
    }
    Response::parse(&answer).ok_or_else(|| format!("not an HTTP answer: {}", String::from_utf8_lossy(&answer)))
}

/// Reads `read` until it satisfies `done`, for up to `TIMEOUT`: what a server counts or logs
/// comes a little after the request that caused it. The test fails with `what` and the last
/// reading.
pub fn wait_until<T: Display>(what: &str, read: impl Fn() -> T, done: impl Fn(&T) -> bool) {
    let deadline = Instant::now() + TIMEOUT;
    loop {
        let now = read();
        if done(&now) {
            return;
        }
        assert!(Instant::now() < deadline, "no {what} within {TIMEOUT:?}: {now}");
        std::thread::sleep(Duration::from_millis(20));
    }
}
