#!/bin/sh
# Usage: tools/datagen-cpu.sh TOOLS CPU_SECONDS OUT [DATAGEN OPTIONS...]
#
# Runs `TOOLS datagen --out OUT [DATAGEN OPTIONS...]` in the idle scheduling class and stops
# it once the process has used CPU_SECONDS of processor time (Linux: read from /proc). Two data
# recipes compared this way cost the same work, however busy the machine was while they ran:
# how docs/network.md compares 500 and 2,500 nodes a move. TOOLS is a build with the `tune` feature.
# The datagen log goes to OUT.log; the CPU time used, every five seconds, to OUT.cpu.
set -eu
tools=$1
budget=$2
out=$3
shift 3
chrt --idle 0 nice -n 19 "$tools" datagen --out "$out" "$@" 2>"$out.log" &
pid=$!
ticks=$(getconf CLK_TCK)
while kill -0 "$pid" 2>/dev/null; do
    # Fields 14 and 15 of /proc/PID/stat: user and system time, in clock ticks.
    used=$(awk -v t="$ticks" '{ print int(($14 + $15) / t) }' "/proc/$pid/stat" 2>/dev/null || echo 0)
    echo "$used" >"$out.cpu"
    if [ "$used" -ge "$budget" ]; then
        # It may have ended on its own since the check above: that is not a failure.
        kill "$pid" 2>/dev/null || true
        wait "$pid" 2>/dev/null || true
        echo "stopped after $used CPU seconds: $((($(stat -c %s "$out") - 16) / 32)) positions in $out" >&2
        exit 0
    fi
    sleep 5
done
wait "$pid"
