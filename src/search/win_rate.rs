//! Win, draw and loss chances from a score, and the scale Sentinel reports scores on.
//!
//! GUIs show the chances beside the score (`UCI_ShowWDL`), and people read "62% to win" more
//! easily than "+1.3". Tools and sites that turn centipawns into chances (lichess's formulas,
//! a review's marks) assume a pawn's worth of advantage means what it means from Stockfish, so
//! Sentinel reports its scores as Stockfish 15.1 reports its own: normalised, 100 cp being the
//! score at which the side to move wins half its games with 58 points of material on the board
//! (a middlegame). The search keeps its own scale; `normalize` converts at the door.
//!
//! The model is Stockfish's in shape: the chance of winning is a logistic function of the
//! score, whose midpoint `a` and width `b` depend on the material left (a pawn is worth more
//! in an endgame, where it is more often decisive, and less is drawn). The coefficients were
//! fitted by maximum likelihood with `benches/fit-wdl.py` to the results of the built-in
//! network's own games at 4,000 nodes a move (docs/features.md has the fit); the
//! `the_model_fits_the_built_in_network` test fails when the network and the model drift apart,
//! and a network that changes the scale fits them again.

use crate::board::{Board, Color, PieceKind};

/// The search's score that Sentinel reports as 100 cp: a(1) of the model fitted on the
/// search's scale (Stockfish's `NormalizeToPawnValue`).
pub const NORMALIZE_TO_PAWN: i32 = 243;

/// a(m) and b(m), in reported centipawns, are quadratics in m = material / 58; a(1) is 100
/// (less the rounding of `NORMALIZE_TO_PAWN`).
const A: [f64; 3] = [132.37, -5.65, -26.89];
const B: [f64; 3] = [35.85, 48.85, -4.10];

/// The search's `cp` as Sentinel reports it, rounded to the nearest centipawn.
pub fn normalize(cp: i32) -> i32 {
    let scaled = i64::from(cp) * 100;
    let half = i64::from(NORMALIZE_TO_PAWN) / 2;
    let rounded = if scaled >= 0 { scaled + half } else { scaled - half };
    (rounded / i64::from(NORMALIZE_TO_PAWN)) as i32
}

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

/// Chances of a win, a draw and a loss (from 0 to 1) for the side to move of `board` with a
/// reported score of `cp` centipawns.
fn chances(cp: f64, board: &Board) -> [f64; 3] {
    let m = f64::from(material(board).clamp(17, 78)) / 58.0;
    let a = A[0] + A[1] * m + A[2] * m * m;
    let b = (B[0] + B[1] * m + B[2] * m * m).max(1.0);
    let v = cp.clamp(-2000.0, 2000.0);
    let win = 1.0 / (1.0 + ((a - v) / b).exp());
    let loss = 1.0 / (1.0 + ((a + v) / b).exp());
    [win, 1.0 - win - loss, loss]
}

/// Permille chances of a win, a draw and a loss for the side to move of `board` with a
/// reported score of `cp` centipawns; they add up to 1000.
pub fn win_draw_loss(cp: i32, board: &Board) -> [u32; 3] {
    let [win, _, loss] = chances(f64::from(cp), board);
    let (win, loss) = ((1000.0 * win).round() as u32, (1000.0 * loss).round() as u32);
    [win, 1000 - win - loss, loss]
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::search::{Limits, Report, Score, Searcher};
    use std::sync::mpsc;

    #[test]
    fn chances_follow_the_score_and_the_material() {
        let start = Board::start_position();
        let [w, d, l] = win_draw_loss(0, &start);
        assert_eq!(w + d + l, 1000);
        assert_eq!(w, l);
        assert!(d > w, "an even opening is drawn more often than won: {w} {d} {l}");
        assert!(win_draw_loss(300, &start)[0] > 700);
        assert!(win_draw_loss(-300, &start)[2] > 700);
        // The same pawn up means more in a pawn ending than with all the pieces on.
        let ending = Board::from_fen("8/5k2/8/8/8/8/4PK2/8 w - - 0 1").unwrap();
        assert!(win_draw_loss(100, &ending)[1] > win_draw_loss(100, &start)[1]);
        for cp in [-5000, -100, 0, 37, 250, 5000] {
            assert_eq!(win_draw_loss(cp, &start).iter().sum::<u32>(), 1000, "{cp}");
        }
    }

    #[test]
    fn a_reported_pawn_is_an_even_chance_to_win_in_a_middlegame() {
        // 58 points of material: the start position less the queens and a pawn of each side.
        let middlegame = Board::from_fen("rnb1kbnr/ppppppp1/8/8/8/8/PPPPPPP1/RNB1KBNR w KQkq - 0 1").unwrap();
        assert_eq!(material(&middlegame), 58);
        assert!((A.iter().sum::<f64>() - 100.0).abs() < 0.25, "a(1) = {}", A.iter().sum::<f64>());
        assert!(win_draw_loss(100, &middlegame)[0].abs_diff(500) <= 1, "{:?}", win_draw_loss(100, &middlegame));
        assert_eq!(normalize(NORMALIZE_TO_PAWN), 100);
        assert_eq!(normalize(-NORMALIZE_TO_PAWN), -100);
        assert_eq!(normalize(0), 0);
        // Rounded to the nearest, the same on both sides of zero.
        assert_eq!(normalize(NORMALIZE_TO_PAWN / 2 + 1), 50);
        assert_eq!(normalize(-(NORMALIZE_TO_PAWN / 2 + 1)), -50);
        assert_eq!(normalize(i32::MAX), ((i64::from(i32::MAX) * 100 + 121) / 243) as i32);
    }

    /// How the model's log loss over `(cp, board, result)` changes when every score is
    /// multiplied by `k`: 1 is the best factor when the model fits the scores.
    fn log_loss(samples: &[(i32, Board, f64)], k: f64) -> f64 {
        let total: f64 = samples
            .iter()
            .map(|(cp, board, result)| {
                let [win, draw, loss] = chances(k * f64::from(*cp), board);
                let p = if *result == 1.0 {
                    win
                } else if *result == 0.0 {
                    loss
                } else {
                    draw
                };
                -p.max(1e-9).ln()
            })
            .sum();
        total / samples.len() as f64
    }

    /// The model was fitted to the built-in network's games; a network whose scores mean
    /// something else (a wider spread of evaluations, say) must come with a model fitted again.
    /// Positions of those games with their results (`tests/data/wdl-positions.txt`, written by
    /// `benches/fit-wdl.py --sample`) are searched again as the games searched them, and the
    /// factor on the reported scores that fits their results best must stay near 1.
    #[test]
    fn the_model_fits_the_built_in_network() {
        let path = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/wdl-positions.txt");
        let text = std::fs::read_to_string(path).unwrap();
        let mut searcher = Searcher::new(16);
        let mut samples = Vec::new();
        for line in text.lines() {
            let (fen, result) = line.split_once(';').unwrap();
            let board = Board::from_fen(fen).unwrap();
            let white_points = match result {
                "1-0" => 1.0,
                "0-1" => 0.0,
                _ => 0.5,
            };
            let (tx, rx) = mpsc::channel();
            let limits = Limits { nodes: Some(SAMPLE_NODES * 20), soft_nodes: Some(SAMPLE_NODES), ..Limits::default() };
            searcher.clear();
            searcher.search(board.clone(), limits, Box::new(move |report| tx.send(report).unwrap_or(())));
            let score =
                rx.try_iter().filter_map(|r| if let Report::Info(info) = r { Some(info.score) } else { None }).last();
            if let Some(Score::Centipawns(cp)) = score {
                let result = if board.side_to_move() == Color::White { white_points } else { 1.0 - white_points };
                samples.push((cp, board, result));
            }
        }
        assert!(samples.len() > 1000, "{} positions", samples.len());
        // Golden-section search for the factor in [0.25, 4] on a logarithmic scale.
        let (mut low, mut high) = (0.25f64.ln(), 4f64.ln());
        let golden = (5f64.sqrt() - 1.0) / 2.0;
        while high - low > 1e-3 {
            let (a, b) = (high - golden * (high - low), low + golden * (high - low));
            if log_loss(&samples, a.exp()) < log_loss(&samples, b.exp()) {
                high = b;
            } else {
                low = a;
            }
        }
        let k = ((low + high) / 2.0).exp();
        eprintln!("the scores of {} positions fit their results best multiplied by {k:.3}", samples.len());
        assert!((FIT_LOW..=FIT_HIGH).contains(&k), "the scores fit the results best multiplied by {k:.3}");
    }

    /// The soft node limit of the test's searches.
    const SAMPLE_NODES: u64 = 1000;
    /// The factors the test accepts.
    /// The factors the test accepts: 2,000 positions pin the factor to about ±0.03 (one
    /// standard deviation, measured on the games' own scores by resampling); with the model
    /// this one replaced (fitted to the hand-crafted evaluation's games) the factor is 0.73.
    const FIT_LOW: f64 = 0.85;
    const FIT_HIGH: f64 = 1.18;
}
