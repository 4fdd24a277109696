//! The page `sentinel serve` shows a browser at `/` (and at `/join/CODE` and `/watch/ID`, the
//! links of a game with a friend): a board to play, analyse and review on. Its files are
//! built into the binary, so that the server stays one file and the page fetches nothing from
//! anywhere else: `page/` holds the page's own HTML, script and style, and `page/vendor/` the
//! board component, lichess's chessground (GPL-3.0-or-later; `tools/vendor-page.sh` fetches
//! it, docs/licences.md says which version and why).
//!
//! The page's files are public code, so they are served without the access token (the API
//! the page calls still needs it: the page passes on a `?token=` it was opened with). Every
//! answer carries a Content-Security-Policy that lets the page load only this server's files
//! and connect only to it, so that a script injected through some text could do nothing.

use axum::Router;
use axum::extract::Path;
use axum::http::{HeaderName, HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::get;

const INDEX: &str = include_str!("page/index.html");
const APP: &str = include_str!("page/app.js");
const STYLE: &str = include_str!("page/style.css");
const CHESSGROUND: &str = include_str!("page/vendor/chessground.min.js");
const BASE_CSS: &str = include_str!("page/vendor/chessground.base.css");
const BROWN_CSS: &str = include_str!("page/vendor/chessground.brown.css");
const CBURNETT_CSS: &str = include_str!("page/vendor/chessground.cburnett.css");
const LICENCE: &str = include_str!("page/vendor/LICENSE");

/// The page's files by name under `/assets/`, with their types.
const ASSETS: [(&str, &str, &str); 7] = [
    ("app.js", "text/javascript; charset=utf-8", APP),
    ("style.css", "text/css; charset=utf-8", STYLE),
    ("chessground.min.js", "text/javascript; charset=utf-8", CHESSGROUND),
    ("chessground.base.css", "text/css; charset=utf-8", BASE_CSS),
    ("chessground.brown.css", "text/css; charset=utf-8", BROWN_CSS),
    ("chessground.cburnett.css", "text/css; charset=utf-8", CBURNETT_CSS),
    ("chessground.LICENSE.txt", "text/plain; charset=utf-8", LICENCE),
];

/// Only this server's files; pieces and squares are drawn from `data:` images in the CSS;
/// WebSockets to this server (`'self'` covers `ws:` of the same host). Styles may be inline
/// because chessground sets each piece's place with a `style` attribute; scripts may not.
const POLICY: &str = "default-src 'none'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; \
                      connect-src 'self'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'";

/// The page's routes, for `routes::router` to merge outside the access token's guard.
pub fn router<S: Clone + Send + Sync + 'static>() -> Router<S> {
    Router::new()
        .route("/join/{code}", get(page))
        .route("/watch/{id}", get(page))
        .route("/assets/{name}", get(asset))
        .route("/favicon.ico", get(|| async { StatusCode::NO_CONTENT }))
}

fn with_headers(kind: &'static str, body: &'static str) -> Response {
    let mut response = (StatusCode::OK, [(header::CONTENT_TYPE, kind)], body).into_response();
    let headers = response.headers_mut();
    headers.insert(header::CONTENT_SECURITY_POLICY, HeaderValue::from_static(POLICY));
    headers.insert(header::X_CONTENT_TYPE_OPTIONS, HeaderValue::from_static("nosniff"));
    headers.insert(header::X_FRAME_OPTIONS, HeaderValue::from_static("DENY"));
    headers.insert(header::REFERRER_POLICY, HeaderValue::from_static("same-origin"));
    // The files change with the binary: a browser asks again after a restart, cheaply.
    headers.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-cache"));
    headers.insert(HeaderName::from_static("cross-origin-opener-policy"), HeaderValue::from_static("same-origin"));
    response
}

/// The page itself.
pub async fn page() -> Response {
    with_headers("text/html; charset=utf-8", INDEX)
}

async fn asset(Path(name): Path<String>) -> Response {
    match ASSETS.iter().find(|(file, _, _)| *file == name) {
        Some((_, kind, body)) => with_headers(kind, body),
        None => super::error::ApiError::not_found(&format!("/assets/{name}")).into_response(),
    }
}
