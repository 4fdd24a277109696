//! Making the evaluation network from Sentinel's own games (built with `--features tune`).
//!
//! `datagen` plays fast self-play games and writes quiet positions labelled with the search's
//! score and the game's result (`packed`); `train` fits the NNUE network (`float_net`, `train`)
//! to them and `net-eval` shows what a network file makes of a position.

pub mod datagen;
pub mod float_net;
pub mod network;
pub mod packed;
pub mod shape;
pub mod train;

use crate::board::Board;
use crate::eval::Evaluation;
use network::QuantisedNet;
use shape::{Activation, KingBuckets, MAX_OUTPUT_BUCKETS};
use std::path::{Path, PathBuf};
use std::time::Duration;

/// The opening set shipped in the repository, relative to its root.
pub const DEFAULT_OPENINGS: &str = "tools/openings.epd";

/// The tuning subcommands, part of the main command line when the feature is on.
#[derive(clap::Subcommand)]
pub enum Command {
    /// Play self-play games and append their quiet positions, with the search's score and the
    /// game's result, to a packed training file (for `train`).
    Datagen {
        #[arg(long, default_value_t = 1000)]
        games: u64,
        /// Nodes for each move: no new iteration starts beyond this many. (This default and
        /// --per-game's made the data of every network since net 6.)
        #[arg(long, default_value_t = 500)]
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
        /// Start positions, one FEN (or EPD) per line; the default is the set shipped in the
        /// repository (`sentinel openings` made it), found from the repository's root.
        #[arg(long, value_name = "FILE", default_value = DEFAULT_OPENINGS)]
        openings: PathBuf,
        /// Quiet positions kept per game, at most.
        #[arg(long, default_value_t = 100)]
        per_game: usize,
        /// Start no new game after this many minutes.
        #[arg(long, value_name = "MINUTES")]
        max_minutes: Option<f64>,
        /// Play with this network file (default, or `builtin`: the built-in one); a network of
        /// a shape the engine does not read plays too, evaluating each position afresh (slower).
        #[arg(long, value_name = "FILE")]
        net: Option<PathBuf>,
        /// Play with the hand-crafted evaluation instead of a network.
        #[arg(long, conflicts_with = "net")]
        hand_crafted: bool,
    },
    /// Train the NNUE network on `datagen` positions; writes a checkpoint every epoch and the
    /// quantised network at the end.
    Train {
        /// A packed training file (repeat for several).
        #[arg(long, value_name = "FILE", required = true)]
        data: Vec<PathBuf>,
        /// Fraction of the positions held out to measure the loss on.
        #[arg(long, default_value_t = 0.02)]
        validation: f64,
        #[arg(long, default_value_t = 1)]
        seed: u64,
        /// The game result's share of the target; the rest is the search's score (the default
        /// is the built-in network's recipe: see docs/network.md).
        #[arg(long, default_value_t = 0.2)]
        wdl: f32,
        /// AdamW's initial step size (it decays along a cosine to a hundredth).
        #[arg(long, default_value_t = 0.002)]
        lr: f32,
        #[arg(long, default_value_t = 0.01)]
        weight_decay: f32,
        /// Train until this epoch (a resumed run counts the checkpoint's epochs).
        #[arg(long, default_value_t = 10)]
        epochs: usize,
        #[arg(long, default_value_t = 8192)]
        batch: usize,
        #[arg(long, default_value_t = 1)]
        threads: usize,
        /// Do not train on positions mirrored from the a-file to the h-file (by default each
        /// position without castling rights is mirrored in a random half of the epochs).
        #[arg(long)]
        no_mirror: bool,
        /// The hidden layer's activation (default screlu). A resumed run keeps its checkpoint's
        /// shape, and refuses shape options that differ from it.
        #[arg(long, value_enum)]
        activation: Option<Activation>,
        /// Neurons in the hidden layer (default: the engine's; the engine plays only its own
        /// shape, the trainer's tools any).
        #[arg(long, value_parser = clap::value_parser!(u32).range(1..=shape::MAX_HIDDEN as i64))]
        hidden: Option<u32>,
        /// Sets of output weights chosen by the number of pieces on the board (default 8, the
        /// built-in network's: 2-5, 6-9, ..., 30-32 pieces).
        #[arg(long, value_parser = clap::value_parser!(u32).range(1..=MAX_OUTPUT_BUCKETS as i64))]
        output_buckets: Option<u32>,
        /// The king's square picks a block of inputs: `none` (the default), `mirrored` (one
        /// block, the board mirrored when the king is on files e-h), or a bucket number for
        /// each square from the king's own side, comma-separated, rank 1 first: 64 (a1 to h8)
        /// without mirroring, or 32 (files a-d of each rank) with it.
        #[arg(long, value_parser = parse_king_buckets, value_name = "MAP")]
        king_buckets: Option<KingBuckets>,
        /// Where the checkpoints (`epoch-NNN.ckpt`) and the network (`net.nnue`) go.
        #[arg(long, value_name = "DIR")]
        out_dir: PathBuf,
        /// Write the quantised network here instead of DIR/net.nnue.
        #[arg(long, value_name = "FILE")]
        out: Option<PathBuf>,
        /// Continue from a checkpoint.
        #[arg(long, value_name = "CHECKPOINT")]
        resume: Option<PathBuf>,
        /// Start from this network's weights (a network file, or `builtin`) instead of random
        /// ones, with a fresh optimiser and the step size schedule from its start: fine-tuning
        /// a network on newer data, its checkpoints gone or not. Its shape is the run's, but
        /// a network without king buckets may start a run with them (`--king-buckets`): each
        /// bucket begins as a copy of its inputs.
        #[arg(long, value_name = "FILE", conflicts_with = "resume")]
        init: Option<PathBuf>,
        /// Print this network's validation loss beside the hand-crafted evaluation's (repeat
        /// for several; `builtin` is the one built into the binary): the network a new one
        /// is to replace is its bar.
        #[arg(long, value_name = "FILE")]
        compare: Vec<PathBuf>,
    },
    /// Print a network's evaluation of a position next to the hand-crafted one (centipawns,
    /// side to move's view).
    NetEval {
        /// A network file, or `builtin`.
        #[arg(long, value_name = "FILE")]
        net: PathBuf,
        /// `startpos` or a FEN (quoted, or as separate words).
        #[arg(num_args = 1.., required = true, value_name = "POSITION")]
        position: Vec<String>,
    },
}

pub fn run(command: Command) -> Result<(), String> {
    match command {
        Command::Datagen {
            games,
            nodes,
            hard_nodes,
            threads,
            out,
            seed,
            openings,
            per_game,
            max_minutes,
            net,
            hand_crafted,
        } => {
            if openings == Path::new(DEFAULT_OPENINGS) && !openings.exists() {
                let advice = "run datagen from the repository's root, or name a file with --openings";
                return Err(format!("{DEFAULT_OPENINGS} not found: {advice}"));
            }
            let max_time = max_minutes.map(|m| Duration::from_secs_f64(m.max(0.0) * 60.0));
            let evaluation = match net {
                Some(path) => read_network(&path)?.into_evaluation()?,
                None if hand_crafted => Evaluation::HandCrafted,
                None => Evaluation::embedded(),
            };
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
                evaluation,
            })
            .map(|_| ())
        }
        Command::Train {
            data,
            validation,
            seed,
            wdl,
            lr,
            weight_decay,
            epochs,
            batch,
            threads,
            no_mirror,
            activation,
            hidden,
            output_buckets,
            king_buckets,
            out_dir,
            out,
            resume,
            init,
            compare,
        } => {
            if !(0.0..=0.5).contains(&validation) || !(0.0..=1.0).contains(&wdl) {
                return Err("--validation must be within 0 to 0.5 and --wdl within 0 to 1".to_string());
            }
            let positive = lr > 0.0 && lr.is_finite() && batch > 0 && threads > 0;
            if !positive || !(0.0..1.0).contains(&weight_decay) {
                return Err("--lr, --batch and --threads must be positive, --weight-decay within 0 to 1".to_string());
            }
            let settings = train::Settings { wdl, lr, weight_decay, batch, threads, mirror: !no_mirror };
            let compare = compare
                .iter()
                .map(|path| Ok((path.display().to_string(), read_network(path)?)))
                .collect::<Result<_, String>>()?;
            let shape = train::ShapeChoice {
                hidden: hidden.map(|h| h as usize),
                kings: king_buckets,
                output_buckets: output_buckets.map(|o| o as usize),
                activation,
            };
            let init = match init {
                Some(path) => Some((path.display().to_string(), read_network(&path)?)),
                None => None,
            };
            let options =
                train::Options { data, validation, seed, settings, epochs, shape, out_dir, out, resume, init, compare };
            train::run(&options)
        }
        Command::NetEval { net, position } => {
            let network = read_network(&net)?;
            let text = position.join(" ");
            let board = Board::from_fen(crate::board::position_fen(&text)).map_err(|e| e.to_string())?;
            let hand_crafted = crate::eval::evaluate(&board, &mut crate::eval::PawnCache::new());
            println!("nnue {} hand-crafted {hand_crafted}", network.evaluate(&board));
            Ok(())
        }
    }
}

/// `--king-buckets`: `none`, `mirrored`, or 64 bucket numbers (a1 to h8 from the king's side)
/// or 32 (files a-d, rank by rank, mirrored onto e-h).
fn parse_king_buckets(text: &str) -> Result<KingBuckets, String> {
    let numbers: Vec<u8> = match text.trim() {
        "none" => return Ok(KingBuckets::NONE),
        "mirrored" => vec![0; 32],
        list => list
            .split(',')
            .map(|n| n.trim().parse::<u8>().map_err(|e| format!("{n:?}: {e}")))
            .collect::<Result<_, _>>()?,
    };
    let map: [u8; 64] = match numbers.len() {
        64 => std::array::from_fn(|sq| numbers[sq]),
        32 => std::array::from_fn(|sq| numbers[sq / 8 * 4 + (sq % 8).min(7 - sq % 8)]),
        n => return Err(format!("{n} bucket numbers: give 64 (one per square) or 32 (files a-d, mirrored)")),
    };
    KingBuckets::new(map, numbers.len() == 32).map_err(|e| e.to_string())
}

/// The network in the file at `path` (`builtin`: the one built into the binary), or why it
/// cannot be used.
fn read_network(path: &Path) -> Result<QuantisedNet, String> {
    if path.to_str() == Some("builtin") {
        return Ok(QuantisedNet::embedded());
    }
    let bytes = std::fs::read(path).map_err(|e| format!("cannot read {}: {e}", path.display()))?;
    QuantisedNet::from_bytes(&bytes).map_err(|e| format!("{}: {e}", path.display()))
}
