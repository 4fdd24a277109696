//! Standard Algebraic Notation, written exactly as FIDE and the PGN standard define it and read
//! leniently, the way people type moves and old files spell them.
//!
//! Reading accepts, beyond strict SAN:
//! - check, mate and annotation suffixes (`+`, `#`, `!`, `?` in any mix), which are ignored;
//! - `0-0` / `0-0-0` (and lowercase `o-o`) for castling;
//! - `x`, `:` and `-` anywhere in a move, also ignored: `x` marks nothing the move itself does
//!   not already say, so `Nxf3` to an empty square still finds the knight move;
//! - promotions as `e8=Q`, `e8Q`, `e8=q` or `e8q`;
//! - more disambiguation than needed, up to the full origin square (`Ng1f3`, `Ng1-f3`, `e2e4`);
//! - pawn captures without the `x` (`ed5`), and lowercase piece letters (`nf3`), except that a
//!   lowercase `b` first means the b-file, and means a bishop only when no pawn move fits.
//!
//! It does not accept file-only pawn captures (`exd`, `ed`) or a pawn move without its origin
//! file for a capture (`d5` never means `exd5`): those guess, and a guess that picks a legal but
//! unintended move is worse than an error.
//!
//! Castling is recognised by the move's flag, never by squares, so the same code serves the
//! king-to-g1 and king-takes-rook encodings of castling.

use crate::board::{Board, Move, PieceKind, Square, flag};
use crate::movegen::{legal_moves, parse_move};
use std::fmt;

/// Why a text is not a move here.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SanError {
    /// The text is not written like a move at all.
    Syntax { text: String, reason: &'static str },
    /// Written like a move, but no legal move in the position fits it.
    Illegal { text: String },
    /// More than one legal move fits; `candidates` are those moves in SAN.
    Ambiguous { text: String, candidates: Vec<String> },
}

impl fmt::Display for SanError {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        match self {
            SanError::Syntax { text, reason } => write!(f, "'{text}' is not a move ({reason})"),
            SanError::Illegal { text } => write!(f, "illegal move '{text}'"),
            SanError::Ambiguous { text, candidates } => {
                write!(f, "ambiguous move '{text}' (could be ")?;
                for (i, candidate) in candidates.iter().enumerate() {
                    let separator = match i {
                        0 => "",
                        _ if i + 1 == candidates.len() => " or ",
                        _ => ", ",
                    };
                    write!(f, "{separator}{candidate}")?;
                }
                write!(f, ")")
            }
        }
    }
}

impl std::error::Error for SanError {}

/// The move in SAN, with `+` or `#` when it gives check or mate. `mv` should be legal here; a
/// move that is not (including `Move::NONE`) comes back in coordinate notation instead.
pub fn to_san(board: &Board, mv: Move) -> String {
    let legal = legal_moves(board);
    san_with(&mut scratch_copy(board), mv, legal.as_slice())
}

/// `to_san` for a caller that already has the legal moves and a board it lets us play the move
/// on (and take it back), so that writing a whole game copies nothing per move.
pub(super) fn san_with(board: &mut Board, mv: Move, legal: &[Move]) -> String {
    if !legal.contains(&mv) || counters_full(board) {
        return mv.to_string();
    }
    let mut san = String::with_capacity(8);
    if mv.is_castle() {
        san.push_str(if mv.flag() == flag::KING_CASTLE { "O-O" } else { "O-O-O" });
    } else {
        let kind = board.piece_at(mv.from()).kind();
        if kind == PieceKind::Pawn {
            if mv.is_capture() {
                san.push(file_letter(mv.from()));
            }
        } else {
            san.push(kind.letter().to_ascii_uppercase());
            san.push_str(&disambiguation(board, mv, kind, legal));
        }
        if mv.is_capture() {
            san.push('x');
        }
        san.push_str(&mv.to().to_string());
        if let Some(promoted) = mv.promoted() {
            san.push('=');
            san.push(promoted.letter().to_ascii_uppercase());
        }
    }
    board.make_move(mv);
    if board.in_check() {
        san.push(if legal_moves(board).is_empty() { '#' } else { '+' });
    }
    board.unmake_move();
    san
}

/// The board's move counters are 16 bits and every move adds to them; at their limit a move
/// cannot be played on the board, so readers and writers stop there instead.
pub(super) fn counters_full(board: &Board) -> bool {
    board.halfmove_clock() == u16::MAX || board.fullmove_number() == u16::MAX
}

/// A copy of `board` to try a move on. Check and mate do not depend on the move counters, so a
/// board whose counters are full is copied with them reset, through FEN.
fn scratch_copy(board: &Board) -> Board {
    if counters_full(board) {
        let fen = board.to_fen();
        let fields: Vec<&str> = fen.split_whitespace().take(4).collect();
        if let Ok(copy) = Board::from_fen(&fields.join(" ")) {
            return copy;
        }
    }
    board.clone()
}

fn file_letter(sq: Square) -> char {
    char::from(b'a' + sq.file())
}

fn rank_digit(sq: Square) -> char {
    char::from(b'1' + sq.rank())
}

/// What tells `mv` apart from other moves of the same kind of piece to the same square: the
/// origin file if that is enough, else the rank, else both (FIDE Handbook, Appendix C).
fn disambiguation(board: &Board, mv: Move, kind: PieceKind, legal: &[Move]) -> String {
    let from = mv.from();
    let rivals: Vec<Square> = legal
        .iter()
        .filter(|m| m.to() == mv.to() && m.from() != from && !m.is_castle())
        .filter(|m| board.piece_at(m.from()).kind() == kind)
        .map(|m| m.from())
        .collect();
    if rivals.is_empty() {
        String::new()
    } else if rivals.iter().all(|sq| sq.file() != from.file()) {
        file_letter(from).to_string()
    } else if rivals.iter().all(|sq| sq.rank() != from.rank()) {
        rank_digit(from).to_string()
    } else {
        from.to_string()
    }
}

/// Reads a move written in SAN (leniently, see the module comment) and returns the legal move
/// it names.
pub fn parse_san(board: &Board, text: &str) -> Result<Move, SanError> {
    let trimmed = text.trim();
    let syntax = |reason| Err(SanError::Syntax { text: shorten(trimmed), reason });
    if trimmed.is_empty() {
        return syntax("it is empty");
    }
    if !trimmed.is_ascii() {
        return syntax("moves are written in ASCII letters and digits");
    }
    let core = trimmed.trim_end_matches(['+', '#', '!', '?']);
    if core.is_empty() {
        return syntax("it has only annotation symbols");
    }
    let legal = legal_moves(board);
    if core.starts_with(['O', 'o', '0']) && core.bytes().all(|b| matches!(b, b'O' | b'o' | b'0' | b'-')) {
        let side = match core.to_ascii_uppercase().replace('0', "O").as_str() {
            "O-O" => flag::KING_CASTLE,
            "O-O-O" => flag::QUEEN_CASTLE,
            _ => return syntax("castling is O-O or O-O-O"),
        };
        return legal.iter().find(|m| m.flag() == side).ok_or(SanError::Illegal { text: shorten(trimmed) });
    }

    let mut readings = vec![Pattern::parse(core, false)];
    if core.starts_with('b') {
        readings.push(Pattern::parse(core, true));
    }
    let found = readings
        .iter()
        .flatten()
        .map(|pattern| pattern.matches(board, legal.as_slice()))
        .find(|moves| !moves.is_empty())
        .unwrap_or_default();
    match found.as_slice() {
        [mv] => Ok(*mv),
        [] => match readings[0] {
            Err(reason) if readings.iter().all(Result::is_err) => syntax(reason),
            _ => Err(SanError::Illegal { text: shorten(trimmed) }),
        },
        candidates => {
            let mut candidates: Vec<String> = candidates.iter().map(|&m| to_san(board, m)).collect();
            candidates.sort();
            Err(SanError::Ambiguous { text: shorten(trimmed), candidates })
        }
    }
}

/// Reads a move in coordinate notation (`g1f3`, `e7e8q`, as the engine protocols write them)
/// or in SAN, whichever the text is: what a person at a terminal may type.
pub fn parse_move_text(board: &Board, text: &str) -> Result<Move, SanError> {
    match parse_move(board, text) {
        Some(mv) => Ok(mv),
        None => parse_san(board, text),
    }
}

/// Error messages quote the text; a whole garbage line quoted back helps nobody.
fn shorten(text: &str) -> String {
    const LIMIT: usize = 24;
    if text.chars().count() <= LIMIT {
        text.to_string()
    } else {
        text.chars().take(LIMIT).chain("...".chars()).collect()
    }
}

/// A non-castling move as written: which piece, what it says about the origin, where it goes.
struct Pattern {
    kind: PieceKind,
    from_file: Option<u8>,
    from_rank: Option<u8>,
    to: Square,
    promoted: Option<PieceKind>,
}

impl Pattern {
    /// Parses `core` (suffixes already removed). A lowercase `b` first is a file unless
    /// `b_is_bishop`.
    fn parse(core: &str, b_is_bishop: bool) -> Result<Pattern, &'static str> {
        const SHAPE: &str = "expected a move like e4, Nf3, exd5, e8=Q or O-O";
        let bytes = core.as_bytes();
        let (kind, rest) = match bytes.first() {
            Some(b'b') if !b_is_bishop => (PieceKind::Pawn, bytes),
            Some(&c @ (b'P' | b'N' | b'B' | b'R' | b'Q' | b'K' | b'p' | b'n' | b'b' | b'r' | b'q' | b'k')) => {
                (PieceKind::from_letter(char::from(c)).ok_or(SHAPE)?, &bytes[1..])
            }
            _ => (PieceKind::Pawn, bytes),
        };
        let mut body: Vec<u8> = rest.iter().copied().filter(|b| !matches!(b, b'x' | b':' | b'-')).collect();

        let mut promoted = None;
        if let Some(&last) = body.last().filter(|b| b"PNBRQKpnbrqk".contains(b)) {
            promoted = match PieceKind::from_letter(char::from(last)) {
                Some(k @ (PieceKind::Knight | PieceKind::Bishop | PieceKind::Rook | PieceKind::Queen)) => Some(k),
                _ => return Err("a pawn promotes to Q, R, B or N"),
            };
            body.pop();
            if body.last() == Some(&b'=') {
                body.pop();
            }
        }
        if body.len() < 2 || body.len() > 4 {
            return Err(SHAPE);
        }
        let (origin, target) = body.split_at(body.len() - 2);
        let to = std::str::from_utf8(target).ok().and_then(Square::parse).ok_or(SHAPE)?;
        let (from_file, from_rank) = match *origin {
            [] => (None, None),
            [f @ b'a'..=b'h'] => (Some(f - b'a'), None),
            [r @ b'1'..=b'8'] => (None, Some(r - b'1')),
            [f @ b'a'..=b'h', r @ b'1'..=b'8'] => (Some(f - b'a'), Some(r - b'1')),
            _ => return Err(SHAPE),
        };
        if promoted.is_some() && kind != PieceKind::Pawn {
            return Err("only pawns promote");
        }
        // A pawn move that names no file is a push, straight up the destination's file.
        let from_file = if kind == PieceKind::Pawn { from_file.or(Some(to.file())) } else { from_file };
        Ok(Pattern { kind, from_file, from_rank, to, promoted })
    }

    /// The legal moves this pattern describes. A missing promotion letter fits every promotion,
    /// which then reads as ambiguous rather than as a silent queen.
    fn matches(&self, board: &Board, legal: &[Move]) -> Vec<Move> {
        legal
            .iter()
            .copied()
            .filter(|m| m.to() == self.to && !m.is_castle())
            .filter(|m| board.piece_at(m.from()).kind() == self.kind)
            .filter(|m| self.from_file.is_none_or(|f| m.from().file() == f))
            .filter(|m| self.from_rank.is_none_or(|r| m.from().rank() == r))
            .filter(|m| self.promoted.is_none() || m.promoted() == self.promoted)
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashSet;

    fn board(fen: &str) -> Board {
        Board::from_fen(fen).unwrap()
    }

    fn suite_positions() -> Vec<Board> {
        let suites = [
            include_str!("../../perft/standard.epd"),
            include_str!("../../perft/random.epd"),
            include_str!("../../perft/edge.epd"),
        ];
        let fens =
            suites.iter().flat_map(|suite| suite.lines()).filter(|l| !l.trim().is_empty() && !l.starts_with('#'));
        fens.map(|line| board(line.split(';').next().unwrap())).collect()
    }

    /// Every legal move of every suite position and of every position one move later: SAN
    /// reads back as the same move, no two moves of a position share a SAN, and the SAN carries
    /// no more disambiguation than it needs.
    #[test]
    fn every_move_round_trips() {
        let mut positions = 0;
        let mut moves = 0;
        for root in suite_positions() {
            let mut children = vec![root.clone()];
            for mv in legal_moves(&root).iter() {
                let mut child = root.clone();
                child.make_move(mv);
                children.push(child);
            }
            for position in &children {
                positions += 1;
                let mut seen = HashSet::new();
                for mv in legal_moves(position).iter() {
                    moves += 1;
                    let san = to_san(position, mv);
                    assert_eq!(parse_san(position, &san), Ok(mv), "{san} in {}", position.to_fen());
                    assert_eq!(parse_move_text(position, &mv.to_string()), Ok(mv), "{mv} in {}", position.to_fen());
                    assert!(seen.insert(san.clone()), "two moves read {san} in {}", position.to_fen());
                    assert_minimal(position, &san);
                }
            }
        }
        assert!(positions > 1500 && moves > 40_000, "{positions} positions, {moves} moves");
    }

    /// A piece move's disambiguation is needed: with less of it, the move reads as ambiguous.
    fn assert_minimal(position: &Board, san: &str) {
        let bytes = san.as_bytes();
        if !bytes[0].is_ascii_uppercase() || san.starts_with('O') {
            return;
        }
        let core = san.trim_end_matches(['+', '#']).replace('x', "");
        let origin = &core[1..core.len() - 2];
        let shorter: Vec<String> = match origin.len() {
            0 => return,
            1 => vec![format!("{}{}", &core[..1], &core[2..])],
            _ => vec![format!("{}{}", &core[..2], &core[3..]), format!("{}{}", &core[..1], &core[2..])],
        };
        for text in shorter {
            assert!(
                matches!(parse_san(position, &text), Err(SanError::Ambiguous { .. })),
                "{san} needs no more than {text} in {}",
                position.to_fen()
            );
        }
    }

    fn san_of(fen: &str, coordinate: &str) -> String {
        let b = board(fen);
        to_san(&b, parse_move(&b, coordinate).unwrap())
    }

    #[test]
    fn known_san() {
        let knights = "4k3/8/8/8/8/5N2/8/1N2K3 w - - 0 1";
        assert_eq!(san_of(knights, "b1d2"), "Nbd2");
        assert_eq!(san_of(knights, "f3d2"), "Nfd2");
        assert_eq!(san_of(knights, "f3e5"), "Ne5");
        let rooks = "4k3/8/8/R7/8/8/8/R3K3 w - - 0 1";
        assert_eq!(san_of(rooks, "a1a3"), "R1a3");
        assert_eq!(san_of(rooks, "a5a3"), "R5a3");
        assert_eq!(san_of(rooks, "a1b1"), "Rb1");
        let queens = "8/k7/8/8/4Q2Q/8/8/K6Q w - - 0 1";
        assert_eq!(san_of(queens, "h4e1"), "Qh4e1");
        assert_eq!(san_of(queens, "e4e1"), "Qee1");
        assert_eq!(san_of(queens, "h1e1"), "Q1e1");
        assert_eq!(san_of("8/2k5/8/3pP3/8/8/8/4K3 w - d6 0 1", "e5d6"), "exd6+");
        assert_eq!(san_of("8/4P1k1/8/8/8/8/8/4K3 w - - 0 1", "e7e8n"), "e8=N+");
        assert_eq!(san_of("4r3/3P2k1/8/8/8/8/8/K7 w - - 0 1", "d7e8n"), "dxe8=N+");
        assert_eq!(san_of("4r3/3P2k1/8/8/8/8/8/K7 w - - 0 1", "d7d8q"), "d8=Q");
        assert_eq!(san_of("rnbqkbnr/pppp1ppp/8/4p3/6P1/5P2/PPPPP2P/RNBQKBNR b KQkq g3 0 2", "d8h4"), "Qh4#");
        let castles = "r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1";
        assert_eq!(san_of(castles, "e1g1"), "O-O");
        assert_eq!(san_of(castles, "e1c1"), "O-O-O");
        assert_eq!(san_of("r3k2r/8/8/8/8/8/8/R3K2R b KQkq - 0 1", "e8c8"), "O-O-O");
        assert_eq!(san_of("5k2/8/8/8/8/8/8/4K2R w K - 0 1", "e1g1"), "O-O+");
        assert_eq!(to_san(&Board::start_position(), Move::NONE), "0000");
    }

    #[test]
    fn lenient_reading() {
        let start = Board::start_position();
        let read = |b: &Board, text: &str| parse_move_text(b, text).map(|m| m.to_string());
        for (text, expected) in [
            ("Nf3", "g1f3"),
            ("Ng1f3", "g1f3"),
            ("Ng1-f3", "g1f3"),
            ("N1f3", "g1f3"),
            ("nf3", "g1f3"),
            ("Nf3!?", "g1f3"),
            (" e4 ", "e2e4"),
            ("e2-e4", "e2e4"),
            ("Pe4", "e2e4"),
            ("g1f3", "g1f3"),
            ("e2e4", "e2e4"),
        ] {
            assert_eq!(read(&start, text).as_deref(), Ok(expected), "{text}");
        }
        let castles = board("r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1");
        for (text, expected) in [("0-0", "e1g1"), ("o-o-o", "e1c1"), ("O-O+", "e1g1"), ("e1g1", "e1g1")] {
            assert_eq!(read(&castles, text).as_deref(), Ok(expected), "{text}");
        }
        let promotion = board("4r3/3P2k1/8/8/8/8/8/K7 w - - 0 1");
        for (text, expected) in
            [("d8Q", "d7d8q"), ("d8=q", "d7d8q"), ("dxe8=N+", "d7e8n"), ("de8n", "d7e8n"), ("d7e8r", "d7e8r")]
        {
            assert_eq!(read(&promotion, text).as_deref(), Ok(expected), "{text}");
        }
        // Lowercase b is the b-pawn first, and a bishop only when no pawn move fits.
        let b_file = board("4k3/8/8/2p5/1P6/8/8/4KB2 w - - 0 1");
        assert_eq!(read(&b_file, "bc5").as_deref(), Ok("b4c5"));
        assert_eq!(read(&b_file, "bxc5").as_deref(), Ok("b4c5"));
        assert_eq!(read(&b_file, "bc4").as_deref(), Ok("f1c4"));
        assert_eq!(read(&b_file, "b5").as_deref(), Ok("b4b5"));
        // `x` is not checked against the board, and a pawn without a file is a push.
        assert_eq!(read(&start, "Nxf3").as_deref(), Ok("g1f3"));
        let capture = board("4k3/8/8/3p4/4P3/8/8/4K3 w - - 0 1");
        assert_eq!(read(&capture, "ed5").as_deref(), Ok("e4d5"));
        assert_eq!(read(&capture, "d5"), Err(SanError::Illegal { text: "d5".into() }));
    }

    #[test]
    fn errors_say_what_is_wrong() {
        let start = Board::start_position();
        assert!(matches!(parse_san(&start, ""), Err(SanError::Syntax { .. })));
        assert!(matches!(parse_san(&start, "Zz9"), Err(SanError::Syntax { .. })));
        assert!(matches!(parse_san(&start, "e9"), Err(SanError::Syntax { .. })));
        assert!(matches!(parse_san(&start, "Nf3e5d4"), Err(SanError::Syntax { .. })));
        assert!(matches!(parse_san(&start, "O-O-O-O"), Err(SanError::Syntax { .. })));
        assert!(matches!(parse_san(&start, "exd"), Err(SanError::Syntax { .. })));
        assert!(matches!(parse_san(&start, "Né4"), Err(SanError::Syntax { .. })));
        assert_eq!(
            parse_san(&start, "e8=K").unwrap_err().to_string(),
            "'e8=K' is not a move (a pawn promotes to Q, R, B or N)"
        );
        assert_eq!(parse_san(&start, "Nf6"), Err(SanError::Illegal { text: "Nf6".into() }));
        assert_eq!(parse_san(&start, "O-O"), Err(SanError::Illegal { text: "O-O".into() }));
        assert_eq!(parse_san(&start, "e4=Q"), Err(SanError::Illegal { text: "e4=Q".into() }));
        assert_eq!(parse_san(&start, "Nf6").unwrap_err().to_string(), "illegal move 'Nf6'");

        let knights = board("4k3/8/8/8/8/5N2/8/1N2K3 w - - 0 1");
        let ambiguous = parse_san(&knights, "Nd2").unwrap_err();
        assert_eq!(
            ambiguous,
            SanError::Ambiguous { text: "Nd2".into(), candidates: vec!["Nbd2".into(), "Nfd2".into()] }
        );
        assert_eq!(ambiguous.to_string(), "ambiguous move 'Nd2' (could be Nbd2 or Nfd2)");
        let promotion = board("8/4P1k1/8/8/8/8/8/4K3 w - - 0 1");
        assert_eq!(
            parse_san(&promotion, "e8"),
            Err(SanError::Ambiguous {
                text: "e8".into(),
                candidates: vec!["e8=B".into(), "e8=N+".into(), "e8=Q".into(), "e8=R".into()]
            })
        );

        let quoted = format!("{}...", "y".repeat(24));
        assert_eq!(
            parse_san(&start, &"y".repeat(1000)).unwrap_err().to_string(),
            format!("'{quoted}' is not a move (expected a move like e4, Nf3, exd5, e8=Q or O-O)")
        );
    }

    #[test]
    fn full_move_counters_do_not_stop_san() {
        let b = board("5k2/8/8/8/8/8/8/4K2R w K - 65535 65535");
        assert_eq!(to_san(&b, parse_move(&b, "e1g1").unwrap()), "O-O+");
    }
}
