//! Staged move ordering: the move the transposition table remembers, then captures that do not
//! lose material (most valuable victim first, their capture history breaking near-ties), then
//! quiet moves (killers, the counter-move, then by history after the last two moves), and last
//! the captures that lose material by static exchange. Each stage is generated only when the one before is exhausted,
//! so a node that is refuted by its first move never generates the rest.

use super::history::{Continuations, History, PieceTo};
use super::params::Params;
use super::see::see_ge;
use crate::board::{Board, Move, PieceKind};
use crate::movegen::{MAX_MOVES, MoveList, generate, is_legal, kind};

#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Debug)]
enum Stage {
    TableMove,
    GenerateNoisy,
    Noisy,
    GenerateQuiet,
    Quiet,
    BadNoisy,
    Done,
}

/// Above any history score, so killers and the counter-move come first among quiet moves.
const KILLER_SCORE: i32 = 1 << 20;

pub struct MovePicker {
    stage: Stage,
    table_move: Move,
    /// Killers and counter-move, best first.
    refutations: [Move; 3],
    /// The moves before this node's, which the quiet moves' history is read after.
    continuations: Continuations,
    /// Late move pruning has given up on the quiet moves still to come.
    skip_quiets: bool,
    /// A capture's history counts one point of its ordering score per this much.
    capture_history_divisor: i32,
    /// The main search wants every move; quiescence only captures that do not lose material.
    all_moves: bool,
    moves: [Move; MAX_MOVES],
    scores: [i32; MAX_MOVES],
    len: usize,
    next: usize,
    /// Captures put off for losing material, kept in the order they were picked.
    bad_noisy: [Move; MAX_MOVES],
    bad_len: usize,
    bad_next: usize,
}

impl MovePicker {
    /// All moves, for the main search, with the ply's killers.
    pub fn new(
        board: &Board,
        table_move: Move,
        history: &History,
        killers: [Move; 2],
        continuations: Continuations,
        params: &Params,
    ) -> MovePicker {
        let [first, second] = killers;
        let refutations = [first, second, history.counter(board)];
        MovePicker::with_stages(table_move, refutations, continuations, params, true)
    }

    /// Captures and queen promotions that do not lose material, for quiescence search out of
    /// check.
    pub fn noisy(table_move: Move, params: &Params) -> MovePicker {
        let table_move = if table_move.is_noisy() { table_move } else { Move::NONE };
        MovePicker::with_stages(table_move, [Move::NONE; 3], Continuations([PieceTo::NONE; 2]), params, false)
    }

    fn with_stages(
        table_move: Move,
        refutations: [Move; 3],
        continuations: Continuations,
        params: &Params,
        all_moves: bool,
    ) -> MovePicker {
        MovePicker {
            stage: Stage::TableMove,
            table_move,
            refutations,
            continuations,
            skip_quiets: false,
            capture_history_divisor: params.capture_history_divisor(),
            all_moves,
            moves: [Move::NONE; MAX_MOVES],
            scores: [0; MAX_MOVES],
            len: 0,
            next: 0,
            bad_noisy: [Move::NONE; MAX_MOVES],
            bad_len: 0,
            bad_next: 0,
        }
    }

    pub fn next(&mut self, board: &Board, history: &History) -> Option<Move> {
        loop {
            match self.stage {
                Stage::TableMove => {
                    self.stage = Stage::GenerateNoisy;
                    if self.table_move != Move::NONE && is_legal(board, self.table_move) {
                        return Some(self.table_move);
                    }
                    self.table_move = Move::NONE;
                }
                Stage::GenerateNoisy => {
                    let divisor = self.capture_history_divisor;
                    self.fill::<{ kind::NOISY }>(board, |mv| {
                        capture_score(board, mv) + history.capture_score(board, mv) / divisor
                    });
                    self.stage = Stage::Noisy;
                }
                Stage::Noisy => match self.pick_best() {
                    Some(mv) if see_ge(board, mv, 0) => return Some(mv),
                    Some(mv) => {
                        self.bad_noisy[self.bad_len] = mv;
                        self.bad_len += 1;
                    }
                    None => self.stage = if self.all_moves { Stage::GenerateQuiet } else { Stage::Done },
                },
                Stage::GenerateQuiet if self.skip_quiets => self.stage = Stage::BadNoisy,
                Stage::GenerateQuiet => {
                    let (refutations, continuations) = (self.refutations, self.continuations);
                    self.fill::<{ kind::QUIET }>(board, |mv| match refutations.iter().position(|&r| r == mv) {
                        Some(rank) => KILLER_SCORE - rank as i32,
                        None => history.quiet_score(board, mv, continuations),
                    });
                    self.stage = Stage::Quiet;
                }
                Stage::Quiet if self.skip_quiets => self.stage = Stage::BadNoisy,
                Stage::Quiet => match self.pick_best() {
                    Some(mv) => return Some(mv),
                    None => self.stage = Stage::BadNoisy,
                },
                Stage::BadNoisy => {
                    if self.bad_next == self.bad_len {
                        self.stage = Stage::Done;
                    } else {
                        self.bad_next += 1;
                        return Some(self.bad_noisy[self.bad_next - 1]);
                    }
                }
                Stage::Done => return None,
            }
        }
    }

    /// No more quiet moves: late move pruning has judged the rest not worth a look (the
    /// captures that lose material still come).
    pub fn skip_quiets(&mut self) {
        self.skip_quiets = true;
    }

    /// Whether `mv` is a killer or the counter-move: a quiet move with a record of refuting.
    pub fn is_refutation(&self, mv: Move) -> bool {
        self.refutations.contains(&mv)
    }

    /// Generates one stage's moves (minus the table move, already tried) and scores them.
    fn fill<const KIND: u8>(&mut self, board: &Board, score: impl Fn(Move) -> i32) {
        let mut list = MoveList::new();
        generate::<KIND, _>(board, &mut list);
        self.len = 0;
        self.next = 0;
        for mv in list.iter().filter(|&mv| mv != self.table_move) {
            self.moves[self.len] = mv;
            self.scores[self.len] = score(mv);
            self.len += 1;
        }
    }

    /// Selection sort, one step at a time: most nodes need only the first few moves.
    fn pick_best(&mut self) -> Option<Move> {
        if self.next == self.len {
            return None;
        }
        let best = (self.next..self.len).max_by_key(|&i| self.scores[i]).expect("range is not empty");
        self.moves.swap(self.next, best);
        self.scores.swap(self.next, best);
        self.next += 1;
        Some(self.moves[self.next - 1])
    }
}

/// What a victim (or a promotion) is worth for ordering: whole pawns, so that a knight and a
/// bishop rank alike and the attacker decides between them.
fn victim_value(kind: PieceKind) -> i32 {
    kind.value() / 100 * 100
}

/// Most valuable victim first; among equal victims, the least valuable attacker first.
fn capture_score(board: &Board, mv: Move) -> i32 {
    let victim = board.captured(mv).map_or(0, victim_value);
    let promotion = mv.promoted().map_or(0, victim_value);
    victim * 8 + promotion - board.piece_at(mv.from()).kind().index() as i32
}
