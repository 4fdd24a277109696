//! A client of the WebSocket protocol, enough for `sentinel serve`'s text messages: the live
//! lines of tests/serve.rs and the game states of tests/serve_games.rs. Each test file that
//! talks to a socket includes it (`#[path = "common/websocket.rs"] mod websocket;`), so that
//! the handshake and the framing are written once.

use serde_json::Value;
use std::io::{Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::time::{Duration, Instant};

pub struct Socket {
    stream: TcpStream,
}

impl Socket {
    /// Opens `path` on `addr` with `headers` (whole lines, each ending in CRLF) beside the
    /// handshake's, waiting up to `timeout` for each read; the answer's head when it is not
    /// 101 Switching Protocols.
    pub fn open(addr: SocketAddr, path: &str, headers: &str, timeout: Duration) -> Result<Socket, String> {
        let mut stream = TcpStream::connect(addr).unwrap();
        stream.set_read_timeout(Some(timeout)).unwrap();
        let request = format!(
            "GET {path} HTTP/1.1\r\nHost: {addr}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n{headers}\
             Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n"
        );
        stream.write_all(request.as_bytes()).unwrap();
        let mut head = Vec::new();
        let mut byte = [0];
        while !head.ends_with(b"\r\n\r\n") {
            stream.read_exact(&mut byte).map_err(|e| e.to_string())?;
            head.push(byte[0]);
        }
        let head = String::from_utf8_lossy(&head).into_owned();
        if !head.starts_with("HTTP/1.1 101") {
            return Err(head);
        }
        Ok(Socket { stream })
    }

    /// Sends `text` as one masked text frame, as a client must.
    #[allow(dead_code)]
    pub fn send(&mut self, text: &str) {
        let payload = text.as_bytes();
        let mut frame = vec![0x81];
        match payload.len() {
            n if n < 126 => frame.push(0x80 | n as u8),
            n => {
                frame.push(0x80 | 126);
                frame.extend_from_slice(&(n as u16).to_be_bytes());
            }
        }
        let mask = [0x12, 0x34, 0x56, 0x78];
        frame.extend_from_slice(&mask);
        frame.extend(payload.iter().enumerate().map(|(i, b)| b ^ mask[i % 4]));
        self.stream.write_all(&frame).unwrap();
    }

    /// The next text message, as JSON.
    pub fn receive(&mut self) -> Value {
        loop {
            let mut head = [0; 2];
            self.stream.read_exact(&mut head).expect("a frame");
            let length = match head[1] & 0x7f {
                126 => {
                    let mut n = [0; 2];
                    self.stream.read_exact(&mut n).unwrap();
                    u16::from_be_bytes(n) as usize
                }
                127 => {
                    let mut n = [0; 8];
                    self.stream.read_exact(&mut n).unwrap();
                    u64::from_be_bytes(n) as usize
                }
                n => n as usize,
            };
            let mut payload = vec![0; length];
            self.stream.read_exact(&mut payload).unwrap();
            if head[0] & 0x0f == 1 {
                return serde_json::from_slice(&payload).expect("JSON messages");
            }
        }
    }

    /// Messages until one satisfies `done`, for up to `timeout` in all.
    #[allow(dead_code)]
    pub fn until(&mut self, what: &str, timeout: Duration, done: impl Fn(&Value) -> bool) -> Value {
        let deadline = Instant::now() + timeout;
        loop {
            assert!(Instant::now() < deadline, "no message showed {what}");
            let message = self.receive();
            if done(&message) {
                return message;
            }
        }
    }
}
