//! UCI, spoken to the built binary line by line as a GUI would.

mod common;

use common::{Engine, TIMEOUT};
use std::time::{Duration, Instant};

/// White's legal moves after 1.e4 e5.
const AFTER_E4_E5: &str = "a2a3 a2a4 b1a3 b1c3 b2b3 b2b4 c2c3 c2c4 d1e2 d1f3 d1g4 d1h5 d2d3 d2d4 e1e2 f1a6 f1b5 \
                           f1c4 f1d3 f1e2 f2f3 f2f4 g1e2 g1f3 g1h3 g2g3 g2g4 h2h3 h2h4";

/// Black's legal moves after 1.e4.
const AFTER_E4: &str = "a7a5 a7a6 b7b5 b7b6 b8a6 b8c6 c7c5 c7c6 d7d5 d7d6 e7e5 e7e6 f7f5 f7f6 g7g5 g7g6 g8f6 g8h6 \
                        h7h5 h7h6";

/// Reads up to the bestmove and returns the move.
fn best_move(engine: &mut Engine) -> String {
    let line = engine.expect_prefix("bestmove ");
    line.split_whitespace().nth(1).unwrap().to_string()
}

/// Sends `isready` and returns everything up to `readyok`, failing on any `info string`.
fn ready_without_errors(engine: &mut Engine) {
    engine.send("isready");
    let lines = engine.expect_line("readyok");
    engine.check(!lines.iter().any(|l| l.starts_with("info string")), "unexpected error report");
}

/// Sends a command that must be reported as an error, then checks the engine still answers.
fn expect_error(engine: &mut Engine, command: &str, text: &str) {
    engine.send(command);
    let line = engine.expect_prefix("info string");
    engine.check(line.contains(text), &format!("'{line}' should mention '{text}'"));
    engine.send("isready");
    engine.expect_line("readyok");
}

#[test]
fn handshake_lists_identity_options_then_uciok() {
    let mut engine = Engine::start();
    engine.send("uci");
    #[allow(unused_mut)]
    let mut lines = engine.expect_line("uciok");
    // A tuning build lists the search's constants after the table, each a spin in its range.
    #[cfg(feature = "spsa")]
    {
        let table_end = lines.iter().position(|l| l.starts_with("option name UCI_Chess960 ")).unwrap() + 1;
        let tunables: Vec<String> = lines.drain(table_end..lines.len() - 1).collect();
        engine.check(tunables.len() > 40, "a tuning build lists its tunables");
        for line in &tunables {
            let words: Vec<&str> = line.split_whitespace().collect();
            let numbers: Vec<i64> = [6, 8, 10].iter().filter_map(|&i| words.get(i)?.parse().ok()).collect();
            let well_formed = words.len() == 11
                && words[2].chars().all(|c| c.is_ascii_lowercase() || c == '_')
                && words[3..5] == ["type", "spin"]
                && numbers.len() == 3
                && numbers[1] <= numbers[0]
                && numbers[0] <= numbers[2];
            engine.check(well_formed, &format!("'{line}' is not a tunable's spin"));
        }
    }
    let expected = [
        format!("id name Sentinel {}", env!("SENTINEL_VERSION")),
        "id author ".to_string(),
        "option name Hash type spin default 16 min 1 max ".to_string(),
        "option name Threads type spin default 1 min 1 max ".to_string(),
        "option name Move Overhead type spin default ".to_string(),
        "option name Clear Hash type button".to_string(),
        "option name Ponder type check default false".to_string(),
        "option name MultiPV type spin default 1 min 1 max 256".to_string(),
        "option name SyzygyPath type string default <empty>".to_string(),
        "option name SyzygyProbeDepth type spin default 1 min 1 max 100".to_string(),
        "option name Syzygy50MoveRule type check default true".to_string(),
        "option name SyzygyProbeLimit type spin default 7 min 0 max 7".to_string(),
        "option name OwnBook type check default false".to_string(),
        "option name BookFile type string default <empty>".to_string(),
        "option name BookDepth type spin default 255 min 1 max 1000".to_string(),
        "option name Use NNUE type check default true".to_string(),
        "option name EvalFile type string default <empty>".to_string(),
        "option name UCI_ShowWDL type check default false".to_string(),
        "option name UCI_AnalyseMode type check default false".to_string(),
        "option name UCI_LimitStrength type check default false".to_string(),
        "option name UCI_Elo type spin default 800 min 800 max ".to_string(),
        "option name Skill Level type spin default 20 min 0 max 20".to_string(),
        "option name Skill Seed type spin default 0 min 0 max 2147483647".to_string(),
        "option name UCI_Chess960 type check default false".to_string(),
        "uciok".to_string(),
    ];
    engine.check(lines.len() == expected.len(), "handshake has the wrong number of lines");
    for (line, start) in lines.iter().zip(&expected) {
        engine.check(line.starts_with(start.as_str()), &format!("'{line}' should start with '{start}'"));
        // An empty default is `<empty>`, as Stockfish writes it: nothing after `default`
        // leaves a space at the end of the line, which clients comparing lines trip on.
        if line.contains(" type string default ") {
            engine.check(line == start, &format!("'{line}' should have the default '<empty>'"));
        }
        engine.check(line.trim_end() == line, &format!("'{line}' ends with a space"));
    }
    engine.send("isready");
    engine.expect_line("readyok");
}

/// A tuning build takes its constants as options, in range only, and searches with them.
#[cfg(feature = "spsa")]
#[test]
fn a_tuning_build_sets_its_constants_as_options() {
    let mut engine = Engine::uci();
    engine.send("setoption name lmr_divisor value 180");
    engine.send("setoption name FUTILITY_BASE value 120");
    ready_without_errors(&mut engine);
    expect_error(&mut engine, "setoption name lmr_divisor value 1000", "lmr_divisor must be a whole number from");
    expect_error(&mut engine, "setoption name lmr_divisor value x", "lmr_divisor must be a whole number from");
    engine.send("position startpos moves e2e4 e7e5");
    engine.send("go depth 6");
    let best = best_move(&mut engine);
    engine.check(AFTER_E4_E5.split_whitespace().any(|m| m == best), &format!("{best} is not legal after 1.e4 e5"));
}

#[test]
fn search_after_moves_gives_a_legal_move_the_engine_accepts() {
    let mut engine = Engine::uci();
    engine.send("ucinewgame");
    engine.send("position startpos moves e2e4 e7e5");
    engine.send("go depth 3");
    let lines = engine.expect("bestmove", |l| l.starts_with("bestmove "));
    for info in lines.iter().filter(|l| l.starts_with("info ")) {
        for field in ["depth", "score", "nodes", "time"] {
            engine.check(info.split_whitespace().any(|w| w == field), &format!("info line lacks {field}"));
        }
    }
    let best = lines.last().unwrap().split_whitespace().nth(1).unwrap().to_string();
    engine.check(AFTER_E4_E5.split_whitespace().any(|m| m == best), &format!("{best} is not legal after 1.e4 e5"));
    engine.send(&format!("position startpos moves e2e4 e7e5 {best}"));
    ready_without_errors(&mut engine);
}

#[test]
fn movetime_is_respected() {
    let mut engine = Engine::uci();
    engine.send("position startpos");
    let start = Instant::now();
    engine.send("go movetime 300");
    best_move(&mut engine);
    let elapsed = start.elapsed();
    engine.check(elapsed < Duration::from_millis(300 + 250), &format!("bestmove after {elapsed:?}"));
}

#[test]
fn clock_search_answers() {
    let mut engine = Engine::uci();
    engine.send("position startpos moves e2e4");
    engine.send("go wtime 1000 btime 1000 winc 10 binc 10 movestogo 20");
    let best = best_move(&mut engine);
    engine.check(AFTER_E4.split_whitespace().any(|m| m == best), "not a legal move for Black");
}

#[test]
fn infinite_search_waits_for_stop_and_answers_isready_meanwhile() {
    let mut engine = Engine::uci();
    engine.send("position startpos");
    engine.send("go infinite");
    let early = engine.lines_for(Duration::from_millis(300));
    engine.check(!early.iter().any(|l| l.starts_with("bestmove")), "bestmove before stop");
    engine.send("isready");
    engine.expect_within(Duration::from_millis(500), "readyok during the search", |l| l == "readyok");
    let start = Instant::now();
    engine.send("stop");
    best_move(&mut engine);
    engine.check(start.elapsed() < Duration::from_millis(500), "slow to answer stop");
    // The next search works as usual.
    engine.send("go depth 1");
    best_move(&mut engine);
}

#[test]
fn ponder_holds_bestmove_until_ponderhit_or_stop() {
    let mut engine = Engine::uci();
    engine.send("position startpos moves e2e4 e7e5");
    engine.send("go ponder wtime 10000 btime 10000");
    let early = engine.lines_for(Duration::from_millis(300));
    engine.check(!early.iter().any(|l| l.starts_with("bestmove")), "bestmove while pondering");
    engine.send("ponderhit");
    let best = best_move(&mut engine);
    engine.check(AFTER_E4_E5.split_whitespace().any(|m| m == best), "not a legal move");

    engine.send("position startpos moves e2e4 e7e5");
    engine.send("go ponder movetime 100");
    let early = engine.lines_for(Duration::from_millis(300));
    engine.check(!early.iter().any(|l| l.starts_with("bestmove")), "bestmove while pondering");
    engine.send("stop");
    best_move(&mut engine);
}

#[test]
fn no_legal_move_gives_null_bestmove() {
    let mut engine = Engine::uci();
    engine.send("position fen 6k1/5ppp/8/8/8/8/8/R5K1 w - - 0 1 moves a1a8");
    engine.send("go depth 2");
    let best = best_move(&mut engine);
    engine.check(best == "0000", "a mated side has no move");
}

#[test]
fn errors_are_reported_and_the_engine_carries_on() {
    let mut engine = Engine::uci();
    expect_error(&mut engine, "position fen 8/8/8 w - - 0 1", "invalid FEN");
    expect_error(&mut engine, "position fen rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR x KQkq - 0 1", "side to move");
    expect_error(&mut engine, "position sideways", "position");
    expect_error(&mut engine, "position startpos moves e2e4 e2e4", "e2e4");
    expect_error(&mut engine, "position startpos moves e2e4 zz99", "zz99");
    expect_error(&mut engine, "turn the board", "unknown command");
    expect_error(&mut engine, "setoption name Contempt value 20", "unknown option");
    expect_error(&mut engine, "setoption name Hash value lots", "Hash");
    expect_error(&mut engine, "setoption name Hash value 0", "Hash");
    expect_error(&mut engine, "setoption name Threads value 100000", "Threads");
    expect_error(&mut engine, "setoption Hash 16", "setoption");

    // A bad `go` argument is reported, the rest of the command still applies, and the GUI
    // gets its bestmove.
    engine.send("position startpos");
    engine.send("go depth many movetime 200");
    engine.expect_prefix("info string");
    best_move(&mut engine);
}

#[test]
fn bad_position_leaves_no_position_to_search() {
    let mut engine = Engine::uci();
    engine.send("position startpos moves e2e4");
    ready_without_errors(&mut engine);
    expect_error(&mut engine, "position startpos moves e2e4 e7e5 e1e3", "e1e3");
    expect_error(&mut engine, "position fen not/a/fen w - - 0 1", "invalid FEN");
    // Not the position after 1.e4, nor after 1.e4 e5: the GUI meant neither.
    engine.send("go depth 2");
    let best = best_move(&mut engine);
    engine.check(best == "0000", "no move for a refused position");
    engine.send("position startpos moves e2e4");
    engine.send("go depth 2");
    let best = best_move(&mut engine);
    engine.check(AFTER_E4.split_whitespace().any(|m| m == best), &format!("{best} is not a reply to 1.e4"));
}

#[test]
fn options_are_accepted() {
    let mut engine = Engine::uci();
    for command in [
        "setoption name Hash value 1",
        "setoption name hash value 32",
        "setoption name Threads value 1",
        "setoption name Move Overhead value 50",
        "setoption name Clear Hash",
        "setoption name Ponder value true",
        "debug off",
    ] {
        engine.send(command);
    }
    ready_without_errors(&mut engine);
    engine.send("position startpos");
    engine.send("go depth 1");
    best_move(&mut engine);
}

#[test]
fn searchmoves_restricts_the_root() {
    let mut engine = Engine::uci();
    engine.send("position startpos moves e2e4 e7e5");
    engine.send("go depth 2 searchmoves g1f3 b1c3");
    let best = best_move(&mut engine);
    engine.check(best == "g1f3" || best == "b1c3", &format!("{best} is not among the searchmoves"));
}

/// A field of an info line: the word after `name`.
fn field<'a>(line: &'a str, name: &str) -> Option<&'a str> {
    let words: Vec<&str> = line.split_whitespace().collect();
    words.iter().position(|w| *w == name).and_then(|i| words.get(i + 1).copied())
}

/// The moves of an info line's `pv`.
fn pv(line: &str) -> Vec<String> {
    line.split(" pv ").nth(1).unwrap_or_default().split_whitespace().map(String::from).collect()
}

/// MultiPV 3: at every depth three lines, numbered 1 to 3, with different first moves and
/// scores from best to worst, each a legal line.
#[test]
fn multipv_gives_distinct_sorted_legal_lines() {
    let fen = "r1bqkb1r/pppp1ppp/2n2n2/4p3/2B1P3/5N2/PPPP1PPP/RNBQK2R w KQkq - 4 4";
    let mut engine = Engine::uci();
    engine.send("setoption name MultiPV value 3");
    engine.send(&format!("position fen {fen}"));
    engine.send("go depth 6");
    let lines = engine.expect("bestmove", |l| l.starts_with("bestmove "));
    let exact: Vec<&String> =
        lines.iter().filter(|l| l.starts_with("info depth") && !l.contains("bound") && l.contains(" pv ")).collect();
    for depth in 1..=6 {
        let at_depth: Vec<&&String> = exact.iter().filter(|l| field(l, "depth") == Some(&depth.to_string())).collect();
        let numbers: Vec<&str> = at_depth.iter().filter_map(|l| field(l, "multipv")).collect();
        engine.check(numbers == ["1", "2", "3"], &format!("depth {depth}: lines {numbers:?}"));
        let firsts: Vec<String> = at_depth.iter().map(|l| pv(l)[0].clone()).collect();
        engine.check(firsts[0] != firsts[1] && firsts[1] != firsts[2] && firsts[0] != firsts[2], "same first move");
        let scores: Vec<i32> = at_depth.iter().map(|l| field(l, "cp").and_then(|s| s.parse().ok()).unwrap()).collect();
        engine.check(scores[0] >= scores[1] && scores[1] >= scores[2], &format!("depth {depth}: {scores:?}"));
        for line in at_depth {
            engine.send(&format!("position fen {fen} moves {}", pv(line).join(" ")));
            ready_without_errors(&mut engine);
        }
    }
    let best = lines.last().unwrap().split_whitespace().nth(1).unwrap();
    let last_first = pv(exact.iter().rev().find(|l| field(l, "multipv") == Some("1")).unwrap())[0].clone();
    engine.check(best == last_first, "bestmove is the first line's move");
}

/// searchmoves narrows the root for MultiPV too: two moves allowed, two lines.
#[test]
fn searchmoves_with_multipv() {
    let mut engine = Engine::uci();
    engine.send("setoption name MultiPV value 3");
    engine.send("position startpos");
    engine.send("go depth 4 searchmoves a2a3 h2h3");
    let lines = engine.expect("bestmove", |l| l.starts_with("bestmove "));
    let last_depth: Vec<&String> =
        lines.iter().filter(|l| field(l, "depth") == Some("4") && l.contains(" pv ")).collect();
    let firsts: Vec<String> = last_depth.iter().map(|l| pv(l)[0].clone()).collect();
    engine.check(firsts.len() == 2, &format!("two lines, got {firsts:?}"));
    engine.check(firsts.iter().all(|m| m == "a2a3" || m == "h2h3"), &format!("{firsts:?}"));
}

fn syzygy_dir() -> String {
    format!("{}/tests/syzygy", env!("CARGO_MANIFEST_DIR"))
}

/// With the tables: a won KQvKR position reports the tables' win and plays a move that keeps
/// it (the queen is not given away), counting tablebase hits; KRvKR is a draw.
#[test]
fn syzygy_tables_judge_the_endgame() {
    let mut engine = Engine::uci();
    engine.send(&format!("setoption name SyzygyPath value {}", syzygy_dir()));
    let notice = engine.expect_prefix("info string");
    engine.check(notice.contains("Syzygy tables, up to 4 pieces"), &notice);
    engine.send("position fen 8/8/8/8/2k5/8/1r6/KQ6 w - - 0 1");
    engine.send("go depth 6");
    let lines = engine.expect("bestmove", |l| l.starts_with("bestmove "));
    let last = lines.iter().rev().find(|l| l.starts_with("info depth")).unwrap();
    let cp: i32 = field(last, "cp").and_then(|s| s.parse().ok()).unwrap_or(0);
    engine.check(cp > 19000 || last.contains("score mate "), &format!("a tablebase win: {last}"));
    let hits: u64 = field(last, "tbhits").and_then(|s| s.parse().ok()).unwrap_or(0);
    engine.check(hits > 0, &format!("tablebase hits counted: {last}"));
    let best = lines.last().unwrap().split_whitespace().nth(1).unwrap().to_string();
    // Every move that keeps the win moves the queen or the king to safety; b1b2 would take the
    // rook, which wins too. What must not happen is a move that drops the queen to the rook.
    engine.check(best != "b1c1" && best != "b1d1", &format!("{best} gives the queen away"));
    engine.send("position fen 8/8/8/4k3/8/2R5/8/4K2r w - - 0 1");
    engine.send("go depth 8");
    let lines = engine.expect("bestmove", |l| l.starts_with("bestmove "));
    let last = lines.iter().rev().find(|l| l.starts_with("info depth")).unwrap();
    engine.check(field(last, "cp") == Some("0"), &format!("KRvKR is a draw: {last}"));
    expect_error(&mut engine, "setoption name SyzygyPath value /no/such/folder", "no Syzygy tables found");
}

/// With OwnBook on, a book position is answered from the book at once, without searching; out
/// of the book the engine searches; a bad book file is reported and play goes on without it.
#[test]
fn own_book_plays_book_moves() {
    let book = common::write_book("uci-book");
    let mut engine = Engine::uci();
    engine.send(&format!("setoption name BookFile value {}", book.display()));
    let notice = engine.expect_prefix("info string");
    engine.check(notice.contains("2 entries"), &notice);
    engine.send("setoption name OwnBook value true");
    engine.send("position startpos");
    engine.send("go wtime 10000 btime 10000");
    let lines = engine.expect("bestmove", |l| l.starts_with("bestmove "));
    let named = lines.len() == 2 && lines[0].starts_with("info string book move e2e4");
    engine.check(named && lines[1] == "bestmove e2e4 ponder e7e5", &format!("a book move at once: {lines:?}"));
    engine.send("position startpos moves e2e4");
    engine.send("go wtime 10000 btime 10000");
    let reply = best_move(&mut engine);
    engine.check(reply == "e7e5", &format!("the book's reply, got {reply}"));
    engine.send("position startpos moves d2d4");
    engine.send("go depth 3");
    let lines = engine.expect("bestmove", |l| l.starts_with("bestmove "));
    engine.check(lines.iter().any(|l| l.starts_with("info depth")), "out of the book it searches");
    expect_error(&mut engine, "setoption name BookFile value /no/such/book.bin", "playing without a book");
    std::fs::write(&book, [0u8; 17]).unwrap();
    expect_error(&mut engine, &format!("setoption name BookFile value {}", book.display()), "playing without a book");
    engine.send("position startpos");
    engine.send("go depth 2");
    let lines = engine.expect("bestmove", |l| l.starts_with("bestmove "));
    engine.check(lines.iter().any(|l| l.starts_with("info depth")), "no book: a normal search");
    let _ = std::fs::remove_file(&book);
}

#[test]
fn quit_ends_the_process_even_while_searching() {
    let mut engine = Engine::uci();
    engine.send("go infinite");
    engine.send("quit");
    let status = engine.wait_exit(TIMEOUT);
    engine.check(status.success(), "quit should exit with status 0");
}

#[test]
fn closed_stdin_ends_the_process() {
    let mut engine = Engine::uci();
    engine.send("position startpos");
    engine.send("go infinite");
    engine.close_stdin();
    engine.wait_exit(TIMEOUT);
}

#[test]
fn closed_stdin_before_choosing_a_protocol_ends_the_process() {
    let mut engine = Engine::start();
    engine.send("hello");
    engine.close_stdin();
    engine.wait_exit(TIMEOUT);
}

#[test]
fn finds_mate_in_two() {
    let mut engine = Engine::uci();
    engine.send("position fen r2qkb1r/pp2nppp/3p4/2pNN1B1/2BnP3/3P4/PPP2PPP/R2bK2R w KQkq - 1 1");
    engine.send("go depth 6");
    let lines = engine.expect("bestmove", |l| l.starts_with("bestmove "));
    engine.check(lines.last().unwrap().starts_with("bestmove d5f6"), "Nf6+ mates in two");
    let last_info = lines.iter().rev().find(|l| l.starts_with("info depth")).unwrap();
    engine.check(last_info.contains(" score mate 2 "), "the score is mate in 2");
}

/// `go mate 3` stops once a mate in three is proven, with the whole line and a ponder move;
/// a mate in one under the clock ends the search instead of iterating to the deepest ply.
#[test]
fn go_mate_stops_on_the_mate_with_its_line() {
    let mut engine = Engine::uci();
    engine.send("position fen r5rk/5p1p/5R2/4B3/8/8/7P/7K w - - 0 1");
    engine.send("go mate 3");
    let lines = engine.expect("bestmove", |l| l.starts_with("bestmove "));
    let last = lines.iter().rev().find(|l| l.starts_with("info depth")).unwrap();
    engine.check(last.contains(" score mate 3 "), &format!("a mate in 3: {last}"));
    engine.check(pv(last).len() == 5, &format!("the whole line: {last}"));
    let best = lines.last().unwrap();
    engine.check(best.contains(" ponder "), &format!("with a ponder move: {best}"));

    engine.send("position fen 6k1/5ppp/8/8/8/8/8/R5K1 w - - 0 1");
    engine.send("go wtime 60000 btime 60000");
    let lines = engine.expect("bestmove", |l| l.starts_with("bestmove "));
    engine.check(lines.last().unwrap() == "bestmove a1a8", "Ra8 mates");
    let depth: i32 = lines.iter().rev().find_map(|l| field(l, "depth")).and_then(|d| d.parse().ok()).unwrap();
    engine.check(depth < 20, &format!("stopped soon after the mate, at depth {depth}"));
}

/// Here Qd8+ mates in four and shows first (depth 17); Be3-b6 mates in three, behind the
/// reductions of a quiet move, and shows some iterations later. `go mate 3` must not stop on
/// the longer mate, nor may a search under the clock that has the time to find the shorter.
#[test]
fn a_longer_mate_found_first_does_not_end_the_search() {
    let mut engine = Engine::uci();
    for go in ["go mate 3", "go wtime 120000 btime 120000"] {
        engine.send("position fen rk6/3Q4/b1p5/p2pp3/4N2N/2P1B3/PP3PPP/R3K2R w KQ - 0 20");
        engine.send(go);
        let lines = engine.expect_within(Duration::from_secs(60), "bestmove", |l| l.starts_with("bestmove "));
        let last = lines.iter().rev().find(|l| l.starts_with("info depth")).unwrap();
        engine.check(last.contains(" score mate 3 "), &format!("{go}: a mate in 3: {last}"));
        engine.check(pv(last).first().map(String::as_str) == Some("e3b6"), &format!("{go}: Bb6 first: {last}"));
        engine.check(lines.last().unwrap().starts_with("bestmove e3b6 "), &format!("{go}: Bb6 is played"));
    }
}

/// A mate whose first move is quiet and whose later moves are quiet checks: Qe5 mates in four
/// (Rd7, Rxg7+ or a queen check, then the mate). Futility and history pruning skipped quiet
/// checks at shallow depths, so the mating line was pruned at every iteration and the search
/// saw +40 pawns instead; sparing checks, it shows the mate by depth 14 with net 13 and 15 with
/// net 14 (the depth moves with the network's pruning, so the test gives it 16). Four other
/// first moves mate in four too, Qg3, Rd7, Qf4 and Qb6 (Stockfish 15.1, `MultiPV 6`, depth 30;
/// Qd6, the next, mates in five): any of the five is right.
#[test]
fn a_quiet_mating_attack_is_not_pruned_away() {
    let mut engine = Engine::uci();
    engine.send("position fen 1Q1R4/6p1/6k1/3p3p/3P4/8/5PPK/8 w - - 0 56");
    engine.send("go depth 16");
    let lines = engine.expect_within(Duration::from_secs(60), "bestmove", |l| l.starts_with("bestmove "));
    let last = lines.iter().rev().find(|l| l.starts_with("info depth")).unwrap();
    engine.check(last.contains(" score mate 4 "), &format!("a mate in 4: {last}"));
    let best = lines.last().unwrap();
    let mates = ["bestmove b8e5 ", "bestmove d8d7 ", "bestmove b8g3 ", "bestmove b8f4 ", "bestmove b8b6 "];
    engine.check(mates.iter().any(|m| best.starts_with(m)), "Qe5, Rd7, Qg3, Qf4 or Qb6 is played");
}

/// UCI_ShowWDL adds `wdl W D L` (permille, summing to 1000) after the score.
#[test]
fn show_wdl_adds_win_draw_loss_chances() {
    let mut engine = Engine::uci();
    engine.send("setoption name UCI_ShowWDL value true");
    engine.send("position fen 4k3/8/8/8/8/8/3Q4/4K3 w - - 0 1");
    engine.send("go depth 4");
    let lines = engine.expect("bestmove", |l| l.starts_with("bestmove "));
    let info = lines.iter().rev().find(|l| l.starts_with("info depth")).unwrap();
    let words: Vec<&str> = info.split_whitespace().collect();
    let at = words.iter().position(|w| *w == "wdl").unwrap_or_else(|| engine.fail("no wdl field"));
    let wdl: Vec<u32> = words[at + 1..at + 4].iter().map(|w| w.parse().unwrap()).collect();
    engine.check(wdl.iter().sum::<u32>() == 1000, &format!("{wdl:?}"));
    engine.check(wdl[0] > 900, &format!("a queen up wins: {wdl:?}"));
}

/// Every strength level answers with a legal move: each Skill Level and some Elos, in an
/// opening and in a position with only two legal moves (fewer than the levels' candidates).
#[test]
fn every_level_plays_legal_moves() {
    let mut engine = Engine::uci();
    let mut levels: Vec<(String, String)> = (0..=20).map(|n| ("Skill Level".to_string(), n.to_string())).collect();
    levels.extend(["800", "1400", "2200", "2499"].map(|elo| ("UCI_Elo".to_string(), elo.to_string())));
    for (option, value) in levels {
        let limit = if option == "UCI_Elo" { "true" } else { "false" };
        engine.send(&format!("setoption name UCI_LimitStrength value {limit}"));
        engine.send(&format!("setoption name {option} value {value}"));
        engine.send("setoption name Skill Seed value 11");
        engine.send("position startpos moves e2e4 e7e5");
        engine.send("go wtime 2000 btime 2000 winc 20 binc 20");
        let mv = best_move(&mut engine);
        engine.check(AFTER_E4_E5.split_whitespace().any(|m| m == mv), &format!("{option} {value}: {mv} is not legal"));
        engine.send("position fen 6k1/8/8/8/8/8/8/6rK w - - 0 1");
        engine.send("go wtime 2000 btime 2000");
        let mv = best_move(&mut engine);
        engine.check(mv == "h1g1" || mv == "h1h2", &format!("{option} {value}: {mv} is not legal"));
        ready_without_errors(&mut engine);
    }
}

/// A limited level searches several lines to choose from but shows only the ones asked for.
#[test]
fn a_limited_level_reports_only_the_lines_asked_for() {
    let mut engine = Engine::uci();
    engine.send("setoption name UCI_LimitStrength value true");
    engine.send("setoption name UCI_Elo value 1000");
    engine.send("position startpos");
    engine.send("go depth 20");
    let lines = engine.expect("bestmove", |l| l.starts_with("bestmove "));
    let infos: Vec<&String> = lines.iter().filter(|l| l.starts_with("info depth")).collect();
    engine.check(!infos.is_empty(), "the search reports");
    engine.check(infos.iter().all(|l| l.contains(" multipv 1 ")), "only the first line is shown");
    engine.check(infos.iter().all(|l| !l.contains(" depth 3 ")), "the level stops early");
}

/// The score of a depth-1 search of a position where the evaluations disagree.
fn depth_one_score(engine: &mut Engine) -> String {
    engine.send("position fen r1bq1rk1/ppp2ppp/2np1n2/2b1p3/2B1P3/2NP1N2/PPP2PPP/R1BQ1RK1 w - - 0 7");
    engine.send("go depth 1");
    let lines = engine.expect("bestmove", |l| l.starts_with("bestmove "));
    let info = lines.iter().rev().find(|l| l.starts_with("info depth 1 ")).unwrap();
    info.split(" score ").nth(1).unwrap().split(" nodes").next().unwrap().to_string()
}

/// The built-in network evaluates by default; `Use NNUE` turns to the hand-crafted evaluation
/// and back; an `EvalFile` that is missing or not a network is reported and changes nothing.
#[test]
fn evaluation_options_switch_the_evaluation() {
    let mut engine = Engine::uci();
    let network = depth_one_score(&mut engine);
    engine.send("setoption name Use NNUE value false");
    ready_without_errors(&mut engine);
    let hand_crafted = depth_one_score(&mut engine);
    engine.check(network != hand_crafted, &format!("both evaluations say {network}"));
    engine.send("setoption name Use NNUE value true");
    ready_without_errors(&mut engine);
    let score = depth_one_score(&mut engine);
    engine.check(score == network, &format!("the network is back: {score}, not {network}"));

    let missing = format!("{}/no-such-file.nnue", env!("CARGO_MANIFEST_DIR"));
    expect_error(&mut engine, &format!("setoption name EvalFile value {missing}"), "cannot use the network");
    let not_a_network = format!("{}/Cargo.toml", env!("CARGO_MANIFEST_DIR"));
    expect_error(&mut engine, &format!("setoption name EvalFile value {not_a_network}"), "bad magic");
    let score = depth_one_score(&mut engine);
    engine.check(score == network, &format!("a bad file changes nothing: {score}, not {network}"));
    engine.send(&format!("setoption name EvalFile value {}/src/eval/network.nnue", env!("CARGO_MANIFEST_DIR")));
    ready_without_errors(&mut engine);
    let score = depth_one_score(&mut engine);
    engine.check(score == network, &format!("the built-in network's own file: {score}, not {network}"));
}

/// A version-3 network file of the shape given (hidden size, activation code, output buckets,
/// and king buckets mirrored onto files a-d when given), its weights drawn from a seeded
/// generator.
fn network_file(hidden: usize, activation: u32, outputs: usize, king_buckets: Option<[u8; 64]>) -> Vec<u8> {
    let mut state = 0x2545_f491_4f6c_dd1du64;
    let mut next = move |range: i64| {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        (state % (2 * range as u64 + 1)) as i64 - range
    };
    let kings = king_buckets.map_or(1, |map| *map.iter().max().unwrap() as usize + 1);
    let mut bytes = b"SNTLNNUE".to_vec();
    for word in [3, hidden as u32, activation, outputs as u32, king_buckets.is_some() as u32] {
        bytes.extend_from_slice(&word.to_le_bytes());
    }
    bytes.extend(king_buckets.unwrap_or([0; 64]));
    let weights = [(kings * 768 * hidden, 60), (hidden, 100), (outputs * 2 * hidden, 127)];
    for (count, range) in weights {
        (0..count).for_each(|_| bytes.extend_from_slice(&(next(range) as i16).to_le_bytes()));
    }
    (0..outputs).for_each(|_| bytes.extend_from_slice(&(next(20_000) as i32).to_le_bytes()));
    bytes
}

/// `EvalFile` takes a network of the built-in network's shape (512 hidden neurons, SCReLU, 8
/// output buckets, no king buckets) and evaluates with it. A network of any other shape (king
/// buckets, another width, CReLU, one output bucket), of the old format version 2 or of an
/// unknown version, or a truncated one, is refused with an error that names what the file is
/// and what the engine reads, and the network in use stays.
#[test]
fn eval_file_takes_the_engine_s_shape_and_refuses_every_other() {
    let write = |name: &str, bytes: &[u8]| {
        let path = std::env::temp_dir().join(format!("sentinel-{}-{name}.nnue", std::process::id()));
        std::fs::write(&path, bytes).unwrap();
        path.display().to_string()
    };
    let mut engine = Engine::uci();
    let network = depth_one_score(&mut engine);
    let same_shape = network_file(512, 1, 8, None);
    engine.send(&format!("setoption name EvalFile value {}", write("same-shape", &same_shape)));
    ready_without_errors(&mut engine);
    let score = depth_one_score(&mut engine);
    engine.check(score != network, &format!("the new network scores as the built-in one: {score}"));

    // Ranks 1-2 or 3-8, files a-b (and g-h, their mirror) or c-f.
    let quartered = std::array::from_fn(|sq| (sq / 8 >= 2) as u8 * 2 + ((sq % 8) / 2 % 3 == 0) as u8);
    let mut version_2 = b"SNTLNNUE".to_vec();
    [2u32, 256, 1].iter().for_each(|word| version_2.extend_from_slice(&word.to_le_bytes()));
    version_2.extend_from_slice(&network_file(256, 1, 1, None)[92..]);
    let mut unknown = same_shape.clone();
    unknown[8] = 7;
    let reads = "this engine reads only 512 hidden neurons, SCReLU, 8 output buckets, no king buckets";
    let refused = [
        (
            "bucketed",
            network_file(512, 1, 8, Some(quartered)),
            "512 hidden neurons, SCReLU, 8 output buckets, 4 king buckets, mirrored",
        ),
        ("narrow", network_file(256, 1, 8, None), "256 hidden neurons, SCReLU, 8 output buckets, no king buckets"),
        ("crelu", network_file(512, 0, 8, None), "512 hidden neurons, CReLU, 8 output buckets, no king buckets"),
        (
            "single-output",
            network_file(512, 1, 1, None),
            "512 hidden neurons, SCReLU, 1 output bucket, no king buckets",
        ),
    ];
    for (name, bytes, shape) in refused {
        let reason = format!("the network has {shape}; {reads}");
        expect_error(&mut engine, &format!("setoption name EvalFile value {}", write(name, &bytes)), &reason);
        let after = depth_one_score(&mut engine);
        engine.check(after == score, &format!("the {name} file changed the score: {after}, not {score}"));
    }
    let damaged = [
        ("version-2", &version_2[..], "network format version 2; this engine reads version 3 networks of 512 hidden"),
        ("unknown", &unknown[..], "network format version 7"),
        ("truncated", &same_shape[..same_shape.len() - 1000], "truncated: expected"),
    ];
    for (name, bytes, reason) in damaged {
        expect_error(&mut engine, &format!("setoption name EvalFile value {}", write(name, bytes)), reason);
        let after = depth_one_score(&mut engine);
        engine.check(after == score, &format!("the {name} file changed the score: {after}, not {score}"));
    }
    engine.send("setoption name EvalFile value <empty>");
    ready_without_errors(&mut engine);
    let back = depth_one_score(&mut engine);
    engine.check(back == network, &format!("the built-in network is back: {back}, not {network}"));
}

/// A level evaluates with the hand-crafted evaluation its calibration was measured with,
/// whatever `Use NNUE` says: with a fixed seed its search and its move are the same either way.
#[test]
fn levels_play_with_the_evaluation_they_were_calibrated_with() {
    let mut engine = Engine::uci();
    engine.send("setoption name UCI_LimitStrength value true");
    engine.send("setoption name UCI_Elo value 1800");
    engine.send("setoption name Skill Seed value 5");
    let search = |engine: &mut Engine| {
        engine.send("position fen r1bq1rk1/ppp2ppp/2np1n2/2b1p3/2B1P3/2NP1N2/PPP2PPP/R1BQ1RK1 w - - 0 7");
        engine.send("go depth 5");
        let lines = engine.expect("bestmove", |l| l.starts_with("bestmove "));
        // Scores, node counts and the move, without the times.
        let field = |line: &str, name: &str, words: usize| {
            line.split(&format!(" {name} ")).nth(1).map(|r| r.split(' ').take(words).collect::<Vec<_>>().join(" "))
        };
        let summary = |l: &String| match l.starts_with("bestmove") {
            true => l.clone(),
            false => format!("{:?} {:?}", field(l, "score", 2), field(l, "nodes", 1)),
        };
        lines.iter().map(summary).collect::<Vec<_>>()
    };
    let with_network_on = search(&mut engine);
    engine.send("setoption name Use NNUE value false");
    ready_without_errors(&mut engine);
    let hand_crafted = search(&mut engine);
    engine.check(with_network_on == hand_crafted, &format!("{with_network_on:?} vs {hand_crafted:?}"));
}
