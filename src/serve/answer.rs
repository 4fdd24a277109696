//! The JSON of an analysis: the best move and the ponder move, the search's totals, and each
//! line with its score from the side to move's view (as UCI reports it) and from White's (as
//! lichess and most web APIs report it), its win/draw/loss chances and its moves in coordinate
//! notation and in SAN. The types here are the answers' shapes, field by field, in the order
//! they are written; docs/serve.md shows them.

use super::worker::Found;
use crate::engine::{Bound, Color, EndReason, GameEnd, GameResult, Info, Move, Score, Setup};
use serde::Serialize;

/// A score as JSON: `{"cp": 31}` or `{"mate": -2}` (mated in two).
#[derive(Clone, Copy, Debug, Serialize, PartialEq, Eq)]
pub struct ScoreJson {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cp: Option<i32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub mate: Option<i32>,
}

impl ScoreJson {
    pub fn new(score: Score) -> ScoreJson {
        match score {
            Score::Centipawns(cp) => ScoreJson { cp: Some(cp), mate: None },
            Score::Mate(moves) => ScoreJson { cp: None, mate: Some(moves) },
        }
    }
}

/// A score of the side to move, from White's side of the board.
pub fn white_view(score: Score, side: Color) -> Score {
    match (side, score) {
        (Color::White, score) => score,
        (Color::Black, Score::Centipawns(cp)) => Score::Centipawns(-cp),
        (Color::Black, Score::Mate(moves)) => Score::Mate(-moves),
    }
}

#[derive(Clone, Debug, Serialize)]
pub struct Line {
    pub multipv: usize,
    pub depth: i32,
    pub seldepth: i32,
    /// For the side to move.
    pub score: ScoreJson,
    pub score_white: ScoreJson,
    /// `lower` or `upper` when the score is only a bound (an aspiration window failed).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub bound: Option<&'static str>,
    /// Permille chances of a win, a draw and a loss for the side to move.
    pub wdl: [u32; 3],
    pub nodes: u64,
    pub moves: Vec<String>,
    pub san: Vec<String>,
}

impl Line {
    pub fn new(setup: &Setup, info: &Info) -> Line {
        let (moves, san) = setup.line(&info.pv);
        Line {
            multipv: info.multipv,
            depth: info.depth,
            seldepth: info.seldepth,
            score: ScoreJson::new(info.score),
            score_white: ScoreJson::new(white_view(info.score, setup.side_to_move())),
            bound: match info.bound {
                Bound::Exact => None,
                Bound::Lower => Some("lower"),
                Bound::Upper => Some("upper"),
            },
            wdl: info.wdl,
            nodes: info.nodes,
            moves,
            san,
        }
    }
}

/// How a game ended, in the position searched.
#[derive(Clone, Debug, Serialize)]
pub struct GameOver {
    /// `1-0`, `0-1` or `1/2-1/2`.
    pub result: &'static str,
    /// `checkmate`, `stalemate`, `fifty-move rule`, `threefold repetition` or `insufficient
    /// material`.
    pub reason: &'static str,
}

impl GameOver {
    pub fn new(end: GameEnd) -> GameOver {
        GameOver {
            result: match end.result {
                GameResult::WhiteWins => "1-0",
                GameResult::BlackWins => "0-1",
                GameResult::Draw => "1/2-1/2",
            },
            reason: match end.reason {
                EndReason::Checkmate => "checkmate",
                EndReason::Stalemate => "stalemate",
                EndReason::FiftyMoveRule => "fifty-move rule",
                EndReason::ThreefoldRepetition => "threefold repetition",
                EndReason::InsufficientMaterial => "insufficient material",
            },
        }
    }
}

/// The search's totals, from its last line.
#[derive(Clone, Debug, Serialize, Default)]
pub struct Totals {
    pub depth: i32,
    pub seldepth: i32,
    pub nodes: u64,
    pub nps: u64,
    /// Milliseconds.
    pub time: u64,
}

impl Totals {
    pub fn new(last: Option<&Info>) -> Totals {
        last.map_or_else(Totals::default, |info| Totals {
            depth: info.depth,
            seldepth: info.seldepth,
            nodes: info.nodes,
            nps: info.nps(),
            time: info.elapsed.as_millis() as u64,
        })
    }
}

/// The answer of `POST /api/analyse`, and the last message of a live analysis.
#[derive(Clone, Debug, Serialize)]
pub struct Analysis {
    /// The position searched (after the request's moves).
    pub fen: String,
    /// `null` only when the side to move has no legal move.
    pub bestmove: Option<String>,
    pub bestmove_san: Option<String>,
    pub ponder: Option<String>,
    pub ponder_san: Option<String>,
    #[serde(flatten)]
    pub totals: Totals,
    pub lines: Vec<Line>,
    /// Set when the position searched is already over.
    pub game_over: Option<GameOver>,
    /// The search ended at the server's time limit (`--max-movetime`) before its own limit.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub capped: bool,
    /// The client stopped the search.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub stopped: bool,
}

impl Analysis {
    pub fn new(setup: &Setup, found: &Found) -> Analysis {
        let text = |mv: Option<Move>| mv.map(|mv| setup.move_text(mv));
        let ponder_san = match (found.best, found.ponder) {
            (Some(best), Some(ponder)) => setup.line(&[best, ponder]).1.get(1).cloned(),
            _ => None,
        };
        Analysis {
            fen: setup.fen(),
            bestmove: text(found.best),
            bestmove_san: found.best.and_then(|mv| setup.line(&[mv]).1.pop()),
            ponder: text(found.ponder),
            ponder_san,
            totals: Totals::new(found.last()),
            lines: found.lines().into_iter().map(|info| Line::new(setup, info)).collect(),
            game_over: setup.game_over().map(GameOver::new),
            capped: found.capped,
            stopped: found.stopped,
        }
    }
}

/// A line of a live analysis as it arrives: the totals so far and the latest line of each rank.
#[derive(Clone, Debug, Serialize)]
pub struct Progress {
    #[serde(flatten)]
    pub totals: Totals,
    pub lines: Vec<Line>,
}

impl Progress {
    pub fn new(setup: &Setup, latest: &Info, infos: &[Info]) -> Progress {
        let found = Found { best: None, ponder: None, infos: infos.to_vec(), capped: false, stopped: false };
        Progress {
            totals: Totals::new(Some(latest)),
            lines: found.lines().into_iter().map(|info| Line::new(setup, info)).collect(),
        }
    }
}

/// The answer of `POST /api/move`.
#[derive(Clone, Debug, Serialize)]
pub struct MoveAnswer {
    /// `null` only when the game is already over.
    #[serde(rename = "move")]
    pub mv: Option<String>,
    pub san: Option<String>,
    pub ponder: Option<String>,
    /// The position after the move.
    pub fen: String,
    /// The engine's score before its move, for the side to move, where it searched.
    pub score: Option<ScoreJson>,
    #[serde(flatten)]
    pub totals: Totals,
    /// Set when the game is over, before the move (no move then) or after it.
    pub game_over: Option<GameOver>,
}

impl MoveAnswer {
    pub fn new(setup: &Setup, found: &Found) -> MoveAnswer {
        let after = found.best.and_then(|mv| setup.after(mv).ok());
        let position = after.as_ref().unwrap_or(setup);
        MoveAnswer {
            mv: found.best.map(|mv| setup.move_text(mv)),
            san: found.best.and_then(|mv| setup.line(&[mv]).1.pop()),
            ponder: found.ponder.filter(|_| after.is_some()).map(|mv| position.move_text(mv)),
            fen: position.fen(),
            score: found.lines().first().map(|info| ScoreJson::new(info.score)),
            totals: Totals::new(found.last()),
            game_over: position.game_over().map(GameOver::new),
        }
    }
}

/// A message with its kind first: `{"type": "info", ...}`.
#[derive(Serialize)]
pub struct Tagged<'a, T: Serialize> {
    #[serde(rename = "type")]
    pub kind: &'static str,
    #[serde(flatten)]
    pub body: &'a T,
}

/// JSON text of anything the server answers with; the types above always serialise.
pub fn json<T: Serialize>(value: &T) -> String {
    serde_json::to_string(value).unwrap_or_else(|e| format!("{{\"error\":\"cannot write the answer: {e}\"}}"))
}
