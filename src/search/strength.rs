//! Playing below full strength, for people. A level is a number on Stockfish 15.1's `UCI_Elo`
//! scale (`docs/levels.md` has the calibration), and it weakens the search the way a weaker player
//! is weak rather than by playing random moves:
//!
//! - it looks less far ahead: a depth and a node cap, so a low level misses the two- and
//!   three-move tactics a beginner misses, and answers quickly;
//! - it does not always find the best of the moves it looked at: the search scores several
//!   root moves exactly (MultiPV, without reporting the extra lines), and the move played is
//!   drawn from them with a probability that falls off with how much worse each one scored
//!   (a softmax with a level-dependent temperature);
//! - it never plays a move that scored more than the level's margin below the best one, so a
//!   club level does not drop a queen it can see.
//!
//! The draw comes from a seed mixed with the position's key, so a fixed seed gives the same
//! moves for the same search results.
//!
//! A level evaluates with the hand-crafted evaluation, whatever `Use NNUE` says: the anchors
//! below were measured with it, and the network would make every level stronger than its
//! number by an amount nobody has measured.

use super::RootMove;
use rand::rngs::StdRng;
use rand::{RngExt, SeedableRng};

/// The weakest level: a beginner who knows how the pieces move and little else.
pub const MIN_ELO: i32 = 800;
/// Full strength, as measured on the same scale (12.5% over 60 games at 10+0.1 against
/// Stockfish 15.1 at `UCI_Elo 2850`, 2512, with the hand-crafted evaluation; the network plays
/// stronger still): levels from here up do not limit the search.
pub const MAX_ELO: i32 = 2500;
/// Skill Level 20 is full strength; 0 is `MIN_ELO`.
pub const MAX_SKILL_LEVEL: i32 = 20;

/// A limited strength for one search: the level, and the seed its choice is drawn from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Strength {
    pub elo: i32,
    pub seed: u64,
}

/// What a level does to the search.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Level {
    /// The deepest iteration.
    pub depth: i32,
    /// No iteration starts past this many nodes.
    pub nodes: u64,
    /// How many root moves are scored exactly, to choose among.
    pub candidates: usize,
    /// The softmax temperature in centipawns: a move this much worse than the best is chosen
    /// e (2.7) times less often.
    pub temperature: f64,
    /// Moves scoring more than this far below the best are never chosen.
    pub margin: i32,
}

/// Levels at some points of the scale; the ones between are interpolated (nodes
/// geometrically, the rest linearly). The last row is the top of the scale, where the limits
/// no longer bind at any usual time control.
const ANCHORS: [(i32, Level); 6] = [
    (MIN_ELO, Level { depth: 1, nodes: 100, candidates: 6, temperature: 250.0, margin: 1000 }),
    (1100, Level { depth: 1, nodes: 300, candidates: 6, temperature: 150.0, margin: 700 }),
    (1400, Level { depth: 3, nodes: 1500, candidates: 5, temperature: 75.0, margin: 350 }),
    (1800, Level { depth: 7, nodes: 25_000, candidates: 4, temperature: 15.0, margin: 120 }),
    // Stockfish's 2200 already searches some eight plies: only a node cap, and no more
    // chance in the choice, comes near it.
    (2200, Level { depth: 64, nodes: 300_000, candidates: 1, temperature: 0.0, margin: 0 }),
    (MAX_ELO, Level { depth: 64, nodes: 2_000_000, candidates: 1, temperature: 0.0, margin: 0 }),
];

impl Strength {
    /// The Elo of a `Skill Level`: the levels spread evenly over the scale, 20 being full
    /// strength.
    pub fn skill_level_elo(level: i32) -> i32 {
        let level = level.clamp(0, MAX_SKILL_LEVEL);
        MIN_ELO + (MAX_ELO - MIN_ELO) * level / MAX_SKILL_LEVEL
    }

    pub fn level(&self) -> Level {
        let elo = self.elo.clamp(MIN_ELO, MAX_ELO);
        let upper = ANCHORS.iter().position(|&(at, _)| at >= elo).unwrap_or(ANCHORS.len() - 1).max(1);
        let ((lo_elo, lo), (hi_elo, hi)) = (ANCHORS[upper - 1], ANCHORS[upper]);
        let t = f64::from(elo - lo_elo) / f64::from(hi_elo - lo_elo);
        let linear = |a: f64, b: f64| a + (b - a) * t;
        Level {
            depth: linear(f64::from(lo.depth), f64::from(hi.depth)).floor() as i32,
            nodes: (lo.nodes as f64 * (hi.nodes as f64 / lo.nodes as f64).powf(t)).round() as u64,
            candidates: linear(lo.candidates as f64, hi.candidates as f64).round() as usize,
            temperature: linear(lo.temperature, hi.temperature),
            margin: linear(f64::from(lo.margin), f64::from(hi.margin)).round() as i32,
        }
    }

    /// Which of `choices` (root moves with exact scores, best first) to play in the position
    /// with this key. A Gumbel-distributed draw added to each move's scaled score picks move i
    /// with probability proportional to exp(-loss_i / temperature).
    pub fn choose(&self, key: u64, choices: &[RootMove]) -> usize {
        let level = self.level();
        let Some(best) = choices.first().map(|c| c.score) else { return 0 };
        if level.temperature <= 0.0 {
            return 0;
        }
        let mut rng = StdRng::seed_from_u64(self.seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) ^ key);
        let mut chosen = (0, f64::NEG_INFINITY);
        for (i, choice) in choices.iter().enumerate() {
            let loss = best.saturating_sub(choice.score).max(0);
            if i > 0 && loss > level.margin {
                continue;
            }
            let uniform: f64 = rng.random::<f64>().max(f64::MIN_POSITIVE);
            let gumbel = -(-uniform.ln()).ln();
            let value = -f64::from(loss) / level.temperature + gumbel;
            if value > chosen.1 {
                chosen = (i, value);
            }
        }
        chosen.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::board::Move;
    use crate::search::MATE;

    fn choices(scores: &[i32]) -> Vec<RootMove> {
        scores
            .iter()
            .map(|&score| RootMove { mv: Move::NONE, score, previous_score: score, pv: Vec::new(), nodes: 0 })
            .collect()
    }

    #[test]
    fn levels_grow_stronger_up_the_scale() {
        let mut last = Strength { elo: MIN_ELO, seed: 0 }.level();
        for elo in (MIN_ELO..=MAX_ELO).step_by(25) {
            let level = Strength { elo, seed: 0 }.level();
            assert!(level.depth >= last.depth && level.nodes >= last.nodes, "{elo}: {level:?}");
            assert!(level.temperature <= last.temperature && level.margin <= last.margin, "{elo}: {level:?}");
            last = level;
        }
        for (elo, level) in ANCHORS {
            assert_eq!(Strength { elo, seed: 0 }.level(), level);
        }
        assert_eq!(Strength::skill_level_elo(0), MIN_ELO);
        assert_eq!(Strength::skill_level_elo(MAX_SKILL_LEVEL), MAX_ELO);
    }

    /// The draw follows the softmax: over many seeds, each move is chosen about as often as
    /// exp(-loss / temperature) says, and never when it is beyond the margin.
    #[test]
    fn choices_follow_the_softmax_within_the_margin() {
        let strength = |seed| Strength { elo: 1400, seed };
        let level = strength(0).level();
        let scores = [50, 50 - level.temperature as i32, 50 - level.margin - 1];
        let moves = choices(&scores);
        let mut counts = [0; 3];
        for seed in 1..=4000 {
            counts[strength(seed).choose(0x1234, &moves)] += 1;
        }
        assert_eq!(counts[2], 0);
        let ratio = f64::from(counts[0]) / f64::from(counts[1]);
        assert!((2.4..3.1).contains(&ratio), "{counts:?}");
    }

    #[test]
    fn the_same_seed_and_position_give_the_same_choice() {
        let moves = choices(&[0, -10, -20, -30, -40]);
        let picks = |key| (1..50).map(|seed| Strength { elo: 900, seed }.choose(key, &moves)).collect::<Vec<_>>();
        assert_eq!(picks(7), picks(7));
        assert_ne!(picks(7), picks(8));
    }

    /// Even the weakest level does not walk into a mate it has seen.
    #[test]
    fn a_seen_mate_is_never_chosen() {
        let moves = choices(&[-300, -MATE + 3]);
        assert!((1..500).all(|seed| Strength { elo: MIN_ELO, seed }.choose(1, &moves) == 0));
    }
}
