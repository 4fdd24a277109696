//! The programs that drive engines in the wild, replayed through pipes the way each drives an
//! engine, from its own code: lichess-bot (through python-chess), Scid's `tcl/enginecomm.tcl`,
//! Nibbler, En Croissant (through its UCI grammar), c-chess-cli and BanksiaGUI's bare
//! environment. docs/gui.md says what each sends and what Sentinel answers.

mod common;

use common::Engine;
use std::collections::HashMap;
use std::time::{Duration, Instant};

/// The declared options, by name, with what follows `type` on their line.
fn declarations(lines: &[String]) -> HashMap<String, String> {
    let mut options = HashMap::new();
    for line in lines.iter().filter(|l| l.starts_with("option name ")) {
        let rest = &line["option name ".len()..];
        let (name, kind) = rest.split_once(" type ").expect("an option line has a type");
        options.insert(name.to_string(), kind.to_string());
    }
    options
}

/// The word after `key` in a line split at spaces.
fn after<'a>(line: &'a str, key: &str) -> Option<&'a str> {
    let words: Vec<&str> = line.split(' ').collect();
    words.iter().position(|w| *w == key).and_then(|i| words.get(i + 1).copied())
}

/// The legal moves of the position last set, from `go perft 1`.
fn legal_moves(engine: &mut Engine) -> Vec<String> {
    engine.send("go perft 1");
    let lines = engine.expect("the perft total", |l| l.starts_with("Nodes searched"));
    lines.iter().filter_map(|l| l.strip_suffix(": 1")).map(str::to_string).collect()
}

/// Reads to the next bestmove and returns its move and ponder move.
fn bestmove(engine: &mut Engine) -> (String, Option<String>, Vec<String>) {
    let lines = engine.expect("a bestmove", |l| l.starts_with("bestmove "));
    let last = lines.last().unwrap();
    let best = after(last, "bestmove").unwrap().to_string();
    let ponder = after(last, "ponder").map(str::to_string);
    (best, ponder, lines)
}

/// No line ends in a space or carries a CR: lichess-bot, c-chess-cli and Scid compare whole
/// lines (`uciok`, `readyok`).
fn lines_are_clean(engine: &Engine) {
    for line in engine.received() {
        engine.check(line.trim_end() == line && !line.contains('\r'), &format!("'{line}' ends with a space"));
    }
}

/// lichess-bot's default configuration, played through python-chess 1.11 (lib/engine_wrapper.py,
/// chess/engine.py): the options it sets, and stops if one is missing or out of range; a `go`
/// with clocks and the depth of its `go_commands`; pondering, with `ponderhit` when the
/// opponent plays the expected move and `stop` when not.
#[test]
fn lichess_bot_through_python_chess() {
    let mut engine = Engine::start();
    let start = Instant::now();
    engine.send("uci");
    let lines = engine.expect_within(Duration::from_secs(60), "uciok", |l| l == "uciok");
    engine.check(start.elapsed() < Duration::from_secs(60), "python-chess waits 60 s for uciok");
    let options = declarations(&lines);
    // python-chess's configure refuses an undeclared option, and a spin value out of range.
    for (name, value) in [("Move Overhead", 100), ("Threads", 4), ("Hash", 512)] {
        let kind = options.get(name).unwrap_or_else(|| engine.fail(&format!("{name} is not declared")));
        let (min, max) = (after(kind, "min").unwrap(), after(kind, "max").unwrap());
        let (min, max): (i64, i64) = (min.parse().unwrap(), max.parse().unwrap());
        engine.check(kind.starts_with("spin ") && min <= value && value <= max, &format!("{name}: {kind}"));
    }
    engine.check(options.get("SyzygyPath").is_some_and(|k| k.starts_with("string ")), "SyzygyPath");
    engine.check(options.get("UCI_ShowWDL").is_some_and(|k| k.starts_with("check ")), "UCI_ShowWDL");
    engine.check(options.get("Ponder").is_some_and(|k| k.starts_with("check ")), "Ponder");
    // python-chess sends what differs from the declared defaults, then Ponder for play().
    for line in [
        "setoption name Move Overhead value 100",
        "setoption name Threads value 4",
        "setoption name Hash value 512",
        "setoption name SyzygyPath value ./syzygy/",
        "setoption name UCI_ShowWDL value true",
        "setoption name Ponder value true",
        "ucinewgame",
        "isready",
    ] {
        engine.send(line);
    }
    let lines = engine.expect_line("readyok");
    // The missing ./syzygy/ folder is said in an info string, which python-chess logs.
    for line in &lines[..lines.len() - 1] {
        engine.check(line.starts_with("info string "), &format!("unexpected before readyok: {line}"));
    }

    // The first move: clocks and a depth in one go.
    engine.send("position startpos");
    engine.send("go wtime 60000 btime 60000 winc 1000 binc 1000 depth 5");
    let (best, ponder, lines) = bestmove(&mut engine);
    engine.check(ponder.is_some(), "a bestmove with a ponder move, for lichess-bot to ponder on");
    let depths: Vec<i32> = lines.iter().filter_map(|l| after(l, "depth")?.parse().ok()).collect();
    engine.check(depths.iter().all(|&d| d <= 5) && depths.contains(&5), &format!("depth 5 at most: {depths:?}"));
    engine.check(lines.iter().any(|l| after(l, "wdl").is_some()), "UCI_ShowWDL's figures");
    engine.send("position startpos");
    let legal = legal_moves(&mut engine);
    engine.check(legal.contains(&best), "a legal first move");

    // go_commands' movetime beside a clock with less on it: the clock wins.
    engine.send("position startpos moves e2e4 e7e5");
    let start = Instant::now();
    engine.send("go wtime 2000 btime 60000 winc 0 binc 0 movetime 5000");
    bestmove(&mut engine);
    engine.check(start.elapsed() < Duration::from_millis(1900), "a movetime that oversteps the clock");

    // Pondering on the move it expects; the opponent plays it: ponderhit.
    let pondered = "position startpos moves e2e4 e7e5 g1f3 b8c6";
    engine.send(pondered);
    engine.send("go ponder wtime 60696 btime 61000 winc 1000 binc 1000 depth 5");
    let held = engine.lines_for(Duration::from_millis(500));
    engine.check(held.iter().all(|l| !l.starts_with("bestmove")), "no bestmove while pondering");
    engine.send("ponderhit");
    let (best, _, lines) = bestmove(&mut engine);
    // python-chess reads no info line that came while it pondered: the score it reports for
    // this move (and lichess-bot's chat with it) is in what comes after ponderhit. The depth 5
    // search ended in the half second before, so those are its last lines sent again.
    let scored = lines.iter().any(|l| l.starts_with("info ") && l.contains(" score ") && l.contains(" wdl "));
    engine.check(scored, "the pondered search's score after ponderhit");
    engine.send(pondered);
    let legal = legal_moves(&mut engine);
    engine.check(legal.contains(&best), "the move after ponderhit is legal");

    // The opponent plays another move: stop (python-chess drops that bestmove), then a new go.
    engine.send("position startpos moves e2e4 e7e5 g1f3 b8c6 f1b5 a7a6");
    engine.send("go ponder wtime 59000 btime 61000 winc 1000 binc 1000 depth 5");
    engine.lines_for(Duration::from_millis(200));
    engine.send("stop");
    bestmove(&mut engine);
    let played = "position startpos moves e2e4 e7e5 g1f3 b8c6 f1b5 g8f6";
    engine.send(played);
    engine.send("go wtime 59000 btime 61000 winc 1000 binc 1000 depth 5");
    let (best, _, _) = bestmove(&mut engine);
    let extra = engine.lines_for(Duration::from_millis(300));
    engine.check(extra.iter().all(|l| !l.starts_with("bestmove")), "one bestmove for each go");
    engine.send(played);
    let legal = legal_moves(&mut engine);
    engine.check(legal.contains(&best), "the move after the miss is legal");
    lines_are_clean(&engine);
}

/// What Scid's `::uci::parseline` (tcl/enginecomm.tcl) keeps of an info line: the variation is
/// what follows ` pv `, cut at the first of its field names found in it; the numbers are
/// read after their names, `cp`/`mate` after `score`, and three numbers after `wdl`.
fn scid_reads(line: &str) -> Option<(String, String, Vec<i64>)> {
    let begin = line.find(" pv ")?;
    let pv = &line[begin + 4..];
    let names = ["multipv", "depth", "seldepth", "nodes", "nps", "hashfull", "tbhits", "time", "score"];
    if let Some(name) = names.iter().find(|name| pv.contains(*name)) {
        panic!("Scid would cut the variation at '{name}': {line}");
    }
    let head: Vec<&str> = line[..begin].split(' ').collect();
    let score = head.iter().position(|w| *w == "score").map(|i| head[i + 1].to_string())?;
    let wdl = match head.iter().position(|w| *w == "wdl") {
        Some(i) => head[i + 1..i + 4].iter().map(|n| n.parse().unwrap()).collect(),
        None => Vec::new(),
    };
    Some((pv.to_string(), score, wdl))
}

/// Scid 4.7's engine code: `uci`, and `xboard`/`protover 2` if no `uciok` came within 2 s; the
/// options it sets when they are declared (UCI_AnalyseMode, UCI_Chess960, UCI_ShowWDL,
/// Ponder), `ucinewgame` and `isready`, then `go infinite` until `stop`.
#[test]
fn scid_handshake_within_two_seconds_and_infinite_analysis() {
    let mut engine = Engine::start();
    engine.send("uci");
    let lines = engine.expect_within(Duration::from_secs(2), "uciok within Scid's 2 s", |l| l == "uciok");
    let options = declarations(&lines);
    for name in ["UCI_AnalyseMode", "UCI_Chess960", "UCI_ShowWDL", "Ponder"] {
        engine.check(options.contains_key(name), &format!("{name} is declared, so Scid sets it"));
    }
    // ::uci::sendNewGame, for an analysis of a standard game with WDL shown.
    for line in [
        "setoption name UCI_AnalyseMode value true",
        "setoption name UCI_Chess960 value false",
        "setoption name UCI_ShowWDL value true",
        "setoption name Ponder value false",
        "ucinewgame",
        "isready",
    ] {
        engine.send(line);
    }
    let lines = engine.expect_line("readyok");
    engine.check(lines.len() == 1, "no complaint about Scid's options");
    // ::uci::sendGo with no limits: `go infinite`.
    engine.send("position fen r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - 2 3");
    engine.send("go infinite");
    let lines = engine.lines_for(Duration::from_millis(1500));
    engine.check(lines.iter().all(|l| !l.starts_with("bestmove")), "go infinite waits for stop");
    let read: Vec<_> = lines.iter().filter_map(|l| scid_reads(l)).collect();
    engine.check(read.len() >= 3, "Scid reads the variations");
    for (pv, score, wdl) in &read {
        engine.check(score == "cp" || score == "mate", &format!("score type {score}"));
        engine.check(wdl.len() == 3 && wdl.iter().sum::<i64>() == 1000, &format!("wdl {wdl:?}"));
        engine.check(pv.split(' ').all(|m| (4..=5).contains(&m.len())), &format!("pv {pv}"));
    }
    engine.send("stop");
    bestmove(&mut engine);
    lines_are_clean(&engine);
    // Scid's reading loop stops at an empty line until more input comes.
    engine.check(engine.received().iter().all(|l| !l.is_empty()), "an empty line");
}

/// Scid's fallback: when `uciok` is late it sends `xboard` and `protover 2` to the same process.
/// Sentinel, already in UCI, says so in an info string and goes on in UCI.
#[test]
fn scid_fallback_lines_after_uci_leave_uci_working() {
    let mut engine = Engine::uci();
    engine.send("xboard");
    engine.send("protover 2");
    engine.send("isready");
    let lines = engine.expect_line("readyok");
    engine.check(lines.iter().all(|l| l.starts_with("info string ") || l == "readyok"), "UCI goes on");
    engine.check(!lines.iter().any(|l| l.starts_with("feature ")), "no XBoard features in a UCI session");
    engine.send("position startpos");
    engine.send("go depth 3");
    bestmove(&mut engine);
}

/// Scid over XBoard (its protocol choice "xboard", or the fallback): `xboard`, `protover 2`, an
/// `accepted` or `rejected` for every feature (it rejects `analyze` and then sends it anyway),
/// `new`, `force`, `post`, `easy`, `ping 1`; then `setboard`, `force`, the moves with `usermove`
/// and `analyze`, whose thinking lines it reads with a regular expression; `exit` to stop.
#[test]
fn scid_over_xboard() {
    let mut engine = Engine::start();
    engine.send("xboard");
    engine.send("protover 2");
    let lines = engine.expect("feature done=1", |l| l.contains("done=1"));
    let mut features = Vec::new();
    for line in lines.iter().filter(|l| l.starts_with("feature ")) {
        let mut rest = &line["feature ".len()..];
        while let Some(eq) = rest.find('=') {
            let name = rest[..eq].trim().to_string();
            let value = &rest[eq + 1..];
            let end = if let Some(quoted) = value.strip_prefix('"') {
                quoted.find('"').map_or(value.len(), |e| e + 2)
            } else {
                value.find(' ').unwrap_or(value.len())
            };
            features.push(name);
            rest = &value[end..];
        }
    }
    // ::xboard::parseline accepts these and rejects the rest; it answers nothing to `option`.
    let scid_takes =
        ["done", "ping", "setboard", "san", "usermove", "nps", "time", "reuse", "memory", "smp", "variants", "name"];
    for name in features.iter().filter(|name| *name != "option") {
        let taken = scid_takes.contains(&name.as_str()) || ["myname", "egt"].contains(&name.as_str());
        engine.send(&format!("{} {name}", if taken { "accepted" } else { "rejected" }));
    }
    for line in ["new", "force", "post", "easy", "ping 1"] {
        engine.send(line);
    }
    let lines = engine.expect_line("pong 1");
    engine.check(lines.iter().all(|l| !l.starts_with("Error")), "Scid's answers to the features are taken");
    for line in [
        "setboard r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - 2 3",
        "force",
        "usermove f1c4",
        "analyze",
    ] {
        engine.send(line);
    }
    let lines = engine.lines_for(Duration::from_millis(1000));
    // ::xboard::parseline: `^\s*(\d+)\s+(-\d+|\d+)\s+(\d+)\s+(\d+)\s+(.*)$`.
    let read = lines
        .iter()
        .filter(|l| {
            let words: Vec<&str> = l.split_whitespace().collect();
            words.len() >= 5 && words[..4].iter().all(|w| w.trim_start_matches('-').bytes().all(|b| b.is_ascii_digit()))
        })
        .count();
    engine.check(read >= 3, "Scid reads the thinking lines");
    engine.check(lines.iter().all(|l| !l.starts_with("move ")), "analyze plays no move");
    engine.send("exit");
    engine.send("ping 2");
    let lines = engine.expect_line("pong 2");
    engine.check(lines.iter().all(|l| !l.starts_with("move ")), "exit leaves analysis without a move");
    lines_are_clean(&engine);
}

/// Nibbler (files/src/renderer/90_engine.js): it sets UCI_Chess960 as soon as it reads the
/// option's declaration, before `uciok`; then sends positions in Chess960 form, the standard
/// start with Shredder castling rights (`AHah`) and castling as king takes rook (`e1h1`), and
/// analyses with `go infinite searchmoves ...` at the MultiPV of its settings.
#[test]
fn nibbler_chess960_castling_in_standard_chess_and_searchmoves_at_multipv_5() {
    let mut engine = Engine::start();
    engine.send("uci");
    engine.expect("UCI_Chess960's declaration", |l| l.starts_with("option name UCI_Chess960 "));
    engine.send("setoption name UCI_Chess960 value true");
    engine.expect_line("uciok");
    engine.send("setoption name MultiPV value 5");
    engine.send("isready");
    let lines = engine.expect_line("readyok");
    engine.check(lines.len() == 1, "no complaint about Nibbler's options");
    engine.send("ucinewgame");
    let italian =
        "position fen rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w AHah - 0 1 moves e2e4 e7e5 g1f3 b8c6 f1c4 g8f6";
    engine.send(italian);
    let legal = legal_moves(&mut engine);
    engine.check(legal.contains(&"e1h1".to_string()), &format!("castling is king takes rook: {legal:?}"));
    engine.send(italian);
    engine.send("go infinite searchmoves e1h1 d2d3 b1c3");
    let lines = engine.lines_for(Duration::from_millis(1500));
    let firsts: Vec<&str> = lines.iter().filter_map(|l| after(l, "pv")).collect();
    engine.check(firsts.iter().all(|m| ["e1h1", "d2d3", "b1c3"].contains(m)), "only the searchmoves");
    let multipvs: Vec<i32> = lines.iter().filter_map(|l| after(l, "multipv")?.parse().ok()).collect();
    engine.check(multipvs.contains(&3) && multipvs.iter().all(|&k| (1..=3).contains(&k)), "three lines");
    engine.send("stop");
    let (best, _, _) = bestmove(&mut engine);
    engine.check(["e1h1", "d2d3", "b1c3"].contains(&best.as_str()), &format!("bestmove {best}"));
    // Castled, in the same form; Black's castling comes back as e8h8.
    engine.send(&format!("{italian} e1h1 f8c5 d2d3"));
    let legal = legal_moves(&mut engine);
    engine.check(legal.contains(&"e8h8".to_string()) && !legal.contains(&"e8g8".to_string()), "e8h8");
    lines_are_clean(&engine);
}

/// Whether an info line fits En Croissant's UCI grammar (vampirc-uci's res/uci.pest, its fork):
/// `score` is `cp N` or `mate N`, then `wdl W D L`, then `lowerbound` or `upperbound`; anything
/// else after the score is read as an unknown field that runs to the end of the line, taking
/// the variation with it.
fn en_croissant_reads(line: &str) -> bool {
    let words: Vec<&str> = line.split(' ').collect();
    let Some(at) = words.iter().position(|w| *w == "score") else { return true };
    let mut i = at + 1;
    if !matches!(words.get(i), Some(&("cp" | "mate"))) || words.get(i + 1).and_then(|n| n.parse::<i64>().ok()).is_none()
    {
        return false;
    }
    i += 2;
    if words.get(i) == Some(&"wdl") {
        i += 4;
    }
    while matches!(words.get(i), Some(&("lowerbound" | "upperbound"))) {
        i += 1;
    }
    let known = ["depth", "seldepth", "time", "nodes", "multipv", "hashfull", "nps", "tbhits", "pv", "currmove"];
    words.get(i).is_none_or(|w| known.contains(w))
}

/// En Croissant: its settings read every `option` line through the same grammar (a string
/// default is a word, `<empty>` for none, as Stockfish writes it); analysis sends `position
/// fen`, the MultiPV and UCI_ShowWDL, and `go infinite`, and gathers the lines of each depth
/// from multipv 1 up, skipping bounds.
#[test]
fn en_croissant_reads_every_option_and_info_line() {
    let mut engine = Engine::start();
    engine.send("uci");
    let lines = engine.expect("uciok", |l| l.starts_with("uciok"));
    for line in lines.iter().filter(|l| l.starts_with("option ")) {
        let after_default = line.split_once(" default ").map(|(_, rest)| rest);
        let kind = line.split_once(" type ").unwrap().1;
        engine.check(kind.starts_with("button") || after_default.is_some_and(|d| !d.is_empty()), line);
    }
    engine.send("isready");
    engine.expect_line("readyok");
    engine.send("setoption name MultiPV value 2");
    engine.send("setoption name UCI_ShowWDL value true");
    engine.send("position fen r1bq1rk1/pppp1ppp/2n2n2/2b1p3/2B1P3/2NP1N2/PPP2PPP/R1BQK2R w KQ - 1 6");
    engine.send("go infinite");
    let lines = engine.lines_for(Duration::from_millis(2500));
    engine.send("stop");
    bestmove(&mut engine);
    for line in lines.iter().filter(|l| l.starts_with("info ")) {
        engine.check(en_croissant_reads(line), &format!("En Croissant cannot read '{line}'"));
    }
    // Some depth has its two exact lines in order.
    let exact: Vec<(i32, i32)> = lines
        .iter()
        .filter(|l| l.contains(" pv ") && !l.contains("bound"))
        .filter_map(|l| Some((after(l, "depth")?.parse().ok()?, after(l, "multipv")?.parse().ok()?)))
        .collect();
    engine.check(exact.windows(2).any(|w| w[0].1 == 1 && w[1] == (w[0].0, 2)), "multipv 1 then 2");
    lines_are_clean(&engine);
}

/// c-chess-cli (src/engine.c, src/game.c): 4 s to answer `uci`, `isready` and `quit`, whole
/// lines compared with strcmp, its options sent without waiting, `position fen` before each
/// move, and nodes, depth, movetime and clocks together in one `go`. It dies on an info line
/// whose `score` is followed by anything but `cp` or `mate`.
#[test]
fn c_chess_cli_deadlines_and_its_go() {
    let four = Duration::from_secs(4);
    let mut engine = Engine::start();
    let start = Instant::now();
    engine.send("uci");
    let lines = engine.expect_within(four, "uciok within 4 s", |l| l == "uciok");
    engine.check(lines.iter().any(|l| l.starts_with("option name UCI_Chess960 ")), "Chess960 is declared");
    engine.check(start.elapsed() < four, "uciok in time");
    engine.send("setoption name Hash value 256");
    engine.send("setoption name Threads value 1");
    engine.send("ucinewgame");
    let start = Instant::now();
    engine.send("isready");
    engine.expect_within(four, "readyok within 4 s of a new 256 MB table", |l| l == "readyok");
    engine.check(start.elapsed() < four, "readyok in time");
    let fen = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1";
    engine.send(&format!("position fen {fen} moves e2e4 c7c5"));
    engine.send("isready");
    engine.expect_within(four, "readyok", |l| l == "readyok");
    engine.send("go nodes 200000 depth 9 movetime 3000 wtime 10000 winc 100 btime 10000 binc 100");
    let lines = engine.expect_within(Duration::from_secs(3) + four, "bestmove", |l| l.starts_with("bestmove "));
    for line in lines.iter().filter(|l| l.starts_with("info ")) {
        if let Some(kind) = after(line, "score") {
            engine.check(kind == "cp" || kind == "mate", &format!("c-chess-cli dies on '{line}'"));
        }
    }
    let start = Instant::now();
    engine.send("quit");
    engine.wait_exit(four);
    engine.check(start.elapsed() < four, "quit within c-chess-cli's deadline");
    lines_are_clean(&engine);
}

/// BanksiaGUI starts engines with an almost empty environment: no PATH, no HOME, and its own
/// folder. Sentinel needs neither to start, set options and search.
#[test]
fn banksia_gui_bare_environment() {
    let mut command = common::command(&[]);
    command.env_clear().current_dir("/");
    let mut engine = Engine::start_command(command);
    engine.send("uci");
    engine.expect_line("uciok");
    engine.send("setoption name Hash value 32");
    engine.send("setoption name SyzygyPath value <empty>");
    engine.send("isready");
    let lines = engine.expect_line("readyok");
    engine.check(lines.len() == 1, "no complaint");
    engine.send("position startpos moves e2e4");
    engine.send("go wtime 5000 btime 5000 winc 50 binc 50");
    let (best, _, _) = bestmove(&mut engine);
    engine.send("position startpos moves e2e4");
    let legal = legal_moves(&mut engine);
    engine.check(legal.contains(&best), "a legal reply");
    engine.send("quit");
    let status = engine.wait_exit(Duration::from_secs(4));
    engine.check(status.success(), "a clean exit");
    engine.check(engine.stderr().is_empty(), "nothing on stderr");
}
