#!/bin/sh
# Usage: benches/bench-nps.sh REFERENCE CANDIDATE [ROUNDS] [DEPTH]
#
# Compares the `bench` speed of two Sentinel binaries (for example the build before a change
# and the one after). The two take turns, ROUNDS times each (default 5), so a shared machine's
# load falls on both alike; the best and the median nodes per second of each are printed, and
# the candidate's speed as a ratio of the reference's.
set -eu
ref=$1
cand=$2
rounds=${3:-5}
depth=${4:-}
ref_nps=""
cand_nps=""
nps() { "$1" bench $depth 2>/dev/null | tail -n 1 | awk '{ print $3 }'; }
i=0
while [ "$i" -lt "$rounds" ]; do
    ref_nps="$ref_nps $(nps "$ref")"
    cand_nps="$cand_nps $(nps "$cand")"
    i=$((i + 1))
done
# Prints "best median" of a list of numbers.
summary() { echo "$1" | tr ' ' '\n' | sed '/^$/d' | sort -n | awk '{ v[NR] = $1 } END { print v[NR], v[int((NR + 1) / 2)] }'; }
set -- $(summary "$ref_nps") $(summary "$cand_nps")
echo "bench nps over $rounds rounds, best (median)"
echo "  reference  $1 ($2)   $ref"
echo "  candidate  $3 ($4)   $cand"
awk -v rb="$1" -v rm="$2" -v cb="$3" -v cm="$4" \
    'BEGIN { printf "  ratio candidate/reference %.2fx (median %.2fx)\n", cb / rb, cm / rm }'
