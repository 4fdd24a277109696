//! Where a game's opening, middlegame and endgame begin, by lichess's rule (`Divider` in
//! lichess-org/scalachess), so that the review's accuracy per phase splits a game where
//! lichess's charts draw their lines:
//!
//! - the **middlegame** begins at the first position with at most 10 pieces other than kings
//!   and pawns, or with fewer than four of White's pieces on the first rank or of Black's on
//!   the eighth (the pieces are out), or whose "mixedness" passes 150: a sum over the 49 2×2
//!   squares of the board that grows where White's and Black's men stand close together, the
//!   more so the further up the board (the armies have met);
//! - the **endgame** begins at the first position with at most 6 pieces other than kings and
//!   pawns (looked for only once a middlegame has begun; a middlegame that would begin there
//!   or later is none).
//!
//! A move counts in the phase of the position it is played in.

use crate::board::{Board, Color, PieceKind, SquareSet};

/// A phase of the game.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Phase {
    Opening,
    Middlegame,
    Endgame,
}

impl Phase {
    pub const ALL: [Phase; 3] = [Phase::Opening, Phase::Middlegame, Phase::Endgame];

    pub fn name(self) -> &'static str {
        match self {
            Phase::Opening => "opening",
            Phase::Middlegame => "middlegame",
            Phase::Endgame => "endgame",
        }
    }
}

/// The plies (counted from the game's first position, 0) at which the middlegame and the
/// endgame begin, where they do.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Division {
    pub middlegame: Option<usize>,
    pub endgame: Option<usize>,
}

impl Division {
    /// The division of the game whose positions are `boards` (the start, then the position
    /// after each move).
    pub fn of(boards: &[Board]) -> Division {
        let middlegame =
            boards.iter().position(|board| pieces(board) <= 10 || developed(board) || mixedness(board) > 150);
        let endgame = middlegame.and_then(|_| boards.iter().position(|board| pieces(board) <= 6));
        Division { middlegame: middlegame.filter(|&m| endgame.is_none_or(|e| m < e)), endgame }
    }

    /// The phase of a move played in the position after `ply` plies.
    pub fn phase(&self, ply: usize) -> Phase {
        match (self.middlegame, self.endgame) {
            (_, Some(endgame)) if ply >= endgame => Phase::Endgame,
            (Some(middlegame), _) if ply >= middlegame => Phase::Middlegame,
            _ => Phase::Opening,
        }
    }
}

/// Queens, rooks, bishops and knights on the board, both sides'.
fn pieces(board: &Board) -> usize {
    Color::BOTH
        .iter()
        .flat_map(|&color| {
            [PieceKind::Knight, PieceKind::Bishop, PieceKind::Rook, PieceKind::Queen]
                .map(|kind| board.count(color, kind))
        })
        .sum()
}

/// Whether a side has fewer than four men (pieces or pawns) left on its back rank.
fn developed(board: &Board) -> bool {
    let rank =
        |color: Color, rank: u8| (0..8).filter(|&file| board.occupied_by(color).contains(square(file, rank))).count();
    rank(Color::White, 0) < 4 || rank(Color::Black, 7) < 4
}

fn square(file: u8, rank: u8) -> crate::board::Square {
    crate::board::Square::new(file, rank)
}

/// What a 2×2 square with `white` and `black` men in it adds to the mixedness, `y` being its
/// height on the board (1: the first two ranks, 7: the last two). White's men count more the
/// further up they stand, Black's the further down, and mixed squares most.
fn contribution(y: i32, white: u32, black: u32) -> i32 {
    match (white, black) {
        (1, 0) => 1 + (8 - y),
        (2, 0) if y > 2 => 2 + (y - 2),
        (3 | 4, 0) if y > 1 => 3 + (y - 1),
        (0, 1) => 1 + y,
        (1, 1) => 5 + (3 - y).abs(),
        (2, 1) => 4 + y,
        (3, 1) => 5 + y,
        (0, 2) if y < 6 => 2 + (6 - y),
        (1, 2) => 4 + (6 - y),
        (2, 2) => 7,
        (0, 3 | 4) if y < 7 => 3 + (7 - y),
        (1, 3) => 5 + (6 - y),
        _ => 0,
    }
}

/// The sum of `contribution` over every 2×2 square of the board.
fn mixedness(board: &Board) -> i32 {
    let count = |set: SquareSet, file: u8, rank: u8| {
        [(0, 0), (1, 0), (0, 1), (1, 1)].iter().filter(|&&(df, dr)| set.contains(square(file + df, rank + dr))).count()
            as u32
    };
    let (white, black) = (board.occupied_by(Color::White), board.occupied_by(Color::Black));
    (0..7u8)
        .flat_map(|rank| (0..7u8).map(move |file| (file, rank)))
        .map(|(file, rank)| contribution(i32::from(rank) + 1, count(white, file, rank), count(black, file, rank)))
        .sum()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::notation::san::parse_san;

    fn positions(start: &str, sans: &str) -> Vec<Board> {
        let mut boards = vec![Board::from_fen(start).unwrap()];
        for san in sans.split_whitespace() {
            let mut board = boards[boards.len() - 1].clone();
            board.make_move(parse_san(&board, san).unwrap());
            boards.push(board);
        }
        boards
    }

    /// The start position by hand: every 2×2 square of ranks 1-2 holds four White men, `(4, 0)`
    /// at y = 1, worth nothing on the home rows; ranks 2-3 (y = 2) hold two, `(2, 0)` at y = 2,
    /// nothing; ranks 3-6 are empty; Black's side mirrors White's. Mixedness 0.
    #[test]
    fn the_start_is_an_opening() {
        let start = Board::start_position();
        assert_eq!((pieces(&start), developed(&start), mixedness(&start)), (14, false, 0));
        // After 1.e4: the pawn on e4 stands alone in four squares, at y = 3 (ranks 3-4) and
        // y = 4 (ranks 4-5): (1, 0) gives 1 + 8 - 3 = 6 twice and 1 + 8 - 4 = 5 twice; the
        // squares of ranks 2-3 around e2 now hold one man instead of two, (1, 0) at y = 2:
        // 1 + 8 - 2 = 7, twice. 6 + 6 + 5 + 5 + 7 + 7 = 36.
        let boards = positions(crate::board::START_FEN, "e4");
        assert_eq!(mixedness(&boards[1]), 36);
    }

    #[test]
    fn a_game_divides_where_lichess_divides_it() {
        // The Opera Game. After 9.Bg5 (ply 17) White's first rank holds the king and the two
        // rooks, three men: the middlegame begins (the mixedness is 143 there, short of 150).
        // After 16...Nxb8 (ply 32) six pieces are left: the endgame.
        let boards = positions(
            crate::board::START_FEN,
            "e4 e5 Nf3 d6 d4 Bg4 dxe5 Bxf3 Qxf3 dxe5 Bc4 Nf6 Qb3 Qe7 Nc3 c6 Bg5 b5 Nxb5 cxb5 Bxb5+ Nbd7 O-O-O Rd8 \
             Rxd7 Rxd7 Rd1 Qe6 Bxd7+ Nxd7 Qb8+ Nxb8 Rd8#",
        );
        let division = Division::of(&boards);
        assert_eq!(division, Division { middlegame: Some(17), endgame: Some(32) });
        assert_eq!((mixedness(&boards[16]), mixedness(&boards[17]), developed(&boards[17])), (120, 143, true));
        assert_eq!(pieces(&boards[31]), 7);
        let phases: Vec<Phase> = [0, 16, 17, 31, 32].iter().map(|&ply| division.phase(ply)).collect();
        assert_eq!(phases, [Phase::Opening, Phase::Opening, Phase::Middlegame, Phase::Middlegame, Phase::Endgame]);
    }

    #[test]
    fn endings_and_set_up_positions() {
        // A rook ending: the middlegame would begin at the start, and so does the endgame,
        // which leaves no middlegame.
        let ending = positions("8/5k2/8/3r4/8/8/3R1K2/8 w - - 0 40", "Ke3 Ke6");
        assert_eq!(Division::of(&ending), Division { middlegame: None, endgame: Some(0) });
        assert_eq!(Division::of(&ending).phase(1), Phase::Endgame);
        // Pieces come off: the endgame begins at the first position with six or fewer.
        let trade = positions("r3k2r/8/8/3q4/2Q5/8/8/R2BK2R w KQkq - 0 30", "Qxd5 Rd8");
        let division = Division::of(&trade);
        assert_eq!(division.endgame, Some(1), "{division:?}");
        assert_eq!(division.middlegame, Some(0));
        assert_eq!(Division::default().phase(30), Phase::Opening);
    }
}
