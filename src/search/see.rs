//! Static exchange evaluation: what a capture wins or loses once every piece that can join
//! the exchange on its square has done so, cheapest first. It decides which captures are
//! worth searching early (or at all).

use crate::board::{Board, Color, Move, PieceKind, Square, SquareSet, dir};

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
        let Some((sq, kind)) = least_valuable_attacker(board, to, side, removed) else {
            break;
        };
        result = !result;
        if kind == PieceKind::King {
            // The king may only take last: if the other side can still recapture, it cannot.
            return if least_valuable_attacker(board, to, !side, removed).is_some() { !result } else { result };
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
///
/// The attackers are found from `side`'s pieces as sets, kind by kind from the cheapest: the
/// tables give the squares from which a pawn, knight or king would attack `target`, and the
/// first piece each way along the lines through it with the `removed` squares taken off the
/// board. Of two sliders of one kind the one in the earlier direction of `DIRECTION_RANK` is
/// taken, the piece a walk of the rays in that order would meet first, so that the exchange
/// (and the x-rays it opens) plays out the same whichever is found first.
fn least_valuable_attacker(
    board: &Board,
    target: Square,
    side: Color,
    removed: SquareSet,
) -> Option<(Square, PieceKind)> {
    let at = target.index64();
    let present = |kind| board.piece_set(side, kind) & !removed;
    let pawns = SquareSet::pawn_attacks_from(!side, at) & present(PieceKind::Pawn);
    if !pawns.is_empty() {
        // Of two, the one east of the target first, as the rays were walked.
        let east = target.offset(-side.forward() + dir::E);
        return Some((if pawns.contains(east) { east } else { pawns.first() }, PieceKind::Pawn));
    }
    // Knights never stand on a line through the target, so which of two goes first changes
    // nothing that follows.
    let knights = SquareSet::knight_attacks_from(at) & present(PieceKind::Knight);
    if !knights.is_empty() {
        return Some((knights.first(), PieceKind::Knight));
    }
    let occupied = board.occupied() & !removed;
    let diagonal = SquareSet::bishop_attacks_from(at, occupied);
    let orthogonal = SquareSet::rook_attacks_from(at, occupied);
    for (kind, reach) in
        [(PieceKind::Bishop, diagonal), (PieceKind::Rook, orthogonal), (PieceKind::Queen, diagonal | orthogonal)]
    {
        let found = reach & present(kind);
        if !found.is_empty() {
            let rank = |sq: &Square| DIRECTION_RANK[(target.line_step(*sq) + 11) as usize];
            return found.into_iter().min_by_key(rank).map(|sq| (sq, kind));
        }
    }
    let king = SquareSet::king_attacks_from(at) & present(PieceKind::King);
    (!king.is_empty()).then(|| (king.first(), PieceKind::King))
}

/// The order in which sliders of one kind are preferred, by the step from the target towards
/// them (indexed by step + 11): the diagonals north-east, north-west, south-east, south-west,
/// then north, south, east and west.
const DIRECTION_RANK: [u8; 23] = {
    let mut rank = [u8::MAX; 23];
    let order = [dir::NE, dir::NW, dir::SE, dir::SW, dir::N, dir::S, dir::E, dir::W];
    let mut i = 0;
    while i < order.len() {
        rank[(order[i] + 11) as usize] = i as u8;
        i += 1;
    }
    rank
};

#[cfg(test)]
mod tests {
    use super::*;
    use crate::board::Piece;
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

    /// The least valuable attacker as it was first found, walking the eight rays out of the
    /// target: the search through the piece sets must name the same piece at every step of every exchange.
    fn attacker_by_rays(board: &Board, target: Square, side: Color, removed: SquareSet) -> Option<(Square, PieceKind)> {
        let squares = board.squares();
        let present = |sq: Square, kind: PieceKind| squares[sq] == Piece::new(side, kind) && !removed.contains(sq);
        let behind = -side.forward();
        let contact = |steps: &[i8], kind| steps.iter().map(|&s| target.offset(s)).find(|&sq| present(sq, kind));
        if let Some(sq) = contact(&[behind + dir::E, behind + dir::W], PieceKind::Pawn) {
            return Some((sq, PieceKind::Pawn));
        }
        if let Some(sq) = contact(&dir::KNIGHT, PieceKind::Knight) {
            return Some((sq, PieceKind::Knight));
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
        best.or_else(|| contact(&dir::KING, PieceKind::King).map(|sq| (sq, PieceKind::King)))
    }

    /// On every square of the suites' positions and of the positions one move after them,
    /// exchanges played out attacker by attacker (each side in turn, either side first) meet
    /// the same attackers in the same order both ways.
    #[test]
    fn attackers_from_the_sets_are_those_the_rays_meet() {
        let mut steps = 0;
        for mut board in crate::perft::suite_boards() {
            for mv in crate::movegen::legal_moves(&board).iter().chain([Move::NONE]) {
                if mv != Move::NONE {
                    board.make_move(mv);
                }
                for target in Square::all() {
                    for first in Color::BOTH {
                        let (mut side, mut removed, mut stuck) = (first, SquareSet::EMPTY, 0);
                        while stuck < 2 {
                            let found = least_valuable_attacker(&board, target, side, removed);
                            let expected = attacker_by_rays(&board, target, side, removed);
                            // Of two knights either may go first (see the function): only
                            // the kind must agree.
                            let square = |(sq, kind): (Square, PieceKind)| (kind != PieceKind::Knight).then_some(sq);
                            let fen = board.to_fen();
                            assert_eq!(found.map(|f| f.1), expected.map(|e| e.1), "{target} in {fen}");
                            assert_eq!(found.and_then(square), expected.and_then(square), "{target} in {fen}");
                            match found {
                                Some((sq, _)) => {
                                    removed.insert(sq);
                                    stuck = 0;
                                    steps += 1;
                                }
                                None => stuck += 1,
                            }
                            side = !side;
                        }
                    }
                }
                if mv != Move::NONE {
                    board.unmake_move();
                }
            }
        }
        assert!(steps > 100_000, "{steps} attackers");
    }

    #[test]
    fn quiet_moves_to_attacked_squares_lose_the_piece() {
        let fen = "4k3/8/8/4p3/8/8/8/3QK3 w - - 0 1";
        assert!(!see_at_least(fen, "d1d4", 0));
        assert!(see_at_least(fen, "d1d2", 0));
    }
}
