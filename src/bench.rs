//! `bench`: a fixed search over a fixed set of positions. The node count is a fingerprint of
//! the search (it changes exactly when the search's behaviour does), and nodes per second
//! measure speed. Every position is searched from a cleared state, so the count is the same
//! on every run and machine.

use crate::board::Board;
use crate::eval::Evaluation;
use crate::search::{Limits, Report, Searcher};
use std::sync::mpsc;
use std::time::{Duration, Instant};

pub const DEFAULT_DEPTH: i32 = 9;
const HASH_MB: usize = 16;

/// Openings, middlegames and endgames, with castling, en passant and promotions among them.
pub const POSITIONS: [&str; 32] = [
    "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
    "rnbqkb1r/pp3ppp/4pn2/2pp4/2PP4/2N1PN2/PP3PPP/R1BQKB1R w KQkq - 0 5",
    "r1bqkb1r/pp1p1ppp/n6n/2p1p3/7P/N3P1P1/PPPP1P2/R1BQKBNR w KQkq - 1 5",
    "rnbqk1nr/p1pp1ppp/3b4/1p2p3/4PB2/3P4/1PP2PPP/RN1QKBNR w KQkq - 1 5",
    "r2qkbnr/pppbpp1p/2n3p1/3p4/6PP/2N2N2/PPPPPP2/R1BQKB1R w KQkq - 2 5",
    "rnbqk2r/ppp1bppp/4pn2/3p4/2PP4/2N2N2/PP2PPPP/R1BQKB1R w KQkq - 2 5",
    "r1bq1rk1/ppp2ppp/2np1n2/2b1p3/2B1P3/2NP1N2/PPP2PPP/R1BQ1RK1 w - - 0 7",
    "r2q1rk1/pp1bbppp/2nppn2/8/3NP3/2N1BP2/PPPQ2PP/2KR1B1R w - - 0 10",
    "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
    "r4rk1/1pp1qppp/p1np1n2/2b1p1B1/2B1P1b1/P1NP1N2/1PP1QPPP/R4RK1 w - - 0 10",
    "rnbq1k1r/pp1Pbppp/2p5/8/2B5/8/PPP1NnPP/RNBQK2R w KQ - 1 8",
    "r3k2r/Pppp1ppp/1b3nbN/nP6/BBP1P3/q4N2/Pp1P2PP/R2Q1RK1 w kq - 0 1",
    "2rq1rk1/pb2bppp/1pn1pn2/2pp4/3P4/1PNBPN2/PB3PPP/2RQ1RK1 w - - 4 12",
    "r1b2rk1/2q1bppp/p2ppn2/1p6/3QP3/1BN1B3/PPP2PPP/R4RK1 w - - 0 13",
    "2kr3r/pp1q1ppp/2n1bn2/2bpp3/4P3/2NP1N2/PPPBBPPP/R2Q1RK1 w - - 4 10",
    "r1bqr1k1/pp3pbp/2pp1np1/4n3/2PNP3/2N1BP2/PP1Q2PP/R3KB1R w KQ - 3 11",
    "3r1rk1/p4ppp/1pq1pn2/8/2PQ4/P1B2P2/4P1PP/R3KB1R w KQ - 1 18",
    "1r2r1k1/5ppp/p1pb4/3p4/3P2b1/2P1B3/PP1N1PPP/R4RK1 w - - 0 20",
    "r1bqkb1r/pppp1ppp/2n2n2/4p2Q/2B1P3/8/PPPP1PPP/RNB1K1NR w KQkq - 4 4",
    "1rnbkbnr/pppppppp/8/8/3P4/8/PPP1PPPP/RNBQKBNR w KQk - 1 2",
    "rnbqkbnr/ppp1p1pp/8/3pPp2/8/8/PPPP1PPP/RNBQKBNR w KQkq f6 0 3",
    "2r3k1/pp3ppp/8/3N4/8/1P4P1/P4P1P/2R3K1 w - - 0 30",
    "6k1/5ppp/8/8/8/8/r4PPP/1R4K1 w - - 0 1",
    "8/8/4kpp1/3p1b2/p6P/2B5/6P1/6K1 b - - 0 47",
    "8/5pk1/6p1/8/8/6P1/5PK1/8 w - - 0 1",
    "8/8/1p1k4/1P6/2K5/8/8/8 w - - 0 1",
    "8/8/8/4k3/8/8/4P3/4K3 w - - 0 1",
    "1K1k4/1P6/8/8/8/8/r7/2R5 w - - 0 1",
    "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1",
    "8/3P4/8/8/2k5/8/6p1/3K4 w - - 0 1",
    "4k3/8/8/8/8/8/8/R3K2R w KQ - 0 1",
    "5k2/8/8/8/8/8/8/4K1Q1 w - - 0 1",
];

/// Searches every position to `depth` with `evaluation`, printing a line for each and the total
/// last, in the `<nodes> nodes <nps> nps` form OpenBench reads. Fails only when stdout cannot
/// be written.
pub fn run(depth: i32, evaluation: Evaluation) -> std::io::Result<()> {
    use std::io::Write;
    let mut out = std::io::stdout().lock();
    let mut searcher = Searcher::new(HASH_MB);
    searcher.set_evaluation(evaluation);
    let mut total_nodes = 0;
    let mut searching = Duration::ZERO;
    for (i, fen) in POSITIONS.iter().enumerate() {
        let board = Board::from_fen(fen).expect("bench positions are valid");
        // A new game's clearing of the table and histories is left out of the time: the
        // nodes per second (what OpenBench scales time controls by) are the searches' alone.
        searcher.clear();
        let (sender, receiver) = mpsc::channel();
        let limits = Limits { depth: Some(depth), ..Limits::default() };
        let start = Instant::now();
        searcher.search(board, limits, Box::new(move |report| sender.send(report).unwrap_or(())));
        searching += start.elapsed();
        let (mut nodes, mut best) = (0, None);
        for report in receiver.try_iter() {
            match report {
                Report::Info(info) => nodes = info.nodes,
                Report::CurrMove { .. } => {}
                Report::BestMove { best: mv, .. } => best = mv,
            }
        }
        total_nodes += nodes;
        let best = best.map_or("(none)".to_string(), |m| m.to_string());
        writeln!(out, "position {:2}/{}: {nodes:>9} nodes  bestmove {best:<6} {fen}", i + 1, POSITIONS.len())?;
        out.flush()?;
    }
    let nps = (total_nodes as f64 / searching.as_secs_f64().max(1e-6)) as u64;
    writeln!(out, "{total_nodes} nodes {nps} nps")?;
    out.flush()
}

#[cfg(test)]
mod tests {
    #[test]
    fn positions_are_valid() {
        for fen in super::POSITIONS {
            assert!(crate::board::Board::from_fen(fen).is_ok(), "{fen}");
        }
    }
}
