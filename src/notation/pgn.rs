//! PGN game records, read as they come from databases, other programs and hand editing, and
//! written in the standard's export format so other tools take them.
//!
//! Reading keeps what a game is (tags, start position, moves, result) and the comments of its
//! main line, which a game review writes back beside its own; it skips NAGs, annotation
//! suffixes, `%` escape lines and variations. Variations are skipped by counting brackets, not
//! by recursion, so no nesting depth can overflow the stack. Moves are read with
//! `san::parse_move_text`, so the leniency documented there applies (coordinate moves
//! included). A game that cannot be read gives an error with its line and column; games before
//! it have been returned already by `PgnReader`, or are dropped by `parse_pgn`, and
//! `PgnReader::recovering` goes on with the next game.

use super::san::{counters_full, parse_move_text, san_with};
use crate::board::{Board, Color, Move, START_FEN};
use crate::movegen::legal_moves;
use std::fmt;

/// How a game ended, as the result token says.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PgnResult {
    WhiteWins,
    BlackWins,
    Draw,
    /// `*`: still going, abandoned, or not known.
    Unknown,
}

impl PgnResult {
    pub fn as_str(self) -> &'static str {
        match self {
            PgnResult::WhiteWins => "1-0",
            PgnResult::BlackWins => "0-1",
            PgnResult::Draw => "1/2-1/2",
            PgnResult::Unknown => "*",
        }
    }

    pub fn parse(text: &str) -> Option<PgnResult> {
        [PgnResult::WhiteWins, PgnResult::BlackWins, PgnResult::Draw, PgnResult::Unknown]
            .into_iter()
            .find(|r| r.as_str() == text)
    }
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PgnGame {
    /// Tag pairs in the order read. `FEN` and `SetUp` are not kept here: `start_fen` is.
    pub tags: Vec<(String, String)>,
    /// The start position, as the board writes FEN.
    pub start_fen: String,
    pub moves: Vec<Move>,
    pub result: PgnResult,
    /// The comments of the main line, each with the number of moves before it (0: before the
    /// first move), its whitespace collapsed to single spaces. `;` comments count too; those
    /// inside variations go with them.
    pub comments: Vec<(usize, String)>,
}

impl Default for PgnGame {
    fn default() -> PgnGame {
        PgnGame {
            tags: Vec::new(),
            start_fen: START_FEN.to_string(),
            moves: Vec::new(),
            result: PgnResult::Unknown,
            comments: Vec::new(),
        }
    }
}

impl PgnGame {
    /// The value of the first tag called `name`.
    pub fn tag(&self, name: &str) -> Option<&str> {
        self.tags.iter().find(|(n, _)| n == name).map(|(_, value)| value.as_str())
    }

    /// The position after the moves, or None if the start position or a move is not legal.
    #[cfg(any(test, feature = "fuzz"))]
    pub fn final_board(&self) -> Option<Board> {
        let mut board = Board::from_fen(&self.start_fen).ok()?;
        for &mv in &self.moves {
            if counters_full(&board) || !legal_moves(&board).as_slice().contains(&mv) {
                return None;
            }
            board.make_move(mv);
        }
        Some(board)
    }
}

/// Where and why a PGN text could not be read. Lines and columns count from 1; columns count
/// characters, not bytes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PgnError {
    pub line: usize,
    pub column: usize,
    pub message: String,
}

impl fmt::Display for PgnError {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        write!(f, "line {}, column {}: {}", self.line, self.column, self.message)
    }
}

impl std::error::Error for PgnError {}

/// Every game of a PGN text, or the first error in it.
pub fn parse_pgn(text: &str) -> Result<Vec<PgnGame>, PgnError> {
    PgnReader::new(text).collect()
}

/// The games of a PGN text one at a time, for files too big to hold as a list of games. After
/// an error it yields nothing more, unless made with `recovering`.
pub struct PgnReader<'a> {
    lexer: Lexer<'a>,
    /// A tag pair read while looking for the end of the previous game (one without a result).
    pending: Option<(Token<'a>, Place)>,
    failed: bool,
    /// Whether to go on with the next game after an error.
    recover: bool,
    /// The line where the game last returned (or the one that failed) began.
    game_line: usize,
}

impl<'a> PgnReader<'a> {
    pub fn new(text: &'a str) -> PgnReader<'a> {
        PgnReader { lexer: Lexer::new(text), pending: None, failed: false, recover: false, game_line: 1 }
    }

    /// A reader that, after a game it cannot read, skips to the next line that opens a tag
    /// section (a line starting with `[` after one that does not) and reads on from there, so
    /// that one broken game in a database costs only itself.
    pub fn recovering(text: &'a str) -> PgnReader<'a> {
        PgnReader { recover: true, ..PgnReader::new(text) }
    }

    /// The line on which the game last returned, or the last error's game, began.
    pub fn game_line(&self) -> usize {
        self.game_line
    }

    /// Moves the lexer to the first line after `line` that opens a tag section, or to the end.
    fn skip_past(&mut self, line: usize) {
        self.pending = None;
        let text = self.lexer.text;
        let mut offset = 0;
        let mut previous_is_tag = false;
        for (index, content) in text.split_inclusive('\n').enumerate() {
            let number = index + 1;
            let trimmed = content.trim_start_matches(['\u{feff}', ' ', '\t', '\r']);
            let is_tag = trimmed.starts_with('[');
            if number > line && is_tag && !previous_is_tag {
                self.lexer.restart(offset, number);
                return;
            }
            if !trimmed.trim().is_empty() {
                previous_is_tag = is_tag;
            }
            offset += content.len();
        }
        self.lexer.restart(text.len(), text.split_inclusive('\n').count().max(1));
    }

    fn next_token(&mut self) -> Result<(Token<'a>, Place), PgnError> {
        match self.pending.take() {
            Some(token) => Ok(token),
            None => self.lexer.next_token(),
        }
    }

    /// The next game, or None at the end of the text. A game ends at its result token; one
    /// without a result ends where the next game's tags or the text end.
    fn read_game(&mut self) -> Result<Option<PgnGame>, PgnError> {
        let mut tags = Vec::new();
        let mut fen = None;
        let mut play: Option<Play> = None;
        let mut comments = Vec::new();
        let mut seen_anything = false;
        // Inside a variation: how deep, and where the outermost one opened.
        let mut variation: Option<(usize, Place)> = None;
        let result = loop {
            let (token, at) = self.next_token()?;
            if let Some((depth, opened)) = variation.as_mut() {
                match token {
                    Token::Open => *depth += 1,
                    Token::Close if *depth == 1 => variation = None,
                    Token::Close => *depth -= 1,
                    Token::Tag(..) | Token::End => {
                        return Err(self.lexer.error(*opened, "this '(' opens a variation that is never closed"));
                    }
                    _ => {}
                }
                continue;
            }
            if !seen_anything {
                self.game_line = at.line;
            }
            match token {
                Token::End if !seen_anything => return Ok(None),
                Token::End => break None,
                Token::Comment(text) => {
                    let text = text.split_whitespace().collect::<Vec<_>>().join(" ");
                    if !text.is_empty() {
                        comments.push((play.as_ref().map_or(0, |game| game.moves.len()), text));
                    }
                }
                Token::Tag(name, value) if play.is_some() => {
                    self.pending = Some((Token::Tag(name, value), at));
                    break None;
                }
                Token::Tag(name, value) => {
                    seen_anything = true;
                    match name {
                        "FEN" => fen = Some((value, at)),
                        "SetUp" => {}
                        _ => tags.push((name.to_string(), value)),
                    }
                }
                movetext => {
                    seen_anything = true;
                    let game = match &mut play {
                        Some(game) => game,
                        None => play.insert(Play::start(fen.as_ref(), &self.lexer)?),
                    };
                    match movetext {
                        Token::Open => variation = Some((1, at)),
                        Token::Close => return Err(self.lexer.error(at, "')' without a variation to close")),
                        Token::Star => break Some(PgnResult::Unknown),
                        Token::Symbol(text) => match PgnResult::parse(text) {
                            Some(result) => break Some(result),
                            // Move numbers are optional and often wrong: they are not checked.
                            None if text.bytes().all(|b| b.is_ascii_digit()) => {}
                            None => game.play(text).map_err(|message| self.lexer.error(at, message))?,
                        },
                        _ => {}
                    }
                }
            }
        };
        let game = match play {
            Some(game) => game,
            None => Play::start(fen.as_ref(), &self.lexer)?,
        };
        let result = result.unwrap_or_else(|| {
            tags.iter()
                .find(|(n, _)| n == "Result")
                .and_then(|(_, v)| PgnResult::parse(v))
                .unwrap_or(PgnResult::Unknown)
        });
        Ok(Some(PgnGame { tags, start_fen: game.start_fen, moves: game.moves, result, comments }))
    }
}

impl Iterator for PgnReader<'_> {
    type Item = Result<PgnGame, PgnError>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.failed {
            return None;
        }
        let game = self.read_game().transpose();
        if let Some(Err(error)) = &game {
            match self.recover {
                true => self.skip_past(error.line.max(self.game_line)),
                false => self.failed = true,
            }
        }
        game
    }
}

/// The moves of the game being read, played out on a board as they come.
struct Play {
    board: Board,
    start_fen: String,
    moves: Vec<Move>,
}

impl Play {
    fn start(fen: Option<&(String, Place)>, lexer: &Lexer) -> Result<Play, PgnError> {
        let board = match fen {
            None => Board::start_position(),
            Some((text, at)) => Board::from_fen(text).map_err(|e| lexer.error(*at, format!("FEN tag: {e}")))?,
        };
        Ok(Play { start_fen: board.to_fen(), board, moves: Vec::new() })
    }

    fn play(&mut self, text: &str) -> Result<(), String> {
        let side = match self.board.side_to_move() {
            Color::White => "White",
            Color::Black => "Black",
        };
        let context = format!("for {side} at move {}", self.board.fullmove_number());
        if counters_full(&self.board) {
            return Err(format!("move '{text}' {context} makes the game longer than the move counters can count"));
        }
        let mv = parse_move_text(&self.board, text).map_err(|e| format!("{e} {context}"))?;
        self.board.make_move(mv);
        self.moves.push(mv);
        Ok(())
    }
}

/// A position in the text. The column is worked out only for errors: counting characters from
/// the line start for every token would be quadratic on a file that is one long line.
#[derive(Clone, Copy, Debug)]
struct Place {
    offset: usize,
    line: usize,
    line_start: usize,
}

#[derive(Debug)]
enum Token<'a> {
    Tag(&'a str, String),
    /// Moves, move numbers and results.
    Symbol(&'a str),
    Star,
    Open,
    Close,
    /// What a `{...}` comment holds, or a `;` comment up to the end of its line.
    Comment(&'a str),
    /// Periods, NAGs (`$12`) and suffix annotations (`!?`): nothing a game keeps.
    Ignored,
    End,
}

/// Splits PGN text into tokens, skipping whitespace and `%` lines. It only ever stops on ASCII
/// bytes, so every offset it keeps is a character boundary.
struct Lexer<'a> {
    text: &'a str,
    bytes: &'a [u8],
    pos: usize,
    line: usize,
    line_start: usize,
}

impl<'a> Lexer<'a> {
    fn new(text: &'a str) -> Lexer<'a> {
        let start = if text.starts_with('\u{feff}') { '\u{feff}'.len_utf8() } else { 0 };
        Lexer { text, bytes: text.as_bytes(), pos: start, line: 1, line_start: start }
    }

    fn place(&self) -> Place {
        Place { offset: self.pos, line: self.line, line_start: self.line_start }
    }

    /// Goes on from `offset`, the start of line `line`.
    fn restart(&mut self, offset: usize, line: usize) {
        (self.pos, self.line, self.line_start) = (offset, line, offset);
    }

    fn error(&self, at: Place, message: impl Into<String>) -> PgnError {
        let column = self.text.get(at.line_start..at.offset).map_or(0, |s| s.chars().count()) + 1;
        PgnError { line: at.line, column, message: message.into() }
    }

    fn peek(&self) -> Option<u8> {
        self.bytes.get(self.pos).copied()
    }

    /// Moves past bytes while `wanted` holds and returns them; they are ASCII in every use.
    fn take_while(&mut self, wanted: impl Fn(u8) -> bool) -> &'a str {
        let start = self.pos;
        while self.peek().is_some_and(&wanted) {
            self.pos += 1;
        }
        self.text.get(start..self.pos).unwrap_or("")
    }

    fn skip_blanks_on_line(&mut self) {
        self.take_while(|b| matches!(b, b' ' | b'\t' | b'\r'));
    }

    fn next_token(&mut self) -> Result<(Token<'a>, Place), PgnError> {
        loop {
            let at = self.place();
            let Some(byte) = self.peek() else {
                return Ok((Token::End, at));
            };
            let token = match byte {
                b'\n' => {
                    self.pos += 1;
                    self.line += 1;
                    self.line_start = self.pos;
                    continue;
                }
                b' ' | b'\t' | b'\r' | 0x0b | 0x0c => {
                    self.pos += 1;
                    continue;
                }
                b'%' if self.pos == self.line_start => {
                    self.take_while(|b| b != b'\n');
                    continue;
                }
                b';' => {
                    self.pos += 1;
                    Token::Comment(self.take_while(|b| b != b'\n'))
                }
                b'{' => Token::Comment(self.comment(at)?),
                b'[' => self.tag(at)?,
                b'(' | b')' | b'*' | b'.' => {
                    self.pos += 1;
                    match byte {
                        b'(' => Token::Open,
                        b')' => Token::Close,
                        b'*' => Token::Star,
                        _ => Token::Ignored,
                    }
                }
                b'!' | b'?' => {
                    self.take_while(|b| matches!(b, b'!' | b'?'));
                    Token::Ignored
                }
                b'$' => {
                    self.pos += 1;
                    if self.take_while(|b| b.is_ascii_digit()).is_empty() {
                        return Err(self.error(at, "'$' must be followed by a number (a NAG)"));
                    }
                    Token::Ignored
                }
                b if b.is_ascii_alphanumeric() => Token::Symbol(self.take_while(|b| {
                    b.is_ascii_alphanumeric() || matches!(b, b'_' | b'+' | b'#' | b'=' | b':' | b'-' | b'/')
                })),
                _ => {
                    let c = self.text.get(self.pos..).and_then(|rest| rest.chars().next()).unwrap_or('?');
                    return Err(self.error(at, format!("unexpected character '{}'", c.escape_debug())));
                }
            };
            return Ok((token, at));
        }
    }

    /// Reads a `{...}` comment, which may span lines and does not nest, and returns what is
    /// inside the braces.
    fn comment(&mut self, opened: Place) -> Result<&'a str, PgnError> {
        self.pos += 1;
        let start = self.pos;
        loop {
            match self.peek() {
                None => return Err(self.error(opened, "this '{' opens a comment that is never closed")),
                Some(b'}') => {
                    self.pos += 1;
                    return Ok(self.text.get(start..self.pos - 1).unwrap_or(""));
                }
                Some(b'\n') => {
                    self.pos += 1;
                    self.line += 1;
                    self.line_start = self.pos;
                }
                Some(_) => self.pos += 1,
            }
        }
    }

    /// Reads `[Name "value"]`. The value must end on its line, so that a missing quote is
    /// reported where it is missing rather than wherever the next quote happens to be.
    fn tag(&mut self, opened: Place) -> Result<Token<'a>, PgnError> {
        self.pos += 1;
        self.skip_blanks_on_line();
        let name = self.take_while(|b| b.is_ascii_alphanumeric() || b == b'_');
        if name.is_empty() {
            return Err(self.error(self.place(), "expected a tag name after '['"));
        }
        self.skip_blanks_on_line();
        let quote = self.place();
        if self.peek() != Some(b'"') {
            return Err(self.error(quote, format!("expected the quoted value of tag {name}")));
        }
        self.pos += 1;
        let mut value = Vec::new();
        loop {
            match self.peek() {
                None | Some(b'\n') => {
                    return Err(self.error(quote, format!("the value of tag {name} has no closing quote on its line")));
                }
                Some(b'"') => break,
                Some(b'\\') if matches!(self.bytes.get(self.pos + 1), Some(b'"' | b'\\')) => {
                    value.push(self.bytes[self.pos + 1]);
                    self.pos += 2;
                }
                Some(byte) => {
                    value.push(byte);
                    self.pos += 1;
                }
            }
        }
        self.pos += 1;
        self.skip_blanks_on_line();
        if self.peek() != Some(b']') {
            return Err(self.error(opened, format!("tag {name} is not closed with ']' on its line")));
        }
        self.pos += 1;
        // Only ASCII backslashes were taken out of valid UTF-8, so nothing is lost here.
        Ok(Token::Tag(name, String::from_utf8_lossy(&value).into_owned()))
    }
}

/// The tags every PGN game has, in the order the standard writes them, with the values that
/// stand for "unknown".
const SEVEN_TAG_ROSTER: [(&str, &str); 7] = [
    ("Event", "?"),
    ("Site", "?"),
    ("Date", "????.??.??"),
    ("Round", "?"),
    ("White", "?"),
    ("Black", "?"),
    ("Result", "*"),
];

/// Movetext lines stay shorter than this.
const LINE_LIMIT: usize = 80;

/// What an annotator adds to one move when a game is written (`write_annotated`).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Notes {
    /// Numeric Annotation Glyphs, written as `$N` after the move (2 is `?`, 4 is `??`).
    pub nags: Vec<u8>,
    /// A comment after the game's own comments on the move.
    pub comment: Option<String>,
    /// Lines that could have been played instead of the move, from the position before it.
    pub variations: Vec<Vec<Move>>,
}

/// The game in PGN export format: the Seven Tag Roster first (`?` where a tag is missing, and
/// the Result tag from `result`), the other tags in order, `SetUp` and `FEN` for a
/// non-standard start, then the moves in SAN with the game's comments, and the result, in lines
/// under 80 columns (but for a comment's word that is longer). Tags whose names PGN cannot hold
/// are left out. A move that cannot be played (an illegal one in a hand-built game) ends the
/// movetext with a comment saying so. Games in one file are separated by a blank line: join
/// them with "\n".
pub fn write_pgn(game: &PgnGame) -> String {
    write_annotated(game, &[])
}

/// `write_pgn` with `notes[i]` added after move `i` (counting from 1); the comment of
/// `notes[0]` goes before the first move, after the game's own.
pub fn write_annotated(game: &PgnGame, notes: &[Notes]) -> String {
    let mut out = String::new();
    for (name, unknown) in SEVEN_TAG_ROSTER {
        let value = if name == "Result" { game.result.as_str() } else { game.tag(name).unwrap_or(unknown) };
        write_tag(&mut out, name, value);
    }
    let is_extra = |name: &str| {
        !SEVEN_TAG_ROSTER.iter().any(|&(n, _)| n == name)
            && name != "FEN"
            && name != "SetUp"
            && !name.is_empty()
            && name.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_')
    };
    for (name, value) in game.tags.iter().filter(|(name, _)| is_extra(name)) {
        write_tag(&mut out, name, value);
    }
    let start = Board::from_fen(&game.start_fen);
    let start_fen = start.as_ref().map_or(game.start_fen.clone(), Board::to_fen);
    if start_fen != START_FEN {
        write_tag(&mut out, "SetUp", "1");
        write_tag(&mut out, "FEN", &start_fen);
    }
    out.push('\n');

    let mut tokens = match start {
        Ok(mut board) => annotated_movetext(&mut board, game, notes),
        Err(_) => vec!["{the start position is not a valid FEN}".to_string()],
    };
    tokens.push(game.result.as_str().to_string());
    let mut line_length = 0;
    for token in tokens {
        if line_length > 0 && line_length + 1 + token.len() >= LINE_LIMIT {
            out.push('\n');
            line_length = 0;
        }
        if line_length > 0 {
            out.push(' ');
            line_length += 1;
        }
        out.push_str(&token);
        line_length += token.len();
    }
    out.push('\n');
    out
}

/// The movetext tokens of `game` from `board` (its start position) with its comments and
/// `notes`. A comment is split into words, so that lines can break inside it. Black's move
/// carries its number (`12... Nf6`) where it opens the movetext or follows a comment or a
/// variation, as the standard's export format has it.
fn annotated_movetext(board: &mut Board, game: &PgnGame, notes: &[Notes]) -> Vec<String> {
    let mut tokens = Vec::with_capacity(game.moves.len() * 3 / 2 + 1);
    let mut comments = game.comments.iter().peekable();
    // Comments (the game's, then the note's) after `ply` moves; says whether there were any.
    let mut add_comments = |tokens: &mut Vec<String>, ply: usize| {
        let mut any = false;
        while let Some((_, text)) = comments.next_if(|(at, _)| *at <= ply) {
            any |= push_comment(tokens, text);
        }
        if let Some(text) = notes.get(ply).and_then(|note| note.comment.as_ref()) {
            any |= push_comment(tokens, text);
        }
        any
    };
    add_comments(&mut tokens, 0);
    let mut interrupted = true;
    for (i, &mv) in game.moves.iter().enumerate() {
        let legal = legal_moves(board);
        if counters_full(board) || !legal.as_slice().contains(&mv) {
            tokens.push(format!("{{move {mv} cannot be played here; the rest of the game is left out}}"));
            return tokens;
        }
        let number = board.fullmove_number();
        let san = san_with(board, mv, legal.as_slice());
        tokens.push(match board.side_to_move() {
            Color::White => format!("{number}. {san}"),
            Color::Black if interrupted => format!("{number}... {san}"),
            Color::Black => san,
        });
        let note = notes.get(i + 1);
        tokens.extend(note.iter().flat_map(|note| note.nags.iter().map(|nag| format!("${nag}"))));
        interrupted = add_comments(&mut tokens, i + 1);
        for line in note.iter().flat_map(|note| note.variations.iter().filter(|line| !line.is_empty())) {
            let mut variation = movetext(&mut board.clone(), line);
            if let Some(first) = variation.first_mut() {
                first.insert(0, '(');
            }
            if let Some(last) = variation.last_mut() {
                last.push(')');
            }
            tokens.extend(variation);
            interrupted = true;
        }
        board.make_move(mv);
    }
    tokens
}

/// A comment as tokens, one a word but for a command such as `[%eval 0.34]`, which stays whole
/// for readers that look for it on one line; braces inside could not be read back and become
/// parentheses. Returns whether there was anything to write.
fn push_comment(tokens: &mut Vec<String>, text: &str) -> bool {
    let text = text.replace('{', "(").replace('}', ")");
    let mut words: Vec<String> = Vec::new();
    let mut in_command = false;
    for word in text.split_whitespace() {
        match words.last_mut() {
            Some(command) if in_command => {
                command.push(' ');
                command.push_str(word);
            }
            _ => words.push(word.to_string()),
        }
        let last = words.last().map_or("", String::as_str);
        in_command = last.starts_with("[%") && !last.contains(']');
    }
    let [first, .., last] = &words[..] else {
        return match words.first() {
            Some(word) => {
                tokens.push(format!("{{{word}}}"));
                true
            }
            None => false,
        };
    };
    tokens.push(format!("{{{first}"));
    tokens.extend(words[1..words.len() - 1].iter().cloned());
    tokens.push(format!("{last}}}"));
    true
}

fn write_tag(out: &mut String, name: &str, value: &str) {
    out.push('[');
    out.push_str(name);
    out.push_str(" \"");
    for c in value.chars() {
        match c {
            '\\' | '"' => {
                out.push('\\');
                out.push(c);
            }
            // A tag pair must stay on one line.
            c if c.is_control() => out.push(' '),
            c => out.push(c),
        }
    }
    out.push_str("\"]\n");
}

/// The moves in SAN as movetext tokens, with the move number before White's moves and before
/// a first move by Black (`12... Nf6`), in the same token so that no line ends between them.
pub fn movetext(board: &mut Board, moves: &[Move]) -> Vec<String> {
    let mut tokens = Vec::with_capacity(moves.len() * 3 / 2 + 1);
    for (i, &mv) in moves.iter().enumerate() {
        let legal = legal_moves(board);
        if counters_full(board) || !legal.as_slice().contains(&mv) {
            tokens.push(format!("{{move {mv} cannot be played here; the rest of the game is left out}}"));
            break;
        }
        let number = board.fullmove_number();
        let san = san_with(board, mv, legal.as_slice());
        tokens.push(match board.side_to_move() {
            Color::White => format!("{number}. {san}"),
            Color::Black if i == 0 => format!("{number}... {san}"),
            Color::Black => san,
        });
        board.make_move(mv);
    }
    tokens
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A small deterministic generator (64-bit LCG), so failures repeat.
    struct Lcg(u64);

    impl Lcg {
        fn next(&mut self) -> usize {
            self.0 = self.0.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            (self.0 >> 33) as usize
        }
    }

    fn random_game(fen: &str, plies: usize, rng: &mut Lcg) -> PgnGame {
        let mut board = Board::from_fen(fen).unwrap();
        let start_fen = board.to_fen();
        let mut moves = Vec::new();
        for _ in 0..plies {
            let legal = legal_moves(&board);
            if legal.is_empty() {
                break;
            }
            let mv = legal.as_slice()[rng.next() % legal.len()];
            board.make_move(mv);
            moves.push(mv);
        }
        let result = [PgnResult::WhiteWins, PgnResult::BlackWins, PgnResult::Draw, PgnResult::Unknown][rng.next() % 4];
        let mut tags: Vec<(String, String)> =
            SEVEN_TAG_ROSTER.iter().map(|&(name, value)| (name.to_string(), value.to_string())).collect();
        tags[0].1 = format!("Test \"{}\" \\ event", rng.next() % 100);
        tags[4].1 = "Sentinel".to_string();
        tags[6].1 = result.as_str().to_string();
        tags.push(("Annotator".to_string(), "Ünïcode [and] {braces} ; too".to_string()));
        tags.push(("PlyCount".to_string(), moves.len().to_string()));
        let comments = (0..rng.next() % 4)
            .map(|i| (rng.next() % (moves.len() + 1), format!("comment {i}: [%eval 0.{}] a ( b ) c", rng.next() % 100)))
            .collect::<std::collections::BTreeMap<_, _>>()
            .into_iter()
            .collect();
        PgnGame { tags, start_fen, moves, result, comments }
    }

    #[test]
    fn written_games_read_back_the_same() {
        let mut rng = Lcg(7);
        let suites = [include_str!("../../perft/standard.epd"), include_str!("../../perft/random.epd")];
        let fens = suites.iter().flat_map(|s| s.lines()).map(|line| line.split(';').next().unwrap().trim());
        let games: Vec<PgnGame> = fens.map(|fen| random_game(fen, 1 + rng.next() % 200, &mut rng)).collect();
        let mut file = String::new();
        for game in &games {
            let text = write_pgn(game);
            assert!(text.lines().filter(|l| !l.starts_with('[')).all(|l| l.len() < 80), "{text}");
            assert_eq!(parse_pgn(&text).as_deref(), Ok(std::slice::from_ref(game)), "{text}");
            if game.start_fen == START_FEN {
                assert!(!text.contains("[FEN "), "{text}");
            } else {
                assert!(text.contains(&format!("[SetUp \"1\"]\n[FEN \"{}\"]\n\n", game.start_fen)), "{text}");
            }
            if Board::from_fen(&game.start_fen).unwrap().side_to_move() == Color::Black {
                let number = Board::from_fen(&game.start_fen).unwrap().fullmove_number();
                let opening = if game.comments.first().is_some_and(|&(ply, _)| ply == 0) { "} " } else { "\n\n" };
                assert!(text.contains(&format!("{opening}{number}... ")), "{text}");
            }
            file.push_str(&text);
            file.push('\n');
        }
        assert_eq!(parse_pgn(&file), Ok(games));
    }

    #[test]
    fn export_format() {
        let start = Board::start_position();
        let mut game = PgnGame::default();
        for text in ["e2e4", "e7e5", "g1f3", "b8c6"] {
            let board = game.final_board().unwrap();
            game.moves.push(crate::movegen::parse_move(&board, text).unwrap());
        }
        game.tags = vec![("ECO".into(), "C44".into()), ("White".into(), "Me".into()), ("SetUp".into(), "0".into())];
        game.result = PgnResult::Draw;
        let expected = "[Event \"?\"]\n[Site \"?\"]\n[Date \"????.??.??\"]\n[Round \"?\"]\n[White \"Me\"]\n\
                        [Black \"?\"]\n[Result \"1/2-1/2\"]\n[ECO \"C44\"]\n\n1. e4 e5 2. Nf3 Nc6 1/2-1/2\n";
        assert_eq!(write_pgn(&game), expected);
        assert_eq!(start.to_fen(), game.start_fen);

        // A move that is not legal ends the movetext, with a comment that says so.
        game.moves.push(Move::NONE);
        assert!(
            write_pgn(&game)
                .ends_with("2. Nf3 Nc6\n{move 0000 cannot be played here; the rest of the game is left out} 1/2-1/2\n")
        );
    }

    /// A game as found in the wild: BOM, CRLF line ends, an escape line, comments of both
    /// kinds, NAGs and suffixes, nested variations, move numbers in every spacing; then a
    /// game from a FEN with Black to move and no tags but SetUp, FEN and Result.
    const WILD: &str = "\u{feff}% exported by hand
[Event \"Paris\"]
[Site \"Paris FRA\"]
[Date \"1858.??.??\"]
[Round \"?\"]
[White \"Paul Morphy\"]
[Black \"Duke Karl / Count Isouard\"]
[Result \"1-0\"]
[Annotator \"A \\\"quoted\\\" name \\\\ with a backslash\"]

1.e4 e5 2. Nf3 d6 {The Philidor
Defence} 3.d4 Bg4?! $6 4.dxe5 Bxf3
5 . Qxf3 dxe5 6. Bc4 Nf6 7.Qb3 Qe7 8. Nc3 (8. Qxb7 Qb4+ (8... Qb4+? { ( } 9. Qxb4) 9. Qxb4
Bxb4+ 10. c3) 8...c6 9. Bg5 b5 10.Nxb5! cxb5 11.Bxb5+ Nbd7 12.O-O-O Rd8
13.Rxd7 Rxd7 14.Rd1 Qe6 ; to the end of the line ) ( {
15.Bxd7+ Nxd7 16.Qb8+!! Nxb8 17.Rd8# 1-0

[SetUp \"1\"]
[FEN \"4k3/8/8/8/8/8/4P3/4K2R b K - 3 40\"]
[Result \"*\"]
40...Kd7 41.0-0 Ke6 42. e4 Ke5 43. Rf5+ *
";

    #[test]
    fn reads_games_from_the_wild() {
        let text = WILD.replace('\n', "\r\n");
        let games = parse_pgn(&text).unwrap();
        assert_eq!(games.len(), 2);
        let opera = &games[0];
        assert_eq!(opera.moves.len(), 33);
        assert_eq!(opera.final_board().unwrap().to_fen(), "1n1Rkb1r/p4ppp/4q3/4p1B1/4P3/8/PPP2PPP/2K5 b k - 1 17");
        assert_eq!(opera.result, PgnResult::WhiteWins);
        assert_eq!(opera.start_fen, START_FEN);
        assert_eq!(opera.tags.len(), 8);
        assert_eq!(opera.tag("Black"), Some("Duke Karl / Count Isouard"));
        assert_eq!(opera.tag("Annotator"), Some("A \"quoted\" name \\ with a backslash"));
        let ending = &games[1];
        assert_eq!(ending.start_fen, "4k3/8/8/8/8/8/4P3/4K2R b K - 3 40");
        assert_eq!(ending.final_board().unwrap().to_fen(), "8/8/8/4kR2/4P3/8/8/6K1 b - - 2 43");
        assert_eq!(ending.tags, [("Result".to_string(), "*".to_string())]);
        assert_eq!(ending.result, PgnResult::Unknown);
        assert_eq!(parse_pgn(WILD), Ok(games));
    }

    #[test]
    fn main_line_comments_are_kept_in_their_place() {
        let opera = &parse_pgn(WILD).unwrap()[0];
        // After 2...d6 (4 plies) and after 14...Qe6 (28); those in variations go with them.
        let expected = [(4, "The Philidor Defence"), (28, "to the end of the line ) ( {")];
        assert_eq!(opera.comments, expected.map(|(ply, text)| (ply, text.to_string())));
        let game = parse_pgn("{before} [Event \"x\"] {  tags   done } 1. e4 {a}{b} *").unwrap().pop().unwrap();
        let texts = [(0, "before"), (0, "tags done"), (1, "a"), (1, "b")];
        assert_eq!(game.comments, texts.map(|(ply, text)| (ply, text.to_string())));
    }

    #[test]
    fn annotations_are_written_where_they_belong() {
        let mut game = PgnGame::default();
        for text in ["e2e4", "e7e5", "d1h5", "b8c6"] {
            let board = game.final_board().unwrap();
            game.moves.push(crate::movegen::parse_move(&board, text).unwrap());
        }
        game.comments = vec![(2, "own".to_string())];
        let mut after_e5 = Board::start_position();
        after_e5.make_move(game.moves[0]);
        after_e5.make_move(game.moves[1]);
        let g1f3 = crate::movegen::parse_move(&after_e5, "g1f3").unwrap();
        let mut notes = vec![Notes::default(); 5];
        notes[0].comment = Some("Review {braces}".to_string());
        notes[2].comment = Some("[%eval 0.3]".to_string());
        notes[3] = Notes { nags: vec![6], comment: Some("[%eval -0.1]".to_string()), variations: vec![vec![g1f3]] };
        let text = write_annotated(&game, &notes);
        let movetext = text.split("\n\n").nth(1).unwrap().replace('\n', " ");
        assert_eq!(
            movetext,
            "{Review (braces)} 1. e4 e5 {own} {[%eval 0.3]} 2. Qh5 $6 {[%eval -0.1]} (2. Nf3) 2... Nc6 * "
        );
        let read = parse_pgn(&text).unwrap().pop().unwrap();
        assert_eq!(read.moves, game.moves);
        assert_eq!(read.comments.len(), 4);
    }

    #[test]
    fn a_recovering_reader_goes_on_after_a_broken_game() {
        let text = "[Event \"a\"]\n1. e4 *\n\n[Event \"b\"]\n[Site \"x]\n1. e4 *\n\n[Event \"c\"]\n\
                    1. d4 Nf6 2. Nf6 *\n\n[Event \"d\"]\n1. c4 {never closed\n\n[Event \"e\"]\n1. Nf3 *\n";
        let mut reader = PgnReader::recovering(text);
        let mut seen = Vec::new();
        while let Some(game) = reader.next() {
            seen.push((
                reader.game_line(),
                game.map(|g| g.tag("Event").unwrap_or("").to_string()).map_err(|e| e.to_string()),
            ));
        }
        let expected: [(usize, Result<&str, &str>); 5] = [
            (1, Ok("a")),
            (4, Err("line 5, column 7: the value of tag Site has no closing quote on its line")),
            (8, Err("line 9, column 14: illegal move 'Nf6' for White at move 2")),
            (11, Err("line 12, column 7: this '{' opens a comment that is never closed")),
            (14, Ok("e")),
        ];
        let expected: Vec<_> =
            expected.iter().map(|(line, r)| (*line, r.map(str::to_string).map_err(str::to_string))).collect();
        assert_eq!(seen, expected);
        // Without recovery the first error ends the reading.
        assert_eq!(PgnReader::new(text).count(), 2);
    }

    #[test]
    fn lenient_game_boundaries() {
        // No result token: the game ends at the next tags, or the end, and takes its Result tag.
        let text = "[Result \"0-1\"]\n1. f3 e5 2. g4 Qh4#\n[Event \"next\"]\n1. d4";
        let games = parse_pgn(text).unwrap();
        assert_eq!(games.len(), 2);
        assert_eq!((games[0].moves.len(), games[0].result), (4, PgnResult::BlackWins));
        assert_eq!((games[1].moves.len(), games[1].result), (1, PgnResult::Unknown));
        // Movetext without tags, and nothing but whitespace and comments.
        assert_eq!(parse_pgn("e4 e5 1/2-1/2").unwrap()[0].result, PgnResult::Draw);
        assert_eq!(parse_pgn(" {nothing} ; here\n% or here\r\n"), Ok(vec![]));
        // A tags-only game has no moves.
        assert_eq!(parse_pgn("[White \"x\"]").unwrap()[0].moves, []);
        // Nesting far deeper than any stack could recurse.
        let deep = format!("1. e4 {} {} e5 *", "(".repeat(200_000), ")".repeat(200_000));
        assert_eq!(parse_pgn(&deep).unwrap()[0].moves.len(), 2);
    }

    fn error_of(text: &str) -> String {
        parse_pgn(text).unwrap_err().to_string()
    }

    #[test]
    fn broken_files_say_where() {
        assert_eq!(
            error_of("[Event \"x\"]\n\n1. e4 e5\n2. Nf3 Nf6\n3. Nf6 *"),
            "line 5, column 4: illegal move 'Nf6' for White at move 3"
        );
        assert_eq!(
            error_of("[FEN \"4k3/8/8/8/8/5N2/8/1N2K3 w - - 0 30\"]\n30. Nd2 *"),
            "line 2, column 5: ambiguous move 'Nd2' (could be Nbd2 or Nfd2) for White at move 30"
        );
        assert_eq!(
            error_of("1. e4 hello *"),
            "line 1, column 7: 'hello' is not a move (expected a move like e4, Nf3, exd5, e8=Q or O-O) for Black at move 1"
        );
        assert_eq!(
            error_of("1. e4 e5\r\n2. Nf3 {a comment\nthat never\nends"),
            "line 2, column 8: this '{' opens a comment that is never closed"
        );
        assert_eq!(
            error_of("1. e4 (1. d4\nd5 (2. c4) 2. c4\n"),
            "line 1, column 7: this '(' opens a variation that is never closed"
        );
        assert_eq!(
            error_of("1. e4 e5 (1... c5\n\n[Event \"next\"]\n1. d4 *"),
            "line 1, column 10: this '(' opens a variation that is never closed"
        );
        assert_eq!(error_of("1. e4 e5\n2. Nf3 ) Nc6 *"), "line 2, column 8: ')' without a variation to close");
        assert_eq!(error_of("1. e4 e5\n{é} 2. @@ *"), "line 2, column 8: unexpected character '@'");
        assert_eq!(error_of("1. e4 $ e5 *"), "line 1, column 7: '$' must be followed by a number (a NAG)");
        assert_eq!(
            error_of("[Event \"abc]\n1. e4 *"),
            "line 1, column 8: the value of tag Event has no closing quote on its line"
        );
        assert_eq!(error_of("[Event]\n1. e4 *"), "line 1, column 7: expected the quoted value of tag Event");
        assert_eq!(error_of("[ \"x\"]"), "line 1, column 3: expected a tag name after '['");
        assert_eq!(error_of("[Event \"x\" junk]"), "line 1, column 1: tag Event is not closed with ']' on its line");
        assert!(
            error_of("[Event \"a\"]\n[FEN \"8/8/8 w - - 0 1\"]\n1. e4 *")
                .starts_with("line 2, column 1: FEN tag: invalid FEN")
        );

        // The reader returns the games before the error, then the error, then stops.
        let mut reader = PgnReader::new("[Event \"a\"]\n1. e4 *\n\n[Event \"b\"]\n1. e5 *\n[Event \"c\"]\n*");
        assert_eq!(reader.next().unwrap().unwrap().moves.len(), 1);
        assert_eq!(
            reader.next().unwrap().unwrap_err().to_string(),
            "line 5, column 4: illegal move 'e5' for White at move 1"
        );
        assert!(reader.next().is_none());
    }

    #[test]
    fn move_counters_at_their_limit_are_an_error() {
        assert_eq!(
            error_of("[FEN \"4k3/8/8/8/8/8/8/4K2R b K - 10 65535\"]\n65535... Kd7 *"),
            "line 2, column 10: move 'Kd7' for Black at move 65535 makes the game longer than the move counters can count"
        );
    }

    /// Whatever the input, reading returns; and whatever it reads, written and read again, is
    /// the same game and writes the same text.
    fn check_never_panics(text: &str) {
        if let Ok(games) = parse_pgn(text) {
            for game in games {
                let written = write_pgn(&game);
                let again = parse_pgn(&written).unwrap().pop().unwrap();
                assert_eq!((&again.start_fen, &again.moves, again.result), (&game.start_fen, &game.moves, game.result));
                assert_eq!(write_pgn(&again), written, "{text:?}");
            }
        }
    }

    #[test]
    fn arbitrary_input_never_panics() {
        let mut rng = Lcg(42);
        let alphabet: Vec<char> = "[]\"\\{}();%$!?.*+#=-/ \n\r\t0123456789abcdefghNBRQKOxPé\u{feff}".chars().collect();
        for _ in 0..3000 {
            let length = rng.next() % 120;
            let text: String = (0..length).map(|_| alphabet[rng.next() % alphabet.len()]).collect();
            check_never_panics(&text);
            let bytes: Vec<u8> = (0..length).map(|_| rng.next() as u8).collect();
            check_never_panics(&String::from_utf8_lossy(&bytes));
        }
        let wild = WILD.replace('\n', "\r\n");
        for (cut, _) in wild.char_indices() {
            check_never_panics(&wild[..cut]);
            check_never_panics(&wild[cut..]);
        }
        let bytes = WILD.as_bytes();
        let replacements = b"()[]{}\";%$!?. x+#=-0123456789abcdefgh\nNBRQKO";
        for _ in 0..3000 {
            let mut mutated = bytes.to_vec();
            for _ in 0..1 + rng.next() % 4 {
                let at = rng.next() % mutated.len();
                mutated[at] = replacements[rng.next() % replacements.len()];
            }
            check_never_panics(&String::from_utf8_lossy(&mutated));
        }
    }
}
