//! Legal move generation.
//!
//! Moves are legal by construction rather than made and tested: the squares beside the king
//! (tables of where pawns, knights and lines reach, and of the squares between two squares)
//! give the checking pieces and the pinned ones, which gives every piece the set of squares it
//! may move to. Only king moves (is the destination attacked?) and en passant (which lifts two
//! pawns off one rank) ask the attack question. The moves are walked out on the mailbox in a
//! fixed order, which the search's move ordering depends on; perft counts the leaves at the
//! last ply instead, as sets of target squares without a move made or even encoded, which this
//! makes exact.

use crate::board::{
    self, Board, Color, Move, Piece, PieceKind, Square, SquareSet, dir, flag, is_knight_jump, right_index,
};
use std::mem::MaybeUninit;

/// Which moves to generate: captures and queen promotions ("noisy", for quiescence search
/// and the first stages of move ordering), the rest ("quiet"), or both.
pub mod kind {
    pub const ALL: u8 = 0;
    pub const NOISY: u8 = 1;
    pub const QUIET: u8 = 2;
}

/// More than the 218 legal moves of the richest known position.
pub const MAX_MOVES: usize = 256;

/// A list of at most `N` values, kept in place. Making one leaves its slots as they are: only
/// those below `len`, each written by `push`, are ever read. The search makes three lists at
/// a node (2 KB), and most nodes fill few slots or none, so clearing them all first was work
/// thrown away: 1.5 % of a game's search time.
pub struct ArrayList<T: Copy, const N: usize> {
    items: [MaybeUninit<T>; N],
    len: usize,
}

/// The moves of a position, in the order the generator found them.
pub type MoveList = ArrayList<Move, MAX_MOVES>;

impl<T: Copy, const N: usize> ArrayList<T, N> {
    #[inline]
    pub fn new() -> ArrayList<T, N> {
        ArrayList { items: [const { MaybeUninit::uninit() }; N], len: 0 }
    }

    #[inline]
    pub fn len(&self) -> usize {
        self.len
    }

    #[inline]
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    #[inline]
    pub fn as_slice(&self) -> &[T] {
        // SAFETY: `push` wrote every slot below `len` (`clear` only lowers it), and a
        // `MaybeUninit<T>` has the layout of a `T`.
        unsafe { std::slice::from_raw_parts(self.items.as_ptr().cast::<T>(), self.len) }
    }

    #[inline]
    pub fn as_mut_slice(&mut self) -> &mut [T] {
        // SAFETY: as for `as_slice`.
        unsafe { std::slice::from_raw_parts_mut(self.items.as_mut_ptr().cast::<T>(), self.len) }
    }

    /// Panics when the list is full.
    #[inline]
    pub fn push(&mut self, value: T) {
        self.items[self.len] = MaybeUninit::new(value);
        self.len += 1;
    }

    /// Empties the list, for it to be filled again.
    #[inline]
    pub fn clear(&mut self) {
        self.len = 0;
    }

    pub fn iter(&self) -> impl Iterator<Item = T> + '_ {
        self.as_slice().iter().copied()
    }
}

/// Where generated moves go: a list, or just a count when only their number matters (the last
/// ply of perft), which spares encoding and storing them.
pub trait MoveSink {
    fn push(&mut self, mv: Move);

    /// Pushes `mv` only if `wanted`. The generator calls this where the answer is a coin
    /// toss (is the target square empty, an enemy, ours?), so sinks that can take the move
    /// without a branch should: a mispredicted branch costs more than the work it skips.
    #[inline(always)]
    fn push_if(&mut self, wanted: bool, mv: Move) {
        if wanted {
            self.push(mv);
        }
    }
}

impl MoveSink for MoveList {
    #[inline]
    fn push(&mut self, mv: Move) {
        ArrayList::push(self, mv);
    }
}

#[derive(Default)]
pub struct MoveCounter(pub usize);

impl MoveSink for MoveCounter {
    #[inline]
    fn push(&mut self, _: Move) {
        self.0 += 1;
    }

    #[inline(always)]
    fn push_if(&mut self, wanted: bool, _: Move) {
        self.0 += usize::from(wanted);
    }
}

impl<T: Copy, const N: usize> Default for ArrayList<T, N> {
    fn default() -> Self {
        ArrayList::new()
    }
}

/// Every legal move in the position.
pub fn legal_moves(board: &Board) -> MoveList {
    let mut list = MoveList::new();
    generate::<{ kind::ALL }, _>(board, &mut list);
    list
}

/// How many legal moves the position has: the generator's moves, counted without being made
/// (perft's last ply asks this at most of its nodes). The order of the moves does not matter
/// here, so every piece that is not pinned is counted as a set of target squares (the pawns
/// all together), without a move being encoded.
#[inline(always)]
pub fn count_legal_moves(board: &Board) -> usize {
    // One copy per side to move, as for `generate`.
    match board.side_to_move() {
        Color::White => count_for::<false>(board),
        Color::Black => count_for::<true>(board),
    }
}

#[inline(always)]
fn count_for<const BLACK: bool>(board: &Board) -> usize {
    let us = if BLACK { Color::Black } else { Color::White };
    let safety = KingSafety::of(board, us);
    let mut counter = MoveCounter(0);
    match safety.checkers {
        0 => count_non_king_moves::<false>(board, us, &safety, &mut counter),
        1 => count_non_king_moves::<true>(board, us, &safety, &mut counter),
        _ => {}
    }
    let sideways_safe = count_king_moves(board, us, safety.checkers > 0, &mut counter);
    if safety.checkers == 0 {
        castling_moves(board, us, sideways_safe, &mut counter);
    }
    counter.0
}

/// `non_king_moves` of every kind, counted: the pieces that are not pinned as sets of
/// targets, the pinned ones (few) as the generator finds their moves.
#[inline(always)]
fn count_non_king_moves<const IN_CHECK: bool>(
    board: &Board,
    us: Color,
    safety: &KingSafety,
    counter: &mut MoveCounter,
) {
    // Where a piece that is not pinned may go: not onto our own pieces, and in check only to
    // take or block the checker.
    let targets = if IN_CHECK { safety.evasion_targets } else { !board.occupied_by(us) };
    let occupied = board.occupied();
    let free = !safety.pinned;
    let pawns = board.piece_set(us, PieceKind::Pawn);
    let diagonal = board.piece_set(us, PieceKind::Bishop) | board.piece_set(us, PieceKind::Queen);
    let orthogonal = board.piece_set(us, PieceKind::Rook) | board.piece_set(us, PieceKind::Queen);
    let mut moves = count_pawn_moves(board, us, pawns & free, targets);
    // A pinned knight cannot move at all.
    for from in (board.piece_set(us, PieceKind::Knight) & free).indices() {
        moves += (SquareSet::knight_attacks_from(from) & targets).count();
    }
    for from in (diagonal & free).indices() {
        moves += (SquareSet::bishop_attacks_from(from, occupied) & targets).count();
    }
    for from in (orthogonal & free).indices() {
        moves += (SquareSet::rook_attacks_from(from, occupied) & targets).count();
    }
    counter.0 += moves as usize;
    for from in safety.pinned {
        let pin_step = safety.pin_step(from);
        if pawns.contains(from) {
            pawn_moves_from::<{ kind::ALL }, IN_CHECK, true, _>(board, us, from, pin_step, safety, counter);
        } else if (diagonal.contains(from) && dir::DIAGONAL.contains(&pin_step))
            || (orthogonal.contains(from) && dir::ORTHOGONAL.contains(&pin_step))
        {
            // Along the pin line only, both ways, as `piece_moves` does.
            walk::<{ kind::ALL }, IN_CHECK, true, _>(board, us, from, pin_step, safety, counter);
            walk::<{ kind::ALL }, IN_CHECK, true, _>(board, us, from, -pin_step, safety, counter);
        }
    }
    en_passant_moves(board, us, counter);
}

/// The moves of the pawns `pawns` (none of them pinned) to `targets` (the squares a free piece
/// may go to), en passant aside: pushes and captures of all of them at once, a promotion
/// counting four.
#[inline(always)]
fn count_pawn_moves(board: &Board, us: Color, pawns: SquareSet, targets: SquareSet) -> u32 {
    let (forward, third, last) = if us == Color::White { (8, 2, 7) } else { (-8, 5, 0) };
    let empty = !board.occupied();
    let one = pawns.shifted(forward) & empty;
    // The double step passes the square of the single one, which must be empty whatever the
    // targets are.
    let two = (one & SquareSet::rank(third)).shifted(forward) & empty & targets;
    let enemies = board.occupied_by(!us) & targets;
    let east = (pawns & !SquareSet::file(7)).shifted(forward + 1) & enemies;
    let west = (pawns & !SquareSet::file(0)).shifted(forward - 1) & enemies;
    let one = one & targets;
    let promoting = SquareSet::rank(last);
    let moves = one.count() + two.count() + east.count() + west.count();
    moves + ((one & promoting).count() + (east & promoting).count() + (west & promoting).count()) * 3
}

/// `king_moves`, counted: the squares a king's step reaches that are not ours, each asked
/// whether it is attacked. Returns what `king_moves` does.
#[inline(always)]
fn count_king_moves(board: &Board, us: Color, in_check: bool, counter: &mut MoveCounter) -> [bool; 2] {
    let from = board.king_square(us);
    // With the king lifted off in check, as `king_moves` explains.
    let occupied = if in_check { board.occupied() & !SquareSet::of(from) } else { board.occupied() };
    let mut sideways_safe = [false; 2];
    for to in SquareSet::king_attacks(from) & !board.occupied_by(us) {
        if !board.attacked_on(occupied, to, !us) {
            counter.0 += 1;
            if to.0.abs_diff(from.0) == 1 && !board.occupied().contains(to) {
                sideways_safe[usize::from(to.0 < from.0)] = true;
            }
        }
    }
    sideways_safe
}

/// Whether `mv` is a legal move here. Moves from the transposition table need this check: a
/// different position with the same key may have stored a move that makes no sense here.
///
/// Asked of the table's move at most nodes, so the usual moves (quiet moves, double pushes,
/// plain captures) are checked on their own: the piece, the move's shape and its path, then
/// the generator's own rules for checks and pins. Castling, en passant and promotions are
/// rare there, and the generator settles them by producing every move.
pub fn is_legal(board: &Board, mv: Move) -> bool {
    let (from, to, move_flag) = (mv.from(), mv.to(), mv.flag());
    let us = board.side_to_move();
    let squares = board.squares();
    let piece = squares[from];
    if !piece.is_color(us) {
        return false;
    }
    if !matches!(move_flag, flag::QUIET | flag::DOUBLE_PUSH | flag::CAPTURE) {
        return is_generated(board, mv);
    }
    let lands_right = if move_flag == flag::CAPTURE { squares[to].is_color(!us) } else { squares[to].is_empty() };
    if !lands_right || (move_flag == flag::DOUBLE_PUSH && !piece.is_kind(PieceKind::Pawn)) {
        return false;
    }
    // The step the move takes, as the pin and check rules see it (0 for a knight's jump).
    let step = match piece.kind() {
        PieceKind::King => {
            // As `king_moves` judges it, with the king lifted off (the same answer out of check).
            let lifted = board.occupied() & !SquareSet::of(from);
            return board::is_king_step(from, to) && !board.attacked_on(lifted, to, !us);
        }
        PieceKind::Knight => {
            if !is_knight_jump(from, to) {
                return false;
            }
            0
        }
        PieceKind::Pawn => {
            let forward = us.forward();
            // Seen from White's side, as `pawn_moves_from` does: a pawn on the rank before
            // promotion only promotes.
            let relative = if us == Color::White { from.0 } else { 119 - from.0 };
            let one = from.offset(forward);
            let shape = match move_flag {
                flag::QUIET => to == one,
                flag::DOUBLE_PUSH => relative < 40 && squares[one].is_empty() && to == one.offset(forward),
                _ => to == one.offset(dir::E) || to == one.offset(dir::W),
            };
            if !shape || relative > 80 {
                return false;
            }
            if move_flag == flag::CAPTURE { to.0.wrapping_sub(from.0) as i8 } else { forward }
        }
        slider => {
            let step = match slider {
                PieceKind::Bishop => from.diagonal_step(to),
                PieceKind::Rook => from.orthogonal_step(to),
                _ => from.line_step(to),
            };
            if step == 0 || !board::path_is_clear(board.occupied(), from, to) {
                return false;
            }
            step
        }
    };
    let safety = KingSafety::of(board, us);
    let answers_check = match safety.checkers {
        0 => true,
        1 => safety.evasion_targets.contains(to),
        _ => false,
    };
    let pin_step = safety.pin_step(from);
    answers_check && (pin_step == 0 || (step != 0 && keeps_pin(pin_step, step)))
}

/// Whether the generator produces `mv` here: the last word on a move's legality.
fn is_generated(board: &Board, mv: Move) -> bool {
    let mut finder = MoveFinder { wanted: mv, found: false };
    generate::<{ kind::ALL }, _>(board, &mut finder);
    finder.found
}

/// A sink that only notes whether one particular move went by.
struct MoveFinder {
    wanted: Move,
    found: bool,
}

impl MoveSink for MoveFinder {
    #[inline]
    fn push(&mut self, mv: Move) {
        self.found |= mv == self.wanted;
    }
}

/// Parses a move in coordinate notation (`e2e4`, `e7e8q`) and returns it only if it is legal
/// here. Promotion letters are accepted in either case. Castling is accepted both as the king's
/// move to its landing square (`e1g1`, UCI's standard form) and as the king taking its own rook
/// (`e1h1`, the Chess960 form); where a Chess960 king's ordinary step has the same text as a
/// castling move, the text means the step.
pub fn parse_move(board: &Board, text: &str) -> Option<Move> {
    let text = text.trim();
    if !(4..=5).contains(&text.len()) || !text.is_ascii() {
        return None;
    }
    let from = Square::parse(&text[0..2])?;
    let to = Square::parse(&text[2..4])?;
    let promoted = match text.get(4..5) {
        None => None,
        Some(letter) => match PieceKind::from_letter(letter.chars().next()?)? {
            k @ (PieceKind::Knight | PieceKind::Bishop | PieceKind::Rook | PieceKind::Queen) => Some(k),
            _ => return None,
        },
    };
    let moves = legal_moves(board);
    let candidates = || moves.iter().filter(|m| m.from() == from && m.promoted() == promoted);
    candidates()
        .find(|m| m.to() == to && !m.is_castle())
        .or_else(|| candidates().find(|&m| m.is_castle() && board.castling_rook_square(m) == to))
        .or_else(|| candidates().find(|m| m.is_castle() && m.to() == to))
}

/// The checking pieces and pins around the side to move's king.
struct KingSafety {
    king: Square,
    checkers: u32,
    /// When in check, the destinations that deal with it: the checker and any square between
    /// it and the king. Filled in only when there is a check, as most positions have none.
    evasion_targets: SquareSet,
    /// Our pieces pinned to the king: each may move only along the line from the king through
    /// it to the pinner.
    pinned: SquareSet,
}

impl KingSafety {
    /// Built from locals and put together once at the end: a struct filled in field by field
    /// and then moved cost a stalled copy (a wide load of narrow stores) at every node.
    #[inline(always)]
    fn of(board: &Board, us: Color) -> KingSafety {
        let them = !us;
        let occupied = board.occupied();
        let king = board.king_square(us);
        let (mut checkers, mut checker, mut pinned) = (0, Square::NONE, SquareSet::EMPTY);
        // Pawns and knights check from the squares the tables give; sliders only from a line
        // through the king, and then only with nothing between. One piece of ours between, and
        // nothing else, is pinned.
        let at = king.index64();
        let leapers = (SquareSet::pawn_attacks_from(us, at) & board.piece_set(them, PieceKind::Pawn))
            | (SquareSet::knight_attacks_from(at) & board.piece_set(them, PieceKind::Knight));
        for sq in leapers {
            checkers += 1;
            checker = sq;
        }
        let queens = board.piece_set(them, PieceKind::Queen);
        let sliders = (SquareSet::lines_from::<false>(at) & (board.piece_set(them, PieceKind::Bishop) | queens))
            | (SquareSet::lines_from::<true>(at) & (board.piece_set(them, PieceKind::Rook) | queens));
        for slider in sliders {
            let blockers = SquareSet::between(king, slider) & occupied;
            if blockers.is_empty() {
                checkers += 1;
                checker = slider;
            } else if !blockers.has_several() {
                pinned |= blockers & board.occupied_by(us);
            }
        }
        // A pawn's or knight's square has no squares between it and the king in the table.
        let evasion_targets =
            if checkers == 1 { SquareSet::between(king, checker) | SquareSet::of(checker) } else { SquareSet::EMPTY };
        KingSafety { king, checkers, evasion_targets, pinned }
    }

    /// The pin line of the piece on `from` (see `allows`), or 0 if it is free: the step from
    /// the king towards it, which points on to the pinner.
    #[inline]
    fn pin_step(&self, from: Square) -> i8 {
        if self.pinned.contains(from) { self.king.line_step(from) } else { 0 }
    }

    /// May a piece with pin line `pin_step` step by `step` to `to`? A pinned piece must keep
    /// to the line through our king and the pinner, moving along it either way (it can never
    /// pass the pinner, whose square ends the ray). `IN_CHECK` says whether there is a check
    /// to deal with: then every move but the king's must capture or block the checker.
    #[inline(always)]
    fn allows<const IN_CHECK: bool>(&self, pin_step: i8, step: i8, to: Square) -> bool {
        keeps_pin(pin_step, step) && (!IN_CHECK || self.evasion_targets.contains(to))
    }
}

/// Whether moving by `step` keeps a piece with pin line `pin_step` (0 when free) on it.
#[inline(always)]
fn keeps_pin(pin_step: i8, step: i8) -> bool {
    pin_step == 0 || step == pin_step || step == -pin_step
}

/// Sends the legal moves of the kind `KIND` (see [`kind`]) to `sink`.
pub fn generate<const KIND: u8, S: MoveSink>(board: &Board, sink: &mut S) {
    // One copy per side to move, so that everything that depends on the colour (pawn
    // direction and ranks, enemy piece codes, castling squares) is a constant in the code.
    match board.side_to_move() {
        Color::White => generate_for::<KIND, false, S>(board, sink),
        Color::Black => generate_for::<KIND, true, S>(board, sink),
    }
}

#[inline(always)]
fn generate_for<const KIND: u8, const BLACK: bool, S: MoveSink>(board: &Board, sink: &mut S) {
    let us = if BLACK { Color::Black } else { Color::White };
    let safety = KingSafety::of(board, us);
    // The usual case, no check and no pin, is compiled without the evasion and pin tests.
    match (safety.checkers, safety.pinned.is_empty()) {
        (0, true) => non_king_moves::<KIND, false, false, S>(board, us, &safety, sink),
        (0, false) => non_king_moves::<KIND, false, true, S>(board, us, &safety, sink),
        (1, _) => non_king_moves::<KIND, true, true, S>(board, us, &safety, sink),
        _ => {}
    }
    let sideways_safe = king_moves::<KIND, S>(board, us, safety.checkers > 0, sink);
    if KIND != kind::NOISY && safety.checkers == 0 {
        castling_moves(board, us, sideways_safe, sink);
    }
}

/// Every move but the king's, which only a double check rules out altogether.
#[inline(always)]
fn non_king_moves<const KIND: u8, const IN_CHECK: bool, const PINS: bool, S: MoveSink>(
    board: &Board,
    us: Color,
    safety: &KingSafety,
    sink: &mut S,
) {
    pawn_moves::<KIND, IN_CHECK, PINS, S>(board, us, safety, sink);
    piece_moves::<KIND, IN_CHECK, PINS, false, 8, S>(board, us, PieceKind::Knight, dir::KNIGHT, safety, sink);
    piece_moves::<KIND, IN_CHECK, PINS, true, 4, S>(board, us, PieceKind::Bishop, dir::DIAGONAL, safety, sink);
    piece_moves::<KIND, IN_CHECK, PINS, true, 4, S>(board, us, PieceKind::Rook, dir::ORTHOGONAL, safety, sink);
    piece_moves::<KIND, IN_CHECK, PINS, true, 8, S>(board, us, PieceKind::Queen, dir::KING, safety, sink);
}

/// Moves of every `kind` piece of ours: single steps, or slides when `SLIDES`.
#[inline(always)]
fn piece_moves<
    const KIND: u8,
    const IN_CHECK: bool,
    const PINS: bool,
    const SLIDES: bool,
    const N: usize,
    S: MoveSink,
>(
    board: &Board,
    us: Color,
    kind: PieceKind,
    steps: [i8; N],
    safety: &KingSafety,
    sink: &mut S,
) {
    for &from in board.pieces(us, kind) {
        let pin_step = if PINS { safety.pin_step(from) } else { 0 };
        if pin_step == 0 && KIND == kind::NOISY {
            captures::<IN_CHECK, SLIDES, N, S>(board, us, kind, from, steps, safety, sink);
        } else if pin_step == 0 {
            for step in steps {
                walk::<KIND, IN_CHECK, SLIDES, S>(board, us, from, step, safety, sink);
            }
        } else if SLIDES && steps.contains(&pin_step) {
            // A pinned slider may still move along the pin line, both ways; a pinned knight
            // (whose jumps never follow a line) or a slider across the line may not move.
            walk::<KIND, IN_CHECK, SLIDES, S>(board, us, from, pin_step, safety, sink);
            walk::<KIND, IN_CHECK, SLIDES, S>(board, us, from, -pin_step, safety, sink);
        }
    }
}

/// The captures of a piece that is not pinned, in the order `walk` would find them (by
/// direction, the order of `steps`). Only the first piece each way can be taken, which the
/// attack tables give at once: no walk over the empty squares before it, and most pieces
/// have nothing to take at all.
#[inline(always)]
fn captures<const IN_CHECK: bool, const SLIDES: bool, const N: usize, S: MoveSink>(
    board: &Board,
    us: Color,
    kind: PieceKind,
    from: Square,
    steps: [i8; N],
    safety: &KingSafety,
    sink: &mut S,
) {
    let (at, occupied) = (from.index64(), board.occupied());
    let reach = match kind {
        PieceKind::Bishop => SquareSet::bishop_attacks_from(at, occupied),
        PieceKind::Rook => SquareSet::rook_attacks_from(at, occupied),
        PieceKind::Queen => SquareSet::bishop_attacks_from(at, occupied) | SquareSet::rook_attacks_from(at, occupied),
        _ => SquareSet::knight_attacks_from(at),
    };
    let mut targets = reach & board.occupied_by(!us);
    if IN_CHECK {
        targets = targets & safety.evasion_targets;
    }
    if targets.is_empty() {
        return;
    }
    for step in steps {
        let to = if SLIDES {
            // At most one target each way: the one whose line from here runs by `step`.
            match targets.into_iter().find(|&to| from.line_step(to) == step) {
                Some(to) => to,
                None => continue,
            }
        } else {
            from.offset(step)
        };
        sink.push_if(targets.contains(to), Move::new(from, to, flag::CAPTURE));
    }
}

/// The moves from `from` in the direction `step`: one step, or a slide when `SLIDES`.
#[inline(always)]
fn walk<const KIND: u8, const IN_CHECK: bool, const SLIDES: bool, S: MoveSink>(
    board: &Board,
    us: Color,
    from: Square,
    step: i8,
    safety: &KingSafety,
    sink: &mut S,
) {
    // Indices in usize rather than `Square::offset` (u8, wrapping): the border keeps every
    // index within 0..120, and usize steps need no zero-extension before each lookup.
    let squares = &board.squares().0;
    let mut index = (from.0 as usize).wrapping_add_signed(step as isize);
    if !SLIDES {
        // One step: empty or enemy is a move, without a branch on which.
        let (to, occupant) = (Square(index as u8), squares[index & 127]);
        let (quiet, capture) = (occupant.is_empty(), occupant.is_color(!us));
        let wanted = (KIND != kind::NOISY && quiet) | (KIND != kind::QUIET && capture);
        let move_flag = if capture { flag::CAPTURE } else { flag::QUIET };
        sink.push_if(wanted & safety.allows::<IN_CHECK>(0, step, to), Move::new(from, to, move_flag));
        return;
    }
    loop {
        let (to, occupant) = (Square(index as u8), squares[index & 127]);
        let allowed = safety.allows::<IN_CHECK>(0, step, to);
        if !occupant.is_empty() {
            if KIND != kind::QUIET {
                sink.push_if(allowed & occupant.is_color(!us), Move::new(from, to, flag::CAPTURE));
            }
            return;
        }
        if KIND != kind::NOISY {
            sink.push_if(allowed, Move::new(from, to, flag::QUIET));
        }
        index = index.wrapping_add_signed(step as isize);
    }
}

/// The king's steps. Returns which of its two sideways steps (east, west) lead to an empty
/// square it may stand on, which castling needs to know too.
#[inline(always)]
fn king_moves<const KIND: u8, S: MoveSink>(board: &Board, us: Color, in_check: bool, sink: &mut S) -> [bool; 2] {
    let from = board.king_square(us);
    let squares = board.squares();
    // In check, the king must not step back along the checking line, which the king itself
    // still shadows on the real board; so destinations are tested with the king lifted off.
    // Out of check no slider's line runs through the king, so the real board answers.
    let occupied = if in_check { board.occupied() & !SquareSet::of(from) } else { board.occupied() };
    let mut sideways_safe = [false; 2];
    // Captures only, and nothing to take (the usual case): no square need be asked about.
    if KIND == kind::NOISY && (SquareSet::king_attacks(from) & board.occupied_by(!us)).is_empty() {
        return sideways_safe;
    }
    for step in dir::KING {
        let to = from.offset(step);
        let occupant = squares[to];
        let wanted =
            if occupant.is_empty() { KIND != kind::NOISY } else { KIND != kind::QUIET && occupant.is_color(!us) };
        if wanted && !board.attacked_on(occupied, to, !us) {
            let move_flag = if occupant.is_empty() { flag::QUIET } else { flag::CAPTURE };
            sink.push(Move::new(from, to, move_flag));
            if occupant.is_empty() && (step == dir::E || step == dir::W) {
                sideways_safe[usize::from(step == dir::W)] = true;
            }
        }
    }
    sideways_safe
}

/// Castling, for standard chess and Chess960 alike (see `board::Castling`): the squares
/// between king and rook and their landing squares must be empty, and the king may not pass
/// through or land on an attacked square. `sideways_safe` (from `king_moves`) already answers
/// for the squares beside the king.
#[inline(always)]
fn castling_moves<S: MoveSink>(board: &Board, us: Color, sideways_safe: [bool; 2], sink: &mut S) {
    let rights = board.castling_rights() >> (2 * us.index());
    if rights & 0b11 == 0 {
        return;
    }
    let table = board.castle_table();
    let king = board.king_square(us);
    for (king_side, move_flag) in [(true, flag::KING_CASTLE), (false, flag::QUEEN_CASTLE)] {
        let index = right_index(us, king_side);
        if rights & (1 << (index % 2)) == 0 {
            continue;
        }
        if !(board.occupied() & table.must_be_empty(index)).is_empty() {
            continue;
        }
        let mut allowed = true;
        let beside = king.offset(if king_side { dir::E } else { dir::W });
        let beside_safe = sideways_safe[usize::from(!king_side)];
        if table.rook_may_shield(index) {
            allowed = king_path_is_safe_without_rook(board, us, index);
        } else {
            for &sq in table.king_path(index) {
                // The empty square beside the king was judged by `king_moves` already.
                let unsafe_here = if sq == beside && board.piece_at(sq).is_empty() {
                    !beside_safe
                } else {
                    board.is_attacked_by(sq, !us)
                };
                if unsafe_here {
                    allowed = false;
                    break;
                }
            }
        }
        if allowed {
            let (king_to, _) = board::Castling::landing(us, king_side);
            sink.push(Move::new(king, king_to, move_flag));
        }
    }
}

/// The king's castling path checked with the castling rook lifted off: in Chess960 the rook
/// may stand between an attacker and the path, and it moves away. Rare, so kept out of line.
#[cold]
#[inline(never)]
fn king_path_is_safe_without_rook(board: &Board, us: Color, index: usize) -> bool {
    let table = board.castle_table();
    let occupied = board.occupied() & !SquareSet::of(table.rook_from(index));
    table.king_path(index).iter().all(|&sq| !board.attacked_on(occupied, sq, !us))
}

#[inline(always)]
fn pawn_moves<const KIND: u8, const IN_CHECK: bool, const PINS: bool, S: MoveSink>(
    board: &Board,
    us: Color,
    safety: &KingSafety,
    sink: &mut S,
) {
    // For captures and promotions only, the pawns that might have one: those a step behind
    // an enemy piece diagonally (on the side it can be taken from), and those about to promote.
    let noisy = if KIND == kind::NOISY {
        let (forward, seventh) = if us == Color::White { (8, 6) } else { (-8, 1) };
        let enemies = board.occupied_by(!us);
        let east = (enemies & !SquareSet::file(0)).shifted(-(forward + 1));
        let west = (enemies & !SquareSet::file(7)).shifted(-(forward - 1));
        board.piece_set(us, PieceKind::Pawn) & (east | west | SquareSet::rank(seventh))
    } else {
        SquareSet::EMPTY
    };
    for &from in board.pieces(us, PieceKind::Pawn) {
        if KIND == kind::NOISY && !noisy.contains(from) {
            continue;
        }
        // Pinned pawns are rare: the usual case is compiled without the pin tests.
        match if PINS { safety.pin_step(from) } else { 0 } {
            0 => pawn_moves_from::<KIND, IN_CHECK, false, S>(board, us, from, 0, safety, sink),
            pin_step => pawn_moves_from::<KIND, IN_CHECK, true, S>(board, us, from, pin_step, safety, sink),
        }
    }
    if KIND != kind::QUIET {
        en_passant_moves(board, us, sink);
    }
}

/// En passant captures, found from the target square: only the two squares beside the pawn
/// that just advanced can hold a capturer, so the pawn loop need not ask every pawn.
#[inline(always)]
fn en_passant_moves<S: MoveSink>(board: &Board, us: Color, sink: &mut S) {
    let Some(to) = board.en_passant() else {
        return;
    };
    let pawn = Piece::new(us, PieceKind::Pawn);
    for side in [dir::E, dir::W] {
        let from = to.offset(side - us.forward());
        if board.piece_at(from) == pawn && en_passant_is_legal(board, us, from, to) {
            sink.push(Move::new(from, to, flag::EN_PASSANT));
        }
    }
}

/// The moves of our pawn on `from`, whose pin line is `pin_step` if `PINNED`.
#[inline(always)]
fn pawn_moves_from<const KIND: u8, const IN_CHECK: bool, const PINNED: bool, S: MoveSink>(
    board: &Board,
    us: Color,
    from: Square,
    pin_step: i8,
    safety: &KingSafety,
    sink: &mut S,
) {
    let squares = board.squares();
    let forward = us.forward();
    let allows = |step: i8, to: Square| safety.allows::<IN_CHECK>(if PINNED { pin_step } else { 0 }, step, to);
    // The square seen from White's side (Black's are turned half round the board), so that
    // one comparison tells the home rank (31..=38) and the rank before promotion (81..=88).
    let relative = if us == Color::White { from.0 } else { 119 - from.0 };
    let promotes = relative > 80;
    let one = from.offset(forward);
    let one_empty = squares[one].is_empty();
    if promotes {
        if one_empty && allows(forward, one) {
            push_promotions::<KIND, S>(from, one, false, sink);
        }
    } else if KIND != kind::NOISY {
        sink.push_if(one_empty & allows(forward, one), Move::new(from, one, flag::QUIET));
        // Read even when it cannot matter (any square index is inside the mailbox array),
        // so that the double step needs no branch of its own.
        let two = one.offset(forward);
        let two_ok = one_empty & (relative < 40) & squares[two].is_empty();
        sink.push_if(two_ok && allows(forward, two), Move::new(from, two, flag::DOUBLE_PUSH));
    }
    if KIND == kind::QUIET {
        return;
    }
    for side in [dir::E, dir::W] {
        let to = one.offset(side);
        let capture = squares[to].is_color(!us) && allows(forward + side, to);
        if promotes {
            if capture {
                push_promotions::<KIND, S>(from, to, true, sink);
            }
        } else {
            sink.push_if(capture, Move::new(from, to, flag::CAPTURE));
        }
    }
}

/// Captures and queen promotions are noisy; quiet under-promotions, which matter only in rare
/// positions, wait with the quiet moves.
#[inline]
fn push_promotions<const KIND: u8, S: MoveSink>(from: Square, to: Square, capture: bool, sink: &mut S) {
    for promoted in [PieceKind::Queen, PieceKind::Knight, PieceKind::Rook, PieceKind::Bishop] {
        let noisy = capture || promoted == PieceKind::Queen;
        if KIND == kind::ALL || (KIND == kind::NOISY) == noisy {
            sink.push(Move::promotion(from, to, promoted, capture));
        }
    }
}

/// En passant removes two pawns from one rank, which can expose the king along that rank in
/// a way no pin test sees; it is rare enough to settle by asking the attack question with the
/// occupied squares as they would be after it.
fn en_passant_is_legal(board: &Board, us: Color, from: Square, to: Square) -> bool {
    let moved = SquareSet::of(from) | SquareSet::of(to) | SquareSet::of(to.offset(-us.forward()));
    !board.attacked_on(board.occupied() ^ moved, board.king_square(us), !us)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn moves_of(fen: &str) -> Vec<String> {
        let board = Board::from_fen(fen).unwrap();
        let mut moves: Vec<String> = legal_moves(&board).iter().map(|m| m.to_string()).collect();
        moves.sort();
        moves
    }

    /// The search fetches the table's entry for `key_after(mv)` before playing the move: for
    /// every move that is not castling, a promotion or en passant and leaves the castling rights
    /// and the en passant square as they were, that is exactly the key the move gives. (Of the
    /// suites' moves, most are such moves.)
    #[test]
    fn key_after_predicts_the_key_of_plain_moves() {
        let (mut plain, mut all) = (0, 0);
        for mut board in crate::perft::suite_boards() {
            for mv in legal_moves(&board).iter() {
                let predicted = board.key_after(mv);
                let (rights, passant) = (board.castling_rights(), board.en_passant());
                board.make_move(mv);
                let special = mv.is_castle() || mv.is_promotion() || mv.is_en_passant();
                if !special && rights == board.castling_rights() && passant == board.en_passant() {
                    assert_eq!(predicted, board.key(), "{mv}, which led to {}", board.to_fen());
                    plain += 1;
                }
                all += 1;
                board.unmake_move();
            }
        }
        assert!(plain * 2 > all, "{plain} plain moves of {all}");
    }

    /// The table move's check agrees with the generator: for every 16-bit move in the suites'
    /// positions, and in the positions one move after them for every move of the kinds it
    /// settles itself (quiet moves, double pushes, plain captures) from a square of ours.
    #[test]
    fn legality_of_any_move_agrees_with_the_generator() {
        let agrees = |board: &Board, moves: &mut dyn Iterator<Item = Move>| {
            let mut legal: Vec<Move> = legal_moves(board).iter().collect();
            legal.sort_by_key(|m| m.raw());
            for mv in moves {
                let expected = legal.binary_search_by_key(&mv.raw(), |m| m.raw()).is_ok();
                assert_eq!(is_legal(board, mv), expected, "{mv} (flag {}) in {}", mv.flag(), board.to_fen());
            }
        };
        let mut checked = 0;
        for mut board in crate::perft::suite_boards() {
            agrees(&board, &mut (0..=u16::MAX).map(Move::from_raw));
            for first in legal_moves(&board).iter() {
                board.make_move(first);
                let us = board.side_to_move();
                let ours = Square::all().filter(|&sq| board.piece_at(sq).is_color(us)).collect::<Vec<_>>();
                let mut moves = ours.iter().flat_map(|&from| {
                    Square::all().flat_map(move |to| {
                        [flag::QUIET, flag::DOUBLE_PUSH, flag::CAPTURE].map(|f| Move::new(from, to, f))
                    })
                });
                agrees(&board, &mut moves);
                checked += ours.len() * 64 * 3;
                board.unmake_move();
            }
        }
        assert!(checked > 1_000_000, "{checked} moves");
    }

    /// The noisy and the quiet moves are all the moves, each in the order the full list has
    /// them: the order the search's move ordering breaks ties by (and `bench`'s node count
    /// depends on), whichever way a stage finds its moves. Over the suites' positions and
    /// those one move after them.
    #[test]
    fn noisy_and_quiet_moves_are_all_moves_in_order() {
        let check = |board: &Board| {
            let (mut noisy, mut quiet) = (MoveList::new(), MoveList::new());
            generate::<{ kind::NOISY }, _>(board, &mut noisy);
            generate::<{ kind::QUIET }, _>(board, &mut quiet);
            let all = legal_moves(board);
            let fen = board.to_fen();
            assert_eq!(noisy.as_slice(), all.iter().filter(|m| m.is_noisy()).collect::<Vec<_>>(), "{fen}");
            assert_eq!(quiet.as_slice(), all.iter().filter(|m| !m.is_noisy()).collect::<Vec<_>>(), "{fen}");
            noisy.len()
        };
        let mut noisy = 0;
        // Promotions of every kind, quiet and capturing, for both sides besides the suites.
        let promotions = Board::from_fen("n1n5/PPPk4/8/8/8/8/4Kppp/5N1N b - - 0 1").unwrap();
        for mut board in crate::perft::suite_boards().into_iter().chain([promotions]) {
            noisy += check(&board);
            for mv in legal_moves(&board).iter() {
                board.make_move(mv);
                noisy += check(&board);
                board.unmake_move();
            }
        }
        assert!(noisy > 5000, "{noisy} noisy moves");
    }

    #[test]
    fn en_passant_that_exposes_the_king_on_its_rank_is_illegal() {
        // After ...c7-c5 the b5 pawn cannot take: both pawns would leave the fifth rank open.
        let moves = moves_of("8/8/8/KPp4r/8/8/8/4k3 w - c6 0 2");
        assert!(!moves.contains(&"b5c6".to_string()));
        assert!(moves.contains(&"b5b6".to_string()));
    }

    #[test]
    fn en_passant_can_capture_a_checking_pawn() {
        let moves = moves_of("8/8/8/2k5/3Pp3/8/8/4K3 b - d3 0 1");
        assert!(moves.contains(&"e4d3".to_string()));
    }

    #[test]
    fn castling_is_refused_out_of_through_or_into_check() {
        let free = moves_of("4k3/8/8/8/8/8/8/R3K2R w KQ - 0 1");
        assert!(free.contains(&"e1g1".to_string()) && free.contains(&"e1c1".to_string()));
        // A rook on f8 covers f1: no king-side castling; b1 attacked still allows queen side.
        let moves = moves_of("1r3rk1/8/8/8/8/8/8/R3K2R w KQ - 0 1");
        assert!(!moves.contains(&"e1g1".to_string()));
        assert!(moves.contains(&"e1c1".to_string()));
        let in_check = moves_of("4r1k1/8/8/8/8/8/8/R3K2R w KQ - 0 1");
        assert!(!in_check.contains(&"e1g1".to_string()) && !in_check.contains(&"e1c1".to_string()));
    }

    #[test]
    fn double_check_allows_only_king_moves() {
        let board = Board::from_fen("4k3/8/8/8/8/5n2/8/R3K2r w Q - 0 1").unwrap();
        let moves = legal_moves(&board);
        assert!(moves.iter().all(|m| m.from() == Square::E1), "{:?}", moves.as_slice());
    }

    #[test]
    fn parses_only_legal_moves() {
        let board = Board::start_position();
        assert_eq!(parse_move(&board, "e2e4").map(|m| m.to_string()), Some("e2e4".into()));
        for bad in ["e2e5", "e7e5", "e2", "e2e4qq", "z9e4", "e1g1", "", "é2e4"] {
            assert_eq!(parse_move(&board, bad), None, "{bad}");
        }
        let promo = Board::from_fen("8/4P3/8/8/8/8/k7/4K3 w - - 0 1").unwrap();
        assert_eq!(parse_move(&promo, "e7e8N").map(|m| m.to_string()), Some("e7e8n".into()));
        assert_eq!(parse_move(&promo, "e7e8"), None);
        assert_eq!(parse_move(&promo, "e7e8k"), None);
    }
}
