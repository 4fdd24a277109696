//! Is a square attacked? Answered from the attacker's pieces as sets (kept beside the mailbox):
//! tables say from which squares a pawn, knight or king would attack the square and which
//! lines run through it, and another which squares lie between two squares, so that whether a
//! line is open is one AND with the occupied squares. The same answers say whether the side to
//! move is in check, whether a move gives check without playing it, which the search asks
//! before it prunes a move, and which pieces give check (for the `d` command).

use super::types::{Color, Piece, PieceKind, Square, SquareSet, dir};
use super::{Board, Castling, Move, flag};

/// Flags for a mailbox difference `to - from` (as a wrapping byte): can a knight or a king
/// make that step? On the 10x12 board a difference means one step only when the file change
/// is small, which holds for knights and kings, so these tests need no board at all.
static CONTACT: [u8; 256] = {
    let mut table = [0; 256];
    let mut i = 0;
    while i < 8 {
        table[dir::KNIGHT[i] as u8 as usize] |= KNIGHT_JUMP;
        table[dir::KING[i] as u8 as usize] |= KING_STEP;
        i += 1;
    }
    table
};
const KNIGHT_JUMP: u8 = 1;
const KING_STEP: u8 = 2;

#[inline]
fn contact(from: Square, to: Square) -> u8 {
    CONTACT[to.0.wrapping_sub(from.0) as usize]
}

/// Whether a knight on `from` attacks `to`.
#[inline]
pub fn is_knight_jump(from: Square, to: Square) -> bool {
    contact(from, to) & KNIGHT_JUMP != 0
}

/// Whether a king on `from` attacks `to`.
#[inline]
pub fn is_king_step(from: Square, to: Square) -> bool {
    contact(from, to) & KING_STEP != 0
}

/// True if no square strictly between `from` and `to` (on one line) is in `occupied`.
#[inline(always)]
pub fn path_is_clear(occupied: SquareSet, from: Square, to: Square) -> bool {
    (SquareSet::between(from, to) & occupied).is_empty()
}

impl Board {
    /// Whether any `by` piece attacks `sq` when the occupied squares are `occupied`. Answered
    /// from `by`'s pieces as sets: tables give the squares from which a pawn, knight or king
    /// would attack `sq` and the lines through it, so that only a slider already on one of
    /// those lines is looked at further, by one more lookup for the squares between. Far
    /// cheaper than eight ray walks, and the move generator asks this for every king move.
    /// `occupied` may differ from the board's own by pieces of the side to move (the king
    /// lifted off, a pawn moved) and by `by`'s pawns removed (taken en passant), which no
    /// longer attack.
    #[inline(always)]
    pub(crate) fn attacked_on(&self, occupied: SquareSet, sq: Square, by: Color) -> bool {
        let to = sq.index64();
        let leapers = (SquareSet::pawn_attacks_from(!by, to) & self.piece_set(by, PieceKind::Pawn) & occupied)
            | (SquareSet::knight_attacks_from(to) & self.piece_set(by, PieceKind::Knight))
            | (SquareSet::king_attacks_from(to) & self.piece_set(by, PieceKind::King));
        if !leapers.is_empty() {
            return true;
        }
        let queens = self.piece_set(by, PieceKind::Queen);
        let sliders = (SquareSet::lines_from::<false>(to) & (self.piece_set(by, PieceKind::Bishop) | queens))
            | (SquareSet::lines_from::<true>(to) & (self.piece_set(by, PieceKind::Rook) | queens));
        sliders.indices().any(|from| (SquareSet::between_indices(to, from) & occupied).is_empty())
    }

    /// Whether `mv`, a legal move here, checks the opponent's king: directly, by the piece
    /// that lands (or the rook of a castling), or by uncovering a line of ours. The occupied
    /// squares after the move are worked out from the board's; the other pieces are where the
    /// lists say, and the moved piece's old square, though still in its list, cannot attack
    /// the king, since the king was not in check and the move only adds blockers to that line.
    pub fn gives_check(&self, mv: Move) -> bool {
        let us = self.side_to_move();
        let king = self.king_square(!us);
        let (from, to) = (mv.from(), mv.to());
        let mut occupied = self.occupied() & !SquareSet::of(from);
        let (landed, at) = if mv.is_castle() {
            let king_side = mv.flag() == flag::KING_CASTLE;
            let (king_to, rook_to) = Castling::landing(us, king_side);
            occupied = (occupied & !SquareSet::of(self.castling_rook_square(mv))) | SquareSet::of(king_to);
            occupied |= SquareSet::of(rook_to);
            (PieceKind::Rook, rook_to)
        } else {
            if mv.is_en_passant() {
                occupied = occupied & !SquareSet::of(to.offset(-us.forward()));
            }
            occupied |= SquareSet::of(to);
            (mv.promoted().unwrap_or(self.squares[from].kind()), to)
        };
        let step = match landed {
            PieceKind::Pawn => {
                let ahead = at.offset(us.forward());
                if ahead.offset(dir::E) == king || ahead.offset(dir::W) == king {
                    return true;
                }
                0
            }
            PieceKind::Knight => return is_knight_jump(at, king) || self.attacked_on(occupied, king, us),
            PieceKind::Bishop => king.diagonal_step(at),
            PieceKind::Rook => king.orthogonal_step(at),
            PieceKind::Queen => king.line_step(at),
            PieceKind::King => 0,
        };
        // The rest, checks uncovered, from the lists: the moved piece is still listed on the
        // square it left, which cannot attack the king (see above).
        (step != 0 && path_is_clear(occupied, king, at)) || self.attacked_on(occupied, king, us)
    }
}

impl Board {
    /// The squares of the pieces checking the side to move (for `d`): each piece of the other
    /// side whose own move reaches the king with nothing in between.
    pub fn checkers(&self) -> Vec<Square> {
        let us = self.side_to_move();
        let king = self.king_square(us);
        let them = !us;
        let reaches = |sq: Square, piece: Piece| {
            let step = match piece.kind() {
                PieceKind::Pawn => {
                    let ahead = sq.offset(them.forward());
                    return king == ahead.offset(dir::E) || king == ahead.offset(dir::W);
                }
                PieceKind::Knight => return is_knight_jump(sq, king),
                PieceKind::King => return false,
                PieceKind::Bishop => sq.diagonal_step(king),
                PieceKind::Rook => sq.orthogonal_step(king),
                PieceKind::Queen => sq.line_step(king),
            };
            step != 0 && path_is_clear(self.occupied(), sq, king)
        };
        Square::all().filter(|&sq| self.squares[sq].is_color(them) && reaches(sq, self.squares[sq])).collect()
    }
}

#[cfg(test)]
mod tests {
    use crate::board::Board;
    use crate::movegen::legal_moves;

    /// The checkers, each kind of piece, a double check, a blocked line, and none.
    #[test]
    fn checkers_are_the_pieces_that_reach_the_king() {
        let checkers = |fen: &str| -> Vec<String> {
            Board::from_fen(fen).unwrap().checkers().iter().map(|sq| sq.to_string()).collect()
        };
        assert_eq!(checkers("4k3/8/8/8/8/8/4r3/4K3 w - - 0 1"), ["e2"]);
        assert_eq!(checkers("4k3/8/8/8/8/3p4/8/4K3 w - - 0 1"), Vec::<String>::new());
        assert_eq!(checkers("4k3/8/8/8/8/8/3p4/4K3 w - - 0 1"), ["d2"]);
        assert_eq!(checkers("4k3/8/8/8/8/5n2/8/4K3 w - - 0 1"), ["f3"]);
        assert_eq!(checkers("4k3/8/8/8/1b6/8/8/4K3 w - - 0 1"), ["b4"]);
        assert_eq!(checkers("4k3/8/8/8/1b6/2P5/8/4K3 w - - 0 1"), Vec::<String>::new());
        assert_eq!(checkers("4k3/8/8/8/1b6/8/8/r3K3 w - - 0 1"), ["a1", "b4"]);
        assert_eq!(checkers("4k3/8/8/8/8/8/8/q3K3 w - - 0 1"), ["a1"]);
        assert_eq!(checkers("4k3/8/8/8/8/8/8/4K2R b - - 0 1"), Vec::<String>::new());
        assert_eq!(checkers("4k3/3P4/8/8/8/8/8/4K3 b - - 0 1"), ["d7"]);
    }

    /// The check the attack tables find is the one the pieces checking the king, found
    /// square by square, make, after every move and every reply from the perft suites'
    /// positions.
    #[test]
    fn in_check_agrees_with_the_checkers() {
        let mut checks = 0;
        for mut board in crate::perft::suite_boards() {
            for first in legal_moves(&board).iter() {
                board.make_move(first);
                assert_eq!(board.in_check(), !board.checkers().is_empty(), "{first} in {}", board.to_fen());
                for reply in legal_moves(&board).iter() {
                    board.make_move(reply);
                    assert_eq!(board.in_check(), !board.checkers().is_empty(), "{reply} in {}", board.to_fen());
                    checks += board.in_check() as usize;
                    board.unmake_move();
                }
                board.unmake_move();
            }
        }
        assert!(checks > 1000, "{checks} checks");
    }

    /// Saying whether a move checks without playing it agrees with playing it, for every move
    /// of every position of the perft suites (Chess960 castling, en passant and promotions
    /// included) and of the positions one move after them.
    #[test]
    fn gives_check_agrees_with_playing_the_move() {
        let suites = [
            include_str!("../../perft/standard.epd"),
            include_str!("../../perft/random.epd"),
            include_str!("../../perft/chess960.epd"),
        ];
        let mut checks = 0;
        for line in suites.iter().flat_map(|s| s.lines()) {
            let Some(fen) = line.split(';').next().filter(|f| !f.trim().is_empty() && !f.starts_with('#')) else {
                continue;
            };
            let mut board = Board::from_fen(fen.trim()).unwrap();
            for first in legal_moves(&board).iter() {
                board.make_move(first);
                for mv in legal_moves(&board).iter() {
                    let said = board.gives_check(mv);
                    board.make_move(mv);
                    assert_eq!(said, board.in_check(), "{mv} after {first} in {fen}");
                    checks += said as usize;
                    board.unmake_move();
                }
                board.unmake_move();
            }
        }
        assert!(checks > 1000, "{checks} checks");
    }
}
