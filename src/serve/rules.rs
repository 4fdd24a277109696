//! The rules of chess as a page needs them, from the engine's own board, move generator and
//! notation (through `engine::Setup`), so that the page and the server can never disagree
//! about a move: `POST /api/position` answers the "position view" of a start position and
//! moves (the position after them, whose turn, check, whether and how the game is over, the
//! moves in SAN and as PGN, every legal move with its squares and SAN, the last move), and
//! the games' states (`games`) carry the same view.

use super::AppState;
use super::error::ApiError;
use super::request::{self, Words};
use super::routes::{json_body, ok_json};
use crate::engine::{Color, EndReason, GameResult, Setup};
use axum::body::Body;
use axum::extract::State;
use axum::http::HeaderMap;
use axum::response::Response;
use serde::{Deserialize, Serialize};

/// `POST /api/position`'s body.
#[derive(Deserialize, Default, Debug)]
#[serde(deny_unknown_fields)]
pub struct PositionFields {
    pub fen: Option<String>,
    pub moves: Option<Words>,
}

#[derive(Clone, Debug, Serialize)]
pub struct Squares {
    pub from: String,
    pub to: String,
}

#[derive(Clone, Debug, Serialize)]
pub struct Legal {
    pub uci: String,
    pub san: String,
    pub from: String,
    pub to: String,
    pub promotion: Option<String>,
}

/// The position view (see the module's comment, and docs/serve.md).
#[derive(Clone, Debug, Serialize)]
pub struct PositionView {
    pub fen: String,
    pub turn: &'static str,
    pub check: bool,
    /// `playing`, `checkmate`, `stalemate`, `repetition`, `fifty-moves` or
    /// `insufficient-material`.
    pub status: &'static str,
    pub result: &'static str,
    pub san: Vec<String>,
    pub pgn: String,
    pub legal: Vec<Legal>,
    pub last_move: Option<Squares>,
}

pub fn colour_name(colour: Color) -> &'static str {
    match colour {
        Color::White => "white",
        Color::Black => "black",
    }
}

/// How the board ends a game, if it does: the status word and the result.
pub fn board_end(setup: &Setup) -> Option<(&'static str, &'static str)> {
    let end = setup.game_over()?;
    let status = match end.reason {
        EndReason::Checkmate => "checkmate",
        EndReason::Stalemate => "stalemate",
        EndReason::ThreefoldRepetition => "repetition",
        EndReason::FiftyMoveRule => "fifty-moves",
        EndReason::InsufficientMaterial => "insufficient-material",
    };
    let result = match end.result {
        GameResult::WhiteWins => "1-0",
        GameResult::BlackWins => "0-1",
        GameResult::Draw => "1/2-1/2",
    };
    Some((status, result))
}

impl PositionView {
    /// The view of a position; `tags` and `result` go into its PGN (a game's players, or how
    /// it ended when that was not by the board).
    pub fn new(setup: &Setup, tags: Vec<(String, String)>, result: Option<&'static str>) -> PositionView {
        let (status, board_result) = board_end(setup).unwrap_or(("playing", "*"));
        let result = result.unwrap_or(board_result);
        let legal = if status == "playing" { setup.legal() } else { Vec::new() };
        PositionView {
            fen: setup.fen(),
            turn: colour_name(setup.side_to_move()),
            check: setup.in_check(),
            status,
            result,
            san: setup.san_moves(),
            pgn: setup.pgn(tags, result),
            legal: legal
                .into_iter()
                .map(|m| Legal {
                    uci: m.uci,
                    san: m.san,
                    from: m.from,
                    to: m.to,
                    promotion: m.promotion.map(String::from),
                })
                .collect(),
            last_move: setup.last_move().map(|facts| Squares { from: facts.from, to: facts.to }),
        }
    }
}

/// `POST /api/position`: the view of a start position (`startpos` or a FEN) after moves.
pub async fn position(State(state): State<AppState>, headers: HeaderMap, body: Body) -> Result<Response, ApiError> {
    let fields: PositionFields = json_body(&state, &headers, body).await?;
    let setup = request::setup(fields.fen.as_deref(), fields.moves.as_ref(), None)?;
    Ok(ok_json(&PositionView::new(&setup, Vec::new(), None)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_mate_is_over_with_no_legal_move_and_the_winner() {
        let setup = Setup::new(None, &["f2f3", "e7e5", "g2g4", "d8h4"], false).unwrap();
        let view = PositionView::new(&setup, Vec::new(), None);
        assert_eq!((view.status, view.result, view.check, view.turn), ("checkmate", "0-1", true, "white"));
        assert!(view.legal.is_empty());
        assert_eq!(view.san, ["f3", "e5", "g4", "Qh4#"]);
        assert!(view.pgn.contains("2. g4 Qh4# 0-1"), "{}", view.pgn);
        let last = view.last_move.unwrap();
        assert_eq!((last.from.as_str(), last.to.as_str()), ("d8", "h4"));
    }

    #[test]
    fn the_start_has_twenty_moves_and_castling_is_the_kings_squares() {
        let view = PositionView::new(&Setup::new(None, &[] as &[&str], false).unwrap(), Vec::new(), None);
        assert_eq!((view.legal.len(), view.status, view.result), (20, "playing", "*"));
        assert!(view.last_move.is_none());
        let castles = Setup::new(Some("r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1"), &[] as &[&str], false).unwrap();
        let view = PositionView::new(&castles, Vec::new(), None);
        let short = view.legal.iter().find(|m| m.san == "O-O").unwrap();
        assert_eq!((short.uci.as_str(), short.from.as_str(), short.to.as_str()), ("e1g1", "e1", "g1"));
        let promotions = Setup::new(Some("8/P7/8/8/8/8/8/k6K w - - 0 1"), &[] as &[&str], false).unwrap();
        let view = PositionView::new(&promotions, Vec::new(), None);
        let queen = view.legal.iter().find(|m| m.uci == "a7a8q").unwrap();
        assert_eq!((queen.promotion.as_deref(), queen.san.as_str()), (Some("q"), "a8=Q+"));
    }

    #[test]
    fn a_threefold_repetition_is_a_draw() {
        let moves = ["g1f3", "g8f6", "f3g1", "f6g8", "g1f3", "g8f6", "f3g1", "f6g8"];
        let view = PositionView::new(&Setup::new(None, &moves, false).unwrap(), Vec::new(), None);
        assert_eq!((view.status, view.result), ("repetition", "1/2-1/2"));
    }
}
