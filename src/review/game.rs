//! One game reviewed: every position from the first reviewed move to the end is searched once,
//! and each move is judged by the expected score it lost, which is the difference between the
//! search of the position before it (the engine's best) and the search of the position after
//! it (what the move left), as lichess does. The results become PGN notes (`[%eval]`
//! comments, marks, better lines) and a summary per side.

use super::judge::{self, Mark};
use super::{Effort, Search};
use crate::board::{Board, Color, Move};
use crate::engine::book::Book;
use crate::movegen::legal_moves;
use crate::notation::pgn::{Notes, PgnGame};
use crate::notation::san::to_san;
use crate::search::{Limits, Score};

/// Whose moves are judged.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Sides {
    White,
    Black,
    Both,
}

impl Sides {
    fn include(self, color: Color) -> bool {
        match self {
            Sides::Both => true,
            Sides::White => color == Color::White,
            Sides::Black => color == Color::Black,
        }
    }
}

/// How games are reviewed.
pub struct Settings {
    pub effort: Effort,
    pub sides: Sides,
    /// Moves before this move number are not reviewed.
    pub from_move: u16,
    /// The game's first moves are not reviewed while this book holds them.
    pub book: Option<Book>,
}

/// The longest better line written as a variation, in plies: enough to show the point of a
/// move, short enough to read.
const VARIATION_PLIES: usize = 10;

/// A game's positions and where its review starts.
pub struct Plan {
    /// The position before each move, and after the last.
    boards: Vec<Board>,
    /// The first move reviewed (a ply index); the moves before are skipped.
    first: usize,
}

impl Plan {
    /// Plays the game out (refusing a move that is not legal, which a game read from PGN
    /// never has) and finds its first move to review.
    pub fn new(game: &PgnGame, settings: &Settings) -> Result<Plan, String> {
        let mut board = Board::from_fen(&game.start_fen).map_err(|e| e.to_string())?;
        let mut boards = Vec::with_capacity(game.moves.len() + 1);
        for &mv in &game.moves {
            if !legal_moves(&board).as_slice().contains(&mv) {
                return Err(format!("move {mv} is not legal at move {}", board.fullmove_number()));
            }
            boards.push(board.clone());
            board.make_move(mv);
        }
        boards.push(board);
        let in_book = |(board, mv): &(&Board, &Move)| {
            settings.book.as_ref().is_some_and(|book| book.entries(board).iter().any(|(m, _)| m == *mv))
        };
        let book_plies = boards.iter().zip(&game.moves).take_while(in_book).count();
        let early = boards.iter().take_while(|b| b.fullmove_number() < settings.from_move).count();
        Ok(Plan { first: book_plies.max(early).min(game.moves.len()), boards })
    }

    /// How many positions the review searches (at most: a final mate or draw is not searched).
    pub fn positions(&self) -> usize {
        self.boards.len() - self.first
    }
}

/// What the search of one position said.
struct Position {
    /// For the side to move.
    score: Score,
    best: Option<Move>,
    line: Vec<Move>,
    /// The score of the second-best move, where it was asked for.
    second: Option<Score>,
}

/// What the review found for one move.
#[derive(Clone, Debug)]
pub struct MoveReview {
    pub mover: Color,
    /// The move's number and the move in SAN.
    pub number: u16,
    pub san: String,
    /// The position after the move, from White's side.
    pub eval: Score,
    /// White's expected score after the move.
    pub white_expected: f64,
    /// The centipawns the move lost against the engine's choice (capped, for average losses).
    pub cp_loss: i32,
    /// None for moves of a side not judged.
    pub mark: Option<Mark>,
    pub judged: bool,
    /// The engine's choice in SAN, its score from White's side, and its line when it was
    /// better than the move played.
    pub best_san: Option<String>,
    pub best_eval: Score,
    pub better: Vec<Move>,
}

/// A game's review: the moves reviewed, from the first after the skipped ones.
pub struct Review {
    pub skipped: usize,
    /// The fullmove number of the first move reviewed.
    pub first_move_number: u16,
    /// White's expected score before the first move reviewed.
    pub start_white_expected: f64,
    pub moves: Vec<MoveReview>,
}

/// Searches the game's positions as planned, calling `searched` after each.
pub fn review(
    game: &PgnGame,
    plan: &Plan,
    settings: &Settings,
    searcher: &mut impl Search,
    mut searched: impl FnMut(),
) -> Review {
    let last = plan.boards.len() - 1;
    let positions: Vec<Position> = (plan.first..=last)
        .map(|ply| {
            let board = &plan.boards[ply];
            let judged = ply < last && settings.sides.include(board.side_to_move());
            let position = evaluate(board, ply == last, judged, &settings.effort, searcher);
            searched();
            position
        })
        .collect();
    let white_expected = |position: &Position, board: &Board| {
        let expected = judge::expected(position.score, board);
        if board.side_to_move() == Color::White { expected } else { 1.0 - expected }
    };
    let mut moves = Vec::with_capacity(game.moves.len() - plan.first);
    for ply in plan.first..last {
        let (before, after) = (&positions[ply - plan.first], &positions[ply + 1 - plan.first]);
        let (board, next) = (&plan.boards[ply], &plan.boards[ply + 1]);
        let mover = board.side_to_move();
        let played = game.moves[ply];
        let is_best = before.best == Some(played);
        let best_expected = judge::expected(before.score, board);
        let played_expected = 1.0 - judge::expected(after.score, next);
        let loss = if is_best { 0.0 } else { (best_expected - played_expected).max(0.0) };
        let cp_loss = if is_best { 0 } else { (judge::capped_cp(before.score) + judge::capped_cp(after.score)).max(0) };
        let judged = settings.sides.include(mover);
        let previous = ply.checked_sub(1).map(|p| game.moves[p]);
        let mark = match judged {
            false => None,
            true if is_best && only_move(before, board, previous, played) => Some(Mark::Only),
            true => Mark::for_loss(loss),
        };
        let better = match mark {
            Some(Mark::Inaccuracy | Mark::Mistake | Mark::Blunder) => {
                before.line.iter().take(VARIATION_PLIES).copied().collect()
            }
            _ => Vec::new(),
        };
        moves.push(MoveReview {
            mover,
            number: board.fullmove_number(),
            san: to_san(board, played),
            eval: judge::white_view(after.score, next.side_to_move()),
            white_expected: white_expected(after, next),
            cp_loss,
            mark,
            judged,
            best_san: before.best.map(|mv| to_san(board, mv)),
            best_eval: judge::white_view(before.score, mover),
            better,
        });
    }
    Review {
        skipped: plan.first,
        first_move_number: plan.boards[plan.first].fullmove_number(),
        start_white_expected: white_expected(&positions[0], &plan.boards[plan.first]),
        moves,
    }
}

/// The search of one position; a mate or stalemate on the board, or a draw at the end of the
/// game, is scored without one. A position whose move is judged is searched for its two best
/// moves, to tell an only move.
fn evaluate(board: &Board, last: bool, judged: bool, effort: &Effort, searcher: &mut impl Search) -> Position {
    let known = |score| Position { score, best: None, line: Vec::new(), second: None };
    let legal = legal_moves(board).len();
    if legal == 0 {
        return known(if board.in_check() { Score::Mate(0) } else { Score::Centipawns(0) });
    }
    if last && board.game_end().is_some() {
        return known(Score::Centipawns(0));
    }
    let multipv = if judged && legal >= 2 { 2 } else { 1 };
    let searched = searcher.search(board, Limits { multipv, ..effort.limits.clone() });
    let line = searched.best_line().or(searched.last(1));
    Position {
        score: line.map_or(Score::Centipawns(0), |info| info.score),
        best: searched.best,
        line: match line {
            Some(info) if info.pv.first() == searched.best.as_ref() => info.pv.clone(),
            _ => searched.best.into_iter().collect(),
        },
        second: searched.last(2).map(|info| info.score),
    }
}

/// Whether the best move, played, was the only one that kept the result: every other loses at
/// least a blunder's worth. A recapture is not counted, nor a move with no alternative.
fn only_move(before: &Position, board: &Board, previous: Option<Move>, played: Move) -> bool {
    let Some(second) = before.second else { return false };
    let recapture = previous.is_some_and(|p| p.is_capture() && played.is_capture() && p.to() == played.to());
    !recapture && judge::expected(before.score, board) - judge::expected(second, board) >= judge::BLUNDER
}

/// A score as `[%eval]` writes it, from White's side: pawns with two decimals, or `#N` for a
/// mate in N moves (`#-N` when Black mates; `#0` once mate is on the board, which readers
/// take as the side to move mated).
pub fn eval_text(score: Score) -> String {
    match score {
        Score::Centipawns(cp) => format!("{:.2}", f64::from(cp) / 100.0),
        Score::Mate(moves) => format!("#{moves}"),
    }
}

/// What each side did in the moves reviewed.
#[derive(Clone, Debug, PartialEq)]
pub struct SideSummary {
    pub accuracy: f64,
    pub average_cp_loss: f64,
    pub inaccuracies: usize,
    pub mistakes: usize,
    pub blunders: usize,
}

/// The summary of each side judged (White's first), None for a side not judged or without a
/// move reviewed.
pub fn summarise(review: &Review) -> [Option<SideSummary>; 2] {
    let mut expected = vec![review.start_white_expected];
    expected.extend(review.moves.iter().map(|m| m.white_expected));
    let accuracy = review.moves.first().map_or([None, None], |m| judge::game_accuracy(&expected, m.mover));
    Color::BOTH.map(|side| {
        let moves: Vec<&MoveReview> = review.moves.iter().filter(|m| m.mover == side && m.judged).collect();
        let count = |mark| moves.iter().filter(|m| m.mark == Some(mark)).count();
        let accuracy = accuracy[side.index()].filter(|_| !moves.is_empty())?;
        Some(SideSummary {
            accuracy,
            average_cp_loss: moves.iter().map(|m| f64::from(m.cp_loss)).sum::<f64>() / moves.len() as f64,
            inaccuracies: count(Mark::Inaccuracy),
            mistakes: count(Mark::Mistake),
            blunders: count(Mark::Blunder),
        })
    })
}

/// "1 blunder", "2 mistakes".
fn counted(count: usize, one: &str, more: &str) -> String {
    format!("{count} {}", if count == 1 { one } else { more })
}

/// The comment before the game's first move: who reviewed it, how, and each side's summary.
pub fn summary_comment(review: &Review, effort: &Effort) -> String {
    let mut text = format!("Sentinel {} review, {} a position", crate::VERSION, effort.describe());
    if review.skipped > 0 {
        text.push_str(&format!(", from move {}", review.first_move_number));
    }
    text.push('.');
    for (side, summary) in ["White", "Black"].iter().zip(summarise(review)) {
        if let Some(s) = summary {
            text.push_str(&format!(
                " {side}: accuracy {:.0}%, average loss {:.0} cp, {}, {}, {}.",
                s.accuracy,
                s.average_cp_loss,
                counted(s.inaccuracies, "inaccuracy", "inaccuracies"),
                counted(s.mistakes, "mistake", "mistakes"),
                counted(s.blunders, "blunder", "blunders"),
            ));
        }
    }
    text
}

/// The notes a review adds to its game's moves: the `[%eval]` of each move reviewed, its
/// mark, and for a mistake what the engine preferred, in words and as a variation; the
/// summary comes before the first move.
pub fn notes(review: &Review, summary: String) -> Vec<Notes> {
    let mut notes = vec![Notes::default(); review.skipped + 1];
    notes[0].comment = Some(summary);
    for m in &review.moves {
        let mut comment = format!("[%eval {}]", eval_text(m.eval));
        match (m.mark, &m.best_san) {
            (Some(Mark::Only), _) => comment.push_str(" Only move."),
            (Some(mark), Some(best)) => comment.push_str(&format!(
                " ({} -> {}) {}. {best} was best.",
                eval_text(m.best_eval),
                eval_text(m.eval),
                mark.name()
            )),
            _ => {}
        }
        notes.push(Notes {
            nags: m.mark.map(Mark::nag).into_iter().collect(),
            comment: Some(comment),
            variations: if m.better.is_empty() { Vec::new() } else { vec![m.better.clone()] },
        });
    }
    notes
}

/// The game as it is written back: its comments without the `[%eval]`s of an earlier
/// analysis (the review writes its own), and an Annotator tag when it has none.
pub fn annotated_game(game: &PgnGame) -> PgnGame {
    let mut game = game.clone();
    game.comments = game
        .comments
        .into_iter()
        .filter_map(|(ply, text)| {
            let text = without_evals(&text);
            (!text.is_empty()).then_some((ply, text))
        })
        .collect();
    if game.tag("Annotator").is_none() {
        game.tags.push(("Annotator".to_string(), format!("Sentinel {}", crate::VERSION)));
    }
    game
}

/// `text` without its `[%eval ...]` commands.
fn without_evals(text: &str) -> String {
    let mut rest = text;
    let mut kept = String::new();
    while let Some(start) = rest.find("[%eval") {
        kept.push_str(&rest[..start]);
        rest = rest[start..].find(']').map_or("", |end| &rest[start + end + 1..]);
    }
    kept.push_str(rest);
    kept.split_whitespace().collect::<Vec<_>>().join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn evals_as_lichess_writes_them() {
        assert_eq!(eval_text(Score::Centipawns(34)), "0.34");
        assert_eq!(eval_text(Score::Centipawns(-320)), "-3.20");
        assert_eq!(eval_text(Score::Centipawns(0)), "0.00");
        assert_eq!(eval_text(Score::Mate(3)), "#3");
        assert_eq!(eval_text(Score::Mate(-2)), "#-2");
    }

    #[test]
    fn earlier_evals_are_dropped_and_the_rest_kept() {
        assert_eq!(without_evals("[%eval 0.3] [%clk 0:01:00] good"), "[%clk 0:01:00] good");
        assert_eq!(without_evals("a [%eval #-3]b"), "a b");
        assert_eq!(without_evals("[%eval 1.2"), "");
        assert_eq!(without_evals("plain"), "plain");
    }
}
