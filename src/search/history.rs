//! What the search has learned about moves, for ordering them: killers (quiet moves that
//! refuted a sibling position at the same ply), counter-moves (the reply that last refuted the
//! opponent's move), history scores for quiet moves (by from-to square, and by the moves one
//! and two plies before, "continuation history"), and for captures (by piece, target square
//! and victim).

use super::MAX_PLY;
use crate::board::{Board, Move, Piece, PieceKind, Square};

/// History scores stay within +-MAX_HISTORY: each update moves a score a fraction of the way
/// towards the bound ("gravity"), so old lessons fade and no score can overflow.
const MAX_HISTORY: i32 = 16384;

/// A move as continuation history sees it: the piece that moved and where to.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct MoveContext {
    piece: u8,
    to: u8,
}

impl MoveContext {
    /// Stands for a null move, or for no move at all before the root.
    pub const NONE: MoveContext = MoveContext { piece: 0, to: 0 };

    pub fn of(piece: Piece, to: Square) -> MoveContext {
        MoveContext { piece: piece.index() as u8, to: to.index64() as u8 }
    }
}

/// Scores for every (piece, destination) of a reply.
type Replies = [[i16; 64]; Piece::COUNT];

pub struct History {
    butterfly: [[[i16; 64]; 64]; 2],
    /// Quiet moves by the move before: indexed by that move's context, then by the reply.
    continuation: Box<[[Replies; 64]; Piece::COUNT]>,
    /// Captures by moving piece, destination and the kind captured.
    captures: [[[i16; 7]; 64]; Piece::COUNT],
    killers: [[Move; 2]; MAX_PLY + 1],
    /// Indexed by the piece that made the previous move and its destination.
    counters: [[Move; 64]; Piece::COUNT],
}

/// Moves one and two plies before the position whose moves are being ordered.
pub type Contexts = [MoveContext; 2];

impl History {
    pub fn new() -> History {
        let continuation = vec![[[[0; 64]; Piece::COUNT]; 64]; Piece::COUNT].into_boxed_slice();
        History {
            butterfly: [[[0; 64]; 64]; 2],
            continuation: continuation.try_into().expect("sixteen contexts"),
            captures: [[[0; 7]; 64]; Piece::COUNT],
            killers: [[Move::NONE; 2]; MAX_PLY + 1],
            counters: [[Move::NONE; 64]; Piece::COUNT],
        }
    }

    /// How promising a quiet move is: its from-to history plus how it has fared as a reply to
    /// the last move and as a follow-up to our own move before that.
    #[inline]
    pub fn quiet_score(&self, board: &Board, mv: Move, contexts: Contexts) -> i32 {
        let side = board.side_to_move();
        let piece = board.piece_at(mv.from()).index();
        let to = mv.to().index64();
        let mut score = self.butterfly[side.index()][mv.from().index64()][to] as i32;
        for context in contexts {
            score += self.continuation[context.piece as usize][context.to as usize][piece][to] as i32;
        }
        score
    }

    /// How well a capture has done before, beyond what its victim is worth.
    #[inline]
    pub fn capture_score(&self, board: &Board, mv: Move) -> i32 {
        let (piece, to, victim) = capture_key(board, mv);
        self.captures[piece][to][victim] as i32
    }

    #[inline]
    pub fn killers(&self, ply: usize) -> [Move; 2] {
        self.killers[ply]
    }

    /// The move that last refuted the opponent's previous move, if any.
    pub fn counter(&self, board: &Board) -> Move {
        match board.last_move() {
            Some(prev) if prev != Move::NONE => self.counters[board.piece_at(prev.to()).index()][prev.to().index64()],
            _ => Move::NONE,
        }
    }

    /// A move caused a beta cutoff after the quiet moves and captures in `tried` failed to:
    /// reward it and penalise them, by an amount that grows with the depth of the search that
    /// proved it. A quiet move also becomes a killer and the counter to the last move.
    pub fn reward(&mut self, board: &Board, best: Move, tried: &[Move], depth: i32, ply: usize, contexts: Contexts) {
        let bonus = (depth * depth).min(1200);
        for &mv in tried.iter().filter(|&&m| m != best && m.is_noisy() == best.is_noisy()) {
            self.update(board, mv, -bonus, contexts);
        }
        self.update(board, best, bonus, contexts);
        if best.is_noisy() {
            return;
        }
        if self.killers[ply][0] != best {
            self.killers[ply][1] = self.killers[ply][0];
            self.killers[ply][0] = best;
        }
        if let Some(prev) = board.last_move().filter(|&m| m != Move::NONE) {
            self.counters[board.piece_at(prev.to()).index()][prev.to().index64()] = best;
        }
    }

    fn update(&mut self, board: &Board, mv: Move, bonus: i32, contexts: Contexts) {
        if mv.is_noisy() {
            let (piece, to, victim) = capture_key(board, mv);
            gravity(&mut self.captures[piece][to][victim], bonus);
            return;
        }
        let side = board.side_to_move().index();
        let (piece, from, to) = (board.piece_at(mv.from()).index(), mv.from().index64(), mv.to().index64());
        gravity(&mut self.butterfly[side][from][to], bonus);
        for context in contexts {
            gravity(&mut self.continuation[context.piece as usize][context.to as usize][piece][to], bonus);
        }
    }

    /// Killers belong to the positions of one search: the ply below the root shifts by one
    /// ply each move of the game, so they are cleared rather than kept.
    pub fn clear_killers(&mut self) {
        self.killers = [[Move::NONE; 2]; MAX_PLY + 1];
    }
}

/// Moves a score `bonus` towards the bound, less the nearer it already is.
fn gravity(entry: &mut i16, bonus: i32) {
    let value = *entry as i32;
    *entry = (value + bonus - value * bonus.abs() / MAX_HISTORY) as i16;
}

/// Capture history's index: moving piece, destination, and kind captured (0 for a quiet queen
/// promotion, which counts among the captures).
fn capture_key(board: &Board, mv: Move) -> (usize, usize, usize) {
    let victim = if mv.is_en_passant() {
        PieceKind::Pawn.index()
    } else if mv.is_capture() {
        board.piece_at(mv.to()).kind().index()
    } else {
        0
    };
    (board.piece_at(mv.from()).index(), mv.to().index64(), victim)
}
