//! One game reviewed: every position from the first reviewed move to the end is searched once,
//! and each move is judged by what it gave away, between the search of the position before it
//! (the engine's best) and the search of the position after it (what the move left), as
//! lichess does: by lichess's formulas (`lichess.rs`) or Sentinel's own model (`judge.rs`).
//! The game's opening (`eco.rs`), phases (`phase.rs`) and clocks (`clock.rs`) go with each
//! move. The results become PGN notes (`[%eval]` comments, marks, better lines), a summary per
//! side, and the figures `json.rs` writes.

use super::clock::{self, Clocks, MoveTime, Period};
use super::eco::{Classification, Openings};
use super::judge::{self, Mark};
use super::lichess::{self, MateSequence, Weighted};
use super::phase::{Division, Phase};
use super::{Effort, Search};
use crate::board::{Board, Color, Move, START_FEN};
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

/// Which formulas turn the review's evaluations into marks, accuracy and average loss.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Marks {
    /// Lichess's published formulas, on the review's centipawns (`lichess.rs`).
    Lichess,
    /// Sentinel's own win-probability model (`judge.rs`, `search::win_rate`).
    Sentinel,
}

impl Marks {
    pub fn name(self) -> &'static str {
        match self {
            Marks::Lichess => "lichess",
            Marks::Sentinel => "sentinel",
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
    pub marks: Marks,
}

/// The longest better line written as a variation, in plies: enough to show the point of a
/// move, short enough to read.
const VARIATION_PLIES: usize = 10;

/// How many of a side's longest thinks the summary names.
const LONGEST_THINKS: usize = 3;

/// A game's positions and where its review starts.
pub struct Plan {
    /// The position before each move, and after the last.
    boards: Vec<Board>,
    /// The first move reviewed (a ply index); the moves before are skipped.
    first: usize,
    /// The game's opening and how far it followed the opening table.
    classification: Classification,
    division: Division,
    clocks: Clocks,
}

impl Plan {
    /// Plays the game out (refusing a move that is not legal, which a game read from PGN
    /// never has), finds its first move to review, its opening, phases and clocks. A game
    /// without moves has nothing to review.
    pub fn new(game: &PgnGame, settings: &Settings, openings: &Openings) -> Result<Plan, String> {
        if game.moves.is_empty() {
            return Err("the game has no moves to review".to_string());
        }
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
        let before_moves = &boards[..game.moves.len()];
        let numbers: Vec<u16> = before_moves.iter().map(Board::fullmove_number).collect();
        let white: Vec<bool> = before_moves.iter().map(|b| b.side_to_move() == Color::White).collect();
        Ok(Plan {
            first: book_plies.max(early).min(game.moves.len()),
            classification: openings.classify(&boards),
            division: Division::of(&boards),
            clocks: clock::read(game, &numbers, &white),
            boards,
        })
    }

    /// How many positions the review searches (at most: a final mate or draw is not searched).
    pub fn positions(&self) -> usize {
        self.boards.len() - self.first
    }

    /// What could not be read but did not stop the review (clocks), said for people.
    pub fn warnings(&self) -> &[String] {
        &self.clocks.warnings
    }

    /// Whether any move of the game has a clock.
    pub fn has_clocks(&self) -> bool {
        self.clocks.any()
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
    /// The plies played before it, from the game's start.
    pub ply: usize,
    pub mover: Color,
    /// The move's number, the move in SAN and in coordinates.
    pub number: u16,
    pub san: String,
    pub uci: String,
    /// The position before the move and after it, from White's side, as the marks take them
    /// (the search's scores, but for lichess's +0.15 before a game's first move).
    pub eval_before: Score,
    pub eval: Score,
    /// White's chances before and after the move, from 0 to 1: lichess's win percentage over
    /// 100, or Sentinel's expected score.
    pub win_before: f64,
    pub win_after: f64,
    /// The centipawns the move lost, held to ±1000; None where it is not counted (a mating
    /// move, which lichess does not judge).
    pub cp_loss: Option<i32>,
    /// The move's accuracy and its weight in the game's, where it counts.
    pub accuracy: Option<f64>,
    weight: f64,
    /// None for moves of a side not judged, and for book moves.
    pub mark: Option<Mark>,
    /// The mate sequence that decided the mark, where lichess's mate rules did.
    pub mate: Option<MateSequence>,
    pub judged: bool,
    /// Whether the position after the move is on a line of the opening table.
    pub book: bool,
    /// The engine's choice in SAN, and its line (the choice first) in moves and in SAN.
    pub best_san: Option<String>,
    pub line: Vec<Move>,
    pub line_san: Vec<String>,
    pub clock: Option<MoveTime>,
    pub phase: Phase,
}

impl MoveReview {
    /// `12.` or `12...`, as the move is numbered before its SAN.
    pub fn numbered(&self) -> String {
        match self.mover {
            Color::White => format!("{}. {}", self.number, self.san),
            Color::Black => format!("{}... {}", self.number, self.san),
        }
    }

    /// Whether the move was the engine's own choice.
    pub fn engine_choice(&self) -> bool {
        self.best_san.as_ref() == Some(&self.san)
    }
}

/// A game's review: the moves reviewed, from the first after the skipped ones.
pub struct Review {
    pub marks: Marks,
    pub skipped: usize,
    /// The fullmove number of the first move reviewed.
    pub first_move_number: u16,
    /// White's chances (0 to 1) before the first move reviewed.
    pub start_win: f64,
    pub moves: Vec<MoveReview>,
    pub classification: Classification,
    pub division: Division,
    pub control: Option<Vec<Period>>,
}

/// White's chances (0 to 1) of a score from White's side in `board`, by the formulas chosen;
/// a mate on the board is a win or a loss.
fn white_win(marks: Marks, score: Score, board: &Board) -> f64 {
    if score == Score::Mate(0) {
        return if board.side_to_move() == Color::White { 0.0 } else { 1.0 };
    }
    match marks {
        Marks::Lichess => lichess::win_percent(score) / 100.0,
        Marks::Sentinel => {
            let own = judge::expected(judge::white_view(score, board.side_to_move()), board);
            if board.side_to_move() == Color::White { own } else { 1.0 - own }
        }
    }
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
    let marks = settings.marks;
    // Each position's score from White's side; lichess counts the start position as +0.15.
    let white_scores: Vec<Score> = (plan.first..=last)
        .map(|ply| {
            let standard_start = ply == 0 && game.start_fen == START_FEN;
            match (marks, standard_start) {
                (Marks::Lichess, true) => Score::Centipawns(lichess::INITIAL_CP),
                _ => judge::white_view(positions[ply - plan.first].score, plan.boards[ply].side_to_move()),
            }
        })
        .collect();
    let mut moves = Vec::with_capacity(game.moves.len() - plan.first);
    for ply in plan.first..last {
        let index = ply - plan.first;
        let (before, after) = (&positions[index], &positions[index + 1]);
        let (board, next) = (&plan.boards[ply], &plan.boards[ply + 1]);
        let (eval_before, eval) = (white_scores[index], white_scores[index + 1]);
        let mover = board.side_to_move();
        let played = game.moves[ply];
        let is_best = before.best == Some(played);
        let mated = after.score == Score::Mate(0);
        let judged = settings.sides.include(mover);
        let book = ply < plan.classification.book_plies;
        let previous = ply.checked_sub(1).map(|p| game.moves[p]);
        let only = is_best && only_move(marks, before, board, previous);
        let (cp_loss, advice) = match marks {
            Marks::Lichess if mated => (None, None),
            Marks::Lichess => (
                Some(lichess::cp_loss(eval_before, eval, mover)),
                if is_best { None } else { lichess::advice(eval_before, eval, mover) },
            ),
            Marks::Sentinel => {
                let best_expected = judge::expected(before.score, board);
                let played_expected = 1.0 - judge::expected(after.score, next);
                let loss = if is_best { 0.0 } else { (best_expected - played_expected).max(0.0) };
                let cp_loss =
                    if is_best { 0 } else { (judge::capped_cp(before.score) + judge::capped_cp(after.score)).max(0) };
                (Some(cp_loss), Mark::for_loss(loss).map(|mark| lichess::Advice { mark, mate: None }))
            }
        };
        let (mark, mate) = match (judged && !book, only, advice) {
            (false, _, _) => (None, None),
            (true, true, _) => (Some(Mark::Only), None),
            (true, false, advice) => (advice.map(|a| a.mark), advice.and_then(|a| a.mate)),
        };
        let line: Vec<Move> = before.line.clone();
        moves.push(MoveReview {
            ply,
            mover,
            number: board.fullmove_number(),
            san: to_san(board, played),
            uci: played.to_string(),
            eval_before,
            eval,
            win_before: white_win(marks, eval_before, board),
            win_after: white_win(marks, eval, next),
            cp_loss,
            accuracy: None,
            weight: 0.0,
            mark,
            mate,
            judged,
            book,
            best_san: before.best.map(|mv| to_san(board, mv)),
            line_san: line_in_san(board, &line),
            line,
            clock: plan.clocks.moves.get(ply).copied().flatten(),
            phase: plan.division.phase(ply),
        });
    }
    let start_win = white_win(marks, white_scores[0], &plan.boards[plan.first]);
    weigh(&mut moves, start_win, marks);
    Review {
        marks,
        skipped: plan.first,
        first_move_number: plan.boards[plan.first].fullmove_number(),
        start_win,
        moves,
        classification: plan.classification.clone(),
        division: plan.division,
        control: plan.clocks.control.clone(),
    }
}

/// Gives each move its accuracy and weight in the game's accuracy, lichess's way: over win
/// percentages (lichess's own, or 50 times Sentinel's expected score, whose differences then
/// stand for 50 times a difference of lichess's winning chances). A mating move is left out
/// under lichess's formulas, as lichess leaves out the mate on the board.
fn weigh(moves: &mut [MoveReview], start_win: f64, marks: Marks) {
    let scale = match marks {
        Marks::Lichess => 100.0,
        Marks::Sentinel => 50.0,
    };
    let counted = moves.iter().filter(|m| m.cp_loss.is_some()).count();
    let Some(first) = moves.first().map(|m| m.mover) else { return };
    let percents: Vec<f64> = std::iter::once(start_win)
        .chain(moves.iter().take(counted).map(|m| m.win_after))
        .map(|win| scale * win)
        .collect();
    for (m, weighted) in moves.iter_mut().zip(lichess::weighted(&percents, first)) {
        m.accuracy = Some(weighted.accuracy);
        m.weight = weighted.weight;
    }
}

/// The moves of a line in SAN, as far as they can be played from `board`.
fn line_in_san(board: &Board, line: &[Move]) -> Vec<String> {
    let mut board = board.clone();
    let mut sans = Vec::with_capacity(line.len());
    for &mv in line {
        if !legal_moves(&board).as_slice().contains(&mv) {
            break;
        }
        sans.push(to_san(&board, mv));
        board.make_move(mv);
    }
    sans
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

/// Whether the best move, played, was the only one that kept the result: the second best
/// would have been a blunder by the formulas chosen. A recapture is not counted, nor a move
/// with no alternative.
fn only_move(marks: Marks, before: &Position, board: &Board, previous: Option<Move>) -> bool {
    let Some(second) = before.second else { return false };
    let played = before.best;
    let recapture =
        previous.zip(played).is_some_and(|(p, played)| p.is_capture() && played.is_capture() && p.to() == played.to());
    if recapture {
        return false;
    }
    match marks {
        Marks::Lichess => {
            let side = board.side_to_move();
            let (best, second) = (judge::white_view(before.score, side), judge::white_view(second, side));
            lichess::advice(best, second, side).is_some_and(|advice| advice.mark == Mark::Blunder)
        }
        Marks::Sentinel => judge::expected(before.score, board) - judge::expected(second, board) >= judge::BLUNDER,
    }
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
    /// The accuracy in the opening, the middlegame and the endgame, where the side moved.
    pub phases: [Option<f64>; 3],
    pub average_cp_loss: f64,
    pub inaccuracies: usize,
    pub mistakes: usize,
    pub blunders: usize,
    /// The side's longest thinks, longest first, and its mistakes and blunders with a clock,
    /// in the game's order (indices into the review's moves).
    pub longest: Vec<usize>,
    pub mistakes_timed: Vec<usize>,
}

/// The summary of each side judged (White's first), None for a side not judged or without a
/// move reviewed.
pub fn summarise(review: &Review) -> [Option<SideSummary>; 2] {
    Color::BOTH.map(|side| {
        let moves: Vec<(usize, &MoveReview)> =
            review.moves.iter().enumerate().filter(|(_, m)| m.mover == side && m.judged).collect();
        let count = |mark| moves.iter().filter(|(_, m)| m.mark == Some(mark)).count();
        let weighted = |phase: Option<Phase>| {
            let counted = moves.iter().filter(|(_, m)| phase.is_none_or(|phase| m.phase == phase));
            let weighted: Vec<Weighted> = counted
                .filter_map(|(_, m)| m.accuracy.map(|accuracy| Weighted { mover: side, accuracy, weight: m.weight }))
                .collect();
            lichess::side_accuracy(&weighted)
        };
        let accuracy = weighted(None)?;
        let losses: Vec<f64> = moves.iter().filter_map(|(_, m)| m.cp_loss).map(f64::from).collect();
        let mut longest: Vec<(usize, f64)> = moves
            .iter()
            .filter_map(|&(i, m)| m.clock.and_then(|c| c.spent).filter(|&spent| spent > 0.0).map(|spent| (i, spent)))
            .collect();
        longest.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
        Some(SideSummary {
            accuracy,
            phases: Phase::ALL.map(|phase| weighted(Some(phase))),
            average_cp_loss: losses.iter().sum::<f64>() / losses.len().max(1) as f64,
            inaccuracies: count(Mark::Inaccuracy),
            mistakes: count(Mark::Mistake),
            blunders: count(Mark::Blunder),
            longest: longest.into_iter().take(LONGEST_THINKS).map(|(i, _)| i).collect(),
            mistakes_timed: moves
                .iter()
                .filter(|(_, m)| matches!(m.mark, Some(Mark::Mistake | Mark::Blunder)) && m.clock.is_some())
                .map(|&(i, _)| i)
                .collect(),
        })
    })
}

/// "1 blunder", "2 mistakes".
fn counted(count: usize, one: &str, more: &str) -> String {
    format!("{count} {}", if count == 1 { one } else { more })
}

/// A mark as a move's suffix: `?!`, `?`, `??`, `!`.
pub fn symbol(mark: Mark) -> &'static str {
    match mark {
        Mark::Only => "!",
        Mark::Inaccuracy => "?!",
        Mark::Mistake => "?",
        Mark::Blunder => "??",
    }
}

/// The comment before the game's first move: who reviewed it, how, its opening, and each
/// side's summary.
pub fn summary_comment(review: &Review, effort: &Effort) -> String {
    let formulas = match review.marks {
        Marks::Lichess => "lichess's formulas",
        Marks::Sentinel => "Sentinel's win model",
    };
    let mut text = format!("Sentinel {} review, {} a position, {formulas}", crate::VERSION, effort.describe());
    if review.skipped > 0 {
        text.push_str(&format!(", from move {}", review.first_move_number));
    }
    text.push('.');
    if let Some((opening, _)) = &review.classification.opening {
        text.push_str(&format!(" Opening: {} {}", opening.eco, opening.name));
        match review.moves.iter().find(|m| !m.book) {
            Some(m) if m.ply == review.classification.book_plies => {
                text.push_str(&format!(", out of the book with {}.", m.numbered()))
            }
            _ => text.push('.'),
        }
    }
    for (side, summary) in ["White", "Black"].iter().zip(summarise(review)) {
        let Some(s) = summary else { continue };
        // Rounded half up, as lichess rounds its figures (`Math.round`), not half to even.
        text.push_str(&format!(" {side}: accuracy {:.0}%", s.accuracy.round()));
        let phases: Vec<String> = Phase::ALL
            .iter()
            .zip(s.phases)
            .filter_map(|(phase, accuracy)| accuracy.map(|a| format!("{} {:.0}%", phase.name(), a.round())))
            .collect();
        if !phases.is_empty() {
            text.push_str(&format!(" ({})", phases.join(", ")));
        }
        text.push_str(&format!(
            ", average loss {:.0} cp, {}, {}, {}",
            s.average_cp_loss.round(),
            counted(s.inaccuracies, "inaccuracy", "inaccuracies"),
            counted(s.mistakes, "mistake", "mistakes"),
            counted(s.blunders, "blunder", "blunders"),
        ));
        let timed = |indices: &[usize], time: &dyn Fn(&MoveTime) -> Option<f64>| {
            indices
                .iter()
                .filter_map(|&i| {
                    let m = &review.moves[i];
                    let suffix = m.mark.filter(|&mark| mark != Mark::Only).map_or("", symbol);
                    m.clock.as_ref().and_then(time).map(|t| format!("{}{suffix} {}", m.numbered(), clock::format(t)))
                })
                .collect::<Vec<_>>()
                .join(", ")
        };
        if !s.longest.is_empty() {
            text.push_str(&format!("; longest thinks {}", timed(&s.longest, &|c| c.spent)));
        }
        if !s.mistakes_timed.is_empty() {
            text.push_str(&format!("; time left at the mistakes {}", timed(&s.mistakes_timed, &|c| Some(c.left))));
        }
        text.push('.');
    }
    text
}

/// The notes a review adds to its game's moves: the `[%eval]` of each move reviewed (and
/// `[%emt]`, the time it took, where the clocks say), its mark, and for a mistake what the
/// engine preferred, in words and as a variation; the summary comes before the first move.
pub fn notes(review: &Review, summary: String) -> Vec<Notes> {
    let mut notes = vec![Notes::default(); review.skipped + 1];
    notes[0].comment = Some(summary);
    for m in &review.moves {
        let mut comment = format!("[%eval {}]", eval_text(m.eval));
        if let Some(spent) = m.clock.and_then(|c| c.spent) {
            comment.push_str(&format!(" [%emt {}]", clock::emt(spent)));
        }
        let what = m.mate.map_or_else(|| m.mark.map_or("", Mark::name), MateSequence::description);
        match (m.mark, &m.best_san) {
            (Some(Mark::Only), _) => comment.push_str(" Only move."),
            (Some(_), Some(best)) => comment.push_str(&format!(
                " ({} -> {}) {what}. {best} was best.",
                eval_text(m.eval_before),
                eval_text(m.eval),
            )),
            _ => {}
        }
        let marked = matches!(m.mark, Some(Mark::Inaccuracy | Mark::Mistake | Mark::Blunder));
        notes.push(Notes {
            nags: m.mark.map(Mark::nag).into_iter().collect(),
            comment: Some(comment),
            variations: match marked && !m.line.is_empty() {
                true => vec![m.line.iter().take(VARIATION_PLIES).copied().collect()],
                false => Vec::new(),
            },
        });
    }
    notes
}

/// The game as it is written back: its comments without the `[%eval]`s of an earlier
/// analysis (the review writes its own, and its own `[%emt]`s where the game has clocks), its
/// opening's `ECO` and `Opening` tags as lichess writes them, and an Annotator tag when it
/// has none.
pub fn annotated_game(game: &PgnGame, review: &Review, clocks: bool) -> PgnGame {
    let mut game = game.clone();
    game.comments = game
        .comments
        .into_iter()
        .filter_map(|(ply, text)| {
            let mut text = without_command(&text, "[%eval");
            if clocks {
                text = without_command(&text, "[%emt");
            }
            (!text.is_empty()).then_some((ply, text))
        })
        .collect();
    if let Some((opening, _)) = &review.classification.opening {
        set_tag(&mut game, "ECO", &opening.eco);
        set_tag(&mut game, "Opening", &opening.name);
    }
    if game.tag("Annotator").is_none() {
        game.tags.push(("Annotator".to_string(), format!("Sentinel {}", crate::VERSION)));
    }
    game
}

/// Sets the first tag called `name`, or adds it.
fn set_tag(game: &mut PgnGame, name: &str, value: &str) {
    match game.tags.iter_mut().find(|(n, _)| n == name) {
        Some((_, old)) => *old = value.to_string(),
        None => game.tags.push((name.to_string(), value.to_string())),
    }
}

/// `text` without its commands that start with `command` (`[%eval`).
fn without_command(text: &str, command: &str) -> String {
    let mut rest = text;
    let mut kept = String::new();
    while let Some(start) = rest.find(command) {
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
        let without_evals = |text| without_command(text, "[%eval");
        assert_eq!(without_evals("[%eval 0.3] [%clk 0:01:00] good"), "[%clk 0:01:00] good");
        assert_eq!(without_evals("a [%eval #-3]b"), "a b");
        assert_eq!(without_evals("[%eval 1.2"), "");
        assert_eq!(without_evals("plain"), "plain");
        assert_eq!(without_command("[%emt 0:00:03] [%clk 0:01:00]", "[%emt"), "[%clk 0:01:00]");
    }
}
