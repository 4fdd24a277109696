//! The position: a 10x12 mailbox with piece lists, the game state FEN describes, an incremental
//! Zobrist key, and an undo stack so moves can be taken back without copying the board.

mod attacks;
mod castling;
mod cuckoo;
mod fen;
mod makemove;
mod moves;
mod types;
mod zobrist;

pub use attacks::{is_king_step, is_knight_jump, path_is_clear};
pub use castling::{Castling, right_index};
/// Tests elsewhere write the positions they draw at random with the FEN writer's own placement.
#[cfg(test)]
pub use fen::placement;
pub use fen::{FenError, START_POS, position_fen};
pub use moves::{Move, flag};
pub use types::{Color, Piece, PieceKind, Square, SquareMap, SquareSet, dir};

use zobrist::KEYS;

/// Masks a piece's key into the pawn key: all ones for pawns, zero for other pieces.
static PAWNS_ONLY: [u64; Piece::COUNT] = piece_mask(true);
/// Masks a piece's key into its colour's non-pawn key: all ones for pieces other than pawns.
static NON_PAWNS_ONLY: [u64; Piece::COUNT] = piece_mask(false);

const fn piece_mask(pawns: bool) -> [u64; Piece::COUNT] {
    let mut masks = [0; Piece::COUNT];
    let mut k = 0;
    while k < PieceKind::ALL.len() {
        let kind = PieceKind::ALL[k];
        if (kind as u8 == PieceKind::Pawn as u8) == pawns {
            masks[Piece::new(Color::White, kind).index()] = u64::MAX;
            masks[Piece::new(Color::Black, kind).index()] = u64::MAX;
        }
        k += 1;
    }
    masks
}

pub const START_FEN: &str = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1";

/// Most pieces of one kind and colour a legal position can hold: two knights and eight
/// promoted pawns.
const MAX_OF_A_KIND: usize = 10;

/// What make_move cannot recompute when the move is taken back.
#[derive(Clone, Copy, Debug)]
struct Undo {
    mv: Move,
    captured: Piece,
    castling: u8,
    en_passant: Square,
    halfmove_clock: u16,
    /// Kept rather than counted back: the counters stop at their largest value (a FEN may
    /// start them there), so a decrement would not undo a move.
    fullmove_number: u16,
    key: u64,
    pawn_key: u64,
    non_pawn_keys: [u64; 2],
}

#[derive(Clone)]
pub struct Board {
    squares: SquareMap<Piece>,
    /// Where each occupied square's piece sits in its piece list.
    list_slot: SquareMap<u8>,
    lists: [[Square; MAX_OF_A_KIND]; Piece::COUNT],
    counts: [u8; Piece::COUNT],
    /// Each colour's occupied squares, beside the mailbox: whether a line between two squares
    /// is open is then one lookup (`SquareSet::between`) and one AND.
    occupied: [SquareSet; 2],
    /// The squares of each piece, as its list holds them, for questions asked of all the
    /// pieces of a kind at once (where can the pawns go?).
    piece_sets: [SquareSet; Piece::COUNT],
    side: Color,
    /// The castling rights still held, as `castle` bits.
    castling: u8,
    /// Where each right's king and rook stand and go (see `castling`).
    castle_table: Castling,
    /// The square a pawn just passed over, as FEN records it (even when no capture is possible).
    en_passant: Square,
    halfmove_clock: u16,
    fullmove_number: u16,
    key: u64,
    /// Zobrist key of the pawns alone, for the evaluation's pawn structure cache.
    pawn_key: u64,
    /// Zobrist keys of each colour's pieces other than pawns (king included), for the search's
    /// evaluation corrections.
    non_pawn_keys: [u64; 2],
    history: Vec<Undo>,
}

impl Board {
    pub fn start_position() -> Board {
        Board::from_fen(START_FEN).expect("the start position is valid")
    }

    fn empty() -> Board {
        let mut squares = SquareMap::filled(Piece::OFFBOARD);
        for sq in Square::all() {
            squares[sq] = Piece::EMPTY;
        }
        Board {
            squares,
            list_slot: SquareMap::filled(0),
            lists: [[Square::NONE; MAX_OF_A_KIND]; Piece::COUNT],
            counts: [0; Piece::COUNT],
            occupied: [SquareSet::EMPTY; 2],
            piece_sets: [SquareSet::EMPTY; Piece::COUNT],
            side: Color::White,
            castling: 0,
            castle_table: Castling::none(),
            en_passant: Square::NONE,
            halfmove_clock: 0,
            fullmove_number: 1,
            key: 0,
            pawn_key: 0,
            non_pawn_keys: [0; 2],
            history: Vec::with_capacity(1024),
        }
    }

    #[inline]
    pub fn piece_at(&self, sq: Square) -> Piece {
        self.squares[sq]
    }

    /// The kind of piece `mv` takes (a pawn, en passant), if it takes one.
    #[inline]
    pub fn captured(&self, mv: Move) -> Option<PieceKind> {
        if mv.is_en_passant() {
            Some(PieceKind::Pawn)
        } else if mv.is_capture() {
            Some(self.squares[mv.to()].kind())
        } else {
            None
        }
    }

    #[inline]
    pub fn squares(&self) -> &SquareMap<Piece> {
        &self.squares
    }

    #[inline]
    pub fn side_to_move(&self) -> Color {
        self.side
    }

    #[inline]
    pub fn castling_rights(&self) -> u8 {
        self.castling
    }

    /// The squares of the castling rights this game started with.
    #[inline]
    pub fn castle_table(&self) -> &Castling {
        &self.castle_table
    }

    #[inline]
    pub fn en_passant(&self) -> Option<Square> {
        (self.en_passant != Square::NONE).then_some(self.en_passant)
    }

    #[inline]
    pub fn halfmove_clock(&self) -> u16 {
        self.halfmove_clock
    }

    #[inline]
    pub fn fullmove_number(&self) -> u16 {
        self.fullmove_number
    }

    #[inline]
    pub fn key(&self) -> u64 {
        self.key
    }

    #[inline]
    pub fn pawn_key(&self) -> u64 {
        self.pawn_key
    }

    /// The Zobrist key of `color`'s pieces other than pawns.
    #[inline]
    pub fn non_pawn_key(&self, color: Color) -> u64 {
        self.non_pawn_keys[color.index()]
    }

    /// Moves made since the position was set up (the game so far plus the search's own).
    #[inline]
    pub fn moves_played(&self) -> usize {
        self.history.len()
    }

    #[inline]
    pub fn last_move(&self) -> Option<Move> {
        self.history.last().map(|u| u.mv)
    }

    /// Squares of every `color` `kind` piece, in no particular order.
    #[inline(always)]
    pub fn pieces(&self, color: Color, kind: PieceKind) -> &[Square] {
        let p = Piece::new(color, kind).index();
        &self.lists[p][..self.counts[p] as usize]
    }

    /// Pieces on the board, kings and pawns included.
    pub fn piece_count(&self) -> usize {
        self.counts.iter().map(|&n| n as usize).sum()
    }

    #[inline]
    pub fn count(&self, color: Color, kind: PieceKind) -> usize {
        self.counts[Piece::new(color, kind).index()] as usize
    }

    /// Every occupied square.
    #[inline(always)]
    pub fn occupied(&self) -> SquareSet {
        self.occupied[0] | self.occupied[1]
    }

    /// The squares of `color`'s pieces.
    #[inline(always)]
    pub fn occupied_by(&self, color: Color) -> SquareSet {
        self.occupied[color.index()]
    }

    /// The squares of every `color` `kind` piece: `pieces` as a set.
    #[inline(always)]
    pub fn piece_set(&self, color: Color, kind: PieceKind) -> SquareSet {
        self.piece_sets[Piece::new(color, kind).index()]
    }

    #[inline]
    pub fn king_square(&self, color: Color) -> Square {
        self.lists[Piece::new(color, PieceKind::King).index()][0]
    }

    #[inline]
    pub fn is_attacked_by(&self, sq: Square, by: Color) -> bool {
        self.attacked_on(self.occupied(), sq, by)
    }

    /// Whether the side to move is in check.
    #[inline]
    pub fn in_check(&self) -> bool {
        self.is_attacked_by(self.king_square(self.side), !self.side)
    }

    /// True when the side to move has a piece other than pawns and king: null-move pruning is
    /// unsound in pawn endings, where zugzwang is the rule rather than the exception.
    pub fn has_non_pawn_material(&self, color: Color) -> bool {
        [PieceKind::Knight, PieceKind::Bishop, PieceKind::Rook, PieceKind::Queen]
            .iter()
            .any(|&k| self.count(color, k) > 0)
    }

    /// A position neither side can ever win (FIDE's dead position, in its common cases): bare
    /// kings, a lone minor piece, or bishops that all stand on squares of one colour.
    pub fn has_insufficient_material(&self) -> bool {
        let heavy_or_pawn = [PieceKind::Pawn, PieceKind::Rook, PieceKind::Queen];
        if Color::BOTH.iter().any(|&c| heavy_or_pawn.iter().any(|&k| self.count(c, k) > 0)) {
            return false;
        }
        let knights: usize = Color::BOTH.iter().map(|&c| self.count(c, PieceKind::Knight)).sum();
        let bishops = || Color::BOTH.iter().flat_map(|&c| self.pieces(c, PieceKind::Bishop));
        let bishop_count = bishops().count();
        if knights + bishop_count <= 1 {
            return true;
        }
        let shade = |sq: &Square| (sq.file() + sq.rank()) % 2;
        knights == 0 && bishops().map(shade).min() == bishops().map(shade).max()
    }

    /// True if the current position stood before with the same side to move, since the last
    /// capture or pawn move. Inside the search (within `search_ply` moves) one earlier
    /// occurrence is enough, since the side that can repeat once can repeat again; a position
    /// from the game before the search must have occurred twice, making this the third time.
    pub fn is_repetition(&self, search_ply: usize) -> bool {
        let reachable = (self.halfmove_clock as usize).min(self.history.len());
        let mut seen_before_root = 0;
        for back in (2..=reachable).step_by(2) {
            if self.history[self.history.len() - back].key == self.key {
                if back <= search_ply {
                    return true;
                }
                seen_before_root += 1;
                if seen_before_root == 2 {
                    return true;
                }
            }
        }
        false
    }

    /// How many times the current position has occurred in the game, counting this one.
    pub fn occurrences(&self) -> usize {
        let reachable = (self.halfmove_clock as usize).min(self.history.len());
        1 + (2..=reachable).step_by(2).filter(|&back| self.history[self.history.len() - back].key == self.key).count()
    }

    #[inline(always)]
    fn add_piece(&mut self, sq: Square, piece: Piece) {
        self.put_piece::<true>(sq, piece);
    }

    #[inline(always)]
    fn remove_piece(&mut self, sq: Square) {
        self.take_piece::<true>(sq);
    }

    #[inline(always)]
    fn move_piece(&mut self, from: Square, to: Square) {
        self.shift_piece::<true>(from, to);
    }

    // The three primitives below update the Zobrist key when `KEY`; unmake_move passes false,
    // as it restores the saved key anyway.

    #[inline(always)]
    fn put_piece<const KEY: bool>(&mut self, sq: Square, piece: Piece) {
        let p = piece.index();
        let slot = self.counts[p];
        self.squares[sq] = piece;
        self.lists[p][slot as usize] = sq;
        self.list_slot[sq] = slot;
        self.counts[p] = slot + 1;
        self.occupied[piece.color().index()] ^= SquareSet::of(sq);
        self.piece_sets[p] ^= SquareSet::of(sq);
        if KEY {
            self.toggle_keys(piece, KEYS.pieces[p][sq.0 as usize]);
        }
    }

    #[inline(always)]
    fn take_piece<const KEY: bool>(&mut self, sq: Square) {
        let piece = self.squares[sq];
        let p = piece.index();
        let last = self.counts[p] - 1;
        let moved = self.lists[p][last as usize];
        let slot = self.list_slot[sq];
        self.lists[p][slot as usize] = moved;
        self.list_slot[moved] = slot;
        self.counts[p] = last;
        self.squares[sq] = Piece::EMPTY;
        self.occupied[piece.color().index()] ^= SquareSet::of(sq);
        self.piece_sets[p] ^= SquareSet::of(sq);
        if KEY {
            self.toggle_keys(piece, KEYS.pieces[p][sq.0 as usize]);
        }
    }

    #[inline(always)]
    fn shift_piece<const KEY: bool>(&mut self, from: Square, to: Square) {
        let piece = self.squares[from];
        let p = piece.index();
        let slot = self.list_slot[from];
        self.squares[from] = Piece::EMPTY;
        self.squares[to] = piece;
        self.lists[p][slot as usize] = to;
        self.list_slot[to] = slot;
        let moved = SquareSet::of(from) ^ SquareSet::of(to);
        self.occupied[piece.color().index()] ^= moved;
        self.piece_sets[p] ^= moved;
        if KEY {
            self.toggle_keys(piece, KEYS.pieces[p][from.0 as usize] ^ KEYS.pieces[p][to.0 as usize]);
        }
    }

    /// Moves two pieces at once, each keeping its piece-list slot: king and rook when castling,
    /// whose squares may overlap in Chess960 (a king on f1 and a rook on g1 trade places).
    #[inline(always)]
    fn shift_pair<const KEY: bool>(&mut self, from: [Square; 2], to: [Square; 2]) {
        let pieces = [self.squares[from[0]], self.squares[from[1]]];
        let slots = [self.list_slot[from[0]], self.list_slot[from[1]]];
        self.squares[from[0]] = Piece::EMPTY;
        self.squares[from[1]] = Piece::EMPTY;
        // Both pieces are one colour's; their squares may overlap, so out first, then in.
        let own = &mut self.occupied[pieces[0].color().index()];
        *own =
            (*own & !(SquareSet::of(from[0]) | SquareSet::of(from[1]))) | SquareSet::of(to[0]) | SquareSet::of(to[1]);
        for i in 0..2 {
            let p = pieces[i].index();
            self.piece_sets[p] ^= SquareSet::of(from[i]) ^ SquareSet::of(to[i]);
            self.squares[to[i]] = pieces[i];
            self.lists[p][slots[i] as usize] = to[i];
            self.list_slot[to[i]] = slots[i];
            if KEY {
                self.toggle_keys(pieces[i], KEYS.pieces[p][from[i].0 as usize] ^ KEYS.pieces[p][to[i].0 as usize]);
            }
        }
    }

    /// `piece` changed square: `change` is its key on the old square XOR its key on the new one
    /// (or just its key, when it appears or goes), to apply to every key it is in.
    #[inline(always)]
    fn toggle_keys(&mut self, piece: Piece, change: u64) {
        let p = piece.index();
        self.key ^= change;
        self.pawn_key ^= change & PAWNS_ONLY[p];
        self.non_pawn_keys[piece.color().index()] ^= change & NON_PAWNS_ONLY[p];
    }

    /// The pawn key and each colour's non-pawn key computed from scratch.
    fn compute_material_keys(&self) -> (u64, [u64; 2]) {
        let (mut pawns, mut pieces) = (0, [0; 2]);
        for sq in Square::all() {
            let piece = self.squares[sq];
            let p = piece.index();
            pawns ^= KEYS.pieces[p][sq.0 as usize] & PAWNS_ONLY[p];
            // An empty square's masks are zero: the colour it reads as does not matter.
            pieces[piece.color().index()] ^= KEYS.pieces[p][sq.0 as usize] & NON_PAWNS_ONLY[p];
        }
        (pawns, pieces)
    }

    /// The key computed from scratch: the incremental key must always equal it.
    fn compute_key(&self) -> u64 {
        let mut key = 0;
        for sq in Square::all() {
            let piece = self.squares[sq];
            if !piece.is_empty() {
                key ^= KEYS.pieces[piece.index()][sq.0 as usize];
            }
        }
        key ^= self.castle_table.key(self.castling);
        if self.side == Color::Black {
            key ^= KEYS.black_to_move;
        }
        if self.en_passant_capturable() {
            key ^= KEYS.en_passant_file[self.en_passant.file() as usize];
        }
        key
    }

    /// Whether a pawn of the side to move stands beside the pawn that just advanced two squares.
    /// Only then does the en passant square enter the key, so that positions differing only in
    /// an en passant square nobody can use count as repetitions, as the rules say.
    fn en_passant_capturable(&self) -> bool {
        if self.en_passant == Square::NONE {
            return false;
        }
        let pushed = self.en_passant.offset(-self.side.forward());
        let pawn = Piece::new(self.side, PieceKind::Pawn);
        self.squares[pushed.offset(dir::E)] == pawn || self.squares[pushed.offset(dir::W)] == pawn
    }
}

impl std::fmt::Display for Board {
    fn fmt(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        for rank in (0..8).rev() {
            writeln!(f, " +---+---+---+---+---+---+---+---+")?;
            for file in 0..8 {
                let piece = self.squares[Square::new(file, rank)];
                let c = if piece.is_empty() { ' ' } else { piece.letter() };
                write!(f, " | {c}")?;
            }
            writeln!(f, " | {}", rank + 1)?;
        }
        writeln!(f, " +---+---+---+---+---+---+---+---+")?;
        writeln!(f, "   a   b   c   d   e   f   g   h")?;
        writeln!(f, "\nFen: {}\nKey: {:016X}", self.to_fen(), self.key)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A quiet move written as `e2e4` (the board's tests need no move generator).
    fn quiet(text: &str) -> Move {
        let square = |at| Square::parse(&text[at..at + 2]).unwrap();
        Move::new(square(0), square(2), flag::QUIET)
    }

    /// A FEN may start the counters at their largest value: moves then stop them there, and
    /// taking the moves back restores them exactly.
    #[test]
    fn move_counters_stop_at_their_largest_value() {
        let fen = "4k3/8/8/8/8/8/8/4K2R b - - 65535 65535";
        let mut board = Board::from_fen(fen).unwrap();
        for text in ["e8d7", "h1h2", "d7e8"] {
            board.make_move(quiet(text));
        }
        assert!(board.to_fen().ends_with(" 65535 65535"), "{}", board.to_fen());
        for _ in 0..3 {
            board.unmake_move();
        }
        assert_eq!(board.to_fen(), fen);
    }

    #[test]
    fn repetitions_count_the_game_before_the_search() {
        let mut board = Board::start_position();
        let shuffle = ["g1f3", "g8f6", "f3g1", "f6g8"];
        for text in shuffle {
            board.make_move(quiet(text));
        }
        assert_eq!(board.occurrences(), 2);
        // Twice in the game is not yet a draw at the root, but a repetition inside the search
        // (all four moves searched) is.
        assert!(!board.is_repetition(0));
        assert!(board.is_repetition(4));
        for text in shuffle {
            board.make_move(quiet(text));
        }
        assert_eq!(board.occurrences(), 3);
        assert!(board.is_repetition(0));
    }

    #[test]
    fn insufficient_material() {
        let dead = [
            "8/8/8/4k3/8/8/8/4K3 w - - 0 1",
            "8/8/8/4k3/8/8/8/4KN2 w - - 0 1",
            "8/8/8/4k3/8/8/8/4KB2 w - - 0 1",
            "8/8/8/3bk3/8/8/8/4KB2 w - - 0 1",
            "8/8/8/4k3/8/8/8/3BKB2 w - - 0 1",
        ];
        let alive = [
            "8/8/8/4k3/8/8/8/2B1KB2 w - - 0 1",
            "8/8/8/2b1k3/8/8/8/4KB2 w - - 0 1",
            "8/8/8/4k3/8/8/8/3NKN2 w - - 0 1",
            "8/8/8/4k3/8/8/4P3/4K3 w - - 0 1",
            "8/8/8/4k3/8/8/8/4KR2 w - - 0 1",
        ];
        for fen in dead {
            assert!(Board::from_fen(fen).unwrap().has_insufficient_material(), "{fen}");
        }
        for fen in alive {
            assert!(!Board::from_fen(fen).unwrap().has_insufficient_material(), "{fen}");
        }
    }
}
