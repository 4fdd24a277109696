//! The endpoints, and what they share: reading a body within the size limit and in time,
//! queueing a job for the engine and waiting for its answer. Each endpoint checks its request
//! in full (`request`) before it queues anything, so a bad request costs the engine nothing.

use super::answer::{Analysis as AnalysisAnswer, MoveAnswer, json};
use super::error::ApiError;
use super::request::{self, AnalyseFields, Analysis, BatchFields, MoveFields};
use super::worker::{Driver, Found, Level, Search};
use super::{AppState, Limits, accounts, compat, games, guard, page, reviews, rules, stream};
use axum::Router;
use axum::body::{Body, Bytes};
use axum::extract::{RawQuery, Request, State};
use axum::http::{HeaderMap, StatusCode, Uri, header};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use serde::Serialize;
use tokio::sync::oneshot;

pub fn router(state: AppState) -> Router {
    Router::new()
        .route("/", get(index))
        .route("/chess", get(chess))
        .route("/api/status", get(status))
        .route("/api/analyse", get(analyse_get).post(analyse_post))
        .route("/api/analyse/stream", get(stream::analyse_stream))
        .route("/api/move", post(play_move))
        .route("/api/batch", post(batch))
        .route("/api/review", post(reviews::review))
        .route("/api/position", post(rules::position))
        .route("/api/s/v2.php", get(compat::stockfish_online))
        .route("/v1", post(compat::chess_api))
        .route("/api/cloud-eval", get(compat::cloud_eval))
        .route("/api/account", get(accounts::account))
        .route("/api/account/register", post(accounts::register))
        .route("/api/account/login", post(accounts::login))
        .route("/api/account/logout", post(accounts::logout))
        .route("/api/games", get(games::list).post(games::create))
        .route("/api/games/join", post(games::join))
        .route("/api/games/{id}", get(games::get_game).delete(games::delete))
        .route("/api/games/{id}/move", post(games::play_move))
        .route("/api/games/{id}/takeback", post(games::takeback))
        .route("/api/games/{id}/resign", post(games::resign))
        .route("/api/games/{id}/draw", post(games::draw))
        .route("/api/games/{id}/pgn", get(games::pgn))
        .route("/api/games/{id}/live", get(games::live))
        .fallback(not_found)
        .method_not_allowed_fallback(method_not_allowed)
        .layer(axum::middleware::from_fn_with_state(state.clone(), guard::guard))
        // The page's files are public code: outside the token's guard (see `page`).
        .merge(page::router())
        .with_state(state)
}

/// A JSON answer with status 200.
pub fn ok_json<T: Serialize>(value: &T) -> Response {
    (StatusCode::OK, [(header::CONTENT_TYPE, "application/json")], json(value)).into_response()
}

async fn not_found(uri: Uri) -> ApiError {
    ApiError::not_found(uri.path())
}

async fn method_not_allowed(request: Request) -> ApiError {
    let message = format!("{} is not an endpoint's method at {}", request.method(), request.uri().path());
    ApiError::new(StatusCode::METHOD_NOT_ALLOWED, "method_not_allowed", message)
}

/// Reads a request's body: JSON only (so that a page of another site cannot send one
/// without the browser asking first), at most `--max-body` bytes, within `Limits::BODY_TIMEOUT`.
pub async fn read_body(headers: &HeaderMap, body: Body, limits: &Limits, accepted: &[&str]) -> Result<Bytes, ApiError> {
    let kind = headers.get(header::CONTENT_TYPE).and_then(|v| v.to_str().ok()).unwrap_or("");
    let essence = kind.split(';').next().unwrap_or("").trim().to_ascii_lowercase();
    if !accepted.contains(&essence.as_str()) {
        let message = format!(
            "send the body as {} (with a Content-Type header saying so), not '{}'",
            accepted.join(" or "),
            crate::quote::excerpt(kind, 60)
        );
        return Err(ApiError::new(StatusCode::UNSUPPORTED_MEDIA_TYPE, "unsupported_media_type", message));
    }
    let too_large = || {
        let message = format!("the body is over this server's limit of {} bytes (--max-body)", limits.max_body);
        ApiError { limit: Some("--max-body"), ..ApiError::new(StatusCode::PAYLOAD_TOO_LARGE, "too_large", message) }
    };
    let declared =
        headers.get(header::CONTENT_LENGTH).and_then(|v| v.to_str().ok()).and_then(|v| v.parse::<u64>().ok());
    if declared.is_some_and(|length| length > limits.max_body as u64) {
        return Err(too_large());
    }
    match tokio::time::timeout(Limits::BODY_TIMEOUT, axum::body::to_bytes(body, limits.max_body)).await {
        Err(_) => Err(ApiError::new(StatusCode::REQUEST_TIMEOUT, "timeout", "the body did not arrive in time")),
        // The only error of a body read within a limit that a client causes is its length.
        Ok(Err(_)) => Err(too_large()),
        Ok(Ok(bytes)) => Ok(bytes),
    }
}

/// Reads a JSON body into a request type.
pub async fn json_body<T: serde::de::DeserializeOwned>(
    state: &AppState,
    headers: &HeaderMap,
    body: Body,
) -> Result<T, ApiError> {
    let bytes = read_body(headers, body, &state.config.limits, &["application/json"]).await?;
    request::from_body(&bytes)
}

/// Queues `work` for the engine (refused at once when the queue is full); what it returns
/// comes on the receiver. While nobody holds the receiver (the client went away) the job's
/// `cancelled` says so, and the job stops, or does not start.
pub fn queue<T: Send + 'static>(
    state: &AppState,
    work: impl FnOnce(&mut Driver, &dyn Fn() -> bool) -> T + Send + 'static,
) -> Result<oneshot::Receiver<T>, ApiError> {
    let (sender, receiver) = oneshot::channel();
    state.queue.submit(Box::new(move |driver: &mut Driver| {
        if sender.is_closed() {
            return;
        }
        let result = work(driver, &|| sender.is_closed());
        let _ = sender.send(result);
    }))?;
    Ok(receiver)
}

/// Queues `work` for the engine and waits for what it returns.
pub async fn on_engine<T: Send + 'static>(
    state: &AppState,
    work: impl FnOnce(&mut Driver, &dyn Fn() -> bool) -> T + Send + 'static,
) -> Result<T, ApiError> {
    queue(state, work)?.await.map_err(|_| ApiError::engine("the engine dropped the request"))
}

/// Runs one analysis on the engine.
pub async fn analyse(state: &AppState, analysis: Analysis) -> Result<(Analysis, Found), ApiError> {
    let result = on_engine(state, move |driver, cancelled| {
        let search = Search {
            setup: &analysis.setup,
            limits: analysis.limits.clone(),
            multipv: analysis.multipv,
            level: Level::Full,
            seed: 0,
        };
        let found = driver.search(&search, cancelled, &mut |_, _| {});
        (analysis, found)
    })
    .await?;
    match result {
        (analysis, Ok(found)) => Ok((analysis, found)),
        (_, Err(message)) => Err(ApiError::engine(message)),
    }
}

fn wants_json(headers: &HeaderMap) -> bool {
    headers.get(header::ACCEPT).and_then(|v| v.to_str().ok()).is_some_and(|accept| accept.contains("application/json"))
}

/// `GET /`: the page, or for `Accept: application/json` what the server is, and its endpoints.
async fn index(headers: HeaderMap) -> Response {
    if !wants_json(&headers) {
        return page::page().await;
    }
    #[derive(Serialize)]
    struct Index {
        name: &'static str,
        version: &'static str,
        endpoints: [&'static str; 16],
        manual: &'static str,
    }
    ok_json(&Index {
        name: "Sentinel",
        version: crate::VERSION,
        endpoints: [
            "GET /chess?fen=FEN&depth=D",
            "GET|POST /api/analyse",
            "GET /api/analyse/stream (WebSocket)",
            "POST /api/move",
            "POST /api/batch",
            "POST /api/review",
            "POST /api/position",
            "GET /api/account, POST /api/account/{register,login,logout}",
            "GET|POST /api/games, /api/games/{id}[/move|takeback|resign|draw|pgn|live]",
            "GET /api/status",
            "GET /api/s/v2.php (stockfish.online)",
            "POST /v1 (chess-api.com)",
            "GET /api/cloud-eval (lichess)",
            "GET / (the page; this list with Accept: application/json)",
            "OPTIONS (CORS preflight, for allowed origins)",
            "Authorization: Bearer TOKEN when the server has one",
        ],
        manual: "docs/serve.md",
    })
}

/// `GET /api/status`: the queue, the engine's resources and the limits.
async fn status(State(state): State<AppState>) -> Response {
    #[derive(Serialize)]
    struct Status {
        version: &'static str,
        threads: usize,
        hash: usize,
        queue: super::worker::Status,
        limits: LimitsJson,
    }
    #[derive(Serialize)]
    struct LimitsJson {
        max_depth: i32,
        max_movetime: u64,
        max_nodes: u64,
        max_multipv: usize,
        queue: usize,
        max_body: usize,
        max_batch: usize,
        max_review_positions: usize,
        default_movetime: u64,
    }
    let config = &state.config;
    let limits = &config.limits;
    ok_json(&Status {
        version: crate::VERSION,
        threads: config.threads,
        hash: config.hash_mb,
        queue: state.queue.status(),
        limits: LimitsJson {
            max_depth: limits.max_depth,
            max_movetime: limits.max_movetime.as_millis() as u64,
            max_nodes: limits.max_nodes,
            max_multipv: limits.max_multipv,
            queue: limits.queue,
            max_body: limits.max_body,
            max_batch: limits.max_batch,
            max_review_positions: limits.max_review_positions,
            default_movetime: limits.default_movetime.as_millis() as u64,
        },
    })
}

/// The design's call, `GET /chess?fen=FEN&depth=D`: the best move as plain text (`0000` when
/// there is none), or the analysis's JSON for `Accept: application/json`.
async fn chess(
    State(state): State<AppState>,
    headers: HeaderMap,
    RawQuery(query): RawQuery,
) -> Result<Response, ApiError> {
    let fields: AnalyseFields = request::from_query(query.as_deref())?;
    let (analysis, found) = analyse(&state, fields.check(&state.config.limits, false)?).await?;
    let answer = AnalysisAnswer::new(&analysis.setup, &found);
    if wants_json(&headers) {
        return Ok(ok_json(&answer));
    }
    let text = answer.bestmove.unwrap_or_else(|| "0000".to_string());
    Ok((StatusCode::OK, [(header::CONTENT_TYPE, "text/plain; charset=utf-8")], format!("{text}\n")).into_response())
}

async fn analyse_get(State(state): State<AppState>, RawQuery(query): RawQuery) -> Result<Response, ApiError> {
    let fields: AnalyseFields = request::from_query(query.as_deref())?;
    let (analysis, found) = analyse(&state, fields.check(&state.config.limits, false)?).await?;
    Ok(ok_json(&AnalysisAnswer::new(&analysis.setup, &found)))
}

async fn analyse_post(State(state): State<AppState>, headers: HeaderMap, body: Body) -> Result<Response, ApiError> {
    let fields: AnalyseFields = json_body(&state, &headers, body).await?;
    let (analysis, found) = analyse(&state, fields.check(&state.config.limits, false)?).await?;
    Ok(ok_json(&AnalysisAnswer::new(&analysis.setup, &found)))
}

/// `POST /api/move`: the engine's move in a game, at a level.
async fn play_move(State(state): State<AppState>, headers: HeaderMap, body: Body) -> Result<Response, ApiError> {
    let fields: MoveFields = json_body(&state, &headers, body).await?;
    let request = fields.check(&state.config.limits)?;
    let (request, found) = on_engine(&state, move |driver, cancelled| {
        let search = Search {
            setup: &request.setup,
            limits: request.limits.clone(),
            multipv: 1,
            level: request.level,
            seed: request.seed,
        };
        let found = driver.search(&search, cancelled, &mut |_, _| {});
        (request, found)
    })
    .await?;
    let found = found.map_err(ApiError::engine)?;
    Ok(ok_json(&MoveAnswer::new(&request.setup, &found)))
}

/// `POST /api/batch`: several positions, one job, answered in order.
async fn batch(State(state): State<AppState>, headers: HeaderMap, body: Body) -> Result<Response, ApiError> {
    let fields: BatchFields = json_body(&state, &headers, body).await?;
    let analyses = fields.check(&state.config.limits)?;
    let results = on_engine(&state, move |driver, cancelled| {
        let mut results = Vec::with_capacity(analyses.len());
        for analysis in &analyses {
            if cancelled() {
                return Err("the client went away".to_string());
            }
            let search = Search {
                setup: &analysis.setup,
                limits: analysis.limits.clone(),
                multipv: analysis.multipv,
                level: Level::Full,
                seed: 0,
            };
            let found = driver.search(&search, cancelled, &mut |_, _| {})?;
            results.push(AnalysisAnswer::new(&analysis.setup, &found));
        }
        Ok(results)
    })
    .await?
    .map_err(ApiError::engine)?;
    #[derive(Serialize)]
    struct Batch {
        results: Vec<AnalysisAnswer>,
    }
    Ok(ok_json(&Batch { results }))
}
