#!/usr/bin/env python3
"""Soak test: many fast games of Sentinel, in both protocols, against a reference engine and
against itself, looking for faults rather than strength.

Each game picks its configuration in turn from the combinations of protocol (uci, xboard),
opponent (reference, self) and threads (1, 2) (or those --config names); every --classic-every
rounds of those, the round is played at 40 moves in 10 s instead of 1+0.01. Pondering is on
for Sentinel throughout, and --option adds options (MultiPV, book, tables, levels) to every
Sentinel. It counts:

  illegal   a move not legal in the position
  time      a clock below zero (more than --grace seconds over). The clock runs as GUIs run it
            (xboard, cutechess-cli, fastchess): from the `go` or `ponderhit` written to the move
            read. The rest of a python-chess call (its own `ping` round trips before and after
            the move, ~5 ms a move here with one thread per engine and ~11 ms with two, on a
            2-core machine) is not the engine's and is not charged, or no engine could keep
            its clock at 1+0.01
  crash     the engine process died or python-chess lost it
  hang      no move within the time left plus --hang seconds
  warning   anything python-chess logs about the engine's output (unexpected lines, bad info)

and records the peak resident memory (VmHWM) of every Sentinel process, and its resident
memory after each game (to see growth over a long run: engines are kept between games and
restarted only after a fault). PGNs of faulty games are appended to faulty.pgn in --out.

    tools/soak.py --engine target/release/sentinel --games 2000 --out /tmp/soak

Needs python-chess (`pip install chess`). The second-last line is machine-readable:
'SOAK games=N illegal=N time=N crash=N hang=N warnings=N peak_rss_mb=X ...'; the last is the
run's row for docs/reliability.md (tools/reliability_row.py: a hang is its "disconnect", the
engine alive but not answering; the reference engine's faults are named apart).
"""

import argparse
import itertools
import logging
import os
import random
import sys
import time

import chess
import chess.engine
import chess.pgn

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import reliability_row  # noqa: E402 (the path above first)


class WarningCounter(logging.Handler):
    """Collects what python-chess says about engine output it did not like."""

    def __init__(self):
        super().__init__(level=logging.WARNING)
        self.messages = []

    def emit(self, record):
        self.messages.append(record.getMessage())


class LineClock(logging.Handler):
    """Times of the lines python-chess writes to and reads from the engines (its debug log),
    to clock a move from the `go` written to the move read."""

    def __init__(self):
        super().__init__(level=logging.DEBUG)
        self.lines = []

    def emit(self, record):
        self.lines.append((time.monotonic(), record.getMessage()))

    def reset(self):
        """Forgets the lines so far: the next move is clocked from what follows."""
        self.lines = []

    def thinking_time(self, pid):
        """The time from the first `go`/`ponderhit` to the next move of the engine `pid` among
        the lines since the last call, and the command that started it; (None, None) if they
        are not there (then the whole call is charged)."""
        lines, self.lines = self.lines, []
        tag = f"(pid={pid})>: "
        started, command = None, None
        for at, message in lines:
            _, found, line = message.partition(tag)
            if not found:
                continue
            if started is None and line.startswith("<< ") and line[3:].split(" ")[0] in ("go", "ponderhit"):
                started, command = at, line[3:]
            elif started is not None and line.startswith(">> ") and line[3:].split(" ")[0] in ("bestmove", "move"):
                return at - started, command
        return None, None


def rss_kb(pid, field):
    try:
        with open(f"/proc/{pid}/status") as status:
            for line in status:
                if line.startswith(field + ":"):
                    return int(line.split()[1])
    except OSError:
        pass
    return 0


class Player:
    """One engine process, kept across games."""

    def __init__(self, command, protocol, options, is_sentinel):
        self.command, self.protocol, self.options, self.is_sentinel = command, protocol, options, is_sentinel
        self.engine = None

    def open(self):
        if self.engine is None:
            popen = chess.engine.SimpleEngine.popen_uci if self.protocol == "uci" else chess.engine.SimpleEngine.popen_xboard
            self.engine = popen(self.command, timeout=20)
            # XBoard sets the table size and threads with its own commands.
            renamed = {"Hash": "memory", "Threads": "cores"} if self.protocol == "xboard" else {}
            options = {renamed.get(k, k): v for k, v in self.options.items()}
            # Options python-chess will not set (it manages MultiPV itself, and cuts XBoard
            # option names at their first space) go as the protocol's own lines.
            xboard = self.protocol == "xboard"
            raw_names = [k for k in options if k == "MultiPV" or (xboard and (" " in k or k == "SyzygyPath"))]
            raw = {k: options.pop(k) for k in raw_names}
            unknown = [k for k in options if k not in self.engine.options]
            if unknown:
                print(f"note: {self.command[0]} has no {self.protocol} option {unknown}; left out", flush=True)
            self.engine.configure({k: v for k, v in options.items() if k not in unknown})
            protocol = self.engine.protocol
            for name, value in raw.items():
                if not xboard:
                    line = f"setoption name {name} value {value}"
                elif name == "SyzygyPath":
                    line = f"egtpath syzygy {value}"
                else:
                    line = f"option {name}={value}"
                protocol.loop.call_soon_threadsafe(protocol.send_line, line)
        return self.engine

    def pid(self):
        try:
            return self.engine.transport.get_pid()
        except Exception:
            return None

    def close(self):
        if self.engine is not None:
            try:
                self.engine.quit()
            except Exception:
                try:
                    self.engine.close()
                except Exception:
                    pass
        self.engine = None


def play_game(white, black, fen, tc, args):
    """Plays one game; returns (result, fault or None, faulty colour, final board, Sentinel's
    lowest clock, its close calls)."""
    board = chess.Board(fen)
    players = {chess.WHITE: white, chess.BLACK: black}
    base, inc, moves_per_session = tc
    clocks = {chess.WHITE: base, chess.BLACK: base}
    fault, faulty = None, None
    game_id = object()
    lowest = float("inf")  # the lowest any Sentinel clock fell after a move, in seconds
    close_calls = []  # Sentinel's moves that left under --close seconds: what started them, how long
    while not board.is_game_over(claim_draw=True) and board.ply() < args.max_plies:
        side = board.turn
        player = players[side]
        moves_made = board.fullmove_number - chess.Board(fen).fullmove_number
        limit = chess.engine.Limit(white_clock=clocks[chess.WHITE], black_clock=clocks[chess.BLACK],
                                   white_inc=inc, black_inc=inc)
        if moves_per_session:
            limit.remaining_moves = moves_per_session - moves_made % moves_per_session
        try:
            engine = player.open()
            args.line_clock.reset()
            start = time.monotonic()
            res = engine.play(board, limit, game=game_id, ponder=player.is_sentinel,
                              info=chess.engine.INFO_NONE)
        except chess.engine.EngineTerminatedError as err:
            fault, faulty = f"crash: {err!r}", side
            break
        except chess.engine.EngineError as err:
            # python-chess raises this for a move it cannot play, which a GUI calls illegal.
            if reliability_row.is_move_error(err):
                fault, faulty = f"illegal move (as sent): {err}", side
            else:
                fault, faulty = f"crash (protocol error): {err!r}", side
            break
        except TimeoutError:
            fault, faulty = "hang (no move)", side
            break
        used, command = args.line_clock.thinking_time(player.pid())
        if used is None:
            used = time.monotonic() - start
        clocks[side] -= used
        if player.is_sentinel:
            lowest = min(lowest, clocks[side])
            if clocks[side] < args.close:
                close_calls.append(f"pid {player.pid()} ply {board.ply()}: {clocks[side] + used:.3f}s - {used:.3f}s after '{command}'")
        if clocks[side] < -args.grace:
            fault, faulty = f"time forfeit ({-clocks[side]:.3f}s over)", side
            break
        clocks[side] += inc
        if moves_per_session and side == chess.BLACK and (moves_made + 1) % moves_per_session == 0:
            clocks[chess.WHITE] += base
            clocks[chess.BLACK] += base
        if res.move is None:
            if res.resigned:
                return ("0-1" if side == chess.WHITE else "1-0"), None, None, board, lowest, close_calls
            fault, faulty = "no move returned", side
            break
        if res.move not in board.legal_moves:
            fault, faulty = f"illegal move {res.move.uci()} in {board.fen()}", side
            break
        board.push(res.move)
    if fault:
        result = "0-1" if faulty == chess.WHITE else "1-0"
    elif board.is_game_over(claim_draw=True):
        result = board.result(claim_draw=True)
    else:
        result = "1/2-1/2"
    return result, fault, faulty, board, lowest, close_calls


def players_of(white, black):
    return {chess.WHITE: white, chess.BLACK: black}


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--engine", default="target/release/sentinel")
    ap.add_argument("--reference", default="/usr/games/stockfish", help="a UCI engine to play against")
    ap.add_argument("--reference-option", action="append", default=["Threads=1", "Hash=16"], metavar="NAME=VALUE")
    ap.add_argument("--option", action="append", default=[], metavar="NAME=VALUE",
                    help="a Sentinel option for every game (e.g. MultiPV=2, OwnBook=true)")
    ap.add_argument("--games", type=int, default=100)
    ap.add_argument("--classic-every", type=int, default=20,
                    help="every Nth round of the configurations is played at 40 moves in 10 s; the others 1+0.01")
    ap.add_argument("--config", action="append", default=[], metavar="PROTOCOL,OPPONENT,THREADS",
                    help="play only these configurations (e.g. uci,self,2); all eight by default")
    ap.add_argument("--hash", type=int, default=16)
    ap.add_argument("--max-plies", type=int, default=300)
    ap.add_argument("--grace", type=float, default=0.5,
                    help="seconds over the clock before a time loss: the clock is kept here, "
                         "so it includes this script's and the pipes' delays")
    ap.add_argument("--close", type=float, default=0.05,
                    help="log every Sentinel move that leaves less than this many seconds on its clock")
    ap.add_argument("--hang", type=float, default=10.0, help="seconds past the clock that count as a hang")
    ap.add_argument("--openings", default=os.path.join(os.path.dirname(os.path.abspath(__file__)), "openings.epd"))
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--out", default="/tmp/soak", help="folder for the log and the faulty games' PGN")
    args = ap.parse_args()

    os.makedirs(args.out, exist_ok=True)
    counter = WarningCounter()
    logging.getLogger("chess.engine").addHandler(counter)
    args.line_clock = LineClock()
    logging.getLogger("chess.engine").addHandler(args.line_clock)
    logging.getLogger("chess.engine").setLevel(logging.DEBUG)
    openings = [chess.STARTING_FEN]
    if args.openings and os.path.exists(args.openings):
        with open(args.openings) as f:
            openings = [line.strip() for line in f if line.strip() and not line.startswith("#")]
    rng = random.Random(args.seed)

    def option_dict(pairs):
        return dict(pair.split("=", 1) for pair in pairs)

    sentinel_options = {"Hash": args.hash, **option_dict(args.option)}
    configs = list(itertools.product(["uci", "xboard"], ["reference", "self"], [1, 2]))
    if args.config:
        wanted = [tuple(c.split(",")) for c in args.config]
        configs = [c for c in configs if (c[0], c[1], str(c[2])) in wanted]
        if not configs:
            sys.exit(f"no configuration matches {args.config}")
    players = {}

    def player(key, make):
        if key not in players:
            players[key] = make()
        return players[key]

    def sentinel(protocol, threads, seat):
        options = {**sentinel_options, "Threads": threads}
        return player(("sentinel", protocol, threads, seat),
                      lambda: Player([args.engine], protocol, options, True))

    reference = lambda: player(("reference",), lambda: Player([args.reference], "uci",
                                                              option_dict(args.reference_option), False))
    tally = {"illegal": 0, "time": 0, "crash": 0, "hang": 0, "other": 0}
    reference_faults = 0
    reference_tally = {"illegal": 0, "time": 0, "crash": 0, "hang": 0, "other": 0}
    uci_names = {}  # the row's builds: each engine's UCI name, from its first game
    lowest_clock = {}  # per configuration
    peak_kb, rss_after = 0, {}
    started = time.monotonic()
    log = open(os.path.join(args.out, "soak.log"), "a")
    for g in range(args.games):
        protocol, opponent, threads = configs[g % len(configs)]
        rounds = g // len(configs)
        classic = args.classic_every > 0 and rounds % args.classic_every == args.classic_every - 1
        tc = (10.0, 0.0, 40) if classic else (1.0, 0.01, 0)
        ours = sentinel(protocol, threads, "a")
        theirs = reference() if opponent == "reference" else sentinel(protocol, threads, "b")
        sentinel_white = g % 2 == 0
        white, black = (ours, theirs) if sentinel_white else (theirs, ours)
        fen = rng.choice(openings)
        warnings_before = len(counter.messages)
        result, fault, faulty, board, lowest, close_calls = play_game(white, black, fen, tc, args)
        for p in {white, black}:
            if p.is_sentinel and p.engine is not None:
                # An engine left pondering after the game's last move would think on until its
                # next game and slow the others down: a ping makes python-chess end the search.
                try:
                    p.engine.ping()
                except Exception:
                    pass
                pid = p.pid()
                if pid:
                    peak_kb = max(peak_kb, rss_kb(pid, "VmHWM"))
                    rss_after.setdefault(pid, []).append(rss_kb(pid, "VmRSS"))
        new_warnings = counter.messages[warnings_before:]
        name = f"{protocol} vs {opponent} threads {threads} {'40/10' if classic else '1+0.01'}"
        lowest_clock[name] = min(lowest_clock.get(name, float("inf")), lowest)
        line = f"game {g + 1:5d} {name}: {result}"
        if close_calls:
            line += f"  CLOSE {'; '.join(close_calls[:3])}"
        for p in (white, black):
            if p.engine is not None and p.command[0] not in uci_names:
                uci_names[p.command[0]] = p.engine.id.get("name")
        if fault and not players_of(white, black)[faulty].is_sentinel:
            reference_faults += 1
            reference_tally[next((k for k in reference_tally if fault.startswith(k)), "other")] += 1
            line += f"  REFERENCE FAULT ({'white' if faulty == chess.WHITE else 'black'}) {fault}"
            for p in (white, black):
                p.close()
        elif fault:
            kind = next((k for k in tally if fault.startswith(k)), "other")
            tally[kind] += 1
            line += f"  FAULT ({'white' if faulty == chess.WHITE else 'black'}) {fault}"
            for p in (white, black):
                p.close()
        if new_warnings:
            line += f"  WARNINGS {new_warnings[:3]}"
        if fault or new_warnings:
            game = chess.pgn.Game.from_board(board)
            game.headers.update({"Event": name, "Round": str(g + 1), "Result": result, "FEN": fen, "SetUp": "1"})
            with open(os.path.join(args.out, "faulty.pgn"), "a") as out:
                print(game, file=out, end="\n\n")
        print(line, flush=True)
        print(line, file=log, flush=True)
    for p in players.values():
        p.close()
    growth = [(v[0], v[-1]) for v in rss_after.values() if len(v) > 1]
    growth_text = " ".join(f"{a // 1024}->{b // 1024}MB" for a, b in growth)
    elapsed = time.monotonic() - started
    summary = (f"SOAK games={args.games} illegal={tally['illegal']} time={tally['time']} crash={tally['crash']} "
               f"hang={tally['hang']} other={tally['other']} warnings={len(counter.messages)} "
               f"reference_faults={reference_faults} lowest_clock_s={min(lowest_clock.values(), default=0):.3f} "
               f"peak_rss_mb={peak_kb / 1024:.1f} rss_first_last=[{growth_text}] seconds={elapsed:.0f}")
    for name, lowest in sorted(lowest_clock.items()):
        print(f"lowest clock {name}: {lowest:.3f}s", file=log)
        print(f"lowest clock {name}: {lowest:.3f}s")
    print(summary)
    print(summary, file=log)
    kinds = lambda t: {"illegal": t["illegal"], "time": t["time"], "crash": t["crash"], "disconnect": t["hang"],
                       "other": t["other"]}
    played = reliability_row.played_tally(args.games, kinds(tally), kinds(reference_tally), players=uci_names)
    configurations = ", ".join(f"{p} {o} {t}" for p, o, t in configs) if args.config else "the eight configurations"
    options = f", {' '.join(args.option)}" if args.option else ""
    notes = [f"{len(counter.messages)} python-chess warnings"] if counter.messages else []
    line = reliability_row.row(reliability_row.dates_text(played.dates), reliability_row.builds_text(played.players),
                               f"tools/soak.py, {configurations}{options}", played,
                               f"`{os.path.join(args.out, 'soak.log')}`", notes)
    print(line)
    print(line, file=log)
    return 0 if sum(tally.values()) == 0 and not counter.messages else 1


if __name__ == "__main__":
    sys.exit(main())
