//! What every request passes before it reaches an endpoint, because a server is a door to the
//! machine it runs on:
//!
//! - On a loopback address, the `Host` must be a loopback name: a page of another site that
//!   points its own host name at 127.0.0.1 (DNS rebinding) is refused, so no web page can
//!   reach a server the owner thinks only their own programs reach.
//! - A browser names the page a request comes from in `Origin`. Only pages of the server's
//!   own origin, and of the origins the owner allows (`--allow-origin`), may use it; a page
//!   of any other site is refused before the engine does anything. Only those allowed get
//!   CORS headers, so without `--allow-origin` no other site's script can read an answer. A
//!   request a page makes without an `Origin` (an image's, a link's) is known by the
//!   `Sec-Fetch-Site` browsers add: from another site, it is refused too, so no page can make
//!   the engine search by pointing an image at it.
//! - With a token (`--token`, `--token-file`), every request carries it, as `Authorization:
//!   Bearer TOKEN` or (for a browser's WebSocket, which cannot set headers) `?token=TOKEN`.

use super::AppState;
use super::error::ApiError;
use axum::body::Body;
use axum::extract::{Request, State};
use axum::http::{HeaderMap, HeaderValue, Method, StatusCode, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use std::net::IpAddr;

/// The host part of a `Host` header or an origin's authority, without its port.
fn host_name(authority: &str) -> &str {
    let authority = authority.trim();
    if let Some(rest) = authority.strip_prefix('[') {
        return rest.split(']').next().unwrap_or(rest);
    }
    match authority.rsplit_once(':') {
        Some((host, port)) if port.chars().all(|c| c.is_ascii_digit()) => host,
        _ => authority,
    }
}

/// Whether a host name is this machine's loopback: `localhost` or a loopback address.
fn is_loopback_name(host: &str) -> bool {
    let host = host.trim_end_matches('.').to_ascii_lowercase();
    host == "localhost" || host.ends_with(".localhost") || host.parse::<IpAddr>().is_ok_and(|ip| ip.is_loopback())
}

/// The origin's authority (`host:port`), without its scheme.
fn origin_authority(origin: &str) -> &str {
    origin.split_once("://").map_or(origin, |(_, rest)| rest).trim_end_matches('/')
}

/// Compares two texts in time that does not depend on where they differ, so that the token
/// cannot be found a character at a time from how fast a guess is refused.
pub fn same_secret(a: &[u8], b: &[u8]) -> bool {
    if a.len() != b.len() {
        return false;
    }
    a.iter().zip(b).fold(0u8, |differ, (x, y)| differ | (x ^ y)) == 0
}

/// The token a request carries, in its `Authorization` header or its query string.
fn token_of(headers: &HeaderMap, query: Option<&str>) -> Option<String> {
    if let Some(value) = headers.get(header::AUTHORIZATION).and_then(|v| v.to_str().ok()) {
        let value = value.trim();
        if let Some(token) = value.strip_prefix("Bearer ").or_else(|| value.strip_prefix("bearer ")) {
            return Some(token.trim().to_string());
        }
    }
    let pairs: Vec<(String, String)> = serde_urlencoded::from_str(query.unwrap_or("")).unwrap_or_default();
    pairs.into_iter().find(|(key, _)| key == "token").map(|(_, value)| value)
}

/// The check every request passes (see the module's comment), and the CORS headers of an
/// allowed origin on its answer.
pub async fn guard(State(state): State<AppState>, request: Request, next: Next) -> Response {
    let config = &state.config;
    let headers = request.headers();
    let host = headers.get(header::HOST).and_then(|v| v.to_str().ok()).unwrap_or("");
    if config.listen.ip().is_loopback() && !host.is_empty() && !is_loopback_name(host_name(host)) {
        let message = format!(
            "this server listens on loopback and answers only requests for a loopback host, not '{}'",
            crate::quote::excerpt(host, 80)
        );
        return ApiError::new(StatusCode::FORBIDDEN, "forbidden", message).into_response();
    }
    let origin = headers.get(header::ORIGIN).and_then(|v| v.to_str().ok()).map(str::to_string);
    let allowed_origin = match &origin {
        None => None,
        Some(origin) => {
            let same = !host.is_empty() && origin_authority(origin).eq_ignore_ascii_case(host);
            let listed = config.allowed_origins.iter().any(|o| o == "*" || o.trim_end_matches('/') == origin);
            if !same && !listed {
                let message = format!(
                    "pages of {} may not use this server (its owner allows origins with --allow-origin)",
                    crate::quote::excerpt(origin, 80)
                );
                return ApiError::new(StatusCode::FORBIDDEN, "forbidden", message).into_response();
            }
            listed.then(|| origin.clone())
        }
    };
    let any_origin = config.allowed_origins.iter().any(|o| o == "*");
    let fetch_site = headers.get("sec-fetch-site").and_then(|v| v.to_str().ok()).unwrap_or("");
    if matches!(fetch_site, "cross-site" | "same-site") && allowed_origin.is_none() && !any_origin {
        let message = "requests from pages of other sites may not use this server (its owner allows origins with \
                       --allow-origin)";
        return ApiError::new(StatusCode::FORBIDDEN, "forbidden", message).into_response();
    }
    // A preflight asks whether the real request may be sent; it carries no token.
    if request.method() == Method::OPTIONS && headers.contains_key(header::ACCESS_CONTROL_REQUEST_METHOD) {
        let mut response = StatusCode::NO_CONTENT.into_response();
        if let Some(origin) = &allowed_origin {
            cors_headers(response.headers_mut(), origin, true);
        }
        return response;
    }
    if let Some(expected) = &config.token {
        let given = token_of(headers, request.uri().query());
        if !given.is_some_and(|given| same_secret(given.as_bytes(), expected.as_bytes())) {
            let message = "this server needs its access token: 'Authorization: Bearer TOKEN' (or ?token=TOKEN)";
            let mut response = ApiError::new(StatusCode::UNAUTHORIZED, "unauthorized", message).into_response();
            if let Some(origin) = &allowed_origin {
                cors_headers(response.headers_mut(), origin, false);
            }
            return response;
        }
    }
    let mut response: Response<Body> = next.run(request).await;
    if let Some(origin) = &allowed_origin {
        cors_headers(response.headers_mut(), origin, false);
    }
    response
}

fn cors_headers(headers: &mut HeaderMap, origin: &str, preflight: bool) {
    if let Ok(value) = HeaderValue::from_str(origin) {
        headers.insert(header::ACCESS_CONTROL_ALLOW_ORIGIN, value);
    }
    headers.insert(header::VARY, HeaderValue::from_static("Origin"));
    headers.insert(header::ACCESS_CONTROL_EXPOSE_HEADERS, HeaderValue::from_static("Retry-After"));
    if preflight {
        headers.insert(header::ACCESS_CONTROL_ALLOW_METHODS, HeaderValue::from_static("GET, POST, OPTIONS"));
        headers.insert(header::ACCESS_CONTROL_ALLOW_HEADERS, HeaderValue::from_static("Authorization, Content-Type"));
        headers.insert(header::ACCESS_CONTROL_MAX_AGE, HeaderValue::from_static("600"));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hosts_and_origins() {
        assert_eq!(host_name("localhost:9000"), "localhost");
        assert_eq!(host_name("[::1]:9000"), "::1");
        assert_eq!(host_name("127.0.0.1"), "127.0.0.1");
        for host in ["localhost", "127.0.0.1", "127.1.2.3", "::1", "LOCALHOST.", "a.localhost"] {
            assert!(is_loopback_name(host), "{host}");
        }
        for host in ["evil.example", "localhost.evil.example", "10.0.0.1", "0.0.0.0", ""] {
            assert!(!is_loopback_name(host), "{host}");
        }
        assert_eq!(origin_authority("http://localhost:9000"), "localhost:9000");
    }

    #[test]
    fn tokens() {
        assert!(same_secret(b"abc", b"abc"));
        assert!(!same_secret(b"abc", b"abd") && !same_secret(b"abc", b"ab"));
        let mut headers = HeaderMap::new();
        assert_eq!(token_of(&headers, Some("fen=x&token=s%20t")), Some("s t".to_string()));
        headers.insert(header::AUTHORIZATION, HeaderValue::from_static("Bearer secret"));
        assert_eq!(token_of(&headers, None), Some("secret".to_string()));
    }
}
