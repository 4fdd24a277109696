#!/bin/sh
# Usage: benches/bench-nps.sh REFERENCE CANDIDATE [ROUNDS] [DEPTH]
#
# Compares the `bench` speed of two Sentinel binaries (for example the build before a change
# and the one after). The two take turns, ROUNDS times each (default 5), so a shared machine's
# load falls on both alike; the best and the median nodes per second of each are printed, and
# the candidate's speed as a ratio of the reference's. `bench` searches every position to the
# same depth, so its node count over the median speed is also each binary's time to that depth
# (what a change of evaluation or pruning is finally judged by, since it changes both).
#
# RUNNER, when set, is the command line that runs both binaries: an emulator for binaries of
# another architecture, as in `RUNNER="qemu-aarch64 -L /usr/aarch64-linux-gnu"`.
set -eu
ref=$1
cand=$2
rounds=${3:-5}
depth=${4:-}
ref_nps=""
cand_nps=""
# Prints "nodes nps" of one bench run.
bench() { ${RUNNER:-} "$1" bench $depth 2>/dev/null | tail -n 1 | awk '{ print $1, $3 }'; }
i=0
while [ "$i" -lt "$rounds" ]; do
    set -- $(bench "$ref")
    ref_nodes=$1
    ref_nps="$ref_nps $2"
    set -- $(bench "$cand")
    cand_nodes=$1
    cand_nps="$cand_nps $2"
    i=$((i + 1))
done
# Prints "best median" of a list of numbers.
summary() { echo "$1" | tr ' ' '\n' | sed '/^$/d' | sort -n | awk '{ v[NR] = $1 } END { print v[NR], v[int((NR + 1) / 2)] }'; }
set -- $(summary "$ref_nps") $(summary "$cand_nps")
echo "bench ${depth:-(default depth)} over $rounds rounds: nps best (median), nodes, time to depth at the median"
awk -v n="$ref_nodes" -v b="$1" -v m="$2" -v p="$ref" \
    'BEGIN { printf "  reference  %d (%d)  %d nodes  %.2f s   %s\n", b, m, n, n / m, p }'
awk -v n="$cand_nodes" -v b="$3" -v m="$4" -v p="$cand" \
    'BEGIN { printf "  candidate  %d (%d)  %d nodes  %.2f s   %s\n", b, m, n, n / m, p }'
awk -v rb="$1" -v rm="$2" -v cb="$3" -v cm="$4" -v rn="$ref_nodes" -v cn="$cand_nodes" \
    'BEGIN { printf "  ratio candidate/reference: nps %.2fx (median %.2fx), time to depth %.2fx\n", cb / rb, cm / rm, (cn / cm) / (rn / rm) }'
