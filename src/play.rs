//! `sentinel play`: a person against the engine at a terminal. Moves are typed in SAN or
//! coordinates, the board is drawn after the engine's moves, and the game can be taken back,
//! saved to PGN and loaded again. It drives the `Engine` the way the protocols do, with plain
//! lines on stdin and stdout, so it also runs over a pipe, for scripts and tests.
//!
//! Lines typed while the engine thinks wait their turn, so a script can send a whole game at
//! once. The player's clock runs from the prompt to the move; the engine's
//! from its `go` to its move.

mod clock;
mod render;

use crate::board::{Board, PieceKind};
use crate::engine::options::OptionId;
use crate::engine::{
    Clock, Color, EndReason, Engine, EngineCommand, GameResult, Limits, MAX_ELO, MAX_SKILL_LEVEL, MIN_ELO, Move,
    Outcome, Report, Score, Strength,
};
use crate::notation::pgn::{PgnGame, PgnResult, movetext, parse_pgn, write_pgn};
use crate::notation::san::{SanError, parse_move_text, to_san};
use crate::protocol::{Event, report_sink, spawn_reader};
use clock::Clocks;
pub use clock::TimeControl;
use render::Style;
use std::collections::VecDeque;
use std::io::Write;
use std::str::FromStr;
use std::sync::mpsc::{self, Receiver, RecvTimeoutError};
use std::time::{Duration, Instant, SystemTime};

/// How strong the engine plays: a `Skill Level` (0..20) or an Elo (`UCI_Elo`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Level {
    Skill(i32),
    Elo(i32),
}

impl FromStr for Level {
    type Err = String;

    fn from_str(text: &str) -> Result<Level, String> {
        match text.trim().parse::<i32>() {
            Ok(n) if (0..=MAX_SKILL_LEVEL).contains(&n) => Ok(Level::Skill(n)),
            Ok(n) if (MIN_ELO..=MAX_ELO).contains(&n) => Ok(Level::Elo(n)),
            _ => Err(format!("a level is {}, got '{}'", level_range(), text.trim())),
        }
    }
}

impl Level {
    /// What the engine is told: the Elo itself, or a Skill Level with `UCI_LimitStrength` off.
    fn options(self) -> [(OptionId, String); 2] {
        match self {
            Level::Elo(elo) => [(OptionId::UciLimitStrength, "true".into()), (OptionId::UciElo, elo.to_string())],
            Level::Skill(skill) => {
                [(OptionId::UciLimitStrength, "false".into()), (OptionId::SkillLevel, skill.to_string())]
            }
        }
    }

    fn elo(self) -> i32 {
        match self {
            Level::Elo(elo) => elo,
            Level::Skill(skill) => Strength::skill_level_elo(skill),
        }
    }

    fn describe(self) -> String {
        match self {
            _ if self.elo() >= MAX_ELO => "full strength".to_string(),
            Level::Elo(elo) => format!("Elo {elo}"),
            Level::Skill(skill) => format!("Skill Level {skill} (Elo {})", self.elo()),
        }
    }
}

/// Which side the player takes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum ColorChoice {
    White,
    Black,
    Random,
}

/// What `sentinel play` was asked for on the command line.
pub struct Options {
    /// The engine's level; by default the saved game's, else `DEFAULT_LEVEL`.
    pub level: Option<Level>,
    /// The player's side; by default the saved game's, else the side to move.
    pub color: Option<ColorChoice>,
    pub fen: Option<String>,
    pub load: Option<String>,
    pub time_control: Option<TimeControl>,
    pub ascii: bool,
    pub no_color: bool,
    /// `Skill Seed`: the same seed and moves give the same replies.
    pub seed: Option<u32>,
}

/// A club player's level: a fair game for many people, and a quick one.
const DEFAULT_LEVEL: Level = Level::Elo(1500);
/// The engine's thinking time per move when there are no clocks.
const UNTIMED_MOVE_TIME: Duration = Duration::from_secs(2);
const HINT_TIME: Duration = Duration::from_secs(1);
/// Width of the move list.
const LINE_WIDTH: usize = 72;
const ENGINE_NAME: &str = "Sentinel";
const PLAYER_NAME: &str = "Player";
/// The engine takes a draw when it is this much worse (centipawns), or when the position is
/// dead level (within `LEVEL_SCORE`) from move `LEVEL_MOVE` on.
const DRAW_ACCEPT_SCORE: i32 = -50;
const LEVEL_SCORE: i32 = 15;
const LEVEL_MOVE: u16 = 30;

/// The levels there are, from the strength table.
fn level_range() -> String {
    format!("a Skill Level from 0 to {MAX_SKILL_LEVEL} or an Elo from {MIN_ELO} to {MAX_ELO}")
}

/// What `--level` takes, for the command line's help.
pub fn level_help() -> String {
    let default = DEFAULT_LEVEL.describe();
    format!(
        "The engine's level: {} (Skill Level {MAX_SKILL_LEVEL} is full strength). Default {default}, or the level \
         of the game loaded.",
        level_range()
    )
}

/// The commands, with the levels' ranges from the strength table.
fn help() -> String {
    format!(
        "\
Type a move in SAN (Nf3, exd5, O-O, e8=Q) or coordinates (g1f3), or a command:
  moves          list the legal moves
  hint           suggest a move
  undo           take back your last move and the engine's reply
  board          draw the board again; flip turns it round
  level N        set the engine's level: Skill Level 0..{MAX_SKILL_LEVEL}, or an Elo {MIN_ELO}..{MAX_ELO}
  save FILE      save the game as PGN
  load FILE      load a game from a PGN file, or a position from a FEN (file or text)
  fen            show the position as FEN
  new            start a new game
  resign, draw   resign, or offer a draw
  help, quit"
    )
}

/// How a game ended: the result, in words, and the PGN `Termination`.
#[derive(Clone, Debug)]
struct Ending {
    result: PgnResult,
    reason: String,
    termination: &'static str,
}

/// What the main loop does next.
enum Flow {
    Continue,
    Quit,
}

enum Input {
    Line(String),
    /// The player's time ran out while waiting.
    Timeout,
    Closed,
}

struct Session {
    engine: Engine,
    events: Receiver<Event>,
    /// Lines that arrived while the engine was thinking.
    backlog: VecDeque<String>,
    input_closed: bool,
    style: Style,
    player: Color,
    /// The colour choice for `new` (none: the same side again).
    color_choice: Option<ColorChoice>,
    /// The board is drawn from the player's side unless flipped.
    flipped: bool,
    level: Level,
    /// The game: where it started and the moves since, for the move list and PGN.
    start_fen: String,
    moves: Vec<Move>,
    ending: Option<Ending>,
    clocks: Option<Clocks>,
    /// When the player's clock started on this move.
    turn_started: Option<Instant>,
    /// The engine's score after its last move, from its side, for draw offers.
    engine_score: Option<Score>,
}

/// Plays games until `quit` or the end of input.
pub fn run(options: Options) -> Result<(), String> {
    let (sender, events) = mpsc::channel();
    spawn_reader(sender.clone());
    let mut engine = Engine::new(report_sink(sender));
    if let Some(seed) = options.seed {
        let command = EngineCommand::SetOption { option: OptionId::SkillSeed, value: Some(seed.to_string()) };
        engine.execute(command).map_err(|e| e.to_string())?;
    }
    let mut session = Session {
        engine,
        events,
        backlog: VecDeque::new(),
        input_closed: false,
        style: Style::detect(options.ascii, options.no_color),
        player: Color::White,
        color_choice: options.color,
        flipped: false,
        level: options.level.unwrap_or(DEFAULT_LEVEL),
        start_fen: crate::board::START_FEN.to_string(),
        moves: Vec::new(),
        ending: None,
        clocks: options.time_control.map(Clocks::new),
        turn_started: None,
        engine_score: None,
    };
    if let Some(fen) = &options.fen {
        session.set_game(fen, &[], None)?;
    }
    if let Some(path) = &options.load {
        let game = read_game(path).map_err(|message| format!("cannot load {path}: {message}"))?;
        session.set_game(&game.start_fen, &game.moves, Some(&game))?;
    }
    // Explicit choices win over a saved game's.
    if let Some(level) = options.level {
        session.level = level;
    }
    if let Some(choice) = options.color {
        session.player = choose_color(choice);
    }
    session.tell_engine(session.level)?;
    session.greet();
    session.run();
    let _ = session.engine.execute(EngineCommand::Quit);
    Ok(())
}

fn choose_color(choice: ColorChoice) -> Color {
    match choice {
        ColorChoice::White => Color::White,
        ColorChoice::Black => Color::Black,
        ColorChoice::Random if rand::random_bool(0.5) => Color::White,
        ColorChoice::Random => Color::Black,
    }
}

fn side_name(side: Color) -> &'static str {
    match side {
        Color::White => "White",
        Color::Black => "Black",
    }
}

fn say(line: impl AsRef<str>) {
    let mut out = std::io::stdout().lock();
    // A closed stdout means nobody is reading; the end of stdin will end the session.
    let _ = writeln!(out, "{}", line.as_ref()).and_then(|_| out.flush());
}

/// A line over the reader's limit was dropped; `start` is its beginning.
fn say_too_long(start: &str) {
    say(format!("That line is too long to be a move or a command: {start}"));
}

fn prompt(text: &str) {
    let mut out = std::io::stdout().lock();
    let _ = write!(out, "{text}").and_then(|_| out.flush());
}

impl Session {
    fn greet(&mut self) {
        say(format!(
            "Sentinel {} at {}: you play {}.{} Type 'help' for the commands.",
            crate::VERSION,
            self.level.describe(),
            side_name(self.player),
            match &self.clocks {
                Some(clocks) => format!(" Clocks: {} each.", clocks.control),
                None => String::new(),
            }
        ));
        self.show();
    }

    fn run(&mut self) {
        loop {
            let flow = if self.ending.is_none() && self.board().side_to_move() != self.player {
                self.engine_turn()
            } else {
                self.player_turn()
            };
            if let Flow::Quit = flow {
                return;
            }
        }
    }

    fn board(&self) -> &Board {
        self.engine.board()
    }

    /// Waits for the player's next line; with clocks, no longer than the player's time.
    fn player_turn(&mut self) -> Flow {
        let playing = self.ending.is_none();
        if playing && self.turn_started.is_none() {
            self.turn_started = Some(Instant::now());
        }
        let deadline = match (&self.clocks, self.turn_started) {
            (Some(clocks), Some(started)) if playing => Some(started + clocks.remaining(self.player)),
            _ => None,
        };
        prompt(&match playing {
            true => format!("{} {}> ", side_name(self.player), self.board().fullmove_number()),
            false => "> ".to_string(),
        });
        match self.next_line(deadline) {
            Input::Line(line) => self.command(&line),
            Input::Timeout => {
                say("");
                self.spend_player_time();
                Flow::Continue
            }
            Input::Closed => {
                say("");
                Flow::Quit
            }
        }
    }

    fn next_line(&mut self, deadline: Option<Instant>) -> Input {
        if let Some(line) = self.backlog.pop_front() {
            return Input::Line(line);
        }
        loop {
            if self.input_closed {
                return Input::Closed;
            }
            let event = match deadline {
                Some(deadline) => match self.events.recv_timeout(deadline.saturating_duration_since(Instant::now())) {
                    Ok(event) => event,
                    Err(RecvTimeoutError::Timeout) => return Input::Timeout,
                    Err(RecvTimeoutError::Disconnected) => return Input::Closed,
                },
                None => match self.events.recv() {
                    Ok(event) => event,
                    Err(_) => return Input::Closed,
                },
            };
            match event {
                Event::Line(line) => return Input::Line(line),
                Event::InputClosed => self.input_closed = true,
                Event::TooLong(start) => say_too_long(&start),
                // Every search is waited for in `search`: nothing of one is left over.
                Event::Search(..) => {}
            }
        }
    }

    /// One line from the player: a command or a move.
    fn command(&mut self, line: &str) -> Flow {
        let (word, args) = crate::protocol::split_command(line);
        match word.to_ascii_lowercase().as_str() {
            "" => {}
            "quit" | "exit" => return Flow::Quit,
            "help" | "?" => say(help()),
            "moves" => self.list_moves(),
            "hint" => self.hint(),
            "undo" => self.undo(),
            "board" => self.show(),
            "flip" => {
                self.flipped = !self.flipped;
                self.show();
            }
            "level" => match args.parse::<Level>() {
                Ok(level) => match self.set_level(level) {
                    Ok(()) => say(format!("The engine now plays at {}.", self.level.describe())),
                    Err(message) => say(message),
                },
                Err(message) => say(format!("Cannot set the level: {message}.")),
            },
            "save" => self.save(args),
            "load" => self.load(args),
            "fen" => say(self.board().to_fen()),
            "new" => self.new_game(),
            "resign" => self.resign(),
            "draw" => self.offer_draw(),
            _ => self.player_move(line.trim()),
        }
        Flow::Continue
    }

    fn player_move(&mut self, text: &str) {
        if let Some(ending) = &self.ending {
            return say(format!(
                "The game is over ({}, {}): 'new' starts another, 'undo' takes back a move.",
                ending.reason,
                ending.result.as_str()
            ));
        }
        match parse_move_text(self.board(), text) {
            Ok(mv) => {
                if !self.spend_player_time() {
                    return;
                }
                say(format!("You play {}", self.numbered_san(mv)));
                self.play(mv);
                if self.ending.is_some() {
                    self.show();
                }
            }
            Err(SanError::Illegal { text }) => {
                say(format!("Illegal move '{text}' here. Type 'moves' for the legal moves."))
            }
            Err(error @ SanError::Ambiguous { .. }) => say(format!("{}.", capitalise(&error.to_string()))),
            Err(SanError::Syntax { text, reason }) => {
                say(format!("'{text}' is neither a command nor a move ({reason}). Type 'help' for the commands."))
            }
        }
    }

    /// Stops the player's clock for a move; false if the time had already run out (which ends
    /// the game).
    fn spend_player_time(&mut self) -> bool {
        let Some(started) = self.turn_started.take() else { return true };
        let Some(clocks) = &mut self.clocks else { return true };
        if clocks.spend(self.player, started.elapsed()) {
            return true;
        }
        self.flag_fell(self.player);
        false
    }

    fn engine_turn(&mut self) -> Flow {
        let side = self.board().side_to_move();
        let limits = match &self.clocks {
            Some(clocks) => Limits {
                clock: Some(Clock {
                    remaining: clocks.remaining(side),
                    increment: clocks.control.increment,
                    moves_to_go: None,
                }),
                ..Limits::default()
            },
            None => Limits { movetime: Some(UNTIMED_MOVE_TIME), ..Limits::default() },
        };
        let started = Instant::now();
        let Some((best, score)) = self.search(limits) else { return Flow::Quit };
        self.engine_score = score.or(self.engine_score);
        if let Some(clocks) = &mut self.clocks
            && !clocks.spend(side, started.elapsed())
        {
            self.flag_fell(side);
            return Flow::Continue;
        }
        let Some(mv) = best else {
            // Only a finished game leaves no move, and then the engine is not asked.
            say("The engine found no move.");
            return Flow::Quit;
        };
        say(format!("{ENGINE_NAME} plays {}", self.numbered_san(mv)));
        self.play(mv);
        self.show();
        Flow::Continue
    }

    /// Runs a search to its end and returns its move and last score (None if the engine
    /// could not search). Lines typed meanwhile wait in the backlog, `quit` too: a script
    /// sends its lines at once, and they mean what they say in order.
    fn search(&mut self, limits: Limits) -> Option<(Option<Move>, Option<Score>)> {
        let id = match self.engine.execute(EngineCommand::Go(limits)) {
            Ok(Outcome::Searching(id)) => id,
            other => {
                say(format!("The engine cannot search: {other:?}"));
                return None;
            }
        };
        let mut score = None;
        loop {
            match self.events.recv() {
                Ok(Event::Line(line)) => self.backlog.push_back(line),
                Ok(Event::InputClosed) => self.input_closed = true,
                Ok(Event::TooLong(start)) => say_too_long(&start),
                Ok(Event::Search(from, report)) if from == id => match report {
                    Report::Info(info) if info.multipv == 1 => score = Some(info.search_score),
                    Report::Info(_) | Report::CurrMove { .. } => {}
                    Report::BestMove { best, .. } => return Some((best, score)),
                },
                Ok(Event::Search(..)) => {}
                Err(_) => return None,
            }
        }
    }

    /// Plays a legal move in the game and sees whether it ended it.
    fn play(&mut self, mv: Move) {
        if let Err(e) = self.engine.execute(EngineCommand::PlayMove(mv)) {
            return say(format!("Cannot play {mv}: {e}"));
        }
        self.moves.push(mv);
        if let Some(end) = self.engine.game_over() {
            self.end(pgn_result(end.result), end_reason(end.reason).to_string(), "normal");
        }
    }

    fn end(&mut self, result: PgnResult, reason: String, termination: &'static str) {
        let verdict = match result {
            PgnResult::WhiteWins => "White wins",
            PgnResult::BlackWins => "Black wins",
            PgnResult::Draw | PgnResult::Unknown => "draw",
        };
        say(format!("Game over: {reason}; {verdict} ({}).", result.as_str()));
        self.ending = Some(Ending { result, reason, termination });
        self.turn_started = None;
    }

    /// The side whose time ran out loses, unless the other has only its king left: a lone
    /// king cannot mate, so the game is drawn.
    fn flag_fell(&mut self, side: Color) {
        let other = !side;
        let lone_king =
            PieceKind::ALL.iter().all(|&kind| kind == PieceKind::King || self.board().count(other, kind) == 0);
        let result = match (lone_king, other) {
            (true, _) => PgnResult::Draw,
            (false, Color::White) => PgnResult::WhiteWins,
            (false, Color::Black) => PgnResult::BlackWins,
        };
        let mut reason = format!("{}'s time ran out", side_name(side));
        if lone_king {
            reason.push_str(&format!(", but {} has only the king", side_name(other)));
        }
        self.end(result, reason, "time forfeit");
    }

    /// The board (from the player's side unless flipped), the clocks and the move list.
    fn show(&self) {
        let bottom = if self.flipped { !self.player } else { self.player };
        say("");
        for line in render::board(self.board(), bottom, self.board().last_move(), self.style) {
            say(line);
        }
        if let Some(clocks) = &self.clocks {
            let mark = |side| if self.board().side_to_move() == side && self.ending.is_none() { " *" } else { "" };
            say(format!(
                "    White {}{}   Black {}{}",
                clock::format(clocks.remaining(Color::White)),
                mark(Color::White),
                clock::format(clocks.remaining(Color::Black)),
                mark(Color::Black)
            ));
        }
        if let Ok(mut start) = Board::from_fen(&self.start_fen) {
            for line in render::wrap(&movetext(&mut start, &self.moves), LINE_WIDTH) {
                say(format!("    {line}"));
            }
        }
        if let Some(ending) = &self.ending {
            say(format!("    {} ({})", ending.result.as_str(), ending.reason));
        }
        say("");
    }

    /// `12. Nf3` or `12... Nf6`: a move of the current position as it goes into the game.
    fn numbered_san(&self, mv: Move) -> String {
        let board = self.board();
        let dots = if board.side_to_move() == Color::White { "." } else { "..." };
        format!("{}{dots} {}", board.fullmove_number(), to_san(board, mv))
    }

    fn list_moves(&self) {
        if self.ending.is_some() {
            return say("The game is over: there are no moves to play.");
        }
        let mut moves: Vec<String> = self.engine.legal_moves().into_iter().map(|mv| to_san(self.board(), mv)).collect();
        moves.sort();
        say(format!("Legal moves ({}): {}", moves.len(), moves.join(" ")));
    }

    /// A full-strength search for the player's side.
    fn hint(&mut self) {
        if self.ending.is_some() {
            return say("There is nothing to hint at: the game is over.");
        }
        if let Err(message) = self.tell_engine(Level::Skill(MAX_SKILL_LEVEL)) {
            return say(message);
        }
        let limits = Limits { movetime: Some(HINT_TIME), ..Limits::default() };
        let found = self.search(limits);
        if let Err(message) = self.tell_engine(self.level) {
            say(message);
        }
        match found {
            Some((Some(mv), _)) => say(format!("Hint: {}", to_san(self.board(), mv))),
            _ => say("No hint found."),
        }
    }

    /// Takes back the player's last move and anything the engine played after it.
    fn undo(&mut self) {
        let plies = if self.board().side_to_move() == self.player { 2 } else { 1 };
        if plies > self.moves.len() {
            return say("There is no move of yours to take back.");
        }
        if let Err(e) = self.engine.execute(EngineCommand::TakeBack(plies)) {
            return say(format!("Cannot take back: {e}."));
        }
        self.moves.truncate(self.moves.len() - plies);
        self.ending = None;
        self.turn_started = None;
        say(format!("Took back {plies} half-move{}.", if plies == 1 { "" } else { "s" }));
        self.show();
    }

    fn resign(&mut self) {
        if self.ending.is_some() {
            return say("The game is over already.");
        }
        let result = match self.player {
            Color::White => PgnResult::BlackWins,
            Color::Black => PgnResult::WhiteWins,
        };
        self.end(result, format!("{} resigns", side_name(self.player)), "normal");
    }

    /// The engine takes a draw when its last search found it worse, or the position dead level
    /// late in the game.
    fn offer_draw(&mut self) {
        if self.ending.is_some() {
            return say("The game is over already.");
        }
        let late = self.board().fullmove_number() >= LEVEL_MOVE;
        let accept = match self.engine_score {
            Some(Score::Mate(moves)) => moves < 0,
            Some(Score::Centipawns(cp)) => cp <= DRAW_ACCEPT_SCORE || (late && cp.abs() <= LEVEL_SCORE),
            None => false,
        };
        if accept {
            say(format!("{ENGINE_NAME} accepts the draw."));
            self.end(PgnResult::Draw, "draw agreed".to_string(), "normal");
        } else {
            say(format!("{ENGINE_NAME} declines the draw; play on."));
        }
    }

    fn new_game(&mut self) {
        if let Err(e) = self.engine.execute(EngineCommand::NewGame) {
            return say(format!("Cannot start a new game: {e}."));
        }
        self.start_fen = crate::board::START_FEN.to_string();
        self.moves.clear();
        self.ending = None;
        self.engine_score = None;
        if let Some(choice) = self.color_choice {
            self.player = choose_color(choice);
        }
        self.clocks = self.clocks.as_ref().map(|clocks| Clocks::new(clocks.control));
        self.turn_started = None;
        say(format!("New game: you play {}.", side_name(self.player)));
        self.show();
    }

    /// Plays at `level` from now on.
    fn set_level(&mut self, level: Level) -> Result<(), String> {
        self.tell_engine(level)?;
        self.level = level;
        Ok(())
    }

    /// Sets the engine's strength options for `level` (the option table's ranges hold every
    /// `Level`, so a refusal would be a bug, reported rather than hidden).
    fn tell_engine(&mut self, level: Level) -> Result<(), String> {
        for (option, value) in level.options() {
            let command = EngineCommand::SetOption { option, value: Some(value) };
            self.engine.execute(command).map_err(|e| format!("Cannot set the level: {e}."))?;
        }
        Ok(())
    }

    fn save(&self, path: &str) {
        if path.is_empty() {
            return say("Save where? Type 'save FILE.pgn'.");
        }
        match std::fs::write(path, write_pgn(&self.pgn())) {
            Ok(()) => say(format!("Saved the game to {path}.")),
            Err(e) => say(format!("Cannot save to {path}: {e}.")),
        }
    }

    /// The game with the Seven Tag Roster, the engine's level as its Elo, the time control
    /// and how it ended.
    fn pgn(&self) -> PgnGame {
        let (white, black) = match self.player {
            Color::White => (PLAYER_NAME, ENGINE_NAME),
            Color::Black => (ENGINE_NAME, PLAYER_NAME),
        };
        let engine_elo = if self.player == Color::White { "BlackElo" } else { "WhiteElo" };
        let mut tags = vec![
            ("Event".to_string(), "Casual game".to_string()),
            ("Site".to_string(), "sentinel play".to_string()),
            ("Date".to_string(), today()),
            ("Round".to_string(), "-".to_string()),
            ("White".to_string(), white.to_string()),
            ("Black".to_string(), black.to_string()),
            (engine_elo.to_string(), self.level.elo().min(MAX_ELO).to_string()),
        ];
        if let Some(clocks) = &self.clocks {
            tags.push(("TimeControl".to_string(), clocks.control.pgn_tag()));
        }
        if let Some(ending) = &self.ending {
            tags.push(("Termination".to_string(), ending.termination.to_string()));
        }
        PgnGame {
            tags,
            start_fen: self.start_fen.clone(),
            moves: self.moves.clone(),
            result: self.ending.as_ref().map_or(PgnResult::Unknown, |e| e.result),
            comments: Vec::new(),
        }
    }

    fn load(&mut self, path: &str) {
        if path.is_empty() {
            return say("Load what? Type 'load FILE.pgn', or 'load' and a FEN.");
        }
        let game = read_game(path).and_then(|game| {
            self.set_game(&game.start_fen, &game.moves, Some(&game))?;
            Ok(game)
        });
        match game {
            Ok(game) => {
                let plies = game.moves.len();
                say(format!(
                    "Loaded {plies} half-move{} from {path}: you play {}, the engine at {}.",
                    if plies == 1 { "" } else { "s" },
                    side_name(self.player),
                    self.level.describe()
                ));
                if let Err(message) = self.tell_engine(self.level) {
                    say(message);
                }
                self.show();
            }
            Err(message) => say(format!("Cannot load {path}: {message}. The game in progress goes on.")),
        }
    }

    /// Replaces the game with one from `start_fen` and `moves`, or changes nothing if the
    /// engine will not take it. A game saved by `play` also gives the sides and the level.
    fn set_game(&mut self, start_fen: &str, moves: &[Move], saved: Option<&PgnGame>) -> Result<(), String> {
        let mut board = Board::from_fen(start_fen).map_err(|e| e.to_string())?;
        let mut texts = Vec::with_capacity(moves.len());
        for &mv in moves {
            texts.push(board.move_text(mv, false));
            board.make_move(mv);
        }
        let command = EngineCommand::SetPosition { fen: Some(start_fen.to_string()), moves: texts };
        self.engine.execute(command).map_err(|e| e.to_string())?;
        self.start_fen = start_fen.to_string();
        self.moves = moves.to_vec();
        self.ending = None;
        self.engine_score = None;
        self.turn_started = None;
        self.clocks = self.clocks.as_ref().map(|clocks| Clocks::new(clocks.control));
        self.player = self.board().side_to_move();
        if let Some(game) = saved {
            let engine_side = [Color::White, Color::Black]
                .into_iter()
                .find(|&side| game.tag(side_name(side)).is_some_and(|name| name.starts_with(ENGINE_NAME)));
            if let Some(side) = engine_side {
                self.player = !side;
                let elo_tag = format!("{}Elo", side_name(side));
                if let Some(level) = game.tag(&elo_tag).and_then(|elo| elo.parse::<Level>().ok()) {
                    self.level = level;
                }
            }
            if game.result != PgnResult::Unknown {
                self.ending =
                    Some(Ending { result: game.result, reason: "as recorded".to_string(), termination: "normal" });
            }
        }
        if let Some(end) = self.engine.game_over() {
            let reason = end_reason(end.reason).to_string();
            self.ending = Some(Ending { result: pgn_result(end.result), reason, termination: "normal" });
        }
        Ok(())
    }
}

/// The first game of a PGN file, or a position from a FEN (a file holding one, or the text
/// itself).
fn read_game(source: &str) -> Result<PgnGame, String> {
    let text = match std::fs::read_to_string(source) {
        Ok(text) => text,
        Err(error) => {
            return Board::from_fen(source)
                .map(|board| PgnGame { start_fen: board.to_fen(), ..PgnGame::default() })
                .map_err(|_| error.to_string());
        }
    };
    let lines: Vec<&str> = text.lines().map(str::trim).filter(|l| !l.is_empty()).collect();
    if let [line] = lines[..]
        && let Ok(board) = Board::from_fen(line)
    {
        return Ok(PgnGame { start_fen: board.to_fen(), ..PgnGame::default() });
    }
    let games = parse_pgn(&text).map_err(|e| e.to_string())?;
    games.into_iter().next().ok_or_else(|| "it holds no game".to_string())
}

fn end_reason(reason: EndReason) -> &'static str {
    match reason {
        EndReason::Checkmate => "checkmate",
        EndReason::Stalemate => "stalemate",
        EndReason::FiftyMoveRule => "draw by the fifty-move rule",
        EndReason::ThreefoldRepetition => "draw by threefold repetition",
        EndReason::InsufficientMaterial => "draw by insufficient material",
    }
}

fn pgn_result(result: GameResult) -> PgnResult {
    match result {
        GameResult::WhiteWins => PgnResult::WhiteWins,
        GameResult::BlackWins => PgnResult::BlackWins,
        GameResult::Draw => PgnResult::Draw,
    }
}

fn capitalise(text: &str) -> String {
    let mut chars = text.chars();
    chars.next().map_or(String::new(), |first| first.to_uppercase().chain(chars).collect())
}

/// Today's date as PGN writes it (`2026.11.03`), in UTC.
fn today() -> String {
    let days = SystemTime::now().duration_since(SystemTime::UNIX_EPOCH).map_or(0, |d| d.as_secs() / 86_400);
    let (year, month, day) = civil_date(days);
    format!("{year:04}.{month:02}.{day:02}")
}

/// The Gregorian date `days` after 1970-01-01.
pub fn civil_date(mut days: u64) -> (u64, u64, u64) {
    let leap = |year: u64| year.is_multiple_of(4) && (!year.is_multiple_of(100) || year.is_multiple_of(400));
    let mut year = 1970;
    while days >= 365 + u64::from(leap(year)) {
        days -= 365 + u64::from(leap(year));
        year += 1;
    }
    let lengths = [31, 28 + u64::from(leap(year)), 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];
    let mut month = 0;
    while days >= lengths[month] {
        days -= lengths[month];
        month += 1;
    }
    (year, month as u64 + 1, days + 1)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn levels_read_as_skill_or_elo() {
        assert_eq!("0".parse(), Ok(Level::Skill(0)));
        assert_eq!("20".parse(), Ok(Level::Skill(20)));
        assert_eq!(" 1500 ".parse(), Ok(Level::Elo(1500)));
        for bad in ["21", "799", "99999", "-1", "strong", ""] {
            assert!(bad.parse::<Level>().is_err(), "{bad}");
        }
        assert_eq!(Level::Skill(MAX_SKILL_LEVEL).describe(), "full strength");
        assert_eq!(Level::Elo(1500).describe(), "Elo 1500");
    }

    #[test]
    fn dates() {
        assert_eq!(civil_date(0), (1970, 1, 1));
        assert_eq!(civil_date(11_016), (2000, 2, 29));
        assert_eq!(civil_date(11_017), (2000, 3, 1));
        assert_eq!(civil_date(19_782), (2024, 2, 29));
        assert_eq!(civil_date(20_818), (2026, 12, 31));
        assert_eq!(civil_date(20_819), (2027, 1, 1));
    }
}
