//! `POST /api/review`: `sentinel analyse`'s review of the games of a PGN, searched on the
//! server's engine. The review is the review module's own (its plans, its judgement of each
//! move, its annotated PGN and its graph); only the searching differs: each position goes to
//! the shared engine as a `SetPosition` and a `Go`, through the `review::Search` the module
//! reviews with. The answer is the annotated PGN and each move's figures as JSON; with
//! `Accept: application/x-ndjson` it comes as lines, a `progress` line after each position
//! searched and the review last, for long games.

use super::answer::{Tagged, json};
use super::error::ApiError;
use super::request::{ReviewFields, search_limit};
use super::routes::{json_body, ok_json, queue};
use super::worker::{Driver, Level, Search};
use super::{AppState, Limits};
use crate::engine::{Limits as SearchLimits, Setup};
use crate::notation::pgn::PgnGame;
use crate::review::analyse::{annotated_pgn, headline, plans};
use crate::review::eco::Openings;
use crate::review::game::{self, Marks, Plan, Review, Settings, Sides};
use crate::review::{Searched, graph, json as figures};
use axum::body::Body;
use axum::extract::State;
use axum::http::{HeaderMap, StatusCode, header};
use axum::response::{IntoResponse, Response};
use serde::Serialize;
use serde_json::Value;
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

fn prepare(fields: ReviewFields, limits: &Limits, openings: &Openings) -> Result<Prepared, ApiError> {
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
    let marks = match fields.marks.as_deref().map(str::trim) {
        None | Some("lichess") => Marks::Lichess,
        Some("sentinel") => Marks::Sentinel,
        Some(other) => {
            let other = crate::quote::excerpt(other, 20);
            return Err(ApiError::value("marks", format!("marks must be lichess or sentinel, got '{other}'")));
        }
    };
    let effort = crate::review::Effort { limits: search, threads: 1, hash_mb: 1 };
    let settings = Settings { effort, sides, from_move, book: None, marks };
    let mut skipped = Vec::new();
    let games: Vec<(usize, PgnGame, Plan)> =
        plans(&pgn, &settings, openings, |number, line, error| skipped.push(Skipped { number, line, error }))
            .map(|(number, _, game, plan)| (number, game, plan))
            .collect();
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

/// A game's figures as `sentinel analyse --json` writes them, with the game written back as
/// PGN, its headline and its graph beside them.
fn game_json(number: usize, game: &PgnGame, plan: &Plan, review: &Review, settings: &Settings) -> Value {
    let mut figures = figures::game(number, game, review);
    if let Value::Object(fields) = &mut figures {
        let headline = headline(game);
        fields.insert("pgn".to_string(), Value::String(annotated_pgn(game, plan, review, &settings.effort)));
        fields.insert("svg".to_string(), Value::String(graph::svg(&headline, review)));
        fields.insert("headline".to_string(), Value::String(headline));
    }
    figures
}

/// What the review's job sends while it runs.
enum Event {
    Progress { done: usize, total: usize },
    Done(Result<Value, ApiError>),
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
        answers.push(game_json(*number, game, plan, &review, &settings));
    }
    let mut document = figures::document(&settings.effort, settings.marks.name(), answers);
    if let Value::Object(fields) = &mut document {
        fields.insert("skipped".to_string(), serde_json::to_value(&skipped).unwrap_or(Value::Null));
    }
    events(Event::Done(Ok(document)));
}

pub async fn review(State(state): State<AppState>, headers: HeaderMap, body: Body) -> Result<Response, ApiError> {
    let fields: ReviewFields = json_body(&state, &headers, body).await?;
    let prepared = prepare(fields, &state.config.limits, &state.openings)?;
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
