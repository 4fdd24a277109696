//! Colours, pieces and squares of the 10x12 mailbox.
//!
//! The 8x8 board sits inside a 10x12 array: two sentinel ranks above and below (so knight jumps
//! from the edge land on them) and one sentinel file on each side (the left and right borders
//! share a column because the rows wrap). Move generation walks offsets and stops at the first
//! non-empty square, so it never needs a bounds check of its own.

use std::fmt;
use std::ops::{BitAnd, BitOr, BitOrAssign, BitXor, BitXorAssign, Index, IndexMut, Not};

#[derive(Clone, Copy, PartialEq, Eq, Debug, Hash)]
pub enum Color {
    White = 0,
    Black = 1,
}

impl Color {
    pub const BOTH: [Color; 2] = [Color::White, Color::Black];

    #[inline]
    pub fn index(self) -> usize {
        self as usize
    }

    /// +1 for White, -1 for Black: turns a White-relative score into the side's own.
    #[inline]
    pub fn sign(self) -> i32 {
        1 - 2 * self as i32
    }

    /// The direction this colour's pawns advance on the mailbox.
    #[inline]
    pub fn forward(self) -> i8 {
        if self == Color::White { 10 } else { -10 }
    }
}

impl Not for Color {
    type Output = Color;
    #[inline]
    fn not(self) -> Color {
        if self == Color::White { Color::Black } else { Color::White }
    }
}

#[derive(Clone, Copy, PartialEq, Eq, Debug, Hash, PartialOrd, Ord)]
pub enum PieceKind {
    Pawn = 1,
    Knight = 2,
    Bishop = 3,
    Rook = 4,
    Queen = 5,
    King = 6,
}

impl PieceKind {
    pub const ALL: [PieceKind; 6] =
        [PieceKind::Pawn, PieceKind::Knight, PieceKind::Bishop, PieceKind::Rook, PieceKind::Queen, PieceKind::King];

    #[inline]
    pub fn index(self) -> usize {
        self as usize
    }

    /// The one table of piece values, for material reasoning outside the evaluation proper
    /// (exchanges, capture ordering, which endings are drawish). The king's is large so that
    /// it is captured last and never profitably.
    #[inline]
    pub fn value(self) -> i32 {
        const VALUE: [i32; 7] = [0, 100, 320, 330, 500, 950, 20000];
        VALUE[self.index()]
    }

    pub fn letter(self) -> char {
        b" pnbrqk"[self as usize] as char
    }

    pub fn from_letter(c: char) -> Option<PieceKind> {
        Some(match c.to_ascii_lowercase() {
            'p' => PieceKind::Pawn,
            'n' => PieceKind::Knight,
            'b' => PieceKind::Bishop,
            'r' => PieceKind::Rook,
            'q' => PieceKind::Queen,
            'k' => PieceKind::King,
            _ => return None,
        })
    }
}

/// What stands on a mailbox square: nothing, a piece, or the sentinel border.
///
/// A piece is its kind (1..=6) with bit 3 set for Black, so White pieces are 1..=6 and Black
/// pieces 9..=14. The value doubles as an index into 16-entry tables (piece lists, Zobrist keys)
/// and makes "is this an enemy piece" a single subtract-and-compare.
#[derive(Clone, Copy, PartialEq, Eq, Debug, Default, Hash)]
pub struct Piece(u8);

impl Piece {
    pub const EMPTY: Piece = Piece(0);
    pub const OFFBOARD: Piece = Piece(16);
    /// Size of tables indexed by `Piece::index`.
    pub const COUNT: usize = 16;

    #[inline]
    pub const fn new(color: Color, kind: PieceKind) -> Piece {
        Piece(kind as u8 | (color as u8) << 3)
    }

    #[inline]
    pub const fn index(self) -> usize {
        self.0 as usize
    }

    #[inline]
    pub fn is_empty(self) -> bool {
        self == Piece::EMPTY
    }

    /// True for a piece of `color`; false for empty squares and the border.
    #[inline]
    pub fn is_color(self, color: Color) -> bool {
        self.0.wrapping_sub(1 + 8 * color as u8) < 6
    }

    /// The piece's colour. Only meaningful for real pieces.
    #[inline]
    pub fn color(self) -> Color {
        if self.0 & 8 == 0 { Color::White } else { Color::Black }
    }

    /// The piece's kind. Only meaningful for real pieces.
    #[inline]
    pub fn kind(self) -> PieceKind {
        // A lookup rather than arithmetic (a division by 6 had been the most of it), asked
        // for on every capture scored, exchange played out and network input updated. Codes
        // 0 (empty, and the border's) and 7 read as a rook and a pawn, as the arithmetic gave.
        const KINDS: [PieceKind; 8] = {
            use PieceKind::*;
            [Rook, Pawn, Knight, Bishop, Rook, Queen, King, Pawn]
        };
        KINDS[self.0 as usize & 7]
    }

    #[inline]
    pub fn is_kind(self, kind: PieceKind) -> bool {
        self.0 & 7 == kind as u8 && self.0 < Piece::OFFBOARD.0
    }

    pub fn letter(self) -> char {
        let c = self.kind().letter();
        if self.color() == Color::White { c.to_ascii_uppercase() } else { c }
    }

    pub fn from_letter(c: char) -> Option<Piece> {
        let kind = PieceKind::from_letter(c)?;
        let color = if c.is_ascii_uppercase() { Color::White } else { Color::Black };
        Some(Piece::new(color, kind))
    }
}

/// A square of the 10x12 mailbox: a1 is 21, h1 is 28, a8 is 91, h8 is 98.
#[derive(Clone, Copy, PartialEq, Eq, Debug, Default, Hash)]
pub struct Square(pub u8);

/// Mailbox steps between neighbouring squares.
pub mod dir {
    pub const N: i8 = 10;
    pub const S: i8 = -10;
    pub const E: i8 = 1;
    pub const W: i8 = -1;
    pub const NE: i8 = 11;
    pub const NW: i8 = 9;
    pub const SE: i8 = -9;
    pub const SW: i8 = -11;
    pub const ORTHOGONAL: [i8; 4] = [N, S, E, W];
    pub const DIAGONAL: [i8; 4] = [NE, NW, SE, SW];
    pub const KING: [i8; 8] = [N, S, E, W, NE, NW, SE, SW];
    pub const KNIGHT: [i8; 8] = [21, 19, 12, 8, -8, -12, -19, -21];
}

impl Square {
    pub const NONE: Square = Square(0);
    #[cfg(test)]
    pub const A1: Square = Square(21);
    #[cfg(test)]
    pub const E1: Square = Square(25);
    #[cfg(test)]
    pub const H8: Square = Square(98);

    /// `file` and `rank` count from 0 (a-file, first rank).
    #[inline]
    pub const fn new(file: u8, rank: u8) -> Square {
        Square(21 + file + 10 * rank)
    }

    /// The 64 playing squares in a1, b1, ..., h8 order.
    pub fn all() -> impl Iterator<Item = Square> {
        (0..64).map(Square::from_index64)
    }

    #[inline]
    pub const fn from_index64(i: usize) -> Square {
        Square::new((i % 8) as u8, (i / 8) as u8)
    }

    /// 0 for a1 up to 63 for h8 (meaningless for border squares).
    #[inline]
    pub fn index64(self) -> usize {
        INDEX64[self.0 as usize & 127] as usize
    }

    #[inline]
    pub fn file(self) -> u8 {
        self.index64() as u8 % 8
    }

    #[inline]
    pub fn rank(self) -> u8 {
        self.index64() as u8 / 8
    }

    /// The step that walks from `self` towards `other` along a rank, file or diagonal, or 0
    /// when they share none (or are the same square).
    #[inline]
    pub fn line_step(self, other: Square) -> i8 {
        LINE_STEP[self.0 as usize & 127][other.0 as usize & 127]
    }

    /// `line_step` if the squares share a rank or file (a rook's line), else 0.
    #[inline]
    pub fn orthogonal_step(self, other: Square) -> i8 {
        ORTHOGONAL_STEP[self.0 as usize & 127][other.0 as usize & 127]
    }

    /// `line_step` if the squares share a diagonal (a bishop's line), else 0.
    #[inline]
    pub fn diagonal_step(self, other: Square) -> i8 {
        DIAGONAL_STEP[self.0 as usize & 127][other.0 as usize & 127]
    }

    /// The rank as seen from `color`'s side: 0 is its back rank.
    #[inline]
    pub fn relative_rank(self, color: Color) -> u8 {
        if color == Color::White { self.rank() } else { 7 - self.rank() }
    }

    #[inline]
    pub fn offset(self, step: i8) -> Square {
        Square(self.0.wrapping_add_signed(step))
    }

    pub fn parse(text: &str) -> Option<Square> {
        let bytes = text.as_bytes();
        if bytes.len() != 2 || !(b'a'..=b'h').contains(&bytes[0]) || !(b'1'..=b'8').contains(&bytes[1]) {
            return None;
        }
        Some(Square::new(bytes[0] - b'a', bytes[1] - b'1'))
    }
}

/// The 8x8 index of every mailbox square, looked up because moves convert on every push.
static INDEX64: [u8; 128] = {
    let mut table = [0; 128];
    let mut i = 0;
    while i < 64 {
        table[Square::from_index64(i).0 as usize] = i as u8;
        i += 1;
    }
    table
};

/// Line steps between every pair of mailbox squares (0 for border squares), keeping the
/// orthogonal lines, the diagonal ones, or both. Indexed by mailbox square rather than 0..64,
/// and split by kind of line, because the move generator asks them for every enemy slider at
/// every node: one load answers whether a rook or bishop is aimed at a square.
const fn line_steps(orthogonal: bool, diagonal: bool) -> [[i8; 128]; 128] {
    let mut table = [[0; 128]; 128];
    let mut a = 0;
    while a < 64 {
        let mut b = 0;
        while b < 64 {
            let files = (b % 8) as i8 - (a % 8) as i8;
            let ranks = (b / 8) as i8 - (a / 8) as i8;
            let on_orthogonal = files == 0 || ranks == 0;
            let on_diagonal = files.abs() == ranks.abs();
            if a != b && ((orthogonal && on_orthogonal) || (diagonal && on_diagonal)) {
                let (from, to) = (Square::from_index64(a), Square::from_index64(b));
                table[from.0 as usize][to.0 as usize] = 10 * ranks.signum() + files.signum();
            }
            b += 1;
        }
        a += 1;
    }
    table
}

/// The squares strictly between every pair of squares on a common rank, file or diagonal
/// (none for other pairs), by 8x8 index: whether a line is open is one lookup and one AND
/// with the occupied squares, instead of a walk along it.
static BETWEEN: [[SquareSet; 64]; 64] = {
    let mut table = [[SquareSet(0); 64]; 64];
    let mut a = 0;
    while a < 64 {
        let mut b = 0;
        while b < 64 {
            let (from, to) = (Square::from_index64(a), Square::from_index64(b));
            let step = LINE_STEP[from.0 as usize][to.0 as usize];
            if step != 0 {
                let mut sq = from.0 as i32 + step as i32;
                while sq != to.0 as i32 {
                    table[a][b].0 |= SQUARE_BIT[sq as usize];
                    sq += step as i32;
                }
            }
            b += 1;
        }
        a += 1;
    }
    table
};

static LINE_STEP: [[i8; 128]; 128] = line_steps(true, true);
static ORTHOGONAL_STEP: [[i8; 128]; 128] = line_steps(true, false);
static DIAGONAL_STEP: [[i8; 128]; 128] = line_steps(false, true);

impl fmt::Display for Square {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        write!(f, "{}{}", (b'a' + self.file()) as char, (b'1' + self.rank()) as char)
    }
}

/// A value for every mailbox square. 128 slots instead of 120 so that indexing with a masked
/// square needs no bounds check in the hot paths.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct SquareMap<T>(pub [T; 128]);

impl<T: Copy> SquareMap<T> {
    pub const fn filled(value: T) -> SquareMap<T> {
        SquareMap([value; 128])
    }
}

impl<T> Index<Square> for SquareMap<T> {
    type Output = T;
    #[inline]
    fn index(&self, sq: Square) -> &T {
        &self.0[sq.0 as usize & 127]
    }
}

impl<T> IndexMut<Square> for SquareMap<T> {
    #[inline]
    fn index_mut(&mut self, sq: Square) -> &mut T {
        &mut self.0[sq.0 as usize & 127]
    }
}

/// A set of playing squares, one bit each (a1 is bit 0). Border squares are never members:
/// inserting one does nothing, so attack walks may insert whatever square they step on.
#[derive(Clone, Copy, PartialEq, Eq, Debug, Default)]
pub struct SquareSet(u64);

/// The bit of each mailbox square in a `SquareSet`; zero for the border.
static SQUARE_BIT: [u64; 128] = {
    let mut table = [0; 128];
    let mut i = 0;
    while i < 64 {
        table[Square::from_index64(i).0 as usize] = 1 << i;
        i += 1;
    }
    table
};

/// The squares a piece stepping by `steps` reaches from each square, by 8x8 index.
const fn step_targets(steps: &[i8]) -> [SquareSet; 64] {
    let mut table = [SquareSet(0); 64];
    let mut i = 0;
    while i < 64 {
        let from = Square::from_index64(i).0 as i32;
        let mut s = 0;
        while s < steps.len() {
            let to = from + steps[s] as i32;
            if to >= 21 && to <= 98 && to % 10 >= 1 && to % 10 <= 8 {
                table[i].0 |= 1 << ((to / 10 - 2) * 8 + to % 10 - 1);
            }
            s += 1;
        }
        i += 1;
    }
    table
}

static KNIGHT_TARGETS: [SquareSet; 64] = step_targets(&dir::KNIGHT);
static KING_TARGETS: [SquareSet; 64] = step_targets(&dir::KING);
/// The squares a White and a Black pawn attack.
static PAWN_TARGETS: [[SquareSet; 64]; 2] = [step_targets(&[dir::NE, dir::NW]), step_targets(&[dir::SE, dir::SW])];

/// The file, diagonal, anti-diagonal and rank through each square (by 8x8 index), the square
/// itself left out.
static LINE_MASKS: [[u64; 4]; 64] = {
    let mut table = [[0; 4]; 64];
    let mut i = 0;
    while i < 64 {
        let mut j = 0;
        while j < 64 {
            let (files, ranks) = ((j % 8) as i32 - (i % 8) as i32, (j / 8) as i32 - (i / 8) as i32);
            if i != j {
                let bit = 1u64 << j;
                if files == 0 {
                    table[i][0] |= bit;
                }
                if files == ranks {
                    table[i][1] |= bit;
                }
                if files == -ranks {
                    table[i][2] |= bit;
                }
                if ranks == 0 {
                    table[i][3] |= bit;
                }
            }
            j += 1;
        }
        i += 1;
    }
    table
};

/// What a rook on each file of the first rank reaches along the rank, for each occupancy of
/// the six squares b1-g1 (bit 0 for b1; the end squares block nothing beyond themselves).
const RANK_ATTACKS: [[u8; 64]; 8] = {
    let mut table = [[0; 64]; 8];
    let mut file = 0;
    while file < 8 {
        let mut inner = 0;
        while inner < 64 {
            let occupied = (inner << 1) as u32;
            let mut reach = 0u8;
            let mut f = file + 1;
            while f < 8 {
                reach |= 1 << f;
                if occupied & (1 << f) != 0 {
                    break;
                }
                f += 1;
            }
            let mut f = file as i32 - 1;
            while f >= 0 {
                reach |= 1 << f;
                if occupied & (1 << f) != 0 {
                    break;
                }
                f -= 1;
            }
            table[file][inner] = reach;
            inner += 1;
        }
        file += 1;
    }
    table
};

const A_FILE: u64 = 0x0101_0101_0101_0101;
const B_FILE: u64 = 0x0202_0202_0202_0202;
/// The squares h2, g3, f4, e5, d6 and c7: multiplying the a-file by them lifts a2..a7 into the
/// top six bits, in order and without carries.
const H2_TO_C7: u64 = 0x0004_0810_2040_8000;

/// `RANK_ATTACKS` repeated on every rank: for a line with one square on each file (a rank or
/// a diagonal), the squares attacked are those on the files a rook on the first rank would
/// attack with blockers on the same files.
static FILE_SPREAD_ATTACKS: [[u64; 64]; 8] = {
    let mut table = [[0; 64]; 8];
    let mut file = 0;
    while file < 8 {
        let mut inner = 0;
        while inner < 64 {
            table[file][inner] = RANK_ATTACKS[file][inner] as u64 * A_FILE;
            inner += 1;
        }
        file += 1;
    }
    table
};

/// What a rook on each rank of the a-file reaches along it, for each occupancy of a2..a7
/// (bit 0 for a2).
static A_FILE_ATTACKS: [[u64; 64]; 8] = {
    let mut table = [[0; 64]; 8];
    let mut rank = 0;
    while rank < 8 {
        let mut inner = 0;
        while inner < 64 {
            // The first rank's answer with files read as ranks, turned onto the a-file.
            let reach = RANK_ATTACKS[rank][inner];
            let mut r = 0;
            while r < 8 {
                if reach & (1 << r) != 0 {
                    table[rank][inner] |= 1 << (8 * r);
                }
                r += 1;
            }
            inner += 1;
        }
        rank += 1;
    }
    table
};

/// What a slider on file `file` reaches along the line `mask` (one square on each file: a rank
/// or a diagonal, the slider's own square left out) when `occupied` are occupied, up to and
/// including the first occupied square each way. Multiplying by the b-file gathers the line's
/// squares on files b to g into the top six bits, in file order and without carries, which
/// index the rank's answer (the kindergarten method).
#[inline(always)]
fn spread_attacks(mask: u64, file: usize, occupied: u64) -> u64 {
    let inner = ((occupied & mask).wrapping_mul(B_FILE) >> 58) as usize;
    FILE_SPREAD_ATTACKS[file][inner] & mask
}

impl SquareSet {
    pub const EMPTY: SquareSet = SquareSet(0);

    /// The set of `sq` alone (empty for a border square).
    #[inline]
    pub fn of(sq: Square) -> SquareSet {
        SquareSet(SQUARE_BIT[sq.0 as usize & 127])
    }

    /// The squares strictly between `a` and `b` if they share a rank, file or diagonal, else
    /// none.
    #[inline]
    pub fn between(a: Square, b: Square) -> SquareSet {
        BETWEEN[a.index64()][b.index64()]
    }

    #[inline]
    pub fn is_empty(self) -> bool {
        self.0 == 0
    }

    /// Whether the set holds two squares or more.
    #[inline]
    pub fn has_several(self) -> bool {
        self.0 & self.0.wrapping_sub(1) != 0
    }

    /// Every square of rank `rank` (0 is the first).
    #[inline]
    pub const fn rank(rank: u8) -> SquareSet {
        SquareSet(0xFF << (8 * rank))
    }

    /// Every square of file `file` (0 is the a-file).
    #[inline]
    pub const fn file(file: u8) -> SquareSet {
        SquareSet(A_FILE << file)
    }

    /// Every member moved by `step` in 8x8 indices (8 is a rank up, 1 a file right); members
    /// pushed off the top or bottom edge are dropped. Wrapping round the sides is not: the
    /// caller leaves out the file that would wrap.
    #[inline(always)]
    pub const fn shifted(self, step: i32) -> SquareSet {
        if step >= 0 { SquareSet(self.0 << step) } else { SquareSet(self.0 >> -step) }
    }

    /// The member with the lowest index (a1 first); meaningless for an empty set.
    #[inline]
    pub fn first(self) -> Square {
        Square::from_index64(self.0.trailing_zeros() as usize & 63)
    }

    /// The squares a knight on `sq` attacks.
    #[inline]
    pub fn knight_attacks(sq: Square) -> SquareSet {
        KNIGHT_TARGETS[sq.index64()]
    }

    /// The squares a bishop on the square of 8x8 index `from` attacks when `occupied` are
    /// occupied (its own square aside), occupied ones included.
    #[inline(always)]
    pub fn bishop_attacks_from(from: usize, occupied: SquareSet) -> SquareSet {
        let (masks, file) = (&LINE_MASKS[from & 63], from & 7);
        SquareSet(spread_attacks(masks[1], file, occupied.0) | spread_attacks(masks[2], file, occupied.0))
    }

    /// The squares a rook on the square of 8x8 index `from` attacks (see
    /// `bishop_attacks_from`).
    #[inline(always)]
    pub fn rook_attacks_from(from: usize, occupied: SquareSet) -> SquareSet {
        let (from, file) = (from & 63, from & 7);
        let rank = spread_attacks(LINE_MASKS[from][3], file, occupied.0);
        // The file shifted onto the a-file, its a2..a7 lifted into the top six bits.
        let inner = (H2_TO_C7.wrapping_mul(A_FILE & occupied.0 >> file) >> 58) as usize;
        SquareSet(rank | A_FILE_ATTACKS[from >> 3][inner] << file)
    }

    /// The squares on a diagonal through the square of 8x8 index `from` (a bishop's lines),
    /// or with `ORTHOGONAL` on its rank and file (a rook's), the square itself left out.
    #[inline(always)]
    pub fn lines_from<const ORTHOGONAL: bool>(from: usize) -> SquareSet {
        let masks = &LINE_MASKS[from & 63];
        SquareSet(if ORTHOGONAL { masks[0] | masks[3] } else { masks[1] | masks[2] })
    }

    /// The squares a `color` pawn on the square of 8x8 index `from` attacks.
    #[inline(always)]
    pub fn pawn_attacks_from(color: Color, from: usize) -> SquareSet {
        PAWN_TARGETS[color.index()][from & 63]
    }

    /// The squares a king on the square of 8x8 index `from` attacks.
    #[inline(always)]
    pub fn king_attacks_from(from: usize) -> SquareSet {
        KING_TARGETS[from & 63]
    }

    /// `between` by 8x8 indices.
    #[inline(always)]
    pub fn between_indices(a: usize, b: usize) -> SquareSet {
        BETWEEN[a & 63][b & 63]
    }

    /// The squares a knight on the square of 8x8 index `from` attacks.
    #[inline(always)]
    pub fn knight_attacks_from(from: usize) -> SquareSet {
        KNIGHT_TARGETS[from & 63]
    }

    /// The 8x8 indices of the members, lowest first: for tables indexed that way, which need
    /// no square in between.
    #[inline(always)]
    pub fn indices(self) -> impl Iterator<Item = usize> {
        let mut bits = self.0;
        std::iter::from_fn(move || {
            if bits == 0 {
                return None;
            }
            let index = bits.trailing_zeros() as usize;
            bits &= bits - 1;
            Some(index)
        })
    }

    /// The squares a king on `sq` attacks.
    #[inline]
    pub fn king_attacks(sq: Square) -> SquareSet {
        KING_TARGETS[sq.index64()]
    }

    #[inline]
    pub fn contains(self, sq: Square) -> bool {
        self.0 & SQUARE_BIT[sq.0 as usize & 127] != 0
    }

    #[inline]
    pub fn insert(&mut self, sq: Square) {
        self.0 |= SQUARE_BIT[sq.0 as usize & 127];
    }

    #[inline]
    pub fn count(self) -> u32 {
        self.0.count_ones()
    }
}

/// The members of a set, lowest index (a1) first.
impl IntoIterator for SquareSet {
    type Item = Square;
    type IntoIter = Members;

    #[inline(always)]
    fn into_iter(self) -> Members {
        Members(self)
    }
}

/// An iterator over a set's members (a set of its own, so that the set itself, being `Copy`,
/// is never used up by iterating).
pub struct Members(SquareSet);

impl Iterator for Members {
    type Item = Square;

    #[inline(always)]
    fn next(&mut self) -> Option<Square> {
        if self.0.is_empty() {
            return None;
        }
        let sq = self.0.first();
        self.0.0 &= self.0.0 - 1;
        Some(sq)
    }
}

impl Not for SquareSet {
    type Output = SquareSet;
    #[inline]
    fn not(self) -> SquareSet {
        SquareSet(!self.0)
    }
}

impl BitOrAssign for SquareSet {
    #[inline]
    fn bitor_assign(&mut self, other: SquareSet) {
        self.0 |= other.0;
    }
}

impl BitOr for SquareSet {
    type Output = SquareSet;
    #[inline]
    fn bitor(self, other: SquareSet) -> SquareSet {
        SquareSet(self.0 | other.0)
    }
}

impl BitXor for SquareSet {
    type Output = SquareSet;
    #[inline]
    fn bitxor(self, other: SquareSet) -> SquareSet {
        SquareSet(self.0 ^ other.0)
    }
}

impl BitXorAssign for SquareSet {
    #[inline]
    fn bitxor_assign(&mut self, other: SquareSet) {
        self.0 ^= other.0;
    }
}

impl BitAnd for SquareSet {
    type Output = SquareSet;
    #[inline]
    fn bitand(self, other: SquareSet) -> SquareSet {
        SquareSet(self.0 & other.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every code, the empty square's and the border's included, reads as the kind the
    /// arithmetic the lookup replaced gave.
    #[test]
    fn kinds_are_those_of_the_arithmetic() {
        for code in 0..=u8::MAX {
            assert_eq!(Piece(code).kind(), PieceKind::ALL[(code as usize & 7).wrapping_sub(1) % 6], "{code}");
        }
    }

    #[test]
    fn piece_encoding_round_trips() {
        for color in Color::BOTH {
            for kind in PieceKind::ALL {
                let p = Piece::new(color, kind);
                assert_eq!((p.color(), p.kind()), (color, kind));
                assert!(p.is_color(color) && !p.is_color(!color));
                assert_eq!(Piece::from_letter(p.letter()), Some(p));
            }
        }
        for c in Color::BOTH {
            assert!(!Piece::EMPTY.is_color(c) && !Piece::OFFBOARD.is_color(c));
        }
    }

    fn is_on_board(sq: Square) -> bool {
        (21..=98).contains(&sq.0) && (1..=8).contains(&(sq.0 % 10))
    }

    #[test]
    fn step_attack_tables_match_the_mailbox() {
        for from in Square::all() {
            for (table, steps) in
                [(SquareSet::knight_attacks(from), dir::KNIGHT), (SquareSet::king_attacks(from), dir::KING)]
            {
                let mut expected = SquareSet::EMPTY;
                steps.iter().map(|&s| from.offset(s)).filter(|&t| is_on_board(t)).for_each(|t| expected.insert(t));
                assert_eq!(table, expected, "{from}");
            }
        }
        assert_eq!(SquareSet::knight_attacks(Square::A1).count(), 2);
        assert_eq!(SquareSet::king_attacks(Square::E1).count(), 5);
    }

    /// What a piece stepping by `steps` (sliding when `slides`) reaches from `from` on the
    /// mailbox, `occupied` standing in the way: what the tables must agree with.
    fn walked(from: Square, steps: &[i8], slides: bool, occupied: SquareSet) -> SquareSet {
        let mut reach = SquareSet::EMPTY;
        for &step in steps {
            let mut sq = from.offset(step);
            while is_on_board(sq) {
                reach.insert(sq);
                if !slides || occupied.contains(sq) {
                    break;
                }
                sq = sq.offset(step);
            }
        }
        reach
    }

    /// The slider, pawn, line and between tables against walks on the mailbox, from every
    /// square over occupancies drawn at random (sparse, middling and dense).
    #[test]
    fn set_tables_match_the_mailbox() {
        let mut state = 7u64;
        let mut random = || {
            state = state.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            state
        };
        for round in 0..600 {
            let occupied = match round % 3 {
                0 => SquareSet(random() & random() & random()),
                1 => SquareSet(random() & random()),
                _ => SquareSet(random() | random()),
            };
            for from in Square::all() {
                let i = from.index64();
                let bishop = walked(from, &dir::DIAGONAL, true, occupied);
                let rook = walked(from, &dir::ORTHOGONAL, true, occupied);
                assert_eq!(SquareSet::bishop_attacks_from(i, occupied), bishop, "{from} {occupied:?}");
                assert_eq!(SquareSet::rook_attacks_from(i, occupied), rook, "{from} {occupied:?}");
            }
        }
        for from in Square::all() {
            let i = from.index64();
            assert_eq!(SquareSet::lines_from::<false>(i), walked(from, &dir::DIAGONAL, true, SquareSet::EMPTY));
            assert_eq!(SquareSet::lines_from::<true>(i), walked(from, &dir::ORTHOGONAL, true, SquareSet::EMPTY));
            assert_eq!(
                SquareSet::pawn_attacks_from(Color::White, i),
                walked(from, &[dir::NE, dir::NW], false, SquareSet::EMPTY)
            );
            assert_eq!(
                SquareSet::pawn_attacks_from(Color::Black, i),
                walked(from, &[dir::SE, dir::SW], false, SquareSet::EMPTY)
            );
            assert_eq!(SquareSet::king_attacks_from(i), SquareSet::king_attacks(from));
            assert_eq!(SquareSet::knight_attacks_from(i), SquareSet::knight_attacks(from));
            for to in Square::all() {
                let step = from.line_step(to);
                let mut expected = SquareSet::EMPTY;
                if step != 0 {
                    let mut sq = from.offset(step);
                    while sq != to {
                        expected.insert(sq);
                        sq = sq.offset(step);
                    }
                }
                assert_eq!(SquareSet::between(from, to), expected, "{from} {to}");
            }
        }
        let set = SquareSet::of(Square::A1) | SquareSet::of(Square::E1) | SquareSet::of(Square::H8);
        assert_eq!(set.into_iter().collect::<Vec<_>>(), [Square::A1, Square::E1, Square::H8]);
        assert_eq!(set.indices().collect::<Vec<_>>(), [0, 4, 63]);
        assert!(set.has_several() && !SquareSet::of(Square::E1).has_several());
    }

    #[test]
    fn squares_convert_between_mailbox_and_names() {
        assert_eq!(Square::parse("a1"), Some(Square::A1));
        assert_eq!(Square::parse("h8"), Some(Square::H8));
        assert_eq!(Square::parse("i1"), None);
        for (i, sq) in Square::all().enumerate() {
            assert_eq!(sq.index64(), i);
            assert!(is_on_board(sq));
            assert_eq!(Square::parse(&sq.to_string()), Some(sq));
        }
        assert!(!is_on_board(Square(20)) && !is_on_board(Square(29)) && !is_on_board(Square(99)));
    }
}
