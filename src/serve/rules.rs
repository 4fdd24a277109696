//! `POST /api/position`: the rules of chess for a page that draws a board. A board in the
//! browser must know which squares a piece may go to, what a move is called, and when the game
//! is over; it asks here, so that the rules stay the engine's own (its board, move generator,
//! notation and game-end rules) and no second implementation in JavaScript can disagree with
//! them. The answer is the "position view", which the games of `sentinel serve` embed in their
//! states as well: `view` builds it from any `Setup`, and `play` checks one more move.

use super::AppState;
use super::answer::json;
use super::error::ApiError;
use super::request::Words;
use super::routes::json_body;
use crate::engine::{Color, EndReason, GameResult, Move, Setup, SetupError};
use crate::notation::pgn::{PgnGame, PgnResult, write_pgn};
use axum::body::Body;
use axum::extract::State;
use axum::http::{HeaderMap, StatusCode, header};
use axum::response::{IntoResponse, Response};
use serde::{Deserialize, Serialize};

/// The request: a start position and moves from it.
#[derive(Deserialize, Debug, Default)]
#[serde(deny_unknown_fields)]
pub struct PositionFields {
    /// A FEN, or `startpos` (the default).
    pub fen: Option<String>,
    /// Moves from it, in coordinate notation or SAN.
    pub moves: Option<Words>,
    /// Castling rights and moves as in Chess960 (the king takes its own rook: `e1h1`).
    pub chess960: Option<bool>,
    /// Moves after a draw by the rules (threefold repetition, fifty moves, insufficient
    /// material) are played on, as in a game where nobody claimed it, instead of refused.
    pub play_on: Option<bool>,
}

/// A legal move, as a board needs it: where it goes from and to, and its names.
#[derive(Serialize, Clone, Debug, PartialEq, Eq)]
pub struct LegalMove {
    pub uci: String,
    pub san: String,
    pub from: String,
    /// The square the move's coordinate text names: the king's landing square when castling
    /// in standard chess (`g1`), its own rook's in Chess960 (`h1`).
    pub to: String,
    /// The piece a pawn becomes, as a lower-case letter.
    pub promotion: Option<String>,
}

#[derive(Serialize, Clone, Debug, PartialEq, Eq)]
pub struct Squares {
    pub from: String,
    pub to: String,
}

/// What a page shows of a position: see docs/serve.md.
#[derive(Serialize, Clone, Debug)]
pub struct PositionView {
    pub fen: String,
    /// The position the moves start from, as given (the standard one for `startpos`).
    pub start_fen: String,
    pub turn: &'static str,
    pub check: bool,
    /// `playing`, or what ended the game: `checkmate`, `stalemate`, `repetition`,
    /// `fifty-moves` or `insufficient-material`.
    pub status: &'static str,
    /// `1-0`, `0-1`, `1/2-1/2`, or `*` while the game goes on.
    pub result: &'static str,
    /// The winner's colour after a checkmate.
    pub winner: Option<&'static str>,
    /// The moves played, in coordinate notation (SAN given is written here as UCI).
    pub moves: Vec<String>,
    pub san: Vec<String>,
    /// The game in PGN, its result and start position (`SetUp`, `FEN`) in the tags.
    pub pgn: String,
    /// The full move number of the position.
    pub fullmove: u32,
    /// Empty when the game is over.
    pub legal: Vec<LegalMove>,
    pub last_move: Option<Squares>,
    pub chess960: bool,
}

pub(crate) fn colour_name(colour: Color) -> &'static str {
    match colour {
        Color::White => "white",
        Color::Black => "black",
    }
}

fn colour_title(colour: Color) -> &'static str {
    match colour {
        Color::White => "White",
        Color::Black => "Black",
    }
}

/// The name of each rule that ends a game, as the view and game states write it.
pub(crate) fn reason_name(reason: EndReason) -> &'static str {
    match reason {
        EndReason::Checkmate => "checkmate",
        EndReason::Stalemate => "stalemate",
        EndReason::ThreefoldRepetition => "repetition",
        EndReason::FiftyMoveRule => "fifty-moves",
        EndReason::InsufficientMaterial => "insufficient-material",
    }
}

pub(crate) fn result_text(result: GameResult) -> &'static str {
    match result {
        GameResult::WhiteWins => "1-0",
        GameResult::BlackWins => "0-1",
        GameResult::Draw => "1/2-1/2",
    }
}

/// The moves of a setup as the move generator's values, replayed from its start position.
fn played(setup: &Setup) -> (Vec<Move>, Vec<String>) {
    let start = Setup::new(Some(setup.start_fen()), &[] as &[&str], setup.chess960());
    let Ok(mut position) = start else {
        return (Vec::new(), Vec::new());
    };
    let mut moves = Vec::with_capacity(setup.moves().len());
    let mut san = Vec::with_capacity(setup.moves().len());
    for text in setup.moves() {
        let Some(mv) = position.parse_move(text) else { break };
        let Some(name) = position.line(&[mv]).1.pop() else { break };
        let Ok(next) = position.after(mv) else { break };
        moves.push(mv);
        san.push(name);
        position = next;
    }
    (moves, san)
}

/// The game of a setup in PGN, with `tags` (the Seven Tag Roster's missing ones written `?`)
/// and `result` (`*` for a game that goes on, whatever the position says).
pub(crate) fn pgn(setup: &Setup, tags: &[(&str, &str)], result: &str) -> String {
    let (moves, _) = played(setup);
    let mut tags: Vec<(String, String)> = tags.iter().map(|(n, v)| (n.to_string(), v.to_string())).collect();
    if setup.chess960() {
        tags.push(("Variant".to_string(), "Chess960".to_string()));
    }
    let game = PgnGame {
        tags,
        start_fen: setup.start_fen().to_string(),
        moves,
        result: PgnResult::parse(result).unwrap_or(PgnResult::Unknown),
        comments: Vec::new(),
    };
    write_pgn(&game)
}

/// The position view of a setup.
pub(crate) fn view(setup: &Setup) -> PositionView {
    let end = setup.game_over();
    let (_, san) = played(setup);
    let legal = if end.is_some() {
        Vec::new()
    } else {
        setup
            .legal_moves()
            .into_iter()
            .filter_map(|mv| {
                let uci = setup.move_text(mv);
                let san = setup.line(&[mv]).1.pop()?;
                Some(LegalMove {
                    from: uci.get(0..2)?.to_string(),
                    to: uci.get(2..4)?.to_string(),
                    promotion: uci.get(4..).filter(|p| !p.is_empty()).map(str::to_string),
                    san,
                    uci,
                })
            })
            .collect()
    };
    let last_move = setup
        .moves()
        .last()
        .and_then(|uci| Some(Squares { from: uci.get(0..2)?.to_string(), to: uci.get(2..4)?.to_string() }));
    let result = end.map_or("*", |end| result_text(end.result));
    let fen = setup.fen();
    let fullmove = fen.split_whitespace().nth(5).and_then(|n| n.parse().ok()).unwrap_or(1);
    PositionView {
        turn: colour_name(setup.side_to_move()),
        check: setup.in_check(),
        status: end.map_or("playing", |end| reason_name(end.reason)),
        result,
        winner: end.and_then(|end| match end.result {
            GameResult::WhiteWins => Some("white"),
            GameResult::BlackWins => Some("black"),
            GameResult::Draw => None,
        }),
        start_fen: setup.start_fen().to_string(),
        moves: setup.moves().to_vec(),
        pgn: pgn(setup, &[], result),
        san,
        fullmove,
        legal,
        last_move,
        chess960: setup.chess960(),
        fen,
    }
}

/// Whether a game may go on after the end `setup` is at, when drawn positions are played on:
/// only a claimable draw (not mate or stalemate, which leave no move).
fn over(setup: &Setup, play_on: bool) -> Option<crate::engine::GameEnd> {
    setup.game_over().filter(|end| !play_on || matches!(end.reason, EndReason::Checkmate | EndReason::Stalemate))
}

/// Why `text` cannot be played in `setup`, in words a player reads.
fn why_not(setup: &Setup, text: &str, play_on: bool) -> String {
    let side = setup.side_to_move();
    if let Some(end) = over(setup, play_on) {
        return match end.reason {
            EndReason::Checkmate => {
                format!("the game is over: {} is checkmated", colour_title(side))
            }
            reason => format!("the game is over: a draw by {}", reason_name(reason).replace('-', " ")),
        };
    }
    let quoted = crate::quote::excerpt(text, 20);
    let lower = text.to_ascii_lowercase();
    let squares = |s: &str| crate::board::Square::parse(s).is_some();
    let coordinates =
        lower.is_ascii() && (4..=5).contains(&lower.len()) && squares(&lower[0..2]) && squares(&lower[2..4]);
    if !coordinates {
        // SAN names a move by its piece and square: one that no piece can make here.
        let san_like =
            (2..=8).contains(&text.len()) && text.chars().all(|c| "KQRBNabcdefgh12345678xO0-=+#!?".contains(c));
        return if san_like {
            format!("{quoted} is not a legal move for {} here", colour_title(side))
        } else {
            format!("'{quoted}' is not a move in coordinate notation (e2e4) or SAN (Nf3)")
        };
    }
    let (from, to) = (&lower[0..2], &lower[2..4]);
    let Some(letter) = setup.piece_letter(from) else {
        return format!("there is no piece on {from}");
    };
    let owner = if letter.is_ascii_uppercase() { Color::White } else { Color::Black };
    if owner != side {
        return format!("the piece on {from} is {}'s, and it is {}'s move", colour_title(owner), colour_title(side));
    }
    let legal: Vec<String> = setup.legal_moves().into_iter().map(|mv| setup.move_text(mv)).collect();
    let same_squares: Vec<&String> = legal.iter().filter(|uci| uci.get(0..4) == Some(&lower[0..4])).collect();
    if !same_squares.is_empty() {
        return match lower.get(4..) {
            Some("") | None => format!("a pawn that reaches the last rank must promote: say to what ({lower}q)"),
            Some(piece) => format!("a pawn cannot promote to '{piece}': q, r, b or n"),
        };
    }
    let piece = match letter.to_ascii_lowercase() {
        'p' => "pawn",
        'n' => "knight",
        'b' => "bishop",
        'r' => "rook",
        'q' => "queen",
        _ => "king",
    };
    if setup.in_check() {
        format!("the {piece} on {from} cannot go to {to}: {} is in check and must answer it", colour_title(side))
    } else {
        format!("the {piece} on {from} cannot go to {to}")
    }
}

/// The setup after one more move (coordinate notation or SAN), or a refusal that says why
/// not; moves after any end of the game are refused (see `PositionFields::play_on`).
pub(crate) fn play(setup: &Setup, text: &str) -> Result<Setup, ApiError> {
    play_from(setup, text, false)
}

fn play_from(setup: &Setup, text: &str, play_on: bool) -> Result<Setup, ApiError> {
    let refuse = || ApiError::bad("illegal_move", why_not(setup, text, play_on));
    if over(setup, play_on).is_some() {
        return Err(refuse());
    }
    let mv = setup.parse_move(text).ok_or_else(refuse)?;
    setup.after(mv).map_err(|_| refuse())
}

/// The setup of a request: the start position, then each move checked in turn.
pub(crate) fn setup_of(fields: &PositionFields) -> Result<Setup, ApiError> {
    let chess960 = fields.chess960.unwrap_or(false);
    let mut setup = Setup::new(fields.fen.as_deref(), &[] as &[&str], chess960).map_err(|e| match e {
        SetupError::Fen(_) => ApiError::bad("bad_fen", e.to_string()).field("fen"),
        SetupError::IllegalMove { .. } => ApiError::bad("illegal_move", e.to_string()).field("moves"),
    })?;
    let moves = fields.moves.as_ref().map(|w| w.0.as_slice()).unwrap_or_default();
    for (index, text) in moves.iter().enumerate() {
        setup = play_from(&setup, text, fields.play_on.unwrap_or(false)).map_err(|e| {
            let error = format!("move {index} ({}): {}", crate::quote::excerpt(text, 20), e.error);
            ApiError { error, ..e }.field("moves").index(index)
        })?;
    }
    Ok(setup)
}

/// `POST /api/position`.
pub async fn position(State(state): State<AppState>, headers: HeaderMap, body: Body) -> Result<Response, ApiError> {
    let fields: PositionFields = json_body(&state, &headers, body).await?;
    let setup = setup_of(&fields)?;
    Ok((StatusCode::OK, [(header::CONTENT_TYPE, "application/json")], json(&view(&setup))).into_response())
}

/// The same request read from JSON text, for tests.
#[cfg(test)]
fn view_of(body: &str) -> Result<PositionView, ApiError> {
    let fields: PositionFields = super::request::from_body(body.as_bytes())?;
    setup_of(&fields).map(|setup| view(&setup))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ok(body: &str) -> PositionView {
        view_of(body).unwrap_or_else(|e| panic!("{body}: {e}"))
    }

    fn refused(body: &str) -> ApiError {
        match view_of(body) {
            Ok(view) => panic!("{body} was answered: {}", view.fen),
            Err(e) => e,
        }
    }

    #[test]
    fn the_start_position_has_twenty_moves_with_their_names() {
        let view = ok(r#"{}"#);
        assert_eq!(view.fen, "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1");
        assert_eq!((view.turn, view.check, view.status, view.result), ("white", false, "playing", "*"));
        assert_eq!(view.legal.len(), 20);
        let knight = view.legal.iter().find(|m| m.uci == "g1f3").expect("Nf3 is legal");
        assert_eq!(
            knight,
            &LegalMove { uci: "g1f3".into(), san: "Nf3".into(), from: "g1".into(), to: "f3".into(), promotion: None }
        );
        assert!(view.last_move.is_none() && view.san.is_empty());
    }

    #[test]
    fn moves_in_either_notation_give_san_pgn_and_the_last_move() {
        let view = ok(r#"{"moves": ["e2e4", "e5", "Nf3", "b8c6", "f1b5"]}"#);
        assert_eq!(view.moves, ["e2e4", "e7e5", "g1f3", "b8c6", "f1b5"]);
        assert_eq!(view.san, ["e4", "e5", "Nf3", "Nc6", "Bb5"]);
        assert_eq!(view.turn, "black");
        assert_eq!(view.fullmove, 3);
        assert_eq!(view.last_move, Some(Squares { from: "f1".into(), to: "b5".into() }));
        assert!(view.pgn.contains("1. e4 e5 2. Nf3 Nc6 3. Bb5 *"), "{}", view.pgn);
        assert!(view.pgn.contains("[Result \"*\"]"));
    }

    #[test]
    fn check_and_the_moves_that_answer_it() {
        let view = ok(r#"{"moves": "e2e4 f7f6 d1h5"}"#);
        assert!(view.check);
        assert_eq!(view.san.last().map(String::as_str), Some("Qh5+"));
        let answers: Vec<&str> = view.legal.iter().map(|m| m.san.as_str()).collect();
        assert_eq!(answers, ["g6"]);
    }

    #[test]
    fn mate_names_the_winner_and_ends_the_legal_moves() {
        let view = ok(r#"{"moves": ["f2f3", "e7e5", "g2g4", "d8h4"]}"#);
        assert_eq!((view.status, view.result, view.winner, view.check), ("checkmate", "0-1", Some("black"), true));
        assert!(view.legal.is_empty());
        assert_eq!(view.san.last().map(String::as_str), Some("Qh4#"));
        assert!(view.pgn.contains("2. g4 Qh4# 0-1"), "{}", view.pgn);
        let after = refused(r#"{"moves": ["f2f3", "e7e5", "g2g4", "d8h4", "e2e4"]}"#);
        assert_eq!((after.code, after.index), ("illegal_move", Some(4)));
        assert!(after.error.contains("White is checkmated"), "{}", after.error);
    }

    #[test]
    fn stalemate_fifty_moves_and_insufficient_material_are_draws() {
        let stalemate = ok(r#"{"fen": "7k/8/6Q1/8/8/8/8/K7 w - - 0 1", "moves": ["g6f7"]}"#);
        assert_eq!((stalemate.status, stalemate.result, stalemate.winner), ("stalemate", "1/2-1/2", None));
        assert!(stalemate.legal.is_empty() && !stalemate.check);
        let fifty = ok(r#"{"fen": "7k/8/8/8/8/8/R7/K7 w - - 99 80", "moves": ["a2b2"]}"#);
        assert_eq!((fifty.status, fifty.result), ("fifty-moves", "1/2-1/2"));
        let bare = ok(r#"{"fen": "8/8/8/8/8/8/5p2/4K2k w - - 0 1", "moves": ["e1f2"]}"#);
        assert_eq!((bare.status, bare.result), ("insufficient-material", "1/2-1/2"));
        assert!(bare.pgn.contains("[FEN \"8/8/8/8/8/8/5p2/4K2k w - - 0 1\"]"), "{}", bare.pgn);
        assert!(bare.pgn.contains("1. Kxf2 1/2-1/2"), "{}", bare.pgn);
    }

    #[test]
    fn threefold_repetition_is_a_draw_and_can_be_played_on() {
        let knights = r#"["g1f3", "g8f6", "f3g1", "f6g8", "g1f3", "g8f6", "f3g1", "f6g8"]"#;
        let twice = ok(&format!(r#"{{"moves": {}}}"#, &knights.replacen(r#", "f6g8"]"#, "]", 1)));
        assert_eq!(twice.status, "playing");
        let view = ok(&format!(r#"{{"moves": {knights}}}"#));
        assert_eq!((view.status, view.result), ("repetition", "1/2-1/2"));
        assert!(view.legal.is_empty());
        let on = knights.replace(']', r#", "e2e4"]"#);
        let error = refused(&format!(r#"{{"moves": {on}}}"#));
        assert_eq!(error.index, Some(8));
        assert!(error.error.contains("repetition"), "{}", error.error);
        let played_on = ok(&format!(r#"{{"moves": {on}, "play_on": true}}"#));
        assert_eq!(played_on.status, "playing");
        assert_eq!(played_on.san.last().map(String::as_str), Some("e4"));
    }

    #[test]
    fn an_illegal_move_is_refused_with_its_index_and_why() {
        let cases = [
            (r#"["e2e4", "e2e4"]"#, 1, "there is no piece on e2"),
            (r#"["e7e5"]"#, 0, "the piece on e7 is Black's, and it is White's move"),
            (r#"["e2e4", "e7e5", "e1e3"]"#, 2, "the king on e1 cannot go to e3"),
            (r#"["Nf6"]"#, 0, "Nf6 is not a legal move for White here"),
            (r#"["zz"]"#, 0, "is not a move"),
            (r#"["é2e4"]"#, 0, "is not a move"),
            (r#"["e2é4é"]"#, 0, "is not a move"),
            (r#"["e2e4", "f7f6", "d1h5", "a7a6"]"#, 3, "Black is in check"),
        ];
        for (moves, index, why) in cases {
            let error = refused(&format!(r#"{{"moves": {moves}}}"#));
            assert_eq!((error.code, error.index, error.field.as_deref()), ("illegal_move", Some(index), Some("moves")));
            assert!(error.error.contains(why), "{moves}: {}", error.error);
        }
        assert_eq!(refused(r#"{"fen": "8/8/8 w - -"}"#).code, "bad_fen");
        assert_eq!(refused(r#"{"fen": "startpos", "depth": 3}"#).code, "unknown_field");
    }

    #[test]
    fn promotion_needs_its_piece_and_each_is_a_legal_move() {
        let fen = r#""fen": "8/P6k/8/8/8/8/8/K7 w - - 0 1""#;
        let view = ok(&format!("{{{fen}}}"));
        let promotions: Vec<(&str, Option<&str>)> =
            view.legal.iter().filter(|m| m.from == "a7").map(|m| (m.san.as_str(), m.promotion.as_deref())).collect();
        assert_eq!(promotions.len(), 4);
        assert!(promotions.contains(&("a8=Q", Some("q"))) && promotions.contains(&("a8=N", Some("n"))));
        let bare = refused(&format!(r#"{{{fen}, "moves": ["a7a8"]}}"#));
        assert!(bare.error.contains("must promote"), "{}", bare.error);
        let queen = ok(&format!(r#"{{{fen}, "moves": ["a7a8q"]}}"#));
        assert_eq!(queen.san, ["a8=Q"]);
    }

    #[test]
    fn castling_is_the_kings_move_and_in_chess960_it_takes_the_rook() {
        let standard = ok(r#"{"moves": "e2e4 e7e5 g1f3 b8c6 f1c4 g8f6"}"#);
        let castle = standard.legal.iter().find(|m| m.san == "O-O").expect("White may castle");
        assert_eq!((castle.uci.as_str(), castle.to.as_str()), ("e1g1", "g1"));
        let fen = "rk5r/8/8/8/8/8/8/RK5R w HAha - 0 1";
        let chess960 = ok(&format!(r#"{{"fen": "{fen}", "chess960": true}}"#));
        assert!(chess960.chess960);
        let castle = chess960.legal.iter().find(|m| m.san == "O-O").expect("White may castle in Chess960");
        assert_eq!((castle.from.as_str(), castle.to.as_str()), ("b1", "h1"));
        let after = ok(&format!(r#"{{"fen": "{fen}", "chess960": true, "moves": ["b1h1"]}}"#));
        assert!(after.fen.starts_with("rk5r/8/8/8/8/8/8/R4RK1 b"), "{}", after.fen);
        assert_eq!(after.san, ["O-O"]);
        assert!(after.pgn.contains("[Variant \"Chess960\"]"), "{}", after.pgn);
    }
}
