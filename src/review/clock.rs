//! The clock of a game, from the `[%clk H:MM:SS]` comments lichess, chess.com and most servers
//! write after each move (the mover's time left once the move was made and its increment
//! added) and the `TimeControl` tag: how long each move took, for the review's comments, its
//! summary (the longest thinks, the time left at the mistakes) and the graph's time strip.
//!
//! A move's time is its side's clock before it (after the side's previous move, or the start
//! time for its first), plus what the move brought (the increment, and at the end of a period
//! of a `40/7200:3600` control the next period's time), less the clock after it. A clock that
//! cannot be read is named in a warning and left out, with the times that needed it.

use crate::notation::pgn::PgnGame;

/// One period of a time control: `moves` moves (None: the rest of the game) in `seconds`,
/// with `increment` seconds after each move.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Period {
    pub moves: Option<u32>,
    pub seconds: f64,
    pub increment: f64,
}

/// A `TimeControl` tag as the PGN standard writes it: `180+2`, `300`, `40/7200:3600`, periods
/// separated by colons, the last repeating when it has a number of moves. None for `-` or `?`
/// (unknown), a sandglass (`*60`) or anything else.
pub fn time_control(tag: &str) -> Option<Vec<Period>> {
    let number = |text: &str| text.parse::<f64>().ok().filter(|n| n.is_finite() && *n >= 0.0);
    tag.split(':')
        .map(|field| {
            let (moves, rest) = match field.split_once('/') {
                Some((moves, rest)) => (Some(moves.parse::<u32>().ok().filter(|&m| m > 0)?), rest),
                None => (None, field),
            };
            let (seconds, increment) = match rest.split_once('+') {
                Some((seconds, increment)) => (number(seconds)?, number(increment)?),
                None => (number(rest)?, 0.0),
            };
            Some(Period { moves, seconds, increment })
        })
        .collect::<Option<Vec<Period>>>()
        .filter(|periods| !periods.is_empty())
}

/// What the period rules give a side after its move number `number` (counted as the move
/// numbers count, from 1): the increment of the period the move belongs to, and the next
/// period's time when the move ends one.
fn added_after(periods: &[Period], number: u32) -> f64 {
    let mut end = 0u32;
    let mut index = 0;
    loop {
        let period = periods[index.min(periods.len() - 1)];
        let Some(moves) = period.moves.filter(|&moves| moves > 0) else { return period.increment };
        end = end.saturating_add(moves);
        if number <= end {
            let next = periods.get(index + 1).or(periods.last()).map_or(0.0, |p| p.seconds);
            return period.increment + if number == end { next } else { 0.0 };
        }
        index += 1;
        if end == u32::MAX {
            return period.increment;
        }
    }
}

/// A clock as `[%clk]` writes it, `H:MM:SS` with optional decimals (`0:02:59.9`), or `M:SS`,
/// in seconds.
pub fn parse_clock(text: &str) -> Option<f64> {
    let parts: Vec<&str> = text.split(':').collect();
    if parts.len() < 2 || parts.len() > 3 {
        return None;
    }
    let whole = |part: &str| {
        (!part.is_empty() && part.bytes().all(|b| b.is_ascii_digit())).then(|| part.parse::<u32>().ok()).flatten()
    };
    let (last, leading) = parts.split_last()?;
    let (seconds_whole, fraction) = last.split_once('.').unwrap_or((last, ""));
    if seconds_whole.len() != 2 || !fraction.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let seconds: f64 = format!("{seconds_whole}.{fraction}0").parse().ok()?;
    let mut total = 0.0;
    for (i, part) in leading.iter().enumerate() {
        let value = whole(part)?;
        // Minutes after hours are written with two digits and stay under 60.
        if i > 0 && (part.len() != 2 || value >= 60) {
            return None;
        }
        total = total * 60.0 + f64::from(value);
    }
    (seconds < 60.0).then_some(total * 60.0 + seconds)
}

/// The clock command of a comment: `Some(Ok(seconds))`, `Some(Err(text))` for one that cannot
/// be read (its text, to quote), None where the comment has none.
fn clock_in(comment: &str) -> Option<Result<f64, String>> {
    let start = comment.find("[%clk")?;
    let rest = &comment[start + "[%clk".len()..];
    let Some(end) = rest.find(']') else {
        return Some(Err(comment[start..].to_string()));
    };
    let value = rest[..end].trim();
    Some(parse_clock(value).ok_or_else(|| format!("[%clk{}]", &rest[..end])))
}

/// A move's clock.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct MoveTime {
    /// The mover's time left after the move, in seconds.
    pub left: f64,
    /// How long the move took, where the clock before it is known.
    pub spent: Option<f64>,
}

/// The clock of every move of a game.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Clocks {
    /// For each move (from the first), its clock where its comment has one.
    pub moves: Vec<Option<MoveTime>>,
    /// The time control, where the tag gives one.
    pub control: Option<Vec<Period>>,
    /// The clocks that could not be read, said for people.
    pub warnings: Vec<String>,
}

impl Clocks {
    /// Whether any move has a clock.
    pub fn any(&self) -> bool {
        self.moves.iter().any(Option::is_some)
    }
}

/// The clocks of `game`'s moves; `numbers[i]` is the move number of its `i`th move and
/// `white[i]` whether White made it.
pub fn read(game: &PgnGame, numbers: &[u16], white: &[bool]) -> Clocks {
    let plies = game.moves.len();
    let control = game.tag("TimeControl").and_then(time_control);
    let mut warnings = Vec::new();
    let mut left: Vec<Option<f64>> = vec![None; plies];
    for (ply, text) in &game.comments {
        let Some(index) = ply.checked_sub(1).filter(|&i| i < plies) else { continue };
        if left[index].is_some() {
            continue;
        }
        match clock_in(text) {
            Some(Ok(seconds)) => left[index] = Some(seconds),
            Some(Err(bad)) => {
                let dots = if white[index] { "." } else { "..." };
                let bad = crate::quote::excerpt(&bad, 40);
                warnings.push(format!(
                    "move {}{dots}: '{bad}' is not a clock time (H:MM:SS); the move's time is left out",
                    numbers[index]
                ));
            }
            None => {}
        }
    }
    let moves = (0..plies)
        .map(|i| {
            let now = left[i]?;
            // The side's clock before the move: after its previous move, or the start time.
            let before = match i.checked_sub(2) {
                Some(previous) => left[previous],
                None => control.as_ref().map(|periods| periods[0].seconds),
            };
            let added = control.as_deref().map_or(0.0, |periods| added_after(periods, u32::from(numbers[i])));
            let spent = before.map(|before| (before + added - now).max(0.0));
            Some(MoveTime { left: now, spent })
        })
        .collect();
    Clocks { moves, control, warnings }
}

/// A time for people: `0:12`, `3:05`, `1:02:09`, and under ten seconds `4.2 s` or `4 s`.
pub fn format(seconds: f64) -> String {
    let tenths = (seconds * 10.0).round() / 10.0;
    if tenths < 10.0 {
        return match tenths.fract() == 0.0 {
            true => format!("{tenths:.0} s"),
            false => format!("{tenths:.1} s"),
        };
    }
    let whole = seconds.round() as u64;
    match whole {
        s if s < 3600 => format!("{}:{:02}", s / 60, s % 60),
        s => format!("{}:{:02}:{:02}", s / 3600, s % 3600 / 60, s % 60),
    }
}

/// A time as `[%emt]` writes it: `H:MM:SS`, with tenths when it has them.
pub fn emt(seconds: f64) -> String {
    let tenths = (seconds * 10.0).round() as u64;
    let (whole, tenth) = (tenths / 10, tenths % 10);
    let text = format!("{}:{:02}:{:02}", whole / 3600, whole % 3600 / 60, whole % 60);
    if tenth == 0 { text } else { format!("{text}.{tenth}") }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::notation::pgn::parse_pgn;

    #[test]
    fn clocks_as_servers_write_them() {
        assert_eq!(parse_clock("0:03:00"), Some(180.0));
        assert_eq!(parse_clock("1:02:03"), Some(3723.0));
        assert_eq!(parse_clock("0:02:59.9"), Some(179.9));
        assert_eq!(parse_clock("12:07"), Some(727.0));
        for bad in ["", "0:6x:00", "0:61:00", "0:03:60", "3", "0:3:00", "0:03:0", "1:2:3:4", "-0:03:00", "0:03:00.x"] {
            assert_eq!(parse_clock(bad), None, "{bad}");
        }
    }

    #[test]
    fn time_controls_as_the_standard_writes_them() {
        let period = |moves, seconds, increment| Period { moves, seconds, increment };
        assert_eq!(time_control("180+2"), Some(vec![period(None, 180.0, 2.0)]));
        assert_eq!(time_control("300"), Some(vec![period(None, 300.0, 0.0)]));
        assert_eq!(time_control("10+0.1"), Some(vec![period(None, 10.0, 0.1)]));
        assert_eq!(time_control("40/7200:3600"), Some(vec![period(Some(40), 7200.0, 0.0), period(None, 3600.0, 0.0)]));
        for unknown in ["-", "?", "*60", "", "40/:60", "0/60", "1+"] {
            assert_eq!(time_control(unknown), None, "{unknown}");
        }
        // 40 moves in two hours, then an hour with 30 s a move: the hour comes after move 40.
        let classical = time_control("40/7200:3600+30").unwrap();
        assert_eq!(
            (added_after(&classical, 39), added_after(&classical, 40), added_after(&classical, 41)),
            (0.0, 3600.0, 30.0)
        );
        // A last period with a number of moves repeats.
        let repeating = time_control("40/7200:20/3600").unwrap();
        assert_eq!(
            (added_after(&repeating, 60), added_after(&repeating, 80), added_after(&repeating, 81)),
            (3600.0, 3600.0, 0.0)
        );
    }

    fn clocks(pgn: &str) -> Clocks {
        let game = parse_pgn(pgn).unwrap().pop().unwrap();
        let mut board = crate::board::Board::from_fen(&game.start_fen).unwrap();
        let (mut numbers, mut white) = (Vec::new(), Vec::new());
        for &mv in &game.moves {
            numbers.push(board.fullmove_number());
            white.push(board.side_to_move() == crate::board::Color::White);
            board.make_move(mv);
        }
        read(&game, &numbers, &white)
    }

    /// 3+2: White's first move leaves 3:00 + 2 s - 1 s = 3:01, and so on.
    #[test]
    fn move_times_from_the_clocks() {
        let read = clocks(
            "[TimeControl \"180+2\"]\n\n1. e4 {[%clk 0:03:01]} e5 {[%clk 0:03:02]} 2. Nf3 {[%clk 0:02:53]} \
             Nc6 {a comment [%clk 0:02:40.5] too} 3. Bb5 *",
        );
        let times: Vec<Option<(f64, Option<f64>)>> =
            read.moves.iter().map(|m| m.map(|m| (m.left, m.spent.map(|s| (s * 10.0).round() / 10.0)))).collect();
        assert_eq!(
            times,
            [
                Some((181.0, Some(1.0))),
                Some((182.0, Some(0.0))),
                Some((173.0, Some(10.0))),
                Some((160.5, Some(23.5))),
                None
            ]
        );
        assert!(read.warnings.is_empty() && read.any());
        // Without a time control a side's first move has no time before it.
        let read = clocks("1. e4 {[%clk 0:03:00]} e5 {[%clk 0:03:00]} 2. Nf3 {[%clk 0:02:55]} *");
        assert_eq!(read.moves[0], Some(MoveTime { left: 180.0, spent: None }));
        assert_eq!(read.moves[2], Some(MoveTime { left: 175.0, spent: Some(5.0) }));
    }

    #[test]
    fn broken_clocks_are_named_and_left_out() {
        let read = clocks(
            "[TimeControl \"60+0\"]\n\n1. e4 {[%clk 0:00:59]} e5 {[%clk 0:6x:00]} 2. Nf3 {[%clk 0:00:50]} \
             Nc6 {[%clk 0:00:40]} 3. d4 {[%clk 0:00:45} *",
        );
        assert_eq!(read.warnings.len(), 2, "{:?}", read.warnings);
        assert_eq!(
            read.warnings[0],
            "move 1...: '[%clk 0:6x:00]' is not a clock time (H:MM:SS); the move's time is left out"
        );
        assert!(read.warnings[1].starts_with("move 3.: '[%clk 0:00:45"), "{:?}", read.warnings);
        assert_eq!(read.moves[1], None);
        // Black's next move has its clock but not the one before it.
        assert_eq!(read.moves[3], Some(MoveTime { left: 40.0, spent: None }));
        assert_eq!(read.moves[2], Some(MoveTime { left: 50.0, spent: Some(9.0) }));
    }

    #[test]
    fn times_for_people() {
        assert_eq!(format(4.23), "4.2 s");
        assert_eq!(format(9.0), "9 s");
        assert_eq!(format(9.96), "0:10");
        assert_eq!(format(12.4), "0:12");
        assert_eq!(format(185.0), "3:05");
        assert_eq!(format(3729.0), "1:02:09");
        assert_eq!(emt(12.0), "0:00:12");
        assert_eq!(emt(3.45), "0:00:03.5");
        assert_eq!(emt(3725.0), "1:02:05");
    }
}
