//! A GUI that misbehaves: bytes that are not UTF-8, absurd numbers, commands at the wrong
//! moment, a GUI that quits or stops reading mid-search. Whatever arrives, the engine answers
//! every `go` with one `bestmove` (UCI) or moves (XBoard), never hangs, and never panics.

mod common;

use common::{Engine, TIMEOUT};
use std::io::{Read, Write};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// Reads up to the bestmove and returns the move.
fn best_move(engine: &mut Engine) -> String {
    let line = engine.expect_prefix("bestmove ");
    line.split_whitespace().nth(1).unwrap().to_string()
}

/// Sends `isready` and returns the lines before `readyok`.
fn ready(engine: &mut Engine) -> Vec<String> {
    engine.send("isready");
    let mut lines = engine.expect_line("readyok");
    lines.pop();
    lines
}

/// Checks that the engine has not reported a panic on stderr.
fn no_panic(engine: &Engine) {
    let stderr = engine.stderr();
    engine.check(!stderr.contains("panicked"), "the engine panicked");
}

/// Sends `ping` and returns the lines before the `pong`.
fn sync(engine: &mut Engine) -> Vec<String> {
    engine.send("ping 9");
    let mut lines = engine.expect_line("pong 9");
    lines.pop();
    lines
}

fn field(line: &str, name: &str) -> Option<u64> {
    let mut words = line.split_whitespace();
    words.find(|w| *w == name)?;
    words.next()?.parse().ok()
}

/// An old XBoard GUI sends the opponent's name in Latin-1, which is not UTF-8.
#[test]
fn xboard_latin1_name_is_read_and_play_goes_on() {
    let mut engine = Engine::xboard();
    engine.send("new");
    engine.send("st 1");
    engine.send_bytes(b"name J\xfcrgen\n");
    engine.send("sd 2");
    engine.send("usermove e2e4");
    engine.expect_prefix("move ");
    engine.check(engine.stderr_shows("not UTF-8", Duration::from_secs(5)), "the bad byte is logged");
    no_panic(&engine);
}

#[test]
fn uci_line_that_is_not_utf8_is_reported_and_the_engine_carries_on() {
    let mut engine = Engine::uci();
    engine.send_bytes(b"hello \xff\xfe world\n");
    let line = engine.expect_prefix("info string");
    engine.check(line.contains("unknown command: hello"), "reported as an unknown command");
    engine.send_bytes(b"position startpos moves e2e4 \xe97e5\n");
    engine.expect_prefix("info string");
    engine.send("position startpos moves e2e4");
    engine.send("go depth 1");
    best_move(&mut engine);
    no_panic(&engine);
}

/// Errors quote only the start of what they complain about, and a line over the limit is
/// dropped without being kept.
#[test]
fn huge_lines_give_short_errors() {
    let mut engine = Engine::uci();
    let long = format!("{}\n", "x".repeat(1_000_000));
    engine.send_bytes(long.as_bytes());
    let line = engine.expect_prefix("info string");
    engine.check(line.len() < 300, "the error quotes a short prefix");
    let too_long = format!("position startpos moves {}\n", "e2e4 ".repeat(300_000));
    engine.send_bytes(too_long.as_bytes());
    let line = engine.expect_prefix("info string");
    engine.check(line.contains("over") && line.len() < 600, "an over-long line is refused briefly");
    engine.send("go depth 1");
    engine.expect_line("bestmove 0000");
    let mut engine = Engine::xboard();
    engine.send_bytes(long.as_bytes());
    let line = engine.expect_prefix("Error");
    engine.check(line.len() < 300, "XBoard's error quotes a short prefix too");
    no_panic(&engine);
}

/// After a refused `position` there is no position the GUI means: `go` says so and answers
/// `bestmove 0000` at once, until a good `position` (or `ucinewgame`) comes.
#[test]
fn go_after_a_refused_position_answers_null_move() {
    let mut engine = Engine::uci();
    engine.send("position startpos moves e2e4");
    for bad in ["position startpos moves e2e4 e2e4", "position fen 8/8/8 w - -", "position sideways"] {
        engine.send(bad);
        let error = engine.expect_prefix("info string");
        engine.check(error.contains("no position to search"), "the refusal says what follows");
        engine.send("go depth 3");
        let lines = engine.expect("bestmove", |l| l.starts_with("bestmove"));
        engine.check(lines.last().unwrap() == "bestmove 0000", "no move for a position the GUI did not mean");
        engine.check(lines.iter().any(|l| l.starts_with("info string not searching")), "and says why");
    }
    engine.send("position startpos moves e2e4");
    engine.send("go depth 2");
    let mv = best_move(&mut engine);
    engine.check(mv != "0000" && mv.chars().nth(1).is_some_and(|r| r >= '5'), "a black move again");
    engine.send("position fen 8/8/8 w - -");
    engine.expect_prefix("info string");
    engine.send("ucinewgame");
    engine.send("go depth 1");
    let mv = best_move(&mut engine);
    engine.check(mv != "0000", "ucinewgame sets up the start position");
}

/// `go` with limits that mean nothing still gets a legal move at once.
#[test]
fn degenerate_go_commands_answer_at_once() {
    let mut engine = Engine::uci();
    engine.send("position startpos");
    for go in [
        "go depth 0",
        "go nodes 0",
        "go depth",
        "go depth -4",
        "go nodes",
        "go mate 0",
        "go movetime 0",
        "go movetime -100",
        "go wtime 0 btime 0",
        "go wtime -1000 btime -1000 winc -5 binc -5",
        "go wtime 1 btime 1 movestogo 0",
        "go wtime abc",
        "go sideways",
    ] {
        engine.send(go);
        let start = Instant::now();
        let mv = best_move(&mut engine);
        engine.check(mv.len() == 4 && start.elapsed() < Duration::from_secs(2), &format!("'{go}' answered at once"));
    }
    // Absurd clocks: the engine thinks a normal while and answers when stopped.
    for go in ["go wtime 99999999999999999999 btime 1", "go movetime 99999999999999999999", "go wtime 1 winc 1e300"] {
        engine.send(go);
        engine.send("stop");
        best_move(&mut engine);
    }
    no_panic(&engine);
}

#[test]
fn go_perft_divides_like_stockfish() {
    let mut engine = Engine::uci();
    engine.send("position startpos moves e2e4");
    engine.send("go perft 3");
    let lines = engine.expect_prefix("Nodes searched");
    engine.check(lines == "Nodes searched: 13160", "perft 3 after 1.e4");
    engine.send("go perft 99");
    engine.expect_prefix("info string go perft");
    ready(&mut engine);
}

/// A node limit counts every thread's nodes.
#[test]
fn node_limit_counts_all_threads() {
    let mut engine = Engine::uci();
    engine.send("setoption name Threads value 2");
    engine.send("position startpos");
    engine.send("go nodes 30000");
    let lines = engine.expect("bestmove", |l| l.starts_with("bestmove"));
    let most = lines.iter().filter_map(|l| field(l, "nodes")).max().unwrap_or(0);
    engine.check(most <= 30000 + 4096, &format!("{most} nodes reported for a 30000-node search"));
}

/// Pondering time counts in the reports: after `ponderhit` the times go on rising from the
/// search's start (the clock restarts for the time limit only).
#[test]
fn info_times_run_on_through_ponderhit() {
    let mut engine = Engine::uci();
    engine.send("position startpos moves e2e4");
    // A clock long enough that iterations still complete, and report, after the ponder hit.
    engine.send("go ponder wtime 30000 btime 30000");
    // Once `readyok` is back the search has begun (on a loaded machine the engine may not even
    // have read `go` 400 ms after it was sent).
    let pondering = ready(&mut engine);
    std::thread::sleep(Duration::from_millis(400));
    engine.send("ponderhit");
    let lines = engine.expect("bestmove", |l| l.starts_with("bestmove"));
    let times: Vec<u64> = pondering.iter().chain(&lines).filter_map(|l| field(l, "time")).collect();
    engine.check(times.windows(2).all(|w| w[0] <= w[1]), "times never go back");
    engine.check(times.last().is_some_and(|&t| t >= 400), "the last time includes the pondering");
}

/// Every `go` gets exactly one `bestmove`, however the commands interleave.
#[test]
fn commands_during_a_search_each_end_it_with_one_bestmove() {
    let mut engine = Engine::uci();
    for interrupt in ["go depth 1", "position startpos moves d2d4", "setoption name Hash value 2", "ucinewgame"] {
        engine.send("position startpos");
        engine.send("go infinite");
        engine.send(interrupt);
        let expected = if interrupt.starts_with("go") { 2 } else { 1 };
        let mut lines = ready(&mut engine);
        let count = |lines: &[String]| lines.iter().filter(|l| l.starts_with("bestmove")).count();
        if expected == 1 {
            engine.check(count(&lines) == 1, "the ended search's bestmove comes before readyok");
        }
        while count(&lines) < expected {
            lines.extend(engine.expect("bestmove", |l| l.starts_with("bestmove")));
        }
        lines.extend(engine.lines_for(Duration::from_millis(200)));
        engine.check(count(&lines) == expected, &format!("'{interrupt}': one bestmove for each go"));
    }
    engine.send("go depth 2");
    let mv = best_move(&mut engine);
    engine.check(mv.len() == 4, "a new search after all that");
    no_panic(&engine);
}

#[test]
fn stop_and_ponderhit_without_a_search_do_nothing() {
    let mut engine = Engine::uci();
    engine.send("stop");
    engine.send("ponderhit");
    engine.send("stop");
    let lines = ready(&mut engine);
    engine.check(lines.is_empty(), "nothing to answer");
    // ponderhit on a normal search changes nothing either.
    engine.send("position startpos");
    engine.send("go depth 2");
    engine.send("ponderhit");
    best_move(&mut engine);
    let lines = ready(&mut engine);
    engine.check(!lines.iter().any(|l| l.starts_with("bestmove")), "a single bestmove");
}

#[test]
fn isready_is_answered_at_once_while_searching() {
    let mut engine = Engine::uci();
    engine.send("setoption name Threads value 2");
    engine.send("go infinite");
    std::thread::sleep(Duration::from_millis(100));
    let start = Instant::now();
    ready(&mut engine);
    engine.check(start.elapsed() < Duration::from_millis(500), "readyok while searching");
    engine.send("stop");
    best_move(&mut engine);
}

/// `stop` then `quit` (or the end of input) before the bestmove is out: it is still printed,
/// and the engine exits well within a second, quietly.
#[test]
fn quit_and_end_of_input_during_a_search() {
    for (threads, close) in [(1, false), (2, false), (1, true), (2, true)] {
        let mut engine = Engine::uci();
        engine.send(&format!("setoption name Threads value {threads}"));
        engine.send("go infinite");
        std::thread::sleep(Duration::from_millis(200));
        engine.send("stop");
        let start = Instant::now();
        if close {
            engine.close_stdin();
        } else {
            engine.send("quit");
        }
        best_move(&mut engine);
        let status = engine.wait_exit(TIMEOUT);
        engine.check(start.elapsed() < Duration::from_millis(900), "exits at once");
        engine.check(status.success(), "exit status 0");
        no_panic(&engine);
    }
    // `go infinite` then quit: the bestmove is owed too.
    let mut engine = Engine::uci();
    engine.send("go infinite");
    engine.send("quit");
    best_move(&mut engine);
    engine.wait_exit(TIMEOUT);
}

/// The GUI closes our stdout (it died, or a pipe was cut): the engine ends quietly at its next
/// line instead of thinking on for nobody.
#[test]
fn closed_stdout_ends_the_engine_quietly() {
    for protocol in ["uci", "xboard"] {
        let mut child = Command::new(env!("CARGO_BIN_EXE_sentinel"))
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        drop(child.stdout.take());
        let mut stdin = child.stdin.take().unwrap();
        let go = if protocol == "uci" { "go infinite" } else { "analyze" };
        writeln!(stdin, "{protocol}\n{go}").unwrap();
        let deadline = Instant::now() + TIMEOUT;
        while child.try_wait().unwrap().is_none() {
            assert!(Instant::now() < deadline, "{protocol}: the engine goes on after its stdout closed");
            std::thread::sleep(Duration::from_millis(10));
        }
        let mut stderr = String::new();
        child.stderr.take().unwrap().read_to_string(&mut stderr).unwrap();
        assert!(!stderr.contains("panicked") && !stderr.contains("Broken pipe"), "{protocol}: {stderr}");
    }
}

/// The command-line tools end quietly when their reader goes (`sentinel perft ... | head`).
#[test]
fn command_line_output_to_a_closed_pipe_ends_quietly() {
    for args in [&["perft", "startpos", "5"][..], &["bench", "4"]] {
        let mut child = Command::new(env!("CARGO_BIN_EXE_sentinel"))
            .args(args)
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let mut first = [0; 8];
        child.stdout.as_mut().unwrap().read_exact(&mut first).unwrap();
        drop(child.stdout.take());
        let output = child.wait_with_output().unwrap();
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(!stderr.contains("panicked") && !stderr.contains("Broken pipe"), "{args:?}: {stderr}");
    }
}

#[test]
fn xboard_absurd_times_are_taken_without_panic() {
    let mut engine = Engine::xboard();
    engine.send("new");
    for command in
        ["st 1e300", "st 99999999999999999999", "level 0 1 1e300", "level 0 99999999:00 0", "level 40 1e300 1e300"]
    {
        engine.send(command);
        let answer = sync(&mut engine);
        engine.check(answer.is_empty(), &format!("'{command}' is accepted"));
    }
    for command in ["time -500", "otim -500", "time 99999999999999999999", "otim 99999999999999999999", "time 0"] {
        engine.send(command);
        let answer = sync(&mut engine);
        engine.check(answer.is_empty(), &format!("'{command}' is accepted"));
    }
    engine.send("st nan");
    engine.expect_prefix("Error");
    // With the clock at zero the engine still moves, at once.
    engine.send("level 0 1 0");
    engine.send("time 0");
    engine.send("usermove e2e4");
    engine.expect_prefix("move ");
    // With a clock beyond belief it thinks until told to move now.
    engine.send("time 99999999999999999999");
    engine.send("level 0 99999999:00 1e300");
    engine.send("usermove d2d4");
    let early = engine.lines_for(Duration::from_millis(300));
    engine.check(early.is_empty(), "thinking");
    engine.send("?");
    engine.expect_prefix("move ");
    no_panic(&engine);
}

#[test]
fn xboard_commands_at_odd_moments() {
    let mut engine = Engine::xboard();
    // `?`, `force` and take-backs with nothing to stop or take back.
    engine.send("new");
    engine.send("?");
    let answer = sync(&mut engine);
    engine.check(answer.is_empty(), "'?' with no search is ignored");
    engine.send("undo");
    engine.expect_prefix("Error (cannot take back 1");
    engine.send("remove");
    engine.expect_prefix("Error (cannot take back 2");
    engine.send("force");
    engine.send("force");
    engine.send("e2e4");
    engine.send("remove");
    engine.expect_prefix("Error (cannot take back 2");
    engine.send("undo");
    engine.send("undo");
    engine.expect_prefix("Error (cannot take back 1");
    // `new` while thinking: the old search's move never comes.
    engine.send("new");
    engine.send("st 5");
    engine.send("usermove e2e4");
    std::thread::sleep(Duration::from_millis(100));
    engine.send("new");
    engine.send("force");
    let lines = sync(&mut engine);
    engine.check(!lines.iter().any(|l| l.starts_with("move")), "no move from the abandoned search");
    // `ping` while thinking is answered after the move.
    engine.send("new");
    engine.send("sd 3");
    engine.send("usermove e2e4");
    engine.send("ping 5");
    let lines = engine.expect_line("pong 5");
    engine.check(lines.iter().any(|l| l.starts_with("move ")), "pong after the move");
    no_panic(&engine);
}
