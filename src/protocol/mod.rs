//! The communication layer: text from a GUI in, text back out. With no subcommand Sentinel
//! reads stdin line by line and the first meaningful command (`uci` or `xboard`) picks the
//! protocol. A reader thread puts each line on the same channel as the search's reports, so
//! the protocol answers `stop`, `isready`, `ping` and the clock commands while the search runs.
//!
//! stdout belongs to the protocol: every line is flushed as it is written. Diagnostics go to
//! stderr through `log`.

pub mod uci;
pub mod xboard;

use crate::engine::{Engine, EngineCommand, Limits, Outcome, Report, ReportSink, SearchId};
use std::io::{BufRead, Write};
use std::sync::Arc;
use std::sync::mpsc::{self, Receiver, Sender};

/// What the protocol loop waits for.
pub enum Event {
    /// One line from the GUI, without its line ending.
    Line(String),
    /// A report from the search with this id.
    Search(SearchId, Report),
    /// stdin closed: the GUI is gone.
    InputClosed,
}

/// The protocol's output: one line at a time, flushed at once so the GUI never waits on a buffer.
pub struct Output {
    stdout: std::io::Stdout,
}

impl Output {
    pub fn new() -> Output {
        Output { stdout: std::io::stdout() }
    }

    pub fn send(&mut self, line: impl AsRef<str>) {
        let line = line.as_ref();
        log::debug!("> {line}");
        let mut out = self.stdout.lock();
        // A failed write means the GUI has gone; the end of stdin will tell the loop to stop.
        if let Err(e) = writeln!(out, "{line}").and_then(|_| out.flush()) {
            log::warn!("cannot write to stdout: {e}");
        }
    }
}

impl Default for Output {
    fn default() -> Output {
        Output::new()
    }
}

/// One protocol's side of the conversation: it turns GUI lines into engine commands and the
/// search's reports into its own text. The loop that feeds it is shared.
trait Protocol {
    /// Handles one line; false means quit.
    fn command(&mut self, line: &str) -> bool;
    /// Formats a report of the search with this id, or drops it if that search is no longer wanted.
    fn report(&mut self, id: SearchId, report: Report);
    fn engine(&mut self) -> &mut Engine;
}

/// Feeds the protocol lines and reports until `quit` or the end of input, then stops the engine.
fn serve(protocol: &mut impl Protocol, events: &Receiver<Event>) {
    while let Ok(event) = events.recv() {
        match event {
            Event::Line(line) => {
                if !protocol.command(&line) {
                    break;
                }
            }
            Event::Search(id, report) => protocol.report(id, report),
            Event::InputClosed => break,
        }
    }
    let _ = protocol.engine().execute(EngineCommand::Quit);
}

/// A sink that puts the search's reports on the event channel.
pub fn report_sink(events: Sender<Event>) -> ReportSink {
    Arc::new(move |id, report| {
        // The receiver is gone only when the engine is shutting down.
        let _ = events.send(Event::Search(id, report));
    })
}

/// Reads stdin on its own thread, sending each line and finally `InputClosed`.
pub fn spawn_reader(events: Sender<Event>) {
    std::thread::spawn(move || {
        for line in std::io::stdin().lock().lines() {
            match line {
                Ok(line) => {
                    let line = line.trim_end_matches('\r').to_string();
                    log::debug!("< {line}");
                    if events.send(Event::Line(line)).is_err() {
                        return;
                    }
                }
                Err(e) => {
                    log::warn!("cannot read stdin: {e}");
                    break;
                }
            }
        }
        let _ = events.send(Event::InputClosed);
    });
}

/// Speaks UCI or XBoard on stdin/stdout until `quit` or the end of input.
pub fn run() {
    let (sender, events) = mpsc::channel();
    spawn_reader(sender.clone());
    let engine = Engine::new(report_sink(sender));
    let mut out = Output::new();
    while let Ok(event) = events.recv() {
        match event {
            Event::Line(line) => match line.split_whitespace().next() {
                None => {}
                Some("uci") => return uci::run(engine, &events, &mut out),
                Some("xboard") => return xboard::run(engine, &events, &mut out),
                Some("quit") => return,
                Some("bench") => {
                    if let Err(message) = bench(split_command(&line).1) {
                        log::warn!("{message}");
                    }
                }
                Some(other) => log::warn!("expected 'uci' or 'xboard' to choose the protocol, got '{other}'"),
            },
            Event::Search(..) => {}
            Event::InputClosed => return,
        }
    }
}

/// One search from the command line: UCI-style `info` lines, then `bestmove`.
pub fn search_once(fen: Option<String>, limits: Limits) -> Result<(), String> {
    let (sender, events) = mpsc::channel();
    let mut engine = Engine::new(report_sink(sender));
    engine.execute(EngineCommand::SetPosition { fen, moves: Vec::new() }).map_err(|e| e.to_string())?;
    let Ok(Outcome::Searching(id)) = engine.execute(EngineCommand::Go(limits)) else {
        return Err("the search did not start".to_string());
    };
    let mut out = Output::new();
    while let Ok(event) = events.recv() {
        if let Event::Search(from, report) = event
            && from == id
        {
            match report {
                Report::Info(info) => out.send(uci::info_line(&engine, &info)),
                Report::BestMove { best, ponder } => {
                    out.send(uci::best_move_line(&engine, best, ponder));
                    break;
                }
            }
        }
    }
    Ok(())
}

/// `bench [depth]` inside the protocol loop, as on the command line. It prints its own lines;
/// the caller stops any running search first.
pub fn bench(args: &str) -> Result<(), String> {
    let depth = match args.trim() {
        "" => Engine::BENCH_DEPTH,
        text => text
            .parse()
            .ok()
            .filter(|d| (1..=64).contains(d))
            .ok_or_else(|| format!("bench depth must be a whole number from 1 to 64, got '{text}'"))?,
    };
    Engine::bench(depth);
    Ok(())
}

/// Splits off the first word of a command line, returning it and the trimmed rest.
pub fn split_command(line: &str) -> (&str, &str) {
    let line = line.trim();
    match line.split_once(char::is_whitespace) {
        Some((word, rest)) => (word, rest.trim()),
        None => (line, ""),
    }
}
