//! `cargo bench --bench perft`: perft speed of our binary, and of Stockfish's `go perft` on the
//! same positions in the same run when Stockfish is installed, so that the ratio between the
//! two holds even on a busy machine where the absolute numbers wander.
//!
//! Each repetition runs ours and then Stockfish's back to back, so both see the same load; the
//! best time of each is reported (the run least disturbed by other processes). Both wall-clock
//! and CPU time are measured: on a shared machine the CPU time is the steadier of the two, as
//! it leaves out the time a process waits for a core.
//!
//! Start-up is kept out of both figures. Our process is timed from spawn to exit, less the
//! best time of a `perft startpos 1` run. Stockfish is started once, made ready (`isready`
//! waits for its network to load), and each perft is timed from sending `go perft` to reading
//! its `Nodes searched` line.
//!
//! Environment: `PERFT_BENCH_REPS` (default 5) sets the repetitions, `STOCKFISH` a binary path
//! (or anything else, such as `none`, to leave Stockfish out).

use std::io::{BufRead, BufReader, Write};
use std::path::PathBuf;
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};
use std::time::{Duration, Instant};

/// Wall-clock and CPU (user + system) time of one run.
#[derive(Clone, Copy)]
struct Sample {
    wall: Duration,
    cpu: Duration,
}

impl Sample {
    fn minus(self, other: Sample) -> Sample {
        Sample { wall: self.wall.saturating_sub(other.wall), cpu: self.cpu.saturating_sub(other.cpu) }
    }
}

const OURS: &str = env!("CARGO_BIN_EXE_sentinel");

struct Position {
    name: &'static str,
    fen: Option<&'static str>,
    depth: u32,
    nodes: u64,
}

const POSITIONS: [Position; 2] = [
    Position { name: "startpos", fen: None, depth: 6, nodes: 119_060_324 },
    Position {
        name: "kiwipete",
        fen: Some("r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1"),
        depth: 5,
        nodes: 193_690_690,
    },
];

fn main() {
    let reps: usize = std::env::var("PERFT_BENCH_REPS").ok().and_then(|r| r.parse().ok()).unwrap_or(5).max(1);
    let mut stockfish = find_stockfish().map(Stockfish::start);
    match &stockfish {
        Some(sf) => println!("stockfish: {}", sf.path.display()),
        None => println!("stockfish: not found (set STOCKFISH=path to compare); our figures only"),
    }
    let startup = (0..3).map(|_| time_ours(&["startpos", "1"], 20)).min_by_key(|s| s.wall).unwrap();
    println!(
        "our start-up (perft startpos 1): {:.1} ms wall, {:.1} ms CPU, subtracted",
        startup.wall.as_secs_f64() * 1e3,
        startup.cpu.as_secs_f64() * 1e3
    );
    println!("{reps} repetitions each; best (and median) speed in millions of nodes per second\n");

    for pos in &POSITIONS {
        let mut args: Vec<&str> = pos.fen.map_or(vec!["startpos"], |f| f.split(' ').collect());
        let depth = pos.depth.to_string();
        args.push(&depth);
        let mut ours = Vec::new();
        let mut theirs = Vec::new();
        for _ in 0..reps {
            ours.push(time_ours(&args, pos.nodes).minus(startup));
            if let Some(sf) = stockfish.as_mut() {
                theirs.push(sf.perft(pos.fen, pos.depth, pos.nodes));
            }
        }
        println!("{} depth {} ({} nodes)", pos.name, pos.depth, pos.nodes);
        for (clock, pick) in [("wall", (|s: &Sample| s.wall) as fn(&Sample) -> Duration), ("CPU ", |s: &Sample| s.cpu)]
        {
            let our_nps = nps(pos.nodes, ours.iter().map(pick));
            print!("  {clock}  ours {:>6.1} (median {:>6.1})", our_nps.0, our_nps.1);
            if !theirs.is_empty() {
                let their_nps = nps(pos.nodes, theirs.iter().map(pick));
                print!(
                    "  stockfish {:>6.1} (median {:>6.1})  ratio {:.2}x (median {:.2}x)",
                    their_nps.0,
                    their_nps.1,
                    our_nps.0 / their_nps.0,
                    our_nps.1 / their_nps.1
                );
            }
            println!();
        }
    }
}

/// Best and median speed in millions of nodes per second.
fn nps(nodes: u64, times: impl Iterator<Item = Duration>) -> (f64, f64) {
    let mut secs: Vec<f64> = times.map(|t| t.as_secs_f64().max(1e-6)).collect();
    secs.sort_by(f64::total_cmp);
    let mnps = |s: f64| nodes as f64 / s / 1e6;
    (mnps(secs[0]), mnps(secs[secs.len() / 2]))
}

/// CPU time of all waited-for children so far.
fn children_cpu() -> Duration {
    // SAFETY: getrusage only writes the struct it is given, which is plain data.
    let usage = unsafe {
        let mut usage: libc::rusage = std::mem::zeroed();
        libc::getrusage(libc::RUSAGE_CHILDREN, &mut usage);
        usage
    };
    let time = |t: libc::timeval| Duration::new(t.tv_sec as u64, t.tv_usec as u32 * 1000);
    time(usage.ru_utime) + time(usage.ru_stime)
}

/// CPU time used so far by a running process, from /proc (in clock ticks, usually 10 ms).
fn process_cpu(pid: u32) -> Duration {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).expect("read /proc/PID/stat");
    // The fields after the parenthesised command name: state is field 3, utime 14, stime 15.
    let fields: Vec<&str> = stat[stat.rfind(')').expect("stat format") + 2..].split(' ').collect();
    let ticks: u64 = fields[11].parse::<u64>().unwrap() + fields[12].parse::<u64>().unwrap();
    // SAFETY: sysconf has no preconditions.
    let per_second = unsafe { libc::sysconf(libc::_SC_CLK_TCK) }.max(1) as u64;
    Duration::from_nanos(ticks * 1_000_000_000 / per_second)
}

/// Runs `sentinel perft ARGS` to the end and checks its node count.
fn time_ours(args: &[&str], nodes: u64) -> Sample {
    let cpu_before = children_cpu();
    let start = Instant::now();
    let output = Command::new(OURS).arg("perft").args(args).output().expect("run sentinel");
    let wall = start.elapsed();
    let cpu = children_cpu() - cpu_before;
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(output.status.success(), "sentinel perft {args:?} failed: {}", String::from_utf8_lossy(&output.stderr));
    assert!(stdout.contains(&format!("Nodes searched: {nodes}")), "wrong count from sentinel perft {args:?}");
    Sample { wall, cpu }
}

fn find_stockfish() -> Option<PathBuf> {
    // STOCKFISH names the binary; set to anything that is not a file, it turns the comparison off.
    if let Some(path) = std::env::var_os("STOCKFISH") {
        return Some(PathBuf::from(path)).filter(|p| p.is_file());
    }
    let path = std::env::var_os("PATH").unwrap_or_default();
    std::env::split_paths(&path)
        .chain([PathBuf::from("/usr/games")])
        .map(|dir| dir.join("stockfish"))
        .find(|candidate| candidate.is_file())
}

/// A Stockfish process kept open across runs, so its start-up is paid once and never timed.
struct Stockfish {
    path: PathBuf,
    child: Child,
    stdin: ChildStdin,
    stdout: BufReader<ChildStdout>,
}

impl Stockfish {
    fn start(path: PathBuf) -> Stockfish {
        let mut child = Command::new(&path)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .unwrap_or_else(|e| panic!("cannot start {}: {e}", path.display()));
        let stdin = child.stdin.take().unwrap();
        let stdout = BufReader::new(child.stdout.take().unwrap());
        let mut sf = Stockfish { path, child, stdin, stdout };
        sf.send("uci\nisready\n");
        sf.read_until("readyok");
        sf
    }

    fn send(&mut self, text: &str) {
        self.stdin.write_all(text.as_bytes()).and_then(|_| self.stdin.flush()).expect("write to stockfish");
    }

    /// Reads lines up to one starting with `prefix`, and returns it.
    fn read_until(&mut self, prefix: &str) -> String {
        let mut line = String::new();
        loop {
            line.clear();
            let read = self.stdout.read_line(&mut line).expect("read from stockfish");
            assert!(read > 0, "stockfish exited before printing '{prefix}'");
            if line.starts_with(prefix) {
                return line;
            }
        }
    }

    /// Times one `go perft` from the command to its total, and checks the total.
    fn perft(&mut self, fen: Option<&str>, depth: u32, nodes: u64) -> Sample {
        let position = fen.map_or("position startpos\n".to_string(), |f| format!("position fen {f}\n"));
        self.send(&position);
        self.send("isready\n");
        self.read_until("readyok");
        let cpu_before = process_cpu(self.child.id());
        let start = Instant::now();
        self.send(&format!("go perft {depth}\n"));
        let line = self.read_until("Nodes searched");
        let wall = start.elapsed();
        let cpu = process_cpu(self.child.id()) - cpu_before;
        assert_eq!(line.trim(), format!("Nodes searched: {nodes}"), "stockfish disagrees");
        Sample { wall, cpu }
    }
}

impl Drop for Stockfish {
    fn drop(&mut self) {
        let _ = self.stdin.write_all(b"quit\n");
        let _ = self.stdin.flush();
        let _ = self.child.wait();
    }
}
