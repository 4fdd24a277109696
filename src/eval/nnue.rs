//! The neural network evaluation (NNUE): a network small enough to run at every node, whose
//! first layer is updated incrementally as moves change a few pieces instead of being
//! recomputed.
//!
//! Architecture (v1): each side's view of the board is 768 binary inputs, one per (own or
//! enemy piece, kind, square), with the board flipped top to bottom for Black so that both
//! sides see their own pieces advancing up the board. One shared layer of `HIDDEN` neurons
//! turns each view into an accumulator; the output is the activated side-to-move accumulator
//! followed by the other side's, times the output weights, plus a bias, scaled to centipawns.
//! The activation is a file header choice: CReLU (clamp to [0, 1]) or SCReLU (clamped, then
//! squared).
//!
//! Arithmetic is integer: feature weights and biases are i16 scaled by `QA` (1.0 is 255),
//! output weights i16 scaled by `QB` (1.0 is 128), the output bias i32 scaled by `QA * QB`. The
//! accumulators add and subtract with wrapping, as the vector units do, so updating a position
//! incrementally gives exactly the numbers recomputing it gives, whatever the weights.
//!
//! File format (all little-endian, `HEADER_SIZE` + parameters, nothing after them):
//!
//! | offset | size          | contents                                                        |
//! |--------|---------------|-----------------------------------------------------------------|
//! | 0      | 8             | magic `SNTLNNUE`                                                |
//! | 8      | 4             | format version (u32, `VERSION`)                                 |
//! | 12     | 4             | hidden size H (u32; must equal this build's `HIDDEN`)          |
//! | 16     | 4             | activation (u32: 0 CReLU, 1 SCReLU)                             |
//! | 20     | 768 · H · 2   | feature weights, i16, one row of H per input (`feature_index`)  |
//! |        | H · 2         | feature biases, i16                                             |
//! |        | 2 · H · 2     | output weights, i16: H for the side to move, then H for the other |
//! |        | 4             | output bias, i32                                                |
//!
//! Output weights must lie within ±`MAX_OUTPUT_WEIGHT`, which keeps SCReLU's products in range.

use crate::board::{Board, Castling, Color, Move, Piece, PieceKind, Square, flag};
use std::fmt;
use std::sync::{Arc, LazyLock};

/// The network built into the binary, made as the README's "Where the network stands" says:
/// what the engine evaluates with unless `EvalFile` names another.
pub fn embedded() -> Arc<Network> {
    static EMBEDDED: LazyLock<Arc<Network>> = LazyLock::new(|| {
        let network = Network::from_bytes(include_bytes!("network.nnue"));
        Arc::new(network.expect("the built-in network is a file of this build's shape (a test checks it)"))
    });
    Arc::clone(&EMBEDDED)
}

/// Inputs per perspective: 2 sides × 6 kinds × 64 squares.
pub const INPUTS: usize = 768;
/// Neurons in the hidden layer (per perspective).
pub const HIDDEN: usize = 256;
/// The quantised value of 1.0 in the accumulators: activations are clamped to [0, QA].
pub const QA: i32 = 255;
/// The quantised value of 1.0 in the output weights.
pub const QB: i32 = 128;
/// Centipawns per unit of network output (the trainer's sigmoid scale too).
pub const EVAL_SCALE: i32 = 400;
/// Largest output weight a file may hold: 255 × 127 still fits an i16, which the SCReLU sum
/// relies on, and 127 / 128 ≈ 0.99 is more than trained output weights reach.
pub const MAX_OUTPUT_WEIGHT: i16 = 127;
/// Evaluations are clamped to this, well clear of the search's mate scores.
pub const MAX_EVAL: i32 = 20_000;

pub const MAGIC: &[u8; 8] = b"SNTLNNUE";
pub const VERSION: u32 = 2;
pub const HEADER_SIZE: usize = 20;
/// Bytes of a whole file for this build's `HIDDEN`.
pub const FILE_SIZE: usize = HEADER_SIZE + 2 * (INPUTS * HIDDEN + HIDDEN + 2 * HIDDEN) + 4;

/// How a hidden neuron's value is squashed before the output layer.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
#[cfg_attr(feature = "tune", derive(clap::ValueEnum))]
pub enum Activation {
    /// Clipped ReLU: clamp to [0, 1].
    #[cfg_attr(feature = "tune", value(name = "crelu"))]
    CReLU = 0,
    /// Squared clipped ReLU: clamp to [0, 1], then square.
    #[cfg_attr(feature = "tune", value(name = "screlu"))]
    SCReLU = 1,
}

impl Activation {
    fn from_code(code: u32) -> Option<Activation> {
        match code {
            0 => Some(Activation::CReLU),
            1 => Some(Activation::SCReLU),
            _ => None,
        }
    }
}

/// The input a piece on a square sets, seen from `perspective`'s side.
#[inline]
pub fn feature_index(perspective: Color, piece: Piece, sq: Square) -> usize {
    let side = (piece.color() != perspective) as usize;
    let flip = if perspective == Color::White { 0 } else { 56 };
    side * 384 + (piece.kind().index() - 1) * 64 + (sq.index64() ^ flip)
}

/// Why a network file was refused.
#[derive(Clone, PartialEq, Eq, Debug)]
pub enum NetError {
    BadMagic,
    Version { found: u32 },
    HiddenSize { found: u32 },
    Activation { found: u32 },
    Truncated { expected: usize, got: usize },
    TooLong { expected: usize, got: usize },
    OutputWeight { index: usize, value: i16 },
}

impl fmt::Display for NetError {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        match *self {
            NetError::BadMagic => write!(f, "not a Sentinel network file (bad magic)"),
            NetError::Version { found } => {
                write!(f, "network format version {found}; this build reads version {VERSION}")
            }
            NetError::HiddenSize { found } => {
                write!(f, "network has {found} hidden neurons; this build is made for {HIDDEN}")
            }
            NetError::Activation { found } => write!(f, "unknown activation code {found} (0 CReLU, 1 SCReLU)"),
            NetError::Truncated { expected, got } => {
                write!(f, "network file truncated: expected {expected} bytes, got {got}")
            }
            NetError::TooLong { expected, got } => {
                write!(f, "network file too long: expected {expected} bytes, got {got}")
            }
            NetError::OutputWeight { index, value } => {
                write!(f, "output weight {index} is {value}, outside ±{MAX_OUTPUT_WEIGHT}")
            }
        }
    }
}

impl std::error::Error for NetError {}

/// The quantised network's parameters.
#[derive(Clone, PartialEq, Eq)]
pub struct Network {
    activation: Activation,
    /// One row per input (`INPUTS` rows), on the heap.
    feature_weights: Box<[[i16; HIDDEN]]>,
    feature_bias: [i16; HIDDEN],
    /// `[0]` weighs the side to move's accumulator, `[1]` the other side's.
    output_weights: [[i16; HIDDEN]; 2],
    output_bias: i32,
}

impl fmt::Debug for Network {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        write!(f, "Network({:?}, {HIDDEN} hidden, output bias {})", self.activation, self.output_bias)
    }
}

impl Network {
    /// A network from its quantised parameters: `feature_weights` row by row (`INPUTS` × `HIDDEN`),
    /// `output_weights` the side to move's `HIDDEN` then the other side's.
    pub fn from_parts(
        activation: Activation,
        feature_weights: &[i16],
        feature_bias: &[i16],
        output_weights: &[i16],
        output_bias: i32,
    ) -> Result<Network, NetError> {
        let sizes = [
            (feature_weights.len(), INPUTS * HIDDEN),
            (feature_bias.len(), HIDDEN),
            (output_weights.len(), 2 * HIDDEN),
        ];
        for (got, expected) in sizes {
            if got < expected {
                return Err(NetError::Truncated { expected, got });
            } else if got > expected {
                return Err(NetError::TooLong { expected, got });
            }
        }
        if let Some((index, &value)) = output_weights.iter().enumerate().find(|(_, w)| w.abs() > MAX_OUTPUT_WEIGHT) {
            return Err(NetError::OutputWeight { index, value });
        }
        let mut net = Network {
            activation,
            feature_weights: vec![[0; HIDDEN]; INPUTS].into_boxed_slice(),
            feature_bias: [0; HIDDEN],
            output_weights: [[0; HIDDEN]; 2],
            output_bias,
        };
        for (row, values) in net.feature_weights.iter_mut().zip(feature_weights.chunks_exact(HIDDEN)) {
            row.copy_from_slice(values);
        }
        net.feature_bias.copy_from_slice(feature_bias);
        net.output_weights[0].copy_from_slice(&output_weights[..HIDDEN]);
        net.output_weights[1].copy_from_slice(&output_weights[HIDDEN..]);
        Ok(net)
    }

    /// Reads a network file (see the module comment for the format).
    pub fn from_bytes(bytes: &[u8]) -> Result<Network, NetError> {
        if bytes.len() >= MAGIC.len() && &bytes[..MAGIC.len()] != MAGIC {
            return Err(NetError::BadMagic);
        }
        if bytes.len() < HEADER_SIZE {
            return Err(NetError::Truncated { expected: HEADER_SIZE, got: bytes.len() });
        }
        let word = |at: usize| u32::from_le_bytes([bytes[at], bytes[at + 1], bytes[at + 2], bytes[at + 3]]);
        let (version, hidden, activation) = (word(8), word(12), word(16));
        if version != VERSION {
            return Err(NetError::Version { found: version });
        }
        if hidden as usize != HIDDEN {
            return Err(NetError::HiddenSize { found: hidden });
        }
        let activation = Activation::from_code(activation).ok_or(NetError::Activation { found: activation })?;
        if bytes.len() < FILE_SIZE {
            return Err(NetError::Truncated { expected: FILE_SIZE, got: bytes.len() });
        }
        if bytes.len() > FILE_SIZE {
            return Err(NetError::TooLong { expected: FILE_SIZE, got: bytes.len() });
        }
        let mut words = bytes[HEADER_SIZE..FILE_SIZE - 4].chunks_exact(2).map(|b| i16::from_le_bytes([b[0], b[1]]));
        let feature_weights: Vec<i16> = words.by_ref().take(INPUTS * HIDDEN).collect();
        let feature_bias: Vec<i16> = words.by_ref().take(HIDDEN).collect();
        let output_weights: Vec<i16> = words.collect();
        let output_bias = word(FILE_SIZE - 4) as i32;
        Network::from_parts(activation, &feature_weights, &feature_bias, &output_weights, output_bias)
    }

    #[cfg(any(test, feature = "tune"))]
    /// The network as a file (see the module comment for the format).
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut bytes = Vec::with_capacity(FILE_SIZE);
        bytes.extend_from_slice(MAGIC);
        for word in [VERSION, HIDDEN as u32, self.activation as u32] {
            bytes.extend_from_slice(&word.to_le_bytes());
        }
        let rows = self.feature_weights.iter().chain([&self.feature_bias]).chain(&self.output_weights);
        for value in rows.flatten() {
            bytes.extend_from_slice(&value.to_le_bytes());
        }
        bytes.extend_from_slice(&self.output_bias.to_le_bytes());
        bytes
    }

    #[cfg(any(test, feature = "tune", feature = "fuzz"))]
    /// The evaluation of `board` for the side to move, computing the accumulators afresh.
    pub fn evaluate(&self, board: &Board) -> i32 {
        Accumulator::new(self, board).evaluate(self, board.side_to_move())
    }

    #[inline]
    fn row(&self, perspective: Color, piece: Piece, sq: Square) -> &[i16; HIDDEN] {
        &self.feature_weights[feature_index(perspective, piece, sq)]
    }
}

/// The hidden layer's inputs for a position, from White's view (`[0]`) and Black's (`[1]`).
/// The search keeps one per ply and updates it with the pieces a move changes.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
#[repr(C, align(64))]
pub struct Accumulator {
    values: [[i16; HIDDEN]; 2],
}

impl Accumulator {
    /// The accumulators of `board`.
    pub fn new(net: &Network, board: &Board) -> Accumulator {
        let mut acc = Accumulator { values: [[0; HIDDEN]; 2] };
        acc.refresh(net, board);
        acc
    }

    #[cfg(any(test, feature = "tune"))]
    /// The accumulators of a board given as its pieces (as the trainer reads them).
    pub fn from_pieces(net: &Network, pieces: impl IntoIterator<Item = (Square, Piece)>) -> Accumulator {
        let mut acc = Accumulator { values: [[0; HIDDEN]; 2] };
        acc.refresh_pieces(net, pieces);
        acc
    }

    /// Recomputes both perspectives from scratch.
    pub fn refresh(&mut self, net: &Network, board: &Board) {
        let pieces = Color::BOTH.into_iter().flat_map(|color| {
            PieceKind::ALL.into_iter().flat_map(move |kind| {
                let piece = Piece::new(color, kind);
                board.pieces(color, kind).iter().map(move |&sq| (sq, piece))
            })
        });
        self.refresh_pieces(net, pieces);
    }

    fn refresh_pieces(&mut self, net: &Network, pieces: impl IntoIterator<Item = (Square, Piece)>) {
        self.values = [net.feature_bias; 2];
        for (sq, piece) in pieces {
            self.add(net, piece, sq);
        }
    }

    /// `piece` appears on `sq`.
    fn add(&mut self, net: &Network, piece: Piece, sq: Square) {
        for perspective in Color::BOTH {
            let row = net.row(perspective, piece, sq);
            for (a, &w) in self.values[perspective.index()].iter_mut().zip(row) {
                *a = a.wrapping_add(w);
            }
        }
    }

    /// The accumulators after `mv`, which is about to be played on `board`, written to `next`:
    /// these values plus the rows of the pieces the move puts down, minus those of the pieces
    /// it lifts, in one pass over memory (copying first and updating in place would read and
    /// write the accumulators once per changed piece).
    pub fn play_into(&self, next: &mut Accumulator, net: &Network, board: &Board, mv: Move) {
        #[cfg(target_arch = "x86_64")]
        if std::arch::is_x86_feature_detected!("avx2") {
            // SAFETY: the processor has AVX2, checked just above.
            return unsafe { self.play_into_avx2(next, net, board, mv) };
        }
        self.play_into_portable(next, net, board, mv);
    }

    /// `play_into` compiled with 256-bit vectors: 16 lanes a step instead of 8.
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx2")]
    fn play_into_avx2(&self, next: &mut Accumulator, net: &Network, board: &Board, mv: Move) {
        self.play_into_portable(next, net, board, mv);
    }

    #[inline(always)]
    fn play_into_portable(&self, next: &mut Accumulator, net: &Network, board: &Board, mv: Move) {
        let change = Change::of(board, mv);
        for perspective in Color::BOTH {
            let rows = |pieces: [(Piece, Square); 2]| pieces.map(|(piece, sq)| net.row(perspective, piece, sq));
            let ([added, added2], [removed, removed2]) = (rows(change.added), rows(change.removed));
            let (from, to) = (&self.values[perspective.index()], &mut next.values[perspective.index()]);
            match (change.additions, change.removals) {
                (1, 1) => update(to, from, [added], [removed]),
                (1, 2) => update(to, from, [added], [removed, removed2]),
                _ => update(to, from, [added, added2], [removed, removed2]),
            }
        }
    }

    /// The evaluation in centipawns for `stm`, the side to move.
    pub fn evaluate(&self, net: &Network, stm: Color) -> i32 {
        #[cfg(target_arch = "x86_64")]
        if std::arch::is_x86_feature_detected!("avx2") {
            // SAFETY: the processor has AVX2, checked just above.
            return unsafe { self.evaluate_avx2(net, stm) };
        }
        self.evaluate_portable(net, stm)
    }

    /// `evaluate` compiled with 256-bit vectors.
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx2")]
    fn evaluate_avx2(&self, net: &Network, stm: Color) -> i32 {
        self.evaluate_portable(net, stm)
    }

    #[inline(always)]
    fn evaluate_portable(&self, net: &Network, stm: Color) -> i32 {
        let (us, them) = (&self.values[stm.index()], &self.values[(!stm).index()]);
        let (ours, theirs) = (&net.output_weights[0], &net.output_weights[1]);
        // Scaled by QA · QB, the output bias's scale.
        let sum = match net.activation {
            Activation::CReLU => crelu_dot(us, ours) + crelu_dot(them, theirs),
            Activation::SCReLU => (screlu_dot(us, ours) + screlu_dot(them, theirs)) / QA as i64,
        };
        let eval = (sum + net.output_bias as i64) * EVAL_SCALE as i64 / (QA * QB) as i64;
        eval.clamp(-MAX_EVAL as i64, MAX_EVAL as i64) as i32
    }
}

/// The pieces a move puts down and lifts: one of each for a quiet move or a promotion, one more
/// lifted for a capture, two of each for castling (king and rook). Unused slots repeat the first.
struct Change {
    added: [(Piece, Square); 2],
    removed: [(Piece, Square); 2],
    additions: usize,
    removals: usize,
}

impl Change {
    fn of(board: &Board, mv: Move) -> Change {
        let (from, to) = (mv.from(), mv.to());
        let us = board.side_to_move();
        let piece = board.piece_at(from);
        if mv.is_castle() {
            let king_side = mv.flag() == flag::KING_CASTLE;
            let rook = Piece::new(us, PieceKind::Rook);
            let (rook_from, rook_to) = (board.castling_rook_square(mv), Castling::landing(us, king_side).1);
            return Change {
                added: [(piece, to), (rook, rook_to)],
                removed: [(piece, from), (rook, rook_from)],
                additions: 2,
                removals: 2,
            };
        }
        let landed = Piece::new(us, mv.promoted().unwrap_or(piece.kind()));
        let captured = if mv.is_en_passant() {
            let sq = to.offset(-us.forward());
            Some((board.piece_at(sq), sq))
        } else if mv.is_capture() {
            Some((board.piece_at(to), to))
        } else {
            None
        };
        Change {
            added: [(landed, to); 2],
            removed: [(piece, from), captured.unwrap_or((piece, from))],
            additions: 1,
            removals: 1 + captured.is_some() as usize,
        }
    }
}

/// `to = from + Σ added − Σ removed`, lane by lane; the counts are constants so that each case
/// compiles to one straight vector loop.
#[inline(always)]
fn update<const A: usize, const R: usize>(
    to: &mut [i16; HIDDEN],
    from: &[i16; HIDDEN],
    added: [&[i16; HIDDEN]; A],
    removed: [&[i16; HIDDEN]; R],
) {
    for (i, (value, &base)) in to.iter_mut().zip(from).enumerate() {
        let mut v = base;
        for row in added {
            v = v.wrapping_add(row[i]);
        }
        for row in removed {
            v = v.wrapping_sub(row[i]);
        }
        *value = v;
    }
}

/// Terms summed in i32 before joining the i64 total: 64 · 255 · 255 · 127 < 2³¹.
const CHUNK: usize = 64;

/// Σ clamp(a, 0, QA) · w, scaled by QA · QB.
#[inline(always)]
fn crelu_dot(acc: &[i16; HIDDEN], weights: &[i16; HIDDEN]) -> i64 {
    let mut total = 0;
    for (a, w) in acc.chunks_exact(CHUNK).zip(weights.chunks_exact(CHUNK)) {
        let sum: i32 = a.iter().zip(w).map(|(&a, &w)| a.clamp(0, QA as i16) as i32 * w as i32).sum();
        total += sum as i64;
    }
    total
}

/// Σ clamp(a, 0, QA)² · w, scaled by QA² · QB. `v · w` fits an i16 since |w| ≤ 127, which lets
/// the multiply run on 16-bit lanes before widening.
#[inline(always)]
fn screlu_dot(acc: &[i16; HIDDEN], weights: &[i16; HIDDEN]) -> i64 {
    let mut total = 0;
    for (a, w) in acc.chunks_exact(CHUNK).zip(weights.chunks_exact(CHUNK)) {
        let sum: i32 = a
            .iter()
            .zip(w)
            .map(|(&a, &w)| {
                let v = a.clamp(0, QA as i16);
                (v * w) as i32 * v as i32
            })
            .sum();
        total += sum as i64;
    }
    total
}

#[cfg(test)]
/// A network with every parameter drawn from a seeded generator, for tests.
pub fn random_network(activation: Activation, seed: u64) -> Network {
    let mut state = seed;
    let mut next = move |range: i32| {
        // splitmix64
        state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = state;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^= z >> 31;
        ((z % (2 * range as u64 + 1)) as i32 - range) as i16
    };
    let features: Vec<i16> = (0..INPUTS * HIDDEN).map(|_| next(60)).collect();
    let bias: Vec<i16> = (0..HIDDEN).map(|_| next(100)).collect();
    let output: Vec<i16> = (0..2 * HIDDEN).map(|_| next(MAX_OUTPUT_WEIGHT as i32)).collect();
    Network::from_parts(activation, &features, &bias, &output, next(3000) as i32 * 7).unwrap()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::movegen::legal_moves;

    fn suite_boards() -> Vec<Board> {
        [
            include_str!("../../perft/standard.epd"),
            include_str!("../../perft/random.epd"),
            include_str!("../../perft/chess960.epd"),
        ]
        .iter()
        .flat_map(|suite| suite.lines())
        .filter_map(|line| crate::perft::parse_suite_line(line).unwrap())
        .map(|entry| Board::from_fen(&entry.fen).unwrap())
        .collect()
    }

    /// Random games forward and back, from every suite position (Chess960 castling
    /// included): the accumulators kept up to date move by move, one per ply on a stack as the
    /// search keeps them, always equal ones computed from scratch, and so does the evaluation,
    /// on the AVX2 path where the processor has one and on the portable one.
    #[test]
    fn incremental_updates_match_a_refresh() {
        let net = random_network(Activation::SCReLU, 7);
        let mut state = 0x1234_5678u64;
        let mut random = move |n: usize| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            (state % n as u64) as usize
        };
        let mut checked = 0;
        let mut kinds = [0; 4]; // quiet, capture, castling, promotion
        for mut board in suite_boards() {
            let mut stack = vec![Accumulator::new(&net, &board)];
            let mut nulls = Vec::new();
            for _ in 0..200 {
                let moves = legal_moves(&board);
                let back = stack.len() > 1 && (moves.is_empty() || random(4) == 0);
                if back {
                    stack.pop();
                    if nulls.pop() == Some(true) {
                        board.unmake_null_move();
                    } else {
                        board.unmake_move();
                    }
                } else {
                    let mut next = Accumulator { values: [[0; HIDDEN]; 2] };
                    let top = stack.last().unwrap();
                    if !board.in_check() && random(10) == 0 {
                        next = *top;
                        board.make_null_move();
                        nulls.push(true);
                    } else {
                        // Random play seldom castles: take castling half the time it is legal.
                        let castle = moves.as_slice().iter().find(|mv| mv.is_castle());
                        let mv = match castle {
                            Some(&mv) if random(2) == 0 => mv,
                            _ => moves.as_slice()[random(moves.len())],
                        };
                        let kind = [mv.is_capture(), mv.is_castle(), mv.promoted().is_some()];
                        kinds[kind.iter().rposition(|&k| k).map_or(0, |k| k + 1)] += 1;
                        top.play_into(&mut next, &net, &board, mv);
                        // The fallback for processors without AVX2 computes the same numbers.
                        let mut portable = Accumulator { values: [[0; HIDDEN]; 2] };
                        top.play_into_portable(&mut portable, &net, &board, mv);
                        assert_eq!(portable, next, "{}", board.to_fen());
                        board.make_move(mv);
                        nulls.push(false);
                    }
                    stack.push(next);
                }
                let top = stack.last().unwrap();
                let fresh = Accumulator::new(&net, &board);
                assert_eq!(*top, fresh, "{}", board.to_fen());
                assert_eq!(top.evaluate(&net, board.side_to_move()), net.evaluate(&board));
                assert_eq!(top.evaluate_portable(&net, board.side_to_move()), net.evaluate(&board));
                checked += 1;
            }
        }
        assert!(checked > 10_000, "{checked}");
        assert!(kinds.iter().all(|&n| n > 20), "quiet, capture, castling, promotion: {kinds:?}");
    }

    /// The trainer's way in (pieces read from a record) gives the accumulators the search's
    /// (a board) gives.
    #[test]
    fn accumulators_from_pieces_match_the_board() {
        let net = random_network(Activation::SCReLU, 13);
        for board in suite_boards() {
            let pieces = Square::all().map(|sq| (sq, board.piece_at(sq))).filter(|(_, p)| !p.is_empty());
            assert_eq!(Accumulator::from_pieces(&net, pieces), Accumulator::new(&net, &board));
        }
    }

    /// The inputs are what the module comment says, and the two views mirror each other.
    #[test]
    fn feature_indices_follow_the_layout() {
        let white_pawn = Piece::new(Color::White, PieceKind::Pawn);
        let black_king = Piece::new(Color::Black, PieceKind::King);
        let e2 = Square::parse("e2").unwrap();
        let e8 = Square::parse("e8").unwrap();
        assert_eq!(feature_index(Color::White, white_pawn, e2), 12);
        assert_eq!(feature_index(Color::Black, white_pawn, e2), 384 + 52);
        assert_eq!(feature_index(Color::White, black_king, e8), 384 + 5 * 64 + 60);
        assert_eq!(feature_index(Color::Black, black_king, e8), 5 * 64 + 4);
    }

    /// Mirroring the board and swapping colours swaps the two views, so the evaluation, from
    /// the side to move's view, stays the same.
    #[test]
    fn evaluation_is_colour_symmetric() {
        let net = random_network(Activation::CReLU, 3);
        let pairs = [
            (
                "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
                "r3k2r/pppbbppp/2n2q1P/1P2p3/3pn3/BN2PNP1/P1PPQPB1/R3K2R b KQkq - 0 1",
            ),
            ("8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1", "8/4p1p1/8/1r3P1K/kp5R/3P4/2P5/8 b - - 0 1"),
        ];
        for (a, b) in pairs {
            let (a, b) = (Board::from_fen(a).unwrap(), Board::from_fen(b).unwrap());
            assert_eq!(net.evaluate(&a), net.evaluate(&b));
            assert_ne!(net.evaluate(&a), 0);
        }
    }

    /// Integer evaluation (both paths) against the formula worked in floating point.
    #[test]
    fn evaluation_matches_the_formula() {
        for activation in [Activation::CReLU, Activation::SCReLU] {
            let net = random_network(activation, 11);
            for board in suite_boards() {
                let acc = Accumulator::new(&net, &board);
                let stm = board.side_to_move();
                let mut sum = net.output_bias as f64 / (QA * QB) as f64;
                for (side, weights) in [stm, !stm].iter().zip(&net.output_weights) {
                    for (&a, &w) in acc.values[side.index()].iter().zip(weights) {
                        let h = (a as f64 / QA as f64).clamp(0.0, 1.0);
                        let h = if activation == Activation::SCReLU { h * h } else { h };
                        sum += h * w as f64 / QB as f64;
                    }
                }
                let expected = (sum * EVAL_SCALE as f64).clamp(-MAX_EVAL as f64, MAX_EVAL as f64);
                let got = acc.evaluate(&net, stm);
                assert!((got as f64 - expected).abs() <= 1.0, "{activation:?}: {got} vs {expected:.2}");
                assert_eq!(acc.evaluate_portable(&net, stm), got, "{activation:?}: the portable path");
            }
        }
    }

    /// The built-in network loads and evaluates fixed positions to fixed numbers (a new network
    /// changes them: update them with it), and it knows an extra queen is good for its owner.
    #[test]
    fn the_embedded_network_is_valid() {
        let net = embedded();
        let eval = |fen: &str| net.evaluate(&Board::from_fen(fen).unwrap());
        let start = eval("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1");
        let without_black_queen = eval("rnb1kbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1");
        let middlegame = eval("r1bq1rk1/ppp2ppp/2np1n2/2b1p3/2B1P3/2NP1N2/PPP2PPP/R1BQ1RK1 w - - 0 7");
        assert_eq!((start, without_black_queen, middlegame), (38, 1710, 20));
        assert!(start.abs() < 100 && without_black_queen > 500);
    }

    #[test]
    fn files_round_trip() {
        for activation in [Activation::CReLU, Activation::SCReLU] {
            let net = random_network(activation, 5);
            let bytes = net.to_bytes();
            assert_eq!(bytes.len(), FILE_SIZE);
            assert!(Network::from_bytes(&bytes).unwrap() == net);
        }
    }

    #[test]
    fn bad_files_are_refused_with_the_reason() {
        let good = random_network(Activation::SCReLU, 9).to_bytes();
        let with = |at: usize, value: &[u8]| {
            let mut bytes = good.clone();
            bytes[at..at + value.len()].copy_from_slice(value);
            Network::from_bytes(&bytes).err()
        };
        assert_eq!(with(0, b"SNTLPOS\0"), Some(NetError::BadMagic));
        assert_eq!(Network::from_bytes(b"PK\x03\x04 a zip file").err(), Some(NetError::BadMagic));
        assert_eq!(with(8, &1u32.to_le_bytes()), Some(NetError::Version { found: 1 }));
        assert_eq!(with(12, &512u32.to_le_bytes()), Some(NetError::HiddenSize { found: 512 }));
        assert_eq!(with(16, &7u32.to_le_bytes()), Some(NetError::Activation { found: 7 }));
        let weight_at = FILE_SIZE - 4 - 2 * (2 * HIDDEN - 3);
        assert_eq!(with(weight_at, &300i16.to_le_bytes()), Some(NetError::OutputWeight { index: 3, value: 300 }));
        assert_eq!(
            Network::from_bytes(&good[..FILE_SIZE - 1]).err(),
            Some(NetError::Truncated { expected: FILE_SIZE, got: FILE_SIZE - 1 })
        );
        assert_eq!(
            Network::from_bytes(&good[..10]).err(),
            Some(NetError::Truncated { expected: HEADER_SIZE, got: 10 })
        );
        assert_eq!(Network::from_bytes(&[]).err(), Some(NetError::Truncated { expected: HEADER_SIZE, got: 0 }));
        let mut long = good.clone();
        long.push(0);
        assert_eq!(
            Network::from_bytes(&long).err(),
            Some(NetError::TooLong { expected: FILE_SIZE, got: FILE_SIZE + 1 })
        );
        let message = NetError::Truncated { expected: FILE_SIZE, got: 100 }.to_string();
        assert_eq!(message, format!("network file truncated: expected {FILE_SIZE} bytes, got 100"));
    }
}
