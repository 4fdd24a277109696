#!/bin/sh
# Usage: benches/threads-elo.sh ENGINE [PAIRS] [TC] [ROUNDS] [OUT]
#
# What more threads are worth in Elo: ENGINE against itself, N threads against M, for each
# `N:M` of PAIRS (default "2:1 4:2 8:4", one match after another), at TC (default 10+0.1),
# ROUNDS game pairs each (default 100: both colours of each opening of tools/openings.epd,
# drawn at random; OPENINGS names another file), Hash 64 MB each, games adjudicated as
# tools/sprt.sh's ADJUDICATE=1 does. CONCURRENCY games at once (default: as many as the cores
# hold with both engines' threads, at least 1). fastchess as for tools/sprt.sh (FASTCHESS, PATH
# or tools/build-fastchess.sh's). Each match's PGN and log go to OUT (default
# $SENTINEL_DATA/matches/threads, SENTINEL_DATA being ~/sentinel-data unless set); its score
# and Elo are fastchess's last lines, followed by its row for docs/reliability.md (games and
# faults, from the games the match added to the PGN: tools/reliability_row.py, with python3).
# Ctrl-C stops the match at hand (fastchess saves it), prints its row and plays no further pair.
# On a machine with fewer cores than a pair needs, the engines take turns on the cores they
# share: pondering is off, so one engine thinks at a time.
set -eu
engine=$(realpath "$1")
pairs=${2:-2:1 4:2 8:4}
tc=${3:-10+0.1}
rounds=${4:-100}
data=${SENTINEL_DATA:-$HOME/sentinel-data}
out=${5:-$data/matches/threads}
here=$(cd "$(dirname "$0")/.." && pwd)
openings=$(realpath "${OPENINGS:-$here/tools/openings.epd}")
fastchess=$("$here/tools/find-fastchess.sh" threads-elo.sh)
adjudicate=$("$here/tools/adjudication.sh")
mkdir -p "$out"
cd "$out"
row=$here/tools/reliability_row.py
python=$(command -v python3 || true)
stopped=0
trap 'stopped=1' INT
for pair in $pairs; do
    more=${pair%%:*}
    fewer=${pair##*:}
    concurrency=${CONCURRENCY:-$(($(nproc) / more))}
    [ "$concurrency" -ge 1 ] || concurrency=1
    name="threads$more-vs-threads$fewer-$tc"
    echo "== $more threads against $fewer, $tc, $rounds rounds, $concurrency at once: $out/$name.pgn"
    # fastchess appends to a PGN of the same name: the row counts the games after these.
    before=0
    [ -z "$python" ] || before=$("$python" "$row" --count "$out/$name.pgn") || before=0
    status=0
    # shellcheck disable=SC2086 # the adjudication flags are words by design
    "$fastchess" \
        -engine cmd="$engine" name="threads$more" option.Threads="$more" \
        -engine cmd="$engine" name="threads$fewer" option.Threads="$fewer" \
        -each tc="$tc" option.Hash=64 \
        -openings file="$openings" format=epd order=random \
        -rounds "$rounds" -repeat -concurrency "$concurrency" -recover ${SEED:+-srand "$SEED"} \
        $adjudicate \
        -ratinginterval 20 \
        -pgnout file="$out/$name.pgn" \
        -log file="$out/$name.log" level=warn || status=$?
    if [ -n "$python" ] && [ -f "$out/$name.pgn" ]; then
        echo "docs/reliability.md's row for these games:"
        "$python" "$row" --skip "$before" --what "benches/threads-elo.sh, $more threads against $fewer at $tc" \
            "$out/$name.pgn" || true
    else
        echo "threads-elo.sh: no row for docs/reliability.md (needs python3 and the PGN)" >&2
    fi
    [ "$status" -eq 0 ] && [ "$stopped" -eq 0 ] || exit "$((status ? status : 130))"
done
