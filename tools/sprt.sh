#!/bin/sh
# Usage: tools/sprt.sh NEW BASE [TC] [ELO0] [ELO1] [ROUNDS] [OUT]
#
# A sequential probability ratio test of two Sentinel binaries (or any UCI engines) with
# fastchess: both colours of each opening of tools/openings.epd (OPENINGS names another file) in random order, one
# thread each, two games at once (CONCURRENCY sets how many: one per core on a larger
# machine), logistic Elo, alpha = beta = 0.05. It stops when the test
# accepts either hypothesis or after ROUNDS game pairs. ELO0=none plays exactly ROUNDS pairs
# with no test, for a figure with its error bars (e.g. 300 pairs at 10+0.1 for 600 games).
# ADJUDICATE=1 ends a game that both engines agree is won (three moves each over 1000 cp) or
# dead drawn (eight moves each within 10 cp after move 40), as OpenBench does, to save time.
# The PGN and the log go to OUT (a folder; default $SENTINEL_DATA/matches, SENTINEL_DATA being
# ~/sentinel-data unless set). A test cut off goes on from its last 20-game save with
# `cd OUT && fastchess -config file=config.json`.
# fastchess is the one on PATH, or the one tools/build-fastchess.sh builds; FASTCHESS names
# another. fastchess reports illegal moves, time losses and crashes (disconnects) in its
# summary and in the log; at the end (also when the match is stopped with Ctrl-C) this script
# prints the match's row for docs/reliability.md, read from the games this run added to the
# PGN by tools/reliability_row.py (with python3; a resumed match's row, over the whole PGN:
# `tools/reliability_row.py OUT/NAME.pgn`). NEW_OPTIONS and BASE_OPTIONS give
# one engine UCI options ("name=value ...", no spaces in a name): with an `spsa` build as both
# engines, a change of the search's constants is tested without building anything, e.g.
#   NEW_OPTIONS="lmp_base=4" tools/sprt.sh target/release/sentinel target/release/sentinel
# SEED fixes fastchess's random seed, and with it the openings drawn and their order: two
# matches with the same SEED (a build before and after, each against one opponent) play the
# same openings.
# TC `nodes=N` plays every move to N nodes with no clock: at 20,000 several times the games an
# hour of 8+0.08, and a fair first test between two networks of the same speed (a clock
# decides once speed differs).
set -eu
new=$(realpath "$1")
base=$(realpath "$2")
tc=${3:-8+0.08}
elo0=${4:-0}
elo1=${5:-10}
rounds=${6:-1000}
data=${SENTINEL_DATA:-$HOME/sentinel-data}
out=${7:-$data/matches}
here=$(cd "$(dirname "$0")/.." && pwd)
openings=$(realpath "${OPENINGS:-$here/tools/openings.epd}")
fastchess=$("$here/tools/find-fastchess.sh" sprt.sh)
mkdir -p "$out"
out=$(realpath "$out")
case $tc in
nodes=*) limit="tc=inf $tc" ;;
*) limit="tc=$tc" ;;
esac
# fastchess writes its config.json (the settings and the score so far) into the working
# folder: keep it with the games, for a resumed test.
cd "$out"
sprt="-sprt elo0=$elo0 elo1=$elo1 alpha=0.05 beta=0.05 model=logistic"
[ "$elo0" = none ] && sprt=
adjudicate=
[ "${ADJUDICATE:-0}" = 1 ] && adjudicate=$("$here/tools/adjudication.sh")
options() {
    for option in $1; do printf ' option.%s' "$option"; done
}
# An option's value may be a path (EvalFile=...): no slash may reach the PGN's file name.
label() { echo "${1:-}" | tr ' =/' '-__' | sed 's/^./+&/'; }
new_name="$(basename "$new")$(label "${NEW_OPTIONS:-}")"
base_name="$(basename "$base")$(label "${BASE_OPTIONS:-}")"
name="$new_name-vs-$base_name-$tc"
# A file name has at most 255 bytes: many options would make fastchess's PGN unwritable (it
# says nothing and writes none), so a long name keeps its first 200 characters.
file=$(printf '%s' "$name" | cut -c1-200)
# fastchess appends to a PGN of the same name: the row counts only the games after these.
row=$here/tools/reliability_row.py
before=0
if command -v python3 >/dev/null 2>&1; then
    before=$(python3 "$row" --count "$out/$file.pgn") || before=0
fi
# Ctrl-C stops fastchess, which saves the match; this shell waits for it, then prints the row.
trap 'echo "stopped by hand" >&2' INT
status=0
# shellcheck disable=SC2046,SC2086 # the options are words by design
"$fastchess" \
    -engine cmd="$new" name="$new_name" $(options "${NEW_OPTIONS:-}") \
    -engine cmd="$base" name="$base_name" $(options "${BASE_OPTIONS:-}") \
    -each $limit option.Threads=1 option.Hash=16 \
    -openings file="$openings" format=epd order=random \
    -rounds "$rounds" -repeat -concurrency "${CONCURRENCY:-2}" -recover ${SEED:+-srand "$SEED"} \
    $sprt $adjudicate \
    -ratinginterval 20 \
    -pgnout file="$out/$file.pgn" \
    -log file="$out/$file.log" level=warn || status=$?
if [ "$elo0" = none ]; then what="$rounds game pairs at $tc"; else what="SPRT [$elo0, $elo1] at $tc"; fi
if command -v python3 >/dev/null 2>&1 && [ -f "$out/$file.pgn" ]; then
    echo "docs/reliability.md's row for these games:"
    python3 "$row" --skip "$before" --what "tools/sprt.sh, $what" "$out/$file.pgn" || true
else
    echo "sprt.sh: no row for docs/reliability.md (needs python3 and the PGN)" >&2
fi
exit "$status"
