//! Protocol conformance: what a GUI or a tournament manager may send, in any order and at any
//! moment, and what it must get back, driven through the built binary's pipes. Each case that
//! once went wrong has its test here (its comment says what used to happen), beside the cases
//! that already behaved, so that they stay that way: partial, zero and tiny clocks, every `go`
//! form, `stop` and `ponderhit` in every state, finished positions, commands out of order, and
//! the XBoard feature line against the commands implemented. Searches are kept short (depth
//! limits, small times), so the suite takes seconds; the longest test is the one that must
//! search past the three seconds after which root moves are reported.

mod common;

use common::{Engine, TIMEOUT};
use std::time::{Duration, Instant};

/// White's legal moves in the start position.
const START_MOVES: &str =
    "a2a3 a2a4 b1a3 b1c3 b2b3 b2b4 c2c3 c2c4 d2d3 d2d4 e2e3 e2e4 f2f3 f2f4 g1f3 g1h3 g2g3 g2g4 h2h3 h2h4";

/// Black is mated.
const MATED: &str = "7k/6Q1/6K1/8/8/8/8/8 b - - 0 1";
/// Black is stalemated.
const STALEMATED: &str = "7k/5Q2/6K1/8/8/8/8/8 b - - 0 1";
/// White mates in two (1.Kb6 Kb8 2.Rh8#, among others), and not in one.
const MATE_IN_TWO: &str = "k7/8/2K5/8/8/8/8/7R w - - 0 1";

/// Reads up to the bestmove and returns the whole line.
fn best_move_line(engine: &mut Engine) -> String {
    engine.expect_prefix("bestmove")
}

/// Reads up to the bestmove and returns the move.
fn best_move(engine: &mut Engine) -> String {
    best_move_line(engine).split_whitespace().nth(1).unwrap_or_default().to_string()
}

/// Sends `isready` and returns the lines before `readyok`.
fn ready(engine: &mut Engine) -> Vec<String> {
    engine.send("isready");
    let mut lines = engine.expect_line("readyok");
    lines.pop();
    lines
}

/// Sends `ping` (XBoard) and returns the lines before the `pong`.
fn sync(engine: &mut Engine) -> Vec<String> {
    engine.send("ping 7");
    let mut lines = engine.expect_line("pong 7");
    lines.pop();
    lines
}

fn no_panic(engine: &Engine) {
    engine.check(!engine.stderr().contains("panicked"), "the engine panicked");
}

/// A field of an info line: the word after `name`.
fn field<'a>(line: &'a str, name: &str) -> Option<&'a str> {
    let words: Vec<&str> = line.split_whitespace().collect();
    words.iter().position(|w| *w == name).and_then(|i| words.get(i + 1).copied())
}

// --- Clocks -------------------------------------------------------------------------------

/// A clock that names only the side not to move (or only increments, or only moves to go) used
/// to leave the search running until `stop`. Now it is read as an empty clock for the side to
/// move, as Stockfish reads it, and the engine moves at once.
#[test]
fn a_partial_clock_still_gets_a_move() {
    let mut engine = Engine::uci();
    for (position, go) in [
        ("startpos", "go btime 1000 binc 100"),
        ("startpos", "go winc 100"),
        ("startpos", "go movestogo 10"),
        ("startpos", "go binc 100 movestogo 5"),
        ("startpos moves e2e4", "go wtime 1000 winc 100"),
    ] {
        engine.send(&format!("position {position}"));
        engine.send(go);
        let start = Instant::now();
        let lines = engine
            .expect_within(Duration::from_secs(3), &format!("a bestmove for '{go}'"), |l| l.starts_with("bestmove"));
        let mv = lines.last().and_then(|l| l.split_whitespace().nth(1)).unwrap_or_default();
        engine.check(mv.len() == 4 && start.elapsed() < Duration::from_secs(3), &format!("'{go}' moved at once"));
        engine.check(lines.iter().any(|l| l.starts_with("info string")), &format!("'{go}': the odd clock is named"));
    }
    no_panic(&engine);
}

/// Zero, tiny and one-sided-but-right clocks: a legal move at once, and a real clock is spent
/// within itself.
#[test]
fn zero_and_tiny_clocks_answer_at_once() {
    let mut engine = Engine::uci();
    engine.send("position startpos");
    for go in
        ["go wtime 0", "go wtime 0 btime 0 winc 0 binc 0", "go wtime 1 btime 1", "go wtime 20 winc 0", "go wtime 50"]
    {
        engine.send(go);
        let start = Instant::now();
        let mv = best_move(&mut engine);
        engine.check(
            START_MOVES.split(' ').any(|m| m == mv) && start.elapsed() < Duration::from_secs(2),
            &format!("'{go}' answered at once with a legal move"),
        );
    }
    // The side to move's clock alone is a whole clock: 1 s with 30 to go is spent in a blink.
    engine.send("go wtime 1000 movestogo 30");
    let start = Instant::now();
    best_move(&mut engine);
    engine.check(start.elapsed() < Duration::from_millis(900), "a clock is not overstepped");
    no_panic(&engine);
}

/// `go movetime` is the time the user asked for; `Move Overhead` is for clocks and used to cut
/// it short (250 ms with an overhead of 200 answered after 50 ms).
#[test]
fn movetime_is_not_shortened_by_the_move_overhead() {
    let mut engine = Engine::uci();
    engine.send("setoption name Move Overhead value 300");
    engine.send("position startpos");
    ready(&mut engine);
    engine.send("go movetime 500");
    let start = Instant::now();
    best_move(&mut engine);
    let took = start.elapsed();
    engine.check(took >= Duration::from_millis(480), &format!("movetime 500 answered after {took:?}"));
    engine.check(took < Duration::from_millis(2500), &format!("movetime 500 took {took:?}"));
}

// --- Every form of go -----------------------------------------------------------------------

/// Every `go` argument alone and in the combinations GUIs send, each answered once with a
/// legal move; `go infinite` and `go ponder` only after `stop` (or `ponderhit`).
#[test]
fn every_go_form_is_answered_once() {
    let mut engine = Engine::uci();
    engine.send("position startpos");
    for go in [
        "go depth 3",
        "go nodes 2000",
        "go movetime 50",
        "go mate 3 nodes 20000",
        "go wtime 2000 btime 2000",
        "go wtime 2000 btime 2000 winc 20 binc 20",
        "go wtime 2000 btime 2000 movestogo 3",
        "go depth 2 movetime 5000",
        "go nodes 1000 wtime 60000 btime 60000",
        "go searchmoves e2e4 d2d4 depth 3",
        "go depth 3 searchmoves a2a3",
    ] {
        engine.send(go);
        let line = best_move_line(&mut engine);
        let mv = line.split_whitespace().nth(1).unwrap_or_default();
        engine.check(START_MOVES.split(' ').any(|m| m == mv), &format!("'{go}' gave '{line}'"));
        if go.contains("searchmoves") {
            let allowed = go.split_whitespace().filter(|w| w.len() == 4 && w.as_bytes()[1].is_ascii_digit());
            engine.check(allowed.clone().any(|m| m == mv), &format!("'{go}' played outside searchmoves: {mv}"));
        }
        let extra = ready(&mut engine);
        engine.check(!extra.iter().any(|l| l.starts_with("bestmove")), &format!("'{go}': one bestmove"));
    }
    for go in ["go infinite", "go ponder wtime 1000 btime 1000", "go infinite searchmoves g1f3", "go"] {
        engine.send(go);
        let held = engine.lines_for(Duration::from_millis(300));
        engine.check(!held.iter().any(|l| l.starts_with("bestmove")), &format!("'{go}' waits for stop"));
        engine.send("stop");
        let mv = best_move(&mut engine);
        engine.check(START_MOVES.split(' ').any(|m| m == mv), &format!("'{go}' then stop: {mv}"));
        if go.contains("searchmoves") {
            engine.check(mv == "g1f3", "searchmoves holds for an infinite search");
        }
    }
    engine.send("go perft 2");
    engine.expect_line("Nodes searched: 400");
    no_panic(&engine);
}

/// `go mate 2147483647` overflowed `2 * n` once a mate was found (a panic in a debug build, and
/// in a release build a search that never stopped on it).
#[test]
fn go_mate_with_the_largest_number_stops_on_the_mate() {
    let mut engine = Engine::uci();
    engine.send(&format!("position fen {MATE_IN_TWO}"));
    engine.send("go mate 2147483647");
    let lines = engine.expect("a bestmove", |l| l.starts_with("bestmove"));
    engine.check(
        lines.iter().any(|l| l.contains("score mate 2")),
        "the mate in two is found and reported before the bestmove",
    );
    engine.send("go mate 99999999999999999999");
    let lines = engine.expect("a bestmove", |l| l.starts_with("bestmove"));
    engine.check(lines.iter().any(|l| l.contains("score mate 2")), "an absurdly large mate limit too");
    no_panic(&engine);
}

// --- stop and ponderhit in every state --------------------------------------------------------

/// `stop` and `ponderhit` idle, during a search, during pondering, after the ponder search has
/// ended by itself, and twice: each `go` gets exactly one bestmove, and nothing else answers.
#[test]
fn stop_and_ponderhit_in_every_state() {
    let mut engine = Engine::uci();
    let count = |lines: &[String]| lines.iter().filter(|l| l.starts_with("bestmove")).count();
    // Idle, before any search.
    for command in ["stop", "ponderhit", "stop", "ponderhit"] {
        engine.send(command);
    }
    let lines = ready(&mut engine);
    engine.check(lines.is_empty(), "stop and ponderhit with no search say nothing");
    engine.send("position startpos moves e2e4");
    // During a clock search: stop answers at once.
    engine.send("go wtime 60000 btime 60000");
    engine.send("stop");
    engine.send("stop");
    let mut lines = engine.expect("bestmove", |l| l.starts_with("bestmove"));
    lines.extend(ready(&mut engine));
    engine.check(count(&lines) == 1, "one bestmove after two stops");
    // During pondering: ponderhit turns the clock on, and the search moves by itself.
    engine.send("go ponder wtime 500 btime 500");
    ready(&mut engine);
    engine.send("ponderhit");
    engine.send("ponderhit");
    let start = Instant::now();
    let mut lines = engine.expect("bestmove", |l| l.starts_with("bestmove"));
    engine.check(start.elapsed() < Duration::from_secs(2), "after ponderhit the clock runs");
    lines.extend(ready(&mut engine));
    engine.check(count(&lines) == 1, "one bestmove after two ponderhits");
    // A ponder search that ends by itself (depth 2) holds its bestmove until ponderhit...
    engine.send("go ponder depth 2");
    let held = engine.lines_for(Duration::from_millis(300));
    engine.check(count(&held) == 0, "a finished ponder search holds its bestmove");
    engine.send("ponderhit");
    best_move(&mut engine);
    // ... or stop.
    engine.send("go ponder depth 2");
    engine.lines_for(Duration::from_millis(300));
    engine.send("stop");
    best_move(&mut engine);
    // After the bestmove, stop and ponderhit are late and change nothing.
    engine.send("stop");
    engine.send("ponderhit");
    let lines = ready(&mut engine);
    engine.check(count(&lines) == 0, "late stop and ponderhit say nothing");
    no_panic(&engine);
}

// --- Finished positions ------------------------------------------------------------------

/// A position without a legal move gets a score before `bestmove 0000`, as Stockfish gives it:
/// `score mate 0` when mated, `score cp 0` when stalemated.
#[test]
fn finished_positions_are_scored() {
    let mut engine = Engine::uci();
    for (fen, score) in [(MATED, "score mate 0"), (STALEMATED, "score cp 0")] {
        engine.send(&format!("position fen {fen}"));
        for go in ["go depth 3", "go wtime 1000 btime 1000", "go nodes 1"] {
            engine.send(go);
            let lines = engine.expect("bestmove", |l| l.starts_with("bestmove"));
            engine.check(lines.last().is_some_and(|l| l == "bestmove 0000"), "no move to play");
            let info = lines.iter().find(|l| l.starts_with("info depth"));
            engine.check(
                info.is_some_and(|l| field(l, "depth") == Some("0") && l.contains(score)),
                &format!("{fen} '{go}': an info line with depth 0 and '{score}'"),
            );
        }
        // Analysis of the final position waits for stop like any other.
        engine.send("go infinite");
        let lines = engine.lines_for(Duration::from_millis(300));
        engine.check(lines.iter().any(|l| l.contains(score)), "analysis shows the result");
        engine.check(!lines.iter().any(|l| l.starts_with("bestmove")), "and holds the bestmove");
        engine.send("stop");
        engine.expect_line("bestmove 0000");
    }
    // The command-line search shows it too.
    let (code, out, _) = common::run(&["search", MATED, "--depth", "2"]);
    assert_eq!(code, Some(0));
    assert!(out.contains("score mate 0") && out.contains("bestmove 0000"), "{out}");
}

/// XBoard: a move into mate or stalemate is claimed, and `go` in a finished game claims
/// instead of moving; analysis of a mate shows the side to move mated.
#[test]
fn xboard_finished_positions() {
    let mut engine = Engine::xboard();
    engine.send("new");
    engine.send("force");
    engine.send(&format!("setboard {MATED}"));
    engine.send("go");
    let claim = engine.expect_prefix("1-0");
    engine.check(claim.contains("White mates"), &claim);
    engine.send("post");
    engine.send("analyze");
    let line = engine.expect("a thinking line", |l| l.starts_with('0'));
    let score = line.last().and_then(|l| l.split_whitespace().nth(1)).unwrap_or_default().to_string();
    engine.check(score == "-100000", &format!("the side to move is mated: {score}"));
    engine.send("exit");
    sync(&mut engine);
}

// --- Commands out of order -----------------------------------------------------------------

/// Before `uci` (or `xboard`), a UCI command used to be dropped with a warning on stderr, so a
/// tool probing with `isready` hung. UCI is taken as meant, as Stockfish takes it, and `uci`
/// later still identifies the engine.
#[test]
fn uci_commands_before_uci_are_answered() {
    let mut engine = Engine::start();
    engine.send("isready");
    engine.expect_within(Duration::from_secs(3), "readyok before uci", |l| l == "readyok");
    engine.send("position startpos moves e2e4");
    engine.send("go depth 2");
    let mv = best_move(&mut engine);
    engine.check(mv.len() == 4 && mv.as_bytes()[1] >= b'5', &format!("a move for Black: {mv}"));
    engine.send("uci");
    engine.expect_line("uciok");
    // Every UCI command picks UCI when it comes first.
    for first in ["setoption name Hash value 2", "ucinewgame", "position startpos", "go depth 1", "stop", "d"] {
        let mut engine = Engine::start();
        engine.send(first);
        engine.send("isready");
        let lines = engine.expect_within(Duration::from_secs(5), "readyok", |l| l == "readyok");
        engine.check(!lines.iter().any(|l| l.contains("unknown")), &format!("'{first}' first is understood"));
    }
}

/// Other commands out of order: `go` before any `position` searches the start position,
/// `position` and `setoption` during a search end it with its bestmove, a second `uci`
/// identifies again, and unknown commands are reported without losing the position.
#[test]
fn uci_commands_out_of_order() {
    let mut engine = Engine::uci();
    engine.send("go depth 2");
    let mv = best_move(&mut engine);
    engine.check(START_MOVES.split(' ').any(|m| m == mv), "go before position: the start position");
    engine.send("position startpos moves e2e4");
    engine.send("go infinite");
    engine.send("position startpos moves d2d4");
    best_move(&mut engine);
    engine.send("go infinite");
    engine.send("setoption name Hash value 2");
    best_move(&mut engine);
    engine.send("uci");
    engine.expect_line("uciok");
    engine.send("flop");
    let error = engine.expect_prefix("info string");
    engine.check(error.contains("unknown command"), &error);
    engine.send("go depth 2");
    let mv = best_move(&mut engine);
    engine.check(mv.len() == 4 && mv.as_bytes()[1] >= b'5', "the position survived: a move for Black");
    engine.send("ucinewgame");
    engine.send("go depth 1");
    let mv = best_move(&mut engine);
    engine.check(START_MOVES.split(' ').any(|m| m == mv), "ucinewgame: the start position");
}

// --- What the engine shows ---------------------------------------------------------------------

/// On a long search a GUI shows which root move is being searched; Stockfish sends `info depth
/// D currmove M currmovenumber N` after 3 s, and so does Sentinel now (and not before).
#[test]
fn currmove_is_reported_after_three_seconds() {
    let mut engine = Engine::uci();
    engine.send("position startpos");
    ready(&mut engine);
    // An infinite search, stopped once a few root moves were reported: on a loaded machine one
    // root move can take the whole of a short fixed-time search past 3 s.
    engine.send("go infinite");
    let start = Instant::now();
    let mut first_currmove = None;
    let mut lines = Vec::new();
    while let Some(line) = engine.next_line(Duration::from_secs(30)) {
        if line.contains(" currmove ") {
            first_currmove.get_or_insert(start.elapsed());
            if lines.iter().filter(|l: &&String| l.contains(" currmove ")).count() == 3 {
                engine.send("stop");
            }
        }
        let done = line.starts_with("bestmove");
        lines.push(line);
        if done {
            break;
        }
    }
    let currmoves: Vec<&String> = lines.iter().filter(|l| l.contains(" currmove ")).collect();
    engine.check(currmoves.len() >= 3, "currmove lines in a long search");
    engine.check(first_currmove.is_some_and(|t| t >= Duration::from_millis(2900)), "none before 3 s");
    for line in currmoves {
        let words: Vec<&str> = line.split_whitespace().collect();
        let number: usize = field(line, "currmovenumber").and_then(|n| n.parse().ok()).unwrap_or(0);
        engine.check(
            words.len() == 7
                && words[..2] == ["info", "depth"]
                && words[3] == "currmove"
                && START_MOVES.split(' ').any(|m| m == words[4])
                && (1..=20).contains(&number),
            &format!("'{line}' is 'info depth D currmove M currmovenumber N'"),
        );
    }
}

/// `d` shows the board, FEN, key and checkers, `eval` the evaluation by the network and by the
/// hand-crafted evaluation, and `flip` mirrors the position; they used to be unknown commands.
#[test]
fn d_eval_and_flip() {
    let mut engine = Engine::uci();
    let fen = "r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - 2 3";
    engine.send(&format!("position fen {fen}"));
    engine.send("d");
    let shown = ready(&mut engine);
    engine.check(shown.iter().any(|l| l == &format!("Fen: {fen}")), "d shows the FEN");
    engine.check(shown.iter().any(|l| l.starts_with("Key: ") && l.len() == 21), "d shows a 16-digit key");
    engine.check(shown.iter().any(|l| l.trim_end() == "Checkers:"), "d shows no checkers");
    engine.check(shown.iter().any(|l| l.contains("| r |") && l.ends_with('8')), "d draws the board");
    engine.send("eval");
    let shown = ready(&mut engine);
    for what in ["Network evaluation", "Hand-crafted evaluation", "Final evaluation"] {
        engine.check(
            shown.iter().any(|l| l.starts_with(what) && l.contains("(white side)")),
            &format!("eval shows the {what}"),
        );
    }
    engine.send("flip");
    engine.send("d");
    let shown = ready(&mut engine);
    let flipped = "rnbqkb1r/pppp1ppp/5n2/4p3/4P3/2N5/PPPP1PPP/R1BQKBNR b KQkq - 2 3";
    engine.check(shown.iter().any(|l| l == &format!("Fen: {flipped}")), "flip mirrors the position");
    engine.send("go depth 1");
    let mv = best_move(&mut engine);
    engine.check(mv.as_bytes().get(1).is_some_and(|&r| r >= b'5'), "after flip Black moves");
    // In check: the checker is named, and there is no static evaluation.
    engine.send("position fen 4k3/8/8/8/8/8/4r3/4K3 w - - 0 1");
    engine.send("d");
    let shown = ready(&mut engine);
    engine.check(shown.iter().any(|l| l.trim_end() == "Checkers: e2"), "the rook on e2 checks");
    engine.send("eval");
    let shown = ready(&mut engine);
    engine.check(shown.iter().any(|l| l.contains("none (in check)")), "no evaluation in check");
}

/// A book move comes with an `info string` naming it, and a ponder move where the book has a
/// reply; `go depth N` (and nodes, mate) is a request to search, which the book no longer
/// overrides.
#[test]
fn book_moves_are_announced_with_a_ponder_move() {
    let book = common::write_book("conformance-book");
    let mut engine = Engine::uci();
    engine.send(&format!("setoption name BookFile value {}", book.display()));
    engine.expect_prefix("info string book");
    engine.send("setoption name OwnBook value true");
    engine.send("position startpos");
    engine.send("go wtime 10000 btime 10000");
    let lines = engine.expect("bestmove", |l| l.starts_with("bestmove"));
    engine.check(lines.iter().any(|l| l.starts_with("info string book move e2e4")), "the book move is named");
    engine.check(lines.last().is_some_and(|l| l == "bestmove e2e4 ponder e7e5"), "with the book's reply to ponder on");
    // The last book move has no reply in the book: no ponder move.
    engine.send("position startpos moves e2e4");
    engine.send("go movetime 1000");
    let line = best_move_line(&mut engine);
    engine.check(line == "bestmove e7e5", &format!("the book's reply alone: {line}"));
    for go in ["go depth 3", "go nodes 3000", "go mate 3 movetime 300"] {
        engine.send("position startpos");
        engine.send(go);
        let lines = engine.expect("bestmove", |l| l.starts_with("bestmove"));
        engine.check(lines.iter().any(|l| l.starts_with("info depth")), &format!("'{go}' searches in the book"));
    }
    let _ = std::fs::remove_file(&book);
}

/// GUIs send `UCI_AnalyseMode` whether it is offered or not; it is an option now, and while it
/// is on the book is left alone (analysis wants the engine's own view).
#[test]
fn uci_analyse_mode_is_an_option_that_turns_the_book_off() {
    let book = common::write_book("conformance-analyse-book");
    let mut engine = Engine::start();
    engine.send("uci");
    let lines = engine.expect_line("uciok");
    engine.check(
        lines.iter().any(|l| l == "option name UCI_AnalyseMode type check default false"),
        "UCI_AnalyseMode is offered",
    );
    engine.send(&format!("setoption name BookFile value {}", book.display()));
    engine.expect_prefix("info string book");
    engine.send("setoption name OwnBook value true");
    engine.send("setoption name UCI_AnalyseMode value true");
    let lines = ready(&mut engine);
    engine.check(lines.is_empty(), "UCI_AnalyseMode is accepted");
    engine.send("position startpos");
    engine.send("go wtime 1000 btime 1000");
    let lines = engine.expect("bestmove", |l| l.starts_with("bestmove"));
    engine.check(lines.iter().any(|l| l.starts_with("info depth")), "analysing: a search, no book move");
    engine.send("setoption name UCI_AnalyseMode value false");
    engine.send("go wtime 1000 btime 1000");
    let lines = engine.expect("bestmove", |l| l.starts_with("bestmove"));
    engine.check(lines.iter().any(|l| l.starts_with("info string book move")), "playing: the book again");
    let _ = std::fs::remove_file(&book);
}

// --- XBoard ------------------------------------------------------------------------------

/// Starts an XBoard session and returns it with the features it announced, as `name=value`
/// pairs.
fn xboard_with_features() -> (Engine, Vec<(String, String)>) {
    let mut engine = Engine::start();
    engine.send("xboard");
    engine.send("protover 2");
    let lines = engine.expect_line("feature done=1");
    let mut found = Vec::new();
    for line in lines.iter().filter(|l| l.starts_with("feature ")) {
        let mut rest = &line["feature ".len()..];
        while let Some((name, tail)) = rest.split_once('=') {
            let (value, tail) = match tail.strip_prefix('"') {
                Some(quoted) => quoted.split_once('"').unwrap_or((quoted, "")),
                None => tail.split_once(' ').unwrap_or((tail, "")),
            };
            found.push((name.trim().to_string(), value.to_string()));
            rest = tail.trim_start();
        }
    }
    (engine, found)
}

/// `playother` worked but was not announced, so WinBoard never sent it. Every command feature
/// announced as 1 is a command the engine carries out, and each one that is implemented is
/// announced.
#[test]
fn xboard_features_match_the_commands_implemented() {
    let (mut engine, announced) = xboard_with_features();
    let value = |name: &str| announced.iter().find(|(n, _)| n == name).map(|(_, v)| v.as_str());
    for name in ["ping", "setboard", "playother", "usermove", "time", "reuse", "analyze", "name", "memory", "smp"] {
        engine.check(value(name) == Some("1"), &format!("feature {name}=1 is announced"));
    }
    for name in ["exclude", "nps"] {
        engine.check(value(name) == Some("1"), &format!("feature {name}=1 is announced"));
    }
    // Announced as 0 because the engine wants them off: SIGINT would stop it, colors are
    // obsolete (the engine reads `go` and `playother`).
    engine.check(value("sigint") == Some("0") && value("colors") == Some("0"), "sigint=0 colors=0");
    engine.check(value("done") == Some("0"), "done=0 first, so the GUI waits for the options");
    engine.check(value("variants") == Some("normal,fischerandom"), "the variants played");
    // Each announced command works (no Error) where a GUI would send it.
    let egtpath = format!("egtpath syzygy {}/tests/syzygy", env!("CARGO_MANIFEST_DIR"));
    engine.send("new");
    engine.send("force");
    for command in [
        "setboard rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1",
        "usermove e7e5",
        "time 6000",
        "otim 6000",
        "name Somebody",
        "memory 2",
        "cores 1",
        "nps 0",
        "exclude all",
        "include all",
        egtpath.as_str(),
    ] {
        engine.send(command);
        let lines = sync(&mut engine);
        engine.check(!lines.iter().any(|l| l.starts_with("Error")), &format!("'{command}' is carried out"));
    }
    // playother: the engine takes the side not to move and waits; the opponent's move
    // makes it think.
    engine.send("sd 2");
    engine.send("playother");
    let lines = sync(&mut engine);
    engine.check(lines.is_empty(), "playother makes no move by itself");
    engine.send("usermove g1f3");
    let reply = engine.expect_prefix("move ");
    engine.check(reply.len() == 9, &format!("the engine plays Black: {reply}"));
    engine.send("quit");
    engine.wait_exit(TIMEOUT);
}

/// `memory` and `cores` beyond the option's range used to be refused, so the GUI's setting was
/// silently not applied; now they are clamped to the range, with a comment line saying so.
#[test]
fn xboard_memory_and_cores_are_clamped() {
    let mut engine = Engine::xboard();
    for (command, used) in [("memory 0", "1"), ("cores 0", "1"), ("cores -3", "1")] {
        engine.send(command);
        let lines = sync(&mut engine);
        engine.check(!lines.iter().any(|l| l.starts_with("Error")), &format!("'{command}' is applied"));
        engine.check(
            lines.iter().any(|l| l.starts_with('#') && l.ends_with(&format!("using {used}"))),
            &format!("'{command}': the clamp is told"),
        );
    }
    engine.send("memory lots");
    let lines = sync(&mut engine);
    engine.check(lines.iter().any(|l| l.starts_with("Error")), "a memory size that is no number is an error");
    engine.send("new");
    engine.send("sd 2");
    engine.send("usermove e2e4");
    engine.expect_prefix("move ");
}

/// A draw offer in a dead-drawn position (rook against rook) used to be declined while the
/// engine's scores hovered at 16 to 23 cp; a draw by material, or by the tablebases (king and
/// pawn against a king in front of it), is accepted.
#[test]
fn xboard_draw_offers_are_accepted_in_dead_draws() {
    let mut engine = Engine::xboard();
    // The engine plays White's move from `fen`, then is offered a draw: whether it agrees.
    let agrees_after_a_move = |engine: &mut Engine, fen: &str| {
        engine.send("new");
        engine.send("sd 4");
        engine.send("force");
        engine.send(&format!("setboard {fen}"));
        engine.send("go");
        engine.expect_prefix("move ");
        engine.send("draw");
        sync(engine).iter().any(|l| l == "offer draw")
    };
    let rook_against_rook = agrees_after_a_move(&mut engine, "8/8/3k4/8/8/3K4/r7/7R w - - 0 1");
    engine.check(rook_against_rook, "rook against rook: the draw is accepted");
    // A pawn up, which only the tables know to be a draw (`egtpath` lasts beyond `new`).
    engine.send(&format!("egtpath syzygy {}/tests/syzygy", env!("CARGO_MANIFEST_DIR")));
    let pawn_up = agrees_after_a_move(&mut engine, "8/8/8/8/8/4k3/4P3/4K3 w - - 0 1");
    engine.check(pawn_up, "a pawn up but drawn by the tables: accepted");
    let queen_up = agrees_after_a_move(&mut engine, "8/8/3k4/8/8/3K4/8/7Q w - - 0 1");
    engine.check(!queen_up, "a queen up: declined");
}

// --- The command line ------------------------------------------------------------------------

/// The command line takes a position with moves (`startpos moves e2e4`), says how many FEN
/// fields it takes, names the word it cannot use, and has one depth limit for perft and one for
/// searches wherever they are given.
#[test]
fn the_command_line_takes_moves_and_names_its_limits() {
    let (code, out, err) = common::run(&["search", "startpos", "moves", "e2e4", "--depth", "3"]);
    assert_eq!(code, Some(0), "{err}");
    let mv = out.lines().last().and_then(|l| l.split_whitespace().nth(1)).unwrap_or_default();
    assert!(mv.as_bytes().get(1).is_some_and(|&r| r >= b'5'), "a move for Black: {out}");
    let fen = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1";
    let (code, out, err) = common::run(&["perft", fen, "moves", "e2e4", "e7e5", "2"]);
    assert_eq!(code, Some(0), "{err}");
    assert!(out.contains("Nodes searched: 835"), "{out}");
    let (code, _, err) = common::run(&["search", "startpos", "moves", "e2e5", "--depth", "1"]);
    assert_eq!(code, Some(2));
    assert!(err.contains("e2e5"), "the bad move is named: {err}");
    // Too few FEN fields: the message gives the range accepted.
    let (code, _, err) = common::run(&["search", "8/8/8/8/8/8/8/8", "w", "-", "--depth", "1"]);
    assert_eq!(code, Some(2));
    assert!(err.contains("4 to 6 fields"), "{err}");
    // A word after the depth is named as such, not blamed on the depth.
    let (code, _, err) = common::run(&["perft", "startpos", "3", "extra"]);
    assert_eq!(code, Some(2));
    assert!(err.contains("'extra'") && !err.contains("depth must"), "{err}");
    // One perft limit (command line and `go perft`), one search depth limit (bench, search).
    let (_, _, err) = common::run(&["perft", "startpos", "21"]);
    assert!(err.contains("1 to 20"), "{err}");
    let mut engine = Engine::uci();
    engine.send("go perft 21");
    let error = engine.expect_prefix("info string");
    engine.check(error.contains("1 to 20"), &error);
    engine.send("bench 128");
    let error = engine.expect_prefix("info string");
    engine.check(error.contains("1 to 127"), &error);
    for args in [&["bench", "128"][..], &["search", "startpos", "--depth", "128"]] {
        let (code, _, err) = common::run(args);
        assert_eq!(code, Some(2));
        assert!(err.contains("1..=127") || err.contains("1 to 127"), "{args:?}: {err}");
    }
}
