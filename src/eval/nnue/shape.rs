//! The network's shape in one place: which inputs a position sets (piece and square, seen from
//! a side whose king's square picks a bucket of inputs and may mirror the board), how wide the
//! hidden layer is, how many output buckets there are and the activation. Inference, the
//! trainer and both file formats (networks and checkpoints) take the shape from here, so that a
//! network of another shape is another value of `Shape` rather than an edit in each of them.

use super::NetError;
use crate::board::{Color, Piece, Square};
use std::fmt;

/// Inputs of one king bucket: 2 sides × 6 kinds × 64 squares.
pub const PIECE_INPUTS: usize = 768;
/// Most king buckets a network may have: one per square.
pub const MAX_KING_BUCKETS: usize = 64;
/// Most output buckets a network may have: a bucket per two pieces on the board.
pub const MAX_OUTPUT_BUCKETS: usize = 16;
/// Bytes of a shape in a file header (see `Shape::to_bytes`).
pub const SHAPE_BYTES: usize = 16 + 64;

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
    pub(super) fn from_code(code: u32) -> Option<Activation> {
        match code {
            0 => Some(Activation::CReLU),
            1 => Some(Activation::SCReLU),
            _ => None,
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

    /// Buckets numbered from 0 without gaps (an unused bucket would be weights no position
    /// trains), symmetric between the halves of the board when `mirrored`.
    pub fn new(map: [u8; 64], mirrored: bool) -> Result<KingBuckets, NetError> {
        let count = map.iter().max().map_or(0, |&max| max as usize + 1);
        if let Some(bucket) = (0..count).find(|&b| !map.contains(&(b as u8))) {
            return Err(NetError::UnusedKingBucket { bucket });
        }
        if mirrored && let Some(sq) = (0..64).find(|&sq| map[sq] != map[sq ^ 7]) {
            return Err(NetError::AsymmetricKingBuckets { square: Square::from_index64(sq) });
        }
        Ok(KingBuckets { map, mirrored, count: count as u8 })
    }

    pub fn count(&self) -> usize {
        self.count as usize
    }

    /// Whether where the king stands matters at all: with one bucket and no mirroring (the
    /// built-in network), no move ever refreshes and the view is the side's alone.
    #[inline(always)]
    pub fn matter(&self) -> bool {
        self.count > 1 || self.mirrored
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

/// One side's way of turning pieces into inputs, fixed by where its king stands: a move that
/// changes it (the king crossing into another bucket or over the mirror line) changes the
/// meaning of every input of that side, so its accumulator must be refreshed.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct View {
    perspective: Color,
    bucket: u8,
    /// XORed into a square's 0..63 index: 56 turns the board round for Black, 7 mirrors it.
    flip: u8,
}

impl View {
    /// The view of a side whose king does not matter: the board turned round for Black.
    #[inline(always)]
    pub fn unbucketed(perspective: Color) -> View {
        View { perspective, bucket: 0, flip: if perspective == Color::White { 0 } else { 56 } }
    }

    pub fn perspective(self) -> Color {
        self.perspective
    }

    /// The input `piece` on `sq` sets: the bucket's block, then own or enemy piece, kind and
    /// square as this side sees it.
    #[inline(always)]
    pub fn index(self, piece: Piece, sq: Square) -> usize {
        let side = (piece.color() != self.perspective) as usize;
        let square = sq.index64() ^ self.flip as usize;
        self.bucket as usize * PIECE_INPUTS + side * 384 + (piece.kind().index() - 1) * 64 + square
    }

    /// Which of its side's `2 × buckets` refresh slots this view uses: one per bucket and half
    /// of the board.
    #[inline(always)]
    pub fn slot(self) -> usize {
        self.bucket as usize * 2 + (self.flip & 7 != 0) as usize
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
        (pieces.saturating_sub(2) * self.output_buckets / 32).min(self.output_buckets - 1)
    }

    /// The shape as a file header stores it (little-endian): hidden size (u32), activation
    /// (u32: 0 CReLU, 1 SCReLU), output buckets (u32), mirroring (u32: 0 none, 1 a king on
    /// files e-h mirrors the board), then the king bucket of each square, a1 to h8 from the
    /// king's own side, one byte each.
    #[cfg(any(test, feature = "tune"))]
    pub fn to_bytes(self) -> [u8; SHAPE_BYTES] {
        let mut bytes = [0; SHAPE_BYTES];
        let words =
            [self.hidden as u32, self.activation as u32, self.output_buckets as u32, self.kings.mirrored as u32];
        for (slot, word) in bytes.chunks_exact_mut(4).zip(words) {
            slot.copy_from_slice(&word.to_le_bytes());
        }
        bytes[16..].copy_from_slice(&self.kings.map);
        bytes
    }

    /// A shape stored by `to_bytes`, or what is wrong with it (the hidden size is the
    /// reader's to check: inference has one, the trainer any).
    pub fn from_bytes(bytes: &[u8; SHAPE_BYTES]) -> Result<Shape, NetError> {
        let word = |at: usize| u32::from_le_bytes([bytes[at], bytes[at + 1], bytes[at + 2], bytes[at + 3]]);
        let (hidden, activation, outputs, mirroring) = (word(0), word(4), word(8), word(12));
        let activation = Activation::from_code(activation).ok_or(NetError::Activation { found: activation })?;
        if !(1..=MAX_OUTPUT_BUCKETS as u32).contains(&outputs) {
            return Err(NetError::OutputBuckets { found: outputs });
        }
        let mirrored = match mirroring {
            0 => false,
            1 => true,
            found => return Err(NetError::Mirroring { found }),
        };
        let mut map = [0; 64];
        map.copy_from_slice(&bytes[16..]);
        let kings = KingBuckets::new(map, mirrored)?;
        Ok(Shape { kings, hidden: hidden as usize, output_buckets: outputs as usize, activation })
    }
}

impl fmt::Display for Shape {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        let mirrored = if self.kings.mirrored { ", mirrored" } else { "" };
        write!(
            f,
            "{PIECE_INPUTS} inputs x {} king buckets{mirrored} -> {} hidden, {:?} -> {} output buckets",
            self.kings.count(),
            self.hidden,
            self.activation,
            self.output_buckets
        )
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
        assert_ne!(at(Color::White, "d1").slot(), at(Color::White, "e1").slot());
        assert_eq!(at(Color::White, "a1").slot(), at(Color::White, "b2").slot());
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
        assert_eq!(Shape::from_bytes(&shape.to_bytes()), Ok(shape));
        let with = |at: usize, value: u32| {
            let mut bytes = shape.to_bytes();
            bytes[at..at + 4].copy_from_slice(&value.to_le_bytes());
            Shape::from_bytes(&bytes).err()
        };
        assert_eq!(with(4, 2), Some(NetError::Activation { found: 2 }));
        assert_eq!(with(8, 0), Some(NetError::OutputBuckets { found: 0 }));
        assert_eq!(with(8, 17), Some(NetError::OutputBuckets { found: 17 }));
        assert_eq!(with(12, 2), Some(NetError::Mirroring { found: 2 }));
        let mut gap = [0; 64];
        gap[10] = 2;
        assert_eq!(KingBuckets::new(gap, false), Err(NetError::UnusedKingBucket { bucket: 1 }));
        let mut lopsided = [0; 64];
        lopsided[6] = 1;
        let b1 = Square::parse("b1").unwrap();
        assert_eq!(KingBuckets::new(lopsided, true), Err(NetError::AsymmetricKingBuckets { square: b1 }));
        assert!(KingBuckets::new(lopsided, false).is_ok());
    }
}
