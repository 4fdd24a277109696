//! The engine the protocols drive, and their only door to the rest of Sentinel (beside
//! `quote`, which shortens what their error messages repeat): the game (a `Board` whose move
//! history lets the search see repetitions), the `Searcher`, the options (one table,
//! `options`) and the opening book. UCI and XBoard both translate their text into
//! `EngineCommand`s and moves into `Move`s through the engine, and the search's reports come
//! back tagged with the `SearchId` of the search that made them, so a protocol can tell a
//! current search from one it abandoned.

pub mod book;
mod inspect;
pub mod options;
#[cfg(feature = "serve")]
pub mod setup;

pub use crate::board::{Color, Move, START_POS};
pub use crate::rules::{EndReason, GameEnd, GameResult};
pub use crate::search::strength::{MAX_ELO, MAX_SKILL_LEVEL, MIN_ELO, Strength};
pub use crate::search::{Bound, Clock, Info, Limits, Report, Score};
#[cfg(feature = "serve")]
pub use setup::{Setup, SetupError};

use crate::board::{Board, FenError, START_FEN};
use crate::eval::Evaluation;
use crate::eval::nnue::{self, Network};
use crate::movegen::{legal_moves, parse_move};
#[cfg(feature = "spsa")]
use crate::search::TUNABLES;
#[cfg(feature = "spsa")]
pub use crate::search::Tunable;
use crate::search::tablebase::Tablebases;
use crate::search::{ProbeSettings, Searcher};
use book::Book;
use options::{OPTIONS, OptionId, Settings, Spec};
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use std::fmt;
use std::sync::Arc;

/// Names one search, so that its reports can be told from those of earlier searches.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct SearchId(u64);

/// Where the search's reports go (called on the search thread).
pub type ReportSink = Arc<dyn Fn(SearchId, Report) + Send + Sync>;

/// Everything a protocol can ask of the engine.
#[derive(Clone, Debug)]
pub enum EngineCommand {
    /// Start position, empty history, and forget what the search learned.
    NewGame,
    /// Set up `fen` (the start position when `None`) and play `moves` (coordinate notation)
    /// from it. Nothing changes if the FEN or any move is bad.
    SetPosition { fen: Option<String>, moves: Vec<String> },
    /// Play one legal move (see `Engine::parse_move`).
    PlayMove(Move),
    /// Take back this many moves.
    TakeBack(usize),
    /// Mirror the position: colours swapped, ranks flipped (Stockfish's `flip`). The game's
    /// history goes, as with a new position.
    Flip,
    /// Search the current position. The search's board carries the game's history.
    Go(Limits),
    /// Ask the running search to report its best move now.
    Stop,
    /// The pondered move was played: the search now runs under its clock.
    PonderHit,
    /// Set an option of the table (`options::OPTIONS`) to a value given as text (checked
    /// against the option's kind and range); buttons take no value.
    SetOption { option: OptionId, value: Option<String> },
    /// Set one of the search's tunable constants (`search::TUNABLES`, at this index): the
    /// extra options of an `spsa` build, for a tuner.
    #[cfg(feature = "spsa")]
    SetTunable { index: usize, value: Option<String> },
    /// Stop searching and wait for the search thread: the engine is about to end.
    Quit,
}

impl EngineCommand {
    /// The command that sets the option a GUI names (in any case): one of the table, or in an
    /// `spsa` build one of the search's tunable constants.
    pub fn set_option(name: &str, value: Option<String>) -> Result<EngineCommand, EngineError> {
        #[cfg(feature = "spsa")]
        if let Some(index) = TUNABLES.iter().position(|t| t.name.eq_ignore_ascii_case(name.trim())) {
            return Ok(EngineCommand::SetTunable { index, value });
        }
        Ok(EngineCommand::SetOption { option: OptionId::named(name)?, value })
    }
}

/// A move from the opening book, with the reply the book holds to it (the most weighted), for
/// the GUI to ponder on.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct BookMove {
    pub mv: Move,
    pub ponder: Option<Move>,
    /// The move's share of the weights of the book's moves here, from 0 to 1.
    pub share: f64,
}

/// What a command did.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Outcome {
    Done,
    /// Done, with something to tell the user (what an option loaded, say).
    Notice(String),
    /// A search started; its reports carry this id.
    Searching(SearchId),
    Quit,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum EngineError {
    Fen(FenError),
    /// A move that does not parse or is not legal in the position it was meant for.
    IllegalMove(String),
    /// A move played in a position it does not belong to.
    NotLegalHere(Move),
    NothingToTakeBack {
        asked: usize,
        played: usize,
    },
    UnknownOption(String),
    BadOptionValue {
        option: &'static str,
        value: String,
        expected: String,
    },
    /// A network file that cannot be used; the evaluation stays as it was.
    Network {
        path: String,
        reason: String,
    },
    /// A book file that cannot be used; play goes on without it.
    Book(String),
    /// Tablebase folders in which no table could be opened; the old tables stay.
    Tablebases(String),
    /// The table could not have the size asked for; it kept the size it had.
    HashTooLarge {
        asked: usize,
        got: usize,
    },
}

impl fmt::Display for EngineError {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        match self {
            EngineError::Fen(e) => write!(f, "{e}"),
            EngineError::IllegalMove(text) => write!(f, "illegal move: {text}"),
            EngineError::NotLegalHere(mv) => write!(f, "illegal move: {mv}"),
            EngineError::NothingToTakeBack { asked, played } => {
                write!(f, "cannot take back {asked} move(s): only {played} played since the position was set")
            }
            EngineError::UnknownOption(name) => write!(f, "unknown option: {name}"),
            EngineError::BadOptionValue { option, value, expected } => {
                write!(f, "{option} must be {expected}, got '{value}'")
            }
            EngineError::Network { path, reason } => {
                write!(f, "cannot use the network {path}: {reason}; the evaluation is unchanged")
            }
            EngineError::Tablebases(reason) => write!(f, "{reason}; the tablebases are unchanged"),
            EngineError::Book(reason) => write!(f, "{reason}; playing without a book"),
            EngineError::HashTooLarge { asked, got } => {
                write!(f, "cannot allocate a {asked} MB hash table; keeping {got} MB")
            }
        }
    }
}

impl std::error::Error for EngineError {}

pub struct Engine {
    board: Board,
    searcher: Searcher,
    settings: Settings,
    /// The opening book of `BookFile`, played from when `OwnBook` is on.
    book: Option<Book>,
    /// The network of `EvalFile` (the built-in one by default), kept also while `Use NNUE` is
    /// off, for `eval` to compare.
    network: Network,
    /// The tables of `SyzygyPath`, which judge draw offers too.
    tablebases: Option<Arc<Tablebases>>,
    /// Chooses among book moves by their weights.
    rng: StdRng,
    sink: ReportSink,
    next_search: u64,
}

impl Engine {
    pub fn new(sink: ReportSink) -> Engine {
        let settings = Settings::default();
        // The searcher starts from its own defaults, which bench and self-play use; the
        // engine's are the option table's, so it is given every one it keeps.
        let mut searcher = Searcher::new(settings.hash_mb);
        searcher.set_threads(settings.threads);
        searcher.set_move_overhead(settings.move_overhead);
        searcher.set_probe_settings(settings.probe);
        let mut engine = Engine {
            board: Board::start_position(),
            searcher,
            settings,
            book: None,
            network: nnue::embedded(),
            tablebases: None,
            rng: StdRng::seed_from_u64(std::process::id() as u64 ^ 0x5EB7_1E1C),
            sink,
            next_search: 0,
        };
        let (use_nnue, eval_file) = (engine.settings.use_nnue, engine.settings.eval_file.clone());
        if let Err(e) = engine.set_evaluation(use_nnue, eval_file) {
            log::error!("the default evaluation: {e}");
        }
        engine
    }

    /// The game's current position, with the moves played since it was set up.
    pub fn board(&self) -> &Board {
        &self.board
    }

    pub const BENCH_DEPTH: i32 = crate::bench::DEFAULT_DEPTH;
    /// The deepest search any depth limit asks for (`go depth`, `bench`).
    pub const MAX_DEPTH: i32 = crate::search::MAX_DEPTH;
    /// The deepest perft, on the command line and with `go perft` alike.
    pub const MAX_PERFT_DEPTH: u32 = crate::perft::MAX_DEPTH;

    /// The fixed-depth benchmark (`bench`) with this engine's evaluation, which prints its own
    /// lines.
    pub fn bench(&self, depth: i32) -> std::io::Result<()> {
        crate::bench::run(depth, self.evaluation())
    }

    /// What the engine evaluates with: the built-in network, `EvalFile`'s, or the hand-crafted
    /// evaluation.
    pub fn evaluation(&self) -> Evaluation {
        self.searcher.evaluation().clone()
    }

    /// The option table, for the protocols to list.
    pub fn options() -> &'static [Spec] {
        OPTIONS
    }

    /// The search's tunable constants, which an `spsa` build lists (in UCI) as spin options
    /// after the table.
    #[cfg(feature = "spsa")]
    pub fn tunables() -> &'static [Tunable] {
        TUNABLES
    }

    pub fn settings(&self) -> &Settings {
        &self.settings
    }

    /// Parses a move in coordinate notation (either castling form, see `movegen::parse_move`),
    /// or castling as `O-O` / `O-O-O` (XBoard's form in Chess960), returning it only if it is
    /// legal in the current position.
    pub fn parse_move(&self, text: &str) -> Option<Move> {
        let castling = matches!(text.trim(), "O-O" | "O-O-O" | "0-0" | "0-0-0");
        parse_move(&self.board, text)
            .or_else(|| castling.then(|| crate::notation::san::parse_san(&self.board, text).ok()).flatten())
    }

    /// A move of the current game (or of a line from it) in coordinate notation: castling as
    /// the king taking its rook when `UCI_Chess960` is on.
    pub fn move_text(&self, mv: Move) -> String {
        self.board.move_text(mv, self.settings.chess960)
    }

    /// A legal move of the current position in standard algebraic notation.
    pub fn san(&self, mv: Move) -> String {
        crate::notation::san::to_san(&self.board, mv)
    }

    /// Perft of the current position (`go perft`): the leaf count below each root move, by move
    /// text. Ends a running search first.
    pub fn divide(&mut self, depth: u32) -> Vec<(String, u64)> {
        self.finish_search();
        let mut board = self.board.clone();
        crate::perft::divide(&mut board, depth, self.settings.chess960)
    }

    pub fn legal_moves(&self) -> Vec<Move> {
        legal_moves(&self.board).iter().collect()
    }

    /// Whether the game has ended in the current position, and how.
    pub fn game_over(&self) -> Option<GameEnd> {
        self.board.game_end()
    }

    /// Carries out one command. Commands that change the game or the search's tables first end
    /// the running search: its `BestMove` still arrives, under its own (now old) id.
    pub fn execute(&mut self, command: EngineCommand) -> Result<Outcome, EngineError> {
        match command {
            EngineCommand::NewGame => {
                self.finish_search();
                self.board = Board::start_position();
                self.searcher.clear();
            }
            EngineCommand::SetPosition { fen, moves } => {
                let fen = fen.as_deref().unwrap_or(START_FEN);
                let mut board = Board::parse_fen(fen, self.settings.chess960).map_err(EngineError::Fen)?;
                for text in &moves {
                    let mv = parse_move(&board, text).ok_or_else(|| EngineError::IllegalMove(text.clone()))?;
                    board.make_move(mv);
                }
                self.finish_search();
                self.board = board;
            }
            EngineCommand::PlayMove(mv) => {
                if !legal_moves(&self.board).iter().any(|legal| legal == mv) {
                    return Err(EngineError::NotLegalHere(mv));
                }
                self.finish_search();
                self.board.make_move(mv);
            }
            EngineCommand::TakeBack(count) => {
                let played = self.board.moves_played();
                if count > played {
                    return Err(EngineError::NothingToTakeBack { asked: count, played });
                }
                self.finish_search();
                for _ in 0..count {
                    self.board.unmake_move();
                }
            }
            EngineCommand::Flip => {
                let fen = self.board.mirrored_fen();
                let board = Board::parse_fen(&fen, self.settings.chess960).map_err(EngineError::Fen)?;
                self.finish_search();
                self.board = board;
            }
            EngineCommand::Go(mut limits) => {
                self.finish_search();
                limits.multipv = self.settings.multipv;
                limits.strength = self.strength();
                self.next_search += 1;
                let id = SearchId(self.next_search);
                let sink = Arc::clone(&self.sink);
                self.searcher.start(self.board.clone(), limits, Box::new(move |report| sink(id, report)));
                return Ok(Outcome::Searching(id));
            }
            EngineCommand::Stop => self.searcher.stop(),
            EngineCommand::PonderHit => self.searcher.ponderhit(),
            EngineCommand::SetOption { option, value } => {
                let spec = option.spec();
                let value = spec.parse(value.as_deref())?;
                if let Some(notice) = spec.apply(self, value)? {
                    return Ok(Outcome::Notice(notice));
                }
            }
            #[cfg(feature = "spsa")]
            EngineCommand::SetTunable { index, value } => {
                let tunable = TUNABLES.get(index).ok_or_else(|| EngineError::UnknownOption(format!("#{index}")))?;
                let (min, max) = (i64::from(tunable.min), i64::from(tunable.max));
                // The one range check: the value then fits an i32 and the tunable.
                let value = options::parse_spin(tunable.name, value.as_deref(), min, max)?;
                self.finish_search();
                self.searcher.set_param(index, value as i32);
            }
            EngineCommand::Quit => {
                self.finish_search();
                return Ok(Outcome::Quit);
            }
        }
        Ok(Outcome::Done)
    }

    /// The strength to search at: `UCI_Elo` when `UCI_LimitStrength` is on (it takes
    /// precedence, as in Stockfish), else the Elo of the `Skill Level`; none at full strength.
    fn strength(&mut self) -> Option<Strength> {
        let elo = match self.settings.limit_strength {
            true => self.settings.elo,
            false => Strength::skill_level_elo(self.settings.skill_level),
        };
        if elo >= MAX_ELO {
            return None;
        }
        let seed = match self.settings.skill_seed {
            0 => self.rng.next_u64(),
            seed => seed,
        };
        Some(Strength { elo, seed })
    }

    /// Resizes the transposition table; when the memory cannot be had, the table keeps its
    /// size, with an error saying so.
    fn resize_hash(&mut self, mb: usize) -> Result<(), EngineError> {
        self.finish_search();
        let got = self.searcher.set_hash_size(mb, self.settings.hash_mb);
        self.settings.hash_mb = got;
        if got < mb { Err(EngineError::HashTooLarge { asked: mb, got }) } else { Ok(()) }
    }

    /// Evaluates from now on with the network in the file at `path` (the built-in one when
    /// `path` is empty), or with the hand-crafted evaluation when `use_nnue` is off. The file is
    /// read either way, so that a bad one is reported when it is named: one that cannot be read
    /// or is not a network this build can evaluate is an error, and evaluation and settings stay
    /// as they were.
    fn set_evaluation(&mut self, use_nnue: bool, path: String) -> Result<(), EngineError> {
        self.finish_search();
        let network = if path.is_empty() {
            nnue::embedded()
        } else {
            let error = |reason: String| EngineError::Network { path: path.clone(), reason };
            let bytes = read_limited(&path, nnue::FILE_SIZE as u64).map_err(error)?;
            Network::from_bytes(&bytes).map_err(|e| error(e.to_string()))?
        };
        self.searcher.set_evaluation(if use_nnue {
            Evaluation::Network(network.clone())
        } else {
            Evaluation::HandCrafted
        });
        self.network = network;
        self.settings.use_nnue = use_nnue;
        self.settings.eval_file = path;
        Ok(())
    }

    /// A move from the book, when `OwnBook` is on, `UCI_AnalyseMode` off, the game within
    /// `BookDepth` moves and the book knows the position. The protocols ask only when the GUI
    /// wants a move to play (not analysis, pondering, or a search it limited by depth).
    pub fn book_move(&mut self) -> Option<BookMove> {
        let book = self.book.as_ref()?;
        if !self.settings.own_book
            || self.settings.analyse_mode
            || u32::from(self.board.fullmove_number()) > self.settings.book_depth
        {
            return None;
        }
        let mv = book.pick(&self.board, &mut self.rng)?;
        let mut after = self.board.clone();
        after.make_move(mv);
        let ponder = book.entries(&after).into_iter().filter(|&(_, w)| w > 0).max_by_key(|&(_, w)| w).map(|(m, _)| m);
        let share = self.book_moves().into_iter().find(|&(m, _)| m == mv).map_or(0.0, |(_, share)| share);
        Some(BookMove { mv, ponder, share })
    }

    /// The book's moves here with their share of the weights, for XBoard's `bk`.
    pub fn book_moves(&self) -> Vec<(Move, f64)> {
        let Some(book) = &self.book else { return Vec::new() };
        let entries = book.entries(&self.board);
        let total: f64 = entries.iter().map(|&(_, w)| f64::from(w)).sum();
        entries.into_iter().map(|(mv, w)| (mv, if total > 0.0 { f64::from(w) / total } else { 0.0 })).collect()
    }

    /// Reads the Polyglot book at `path` (none with an empty path, or when it cannot be read:
    /// play goes on without a book rather than with one the user replaced).
    fn open_book(&mut self, path: &str) -> Result<Option<String>, EngineError> {
        self.book = None;
        if path.is_empty() {
            return Ok(None);
        }
        let book = Book::open(path).map_err(|e| EngineError::Book(e.to_string()))?;
        let notice = format!("book {path}: {} entries", book.len());
        self.book = Some(book);
        Ok(Some(notice))
    }

    /// Changes one of the rules for when the search probes the tablebases.
    fn set_probe(&mut self, change: impl FnOnce(&mut ProbeSettings)) -> Result<Option<String>, EngineError> {
        change(&mut self.settings.probe);
        self.searcher.set_probe_settings(self.settings.probe);
        Ok(None)
    }

    /// Probes the Syzygy tables in the folders of `paths` (`:`-separated) from now on; none with
    /// an empty path. Says what it found, and what it skipped.
    fn open_tablebases(&mut self, paths: &str) -> Result<Option<String>, EngineError> {
        self.finish_search();
        let tables = Tablebases::open(paths).map_err(EngineError::Tablebases)?;
        if tables.max_pieces() == 0 {
            self.searcher.set_tablebases(None);
            self.tablebases = None;
            return Ok(None);
        }
        let mut notice = tables.summary();
        for warning in tables.warnings() {
            notice.push_str("; ");
            notice.push_str(warning);
        }
        let tables = Arc::new(tables);
        self.searcher.set_tablebases(Some(Arc::clone(&tables)));
        self.tablebases = Some(tables);
        Ok(Some(notice))
    }

    /// Whether a search thread may still be running (or has ended without being waited for):
    /// when not, every report of every search has been delivered to the sink.
    pub fn searching(&self) -> bool {
        self.searcher.running()
    }

    /// Stops the running search, if any, and waits until it has reported.
    fn finish_search(&mut self) {
        self.searcher.stop();
        self.searcher.wait();
    }
}

/// Reads a file of at most `limit` bytes (one more is read, so that a longer file is seen to
/// be too long without reading all of it).
fn read_limited(path: &str, limit: u64) -> Result<Vec<u8>, String> {
    use std::io::Read;
    let file = std::fs::File::open(path).map_err(|e| e.to_string())?;
    let mut bytes = Vec::new();
    file.take(limit + 1).read_to_end(&mut bytes).map_err(|e| e.to_string())?;
    Ok(bytes)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::mpsc;
    use std::time::Duration;

    fn play(engine: &mut Engine, text: &str) -> Result<Outcome, EngineError> {
        let mv = engine.parse_move(text).ok_or_else(|| EngineError::IllegalMove(text.to_string()))?;
        engine.execute(EngineCommand::PlayMove(mv))
    }

    fn set(engine: &mut Engine, option: OptionId, value: &str) -> Result<Outcome, EngineError> {
        engine.execute(EngineCommand::SetOption { option, value: Some(value.to_string()) })
    }

    fn engine() -> (Engine, mpsc::Receiver<(SearchId, Report)>) {
        let (tx, rx) = mpsc::channel();
        (Engine::new(Arc::new(move |id, report| drop(tx.send((id, report))))), rx)
    }

    fn position(fen: &str, moves: &[&str]) -> EngineCommand {
        EngineCommand::SetPosition { fen: Some(fen.to_string()), moves: moves.iter().map(|m| m.to_string()).collect() }
    }

    #[test]
    fn bad_position_leaves_the_game_alone() {
        let (mut engine, _) = engine();
        engine.execute(EngineCommand::SetPosition { fen: None, moves: vec!["e2e4".into()] }).unwrap();
        let before = engine.board().to_fen();
        let err = engine.execute(EngineCommand::SetPosition { fen: None, moves: vec!["e2e4".into(), "e2e4".into()] });
        assert_eq!(err, Err(EngineError::IllegalMove("e2e4".into())));
        assert!(matches!(engine.execute(position("8/8/8 w - -", &[])), Err(EngineError::Fen(_))));
        assert!(play(&mut engine, "e7e6x").is_err());
        // A move of another position is refused too.
        let e2e4 = parse_move(&Board::start_position(), "e2e4").unwrap();
        assert_eq!(engine.execute(EngineCommand::PlayMove(e2e4)), Err(EngineError::NotLegalHere(e2e4)));
        assert_eq!(engine.board().to_fen(), before);
        assert_eq!(engine.board().moves_played(), 1);
    }

    #[test]
    fn take_back_counts_moves() {
        let (mut engine, _) = engine();
        play(&mut engine, "e2e4").unwrap();
        assert!(matches!(engine.execute(EngineCommand::TakeBack(2)), Err(EngineError::NothingToTakeBack { .. })));
        engine.execute(EngineCommand::TakeBack(1)).unwrap();
        assert_eq!(engine.board().to_fen(), START_FEN);
    }

    #[test]
    fn searches_report_under_their_own_id() {
        let (mut engine, rx) = engine();
        let shallow = Limits { depth: Some(3), ..Limits::default() };
        let Ok(Outcome::Searching(id)) = engine.execute(EngineCommand::Go(shallow.clone())) else { panic!() };
        loop {
            let (from, report) = rx.recv_timeout(Duration::from_secs(10)).unwrap();
            assert_eq!(from, id);
            if let Report::BestMove { best, .. } = report {
                assert!(engine.parse_move(&best.unwrap().to_string()).is_some());
                break;
            }
        }
        let Ok(Outcome::Searching(next)) = engine.execute(EngineCommand::Go(shallow)) else { panic!() };
        assert_ne!(id, next);
        assert_eq!(engine.execute(EngineCommand::Quit), Ok(Outcome::Quit));
    }

    #[test]
    fn options_are_range_checked() {
        let (mut engine, _) = engine();
        assert!(set(&mut engine, OptionId::Hash, "0").is_err());
        assert!(set(&mut engine, OptionId::Threads, "257").is_err());
        set(&mut engine, OptionId::Hash, "1").unwrap();
        assert_eq!(engine.settings().hash_mb, 1);
        set(&mut engine, OptionId::UciChess960, "true").unwrap();
        assert!(engine.settings().chess960);
    }

    /// A table larger than the machine's memory is an error and the old table, never an abort.
    #[test]
    fn an_impossible_hash_size_keeps_the_old_table() {
        let (mut engine, _) = engine();
        set(&mut engine, OptionId::Hash, "2").unwrap();
        let memory_mb = crate::search::physical_memory().expect("the test machine reports its memory") >> 20;
        let too_much = memory_mb as usize + 1;
        if too_much <= crate::search::MAX_HASH_MB {
            let result = set(&mut engine, OptionId::Hash, &too_much.to_string());
            assert_eq!(result, Err(EngineError::HashTooLarge { asked: too_much, got: 2 }));
            assert_eq!(engine.settings().hash_mb, 2);
        }
    }

    /// Searches the engine's position and returns the move it plays, with the last score.
    fn search(engine: &mut Engine, rx: &mpsc::Receiver<(SearchId, Report)>, limits: Limits) -> (Move, Score) {
        let Ok(Outcome::Searching(id)) = engine.execute(EngineCommand::Go(limits)) else { panic!("no search") };
        let mut score = Score::Centipawns(0);
        loop {
            match rx.recv_timeout(Duration::from_secs(10)).unwrap() {
                (from, Report::Info(info)) if from == id => score = info.search_score,
                (from, Report::BestMove { best, .. }) if from == id => return (best.unwrap(), score),
                _ => {}
            }
        }
    }

    /// A real mini-match at tiny node counts, repeatable under a fixed seed: full strength
    /// scores clearly more than `UCI_Elo 1200`, from both sides of each opening.
    #[test]
    fn a_1200_level_loses_a_mini_match_to_full_strength() {
        let (mut full, full_rx) = engine();
        let (mut weak, weak_rx) = engine();
        for (option, value) in
            [(OptionId::UciLimitStrength, "true"), (OptionId::UciElo, "1200"), (OptionId::SkillSeed, "7")]
        {
            set(&mut weak, option, value).unwrap();
        }
        let openings = [crate::bench::POSITIONS[1], crate::bench::POSITIONS[6]];
        let limits = Limits { nodes: Some(1500), ..Limits::default() };
        let mut full_points = 0.0;
        for fen in openings {
            for full_plays in [Color::White, Color::Black] {
                let mut board = Board::from_fen(fen).unwrap();
                let moves = |board: &Board| board.move_text(board.last_move().unwrap(), false);
                let mut played: Vec<String> = Vec::new();
                while board.game_end().is_none() && played.len() < 160 {
                    let (engine, rx) =
                        if board.side_to_move() == full_plays { (&mut full, &full_rx) } else { (&mut weak, &weak_rx) };
                    engine.execute(position(fen, &played.iter().map(String::as_str).collect::<Vec<_>>())).unwrap();
                    board.make_move(search(engine, rx, limits.clone()).0);
                    played.push(moves(&board));
                }
                full_points += match board.game_end().map(|end| end.result) {
                    Some(GameResult::Draw) | None => 0.5,
                    Some(GameResult::WhiteWins) if full_plays == Color::White => 1.0,
                    Some(GameResult::BlackWins) if full_plays == Color::Black => 1.0,
                    Some(_) => 0.0,
                };
            }
        }
        assert!(full_points >= 3.5, "full strength scored only {full_points} of 4");
    }

    /// At 1800 the engine does not leave its queen where it is lost, whatever the seed: after
    /// each move it chooses, a full-strength search finds nothing like a queen's worth for the
    /// opponent.
    #[test]
    fn an_1800_level_does_not_drop_its_queen() {
        let (mut judge, judge_rx) = engine();
        let (mut player, rx) = engine();
        set(&mut player, OptionId::UciLimitStrength, "true").unwrap();
        set(&mut player, OptionId::UciElo, "1800").unwrap();
        // 1.e4 e5 2.d4 exd4 3.Qxd4 c5?: the pawn attacks the queen, and every capture the
        // queen can make is defended.
        let fen = "rnbqkbnr/pp1p1ppp/8/2p5/3QP3/8/PPP2PPP/RNB1KBNR w KQkq c6 0 4";
        for seed in 1..=12 {
            player.execute(position(fen, &[])).unwrap();
            set(&mut player, OptionId::SkillSeed, &seed.to_string()).unwrap();
            let (mv, _) = search(&mut player, &rx, Limits::default());
            judge.execute(position(fen, &[&mv.to_string()])).unwrap();
            let (_, score) = search(&mut judge, &judge_rx, Limits { depth: Some(6), ..Limits::default() });
            assert!(
                matches!(score, Score::Centipawns(cp) if cp < 400),
                "seed {seed}: after {mv} the opponent scores {score:?}"
            );
        }
    }

    /// In Chess960 castling reads and writes as the king taking its rook.
    #[test]
    fn chess960_castling_notation() {
        let (mut engine, _) = engine();
        set(&mut engine, OptionId::UciChess960, "true").unwrap();
        let fen = "bqnbrkrn/pppppppp/8/8/8/8/PPPPPPPP/BQNBRKRN w GEge - 0 1";
        engine.execute(EngineCommand::SetPosition { fen: Some(fen.to_string()), moves: Vec::new() }).unwrap();
        let castle = engine.parse_move("f1g1").unwrap();
        assert!(castle.is_castle());
        assert_eq!(engine.move_text(castle), "f1g1");
        engine.execute(EngineCommand::PlayMove(castle)).unwrap();
        assert_eq!(engine.board().to_fen(), "bqnbrkrn/pppppppp/8/8/8/8/PPPPPPPP/BQNBRRKN b kq - 1 1");
        // A castling move of the other side, as a line of the search would hold it, is written
        // with that side's rook.
        let black_castle = engine.parse_move("f8g8").unwrap();
        engine.execute(EngineCommand::TakeBack(1)).unwrap();
        assert_eq!(engine.move_text(black_castle), "f8g8");
    }
}
