//! The evaluation as a linear function of its weights.
//!
//! Given the game phase and the endgame scale, the evaluation is a sum of weights times
//! counts. The `Tracer` accumulator records those counts (White's minus Black's) instead of
//! adding weights, so a position traced once can be evaluated under any weights.

use crate::board::{Board, Color};
use crate::eval::{Accumulator, Blend, FULL_SCALE, MAX_PHASE, Term, WEIGHT_COUNT, evaluate_with};

/// Net uses of each weight: White's count minus Black's.
pub struct Tracer {
    coefficients: Vec<i32>,
}

impl Default for Tracer {
    fn default() -> Tracer {
        Tracer { coefficients: vec![0; WEIGHT_COUNT] }
    }
}

impl Accumulator for Tracer {
    fn add(&mut self, color: Color, term: Term, index: usize, count: i32) {
        debug_assert!(index < term.len(), "{term:?} index {index}");
        self.coefficients[term.offset() + index] += count * color.sign();
    }
}

/// One weight's net count in a position.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Coefficient {
    pub index: u16,
    pub count: i16,
}

/// A position reduced to what its evaluation depends on.
#[derive(Clone, Debug)]
pub struct Trace {
    pub phase: i32,
    pub scale: i32,
    /// The weights with a non-zero net count, in index order.
    pub coefficients: Box<[Coefficient]>,
}

impl Trace {
    pub fn new(board: &Board) -> Trace {
        let mut tracer = Tracer::default();
        let Blend { phase, scale } = evaluate_with(board, &mut tracer);
        let coefficients = tracer
            .coefficients
            .iter()
            .enumerate()
            .filter(|&(_, &count)| count != 0)
            .map(|(index, &count)| Coefficient {
                index: u16::try_from(index).expect("weight index fits u16"),
                count: i16::try_from(count).expect("weight count fits i16"),
            })
            .collect();
        Trace { phase, scale, coefficients }
    }

    /// The summed (middlegame, endgame) terms under `weights`, from White's side.
    #[cfg(test)]
    pub fn sum(&self, weights: &[crate::eval::S]) -> crate::eval::S {
        let mut sum = crate::eval::S::default();
        for c in self.coefficients.iter() {
            sum += weights[c.index as usize] * c.count as i32;
        }
        sum
    }

    /// The White-relative evaluation under `weights`, exactly as the engine computes it.
    #[cfg(test)]
    pub fn evaluate(&self, weights: &[crate::eval::S]) -> i32 {
        Blend { phase: self.phase, scale: self.scale }.apply(self.sum(weights))
    }

    /// How much a middlegame and an endgame point of the sum move the (unrounded) evaluation.
    pub fn blend_factors(&self) -> (f64, f64) {
        let max = MAX_PHASE as f64;
        let mg = self.phase as f64 / max;
        let eg = (MAX_PHASE - self.phase) as f64 * self.scale as f64 / (FULL_SCALE as f64 * max);
        (mg, eg)
    }

    /// The White-relative evaluation under real-valued weights, without rounding.
    pub fn evaluate_f64(&self, weights: &[[f64; 2]]) -> f64 {
        let (mut mg, mut eg) = (0.0, 0.0);
        for c in self.coefficients.iter() {
            let w = weights[c.index as usize];
            mg += w[0] * c.count as f64;
            eg += w[1] * c.count as f64;
        }
        let (fm, fe) = self.blend_factors();
        mg * fm + eg * fe
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::eval::{PawnCache, WEIGHTS, evaluate};
    use crate::movegen::legal_moves;
    use rand::{RngExt, SeedableRng, rngs::StdRng};

    /// Positions of every kind: the bench set, and random games played out from it.
    fn positions() -> Vec<Board> {
        let mut rng = StdRng::seed_from_u64(7);
        let mut boards = Vec::new();
        for fen in crate::bench::POSITIONS {
            let mut board = Board::from_fen(fen).unwrap();
            boards.push(board.clone());
            for _ in 0..60 {
                let moves = legal_moves(&board);
                if moves.is_empty() {
                    break;
                }
                board.make_move(moves.as_slice()[rng.random_range(0..moves.len())]);
                boards.push(Board::from_fen(&board.to_fen()).unwrap());
            }
        }
        boards
    }

    /// The tracer and the weights together give back the engine's evaluation, to the
    /// centipawn: the tuner optimises the very function the engine uses.
    #[test]
    fn trace_reproduces_the_evaluation() {
        let boards = positions();
        assert!(boards.len() > 1000);
        let mut pawns = PawnCache::new();
        for board in &boards {
            let trace = Trace::new(board);
            let from_trace = trace.evaluate(WEIGHTS) * board.side_to_move().sign();
            assert_eq!(from_trace, evaluate(board, &mut pawns), "{}", board.to_fen());
            let exact = trace.evaluate_f64(&WEIGHTS.iter().map(|w| [w.mg() as f64, w.eg() as f64]).collect::<Vec<_>>());
            assert!((exact - trace.evaluate(WEIGHTS) as f64).abs() < 1.0, "{}", board.to_fen());
        }
    }

    #[test]
    fn mirrored_positions_have_opposite_traces() {
        let white = Trace::new(&Board::from_fen("4k3/pp6/8/8/8/8/5PPP/R3K3 w - - 0 1").unwrap());
        let black = Trace::new(&Board::from_fen("r3k3/5ppp/8/8/8/8/PP6/4K3 b - - 0 1").unwrap());
        assert_eq!(white.phase, black.phase);
        let negated: Vec<_> =
            black.coefficients.iter().map(|c| Coefficient { index: c.index, count: -c.count }).collect();
        assert_eq!(&white.coefficients[..], &negated[..]);
    }
}
