//! The hand-crafted evaluation's weights: one table of (middlegame, endgame) pairs, grouped
//! into named terms, so that the evaluation names what it adds (`Term::PassedPawn`, rank 5)
//! rather than an offset into the table.

use super::params::WEIGHTS;
use super::score::S;
use crate::board::Color;

macro_rules! terms {
    ($($(#[doc = $doc:literal])* $term:ident = $len:expr),* $(,)?) => {
        /// A group of weights, one per case the term distinguishes.
        #[derive(Clone, Copy, Debug, PartialEq, Eq)]
        pub enum Term { $($(#[doc = $doc])* $term),* }

        impl Term {
            const LENGTHS: &[usize] = &[$($len),*];
        }
    };
}

terms! {
    /// By piece kind (index 0 is the pawn).
    Material = 6,
    /// By piece kind and square (kind * 64 + square, from White's side).
    PieceSquare = 6 * 64,
    /// By number of safe squares reached.
    KnightMobility = 9,
    BishopMobility = 14,
    RookMobility = 15,
    QueenMobility = 28,
    /// By relative rank.
    PassedPawn = 8,
    /// By relative rank, when the square in front is free.
    PassedPawnFree = 8,
    /// By relative rank, per square of distance from our king to the square in front.
    PassedPawnOwnKing = 8,
    /// By relative rank, per square of distance from their king to the square in front.
    PassedPawnEnemyKing = 8,
    IsolatedPawn = 1,
    DoubledPawn = 1,
    BackwardPawn = 1,
    /// By relative rank, for a pawn defended by a pawn.
    SupportedPawn = 8,
    /// By relative rank, for a pawn with a pawn beside it.
    PhalanxPawn = 8,
    /// By attacking piece kind, per attacked square of the king zone.
    KingZoneAttack = 6,
    /// By checking piece kind, per square it could check from without being taken.
    SafeCheck = 6,
    /// By distance of our nearest pawn in front of the king, per file around it (0: none).
    PawnShield = 8,
    /// By distance of their nearest pawn in front of our king, per file around it (0: none).
    PawnStorm = 8,
    /// Per file next to the king without our pawns, and without any pawns.
    KingFile = 2,
    BishopPair = 1,
    /// Rook on a file without our pawns, and without any pawns.
    RookFile = 2,
    QueenFile = 2,
    /// Knight and bishop on a square enemy pawns can never attack, defended by a pawn.
    Outpost = 2,
    /// By kind of the piece a pawn attacks.
    ThreatByPawn = 6,
    /// By kind of the piece a knight or bishop attacks.
    ThreatByMinor = 6,
    /// By kind of the piece a rook attacks.
    ThreatByRook = 6,
    /// For the side to move.
    Tempo = 1,
}

/// Where each term's weights start in the table; the last entry is the table's length.
const OFFSETS: [usize; Term::LENGTHS.len() + 1] = {
    let mut offsets = [0; Term::LENGTHS.len() + 1];
    let mut i = 0;
    while i < Term::LENGTHS.len() {
        offsets[i + 1] = offsets[i] + Term::LENGTHS[i];
        i += 1;
    }
    offsets
};

// `params.rs` is a flat table that knows nothing of the terms: its length is checked here.
const _: () = assert!(WEIGHTS.len() == OFFSETS[Term::LENGTHS.len()], "params.rs must hold one weight per term entry");

impl Term {
    #[inline(always)]
    pub fn offset(self) -> usize {
        OFFSETS[self as usize]
    }
}

/// Sums the weights the evaluation uses, White's positive and Black's negative.
#[derive(Default)]
pub struct Scorer(pub S);

impl Scorer {
    /// `count` uses of weight `index` of `term` for `color`.
    #[inline(always)]
    pub fn add(&mut self, color: Color, term: Term, index: usize, count: i32) {
        self.0 += WEIGHTS[term.offset() + index] * (count * color.sign());
    }
}
