//! `sentinel play`, driven through stdin as a script would: whole sessions (games to mate,
//! take-backs, saving and loading, bad moves and files) and the clock.

mod common;

use common::{Engine, run_with_input};
use std::time::Duration;

const START_FEN: &str = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1";

/// Runs a session with these arguments (plus `--ascii`) and input lines; returns stdout.
fn session(args: &[&str], lines: &[&str]) -> String {
    let mut all = vec!["play", "--ascii"];
    all.extend_from_slice(args);
    let input: String = lines.iter().map(|line| format!("{line}\n")).collect();
    let (code, stdout, stderr) = run_with_input(&all, &input);
    assert_eq!(code, Some(0), "sentinel {} failed:\n{stdout}\n{stderr}", all.join(" "));
    stdout
}

/// The lines the session printed in answer to `fen`: whole FENs, in order.
fn fens(output: &str) -> Vec<String> {
    output
        .split(['\n', '>'])
        .map(str::trim)
        .filter(|part| part.split(' ').count() == 6 && part.matches('/').count() == 7)
        .map(str::to_string)
        .collect()
}

/// The last move list drawn under a board.
fn last_move_list(output: &str) -> String {
    output.lines().rfind(|l| l.starts_with("    1.")).unwrap_or_default().trim().to_string()
}

fn temp_file(name: &str) -> String {
    let dir = std::env::temp_dir().join(format!("sentinel-play-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir.join(name).to_string_lossy().into_owned()
}

#[test]
fn a_short_game_to_mate() {
    // 1. Re8+ Rxe8 (forced) 2. Rxe8#: the board is drawn from White's side, the engine's move
    // announced in SAN, the mate announced with the result.
    let out = session(&["--fen", "3r2k1/5ppp/8/8/8/8/4R3/4R1K1 w - - 0 1"], &["Re8+", "Rxe8", "Rxe8"]);
    assert!(out.contains("You play 1. Re8+"), "{out}");
    assert!(out.contains("Sentinel plays 1... Rxe8"), "{out}");
    assert!(out.contains("You play 2. Rxe8#"), "{out}");
    assert!(out.contains("Game over: checkmate; White wins (1-0)."), "{out}");
    assert!(out.contains(" 8   .  .  .  . (R) .  k  .   8"), "{out}");
    assert!(out.contains("    1. Re8+ Rxe8 2. Rxe8#\n    1-0 (checkmate)"), "{out}");
    assert!(out.contains("The game is over (checkmate, 1-0)"), "the third move is refused:\n{out}");
    // A promotion written with `=`.
    let out = session(&["--fen", "k7/4P3/1K6/8/8/8/8/8 w - - 0 1", "--level", "5"], &["e8=Q"]);
    assert!(out.contains("You play 1. e8=Q#"), "{out}");
    assert!(out.contains("White wins (1-0)"), "{out}");
}

/// `--seed` is the engine's `Skill Seed`, whose range fits a GUI's 32-bit integers: the
/// largest such seed plays, one more is a bad argument.
#[test]
fn the_seed_is_a_skill_seed() {
    let out = session(&["--seed", "2147483647", "--level", "5"], &["e4"]);
    assert!(out.contains("You play 1. e4"), "{out}");
    let (code, _, stderr) = run_with_input(&["play", "--seed", "2147483648"], "");
    assert_eq!(code, Some(2), "{stderr}");
}

#[test]
fn undo_takes_back_a_whole_move() {
    let out = session(&["--seed", "3"], &["e4", "fen", "undo", "fen", "undo", "d4", "fen"]);
    let fens = fens(&out);
    assert_eq!(fens.len(), 3, "{out}");
    // After 1.e4 and the engine's reply, White is to move at move 2.
    assert!(fens[0].contains("/4P3/") && fens[0].contains(" w ") && fens[0].ends_with(" 2"), "{out}");
    assert_eq!(fens[1], START_FEN, "{out}");
    assert!(out.contains("There is no move of yours to take back."), "{out}");
    assert!(fens[2].contains("/3P4/") && fens[2].contains(" w ") && fens[2].ends_with(" 2"), "{out}");
}

#[test]
fn save_then_load_gives_the_same_game() {
    let path = temp_file("saved.pgn");
    let out = session(&["--seed", "5", "--level", "1500"], &["e4", "Nf3", "Bc4", &format!("save {path}"), "fen"]);
    let saved_fen = fens(&out).pop().expect("a FEN");
    let saved_moves = last_move_list(&out);
    assert!(saved_moves.starts_with("1. e4 ") && saved_moves.contains(" 3. Bc4 "), "{out}");
    let pgn = std::fs::read_to_string(&path).unwrap();
    for tag in
        ["[Event ", "[Site ", "[Date ", "[Round ", "[White \"Player\"]", "[Black \"Sentinel\"]", "[Result \"*\"]"]
    {
        assert!(pgn.contains(tag), "{tag} missing:\n{pgn}");
    }
    assert!(pgn.contains("[BlackElo \"1500\"]"), "{pgn}");

    // In the same session after `new`, and in a new session that starts from the file.
    let out = session(&[], &["e4", "new", &format!("load {path}"), "fen"]);
    assert_eq!(fens(&out).pop().unwrap(), saved_fen, "{out}");
    assert_eq!(last_move_list(&out), saved_moves, "{out}");
    assert!(out.contains("you play White, the engine at Elo 1500"), "{out}");
    let out = session(&["--load", &path], &["fen"]);
    assert_eq!(fens(&out).pop().unwrap(), saved_fen, "{out}");
    assert_eq!(last_move_list(&out), saved_moves, "{out}");
    let greeting = format!("Sentinel {} at Elo 1500: you play White.", env!("SENTINEL_VERSION"));
    assert!(out.contains(&greeting), "{out}");

    // A FEN loads too, from a file or as text.
    let fen_file = temp_file("position.fen");
    std::fs::write(&fen_file, "k7/4P3/1K6/8/8/8/8/8 w - - 0 1\n").unwrap();
    let out = session(&[], &[&format!("load {fen_file}"), "fen", "load 8/8/8/8/8/8/8/K1k5 b - - 0 1", "fen"]);
    assert_eq!(fens(&out), ["k7/4P3/1K6/8/8/8/8/8 w - - 0 1", "8/8/8/8/8/8/8/K1k5 b - - 0 1"], "{out}");
}

#[test]
fn illegal_and_ambiguous_moves_are_explained() {
    let fen = "4k3/8/8/8/8/8/8/1N2KN2 w - - 0 1";
    let out = session(&["--fen", fen], &["Nd2", "Ke8", "Nd9", "moves", "fen"]);
    assert!(out.contains("Ambiguous move 'Nd2' (could be Nbd2 or Nfd2)."), "{out}");
    assert!(out.contains("Illegal move 'Ke8' here. Type 'moves' for the legal moves."), "{out}");
    assert!(out.contains("'Nd9' is neither a command nor a move"), "{out}");
    assert!(out.contains("Legal moves (11): Kd1 Kd2 Ke2 Kf2 Na3 Nbd2 Nc3 Ne3 Nfd2 Ng3 Nh2"), "{out}");
    assert_eq!(fens(&out), [fen], "nothing was played:\n{out}");
}

#[test]
fn a_broken_pgn_is_reported_and_the_game_goes_on() {
    let path = temp_file("broken.pgn");
    std::fs::write(&path, "[Event \"broken\"]\n\n1. e4 e5\n2. Qxf7 *\n").unwrap();
    let out = session(&["--seed", "2"], &["d4", "fen", &format!("load {path}"), "fen", "load /no/such/file.pgn"]);
    assert!(out.contains(&format!("Cannot load {path}: line 4, column 4: ")), "{out}");
    assert!(out.contains("The game in progress goes on."), "{out}");
    let fens = fens(&out);
    assert_eq!(fens.len(), 2, "{out}");
    assert_eq!(fens[0], fens[1], "{out}");
    assert!(out.contains("Cannot load /no/such/file.pgn: "), "{out}");
    // From the command line a broken file is an error.
    let (code, _, stderr) = run_with_input(&["play", "--load", &path], "");
    assert_eq!(code, Some(2));
    assert!(stderr.contains("line 4, column 4"), "{stderr}");
}

#[test]
fn commands_answer() {
    let out = session(
        &["--color", "black", "--seed", "9"],
        &["help", "hint", "level 3", "level 5000", "flip", "resign", "e5"],
    );
    assert!(out.contains("you play Black"), "{out}");
    assert!(out.contains("Sentinel plays 1. "), "the engine opens as White:\n{out}");
    assert!(out.contains("undo ") && out.contains("save FILE"), "{out}");
    assert!(out.contains("Hint: "), "{out}");
    assert!(out.contains("The engine now plays at Skill Level 3 (Elo "), "{out}");
    assert!(out.contains("Cannot set the level: a level is a Skill Level from 0 to 20 or an Elo"), "{out}");
    // Drawn from Black's side first, from White's after `flip`.
    let boards: Vec<&str> = out.lines().filter(|l| l.starts_with("     ")).collect();
    assert!(boards.first().unwrap().starts_with("     h  g"), "{out}");
    assert!(boards.last().unwrap().starts_with("     a  b"), "{out}");
    assert!(out.contains("Game over: Black resigns; White wins (1-0)."), "{out}");
    assert!(out.contains("The game is over (Black resigns, 1-0)"), "{out}");
}

#[test]
fn the_flag_falls() {
    // 1.2 seconds for White, who does not move.
    let mut engine = Engine::start_with(&["play", "--ascii", "--tc", "0.02+0"]);
    let line = engine.expect_within(Duration::from_secs(20), "flag fall", |l| l.contains("Game over"));
    let last = line.last().unwrap();
    engine.check(last.contains("White's time ran out; Black wins (0-1)."), last);
    engine.send("quit");
    engine.wait_exit(Duration::from_secs(5));
}
