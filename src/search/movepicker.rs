//! Staged move ordering: the move the transposition table remembers, then captures that do not
//! lose material (most valuable victim first, their capture history breaking near-ties), then
//! quiet moves (killers, the counter-move, then by history after the last two moves), and last
//! the captures that lose material by static exchange. Each stage is generated only when the one before is exhausted,
//! so a node that is refuted by its first move never generates the rest.

use super::history::{Continuations, History, PieceTo};
use super::params::Params;
use super::see::see_ge;
use crate::board::{Board, Move, PieceKind};
use crate::movegen::{ArrayList, MAX_MOVES, MoveList, generate, is_legal, kind};

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
    /// The stage's moves, generated in place (the table move then taken out).
    moves: MoveList,
    /// Each move's ordering score and its index in `moves`, in one word (see `sort_key`): one
    /// for each of the stage's moves, which are the first of `moves`.
    keys: ArrayList<i32, MAX_MOVES>,
    next: usize,
    /// Captures put off for losing material, kept in the order they were picked.
    bad_noisy: MoveList,
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
            moves: MoveList::new(),
            keys: ArrayList::new(),
            next: 0,
            bad_noisy: MoveList::new(),
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
                    Some(mv) => self.bad_noisy.push(mv),
                    None => self.stage = if self.all_moves { Stage::GenerateQuiet } else { Stage::Done },
                },
                Stage::GenerateQuiet if self.skip_quiets => self.stage = Stage::BadNoisy,
                Stage::GenerateQuiet => {
                    let refutations = self.refutations;
                    let scorer = history.quiet_scorer(board.side_to_move(), self.continuations);
                    self.fill::<{ kind::QUIET }>(board, |mv| match refutations.iter().position(|&r| r == mv) {
                        Some(rank) => KILLER_SCORE - rank as i32,
                        None => scorer.score(board, mv),
                    });
                    self.stage = Stage::Quiet;
                }
                Stage::Quiet if self.skip_quiets => self.stage = Stage::BadNoisy,
                Stage::Quiet => match self.pick_best() {
                    Some(mv) => return Some(mv),
                    None => self.stage = Stage::BadNoisy,
                },
                Stage::BadNoisy => match self.bad_noisy.as_slice().get(self.bad_next) {
                    Some(&mv) => {
                        self.bad_next += 1;
                        return Some(mv);
                    }
                    None => self.stage = Stage::Done,
                },
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
        self.moves.clear();
        generate::<KIND, _>(board, &mut self.moves);
        let moves = self.moves.as_mut_slice();
        self.keys.clear();
        self.next = 0;
        for i in 0..moves.len() {
            let mv = moves[i];
            if mv != self.table_move {
                let index = self.keys.len();
                moves[index] = mv;
                self.keys.push(sort_key(score(mv), index));
            }
        }
    }

    /// Selection sort, one step at a time: most nodes need only the first few moves. The best
    /// score wins, and of equal scores the move at the highest index, whose key is the largest:
    /// so the search of the remaining keys is one plain maximum, and the key says where it is.
    /// The move displaced from the front to that place takes its new index into its key.
    fn pick_best(&mut self) -> Option<Move> {
        let keys = self.keys.as_mut_slice();
        if self.next == keys.len() {
            return None;
        }
        // A fold on values rather than `max` (which keeps a reference), so that it vectorises.
        let key = keys[self.next..].iter().fold(i32::MIN, |best, &key| best.max(key));
        let best = key as usize & INDEX_MASK;
        let moves = self.moves.as_mut_slice();
        let mv = moves[best];
        moves[best] = moves[self.next];
        keys[best] = sort_key(keys[self.next] >> INDEX_BITS, best);
        self.next += 1;
        Some(mv)
    }
}

/// Bits of a sort key that hold the move's index: enough for `MAX_MOVES`.
const INDEX_BITS: u32 = 8;
const INDEX_MASK: usize = (1 << INDEX_BITS) - 1;
const _: () = assert!(MAX_MOVES <= 1 << INDEX_BITS);

/// `score` and `index` in one word that orders as the pair does. Scores stay far inside the
/// 24 bits left: killers are 2^20, histories a few times `MAX_HISTORY`, captures a few
/// thousand.
#[inline(always)]
fn sort_key(score: i32, index: usize) -> i32 {
    debug_assert!(score.unsigned_abs() < 1 << (31 - INDEX_BITS), "score {score} out of the key's range");
    score << INDEX_BITS | index as i32
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::board::{Square, flag};

    /// Picking by key gives the order the plain selection sort gave (the last of equal
    /// scores first, each pick swapping the front move into the picked one's place), which the
    /// search's node counts depend on: over lists long and short, with many equal scores.
    #[test]
    fn keys_pick_in_the_selection_sort_order() {
        let mut state = 11u64;
        let mut random = |range: u64| {
            state = state.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            (state >> 33) % range
        };
        for round in 0..2000 {
            let len = random(80) as usize;
            let spread = [3, 50, 1 << 21][round % 3];
            let mut moves: Vec<Move> = (0..len)
                .map(|i| Move::new(Square::from_index64(i % 64), Square::from_index64(63 - i / 64), flag::QUIET))
                .collect();
            let mut scores: Vec<i32> = (0..len).map(|_| random(2 * spread) as i32 - spread as i32).collect();
            let mut picker = MovePicker::noisy(Move::NONE, &Params::default());
            for (i, (&mv, &score)) in moves.iter().zip(&scores).enumerate() {
                picker.moves.push(mv);
                picker.keys.push(sort_key(score, i));
            }
            for next in 0..len {
                let best = (next..len).max_by_key(|&i| scores[i]).unwrap();
                moves.swap(next, best);
                scores.swap(next, best);
                assert_eq!(picker.pick_best(), Some(moves[next]), "round {round}, pick {next}");
            }
            assert_eq!(picker.pick_best(), None);
        }
    }
}
