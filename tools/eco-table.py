#!/usr/bin/env python3
"""Writes the opening table `sentinel analyse` names openings from (src/review/eco.txt), from
the ECO classification file pgn-extract ships (eco.pgn: David J. Barnes's, from a file put
together by Ewart Shaw, Franz Hemmer and others; GPL-3+ as Debian's pgn-extract package
states), in a compact form built into the binary.

    sudo apt-get install pgn-extract
    tools/eco-table.py > src/review/eco.txt           # tools/data/eco.pgn
    tools/eco-table.py path/to/eco.pgn > src/review/eco.txt

Each opening is a game of the file: its ECO tag, a name made the way review sites write one
(the Opening tag, then `: ` and the Variation tag, then `, ` and the SubVariation tag, where the
file has them: `Philidor: Philidor counter-gambit`) and its moves. Each becomes a line written
against the line before it (front coding: the file is ordered by ECO code, so a line mostly
extends the one before): five tab-separated fields, the ECO code (empty: the same as the line
before), how many characters of the name it shares with the line before, the rest of the name,
how many plies of the moves it shares, and the rest of the moves in SAN without move numbers.
The file's order is kept: where two openings reach the same position, the first is the name a
transposition gets. The source's own opening comment (its credits) heads the table as `#`
lines. `src/review/eco.rs` reads it back and its tests check the count and some well-known
lines. Only the standard library is needed.
"""

import argparse
import hashlib
import pathlib
import re

# pgn-extract's file as Debian ships it (/usr/share/pgn-extract/eco.pgn), kept in the repository
# beside this tool as the table's source.
DEFAULT = str(pathlib.Path(__file__).resolve().parent / "data" / "eco.pgn")
TAG = re.compile(r'^\[(\w+)\s+"((?:[^"\\]|\\.)*)"\]$')
MOVE_NUMBER = re.compile(r"^\d+\.+")
RESULTS = {"*", "1-0", "0-1", "1/2-1/2"}
TAGS = {"ECO", "Opening", "Variation", "SubVariation"}


def read(path):
    """(the file's leading comment, [(eco, name, [san, ...]), ...]) in the file's order."""
    with open(path, encoding="utf-8") as pgn:
        text = pgn.read()
    credits = ""
    stripped = text.lstrip()
    if stripped.startswith("{"):
        end = stripped.index("}")
        credits, text = stripped[1:end].strip(), stripped[end + 1:]
    games, tags, moves = [], {}, []
    for number, line in enumerate(text.splitlines(), 1):
        line = line.strip()
        tag = TAG.match(line)
        if tag:
            if moves:
                raise SystemExit(f"{path}:{number}: a tag inside a game's moves")
            if tag.group(1) not in TAGS:
                raise SystemExit(f"{path}:{number}: tag {tag.group(1)} is not one of {sorted(TAGS)}")
            tags[tag.group(1)] = tag.group(2).replace('\\"', '"').replace("\\\\", "\\")
            continue
        line = re.sub(r"\{[^}]*\}", " ", line)
        for word in line.split():
            word = MOVE_NUMBER.sub("", word)
            if word in RESULTS:
                if "ECO" not in tags or "Opening" not in tags or not moves:
                    raise SystemExit(f"{path}:{number}: a game without an ECO tag, an Opening tag or moves")
                name = tags["Opening"]
                if "Variation" in tags:
                    name += ": " + tags["Variation"]
                if "SubVariation" in tags:
                    name += ", " + tags["SubVariation"]
                games.append((tags["ECO"], name, moves))
                tags, moves = {}, []
            elif word:
                moves.append(word)
    if tags or moves:
        raise SystemExit(f"{path}: the last game has no result")
    return credits, games


def shared(a, b):
    """How many leading items a and b have in common."""
    count = 0
    while count < min(len(a), len(b)) and a[count] == b[count]:
        count += 1
    return count


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("eco_pgn", nargs="?", default=DEFAULT, help=f"pgn-extract's eco.pgn (default {DEFAULT})")
    path = parser.parse_args().eco_pgn
    try:
        with open(path, "rb") as source:
            digest = hashlib.sha256(source.read()).hexdigest()
        credits, games = read(path)
    except (OSError, UnicodeDecodeError) as error:
        raise SystemExit(f"eco-table.py: {path}: {error}") from None
    print(f"# pgn-extract's eco.pgn (sha256 {digest[:16]}), {len(games)} openings: GPL-3+")
    print("# (Debian's pgn-extract copyright file). Made by tools/eco-table.py. Its own credits:")
    for line in credits.splitlines():
        print(f"#   {line}".rstrip())
    print("# Fields: ECO (empty: as above), name characters shared with the line above, the rest of")
    print("# the name, plies shared with the line above, the rest of the moves.")
    previous = ("", "", [])
    for eco, name, moves in games:
        name_shared = shared(name, previous[1])
        moves_shared = shared(moves, previous[2])
        code = "" if eco == previous[0] else eco
        print(code, name_shared, name[name_shared:], moves_shared, " ".join(moves[moves_shared:]), sep="\t")
        previous = (eco, name, moves)


if __name__ == "__main__":
    main()
