//! Making and unmaking moves. Both run on every node of every search, so they touch only the
//! squares the move changes and never allocate (the undo stack is reserved up front).

use super::zobrist::KEYS;
use super::{Board, Undo, castle};
use super::{Color, Move, Piece, PieceKind, Square, SquareMap, flag};

/// Castling rights that survive a move touching each square: moving or capturing on a king or
/// rook home square clears the rights that depend on it.
static CASTLING_KEPT: SquareMap<u8> = {
    let mut kept = SquareMap::filled(0b1111);
    kept.0[Square::A1.0 as usize] = !castle::WHITE_QUEEN & 0b1111;
    kept.0[Square::E1.0 as usize] = !(castle::WHITE_KING | castle::WHITE_QUEEN) & 0b1111;
    kept.0[Square::H1.0 as usize] = !castle::WHITE_KING & 0b1111;
    kept.0[Square::A8.0 as usize] = !castle::BLACK_QUEEN & 0b1111;
    kept.0[Square::E8.0 as usize] = !(castle::BLACK_KING | castle::BLACK_QUEEN) & 0b1111;
    kept.0[Square::H8.0 as usize] = !castle::BLACK_KING & 0b1111;
    kept
};

/// The rook's journey for a castling move, given the king's origin and the move flag.
fn castling_rook(king_from: Square, mv_flag: u16) -> (Square, Square) {
    if mv_flag == flag::KING_CASTLE {
        (king_from.offset(3), king_from.offset(1))
    } else {
        (king_from.offset(-4), king_from.offset(-1))
    }
}

impl Board {
    /// Plays a legal move (one from the move generator).
    #[inline(always)]
    pub fn make_move(&mut self, mv: Move) {
        let from = mv.from();
        let to = mv.to();
        let us = self.side;
        let captured_square = if mv.is_en_passant() { to.offset(-us.forward()) } else { to };
        self.save_state(mv, self.squares[captured_square]);

        self.clear_en_passant();
        self.halfmove_clock += 1;
        if mv.is_capture() {
            self.remove_piece(captured_square);
            self.halfmove_clock = 0;
        }
        self.move_piece(from, to);
        if self.squares[to].is_kind(PieceKind::Pawn) {
            self.halfmove_clock = 0;
            if mv.flag() == flag::DOUBLE_PUSH {
                self.en_passant = from.offset(us.forward());
            } else if let Some(kind) = mv.promoted() {
                self.remove_piece(to);
                self.add_piece(to, Piece::new(us, kind));
            }
        } else if mv.is_castle() {
            let (rook_from, rook_to) = castling_rook(from, mv.flag());
            self.move_piece(rook_from, rook_to);
        }

        let castling = self.castling & CASTLING_KEPT[from] & CASTLING_KEPT[to];
        if castling != self.castling {
            self.key ^= KEYS.castling[self.castling as usize] ^ KEYS.castling[castling as usize];
            self.castling = castling;
        }
        if us == Color::Black {
            self.fullmove_number += 1;
        }
        self.side = !us;
        self.key ^= KEYS.black_to_move;
        if self.en_passant_capturable() {
            self.key ^= KEYS.en_passant_file[self.en_passant.file() as usize];
        }
    }

    /// Takes back the last move made with `make_move`.
    #[inline(always)]
    pub fn unmake_move(&mut self) {
        let undo = self.history.pop().expect("unmake_move without a move to take back");
        let mv = undo.mv;
        let from = mv.from();
        let to = mv.to();
        let us = !self.side;
        self.side = us;
        if us == Color::Black {
            self.fullmove_number -= 1;
        }

        if mv.is_promotion() {
            self.take_piece::<false>(to);
            self.put_piece::<false>(to, Piece::new(us, PieceKind::Pawn));
        }
        self.shift_piece::<false>(to, from);
        if mv.is_castle() {
            let (rook_from, rook_to) = castling_rook(from, mv.flag());
            self.shift_piece::<false>(rook_to, rook_from);
        }
        if mv.is_capture() {
            let captured_square = if mv.is_en_passant() { to.offset(-us.forward()) } else { to };
            self.put_piece::<false>(captured_square, undo.captured);
        }

        self.castling = undo.castling;
        self.en_passant = undo.en_passant;
        self.halfmove_clock = undo.halfmove_clock;
        self.key = undo.key;
        self.pawn_key = undo.pawn_key;
    }

    /// Passes the turn, for null-move pruning. The halfmove clock restarts so that no
    /// repetition is ever matched across a null move (the positions were not really repeated).
    pub fn make_null_move(&mut self) {
        self.save_state(Move::NONE, Piece::EMPTY);
        self.clear_en_passant();
        self.halfmove_clock = 0;
        self.side = !self.side;
        self.key ^= KEYS.black_to_move;
    }

    pub fn unmake_null_move(&mut self) {
        let undo = self.history.pop().expect("unmake_null_move without a null move");
        self.side = !self.side;
        self.en_passant = undo.en_passant;
        self.halfmove_clock = undo.halfmove_clock;
        self.key = undo.key;
    }

    /// Pushes what taking `mv` back will need to restore.
    #[inline(always)]
    fn save_state(&mut self, mv: Move, captured: Piece) {
        self.history.push(Undo {
            mv,
            captured,
            castling: self.castling,
            en_passant: self.en_passant,
            halfmove_clock: self.halfmove_clock,
            key: self.key,
            pawn_key: self.pawn_key,
        });
    }

    fn clear_en_passant(&mut self) {
        if self.en_passant_capturable() {
            self.key ^= KEYS.en_passant_file[self.en_passant.file() as usize];
        }
        self.en_passant = Square::NONE;
    }
}
