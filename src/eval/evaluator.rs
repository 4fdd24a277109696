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

/// Accumulators kept for the line: one per ply a search can reach, and the root's.
const STACK_SIZE: usize = crate::search::MAX_PLY + 2;

/// One thread's evaluation state, kept from one search to the next (its buffers and caches
/// are worth keeping, and `start` makes it follow a new root).
pub struct Evaluator {
    state: State,
    /// Positions evaluated since the start: the debug check of the accumulators samples them.
    evaluations: u64,
}

enum State {
    /// The accumulators of every position on the line, the root's first; `top` is the last.
    Network {
        network: Arc<Network>,
        stack: Box<[Accumulator]>,
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
                    stack: vec![root; STACK_SIZE].into_boxed_slice(),
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
            let (done, next) = stack.split_at_mut(*top + 1);
            done[*top].play_into(&mut next[0], network, board, mv, cache);
            *top += 1;
        }
    }

    /// The side to move passes: the pieces, and so the accumulators, stay as they were.
    pub fn push_null(&mut self) {
        if let State::Network { stack, top, .. } = &mut self.state {
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
                scale_network(board, acc.evaluate(network, board.side_to_move(), board.piece_count()))
            }
            State::HandCrafted { pawns } => evaluate(board, pawns),
        }
    }
}
