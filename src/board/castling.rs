//! Castling, for standard chess and Chess960 alike: which rook each right belongs to, where king
//! and rook land, which squares must be empty and which the king must cross unattacked, which
//! rights a move from or to a square takes away, and the rights' share of the Zobrist key.
//!
//! One table per position, built when the FEN is read, so the FEN reader and writer, make and
//! unmake and the move generator all read the same squares, and a Chess960 start position
//! needs no code of its own. A castling move is encoded as the king's move to its landing
//! square (g- or c-file) with a castling flag; the rook's square comes from this table.

use super::types::{Color, Square, SquareMap, SquareSet};
use super::zobrist::KEYS;

/// Castling rights are a bit set (`Board::castling_rights`): bit `right_index(color, side)` for
/// each right, White's king side first. This gives a right's index.
#[inline]
pub const fn right_index(color: Color, king_side: bool) -> usize {
    2 * color as usize + if king_side { 0 } else { 1 }
}

/// The most squares a castling move needs empty, or the king crosses (b1 to g1 in Chess960).
const MAX_PATH: usize = 7;

/// A short list of squares.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Path {
    squares: [Square; MAX_PATH],
    len: u8,
}

impl Path {
    const EMPTY: Path = Path { squares: [Square::NONE; MAX_PATH], len: 0 };

    fn as_slice(&self) -> &[Square] {
        &self.squares[..self.len as usize]
    }

    /// Every square from `a` to `b` on one rank, both included, skipping those in `except`.
    fn between(a: Square, b: Square, except: [Square; 2]) -> Path {
        let mut path = Path::EMPTY;
        let (low, high) = if a.0 <= b.0 { (a.0, b.0) } else { (b.0, a.0) };
        for sq in (low..=high).map(Square) {
            if !except.contains(&sq) {
                path.squares[path.len as usize] = sq;
                path.len += 1;
            }
        }
        path
    }
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Castling {
    /// By right index: the rook's home square (`Square::NONE` for a right the game never had).
    rook_from: [Square; 4],
    /// By colour: the king's home square.
    king_from: [Square; 2],
    /// By right index: squares that must be empty besides the king's and rook's own, as a set
    /// (one AND with the occupied squares tells whether they are).
    must_be_empty: [SquareSet; 4],
    /// By right index: squares the king crosses or lands on, which must not be attacked (its
    /// start square is known to be safe: no one castles out of check).
    king_path: [Path; 4],
    /// By right index: whether the rook stands where it might shield one of those squares from
    /// an attacker along the rank (only in Chess960, where it may start inside the board).
    rook_may_shield: [bool; 4],
    /// The rights that survive a move from or to each square.
    kept: SquareMap<u8>,
    /// Zobrist key of each set of rights.
    keys: [u64; 16],
}

impl Castling {
    /// No castling rights at all.
    pub fn none() -> Castling {
        Castling {
            rook_from: [Square::NONE; 4],
            king_from: [Square::NONE; 2],
            must_be_empty: [SquareSet::EMPTY; 4],
            king_path: [Path::EMPTY; 4],
            rook_may_shield: [false; 4],
            kept: SquareMap::filled(0b1111),
            keys: KEYS.castling,
        }
    }

    /// Adds the right `index` for a king on `king` and a rook on `rook` (same back rank).
    pub fn add(&mut self, index: usize, king: Square, rook: Square) {
        let color = if index < 2 { Color::White } else { Color::Black };
        let (king_to, rook_to) = Castling::landing(color, index & 1 == 0);
        self.rook_from[index] = rook;
        self.king_from[color.index()] = king;
        let mut empty = Path::between(king, king_to, [king, rook]);
        for &sq in Path::between(rook, rook_to, [king, rook]).as_slice() {
            if !empty.as_slice().contains(&sq) {
                empty.squares[empty.len as usize] = sq;
                empty.len += 1;
            }
        }
        self.must_be_empty[index] = empty.as_slice().iter().fold(SquareSet::EMPTY, |set, &sq| set | SquareSet::of(sq));
        // The king's own square counts only when it does not move: then the rook leaving may
        // uncover an attack on it, which "not in check" did not see.
        let start = if king == king_to { Square::NONE } else { king };
        self.king_path[index] = Path::between(king, king_to, [start, Square::NONE]);
        self.rook_may_shield[index] = !matches!(rook.file(), 0 | 7);
        self.kept[king] &= !(0b11 << (2 * color.index()));
        self.kept[rook] &= !(1 << index);
        // Standard rooks (a- and h-file) keep the plain keys, so standard chess hashes as it
        // always has; any other rook file adds its own key, so that positions which differ only
        // in which rook may castle never share a key.
        if rook.file() != if index & 1 == 0 { 7 } else { 0 } {
            let extra = KEYS.castling_rook_file[index][rook.file() as usize];
            for (rights, key) in self.keys.iter_mut().enumerate() {
                if rights & (1 << index) != 0 {
                    *key ^= extra;
                }
            }
        }
    }

    /// Where king and rook land when `color` castles to the king side or the queen side.
    pub fn landing(color: Color, king_side: bool) -> (Square, Square) {
        let rank = if color == Color::White { 0 } else { 7 };
        if king_side {
            (Square::new(6, rank), Square::new(5, rank))
        } else {
            (Square::new(2, rank), Square::new(3, rank))
        }
    }

    #[inline]
    pub fn rook_from(&self, index: usize) -> Square {
        self.rook_from[index]
    }

    #[inline]
    pub fn must_be_empty(&self, index: usize) -> SquareSet {
        self.must_be_empty[index]
    }

    #[inline]
    pub fn king_path(&self, index: usize) -> &[Square] {
        self.king_path[index].as_slice()
    }

    #[inline]
    pub fn rook_may_shield(&self, index: usize) -> bool {
        self.rook_may_shield[index]
    }

    /// The rights left after a move from `from` to `to`.
    #[inline]
    pub fn after_move(&self, rights: u8, from: Square, to: Square) -> u8 {
        rights & self.kept[from] & self.kept[to]
    }

    #[inline]
    pub fn key(&self, rights: u8) -> u64 {
        self.keys[rights as usize]
    }

    /// Whether the rook of right `index` is the outermost rook on its side of the king, which
    /// is what the FEN letters K, Q, k and q mean (X-FEN); otherwise FEN names its file.
    pub fn is_outermost(&self, index: usize, rooks: &[Square]) -> bool {
        let rook = self.rook_from[index];
        let king = self.king_from[index / 2];
        let beyond = |sq: &Square| {
            sq.rank() == rook.rank()
                && if king.file() < rook.file() { sq.file() > rook.file() } else { sq.file() < rook.file() }
        };
        !rooks.iter().any(beyond)
    }
}
