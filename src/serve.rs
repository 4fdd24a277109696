//! `sentinel serve`: the engine as a web service, so that a program that only draws a board (a
//! page, a phone app, a bot) can ask it for moves, lines and reviews over HTTP. It is a front
//! end beside `protocol`, built with the `serve` feature: one process with one engine, which
//! every request shares through its commands as UCI and XBoard use them.
//!
//! - `worker`: the engine, on a thread of its own, and the bounded queue of jobs it runs one
//!   at a time; every search ends by the owner's time limit, whatever it asked for.
//! - `request`: reading a request's JSON or query string, checked against the owner's limits
//!   before it waits in the queue, and `error`, the 4xx answers that name what was wrong.
//! - `answer`: the JSON of an analysis; `compat`: the answer shapes of stockfish.online,
//!   chess-api.com and lichess's cloud evaluation, at their own paths.
//! - `routes`, `stream` (live lines over a WebSocket) and `reviews` (`sentinel analyse`'s
//!   review of a PGN, with progress): the endpoints.
//! - `page`: the page at `/`, its files built into the binary.
//! - `rules`: the rules of chess for a page's board (`POST /api/position`): the position
//!   view, which games embed too.
//! - `db`: the SQLite database (`--db`) of players, sessions and games, its schema migrated on
//!   start; `accounts`: registering, signing in and out, the session cookie and its CSRF token,
//!   the limit on failed sign-ins; `games`: games against the engine and between two people,
//!   their clocks and the WebSocket that pushes each change.
//! - `guard`: what keeps a door to the machine shut: the host and origin checks, CORS only
//!   for the origins the owner allows, and the access token; `connections`: at most
//!   `--max-connections` open at once.
//!
//! docs/serve.md is the manual.

mod accounts;
mod answer;
mod compat;
mod connections;
mod db;
mod error;
mod games;
mod guard;
mod page;
mod request;
mod reviews;
mod routes;
mod rules;
mod stream;
mod worker;

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

/// What the owner decides: where to listen, who may ask, and how much any request may take.
#[derive(Clone, Debug)]
pub struct Config {
    pub listen: SocketAddr,
    /// The token every request must carry, when set.
    pub token: Option<String>,
    /// Origins whose pages may call the server from a browser (`*` for any).
    pub allowed_origins: Vec<String>,
    pub limits: Limits,
    pub threads: usize,
    pub hash_mb: usize,
    /// Syzygy folders, set by the owner only.
    pub syzygy_path: Option<String>,
    /// The database file of players and games (`--db`); None keeps them in memory.
    pub db: Option<std::path::PathBuf>,
}

/// The bounds of every request. A request beyond one is refused with a message naming it.
#[derive(Clone, Debug)]
pub struct Limits {
    pub max_depth: i32,
    pub max_movetime: Duration,
    pub max_nodes: u64,
    pub max_multipv: usize,
    /// Jobs that may wait while one runs; a request past them is refused with 503.
    pub queue: usize,
    /// The largest request body (and WebSocket message), in bytes.
    pub max_body: usize,
    pub max_batch: usize,
    /// The most positions one review may search.
    pub max_review_positions: usize,
    /// How long a search given no limit thinks.
    pub default_movetime: Duration,
    /// Connections open at once; the next waits to be accepted until one closes.
    pub max_connections: usize,
}

impl Limits {
    pub const DEFAULT_MAX_DEPTH: i32 = 30;
    pub const DEFAULT_MAX_MOVETIME_MS: u64 = 10_000;
    pub const DEFAULT_MAX_NODES: u64 = 100_000_000;
    pub const DEFAULT_MAX_MULTIPV: usize = 5;
    pub const DEFAULT_QUEUE: usize = 16;
    pub const DEFAULT_MAX_BODY: usize = 1 << 20;
    pub const DEFAULT_MAX_BATCH: usize = 32;
    pub const DEFAULT_MAX_REVIEW_POSITIONS: usize = 600;
    pub const DEFAULT_MOVETIME_MS: u64 = 1000;
    pub const DEFAULT_MAX_CONNECTIONS: usize = 256;
    /// The longest any request may take to send its body.
    pub const BODY_TIMEOUT: Duration = Duration::from_secs(10);
}

/// The address `sentinel serve` listens on without `--listen`: loopback, the design's port.
pub const DEFAULT_LISTEN: &str = "127.0.0.1:9000";

/// The fuzz target `serve`: `input` read as each kind of request (see `request`).
#[cfg(feature = "fuzz")]
pub fn fuzz_request(input: &[u8]) {
    request::read_everything(input, &request::small_limits());
}

/// What every handler shares.
#[derive(Clone)]
struct AppState {
    queue: worker::Queue,
    config: Arc<Config>,
    /// The opening table reviews name openings from, read once.
    openings: Arc<crate::review::eco::Openings>,
    db: db::Db,
    /// Recent failed sign-ins and the like, for their limits.
    attempts: Arc<accounts::Attempts>,
    /// Each game's lock and watchers.
    live: Arc<games::Live>,
}

/// Starts the engine and serves until Ctrl-C (or SIGTERM): the address it listens on goes to
/// stdout as `listening on http://ADDR`, once it does.
pub fn run(config: Config) -> Result<(), String> {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .thread_name("serve")
        .enable_all()
        .build()
        .map_err(|e| format!("cannot start the server's runtime: {e}"))?;
    runtime.block_on(serve(config))
}

async fn serve(config: Config) -> Result<(), String> {
    let queue = worker::Queue::start(&config)?;
    let db = db::Db::open(config.db.as_deref()).map_err(|e| match &config.db {
        Some(path) => format!("{}: {e}", path.display()),
        None => e.to_string(),
    })?;
    if config.db.is_none() {
        eprintln!("sentinel serve: no --db FILE: accounts and games are kept in memory and go when the server stops");
    }
    let listener = tokio::net::TcpListener::bind(config.listen)
        .await
        .map_err(|e| format!("cannot listen on {}: {e}", config.listen))?;
    let address = listener.local_addr().map_err(|e| format!("cannot listen on {}: {e}", config.listen))?;
    if !address.ip().is_loopback() {
        let token = if config.token.is_some() { "every request needs the token" } else { "and no --token is set" };
        eprintln!(
            "sentinel serve: listening on {address}, which other machines may reach: anyone who can reach it can \
             use this engine ({token}); see docs/serve.md"
        );
    }
    println!("listening on http://{address}");
    use std::io::Write;
    let _ = std::io::stdout().flush();
    let openings = Arc::new(crate::review::eco::Openings::built_in());
    let state =
        AppState { queue, config: Arc::new(config), openings, db, attempts: Arc::default(), live: Arc::default() };
    games::resume(&state).await?;
    let max_connections = state.config.limits.max_connections;
    let app = routes::router(state);
    // On Ctrl-C or SIGTERM the server stops taking connections and lets the requests under
    // way finish, for a few seconds at most: an open WebSocket would hold it up for ever.
    let (stopping, stop) = tokio::sync::watch::channel(false);
    tokio::spawn(async move {
        shutdown_signal().await;
        let _ = stopping.send(true);
    });
    connections::serve(connections::Bounded::new(listener, max_connections), app, stop, SHUTDOWN_GRACE).await;
    Ok(())
}

/// How long the requests under way may go on after the server is told to stop.
const SHUTDOWN_GRACE: Duration = Duration::from_secs(3);

/// Ctrl-C, or SIGTERM where there is one.
async fn shutdown_signal() {
    let ctrl_c = async {
        let _ = tokio::signal::ctrl_c().await;
    };
    #[cfg(unix)]
    let terminate = async {
        match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
            Ok(mut signal) => {
                signal.recv().await;
            }
            Err(_) => std::future::pending::<()>().await,
        }
    };
    #[cfg(not(unix))]
    let terminate = std::future::pending::<()>();
    tokio::select! {
        () = ctrl_c => {},
        () = terminate => {},
    }
}
