//! The search's constants in one place: margins, depth limits and divisors of the pruning,
//! reduction and extension rules. Each is explained where it is used (`search.rs`); here they
//! can be read and tuned side by side.

/// Aspiration windows: first half-width, and from which depth the window narrows at all.
pub const ASPIRATION_DELTA: i32 = 20;
pub const ASPIRATION_MIN_DEPTH: i32 = 5;

/// Razoring: up to this depth, a node whose evaluation lies this far per ply below alpha is
/// tried with quiescence alone.
pub const RAZOR_MAX_DEPTH: i32 = 3;
pub const RAZOR_MARGIN: i32 = 250;

/// Reverse futility pruning: up to this depth, with this margin per ply.
pub const RFP_MAX_DEPTH: i32 = 8;
pub const RFP_MARGIN: i32 = 75;

/// Null-move pruning: from this depth; the reduction is BASE + depth / DEPTH_DIVISOR, plus one
/// per EVAL_DIVISOR of static evaluation above beta, at most EVAL_MAX.
pub const NMP_MIN_DEPTH: i32 = 3;
pub const NMP_BASE_REDUCTION: i32 = 3;
pub const NMP_DEPTH_DIVISOR: i32 = 4;
pub const NMP_EVAL_DIVISOR: i32 = 200;
pub const NMP_EVAL_MAX: i32 = 3;

/// ProbCut: from this depth, captures are tried against beta plus this margin.
pub const PROBCUT_MIN_DEPTH: i32 = 5;
pub const PROBCUT_MARGIN: i32 = 200;

/// Internal iterative reduction: nodes without a table move from this depth search one ply less.
pub const IIR_MIN_DEPTH: i32 = 4;

/// Singular extensions: from this depth, for table entries at most TT_DEPTH_MARGIN plies
/// shallower; the singular beta lies BETA_MARGIN per ply below the table's score.
pub const SE_MIN_DEPTH: i32 = 8;
pub const SE_TT_DEPTH_MARGIN: i32 = 3;
pub const SE_BETA_MARGIN: i32 = 1;
/// A double extension when the other moves fall this far below the singular beta, at most
/// MAX_DOUBLES times on one line.
pub const SE_DOUBLE_MARGIN: i32 = 20;
pub const SE_MAX_DOUBLES: i32 = 6;

/// Shallow move pruning (late move, futility and exchange pruning) applies up to this depth.
pub const PRUNING_MAX_DEPTH: i32 = 8;
/// Late move pruning: quiet moves tried before the rest are skipped, (BASE + depth^2), halved
/// when the position is not improving.
pub const LMP_BASE: i32 = 3;
/// History pruning: up to this depth, quiet moves whose history is below -MARGIN per ply.
pub const HISTORY_PRUNING_MAX_DEPTH: i32 = 4;
pub const HISTORY_PRUNING_MARGIN: i32 = 3000;
/// Futility pruning: up to this (reduced) depth, static evaluation plus BASE + PER_DEPTH *
/// depth must reach alpha.
pub const FUTILITY_MAX_DEPTH: i32 = 8;
pub const FUTILITY_BASE: i32 = 90;
pub const FUTILITY_PER_DEPTH: i32 = 80;
/// Exchange pruning thresholds: per ply for quiet moves, per ply squared for captures, which
/// their history may lower by one centipawn per HISTORY_DIVISOR.
pub const SEE_QUIET_MARGIN: i32 = -60;
pub const SEE_NOISY_MARGIN: i32 = -25;
pub const SEE_HISTORY_DIVISOR: i32 = 32;
/// Quiescence futility: captures that cannot lift the evaluation plus this margin to alpha.
pub const QS_FUTILITY_MARGIN: i32 = 150;

/// Late move reductions: BASE + ln(depth) * ln(move number) / DIVISOR, from this depth; the
/// history lowers the reduction by one per HISTORY_DIVISOR.
pub const LMR_MIN_DEPTH: i32 = 3;
pub const LMR_BASE: f64 = 0.75;
pub const LMR_DIVISOR: f64 = 2.25;
pub const LMR_HISTORY_DIVISOR: i32 = 8192;
