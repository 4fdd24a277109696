//! The command line: the subcommands clap reads, and the work of each that is not a lower
//! module's (checking the arguments, reading the files, writing for people), with its
//! errors as a message on stderr and exit code 2. `main` only starts the log and calls `run`.

use crate::board::{self, Board};
#[cfg(feature = "fuzz")]
use crate::fuzz;
use crate::review::{self, Effort, analyse, game, suite};
use crate::search::{self, Limits};
#[cfg(feature = "serve")]
use crate::serve;
#[cfg(feature = "tune")]
use crate::tune;
use crate::{VERSION, bench, engine, eval, movegen, openings, perft, play, protocol, quote};
use clap::{Parser, Subcommand};
use std::io::Write;
use std::process::ExitCode;
use std::time::{Duration, Instant};

#[derive(Parser)]
#[command(name = "sentinel", version = VERSION, about = "A chess engine speaking UCI and XBoard")]
struct Cli {
    #[command(subcommand)]
    command: Option<Command>,
}

#[derive(Subcommand)]
enum Command {
    /// Count the leaf nodes of the move tree: `perft startpos 5`, `perft "<fen>" 4`,
    /// `perft startpos moves e2e4 3`, or check a suite with `perft --epd FILE`.
    Perft {
        /// `startpos` or a FEN (quoted, or as separate words), optionally `moves` and moves
        /// from it, then the depth (1 to 20).
        #[arg(num_args = 0.., value_name = "POSITION [moves ...] DEPTH")]
        args: Vec<String>,
        /// Check every `FEN ;D1 n ;D2 n ...` line of FILE instead.
        #[arg(long, value_name = "FILE", conflicts_with = "args")]
        epd: Option<String>,
        /// With --epd, skip counts deeper than this.
        #[arg(long, value_name = "D", requires = "epd")]
        max_depth: Option<u32>,
        /// Chess960: X-FEN castling letters mean the outermost rook, and castling is written
        /// as the king taking its rook. FENs whose castling field names files imply it.
        #[arg(long = "960")]
        chess960: bool,
    },
    /// Search a fixed set of positions to a fixed depth; the last line is
    /// `<nodes> nodes <nps> nps`.
    Bench {
        #[arg(default_value_t = bench::DEFAULT_DEPTH, value_parser = clap::value_parser!(i32).range(1..=search::MAX_DEPTH as i64))]
        depth: i32,
    },
    /// Search one position and print UCI `info` lines and the `bestmove`:
    /// `search startpos --depth 6`, `search "<fen>" --movetime 2000`,
    /// `search startpos moves e2e4 e7e5 --depth 8`. Without a limit the search gets one second.
    Search {
        /// `startpos` or a FEN (quoted, or as separate words), optionally followed by `moves`
        /// and moves from it.
        #[arg(num_args = 1.., required = true, value_name = "POSITION [moves ...]")]
        position: Vec<String>,
        /// Search this many plies deep (1 to 127, as `bench` and UCI's `go depth`).
        #[arg(long, value_name = "D", group = "limit", value_parser = clap::value_parser!(i32).range(1..=search::MAX_DEPTH as i64))]
        depth: Option<i32>,
        /// Search this many milliseconds.
        #[arg(long, value_name = "MS", group = "limit")]
        movetime: Option<u64>,
        /// Search this many nodes.
        #[arg(long, value_name = "N", group = "limit")]
        nodes: Option<u64>,
    },
    /// Play a game against the engine in the terminal: moves in SAN or coordinates, `help`
    /// for the commands.
    Play {
        #[arg(long, value_name = "ELO|SKILL", help = play::level_help())]
        level: Option<play::Level>,
        /// Your side. Default White, or the side to move of a position or the game loaded.
        #[arg(long, value_enum)]
        color: Option<play::ColorChoice>,
        /// Start from this position.
        #[arg(long, value_name = "FEN", conflicts_with = "load")]
        fen: Option<String>,
        /// Go on with the first game of this PGN file (or the position of a FEN file).
        #[arg(long, value_name = "FILE.pgn")]
        load: Option<String>,
        /// Clocks: minutes each plus seconds added per move, such as 5+3. Without it the
        /// engine thinks up to two seconds a move.
        #[arg(long, value_name = "MIN+SEC")]
        tc: Option<play::TimeControl>,
        /// Letters for the pieces instead of chess symbols.
        #[arg(long)]
        ascii: bool,
        /// No colours, even on a terminal that has them.
        #[arg(long)]
        no_color: bool,
        /// Seed of the engine's choices below full strength (Skill Seed): the same seed and
        /// moves give the same game.
        #[arg(long, value_parser = clap::value_parser!(u32).range(1..=engine::options::MAX_SPIN))]
        seed: Option<u32>,
    },
    /// Make opening positions: random plies from the start position (or from the lines of a
    /// book), each kept when a verification search scores it within a window (balanced, or with
    /// --floor one side better) and it is new. One FEN a line; the same seed gives the same
    /// positions on any number of threads.
    Openings {
        /// How many positions.
        #[arg(long, default_value_t = 1000)]
        count: u64,
        #[arg(long, default_value_t = 1)]
        seed: u64,
        /// Start from random lines of this file (FEN or EPD lines) instead of the start position.
        #[arg(long, value_name = "FILE")]
        book: Option<String>,
        /// Random plies (default 8 from the start position, 2 from a book).
        #[arg(long, value_name = "N")]
        plies: Option<u32>,
        /// The verification search's nodes (default 20000).
        #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(1..))]
        nodes: Option<u64>,
        /// The largest score a position may have, in centipawns for either side (default 60).
        #[arg(long, value_name = "CP", value_parser = clap::value_parser!(i32).range(0..))]
        window: Option<i32>,
        /// The smallest (default 0); above zero the set is unbalanced, one side better in each
        /// position by --floor to --window centipawns.
        #[arg(long, value_name = "CP", value_parser = clap::value_parser!(i32).range(0..))]
        floor: Option<i32>,
        #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u16).range(1..=256))]
        threads: u16,
        /// Write here instead of stdout, with progress on stderr.
        #[arg(long, value_name = "FILE")]
        out: Option<String>,
    },
    /// Review the games of a PGN file: every position searched, each move's evaluation,
    /// marks (?! ? ?? and !) and the better line after a mistake written back as PGN, with a
    /// summary per side (accuracy, average loss). Progress on stderr; docs/review.md explains
    /// the marks.
    #[command(alias = "analyze")]
    Analyse {
        /// The PGN file.
        #[arg(value_name = "GAMES.pgn")]
        file: String,
        #[arg(long, value_name = "MS", group = "limit", value_parser = clap::value_parser!(u64).range(1..), help = movetime_help(review::DEFAULT_REVIEW_MS))]
        movetime: Option<u64>,
        /// Search each position this many plies deep instead.
        #[arg(long, value_name = "D", group = "limit", value_parser = clap::value_parser!(i32).range(1..=search::MAX_DEPTH as i64))]
        depth: Option<i32>,
        /// Search each position this many nodes instead (the same on every machine).
        #[arg(long, value_name = "N", group = "limit", value_parser = clap::value_parser!(u64).range(1..))]
        nodes: Option<u64>,
        #[command(flatten)]
        resources: Resources,
        /// Judge only this side's moves.
        #[arg(long, value_enum, default_value = "both")]
        side: game::Sides,
        /// Review from this move number on.
        #[arg(long, value_name = "N", default_value_t = 1, value_parser = clap::value_parser!(u16).range(1..))]
        from_move: u16,
        /// Skip the first moves while this Polyglot book holds them.
        #[arg(long, value_name = "FILE.bin")]
        book: Option<String>,
        /// Write the reviewed games here instead of stdout.
        #[arg(long, value_name = "FILE")]
        out: Option<String>,
        /// Draw each game's evaluation as an SVG graph: FILE.svg for a file of one game,
        /// FILE-N.svg for game N of several.
        #[arg(long, value_name = "FILE.svg")]
        graph: Option<String>,
        /// Write every move's figures and each game's summary here as JSON, beside the PGN.
        #[arg(long, value_name = "FILE.json")]
        json: Option<String>,
        /// Judge by lichess's formulas on the review's centipawns, or by Sentinel's own
        /// win model.
        #[arg(long, value_enum, default_value = "lichess")]
        marks: game::Marks,
        /// No progress on stderr (errors are still reported).
        #[arg(long)]
        quiet: bool,
    },
    /// Run a test suite of EPD lines (bm, am, dm and id operations): a line per position
    /// (solved or not, the move played, when the search settled on a right move), then
    /// solved/total.
    Epd {
        #[arg(value_name = "SUITE.epd")]
        file: String,
        #[arg(long, value_name = "MS", group = "limit", value_parser = clap::value_parser!(u64).range(1..), help = movetime_help(review::DEFAULT_SUITE_MS))]
        movetime: Option<u64>,
        /// Search each position this many plies deep instead.
        #[arg(long, value_name = "D", group = "limit", value_parser = clap::value_parser!(i32).range(1..=search::MAX_DEPTH as i64))]
        depth: Option<i32>,
        /// Search each position this many nodes instead.
        #[arg(long, value_name = "N", group = "limit", value_parser = clap::value_parser!(u64).range(1..))]
        nodes: Option<u64>,
        #[command(flatten)]
        resources: Resources,
    },
    #[cfg(feature = "tune")]
    #[command(flatten)]
    Tuning(tune::Command),
    /// UCI commands, each argument one line, run in order before the engine exits, as
    /// OpenBench runs them: `sentinel "setoption name EvalFile value net.nnue" bench`, or
    /// `sentinel "genfens 100 seed 1 book None" quit`.
    #[command(external_subcommand)]
    Commands(Vec<String>),
    /// Run one fuzz target on the bytes of stdin (see fuzz/run.sh).
    #[cfg(feature = "fuzz")]
    #[command(hide = true)]
    Fuzz { target: fuzz::Target },
    /// Serve the engine over HTTP and WebSockets: `GET /chess?fen=FEN&depth=D`, a JSON API
    /// with live lines, moves at a level and reviews, within the limits set here
    /// (docs/serve.md).
    #[cfg(feature = "serve")]
    Serve(ServeArgs),
    /// (This build has no server: build with `--features serve`.)
    #[cfg(not(feature = "serve"))]
    Serve {
        #[arg(num_args = 0.., allow_hyphen_values = true, hide = true)]
        args: Vec<String>,
    },
}

/// `sentinel serve`'s arguments: where to listen, who may ask, and how much a request may take.
#[cfg(feature = "serve")]
#[derive(clap::Args)]
struct ServeArgs {
    /// The address to listen on. Loopback by default, which only this machine reaches; an
    /// address other machines reach (0.0.0.0: all of them) lets anyone who reaches it use the
    /// engine.
    #[arg(long, value_name = "ADDR:PORT", default_value = serve::DEFAULT_LISTEN)]
    listen: std::net::SocketAddr,
    /// Every request must carry this token (`Authorization: Bearer TOKEN`). A command line is
    /// seen by the machine's other users: --token-file keeps it out of one.
    #[arg(long, value_name = "TOKEN", conflicts_with = "token_file")]
    token: Option<String>,
    /// Read the token from the first line of this file.
    #[arg(long, value_name = "FILE")]
    token_file: Option<String>,
    /// Let pages of this origin (`https://example.org`, or `*` for any) call the server from a
    /// browser (CORS); repeat it for several. Without it only the server's own pages may.
    #[arg(long, value_name = "ORIGIN")]
    allow_origin: Vec<String>,
    /// The deepest search a request may ask for.
    #[arg(long, value_name = "D", default_value_t = serve::Limits::DEFAULT_MAX_DEPTH, value_parser = clap::value_parser!(i32).range(1..=search::MAX_DEPTH as i64))]
    max_depth: i32,
    /// The longest search, in milliseconds: also the end of any search by depth, nodes or clock.
    #[arg(long, value_name = "MS", default_value_t = serve::Limits::DEFAULT_MAX_MOVETIME_MS, value_parser = clap::value_parser!(u64).range(1..=3_600_000))]
    max_movetime: u64,
    /// The most nodes a request may ask for.
    #[arg(long, value_name = "N", default_value_t = serve::Limits::DEFAULT_MAX_NODES, value_parser = clap::value_parser!(u64).range(1..))]
    max_nodes: u64,
    /// The most lines (MultiPV) a request may ask for.
    #[arg(long, value_name = "N", default_value_t = serve::Limits::DEFAULT_MAX_MULTIPV, value_parser = clap::builder::RangedU64ValueParser::<usize>::new().range(1..=256))]
    max_multipv: usize,
    /// How many searches may wait while one runs; one more is refused with 503.
    #[arg(long, value_name = "N", default_value_t = serve::Limits::DEFAULT_QUEUE, value_parser = clap::builder::RangedU64ValueParser::<usize>::new().range(1..=10_000))]
    queue: usize,
    /// The largest request body (and WebSocket message), in bytes.
    #[arg(long, value_name = "BYTES", default_value_t = serve::Limits::DEFAULT_MAX_BODY, value_parser = clap::builder::RangedU64ValueParser::<usize>::new().range(256..=1 << 30))]
    max_body: usize,
    /// The most positions in one batch request.
    #[arg(long, value_name = "N", default_value_t = serve::Limits::DEFAULT_MAX_BATCH, value_parser = clap::builder::RangedU64ValueParser::<usize>::new().range(1..=10_000))]
    max_batch: usize,
    /// The most positions one review may search.
    #[arg(long, value_name = "N", default_value_t = serve::Limits::DEFAULT_MAX_REVIEW_POSITIONS, value_parser = clap::builder::RangedU64ValueParser::<usize>::new().range(1..=100_000))]
    max_review_positions: usize,
    /// Connections open at once; the next waits to be accepted until one closes.
    #[arg(long, value_name = "N", default_value_t = serve::Limits::DEFAULT_MAX_CONNECTIONS, value_parser = clap::builder::RangedU64ValueParser::<usize>::new().range(1..=100_000))]
    max_connections: usize,
    /// How long a search given no limit thinks, in milliseconds (at most --max-movetime).
    #[arg(long, value_name = "MS", default_value_t = serve::Limits::DEFAULT_MOVETIME_MS, value_parser = clap::value_parser!(u64).range(1..))]
    default_movetime: u64,
    #[command(flatten)]
    resources: Resources,
    /// Syzygy tablebase folders (`:`-separated). Only the owner sets paths: no request can.
    #[arg(long, value_name = "DIRS")]
    syzygy_path: Option<String>,
    /// The SQLite file of players, sessions and saved games, created if missing and its schema
    /// upgraded on start. Without it they are kept in memory and lost when the server stops.
    #[arg(long, value_name = "FILE")]
    db: Option<std::path::PathBuf>,
}

/// `--movetime`'s help, with the command's default.
fn movetime_help(default_ms: u64) -> String {
    format!("Search each position this many milliseconds (the default is {default_ms})")
}

/// The search's threads and table, for the commands that search many positions.
#[derive(clap::Args)]
struct Resources {
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u16).range(1..=search::MAX_THREADS as i64))]
    threads: u16,
    /// The transposition table's size in megabytes.
    #[arg(long, value_name = "MB", default_value_t = search::DEFAULT_HASH_MB as u64, value_parser = clap::value_parser!(u64).range(1..=search::MAX_HASH_MB as u64))]
    hash: u64,
}

impl Resources {
    /// The effort of a search limited by one of `movetime`, `depth` and `nodes`, or by
    /// `default_ms` when none is given.
    fn effort(&self, movetime: Option<u64>, depth: Option<i32>, nodes: Option<u64>, default_ms: u64) -> Effort {
        let mut limits = Limits { depth, nodes, movetime: movetime.map(Duration::from_millis), ..Limits::default() };
        if movetime.is_none() && depth.is_none() && nodes.is_none() {
            limits.movetime = Some(Duration::from_millis(default_ms));
        }
        Effort { limits, threads: self.threads.into(), hash_mb: self.hash as usize }
    }
}

/// Exit code for bad arguments, as clap uses for its own usage errors.
const USAGE_ERROR: u8 = 2;

/// Why a subcommand ended early.
enum Failure {
    /// Bad arguments or input: said on stderr, exit code 2.
    Usage(String),
    /// stdout was closed (`sentinel perft ... | head`): nobody reads on, so end quietly.
    StdoutClosed,
}

impl From<String> for Failure {
    fn from(message: String) -> Failure {
        Failure::Usage(message)
    }
}

impl From<std::io::Error> for Failure {
    fn from(error: std::io::Error) -> Failure {
        match error.kind() {
            std::io::ErrorKind::BrokenPipe => Failure::StdoutClosed,
            _ => Failure::Usage(format!("cannot write to stdout: {error}")),
        }
    }
}

/// Runs the subcommand of the command line, or the protocols without one.
pub fn run() -> ExitCode {
    let cli = Cli::parse();
    let result = match cli.command {
        Some(Command::Perft { args, epd: None, chess960, .. }) => run_perft(&args, chess960),
        Some(Command::Perft { epd: Some(file), max_depth, chess960, .. }) => {
            run_perft_suite(&file, max_depth, chess960)
        }
        Some(Command::Bench { depth }) => {
            bench::run(depth, eval::Evaluation::embedded()).map(|_| ExitCode::SUCCESS).map_err(Failure::from)
        }
        Some(Command::Search { position, depth, movetime, nodes }) => run_search(&position, depth, movetime, nodes),
        #[cfg(feature = "fuzz")]
        Some(Command::Fuzz { target }) => {
            let mut input = Vec::new();
            std::io::Read::read_to_end(&mut std::io::stdin(), &mut input)
                .map(|_| fuzz::run(target, &input))
                .map(|_| ExitCode::SUCCESS)
                .map_err(Failure::from)
        }
        Some(Command::Play { level, color, fen, load, tc, ascii, no_color, seed }) => {
            let options = play::Options { level, color, fen, load, time_control: tc, ascii, no_color, seed };
            play::run(options).map(|()| ExitCode::SUCCESS).map_err(Failure::from)
        }
        Some(Command::Openings { count, seed, book, plies, nodes, window, floor, threads, out }) => {
            let source = if book.is_some() { openings::Settings::FROM_BOOK } else { openings::Settings::FROM_START };
            let settings = openings::Settings {
                plies: plies.unwrap_or(source.plies),
                nodes: nodes.unwrap_or(source.nodes),
                window: window.unwrap_or(source.window),
                floor: floor.unwrap_or(source.floor),
            };
            run_openings(count, seed, book.as_deref(), settings, threads.into(), out.as_deref())
        }
        Some(Command::Analyse {
            file,
            movetime,
            depth,
            nodes,
            resources,
            side,
            from_move,
            book,
            out,
            graph,
            json,
            marks,
            quiet,
        }) => {
            let effort = resources.effort(movetime, depth, nodes, review::DEFAULT_REVIEW_MS);
            let book = book.map(|path| engine::book::Book::open(&path).map_err(|e| e.to_string())).transpose();
            book.map_err(Failure::from).and_then(|book| {
                let settings = game::Settings { effort, sides: side, from_move, book, marks };
                run_analyse(&file, &settings, out.as_deref(), graph.as_deref(), json.as_deref(), quiet)
            })
        }
        Some(Command::Epd { file, movetime, depth, nodes, resources }) => {
            run_epd(&file, &resources.effort(movetime, depth, nodes, review::DEFAULT_SUITE_MS))
        }
        Some(Command::Commands(lines)) => match protocol::run_arguments(lines) {
            0 => Ok(ExitCode::SUCCESS),
            refused => Err(Failure::Usage(format!("{refused} of the commands failed: see the 'info string' lines"))),
        },
        #[cfg(feature = "tune")]
        Some(Command::Tuning(command)) => tune::run(command).map(|_| ExitCode::SUCCESS).map_err(Failure::from),
        #[cfg(feature = "serve")]
        Some(Command::Serve(args)) => run_serve(args),
        #[cfg(not(feature = "serve"))]
        Some(Command::Serve { .. }) => Err(Failure::Usage(
            "this sentinel was built without the server: build it with `cargo build --release --features serve`"
                .to_string(),
        )),
        None => {
            protocol::run();
            Ok(ExitCode::SUCCESS)
        }
    };
    result.unwrap_or_else(|failure| match failure {
        Failure::Usage(message) => {
            // stderr may be closed too; there is nobody left to tell then.
            let _ = writeln!(std::io::stderr(), "sentinel: {message}");
            ExitCode::from(USAGE_ERROR)
        }
        Failure::StdoutClosed => ExitCode::FAILURE,
    })
}

/// Splits position words (`startpos` or a FEN's words, quoted or not) from the moves that
/// follow `moves`, as UCI's `position` command has them.
fn split_moves(words: &[String]) -> (String, Vec<String>) {
    let words: Vec<&str> = words.iter().flat_map(|w| w.split_whitespace()).collect();
    let at = words.iter().position(|&w| w == "moves").unwrap_or(words.len());
    let moves = words.get(at + 1..).unwrap_or_default().iter().map(|m| m.to_string()).collect();
    (words[..at].join(" "), moves)
}

/// Reads a position given as `startpos` or FEN words, then plays the moves after `moves`;
/// says whether it is Chess960 (asked for, or implied by a castling field that names files).
fn parse_position(words: &[String], chess960: bool) -> Result<(Board, bool), String> {
    let (text, moves) = split_moves(words);
    let fen = board::position_fen(&text);
    let chess960 = chess960 || perft::names_rook_files(fen);
    let mut board = Board::parse_fen(fen, chess960).map_err(|e| e.to_string())?;
    for text in moves {
        let mv = movegen::parse_move(&board, &text)
            .ok_or_else(|| format!("illegal move: {}", quote::excerpt(&text, quote::QUOTE_LIMIT)))?;
        board.make_move(mv);
    }
    Ok((board, chess960))
}

/// How long `search` thinks when given no limit.
const DEFAULT_SEARCH_TIME: Duration = Duration::from_secs(1);

fn run_search(
    position: &[String],
    depth: Option<i32>,
    movetime: Option<u64>,
    nodes: Option<u64>,
) -> Result<ExitCode, Failure> {
    let (text, moves) = split_moves(position);
    let mut limits = Limits { depth, nodes, movetime: movetime.map(Duration::from_millis), ..Limits::default() };
    if depth.is_none() && nodes.is_none() && movetime.is_none() {
        limits.movetime = Some(DEFAULT_SEARCH_TIME);
    }
    protocol::search_once(board::position_fen(&text), moves, limits)?;
    Ok(ExitCode::SUCCESS)
}

/// `serve`: the owner's limits and token, then the server until it is stopped.
#[cfg(feature = "serve")]
fn run_serve(args: ServeArgs) -> Result<ExitCode, Failure> {
    let token = match (args.token, args.token_file) {
        (Some(token), _) => Some(token),
        (None, Some(file)) => {
            let text = read_text(&file, 4096)?;
            let token = text.lines().next().unwrap_or("").trim().to_string();
            if token.is_empty() {
                return Err(format!("{file}: no token on its first line").into());
            }
            Some(token)
        }
        (None, None) => None,
    };
    if token.as_deref().is_some_and(str::is_empty) {
        return Err("--token must not be empty".to_string().into());
    }
    let max_movetime = Duration::from_millis(args.max_movetime);
    let limits = serve::Limits {
        max_depth: args.max_depth,
        max_movetime,
        max_nodes: args.max_nodes,
        max_multipv: args.max_multipv,
        queue: args.queue,
        max_body: args.max_body,
        max_batch: args.max_batch,
        max_review_positions: args.max_review_positions,
        default_movetime: Duration::from_millis(args.default_movetime).min(max_movetime),
        max_connections: args.max_connections,
    };
    let config = serve::Config {
        listen: args.listen,
        token,
        allowed_origins: args.allow_origin,
        limits,
        threads: args.resources.threads.into(),
        hash_mb: args.resources.hash as usize,
        syzygy_path: args.syzygy_path,
        db: args.db,
    };
    serve::run(config)?;
    Ok(ExitCode::SUCCESS)
}

fn run_perft(args: &[String], chess960: bool) -> Result<ExitCode, Failure> {
    const USAGE: &str = "usage: sentinel perft <startpos|FEN> [moves ...] <depth>";
    let [position @ .., depth] = args else {
        return Err(Failure::Usage(USAGE.to_string()));
    };
    if position.is_empty() {
        return Err(Failure::Usage(USAGE.to_string()));
    }
    // A word after a number (`perft startpos 3 extra`) is one too many, not a bad depth.
    if depth.parse::<i64>().is_err()
        && let Some(number) = position.last().filter(|w| w.parse::<u32>().is_ok())
    {
        let extra = quote::excerpt(depth, quote::QUOTE_LIMIT);
        return Err(Failure::Usage(format!("unexpected '{extra}' after the depth {number}; {USAGE}")));
    }
    let depth: u32 = depth.parse().ok().filter(|d| (1..=perft::MAX_DEPTH).contains(d)).ok_or_else(|| {
        let depth = quote::excerpt(depth, quote::QUOTE_LIMIT);
        format!("depth must be a whole number from 1 to {}, got '{depth}'", perft::MAX_DEPTH)
    })?;
    let (mut board, chess960) = parse_position(position, chess960)?;
    let start = Instant::now();
    let mut total = 0;
    let mut out = std::io::stdout().lock();
    for (mv, nodes) in perft::divide(&mut board, depth, chess960) {
        writeln!(out, "{mv}: {nodes}")?;
        total += nodes;
    }
    writeln!(out, "\nNodes searched: {total}")?;
    out.flush()?;
    report_speed(total, start);
    Ok(ExitCode::SUCCESS)
}

/// `openings`: the positions on stdout, or in a file with progress on stderr.
fn run_openings(
    count: u64,
    seed: u64,
    book: Option<&str>,
    settings: openings::Settings,
    threads: usize,
    out: Option<&str>,
) -> Result<ExitCode, Failure> {
    let book = book.map(|path| openings::read_book(path.as_ref())).transpose()?;
    let mut generator = openings::Generator::new(book, settings, seed, eval::Evaluation::embedded())?;
    let mut sink: Box<dyn Write> = match out {
        Some(path) => Box::new(std::fs::File::create(path).map_err(|e| format!("cannot create {path}: {e}"))?),
        None => Box::new(std::io::stdout().lock()),
    };
    let start = Instant::now();
    let mut made = 0;
    let result = generator.generate(count, threads, |board| {
        writeln!(sink, "{}", board.to_fen())?;
        sink.flush()?;
        made += 1;
        if out.is_some() && (made % 50 == 0 || made == count) {
            let seconds = start.elapsed().as_secs_f64();
            eprintln!("openings: {made}/{count} in {seconds:.0} s");
        }
        Ok::<(), std::io::Error>(())
    });
    match result {
        Ok(()) => Ok(ExitCode::SUCCESS),
        Err(openings::GenError::Emit(e)) => Err(match out {
            Some(path) => Failure::Usage(format!("cannot write {path}: {e}")),
            None => Failure::from(e),
        }),
        Err(exhausted) => Err(Failure::Usage(exhausted.to_string())),
    }
}

/// The largest perft or EPD suite read: far beyond any published one, small enough to hold in
/// memory.
const MAX_SUITE_BYTES: u64 = 64 << 20;

/// The largest PGN file `analyse` reads: more games than it could review in a year.
const MAX_PGN_BYTES: u64 = 256 << 20;

/// `analyse`: the reviewed games on stdout or in a file; exit status 1 when a game was skipped.
fn run_analyse(
    file: &str,
    settings: &game::Settings,
    out: Option<&str>,
    graph: Option<&str>,
    json: Option<&str>,
    quiet: bool,
) -> Result<ExitCode, Failure> {
    let text = read_text(file, MAX_PGN_BYTES)?;
    let mut sink: Box<dyn Write> = match out {
        Some(path) => Box::new(std::fs::File::create(path).map_err(|e| format!("cannot create {path}: {e}"))?),
        None => Box::new(std::io::stdout().lock()),
    };
    let output = analyse::Output { games: &mut *sink, graph, json, quiet };
    match analyse::run(file, &text, settings, output) {
        Ok(0) => Ok(ExitCode::SUCCESS),
        Ok(_) => Ok(ExitCode::FAILURE),
        Err(analyse::Error::Input(message)) => Err(Failure::Usage(message)),
        Err(analyse::Error::Write(e)) => Err(match out {
            Some(path) => Failure::Usage(format!("cannot write {path}: {e}")),
            None => Failure::from(e),
        }),
    }
}

/// `epd`: each line a test; a line that is not one is reported and skipped, and makes the exit
/// status 1.
fn run_epd(file: &str, effort: &Effort) -> Result<ExitCode, Failure> {
    // Old suites carry comments in Latin-1: a byte that is not UTF-8 spoils its line at most.
    let bytes = read_bytes(file, MAX_SUITE_BYTES)?;
    let text = String::from_utf8_lossy(&bytes);
    let mut tests = Vec::new();
    let mut skipped = 0;
    for (index, line) in text.lines().enumerate() {
        match suite::Test::parse(line, index + 1) {
            Ok(test) => tests.extend(test),
            Err(message) => {
                skipped += 1;
                let message = quote::excerpt(&message, quote::MESSAGE_LIMIT);
                let _ = writeln!(std::io::stderr(), "sentinel: {file}:{}: {message}; skipped", index + 1);
            }
        }
    }
    if tests.is_empty() {
        return Err(format!("{file}: no positions to test").into());
    }
    suite::run(&tests, effort, &mut std::io::stdout().lock())?;
    Ok(if skipped == 0 { ExitCode::SUCCESS } else { ExitCode::FAILURE })
}

fn run_perft_suite(file: &str, max_depth: Option<u32>, chess960: bool) -> Result<ExitCode, Failure> {
    let text = read_text(file, MAX_SUITE_BYTES)?;
    let mut entries = Vec::new();
    for (number, line) in text.lines().enumerate() {
        let entry = perft::parse_suite_line(line).map_err(|e| format!("{file}:{}: {e}", number + 1))?;
        if let Some(entry) = entry {
            let chess960 = chess960 || perft::names_rook_files(&entry.fen);
            let board = Board::parse_fen(&entry.fen, chess960).map_err(|e| format!("{file}:{}: {e}", number + 1))?;
            entries.push((board, entry));
        }
    }
    if entries.is_empty() {
        return Err(format!("{file}: no positions to check").into());
    }
    let start = Instant::now();
    let (mut checked, mut failed, mut nodes) = (0, 0, 0);
    let mut out = std::io::stdout().lock();
    for (mut board, entry) in entries {
        for &(depth, expected) in entry.counts.iter().filter(|(d, _)| max_depth.is_none_or(|max| *d <= max)) {
            let actual = perft::perft(&mut board, depth);
            nodes += actual;
            checked += 1;
            if actual == expected {
                writeln!(out, "pass  D{depth} {expected:>12}  {}", entry.fen)?;
            } else {
                failed += 1;
                writeln!(out, "FAIL  D{depth} expected {expected} got {actual}  {}", entry.fen)?;
            }
            out.flush()?;
        }
    }
    writeln!(out, "{checked} counts checked, {} passed, {failed} failed", checked - failed)?;
    out.flush()?;
    report_speed(nodes, start);
    Ok(if failed == 0 { ExitCode::SUCCESS } else { ExitCode::FAILURE })
}

/// A text file of at most `limit` bytes: a larger one, or one that is not UTF-8, is an error
/// naming the file, never a read without end (`/dev/zero`) or a panic.
fn read_text(file: &str, limit: u64) -> Result<String, String> {
    String::from_utf8(read_bytes(file, limit)?).map_err(|e| format!("cannot read {file}: {e}"))
}

fn read_bytes(file: &str, limit: u64) -> Result<Vec<u8>, String> {
    use std::io::Read;
    let cannot = |e: &dyn std::fmt::Display| format!("cannot read {file}: {e}");
    let mut bytes = Vec::new();
    std::fs::File::open(file).and_then(|f| f.take(limit + 1).read_to_end(&mut bytes)).map_err(|e| cannot(&e))?;
    if bytes.len() as u64 > limit {
        return Err(cannot(&format!("larger than {} MiB", limit >> 20)));
    }
    Ok(bytes)
}

fn report_speed(nodes: u64, start: Instant) {
    let seconds = start.elapsed().as_secs_f64();
    let speed = nodes as f64 / seconds.max(1e-9);
    let _ = writeln!(std::io::stderr(), "{nodes} nodes in {seconds:.3} s, {speed:.0} nodes/s");
}
