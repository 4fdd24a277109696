//! How a review judges moves: a score becomes an expected score through the win-probability
//! model of `search::win_rate`, the expected score a move gives away decides its mark, and the
//! losses of a game decide each side's accuracy.
//!
//! Lichess judges with its own curve of "winning chances" (from -1 to 1) and marks a loss of
//! 0.1, 0.2 and 0.3 of them. Sentinel's model, fitted to its own self-play, is steeper: a
//! centipawn moves Sentinel's expected score (from 0 to 1) about as much as it moves lichess's
//! winning chances, twice as much as lichess's expected score. So the review takes lichess's
//! numbers on Sentinel's expected score: with 60 points of material on the board (a
//! middlegame) a move is then marked at the centipawn losses lichess marks it at (54, 110 and
//! 173 from an even position, against lichess's 55, 111 and 169), while the model's sense of
//! material stays (the same centipawns weigh less in a drawish ending). The accuracy is
//! lichess's published formula (`AccuracyPercent.scala` in lichess-org/lila) with the same
//! substitution: its win% differences, 50 times a difference of winning chances, are 50 times
//! a difference of expected score here.

use crate::board::{Board, Color};
use crate::search::Score;
use crate::search::win_rate::win_draw_loss;

/// The expected-score losses from which a move is an inaccuracy (`?!`), a mistake (`?`) and a
/// blunder (`??`).
pub const INACCURACY: f64 = 0.1;
pub const MISTAKE: f64 = 0.2;
pub const BLUNDER: f64 = 0.3;

/// The centipawns a mate counts as, beyond any score the model tells apart from a sure win.
const MATE_CP: i32 = 10_000;

/// Average losses count scores only up to this, as lichess's average centipawn loss does: a
/// move from +25 to +15 is no loss worth counting, but one from +3 to -3 pawns is.
const CP_CAP: i32 = 1000;

/// What a review says of a move.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Mark {
    /// The only move that kept the result (`!`).
    Only,
    Inaccuracy,
    Mistake,
    Blunder,
}

impl Mark {
    /// The move's mark for an expected-score `loss`, if any.
    pub fn for_loss(loss: f64) -> Option<Mark> {
        match loss {
            l if l >= BLUNDER => Some(Mark::Blunder),
            l if l >= MISTAKE => Some(Mark::Mistake),
            l if l >= INACCURACY => Some(Mark::Inaccuracy),
            _ => None,
        }
    }

    /// Its Numeric Annotation Glyph: 1 is `!`, 6 `?!`, 2 `?` and 4 `??`.
    pub fn nag(self) -> u8 {
        match self {
            Mark::Only => 1,
            Mark::Inaccuracy => 6,
            Mark::Mistake => 2,
            Mark::Blunder => 4,
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Mark::Only => "Only move",
            Mark::Inaccuracy => "Inaccuracy",
            Mark::Mistake => "Mistake",
            Mark::Blunder => "Blunder",
        }
    }
}

/// The expected score (a win 1, a draw 0.5) of the side to move of `board` with `score`.
pub fn expected(score: Score, board: &Board) -> f64 {
    let cp = match score {
        Score::Centipawns(cp) => cp,
        Score::Mate(moves) if moves > 0 => MATE_CP,
        Score::Mate(_) => -MATE_CP,
    };
    let [win, draw, _] = win_draw_loss(cp, board);
    (f64::from(win) + f64::from(draw) / 2.0) / 1000.0
}

/// A score from White's side, for the side to move `side`.
pub fn white_view(score: Score, side: Color) -> Score {
    match (side, score) {
        (Color::White, score) => score,
        (Color::Black, Score::Centipawns(cp)) => Score::Centipawns(-cp),
        (Color::Black, Score::Mate(moves)) => Score::Mate(-moves),
    }
}

/// A score in centipawns for average losses: mates and large scores count as `CP_CAP`.
pub fn capped_cp(score: Score) -> i32 {
    match score {
        Score::Centipawns(cp) => cp.clamp(-CP_CAP, CP_CAP),
        Score::Mate(moves) if moves > 0 => CP_CAP,
        Score::Mate(_) => -CP_CAP,
    }
}

/// A move's accuracy in per cent from the expected score it lost, by lichess's curve (with its
/// one-point bonus for the analysis's own imprecision).
pub fn move_accuracy(loss: f64) -> f64 {
    if loss <= 0.0 {
        return 100.0;
    }
    let win_percent_lost = 50.0 * loss;
    (103.166_810_071_164_9 * (-0.043_544_153_867_539_51 * win_percent_lost).exp() - 3.166_924_740_191_411 + 1.0)
        .clamp(0.0, 100.0)
}

/// Each side's accuracy over a stretch of play, as lichess computes a game's: the mean of a
/// mean of the moves' accuracies weighted by how much the position swung around them (the
/// standard deviation of the win percentages in a window, from 0.5 to 12) and their harmonic
/// mean, which a single bad move pulls down. `white_expected[i]` is White's expected score
/// before the `i`th move of the stretch and after the last one; `first` is the side that made
/// the first move. None for a side that made no move.
pub fn game_accuracy(white_expected: &[f64], first: Color) -> [Option<f64>; 2] {
    let win_percents: Vec<f64> = white_expected.iter().map(|e| 50.0 * e).collect();
    let moves = win_percents.len().saturating_sub(1);
    let window = (moves / 10).clamp(2, 8);
    let weight = |values: &[f64]| {
        let mean = values.iter().sum::<f64>() / values.len() as f64;
        let variance = values.iter().map(|v| (v - mean).powi(2)).sum::<f64>() / values.len() as f64;
        variance.sqrt().clamp(0.5, 12.0)
    };
    // The first moves share the first window, so that every move has one.
    let mut weights: Vec<f64> = Vec::with_capacity(moves);
    let first_window = &win_percents[..window.min(win_percents.len())];
    weights.extend(std::iter::repeat_n(weight(first_window), window.min(win_percents.len()).saturating_sub(2)));
    weights.extend(win_percents.windows(window).map(weight));
    let mut sides = [(0.0, 0.0, 0.0, 0usize); 2];
    for (i, pair) in win_percents.windows(2).enumerate() {
        let mover = if i % 2 == 0 { first } else { !first };
        let lost = match mover {
            Color::White => pair[0] - pair[1],
            Color::Black => pair[1] - pair[0],
        };
        let accuracy = move_accuracy(lost / 50.0);
        let weight = weights.get(i).copied().unwrap_or(0.5);
        let side = &mut sides[mover as usize];
        side.0 += accuracy * weight;
        side.1 += weight;
        side.2 += 1.0 / accuracy.max(1.0);
        side.3 += 1;
    }
    sides.map(|(weighted, weights, inverse_sum, count)| {
        (count > 0).then(|| (weighted / weights + count as f64 / inverse_sum) / 2.0)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn marks_follow_the_thresholds() {
        assert_eq!(Mark::for_loss(0.0), None);
        assert_eq!(Mark::for_loss(0.099), None);
        assert_eq!(Mark::for_loss(0.1), Some(Mark::Inaccuracy));
        assert_eq!(Mark::for_loss(0.25), Some(Mark::Mistake));
        assert_eq!(Mark::for_loss(0.3), Some(Mark::Blunder));
        assert_eq!(Mark::for_loss(1.0), Some(Mark::Blunder));
        assert_eq!([Mark::Only, Mark::Inaccuracy, Mark::Mistake, Mark::Blunder].map(Mark::nag), [1, 6, 2, 4]);
    }

    /// The calibration the module comment states: in a middlegame, from an even position, the
    /// marks start near lichess's centipawn losses.
    #[test]
    fn middlegame_thresholds_sit_near_lichess_centipawns() {
        // 60 points of material: queens, rooks, two minor pieces and seven pawns each.
        let board = Board::from_fen("r1bqk2r/ppp2ppp/2n5/8/8/2N5/PPP2PPP/R1BQK2R w KQkq - 0 1").unwrap();
        let loss = |cp: i32| expected(Score::Centipawns(0), &board) - expected(Score::Centipawns(-cp), &board);
        let first_marked = |threshold| (0..1000).find(|&cp| loss(cp) >= threshold).unwrap();
        // With the model fitted to net 14's games, on the reported scale: 47, 94 and 148.
        for (threshold, lichess) in [(INACCURACY, 55), (MISTAKE, 111), (BLUNDER, 169)] {
            let cp = first_marked(threshold);
            assert!((lichess - 25..=lichess).contains(&cp), "{threshold}: {cp} cp against lichess's {lichess}");
        }
        assert_eq!(expected(Score::Mate(3), &board), 1.0);
        assert_eq!(expected(Score::Mate(-2), &board), 0.0);
        assert_eq!(expected(Score::Mate(0), &board), 0.0);
    }

    #[test]
    fn accuracy_is_lichess_curve() {
        assert_eq!(move_accuracy(0.0), 100.0);
        assert_eq!(move_accuracy(-0.2), 100.0);
        // Lichess's curve: 10 win-percentage points lost give 64.6.
        assert!((move_accuracy(0.2) - 64.6).abs() < 0.05, "{}", move_accuracy(0.2));
        // Losing everything is 50 points there, from a win to a loss.
        assert!((move_accuracy(1.0) - 9.53).abs() < 0.01, "{}", move_accuracy(1.0));
        // A game without a loss is 100 for both sides; a blunder pulls its side down.
        let even = [0.5; 21];
        assert_eq!(game_accuracy(&even, Color::White), [Some(100.0), Some(100.0)]);
        // White's sixth move (the game's eleventh) loses 0.4.
        let mut blunder = even;
        for e in &mut blunder[11..] {
            *e = 0.1;
        }
        let [white, black] = game_accuracy(&blunder, Color::White);
        assert!(white.unwrap() < 90.0, "{white:?}");
        assert_eq!(black, Some(100.0));
        assert_eq!(game_accuracy(&[0.5], Color::Black), [None, None]);
        assert_eq!(game_accuracy(&[0.5, 0.5], Color::Black), [None, Some(100.0)]);
    }

    #[test]
    fn scores_from_whites_side() {
        assert_eq!(white_view(Score::Mate(3), Color::Black), Score::Mate(-3));
        assert_eq!(white_view(Score::Centipawns(-40), Color::Black), Score::Centipawns(40));
        assert_eq!(white_view(Score::Centipawns(-40), Color::White), Score::Centipawns(-40));
        assert_eq!(capped_cp(Score::Centipawns(5000)), 1000);
        assert_eq!(capped_cp(Score::Mate(-1)), -1000);
    }
}
