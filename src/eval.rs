//! Static evaluation: how good the position is for the side to move, in centipawns.
//!
//! Every term is a (middlegame, endgame) pair; the two totals are blended by the material
//! left on the board, so a king that should hide in the middlegame walks to the centre as the
//! pieces come off.

mod params;
mod score;

pub use score::S;

use crate::board::{Board, Color, PieceKind, Square};
use params::{MATERIAL, PIECE_SQUARE};

/// Game phase weight of each piece kind; 24 is the full opening complement.
const PHASE_WEIGHT: [i32; 6] = [0, 1, 1, 2, 4, 0];
const MAX_PHASE: i32 = 24;

/// The side to move's bonus for having the move.
const TEMPO: i32 = 10;

pub fn evaluate(board: &Board) -> i32 {
    let mut score = S::default();
    let mut phase = 0;
    for color in Color::BOTH {
        let mut side = S::default();
        for kind in PieceKind::ALL {
            let k = kind.index() - 1;
            for &sq in board.pieces(color, kind) {
                side += MATERIAL[k] + PIECE_SQUARE[k][relative_index(sq, color)];
                phase += PHASE_WEIGHT[k];
            }
        }
        score += side * color.sign();
    }
    let phase = phase.min(MAX_PHASE);
    let blended = (score.mg() * phase + score.eg() * (MAX_PHASE - phase)) / MAX_PHASE;
    blended * board.side_to_move().sign() + TEMPO
}

/// The square's index in White's tables: Black's pieces read them upside down.
#[inline]
fn relative_index(sq: Square, color: Color) -> usize {
    if color == Color::White { sq.index64() } else { sq.index64() ^ 56 }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Mirroring the board (colours swapped, ranks flipped) must not change the evaluation.
    #[test]
    fn evaluation_is_colour_symmetric() {
        let pairs = [
            (
                "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
                "r3k2r/pppbbppp/2n2q1P/1P2p3/3pn3/BN2PNP1/P1PPQPB1/R3K2R b KQkq - 0 1",
            ),
            ("8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1", "8/4p1p1/8/1r3P1K/kp5R/3P4/2P5/8 b - - 0 1"),
        ];
        for (a, b) in pairs {
            assert_eq!(evaluate(&Board::from_fen(a).unwrap()), evaluate(&Board::from_fen(b).unwrap()));
        }
    }

    #[test]
    fn extra_material_is_good() {
        let up_a_queen = Board::from_fen("rnb1kbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1").unwrap();
        assert!(evaluate(&up_a_queen) > 700);
    }
}
