//! The neural network evaluation (NNUE): a network small enough to run at every node, whose
//! first layer is updated incrementally as moves change a few pieces instead of being
//! recomputed.
//!
//! Architecture: each side sees the board from its own end (flipped top to bottom for Black)
//! as binary inputs, one per (own or enemy piece, kind, square) in the block of its king's
//! bucket (`shape`: the king's square picks one of the network's blocks of 768 inputs, and
//! with mirroring a king on files e-h sees the board reflected). One shared layer of H neurons
//! (one of `WIDTHS`) turns each side's inputs into an accumulator; the output is the activated
//! side to move's accumulator followed by the other side's, times the output weights of the
//! position's output bucket (chosen by the number of pieces), plus that bucket's bias, scaled to
//! centipawns. The activation is CReLU (clamp to [0, 1]) or SCReLU (clamped, then squared).
//!
//! Arithmetic is integer: feature weights and biases are i16 scaled by `QA` (1.0 is 255),
//! output weights i16 scaled by `QB` (1.0 is 128), output biases i32 scaled by `QA * QB`. The
//! accumulators add and subtract with wrapping, as the vector units do, so updating a position
//! incrementally gives exactly the numbers recomputing it gives, whatever the weights. A move
//! that changes what a side's inputs mean (its king into another bucket or across the mirror
//! line) refreshes that side from a `RefreshCache`.
//!
//! File format (all little-endian, `HEADER_SIZE` + parameters, nothing after them), with K
//! king buckets, hidden size H and O output buckets:
//!
//! | offset | size          | contents                                                         |
//! |--------|---------------|------------------------------------------------------------------|
//! | 0      | 8             | magic `SNTLNNUE`                                                 |
//! | 8      | 4             | format version (u32, `VERSION`)                                  |
//! | 12     | 80            | the shape (`Shape::to_bytes`): H, activation, O, mirroring, the king bucket of each square |
//! | 92     | K · 768 · H · 2 | feature weights, i16, one row of H per input (`View::index`) |
//! |        | H · 2         | feature biases, i16                                              |
//! |        | O · 2 · H · 2 | output weights, i16, per output bucket: H for the side to move, then H for the other |
//! |        | O · 4         | output biases, i32                                               |
//!
//! H must be one of `WIDTHS`, the widths this build has code for; the rest of the shape is read
//! from the file. Version 2
//! files (a 20-byte header: magic, version, H, activation; one king bucket, one output bucket)
//! are the shape the first networks had, and still load. Output weights must lie within
//! ±`MAX_OUTPUT_WEIGHT`, which keeps SCReLU's products in range.

#[cfg(target_arch = "aarch64")]
mod neon;
mod shape;

#[cfg(any(test, feature = "tune"))]
pub use shape::KingBuckets;
#[cfg(test)]
pub use shape::quartered;
pub use shape::{Activation, MAX_KING_BUCKETS, MAX_OUTPUT_BUCKETS, PIECE_INPUTS, SHAPE_BYTES, Shape, View};

use crate::board::{Board, Castling, Color, Move, Piece, PieceKind, Square, flag};
#[cfg(target_arch = "aarch64")]
use neon::Neon;
use std::fmt;
use std::sync::{Arc, LazyLock};

/// The network built into the binary, made as `docs/network.md` says:
/// what the engine evaluates with unless `EvalFile` names another.
pub fn embedded() -> Network {
    static EMBEDDED: LazyLock<Network> = LazyLock::new(|| {
        let network = Network::from_bytes(include_bytes!(env!("SENTINEL_NETWORK")));
        network.expect("the built-in network is a file this build reads (a test checks it)")
    });
    EMBEDDED.clone()
}

/// The hidden layer widths (neurons per side) this build reads, so that older networks still
/// load beside the built-in one (`docs/network.md` gives each network's width). Another width
/// is another variant of `Network`.
pub const NARROW: usize = 256;
pub const WIDE: usize = 512;
pub const WIDTHS: [usize; 2] = [NARROW, WIDE];
/// The built-in network's width: what the trainer makes unless told otherwise.
#[cfg(any(test, feature = "tune"))]
pub const DEFAULT_HIDDEN: usize = WIDE;
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
/// The format before the header recorded the shape (see the module comment).
const PLAIN_VERSION: u32 = 2;
const PLAIN_HEADER_SIZE: usize = 20;
/// The largest network file this build reads: the most king and output buckets a shape may
/// have at the widest width.
pub const MAX_FILE_SIZE: usize =
    HEADER_SIZE + parameter_bytes(MAX_KING_BUCKETS * PIECE_INPUTS, WIDE, MAX_OUTPUT_BUCKETS);

/// Bytes of the quantised parameters of a network with `inputs` inputs per side, `hidden`
/// neurons and `outputs` output buckets.
const fn parameter_bytes(inputs: usize, hidden: usize, outputs: usize) -> usize {
    2 * (inputs * hidden + hidden + outputs * 2 * hidden) + 4 * outputs
}

/// Why a network file was refused.
#[derive(Clone, PartialEq, Eq, Debug)]
pub enum NetError {
    BadMagic,
    Version { found: u32 },
    HiddenSize { found: usize },
    Activation { found: u32 },
    OutputBuckets { found: u32 },
    Mirroring { found: u32 },
    UnusedKingBucket { bucket: usize },
    AsymmetricKingBuckets { square: Square },
    Truncated { expected: usize, got: usize },
    TooLong { expected: usize, got: usize },
    OutputWeight { index: usize, value: i16 },
}

impl fmt::Display for NetError {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        match *self {
            NetError::BadMagic => write!(f, "not a Sentinel network file (bad magic)"),
            NetError::Version { found } => {
                write!(f, "network format version {found}; this build reads versions {PLAIN_VERSION} and {VERSION}")
            }
            NetError::HiddenSize { found } => {
                write!(f, "network has {found} hidden neurons; this build reads {NARROW} or {WIDE}")
            }
            NetError::Activation { found } => write!(f, "unknown activation code {found} (0 CReLU, 1 SCReLU)"),
            NetError::OutputBuckets { found } => {
                write!(f, "network has {found} output buckets; this build reads 1 to {MAX_OUTPUT_BUCKETS}")
            }
            NetError::Mirroring { found } => write!(f, "unknown king mirroring code {found} (0 none, 1 horizontal)"),
            NetError::UnusedKingBucket { bucket } => {
                write!(f, "king bucket {bucket} is on no square (buckets are numbered from 0 without gaps)")
            }
            NetError::AsymmetricKingBuckets { square } => {
                write!(f, "king buckets are mirrored but {square} is not in its mirror square's bucket")
            }
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

/// A network of any width this build reads: cheap to clone, since the parameters are shared.
/// Each width is a copy of the inference code compiled for it, so that its loops know the
/// accumulators' length; which copy runs is chosen once, when the evaluator takes the network.
#[derive(Clone, PartialEq, Eq, Debug)]
pub enum Network {
    Narrow(Arc<Net<NARROW>>),
    Wide(Arc<Net<WIDE>>),
}

/// `$body` with `$net` bound to the network of whichever width `$network` is (the search's
/// path chooses once, in the evaluator; this is for the tools and tests).
#[cfg(any(test, feature = "tune", feature = "fuzz"))]
macro_rules! by_width {
    ($network:expr, $net:ident => $body:expr) => {
        match $network {
            Network::Narrow($net) => $body,
            Network::Wide($net) => $body,
        }
    };
}
#[cfg(feature = "fuzz")]
pub(crate) use by_width;

impl Network {
    /// A network from its quantised parameters: `feature_weights` row by row
    /// (`shape.inputs()` × `shape.hidden`), `output_weights` per output bucket the side to
    /// move's `shape.hidden` then the other side's, one output bias per bucket.
    pub fn from_parts(
        shape: Shape,
        feature_weights: &[i16],
        feature_bias: &[i16],
        output_weights: &[i16],
        output_bias: &[i32],
    ) -> Result<Network, NetError> {
        let parts = (feature_weights, feature_bias, output_weights, output_bias);
        Ok(match shape.hidden {
            NARROW => Network::Narrow(Arc::new(Net::from_parts(shape, parts)?)),
            WIDE => Network::Wide(Arc::new(Net::from_parts(shape, parts)?)),
            found => return Err(NetError::HiddenSize { found }),
        })
    }

    /// Reads a network file (see the module comment for the format).
    pub fn from_bytes(bytes: &[u8]) -> Result<Network, NetError> {
        if bytes.len() >= MAGIC.len() && &bytes[..MAGIC.len()] != MAGIC {
            return Err(NetError::BadMagic);
        }
        let word = |at: usize| u32::from_le_bytes([bytes[at], bytes[at + 1], bytes[at + 2], bytes[at + 3]]);
        let header_size = match bytes.len() {
            len if len < 12 => return Err(NetError::Truncated { expected: HEADER_SIZE, got: len }),
            _ if word(8) == PLAIN_VERSION => PLAIN_HEADER_SIZE,
            _ if word(8) == VERSION => HEADER_SIZE,
            _ => return Err(NetError::Version { found: word(8) }),
        };
        if bytes.len() < header_size {
            return Err(NetError::Truncated { expected: header_size, got: bytes.len() });
        }
        let shape = if header_size == HEADER_SIZE {
            let mut shape = [0; SHAPE_BYTES];
            shape.copy_from_slice(&bytes[12..HEADER_SIZE]);
            Shape::from_bytes(&shape)?
        } else {
            let activation = Activation::from_code(word(16)).ok_or(NetError::Activation { found: word(16) })?;
            Shape::plain(word(12) as usize, activation)
        };
        // Before any size is worked out from it: a width this build has no code for.
        if !WIDTHS.contains(&shape.hidden) {
            return Err(NetError::HiddenSize { found: shape.hidden });
        }
        let (hidden, outputs) = (shape.hidden, shape.output_buckets);
        let size = header_size + parameter_bytes(shape.inputs(), hidden, outputs);
        if bytes.len() < size {
            return Err(NetError::Truncated { expected: size, got: bytes.len() });
        }
        if bytes.len() > size {
            return Err(NetError::TooLong { expected: size, got: bytes.len() });
        }
        let biases_at = size - 4 * outputs;
        let mut words = bytes[header_size..biases_at].chunks_exact(2).map(|b| i16::from_le_bytes([b[0], b[1]]));
        let feature_weights: Vec<i16> = words.by_ref().take(shape.inputs() * hidden).collect();
        let feature_bias: Vec<i16> = words.by_ref().take(hidden).collect();
        let output_weights: Vec<i16> = words.collect();
        let output_bias: Vec<i32> = (biases_at..size).step_by(4).map(|at| word(at) as i32).collect();
        Network::from_parts(shape, &feature_weights, &feature_bias, &output_weights, &output_bias)
    }

    #[cfg(any(test, feature = "tune"))]
    /// The network as a file (see the module comment for the format).
    pub fn to_bytes(&self) -> Vec<u8> {
        by_width!(self, net => net.to_bytes())
    }

    #[cfg(any(test, feature = "tune"))]
    pub fn shape(&self) -> &Shape {
        by_width!(self, net => &net.shape)
    }

    #[cfg(any(test, feature = "tune"))]
    /// The quantised parameters in the order `from_parts` takes them: the trainer starts from
    /// them to fine-tune a network.
    pub fn parts(&self) -> (Vec<i16>, Vec<i16>, Vec<i16>, Vec<i32>) {
        by_width!(self, net => net.parts())
    }

    /// Whether the two are the same network, by address: a file loaded twice makes two.
    pub fn same_as(&self, other: &Network) -> bool {
        match (self, other) {
            (Network::Narrow(a), Network::Narrow(b)) => Arc::ptr_eq(a, b),
            (Network::Wide(a), Network::Wide(b)) => Arc::ptr_eq(a, b),
            _ => false,
        }
    }

    #[cfg(any(test, feature = "tune"))]
    /// The evaluation of `board` for the side to move, computing the accumulators afresh.
    pub fn evaluate(&self, board: &Board) -> i32 {
        by_width!(self, net => net.evaluate(board))
    }

    #[cfg(feature = "tune")]
    /// The evaluation for `stm` of a position given as its pieces (as the trainer reads them),
    /// with the output weights of `bucket`.
    pub fn evaluate_pieces(&self, pieces: impl IntoIterator<Item = (Square, Piece)>, stm: Color, bucket: usize) -> i32 {
        by_width!(self, net => Accumulator::from_pieces(net, pieces).evaluate(net, stm, bucket))
    }
}

/// The quantised parameters of a network `H` neurons wide.
#[derive(Clone, PartialEq, Eq)]
pub struct Net<const H: usize> {
    shape: Shape,
    /// One row per input (`shape.inputs()` rows), on the heap.
    feature_weights: Box<[[i16; H]]>,
    feature_bias: [i16; H],
    /// Per output bucket: `[0]` weighs the side to move's accumulator, `[1]` the other side's.
    output_weights: Box<[[[i16; H]; 2]]>,
    output_bias: Box<[i32]>,
}

impl<const H: usize> fmt::Debug for Net<H> {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        write!(f, "Net({}, output biases {:?})", self.shape, self.output_bias)
    }
}

/// A network's quantised parameters as `Network::from_parts` takes them.
type Parts<'a> = (&'a [i16], &'a [i16], &'a [i16], &'a [i32]);

impl<const H: usize> Net<H> {
    /// See `Network::from_parts`; `shape.hidden` is `H`.
    fn from_parts(shape: Shape, parts: Parts) -> Result<Net<H>, NetError> {
        let (feature_weights, feature_bias, output_weights, output_bias) = parts;
        let sizes = [
            (feature_weights.len(), shape.inputs() * H),
            (feature_bias.len(), H),
            (output_weights.len(), shape.output_buckets * 2 * H),
            (output_bias.len(), shape.output_buckets),
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
        let mut net = Net {
            shape,
            feature_weights: vec![[0; H]; shape.inputs()].into_boxed_slice(),
            feature_bias: [0; H],
            output_weights: vec![[[0; H]; 2]; shape.output_buckets].into_boxed_slice(),
            output_bias: output_bias.into(),
        };
        for (row, values) in net.feature_weights.iter_mut().zip(feature_weights.chunks_exact(H)) {
            row.copy_from_slice(values);
        }
        net.feature_bias.copy_from_slice(feature_bias);
        for (row, values) in net.output_weights.iter_mut().flatten().zip(output_weights.chunks_exact(H)) {
            row.copy_from_slice(values);
        }
        Ok(net)
    }

    #[cfg(any(test, feature = "tune"))]
    /// See `Network::parts`: the order `from_parts` takes and the file stores.
    fn parts(&self) -> (Vec<i16>, Vec<i16>, Vec<i16>, Vec<i32>) {
        (
            self.feature_weights.iter().flatten().copied().collect(),
            self.feature_bias.to_vec(),
            self.output_weights.iter().flatten().flatten().copied().collect(),
            self.output_bias.to_vec(),
        )
    }

    #[cfg(any(test, feature = "tune"))]
    fn to_bytes(&self) -> Vec<u8> {
        let size = HEADER_SIZE + parameter_bytes(self.shape.inputs(), H, self.shape.output_buckets);
        let mut bytes = Vec::with_capacity(size);
        bytes.extend_from_slice(MAGIC);
        bytes.extend_from_slice(&VERSION.to_le_bytes());
        bytes.extend_from_slice(&self.shape.to_bytes());
        let (feature_weights, feature_bias, output_weights, output_bias) = self.parts();
        for value in feature_weights.iter().chain(&feature_bias).chain(&output_weights) {
            bytes.extend_from_slice(&value.to_le_bytes());
        }
        for bias in &output_bias {
            bytes.extend_from_slice(&bias.to_le_bytes());
        }
        bytes
    }

    #[cfg(any(test, feature = "tune", feature = "fuzz"))]
    /// The evaluation of `board` for the side to move, computing the accumulators afresh.
    pub fn evaluate(&self, board: &Board) -> i32 {
        Accumulator::new(self, board).evaluate(self, board.side_to_move(), self.output_bucket(board))
    }

    /// The output bucket of `board`, without counting its pieces when there is one bucket.
    #[inline(always)]
    pub fn output_bucket(&self, board: &Board) -> usize {
        if self.shape.output_buckets == 1 { 0 } else { self.shape.output_bucket(board.piece_count()) }
    }

    #[inline(always)]
    fn row(&self, view: View, piece: Piece, sq: Square) -> &[i16; H] {
        &self.feature_weights[view.index(piece, sq)]
    }
}

/// Where every piece stands, a set of squares (a1 = bit 0) per colour and kind: what a
/// refresh compares with the position a cached accumulator was computed for.
#[derive(Clone, Copy, PartialEq, Eq, Debug, Default)]
struct Placement([u64; 12]);

impl Placement {
    #[inline(always)]
    fn slot(piece: Piece) -> usize {
        piece.color().index() * 6 + piece.kind().index() - 1
    }

    #[inline(always)]
    fn piece(slot: usize) -> Piece {
        Piece::new(Color::BOTH[slot / 6], PieceKind::ALL[slot % 6])
    }

    #[inline(always)]
    fn of(board: &Board) -> Placement {
        let mut placement = Placement::default();
        for (slot, set) in placement.0.iter_mut().enumerate() {
            let piece = Placement::piece(slot);
            *set = board.pieces(piece.color(), piece.kind()).iter().fold(0, |set, sq| set | 1 << sq.index64());
        }
        placement
    }

    #[cfg(any(test, feature = "tune"))]
    fn from_pieces(pieces: impl IntoIterator<Item = (Square, Piece)>) -> Placement {
        let mut placement = Placement::default();
        pieces.into_iter().for_each(|(sq, piece)| placement.put(piece, sq));
        placement
    }

    #[inline(always)]
    fn put(&mut self, piece: Piece, sq: Square) {
        self.0[Placement::slot(piece)] |= 1 << sq.index64();
    }

    #[inline(always)]
    fn lift(&mut self, piece: Piece, sq: Square) {
        self.0[Placement::slot(piece)] &= !(1 << sq.index64());
    }

    fn king(&self, color: Color) -> Square {
        let kings = self.0[Placement::slot(Piece::new(color, PieceKind::King))];
        // Boards and checked records always have the king; a1 keeps the lookup in range if not.
        Square::from_index64(kings.trailing_zeros() as usize % 64)
    }
}

/// Adds to `values`, one side's accumulator computed with `view` for the pieces of `had`, the
/// rows of the pieces `has` adds and takes away those of the pieces it lacks.
#[inline(always)]
fn apply_difference<const H: usize>(values: &mut [i16; H], net: &Net<H>, view: View, had: &Placement, has: &Placement) {
    for (slot, (&before, &after)) in had.0.iter().zip(&has.0).enumerate() {
        let piece = Placement::piece(slot);
        for (mut squares, sign) in [(after & !before, 1), (before & !after, -1)] {
            while squares != 0 {
                let sq = Square::from_index64(squares.trailing_zeros() as usize);
                squares &= squares - 1;
                let row = net.row(view, piece, sq);
                for (value, &w) in values.iter_mut().zip(row) {
                    *value = value.wrapping_add(w.wrapping_mul(sign));
                }
            }
        }
    }
}

/// Per side and king view (`View::slot`), the accumulator of the last position refreshed
/// there and where its pieces stood (what engines call a Finny table): a refresh starts from
/// it and applies only the pieces that differ, far fewer than a whole board's when the king
/// comes back to a bucket it has been in. Each cache belongs to one network.
pub struct RefreshCache<const H: usize> {
    entries: [Box<[CacheEntry<H>]>; 2],
}

#[derive(Clone)]
#[repr(C, align(64))]
struct CacheEntry<const H: usize> {
    values: [i16; H],
    placement: Placement,
}

impl<const H: usize> RefreshCache<H> {
    /// A cache for `net` whose entries all stand for the empty board.
    pub fn new(net: &Net<H>) -> RefreshCache<H> {
        let empty = CacheEntry { values: net.feature_bias, placement: Placement::default() };
        let entries = || vec![empty.clone(); 2 * net.shape.kings.count()].into_boxed_slice();
        RefreshCache { entries: [entries(), entries()] }
    }

    /// Writes to `out` the accumulator of `view`'s side for the pieces of `placement`.
    #[inline(always)]
    fn refresh(&mut self, net: &Net<H>, view: View, placement: &Placement, out: &mut [i16; H]) {
        let entry = &mut self.entries[view.perspective().index()][view.slot()];
        apply_difference(&mut entry.values, net, view, &entry.placement, placement);
        entry.placement = *placement;
        *out = entry.values;
    }
}

/// The hidden layer's inputs for a position, from White's view (`[0]`) and Black's (`[1]`).
/// The evaluator keeps one per ply of the line searched and updates it with the pieces a move changes.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
#[repr(C, align(64))]
pub struct Accumulator<const H: usize> {
    values: [[i16; H]; 2],
}

impl<const H: usize> Accumulator<H> {
    /// The accumulators of `board`, computed from scratch.
    pub fn new(net: &Net<H>, board: &Board) -> Accumulator<H> {
        Accumulator::of(net, &Placement::of(board))
    }

    #[cfg(any(test, feature = "tune"))]
    /// The accumulators of a board given as its pieces (as the trainer reads them).
    pub fn from_pieces(net: &Net<H>, pieces: impl IntoIterator<Item = (Square, Piece)>) -> Accumulator<H> {
        Accumulator::of(net, &Placement::from_pieces(pieces))
    }

    fn of(net: &Net<H>, placement: &Placement) -> Accumulator<H> {
        let mut acc = Accumulator { values: [net.feature_bias; 2] };
        for perspective in Color::BOTH {
            let view = net.shape.view(perspective, placement.king(perspective));
            apply_difference(&mut acc.values[perspective.index()], net, view, &Placement::default(), placement);
        }
        acc
    }

    /// The accumulators after `mv`, which is about to be played on `board`, written to `next`:
    /// these values plus the rows of the pieces the move puts down, minus those of the pieces
    /// it lifts, in one pass over memory (copying first and updating in place would read and
    /// write the accumulators once per changed piece); or, for the side whose king move changes
    /// its view, a refresh from `cache`.
    pub fn play_into(
        &self,
        next: &mut Accumulator<H>,
        net: &Net<H>,
        board: &Board,
        mv: Move,
        cache: &mut RefreshCache<H>,
    ) {
        #[cfg(target_arch = "x86_64")]
        if std::arch::is_x86_feature_detected!("avx2") {
            // SAFETY: the processor has AVX2, checked just above.
            return unsafe { self.play_into_avx2(next, net, board, mv, cache) };
        }
        #[cfg(target_arch = "aarch64")]
        self.play_into_neon(next, net, board, mv, cache);
        #[cfg(not(target_arch = "aarch64"))]
        self.play_into_portable(next, net, board, mv, cache);
    }

    /// `play_into` compiled with 256-bit vectors: 16 lanes a step instead of 8.
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx2")]
    fn play_into_avx2(
        &self,
        next: &mut Accumulator<H>,
        net: &Net<H>,
        board: &Board,
        mv: Move,
        cache: &mut RefreshCache<H>,
    ) {
        self.play_into_shaped::<Portable>(next, net, board, mv, cache);
    }

    /// `play_into` with NEON intrinsics, which every aarch64 processor has: out of line, as
    /// the portable one.
    #[cfg(target_arch = "aarch64")]
    #[inline(never)]
    fn play_into_neon(
        &self,
        next: &mut Accumulator<H>,
        net: &Net<H>,
        board: &Board,
        mv: Move,
        cache: &mut RefreshCache<H>,
    ) {
        self.play_into_shaped::<Neon>(next, net, board, mv, cache);
    }

    /// `play_into` for processors without AVX2 or NEON (and for the tests, the reference the
    /// vector paths must match), out of line so that the call the search makes stays small.
    #[cfg(any(test, not(target_arch = "aarch64")))]
    #[inline(never)]
    fn play_into_portable(
        &self,
        next: &mut Accumulator<H>,
        net: &Net<H>,
        board: &Board,
        mv: Move,
        cache: &mut RefreshCache<H>,
    ) {
        self.play_into_shaped::<Portable>(next, net, board, mv, cache);
    }

    #[inline(always)]
    fn play_into_shaped<K: Kernels>(
        &self,
        next: &mut Accumulator<H>,
        net: &Net<H>,
        board: &Board,
        mv: Move,
        cache: &mut RefreshCache<H>,
    ) {
        // Two copies of the loop: without king buckets, the built-in network's case, the views
        // are constants and no move refreshes.
        if net.shape.kings.matter() {
            self.play_into_with::<K, true>(next, net, board, mv, cache);
        } else {
            self.play_into_with::<K, false>(next, net, board, mv, cache);
        }
    }

    #[inline(always)]
    fn play_into_with<K: Kernels, const KINGS_MATTER: bool>(
        &self,
        next: &mut Accumulator<H>,
        net: &Net<H>,
        board: &Board,
        mv: Move,
        cache: &mut RefreshCache<H>,
    ) {
        let change = Change::of(board, mv);
        for perspective in Color::BOTH {
            let view = if KINGS_MATTER {
                net.shape.view(perspective, board.king_square(perspective))
            } else {
                View::unbucketed(perspective)
            };
            let to = &mut next.values[perspective.index()];
            if KINGS_MATTER
                && let Some(king_to) = change.king_to
                && perspective == board.side_to_move()
                && net.shape.view(perspective, king_to) != view
            {
                refresh_after(to, net, board, &change, net.shape.view(perspective, king_to), cache);
                continue;
            }
            let row = |(piece, sq): (Piece, Square)| net.row(view, piece, sq);
            let ([added, added2], [removed, removed2]) = (change.added, change.removed);
            let from = &self.values[perspective.index()];
            match (change.additions, change.removals) {
                (1, 1) => K::update(to, from, [row(added)], [row(removed)]),
                (1, 2) => K::update(to, from, [row(added)], [row(removed), row(removed2)]),
                _ => K::update(to, from, [row(added), row(added2)], [row(removed), row(removed2)]),
            }
        }
    }

    /// The evaluation in centipawns for `stm`, the side to move, with the output weights of
    /// `bucket` (`Network::output_bucket`; below the network's count of them).
    pub fn evaluate(&self, net: &Net<H>, stm: Color, bucket: usize) -> i32 {
        #[cfg(target_arch = "x86_64")]
        if std::arch::is_x86_feature_detected!("avx2") {
            // SAFETY: the processor has AVX2, checked just above.
            return unsafe { self.evaluate_avx2(net, stm, bucket) };
        }
        #[cfg(target_arch = "aarch64")]
        {
            self.evaluate_neon(net, stm, bucket)
        }
        #[cfg(not(target_arch = "aarch64"))]
        {
            self.evaluate_portable(net, stm, bucket)
        }
    }

    /// `evaluate` with 256-bit vectors, written out with the processor's instructions: left to
    /// itself the compiler vectorised the portable loops with 128-bit ones, and summed each
    /// chunk across its lanes.
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx2")]
    fn evaluate_avx2(&self, net: &Net<H>, stm: Color, bucket: usize) -> i32 {
        let values = [&self.values[stm.index()], &self.values[(!stm).index()]];
        let [ours, theirs] = &net.output_weights[bucket];
        let sum = match net.shape.activation {
            Activation::CReLU => avx2::dot::<H, false>(values, [ours, theirs]),
            Activation::SCReLU => avx2::dot::<H, true>(values, [ours, theirs]) / QA as i64,
        };
        output(net, bucket, sum)
    }

    #[cfg(target_arch = "aarch64")]
    #[inline(always)]
    fn evaluate_neon(&self, net: &Net<H>, stm: Color, bucket: usize) -> i32 {
        self.evaluate_with::<Neon>(net, stm, bucket)
    }

    #[cfg(any(test, not(target_arch = "aarch64")))]
    #[inline(always)]
    fn evaluate_portable(&self, net: &Net<H>, stm: Color, bucket: usize) -> i32 {
        self.evaluate_with::<Portable>(net, stm, bucket)
    }

    #[inline(always)]
    fn evaluate_with<K: Kernels>(&self, net: &Net<H>, stm: Color, bucket: usize) -> i32 {
        let (us, them) = (&self.values[stm.index()], &self.values[(!stm).index()]);
        let [ours, theirs] = &net.output_weights[bucket];
        let sum = match net.shape.activation {
            Activation::CReLU => K::crelu_dot(us, ours) + K::crelu_dot(them, theirs),
            Activation::SCReLU => (K::screlu_dot(us, ours) + K::screlu_dot(them, theirs)) / QA as i64,
        };
        output(net, bucket, sum)
    }
}

/// The evaluation in centipawns from the output layer's sum (scaled by QA · QB, the output
/// bias's scale) for `bucket`.
#[inline(always)]
fn output<const H: usize>(net: &Net<H>, bucket: usize, sum: i64) -> i32 {
    let eval = (sum + net.output_bias[bucket] as i64) * EVAL_SCALE as i64 / (QA * QB) as i64;
    eval.clamp(-MAX_EVAL as i64, MAX_EVAL as i64) as i32
}

/// The output layer's dot products on AVX2.
#[cfg(target_arch = "x86_64")]
mod avx2 {
    use super::{MAX_OUTPUT_WEIGHT, QA, WIDE};
    use std::arch::x86_64::{
        __m256i, _mm256_add_epi32, _mm256_extract_epi32, _mm256_loadu_si256, _mm256_madd_epi16, _mm256_max_epi16,
        _mm256_min_epi16, _mm256_mullo_epi16, _mm256_set1_epi16, _mm256_setzero_si256,
    };

    /// 16-bit lanes in a 256-bit vector.
    const LANES: usize = 16;
    // Each 32-bit lane of the sum takes two products per step over both sides: at most
    // 2 · WIDE / 8 terms of at most QA² · MAX_OUTPUT_WEIGHT.
    const _: () = assert!((2 * WIDE / 8) as i64 * (QA * QA) as i64 * MAX_OUTPUT_WEIGHT as i64 <= i32::MAX as i64);

    /// Σ over both sides of clamp(a, 0, QA) · w, or with `SQUARE` clamp(a, 0, QA)² · w: the
    /// portable `crelu_dot` and `screlu_dot` summed, the same integers.
    // Out of line: inlined, both activations' copies had their loads merged and hoisted above
    // the choice between them, more than the registers hold.
    #[inline(never)]
    #[target_feature(enable = "avx2")]
    pub fn dot<const H: usize, const SQUARE: bool>(values: [&[i16; H]; 2], weights: [&[i16; H]; 2]) -> i64 {
        let (zero, one) = (_mm256_setzero_si256(), _mm256_set1_epi16(QA as i16));
        let mut sum = _mm256_setzero_si256();
        for (values, weights) in values.into_iter().zip(weights) {
            let (values, _) = values.as_chunks::<LANES>();
            let (weights, _) = weights.as_chunks::<LANES>();
            for (a, w) in values.iter().zip(weights) {
                let (a, w) = (load(a), load(w));
                let v = _mm256_min_epi16(_mm256_max_epi16(a, zero), one);
                // v · w fits 16 bits (|w| ≤ MAX_OUTPUT_WEIGHT), so it may be multiplied there;
                // the multiply-add then widens and adds neighbouring products.
                let products =
                    if SQUARE { _mm256_madd_epi16(_mm256_mullo_epi16(v, w), v) } else { _mm256_madd_epi16(v, w) };
                sum = _mm256_add_epi32(sum, products);
            }
        }
        let lanes = [
            _mm256_extract_epi32::<0>(sum),
            _mm256_extract_epi32::<1>(sum),
            _mm256_extract_epi32::<2>(sum),
            _mm256_extract_epi32::<3>(sum),
            _mm256_extract_epi32::<4>(sum),
            _mm256_extract_epi32::<5>(sum),
            _mm256_extract_epi32::<6>(sum),
            _mm256_extract_epi32::<7>(sum),
        ];
        lanes.iter().map(|&lane| lane as i64).sum()
    }

    #[inline(always)]
    fn load(chunk: &[i16; LANES]) -> __m256i {
        // SAFETY: the chunk is 32 readable bytes, and this load takes any alignment.
        unsafe { _mm256_loadu_si256(chunk.as_ptr().cast()) }
    }
}

/// The accumulator for `view`'s side after `change` on `board`, from `cache`: out of the
/// move's hot path, since few moves need it.
#[cold]
#[inline(never)]
fn refresh_after<const H: usize>(
    out: &mut [i16; H],
    net: &Net<H>,
    board: &Board,
    change: &Change,
    view: View,
    cache: &mut RefreshCache<H>,
) {
    let mut placement = Placement::of(board);
    change.apply(&mut placement);
    cache.refresh(net, view, &placement, out);
}

/// The pieces a move puts down and lifts: one of each for a quiet move or a promotion, one more
/// lifted for a capture, two of each for castling (king and rook). Unused slots repeat the first.
struct Change {
    added: [(Piece, Square); 2],
    removed: [(Piece, Square); 2],
    additions: usize,
    removals: usize,
    /// Where the king goes, when the move is the king's.
    king_to: Option<Square>,
}

impl Change {
    #[inline(always)]
    fn of(board: &Board, mv: Move) -> Change {
        let (from, to) = (mv.from(), mv.to());
        let us = board.side_to_move();
        let piece = board.piece_at(from);
        let king_to = piece.is_kind(PieceKind::King).then_some(to);
        if mv.is_castle() {
            let king_side = mv.flag() == flag::KING_CASTLE;
            let rook = Piece::new(us, PieceKind::Rook);
            let (rook_from, rook_to) = (board.castling_rook_square(mv), Castling::landing(us, king_side).1);
            return Change {
                added: [(piece, to), (rook, rook_to)],
                removed: [(piece, from), (rook, rook_from)],
                additions: 2,
                removals: 2,
                king_to,
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
            king_to,
        }
    }

    /// Moves the pieces of `placement` as the move does.
    #[inline(always)]
    fn apply(&self, placement: &mut Placement) {
        self.removed[..self.removals].iter().for_each(|&(piece, sq)| placement.lift(piece, sq));
        self.added[..self.additions].iter().for_each(|&(piece, sq)| placement.put(piece, sq));
    }
}

/// The network's inner loops, once per instruction set: the accumulator update for a move and
/// the output layer's dot products. `Portable` is plain Rust that the compiler vectorises for
/// whatever it targets (AVX2 included, inside `#[target_feature]` functions); `Neon` spells the
/// same arithmetic out in aarch64 intrinsics. Every implementation gives exactly the same numbers.
trait Kernels {
    /// `to = from + Σ added − Σ removed`, lane by lane with wrapping; the counts are constants so
    /// that each case compiles to one straight vector loop.
    fn update<const H: usize, const A: usize, const R: usize>(
        to: &mut [i16; H],
        from: &[i16; H],
        added: [&[i16; H]; A],
        removed: [&[i16; H]; R],
    );

    /// Σ clamp(a, 0, QA) · w, scaled by QA · QB.
    fn crelu_dot<const H: usize>(acc: &[i16; H], weights: &[i16; H]) -> i64;

    /// Σ clamp(a, 0, QA)² · w, scaled by QA² · QB.
    fn screlu_dot<const H: usize>(acc: &[i16; H], weights: &[i16; H]) -> i64;
}

/// Terms summed in i32 before joining the i64 total: 64 · 255 · 255 · 127 < 2³¹.
const CHUNK: usize = 64;
const _: () = assert!(NARROW.is_multiple_of(CHUNK) && WIDE.is_multiple_of(CHUNK), "a width is whole chunks");

/// The loops in plain Rust (on aarch64, only the tests' reference).
#[cfg(any(test, not(target_arch = "aarch64")))]
struct Portable;

#[cfg(any(test, not(target_arch = "aarch64")))]
impl Kernels for Portable {
    #[inline(always)]
    fn update<const H: usize, const A: usize, const R: usize>(
        to: &mut [i16; H],
        from: &[i16; H],
        added: [&[i16; H]; A],
        removed: [&[i16; H]; R],
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

    #[inline(always)]
    fn crelu_dot<const H: usize>(acc: &[i16; H], weights: &[i16; H]) -> i64 {
        let mut total = 0;
        for (a, w) in acc.chunks_exact(CHUNK).zip(weights.chunks_exact(CHUNK)) {
            let sum: i32 = a.iter().zip(w).map(|(&a, &w)| a.clamp(0, QA as i16) as i32 * w as i32).sum();
            total += sum as i64;
        }
        total
    }

    /// `v · w` fits an i16 since |w| ≤ `MAX_OUTPUT_WEIGHT`, which lets the multiply run on
    /// 16-bit lanes before widening.
    #[inline(always)]
    fn screlu_dot<const H: usize>(acc: &[i16; H], weights: &[i16; H]) -> i64 {
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
}

#[cfg(test)]
/// A network of `shape` with every parameter drawn from a seeded generator, for tests.
pub fn random_network_of(shape: Shape, seed: u64) -> Network {
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
    let features: Vec<i16> = (0..shape.inputs() * shape.hidden).map(|_| next(60)).collect();
    let bias: Vec<i16> = (0..shape.hidden).map(|_| next(100)).collect();
    let output: Vec<i16> =
        (0..shape.output_buckets * 2 * shape.hidden).map(|_| next(MAX_OUTPUT_WEIGHT as i32)).collect();
    let output_bias: Vec<i32> = (0..shape.output_buckets).map(|_| next(3000) as i32 * 7).collect();
    Network::from_parts(shape, &features, &bias, &output, &output_bias).unwrap()
}

#[cfg(test)]
/// A random network of the plain shape (no king buckets, one output) at the built-in width.
pub fn random_network(activation: Activation, seed: u64) -> Network {
    random_network_of(Shape::plain(DEFAULT_HIDDEN, activation), seed)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::board::dir;
    use crate::movegen::legal_moves;
    use std::collections::HashSet;

    /// The shapes the tests try, at each width: the plain one (no king buckets, one output),
    /// and one with a king bucket boundary of every kind (see `quartered`) and eight outputs.
    fn shapes() -> impl Iterator<Item = Shape> {
        WIDTHS.into_iter().flat_map(|hidden| {
            let plain = Shape::plain(hidden, Activation::SCReLU);
            [plain, bucketed(plain)]
        })
    }

    fn bucketed(shape: Shape) -> Shape {
        Shape { kings: quartered(), output_buckets: 8, ..shape }
    }

    fn xorshift(mut state: u64) -> impl FnMut(usize) -> usize {
        move |n| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            (state % n as u64) as usize
        }
    }

    /// The accumulators after `mv` on `board` (before it is played), checked to be the same on
    /// the path `play_into` chooses (AVX2 where the processor has it, NEON on aarch64) as on the
    /// portable path (each with its own cache, which must stay alike too).
    fn play<const H: usize>(
        net: &Net<H>,
        top: &Accumulator<H>,
        board: &Board,
        mv: Move,
        caches: &mut [RefreshCache<H>; 2],
    ) -> Accumulator<H> {
        let [cache, portable_cache] = caches;
        let mut next = Accumulator { values: [[0; H]; 2] };
        top.play_into(&mut next, net, board, mv, cache);
        let mut portable = Accumulator { values: [[0; H]; 2] };
        top.play_into_portable(&mut portable, net, board, mv, portable_cache);
        assert_eq!(portable, next, "{} {mv:?}", board.to_fen());
        next
    }

    /// `acc` is `board`'s, as computed from scratch, and evaluates as `board` does (the chosen
    /// path and the portable one).
    fn check<const H: usize>(net: &Net<H>, acc: &Accumulator<H>, board: &Board) {
        assert_eq!(*acc, Accumulator::new(net, board), "{}", board.to_fen());
        let (stm, bucket) = (board.side_to_move(), net.output_bucket(board));
        assert_eq!(acc.evaluate(net, stm, bucket), net.evaluate(board));
        assert_eq!(acc.evaluate_portable(net, stm, bucket), net.evaluate(board));
    }

    /// The NEON loops against the portable ones on accumulators and rows anywhere in i16's range
    /// (sums that wrap, activations below 0 and above `QA`) and output weights anywhere in
    /// ±`MAX_OUTPUT_WEIGHT`, at each width, and at the extremes the dot products' bounds allow.
    #[cfg(target_arch = "aarch64")]
    #[test]
    fn neon_loops_match_the_portable_ones() {
        neon_loops_of::<NARROW>();
        neon_loops_of::<WIDE>();
    }

    #[cfg(target_arch = "aarch64")]
    fn neon_loops_of<const H: usize>() {
        let mut random = xorshift(0x5EED_1234);
        let mut cases: Vec<([i16; H], [i16; H])> = (0..200)
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
        for (a, w) in [(QA as i16, MAX_OUTPUT_WEIGHT), (i16::MAX, -MAX_OUTPUT_WEIGHT), (i16::MIN, MAX_OUTPUT_WEIGHT)] {
            cases.push(([a; H], [w; H]));
        }
        for (acc, weights) in &cases {
            assert_eq!(Neon::crelu_dot(acc, weights), Portable::crelu_dot(acc, weights));
            assert_eq!(Neon::screlu_dot(acc, weights), Portable::screlu_dot(acc, weights));
        }
        let extreme = [QA as i16; H];
        let most = (H as i64) * (QA * QA * MAX_OUTPUT_WEIGHT as i32) as i64;
        assert_eq!(Neon::screlu_dot(&extreme, &[MAX_OUTPUT_WEIGHT; H]), most);
        for rows in cases.windows(4) {
            let [a, b, c, d] = [&rows[0].0, &rows[1].0, &rows[2].0, &rows[3].0];
            let (mut neon, mut portable) = ([0; H], [0; H]);
            Neon::update(&mut neon, a, [b], [c]);
            Portable::update(&mut portable, a, [b], [c]);
            assert_eq!(neon, portable);
            Neon::update(&mut neon, a, [b], [c, d]);
            Portable::update(&mut portable, a, [b], [c, d]);
            assert_eq!(neon, portable);
            Neon::update(&mut neon, a, [b, d], [c, b]);
            Portable::update(&mut portable, a, [b, d], [c, b]);
            assert_eq!(neon, portable);
        }
    }

    /// On random networks whose feature weights span most of i16's range (so that the
    /// accumulators wrap and clamp at both ends), every legal move of every suite position gives
    /// the same accumulators on the NEON path as on the portable one, and they evaluate the same
    /// for either side to move with every output bucket.
    #[cfg(target_arch = "aarch64")]
    #[test]
    fn neon_path_matches_the_portable_one() {
        for shape in shapes() {
            for activation in [Activation::CReLU, Activation::SCReLU] {
                let net = random_network_of(Shape { activation, ..shape }, 29);
                let (features, bias, output, output_bias) = net.parts();
                let features: Vec<i16> = features.iter().map(|w| w.wrapping_mul(500)).collect();
                let net = Network::from_parts(*net.shape(), &features, &bias, &output, &output_bias).unwrap();
                by_width!(&net, net => neon_path_of(net));
            }
        }
    }

    #[cfg(target_arch = "aarch64")]
    fn neon_path_of<const H: usize>(net: &Net<H>) {
        let mut caches = [RefreshCache::new(net), RefreshCache::new(net)];
        // Whether any accumulator went far out of the activation's range, where sums of rows
        // this large wrap.
        let (mut far, mut moves) = (false, 0);
        for board in crate::perft::suite_boards() {
            let acc = Accumulator::new(net, &board);
            for &mv in legal_moves(&board).as_slice() {
                let [cache, portable_cache] = &mut caches;
                let (mut neon, mut portable) =
                    (Accumulator { values: [[0; H]; 2] }, Accumulator { values: [[0; H]; 2] });
                acc.play_into_neon(&mut neon, net, &board, mv, cache);
                acc.play_into_portable(&mut portable, net, &board, mv, portable_cache);
                assert_eq!(neon, portable, "{} {mv:?}", board.to_fen());
                for stm in Color::BOTH {
                    for bucket in 0..net.shape.output_buckets {
                        assert_eq!(neon.evaluate_neon(net, stm, bucket), neon.evaluate_portable(net, stm, bucket));
                    }
                }
                far |= neon.values.iter().flatten().any(|&v| v.unsigned_abs() > 30_000);
                moves += 1;
            }
        }
        assert!(far && moves > 3000, "{moves} moves, accumulators far out: {far}");
    }

    /// Random games forward and back, from every suite position (Chess960 castling
    /// included), for each test shape: the accumulators kept up to date move by move, one per
    /// ply on a stack as the search keeps them, null moves included, always equal ones
    /// computed from scratch, and so do the evaluations.
    #[test]
    fn incremental_updates_match_a_refresh() {
        for shape in shapes() {
            by_width!(random_network_of(shape, 7), net => incremental_updates_of(&net));
        }
    }

    fn incremental_updates_of<const H: usize>(net: &Net<H>) {
        let shape = net.shape;
        let mut caches = [RefreshCache::new(net), RefreshCache::new(net)];
        let mut random = xorshift(0x1234_5678);
        let (mut checked, mut refreshes) = (0, 0);
        let mut kinds = [0; 4]; // quiet, capture, castling, promotion
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
                    // Random play seldom castles or walks the king far: take castling half
                    // the time it is legal, and once the side cannot castle, a king move a
                    // third of the time.
                    let us = board.side_to_move();
                    let can_castle = board.castling_rights() & (0b11 << (2 * us.index())) != 0;
                    let is_king = |mv: &&Move| board.piece_at(mv.from()).is_kind(PieceKind::King);
                    let castle = moves.as_slice().iter().find(|mv| mv.is_castle());
                    let king = moves.as_slice().iter().filter(is_king).nth(random(8));
                    let mv = match (castle, king) {
                        (Some(&mv), _) if random(2) == 0 => mv,
                        (_, Some(&mv)) if !can_castle && random(3) == 0 => mv,
                        _ => moves.as_slice()[random(moves.len())],
                    };
                    let kind = [mv.is_capture(), mv.is_castle(), mv.promoted().is_some()];
                    kinds[kind.iter().rposition(|&k| k).map_or(0, |k| k + 1)] += 1;
                    let view = |board: &Board| shape.view(us, board.king_square(us));
                    let before = view(&board);
                    let next = play(net, stack.last().unwrap(), &board, mv, &mut caches);
                    board.make_move(mv);
                    refreshes += (view(&board) != before) as usize;
                    nulls.push(false);
                    stack.push(next);
                }
                check(net, stack.last().unwrap(), &board);
                checked += 1;
            }
        }
        assert!(checked > 10_000, "{checked}");
        assert!(kinds.iter().all(|&n| n > 20), "quiet, capture, castling, promotion: {kinds:?}");
        let expected = if shape.kings == KingBuckets::NONE { 0..=0 } else { 1000..=usize::MAX };
        assert!(expected.contains(&refreshes), "{shape}: {refreshes} refreshes");
    }

    /// Every king step across a boundary of the bucketed test shape (between buckets, and over
    /// the mirror line), by White and by Black, from positions with a few other pieces: the
    /// side whose view changes is refreshed from the cache (which has seen other positions in
    /// that slot before) to exactly its accumulator computed from scratch.
    #[test]
    fn every_king_step_across_a_boundary_refreshes_correctly() {
        for hidden in WIDTHS {
            let shape = bucketed(Shape::plain(hidden, Activation::SCReLU));
            by_width!(random_network_of(shape, 21), net => king_steps_of(&net));
        }
    }

    fn king_steps_of<const H: usize>(net: &Net<H>) {
        let shape = net.shape;
        let mut caches = [RefreshCache::new(net), RefreshCache::new(net)];
        let sq = |name: &str| Square::parse(name).unwrap();
        let distance = |a: Square, b: Square| a.file().abs_diff(b.file()).max(a.rank().abs_diff(b.rank()));
        let others = [("c3", 'N'), ("f6", 'b'), ("b7", 'p'), ("g2", 'P'), ("e4", 'r'), ("d6", 'Q')];
        let boundaries: HashSet<(usize, usize)> = Square::all()
            .flat_map(|from| dir::KING.map(|step| (from, from.offset(step))))
            .filter(|&(_, to)| Square::all().any(|sq| sq == to))
            .filter(|&(from, to)| shape.view(Color::White, from) != shape.view(Color::White, to))
            .map(|(from, to)| (from.index64(), to.index64()))
            .collect();
        // A position with `us` to move and its king on `from`, the other king out of reach and
        // a few other pieces where they let the king step to `to` (none where nothing else does).
        let step = |us: Color, from: Square, to: Square| {
            let kings = ["a1", "h1", "a8", "h8", "d4"].map(sq).into_iter();
            let far = kings.filter(|&k| distance(k, from).min(distance(k, to)) > 1);
            far.flat_map(|their_king| [&others[..], &[]].map(move |others| (their_king, others))).find_map(
                |(their_king, others)| {
                    let mut grid = [' '; 64];
                    let king = |color: Color| if color == Color::White { 'K' } else { 'k' };
                    grid[from.index64()] = king(us);
                    grid[their_king.index64()] = king(!us);
                    for &(name, piece) in others {
                        let at = sq(name);
                        if ![from, to, their_king].contains(&at) {
                            grid[at.index64()] = piece;
                        }
                    }
                    let board = Board::from_fen(&fen_of(&grid, us)).ok()?;
                    if board.is_attacked_by(their_king, us) {
                        return None;
                    }
                    let moves = legal_moves(&board);
                    let &mv = moves.as_slice().iter().find(|mv| mv.from() == from && mv.to() == to)?;
                    Some((board, mv))
                },
            )
        };
        let mut crossed = HashSet::new();
        let mut with_others = 0;
        for us in Color::BOTH {
            for &(own_from, own_to) in &boundaries {
                // The squares as seen from White's side of the board.
                let flip = if us == Color::White { 0 } else { 56 };
                let (from, to) = (Square::from_index64(own_from ^ flip), Square::from_index64(own_to ^ flip));
                let Some((board, mv)) = step(us, from, to) else { continue };
                with_others += (board.piece_count() > 2) as usize;
                let next = play(net, &Accumulator::new(net, &board), &board, mv, &mut caches);
                let mut after = board.clone();
                after.make_move(mv);
                check(net, &next, &after);
                crossed.insert((own_from, own_to));
            }
        }
        assert!(with_others > boundaries.len(), "{with_others} of {}", 2 * boundaries.len());
        assert!(boundaries.len() > 100, "{}", boundaries.len());
        let missed: Vec<_> = boundaries.difference(&crossed).collect();
        assert!(missed.is_empty(), "king steps never tried: {missed:?}");
    }

    /// A FEN of the pieces in `grid` (by 0..63 index, ' ' for none), `stm` to move.
    fn fen_of(grid: &[char; 64], stm: Color) -> String {
        let placement = crate::board::placement(|sq| Some(grid[sq.index64()]).filter(|&c| c != ' '));
        format!("{placement} {} - - 0 1", if stm == Color::White { 'w' } else { 'b' })
    }

    /// The trainer's way in (pieces read from a record) gives the accumulators the search's
    /// (a board) gives.
    #[test]
    fn accumulators_from_pieces_match_the_board() {
        for shape in shapes() {
            let net = random_network_of(shape, 13);
            for board in crate::perft::suite_boards() {
                let pieces = Square::all().map(|sq| (sq, board.piece_at(sq))).filter(|(_, p)| !p.is_empty());
                by_width!(&net, net => assert_eq!(Accumulator::from_pieces(net, pieces), Accumulator::new(net, &board)));
            }
        }
    }

    /// Mirroring the board and swapping colours swaps the two views, so the evaluation, from
    /// the side to move's view, stays the same, over the positions of every perft suite.
    #[test]
    fn evaluation_is_colour_symmetric() {
        let boards = crate::perft::suite_boards();
        for shape in shapes() {
            let net = random_network_of(Shape { activation: Activation::CReLU, ..shape }, 3);
            for board in &boards {
                let score = net.evaluate(board);
                assert_eq!(score, net.evaluate(&board.mirrored()), "{}", board.to_fen());
                assert_ne!(score, 0, "{}", board.to_fen());
            }
        }
    }

    /// The AVX2 dot products give the portable ones' sums at the extremes, where a partial sum
    /// would overflow if one could: every value clamped to QA (or far beyond) against the
    /// largest weights of either sign, at each width.
    #[cfg(target_arch = "x86_64")]
    #[test]
    fn the_largest_sums_agree_on_both_paths() {
        if !std::arch::is_x86_feature_detected!("avx2") {
            return;
        }
        fn extremes<const H: usize>() {
            for weight in [MAX_OUTPUT_WEIGHT, -MAX_OUTPUT_WEIGHT, 1] {
                for value in [QA as i16, i16::MAX, 1, -1, i16::MIN] {
                    let (values, weights) = ([value; H], [weight; H]);
                    let portable = [Portable::crelu_dot(&values, &weights), Portable::screlu_dot(&values, &weights)]
                        .map(|d| 2 * d);
                    // SAFETY: the processor has AVX2, checked above.
                    let avx2 = unsafe {
                        [avx2::dot::<H, false>, avx2::dot::<H, true>].map(|dot| dot([&values; 2], [&weights; 2]))
                    };
                    assert_eq!(avx2, portable, "width {H}, value {value}, weight {weight}");
                }
            }
        }
        extremes::<NARROW>();
        extremes::<WIDE>();
    }

    /// Integer evaluation (both paths) against the formula worked in floating point, with the
    /// output bucket the piece count picks.
    #[test]
    fn evaluation_matches_the_formula() {
        for shape in shapes() {
            for activation in [Activation::CReLU, Activation::SCReLU] {
                by_width!(random_network_of(Shape { activation, ..shape }, 11), net => formula_of(&net));
            }
        }
    }

    fn formula_of<const H: usize>(net: &Net<H>) {
        let (shape, activation) = (net.shape, net.shape.activation);
        for board in crate::perft::suite_boards() {
            let acc = Accumulator::new(net, &board);
            let stm = board.side_to_move();
            let bucket = (board.piece_count() - 2) * shape.output_buckets / 32;
            assert_eq!(net.output_bucket(&board), bucket);
            let mut sum = net.output_bias[bucket] as f64 / (QA * QB) as f64;
            for (side, weights) in [stm, !stm].iter().zip(&net.output_weights[bucket]) {
                for (&a, &w) in acc.values[side.index()].iter().zip(weights) {
                    let h = (a as f64 / QA as f64).clamp(0.0, 1.0);
                    let h = if activation == Activation::SCReLU { h * h } else { h };
                    sum += h * w as f64 / QB as f64;
                }
            }
            let expected = (sum * EVAL_SCALE as f64).clamp(-MAX_EVAL as f64, MAX_EVAL as f64);
            let got = acc.evaluate(net, stm, bucket);
            // Two truncating divisions: less than 1 + 400 / (QA · QB) centipawns.
            let bound = 1.0 + EVAL_SCALE as f64 / (QA * QB) as f64;
            assert!((got as f64 - expected).abs() < bound, "{activation:?}: {got} vs {expected:.4}");
            assert_eq!(acc.evaluate_portable(net, stm, bucket), got, "{activation:?}: the portable path");
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
        assert_eq!((start, without_black_queen, middlegame), (38, 1867, 29));
        assert!(start.abs() < 100 && without_black_queen > 500);
        assert_eq!(*net.shape(), Shape { output_buckets: 8, ..Shape::plain(512, Activation::SCReLU) });
    }

    #[test]
    fn files_round_trip() {
        for shape in shapes() {
            for activation in [Activation::CReLU, Activation::SCReLU] {
                let net = random_network_of(Shape { activation, ..shape }, 5);
                let bytes = net.to_bytes();
                let inputs = shape.kings.count() * 768;
                assert_eq!(bytes.len(), HEADER_SIZE + parameter_bytes(inputs, shape.hidden, shape.output_buckets));
                assert!(Network::from_bytes(&bytes).unwrap() == net);
            }
        }
    }

    /// A file of the format before the shape was recorded (version 2) is the plain shape.
    #[test]
    fn version_2_files_load_as_the_plain_shape() {
        let net = random_network(Activation::CReLU, 17);
        let mut old = MAGIC.to_vec();
        for word in [2, DEFAULT_HIDDEN as u32, Activation::CReLU as u32] {
            old.extend_from_slice(&word.to_le_bytes());
        }
        old.extend_from_slice(&net.to_bytes()[HEADER_SIZE..]);
        assert!(Network::from_bytes(&old).unwrap() == net);
        assert_eq!(Network::from_bytes(&old[..30]).err(), Some(NetError::Truncated { expected: old.len(), got: 30 }));
    }

    #[test]
    fn bad_files_are_refused_with_the_reason() {
        let shape = bucketed(Shape::plain(WIDE, Activation::SCReLU));
        let good = random_network_of(shape, 9).to_bytes();
        let size = good.len();
        let with = |at: usize, value: &[u8]| {
            let mut bytes = good.clone();
            bytes[at..at + value.len()].copy_from_slice(value);
            Network::from_bytes(&bytes).err()
        };
        assert_eq!(with(0, b"SNTLPOS\0"), Some(NetError::BadMagic));
        assert_eq!(Network::from_bytes(b"PK\x03\x04 a zip file").err(), Some(NetError::BadMagic));
        assert_eq!(with(8, &1u32.to_le_bytes()), Some(NetError::Version { found: 1 }));
        // The shape: hidden size, activation, output buckets, mirroring, king buckets.
        for other in [0, 384, 2 * WIDE, u32::MAX as usize] {
            assert_eq!(with(12, &(other as u32).to_le_bytes()), Some(NetError::HiddenSize { found: other }));
        }
        assert_eq!(with(16, &7u32.to_le_bytes()), Some(NetError::Activation { found: 7 }));
        assert_eq!(with(20, &17u32.to_le_bytes()), Some(NetError::OutputBuckets { found: 17 }));
        assert_eq!(with(24, &2u32.to_le_bytes()), Some(NetError::Mirroring { found: 2 }));
        assert_eq!(with(28, &[3]), Some(NetError::AsymmetricKingBuckets { square: Square::A1 }));
        assert_eq!(with(28 + 9, &[7]), Some(NetError::UnusedKingBucket { bucket: 4 }));
        // Another shape this build reads, but not the one the parameters were written for.
        let other = Shape { output_buckets: 4, ..shape }.to_bytes();
        let expected = size - 4 * (2 * WIDE * 2 + 4);
        assert_eq!(with(12, &other), Some(NetError::TooLong { expected, got: size }));
        let index = 5 * 2 * WIDE + 3;
        let weight_at = size - 4 * 8 - 2 * 8 * 2 * WIDE + 2 * index;
        assert_eq!(with(weight_at, &300i16.to_le_bytes()), Some(NetError::OutputWeight { index, value: 300 }));
        let truncated = |len: usize| Network::from_bytes(&good[..len]).err();
        assert_eq!(truncated(size - 1), Some(NetError::Truncated { expected: size, got: size - 1 }));
        assert_eq!(truncated(50), Some(NetError::Truncated { expected: HEADER_SIZE, got: 50 }));
        assert_eq!(truncated(10), Some(NetError::Truncated { expected: HEADER_SIZE, got: 10 }));
        assert_eq!(truncated(0), Some(NetError::Truncated { expected: HEADER_SIZE, got: 0 }));
        let mut long = good.clone();
        long.push(0);
        assert_eq!(Network::from_bytes(&long).err(), Some(NetError::TooLong { expected: size, got: size + 1 }));
        let message = NetError::HiddenSize { found: 1024 }.to_string();
        assert_eq!(message, "network has 1024 hidden neurons; this build reads 256 or 512");
    }
}
