//! The compact move: 16 bits, as a transposition table wants it.
//!
//! Bits 0-5 hold the origin and bits 6-11 the destination (0 = a1 .. 63 = h8), bits 12-15 a
//! flag that says what kind of move it is, so make/unmake never has to rediscover it.

use super::types::{PieceKind, Square};
use std::fmt;

#[derive(Clone, Copy, PartialEq, Eq, Debug, Default, Hash)]
pub struct Move(u16);

pub mod flag {
    pub const QUIET: u16 = 0;
    pub const DOUBLE_PUSH: u16 = 1;
    pub const KING_CASTLE: u16 = 2;
    pub const QUEEN_CASTLE: u16 = 3;
    pub const CAPTURE: u16 = 4;
    pub const EN_PASSANT: u16 = 5;
    /// Promotions are 8 + (promoted kind - Knight); add CAPTURE for a capturing promotion.
    pub const PROMOTION: u16 = 8;
}

impl Move {
    /// The null move: never legal, used for "no move" in tables and for null-move search.
    pub const NONE: Move = Move(0);

    #[inline]
    pub fn new(from: Square, to: Square, flag: u16) -> Move {
        Move(from.index64() as u16 | (to.index64() as u16) << 6 | flag << 12)
    }

    #[inline]
    pub fn promotion(from: Square, to: Square, kind: PieceKind, capture: bool) -> Move {
        let capture_flag = if capture { flag::CAPTURE } else { 0 };
        Move::new(from, to, flag::PROMOTION | capture_flag | (kind as u16 - PieceKind::Knight as u16))
    }

    #[inline]
    pub fn from(self) -> Square {
        MAILBOX[(self.0 & 63) as usize]
    }

    #[inline]
    pub fn to(self) -> Square {
        MAILBOX[(self.0 >> 6 & 63) as usize]
    }

    /// The origin as an 8x8 index (`Square::index64`), read straight from the move's bits:
    /// tables by square index need no round trip through the mailbox.
    #[inline]
    pub fn from64(self) -> usize {
        (self.0 & 63) as usize
    }

    /// The destination as an 8x8 index (see `from64`).
    #[inline]
    pub fn to64(self) -> usize {
        (self.0 >> 6 & 63) as usize
    }

    #[inline]
    pub fn flag(self) -> u16 {
        self.0 >> 12
    }

    #[inline]
    pub fn is_capture(self) -> bool {
        self.flag() & flag::CAPTURE != 0
    }

    #[inline]
    pub fn is_promotion(self) -> bool {
        self.flag() & flag::PROMOTION != 0
    }

    #[inline]
    pub fn is_castle(self) -> bool {
        matches!(self.flag(), flag::KING_CASTLE | flag::QUEEN_CASTLE)
    }

    #[inline]
    pub fn is_king_side_castle(self) -> bool {
        self.flag() == flag::KING_CASTLE
    }

    #[inline]
    pub fn is_en_passant(self) -> bool {
        self.flag() == flag::EN_PASSANT
    }

    /// Captures and queen promotions: the moves that change material.
    #[inline]
    pub fn is_noisy(self) -> bool {
        self.is_capture() || self.promoted() == Some(PieceKind::Queen)
    }

    #[inline]
    pub fn promoted(self) -> Option<PieceKind> {
        if self.is_promotion() {
            Some(PieceKind::ALL[(PieceKind::Knight as usize - 1) + (self.flag() & 3) as usize])
        } else {
            None
        }
    }

    pub fn raw(self) -> u16 {
        self.0
    }

    pub fn from_raw(raw: u16) -> Move {
        Move(raw)
    }
}

/// The mailbox square of each 0..64 index: make and unmake decode two per move, and a lookup
/// is cheaper than the arithmetic.
static MAILBOX: [Square; 64] = {
    let mut table = [Square::NONE; 64];
    let mut i = 0;
    while i < 64 {
        table[i] = Square::from_index64(i);
        i += 1;
    }
    table
};

/// Coordinate notation: `e2e4`, `e7e8q`, castling as the king's move (`e1g1`).
impl fmt::Display for Move {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        if *self == Move::NONE {
            return write!(f, "0000");
        }
        write!(f, "{}{}", self.from(), self.to())?;
        if let Some(kind) = self.promoted() {
            write!(f, "{}", kind.letter())?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fields_round_trip() {
        let e7 = Square::parse("e7").unwrap();
        let d8 = Square::parse("d8").unwrap();
        for kind in [PieceKind::Knight, PieceKind::Bishop, PieceKind::Rook, PieceKind::Queen] {
            let m = Move::promotion(e7, d8, kind, true);
            assert_eq!((m.from(), m.to(), m.promoted()), (e7, d8, Some(kind)));
            assert_eq!((m.from64(), m.to64()), (e7.index64(), d8.index64()));
            assert!(m.is_capture() && !m.is_castle() && !m.is_en_passant());
            assert_eq!(m.to_string(), format!("e7d8{}", kind.letter()));
        }
        let castle = Move::new(Square::E1, Square::parse("g1").unwrap(), flag::KING_CASTLE);
        assert!(castle.is_castle() && !castle.is_capture() && castle.promoted().is_none());
        assert_eq!(castle.to_string(), "e1g1");
        assert_eq!(Move::NONE.to_string(), "0000");
    }
}
