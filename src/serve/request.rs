//! Reading requests: a JSON body or a query string becomes a typed request, checked against
//! the rules of chess and the owner's limits before it waits in the queue, so that every bad
//! request is refused at once with a message naming what was wrong. Query strings are read
//! into the same types as JSON (their values are text, so numbers and flags are also read from
//! text), and unknown fields are refused in both, so a misspelt `dpeth` is not silently a
//! search without a limit.

use super::Limits as ServerLimits;
use super::error::{ApiError, from_json};
use super::worker::Level;
use crate::engine::{Clock, Color, Limits, MAX_ELO, MAX_SKILL_LEVEL, MIN_ELO, Setup, SetupError};
use serde::Deserialize;
use serde::de::{self, DeserializeOwned, Deserializer, Visitor};
use std::time::Duration;

/// A list of words (moves): a JSON list of strings, or one string of them separated by spaces.
#[derive(Clone, Debug, Default)]
pub struct Words(pub Vec<String>);

impl<'de> Deserialize<'de> for Words {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Words, D::Error> {
        struct WordsVisitor;
        impl<'de> Visitor<'de> for WordsVisitor {
            type Value = Words;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("a list of moves, or a string of moves separated by spaces")
            }
            fn visit_str<E: de::Error>(self, text: &str) -> Result<Words, E> {
                Ok(Words(text.split_whitespace().map(str::to_string).collect()))
            }
            fn visit_seq<A: de::SeqAccess<'de>>(self, mut seq: A) -> Result<Words, A::Error> {
                let mut words = Vec::new();
                while let Some(word) = seq.next_element::<String>()? {
                    words.extend(word.split_whitespace().map(str::to_string));
                }
                Ok(Words(words))
            }
        }
        deserializer.deserialize_any(WordsVisitor)
    }
}

/// A whole number given as a JSON number or as text (a query string's value).
fn whole<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Option<i64>, D::Error> {
    struct Whole;
    impl Visitor<'_> for Whole {
        type Value = Option<i64>;
        fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
            f.write_str("a whole number")
        }
        fn visit_i64<E: de::Error>(self, n: i64) -> Result<Option<i64>, E> {
            Ok(Some(n))
        }
        fn visit_u64<E: de::Error>(self, n: u64) -> Result<Option<i64>, E> {
            Ok(Some(i64::try_from(n).unwrap_or(i64::MAX)))
        }
        fn visit_str<E: de::Error>(self, text: &str) -> Result<Option<i64>, E> {
            use std::num::IntErrorKind;
            match text.trim().parse::<i64>() {
                Ok(n) => Ok(Some(n)),
                // Too large for any limit: refused by the range check, with the limit's name.
                Err(e) if *e.kind() == IntErrorKind::PosOverflow => Ok(Some(i64::MAX)),
                Err(e) if *e.kind() == IntErrorKind::NegOverflow => Ok(Some(i64::MIN)),
                Err(_) => Err(E::invalid_value(de::Unexpected::Str(text), &self)),
            }
        }
        fn visit_unit<E: de::Error>(self) -> Result<Option<i64>, E> {
            Ok(None)
        }
    }
    deserializer.deserialize_any(Whole)
}

/// `true` or `false`, as JSON or as text.
fn flag<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Option<bool>, D::Error> {
    struct Flag;
    impl Visitor<'_> for Flag {
        type Value = Option<bool>;
        fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
            f.write_str("true or false")
        }
        fn visit_bool<E: de::Error>(self, b: bool) -> Result<Option<bool>, E> {
            Ok(Some(b))
        }
        fn visit_str<E: de::Error>(self, text: &str) -> Result<Option<bool>, E> {
            match text.trim() {
                "true" | "1" => Ok(Some(true)),
                "false" | "0" => Ok(Some(false)),
                _ => Err(E::invalid_value(de::Unexpected::Str(text), &self)),
            }
        }
        fn visit_unit<E: de::Error>(self) -> Result<Option<bool>, E> {
            Ok(None)
        }
    }
    deserializer.deserialize_any(Flag)
}

/// Reads JSON into a request type; a value of the wrong kind is said with its field's name.
fn read<'de, T: Deserialize<'de>>(
    deserializer: impl Deserializer<'de, Error = serde_json::Error>,
) -> Result<T, ApiError> {
    serde_path_to_error::deserialize(deserializer).map_err(|e| {
        let path = e.path().to_string();
        let error = from_json(e.into_inner());
        if error.code == "bad_value" && !path.is_empty() && path != "." {
            ApiError { error: format!("{path}: {}", error.error), field: Some(path), ..error }
        } else {
            error
        }
    })
}

/// Reads a JSON body into a request type.
pub fn from_body<T: DeserializeOwned>(body: &[u8]) -> Result<T, ApiError> {
    let mut deserializer = serde_json::Deserializer::from_slice(body);
    let value = read(&mut deserializer)?;
    deserializer.end().map_err(from_json)?;
    Ok(value)
}

/// Reads a JSON value (an element of a list) into a request type.
fn from_value<T: DeserializeOwned>(value: serde_json::Value) -> Result<T, ApiError> {
    read(value)
}

/// Reads a query string (`fen=...&depth=6`) into a request type: each value as text, a key
/// given more than once as a list.
pub fn from_query<T: DeserializeOwned>(query: Option<&str>) -> Result<T, ApiError> {
    let pairs: Vec<(String, String)> = serde_urlencoded::from_str(query.unwrap_or(""))
        .map_err(|e| ApiError::bad("bad_value", format!("cannot read the query string: {e}")))?;
    let mut object = serde_json::Map::new();
    // The access token may come in the query (see `guard`); it is not a field of any request.
    for (key, value) in pairs.into_iter().filter(|(key, _)| key != "token") {
        match object.get_mut(&key) {
            None => {
                object.insert(key, serde_json::Value::String(value));
            }
            Some(serde_json::Value::Array(values)) => values.push(serde_json::Value::String(value)),
            Some(first) => {
                let first = std::mem::take(first);
                object.insert(key, serde_json::Value::Array(vec![first, serde_json::Value::String(value)]));
            }
        }
    }
    read(serde_json::Value::Object(object))
}

/// The fields of a position: a FEN (or `startpos`) and moves from it.
pub fn setup(fen: Option<&str>, moves: Option<&Words>, chess960: Option<bool>) -> Result<Setup, ApiError> {
    let moves = moves.map(|w| w.0.as_slice()).unwrap_or_default();
    Setup::new(fen, moves, chess960.unwrap_or(false)).map_err(|e| match e {
        SetupError::Fen(_) => ApiError::bad("bad_fen", e.to_string()).field("fen"),
        SetupError::IllegalMove { index, .. } => {
            ApiError::bad("illegal_move", e.to_string()).field("moves").index(index)
        }
    })
}

/// A number checked to lie from `min` to the owner's `max` (`option`).
fn bounded(field: &str, value: i64, min: i64, max: i64, option: &'static str) -> Result<i64, ApiError> {
    if value < min {
        return Err(ApiError::value(field, format!("{field} must be at least {min}, got {value}")));
    }
    if value > max {
        let message = format!("{field} {value} is over this server's limit of {max} ({option})");
        return Err(ApiError::over_limit(field, option, message));
    }
    Ok(value)
}

/// The one limit a search may be given (depth, movetime or nodes), within the owner's limits;
/// none gives the default time.
pub fn search_limit(
    depth: Option<i64>,
    movetime: Option<i64>,
    nodes: Option<i64>,
    limits: &ServerLimits,
) -> Result<Limits, ApiError> {
    let given = [depth.is_some(), movetime.is_some(), nodes.is_some()].iter().filter(|&&g| g).count();
    if given > 1 {
        return Err(ApiError::bad("bad_value", "give one limit: depth, movetime or nodes, not several"));
    }
    let mut search = Limits::default();
    if let Some(depth) = depth {
        let max = limits.max_depth.into();
        search.depth = Some(bounded("depth", depth, 1, max, "--max-depth")? as i32);
    } else if let Some(ms) = movetime {
        let max = limits.max_movetime.as_millis() as i64;
        search.movetime = Some(Duration::from_millis(bounded("movetime", ms, 1, max, "--max-movetime")? as u64));
    } else if let Some(nodes) = nodes {
        let max = i64::try_from(limits.max_nodes).unwrap_or(i64::MAX);
        search.nodes = Some(bounded("nodes", nodes, 1, max, "--max-nodes")? as u64);
    } else {
        search.movetime = Some(limits.default_movetime.min(limits.max_movetime));
    }
    Ok(search)
}

fn multipv(value: Option<i64>, limits: &ServerLimits) -> Result<usize, ApiError> {
    let max = limits.max_multipv as i64;
    Ok(value.map(|n| bounded("multipv", n, 1, max, "--max-multipv")).transpose()?.unwrap_or(1) as usize)
}

fn searchmoves(setup: &Setup, words: Option<&Words>) -> Result<Vec<crate::engine::Move>, ApiError> {
    let words = words.map(|w| w.0.as_slice()).unwrap_or_default();
    words
        .iter()
        .enumerate()
        .map(|(index, text)| {
            setup.parse_move(text).ok_or_else(|| {
                let text = crate::quote::excerpt(text, 20);
                ApiError::bad(
                    "illegal_move",
                    format!("searchmoves: move {index} ({text}) is not legal in the position"),
                )
                .field("searchmoves")
                .index(index)
            })
        })
        .collect()
}

/// `POST /api/analyse` (and its `GET` form, the WebSocket's requests and the batch's fields).
#[derive(Deserialize, Default, Debug)]
#[serde(deny_unknown_fields)]
pub struct AnalyseFields {
    pub fen: Option<String>,
    pub moves: Option<Words>,
    #[serde(default, deserialize_with = "flag")]
    pub chess960: Option<bool>,
    #[serde(default, deserialize_with = "whole")]
    pub depth: Option<i64>,
    #[serde(default, deserialize_with = "whole")]
    pub movetime: Option<i64>,
    #[serde(default, deserialize_with = "whole")]
    pub nodes: Option<i64>,
    #[serde(default, deserialize_with = "whole")]
    pub multipv: Option<i64>,
    pub searchmoves: Option<Words>,
}

/// An analysis to run: the position, its limits and how many lines.
pub struct Analysis {
    pub setup: Setup,
    pub limits: Limits,
    pub multipv: usize,
}

impl AnalyseFields {
    /// Checks the request. `unlimited` is what a search with no limit does: the default time,
    /// or (a live analysis) run until stopped, within the owner's time limit.
    pub fn check(&self, limits: &ServerLimits, unlimited: bool) -> Result<Analysis, ApiError> {
        let setup = setup(self.fen.as_deref(), self.moves.as_ref(), self.chess960)?;
        let mut search = search_limit(self.depth, self.movetime, self.nodes, limits)?;
        if unlimited && self.depth.is_none() && self.movetime.is_none() && self.nodes.is_none() {
            search = Limits { infinite: true, ..Limits::default() };
        }
        search.searchmoves = searchmoves(&setup, self.searchmoves.as_ref())?;
        Ok(Analysis { setup, limits: search, multipv: multipv(self.multipv, limits)? })
    }
}

/// `POST /api/move`: the engine's move in a game, at a level, under a clock or a limit.
#[derive(Deserialize, Default, Debug)]
#[serde(deny_unknown_fields)]
pub struct MoveFields {
    pub fen: Option<String>,
    pub moves: Option<Words>,
    #[serde(default, deserialize_with = "flag")]
    pub chess960: Option<bool>,
    /// `UCI_Elo`.
    #[serde(default, deserialize_with = "whole")]
    pub elo: Option<i64>,
    /// `Skill Level`.
    #[serde(default, deserialize_with = "whole")]
    pub skill: Option<i64>,
    /// `Skill Seed`.
    #[serde(default, deserialize_with = "whole")]
    pub seed: Option<i64>,
    #[serde(default, deserialize_with = "whole")]
    pub wtime: Option<i64>,
    #[serde(default, deserialize_with = "whole")]
    pub btime: Option<i64>,
    #[serde(default, deserialize_with = "whole")]
    pub winc: Option<i64>,
    #[serde(default, deserialize_with = "whole")]
    pub binc: Option<i64>,
    #[serde(default, deserialize_with = "whole")]
    pub movestogo: Option<i64>,
    #[serde(default, deserialize_with = "whole")]
    pub movetime: Option<i64>,
    #[serde(default, deserialize_with = "whole")]
    pub depth: Option<i64>,
    #[serde(default, deserialize_with = "whole")]
    pub nodes: Option<i64>,
}

/// A move to find.
pub struct MoveRequest {
    pub setup: Setup,
    pub limits: Limits,
    pub level: Level,
    pub seed: u64,
}

impl MoveFields {
    pub fn check(&self, limits: &ServerLimits) -> Result<MoveRequest, ApiError> {
        let setup = setup(self.fen.as_deref(), self.moves.as_ref(), self.chess960)?;
        let level = match (self.elo, self.skill) {
            (Some(_), Some(_)) => return Err(ApiError::bad("bad_value", "give a level as elo or as skill, not both")),
            (Some(elo), None) => Level::Elo(in_range("elo", elo, MIN_ELO.into(), MAX_ELO.into())? as i32),
            (None, Some(skill)) => Level::Skill(in_range("skill", skill, 0, MAX_SKILL_LEVEL.into())? as i32),
            (None, None) => Level::Full,
        };
        let seed = self.seed.map(|s| in_range("seed", s, 0, crate::engine::options::MAX_SPIN)).transpose()?;
        let clock_fields = [self.wtime, self.btime, self.winc, self.binc, self.movestogo];
        let limits = if clock_fields.iter().any(Option::is_some) {
            if self.movetime.is_some() || self.depth.is_some() || self.nodes.is_some() {
                return Err(ApiError::bad("bad_value", "give clocks or one limit (movetime, depth, nodes), not both"));
            }
            let white = setup.side_to_move() == Color::White;
            let (time, increment, time_name) =
                if white { (self.wtime, self.winc, "wtime") } else { (self.btime, self.binc, "btime") };
            let time = time.ok_or_else(|| {
                ApiError::value(time_name, format!("{time_name} is needed: the side to move's clock"))
            })?;
            let ms = |field: &str, value: i64| in_range(field, value, 0, Limits::MAX_TIME.as_millis() as i64);
            let inc_name = if white { "winc" } else { "binc" };
            let clock = Clock {
                remaining: Duration::from_millis(ms(time_name, time)? as u64),
                increment: Duration::from_millis(increment.map(|i| ms(inc_name, i)).transpose()?.unwrap_or(0) as u64),
                moves_to_go: self.movestogo.map(|m| in_range("movestogo", m, 1, 10_000)).transpose()?.map(|m| m as u32),
            };
            Limits { clock: Some(clock), ..Limits::default() }
        } else {
            search_limit(self.depth, self.movetime, self.nodes, limits)?
        };
        Ok(MoveRequest { setup, limits, level, seed: seed.unwrap_or(0) as u64 })
    }
}

/// A value of a fixed range (not one the owner sets).
fn in_range(field: &str, value: i64, min: i64, max: i64) -> Result<i64, ApiError> {
    if (min..=max).contains(&value) {
        Ok(value)
    } else {
        Err(ApiError::value(field, format!("{field} must be from {min} to {max}, got {value}")))
    }
}

/// `POST /api/review`: a PGN and how hard to search each position.
#[derive(Deserialize, Default, Debug)]
#[serde(deny_unknown_fields)]
pub struct ReviewFields {
    pub pgn: Option<String>,
    #[serde(default, deserialize_with = "whole")]
    pub depth: Option<i64>,
    #[serde(default, deserialize_with = "whole")]
    pub movetime: Option<i64>,
    #[serde(default, deserialize_with = "whole")]
    pub nodes: Option<i64>,
    /// `white`, `black` or `both` (the default).
    pub side: Option<String>,
    #[serde(default, deserialize_with = "whole")]
    pub from_move: Option<i64>,
    /// `lichess` (the default) or `sentinel`: whose formulas judge the moves.
    pub marks: Option<String>,
}

/// `POST /api/batch`: positions analysed in order with the same limit.
#[derive(Deserialize, Default, Debug)]
#[serde(deny_unknown_fields)]
pub struct BatchFields {
    pub positions: Option<Vec<serde_json::Value>>,
    #[serde(default, deserialize_with = "flag")]
    pub chess960: Option<bool>,
    #[serde(default, deserialize_with = "whole")]
    pub depth: Option<i64>,
    #[serde(default, deserialize_with = "whole")]
    pub movetime: Option<i64>,
    #[serde(default, deserialize_with = "whole")]
    pub nodes: Option<i64>,
    #[serde(default, deserialize_with = "whole")]
    pub multipv: Option<i64>,
}

/// One position of a batch, given as an object (a FEN alone may be given as a string).
#[derive(Deserialize, Default, Debug)]
#[serde(deny_unknown_fields)]
struct BatchPosition {
    fen: Option<String>,
    moves: Option<Words>,
    searchmoves: Option<Words>,
}

impl BatchFields {
    pub fn check(&self, limits: &ServerLimits) -> Result<Vec<Analysis>, ApiError> {
        let positions = self.positions.as_deref().unwrap_or_default();
        if positions.is_empty() {
            return Err(ApiError::value("positions", "positions must list at least one position"));
        }
        if positions.len() > limits.max_batch {
            let message = format!(
                "{} positions are over this server's limit of {} (--max-batch)",
                positions.len(),
                limits.max_batch
            );
            return Err(ApiError::over_limit("positions", "--max-batch", message));
        }
        let search = search_limit(self.depth, self.movetime, self.nodes, limits)?;
        let multipv = multipv(self.multipv, limits)?;
        positions
            .iter()
            .enumerate()
            .map(|(index, value)| {
                let position = match value {
                    serde_json::Value::String(fen) => {
                        BatchPosition { fen: Some(fen.clone()), ..BatchPosition::default() }
                    }
                    other => from_value(other.clone()).map_err(|e| e.within("positions", index))?,
                };
                let setup = setup(position.fen.as_deref(), position.moves.as_ref(), self.chess960)
                    .map_err(|e| e.within("positions", index))?;
                let searchmoves =
                    searchmoves(&setup, position.searchmoves.as_ref()).map_err(|e| e.within("positions", index))?;
                Ok(Analysis { setup, limits: Limits { searchmoves, ..search.clone() }, multipv })
            })
            .collect()
    }
}

/// Reads `input` as every kind of request, as a body and as a query string, and checks what
/// reads: the fuzz target `serve` and the tests drive it with random and broken input, which
/// must come back as an answer or a refusal, never a panic.
#[cfg(any(test, feature = "fuzz"))]
pub fn read_everything(input: &[u8], limits: &ServerLimits) {
    let query = String::from_utf8_lossy(input);
    let _ = from_body::<AnalyseFields>(input).and_then(|f| f.check(limits, false).map(drop));
    let _ = from_body::<AnalyseFields>(input).and_then(|f| f.check(limits, true).map(drop));
    let _ = from_query::<AnalyseFields>(Some(&query)).and_then(|f| f.check(limits, false).map(drop));
    let _ = from_body::<MoveFields>(input).and_then(|f| f.check(limits).map(drop));
    let _ = from_query::<MoveFields>(Some(&query)).and_then(|f| f.check(limits).map(drop));
    let _ = from_body::<BatchFields>(input).and_then(|f| f.check(limits).map(drop));
    let _ = from_body::<ReviewFields>(input);
}

/// Limits small enough that checked requests stay cheap.
#[cfg(any(test, feature = "fuzz"))]
pub fn small_limits() -> ServerLimits {
    ServerLimits {
        max_depth: 20,
        max_movetime: Duration::from_secs(5),
        max_nodes: 1_000_000,
        max_multipv: 5,
        queue: 4,
        max_body: 1000,
        max_batch: 4,
        max_review_positions: 100,
        default_movetime: Duration::from_millis(1000),
        max_connections: 16,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn limits() -> ServerLimits {
        small_limits()
    }

    /// Every cut of good requests, and good requests with random bytes changed, are read
    /// without a panic (and the good ones are still accepted).
    #[test]
    fn random_and_truncated_requests_are_refused_not_crashed_on() {
        let good = [
            r#"{"fen": "startpos", "moves": ["e2e4", "e5"], "depth": 3, "multipv": 2, "searchmoves": "g1f3 d2d4"}"#,
            r#"{"fen": "r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1", "chess960": true, "moves": "e1g1", "nodes": 1000}"#,
            r#"{"moves": "e4 c5", "elo": 1200, "seed": 4, "wtime": 1000, "btime": 2000, "winc": 10, "movestogo": 3}"#,
            r#"{"positions": ["startpos", {"fen": "startpos", "moves": "d4", "searchmoves": ["d5"]}], "movetime": 5}"#,
            r#"{"pgn": "[Event \"x\"]\n1. e4 e5 *", "side": "white", "from_move": 2}"#,
            "fen=startpos&moves=e2e4&moves=e7e5&depth=3&chess960=false",
        ];
        let limits = limits();
        let mut state = 81u64;
        let mut next = || {
            state = state.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            (state >> 33) as usize
        };
        for text in good {
            let bytes = text.as_bytes();
            for cut in 0..=bytes.len() {
                read_everything(&bytes[..cut], &limits);
            }
            for _ in 0..300 {
                let mut changed = bytes.to_vec();
                for _ in 0..1 + next() % 5 {
                    let at = next() % changed.len();
                    changed[at] = match next() % 3 {
                        0 => (next() % 256) as u8,
                        1 => {
                            let tokens = br#"{}[]",:0-9e\"#;
                            tokens[next() % tokens.len()]
                        }
                        _ => b' ',
                    };
                }
                read_everything(&changed, &limits);
            }
        }
        for _ in 0..2000 {
            let noise: Vec<u8> = (0..next() % 64).map(|_| (next() % 256) as u8).collect();
            read_everything(&noise, &limits);
        }
        let analysis = from_body::<AnalyseFields>(good[0].as_bytes()).unwrap().check(&limits, false).ok().unwrap();
        assert_eq!((analysis.multipv, analysis.limits.searchmoves.len()), (2, 2));
    }

    #[test]
    fn a_query_string_reads_as_json_does() {
        let fields: AnalyseFields = from_query(Some("fen=startpos&moves=e2e4&moves=e7e5&depth=6&multipv=2")).unwrap();
        assert_eq!(fields.moves.unwrap().0, ["e2e4", "e7e5"]);
        assert_eq!((fields.depth, fields.multipv), (Some(6), Some(2)));
        let fields: AnalyseFields = from_body(br#"{"moves": "e2e4 e7e5", "depth": 6}"#).unwrap();
        assert_eq!(fields.moves.unwrap().0, ["e2e4", "e7e5"]);
    }

    #[test]
    fn each_bad_field_is_named() {
        let error = from_body::<AnalyseFields>(br#"{"dpeth": 6}"#).unwrap_err();
        assert_eq!(error.code, "unknown_field");
        assert!(error.error.contains("dpeth"), "{}", error.error);
        let error = from_body::<AnalyseFields>(br#"{"depth": 6"#).unwrap_err();
        assert_eq!(error.code, "bad_json");
        let error = from_body::<AnalyseFields>(br#"{"depth": "six"}"#).unwrap_err();
        assert_eq!((error.code, error.field.as_deref()), ("bad_value", Some("depth")));
        assert!(error.error.starts_with("depth: "), "{}", error.error);
        let error = from_body::<AnalyseFields>(br#"{"depth": 6} x"#).unwrap_err();
        assert_eq!(error.code, "bad_json");
        let error = from_query::<AnalyseFields>(Some("depth=6&depth=7")).unwrap_err();
        assert_eq!(error.code, "bad_value");
    }

    #[test]
    fn the_owners_limits_are_named() {
        let over = |json: &str| from_body::<AnalyseFields>(json.as_bytes()).unwrap().check(&limits(), false).err();
        for (json, option) in [
            (r#"{"depth": 21}"#, "--max-depth"),
            (r#"{"movetime": 5001}"#, "--max-movetime"),
            (r#"{"nodes": 1000001}"#, "--max-nodes"),
            (r#"{"multipv": 6}"#, "--max-multipv"),
        ] {
            let error = over(json).unwrap_or_else(|| panic!("{json} is accepted"));
            assert_eq!((error.code, error.limit), ("over_limit", Some(option)), "{json}");
            assert!(error.error.contains(option), "{}", error.error);
        }
        for json in [r#"{"depth": 20}"#, r#"{"movetime": 5000}"#, r#"{"nodes": 1000000, "multipv": 5}"#] {
            assert!(over(json).is_none(), "{json} is refused");
        }
        assert_eq!(over(r#"{"depth": 0}"#).unwrap().code, "bad_value");
        assert_eq!(over(r#"{"depth": 3, "nodes": 10}"#).unwrap().code, "bad_value");
    }

    #[test]
    fn positions_and_moves_are_checked() {
        let check = |json: &str| from_body::<AnalyseFields>(json.as_bytes()).unwrap().check(&limits(), false);
        let error = check(r#"{"fen": "8/8/8 w - -"}"#).err().unwrap();
        assert_eq!((error.code, error.field.as_deref()), ("bad_fen", Some("fen")));
        let error = check(r#"{"moves": ["e2e4", "e7e5", "e1e2", "e8e7", "e2e3", "a1a5"]}"#).err().unwrap();
        assert_eq!((error.code, error.index), ("illegal_move", Some(5)));
        let error = check(r#"{"searchmoves": "e2e4 e2e5"}"#).err().unwrap();
        assert_eq!((error.code, error.field.as_deref(), error.index), ("illegal_move", Some("searchmoves"), Some(1)));
        let analysis = check(r#"{"moves": "e4 e5 Nf3", "searchmoves": ["Nc6", "d7d6"]}"#).ok().unwrap();
        assert_eq!(analysis.limits.searchmoves.len(), 2);
        assert_eq!(analysis.limits.movetime, Some(Duration::from_millis(1000)));
    }

    #[test]
    fn a_move_request_takes_a_level_and_a_clock() {
        let check = |json: &str| from_body::<MoveFields>(json.as_bytes()).unwrap().check(&limits());
        let request =
            check(r#"{"moves": "e2e4", "elo": 1500, "wtime": 1000, "btime": 60000, "binc": 500}"#).ok().unwrap();
        assert_eq!(request.level, Level::Elo(1500));
        let clock = request.limits.clock.unwrap();
        assert_eq!((clock.remaining, clock.increment), (Duration::from_secs(60), Duration::from_millis(500)));
        assert_eq!(check(r#"{"elo": 100}"#).err().unwrap().field.as_deref(), Some("elo"));
        assert_eq!(check(r#"{"elo": 1500, "skill": 3}"#).err().unwrap().code, "bad_value");
        assert_eq!(check(r#"{"wtime": 1000, "depth": 3}"#).err().unwrap().code, "bad_value");
        assert_eq!(check(r#"{"btime": 1000}"#).err().unwrap().field.as_deref(), Some("wtime"));
    }

    #[test]
    fn a_batch_names_its_bad_position() {
        let check = |json: &str| from_body::<BatchFields>(json.as_bytes()).unwrap().check(&limits());
        let error = check(r#"{"positions": ["startpos", {"fen": "startpos", "moves": "e2e5"}]}"#).err().unwrap();
        assert_eq!((error.code, error.index), ("illegal_move", Some(1)));
        assert!(error.error.starts_with("positions[1]: "), "{}", error.error);
        let error =
            check(r#"{"positions": ["startpos", "startpos", "startpos", "startpos", "startpos"]}"#).err().unwrap();
        assert_eq!(error.limit, Some("--max-batch"));
        assert_eq!(check(r#"{"positions": [{"fen": "startpos", "depht": 3}]}"#).err().unwrap().code, "unknown_field");
        assert_eq!(check(r#"{"positions": ["startpos", {"moves": ["d4"]}], "depth": 2}"#).ok().unwrap().len(), 2);
    }
}
