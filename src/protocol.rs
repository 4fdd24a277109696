//! The communication layer: text from a GUI in, text back out. With no subcommand Sentinel
//! reads stdin line by line and the first meaningful command (`uci` or `xboard`, or any other
//! UCI command, which means UCI) picks the protocol. A reader thread puts each line on the same channel as the search's reports, so
//! the protocol answers `stop`, `isready`, `ping` and the clock commands while the search runs.
//!
//! stdout belongs to the protocol: every line is flushed as it is written. Diagnostics go to
//! stderr through `log`.
//!
//! Input is bytes from a program we do not control: a line that is not UTF-8 (a Latin-1 name
//! from an old GUI) is decoded lossily, a line longer than any real command is dropped with an
//! error, and errors quote only the start of what they complain about.

pub mod uci;
pub mod xboard;

use crate::engine::{Engine, EngineCommand, Limits, Outcome, Report, ReportSink, SearchId};
use crate::quote::{QUOTE_LIMIT, excerpt};
use std::collections::VecDeque;
use std::io::{BufRead, ErrorKind, Write};
use std::sync::Arc;
use std::sync::mpsc::{self, Receiver, Sender};

/// What the protocol loop waits for.
pub enum Event {
    /// One line from the GUI, without its line ending.
    Line(String),
    /// A report from the search with this id.
    Search(SearchId, Report),
    /// A line longer than `MAX_LINE` bytes, dropped; this is its start.
    TooLong(String),
    /// stdin closed: the GUI is gone.
    InputClosed,
}

/// The longest line read. A `position` command with a move list of the longest possible game
/// is under 100 kB; anything past this is not a command and is not kept in memory.
pub const MAX_LINE: usize = 1 << 20;

/// The protocol's output: one line at a time, flushed at once so the GUI never waits on a buffer.
pub struct Output {
    stdout: std::io::Stdout,
    /// Set when a write failed: the GUI closed its end, and nobody hears us any more.
    closed: bool,
}

impl Output {
    pub fn new() -> Output {
        Output { stdout: std::io::stdout(), closed: false }
    }

    pub fn send(&mut self, line: impl AsRef<str>) {
        let line = line.as_ref();
        log::debug!("> {line}");
        if self.closed {
            return;
        }
        let mut out = self.stdout.lock();
        if let Err(e) = writeln!(out, "{line}").and_then(|_| out.flush()) {
            if e.kind() != ErrorKind::BrokenPipe {
                log::warn!("cannot write to stdout: {e}");
            }
            self.closed = true;
        }
    }

    /// Whether the GUI has stopped reading: the engine then ends, as it would on `quit`.
    pub fn closed(&self) -> bool {
        self.closed
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
    /// Reports a line that was dropped for its length, quoting its start.
    fn too_long(&mut self, start: &str);
    /// Formats a report of the search with this id, or drops it if that search is no longer wanted.
    fn report(&mut self, id: SearchId, report: Report);
    /// The session is ending (`quit`, end of input): decide what the searches still owed an
    /// answer get, before the engine stops them and their last reports are delivered.
    fn closing(&mut self);
    fn engine(&mut self) -> &mut Engine;
    fn output(&self) -> &Output;
    /// Whether a search owes an answer that will come by itself (not one held for `stop`):
    /// commands given as arguments wait for it before the engine ends.
    fn awaiting(&self) -> bool {
        false
    }
}

/// Feeds the protocol lines and reports until `quit`, the end of input or a closed stdout, then
/// stops the engine and delivers what the stopped search still reported (a UCI `bestmove`).
///
/// A command that ended a search (a new `position` during `go infinite`, say) has waited for
/// its thread, so all that search reported is on the channel, perhaps behind lines read
/// meanwhile: those reports go out first, so that its `bestmove` comes before the answer to
/// any later command (`readyok`).
fn serve(protocol: &mut impl Protocol, events: &Receiver<Event>) {
    serve_until(protocol, events, false);
}

/// `serve`; with `finish_searches`, the end of input waits for the searches that end by
/// themselves (`Protocol::awaiting`), as the commands given as arguments do.
fn serve_until(protocol: &mut impl Protocol, events: &Receiver<Event>, finish_searches: bool) {
    let mut deferred = VecDeque::new();
    let mut input_done = false;
    while let Some(event) = deferred.pop_front().or_else(|| events.recv().ok()) {
        match event {
            Event::Line(line) => {
                if !protocol.command(&line) {
                    break;
                }
                if !protocol.engine().searching() {
                    for event in events.try_iter() {
                        match event {
                            Event::Search(id, report) => protocol.report(id, report),
                            other => deferred.push_back(other),
                        }
                    }
                }
            }
            Event::TooLong(start) => protocol.too_long(&start),
            Event::Search(id, report) => protocol.report(id, report),
            Event::InputClosed if finish_searches => input_done = true,
            Event::InputClosed => break,
        }
        if protocol.output().closed() || (input_done && !protocol.awaiting()) {
            break;
        }
    }
    protocol.closing();
    let _ = protocol.engine().execute(EngineCommand::Quit);
    // The search thread has ended, so everything it reported is on the channel by now.
    for event in deferred.into_iter().chain(events.try_iter()) {
        if let Event::Search(id, report) = event {
            protocol.report(id, report);
        }
    }
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
        let mut input = std::io::stdin().lock();
        loop {
            let event = match read_line(&mut input) {
                Ok(Some(event)) => event,
                Ok(None) => break,
                Err(e) => {
                    log::warn!("cannot read stdin: {e}");
                    break;
                }
            };
            if events.send(event).is_err() {
                return;
            }
        }
        let _ = events.send(Event::InputClosed);
    });
}

/// Reads one line as bytes (`None` at the end of input): a line, without its line ending and
/// decoded lossily if it is not UTF-8, or `TooLong` with the start of a line over `MAX_LINE`
/// bytes, whose rest is read and dropped.
pub fn read_line(input: &mut impl BufRead) -> std::io::Result<Option<Event>> {
    let mut bytes = Vec::new();
    let mut too_long = false;
    let mut seen_any = false;
    loop {
        let buffer = match input.fill_buf() {
            Ok(buffer) => buffer,
            Err(e) if e.kind() == ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        };
        if buffer.is_empty() {
            if !seen_any {
                return Ok(None);
            }
            break;
        }
        seen_any = true;
        let (chunk, found_end) = match buffer.iter().position(|&b| b == b'\n') {
            Some(end) => (&buffer[..end], true),
            None => (buffer, false),
        };
        let room = MAX_LINE.saturating_sub(bytes.len());
        if chunk.len() > room {
            too_long = true;
        }
        bytes.extend_from_slice(&chunk[..chunk.len().min(room)]);
        let used = chunk.len() + usize::from(found_end);
        input.consume(used);
        if found_end {
            break;
        }
    }
    if bytes.last() == Some(&b'\r') && !too_long {
        bytes.pop();
    }
    let line = match String::from_utf8(bytes) {
        Ok(line) => line,
        Err(e) => {
            let line = String::from_utf8_lossy(e.as_bytes()).into_owned();
            log::warn!("input is not UTF-8, read as '{}'", excerpt(&line, QUOTE_LIMIT));
            line
        }
    };
    if too_long {
        return Ok(Some(Event::TooLong(excerpt(&line, QUOTE_LIMIT))));
    }
    log::debug!("< {line}");
    Ok(Some(Event::Line(line)))
}

/// Speaks UCI or XBoard on stdin/stdout until `quit` or the end of input.
pub fn run() {
    let (sender, events) = mpsc::channel();
    spawn_reader(sender.clone());
    serve_events(sender, &events);
}

/// Serves the lines arriving on `events` (the search's reports go to `sender`): the first
/// meaningful one picks the protocol.
pub fn serve_events(sender: Sender<Event>, events: &Receiver<Event>) {
    let engine = Engine::new(report_sink(sender));
    let mut out = Output::new();
    while let Ok(event) = events.recv() {
        match event {
            Event::Line(line) => match line.split_whitespace().next() {
                None => {}
                Some(word) if uci::COMMANDS.contains(&word) => return uci::run(engine, events, &mut out, &line),
                Some("xboard") => return xboard::run(engine, events, &mut out),
                Some("quit") => return,
                Some("bench") => {
                    if let Err(message) = bench(&engine, split_command(&line).1) {
                        log::warn!("{message}");
                    }
                }
                Some(other) => {
                    log::warn!(
                        "expected 'uci' or 'xboard' to choose the protocol, got '{}'",
                        excerpt(other, QUOTE_LIMIT)
                    )
                }
            },
            Event::TooLong(start) => log::warn!("dropped a line over {MAX_LINE} bytes: {start}"),
            Event::Search(..) => {}
            Event::InputClosed => return,
        }
    }
}

/// Runs each argument as a line of UCI, in order, then ends as on `quit`, as OpenBench runs
/// engines (`sentinel "setoption name EvalFile value F" bench`, `sentinel "genfens ..." quit`).
/// No `uci` is needed first; a search that ends by itself (`go depth 12`) is waited for, one
/// that would not (`go infinite`) is stopped. Returns how many commands were refused.
pub fn run_arguments(lines: Vec<String>) -> usize {
    let (sender, events) = mpsc::channel();
    for line in lines {
        let _ = sender.send(Event::Line(line));
    }
    let _ = sender.send(Event::InputClosed);
    let engine = Engine::new(report_sink(sender));
    uci::run_commands(engine, &events, &mut Output::new())
}

/// One search from the command line, of `fen` after `moves`: UCI-style `info` lines, then
/// `bestmove`.
pub fn search_once(fen: &str, moves: Vec<String>, limits: Limits) -> Result<(), String> {
    let (sender, events) = mpsc::channel();
    let mut engine = Engine::new(report_sink(sender));
    let position = EngineCommand::SetPosition { fen: Some(fen.to_string()), moves };
    engine.execute(position).map_err(|e| e.to_string())?;
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
                Report::CurrMove { depth, mv, number } => out.send(uci::currmove_line(&engine, depth, mv, number)),
                Report::BestMove { best, ponder } => {
                    out.send(uci::best_move_line(&engine, best, ponder));
                    break;
                }
            }
        }
    }
    Ok(())
}

/// `bench [depth]` inside the protocol loop, as on the command line but with the engine's
/// evaluation (an `EvalFile` set before it, as OpenBench does for a network). It prints its
/// own lines; the caller stops any running search first.
pub fn bench(engine: &Engine, args: &str) -> Result<(), String> {
    let depth = match args.trim() {
        "" => Engine::BENCH_DEPTH,
        text => text.parse().ok().filter(|d| (1..=Engine::MAX_DEPTH).contains(d)).ok_or_else(|| {
            format!(
                "bench depth must be a whole number from 1 to {}, got '{}'",
                Engine::MAX_DEPTH,
                excerpt(text, QUOTE_LIMIT)
            )
        })?,
    };
    // A failed write means stdout is closed; the protocol's next line will find that out.
    let _ = engine.bench(depth);
    Ok(())
}

/// A whole number, with numbers too large for an `i64` read as its largest (or smallest) value.
pub fn parse_whole(text: &str) -> Option<i64> {
    use std::num::IntErrorKind;
    match text.parse::<i64>() {
        Ok(n) => Some(n),
        Err(e) if *e.kind() == IntErrorKind::PosOverflow => Some(i64::MAX),
        Err(e) if *e.kind() == IntErrorKind::NegOverflow => Some(i64::MIN),
        Err(_) => None,
    }
}

/// Splits off the first word of a command line, returning it and the trimmed rest.
pub fn split_command(line: &str) -> (&str, &str) {
    let line = line.trim();
    match line.split_once(char::is_whitespace) {
        Some((word, rest)) => (word, rest.trim()),
        None => (line, ""),
    }
}
