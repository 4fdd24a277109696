//! Perft: counting the leaves of the legal move tree, the standard test of a move generator.

use crate::board::Board;
use crate::movegen::{MoveList, count_legal_moves, generate, kind, legal_moves};

/// Leaf nodes at `depth`. The last ply is counted, not played: the generator emits only legal
/// moves, so their number is exact.
pub fn perft(board: &mut Board, depth: u32) -> u64 {
    #[cfg(target_arch = "x86_64")]
    if std::arch::is_x86_feature_detected!("popcnt") {
        // SAFETY: the processor has POPCNT, checked just above.
        return unsafe { perft_popcnt(board, depth) };
    }
    perft_portable(board, depth)
}

/// Defines the recursion of `perft` under the name given, with the attributes given: it is
/// compiled twice on x86-64, once with the POPCNT instruction for counting the squares of a
/// set (what counting the last ply's moves mostly is), and once without it, for the
/// processors that lack it.
macro_rules! perft_recursion {
    ($(#[$attribute:meta])* $name:ident) => {
        $(#[$attribute])*
        fn $name(board: &mut Board, depth: u32) -> u64 {
            if depth == 0 {
                return 1;
            }
            if depth == 1 {
                return count_legal_moves(board) as u64;
            }
            // Filled in place rather than returned by `legal_moves`, which copies the list.
            let mut moves = MoveList::new();
            generate::<{ kind::ALL }, _>(board, &mut moves);
            let mut nodes = 0;
            for mv in moves.iter() {
                board.make_move(mv);
                nodes += $name(board, depth - 1);
                board.unmake_move();
            }
            nodes
        }
    };
}

perft_recursion!(perft_portable);
perft_recursion!(
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "popcnt")]
    perft_popcnt
);

/// Leaf counts below each root move, by move text (castling in Chess960 form with
/// `chess960`), sorted by that text, for comparing with another engine.
pub fn divide(board: &mut Board, depth: u32, chess960: bool) -> Vec<(String, u64)> {
    let mut counts: Vec<(String, u64)> = legal_moves(board)
        .iter()
        .map(|mv| {
            let text = board.move_text(mv, chess960);
            board.make_move(mv);
            let nodes = perft(board, depth.saturating_sub(1));
            board.unmake_move();
            (text, nodes)
        })
        .collect();
    counts.sort();
    counts
}

/// Whether a FEN's castling field names rook files (Shredder-FEN, `HAha`), which only Chess960
/// needs.
pub fn names_rook_files(fen: &str) -> bool {
    fen.split_whitespace().nth(2).is_some_and(|field| field.chars().any(|c| matches!(c, 'a'..='h' | 'A'..='H')))
}

/// One line of a perft suite: `FEN ;D1 20 ;D2 400 ...`.
#[derive(Debug, PartialEq)]
pub struct SuiteEntry {
    pub fen: String,
    pub counts: Vec<(u32, u64)>,
}

/// Every position of the standard, random and Chess960 suites: a varied set that tests of
/// the evaluation run over.
#[cfg(test)]
pub fn suite_boards() -> Vec<Board> {
    [include_str!("../perft/standard.epd"), include_str!("../perft/random.epd"), include_str!("../perft/chess960.epd")]
        .iter()
        .flat_map(|suite| suite.lines())
        .filter_map(|line| parse_suite_line(line).unwrap())
        .map(|entry| Board::from_fen(&entry.fen).unwrap())
        .collect()
}

/// The deepest perft counted: far beyond what finishes in a day, so a bad number in a
/// suite or on the command line is refused rather than run for ever.
pub const MAX_DEPTH: u32 = 20;

/// Parses a suite line; blank lines and `#` comments give `None`.
pub fn parse_suite_line(line: &str) -> Result<Option<SuiteEntry>, String> {
    let line = line.trim();
    if line.is_empty() || line.starts_with('#') {
        return Ok(None);
    }
    let mut parts = line.split(';');
    let fen = parts.next().unwrap_or_default().trim().to_string();
    let mut counts = Vec::new();
    for part in parts {
        let part = part.trim();
        let parsed = part
            .strip_prefix('D')
            .and_then(|rest| rest.split_once(char::is_whitespace))
            .and_then(|(d, n)| Some((d.parse::<u32>().ok()?, n.trim().parse::<u64>().ok()?)));
        match parsed {
            Some(entry @ (1..=MAX_DEPTH, _)) => counts.push(entry),
            Some((depth, _)) => return Err(format!("depth {depth} is not from 1 to {MAX_DEPTH}")),
            None => {
                let part = crate::quote::excerpt(part, crate::quote::QUOTE_LIMIT);
                return Err(format!("'{part}' is not of the form 'D<depth> <count>'"));
            }
        }
    }
    if counts.is_empty() {
        return Err("no ';D<depth> <count>' fields".to_string());
    }
    Ok(Some(SuiteEntry { fen, counts }))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::board::{Color, PieceKind};

    #[test]
    fn suite_lines_parse() {
        let entry = parse_suite_line("8/8/8/4k3/8/8/8/4K3 w - - 0 1 ;D1 5 ;D2 25").unwrap().unwrap();
        assert_eq!(entry.fen, "8/8/8/4k3/8/8/8/4K3 w - - 0 1");
        assert_eq!(entry.counts, vec![(1, 5), (2, 25)]);
        assert_eq!(parse_suite_line("  # comment"), Ok(None));
        assert!(parse_suite_line("fen ;D1 x").is_err());
        assert!(parse_suite_line("fen only").is_err());
        assert!(parse_suite_line("fen ;D0 1").is_err());
        assert!(parse_suite_line("fen ;D4294967295 1").is_err());
    }

    /// Both compilations of the recursion count the same trees: the one with POPCNT that this
    /// machine runs, and the one for processors without it, which it would not otherwise run.
    #[test]
    fn both_compilations_count_alike() {
        for (fen, depth, nodes) in [
            (crate::board::START_FEN, 4, 197_281),
            ("r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1", 3, 97_862),
            ("8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1", 5, 674_624),
        ] {
            let mut board = Board::from_fen(fen).unwrap();
            assert_eq!(perft_portable(&mut board, depth), nodes, "{fen}");
            assert_eq!(perft(&mut board, depth), nodes, "{fen}");
        }
    }

    /// Counting the moves (the last ply of perft: sets of targets, no moves made) gives the
    /// number the generator lists, in every position of the suites and one move after them.
    #[test]
    fn counted_moves_are_the_listed_ones() {
        let mut positions = 0;
        for mut board in suite_boards() {
            for mv in legal_moves(&board).iter() {
                board.make_move(mv);
                assert_eq!(count_legal_moves(&board), legal_moves(&board).len(), "{}", board.to_fen());
                positions += 1;
                board.unmake_move();
            }
        }
        assert!(positions > 3000, "{positions} positions");
    }

    /// Keys, and the square sets beside the mailbox, must follow the moves exactly: a key
    /// computed incrementally through make and unmake
    /// equals the one computed from scratch, at every node of a tree rich in special moves.
    #[test]
    fn incremental_key_matches_recomputed_key() {
        fn walk(board: &mut Board, depth: u32) {
            let fresh = Board::from_fen(&board.to_fen()).unwrap();
            assert_eq!(board.key(), fresh.key(), "{}", board.to_fen());
            assert_eq!(board.pawn_key(), fresh.pawn_key(), "{}", board.to_fen());
            for color in Color::BOTH {
                assert_eq!(board.non_pawn_key(color), fresh.non_pawn_key(color), "{}", board.to_fen());
                assert_eq!(board.occupied_by(color), fresh.occupied_by(color), "{}", board.to_fen());
                for kind in PieceKind::ALL {
                    assert_eq!(board.piece_set(color, kind), fresh.piece_set(color, kind), "{}", board.to_fen());
                }
            }
            if depth == 0 {
                return;
            }
            for mv in legal_moves(board).iter() {
                let fen = board.to_fen();
                board.make_move(mv);
                walk(board, depth - 1);
                board.unmake_move();
                assert_eq!(board.to_fen(), fen);
            }
        }
        for fen in [
            "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
            "r3k2r/Pppp1ppp/1b3nbN/nP6/BBP1P3/q4N2/Pp1P2PP/R2Q1RK1 w kq - 0 1",
            "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1",
            "r2knrbb/2pp1ppp/n7/pp6/P1P1pP2/1N3Q1P/3PP1P1/Rq3RKB w fa - 3 13",
        ] {
            walk(&mut Board::from_fen(fen).unwrap(), 3);
        }
    }
}
