//! `sentinel train`: fits the NNUE network (`eval::nnue`), of any shape the shape module
//! describes, to self-play positions.
//!
//! Each position's target is its game's result blended with the search's score,
//! `t = λ·result + (1 − λ)·sigmoid(score / 400)`; the prediction is `sigmoid(output)` (one unit
//! of output is 400 centipawns) and the loss is the mean squared difference. AdamW follows the
//! gradient over shuffled mini-batches, with the step size decaying along a cosine to a
//! hundredth of `--lr` by the last epoch. A batch is split between threads, each summing its
//! positions' gradients into its own buffer (touching only the rows of the inputs that are
//! set); the buffers are then added up, and the weights updated, a slice of the parameters per
//! thread. The split and the order of the sums depend only on the thread count, so a run is
//! repeatable for a given seed and thread count. The positions' work runs with AVX2 where the
//! processor has it, to the same numbers.
//!
//! The records stay packed in memory (32 bytes a position: 100 million take 3.2 GB) and are
//! decoded into the shape's inputs as each batch needs them. Every epoch writes a checkpoint
//! (the shape, the float weights and the optimiser's state) that `--resume` continues from;
//! the end of the run writes the quantised network.

use super::float_net::{FloatNet, Labels, OUTPUT_WEIGHT_LIMIT, Position, Scratch, sigmoid};
use super::network::QuantisedNet;
use super::packed::{self, Record};
use super::shape::{Activation, KingBuckets, Shape};
use crate::eval::nnue::{EVAL_SCALE, FileShape, HIDDEN, SHAPE_BYTES};
use rand::{SeedableRng, rngs::StdRng, seq::SliceRandom};
use std::path::{Path, PathBuf};
use std::time::Instant;

#[derive(Clone, Debug)]
pub struct Options {
    pub data: Vec<PathBuf>,
    pub validation: f64,
    pub seed: u64,
    pub settings: Settings,
    /// Last epoch to train (a resumed run goes on from the checkpoint's).
    pub epochs: usize,
    pub shape: ShapeChoice,
    pub out_dir: PathBuf,
    pub out: Option<PathBuf>,
    pub resume: Option<PathBuf>,
    /// A network to start from instead of random weights (with a fresh optimiser).
    pub init: Option<(String, QuantisedNet)>,
    /// Networks whose validation loss is printed beside the hand-crafted evaluation's, by name.
    pub compare: Vec<(String, QuantisedNet)>,
}

/// The output buckets of a new run: the built-in network's, as every generation since net 7.
pub const DEFAULT_OUTPUT_BUCKETS: usize = 8;

/// The shape the command line asks for: what a new run trains (each part not given takes its
/// default, the built-in network's shape: the engine's hidden size, no king buckets,
/// `DEFAULT_OUTPUT_BUCKETS`, SCReLU), and what a resumed run's checkpoint must agree with.
#[derive(Clone, Copy, Debug, Default)]
pub struct ShapeChoice {
    pub hidden: Option<usize>,
    pub kings: Option<KingBuckets>,
    pub output_buckets: Option<usize>,
    pub activation: Option<Activation>,
}

impl ShapeChoice {
    pub fn shape(&self) -> Shape {
        Shape {
            kings: self.kings.unwrap_or(KingBuckets::NONE),
            hidden: self.hidden.unwrap_or(HIDDEN),
            output_buckets: self.output_buckets.unwrap_or(DEFAULT_OUTPUT_BUCKETS),
            activation: self.activation.unwrap_or(Activation::SCReLU),
        }
    }

    /// Refuses a run from `source` (a checkpoint or a network: `what`) whose `shape` differs
    /// from the choice, naming the parts that differ.
    pub fn agrees_with(&self, shape: &Shape, source: &str, what: &str) -> Result<(), String> {
        let differences = self.differences(shape);
        if differences.is_empty() {
            return Ok(());
        }
        Err(format!("{source}: the {what}'s shape is {shape}; the options ask for another {}", differences.join(", ")))
    }

    /// The parts of the choice that `shape` does not have, by name.
    pub fn differences(&self, shape: &Shape) -> Vec<&'static str> {
        let differs = [
            ("hidden size", self.hidden.is_some_and(|h| h != shape.hidden)),
            ("king buckets", self.kings.is_some_and(|k| k != shape.kings)),
            ("output buckets", self.output_buckets.is_some_and(|o| o != shape.output_buckets)),
            ("activation", self.activation.is_some_and(|a| a != shape.activation)),
        ];
        differs.into_iter().filter(|&(_, differs)| differs).map(|(name, _)| name).collect()
    }
}

/// How each epoch trains.
#[derive(Clone, Copy, Debug)]
pub struct Settings {
    /// The game result's share of the target (λ).
    pub wdl: f32,
    /// AdamW's step size at the start of training.
    pub lr: f32,
    /// AdamW's decoupled weight decay (per unit of step size).
    pub weight_decay: f32,
    pub batch: usize,
    pub threads: usize,
    /// Train on each position without castling rights in a random half of the epochs mirrored
    /// from the a-file to the h-file: chess is symmetric that way, so this doubles the
    /// positions the network learns from at no cost in data generation.
    pub mirror: bool,
}

/// Reads the records of every file and splits them into training and validation: a
/// `fraction` of the games, chosen by a hash of the seed, the file's place in the list and the
/// game's place in the file. Whole games, because a game's positions share its result and most
/// of their pieces: held-out positions whose games are also trained on would reward memorising
/// games. Each record goes straight to its side, so the memory needed is the records' own
/// (the training side is sized from the files' lengths up front). A file whose tail is damaged
/// (one still being written, say) gives the whole records before the damage, with a warning; a
/// file with none is an error.
pub fn load(paths: &[PathBuf], fraction: f64, seed: u64) -> Result<(Vec<Record>, Vec<Record>), String> {
    let threshold = (fraction.clamp(0.0, 1.0) * u64::MAX as f64) as u64;
    let cannot = |path: &PathBuf, e: std::io::Error| format!("cannot read {}: {e}", path.display());
    let mut records = 0;
    for path in paths {
        records += std::fs::metadata(path).map_err(|e| cannot(path, e))?.len() as usize / packed::RECORD_SIZE;
    }
    let (mut training, mut validation) = (Vec::with_capacity(records), Vec::new());
    for (number, path) in paths.iter().enumerate() {
        let file = std::fs::File::open(path).map_err(|e| cannot(path, e))?;
        let (mut game, mut last, mut count) = (0u64, None, 0usize);
        let error = packed::read_each(&mut std::io::BufReader::new(file), |record| {
            if last.is_some_and(|last| record.starts_a_game_after(&last)) {
                game += 1;
            }
            last = Some(record);
            count += 1;
            let hash = mix(mix(seed ^ mix(number as u64)) ^ game);
            if fraction > 0.0 && hash <= threshold { &mut validation } else { &mut training }.push(record);
        });
        match error {
            Some(e) if count == 0 => return Err(format!("{}: {e}", path.display())),
            Some(e) => eprintln!("train: warning: {}: {e}; using the {count} whole records before it", path.display()),
            None if count == 0 => return Err(format!("{}: no positions", path.display())),
            None => {}
        }
    }
    Ok((training, validation))
}

/// splitmix64's finaliser: a well-spread hash of a 64-bit value.
fn mix(x: u64) -> u64 {
    let mut z = x.wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// AdamW's state: the moving averages of each parameter's gradient and squared gradient.
#[derive(Clone, PartialEq, Debug)]
pub struct AdamW {
    pub m: Vec<f32>,
    pub v: Vec<f32>,
    pub steps: u64,
}

const BETA1: f32 = 0.9;
const BETA2: f32 = 0.999;
const EPSILON: f32 = 1e-8;
/// The step size decays to this fraction of `--lr`.
const FINAL_LR: f32 = 0.01;

impl AdamW {
    pub fn new(params: usize) -> AdamW {
        AdamW { m: vec![0.0; params], v: vec![0.0; params], steps: 0 }
    }
}

/// The network being trained with its optimiser and the last finished epoch.
#[derive(Clone, PartialEq, Debug)]
pub struct Trainer {
    pub net: FloatNet,
    pub adam: AdamW,
    pub epoch: usize,
}

/// What an epoch measured.
pub struct EpochStats {
    pub loss: f64,
    pub positions: usize,
    pub seconds: f64,
    pub lr: f32,
}

/// The step size `progress` (0 to 1) of the way through training: a cosine from `lr` down to
/// `lr · FINAL_LR`.
fn step_size(lr: f32, progress: f64) -> f32 {
    let cosine = 0.5 * (1.0 + (std::f64::consts::PI * progress.clamp(0.0, 1.0)).cos());
    lr * (FINAL_LR + (1.0 - FINAL_LR) * cosine as f32)
}

impl Trainer {
    pub fn new(shape: Shape, seed: u64) -> Trainer {
        Trainer::from_net(FloatNet::new(shape, seed))
    }

    /// Training from epoch 0 with `net`'s weights and a fresh optimiser.
    pub fn from_net(net: FloatNet) -> Trainer {
        let adam = AdamW::new(net.params.len());
        Trainer { net, adam, epoch: 0 }
    }

    /// One pass over `data` in a random order (fixed by the seed and the epoch number);
    /// `epochs` is the length of the whole run, for the step size schedule.
    pub fn train_epoch(&mut self, data: &[Record], settings: &Settings, epochs: usize, seed: u64) -> EpochStats {
        let start = Instant::now();
        let epoch = self.epoch + 1;
        let threads = settings.threads.max(1);
        let batch_size = settings.batch.clamp(1, data.len().max(1));
        let mut order: Vec<u32> = (0..data.len() as u32).collect();
        order.shuffle(&mut StdRng::seed_from_u64(mix(seed) ^ epoch as u64));
        let batches = data.len().div_ceil(batch_size);
        let mut grads = vec![vec![0.0f32; self.net.params.len()]; threads];
        let mut batch = Vec::with_capacity(batch_size);
        let mut loss = 0.0;
        let mut lr = settings.lr;
        for (number, indices) in order.chunks(batch_size).enumerate() {
            batch.clear();
            batch.extend(indices.iter().map(|&i| {
                let record = data[i as usize];
                let coin = mix(mix(seed ^ epoch as u64) ^ i as u64) & 1 == 1;
                (record, settings.mirror && coin && record.castling_rights() == 0)
            }));
            loss += self.gradients(&batch, settings.wdl, &mut grads);
            let progress = ((epoch - 1) * batches + number) as f64 / (epochs.max(1) * batches) as f64;
            lr = step_size(settings.lr, progress);
            self.step(&mut grads, lr, settings.weight_decay);
        }
        self.epoch = epoch;
        EpochStats {
            loss: loss / data.len().max(1) as f64,
            positions: data.len(),
            seconds: start.elapsed().as_secs_f64(),
            lr,
        }
    }

    /// Fills one gradient buffer per thread with its share of the batch's mean gradient;
    /// returns the batch's summed loss.
    fn gradients(&self, batch: &[(Record, bool)], wdl: f32, grads: &mut [Vec<f32>]) -> f64 {
        let net = &self.net;
        let scale = 1.0 / batch.len() as f32;
        let share = batch.len().div_ceil(grads.len());
        let work = |part: &[(Record, bool)], grad: &mut Vec<f32>| {
            grad.fill(0.0);
            accumulate(net, part, wdl, scale, grad)
        };
        let used = batch.len().div_ceil(share);
        let (grads, idle) = grads.split_at_mut(used);
        // Buffers a short last batch leaves idle must not keep an earlier batch's gradients.
        idle.iter_mut().for_each(|grad| grad.fill(0.0));
        if let [grad] = grads {
            return work(batch, grad);
        }
        std::thread::scope(|scope| {
            let handles: Vec<_> =
                batch.chunks(share).zip(grads).map(|(part, grad)| scope.spawn(move || work(part, grad))).collect();
            handles.into_iter().map(|h| h.join().expect("trainer thread")).sum()
        })
    }

    /// One AdamW step with the summed gradient buffers, each thread adding up and updating a
    /// slice of the parameters. Output weights are then held within what the quantised network
    /// can store.
    fn step(&mut self, grads: &mut [Vec<f32>], lr: f32, weight_decay: f32) {
        self.adam.steps += 1;
        let t = self.adam.steps as i32;
        let rate = lr * (1.0 - BETA2.powi(t)).sqrt() / (1.0 - BETA1.powi(t));
        let decay = 1.0 - lr * weight_decay;
        let threads = grads.len();
        let slice = self.net.params.len().div_ceil(threads);
        let Some((total, others)) = grads.split_first_mut() else { return };
        let update = |start: usize, g: &mut [f32], params: &mut [f32], m: &mut [f32], v: &mut [f32]| {
            for other in others.iter() {
                g.iter_mut().zip(&other[start..]).for_each(|(g, o)| *g += o);
            }
            for (((w, m), v), &g) in params.iter_mut().zip(m).zip(v).zip(g.iter()) {
                *m = BETA1 * *m + (1.0 - BETA1) * g;
                *v = BETA2 * *v + (1.0 - BETA2) * g * g;
                *w = *w * decay - rate * *m / (v.sqrt() + EPSILON);
            }
        };
        let Trainer { net, adam, .. } = self;
        if threads == 1 {
            update(0, total, &mut net.params, &mut adam.m, &mut adam.v);
        } else {
            let parts = total
                .chunks_mut(slice)
                .zip(net.params.chunks_mut(slice))
                .zip(adam.m.chunks_mut(slice))
                .zip(adam.v.chunks_mut(slice));
            std::thread::scope(|scope| {
                for (n, (((g, params), m), v)) in parts.enumerate() {
                    let update = &update;
                    scope.spawn(move || update(n * slice, g, params, m, v));
                }
            });
        }
        let (_, output, output_bias) = FloatNet::offsets(&net.shape);
        for w in &mut net.params[output..output_bias] {
            *w = w.clamp(-OUTPUT_WEIGHT_LIMIT, OUTPUT_WEIGHT_LIMIT);
        }
    }

    /// The mean loss over `data`, without training.
    pub fn loss(&self, data: &[Record], wdl: f32, threads: usize) -> f64 {
        let sums = in_parallel(data, threads, |part| {
            let mut scratch = Scratch::new(self.net.shape.hidden);
            part.iter()
                .map(|record| {
                    let pos = Position::decode(record, false, &self.net.shape);
                    (sigmoid(self.net.forward(&pos, &mut scratch)) - pos.target(wdl)).powi(2) as f64
                })
                .sum::<f64>()
        });
        sums.iter().sum::<f64>() / data.len().max(1) as f64
    }
}

/// The loss over `data` of an evaluation (centipawns, the side to move's view) read the way
/// the network's output is (`sigmoid(eval / EVAL_SCALE)`): the bar a network has to clear on
/// the same positions. `evaluator` makes one per thread; it gives `None` for a record it cannot
/// evaluate, which is left out.
fn evaluation_loss<E: FnMut(&Record) -> Option<i32>>(
    data: &[Record],
    wdl: f32,
    threads: usize,
    evaluator: impl Fn() -> E + Sync,
) -> f64 {
    let sums = in_parallel(data, threads, |part| {
        let mut evaluate = evaluator();
        let (mut sum, mut count) = (0.0f64, 0usize);
        for record in part {
            let Some(eval) = evaluate(record) else { continue };
            let target = Labels::of(record).target(wdl);
            sum += (sigmoid(eval as f32 / EVAL_SCALE as f32) - target).powi(2) as f64;
            count += 1;
        }
        (sum, count)
    });
    let (sum, count) = sums.iter().fold((0.0, 0), |(s, c), &(ps, pc)| (s + ps, c + pc));
    sum / count.max(1) as f64
}

/// The hand-crafted evaluation's loss over `data`.
pub fn hand_crafted_loss(data: &[Record], wdl: f32, threads: usize) -> f64 {
    evaluation_loss(data, wdl, threads, || {
        let mut pawns = crate::eval::PawnCache::new();
        // A record that passed the reader's checks is a legal FEN; one that is not is left out.
        move |record: &Record| record.to_board().ok().map(|board| crate::eval::evaluate(&board, &mut pawns))
    })
}

/// A quantised network's loss over `data`: the bar for the next generation is the network
/// it would replace, on positions neither was trained on.
pub fn network_loss(net: &QuantisedNet, data: &[Record], wdl: f32, threads: usize) -> f64 {
    evaluation_loss(data, wdl, threads, || |record: &Record| Some(network_evaluation(net, record)))
}

/// A quantised network's evaluation of a record (centipawns, the side to move's view), its
/// accumulators computed afresh from the packed pieces.
fn network_evaluation(net: &QuantisedNet, record: &Record) -> i32 {
    net.evaluate_pieces(record.pieces(), record.side_to_move())
}

/// Adds to `grad` the gradient of the loss over `part` (each record with whether to mirror
/// it), scaled by `scale`, and returns the summed loss: the trainer's inner loop, compiled
/// with 256-bit vectors where the processor has them (the row loops take most of the time).
fn accumulate(net: &FloatNet, part: &[(Record, bool)], wdl: f32, scale: f32, grad: &mut [f32]) -> f64 {
    #[cfg(target_arch = "x86_64")]
    if std::arch::is_x86_feature_detected!("avx2") {
        // SAFETY: the processor has AVX2, checked just above.
        return unsafe { accumulate_avx2(net, part, wdl, scale, grad) };
    }
    accumulate_portable(net, part, wdl, scale, grad)
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
fn accumulate_avx2(net: &FloatNet, part: &[(Record, bool)], wdl: f32, scale: f32, grad: &mut [f32]) -> f64 {
    accumulate_portable(net, part, wdl, scale, grad)
}

#[inline(always)]
fn accumulate_portable(net: &FloatNet, part: &[(Record, bool)], wdl: f32, scale: f32, grad: &mut [f32]) -> f64 {
    let mut scratch = Scratch::new(net.shape.hidden);
    let mut loss = 0.0f64;
    for (record, mirror) in part {
        let pos = Position::decode(record, *mirror, &net.shape);
        let prediction = sigmoid(net.forward(&pos, &mut scratch));
        let error = prediction - pos.target(wdl);
        loss += (error * error) as f64;
        let d_out = 2.0 * error * prediction * (1.0 - prediction) * scale;
        net.backward(&pos, &mut scratch, d_out, grad);
    }
    loss
}

/// Runs `work` on `threads` slices of `data` and returns the results in order.
fn in_parallel<T: Send>(data: &[Record], threads: usize, work: impl Fn(&[Record]) -> T + Sync) -> Vec<T> {
    if threads <= 1 || data.len() < 2 {
        return vec![work(data)];
    }
    let chunk = data.len().div_ceil(threads);
    std::thread::scope(|scope| {
        let work = &work;
        let handles: Vec<_> = data.chunks(chunk).map(|part| scope.spawn(move || work(part))).collect();
        handles.into_iter().map(|h| h.join().expect("trainer thread")).collect()
    })
}

/// How far the quantised network's evaluations stray from the float network's.
#[derive(Clone, Copy, Debug)]
pub struct QuantisationError {
    pub max: f64,
    pub mean: f64,
}

/// Compares the float and quantised evaluations (centipawns) over `data`.
pub fn quantisation_error(net: &FloatNet, quantised: &QuantisedNet, data: &[Record]) -> QuantisationError {
    let mut scratch = Scratch::new(net.shape.hidden);
    let (mut max, mut sum) = (0.0f64, 0.0f64);
    for record in data {
        let float = net.evaluate(&Position::decode(record, false, &net.shape), &mut scratch) as f64;
        let diff = (network_evaluation(quantised, record) as f64 - float).abs();
        max = max.max(diff);
        sum += diff;
    }
    QuantisationError { max, mean: sum / data.len().max(1) as f64 }
}

/// Checkpoint files: the magic `SNTLCKPT`, a version (u32), the shape (as a network file's
/// header has it), the last finished epoch (u32), the optimiser's step count (u64), then the
/// parameters, Adam's first and Adam's second moments, each as f32s; all little-endian.
const CHECKPOINT_MAGIC: &[u8; 8] = b"SNTLCKPT";
const CHECKPOINT_VERSION: u32 = 2;
const SHAPE_AT: usize = 12;
const EPOCH_AT: usize = SHAPE_AT + SHAPE_BYTES;
const CHECKPOINT_HEADER: usize = EPOCH_AT + 12;

impl Trainer {
    pub fn to_checkpoint(&self) -> Vec<u8> {
        let mut bytes = Vec::with_capacity(CHECKPOINT_HEADER + 12 * self.net.params.len());
        bytes.extend_from_slice(CHECKPOINT_MAGIC);
        bytes.extend_from_slice(&CHECKPOINT_VERSION.to_le_bytes());
        bytes.extend_from_slice(&self.net.shape.to_file().to_bytes());
        bytes.extend_from_slice(&(self.epoch as u32).to_le_bytes());
        bytes.extend_from_slice(&self.adam.steps.to_le_bytes());
        for value in self.net.params.iter().chain(&self.adam.m).chain(&self.adam.v) {
            bytes.extend_from_slice(&value.to_le_bytes());
        }
        bytes
    }

    pub fn from_checkpoint(bytes: &[u8]) -> Result<Trainer, String> {
        if bytes.len() < CHECKPOINT_HEADER {
            return Err(format!(
                "checkpoint truncated: {} bytes, the header alone is {CHECKPOINT_HEADER}",
                bytes.len()
            ));
        }
        if &bytes[..8] != CHECKPOINT_MAGIC {
            return Err("not a Sentinel training checkpoint (bad magic)".to_string());
        }
        let word = |at: usize| u32::from_le_bytes([bytes[at], bytes[at + 1], bytes[at + 2], bytes[at + 3]]);
        let version = word(8);
        if version != CHECKPOINT_VERSION {
            return Err(format!("checkpoint version {version}; this build reads version {CHECKPOINT_VERSION}"));
        }
        let mut shape = [0; SHAPE_BYTES];
        shape.copy_from_slice(&bytes[SHAPE_AT..EPOCH_AT]);
        let shape = Shape::from_file(&FileShape::from_bytes(&shape)).map_err(|e| format!("checkpoint: {e}"))?;
        let count = FloatNet::param_count(&shape);
        let expected = CHECKPOINT_HEADER + 12 * count;
        if bytes.len() != expected {
            return Err(format!("checkpoint of shape {shape} should be {expected} bytes, got {}", bytes.len()));
        }
        let epoch = word(EPOCH_AT);
        let steps = u64::from_le_bytes(bytes[EPOCH_AT + 4..CHECKPOINT_HEADER].try_into().unwrap_or_default());
        let mut values =
            bytes[CHECKPOINT_HEADER..].chunks_exact(4).map(|b| f32::from_le_bytes([b[0], b[1], b[2], b[3]]));
        let params = values.by_ref().take(count).collect();
        let m = values.by_ref().take(count).collect();
        let v = values.collect();
        Ok(Trainer { net: FloatNet { shape, params }, adam: AdamW { m, v, steps }, epoch: epoch as usize })
    }
}

fn write(path: &Path, bytes: &[u8]) -> Result<(), String> {
    std::fs::write(path, bytes).map_err(|e| format!("cannot write {}: {e}", path.display()))
}

/// The whole run: load, split, train (or go on training), checkpoint, quantise, write.
pub fn run(options: &Options) -> Result<(), String> {
    let start = Instant::now();
    let settings = &options.settings;
    let threads = settings.threads.max(1);
    let (training, validation) = load(&options.data, options.validation, options.seed)?;
    if training.is_empty() {
        return Err("no positions left for training after the validation split".to_string());
    }
    if training.len() > u32::MAX as usize {
        return Err(format!("{} training positions; at most {} fit the shuffle's indices", training.len(), u32::MAX));
    }
    eprintln!(
        "train: {} training positions, {} held out for validation, loaded in {:.1} s",
        training.len(),
        validation.len(),
        start.elapsed().as_secs_f64()
    );
    if !validation.is_empty() {
        let hand_crafted = hand_crafted_loss(&validation, settings.wdl, threads);
        eprintln!("train: validation loss of the hand-crafted evaluation {hand_crafted:.6}");
        for (name, net) in &options.compare {
            let loss = network_loss(net, &validation, settings.wdl, threads);
            eprintln!("train: validation loss of the network {name} ({}) {loss:.6}", net.shape());
        }
    }
    let mut trainer = match &options.resume {
        Some(path) => {
            let bytes = std::fs::read(path).map_err(|e| format!("cannot read {}: {e}", path.display()))?;
            let trainer = Trainer::from_checkpoint(&bytes).map_err(|e| format!("{}: {e}", path.display()))?;
            options.shape.agrees_with(&trainer.net.shape, &path.display().to_string(), "checkpoint")?;
            eprintln!("train: resuming after epoch {} from {}", trainer.epoch, path.display());
            trainer
        }
        None => match &options.init {
            Some((name, network)) => {
                let mut net = FloatNet::dequantise(network);
                // Only a network without king buckets spreads; any other difference in shape
                // is refused just below, by name.
                if let Some(kings) = options.shape.kings.filter(|&kings| kings != net.shape.kings)
                    && let Ok(spread) = net.spread_over(kings)
                {
                    net = spread;
                    eprintln!("train: the network {name} copied into each of {} king buckets", kings.count());
                }
                options.shape.agrees_with(&net.shape, name, "network")?;
                eprintln!("train: starting from the network {name}");
                Trainer::from_net(net)
            }
            None => Trainer::new(options.shape.shape(), options.seed),
        },
    };
    eprintln!("train: shape {} ({} parameters)", trainer.net.shape, trainer.net.params.len());
    std::fs::create_dir_all(&options.out_dir)
        .map_err(|e| format!("cannot create {}: {e}", options.out_dir.display()))?;
    let (mut trained, mut training_seconds) = (0, 0.0);
    while trainer.epoch < options.epochs {
        let stats = trainer.train_epoch(&training, settings, options.epochs, options.seed);
        trained += stats.positions;
        training_seconds += stats.seconds;
        let validation_loss = if validation.is_empty() {
            "n/a".to_string()
        } else {
            format!("{:.6}", trainer.loss(&validation, settings.wdl, threads))
        };
        let checkpoint = options.out_dir.join(format!("epoch-{:03}.ckpt", trainer.epoch));
        write(&checkpoint, &trainer.to_checkpoint())?;
        eprintln!(
            "train: epoch {}/{}  train loss {:.6}  validation loss {validation_loss}  lr {:.2e}  {:.0} positions/s  {:.0} s",
            trainer.epoch,
            options.epochs,
            stats.loss,
            stats.lr,
            stats.positions as f64 / stats.seconds.max(1e-9),
            start.elapsed().as_secs_f64()
        );
    }
    let (quantised, clamped) = trainer.net.quantise()?;
    if clamped > 0 {
        eprintln!("train: warning: {clamped} parameters were clamped to fit the quantised network");
    }
    let compared = if validation.is_empty() { &training[..training.len().min(100_000)] } else { &validation[..] };
    let error = quantisation_error(&trainer.net, &quantised, compared);
    let out = options.out.clone().unwrap_or_else(|| options.out_dir.join("net.nnue"));
    write(&out, &quantised.to_bytes())?;
    eprintln!(
        "train: quantised network {}: |float - quantised| over {} positions: max {:.1} cp, mean {:.2} cp",
        out.display(),
        compared.len(),
        error.max,
        error.mean
    );
    if !trainer.net.shape.is_the_engines() {
        eprintln!(
            "train: the engine plays only networks of {}, mirrored or not; this one is for the trainer's tools \
             (datagen --net, net-eval, train --compare and --init)",
            Shape::engine()
        );
    }
    let quantisation = format!("quantisation_max_cp {:.1} quantisation_mean_cp {:.2}", error.max, error.mean);
    let validation_loss = (!validation.is_empty()).then(|| trainer.loss(&validation, settings.wdl, threads));
    println!(
        "positions {} epochs {} trained {} positions_per_second {:.0} validation_loss {} {quantisation} seconds {:.0}",
        training.len(),
        trainer.epoch,
        trained,
        trained as f64 / f64::max(training_seconds, 1e-9),
        validation_loss.map_or("n/a".to_string(), |l| format!("{l:.6}")),
        start.elapsed().as_secs_f64()
    );
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::board::{Board, Color, PieceKind};
    use crate::movegen::legal_moves;
    use crate::rules::GameResult;
    use crate::tune::shape::quartered;

    /// The shape with buckets the tests train: king buckets with a boundary of every kind
    /// (`quartered`), mirrored, and eight output buckets.
    fn bucketed(hidden: usize, activation: Activation) -> Shape {
        Shape { kings: quartered(), output_buckets: 8, ..Shape::plain(hidden, activation) }
    }

    /// Positions from random games, labelled with their material balance as the score and the
    /// side ahead as the winner: a pattern simple enough to learn in a few epochs.
    fn synthetic(count: usize, seed: u64) -> Vec<Record> {
        const VALUE: [i32; 7] = [0, 100, 300, 300, 500, 900, 0];
        let mut state = seed;
        let mut random = move |n: usize| {
            state = mix(state);
            (state % n as u64) as usize
        };
        let mut records = Vec::new();
        while records.len() < count {
            let mut board = Board::start_position();
            for _ in 0..random(120) {
                let moves = legal_moves(&board);
                if moves.is_empty() {
                    break;
                }
                board.make_move(moves.as_slice()[random(moves.len())]);
            }
            let material: i32 = PieceKind::ALL
                .iter()
                .map(|&k| {
                    VALUE[k.index()] * (board.count(Color::White, k) as i32 - board.count(Color::Black, k) as i32)
                })
                .sum();
            let outcome = match material {
                m if m > 150 => GameResult::WhiteWins,
                m if m < -150 => GameResult::BlackWins,
                _ => GameResult::Draw,
            };
            records.push(Record::pack(&board, material as i16, outcome));
        }
        records
    }

    fn settings(threads: usize) -> Settings {
        Settings { wdl: 0.3, lr: 0.01, weight_decay: 0.01, batch: 256, threads, mirror: true }
    }

    #[test]
    fn training_reduces_the_loss() {
        let data = synthetic(2000, 1);
        let mut trainer = Trainer::new(Shape::plain(16, Activation::SCReLU), 3);
        let before = trainer.loss(&data, 0.3, 1);
        for _ in 0..10 {
            trainer.train_epoch(&data, &settings(2), 10, 5);
        }
        let after = trainer.loss(&data, 0.3, 1);
        assert!(after < 0.3 * before, "loss {before} -> {after}");
    }

    /// A network trained briefly at a real size, whose evaluations average about 400 cp,
    /// quantises with evaluations within 40 cp of the float network's, 10 cp on average (the
    /// output weights' step of 1/64 makes most of it), and a loss within 5% of the float
    /// network's, which has learnt (less than half the untrained loss): 512 wide without
    /// buckets, and 256 wide with king buckets (mirrored) and eight output buckets. The one
    /// without buckets also knows that a queen up wins (the data is too thin for the other's 32
    /// sets of inputs and outputs to know it of the start position). Every width quantises.
    #[test]
    fn quantised_network_follows_the_float_one() {
        let data = synthetic(3000, 2);
        let train = |shape: Shape| {
            let mut trainer = Trainer::new(shape, 4);
            let untrained = trainer.loss(&data, 0.3, 1);
            for _ in 0..6 {
                trainer.train_epoch(&data, &Settings { lr: 0.003, ..settings(2) }, 6, 6);
            }
            let (quantised, clamped) = trainer.net.quantise().unwrap();
            assert_eq!((clamped, *quantised.shape()), (0, shape));
            let error = quantisation_error(&trainer.net, &quantised, &data);
            assert!(error.max <= 40.0 && error.mean <= 10.0, "{shape}: {error:?}");
            let (float, quantised_loss) = (trainer.loss(&data, 0.3, 1), network_loss(&quantised, &data, 0.3, 1));
            assert!(
                float < 0.5 * untrained && quantised_loss < 1.05 * float,
                "{shape}: {untrained} {float} {quantised_loss}"
            );
            quantised
        };
        train(bucketed(256, Activation::SCReLU));
        let plain = train(Shape::plain(HIDDEN, Activation::SCReLU));
        let queen_up = Board::from_fen("rnb1kbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1").unwrap();
        assert!(plain.evaluate(&queen_up) > 300, "{}", plain.evaluate(&queen_up));
        let (odd, clamped) = FloatNet::new(Shape::plain(384, Activation::SCReLU), 1).quantise().unwrap();
        assert_eq!((odd.shape().hidden, clamped), (384, 0));
    }

    /// The positions' work gives the same loss and gradients, to the bit, on the AVX2 path
    /// (where the processor has it) as on the portable one: a run does not depend on which
    /// the machine takes.
    #[test]
    fn the_vector_path_computes_what_the_portable_one_does() {
        let net = FloatNet::new(bucketed(HIDDEN, Activation::SCReLU), 8);
        let batch: Vec<(Record, bool)> = synthetic(300, 9)
            .into_iter()
            .enumerate()
            .map(|(i, r)| (r, i % 3 == 0 && r.castling_rights() == 0))
            .collect();
        let mut grads = [vec![0.0; net.params.len()], vec![0.0; net.params.len()]];
        let losses = [
            accumulate(&net, &batch, 0.3, 0.01, &mut grads[0]),
            accumulate_portable(&net, &batch, 0.3, 0.01, &mut grads[1]),
        ];
        assert_eq!(losses[0].to_bits(), losses[1].to_bits());
        assert!(grads[0].iter().zip(&grads[1]).all(|(a, b)| a.to_bits() == b.to_bits()));
        assert!(grads[0].iter().filter(|&&g| g != 0.0).count() > 10_000);
    }

    /// The same seed and thread count give the same network, and stopping at a checkpoint
    /// (which keeps the shape) and resuming gives what training straight through gives.
    #[test]
    fn training_is_repeatable_and_resumable() {
        let data = synthetic(600, 3);
        let run = |epochs: usize| {
            let mut trainer = Trainer::new(bucketed(8, Activation::CReLU), 9);
            for _ in 0..epochs {
                trainer.train_epoch(&data, &settings(2), 3, 11);
            }
            trainer
        };
        let straight = run(3);
        assert_eq!(straight, run(3));
        let mut resumed = Trainer::from_checkpoint(&run(2).to_checkpoint()).unwrap();
        assert_eq!(resumed.epoch, 2);
        resumed.train_epoch(&data, &settings(2), 3, 11);
        assert_eq!(resumed, straight);
        assert_ne!(straight, run(2));
    }

    #[test]
    fn bad_checkpoints_are_refused_with_the_reason() {
        let good = Trainer::new(bucketed(4, Activation::SCReLU), 1).to_checkpoint();
        let error = |bytes: &[u8]| Trainer::from_checkpoint(bytes).err().unwrap_or_default();
        assert!(error(&good[..good.len() - 4]).contains(&format!(
            "should be {} bytes, got {}",
            good.len(),
            good.len() - 4
        )));
        assert!(error(&good[..10]).contains("truncated"));
        let mut other = good.clone();
        other[..8].copy_from_slice(b"SNTLNNUE");
        assert!(error(&other).contains("bad magic"));
        let mut wrong = good.clone();
        wrong[8] = 1;
        assert!(error(&wrong).contains("version 1"));
        let mut huge = good.clone();
        huge[12..16].copy_from_slice(&u32::MAX.to_le_bytes());
        assert!(error(&huge).ends_with("4294967295 hidden neurons; the trainer takes 1 to 4096"));
        let mut wider = good.clone();
        wider[12..16].copy_from_slice(&8u32.to_le_bytes());
        assert!(error(&wider).contains("should be"), "{}", error(&wider));
        let mut unknown = good.clone();
        unknown[16] = 9;
        assert_eq!(error(&unknown), "checkpoint: unknown activation code 9 (0 CReLU, 1 SCReLU)");
    }

    /// A resumed run keeps its checkpoint's shape: options that ask for another are named.
    #[test]
    fn shape_options_name_what_a_checkpoint_lacks() {
        let shape = bucketed(HIDDEN, Activation::SCReLU);
        let none = ShapeChoice::default();
        // The defaults are the built-in network's shape: eight output buckets.
        let plain = Shape::plain(HIDDEN, Activation::SCReLU);
        assert_eq!(none.shape(), Shape { output_buckets: DEFAULT_OUTPUT_BUCKETS, ..plain });
        assert_eq!(DEFAULT_OUTPUT_BUCKETS, 8);
        assert!(none.differences(&shape).is_empty());
        let same = ShapeChoice { output_buckets: Some(8), kings: Some(quartered()), ..none };
        assert!(same.differences(&shape).is_empty());
        let other = ShapeChoice { hidden: Some(2 * HIDDEN), kings: Some(KingBuckets::NONE), ..same };
        assert_eq!(other.differences(&shape), ["hidden size", "king buckets"]);
    }

    /// A run started from a network begins with its weights: with no epoch to train it writes
    /// the same network back. Shape options that differ from the network's are named.
    #[test]
    fn a_run_started_from_a_network_begins_with_its_weights() {
        let data = synthetic(500, 7);
        let mut trainer = Trainer::new(bucketed(256, Activation::SCReLU), 2);
        trainer.train_epoch(&data, &settings(1), 1, 3);
        let (network, _) = trainer.net.quantise().unwrap();
        let mut file = Vec::new();
        packed::write_header(&mut file).unwrap();
        data.iter().for_each(|record| file.extend_from_slice(record.bytes()));
        let out_dir = std::env::temp_dir().join(format!("sentinel-train-init-{}", std::process::id()));
        let options = Options {
            data: vec![temp_file("init.bin", &file)],
            validation: 0.0,
            seed: 1,
            settings: settings(1),
            epochs: 0,
            shape: ShapeChoice { output_buckets: Some(8), ..ShapeChoice::default() },
            out_dir: out_dir.clone(),
            out: None,
            resume: None,
            init: Some(("trained".to_string(), network.clone())),
            compare: Vec::new(),
        };
        run(&options).unwrap();
        assert_eq!(std::fs::read(out_dir.join("net.nnue")).unwrap(), network.to_bytes());
        let other =
            Options { shape: ShapeChoice { output_buckets: Some(1), ..ShapeChoice::default() }, ..options.clone() };
        let error = run(&other).unwrap_err();
        assert!(
            error.starts_with("trained: the network's shape is") && error.ends_with("another output buckets"),
            "{error}"
        );
        // A network with king buckets is not spread again, nor are its buckets dropped.
        let unbucketed = ShapeChoice { kings: Some(KingBuckets::NONE), ..options.shape };
        let error = run(&Options { shape: unbucketed, ..options }).unwrap_err();
        assert!(error.ends_with("another king buckets"), "{error}");
        std::fs::remove_dir_all(out_dir).unwrap();
    }

    /// A file to read, in a directory of its own.
    fn temp_file(name: &str, bytes: &[u8]) -> PathBuf {
        let dir = std::env::temp_dir().join(format!("sentinel-train-test-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join(name);
        std::fs::write(&path, bytes).unwrap();
        path
    }

    #[test]
    fn data_files_load_what_is_whole_and_explain_the_rest() {
        let mut file = Vec::new();
        packed::write_header(&mut file).unwrap();
        for record in synthetic(3, 4) {
            file.extend_from_slice(record.bytes());
        }
        let whole = temp_file("whole.bin", &file);
        let cut = temp_file("cut.bin", &file[..file.len() - 7]);
        let (training, validation) = load(&[whole.clone(), cut], 0.0, 1).unwrap();
        assert_eq!((training.len(), validation.len()), (5, 0));

        let load = |paths: &[PathBuf]| load(paths, 0.0, 1);
        let missing = std::env::temp_dir().join("sentinel-no-such-file.bin");
        assert!(load(&[missing]).unwrap_err().starts_with("cannot read"));
        let empty = temp_file("empty.bin", &[]);
        assert!(load(&[whole.clone(), empty]).unwrap_err().ends_with("file too short for a header (0 bytes)"));
        let header_only = temp_file("header.bin", &file[..packed::HEADER_SIZE]);
        assert!(load(&[header_only]).unwrap_err().ends_with("header.bin: no positions"));
        let first_cut = temp_file("first.bin", &file[..packed::HEADER_SIZE + 20]);
        assert!(load(&[first_cut]).unwrap_err().ends_with("offset 16: truncated record (20 of 32 bytes)"));
    }

    /// The hand-crafted evaluation's loss is nil where the score is its own evaluation and the
    /// sigmoid distance where it is not.
    #[test]
    fn the_hand_crafted_loss_compares_its_evaluation_with_the_target() {
        let board = Board::start_position();
        let eval = crate::eval::evaluate(&board, &mut crate::eval::PawnCache::new());
        let exact = Record::pack(&board, eval as i16, GameResult::Draw);
        assert!(hand_crafted_loss(&[exact; 3], 0.0, 2) < 1e-12);
        let off = Record::pack(&board, eval as i16 + 400, GameResult::Draw);
        let expected = (sigmoid(eval as f32 / 400.0) - sigmoid((eval + 400) as f32 / 400.0)).powi(2) as f64;
        assert!((hand_crafted_loss(&[exact, off], 0.0, 1) - expected / 2.0).abs() < 1e-9);
    }

    /// A network's loss is nil where the score is its own evaluation, and the sigmoid
    /// distance from it where it is not.
    #[test]
    fn a_networks_loss_compares_its_evaluation_with_the_target() {
        let net = QuantisedNet::embedded();
        let board = Board::from_fen("r1bqkb1r/pppp1ppp/2n2n2/4p3/2B1P3/5N2/PPPP1PPP/RNBQK2R w KQkq - 4 4").unwrap();
        let eval = net.evaluate(&board);
        let exact = Record::pack(&board, eval as i16, GameResult::Draw);
        assert!(network_loss(&net, &[exact; 3], 0.0, 2) < 1e-12);
        let off = Record::pack(&board, eval as i16 - 300, GameResult::Draw);
        let expected = (sigmoid(eval as f32 / 400.0) - sigmoid((eval - 300) as f32 / 400.0)).powi(2) as f64;
        assert!((network_loss(&net, &[exact, off], 0.0, 1) - expected / 2.0).abs() < 1e-9);
    }

    #[test]
    fn the_validation_split_is_fixed_by_the_seed() {
        let files =
            [("split-a.bin", synthetic(4000, 5)), ("split-b.bin", synthetic(1000, 6))].map(|(name, records)| {
                let mut file = Vec::new();
                packed::write_header(&mut file).unwrap();
                records.iter().for_each(|record| file.extend_from_slice(record.bytes()));
                temp_file(name, &file)
            });
        let (training, validation) = load(&files, 0.1, 7).unwrap();
        assert_eq!(training.len() + validation.len(), 5000);
        assert!((300..=700).contains(&validation.len()), "{}", validation.len());
        assert_eq!(load(&files, 0.1, 7).unwrap(), (training, validation.clone()));
        assert_ne!(load(&files, 0.1, 8).unwrap().1, validation);
        assert!(load(&files, 0.0, 7).unwrap().1.is_empty());
    }
}
