#!/usr/bin/env python3
"""The row a match adds to the running count of games and faults in docs/reliability.md, read
from the match's own output: the PGN that fastchess or cutechess-cli wrote, or what either printed.

    tools/reliability_row.py [--what TEXT] [--recorded TEXT] [--theirs NAME]... [--skip N] FILE...
    tools/reliability_row.py --count PGN        # how many games a PGN holds (for --skip)
    tools/reliability_row.py --self-test        # the parsing, on the recorded formats

Every match script (tools/sprt.sh, benches/threads-elo.sh, benches/calibrate-levels.sh,
tools/conformance-games.sh, tools/spsa.py) ends by running this on its games; tools/soak.py and
benches/chess960-match.py count their faults themselves and format the row with `row()` below.
One place formats the row, so that the table's columns and the scripts cannot drift apart (the
self-test checks the header against the page's table).

A fault is read as each program writes it (the strings of fastchess v1.8.2-alpha's match.hpp
and pgn_builder.cpp, and of cutechess-cli 1.5.1's result.cpp and pgngame.cpp):

  illegal      `makes an illegal move`; PGN Termination "illegal move"
  time         `loses on time`; Termination "time forfeit"
  crash        `disconnects`: the engine's pipe closed, its process gone; Termination
               "abandoned" (fastchess writes it for a stall too, and the last move's comment
               then says `connection stalls`)
  disconnect   `'s connection stalls`: the engine alive but not answering; cutechess's
               Termination "stalled connection"

The side at fault is the game's loser. A player is Sentinel when its UCI name (the PGN's
EngineWhiteName and EngineBlackName, which fastchess writes) starts with "Sentinel"; without a
UCI name, every player is counted as Sentinel unless --theirs names it. The other side's faults
are listed in the row's text and not counted. Games without a result (a match stopped by hand:
Termination "unterminated", result "*") are not counted as played. fastchess ends with a summary
per player (`Player: NAME`, `Timeouts: N`, `Crashed: N`, crashes and stalls together),
cutechess with `Score of A vs B: W - L - D [S] N`: where a file has them they are checked
against the games, and a difference is reported on stderr (the larger count is kept).

--skip N leaves out the first N games of the one PGN given: fastchess and cutechess append to
an existing PGN, so a script counts the games already there before it starts (--count).
"""

import argparse
import collections
import datetime
import os
import re
import sys

HEADER = "| date | builds | match | games | illegal moves | time losses | crashes | disconnects | recorded in |"
RULE = "| --- | --- | --- | --- | --- | --- | --- | --- | --- |"
KINDS = ("illegal", "time", "crash", "disconnect")
NAMES = {"illegal": "illegal move", "time": "time loss", "crash": "crash", "disconnect": "disconnect",
         "other": "other fault"}

# Termination tags (fastchess and cutechess write the same words, PGN's standard ones).
TERMINATION = {"time forfeit": "time", "illegal move": "illegal", "abandoned": "crash",
               "stalled connection": "disconnect"}
# A result's description: "White loses on time (12ms overrun)", "Black's connection stalls", ...
REASON = re.compile(r"\b(White|Black)( loses on time| makes an illegal move| disconnects|'s connection stalls)")
REASON_KIND = {" loses on time": "time", " makes an illegal move": "illegal", " disconnects": "crash",
               "'s connection stalls": "disconnect"}
# cutechess's descriptions when the side at fault cannot lose (the other has no mating material).
SIDELESS = {"Draw by timeout": "time", "Draw by disconnection": "crash",
            "Draw by stalled connection": "disconnect", "Result error": "other"}
FINISHED = re.compile(r"^Finished game (\d+) \((.+) vs (.+)\): (\S+) \{(.*)\}\s*$")
SCORE = re.compile(r"^Score of (.+) vs (.+): (\d+) - (\d+) - (\d+)\s+\[[-0-9.]+\] (\d+)\s*$")
SENTINEL_ID = re.compile(r"^Sentinel\b.*?(?:\(([0-9a-f]{7,})\))?\s*$", re.I)


class Tally:
    """The games of one match and the faults among them, by side."""

    def __init__(self):
        self.games = 0
        self.unfinished = 0
        self.ours = collections.Counter()
        self.theirs = collections.Counter()
        self.theirs_names = set()
        self.dates = set()
        self.players = {}  # name -> UCI name or None, in order of first appearance
        self.theirs_given = set()
        self.warnings = []

    def player(self, name, uci_name=None):
        if name not in self.players or (uci_name and not self.players[name]):
            self.players[name] = uci_name or self.players.get(name)

    def is_ours(self, name):
        if name in self.theirs_given:
            return False
        uci_name = self.players.get(name)
        return not uci_name or uci_name.lower().startswith("sentinel")

    def fault(self, kind, culprit):
        """A fault of `kind` by the player `culprit` (None when the record does not say who,
        which is counted against Sentinel: the count must not miss one)."""
        if culprit is not None and not self.is_ours(culprit):
            self.theirs[kind] += 1
            self.theirs_names.add(culprit)
        else:
            self.ours[kind] += 1

    def add(self, other):
        self.games += other.games
        self.unfinished += other.unfinished
        self.ours.update(other.ours)
        self.theirs.update(other.theirs)
        self.theirs_names |= other.theirs_names
        self.dates |= other.dates
        for name, uci_name in other.players.items():
            self.player(name, uci_name)
        self.warnings += other.warnings


def loser(result, white, black):
    return {"1-0": black, "0-1": white}.get(result)


def pgn_games(text):
    """(tags, movetext) of each game of a PGN text."""
    games, tags, moves = [], {}, []
    for line in text.splitlines():
        tag = re.match(r'^\[(\w+)\s+"(.*)"\]\s*$', line)
        if tag:
            if moves:
                games.append((tags, "\n".join(moves)))
                tags, moves = {}, []
            tags[tag.group(1)] = tag.group(2).replace('\\"', '"')
        elif line.strip():
            moves.append(line)
    if tags:
        games.append((tags, "\n".join(moves)))
    return games


def count_pgn(text, theirs=(), skip=0):
    tally = Tally()
    tally.theirs_given = set(theirs)
    for tags, moves in pgn_games(text)[skip:]:
        white, black = tags.get("White", "?"), tags.get("Black", "?")
        tally.player(white, tags.get("EngineWhiteName"))
        tally.player(black, tags.get("EngineBlackName"))
        result = tags.get("Result", "*")
        termination = tags.get("Termination", "").lower()
        if result == "*" or termination == "unterminated":
            tally.unfinished += 1
            continue
        tally.games += 1
        date = re.match(r"(\d{4})\.(\d\d)\.(\d\d)$", tags.get("Date", ""))
        if date:
            tally.dates.add(datetime.date(*map(int, date.groups())))
        kind = TERMINATION.get(termination)
        if kind is None:
            continue
        said = REASON.search(moves)
        if kind == "crash" and said and REASON_KIND[said.group(2)] == "disconnect":
            kind = "disconnect"
        tally.fault(kind, loser(result, white, black))
    return tally


def count_output(text, theirs=()):
    """The games of fastchess's or cutechess-cli's output, and their summaries checked."""
    tally = Tally()
    tally.theirs_given = set(theirs)
    by_player = collections.defaultdict(collections.Counter)
    summary, current, scores = {}, None, []
    for line in text.splitlines():
        finished = FINISHED.match(line)
        if finished:
            _, white, black, result, reason = finished.groups()
            tally.player(white)
            tally.player(black)
            if result == "*" or reason.startswith(("No result", "Game interrupted")):
                tally.unfinished += 1
                continue
            tally.games += 1
            said = REASON.search(reason)
            if said:
                kind = REASON_KIND[said.group(2)]
                culprit = white if said.group(1) == "White" else black
            else:
                kind = next((k for prefix, k in SIDELESS.items() if reason.startswith(prefix)), None)
                culprit = loser(result, white, black)
            if kind:
                tally.fault(kind, culprit)
                by_player[culprit][kind] += 1
            continue
        player = re.match(r"^Player: (.+?)\s*$", line)
        if player:
            current = summary.setdefault(player.group(1), {})
            continue
        count = re.match(r"^\s+(Timeouts|Crashed): (\d+)\s*$", line)
        if count and current is not None:
            current[count.group(1)] = int(count.group(2))
            continue
        score = SCORE.match(line)
        if score:
            scores.append(int(score.group(6)))
    for name, said in summary.items():
        counted = by_player.get(name, collections.Counter())
        for label, kinds in (("Timeouts", ("time",)), ("Crashed", ("crash", "disconnect"))):
            games_say = sum(counted[k] for k in kinds)
            if label in said and said[label] != games_say:
                tally.warnings.append(f"fastchess's summary gives {name} {said[label]} {label.lower()}, "
                                      f"its games {games_say}: the larger kept")
                for _ in range(said[label] - games_say):
                    tally.fault(kinds[0], name)
    if scores and scores[-1] != tally.games:
        tally.warnings.append(f"cutechess's last score counts {scores[-1]} games, its finished games {tally.games}")
    return tally


def is_pgn(text):
    return re.search(r'^\[(Event|White|Black|Result)\s+"', text, re.M) is not None


def count_file(path, theirs=(), skip=0):
    with open(path, encoding="utf-8", errors="replace") as f:
        text = f.read()
    tally = count_pgn(text, theirs, skip) if is_pgn(text) else count_output(text, theirs)
    if not is_pgn(text) and not tally.dates:
        # An output has no dates of its own: the day it was last written, when the match ended.
        tally.dates.add(datetime.date.fromtimestamp(os.path.getmtime(path)))
    return tally


def dates_text(dates):
    """The days the games were played on, as the docs' tables write them: 27 Nov 2026, 27-28 Nov
    2026, 30 Nov - 1 Dec 2026."""
    first, last = (min(dates), max(dates)) if dates else (datetime.date.today(),) * 2

    def day(d, month=True, year=True):
        return f"{d.day}" + (d.strftime(" %b") if month else "") + (d.strftime(" %Y") if year else "")

    if first == last:
        return day(last)
    if (first.year, first.month) == (last.year, last.month):
        return f"{day(first, False, False)}-{day(last)}"
    return f"{day(first, year=first.year != last.year)} - {day(last)}"


def builds_text(players):
    """Each player as the table names a build: Sentinel by the commit its UCI name carries (and
    the player's name where a script gave it options), another engine by its UCI name."""
    out = []
    for name, uci_name in players.items():
        sentinel = SENTINEL_ID.match(uci_name or "")
        if sentinel and sentinel.group(1):
            text = f"`{sentinel.group(1)}`"
            if "+" in name:
                text += f" as `{name}`"
        elif uci_name:
            text = uci_name
        else:
            text = f"`{name}`"
        if text not in out:
            out.append(text)
    return " against ".join(out) if len(out) == 2 else ", ".join(out)


def plural(count, kind):
    word = NAMES[kind]
    return f"{count} {word}{'' if count == 1 else 'es' if word.endswith(('ss', 'sh')) else 's'}"


def row(date, builds, what, tally, recorded, notes=()):
    """The table row: `tally` gives the games and the faults, `notes` any more to say."""
    said = list(notes)
    theirs = [plural(tally.theirs[k], k) for k in (*KINDS, "other") if tally.theirs[k]]
    if theirs:
        said.append(f"the opponent's faults, not counted: {', '.join(theirs)}")
    if tally.ours["other"]:
        said.append(plural(tally.ours["other"], "other"))
    if tally.unfinished:
        said.append(f"{tally.unfinished} unfinished game{'s' if tally.unfinished != 1 else ''} not counted")
    text = what + (f" ({'; '.join(said)})" if said else "")
    cells = [date, builds, text, f"{tally.games:,}", *(str(tally.ours[k]) for k in KINDS), recorded]
    return "| " + " | ".join(cells) + " |"


def match_row(paths, what, recorded=None, theirs=(), skip=0, date=None, builds=None, notes=()):
    if skip and len(paths) != 1:
        raise ValueError("--skip needs exactly one PGN")
    tally = Tally()
    for path in paths:
        tally.add(count_file(path, theirs, skip))
    recorded = recorded or ", ".join(f"`{os.path.basename(p)}`" for p in paths)
    builds = builds or builds_text(tally.players)
    return row(date or dates_text(tally.dates), builds, what, tally, recorded, notes), tally


def is_move_error(err):
    """Whether a python-chess EngineError is a move the engine sent that could not be played:
    python-chess raises one (wrapping IllegalMoveError or InvalidMoveError, ValueErrors) where a
    GUI would declare an illegal move, so the scripts that play through it count it as one."""
    cause = err.args[0] if getattr(err, "args", None) else None
    return isinstance(cause, ValueError) or re.match(r"(illegal|invalid|ambiguous) (uci|san)", str(err)) is not None


def played_tally(games, ours, theirs=(), dates=(), players=None):
    """A Tally from a script that counts its own faults (`ours` and `theirs`: kind -> count,
    kinds as KINDS and "other"), for row()."""
    tally = Tally()
    tally.games = games
    tally.ours.update({k: v for k, v in dict(ours).items() if v})
    tally.theirs.update({k: v for k, v in dict(theirs).items() if v})
    tally.dates = set(dates) or {datetime.date.today()}
    for name, uci_name in (players or {}).items():
        tally.player(name, uci_name)
    return tally


def self_test():
    """The parsing, on outputs written as the two programs write them (tests/data/reliability)."""
    here = os.path.dirname(os.path.abspath(__file__))
    data = os.path.join(here, "..", "tests", "data", "reliability")
    failures = []

    def check(what, got, want):
        if got != want:
            failures.append(f"{what}: got {got!r}, want {want!r}")

    pgn = count_file(os.path.join(data, "fastchess.pgn"))
    check("fastchess PGN games", pgn.games, 7)
    check("fastchess PGN unfinished", pgn.unfinished, 1)
    check("fastchess PGN Sentinel's faults", dict(pgn.ours), {"time": 1, "illegal": 1, "crash": 1, "disconnect": 1})
    check("fastchess PGN opponent's faults", dict(pgn.theirs), {"time": 1})
    check("fastchess PGN dates", dates_text(pgn.dates), "30 Nov - 1 Dec 2026")
    check("fastchess PGN builds", builds_text(pgn.players), "`00dd1f8` against Stockfish 15.1")
    skipped = count_pgn(open(os.path.join(data, "fastchess.pgn")).read(), skip=3)
    check("fastchess PGN after 3", (skipped.games, dict(skipped.ours)),
          (4, {"illegal": 1, "crash": 1, "disconnect": 1}))

    out = count_file(os.path.join(data, "fastchess.out"))
    check("fastchess output games", out.games, 6)
    check("fastchess output Sentinel's faults", dict(out.ours), {"time": 1, "illegal": 1, "crash": 1})
    check("fastchess output warnings", out.warnings, [])
    selfplay = count_file(os.path.join(data, "fastchess-selfplay.out"))
    check("fastchess self-play: both sides count, and the summary's crash the games lack",
          dict(selfplay.ours), {"time": 2, "crash": 1})
    check("fastchess self-play: the difference reported", len(selfplay.warnings), 1)

    cute = count_file(os.path.join(data, "cutechess.log"), theirs=["Opponent"])
    check("cutechess output games", cute.games, 6)
    check("cutechess output Sentinel's faults", dict(cute.ours), {"disconnect": 1, "illegal": 1})
    check("cutechess output opponent's faults", dict(cute.theirs), {"time": 2})
    check("cutechess output warnings", cute.warnings, [])
    cute_pgn = count_file(os.path.join(data, "cutechess.pgn"), theirs=["Opponent"])
    check("cutechess PGN", (cute_pgn.games, dict(cute_pgn.ours), dict(cute_pgn.theirs)),
          (4, {"disconnect": 1, "crash": 1}, {"time": 1}))

    line, _ = match_row([os.path.join(data, "fastchess.pgn")], "10+0.1, fixed length", recorded="log")
    check("row", line, "| 30 Nov - 1 Dec 2026 | `00dd1f8` against Stockfish 15.1 | 10+0.1, fixed length "
          "(the opponent's faults, not counted: 1 time loss; 1 unfinished game not counted) | 7 | 1 | 1 | 1 | 1 | log |")
    check("row cells", line.count("|"), HEADER.count("|"))

    class EngineError(Exception):
        pass

    check("an illegal move python-chess raised", is_move_error(EngineError(ValueError("illegal uci: 'e2e5' in ..."))), True)
    check("a protocol error is not a move", is_move_error(EngineError("expected integer for spin option")), False)
    played = played_tally(100, {"illegal": 1, "disconnect": 2, "time": 0}, {"time": 3},
                          [datetime.date(2026, 11, 23)], {"sentinel": "Sentinel 1.0.0 (28adaab)", "ref": "Stockfish 15.1"})
    check("a script's own counts", row("23 Nov 2026", builds_text(played.players), "soak", played, "log"),
          "| 23 Nov 2026 | `28adaab` against Stockfish 15.1 | soak (the opponent's faults, not counted: 3 time losses) "
          "| 100 | 1 | 0 | 0 | 2 | log |")

    page = open(os.path.join(here, "..", "docs", "reliability.md"), encoding="utf-8").read().splitlines()
    check("docs/reliability.md has the header this script prints", HEADER in page, True)
    for failure in failures:
        print("FAIL", failure)
    print("self-test:", "passed" if not failures else f"{len(failures)} failed")
    return 1 if failures else 0


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter, epilog=__doc__)
    ap.add_argument("files", nargs="*", metavar="FILE", help="PGN files or fastchess/cutechess output")
    ap.add_argument("--what", default="a match", help="the row's description of the match")
    ap.add_argument("--recorded", help="where the match is recorded (default: the files' names)")
    ap.add_argument("--theirs", action="append", default=[], metavar="NAME",
                    help="a player that is not Sentinel, for output without UCI names")
    ap.add_argument("--skip", type=int, default=0, help="leave out the first N games of the PGN")
    ap.add_argument("--date", help="the row's date (default: the games' own)")
    ap.add_argument("--builds", help="the row's builds (default: the players' UCI names or names)")
    ap.add_argument("--note", action="append", default=[], help="more to say in the row's match cell")
    ap.add_argument("--count", action="store_true", help="print the number of games in the PGN and stop")
    ap.add_argument("--header", action="store_true", help="print the table's header first")
    ap.add_argument("--self-test", action="store_true")
    args = ap.parse_args()
    if args.self_test:
        return self_test()
    if args.count:
        total = 0
        for path in args.files:
            if os.path.exists(path):
                with open(path, encoding="utf-8", errors="replace") as f:
                    total += len(pgn_games(f.read()))
        print(total)
        return 0
    if not args.files:
        ap.error("no file")
    missing = [p for p in args.files if not os.path.exists(p)]
    if missing:
        print(f"reliability_row.py: no such file: {', '.join(missing)}", file=sys.stderr)
        return 1
    try:
        line, tally = match_row(args.files, args.what, args.recorded, args.theirs, args.skip, args.date,
                                args.builds, args.note)
    except ValueError as err:
        ap.error(str(err))
    for warning in tally.warnings:
        print(f"reliability_row.py: {warning}", file=sys.stderr)
    if args.header:
        print(HEADER)
        print(RULE)
    print(line)
    return 0


if __name__ == "__main__":
    sys.exit(main())
