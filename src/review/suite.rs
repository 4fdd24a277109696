//! `sentinel epd`: a test suite run position by position. Each position is searched afresh (an
//! empty table, as a GUI's new game) under the same limit; it is solved when the move chosen
//! is one of its `bm` moves and none of its `am` moves, and, for `dm N`, when the search scores
//! a mate in N moves or fewer. The progress lines show when the search settled on a right
//! answer: the first iteration from which every later one was right.

use super::{Effort, Searched, search};
use crate::board::{Board, Move};
use crate::notation::epd::EpdRecord;
use crate::notation::san::{SanError, parse_move_text, to_san};
use crate::search::{Info, Limits, Score, Searcher};
use std::io::Write;
use std::time::{Duration, Instant};

/// One position of a suite and what solves it.
#[derive(Clone)]
pub struct Test {
    /// Its `id`, or the line it came from.
    pub id: String,
    pub board: Board,
    /// `bm`: any of these solves it.
    pub best: Vec<Move>,
    /// `am`: none of these may be played.
    pub avoid: Vec<Move>,
    /// `dm`: a mate in at most this many moves must be found.
    pub mate: Option<i32>,
}

impl Test {
    /// The test of suite line number `number`, None for a blank line or a comment (`#` or
    /// `%`), or why the line cannot be a test.
    pub fn parse(line: &str, number: usize) -> Result<Option<Test>, String> {
        // A line of nothing but spaces, a CR or a NUL byte (which some collections end their
        // lines with) is blank.
        let line = line.trim_matches(|c: char| c.is_whitespace() || c.is_control() || c == '\u{feff}');
        if line.is_empty() || line.starts_with('#') || line.starts_with('%') {
            return Ok(None);
        }
        let record = EpdRecord::parse(line).map_err(|e| e.to_string())?;
        let moves = |opcode: &str| -> Result<Vec<Move>, String> {
            let mut moves = Vec::new();
            for text in record.moves(opcode) {
                match parse_move_text(&record.board, &text) {
                    Ok(mv) => moves.push(mv),
                    // A move to avoid written ambiguously (Chess-EPDs' CCR test has `am Ne5`
                    // where either knight can take) avoids every move it can stand for. A best
                    // move must say which it is.
                    Err(SanError::Ambiguous { candidates, .. }) if opcode == "am" => {
                        moves.extend(candidates.iter().filter_map(|san| parse_move_text(&record.board, san).ok()))
                    }
                    Err(e) => return Err(format!("{opcode}: {e}")),
                }
            }
            Ok(moves)
        };
        let (best, avoid) = (moves("bm")?, moves("am")?);
        let mate = match record.operands("dm") {
            None => None,
            Some([n]) => {
                Some(n.parse::<i32>().ok().filter(|&n| n > 0).ok_or(format!("dm: '{n}' is not a number of moves"))?)
            }
            Some(_) => return Err("dm takes one number of moves".to_string()),
        };
        if best.is_empty() && avoid.is_empty() && mate.is_none() {
            return Err("no bm, am or dm operation to test".to_string());
        }
        let id = match record.operands("id") {
            Some([id, ..]) => id.clone(),
            _ => format!("line {number}"),
        };
        Ok(Some(Test { id, board: record.board, best, avoid, mate }))
    }

    /// Whether this move (and score) answers the test.
    fn right(&self, mv: Option<Move>, score: Option<Score>) -> bool {
        let move_right = mv
            .is_some_and(|mv| (self.best.is_empty() || self.best.contains(&mv)) && !self.avoid.contains(&mv))
            || (self.best.is_empty() && self.avoid.is_empty());
        let mate_right = self.mate.is_none_or(|n| matches!(score, Some(Score::Mate(k)) if (1..=n).contains(&k)));
        move_right && mate_right
    }

    /// What the test asks for, as the suite writes it: `bm Qd1+`, `am e4`, `dm 3`.
    fn wanted(&self) -> String {
        let mut parts = Vec::new();
        let sans = |moves: &[Move]| moves.iter().map(|&mv| to_san(&self.board, mv)).collect::<Vec<_>>().join(" ");
        if !self.best.is_empty() {
            parts.push(format!("bm {}", sans(&self.best)));
        }
        if !self.avoid.is_empty() {
            parts.push(format!("am {}", sans(&self.avoid)));
        }
        if let Some(n) = self.mate {
            parts.push(format!("dm {n}"));
        }
        parts.join(", ")
    }
}

/// Runs the tests in order, writing a line for each as it is done and the totals last.
pub fn run(tests: &[Test], effort: &Effort, out: &mut dyn Write) -> std::io::Result<()> {
    let mut searcher = effort.searcher();
    let start = Instant::now();
    let mut solved = 0;
    let width = tests.iter().map(|t| t.id.chars().count()).max().unwrap_or(0).clamp(8, 24);
    for test in tests {
        let (right, line) = run_one(test, effort, &mut searcher);
        solved += usize::from(right);
        writeln!(out, "{:<width$} {line}", test.id)?;
        out.flush()?;
    }
    let total = tests.len();
    let percent = 100.0 * solved as f64 / total.max(1) as f64;
    let seconds = start.elapsed().as_secs_f64();
    writeln!(out, "solved {solved}/{total} ({percent:.1} %) in {seconds:.1} s, {} a position", effort.describe())?;
    out.flush()
}

/// Searches one test's position: whether it was solved, and its result line (after the id).
fn run_one(test: &Test, effort: &Effort, searcher: &mut Searcher) -> (bool, String) {
    searcher.clear();
    let limits = Limits { mate: test.mate, multipv: 1, ..effort.limits.clone() };
    let searched = search(searcher, &test.board, limits);
    let final_score = searched.last(1).map(|info| info.score);
    let right = test.right(searched.best, final_score);
    let played = searched.best.map_or("(none)".to_string(), |mv| to_san(&test.board, mv));
    let settled = match settled(test, &searched) {
        Some((depth, elapsed)) if right => format!("found at depth {depth}, {:.2} s", elapsed.as_secs_f64()),
        _ => String::new(),
    };
    let verdict = if right { "solved" } else { "failed" };
    let score = final_score.map_or(String::new(), |score| match score {
        Score::Centipawns(cp) => format!("cp {cp}"),
        Score::Mate(moves) => format!("mate {moves}"),
    });
    (right, format!("{verdict} {played:<8} {:<20} {score:<10} {settled}", test.wanted()).trim_end().to_string())
}

/// The depth and time of the first iteration from which every later report was right.
fn settled(test: &Test, searched: &Searched) -> Option<(i32, Duration)> {
    let mut since: Option<&Info> = None;
    for info in searched.infos.iter().filter(|info| info.multipv == 1) {
        if test.right(info.pv.first().copied(), Some(info.score)) {
            since = since.or(Some(info));
        } else {
            since = None;
        }
    }
    since.map(|info| (info.depth, info.elapsed))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_become_tests() {
        let test =
            Test::parse("1k1r4/pp1b1R2/3q2pp/4p3/2B5/4Q3/PPP2B2/2K5 b - - bm Qd1+; id \"BK.01\";", 1).unwrap().unwrap();
        assert_eq!(test.id, "BK.01");
        assert_eq!(test.wanted(), "bm Qd1+");
        // Coordinates, am and dm; the id defaults to the line.
        let test = Test::parse("6k1/5ppp/8/8/8/8/8/R5K1 w - - bm a1a8; am Kf2; dm 1;", 7).unwrap().unwrap();
        assert_eq!((test.id.as_str(), test.wanted().as_str()), ("line 7", "bm Ra8#, am Kf2, dm 1"));
        assert!(test.right(test.best.first().copied(), Some(Score::Mate(1))));
        assert!(!test.right(test.best.first().copied(), Some(Score::Centipawns(900))));
        assert!(!test.right(test.avoid.first().copied(), Some(Score::Mate(1))));
        // Either knight can take on e5: an `am` avoids both, a `bm` must say which.
        let fen = "r1bqk2r/ppp2ppp/2n5/4P3/2Bp2n1/5N1P/PP1N1PP1/R2Q1RK1 b kq - 1 10";
        let test = Test::parse(&format!("{fen} bm Nh6; am Ne5\0"), 3).unwrap().unwrap();
        assert_eq!(test.wanted(), "bm Nh6, am Ncxe5 Ngxe5");
        assert!(Test::parse(&format!("{fen} bm Ne5;"), 3).err().unwrap().contains("ambiguous"));
        assert!(Test::parse("  # a comment", 2).unwrap().is_none());
        assert!(Test::parse("\0\r", 2).unwrap().is_none());
        assert!(Test::parse("", 3).unwrap().is_none());
    }

    #[test]
    fn bad_lines_say_why() {
        let error = |line| Test::parse(line, 1).err().unwrap();
        assert_eq!(error("6k1/5ppp/8/8/8/8/8/R5K1 w - - id \"x\";"), "no bm, am or dm operation to test");
        assert_eq!(error("6k1/5ppp/8/8/8/8/8/R5K1 w - - bm Qd1;"), "bm: illegal move 'Qd1'");
        assert_eq!(error("6k1/5ppp/8/8/8/8/8/R5K1 w - - dm x;"), "dm: 'x' is not a number of moves");
        assert!(error("6k1/5ppp/8/8/8/8/8/R5K1 x - - bm Ra8#;").contains("FEN"));
    }
}
