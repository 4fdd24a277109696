#!/bin/sh
# Usage: benches/bench-instructions.sh BINARY... [-- BENCH_DEPTH [PERFT_DEPTH]]
#
# Counts the instructions each Sentinel binary executes (valgrind's callgrind), which unlike
# time is the same on every run whatever else the machine is doing, so that two builds can be
# compared on a shared machine to a fraction of a percent. For each binary it prints:
#   bench   all of `sentinel bench` (default depth unless BENCH_DEPTH is given);
#   search  the searches alone (the inclusive count of Job::lead): bench less its setup and
#           the clearing of the table and histories before each position;
#   perft   `sentinel perft startpos PERFT_DEPTH` (default 6);
# and, after the first, each binary's counts as a ratio of the first's. Needs valgrind; takes
# about a minute a binary at the default depths.
set -eu
binaries=""
while [ $# -gt 0 ] && [ "$1" != "--" ]; do
    binaries="$binaries $1"
    shift
done
[ $# -gt 0 ] && shift
bench_depth=${1:-}
perft_depth=${2:-6}
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
# Prints the program's total, or with a second argument the inclusive count of that function.
count() {
    if [ $# -eq 1 ]; then
        callgrind_annotate "$1" 2>/dev/null | awk '/PROGRAM TOTALS/ { gsub(",", "", $1); print $1 }'
    else
        callgrind_annotate --inclusive=yes "$1" 2>/dev/null | awk -v f="$2" 'index($0, f) { gsub(",", "", $1); print $1; exit }'
    fi
}
first=""
for binary in $binaries; do
    valgrind --tool=callgrind --dump-instr=no --callgrind-out-file="$out/bench" "$binary" bench $bench_depth \
        >"$out/bench.txt" 2>/dev/null
    valgrind --tool=callgrind --dump-instr=no --callgrind-out-file="$out/perft" "$binary" perft startpos "$perft_depth" \
        >/dev/null 2>&1
    nodes=$(awk '/nodes .* nps/ { print $1 }' "$out/bench.txt")
    set -- "$(count "$out/bench")" "$(count "$out/bench" Job::lead)" "$(count "$out/perft")"
    printf '%s\n  bench %s nodes: %s instructions, search %s; perft %s: %s\n' "$binary" "$nodes" "$1" "$2" "$perft_depth" "$3"
    if [ -z "$first" ]; then
        first="$1 $2 $3"
    else
        echo "$first $1 $2 $3" | awk '{ printf "  against the first: bench %.3f, search %.3f, perft %.3f\n", $4 / $1, $5 / $2, $6 / $3 }'
    fi
done
