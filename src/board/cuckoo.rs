//! Upcoming repetitions: whether the side to move has a move that returns to a position of the
//! line, found without generating a move. A node whose side can force a repetition scores at
//! least a draw, and the search may raise alpha to it before searching; a plain repetition
//! test only sees the repetition a ply later, after the move was made.
//!
//! Every reversible move (a piece other than a pawn going from one square to another and
//! back) changes the key by a fixed amount: the piece's key on both squares and the side's.
//! These amounts, 3,668 of them, are kept in a cuckoo hash table (Marcel van Kervinck's scheme,
//! as Stockfish uses it), so that "is the difference between this key and one a few plies back
//! a single move?" is at most two lookups.

use super::Board;
use super::attacks::path_is_clear;
use super::types::{Color, Piece, PieceKind, Square};
use super::zobrist::KEYS;

const SIZE: usize = 8192;

/// The reversible moves by their key difference, each in one of its two slots.
struct Cuckoo {
    keys: [u64; SIZE],
    /// The two mailbox squares of the move in the same slot, in either order; (0, 0) is free.
    squares: [(u8, u8); SIZE],
}

const fn first_slot(key: u64) -> usize {
    (key & (SIZE as u64 - 1)) as usize
}

const fn second_slot(key: u64) -> usize {
    ((key >> 16) & (SIZE as u64 - 1)) as usize
}

/// Whether a `kind` on one square reaches the other on an empty board (pawns never: their
/// moves cannot be taken back).
const fn reaches(kind: PieceKind, a: usize, b: usize) -> bool {
    let files = (a % 8).abs_diff(b % 8);
    let ranks = (a / 8).abs_diff(b / 8);
    let diagonal = files == ranks && files > 0;
    let straight = (files == 0) != (ranks == 0);
    match kind {
        PieceKind::Pawn => false,
        PieceKind::Knight => (files == 1 && ranks == 2) || (files == 2 && ranks == 1),
        PieceKind::Bishop => diagonal,
        PieceKind::Rook => straight,
        PieceKind::Queen => diagonal || straight,
        PieceKind::King => files <= 1 && ranks <= 1 && files + ranks > 0,
    }
}

static CUCKOO: Cuckoo = {
    let mut table = Cuckoo { keys: [0; SIZE], squares: [(0, 0); SIZE] };
    let mut piece = 0;
    while piece < 12 {
        let color = if piece < 6 { Color::White } else { Color::Black };
        let p = Piece::new(color, PieceKind::ALL[piece % 6]).index();
        let kind = PieceKind::ALL[piece % 6];
        let mut a = 0;
        while a < 64 {
            let mut b = a + 1;
            while b < 64 {
                if reaches(kind, a, b) {
                    let (from, to) = (Square::from_index64(a).0, Square::from_index64(b).0);
                    let mut key = KEYS.pieces[p][from as usize] ^ KEYS.pieces[p][to as usize] ^ KEYS.black_to_move;
                    let mut squares = (from, to);
                    let mut slot = first_slot(key);
                    // Displace whatever holds the slot to its other slot, until a free one.
                    loop {
                        let (held_key, held_squares) = (table.keys[slot], table.squares[slot]);
                        table.keys[slot] = key;
                        table.squares[slot] = squares;
                        if held_squares.0 == 0 {
                            break;
                        }
                        key = held_key;
                        squares = held_squares;
                        slot = if slot == first_slot(key) { second_slot(key) } else { first_slot(key) };
                    }
                }
                b += 1;
            }
            a += 1;
        }
        piece += 1;
    }
    table
};

/// The squares of the reversible move that changes a key by `difference`, if there is one.
#[inline]
fn reversible_move(difference: u64) -> Option<(Square, Square)> {
    let slot = first_slot(difference);
    let slot = if CUCKOO.keys[slot] == difference { slot } else { second_slot(difference) };
    (CUCKOO.keys[slot] == difference).then(|| (Square(CUCKOO.squares[slot].0), Square(CUCKOO.squares[slot].1)))
}

impl Board {
    /// True if the side to move has a legal-looking move (its path clear; the piece's own
    /// legality is not checked, as in Stockfish) back to a position of the line that counts as a
    /// draw: within the search (`search_ply` moves) any earlier one, before it one that has
    /// already occurred twice. Only the positions since the last capture, pawn move or null
    /// move are looked at (the halfmove clock), where the opponent's moves since have undone
    /// themselves.
    pub fn has_upcoming_repetition(&self, search_ply: usize) -> bool {
        let reachable = (self.halfmove_clock as usize).min(self.history.len());
        if reachable < 3 {
            return false;
        }
        let len = self.history.len();
        let key_back = |back: usize| if back == 0 { self.key } else { self.history[len - back].key };
        // The key changes of the opponent's moves since the position `back` plies ago: zero
        // when they cancel out, so that the keys differ by our moves alone.
        let mut theirs = self.key ^ key_back(1) ^ KEYS.black_to_move;
        for back in (3..=reachable).step_by(2) {
            theirs ^= key_back(back - 1) ^ key_back(back) ^ KEYS.black_to_move;
            if theirs != 0 {
                continue;
            }
            let Some((a, b)) = reversible_move(self.key ^ key_back(back)) else { continue };
            if !path_is_clear(self.occupied(), a, b) {
                continue;
            }
            if search_ply > back {
                return true;
            }
            // Before the root, the move must be ours (the table holds both directions of each
            // move), and the position it returns to must already have occurred twice.
            let mover = if self.squares[a].is_empty() { self.squares[b] } else { self.squares[a] };
            if mover.is_color(self.side) && self.occurred_before(len - back) {
                return true;
            }
        }
        false
    }

    /// Whether the position before the move `index` of the history had occurred before it,
    /// since the last capture or pawn move before it.
    fn occurred_before(&self, index: usize) -> bool {
        let then = &self.history[index];
        let reachable = (then.halfmove_clock as usize).min(index);
        (2..=reachable).step_by(2).any(|back| self.history[index - back].key == then.key)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::board::{Move, START_FEN, flag};

    fn play(board: &mut Board, moves: &[&str]) {
        for text in moves {
            let square = |at: usize| Square::parse(&text[at..at + 2]).unwrap();
            board.make_move(Move::new(square(0), square(2), flag::QUIET));
        }
    }

    /// Every reversible move of every piece is in the table, once: Stockfish's count.
    #[test]
    fn the_table_holds_every_reversible_move() {
        assert_eq!(CUCKOO.squares.iter().filter(|s| s.0 != 0).count(), 3668);
        let knight = Piece::new(super::super::Color::White, PieceKind::Knight).index();
        let (g1, f3) = (Square::parse("g1").unwrap(), Square::parse("f3").unwrap());
        let difference = KEYS.pieces[knight][g1.0 as usize] ^ KEYS.pieces[knight][f3.0 as usize] ^ KEYS.black_to_move;
        let found = reversible_move(difference).unwrap();
        assert!(found == (g1, f3) || found == (f3, g1));
        assert_eq!(reversible_move(difference ^ 1), None);
    }

    /// After Nf3 Nf6 Ng1, Black can go back with Ng8, reaching the start position again: a
    /// repetition inside the search (the start four plies up), but not when the start stood
    /// before the root, where it has occurred only once.
    #[test]
    fn a_move_back_is_an_upcoming_repetition() {
        let mut board = Board::from_fen(START_FEN).unwrap();
        play(&mut board, &["g1f3", "g8f6", "f3g1"]);
        assert!(board.has_upcoming_repetition(4));
        assert!(!board.has_upcoming_repetition(3));
        assert!(!board.has_upcoming_repetition(0));
        // White's knight has not come back: no Black move returns to a position.
        let mut board = Board::from_fen(START_FEN).unwrap();
        play(&mut board, &["g1f3", "g8f6", "b1c3"]);
        assert!(!board.has_upcoming_repetition(4));
    }

    /// A way back that a piece now blocks is none: the queen went from h8 to h6 round by g7
    /// while White's rook went a1-a2-a3-a1, and Qh8 would return to the first position but
    /// for the pawn on h7.
    #[test]
    fn a_blocked_way_back_is_none() {
        let after = |fen: &str| {
            let mut board = Board::from_fen(fen).unwrap();
            play(&mut board, &["a1a2", "h8g7", "a2a3", "g7h6", "a3a1"]);
            board.has_upcoming_repetition(6)
        };
        assert!(!after("1k5q/7p/8/8/8/8/8/R3K3 w - - 0 1"));
        assert!(after("1k5q/p7/8/8/8/8/8/R3K3 w - - 0 1"));
    }

    /// Before the root, the position gone back to must have stood twice already.
    #[test]
    fn before_the_root_it_takes_a_third_occurrence() {
        let mut board = Board::from_fen(START_FEN).unwrap();
        play(&mut board, &["g1f3", "g8f6", "f3g1", "f6g8", "g1f3", "g8f6", "f3g1"]);
        // Ng8 now makes the start position's third occurrence.
        assert!(board.has_upcoming_repetition(0));
    }
}
