#!/bin/sh
# Plays Sentinel against an opponent through cutechess-cli in each way a tournament manager
# drives an engine, and fails on any fault: the protocol conformance check that pipes alone
# cannot give (real clocks, real opponents, the GUI's own checks of every move).
#
#   tools/conformance-games.sh [options] OPPONENT_COMMAND
#
# Four parts, each at 5+0.05 against OPPONENT_COMMAND (a UCI engine; Stockfish is meant,
# played with UCI_LimitStrength and UCI_Elo 2000 so that games last):
#   uci      100 games, Sentinel over UCI
#   xboard   100 games, Sentinel over XBoard (proto=xboard)
#   chess960  20 games of Chess960 (cutechess draws a start position for each pair)
#   ponder    20 games with pondering on for both
# Options:
#   -g N        games per part instead (rounded up to an even number: each opening is played
#               with both colours)
#   -c N        games at a time (default 1); a game keeps one core busy, two with pondering
#   -o FILE     openings (EPD or FEN lines), played in random order; default tools/openings.epd
#               when the repository has it, else the start position. Not used for Chess960.
#   -e PATH     the engine to test (default target/release/sentinel)
#   -d DIR      where the PGN files and cutechess's output go (default a new temporary folder)
# cutechess-cli is taken from $CUTECHESS, else from PATH, else from where
# tools/build-cutechess.sh builds it by default.
#
# Every line of cutechess's output that tells of a fault is counted: losses on time, illegal
# moves, disconnections and stalled connections (crashes show as these), results cutechess
# could not make out, and its warnings (an illegal PV or ponder move, an unexpected move, a
# bad option or protocol line). The faults are listed per part; the exit status is 1 if there
# was any, 2 for bad usage. A game the opponent lost on time or by an illegal move is listed
# apart and not counted: the test is of Sentinel. Last comes the run's row for
# docs/reliability.md, the four parts' games together, read from cutechess's output by
# tools/reliability_row.py (with python3).
set -eu

repo=$(cd "$(dirname "$0")/.." && pwd)
games=""
concurrency=1
openings=""
engine="$repo/target/release/sentinel"
out=""
usage() {
    sed -n '2,/^set -eu/p' "$0" | sed '$d; s/^# \{0,1\}//' >&2
    exit 2
}
while getopts g:c:o:e:d:h flag; do
    case $flag in
    g) games=$OPTARG ;;
    c) concurrency=$OPTARG ;;
    o) openings=$OPTARG ;;
    e) engine=$OPTARG ;;
    d) out=$OPTARG ;;
    *) usage ;;
    esac
done
shift $((OPTIND - 1))
[ $# -eq 1 ] || usage
opponent=$1

cutechess=${CUTECHESS:-$(command -v cutechess-cli || echo "${SENTINEL_DATA:-$HOME/sentinel-data}/tools/cutechess/build/cutechess-cli")}
[ -x "$cutechess" ] || { echo "no cutechess-cli (set CUTECHESS, or run tools/build-cutechess.sh)" >&2; exit 2; }
[ -x "$engine" ] || { echo "no engine at $engine (cargo build --release)" >&2; exit 2; }
if [ -z "$openings" ] && [ -f "$repo/tools/openings.epd" ]; then
    openings="$repo/tools/openings.epd"
fi
[ -z "$openings" ] || [ -f "$openings" ] || { echo "no openings file $openings" >&2; exit 2; }
[ -n "$out" ] || out=$(mktemp -d "${TMPDIR:-/tmp}/sentinel-conformance.XXXXXX")
mkdir -p "$out"

# Runs one part: $1 its name, $2 the number of games, $3 Sentinel's protocol, $4 `ponder` or
# nothing, then extra cutechess arguments. Appends its faults to $out/faults.
part() {
    name=$1 count=$2 proto=$3 ponder=$4
    shift 4
    rounds=$(((count + 1) / 2))
    log="$out/$name.log"
    echo "== $name: $((rounds * 2)) games, Sentinel over $proto" >&2
    # `-each` is one option (a second would replace the first): the clock and pondering.
    "$cutechess" \
        -engine name=Sentinel cmd="$engine" proto="$proto" \
        -engine name=Opponent cmd="$opponent" proto=uci option.UCI_LimitStrength=true option.UCI_Elo=2000 \
        -each tc=5+0.05 ${ponder:+ponder} -rounds "$rounds" -games 2 -repeat -concurrency "$concurrency" \
        -pgnout "$out/$name.pgn" "$@" >"$log" 2>&1 || echo "cutechess-cli exited with $? in $name" >>"$log"
    grep -E "Finished game|Score of" "$log" | tail -n 1 >&2 || true
    # A game lost on time or by an illegal move names the side that lost it: the fault is
    # Sentinel's only when Sentinel played that side ("Finished game N (White vs Black): ...").
    # The tallies at the end repeat the games, so they are left out.
    grep -iE "loses on time|illegal move|disconnects|connection stalls|result error|no result|warning|critical|exited with" \
        "$log" | grep -v '^ *"' | awk -v part="$name" '
        match($0, /\(([^ ]+) vs ([^ ]+)\)/) {
            split(substr($0, RSTART + 1, RLENGTH - 2), players, " vs ")
            culprit = /White (loses|makes)/ ? players[1] : /Black (loses|makes)/ ? players[2] : ""
            if (culprit == "Opponent") { print part ": " $0 > "/dev/stderr"; next }
        }
        { print part ": " $0 }' >>"$out/faults" 2>>"$out/opponent-faults" || true
}

: >"$out/faults"
: >"$out/opponent-faults"
opening_args() {
    if [ -n "$openings" ]; then
        printf '%s\n' -openings "file=$openings" format=epd order=random
    fi
}
# The opening arguments are split on newlines only, so that a path with spaces survives.
IFS='
'
part uci "${games:-100}" uci "" $(opening_args)
part xboard "${games:-100}" xboard "" $(opening_args)
part chess960 "${games:-20}" uci "" -variant fischerandom
part ponder "${games:-20}" uci ponder $(opening_args)
unset IFS

faults=$(wc -l <"$out/faults")
echo "PGN files and cutechess's output: $out" >&2
if command -v python3 >/dev/null 2>&1; then
    version=$("$engine" --version 2>/dev/null | sed -n 's/.*(\([0-9a-f]*\)).*/`\1`/p')
    warnings=$(grep -ci "warning" "$out/faults" || true)
    [ "${warnings:-0}" -gt 0 ] || warnings=
    echo "docs/reliability.md's row for these games:"
    python3 "$repo/tools/reliability_row.py" --theirs Opponent \
        --builds "${version:-Sentinel} against $(basename "$opponent") at UCI_Elo 2000" \
        --what "tools/conformance-games.sh at 5+0.05: UCI, XBoard, Chess960, pondering" \
        ${warnings:+--note "$warnings cutechess warnings"} \
        "$out/uci.log" "$out/xboard.log" "$out/chess960.log" "$out/ponder.log" || true
fi
if [ -s "$out/opponent-faults" ]; then
    echo "the opponent's faults (not counted):" >&2
    cat "$out/opponent-faults" >&2
fi
if [ "$faults" -gt 0 ]; then
    echo "$faults fault(s):" >&2
    cat "$out/faults" >&2
    exit 1
fi
echo "no fault" >&2
