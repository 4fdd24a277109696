//! Time management: how long to think about this move, given the clock.
//!
//! Two limits. The optimum is the time this move deserves; iterative deepening starts no new
//! iteration past a fraction of it, since the next iteration would take longer than all before
//! it. The maximum is a hard stop, checked during the search, and never more than a safe part
//! of what is left on the clock, so the engine cannot lose on time.

use super::Limits;
use super::params::Params;
use std::time::{Duration, Instant};

pub struct TimeManager {
    /// When the search started: what the reports' times count from.
    start: Instant,
    /// When our clock started: the search's start, or the ponder hit.
    clock_start: Instant,
    optimum: Option<Duration>,
    maximum: Option<Duration>,
}

impl TimeManager {
    /// The limits for a search under `limits`, setting `overhead` aside for every move still
    /// to play, with the time rules of `params`.
    pub fn new(limits: &Limits, overhead: Duration, params: &Params) -> TimeManager {
        let start = Instant::now();
        let manager = |optimum, maximum| TimeManager { start, clock_start: start, optimum, maximum };
        if limits.infinite {
            return manager(None, None);
        }
        if let Some(movetime) = limits.movetime {
            // The user asked for this much thinking: use all of it. The overhead is set aside
            // from clocks, which the engine must not overstep; a fixed time per move is not
            // one (Stockfish too spends `go movetime` in full). But a clock given beside it
            // (lichess-bot's `go_commands` send both; XBoard's `st` with a `time` below it) is
            // believed: the move gets at most half of what that clock holds after the
            // overhead, the clock's own ceiling below, and never loses on time for the sake of
            // the time per move.
            let mut time = movetime.min(Limits::MAX_TIME);
            if let Some(clock) = limits.clock {
                time = time.min(clock.remaining.min(Limits::MAX_TIME).saturating_sub(overhead) / 2);
            }
            return manager(None, Some(time.max(Duration::from_millis(1))));
        }
        let Some(clock) = limits.clock else {
            return manager(None, None);
        };
        // Times beyond any real clock are taken as the largest allowed, so nothing overflows.
        let (remaining, increment) = (clock.remaining.min(Limits::MAX_TIME), clock.increment.min(Limits::MAX_TIME));
        // Spread what is left over the moves still to play (`expected_moves_left` when the
        // clock does not say), counting their increments, but set aside the overhead for
        // every one of those moves: the clock then settles, late in a game on increment, near
        // that reserve instead of running down to nothing, and a stall of the machine or the
        // GUI costs no game. The increments count `increment_percent` of their size: a search
        // ends before its optimum more often than after it, so counting them at par leaves a
        // second or more on the clock at the end of a long game.
        let expected = (params.expected_moves_left() as u32).max(1);
        let moves_left = clock.moves_to_go.map_or(expected, |m| m.clamp(1, expected));
        let increments = (increment * (moves_left - 1)).mul_f64(params.increment_percent() as f64 / 100.0);
        let total = (remaining + increments).saturating_sub(overhead * moves_left);
        let optimum = total / moves_left;
        // The hard limit may stretch to four times the optimum, but only by a quarter of what
        // the clock holds beyond the reserve, so that even a search that always runs to its
        // limit leaves the reserve standing; and never past half the clock.
        let surplus = remaining.saturating_sub(overhead * moves_left);
        let maximum = (optimum + (optimum * 3).min(surplus / 4)).min(remaining.saturating_sub(overhead) / 2);
        manager(Some(optimum.min(maximum)), Some(maximum))
    }

    /// The hard limit, counted from when our clock starts.
    pub fn maximum(&self) -> Option<Duration> {
        self.maximum
    }

    /// When our clock started: the search's start (a ponder hit moves it later).
    pub fn clock_start(&self) -> Instant {
        self.clock_start
    }

    /// The time since the search started, pondering included.
    pub fn elapsed(&self) -> Duration {
        self.start.elapsed()
    }

    /// The time our clock has run in this search.
    fn used(&self) -> Duration {
        self.clock_start.elapsed()
    }

    /// Our clock started at `at` (the ponder hit): the time spent pondering before it was
    /// the opponent's.
    pub fn restart(&mut self, at: Instant) {
        self.clock_start = at;
    }

    /// Past the hard limit: stop at once.
    pub fn out_of_time(&self) -> bool {
        self.maximum.is_some_and(|max| self.used() >= max)
    }

    /// Whether another iteration is worth starting, given the share of the optimum time
    /// before which the search's progress says one may start.
    pub fn iteration_affordable(&self, share: f64) -> bool {
        self.optimum.is_none_or(|opt| self.used() < opt.mul_f64(share))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::search::Clock;

    fn clock(remaining_ms: u64, increment_ms: u64, moves_to_go: Option<u32>) -> Limits {
        let clock = Clock {
            remaining: Duration::from_millis(remaining_ms),
            increment: Duration::from_millis(increment_ms),
            moves_to_go,
        };
        Limits { clock: Some(clock), ..Limits::default() }
    }

    /// The clock left after 300 moves of a game in which every search runs to its hard limit
    /// and every move loses 5 ms more to the GUI; the clock never runs out on the way.
    fn clock_after_hard_limits(params: &Params, overhead: Duration, start_ms: u64, increment_ms: u64) -> u64 {
        let mut remaining = start_ms;
        for _ in 0..300 {
            let tm = TimeManager::new(&clock(remaining, increment_ms, None), overhead, params);
            let used = tm.maximum.unwrap().as_millis() as u64 + 5;
            assert!(used < remaining, "{start_ms}+{increment_ms}: {used} ms of {remaining}");
            remaining = remaining - used + increment_ms;
        }
        remaining
    }

    /// Even if every search runs to its hard limit and every move loses 5 ms more to the GUI,
    /// a game on increment keeps most of the reserve on the clock.
    #[test]
    fn the_clock_settles_near_the_reserve() {
        for (start_ms, increment_ms) in [(1000, 10), (3000, 30), (10000, 100)] {
            let remaining =
                clock_after_hard_limits(&Params::default(), Duration::from_millis(30), start_ms, increment_ms);
            assert!(remaining >= 700, "{start_ms}+{increment_ms}: {remaining} ms left");
        }
    }

    /// Counting the increments at the most a tuner may set, the plan overspends and the
    /// reserve goes, but a game in which every search runs to its hard limit still never runs
    /// out of time.
    #[cfg(feature = "spsa")]
    #[test]
    fn the_largest_increment_share_never_runs_out() {
        let tunables = crate::search::params::TUNABLES;
        let index = tunables.iter().position(|t| t.name == "increment_percent").unwrap();
        let mut params = Params::default();
        params.set(index, tunables[index].max);
        for (start_ms, increment_ms) in [(1000, 10), (3000, 30), (10000, 100)] {
            clock_after_hard_limits(&params, Duration::from_millis(10), start_ms, increment_ms);
        }
    }

    #[test]
    fn never_plans_beyond_the_clock() {
        let overhead = Duration::from_millis(20);
        for limits in [clock(1000, 10, None), clock(50, 0, None), clock(10, 0, None), clock(5000, 0, Some(1))] {
            let tm = TimeManager::new(&limits, overhead, &Params::default());
            let remaining = limits.clock.unwrap().remaining;
            assert!(tm.maximum.unwrap() + overhead <= remaining.max(overhead));
            assert!(tm.optimum.unwrap() <= tm.maximum.unwrap());
        }
    }

    /// Clocks of any size, increments too, plan without overflowing.
    #[test]
    fn absurd_clocks_are_planned_without_overflow() {
        let huge = Duration::MAX;
        for (remaining, increment) in [(huge, huge), (huge, Duration::ZERO), (Duration::ZERO, huge)] {
            for moves_to_go in [None, Some(1), Some(u32::MAX)] {
                let limits = Limits { clock: Some(Clock { remaining, increment, moves_to_go }), ..Limits::default() };
                let tm = TimeManager::new(&limits, Duration::from_millis(10), &Params::default());
                assert!(tm.maximum.unwrap() <= Limits::MAX_TIME);
            }
        }
        let limits = Limits { movetime: Some(huge), ..Limits::default() };
        assert!(TimeManager::new(&limits, Duration::ZERO, &Params::default()).maximum.unwrap() <= Limits::MAX_TIME);
    }

    /// After a ponder hit the clock starts again, but reports keep counting from the start.
    #[test]
    fn a_restart_moves_the_clock_not_the_reports() {
        let limits = Limits { movetime: Some(Duration::from_millis(50)), ..Limits::default() };
        let mut tm = TimeManager::new(&limits, Duration::ZERO, &Params::default());
        std::thread::sleep(Duration::from_millis(60));
        assert!(tm.out_of_time());
        tm.restart(Instant::now());
        assert!(!tm.out_of_time());
        // A hit that came 60 ms ago, noticed only now, has used the clock since it came.
        tm.restart(Instant::now() - Duration::from_millis(60));
        assert!(tm.out_of_time());
        assert!(tm.elapsed() >= Duration::from_millis(60));
    }

    #[test]
    fn movetime_is_spent_in_full() {
        let limits = Limits { movetime: Some(Duration::from_millis(300)), ..Limits::default() };
        let tm = TimeManager::new(&limits, Duration::from_millis(200), &Params::default());
        assert_eq!(tm.maximum, Some(Duration::from_millis(300)));
    }

    #[test]
    fn a_time_per_move_does_not_overstep_a_clock_beside_it() {
        let overhead = Duration::from_millis(30);
        let maximum = |movetime_ms, remaining_ms| {
            let limits = Limits { movetime: Some(Duration::from_millis(movetime_ms)), ..clock(remaining_ms, 0, None) };
            TimeManager::new(&limits, overhead, &Params::default()).maximum.unwrap().as_millis()
        };
        // `go wtime 2000 ... movetime 5000` once thought 5 s and lost on time.
        assert_eq!(maximum(5000, 2000), (2000 - 30) / 2);
        assert_eq!(maximum(1000, 60_000), 1000);
        assert_eq!(maximum(1000, 0), 1);
    }
}
