//! Training positions on disk: 32 bytes per position, behind a versioned header.
//!
//! Network training reads tens of millions of positions many times over; as FEN text they would
//! take three times the space and most of the training time would go to parsing. A record holds
//! what the network and the loss need (the pieces, the side to move, the search score and the
//! game result) plus the rest of the FEN state, so a record converts back to a full position.
//!
//! Layout (little-endian): the header is the magic `SNTLPOS\0`, the format version (u32) and
//! the record size (u32). Each record is the occupied squares as a 64-bit set (a1 = bit 0),
//! the pieces of those squares in ascending order as 4-bit codes (`Piece::index`, low nibble
//! first, 16 bytes for up to 32 pieces), the score in centipawns from White's side (i16), the
//! result from White's side (0 loss, 1 draw, 2 win), castling rights (the low four bits, as
//! `board::castle`) with bit 7 set when Black is to move, the en passant square (0..63, or 255
//! for none), the halfmove clock (capped at 255) and the fullmove number (u16).

use crate::board::{Board, Color, FenError, Piece, PieceKind, Square};
use crate::rules::GameResult;
use std::io::{Read, Write};

pub const MAGIC: &[u8; 8] = b"SNTLPOS\0";
pub const VERSION: u32 = 1;
pub const RECORD_SIZE: usize = 32;
pub const HEADER_SIZE: usize = 16;
const NO_SQUARE: u8 = 255;

/// One training position in its packed form.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct Record([u8; RECORD_SIZE]);

impl Record {
    /// Packs a position with its search score (from White's side) and the game's result.
    pub fn pack(board: &Board, white_score: i16, outcome: GameResult) -> Record {
        let mut bytes = [0u8; RECORD_SIZE];
        let mut occupied = 0u64;
        let mut slot = 0;
        for (i, sq) in Square::all().enumerate() {
            let piece = board.piece_at(sq);
            if piece.is_empty() {
                continue;
            }
            occupied |= 1 << i;
            bytes[8 + slot / 2] |= (piece.index() as u8) << (4 * (slot % 2));
            slot += 1;
        }
        bytes[..8].copy_from_slice(&occupied.to_le_bytes());
        bytes[24..26].copy_from_slice(&white_score.to_le_bytes());
        bytes[26] = result_byte(outcome);
        bytes[27] = board.castling_rights() | if board.side_to_move() == Color::Black { 0x80 } else { 0 };
        bytes[28] = board.en_passant().map_or(NO_SQUARE, |sq| sq.index64() as u8);
        bytes[29] = board.halfmove_clock().min(255) as u8;
        bytes[30..32].copy_from_slice(&board.fullmove_number().to_le_bytes());
        Record(bytes)
    }

    /// The same position and score with another result.
    pub fn with_outcome(mut self, outcome: GameResult) -> Record {
        self.0[26] = result_byte(outcome);
        self
    }

    pub fn bytes(&self) -> &[u8; RECORD_SIZE] {
        &self.0
    }

    /// Checks what a reader must not trust: piece codes, piece count, kings, the result.
    fn validate(bytes: [u8; RECORD_SIZE]) -> Result<Record, String> {
        let record = Record(bytes);
        let occupied = record.occupied();
        if occupied.count_ones() > 32 {
            return Err(format!("{} pieces (at most 32)", occupied.count_ones()));
        }
        let mut kings = [0; 2];
        for slot in 0..occupied.count_ones() as usize {
            let code = (bytes[8 + slot / 2] >> (4 * (slot % 2))) & 15;
            if code & 7 == 0 || code & 7 == 7 {
                return Err(format!("bad piece code {code}"));
            }
            let piece = piece_from_code(code);
            if piece.is_kind(PieceKind::King) {
                kings[piece.color().index()] += 1;
            }
        }
        if kings != [1, 1] {
            return Err("not exactly one king per side".to_string());
        }
        if bytes[26] > 2 {
            return Err(format!("bad result {}", bytes[26]));
        }
        if bytes[28] != NO_SQUARE && bytes[28] >= 64 {
            return Err(format!("bad en passant square {}", bytes[28]));
        }
        Ok(record)
    }

    /// The occupied squares and their pieces, a1 first.
    pub fn pieces(&self) -> impl Iterator<Item = (Square, Piece)> + '_ {
        let mut occupied = self.occupied();
        let mut slot = 0;
        std::iter::from_fn(move || {
            if occupied == 0 || slot >= 32 {
                return None;
            }
            let index = occupied.trailing_zeros() as usize;
            occupied &= occupied - 1;
            let code = (self.0[8 + slot / 2] >> (4 * (slot % 2))) & 15;
            slot += 1;
            Some((Square::from_index64(index), piece_from_code(code)))
        })
    }

    /// Whether `self` cannot come later in the same game as `earlier`: it has more pieces or
    /// an earlier move number. Datagen writes a game's positions one after another, so this
    /// finds where one game ends and the next begins.
    pub fn starts_a_game_after(&self, earlier: &Record) -> bool {
        self.piece_count() > earlier.piece_count() || self.fullmove() < earlier.fullmove()
    }

    /// Pieces on the board, kings included.
    pub fn piece_count(&self) -> usize {
        self.occupied().count_ones() as usize
    }

    /// The occupied squares, a1 = bit 0.
    fn occupied(&self) -> u64 {
        u64::from_le_bytes(self.0[..8].try_into().unwrap_or_default())
    }

    fn fullmove(&self) -> u16 {
        u16::from_le_bytes([self.0[30], self.0[31]])
    }

    /// Castling rights, as `board::castle` bits.
    pub fn castling_rights(&self) -> u8 {
        self.0[27] & 0x0f
    }

    pub fn side_to_move(&self) -> Color {
        if self.0[27] & 0x80 != 0 { Color::Black } else { Color::White }
    }

    /// The search's score in centipawns, from White's side.
    pub fn white_score(&self) -> i16 {
        i16::from_le_bytes([self.0[24], self.0[25]])
    }

    pub fn outcome(&self) -> GameResult {
        match self.0[26] {
            0 => GameResult::BlackWins,
            2 => GameResult::WhiteWins,
            _ => GameResult::Draw,
        }
    }

    /// The position as FEN, for looking at a record or rebuilding a `Board`.
    pub fn to_fen(self) -> String {
        let mut grid = [None; 64];
        for (sq, piece) in self.pieces() {
            grid[sq.index64()] = Some(piece);
        }
        let mut fen = String::new();
        for rank in (0..8).rev() {
            let mut empty = 0;
            for file in 0..8 {
                match grid[rank * 8 + file] {
                    None => empty += 1,
                    Some(piece) => {
                        if empty > 0 {
                            fen.push_str(&empty.to_string());
                            empty = 0;
                        }
                        fen.push(piece.letter());
                    }
                }
            }
            if empty > 0 {
                fen.push_str(&empty.to_string());
            }
            if rank > 0 {
                fen.push('/');
            }
        }
        fen.push_str(if self.side_to_move() == Color::White { " w " } else { " b " });
        let rights = self.castling_rights();
        let castling: String =
            "KQkq".chars().enumerate().filter(|(i, _)| rights & (1 << i) != 0).map(|(_, c)| c).collect();
        fen.push_str(if castling.is_empty() { "-" } else { &castling });
        match self.0[28] {
            NO_SQUARE => fen.push_str(" -"),
            sq => fen.push_str(&format!(" {}", Square::from_index64(sq as usize))),
        }
        fen.push_str(&format!(" {} {}", self.0[29], self.fullmove()));
        fen
    }

    /// The position as a board, through its FEN.
    pub fn to_board(self) -> Result<Board, FenError> {
        Board::from_fen(&self.to_fen())
    }
}

fn result_byte(result: GameResult) -> u8 {
    match result {
        GameResult::BlackWins => 0,
        GameResult::Draw => 1,
        GameResult::WhiteWins => 2,
    }
}

fn piece_from_code(code: u8) -> Piece {
    let color = if code & 8 != 0 { Color::Black } else { Color::White };
    let kind = PieceKind::ALL[((code & 7) as usize).wrapping_sub(1) % 6];
    Piece::new(color, kind)
}

/// Writes the header that starts every file.
pub fn write_header(out: &mut impl Write) -> std::io::Result<()> {
    out.write_all(MAGIC)?;
    out.write_all(&VERSION.to_le_bytes())?;
    out.write_all(&(RECORD_SIZE as u32).to_le_bytes())
}

/// Checks a file's header; the error says what is wrong.
pub fn check_header(header: &[u8]) -> Result<(), String> {
    if header.len() < HEADER_SIZE {
        return Err(format!("file too short for a header ({} bytes)", header.len()));
    }
    if &header[..8] != MAGIC {
        return Err("not a Sentinel training file (bad magic)".to_string());
    }
    let version = u32::from_le_bytes([header[8], header[9], header[10], header[11]]);
    let size = u32::from_le_bytes([header[12], header[13], header[14], header[15]]);
    if version != VERSION || size as usize != RECORD_SIZE {
        return Err(format!("format version {version} with {size}-byte records; this build reads version {VERSION}"));
    }
    Ok(())
}

/// Reads every record of a file (see `read_each`).
#[cfg(test)]
pub fn read_all(reader: &mut impl Read) -> (Vec<Record>, Option<String>) {
    let mut records = Vec::new();
    let error = read_each(reader, |record| records.push(record));
    (records, error)
}

/// Hands every record of a file to `take`, in order, without holding the file in memory. A
/// broken record or a truncated tail stops the reading with an error that gives the byte
/// offset; the records before it have been handed over, so nothing before the damage is lost.
pub fn read_each(reader: &mut impl Read, mut take: impl FnMut(Record)) -> Option<String> {
    let mut header = [0u8; HEADER_SIZE];
    let got = match read_up_to(reader, &mut header) {
        Ok(n) => n,
        Err(e) => return Some(format!("cannot read: {e}")),
    };
    if let Err(e) = check_header(&header[..got]) {
        return Some(format!("offset 0: {e}"));
    }
    let mut offset = HEADER_SIZE as u64;
    loop {
        let mut bytes = [0u8; RECORD_SIZE];
        match read_up_to(reader, &mut bytes) {
            Ok(0) => return None,
            Ok(n) if n < RECORD_SIZE => {
                return Some(format!("offset {offset}: truncated record ({n} of {RECORD_SIZE} bytes)"));
            }
            Ok(_) => match Record::validate(bytes) {
                Ok(record) => take(record),
                Err(e) => return Some(format!("offset {offset}: {e}")),
            },
            Err(e) => return Some(format!("offset {offset}: cannot read: {e}")),
        }
        offset += RECORD_SIZE as u64;
    }
}

/// Fills `buffer` unless the input ends first; returns how many bytes were read.
fn read_up_to(reader: &mut impl Read, buffer: &mut [u8]) -> std::io::Result<usize> {
    let mut filled = 0;
    while filled < buffer.len() {
        match reader.read(&mut buffer[filled..]) {
            Ok(0) => break,
            Ok(n) => filled += n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(filled)
}

#[cfg(test)]
mod tests {
    use super::*;

    const FENS: [&str; 4] = [
        "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
        "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
        "rnbqkbnr/ppp1p1pp/8/3pPp2/8/8/PPPP1PPP/RNBQKBNR w KQkq f6 0 3",
        "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 b - - 17 61",
    ];

    /// Within a game neither the piece count grows nor the move number falls; a new game from
    /// an opening has more pieces or an earlier move number than the last game's end.
    #[test]
    fn game_starts_are_found_between_consecutive_records() {
        let record = |fen: &str| Record::pack(&Board::from_fen(fen).unwrap(), 0, GameResult::Draw);
        let middlegame = record("r1bq1rk1/ppp2ppp/2np1n2/4p3/2B1P3/2NP1N2/PPP2PPP/R2Q1RK1 b - - 0 9");
        let later_capture = record("r1bq1rk1/ppp2ppp/3p1n2/4p3/2B1P3/2NP1N2/PPP2PPP/R2Q1RK1 w - - 0 10");
        let same_move_fewer = record("r1bq1rk1/ppp2ppp/3p1n2/4p3/2B1P3/2NP1N2/PPP2PPP/R2Q1RK1 b - - 0 9");
        assert!(!later_capture.starts_a_game_after(&middlegame));
        assert!(!same_move_fewer.starts_a_game_after(&middlegame));
        // The next opening: more pieces, or (a short game's end) an earlier move number.
        assert!(middlegame.starts_a_game_after(&later_capture));
        let opening = record(FENS[0]);
        assert!(opening.starts_a_game_after(&middlegame));
        let endgame = record(FENS[3]);
        let short_game_end = record("8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 70");
        assert!(endgame.starts_a_game_after(&short_game_end));
        assert!(!short_game_end.starts_a_game_after(&endgame));
    }

    #[test]
    fn records_round_trip_through_fen_and_bytes() {
        let mut file = Vec::new();
        write_header(&mut file).unwrap();
        for (i, fen) in FENS.iter().enumerate() {
            let board = Board::from_fen(fen).unwrap();
            let record = Record::pack(&board, -1234 + i as i16, GameResult::Draw);
            assert_eq!(record.to_fen(), *fen);
            assert_eq!(record.white_score(), -1234 + i as i16);
            assert_eq!(record.outcome(), GameResult::Draw);
            assert_eq!(record.side_to_move(), board.side_to_move());
            file.extend_from_slice(record.bytes());
        }
        let (records, error) = read_all(&mut file.as_slice());
        assert_eq!(error, None);
        assert_eq!(records.iter().map(|r| r.to_fen()).collect::<Vec<_>>(), FENS);
    }

    #[test]
    fn damaged_files_report_the_offset_and_keep_what_came_before() {
        let mut file = Vec::new();
        write_header(&mut file).unwrap();
        let board = Board::start_position();
        for _ in 0..3 {
            file.extend_from_slice(Record::pack(&board, 0, GameResult::WhiteWins).bytes());
        }
        let truncated = &file[..file.len() - 5];
        let (records, error) = read_all(&mut &truncated[..]);
        assert_eq!(records.len(), 2);
        assert_eq!(error.unwrap(), "offset 80: truncated record (27 of 32 bytes)");

        let mut broken = file.clone();
        broken[HEADER_SIZE + RECORD_SIZE + 8] = 0x77; // piece code 7 is no piece
        let (records, error) = read_all(&mut broken.as_slice());
        assert_eq!(records.len(), 1);
        assert_eq!(error.unwrap(), "offset 48: bad piece code 7");

        let mut old = file.clone();
        old[8] = 9;
        let (records, error) = read_all(&mut old.as_slice());
        assert!(records.is_empty());
        assert!(error.unwrap().contains("version 9"));
        assert!(read_all(&mut &b"SNTL"[..]).1.unwrap().contains("too short"));
        assert!(read_all(&mut &b"PK\x03\x04 not ours at all"[..]).1.unwrap().contains("bad magic"));
    }
}
