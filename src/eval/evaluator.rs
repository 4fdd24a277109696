//! The evaluation as the search sees it: one object per search thread that follows the line
//! being searched (`push` a move, `pop` it) and scores its last position. Whether a network or
//! the hand-crafted evaluation answers, and whatever state that takes (the network's
//! accumulators, one per ply; the hand-crafted evaluation's pawn cache), stays in here, so the search neither knows nor branches on which evaluation it
//! serves.

use super::nnue::{Accumulator, Net, Network, Simd};
use super::{PawnCache, evaluate, scale_network};
use crate::board::{Board, Move};
#[cfg(feature = "tune")]
use std::sync::Arc;

/// Which evaluation to search with: cheap to clone, and two are the same evaluation only if
/// they are the same network (by address) or both the hand-crafted one.
#[derive(Clone, Debug)]
pub enum Evaluation {
    Network(Network),
    HandCrafted,
    /// A network of a shape the engine does not compile, which the trainer's tools play with
    /// (`datagen --net`): evaluated afresh at each position, by the trainer's code.
    #[cfg(feature = "tune")]
    Trial(Arc<dyn TrialNetwork>),
}

/// A network of a shape under test, as the trainer reads it (`tune`).
#[cfg(feature = "tune")]
pub trait TrialNetwork: std::fmt::Debug + Send + Sync {
    /// The evaluation of `board` for its side to move, in centipawns.
    fn evaluate(&self, board: &Board) -> i32;
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
            (Evaluation::Network(a), Evaluation::Network(b)) => a.same_as(b),
            (Evaluation::HandCrafted, Evaluation::HandCrafted) => true,
            #[cfg(feature = "tune")]
            (Evaluation::Trial(a), Evaluation::Trial(b)) => Arc::ptr_eq(a, b),
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
    Network(Line),
    HandCrafted {
        pawns: PawnCache,
    },
    #[cfg(feature = "tune")]
    Trial(Arc<dyn TrialNetwork>),
}

/// The accumulators of every position on the line, the root's first; `top` is the last. The
/// stack grows to the deepest line followed and stays that long, so after the first search
/// nothing is allocated (and the evaluation needs no word of the search's limits).
struct Line {
    network: Network,
    stack: Vec<Accumulator>,
    top: usize,
    /// The network's loops this process runs (`Simd::current`).
    simd: Simd,
}

impl Line {
    fn new(network: &Network) -> Line {
        let root = Accumulator::new(network, &Board::start_position());
        Line { network: network.clone(), stack: vec![root], top: 0, simd: Simd::current() }
    }

    fn start(&mut self, board: &Board) {
        self.top = 0;
        self.stack[0] = Accumulator::new(&self.network, board);
    }

    #[inline(always)]
    fn push(&mut self, board: &Board, mv: Move) {
        self.grow();
        let (done, next) = self.stack.split_at_mut(self.top + 1);
        done[self.top].play_into(&mut next[0], &self.network, board, mv, self.simd);
        self.top += 1;
    }

    fn push_null(&mut self) {
        self.grow();
        self.stack[self.top + 1] = self.stack[self.top];
        self.top += 1;
    }

    /// Makes room above `top` for the next position's accumulator.
    #[inline(always)]
    fn grow(&mut self) {
        if self.top + 1 == self.stack.len() {
            self.stack.push(self.stack[self.top]);
        }
    }

    #[inline(always)]
    fn evaluate(&self, board: &Board, evaluations: u64) -> i32 {
        let (network, acc) = (&self.network, &self.stack[self.top]);
        // Tests build with debug assertions: there, every so often, the incremental
        // accumulators must equal freshly computed ones.
        debug_assert!(
            !evaluations.is_multiple_of(61) || *acc == Accumulator::new(network, board),
            "incremental accumulators differ from fresh ones in {}",
            board.to_fen()
        );
        let bucket = Net::output_bucket(board);
        scale_network(board, acc.evaluate(network, board.side_to_move(), bucket, self.simd))
    }
}

impl Evaluator {
    /// An evaluator for `evaluation`, following the start position until `start` says otherwise.
    pub fn new(evaluation: &Evaluation) -> Evaluator {
        let state = match evaluation {
            Evaluation::Network(network) => State::Network(Line::new(network)),
            Evaluation::HandCrafted => State::HandCrafted { pawns: PawnCache::new() },
            #[cfg(feature = "tune")]
            Evaluation::Trial(network) => State::Trial(Arc::clone(network)),
        };
        Evaluator { state, evaluations: 0 }
    }

    /// Follows a new line from `board` with `evaluation`, keeping the buffers and the caches
    /// when the evaluation is the one it had.
    pub fn start(&mut self, evaluation: &Evaluation, board: &Board) {
        match (&mut self.state, evaluation) {
            (State::Network(line), Evaluation::Network(wanted)) if line.network.same_as(wanted) => line.start(board),
            (State::HandCrafted { .. }, Evaluation::HandCrafted) => {}
            #[cfg(feature = "tune")]
            (State::Trial(network), Evaluation::Trial(wanted)) if Arc::ptr_eq(network, wanted) => {}
            _ => {
                *self = Evaluator::new(evaluation);
                self.start(evaluation, board);
            }
        }
    }

    /// `mv` is about to be played on `board`: what the position after it needs.
    #[inline(always)]
    pub fn push(&mut self, board: &Board, mv: Move) {
        if let State::Network(line) = &mut self.state {
            line.push(board, mv);
        }
    }

    /// The side to move passes: the pieces, and so the accumulators, stay as they were.
    pub fn push_null(&mut self) {
        if let State::Network(line) = &mut self.state {
            line.push_null();
        }
    }

    /// The last move pushed is taken back.
    #[inline(always)]
    pub fn pop(&mut self) {
        if let State::Network(line) = &mut self.state {
            line.top -= 1;
        }
    }

    /// The evaluation of `board`, the position the pushed moves lead to, for its side to move.
    pub fn evaluate(&mut self, board: &Board) -> i32 {
        self.evaluations += 1;
        match &mut self.state {
            State::Network(line) => line.evaluate(board, self.evaluations),
            State::HandCrafted { pawns } => evaluate(board, pawns),
            #[cfg(feature = "tune")]
            State::Trial(network) => scale_network(board, network.evaluate(board)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::eval::nnue::{mirrored, random_network};
    use crate::movegen::legal_moves;

    /// The evaluator follows a line of moves, null moves and take-backs from a new root, as the
    /// search drives it, and scores every position as the network does from scratch. One
    /// evaluator serves three networks (one mirrored) and the hand-crafted evaluation in turn,
    /// as a thread does when `EvalFile` or `Use NNUE` changes.
    #[test]
    fn the_network_follows_the_line() {
        let mut evaluator = Evaluator::new(&Evaluation::HandCrafted);
        for network in [random_network(31), random_network(32), mirrored(&random_network(33))] {
            follow_a_line(&mut evaluator, &network);
            let board = Board::start_position();
            evaluator.start(&Evaluation::HandCrafted, &board);
            assert_eq!(evaluator.evaluate(&board), evaluate(&board, &mut PawnCache::new()));
        }
    }

    fn follow_a_line(evaluator: &mut Evaluator, network: &Network) {
        let evaluation = Evaluation::Network(network.clone());
        let mut board = Board::from_fen("r3k2r/pp3ppp/2n5/3p4/3P4/2N5/PP3PPP/R3K2R w KQkq - 0 12").unwrap();
        evaluator.start(&evaluation, &board);
        let (mut state, mut nulls) = (7u64, Vec::new());
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
                let mv = moves.as_slice()[pick / 2 % moves.len()];
                evaluator.push(&board, mv);
                board.make_move(mv);
                nulls.push(false);
            }
            let expected = crate::eval::scale_network(&board, network.evaluate(&board));
            assert_eq!(evaluator.evaluate(&board), expected, "step {step}: {}", board.to_fen());
        }
    }
}
