//! Forsyth-Edwards Notation in and out, with every check needed so that a position the board
//! accepts is one the move generator can handle: a malformed FEN is an error saying what is
//! wrong and where, never a panic or a corrupt board.

use super::{Board, Color, Piece, PieceKind, Square, right_index};
use std::fmt;

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FenError(String);

impl fmt::Display for FenError {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        write!(f, "invalid FEN: {}", self.0)
    }
}

impl std::error::Error for FenError {}

fn error<T>(message: impl Into<String>) -> Result<T, FenError> {
    Err(FenError(message.into()))
}

/// The word UCI puts in place of a FEN for the standard start position, and the command line
/// after it.
pub const START_POS: &str = "startpos";

/// The FEN of a position given as the command line takes it: `startpos`, or a FEN (checked
/// when it is read).
pub fn position_fen(text: &str) -> &str {
    if text.trim() == START_POS { super::START_FEN } else { text }
}

impl Board {
    /// Parses a FEN of standard chess. The halfmove clock and fullmove number may be left out
    /// (they default to 0 and 1), as many tools write only the first four fields.
    pub fn from_fen(fen: &str) -> Result<Board, FenError> {
        Board::parse_fen(fen, false)
    }

    /// Parses a FEN of standard chess or, with `chess960`, of Chess960, whose castling field
    /// may name rooks by file (Shredder-FEN `HAha`) as well as by side (X-FEN `KQkq`: the
    /// outermost rook on that side of the king).
    ///
    /// Rights that the position cannot have (no king or rook on its square: FENs written by
    /// hand or by careless tools carry such stale rights) are dropped, as are en passant squares
    /// that no two-square advance left behind; what is malformed is an error.
    pub fn parse_fen(fen: &str, chess960: bool) -> Result<Board, FenError> {
        let fields: Vec<&str> = fen.split_whitespace().collect();
        if fields.len() < 4 {
            return error(format!(
                "expected 4 to 6 fields (placement, side, castling, en passant, and optionally halfmove clock \
                 and fullmove number), found {}",
                fields.len()
            ));
        }
        if fields.len() > 6 {
            return error(format!("unexpected text after the fullmove number: '{}'", fields[6..].join(" ")));
        }
        let mut board = Board::empty();
        board.parse_placement(fields[0])?;
        board.side = match fields[1] {
            "w" => Color::White,
            "b" => Color::Black,
            other => return error(format!("side to move must be 'w' or 'b', found '{other}'")),
        };
        board.parse_castling(fields[2], chess960)?;
        board.parse_en_passant(fields[3])?;
        if let Some(text) = fields.get(4) {
            board.halfmove_clock = parse_counter(text, "halfmove clock")?;
        }
        if let Some(text) = fields.get(5) {
            board.fullmove_number = parse_counter(text, "fullmove number")?;
        }
        let waiting = !board.side;
        if board.is_attacked_by(board.king_square(waiting), board.side) {
            return error(format!("{} is in check but it is {} to move", name(waiting), name(board.side)));
        }
        board.key = board.compute_key();
        (board.pawn_key, board.non_pawn_keys) = board.compute_material_keys();
        Ok(board)
    }

    fn parse_placement(&mut self, placement: &str) -> Result<(), FenError> {
        let ranks: Vec<&str> = placement.split('/').collect();
        if ranks.len() != 8 {
            return error(format!("the piece placement has {} ranks, expected 8", ranks.len()));
        }
        for (row, text) in ranks.iter().enumerate() {
            let rank = 7 - row as u8;
            let mut file = 0u8;
            for c in text.chars() {
                if let Some(d) = c.to_digit(10).filter(|d| (1..=8).contains(d)) {
                    file += d as u8;
                } else if let Some(piece) = Piece::from_letter(c) {
                    if file < 8 {
                        self.place_checked(Square::new(file, rank), piece)?;
                    }
                    file += 1;
                } else {
                    return error(format!("'{c}' on rank {} is neither a piece letter nor a digit 1-8", rank + 1));
                }
                if file > 8 {
                    return error(format!("rank {} ('{text}') has more than 8 squares", rank + 1));
                }
            }
            if file < 8 {
                return error(format!("rank {} ('{text}') has {file} squares, expected 8", rank + 1));
            }
        }
        for color in Color::BOTH {
            match self.count(color, PieceKind::King) {
                1 => {}
                0 => return error(format!("{} has no king", name(color))),
                n => return error(format!("{} has {n} kings", name(color))),
            }
        }
        Ok(())
    }

    /// Places a piece after checking it could be there in a game: no pawn on the first or last
    /// rank, and no more pieces than eight pawns could have become (which also keeps every
    /// piece list within its fixed capacity).
    fn place_checked(&mut self, sq: Square, piece: Piece) -> Result<(), FenError> {
        let color = piece.color();
        let kind = piece.kind();
        if kind == PieceKind::Pawn && (sq.rank() == 0 || sq.rank() == 7) {
            return error(format!("{} pawn on {sq}: pawns cannot stand on the first or last rank", name(color)));
        }
        if kind == PieceKind::King && self.count(color, kind) > 0 {
            return error(format!("{} has more than one king (second on {sq})", name(color)));
        }
        let count_with_new = |k: PieceKind| self.count(color, k) + usize::from(k == kind);
        let pawns = count_with_new(PieceKind::Pawn);
        let promoted: usize =
            [(PieceKind::Knight, 2), (PieceKind::Bishop, 2), (PieceKind::Rook, 2), (PieceKind::Queen, 1)]
                .iter()
                .map(|&(k, start)| count_with_new(k).saturating_sub(start))
                .sum();
        if pawns + promoted > 8 {
            return error(format!("{} has more pieces than a game can produce (at {sq})", name(color)));
        }
        self.add_piece(sq, piece);
        Ok(())
    }

    fn parse_castling(&mut self, text: &str, chess960: bool) -> Result<(), FenError> {
        if text == "-" {
            return Ok(());
        }
        let mut seen = String::new();
        for c in text.chars() {
            if seen.contains(c) {
                return error(format!("castling field '{text}' repeats '{c}'"));
            }
            seen.push(c);
            let color = if c.is_ascii_uppercase() { Color::White } else { Color::Black };
            let back_rank = if color == Color::White { 0 } else { 7 };
            let king = self.king_square(color);
            let rook = Piece::new(color, PieceKind::Rook);
            let rook_on = |file: u8| self.squares[Square::new(file, back_rank)] == rook;
            let file = match c.to_ascii_lowercase() {
                'k' => (king.file() + 1..8).rev().find(|&f| rook_on(f)),
                'q' => (0..king.file()).find(|&f| rook_on(f)),
                letter @ 'a'..='h' => Some(letter as u8 - b'a').filter(|&f| rook_on(f)),
                _ => {
                    return error(format!(
                        "'{c}' in the castling field '{text}' is not one of K, Q, k, q, a file letter or -"
                    ));
                }
            };
            let Some(file) = file.filter(|&f| king.rank() == back_rank && f != king.file()) else {
                continue;
            };
            // Standard chess castles only from the e-file with the corner rooks.
            if !chess960 && (king.file() != 4 || !matches!(file, 0 | 7)) {
                continue;
            }
            let king_side = file > king.file();
            let index = right_index(color, king_side);
            if self.castling & (1 << index) != 0 {
                return error(format!(
                    "castling field '{text}' gives {} two rooks to castle with on one side",
                    name(color)
                ));
            }
            self.castle_table.add(index, king, Square::new(file, back_rank));
            self.castling |= 1 << index;
        }
        Ok(())
    }

    fn parse_en_passant(&mut self, text: &str) -> Result<(), FenError> {
        if text == "-" {
            return Ok(());
        }
        let Some(sq) = Square::parse(text) else {
            return error(format!("en passant square '{text}' is not a square like e3 or '-'"));
        };
        let mover = !self.side;
        let pushed_to = sq.offset(mover.forward());
        let pushed_from = sq.offset(-mover.forward());
        let pushed = sq.relative_rank(mover) == 2
            && self.squares[pushed_to] == Piece::new(mover, PieceKind::Pawn)
            && self.squares[sq].is_empty()
            && self.squares[pushed_from].is_empty();
        if pushed {
            self.en_passant = sq;
        }
        Ok(())
    }

    pub fn to_fen(&self) -> String {
        let mut fen = placement(|sq| Some(self.squares[sq]).filter(|p| !p.is_empty()).map(Piece::letter));
        fen.push_str(if self.side == Color::White { " w " } else { " b " });
        fen.push_str(&self.castling_field());
        match self.en_passant() {
            Some(sq) => fen.push_str(&format!(" {sq}")),
            None => fen.push_str(" -"),
        }
        fen.push_str(&format!(" {} {}", self.halfmove_clock, self.fullmove_number));
        fen
    }
}

/// The placement field of a FEN, rank 8 first, each run of empty squares a digit: `letter`
/// names the piece on a square, if any. Positions made without a board (tests draw random
/// ones) are written with it too.
pub fn placement(letter: impl Fn(Square) -> Option<char>) -> String {
    let mut field = String::with_capacity(90);
    for rank in (0..8).rev() {
        let mut empty = 0;
        for file in 0..8 {
            let Some(letter) = letter(Square::new(file, rank)) else {
                empty += 1;
                continue;
            };
            if empty > 0 {
                field.push(char::from(b'0' + empty));
                empty = 0;
            }
            field.push(letter);
        }
        if empty > 0 {
            field.push(char::from(b'0' + empty));
        }
        if rank > 0 {
            field.push('/');
        }
    }
    field
}

impl Board {
    /// The same position with the colours swapped and the ranks flipped, the side to move
    /// too: a symmetric evaluation scores it as it scores this one. Tests use it for that,
    /// and the `flip` command sets it up.
    #[cfg(test)]
    pub fn mirrored(&self) -> Board {
        // Chess960's reading takes standard castling fields too.
        Board::parse_fen(&self.mirrored_fen(), true).expect("the mirror of a valid position is valid")
    }

    /// The FEN of `mirrored`, built from this position's FEN text, so that it needs no more
    /// of the board than a FEN does (the move history is not mirrored).
    pub fn mirrored_fen(&self) -> String {
        let swap_case = |text: &str| -> String {
            text.chars()
                .map(|c| if c.is_ascii_uppercase() { c.to_ascii_lowercase() } else { c.to_ascii_uppercase() })
                .collect()
        };
        let fen = self.to_fen();
        let fields: Vec<&str> = fen.split(' ').collect();
        let placement: Vec<String> = fields[0].split('/').rev().map(swap_case).collect();
        let side = if fields[1] == "w" { "b" } else { "w" };
        // White's rights come first in a castling field.
        let mut castling: Vec<char> = swap_case(fields[2]).chars().collect();
        castling.sort_by_key(|c| c.is_ascii_lowercase());
        let castling: String = castling.into_iter().collect();
        let en_passant: String = fields[3]
            .chars()
            .map(|c| match c {
                '3' => '6',
                '6' => '3',
                c => c,
            })
            .collect();
        format!("{} {side} {castling} {en_passant} {} {}", placement.join("/"), fields[4], fields[5])
    }
}

impl Board {
    /// The FEN castling field: X-FEN, which is the standard field in standard chess (`KQkq`
    /// for the outermost rooks, the file letter for an inner one in Chess960).
    fn castling_field(&self) -> String {
        let mut field = String::new();
        for index in 0..4 {
            if self.castling & (1 << index) == 0 {
                continue;
            }
            let color = if index < 2 { Color::White } else { Color::Black };
            let rooks = self.pieces(color, PieceKind::Rook);
            let letter = if self.castle_table.is_outermost(index, rooks) {
                if index & 1 == 0 { 'k' } else { 'q' }
            } else {
                (b'a' + self.castle_table.rook_from(index).file()) as char
            };
            field.push(if color == Color::White { letter.to_ascii_uppercase() } else { letter });
        }
        if field.is_empty() { "-".to_string() } else { field }
    }
}

fn name(color: Color) -> &'static str {
    if color == Color::White { "white" } else { "black" }
}

fn parse_counter(text: &str, what: &str) -> Result<u16, FenError> {
    match text.parse::<u16>() {
        Ok(n) => Ok(n),
        Err(_) => error(format!("{what} '{text}' is not a whole number from 0 to 65535")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const START_FEN_NO_COUNTERS: &str = super::super::START_FEN;

    #[test]
    fn round_trips() {
        let fens = [
            super::super::START_FEN,
            "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
            "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1",
            "rnbqkbnr/ppp1pppp/8/3pP3/8/8/PPPP1PPP/RNBQKBNR w KQkq d6 0 3",
            "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq e3 0 1",
            "r3k3/8/8/8/8/8/8/4K2R b Kq - 17 93",
        ];
        for fen in fens {
            assert_eq!(Board::from_fen(fen).unwrap().to_fen(), fen);
        }
    }

    /// The mirror swaps colours and flips ranks in every field, Chess960 castling included,
    /// and mirroring twice gives the position back.
    #[test]
    fn mirrored_positions() {
        let cases = [
            (
                "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq e3 0 1",
                "rnbqkbnr/pppp1ppp/8/4p3/8/8/PPPPPPPP/RNBQKBNR w KQkq e6 0 1",
            ),
            ("r3k3/8/8/8/8/8/8/4K2R b Kq - 17 93", "4k2r/8/8/8/8/8/8/R3K3 w Qk - 17 93"),
            ("rr2k3/8/8/8/8/8/8/4K1RR w Gb - 0 1", "4k1rr/8/8/8/8/8/8/RR2K3 b Bg - 0 1"),
        ];
        for (fen, mirror) in cases {
            let board = Board::parse_fen(fen, true).unwrap();
            assert_eq!(board.mirrored().to_fen(), mirror);
            assert_eq!(board.mirrored().mirrored().to_fen(), fen);
        }
    }

    /// Rights the position cannot have and en passant squares no pawn left behind are dropped,
    /// as Stockfish and python-chess do: GUIs and PGN files write such FENs.
    #[test]
    fn impossible_castling_rights_and_en_passant_squares_are_cleaned() {
        let cases = [
            (
                "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBN1 w KQkq - 0 1",
                "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBN1 w Qkq - 0 1",
            ),
            ("r3k2r/8/8/8/8/8/8/R4K1R w KQkq - 0 1", "r3k2r/8/8/8/8/8/8/R4K1R w kq - 0 1"),
            ("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq e3 0 1", START_FEN_NO_COUNTERS),
            ("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq e6 0 1", START_FEN_NO_COUNTERS),
            ("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w HAha - 0 1", START_FEN_NO_COUNTERS),
        ];
        for (fen, cleaned) in cases {
            assert_eq!(Board::from_fen(fen).unwrap().to_fen(), cleaned, "{fen}");
        }
    }

    /// Chess960 castling fields: file letters (Shredder-FEN) and X-FEN letters both name rooks,
    /// written back as X-FEN (a letter for the outermost rook, the file for an inner one).
    #[test]
    fn chess960_castling_fields() {
        let cases = [
            (
                "qbrkbnrn/pppppppp/8/8/8/8/PPPPPPPP/QBRKBNRN w GCgc - 0 1",
                "qbrkbnrn/pppppppp/8/8/8/8/PPPPPPPP/QBRKBNRN w KQkq - 0 1",
            ),
            ("1r2k1rr/8/8/8/8/8/8/1R2K1RR w GBgb - 0 1", "1r2k1rr/8/8/8/8/8/8/1R2K1RR w GQgq - 0 1"),
            ("1r2k1rr/8/8/8/8/8/8/1R2K1RR w KQ - 0 1", "1r2k1rr/8/8/8/8/8/8/1R2K1RR w KQ - 0 1"),
        ];
        for (fen, written) in cases {
            let board = Board::parse_fen(fen, true).unwrap();
            assert_eq!(board.to_fen(), written, "{fen}");
            assert_eq!(Board::parse_fen(written, true).unwrap().key(), board.key(), "{fen}");
        }
        // The same pieces with the inner or the outer rook allowed to castle hash differently.
        let inner = Board::parse_fen("1r2k1rr/8/8/8/8/8/8/1R2K1RR w G - 0 1", true).unwrap();
        let outer = Board::parse_fen("1r2k1rr/8/8/8/8/8/8/1R2K1RR w H - 0 1", true).unwrap();
        assert_ne!(inner.key(), outer.key());
        let error = Board::parse_fen("4k3/8/8/8/8/8/8/R3K1RR w GH - 0 1", true).err().unwrap();
        assert!(error.to_string().contains("gives white two rooks to castle with on one side"), "{error}");
        // Standard chess has no castling with a king off the e-file.
        assert_eq!(Board::from_fen("1r2k1rr/8/8/8/8/8/8/1RK3RR w G - 0 1").unwrap().castling_rights(), 0);
    }

    #[test]
    fn four_field_fen_gets_default_counters() {
        let board = Board::from_fen("8/8/8/4k3/8/8/8/4K3 b - -").unwrap();
        assert_eq!(board.to_fen(), "8/8/8/4k3/8/8/8/4K3 b - - 0 1");
    }

    #[test]
    fn malformed_fens_are_rejected_with_a_reason() {
        let cases = [
            ("", "expected 4 to 6 fields"),
            ("8/8/8/8/8/8/8/8 w", "found 2"),
            ("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1 extra", "unexpected text"),
            ("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNX w KQkq - 0 1", "'X' on rank 1"),
            ("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBN w KQkq - 0 1", "rank 1 ('RNBQKBN') has 7 squares"),
            ("rnbqkbnr/ppppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1", "rank 7 ('ppppppppp') has more than 8"),
            ("rnbqkbnr/pppppppp/9/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1", "'9' on rank 6"),
            ("rnbqkbnr/pppppppp/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1", "7 ranks"),
            ("rnbqkbnr/pppppppp/8/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1", "9 ranks"),
            ("rnbq1bnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQ - 0 1", "black has no king"),
            ("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1 ", ""),
            ("knbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQ - 0 1", "black has more than one king (second on e8)"),
            ("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNP w kq - 0 1", "pawn on h1"),
            ("Pnbqkbnr/pppppppp/8/8/8/8/1PPPPPPP/RNBQKBNR w KQk - 0 1", "pawn on a8"),
            ("4k3/8/8/8/8/8/PPPPPPPP/QQQQKQQQ w - - 0 1", "more pieces than a game can produce"),
            ("4k3/8/8/8/8/NNNNNNNN/PNNNNNNN/4K3 w - - 0 1", "more pieces than a game can produce (at c2)"),
            ("4k3/PPPPPPPP/P7/8/8/8/8/4K3 w - - 0 1", "more pieces than a game can produce (at a6)"),
            ("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR x KQkq - 0 1", "side to move must be 'w' or 'b'"),
            ("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkx - 0 1", "'x' in the castling field"),
            ("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KKkq - 0 1", "repeats 'K'"),
            ("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq e9 0 1", "en passant square 'e9' is not a square"),
            ("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - x 1", "halfmove clock 'x'"),
            ("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 -3", "fullmove number '-3'"),
            ("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 99999 1", "halfmove clock '99999'"),
            ("4k3/8/8/8/8/8/8/4K2r b - - 0 1", "white is in check but it is black to move"),
            ("8/8/8/8/8/8/8/3Kk3 w - - 0 1", "black is in check but it is white to move"),
        ];
        for (fen, expected) in cases {
            match Board::from_fen(fen) {
                Ok(_) if expected.is_empty() => {}
                Ok(_) => panic!("accepted malformed FEN '{fen}'"),
                Err(e) => {
                    let message = e.to_string();
                    assert!(!expected.is_empty() && message.contains(expected), "'{fen}': got '{message}'");
                }
            }
        }
    }

    #[test]
    fn startpos_names_the_start_position() {
        assert_eq!(position_fen(" startpos "), super::super::START_FEN);
        let fen = "8/8/8/4k3/8/8/8/4K3 w - - 0 1";
        assert_eq!(position_fen(fen), fen);
    }
}
