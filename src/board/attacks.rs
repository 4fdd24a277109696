//! Is a square attacked? Answered from the attacker's piece lists: a table says whether a
//! knight or king stands a step away and whether a slider shares a line with the square, so
//! only lines that really join a slider to the square are walked.

use super::Board;
use super::types::{Color, Piece, PieceKind, Square, SquareMap, dir};

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

/// True if every square strictly between `from` and `to`, walking by `step`, is empty.
#[inline]
fn path_is_clear(squares: &SquareMap<Piece>, from: Square, to: Square, step: i8) -> bool {
    let mut sq = from.offset(step);
    while sq != to {
        if !squares[sq].is_empty() {
            return false;
        }
        sq = sq.offset(step);
    }
    true
}

impl Board {
    /// Whether any `by` piece attacks `sq` on `squares`. The attackers are found through
    /// `by`'s piece lists rather than by looking outwards from `sq`: a table lookup per knight,
    /// king and slider, and a walk only along a line that really joins a slider to `sq`. Far
    /// cheaper than eight ray walks, and the move generator asks this for every king move. `squares` may differ from the board's own by
    /// pieces of the side to move (the king lifted off, a pawn moved) and by pawns removed.
    #[inline(always)]
    pub(crate) fn attacked_on(&self, squares: &SquareMap<Piece>, sq: Square, by: Color) -> bool {
        let pawn = Piece::new(by, PieceKind::Pawn);
        let behind = -by.forward();
        if squares[sq.offset(behind + dir::E)] == pawn || squares[sq.offset(behind + dir::W)] == pawn {
            return true;
        }
        if contact(self.king_square(by), sq) & KING_STEP != 0 {
            return true;
        }
        for &knight in self.pieces(by, PieceKind::Knight) {
            if is_knight_jump(knight, sq) {
                return true;
            }
        }
        // Plain loops rather than one closure per kind: this is the hottest function in
        // positions where the king has room to move.
        for &queen in self.pieces(by, PieceKind::Queen) {
            let step = sq.line_step(queen);
            if step != 0 && path_is_clear(squares, sq, queen, step) {
                return true;
            }
        }
        for &rook in self.pieces(by, PieceKind::Rook) {
            let step = sq.orthogonal_step(rook);
            if step != 0 && path_is_clear(squares, sq, rook, step) {
                return true;
            }
        }
        for &bishop in self.pieces(by, PieceKind::Bishop) {
            let step = sq.diagonal_step(bishop);
            if step != 0 && path_is_clear(squares, sq, bishop, step) {
                return true;
            }
        }
        false
    }
}
