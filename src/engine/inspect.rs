//! What a person at the console asks of the engine about its position, as Stockfish answers
//! it: `d` (the board, its FEN, key and checkers) and `eval` (the evaluation by the network and
//! by the hand-crafted evaluation, and which one the search uses).

use super::Engine;
use crate::eval::{Evaluation, Evaluator, PawnCache, evaluate};

impl Engine {
    /// `d`: the board as Stockfish draws it, then `Fen:`, `Key:` and `Checkers:` lines.
    pub fn describe(&self) -> Vec<String> {
        let mut lines: Vec<String> = self.board.to_string().lines().map(str::to_string).collect();
        let checkers: Vec<String> = self.board.checkers().iter().map(|sq| sq.to_string()).collect();
        lines.push(format!("Checkers: {}", checkers.join(" ")).trim_end().to_string());
        lines
    }

    /// `eval`: the static evaluation of the position by each evaluation, from White's side in
    /// pawns (as Stockfish shows it), and the one the search uses. A position in check has
    /// none, since the search never evaluates one.
    pub fn evaluations(&self) -> Vec<String> {
        if self.board.in_check() {
            return vec!["Final evaluation: none (in check)".to_string()];
        }
        let white =
            |score: i32| format!("{:+.2} (white side)", f64::from(score * self.board.side_to_move().sign()) / 100.0);
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
}
