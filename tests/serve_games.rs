//! `sentinel serve`'s players and saved games through its API, as browsers see it: each test
//! starts the server on a free loopback port with a database of its own, and each client below
//! keeps its session cookie and CSRF token as a browser's page does. The tests check the rules
//! that keep one player's games from another (each is meant to fail when its rule is removed),
//! a two-player game move by move with the pushes to every watcher, the clocks, a `kill -9` in
//! the middle of a game, and a stored database of schema version 1 opened by this version.

#![cfg(feature = "serve")]

#[path = "common/server.rs"]
mod server;
#[path = "common/websocket.rs"]
mod websocket;

use serde_json::{Value, json};
use server::{Response, Server, TIMEOUT};
use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::time::Duration;
use websocket::Socket;

const PASSWORD: &str = "correct horse 7";

/// A folder of the test's own for its database, removed at the end.
struct Folder(PathBuf);

impl Folder {
    fn new(name: &str) -> Folder {
        let path = std::env::temp_dir().join(format!("sentinel-games-{}-{name}", std::process::id()));
        let _ = std::fs::remove_dir_all(&path);
        std::fs::create_dir_all(&path).unwrap();
        Folder(path)
    }

    fn db(&self) -> PathBuf {
        self.0.join("games.db")
    }
}

impl Drop for Folder {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

impl Server {
    fn start(db: &Path) -> Server {
        Server::start_with(db, &[])
    }

    fn start_with(db: &Path, args: &[&str]) -> Server {
        Server::start_on("127.0.0.1:0", db, args)
    }

    /// A server listening on `listen` with its database at `db` (none: an empty path), its log
    /// at trace for the tests that read it, and an engine small and quick for the replies of
    /// engine games.
    fn start_on(listen: &str, db: &Path, args: &[&str]) -> Server {
        let mut db_args = vec![std::ffi::OsString::from("--db"), db.as_os_str().to_owned()];
        if db.as_os_str().is_empty() {
            db_args.clear();
        }
        let mut command = server::command(listen);
        command
            .args(["--default-movetime", "30", "--threads", "1", "--hash", "8"])
            .args(db_args)
            .args(args)
            .env("RUST_LOG", "trace");
        Server::start_command(command)
    }

    /// The server dies at once, as with `kill -9`: dropping it kills it with SIGKILL.
    fn kill(self) {
        drop(self);
    }
}

impl Response {
    /// A refusal with this status and code.
    fn refused(&self, status: u16, code: &str) {
        assert_eq!(self.status, status, "{self:?}");
        assert_eq!(self.json()["code"], code, "{self:?}");
    }
}

/// A browser: its session cookie and the CSRF token its page read.
struct Client {
    addr: SocketAddr,
    cookie: Option<String>,
    csrf: Option<String>,
    /// The `Host` the browser names (the server's address unless set) and the `Origin` of its
    /// page, if it sends one.
    host: Option<String>,
    origin: Option<String>,
}

impl Client {
    /// A new visitor, given a guest's session by `GET /api/account`.
    fn new(server: &Server) -> Client {
        let mut client = Client::bare(server.addr);
        let account = client.get("/api/account");
        assert_eq!(account.status, 200, "{account:?}");
        client
    }

    /// A client without a session yet.
    fn bare(addr: SocketAddr) -> Client {
        Client { addr, cookie: None, csrf: None, host: None, origin: None }
    }

    fn request(&mut self, method: &str, path: &str, body: Option<&Value>, csrf: bool) -> Response {
        let host = self.host.clone().unwrap_or_else(|| self.addr.to_string());
        let mut headers = vec![("Host", host.as_str())];
        if let Some(origin) = &self.origin {
            headers.push(("Origin", origin));
        }
        if let Some(cookie) = &self.cookie {
            headers.push(("Cookie", cookie));
        }
        if csrf && let Some(token) = &self.csrf {
            headers.push(("X-CSRF-Token", token));
        }
        let body = body.map(|b| b.to_string()).unwrap_or_default();
        if method != "GET" {
            headers.push(("Content-Type", "application/json"));
        }
        let body = (method != "GET").then_some(body.as_bytes());
        let response = server::request(self.addr, method, path, &headers, body).unwrap_or_else(|e| panic!("{e}"));
        if let Some(set) = response.header("set-cookie") {
            self.cookie = set.split(';').next().map(str::to_string);
        }
        if let Ok(json) = serde_json::from_str::<Value>(&response.body)
            && let Some(token) = json["csrf"].as_str()
        {
            self.csrf = Some(token.to_string());
        }
        response
    }

    fn get(&mut self, path: &str) -> Response {
        self.request("GET", path, None, false)
    }

    fn post(&mut self, path: &str, body: Value) -> Response {
        self.request("POST", path, Some(&body), true)
    }

    fn delete(&mut self, path: &str) -> Response {
        self.request("DELETE", path, None, true)
    }

    fn register(&mut self, name: &str) {
        let answer = self.post("/api/account/register", json!({"name": name, "password": PASSWORD}));
        assert_eq!(answer.status, 201, "{answer:?}");
        assert_eq!(answer.json()["user"]["name"], name);
    }

    /// Plays a move in a game, expecting it to be taken; the state after it.
    fn play(&mut self, game: &str, uci: &str) -> Value {
        let answer = self.post(&format!("/api/games/{game}/move"), json!({"uci": uci}));
        assert_eq!(answer.status, 200, "{uci}: {answer:?}");
        answer.json()
    }

    fn state(&mut self, game: &str) -> Value {
        let answer = self.get(&format!("/api/games/{game}"));
        assert_eq!(answer.status, 200, "{answer:?}");
        answer.json()
    }

    fn watch(&self, game: &str) -> Result<Socket, String> {
        let cookie = self.cookie.as_deref().map(|c| format!("Cookie: {c}\r\n")).unwrap_or_default();
        Socket::open(self.addr, &format!("/api/games/{game}/live"), &cookie, TIMEOUT)
    }
}

fn moves(state: &Value) -> Vec<String> {
    state["moves"].as_array().unwrap().iter().map(|m| m.as_str().unwrap().to_string()).collect()
}

#[test]
fn accounts_sessions_and_the_csrf_token() {
    let folder = Folder::new("accounts");
    let server = Server::start(&folder.db());
    let mut ann = Client::bare(server.addr);
    let account = ann.get("/api/account");
    assert_eq!(account.json()["user"], Value::Null, "{account:?}");
    let set = account.header("set-cookie").unwrap().to_string();
    for attribute in ["sentinel_session=", "HttpOnly", "SameSite=Strict", "Path=/"] {
        assert!(set.contains(attribute), "{attribute} in {set}");
    }
    let guest_cookie = ann.cookie.clone().unwrap();

    // Without the token nothing changes: no account, no sign-in, no game, no sign-out.
    let body = json!({"name": "ann", "password": PASSWORD});
    ann.request("POST", "/api/account/register", Some(&body), false).refused(403, "csrf");
    ann.request("POST", "/api/account/login", Some(&body), false).refused(403, "csrf");
    ann.request("POST", "/api/games", Some(&json!({"mode": "engine"})), false).refused(403, "csrf");
    let wrong = ann.csrf.clone().map(|t| t.replace(|c: char| c != '0', "0"));
    let right = std::mem::replace(&mut ann.csrf, wrong);
    ann.post("/api/account/register", body.clone()).refused(403, "csrf");
    ann.csrf = right;
    // Another site's page is refused before anything else.
    let mut evil = Client { cookie: ann.cookie.clone(), csrf: ann.csrf.clone(), ..Client::bare(server.addr) };
    let head = format!(
        "POST /api/account/register HTTP/1.1\r\nHost: {}\r\nConnection: close\r\nOrigin: http://evil.example\r\n\
         Cookie: {}\r\nX-CSRF-Token: {}\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\r\n{body}",
        server.addr,
        evil.cookie.take().unwrap(),
        evil.csrf.take().unwrap(),
        body.to_string().len()
    );
    assert_eq!(server.raw(head.as_bytes()).status, 403);

    // Names and passwords are checked; a name is taken once, whatever its case.
    ann.post("/api/account/register", json!({"name": "ann", "password": "short"})).refused(400, "bad_value");
    ann.post("/api/account/register", json!({"name": "a b", "password": PASSWORD})).refused(400, "bad_value");
    ann.register("ann");
    assert_ne!(ann.cookie.as_deref(), Some(guest_cookie.as_str()), "signing in gives a new session id");
    assert_eq!(ann.get("/api/account").json()["user"]["name"], "ann");
    let mut other = Client::new(&server);
    other.post("/api/account/register", json!({"name": "ANN", "password": PASSWORD})).refused(409, "name_taken");

    // The session survives in the database: the guest's old id does not.
    let mut stale = Client { cookie: Some(guest_cookie), ..Client::bare(server.addr) };
    assert_eq!(stale.get("/api/account").json()["user"], Value::Null);
    let signed_in = ann.cookie.clone();
    assert_eq!(ann.post("/api/account/logout", json!({})).json()["user"], Value::Null);
    assert_ne!(ann.cookie, signed_in);
    let mut stale = Client { cookie: signed_in, ..Client::bare(server.addr) };
    assert_eq!(stale.get("/api/account").json()["user"], Value::Null, "a signed-out session is dead");

    ann.post("/api/account/login", json!({"name": "ann", "password": "wrong password"}))
        .refused(401, "bad_credentials");
    ann.post("/api/account/login", json!({"name": "nobody", "password": PASSWORD})).refused(401, "bad_credentials");
    let answer = ann.post("/api/account/login", json!({"name": "Ann", "password": PASSWORD}));
    assert_eq!((answer.status, answer.json()["user"]["name"].as_str()), (200, Some("ann")), "{answer:?}");
    let session = ann.cookie.clone().expect("a session cookie");
    let session = session.split_once('=').map(|(_, id)| id.to_string()).expect("name=value");
    assert_eq!(ann.get("/api/account").json()["user"]["name"], "ann", "the cookie is the session");

    // The password is kept only as an Argon2id hash, and is never logged, even at trace; the
    // session only as its cookie's hash, so that a copy of the file signs nobody in.
    drop(server);
    let mut file = Vec::new();
    for suffix in ["", "-wal"] {
        let mut path = folder.db().into_os_string();
        path.push(suffix);
        if let Ok(bytes) = std::fs::read(&path) {
            file.extend(bytes);
        }
    }
    let text = String::from_utf8_lossy(&file);
    assert!(text.contains("$argon2id$"), "an Argon2id hash in the file");
    assert!(!text.contains(PASSWORD), "the password itself in the database file");
    assert!(!text.contains(&session), "the session cookie itself in the database file");
}

#[test]
fn a_password_never_reaches_the_log() {
    let folder = Folder::new("log");
    let server = Server::start(&folder.db());
    let mut ann = Client::new(&server);
    ann.register("ann");
    ann.post("/api/account/login", json!({"name": "ann", "password": "not it at all"})).refused(401, "bad_credentials");
    ann.post("/api/account/login", json!({"name": "ann", "password": PASSWORD}));
    std::thread::sleep(Duration::from_millis(200));
    let log = server.stderr();
    assert!(log.contains("account: ann registered"), "the log is at trace: {log}");
    assert!(!log.contains(PASSWORD) && !log.contains("not it at all"), "{log}");
}

#[test]
fn sign_in_attempts_are_limited_per_name() {
    let folder = Folder::new("limit");
    let server = Server::start(&folder.db());
    let mut ann = Client::new(&server);
    ann.register("ann");
    let mut attacker = Client::new(&server);
    for attempt in 0..5 {
        let answer =
            attacker.post("/api/account/login", json!({"name": "ann", "password": format!("guess {attempt}")}));
        answer.refused(401, "bad_credentials");
    }
    // Past the limit even the right password is refused, with the time to wait.
    let answer = attacker.post("/api/account/login", json!({"name": "ann", "password": PASSWORD}));
    answer.refused(429, "too_many");
    let wait: u64 = answer.header("retry-after").unwrap().parse().unwrap();
    assert!((1..=900).contains(&wait), "{answer:?}");
    // Another name is not held up by ann's.
    let mut bob = Client::new(&server);
    bob.register("bob");
    bob.post("/api/account/logout", json!({}));
    let answer = bob.post("/api/account/login", json!({"name": "bob", "password": PASSWORD}));
    assert_eq!(answer.status, 200, "{answer:?}");
}

#[test]
fn one_players_games_are_nobody_elses() {
    let folder = Folder::new("isolation");
    let server = Server::start(&folder.db());
    let mut ann = Client::new(&server);
    ann.register("ann");
    let game = ann.post("/api/games", json!({"mode": "engine", "colour": "white", "level": {"skill": 0}}));
    assert_eq!(game.status, 201, "{game:?}");
    let id = game.json()["id"].as_str().unwrap().to_string();
    ann.play(&id, "e2e4");
    let mut bob = Client::new(&server);
    bob.register("bob");
    let mut guest = Client::new(&server);
    let mut nobody = Client::bare(server.addr);
    for (who, client) in [("bob", &mut bob), ("a guest", &mut guest), ("no session", &mut nobody)] {
        for path in [format!("/api/games/{id}"), format!("/api/games/{id}/pgn")] {
            let answer = client.get(&path);
            assert_eq!(answer.status, 404, "{who} reads {path}: {answer:?}");
        }
        assert!(client.watch(&id).is_err(), "{who} watches ann's game");
        if client.csrf.is_none() {
            continue;
        }
        client.post(&format!("/api/games/{id}/move"), json!({"uci": "d2d4"})).refused(404, "not_found");
        client.post(&format!("/api/games/{id}/takeback"), json!({})).refused(404, "not_found");
        client.post(&format!("/api/games/{id}/resign"), json!({})).refused(404, "not_found");
        client.delete(&format!("/api/games/{id}")).refused(404, "not_found");
    }
    // The lists: ann's has her game, bob's none, a guest has none to list.
    let listed = ann.get("/api/games").json();
    assert_eq!(listed["games"][0]["id"], id.as_str(), "{listed}");
    assert_eq!(bob.get("/api/games").json()["games"], json!([]));
    guest.get("/api/games").refused(401, "sign_in");
    // The game is as ann left it, and hers to delete.
    assert_eq!(moves(&ann.state(&id)).len(), 2);
    assert_eq!(ann.delete(&format!("/api/games/{id}")).status, 200);
    ann.get(&format!("/api/games/{id}")).refused(404, "not_found");
}

#[test]
fn a_game_against_the_engine_is_played_taken_back_mated_and_exported() {
    let folder = Folder::new("engine");
    let server = Server::start(&folder.db());
    let mut guest = Client::new(&server);
    // The engine is White: it has moved when the game comes back.
    let state = guest.post("/api/games", json!({"mode": "engine", "colour": "black", "level": {"elo": 1200}})).json();
    assert_eq!((state["you"].as_str(), state["mode"].as_str()), (Some("black"), Some("engine")), "{state}");
    assert_eq!(state["white"]["name"], "Sentinel (Elo 1200)");
    assert_eq!(moves(&state).len(), 1, "{state}");
    assert_eq!(state["position"]["turn"], "black");
    let id = state["id"].as_str().unwrap().to_string();
    let legal: Vec<String> =
        state["position"]["legal"].as_array().unwrap().iter().map(|m| m["uci"].to_string()).collect();
    assert_eq!(legal.len(), 20, "{state}");
    guest.post(&format!("/api/games/{id}/move"), json!({"uci": "e7e3"})).refused(400, "illegal_move");
    guest.post(&format!("/api/games/{id}/move"), json!({"uci": "e1e2"})).refused(403, "not_your_piece");
    let state = guest.play(&id, "g8f6");
    assert_eq!(moves(&state).len(), 3, "the engine answered: {state}");
    assert_eq!(moves(&state)[1], "g8f6");
    let state = guest.play(&id, "b8c6");
    assert_eq!(moves(&state).len(), 5);
    // A takeback takes back the engine's reply and the move before it.
    let back = guest.post(&format!("/api/games/{id}/takeback"), json!({})).json();
    assert_eq!(moves(&back), moves(&state)[..3], "{back}");
    guest.post(&format!("/api/games/{id}/draw"), json!({})).refused(400, "no_draw_offers");
    let resigned = guest.post(&format!("/api/games/{id}/resign"), json!({})).json();
    assert_eq!((resigned["result"].as_str(), resigned["termination"].as_str()), (Some("1-0"), Some("resignation")));
    guest.post(&format!("/api/games/{id}/move"), json!({"uci": "d7d5"})).refused(409, "game_over");
    let pgn = guest.get(&format!("/api/games/{id}/pgn"));
    assert!(pgn.header("content-type").unwrap().starts_with("text/plain"), "{pgn:?}");
    for part in ["[White \"Sentinel (Elo 1200)\"]", "[Black \"guest\"]", "[Result \"1-0\"]", "1. ", "Nf6", "1-0"] {
        assert!(pgn.body.contains(part), "{part} in {}", pgn.body);
    }
    // With clocks, each side's time is charged for its moves (the engine's too) once both have
    // moved, and the increment added.
    let clock = json!({"initial_ms": 60000, "increment_ms": 1000});
    let state = guest.post("/api/games", json!({"mode": "engine", "colour": "white", "clock": clock})).json();
    let id = state["id"].as_str().unwrap().to_string();
    assert_eq!(state["clock"]["running"], Value::Null, "{state}");
    guest.play(&id, "e2e4");
    std::thread::sleep(Duration::from_millis(300));
    let state = guest.play(&id, "d2d4");
    let clock = &state["clock"];
    assert_eq!(clock["running"], "white", "{state}");
    let white = clock["white_ms"].as_i64().unwrap();
    assert!((60000 - 100..61000).contains(&white), "charged about 300 ms, given 1000: {state}");
    assert!(clock["black_ms"].as_i64().unwrap() <= 61000, "{state}");

    // A mate ends the game and names the winner; the engine does not move after it.
    let fen = "6k1/5ppp/8/8/8/8/5PPP/R5K1 w - - 0 1";
    let state = guest.post("/api/games", json!({"mode": "engine", "colour": "white", "fen": fen})).json();
    let id = state["id"].as_str().unwrap().to_string();
    assert_eq!(state["level"], json!({"elo": 1500}), "the default level: {state}");
    let mated = guest.play(&id, "a1a8");
    assert_eq!(moves(&mated), ["a1a8"]);
    assert_eq!((mated["result"].as_str(), mated["termination"].as_str()), (Some("1-0"), Some("checkmate")));
    assert_eq!(
        (mated["position"]["status"].as_str(), mated["position"]["check"].as_bool()),
        (Some("checkmate"), Some(true))
    );
    assert_eq!(mated["position"]["san"], json!(["Ra8#"]));
}

#[test]
fn two_people_play_move_by_move_with_every_watcher_told() {
    let folder = Folder::new("friends");
    let server = Server::start(&folder.db());
    let mut ann = Client::new(&server);
    ann.register("ann");
    let created = ann.post("/api/games", json!({"mode": "friend", "colour": "white"}));
    assert_eq!(created.status, 201, "{created:?}");
    let state = created.json();
    let id = state["id"].as_str().unwrap().to_string();
    let code = state["invite"]["code"].as_str().unwrap().to_string();
    assert_eq!(state["invite"]["join_url"], format!("/join/{code}"));
    assert_eq!(state["invite"]["watch_url"], format!("/watch/{id}"));
    assert_eq!(state["black"]["name"], Value::Null, "{state}");
    ann.post(&format!("/api/games/{id}/move"), json!({"uci": "e2e4"})).refused(409, "no_opponent");

    // A guest joins as Black; a third visitor cannot take a seat, only watch.
    let mut bob = Client::new(&server);
    bob.post("/api/games/join", json!({"code": "ZZZZZZ"})).refused(404, "not_found");
    let joined = bob.post("/api/games/join", json!({"code": code.to_lowercase()}));
    assert_eq!(joined.status, 200, "{joined:?}");
    assert_eq!((joined.json()["you"].as_str(), joined.json()["white"]["name"].as_str()), (Some("black"), Some("ann")));
    let mut carol = Client::new(&server);
    carol.post("/api/games/join", json!({"code": code})).refused(409, "seat_taken");
    let watched = carol.state(&id);
    assert_eq!((watched["you"].as_str(), watched["invite"].clone()), (Some("spectator"), Value::Null), "{watched}");

    let mut sockets: Vec<Socket> = [&ann, &bob, &carol].iter().map(|c| c.watch(&id).unwrap()).collect();
    for socket in &mut sockets {
        assert_eq!(socket.receive()["id"], id.as_str());
    }
    // Fool's mate, each move checked and pushed to all three.
    for (ply, uci) in ["f2f3", "e7e5", "g2g4", "d8h4"].iter().enumerate() {
        let (mover, waiting) = if ply % 2 == 0 { (&mut ann, &mut bob) } else { (&mut bob, &mut ann) };
        let wrong = if ply % 2 == 0 { "a7a6" } else { "a2a3" };
        // The one waiting may not move, its own pieces or the mover's.
        waiting.post(&format!("/api/games/{id}/move"), json!({"uci": wrong})).refused(403, "not_your_turn");
        waiting.post(&format!("/api/games/{id}/move"), json!({"uci": uci})).refused(403, "not_your_turn");
        // The mover may not move the other side's pieces.
        mover.post(&format!("/api/games/{id}/move"), json!({"uci": wrong})).refused(403, "not_your_piece");
        carol.post(&format!("/api/games/{id}/move"), json!({"uci": uci})).refused(403, "spectator");
        let state = mover.play(&id, uci);
        assert_eq!(moves(&state).len(), ply + 1);
        for socket in &mut sockets {
            let pushed =
                socket.until("the move", TIMEOUT, |m| m["moves"].as_array().is_some_and(|a| a.len() == ply + 1));
            assert_eq!(pushed["moves"][ply], *uci);
        }
    }
    let over = carol.state(&id);
    assert_eq!((over["result"].as_str(), over["termination"].as_str()), (Some("0-1"), Some("checkmate")), "{over}");
    // A dropped connection is rejoined where the game is.
    drop(sockets);
    let mut again = bob.watch(&id).unwrap();
    let state = again.receive();
    assert_eq!((state["you"].as_str(), moves(&state).len()), (Some("black"), 4), "{state}");
    // The game is in ann's list (she is signed in); bob, a guest, keeps it for his session.
    assert_eq!(ann.get("/api/games").json()["games"][0]["id"], id.as_str());
}

#[test]
fn a_draw_is_offered_and_accepted_and_a_clock_flags_on_its_own() {
    let folder = Folder::new("clocks");
    let server = Server::start(&folder.db());
    let (mut ann, mut bob) = (Client::new(&server), Client::new(&server));
    let start = |ann: &mut Client, bob: &mut Client, clock: Value| {
        let state = ann.post("/api/games", json!({"mode": "friend", "colour": "white", "clock": clock})).json();
        let code = state["invite"]["code"].as_str().unwrap().to_string();
        assert_eq!(bob.post("/api/games/join", json!({"code": code})).status, 200);
        state["id"].as_str().unwrap().to_string()
    };
    let id = start(&mut ann, &mut bob, Value::Null);
    ann.play(&id, "e2e4");
    let offered = ann.post(&format!("/api/games/{id}/draw"), json!({})).json();
    assert_eq!(offered["draw_offer"], "white");
    let drawn = bob.post(&format!("/api/games/{id}/draw"), json!({})).json();
    assert_eq!((drawn["result"].as_str(), drawn["termination"].as_str()), (Some("1/2-1/2"), Some("agreement")));

    // The clock starts once both have moved; White then runs out, and the server says so
    // without anyone asking.
    let id = start(&mut ann, &mut bob, json!({"initial_ms": 1500, "increment_ms": 0}));
    let mut socket = ann.watch(&id).unwrap();
    ann.play(&id, "d2d4");
    std::thread::sleep(Duration::from_millis(1700));
    let state = bob.play(&id, "d7d5");
    assert_eq!(state["clock"]["running"], "white", "{state}");
    assert!(state["clock"]["black_ms"].as_i64().unwrap() <= 1500, "{state}");
    let flagged = socket.until("the flag", TIMEOUT, |m| m["result"] != "*");
    assert_eq!((flagged["result"].as_str(), flagged["termination"].as_str()), (Some("0-1"), Some("timeout")));
    assert_eq!(flagged["clock"]["white_ms"], 0);
    ann.post(&format!("/api/games/{id}/move"), json!({"uci": "c2c4"})).refused(409, "game_over");
}

#[test]
fn a_game_survives_kill_9_with_every_move_the_client_saw() {
    let folder = Folder::new("kill");
    let server = Server::start(&folder.db());
    let mut ann = Client::new(&server);
    ann.register("ann");
    let state = ann.post("/api/games", json!({"mode": "engine", "colour": "white", "level": {"skill": 2}})).json();
    let id = state["id"].as_str().unwrap().to_string();
    let mut seen = Vec::new();
    for uci in ["e2e4", "d2d4"] {
        let state = ann.play(&id, uci);
        seen = moves(&state);
    }
    // A move the server has taken, the engine's reply included, is there after a SIGKILL.
    server.kill();
    let server = Server::start(&folder.db());
    ann.addr = server.addr;
    assert_eq!(ann.get("/api/account").json()["user"]["name"], "ann", "the session survives");
    let state = ann.state(&id);
    assert_eq!(moves(&state), seen, "{state}");
    assert_eq!(ann.get("/api/games").json()["games"][0]["id"], id.as_str());
    let legal = state["position"]["legal"][0]["uci"].as_str().unwrap().to_string();
    assert_eq!(moves(&ann.play(&id, &legal)).len(), seen.len() + 2);
}

#[test]
fn a_version_1_database_is_opened_and_migrated() {
    let folder = Folder::new("migration");
    let stored = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/serve-v1.db");
    std::fs::copy(stored, folder.db()).expect("tests/data/serve-v1.db");
    let version = |path: &Path| -> i64 {
        let c = rusqlite::Connection::open(path).unwrap();
        c.pragma_query_value(None, "user_version", |r| r.get(0)).unwrap()
    };
    assert_eq!(version(&folder.db()), 1);
    let server = Server::start(&folder.db());
    let mut veteran = Client::new(&server);
    let answer = veteran.post("/api/account/login", json!({"name": "veteran", "password": "password one"}));
    assert_eq!(answer.status, 200, "{answer:?}");
    let listed = veteran.get("/api/games").json();
    assert_eq!(listed["games"][0]["id"], "gversion1game", "{listed}");
    let state = veteran.state("gversion1game");
    assert_eq!(moves(&state), ["e2e4", "e7e5", "g1f3", "b8c6"]);
    assert_eq!((state["clock"].clone(), state["level"].clone()), (Value::Null, json!({"skill": 3})));
    assert_eq!(moves(&veteran.play("gversion1game", "f1b5")).len(), 6);
    drop(server);
    assert_eq!(version(&folder.db()), 3, "the file was migrated");
}

#[test]
fn a_lan_server_serves_pages_of_its_own_lan_address_and_no_other_site() {
    let folder = Folder::new("lan");
    let server = Server::start_on("0.0.0.0:0", &folder.db(), &[]);
    server::wait_until(
        "warning that others may reach it",
        || server.stderr(),
        |log| log.contains("other machines may reach"),
    );
    // A phone opens http://192.168.1.20:PORT/: its page's requests name that host and origin.
    let lan = format!("192.168.1.20:{}", server.addr.port());
    let browser = |server: &Server| Client {
        host: Some(lan.clone()),
        origin: Some(format!("http://{lan}")),
        ..Client::bare(server.addr)
    };
    let (mut ann, mut bob) = (browser(&server), browser(&server));
    for client in [&mut ann, &mut bob] {
        assert_eq!(client.get("/api/account").status, 200);
    }
    let state = ann.post("/api/games", json!({"mode": "friend", "colour": "white"})).json();
    let code = state["invite"]["code"].as_str().unwrap().to_string();
    assert_eq!(bob.post("/api/games/join", json!({"code": code})).json()["you"], "black");
    let id = state["id"].as_str().unwrap().to_string();
    assert_eq!(moves(&ann.play(&id, "e2e4")), ["e2e4"]);
    // A page of another site, even with a session of the server's, is refused.
    let mut evil = Client { origin: Some("http://evil.example".to_string()), ..browser(&server) };
    evil.cookie = bob.cookie.clone();
    evil.csrf = bob.csrf.clone();
    evil.post(&format!("/api/games/{id}/move"), json!({"uci": "e7e5"})).refused(403, "forbidden");
    assert_eq!(moves(&bob.state(&id)), ["e2e4"]);
}

#[test]
fn without_a_database_file_games_are_kept_in_memory_and_it_says_so() {
    let server = Server::start_on("127.0.0.1:0", Path::new(""), &[]);
    let mut guest = Client::new(&server);
    let state = guest.post("/api/games", json!({"mode": "friend"}));
    assert_eq!(state.status, 201, "{state:?}");
    server::wait_until("word that games are in memory", || server.stderr(), |log| log.contains("kept in memory"));
}

#[test]
fn one_client_cannot_fill_the_database() {
    let folder = Folder::new("bounds");
    let server = Server::start(&folder.db());
    // Games in progress: 100 per player or guest.
    let mut guest = Client::new(&server);
    for _ in 0..100 {
        assert_eq!(guest.post("/api/games", json!({"mode": "friend"})).status, 201);
    }
    guest.post("/api/games", json!({"mode": "friend"})).refused(409, "too_many_games");
    // Sessions: a client that drops its cookie gets 50 (this one has had one already).
    for _ in 0..49 {
        assert_eq!(Client::bare(server.addr).get("/api/account").status, 200);
    }
    Client::bare(server.addr).get("/api/account").refused(429, "too_many");
    // A browser that keeps its cookie goes on.
    assert_eq!(guest.get("/api/account").status, 200);
}

#[test]
fn a_guests_games_become_the_players_on_sign_in_and_go_with_a_lost_session() {
    let folder = Folder::new("adopt");
    let server = Server::start(&folder.db());
    let mut ann = Client::new(&server);
    let kept = ann.post("/api/games", json!({"mode": "engine", "colour": "white"})).json();
    let kept = kept["id"].as_str().unwrap().to_string();
    ann.play(&kept, "e2e4");
    ann.register("ann");
    let listed = ann.get("/api/games").json();
    assert_eq!(listed["games"][0]["id"], kept.as_str(), "{listed}");
    assert_eq!(ann.state(&kept)["white"]["name"], "ann");
    // A guest who signs out leaves a game nobody can reach again: it goes on the next start.
    let mut guest = Client::new(&server);
    let lost = guest.post("/api/games", json!({"mode": "engine", "colour": "white"})).json();
    let lost = lost["id"].as_str().unwrap().to_string();
    guest.post("/api/account/logout", json!({}));
    guest.get(&format!("/api/games/{lost}")).refused(404, "not_found");
    drop(server);
    let server = Server::start(&folder.db());
    ann.addr = server.addr;
    assert_eq!(moves(&ann.state(&kept)).len(), 2);
    let count = |id: &str| -> i64 {
        let c = rusqlite::Connection::open(folder.db()).unwrap();
        c.query_row("SELECT count(*) FROM games WHERE id = ?1", [id], |r| r.get(0)).unwrap()
    };
    assert_eq!((count(&kept), count(&lost)), (1, 0));
}
