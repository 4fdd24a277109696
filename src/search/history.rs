//! What the search has learned about quiet moves, for ordering them: killers (moves that
//! refuted a sibling position at the same ply), counter-moves (the reply that refuted the
//! opponent's last move before), and a history score for every from-to pair.

use super::MAX_PLY;
use crate::board::{Board, Color, Move};

/// History scores stay within +-MAX_HISTORY: each update moves a score a fraction of the way
/// towards the bound ("gravity"), so old lessons fade and no score can overflow.
const MAX_HISTORY: i32 = 16384;

pub struct History {
    butterfly: [[[i16; 64]; 64]; 2],
    killers: [[Move; 2]; MAX_PLY + 1],
    /// Indexed by the piece that made the previous move and its destination.
    counters: [[Move; 64]; 16],
}

impl History {
    pub fn new() -> History {
        History {
            butterfly: [[[0; 64]; 64]; 2],
            killers: [[Move::NONE; 2]; MAX_PLY + 1],
            counters: [[Move::NONE; 64]; 16],
        }
    }

    #[inline]
    pub fn score(&self, side: Color, mv: Move) -> i32 {
        self.butterfly[side.index()][mv.from().index64()][mv.to().index64()] as i32
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

    /// A quiet move caused a beta cutoff after `tried` (other quiets) failed to: reward it and
    /// penalise them, by an amount that grows with the depth of the search that proved it.
    pub fn reward_quiet(&mut self, board: &Board, best: Move, tried: &[Move], depth: i32, ply: usize) {
        let side = board.side_to_move();
        let bonus = (depth * depth).min(1200);
        self.update(side, best, bonus);
        for &mv in tried.iter().filter(|&&m| m != best) {
            self.update(side, mv, -bonus);
        }
        if self.killers[ply][0] != best {
            self.killers[ply][1] = self.killers[ply][0];
            self.killers[ply][0] = best;
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

    /// Killers belong to the positions of one search: the ply below the root shifts by one
    /// ply each move of the game, so they are cleared rather than kept.
    pub fn clear_killers(&mut self) {
        self.killers = [[Move::NONE; 2]; MAX_PLY + 1];
    }
}
