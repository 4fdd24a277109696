//! Players and their sessions. Every visitor's browser holds a session (the cookie
//! `sentinel_session`: `HttpOnly`, so no script reads it, `SameSite=Strict`, so no other site's
//! page sends it), kept in the database with an expiry, so it survives a restart. A session is
//! a guest's until it signs in. Every request that changes something carries the session's
//! CSRF token in `X-CSRF-Token` (`caller_for_change`), which only the server's own pages can
//! read (from `GET /api/account`), so a form or script of another site cannot act for a player
//! even where a browser would send the cookie.
//!
//! Passwords are kept only as Argon2id hashes with a random salt (the PHC string, which names
//! its parameters, so a later Sentinel can raise them), hashed on a blocking thread; no
//! password is logged or written anywhere else. Failed sign-ins are counted per name and per
//! client address (`Attempts`): past the limit a sign-in is refused with 429 and Retry-After,
//! before the password is even checked. Signing in or out gives the browser a new session id,
//! so an id learnt before cannot be used after.

use super::AppState;
use super::db::{self, now_ms, random_hex};
use super::error::ApiError;
use super::routes::json_body;
use argon2::Argon2;
use argon2::password_hash::phc::PasswordHash;
use argon2::password_hash::{PasswordHasher, PasswordVerifier};
use axum::body::Body;
use axum::extract::{ConnectInfo, State};
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use rusqlite::{OptionalExtension, params};
use serde::{Deserialize, Serialize};
use std::collections::{HashMap, VecDeque};
use std::net::IpAddr;
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// The session cookie's name.
pub const COOKIE: &str = "sentinel_session";
/// The header every state-changing request carries its session's CSRF token in.
pub const CSRF_HEADER: &str = "x-csrf-token";
/// How long a session lives after it was last seen by `GET /api/account`.
pub const SESSION_LIFE: Duration = Duration::from_secs(30 * 24 * 3600);
/// User names: 2 to 20 letters, digits, `_` and `-`, compared without case.
pub const NAME_LENGTH: std::ops::RangeInclusive<usize> = 2..=20;
/// Passwords: at least 8 characters; at most 256 bytes, which bounds the hash's work.
pub const PASSWORD_LENGTH: std::ops::RangeInclusive<usize> = 8..=256;
/// Failed sign-ins allowed per name, and per client address, within `ATTEMPT_WINDOW`.
pub const FAILURES_PER_NAME: usize = 5;
pub const FAILURES_PER_ADDRESS: usize = 20;
/// Accounts one client address may create within `ATTEMPT_WINDOW`.
pub const REGISTRATIONS_PER_ADDRESS: usize = 10;
/// Guest sessions one client address may be given within `ATTEMPT_WINDOW` (a browser keeps
/// its one; this bounds what a script that drops its cookies can add to the database).
pub const NEW_SESSIONS_PER_ADDRESS: usize = 50;
pub const ATTEMPT_WINDOW: Duration = Duration::from_secs(15 * 60);

/// A signed-in player.
#[derive(Clone, Debug)]
pub struct Player {
    pub id: i64,
    pub name: String,
}

/// Who made a request: their session and, once signed in, their player.
#[derive(Clone, Debug)]
pub struct Caller {
    /// The session's key in the database (`session_key` of the cookie): what seats and
    /// sessions are stored under.
    pub session: String,
    /// The cookie's own value, which only the client and this request hold.
    cookie: String,
    pub player: Option<Player>,
    csrf: String,
}

/// The key a session is stored under: the BLAKE2s hash of its cookie, so that a copy of the
/// database (a backup, a stolen file) holds no cookie anyone could sign in with. The cookie is
/// 32 random bytes, so a fast hash suffices where a password needs Argon2's slow one.
fn session_key(cookie: &str) -> String {
    use blake2::Digest;
    blake2::Blake2s256::digest(cookie.as_bytes()).iter().map(|b| format!("{b:02x}")).collect()
}

/// Counts of recent events per key (failed sign-ins per name and per address, registrations
/// per address), each forgotten `ATTEMPT_WINDOW` after it happened.
#[derive(Default)]
pub struct Attempts {
    events: Mutex<HashMap<String, VecDeque<Instant>>>,
}

impl Attempts {
    /// Seconds until `key` is under `limit` again, if it is at it now.
    pub fn wait(&self, key: &str, limit: usize) -> Option<u64> {
        let mut events = self.events.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        let now = Instant::now();
        events.retain(|_, times| {
            while times.front().is_some_and(|t| now.duration_since(*t) >= ATTEMPT_WINDOW) {
                times.pop_front();
            }
            !times.is_empty()
        });
        let times = events.get(key)?;
        if times.len() < limit {
            return None;
        }
        let oldest = times.get(times.len() - limit)?;
        Some(ATTEMPT_WINDOW.saturating_sub(now.duration_since(*oldest)).as_secs().max(1))
    }

    pub fn record(&self, key: &str) {
        let mut events = self.events.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        events.entry(key.to_string()).or_default().push_back(Instant::now());
    }

    pub fn clear(&self, key: &str) {
        self.events.lock().unwrap_or_else(std::sync::PoisonError::into_inner).remove(key);
    }
}

/// A database failure as an answer: the server's fault, said without the query.
pub fn db_error(error: db::DbError) -> ApiError {
    log::error!("{error}");
    ApiError::new(StatusCode::INTERNAL_SERVER_ERROR, "database", "the database failed: see the server's log")
}

/// The session id a request's cookies carry (64 hex digits), if any.
fn session_cookie(headers: &HeaderMap) -> Option<String> {
    headers
        .get_all(header::COOKIE)
        .iter()
        .filter_map(|value| value.to_str().ok())
        .flat_map(|value| value.split(';'))
        .filter_map(|pair| pair.trim().split_once('='))
        .find(|(name, _)| *name == COOKIE)
        .map(|(_, value)| value.trim().to_string())
        .filter(|id| id.len() == 64 && id.bytes().all(|b| b.is_ascii_hexdigit()))
}

/// The `Set-Cookie` value of a session.
fn cookie(session: &str) -> HeaderValue {
    let text = format!("{COOKIE}={session}; HttpOnly; SameSite=Strict; Path=/; Max-Age={}", SESSION_LIFE.as_secs());
    HeaderValue::from_str(&text).unwrap_or_else(|_| HeaderValue::from_static(""))
}

/// The caller of a request, if it carries a live session.
pub async fn caller(state: &AppState, headers: &HeaderMap) -> Result<Option<Caller>, ApiError> {
    let Some(cookie) = session_cookie(headers) else { return Ok(None) };
    let session = session_key(&cookie);
    state
        .db
        .run(move |c| {
            c.query_row(
                "SELECT s.csrf, p.id, p.name FROM sessions s LEFT JOIN players p ON p.id = s.player
                 WHERE s.id = ?1 AND s.expires > ?2",
                params![session, now_ms()],
                |row| {
                    let player = match (row.get::<_, Option<i64>>(1)?, row.get::<_, Option<String>>(2)?) {
                        (Some(id), Some(name)) => Some(Player { id, name }),
                        _ => None,
                    };
                    Ok(Caller { session: session.clone(), cookie: cookie.clone(), player, csrf: row.get(0)? })
                },
            )
            .optional()
        })
        .await
        .map_err(db_error)
}

/// The caller of a request that changes something: it must carry a live session and that
/// session's CSRF token, else it is refused with 403 before anything is done.
pub async fn caller_for_change(state: &AppState, headers: &HeaderMap) -> Result<Caller, ApiError> {
    let refused = || {
        ApiError::new(
            StatusCode::FORBIDDEN,
            "csrf",
            "this request needs the session cookie and its token in the X-CSRF-Token header (GET /api/account gives \
             both)",
        )
    };
    let caller = caller(state, headers).await?.ok_or_else(refused)?;
    let given = headers.get(CSRF_HEADER).and_then(|v| v.to_str().ok()).unwrap_or("");
    if !super::guard::same_secret(given.trim().as_bytes(), caller.csrf.as_bytes()) {
        return Err(refused());
    }
    Ok(caller)
}

/// Stores a new session (a guest's when `player` is None) under its key and returns its
/// cookie.
fn new_session(c: &rusqlite::Connection, player: Option<i64>, csrf: &str) -> Result<String, rusqlite::Error> {
    let cookie = random_hex(32);
    let now = now_ms();
    c.execute(
        "INSERT INTO sessions (id, player, csrf, created, expires) VALUES (?1, ?2, ?3, ?4, ?5)",
        params![session_key(&cookie), player, csrf, now, now + SESSION_LIFE.as_millis() as i64],
    )?;
    Ok(cookie)
}

/// Removes expired sessions, and the games of guests whose sessions are gone (nobody can
/// reach those again).
pub fn sweep(c: &rusqlite::Connection) -> Result<(), rusqlite::Error> {
    c.execute("DELETE FROM sessions WHERE expires <= ?1", params![now_ms()])?;
    c.execute(
        "DELETE FROM games WHERE white_player IS NULL AND black_player IS NULL
           AND (white_session IS NULL OR white_session NOT IN (SELECT id FROM sessions))
           AND (black_session IS NULL OR black_session NOT IN (SELECT id FROM sessions))",
        [],
    )?;
    Ok(())
}

#[derive(Serialize)]
struct UserJson {
    name: String,
}

#[derive(Serialize)]
struct AccountJson {
    user: Option<UserJson>,
    csrf: String,
}

fn account_answer(status: StatusCode, player: Option<&Player>, csrf: String, session: Option<&str>) -> Response {
    let body = AccountJson { user: player.map(|p| UserJson { name: p.name.clone() }), csrf };
    let mut response =
        (status, [(header::CONTENT_TYPE, "application/json")], super::answer::json(&body)).into_response();
    if let Some(session) = session {
        response.headers_mut().insert(header::SET_COOKIE, cookie(session));
    }
    response.headers_mut().insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    response
}

/// `GET /api/account`: the caller's player (or null for a guest) and the session's CSRF token;
/// a visitor without a live session is given a guest's. Each call extends the session's life.
pub async fn account(
    State(state): State<AppState>,
    ConnectInfo(client): ConnectInfo<super::connections::ClientAddr>,
    headers: HeaderMap,
) -> Result<Response, ApiError> {
    if let Some(caller) = caller(&state, &headers).await? {
        let session = caller.session.clone();
        state
            .db
            .run(move |c| {
                let expires = now_ms() + SESSION_LIFE.as_millis() as i64;
                c.execute("UPDATE sessions SET expires = ?1 WHERE id = ?2", params![expires, session])
            })
            .await
            .map_err(db_error)?;
        return Ok(account_answer(StatusCode::OK, caller.player.as_ref(), caller.csrf, Some(&caller.cookie)));
    }
    let key = client_key("session", client.0.ip());
    if let Some(seconds) = state.attempts.wait(&key, NEW_SESSIONS_PER_ADDRESS) {
        return Err(too_many(seconds, "new sessions from this address (keep the cookie)"));
    }
    state.attempts.record(&key);
    let csrf = random_hex(32);
    let token = csrf.clone();
    let session = state.db.run(move |c| new_session(c, None, &token)).await.map_err(db_error)?;
    Ok(account_answer(StatusCode::OK, None, csrf, Some(&session)))
}

#[derive(Deserialize, Default)]
#[serde(deny_unknown_fields)]
struct Credentials {
    name: Option<String>,
    password: Option<String>,
}

// No Debug: a password must not reach a log line by way of a `{:?}`.
impl Credentials {
    fn take(self) -> Result<(String, String), ApiError> {
        let name = self.name.map(|n| n.trim().to_string()).unwrap_or_default();
        let password = self.password.unwrap_or_default();
        if name.is_empty() || password.is_empty() {
            return Err(ApiError::bad("bad_value", "give a name and a password"));
        }
        Ok((name, password))
    }
}

/// Whether a name is one a player may take; the message says why not.
fn check_name(name: &str) -> Result<(), ApiError> {
    let length = name.chars().count();
    if !NAME_LENGTH.contains(&length) || !name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-') {
        let message =
            format!("a name is {} to {} letters, digits, '_' and '-'", NAME_LENGTH.start(), NAME_LENGTH.end());
        return Err(ApiError::value("name", message));
    }
    let lower = name.to_ascii_lowercase();
    if lower.starts_with("guest") || lower.starts_with("sentinel") {
        return Err(ApiError::value("name", "names beginning with 'guest' or 'sentinel' are the server's own"));
    }
    Ok(())
}

fn check_password(password: &str) -> Result<(), ApiError> {
    if password.chars().count() < *PASSWORD_LENGTH.start() || password.len() > *PASSWORD_LENGTH.end() {
        let message = format!(
            "a password is at least {} characters (and at most {} bytes)",
            PASSWORD_LENGTH.start(),
            PASSWORD_LENGTH.end()
        );
        return Err(ApiError::value("password", message));
    }
    Ok(())
}

pub(super) fn client_key(kind: &str, address: IpAddr) -> String {
    format!("{kind}:{address}")
}

pub(super) fn too_many(seconds: u64, what: &str) -> ApiError {
    let message = format!("too many {what}: try again in {seconds} s");
    ApiError { retry_after: Some(seconds), ..ApiError::new(StatusCode::TOO_MANY_REQUESTS, "too_many", message) }
}

/// Hashes a password with Argon2id and a random salt, on a blocking thread.
async fn hash_password(password: String) -> Result<String, ApiError> {
    tokio::task::spawn_blocking(move || Argon2::default().hash_password(password.as_bytes()).map(|h| h.to_string()))
        .await
        .ok()
        .and_then(Result::ok)
        .ok_or_else(|| ApiError::new(StatusCode::INTERNAL_SERVER_ERROR, "hash", "cannot hash the password"))
}

/// Whether `password` is the one `hash` was made from; without a hash (no such player) a
/// password is hashed all the same, so that a name that does not exist takes as long to refuse.
async fn verify_password(password: String, hash: Option<String>) -> bool {
    tokio::task::spawn_blocking(move || {
        let Some(hash) = hash else {
            let _ = Argon2::default().hash_password(password.as_bytes());
            return false;
        };
        PasswordHash::new(&hash)
            .is_ok_and(|parsed| Argon2::default().verify_password(password.as_bytes(), &parsed).is_ok())
    })
    .await
    .unwrap_or(false)
}

/// Signs a session in as `player`: a new session id (the old one is deleted) with the same CSRF
/// token, and the guest games of the old session become the player's.
fn sign_in(c: &mut rusqlite::Connection, old: &Caller, player: i64) -> Result<String, rusqlite::Error> {
    let transaction = c.transaction()?;
    for colour in ["white", "black"] {
        let sql =
            format!("UPDATE games SET {colour}_player = ?1 WHERE {colour}_player IS NULL AND {colour}_session = ?2");
        transaction.execute(&sql, params![player, old.session])?;
    }
    transaction.execute("DELETE FROM sessions WHERE id = ?1", params![old.session])?;
    let id = new_session(&transaction, Some(player), &old.csrf)?;
    transaction.commit()?;
    Ok(id)
}

/// `POST /api/account/register`: a new player, signed in at once.
pub async fn register(
    State(state): State<AppState>,
    ConnectInfo(client): ConnectInfo<super::connections::ClientAddr>,
    headers: HeaderMap,
    body: Body,
) -> Result<Response, ApiError> {
    let caller = caller_for_change(&state, &headers).await?;
    let credentials: Credentials = json_body(&state, &headers, body).await?;
    let (name, password) = credentials.take()?;
    check_name(&name)?;
    check_password(&password)?;
    let key = client_key("register", client.0.ip());
    if let Some(seconds) = state.attempts.wait(&key, REGISTRATIONS_PER_ADDRESS) {
        return Err(too_many(seconds, "new accounts from this address"));
    }
    let hash = hash_password(password).await?;
    state.attempts.record(&key);
    let (stored_name, old) = (name.clone(), caller.clone());
    let created = state
        .db
        .run(move |c| {
            let taken: bool =
                c.query_row("SELECT count(*) > 0 FROM players WHERE name = ?1", params![stored_name], |r| r.get(0))?;
            if taken {
                return Ok(None);
            }
            c.execute(
                "INSERT INTO players (name, password, created) VALUES (?1, ?2, ?3)",
                params![stored_name, hash, now_ms()],
            )?;
            let player = c.last_insert_rowid();
            Ok(Some((player, sign_in(c, &old, player)?)))
        })
        .await
        .map_err(db_error)?;
    let Some((id, session)) = created else {
        return Err(ApiError::new(StatusCode::CONFLICT, "name_taken", format!("the name '{name}' is taken")));
    };
    log::info!("account: {name} registered");
    let player = Player { id, name };
    Ok(account_answer(StatusCode::CREATED, Some(&player), caller.csrf, Some(&session)))
}

/// `POST /api/account/login`.
pub async fn login(
    State(state): State<AppState>,
    ConnectInfo(client): ConnectInfo<super::connections::ClientAddr>,
    headers: HeaderMap,
    body: Body,
) -> Result<Response, ApiError> {
    let caller = caller_for_change(&state, &headers).await?;
    let credentials: Credentials = json_body(&state, &headers, body).await?;
    let (name, password) = credentials.take()?;
    let name_key = format!("name:{}", name.to_ascii_lowercase());
    let address_key = client_key("address", client.0.ip());
    let wait = [(&name_key, FAILURES_PER_NAME), (&address_key, FAILURES_PER_ADDRESS)]
        .into_iter()
        .filter_map(|(key, limit)| state.attempts.wait(key, limit))
        .max();
    if let Some(seconds) = wait {
        return Err(too_many(seconds, "failed sign-ins"));
    }
    let lookup = name.clone();
    let found: Option<(i64, String, String)> = state
        .db
        .run(move |c| {
            c.query_row("SELECT id, name, password FROM players WHERE name = ?1", params![lookup], |r| {
                Ok((r.get(0)?, r.get(1)?, r.get(2)?))
            })
            .optional()
        })
        .await
        .map_err(db_error)?;
    let hash = found.as_ref().map(|(_, _, hash)| hash.clone());
    let verified = verify_password(password, hash).await;
    let Some((id, name, _)) = found.filter(|_| verified) else {
        state.attempts.record(&name_key);
        state.attempts.record(&address_key);
        log::info!("account: a failed sign-in as '{}'", crate::quote::excerpt(&name, 40));
        return Err(ApiError::new(StatusCode::UNAUTHORIZED, "bad_credentials", "wrong name or password"));
    };
    state.attempts.clear(&name_key);
    let old = caller.clone();
    let session = state.db.run(move |c| sign_in(c, &old, id)).await.map_err(db_error)?;
    Ok(account_answer(StatusCode::OK, Some(&Player { id, name }), caller.csrf, Some(&session)))
}

/// `POST /api/account/logout`: the session ends; the browser gets a new guest's.
pub async fn logout(State(state): State<AppState>, headers: HeaderMap) -> Result<Response, ApiError> {
    let caller = caller_for_change(&state, &headers).await?;
    let csrf = random_hex(32);
    let token = csrf.clone();
    let session = state
        .db
        .run(move |c| {
            c.execute("DELETE FROM sessions WHERE id = ?1", params![caller.session])?;
            new_session(c, None, &token)
        })
        .await
        .map_err(db_error)?;
    Ok(account_answer(StatusCode::OK, None, csrf, Some(&session)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_session_cookie_is_found_among_others_and_checked() {
        let id = "ab".repeat(32);
        let mut headers = HeaderMap::new();
        headers.insert(header::COOKIE, HeaderValue::from_str(&format!("a=1; {COOKIE}={id}; b=2")).unwrap());
        assert_eq!(session_cookie(&headers), Some(id));
        headers.insert(header::COOKIE, HeaderValue::from_static("sentinel_session=../../etc"));
        assert_eq!(session_cookie(&headers), None);
        let text = cookie("x");
        let text = text.to_str().unwrap();
        assert!(text.contains("HttpOnly") && text.contains("SameSite=Strict") && text.contains("Path=/"), "{text}");
    }

    #[test]
    fn names_and_passwords() {
        for good in ["ann", "Bob_2", "a-b"] {
            assert!(check_name(good).is_ok(), "{good}");
        }
        for bad in ["a", "ann smith", "<script>", "guest1", "Sentinel", &"x".repeat(21)] {
            assert!(check_name(bad).is_err(), "{bad}");
        }
        assert!(check_password("short").is_err() && check_password("long enough").is_ok());
        assert!(check_password(&"x".repeat(257)).is_err());
    }

    #[test]
    fn attempts_past_the_limit_wait() {
        let attempts = Attempts::default();
        for _ in 0..3 {
            assert_eq!(attempts.wait("k", 3), None);
            attempts.record("k");
        }
        assert!(attempts.wait("k", 3).is_some_and(|s| s >= 1 && s <= ATTEMPT_WINDOW.as_secs()));
        assert_eq!(attempts.wait("other", 3), None);
        attempts.clear("k");
        assert_eq!(attempts.wait("k", 3), None);
    }
}
