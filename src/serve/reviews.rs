//! `POST /api/review`: `sentinel analyse`'s review of the games of a PGN, searched on the
//! server's engine. The review is the review module's own (its plans, its judgement of each
//! move, its annotated PGN and its graph); only the searching differs: each position goes to
//! the shared engine as a `SetPosition` and a `Go`, through the `review::Search` the module
//! reviews with. The answer is the annotated PGN and each move's figures as JSON; with
//! `Accept: application/x-ndjson` it comes as lines, a `progress` line after each position
//! searched and the review last, for long games.

use super::answer::{ScoreJson, Tagged, json};
use super::error::ApiError;
use super::request::{ReviewFields, search_limit};
use super::routes::{json_body, ok_json, queue};
use super::worker::{Driver, Level, Search};
use super::{AppState, Limits};
use crate::engine::{Color, Limits as SearchLimits, Setup};
use crate::notation::pgn::PgnGame;
use crate::review::analyse::{annotated_pgn, headline, plans};
use crate::review::game::{self, Plan, Review, Settings, Sides};
use crate::review::judge::Mark;
use crate::review::{Effort, Searched, graph};
use axum::body::Body;
use axum::extract::State;
use axum::http::{HeaderMap, StatusCode, header};
use axum::response::{IntoResponse, Response};
use serde::Serialize;
use std::convert::Infallible;
use std::time::Duration;
use tokio::sync::mpsc;

/// The review's searches, on the server's engine.
struct EngineSearch<'a> {
    driver: &'a mut Driver,
    cancelled: &'a dyn Fn() -> bool,
    /// The first failure; the review's later searches are then skipped.
    failed: Option<String>,
}

impl crate::review::Search for EngineSearch<'_> {
    fn search(&mut self, board: &crate::board::Board, limits: SearchLimits) -> Searched {
        let nothing = Searched { infos: Vec::new(), best: None };
        if self.failed.is_some() || (self.cancelled)() {
            return nothing;
        }
        let setup = Setup::of_board(board, false);
        let multipv = limits.multipv;
        let search = Search { setup: &setup, limits, multipv, level: Level::Full, seed: 0 };
        match self.driver.search(&search, self.cancelled, &mut |_, _| {}) {
            Ok(found) => Searched { infos: found.infos, best: found.best },
            Err(message) => {
                self.failed = Some(message);
                nothing
            }
        }
    }
}

/// A game that could not be read, and why.
#[derive(Serialize, Clone)]
struct Skipped {
    number: usize,
    line: usize,
    error: String,
}

/// What a review request asks for, read and planned before it is queued.
struct Prepared {
    games: Vec<(usize, PgnGame, Plan)>,
    skipped: Vec<Skipped>,
    settings: Settings,
    positions: usize,
}

fn prepare(fields: ReviewFields, limits: &Limits) -> Result<Prepared, ApiError> {
    let Some(pgn) = fields.pgn.filter(|pgn| !pgn.trim().is_empty()) else {
        return Err(ApiError::value("pgn", "pgn is needed: the games to review, as PGN text"));
    };
    let mut search = search_limit(fields.depth, fields.movetime, fields.nodes, limits)?;
    if fields.depth.is_none() && fields.movetime.is_none() && fields.nodes.is_none() {
        let default = Duration::from_millis(crate::review::DEFAULT_REVIEW_MS);
        search = SearchLimits { movetime: Some(default.min(limits.max_movetime)), ..SearchLimits::default() };
    }
    let sides = match fields.side.as_deref().map(str::trim) {
        None | Some("both") => Sides::Both,
        Some("white") => Sides::White,
        Some("black") => Sides::Black,
        Some(other) => {
            let other = crate::quote::excerpt(other, 20);
            return Err(ApiError::value("side", format!("side must be white, black or both, got '{other}'")));
        }
    };
    let from_move = match fields.from_move {
        None => 1,
        Some(n) if (1..=i64::from(u16::MAX)).contains(&n) => n as u16,
        Some(n) => return Err(ApiError::value("from_move", format!("from_move must be from 1 to 65535, got {n}"))),
    };
    let effort = Effort { limits: search, threads: 1, hash_mb: 1 };
    let settings = Settings { effort, sides, from_move, book: None };
    let mut skipped = Vec::new();
    let games: Vec<(usize, PgnGame, Plan)> =
        plans(&pgn, &settings, |number, line, error| skipped.push(Skipped { number, line, error })).collect();
    if games.is_empty() {
        let reason = match skipped.first() {
            Some(first) => {
                format!("no game could be read: game {} (from line {}): {}", first.number, first.line, first.error)
            }
            None => "the PGN holds no games".to_string(),
        };
        return Err(ApiError::bad("bad_pgn", reason).field("pgn"));
    }
    let positions = games.iter().map(|(_, _, plan)| plan.positions()).sum();
    if positions > limits.max_review_positions {
        let message = format!(
            "the review would search {positions} positions, over this server's limit of {} (--max-review-positions)",
            limits.max_review_positions
        );
        return Err(ApiError::over_limit("pgn", "--max-review-positions", message));
    }
    Ok(Prepared { games, skipped, settings, positions })
}

#[derive(Serialize)]
struct SideJson {
    accuracy: f64,
    average_cp_loss: f64,
    inaccuracies: usize,
    mistakes: usize,
    blunders: usize,
}

#[derive(Serialize)]
struct MoveJson {
    /// The move's number, as PGN writes it, and who made it.
    number: u16,
    color: &'static str,
    san: String,
    #[serde(rename = "move")]
    uci: String,
    /// The position after the move, from White's side.
    eval: ScoreJson,
    /// White's expected score after the move (a win 1, a draw 0.5).
    white_expected: f64,
    cp_loss: i32,
    /// `only`, `inaccuracy`, `mistake` or `blunder`.
    mark: Option<&'static str>,
    judged: bool,
    /// The engine's choice, its score from White's side, and its line where the move played
    /// was worse (in SAN).
    best: Option<String>,
    best_eval: ScoreJson,
    better: Vec<String>,
}

#[derive(Serialize)]
struct GameJson {
    number: usize,
    headline: String,
    /// The game written back with the review's comments, marks and better lines.
    pgn: String,
    white: Option<SideJson>,
    black: Option<SideJson>,
    moves: Vec<MoveJson>,
    /// The evaluation graph, as `sentinel analyse --graph` draws it.
    svg: String,
}

#[derive(Serialize)]
struct ReviewJson {
    /// Each position's search, in words (`500 ms`).
    limit: String,
    games: Vec<GameJson>,
    skipped: Vec<Skipped>,
}

fn mark_name(mark: Mark) -> &'static str {
    match mark {
        Mark::Only => "only",
        Mark::Inaccuracy => "inaccuracy",
        Mark::Mistake => "mistake",
        Mark::Blunder => "blunder",
    }
}

fn game_json(number: usize, game: &PgnGame, review: &Review, effort: &Effort) -> Result<GameJson, String> {
    let mut position = Setup::new(Some(&game.start_fen), &[] as &[&str], false).map_err(|e| e.to_string())?;
    for &mv in &game.moves[..review.skipped] {
        position = position.after(mv).map_err(|e| e.to_string())?;
    }
    let mut moves = Vec::with_capacity(review.moves.len());
    for (reviewed, &played) in review.moves.iter().zip(&game.moves[review.skipped..]) {
        moves.push(MoveJson {
            number: reviewed.number,
            color: if reviewed.mover == Color::White { "white" } else { "black" },
            san: reviewed.san.clone(),
            uci: position.move_text(played),
            eval: ScoreJson::new(reviewed.eval),
            white_expected: (reviewed.white_expected * 1000.0).round() / 1000.0,
            cp_loss: reviewed.cp_loss,
            mark: reviewed.mark.map(mark_name),
            judged: reviewed.judged,
            best: reviewed.best_san.clone(),
            best_eval: ScoreJson::new(reviewed.best_eval),
            better: position.line(&reviewed.better).1,
        });
        position = position.after(played).map_err(|e| e.to_string())?;
    }
    let [white, black] = game::summarise(review).map(|side| {
        side.map(|s| SideJson {
            accuracy: (s.accuracy * 10.0).round() / 10.0,
            average_cp_loss: (s.average_cp_loss * 10.0).round() / 10.0,
            inaccuracies: s.inaccuracies,
            mistakes: s.mistakes,
            blunders: s.blunders,
        })
    });
    let headline = headline(game);
    Ok(GameJson {
        number,
        svg: graph::svg(&headline, review),
        headline,
        pgn: annotated_pgn(game, review, effort),
        white,
        black,
        moves,
    })
}

/// What the review's job sends while it runs.
enum Event {
    Progress { done: usize, total: usize },
    Done(Result<ReviewJson, ApiError>),
}

/// Reviews the prepared games on the engine, telling `events` after each position.
fn run(prepared: Prepared, driver: &mut Driver, cancelled: &dyn Fn() -> bool, events: &dyn Fn(Event)) {
    let Prepared { games, skipped, settings, positions } = prepared;
    let mut answers = Vec::with_capacity(games.len());
    let mut done = 0;
    for (number, game, plan) in &games {
        if let Err(message) = driver.new_game() {
            return events(Event::Done(Err(ApiError::engine(message))));
        }
        let mut search = EngineSearch { driver: &mut *driver, cancelled, failed: None };
        let review = game::review(game, plan, &settings, &mut search, || {
            done += 1;
            events(Event::Progress { done, total: positions });
        });
        if let Some(message) = search.failed {
            return events(Event::Done(Err(ApiError::engine(message))));
        }
        if cancelled() {
            return events(Event::Done(Err(ApiError::engine("the client went away"))));
        }
        match game_json(*number, game, &review, &settings.effort) {
            Ok(answer) => answers.push(answer),
            Err(message) => return events(Event::Done(Err(ApiError::engine(message)))),
        }
    }
    let limit = settings.effort.describe();
    events(Event::Done(Ok(ReviewJson { limit, games: answers, skipped })));
}

pub async fn review(State(state): State<AppState>, headers: HeaderMap, body: Body) -> Result<Response, ApiError> {
    let fields: ReviewFields = json_body(&state, &headers, body).await?;
    let prepared = prepare(fields, &state.config.limits)?;
    let lines = headers
        .get(header::ACCEPT)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|accept| accept.contains("application/x-ndjson"));
    let (sender, mut receiver) = mpsc::unbounded_channel();
    let finished = queue(&state, move |driver, cancelled| {
        let gone = || cancelled() || sender.is_closed();
        run(prepared, driver, &gone, &|event| {
            let _ = sender.send(event);
        });
    })?;
    if !lines {
        while let Some(event) = receiver.recv().await {
            if let Event::Done(result) = event {
                return result.map(|answer| ok_json(&answer));
            }
        }
        drop(finished);
        return Err(ApiError::engine("the review ended without an answer"));
    }
    // Lines, as the job sends them; the body holds the job's receiver, so a client that goes
    // away (the body dropped) stops the review.
    let stream = futures_util::stream::unfold(Some((receiver, finished)), |state| async move {
        let (mut receiver, finished) = state?;
        let line = match receiver.recv().await {
            Some(Event::Progress { done, total }) => {
                #[derive(Serialize)]
                struct Count {
                    done: usize,
                    total: usize,
                }
                json(&Tagged { kind: "progress", body: &Count { done, total } })
            }
            Some(Event::Done(Ok(answer))) => {
                return Some((Ok::<String, Infallible>(json(&Tagged { kind: "review", body: &answer }) + "\n"), None));
            }
            Some(Event::Done(Err(error))) => {
                return Some((Ok(json(&Tagged { kind: "error", body: &error }) + "\n"), None));
            }
            None => {
                let error = ApiError::engine("the review ended without an answer");
                return Some((Ok(json(&Tagged { kind: "error", body: &error }) + "\n"), None));
            }
        };
        Some((Ok(line + "\n"), Some((receiver, finished))))
    });
    Ok((StatusCode::OK, [(header::CONTENT_TYPE, "application/x-ndjson")], Body::from_stream(stream)).into_response())
}
