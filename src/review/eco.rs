//! The opening a game played, by name and ECO code, as lichess names it: the table is lichess's
//! own (lichess-org/chess-openings, public domain), built into the binary in the compact form
//! `tools/eco-table.py` writes (`eco.txt`, beside this file). Games are matched by position,
//! not by move order, so a transposition finds its name, and the name is that of the deepest
//! named position among the game's first 40 plies while 20 or more pieces stand, lichess's rule
//! (`OpeningDb.search` in lichess-org/scalachess). The book, for a review, is every position on
//! a line of the table: a game leaves it after the last of its positions (in the same first
//! plies) that a line passes through.

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
    /// `Philidor Defense: Exchange Variation`: the family, a colon, then the variations.
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
    named: HashMap<u64, usize>,
    book: HashSet<u64>,
}

impl Openings {
    /// The table built into the binary (its tests check that every line of it reads).
    pub fn built_in() -> Openings {
        Openings::parse(TABLE).unwrap_or_else(|_| Openings::empty())
    }

    /// A table without openings, for games whose openings are not looked up.
    pub fn empty() -> Openings {
        Openings { openings: Vec::new(), named: HashMap::new(), book: HashSet::new() }
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
            table.named.insert(boards[moves].key(), table.openings.len());
            table.openings.push(Opening { eco: eco.clone(), name: name.clone() });
        }
        Ok(table)
    }

    /// The opening named for `board`'s position, if the table names it.
    pub fn named(&self, board: &Board) -> Option<&Opening> {
        self.named.get(&board.key()).map(|&index| &self.openings[index])
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
        let opening = opening_positions().filter_map(|(ply, board)| self.named(board).map(|o| (o.clone(), ply))).last();
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
        // a.tsv to e.tsv of lichess-org/chess-openings at 51b8862 hold 3,807 openings.
        assert_eq!(table.len(), 3807);
        assert_eq!(table.named.len(), 3807, "every opening's position is a different one");
        assert!(table.book.len() > table.len());
    }

    #[test]
    fn openings_are_named_as_lichess_names_them() {
        let table = Openings::built_in();
        let name = |sans: &str| table.classify(&positions(sans)).opening.map(|(o, ply)| (o.eco, o.name, ply));
        let named = |eco: &str, name: &str, ply| Some((eco.to_string(), name.to_string(), ply));
        assert_eq!(name("e4 e5 Nf3 d6"), named("C41", "Philidor Defense", 4));
        assert_eq!(
            name("e4 c5 Nf3 d6 d4 cxd4 Nxd4 Nf6 Nc3 a6"),
            named("B90", "Sicilian Defense: Najdorf Variation", 10)
        );
        // The Queen's Gambit Declined reached through the English: named by its position.
        assert_eq!(name("c4 e6 Nc3 d5 d4 Nf6"), name("d4 d5 c4 e6 Nc3 Nf6"), "a transposition finds the same name");
        // Moves after the table's last named position keep its name.
        assert_eq!(name("e4 e5 Nf3 d6 a3 a6 h3 h6").map(|(eco, _, _)| eco), Some("C41".to_string()));
        assert_eq!(name(""), None);
    }

    #[test]
    fn the_book_ends_at_the_first_position_no_line_passes_through() {
        let table = Openings::built_in();
        // 1.e4 e5 2.Nf3 d6 3.d4 is the Philidor's main line; 3...Qe7?! is not in the table.
        let boards = positions("e4 e5 Nf3 d6 d4 Qe7 Nc3");
        let classification = table.classify(&boards);
        assert_eq!(classification.book_plies, 5);
        // 1.c4 g6 2.Nc3 c5 is on no line, but 3.g3 Bg7 4.Bg2 Nc6 5.Nf3 d6 6.O-O reaches one:
        // the book goes on to there, and the opening is named there (lichess-org/chess-openings
        // names the position after 6.O-O, not the one after 2...c5).
        let english = table.classify(&positions("c4 g6 Nc3 c5 g3 Bg7 Bg2 Nc6 Nf3 d6 O-O e6 e3"));
        let name = "English Opening: Symmetrical Variation, Three Knights, Fianchetto Variation";
        assert_eq!(english.opening.map(|(o, ply)| (o.eco, o.name, ply)), Some(("A37".into(), name.into(), 11)));
        assert_eq!(english.book_plies, 11);
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
