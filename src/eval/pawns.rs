//! Pawns: their structure (weaknesses and strengths that only pawns decide, cached by the pawn
//! key since pawns move rarely) and passed pawns (whose worth depends on the kings and the
//! path ahead, so they are scored afresh).

use super::{S, Scorer, Term};
use crate::board::{Board, Color, Piece, PieceKind, Square, SquareSet, dir};

/// What the pawns alone decide, for the rest of the evaluation.
#[derive(Clone, Copy, Default)]
pub struct PawnInfo {
    /// Ranks holding a pawn of each colour, as a bit mask per file.
    pub ranks: [[u8; 8]; 2],
    pub attacks: [SquareSet; 2],
    /// Pawns with no enemy pawn ahead on their own or a neighbouring file.
    pub passed: [SquareSet; 2],
}

impl PawnInfo {
    pub fn of(board: &Board) -> PawnInfo {
        let mut info = PawnInfo::default();
        for color in Color::BOTH {
            let c = color.index();
            for &sq in board.pieces(color, PieceKind::Pawn) {
                info.ranks[c][sq.file() as usize] |= 1 << sq.rank();
                for side in [dir::E, dir::W] {
                    info.attacks[c].insert(sq.offset(color.forward() + side));
                }
            }
        }
        for color in Color::BOTH {
            for &sq in board.pieces(color, PieceKind::Pawn) {
                let file = sq.file() as i32;
                if (file - 1..=file + 1).all(|f| info.ahead(color, !color, f, sq.rank()) == 0) {
                    info.passed[color.index()].insert(sq);
                }
            }
        }
        info
    }

    /// The ranks of `of`'s pawns on `file` that stand ahead of `rank`, as `color` looks at the
    /// board (a bit mask; 0 for files off the board).
    pub fn ahead(&self, color: Color, of: Color, file: i32, rank: u8) -> u8 {
        if !(0..8).contains(&file) {
            return 0;
        }
        let ahead = if color == Color::White { !0u8 << rank << 1 } else { !(!0u8 << rank) };
        self.ranks[of.index()][file as usize] & ahead
    }

    fn has_file(&self, color: Color, file: i32) -> bool {
        (0..8).contains(&file) && self.ranks[color.index()][file as usize] != 0
    }
}

/// Weaknesses (isolated, doubled, backward pawns) and strengths (pawns defended by a pawn,
/// pawns side by side, which can advance together).
pub fn structure(board: &Board, info: &PawnInfo, acc: &mut Scorer, color: Color) {
    let them = !color;
    let is_pawn = |sq: Square| board.piece_at(sq) == Piece::new(color, PieceKind::Pawn);
    for &sq in board.pieces(color, PieceKind::Pawn) {
        let file = sq.file() as i32;
        let rank = sq.relative_rank(color) as usize;
        let isolated = !info.has_file(color, file - 1) && !info.has_file(color, file + 1);
        let behind = sq.offset(-color.forward());
        if isolated {
            acc.add(color, Term::IsolatedPawn, 0, 1);
        }
        if info.ahead(color, color, file, sq.rank()) != 0 {
            acc.add(color, Term::DoubledPawn, 0, 1);
        }
        if is_pawn(behind.offset(dir::E)) || is_pawn(behind.offset(dir::W)) {
            acc.add(color, Term::SupportedPawn, rank, 1);
        }
        if is_pawn(sq.offset(dir::E)) || is_pawn(sq.offset(dir::W)) {
            acc.add(color, Term::PhalanxPawn, rank, 1);
        }
        // Backward: no pawn of ours beside or behind on the next files can ever defend it,
        // and an enemy pawn controls the square it would advance to.
        let defensible = [file - 1, file + 1].iter().any(|&f| {
            info.has_file(color, f)
                && info.ranks[color.index()][f as usize] & !info.ahead(color, color, f, sq.rank()) != 0
        });
        if !isolated && !defensible && info.attacks[them.index()].contains(sq.offset(color.forward())) {
            acc.add(color, Term::BackwardPawn, 0, 1);
        }
    }
}

/// A passed pawn is worth more the further it has come, the freer its path, and the nearer
/// our king and the further theirs from the square in front of it.
pub fn passed(board: &Board, info: &PawnInfo, acc: &mut Scorer, color: Color) {
    let them = !color;
    for &sq in board.pieces(color, PieceKind::Pawn).iter().filter(|&&sq| info.passed[color.index()].contains(sq)) {
        let rank = sq.relative_rank(color) as usize;
        let front = sq.offset(color.forward());
        acc.add(color, Term::PassedPawn, rank, 1);
        if board.piece_at(front).is_empty() {
            acc.add(color, Term::PassedPawnFree, rank, 1);
        }
        acc.add(color, Term::PassedPawnOwnKing, rank, distance(board.king_square(color), front));
        acc.add(color, Term::PassedPawnEnemyKing, rank, distance(board.king_square(them), front));
    }
}

fn distance(a: Square, b: Square) -> i32 {
    (a.file() as i32 - b.file() as i32).abs().max((a.rank() as i32 - b.rank() as i32).abs())
}

/// Entries in a pawn cache (a power of two).
const CACHE_ENTRIES: usize = 1 << 14;

/// Pawn information and structure scores by pawn key. A position without pawns has key 0,
/// which the empty entries already describe correctly.
pub struct PawnCache {
    entries: Box<[(u64, PawnInfo, S)]>,
}

impl PawnCache {
    pub fn new() -> PawnCache {
        PawnCache { entries: vec![(0, PawnInfo::default(), S::default()); CACHE_ENTRIES].into_boxed_slice() }
    }

    /// The pawn information and the White-relative structure score of the board's pawns.
    pub fn get(&mut self, board: &Board) -> (PawnInfo, S) {
        let key = board.pawn_key();
        let entry = &mut self.entries[key as usize & (CACHE_ENTRIES - 1)];
        if entry.0 != key {
            let info = PawnInfo::of(board);
            let mut scorer = Scorer::default();
            for color in Color::BOTH {
                structure(board, &info, &mut scorer, color);
            }
            *entry = (key, info, scorer.0);
        }
        (entry.1, entry.2)
    }
}

impl Default for PawnCache {
    fn default() -> PawnCache {
        PawnCache::new()
    }
}
