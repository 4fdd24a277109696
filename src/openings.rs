//! Opening positions made by Sentinel itself: random legal plies from the start position (or
//! from a line of a book), each kept only when a verification search scores it within a window
//! (balanced sets) or a band away from zero (unbalanced sets, where one side stands better) and
//! it is new. Matches (`tools/sprt.sh`), the level calibration and self-play (`datagen`) start
//! from a balanced set, shipped as `tools/openings.epd` and made by `sentinel openings`;
//! OpenBench asks for the same through UCI's `genfens` when it builds its books.
//!
//! Candidate `i` depends only on the seed and `i` (its random plies, and a search from a
//! cleared state with a node limit), and candidates are accepted in the order of `i`, so a seed
//! gives the same positions with any number of threads.

use crate::board::{Board, Move};
use crate::eval::Evaluation;
use crate::movegen::legal_moves;
use crate::search::{Limits, Report, Score, Searcher};
use rand::{RngExt, SeedableRng, rngs::StdRng};
use std::collections::HashSet;
use std::path::Path;
use std::sync::mpsc;

/// What makes a position: how many random plies, and the verification search's nodes and
/// the scores it may find.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Settings {
    /// Random plies played from the start position or from the book's line.
    pub plies: u32,
    /// The verification search starts no iteration after this many nodes.
    pub nodes: u64,
    /// The largest score (centipawns, either side) a kept position may have.
    pub window: i32,
    /// The smallest: above zero, the set is unbalanced, one side better in each position by
    /// `floor` to `window`. Engines that draw most balanced openings against each other play
    /// fewer draws from these, which may tell two of them apart in fewer games (why Stockfish's
    /// and OpenBench's tests use "unbalanced human openings"; at 20,000 nodes it did not, see
    /// docs/log/testing.md).
    pub floor: i32,
}

impl Settings {
    /// From the start position: eight plies (four moves each) reach positions that openings
    /// books do not list, and 60 cp at 20,000 nodes keeps those that neither side has won.
    pub const FROM_START: Settings = Settings { plies: 8, nodes: 20_000, window: 60, floor: 0 };
    /// From a book's line: a book holds openings already, and two plies make them new ones
    /// without wandering far from what the book's author chose.
    pub const FROM_BOOK: Settings = Settings { plies: 2, ..Settings::FROM_START };
}

/// The verification search's hard limit, as a multiple of `Settings::nodes`: the iteration under
/// way may finish, but no search runs away.
const HARD_NODES_FACTOR: u64 = 4;
/// Hash table for the verification searches, cleared before each.
const HASH_MB: usize = 8;
/// Candidates tried in a row without finding a new balanced position before giving up: a
/// window or book that yields none must end with an error, not a hang.
pub const MAX_TRIES: u64 = 10_000;
/// The largest book read: far beyond any published one (OpenBench's largest are tens of MB).
pub const MAX_BOOK_BYTES: u64 = 1 << 30;

/// The random number generator of candidate `index` of a run with `seed` (and of game `index`
/// in `datagen`).
pub fn rng_for(seed: u64, index: u64) -> StdRng {
    StdRng::seed_from_u64(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) ^ index)
}

/// `board` followed by up to `plies` random legal plies, stopping early where there is no legal
/// move; returns the position, with its history starting there (so repetitions count from it
/// on), and the plies played.
pub fn random_plies(board: &Board, plies: u32, rng: &mut StdRng) -> (Board, u32) {
    let mut board = board.clone();
    let mut played = 0;
    while played < plies {
        let moves = legal_moves(&board);
        if moves.is_empty() {
            break;
        }
        board.make_move(moves.as_slice()[rng.random_range(0..moves.len())]);
        played += 1;
    }
    (Board::from_fen(&board.to_fen()).expect("a position we wrote is valid"), played)
}

/// The search's choice and its score (side to move's view, on the search's scale): no iteration starts after `soft`
/// nodes, none goes on past `hard`.
pub fn search_nodes(searcher: &mut Searcher, board: &Board, soft: u64, hard: u64) -> (Option<Move>, Option<Score>) {
    let (sender, receiver) = mpsc::channel();
    let limits = Limits { nodes: Some(hard), soft_nodes: Some(soft), ..Limits::default() };
    searcher.search(board.clone(), limits, Box::new(move |report| sender.send(report).unwrap_or(())));
    let (mut best, mut score) = (None, None);
    for report in receiver.try_iter() {
        match report {
            Report::Info(info) => score = Some(info.search_score),
            Report::CurrMove { .. } => {}
            Report::BestMove { best: mv, .. } => best = mv,
        }
    }
    (best, score)
}

/// Reads a book: one position a line, as a FEN or as an EPD (its first four fields, then any
/// operations, which are ignored); blank lines and `#` comments are skipped.
pub fn read_book(path: &Path) -> Result<Vec<Board>, String> {
    use std::io::Read;
    let name = path.display();
    let cannot = |e: &dyn std::fmt::Display| format!("cannot read {name}: {e}");
    let mut bytes = Vec::new();
    let file = std::fs::File::open(path).map_err(|e| cannot(&e))?;
    file.take(MAX_BOOK_BYTES + 1).read_to_end(&mut bytes).map_err(|e| cannot(&e))?;
    if bytes.len() as u64 > MAX_BOOK_BYTES {
        return Err(cannot(&format!("larger than {} MiB", MAX_BOOK_BYTES >> 20)));
    }
    let text = String::from_utf8(bytes).map_err(|e| cannot(&e))?;
    let mut book = Vec::new();
    for (number, line) in text.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let board = Board::from_fen(&position_fields(line)).map_err(|e| format!("{name}:{}: {e}", number + 1))?;
        book.push(board);
    }
    if book.is_empty() {
        return Err(format!("{name}: no positions"));
    }
    Ok(book)
}

/// The FEN part of a book line: its first four fields, and the two counters when they follow
/// (a FEN); an EPD's operations (`bm e4; id "x";`, `hmvc 0; fmvn 3;`) are left out.
fn position_fields(line: &str) -> String {
    let fields: Vec<&str> = line.split_whitespace().collect();
    let counters = fields.len() == 6 && fields[4..].iter().all(|f| f.parse::<u16>().is_ok());
    fields[..if counters { 6 } else { fields.len().min(4) }].join(" ")
}

/// Makes positions one after another, in the order of their candidates.
pub struct Generator {
    /// Where the random plies start: the book's lines, or the start position alone.
    starts: Vec<Board>,
    settings: Settings,
    seed: u64,
    evaluation: Evaluation,
    /// The next candidate to try.
    next: u64,
    /// Candidates tried since the last position kept.
    failures: u64,
    /// The kept positions, by their first four FEN fields (counters aside, a position is the same).
    seen: HashSet<String>,
}

impl Generator {
    /// A generator from `book` (none: the start position) with these settings and seed,
    /// verifying with `evaluation`. Settings whose band no score fits are refused here, at
    /// once, rather than after `MAX_TRIES` fruitless searches.
    pub fn new(
        book: Option<Vec<Board>>,
        settings: Settings,
        seed: u64,
        evaluation: Evaluation,
    ) -> Result<Generator, String> {
        if settings.floor > settings.window {
            return Err(format!(
                "the floor ({} cp) is above the window ({} cp): no position fits",
                settings.floor, settings.window
            ));
        }
        let starts = book.filter(|b| !b.is_empty()).unwrap_or_else(|| vec![Board::start_position()]);
        Ok(Generator { starts, settings, seed, evaluation, next: 0, failures: 0, seen: HashSet::new() })
    }

    /// Candidate `index`: its position when that is playable, scored within the settings' band
    /// and not kept already (the search is spared for a repeat), from a cleared search.
    fn candidate(&self, searcher: &mut Searcher, index: u64) -> Option<Board> {
        let mut rng = rng_for(self.seed, index);
        let start = &self.starts[rng.random_range(0..self.starts.len())];
        let (board, played) = random_plies(start, self.settings.plies, &mut rng);
        if played < self.settings.plies || board.game_end().is_some() || self.seen.contains(&key(&board)) {
            return None;
        }
        searcher.clear();
        let soft = self.settings.nodes;
        match search_nodes(searcher, &board, soft, soft.saturating_mul(HARD_NODES_FACTOR)) {
            (Some(_), Some(Score::Centipawns(cp)))
                if (self.settings.floor..=self.settings.window).contains(&cp.abs()) =>
            {
                Some(board)
            }
            _ => None,
        }
    }

    /// Makes `count` positions on `threads` threads, handing each to `emit` as soon as it is
    /// known (in candidate order); stops early when `emit` fails, and with an error after
    /// `MAX_TRIES` candidates in a row yield nothing new.
    pub fn generate<E>(
        &mut self,
        count: u64,
        threads: usize,
        mut emit: impl FnMut(&Board) -> Result<(), E>,
    ) -> Result<(), GenError<E>> {
        let threads = threads.max(1);
        let mut searchers: Vec<Searcher> = (0..threads)
            .map(|_| {
                let mut searcher = Searcher::new(HASH_MB);
                searcher.set_evaluation(self.evaluation.clone());
                searcher
            })
            .collect();
        // One candidate at a time on one thread (so that each position goes out as soon as it is
        // found); a batch of several per thread otherwise.
        let batch = if threads == 1 { 1 } else { threads as u64 * 8 };
        let mut made = 0;
        while made < count {
            let first = self.next;
            let results: Vec<Option<Board>> = if threads == 1 {
                vec![self.candidate(&mut searchers[0], first)]
            } else {
                self.batch(&mut searchers, first, batch)
            };
            for board in results {
                self.next += 1;
                let new = board.filter(|board| self.seen.insert(key(board)));
                match new {
                    Some(board) => {
                        self.failures = 0;
                        emit(&board).map_err(GenError::Emit)?;
                        made += 1;
                        if made == count {
                            return Ok(());
                        }
                    }
                    None => {
                        self.failures += 1;
                        if self.failures >= MAX_TRIES {
                            return Err(GenError::Exhausted { made });
                        }
                    }
                }
            }
        }
        Ok(())
    }
}

impl Generator {
    /// Candidates `first..first + count`, in order, spread over one thread per searcher.
    fn batch(&self, searchers: &mut [Searcher], first: u64, count: u64) -> Vec<Option<Board>> {
        let threads = searchers.len();
        std::thread::scope(|scope| {
            let workers: Vec<_> = searchers
                .iter_mut()
                .enumerate()
                .map(|(worker, searcher)| {
                    scope.spawn(move || {
                        (first + worker as u64..first + count)
                            .step_by(threads)
                            .map(|index| (index, self.candidate(searcher, index)))
                            .collect::<Vec<_>>()
                    })
                })
                .collect();
            let mut found: Vec<(u64, Option<Board>)> =
                workers.into_iter().flat_map(|w| w.join().expect("a candidate search does not panic")).collect();
            found.sort_unstable_by_key(|(index, _)| *index);
            found.into_iter().map(|(_, board)| board).collect()
        })
    }
}

/// Why `generate` stopped short.
#[derive(Debug, PartialEq)]
pub enum GenError<E> {
    /// `MAX_TRIES` candidates in a row gave no new position in the window, after `made`
    /// positions.
    Exhausted { made: u64 },
    /// The caller's `emit` failed.
    Emit(E),
}

impl<E: std::fmt::Display> std::fmt::Display for GenError<E> {
    fn fmt(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        match self {
            GenError::Exhausted { made } => write!(
                f,
                "no new position in the window in {MAX_TRIES} tries after {made}: widen it, or use more plies or a larger book"
            ),
            GenError::Emit(e) => write!(f, "{e}"),
        }
    }
}

/// A position's identity for uniqueness: its FEN without the move counters.
fn key(board: &Board) -> String {
    board.to_fen().split_whitespace().take(4).collect::<Vec<_>>().join(" ")
}

/// Parses OpenBench's `genfens N seed S book <None|FILE> [extra]` (the words after `genfens`):
/// the count, the seed, the book's path, and the settings, changed by any of `plies P`, `nodes
/// N`, `window CP`, `floor CP` given as the extra.
pub fn parse_genfens(args: &str) -> Result<(u64, u64, Option<String>, Settings), String> {
    let usage = "expected 'genfens N seed S book <None|FILE> [plies P] [nodes N] [window CP] [floor CP]'";
    let words: Vec<&str> = args.split_whitespace().collect();
    let [count, "seed", seed, "book", book, extra @ ..] = words.as_slice() else {
        return Err(format!("{usage}, got 'genfens {}'", crate::quote::excerpt(args, crate::quote::QUOTE_LIMIT)));
    };
    let number = |name: &str, text: &str| {
        text.parse::<u64>().map_err(|_| {
            format!(
                "genfens: {name} must be a whole number, got '{}'",
                crate::quote::excerpt(text, crate::quote::QUOTE_LIMIT)
            )
        })
    };
    let (count, seed) = (number("N", count)?, number("the seed", seed)?);
    let book = (!book.eq_ignore_ascii_case("none")).then(|| book.to_string());
    let mut settings = if book.is_some() { Settings::FROM_BOOK } else { Settings::FROM_START };
    for pair in extra.chunks(2) {
        let [name, value] = pair else {
            return Err(format!("{usage}: '{}' has no value", pair[0]));
        };
        let value = number(name, value)?;
        match *name {
            "plies" => settings.plies = value.min(u32::MAX as u64) as u32,
            "nodes" if value > 0 => settings.nodes = value,
            "window" => settings.window = value.min(i32::MAX as u64) as i32,
            "floor" => settings.floor = value.min(i32::MAX as u64) as i32,
            _ => return Err(format!("{usage}: unknown setting '{name} {value}'")),
        }
    }
    Ok((count, seed, book, settings))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn make(book: Option<Vec<Board>>, settings: Settings, seed: u64, count: u64, threads: usize) -> Vec<String> {
        let mut generator = Generator::new(book, settings, seed, Evaluation::embedded()).unwrap();
        let mut fens = Vec::new();
        let emit = |board: &Board| {
            fens.push(board.to_fen());
            Ok::<(), ()>(())
        };
        generator.generate(count, threads, emit).unwrap();
        fens
    }

    const QUICK: Settings = Settings { plies: 6, nodes: 2000, window: 80, floor: 0 };

    #[test]
    fn positions_are_new_balanced_and_the_same_for_a_seed_on_any_number_of_threads() {
        let one = make(None, QUICK, 7, 12, 1);
        assert_eq!(one.len(), 12);
        assert_eq!(one, make(None, QUICK, 7, 12, 3));
        assert_ne!(one, make(None, QUICK, 8, 12, 1));
        let keys: HashSet<String> = one.iter().map(|fen| key(&Board::from_fen(fen).unwrap())).collect();
        assert_eq!(keys.len(), one.len());
        let mut searcher = Searcher::new(HASH_MB);
        for fen in &one {
            let board = Board::from_fen(fen).unwrap();
            // Six plies from the start position: move 4, White to move.
            assert_eq!((board.side_to_move(), board.fullmove_number()), (crate::board::Color::White, 4), "{fen}");
            searcher.clear();
            let (best, score) = search_nodes(&mut searcher, &board, QUICK.nodes, QUICK.nodes * HARD_NODES_FACTOR);
            assert!(best.is_some(), "{fen}");
            assert!(matches!(score, Some(Score::Centipawns(cp)) if cp.abs() <= QUICK.window), "{fen}: {score:?}");
        }
    }

    /// With a floor, every position is won by one side or the other by floor to window.
    #[test]
    fn an_unbalanced_set_keeps_the_band_only() {
        let settings = Settings { floor: 60, window: 200, ..QUICK };
        let fens = make(None, settings, 3, 6, 2);
        assert_eq!(fens.len(), 6);
        let mut searcher = Searcher::new(HASH_MB);
        for fen in &fens {
            searcher.clear();
            let board = Board::from_fen(fen).unwrap();
            let (_, score) = search_nodes(&mut searcher, &board, QUICK.nodes, QUICK.nodes * HARD_NODES_FACTOR);
            let band = settings.floor..=settings.window;
            assert!(matches!(score, Some(Score::Centipawns(cp)) if band.contains(&cp.abs())), "{fen}: {score:?}");
        }
    }

    #[test]
    fn a_book_line_is_the_start_of_every_position() {
        let line = "r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - 2 3";
        let book = vec![Board::from_fen(line).unwrap()];
        let settings = Settings { plies: 1, ..QUICK };
        let fens = make(Some(book), settings, 1, 3, 1);
        assert_eq!(fens.len(), 3);
        for fen in fens {
            // One white move from the book's position: Black to move, the king still at home.
            assert!(fen.contains(" b "), "{fen}");
            assert!(fen.starts_with("r1bqkbnr/pppp1ppp/2n5/4p3/"), "{fen}");
        }
    }

    #[test]
    fn a_window_nothing_fits_ends_with_an_error() {
        // A single book position and no random plies: one candidate position, then only repeats.
        let book = vec![Board::start_position()];
        let settings = Settings { plies: 0, nodes: 200, window: 1000, floor: 0 };
        let mut generator = Generator::new(Some(book), settings, 1, Evaluation::HandCrafted).unwrap();
        let mut made = 0;
        let result = generator.generate(2, 1, |_| {
            made += 1;
            Ok::<(), ()>(())
        });
        assert_eq!(result, Err(GenError::Exhausted { made: 1 }));
        assert_eq!(made, 1);
    }

    #[test]
    fn book_lines_may_be_fens_or_epds() {
        assert_eq!(position_fields("8/8/8/8/8/8/8/K1k5 w - - 3 40"), "8/8/8/8/8/8/8/K1k5 w - - 3 40");
        assert_eq!(position_fields("8/8/8/8/8/8/8/K1k5 w - - hmvc 0; fmvn 3;"), "8/8/8/8/8/8/8/K1k5 w - -");
        assert_eq!(position_fields("8/8/8/8/8/8/8/K1k5 b - - bm Kb2; id \"x\";"), "8/8/8/8/8/8/8/K1k5 b - -");
    }

    #[test]
    fn genfens_arguments() {
        assert_eq!(parse_genfens("10 seed 5 book None"), Ok((10, 5, None, Settings::FROM_START)));
        let (count, seed, book, settings) = parse_genfens("3 seed 9 book Books/x.epd plies 4 window 30").unwrap();
        assert_eq!((count, seed, book.as_deref()), (3, 9, Some("Books/x.epd")));
        assert_eq!(settings, Settings { plies: 4, window: 30, ..Settings::FROM_BOOK });
        let (_, _, _, settings) = parse_genfens("3 seed 9 book None window 150 floor 90").unwrap();
        assert_eq!(settings, Settings { window: 150, floor: 90, ..Settings::FROM_START });
        for bad in [
            "",
            "10",
            "10 seed x book None",
            "10 seed 1 book",
            "10 seed 1 book None plies",
            "1 seed 1 book None depth 3",
        ] {
            assert!(parse_genfens(bad).is_err(), "{bad}");
        }
        let refused = Generator::new(None, Settings { floor: 61, ..Settings::FROM_START }, 1, Evaluation::HandCrafted);
        assert_eq!(refused.err().as_deref(), Some("the floor (61 cp) is above the window (60 cp): no position fits"));
    }
}
