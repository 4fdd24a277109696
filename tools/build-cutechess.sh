#!/bin/sh
# Builds cutechess-cli from source, so that the Cute Chess games of docs/features.md can be
# played again on a machine whose distribution does not package it (Debian 12 does not).
# Installs the build dependencies with apt (Debian 12 or newer: Qt 6, CMake), clones Cute Chess
# from GitHub (or from the git repository CUTECHESS_SRC names, a local mirror say), and builds
# release 1.5.1's command-line program alone, without the GUI or the tests.
#
#   tools/build-cutechess.sh [DIR]
#
# DIR defaults to $SENTINEL_DATA/tools/cutechess (SENTINEL_DATA being ~/sentinel-data unless
# set), where tools/conformance-games.sh looks for it. The program ends up as
# DIR/build/cutechess-cli; the last line printed is its path.
set -eu
dir=${1:-${SENTINEL_DATA:-$HOME/sentinel-data}/tools/cutechess}
version=v1.5.1

as_root() {
    if [ "$(id -u)" -eq 0 ]; then "$@"; else sudo "$@"; fi
}

as_root apt-get update
as_root apt-get install -y --no-install-recommends ca-certificates git cmake make g++ \
    qt6-base-dev qt6-svg-dev qt6-5compat-dev libgl-dev

mkdir -p "$dir"
if [ ! -d "$dir/src" ]; then
    git clone --quiet "${CUTECHESS_SRC:-https://github.com/cutechess/cutechess}" "$dir/src"
fi
git -C "$dir/src" checkout --quiet "$version"
cmake -S "$dir/src" -B "$dir/build" -DCMAKE_BUILD_TYPE=Release -DWITH_TESTS=OFF >/dev/null
cmake --build "$dir/build" --target cli -j "$(nproc)"
"$dir/build/cutechess-cli" --version | head -n 1 >&2
echo "$dir/build/cutechess-cli"
