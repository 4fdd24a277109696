//! The neural network evaluation (NNUE): a network small enough to run at every node, whose
//! first layer is updated incrementally as moves change a few pieces instead of being
//! recomputed.
//!
//! The engine compiles one shape, the one its networks ship in, read plain or mirrored; the
//! trainer (`tune`) makes and reads others, for experiments. Each side sees the board from its
//! own end (flipped top to bottom for Black) as `INPUTS` binary inputs, one per (own or enemy
//! piece, kind, square); a mirrored network (the header's mirroring field 1) also reflects that
//! side's board from the a-file to the h-file while its own king stands on files e-h, so that
//! the weights learn one half of the king's squares twice as often. One
//! shared layer of `HIDDEN` neurons turns each side's inputs into an accumulator; the output is
//! the SCReLU activation (clamp to [0, 1], then square) of the side to move's accumulator
//! followed by the other side's, times the output weights of the position's output bucket (one
//! of `OUTPUT_BUCKETS`, chosen by the number of pieces), plus that bucket's bias, scaled to
//! centipawns.
//!
//! Arithmetic is integer: feature weights and biases are i16 scaled by `QA` (1.0 is 255),
//! output weights i16 scaled by `QB` (1.0 is 128), output biases i32 scaled by `QA * QB`. The
//! accumulators add and subtract with wrapping, as the vector units do, so updating a position
//! incrementally gives exactly the numbers recomputing it gives, whatever the weights. The
//! loops run on the vector instructions `simd` chooses at run time (AVX-512 or AVX2 in
//! `x86.rs`, NEON in `neon.rs`, or portable Rust), every one to the same numbers.
//!
//! File format (all little-endian, `FILE_SIZE` bytes), with H = `HIDDEN` and O = `OUTPUT_BUCKETS`:
//!
//! | offset | size          | contents                                                         |
//! |--------|---------------|------------------------------------------------------------------|
//! | 0      | 8             | magic `SNTLNNUE`                                                 |
//! | 8      | 4             | format version (u32, `VERSION`)                                  |
//! | 12     | 80            | the shape (`FileShape`): H, activation, O, mirroring, the king bucket of each square |
//! | 92     | 768 · H · 2   | feature weights, i16, one row of H per input (`input_index`)     |
//! |        | H · 2         | feature biases, i16                                              |
//! |        | O · 2 · H · 2 | output weights, i16, per output bucket: H for the side to move, then H for the other |
//! |        | O · 4         | output biases, i32                                               |
//!
//! A file of another version or whose shape fields are neither `FileShape::ENGINE` nor
//! `FileShape::ENGINE_MIRRORED` is refused with an error naming what it is. Output weights must lie within ±`MAX_OUTPUT_WEIGHT`, which keeps
//! SCReLU's products in range.

mod header;
#[cfg(target_arch = "aarch64")]
mod neon;
mod simd;
#[cfg(target_arch = "x86_64")]
mod x86;

#[cfg(any(test, feature = "tune"))]
pub use header::{CRELU, SCRELU};
pub use header::{FileShape, SHAPE_BYTES};
pub use simd::{Path, Simd};

use crate::board::{Board, Castling, Color, Move, Piece, PieceKind, Square, flag};
#[cfg(target_arch = "aarch64")]
use neon::Neon;
use std::fmt;
use std::ops::Deref;
use std::sync::{Arc, LazyLock};
#[cfg(target_arch = "x86_64")]
use x86::{Avx2, Avx512};

/// The network built into the binary, made as `docs/network.md` says:
/// what the engine evaluates with unless `EvalFile` names another.
pub fn embedded() -> Network {
    static EMBEDDED: LazyLock<Network> = LazyLock::new(|| {
        let network = Network::from_bytes(include_bytes!(env!("SENTINEL_NETWORK")));
        network.expect("the built-in network is a file this build reads (a test checks it)")
    });
    EMBEDDED.clone()
}

/// Inputs per side: 2 sides × 6 kinds × 64 squares.
pub const INPUTS: usize = 768;
/// Neurons in the hidden layer, per side.
pub const HIDDEN: usize = 512;
/// Sets of output weights, chosen by the number of pieces on the board (`output_bucket`).
pub const OUTPUT_BUCKETS: usize = 8;
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

pub const MAGIC: &[u8; 8] = include!("nnue/magic.rs");
pub const VERSION: u32 = 3;
pub const HEADER_SIZE: usize = 12 + SHAPE_BYTES;
/// The size of every network file the engine reads.
pub const FILE_SIZE: usize =
    HEADER_SIZE + 2 * (INPUTS * HIDDEN + HIDDEN + OUTPUT_BUCKETS * 2 * HIDDEN) + 4 * OUTPUT_BUCKETS;

/// The input that `piece` on the square numbered `square` (0..63, already turned as the side
/// sees the board) sets for `perspective`: own or enemy piece, kind, square. The trainer's
/// shapes with king buckets repeat this block per bucket.
#[inline(always)]
pub fn input_index(perspective: Color, piece: Piece, square: usize) -> usize {
    (piece.color() != perspective) as usize * 384 + (piece.kind().index() - 1) * 64 + square
}

/// The output bucket of a position with `pieces` pieces (kings included) for a network of
/// `buckets` output buckets: the range from 2 to 32 pieces split evenly, so that 8 buckets are
/// 2-5, 6-9, ..., 30-32 pieces.
#[inline(always)]
pub fn output_bucket(pieces: usize, buckets: usize) -> usize {
    (pieces.saturating_sub(2) * buckets / 32).min(buckets - 1)
}

/// The evaluation in centipawns from the output layer's sum (scaled by QA · QB, the output
/// bias's scale) and the output bias.
#[inline(always)]
pub fn centipawns(sum: i64, bias: i32) -> i32 {
    let eval = (sum + bias as i64) * EVAL_SCALE as i64 / (QA * QB) as i64;
    eval.clamp(-MAX_EVAL as i64, MAX_EVAL as i64) as i32
}

/// Why a network file was refused.
#[derive(Clone, PartialEq, Eq, Debug)]
pub enum NetError {
    BadMagic,
    Version { found: u32 },
    Shape { found: FileShape },
    Truncated { expected: usize, got: usize },
    TooLong { expected: usize, got: usize },
    OutputWeight { index: usize, value: i16 },
}

impl fmt::Display for NetError {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        let engine = FileShape::ENGINE;
        match *self {
            NetError::BadMagic => write!(f, "not a Sentinel network file (bad magic)"),
            NetError::Version { found } => write!(
                f,
                "network format version {found}; this engine reads version {VERSION} networks of {engine} (the \
                 trainer's tools, built with --features tune, also read version 2)"
            ),
            NetError::Shape { found } => write!(
                f,
                "the network has {found}; this engine reads only {engine}, mirrored or not (the trainer's tools, \
                 built with --features tune, read other shapes)"
            ),
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

/// A network: cheap to clone, since the parameters are shared.
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct Network(Arc<Net>);

impl Deref for Network {
    type Target = Net;

    fn deref(&self) -> &Net {
        &self.0
    }
}

impl Network {
    /// Reads a network file (see the module comment for the format).
    pub fn from_bytes(bytes: &[u8]) -> Result<Network, NetError> {
        if bytes.len() >= MAGIC.len() && &bytes[..MAGIC.len()] != MAGIC {
            return Err(NetError::BadMagic);
        }
        if bytes.len() < HEADER_SIZE {
            // The version first: an older format's header may be shorter.
            if bytes.len() >= 12 {
                let version = u32::from_le_bytes([bytes[8], bytes[9], bytes[10], bytes[11]]);
                if version != VERSION {
                    return Err(NetError::Version { found: version });
                }
            }
            return Err(NetError::Truncated { expected: HEADER_SIZE, got: bytes.len() });
        }
        let version = u32::from_le_bytes([bytes[8], bytes[9], bytes[10], bytes[11]]);
        if version != VERSION {
            return Err(NetError::Version { found: version });
        }
        let mut shape = [0; SHAPE_BYTES];
        shape.copy_from_slice(&bytes[12..HEADER_SIZE]);
        let shape = FileShape::from_bytes(&shape);
        let mirrored = match shape {
            FileShape::ENGINE => false,
            FileShape::ENGINE_MIRRORED => true,
            found => return Err(NetError::Shape { found }),
        };
        if bytes.len() < FILE_SIZE {
            return Err(NetError::Truncated { expected: FILE_SIZE, got: bytes.len() });
        }
        if bytes.len() > FILE_SIZE {
            return Err(NetError::TooLong { expected: FILE_SIZE, got: bytes.len() });
        }
        let biases_at = FILE_SIZE - 4 * OUTPUT_BUCKETS;
        let words: Vec<i16> =
            bytes[HEADER_SIZE..biases_at].chunks_exact(2).map(|b| i16::from_le_bytes([b[0], b[1]])).collect();
        let output_bias: Vec<i32> =
            bytes[biases_at..].chunks_exact(4).map(|b| i32::from_le_bytes([b[0], b[1], b[2], b[3]])).collect();
        Net::from_parameters(&words, &output_bias, mirrored).map(|net| Network(Arc::new(net)))
    }

    #[cfg(any(test, feature = "tune"))]
    /// The network as a file (see the module comment for the format).
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut bytes = Vec::with_capacity(FILE_SIZE);
        bytes.extend_from_slice(MAGIC);
        bytes.extend_from_slice(&VERSION.to_le_bytes());
        let shape = if self.mirrored { FileShape::ENGINE_MIRRORED } else { FileShape::ENGINE };
        bytes.extend_from_slice(&shape.to_bytes());
        let weights =
            self.feature_weights.iter().chain([&self.feature_bias]).chain(self.output_weights.iter().flatten());
        for value in weights.flat_map(|row| &row.0) {
            bytes.extend_from_slice(&value.to_le_bytes());
        }
        for bias in &self.output_bias {
            bytes.extend_from_slice(&bias.to_le_bytes());
        }
        bytes
    }

    /// Whether the two are the same network, by address: a file loaded twice makes two.
    pub fn same_as(&self, other: &Network) -> bool {
        Arc::ptr_eq(&self.0, &other.0)
    }
}

/// The quantised parameters.
#[derive(Clone, PartialEq, Eq)]
pub struct Net {
    /// One row per input, on the heap.
    feature_weights: Box<[Row; INPUTS]>,
    feature_bias: Row,
    /// Per output bucket: `[0]` weighs the side to move's accumulator, `[1]` the other side's.
    output_weights: [[Row; 2]; OUTPUT_BUCKETS],
    output_bias: [i32; OUTPUT_BUCKETS],
    /// Whether a side whose king stands on files e-h reads the board mirrored (see the module
    /// comment): its accumulator is then computed afresh whenever its king crosses from the
    /// d-file to the e-file or back.
    mirrored: bool,
}

/// `HIDDEN` weights, on a cache line's boundary as the accumulators are: a row is a whole
/// number of cache lines, so no vector load of it straddles two.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
#[repr(C, align(64))]
struct Row([i16; HIDDEN]);

impl fmt::Debug for Net {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        write!(f, "Net(output biases {:?})", self.output_bias)
    }
}

impl Net {
    /// A network from its i16 parameters in the file's order (feature weights row by row, the
    /// feature biases, the output weights) and its output biases.
    fn from_parameters(words: &[i16], output_bias: &[i32], mirrored: bool) -> Result<Net, NetError> {
        let (features, rest) = words.split_at(INPUTS * HIDDEN);
        let (bias, outputs) = rest.split_at(HIDDEN);
        if let Some((index, &value)) = outputs.iter().enumerate().find(|(_, w)| w.abs() > MAX_OUTPUT_WEIGHT) {
            return Err(NetError::OutputWeight { index, value });
        }
        let mut feature_weights: Box<[Row; INPUTS]> = vec![Row([0; HIDDEN]); INPUTS]
            .into_boxed_slice()
            .try_into()
            .expect("a boxed slice of INPUTS rows is a boxed array of them");
        for (row, values) in feature_weights.iter_mut().zip(features.chunks_exact(HIDDEN)) {
            row.0.copy_from_slice(values);
        }
        let mut net = Net {
            feature_weights,
            feature_bias: Row([0; HIDDEN]),
            output_weights: [[Row([0; HIDDEN]); 2]; OUTPUT_BUCKETS],
            output_bias: [0; OUTPUT_BUCKETS],
            mirrored,
        };
        net.feature_bias.0.copy_from_slice(bias);
        for (row, values) in net.output_weights.iter_mut().flatten().zip(outputs.chunks_exact(HIDDEN)) {
            row.0.copy_from_slice(values);
        }
        net.output_bias.copy_from_slice(output_bias);
        Ok(net)
    }

    #[cfg(any(test, feature = "fuzz"))]
    /// The evaluation of `board` for the side to move, computing the accumulators afresh.
    pub fn evaluate(&self, board: &Board) -> i32 {
        let bucket = Net::output_bucket(board);
        Accumulator::new(self, board).evaluate(self, board.side_to_move(), bucket, Simd::current())
    }

    /// The output bucket of `board`.
    #[inline(always)]
    pub fn output_bucket(board: &Board) -> usize {
        output_bucket(board.piece_count(), OUTPUT_BUCKETS)
    }

    /// Whether a side with its king on `king` reads the board mirrored.
    #[inline(always)]
    fn mirrors(&self, king: Square) -> bool {
        self.mirrored && king.file() >= 4
    }

    /// What turns a square's index (XOR) into the square `perspective` sees with its king on
    /// `king`: 56 turns the board round for Black, 7 mirrors it.
    #[inline(always)]
    fn view(&self, perspective: Color, king: Square) -> usize {
        let vertical = if perspective == Color::White { 0 } else { 56 };
        vertical ^ if self.mirrors(king) { 7 } else { 0 }
    }

    /// The row of the input `piece` on `sq` sets for `perspective`, whose view is `view`.
    #[inline(always)]
    fn row(&self, perspective: Color, view: usize, piece: Piece, sq: Square) -> &[i16; HIDDEN] {
        &self.feature_weights[input_index(perspective, piece, sq.index64() ^ view)].0
    }
}

/// The hidden layer's inputs for a position, from White's view (`[0]`) and Black's (`[1]`).
/// The evaluator keeps one per ply of the line searched and updates it with the pieces a move changes.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
#[repr(C, align(64))]
pub struct Accumulator {
    values: [[i16; HIDDEN]; 2],
}

impl Accumulator {
    /// The accumulators of `board`, computed from scratch.
    pub fn new(net: &Net, board: &Board) -> Accumulator {
        let mut acc = Accumulator { values: [net.feature_bias.0; 2] };
        for perspective in Color::BOTH {
            let view = net.view(perspective, board.king_square(perspective));
            let values = &mut acc.values[perspective.index()];
            for color in Color::BOTH {
                for kind in PieceKind::ALL {
                    let piece = Piece::new(color, kind);
                    for &sq in board.pieces(color, kind) {
                        let row = net.row(perspective, view, piece, sq);
                        values.iter_mut().zip(row).for_each(|(value, &w)| *value = value.wrapping_add(w));
                    }
                }
            }
        }
        acc
    }

    /// `perspective`'s accumulator after `change`, computed afresh from `board` (the position
    /// before it) with its pieces as the change leaves them: for a mirrored network whose
    /// `perspective` king has just crossed between the d-file and the e-file, so that every
    /// input it sees has moved. Rare enough that plain loops do.
    #[cold]
    #[inline(never)]
    fn refresh(to: &mut [i16; HIDDEN], net: &Net, board: &Board, change: &Change, perspective: Color) {
        let removed = &change.removed[..change.removals];
        let added = &change.added[..change.additions];
        let king = added
            .iter()
            .find(|(piece, _)| piece.is_kind(PieceKind::King))
            .map_or(board.king_square(perspective), |&(_, sq)| sq);
        let view = net.view(perspective, king);
        *to = net.feature_bias.0;
        let mut add = |piece: Piece, sq: Square| {
            let row = net.row(perspective, view, piece, sq);
            to.iter_mut().zip(row).for_each(|(value, &w)| *value = value.wrapping_add(w));
        };
        for color in Color::BOTH {
            for kind in PieceKind::ALL {
                let piece = Piece::new(color, kind);
                for &sq in board.pieces(color, kind) {
                    if !removed.contains(&(piece, sq)) {
                        add(piece, sq);
                    }
                }
            }
        }
        for &(piece, sq) in added {
            add(piece, sq);
        }
    }

    /// The accumulators after `mv`, which is about to be played on `board`, written to `next`
    /// by the loops of `simd`: these values plus the rows of the pieces the move puts down,
    /// minus those of the pieces it lifts, in one pass over memory (copying first and updating
    /// in place would read and write the accumulators once per changed piece).
    #[inline(always)]
    pub fn play_into(&self, next: &mut Accumulator, net: &Net, board: &Board, mv: Move, simd: Simd) {
        match simd.path() {
            #[cfg(target_arch = "x86_64")]
            Path::Avx512 => {
                // SAFETY: a `Simd` holds `Avx512` only where the processor has AVX-512 F and BW.
                unsafe { self.play_into_avx512(next, net, board, mv) }
            }
            #[cfg(target_arch = "x86_64")]
            Path::Avx2 => {
                // SAFETY: a `Simd` holds `Avx2` only where the processor has AVX2.
                unsafe { self.play_into_avx2(next, net, board, mv) }
            }
            #[cfg(target_arch = "aarch64")]
            Path::Neon => self.play_into_neon(next, net, board, mv),
            _ => self.play_into_portable(next, net, board, mv),
        }
    }

    /// `play_into` with 512-bit vectors, out of line as every path's.
    #[cfg(target_arch = "x86_64")]
    #[inline(never)]
    #[target_feature(enable = "avx512f,avx512bw")]
    fn play_into_avx512(&self, next: &mut Accumulator, net: &Net, board: &Board, mv: Move) {
        self.play_into_with(Avx512::new(), next, net, board, mv);
    }

    /// `play_into` with 256-bit vectors.
    #[cfg(target_arch = "x86_64")]
    #[inline(never)]
    #[target_feature(enable = "avx2")]
    fn play_into_avx2(&self, next: &mut Accumulator, net: &Net, board: &Board, mv: Move) {
        self.play_into_with(Avx2::new(), next, net, board, mv);
    }

    /// `play_into` with NEON intrinsics, which every aarch64 processor has.
    #[cfg(target_arch = "aarch64")]
    #[inline(never)]
    fn play_into_neon(&self, next: &mut Accumulator, net: &Net, board: &Board, mv: Move) {
        self.play_into_with(Neon, next, net, board, mv);
    }

    /// `play_into` in plain Rust: for processors without the vector paths, and the reference
    /// they must match.
    #[inline(never)]
    fn play_into_portable(&self, next: &mut Accumulator, net: &Net, board: &Board, mv: Move) {
        self.play_into_with(Portable, next, net, board, mv);
    }

    #[inline(always)]
    fn play_into_with<K: Kernels>(&self, kernels: K, next: &mut Accumulator, net: &Net, board: &Board, mv: Move) {
        let change = Change::of(board, mv);
        for perspective in Color::BOTH {
            let to = &mut next.values[perspective.index()];
            let king = board.king_square(perspective);
            if change
                .king_to
                .is_some_and(|landed| perspective == board.side_to_move() && net.mirrors(landed) != net.mirrors(king))
            {
                Accumulator::refresh(to, net, board, &change, perspective);
                continue;
            }
            let view = net.view(perspective, king);
            let row = |(piece, sq): (Piece, Square)| net.row(perspective, view, piece, sq);
            let ([added, added2], [removed, removed2]) = (change.added, change.removed);
            let from = &self.values[perspective.index()];
            match (change.additions, change.removals) {
                (1, 1) => kernels.update(to, from, [row(added)], [row(removed)]),
                (1, 2) => kernels.update(to, from, [row(added)], [row(removed), row(removed2)]),
                _ => kernels.update(to, from, [row(added), row(added2)], [row(removed), row(removed2)]),
            }
        }
    }

    /// The evaluation in centipawns for `stm`, the side to move, with the output weights of
    /// `bucket` (`Net::output_bucket`; below `OUTPUT_BUCKETS`), by the loops of `simd`.
    #[inline(always)]
    pub fn evaluate(&self, net: &Net, stm: Color, bucket: usize, simd: Simd) -> i32 {
        match simd.path() {
            #[cfg(target_arch = "x86_64")]
            Path::Avx512 => {
                // SAFETY: a `Simd` holds `Avx512` only where the processor has AVX-512 F and BW.
                unsafe { self.evaluate_avx512(net, stm, bucket) }
            }
            #[cfg(target_arch = "x86_64")]
            Path::Avx2 => {
                // SAFETY: a `Simd` holds `Avx2` only where the processor has AVX2.
                unsafe { self.evaluate_avx2(net, stm, bucket) }
            }
            #[cfg(target_arch = "aarch64")]
            Path::Neon => self.evaluate_with(Neon, net, stm, bucket),
            _ => self.evaluate_with(Portable, net, stm, bucket),
        }
    }

    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx512f,avx512bw")]
    fn evaluate_avx512(&self, net: &Net, stm: Color, bucket: usize) -> i32 {
        self.evaluate_with(Avx512::new(), net, stm, bucket)
    }

    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx2")]
    fn evaluate_avx2(&self, net: &Net, stm: Color, bucket: usize) -> i32 {
        self.evaluate_with(Avx2::new(), net, stm, bucket)
    }

    #[inline(always)]
    fn evaluate_with<K: Kernels>(&self, kernels: K, net: &Net, stm: Color, bucket: usize) -> i32 {
        let values = [&self.values[stm.index()], &self.values[(!stm).index()]];
        let [ours, theirs] = &net.output_weights[bucket];
        let sum = kernels.output_dot(values, [&ours.0, &theirs.0]);
        centipawns(sum / QA as i64, net.output_bias[bucket])
    }
}

/// The pieces a move puts down and lifts: one of each for a quiet move or a promotion, one more
/// lifted for a capture, two of each for castling (king and rook). Unused slots repeat the first.
struct Change {
    added: [(Piece, Square); 2],
    removed: [(Piece, Square); 2],
    additions: usize,
    removals: usize,
    /// Where the mover's king lands, if the move is the king's (castling included).
    king_to: Option<Square>,
}

impl Change {
    #[inline(always)]
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
                king_to: Some(to),
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
            king_to: piece.is_kind(PieceKind::King).then_some(to),
        }
    }
}

/// The network's inner loops, once per instruction set: the accumulator update for a move and
/// the output layer's dot product. `Portable` is plain Rust that the compiler vectorises for
/// whatever it targets; `Neon` (`neon.rs`), `Avx2` and `Avx512` (`x86.rs`) spell the same
/// arithmetic out in intrinsics, and may be made only where the processor has them. Every
/// implementation gives exactly the same numbers.
trait Kernels: Copy {
    /// `to = from + Σ added − Σ removed`, lane by lane with wrapping; the counts are constants so
    /// that each case compiles to one straight vector loop.
    fn update<const A: usize, const R: usize>(
        self,
        to: &mut [i16; HIDDEN],
        from: &[i16; HIDDEN],
        added: [&[i16; HIDDEN]; A],
        removed: [&[i16; HIDDEN]; R],
    );

    /// Σ over both sides (the side to move's values and weights, then the other side's) of
    /// clamp(a, 0, QA)² · w, scaled by QA² · QB.
    fn output_dot(self, values: [&[i16; HIDDEN]; 2], weights: [&[i16; HIDDEN]; 2]) -> i64;
}

/// Terms summed in i32 before joining the i64 total: 64 · 255 · 255 · 127 < 2³¹.
const CHUNK: usize = 64;
const _: () = assert!(HIDDEN.is_multiple_of(CHUNK), "the hidden layer is whole chunks");

/// The loops in plain Rust.
#[derive(Clone, Copy)]
struct Portable;

impl Kernels for Portable {
    #[inline(always)]
    fn update<const A: usize, const R: usize>(
        self,
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

    /// `v · w` fits an i16 since |w| ≤ `MAX_OUTPUT_WEIGHT`, which lets the multiply run on
    /// 16-bit lanes before widening.
    #[inline(always)]
    fn output_dot(self, values: [&[i16; HIDDEN]; 2], weights: [&[i16; HIDDEN]; 2]) -> i64 {
        let mut total = 0;
        for (acc, weights) in values.into_iter().zip(weights) {
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
        }
        total
    }
}

#[cfg(test)]
/// A network with every parameter drawn from a seeded generator, feature weights within
/// ±`feature_range`, for tests.
pub fn random_network_with(seed: u64, feature_range: i32) -> Network {
    let mut state = seed;
    let mut next = move |range: i32| {
        // splitmix64
        state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = state;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^= z >> 31;
        (z % (2 * range as u64 + 1)) as i32 - range
    };
    let mut words: Vec<i16> = (0..INPUTS * HIDDEN).map(|_| next(feature_range) as i16).collect();
    words.extend((0..HIDDEN).map(|_| next(100) as i16));
    words.extend((0..OUTPUT_BUCKETS * 2 * HIDDEN).map(|_| next(MAX_OUTPUT_WEIGHT as i32) as i16));
    let output_bias: Vec<i32> = (0..OUTPUT_BUCKETS).map(|_| next(3000) * 7).collect();
    Network(Arc::new(Net::from_parameters(&words, &output_bias, false).unwrap()))
}

#[cfg(test)]
/// `network` read mirrored: the same weights, the board reflected for a king on files e-h.
pub fn mirrored(network: &Network) -> Network {
    Network(Arc::new(Net { mirrored: true, ..(**network).clone() }))
}

#[cfg(test)]
/// A random network whose accumulators stay mostly within the activation's range.
pub fn random_network(seed: u64) -> Network {
    random_network_with(seed, 60)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::movegen::legal_moves;

    fn xorshift(mut state: u64) -> impl FnMut(usize) -> usize {
        move |n| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            (state % n as u64) as usize
        }
    }

    /// The accumulators after `mv` on `board` (before it is played), checked to be the same on
    /// every path this processor runs as on the portable path.
    fn play(net: &Net, top: &Accumulator, board: &Board, mv: Move) -> Accumulator {
        let mut portable = Accumulator { values: [[0; HIDDEN]; 2] };
        top.play_into_portable(&mut portable, net, board, mv);
        for simd in Simd::available() {
            let mut next = Accumulator { values: [[0; HIDDEN]; 2] };
            top.play_into(&mut next, net, board, mv, simd);
            assert_eq!(portable, next, "{simd:?}: {} {mv:?}", board.to_fen());
        }
        portable
    }

    /// `acc` is `board`'s, as computed from scratch, and evaluates as `board` does on every path.
    fn check(net: &Net, acc: &Accumulator, board: &Board) {
        assert_eq!(*acc, Accumulator::new(net, board), "{}", board.to_fen());
        let (stm, bucket) = (board.side_to_move(), Net::output_bucket(board));
        for simd in Simd::available() {
            assert_eq!(acc.evaluate(net, stm, bucket, simd), net.evaluate(board), "{simd:?}");
        }
    }

    /// The output layer's sum on the loops of `simd`.
    fn output_dot(simd: Simd, values: [&[i16; HIDDEN]; 2], weights: [&[i16; HIDDEN]; 2]) -> i64 {
        match simd.path() {
            #[cfg(target_arch = "x86_64")]
            Path::Avx512 => {
                // SAFETY: a `Simd` holds `Avx512` only where the processor has AVX-512 F and BW.
                unsafe { Avx512::new() }.output_dot(values, weights)
            }
            #[cfg(target_arch = "x86_64")]
            Path::Avx2 => {
                // SAFETY: a `Simd` holds `Avx2` only where the processor has AVX2.
                unsafe { Avx2::new() }.output_dot(values, weights)
            }
            #[cfg(target_arch = "aarch64")]
            Path::Neon => Neon.output_dot(values, weights),
            _ => Portable.output_dot(values, weights),
        }
    }

    /// Every path's output sum against the portable one's on accumulators anywhere in i16's
    /// range (activations below 0 and above `QA`) and output weights anywhere in
    /// ±`MAX_OUTPUT_WEIGHT`; and at the extremes, where a partial sum would overflow if one
    /// could, the exact sum.
    #[test]
    fn every_path_sums_the_output_layer_alike() {
        let mut random = xorshift(0x5EED_1234);
        let mut cases: Vec<([i16; HIDDEN], [i16; HIDDEN])> = (0..200)
            .map(|_| {
                // Mostly around the activation's range [0, QA], where the clamps bite; some anywhere.
                let acc = std::array::from_fn(|_| match random(4) {
                    0 => (random(1 << 16) as i32 + i16::MIN as i32) as i16,
                    _ => random(3 * QA as usize) as i16 - QA as i16,
                });
                let most = MAX_OUTPUT_WEIGHT as i32;
                (acc, std::array::from_fn(|_| (random(2 * most as usize + 1) as i32 - most) as i16))
            })
            .collect();
        for rows in cases.windows(2) {
            let (values, weights) = ([&rows[0].0, &rows[1].0], [&rows[0].1, &rows[1].1]);
            let portable = Portable.output_dot(values, weights);
            for simd in Simd::available() {
                assert_eq!(output_dot(simd, values, weights), portable, "{simd:?}");
            }
        }
        cases.clear();
        for weight in [MAX_OUTPUT_WEIGHT, -MAX_OUTPUT_WEIGHT, 1] {
            for value in [QA as i16, i16::MAX, 1, -1, i16::MIN] {
                let (values, weights) = ([value; HIDDEN], [weight; HIDDEN]);
                let v = value.clamp(0, QA as i16) as i64;
                let exact = 2 * HIDDEN as i64 * v * v * weight as i64;
                for simd in Simd::available() {
                    let sum = output_dot(simd, [&values; 2], [&weights; 2]);
                    assert_eq!(sum, exact, "{simd:?}: value {value}, weight {weight}");
                }
            }
        }
    }

    /// On a random network whose feature weights span most of i16's range (so that the
    /// accumulators wrap and clamp at both ends), every legal move of every suite position gives
    /// the same accumulators on every path this processor runs as on the portable one, and they
    /// evaluate the same for either side to move with every output bucket.
    #[test]
    fn every_path_matches_the_portable_one() {
        let net = random_network_with(29, 30_000);
        // Whether any accumulator went far out of the activation's range, where sums of rows
        // this large wrap.
        let (mut far, mut moves) = (false, 0);
        for board in crate::perft::suite_boards() {
            let acc = Accumulator::new(&net, &board);
            for &mv in legal_moves(&board).as_slice() {
                let next = play(&net, &acc, &board, mv);
                for stm in Color::BOTH {
                    for bucket in 0..OUTPUT_BUCKETS {
                        let portable = next.evaluate(&net, stm, bucket, Simd::PORTABLE);
                        for simd in Simd::available() {
                            assert_eq!(next.evaluate(&net, stm, bucket, simd), portable, "{simd:?}");
                        }
                    }
                }
                far |= next.values.iter().flatten().any(|&v| v.unsigned_abs() > 30_000);
                moves += 1;
            }
        }
        assert!(far && moves > 3000, "{moves} moves, accumulators far out: {far}");
    }

    /// Random games forward and back, from every suite position (Chess960 castling
    /// included): the accumulators kept up to date move by move, one per ply on a stack as the
    /// search keeps them, null moves included, always equal ones computed from scratch, and so
    /// do the evaluations; for a plain network and a mirrored one, whose king moves across the
    /// board's middle (castling long among them) refresh the mover's accumulator.
    #[test]
    fn incremental_updates_match_a_refresh() {
        for network in [random_network(7), mirrored(&random_network(7))] {
            follow_random_games(&network);
        }
    }

    fn follow_random_games(net: &Net) {
        let mut random = xorshift(0x1234_5678);
        let mut checked = 0;
        let mut kinds = [0; 4]; // quiet, capture, castling, promotion
        let mut crossings = [0; 2]; // kings crossing the middle, not castling and castling
        for mut board in crate::perft::suite_boards() {
            let mut stack = vec![Accumulator::new(net, &board)];
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
                } else if !board.in_check() && random(10) == 0 {
                    stack.push(*stack.last().unwrap());
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
                    let king = board.king_square(board.side_to_move());
                    if board.piece_at(mv.from()).is_kind(PieceKind::King) && (mv.to().file() >= 4) != (king.file() >= 4)
                    {
                        crossings[mv.is_castle() as usize] += 1;
                    }
                    let next = play(net, stack.last().unwrap(), &board, mv);
                    board.make_move(mv);
                    nulls.push(false);
                    stack.push(next);
                }
                check(net, stack.last().unwrap(), &board);
                checked += 1;
            }
        }
        assert!(checked > 10_000, "{checked}");
        assert!(kinds.iter().all(|&n| n > 20), "quiet, capture, castling, promotion: {kinds:?}");
        assert!(
            crossings[0] > 100 && crossings[1] >= 5,
            "kings crossing the middle, not castling and castling: {crossings:?}"
        );
    }

    /// A mirrored network sees a board and its reflection from the a-file to the h-file alike
    /// (the same inputs, once each side's king is on the half it reads from), where a plain
    /// one does not; over the suite positions without castling rights (which a reflection
    /// would not keep).
    #[test]
    fn a_mirrored_network_scores_a_board_as_its_reflection() {
        let plain = random_network(13);
        let net = mirrored(&plain);
        let (mut boards, mut unlike) = (0, 0);
        for board in crate::perft::suite_boards().iter().filter(|b| b.castling_rights() == 0) {
            let fen = board.to_fen();
            let fields: Vec<&str> = fen.split(' ').collect();
            let ranks: Vec<String> = fields[0].split('/').map(|rank| rank.chars().rev().collect()).collect();
            let en_passant = match fields[3].as_bytes() {
                [file, rank] => format!("{}{}", (b'h' - (file - b'a')) as char, *rank as char),
                _ => "-".to_string(),
            };
            let reflected = format!("{} {} - {en_passant} {} {}", ranks.join("/"), fields[1], fields[4], fields[5]);
            let reflected = Board::from_fen(&reflected).unwrap();
            assert_eq!(net.evaluate(board), net.evaluate(&reflected), "{fen}");
            unlike += (plain.evaluate(board) != plain.evaluate(&reflected)) as usize;
            boards += 1;
        }
        assert!(boards > 50 && unlike > boards / 2, "{unlike} of {boards} boards scored unlike by the plain network");
    }

    /// Mirroring the board and swapping colours swaps the two views, so the evaluation, from
    /// the side to move's view, stays the same, over the positions of every perft suite.
    #[test]
    fn evaluation_is_colour_symmetric() {
        let net = random_network(3);
        for board in &crate::perft::suite_boards() {
            let score = net.evaluate(board);
            assert_eq!(score, net.evaluate(&board.mirrored()), "{}", board.to_fen());
            assert_ne!(score, 0, "{}", board.to_fen());
        }
    }

    /// Integer evaluation against the formula worked in floating point, with the
    /// output bucket the piece count picks.
    #[test]
    fn evaluation_matches_the_formula() {
        let net = random_network(11);
        for board in crate::perft::suite_boards() {
            let acc = Accumulator::new(&net, &board);
            let stm = board.side_to_move();
            let bucket = (board.piece_count() - 2) * OUTPUT_BUCKETS / 32;
            assert_eq!(Net::output_bucket(&board), bucket);
            let mut sum = net.output_bias[bucket] as f64 / (QA * QB) as f64;
            for (side, weights) in [stm, !stm].iter().zip(&net.output_weights[bucket]) {
                for (&a, &w) in acc.values[side.index()].iter().zip(&weights.0) {
                    let h = (a as f64 / QA as f64).clamp(0.0, 1.0);
                    sum += h * h * w as f64 / QB as f64;
                }
            }
            let expected = (sum * EVAL_SCALE as f64).clamp(-MAX_EVAL as f64, MAX_EVAL as f64);
            let got = acc.evaluate(&net, stm, bucket, Simd::PORTABLE);
            // Two truncating divisions: less than 1 + 400 / (QA · QB) centipawns.
            let bound = 1.0 + EVAL_SCALE as f64 / (QA * QB) as f64;
            assert!((got as f64 - expected).abs() < bound, "{got} vs {expected:.4}");
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
        assert_eq!((start, without_black_queen, middlegame), (36, 2101, 28));
        assert!(start.abs() < 100 && without_black_queen > 500);
        assert_eq!(net.to_bytes(), include_bytes!("network.nnue"));
    }

    #[test]
    fn files_round_trip() {
        for net in [random_network(5), mirrored(&random_network(5))] {
            let bytes = net.to_bytes();
            assert_eq!(bytes.len(), FILE_SIZE);
            assert_eq!(
                bytes[12..HEADER_SIZE],
                if net.mirrored { FileShape::ENGINE_MIRRORED } else { FileShape::ENGINE }.to_bytes()
            );
            assert!(Network::from_bytes(&bytes).unwrap() == net);
        }
    }

    /// A file of another version, or whose header names another shape, is refused with what it
    /// is and what the engine reads; so are damaged files.
    #[test]
    fn bad_files_are_refused_with_the_reason() {
        let good = random_network(9).to_bytes();
        let size = good.len();
        let with = |at: usize, value: &[u8]| {
            let mut bytes = good.clone();
            bytes[at..at + value.len()].copy_from_slice(value);
            Network::from_bytes(&bytes).err()
        };
        assert_eq!(with(0, b"SNTLPOS\0"), Some(NetError::BadMagic));
        assert_eq!(Network::from_bytes(b"PK\x03\x04 a zip file").err(), Some(NetError::BadMagic));
        assert_eq!(with(8, &1u32.to_le_bytes()), Some(NetError::Version { found: 1 }));
        // A version-2 file (the first networks': magic, version, hidden size, activation).
        let mut old = MAGIC.to_vec();
        [2u32, 256, SCRELU].iter().for_each(|word| old.extend_from_slice(&word.to_le_bytes()));
        old.extend_from_slice(&good[HEADER_SIZE..HEADER_SIZE + 1000]);
        let error = Network::from_bytes(&old).err().unwrap();
        assert_eq!(error, NetError::Version { found: 2 });
        assert!(error.to_string().starts_with(
            "network format version 2; this engine reads version 3 networks of 512 hidden neurons, SCReLU, 8 \
             output buckets, no king buckets"
        ));
        assert_eq!(Network::from_bytes(&old[..16]).err(), Some(NetError::Version { found: 2 }));
        // Every field of the shape: hidden size, activation, output buckets, mirroring, king buckets.
        let engine = FileShape::ENGINE;
        let mut king_buckets = [0; 64];
        king_buckets[16..].fill(1);
        for found in [
            FileShape { hidden: 256, ..engine },
            FileShape { hidden: 1024, ..engine },
            FileShape { activation: CRELU, ..engine },
            FileShape { output_buckets: 1, ..engine },
            FileShape { mirroring: 2, ..engine },
            FileShape { king_buckets, ..engine },
            FileShape { king_buckets, ..FileShape::ENGINE_MIRRORED },
        ] {
            assert_eq!(with(12, &found.to_bytes()), Some(NetError::Shape { found }));
        }
        let found = FileShape { hidden: 256, activation: CRELU, output_buckets: 1, ..engine };
        assert_eq!(
            NetError::Shape { found }.to_string(),
            "the network has 256 hidden neurons, CReLU, 1 output bucket, no king buckets; this engine reads only \
             512 hidden neurons, SCReLU, 8 output buckets, no king buckets, mirrored or not (the trainer's \
             tools, built with --features tune, read other shapes)"
        );
        let index = 5 * 2 * HIDDEN + 3;
        let weight_at = size - 4 * 8 - 2 * 8 * 2 * HIDDEN + 2 * index;
        assert_eq!(with(weight_at, &300i16.to_le_bytes()), Some(NetError::OutputWeight { index, value: 300 }));
        let truncated = |len: usize| Network::from_bytes(&good[..len]).err();
        assert_eq!(truncated(size - 1), Some(NetError::Truncated { expected: size, got: size - 1 }));
        assert_eq!(truncated(50), Some(NetError::Truncated { expected: HEADER_SIZE, got: 50 }));
        assert_eq!(truncated(10), Some(NetError::Truncated { expected: HEADER_SIZE, got: 10 }));
        assert_eq!(truncated(0), Some(NetError::Truncated { expected: HEADER_SIZE, got: 0 }));
        let mut long = good.clone();
        long.push(0);
        assert_eq!(Network::from_bytes(&long).err(), Some(NetError::TooLong { expected: size, got: size + 1 }));
    }
}
