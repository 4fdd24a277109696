//! What the search has learned about quiet moves across searches, for ordering them:
//! counter-moves (the reply that refuted the opponent's last move before) and a history score
//! for every from-to pair. (Killers belong to one search's plies: they live on its stack.)

use crate::board::{Board, Color, Move};

/// History scores stay within +-MAX_HISTORY: each update moves a score a fraction of the way
/// towards the bound ("gravity"), so old lessons fade and no score can overflow.
const MAX_HISTORY: i32 = 16384;

pub struct History {
    butterfly: [[[i16; 64]; 64]; 2],
    /// Indexed by the piece that made the previous move and its destination.
    counters: [[Move; 64]; 16],
}

impl History {
    pub fn new() -> History {
        History { butterfly: [[[0; 64]; 64]; 2], counters: [[Move::NONE; 64]; 16] }
    }

    #[inline]
    pub fn score(&self, side: Color, mv: Move) -> i32 {
        self.butterfly[side.index()][mv.from().index64()][mv.to().index64()] as i32
    }

    /// The move that last refuted the opponent's previous move, if any.
    pub fn counter(&self, board: &Board) -> Move {
        match board.last_move() {
            Some(prev) if prev != Move::NONE => self.counters[board.piece_at(prev.to()).index()][prev.to().index64()],
            _ => Move::NONE,
        }
    }

    /// A quiet move caused a beta cutoff after `tried` (other quiets) failed to: reward it and
    /// penalise them, by an amount that grows with the depth of the search that proved it.
    pub fn reward_quiet(&mut self, board: &Board, best: Move, tried: &[Move], depth: i32) {
        let side = board.side_to_move();
        let bonus = (depth * depth).min(1200);
        self.update(side, best, bonus);
        for &mv in tried.iter().filter(|&&m| m != best) {
            self.update(side, mv, -bonus);
        }
        if let Some(prev) = board.last_move().filter(|&m| m != Move::NONE) {
            self.counters[board.piece_at(prev.to()).index()][prev.to().index64()] = best;
        }
    }

    fn update(&mut self, side: Color, mv: Move, bonus: i32) {
        let entry = &mut self.butterfly[side.index()][mv.from().index64()][mv.to().index64()];
        let value = *entry as i32;
        *entry = (value + bonus - value * bonus.abs() / MAX_HISTORY) as i16;
    }
}
