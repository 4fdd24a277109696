#!/bin/sh
# Usage: tools/sprt.sh NEW BASE [TC] [ELO0] [ELO1] [ROUNDS] [OUT]
#
# A sequential probability ratio test of two Sentinel binaries (or any UCI engines) with
# fastchess: both colours of each opening of ../shared/data/openings.fen in random order, one
# thread each, two games at once, logistic Elo, alpha = beta = 0.05. It stops when the test
# accepts either hypothesis or after ROUNDS game pairs. The PGN and the log go to OUT (a
# folder; default ~/sentinel-data/matches). fastchess is the one on PATH, or the one
# tools/build-fastchess.sh builds; FASTCHESS names another.
set -eu
new=$(realpath "$1")
base=$(realpath "$2")
tc=${3:-8+0.08}
elo0=${4:-0}
elo1=${5:-10}
rounds=${6:-1000}
out=${7:-$HOME/sentinel-data/matches}
here=$(cd "$(dirname "$0")/.." && pwd)
openings=$(realpath "${OPENINGS:-$here/../shared/data/openings.fen}")
fastchess=${FASTCHESS:-$(command -v fastchess || echo "$HOME/sentinel-data/tools/fastchess/fastchess")}
mkdir -p "$out"
out=$(realpath "$out")
# fastchess writes its config.json into the working folder: keep it with the games.
cd "$out"
name="$(basename "$new")-vs-$(basename "$base")-$tc"
exec "$fastchess" \
    -engine cmd="$new" name="$(basename "$new")" \
    -engine cmd="$base" name="$(basename "$base")" \
    -each tc="$tc" option.Threads=1 option.Hash=16 \
    -openings file="$openings" format=epd order=random \
    -rounds "$rounds" -repeat -concurrency 2 -recover \
    -sprt elo0="$elo0" elo1="$elo1" alpha=0.05 beta=0.05 model=logistic \
    -ratinginterval 20 \
    -pgnout file="$out/$name.pgn" \
    -log file="$out/$name.log" level=warn
