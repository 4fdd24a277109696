#!/bin/sh
# Usage: benches/calibrate-levels.sh [-g GAMES] [-t TC] [-c CONCURRENCY] [-o DIR] SENTINEL LEVEL...
#
# Measures what Sentinel's strength levels are worth on Stockfish 15.1's `UCI_Elo` scale (the
# one the README's calibration table uses): each LEVEL is a match with ../shared/tools/match.py
# between Sentinel and Stockfish, one thread each, from ../shared/data/openings.fen with both
# colours, and gives one Markdown table row.
#
# LEVEL is
#   X        Sentinel at UCI_Elo X against Stockfish at UCI_Elo X (the calibration itself);
#   X:Y      Sentinel at UCI_Elo X against Stockfish at UCI_Elo Y (Stockfish's range is
#            1350..2850, so levels outside it are measured against its nearest one);
#   full:Y   Sentinel at full strength against Stockfish at UCI_Elo Y.
# The row gives the games, the score with its 95% interval in Elo, and the performance on
# Stockfish's scale: Y plus the Elo difference the score stands for.
#
# Defaults: 60 games, 10+0.1, concurrency 1 (two single-threaded engines fill two cores),
# logs and PGNs in /tmp/levels. STOCKFISH, MATCH and OPENINGS override the paths.
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
match=${MATCH:-$here/../shared/tools/match.py}
openings=${OPENINGS:-$here/../shared/data/openings.fen}
mkdir -p "$out"

echo "| Sentinel | Stockfish UCI_Elo | time control | games | Sentinel +win =draw -loss | score | Elo difference (95%) | performance |"
echo "| --- | --- | --- | --- | --- | --- | --- | --- |"
for level in "$@"; do
    ours=${level%%:*}
    theirs=${level#*:}
    if [ "$ours" = full ]; then
        ours_spec=""
        label="full strength"
    else
        ours_spec=",option.UCI_LimitStrength=true,option.UCI_Elo=$ours"
        label="UCI_Elo $ours"
    fi
    log=$out/calibrate-$ours-vs-$theirs-$tc-$games.log
    python3 "$match" \
        --engine "cmd=$sentinel,name=sentinel-$ours$ours_spec" \
        --engine "cmd=$stockfish,name=stockfish-$theirs,option.Threads=1,option.UCI_LimitStrength=true,option.UCI_Elo=$theirs" \
        --games "$games" --tc "$tc" --openings "$openings" --concurrency "$concurrency" \
        --pgn "${log%.log}.pgn" >"$log" 2>&1
    tail -n 1 "$log" | awk -v label="$label" -v theirs="$theirs" -v tc="$tc" '
        /^RESULT/ {
            for (i = 2; i <= NF; i++) { split($i, kv, "="); v[kv[1]] = kv[2] }
            faults = v["faults"] > 0 ? sprintf(" (%d faults)", v["faults"]) : ""
            printf "| %s | %s | %s | %d | +%d =%d -%d%s | %.1f%% | %+.0f (%+.0f .. %+.0f) | %.0f |\n",
                label, theirs, tc, v["games"], v["wins"], v["draws"], v["losses"], faults,
                100 * v["score"], v["elo"], v["elo_lo"], v["elo_hi"], theirs + v["elo"]
            found = 1
        }
        END { if (!found) { print "| " label " | " theirs " | match failed, see the log |"; exit 1 } }'
done
