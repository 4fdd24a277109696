//! What the GUI asked for: how long or how deep to search, and what the search reports back.

use super::strength::Strength;
use crate::board::Move;
use std::time::Duration;

/// The limits of one search, as `go` describes them. Everything left `None` is unlimited;
/// with nothing set at all the search runs until stopped.
#[derive(Clone, Debug)]
pub struct Limits {
    pub depth: Option<i32>,
    pub nodes: Option<u64>,
    /// Start no new iteration after this many nodes (the one under way may go on to `nodes`):
    /// self-play wants a fixed effort per move without cutting iterations off.
    pub soft_nodes: Option<u64>,
    /// Stop once a mate in this many moves (or fewer) is found.
    pub mate: Option<i32>,
    /// Spend exactly this long (minus the move overhead).
    pub movetime: Option<Duration>,
    /// The side to move's clock, for time management.
    pub clock: Option<Clock>,
    /// Search until told to stop, ignoring the clock (`go infinite`, XBoard's analyze mode).
    pub infinite: bool,
    /// Search on the opponent's time: like `infinite` until `ponderhit` turns the clock on.
    pub ponder: bool,
    /// Consider only these root moves (`go searchmoves`); empty means all.
    pub searchmoves: Vec<Move>,
    /// How many of the best root moves to find and report, each with its own line.
    pub multipv: usize,
    /// Play at this level instead of full strength.
    pub strength: Option<Strength>,
}

impl Limits {
    /// The longest time any clock or limit is taken to hold (about 31 years): larger values
    /// from a GUI count as this, so that no arithmetic on times can overflow.
    pub const MAX_TIME: Duration = Duration::from_secs(1_000_000_000);
}

impl Default for Limits {
    fn default() -> Limits {
        Limits {
            depth: None,
            nodes: None,
            soft_nodes: None,
            mate: None,
            movetime: None,
            clock: None,
            infinite: false,
            ponder: false,
            searchmoves: Vec::new(),
            multipv: 1,
            strength: None,
        }
    }
}

#[derive(Clone, Copy, Debug)]
pub struct Clock {
    pub remaining: Duration,
    pub increment: Duration,
    /// Moves until the next time control, if the control is not sudden death.
    pub moves_to_go: Option<u32>,
}

/// A score from the side to move's point of view.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Score {
    Centipawns(i32),
    /// Mate in this many moves: positive when the side to move mates, negative when mated.
    Mate(i32),
}

/// Whether a reported score is exact or only a bound (an aspiration window failed).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Bound {
    Exact,
    Lower,
    Upper,
}

/// One line of progress, reported after each completed iteration (and after a failed
/// aspiration search, with the bound it proved).
#[derive(Clone, Debug)]
pub struct Info {
    /// Which MultiPV line this is, from 1 (the best).
    pub multipv: usize,
    pub depth: i32,
    pub seldepth: i32,
    /// The score as Sentinel reports it (UCI, XBoard, reviews, the server): normalised, so
    /// that 100 cp is the score at which the side to move wins half its games in a middlegame
    /// (`win_rate::normalize`, as Stockfish normalises its own).
    pub score: Score,
    /// The same score on the search's own scale, for what must not change when the model is
    /// fitted again: self-play data, and the engine's own thresholds for draw offers and
    /// resigning.
    pub search_score: Score,
    /// Permille chances of a win, a draw and a loss for the side to move, from the score.
    pub wdl: [u32; 3],
    pub bound: Bound,
    pub nodes: u64,
    pub elapsed: Duration,
    /// Transposition table fill, in permille.
    pub hashfull: u32,
    /// Positions the endgame tablebases answered.
    pub tb_hits: u64,
    pub pv: Vec<Move>,
}

impl Info {
    pub fn nps(&self) -> u64 {
        (self.nodes as f64 / self.elapsed.as_secs_f64().max(0.001)) as u64
    }
}

/// What a search sends back while and after it runs.
#[derive(Clone, Debug)]
pub enum Report {
    Info(Info),
    /// The main thread starts searching root move `mv`, the `number`th (from 1) of the
    /// iteration at `depth`: sent only on long searches, for GUIs that show progress.
    CurrMove {
        depth: i32,
        mv: Move,
        number: usize,
    },
    /// The search has finished. `best` is `None` only when the side to move has no legal move.
    BestMove {
        best: Option<Move>,
        ponder: Option<Move>,
    },
}
