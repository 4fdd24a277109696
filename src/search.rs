//! The search. (Interface in place; the algorithm lands in the next commit.)

mod limits;

pub use limits::{Bound, Clock, Info, Limits, Report, Score};

use crate::board::Board;
use crate::movegen::legal_moves;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

pub const DEFAULT_HASH_MB: usize = 16;
pub const MAX_HASH_MB: usize = 65536;
pub const MAX_THREADS: usize = 1;

/// Receives the search's reports, on the search thread.
pub type Reporter = Box<dyn FnMut(Report) + Send>;

/// Runs searches on a background thread; the caller stays free to read input and to stop it.
pub struct Searcher {
    stop: Arc<AtomicBool>,
    pondering: Arc<AtomicBool>,
    move_overhead: Duration,
    handle: Option<JoinHandle<()>>,
}

impl Searcher {
    pub fn new(_hash_mb: usize) -> Searcher {
        Searcher {
            stop: Arc::new(AtomicBool::new(false)),
            pondering: Arc::new(AtomicBool::new(false)),
            move_overhead: Duration::from_millis(10),
            handle: None,
        }
    }

    /// Resizes the transposition table (and clears it). Waits for a running search first.
    pub fn set_hash_size(&mut self, _mb: usize) {
        self.wait();
    }

    /// Forgets everything learned: transposition table and move-ordering statistics.
    pub fn clear(&mut self) {
        self.wait();
    }

    pub fn set_threads(&mut self, _threads: usize) {
        self.wait();
    }

    pub fn set_move_overhead(&mut self, overhead: Duration) {
        self.move_overhead = overhead;
    }

    /// Starts searching `board` (whose history is used for repetitions) and returns at once.
    /// Reports arrive through `reporter`, ending with exactly one `Report::BestMove`.
    pub fn start(&mut self, board: Board, limits: Limits, mut reporter: Reporter) {
        self.wait();
        self.stop.store(false, Ordering::SeqCst);
        self.pondering.store(limits.ponder, Ordering::SeqCst);
        let stop = Arc::clone(&self.stop);
        self.handle = Some(std::thread::spawn(move || {
            let start = Instant::now();
            let best = legal_moves(&board).iter().next();
            let _ = stop.load(Ordering::Relaxed);
            reporter(Report::Info(Info {
                depth: 1,
                seldepth: 1,
                score: Score::Centipawns(0),
                bound: Bound::Exact,
                nodes: 1,
                elapsed: start.elapsed(),
                hashfull: 0,
                pv: best.into_iter().collect(),
            }));
            reporter(Report::BestMove { best, ponder: None });
        }));
    }

    /// Asks the running search to finish now; it still sends its `BestMove`.
    pub fn stop(&self) {
        self.stop.store(true, Ordering::SeqCst);
    }

    /// The opponent played the move we pondered on: the search continues under the clock.
    pub fn ponderhit(&self) {
        self.pondering.store(false, Ordering::SeqCst);
    }

    pub fn is_searching(&self) -> bool {
        self.handle.as_ref().is_some_and(|h| !h.is_finished())
    }

    /// Blocks until the running search (if any) has finished and reported.
    pub fn wait(&mut self) {
        if let Some(handle) = self.handle.take() {
            let _ = handle.join();
        }
    }
}
