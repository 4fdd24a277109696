//! The answer shapes of public engine services, at their own paths, so that a client written
//! for one of them works against Sentinel by changing the base URL:
//!
//! - stockfish.online's `GET /api/s/v2.php?fen=FEN&depth=D`: `success`, `evaluation` (pawns,
//!   White's view), `mate`, `bestmove` (`bestmove e2e4 ponder e7e5`), `continuation`;
//! - chess-api.com's `POST /v1` with `fen`, `depth`, `variants`, `maxThinkingTime`,
//!   `searchmoves`: the best line's `move`, `san`, `eval`, `centipawns`, `mate`, `winChance`,
//!   `continuationArr` and the move's description (over HTTP; its WebSocket is not offered);
//! - lichess's `GET /api/cloud-eval?fen=FEN&multiPv=N`: `fen`, `knodes`, `depth`, `pvs`.
//!
//! Each reads its own fields (and refuses others), searches within the owner's limits like
//! every request, and answers errors as a 4xx with a JSON message (stockfish.online's as
//! `success: false`).

use super::AppState;
use super::answer::{ScoreJson, white_view};
use super::error::ApiError;
use super::request::{AnalyseFields, Words, from_query};
use super::routes::{analyse, json_body, ok_json};
use super::worker::Found;
use crate::engine::{Color, Score, Setup};
use axum::body::Body;
use axum::extract::{RawQuery, State};
use axum::http::HeaderMap;
use axum::response::{IntoResponse, Response};
use serde::{Deserialize, Serialize};

/// Lichess's win percentage of a score from White's side (`50 + 50 * (2 / (1 + exp(-0.00368208
/// * cp)) - 1)`), which chess-api.com reports as `winChance`; a mate counts as a sure result.
fn win_percent(score: Score) -> f64 {
    match score {
        Score::Centipawns(cp) => 50.0 + 50.0 * (2.0 / (1.0 + (-0.00368208 * f64::from(cp)).exp()) - 1.0),
        Score::Mate(moves) if moves > 0 => 100.0,
        Score::Mate(_) => 0.0,
    }
}

/// The best line's score from White's side, and the line, in coordinate notation.
fn best_line(setup: &Setup, found: &Found) -> (Option<Score>, Vec<String>) {
    match found.lines().first() {
        Some(info) => (Some(white_view(info.score, setup.side_to_move())), setup.line(&info.pv).0),
        None => (None, found.best.map(|mv| setup.move_text(mv)).into_iter().collect()),
    }
}

#[derive(Deserialize, Default)]
#[serde(deny_unknown_fields)]
struct StockfishOnlineFields {
    fen: Option<String>,
    depth: Option<String>,
}

/// A stockfish.online refusal: `{"success": false, "data": "..."}` with the 4xx status.
fn stockfish_error(error: ApiError) -> Response {
    #[derive(Serialize)]
    struct Failure {
        success: bool,
        data: String,
    }
    let status = error.status;
    (status, ok_json(&Failure { success: false, data: error.error })).into_response()
}

pub async fn stockfish_online(State(state): State<AppState>, RawQuery(query): RawQuery) -> Response {
    #[derive(Serialize)]
    struct Answer {
        success: bool,
        evaluation: Option<f64>,
        mate: Option<i32>,
        bestmove: String,
        continuation: String,
    }
    let result = async {
        let fields: StockfishOnlineFields = from_query(query.as_deref())?;
        let Some(fen) = fields.fen else {
            return Err(ApiError::value("fen", "fen is needed"));
        };
        let depth = fields
            .depth
            .map(|d| d.trim().parse::<i64>().map_err(|_| ApiError::value("depth", "depth must be a whole number")))
            .transpose()?;
        let request = AnalyseFields { fen: Some(fen), depth: depth.or(Some(10)), ..AnalyseFields::default() };
        let (analysis, found) = analyse(&state, request.check(&state.config.limits, false)?).await?;
        let (score, line) = best_line(&analysis.setup, &found);
        let text = |mv| analysis.setup.move_text(mv);
        let bestmove = match (found.best, found.ponder) {
            (Some(best), Some(ponder)) => format!("bestmove {} ponder {}", text(best), text(ponder)),
            (Some(best), None) => format!("bestmove {}", text(best)),
            (None, _) => "bestmove (none)".to_string(),
        };
        Ok(Answer {
            success: true,
            evaluation: match score {
                Some(Score::Centipawns(cp)) => Some(f64::from(cp) / 100.0),
                _ => None,
            },
            mate: match score {
                Some(Score::Mate(moves)) => Some(moves),
                _ => None,
            },
            bestmove,
            continuation: line.join(" "),
        })
    }
    .await;
    match result {
        Ok(answer) => ok_json(&answer),
        Err(error) => stockfish_error(error),
    }
}

#[derive(Deserialize, Default)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct ChessApiFields {
    fen: Option<String>,
    depth: Option<i64>,
    variants: Option<i64>,
    max_thinking_time: Option<i64>,
    searchmoves: Option<Words>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct ChessApiAnswer {
    text: String,
    eval: Option<f64>,
    #[serde(rename = "move")]
    mv: String,
    fen: String,
    depth: i32,
    win_chance: f64,
    continuation_arr: Vec<String>,
    mate: Option<i32>,
    centipawns: Option<String>,
    san: String,
    lan: String,
    turn: &'static str,
    color: &'static str,
    piece: String,
    flags: String,
    is_capture: bool,
    is_castling: bool,
    is_promotion: bool,
    from: String,
    to: String,
    from_numeric: String,
    to_numeric: String,
    captured: Option<String>,
    promotion: Option<String>,
    time: u64,
    #[serde(rename = "type")]
    kind: &'static str,
}

/// chess-api.com's numbering of a square: its file from 1, then its rank (`b7` is `27`).
fn numeric(square: &str) -> String {
    let mut chars = square.chars();
    match (chars.next(), chars.next()) {
        (Some(file), Some(rank)) => format!("{}{rank}", u32::from(file).saturating_sub(u32::from('a')) + 1),
        _ => String::new(),
    }
}

pub async fn chess_api(State(state): State<AppState>, headers: HeaderMap, body: Body) -> Result<Response, ApiError> {
    let fields: ChessApiFields = json_body(&state, &headers, body).await?;
    let request = AnalyseFields {
        fen: fields.fen,
        // Its defaults: depth 12, or the time given.
        depth: if fields.max_thinking_time.is_some() { fields.depth } else { fields.depth.or(Some(12)) },
        movetime: fields.max_thinking_time.filter(|_| fields.depth.is_none()),
        multipv: fields.variants,
        searchmoves: fields.searchmoves,
        ..AnalyseFields::default()
    };
    let (analysis, found) = analyse(&state, request.check(&state.config.limits, false)?).await?;
    let setup = &analysis.setup;
    let Some(best) = found.best else {
        let over = setup.game_over().map_or("no legal move", |end| super::answer::GameOver::new(end).reason);
        return Err(ApiError::bad("bad_fen", format!("the position has no move to find: {over}")).field("fen"));
    };
    let (score, line) = best_line(setup, &found);
    let score = score.unwrap_or(Score::Centipawns(0));
    let eval = match score {
        Score::Centipawns(cp) => Some(f64::from(cp) / 100.0),
        Score::Mate(_) => None,
    };
    let facts = setup.describe(best);
    let san = setup.line(&[best]).1.pop().unwrap_or_default();
    let uci = setup.move_text(best);
    let mut flags = String::new();
    flags.push(match (facts.captured.is_some(), facts.en_passant, facts.castle) {
        (_, true, _) => 'e',
        (true, _, _) => 'c',
        (_, _, Some(true)) => 'k',
        (_, _, Some(false)) => 'q',
        _ => 'n',
    });
    if facts.promotion.is_some() {
        flags.push('p');
    }
    let turn = if setup.side_to_move() == Color::White { "w" } else { "b" };
    let pawns = |e: f64| format!("{e:.2}");
    let verdict = match score {
        Score::Mate(moves) => format!("{} mates in {}", if moves > 0 { "White" } else { "Black" }, moves.abs()),
        Score::Centipawns(cp) if cp.abs() < 50 => "The game is balanced".to_string(),
        Score::Centipawns(cp) if cp.abs() < 200 => format!("{} is better", if cp > 0 { "White" } else { "Black" }),
        Score::Centipawns(cp) => format!("{} is winning", if cp > 0 { "White" } else { "Black" }),
    };
    let text = format!(
        "Move {} → {} ({san}): [{}]. {verdict}. Depth {}.",
        facts.from,
        facts.to,
        eval.map_or_else(|| format!("#{}", if let Score::Mate(m) = score { m } else { 0 }), pawns),
        found.last().map_or(0, |info| info.depth)
    );
    let answer = ChessApiAnswer {
        text,
        eval,
        mv: uci.clone(),
        fen: setup.fen(),
        depth: found.last().map_or(0, |info| info.depth),
        win_chance: win_percent(score),
        continuation_arr: line,
        mate: if let Score::Mate(moves) = score { Some(moves) } else { None },
        centipawns: if let Score::Centipawns(cp) = score { Some(cp.to_string()) } else { None },
        san,
        lan: uci,
        turn,
        color: turn,
        piece: facts.piece.to_string(),
        flags,
        is_capture: facts.captured.is_some(),
        is_castling: facts.castle.is_some(),
        is_promotion: facts.promotion.is_some(),
        from_numeric: numeric(&facts.from),
        to_numeric: numeric(&facts.to),
        from: facts.from,
        to: facts.to,
        captured: facts.captured.map(String::from),
        promotion: facts.promotion.map(String::from),
        time: found.last().map_or(0, |info| info.elapsed.as_millis() as u64),
        kind: "bestmove",
    };
    Ok(ok_json(&answer))
}

#[derive(Deserialize, Default)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct CloudEvalFields {
    fen: Option<String>,
    multi_pv: Option<String>,
    variant: Option<String>,
}

pub async fn cloud_eval(State(state): State<AppState>, RawQuery(query): RawQuery) -> Result<Response, ApiError> {
    #[derive(Serialize)]
    struct Pv {
        moves: String,
        #[serde(flatten)]
        score: ScoreJson,
    }
    #[derive(Serialize)]
    struct Answer {
        fen: String,
        knodes: u64,
        depth: i32,
        pvs: Vec<Pv>,
    }
    let fields: CloudEvalFields = from_query(query.as_deref())?;
    if fields.fen.is_none() {
        return Err(ApiError::value("fen", "fen is needed"));
    }
    if let Some(variant) = fields.variant.as_deref().filter(|v| *v != "standard" && *v != "chess960") {
        let variant = crate::quote::excerpt(variant, 20);
        return Err(ApiError::value("variant", format!("only standard and chess960, not '{variant}'")));
    }
    let multipv = fields
        .multi_pv
        .map(|n| n.trim().parse::<i64>().map_err(|_| ApiError::value("multiPv", "multiPv must be a whole number")))
        .transpose()?;
    let request = AnalyseFields {
        fen: fields.fen,
        multipv,
        chess960: Some(fields.variant.as_deref() == Some("chess960")),
        ..AnalyseFields::default()
    };
    let (analysis, found) = analyse(&state, request.check(&state.config.limits, false)?).await?;
    let setup = &analysis.setup;
    let pvs = found
        .lines()
        .into_iter()
        .map(|info| Pv {
            moves: setup.line(&info.pv).0.join(" "),
            score: ScoreJson::new(white_view(info.score, setup.side_to_move())),
        })
        .collect();
    let last = found.last();
    Ok(ok_json(&Answer {
        fen: setup.fen(),
        knodes: last.map_or(0, |info| info.nodes / 1000),
        depth: last.map_or(0, |info| info.depth),
        pvs,
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lichess_win_percentages() {
        assert!((win_percent(Score::Centipawns(0)) - 50.0).abs() < 1e-9);
        // chess-api.com's own example: -11.62 pawns is a 1.37 % chance for White.
        assert!((win_percent(Score::Centipawns(-1162)) - 1.3673).abs() < 1e-3);
        assert_eq!(win_percent(Score::Mate(3)), 100.0);
        assert_eq!(numeric("b7"), "27");
        assert_eq!(numeric("h1"), "81");
    }
}
