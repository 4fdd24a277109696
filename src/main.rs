//! Sentinel: a chess engine. With no subcommand it speaks UCI or XBoard on stdin/stdout,
//! whichever the GUI opens with; the subcommands are tools for people and scripts.

mod bench;
mod board;
mod cli;
mod engine;
mod eval;
#[cfg(feature = "fuzz")]
mod fuzz;
mod movegen;
mod notation;
mod openings;
mod perft;
mod play;
mod protocol;
mod quote;
mod review;
mod rules;
mod search;
#[cfg(feature = "serve")]
mod serve;
#[cfg(feature = "tune")]
mod tune;

/// Cargo.toml's version and, in a build from a git checkout, the commit (see build.rs): what
/// `--version`, UCI `id name` and XBoard `myname` show.
pub const VERSION: &str = env!("SENTINEL_VERSION");

fn main() -> std::process::ExitCode {
    // Milliseconds in the log's times: `RUST_LOG=debug` then shows how long a move took
    // between the command read and the answer written.
    env_logger::Builder::from_env(env_logger::Env::default().default_filter_or("warn"))
        .format_timestamp_millis()
        .init();
    cli::run()
}
