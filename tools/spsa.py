#!/usr/bin/env python3
"""Tunes the search's constants with SPSA, playing the games with fastchess.

Usage: tools/spsa.py ENGINE [--params a,b,...] [--iterations N] [--pairs P] [--tc TC]
                     [--concurrency N] [--state FILE] [--openings FILE]

ENGINE is a build with the `spsa` feature (`cargo build --release --features spsa`), which
lists every tunable of src/search/params.rs as a UCI spin option. Each iteration moves every
chosen parameter at once by +-c_k (one random sign each), plays P game pairs (both colours of
one opening each) between the two variations, and steps the parameters along the result, as
OpenBench's SPSA does: c_k = c_end (N / k)^0.101 with c_end the parameter's step, a_k = a / (A +
k)^0.602 with A a tenth of N and a set so that the last step is r_end (--rate, OpenBench's 0.002)
of c_end^2 per game. The state, with the settings that shape the schedule, is written to
--state after every iteration, so a stopped run continues where it was (with the same settings,
or it refuses); the current values are printed as lines to paste into params.rs.

Every game's ending is read from fastchess's PGN (tools/reliability_row.py) and the faults are
kept in the state beside the values: the games played and the illegal moves, time losses,
crashes and disconnects among them, printed with the values and, at the end, as the run's row
for docs/reliability.md. A state from before this count starts it at the iteration it resumes.

OpenBench's rate assumes tens of thousands of games: at 0.002 a parameter moves about 0.002 of a
step per game of signal, so in the few thousand games a session of this machine plays, nothing
moves by as much as a step (1,744 games over 16 parameters: the largest move 0.4 of a step).
A short run needs a larger --rate, and more of its movement is then noise. A TC of `nodes=N`
gives every move N nodes and no clock: several times the games of a clock, and the same tree
for the same values, but the time-management tunables then mean nothing.

Why our own driver: OpenBench (the framework most engines tune with) builds every engine it
tests from a commit of a public GitHub repository (its server accepts only api.github.com
sources and its workers download that commit's zipball); Sentinel's repository is not
published there, so neither its server nor a worker can get at our code. This loop over
fastchess does the same arithmetic on one machine.
"""

import argparse
import datetime
import json
import os
import random
import re
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import reliability_row  # noqa: E402 (the path above first)

# Where the tools keep what they make and build: SENTINEL_DATA, or ~/sentinel-data.
DATA = os.environ.get("SENTINEL_DATA") or os.path.expanduser("~/sentinel-data")
ALPHA, GAMMA = 0.602, 0.101


def tunables(engine):
    """The engine's spin options: name -> (default, min, max)."""
    out = subprocess.run([engine], input="uci\nquit\n", capture_output=True, text=True, timeout=30).stdout
    found = {}
    for line in out.splitlines():
        m = re.match(r"option name (\S+) type spin default (-?\d+) min (-?\d+) max (-?\d+)", line)
        if m:
            found[m.group(1)] = tuple(int(x) for x in m.groups()[1:])
    return found


def steps(root):
    """Each tunable's SPSA step, read from the table in params.rs."""
    text = open(os.path.join(root, "src", "search", "params.rs")).read()
    return {m.group(1): int(m.group(2)) for m in re.finditer(r"^\s*(\w+) = -?\d+, -?\d+..=-?\d+, (\d+);", text, re.M)}


def fastchess():
    for path in [os.environ.get("FASTCHESS"), os.path.join(DATA, "tools", "fastchess", "fastchess")]:
        if path and os.path.exists(path):
            return path
    return "fastchess"


def count_lines(path):
    """The positions of an openings file, one a line."""
    with open(path) as f:
        return max(1, sum(1 for line in f if line.strip()))


def play(engine, plus, minus, pairs, tc, openings, concurrency):
    """Plays `pairs` game pairs between the two settings; the plus side's points less the
    minus side's, and the games' Tally of faults."""
    with tempfile.TemporaryDirectory() as tmp:
        pgn = os.path.join(tmp, "games.pgn")
        cmd = [fastchess()]
        for name, values in (("plus", plus), ("minus", minus)):
            cmd += ["-engine", f"cmd={engine}", f"name={name}"]
            cmd += [f"option.{k}={v}" for k, v in values.items()]
        limit = ["tc=inf", tc] if tc.startswith("nodes=") else [f"tc={tc}"]
        cmd += ["-each", *limit, "option.Threads=1", "option.Hash=16",
                "-openings", f"file={openings}", "format=epd", "order=random", f"start={random.randint(1, count_lines(openings))}",
                "-rounds", str(pairs), "-repeat", "-concurrency", str(concurrency), "-recover",
                "-pgnout", f"file={pgn}"]
        # In the temporary folder: fastchess leaves its config.json where it runs.
        subprocess.run(cmd, capture_output=True, text=True, cwd=tmp)
        text = open(pgn).read() if os.path.exists(pgn) else ""
    score = 0.0
    for white, black, result in re.findall(r'\[White "(\w+)"\]\s*\[Black "(\w+)"\][\s\S]*?\[Result "([^"]+)"\]', text):
        points = {"1-0": 1.0, "0-1": -1.0, "1/2-1/2": 0.0}.get(result, 0.0)
        score += points if white == "plus" else -points
    return score, reliability_row.count_pgn(text)


def count_faults(state, tally):
    """Adds an iteration's games and faults to the run's count in the state."""
    faults = state["faults"]
    faults["games"] += tally.games
    for kind in (*reliability_row.KINDS, "other"):
        faults[kind] += tally.ours[kind] + tally.theirs[kind]
    days = sorted(d.isoformat() for d in tally.dates)
    if days:
        faults["first_day"] = min(faults.get("first_day") or days[0], days[0])
        faults["last_day"] = max(faults.get("last_day") or days[-1], days[-1])


def faults_row(state, args):
    faults = state["faults"]
    days = [datetime.date.fromisoformat(faults[d]) for d in ("first_day", "last_day") if faults.get(d)]
    tally = reliability_row.played_tally(faults["games"], {k: faults[k] for k in (*reliability_row.KINDS, "other")},
                                         dates=days)
    since = f", faults counted from iteration {faults['since'] + 1}" if faults["since"] else ""
    what = f"tools/spsa.py, {state['k']} iterations of {args.pairs} pair{'s' if args.pairs != 1 else ''} at {args.tc}{since}"
    return reliability_row.row(reliability_row.dates_text(tally.dates), f"`{os.path.basename(args.engine)}`", what,
                               tally, f"`{args.state}`")


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("engine")
    ap.add_argument("--params", help="comma-separated names (default: all)")
    ap.add_argument("--iterations", type=int, default=2000)
    ap.add_argument("--pairs", type=int, default=2)
    ap.add_argument("--tc", default="4+0.04", help="a clock such as 4+0.04, or nodes=N")
    ap.add_argument("--concurrency", type=int, default=2, help="games at once")
    ap.add_argument("--rate", type=float, default=0.002, help="r_end: the last step per game, in c_end^2")
    ap.add_argument("--state", default=os.path.join(DATA, "spsa-state.json"))
    ap.add_argument("--openings", default=os.path.join(HERE, "openings.epd"))
    args = ap.parse_args()
    # The games run in a temporary folder: paths given relative to here must still lead there.
    args.engine, args.openings = os.path.abspath(args.engine), os.path.abspath(args.openings)

    spins = tunables(args.engine)
    step = steps(os.path.join(HERE, ".."))
    names = args.params.split(",") if args.params else sorted(n for n in spins if n in step)
    missing = [n for n in names if n not in spins or n not in step]
    if missing:
        sys.exit(f"not tunables of this engine: {', '.join(missing)}")
    settings = {"iterations": args.iterations, "rate": args.rate, "pairs": args.pairs, "tc": args.tc,
                "params": names}
    state = {"k": 0, "settings": settings, "theta": {n: float(spins[n][0]) for n in names}}
    if os.path.exists(args.state):
        state = json.load(open(args.state))
        differ = [f"{k}: {v} in the state, {settings.get(k)} asked" for k, v in state.get("settings", {}).items()
                  if settings.get(k) != v]
        if differ or "settings" not in state:
            sys.exit(f"{args.state} is a run with other settings ({'; '.join(differ) or 'none recorded'}): "
                     "give its settings, or another --state")
    # The faults of the games so far; a state written before they were counted starts now.
    state.setdefault("faults", {"since": state["k"], "games": 0,
                                **{k: 0 for k in (*reliability_row.KINDS, "other")}})
    n_total = args.iterations
    big_a = n_total / 10
    while state["k"] < n_total:
        k = state["k"] + 1
        plus, minus, deltas, c = {}, {}, {}, {}
        for n in names:
            _, lo, hi = spins[n]
            c[n] = c_k = step[n] * (n_total / k) ** GAMMA
            deltas[n] = random.choice((-1, 1))
            theta = state["theta"][n]
            plus[n] = int(round(min(hi, max(lo, theta + c_k * deltas[n]))))
            minus[n] = int(round(min(hi, max(lo, theta - c_k * deltas[n]))))
        result, tally = play(args.engine, plus, minus, args.pairs, args.tc, args.openings, args.concurrency)
        count_faults(state, tally)
        for n in names:
            _, lo, hi = spins[n]
            c_k = c[n]
            a_end = args.rate * step[n] ** 2
            a = a_end * (big_a + n_total) ** ALPHA
            a_k = a / (big_a + k) ** ALPHA
            r_k = a_k / c_k ** 2
            state["theta"][n] = min(hi, max(lo, state["theta"][n] + r_k * c_k * result * deltas[n]))
        state["k"] = k
        # Written aside and renamed: a run killed mid-write keeps its last whole state.
        with open(args.state + ".tmp", "w") as f:
            json.dump(state, f, indent=1)
        os.replace(args.state + ".tmp", args.state)
        if k % 10 == 0 or k == n_total:
            faults = state["faults"]
            print(f"iteration {k}/{n_total}, last result {result:+.1f}; {faults['games']} games, "
                  + ", ".join(f"{faults[kind]} {kind}" for kind in (*reliability_row.KINDS, "other")), flush=True)
            for n in names:
                print(f"    {n} = {round(state['theta'][n])}", flush=True)
    print("docs/reliability.md's row for this run's games:")
    print(faults_row(state, args), flush=True)


if __name__ == "__main__":
    main()
