//! Sentinel: a chess engine. With no subcommand it speaks UCI or XBoard on stdin/stdout,
//! whichever the GUI opens with; the subcommands are tools for people and scripts.

// The board and search APIs are wider than what this commit calls yet.
#![allow(dead_code, unused_imports)]

mod bench;
mod board;
mod eval;
mod movegen;
mod perft;
mod search;
#[cfg(feature = "tune")]
mod tune;

use board::Board;
use clap::{Parser, Subcommand};
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Instant;

#[derive(Parser)]
#[command(name = "sentinel", version, about = "A chess engine speaking UCI and XBoard")]
struct Cli {
    #[command(subcommand)]
    command: Option<Command>,
}

#[derive(Subcommand)]
enum Command {
    /// Count the leaf nodes of the move tree: `perft startpos 5`, `perft "<fen>" 4`, or check a
    /// suite with `perft --epd FILE`.
    Perft {
        /// `startpos` or a FEN (quoted, or as separate words), followed by the depth.
        #[arg(num_args = 0.., value_name = "POSITION DEPTH")]
        args: Vec<String>,
        /// Check every `FEN ;D1 n ;D2 n ...` line of FILE instead.
        #[arg(long, value_name = "FILE", conflicts_with = "args")]
        epd: Option<String>,
        /// With --epd, skip counts deeper than this.
        #[arg(long, value_name = "D", requires = "epd")]
        max_depth: Option<u32>,
    },
    /// Search a fixed set of positions to a fixed depth; the last line is
    /// `<nodes> nodes <nps> nps`.
    Bench {
        #[arg(default_value_t = bench::DEFAULT_DEPTH, value_parser = clap::value_parser!(i32).range(1..=64))]
        depth: i32,
    },
    /// Play self-play games and write quiet positions labelled with the result, `FEN | 1.0`
    /// (White won), `| 0.5` or `| 0.0`, for `tune`.
    #[cfg(feature = "tune")]
    Datagen {
        #[arg(long, default_value_t = 1000)]
        games: u64,
        /// Nodes searched for each move.
        #[arg(long, default_value_t = 5000)]
        nodes: u64,
        /// Games played at once, one search each.
        #[arg(long, default_value_t = 1)]
        threads: usize,
        #[arg(long, value_name = "FILE")]
        out: PathBuf,
        #[arg(long, default_value_t = 1)]
        seed: u64,
        /// Start positions, one FEN per line.
        #[arg(long, value_name = "FILE", default_value = "../shared/data/openings.fen")]
        openings: PathBuf,
        /// Quiet positions kept per game, at most.
        #[arg(long, default_value_t = 10)]
        per_game: usize,
        /// Start no new game after this many minutes.
        #[arg(long, value_name = "MINUTES")]
        max_minutes: Option<f64>,
    },
    /// Fit the evaluation weights to the results of `datagen` positions and write them as
    /// Rust source (the Texel method).
    #[cfg(feature = "tune")]
    Tune {
        #[arg(long, value_name = "FILE")]
        data: PathBuf,
        /// Full passes of gradient descent over the data (0: only measure the error).
        #[arg(long, default_value_t = 1000)]
        epochs: usize,
        #[arg(long, value_name = "FILE", default_value = "src/eval/params.rs")]
        out: PathBuf,
        /// Initial step size, in centipawns for a gradient of the size steps are normalised by
        /// (it decays to a tenth).
        #[arg(long, default_value_t = 0.2)]
        rate: f64,
        #[arg(long, default_value_t = 1)]
        threads: usize,
        /// Fraction of the positions (the file's last games) kept out of training, to
        /// measure the fit on games it has not seen and keep the epoch that fits them best.
        #[arg(long, default_value_t = 0.1)]
        holdout: f64,
        /// Penalty per squared centipawn that a weight moves from its starting value.
        #[arg(long, default_value_t = 0.0)]
        l2: f64,
        /// What Adam normalises each weight's step by (see tune::tuner::Scaling).
        #[arg(long, value_enum, default_value_t = tune::tuner::Scaling::Global)]
        scaling: tune::tuner::Scaling,
    },
}

/// Exit code for bad arguments, as clap uses for its own usage errors.
const USAGE_ERROR: u8 = 2;

fn main() -> ExitCode {
    env_logger::Builder::from_env(env_logger::Env::default().default_filter_or("warn")).init();
    let cli = Cli::parse();
    let result = match cli.command {
        Some(Command::Perft { args, epd: None, .. }) => run_perft(&args),
        Some(Command::Perft { epd: Some(file), max_depth, .. }) => run_perft_suite(&file, max_depth),
        Some(Command::Bench { depth }) => {
            bench::run(depth);
            Ok(ExitCode::SUCCESS)
        }
        #[cfg(feature = "tune")]
        Some(Command::Datagen { games, nodes, threads, out, seed, openings, per_game, max_minutes }) => {
            let max_time = max_minutes.map(|m| std::time::Duration::from_secs_f64(m.max(0.0) * 60.0));
            let options = tune::datagen::Options { games, nodes, threads, out, seed, openings, per_game, max_time };
            tune::datagen::run(&options).map(|_| ExitCode::SUCCESS)
        }
        #[cfg(feature = "tune")]
        Some(Command::Tune { data, epochs, out, rate, threads, holdout, l2, scaling }) => {
            let options = tune::tuner::Options { data, epochs, out, rate, threads, holdout, l2, scaling };
            tune::tuner::run(&options).map(|_| ExitCode::SUCCESS)
        }
        None => Ok(ExitCode::SUCCESS),
    };
    result.unwrap_or_else(|message| {
        eprintln!("sentinel: {message}");
        ExitCode::from(USAGE_ERROR)
    })
}

/// Reads a position given as `startpos` or FEN words.
fn parse_position(words: &[String]) -> Result<Board, String> {
    let text = words.join(" ");
    if text.trim() == "startpos" {
        return Ok(Board::start_position());
    }
    Board::from_fen(&text).map_err(|e| e.to_string())
}

fn run_perft(args: &[String]) -> Result<ExitCode, String> {
    let [position @ .., depth] = args else {
        return Err("usage: sentinel perft <startpos|FEN> <depth>".to_string());
    };
    if position.is_empty() {
        return Err("usage: sentinel perft <startpos|FEN> <depth>".to_string());
    }
    let depth: u32 = depth
        .parse()
        .ok()
        .filter(|d| (1..=20).contains(d))
        .ok_or_else(|| format!("depth must be a whole number from 1 to 20, got '{depth}'"))?;
    let mut board = parse_position(position)?;
    let start = Instant::now();
    let mut total = 0;
    for (mv, nodes) in perft::divide(&mut board, depth) {
        println!("{mv}: {nodes}");
        total += nodes;
    }
    println!("\nNodes searched: {total}");
    report_speed(total, start);
    Ok(ExitCode::SUCCESS)
}

fn run_perft_suite(file: &str, max_depth: Option<u32>) -> Result<ExitCode, String> {
    let text = std::fs::read_to_string(file).map_err(|e| format!("cannot read {file}: {e}"))?;
    let mut entries = Vec::new();
    for (number, line) in text.lines().enumerate() {
        let entry = perft::parse_suite_line(line).map_err(|e| format!("{file}:{}: {e}", number + 1))?;
        if let Some(entry) = entry {
            let board = Board::from_fen(&entry.fen).map_err(|e| format!("{file}:{}: {e}", number + 1))?;
            entries.push((board, entry));
        }
    }
    let start = Instant::now();
    let (mut checked, mut failed, mut nodes) = (0, 0, 0);
    for (mut board, entry) in entries {
        for &(depth, expected) in entry.counts.iter().filter(|(d, _)| max_depth.is_none_or(|max| *d <= max)) {
            let actual = perft::perft(&mut board, depth);
            nodes += actual;
            checked += 1;
            if actual == expected {
                println!("pass  D{depth} {expected:>12}  {}", entry.fen);
            } else {
                failed += 1;
                println!("FAIL  D{depth} expected {expected} got {actual}  {}", entry.fen);
            }
        }
    }
    println!("{checked} counts checked, {} passed, {failed} failed", checked - failed);
    report_speed(nodes, start);
    Ok(if failed == 0 { ExitCode::SUCCESS } else { ExitCode::FAILURE })
}

fn report_speed(nodes: u64, start: Instant) {
    let seconds = start.elapsed().as_secs_f64();
    eprintln!("{nodes} nodes in {seconds:.3} s, {:.0} nodes/s", nodes as f64 / seconds.max(1e-9));
}
