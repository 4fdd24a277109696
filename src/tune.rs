//! Fitting the evaluation to game results (built with `--features tune`).
//!
//! `datagen` plays fast self-play games and writes quiet positions labelled with the game's
//! result; `trace` records which weights the evaluation uses in a position and how often;
//! `tuner` fits the weights to the results (the Texel method) and `params_file` writes them
//! back as `src/eval/params.rs`.

pub mod datagen;
pub mod packed;
pub mod params_file;
pub mod trace;
pub mod tuner;

use std::path::PathBuf;
use std::time::Duration;

/// The tuning subcommands, part of the main command line when the feature is on.
#[derive(clap::Subcommand)]
pub enum Command {
    /// Play self-play games and append their quiet positions, with the search's score and the
    /// game's result, to a packed training file (for `tune` and `train`).
    Datagen {
        #[arg(long, default_value_t = 1000)]
        games: u64,
        /// Nodes for each move: no new iteration starts beyond this many.
        #[arg(long, default_value_t = 5000)]
        nodes: u64,
        /// Nodes for each move, at most (default: 20 times --nodes).
        #[arg(long)]
        hard_nodes: Option<u64>,
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
        /// What Adam normalises each weight's step by (see tuner::Scaling).
        #[arg(long, value_enum, default_value_t = tuner::Scaling::Global)]
        scaling: tuner::Scaling,
    },
}

pub fn run(command: Command) -> Result<(), String> {
    match command {
        Command::Datagen { games, nodes, hard_nodes, threads, out, seed, openings, per_game, max_minutes } => {
            let max_time = max_minutes.map(|m| Duration::from_secs_f64(m.max(0.0) * 60.0));
            let hard_nodes = hard_nodes.unwrap_or(nodes.saturating_mul(20)).max(nodes);
            datagen::run(&datagen::Options {
                games,
                nodes,
                hard_nodes,
                threads,
                out,
                seed,
                openings,
                per_game,
                max_time,
            })
            .map(|_| ())
        }
        Command::Tune { data, epochs, out, rate, threads, holdout, l2, scaling } => {
            tuner::run(&tuner::Options { data, epochs, out, rate, threads, holdout, l2, scaling }).map(|_| ())
        }
    }
}
