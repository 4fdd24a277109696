//! Live lines: `GET /api/analyse/stream` opens a WebSocket on which each text message is an
//! analysis request (the fields of `POST /api/analyse`; without a limit it runs until stopped,
//! within `--max-movetime`). While it searches the server sends an `info` message for each
//! line the engine reports, then a `bestmove` message with the whole analysis. `stop` (or
//! `{"stop": true}`) ends the search early; a client that closes the socket, or whose
//! connection drops, stops it too, so the engine is free for the next request at once.

use super::AppState;
use super::answer::{Analysis as AnalysisAnswer, Progress, Tagged, json};
use super::error::ApiError;
use super::request::{self, AnalyseFields, Analysis};
use super::routes::on_engine;
use super::worker::{Level, Search};
use axum::extract::State;
use axum::extract::ws::{Message, WebSocket, WebSocketUpgrade};
use axum::response::Response;
use futures_util::{SinkExt, StreamExt};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use tokio::sync::mpsc;

pub async fn analyse_stream(State(state): State<AppState>, upgrade: WebSocketUpgrade) -> Response {
    let limit = state.config.limits.max_body;
    upgrade.max_message_size(limit).max_frame_size(limit).on_upgrade(move |socket| session(socket, state))
}

/// What the engine's job sends back to the socket.
enum Event {
    Info(Progress),
    Done(Result<AnalysisAnswer, ApiError>),
}

/// A message from the client: a request, or `stop`.
fn is_stop(text: &str) -> bool {
    let text = text.trim();
    text == "stop"
        || serde_json::from_str::<serde_json::Value>(text).is_ok_and(|v| v == serde_json::json!({"stop": true}))
}

fn error_message(error: &ApiError) -> Message {
    Message::Text(json(&Tagged { kind: "error", body: error }).into())
}

async fn session(socket: WebSocket, state: AppState) {
    let (mut outgoing, mut incoming) = socket.split();
    // Requests wait for the running search's end: one search at a time per socket.
    'requests: while let Some(Ok(message)) = incoming.next().await {
        let text = match message {
            Message::Text(text) => text.to_string(),
            Message::Binary(_) => {
                let error = ApiError::bad("bad_json", "send requests as text messages of JSON");
                if outgoing.send(error_message(&error)).await.is_err() {
                    return;
                }
                continue;
            }
            Message::Close(_) => return,
            Message::Ping(_) | Message::Pong(_) => continue,
        };
        if is_stop(&text) {
            continue;
        }
        let analysis = request::from_body::<AnalyseFields>(text.as_bytes())
            .and_then(|fields| fields.check(&state.config.limits, true));
        let analysis = match analysis {
            Ok(analysis) => analysis,
            Err(error) => {
                if outgoing.send(error_message(&error)).await.is_err() {
                    return;
                }
                continue;
            }
        };
        let (events, mut received) = mpsc::unbounded_channel();
        let stop = Arc::new(AtomicBool::new(false));
        let job = run_search(&state, analysis, events, Arc::clone(&stop));
        tokio::pin!(job);
        let mut job_done = false;
        loop {
            tokio::select! {
                queued = &mut job, if !job_done => {
                    job_done = true;
                    if let Err(error) = queued {
                        if outgoing.send(error_message(&error)).await.is_err() {
                            return;
                        }
                        continue 'requests;
                    }
                }
                event = received.recv() => match event {
                    Some(Event::Info(progress)) => {
                        let text = json(&Tagged { kind: "info", body: &progress });
                        if outgoing.send(Message::Text(text.into())).await.is_err() {
                            stop.store(true, Ordering::SeqCst);
                            return;
                        }
                    }
                    Some(Event::Done(result)) => {
                        let message = match result {
                            Ok(answer) => Message::Text(json(&Tagged { kind: "bestmove", body: &answer }).into()),
                            Err(error) => error_message(&error),
                        };
                        if outgoing.send(message).await.is_err() {
                            return;
                        }
                        continue 'requests;
                    }
                    // The job is over without a word: it was refused (the queue was full).
                    None => {
                        if !job_done
                            && let Err(error) = (&mut job).await
                            && outgoing.send(error_message(&error)).await.is_err()
                        {
                            return;
                        }
                        continue 'requests;
                    }
                },
                message = incoming.next() => match message {
                    Some(Ok(Message::Text(text))) if is_stop(&text) => stop.store(true, Ordering::SeqCst),
                    Some(Ok(Message::Text(_) | Message::Binary(_))) => {
                        let error = ApiError::bad("bad_value", "a search is running: send stop first");
                        if outgoing.send(error_message(&error)).await.is_err() {
                            stop.store(true, Ordering::SeqCst);
                            return;
                        }
                    }
                    Some(Ok(Message::Ping(_) | Message::Pong(_))) => {}
                    // Closed, or the connection broke: the search is not wanted any more.
                    Some(Ok(Message::Close(_)) | Err(_)) | None => {
                        stop.store(true, Ordering::SeqCst);
                        return;
                    }
                },
            }
        }
    }
}

/// Queues the search; its lines and its end go to `events`. It stops when `stop` is set or
/// `events`' receiver is gone.
async fn run_search(
    state: &AppState,
    analysis: Analysis,
    events: mpsc::UnboundedSender<Event>,
    stop: Arc<AtomicBool>,
) -> Result<(), ApiError> {
    on_engine(state, move |driver, gone| {
        let cancelled = || gone() || stop.load(Ordering::SeqCst) || events.is_closed();
        let search = Search {
            setup: &analysis.setup,
            limits: analysis.limits.clone(),
            multipv: analysis.multipv,
            level: Level::Full,
            seed: 0,
        };
        let found = driver.search(&search, &cancelled, &mut |latest, infos| {
            let _ = events.send(Event::Info(Progress::new(&analysis.setup, latest, infos)));
        });
        let answer = found.map(|found| AnalysisAnswer::new(&analysis.setup, &found)).map_err(ApiError::engine);
        let _ = events.send(Event::Done(answer));
    })
    .await
}
