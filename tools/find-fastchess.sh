#!/bin/sh
# Prints the fastchess that the match scripts (tools/sprt.sh, benches/threads-elo.sh,
# benches/calibrate-levels.sh) run: FASTCHESS if set, else the one on PATH, else the one
# tools/build-fastchess.sh builds under $SENTINEL_DATA (~/sentinel-data unless set). Fails
# with a message naming the caller ($1) when there is none.
set -eu
data=${SENTINEL_DATA:-$HOME/sentinel-data}
fastchess=${FASTCHESS:-$(command -v fastchess || echo "$data/tools/fastchess/fastchess")}
if [ ! -x "$fastchess" ]; then
    echo "${1:-find-fastchess.sh}: no fastchess at $fastchess: build it with tools/build-fastchess.sh, or set FASTCHESS" >&2
    exit 1
fi
echo "$fastchess"
