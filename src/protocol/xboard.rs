//! The XBoard (CECP) protocol, version 2. Unlike UCI the engine keeps the game: the GUI sends
//! single moves, says which side the engine plays, and expects the engine to move by itself
//! and to claim the result when the game ends.
//!
//! Pondering (`hard`): after its move the engine plays the reply it expects and searches on
//! the opponent's time. If the opponent plays that reply the search goes on under our clock
//! (a ponder hit); any other move, or any command that touches the game, takes the expected
//! reply back first.

use super::{Event, MAX_LINE, Output, Protocol, parse_whole, split_command};
use crate::engine::options::{Kind, OptionId, Shown};
use crate::engine::{
    Bound, Clock, Color, EndReason, Engine, EngineCommand, GameResult, Info, Limits, Move, Outcome, Report, Score,
    SearchId,
};
use crate::quote::{MESSAGE_LIMIT, QUOTE_LIMIT, excerpt};
use std::sync::mpsc::Receiver;
use std::time::{Duration, Instant};

/// How thinking time is given.
#[derive(Clone, Copy, Debug, PartialEq)]
enum TimeControl {
    /// `level MPS BASE INC`: `moves` per session (0 for the whole game), with an increment.
    Level { moves: u32, base: Duration, increment: Duration },
    /// `st SECONDS`: a fixed time per move.
    PerMove(Duration),
    /// The GUI has given none (GNOME Chess sends neither `level` nor `st` nor `time`, even
    /// when its own clock runs): `NO_CLOCK_MOVE_TIME` a move, or with `time` alone a
    /// sudden-death clock.
    NoClock,
}

/// The time a move takes when the GUI has given no time control. A person waiting on the
/// other side of the board wants a reply in a moment, not the twenty seconds a guessed
/// five-minute clock gave; and a GUI's own clock that the engine is not told of is most
/// often a few minutes, of which a second a move leaves enough (its shortest, GNOME Chess's
/// one minute, lasts some 55 moves).
const NO_CLOCK_MOVE_TIME: Duration = Duration::from_secs(1);

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Task {
    /// Thinking on our own move; its result is played.
    Move,
    /// Thinking on the opponent's time, with `predicted` already played on the board.
    Ponder {
        predicted: Move,
    },
    Analyze,
}

#[derive(Clone, Copy, Debug)]
struct Thinking {
    id: SearchId,
    task: Task,
    /// A ponder search that ended before the opponent moved keeps its best and ponder moves.
    finished: Option<(Option<Move>, Option<Move>)>,
}

struct XBoard<'a> {
    engine: Engine,
    out: &'a mut Output,
    game: Game,
    post: bool,
    ponder: bool,
    time_control: TimeControl,
    /// When our clock started on the current move: when the GUI's `usermove` or `go` came.
    move_started: Instant,
    thinking: Option<Thinking>,
    /// `ping`s received while thinking on our move: answered once the move is out.
    pongs: Vec<String>,
    last_info: Option<Info>,
}

/// What belongs to one game, all of which `new` starts afresh (the protocol's `new`: the engine
/// plays Black, leaves analysis, drops the `sd` depth limit, resets the clocks and measures
/// time by the wall clock). What the GUI set for the session (`post`, `hard`, the time
/// control) stays.
struct Game {
    /// The colour the engine plays; `None` in force mode.
    engine_color: Option<Color>,
    analyzing: bool,
    max_depth: Option<i32>,
    /// Our clock as the last `time` command gave it, less the time we used since.
    our_time: Option<Duration>,
    /// The plies played when `level` came: its sessions count from there. XBoard sends it
    /// before the first move; python-chess sends it before every move, with the moves left
    /// in the current session, and counting those from the game's start misjudges the
    /// moves to go (6 left in a 40-move session read as 2).
    level_ply: usize,
    /// Root moves left out of the analysis (`exclude`), until the position changes.
    excluded: Vec<Move>,
    /// `nps N`: the clock counts nodes, N to the second (python-chess sends `nps 1` and `st N`
    /// for a limit of N nodes).
    nps: Option<u64>,
    /// The reply our last search expected to our move: the `hint` for the opponent.
    expected_reply: Option<Move>,
    /// The scores of our recent moves, from our side, to judge draw offers by.
    our_scores: Vec<i32>,
}

impl Game {
    fn new() -> Game {
        Game {
            engine_color: Some(Color::Black),
            analyzing: false,
            max_depth: None,
            our_time: None,
            level_ply: 0,
            excluded: Vec::new(),
            nps: None,
            expected_reply: None,
            our_scores: Vec::new(),
        }
    }
}

/// Commands that leave a ponder search running; every other command ends it first.
const KEEP_PONDERING: [&str; 13] = [
    "ping", "time", "otim", "usermove", "post", "nopost", "hard", "computer", "name", "accepted", "rejected", "draw",
    "hint",
];

/// Runs the protocol; the `xboard` line that chose it has been read.
pub fn run(engine: Engine, events: &Receiver<Event>, out: &mut Output) {
    super::serve(&mut XBoard::new(engine, out), events);
}

impl<'a> XBoard<'a> {
    fn new(engine: Engine, out: &'a mut Output) -> XBoard<'a> {
        XBoard {
            engine,
            out,
            game: Game::new(),
            post: false,
            ponder: false,
            time_control: TimeControl::NoClock,
            move_started: Instant::now(),
            thinking: None,
            pongs: Vec::new(),
            last_info: None,
        }
    }

    fn error(&mut self, reason: &str, line: &str) {
        let (reason, line) = (excerpt(reason, MESSAGE_LIMIT), excerpt(line, QUOTE_LIMIT));
        log::info!("{reason}: {line}");
        self.out.send(format!("Error ({reason}): {line}"));
    }

    fn execute(&mut self, command: EngineCommand) -> Option<Outcome> {
        match self.engine.execute(command) {
            Ok(outcome) => Some(outcome),
            Err(e) => {
                log::error!("engine refused a command the protocol checked: {e}");
                None
            }
        }
    }

    fn set_option(&mut self, option: OptionId, value: Option<String>, line: &str) {
        match self.engine.execute(EngineCommand::SetOption { option, value }) {
            Ok(Outcome::Notice(notice)) => self.out.send(format!("# {notice}")),
            Ok(_) => {}
            Err(e) => self.error(&e.to_string(), line),
        }
    }

    fn features(&mut self) {
        let name = format!("Sentinel {}", crate::VERSION);
        // sigterm is left at its default: a GUI may end us with SIGTERM, which is fine, and some
        // (python-chess) reject `sigterm=0` with a warning.
        self.out.send(format!(
            "feature myname=\"{name}\" ping=1 setboard=1 playother=1 usermove=1 time=1 sigint=0 reuse=1 \
             analyze=1 colors=0 name=1 memory=1 smp=1 exclude=1 nps=1 egt=\"syzygy\" \
             variants=\"normal,fischerandom\" done=0"
        ));
        for spec in Engine::options().iter().filter(|spec| spec.shown != Shown::UciOnly) {
            let kind = match spec.kind {
                Kind::Spin { default, min, max } => format!("-spin {default} {min} {max}"),
                Kind::Check { default } => format!("-check {}", u8::from(default)),
                Kind::Button => "-button".to_string(),
                Kind::String { default } => format!("-file {default}"),
            };
            self.out.send(format!("feature option=\"{} {kind}\"", spec.name));
        }
        self.out.send("feature done=1");
    }

    /// `memory N` and `cores N`: the GUI's setting for every engine, which may lie beyond what
    /// this one's option allows; it is applied as near as the range allows, with a comment
    /// saying so (CECP has no way to refuse these commands).
    fn set_clamped(&mut self, option: OptionId, command: &str, args: &str, line: &str) {
        let Some(asked) = parse_whole(args) else {
            return self.error(&format!("{command} needs a whole number"), line);
        };
        let (value, notice) = clamp_to_spin(option, command, asked);
        if let Some(notice) = notice {
            self.out.send(notice);
        }
        self.set_option(option, Some(value.to_string()), line);
    }

    /// `option NAME=VALUE`, or `option NAME` for a button.
    fn option(&mut self, args: &str, line: &str) {
        let (name, value) = match args.split_once('=') {
            Some((name, value)) => (name.trim(), Some(value.trim())),
            None => (args.trim(), None),
        };
        match OptionId::named(name) {
            Ok(option) => self.set_option(option, value.map(str::to_string), line),
            Err(e) => self.error(&e.to_string(), line),
        }
    }

    /// A move from the opponent (or from the user in force mode).
    fn user_move(&mut self, text: &str) {
        // The GUI started our clock when it sent the move: what happens before the search
        // starts (stopping a ponder search that guessed wrong, which can take a while on a
        // busy machine) is our time too.
        self.move_started = Instant::now();
        if let Some(thinking) = self.thinking
            && let Task::Ponder { predicted } = thinking.task
        {
            if text.eq_ignore_ascii_case(&self.move_text(predicted)) {
                log::debug!("ponder hit: {predicted}");
                self.execute(EngineCommand::PonderHit);
                match thinking.finished {
                    Some((best, ponder)) => {
                        self.thinking = None;
                        self.play_own_move(best, ponder);
                    }
                    None => self.thinking = Some(Thinking { task: Task::Move, ..thinking }),
                }
                return;
            }
            self.cancel_ponder();
        }
        let Some(mv) = self.engine.parse_move(text) else {
            self.out.send(format!("Illegal move: {}", excerpt(text, QUOTE_LIMIT)));
            return;
        };
        self.cancel_thinking();
        if self.execute(EngineCommand::PlayMove(mv)).is_some() {
            self.after_user_move();
        }
    }

    /// After a take-back or a new position: analysis goes on from there. (XBoard sends these
    /// in force mode; the engine moves only after `go` or a move.)
    fn position_set(&mut self) {
        self.game.excluded.clear();
        if self.game.analyzing {
            self.analyze();
        }
    }

    /// After the opponent's move: claim the result if the game is over, otherwise think if it
    /// is our turn (or go on analysing).
    fn after_user_move(&mut self) {
        self.game.excluded.clear();
        if self.game.analyzing {
            self.analyze();
        } else if self.game.engine_color == Some(self.engine.board().side_to_move()) {
            self.think();
        } else if self.game.engine_color.is_some() {
            self.claim_result();
        }
    }

    /// Claims the result if the game is over; true if it did.
    fn claim_result(&mut self) -> bool {
        let Some(end) = self.engine.game_over() else {
            return false;
        };
        let winner = match end.result {
            GameResult::WhiteWins => "1-0 {White mates}",
            GameResult::BlackWins => "0-1 {Black mates}",
            GameResult::Draw => match end.reason {
                EndReason::Stalemate => "1/2-1/2 {Stalemate}",
                EndReason::FiftyMoveRule => "1/2-1/2 {50 move rule}",
                EndReason::ThreefoldRepetition => "1/2-1/2 {3-fold repetition}",
                _ => "1/2-1/2 {Insufficient material}",
            },
        };
        self.out.send(winner);
        true
    }

    /// Starts thinking on our move (or plays from the book), or claims the result if there is
    /// nothing to think about.
    fn think(&mut self) {
        if self.claim_result() {
            return;
        }
        // `sd` and `st` are the game's time control here, not a request to search: the book
        // is played under them as under a clock.
        if let Some(book) = self.engine.book_move() {
            self.last_info = None;
            return self.play_own_move(Some(book.mv), book.ponder);
        }
        let limits = self.move_limits(self.move_started.elapsed());
        self.last_info = None;
        if let Some(Outcome::Searching(id)) = self.execute(EngineCommand::Go(limits)) {
            self.thinking = Some(Thinking { id, task: Task::Move, finished: None });
        }
    }

    fn analyze(&mut self) {
        let mut limits = Limits { infinite: true, depth: self.game.max_depth, ..Limits::default() };
        if !self.game.excluded.is_empty() {
            limits.searchmoves =
                self.engine.legal_moves().into_iter().filter(|mv| !self.game.excluded.contains(mv)).collect();
            if limits.searchmoves.is_empty() {
                // Everything excluded: nothing to analyse until a move is included again.
                self.cancel_thinking();
                return;
            }
        }
        self.last_info = None;
        if let Some(Outcome::Searching(id)) = self.execute(EngineCommand::Go(limits)) {
            self.thinking = Some(Thinking { id, task: Task::Analyze, finished: None });
        }
    }

    /// The limits for our move: `st`, or the clock of `level` and `time`, and `sd`; `spent` is
    /// what our clock has already run on this move.
    fn move_limits(&self, spent: Duration) -> Limits {
        let mut limits = Limits { depth: self.game.max_depth, ..Limits::default() };
        // Without a time control, a fixed time a move; with `time` alone, a sudden-death clock.
        let time_control = match (self.time_control, self.game.our_time) {
            (TimeControl::NoClock, None) => TimeControl::PerMove(NO_CLOCK_MOVE_TIME),
            (time_control, _) => time_control,
        };
        match (time_control, self.game.nps) {
            // `st` is a clock that starts afresh each move, and the GUI flags us when it runs
            // out (CECP v2, "st TIME"), so the overhead is set aside from it as from any clock,
            // unlike UCI's `go movetime`, which is spent in full.
            (TimeControl::PerMove(time), None) => {
                let overhead = self.engine.settings().move_overhead;
                limits.movetime = Some(time.saturating_sub(spent + overhead).max(Duration::from_millis(1)));
                // A GUI that keeps a clock beside `st` and says it holds less than `st` (`time`)
                // is believed: the time manager then gives the move at most half of what that
                // clock holds after the overhead, as it does a UCI `movetime` beside a clock.
                if let Some(clock) = self.game.our_time.filter(|&clock| clock < time) {
                    let remaining = clock.saturating_sub(spent);
                    limits.clock = Some(Clock { remaining, increment: Duration::ZERO, moves_to_go: None });
                }
            }
            (TimeControl::PerMove(time), Some(nps)) => limits.nodes = Some(nodes_for(time, nps)),
            (TimeControl::Level { .. } | TimeControl::NoClock, nps) => {
                let (moves, base, increment) = match time_control {
                    TimeControl::Level { moves, base, increment } => (moves, base, increment),
                    _ => (0, Duration::ZERO, Duration::ZERO),
                };
                let plies = self.engine.board().moves_played().saturating_sub(self.game.level_ply);
                let moves_to_go = moves_to_go(moves, plies);
                let remaining = self.game.our_time.unwrap_or(base).saturating_sub(spent);
                match nps {
                    None => limits.clock = Some(Clock { remaining, increment, moves_to_go }),
                    // A node clock: this move's share of what is left, in nodes.
                    Some(nps) => {
                        let share = remaining / moves_to_go.unwrap_or(30).clamp(1, 30) + increment / 2;
                        limits.nodes = Some(nodes_for(share, nps));
                    }
                }
            }
        }
        limits
    }

    /// A move as XBoard wants it: coordinates, but castling as `O-O`/`O-O-O` in Chess960.
    fn move_text(&self, mv: Move) -> String {
        if self.engine.settings().chess960 && mv.is_castle() {
            (if mv.is_king_side_castle() { "O-O" } else { "O-O-O" }).to_string()
        } else {
            self.engine.move_text(mv)
        }
    }

    /// Accepts a draw offer (CECP: by offering one back) when the position is dead drawn:
    /// by the rules, the tablebases or the material (see `Engine::dead_draw`), unless our own
    /// last search saw a win all the same; or by our own searches, the last few of our moves
    /// all scored within a few centipawns of zero. Otherwise the offer is ignored, which
    /// declines it.
    fn draw_offered(&mut self) {
        const MOVES: usize = 4;
        /// A score, ours, that says the position is won after all (a tactic the material
        /// rule cannot see): a pawn.
        const WINNING: i32 = 100;
        let recent = &self.game.our_scores[self.game.our_scores.len().saturating_sub(MOVES)..];
        let by_score = recent.len() == MOVES && recent.iter().all(|s| s.abs() <= 10);
        let by_position = self.engine.dead_draw() && recent.last().is_none_or(|&s| s < WINNING);
        if by_score || by_position {
            self.out.send("offer draw");
        }
    }

    /// Plays the move a search chose, announces it, and claims the result or starts pondering.
    fn play_own_move(&mut self, best: Option<Move>, ponder: Option<Move>) {
        // Until the next `time` command, our clock is what it was less the time we took, plus
        // the increment: a ponder search starts from that.
        let increment = match self.time_control {
            TimeControl::Level { increment, .. } => Some(increment),
            TimeControl::NoClock => Some(Duration::ZERO),
            TimeControl::PerMove(_) => None,
        };
        if let (Some(time), Some(increment)) = (self.game.our_time, increment) {
            self.game.our_time = Some(time.saturating_sub(self.move_started.elapsed()).saturating_add(increment));
        }
        if let Some(mv) = best {
            let text = self.move_text(mv);
            self.execute(EngineCommand::PlayMove(mv));
            self.out.send(format!("move {text}"));
        }
        self.game.expected_reply = ponder;
        if let Some(info) = &self.last_info {
            self.game.our_scores.push(match info.search_score {
                Score::Centipawns(cp) => cp,
                Score::Mate(n) => n.signum() * 100_000,
            });
        }
        self.answer_pongs();
        if !self.claim_result() && best.is_some() && self.ponder {
            self.start_pondering(ponder);
        }
    }

    /// Plays the reply the search expects (or, lacking one, the first legal reply: a wrong
    /// guess costs nothing but time the opponent is using anyway) and searches after it.
    fn start_pondering(&mut self, expected: Option<Move>) {
        let legal = self.engine.legal_moves();
        let Some(predicted) = expected.filter(|mv| legal.contains(mv)).or_else(|| legal.first().copied()) else {
            return;
        };
        self.execute(EngineCommand::PlayMove(predicted));
        if self.engine.game_over().is_some() {
            self.execute(EngineCommand::TakeBack(1));
            return;
        }
        // Our clock as our move left it (it stands still while the opponent thinks).
        let limits = Limits { ponder: true, ..self.move_limits(Duration::ZERO) };
        self.last_info = None;
        if let Some(Outcome::Searching(id)) = self.execute(EngineCommand::Go(limits)) {
            log::debug!("pondering on {predicted}");
            self.thinking = Some(Thinking { id, task: Task::Ponder { predicted }, finished: None });
        }
    }

    /// Ends a ponder search and takes the expected reply back.
    fn cancel_ponder(&mut self) {
        if let Some(Thinking { task: Task::Ponder { .. }, .. }) = self.thinking {
            self.thinking = None;
            self.execute(EngineCommand::Stop);
            self.execute(EngineCommand::TakeBack(1));
        }
    }

    /// Ends any search without using its result (the reports of a search we no longer track
    /// are dropped by id).
    fn cancel_thinking(&mut self) {
        self.cancel_ponder();
        if self.thinking.take().is_some() {
            self.execute(EngineCommand::Stop);
        }
        self.answer_pongs();
    }

    fn answer_pongs(&mut self) {
        for n in std::mem::take(&mut self.pongs) {
            self.out.send(format!("pong {n}"));
        }
    }

    /// `exclude MOVE|all` and `include MOVE|all`: which root moves the analysis considers.
    fn exclude(&mut self, exclude: bool, args: &str, line: &str) {
        if args == "all" {
            self.game.excluded = if exclude { self.engine.legal_moves() } else { Vec::new() };
        } else {
            let Some(mv) = self.engine.parse_move(args) else {
                return self.error("not a legal move", line);
            };
            self.game.excluded.retain(|&m| m != mv);
            if exclude {
                self.game.excluded.push(mv);
            }
        }
        if self.game.analyzing {
            self.analyze();
        }
    }

    /// `hint`: the move we expect the opponent to play (or, analysing, the best move found).
    fn hint(&mut self) {
        let hint = match self.thinking {
            Some(Thinking { task: Task::Ponder { predicted }, .. }) => Some(predicted),
            Some(Thinking { task: Task::Analyze, .. }) => self.last_info.as_ref().and_then(|i| i.pv.first().copied()),
            _ => self.game.expected_reply.filter(|mv| self.engine.legal_moves().contains(mv)),
        };
        if let Some(mv) = hint {
            self.out.send(format!("Hint: {}", self.move_text(mv)));
        }
    }

    /// `bk`: the book's moves here, each on a line starting with a space, then an empty line.
    fn book_moves(&mut self) {
        let moves = self.engine.book_moves();
        if moves.is_empty() {
            self.out.send(" no book moves");
        }
        for (mv, share) in moves {
            self.out.send(format!(" {} {:.0}%", self.engine.san(mv), share * 100.0));
        }
        self.out.send("");
    }

    /// `.` in analysis mode: `stat01: time nodes depth moves-left total-moves`.
    fn analysis_status(&mut self) {
        if !self.game.analyzing {
            return;
        }
        let total = self.engine.legal_moves().len();
        let line = match &self.last_info {
            Some(info) => {
                format!("stat01: {} {} {} 0 {total}", info.elapsed.as_millis() / 10, info.nodes, info.depth)
            }
            None => format!("stat01: 0 0 0 0 {total}"),
        };
        self.out.send(line);
    }
}

impl Protocol for XBoard<'_> {
    fn command(&mut self, line: &str) -> bool {
        let line = line.trim();
        let (command, args) = split_command(line);
        let bare_move = args.is_empty() && looks_like_move(command);
        if !KEEP_PONDERING.contains(&command) && !bare_move {
            self.cancel_ponder();
        }
        match command {
            "" | "xboard" | "accepted" | "rejected" | "computer" | "random" | "otim" | "ics" | "rating" | "name" => {}
            "protover" => self.features(),
            "new" => {
                self.cancel_thinking();
                self.execute(EngineCommand::NewGame);
                self.game = Game::new();
                self.set_option(OptionId::UciChess960, Some("false".to_string()), line);
            }
            "variant" => match args {
                "normal" => self.set_option(OptionId::UciChess960, Some("false".to_string()), line),
                "fischerandom" => self.set_option(OptionId::UciChess960, Some("true".to_string()), line),
                _ => self.error("only normal chess and fischerandom are played", line),
            },
            "force" => {
                self.cancel_thinking();
                self.game.engine_color = None;
            }
            "go" => {
                self.move_started = Instant::now();
                if !self.game.analyzing {
                    self.cancel_thinking();
                    self.game.engine_color = Some(self.engine.board().side_to_move());
                    self.think();
                }
            }
            "playother" => {
                self.cancel_thinking();
                self.game.engine_color = Some(!self.engine.board().side_to_move());
            }
            "?" => {
                if self.thinking.is_some_and(|t| t.task == Task::Move) {
                    self.execute(EngineCommand::Stop);
                }
            }
            "usermove" => self.user_move(args),
            "ping" => {
                if self.thinking.is_some_and(|t| t.task == Task::Move) {
                    self.pongs.push(args.to_string());
                } else {
                    self.out.send(format!("pong {args}"));
                }
            }
            "setboard" => {
                match self.engine.execute(EngineCommand::SetPosition { fen: Some(args.to_string()), moves: Vec::new() })
                {
                    Ok(_) => {
                        self.cancel_thinking();
                        self.game.level_ply = 0;
                        self.position_set();
                    }
                    Err(e) => self.error(&e.to_string(), line),
                }
            }
            "undo" | "remove" => {
                let count = if command == "undo" { 1 } else { 2 };
                match self.engine.execute(EngineCommand::TakeBack(count)) {
                    Ok(_) => {
                        self.cancel_thinking();
                        self.position_set();
                    }
                    Err(e) => self.error(&e.to_string(), line),
                }
            }
            "level" => match parse_level(args) {
                Ok(time_control) => {
                    self.time_control = time_control;
                    self.game.level_ply = self.engine.board().moves_played();
                }
                Err(reason) => self.error(&reason, line),
            },
            "st" => match parse_seconds(args) {
                Some(seconds) if seconds > Duration::ZERO => self.time_control = TimeControl::PerMove(seconds),
                _ => self.error("st needs a positive number of seconds", line),
            },
            "sd" => match args.parse::<i32>() {
                Ok(depth) if depth > 0 => self.game.max_depth = Some(depth),
                _ => self.error("sd needs a positive whole number", line),
            },
            "time" => match parse_whole(args) {
                // Below zero counts as nothing left; beyond any real clock as the longest one.
                Some(centiseconds) => {
                    let most = Limits::MAX_TIME.as_millis() as i64 / 10;
                    self.game.our_time = Some(Duration::from_millis(centiseconds.clamp(0, most) as u64 * 10));
                }
                None => self.error("time needs a whole number of centiseconds", line),
            },
            "result" => {
                self.cancel_thinking();
                self.game.engine_color = None;
                self.game.analyzing = false;
            }
            "post" => self.post = true,
            "nopost" => self.post = false,
            "hard" => self.ponder = true,
            "easy" => self.ponder = false,
            "hint" => self.hint(),
            "draw" => self.draw_offered(),
            "nps" => match args.parse::<u64>() {
                Ok(nps) => self.game.nps = (nps > 0).then_some(nps),
                Err(_) => self.error("nps needs a whole number of nodes per second", line),
            },
            "analyze" => {
                self.cancel_thinking();
                self.game.engine_color = None;
                self.game.analyzing = true;
                self.analyze();
            }
            "exit" => {
                if self.game.analyzing {
                    self.cancel_thinking();
                    self.game.analyzing = false;
                }
            }
            "." => self.analysis_status(),
            "memory" => self.set_clamped(OptionId::Hash, command, args, line),
            "cores" => self.set_clamped(OptionId::Threads, command, args, line),
            "option" => self.option(args, line),
            "bk" => self.book_moves(),
            "egtpath" => match args.split_once(char::is_whitespace) {
                Some(("syzygy", path)) => self.set_option(OptionId::SyzygyPath, Some(path.trim().to_string()), line),
                _ => self.error("only Syzygy tablebases are known ('egtpath syzygy PATH')", line),
            },
            "exclude" => self.exclude(true, args, line),
            "include" => self.exclude(false, args, line),
            "bench" => {
                self.cancel_thinking();
                if let Err(reason) = super::bench(&self.engine, args) {
                    self.error(&reason, line);
                }
            }
            "quit" => return false,
            _ if bare_move => self.user_move(command),
            _ => self.error("unknown command", line),
        }
        true
    }

    fn too_long(&mut self, start: &str) {
        self.error(&format!("line over {MAX_LINE} bytes ignored"), start);
    }

    fn closing(&mut self) {
        self.cancel_thinking();
    }

    fn output(&self) -> &Output {
        self.out
    }

    fn report(&mut self, id: SearchId, report: Report) {
        let Some(thinking) = self.thinking.filter(|t| t.id == id) else {
            return;
        };
        match report {
            Report::Info(info) => {
                if info.bound == Bound::Exact && (self.post || thinking.task == Task::Analyze) {
                    let extras = self.engine.settings().thinking_extras;
                    self.out.send(thinking_line(&info, extras, |mv| self.move_text(mv)));
                }
                if info.bound == Bound::Exact || self.last_info.is_none() {
                    self.last_info = Some(info);
                }
            }
            // XBoard has no such line; `.` (`stat01`) asks for progress in analysis instead.
            Report::CurrMove { .. } => {}
            Report::BestMove { best, ponder } => {
                // The expected reply: the search's, or the second move of the last PV.
                let ponder = ponder.or_else(|| {
                    let pv = &self.last_info.as_ref()?.pv;
                    (pv.first() == best.as_ref()).then(|| pv.get(1).copied()).flatten()
                });
                match thinking.task {
                    Task::Move => {
                        self.thinking = None;
                        self.play_own_move(best, ponder);
                    }
                    Task::Ponder { .. } => {
                        self.thinking = Some(Thinking { finished: Some((best, ponder)), ..thinking })
                    }
                    Task::Analyze => self.thinking = None,
                }
            }
        }
    }

    fn engine(&mut self) -> &mut Engine {
        &mut self.engine
    }
}

/// `ply score time nodes pv`: score in centipawns (mates as 100000 + moves, negative when
/// mated), time in centiseconds, the principal variation from the fifth field on, where every
/// GUI looks for it (ChessX reads whitespace-separated fields and takes the fifth for the first
/// move). With `extras` (the `Thinking Extras` option), seldepth, nps and tbhits come before
/// the variation and a tab: protocol version 2's extension, which XBoard and WinBoard show.
fn thinking_line(info: &Info, extras: bool, move_text: impl Fn(Move) -> String) -> String {
    // Mate in 0 is the side to move mated: a final position being analysed.
    let score = match info.score {
        Score::Centipawns(cp) => cp,
        Score::Mate(moves) if moves > 0 => 100_000 + moves,
        Score::Mate(moves) => -100_000 + moves,
    };
    let mut line = format!("{} {score} {} {}", info.depth, info.elapsed.as_millis() / 10, info.nodes);
    if extras {
        line.push_str(&format!(" {} {} {}\t", info.seldepth, info.nps(), info.tb_hits));
    }
    for mv in &info.pv {
        if !line.ends_with('\t') {
            line.push(' ');
        }
        line.push_str(&move_text(*mv));
    }
    line
}

/// `asked` brought within the range of the spin `option`, with a comment line for the GUI's
/// log when it had to be (`command` is what asked).
fn clamp_to_spin(option: OptionId, command: &str, asked: i64) -> (i64, Option<String>) {
    let Kind::Spin { min, max, .. } = option.spec().kind else {
        return (asked, None);
    };
    let value = asked.clamp(min, max);
    let name = option.spec().name;
    let notice = format!("# {command} {asked} is outside {name}'s range {min} to {max}: using {value}");
    (value, (value != asked).then_some(notice))
}

/// Moves left until the next time control for the side to move, with `session` moves per
/// control (0: the whole game) and `plies` played since the sessions began. Each side
/// has made half the plies (rounded down), whoever moved first.
fn moves_to_go(session: u32, plies: usize) -> Option<u32> {
    let made = (plies / 2) as u32;
    (session > 0).then(|| session - made % session)
}

/// Whether a word is shaped like a coordinate move (`e2e4`, `e7e8q`), legal or not.
fn looks_like_move(word: &str) -> bool {
    let b = word.as_bytes();
    let square = |f: u8, r: u8| (b'a'..=b'h').contains(&f) && (b'1'..=b'8').contains(&r);
    match b.len() {
        4 => square(b[0], b[1]) && square(b[2], b[3]),
        5 => square(b[0], b[1]) && square(b[2], b[3]) && b"nbrqNBRQ".contains(&b[4]),
        _ => false,
    }
}

/// The nodes a node clock of `nps` nodes a second allows in `time` (at least one).
fn nodes_for(time: Duration, nps: u64) -> u64 {
    ((time.as_secs_f64() * nps as f64) as u64).max(1)
}

/// Seconds, possibly with a fraction (`0.5`); more than any real clock holds counts as the
/// longest allowed.
fn parse_seconds(text: &str) -> Option<Duration> {
    let seconds: f64 = text.parse().ok()?;
    let most = Limits::MAX_TIME.as_secs_f64();
    (seconds.is_finite() && seconds >= 0.0).then(|| Duration::from_secs_f64(seconds.min(most)))
}

/// `level MPS BASE INC`: moves per session (0: the whole game), base time as minutes or
/// minutes:seconds, increment in seconds (a fraction allowed).
fn parse_level(args: &str) -> Result<TimeControl, String> {
    let [moves, base, increment] = args.split_whitespace().collect::<Vec<_>>()[..] else {
        return Err("level needs three arguments: moves per session, base time, increment".to_string());
    };
    let moves: u32 = moves.parse().map_err(|_| format!("bad number of moves '{moves}'"))?;
    let base_time = match base.split_once(':') {
        Some((minutes, seconds)) => {
            minutes.parse::<u64>().ok().zip(seconds.parse::<u64>().ok()).and_then(|(m, s)| {
                (s < 60).then(|| Duration::from_secs(m.saturating_mul(60) + s).min(Limits::MAX_TIME))
            })
        }
        None => parse_seconds(base).map(|minutes| minutes * 60),
    };
    let base = base_time.ok_or_else(|| format!("bad base time '{base}'"))?;
    let increment = parse_seconds(increment).ok_or_else(|| format!("bad increment '{increment}'"))?;
    // `level 40 0 0` is no error: python-chess sends it, with the clocks in `time` and `otim`.
    Ok(TimeControl::Level { moves, base, increment })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn empty_info(best: Move) -> Info {
        Info {
            multipv: 1,
            depth: 0,
            seldepth: 0,
            score: Score::Centipawns(0),
            search_score: Score::Centipawns(0),
            wdl: [0, 1000, 0],
            bound: Bound::Exact,
            nodes: 0,
            elapsed: Duration::ZERO,
            hashfull: 0,
            tb_hits: 0,
            pv: vec![best],
        }
    }

    #[test]
    fn levels() {
        let level = |moves, base, increment_ms| TimeControl::Level {
            moves,
            base: Duration::from_secs(base),
            increment: Duration::from_millis(increment_ms),
        };
        assert_eq!(parse_level("40 5 0"), Ok(level(40, 300, 0)));
        assert_eq!(parse_level("0 2:30 1"), Ok(level(0, 150, 1000)));
        assert_eq!(parse_level("0 5 0.1"), Ok(level(0, 300, 100)));
        assert_eq!(parse_level("0 0:30 0"), Ok(level(0, 30, 0)));
        assert_eq!(parse_level("15 0:00 0"), Ok(level(15, 0, 0)));
        // Absurd times are capped, never a panic.
        let huge = Limits::MAX_TIME.as_secs();
        assert_eq!(parse_level("0 1 1e300"), Ok(level(0, 60, huge * 1000)));
        assert_eq!(parse_level("0 1e300 0"), Ok(level(0, huge * 60, 0)));
        assert!(parse_level("0 99999999999999999999:00 0").is_err());
        assert_eq!(parse_level("0 999999999999999999:00 0"), Ok(level(0, huge, 0)));
        assert_eq!(parse_seconds("99999999999999999999"), Some(Limits::MAX_TIME));
        for bad in ["", "40 5", "x 5 0", "40 5:75 0", "40 five 0", "40 5 -1"] {
            assert!(parse_level(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn thinking_lines() {
        let mut info = empty_info(Move::NONE);
        info.pv.clear();
        info.depth = 4;
        info.nodes = 500;
        info.elapsed = Duration::from_millis(1234);
        info.score = Score::Mate(2);
        let text = |mv: Move| mv.to_string();
        assert_eq!(thinking_line(&info, false, text), "4 100002 123 500");
        assert_eq!(thinking_line(&info, true, text), "4 100002 123 500 0 405 0\t");
        info.score = Score::Mate(-3);
        assert_eq!(thinking_line(&info, true, text), "4 -100003 123 500 0 405 0\t");
        info.score = Score::Centipawns(-35);
        info.pv = vec![Move::NONE, Move::NONE];
        info.seldepth = 9;
        info.tb_hits = 2;
        assert_eq!(thinking_line(&info, false, text), "4 -35 123 500 0000 0000");
        assert_eq!(thinking_line(&info, true, text), "4 -35 123 500 9 405 2\t0000 0000");
    }

    /// XBoard sends `level` once, before the first move; python-chess before every move, with
    /// the moves left in the session. Both count from where it came.
    #[test]
    fn a_level_counts_its_session_from_where_it_came() {
        let mut out = Output::new();
        let mut xboard = XBoard::new(Engine::new(std::sync::Arc::new(|_, _| {})), &mut out);
        let moves_to_go =
            |xboard: &XBoard| xboard.move_limits(Duration::ZERO).clock.and_then(|clock| clock.moves_to_go);
        for line in ["new", "force", "level 40 0:10 0", "g1f3", "g8f6", "f3g1", "f6g8", "g1f3", "g8f6"] {
            assert!(xboard.command(line), "{line}");
        }
        assert_eq!(moves_to_go(&xboard), Some(37));
        // Three moves each into the game, with five left in the session.
        xboard.command("level 5 0:03 0");
        assert_eq!(moves_to_go(&xboard), Some(5));
        xboard.command("f3g1");
        xboard.command("f6g8");
        assert_eq!(moves_to_go(&xboard), Some(4));
        xboard.command("new");
        assert_eq!(moves_to_go(&xboard), Some(5));
    }

    /// What our clock ran before the search could start (stopping a ponder search that guessed
    /// wrong) comes out of the search's time, with a clock and with `st`.
    #[test]
    fn time_spent_before_the_search_is_deducted() {
        let mut out = Output::new();
        let mut xboard = XBoard::new(Engine::new(std::sync::Arc::new(|_, _| {})), &mut out);
        for line in ["new", "force", "level 0 1 0", "time 6000"] {
            assert!(xboard.command(line), "{line}");
        }
        let spent = Duration::from_millis(250);
        let remaining = xboard.move_limits(spent).clock.map(|clock| clock.remaining);
        assert_eq!(remaining, Some(Duration::from_millis(59_750)));
        xboard.command("st 2");
        assert_eq!(xboard.move_limits(spent).movetime, Some(Duration::from_millis(1740)));
        // A clock beside `st` that holds less than it goes to the time manager with the time
        // per move, which then gives the move at most half of it (search/time.rs's test).
        xboard.command("time 150");
        let limits = xboard.move_limits(spent);
        assert_eq!(limits.movetime, Some(Duration::from_millis(1740)));
        assert_eq!(limits.clock.map(|clock| clock.remaining), Some(Duration::from_millis(1250)));
        xboard.command("time 200");
        let limits = xboard.move_limits(spent);
        assert_eq!(limits.movetime, Some(Duration::from_millis(1740)));
        assert!(limits.clock.is_none());
    }

    /// `memory` and `cores` beyond the options' ranges are brought within them, and said so.
    #[test]
    fn memory_and_cores_are_clamped() {
        let max_hash = OptionId::Hash.spec().kind;
        let Kind::Spin { max, .. } = max_hash else { panic!("Hash is a spin") };
        let (value, notice) = clamp_to_spin(OptionId::Hash, "memory", 100_000);
        assert_eq!(value, max);
        assert_eq!(notice, Some(format!("# memory 100000 is outside Hash's range 1 to {max}: using {max}")));
        assert_eq!(clamp_to_spin(OptionId::Threads, "cores", 300).0, 256);
        assert_eq!(clamp_to_spin(OptionId::Threads, "cores", -1).0, 1);
        assert_eq!(clamp_to_spin(OptionId::Threads, "cores", 2), (2, None));
    }

    #[test]
    fn moves_to_the_next_control() {
        assert_eq!(moves_to_go(0, 10), None);
        // White's first move, Black's first move, White's 40th and 41st.
        assert_eq!(moves_to_go(40, 0), Some(40));
        assert_eq!(moves_to_go(40, 1), Some(40));
        assert_eq!(moves_to_go(40, 78), Some(1));
        assert_eq!(moves_to_go(40, 80), Some(40));
        assert_eq!(moves_to_go(40, 79), Some(1));
    }

    #[test]
    fn move_shapes() {
        assert!(looks_like_move("e2e4") && looks_like_move("a7a8q") && looks_like_move("e2e5"));
        assert!(
            !looks_like_move("e2") && !looks_like_move("i2i4") && !looks_like_move("e7e8k") && !looks_like_move("ping")
        );
    }
}
