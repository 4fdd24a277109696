//! The opening a game played, by name and ECO code: the table is pgn-extract's ECO
//! classification (its `eco.pgn`, GPL-3+), built into the binary in the compact form
//! `tools/eco-table.py` writes (`eco.txt`, beside this file), each name written as review sites
//! write one, the opening, a colon, then the variation. Games are matched by position, not by
//! move order, so a transposition finds its name; where two of the table's lines reach the same
//! position, the game's own move order picks between them, and failing that the first in the
//! table, as pgn-extract picks. The name is that of the deepest named position among the game's
//! first 40 plies while 20 or more pieces stand, lichess's rule (`OpeningDb.search` in
//! lichess-org/scalachess). The book, for a review, is every position on a line of the table: a
//! game leaves it after the last of its positions (in the same first plies) that a line passes
//! through.

use crate::board::{Board, START_FEN};
use crate::notation::san::parse_move_text;
use std::collections::{HashMap, HashSet};

/// The table as shipped.
const TABLE: &str = include_str!("eco.txt");

/// Lichess looks for a name only this deep into a game, and only while this many pieces stand:
/// past them, a position that happens to be in the table is not the game's opening.
const SEARCH_MAX_PLIES: usize = 40;
const SEARCH_MIN_PIECES: usize = 20;

/// A named opening.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Opening {
    /// `C41`.
    pub eco: String,
    /// `Philidor: Philidor counter-gambit`: the opening, a colon, then the variation.
    pub name: String,
}

/// Where a game stands against the table.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Classification {
    /// The game's opening and the ply (from 1) of the position it is named for.
    pub opening: Option<(Opening, usize)>,
    /// How many of the game's first moves are book moves: up to the last position of the game
    /// that a line of the table passes through (a move off the lines that transposes back to
    /// one counts too); the next move, if the game goes on, left the book.
    pub book_plies: usize,
}

/// The table: its named positions and every position on one of its lines, by Zobrist key.
pub struct Openings {
    openings: Vec<Opening>,
    /// Each opening's line: the position after each of its moves.
    lines: Vec<Vec<u64>>,
    /// The openings that name a position, in the table's order (a few positions have two).
    named: HashMap<u64, Vec<usize>>,
    book: HashSet<u64>,
}

impl Openings {
    /// The table built into the binary (its tests check that every line of it reads).
    pub fn built_in() -> Openings {
        Openings::parse(TABLE).unwrap_or_else(|_| Openings::empty())
    }

    /// A table without openings, for games whose openings are not looked up.
    pub fn empty() -> Openings {
        Openings { openings: Vec::new(), lines: Vec::new(), named: HashMap::new(), book: HashSet::new() }
    }

    /// How many openings the table names.
    #[cfg(test)]
    pub fn len(&self) -> usize {
        self.openings.len()
    }

    #[cfg(test)]
    pub fn is_empty(&self) -> bool {
        self.openings.is_empty()
    }

    /// Reads a table in `eco-table.py`'s form, or says which line cannot be read. Each line's
    /// moves are played on from the board its shared plies reached, kept on a stack.
    fn parse(text: &str) -> Result<Openings, String> {
        let mut table = Openings::empty();
        let (mut eco, mut name, mut moves) = (String::new(), String::new(), 0usize);
        let mut boards = vec![Board::start_position()];
        for (index, line) in text.lines().enumerate().filter(|(_, line)| !line.starts_with('#')) {
            let error = |what: &str| format!("line {}: {what}", index + 1);
            let fields: Vec<&str> = line.split('\t').collect();
            let [code, name_shared, name_rest, moves_shared, moves_rest] = fields[..] else {
                return Err(error("expected five fields separated by tabs"));
            };
            if !code.is_empty() {
                eco = code.to_string();
            }
            let name_shared: usize = name_shared.parse().map_err(|_| error("not a count of characters"))?;
            let moves_shared: usize = moves_shared.parse().map_err(|_| error("not a count of plies"))?;
            if name_shared > name.chars().count() || moves_shared > moves || eco.is_empty() {
                return Err(error("shares more than the line before has"));
            }
            name = name.chars().take(name_shared).chain(name_rest.chars()).collect();
            boards.truncate(moves_shared + 1);
            for san in moves_rest.split_whitespace() {
                let mut board = boards[boards.len() - 1].clone();
                let mv = parse_move_text(&board, san).map_err(|e| error(&e.to_string()))?;
                board.make_move(mv);
                table.book.insert(board.key());
                boards.push(board);
            }
            moves = boards.len() - 1;
            if moves == 0 {
                return Err(error("an opening without moves"));
            }
            table.named.entry(boards[moves].key()).or_default().push(table.openings.len());
            table.lines.push(boards[1..].iter().map(Board::key).collect());
            table.openings.push(Opening { eco: eco.clone(), name: name.clone() });
        }
        Ok(table)
    }

    /// The opening named for the last of `boards` (a game's positions after each move, the start
    /// left out), if the table names it: of two that name it, the one whose line is the game's
    /// own moves, or else the first.
    fn named(&self, boards: &[Board]) -> Option<&Opening> {
        let candidates = self.named.get(&boards.last()?.key())?;
        let moves_played = |&&index: &&usize| self.lines[index].iter().copied().eq(boards.iter().map(Board::key));
        let index = candidates.iter().find(moves_played).or(candidates.first())?;
        Some(&self.openings[*index])
    }

    /// Whether a line of the table passes through `board`'s position.
    pub fn in_book(&self, board: &Board) -> bool {
        self.book.contains(&board.key())
    }

    /// Where the game whose positions are `boards` (the start, then the position after each
    /// move) stands. Only games from the standard start position have an opening, as on
    /// lichess: a game set up from another position is not one of the table's lines.
    pub fn classify(&self, boards: &[Board]) -> Classification {
        let standard = boards.first().is_some_and(|start| start.to_fen() == START_FEN);
        if !standard {
            return Classification { opening: None, book_plies: 0 };
        }
        // The game's first positions, as far as lichess looks for its opening.
        let opening_positions = || {
            boards
                .iter()
                .take(SEARCH_MAX_PLIES + 1)
                .take_while(|board| board.piece_count() >= SEARCH_MIN_PIECES)
                .enumerate()
                .skip(1)
        };
        let opening =
            opening_positions().filter_map(|(ply, _)| self.named(&boards[1..=ply]).map(|o| (o.clone(), ply))).last();
        let book_plies = opening_positions().filter(|(_, board)| self.in_book(board)).map(|(ply, _)| ply).last();
        let book_plies = book_plies.unwrap_or(0);
        Classification { opening, book_plies }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::movegen::parse_move;
    use crate::notation::san::parse_san;

    /// The positions of a game given in SAN, from the start.
    fn positions(sans: &str) -> Vec<Board> {
        let mut boards = vec![Board::start_position()];
        for san in sans.split_whitespace() {
            let mut board = boards[boards.len() - 1].clone();
            board.make_move(parse_san(&board, san).unwrap());
            boards.push(board);
        }
        boards
    }

    #[test]
    fn the_whole_table_reads() {
        let table = Openings::parse(TABLE).unwrap();
        // pgn-extract 19.04's eco.pgn holds 2,014 openings; four positions are named twice
        // (the Urusov gambit by the Bishop's opening and by the Petrov, among them).
        assert_eq!(table.len(), 2014);
        assert_eq!(table.named.len(), 2010);
        assert_eq!(table.named.values().filter(|openings| openings.len() == 2).count(), 4);
        assert!(table.book.len() > table.len());
    }

    #[test]
    fn openings_are_named_as_the_table_names_them() {
        let table = Openings::built_in();
        let name = |sans: &str| table.classify(&positions(sans)).opening.map(|(o, ply)| (o.eco, o.name, ply));
        let named = |eco: &str, name: &str, ply| Some((eco.to_string(), name.to_string(), ply));
        assert_eq!(name("e4 e5 Nf3 d6"), named("C41", "Philidor's defence", 4));
        assert_eq!(name("e4 e5 Nf3 d6 d4 f5"), named("C41", "Philidor: Philidor counter-gambit", 6));
        assert_eq!(name("e4 c5 Nf3 d6 d4 cxd4 Nxd4 Nf6 Nc3 a6"), named("B90", "Sicilian: Najdorf", 10));
        // The Queen's Gambit Declined reached through the English: 2.Nc3 and 2...d5 leave the
        // table's lines, 3.d4 comes back to the position of 1.d4 d5 2.c4 e6 3.Nc3, and the game
        // is named by its position.
        let english = positions("c4 e6 Nc3 d5 d4 Nf6");
        assert!(!table.in_book(&english[3]) && !table.in_book(&english[4]) && table.in_book(&english[5]));
        assert_eq!(name("c4 e6 Nc3 d5 d4 Nf6"), named("D35", "QGD: 3...Nf6", 6), "a transposition finds the name");
        assert_eq!(name("d4 d5 c4 e6 Nc3 Nf6"), named("D35", "QGD: 3...Nf6", 6));
        // Moves after the table's last named position keep its name.
        assert_eq!(name("e4 e5 Nf3 d6 a3 a6 h3 h6"), named("C41", "Philidor's defence", 4));
        assert_eq!(name(""), None);
    }

    #[test]
    fn of_two_openings_of_one_position_the_games_own_moves_pick() {
        // 1.e4 e5 2.Bc4 Nf6 3.d4 exd4 4.Nf3 (C24) and 1.e4 e5 2.Nf3 Nf6 3.d4 exd4 4.Bc4 (C43) reach
        // one position; a third move order gets the first of the table, as pgn-extract 19.04's
        // own `-e` classifies these three games.
        let table = Openings::built_in();
        let name = |sans: &str| table.classify(&positions(sans)).opening.map(|(o, ply)| (o.eco, o.name, ply));
        let bishops = Some(("C24".to_string(), "Bishop's opening: Urusov gambit".to_string(), 7));
        let petrov = Some(("C43".to_string(), "Petrov: Urusov gambit".to_string(), 7));
        assert_eq!(name("e4 e5 Bc4 Nf6 d4 exd4 Nf3"), bishops);
        assert_eq!(name("e4 e5 Nf3 Nf6 d4 exd4 Bc4"), petrov);
        assert_eq!(name("e4 e5 d4 exd4 Nf3 Nf6 Bc4"), bishops);
    }

    #[test]
    fn the_book_ends_at_the_last_position_a_line_passes_through() {
        let table = Openings::built_in();
        // 1.e4 e5 2.Nf3 d6 3.d4 is the Philidor's main line; 3...Qe7?! is not in the table.
        let boards = positions("e4 e5 Nf3 d6 d4 Qe7 Nc3");
        let classification = table.classify(&boards);
        assert_eq!(classification.book_plies, 5);
        // The Opera Game (docs/review.md's example) leaves it with 3...Bg4, named for 3.d4.
        let opera = table.classify(&positions("e4 e5 Nf3 d6 d4 Bg4 dxe5 Bxf3 Qxf3 dxe5 Bc4 Nf6"));
        assert_eq!(
            opera.opening.map(|(o, ply)| (o.eco, o.name, ply)),
            Some(("C41".into(), "Philidor's defence".into(), 5))
        );
        assert_eq!(opera.book_plies, 5);
        // 1.c4 g6 2.Nc3 c5 3.g3 Bg7 4.Bg2 is on no line, but 4...Nc6 reaches the position of
        // 1.c4 c5 2.Nc3 Nc6 3.g3 g6 4.Bg2 Bg7, and 5.Nf3 one the table names: the book goes on to
        // there, and the opening is named there (not for 1.c4 g6, the English opening at ply 2).
        let boards = positions("c4 g6 Nc3 c5 g3 Bg7 Bg2 Nc6 Nf3 d6 O-O e6 e3");
        assert!((3..=7).all(|ply| !table.in_book(&boards[ply])) && table.in_book(&boards[8]));
        let english = table.classify(&boards);
        let name = "English: symmetrical variation";
        assert_eq!(english.opening.map(|(o, ply)| (o.eco, o.name, ply)), Some(("A37".into(), name.into(), 9)));
        assert_eq!(english.book_plies, 9);
        // A game set up from a position has no opening, even the start position after 1.e4.
        let mut after_e4 = Board::start_position();
        after_e4.make_move(parse_move(&after_e4, "e2e4").unwrap());
        let set_up = Board::from_fen(&after_e4.to_fen()).unwrap();
        assert_eq!(table.classify(&[set_up]), Classification { opening: None, book_plies: 0 });
    }

    #[test]
    fn broken_tables_say_which_line() {
        assert_eq!(Openings::parse("A00\t0\tX\t0\tNh4").err().unwrap(), "line 1: illegal move 'Nh4'");
        assert_eq!(Openings::parse("A00\t0\tX\t0").err().unwrap(), "line 1: expected five fields separated by tabs");
        assert_eq!(Openings::parse("\t0\tX\t0\te4").err().unwrap(), "line 1: shares more than the line before has");
        assert_eq!(Openings::parse("A00\t0\tX\t0\t").err().unwrap(), "line 1: an opening without moves");
        assert!(Openings::parse("# only a comment\n").unwrap().is_empty());
    }
}
