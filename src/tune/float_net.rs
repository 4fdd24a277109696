//! The network as the trainer sees it: the quantised `eval::nnue` network's shape (inputs,
//! king buckets, layers, output buckets, activation) in f32, with the gradient of the loss for
//! one position.
//!
//! One unit of output is `EVAL_SCALE` centipawns, and an accumulator value of 1.0 is what the
//! quantised network stores as `QA`, so quantising is a matter of scaling and rounding. The
//! whole shape, hidden size included, is a run-time value here (the tests check gradients on
//! tiny networks), and every shape quantises (`network`); only the engine's shape plays in the
//! engine.

use super::network::QuantisedNet;
use super::packed::Record;
use super::shape::{Activation, KingBuckets, PIECE_INPUTS, Shape};
use crate::board::{Color, PieceKind, Square};
use crate::eval::nnue::{EVAL_SCALE, MAX_OUTPUT_WEIGHT, QA, QB};
use rand::{RngExt, SeedableRng, rngs::StdRng};

/// Scores beyond this (centipawns) are clipped: the sigmoid target is flat out there anyway.
pub const SCORE_LIMIT: f32 = 3000.0;
/// The largest output weight the quantised network can hold, in float units.
pub const OUTPUT_WEIGHT_LIMIT: f32 = MAX_OUTPUT_WEIGHT as f32 / QB as f32;

/// A training position: its active inputs, side to move's view first, its output bucket and
/// its labels.
pub struct Position {
    pub features: [[u16; 32]; 2],
    pub count: usize,
    pub bucket: usize,
    pub labels: Labels,
}

/// What a position is trained towards, from the side to move's view.
#[derive(Clone, Copy, PartialEq, Debug)]
pub struct Labels {
    /// The search's score in centipawns, clipped to `SCORE_LIMIT`.
    pub score: f32,
    /// The side to move's share of the game's points: 0, 0.5 or 1.
    pub result: f32,
}

impl Labels {
    pub fn of(record: &Record) -> Labels {
        let stm = record.side_to_move();
        let sign = if stm == Color::White { 1.0 } else { -1.0 };
        let white_points = record.outcome().white_points();
        Labels {
            score: (record.white_score() as f32 * sign).clamp(-SCORE_LIMIT, SCORE_LIMIT),
            result: if stm == Color::White { white_points } else { 1.0 - white_points },
        }
    }

    /// What the prediction should be: the game's result blended with the search's score
    /// (`wdl` is the result's share).
    pub fn target(&self, wdl: f32) -> f32 {
        wdl * self.result + (1.0 - wdl) * sigmoid(self.score / EVAL_SCALE as f32)
    }
}

impl Position {
    /// The record's position as `shape`'s inputs, or with `mirror` its reflection from the
    /// a-file to the h-file, which is the same position in all but castling rights (the
    /// caller's to check).
    #[inline(always)]
    pub fn decode(record: &Record, mirror: bool, shape: &Shape) -> Position {
        let stm = record.side_to_move();
        let flip = if mirror { 7 } else { 0 };
        let pieces = || record.pieces().map(|(sq, piece)| (Square::from_index64(sq.index64() ^ flip), piece));
        let mut kings = [Square::NONE; 2];
        for (sq, piece) in pieces().filter(|(_, piece)| piece.is_kind(PieceKind::King)) {
            kings[(piece.color() != stm) as usize] = sq;
        }
        let views = [shape.view(stm, kings[0]), shape.view(!stm, kings[1])];
        let mut features = [[0u16; 32]; 2];
        let mut count = 0;
        for (sq, piece) in pieces() {
            features[0][count] = views[0].index(piece, sq) as u16;
            features[1][count] = views[1].index(piece, sq) as u16;
            count += 1;
        }
        Position { features, count, bucket: shape.output_bucket(count), labels: Labels::of(record) }
    }

    pub fn target(&self, wdl: f32) -> f32 {
        self.labels.target(wdl)
    }
}

pub fn sigmoid(x: f32) -> f32 {
    1.0 / (1.0 + (-x).exp())
}

/// The float network. The parameters are one flat vector (so the optimiser and the checkpoints
/// treat them alike): the feature weights, one row of `hidden` per input; the feature biases;
/// per output bucket the output weights, side to move's `hidden` first; the output biases.
#[derive(Clone, PartialEq, Debug)]
pub struct FloatNet {
    pub shape: Shape,
    pub params: Vec<f32>,
}

/// Per-thread working space for one position at a time.
pub struct Scratch {
    /// The two accumulators, side to move's first, then their gradients.
    acc: [Vec<f32>; 2],
    grad: [Vec<f32>; 2],
}

impl Scratch {
    pub fn new(hidden: usize) -> Scratch {
        Scratch { acc: [vec![0.0; hidden], vec![0.0; hidden]], grad: [vec![0.0; hidden], vec![0.0; hidden]] }
    }
}

impl FloatNet {
    pub fn param_count(shape: &Shape) -> usize {
        let (_, _, output_bias) = FloatNet::offsets(shape);
        output_bias + shape.output_buckets
    }

    /// Where the feature biases, output weights and output biases start in `params`.
    pub fn offsets(shape: &Shape) -> (usize, usize, usize) {
        let bias = shape.inputs() * shape.hidden;
        let output = bias + shape.hidden;
        (bias, output, output + shape.output_buckets * 2 * shape.hidden)
    }

    /// Random weights (uniform within ±1/√fan-in: a king bucket's inputs, or one output
    /// bucket's) and zero biases.
    pub fn new(shape: Shape, seed: u64) -> FloatNet {
        let hidden = shape.hidden;
        let mut rng = StdRng::seed_from_u64(seed);
        let (bias, output, output_bias) = FloatNet::offsets(&shape);
        let mut params = vec![0.0; FloatNet::param_count(&shape)];
        let feature_range = 1.0 / (PIECE_INPUTS as f32).sqrt();
        for w in &mut params[..bias] {
            *w = rng.random_range(-feature_range..feature_range);
        }
        let output_range = 1.0 / (2.0 * hidden as f32).sqrt();
        for w in &mut params[output..output_bias] {
            *w = rng.random_range(-output_range..output_range);
        }
        FloatNet { shape, params }
    }

    /// The output, in units of `EVAL_SCALE` centipawns, leaving the accumulators in `scratch`.
    #[inline(always)]
    pub fn forward(&self, pos: &Position, scratch: &mut Scratch) -> f32 {
        match self.shape.activation {
            Activation::CReLU => self.forward_with::<false>(pos, scratch),
            Activation::SCReLU => self.forward_with::<true>(pos, scratch),
        }
    }

    #[inline(always)]
    fn forward_with<const SQUARED: bool>(&self, pos: &Position, scratch: &mut Scratch) -> f32 {
        let h = self.shape.hidden;
        let (bias, outputs, output_bias) = FloatNet::offsets(&self.shape);
        let output = outputs + pos.bucket * 2 * h;
        let mut out = self.params[output_bias + pos.bucket];
        for side in 0..2 {
            let acc = &mut scratch.acc[side];
            acc.copy_from_slice(&self.params[bias..outputs]);
            add_rows(acc, &self.params, &pos.features[side][..pos.count]);
            out += activated_dot::<SQUARED>(acc, &self.params[output + side * h..][..h]);
        }
        out
    }

    /// Adds to `grad` the gradient of a loss whose derivative by the output is `d_out`, after
    /// `forward` on the same position left its accumulators in `scratch`. Only the rows of the
    /// position's inputs are touched.
    #[inline(always)]
    pub fn backward(&self, pos: &Position, scratch: &mut Scratch, d_out: f32, grad: &mut [f32]) {
        match self.shape.activation {
            Activation::CReLU => self.backward_with::<false>(pos, scratch, d_out, grad),
            Activation::SCReLU => self.backward_with::<true>(pos, scratch, d_out, grad),
        }
    }

    #[inline(always)]
    fn backward_with<const SQUARED: bool>(&self, pos: &Position, scratch: &mut Scratch, d_out: f32, grad: &mut [f32]) {
        let h = self.shape.hidden;
        let (bias, outputs, output_bias) = FloatNet::offsets(&self.shape);
        let output = outputs + pos.bucket * 2 * h;
        grad[output_bias + pos.bucket] += d_out;
        for side in 0..2 {
            let weights = &self.params[output + side * h..][..h];
            let (acc, d_acc) = (&scratch.acc[side], &mut scratch.grad[side]);
            let d_weights = &mut grad[output + side * h..][..h];
            for (((&a, &w), dw), da) in acc.iter().zip(weights).zip(d_weights).zip(d_acc.iter_mut()) {
                *dw += d_out * value::<SQUARED>(a);
                *da = d_out * w * slope::<SQUARED>(a);
            }
        }
        let [us, them] = &scratch.grad;
        for ((g, a), b) in grad[bias..outputs].iter_mut().zip(us).zip(them) {
            *g += a + b;
        }
        for side in 0..2 {
            add_to_rows(grad, &scratch.grad[side], &pos.features[side][..pos.count]);
        }
    }

    /// The evaluation in centipawns from the side to move's view.
    pub fn evaluate(&self, pos: &Position, scratch: &mut Scratch) -> f32 {
        self.forward(pos, scratch) * EVAL_SCALE as f32
    }

    /// The float network a quantised one stands for: quantising it gives `network` back
    /// exactly, so training can go on from a network file when its checkpoints are gone.
    pub fn dequantise(network: &QuantisedNet) -> FloatNet {
        let (features, biases, outputs, out_biases) = network.parts();
        fn scaled(values: &[i16], scale: i32) -> impl Iterator<Item = f32> + '_ {
            values.iter().map(move |&q| q as f32 / scale as f32)
        }
        let params = scaled(features, QA)
            .chain(scaled(biases, QA))
            .chain(scaled(outputs, QB))
            .chain(out_biases.iter().map(|&b| (b as f64 / (QA * QB) as f64) as f32))
            .collect();
        FloatNet { shape: *network.shape(), params }
    }

    /// This network spread over the king buckets `kings`: every bucket starts as a copy of its
    /// one block of feature weights, the rest unchanged, so that a fine-tuning only has to
    /// learn what sets the buckets apart, not the whole evaluation over again. Without
    /// mirroring the copy evaluates every position exactly as this network does. With it, each
    /// side's view is reflected by its own king's file, so with the kings on opposite halves
    /// the two accumulators see two different boards, which this network never learnt: such a
    /// copy starts far worse (30 % more held-out loss for net 13; `docs/log/network.md`).
    pub fn spread_over(&self, kings: KingBuckets) -> Result<FloatNet, String> {
        if self.shape.kings != KingBuckets::NONE {
            return Err(format!("only a network without king buckets can be spread over them, not {}", self.shape));
        }
        let shape = Shape { kings, ..self.shape };
        let (bias, _, _) = FloatNet::offsets(&self.shape);
        let (features, rest) = self.params.split_at(bias);
        let params = std::iter::repeat_n(features, kings.count()).flatten().chain(rest).copied().collect();
        Ok(FloatNet { shape, params })
    }

    /// The quantised network, and how many parameters had to be clamped to fit.
    pub fn quantise(&self) -> Result<(QuantisedNet, usize), String> {
        let (bias, output, output_bias) = FloatNet::offsets(&self.shape);
        let mut clamped = 0;
        let mut quantise = |values: &[f32], scale: i32, limit: i16| -> Vec<i16> {
            values
                .iter()
                .map(|&w| {
                    let q = (w * scale as f32).round();
                    if q.abs() > limit as f32 {
                        clamped += 1;
                    }
                    q.clamp(-limit as f32, limit as f32) as i16
                })
                .collect()
        };
        let features = quantise(&self.params[..bias], QA, i16::MAX);
        let biases = quantise(&self.params[bias..output], QA, i16::MAX);
        let outputs = quantise(&self.params[output..output_bias], QB, MAX_OUTPUT_WEIGHT);
        let out_biases: Vec<i32> = self.params[output_bias..]
            .iter()
            .map(|&b| (b as f64 * (QA * QB) as f64).round().clamp(i32::MIN as f64, i32::MAX as f64) as i32)
            .collect();
        let net =
            QuantisedNet::from_parts(self.shape, features, biases, outputs, out_biases).map_err(|e| e.to_string())?;
        Ok((net, clamped))
    }
}

/// Columns the row loops take at a time: 64 floats, eight 256-bit registers.
const BLOCK: usize = 64;

/// Adds to `acc` the rows of `params` (each as long as `acc`) that `features` name, a block of
/// columns at a time so that the block's sums stay in registers while the rows stream past
/// (row by row, every row would also load and store the whole accumulator). Each column sums
/// its rows in the same order either way.
#[inline(always)]
fn add_rows(acc: &mut [f32], params: &[f32], features: &[u16]) {
    let h = acc.len();
    let mut blocks = acc.chunks_exact_mut(BLOCK);
    for (b, block) in blocks.by_ref().enumerate() {
        let mut sums = [0.0f32; BLOCK];
        sums.copy_from_slice(block);
        for &f in features {
            let row = &params[f as usize * h + b * BLOCK..][..BLOCK];
            sums.iter_mut().zip(row).for_each(|(s, w)| *s += w);
        }
        block.copy_from_slice(&sums);
    }
    let tail = blocks.into_remainder();
    let start = h - tail.len();
    for &f in features {
        let row = &params[f as usize * h + start..][..tail.len()];
        tail.iter_mut().zip(row).for_each(|(a, w)| *a += w);
    }
}

/// Adds `delta` to the rows of `grad` (each as long as `delta`) that `features` name, a block
/// of columns at a time with the block of `delta` held in registers; each element receives its
/// additions in the same order either way.
#[inline(always)]
fn add_to_rows(grad: &mut [f32], delta: &[f32], features: &[u16]) {
    let h = delta.len();
    let mut blocks = delta.chunks_exact(BLOCK);
    for (b, block) in blocks.by_ref().enumerate() {
        let mut add = [0.0f32; BLOCK];
        add.copy_from_slice(block);
        for &f in features {
            let row = &mut grad[f as usize * h + b * BLOCK..][..BLOCK];
            row.iter_mut().zip(&add).for_each(|(g, d)| *g += d);
        }
    }
    let tail = blocks.remainder();
    let start = h - tail.len();
    for &f in features {
        let row = &mut grad[f as usize * h + start..][..tail.len()];
        row.iter_mut().zip(tail).for_each(|(g, d)| *g += d);
    }
}

/// Σ activation(a) · w, summed in eight lanes: a single running sum would make every addition
/// wait for the one before (floating-point sums are not reordered for us).
#[inline(always)]
fn activated_dot<const SQUARED: bool>(acc: &[f32], weights: &[f32]) -> f32 {
    const LANES: usize = 8;
    let mut lanes = [0.0f32; LANES];
    let (a_chunks, w_chunks) = (acc.chunks_exact(LANES), weights.chunks_exact(LANES));
    let tail: f32 = a_chunks.remainder().iter().zip(w_chunks.remainder()).map(|(&a, &w)| value::<SQUARED>(a) * w).sum();
    for (a, w) in a_chunks.zip(w_chunks) {
        for i in 0..LANES {
            lanes[i] += value::<SQUARED>(a[i]) * w[i];
        }
    }
    lanes.iter().sum::<f32>() + tail
}

/// The activation at `x`. (Two selects rather than `clamp`, whose NaN rules keep the loops
/// from vectorising.)
#[inline(always)]
fn value<const SQUARED: bool>(x: f32) -> f32 {
    let c = if x > 0.0 { x } else { 0.0 };
    let c = if c < 1.0 { c } else { 1.0 };
    if SQUARED { c * c } else { c }
}

/// The activation's slope at `x`.
#[inline(always)]
fn slope<const SQUARED: bool>(x: f32) -> f32 {
    let inside = x > 0.0 && x < 1.0;
    match (inside, SQUARED) {
        (false, _) => 0.0,
        (true, true) => 2.0 * x,
        (true, false) => 1.0,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::board::Board;
    use crate::rules::GameResult;
    use crate::tune::shape::quartered;

    fn record(fen: &str, white_score: i16, outcome: GameResult) -> Record {
        Record::pack(&Board::from_fen(fen).unwrap(), white_score, outcome)
    }

    fn position(fen: &str, white_score: i16, outcome: GameResult, shape: &Shape) -> Position {
        Position::decode(&record(fen, white_score, outcome), false, shape)
    }

    fn loss(net: &FloatNet, positions: &[Position], wdl: f32) -> f64 {
        let mut scratch = Scratch::new(net.shape.hidden);
        positions.iter().map(|p| (sigmoid(net.forward(p, &mut scratch)) - p.target(wdl)).powi(2) as f64).sum()
    }

    /// The analytic gradient of the summed squared error agrees with central differences, for
    /// every parameter the positions reach, with both activations, without buckets and with
    /// king buckets (mirrored) and output buckets.
    #[test]
    fn gradient_matches_finite_differences() {
        let fens = [
            ("r1bq1rk1/ppp2ppp/2np1n2/2b1p3/2B1P3/2NP1N2/PPP2PPP/R1BQ1RK1 w - - 0 7", 35, GameResult::WhiteWins),
            ("8/5pk1/6p1/8/8/6P1/5PK1/8 b - - 0 1", -20, GameResult::Draw),
            ("2r3k1/pp3ppp/8/3N4/8/1P4P1/P4P1P/2R3K1 b - - 0 30", -310, GameResult::BlackWins),
            ("8/8/2k5/8/3K4/8/1P6/8 w - - 0 50", 150, GameResult::WhiteWins),
        ];
        let wdl = 0.3;
        for activation in [Activation::CReLU, Activation::SCReLU] {
            let plain = Shape::plain(4, activation);
            for shape in [plain, Shape { kings: quartered(), output_buckets: 4, ..plain }] {
                let positions: Vec<Position> =
                    fens.iter().map(|&(fen, score, result)| position(fen, score, result, &shape)).collect();
                let mut net = FloatNet::new(shape, 42);
                // Biases away from zero, so that some neurons sit inside (0, 1) and some outside.
                let (bias, output, _) = FloatNet::offsets(&shape);
                net.params[bias..output].copy_from_slice(&[0.3, 0.6, -0.2, 1.1]);
                let mut grad = vec![0.0; net.params.len()];
                let mut scratch = Scratch::new(4);
                for p in &positions {
                    let prediction = sigmoid(net.forward(p, &mut scratch));
                    let d_out = 2.0 * (prediction - p.target(wdl)) * prediction * (1.0 - prediction);
                    net.backward(p, &mut scratch, d_out, &mut grad);
                }
                let mut checked = 0;
                for (i, &analytic) in grad.iter().enumerate() {
                    let h = 1e-3;
                    let mut plus = net.clone();
                    plus.params[i] += h;
                    let mut minus = net.clone();
                    minus.params[i] -= h;
                    let numeric = (loss(&plus, &positions, wdl) - loss(&minus, &positions, wdl)) / (2.0 * h as f64);
                    let analytic = analytic as f64;
                    assert!(
                        (numeric - analytic).abs() <= 2e-3 * analytic.abs() + 2e-5,
                        "{shape}: param {i}: {numeric} vs {analytic}"
                    );
                    checked += (analytic != 0.0) as usize;
                }
                assert!(checked > 50, "{shape}: {checked}");
            }
        }
    }

    /// The blocked row loops (a block of 64 columns and a tail of 8 here) add what adding
    /// row by row does, to the bit.
    #[test]
    fn row_loops_add_the_rows_named() {
        let h = 72;
        let params: Vec<f32> = (0..10 * h).map(|i| (i as f32 * 0.37).sin()).collect();
        let features = [3u16, 7, 0, 9];
        let start: Vec<f32> = (0..h).map(|i| i as f32 * 0.01).collect();
        let mut blocked = start.clone();
        add_rows(&mut blocked, &params, &features);
        let mut naive = start.clone();
        for &f in &features {
            naive.iter_mut().zip(&params[f as usize * h..][..h]).for_each(|(a, w)| *a += w);
        }
        assert!(blocked.iter().zip(&naive).all(|(a, b)| a.to_bits() == b.to_bits()));
        let mut grad = params.clone();
        add_to_rows(&mut grad, &start, &features);
        for (row, chunk) in grad.chunks(h).enumerate() {
            let expected =
                |i: usize| params[row * h + i] + if features.contains(&(row as u16)) { start[i] } else { 0.0 };
            assert!(chunk.iter().enumerate().all(|(i, &g)| g.to_bits() == expected(i).to_bits()), "row {row}");
        }
    }

    /// A network file dequantised and quantised again is the same network, and the float
    /// network evaluates as the quantised one does: fine-tuning starts where the file is.
    #[test]
    fn dequantising_the_embedded_network_loses_nothing() {
        let embedded = QuantisedNet::embedded();
        let float = FloatNet::dequantise(&embedded);
        let (again, clamped) = float.quantise().unwrap();
        assert_eq!((again, clamped), (embedded.clone(), 0));
        let fen = "2r3k1/pp3ppp/8/3N4/8/1P4P1/P4P1P/2R3K1 b - - 0 30";
        let board = Board::from_fen(fen).unwrap();
        let float_cp =
            float.evaluate(&position(fen, 0, GameResult::Draw, &float.shape), &mut Scratch::new(float.shape.hidden));
        assert!((float_cp - embedded.evaluate(&board) as f32).abs() < 3.0, "{float_cp} {}", embedded.evaluate(&board));
    }

    /// A network spread over king buckets evaluates every position as the network did the
    /// position each side's view shows: itself where no king is mirrored, the reflected one
    /// where both are. A network that already has king buckets is refused.
    #[test]
    fn a_spread_network_evaluates_as_the_one_it_copies() {
        let plain = FloatNet::new(Shape::plain(16, Activation::SCReLU), 7);
        let spread = plain.spread_over(quartered()).unwrap();
        assert_eq!(spread.params.len(), FloatNet::param_count(&spread.shape));
        let eval = |net: &FloatNet, fen: &str| {
            net.evaluate(&position(fen, 0, GameResult::Draw, &net.shape), &mut Scratch::new(16))
        };
        // Kings on b1 and c8: files a-d, nothing mirrored.
        let unmirrored = "2k5/pp3ppp/8/3N4/8/1P4P1/P4P1P/1K6 w - - 0 30";
        assert!((eval(&spread, unmirrored) - eval(&plain, unmirrored)).abs() < 1e-3);
        // Kings on g1 and f8: both views mirrored, so the copy sees the reflected board.
        let mirrored = "5k2/ppp3pp/8/4N3/8/1P4P1/P1P4P/6K1 w - - 0 30";
        assert!((eval(&spread, mirrored) - eval(&plain, unmirrored)).abs() < 1e-3);
        assert!((eval(&spread, mirrored) - eval(&plain, mirrored)).abs() > 1e-3);
        assert!(spread.spread_over(quartered()).is_err());
    }

    /// Mirroring a record gives the features of the position reflected from the a-file to the
    /// h-file, with the same labels; a shape that mirrors the board by the king's file sees
    /// the two alike.
    #[test]
    fn mirrored_records_decode_as_the_reflected_position() {
        let sorted = |p: &Position| {
            let mut f = [p.features[0][..p.count].to_vec(), p.features[1][..p.count].to_vec()];
            f.iter_mut().for_each(|side| side.sort());
            (f, p.bucket, p.labels)
        };
        let fen = "2r3k1/pp3ppp/8/3N4/8/1P4P1/P4P1P/2R3K1 b - - 0 30";
        let reflected = "1k3r2/ppp3pp/8/4N3/8/1P4P1/P1P4P/1K3R2 b - - 0 30";
        let plain = Shape::plain(8, Activation::SCReLU);
        let mirrored = Position::decode(&record(fen, -310, GameResult::BlackWins), true, &plain);
        assert_eq!(sorted(&mirrored), sorted(&position(reflected, -310, GameResult::BlackWins, &plain)));
        assert_ne!(sorted(&mirrored), sorted(&position(fen, -310, GameResult::BlackWins, &plain)));
        let bucketed = Shape { kings: quartered(), ..plain };
        let mirrored = Position::decode(&record(fen, -310, GameResult::BlackWins), true, &bucketed);
        assert_eq!(sorted(&mirrored), sorted(&position(fen, -310, GameResult::BlackWins, &bucketed)));
    }

    #[test]
    fn positions_decode_from_the_side_to_moves_view() {
        // Black to move, White's search score +250 and a White win: Black's view is -250, lost.
        let shape = Shape { output_buckets: 8, ..Shape::plain(8, Activation::SCReLU) };
        let p = position("4k3/8/8/8/8/8/4P3/4K3 b - - 0 1", 250, GameResult::WhiteWins, &shape);
        assert_eq!((p.labels.score, p.labels.result, p.count, p.bucket), (-250.0, 0.0, 3, 0));
        let mut ours: Vec<u16> = p.features[0][..3].to_vec();
        ours.sort();
        // Black's own king on e8 seen from Black's side is e1; White's pawn e2 and king e1 are
        // enemy pieces on e7 and e8.
        assert_eq!(ours, [5 * 64 + 4, 384 + 52, 384 + 5 * 64 + 60]);
        assert!((p.target(1.0) - 0.0).abs() < 1e-6);
        assert!((p.target(0.0) - sigmoid(-250.0 / 400.0)).abs() < 1e-6);
        let clipped = position("4k3/8/8/8/8/8/4P3/4K3 w - - 0 1", 32000, GameResult::Draw, &shape);
        assert_eq!((clipped.labels.score, clipped.labels.result), (SCORE_LIMIT, 0.5));
        let start = position(crate::board::START_FEN, 0, GameResult::Draw, &shape);
        assert_eq!(start.bucket, 7);
        // With king buckets, Black's king on e8 is on e1 of its own side: files e-h mirror the
        // board, so it stands on d1 (bucket 0 of `quartered`) and White's pawn e2 is on d7.
        let bucketed = Shape { kings: quartered(), ..shape };
        let p = position("4k3/8/8/8/8/8/4P3/4K3 b - - 0 1", 250, GameResult::WhiteWins, &bucketed);
        let mut ours: Vec<u16> = p.features[0][..3].to_vec();
        ours.sort();
        assert_eq!(ours, [5 * 64 + 3, 384 + 51, 384 + 5 * 64 + 59]);
    }
}
