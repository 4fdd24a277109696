//! Running searches on threads: the `Searcher` the engine drives, and Lazy SMP. With more
//! than one thread, helpers search the same position at the same time, sharing only the
//! transposition table: what one thread learns there steers the others, and the main thread
//! (which alone watches the clock and reports) finishes sooner.
//!
//! The threads live as long as the `Threads` setting: each is created once, parks between
//! searches and keeps its learning (histories, the evaluation's buffers) from one search to
//! the next, as Stockfish's thread pool does. Starting hundreds of threads for every `go` cost
//! more than a short search, and on a machine with fewer cores than threads each new thread
//! slowed the starting of the next.

use super::ThreadState;
use super::params::Params;
use super::tablebase::Tablebases;
use super::time::TimeManager;
use super::tt::TranspositionTable;
use super::{Limits, Report, Shared, Worker};
use crate::board::Board;
use crate::eval::Evaluation;
use std::panic::AssertUnwindSafe;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Condvar, Mutex, MutexGuard, OnceLock, PoisonError, RwLock};
use std::thread::{JoinHandle, Thread};
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

/// Locks `mutex`, taking over its value if a thread panicked while holding it: what these
/// locks guard (a thread's statistics, a deadline, a pool thread's task) stays usable.
fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(PoisonError::into_inner)
}

/// Runs searches on the pool's threads; the caller stays free to read input and to stop them.
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
    /// Each search thread's learning (see `ThreadState`), the main thread's first, kept
    /// between searches.
    states: Vec<Arc<Mutex<ThreadState>>>,
    /// The thread that runs the main search of `start` (none if the system refused one).
    main: Option<PoolThread>,
    helpers: Helpers,
    control: Arc<Control>,
    watchdog: Option<Watchdog>,
    /// The running search's hard time limit, counted from when our clock starts.
    hard_limit: Option<Duration>,
    move_overhead: Duration,
    searching: bool,
}

/// One search, shared by all its threads.
struct Job {
    board: Board,
    limits: Limits,
    tt: Arc<TranspositionTable>,
    control: Arc<Control>,
    tablebases: Option<Arc<Tablebases>>,
    probe: ProbeSettings,
    evaluation: Evaluation,
    params: Params,
}

impl Job {
    fn shared(&self) -> Shared<'_> {
        Shared {
            tt: &self.tt,
            control: &self.control,
            evaluation: &self.evaluation,
            params: &self.params,
            tablebases: self.tablebases.as_deref().map(|tables| (tables, self.probe)),
        }
    }

    /// The main thread's part: searches, stops the helpers and reports, ending with the
    /// `BestMove`.
    fn lead(&self, state: &mut ThreadState, time: TimeManager, reporter: &mut Reporter) {
        let mut worker = Worker::new(0, self.board.clone(), self.shared(), state, self.limits.clone(), time);
        let (best, ponder) = worker.iterative_deepening(reporter);
        // The move goes out before the helpers have stopped: a helper the operating system
        // has not scheduled for a while must not hold up the clock.
        self.control.stop.store(true, Ordering::SeqCst);
        reporter(Report::BestMove { best, ponder });
    }

    /// A helper's part: searches until the main thread stops it, only filling the table.
    fn help(&self, id: usize, state: &mut ThreadState) {
        let time = TimeManager::new(&Limits { infinite: true, ..Limits::default() }, Duration::ZERO, &self.params);
        let mut worker = Worker::new(id, self.board.clone(), self.shared(), state, self.limits.clone(), time);
        worker.iterative_deepening(&mut (Box::new(|_| {}) as Reporter));
    }
}

/// One thread's counters, on a cache line of its own: each thread writes its own as it
/// searches, and counters sharing a line would make every write evict the others' copies.
#[repr(align(64))]
#[derive(Default)]
struct Counters {
    nodes: AtomicU64,
    /// Positions answered by the tablebases.
    tb_hits: AtomicU64,
}

/// What the threads of one search share besides the table: the flags the caller sets, and
/// counters for reporting. Aligned so that the flags, read at every node by every thread,
/// share their cache line with nothing that others write.
#[repr(align(64))]
pub(super) struct Control {
    pub stop: AtomicBool,
    pub pondering: AtomicBool,
    /// When `ponderhit` came. Our clock runs from then, not from when the main thread next
    /// looks at the flags: on a busy machine that can be tens of milliseconds later.
    ponder_hit: Mutex<Option<Instant>>,
    /// One per possible thread; the first `threads` belong to the search under way.
    counters: Box<[Counters]>,
    /// The search's number of threads: the sums read only their counters, not all 256 lines
    /// (the main thread sums them every thousand nodes).
    threads: AtomicUsize,
}

impl Control {
    fn new() -> Control {
        Control {
            stop: AtomicBool::new(false),
            pondering: AtomicBool::new(false),
            ponder_hit: Mutex::new(None),
            counters: (0..MAX_THREADS).map(|_| Counters::default()).collect(),
            threads: AtomicUsize::new(1),
        }
    }

    /// Ready for a new search on `threads` threads.
    fn reset(&self, pondering: bool, threads: usize) {
        self.stop.store(false, Ordering::SeqCst);
        self.pondering.store(pondering, Ordering::SeqCst);
        *lock(&self.ponder_hit) = None;
        self.threads.store(threads.clamp(1, MAX_THREADS), Ordering::Relaxed);
        for counters in self.active() {
            counters.nodes.store(0, Ordering::Relaxed);
            counters.tb_hits.store(0, Ordering::Relaxed);
        }
    }

    /// The counters of the search's threads.
    fn active(&self) -> &[Counters] {
        &self.counters[..self.threads.load(Ordering::Relaxed)]
    }

    /// When the ponder hit came, if it has.
    pub fn ponder_hit(&self) -> Option<Instant> {
        *lock(&self.ponder_hit)
    }

    /// A thread's node count, published now and then for the main thread's reports.
    pub fn publish_nodes(&self, thread: usize, nodes: u64) {
        self.counters[thread].nodes.store(nodes, Ordering::Relaxed);
    }

    /// All threads' nodes, counting the caller's exact figure instead of its last published one.
    pub fn total_nodes(&self, thread: usize, nodes: u64) -> u64 {
        let others: u64 = self
            .active()
            .iter()
            .enumerate()
            .filter(|&(i, _)| i != thread)
            .map(|(_, c)| c.nodes.load(Ordering::Relaxed))
            .sum();
        others + nodes
    }

    pub fn add_tb_hits(&self, thread: usize, hits: u64) {
        self.counters[thread].tb_hits.fetch_add(hits, Ordering::Relaxed);
    }

    /// Tablebase hits, all threads together.
    pub fn tb_hits(&self) -> u64 {
        self.active().iter().map(|c| c.tb_hits.load(Ordering::Relaxed)).sum()
    }
}

/// What the main search thread is doing.
enum Slot {
    Idle,
    Queued(Box<dyn FnOnce() + Send>),
    Running,
    Quit,
}

/// Where the main search thread waits for work, and its owner for the work to end.
struct Mailbox {
    slot: Mutex<Slot>,
    changed: Condvar,
}

impl Mailbox {
    /// The thread's life: run each task handed in, until told to quit.
    fn serve(&self) {
        loop {
            let task = {
                let mut slot = lock(&self.slot);
                loop {
                    match std::mem::replace(&mut *slot, Slot::Running) {
                        Slot::Queued(task) => break task,
                        Slot::Quit => return,
                        other => {
                            *slot = other;
                            slot = self.changed.wait(slot).unwrap_or_else(PoisonError::into_inner);
                        }
                    }
                }
            };
            // A search that panicked (a bug; release builds abort) must not leave its owner
            // waiting for ever.
            let _ = std::panic::catch_unwind(AssertUnwindSafe(task));
            *lock(&self.slot) = Slot::Idle;
            self.changed.notify_all();
        }
    }
}

/// The main search thread, parked while it has nothing to do.
struct PoolThread {
    mailbox: Arc<Mailbox>,
    handle: Option<JoinHandle<()>>,
}

impl PoolThread {
    fn spawn() -> std::io::Result<PoolThread> {
        let mailbox = Arc::new(Mailbox { slot: Mutex::new(Slot::Idle), changed: Condvar::new() });
        let served = Arc::clone(&mailbox);
        let handle = std::thread::Builder::new().name("search 0".into()).spawn(move || served.serve())?;
        Ok(PoolThread { mailbox, handle: Some(handle) })
    }

    /// Hands the thread a task; it must be idle (`wait` first).
    fn run(&self, task: Box<dyn FnOnce() + Send>) {
        *lock(&self.mailbox.slot) = Slot::Queued(task);
        self.mailbox.changed.notify_all();
    }

    /// Blocks until the thread has finished its task, if it has one.
    fn wait(&self) {
        let mut slot = lock(&self.mailbox.slot);
        while matches!(*slot, Slot::Queued(_) | Slot::Running) {
            slot = self.mailbox.changed.wait(slot).unwrap_or_else(PoisonError::into_inner);
        }
    }
}

impl Drop for PoolThread {
    fn drop(&mut self) {
        self.wait();
        *lock(&self.mailbox.slot) = Slot::Quit;
        self.mailbox.changed.notify_all();
        if let Some(handle) = self.handle.take() {
            // The thread has left its loop; a panic there was already contained.
            let _ = handle.join();
        }
    }
}

/// The helper threads of Lazy SMP. The search wakes the first helper, and each helper wakes
/// two more as it starts (helper k wakes helpers 2k and 2k + 1), so that no thread wakes more
/// than two and no lock is taken on the way to a search and back. Woken one by one, the waker
/// lost its core to each new helper in turn; woken all at once on one lock, the helpers queued
/// for it, and whoever held it could lose its core: with 255 helpers on 2 cores, a search
/// could take most of a second to start or to end.
struct Helpers {
    board: Arc<HelperBoard>,
    handles: Vec<JoinHandle<()>>,
}

/// What the helpers take their orders from.
struct HelperBoard {
    /// The job, written only while every helper is idle.
    job: RwLock<Option<Arc<Job>>>,
    /// Counts the jobs handed out, so that a helper takes each once; `QUIT` ends the helpers.
    generation: AtomicU64,
    /// Helpers still busy with the job.
    running: AtomicUsize,
    /// The helpers' threads, helper 1's first, for waking them.
    threads: OnceLock<Box<[Thread]>>,
    /// Where the last helper to finish says so.
    finished: Mutex<()>,
    done: Condvar,
}

/// The generation that tells the helpers to end.
const QUIT: u64 = u64::MAX;

impl Helpers {
    fn none() -> Helpers {
        let board = HelperBoard {
            job: RwLock::new(None),
            generation: AtomicU64::new(0),
            running: AtomicUsize::new(0),
            threads: OnceLock::new(),
            finished: Mutex::new(()),
            done: Condvar::new(),
        };
        Helpers { board: Arc::new(board), handles: Vec::new() }
    }

    /// Helpers searching with `states` (ids 1, 2, ...); as many as the system gives threads.
    fn spawn(states: &[Arc<Mutex<ThreadState>>]) -> Helpers {
        let mut helpers = Helpers::none();
        for (i, state) in states.iter().enumerate() {
            let (id, board, state) = (i + 1, Arc::clone(&helpers.board), Arc::clone(state));
            helpers.board.running.fetch_add(1, Ordering::AcqRel);
            let spawned =
                std::thread::Builder::new().name(format!("search {id}")).spawn(move || board.serve(id, &state));
            match spawned {
                Ok(handle) => helpers.handles.push(handle),
                Err(e) => {
                    helpers.board.running.fetch_sub(1, Ordering::AcqRel);
                    log::warn!("only {id} of {} search threads could be started: {e}", states.len() + 1);
                    break;
                }
            }
        }
        let threads = helpers.handles.iter().map(|handle| handle.thread().clone()).collect();
        // Set once, here, before any job can make a helper look for the others.
        let _ = helpers.board.threads.set(threads);
        // Back once every helper has its memory in hand (see `serve`).
        helpers.wait();
        helpers
    }

    /// Blocks until every helper has finished its job, dropping the job.
    fn wait(&self) {
        let mut finished = lock(&self.board.finished);
        while self.board.running.load(Ordering::Acquire) > 0 {
            finished = self.board.done.wait(finished).unwrap_or_else(PoisonError::into_inner);
        }
        *self.board.job.write().unwrap_or_else(PoisonError::into_inner) = None;
    }
}

impl HelperBoard {
    /// Sets the `count` helpers searching `job`; every helper must be idle (`Helpers::wait`).
    /// A limited strength is a level of the single-threaded search, so the callers start no
    /// helpers for it: they would make it stronger, and its moves no longer repeatable under a
    /// fixed seed.
    fn start(&self, job: &Arc<Job>, count: usize) {
        if count == 0 {
            return;
        }
        *self.job.write().unwrap_or_else(PoisonError::into_inner) = Some(Arc::clone(job));
        self.running.store(count, Ordering::Release);
        self.generation.fetch_add(1, Ordering::AcqRel);
        self.wake(1);
    }

    /// Wakes helper `id`, if there is one; a helper not yet parked will not park.
    fn wake(&self, id: usize) {
        if let Some(thread) = self.threads.get().and_then(|threads| threads.get(id - 1)) {
            thread.unpark();
        }
    }

    /// A helper's job is done; the last one tells whoever waits.
    fn finish(&self) {
        if self.running.fetch_sub(1, Ordering::AcqRel) == 1 {
            let _finished = lock(&self.finished);
            self.done.notify_all();
        }
    }

    /// Helper `id`'s life: search each job handed out, until told to quit. Its statistics
    /// are written through first, as a job done: memory the system hands out untouched
    /// would otherwise be faulted in during the first search, by hundreds of threads at
    /// once, and hold that search up for most of a second.
    fn serve(&self, id: usize, state: &Mutex<ThreadState>) {
        lock(state).history.clear();
        self.finish();
        let mut seen = 0;
        loop {
            let generation = loop {
                let generation = self.generation.load(Ordering::Acquire);
                if generation != seen {
                    break generation;
                }
                // Returns at once if woken since the last park, so no wake-up is lost.
                std::thread::park();
            };
            if generation == QUIT {
                return;
            }
            seen = generation;
            self.wake(2 * id);
            self.wake(2 * id + 1);
            let job = self.job.read().unwrap_or_else(PoisonError::into_inner).clone();
            if let Some(job) = job {
                // A helper that panicked (a bug; release builds abort) must not leave the
                // search waiting for ever.
                let _ = std::panic::catch_unwind(AssertUnwindSafe(|| job.help(id, &mut lock(state))));
            }
            self.finish();
        }
    }
}

impl Drop for Helpers {
    fn drop(&mut self) {
        self.wait();
        self.board.generation.store(QUIT, Ordering::Release);
        for handle in self.handles.drain(..) {
            handle.thread().unpark();
            // The thread has left its loop; a panic there was already contained.
            let _ = handle.join();
        }
    }
}

/// Stops the search at its hard time limit, from a thread of its own that sleeps until then.
/// With more search threads than cores the main thread may wait long for a turn on one, and
/// would see its limit only after its next thousand nodes; the stop flag, read at every node,
/// sends every thread back to the pool at its next turn, leaving the cores to the main thread.
struct Watchdog {
    shared: Arc<WatchdogShared>,
    handle: Option<JoinHandle<()>>,
}

struct WatchdogShared {
    /// When to stop the search; `Err(())` tells the thread to end.
    deadline: Mutex<Result<Option<Instant>, ()>>,
    changed: Condvar,
    control: Arc<Control>,
}

impl Watchdog {
    fn spawn(control: Arc<Control>) -> std::io::Result<Watchdog> {
        let shared = Arc::new(WatchdogShared { deadline: Mutex::new(Ok(None)), changed: Condvar::new(), control });
        let watched = Arc::clone(&shared);
        let handle = std::thread::Builder::new().name("search clock".into()).spawn(move || watched.watch())?;
        Ok(Watchdog { shared, handle: Some(handle) })
    }

    /// Stop the search at `deadline` (never, with `None`), instead of any earlier deadline.
    fn set(&self, deadline: Option<Instant>) {
        let mut current = lock(&self.shared.deadline);
        // Only a new deadline wakes the thread: one taken away is read when it next wakes
        // anyway. Waking it twice a search cost data generation, a search every few hundred
        // nodes, a twentieth of its time in system calls.
        let wake = deadline.is_some() && *current != Ok(deadline);
        *current = Ok(deadline);
        drop(current);
        if wake {
            self.shared.changed.notify_all();
        }
    }
}

impl WatchdogShared {
    fn watch(&self) {
        let mut deadline = lock(&self.deadline);
        loop {
            let wait = match *deadline {
                Err(()) => return,
                Ok(None) => None,
                Ok(Some(at)) => match at.checked_duration_since(Instant::now()) {
                    Some(left) if !left.is_zero() => Some(left),
                    _ => {
                        self.control.stop.store(true, Ordering::SeqCst);
                        *deadline = Ok(None);
                        None
                    }
                },
            };
            deadline = match wait {
                Some(left) => self.changed.wait_timeout(deadline, left).unwrap_or_else(PoisonError::into_inner).0,
                None => self.changed.wait(deadline).unwrap_or_else(PoisonError::into_inner),
            };
        }
    }
}

impl Drop for Watchdog {
    fn drop(&mut self) {
        *lock(&self.shared.deadline) = Err(());
        self.shared.changed.notify_all();
        if let Some(handle) = self.handle.take() {
            let _ = handle.join();
        }
    }
}

impl Searcher {
    pub fn new(hash_mb: usize) -> Searcher {
        let control = Arc::new(Control::new());
        let watchdog = Watchdog::spawn(Arc::clone(&control))
            .inspect_err(|e| {
                log::warn!("no thread for the search's clock ({e}): time limits are checked by the search alone")
            })
            .ok();
        let mut searcher = Searcher {
            tt: Arc::new(TranspositionTable::new(hash_mb).unwrap_or_else(TranspositionTable::minimal)),
            evaluation: Evaluation::embedded(),
            table_evaluation: Evaluation::embedded(),
            tablebases: None,
            probe: ProbeSettings::default(),
            params: Params::default(),
            states: Vec::new(),
            main: None,
            helpers: Helpers::none(),
            control,
            watchdog,
            hard_limit: None,
            move_overhead: Duration::from_millis(super::DEFAULT_MOVE_OVERHEAD_MS),
            searching: false,
        };
        searcher.set_threads(1);
        searcher
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
        self.clear_table();
        for state in &self.states {
            lock(state).history.clear();
        }
    }

    /// Empties the transposition table in place, which needs it to be ours alone: once `wait`
    /// has returned, no search's job holds it any longer. Should one still do, a new table of
    /// the same size is as empty.
    fn clear_table(&mut self) {
        match Arc::get_mut(&mut self.tt) {
            Some(tt) => tt.clear(),
            None => self.tt = Arc::new(self.tt.emptied()),
        }
    }

    /// Searches with `threads` threads from now on. Should the system refuse a thread, the
    /// search runs on those it has (at worst the caller's: see `start`).
    pub fn set_threads(&mut self, threads: usize) {
        self.wait();
        let threads = threads.clamp(1, MAX_THREADS);
        if self.main.is_none() {
            self.main = PoolThread::spawn()
                .inspect_err(|e| log::warn!("no thread to search on ({e}): searching on the input's thread"))
                .ok();
        }
        if threads != self.states.len() {
            // The old helpers end first, so that their memory is there for the new ones.
            self.helpers = Helpers::none();
            let evaluation = &self.evaluation;
            self.states.resize_with(threads, || Arc::new(Mutex::new(ThreadState::new(evaluation))));
            self.helpers = Helpers::spawn(&self.states[1..]);
        }
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
    pub fn start(&mut self, board: Board, limits: Limits, mut reporter: Reporter) {
        let (job, time) = self.prepare(board, limits);
        let state = Arc::clone(&self.states[0]);
        let helpers = Arc::clone(&self.helpers.board);
        let count = self.helpers.handles.len();
        // The main thread wakes the helpers, so that the caller can go back to its input.
        let task = move || {
            if job.limits.strength.is_none() {
                helpers.start(&job, count);
            }
            job.lead(&mut lock(&state), time, &mut reporter);
        };
        self.searching = true;
        match &self.main {
            Some(thread) => thread.run(Box::new(task)),
            // No thread to search on: better late than never.
            None => task(),
        }
    }

    /// Searches `board` as `start` does, but on the calling thread, returning once every
    /// thread has finished: for callers with nothing else to do meanwhile (self-play games,
    /// `bench`), it saves handing the search to another thread for every move.
    pub fn search(&mut self, board: Board, limits: Limits, mut reporter: Reporter) {
        let (job, time) = self.prepare(board, limits);
        self.searching = true;
        if job.limits.strength.is_none() {
            self.helpers.board.start(&job, self.helpers.handles.len());
        }
        job.lead(&mut lock(&self.states[0]), time, &mut reporter);
        self.wait();
    }

    /// Everything a search needs from here, with the flags and counters reset and the
    /// clock's deadline set.
    fn prepare(&mut self, board: Board, limits: Limits) -> (Arc<Job>, TimeManager) {
        self.wait();
        // The last search's deadline must not stop this one.
        self.set_deadline(None);
        self.control.reset(limits.ponder, self.states.len());
        self.tt.new_search();
        // A level plays with the hand-crafted evaluation: its calibration against Stockfish's
        // scale (`strength.rs`) was measured with it.
        let evaluation = if limits.strength.is_some() { Evaluation::HandCrafted } else { self.evaluation.clone() };
        if !evaluation.same_as(&self.table_evaluation) {
            self.clear_table();
            self.table_evaluation = evaluation.clone();
        }
        let time = TimeManager::new(&limits, self.move_overhead, &self.params);
        self.hard_limit = time.maximum();
        if !limits.ponder {
            self.set_deadline(self.hard_limit.map(|limit| time.clock_start() + limit));
        }
        let job = Job {
            board,
            limits,
            tt: Arc::clone(&self.tt),
            control: Arc::clone(&self.control),
            tablebases: self.tablebases.clone(),
            probe: self.probe,
            evaluation,
            params: self.params.clone(),
        };
        (Arc::new(job), time)
    }

    fn set_deadline(&self, deadline: Option<Instant>) {
        if let Some(watchdog) = &self.watchdog {
            watchdog.set(deadline);
        }
    }

    /// Asks the running search to finish now; it still sends its `BestMove`.
    pub fn stop(&self) {
        self.control.stop.store(true, Ordering::SeqCst);
    }

    /// The opponent played the move we pondered on: the search continues under the clock.
    pub fn ponderhit(&self) {
        let now = Instant::now();
        *lock(&self.control.ponder_hit) = Some(now);
        self.control.pondering.store(false, Ordering::SeqCst);
        if self.searching {
            self.set_deadline(self.hard_limit.map(|limit| now + limit));
        }
    }

    /// Whether a search has been started and not yet waited for.
    pub fn running(&self) -> bool {
        self.searching
    }

    /// Blocks until the running search (if any) has finished and reported, and every thread
    /// is parked again.
    pub fn wait(&mut self) {
        if let Some(main) = &self.main {
            main.wait();
        }
        self.helpers.wait();
        self.searching = false;
    }
}

impl Drop for Searcher {
    /// A search still running (`go infinite`) is stopped, so that the pool's threads can end.
    fn drop(&mut self) {
        self.stop();
        self.wait();
    }
}
#[cfg(test)]
mod tests {
    use super::*;
    use crate::board::{Move, START_FEN};
    use crate::movegen::legal_moves;
    use crate::movegen::parse_move;
    use crate::search::PUBLISH_INTERVAL;
    use crate::search::history::{Continuations, PieceTo};
    use std::sync::mpsc;

    /// Whether each thread's statistics hold anything for White's first move.
    fn learned(searcher: &Searcher) -> Vec<bool> {
        let board = Board::from_fen(START_FEN).unwrap();
        let none = Continuations([PieceTo::NONE; 2]);
        let knows =
            |state: &ThreadState| legal_moves(&board).iter().any(|mv| state.history.quiet_score(&board, mv, none) != 0);
        searcher.states.iter().map(|state| knows(&lock(state))).collect()
    }

    /// Each thread's published node count.
    fn published(searcher: &Searcher) -> Vec<u64> {
        searcher.control.active().iter().map(|c| c.nodes.load(Ordering::Relaxed)).collect()
    }

    /// Searches the start position with `go infinite` until every thread has searched
    /// `nodes`, then sends `stop`; returns the most nodes any thread published after `stop`,
    /// and the move. Nodes, not milliseconds, on both sides of the stop: a loaded machine
    /// delays a thread but adds no nodes, so it cannot fail the test.
    fn search_for(searcher: &mut Searcher, nodes: u64) -> (u64, Option<Move>) {
        let (sender, receiver) = mpsc::channel();
        let limits = Limits { infinite: true, ..Limits::default() };
        searcher.start(Board::from_fen(START_FEN).unwrap(), limits, Box::new(move |r| sender.send(r).unwrap()));
        let started = Instant::now();
        while published(searcher).iter().any(|&n| n < nodes) {
            assert!(started.elapsed() < Duration::from_secs(60), "a thread never reached {nodes} nodes");
            std::thread::sleep(Duration::from_millis(5));
        }
        searcher.stop();
        let at_stop = published(searcher);
        searcher.wait();
        let after = published(searcher).iter().zip(at_stop).map(|(end, stop)| end - stop).max();
        let best = receiver.try_iter().find_map(|report| match report {
            Report::BestMove { best, .. } => Some(best),
            Report::Info(_) | Report::CurrMove { .. } => None,
        });
        (after.unwrap_or(0), best.expect("one BestMove"))
    }

    /// The helpers are started once and keep what they learn from one search to the next,
    /// until a new game (`clear`) wipes it; `stop` sends every thread back to the pool at its
    /// next node. A thread publishes its count every `PUBLISH_INTERVAL` nodes, so one that
    /// stops at once shows at most one more step; one that went on to its iteration's end
    /// would show many.
    #[test]
    fn the_pool_keeps_its_threads_and_their_learning() {
        let mut searcher = Searcher::new(4);
        searcher.set_threads(3);
        let ids = |searcher: &Searcher| searcher.helpers.handles.iter().map(|h| h.thread().id()).collect::<Vec<_>>();
        let helpers = ids(&searcher);
        assert_eq!(helpers.len(), 2);
        assert_eq!(learned(&searcher), [false; 3]);
        for _ in 0..2 {
            let (after_stop, best) = search_for(&mut searcher, 50_000);
            assert!(best.is_some());
            assert!(after_stop <= PUBLISH_INTERVAL, "a thread searched {after_stop} nodes after stop");
            assert_eq!(learned(&searcher), [true; 3]);
            assert_eq!(ids(&searcher), helpers);
        }
        searcher.clear();
        assert_eq!(learned(&searcher), [false; 3]);
        searcher.set_threads(5);
        assert_eq!(ids(&searcher).len(), 4);
        assert_eq!(learned(&searcher), [false; 5]);
    }

    /// The hard time limit stops the search even when the main thread is one of many more
    /// threads than cores: the clock's own thread raises the stop flag, and every thread
    /// steps aside at its next node.
    #[test]
    fn many_threads_stop_at_the_time_limit() {
        let mut searcher = Searcher::new(4);
        searcher.set_threads(32);
        for _ in 0..3 {
            let (sender, receiver) = mpsc::channel();
            let limits = Limits { movetime: Some(Duration::from_millis(30)), ..Limits::default() };
            let start = Instant::now();
            searcher.start(Board::from_fen(START_FEN).unwrap(), limits, Box::new(move |r| sender.send(r).unwrap()));
            let best = receiver.iter().find_map(|report| match report {
                Report::BestMove { best, .. } => Some(best),
                Report::Info(_) | Report::CurrMove { .. } => None,
            });
            let took = start.elapsed();
            assert!(best.flatten().is_some());
            assert!(took < Duration::from_millis(30 + 300), "a 30 ms search took {took:?}");
        }
    }

    /// A helper stops at the node limit by itself, all threads' nodes counted: here the main
    /// thread never runs at all, as when it waits long for a core, and the test raises the stop
    /// flag only after ten seconds, far past the limit.
    #[test]
    fn a_helper_keeps_to_the_node_limit_alone() {
        let (tt, control, evaluation, params) =
            (TranspositionTable::minimal(), Control::new(), Evaluation::HandCrafted, Params::default());
        control.reset(false, 2);
        control.publish_nodes(0, 5_000);
        let shared = Shared { tt: &tt, control: &control, evaluation: &evaluation, params: &params, tablebases: None };
        let mut state = ThreadState::new(&evaluation);
        let limits = Limits { nodes: Some(30_000), ..Limits::default() };
        let time = TimeManager::new(&Limits { infinite: true, ..Limits::default() }, Duration::ZERO, &params);
        let (done, finished) = mpsc::channel();
        let nodes = std::thread::scope(|scope| {
            let helper = scope.spawn(|| {
                let mut worker = Worker::new(1, Board::from_fen(START_FEN).unwrap(), shared, &mut state, limits, time);
                worker.iterative_deepening(&mut (Box::new(|_| {}) as Reporter));
                let _ = done.send(());
                worker.nodes
            });
            if finished.recv_timeout(Duration::from_secs(10)).is_err() {
                control.stop.store(true, Ordering::SeqCst);
            }
            helper.join().expect("the helper's search")
        });
        assert!(nodes + 5_000 <= 30_000 + PUBLISH_INTERVAL, "the helper searched {nodes} nodes");
    }

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
        let time = TimeManager::new(&Limits::default(), Duration::ZERO, &Params::default());
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
