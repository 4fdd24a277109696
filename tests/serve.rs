//! `sentinel serve` through its API, as a client sees it: each test starts the server on a free
//! loopback port (`--listen 127.0.0.1:0`, the port read from its first line) and talks HTTP and
//! WebSocket to it over TCP with the small clients of tests/common, checking the answers field
//! by field.
//! Moves the server calls legal are checked by the binary's own `perft`, a path that shares
//! nothing with the server's request reading but the move generator.

#![cfg(feature = "serve")]

mod common;
#[path = "common/server.rs"]
mod server;
#[path = "common/websocket.rs"]
mod websocket;

use serde_json::Value;
use server::{Response, Server, TIMEOUT};
use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};
use websocket::Socket;

const START_FEN: &str = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1";
/// 1.Nf6+ gxf6 2.Bxf7#: a mate in two with one first move.
const MATE_IN_2: &str = "r2qkb1r/pp2nppp/3p4/2pNN1B1/2BnP3/3P4/PPP2PPP/R2bK2R w KQkq - 1 1";

impl Server {
    /// `sentinel serve` on a free loopback port, with `args`.
    fn start(args: &[&str]) -> Server {
        let mut command = server::command("127.0.0.1:0");
        command.args(args);
        Server::start_command(command)
    }

    /// The queue's state, from `GET /api/status`.
    fn queue(&self) -> Value {
        self.get("/api/status").json()["queue"].clone()
    }

    /// Waits until the queue's state satisfies `done`.
    fn wait_for(&self, what: &str, done: impl Fn(&Value) -> bool) {
        server::wait_until(&format!("queue showing {what}"), || self.queue(), done);
    }
}

impl Response {
    /// A refusal: the status, and a JSON body with an error message and this code.
    fn refusal(&self, status: u16, code: &str) -> Value {
        assert_eq!(self.status, status, "{self:?}");
        assert_eq!(self.header("content-type"), Some("application/json"), "{self:?}");
        let json = self.json();
        assert_eq!(json["code"], code, "{self:?}");
        assert!(json["error"].as_str().is_some_and(|e| !e.is_empty()), "{self:?}");
        json
    }
}

/// Percent-encodes a query value.
fn encode(text: &str) -> String {
    text.bytes()
        .map(|b| match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'.' | b'_' => (b as char).to_string(),
            _ => format!("%{b:02X}"),
        })
        .collect()
}

/// Whether `moves` can be played one after another from `fen`, by `sentinel perft`.
fn legal_line(fen: &str, moves: &[&str]) -> bool {
    let mut args = vec!["perft", fen];
    if !moves.is_empty() {
        args.push("moves");
        args.extend_from_slice(moves);
    }
    args.push("1");
    let (code, _, _) = common::run(&args);
    code == Some(0)
}

fn strings(value: &Value) -> Vec<&str> {
    value.as_array().unwrap_or_else(|| panic!("not a list: {value}")).iter().map(|v| v.as_str().unwrap()).collect()
}

/// SAN as a move in it looks: a piece, a square, promotion, check; or castling.
fn looks_like_san(san: &str) -> bool {
    let san = san.trim_end_matches(['+', '#']);
    if san == "O-O" || san == "O-O-O" {
        return true;
    }
    let (san, _) = san.split_once('=').unwrap_or((san, ""));
    let square = san.get(san.len().saturating_sub(2)..).unwrap_or("");
    let mut chars = square.chars();
    matches!((chars.next(), chars.next()), (Some('a'..='h'), Some('1'..='8')))
}

/// An analysis line, checked: legal from `fen` in UCI, as long in SAN, its score one of cp
/// and mate, seen from White's side as well, and its chances adding up to 1000.
fn check_line(fen: &str, line: &Value, white_to_move: bool) {
    let moves = strings(&line["moves"]);
    let san = strings(&line["san"]);
    assert!(!moves.is_empty() && moves.len() == san.len(), "{line}");
    assert!(legal_line(fen, &moves), "not legal from {fen}: {line}");
    assert!(san.iter().all(|s| looks_like_san(s)), "{line}");
    let first = moves[0];
    assert!(san[0].starts_with('O') || san[0].contains(&first[2..4]), "{first} is not {}", san[0]);
    let (score, white) = (&line["score"], &line["score_white"]);
    let sign = if white_to_move { 1 } else { -1 };
    match (score["cp"].as_i64(), score["mate"].as_i64()) {
        (Some(cp), None) => assert_eq!(white["cp"].as_i64(), Some(sign * cp), "{line}"),
        (None, Some(mate)) => assert_eq!(white["mate"].as_i64(), Some(sign * mate), "{line}"),
        _ => panic!("a score is cp or mate: {line}"),
    }
    let wdl: Vec<u64> = line["wdl"].as_array().unwrap().iter().map(|v| v.as_u64().unwrap()).collect();
    assert_eq!((wdl.len(), wdl.iter().sum::<u64>()), (3, 1000), "{line}");
}

#[test]
fn the_designs_call_answers_a_legal_move() {
    let server = Server::start(&[]);
    let path = format!("/chess?fen={}&depth=6", encode(START_FEN));
    let answer = server.get(&path);
    assert_eq!(answer.status, 200, "{answer:?}");
    assert!(answer.header("content-type").is_some_and(|t| t.starts_with("text/plain")), "{answer:?}");
    let mv = answer.body.trim();
    assert!(mv.len() >= 4 && legal_line(START_FEN, &[mv]), "{answer:?}");

    let answer = server.request("GET", &path, &[("Accept", "application/json")], None);
    let json = answer.json();
    assert_eq!(json["fen"], START_FEN);
    assert_eq!(json["depth"], 6, "{json}");
    assert!(json["seldepth"].as_i64().unwrap() >= 6, "{json}");
    assert!(json["nodes"].as_u64().unwrap() > 0 && json["nps"].as_u64().is_some() && json["time"].as_u64().is_some());
    let lines = json["lines"].as_array().unwrap();
    assert_eq!(lines.len(), 1, "{json}");
    check_line(START_FEN, &lines[0], true);
    assert_eq!(lines[0]["moves"][0], json["bestmove"], "{json}");
    assert_eq!(lines[0]["san"][0], json["bestmove_san"], "{json}");
    if let Some(ponder) = json["ponder"].as_str() {
        assert!(legal_line(START_FEN, &[json["bestmove"].as_str().unwrap(), ponder]), "{json}");
    }
    assert!(json["game_over"].is_null(), "{json}");
}

#[test]
fn a_mate_in_two_is_answered_with_its_mating_move() {
    let server = Server::start(&[]);
    let json = server.post("/api/analyse", &format!(r#"{{"fen": "{MATE_IN_2}", "depth": 6}}"#)).json();
    assert_eq!(json["bestmove"], "d5f6", "{json}");
    assert_eq!(json["bestmove_san"], "Nf6+", "{json}");
    let line = &json["lines"][0];
    assert_eq!(line["score"], serde_json::json!({"mate": 2}), "{json}");
    assert_eq!(line["score_white"], serde_json::json!({"mate": 2}), "{json}");
    assert_eq!(strings(&line["moves"]), ["d5f6", "g7f6", "c4f7"], "{json}");
    assert_eq!(strings(&line["san"]), ["Nf6+", "gxf6", "Bxf7#"], "{json}");
    assert_eq!(line["wdl"], serde_json::json!([1000, 0, 0]), "{json}");
    // The same position from the GET form, and the position after the mate.
    let answer = server.get(&format!("/api/analyse?fen={}&depth=6", encode(MATE_IN_2)));
    assert_eq!(answer.json()["bestmove"], "d5f6");
    let json = server.post("/api/analyse", &format!(r#"{{"fen": "{MATE_IN_2}", "moves": "Nf6+ gxf6 Bxf7#"}}"#)).json();
    assert!(json["bestmove"].is_null() && json["lines"].as_array().unwrap().is_empty(), "{json}");
    assert_eq!(json["game_over"], serde_json::json!({"result": "1-0", "reason": "checkmate"}), "{json}");
}

#[test]
fn multipv_gives_three_legal_lines_in_san_and_uci() {
    let server = Server::start(&[]);
    let json =
        server.post("/api/analyse", r#"{"fen": "startpos", "moves": ["e2e4", "e7e5"], "depth": 5, "multipv": 3}"#);
    let json = json.json();
    let fen = "rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR w KQkq e6 0 2";
    assert_eq!(json["fen"], fen, "{json}");
    let lines = json["lines"].as_array().unwrap();
    assert_eq!(lines.len(), 3, "{json}");
    let mut firsts = Vec::new();
    for (rank, line) in lines.iter().enumerate() {
        assert_eq!(line["multipv"], rank + 1, "{json}");
        check_line(fen, line, true);
        firsts.push(line["moves"][0].as_str().unwrap());
    }
    firsts.sort();
    firsts.dedup();
    assert_eq!(firsts.len(), 3, "three different moves: {json}");
    // The lines come best first.
    let cp = |line: &Value| line["score"]["cp"].as_i64().unwrap_or(0);
    assert!(cp(&lines[0]) >= cp(&lines[1]) && cp(&lines[1]) >= cp(&lines[2]), "{json}");
    assert_eq!(lines[0]["moves"][0], json["bestmove"], "{json}");
}

#[test]
fn a_position_after_moves_is_searched_for_the_side_to_move() {
    let server = Server::start(&[]);
    let body =
        r#"{"fen": "startpos", "moves": ["e2e4", "e7e5", "Nf3"], "nodes": 5000, "searchmoves": ["b8c6", "d7d6"]}"#;
    let json = server.post("/api/analyse", body).json();
    let fen = "rnbqkbnr/pppp1ppp/8/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R b KQkq - 1 2";
    assert_eq!(json["fen"], fen, "{json}");
    let best = json["bestmove"].as_str().unwrap();
    assert!(best == "b8c6" || best == "d7d6", "only the searchmoves: {json}");
    check_line(fen, &json["lines"][0], false);
    assert!(json["nodes"].as_u64().unwrap() <= 5000 + 1000, "{json}");
}

#[test]
fn bad_requests_are_refused_with_their_reason_and_the_engine_goes_on() {
    let server = Server::start(&["--max-depth", "8", "--max-body", "1024"]);
    let refused = server.post("/api/analyse", r#"{"fen": "rnbqkbnr/pppppppp/8/8 w KQkq - 0 1", "depth": 2}"#);
    let json = refused.refusal(400, "bad_fen");
    assert_eq!(json["field"], "fen");
    assert!(json["error"].as_str().unwrap().contains("FEN"), "{json}");

    let refused = server.post("/api/analyse", r#"{"moves": ["e2e4", "e7e5", "e4e5"], "depth": 2}"#);
    let json = refused.refusal(400, "illegal_move");
    assert_eq!((json["field"].as_str(), json["index"].as_u64()), (Some("moves"), Some(2)), "{json}");
    assert!(json["error"].as_str().unwrap().contains("e4e5"), "{json}");

    let json = server.post("/api/analyse", r#"{"fen": "startpos", "depth": 2"#).refusal(400, "bad_json");
    assert!(json["error"].as_str().unwrap().contains("JSON"), "{json}");

    let json = server.post("/api/analyse", r#"{"fen": "startpos", "level": 2}"#).refusal(400, "unknown_field");
    assert!(json["error"].as_str().unwrap().contains("level"), "{json}");

    let big = format!(r#"{{"fen": "startpos", "moves": "{}"}}"#, "e2e4 e7e5 ".repeat(150));
    let json = server.post("/api/analyse", &big).refusal(413, "too_large");
    assert_eq!(json["limit"], "--max-body", "{json}");
    assert!(json["error"].as_str().unwrap().contains("1024"), "{json}");

    let json = server.post("/api/analyse", r#"{"depth": 9}"#).refusal(400, "over_limit");
    assert_eq!((json["limit"].as_str(), json["field"].as_str()), (Some("--max-depth"), Some("depth")), "{json}");
    assert!(json["error"].as_str().unwrap().contains("8"), "{json}");
    // At the limit it searches.
    assert_eq!(server.post("/api/analyse", r#"{"depth": 8}"#).json()["depth"], 8);

    let json = server.request("POST", "/api/analyse", &[("Content-Type", "text/plain")], Some(b"{}"));
    json.refusal(415, "unsupported_media_type");
    let json = server.post("/api/review", r#"{"pgn": "1. e4 e5 2. Ke3", "depth": 1}"#).refusal(400, "bad_pgn");
    assert!(json["error"].as_str().unwrap().contains("Ke3"), "{json}");
    server.get("/api/nothing").refusal(404, "not_found");
    server.request("DELETE", "/api/analyse", &[], None).refusal(405, "method_not_allowed");
    // No request can point the engine at a file.
    for field in ["EvalFile", "SyzygyPath", "BookFile", "options"] {
        let body = format!(r#"{{"depth": 1, "{field}": "/etc/passwd"}}"#);
        server.post("/api/analyse", &body).refusal(400, "unknown_field");
    }

    // The engine is as it was: a search answers at once.
    let answer = server.get("/chess?fen=startpos&depth=3");
    assert_eq!(answer.status, 200, "{answer:?}");
    assert!(legal_line(START_FEN, &[answer.body.trim()]), "{answer:?}");
}

#[test]
fn a_full_queue_is_refused_at_once_with_503() {
    let server = std::sync::Arc::new(Server::start(&["--queue", "1", "--max-movetime", "20000"]));
    let ask = |body: &'static str| {
        let server = std::sync::Arc::clone(&server);
        std::thread::spawn(move || server.post("/api/analyse", body))
    };
    let running = ask(r#"{"movetime": 4000}"#);
    server.wait_for("a search running", |queue| queue["running"] == true);
    let waiting = ask(r#"{"movetime": 100}"#);
    server.wait_for("a search waiting", |queue| queue["waiting"] == 1);
    let start = Instant::now();
    let refused = server.post("/api/analyse", r#"{"depth": 1}"#);
    assert!(start.elapsed() < Duration::from_secs(2), "refused at once, not after {:?}", start.elapsed());
    let json = refused.refusal(503, "queue_full");
    assert_eq!(json["limit"], "--queue");
    let retry: u64 = refused.header("retry-after").expect("a Retry-After").parse().unwrap();
    assert!((1..=20).contains(&retry), "{refused:?}");
    assert_eq!(json["retry_after"], retry);
    // Those queued are answered.
    for request in [running, waiting] {
        let answer = request.join().unwrap();
        assert_eq!(answer.status, 200, "{answer:?}");
    }
    assert_eq!(server.queue()["refused"], 1);
}

/// The socket's client, opened on `server` or the test fails with the answer it got.
fn open_socket(server: &Server, path: &str) -> Socket {
    Socket::open(server.addr, path, "", TIMEOUT).unwrap_or_else(|head| panic!("no handshake: {head}"))
}

#[test]
fn live_lines_stream_and_stop_when_asked() {
    let server = Server::start(&["--max-movetime", "30000"]);
    let mut socket = open_socket(&server, "/api/analyse/stream");
    socket.send(r#"{"moves": "e4", "depth": 400}"#);
    let refused = socket.receive();
    assert_eq!((refused["type"].as_str(), refused["code"].as_str()), (Some("error"), Some("over_limit")), "{refused}");
    // No limit: it runs until stopped.
    socket.send(r#"{"moves": "e4", "multipv": 2}"#);
    let mut depths = Vec::new();
    while depths.len() < 6 {
        let message = socket.receive();
        assert_eq!(message["type"], "info", "{message}");
        let lines = message["lines"].as_array().unwrap();
        assert!(!lines.is_empty() && lines.len() <= 2, "{message}");
        depths.push(message["depth"].as_i64().unwrap());
    }
    assert!(depths.windows(2).all(|w| w[0] <= w[1]), "{depths:?}");
    let start = Instant::now();
    socket.send("stop");
    let done = loop {
        let message = socket.receive();
        if message["type"] != "info" {
            break message;
        }
    };
    assert!(start.elapsed() < Duration::from_secs(5), "stopped after {:?}", start.elapsed());
    assert_eq!(done["type"], "bestmove", "{done}");
    assert_eq!(done["stopped"], true, "{done}");
    assert_eq!(done["lines"].as_array().unwrap().len(), 2, "{done}");
    let fen = "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq e3 0 1";
    assert_eq!(done["fen"], fen);
    check_line(fen, &done["lines"][0], false);
    // The socket takes the next request.
    socket.send(r#"{"depth": 2}"#);
    let done = loop {
        let message = socket.receive();
        if message["type"] != "info" {
            break message;
        }
    };
    assert_eq!((done["type"].as_str(), done["depth"].as_i64()), (Some("bestmove"), Some(2)), "{done}");
}

#[test]
fn a_streaming_client_that_goes_away_stops_its_search() {
    let server = Server::start(&["--max-movetime", "60000"]);
    let mut socket = open_socket(&server, "/api/analyse/stream");
    socket.send(r#"{"fen": "startpos", "movetime": 60000}"#);
    assert_eq!(socket.receive()["type"], "info");
    drop(socket);
    let start = Instant::now();
    let answer = server.get("/chess?fen=startpos&depth=2");
    assert_eq!(answer.status, 200, "{answer:?}");
    assert!(start.elapsed() < Duration::from_secs(5), "answered only after {:?}", start.elapsed());
}

#[test]
fn loopback_is_the_default_address() {
    let mut child = Command::new(env!("CARGO_BIN_EXE_sentinel"))
        .arg("serve")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // Either it listens there, or port 9000 is taken and it says so; either way, there.
    let mut stdout = BufReader::new(child.stdout.take().unwrap());
    let mut line = String::new();
    let _ = stdout.read_line(&mut line);
    let _ = child.kill();
    let mut stderr = String::new();
    let _ = child.stderr.take().unwrap().read_to_string(&mut stderr);
    let _ = child.wait();
    let said = format!("{line}{stderr}");
    assert!(said.contains("127.0.0.1:9000"), "{said}");
    assert!(!said.contains("other machines"), "{said}");
}

#[test]
fn other_hosts_and_origins_are_refused_unless_allowed() {
    let server = Server::start(&["--allow-origin", "http://good.example"]);
    // A page that made its own name point at this machine (DNS rebinding).
    server.request("GET", "/api/status", &[("Host", "evil.example:9000")], None).refusal(403, "forbidden");
    for host in ["localhost", "127.0.0.1:9000", "[::1]:9000"] {
        assert_eq!(server.request("GET", "/api/status", &[("Host", host)], None).status, 200, "{host}");
    }
    // Another site's page: refused, and given no CORS header.
    let refused = server.request("GET", "/chess?depth=1", &[("Origin", "http://evil.example")], None);
    refused.refusal(403, "forbidden");
    assert!(refused.header("access-control-allow-origin").is_none(), "{refused:?}");
    let preflight = [("Origin", "http://evil.example"), ("Access-Control-Request-Method", "POST")];
    assert_eq!(server.request("OPTIONS", "/api/analyse", &preflight, None).status, 403);
    // An image of another site's page pointing at the server: no Origin, but the browser says
    // where it comes from. The same URL typed in the address bar is answered.
    let image = server.request("GET", "/chess?depth=1", &[("Sec-Fetch-Site", "cross-site")], None);
    image.refusal(403, "forbidden");
    assert_eq!(server.request("GET", "/chess?depth=1", &[("Sec-Fetch-Site", "none")], None).status, 200);
    // The allowed one.
    let answer = server.request("GET", "/chess?depth=1", &[("Origin", "http://good.example")], None);
    assert_eq!(answer.status, 200, "{answer:?}");
    assert_eq!(answer.header("access-control-allow-origin"), Some("http://good.example"), "{answer:?}");
    let preflight = [("Origin", "http://good.example"), ("Access-Control-Request-Method", "POST")];
    let answer = server.request("OPTIONS", "/api/analyse", &preflight, None);
    assert_eq!(answer.status, 204, "{answer:?}");
    assert_eq!(answer.header("access-control-allow-origin"), Some("http://good.example"), "{answer:?}");
    assert!(answer.header("access-control-allow-methods").is_some_and(|m| m.contains("POST")), "{answer:?}");
    // The server's own pages (same origin) need no permission.
    let own = format!("http://{}", server.addr);
    let answer = server.request("GET", "/api/status", &[("Origin", &own)], None);
    assert_eq!(answer.status, 200, "{answer:?}");
    assert!(answer.header("access-control-allow-origin").is_none(), "{answer:?}");

    // Without --allow-origin, no origin but the server's own.
    let closed = Server::start(&[]);
    let refused = closed.request("GET", "/chess?depth=1", &[("Origin", "http://good.example")], None);
    refused.refusal(403, "forbidden");
}

#[test]
fn connections_beyond_the_limit_wait_until_one_closes() {
    let server = Server::start(&["--max-connections", "2"]);
    // Two clients that never finish their requests hold both places.
    let idle: Vec<TcpStream> = (0..2)
        .map(|_| {
            let mut stream = TcpStream::connect(server.addr).unwrap();
            stream.write_all(b"GET /api/status HTTP/1.1\r\nHost: localhost\r\n").unwrap();
            stream
        })
        .collect();
    std::thread::sleep(Duration::from_millis(300));
    let mut third = TcpStream::connect(server.addr).unwrap();
    third.write_all(b"GET /api/status HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n").unwrap();
    third.set_read_timeout(Some(Duration::from_millis(1500))).unwrap();
    let mut answer = Vec::new();
    let waited = third.read_to_end(&mut answer);
    assert!(waited.is_err() && answer.is_empty(), "answered beyond the limit: {}", String::from_utf8_lossy(&answer));
    drop(idle);
    third.set_read_timeout(Some(TIMEOUT)).unwrap();
    let _ = third.read_to_end(&mut answer);
    let answer = Response::parse(&answer).expect("answered once a place is free");
    assert_eq!(answer.status, 200, "{answer:?}");
}

/// A client that sends a request's head a byte at a time (slowloris) loses its connection
/// once the head has taken 10 seconds, so that a few such clients cannot hold every place for
/// ever; one that sends its head in time is answered.
#[test]
fn a_request_head_that_never_ends_is_cut_off() {
    let server = Server::start(&["--max-connections", "2"]);
    let mut slow = TcpStream::connect(server.addr).unwrap();
    slow.write_all(b"GET /api/status HTTP/1.1\r\nHost: localhost\r\n").unwrap();
    slow.set_read_timeout(Some(Duration::from_millis(500))).unwrap();
    let started = std::time::Instant::now();
    let mut answer = Vec::new();
    let closed = loop {
        // A header line every half second, never the blank line that ends the head.
        let _ = slow.write_all(b"X-Slow: 1\r\n");
        match slow.read_to_end(&mut answer) {
            Ok(_) => break true,
            Err(e) if matches!(e.kind(), std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut) => {}
            Err(_) => break true,
        }
        if started.elapsed() > Duration::from_secs(25) {
            break false;
        }
    };
    let took = started.elapsed();
    assert!(closed, "a head still open after {took:?}");
    assert!(took >= Duration::from_secs(9), "cut off after {took:?}, before the 10 seconds");
    assert!(!String::from_utf8_lossy(&answer).contains("\"status\""), "answered an unfinished head");
    assert_eq!(server.get("/api/status").status, 200, "the server goes on");
}

#[test]
fn with_a_token_every_request_carries_it() {
    let file = std::env::temp_dir().join(format!("sentinel-{}-token", std::process::id()));
    std::fs::write(&file, "s3cret-token\n").unwrap();
    let server = Server::start(&["--token-file", file.to_str().unwrap()]);
    let _ = std::fs::remove_file(&file);
    server.get("/api/status").refusal(401, "unauthorized");
    let wrong = server.request("GET", "/api/status", &[("Authorization", "Bearer s3cret-tokem")], None);
    let json = wrong.refusal(401, "unauthorized");
    assert!(!json.to_string().contains("s3cret"), "the token is not told: {json}");
    assert_eq!(wrong.header("www-authenticate"), Some("Bearer"));
    let right = server.request("GET", "/api/status", &[("Authorization", "Bearer s3cret-token")], None);
    assert_eq!(right.status, 200, "{right:?}");
    assert_eq!(server.get("/chess?depth=1&token=s3cret-token").status, 200);
    server.post("/api/analyse", r#"{"depth": 1}"#).refusal(401, "unauthorized");
}

#[test]
fn the_engine_plays_a_move_at_a_level_with_clocks() {
    let server = Server::start(&[]);
    let body = r#"{"moves": ["e2e4", "c7c5"], "elo": 1400, "seed": 3, "wtime": 60000, "btime": 60000, "winc": 1000, "binc": 1000}"#;
    let json = server.post("/api/move", body).json();
    let mv = json["move"].as_str().unwrap();
    let start = "rnbqkbnr/pp1ppppp/8/2p5/4P3/8/PPPP1PPP/RNBQKBNR w KQkq c6 0 2";
    assert!(legal_line(start, &[mv]), "{json}");
    assert!(looks_like_san(json["san"].as_str().unwrap()), "{json}");
    let after = json["fen"].as_str().unwrap();
    assert!(after.contains(" b KQkq ") || after.contains(" b kq "), "Black to move after it: {json}");
    assert!(json["game_over"].is_null(), "{json}");
    // The same seed plays the same move.
    assert_eq!(server.post("/api/move", body).json()["move"], json["move"]);
    // Skill Level, and a time per move.
    let json = server.post("/api/move", r#"{"fen": "startpos", "skill": 5, "movetime": 200}"#).json();
    assert!(legal_line(START_FEN, &[json["move"].as_str().unwrap()]), "{json}");
    // The game's end, before and after the move.
    let json = server.post("/api/move", &format!(r#"{{"fen": "{MATE_IN_2}", "moves": "Nf6+ gxf6", "depth": 3}}"#));
    let json = json.json();
    assert_eq!(json["move"], "c4f7", "{json}");
    assert_eq!(json["game_over"]["reason"], "checkmate", "{json}");
    let json = server.post("/api/move", r#"{"fen": "7k/5Q2/6K1/8/8/8/8/8 b - - 0 1"}"#).json();
    assert!(json["move"].is_null(), "{json}");
    assert_eq!(json["game_over"], serde_json::json!({"result": "1/2-1/2", "reason": "stalemate"}), "{json}");
    // Levels out of their range.
    server.post("/api/move", r#"{"elo": 100}"#).refusal(400, "bad_value");
    server.post("/api/move", r#"{"skill": 21}"#).refusal(400, "bad_value");
}

const BLUNDER_GAME: &str = r#"[Event "Test"]
[White "A"]
[Black "B"]
[Result "1-0"]

1. e4 e5 2. Bc4 Nc6 3. Qh5 Nf6 4. Qxf7# 1-0
"#;

#[test]
fn a_review_marks_the_blunder_and_writes_the_pgn() {
    let server = Server::start(&[]);
    let body = serde_json::json!({"pgn": BLUNDER_GAME, "depth": 6}).to_string();
    let json = server.post("/api/review", &body).json();
    // The figures of `sentinel analyse --json` (docs/review.md's schema), with the PGN and graph.
    assert_eq!((json["effort"].as_str(), json["formulas"].as_str()), (Some("depth 6"), Some("lichess")), "{json}");
    let game = &json["games"][0];
    let moves = game["moves"].as_array().unwrap();
    assert_eq!(moves.len(), 7, "{json}");
    let san: Vec<&str> = moves.iter().map(|m| m["san"].as_str().unwrap()).collect();
    assert_eq!(san, ["e4", "e5", "Bc4", "Nc6", "Qh5", "Nf6", "Qxf7#"]);
    assert_eq!(moves[6]["uci"], "h5f7");
    // 3...Nf6?? allows the mate; the engine preferred a defence, and says so as a line.
    let blunder = &moves[5];
    assert_eq!((blunder["side"].as_str(), blunder["number"].as_u64()), (Some("black"), Some(3)), "{blunder}");
    assert_eq!(blunder["mark"], "blunder", "{blunder}");
    assert_eq!(blunder["eval_after"], serde_json::json!({"mate": 1}), "{blunder}");
    assert!(!blunder["line"].as_array().unwrap().is_empty(), "{blunder}");
    assert!(blunder["best"].as_str().is_some_and(|best| best != "Nf6"), "{blunder}");
    assert!(game["summary"]["black"]["blunders"].as_u64().unwrap() >= 1, "{json}");
    let pgn = game["pgn"].as_str().unwrap();
    assert!(pgn.contains("[%eval") && pgn.contains("3... Nf6 $4") && pgn.contains("[Annotator "), "{pgn}");
    assert!(game["svg"].as_str().unwrap().starts_with("<svg"), "{json}");

    // With progress: a line after each position, then the review.
    let answer = server.request(
        "POST",
        "/api/review",
        &[("Content-Type", "application/json"), ("Accept", "application/x-ndjson")],
        Some(serde_json::json!({"pgn": BLUNDER_GAME, "depth": 3}).to_string().as_bytes()),
    );
    assert_eq!(answer.header("content-type"), Some("application/x-ndjson"), "{answer:?}");
    let lines: Vec<Value> = answer.body.lines().map(|line| serde_json::from_str(line).unwrap()).collect();
    let (last, progress) = lines.split_last().unwrap();
    assert_eq!(last["type"], "review", "{last}");
    assert_eq!(last["games"][0]["moves"].as_array().unwrap().len(), 7);
    let done: Vec<u64> = progress.iter().map(|p| p["done"].as_u64().unwrap()).collect();
    assert!(!done.is_empty() && done.windows(2).all(|w| w[1] == w[0] + 1), "{done:?}");
    assert!(progress.iter().all(|p| p["type"] == "progress" && p["total"] == progress.len()), "{progress:?}");

    // Sentinel's own marks on request, and a judge that does not exist refused.
    let own = serde_json::json!({"pgn": BLUNDER_GAME, "depth": 3, "marks": "sentinel"}).to_string();
    assert_eq!(server.post("/api/review", &own).json()["formulas"], "sentinel");
    let unknown = serde_json::json!({"pgn": BLUNDER_GAME, "depth": 3, "marks": "fide"}).to_string();
    assert_eq!(server.post("/api/review", &unknown).refusal(400, "bad_value")["field"], "marks");

    // Beyond the owner's limit of positions.
    let small = Server::start(&["--max-review-positions", "5"]);
    small.post("/api/review", &body).refusal(400, "over_limit");
}

#[test]
fn a_batch_is_answered_in_order() {
    let server = Server::start(&[]);
    let body = format!(r#"{{"positions": ["{MATE_IN_2}", {{"fen": "startpos", "moves": "d4"}}], "depth": 4}}"#);
    let json = server.post("/api/batch", &body).json();
    let results = json["results"].as_array().unwrap();
    assert_eq!(results.len(), 2, "{json}");
    assert_eq!(results[0]["bestmove"], "d5f6", "{json}");
    assert_eq!(results[1]["fen"], "rnbqkbnr/pppppppp/8/8/3P4/8/PPP1PPPP/RNBQKBNR b KQkq d3 0 1", "{json}");
    check_line(results[1]["fen"].as_str().unwrap(), &results[1]["lines"][0], false);
    let refused = server.post("/api/batch", r#"{"positions": ["startpos", "8/8/8 w - -"], "depth": 1}"#);
    let json = refused.refusal(400, "bad_fen");
    assert_eq!(json["index"], 1, "{json}");
}

#[test]
fn other_services_answer_shapes_at_their_paths() {
    let server = Server::start(&[]);
    // stockfish.online
    let json = server.get(&format!("/api/s/v2.php?fen={}&depth=6", encode(MATE_IN_2))).json();
    assert_eq!(json["success"], true, "{json}");
    assert_eq!((json["mate"].as_i64(), json["evaluation"].is_null()), (Some(2), true), "{json}");
    assert_eq!(json["bestmove"], "bestmove d5f6 ponder g7f6", "{json}");
    assert_eq!(json["continuation"], "d5f6 g7f6 c4f7", "{json}");
    let json = server.get("/api/s/v2.php?fen=nonsense&depth=6");
    assert_eq!(json.status, 400);
    assert_eq!(json.json()["success"], false);
    // chess-api.com
    let json = server.post("/v1", &format!(r#"{{"fen": "{MATE_IN_2}", "depth": 6}}"#)).json();
    assert_eq!((json["move"].as_str(), json["san"].as_str()), (Some("d5f6"), Some("Nf6+")), "{json}");
    assert_eq!((json["mate"].as_i64(), json["winChance"].as_f64()), (Some(2), Some(100.0)), "{json}");
    assert_eq!(
        (json["from"].as_str(), json["to"].as_str(), json["piece"].as_str()),
        (Some("d5"), Some("f6"), Some("n"))
    );
    assert_eq!(json["continuationArr"], serde_json::json!(["d5f6", "g7f6", "c4f7"]), "{json}");
    assert_eq!((json["turn"].as_str(), json["isCapture"].as_bool()), (Some("w"), Some(false)), "{json}");
    let json = server.post("/v1", r#"{"fen": "startpos", "depth": 4}"#).json();
    let (eval, cp) = (json["eval"].as_f64().unwrap(), json["centipawns"].as_str().unwrap().parse::<f64>().unwrap());
    assert!((eval * 100.0 - cp).abs() < 0.5, "{json}");
    // lichess's cloud evaluation
    let json = server.get(&format!("/api/cloud-eval?fen={}&multiPv=2", encode(MATE_IN_2))).json();
    assert_eq!(json["fen"], MATE_IN_2, "{json}");
    let pvs = json["pvs"].as_array().unwrap();
    assert_eq!(pvs.len(), 2, "{json}");
    assert_eq!(pvs[0]["moves"], "d5f6 g7f6 c4f7", "{json}");
    assert_eq!(pvs[0]["mate"], 2, "{json}");
}

/// A small deterministic generator, so a failure repeats.
struct Lcg(u64);

impl Lcg {
    fn next(&mut self) -> usize {
        self.0 = self.0.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        (self.0 >> 33) as usize
    }
}

#[test]
fn random_and_truncated_requests_never_break_the_server() {
    let server = Server::start(&["--max-depth", "2", "--max-movetime", "500", "--max-body", "4096"]);
    let bodies = [
        r#"{"fen": "startpos", "moves": ["e2e4", "e7e5"], "depth": 1, "multipv": 2, "searchmoves": ["g1f3"]}"#,
        r#"{"moves": "e4 e5 Nf3", "elo": 1200, "wtime": 1000, "btime": 1000}"#,
        r#"{"positions": ["startpos", {"fen": "startpos", "moves": "d4"}], "depth": 1}"#,
        r#"{"pgn": "1. e4 e5 2. Nf3 *", "depth": 1}"#,
        r#"{"fen": "startpos", "moves": ["e2e4", "e5", "Nf3"], "play_on": true}"#,
    ];
    let paths = ["/api/analyse", "/api/move", "/api/batch", "/api/review", "/api/position"];
    let mut rng = Lcg(81);
    let mut count = 0;
    for (body, path) in bodies.iter().zip(paths) {
        let bytes = body.as_bytes();
        // Every cut of the body, then random bytes changed in it.
        let mut inputs: Vec<Vec<u8>> = (0..bytes.len()).step_by(3).map(|cut| bytes[..cut].to_vec()).collect();
        for _ in 0..12 {
            let mut changed = bytes.to_vec();
            for _ in 0..1 + rng.next() % 4 {
                let at = rng.next() % changed.len();
                changed[at] = (rng.next() % 256) as u8;
            }
            inputs.push(changed);
        }
        for input in inputs {
            let answer = server.request("POST", path, &[("Content-Type", "application/json")], Some(&input));
            assert!(answer.status == 200 || (400..500).contains(&answer.status), "{answer:?}");
            assert!(answer.json()["error"].is_string() || answer.status == 200, "{answer:?}");
            count += 1;
        }
    }
    // Raw bytes that are not HTTP, and queries of random bytes.
    for _ in 0..20 {
        let noise: Vec<u8> = (0..rng.next() % 200).map(|_| (rng.next() % 256) as u8).collect();
        let mut stream = TcpStream::connect(server.addr).unwrap();
        stream.set_read_timeout(Some(TIMEOUT)).unwrap();
        let _ = stream.write_all(&noise);
        let _ = stream.shutdown(std::net::Shutdown::Write);
        let mut answer = Vec::new();
        let _ = stream.read_to_end(&mut answer);
        let query: String = (0..rng.next() % 60).map(|_| (b'!' + (rng.next() % 90) as u8) as char).collect();
        let answer = server.get(&format!("/api/analyse?{}", query.replace(['#', ' '], "")));
        assert!(answer.status == 200 || (400..500).contains(&answer.status), "{answer:?}");
        count += 1;
    }
    assert!(count > 100, "{count} requests");
    let answer = server.get("/chess?depth=2");
    assert_eq!(answer.status, 200, "the server is still there: {answer:?}");
    assert!(legal_line(START_FEN, &[answer.body.trim()]), "{answer:?}");
}

#[test]
fn the_position_view_lists_the_legal_moves_perft_counts_and_refuses_an_illegal_one() {
    let server = Server::start(&[]);
    let fen = "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1";
    let view = server.post("/api/position", &format!(r#"{{"fen": "{fen}"}}"#)).json();
    let legal = view["legal"].as_array().unwrap();
    // The binary's `perft` counts the same moves by another path than the server's.
    let (code, out, _) = common::run(&["perft", fen, "1"]);
    assert_eq!(code, Some(0));
    let counted: usize =
        out.lines().find_map(|l| l.strip_prefix("Nodes searched: ")).map_or(0, |n| n.trim().parse().unwrap());
    assert_eq!((legal.len(), counted), (48, 48), "{out}");
    for mv in legal {
        let uci = mv["uci"].as_str().unwrap();
        assert!(legal_line(fen, &[uci]) && looks_like_san(mv["san"].as_str().unwrap()), "{mv}");
        assert_eq!(format!("{}{}", mv["from"].as_str().unwrap(), mv["to"].as_str().unwrap()), uci[..4]);
    }
    assert!(legal.iter().any(|m| m["uci"] == "e1g1" && m["san"] == "O-O"));
    let mate = server.post("/api/position", r#"{"moves": "f3 e5 g4 Qh4"}"#).json();
    assert_eq!(
        (&mate["status"], &mate["result"], &mate["winner"]),
        (&"checkmate".into(), &"0-1".into(), &"black".into())
    );
    assert_eq!(strings(&mate["san"]), ["f3", "e5", "g4", "Qh4#"]);
    let refused = server.post("/api/position", r#"{"moves": ["e2e4", "e7e5", "e4e5"]}"#).refusal(400, "illegal_move");
    assert_eq!(refused["index"], 2);
    assert!(refused["error"].as_str().unwrap().contains("the pawn on e4 cannot go to e5"), "{refused}");
    server.post("/api/position", r#"{"fen": "8/8 w"}"#).refusal(400, "bad_fen");
}

#[test]
fn the_page_and_its_files_come_from_the_server_itself() {
    let server = Server::start(&["--token", "s3cret-token"]);
    // The page needs the token (a ?token= the page passes on); its files are public code.
    server.get("/").refusal(401, "unauthorized");
    let page = server.get("/?token=s3cret-token");
    assert_eq!((page.status, page.header("content-type")), (200, Some("text/html; charset=utf-8")), "{page:?}");
    let policy = page.header("content-security-policy").unwrap_or("");
    assert!(policy.contains("default-src 'none'") && policy.contains("script-src 'self'"), "{policy}");
    assert_eq!(page.header("x-frame-options"), Some("DENY"));
    let json = server.request("GET", "/?token=s3cret-token", &[("Accept", "application/json")], None).json();
    assert!(strings(&json["endpoints"]).contains(&"POST /api/position"), "{json}");
    assert_eq!(server.get("/join/ABC123").status, 200);
    assert_eq!(server.get("/watch/g1").status, 200);
    let mut sources = page.body.clone();
    for asset in ["app.js", "style.css", "chessground.min.js", "chessground.base.css", "chessground.cburnett.css"] {
        let answer = server.get(&format!("/assets/{asset}"));
        assert_eq!(answer.status, 200, "{asset}");
        assert!(answer.header("content-security-policy").is_some(), "{asset}");
        sources.push_str(&answer.body);
    }
    assert!(page.body.contains("/assets/app.js") && page.body.contains("/assets/chessground.cburnett.css"));
    // Nothing is loaded from elsewhere: no address but the SVG namespace's.
    let elsewhere: Vec<&str> = sources
        .match_indices("http")
        .map(|(at, _)| &sources[at..(at + 40).min(sources.len())])
        .filter(|text| text.starts_with("http://") || text.starts_with("https://"))
        .filter(|text| !text.starts_with("http://www.w3.org/"))
        .collect();
    assert!(elsewhere.is_empty(), "{elsewhere:?}");
    let outside = server.get("/assets/../Cargo.toml");
    assert!(outside.status != 200 && !outside.body.contains("[package]"), "{outside:?}");
    server.get("/assets/nothing.js").refusal(404, "not_found");
}
