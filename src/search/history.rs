//! What the search learns as it goes, kept from one search to the next: which moves tend to
//! refute (to order, reduce and prune moves by), and how far the static evaluation tends to be
//! off in positions like this one (to correct it by).
//!
//! Every table moves its entries by one rule, `gravity`: a bonus pulls an entry towards the
//! bound, less the closer it already is, so that scores stay bounded, old lessons fade and a
//! move that keeps refuting keeps its lead. (Killers belong to one search's plies: they live on
//! its stack.)
//!
//! - Quiet moves: a butterfly table (side, from, to); continuation tables keyed by the piece
//!   and destination of the move one and two plies back and of this move ("after Nf3, Ne5
//!   tends to work"); and the counter-move to the opponent's last move.
//! - Captures: by moving piece, destination and victim; most-valuable-victim order comes first,
//!   this refines it.
//! - Corrections: the gap between what searches of a position found and its static evaluation,
//!   keyed by the pawn structure and by each side's non-pawn pieces, for the side to move.

use super::params::Params;
use super::prefetch::prefetch;
use crate::board::{Board, Color, Move, Piece};

/// Entries of the move tables stay within +-MAX_HISTORY.
pub const MAX_HISTORY: i32 = 16384;
/// Entries of the correction tables stay within +-MAX_CORRECTION.
const MAX_CORRECTION: i32 = 1024;
/// Slots per side in each correction table (a power of two).
const CORRECTION_SIZE: usize = 16384;

/// Pulls `entry` towards +-`max` by `bonus` (itself clamped to the bound), the pull shrinking
/// as the entry nears the bound it is pulled to.
#[inline]
fn gravity(entry: &mut i16, bonus: i32, max: i32) {
    let bonus = bonus.clamp(-max, max);
    let value = *entry as i32;
    *entry = (value + bonus - value * bonus.abs() / max) as i16;
}

/// The reward for a move that refuted a search of `depth`, and the penalty for the moves
/// tried before it in vain: deeper searches teach more, up to a cap.
pub fn history_bonus(depth: i32, params: &Params) -> i32 {
    (params.history_bonus_per_depth() * depth - params.history_bonus_offset()).clamp(0, params.history_bonus_max())
}

/// A move as the continuation tables see it: the piece that moved and where it went. The null
/// move (and no move at all) is piece 0, square 0: an index no real move has.
#[derive(Clone, Copy, PartialEq, Eq, Debug, Default)]
pub struct PieceTo(u16);

impl PieceTo {
    pub const NONE: PieceTo = PieceTo(0);
    /// How many keys there are.
    pub const COUNT: usize = Piece::COUNT * 64;

    /// `mv`, about to be played on `board`.
    pub fn of(board: &Board, mv: Move) -> PieceTo {
        PieceTo((board.piece_at(mv.from()).index() * 64 + mv.to64()) as u16)
    }
}

/// The continuation keys of the moves one and two plies back, which a quiet move's score reads.
#[derive(Clone, Copy, Debug)]
pub struct Continuations(pub [PieceTo; 2]);

/// The rows of the quiet move tables that one position's moves are scored from (see
/// `History::quiet_scorer`).
pub struct QuietScorer<'a> {
    butterfly: &'a [[i16; 64]; 64],
    continuations: [&'a PieceToTable; 2],
}

impl QuietScorer<'_> {
    #[inline]
    pub fn score(&self, board: &Board, mv: Move) -> i32 {
        let (piece, to) = (board.piece_at(mv.from()).index(), mv.to64());
        let [one, two] = self.continuations.map(|table| table[piece][to] as i32);
        self.butterfly[mv.from64()][to] as i32 + one + two
    }
}

type Butterfly = [[[i16; 64]; 64]; 2];
type PieceToTable = [[i16; 64]; Piece::COUNT];
type CaptureTable = [[[i16; 8]; 64]; Piece::COUNT];
type CorrectionTable = [[i16; CORRECTION_SIZE]; 2];

pub struct History {
    butterfly: Box<Butterfly>,
    /// Indexed by the earlier move's `PieceTo`, then this move's piece and destination.
    continuation: Box<[PieceToTable]>,
    /// Indexed by the piece that made the previous move and its destination.
    counters: Box<[[Move; 64]; Piece::COUNT]>,
    /// By moving piece, destination and the victim's kind (en passant: a pawn).
    captures: Box<CaptureTable>,
    pawn_correction: Box<CorrectionTable>,
    /// By the side to move, then the colour whose non-pawn pieces the key describes.
    non_pawn_correction: Box<[CorrectionTable; 2]>,
    /// By the continuation keys of the moves two plies and one ply back (the pieces carry
    /// their colour, so the side to move is implied).
    continuation_correction: Box<[[i16; PieceTo::COUNT]]>,
}

impl History {
    pub fn new() -> History {
        History {
            butterfly: Box::new([[[0; 64]; 64]; 2]),
            continuation: vec![[[0; 64]; Piece::COUNT]; Piece::COUNT * 64].into_boxed_slice(),
            counters: Box::new([[Move::NONE; 64]; Piece::COUNT]),
            captures: Box::new([[[0; 8]; 64]; Piece::COUNT]),
            pawn_correction: Box::new([[0; CORRECTION_SIZE]; 2]),
            non_pawn_correction: Box::new([[[0; CORRECTION_SIZE]; 2]; 2]),
            continuation_correction: vec![[0; PieceTo::COUNT]; PieceTo::COUNT].into_boxed_slice(),
        }
    }

    /// Forgets everything, keeping the memory.
    pub fn clear(&mut self) {
        self.butterfly.iter_mut().flatten().for_each(|row| row.fill(0));
        self.continuation.iter_mut().flatten().for_each(|row| row.fill(0));
        self.counters.iter_mut().for_each(|row| row.fill(Move::NONE));
        self.captures.iter_mut().flatten().for_each(|row| row.fill(0));
        self.pawn_correction.iter_mut().for_each(|row| row.fill(0));
        self.non_pawn_correction.iter_mut().flatten().for_each(|row| row.fill(0));
        self.continuation_correction.iter_mut().for_each(|row| row.fill(0));
    }

    /// How promising quiet move `mv` is in `board`, given the moves before it: its butterfly
    /// score plus what it did after the same moves one and two plies back.
    #[inline]
    pub fn quiet_score(&self, board: &Board, mv: Move, continuations: Continuations) -> i32 {
        self.quiet_scorer(board.side_to_move(), continuations).score(board, mv)
    }

    /// `quiet_score` for many moves of one position: the tables' rows for the side and the
    /// moves before are found once.
    #[inline]
    pub fn quiet_scorer(&self, side: Color, continuations: Continuations) -> QuietScorer<'_> {
        QuietScorer {
            butterfly: &self.butterfly[side.index()],
            continuations: continuations.0.map(|c| &self.continuation[c.0 as usize]),
        }
    }

    /// How well capture (or promotion) `mv` has done before, beyond what its victim promises.
    #[inline]
    pub fn capture_score(&self, board: &Board, mv: Move) -> i32 {
        let (piece, to) = (board.piece_at(mv.from()).index(), mv.to64());
        self.captures[piece][to][victim(board, mv)] as i32
    }

    /// The move that last refuted the opponent's previous move, if any.
    pub fn counter(&self, board: &Board) -> Move {
        match board.last_move() {
            Some(prev) if prev != Move::NONE => self.counters[board.piece_at(prev.to()).index()][prev.to64()],
            _ => Move::NONE,
        }
    }

    /// `best` refuted a search of `depth` in `board` after the quiet moves and captures in
    /// `tried` failed to: reward it and penalise them, each in its tables.
    pub fn reward(
        &mut self,
        board: &Board,
        best: Move,
        (quiets, captures): (&[Move], &[Move]),
        continuations: Continuations,
        depth: i32,
        params: &Params,
    ) {
        let bonus = history_bonus(depth, params);
        if best.is_noisy() {
            self.update_capture(board, best, bonus);
        } else {
            self.update_quiet(board, best, continuations, bonus);
            for &mv in quiets.iter().filter(|&&m| m != best) {
                self.update_quiet(board, mv, continuations, -bonus);
            }
            if let Some(prev) = board.last_move().filter(|&m| m != Move::NONE) {
                self.counters[board.piece_at(prev.to()).index()][prev.to64()] = best;
            }
        }
        for &mv in captures.iter().filter(|&&m| m != best) {
            self.update_capture(board, mv, -bonus);
        }
    }

    fn update_quiet(&mut self, board: &Board, mv: Move, continuations: Continuations, bonus: i32) {
        let side = board.side_to_move();
        let (piece, to) = (board.piece_at(mv.from()).index(), mv.to64());
        gravity(&mut self.butterfly[side.index()][mv.from64()][to], bonus, MAX_HISTORY);
        for c in continuations.0 {
            gravity(&mut self.continuation[c.0 as usize][piece][to], bonus, MAX_HISTORY);
        }
    }

    fn update_capture(&mut self, board: &Board, mv: Move, bonus: i32) {
        let (piece, to) = (board.piece_at(mv.from()).index(), mv.to64());
        gravity(&mut self.captures[piece][to][victim(board, mv)], bonus, MAX_HISTORY);
    }

    /// What the tables say the static evaluation `eval` of `board`, reached by the moves
    /// `continuations`, misses, added to it.
    #[inline]
    pub fn corrected(&self, board: &Board, continuations: Continuations, eval: i32, params: &Params) -> i32 {
        let at = CorrectionSlots::of(board, continuations);
        let pawns = self.pawn_correction[at.stm][at.pawn] as i32;
        let pieces: i32 = (0..2).map(|c| self.non_pawn_correction[at.stm][c][at.non_pawn[c]] as i32).sum();
        let moves = self.continuation_correction[at.moves[0]][at.moves[1]] as i32;
        let weighted =
            params.correction_pawn_weight() * pawns + pieces + params.correction_continuation_weight() * moves;
        eval + weighted / params.correction_divisor()
    }

    /// Starts fetching the entries `corrected` will read for `board` reached by
    /// `continuations`. They lie at scattered addresses in 1.4 MB of tables, more than a
    /// core's own cache holds, and waiting on them was most of the correction's cost; the
    /// search asks as soon as a move is made, so that the fetches overlap the child's table
    /// probe and evaluation.
    #[inline(always)]
    pub fn prefetch_correction(&self, board: &Board, continuations: Continuations) {
        let at = CorrectionSlots::of(board, continuations);
        prefetch(&self.pawn_correction[at.stm][at.pawn]);
        for c in 0..2 {
            prefetch(&self.non_pawn_correction[at.stm][c][at.non_pawn[c]]);
        }
        prefetch(&self.continuation_correction[at.moves[0]][at.moves[1]]);
    }

    /// A search of `depth` found `score` where the uncorrected static evaluation said `eval`:
    /// move the corrections of positions like `board` towards the difference.
    pub fn update_correction(
        &mut self,
        board: &Board,
        continuations: Continuations,
        eval: i32,
        score: i32,
        depth: i32,
        params: &Params,
    ) {
        let at = CorrectionSlots::of(board, continuations);
        let bonus = (score - eval) * depth / params.correction_depth_divisor();
        let bonus = bonus.clamp(-MAX_CORRECTION / 4, MAX_CORRECTION / 4);
        gravity(&mut self.pawn_correction[at.stm][at.pawn], bonus, MAX_CORRECTION);
        for c in 0..2 {
            gravity(&mut self.non_pawn_correction[at.stm][c][at.non_pawn[c]], bonus, MAX_CORRECTION);
        }
        gravity(&mut self.continuation_correction[at.moves[0]][at.moves[1]], bonus, MAX_CORRECTION);
    }
}

/// Where one position's corrections lie in the tables. Reading, prefetching and updating
/// them all start from here, so that the three cannot come to disagree.
struct CorrectionSlots {
    /// The side to move: each table keeps the two sides apart.
    stm: usize,
    pawn: usize,
    /// The non-pawn slot of each colour, by its index.
    non_pawn: [usize; 2],
    /// The row and column of the continuation table: the move two plies back, then the last.
    moves: [usize; 2],
}

impl CorrectionSlots {
    #[inline(always)]
    fn of(board: &Board, continuations: Continuations) -> CorrectionSlots {
        let [one, two] = continuations.0;
        let mut non_pawn = [0; 2];
        for c in Color::BOTH {
            non_pawn[c.index()] = correction_slot(board.non_pawn_key(c));
        }
        CorrectionSlots {
            stm: board.side_to_move().index(),
            pawn: correction_slot(board.pawn_key()),
            non_pawn,
            moves: [two.0 as usize, one.0 as usize],
        }
    }
}

/// Where a position whose key (pawn or non-pawn) is `key` keeps its correction.
fn correction_slot(key: u64) -> usize {
    key as usize & (CORRECTION_SIZE - 1)
}

/// The victim's kind as a table index (0 for a promotion without capture).
fn victim(board: &Board, mv: Move) -> usize {
    board.captured(mv).map_or(0, |kind| kind as usize)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Gravity keeps entries within the bound whatever the bonuses, and treats rewards and
    /// penalties alike: the same steps up and down mirror each other.
    #[test]
    fn gravity_is_bounded_and_symmetric() {
        for bonus in [1, 100, 1600, 5000, MAX_HISTORY, 100_000] {
            let (mut up, mut down) = (0i16, 0i16);
            for _ in 0..1000 {
                gravity(&mut up, bonus, MAX_HISTORY);
                gravity(&mut down, -bonus, MAX_HISTORY);
                assert!((up as i32).abs() <= MAX_HISTORY && (down as i32).abs() <= MAX_HISTORY);
                assert_eq!(up, -down);
            }
            assert!(up > 0);
        }
        // A reward from the far side moves an entry a long way; near its own bound, hardly.
        let mut low = -16000i16;
        gravity(&mut low, 1000, MAX_HISTORY);
        let mut high = 16000i16;
        gravity(&mut high, 1000, MAX_HISTORY);
        assert!(low as i32 + 16000 > 1900 && (high as i32 - 16000) < 30, "{low} {high}");
    }

    #[test]
    fn the_bonus_grows_with_depth_up_to_a_cap() {
        let params = Params::default();
        let bonuses: Vec<i32> = (1..20).map(|d| history_bonus(d, &params)).collect();
        assert!(bonuses.windows(2).all(|w| w[0] <= w[1]));
        assert!(bonuses[0] > 0 && *bonuses.last().unwrap() == params.history_bonus_max());
    }

    /// A refuting quiet move rises above the quiets tried before it, in the butterfly and the
    /// continuation tables; the captures tried before it fall.
    #[test]
    fn rewards_and_penalties_land_where_they_should() {
        let mut board = Board::from_fen("rnbqkbnr/pppp1ppp/8/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R b KQkq - 1 2").unwrap();
        let knight = crate::movegen::legal_moves(&board).iter().find(|m| m.to_string() == "b8c6").unwrap();
        board.make_move(knight);
        let moves = crate::movegen::legal_moves(&board);
        let find = |text: &str| moves.iter().find(|m| m.to_string() == text).unwrap();
        let (best, tried, capture) = (find("f1b5"), find("d2d4"), find("f3e5"));
        let mut history = History::new();
        let continuations = Continuations([PieceTo(5), PieceTo(77)]);
        let params = Params::default();
        history.reward(&board, best, (&[tried, best], &[capture]), continuations, 6, &params);
        let bonus = history_bonus(6, &params);
        assert_eq!(history.quiet_score(&board, best, continuations), 3 * bonus);
        assert_eq!(history.quiet_score(&board, tried, continuations), -3 * bonus);
        assert_eq!(history.quiet_score(&board, best, Continuations([PieceTo::NONE; 2])), bonus);
        assert_eq!(history.capture_score(&board, capture), -bonus);
        assert_eq!(history.counter(&board), best);
        history.clear();
        assert_eq!(history.quiet_score(&board, best, continuations), 0);
        assert_eq!(history.capture_score(&board, capture), 0);
    }

    /// Searches that keep finding more than the evaluation says pull the correction up, and
    /// then down when they find less; never beyond its bound, and only for positions like the
    /// one searched (same pawns or same pieces).
    #[test]
    fn corrections_follow_the_searches() {
        let board = Board::from_fen("r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - 2 3").unwrap();
        let other = Board::from_fen("8/5k2/8/8/8/8/3K4/8 w - - 0 1").unwrap();
        let params = Params::default();
        let mut history = History::new();
        let moves = Continuations([PieceTo(5), PieceTo(77)]);
        let none = Continuations([PieceTo::NONE; 2]);
        assert_eq!(history.corrected(&board, moves, 10, &params), 10);
        history.update_correction(&board, moves, 10, 60, 8, &params);
        let once = history.corrected(&board, moves, 10, &params);
        assert!(once > 10, "{once}");
        for _ in 0..1000 {
            history.update_correction(&board, moves, 10, 300, 20, &params);
        }
        let weights = params.correction_pawn_weight() + 2 + params.correction_continuation_weight();
        assert_eq!(
            history.corrected(&board, moves, 10, &params),
            10 + weights * MAX_CORRECTION / params.correction_divisor()
        );
        assert_eq!(history.corrected(&other, none, 10, &params), 10);
        // The same moves into another position: only the moves' entry applies.
        let moves_alone = params.correction_continuation_weight() * MAX_CORRECTION / params.correction_divisor();
        assert_eq!(history.corrected(&other, moves, 10, &params), 10 + moves_alone);
        for _ in 0..1000 {
            history.update_correction(&board, moves, 10, -40, 8, &params);
        }
        assert!(history.corrected(&board, moves, 10, &params) < 10);
    }
}
