#!/usr/bin/env python3
"""How much of its clock each engine leaves at the end of long games, and how its move times
compare with the time its clock allowed: what time management is judged by.

    tools/clock-left.py games.pgn [--min-moves 60] [--moves-left 30] [--overhead 10] [--by-move]

Reads the move times from the comments fastchess and cutechess-cli write after each move
(`{+0.53/14 0.273s}`) and the clock from the `TimeControl` tag (`10+0.1`), and replays each
side's clock: the start, less each move's time, plus the increment after each move. For games
of at least --min-moves moves a side, prints each engine's median clock left at the end. For
every move from the ninth on, it also prints the median and mean of the move's time over the
"optimum" Sentinel plans from the clock before it (the clock plus the increments of the
moves still to play, less the overhead for each, over --moves-left moves: `search/time.rs`),
which says how much of its plan the search spends. --by-move adds, over the same long games,
where each engine's clock went: its median clock after moves 10, 20, ... and its median move
time in each stretch of ten moves. Only the standard library is needed.
"""

import argparse
import re
import statistics


def games(text):
    """Each game's tags (a dict) and its move times in seconds, in the order played."""
    for chunk in text.split("[Event ")[1:]:
        tags = dict(re.findall(r'\[(\w+) "([^"]*)"\]', chunk))
        body = chunk.split("\n\n", 1)[1] if "\n\n" in chunk else ""
        times = [float(t) for t in re.findall(r"\{[^}]*?([\d.]+)s\b[^}]*\}", body)]
        yield tags, times


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("pgn")
    ap.add_argument("--min-moves", type=int, default=60)
    ap.add_argument("--moves-left", type=int, default=30, help="Sentinel's expected_moves_left")
    ap.add_argument("--overhead", type=float, default=10, help="Move Overhead, ms")
    ap.add_argument("--by-move", action="store_true", help="the clock and move times by move number")
    args = ap.parse_args()
    left, ratios = {}, {}
    # Per engine, over the long games: the clock after each tenth move, and the move times of
    # each stretch of ten moves, keyed by the stretch's first move.
    after, stretch = {}, {}
    for tags, times in games(open(args.pgn, encoding="utf-8", errors="replace").read()):
        clock = re.fullmatch(r"([\d.]+)\+([\d.]+)", tags.get("TimeControl", ""))
        if not clock or not times:
            continue
        base, increment = float(clock.group(1)), float(clock.group(2))
        white_first = " w " in tags.get("FEN", " w ")
        names = (tags["White"], tags["Black"]) if white_first else (tags["Black"], tags["White"])
        clocks = [base, base]
        long_game = len(times) >= 2 * args.min_moves
        m, overhead = args.moves_left, args.overhead / 1000
        for ply, spent in enumerate(times):
            side = ply % 2
            optimum = max(clocks[side] + increment * (m - 1) - overhead * m, 0.001) / m
            if ply >= 16:
                ratios.setdefault(names[side], []).append(spent / optimum)
            clocks[side] += increment - spent
            move = ply // 2 + 1
            if long_game:
                stretch.setdefault(names[side], {}).setdefault((move - 1) // 10 * 10 + 1, []).append(spent)
                if move % 10 == 0:
                    after.setdefault(names[side], {}).setdefault(move, []).append(clocks[side])
        if long_game:
            for side in (0, 1):
                left.setdefault(names[side], []).append(clocks[side])
    for name in sorted(set(left) | set(ratios)):
        ends, spent = left.get(name, []), ratios.get(name, [])
        end = f"median {statistics.median(ends):.2f} s left in {len(ends)} games" if ends else "no long game"
        share = f"move time / optimum: median {statistics.median(spent):.2f}, mean {statistics.mean(spent):.2f}"
        print(f"{name}: {end} of {args.min_moves}+ moves; {share} over {len(spent)} moves")
        if args.by_move and name in after:
            # Only the moves every long game reached: later ones speak for a few games.
            clock = " ".join(f"{m}:{statistics.median(v):.2f}" for m, v in sorted(after[name].items()) if m <= args.min_moves)
            times = " ".join(
                f"{m}-{m + 9}:{statistics.median(v):.3f}" for m, v in sorted(stretch[name].items()) if m < args.min_moves
            )
            print(f"  clock after move (median, s): {clock}")
            print(f"  move time by moves (median, s): {times}")


if __name__ == "__main__":
    main()
