//! EPD records (Extended Position Description, section 16.2 of the PGN standard), the format
//! of engine test suites: a position's first four FEN fields, then operations such as
//! `bm Qd1+;` (best move), `am e4;` (a move to avoid), `dm 3;` (mate in 3) and
//! `id "BK.01";`. Read leniently, as suites are found: a full FEN's two counters may follow
//! the four fields, and the last operation may lack its semicolon.

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
        let mut rest = line.trim();
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
        let (first, after_first) = next_word(rest);
        let (second, after_second) = next_word(after_first);
        let counters = [first, second].iter().all(|w| !w.is_empty() && w.bytes().all(|b| b.is_ascii_digit()));
        if counters {
            rest = after_second;
        }
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
}

/// The first whitespace-separated word of `text` and what follows it.
fn next_word(text: &str) -> (&str, &str) {
    let text = text.trim_start();
    let end = text.find(char::is_whitespace).unwrap_or(text.len());
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
                match current.take() {
                    Some(operation) => operations.push(operation),
                    None => return Err(EpdError("';' without an operation before it".into())),
                }
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
    fn bad_lines_say_why() {
        let error = |line: &str| EpdRecord::parse(line).err().unwrap().0;
        assert!(error("8/8/8/8 w").starts_with("a position needs four fields"));
        assert!(error("8/8/8/8/8/8/8/8 w - - bm e4;").contains("FEN"), "{}", error("8/8/8/8/8/8/8/8 w - - bm e4;"));
        assert_eq!(error("4k3/8/8/8/8/8/8/4K3 w - - bm e4; id \"open"), "a quoted operand has no closing quote");
        assert_eq!(error("4k3/8/8/8/8/8/8/4K3 w - - ; bm e4;"), "';' without an operation before it");
        assert_eq!(error("4k3/8/8/8/8/8/8/4K3 w - - +bm e4;"), "'+bm' is not an opcode");
    }
}
