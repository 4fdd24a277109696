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
    // Tag pairs start `[Name`; a comment's command (`[%clk ...]`) may start a line too.
    let tag = |line: &str| line.starts_with('[') && line[1..].starts_with(|c: char| c.is_ascii_alphanumeric());
    for line in pgn.lines().filter(|line| !tag(line)) {
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
    // (The movetext wraps at 80 columns, where depending on the summary's length, the opening's
    // name in it among the rest: comments are looked for with line ends read as spaces.)
    let flat = out.replace('\n', " ");
    assert!(flat.contains("{an early queen}") && out.contains("[White \"A\"]") && out.ends_with("0-1\n"), "{out}");
    assert!(flat.contains("White: accuracy ") && flat.contains("1 blunder."), "{out}");
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

/// The real game of `docs/review-example-clock.pgn`: Aronian against Topalov, London 2016,
/// with the clocks of the boards' DGT clocks (and the time control the event played).
fn clock_example() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("docs/review-example-clock.pgn")
}

/// Each main-line move of the first game of a reviewed PGN: its SAN, its NAGs and the text of
/// its comments.
fn annotated_moves(pgn: &str) -> Vec<(String, Vec<u8>, String)> {
    let movetext = pgn.split("\n\n").nth(1).unwrap_or("").replace('\n', " ");
    let mut moves: Vec<(String, Vec<u8>, String)> = Vec::new();
    let mut chars = movetext.chars().peekable();
    let mut depth = 0;
    while let Some(c) = chars.next() {
        match c {
            '{' => {
                let text: String = chars.by_ref().take_while(|&c| c != '}').collect();
                if let (0, Some(last)) = (depth, moves.last_mut()) {
                    last.2.push_str(&text);
                    last.2.push(' ');
                }
            }
            '(' => depth += 1,
            ')' => depth -= 1,
            c if depth > 0 || c.is_whitespace() => {}
            c => {
                let mut word = c.to_string();
                while let Some(&next) = chars.peek().filter(|c| !c.is_whitespace() && !"{()".contains(**c)) {
                    word.push(next);
                    chars.next();
                }
                let result = ["1-0", "0-1", "1/2-1/2", "*"].contains(&word.as_str());
                let word = word.trim_start_matches(|c: char| c.is_ascii_digit() || c == '.');
                if let Some(nag) = word.strip_prefix('$') {
                    moves.last_mut().unwrap().1.push(nag.parse().unwrap());
                } else if !word.is_empty() && !result {
                    moves.push((word.to_string(), Vec::new(), String::new()));
                }
            }
        }
    }
    moves
}

/// The `[%eval]` of a comment as lichess reads it: centipawns, or a mate in moves.
fn eval_of(comment: &str) -> Option<Result<i32, i32>> {
    let start = comment.find("[%eval ")? + "[%eval ".len();
    let text = &comment[start..start + comment[start..].find(']')?];
    Some(match text.strip_prefix('#') {
        Some(mate) => Err(mate.parse().unwrap()),
        None => Ok((text.parse::<f64>().unwrap() * 100.0).round() as i32),
    })
}

/// Lichess's formulas, written again from their publication (lila's `WinPercent`, `Advice`
/// and `AccuracyPercent`) rather than taken from the engine, to check the review against.
mod lichess {
    pub fn chances(cp: i32) -> f64 {
        2.0 / (1.0 + (-0.00368208 * f64::from(cp)).exp()) - 1.0
    }

    /// Centipawns (Ok) or a mate (Err) held to ±1000, as win percentages take them.
    pub fn ceiled(eval: Result<i32, i32>) -> i32 {
        match eval {
            Ok(cp) => cp.clamp(-1000, 1000),
            Err(mate) => 1000 * mate.signum(),
        }
    }

    pub fn win(eval: Result<i32, i32>) -> f64 {
        50.0 + 50.0 * chances(ceiled(eval))
    }

    pub fn move_accuracy(before: f64, after: f64) -> f64 {
        if after >= before {
            return 100.0;
        }
        (103.1668100711649 * (-0.04354415386753951 * (before - after)).exp() - 3.166924740191411 + 1.0)
            .clamp(0.0, 100.0)
    }

    /// The NAG lichess gives a move from `before` to `after` (White's side), White moving or not.
    pub fn nag(before: Result<i32, i32>, after: Result<i32, i32>, white: bool) -> Option<u8> {
        let own = |e: Result<i32, i32>| if white { e } else { e.map(|cp| -cp).map_err(|m| -m) };
        let judge =
            |lost: f64| [(0.3, 4), (0.2, 2), (0.1, 6)].into_iter().find(|&(t, _)| lost >= t).map(|(_, nag)| nag);
        match (own(before), own(after)) {
            (Ok(b), Ok(a)) => judge(chances(b) - chances(a)),
            (Ok(b), Err(m)) if m < 0 => Some(if b < -999 {
                6
            } else if b < -700 {
                2
            } else {
                4
            }),
            (Err(m), a) if m > 0 => {
                let left = match a {
                    Ok(cp) => cp,
                    Err(n) if n < 0 => 0,
                    Err(_) => return None,
                };
                Some(if left > 999 {
                    6
                } else if left > 700 {
                    2
                } else {
                    4
                })
            }
            _ => None,
        }
    }

    /// Each side's accuracy from White's win percentages before the first move and after each.
    pub fn accuracy(wins: &[f64]) -> [f64; 2] {
        let moves = wins.len() - 1;
        let window = (moves / 10).clamp(2, 8);
        let sd = |xs: &[f64]| {
            let mean = xs.iter().sum::<f64>() / xs.len() as f64;
            (xs.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / xs.len() as f64).sqrt().clamp(0.5, 12.0)
        };
        let mut weights = vec![sd(&wins[..window]); window - 2];
        weights.extend(wins.windows(window).map(sd));
        let mut sides = [(0.0, 0.0, 0.0, 0.0); 2];
        for (i, pair) in wins.windows(2).enumerate() {
            let (side, accuracy) = match i % 2 {
                0 => (0, move_accuracy(pair[0], pair[1])),
                _ => (1, move_accuracy(100.0 - pair[0], 100.0 - pair[1])),
            };
            let s = &mut sides[side];
            (s.0, s.1, s.2, s.3) =
                (s.0 + accuracy * weights[i], s.1 + weights[i], s.2 + 1.0 / accuracy.max(1.0), s.3 + 1.0);
        }
        sides.map(|(weighted, weights, inverses, count)| (weighted / weights + count / inverses) / 2.0)
    }
}

fn json_file(name: &str) -> PathBuf {
    std::env::temp_dir().join(format!("sentinel-review-{}-{name}.json", std::process::id()))
}

/// The review's marks and accuracies are lichess's on the review's own `[%eval]`s: the test
/// reads the evaluations back from the PGN and works marks and accuracy out again with
/// lichess's formulas (the position before the first move at lichess's +0.15): marks, each
/// side's accuracy and average loss. The JSON says which moves were the engine's own choice
/// or in the book, which lichess does not mark.
#[test]
fn marks_and_accuracy_are_lichess_formulas_on_the_reviews_evals() {
    let json = json_file("lichess");
    let (code, out, err) = run(&[
        "analyse",
        clock_example().to_str().unwrap(),
        "--nodes",
        "3000",
        "--quiet",
        "--json",
        json.to_str().unwrap(),
    ]);
    assert_eq!(code, Some(0), "{err}");
    let figures: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    let game = &figures["games"][0];
    let moves = annotated_moves(&out);
    assert_eq!(moves.len(), 106, "{out}");
    let evals: Vec<Result<i32, i32>> = moves.iter().map(|(_, _, comment)| eval_of(comment).unwrap()).collect();
    let mut before = Ok(15);
    let mut wins = vec![lichess::win(before)];
    let mut marked = 0;
    for (i, ((san, nags, _), &after)) in moves.iter().zip(&evals).enumerate() {
        let figures = &game["moves"][i];
        assert_eq!(figures["san"], san.as_str());
        let lichess_nag = lichess::nag(before, after, i % 2 == 0);
        let unmarked = figures["engine_choice"] == true || figures["book"] == true;
        let expected: Vec<u8> = if unmarked { vec![] } else { lichess_nag.into_iter().collect() };
        // An only move (`$1`) is Sentinel's own addition; lichess has none.
        let nags: Vec<u8> = nags.iter().copied().filter(|&nag| nag != 1).collect();
        assert_eq!(nags, expected, "move {} {san}: {before:?} -> {after:?}\n{out}", i / 2 + 1);
        marked += nags.len();
        wins.push(lichess::win(after));
        before = after;
    }
    assert!(marked > 0, "the game has marked moves: {out}");
    let [white, black] = lichess::accuracy(&wins);
    for (side, accuracy) in [("white", white), ("black", black)] {
        let reported = game["summary"][side]["accuracy"].as_f64().unwrap();
        assert!((reported - accuracy).abs() < 1e-6, "{side}: {reported} against lichess's {accuracy}");
    }
    let flat = out.replace('\n', " ");
    for (side, accuracy) in [("White", white), ("Black", black)] {
        let summary = format!("{side}: accuracy {:.0}%", accuracy.round());
        assert!(flat.contains(&summary), "{summary}\n{out}");
    }
    // The average loss: the mover's drop in centipawns, each score held to ±1000.
    let mut losses = [Vec::new(), Vec::new()];
    let mut before = Ok(15);
    for (i, &after) in evals.iter().enumerate() {
        let drop = lichess::ceiled(before) - lichess::ceiled(after);
        losses[i % 2].push(f64::from(if i % 2 == 0 { drop } else { -drop }.max(0)));
        before = after;
    }
    for (side, losses) in ["white", "black"].iter().zip(losses) {
        let mean = losses.iter().sum::<f64>() / losses.len() as f64;
        let reported = game["summary"][side]["average_cp_loss"].as_f64().unwrap();
        assert!((reported - mean).abs() < 1e-9, "{side}: {reported} against lichess's {mean}");
    }
}

/// A real game, reviewed: its opening named from the table (tags and summary), the clocks
/// read (the time of each move in its comment, the longest thinks and the time left at the
/// mistakes in the summary, a time strip in the graph), accuracy per phase, and the same
/// review as JSON, read back.
#[test]
fn a_real_game_with_its_opening_clocks_phases_and_json() {
    let json = json_file("real");
    let graph = std::env::temp_dir().join(format!("sentinel-review-{}-real.svg", std::process::id()));
    let args = ["--nodes", "3000", "--quiet", "--json", json.to_str().unwrap(), "--graph", graph.to_str().unwrap()];
    let (code, out, err) = run(&[&["analyse", clock_example().to_str().unwrap()], &args[..]].concat());
    assert_eq!(code, Some(0), "{err}");
    assert_eq!(err, "");
    // The opening, as the table (pgn-extract's eco.pgn) names 1.c4 g6 2.Nc3 c5 3.g3 Bg7 4.Bg2
    // Nc6 5.Nf3: the deepest position of the game it names, reached by transposition (the
    // table's line is 1.c4 c5 2.Nc3 Nc6 3.g3 g6 4.Bg2 Bg7 5.Nf3).
    assert!(out.contains("[ECO \"A37\"]\n"), "{out}");
    let name = "English: symmetrical variation";
    let flat = out.replace('\n', " ");
    assert!(
        out.contains(&format!("[Opening \"{name}\"]")) && flat.contains(&format!("Opening: A37 {name}, out of")),
        "{out}"
    );
    let figures: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    assert_eq!(figures["schema"], 1);
    assert_eq!(figures["formulas"], "lichess");
    let game = &figures["games"][0];
    assert_eq!(game["tags"]["White"], "Aronian, Levon");
    assert_eq!(game["opening"]["eco"], "A37");
    assert_eq!(game["opening"]["ply"], 9);
    let book_plies = game["opening"]["book_plies"].as_u64().unwrap() as usize;
    let left = game["opening"]["left_book"]["move"].as_str().unwrap();
    assert!(flat.contains(&format!("out of the book with {left}.")), "{left}\n{out}");
    let moves = game["moves"].as_array().unwrap();
    assert_eq!(moves.len(), 106);
    assert_eq!(book_plies, 9);
    assert_eq!(left, "5... d6");
    assert!(moves[..book_plies].iter().all(|m| m["book"] == true && m["mark"].is_null()));
    assert_eq!(moves[book_plies]["book"], false);
    // Lichess's division, worked out again with python-chess: the middlegame from the
    // position after ply 29, the endgame from ply 92.
    assert_eq!(game["division"]["middlegame"], 29);
    assert_eq!(game["division"]["endgame"], 92);
    assert_eq!((moves[28]["phase"].as_str(), moves[29]["phase"].as_str()), (Some("opening"), Some("middlegame")));
    assert_eq!(moves[92]["phase"], "endgame");
    // 40.Rc1 took 13:05 (0:21:47 + the hour of the second period - 1:08:42); 41.Nac5 2:09
    // (1:08:42 + 30 s - 1:07:03); 39...Rdb5 left Topalov 1:55.
    assert_eq!(moves[78]["san"], "Rc1");
    assert_eq!(moves[78]["clock"]["spent"], 785.0);
    assert_eq!(moves[80]["clock"]["spent"], 129.0);
    assert_eq!(moves[77]["clock"]["left"], 115.0);
    let rc1 = after_move(&out, "40. Rc1");
    assert!(rc1.contains("[%emt 0:13:05]") && rc1.contains("[%clk 1:08:42]"), "{rc1}");
    // Every move's evaluations, loss and line are there, and read as the PGN says.
    for (m, (san, _, comment)) in moves.iter().zip(annotated_moves(&out)) {
        assert_eq!(m["san"], san.as_str());
        let after = &m["eval_after"];
        let written = eval_of(&comment).unwrap();
        let mate = || after["mate"].as_i64().unwrap() as i32;
        assert_eq!(written, after["cp"].as_i64().map(|cp| cp as i32).ok_or_else(mate));
        assert!(m["eval_before"].is_object() && m["win_loss"].as_f64().unwrap() >= 0.0, "{m}");
        assert!(m["best"].is_string() && !m["line"].as_array().unwrap().is_empty(), "{m}");
    }
    for side in ["white", "black"] {
        let summary = &game["summary"][side];
        let phases = &summary["phases"];
        for phase in ["opening", "middlegame", "endgame"] {
            let accuracy = phases[phase].as_f64().unwrap();
            assert!((0.0..=100.0).contains(&accuracy), "{side} {phase}: {accuracy}");
        }
        let thinks = summary["longest_thinks"].as_array().unwrap();
        assert_eq!(thinks.len(), 3);
        assert!(thinks[0]["seconds"].as_f64() >= thinks[2]["seconds"].as_f64());
    }
    // White's longest thinks: 44.Qa4, 15:00 (0:51:58 + 30 s - 0:37:28), 21.Qb1, 14:36
    // (1:27:44 - 1:13:08) and 45.Qxe4, 14:34.
    let thinks: Vec<(&str, f64)> = game["summary"]["white"]["longest_thinks"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| (t["move"].as_str().unwrap(), t["seconds"].as_f64().unwrap()))
        .collect();
    assert_eq!(thinks, [("44. Qa4", 900.0), ("21. Qb1", 876.0), ("45. Qxe4", 874.0)]);
    let white = out.split("White: accuracy").nth(1).unwrap().split("Black:").next().unwrap().replace('\n', " ");
    assert!(white.contains("(opening ") && white.contains("middlegame ") && white.contains("endgame "), "{white}");
    // The moves carry their marks there (`45. Qxe4? 14:34`); without them:
    let unmarked = white.replace(['?', '!'], "");
    assert!(unmarked.contains("longest thinks 44. Qa4 15:00, 21. Qb1 14:36, 45. Qxe4 14:34"), "{white}");
    let svg = std::fs::read_to_string(&graph).unwrap();
    assert!(svg.contains("Time per move (longest 15:00)") && svg.contains("<title>44. Qa4 15:00</title>"), "{svg}");
}

/// What cannot be read is said and the rest reviewed: a broken clock is a warning (the game
/// is reviewed without that move's time), a game without moves is skipped, a game from a
/// set-up position has no opening.
#[test]
fn broken_clocks_empty_games_and_unknown_openings() {
    let text = "[Event \"Broken clock\"]\n[TimeControl \"60+0\"]\n\n1. e4 {[%clk 0:00:59]} e5 {[%clk 0:6x:00]} \
                2. Qh5 {[%clk 0:00:50]} Nc6 {[%clk 0:00:40]} 3. Qxe5+ {[%clk 0:00:45} Nxe5 0-1\n\n\
                [Event \"Empty\"]\n[Result \"*\"]\n\n*\n\n\
                [Event \"Set up\"]\n[SetUp \"1\"]\n[FEN \"6k1/p4ppp/8/8/8/8/5PPP/3R2K1 b - - 0 1\"]\n\n1... a6 2. Rd8# 1-0\n";
    let games = file("bad-input.pgn", text);
    let json = json_file("bad-input");
    let (code, out, err) =
        run(&["analyse", games.to_str().unwrap(), "--nodes", "2000", "--quiet", "--json", json.to_str().unwrap()]);
    assert_eq!(code, Some(1), "the empty game is skipped: {err}");
    let lines: Vec<&str> = err.lines().collect();
    assert_eq!(lines.len(), 3, "{err}");
    assert!(lines[0].ends_with("game 1 (from line 1): move 1...: '[%clk 0:6x:00]' is not a clock time (H:MM:SS); the move's time is left out"), "{err}");
    assert!(lines[1].contains("game 1 (from line 1): move 3.: '[%clk 0:00:45' is not a clock time"), "{err}");
    assert!(lines[2].ends_with("game 2 (from line 6): the game has no moves to review; skipped"), "{err}");
    assert!(!err.contains("panicked"));
    assert_eq!(main_line(&out), ["e4", "e5", "Qh5", "Nc6", "Qxe5+", "Nxe5", "a6", "Rd8#"]);
    // The readable clocks still give their times: 2.Qh5 took 9 s, 2...Nc6 has no time before it.
    let movetext = &out[out.find("blunders.}").unwrap()..];
    assert!(after_move(movetext, "Qh5").contains("[%emt 0:00:09]"), "{out}");
    assert!(!after_move(movetext, "Nc6").contains("[%emt"), "{out}");
    assert!(out.replace('\n', " ").contains("longest thinks 2. Qh5 9 s, 1. e4 1 s."), "{out}");
    let figures: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    let games = figures["games"].as_array().unwrap();
    assert_eq!((games.len(), &games[0]["number"], &games[1]["number"]), (2, &1.into(), &3.into()));
    assert!(games[0]["moves"][1]["clock"].is_null() && games[0]["moves"][3]["clock"]["spent"].is_null());
    // The set-up game has no opening: no ECO tag, nothing in the summary.
    assert!(games[1]["opening"].is_null());
    let set_up = &out[out.find("[Event \"Set up\"]").unwrap()..];
    assert!(!set_up.contains("[ECO ") && !set_up.contains("Opening:"), "{set_up}");
}

#[test]
fn sentinel_marks_stay_behind_an_option() {
    let games = file("sentinel-marks.pgn", QUEEN_DROP);
    let (code, out, err) =
        run(&["analyse", games.to_str().unwrap(), "--nodes", "20000", "--quiet", "--marks", "sentinel"]);
    assert_eq!(code, Some(0), "{err}");
    assert!(out.contains("Sentinel's win model.") && after_move(&out, "Qxe5+").starts_with("$4"), "{out}");
    let (code, _, err) = run(&["analyse", games.to_str().unwrap(), "--marks", "stockfish"]);
    assert_eq!(code, Some(2));
    assert!(err.contains("--marks") && err.contains("lichess"), "{err}");
}
