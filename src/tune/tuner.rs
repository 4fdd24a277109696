//! `sentinel tune`: fits the evaluation weights to game results (the Texel method).
//!
//! A position's evaluation `e` (White's side, centipawns) predicts White's score in the game
//! as `sigmoid(K * e)`. The error is the mean squared difference between prediction and
//! result over all positions. First `K` is chosen to fit the current weights best; then the
//! weights (middlegame and endgame part of each) follow the error's exact gradient, with Adam
//! steps, and are rounded and written back to `params.rs`.

use super::trace::Trace;
use super::{packed, params_file};
use crate::eval::{S, Term, WEIGHT_COUNT, WEIGHTS};
use std::path::PathBuf;
use std::time::Instant;

#[derive(Clone, Debug)]
pub struct Options {
    pub data: PathBuf,
    pub epochs: usize,
    pub out: PathBuf,
    /// Adam's step size at the start, in centipawns for a weight whose gradient is of the
    /// normalising size (see `Scaling`); it decays to a tenth by the last epoch.
    pub rate: f64,
    pub threads: usize,
    /// The fraction of positions, from the end of the file (whole games, as datagen writes
    /// them), kept out of training to measure how well the fit generalises.
    pub holdout: f64,
    /// L2 penalty on the distance from the starting weights (see `Schedule`).
    pub l2: f64,
    pub scaling: Scaling,
}

/// A traced position and its game's result (White's side).
pub struct Sample {
    pub trace: Trace,
    pub result: f64,
}

pub type Weights = Vec<[f64; 2]>;

/// Reads a `datagen` file and traces each position.
pub fn load(path: &PathBuf, threads: usize) -> Result<Vec<Sample>, String> {
    let file = std::fs::File::open(path).map_err(|e| format!("cannot read {}: {e}", path.display()))?;
    let (records, error) = packed::read_all(&mut std::io::BufReader::new(file));
    if let Some(e) = error {
        return Err(format!("{}: {e}", path.display()));
    }
    let chunk = records.len().div_ceil(threads.max(1)).max(1);
    let parsed: Vec<Result<Vec<Sample>, String>> = std::thread::scope(|scope| {
        let handles: Vec<_> = records
            .chunks(chunk)
            .map(|part| {
                scope.spawn(move || {
                    part.iter()
                        .map(|record| {
                            let board = record.to_board().map_err(|e| e.to_string())?;
                            Ok(Sample { trace: Trace::new(&board), result: record.outcome().white_points() as f64 })
                        })
                        .collect::<Result<Vec<Sample>, String>>()
                })
            })
            .collect();
        handles.into_iter().map(|h| h.join().expect("loader thread")).collect()
    });
    let mut samples = Vec::with_capacity(records.len());
    for part in parsed {
        samples.extend(part.map_err(|e| format!("{}: {e}", path.display()))?);
    }
    if samples.is_empty() {
        return Err(format!("{}: no positions", path.display()));
    }
    Ok(samples)
}

fn sigmoid(x: f64) -> f64 {
    1.0 / (1.0 + (-x).exp())
}

/// Runs `work` on `threads` slices of the samples and returns the results in order.
fn in_parallel<T: Send>(samples: &[Sample], threads: usize, work: impl Fn(&[Sample]) -> T + Sync) -> Vec<T> {
    let chunk = samples.len().div_ceil(threads.max(1)).max(1);
    if threads <= 1 {
        return vec![work(samples)];
    }
    std::thread::scope(|scope| {
        let work = &work;
        let handles: Vec<_> = samples.chunks(chunk).map(|part| scope.spawn(move || work(part))).collect();
        handles.into_iter().map(|h| h.join().expect("tuner thread")).collect()
    })
}

/// The mean squared error of the predictions under `weights`.
pub fn error(samples: &[Sample], weights: &[[f64; 2]], k: f64, threads: usize) -> f64 {
    let sums = in_parallel(samples, threads, |part| {
        part.iter().map(|s| (s.result - sigmoid(k * s.trace.evaluate_f64(weights))).powi(2)).sum::<f64>()
    });
    sums.iter().sum::<f64>() / samples.len() as f64
}

/// The error and its gradient with respect to every middlegame and endgame weight.
fn gradient(samples: &[Sample], weights: &[[f64; 2]], k: f64, threads: usize) -> (f64, Weights) {
    let parts = in_parallel(samples, threads, |part| {
        let mut grad = vec![[0.0; 2]; weights.len()];
        let mut error = 0.0;
        for s in part {
            let p = sigmoid(k * s.trace.evaluate_f64(weights));
            error += (s.result - p).powi(2);
            // d/de (r - sigmoid(k e))^2 = -2 (r - p) p (1 - p) k
            let d = -2.0 * (s.result - p) * p * (1.0 - p) * k;
            let (fm, fe) = s.trace.blend_factors();
            let (dm, de) = (d * fm, d * fe);
            for c in s.trace.coefficients.iter() {
                let g = &mut grad[c.index as usize];
                g[0] += dm * c.count as f64;
                g[1] += de * c.count as f64;
            }
        }
        (error, grad)
    });
    let n = samples.len() as f64;
    let mut total = vec![[0.0; 2]; weights.len()];
    let mut error = 0.0;
    for (e, grad) in parts {
        error += e;
        for (t, g) in total.iter_mut().zip(grad) {
            t[0] += g[0] / n;
            t[1] += g[1] / n;
        }
    }
    (error / n, total)
}

/// The scaling constant that makes the weights' predictions fit best (golden-section search;
/// the error is unimodal in `k`).
pub fn fit_k(samples: &[Sample], weights: &[[f64; 2]]) -> f64 {
    let evals: Vec<(f64, f64)> = samples.iter().map(|s| (s.trace.evaluate_f64(weights), s.result)).collect();
    let err = |k: f64| evals.iter().map(|&(e, r)| (r - sigmoid(k * e)).powi(2)).sum::<f64>();
    let ratio = (5f64.sqrt() - 1.0) / 2.0;
    let (mut lo, mut hi) = (0.0, 0.05);
    let mut a = hi - ratio * (hi - lo);
    let mut b = lo + ratio * (hi - lo);
    let (mut fa, mut fb) = (err(a), err(b));
    for _ in 0..60 {
        if fa < fb {
            hi = b;
            b = a;
            fb = fa;
            a = hi - ratio * (hi - lo);
            fa = err(a);
        } else {
            lo = a;
            a = b;
            fa = fb;
            b = lo + ratio * (hi - lo);
            fb = err(b);
        }
    }
    (lo + hi) / 2.0
}

/// How to train: full passes over the data, Adam's step size in centipawns (it decays
/// geometrically to a tenth by the last epoch), and the weight of an L2 penalty on each
/// weight's distance from where it started (per squared centipawn; 0 for none).
#[derive(Clone, Copy, Debug)]
pub struct Schedule {
    pub epochs: usize,
    pub rate: f64,
    pub l2: f64,
    pub scaling: Scaling,
}

/// How Adam scales each step: by each weight's own gradient history (plain Adam, every
/// weight moves at about the same speed), by the mean over its term's weights, or by the mean
/// over all weights (weights then move in proportion to their gradients, so rarely used ones,
/// whose gradients are mostly noise, move slowly).
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Scaling {
    Weight,
    Term,
    Global,
}

/// Adam on every weight. With `held_out` positions, their error is measured after every epoch
/// and the weights of the best epoch are kept (early stopping), whose number is returned.
pub fn train(
    samples: &[Sample],
    held_out: &[Sample],
    weights: &mut Weights,
    k: f64,
    schedule: Schedule,
    threads: usize,
) -> usize {
    const BETA1: f64 = 0.9;
    const BETA2: f64 = 0.999;
    const EPSILON: f64 = 1e-12;
    let Schedule { epochs, rate, l2, scaling } = schedule;
    let origin = weights.clone();
    let mut m = vec![[0.0; 2]; weights.len()];
    let mut v = vec![[0.0; 2]; weights.len()];
    let mut best = (f64::INFINITY, weights.clone(), epochs);
    // The group whose mean squared gradient scales each weight's steps (unused with plain Adam).
    let group_count = if scaling == Scaling::Global { 1 } else { Term::ALL.len() };
    let group_of: Vec<usize> = (0..weights.len())
        .map(|i| match scaling {
            Scaling::Global => 0,
            _ => Term::ALL.iter().position(|t| (t.offset()..t.offset() + t.len()).contains(&i)).unwrap_or(0),
        })
        .collect();
    let mut group_size = vec![0usize; group_count];
    group_of.iter().for_each(|&g| group_size[g] += 2);
    let start = Instant::now();
    for epoch in 1..=epochs {
        let (error, mut grad) = gradient(samples, weights, k, threads);
        let step = rate * 0.1f64.powf((epoch - 1) as f64 / epochs.max(2).saturating_sub(1) as f64);
        let (c1, c2) = (1.0 - BETA1.powi(epoch as i32), 1.0 - BETA2.powi(epoch as i32));
        for i in 0..weights.len() {
            for p in 0..2 {
                grad[i][p] += 2.0 * l2 * (weights[i][p] - origin[i][p]);
            }
        }
        // Adam's second moment, per weight or shared by a group of weights.
        let mut group_square = vec![0.0; group_count];
        for (i, g) in grad.iter().enumerate() {
            group_square[group_of[i]] += (g[0] * g[0] + g[1] * g[1]) / group_size[group_of[i]] as f64;
        }
        for i in 0..weights.len() {
            for p in 0..2 {
                let g = grad[i][p];
                m[i][p] = BETA1 * m[i][p] + (1.0 - BETA1) * g;
                let square = if scaling == Scaling::Weight { g * g } else { group_square[group_of[i]] };
                v[i][p] = BETA2 * v[i][p] + (1.0 - BETA2) * square;
                if v[i][p] > 0.0 && g != 0.0 {
                    weights[i][p] -= step * (m[i][p] / c1) / ((v[i][p] / c2).sqrt() + EPSILON);
                }
            }
        }
        let mut line = format!("tune: epoch {epoch:>5}/{epochs}  error {error:.7}");
        if !held_out.is_empty() {
            let held = self::error(held_out, weights, k, threads);
            if held < best.0 {
                best = (held, weights.clone(), epoch);
            }
            line += &format!("  held-out {held:.7}");
        }
        if epoch == 1 || epoch % 50 == 0 || epoch == epochs {
            eprintln!("{line}  step {step:.3}  {:.0} s", start.elapsed().as_secs_f64());
        }
    }
    if held_out.is_empty() {
        return epochs;
    }
    eprintln!("tune: keeping epoch {} (least held-out error, {:.7})", best.2, best.0);
    *weights = best.1;
    best.2
}

/// Moves the mean of each piece's square table (over the squares the piece can stand on) into
/// its material value. The evaluation does not change, since every piece adds both; it only
/// keeps the material weights readable as piece values.
pub fn centre_piece_square_tables(weights: &mut Weights) {
    let (material, psqt) = (Term::Material.offset(), Term::PieceSquare.offset());
    for kind in 0..6 {
        let squares: Vec<usize> = if kind == 0 { (8..56).collect() } else { (0..64).collect() };
        let table = psqt + kind * 64;
        let mean = |p: usize| squares.iter().map(|&sq| weights[table + sq][p]).sum::<f64>() / squares.len() as f64;
        let means = [mean(0), mean(1)];
        for &sq in &squares {
            let w = &mut weights[table + sq];
            *w = [w[0] - means[0], w[1] - means[1]];
        }
        // The king's material counts the same for both sides: its mean only drops out.
        if kind < 5 {
            let w = &mut weights[material + kind];
            *w = [w[0] + means[0], w[1] + means[1]];
        }
    }
}

pub fn round(weights: &[[f64; 2]]) -> Vec<S> {
    weights.iter().map(|w| S(w[0].round() as i32, w[1].round() as i32)).collect()
}

fn to_f64(weights: &[S]) -> Weights {
    weights.iter().map(|w| [w.mg() as f64, w.eg() as f64]).collect()
}

/// The whole run: load, fit K, train, write.
pub fn run(options: &Options) -> Result<(), String> {
    let start = Instant::now();
    let threads = options.threads.max(1);
    let samples = load(&options.data, threads)?;
    let coefficients: usize = samples.iter().map(|s| s.trace.coefficients.len()).sum();
    eprintln!(
        "tune: {} positions from {}, {:.1} weights used per position, traced in {:.1} s",
        samples.len(),
        options.data.display(),
        coefficients as f64 / samples.len() as f64,
        start.elapsed().as_secs_f64()
    );
    let held = ((samples.len() as f64 * options.holdout.clamp(0.0, 0.9)) as usize).min(samples.len() - 1);
    let (training, held_out) = samples.split_at(samples.len() - held);
    let initial = to_f64(WEIGHTS);
    let k = fit_k(training, &initial);
    let before = error(training, &initial, k, threads);
    eprintln!("tune: K = {k:.6}, error before {before:.7}");
    let held_before = (!held_out.is_empty()).then(|| error(held_out, &initial, k, threads));
    if let Some(e) = held_before {
        eprintln!("tune: {} positions held out, their error before {e:.7}", held_out.len());
    }

    let mut weights = initial.clone();
    let tuned = if options.epochs > 0 {
        let schedule =
            Schedule { epochs: options.epochs, rate: options.rate, l2: options.l2, scaling: options.scaling };
        train(training, held_out, &mut weights, k, schedule, threads);
        centre_piece_square_tables(&mut weights);
        round(&weights)
    } else {
        WEIGHTS.to_vec()
    };
    let after = error(training, &to_f64(&tuned), k, threads);
    eprintln!("tune: error after {after:.7} (rounded weights), {} epochs", options.epochs);
    let held_after = (!held_out.is_empty()).then(|| error(held_out, &to_f64(&tuned), k, threads));
    if let Some(e) = held_after {
        eprintln!("tune: held-out error after {e:.7}");
    }
    debug_assert_eq!(tuned.len(), WEIGHT_COUNT);
    std::fs::write(&options.out, params_file::render(&tuned))
        .map_err(|e| format!("cannot write {}: {e}", options.out.display()))?;
    eprintln!("tune: wrote {} in {:.0} s", options.out.display(), start.elapsed().as_secs_f64());
    print!("positions {} K {k:.6} error_before {before:.7} error_after {after:.7}", training.len());
    if let (Some(b), Some(a)) = (held_before, held_after) {
        print!(" held_out {} held_out_before {b:.7} held_out_after {a:.7}", held_out.len());
    }
    println!();
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::board::Board;

    fn sample(fen: &str, result: f64) -> Sample {
        Sample { trace: Trace::new(&Board::from_fen(fen).unwrap()), result }
    }

    /// The analytic gradient agrees with finite differences of the error.
    #[test]
    fn gradient_matches_finite_differences() {
        let samples = vec![
            sample("r1bq1rk1/ppp2ppp/2np1n2/2b1p3/2B1P3/2NP1N2/PPP2PPP/R1BQ1RK1 w - - 0 7", 1.0),
            sample("8/5pk1/6p1/8/8/6P1/5PK1/8 w - - 0 1", 0.5),
            sample("2r3k1/pp3ppp/8/3N4/8/1P4P1/P4P1P/2R3K1 w - - 0 30", 0.0),
            sample("8/8/4kpp1/3p1b2/p6P/2B5/6P1/6K1 b - - 0 47", 0.5),
        ];
        let weights = to_f64(WEIGHTS);
        let k = 0.01;
        let (_, grad) = gradient(&samples, &weights, k, 2);
        let mut checked = 0;
        for i in 0..weights.len() {
            for p in 0..2 {
                if grad[i][p] == 0.0 {
                    continue;
                }
                let h = 1e-2;
                let mut plus = weights.clone();
                plus[i][p] += h;
                let mut minus = weights.clone();
                minus[i][p] -= h;
                let numeric = (error(&samples, &plus, k, 1) - error(&samples, &minus, k, 1)) / (2.0 * h);
                assert!((numeric - grad[i][p]).abs() <= 1e-4 * grad[i][p].abs() + 1e-12, "weight {i}.{p}");
                checked += 1;
            }
        }
        assert!(checked > 50);
    }

    /// Centring the square tables leaves every evaluation as it was.
    #[test]
    fn centring_keeps_the_evaluation() {
        let samples = [
            sample("r1bq1rk1/ppp2ppp/2np1n2/2b1p3/2B1P3/2NP1N2/PPP2PPP/R1BQ1RK1 w - - 0 7", 1.0),
            sample("8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1", 0.5),
        ];
        let weights = to_f64(WEIGHTS);
        let mut centred = weights.clone();
        centre_piece_square_tables(&mut centred);
        for s in &samples {
            assert!((s.trace.evaluate_f64(&weights) - s.trace.evaluate_f64(&centred)).abs() < 1e-9);
        }
    }
}
