//! `sentinel datagen`: self-play games whose positions train the evaluation.
//!
//! Each game starts from a position of the openings file, followed by a few random legal
//! plies and kept only if a short search finds it balanced, and every move is chosen by a
//! search of a fixed number of nodes (a soft limit that
//! lets the iteration under way finish, and a hard one that does not). Quiet positions of each
//! game are written as packed records (`packed`) with the search's score and the game's result.
//! Game `i` depends only on the seed and `i`, so a run is reproducible whatever the number of
//! threads (only the order of the games in the file changes). A run appends to an existing
//! file, so a stopped run is continued by starting another with a new seed.

use super::packed::{self, Record};
use crate::board::Board;
use crate::eval::Evaluation;
use crate::openings::{self, search_nodes};
use crate::rules::GameResult;
use crate::search::{Score, Searcher};
use rand::{RngExt, rngs::StdRng};
use std::fs::{File, OpenOptions};
use std::io::{BufWriter, Read, Seek, SeekFrom, Write};
use std::path::PathBuf;
use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

/// Random plies played after the opening position, at least and at most.
const RANDOM_PLIES: (u32, u32) = (2, 8);
/// A start whose verification search (of VERIFY_NODES) scores beyond VERIFY_SCORE for either
/// side is drawn again: a game decided before it begins teaches little, and random plies
/// often blunder.
const VERIFY_NODES: u64 = 5000;
const VERIFY_SCORE: i32 = 400;
/// Draws of a start before the last one is kept however lopsided (some openings have no
/// balanced continuation).
const START_TRIES: u32 = 20;
/// Plies after the random ones that are never sampled: the game has not settled yet.
const SKIP_PLIES: u32 = 8;
/// A game this long (in plies after the opening) is adjudicated a draw.
const MAX_PLIES: u32 = 300;
/// Scores beyond this, given by both sides for `WIN_PLIES` plies in a row, end the game.
const WIN_SCORE: i32 = 1000;
const WIN_PLIES: u32 = 8;
/// Hash table per worker; cleared between games.
const HASH_MB: usize = 8;

#[derive(Clone, Debug)]
pub struct Options {
    pub games: u64,
    /// Nodes per move: no new iteration starts after `nodes`; none goes beyond `hard_nodes`.
    pub nodes: u64,
    pub hard_nodes: u64,
    pub threads: usize,
    pub out: PathBuf,
    pub seed: u64,
    pub openings: PathBuf,
    /// Positions sampled per game, at most.
    pub per_game: usize,
    /// Start no new game after this long.
    pub max_time: Option<Duration>,
    /// The evaluation the games are played with.
    pub evaluation: Evaluation,
}

pub struct Game {
    pub result: GameResult,
    pub plies: u32,
    /// The sampled quiet positions, labelled with the result.
    pub samples: Vec<Record>,
}

#[derive(Default, Debug)]
pub struct Summary {
    pub games: u64,
    pub positions: u64,
    pub white_wins: u64,
    pub draws: u64,
    pub black_wins: u64,
    pub plies: u64,
}

/// Plays the games on `options.threads` workers, appending each game's positions to the
/// output as soon as it ends, and reports progress on stderr.
pub fn run(options: &Options) -> Result<Summary, String> {
    let openings = openings::read_book(&options.openings)?;
    let out = Mutex::new(BufWriter::new(open_for_append(&options.out)?));
    let next_game = AtomicU64::new(0);
    let summary = Mutex::new(Summary::default());
    let start = Instant::now();
    let last_report = Mutex::new(Instant::now());
    let error = Mutex::new(None);
    eprintln!(
        "datagen: {} games, {} nodes per move, {} threads, {} openings, seed {}",
        options.games,
        options.nodes,
        options.threads,
        openings.len(),
        options.seed
    );
    std::thread::scope(|scope| {
        for _ in 0..options.threads.max(1) {
            scope.spawn(|| {
                let mut searcher = Searcher::new(HASH_MB);
                searcher.set_evaluation(options.evaluation.clone());
                loop {
                    if options.max_time.is_some_and(|limit| start.elapsed() >= limit) {
                        break;
                    }
                    let index = next_game.fetch_add(1, Ordering::Relaxed);
                    if index >= options.games || error.lock().unwrap().is_some() {
                        break;
                    }
                    searcher.clear();
                    let game = play_game(&mut searcher, &openings, options, index);
                    let bytes: Vec<u8> = game.samples.iter().flat_map(|r| *r.bytes()).collect();
                    {
                        let mut out = out.lock().unwrap();
                        if let Err(e) = out.write_all(&bytes).and_then(|_| out.flush()) {
                            *error.lock().unwrap() = Some(format!("cannot write {}: {e}", options.out.display()));
                            break;
                        }
                    }
                    let mut s = summary.lock().unwrap();
                    s.games += 1;
                    s.positions += game.samples.len() as u64;
                    s.plies += game.plies as u64;
                    match game.result {
                        GameResult::WhiteWins => s.white_wins += 1,
                        GameResult::BlackWins => s.black_wins += 1,
                        GameResult::Draw => s.draws += 1,
                    }
                    let mut last = last_report.lock().unwrap();
                    if last.elapsed() >= Duration::from_secs(30) {
                        *last = Instant::now();
                        report_progress(&s, options.games, start.elapsed());
                    }
                }
            });
        }
    });
    if let Some(e) = error.into_inner().unwrap() {
        return Err(e);
    }
    let summary = summary.into_inner().unwrap();
    report_progress(&summary, options.games, start.elapsed());
    Ok(summary)
}

/// Opens the output for appending: a new file gets a header, an existing one must have a valid
/// header, and a record cut short by a killed run is dropped.
fn open_for_append(path: &PathBuf) -> Result<File, String> {
    let cannot = |e: std::io::Error| format!("cannot open {}: {e}", path.display());
    let mut file = OpenOptions::new().read(true).write(true).create(true).truncate(false).open(path).map_err(cannot)?;
    let length = file.metadata().map_err(cannot)?.len();
    if length == 0 {
        packed::write_header(&mut file).map_err(cannot)?;
        return Ok(file);
    }
    let mut header = vec![0; packed::HEADER_SIZE.min(length as usize)];
    file.read_exact(&mut header).map_err(cannot)?;
    packed::check_header(&header).map_err(|e| format!("{}: {e}", path.display()))?;
    let records = (length - packed::HEADER_SIZE as u64) / packed::RECORD_SIZE as u64;
    let whole = packed::HEADER_SIZE as u64 + records * packed::RECORD_SIZE as u64;
    if whole != length {
        eprintln!("datagen: dropping a partial record at the end of {} (offset {whole})", path.display());
        file.set_len(whole).map_err(cannot)?;
    }
    eprintln!("datagen: appending to {} ({records} positions already)", path.display());
    file.seek(SeekFrom::End(0)).map_err(cannot)?;
    Ok(file)
}

fn report_progress(s: &Summary, total: u64, elapsed: Duration) {
    let seconds = elapsed.as_secs_f64().max(1e-3);
    let rate = s.games as f64 / seconds;
    let eta = if rate > 0.0 { total.saturating_sub(s.games) as f64 / rate } else { 0.0 };
    eprintln!(
        "datagen: {}/{} games, {} positions, +{} ={} -{} (White), {:.1} plies/game, {:.0} s, {:.2} games/s, eta {:.0} s",
        s.games,
        total,
        s.positions,
        s.white_wins,
        s.draws,
        s.black_wins,
        s.plies as f64 / s.games.max(1) as f64,
        seconds,
        rate,
        eta
    );
}

/// A position of the openings followed by a few random legal plies, with its history starting
/// there, so that repetitions count from it on.
fn random_start(openings: &[Board], rng: &mut StdRng) -> Board {
    let board = &openings[rng.random_range(0..openings.len())];
    let plies = rng.random_range(RANDOM_PLIES.0..=RANDOM_PLIES.1);
    openings::random_plies(board, plies, rng).0
}

/// Game number `index` of a run: its opening, random plies and sampling depend only on the
/// seed and the index.
pub fn play_game(searcher: &mut Searcher, openings: &[Board], options: &Options, index: u64) -> Game {
    let mut rng = openings::rng_for(options.seed, index);
    let mut board = random_start(openings, &mut rng);
    for _ in 1..START_TRIES {
        let balanced = match search_nodes(searcher, &board, VERIFY_NODES, VERIFY_NODES * 4) {
            (Some(_), Some(Score::Centipawns(cp))) => cp.abs() <= VERIFY_SCORE,
            _ => false,
        };
        searcher.clear();
        if balanced {
            break;
        }
        board = random_start(openings, &mut rng);
    }

    let mut candidates = Vec::new();
    let mut streak: (i32, u32) = (0, 0); // sign of the winning side, plies in a row
    let mut plies = 0;
    let result = loop {
        let us = board.side_to_move();
        if let Some(end) = board.game_end() {
            break end.result;
        }
        if plies >= MAX_PLIES {
            break GameResult::Draw;
        }
        let (best, score) = search_nodes(searcher, &board, options.nodes, options.hard_nodes);
        let best = best.expect("a position with legal moves has a best move");
        let white_score = match score {
            Some(Score::Centipawns(cp)) => cp * us.sign(),
            Some(Score::Mate(n)) => (if n > 0 { 30000 } else { -30000 }) * us.sign(),
            None => 0,
        };
        let winner = if white_score > WIN_SCORE {
            1
        } else if white_score < -WIN_SCORE {
            -1
        } else {
            0
        };
        streak = if winner != 0 && winner == streak.0 { (winner, streak.1 + 1) } else { (winner, 1) };
        if streak.0 != 0 && streak.1 >= WIN_PLIES {
            break if streak.0 > 0 { GameResult::WhiteWins } else { GameResult::BlackWins };
        }
        let quiet = !board.in_check() && !best.is_noisy() && matches!(score, Some(Score::Centipawns(_)));
        if quiet && plies >= SKIP_PLIES {
            // The result is not known yet; it is filled in when the game ends.
            let clamped = white_score.clamp(i16::MIN as i32, i16::MAX as i32) as i16;
            candidates.push(Record::pack(&board, clamped, GameResult::Draw));
        }
        board.make_move(best);
        plies += 1;
    };

    // A handful of the quiet positions, chosen at random, in game order.
    let keep = options.per_game.min(candidates.len());
    let mut chosen: Vec<usize> = (0..candidates.len()).collect();
    for i in 0..keep {
        let j = rng.random_range(i..chosen.len());
        chosen.swap(i, j);
    }
    chosen.truncate(keep);
    chosen.sort_unstable();
    let samples = chosen.into_iter().map(|i| candidates[i].with_outcome(result)).collect();
    Game { result, plies, samples }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::movegen::legal_moves;

    #[test]
    fn tiny_run_writes_labelled_quiet_positions() {
        let dir = std::env::temp_dir().join(format!("sentinel-datagen-test-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let openings = dir.join("openings.fen");
        std::fs::write(
            &openings,
            "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1\n\
             r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - 2 3\n",
        )
        .unwrap();
        let options = Options {
            games: 3,
            nodes: 300,
            hard_nodes: 3000,
            threads: 2,
            out: dir.join("data.bin"),
            seed: 5,
            openings,
            per_game: 6,
            max_time: None,
            evaluation: Evaluation::HandCrafted,
        };
        let summary = run(&options).unwrap();
        assert_eq!(summary.games, 3);
        let read = |path: &PathBuf| packed::read_all(&mut File::open(path).unwrap());
        let (records, error) = read(&options.out);
        assert_eq!(error, None);
        assert_eq!(records.len() as u64, summary.positions);
        assert!(summary.positions > 0);
        for record in &records {
            let fen = record.to_fen();
            let board = Board::from_fen(&fen).expect(&fen);
            assert!(!board.in_check(), "{fen}");
            assert!(!legal_moves(&board).is_empty(), "{fen}");
            assert!(record.white_score().abs() < 30000, "{fen}");
        }

        // A second run appends, and a record cut short by a killed run is dropped first.
        let length = std::fs::metadata(&options.out).unwrap().len();
        OpenOptions::new().append(true).open(&options.out).unwrap().write_all(&[1, 2, 3]).unwrap();
        let more = run(&Options { games: 1, seed: 6, ..options.clone() }).unwrap();
        let (again, error) = read(&options.out);
        assert_eq!(error, None);
        assert_eq!(again.len() as u64, summary.positions + more.positions);
        assert_eq!(&again[..records.len()], &records[..]);
        assert!(std::fs::metadata(&options.out).unwrap().len() > length);

        // The same seed gives the same games.
        let mut searcher = Searcher::new(1);
        let openings = openings::read_book(&options.openings).unwrap();
        let a = play_game(&mut searcher, &openings, &options, 1);
        searcher.clear();
        let b = play_game(&mut searcher, &openings, &options, 1);
        assert_eq!((a.result, a.plies, a.samples), (b.result, b.plies, b.samples));
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
