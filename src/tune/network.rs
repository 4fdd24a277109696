//! Quantised networks of every shape the trainer makes (`shape`): what `train` writes, and what
//! the tools read (`train --init` and `--compare`, `net-eval`, `datagen --net`). The engine
//! compiles one shape (`eval::nnue`) and reads files of that shape only; this reads both file
//! formats of every shape (version 3, and version 2: the first networks' 20-byte header of
//! magic, version, hidden size and activation, with no king buckets and one output bucket),
//! writes version 3, and evaluates with the engine's integer arithmetic, so that a network of the
//! engine's shape scores here exactly as the engine scores it. It evaluates each position afresh
//! with plain loops: a search with a network of a shape under test (`datagen --net`) runs
//! slower than with the engine's incremental, vectorised code, to the same numbers.

use super::shape::{Activation, Shape, ShapeError};
use crate::board::{Board, Color, Piece, PieceKind, Square};
use crate::eval::nnue::{self, FileShape, HEADER_SIZE, MAGIC, MAX_OUTPUT_WEIGHT, Network, QA, SHAPE_BYTES, VERSION};
use crate::eval::{Evaluation, TrialNetwork};
use std::fmt;
use std::sync::Arc;

/// The format before the header recorded the whole shape.
const VERSION_2: u32 = 2;
const VERSION_2_HEADER: usize = 20;

/// Why a network file was refused.
#[derive(Clone, PartialEq, Eq, Debug)]
pub enum NetFileError {
    BadMagic,
    Version { found: u32 },
    Shape(ShapeError),
    Truncated { expected: usize, got: usize },
    TooLong { expected: usize, got: usize },
    OutputWeight { index: usize, value: i16 },
}

impl fmt::Display for NetFileError {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        match self {
            NetFileError::BadMagic => write!(f, "not a Sentinel network file (bad magic)"),
            NetFileError::Version { found } => {
                write!(f, "network format version {found}; the trainer reads versions {VERSION_2} and {VERSION}")
            }
            NetFileError::Shape(error) => write!(f, "network of a shape the trainer cannot use: {error}"),
            NetFileError::Truncated { expected, got } => {
                write!(f, "network file truncated: expected {expected} bytes, got {got}")
            }
            NetFileError::TooLong { expected, got } => {
                write!(f, "network file too long: expected {expected} bytes, got {got}")
            }
            NetFileError::OutputWeight { index, value } => {
                write!(f, "output weight {index} is {value}, outside ±{MAX_OUTPUT_WEIGHT}")
            }
        }
    }
}

impl std::error::Error for NetFileError {}

/// A quantised network of any shape: the parameters in the order the file stores them.
#[derive(Clone, PartialEq, Eq)]
pub struct QuantisedNet {
    shape: Shape,
    /// One row of `shape.hidden` per input (`shape.inputs()` rows).
    feature_weights: Vec<i16>,
    feature_bias: Vec<i16>,
    /// Per output bucket, the side to move's `shape.hidden` weights, then the other side's.
    output_weights: Vec<i16>,
    output_bias: Vec<i32>,
}

impl fmt::Debug for QuantisedNet {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        write!(f, "QuantisedNet({}, output biases {:?})", self.shape, self.output_bias)
    }
}

/// Bytes of the quantised parameters of a network of `shape`.
fn parameter_bytes(shape: &Shape) -> usize {
    let hidden = shape.hidden;
    2 * (shape.inputs() * hidden + hidden + shape.output_buckets * 2 * hidden) + 4 * shape.output_buckets
}

impl QuantisedNet {
    /// A network from its quantised parameters (see the fields), checked to fit `shape` and
    /// the output weights' bound.
    pub fn from_parts(
        shape: Shape,
        feature_weights: Vec<i16>,
        feature_bias: Vec<i16>,
        output_weights: Vec<i16>,
        output_bias: Vec<i32>,
    ) -> Result<QuantisedNet, NetFileError> {
        let sizes = [
            (feature_weights.len(), shape.inputs() * shape.hidden),
            (feature_bias.len(), shape.hidden),
            (output_weights.len(), shape.output_buckets * 2 * shape.hidden),
            (output_bias.len(), shape.output_buckets),
        ];
        for (got, expected) in sizes {
            if got < expected {
                return Err(NetFileError::Truncated { expected, got });
            } else if got > expected {
                return Err(NetFileError::TooLong { expected, got });
            }
        }
        if let Some((index, &value)) = output_weights.iter().enumerate().find(|(_, w)| w.abs() > MAX_OUTPUT_WEIGHT) {
            return Err(NetFileError::OutputWeight { index, value });
        }
        Ok(QuantisedNet { shape, feature_weights, feature_bias, output_weights, output_bias })
    }

    pub fn shape(&self) -> &Shape {
        &self.shape
    }

    /// The parameters in the order `from_parts` takes them.
    pub fn parts(&self) -> (&[i16], &[i16], &[i16], &[i32]) {
        (&self.feature_weights, &self.feature_bias, &self.output_weights, &self.output_bias)
    }

    /// Reads a network file of version 2 or 3 (see the module comment).
    pub fn from_bytes(bytes: &[u8]) -> Result<QuantisedNet, NetFileError> {
        if bytes.len() >= MAGIC.len() && &bytes[..MAGIC.len()] != MAGIC {
            return Err(NetFileError::BadMagic);
        }
        let word = |at: usize| u32::from_le_bytes([bytes[at], bytes[at + 1], bytes[at + 2], bytes[at + 3]]);
        let header_size = match bytes.len() {
            len if len < 12 => return Err(NetFileError::Truncated { expected: HEADER_SIZE, got: len }),
            _ if word(8) == VERSION_2 => VERSION_2_HEADER,
            _ if word(8) == VERSION => HEADER_SIZE,
            _ => return Err(NetFileError::Version { found: word(8) }),
        };
        if bytes.len() < header_size {
            return Err(NetFileError::Truncated { expected: header_size, got: bytes.len() });
        }
        let file_shape = if header_size == HEADER_SIZE {
            let mut shape = [0; SHAPE_BYTES];
            shape.copy_from_slice(&bytes[12..HEADER_SIZE]);
            FileShape::from_bytes(&shape)
        } else {
            let plain = Shape::plain(1, Activation::SCReLU).to_file();
            FileShape { hidden: word(12), activation: word(16), ..plain }
        };
        // Before any size is worked out from it.
        let shape = Shape::from_file(&file_shape).map_err(NetFileError::Shape)?;
        let size = header_size + parameter_bytes(&shape);
        if bytes.len() < size {
            return Err(NetFileError::Truncated { expected: size, got: bytes.len() });
        }
        if bytes.len() > size {
            return Err(NetFileError::TooLong { expected: size, got: bytes.len() });
        }
        let biases_at = size - 4 * shape.output_buckets;
        let mut words = bytes[header_size..biases_at].chunks_exact(2).map(|b| i16::from_le_bytes([b[0], b[1]]));
        let feature_weights = words.by_ref().take(shape.inputs() * shape.hidden).collect();
        let feature_bias = words.by_ref().take(shape.hidden).collect();
        let output_weights = words.collect();
        let output_bias = (biases_at..size).step_by(4).map(|at| word(at) as i32).collect();
        QuantisedNet::from_parts(shape, feature_weights, feature_bias, output_weights, output_bias)
    }

    /// The network as a version-3 file.
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut bytes = Vec::with_capacity(HEADER_SIZE + parameter_bytes(&self.shape));
        bytes.extend_from_slice(MAGIC);
        bytes.extend_from_slice(&VERSION.to_le_bytes());
        bytes.extend_from_slice(&self.shape.to_file().to_bytes());
        for value in self.feature_weights.iter().chain(&self.feature_bias).chain(&self.output_weights) {
            bytes.extend_from_slice(&value.to_le_bytes());
        }
        for bias in &self.output_bias {
            bytes.extend_from_slice(&bias.to_le_bytes());
        }
        bytes
    }

    /// The network built into the binary.
    pub fn embedded() -> QuantisedNet {
        let bytes = nnue::embedded().to_bytes();
        QuantisedNet::from_bytes(&bytes).expect("the trainer reads the engine's own shape")
    }

    /// What a search plays with: the engine's network when this is of the engine's shape,
    /// else this, as a network under trial.
    pub fn into_evaluation(self) -> Result<Evaluation, String> {
        if self.shape.is_the_engines() {
            return Network::from_bytes(&self.to_bytes()).map(Evaluation::Network).map_err(|e| e.to_string());
        }
        Ok(Evaluation::Trial(Arc::new(self)))
    }

    /// The evaluation of `board` for the side to move, in centipawns.
    pub fn evaluate(&self, board: &Board) -> i32 {
        let pieces = Square::all().map(|sq| (sq, board.piece_at(sq))).filter(|(_, piece)| !piece.is_empty());
        self.evaluate_pieces(pieces, board.side_to_move())
    }

    /// The evaluation for `stm` of a position given as its pieces (as the trainer reads them),
    /// with the output bucket their number picks: the side to move's accumulator and the other
    /// side's computed afresh, and the engine's output layer.
    pub fn evaluate_pieces(&self, pieces: impl IntoIterator<Item = (Square, Piece)>, stm: Color) -> i32 {
        let pieces: Vec<(Square, Piece)> = pieces.into_iter().collect();
        let mut kings = [Square::from_index64(0); 2];
        for &(sq, piece) in pieces.iter().filter(|(_, piece)| piece.is_kind(PieceKind::King)) {
            kings[piece.color().index()] = sq;
        }
        let (hidden, bucket) = (self.shape.hidden, self.shape.output_bucket(pieces.len()));
        let mut sum = 0i64;
        for (side, perspective) in [stm, !stm].into_iter().enumerate() {
            let view = self.shape.view(perspective, kings[perspective.index()]);
            let mut acc = self.feature_bias.clone();
            for &(sq, piece) in &pieces {
                let row = &self.feature_weights[view.index(piece, sq) * hidden..][..hidden];
                acc.iter_mut().zip(row).for_each(|(a, &w)| *a = a.wrapping_add(w));
            }
            let weights = &self.output_weights[(bucket * 2 + side) * hidden..][..hidden];
            for (&a, &w) in acc.iter().zip(weights) {
                let v = a.clamp(0, QA as i16) as i64;
                sum += match self.shape.activation {
                    Activation::CReLU => v * w as i64,
                    Activation::SCReLU => v * v * w as i64,
                };
            }
        }
        if self.shape.activation == Activation::SCReLU {
            sum /= QA as i64;
        }
        nnue::centipawns(sum, self.output_bias[bucket])
    }
}

impl TrialNetwork for QuantisedNet {
    fn evaluate(&self, board: &Board) -> i32 {
        QuantisedNet::evaluate(self, board)
    }
}

/// A network of `shape` with every parameter drawn from a seeded generator, for tests.
#[cfg(test)]
pub fn random_net(shape: Shape, seed: u64) -> QuantisedNet {
    let mut state = seed;
    let mut next = move |range: i32| {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        (state % (2 * range as u64 + 1)) as i32 - range
    };
    let features = (0..shape.inputs() * shape.hidden).map(|_| next(60) as i16).collect();
    let bias = (0..shape.hidden).map(|_| next(100) as i16).collect();
    let output = (0..shape.output_buckets * 2 * shape.hidden).map(|_| next(MAX_OUTPUT_WEIGHT as i32) as i16).collect();
    let output_bias = (0..shape.output_buckets).map(|_| next(3000) * 7).collect();
    QuantisedNet::from_parts(shape, features, bias, output, output_bias).unwrap()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::eval::Evaluator;
    use crate::movegen::legal_moves;
    use crate::tune::shape::quartered;

    /// The shapes the tests try: the plain one at two widths with either activation, and one
    /// with a king bucket boundary of every kind (see `quartered`) and eight outputs.
    fn shapes() -> Vec<Shape> {
        let mut shapes = Vec::new();
        for activation in [Activation::CReLU, Activation::SCReLU] {
            for hidden in [256, 512] {
                let plain = Shape::plain(hidden, activation);
                shapes.extend([plain, Shape { kings: quartered(), output_buckets: 8, ..plain }]);
            }
        }
        shapes
    }

    /// The trainer's evaluation of a network of the engine's shape is the engine's, to the
    /// centipawn, over every perft suite position: the built-in network and a random one whose
    /// accumulators wrap and clamp at both ends, each read plain and mirrored (so the two read
    /// a mirrored file alike).
    #[test]
    fn the_engine_shape_evaluates_as_the_engine_does() {
        let wide = nnue::random_network_with(4, 30_000);
        for network in [nnue::embedded(), nnue::mirrored(&nnue::embedded()), nnue::mirrored(&wide), wide] {
            let net = QuantisedNet::from_bytes(&network.to_bytes()).unwrap();
            assert_eq!(net.to_bytes(), network.to_bytes());
            assert!(net.shape().is_the_engines());
            for board in crate::perft::suite_boards() {
                assert_eq!(net.evaluate(&board), network.evaluate(&board), "{}", board.to_fen());
            }
            let Ok(Evaluation::Network(played)) = net.into_evaluation() else { panic!("not the engine's network") };
            assert_eq!(played.to_bytes(), network.to_bytes());
        }
    }

    /// Every test shape writes and reads back the same network, and the engine refuses the
    /// file of every shape but its own, naming the shape.
    #[test]
    fn files_round_trip_and_only_the_engine_shape_reaches_the_engine() {
        for shape in shapes() {
            let net = random_net(shape, 5);
            let bytes = net.to_bytes();
            assert_eq!(bytes.len(), HEADER_SIZE + parameter_bytes(&shape));
            assert_eq!(QuantisedNet::from_bytes(&bytes).unwrap(), net);
            let refused = Network::from_bytes(&bytes).err();
            assert_eq!(refused, Some(nnue::NetError::Shape { found: shape.to_file() }), "{shape}");
        }
    }

    /// A file of the format before the shape was recorded (version 2) is the plain shape.
    #[test]
    fn version_2_files_load_as_the_plain_shape() {
        let net = random_net(Shape::plain(256, Activation::CReLU), 17);
        let mut old = MAGIC.to_vec();
        for word in [2, 256, nnue::CRELU] {
            old.extend_from_slice(&word.to_le_bytes());
        }
        old.extend_from_slice(&net.to_bytes()[HEADER_SIZE..]);
        assert_eq!(QuantisedNet::from_bytes(&old).unwrap(), net);
        let expected = old.len();
        assert_eq!(QuantisedNet::from_bytes(&old[..30]).err(), Some(NetFileError::Truncated { expected, got: 30 }));
        assert_eq!(Network::from_bytes(&old).err(), Some(nnue::NetError::Version { found: 2 }));
    }

    #[test]
    fn bad_files_are_refused_with_the_reason() {
        let shape = Shape { kings: quartered(), output_buckets: 8, ..Shape::plain(64, Activation::SCReLU) };
        let good = random_net(shape, 9).to_bytes();
        let size = good.len();
        let with = |at: usize, value: &[u8]| {
            let mut bytes = good.clone();
            bytes[at..at + value.len()].copy_from_slice(value);
            QuantisedNet::from_bytes(&bytes).err()
        };
        assert_eq!(with(0, b"SNTLPOS\0"), Some(NetFileError::BadMagic));
        assert_eq!(with(8, &1u32.to_le_bytes()), Some(NetFileError::Version { found: 1 }));
        // The shape: hidden size, activation, output buckets, mirroring, king buckets.
        let shape_error = |error| Some(NetFileError::Shape(error));
        assert_eq!(with(12, &0u32.to_le_bytes()), shape_error(ShapeError::HiddenSize { found: 0 }));
        assert_eq!(with(12, &u32::MAX.to_le_bytes()), shape_error(ShapeError::HiddenSize { found: u32::MAX }));
        assert_eq!(with(16, &7u32.to_le_bytes()), shape_error(ShapeError::Activation { found: 7 }));
        assert_eq!(with(20, &17u32.to_le_bytes()), shape_error(ShapeError::OutputBuckets { found: 17 }));
        assert_eq!(with(24, &2u32.to_le_bytes()), shape_error(ShapeError::Mirroring { found: 2 }));
        assert_eq!(with(28, &[3]), shape_error(ShapeError::AsymmetricKingBuckets { square: Square::A1 }));
        assert_eq!(with(28 + 9, &[7]), shape_error(ShapeError::UnusedKingBucket { bucket: 4 }));
        // Another shape, but not the one the parameters were written for.
        let other = Shape { output_buckets: 4, ..shape }.to_file().to_bytes();
        let expected = size - 4 * (2 * 64 * 2 + 4);
        assert_eq!(with(12, &other), Some(NetFileError::TooLong { expected, got: size }));
        let index = 5 * 2 * 64 + 3;
        let weight_at = size - 4 * 8 - 2 * 8 * 2 * 64 + 2 * index;
        assert_eq!(with(weight_at, &300i16.to_le_bytes()), Some(NetFileError::OutputWeight { index, value: 300 }));
        let truncated = |len: usize| QuantisedNet::from_bytes(&good[..len]).err();
        assert_eq!(truncated(size - 1), Some(NetFileError::Truncated { expected: size, got: size - 1 }));
        assert_eq!(truncated(50), Some(NetFileError::Truncated { expected: HEADER_SIZE, got: 50 }));
        assert_eq!(truncated(0), Some(NetFileError::Truncated { expected: HEADER_SIZE, got: 0 }));
        let message = NetFileError::Shape(ShapeError::HiddenSize { found: 5000 }).to_string();
        assert_eq!(
            message,
            "network of a shape the trainer cannot use: 5000 hidden neurons; the trainer takes 1 to 4096"
        );
    }

    /// Mirroring the board and swapping colours swaps the two views, so the evaluation, from
    /// the side to move's view, stays the same, for every test shape (king buckets and the
    /// mirror line included) over the positions of every perft suite.
    #[test]
    fn evaluation_is_colour_symmetric() {
        let boards = crate::perft::suite_boards();
        for shape in shapes() {
            let net = random_net(shape, 3);
            for board in &boards {
                let score = net.evaluate(board);
                assert_eq!(score, net.evaluate(&board.mirrored()), "{shape}: {}", board.to_fen());
            }
        }
    }

    /// A search's evaluator takes a network under trial and scores each position of a line as
    /// the network does (scaled in the endings the engine scales).
    #[test]
    fn a_trial_network_evaluates_along_the_line() {
        let shape = Shape { kings: quartered(), output_buckets: 8, ..Shape::plain(64, Activation::CReLU) };
        let net = random_net(shape, 12);
        let evaluation = net.clone().into_evaluation().unwrap();
        assert!(matches!(evaluation, Evaluation::Trial(_)));
        let mut board = Board::from_fen("8/4k3/8/3n4/8/3N4/4K3/8 w - - 0 1").unwrap();
        let mut evaluator = Evaluator::new(&evaluation);
        evaluator.start(&evaluation, &board);
        for step in 0..20 {
            let expected = crate::eval::scale_network(&board, net.evaluate(&board));
            assert_eq!(evaluator.evaluate(&board), expected, "step {step}");
            let mv = legal_moves(&board).as_slice()[step % 3];
            evaluator.push(&board, mv);
            board.make_move(mv);
        }
    }
}
