//! Fuzz targets: everything a user or a file controls, fed arbitrary bytes. `sentinel fuzz
//! TARGET` (built with the `fuzz` feature) runs one target on the bytes of stdin, which is
//! what AFL++ drives (`fuzz/run.sh` builds with `cargo afl build` and runs each target for a
//! given time). A target passes by returning: any panic is a bug, and abort turns it into the
//! crash the fuzzer records. Each target also checks what must hold for good input (a FEN
//! written back reads the same, a game written as PGN reads back as the same game).

use crate::board::Board;
use crate::engine::book::Book;
use crate::eval::nnue::{Accumulator, Net, Network, Simd};
use crate::movegen::{legal_moves, parse_move};
use crate::notation::{pgn, san};
use crate::perft;
use crate::protocol::{self, Event};
use std::sync::mpsc;

#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Target {
    /// FEN parsing (standard and Chess960), then the position's moves and notation.
    Fen,
    /// A FEN line, then words read as coordinate moves and as SAN, played when legal.
    Moves,
    /// Lines of UCI against a live engine (searches run, and are stopped at the end).
    Uci,
    /// Lines of XBoard against a live engine.
    Xboard,
    /// Lines of a perft suite (`FEN ;D1 n ...`).
    Epd,
    /// A PGN file, its games written back and read again.
    Pgn,
    /// A Polyglot book file, probed in the positions it is most likely to hold.
    Book,
    /// A network file, evaluating a few positions when it loads.
    Network,
    /// A server request's body or query string, read as every kind of request and checked.
    #[cfg(feature = "serve")]
    Serve,
}

/// Runs `target` on `input`.
pub fn run(target: Target, input: &[u8]) {
    let text = String::from_utf8_lossy(input);
    match target {
        Target::Fen => fen(&text),
        Target::Moves => moves(&text),
        Target::Uci => session("uci", &text),
        Target::Xboard => session("xboard", &text),
        Target::Epd => epd(&text),
        Target::Pgn => pgn_file(&text),
        Target::Book => book(input),
        Target::Network => network(input),
        #[cfg(feature = "serve")]
        Target::Serve => crate::serve::fuzz_request(input),
    }
}

fn fen(text: &str) {
    for chess960 in [false, true] {
        let Ok(mut board) = Board::parse_fen(text, chess960) else { continue };
        let written = board.to_fen();
        let again = Board::parse_fen(&written, chess960).expect("a FEN the board wrote reads back");
        assert_eq!(again.to_fen(), written, "a FEN read back writes the same");
        for mv in legal_moves(&board).iter() {
            let text = san::to_san(&board, mv);
            assert_eq!(san::parse_san(&board, &text), Ok(mv), "SAN {text} reads back in {written}");
            assert_eq!(parse_move(&board, &board.move_text(mv, chess960)), Some(mv));
        }
        perft::perft(&mut board, 2);
    }
}

fn moves(text: &str) {
    let mut lines = text.lines();
    let Some(Ok(mut board)) = lines.next().map(|fen| Board::parse_fen(fen, false)) else { return };
    for word in lines.flat_map(str::split_whitespace) {
        let mv = parse_move(&board, word).or_else(|| san::parse_move_text(&board, word).ok());
        if let Some(mv) = mv {
            assert!(legal_moves(&board).iter().any(|legal| legal == mv), "{word} is legal in {}", board.to_fen());
            board.make_move(mv);
        }
    }
}

/// Commands that would make one run take minutes or gigabytes, which a fuzzer reports as a
/// hang rather than a bug: deep perfts and benches, huge tables, many threads, and the
/// options that read files (the loaders have targets of their own).
fn too_slow(line: &str) -> bool {
    let words: Vec<&str> = line.split_whitespace().collect();
    let number_over = |limit: i64| words.iter().any(|w| w.parse::<i64>().is_ok_and(|n| n > limit));
    match words.first().copied() {
        Some("bench") | Some("memory") | Some("cores") | Some("egtpath") => true,
        Some("go") => words.contains(&"perft") && number_over(3),
        Some("setoption") | Some("option") => {
            let lower = line.to_ascii_lowercase();
            ["file", "path", "hash", "threads"].iter().any(|name| lower.contains(name))
        }
        _ => false,
    }
}

/// A protocol session: the opening command, then the input's lines, then the end of input,
/// through the same loop that serves stdin.
fn session(protocol: &str, text: &str) {
    let (sender, events) = mpsc::channel();
    let mut lines = vec![protocol.to_string()];
    lines.extend(text.lines().filter(|line| !too_slow(line)).map(str::to_string));
    for line in lines {
        let _ = sender.send(Event::Line(line));
    }
    let _ = sender.send(Event::InputClosed);
    protocol::serve_events(sender, &events);
}

fn epd(text: &str) {
    for line in text.lines() {
        let Ok(Some(entry)) = perft::parse_suite_line(line) else { continue };
        let chess960 = perft::names_rook_files(&entry.fen);
        if let Ok(mut board) = Board::parse_fen(&entry.fen, chess960) {
            perft::perft(&mut board, entry.counts.iter().map(|&(d, _)| d).min().unwrap_or(1).min(2));
        }
    }
}

fn pgn_file(text: &str) {
    let Ok(games) = pgn::parse_pgn(text) else { return };
    for game in games {
        let written = pgn::write_pgn(&game);
        let again = pgn::parse_pgn(&written).expect("a game written as PGN reads back");
        assert_eq!(again.len(), 1, "one game written, one read:\n{written}");
        assert_eq!(again[0].moves, game.moves, "the same moves:\n{written}");
        let _ = game.final_board();
    }
}

fn book(input: &[u8]) {
    let Ok(book) = Book::from_bytes(input.to_vec()) else { return };
    let mut board = Board::start_position();
    let mut rng = <rand::rngs::StdRng as rand::SeedableRng>::seed_from_u64(1);
    // Follow the book's own moves, as the engine would in a game.
    for _ in 0..8 {
        let moves = book.entries(&board);
        for &(mv, _) in &moves {
            assert!(legal_moves(&board).iter().any(|legal| legal == mv), "book moves are legal");
        }
        let Some(mv) = book.pick(&board, &mut rng) else { break };
        board.make_move(mv);
    }
}

fn network(input: &[u8]) {
    let Ok(net) = Network::from_bytes(input) else { return };
    for fen in &crate::bench::POSITIONS[..4] {
        let board = Board::from_fen(fen).expect("bench positions are valid");
        let from_scratch = net.evaluate(&board);
        let (stm, bucket) = (board.side_to_move(), Net::output_bucket(&board));
        let accumulated = Accumulator::new(&net, &board).evaluate(&net, stm, bucket, Simd::current());
        assert_eq!(from_scratch, accumulated, "both ways of evaluating agree");
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every target takes the empty input and a few bytes of noise.
    #[test]
    fn targets_take_empty_and_noisy_input() {
        use clap::ValueEnum;
        for &target in Target::value_variants() {
            run(target, b"");
            run(target, b"\xff\x00 \n\n e2e4 ;D1 1 [\"");
        }
    }

    #[test]
    fn slow_commands_are_left_out() {
        for line in ["go perft 6", "bench 20", "setoption name Hash value 60000", "option EvalFile=/dev/zero"] {
            assert!(too_slow(line), "{line}");
        }
        for line in ["go perft 3", "go depth 5", "setoption name MultiPV value 3", "position startpos"] {
            assert!(!too_slow(line), "{line}");
        }
    }
}
