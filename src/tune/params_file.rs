//! Writes the weight table as the source of `src/eval/params.rs`: a header, then each term's
//! name as a comment followed by its weights, eight to a line.

use crate::eval::{S, Term, WEIGHT_COUNT};

const HEADER: &str = "\
//! The evaluation weights, in the order of `Term` (see `weights.rs`), as (middlegame,
//! endgame) pairs in centipawns. Written by the tuner (`sentinel tune`, see the README).

use super::score::S;

#[rustfmt::skip]
pub static WEIGHTS: &[S] = &[
";

const PER_LINE: usize = 8;

pub fn render(weights: &[S]) -> String {
    assert_eq!(weights.len(), WEIGHT_COUNT);
    let mut text = String::from(HEADER);
    for (&term, name) in Term::ALL.iter().zip(Term::NAMES) {
        text.push_str(&format!("    // {name}\n"));
        let values = &weights[term.offset()..term.offset() + term.len()];
        for line in values.chunks(PER_LINE) {
            let items: Vec<String> = line.iter().map(|w| format!("S({}, {}),", w.mg(), w.eg())).collect();
            text.push_str(&format!("    {}\n", items.join(" ")));
        }
    }
    text.push_str("];\n");
    text
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::eval::WEIGHTS;

    /// Writing the weights the engine was built with gives back their file byte for byte, so
    /// a tuning run changes exactly the values it moved.
    #[test]
    fn rendering_the_current_weights_reproduces_params_rs() {
        assert_eq!(render(WEIGHTS), include_str!("../eval/params.rs"));
    }
}
