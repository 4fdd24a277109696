#!/bin/sh
# Usage: tools/build-fastchess.sh [DIR]
#
# Builds fastchess (https://github.com/Disservin/fastchess), the game runner tools/sprt.sh and
# tools/spsa.py drive, in DIR (default ~/sentinel-data/tools/fastchess, where they look for it
# when no fastchess is on PATH). Plain C++ with no dependencies beyond a compiler and make;
# the clone needs the network once.
set -eu
dir=${1:-$HOME/sentinel-data/tools/fastchess}
[ -d "$dir/.git" ] || git clone --depth 1 https://github.com/Disservin/fastchess "$dir"
make -C "$dir" -j"$(nproc)"
echo "built $dir/fastchess"
