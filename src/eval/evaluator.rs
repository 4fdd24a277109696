//! The evaluation as the search sees it: one object per search thread that follows the line
//! being searched (`push` a move, `pop` it) and scores its last position. Whether a network or
//! the hand-crafted evaluation answers, and whatever state that takes (the network's
//! accumulators, one per ply, and its refresh cache; the hand-crafted evaluation's pawn
//! cache), stays in here, so the search neither knows nor branches on which evaluation it
//! serves.

use super::nnue::{Accumulator, Network, RefreshCache};
use super::{PawnCache, evaluate, scale_network};
use crate::board::{Board, Move};
use std::sync::Arc;

/// Which evaluation to search with: cheap to clone, and two are the same evaluation only if
/// they are the same network (by address) or both the hand-crafted one.
#[derive(Clone, Debug)]
pub enum Evaluation {
    Network(Arc<Network>),
    HandCrafted,
}

impl Evaluation {
    /// The network built into the binary.
    pub fn embedded() -> Evaluation {
        Evaluation::Network(super::nnue::embedded())
    }

    /// Whether the two would score every position alike, without comparing the networks'
    /// weights: a loaded file is a new network even if its bytes match the old one's.
    pub fn same_as(&self, other: &Evaluation) -> bool {
        match (self, other) {
            (Evaluation::Network(a), Evaluation::Network(b)) => Arc::ptr_eq(a, b),
            (Evaluation::HandCrafted, Evaluation::HandCrafted) => true,
            _ => false,
        }
    }
}

/// One thread's evaluation state, kept from one search to the next (its buffers and caches
/// are worth keeping, and `start` makes it follow a new root).
pub struct Evaluator {
    state: State,
    /// Positions evaluated since the start: the debug check of the accumulators samples them.
    evaluations: u64,
}

enum State {
    /// The accumulators of every position on the line, the root's first; `top` is the last.
    /// The stack grows to the deepest line followed and stays that long, so after the first
    /// search nothing is allocated (and the evaluation needs no word of the search's limits).
    Network {
        network: Arc<Network>,
        stack: Vec<Accumulator>,
        top: usize,
        cache: RefreshCache,
    },
    HandCrafted {
        pawns: PawnCache,
    },
}

impl Evaluator {
    /// An evaluator for `evaluation`, following the start position until `start` says otherwise.
    pub fn new(evaluation: &Evaluation) -> Evaluator {
        let state = match evaluation {
            Evaluation::Network(network) => {
                let root = Accumulator::new(network, &Board::start_position());
                State::Network {
                    network: Arc::clone(network),
                    stack: vec![root],
                    top: 0,
                    cache: RefreshCache::new(network),
                }
            }
            Evaluation::HandCrafted => State::HandCrafted { pawns: PawnCache::new() },
        };
        Evaluator { state, evaluations: 0 }
    }

    /// Follows a new line from `board` with `evaluation`, keeping the buffers and the caches
    /// when the evaluation is the one it had.
    pub fn start(&mut self, evaluation: &Evaluation, board: &Board) {
        match (&mut self.state, evaluation) {
            (State::Network { network, stack, top, .. }, Evaluation::Network(wanted))
                if Arc::ptr_eq(network, wanted) =>
            {
                *top = 0;
                stack[0] = Accumulator::new(network, board);
            }
            (State::HandCrafted { .. }, Evaluation::HandCrafted) => {}
            _ => {
                *self = Evaluator::new(evaluation);
                self.start(evaluation, board);
            }
        }
    }

    /// `mv` is about to be played on `board`: what the position after it needs.
    #[inline(always)]
    pub fn push(&mut self, board: &Board, mv: Move) {
        if let State::Network { network, stack, top, cache } = &mut self.state {
            grow(stack, *top);
            let (done, next) = stack.split_at_mut(*top + 1);
            done[*top].play_into(&mut next[0], network, board, mv, cache);
            *top += 1;
        }
    }

    /// The side to move passes: the pieces, and so the accumulators, stay as they were.
    pub fn push_null(&mut self) {
        if let State::Network { stack, top, .. } = &mut self.state {
            grow(stack, *top);
            stack[*top + 1] = stack[*top];
            *top += 1;
        }
    }

    /// The last move pushed is taken back.
    #[inline(always)]
    pub fn pop(&mut self) {
        if let State::Network { top, .. } = &mut self.state {
            *top -= 1;
        }
    }

    /// The evaluation of `board`, the position the pushed moves lead to, for its side to move.
    pub fn evaluate(&mut self, board: &Board) -> i32 {
        self.evaluations += 1;
        match &mut self.state {
            State::Network { network, stack, top, .. } => {
                let acc = &stack[*top];
                // Tests build with debug assertions: there, every so often, the incremental
                // accumulators must equal freshly computed ones.
                debug_assert!(
                    !self.evaluations.is_multiple_of(61) || *acc == Accumulator::new(network, board),
                    "incremental accumulators differ from fresh ones in {}",
                    board.to_fen()
                );
                scale_network(board, acc.evaluate(network, board.side_to_move(), network.output_bucket(board)))
            }
            State::HandCrafted { pawns } => evaluate(board, pawns),
        }
    }
}

/// Makes room above `top` for the next position's accumulator.
#[inline(always)]
fn grow(stack: &mut Vec<Accumulator>, top: usize) {
    if top + 1 == stack.len() {
        stack.push(stack[top]);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::board::PieceKind;
    use crate::eval::nnue::{Activation, HIDDEN, Shape, quartered, random_network_of};
    use crate::movegen::legal_moves;

    /// With a network of king buckets (mirrored) and output buckets, the evaluator follows a
    /// line of king walks, null moves and take-backs from a new root, as the search drives it,
    /// and scores every position as the network does from scratch.
    #[test]
    fn a_bucketed_network_follows_the_line() {
        let shape = Shape { kings: quartered(), output_buckets: 8, ..Shape::plain(HIDDEN, Activation::SCReLU) };
        let evaluation = Evaluation::Network(Arc::new(random_network_of(shape, 31)));
        let Evaluation::Network(network) = &evaluation else { unreachable!() };
        let mut evaluator = Evaluator::new(&evaluation);
        let mut board = Board::from_fen("r3k2r/pp3ppp/2n5/3p4/3P4/2N5/PP3PPP/R3K2R w KQkq - 0 12").unwrap();
        evaluator.start(&evaluation, &board);
        let (mut state, mut nulls, mut crossings) = (7u64, Vec::new(), 0);
        for step in 0..600 {
            state = state.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            let pick = (state >> 33) as usize;
            let moves = legal_moves(&board);
            if !nulls.is_empty() && (moves.is_empty() || pick.is_multiple_of(5) || nulls.len() == 60) {
                evaluator.pop();
                if nulls.pop() == Some(true) { board.unmake_null_move() } else { board.unmake_move() }
            } else if !board.in_check() && pick.is_multiple_of(7) {
                evaluator.push_null();
                board.make_null_move();
                nulls.push(true);
            } else {
                // King moves half the time, so that the king crosses the buckets' boundaries.
                let king = |mv: &&Move| board.piece_at(mv.from()).is_kind(PieceKind::King);
                let kings: Vec<Move> = moves.as_slice().iter().filter(king).copied().collect();
                let mv = if !kings.is_empty() && pick.is_multiple_of(2) {
                    kings[pick / 2 % kings.len()]
                } else {
                    moves.as_slice()[pick / 2 % moves.len()]
                };
                let us = board.side_to_move();
                let view = |board: &Board| shape.view(us, board.king_square(us));
                let before = view(&board);
                evaluator.push(&board, mv);
                board.make_move(mv);
                crossings += (view(&board) != before) as usize;
                nulls.push(false);
            }
            let expected = crate::eval::scale_network(&board, network.evaluate(&board));
            assert_eq!(evaluator.evaluate(&board), expected, "step {step}: {}", board.to_fen());
        }
        assert!(crossings > 20, "{crossings} king moves into another view");
    }
}
