//! Static exchange evaluation: what a capture wins or loses once every piece that can join
//! the exchange on its square has done so, cheapest first. It decides which captures are
//! worth searching early (or at all).

use crate::board::{Board, Color, Move, Piece, PieceKind, Square, SquareMap, SquareSet, dir};

/// Whether `mv` wins at least `threshold` centipawns once the exchange it starts is played out,
/// each side free to stop capturing when that suits it. Pins are ignored.
pub fn see_ge(board: &Board, mv: Move, threshold: i32) -> bool {
    if mv.is_castle() {
        return threshold <= 0;
    }
    let from = mv.from();
    let to = mv.to();
    let squares = board.squares();
    let captured = board.captured(mv).map_or(0, PieceKind::value);
    let promotion = mv.promoted().map_or(0, |k| k.value() - PieceKind::Pawn.value());
    // `swap` is what the side that just captured stands to gain if the exchange stops now,
    // measured against the threshold; sides alternate, each negating the balance.
    let mut swap = captured + promotion - threshold;
    if swap < 0 {
        return false;
    }
    let mover = mv.promoted().unwrap_or(squares[from].kind());
    swap = mover.value() - swap;
    if swap <= 0 {
        return true;
    }
    let mut removed = SquareSet::EMPTY;
    removed.insert(from);
    if mv.is_en_passant() {
        removed.insert(to.offset(-board.side_to_move().forward()));
    }
    let mut side = board.side_to_move();
    let mut result = true;
    loop {
        side = !side;
        let Some((sq, kind)) = least_valuable_attacker(squares, to, side, removed) else {
            break;
        };
        result = !result;
        if kind == PieceKind::King {
            // The king may only take last: if the other side can still recapture, it cannot.
            return if least_valuable_attacker(squares, to, !side, removed).is_some() { !result } else { result };
        }
        swap = kind.value() - swap;
        if swap < i32::from(result) {
            break;
        }
        removed.insert(sq);
    }
    result
}

/// The cheapest `side` piece attacking `target`, treating `removed` squares as empty (their
/// pieces have already been exchanged, which also opens lines for the pieces behind them).
fn least_valuable_attacker(
    squares: &SquareMap<Piece>,
    target: Square,
    side: Color,
    removed: SquareSet,
) -> Option<(Square, PieceKind)> {
    let present = |sq: Square, kind: PieceKind| squares[sq] == Piece::new(side, kind) && !removed.contains(sq);
    let behind = -side.forward();
    for step in [behind + dir::E, behind + dir::W] {
        if present(target.offset(step), PieceKind::Pawn) {
            return Some((target.offset(step), PieceKind::Pawn));
        }
    }
    for step in dir::KNIGHT {
        if present(target.offset(step), PieceKind::Knight) {
            return Some((target.offset(step), PieceKind::Knight));
        }
    }
    let mut best: Option<(Square, PieceKind)> = None;
    for (steps, slider) in [(dir::DIAGONAL, PieceKind::Bishop), (dir::ORTHOGONAL, PieceKind::Rook)] {
        for step in steps {
            let mut sq = target.offset(step);
            while squares[sq].is_empty() || removed.contains(sq) {
                sq = sq.offset(step);
            }
            let piece = squares[sq];
            let attacks = piece.is_color(side) && (piece.kind() == slider || piece.kind() == PieceKind::Queen);
            if attacks && best.is_none_or(|(_, kind)| piece.kind() < kind) {
                best = Some((sq, piece.kind()));
            }
        }
    }
    if best.is_some() {
        return best;
    }
    dir::KING
        .iter()
        .map(|&step| target.offset(step))
        .find(|&sq| present(sq, PieceKind::King))
        .map(|sq| (sq, PieceKind::King))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::movegen::parse_move;

    fn see_at_least(fen: &str, mv: &str, threshold: i32) -> bool {
        let board = Board::from_fen(fen).unwrap();
        see_ge(&board, parse_move(&board, mv).unwrap(), threshold)
    }

    #[test]
    fn exchanges_are_played_out() {
        // An undefended pawn: wins 100.
        let fen = "1k1r4/1pp4p/p7/4p3/8/P5P1/1PP4P/2K1R3 w - - 0 1";
        assert!(see_at_least(fen, "e1e5", 100) && !see_at_least(fen, "e1e5", 101));
        // Pawn defended by a pawn, taken by a knight: loses 220.
        let fen = "4k3/8/3p4/4p3/8/5N2/8/4K3 w - - 0 1";
        assert!(see_at_least(fen, "f3e5", -220) && !see_at_least(fen, "f3e5", -219));
        // Rook takes a defended knight, but a queen behind it (an x-ray) keeps the exchange even.
        let fen = "3rk3/8/8/3n4/8/8/3R4/3QK3 w - - 0 1";
        assert!(see_at_least(fen, "d2d5", 320) && !see_at_least(fen, "d2d5", 321));
        // The king may recapture only what nobody defends.
        let fen = "8/8/4k3/4p3/8/5N2/8/4RK2 w - - 0 1";
        assert!(see_at_least(fen, "f3e5", 100));
        let fen = "8/8/4k3/4p3/8/5N2/8/5K2 w - - 0 1";
        assert!(see_at_least(fen, "f3e5", -220) && !see_at_least(fen, "f3e5", -219));
    }

    #[test]
    fn quiet_moves_to_attacked_squares_lose_the_piece() {
        let fen = "4k3/8/8/4p3/8/8/8/3QK3 w - - 0 1";
        assert!(!see_at_least(fen, "d1d4", 0));
        assert!(see_at_least(fen, "d1d2", 0));
    }
}
