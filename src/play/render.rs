//! Drawing the game for a terminal: the board from either side, with Unicode pieces and
//! coloured squares where the terminal has them and plain letters where it does not, the last
//! move marked, and the move list wrapped to the screen.

use crate::board::{Board, Color, Move, Piece, PieceKind, Square};

/// How the board is drawn.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Style {
    /// Chess symbols (U+2654..U+265F) instead of letters.
    pub unicode: bool,
    /// ANSI colours: squares as backgrounds, pieces as foregrounds, the last move highlighted.
    pub color: bool,
}

impl Style {
    /// Colours on a terminal that is not `dumb`, unless `NO_COLOR` (no-color.org) or
    /// `--no-color` say otherwise: never into a pipe or file, where escape codes are noise.
    /// Unicode unless `--ascii`, or the locale says the terminal cannot show it.
    pub fn detect(ascii: bool, no_color: bool) -> Style {
        use std::io::IsTerminal;
        let env = |name| std::env::var(name).ok().filter(|value: &String| !value.is_empty());
        let terminal = std::io::stdout().is_terminal() && env("TERM").is_none_or(|term| term != "dumb");
        let locale = env("LC_ALL").or_else(|| env("LC_CTYPE")).or_else(|| env("LANG"));
        let utf8 = locale.is_none_or(|l| l.to_ascii_lowercase().replace('-', "").contains("utf8"));
        Style { unicode: !ascii && utf8, color: !no_color && terminal && env("NO_COLOR").is_none() }
    }
}

const RESET: &str = "\x1b[0m";
/// Backgrounds (256-colour palette): light and dark squares, and the same two for the squares
/// of the last move.
const LIGHT: &str = "\x1b[48;5;223m";
const DARK: &str = "\x1b[48;5;137m";
const LIGHT_MARKED: &str = "\x1b[48;5;186m";
const DARK_MARKED: &str = "\x1b[48;5;143m";
const WHITE_PIECE: &str = "\x1b[1;97m";
const BLACK_PIECE: &str = "\x1b[1;30m";

/// The board as lines of text, seen from `bottom`'s side, with the squares of `last` marked.
pub fn board(board: &Board, bottom: Color, last: Option<Move>, style: Style) -> Vec<String> {
    let files: Vec<u8> = if bottom == Color::White { (0..8).collect() } else { (0..8).rev().collect() };
    let ranks: Vec<u8> = if bottom == Color::White { (0..8).rev().collect() } else { (0..8).collect() };
    let letters: String = files.iter().map(|&f| format!(" {} ", (b'a' + f) as char)).collect();
    let letters = format!("    {}", letters.trim_end());
    let mut lines = vec![letters.clone()];
    for &rank in &ranks {
        let mut line = format!(" {}  ", rank + 1);
        for &file in &files {
            let square = Square::new(file, rank);
            let marked = last.is_some_and(|mv| mv.from() == square || mv.to() == square);
            line.push_str(&cell(board.piece_at(square), (file + rank) % 2 == 1, marked, style));
        }
        line.push_str(&format!("  {}", rank + 1));
        lines.push(line);
    }
    lines.push(letters);
    lines
}

/// One square, three columns wide.
fn cell(piece: Piece, light: bool, marked: bool, style: Style) -> String {
    let symbol = symbol(piece, style);
    if style.color {
        let background = match (light, marked) {
            (true, false) => LIGHT,
            (false, false) => DARK,
            (true, true) => LIGHT_MARKED,
            (false, true) => DARK_MARKED,
        };
        let foreground = if !piece.is_empty() && piece.color() == Color::White { WHITE_PIECE } else { BLACK_PIECE };
        format!("{background}{foreground} {symbol} {RESET}")
    } else if marked {
        format!("({symbol})")
    } else {
        format!(" {symbol} ")
    }
}

fn symbol(piece: Piece, style: Style) -> char {
    if piece.is_empty() {
        return match (style.unicode, style.color) {
            (_, true) => ' ',
            (true, false) => '·',
            (false, false) => '.',
        };
    }
    if !style.unicode {
        return piece.letter();
    }
    // With colours both sides use the solid shapes, told apart by colour; without, White's
    // pieces are the outlined ones.
    let solid = style.color || piece.color() == Color::Black;
    let base = if solid { 0x265A } else { 0x2654 };
    let offset = match piece.kind() {
        PieceKind::King => 0,
        PieceKind::Queen => 1,
        PieceKind::Rook => 2,
        PieceKind::Bishop => 3,
        PieceKind::Knight => 4,
        PieceKind::Pawn => 5,
    };
    char::from_u32(base + offset).unwrap_or('?')
}

/// Movetext tokens (`1. e4`, `e5`) joined into lines of at most `width` columns.
pub fn wrap(tokens: &[String], width: usize) -> Vec<String> {
    let mut lines: Vec<String> = Vec::new();
    for token in tokens {
        match lines.last_mut() {
            Some(line) if line.chars().count() + 1 + token.chars().count() <= width => {
                line.push(' ');
                line.push_str(token);
            }
            _ => lines.push(token.clone()),
        }
    }
    lines
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::movegen::parse_move;

    const PLAIN: Style = Style { unicode: false, color: false };

    #[test]
    fn the_board_turns_with_the_player() {
        let mut start = Board::start_position();
        let e4 = parse_move(&start, "e2e4").unwrap();
        start.make_move(e4);
        let white = board(&start, Color::White, Some(e4), PLAIN);
        assert_eq!(white[0], "     a  b  c  d  e  f  g  h");
        assert_eq!(white[1], " 8   r  n  b  q  k  b  n  r   8");
        assert_eq!(white[4], " 5   .  .  .  .  .  .  .  .   5");
        assert_eq!(white[5], " 4   .  .  .  . (P) .  .  .   4");
        assert_eq!(white[7], " 2   P  P  P  P (.) P  P  P   2");
        let black = board(&start, Color::Black, None, PLAIN);
        assert_eq!(black[0], "     h  g  f  e  d  c  b  a");
        assert_eq!(black[1], " 1   R  N  B  K  Q  B  N  R   1");
    }

    #[test]
    fn unicode_and_colour() {
        let start = Board::start_position();
        let unicode = board(&start, Color::White, None, Style { unicode: true, color: false });
        assert_eq!(unicode[1], " 8   ♜  ♞  ♝  ♛  ♚  ♝  ♞  ♜   8");
        assert_eq!(unicode[8], " 1   ♖  ♘  ♗  ♕  ♔  ♗  ♘  ♖   1");
        let coloured = board(&start, Color::White, None, Style { unicode: true, color: true });
        // a1 is dark, h1 light; White's pieces solid and bright.
        assert!(coloured[8].contains(&format!("{DARK}{WHITE_PIECE} ♜ {RESET}")), "{:?}", coloured[8]);
        assert!(coloured[8].ends_with(&format!("{LIGHT}{WHITE_PIECE} ♜ {RESET}  1")), "{:?}", coloured[8]);
    }

    #[test]
    fn move_lists_wrap() {
        let tokens: Vec<String> = ["1. e4", "e5", "2. Nf3", "Nc6", "3. Bb5"].iter().map(|t| t.to_string()).collect();
        assert_eq!(wrap(&tokens, 14), ["1. e4 e5", "2. Nf3 Nc6", "3. Bb5"]);
        assert!(wrap(&[], 10).is_empty());
    }
}
