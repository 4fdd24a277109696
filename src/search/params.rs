//! The search's constants in one place: every margin, depth limit, divisor and weight of the
//! pruning, reduction, extension, history and time rules. Each is explained where it is used;
//! here they can be read, and tuned, side by side.
//!
//! Each is declared once, with its default, the range a tuner may move it in and the step it
//! moves by. In the normal build a `Params` is empty and every value is its default, a
//! constant the compiler folds in. With the `spsa` feature a `Params` holds values that the
//! engine exposes as UCI options (named as below), so that a tuner (`tools/spsa.py`) can set
//! them game by game. Weights and fractions are integers in hundredths where a fraction is
//! meant.

/// One tunable constant, as a tuner sees it.
#[cfg(any(test, feature = "spsa"))]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Tunable {
    pub name: &'static str,
    pub default: i32,
    pub min: i32,
    pub max: i32,
    pub step: i32,
}

macro_rules! tunables {
    ($($(#[doc = $doc:literal])+ $name:ident = $default:literal, $min:literal..=$max:literal, $step:literal;)*) => {
        #[cfg(feature = "spsa")]
        #[allow(non_camel_case_types)]
        #[derive(Clone, Copy)]
        enum Id {
            $($name,)*
        }

        /// Every tunable, in declaration order.
        #[cfg(any(test, feature = "spsa"))]
        pub const TUNABLES: &[Tunable] = &[
            $(Tunable { name: stringify!($name), default: $default, min: $min, max: $max, step: $step },)*
        ];

        impl Params {
            $(
                $(#[doc = $doc])+
                #[inline(always)]
                pub fn $name(&self) -> i32 {
                    #[cfg(feature = "spsa")]
                    {
                        self.values[Id::$name as usize]
                    }
                    #[cfg(not(feature = "spsa"))]
                    {
                        $default
                    }
                }
            )*
        }
    };
}

tunables! {
    /// Aspiration windows: the first half-width.
    aspiration_delta = 29, 8..=50, 3;
    /// From which depth the aspiration window narrows.
    aspiration_min_depth = 5, 2..=8, 1;
    /// Aspiration windows: a re-search after a fail high is a ply shallower for each fail
    /// high in a row, up to this many plies.
    aspiration_fail_high_max = 3, 0..=5, 1;
    /// Reverse futility pruning: up to this depth.
    rfp_max_depth = 8, 4..=12, 1;
    /// Reverse futility pruning's margin per ply.
    rfp_margin = 89, 30..=150, 6;
    /// Null-move pruning: from this depth.
    nmp_min_depth = 3, 2..=6, 1;
    /// Null-move reduction: this many plies, plus depth over `nmp_depth_divisor`, plus one per
    /// `nmp_eval_divisor` of evaluation above beta (at most `nmp_eval_max`).
    nmp_base_reduction = 3, 2..=5, 1;
    /// See `nmp_base_reduction`.
    nmp_depth_divisor = 4, 2..=6, 1;
    /// See `nmp_base_reduction`.
    nmp_eval_divisor = 174, 80..=400, 20;
    /// See `nmp_base_reduction`.
    nmp_eval_max = 3, 1..=6, 1;
    /// ProbCut: from this depth.
    probcut_min_depth = 5, 3..=8, 1;
    /// ProbCut: captures are tried against beta plus this margin.
    probcut_margin = 220, 80..=400, 15;
    /// Internal iterative reduction: nodes without a table move from this depth search one
    /// ply less.
    iir_min_depth = 4, 2..=8, 1;
    /// Singular extensions: from this depth.
    se_min_depth = 8, 5..=10, 1;
    /// Singular extensions: for table entries at most this many plies shallower.
    se_tt_depth_margin = 3, 1..=5, 1;
    /// Singular extensions: the singular beta lies this much per ply below the table's score.
    se_beta_margin = 2, 1..=4, 1;
    /// Singular extensions: off the principal variation, a table move the others fall this
    /// far short of (below the singular beta) is extended two plies, at most
    /// `double_extensions_max` times on a line.
    double_extension_margin = 24, 0..=60, 5;
    /// See `double_extension_margin`.
    double_extensions_max = 9, 2..=16, 1;
    /// Shallow exchange pruning applies up to this depth.
    pruning_max_depth = 8, 4..=12, 1;
    /// Late move pruning: quiet moves tried before the rest are skipped, (this + depth²),
    /// halved when the position is not improving.
    lmp_base = 3, 1..=8, 1;
    /// Futility pruning: up to this depth.
    futility_max_depth = 8, 4..=12, 1;
    /// Futility pruning: static evaluation plus this, plus `futility_per_depth` per ply,
    /// must reach alpha.
    futility_base = 83, 30..=200, 10;
    /// See `futility_base`.
    futility_per_depth = 58, 40..=150, 8;
    /// Exchange pruning threshold per ply for quiet moves (negative: material may be lost).
    see_quiet_margin = -61, -120..=-20, 5;
    /// Exchange pruning threshold per ply squared for captures.
    see_noisy_margin = -20, -60..=-10, 3;
    /// A capture's history lowers its exchange threshold by one centipawn per this much.
    see_history_divisor = 32, 8..=128, 8;
    /// Quiescence futility: captures that cannot lift the evaluation plus this to alpha.
    qs_futility_margin = 222, 50..=300, 15;
    /// Late move reductions from this depth.
    lmr_min_depth = 3, 2..=5, 1;
    /// Late move reductions: `lmr_base` / 100 plies plus ln(depth) · ln(move number) · 100 /
    /// `lmr_divisor`, rounded down.
    lmr_base = 90, 0..=150, 10;
    /// See `lmr_base`.
    lmr_divisor = 204, 150..=350, 10;
    /// The history lowers a reduction by one ply per this much.
    lmr_history_divisor = 24333, 8000..=40000, 1500;
    /// A ply more reduction once more than this many of the replies to this node's siblings
    /// have failed high: the opponent keeps finding refutations here.
    lmr_cutoffs = 3, 1..=8, 1;
    /// Hindsight: a node whose move in was reduced this many plies or more is searched a ply
    /// deeper when the evaluations either side of that move say it did the mover good.
    hindsight_min_reduction = 1, 1..=5, 1;
    /// Hindsight: a node whose move in was reduced is searched a ply shallower when the
    /// evaluations either side of it say it cost the mover more than this.
    hindsight_margin = 47, 20..=150, 10;
    /// The reward for a refuting move: this per ply of depth, less `history_bonus_offset`,
    /// at most `history_bonus_max`.
    history_bonus_per_depth = 187, 80..=300, 15;
    /// See `history_bonus_per_depth`.
    history_bonus_offset = 120, 0..=300, 20;
    /// See `history_bonus_per_depth`.
    history_bonus_max = 1606, 800..=2800, 100;
    /// A capture's history counts one point of its ordering score per this much; a victim a
    /// pawn more valuable is worth 800 points.
    capture_history_divisor = 16, 4..=64, 4;
    /// Corrections: the entries move by (score - evaluation) · depth / this.
    correction_depth_divisor = 8, 4..=16, 1;
    /// Corrections: the pawn entry's weight (non-pawn entries weigh 1), and the divisor of
    /// the weighted sum.
    correction_pawn_weight = 1, 1..=4, 1;
    /// See `correction_pawn_weight`.
    correction_divisor = 36, 16..=64, 4;
    /// Corrections: the weight of the entry keyed by the last two moves.
    correction_continuation_weight = 3, 0..=4, 1;
    /// Time: moves the rest of the game is assumed to take when the clock does not say.
    expected_moves_left = 30, 15..=50, 2;
    /// Time: the percentage of each increment still to come that the plan counts on.
    increment_percent = 100, 60..=160, 5;
    /// Time: no iteration starts past this percentage of the time the search's state allows.
    iteration_start_percent = 80, 40..=100, 4;
    /// Time: the share of the optimum with an unstable best move (percent), less
    /// `stability_step` per iteration it has held (up to six).
    stability_base = 130, 100..=170, 5;
    /// See `stability_base`.
    stability_step = 10, 4..=16, 1;
    /// Time: a falling score lengthens the think by up to this percentage, reached at a fall
    /// of a pawn.
    score_drop_percent = 100, 40..=150, 10;
    /// Time: with the best move's share of the nodes `e`, the think scales by
    /// (`effort_base` - e) · `effort_scale`, in hundredths.
    effort_base = 150, 120..=180, 5;
    /// See `effort_base`.
    effort_scale = 135, 100..=180, 5;
}

/// The values the search runs with: the defaults, or in an `spsa` build what was set.
#[derive(Clone, Debug)]
pub struct Params {
    #[cfg(feature = "spsa")]
    values: Box<[i32]>,
    #[cfg(feature = "spsa")]
    reductions: Box<Reductions>,
}

/// Late move reductions by depth and move number (up to 63 each).
type Reductions = [[i32; 64]; 64];

impl Default for Params {
    fn default() -> Params {
        #[cfg_attr(not(feature = "spsa"), allow(clippy::let_and_return))]
        #[cfg_attr(not(feature = "spsa"), allow(unused_mut))]
        let mut params = Params {
            #[cfg(feature = "spsa")]
            values: TUNABLES.iter().map(|t| t.default).collect(),
            #[cfg(feature = "spsa")]
            reductions: Box::new([[0; 64]; 64]),
        };
        #[cfg(feature = "spsa")]
        {
            *params.reductions = reductions(params.lmr_base(), params.lmr_divisor());
        }
        params
    }
}

fn reductions(base: i32, divisor: i32) -> Reductions {
    let mut table = [[0; 64]; 64];
    for (d, row) in table.iter_mut().enumerate().skip(1) {
        for (m, r) in row.iter_mut().enumerate().skip(1) {
            *r = (base as f64 / 100.0 + (d as f64).ln() * (m as f64).ln() * 100.0 / divisor as f64) as i32;
        }
    }
    table
}

impl Params {
    /// Sets the tunable at `index` of `TUNABLES` (an `spsa` build only), rebuilding the
    /// reductions that depend on it. The engine, where a tuner's text comes in, has already
    /// checked the value against the tunable's range and answered in the protocol's words.
    #[cfg(feature = "spsa")]
    pub fn set(&mut self, index: usize, value: i32) {
        let t = &TUNABLES[index];
        debug_assert!((t.min..=t.max).contains(&value), "{} = {value}", t.name);
        self.values[index] = value;
        *self.reductions = reductions(self.lmr_base(), self.lmr_divisor());
    }

    /// How many plies to take off a late quiet move: more the deeper the search and the later
    /// the move comes in the ordering.
    #[inline]
    pub fn late_move_reduction(&self, depth: i32, move_number: usize) -> i32 {
        #[cfg(feature = "spsa")]
        let table = &*self.reductions;
        #[cfg(not(feature = "spsa"))]
        let table = {
            static TABLE: std::sync::LazyLock<Reductions> = std::sync::LazyLock::new(|| {
                let defaults = Params::default();
                reductions(defaults.lmr_base(), defaults.lmr_divisor())
            });
            &*TABLE
        };
        table[depth.clamp(0, 63) as usize][move_number.min(63)]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every tunable's default lies in its range, its step is positive and smaller than the
    /// range, and its name is unique.
    #[test]
    fn tunables_are_well_formed() {
        for (i, t) in TUNABLES.iter().enumerate() {
            assert!(t.min <= t.default && t.default <= t.max, "{t:?}");
            assert!(t.step > 0 && t.step <= t.max - t.min, "{t:?}");
            assert!(TUNABLES[..i].iter().all(|u| u.name != t.name), "{t:?}");
        }
    }

    /// The reduction table grows with depth and move number, from nothing at the first move.
    #[test]
    fn reductions_grow_with_depth_and_move_number() {
        let params = Params::default();
        assert_eq!(params.late_move_reduction(10, 1), 0);
        assert!(params.late_move_reduction(3, 3) <= params.late_move_reduction(12, 3));
        assert!(params.late_move_reduction(12, 3) <= params.late_move_reduction(12, 30));
        assert!(params.late_move_reduction(60, 60) >= 4);
    }

    /// A tuner's value reaches both the getter and the reductions built from it.
    #[cfg(feature = "spsa")]
    #[test]
    fn a_set_value_is_used() {
        let mut params = Params::default();
        let index = TUNABLES.iter().position(|t| t.name == "lmr_divisor").unwrap();
        let before = params.late_move_reduction(20, 20);
        params.set(index, TUNABLES[index].min);
        assert_eq!(params.lmr_divisor(), TUNABLES[index].min);
        assert!(params.late_move_reduction(20, 20) > before);
    }
}
