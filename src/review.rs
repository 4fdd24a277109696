//! Judging moves with the search, for people and for engine authors: `sentinel analyse` reviews
//! the games of a PGN file (every position searched, each move marked by what it lost, the
//! better line given, a summary and a graph per game), and `sentinel epd` runs a test suite
//! (does the search find the right move, and how soon).
//!
//! Both stand beside the protocols, on top of the search, the notation and the engine's book:
//! they drive the `Searcher` directly and synchronously, one position after another, which the
//! engine (made for a GUI's asynchronous commands) does not offer. The command line reads their
//! arguments and calls them; nothing below them knows they exist.

pub mod analyse;
pub mod clock;
pub mod eco;
pub mod game;
pub mod graph;
pub mod json;
pub mod judge;
pub mod lichess;
pub mod phase;
pub mod suite;

use crate::board::{Board, Move};
use crate::search::{Info, Limits, Report, Searcher};
use std::sync::mpsc;

/// How long `analyse` searches each position by default: a 40-move game in under a minute,
/// deep enough (depth 15 or more on one core) to judge people's moves.
pub const DEFAULT_REVIEW_MS: u64 = 500;

/// How long `epd` searches each position by default, as test suites are usually run.
pub const DEFAULT_SUITE_MS: u64 = 1000;

/// How hard each position is searched, and on what.
#[derive(Clone, Debug)]
pub struct Effort {
    /// The limit of every search (a time, a depth or a node count).
    pub limits: Limits,
    pub threads: usize,
    pub hash_mb: usize,
}

impl Effort {
    /// A searcher with this effort's threads and table.
    pub fn searcher(&self) -> Searcher {
        let mut searcher = Searcher::new(self.hash_mb);
        searcher.set_threads(self.threads);
        searcher
    }

    /// Says the limit for people: `500 ms`, `depth 12` or `100000 nodes` a position.
    pub fn describe(&self) -> String {
        match (&self.limits.movetime, self.limits.depth, self.limits.nodes) {
            (Some(time), _, _) => format!("{} ms", time.as_millis()),
            (None, Some(depth), _) => format!("depth {depth}"),
            (None, None, Some(nodes)) => format!("{nodes} nodes"),
            (None, None, None) => "no limit".to_string(),
        }
    }
}

/// Everything one search of a position reported: its progress lines in order, and the move it
/// chose (`None` only where there is no legal move).
pub struct Searched {
    pub infos: Vec<Info>,
    pub best: Option<Move>,
}

impl Searched {
    /// The last line reported for the `multipv`th best move (from 1).
    pub fn last(&self, multipv: usize) -> Option<&Info> {
        self.infos.iter().rev().find(|info| info.multipv == multipv)
    }

    /// The line of the move chosen: the last one reported that starts with it.
    pub fn best_line(&self) -> Option<&Info> {
        let best = self.best?;
        self.infos.iter().rev().find(|info| info.multipv == 1 && info.pv.first() == Some(&best))
    }
}

/// What a review searches with: a `Searcher` of its own (`analyse`, `epd`), or the engine
/// that the server shares among its requests.
pub trait Search {
    /// Searches `board` (whose history counts for repetitions) and returns what it reported.
    fn search(&mut self, board: &Board, limits: Limits) -> Searched;
}

impl Search for Searcher {
    fn search(&mut self, board: &Board, limits: Limits) -> Searched {
        search(self, board, limits)
    }
}

/// Searches `board` (whose history counts for repetitions) on the calling thread and returns
/// what the search reported.
pub fn search(searcher: &mut Searcher, board: &Board, limits: Limits) -> Searched {
    let (sender, receiver) = mpsc::channel();
    searcher.search(board.clone(), limits, Box::new(move |report| sender.send(report).unwrap_or(())));
    let mut searched = Searched { infos: Vec::new(), best: None };
    for report in receiver.try_iter() {
        match report {
            Report::Info(info) => searched.infos.push(info),
            Report::CurrMove { .. } => {}
            Report::BestMove { best, .. } => searched.best = best,
        }
    }
    searched
}
