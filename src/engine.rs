//! The engine the protocols drive: the game (a `Board` whose move history lets the search see
//! repetitions), the `Searcher` and the options. UCI and XBoard both translate their text into
//! `EngineCommand`s, and the search's reports come back tagged with the `SearchId` of the
//! search that made them, so a protocol can tell a current search from one it abandoned.

#[cfg_attr(not(test), expect(dead_code, reason = "the OwnBook and BookFile options will use the book"))]
mod book;

#[expect(unused_imports, reason = "the OwnBook and BookFile options will use the book")]
pub use book::{Book, BookError, BookErrorKind, polyglot_key};

use crate::board::{Board, Color, FenError, Move, START_FEN};
use crate::movegen::{legal_moves, parse_move};
use crate::search::{
    DEFAULT_HASH_MB, DEFAULT_MOVE_OVERHEAD_MS, Limits, MAX_HASH_MB, MAX_MOVE_OVERHEAD_MS, MAX_THREADS, Report, Searcher,
};
use std::fmt;
use std::sync::Arc;
use std::time::Duration;

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
    /// Set up `fen` (the start position when `None`) and play `moves` from it. Nothing
    /// changes if the FEN or any move is bad.
    SetPosition {
        fen: Option<String>,
        moves: Vec<String>,
    },
    /// Play one move in coordinate notation.
    PlayMove(String),
    /// Take back this many moves.
    TakeBack(usize),
    /// Search the current position. The search's board carries the game's history.
    Go(Limits),
    /// Ask the running search to report its best move now.
    Stop,
    /// The pondered move was played: the search now runs under its clock.
    PonderHit,
    SetOption(EngineOption),
    /// Stop searching and wait for the search thread: the engine is about to end.
    Quit,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EngineOption {
    /// Transposition table size in MB.
    Hash(usize),
    ClearHash,
    Threads(usize),
    MoveOverhead(Duration),
    /// Whether the GUI lets us think on the opponent's time (UCI tells us; it changes nothing
    /// in the search itself, since the GUI decides when to ponder).
    Ponder(bool),
}

/// What a command did.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Outcome {
    Done,
    /// A search started; its reports carry this id.
    Searching(SearchId),
    Quit,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum EngineError {
    Fen(FenError),
    /// A move that does not parse or is not legal in the position it was meant for.
    IllegalMove(String),
    NothingToTakeBack {
        asked: usize,
        played: usize,
    },
    OutOfRange {
        option: &'static str,
        value: u64,
        min: u64,
        max: u64,
    },
}

impl fmt::Display for EngineError {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        match self {
            EngineError::Fen(e) => write!(f, "{e}"),
            EngineError::IllegalMove(text) => write!(f, "illegal move: {text}"),
            EngineError::NothingToTakeBack { asked, played } => {
                write!(f, "cannot take back {asked} move(s): only {played} played since the position was set")
            }
            EngineError::OutOfRange { option, value, min, max } => {
                write!(f, "{option} must be from {min} to {max}, got {value}")
            }
        }
    }
}

impl std::error::Error for EngineError {}

/// The option values in force.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Options {
    pub hash_mb: usize,
    pub threads: usize,
    pub move_overhead: Duration,
    pub ponder: bool,
}

impl Default for Options {
    fn default() -> Options {
        Options {
            hash_mb: DEFAULT_HASH_MB,
            threads: 1,
            move_overhead: Duration::from_millis(DEFAULT_MOVE_OVERHEAD_MS),
            ponder: false,
        }
    }
}

pub struct Engine {
    board: Board,
    searcher: Searcher,
    options: Options,
    sink: ReportSink,
    next_search: u64,
}

impl Engine {
    pub fn new(sink: ReportSink) -> Engine {
        let options = Options::default();
        let mut searcher = Searcher::new(options.hash_mb);
        searcher.set_move_overhead(options.move_overhead);
        Engine { board: Board::start_position(), searcher, options, sink, next_search: 0 }
    }

    /// The game's current position, with the moves played since it was set up.
    pub fn board(&self) -> &Board {
        &self.board
    }

    #[cfg(test)]
    pub fn options(&self) -> Options {
        self.options
    }

    /// Parses a coordinate move, returning it only if it is legal in the current position.
    pub fn parse_move(&self, text: &str) -> Option<Move> {
        parse_move(&self.board, text)
    }

    /// Whether the game has ended in the current position, and how.
    pub fn game_over(&self) -> Option<GameEnd> {
        game_over(&self.board)
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
                let mut board = Board::from_fen(fen.as_deref().unwrap_or(START_FEN)).map_err(EngineError::Fen)?;
                for text in &moves {
                    let mv = parse_move(&board, text).ok_or_else(|| EngineError::IllegalMove(text.clone()))?;
                    board.make_move(mv);
                }
                self.finish_search();
                self.board = board;
            }
            EngineCommand::PlayMove(text) => {
                let mv = self.parse_move(&text).ok_or(EngineError::IllegalMove(text))?;
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
            EngineCommand::Go(limits) => {
                self.finish_search();
                self.next_search += 1;
                let id = SearchId(self.next_search);
                let sink = Arc::clone(&self.sink);
                self.searcher.start(self.board.clone(), limits, Box::new(move |report| sink(id, report)));
                return Ok(Outcome::Searching(id));
            }
            EngineCommand::Stop => self.searcher.stop(),
            EngineCommand::PonderHit => self.searcher.ponderhit(),
            EngineCommand::SetOption(option) => self.set_option(option)?,
            EngineCommand::Quit => {
                self.finish_search();
                return Ok(Outcome::Quit);
            }
        }
        Ok(Outcome::Done)
    }

    fn set_option(&mut self, option: EngineOption) -> Result<(), EngineError> {
        match option {
            EngineOption::Hash(mb) => {
                check_range("Hash", mb as u64, 1, MAX_HASH_MB as u64)?;
                self.finish_search();
                self.searcher.set_hash_size(mb);
                self.options.hash_mb = mb;
            }
            EngineOption::ClearHash => {
                self.finish_search();
                self.searcher.clear();
            }
            EngineOption::Threads(threads) => {
                check_range("Threads", threads as u64, 1, MAX_THREADS as u64)?;
                self.finish_search();
                self.searcher.set_threads(threads);
                self.options.threads = threads;
            }
            EngineOption::MoveOverhead(overhead) => {
                check_range("Move Overhead", overhead.as_millis() as u64, 0, MAX_MOVE_OVERHEAD_MS)?;
                self.searcher.set_move_overhead(overhead);
                self.options.move_overhead = overhead;
            }
            EngineOption::Ponder(on) => self.options.ponder = on,
        }
        Ok(())
    }

    /// Stops the running search, if any, and waits until it has reported.
    fn finish_search(&mut self) {
        self.searcher.stop();
        self.searcher.wait();
    }
}

fn check_range(option: &'static str, value: u64, min: u64, max: u64) -> Result<(), EngineError> {
    if (min..=max).contains(&value) { Ok(()) } else { Err(EngineError::OutOfRange { option, value, min, max }) }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum GameResult {
    WhiteWins,
    BlackWins,
    Draw,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EndReason {
    Checkmate,
    Stalemate,
    FiftyMoveRule,
    ThreefoldRepetition,
    InsufficientMaterial,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct GameEnd {
    pub result: GameResult,
    pub reason: EndReason,
}

/// Whether the game is over in this position, by the rules a player may claim or that end it
/// at once. Mate and stalemate come first: a move that mates ends the game even when it is
/// also the hundredth half-move without a capture or pawn move.
pub fn game_over(board: &Board) -> Option<GameEnd> {
    let draw = |reason| Some(GameEnd { result: GameResult::Draw, reason });
    if legal_moves(board).is_empty() {
        if !board.in_check() {
            return draw(EndReason::Stalemate);
        }
        let result = match board.side_to_move() {
            Color::White => GameResult::BlackWins,
            Color::Black => GameResult::WhiteWins,
        };
        return Some(GameEnd { result, reason: EndReason::Checkmate });
    }
    if board.halfmove_clock() >= 100 {
        return draw(EndReason::FiftyMoveRule);
    }
    if board.occurrences() >= 3 {
        return draw(EndReason::ThreefoldRepetition);
    }
    if board.has_insufficient_material() {
        return draw(EndReason::InsufficientMaterial);
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::mpsc;

    fn engine() -> (Engine, mpsc::Receiver<(SearchId, Report)>) {
        let (tx, rx) = mpsc::channel();
        (Engine::new(Arc::new(move |id, report| drop(tx.send((id, report))))), rx)
    }

    fn position(fen: &str, moves: &[&str]) -> EngineCommand {
        EngineCommand::SetPosition { fen: Some(fen.to_string()), moves: moves.iter().map(|m| m.to_string()).collect() }
    }

    fn end_of(fen: &str, moves: &[&str]) -> Option<GameEnd> {
        let (mut engine, _) = engine();
        engine.execute(position(fen, moves)).unwrap();
        engine.game_over()
    }

    #[test]
    fn bad_position_leaves_the_game_alone() {
        let (mut engine, _) = engine();
        engine.execute(EngineCommand::SetPosition { fen: None, moves: vec!["e2e4".into()] }).unwrap();
        let before = engine.board().to_fen();
        let err = engine.execute(EngineCommand::SetPosition { fen: None, moves: vec!["e2e4".into(), "e2e4".into()] });
        assert_eq!(err, Err(EngineError::IllegalMove("e2e4".into())));
        assert!(matches!(engine.execute(position("8/8/8 w - -", &[])), Err(EngineError::Fen(_))));
        assert!(engine.execute(EngineCommand::PlayMove("e7e6x".into())).is_err());
        assert_eq!(engine.board().to_fen(), before);
        assert_eq!(engine.board().moves_played(), 1);
    }

    #[test]
    fn take_back_counts_moves() {
        let (mut engine, _) = engine();
        engine.execute(EngineCommand::PlayMove("e2e4".into())).unwrap();
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
        assert!(engine.execute(EngineCommand::SetOption(EngineOption::Hash(0))).is_err());
        assert!(engine.execute(EngineCommand::SetOption(EngineOption::Threads(MAX_THREADS + 1))).is_err());
        engine.execute(EngineCommand::SetOption(EngineOption::Hash(1))).unwrap();
        assert_eq!(engine.options().hash_mb, 1);
    }

    #[test]
    fn game_endings() {
        let draw = |reason| Some(GameEnd { result: GameResult::Draw, reason });
        assert_eq!(end_of(START_FEN, &["e2e4"]), None);
        assert_eq!(
            end_of(START_FEN, &["f2f3", "e7e5", "g2g4", "d8h4"]),
            Some(GameEnd { result: GameResult::BlackWins, reason: EndReason::Checkmate })
        );
        assert_eq!(
            end_of("6k1/5ppp/8/8/8/8/8/R5K1 w - - 0 1", &["a1a8"]),
            Some(GameEnd { result: GameResult::WhiteWins, reason: EndReason::Checkmate })
        );
        assert_eq!(end_of("7k/8/6Q1/8/8/8/8/K7 w - - 0 1", &["g6f7"]), draw(EndReason::Stalemate));
        assert_eq!(end_of("7k/8/8/8/8/8/R7/K7 w - - 99 80", &["a2b2"]), draw(EndReason::FiftyMoveRule));
        let knights = ["g1f3", "g8f6", "f3g1", "f6g8", "g1f3", "g8f6", "f3g1"];
        assert_eq!(end_of(START_FEN, &knights), None);
        assert_eq!(end_of(START_FEN, &[&knights[..], &["f6g8"]].concat()), draw(EndReason::ThreefoldRepetition));
        assert_eq!(end_of("8/8/8/8/8/8/5n2/4K2k w - - 0 1", &["e1f2"]), draw(EndReason::InsufficientMaterial));
        // Mate on the hundredth half-move is still mate.
        assert_eq!(
            end_of("6k1/5ppp/8/8/8/8/8/R5K1 w - - 99 80", &["a1a8"]),
            Some(GameEnd { result: GameResult::WhiteWins, reason: EndReason::Checkmate })
        );
    }
}
