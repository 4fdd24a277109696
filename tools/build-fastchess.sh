#!/bin/sh
# Usage: tools/build-fastchess.sh [DIR]
#
# Builds fastchess (https://github.com/Disservin/fastchess) release v1.8.2-alpha, the game
# runner tools/sprt.sh, tools/spsa.py and benches/calibrate-levels.sh drive, in DIR (default
# $SENTINEL_DATA/tools/fastchess, SENTINEL_DATA being ~/sentinel-data unless set: where they
# look for it when no fastchess is on PATH). Plain C++ with no dependencies beyond a compiler
# and make; the clone needs the network once, or FASTCHESS_SRC names a local git mirror. The
# last line printed is the program's path.
set -eu
dir=${1:-${SENTINEL_DATA:-$HOME/sentinel-data}/tools/fastchess}
version=v1.8.2-alpha
[ -d "$dir/.git" ] || git clone --quiet "${FASTCHESS_SRC:-https://github.com/Disservin/fastchess}" "$dir"
git -C "$dir" checkout --quiet "$version"
make -C "$dir" -j"$(nproc)" >&2
"$dir/fastchess" --version | head -n 1 >&2
echo "$dir/fastchess"
