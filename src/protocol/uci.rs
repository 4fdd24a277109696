//! The Universal Chess Interface. The GUI owns the game: it sends the whole position before
//! every `go`, and each `go` is answered by exactly one `bestmove`. Errors are reported as
//! `info string` lines and never end the engine.

use super::{Event, MAX_LINE, Output, Protocol, parse_whole, split_command};
use crate::engine::options::{Kind, Shown};
use crate::engine::{
    Bound, Clock, Color, Engine, EngineCommand, Info, Limits, Move, Outcome, Report, START_POS, Score, SearchId,
};
use crate::quote::{MESSAGE_LIMIT, QUOTE_LIMIT, excerpt};
use std::sync::mpsc::Receiver;
use std::time::Duration;

/// A `go` that has not been answered yet.
struct Pending {
    id: SearchId,
    /// `go infinite` and `go ponder`: the bestmove waits for `stop` or `ponderhit`.
    hold: bool,
    /// The bestmove line of a search that ended while held.
    held: Option<String>,
    /// The last info line with a variation of each line (by multipv) of a held search: a
    /// pondering search that ends before `ponderhit` sends them again with its bestmove.
    /// python-chess, and so lichess-bot, reads no info line that came while it pondered, and
    /// had no score for the move otherwise.
    last_infos: Vec<String>,
}

struct Uci<'a> {
    engine: Engine,
    out: &'a mut Output,
    pending: Vec<Pending>,
    /// Why the last `position` was refused. Until a good one comes, there is no position the
    /// GUI means: `go` answers `bestmove 0000` rather than a move for some other position.
    bad_position: Option<String>,
    /// Commands refused so far: commands given as arguments end with a failure when any was.
    refused: usize,
}

/// The commands that choose UCI when they come before `uci`: a tool that probes with
/// `isready`, or sends a position at once, means UCI (Stockfish reads everything as UCI).
pub const COMMANDS: [&str; 13] = [
    "isready",
    "setoption",
    "ucinewgame",
    "position",
    "go",
    "stop",
    "ponderhit",
    "debug",
    "register",
    "d",
    "eval",
    "flip",
    "uci",
];

/// Runs the protocol from `first`, the line that chose it: `uci`, answered with the engine's
/// identity, or another UCI command, answered as it would be after `uci`.
pub fn run(engine: Engine, events: &Receiver<Event>, out: &mut Output, first: &str) {
    let mut uci = Uci { engine, out, pending: Vec::new(), bad_position: None, refused: 0 };
    if uci.command(first) {
        super::serve(&mut uci, events);
    }
}

/// Runs the commands given as arguments (see `super::run_arguments`): no `uci` came, so none
/// is answered. Returns how many were refused.
pub fn run_commands(engine: Engine, events: &Receiver<Event>, out: &mut Output) -> usize {
    let mut uci = Uci { engine, out, pending: Vec::new(), bad_position: None, refused: 0 };
    super::serve_until(&mut uci, events, true);
    uci.refused
}

impl Uci<'_> {
    fn identify(&mut self) {
        self.out.send(format!("id name Sentinel {}", crate::VERSION));
        self.out.send(format!("id author {}", author()));
        for spec in Engine::options().iter().filter(|spec| spec.shown != Shown::XBoardOnly) {
            let kind = match spec.kind {
                Kind::Spin { default, min, max } => format!("spin default {default} min {min} max {max}"),
                Kind::Check { default } => format!("check default {default}"),
                Kind::Button => "button".to_string(),
                Kind::String { default: "" } => "string default <empty>".to_string(),
                Kind::String { default } => format!("string default {default}"),
            };
            self.out.send(format!("option name {} type {kind}", spec.name));
        }
        #[cfg(feature = "spsa")]
        for t in Engine::tunables() {
            self.out
                .send(format!("option name {} type spin default {} min {} max {}", t.name, t.default, t.min, t.max));
        }
        self.out.send("uciok");
    }

    fn error(&mut self, message: impl AsRef<str>) {
        let message = excerpt(message.as_ref(), MESSAGE_LIMIT);
        self.refused += 1;
        log::info!("{message}");
        self.out.send(format!("info string {message}"));
    }

    fn execute(&mut self, command: EngineCommand) -> Option<Outcome> {
        match self.engine.execute(command) {
            Ok(Outcome::Notice(notice)) => {
                self.out.send(format!("info string {notice}"));
                Some(Outcome::Done)
            }
            Ok(outcome) => Some(outcome),
            Err(e) => {
                self.error(e.to_string());
                None
            }
        }
    }

    /// `stop`, `ponderhit`, or a command that ends the search anyway: every bestmove still
    /// to come is printed when it arrives, and any already held goes out now (after its last
    /// info lines again, on `ponderhit`).
    fn release_all(&mut self) {
        self.release(false);
    }

    fn release(&mut self, ponderhit: bool) {
        let mut still_running = Vec::new();
        for mut pending in std::mem::take(&mut self.pending) {
            match pending.held.take() {
                Some(line) => {
                    if ponderhit {
                        for info in pending.last_infos.drain(..).filter(|line| !line.is_empty()) {
                            self.out.send(info);
                        }
                    }
                    self.out.send(line);
                }
                None => {
                    pending.hold = false;
                    still_running.push(pending);
                }
            }
        }
        self.pending = still_running;
    }

    /// `setoption name <name> [value <value>]`; names are case-insensitive.
    fn set_option(&mut self, args: &str) {
        let words: Vec<&str> = args.split_whitespace().collect();
        if words.first().is_none_or(|w| !w.eq_ignore_ascii_case("name")) {
            return self.error(format!("expected 'setoption name <name> [value <value>]', got 'setoption {args}'"));
        }
        let value_at = words.iter().position(|w| w.eq_ignore_ascii_case("value")).unwrap_or(words.len());
        let name = words[1..value_at].join(" ");
        let value = words.get(value_at + 1..).map(|v| v.join(" "));
        match EngineCommand::set_option(&name, value) {
            Ok(command) => {
                self.execute(command);
            }
            Err(e) => self.error(e.to_string()),
        }
    }

    /// `position startpos|fen <fen> [moves ...]`. A bad FEN or move is reported, and leaves no
    /// position to search until the next good `position` (see `bad_position`).
    fn position(&mut self, args: &str) {
        let words: Vec<&str> = args.split_whitespace().collect();
        let moves_at = words.iter().position(|w| *w == "moves").unwrap_or(words.len());
        let moves = words.get(moves_at + 1..).unwrap_or_default().iter().map(|m| m.to_string()).collect();
        let fen = match words[..moves_at] {
            [START_POS] => None,
            ["fen", ref fen @ ..] if !fen.is_empty() => Some(fen.join(" ")),
            _ => {
                let usage = "expected 'position startpos|fen <fen> [moves ...]'";
                return self.refuse_position(format!("{usage}, got 'position {}'", excerpt(args, QUOTE_LIMIT)));
            }
        };
        match self.engine.execute(EngineCommand::SetPosition { fen, moves }) {
            Ok(_) => self.bad_position = None,
            Err(e) => self.refuse_position(e.to_string()),
        }
    }

    fn refuse_position(&mut self, reason: String) {
        self.error(format!("{reason}; no position to search until a valid 'position'"));
        self.bad_position = Some(reason);
    }

    /// `go` with any of its arguments. A bad argument is reported and skipped, and the search
    /// starts anyway: the GUI is waiting for a bestmove.
    fn go(&mut self, args: &str) {
        if let Some(reason) = &self.bad_position {
            let message = format!("not searching: the last position was refused ({reason})");
            self.error(message);
            return self.out.send(best_move_line(&self.engine, None, None));
        }
        if let Some(depth) = args.strip_prefix("perft") {
            return self.perft(depth.trim());
        }
        let (limits, errors) = parse_go(args, &self.engine);
        for message in errors {
            self.error(message);
        }
        // The book answers a request for a move to play: under a clock or a time per move (or
        // none), not when analysing, pondering, or searching to a depth, a node count or a
        // mate the GUI asked for. Nor while an earlier search still owes its bestmove (a GUI
        // that sent `go` twice): that one must come first, and comes through the search.
        let to_play = self.pending.is_empty()
            && !limits.infinite
            && !limits.ponder
            && limits.searchmoves.is_empty()
            && limits.depth.is_none()
            && limits.nodes.is_none()
            && limits.mate.is_none();
        if to_play && let Some(book) = self.engine.book_move() {
            let text = self.engine.move_text(book.mv);
            self.out.send(format!("info string book move {text} (weight {:.0}%)", book.share * 100.0));
            return self.out.send(best_move_line(&self.engine, Some(book.mv), book.ponder));
        }
        let hold = limits.infinite || limits.ponder;
        if let Some(Outcome::Searching(id)) = self.execute(EngineCommand::Go(limits)) {
            self.pending.push(Pending { id, hold, held: None, last_infos: Vec::new() });
        }
    }
}

impl Uci<'_> {
    /// `go perft N`: the leaf count below each root move, then the total, as Stockfish prints
    /// them; it runs in place of a search and answers no `bestmove`. It runs on the protocol's
    /// thread, as in Stockfish, so a deep one holds up the commands after it; its depth limit
    /// is the command line's (`Engine::MAX_PERFT_DEPTH`), which a user can see in both.
    fn perft(&mut self, depth: &str) {
        let Some(depth) = depth.parse::<u32>().ok().filter(|d| (1..=Engine::MAX_PERFT_DEPTH).contains(d)) else {
            let most = Engine::MAX_PERFT_DEPTH;
            let message = format!("go perft needs a depth from 1 to {most}, got '{}'", excerpt(depth, QUOTE_LIMIT));
            return self.error(message);
        };
        let mut total = 0;
        for (mv, nodes) in self.engine.divide(depth) {
            self.out.send(format!("{mv}: {nodes}"));
            total += nodes;
        }
        self.out.send("");
        self.out.send(format!("Nodes searched: {total}"));
    }
}

impl Uci<'_> {
    /// OpenBench's `genfens N seed S book <None|FILE> [extra]`: N opening positions
    /// (see `openings`), each as `info string genfens <FEN>` as soon as it is found, verified
    /// with the engine's evaluation.
    fn genfens(&mut self, args: &str) {
        let (count, seed, book, settings) = match crate::openings::parse_genfens(args) {
            Ok(parsed) => parsed,
            Err(message) => return self.error(message),
        };
        let book = match book.map(|path| crate::openings::read_book(path.as_ref())).transpose() {
            Ok(book) => book,
            Err(message) => return self.error(format!("genfens: {message}")),
        };
        let mut generator = match crate::openings::Generator::new(book, settings, seed, self.engine.evaluation()) {
            Ok(generator) => generator,
            Err(message) => return self.error(format!("genfens: {message}")),
        };
        let out = &mut *self.out;
        let result = generator.generate(count, 1, |board| {
            out.send(format!("info string genfens {}", board.to_fen()));
            if out.closed() { Err("stdout is closed") } else { Ok(()) }
        });
        if let Err(e) = result {
            self.error(format!("genfens: {e}"));
        }
    }
}

impl Protocol for Uci<'_> {
    fn command(&mut self, line: &str) -> bool {
        let (command, args) = split_command(line);
        match command {
            "" => {}
            "uci" => self.identify(),
            "isready" => self.out.send("readyok"),
            "debug" | "register" => {}
            "ucinewgame" => {
                self.release_all();
                self.execute(EngineCommand::NewGame);
                self.bad_position = None;
            }
            "setoption" => {
                self.release_all();
                self.set_option(args);
            }
            "position" => {
                self.release_all();
                self.position(args);
            }
            "go" => {
                self.release_all();
                self.go(args);
            }
            "stop" => {
                self.execute(EngineCommand::Stop);
                self.release_all();
            }
            "ponderhit" => {
                self.execute(EngineCommand::PonderHit);
                self.release(true);
            }
            // Stockfish's commands for a person at the console.
            "d" => {
                for line in self.engine.describe() {
                    self.out.send(line);
                }
            }
            "eval" => {
                for line in self.engine.evaluations() {
                    self.out.send(line);
                }
            }
            "flip" => {
                self.release_all();
                self.execute(EngineCommand::Flip);
            }
            "bench" => {
                self.execute(EngineCommand::Stop);
                self.release_all();
                if let Err(message) = super::bench(&self.engine, args) {
                    self.error(message);
                }
            }
            "genfens" => {
                self.execute(EngineCommand::Stop);
                self.release_all();
                self.genfens(args);
            }
            "quit" => return false,
            _ => self.error(format!("unknown command: {}", excerpt(line.trim(), QUOTE_LIMIT))),
        }
        true
    }

    fn too_long(&mut self, start: &str) {
        let message = format!("ignored a line over {MAX_LINE} bytes: {start}");
        if start.starts_with("position") {
            self.refuse_position(message);
        } else {
            self.error(message);
        }
    }

    fn closing(&mut self) {
        self.release_all();
    }

    fn output(&self) -> &Output {
        self.out
    }

    fn report(&mut self, id: SearchId, report: Report) {
        let Some(index) = self.pending.iter().position(|p| p.id == id) else {
            return;
        };
        match report {
            Report::Info(info) => {
                let line = info_line(&self.engine, &info);
                let pending = &mut self.pending[index];
                if pending.hold && !info.pv.is_empty() {
                    let slot = info.multipv.saturating_sub(1);
                    if pending.last_infos.len() <= slot {
                        pending.last_infos.resize(slot + 1, String::new());
                    }
                    pending.last_infos[slot] = line.clone();
                }
                self.out.send(line);
            }
            Report::CurrMove { depth, mv, number } => self.out.send(currmove_line(&self.engine, depth, mv, number)),
            Report::BestMove { best, ponder } => {
                let line = best_move_line(&self.engine, best, ponder);
                if self.pending[index].hold {
                    self.pending[index].held = Some(line);
                } else {
                    self.pending.remove(index);
                    self.out.send(line);
                }
            }
        }
    }

    fn engine(&mut self) -> &mut Engine {
        &mut self.engine
    }

    fn awaiting(&self) -> bool {
        self.pending.iter().any(|pending| !pending.hold)
    }
}

const GO_KEYWORDS: [&str; 12] = [
    "searchmoves",
    "ponder",
    "wtime",
    "btime",
    "winc",
    "binc",
    "movestogo",
    "depth",
    "nodes",
    "mate",
    "movetime",
    "infinite",
];

/// Parses the arguments of `go` into limits, with a message for each argument it skipped or
/// changed. The GUI waits for a `bestmove` whatever it sent: a depth or node count of zero or
/// less searches the least there is (depth 1, one node), clocks below zero count as zero and
/// absurdly large numbers as the largest allowed, and a `go` whose arguments were all bad
/// searches depth 1 rather than until a `stop` that may never come.
fn parse_go(args: &str, engine: &Engine) -> (Limits, Vec<String>) {
    let mut limits = Limits::default();
    let mut errors = Vec::new();
    let (mut time, mut inc) = ([None, None], [None, None]);
    let mut moves_to_go = None;
    let mut words = args.split_whitespace().peekable();
    while let Some(word) = words.next() {
        match word {
            "infinite" => limits.infinite = true,
            "ponder" => limits.ponder = true,
            "searchmoves" => {
                while let Some(text) = words.next_if(|w| !GO_KEYWORDS.contains(w)) {
                    match engine.parse_move(text) {
                        Some(mv) => limits.searchmoves.push(mv),
                        None => {
                            errors.push(format!("go searchmoves: ignoring illegal move {}", excerpt(text, QUOTE_LIMIT)))
                        }
                    }
                }
            }
            keyword if GO_KEYWORDS.contains(&keyword) => {
                let Some(value) = words.next_if(|w| !GO_KEYWORDS.contains(w)) else {
                    errors.push(format!("go {keyword}: missing value"));
                    continue;
                };
                let Some(number) = parse_whole(value) else {
                    errors.push(format!(
                        "go {keyword}: '{}' is not a whole number, ignored",
                        excerpt(value, QUOTE_LIMIT)
                    ));
                    continue;
                };
                let ms = Duration::from_millis(number.clamp(0, Limits::MAX_TIME.as_millis() as i64) as u64);
                let at_least_one = number.max(1);
                if number < 1 && matches!(keyword, "depth" | "nodes") {
                    errors.push(format!("go {keyword} {number}: searching {keyword} 1"));
                }
                match keyword {
                    "wtime" => time[0] = Some(ms),
                    "btime" => time[1] = Some(ms),
                    "winc" => inc[0] = Some(ms),
                    "binc" => inc[1] = Some(ms),
                    "movestogo" => moves_to_go = (number > 0).then(|| number.min(u32::MAX as i64) as u32),
                    "movetime" => limits.movetime = Some(ms),
                    "mate" if number < 1 => errors.push(format!("go mate: must be positive, got {number}, ignored")),
                    "mate" => limits.mate = Some(number.min(i32::MAX as i64) as i32),
                    "depth" => limits.depth = Some(at_least_one.min(i32::MAX as i64) as i32),
                    _ => limits.nodes = Some(at_least_one as u64),
                }
            }
            other => errors.push(format!("go: unknown argument '{}', ignored", excerpt(other, QUOTE_LIMIT))),
        }
    }
    let us = match engine.board().side_to_move() {
        Color::White => 0,
        Color::Black => 1,
    };
    // Any clock field makes this a timed search. Without the side to move's time (a GUI that
    // sent only the other side's clock, or only increments) its clock counts as empty, as
    // Stockfish counts it: a move at once rather than a search that waits for a `stop` the
    // GUI will never send.
    let timed = time.iter().chain(&inc).any(Option::is_some) || moves_to_go.is_some();
    if timed {
        let remaining = time[us].unwrap_or_else(|| {
            let name = if us == 0 { "wtime" } else { "btime" };
            errors.push(format!("go: no {name} for the side to move, moving at once as if its clock were empty"));
            Duration::ZERO
        });
        limits.clock = Some(Clock { remaining, increment: inc[us].unwrap_or_default(), moves_to_go });
    }
    let unlimited = limits.depth.is_none()
        && limits.nodes.is_none()
        && limits.mate.is_none()
        && limits.movetime.is_none()
        && limits.clock.is_none()
        && !limits.infinite
        && !limits.ponder;
    if unlimited && !errors.is_empty() {
        errors.push("go: no usable limit, searching depth 1".to_string());
        limits.depth = Some(1);
    }
    (limits, errors)
}

/// The first author named in Cargo.toml, or the project's name when none is.
fn author() -> &'static str {
    let authors = env!("CARGO_PKG_AUTHORS");
    if authors.is_empty() { "the Sentinel developers" } else { authors.split(':').next().unwrap_or(authors) }
}

/// `info depth .. seldepth .. multipv .. score .. [wdl ..] [lowerbound|upperbound] nodes .. nps ..
/// hashfull .. tbhits .. time .. pv ..`. The win/draw/loss figures come straight after the score
/// and before its bound, as Stockfish writes them: En Croissant's parser reads a score as `cp`
/// or `mate`, then `wdl`, then the bound, and takes anything else after a bound for an unknown
/// field that runs to the end of the line, losing the variation.
pub fn info_line(engine: &Engine, info: &Info) -> String {
    let score = match info.score {
        Score::Centipawns(cp) => format!("cp {cp}"),
        Score::Mate(moves) => format!("mate {moves}"),
    };
    let bound = match info.bound {
        Bound::Exact => "",
        Bound::Lower => " lowerbound",
        Bound::Upper => " upperbound",
    };
    let wdl = if engine.settings().show_wdl {
        format!(" wdl {} {} {}", info.wdl[0], info.wdl[1], info.wdl[2])
    } else {
        String::new()
    };
    let mut line = format!(
        "info depth {} seldepth {} multipv {} score {score}{wdl}{bound} nodes {} nps {} hashfull {} tbhits {} time {}",
        info.depth,
        info.seldepth,
        info.multipv,
        info.nodes,
        info.nps(),
        info.hashfull,
        info.tb_hits,
        info.elapsed.as_millis()
    );
    if !info.pv.is_empty() {
        line.push_str(" pv");
        for &mv in &info.pv {
            line.push(' ');
            line.push_str(&engine.move_text(mv));
        }
    }
    line
}

/// `info depth D currmove M currmovenumber N`, as Stockfish sends it on long searches.
pub fn currmove_line(engine: &Engine, depth: i32, mv: Move, number: usize) -> String {
    format!("info depth {depth} currmove {} currmovenumber {number}", engine.move_text(mv))
}

/// `bestmove e2e4 [ponder e7e5]`, or `bestmove 0000` when there is no legal move.
pub fn best_move_line(engine: &Engine, best: Option<Move>, ponder: Option<Move>) -> String {
    match (best, ponder) {
        (Some(best), Some(ponder)) => {
            format!("bestmove {} ponder {}", engine.move_text(best), engine.move_text(ponder))
        }
        (Some(best), None) => format!("bestmove {}", engine.move_text(best)),
        (None, _) => "bestmove 0000".to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::ReportSink;
    use std::sync::Arc;

    fn engine() -> Engine {
        let sink: ReportSink = Arc::new(|_, _| {});
        Engine::new(sink)
    }

    #[test]
    fn go_clock_is_the_side_to_move() {
        let mut engine = engine();
        let (limits, errors) = parse_go("wtime 1000 btime 2000 winc 10 binc 20 movestogo 5", &engine);
        assert!(errors.is_empty());
        let clock = limits.clock.unwrap();
        assert_eq!((clock.remaining.as_millis(), clock.increment.as_millis(), clock.moves_to_go), (1000, 10, Some(5)));
        let e2e4 = engine.parse_move("e2e4").unwrap();
        engine.execute(EngineCommand::PlayMove(e2e4)).unwrap();
        let (limits, _) = parse_go("wtime 1000 btime -50 winc 10", &engine);
        let clock = limits.clock.unwrap();
        assert_eq!((clock.remaining.as_millis(), clock.increment.as_millis(), clock.moves_to_go), (0, 0, None));
    }

    #[test]
    fn go_arguments() {
        let engine = engine();
        let (limits, errors) = parse_go("searchmoves e2e4 d2d4 e2e5 depth 7 nodes 1000 mate 3 movetime 250", &engine);
        assert_eq!(errors.len(), 1, "{errors:?}");
        assert_eq!(limits.searchmoves.iter().map(|m| m.to_string()).collect::<Vec<_>>(), ["e2e4", "d2d4"]);
        assert_eq!((limits.depth, limits.nodes, limits.mate), (Some(7), Some(1000), Some(3)));
        assert_eq!(limits.movetime, Some(Duration::from_millis(250)));
        assert!(!limits.infinite && !limits.ponder && limits.clock.is_none());
        let (limits, errors) = parse_go("depth x infinite nodes ponder fly", &engine);
        assert_eq!(errors.len(), 3, "{errors:?}");
        assert!(limits.infinite && limits.ponder && limits.depth.is_none() && limits.nodes.is_none());
    }

    #[test]
    fn info_lines() {
        let e2e4 = engine().parse_move("e2e4").unwrap();
        let info = Info {
            multipv: 1,
            depth: 5,
            seldepth: 9,
            score: Score::Mate(-3),
            search_score: Score::Mate(-3),
            wdl: [0, 0, 1000],
            bound: Bound::Upper,
            nodes: 5000,
            elapsed: Duration::from_millis(500),
            hashfull: 12,
            tb_hits: 0,
            pv: vec![e2e4],
        };
        let engine = engine();
        assert_eq!(
            info_line(&engine, &info),
            "info depth 5 seldepth 9 multipv 1 score mate -3 upperbound nodes 5000 nps 10000 hashfull 12 tbhits 0 time 500 pv e2e4"
        );
        // With UCI_ShowWDL, the figures come between the score and its bound.
        let mut engine = engine;
        engine.execute(EngineCommand::set_option("UCI_ShowWDL", Some("true".to_string())).unwrap()).unwrap();
        assert_eq!(
            info_line(&engine, &info),
            "info depth 5 seldepth 9 multipv 1 score mate -3 wdl 0 0 1000 upperbound nodes 5000 nps 10000 hashfull 12 tbhits 0 time 500 pv e2e4"
        );
        assert_eq!(best_move_line(&engine, None, None), "bestmove 0000");
        assert_eq!(best_move_line(&engine, Some(e2e4), Some(e2e4)), "bestmove e2e4 ponder e2e4");
    }
}
