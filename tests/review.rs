//! `sentinel analyse` and `sentinel epd` run as a user runs them, on small games and suites
//! whose answers are known, at node limits small enough to keep each run well under a second.

mod common;

use common::run;
use std::path::PathBuf;

/// A file in the temporary folder holding `text`, named for this test process.
fn file(name: &str, text: &str) -> PathBuf {
    let path = std::env::temp_dir().join(format!("sentinel-review-{}-{name}", std::process::id()));
    std::fs::write(&path, text).unwrap();
    path
}

/// 3.Qxe5+ gives the queen for a pawn; 3...Nxe5 takes it, the only sensible reply.
const QUEEN_DROP: &str = "[Event \"Queen drop\"]\n[White \"A\"]\n[Black \"B\"]\n[Result \"0-1\"]\n\n\
                          1. e4 e5 2. Qh5 {an early queen} Nc6 3. Qxe5+ Nxe5 0-1\n";

/// 1...a6 lets White mate at once on the back rank.
const BACK_RANK: &str = "[Event \"Back rank\"]\n[SetUp \"1\"]\n[FEN \"6k1/p4ppp/8/8/8/8/5PPP/3R2K1 b - - 0 1\"]\n\
                         [Result \"1-0\"]\n\n1... a6 2. Rd8# 1-0\n";

/// The movetext of `pgn`'s games as bare SAN moves: comments, variations, NAGs, move numbers
/// and results left out.
fn main_line(pgn: &str) -> Vec<String> {
    let mut moves = Vec::new();
    let (mut comment, mut depth) = (false, 0);
    let mut word = String::new();
    for line in pgn.lines().filter(|l| !l.starts_with('[')) {
        for c in line.chars().chain([' ']) {
            match c {
                '{' => comment = true,
                '}' => comment = false,
                '(' if !comment => depth += 1,
                ')' if !comment => depth -= 1,
                _ if comment || depth > 0 => {}
                ' ' => {
                    let w = std::mem::take(&mut word);
                    let result = ["1-0", "0-1", "1/2-1/2", "*"].contains(&w.as_str());
                    let w = w.trim_start_matches(|c: char| c.is_ascii_digit() || c == '.');
                    if !w.is_empty() && !w.starts_with('$') && !result {
                        moves.push(w.to_string());
                    }
                }
                c => word.push(c),
            }
        }
    }
    moves
}

/// What follows `san` in the main line (its NAGs, comments and variations), up to the next
/// move, with line ends as spaces.
fn after_move(pgn: &str, san: &str) -> String {
    let flat = pgn.replace('\n', " ");
    let at = flat.find(&format!(" {san} ")).unwrap_or_else(|| panic!("no {san} in\n{pgn}"));
    let rest = &flat[at + san.len() + 2..];
    let (mut comment, mut depth, mut nag) = (false, 0, false);
    for (i, c) in rest.char_indices() {
        match c {
            '{' => comment = true,
            '}' => comment = false,
            '(' if !comment => depth += 1,
            ')' if !comment => depth -= 1,
            '$' if !comment && depth == 0 => nag = true,
            c if c.is_ascii_digit() && nag => {}
            c if c.is_ascii_alphanumeric() && !comment && depth == 0 => return rest[..i].to_string(),
            _ => nag = false,
        }
    }
    rest.to_string()
}

#[test]
fn a_dropped_queen_is_a_blunder_and_the_best_reply_unmarked() {
    let games = file("queen.pgn", QUEEN_DROP);
    let graph = std::env::temp_dir().join(format!("sentinel-review-{}-queen.svg", std::process::id()));
    let (code, out, err) =
        run(&["analyse", games.to_str().unwrap(), "--nodes", "20000", "--quiet", "--graph", graph.to_str().unwrap()]);
    assert_eq!(code, Some(0), "{err}");
    assert_eq!(err, "", "--quiet writes nothing on stderr");
    let blunder = after_move(&out, "Qxe5+");
    assert!(blunder.starts_with("$4 {[%eval -"), "3.Qxe5+ should be a blunder: {blunder:?}\n{out}");
    assert!(blunder.contains("Blunder.") && blunder.contains("was best."), "{out}");
    // The better line follows as a variation starting with White's third move.
    let at = out.find("Qxe5+ $4").unwrap();
    assert!(out[at..].contains("} (3. "), "{out}");
    let reply = after_move(&out, "Nxe5");
    assert!(reply.trim_start().starts_with("{[%eval -") && !reply.contains('$'), "{reply:?}\n{out}");
    // Every move has an evaluation; the game's own comment and tags are kept.
    assert_eq!(out.matches("[%eval ").count(), 6, "{out}");
    assert!(out.contains("{an early queen}") && out.contains("[White \"A\"]") && out.ends_with("0-1\n"), "{out}");
    assert!(out.contains("White: accuracy ") && out.contains("1 blunder."), "{out}");
    // The graph marks the blunder with a red dot and names it in its tooltip.
    let svg = std::fs::read_to_string(&graph).unwrap();
    assert!(svg.starts_with("<svg") && svg.trim_end().ends_with("</svg>"), "{svg}");
    assert!(svg.contains("fill=\"#d9262b\"") && svg.contains("<title>3. Qxe5+?? Blunder"), "{svg}");
}

#[test]
fn mates_are_written_as_moves_to_mate() {
    let games = file("mate.pgn", BACK_RANK);
    let (code, out, err) = run(&["analyse", games.to_str().unwrap(), "--depth", "4", "--quiet"]);
    assert_eq!(code, Some(0), "{err}");
    assert!(after_move(&out, "a6").contains("[%eval #1]"), "{out}");
    assert!(after_move(&out, "Rd8#").contains("[%eval #0]"), "{out}");
    assert!(out.contains("[FEN \"6k1/p4ppp/8/8/8/8/5PPP/3R2K1 b - - 0 1\"]") && out.contains("1... a6"), "{out}");
}

#[test]
fn the_output_reads_back_with_the_same_moves() {
    let games = file("again.pgn", &format!("{QUEEN_DROP}\n{BACK_RANK}"));
    let (code, first, err) = run(&["analyse", games.to_str().unwrap(), "--nodes", "5000", "--quiet"]);
    assert_eq!(code, Some(0), "{err}");
    let reviewed = file("reviewed.pgn", &first);
    let (code, second, err) = run(&["analyse", reviewed.to_str().unwrap(), "--nodes", "5000"]);
    assert_eq!(code, Some(0), "the reviewed games read back: {err}");
    assert_eq!(main_line(&second), main_line(&first));
    assert_eq!(main_line(&first), ["e4", "e5", "Qh5", "Nc6", "Qxe5+", "Nxe5", "a6", "Rd8#"]);
    // The first review's evaluations are replaced, not repeated; progress went to stderr.
    assert_eq!(second.matches("[%eval ").count(), 8, "{second}");
    assert!(err.contains("2 games, 10 positions"), "{err}");
}

#[test]
fn side_and_from_move_limit_what_is_judged() {
    let games = file("side.pgn", QUEEN_DROP);
    let path = games.to_str().unwrap();
    let (code, out, _) = run(&["analyse", path, "--nodes", "20000", "--quiet", "--side", "black"]);
    assert_eq!(code, Some(0));
    assert!(!out.contains("$4") && !out.contains("White: accuracy") && out.contains("Black: accuracy"), "{out}");
    let (code, out, _) = run(&["analyse", path, "--nodes", "20000", "--quiet", "--from-move", "3"]);
    assert_eq!(code, Some(0));
    assert_eq!(out.matches("[%eval ").count(), 2, "{out}");
    assert!(out.contains("from move 3") && out.contains("$4"), "{out}");
}

#[test]
fn book_moves_are_not_reviewed() {
    // The book holds 1.e4 and 1...e5: the review starts at 2.Qh5.
    let book = common::write_book("review");
    let games = file("book.pgn", QUEEN_DROP);
    let (code, out, err) =
        run(&["analyse", games.to_str().unwrap(), "--book", book.to_str().unwrap(), "--nodes", "5000", "--quiet"]);
    assert_eq!(code, Some(0), "{err}");
    assert_eq!(out.matches("[%eval ").count(), 4, "{out}");
    assert!(out.contains("from move 2") && !after_move(&out, "e4").contains("[%eval"), "{out}");
    let (code, _, err) = run(&["analyse", games.to_str().unwrap(), "--book", "/nonexistent.bin"]);
    assert_eq!(code, Some(2));
    assert!(err.contains("/nonexistent.bin"), "{err}");
}

#[test]
fn broken_games_are_reported_and_the_others_reviewed() {
    let text = format!(
        "{QUEEN_DROP}\n[Event \"Illegal\"]\n\n1. e4 e5 2. Ke3 *\n\n[Event \"Cut\"]\n\n1. d4 {{a comment that \
         never ends\n\n{BACK_RANK}\n[Event \"Truncated\"]\n[Site \"x"
    );
    let games = file("broken.pgn", &text);
    let (code, out, err) = run(&["analyse", games.to_str().unwrap(), "--nodes", "2000", "--quiet"]);
    assert_eq!(code, Some(1), "a skipped game makes the exit status 1: {err}");
    let lines: Vec<&str> = err.lines().collect();
    assert_eq!(lines.len(), 3, "{err}");
    assert!(lines[0].contains("game 2 (from line 8): line 10, column 13: illegal move 'Ke3'"), "{err}");
    assert!(lines[1].contains("game 3 (from line 12): line 14, column 7: this '{' opens a comment"), "{err}");
    let truncated = "game 5 (from line 23): line 24, column 7: the value of tag Site has no closing quote";
    assert!(lines[2].contains(truncated) && lines[2].ends_with("; skipped"), "{err}");
    assert!(!err.contains("panicked"));
    assert_eq!(main_line(&out), ["e4", "e5", "Qh5", "Nc6", "Qxe5+", "Nxe5", "a6", "Rd8#"]);
}

#[test]
fn nothing_to_review_is_an_error() {
    let empty = file("empty.pgn", "");
    let (code, out, err) = run(&["analyse", empty.to_str().unwrap()]);
    assert_eq!((code, out.as_str()), (Some(2), ""));
    assert!(err.contains("holds no games"), "{err}");
    let bad = file("bad.pgn", "1. e4 e5 2. Qxf7 *\n");
    let (code, _, err) = run(&["analyse", bad.to_str().unwrap()]);
    assert_eq!(code, Some(2));
    assert!(err.contains("game 1 (from line 1)") && err.contains("no game of"), "{err}");
    let (code, _, err) = run(&["analyse", "/nonexistent/games.pgn"]);
    assert_eq!(code, Some(2));
    assert!(err.contains("cannot read /nonexistent/games.pgn"), "{err}");
}

#[test]
fn an_epd_suite_reports_each_position_and_skips_bad_lines() {
    let suite = file(
        "suite.epd",
        "# a comment\n\
         6k1/5ppp/8/8/8/8/8/R5K1 w - - bm Ra8#; id \"mate.1\";\n\
         4k3/8/8/8/8/8/8/4K3 w - - bm Qd1;\n\
         r3k3/8/8/8/8/8/8/4K2Q w - - bm Qxa8; id \"rook\";\n\
         6k1/5ppp/8/8/8/8/8/R5K1 w - - dm 1; am Kf2; id \"mate.2\";\n",
    );
    let (code, out, err) = run(&["epd", suite.to_str().unwrap(), "--nodes", "20000"]);
    assert_eq!(code, Some(1), "a skipped line makes the exit status 1: {out}{err}");
    assert!(err.contains(":3: bm: illegal move 'Qd1'; skipped"), "{err}");
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines.len(), 4, "{out}");
    assert!(lines[0].starts_with("mate.1") && lines[0].contains("solved Ra8#") && lines[0].contains("found at depth"));
    assert!(lines[1].starts_with("rook") && lines[1].contains("solved Qxa8+"), "{out}");
    assert!(lines[2].starts_with("mate.2") && lines[2].contains("solved Ra8#") && lines[2].contains("mate 1"), "{out}");
    assert!(lines[3].starts_with("solved 3/3 (100.0 %)"), "{out}");
    let empty = file("empty.epd", "\n# nothing\n");
    let (code, _, err) = run(&["epd", empty.to_str().unwrap()]);
    assert_eq!(code, Some(2));
    assert!(err.contains("no positions to test"), "{err}");
}
