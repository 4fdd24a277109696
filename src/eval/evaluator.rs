//! The evaluation as the search sees it: one object per search thread that follows the line
//! being searched (`push` a move, `pop` it) and scores its last position. Whether a network or
//! the hand-crafted evaluation answers, and whatever state that takes (the network's
//! accumulators, one per ply, and its refresh cache; the hand-crafted evaluation's pawn
//! cache), stays in here, so the search neither knows nor branches on which evaluation it
//! serves.

use super::nnue::{Accumulator, NARROW, Net, Network, RefreshCache, WIDE};
use super::{PawnCache, evaluate, scale_network};
use crate::board::{Board, Move};
use std::sync::Arc;

/// Which evaluation to search with: cheap to clone, and two are the same evaluation only if
/// they are the same network (by address) or both the hand-crafted one.
#[derive(Clone, Debug)]
pub enum Evaluation {
    Network(Network),
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
            (Evaluation::Network(a), Evaluation::Network(b)) => a.same_as(b),
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

/// The network's width picks the variant, once, so that every move the search makes runs
/// the code compiled for that width.
enum State {
    Narrow(Line<NARROW>),
    Wide(Line<WIDE>),
    HandCrafted { pawns: PawnCache },
}

/// The accumulators of every position on the line, the root's first; `top` is the last. The
/// stack grows to the deepest line followed and stays that long, so after the first search
/// nothing is allocated (and the evaluation needs no word of the search's limits).
struct Line<const H: usize> {
    network: Arc<Net<H>>,
    stack: Vec<Accumulator<H>>,
    top: usize,
    cache: RefreshCache<H>,
}

impl<const H: usize> Line<H> {
    fn new(network: &Arc<Net<H>>) -> Line<H> {
        let root = Accumulator::new(network, &Board::start_position());
        Line { network: Arc::clone(network), stack: vec![root], top: 0, cache: RefreshCache::new(network) }
    }

    fn start(&mut self, board: &Board) {
        self.top = 0;
        self.stack[0] = Accumulator::new(&self.network, board);
    }

    #[inline(always)]
    fn push(&mut self, board: &Board, mv: Move) {
        self.grow();
        let (done, next) = self.stack.split_at_mut(self.top + 1);
        done[self.top].play_into(&mut next[0], &self.network, board, mv, &mut self.cache);
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
        scale_network(board, acc.evaluate(network, board.side_to_move(), network.output_bucket(board)))
    }
}

impl Evaluator {
    /// An evaluator for `evaluation`, following the start position until `start` says otherwise.
    pub fn new(evaluation: &Evaluation) -> Evaluator {
        let state = match evaluation {
            Evaluation::Network(Network::Narrow(network)) => State::Narrow(Line::new(network)),
            Evaluation::Network(Network::Wide(network)) => State::Wide(Line::new(network)),
            Evaluation::HandCrafted => State::HandCrafted { pawns: PawnCache::new() },
        };
        Evaluator { state, evaluations: 0 }
    }

    /// Follows a new line from `board` with `evaluation`, keeping the buffers and the caches
    /// when the evaluation is the one it had.
    pub fn start(&mut self, evaluation: &Evaluation, board: &Board) {
        match (&mut self.state, evaluation) {
            (State::Narrow(line), Evaluation::Network(Network::Narrow(wanted)))
                if Arc::ptr_eq(&line.network, wanted) =>
            {
                line.start(board)
            }
            (State::Wide(line), Evaluation::Network(Network::Wide(wanted))) if Arc::ptr_eq(&line.network, wanted) => {
                line.start(board)
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
        match &mut self.state {
            State::Narrow(line) => line.push(board, mv),
            State::Wide(line) => line.push(board, mv),
            State::HandCrafted { .. } => {}
        }
    }

    /// The side to move passes: the pieces, and so the accumulators, stay as they were.
    pub fn push_null(&mut self) {
        match &mut self.state {
            State::Narrow(line) => line.push_null(),
            State::Wide(line) => line.push_null(),
            State::HandCrafted { .. } => {}
        }
    }

    /// The last move pushed is taken back.
    #[inline(always)]
    pub fn pop(&mut self) {
        match &mut self.state {
            State::Narrow(line) => line.top -= 1,
            State::Wide(line) => line.top -= 1,
            State::HandCrafted { .. } => {}
        }
    }

    /// The evaluation of `board`, the position the pushed moves lead to, for its side to move.
    pub fn evaluate(&mut self, board: &Board) -> i32 {
        self.evaluations += 1;
        match &mut self.state {
            State::Narrow(line) => line.evaluate(board, self.evaluations),
            State::Wide(line) => line.evaluate(board, self.evaluations),
            State::HandCrafted { pawns } => evaluate(board, pawns),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::board::PieceKind;
    use crate::eval::nnue::{Activation, Shape, WIDTHS, quartered, random_network_of};
    use crate::movegen::legal_moves;

    /// With a network of king buckets (mirrored) and output buckets, of each width, the
    /// evaluator follows a line of king walks, null moves and take-backs from a new root, as
    /// the search drives it, and scores every position as the network does from scratch. One
    /// evaluator serves all the networks in turn, as a thread does when `EvalFile` changes.
    #[test]
    fn a_bucketed_network_follows_the_line() {
        let mut evaluator = Evaluator::new(&Evaluation::HandCrafted);
        for hidden in WIDTHS {
            let shape = Shape { kings: quartered(), output_buckets: 8, ..Shape::plain(hidden, Activation::SCReLU) };
            follow_a_line(&mut evaluator, shape);
        }
    }

    fn follow_a_line(evaluator: &mut Evaluator, shape: Shape) {
        let network = random_network_of(shape, 31);
        let evaluation = Evaluation::Network(network.clone());
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
