//! What a person at the console asks of the engine about its position, as Stockfish answers
//! it: `d` (the board, its FEN, key and checkers), `eval` (the evaluation by the network and by
//! the hand-crafted evaluation, and which one the search uses), and whether a position is dead
//! drawn, which decides XBoard's draw offers.

use super::Engine;
use crate::eval::{Evaluation, Evaluator, PawnCache, evaluate, pawnless_and_hard_to_win};
use crate::search::tablebase::Wdl;
use crate::search::win_rate::normalize;

impl Engine {
    /// `d`: the board as Stockfish draws it, then `Fen:`, `Key:` and `Checkers:` lines.
    pub fn describe(&self) -> Vec<String> {
        let mut lines: Vec<String> = self.board.to_string().lines().map(str::to_string).collect();
        let checkers: Vec<String> = self.board.checkers().iter().map(|sq| sq.to_string()).collect();
        lines.push(format!("Checkers: {}", checkers.join(" ")).trim_end().to_string());
        lines
    }

    /// `eval`: the static evaluation of the position by each evaluation, from White's side in
    /// pawns on the scale scores are reported on (as Stockfish shows it), and the one the
    /// search uses. A position in check has none, since the search never evaluates one.
    pub fn evaluations(&self) -> Vec<String> {
        if self.board.in_check() {
            return vec!["Final evaluation: none (in check)".to_string()];
        }
        let white = |score: i32| {
            format!("{:+.2} (white side)", f64::from(normalize(score) * self.board.side_to_move().sign()) / 100.0)
        };
        let network = {
            let evaluation = Evaluation::Network(self.network.clone());
            let mut evaluator = Evaluator::new(&evaluation);
            evaluator.start(&evaluation, &self.board);
            evaluator.evaluate(&self.board)
        };
        let hand_crafted = evaluate(&self.board, &mut PawnCache::new());
        let (used, name) =
            if self.settings.use_nnue { (network, "the network") } else { (hand_crafted, "hand-crafted") };
        vec![
            format!("Network evaluation       {}", white(network)),
            format!("Hand-crafted evaluation  {}", white(hand_crafted)),
            format!("Final evaluation         {} [{name}]", white(used)),
        ]
    }

    /// Whether the position is dead drawn, whatever the side to move does: drawn by the rules
    /// (insufficient material), by the tablebases when they hold it (under the 50-move rule
    /// as `Syzygy50MoveRule` says), or a pawnless ending in which neither side is more than a
    /// minor piece up (rook against rook, say), which is drawn with any care.
    pub fn dead_draw(&self) -> bool {
        if self.board.has_insufficient_material() || pawnless_and_hard_to_win(&self.board) {
            return true;
        }
        let probe = self.settings.probe;
        self.tablebases.as_ref().is_some_and(|tables| {
            self.board.piece_count() <= probe.limit.min(tables.max_pieces())
                && self.board.castling_rights() == 0
                && tables.probe_root(&self.board, probe.fifty_move_rule).is_some_and(|root| {
                    let wdl = if probe.fifty_move_rule { root.wdl() } else { root.wdl().without_fifty_move_rule() };
                    matches!(wdl, Wdl::Draw | Wdl::CursedWin | Wdl::BlessedLoss)
                })
        })
    }
}
