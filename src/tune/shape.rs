//! The shapes of network the trainer makes, in one place: which inputs a position sets (piece
//! and square, seen from a side whose king's square picks a bucket of inputs and may mirror the
//! board), how wide the hidden layer is, how many output buckets there are and the activation.
//! The engine compiles one of them (`Shape::engine`), which it reads plain or mirrored
//! (`Shape::is_the_engines`); the others are shapes under test, which
//! the trainer trains, quantises, writes and reads (`network`), and plays with in `datagen`.
//! Training, the quantised networks and both file formats (networks and checkpoints) take the
//! shape from here, so that another shape is another value of `Shape` rather than an edit in
//! each of them.

use crate::board::{Color, Piece, Square};
use crate::eval::nnue::{self, CRELU, FileShape, SCRELU};
use std::fmt;

/// Inputs of one king bucket: the engine's input block.
pub const PIECE_INPUTS: usize = nnue::INPUTS;
/// Most output buckets a network may have: a bucket per two pieces on the board.
pub const MAX_OUTPUT_BUCKETS: usize = 16;
/// The largest hidden layer the trainer takes (a file's or a checkpoint's size is checked
/// against it before anything is allocated).
pub const MAX_HIDDEN: usize = 4096;

/// Why a stored shape is not one the trainer can use.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum ShapeError {
    HiddenSize { found: u32 },
    Activation { found: u32 },
    OutputBuckets { found: u32 },
    Mirroring { found: u32 },
    UnusedKingBucket { bucket: usize },
    AsymmetricKingBuckets { square: Square },
}

impl fmt::Display for ShapeError {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        match *self {
            ShapeError::HiddenSize { found } => {
                write!(f, "{found} hidden neurons; the trainer takes 1 to {MAX_HIDDEN}")
            }
            ShapeError::Activation { found } => write!(f, "unknown activation code {found} (0 CReLU, 1 SCReLU)"),
            ShapeError::OutputBuckets { found } => {
                write!(f, "{found} output buckets; the trainer takes 1 to {MAX_OUTPUT_BUCKETS}")
            }
            ShapeError::Mirroring { found } => write!(f, "unknown king mirroring code {found} (0 none, 1 horizontal)"),
            ShapeError::UnusedKingBucket { bucket } => {
                write!(f, "king bucket {bucket} is on no square (buckets are numbered from 0 without gaps)")
            }
            ShapeError::AsymmetricKingBuckets { square } => {
                write!(f, "king buckets are mirrored but {square} is not in its mirror square's bucket")
            }
        }
    }
}

impl std::error::Error for ShapeError {}

/// How a hidden neuron's value is squashed before the output layer.
#[derive(Clone, Copy, PartialEq, Eq, Debug, clap::ValueEnum)]
pub enum Activation {
    /// Clipped ReLU: clamp to [0, 1].
    #[value(name = "crelu")]
    CReLU,
    /// Squared clipped ReLU: clamp to [0, 1], then square.
    #[value(name = "screlu")]
    SCReLU,
}

impl Activation {
    fn from_code(code: u32) -> Option<Activation> {
        match code {
            CRELU => Some(Activation::CReLU),
            SCRELU => Some(Activation::SCReLU),
            _ => None,
        }
    }

    fn code(self) -> u32 {
        match self {
            Activation::CReLU => CRELU,
            Activation::SCReLU => SCRELU,
        }
    }
}

/// Which set of inputs a side's king square selects. Each bucket is a full set of
/// `PIECE_INPUTS`; with mirroring, a king on files e-h sees the board reflected so that it
/// stands on files a-d, which halves the squares the buckets have to tell apart.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct KingBuckets {
    /// The bucket of each square (a1 = 0) the king stands on, seen from its own side (ranks
    /// flipped for Black). With mirroring, files e-h repeat their mirror squares' buckets.
    map: [u8; 64],
    mirrored: bool,
    count: u8,
}

impl KingBuckets {
    /// One bucket, no mirroring: the inputs do not depend on the king.
    pub const NONE: KingBuckets = KingBuckets { map: [0; 64], mirrored: false, count: 1 };
    /// One bucket, mirrored: the board reflected for a king on files e-h, and nothing more.
    pub const MIRRORED: KingBuckets = KingBuckets { map: [0; 64], mirrored: true, count: 1 };

    /// Buckets numbered from 0 without gaps (an unused bucket would be weights no position
    /// trains), symmetric between the halves of the board when `mirrored`.
    pub fn new(map: [u8; 64], mirrored: bool) -> Result<KingBuckets, ShapeError> {
        let count = map.iter().max().map_or(0, |&max| max as usize + 1);
        if let Some(bucket) = (0..count).find(|&b| !map.contains(&(b as u8))) {
            return Err(ShapeError::UnusedKingBucket { bucket });
        }
        if mirrored && let Some(sq) = (0..64).find(|&sq| map[sq] != map[sq ^ 7]) {
            return Err(ShapeError::AsymmetricKingBuckets { square: Square::from_index64(sq) });
        }
        Ok(KingBuckets { map, mirrored, count: count as u8 })
    }

    pub fn count(&self) -> usize {
        self.count as usize
    }

    /// How `perspective` sees the board with its king on `king`.
    #[inline(always)]
    pub fn view(&self, perspective: Color, king: Square) -> View {
        let vertical = if perspective == Color::White { 0 } else { 56 };
        let own = king.index64() ^ vertical;
        let horizontal = if self.mirrored && own % 8 >= 4 { 7 } else { 0 };
        View { perspective, bucket: self.map[own], flip: (vertical ^ horizontal) as u8 }
    }
}

/// One side's way of turning pieces into inputs, fixed by where its king stands.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct View {
    perspective: Color,
    bucket: u8,
    /// XORed into a square's 0..63 index: 56 turns the board round for Black, 7 mirrors it.
    flip: u8,
}

impl View {
    /// The input `piece` on `sq` sets: the bucket's block, then own or enemy piece, kind and
    /// square as this side sees it.
    #[inline(always)]
    pub fn index(self, piece: Piece, sq: Square) -> usize {
        let square = sq.index64() ^ self.flip as usize;
        self.bucket as usize * PIECE_INPUTS + nnue::input_index(self.perspective, piece, square)
    }
}

/// Everything that tells one network's layout from another's.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct Shape {
    pub kings: KingBuckets,
    pub hidden: usize,
    /// Sets of output weights, chosen by the number of pieces on the board (1: no choice).
    pub output_buckets: usize,
    pub activation: Activation,
}

impl Shape {
    /// The simplest shape: inputs that do not depend on the king, one output.
    pub fn plain(hidden: usize, activation: Activation) -> Shape {
        Shape { kings: KingBuckets::NONE, hidden, output_buckets: 1, activation }
    }

    /// The one shape the engine compiles (`nnue::FileShape::ENGINE`).
    pub fn engine() -> Shape {
        Shape { output_buckets: nnue::OUTPUT_BUCKETS, ..Shape::plain(nnue::HIDDEN, Activation::SCReLU) }
    }

    /// Whether the engine plays networks of this shape: its own, read plain or mirrored
    /// (`nnue::FileShape::ENGINE_MIRRORED`).
    pub fn is_the_engines(&self) -> bool {
        *self == Shape::engine() || *self == Shape { kings: KingBuckets::MIRRORED, ..Shape::engine() }
    }

    /// Inputs per side: a block of `PIECE_INPUTS` per king bucket.
    pub fn inputs(&self) -> usize {
        self.kings.count() * PIECE_INPUTS
    }

    #[inline(always)]
    pub fn view(&self, perspective: Color, king: Square) -> View {
        self.kings.view(perspective, king)
    }

    /// The output bucket of a position with `pieces` pieces (kings included): the range from
    /// 2 to 32 pieces split evenly, so that 8 buckets are 2-5, 6-9, ..., 30-32 pieces.
    #[inline(always)]
    pub fn output_bucket(&self, pieces: usize) -> usize {
        nnue::output_bucket(pieces, self.output_buckets)
    }

    /// The shape as a file header stores it.
    pub fn to_file(self) -> FileShape {
        FileShape {
            hidden: self.hidden as u32,
            activation: self.activation.code(),
            output_buckets: self.output_buckets as u32,
            mirroring: self.kings.mirrored as u32,
            king_buckets: self.kings.map,
        }
    }

    /// The shape a file header stores, or why the trainer cannot use it.
    pub fn from_file(file: &FileShape) -> Result<Shape, ShapeError> {
        if !(1..=MAX_HIDDEN as u32).contains(&file.hidden) {
            return Err(ShapeError::HiddenSize { found: file.hidden });
        }
        let activation =
            Activation::from_code(file.activation).ok_or(ShapeError::Activation { found: file.activation })?;
        if !(1..=MAX_OUTPUT_BUCKETS as u32).contains(&file.output_buckets) {
            return Err(ShapeError::OutputBuckets { found: file.output_buckets });
        }
        let mirrored = match file.mirroring {
            0 => false,
            1 => true,
            found => return Err(ShapeError::Mirroring { found }),
        };
        let kings = KingBuckets::new(file.king_buckets, mirrored)?;
        Ok(Shape { kings, hidden: file.hidden as usize, output_buckets: file.output_buckets as usize, activation })
    }
}

/// The shape in the words the engine's errors use (`FileShape`'s).
impl fmt::Display for Shape {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        self.to_file().fmt(f)
    }
}

#[cfg(test)]
/// Four buckets, mirrored: ranks 1-2 or 3-8 of the king's side, files a-b or c-d. A test shape
/// with a boundary of every kind (between ranks, between files, the mirror line).
pub fn quartered() -> KingBuckets {
    let map = std::array::from_fn(|sq| ((sq / 8 >= 2) as u8) * 2 + ((sq % 8) / 2 % 3 == 0) as u8);
    KingBuckets::new(map, true).unwrap()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::board::PieceKind;

    #[test]
    fn views_flip_for_black_and_mirror_past_the_d_file() {
        let kings = quartered();
        assert_eq!(kings.count(), 4);
        let white_pawn = Piece::new(Color::White, PieceKind::Pawn);
        let e2 = Square::parse("e2").unwrap();
        let at = |color, king| kings.view(color, Square::parse(king).unwrap());
        // White king on b1: bucket 1 (files a-b), no mirroring: e2 is square 12 of bucket 1.
        assert_eq!(at(Color::White, "b1").index(white_pawn, e2), 768 + 12);
        // White king on g1: the board mirrored, e2 reads as d2; g1 reads as b1, bucket 1.
        assert_eq!(at(Color::White, "g1").index(white_pawn, e2), 768 + 11);
        // Black king on c6: its own view is c3, bucket 2; e2 is an enemy pawn on e7.
        assert_eq!(at(Color::Black, "c6").index(white_pawn, e2), 2 * 768 + 384 + 52);
        // Black king on f8: own view f1, mirrored to c1, bucket 0; e2 turns to e7, then d7.
        assert_eq!(at(Color::Black, "f8").index(white_pawn, e2), 384 + 51);
        assert_ne!(at(Color::White, "d1"), at(Color::White, "e1"));
        assert_eq!(at(Color::White, "a1"), at(Color::White, "b2"));
    }

    #[test]
    fn without_buckets_the_inputs_ignore_the_king() {
        let plain = Shape::plain(256, Activation::SCReLU);
        let black_king = Piece::new(Color::Black, PieceKind::King);
        let e8 = Square::parse("e8").unwrap();
        for king in Square::all() {
            assert_eq!(plain.view(Color::White, king).index(black_king, e8), 384 + 5 * 64 + 60);
            assert_eq!(plain.view(Color::Black, king).index(black_king, e8), 5 * 64 + 4);
        }
        assert_eq!(plain.inputs(), 768);
    }

    #[test]
    fn output_buckets_split_the_piece_counts_evenly() {
        let eight = Shape { output_buckets: 8, ..Shape::plain(256, Activation::SCReLU) };
        let buckets: Vec<usize> = (2..=32).map(|pieces| eight.output_bucket(pieces)).collect();
        let expected: Vec<usize> = (2..=32).map(|pieces| (pieces - 2) / 4).collect();
        assert_eq!(buckets, expected);
        assert_eq!(eight.output_bucket(40), 7);
        assert!((2..=32).all(|pieces| Shape::plain(256, Activation::CReLU).output_bucket(pieces) == 0));
    }

    #[test]
    fn shapes_round_trip_and_bad_ones_say_why() {
        let shape = Shape { kings: quartered(), hidden: 512, output_buckets: 8, activation: Activation::CReLU };
        assert_eq!(Shape::from_file(&shape.to_file()), Ok(shape));
        assert_eq!(Shape::engine().to_file(), FileShape::ENGINE);
        let file = shape.to_file();
        let with = |file: FileShape| Shape::from_file(&file).err();
        assert_eq!(with(FileShape { hidden: 0, ..file }), Some(ShapeError::HiddenSize { found: 0 }));
        assert_eq!(with(FileShape { hidden: 4097, ..file }), Some(ShapeError::HiddenSize { found: 4097 }));
        assert_eq!(with(FileShape { activation: 2, ..file }), Some(ShapeError::Activation { found: 2 }));
        assert_eq!(with(FileShape { output_buckets: 0, ..file }), Some(ShapeError::OutputBuckets { found: 0 }));
        assert_eq!(with(FileShape { output_buckets: 17, ..file }), Some(ShapeError::OutputBuckets { found: 17 }));
        assert_eq!(with(FileShape { mirroring: 2, ..file }), Some(ShapeError::Mirroring { found: 2 }));
        let mut gap = [0; 64];
        gap[10] = 2;
        assert_eq!(KingBuckets::new(gap, false), Err(ShapeError::UnusedKingBucket { bucket: 1 }));
        let mut lopsided = [0; 64];
        lopsided[6] = 1;
        let b1 = Square::parse("b1").unwrap();
        assert_eq!(KingBuckets::new(lopsided, true), Err(ShapeError::AsymmetricKingBuckets { square: b1 }));
        assert!(KingBuckets::new(lopsided, false).is_ok());
    }
}
