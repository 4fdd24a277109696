//! Legal move generation.
//!
//! Moves are legal by construction rather than made and tested: one walk outwards from the
//! king finds the checking pieces and the pinned ones, which gives every piece the set of
//! squares it may move to. Only king moves (is the destination attacked?) and en passant (which
//! lifts two pawns off one rank) ask the attack question. Perft counts the leaves by
//! generating moves at the last ply without making them, which this makes exact.

use crate::board::{Board, Color, Move, Piece, PieceKind, Square, SquareMap, SquareSet, castle, dir, flag};

/// Which moves to generate: captures and queen promotions ("noisy", for quiescence search
/// and the first stages of move ordering), the rest ("quiet"), or both.
pub mod kind {
    pub const ALL: u8 = 0;
    pub const NOISY: u8 = 1;
    pub const QUIET: u8 = 2;
}

/// More than the 218 legal moves of the richest known position.
pub const MAX_MOVES: usize = 256;

pub struct MoveList {
    moves: [Move; MAX_MOVES],
    len: usize,
}

impl MoveList {
    #[inline]
    pub fn new() -> MoveList {
        MoveList { moves: [Move::NONE; MAX_MOVES], len: 0 }
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
    pub fn as_slice(&self) -> &[Move] {
        &self.moves[..self.len]
    }

    pub fn iter(&self) -> impl Iterator<Item = Move> + '_ {
        self.as_slice().iter().copied()
    }

    pub fn contains(&self, mv: Move) -> bool {
        self.as_slice().contains(&mv)
    }
}

/// Where generated moves go: a list, or just a count when only their number matters (the last
/// ply of perft), which spares encoding and storing them.
pub trait MoveSink {
    fn push(&mut self, mv: Move);
}

impl MoveSink for MoveList {
    #[inline]
    fn push(&mut self, mv: Move) {
        self.moves[self.len] = mv;
        self.len += 1;
    }
}

#[derive(Default)]
pub struct MoveCounter(pub usize);

impl MoveSink for MoveCounter {
    #[inline]
    fn push(&mut self, _: Move) {
        self.0 += 1;
    }
}

impl Default for MoveList {
    fn default() -> Self {
        MoveList::new()
    }
}

/// Every legal move in the position.
pub fn legal_moves(board: &Board) -> MoveList {
    let mut list = MoveList::new();
    generate::<{ kind::ALL }, _>(board, &mut list);
    list
}

/// How many legal moves the position has.
pub fn count_legal_moves(board: &Board) -> usize {
    let mut counter = MoveCounter(0);
    generate::<{ kind::ALL }, _>(board, &mut counter);
    counter.0
}

/// Parses a move in coordinate notation (`e2e4`, `e7e8q`, `e1g1`) and returns it only if it is
/// legal here. Promotion letters are accepted in either case.
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
    legal_moves(board).iter().find(|m| m.from() == from && m.to() == to && m.promoted() == promoted)
}

/// The checking pieces and pins around the side to move's king.
struct KingSafety {
    king: Square,
    checkers: u32,
    /// When in check, the destinations that deal with it: the checker and any square between
    /// it and the king.
    evasion_targets: SquareSet,
    /// Each pinned piece with the step from our king through it to the pinner: it may move
    /// only along that line.
    pins: [(Square, i8); 8],
    pin_count: usize,
}

impl KingSafety {
    fn of(board: &Board, us: Color) -> KingSafety {
        let them = !us;
        let squares = board.squares();
        let king = board.king_square(us);
        let mut safety = KingSafety {
            king,
            checkers: 0,
            evasion_targets: SquareSet::EMPTY,
            pins: [(Square::NONE, 0); 8],
            pin_count: 0,
        };
        let enemy_pawn = Piece::new(them, PieceKind::Pawn);
        for step in [us.forward() + dir::E, us.forward() + dir::W] {
            safety.note_contact_check(squares[king.offset(step)] == enemy_pawn, king.offset(step));
        }
        for &knight in board.pieces(them, PieceKind::Knight) {
            let is_check = dir::KNIGHT.contains(&(knight.0 as i8 - king.0 as i8));
            safety.note_contact_check(is_check, knight);
        }
        // Only the few enemy sliders on a line through the king need a walk along that line.
        for (kind, orthogonal, diagonal) in
            [(PieceKind::Rook, true, false), (PieceKind::Bishop, false, true), (PieceKind::Queen, true, true)]
        {
            for &slider in board.pieces(them, kind) {
                let step = king.line_step(slider);
                let is_orthogonal = step.abs() == 1 || step.abs() == 10;
                if step != 0 && (if is_orthogonal { orthogonal } else { diagonal }) {
                    safety.examine_line(squares, us, slider, step);
                }
            }
        }
        safety
    }

    /// The line from the king to an enemy slider aimed at it: empty means check, one piece
    /// of ours means that piece is pinned.
    fn examine_line(&mut self, squares: &SquareMap<Piece>, us: Color, slider: Square, step: i8) {
        let mut blocker = None;
        let mut sq = self.king.offset(step);
        while sq != slider {
            if !squares[sq].is_empty() {
                if blocker.is_some() || !squares[sq].is_color(us) {
                    return;
                }
                blocker = Some(sq);
            }
            sq = sq.offset(step);
        }
        match blocker {
            None => {
                self.checkers += 1;
                let mut sq = self.king.offset(step);
                while sq != slider {
                    self.evasion_targets.insert(sq);
                    sq = sq.offset(step);
                }
                self.evasion_targets.insert(slider);
            }
            Some(pinned) => {
                self.pins[self.pin_count] = (pinned, step);
                self.pin_count += 1;
            }
        }
    }

    #[inline]
    fn note_contact_check(&mut self, is_check: bool, sq: Square) {
        if is_check {
            self.checkers += 1;
            self.evasion_targets.insert(sq);
        }
    }

    /// The pin line of the piece on `from` (see `allows`), or 0 if it is free.
    #[inline]
    fn pin_step(&self, from: Square) -> i8 {
        self.pins[..self.pin_count].iter().find(|(sq, _)| *sq == from).map_or(0, |&(_, step)| step)
    }

    /// May a piece with pin line `pin_step` go to `to`? A pinned piece must stay on the ray
    /// from the king through it (which ends at the pinner, so it can never pass it), and in
    /// check every move but the king's must capture or block the checker.
    #[inline(always)]
    fn allows(&self, pin_step: i8, to: Square) -> bool {
        (pin_step == 0 || self.king.line_step(to) == pin_step)
            && (self.checkers == 0 || self.evasion_targets.contains(to))
    }
}

/// Sends the legal moves of the kind `KIND` (see [`kind`]) to `sink`.
pub fn generate<const KIND: u8, S: MoveSink>(board: &Board, sink: &mut S) {
    let us = board.side_to_move();
    let safety = KingSafety::of(board, us);
    if safety.checkers < 2 {
        pawn_moves::<KIND, S>(board, us, &safety, sink);
        piece_moves::<KIND, false, 8, S>(board, us, PieceKind::Knight, dir::KNIGHT, &safety, sink);
        piece_moves::<KIND, true, 4, S>(board, us, PieceKind::Bishop, dir::DIAGONAL, &safety, sink);
        piece_moves::<KIND, true, 4, S>(board, us, PieceKind::Rook, dir::ORTHOGONAL, &safety, sink);
        piece_moves::<KIND, true, 8, S>(board, us, PieceKind::Queen, dir::KING, &safety, sink);
    }
    let sideways_safe = king_moves::<KIND, S>(board, us, safety.checkers > 0, sink);
    if KIND != kind::NOISY && safety.checkers == 0 {
        castling_moves(board, us, sideways_safe, sink);
    }
}

/// Moves of every `kind` piece of ours: single steps, or slides when `SLIDES`.
#[inline(always)]
fn piece_moves<const KIND: u8, const SLIDES: bool, const N: usize, S: MoveSink>(
    board: &Board,
    us: Color,
    kind: PieceKind,
    steps: [i8; N],
    safety: &KingSafety,
    sink: &mut S,
) {
    let squares = board.squares();
    for &from in board.pieces(us, kind) {
        let pin_step = safety.pin_step(from);
        for step in steps {
            let mut to = from.offset(step);
            loop {
                let occupant = squares[to];
                if occupant.is_empty() {
                    if KIND != kind::NOISY && safety.allows(pin_step, to) {
                        sink.push(Move::new(from, to, flag::QUIET));
                    }
                } else {
                    if KIND != kind::QUIET && occupant.is_color(!us) && safety.allows(pin_step, to) {
                        sink.push(Move::new(from, to, flag::CAPTURE));
                    }
                    break;
                }
                if !SLIDES {
                    break;
                }
                to = to.offset(step);
            }
        }
    }
}

/// The king's steps. Returns which of its two sideways steps (east, west) lead to an empty
/// square it may stand on, which castling needs to know too.
fn king_moves<const KIND: u8, S: MoveSink>(board: &Board, us: Color, in_check: bool, sink: &mut S) -> [bool; 2] {
    let from = board.king_square(us);
    // In check, the king must not step back along the checking line, which the king itself
    // still shadows on the real board; so destinations are tested with the king lifted off.
    // Out of check no slider's line runs through the king, so the real board answers.
    let mut lifted;
    let squares = if in_check {
        lifted = *board.squares();
        lifted[from] = Piece::EMPTY;
        &lifted
    } else {
        board.squares()
    };
    let mut sideways_safe = [false; 2];
    for step in dir::KING {
        let to = from.offset(step);
        let occupant = squares[to];
        let wanted =
            if occupant.is_empty() { KIND != kind::NOISY } else { KIND != kind::QUIET && occupant.is_color(!us) };
        if wanted && !board.attacked_on(squares, to, !us) {
            let move_flag = if occupant.is_empty() { flag::QUIET } else { flag::CAPTURE };
            sink.push(Move::new(from, to, move_flag));
            if occupant.is_empty() && (step == dir::E || step == dir::W) {
                sideways_safe[usize::from(step == dir::W)] = true;
            }
        }
    }
    sideways_safe
}

/// Castling, given which of the king's sideways steps are safe (from `king_moves`): the king
/// may not pass through or land on an attacked square, and the b-file square must be empty for
/// the rook but may be attacked.
fn castling_moves<S: MoveSink>(board: &Board, us: Color, [east_safe, west_safe]: [bool; 2], sink: &mut S) {
    let (king_side, queen_side, king) = match us {
        Color::White => (castle::WHITE_KING, castle::WHITE_QUEEN, Square::E1),
        Color::Black => (castle::BLACK_KING, castle::BLACK_QUEEN, Square::E8),
    };
    let rights = board.castling_rights();
    let empty = |step: i8| board.piece_at(king.offset(step)).is_empty();
    let safe = |step: i8| !board.is_attacked_by(king.offset(step), !us);
    if rights & king_side != 0 && east_safe && empty(2) && safe(2) {
        sink.push(Move::new(king, king.offset(2), flag::KING_CASTLE));
    }
    if rights & queen_side != 0 && west_safe && empty(-2) && empty(-3) && safe(-2) {
        sink.push(Move::new(king, king.offset(-2), flag::QUEEN_CASTLE));
    }
}

fn pawn_moves<const KIND: u8, S: MoveSink>(board: &Board, us: Color, safety: &KingSafety, sink: &mut S) {
    let squares = board.squares();
    let forward = us.forward();
    let ep = board.en_passant();
    // Mailbox rows (square / 10) of our pawns' home rank and of the rank they promote from.
    let (home_row, last_row) = if us == Color::White { (3, 8) } else { (8, 3) };
    for &from in board.pieces(us, PieceKind::Pawn) {
        let pin_step = safety.pin_step(from);
        let promotes = from.0 / 10 == last_row;
        let one = from.offset(forward);
        if squares[one].is_empty() {
            if promotes {
                if safety.allows(pin_step, one) {
                    push_promotions::<KIND, S>(from, one, false, sink);
                }
            } else if KIND != kind::NOISY {
                if safety.allows(pin_step, one) {
                    sink.push(Move::new(from, one, flag::QUIET));
                }
                let two = one.offset(forward);
                if from.0 / 10 == home_row && squares[two].is_empty() && safety.allows(pin_step, two) {
                    sink.push(Move::new(from, two, flag::DOUBLE_PUSH));
                }
            }
        }
        if KIND == kind::QUIET {
            continue;
        }
        for side in [dir::E, dir::W] {
            let to = one.offset(side);
            if squares[to].is_color(!us) && safety.allows(pin_step, to) {
                if promotes {
                    push_promotions::<KIND, S>(from, to, true, sink);
                } else {
                    sink.push(Move::new(from, to, flag::CAPTURE));
                }
            } else if Some(to) == ep && en_passant_is_legal(board, us, from, to) {
                sink.push(Move::new(from, to, flag::EN_PASSANT));
            }
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
/// a way no pin test sees; it is rare enough to settle by trying it on a copy of the squares.
fn en_passant_is_legal(board: &Board, us: Color, from: Square, to: Square) -> bool {
    let mut squares = *board.squares();
    squares[to] = squares[from];
    squares[from] = Piece::EMPTY;
    squares[to.offset(-us.forward())] = Piece::EMPTY;
    !board.attacked_on(&squares, board.king_square(us), !us)
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

    #[test]
    fn noisy_and_quiet_partition_all_moves() {
        let fen = "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1";
        for fen in [fen, "n1n5/PPPk4/8/8/8/8/4Kppp/5N1N b - - 0 1"] {
            let board = Board::from_fen(fen).unwrap();
            let (mut noisy, mut quiet) = (MoveList::new(), MoveList::new());
            generate::<{ kind::NOISY }, _>(&board, &mut noisy);
            generate::<{ kind::QUIET }, _>(&board, &mut quiet);
            let all = legal_moves(&board);
            assert_eq!(noisy.len() + quiet.len(), all.len());
            assert!(noisy.iter().all(|m| m.is_noisy() && all.contains(m)));
            assert!(quiet.iter().all(|m| !m.is_noisy() && all.contains(m)));
        }
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
