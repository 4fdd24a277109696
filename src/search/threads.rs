//! Running searches on threads: the `Searcher` the engine drives, and Lazy SMP. With more
//! than one thread, helpers search the same position at the same time, sharing only the
//! transposition table: what one thread learns there steers the others, and the main thread
//! (which alone watches the clock and reports) finishes sooner.

use super::ThreadState;
use super::params::Params;
use super::tablebase::Tablebases;
use super::time::TimeManager;
use super::tt::TranspositionTable;
use super::{Limits, Report, Shared, Worker};
use crate::board::Board;
use crate::eval::Evaluation;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

pub const MAX_THREADS: usize = 256;

/// When the search probes the tablebases (Stockfish's Syzygy options).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ProbeSettings {
    /// Probe positions of at most this many pieces (and no more than the tables have).
    pub limit: usize,
    /// Positions with as many pieces as the largest tables are probed only this deep or more.
    pub depth: i32,
    /// Whether the 50-move rule counts: cursed wins and blessed losses are draws.
    pub fifty_move_rule: bool,
}

impl ProbeSettings {
    /// Stockfish's defaults: every position the tables hold is probed, from the first ply.
    pub const DEFAULT: ProbeSettings = ProbeSettings { limit: 7, depth: 1, fifty_move_rule: true };
}

impl Default for ProbeSettings {
    fn default() -> ProbeSettings {
        ProbeSettings::DEFAULT
    }
}

/// Receives the search's reports, on the search thread.
pub type Reporter = Box<dyn FnMut(Report) + Send>;

/// Runs searches on background threads; the caller stays free to read input and to stop them.
pub struct Searcher {
    tt: Arc<TranspositionTable>,
    /// The evaluation (the built-in network unless set otherwise).
    evaluation: Evaluation,
    /// The evaluation whose static evaluations the table holds: a search that evaluates
    /// otherwise clears the table first.
    table_evaluation: Evaluation,
    tablebases: Option<Arc<Tablebases>>,
    probe: ProbeSettings,
    /// The search's constants (the defaults, but in a tuning build).
    params: Params,
    /// Each thread's learning (see `ThreadState`), kept between searches; it travels with the
    /// search and comes back when it ends.
    states: Vec<ThreadState>,
    threads: usize,
    control: Arc<Control>,
    move_overhead: Duration,
    handle: Option<JoinHandle<Vec<ThreadState>>>,
}

/// One search, ready to run on whichever thread: what `Searcher` lends it, and the threads'
/// states, which it hands back at the end.
struct Job {
    tt: Arc<TranspositionTable>,
    control: Arc<Control>,
    tablebases: Option<Arc<Tablebases>>,
    probe: ProbeSettings,
    states: Vec<ThreadState>,
    time: TimeManager,
    evaluation: Evaluation,
    params: Params,
}

impl Job {
    /// Runs the main thread here and the helpers beside it; reports through `reporter`, ending
    /// with the `BestMove`.
    fn run(mut self, board: Board, limits: Limits, mut reporter: Reporter) -> Vec<ThreadState> {
        let (main_state, helper_states) = self.states.split_first_mut().expect("at least one thread");
        let tablebases = self.tablebases.as_deref().map(|tables| (tables, self.probe));
        let control = &self.control;
        let shared = Shared { tt: &self.tt, control, evaluation: &self.evaluation, params: &self.params, tablebases };
        std::thread::scope(|scope| {
            // A limited strength is a level of the single-threaded search: helpers would
            // make it stronger, and its moves no longer repeatable under a fixed seed.
            let helpers = if limits.strength.is_some() { 0 } else { helper_states.len() };
            for (i, state) in helper_states.iter_mut().take(helpers).enumerate() {
                let (board, limits) = (board.clone(), limits.clone());
                scope.spawn(move || {
                    let time = TimeManager::new(&Limits { infinite: true, ..Limits::default() }, Duration::ZERO, 1);
                    let mut worker = Worker::new(i + 1, board, shared, state, limits, time);
                    worker.iterative_deepening(&mut (Box::new(|_| {}) as Reporter));
                });
            }
            let mut worker = Worker::new(0, board, shared, main_state, limits, self.time);
            let (best, ponder) = worker.iterative_deepening(&mut reporter);
            // The move goes out before the helpers are gathered in: a helper the operating
            // system has not scheduled for a while must not hold up the clock.
            control.stop.store(true, Ordering::SeqCst);
            reporter(Report::BestMove { best, ponder });
        });
        self.states
    }
}

/// What the threads of one search share besides the table: the flags the caller sets, and
/// node counts for reporting.
pub(super) struct Control {
    pub stop: AtomicBool,
    pub pondering: AtomicBool,
    /// When `ponderhit` came. Our clock runs from then, not from when the main thread next
    /// looks at the flags: on a busy machine that can be tens of milliseconds later.
    ponder_hit: Mutex<Option<Instant>>,
    /// Positions answered by the tablebases, all threads together.
    pub tb_hits: AtomicU64,
    nodes: Box<[AtomicU64]>,
}

impl Control {
    fn new() -> Control {
        Control {
            stop: AtomicBool::new(false),
            pondering: AtomicBool::new(false),
            ponder_hit: Mutex::new(None),
            tb_hits: AtomicU64::new(0),
            nodes: (0..MAX_THREADS).map(|_| AtomicU64::new(0)).collect(),
        }
    }

    /// When the ponder hit came, if it has.
    pub fn ponder_hit(&self) -> Option<Instant> {
        *self.ponder_hit_slot()
    }

    /// The ponder hit's instant; a thread that panicked holding it left a plain value.
    fn ponder_hit_slot(&self) -> MutexGuard<'_, Option<Instant>> {
        self.ponder_hit.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// A thread's node count, published now and then for the main thread's reports.
    pub fn publish_nodes(&self, thread: usize, nodes: u64) {
        self.nodes[thread].store(nodes, Ordering::Relaxed);
    }

    /// All threads' nodes, counting the caller's exact figure instead of its last published one.
    pub fn total_nodes(&self, thread: usize, nodes: u64) -> u64 {
        let others: u64 =
            self.nodes.iter().enumerate().filter(|&(i, _)| i != thread).map(|(_, n)| n.load(Ordering::Relaxed)).sum();
        others + nodes
    }
}

impl Searcher {
    pub fn new(hash_mb: usize) -> Searcher {
        Searcher {
            tt: Arc::new(TranspositionTable::new(hash_mb).unwrap_or_else(TranspositionTable::minimal)),
            evaluation: Evaluation::embedded(),
            table_evaluation: Evaluation::embedded(),
            tablebases: None,
            probe: ProbeSettings::default(),
            params: Params::default(),
            states: vec![ThreadState::new(&Evaluation::embedded())],
            threads: 1,
            control: Arc::new(Control::new()),
            move_overhead: Duration::from_millis(super::DEFAULT_MOVE_OVERHEAD_MS),
            handle: None,
        }
    }

    /// Resizes the transposition table (and clears it) to `mb` megabytes or, if that much
    /// cannot be had, back to `old_mb`; returns the size it got. Waits for a running search
    /// first.
    pub fn set_hash_size(&mut self, mb: usize, old_mb: usize) -> usize {
        self.wait();
        // The old table goes first, so that its memory is there for the new one.
        self.tt = Arc::new(TranspositionTable::minimal());
        for size in [mb.clamp(1, super::MAX_HASH_MB), old_mb] {
            if let Some(table) = TranspositionTable::new(size) {
                self.tt = Arc::new(table);
                return size;
            }
        }
        1
    }

    /// Forgets everything learned: transposition table and move-ordering statistics.
    pub fn clear(&mut self) {
        self.wait();
        self.tt.clear();
        for state in &mut self.states {
            state.history.clear();
        }
    }

    pub fn set_threads(&mut self, threads: usize) {
        self.wait();
        self.threads = threads.clamp(1, MAX_THREADS);
        self.states.resize_with(self.threads, || ThreadState::new(&self.evaluation));
    }

    pub fn evaluation(&self) -> &Evaluation {
        &self.evaluation
    }

    /// Evaluates with `evaluation` from now on. The table's saved evaluations belong to the
    /// old evaluation, so it is cleared.
    pub fn set_evaluation(&mut self, evaluation: Evaluation) {
        self.evaluation = evaluation;
        self.table_evaluation = self.evaluation.clone();
        self.clear();
    }

    /// Probes these tables from now on (none with `None`).
    pub fn set_tablebases(&mut self, tablebases: Option<Arc<Tablebases>>) {
        self.wait();
        self.tablebases = tablebases;
    }

    pub fn set_probe_settings(&mut self, probe: ProbeSettings) {
        self.wait();
        self.probe = probe;
    }

    pub fn set_move_overhead(&mut self, overhead: Duration) {
        self.move_overhead = overhead;
    }

    /// Sets the search constant at `index` of `TUNABLES` (an `spsa` build, for a tuner) to a
    /// value within its range, once any search has ended.
    #[cfg(feature = "spsa")]
    pub fn set_param(&mut self, index: usize, value: i32) {
        self.wait();
        self.params.set(index, value);
    }

    /// Starts searching `board` (whose history is used for repetitions) and returns at once.
    /// Reports arrive through `reporter`, ending with exactly one `Report::BestMove`.
    pub fn start(&mut self, board: Board, limits: Limits, reporter: Reporter) {
        let job = self.prepare(&limits);
        self.handle = Some(std::thread::spawn(move || job.run(board, limits, reporter)));
    }

    /// Searches `board` as `start` does, but on the calling thread, returning once the
    /// `BestMove` is out: for callers with nothing else to do meanwhile (self-play games), it
    /// saves starting a thread for every move.
    pub fn search(&mut self, board: Board, limits: Limits, reporter: Reporter) {
        let job = self.prepare(&limits);
        self.states = job.run(board, limits, reporter);
    }

    /// Everything a search needs from here, with the flags and counters reset.
    fn prepare(&mut self, limits: &Limits) -> Job {
        self.wait();
        self.control.stop.store(false, Ordering::SeqCst);
        self.control.pondering.store(limits.ponder, Ordering::SeqCst);
        *self.control.ponder_hit_slot() = None;
        for counter in self.control.nodes.iter() {
            counter.store(0, Ordering::Relaxed);
        }
        self.control.tb_hits.store(0, Ordering::Relaxed);
        self.tt.new_search();
        // A level plays with the hand-crafted evaluation: its calibration against Stockfish's
        // scale (`strength.rs`) was measured with it.
        let evaluation = if limits.strength.is_some() { Evaluation::HandCrafted } else { self.evaluation.clone() };
        if !evaluation.same_as(&self.table_evaluation) {
            self.tt.clear();
            self.table_evaluation = evaluation.clone();
        }
        Job {
            tt: Arc::clone(&self.tt),
            control: Arc::clone(&self.control),
            tablebases: self.tablebases.clone(),
            probe: self.probe,
            states: std::mem::take(&mut self.states),
            time: TimeManager::new(limits, self.move_overhead, self.params.expected_moves_left() as u32),
            evaluation,
            params: self.params.clone(),
        }
    }

    /// Asks the running search to finish now; it still sends its `BestMove`.
    pub fn stop(&self) {
        self.control.stop.store(true, Ordering::SeqCst);
    }

    /// The opponent played the move we pondered on: the search continues under the clock.
    pub fn ponderhit(&self) {
        *self.control.ponder_hit_slot() = Some(Instant::now());
        self.control.pondering.store(false, Ordering::SeqCst);
    }

    /// Whether a search has been started and not yet waited for.
    pub fn running(&self) -> bool {
        self.handle.is_some()
    }

    /// Blocks until the running search (if any) has finished and reported.
    pub fn wait(&mut self) {
        if let Some(handle) = self.handle.take() {
            let evaluation = &self.evaluation;
            self.states =
                handle.join().unwrap_or_else(|_| (0..self.threads).map(|_| ThreadState::new(evaluation)).collect());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::board::{Move, START_FEN};
    use crate::movegen::parse_move;
    use crate::search::history::PieceTo;

    /// A move records itself and its continuation key (the piece and where it went) in its
    /// ply's stack entry, which the continuation histories of the plies below read; a null move
    /// records none, so that no history is credited to it. Taking them back restores the board.
    #[test]
    fn a_move_sets_its_stack_entry() {
        let (tt, control, evaluation, params) =
            (TranspositionTable::minimal(), Control::new(), Evaluation::HandCrafted, Params::default());
        let shared = Shared { tt: &tt, control: &control, evaluation: &evaluation, params: &params, tablebases: None };
        let mut state = ThreadState::new(&evaluation);
        let board = Board::from_fen(START_FEN).unwrap();
        let time = TimeManager::new(&Limits::default(), Duration::ZERO, 30);
        let mut worker = Worker::new(0, board.clone(), shared, &mut state, Limits::default(), time);
        let knight = parse_move(&board, "g1f3").unwrap();
        worker.make_move(knight, 0);
        assert_eq!(worker.stack[0].current_move, knight);
        assert_eq!(worker.stack[0].piece_to, PieceTo::of(&board, knight));
        assert_ne!(worker.stack[0].piece_to, PieceTo::NONE);
        worker.make_null_move(1);
        assert_eq!(worker.stack[1].current_move, Move::NONE);
        assert_eq!(worker.stack[1].piece_to, PieceTo::NONE);
        worker.unmake_null_move();
        worker.unmake_move();
        assert_eq!(worker.board.to_fen(), START_FEN);
    }
}
