//! Syzygy endgame tablebases: the exact result of positions with few pieces, so the search can
//! stop guessing in endings it would otherwise misjudge, and at the root pick a move that keeps
//! the best result and makes progress under the 50-move rule.
//!
//! The tables are read by `shakmaty-syzygy` (in `syzygy.rs`, behind the cargo feature of
//! that name, on by default), which probes positions of its sister crate
//! `shakmaty`. Our board is handed over as bitboards (no FEN text in between), which costs far
//! less than the probe itself. Syzygy tables hold no positions with castling rights; their WDL
//! values hold for a position reached by a capture or pawn move (halfmove clock 0), so
//! `probe_wdl` answers only there, and the root probe, which knows the clock, reads DTZ.

use crate::board::Move;

#[cfg(feature = "syzygy")]
mod syzygy;
#[cfg(feature = "syzygy")]
pub use syzygy::Tablebases;

/// What separates folders in a path list: Stockfish's convention, where Windows paths hold ':'.
#[cfg(feature = "syzygy")]
pub const PATH_SEPARATOR: char = if cfg!(windows) { ';' } else { ':' };

/// A result from the side to move's point of view. The cursed win and blessed loss are wins
/// and losses that the 50-move rule turns into draws.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
#[cfg_attr(not(feature = "syzygy"), allow(dead_code, reason = "only the prober makes results"))]
pub enum Wdl {
    Loss,
    BlessedLoss,
    Draw,
    CursedWin,
    Win,
}

impl Wdl {
    /// The same result seen by the other side.
    #[cfg(feature = "syzygy")]
    pub fn flip(self) -> Wdl {
        match self {
            Wdl::Loss => Wdl::Win,
            Wdl::BlessedLoss => Wdl::CursedWin,
            Wdl::Draw => Wdl::Draw,
            Wdl::CursedWin => Wdl::BlessedLoss,
            Wdl::Win => Wdl::Loss,
        }
    }

    /// The result when the 50-move rule is not played (Stockfish's `Syzygy50MoveRule false`):
    /// a cursed win is a win and a blessed loss a loss.
    pub fn without_fifty_move_rule(self) -> Wdl {
        match self {
            Wdl::CursedWin => Wdl::Win,
            Wdl::BlessedLoss => Wdl::Loss,
            other => other,
        }
    }
}

/// One legal root move as the tables judge it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RootMove {
    pub mv: Move,
    /// The result the move keeps for the side to move at the root, under the 50-move rule as
    /// the probe was asked to play it and with the root's halfmove clock counted.
    pub wdl: Wdl,
    /// Plies from the root to the next capture or pawn move with best play, positive when the
    /// mover wins and negative when it loses, 0 for a draw: 1 for a move that is itself a
    /// winning capture or pawn move, and for a mate. A capture or pawn move that leads into a
    /// cursed win or blessed loss is ±101.
    pub dtz: i32,
    /// Higher is better: the result first, then among wins the mate, then the fewest plies to
    /// the next capture or pawn move (the progress that beats the 50-move rule), and among
    /// losses the most.
    pub rank: i32,
}

/// Every legal root move, judged by the tables, best first.
#[derive(Clone, Debug)]
pub struct RootProbe {
    pub moves: Vec<RootMove>,
}

impl RootProbe {
    /// The result of the root position with best play.
    pub fn wdl(&self) -> Wdl {
        self.moves.first().map_or(Wdl::Draw, |m| m.wdl)
    }

    /// The moves that keep the best result: the ones the search should choose among.
    pub fn best_moves(&self) -> impl Iterator<Item = Move> + '_ {
        let best = self.wdl();
        self.moves.iter().filter(move |m| m.wdl == best).map(|m| m.mv)
    }
}

/// A build without the `syzygy` feature: no table can be opened.
#[cfg(not(feature = "syzygy"))]
pub struct Tablebases;

#[cfg(not(feature = "syzygy"))]
impl Tablebases {
    pub fn open(path_list: &str) -> Result<Tablebases, String> {
        match path_list.trim() {
            "" | "<empty>" => Ok(Tablebases),
            _ => Err("this build has no Syzygy support (cargo feature syzygy)".to_string()),
        }
    }

    pub fn max_pieces(&self) -> usize {
        0
    }

    pub fn summary(&self) -> String {
        "no Syzygy tables".to_string()
    }

    pub fn warnings(&self) -> &[String] {
        &[]
    }

    pub fn probe_wdl(&self, _: &crate::board::Board) -> Option<Wdl> {
        None
    }

    pub fn probe_root(&self, _: &crate::board::Board, _: bool) -> Option<RootProbe> {
        None
    }
}
