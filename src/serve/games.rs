//! Games kept by the server: against the engine at a level, or between two people, each seat
//! held by a player (a signed-in player's id) or by a guest's session. The database is the
//! game's only record: every change is loaded, checked, applied and committed under the game's
//! own lock (`Live`) and only then answered and pushed to the game's watchers (its WebSocket,
//! `live`), so two requests never interleave in one game and nothing the page showed is lost
//! when the process dies.
//!
//! The rules are the engine's (`engine::Setup`, and `rules::PositionView` for the page), the
//! engine's replies come from the one engine through the worker's queue at the game's level,
//! and the clocks are kept here: the side to move's time runs from the moment the last move
//! was stored (once both sides have moved, as on lichess), and a timer flags it when it runs
//! out. Who may do what:
//! - a game's players read it and move in it, only on their turn and only their own pieces;
//! - anyone who has a friend game's id (the watch link) may watch it, never move;
//! - anyone else, an engine game's id in hand or not, is told there is no such game (404), so
//!   a game's existence does not leak.

use super::AppState;
use super::accounts::{Caller, caller, caller_for_change, client_key, db_error, too_many};
use super::db::{now_ms, random_hex};
use super::error::ApiError;
use super::routes::{json_body, ok_json, on_engine};
use super::rules::{self, PositionView, colour_name};
use super::worker::{Level, Search};
use crate::engine::{Clock, Color, Limits, MAX_ELO, MAX_SKILL_LEVEL, MIN_ELO, START_POS, Setup};

use axum::body::Body;
use axum::extract::ws::{Message, WebSocket, WebSocketUpgrade};
use axum::extract::{ConnectInfo, Path, State};
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use rusqlite::{Connection, OptionalExtension, params};
use serde::{Deserialize, Serialize};
use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tokio::sync::broadcast;

/// The engine's level when a game names none: a club player's, as `sentinel play`'s.
const DEFAULT_LEVEL: Level = Level::Elo(1500);
/// A clock's bounds.
const MAX_INITIAL_MS: i64 = 3 * 3600 * 1000;
const MAX_INCREMENT_MS: i64 = 180 * 1000;
/// Failed joins (unknown codes) one client address may make within the sign-in window.
const FAILED_JOINS_PER_ADDRESS: usize = 20;
/// Games one player (or guest) may have in progress at once: beyond them a new game waits for
/// one to end or be deleted, which bounds what one client adds to the database.
const MAX_GAMES_IN_PROGRESS: i64 = 100;
/// The most games one list shows, newest first.
const LIST_LIMIT: usize = 500;
/// Invite codes: six characters without the ones people misread (0/O, 1/I).
const CODE_ALPHABET: &[u8] = b"ABCDEFGHJKLMNPQRSTUVWXYZ23456789";
const CODE_LENGTH: usize = 6;

/// Each game's lock and the channel its watchers hear changes on.
#[derive(Default)]
pub struct Live {
    entries: Mutex<HashMap<String, Entry>>,
}

#[derive(Clone)]
struct Entry {
    lock: Arc<tokio::sync::Mutex<()>>,
    changed: broadcast::Sender<()>,
}

impl Live {
    fn entry(&self, id: &str) -> Entry {
        let mut entries = self.entries.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        entries
            .entry(id.to_string())
            .or_insert_with(|| Entry { lock: Arc::default(), changed: broadcast::channel(16).0 })
            .clone()
    }

    fn changed(&self, id: &str) {
        let _ = self.entry(id).changed.send(());
    }

    fn forget(&self, id: &str) {
        self.entries.lock().unwrap_or_else(std::sync::PoisonError::into_inner).remove(id);
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Mode {
    Engine,
    Friend,
}

/// Who holds a side: a player, or a guest's session (or nobody yet, in a friend game).
#[derive(Clone, Debug, Default)]
struct Seat {
    player: Option<i64>,
    name: Option<String>,
    session: Option<String>,
}

impl Seat {
    fn of(caller: &Caller) -> Seat {
        Seat {
            player: caller.player.as_ref().map(|p| p.id),
            name: caller.player.as_ref().map(|p| p.name.clone()),
            session: Some(caller.session.clone()),
        }
    }

    fn is(&self, caller: &Caller) -> bool {
        match self.player {
            Some(id) => caller.player.as_ref().is_some_and(|p| p.id == id),
            None => self.session.as_deref() == Some(caller.session.as_str()),
        }
    }

    fn empty(&self) -> bool {
        self.player.is_none() && self.session.is_none()
    }
}

#[derive(Clone, Debug)]
struct Clocks {
    initial: i64,
    increment: i64,
    /// Each side's time (white, black) when its last turn ended.
    ms: [i64; 2],
    /// When the side to move's time began to run, while it runs.
    at: Option<i64>,
}

#[derive(Clone, Debug)]
struct Game {
    id: String,
    mode: Mode,
    /// White's and Black's seats.
    seats: [Seat; 2],
    engine: Option<Color>,
    level: Option<Level>,
    start_fen: String,
    moves: Vec<String>,
    /// How many of `moves` the database has.
    stored: usize,
    result: String,
    termination: Option<String>,
    created: i64,
    updated: i64,
    invite: Option<String>,
    draw_offer: Option<Color>,
    clock: Option<Clocks>,
}

fn index(colour: Color) -> usize {
    match colour {
        Color::White => 0,
        Color::Black => 1,
    }
}

fn other(colour: Color) -> Color {
    match colour {
        Color::White => Color::Black,
        Color::Black => Color::White,
    }
}

fn colour_of(text: &str) -> Option<Color> {
    match text {
        "white" => Some(Color::White),
        "black" => Some(Color::Black),
        _ => None,
    }
}

fn win_for(colour: Color) -> &'static str {
    match colour {
        Color::White => "1-0",
        Color::Black => "0-1",
    }
}

/// How the board ends a game, if it does: the termination's name and the result.
fn board_end(setup: &Setup) -> Option<(&'static str, &'static str)> {
    setup.game_over().map(|end| (rules::reason_name(end.reason), rules::result_text(end.result)))
}

/// The colour of the piece on `square` (`e2`), if there is one.
fn piece_colour_at(setup: &Setup, square: &str) -> Option<Color> {
    let letter = setup.piece_letter(square)?;
    Some(if letter.is_ascii_uppercase() { Color::White } else { Color::Black })
}

/// Whether `colour` could not mate by any series of moves, and so cannot win on the opponent's
/// time (a draw then, as FIDE's rule 6.9 and lichess have it), by lichess's test of mating
/// material: a lone king never mates; a king and one knight mates only if the opponent has
/// something other than queens to block its king in with; a king and bishops mate only if
/// the opponent has a knight or a pawn, or a bishop on the other colour of squares.
fn cannot_mate(fen: &str, colour: Color) -> bool {
    let placement = fen.split_whitespace().next().unwrap_or("");
    // Each piece's letter and the colour of its square (0 dark, 1 light).
    let mut pieces = Vec::new();
    for (row, rank) in placement.split('/').enumerate() {
        let mut file = 0usize;
        for c in rank.chars() {
            match c.to_digit(10) {
                Some(n) => file += n as usize,
                None => {
                    pieces.push((c, (file + 7 - row.min(7)) % 2));
                    file += 1;
                }
            }
        }
    }
    let ours = |c: char| c.is_ascii_uppercase() == (colour == Color::White);
    let own: Vec<(char, usize)> =
        pieces.iter().filter(|(c, _)| ours(*c)).map(|&(c, shade)| (c.to_ascii_lowercase(), shade)).collect();
    let theirs: Vec<(char, usize)> =
        pieces.iter().filter(|(c, _)| !ours(*c)).map(|&(c, shade)| (c.to_ascii_lowercase(), shade)).collect();
    let helpers: Vec<&(char, usize)> = own.iter().filter(|(c, _)| *c != 'k').collect();
    if helpers.is_empty() {
        return true;
    }
    if helpers.iter().all(|(c, _)| *c == 'n') {
        return helpers.len() == 1 && theirs.iter().all(|(c, _)| matches!(c, 'k' | 'q'));
    }
    if helpers.iter().all(|(c, _)| *c == 'b') {
        let shade = helpers[0].1;
        let bishops_alike = own.iter().chain(&theirs).filter(|(c, _)| *c == 'b').all(|&(_, s)| s == shade);
        return bishops_alike && !theirs.iter().any(|(c, _)| matches!(c, 'n' | 'p'));
    }
    false
}

impl Game {
    /// The position after the first `plies` of the game's moves (all of them at most), replayed
    /// from the stored record: one that does not replay is the database's fault, not the
    /// caller's, and is said so the same way wherever it is found.
    fn position_after(&self, plies: usize) -> Result<Setup, ApiError> {
        let moves = &self.moves[..plies.min(self.moves.len())];
        Setup::new(Some(&self.start_fen), moves, false).map_err(|e| {
            log::error!("game {}: its stored moves do not replay: {e}", self.id);
            ApiError::new(StatusCode::INTERNAL_SERVER_ERROR, "database", "this game's record is damaged")
        })
    }

    /// The position now.
    fn setup(&self) -> Result<Setup, ApiError> {
        self.position_after(self.moves.len())
    }

    fn seat_of(&self, caller: Option<&Caller>) -> Option<Color> {
        let caller = caller?;
        [Color::White, Color::Black].into_iter().find(|&c| self.seats[index(c)].is(caller))
    }

    /// The caller's colour, or spectator (friend games), or None: not theirs to see.
    fn role(&self, caller: Option<&Caller>) -> Option<Option<Color>> {
        match self.seat_of(caller) {
            Some(colour) => Some(Some(colour)),
            None if self.mode == Mode::Friend => Some(None),
            None => None,
        }
    }

    fn over(&self) -> bool {
        self.result != "*"
    }

    fn side_to_move(&self) -> Result<Color, ApiError> {
        Ok(self.setup()?.side_to_move())
    }

    /// The side to move's time left at `now`.
    fn remaining(&self, clock: &Clocks, colour: Color, turn: Color, now: i64) -> i64 {
        let spent = if colour == turn { clock.at.map_or(0, |at| (now - at).max(0)) } else { 0 };
        (clock.ms[index(colour)] - spent).max(0)
    }

    /// Ends the game on time if the side to move's has run out; true if it did.
    fn settle_clock(&mut self, now: i64) -> Result<bool, ApiError> {
        if self.over() {
            return Ok(false);
        }
        let turn = self.side_to_move()?;
        let Some(clock) = &self.clock else { return Ok(false) };
        if clock.at.is_none() || self.remaining(clock, turn, turn, now) > 0 {
            return Ok(false);
        }
        let fen = self.setup()?.fen();
        self.result =
            if cannot_mate(&fen, other(turn)) { "1/2-1/2".to_string() } else { win_for(other(turn)).to_string() };
        self.termination = Some("timeout".to_string());
        if let Some(clock) = &mut self.clock {
            clock.ms[index(turn)] = 0;
            clock.at = None;
        }
        Ok(true)
    }

    /// Plays a move for the side to move (checked by the caller to be theirs), charging its
    /// clock; a side whose time has run out loses instead (Ok(false)).
    fn play(&mut self, text: &str, now: i64) -> Result<bool, ApiError> {
        let setup = self.setup()?;
        let after = rules::play(&setup, text).map_err(|e| e.field("uci"))?;
        if self.settle_clock(now)? {
            return Ok(false);
        }
        let mover = setup.side_to_move();
        let plies = self.moves.len() + 1;
        if let Some(clock) = &mut self.clock {
            if let Some(at) = clock.at {
                clock.ms[index(mover)] -= (now - at).max(0);
                clock.ms[index(mover)] += clock.increment;
            }
            clock.at = (plies >= 2).then_some(now);
        }
        self.moves.push(after.moves().last().cloned().unwrap_or_default());
        if self.draw_offer == Some(other(mover)) {
            self.draw_offer = None;
        }
        if let Some((status, result)) = board_end(&after) {
            self.finish(result, status);
        }
        Ok(true)
    }

    fn finish(&mut self, result: &str, termination: &str) {
        self.result = result.to_string();
        self.termination = Some(termination.to_string());
        self.draw_offer = None;
        if let Some(clock) = &mut self.clock {
            clock.at = None;
        }
    }

    fn engine_to_move(&self) -> Result<bool, ApiError> {
        Ok(!self.over() && self.engine.is_some_and(|e| self.side_to_move().is_ok_and(|turn| turn == e)))
    }

    fn level_name(&self) -> String {
        match self.level {
            Some(Level::Skill(skill)) => format!("Sentinel (Skill Level {skill})"),
            Some(Level::Elo(elo)) => format!("Sentinel (Elo {elo})"),
            _ => "Sentinel".to_string(),
        }
    }

    fn name(&self, colour: Color) -> Option<String> {
        if self.engine == Some(colour) {
            return Some(self.level_name());
        }
        let seat = &self.seats[index(colour)];
        if seat.empty() {
            return None;
        }
        Some(seat.name.clone().unwrap_or_else(|| "guest".to_string()))
    }

    fn tags(&self) -> Vec<(String, String)> {
        let (year, month, day) = crate::play::civil_date((self.created / 86_400_000).max(0) as u64);
        let date = format!("{year:04}.{month:02}.{day:02}");
        let name = |colour| self.name(colour).unwrap_or_else(|| "?".to_string());
        let mut tags = vec![
            ("Event".to_string(), "Casual game".to_string()),
            ("Site".to_string(), "sentinel serve".to_string()),
            ("Date".to_string(), date),
            ("Round".to_string(), "-".to_string()),
            ("White".to_string(), name(Color::White)),
            ("Black".to_string(), name(Color::Black)),
        ];
        if let Some(clock) = &self.clock {
            tags.push(("TimeControl".to_string(), format!("{}+{}", clock.initial / 1000, clock.increment / 1000)));
        }
        if let Some(termination) = &self.termination {
            let word = if termination == "timeout" { "time forfeit" } else { "normal" };
            tags.push(("Termination".to_string(), word.to_string()));
        }
        tags
    }

    /// The game in PGN, with its players and result.
    fn pgn(&self, setup: &Setup) -> String {
        let tags = self.tags();
        let tags: Vec<(&str, &str)> = tags.iter().map(|(n, v)| (n.as_str(), v.as_str())).collect();
        rules::pgn(setup, &tags, &self.result)
    }

    /// The position view, with the game's PGN; a game that ended off the board (resigned, on
    /// time, agreed) has no legal move left either.
    fn view(&self, setup: &Setup) -> PositionView {
        let mut view = rules::view(setup);
        view.pgn = self.pgn(setup);
        if self.over() {
            view.legal.clear();
        }
        view
    }

    fn state(&self, caller: Option<&Caller>, now: i64) -> Result<StateJson, ApiError> {
        let setup = self.setup()?;
        let you = self.seat_of(caller);
        let turn = setup.side_to_move();
        let clock = self.clock.as_ref().map(|clock| ClockJson {
            white_ms: self.remaining(clock, Color::White, turn, now),
            black_ms: self.remaining(clock, Color::Black, turn, now),
            initial_ms: clock.initial,
            increment_ms: clock.increment,
            running: clock.at.filter(|_| !self.over()).map(|_| colour_name(turn)),
        });
        Ok(StateJson {
            id: self.id.clone(),
            mode: match self.mode {
                Mode::Engine => "engine",
                Mode::Friend => "friend",
            },
            white: SideJson { name: self.name(Color::White) },
            black: SideJson { name: self.name(Color::Black) },
            you: you.map_or("spectator", colour_name),
            level: self.level.map(|level| match level {
                Level::Skill(skill) => LevelJson { skill: Some(skill), elo: None },
                Level::Elo(elo) => LevelJson { skill: None, elo: Some(elo) },
                Level::Full => LevelJson { skill: Some(MAX_SKILL_LEVEL), elo: None },
            }),
            clock,
            position: self.view(&setup),
            moves: self.moves.clone(),
            result: self.result.clone(),
            termination: self.termination.clone(),
            draw_offer: self.draw_offer.map(colour_name),
            invite: self.invite.as_ref().filter(|_| you.is_some()).map(|code| InviteJson {
                code: code.clone(),
                join_url: format!("/join/{code}"),
                watch_url: format!("/watch/{}", self.id),
            }),
            created: self.created,
            updated: self.updated,
        })
    }
}

#[derive(Serialize)]
struct SideJson {
    name: Option<String>,
}

#[derive(Serialize)]
struct LevelJson {
    #[serde(skip_serializing_if = "Option::is_none")]
    skill: Option<i32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    elo: Option<i32>,
}

#[derive(Serialize)]
struct ClockJson {
    white_ms: i64,
    black_ms: i64,
    initial_ms: i64,
    increment_ms: i64,
    running: Option<&'static str>,
}

#[derive(Serialize)]
struct InviteJson {
    code: String,
    join_url: String,
    watch_url: String,
}

/// A game's state, as every game endpoint answers and the live socket pushes.
#[derive(Serialize)]
struct StateJson {
    id: String,
    mode: &'static str,
    white: SideJson,
    black: SideJson,
    you: &'static str,
    level: Option<LevelJson>,
    clock: Option<ClockJson>,
    position: PositionView,
    moves: Vec<String>,
    result: String,
    termination: Option<String>,
    draw_offer: Option<&'static str>,
    invite: Option<InviteJson>,
    created: i64,
    updated: i64,
}

const GAME_COLUMNS: &str = "g.id, g.mode, g.white_player, pw.name, g.white_session, g.black_player, pb.name, \
                            g.black_session, g.engine_colour, g.level_kind, g.level, g.start_fen, g.result, \
                            g.termination, g.created, g.updated, g.invite_code, g.draw_offer, g.initial_ms, \
                            g.increment_ms, g.white_ms, g.black_ms, g.clock_at";

fn game_query(condition: &str) -> String {
    format!(
        "SELECT {GAME_COLUMNS} FROM games g LEFT JOIN players pw ON pw.id = g.white_player
         LEFT JOIN players pb ON pb.id = g.black_player WHERE {condition}"
    )
}

fn read_game(row: &rusqlite::Row) -> Result<Game, rusqlite::Error> {
    let level = match (row.get::<_, Option<String>>(9)?.as_deref(), row.get::<_, Option<i32>>(10)?) {
        (Some("skill"), Some(n)) => Some(Level::Skill(n)),
        (Some("elo"), Some(n)) => Some(Level::Elo(n)),
        _ => None,
    };
    let clock = match (row.get::<_, Option<i64>>(18)?, row.get::<_, Option<i64>>(19)?) {
        (Some(initial), Some(increment)) => Some(Clocks {
            initial,
            increment,
            ms: [row.get::<_, Option<i64>>(20)?.unwrap_or(initial), row.get::<_, Option<i64>>(21)?.unwrap_or(initial)],
            at: row.get(22)?,
        }),
        _ => None,
    };
    Ok(Game {
        id: row.get(0)?,
        mode: if row.get::<_, String>(1)? == "friend" { Mode::Friend } else { Mode::Engine },
        seats: [
            Seat { player: row.get(2)?, name: row.get(3)?, session: row.get(4)? },
            Seat { player: row.get(5)?, name: row.get(6)?, session: row.get(7)? },
        ],
        engine: row.get::<_, Option<String>>(8)?.as_deref().and_then(colour_of),
        level,
        start_fen: row.get(11)?,
        moves: Vec::new(),
        stored: 0,
        result: row.get(12)?,
        termination: row.get(13)?,
        created: row.get(14)?,
        updated: row.get(15)?,
        invite: row.get(16)?,
        draw_offer: row.get::<_, Option<String>>(17)?.as_deref().and_then(colour_of),
        clock,
    })
}

fn with_moves(c: &Connection, mut game: Game) -> Result<Game, rusqlite::Error> {
    let mut statement = c.prepare_cached("SELECT uci FROM moves WHERE game = ?1 ORDER BY ply")?;
    game.moves = statement.query_map(params![game.id], |row| row.get(0))?.collect::<Result<_, _>>()?;
    game.stored = game.moves.len();
    Ok(game)
}

fn load_sync(c: &Connection, id: &str) -> Result<Option<Game>, rusqlite::Error> {
    let game = c.query_row(&game_query("g.id = ?1"), params![id], read_game).optional()?;
    game.map(|game| with_moves(c, game)).transpose()
}

/// Writes a game: its new moves (and, after a takeback, the removal of those taken back) and
/// every column a change can touch, in one transaction.
fn save_sync(c: &mut Connection, game: &Game) -> Result<(), rusqlite::Error> {
    let transaction = c.transaction()?;
    let kept = game.stored.min(game.moves.len());
    transaction.execute("DELETE FROM moves WHERE game = ?1 AND ply >= ?2", params![game.id, kept as i64])?;
    let now = now_ms();
    for (ply, uci) in game.moves.iter().enumerate().skip(kept) {
        transaction.execute(
            "INSERT INTO moves (game, ply, uci, played) VALUES (?1, ?2, ?3, ?4)",
            params![game.id, ply as i64, uci, now],
        )?;
    }
    let clock = game.clock.as_ref();
    transaction.execute(
        "UPDATE games SET white_player = ?2, white_session = ?3, black_player = ?4, black_session = ?5, result = ?6,
           termination = ?7, draw_offer = ?8, white_ms = ?9, black_ms = ?10, clock_at = ?11, updated = ?12
         WHERE id = ?1",
        params![
            game.id,
            game.seats[0].player,
            game.seats[0].session,
            game.seats[1].player,
            game.seats[1].session,
            game.result,
            game.termination,
            game.draw_offer.map(colour_name),
            clock.map(|c| c.ms[0]),
            clock.map(|c| c.ms[1]),
            clock.and_then(|c| c.at),
            now,
        ],
    )?;
    transaction.commit()
}

fn insert_sync(c: &mut Connection, game: &Game) -> Result<(), rusqlite::Error> {
    let (kind, level) = match game.level {
        Some(Level::Skill(n)) => (Some("skill"), Some(n)),
        Some(Level::Elo(n)) => (Some("elo"), Some(n)),
        _ => (None, None),
    };
    let clock = game.clock.as_ref();
    c.execute(
        "INSERT INTO games (id, mode, white_player, white_session, black_player, black_session, engine_colour,
           level_kind, level, start_fen, result, created, updated, invite_code, initial_ms, increment_ms, white_ms,
           black_ms)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, '*', ?11, ?11, ?12, ?13, ?14, ?13, ?13)",
        params![
            game.id,
            if game.mode == Mode::Friend { "friend" } else { "engine" },
            game.seats[0].player,
            game.seats[0].session,
            game.seats[1].player,
            game.seats[1].session,
            game.engine.map(colour_name),
            kind,
            level,
            game.start_fen,
            game.created,
            game.invite,
            clock.map(|c| c.initial),
            clock.map(|c| c.increment),
        ],
    )?;
    Ok(())
}

fn not_found() -> ApiError {
    ApiError::new(StatusCode::NOT_FOUND, "not_found", "no such game")
}

fn forbidden(code: &'static str, message: &str) -> ApiError {
    ApiError::new(StatusCode::FORBIDDEN, code, message)
}

fn conflict(code: &'static str, message: &str) -> ApiError {
    ApiError::new(StatusCode::CONFLICT, code, message)
}

async fn load(state: &AppState, id: &str) -> Result<Option<Game>, ApiError> {
    // Ids are the server's own: anything else is no game, without a query.
    if id.len() > 64 || !id.bytes().all(|b| b.is_ascii_alphanumeric()) {
        return Ok(None);
    }
    let id = id.to_string();
    state.db.run(move |c| load_sync(c, &id)).await.map_err(db_error)
}

async fn save(state: &AppState, game: &Game) -> Result<(), ApiError> {
    let copy = game.clone();
    state.db.run(move |c| save_sync(c, &copy)).await.map_err(db_error)?;
    state.live.changed(&game.id);
    schedule_flag(state, game);
    Ok(())
}

/// Saves a game and reads it back as stored (its `stored` count and `updated` time).
async fn save_and_reload(state: &AppState, game: &Game) -> Result<Game, ApiError> {
    save(state, game).await?;
    load(state, &game.id).await?.ok_or_else(not_found)
}

/// Starts a timer that flags the side to move when its time runs out, if its clock runs.
fn schedule_flag(state: &AppState, game: &Game) {
    let Some(clock) = &game.clock else { return };
    if clock.at.is_none() || game.over() {
        return;
    }
    let Ok(turn) = game.side_to_move() else { return };
    let left = game.remaining(clock, turn, turn, now_ms());
    let (state, id) = (state.clone(), game.id.clone());
    tokio::spawn(async move {
        tokio::time::sleep(Duration::from_millis(left as u64 + 20)).await;
        if let Err(e) = settle(&state, &id).await {
            log::warn!("game {id}: cannot flag: {e}");
        }
    });
}

/// Flags the side to move of a game whose time has run out.
async fn settle(state: &AppState, id: &str) -> Result<(), ApiError> {
    let entry = state.live.entry(id);
    let _held = entry.lock.lock().await;
    let Some(mut game) = load(state, id).await? else { return Ok(()) };
    if game.settle_clock(now_ms())? {
        save(state, &game).await?;
    }
    Ok(())
}

/// After a restart: the running clocks go on from now (the time the server was down is not
/// counted against anyone), each with its timer; expired sessions and unreachable guest games
/// go.
pub async fn resume(state: &AppState) -> Result<(), String> {
    let running = state
        .db
        .run(|c| {
            super::accounts::sweep(c)?;
            c.execute("UPDATE games SET clock_at = ?1 WHERE result = '*' AND clock_at IS NOT NULL", params![now_ms()])?;
            let mut statement = c.prepare(&game_query("g.result = '*' AND g.clock_at IS NOT NULL"))?;
            let games = statement.query_map([], read_game)?.collect::<Result<Vec<_>, _>>()?;
            games.into_iter().map(|game| with_moves(c, game)).collect::<Result<Vec<_>, _>>()
        })
        .await
        .map_err(|e| e.to_string())?;
    for game in &running {
        schedule_flag(state, game);
    }
    let sweeper = state.clone();
    tokio::spawn(async move {
        loop {
            tokio::time::sleep(Duration::from_secs(3600)).await;
            if let Err(e) = sweeper.db.run(|c| super::accounts::sweep(c)).await {
                log::warn!("cannot remove expired sessions: {e}");
            }
        }
    });
    Ok(())
}

/// The engine's move in an engine game where it is to move, played and stored.
async fn engine_reply(state: &AppState, game: &mut Game) -> Result<(), ApiError> {
    let setup = game.setup()?;
    let turn = setup.side_to_move();
    let now = now_ms();
    let limits = match &game.clock {
        Some(clock) if clock.at.is_some() => Limits {
            clock: Some(Clock {
                remaining: Duration::from_millis(game.remaining(clock, turn, turn, now) as u64),
                increment: Duration::from_millis(clock.increment as u64),
                moves_to_go: None,
            }),
            ..Limits::default()
        },
        _ => Limits { movetime: Some(state.config.limits.default_movetime), ..Limits::default() },
    };
    let level = game.level.unwrap_or(DEFAULT_LEVEL);
    let found = on_engine(state, move |driver, cancelled| {
        let search = Search { setup: &setup, limits, multipv: 1, level, seed: 0 };
        let found = driver.search(&search, cancelled, &mut |_, _| {});
        found.map(|found| found.best.map(|mv| setup.move_text(mv)))
    })
    .await?
    .map_err(ApiError::engine)?;
    let Some(best) = found else {
        return Err(ApiError::engine("the engine found no move"));
    };
    game.play(&best, now_ms())?;
    Ok(())
}

/// Lets the engine move where it is its turn (after a request that was cut short, or a
/// restart, left it to move), and stores the move.
async fn advance(state: &AppState, game: &mut Game) -> Result<(), ApiError> {
    if game.engine_to_move()? {
        engine_reply(state, game).await?;
        *game = save_and_reload(state, game).await?;
    }
    Ok(())
}

fn state_answer(status: StatusCode, game: &Game, caller: Option<&Caller>) -> Result<Response, ApiError> {
    let state = game.state(caller, now_ms())?;
    let mut response = ok_json(&state);
    *response.status_mut() = status;
    Ok(response)
}

/// A player's change to a held game (a move, a takeback, a resignation, a draw offer), stored,
/// then the engine's reply where the change left the engine to move, stored too, and only then
/// the answer: what the caller is shown is always what the database has. After a resignation,
/// or in a game between two people, the engine has no move to make and nothing more is stored.
async fn commit_and_answer(state: &AppState, game: &mut Game, caller: &Caller) -> Result<Response, ApiError> {
    *game = save_and_reload(state, game).await?;
    advance(state, game).await?;
    state_answer(StatusCode::OK, game, Some(caller))
}

#[derive(Deserialize, Default, Debug)]
#[serde(deny_unknown_fields)]
struct LevelFields {
    skill: Option<i64>,
    elo: Option<i64>,
}

#[derive(Deserialize, Default, Debug)]
#[serde(deny_unknown_fields)]
struct ClockFields {
    initial_ms: Option<i64>,
    increment_ms: Option<i64>,
}

#[derive(Deserialize, Default, Debug)]
#[serde(deny_unknown_fields)]
struct CreateFields {
    mode: Option<String>,
    colour: Option<String>,
    level: Option<LevelFields>,
    clock: Option<ClockFields>,
    fen: Option<String>,
}

fn in_range(field: &str, value: i64, range: std::ops::RangeInclusive<i64>) -> Result<i64, ApiError> {
    if range.contains(&value) {
        Ok(value)
    } else {
        Err(ApiError::value(field, format!("{field} must be from {} to {}, got {value}", range.start(), range.end())))
    }
}

impl CreateFields {
    fn level(&self) -> Result<Option<Level>, ApiError> {
        let Some(level) = &self.level else { return Ok(None) };
        match (level.skill, level.elo) {
            (Some(skill), None) => {
                Ok(Some(Level::Skill(in_range("level.skill", skill, 0..=MAX_SKILL_LEVEL.into())? as i32)))
            }
            (None, Some(elo)) => {
                Ok(Some(Level::Elo(in_range("level.elo", elo, MIN_ELO.into()..=MAX_ELO.into())? as i32)))
            }
            _ => Err(ApiError::value("level", "a level is {\"skill\": N} or {\"elo\": N}")),
        }
    }

    fn clock(&self) -> Result<Option<Clocks>, ApiError> {
        let Some(clock) = &self.clock else { return Ok(None) };
        let initial = in_range("clock.initial_ms", clock.initial_ms.unwrap_or(0), 1000..=MAX_INITIAL_MS)?;
        let increment = in_range("clock.increment_ms", clock.increment_ms.unwrap_or(0), 0..=MAX_INCREMENT_MS)?;
        Ok(Some(Clocks { initial, increment, ms: [initial, initial], at: None }))
    }
}

fn invite_code() -> String {
    let mut bytes = [0u8; CODE_LENGTH];
    rand::fill(&mut bytes[..]);
    bytes.iter().map(|b| CODE_ALPHABET[*b as usize % CODE_ALPHABET.len()] as char).collect()
}

/// `POST /api/games`: a new game against the engine, or one for a friend to join.
pub async fn create(State(state): State<AppState>, headers: HeaderMap, body: Body) -> Result<Response, ApiError> {
    let caller = caller_for_change(&state, &headers).await?;
    let fields: CreateFields = json_body(&state, &headers, body).await?;
    let mode = match fields.mode.as_deref() {
        Some("engine") | None => Mode::Engine,
        Some("friend") => Mode::Friend,
        Some(_) => return Err(ApiError::value("mode", "mode is 'engine' or 'friend'")),
    };
    let colour = match fields.colour.as_deref() {
        Some("white") => Color::White,
        Some("black") => Color::Black,
        Some("random") | None => {
            if rand::random::<bool>() {
                Color::White
            } else {
                Color::Black
            }
        }
        Some(_) => return Err(ApiError::value("colour", "colour is 'white', 'black' or 'random'")),
    };
    let level = fields.level()?;
    if mode == Mode::Friend && level.is_some() {
        return Err(ApiError::value("level", "a game between two people has no engine level"));
    }
    let clock = fields.clock()?;
    let start = super::request::setup(fields.fen.as_deref(), None, None)?;
    let (player, session) = (caller.player.as_ref().map(|p| p.id), caller.session.clone());
    let in_progress: i64 = state
        .db
        .run(move |c| {
            c.query_row(
                "SELECT count(*) FROM games WHERE result = '*' AND (white_player = ?1 OR black_player = ?1
                   OR (white_player IS NULL AND white_session = ?2) OR (black_player IS NULL AND black_session = ?2))",
                params![player, session],
                |r| r.get(0),
            )
        })
        .await
        .map_err(db_error)?;
    if in_progress >= MAX_GAMES_IN_PROGRESS {
        let message = format!("you have {in_progress} games in progress: finish, resign or delete one first");
        return Err(conflict("too_many_games", &message));
    }
    if start.game_over().is_some() {
        return Err(ApiError::bad("bad_fen", "the game is over in that position").field("fen"));
    }
    let now = now_ms();
    let mut seats = [Seat::default(), Seat::default()];
    seats[index(colour)] = Seat::of(&caller);
    let mut game = Game {
        id: format!("g{}", random_hex(12)),
        mode,
        seats,
        engine: (mode == Mode::Engine).then_some(other(colour)),
        level: if mode == Mode::Engine { Some(level.unwrap_or(DEFAULT_LEVEL)) } else { None },
        start_fen: if fields.fen.as_deref().is_none_or(|f| f.trim() == START_POS) {
            start.start_fen().to_string()
        } else {
            start.fen()
        },
        moves: Vec::new(),
        stored: 0,
        result: "*".to_string(),
        termination: None,
        created: now,
        updated: now,
        invite: None,
        draw_offer: None,
        clock,
    };
    let mut tries = 0;
    loop {
        game.invite = (mode == Mode::Friend).then(invite_code);
        let copy = game.clone();
        match state.db.run(move |c| insert_sync(c, &copy)).await {
            Ok(()) => break,
            // An invite code already in use (one in a billion): draw another.
            Err(e) if tries < 5 && mode == Mode::Friend => {
                log::warn!("game {}: {e}", game.id);
                tries += 1;
            }
            Err(e) => return Err(db_error(e)),
        }
    }
    let entry = state.live.entry(&game.id);
    let _held = entry.lock.lock().await;
    let mut game = load(&state, &game.id).await?.ok_or_else(not_found)?;
    advance(&state, &mut game).await?;
    state_answer(StatusCode::CREATED, &game, Some(&caller))
}

#[derive(Deserialize, Default, Debug)]
#[serde(deny_unknown_fields)]
struct JoinFields {
    code: Option<String>,
}

/// `POST /api/games/join`: the caller takes a friend game's free seat (or is back in their own).
pub async fn join(
    State(state): State<AppState>,
    ConnectInfo(client): ConnectInfo<super::connections::ClientAddr>,
    headers: HeaderMap,
    body: Body,
) -> Result<Response, ApiError> {
    let caller = caller_for_change(&state, &headers).await?;
    let fields: JoinFields = json_body(&state, &headers, body).await?;
    let key = client_key("join", client.0.ip());
    if let Some(seconds) = state.attempts.wait(&key, FAILED_JOINS_PER_ADDRESS) {
        return Err(too_many(seconds, "unknown codes"));
    }
    let code = fields.code.unwrap_or_default().trim().to_ascii_uppercase();
    let lookup = code.clone();
    let id: Option<String> = if code.len() == CODE_LENGTH && code.bytes().all(|b| CODE_ALPHABET.contains(&b)) {
        state
            .db
            .run(move |c| {
                c.query_row("SELECT id FROM games WHERE invite_code = ?1", params![lookup], |r| r.get(0)).optional()
            })
            .await
            .map_err(db_error)?
    } else {
        None
    };
    let Some(id) = id else {
        state.attempts.record(&key);
        return Err(ApiError::new(StatusCode::NOT_FOUND, "not_found", "no game has that code"));
    };
    let entry = state.live.entry(&id);
    let _held = entry.lock.lock().await;
    let mut game = load(&state, &id).await?.ok_or_else(not_found)?;
    if game.seat_of(Some(&caller)).is_none() {
        let Some(free) = [Color::White, Color::Black].into_iter().find(|&c| game.seats[index(c)].empty()) else {
            return Err(conflict("seat_taken", "both seats of this game are taken: watch it with its watch link"));
        };
        if game.over() {
            return Err(conflict("game_over", "this game is over"));
        }
        game.seats[index(free)] = Seat::of(&caller);
        game = save_and_reload(&state, &game).await?;
    }
    state_answer(StatusCode::OK, &game, Some(&caller))
}

/// A game the caller may see, under its lock, with the caller's colour (None: spectator).
struct Held {
    game: Game,
    colour: Option<Color>,
    _lock: tokio::sync::OwnedMutexGuard<()>,
}

async fn hold(state: &AppState, id: &str, caller: Option<&Caller>) -> Result<Held, ApiError> {
    let entry = state.live.entry(id);
    let lock = entry.lock.lock_owned().await;
    let Some(mut game) = load(state, id).await? else {
        state.live.forget(id);
        return Err(not_found());
    };
    let Some(colour) = game.role(caller) else { return Err(not_found()) };
    if game.settle_clock(now_ms())? {
        game = save_and_reload(state, &game).await?;
    }
    Ok(Held { game, colour, _lock: lock })
}

/// The caller's seat in a held game, or the refusal of a spectator.
fn seated(held: &Held) -> Result<Color, ApiError> {
    held.colour.ok_or_else(|| forbidden("spectator", "spectators may watch this game, not play in it"))
}

/// `GET /api/games/{id}`.
pub async fn get_game(
    State(state): State<AppState>,
    Path(id): Path<String>,
    headers: HeaderMap,
) -> Result<Response, ApiError> {
    let caller = caller(&state, &headers).await?;
    let mut held = hold(&state, &id, caller.as_ref()).await?;
    if held.colour.is_some() {
        advance(&state, &mut held.game).await?;
    }
    state_answer(StatusCode::OK, &held.game, caller.as_ref())
}

#[derive(Deserialize, Default, Debug)]
#[serde(deny_unknown_fields)]
struct MoveFields {
    uci: Option<String>,
}

/// `POST /api/games/{id}/move`: the caller's move, stored, and in an engine game the engine's
/// reply, stored, before the answer.
pub async fn play_move(
    State(state): State<AppState>,
    Path(id): Path<String>,
    headers: HeaderMap,
    body: Body,
) -> Result<Response, ApiError> {
    let caller = caller_for_change(&state, &headers).await?;
    let fields: MoveFields = json_body(&state, &headers, body).await?;
    let text = fields.uci.unwrap_or_default();
    let mut held = hold(&state, &id, Some(&caller)).await?;
    let colour = seated(&held)?;
    let game = &mut held.game;
    if game.over() {
        return Err(conflict("game_over", "this game is over"));
    }
    if game.mode == Mode::Friend && game.seats.iter().any(Seat::empty) {
        return Err(conflict("no_opponent", "wait for your opponent to join"));
    }
    let setup = game.setup()?;
    if setup.side_to_move() != colour {
        return Err(forbidden("not_your_turn", "it is not your turn"));
    }
    if let Some(from) = text.trim().get(0..2)
        && piece_colour_at(&setup, from) == Some(other(colour))
    {
        return Err(forbidden("not_your_piece", &format!("the piece on {from} is your opponent's")));
    }
    game.play(&text, now_ms())?;
    commit_and_answer(&state, game, &caller).await
}

/// `POST /api/games/{id}/takeback` (engine games): back to the caller's last move before it.
pub async fn takeback(
    State(state): State<AppState>,
    Path(id): Path<String>,
    headers: HeaderMap,
) -> Result<Response, ApiError> {
    let caller = caller_for_change(&state, &headers).await?;
    let mut held = hold(&state, &id, Some(&caller)).await?;
    let colour = seated(&held)?;
    let game = &mut held.game;
    if game.mode == Mode::Friend {
        return Err(ApiError::bad("no_takebacks", "takebacks are for games against the engine"));
    }
    if matches!(game.termination.as_deref(), Some("resignation" | "timeout" | "agreement")) {
        return Err(conflict("game_over", "a game ended by resignation or on time cannot be taken back"));
    }
    // The side that played ply i: the sides take turns from the start position's side to move.
    let first = game.position_after(0)?.side_to_move();
    let mover = |ply: usize| if ply.is_multiple_of(2) { first } else { other(first) };
    let Some(last_own) = (0..game.moves.len()).rev().find(|&ply| mover(ply) == colour) else {
        return Err(conflict("nothing_to_take_back", "you have no move to take back"));
    };
    game.moves.truncate(last_own);
    game.result = "*".to_string();
    game.termination = None;
    let plies = game.moves.len();
    if let Some(clock) = &mut game.clock {
        clock.at = (plies >= 2).then(now_ms);
    }
    commit_and_answer(&state, game, &caller).await
}

/// `POST /api/games/{id}/resign`.
pub async fn resign(
    State(state): State<AppState>,
    Path(id): Path<String>,
    headers: HeaderMap,
) -> Result<Response, ApiError> {
    let caller = caller_for_change(&state, &headers).await?;
    let mut held = hold(&state, &id, Some(&caller)).await?;
    let colour = seated(&held)?;
    let game = &mut held.game;
    if game.over() {
        return Err(conflict("game_over", "this game is over"));
    }
    game.finish(win_for(other(colour)), "resignation");
    commit_and_answer(&state, game, &caller).await
}

/// `POST /api/games/{id}/draw` (friend games): offers a draw, or accepts the opponent's offer.
pub async fn draw(
    State(state): State<AppState>,
    Path(id): Path<String>,
    headers: HeaderMap,
) -> Result<Response, ApiError> {
    let caller = caller_for_change(&state, &headers).await?;
    let mut held = hold(&state, &id, Some(&caller)).await?;
    let colour = seated(&held)?;
    let game = &mut held.game;
    if game.mode == Mode::Engine {
        let message = "Sentinel takes no draw offers: draws by the rules (repetition, fifty moves, no mating \
                       material, stalemate) end the game by themselves";
        return Err(ApiError::bad("no_draw_offers", message));
    }
    if game.over() {
        return Err(conflict("game_over", "this game is over"));
    }
    if game.draw_offer == Some(other(colour)) {
        game.finish("1/2-1/2", "agreement");
    } else {
        game.draw_offer = Some(colour);
    }
    commit_and_answer(&state, game, &caller).await
}

/// `DELETE /api/games/{id}`: a player's own game goes (a friend game under way with both seats
/// taken must be resigned first, so that nobody deletes a game the other is playing).
pub async fn delete(
    State(state): State<AppState>,
    Path(id): Path<String>,
    headers: HeaderMap,
) -> Result<Response, ApiError> {
    let caller = caller_for_change(&state, &headers).await?;
    let held = hold(&state, &id, Some(&caller)).await?;
    if held.colour.is_none() {
        return Err(not_found());
    }
    let game = &held.game;
    if game.mode == Mode::Friend && !game.over() && game.seats.iter().all(|s| !s.empty()) {
        return Err(conflict("game_on", "resign or finish the game before deleting it"));
    }
    let doomed = game.id.clone();
    state.db.run(move |c| c.execute("DELETE FROM games WHERE id = ?1", params![doomed])).await.map_err(db_error)?;
    state.live.changed(&game.id);
    state.live.forget(&game.id);
    Ok(ok_json(&serde_json::json!({"deleted": game.id})))
}

#[derive(Serialize)]
struct Summary {
    id: String,
    mode: &'static str,
    white: SideJson,
    black: SideJson,
    you: &'static str,
    level: Option<LevelJson>,
    result: String,
    termination: Option<String>,
    plies: usize,
    created: i64,
    updated: i64,
}

/// `GET /api/games`: the signed-in caller's games, newest first.
pub async fn list(State(state): State<AppState>, headers: HeaderMap) -> Result<Response, ApiError> {
    let caller = caller(&state, &headers).await?;
    let Some(player) = caller.as_ref().and_then(|c| c.player.clone()) else {
        return Err(ApiError::new(StatusCode::UNAUTHORIZED, "sign_in", "sign in to keep games"));
    };
    let games = state
        .db
        .run(move |c| {
            let mut statement = c.prepare(&format!(
                "{} ORDER BY g.updated DESC LIMIT {LIST_LIMIT}",
                game_query("g.white_player = ?1 OR g.black_player = ?1")
            ))?;
            let games = statement.query_map(params![player.id], read_game)?.collect::<Result<Vec<_>, _>>()?;
            games.into_iter().map(|game| with_moves(c, game)).collect::<Result<Vec<_>, _>>()
        })
        .await
        .map_err(db_error)?;
    let now = now_ms();
    let mut summaries = Vec::with_capacity(games.len());
    for game in &games {
        let state = game.state(caller.as_ref(), now)?;
        summaries.push(Summary {
            id: state.id,
            mode: state.mode,
            white: state.white,
            black: state.black,
            you: state.you,
            level: state.level,
            result: state.result,
            termination: state.termination,
            plies: game.moves.len(),
            created: state.created,
            updated: state.updated,
        });
    }
    Ok(ok_json(&serde_json::json!({ "games": summaries })))
}

/// `GET /api/games/{id}/pgn`.
pub async fn pgn(
    State(state): State<AppState>,
    Path(id): Path<String>,
    headers: HeaderMap,
) -> Result<Response, ApiError> {
    let caller = caller(&state, &headers).await?;
    let held = hold(&state, &id, caller.as_ref()).await?;
    let game = &held.game;
    let text = game.pgn(&game.setup()?);
    let mut response = (StatusCode::OK, [(header::CONTENT_TYPE, "text/plain; charset=utf-8")], text).into_response();
    if let Ok(value) = HeaderValue::from_str(&format!("attachment; filename=\"sentinel-{}.pgn\"", game.id)) {
        response.headers_mut().insert(header::CONTENT_DISPOSITION, value);
    }
    Ok(response)
}

/// `GET /api/games/{id}/live`: a WebSocket that gets the game's state now and after every
/// change (a move, a join, a flag, the end). It takes no commands: moves go by POST.
pub async fn live(
    State(state): State<AppState>,
    Path(id): Path<String>,
    headers: HeaderMap,
    upgrade: WebSocketUpgrade,
) -> Result<Response, ApiError> {
    let caller = caller(&state, &headers).await?;
    drop(hold(&state, &id, caller.as_ref()).await?);
    let limit = state.config.limits.max_body;
    Ok(upgrade.max_message_size(limit).max_frame_size(limit).on_upgrade(move |socket| watch(socket, state, id, caller)))
}

async fn watch(mut socket: WebSocket, state: AppState, id: String, caller: Option<Caller>) {
    let mut changes = state.live.entry(&id).changed.subscribe();
    loop {
        let game = match load(&state, &id).await {
            Ok(Some(game)) => game,
            _ => break,
        };
        let Ok(view) = game.state(caller.as_ref(), now_ms()) else { break };
        if socket.send(Message::Text(super::answer::json(&view).into())).await.is_err() {
            return;
        }
        tokio::select! {
            change = changes.recv() => {
                if matches!(change, Err(broadcast::error::RecvError::Closed)) {
                    break;
                }
            }
            message = socket.recv() => {
                match message {
                    None | Some(Err(_)) | Some(Ok(Message::Close(_))) => return,
                    // Anything else (a ping, a text) is answered with the state again.
                    Some(Ok(_)) => {}
                }
            }
        }
    }
    let _ = socket.send(Message::Close(None)).await;
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pieces_and_mating_material() {
        let setup = Setup::new(None, &["e2e4"], false).unwrap();
        assert_eq!(piece_colour_at(&setup, "e4"), Some(Color::White));
        assert_eq!(piece_colour_at(&setup, "e8"), Some(Color::Black));
        assert_eq!(piece_colour_at(&setup, "e3"), None);
        assert_eq!(piece_colour_at(&setup, "z9"), None);
        // A lone king cannot mate; a rook can.
        assert!(cannot_mate("4k3/8/8/8/8/8/8/4K2R w - - 0 1", Color::Black));
        assert!(!cannot_mate("4k3/8/8/8/8/8/8/4K2R w - - 0 1", Color::White));
        // A knight mates a king that has a rook to be smothered by, not one with only a queen.
        assert!(!cannot_mate("4k2r/8/8/8/8/8/8/4K1N1 b - - 0 1", Color::White));
        assert!(cannot_mate("4k2q/8/8/8/8/8/8/4K1N1 b - - 0 1", Color::White));
        assert!(cannot_mate("4k3/8/8/8/8/8/8/4K1N1 b - - 0 1", Color::White));
        // A bishop mates a king with a pawn beside it, not a bare king.
        assert!(!cannot_mate("7k/7p/8/8/8/8/8/4KB2 b - - 0 1", Color::White));
        assert!(cannot_mate("7k/8/8/8/8/8/8/4KB2 b - - 0 1", Color::White));
        // Bishops against bishops: all on one colour of squares never mate; on both, they may.
        // f1 and c8 are light squares, f8 dark.
        assert!(cannot_mate("2b1k3/8/8/8/8/8/8/4KB2 b - - 0 1", Color::White));
        assert!(!cannot_mate("4kb2/8/8/8/8/8/8/4KB2 b - - 0 1", Color::White));
        // Two knights, or a knight and a bishop, are mating material.
        assert!(!cannot_mate("4k3/8/8/8/8/8/8/4KNN1 b - - 0 1", Color::White));
        assert!(!cannot_mate("4k3/8/8/8/8/8/8/3BKN2 b - - 0 1", Color::White));
    }

    #[test]
    fn invite_codes_use_their_alphabet() {
        let code = invite_code();
        assert_eq!(code.len(), CODE_LENGTH);
        assert!(code.bytes().all(|b| CODE_ALPHABET.contains(&b)), "{code}");
    }
}
