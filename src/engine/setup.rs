//! A position a front end checks before the engine sees it: the server reads each request as
//! it arrives, while the engine may be searching for another, so it cannot set the position up
//! on the engine to find out whether the FEN or a move is bad. A `Setup` is that position, read
//! and played out on a board of its own, with the moves as the engine's `SetPosition` takes
//! them and what the answer needs (notation, the game's end) for the position it leads to.

use super::{EngineCommand, EngineError, GameEnd, Move};
use crate::board::{Board, Color, FenError, START_FEN, START_POS, flag};
use crate::movegen::legal_moves;
use crate::notation::san::{parse_move_text, to_san};

/// Why a position could not be set up.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SetupError {
    Fen(FenError),
    /// The move at this index (from 0) of the list is not legal where it comes.
    IllegalMove {
        index: usize,
        text: String,
    },
}

impl std::fmt::Display for SetupError {
    fn fmt(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        match self {
            SetupError::Fen(e) => write!(f, "bad FEN: {e}"),
            SetupError::IllegalMove { index, text } => write!(f, "move {index} ({text}) is not legal in its position"),
        }
    }
}

#[derive(Clone)]
pub struct Setup {
    /// The start position as given (the standard one for `startpos` or none).
    fen: String,
    /// The moves played from it, in coordinate notation.
    moves: Vec<String>,
    chess960: bool,
    /// The position after the moves, with them as its history.
    board: Board,
}

impl Setup {
    /// `fen` (`startpos` or none for the standard position) and then `moves`, each in
    /// coordinate notation or in SAN; with `chess960`, castling rights and moves as in Chess960.
    pub fn new<S: AsRef<str>>(fen: Option<&str>, moves: &[S], chess960: bool) -> Result<Setup, SetupError> {
        let fen = match fen.map(str::trim) {
            None | Some(START_POS) | Some("") => START_FEN.to_string(),
            Some(fen) => fen.to_string(),
        };
        let mut board = Board::parse_fen(&fen, chess960).map_err(SetupError::Fen)?;
        let mut played = Vec::with_capacity(moves.len());
        for (index, text) in moves.iter().enumerate() {
            let text = text.as_ref().trim();
            let mv = parse_move_text(&board, text)
                .map_err(|_| SetupError::IllegalMove { index, text: crate::quote::excerpt(text, 20) })?;
            played.push(board.move_text(mv, chess960));
            board.make_move(mv);
        }
        Ok(Setup { fen, moves: played, chess960, board })
    }

    /// The position a board holds, with the moves of its history (a review's positions, which
    /// repetitions must see), for the engine to set up.
    pub fn of_board(board: &Board, chess960: bool) -> Setup {
        let mut start = board.clone();
        let mut moves = Vec::with_capacity(board.moves_played());
        while let Some(mv) = start.last_move() {
            start.unmake_move();
            moves.push(start.move_text(mv, chess960));
        }
        moves.reverse();
        Setup { fen: start.to_fen(), moves, chess960, board: board.clone() }
    }

    /// The command that sets the engine's game to this position.
    pub fn command(&self) -> EngineCommand {
        EngineCommand::SetPosition { fen: Some(self.fen.clone()), moves: self.moves.clone() }
    }

    pub fn chess960(&self) -> bool {
        self.chess960
    }

    /// The FEN of the position the moves lead to.
    pub fn fen(&self) -> String {
        self.board.to_fen()
    }

    pub fn side_to_move(&self) -> Color {
        self.board.side_to_move()
    }

    pub fn game_over(&self) -> Option<GameEnd> {
        self.board.game_end()
    }

    /// A legal move of the position, in coordinate notation or SAN.
    pub fn parse_move(&self, text: &str) -> Option<Move> {
        parse_move_text(&self.board, text.trim()).ok()
    }

    /// A move of the position, or of a line from it, in coordinate notation.
    pub fn move_text(&self, mv: Move) -> String {
        self.board.move_text(mv, self.chess960)
    }

    /// A line from the position in coordinate notation and in SAN; a move that is not legal
    /// where it comes (which a search's line never has) ends it.
    pub fn line(&self, line: &[Move]) -> (Vec<String>, Vec<String>) {
        let mut board = self.board.clone();
        let (mut uci, mut san) = (Vec::with_capacity(line.len()), Vec::with_capacity(line.len()));
        for &mv in line {
            if !legal_moves(&board).as_slice().contains(&mv) {
                break;
            }
            uci.push(board.move_text(mv, self.chess960));
            san.push(to_san(&board, mv));
            board.make_move(mv);
        }
        (uci, san)
    }

    /// The position after a legal move of it.
    pub fn after(&self, mv: Move) -> Result<Setup, EngineError> {
        if !legal_moves(&self.board).as_slice().contains(&mv) {
            return Err(EngineError::NotLegalHere(mv));
        }
        let mut next = self.clone();
        next.moves.push(next.board.move_text(mv, self.chess960));
        next.board.make_move(mv);
        Ok(next)
    }

    /// The start position as given, before the moves.
    pub fn start_fen(&self) -> &str {
        &self.fen
    }

    /// The moves played from the start position, in coordinate notation.
    pub fn moves(&self) -> &[String] {
        &self.moves
    }

    /// The legal moves of the position, in the move generator's order.
    pub fn legal_moves(&self) -> Vec<Move> {
        legal_moves(&self.board).as_slice().to_vec()
    }

    /// Whether the side to move is in check.
    pub fn in_check(&self) -> bool {
        self.board.in_check()
    }

    /// The piece on a square (`e4`) as its FEN letter (upper case for White), for messages
    /// that say why a move cannot be played.
    pub fn piece_letter(&self, square: &str) -> Option<char> {
        let square = crate::board::Square::parse(square)?;
        let piece = self.board.piece_at(square);
        (piece.is_color(Color::White) || piece.is_color(Color::Black)).then(|| piece.letter())
    }

    /// What a move takes and promotes to, and whether it castles or takes en passant, for
    /// answers that describe the move (chess-api.com's).
    pub fn describe(&self, mv: Move) -> MoveFacts {
        let board = &self.board;
        MoveFacts {
            piece: board.piece_at(mv.from()).kind().letter(),
            captured: board.captured(mv).map(|kind| kind.letter()),
            promotion: mv.promoted().map(|kind| kind.letter()),
            castle: mv.is_castle().then_some(mv.flag() == flag::KING_CASTLE),
            en_passant: mv.is_en_passant(),
            from: mv.from().to_string(),
            to: mv.to().to_string(),
        }
    }
}

/// What a move does, for people: see `Setup::describe`.
pub struct MoveFacts {
    /// Lower-case piece letters (`p`, `n`, ...).
    pub piece: char,
    pub captured: Option<char>,
    pub promotion: Option<char>,
    /// Some(true) for castling on the king's side, Some(false) on the queen's.
    pub castle: Option<bool>,
    pub en_passant: bool,
    pub from: String,
    /// Where the king lands, for castling.
    pub to: String,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn moves_in_either_notation_and_their_index_when_illegal() {
        let setup = Setup::new(Some("startpos"), &["e2e4", "e5", "Nf3"], false).unwrap();
        assert_eq!(setup.command_moves(), ["e2e4", "e7e5", "g1f3"]);
        assert_eq!(setup.fen(), "rnbqkbnr/pppp1ppp/8/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R b KQkq - 1 2");
        let error = Setup::new(None, &["e2e4", "e2e4"], false).err().unwrap();
        assert_eq!(error, SetupError::IllegalMove { index: 1, text: "e2e4".into() });
        assert!(matches!(Setup::new(Some("8/8/8 w - -"), &[] as &[&str], false), Err(SetupError::Fen(_))));
    }

    #[test]
    fn a_board_with_history_comes_back_as_its_moves() {
        let setup = Setup::new(None, &["e2e4", "e7e5", "g1f3", "b8c6", "f1c4", "g8f6", "e1g1"], false).unwrap();
        let again = Setup::of_board(&setup.board, false);
        assert_eq!(again.fen, START_FEN);
        assert_eq!(again.moves, setup.moves);
        assert_eq!(again.moves.last().map(String::as_str), Some("e1g1"));
    }

    #[test]
    fn lines_in_both_notations() {
        let setup = Setup::new(None, &[] as &[&str], false).unwrap();
        let moves: Vec<Move> = ["e2e4", "e7e5", "d1h5"]
            .iter()
            .scan(Board::start_position(), |board, text| {
                let mv = crate::movegen::parse_move(board, text)?;
                board.make_move(mv);
                Some(mv)
            })
            .collect();
        let (uci, san) = setup.line(&moves);
        assert_eq!(uci, ["e2e4", "e7e5", "d1h5"]);
        assert_eq!(san, ["e4", "e5", "Qh5"]);
    }

    impl Setup {
        fn command_moves(&self) -> &[String] {
            &self.moves
        }
    }
}
