//! The thread pool as a GUI meets it: with up to 256 threads on however few cores, short
//! searches keep to their time, `stop` is answered at once, and the number of threads can
//! change between searches.

mod common;

use common::Engine;
use std::time::{Duration, Instant};

/// What a search may take beyond its time limit, whatever the number of threads: the
/// engine's promise to a GUI that sets a fixed move time with `Move Overhead` at 0.
const MARGIN: Duration = Duration::from_millis(250);

fn best_move_within(engine: &mut Engine, sent: Instant, limit: Duration) {
    engine.expect_prefix("bestmove");
    let took = sent.elapsed();
    engine.check(took < limit + MARGIN, &format!("bestmove after {took:?}, the limit {limit:?}"));
}

/// One test, not several: tests run side by side, and hundreds of threads each would make
/// the machine the test's subject.
#[test]
fn many_threads_keep_to_the_clock_and_answer_stop() {
    let mut engine = Engine::uci();
    engine.send("setoption name Move Overhead value 0");
    for threads in [256, 1, 64, 8] {
        engine.send(&format!("setoption name Threads value {threads}"));
        engine.send("position startpos moves d2d4 g8f6");
        engine.send("isready");
        engine.expect_line("readyok");
        for _ in 0..3 {
            let sent = Instant::now();
            engine.send("go movetime 20");
            best_move_within(&mut engine, sent, Duration::from_millis(20));
        }
        // A clock of 100 ms: the hard limit is at most half of it.
        let sent = Instant::now();
        engine.send("go wtime 100 btime 100");
        best_move_within(&mut engine, sent, Duration::from_millis(50));
        engine.send("go infinite");
        std::thread::sleep(Duration::from_millis(50));
        let sent = Instant::now();
        engine.send("stop");
        best_move_within(&mut engine, sent, Duration::ZERO);
    }
}
