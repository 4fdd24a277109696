#!/bin/sh
# Runs real clients against a built Sentinel, where they install here (docs/gui.md shows a
# run): Scid's own engine code (tcl/enginecomm.tcl from Debian's `scid`) analysing under
# tclsh; pgn-extract reading `sentinel analyse`'s review with -r; and pgn-postmortem, a review
# tool from PyPI, analysing and writing its site with Sentinel as its engine. These need
# packages CI lacks (`apt-get install scid pgn-extract`, and PyPI), so they are a script, not
# tests. Exits 1 when a check fails, 2 when a client is missing.
#
#   sh tools/client-checks.sh [SENTINEL]
set -u
cd "$(dirname "$0")/.."
engine=$(realpath "${1:-target/release/sentinel}")
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
failed=0

for need in tclsh /usr/share/scid/tcl/enginecomm.tcl /usr/games/pgn-extract python3; do
    if ! command -v "$need" >/dev/null 2>&1 && [ ! -e "$need" ]; then
        echo "missing $need (apt-get install tcl scid pgn-extract python3-venv)"
        exit 2
    fi
done

echo "== Scid 4.7 enginecomm.tcl under tclsh, 3 s of analysis"
if tclsh tools/scid-analyse.tcl "$engine" 3 >"$work/scid.txt" 2>&1; then
    tail -n 1 "$work/scid.txt"
else
    failed=1
    tail -n 20 "$work/scid.txt"
fi

echo "== the same, Scid's protocol set to XBoard"
if tclsh tools/scid-analyse.tcl "$engine" 2 xboard >"$work/scid-xboard.txt" 2>&1; then
    tail -n 1 "$work/scid-xboard.txt"
else
    failed=1
    tail -n 20 "$work/scid-xboard.txt"
fi

echo "== pgn-extract -r on the review of docs/review-example.pgn and a game with clocks"
cp docs/review-example.pgn "$work/games.pgn"
cat >>"$work/games.pgn" <<'PGN'

[Event "Casual blitz"]
[Site "?"]
[Date "2026.11.30"]
[Round "-"]
[White "A"]
[Black "B"]
[Result "0-1"]
[TimeControl "180+2"]

1. f3 {[%clk 0:03:00]} e5 {[%clk 0:03:00]} 2. g4 {[%clk 0:02:58]} Qh4# {[%clk 0:02:55]} 0-1
PGN
"$engine" analyse "$work/games.pgn" --nodes 30000 --quiet --out "$work/reviewed.pgn"
/usr/games/pgn-extract -r "$work/reviewed.pgn" >"$work/extract.out" 2>"$work/extract.err"
cat "$work/extract.err"
if ! grep -q "^2 games matched out of 2.$" "$work/extract.err" || [ "$(wc -l <"$work/extract.err")" -ne 4 ]; then
    echo "pgn-extract found something wrong in the review"
    failed=1
fi

echo "== pgn-postmortem (PyPI) analyze and site, with Sentinel as its engine, depth 10"
python3 -m venv "$work/venv" && "$work/venv/bin/pip" install -q pgn-postmortem
if "$work/venv/bin/pgn-postmortem" analyze "$work/games.pgn" --out "$work/pm" --depth 10 --engine "$engine" &&
    "$work/venv/bin/pgn-postmortem" site "$work/pm" --out "$work/site"; then
    grep -h "PostmortemAnalysis" "$work"/pm/*.pgn
    [ -f "$work/site/index.html" ] || failed=1
else
    failed=1
fi
exit $failed
