//! The server's refusals: every bad request gets a 4xx (or a 503 when the queue is full) with
//! a JSON body that says what was wrong, in words and as a code a program can test, with the
//! field, the move's index or the owner's limit it concerns. Nothing a client sends reaches a
//! panic: a refusal is an answer, and the engine goes on as it was.

use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use serde::Serialize;

use crate::quote::{MESSAGE_LIMIT, excerpt};

#[derive(Clone, Debug, Serialize)]
pub struct ApiError {
    #[serde(skip)]
    pub status: StatusCode,
    /// What was wrong, for people.
    pub error: String,
    /// What was wrong, for programs: `bad_json`, `unknown_field`, `bad_value`, `bad_fen`,
    /// `illegal_move`, `over_limit`, `too_large`, `bad_pgn`, `unsupported_media_type`,
    /// `unauthorized`, `forbidden`, `not_found`, `method_not_allowed`, `queue_full`, `timeout`,
    /// `engine`.
    pub code: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub field: Option<String>,
    /// The index (from 0) of the move, or of the batch's position, the error is about.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub index: Option<usize>,
    /// The owner's limit a request went beyond, as its command-line option (`--max-depth`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub limit: Option<&'static str>,
    /// Seconds after which a refused request may be tried again.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub retry_after: Option<u64>,
}

impl ApiError {
    pub fn new(status: StatusCode, code: &'static str, message: impl AsRef<str>) -> ApiError {
        ApiError {
            status,
            error: excerpt(message.as_ref(), MESSAGE_LIMIT),
            code,
            field: None,
            index: None,
            limit: None,
            retry_after: None,
        }
    }

    /// A 400 Bad Request.
    pub fn bad(code: &'static str, message: impl AsRef<str>) -> ApiError {
        ApiError::new(StatusCode::BAD_REQUEST, code, message)
    }

    /// A value out of range or of the wrong kind.
    pub fn value(field: &str, message: impl AsRef<str>) -> ApiError {
        ApiError::bad("bad_value", message).field(field)
    }

    /// A value beyond the owner's limit `option`.
    pub fn over_limit(field: &str, option: &'static str, message: impl AsRef<str>) -> ApiError {
        ApiError { limit: Some(option), ..ApiError::bad("over_limit", message).field(field) }
    }

    pub fn field(self, field: &str) -> ApiError {
        ApiError { field: Some(field.to_string()), ..self }
    }

    pub fn index(self, index: usize) -> ApiError {
        ApiError { index: Some(index), ..self }
    }

    /// The same error, said of the `index`th element of a list (`positions[3]: ...`).
    pub fn within(self, list: &str, index: usize) -> ApiError {
        let error = format!("{list}[{index}]: {}", self.error);
        ApiError { error, index: Some(index), field: Some(list.to_string()), ..self }
    }

    pub fn queue_full(retry_after: u64) -> ApiError {
        let message = "the engine's queue is full: try again later";
        ApiError {
            retry_after: Some(retry_after),
            limit: Some("--queue"),
            ..ApiError::new(StatusCode::SERVICE_UNAVAILABLE, "queue_full", message)
        }
    }

    /// The engine failed at something a checked request should not make it fail at.
    pub fn engine(message: impl AsRef<str>) -> ApiError {
        ApiError::new(StatusCode::INTERNAL_SERVER_ERROR, "engine", message)
    }

    pub fn not_found(path: &str) -> ApiError {
        let message = format!("no endpoint at {}: see GET / for the list", excerpt(path, 80));
        ApiError::new(StatusCode::NOT_FOUND, "not_found", message)
    }
}

impl std::fmt::Display for ApiError {
    fn fmt(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        write!(f, "{} ({})", self.error, self.code)
    }
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        let body = serde_json::to_string(&self).unwrap_or_else(|_| format!("{{\"error\":\"{}\"}}", self.code));
        let mut response = (self.status, [(header::CONTENT_TYPE, "application/json")], body).into_response();
        if let Some(seconds) = self.retry_after {
            response.headers_mut().insert(header::RETRY_AFTER, HeaderValue::from(seconds));
        }
        if self.status == StatusCode::UNAUTHORIZED {
            response.headers_mut().insert(header::WWW_AUTHENTICATE, HeaderValue::from_static("Bearer"));
        }
        response
    }
}

/// A JSON (or query) reading error as a refusal: broken JSON, an unknown field, or a value of
/// the wrong kind, with serde's words for where.
pub fn from_json(error: serde_json::Error) -> ApiError {
    use serde_json::error::Category;
    let text = error.to_string();
    match error.classify() {
        Category::Syntax | Category::Eof | Category::Io => ApiError::bad("bad_json", format!("broken JSON: {text}")),
        Category::Data if text.starts_with("unknown field") => ApiError::bad("unknown_field", text),
        Category::Data => ApiError::bad("bad_value", text),
    }
}
