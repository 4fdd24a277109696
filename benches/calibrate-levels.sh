#!/bin/sh
# Usage: benches/calibrate-levels.sh [-g GAMES] [-t TC] [-c CONCURRENCY] [-o DIR] SENTINEL LEVEL...
#
# Measures what Sentinel's strength levels are worth on Stockfish 15.1's `UCI_Elo` scale (the
# one the README's calibration table uses): each LEVEL is a match played by fastchess between
# Sentinel and Stockfish, one thread each, from tools/openings.epd with both colours of each
# opening, and gives one Markdown table row.
#
# LEVEL is
#   X        Sentinel at UCI_Elo X against Stockfish at UCI_Elo X (the calibration itself);
#   X:Y      Sentinel at UCI_Elo X against Stockfish at UCI_Elo Y (Stockfish's range is
#            1350..2850, so levels outside it are measured against its nearest one);
#   full:Y   Sentinel at full strength against Stockfish at UCI_Elo Y.
# The row gives the games, the score with its 95% interval in Elo, and the performance on
# Stockfish's scale: Y plus the Elo difference the score stands for. Games that ended by a
# time loss, an illegal move or a crash (a PGN termination other than normal or adjudication)
# are counted as faults. Last comes the run's row for docs/reliability.md, every level's games
# together (tools/reliability_row.py, with python3; Stockfish's faults are named apart).
#
# Defaults: 60 games (an odd number plays one more, for whole pairs), 10+0.1, concurrency 1
# (two single-threaded engines fill two cores), logs and PGNs in /tmp/levels. STOCKFISH,
# FASTCHESS (default: on PATH, or where tools/build-fastchess.sh puts it) and OPENINGS
# override the paths.
#
#   benches/calibrate-levels.sh target/release/sentinel 1400 1800 2200 full:2850
set -eu
games=60
tc=10+0.1
concurrency=1
out=/tmp/levels
while getopts g:t:c:o: flag; do
    case $flag in
    g) games=$OPTARG ;;
    t) tc=$OPTARG ;;
    c) concurrency=$OPTARG ;;
    o) out=$OPTARG ;;
    *) exit 2 ;;
    esac
done
shift $((OPTIND - 1))
if [ $# -lt 2 ]; then
    sed -n '2,3p' "$0" >&2
    exit 2
fi
here=$(cd "$(dirname "$0")/.." && pwd)
sentinel=$1
shift
stockfish=${STOCKFISH:-/usr/games/stockfish}
fastchess=$("$here/tools/find-fastchess.sh" calibrate-levels.sh)
openings=$(realpath "${OPENINGS:-$here/tools/openings.epd}")
sentinel=$(realpath "$sentinel")
if [ ! -x "$stockfish" ]; then
    echo "calibrate-levels.sh: no Stockfish at $stockfish (STOCKFISH names another)" >&2
    exit 1
fi
mkdir -p "$out"
out=$(realpath "$out")

echo "| Sentinel | Stockfish UCI_Elo | time control | games | Sentinel +win =draw -loss | score | Elo difference (95%) | performance |"
echo "| --- | --- | --- | --- | --- | --- | --- | --- |"
pgns=""
for level in "$@"; do
    ours=${level%%:*}
    theirs=${level#*:}
    if [ "$ours" = full ]; then
        ours_options=""
        label="full strength"
    else
        ours_options="option.UCI_LimitStrength=true option.UCI_Elo=$ours"
        label="UCI_Elo $ours"
    fi
    log=$out/calibrate-$ours-vs-$theirs-$tc-$games.log
    pgn=${log%.log}.pgn
    rm -f "$pgn"
    pgns="$pgns
$pgn"
    # fastchess writes its config.json where it runs: keep it with the logs.
    # shellcheck disable=SC2086 # the options are words by design
    (cd "$out" && "$fastchess" \
        -engine cmd="$sentinel" name="sentinel-$ours" $ours_options \
        -engine cmd="$stockfish" name="stockfish-$theirs" option.UCI_LimitStrength=true option.UCI_Elo="$theirs" \
        -each tc="$tc" option.Threads=1 option.Hash=16 \
        -openings file="$openings" format=epd order=random \
        -rounds $(((games + 1) / 2)) -repeat -concurrency "$concurrency" -recover \
        -pgnout file="$pgn") >"$log" 2>&1 || true
    # Faults: games that ended otherwise than by the rules or adjudication.
    faults=$(grep -h '^\[Termination ' "$pgn" 2>/dev/null | grep -cv '"normal"\|"adjudication"' || true)
    # Sentinel is the first engine: fastchess's last `Games:` line counts its wins and losses.
    grep '^Games: ' "$log" | tail -n 1 | tr -d ',' | awk -v label="$label" -v theirs="$theirs" -v tc="$tc" -v faults="$faults" -v logfile="$log" '
        function elo(s) {
            s = s < 1e-6 ? 1e-6 : (s > 1 - 1e-6 ? 1 - 1e-6 : s)
            # Plus zero: an even score is 0, not -0.
            return -400 * log(1 / s - 1) / log(10) + 0
        }
        {
            n = $2; w = $4; l = $6; d = $8
            s = (w + 0.5 * d) / n
            se = sqrt((w * (1 - s) ^ 2 + d * (0.5 - s) ^ 2 + l * s ^ 2) / n / n)
            note = faults > 0 ? sprintf(" (%d faults)", faults) : ""
            printf "| %s | %s | %s | %d | +%d =%d -%d%s | %.1f%% | %+.0f (%+.0f .. %+.0f) | %.0f |\n",
                label, theirs, tc, n, w, d, l, note, 100 * s, elo(s), elo(s - 1.96 * se), elo(s + 1.96 * se),
                theirs + elo(s)
            found = 1
        }
        END { if (!found) { print "| " label " | " theirs " | match failed, see " logfile " |"; exit 1 } }'
done
if command -v python3 >/dev/null 2>&1; then
    echo
    echo "docs/reliability.md's row for these games:"
    what="benches/calibrate-levels.sh at $tc: $*"
    # One PGN a line: split on newlines only, so that a folder with spaces survives.
    IFS='
'
    # shellcheck disable=SC2086
    python3 "$here/tools/reliability_row.py" --what "$what" $pgns || true
else
    echo "calibrate-levels.sh: no row for docs/reliability.md (needs python3)" >&2
fi
