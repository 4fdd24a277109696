//! Making and unmaking moves. Both run on every node of every search, so they touch only the
//! squares the move changes and never allocate (the undo stack is reserved up front).

use super::zobrist::KEYS;
use super::{Board, Castling, Undo, right_index};
use super::{Color, Move, Piece, PieceKind, Square, flag};

impl Board {
    /// The square of the rook a castling move castles with. The move may belong to a later
    /// position of the game (a line of the search): its colour is that of the back rank the
    /// king castles on, and the rook squares are the game's.
    pub fn castling_rook_square(&self, mv: Move) -> Square {
        let color = if mv.from().rank() == 0 { Color::White } else { Color::Black };
        self.castling_rook(color, mv).0
    }

    /// A move in coordinate notation: castling as the king's move to its landing square
    /// (`e1g1`), or with `chess960` as the king taking its own rook (`e1h1`), the form Chess960
    /// needs because there the king may not move at all, or only one square.
    pub fn move_text(&self, mv: Move, chess960: bool) -> String {
        if chess960 && mv.is_castle() {
            format!("{}{}", mv.from(), self.castling_rook_square(mv))
        } else {
            mv.to_string()
        }
    }

    /// The rook's journey when `us` castles with `mv`.
    #[inline]
    fn castling_rook(&self, us: Color, mv: Move) -> (Square, Square) {
        let king_side = mv.flag() == flag::KING_CASTLE;
        (self.castle_table.rook_from(right_index(us, king_side)), Castling::landing(us, king_side).1)
    }

    /// The key the position will have after `mv`, for the search to fetch the table's entry
    /// while it updates the evaluation: the piece's journey, a capture and the side to move.
    /// Castling, promotion, en passant and changes of rights are left out, so for those few
    /// moves it is only a guess, which costs a wasted fetch, nothing more.
    #[inline(always)]
    pub fn key_after(&self, mv: Move) -> u64 {
        let (from, to) = (mv.from().0 as usize, mv.to().0 as usize);
        let moved = &KEYS.pieces[self.squares[mv.from()].index()];
        let mut key = self.key ^ KEYS.black_to_move ^ moved[from] ^ moved[to];
        let captured = self.squares[mv.to()];
        if captured != Piece::EMPTY {
            key ^= KEYS.pieces[captured.index()][to];
        }
        key
    }

    /// Plays a legal move (one from the move generator).
    #[inline(always)]
    pub fn make_move(&mut self, mv: Move) {
        let from = mv.from();
        let to = mv.to();
        let us = self.side;
        let captured_square = if mv.is_en_passant() { to.offset(-us.forward()) } else { to };
        self.save_state(mv, self.squares[captured_square]);

        self.clear_en_passant();
        self.halfmove_clock = self.halfmove_clock.saturating_add(1);
        if mv.is_capture() {
            self.remove_piece(captured_square);
            self.halfmove_clock = 0;
        }
        if mv.is_castle() {
            let (rook_from, rook_to) = self.castling_rook(us, mv);
            self.shift_pair::<true>([from, rook_from], [to, rook_to]);
        } else {
            self.move_piece(from, to);
            if self.squares[to].is_kind(PieceKind::Pawn) {
                self.halfmove_clock = 0;
                if mv.flag() == flag::DOUBLE_PUSH {
                    self.en_passant = from.offset(us.forward());
                } else if let Some(kind) = mv.promoted() {
                    self.remove_piece(to);
                    self.add_piece(to, Piece::new(us, kind));
                }
            }
        }

        let castling = self.castle_table.after_move(self.castling, from, to);
        if castling != self.castling {
            self.key ^= self.castle_table.key(self.castling) ^ self.castle_table.key(castling);
            self.castling = castling;
        }
        if us == Color::Black {
            self.fullmove_number = self.fullmove_number.saturating_add(1);
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
        self.fullmove_number = undo.fullmove_number;

        if mv.is_promotion() {
            self.take_piece::<false>(to);
            self.put_piece::<false>(to, Piece::new(us, PieceKind::Pawn));
        }
        if mv.is_castle() {
            let (rook_from, rook_to) = self.castling_rook(us, mv);
            self.shift_pair::<false>([to, rook_to], [from, rook_from]);
        } else {
            self.shift_piece::<false>(to, from);
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
        self.non_pawn_keys = undo.non_pawn_keys;
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
            fullmove_number: self.fullmove_number,
            key: self.key,
            pawn_key: self.pawn_key,
            non_pawn_keys: self.non_pawn_keys,
        });
    }

    fn clear_en_passant(&mut self) {
        if self.en_passant_capturable() {
            self.key ^= KEYS.en_passant_file[self.en_passant.file() as usize];
        }
        self.en_passant = Square::NONE;
    }
}
