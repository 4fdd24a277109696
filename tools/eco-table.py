#!/usr/bin/env python3
"""Writes the opening table `sentinel analyse` names openings from (src/review/eco.txt), from
the a.tsv to e.tsv of lichess-org/chess-openings (public domain, CC0 1.0): the same names and
ECO codes lichess gives, in a form about a third of the size, built into the binary.

    git clone https://github.com/lichess-org/chess-openings
    tools/eco-table.py chess-openings > src/review/eco.txt

Each opening is a line written against the line before it (front coding: the files are ordered
by ECO code and name, so a line mostly extends the one before): five tab-separated fields, the
ECO code (empty: the same as the line before), how many characters of the name it shares with
the line before, the rest of the name, how many plies of the moves it shares, and the rest of
the moves in SAN without move numbers. `src/review/eco.rs` reads it back and its tests check
the count and some well-known lines. Only the standard library is needed.
"""

import argparse
import os
import re
import subprocess

MOVE_NUMBER = re.compile(r"^\d+\.(\.\.)?$")


def openings(folder):
    """(eco, name, [san, ...]) for every line of a.tsv .. e.tsv, in the files' order."""
    for volume in "abcde":
        with open(os.path.join(folder, f"{volume}.tsv"), encoding="utf-8") as tsv:
            for number, line in enumerate(tsv):
                fields = line.rstrip("\n").split("\t")
                if number == 0:
                    assert fields == ["eco", "name", "pgn"], fields
                    continue
                eco, name, pgn = fields
                yield eco, name, [word for word in pgn.split() if not MOVE_NUMBER.match(word)]


def shared(a, b):
    """How many leading items a and b have in common."""
    count = 0
    while count < min(len(a), len(b)) and a[count] == b[count]:
        count += 1
    return count


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("folder", help="a checkout of lichess-org/chess-openings")
    folder = parser.parse_args().folder
    try:
        commit = subprocess.run(["git", "-C", folder, "rev-parse", "--short", "HEAD"], capture_output=True,
                                text=True, check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        commit = "unknown"
    print(f"# lichess-org/chess-openings {commit}: public domain (CC0 1.0). Made by tools/eco-table.py;")
    print("# fields: ECO (empty: as above), name characters shared with the line above, the rest of")
    print("# the name, plies shared with the line above, the rest of the moves.")
    previous = ("", "", [])
    for eco, name, moves in openings(folder):
        name_shared = shared(name, previous[1])
        moves_shared = shared(moves, previous[2])
        code = "" if eco == previous[0] else eco
        print(code, name_shared, name[name_shared:], moves_shared, " ".join(moves[moves_shared:]), sep="\t")
        previous = (eco, name, moves)


if __name__ == "__main__":
    main()
