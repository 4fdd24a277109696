//! Static evaluation: how good the position is for the side to move, in centipawns. Two
//! evaluations answer it: the network (`nnue`), the default, and the hand-crafted evaluation
//! it replaced, in this file, which the levels and the first generation of training data use
//! (see `docs/evaluation.md`); the search reaches either through an `Evaluator` (`evaluator`).
//!
//! In the hand-crafted evaluation, every term is a (middlegame, endgame) pair of weights (see
//! `weights`); the two sums are blended by the material left on the board, so that, say, a
//! king that should hide in the middlegame walks to the centre as the pieces come off. The
//! terms, in the order computed: material and piece-square tables; pawn structure; piece
//! mobility, files and outposts (which also map every square each side attacks); king safety;
//! threats; and the tempo. The network's score is cut here too in endings it cannot judge
//! (`scale_network`).

mod evaluator;
pub mod nnue;
mod params;
mod pawns;
mod score;
mod weights;

#[cfg(feature = "tune")]
pub use evaluator::TrialNetwork;
pub use evaluator::{Evaluation, Evaluator};
pub use pawns::PawnCache;
pub use score::S;
use weights::{Scorer, Term};

use crate::board::{Board, Color, Piece, PieceKind, Square, SquareMap, SquareSet, dir};

/// Game phase weight of each piece kind; 24 is the full opening complement.
const PHASE_WEIGHT: [i32; 7] = [0, 0, 1, 1, 2, 4, 0];
pub const MAX_PHASE: i32 = 24;
/// Endgame scale factors are out of this.
pub const FULL_SCALE: i32 = 64;

/// The evaluation of the position for the side to move. `pawns` caches the pawn structure.
pub fn evaluate(board: &Board, pawns: &mut PawnCache) -> i32 {
    let (info, structure) = pawns.get(board);
    let mut scorer = Scorer(structure);
    let blend = evaluate_pieces(board, info, &mut scorer);
    blend.apply(scorer.0) * board.side_to_move().sign()
}

/// How the summed terms become one score: the game phase weighs middlegame against endgame,
/// and the endgame part is scaled down in endings that are hard to win.
#[derive(Clone, Copy, Debug)]
pub struct Blend {
    pub phase: i32,
    pub scale: i32,
}

impl Blend {
    /// The White-relative score.
    pub fn apply(self, score: S) -> i32 {
        (score.mg() * self.phase + score.eg() * (MAX_PHASE - self.phase) * self.scale / FULL_SCALE) / MAX_PHASE
    }
}

/// Walks the position, feeding every term to `acc`, and says how to blend the result: what
/// `evaluate` does with the pawn structure computed afresh instead of from its cache.
#[cfg(test)]
fn evaluate_with(board: &Board, acc: &mut Scorer) -> Blend {
    let info = pawns::PawnInfo::of(board);
    for color in Color::BOTH {
        pawns::structure(board, &info, acc, color);
    }
    evaluate_pieces(board, info, acc)
}

/// Every term but the pawn structure.
fn evaluate_pieces(board: &Board, pawns: pawns::PawnInfo, acc: &mut Scorer) -> Blend {
    let mut ctx = Context::new(board, pawns);
    for color in Color::BOTH {
        material(&ctx, acc, color);
    }
    for color in Color::BOTH {
        pieces(&mut ctx, acc, color);
    }
    for color in Color::BOTH {
        king_safety(&ctx, acc, color);
        threats(&ctx, acc, color);
        pawns::passed(board, &ctx.pawns, acc, color);
    }
    acc.add(board.side_to_move(), Term::Tempo, 0, 1);
    Blend { phase: ctx.phase(), scale: endgame_scale(board) }
}

/// What the terms share: where the pawns are and what each side attacks.
struct Context<'a> {
    board: &'a Board,
    pawns: pawns::PawnInfo,
    /// Squares attacked by each colour's pieces of each kind (pawns included).
    attacked_by: [[SquareSet; 7]; 2],
    attacked: [SquareSet; 2],
    king_zone: [SquareSet; 2],
    /// Squares where a piece of each colour counts as mobile: not blocked by its own pawns or
    /// king, and not attacked by enemy pawns.
    mobility_area: [SquareSet; 2],
    occupied_by: [SquareSet; 2],
    /// Attacks on each colour's king zone: pieces taking part, and zone squares hit per kind.
    king_attackers: [i32; 2],
    king_zone_hits: [[i32; 7]; 2],
}

impl<'a> Context<'a> {
    fn new(board: &'a Board, pawns: pawns::PawnInfo) -> Context<'a> {
        let mut ctx = Context {
            board,
            pawns,
            attacked_by: [[SquareSet::EMPTY; 7]; 2],
            attacked: [SquareSet::EMPTY; 2],
            king_zone: [SquareSet::EMPTY; 2],
            mobility_area: [SquareSet::EMPTY; 2],
            occupied_by: [SquareSet::EMPTY; 2],
            king_attackers: [0; 2],
            king_zone_hits: [[0; 7]; 2],
        };
        for color in Color::BOTH {
            let c = color.index();
            for kind in PieceKind::ALL {
                for &sq in board.pieces(color, kind) {
                    ctx.occupied_by[c].insert(sq);
                }
            }
            ctx.attacked_by[c][PieceKind::Pawn.index()] = pawns.attacks[c];
            let king = board.king_square(color);
            ctx.attacked_by[c][PieceKind::King.index()] = SquareSet::king_attacks(king);
            let mut zone = SquareSet::king_attacks(king);
            zone.insert(king);
            for side in [dir::E, 0, dir::W] {
                zone.insert(king.offset(2 * color.forward() + side));
            }
            ctx.king_zone[c] = zone;
            ctx.attacked[c] = pawns.attacks[c] | ctx.attacked_by[c][PieceKind::King.index()];
        }
        for color in Color::BOTH {
            let mut blockers = SquareSet::EMPTY;
            board.pieces(color, PieceKind::Pawn).iter().for_each(|&sq| blockers.insert(sq));
            blockers.insert(board.king_square(color));
            ctx.mobility_area[color.index()] = !(blockers | pawns.attacks[(!color).index()]);
        }
        ctx
    }

    fn phase(&self) -> i32 {
        let mut phase = 0;
        for color in Color::BOTH {
            for kind in PieceKind::ALL {
                phase += PHASE_WEIGHT[kind.index()] * self.board.count(color, kind) as i32;
            }
        }
        phase.min(MAX_PHASE)
    }
}

/// The square's index in White's tables: Black's pieces read them upside down.
#[inline]
fn relative_index(sq: Square, color: Color) -> usize {
    if color == Color::White { sq.index64() } else { sq.index64() ^ 56 }
}

fn material(ctx: &Context, acc: &mut Scorer, color: Color) {
    for kind in PieceKind::ALL {
        let k = kind.index() - 1;
        let pieces = ctx.board.pieces(color, kind);
        acc.add(color, Term::Material, k, pieces.len() as i32);
        for &sq in pieces {
            acc.add(color, Term::PieceSquare, k * 64 + relative_index(sq, color), 1);
        }
    }
    if ctx.board.count(color, PieceKind::Bishop) >= 2 {
        acc.add(color, Term::BishopPair, 0, 1);
    }
}

/// Mobility, files and outposts of the pieces, recording every square they attack.
fn pieces(ctx: &mut Context, acc: &mut Scorer, color: Color) {
    let c = color.index();
    let them = !color;
    let squares = ctx.board.squares();
    for (kind, steps, slides, mobility) in [
        (PieceKind::Knight, &dir::KNIGHT[..], false, Term::KnightMobility),
        (PieceKind::Bishop, &dir::DIAGONAL[..], true, Term::BishopMobility),
        (PieceKind::Rook, &dir::ORTHOGONAL[..], true, Term::RookMobility),
        (PieceKind::Queen, &dir::KING[..], true, Term::QueenMobility),
    ] {
        for &from in ctx.board.pieces(color, kind) {
            let reach = if slides { attacks(squares, from, steps) } else { SquareSet::knight_attacks(from) };
            acc.add(color, mobility, (reach & ctx.mobility_area[c]).count() as usize, 1);
            ctx.attacked_by[c][kind.index()] |= reach;
            ctx.attacked[c] |= reach;
            let zone_hits = (reach & ctx.king_zone[them.index()]).count() as i32;
            if zone_hits > 0 {
                ctx.king_attackers[them.index()] += 1;
                ctx.king_zone_hits[them.index()][kind.index()] += zone_hits;
            }
            match kind {
                PieceKind::Rook | PieceKind::Queen => {
                    let file = from.file() as usize;
                    let term = if kind == PieceKind::Rook { Term::RookFile } else { Term::QueenFile };
                    if ctx.pawns.ranks[c][file] == 0 {
                        acc.add(color, term, (ctx.pawns.ranks[them.index()][file] == 0) as usize, 1);
                    }
                }
                PieceKind::Knight | PieceKind::Bishop if is_outpost(ctx, color, from) => {
                    acc.add(color, Term::Outpost, (kind == PieceKind::Bishop) as usize, 1);
                }
                _ => {}
            }
        }
    }
}

/// The squares a slider on `from` attacks: along each direction, every square up to and
/// including the first occupied one.
fn attacks(squares: &SquareMap<Piece>, from: Square, steps: &[i8]) -> SquareSet {
    let mut reach = SquareSet::EMPTY;
    for &step in steps {
        let mut to = from.offset(step);
        while squares[to] != Piece::OFFBOARD {
            reach.insert(to);
            if !squares[to].is_empty() {
                break;
            }
            to = to.offset(step);
        }
    }
    reach
}

/// A square in the enemy half (ranks 4 to 6 from our side) defended by our pawn, which no
/// enemy pawn can ever attack.
fn is_outpost(ctx: &Context, color: Color, sq: Square) -> bool {
    let rank = sq.relative_rank(color);
    let file = sq.file() as i32;
    (3..=5).contains(&rank)
        && ctx.pawns.attacks[color.index()].contains(sq)
        && [file - 1, file + 1].iter().all(|&f| ctx.pawns.ahead(color, !color, f, sq.rank()) == 0)
}

/// Danger to `color`'s king: enemy pieces hitting the squares around it (counted once at
/// least two pieces join in, since a lone attacker rarely mates), checks the enemy could give
/// safely, the pawns sheltering it and storming it, and files opened beside it.
fn king_safety(ctx: &Context, acc: &mut Scorer, color: Color) {
    let them = !color;
    let king = ctx.board.king_square(color);
    if ctx.king_attackers[color.index()] >= 2 {
        for kind in [PieceKind::Knight, PieceKind::Bishop, PieceKind::Rook, PieceKind::Queen] {
            let hits = ctx.king_zone_hits[color.index()][kind.index()];
            if hits > 0 {
                acc.add(them, Term::KingZoneAttack, kind.index() - 1, hits);
            }
        }
    }
    for (kind, checks) in safe_checks(ctx, color, king) {
        if checks > 0 {
            acc.add(them, Term::SafeCheck, kind.index() - 1, checks);
        }
    }
    let king_file = (king.file() as i32).clamp(1, 6);
    for file in king_file - 1..=king_file + 1 {
        let ours = ctx.pawns.ahead(color, color, file, king.rank());
        let theirs = ctx.pawns.ahead(color, them, file, king.rank());
        acc.add(color, Term::PawnShield, rank_distance(color, king, ours), 1);
        acc.add(color, Term::PawnStorm, rank_distance(color, king, theirs), 1);
        if ours == 0 {
            acc.add(color, Term::KingFile, (theirs == 0) as usize, 1);
        }
    }
}

/// How many ranks in front of the king the nearest pawn of `ranks` stands (0: no pawn).
fn rank_distance(color: Color, king: Square, ranks: u8) -> usize {
    if ranks == 0 {
        return 0;
    }
    let nearest = if color == Color::White { ranks.trailing_zeros() } else { 7 - ranks.leading_zeros() };
    (nearest as i32 - king.rank() as i32).unsigned_abs().min(7) as usize
}

/// Checks the enemy could give safely, by checking piece kind: squares from which a piece of
/// that kind would check our king, which such a piece attacks, and which we do not defend.
fn safe_checks(ctx: &Context, color: Color, king: Square) -> [(PieceKind, i32); 4] {
    let them = !color;
    let squares = ctx.board.squares();
    let lines = |steps: &[i8]| attacks(squares, king, steps);
    let (diagonal, orthogonal) = (lines(&dir::DIAGONAL), lines(&dir::ORTHOGONAL));
    let safe = !ctx.attacked[color.index()] & !ctx.occupied_by[them.index()];
    let by = &ctx.attacked_by[them.index()];
    let count = |kind: PieceKind, from: SquareSet| (from & by[kind.index()] & safe).count() as i32;
    [
        (PieceKind::Knight, count(PieceKind::Knight, SquareSet::knight_attacks(king))),
        (PieceKind::Bishop, count(PieceKind::Bishop, diagonal)),
        (PieceKind::Rook, count(PieceKind::Rook, orthogonal)),
        (PieceKind::Queen, count(PieceKind::Queen, diagonal | orthogonal)),
    ]
}

/// `color`'s pieces attacked by enemy pawns, minor pieces or rooks: the enemy gains by them.
fn threats(ctx: &Context, acc: &mut Scorer, color: Color) {
    let them = !color;
    let by = &ctx.attacked_by[them.index()];
    let minors = by[PieceKind::Knight.index()] | by[PieceKind::Bishop.index()];
    for kind in [PieceKind::Knight, PieceKind::Bishop, PieceKind::Rook, PieceKind::Queen] {
        for &sq in ctx.board.pieces(color, kind) {
            let k = kind.index() - 1;
            if by[PieceKind::Pawn.index()].contains(sq) {
                acc.add(them, Term::ThreatByPawn, k, 1);
            }
            if minors.contains(sq) {
                acc.add(them, Term::ThreatByMinor, k, 1);
            }
            if by[PieceKind::Rook.index()].contains(sq) {
                acc.add(them, Term::ThreatByRook, k, 1);
            }
        }
    }
}

/// Endings the stronger side rarely wins: with no pawns and at most a minor piece more, or
/// with bishops of opposite colours.
fn endgame_scale(board: &Board) -> i32 {
    if pawnless_and_hard_to_win(board) {
        return FULL_SCALE / 8;
    }
    let only_bishops = |c: Color| {
        board.count(c, PieceKind::Bishop) == 1
            && [PieceKind::Knight, PieceKind::Rook, PieceKind::Queen].iter().all(|&k| board.count(c, k) == 0)
    };
    if only_bishops(Color::White) && only_bishops(Color::Black) {
        let shade = |c: Color| {
            let sq = board.pieces(c, PieceKind::Bishop)[0];
            (sq.file() + sq.rank()) % 2
        };
        if shade(Color::White) != shade(Color::Black) {
            return FULL_SCALE / 2;
        }
    }
    FULL_SCALE
}

/// The stronger side has no pawns and at most a minor piece more: KNvK, KRvKB, KNvKN and
/// their like, mostly drawn whatever the pieces' squares. (XBoard's draw offers are accepted
/// in them too.)
pub fn pawnless_and_hard_to_win(board: &Board) -> bool {
    let material = |c: Color| -> i32 {
        [PieceKind::Knight, PieceKind::Bishop, PieceKind::Rook, PieceKind::Queen]
            .iter()
            .map(|&k| k.value() * board.count(c, k) as i32)
            .sum()
    };
    let (white, black) = (material(Color::White), material(Color::Black));
    let stronger = if white >= black { Color::White } else { Color::Black };
    board.count(stronger, PieceKind::Pawn) == 0 && (white - black).abs() <= PieceKind::Bishop.value()
}

/// The network's score, cut to an eighth in pawnless endings that are hard to win: they are
/// rare in its training games, too rare for it to learn that they are drawn, which the
/// hand-crafted evaluation knows.
pub fn scale_network(board: &Board, score: i32) -> i32 {
    if pawnless_and_hard_to_win(board) { score / 8 } else { score }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Mirroring the board (colours swapped, ranks flipped) must not change the evaluation,
    /// over the positions of every perft suite.
    #[test]
    fn evaluation_is_colour_symmetric() {
        let mut pawns = PawnCache::new();
        for board in crate::perft::suite_boards() {
            let mirror = board.mirrored();
            assert_eq!(evaluate(&board, &mut pawns), evaluate(&mirror, &mut pawns), "{}", board.to_fen());
        }
    }

    /// The cached pawn structure must give exactly what evaluating every term afresh gives,
    /// whether the cache entry was just filled or found.
    #[test]
    fn cached_and_fresh_evaluations_agree() {
        let mut pawns = PawnCache::new();
        let suite = include_str!("../perft/random.epd");
        for entry in suite.lines().filter_map(|l| crate::perft::parse_suite_line(l).unwrap()) {
            let board = Board::from_fen(&entry.fen).unwrap();
            let mut scorer = Scorer::default();
            let fresh = evaluate_with(&board, &mut scorer).apply(scorer.0) * board.side_to_move().sign();
            assert_eq!(evaluate(&board, &mut pawns), fresh, "{}", entry.fen);
            assert_eq!(evaluate(&board, &mut pawns), fresh, "{} (cached)", entry.fen);
        }
    }

    #[test]
    fn extra_material_is_good() {
        let up_a_queen = Board::from_fen("rnb1kbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1").unwrap();
        assert!(evaluate(&up_a_queen, &mut PawnCache::new()) > 700);
    }

    /// The network's score is cut in pawnless endings with at most a minor piece more, and
    /// only there (opposite bishops it learns from its games).
    #[test]
    fn network_scores_are_scaled_in_pawnless_minor_endings() {
        let scaled = |fen: &str| scale_network(&Board::from_fen(fen).unwrap(), 240);
        assert_eq!(scaled("4k3/8/8/3n4/8/3N4/8/4K3 b - - 0 1"), 30);
        assert_eq!(scaled("8/8/4k3/8/2b5/8/4K3/7R w - - 0 1"), 30);
        assert_eq!(scaled("8/8/4k3/8/8/8/4K3/7R w - - 0 1"), 240);
        assert_eq!(scaled("8/8/4k3/8/2b5/8/4KP2/7R w - - 0 1"), 240);
        assert_eq!(scaled("8/8/4k3/8/2b5/8/4K1P1/7B w - - 0 1"), 240);
    }

    #[test]
    fn drawish_endings_are_scaled_down() {
        let rook_vs_bishop = Board::from_fen("8/8/4k3/8/2b5/8/4K3/7R w - - 0 1").unwrap();
        assert_eq!(endgame_scale(&rook_vs_bishop), FULL_SCALE / 8);
        let opposite_bishops = Board::from_fen("8/5p2/4k1b1/8/8/2B1K3/5PP1/8 w - - 0 1").unwrap();
        assert_eq!(endgame_scale(&opposite_bishops), FULL_SCALE / 2);
        let rook_vs_knight_with_pawns = Board::from_fen("8/5p2/4k3/8/2n5/8/4KP2/7R w - - 0 1").unwrap();
        assert_eq!(endgame_scale(&rook_vs_knight_with_pawns), FULL_SCALE);
    }
}
