//! EPD records (Extended Position Description, section 16.2 of the PGN standard), the format
//! of engine test suites: a position's first four FEN fields, then operations such as
//! `bm Qd1+;` (best move), `am e4;` (a move to avoid), `dm 3;` (mate in 3) and
//! `id "BK.01";`. Read leniently, as suites are found in the collections people download: a
//! full FEN's two counters may follow the four fields (or the first of them may be run into
//! the en passant field, `- -1 12`), an operation may be empty (`- - ; bm Qd1 + ;`), a move's
//! check mark may stand apart from it (`Qd1 +`), and the last operation may lack its
//! semicolon. Control characters (some collections end every line with a NUL byte) count as
//! spaces, and a byte-order mark at the start is ignored.

use crate::board::Board;
use std::fmt;

/// One EPD line: its position and its operations in order.
#[derive(Clone)]
pub struct EpdRecord {
    pub board: Board,
    /// Each operation's opcode and operands, quoted strings without their quotes.
    pub operations: Vec<(String, Vec<String>)>,
}

/// Why a line is not an EPD record.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EpdError(pub String);

impl fmt::Display for EpdError {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for EpdError {}

impl EpdRecord {
    pub fn parse(line: &str) -> Result<EpdRecord, EpdError> {
        let cleaned = clean(line);
        let mut rest = cleaned.trim();
        let mut fields = Vec::with_capacity(6);
        for _ in 0..4 {
            let (field, after) = next_word(rest);
            if field.is_empty() {
                return Err(EpdError("a position needs four fields: placement, side, castling, en passant".into()));
            }
            fields.push(field);
            rest = after;
        }
        // A FEN's counters, where the line has them: two whole numbers before the operations.
        // Some collections lose the space between the en passant field and the first of them
        // (`w - -1 12` for `w - - 1 12`).
        let number = |w: &str| !w.is_empty() && w.bytes().all(|b| b.is_ascii_digit());
        let (first, second) = match fields[3].strip_prefix('-').filter(|n| number(n)) {
            Some(halfmove) => {
                let (fullmove, after) = next_word(rest);
                fields[3] = "-";
                let fullmove = if number(fullmove) {
                    rest = after;
                    fullmove
                } else {
                    "1"
                };
                (halfmove, fullmove)
            }
            None => {
                let (first, after_first) = next_word(rest);
                let (second, after_second) = next_word(after_first);
                if number(first) && number(second) {
                    rest = after_second;
                    (first, second)
                } else {
                    ("", "")
                }
            }
        };
        let counters = !first.is_empty();
        let operations = parse_operations(rest)?;
        let operand = |opcode: &str| {
            operations.iter().find(|(op, _)| op == opcode).and_then(|(_, operands)| operands.first().cloned())
        };
        let (halfmove, fullmove) = match counters {
            true => (first.to_string(), second.to_string()),
            false => (operand("hmvc").unwrap_or_else(|| "0".into()), operand("fmvn").unwrap_or_else(|| "1".into())),
        };
        let fen = format!("{} {halfmove} {fullmove}", fields.join(" "));
        let board = Board::from_fen(&fen).map_err(|e| EpdError(e.to_string()))?;
        Ok(EpdRecord { board, operations })
    }

    /// The operands of the first operation named `opcode`.
    pub fn operands(&self, opcode: &str) -> Option<&[String]> {
        self.operations.iter().find(|(op, _)| op == opcode).map(|(_, operands)| operands.as_slice())
    }

    /// The moves of a move-list operation (`bm`, `am`, `pv`) as the collections write them:
    /// a check mark or annotation standing apart (`Qd1 +`, `Nf6 !`) belongs to the move before
    /// it, and commas separate moves as spaces do (`Nd5,a4`).
    pub fn moves(&self, opcode: &str) -> Vec<String> {
        let mut moves: Vec<String> = Vec::new();
        let words = self.operands(opcode).unwrap_or_default().iter().flat_map(|operand| operand.split([',', ' ']));
        for word in words.filter(|w| !w.is_empty()) {
            let annotation = word.chars().all(|c| matches!(c, '+' | '#' | '!' | '?'));
            match moves.last_mut() {
                Some(last) if annotation => last.push_str(word),
                _ => moves.push(word.to_string()),
            }
        }
        moves
    }
}

/// The line with a byte-order mark removed and control characters (NUL, CR, tab) as spaces.
fn clean(line: &str) -> String {
    line.trim_start_matches('\u{feff}').chars().map(|c| if c.is_control() { ' ' } else { c }).collect()
}

/// The first word of `text` and what follows it. A word of the position ends at a space or at
/// a semicolon, which some collections write straight after the move number (`c6 1 6; bm d5`).
fn next_word(text: &str) -> (&str, &str) {
    let text = text.trim_start();
    let end = text.find(|c: char| c.is_whitespace() || c == ';').unwrap_or(text.len());
    (&text[..end], &text[end..])
}

/// `opcode operand ...;` repeated. Operands are words or quoted strings (`\"` and `\\` inside
/// stand for themselves), which may hold spaces and semicolons.
fn parse_operations(text: &str) -> Result<Vec<(String, Vec<String>)>, EpdError> {
    let mut operations = Vec::new();
    let mut chars = text.chars().peekable();
    let mut current: Option<(String, Vec<String>)> = None;
    loop {
        while chars.next_if(|c| c.is_whitespace()).is_some() {}
        match chars.peek() {
            None => break,
            Some(';') => {
                chars.next();
                // An empty operation (`- - ; bm e4;`, `bm e4;;`) says nothing: skip it.
                operations.extend(current.take());
            }
            Some('"') => {
                chars.next();
                let mut operand = String::new();
                loop {
                    match chars.next() {
                        None => return Err(EpdError("a quoted operand has no closing quote".into())),
                        Some('"') => break,
                        Some('\\') if matches!(chars.peek(), Some('"' | '\\')) => operand.extend(chars.next()),
                        Some(c) => operand.push(c),
                    }
                }
                match current.as_mut() {
                    Some((_, operands)) => operands.push(operand),
                    None => return Err(EpdError(format!("quoted text \"{operand}\" where an opcode should be"))),
                }
            }
            Some(_) => {
                let mut word = String::new();
                while let Some(c) = chars.next_if(|c| !c.is_whitespace() && *c != ';') {
                    word.push(c);
                }
                match current.as_mut() {
                    Some((_, operands)) => operands.push(word),
                    None => {
                        let valid = word.chars().next().is_some_and(|c| c.is_ascii_alphabetic())
                            && word.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
                        if !valid {
                            return Err(EpdError(format!("'{word}' is not an opcode")));
                        }
                        current = Some((word, Vec::new()));
                    }
                }
            }
        }
    }
    operations.extend(current);
    Ok(operations)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_suite_lines() {
        let record =
            EpdRecord::parse("1k1r4/pp1b1R2/3q2pp/4p3/2B5/4Q3/PPP2B2/2K5 b - - bm Qd1+; id \"BK.01\";").unwrap();
        assert_eq!(record.board.to_fen(), "1k1r4/pp1b1R2/3q2pp/4p3/2B5/4Q3/PPP2B2/2K5 b - - 0 1");
        assert_eq!(record.operands("bm"), Some(&["Qd1+".to_string()][..]));
        assert_eq!(record.operands("id"), Some(&["BK.01".to_string()][..]));
        assert_eq!(record.operands("am"), None);

        // Counters, several moves, a quoted string with a semicolon and an escaped quote, no
        // final semicolon.
        let record = EpdRecord::parse(
            "r1b2rk1/2q1b1pp/p2ppn2/1p6/3QP3/1BN1B3/PPP3PP/R4RK1 w - - 3 17 bm Nd5 a4; c0 \"a; \\\"b\\\"\"; dm 2",
        )
        .unwrap();
        assert_eq!(record.board.fullmove_number(), 17);
        assert_eq!(record.operands("bm").unwrap(), ["Nd5", "a4"]);
        assert_eq!(record.operands("c0").unwrap(), ["a; \"b\""]);
        assert_eq!(record.operands("dm").unwrap(), ["2"]);
        let record = EpdRecord::parse("8/8/8/8/8/8/8/K6k w - - hmvc 7; fmvn 40;").unwrap();
        assert_eq!((record.board.halfmove_clock(), record.board.fullmove_number()), (7, 40));
    }

    #[test]
    fn reads_suites_as_collections_publish_them() {
        // Chess-EPDs' Bratko-Kopec: an empty operation first, a check mark apart, an id without
        // quotes, a NUL byte and a CR before the line's end.
        let record =
            EpdRecord::parse("1k1r4/pp1b1R2/3q2pp/4p3/2B5/4Q3/PPP2B2/2K5 b - - ; bm Qd1 + ; id BK.01\0\r").unwrap();
        assert_eq!(record.moves("bm"), ["Qd1+"]);
        assert_eq!(record.operands("id").unwrap(), ["BK.01"]);
        // Its Kaufman file runs the halfmove clock into the en passant field.
        let record =
            EpdRecord::parse("r1bqrnk1/pp2bp1p/2p2np1/3p2B1/3P4/2NBPN2/PPQ2PPP/1R3RK1 w - -1 12 ; bm b4\0").unwrap();
        assert_eq!(record.board.to_fen(), "r1bqrnk1/pp2bp1p/2p2np1/3p2B1/3P4/2NBPN2/PPQ2PPP/1R3RK1 w - - 1 12");
        assert_eq!(record.moves("bm"), ["b4"]);
        // And writes the semicolon straight after the move number.
        let record =
            EpdRecord::parse("rn1qkb1r/pb1p1ppp/1p2pn2/2p5/2PP4/5NP1/PP2PPBP/RNBQK2R w KQkq c6 1 6; bm d5\0").unwrap();
        assert_eq!((record.board.halfmove_clock(), record.board.fullmove_number()), (1, 6));
        assert_eq!(record.moves("bm"), ["d5"]);
        // Commas, several marks apart, an operation straight after a semicolon, doubled
        // semicolons, a byte-order mark.
        let record = EpdRecord::parse(
            "\u{feff}r1b2rk1/2q1b1pp/p2ppn2/1p6/3QP3/1BN1B3/PPP3PP/R4RK1 w - - bm Nd5 ! ,a4;;id \"x\";c0 \"y\"",
        )
        .unwrap();
        assert_eq!(record.moves("bm"), ["Nd5!", "a4"]);
        assert_eq!(record.operands("c0").unwrap(), ["y"]);
        assert!(record.moves("am").is_empty());
    }

    #[test]
    fn bad_lines_say_why() {
        let error = |line: &str| EpdRecord::parse(line).err().unwrap().0;
        assert!(error("8/8/8/8 w").starts_with("a position needs four fields"));
        assert!(error("8/8/8/8/8/8/8/8 w - - bm e4;").contains("FEN"), "{}", error("8/8/8/8/8/8/8/8 w - - bm e4;"));
        assert_eq!(error("4k3/8/8/8/8/8/8/4K3 w - - bm e4; id \"open"), "a quoted operand has no closing quote");
        assert_eq!(error("4k3/8/8/8/8/8/8/4K3 w - - +bm e4;"), "'+bm' is not an opcode");
    }
}
