//! Polyglot opening books: the engine plays its first moves from a book file (the `OwnBook`,
//! `BookFile` and `BookDepth` options, XBoard's `bk`) instead of searching, for variety and to
//! save time where theory already knows the answer.
//!
//! A book is a file of 16-byte entries sorted by position key: key (u64), move (u16), weight
//! (u16) and a learning field (u32) the engine ignores, all big-endian. The whole file is held
//! in memory as read and searched in place, so a book costs its file size and nothing more.
//!
//! An empty file is a valid book without positions: it is what a book of zero entries looks
//! like in this format, and the engine then simply searches every move.

mod key;

pub use key::polyglot_key;

use crate::board::{Board, Move, PieceKind, Square, flag};
use crate::movegen::legal_moves;
use rand::{Rng, RngExt};
use std::fmt;
use std::fs::File;
use std::io::{self, Read};
use std::path::{Path, PathBuf};

const ENTRY_BYTES: usize = 16;

/// Books beyond this are refused rather than read: the largest published books are a few
/// hundred megabytes, and a bigger file is almost certainly not a book.
const MAX_BOOK_BYTES: u64 = 1 << 30;

pub struct Book {
    /// The file's bytes, whole entries sorted by key.
    data: Vec<u8>,
}

/// Why a book could not be loaded.
#[derive(Debug)]
pub struct BookError {
    /// The file, when the book came from one.
    pub path: Option<PathBuf>,
    pub kind: BookErrorKind,
}

#[derive(Debug)]
pub enum BookErrorKind {
    Unreadable(io::Error),
    TooLarge {
        bytes: u64,
    },
    /// The size is not a whole number of entries: a truncated file or not a book at all.
    PartialEntry {
        bytes: u64,
    },
    /// Entry number `entry` (from 0) has a smaller key than the one before it.
    Unsorted {
        entry: usize,
    },
}

impl fmt::Display for BookError {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        if let Some(path) = &self.path {
            write!(f, "opening book {}: ", path.display())?;
        }
        match &self.kind {
            BookErrorKind::Unreadable(error) => write!(f, "cannot read it: {error}"),
            BookErrorKind::TooLarge { bytes } => {
                write!(f, "{bytes} bytes is more than the limit of {MAX_BOOK_BYTES} bytes (1 GiB) for a book")
            }
            BookErrorKind::PartialEntry { bytes } => write!(
                f,
                "{bytes} bytes is not a whole number of {ENTRY_BYTES}-byte Polyglot entries (the last {} bytes are extra)",
                bytes % ENTRY_BYTES as u64
            ),
            BookErrorKind::Unsorted { entry } => write!(
                f,
                "entry {entry} (at byte {}) has a smaller key than the entry before it; Polyglot books are sorted by key",
                entry * ENTRY_BYTES
            ),
        }
    }
}

impl std::error::Error for BookError {}

impl Book {
    /// Reads and checks the whole book file.
    pub fn open(path: impl AsRef<Path>) -> Result<Book, BookError> {
        let path = path.as_ref();
        let in_file = |kind| BookError { path: Some(path.to_path_buf()), kind };
        let data = read_bounded(path).map_err(in_file)?;
        Book::from_bytes(data).map_err(|error| in_file(error.kind))
    }

    /// A book from the bytes of a Polyglot file.
    pub fn from_bytes(data: Vec<u8>) -> Result<Book, BookError> {
        let fail = |kind| Err(BookError { path: None, kind });
        let bytes = data.len() as u64;
        if bytes > MAX_BOOK_BYTES {
            return fail(BookErrorKind::TooLarge { bytes });
        }
        if !data.len().is_multiple_of(ENTRY_BYTES) {
            return fail(BookErrorKind::PartialEntry { bytes });
        }
        let book = Book { data };
        // Binary search finds nothing reliably in an unsorted file, so refuse one outright.
        let keys = || book.raw_entries().iter().map(|e| Entry::from(e).key);
        if let Some(entry) = keys().zip(keys().skip(1)).position(|(before, after)| after < before) {
            return fail(BookErrorKind::Unsorted { entry: entry + 1 });
        }
        Ok(book)
    }

    /// The number of entries.
    pub fn len(&self) -> usize {
        self.data.len() / ENTRY_BYTES
    }

    #[cfg(test)]
    pub fn is_empty(&self) -> bool {
        self.data.is_empty()
    }

    /// The book's moves for the position with their weights, in the book's order. Entries whose
    /// move is not legal here (another position with the same key, or a broken book) are left
    /// out. Weight-0 entries are listed, since a book may keep a move it never wants played,
    /// but `pick` never chooses them.
    pub fn entries(&self, board: &Board) -> Vec<(Move, u16)> {
        let key = polyglot_key(board);
        let all = self.raw_entries();
        let first = all.partition_point(|e| Entry::from(e).key < key);
        let legal = legal_moves(board);
        all[first..]
            .iter()
            .map(Entry::from)
            .take_while(|e| e.key == key)
            .filter_map(|e| Some((decode_move(board, legal.as_slice(), e.mv)?, e.weight)))
            .collect()
    }

    /// A book move for the position, chosen at random with probability proportional to its
    /// weight, or `None` when the book has no move with a positive weight here.
    pub fn pick(&self, board: &Board, rng: &mut impl Rng) -> Option<Move> {
        let entries = self.entries(board);
        let total: u64 = entries.iter().map(|&(_, weight)| u64::from(weight)).sum();
        if total == 0 {
            return None;
        }
        let mut ticket = rng.random_range(0..total);
        for (mv, weight) in entries {
            if ticket < u64::from(weight) {
                return Some(mv);
            }
            ticket -= u64::from(weight);
        }
        None
    }

    fn raw_entries(&self) -> &[[u8; ENTRY_BYTES]] {
        self.data.as_chunks().0
    }
}

/// The fields of one entry the engine uses (it ignores the learning field).
struct Entry {
    key: u64,
    mv: u16,
    weight: u16,
}

impl From<&[u8; ENTRY_BYTES]> for Entry {
    fn from(bytes: &[u8; ENTRY_BYTES]) -> Entry {
        let [k0, k1, k2, k3, k4, k5, k6, k7, m0, m1, w0, w1, ..] = *bytes;
        Entry {
            key: u64::from_be_bytes([k0, k1, k2, k3, k4, k5, k6, k7]),
            mv: u16::from_be_bytes([m0, m1]),
            weight: u16::from_be_bytes([w0, w1]),
        }
    }
}

/// The file's bytes, refusing a file over the size limit before reading it (and one that grows
/// past it while being read).
fn read_bounded(path: &Path) -> Result<Vec<u8>, BookErrorKind> {
    let file = File::open(path).map_err(BookErrorKind::Unreadable)?;
    let bytes = file.metadata().map_err(BookErrorKind::Unreadable)?.len();
    if bytes > MAX_BOOK_BYTES {
        return Err(BookErrorKind::TooLarge { bytes });
    }
    let mut data = Vec::with_capacity(bytes as usize);
    file.take(MAX_BOOK_BYTES + 1).read_to_end(&mut data).map_err(BookErrorKind::Unreadable)?;
    Ok(data)
}

/// Our legal move for a Polyglot move, or `None` if it is not legal here. Polyglot packs the
/// destination in bits 0-5, the origin in bits 6-11 (each as rank * 8 + file, a1 = 0) and the
/// promotion in bits 12-14 (0 none, 1 knight .. 4 queen). Castling is written as the king
/// taking its own rook (e1h1, e1a1, e8h8, e8a8), which no other move can be, so it is matched
/// by side rather than by squares.
fn decode_move(board: &Board, legal: &[Move], raw: u16) -> Option<Move> {
    let to = Square::from_index64(usize::from(raw & 63));
    let from = Square::from_index64(usize::from(raw >> 6 & 63));
    let promoted = match raw >> 12 {
        0 => None,
        1 => Some(PieceKind::Knight),
        2 => Some(PieceKind::Bishop),
        3 => Some(PieceKind::Rook),
        4 => Some(PieceKind::Queen),
        _ => return None,
    };
    let us = board.side_to_move();
    let (mover, target) = (board.piece_at(from), board.piece_at(to));
    let castles = promoted.is_none()
        && mover.is_kind(PieceKind::King)
        && mover.is_color(us)
        && target.is_kind(PieceKind::Rook)
        && target.is_color(us);
    if castles {
        let side = if to.file() > from.file() { flag::KING_CASTLE } else { flag::QUEEN_CASTLE };
        return legal.iter().copied().find(|mv| mv.is_castle() && mv.flag() == side);
    }
    legal.iter().copied().find(|mv| !mv.is_castle() && mv.from() == from && mv.to() == to && mv.promoted() == promoted)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::board::START_FEN;
    use crate::movegen::parse_move;
    use rand::{SeedableRng, rngs::StdRng};

    const AFTER_E4: &str = "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq e3 0 1";
    const CASTLES: &str = "r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1";

    /// A move in Polyglot's encoding.
    fn encode(from: &str, to: &str, promotion: u16) -> u16 {
        let index = |name| Square::parse(name).unwrap().index64() as u16;
        promotion << 12 | index(from) << 6 | index(to)
    }

    /// A book file's bytes, its entries sorted by key as a book writer would.
    fn book_bytes(mut entries: Vec<(u64, u16, u16)>) -> Vec<u8> {
        entries.sort_by_key(|&(key, ..)| key);
        entries.iter().flat_map(|&(key, mv, weight)| entry_bytes(key, mv, weight)).collect()
    }

    fn entry_bytes(key: u64, mv: u16, weight: u16) -> Vec<u8> {
        let learn = 0xDEAD_BEEF_u32;
        [&key.to_be_bytes()[..], &mv.to_be_bytes(), &weight.to_be_bytes(), &learn.to_be_bytes()].concat()
    }

    fn key_of(fen: &str) -> u64 {
        polyglot_key(&Board::from_fen(fen).unwrap())
    }

    /// Moves for the start position (e4 the favourite, a weight-0 knight move, and two moves
    /// that are not legal there), two for the position after 1.e4, and entries for unrelated
    /// keys on both sides of them.
    fn opening_book() -> Book {
        let start = key_of(START_FEN);
        let after_e4 = key_of(AFTER_E4);
        Book::from_bytes(book_bytes(vec![
            (0, encode("a2", "a3", 0), 5),
            (start, encode("e2", "e4", 0), 300),
            (start, encode("d2", "d4", 0), 100),
            (start, encode("g1", "f3", 0), 0),
            (start, encode("e2", "e5", 0), 50),
            (start, encode("e2", "e4", 7), 50),
            (after_e4, encode("c7", "c5", 0), 30),
            (after_e4, encode("e7", "e5", 0), 20),
            (u64::MAX, encode("h2", "h3", 0), 5),
        ]))
        .unwrap()
    }

    fn moves(board: &Board, texts: &[(&str, u16)]) -> Vec<(Move, u16)> {
        texts.iter().map(|&(text, weight)| (parse_move(board, text).unwrap(), weight)).collect()
    }

    #[test]
    fn finds_the_moves_and_weights_of_a_position() {
        let book = opening_book();
        assert_eq!(book.len(), 9);
        let start = Board::start_position();
        // The illegal e2e5 and the entry with an undefined promotion code are left out.
        assert_eq!(book.entries(&start), moves(&start, &[("e2e4", 300), ("d2d4", 100), ("g1f3", 0)]));
        let mut board = Board::start_position();
        board.make_move(parse_move(&board, "e2e4").unwrap());
        assert_eq!(book.entries(&board), moves(&board, &[("c7c5", 30), ("e7e5", 20)]));
        board.make_move(parse_move(&board, "c7c5").unwrap());
        assert!(book.entries(&board).is_empty());
        assert_eq!(book.pick(&board, &mut StdRng::seed_from_u64(1)), None);
    }

    #[test]
    fn picks_moves_in_proportion_to_their_weights() {
        let book = opening_book();
        let board = Board::start_position();
        let (e4, d4) = (parse_move(&board, "e2e4").unwrap(), parse_move(&board, "d2d4").unwrap());
        let mut rng = StdRng::seed_from_u64(7);
        let draws = 8000;
        let mut e4_count = 0;
        for _ in 0..draws {
            match book.pick(&board, &mut rng) {
                Some(mv) if mv == e4 => e4_count += 1,
                Some(mv) => assert_eq!(mv, d4, "the weight-0 move or another was picked"),
                None => panic!("no move picked"),
            }
        }
        // Weights 300:100 make e4 three times in four; 8000 draws stray from 6000 by about 39
        // (one standard deviation), so this allows five of them.
        assert!((5800..=6200).contains(&e4_count), "e4 picked {e4_count} times of {draws}");
    }

    #[test]
    fn weight_zero_moves_are_never_picked() {
        let start = key_of(START_FEN);
        let book = Book::from_bytes(book_bytes(vec![(start, encode("g1", "f3", 0), 0)])).unwrap();
        let board = Board::start_position();
        assert_eq!(book.entries(&board).len(), 1);
        assert_eq!(book.pick(&board, &mut StdRng::seed_from_u64(3)), None);
    }

    #[test]
    fn king_takes_rook_entries_are_our_castling_moves() {
        let black = CASTLES.replace(" w ", " b ");
        let book = Book::from_bytes(book_bytes(vec![
            (key_of(CASTLES), encode("e1", "h1", 0), 2),
            (key_of(CASTLES), encode("e1", "a1", 0), 1),
            (key_of(&black), encode("e8", "h8", 0), 2),
            (key_of(&black), encode("e8", "a8", 0), 1),
        ]))
        .unwrap();
        for fen in [CASTLES, &black] {
            let board = Board::from_fen(fen).unwrap();
            let found = book.entries(&board);
            let flags: Vec<(u16, u16)> = found.iter().map(|&(mv, weight)| (mv.flag(), weight)).collect();
            assert_eq!(flags, [(flag::KING_CASTLE, 2), (flag::QUEEN_CASTLE, 1)], "{fen}");
            assert!(
                found.iter().all(|&(mv, _)| mv.is_castle() && mv.from() == board.king_square(board.side_to_move()))
            );
        }
    }

    #[test]
    fn castling_entries_without_the_right_are_skipped() {
        let fen = "r3k2r/8/8/8/8/8/8/R3K2R w Qkq - 0 1";
        let book = Book::from_bytes(book_bytes(vec![
            (key_of(fen), encode("e1", "h1", 0), 2),
            (key_of(fen), encode("e1", "a1", 0), 1),
        ]))
        .unwrap();
        let board = Board::from_fen(fen).unwrap();
        let found = book.entries(&board);
        assert_eq!(found.len(), 1);
        assert_eq!(found[0].0.flag(), flag::QUEEN_CASTLE);
    }

    #[test]
    fn promotions_decode_to_the_promoted_piece() {
        let fen = "3r3k/4P3/8/8/8/8/8/K7 w - - 0 1";
        let key = key_of(fen);
        let book = Book::from_bytes(book_bytes(vec![
            (key, encode("e7", "e8", 4), 3),
            (key, encode("e7", "d8", 1), 2),
            (key, encode("e7", "e8", 0), 1),
        ]))
        .unwrap();
        let board = Board::from_fen(fen).unwrap();
        // e7e8 without a promotion piece is no legal move.
        assert_eq!(book.entries(&board), moves(&board, &[("e7e8q", 3), ("e7d8n", 2)]));
    }

    #[test]
    fn an_empty_file_is_a_book_without_positions() {
        let book = Book::from_bytes(Vec::new()).unwrap();
        assert!(book.is_empty());
        assert!(book.entries(&Board::start_position()).is_empty());
    }

    #[test]
    fn malformed_books_are_refused_with_the_reason() {
        let mut bytes = book_bytes(vec![(1, encode("e2", "e4", 0), 1)]);
        bytes.push(0);
        let error = Book::from_bytes(bytes).err().unwrap();
        assert!(matches!(error.kind, BookErrorKind::PartialEntry { bytes: 17 }), "{error:?}");
        assert!(error.to_string().contains("17 bytes"), "{error}");

        let unsorted = [entry_bytes(1, 0, 1), entry_bytes(3, 0, 1), entry_bytes(2, 0, 1)].concat();
        let error = Book::from_bytes(unsorted).err().unwrap();
        assert!(matches!(error.kind, BookErrorKind::Unsorted { entry: 2 }), "{error:?}");
        assert!(error.to_string().contains("entry 2 (at byte 32)"), "{error}");

        // Equal keys next to each other are how a book lists several moves.
        assert!(Book::from_bytes([entry_bytes(1, 0, 1), entry_bytes(1, 0, 1)].concat()).is_ok());
    }

    /// A file in the temporary directory, removed when dropped.
    struct TempFile(PathBuf);

    impl TempFile {
        fn new(name: &str) -> TempFile {
            TempFile(std::env::temp_dir().join(format!("sentinel-book-test-{}-{name}", std::process::id())))
        }
    }

    impl Drop for TempFile {
        fn drop(&mut self) {
            let _ = std::fs::remove_file(&self.0);
        }
    }

    #[test]
    fn opens_a_book_file() {
        let file = TempFile::new("good.bin");
        let start = key_of(START_FEN);
        std::fs::write(&file.0, book_bytes(vec![(start, encode("d2", "d4", 0), 9)])).unwrap();
        let book = Book::open(&file.0).unwrap();
        let board = Board::start_position();
        assert_eq!(book.entries(&board), moves(&board, &[("d2d4", 9)]));
    }

    #[test]
    fn file_errors_name_the_file() {
        let missing = TempFile::new("missing.bin");
        let error = Book::open(&missing.0).err().unwrap();
        assert!(matches!(error.kind, BookErrorKind::Unreadable(_)), "{error:?}");
        assert!(error.to_string().contains(&missing.0.display().to_string()), "{error}");

        let odd = TempFile::new("odd.bin");
        std::fs::write(&odd.0, [0; 20]).unwrap();
        let error = Book::open(&odd.0).err().unwrap();
        assert!(matches!(error.kind, BookErrorKind::PartialEntry { bytes: 20 }), "{error:?}");
        assert!(error.to_string().contains(&odd.0.display().to_string()), "{error}");
    }

    #[test]
    fn a_huge_file_is_refused_before_it_is_read() {
        // A sparse file: its length is over the limit without the disk space behind it.
        let huge = TempFile::new("huge.bin");
        std::fs::File::create(&huge.0).unwrap().set_len(MAX_BOOK_BYTES + 16).unwrap();
        let error = Book::open(&huge.0).err().unwrap();
        assert!(matches!(error.kind, BookErrorKind::TooLarge { bytes } if bytes == MAX_BOOK_BYTES + 16), "{error:?}");
        assert!(error.to_string().contains("1 GiB"), "{error}");
    }
}
