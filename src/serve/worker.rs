//! The one engine the server has, on a thread of its own, and the queue in front of it. Every
//! request that searches becomes a job; jobs wait in a bounded queue (a full one refuses the
//! next request at once) and run one at a time, each setting the engine's options and position
//! and starting its search with `EngineCommand`s, as a GUI would over UCI. A job watches its
//! client while it searches: when the client has gone (or asked to stop), or the owner's time
//! limit is reached, it sends `Stop`, and the engine answers with the best move so far.

use super::Config;
use super::error::ApiError;
use crate::engine::options::OptionId;
use crate::engine::{Engine, EngineCommand, Info, Limits, Move, Outcome, Report, SearchId, Setup};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError, SyncSender, TrySendError};
use std::time::{Duration, Instant};

/// Work for the engine: it gets the engine's driver to itself until it returns.
pub type Job = Box<dyn FnOnce(&mut Driver) + Send>;

/// How often a running search looks at its client and the clock.
const WATCH_EVERY: Duration = Duration::from_millis(20);

/// How long a stopped search may take to answer before the job gives up on it: far beyond what
/// any search takes to unwind, so only a fault would reach it.
const STOP_GRACE: Duration = Duration::from_secs(10);

/// The queue's side of the engine: where handlers put jobs.
#[derive(Clone)]
pub struct Queue {
    jobs: SyncSender<Job>,
    state: Arc<State>,
}

/// What the queue and the engine's thread both see.
struct State {
    capacity: usize,
    waiting: AtomicUsize,
    running: AtomicBool,
    served: AtomicU64,
    refused: AtomicU64,
    /// When the running search must end at the latest, in milliseconds from `start`.
    busy_until: AtomicU64,
    start: Instant,
}

impl State {
    fn now_ms(&self) -> u64 {
        self.start.elapsed().as_millis() as u64
    }
}

/// The queue's figures, for `GET /api/status`.
#[derive(serde::Serialize)]
pub struct Status {
    pub capacity: usize,
    pub waiting: usize,
    pub running: bool,
    pub served: u64,
    pub refused: u64,
}

impl Queue {
    /// Starts the engine with the owner's threads, table and tablebases, on its own thread.
    pub fn start(config: &Config) -> Result<Queue, String> {
        let (reports_in, reports) = mpsc::channel();
        let sink: crate::engine::ReportSink = Arc::new(move |id, report| {
            // The receiver goes only when the engine's thread ends.
            let _ = reports_in.send((id, report));
        });
        let mut engine = Engine::new(sink);
        let mut set = |option: OptionId, value: String| {
            engine
                .execute(EngineCommand::SetOption { option, value: Some(value) })
                .map(|_| ())
                .map_err(|e| e.to_string())
        };
        set(OptionId::Threads, config.threads.to_string())?;
        set(OptionId::Hash, config.hash_mb.to_string())?;
        if let Some(path) = &config.syzygy_path {
            set(OptionId::SyzygyPath, path.clone())?;
        }
        let state = Arc::new(State {
            capacity: config.limits.queue,
            waiting: AtomicUsize::new(0),
            running: AtomicBool::new(false),
            served: AtomicU64::new(0),
            refused: AtomicU64::new(0),
            busy_until: AtomicU64::new(0),
            start: Instant::now(),
        });
        let (jobs, incoming) = mpsc::sync_channel::<Job>(config.limits.queue);
        let mut driver = Driver { engine, reports, max_time: config.limits.max_movetime, state: Arc::clone(&state) };
        let thread_state = Arc::clone(&state);
        std::thread::Builder::new()
            .name("engine".to_string())
            .spawn(move || {
                for job in incoming {
                    thread_state.waiting.fetch_sub(1, Ordering::SeqCst);
                    thread_state.running.store(true, Ordering::SeqCst);
                    job(&mut driver);
                    thread_state.running.store(false, Ordering::SeqCst);
                    thread_state.served.fetch_add(1, Ordering::SeqCst);
                }
                let _ = driver.engine.execute(EngineCommand::Quit);
            })
            .map_err(|e| format!("cannot start the engine's thread: {e}"))?;
        Ok(Queue { jobs, state })
    }

    /// Queues a job, or refuses it at once when the queue is full, with the seconds until the
    /// running search must end (at least one) as the time to try again.
    pub fn submit(&self, job: Job) -> Result<(), ApiError> {
        self.state.waiting.fetch_add(1, Ordering::SeqCst);
        match self.jobs.try_send(job) {
            Ok(()) => Ok(()),
            Err(TrySendError::Full(_) | TrySendError::Disconnected(_)) => {
                self.state.waiting.fetch_sub(1, Ordering::SeqCst);
                self.state.refused.fetch_add(1, Ordering::SeqCst);
                let left_ms = self.state.busy_until.load(Ordering::SeqCst).saturating_sub(self.state.now_ms());
                Err(ApiError::queue_full(left_ms.div_ceil(1000).max(1)))
            }
        }
    }

    pub fn status(&self) -> Status {
        Status {
            capacity: self.state.capacity,
            waiting: self.state.waiting.load(Ordering::SeqCst),
            running: self.state.running.load(Ordering::SeqCst),
            served: self.state.served.load(Ordering::SeqCst),
            refused: self.state.refused.load(Ordering::SeqCst),
        }
    }
}

/// The level a search plays at.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Level {
    Full,
    /// `UCI_LimitStrength` with this `UCI_Elo`.
    Elo(i32),
    /// This `Skill Level`.
    Skill(i32),
}

/// One search: where, how far, how many lines, at what level.
pub struct Search<'a> {
    pub setup: &'a Setup,
    /// The search's limits; its `multipv` and `strength` come from the options set below.
    pub limits: Limits,
    pub multipv: usize,
    pub level: Level,
    /// `Skill Seed`: the same seed gives the same choices at a level (0: a new one each time).
    /// A search with a seed starts from an empty table, so that the same seed, position and
    /// limit give the same move whatever was searched before.
    pub seed: u64,
}

/// What a search found.
#[derive(Clone, Debug)]
pub struct Found {
    pub best: Option<Move>,
    pub ponder: Option<Move>,
    /// Every line reported, in order.
    pub infos: Vec<Info>,
    /// The owner's time limit ended the search before its own limit did.
    pub capped: bool,
    /// The client stopped it (or went away).
    pub stopped: bool,
}

impl Found {
    /// The last line of each MultiPV rank, best first. A position without a legal move has
    /// none (the search reports it as a line without moves).
    pub fn lines(&self) -> Vec<&Info> {
        let ranks = self.infos.iter().map(|info| info.multipv).max().unwrap_or(0);
        (1..=ranks)
            .filter_map(|rank| self.infos.iter().rev().find(|info| info.multipv == rank))
            .filter(|info| !info.pv.is_empty())
            .collect()
    }

    /// The last line reported, for the search's totals (depth, nodes, time).
    pub fn last(&self) -> Option<&Info> {
        self.infos.last()
    }
}

/// The engine, as a job has it.
pub struct Driver {
    engine: Engine,
    reports: Receiver<(SearchId, Report)>,
    max_time: Duration,
    state: Arc<State>,
}

impl Driver {
    /// Carries out a command; an error is one a checked request should never cause, so it is
    /// said as the engine's fault.
    fn execute(&mut self, command: EngineCommand) -> Result<Outcome, String> {
        self.engine.execute(command).map_err(|e| format!("the engine refused a command: {e}"))
    }

    fn set(&mut self, option: OptionId, value: impl ToString) -> Result<(), String> {
        self.execute(EngineCommand::SetOption { option, value: Some(value.to_string()) }).map(|_| ())
    }

    /// Forgets what earlier searches learned (a new game to review).
    pub fn new_game(&mut self) -> Result<(), String> {
        self.execute(EngineCommand::NewGame).map(|_| ())
    }

    /// Runs one search to its end, calling `on_info` with each line as it comes; `cancelled`
    /// is asked every few milliseconds whether the client still wants it.
    pub fn search(
        &mut self,
        search: &Search,
        cancelled: &dyn Fn() -> bool,
        on_info: &mut dyn FnMut(&Info, &[Info]),
    ) -> Result<Found, String> {
        self.set(OptionId::MultiPv, search.multipv.max(1))?;
        self.set(OptionId::UciChess960, search.setup.chess960())?;
        let (limit_strength, elo, skill) = match search.level {
            Level::Full => (false, None, crate::engine::MAX_SKILL_LEVEL),
            Level::Elo(elo) => (true, Some(elo), crate::engine::MAX_SKILL_LEVEL),
            Level::Skill(level) => (false, None, level),
        };
        self.set(OptionId::UciLimitStrength, limit_strength)?;
        if let Some(elo) = elo {
            self.set(OptionId::UciElo, elo)?;
        }
        self.set(OptionId::SkillLevel, skill)?;
        self.set(OptionId::SkillSeed, search.seed)?;
        if search.seed != 0 {
            self.new_game()?;
        }
        self.execute(search.setup.command())?;
        let start = Instant::now();
        self.state.busy_until.store(self.state.now_ms() + self.max_time.as_millis() as u64, Ordering::SeqCst);
        let Outcome::Searching(id) = self.execute(EngineCommand::Go(search.limits.clone()))? else {
            return Err("the search did not start".to_string());
        };
        let mut found = Found { best: None, ponder: None, infos: Vec::new(), capped: false, stopped: false };
        let mut stopped_at = None;
        loop {
            if stopped_at.is_none() {
                let cap = start.elapsed() >= self.max_time;
                let gone = cancelled();
                if cap || gone {
                    (found.capped, found.stopped) = (cap && !gone, gone);
                    self.execute(EngineCommand::Stop)?;
                    stopped_at = Some(Instant::now());
                }
            } else if stopped_at.is_some_and(|at| at.elapsed() > STOP_GRACE) {
                log::error!("a stopped search did not answer within {STOP_GRACE:?}");
                return Err("the engine did not answer".to_string());
            }
            match self.reports.recv_timeout(WATCH_EVERY) {
                Ok((from, _)) if from != id => {}
                Ok((_, Report::Info(info))) => {
                    found.infos.push(info);
                    if let Some(info) = found.infos.last() {
                        on_info(info, &found.infos);
                    }
                }
                Ok((_, Report::CurrMove { .. })) => {}
                Ok((_, Report::BestMove { best, ponder })) => {
                    (found.best, found.ponder) = (best, ponder);
                    return Ok(found);
                }
                Err(RecvTimeoutError::Timeout) => {}
                Err(RecvTimeoutError::Disconnected) => {
                    return Err("the engine's reports stopped".to_string());
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn found(lines: &[(usize, i32)]) -> Found {
        let infos = lines
            .iter()
            .map(|&(multipv, depth)| Info {
                multipv,
                depth,
                seldepth: depth,
                score: crate::engine::Score::Centipawns(0),
                search_score: crate::engine::Score::Centipawns(0),
                wdl: [0, 1000, 0],
                bound: crate::engine::Bound::Exact,
                nodes: 1,
                elapsed: Duration::ZERO,
                hashfull: 0,
                tb_hits: 0,
                pv: vec![Move::NONE],
            })
            .collect();
        Found { best: None, ponder: None, infos, capped: false, stopped: false }
    }

    #[test]
    fn the_lines_are_the_last_of_each_rank() {
        let found = found(&[(1, 1), (2, 1), (1, 2), (2, 2), (1, 3)]);
        let depths: Vec<(usize, i32)> = found.lines().iter().map(|info| (info.multipv, info.depth)).collect();
        assert_eq!(depths, [(1, 3), (2, 2)]);
    }
}
