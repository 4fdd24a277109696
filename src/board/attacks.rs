//! Is a square attacked? Answered by looking outwards from the square, which on a mailbox
//! costs a few short ray walks and needs no attack tables.

use super::types::{Color, Piece, PieceKind, Square, SquareMap, dir};

/// True if any `by` piece attacks `sq` on `squares`. Takes the square array rather than a
/// board so that move generation can ask about a hypothetical arrangement (a king lifted
/// off its square, both pawns of an en passant capture removed).
#[inline]
pub fn is_attacked(squares: &SquareMap<Piece>, sq: Square, by: Color) -> bool {
    let pawn = Piece::new(by, PieceKind::Pawn);
    let behind = -by.forward();
    if squares[sq.offset(behind + dir::E)] == pawn || squares[sq.offset(behind + dir::W)] == pawn {
        return true;
    }
    let knight = Piece::new(by, PieceKind::Knight);
    if dir::KNIGHT.iter().any(|&d| squares[sq.offset(d)] == knight) {
        return true;
    }
    let king = Piece::new(by, PieceKind::King);
    if dir::KING.iter().any(|&d| squares[sq.offset(d)] == king) {
        return true;
    }
    let queen = Piece::new(by, PieceKind::Queen);
    let rook = Piece::new(by, PieceKind::Rook);
    let bishop = Piece::new(by, PieceKind::Bishop);
    slider_on_ray(squares, sq, &dir::ORTHOGONAL, rook, queen)
        || slider_on_ray(squares, sq, &dir::DIAGONAL, bishop, queen)
}

#[inline]
fn slider_on_ray(squares: &SquareMap<Piece>, sq: Square, dirs: &[i8; 4], a: Piece, b: Piece) -> bool {
    dirs.iter().any(|&d| {
        let mut t = sq.offset(d);
        while squares[t].is_empty() {
            t = t.offset(d);
        }
        squares[t] == a || squares[t] == b
    })
}
