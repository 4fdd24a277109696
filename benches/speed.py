#!/usr/bin/env python3
"""Speed figures over the same middle-game positions, taken in one run so that they compare.

    benches/speed.py nps --engine target/release/sentinel --engine /usr/games/ethereal-chess
    benches/speed.py smp --engine target/release/sentinel --threads 1,2,4,8,16 --depth 19
    benches/speed.py perft --engine target/release/sentinel --stockfish /usr/games/stockfish

`nps`: one thread each, `go movetime` on every position, the engines taking turns position by
position so that a load that comes and goes falls on all alike; each engine's nodes per second
(its own reports: the nodes and time of its last info line) and its ratio to the first's.

`smp`: how Lazy SMP scales, the time to a fixed depth and the nodes per second at each thread
count, against the first count. Each position is searched from a new game (`ucinewgame`, so no thread starts with another
search's table) to `--depth`; the time is taken here, from `go` to `bestmove`. Speed-up is
one thread's total time over this count's; nodes-per-second efficiency is this count's speed
over one thread's times the count. Lazy SMP's threads search overlapping trees, so the
speed-up to a depth is always well below the node rate's.

`perft`: Sentinel's `perft` against Stockfish's `go perft` (no hash table in either) on the
start position to depth 6 and Kiwipete to depth 5, each timed as a whole process, start-up
included (Stockfish's loading of its network among it), in turns, `--rounds` times; the median
CPU time (user and system) and wall time of each, and Sentinel's as a ratio of Stockfish's.
Both node counts are checked. Only the standard library is needed.
"""

import argparse
import resource
import statistics
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tools"))
from uci_engine import Engine  # noqa: E402 (the path above first)

# Middle-game positions of several kinds (closed, open, both sides castled, kings exposed).
POSITIONS = [
    "rnbqkb1r/pp3ppp/4pn2/2pp4/2PP4/2N1PN2/PP3PPP/R1BQKB1R w KQkq - 0 5",
    "r1bq1rk1/ppp2ppp/2np1n2/2b1p3/2B1P3/2NP1N2/PPP2PPP/R1BQ1RK1 w - - 0 7",
    "r2q1rk1/pp1bbppp/2nppn2/8/3NP3/2N1BP2/PPPQ2PP/2KR1B1R w - - 0 10",
    "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
    "r4rk1/1pp1qppp/p1np1n2/2b1p1B1/2B1P1b1/P1NP1N2/1PP1QPPP/R4RK1 w - - 0 10",
    "2r2rk1/pp1bqppp/2n1pn2/3p4/2PP4/P1NBPN2/1P3PPP/2RQ1RK1 b - - 0 12",
    "r1b2rk1/2q1bppp/p2ppn2/1p6/3BPP2/2N2B2/PPPQ2PP/2KR3R w - - 0 13",
    "4rrk1/pp1n1pp1/q5p1/P1pP4/2n3P1/7P/1P3PB1/R1BQ1RK1 w - - 0 20",
]


def search(engine, fen, go):
    """Seconds to `bestmove` (taken here), and the nodes and milliseconds of the last report
    that has both."""
    engine.send("ucinewgame")
    engine.send(f"position fen {fen}")
    engine.ready()
    start = time.perf_counter()
    engine.send(f"go {go}")
    lines = engine.wait_for("bestmove")
    elapsed = time.perf_counter() - start
    nodes = millis = 0
    for line in lines:
        words = line.split()
        if words[0] == "info" and "nodes" in words and "time" in words:
            nodes = int(words[words.index("nodes") + 1])
            millis = int(words[words.index("time") + 1])
    return elapsed, nodes, millis


def nps(args):
    engines = [Engine(command, {"Threads": 1, "Hash": args.hash}) for command in args.engine]
    totals = [[0, 0] for _ in engines]
    for fen in POSITIONS[:args.positions]:
        for engine, total in zip(engines, totals):
            _, nodes, millis = search(engine, fen, f"movetime {args.movetime}")
            total[0] += nodes
            total[1] += millis
    print(f"one thread, go movetime {args.movetime}, {args.positions} positions, Hash {args.hash}")
    reference = None
    for command, engine, (nodes, millis) in zip(args.engine, engines, totals):
        engine.quit()
        speed = nodes / (millis / 1000)
        reference = reference or speed
        print(f"{command}: {nodes} nodes in {millis} ms, {speed / 1e6:.3f} Mnps, {speed / reference:.3f}x")


def smp(args):
    command = args.engine[0]
    print(f"{command}, depth {args.depth}, Hash {args.hash}, {args.positions} positions")
    print("threads  time (s)  speed-up  Mnps    nps efficiency")
    reference = None
    for threads in map(int, args.threads.split(",")):
        engine = Engine(command, {"Threads": threads, "Hash": args.hash})
        total_time = total_nodes = 0
        for fen in POSITIONS[:args.positions]:
            elapsed, nodes, _ = search(engine, fen, f"depth {args.depth}")
            total_time += elapsed
            total_nodes += nodes
        engine.quit()
        speed = total_nodes / total_time
        if reference is None:
            reference = (threads, total_time, speed)
        speedup = reference[1] / total_time
        efficiency = speed / (reference[2] * threads / reference[0])
        print(f"{threads:7}  {total_time:8.2f}  {speedup:8.2f}  {speed / 1e6:6.2f}  {efficiency:6.2f}", flush=True)


PERFT_POSITIONS = [
    ("startpos", None, 6, 119060324),
    ("kiwipete", "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1", 5, 193690690),
]


def timed(command, stdin=None):
    """Runs `command` to its end: its output, and its wall and CPU seconds (from the system's
    accounting of the child)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    result = subprocess.run(command, input=stdin, capture_output=True, text=True, check=True)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return result.stdout, wall, cpu


def perft(args):
    engine, stockfish = args.engine[0], args.stockfish
    print(f"{engine} against {stockfish}, whole processes in turns, {args.rounds} rounds, medians")
    for name, fen, depth, nodes in PERFT_POSITIONS:
        ours_command = [engine, "perft", fen or "startpos", str(depth)]
        position = f"position fen {fen}" if fen else "position startpos"
        script = f"{position}\ngo perft {depth}\nquit\n"
        ours, theirs = [], []
        for _ in range(args.rounds):
            output, wall, cpu = timed(ours_command)
            if f"Nodes searched: {nodes}" not in output:
                sys.exit(f"{engine} did not count {nodes} nodes for {name} {depth}")
            ours.append((wall, cpu))
            output, wall, cpu = timed([stockfish], script)
            if f"Nodes searched: {nodes}" not in output:
                sys.exit(f"{stockfish} did not count {nodes} nodes for {name} {depth}")
            theirs.append((wall, cpu))
        wall = [statistics.median(t[0] for t in times) for times in (ours, theirs)]
        cpu = [statistics.median(t[1] for t in times) for times in (ours, theirs)]
        print(f"{name} {depth} ({nodes} nodes): CPU {cpu[0]:.3f} s against {cpu[1]:.3f} s, "
              f"{cpu[1] / cpu[0]:.2f}x Stockfish's speed; wall {wall[0]:.3f} s against {wall[1]:.3f} s, "
              f"{wall[1] / wall[0]:.2f}x", flush=True)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("what", choices=["nps", "smp", "perft"])
    ap.add_argument("--engine", action="append", help="an engine command (nps: several, the first the reference)")
    ap.add_argument("--movetime", type=int, default=2000, help="nps: milliseconds a position")
    ap.add_argument("--threads", default="1,2", help="smp: thread counts, the first the reference")
    ap.add_argument("--depth", type=int, default=14, help="smp: the depth of every search")
    ap.add_argument("--hash", type=int, default=256, help="Hash in MB, the same for every search")
    ap.add_argument("--positions", type=int, default=len(POSITIONS))
    ap.add_argument("--stockfish", default="/usr/games/stockfish", help="perft: the Stockfish to compare with")
    ap.add_argument("--rounds", type=int, default=3, help="perft: runs of each, in turns")
    args = ap.parse_args()
    args.engine = args.engine or ["target/release/sentinel"]
    {"nps": nps, "smp": smp, "perft": perft}[args.what](args)


if __name__ == "__main__":
    main()
