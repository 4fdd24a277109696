//! Lichess's published review formulas, as lichess computes them (lichess-org/lila:
//! `WinPercent.scala`, `Advice.scala`, `AccuracyPercent.scala` and `AccuracyCP.scala`), so that
//! a review by Sentinel reads like lichess's on the same evaluations:
//!
//! - **Winning chances** in [-1, +1] from centipawns, `2 / (1 + exp(-0.00368208 cp)) - 1`, and
//!   the **win percentage** `50 + 50 × chances`, with scores held to ±1000 cp and a mate
//!   counted as 1000 for the side that mates.
//! - **Marks** by the winning chances a move gave away: 0.1, 0.2 and 0.3 (5, 10 and 15 points
//!   of win percentage) for `?!`, `?` and `??`, on the scores as they are (not held to ±1000);
//!   where a mate appears or disappears, lichess's mate rules instead.
//! - **Move accuracy** `103.1668 × exp(-0.04354 × drop) - 3.1669 + 1`, clamped to 0..100, from
//!   the drop of the mover's win percentage; **game accuracy** the mean of a volatility-weighted
//!   mean and the harmonic mean of a side's move accuracies.
//! - **Average centipawn loss** from the scores held to ±1000.
//!
//! Every score here is from White's side; the position before a game's first move counts as
//! lichess's +0.15 (`INITIAL_CP`) where the review starts at the standard start position.

use super::judge::Mark;
use crate::board::Color;
use crate::search::Score;

/// The score lichess gives the start position, before the first move is judged.
pub const INITIAL_CP: i32 = 15;

/// Scores are held to this for win percentages and average losses; a mate counts as this.
const CEILING: i32 = 1000;

/// The steepness of lichess's curve (lila pull request 11148, fitted to its players' games).
const MULTIPLIER: f64 = -0.003_682_08;

/// The winning chances a move must give away to be an inaccuracy, a mistake or a blunder.
const INACCURACY: f64 = 0.1;
const MISTAKE: f64 = 0.2;
const BLUNDER: f64 = 0.3;

/// Lichess's move accuracy curve, fitted to hand-chosen points (the constants with the digits
/// lichess's code has; the issue and most write-ups round them to 103.1668, 0.04354, 3.1669).
const ACCURACY_SCALE: f64 = 103.166_810_071_164_9;
const ACCURACY_DECAY: f64 = 0.043_544_153_867_539_51;
const ACCURACY_OFFSET: f64 = 3.166_924_740_191_411;

/// The winning chances, from -1 (lost) to +1 (won), of a score of `cp` centipawns.
pub fn winning_chances(cp: i32) -> f64 {
    (2.0 / (1.0 + (MULTIPLIER * f64::from(cp)).exp()) - 1.0).clamp(-1.0, 1.0)
}

/// A score as lichess counts it for accuracy and average loss: centipawns held to ±1000, a
/// mate as 1000 for the side that mates.
pub fn ceiled_cp(score: Score) -> i32 {
    match score {
        Score::Centipawns(cp) => cp.clamp(-CEILING, CEILING),
        Score::Mate(moves) if moves < 0 => -CEILING,
        Score::Mate(_) => CEILING,
    }
}

/// White's win percentage, 0 to 100, for a score from White's side.
pub fn win_percent(score: Score) -> f64 {
    50.0 + 50.0 * winning_chances(ceiled_cp(score))
}

/// A move's accuracy from the mover's win percentage before and after it.
pub fn move_accuracy(before: f64, after: f64) -> f64 {
    if after >= before {
        return 100.0;
    }
    let raw = ACCURACY_SCALE * (-ACCURACY_DECAY * (before - after)).exp() - ACCURACY_OFFSET;
    // Lichess's one-point bonus for the analysis's own imprecision.
    (raw + 1.0).clamp(0.0, 100.0)
}

/// How a mate came or went with a move, from the mover's side.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MateSequence {
    /// The mover is now mated by force.
    Created,
    /// The mover had a forced mate and let it go.
    Lost,
}

impl MateSequence {
    /// Lichess's words for it, which stand in a mistake's comment where a mark's name would.
    pub fn description(self) -> &'static str {
        match self {
            MateSequence::Created => "Checkmate is now unavoidable",
            MateSequence::Lost => "Lost forced checkmate sequence",
        }
    }
}

/// What lichess says of a move: its mark, and the mate sequence that decided it, if one did.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Advice {
    pub mark: Mark,
    pub mate: Option<MateSequence>,
}

/// Lichess's judgement of a move by `mover` from a position scored `before` to one scored
/// `after` (both from White's side), if it gave away enough to be marked. Lichess asks it only
/// of moves that were not the engine's choice.
pub fn advice(before: Score, after: Score, mover: Color) -> Option<Advice> {
    let own = |score: Score| match (mover, score) {
        (Color::White, score) => score,
        (Color::Black, Score::Centipawns(cp)) => Score::Centipawns(-cp),
        (Color::Black, Score::Mate(moves)) => Score::Mate(-moves),
    };
    let (before, after) = (own(before), own(after));
    match (before, after) {
        (Score::Centipawns(before), Score::Centipawns(after)) => {
            let lost = winning_chances(before) - winning_chances(after);
            let mark = match lost {
                lost if lost >= BLUNDER => Mark::Blunder,
                lost if lost >= MISTAKE => Mark::Mistake,
                lost if lost >= INACCURACY => Mark::Inaccuracy,
                _ => return None,
            };
            Some(Advice { mark, mate: None })
        }
        // Walking into a forced mate: the worse the position already was, the less it cost.
        (Score::Centipawns(before), Score::Mate(moves)) if moves < 0 => {
            let mark = match before {
                cp if cp < -999 => Mark::Inaccuracy,
                cp if cp < -700 => Mark::Mistake,
                _ => Mark::Blunder,
            };
            Some(Advice { mark, mate: Some(MateSequence::Created) })
        }
        // Letting a forced mate go: the better the position stays, the less it cost. Lichess
        // counts a mate for the opponent after it as a score of 0 here: a blunder.
        (Score::Mate(had), after) if had > 0 => {
            let left = match after {
                Score::Centipawns(cp) => cp,
                Score::Mate(moves) if moves < 0 => 0,
                Score::Mate(_) => return None,
            };
            let mark = match left {
                cp if cp > 999 => Mark::Inaccuracy,
                cp if cp > 700 => Mark::Mistake,
                _ => Mark::Blunder,
            };
            Some(Advice { mark, mate: Some(MateSequence::Lost) })
        }
        _ => None,
    }
}

/// A move's centipawn loss for the average: the drop of the mover's score, each held to ±1000
/// (a mate counting as 1000), never below zero.
pub fn cp_loss(before: Score, after: Score, mover: Color) -> i32 {
    let drop = ceiled_cp(before) - ceiled_cp(after);
    match mover {
        Color::White => drop.max(0),
        Color::Black => (-drop).max(0),
    }
}

/// One move's part in its side's game accuracy.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Weighted {
    pub mover: Color,
    pub accuracy: f64,
    /// How much the game swung around the move: the standard deviation of the win
    /// percentages in its window, held to 0.5..12.
    pub weight: f64,
}

/// The accuracy and weight of each move of a stretch of play, as lichess's game accuracy takes
/// them: `win_percents[i]` is White's win percentage before the `i`th move and after the last;
/// `first` made the first move. The window is a tenth of the moves, from 2 to 8 positions; the
/// first moves share the first window, so that every move has one.
pub fn weighted(win_percents: &[f64], first: Color) -> Vec<Weighted> {
    let moves = win_percents.len().saturating_sub(1);
    let window = (moves / 10).clamp(2, 8).min(win_percents.len());
    let deviation = |values: &[f64]| {
        let mean = values.iter().sum::<f64>() / values.len() as f64;
        let variance = values.iter().map(|v| (v - mean).powi(2)).sum::<f64>() / values.len() as f64;
        variance.sqrt().clamp(0.5, 12.0)
    };
    let mut weights = Vec::with_capacity(moves);
    if window > 0 {
        weights.extend(std::iter::repeat_n(deviation(&win_percents[..window]), window.saturating_sub(2)));
        weights.extend(win_percents.windows(window).map(deviation));
    }
    win_percents
        .windows(2)
        .enumerate()
        .map(|(i, pair)| {
            let mover = if i % 2 == 0 { first } else { !first };
            let accuracy = match mover {
                Color::White => move_accuracy(pair[0], pair[1]),
                Color::Black => move_accuracy(100.0 - pair[0], 100.0 - pair[1]),
            };
            Weighted { mover, accuracy, weight: weights.get(i).copied().unwrap_or(0.5) }
        })
        .collect()
}

/// The accuracy of a side over its moves: the mean of their volatility-weighted mean and
/// their harmonic mean (each accuracy counted as at least 1 there), which one bad move pulls
/// down. None without a move.
pub fn side_accuracy<'a>(moves: impl IntoIterator<Item = &'a Weighted>) -> Option<f64> {
    let (mut weighted, mut weights, mut inverses, mut count) = (0.0, 0.0, 0.0, 0usize);
    for m in moves {
        weighted += m.accuracy * m.weight;
        weights += m.weight;
        inverses += 1.0 / m.accuracy.max(1.0);
        count += 1;
    }
    (count > 0 && weights > 0.0).then(|| (weighted / weights + count as f64 / inverses) / 2.0)
}

/// Each side's game accuracy (White's first) over the stretch whose win percentages are
/// `win_percents`, as `weighted` takes them.
#[cfg(test)]
pub fn game_accuracy(win_percents: &[f64], first: Color) -> [Option<f64>; 2] {
    let moves = weighted(win_percents, first);
    Color::BOTH.map(|side| side_accuracy(moves.iter().filter(|m| m.mover == side)))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: f64, b: f64) -> bool {
        (a - b).abs() < 1e-9
    }

    /// The curve at a few scores, worked by hand:
    /// - +1.00: exp(-0.00368208 × 100) = exp(-0.368208) = 0.691973236; 2 / 1.691973236 - 1 =
    ///   0.182051794 winning chances, 50 + 50 × 0.182051794 = 59.1025897 win %.
    /// - +0.15 (lichess's start): exp(-0.0552312) = 0.946266346; 2 / 1.946266346 - 1 =
    ///   0.027608582, 51.3804291 %.
    /// - -2.50: exp(0.92052) = 2.510595560; 2 / 3.510595560 - 1 = -0.430296095, 28.4851953 %.
    /// - +10.00 and beyond, or a mate, are held to +10.00: exp(-3.68208) = 0.025171,
    ///   2 / 1.025171 - 1 = 0.950894873, 97.5447436 %.
    #[test]
    fn win_percentages_by_lichess_curve() {
        assert!(close(winning_chances(100), 0.182_051_794_383_225_6));
        assert!(close(win_percent(Score::Centipawns(100)), 59.102_589_719_161_28));
        assert!(close(win_percent(Score::Centipawns(INITIAL_CP)), 51.380_429_102_931_54));
        assert!(close(win_percent(Score::Centipawns(-250)), 28.485_195_256_375_97));
        assert!(close(win_percent(Score::Centipawns(0)), 50.0));
        assert!(close(win_percent(Score::Centipawns(1000)), 97.544_743_633_843_23));
        assert!(close(win_percent(Score::Centipawns(5000)), win_percent(Score::Centipawns(1000))));
        assert!(close(win_percent(Score::Mate(3)), win_percent(Score::Centipawns(1000))));
        assert!(close(win_percent(Score::Mate(-1)), 100.0 - win_percent(Score::Centipawns(1000))));
        // Marks take the chances of the score as it is: +20.00 is surer than +10.00.
        assert!(winning_chances(2000) > winning_chances(1000) + 0.04);
    }

    /// From an even position the chances are 2 / (1 + exp(0.00368208 × cp)) - 1 below zero; a
    /// loss of 55 cp is the first whole one past 0.1 (0.100913; 54 cp gives 0.099085), 111 cp
    /// past 0.2 (0.201557; 110 cp: 0.199790), 169 cp past 0.3 (0.301470; 168 cp: 0.299795).
    #[test]
    fn marks_by_the_winning_chances_lost() {
        let mark = |before, after, mover| advice(Score::Centipawns(before), Score::Centipawns(after), mover);
        let cp = |mark| Some(Advice { mark, mate: None });
        assert_eq!(mark(0, -54, Color::White), None);
        assert_eq!(mark(0, -55, Color::White), cp(Mark::Inaccuracy));
        assert_eq!(mark(0, -110, Color::White), cp(Mark::Inaccuracy));
        assert_eq!(mark(0, -111, Color::White), cp(Mark::Mistake));
        assert_eq!(mark(0, -168, Color::White), cp(Mark::Mistake));
        assert_eq!(mark(0, -169, Color::White), cp(Mark::Blunder));
        // Black loses when White's score rises; a gain is never marked.
        assert_eq!(mark(0, 169, Color::Black), cp(Mark::Blunder));
        assert_eq!(mark(0, -500, Color::Black), None);
        // +3.00 to +1.00: chances 0.502251 to 0.182052, 0.320199 lost, a blunder.
        assert_eq!(mark(300, 100, Color::White), cp(Mark::Blunder));
        // +15 to +10 pawns: 0.992045 to 0.950895, 0.041 lost: no mark (held to +10.00 it would
        // have been no loss at all).
        assert_eq!(mark(1500, 1000, Color::White), None);
        // +20 to +8 pawns: 0.998734 to 0.900116, 0.0986 lost, just short of an inaccuracy.
        assert_eq!(mark(2000, 800, Color::White), None);
    }

    #[test]
    fn mate_rules() {
        let (cp, mate) = (Score::Centipawns, Score::Mate);
        let advice_of = |before, after, mover| advice(before, after, mover).map(|a| (a.mark, a.mate));
        let created = Some(MateSequence::Created);
        let lost = Some(MateSequence::Lost);
        // Walking into a mate from -10.00 or worse is an inaccuracy, from -7.00 .. -9.99 a
        // mistake, from anything better a blunder.
        assert_eq!(advice_of(cp(-1000), mate(-3), Color::White), Some((Mark::Inaccuracy, created)));
        assert_eq!(advice_of(cp(-999), mate(-3), Color::White), Some((Mark::Mistake, created)));
        assert_eq!(advice_of(cp(-701), mate(-3), Color::White), Some((Mark::Mistake, created)));
        assert_eq!(advice_of(cp(-700), mate(-3), Color::White), Some((Mark::Blunder, created)));
        // For Black the signs turn: White's +8.00 is Black's -8.00, White mating is Black mated.
        assert_eq!(advice_of(cp(800), mate(2), Color::Black), Some((Mark::Mistake, created)));
        // Letting a mate go and staying above +10.00 is an inaccuracy, above +7.00 a mistake.
        assert_eq!(advice_of(mate(4), cp(1000), Color::White), Some((Mark::Inaccuracy, lost)));
        assert_eq!(advice_of(mate(4), cp(999), Color::White), Some((Mark::Mistake, lost)));
        assert_eq!(advice_of(mate(4), cp(700), Color::White), Some((Mark::Blunder, lost)));
        assert_eq!(advice_of(mate(-4), cp(-300), Color::Black), Some((Mark::Blunder, lost)));
        // From a mate for oneself to a mate for the opponent: a blunder.
        assert_eq!(advice_of(mate(2), mate(-1), Color::White), Some((Mark::Blunder, lost)));
        // A slower mate, a mate still against one, or escaping one: no mark.
        assert_eq!(advice_of(mate(2), mate(5), Color::White), None);
        assert_eq!(advice_of(mate(-2), mate(-1), Color::White), None);
        assert_eq!(advice_of(mate(-2), cp(-900), Color::White), None);
        assert_eq!(advice_of(cp(200), mate(3), Color::White), None);
    }

    /// 103.1668100711649 × exp(-0.04354415386753951 × drop) - 3.166924740191411 + 1:
    /// - 10 points: exp(-0.4354415) = 0.646978938, × 103.16681 = 66.7467532, less 2.1669247 =
    ///   64.5798285;
    /// - 5 points: exp(-0.2177208) = 0.804350009, 82.9822247, 80.8152999;
    /// - 20 points: exp(-0.8708831) = 0.418581746, 43.1837435, 41.0168187;
    /// - 100 points: 1.3259 - 2.1669 below zero, so 0.
    #[test]
    fn move_accuracy_by_lichess_curve() {
        assert_eq!(move_accuracy(50.0, 50.0), 100.0);
        assert_eq!(move_accuracy(40.0, 60.0), 100.0);
        assert!(close(move_accuracy(60.0, 50.0), 64.579_828_453_720_67));
        assert!(close(move_accuracy(55.0, 50.0), 80.815_299_920_414_36));
        assert!(close(move_accuracy(70.0, 50.0), 41.016_818_741_417_126));
        assert_eq!(move_accuracy(100.0, 0.0), 0.0);
        // The bonus makes a drop of a hair (under 0.054 points) 100.
        assert_eq!(move_accuracy(50.01, 50.0), 100.0);
    }

    /// A four-move game, worked by hand. White's win percentages: 50, 50, 40, 30, 30.
    /// - Window: 4 moves / 10 = 0, held to 2 positions: [50, 50], [50, 40], [40, 30], [30, 30],
    ///   standard deviations 0, 5, 5, 0, held to at least 0.5: weights 0.5, 5, 5, 0.5.
    /// - White's moves: 50 -> 50 (accuracy 100, weight 0.5) and 40 -> 30 (64.5798285, weight 5).
    ///   Weighted mean (100 × 0.5 + 64.5798285 × 5) / 5.5 = 67.7998440; harmonic mean
    ///   2 / (0.01 + 0.0154847) = 2 / 0.0254847 = 78.4784248; White's accuracy their mean,
    ///   73.1391344.
    /// - Black's moves: 50 -> 60 and 70 -> 70 for Black, no drop: 100.
    #[test]
    fn game_accuracy_worked_by_hand() {
        // Where only Black's moves move the score (Black's way), both sides are perfect.
        let [white, black] = game_accuracy(&[50.0, 50.0, 40.0, 40.0, 30.0], Color::White);
        assert_eq!((white, black), (Some(100.0), Some(100.0)));
        let moves = weighted(&[50.0, 50.0, 40.0, 30.0, 30.0], Color::White);
        let weights: Vec<f64> = moves.iter().map(|m| m.weight).collect();
        assert_eq!(weights, [0.5, 5.0, 5.0, 0.5]);
        let [white, black] = game_accuracy(&[50.0, 50.0, 40.0, 30.0, 30.0], Color::White);
        let weighted_mean = (100.0 * 0.5 + 64.579_828_453_720_67 * 5.0) / 5.5;
        let harmonic = 2.0 / (1.0 / 100.0 + 1.0 / 64.579_828_453_720_67);
        assert!(close(weighted_mean, 67.799_844_048_836_97), "{weighted_mean}");
        assert!(close(harmonic, 78.478_424_799_039_47), "{harmonic}");
        assert!(close(white.unwrap(), (weighted_mean + harmonic) / 2.0), "{white:?}");
        assert!((white.unwrap() - 73.139_134_4).abs() < 1e-6, "{white:?}");
        assert_eq!(black, Some(100.0));
        // Black to move first: the first move is Black's.
        assert_eq!(game_accuracy(&[50.0, 60.0], Color::Black), [None, Some(64.579_828_453_720_67)]);
        assert_eq!(game_accuracy(&[50.0], Color::White), [None, None]);
    }

    /// Windows grow with the game: 45 moves make windows of 4 positions, and the first two
    /// moves share the first window (45 / 10 = 4; 4 - 2 = 2 copies of it before the sliding
    /// windows start).
    #[test]
    fn long_games_have_wider_windows() {
        let percents: Vec<f64> = (0..46).map(|i| 50.0 + f64::from(i % 7) * 3.0).collect();
        let moves = weighted(&percents, Color::White);
        assert_eq!(moves.len(), 45);
        // [50, 53, 56, 59]: mean 54.5, deviations ±4.5 and ±1.5, variance (20.25 + 2.25) × 2 / 4.
        let first = (11.25f64).sqrt();
        assert!(close(moves[0].weight, first) && close(moves[1].weight, first) && close(moves[2].weight, first));
        // The fourth move's window is the second one, [53, 56, 59, 62]: the same spread.
        assert!(close(moves[3].weight, first));
        // [62, 65, 68, 50] (positions 4 to 7) spread wider: mean 61.25, deviations 0.75, 3.75,
        // 6.75 and -11.25, variance (0.5625 + 14.0625 + 45.5625 + 126.5625) / 4 = 46.6875.
        assert!(close(moves[6].weight, 46.6875f64.sqrt()));
    }

    /// Lichess's average loss takes the scores held to ±1000: +25.00 to +11.00 loses nothing.
    #[test]
    fn centipawn_losses() {
        let (cp, mate) = (Score::Centipawns, Score::Mate);
        assert_eq!(cp_loss(cp(40), cp(-60), Color::White), 100);
        assert_eq!(cp_loss(cp(40), cp(-60), Color::Black), 0);
        assert_eq!(cp_loss(cp(2500), cp(1100), Color::White), 0);
        assert_eq!(cp_loss(mate(3), cp(200), Color::White), 800);
        assert_eq!(cp_loss(cp(-200), mate(-2), Color::White), 800);
        // Black from -2.00 (Black's +2.00) to being mated: 1000 + 200 lost.
        assert_eq!(cp_loss(cp(-200), mate(2), Color::Black), 1200);
    }
}
