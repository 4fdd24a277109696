//! `sentinel analyse`: the games of a PGN text reviewed one after the other and written back as
//! PGN as each is done, with progress on stderr, a graph per game and the figures of all as
//! JSON. A game the reader cannot read, or one without moves, is reported with its number and
//! line and skipped; the others are reviewed. What a game has that cannot be read but does
//! not stop its review (a broken clock) is reported as a warning.

use super::eco::Openings;
use super::game::{self, Plan, Settings};
use super::{graph, json};
use crate::notation::pgn::{PgnGame, PgnReader, write_annotated};
use crate::quote::{MESSAGE_LIMIT, excerpt};
use std::io::{IsTerminal, Write};
use std::time::{Duration, Instant};

/// Where the reviewed games and graphs go, and whether to show progress.
pub struct Output<'a> {
    pub games: &'a mut dyn Write,
    /// `FILE.svg`: the graph of the only game, or `FILE-N.svg` for game N of several.
    pub graph: Option<&'a str>,
    /// The figures of every game, as JSON.
    pub json: Option<&'a str>,
    pub quiet: bool,
}

/// Why a review ended early.
#[derive(Debug)]
pub enum Error {
    /// Nothing to review, or a graph or JSON file that could not be written: the message says
    /// which.
    Input(String),
    /// The reviewed games could not be written.
    Write(std::io::Error),
}

/// The games of `text` that can be reviewed, numbered from 1 among all of its games, with the
/// line each starts on and their plans; `skipped` is called with the number, first line and
/// reason of every other. The text is read again for the review rather than keeping every
/// game's positions.
pub fn plans<'a>(
    text: &'a str,
    settings: &'a Settings,
    openings: &'a Openings,
    mut skipped: impl FnMut(usize, usize, String) + 'a,
) -> impl Iterator<Item = (usize, usize, PgnGame, Plan)> + 'a {
    let mut reader = PgnReader::recovering(text);
    let mut number = 0;
    std::iter::from_fn(move || {
        loop {
            let game = reader.next()?;
            number += 1;
            let planned =
                game.map_err(|e| e.to_string()).and_then(|game| Ok((Plan::new(&game, settings, openings)?, game)));
            match planned {
                Ok((plan, game)) => return Some((number, reader.game_line(), game, plan)),
                Err(message) => skipped(number, reader.game_line(), message),
            }
        }
    })
}

/// Reviews every game of `text` (read from the file `name`). Returns how many games were
/// skipped because they could not be read; those are reported on stderr before the review
/// starts.
pub fn run(name: &str, text: &str, settings: &Settings, output: Output) -> Result<usize, Error> {
    let mut skipped = 0;
    let (mut games, mut positions) = (0, 0);
    let report = |number, line, message: String| {
        let message = excerpt(&message, MESSAGE_LIMIT);
        eprintln!("sentinel: {name}: game {number} (from line {line}): {message}; skipped");
        skipped += 1;
    };
    let openings = Openings::built_in();
    for (number, line, _, plan) in plans(text, settings, &openings, report) {
        (games, positions) = (games + 1, positions + plan.positions());
        for warning in plan.warnings() {
            let warning = excerpt(warning, MESSAGE_LIMIT);
            eprintln!("sentinel: {name}: game {number} (from line {line}): {warning}");
        }
    }
    if games == 0 {
        return Err(Error::Input(match skipped {
            0 => format!("{name} holds no games"),
            _ => format!("no game of {name} could be read"),
        }));
    }
    let single = games + skipped == 1;
    let mut progress = Progress::new(positions, games, output.quiet);
    let mut searcher = settings.effort.searcher();
    let mut figures = Vec::new();
    for (index, (number, _, game, plan)) in plans(text, settings, &openings, |_, _, _| {}).enumerate() {
        searcher.clear();
        progress.game = index + 1;
        let review = game::review(&game, &plan, settings, &mut searcher, || progress.searched());
        let text = annotated_pgn(&game, &plan, &review, &settings.effort);
        if index > 0 {
            output.games.write_all(b"\n").map_err(Error::Write)?;
        }
        output.games.write_all(text.as_bytes()).and_then(|()| output.games.flush()).map_err(Error::Write)?;
        if let Some(base) = output.graph {
            let path = graph_path(base, number, single);
            std::fs::write(&path, graph::svg(&headline(&game), &review))
                .map_err(|e| Error::Input(format!("cannot write {path}: {e}")))?;
        }
        if output.json.is_some() {
            figures.push(json::game(number, &game, &review));
        }
    }
    if let Some(path) = output.json {
        let document = json::document(&settings.effort, settings.marks.name(), figures);
        let text = serde_json::to_string_pretty(&document).map_err(|e| Error::Input(e.to_string()))? + "\n";
        std::fs::write(path, text).map_err(|e| Error::Input(format!("cannot write {path}: {e}")))?;
    }
    progress.finish();
    Ok(skipped)
}

/// The game written back with its review: the summary, the evaluations, marks and better lines.
pub fn annotated_pgn(game: &PgnGame, plan: &Plan, review: &game::Review, effort: &super::Effort) -> String {
    let summary = game::summary_comment(review, effort);
    write_annotated(&game::annotated_game(game, review, plan.has_clocks()), &game::notes(review, summary))
}

/// `White - Black, Event, Date, result` from whichever of those tags the game has.
pub fn headline(game: &PgnGame) -> String {
    let known = |name| game.tag(name).filter(|value| !value.is_empty() && !value.starts_with('?'));
    let players = format!("{} - {}", known("White").unwrap_or("White"), known("Black").unwrap_or("Black"));
    let mut parts = vec![players];
    parts.extend(known("Event").map(str::to_string));
    // A date's unknown month and day (`1858.??.??`) are left out.
    parts.extend(
        known("Date").map(|date| date.split('.').take_while(|part| !part.contains('?')).collect::<Vec<_>>().join(".")),
    );
    parts.push(game.result.as_str().to_string());
    parts.join(", ")
}

/// The graph file of game `number`: `base` itself when the file holds one game, otherwise with
/// `-N` before its extension.
fn graph_path(base: &str, number: usize, single: bool) -> String {
    if single {
        return base.to_string();
    }
    let file_start = base.rfind('/').map_or(0, |slash| slash + 1);
    match base[file_start..].rfind('.') {
        Some(dot) if dot > 0 => {
            let dot = file_start + dot;
            format!("{}-{number}{}", &base[..dot], &base[dot..])
        }
        _ => format!("{base}-{number}"),
    }
}

/// Progress on stderr: on a terminal one line kept up to date, elsewhere (a log file) a line
/// every few seconds and one per game.
struct Progress {
    total: usize,
    done: usize,
    games: usize,
    game: usize,
    start: Instant,
    last: Option<Instant>,
    terminal: bool,
    quiet: bool,
}

impl Progress {
    fn new(total: usize, games: usize, quiet: bool) -> Progress {
        let terminal = std::io::stderr().is_terminal();
        Progress { total, done: 0, games, game: 0, start: Instant::now(), last: None, terminal, quiet }
    }

    fn searched(&mut self) {
        self.done += 1;
        let every = if self.terminal { Duration::from_millis(200) } else { Duration::from_secs(10) };
        if !self.quiet && self.last.is_none_or(|last| last.elapsed() >= every) {
            self.last = Some(Instant::now());
            self.show();
        }
    }

    fn show(&self) {
        let elapsed = self.start.elapsed().as_secs_f64();
        let left = elapsed / self.done.max(1) as f64 * (self.total - self.done.min(self.total)) as f64;
        let line = format!(
            "analyse: game {} of {}, {} of {} positions, {} elapsed, about {} left",
            self.game,
            self.games,
            self.done,
            self.total,
            duration(elapsed),
            duration(left)
        );
        let _ = match self.terminal {
            true => write!(std::io::stderr(), "\r{line}\x1b[K"),
            false => writeln!(std::io::stderr(), "{line}"),
        };
    }

    fn finish(&self) {
        if !self.quiet {
            let elapsed = self.start.elapsed().as_secs_f64();
            let games = if self.games == 1 { "game" } else { "games" };
            let start = if self.terminal { "\r" } else { "" };
            let blank = if self.terminal { "\x1b[K" } else { "" };
            eprintln!(
                "{start}analyse: {} {games}, {} positions in {}{blank}",
                self.games,
                self.done,
                duration(elapsed)
            );
        }
    }
}

/// `42 s`, `3 min 05 s`, `2 h 10 min`.
fn duration(seconds: f64) -> String {
    let seconds = seconds.round() as u64;
    match seconds {
        s if s < 60 => format!("{s} s"),
        s if s < 3600 => format!("{} min {:02} s", s / 60, s % 60),
        s => format!("{} h {:02} min", s / 3600, s % 3600 / 60),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn graph_files_are_numbered_when_there_are_several_games() {
        assert_eq!(graph_path("eval.svg", 3, true), "eval.svg");
        assert_eq!(graph_path("eval.svg", 3, false), "eval-3.svg");
        assert_eq!(graph_path("out.d/eval", 12, false), "out.d/eval-12");
        assert_eq!(graph_path("dir/.hidden", 1, false), "dir/.hidden-1");
    }

    #[test]
    fn durations_for_people() {
        assert_eq!(duration(41.6), "42 s");
        assert_eq!(duration(185.0), "3 min 05 s");
        assert_eq!(duration(7800.0), "2 h 10 min");
    }
}
