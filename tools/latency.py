#!/usr/bin/env python3
"""Measures the bounds docs/reliability.md states: how fast `stop` is answered, how far
`go movetime` overshoots, and how much memory the engine holds for a given Hash, also after
many games.

    tools/latency.py --engine target/release/sentinel            # everything
    tools/latency.py --only stop --tries 100
    tools/latency.py --only movetime --movetime 20 --tries 20 --threads 1,8,64,256 --overhead 0

Times are taken here, from writing the command to reading the answer, so they include the
pipes and this script (the GUI's view). Memory is the engine process's resident set (VmRSS)
and its peak (VmHWM) from /proc. Only the standard library is needed.
"""

import argparse
import random
import statistics
import time

from uci_engine import Engine


def memory_mb(engine, field):
    """The engine process's `field` of /proc/PID/status (VmRSS, VmHWM), in MB."""
    with open(f"/proc/{engine.process.pid}/status") as status:
        for line in status:
            if line.startswith(field + ":"):
                return int(line.split()[1]) / 1024
    return 0.0


def summary(name, values):
    values = sorted(values)
    return f"{name}: median {statistics.median(values):.1f} ms, worst {values[-1]:.1f} ms over {len(values)} tries"


def engine_at(args, threads, moves):
    """A fresh engine with `threads` threads, ready in the start position after `moves`."""
    engine = Engine(args.engine, {"Threads": threads, "Move Overhead": args.overhead})
    engine.send(f"position startpos moves {moves}")
    engine.ready()
    return engine


def stop_latency(args, threads):
    engine = engine_at(args, threads, "e2e4 e7e5")
    times = []
    for _ in range(args.tries):
        engine.send("go infinite")
        time.sleep(random.uniform(0.05, 0.15))
        start = time.perf_counter()
        engine.send("stop")
        engine.wait_for("bestmove")
        times.append((time.perf_counter() - start) * 1000)
    engine.quit()
    return summary(f"stop to bestmove, Threads {threads}", times)


def movetime_overshoot(args, threads):
    engine = engine_at(args, threads, "d2d4 g8f6")
    overshoot = []
    for _ in range(args.tries):
        start = time.perf_counter()
        engine.send(f"go movetime {args.movetime}")
        engine.wait_for("bestmove")
        overshoot.append((time.perf_counter() - start) * 1000 - args.movetime)
    engine.quit()
    return summary(f"go movetime {args.movetime} overshoot, Threads {threads}", overshoot)


def hash_memory(args, hash_mb):
    engine = Engine(args.engine)
    idle = memory_mb(engine, "VmRSS")
    engine.send(f"setoption name Hash value {hash_mb}")
    # A new game clears the table, which touches every page of it.
    engine.send("ucinewgame")
    engine.send("position startpos")
    engine.send("go movetime 1000")
    engine.wait_for("bestmove")
    peak = memory_mb(engine, "VmHWM")
    engine.quit()
    return f"Hash {hash_mb}: resident {peak:.1f} MB at peak ({peak - hash_mb:+.1f} MB over the table; {idle:.1f} MB before)"


def many_games(args):
    """One engine plays itself `--games` quick games (a few hundred nodes a move), with a new
    game each time; its resident memory is read along the way."""
    engine = Engine(args.engine, {"Hash": args.hash})
    readings = {}
    marks = {1, 10, 100, args.games // 2, args.games}
    for game in range(1, args.games + 1):
        engine.send("ucinewgame")
        moves = []
        for _ in range(args.max_plies):
            engine.send("position startpos moves " + " ".join(moves) if moves else "position startpos")
            engine.send(f"go nodes {args.nodes}")
            best = engine.wait_for("bestmove")[-1].split()[1]
            if best == "0000":
                break
            moves.append(best)
        if game in marks:
            readings[game] = memory_mb(engine, "VmRSS")
    engine.quit()
    text = ", ".join(f"after {g}: {mb:.1f} MB" for g, mb in sorted(readings.items()))
    return f"{args.games} games with Hash {args.hash}, resident {text}"


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--engine", default="target/release/sentinel")
    ap.add_argument("--tries", type=int, default=100)
    ap.add_argument("--movetime", type=int, default=100)
    ap.add_argument("--threads", default="1,2", help="thread counts for the stop and movetime runs")
    ap.add_argument("--overhead", type=int, default=10, help="Move Overhead, ms")
    ap.add_argument("--hashes", default="16,64,256")
    ap.add_argument("--games", type=int, default=1000)
    ap.add_argument("--hash", type=int, default=16, help="Hash for the many-games run")
    ap.add_argument("--nodes", type=int, default=300, help="nodes a move in the many-games run")
    ap.add_argument("--max-plies", type=int, default=120)
    ap.add_argument("--only", choices=["stop", "movetime", "memory", "games"])
    args = ap.parse_args()
    if args.only in (None, "stop"):
        for threads in map(int, args.threads.split(",")):
            print(stop_latency(args, threads), flush=True)
    if args.only in (None, "movetime"):
        for threads in map(int, args.threads.split(",")):
            print(movetime_overshoot(args, threads), flush=True)
    if args.only in (None, "memory"):
        for hash_mb in map(int, args.hashes.split(",")):
            print(hash_memory(args, hash_mb), flush=True)
    if args.only in (None, "games"):
        print(many_games(args), flush=True)


if __name__ == "__main__":
    main()
