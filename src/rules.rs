//! The rules that end a game: checkmate, stalemate, the fifty-move rule, threefold repetition
//! and insufficient material. The engine, the search and self-play all judge positions here, so
//! they cannot disagree about when a game is over.
//!
//! Mate and stalemate are positions without a legal move, so the rules need the move
//! generator, which itself stands on the board: they are methods of `Board` written above
//! both, and the board module needs nothing from here.

use crate::board::{Board, Color};
use crate::movegen::count_legal_moves;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum GameResult {
    WhiteWins,
    BlackWins,
    Draw,
}

#[cfg(feature = "tune")]
impl GameResult {
    /// White's share of the points: 1, 0.5 or 0.
    pub fn white_points(self) -> f32 {
        match self {
            GameResult::WhiteWins => 1.0,
            GameResult::Draw => 0.5,
            GameResult::BlackWins => 0.0,
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EndReason {
    Checkmate,
    Stalemate,
    FiftyMoveRule,
    ThreefoldRepetition,
    InsufficientMaterial,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct GameEnd {
    pub result: GameResult,
    pub reason: EndReason,
}

impl Board {
    /// Whether the game is over in this position, by the rules a player may claim or that end
    /// it at once. Mate and stalemate come first: a move that mates ends the game even when it
    /// is also the hundredth half-move without a capture or pawn move.
    pub fn game_end(&self) -> Option<GameEnd> {
        let draw = |reason| Some(GameEnd { result: GameResult::Draw, reason });
        if count_legal_moves(self) == 0 {
            if !self.in_check() {
                return draw(EndReason::Stalemate);
            }
            let result = match self.side_to_move() {
                Color::White => GameResult::BlackWins,
                Color::Black => GameResult::WhiteWins,
            };
            return Some(GameEnd { result, reason: EndReason::Checkmate });
        }
        if self.halfmove_clock() >= 100 {
            return draw(EndReason::FiftyMoveRule);
        }
        if self.occurrences() >= 3 {
            return draw(EndReason::ThreefoldRepetition);
        }
        if self.has_insufficient_material() {
            return draw(EndReason::InsufficientMaterial);
        }
        None
    }

    /// A draw the search may score without looking further, `search_ply` moves below its root:
    /// the fifty-move rule (unless this is mate), a repetition (see `is_repetition`: inside the
    /// search one repetition is enough), or insufficient material. `in_check` spares a test
    /// the caller has already made.
    pub fn is_draw_in_search(&self, search_ply: usize, in_check: bool) -> bool {
        if self.halfmove_clock() >= 100 {
            return !in_check || count_legal_moves(self) > 0;
        }
        self.is_repetition(search_ply) || self.has_insufficient_material()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::board::START_FEN;
    use crate::movegen::parse_move;

    fn end_of(fen: &str, moves: &[&str]) -> Option<GameEnd> {
        let mut board = Board::from_fen(fen).unwrap();
        for text in moves {
            board.make_move(parse_move(&board, text).unwrap());
        }
        board.game_end()
    }

    #[test]
    fn game_endings() {
        let draw = |reason| Some(GameEnd { result: GameResult::Draw, reason });
        assert_eq!(end_of(START_FEN, &["e2e4"]), None);
        assert_eq!(
            end_of(START_FEN, &["f2f3", "e7e5", "g2g4", "d8h4"]),
            Some(GameEnd { result: GameResult::BlackWins, reason: EndReason::Checkmate })
        );
        assert_eq!(
            end_of("6k1/5ppp/8/8/8/8/8/R5K1 w - - 0 1", &["a1a8"]),
            Some(GameEnd { result: GameResult::WhiteWins, reason: EndReason::Checkmate })
        );
        assert_eq!(end_of("7k/8/6Q1/8/8/8/8/K7 w - - 0 1", &["g6f7"]), draw(EndReason::Stalemate));
        assert_eq!(end_of("7k/8/8/8/8/8/R7/K7 w - - 99 80", &["a2b2"]), draw(EndReason::FiftyMoveRule));
        let knights = ["g1f3", "g8f6", "f3g1", "f6g8", "g1f3", "g8f6", "f3g1"];
        assert_eq!(end_of(START_FEN, &knights), None);
        assert_eq!(end_of(START_FEN, &[&knights[..], &["f6g8"]].concat()), draw(EndReason::ThreefoldRepetition));
        assert_eq!(end_of("8/8/8/8/8/8/5n2/4K2k w - - 0 1", &["e1f2"]), draw(EndReason::InsufficientMaterial));
        // Mate on the hundredth half-move is still mate.
        assert_eq!(
            end_of("6k1/5ppp/8/8/8/8/8/R5K1 w - - 99 80", &["a1a8"]),
            Some(GameEnd { result: GameResult::WhiteWins, reason: EndReason::Checkmate })
        );
    }
}
