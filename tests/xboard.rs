//! XBoard protocol 2, spoken to the built binary line by line as a GUI would.

mod common;

use common::{Engine, TIMEOUT};
use std::time::{Duration, Instant};

/// Black's legal moves after 1.e4.
const AFTER_E4: &str = "a7a5 a7a6 b7b5 b7b6 b8a6 b8c6 c7c5 c7c6 d7d5 d7d6 e7e5 e7e6 f7f5 f7f6 g7g5 g7g6 g8f6 g8h6 \
                        h7h5 h7h6";

/// White's legal moves in the start position.
const START: &str = "a2a3 a2a4 b2b3 b2b4 c2c3 c2c4 d2d3 d2d4 e2e3 e2e4 f2f3 f2f4 g2g3 g2g4 h2h3 h2h4 b1a3 b1c3 \
                     g1f3 g1h3";

fn is_one_of(mv: &str, list: &str) -> bool {
    list.split_whitespace().any(|m| m == mv)
}

/// Reads up to the engine's `move` and returns the move.
fn engine_move(engine: &mut Engine) -> String {
    engine.expect_prefix("move ").split_whitespace().nth(1).unwrap().to_string()
}

/// A new game whose searches stop at a shallow depth: most tests are about the protocol, not
/// the clock, and should not wait for a full-length think.
fn new_game(engine: &mut Engine) {
    engine.send("new");
    engine.send("sd 3");
}

/// Sends `ping`, reads up to the `pong` and returns the lines before it.
fn sync(engine: &mut Engine) -> Vec<String> {
    engine.send("ping 77");
    let mut lines = engine.expect_line("pong 77");
    lines.pop();
    lines
}

/// Sends `command` and checks it produced no output at all (no error, no move).
fn quietly(engine: &mut Engine, command: &str) {
    engine.send(command);
    let lines = sync(engine);
    engine.check(lines.is_empty(), &format!("'{command}' should be silent"));
}

/// Sends `command`, expecting exactly `answer` (e.g. an error) and nothing else.
fn answered(engine: &mut Engine, command: &str, answer: &str) {
    engine.send(command);
    let lines = sync(engine);
    engine.check(lines == [answer], &format!("'{command}' should give exactly '{answer}'"));
}

#[test]
fn handshake_declares_features_ending_with_done() {
    let mut engine = Engine::start();
    engine.send("xboard");
    engine.send("protover 2");
    let lines = engine.expect_line("feature done=1");
    let all = lines.join(" ");
    engine.check(!all.contains("sigterm"), "SIGTERM may end the engine: no sigterm=0");
    let name = format!("myname=\"Sentinel {}\"", env!("SENTINEL_VERSION"));
    for feature in [
        name.as_str(),
        "ping=1",
        "setboard=1",
        "usermove=1",
        "time=1",
        "sigint=0",
        "reuse=1",
        "analyze=1",
        "colors=0",
        "name=1",
        "memory=1",
        "smp=1",
        "exclude=1",
        "nps=1",
        "egt=\"syzygy\"",
        "variants=\"normal,fischerandom\"",
    ] {
        engine.check(all.contains(feature), &format!("feature {feature} missing"));
    }
    engine.check(lines.iter().all(|l| l.starts_with("feature ")), "only feature lines");
    answered(&mut engine, "ping 1", "pong 1");
    quietly(&mut engine, "accepted done");
}

#[test]
fn new_game_engine_answers_as_black() {
    let mut engine = Engine::xboard();
    engine.send("new");
    engine.send("level 40 5 0");
    engine.send("time 300");
    engine.send("otim 300");
    engine.send("usermove e2e4");
    let reply = engine_move(&mut engine);
    engine.check(is_one_of(&reply, AFTER_E4), &format!("{reply} is not a legal reply to 1.e4"));
    // The game goes on from there: White's next move is accepted and answered.
    engine.send("usermove d2d4");
    let reply = engine_move(&mut engine);
    engine.check(reply.len() >= 4, "a move");
}

#[test]
fn force_mode_makes_no_move_until_go() {
    let mut engine = Engine::xboard();
    new_game(&mut engine);
    engine.send("force");
    engine.send("usermove e2e4");
    engine.send("usermove e7e5");
    let lines = sync(&mut engine);
    engine.check(lines.is_empty(), "no output in force mode");
    let later = engine.lines_for(Duration::from_millis(300));
    engine.check(later.is_empty(), "no move in force mode");
    engine.send("go");
    let mv = engine_move(&mut engine);
    engine.check(&mv[1..2] == "1" || &mv[1..2] == "2", &format!("{mv} should be a White move"));
}

#[test]
fn setboard_then_go_plays_the_only_move() {
    let mut engine = Engine::xboard();
    new_game(&mut engine);
    engine.send("force");
    // White's king is in check from the rook on g1: it takes the rook or steps to h2.
    engine.send("setboard 6k1/8/8/8/8/8/8/6rK w - - 0 1");
    engine.send("go");
    let mv = engine_move(&mut engine);
    engine.check(mv == "h1g1" || mv == "h1h2", &format!("{mv} should be a king move"));
    let mut engine = Engine::xboard();
    new_game(&mut engine);
    engine.send("force");
    engine.send("setboard 4k3/8/8/8/8/8/8/r3K3 w - - 0 1");
    engine.send("go");
    let mv = engine_move(&mut engine);
    engine.check(mv == "e1d2" || mv == "e1e2" || mv == "e1f2", &format!("{mv} should get out of check"));
}

#[test]
fn undo_and_remove_take_moves_back() {
    let mut engine = Engine::xboard();
    new_game(&mut engine);
    engine.send("force");
    quietly(&mut engine, "usermove e2e4");
    quietly(&mut engine, "usermove e7e5");
    quietly(&mut engine, "undo");
    // Black to move again: a different reply is legal, and White's move is not.
    answered(&mut engine, "usermove d2d4", "Illegal move: d2d4");
    quietly(&mut engine, "usermove c7c5");
    quietly(&mut engine, "usermove g1f3");
    quietly(&mut engine, "remove");
    // Back to Black after 1.e4.
    quietly(&mut engine, "usermove e7e6");
    quietly(&mut engine, "remove");
    engine.send("undo");
    let lines = sync(&mut engine);
    engine.check(lines.len() == 1 && lines[0].starts_with("Error (") && lines[0].ends_with("): undo"), "undo at start");
    engine.send("go");
    let mv = engine_move(&mut engine);
    engine.check(is_one_of(&mv, START), &format!("{mv} is not a first move"));
}

#[test]
fn illegal_and_unparsable_moves_leave_the_game_alone() {
    let mut engine = Engine::xboard();
    new_game(&mut engine);
    answered(&mut engine, "usermove e2e5", "Illegal move: e2e5");
    answered(&mut engine, "usermove e7e5", "Illegal move: e7e5");
    answered(&mut engine, "usermove xyz", "Illegal move: xyz");
    answered(&mut engine, "usermove e2e4e6", "Illegal move: e2e4e6");
    answered(&mut engine, "e2e5", "Illegal move: e2e5");
    engine.send("usermove e2e4");
    let reply = engine_move(&mut engine);
    engine.check(is_one_of(&reply, AFTER_E4), "the game was disturbed");
}

/// python-chess writes the base time of `level` from the clock in whole seconds, so with less
/// than a second left in a session without increment it sends `level 15 0:00 0`, the clock
/// itself coming in `time`: that is no error, and the engine moves at once.
#[test]
fn a_level_without_base_time_takes_the_clock_from_time() {
    let mut engine = Engine::xboard();
    engine.send("new");
    engine.send("force");
    engine.send("usermove e2e4");
    quietly(&mut engine, "level 15 0:00 0");
    engine.send("time 80");
    engine.send("otim 900");
    engine.send("go");
    let mv = engine_move(&mut engine);
    engine.check(is_one_of(&mv, AFTER_E4), &format!("{mv} is not a legal reply to e4"));
}

#[test]
fn unknown_commands_and_bad_arguments_are_errors() {
    let mut engine = Engine::xboard();
    answered(&mut engine, "frobnicate", "Error (unknown command): frobnicate");
    answered(&mut engine, "fly me to the moon", "Error (unknown command): fly me to the moon");
    for command in [
        "sd deep",
        "sd 0",
        "st soon",
        "level 40",
        "level 40 5:99 0",
        "level x 5 0",
        "time lots",
        "memory much",
        "setboard 8/8/8 w - - 0 1",
        "option Contempt=5",
        "option Move Overhead=slow",
    ] {
        engine.send(command);
        let lines = sync(&mut engine);
        engine.check(
            lines.len() == 1 && lines[0].starts_with("Error (") && lines[0].ends_with(&format!("): {command}")),
            &format!("'{command}' should give one Error line"),
        );
    }
    let fen_error = {
        engine.send("setboard 8/8/8/8/8/8/8/8 w - - 0 1");
        sync(&mut engine)
    };
    engine.check(fen_error[0].contains("invalid FEN"), "the FEN error says why");
    // After all that, a normal game.
    new_game(&mut engine);
    engine.send("usermove e2e4");
    engine_move(&mut engine);
}

#[test]
fn quiet_commands_are_accepted() {
    let mut engine = Engine::xboard();
    for command in [
        "accepted ping",
        "rejected san",
        "new",
        "random",
        "computer",
        "name Fairy-Max",
        "rating 2000 2100",
        "variant normal",
        "post",
        "nopost",
        "easy",
        "hard",
        "easy",
        "memory 32",
        "cores 4",
        "option Move Overhead=50",
        "option Clear Hash",
        "level 0 2:30 1",
        "level 0 5 0.1",
        "level 40 5 0",
        "st 2",
        "sd 4",
        "time 1000",
        "otim 1000",
        "force",
        "result 1-0 {White resigns}",
    ] {
        quietly(&mut engine, command);
    }
}

#[test]
fn fixed_time_per_move_is_respected() {
    let mut engine = Engine::xboard();
    engine.send("new");
    engine.send("st 1");
    let start = Instant::now();
    engine.send("usermove e2e4");
    engine_move(&mut engine);
    let elapsed = start.elapsed();
    engine.check(elapsed < Duration::from_millis(1000 + 300), &format!("move after {elapsed:?}"));
}

#[test]
fn clock_is_respected() {
    let mut engine = Engine::xboard();
    engine.send("new");
    engine.send("level 0 0:02 0");
    engine.send("time 100");
    engine.send("otim 200");
    let start = Instant::now();
    engine.send("usermove e2e4");
    engine_move(&mut engine);
    let elapsed = start.elapsed();
    engine.check(elapsed < Duration::from_millis(1000), &format!("move after {elapsed:?} with 1 s left"));
}

/// Whether a thinking line is `ply score time nodes pv`: four numbers, then moves from the
/// fifth field on, as ChessX reads it (whitespace-separated, the fifth field the first move).
fn pv_is_fifth(line: &str) -> bool {
    let fields: Vec<&str> = line.split_whitespace().collect();
    fields.len() >= 5
        && fields[..4].iter().all(|f| f.parse::<i64>().is_ok())
        && fields[4..].iter().all(|f| looks_like_move(f))
        && !line.contains('\t')
}

/// A coordinate move's shape (`e2e4`, `e7e8q`).
fn looks_like_move(word: &str) -> bool {
    let b = word.as_bytes();
    let square = |f: u8, r: u8| (b'a'..=b'h').contains(&f) && (b'1'..=b'8').contains(&r);
    matches!(b.len(), 4 | 5) && square(b[0], b[1]) && square(b[2], b[3]) && (b.len() == 4 || b"nbrq".contains(&b[4]))
}

#[test]
fn depth_limit_and_thinking_output() {
    let mut engine = Engine::xboard();
    engine.send("new");
    engine.send("sd 2");
    engine.send("post");
    engine.send("usermove e2e4");
    let lines = engine.expect("move", |l| l.starts_with("move "));
    let thinking: Vec<&String> = lines.iter().filter(|l| !l.starts_with("move ")).collect();
    engine.check(!thinking.is_empty(), "post shows thinking");
    for line in thinking {
        engine.check(pv_is_fifth(line), &format!("'{line}' should be ply score time nodes pv"));
        let depth: i32 = line.split_whitespace().next().unwrap().parse().unwrap();
        engine.check((1..=2).contains(&depth), &format!("'{line}' is deeper than sd 2"));
    }
    // Thinking Extras: seldepth, nps and tbhits before a tab, for XBoard and WinBoard.
    quietly(&mut engine, "option Thinking Extras=1");
    engine.send("usermove d2d4");
    let lines = engine.expect("move", |l| l.starts_with("move "));
    let thinking: Vec<&String> = lines.iter().filter(|l| !l.starts_with("move ")).collect();
    engine.check(!thinking.is_empty(), "post shows thinking");
    for line in thinking {
        let (numbers, pv) = line.split_once('\t').unwrap_or((line, ""));
        let numbers: Vec<&str> = numbers.split_whitespace().collect();
        let well_formed = numbers.len() == 7 && numbers.iter().all(|n| n.parse::<i64>().is_ok());
        engine.check(well_formed && pv.split(' ').all(looks_like_move), &format!("'{line}': 7 numbers, tab, pv"));
    }
    // nopost: no more thinking lines.
    quietly(&mut engine, "option Thinking Extras=0");
    engine.send("nopost");
    engine.send("usermove g1f3");
    let lines = engine.expect("move", |l| l.starts_with("move "));
    engine.check(lines.len() == 1, "nopost hides thinking");
}

/// GNOME Chess 43's whole traffic, as logged from the GUI: no `protover`, no time control,
/// the engine's difficulty as options, and every move of the user as `force`, the move, `go`.
/// Without a clock each reply takes about a second, not the twenty a guessed clock gave.
#[test]
fn gnome_chess_gets_a_move_in_about_a_second_without_a_clock() {
    for (engine_plays, user_moves) in [("black", ["e2e4", "b1c3"]), ("white", ["", ""])] {
        let mut engine = Engine::start();
        for line in ["xboard", "random", "hard"] {
            engine.send(line);
        }
        let mut replies = Vec::new();
        for user_move in user_moves {
            if !user_move.is_empty() {
                engine.send("force");
                engine.send(user_move);
            } else if let Some(reply) = replies.last() {
                // Playing White, the engine answers the user's move by itself; GNOME Chess
                // still sends `force`, the move and `go` in this order.
                engine.send("force");
                engine.send(if reply == "e2e4" { "e7e5" } else { "e7e6" });
            }
            let start = Instant::now();
            engine.send("go");
            let reply = engine_move(&mut engine);
            let elapsed = start.elapsed();
            engine.check(
                elapsed < Duration::from_millis(3000),
                &format!("{engine_plays}: move after {elapsed:?} without a clock"),
            );
            replies.push(reply);
        }
        engine.check(
            engine_plays == "white" || is_one_of(&replies[0], AFTER_E4),
            &format!("{} is not a reply to 1.e4", replies[0]),
        );
        engine.check(engine.stderr().is_empty(), "nothing on stderr");
    }
}

/// ChessX 1.4's traffic when it analyses with an XBoard engine, as logged from the GUI: it
/// rejects every feature but setboard, analyze and done, then asks for thinking with `post`
/// and a move (`st 3` in the log, 1 here, then `go`); newer versions send `analyze` instead. It reads the thinking lines' fields split at whitespace, the fifth
/// the first move of the variation: every line must have a move there.
#[test]
fn chessx_reads_a_move_in_the_fifth_field_of_every_thinking_line() {
    let mut engine = Engine::start();
    engine.send("xboard");
    engine.send("protover 2");
    let features = engine.expect_line("feature done=1");
    for line in &features {
        for word in line.split_whitespace().skip(1).filter(|w| w.contains('=')) {
            let name = word.split('=').next().unwrap();
            let answer = if ["setboard", "analyze", "done"].contains(&name) { "accepted" } else { "rejected" };
            engine.send(&format!("{answer} {name}"));
        }
    }
    let fen = "r1bqkb1r/pppp1ppp/2n2n2/4p2Q/2B1P3/8/PPPP1PPP/RNB1K1NR w KQkq - 4 4";
    engine.send(&format!("setboard {fen}"));
    engine.send("post");
    engine.send("st 1");
    engine.send("go");
    let lines = engine.expect("move", |l| l.starts_with("move "));
    engine.check(lines.last().is_some_and(|l| l == "move h5f7"), "Qxf7 mates");
    engine.expect_line("1-0 {White mates}");
    let thinking: Vec<&String> = lines.iter().filter(|l| !l.starts_with("move ")).collect();
    engine.check(!thinking.is_empty(), "post shows thinking");
    for line in thinking {
        engine.check(pv_is_fifth(line), &format!("'{line}' should have the variation from the fifth field on"));
        engine.check(line.split_whitespace().nth(4) == Some("h5f7"), &format!("'{line}' should start with Qxf7#"));
    }
    // Analysis, as newer ChessX versions ask for it.
    engine.send("setboard rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1");
    engine.send("post");
    engine.send("analyze");
    let lines = engine.expect("a thinking line at depth 6", |l| l.starts_with("6 "));
    engine.send("exit");
    for line in &lines {
        engine.check(pv_is_fifth(line), &format!("'{line}' should have the variation from the fifth field on"));
    }
    engine.check(engine.stderr().is_empty(), "nothing on stderr");
}

#[test]
fn ping_is_answered_in_order() {
    let mut engine = Engine::xboard();
    new_game(&mut engine);
    engine.send("usermove e2e4");
    engine.send("ping 5");
    // The move was asked for before the ping, so it comes first.
    let lines = engine.expect_line("pong 5");
    engine.check(lines.iter().any(|l| l.starts_with("move ")), "the move comes before the pong");
}

/// Sets up a position where `mover` finishes the game, and checks the claim.
fn claim_after_user_move(fen: &str, mover: &str, claim: &str) {
    let mut engine = Engine::xboard();
    new_game(&mut engine);
    engine.send(&format!("setboard {fen}"));
    engine.send(&format!("usermove {mover}"));
    let lines = sync(&mut engine);
    engine.check(lines == [claim], &format!("expected exactly the claim '{claim}'"));
}

#[test]
fn claims_mate_by_the_user() {
    claim_after_user_move("6k1/5ppp/8/8/8/8/8/R5K1 w - - 0 1", "a1a8", "1-0 {White mates}");
}

#[test]
fn claims_stalemate() {
    claim_after_user_move("7k/8/6Q1/8/8/8/8/K7 w - - 0 1", "g6f7", "1/2-1/2 {Stalemate}");
}

#[test]
fn claims_fifty_move_rule() {
    claim_after_user_move("7k/8/8/8/8/8/R7/K7 w - - 99 80", "a2b2", "1/2-1/2 {50 move rule}");
}

#[test]
fn claims_insufficient_material() {
    claim_after_user_move("8/B7/8/8/8/8/5n2/4K2k w - - 0 1", "e1f2", "1/2-1/2 {Insufficient material}");
}

#[test]
fn claims_threefold_repetition() {
    let mut engine = Engine::xboard();
    new_game(&mut engine);
    engine.send("force");
    for mv in ["g1f3", "g8f6", "f3g1", "f6g8", "g1f3", "g8f6", "f3g1"] {
        engine.send(&format!("usermove {mv}"));
    }
    // The engine takes White; Black repeats the start position a third time.
    engine.send("playother");
    engine.send("usermove f6g8");
    let lines = sync(&mut engine);
    engine.check(lines == ["1/2-1/2 {3-fold repetition}"], "expected the repetition claim");
}

#[test]
fn claims_mate_by_its_own_forced_move() {
    let mut engine = Engine::xboard();
    new_game(&mut engine);
    engine.send("force");
    // Black's only legal move, Qxd1, mates.
    engine.send("setboard 8/8/8/8/3q3N/8/6q1/2KRkBQ1 b - - 0 1");
    engine.send("go");
    engine.expect_line("move d4d1");
    let claim = engine.next_line(TIMEOUT);
    engine.check(claim.as_deref() == Some("0-1 {Black mates}"), "the mate is claimed after the move");
}

#[test]
fn go_in_a_finished_game_claims_instead_of_moving() {
    let mut engine = Engine::xboard();
    new_game(&mut engine);
    engine.send("force");
    engine.send("setboard R5k1/5ppp/8/8/8/8/8/6K1 b - - 0 1");
    engine.send("go");
    let lines = sync(&mut engine);
    engine.check(lines == ["1-0 {White mates}"], "a mated engine claims the loss");
}

#[test]
fn analyze_mode_thinks_without_moving() {
    let mut engine = Engine::xboard();
    new_game(&mut engine);
    engine.send("force");
    engine.send("post");
    engine.send("analyze");
    engine.send("usermove e2e4");
    engine.send(".");
    let status = engine.expect_prefix("stat01: ");
    engine.check(status.split_whitespace().count() >= 6, "stat01: time nodes ply mvleft mvtot");
    engine.send("undo");
    engine.send("exit");
    let lines = sync(&mut engine);
    engine.check(!lines.iter().any(|l| l.starts_with("move ")), "no move in analyze mode");
    // Out of analysis, in force mode, with 1.e4 taken back: White to move.
    engine.send("go");
    let mv = engine_move(&mut engine);
    engine.check(is_one_of(&mv, START), &format!("{mv} should be a first move (the undo took 1.e4 back)"));
}

/// Analysis with `exclude`/`include` and the N-best option: the excluded move never heads a
/// line; with MultiPV 2 two lines per depth.
#[test]
fn analysis_excludes_moves_and_shows_several_lines() {
    let first_moves = |lines: &[String]| -> Vec<String> {
        lines.iter().filter_map(|l| l.split_whitespace().nth(4).map(String::from)).collect()
    };
    let mut engine = Engine::xboard();
    new_game(&mut engine);
    engine.send("force");
    engine.send("setboard 6k1/5ppp/8/8/8/8/5PPP/3R2K1 w - - 0 1");
    engine.send("exclude d1d8");
    engine.send("analyze");
    let lines = engine.lines_for(std::time::Duration::from_millis(400));
    engine.send("exit");
    sync(&mut engine);
    let firsts = first_moves(&lines);
    engine.check(!firsts.is_empty() && !firsts.iter().any(|m| m == "d1d8"), &format!("{firsts:?}"));
    engine.send("include all");
    engine.send("option MultiPV=2");
    engine.send("analyze");
    let lines = engine.lines_for(std::time::Duration::from_millis(400));
    engine.send("exit");
    sync(&mut engine);
    let depth_two: Vec<String> = lines.iter().filter(|l| l.starts_with("2 ")).cloned().collect();
    engine.check(depth_two.len() == 2, &format!("two lines at depth 2: {depth_two:?}"));
    engine.check(first_moves(&depth_two).contains(&"d1d8".to_string()), "the mate is back");
}

/// `bk` lists the book's moves (SAN and share, each line starting with a space, then an empty
/// line); with OwnBook on the engine plays the book move.
#[test]
fn book_moves_are_listed_and_played() {
    // One entry: the start position's Polyglot key with 1.e4 (see the format specification).
    let mut bytes = 0x463b_9618_1691_fc9c_u64.to_be_bytes().to_vec();
    bytes.extend_from_slice(&(4u16 | 3 << 3 | 4 << 6 | 1 << 9).to_be_bytes());
    bytes.extend_from_slice(&[0, 1, 0, 0, 0, 0]);
    let path = std::env::temp_dir().join(format!("sentinel-{}-xboard-book.bin", std::process::id()));
    std::fs::write(&path, bytes).unwrap();
    let mut engine = Engine::xboard();
    new_game(&mut engine);
    engine.send(&format!("option BookFile={}", path.display()));
    engine.send("bk");
    let lines = sync(&mut engine);
    engine.check(lines.iter().any(|l| l == " e4 100%"), &format!("{lines:?}"));
    engine.check(lines.last().is_some_and(|l| l.is_empty()), "bk ends with an empty line");
    engine.send("option OwnBook=1");
    engine.send("force");
    engine.send("go");
    let mv = engine_move(&mut engine);
    engine.check(mv == "e2e4", &format!("the book move, got {mv}"));
    let _ = std::fs::remove_file(&path);
}

/// `hint` gives the reply our search expects; a draw offer is declined in a won position and
/// accepted in a dead-drawn one; `nps 1` with `st N` (python-chess's node limit) searches N
/// nodes, until `new`.
#[test]
fn hint_draw_offers_and_node_clocks() {
    let mut engine = Engine::xboard();
    new_game(&mut engine);
    engine.send("usermove e2e4");
    let reply = engine_move(&mut engine);
    engine.send("hint");
    let hint = engine.expect_prefix("Hint: ");
    let hinted = hint.split_whitespace().nth(1).unwrap_or_default().to_string();
    engine.check(hinted.len() == 4 && hinted != reply, &format!("a move for White: {hint}"));

    // A queen up and asked for a draw: declined (nothing said). A knight each: dead drawn by
    // the engine's own scores, so the offer is accepted.
    for (fen, accepted) in [("4k3/8/8/8/8/8/3Q4/4K3 b - - 0 1", false), ("4k3/8/8/3n4/8/3N4/8/4K3 b - - 0 1", true)] {
        engine.send("new");
        engine.send("sd 3");
        engine.send(&format!("setboard {fen}"));
        // Black's king walks e8-e7 and back; the engine answers each step as White.
        for mv in ["e8e7", "e7e8", "e8e7", "e7e8", "e8e7"] {
            engine.send("force");
            engine.send(&format!("usermove {mv}"));
            engine.send("go");
            engine_move(&mut engine);
        }
        engine.send("draw");
        let lines = sync(&mut engine);
        let agreed = lines.iter().any(|l| l == "offer draw");
        engine.check(agreed == accepted, &format!("{fen}: draw agreed {agreed}, expected {accepted}"));
    }

    // nps 1 + st 500: a search of 500 nodes.
    engine.send("new");
    engine.send("post");
    engine.send("nps 1");
    engine.send("st 500");
    engine.send("usermove e2e4");
    let lines = engine.expect("move", |l| l.starts_with("move "));
    let nodes: Vec<u64> =
        lines.iter().filter_map(|l| l.split_whitespace().nth(3).and_then(|n| n.parse().ok())).collect();
    engine.check(!nodes.is_empty() && nodes.iter().all(|&n| n <= 520), &format!("500 nodes: {nodes:?}"));

    // `new` measures time by the wall clock again: `st 1` is a second, not one node.
    engine.send("new");
    engine.send("post");
    engine.send("st 1");
    engine.send("usermove e2e4");
    let lines = engine.expect("move", |l| l.starts_with("move "));
    let nodes = lines.iter().filter_map(|l| l.split_whitespace().nth(3).and_then(|n| n.parse::<u64>().ok())).max();
    engine.check(nodes.is_some_and(|n| n > 10_000), &format!("a second's search: {nodes:?} nodes"));
}

/// `variant fischerandom`: Chess960 positions and castling written O-O / O-O-O both ways.
#[test]
fn fischer_random_castles_as_o_o() {
    let mut engine = Engine::xboard();
    new_game(&mut engine);
    engine.send("variant fischerandom");
    engine.send("force");
    // Shredder-FEN: White's king on f1 and rook on g1; castling leaves them on g1 and f1.
    engine.send("setboard bqnbrkrn/pppppppp/8/8/8/8/PPPPPPPP/BQNBRKRN w GEge - 0 1");
    quietly(&mut engine, "usermove O-O");
    // Black castles queen side in an X-FEN position; a castling that is not legal is refused.
    engine.send("setboard r3k3/8/8/8/8/8/8/R3K2R b KQq - 0 1");
    quietly(&mut engine, "usermove O-O-O");
    answered(&mut engine, "usermove O-O-O", "Illegal move: O-O-O");
    // In the variant, the engine writes its own castling as O-O or O-O-O.
    engine.send("new");
    engine.send("variant fischerandom");
    engine.send("force");
    engine.send("setboard 6k1/8/8/8/8/8/5PPP/4K2R w K - 0 1");
    engine.send("sd 1");
    engine.send("exclude all");
    engine.send("include O-O");
    engine.send("analyze");
    let lines = engine.lines_for(std::time::Duration::from_millis(300));
    engine.send("exit");
    sync(&mut engine);
    let pv_heads: Vec<&str> = lines.iter().filter_map(|l| l.split_whitespace().nth(4)).collect();
    engine.check(!pv_heads.is_empty() && pv_heads.iter().all(|m| *m == "O-O"), &format!("{pv_heads:?}"));
}

#[test]
fn pondering_hit_and_miss() {
    let mut engine = Engine::xboard();
    engine.send("new");
    engine.send("hard");
    engine.send("level 0 1 0");
    engine.send("time 6000");
    engine.send("otim 6000");
    engine.send("usermove e2e4");
    engine_move(&mut engine);
    // While pondering the engine says which reply it expects.
    engine.send("hint");
    let expected = engine.expect_prefix("Hint: ").split_whitespace().nth(1).unwrap().to_string();
    engine.send("time 6000");
    engine.send("otim 5900");
    engine.send(&format!("usermove {expected}"));
    let reply = engine_move(&mut engine);
    engine.check(reply.len() >= 4, "a move after the ponder hit");
    // A move other than the expected one is played normally.
    engine.send("hint");
    let expected = engine.expect_prefix("Hint: ").split_whitespace().nth(1).unwrap().to_string();
    let mut answered = false;
    for other in ["d2d4", "d2d3", "c2c3", "h2h3"].into_iter().filter(|m| *m != expected) {
        engine.send(&format!("usermove {other}"));
        let lines = engine.expect("move", |l| l.starts_with("move ") || l.starts_with("Illegal"));
        if lines.last().unwrap().starts_with("move ") {
            answered = true;
            break;
        }
    }
    engine.check(answered, "a move other than the expected one is answered");
    // easy stops pondering, and force/new discard it: the game state is the real one.
    engine.send("easy");
    engine.send("force");
    let lines = sync(&mut engine);
    engine.check(lines.is_empty(), "nothing after easy/force");
    engine.send("new");
    engine.send("usermove e2e4");
    let reply = engine_move(&mut engine);
    engine.check(is_one_of(&reply, AFTER_E4), "new discards the pondered move");
}

#[test]
fn quit_and_closed_stdin_end_the_process() {
    let mut engine = Engine::xboard();
    engine.send("analyze");
    engine.send("quit");
    let status = engine.wait_exit(TIMEOUT);
    engine.check(status.success(), "quit exits with status 0");

    let mut engine = Engine::xboard();
    new_game(&mut engine);
    engine.send("force");
    engine.send("analyze");
    engine.close_stdin();
    engine.wait_exit(TIMEOUT);
}

/// The strength options are offered, and every Skill Level (and some Elos) answers a move
/// with a legal reply.
#[test]
fn every_level_plays_legal_moves() {
    let mut engine = Engine::start();
    engine.send("xboard");
    engine.send("protover 2");
    let features = engine.expect_line("feature done=1").join("\n");
    for option in [
        "feature option=\"UCI_LimitStrength -check 0\"",
        "feature option=\"UCI_Elo -spin 800 800 ",
        "feature option=\"Skill Level -spin 20 0 20\"",
        "feature option=\"Skill Seed -spin 0 0 2147483647\"",
    ] {
        engine.check(features.contains(option), &format!("{option} missing"));
    }
    let mut levels: Vec<String> = (0..=20).map(|n| format!("option Skill Level={n}")).collect();
    levels.extend(["800", "1400", "2200", "2499"].map(|elo| format!("option UCI_Elo={elo}")));
    for level in levels {
        new_game(&mut engine);
        let limit = if level.contains("UCI_Elo") { 1 } else { 0 };
        quietly(&mut engine, &format!("option UCI_LimitStrength={limit}"));
        quietly(&mut engine, &level);
        quietly(&mut engine, "option Skill Seed=5");
        engine.send("usermove e2e4");
        let reply = engine_move(&mut engine);
        engine.check(is_one_of(&reply, AFTER_E4), &format!("{level}: {reply} is not a legal reply to 1.e4"));
    }
}

/// The evaluation options work through XBoard too: `Use NNUE` switches to the hand-crafted
/// evaluation and back, and an `EvalFile` that cannot be used is an error that changes nothing.
#[test]
fn evaluation_options_switch_the_evaluation() {
    let mut engine = Engine::xboard();
    // The score of a depth-1 search of a position where the evaluations disagree.
    let score = |engine: &mut Engine| {
        engine.send("force");
        engine.send("setboard r1bq1rk1/ppp2ppp/2np1n2/2b1p3/2B1P3/2NP1N2/PPP2PPP/R1BQ1RK1 w - - 0 7");
        engine.send("sd 1");
        engine.send("post");
        engine.send("go");
        let lines = engine.expect("move", |l| l.starts_with("move "));
        let thinking = lines.iter().find(|l| l.starts_with("1 ")).cloned().unwrap_or_default();
        thinking.split_whitespace().nth(1).unwrap_or("none").to_string()
    };
    let network = score(&mut engine);
    quietly(&mut engine, "option Use NNUE=0");
    let hand_crafted = score(&mut engine);
    engine.check(network != hand_crafted, &format!("both evaluations say {network}"));
    quietly(&mut engine, "option Use NNUE=1");
    let back = score(&mut engine);
    engine.check(back == network, &format!("the network is back: {back}, not {network}"));

    let missing = format!("option EvalFile={}/no-such-file.nnue", env!("CARGO_MANIFEST_DIR"));
    engine.send(&missing);
    let lines = sync(&mut engine);
    engine.check(
        lines.len() == 1 && lines[0].starts_with("Error (") && lines[0].contains("cannot use the network"),
        &format!("'{missing}' should give one Error line, not {lines:?}"),
    );
    let after = score(&mut engine);
    engine.check(after == network, &format!("a bad file changes nothing: {after}, not {network}"));
}
