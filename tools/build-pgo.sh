#!/bin/sh
# Usage: [FEATURES=tune] tools/build-pgo.sh [OUT]
#
# Builds a profile-guided release binary (default target/pgo/sentinel): an instrumented build
# runs `bench` (the same positions every run, through the search, the network and the move
# generator) and a perft, and the profile it leaves steers the final build's inlining and code
# layout. The instruction set stays the default build's (runtime detection chooses the network's
# vector code), so the binary runs on any x86-64 the normal one runs on. It needs the
# `llvm-profdata` of rustc's own LLVM: `rustup component add llvm-tools` provides it (a
# distribution's older llvm-profdata cannot read the newer profile format); LLVM_PROFDATA names
# another. FEATURES adds cargo features (`tune` for the data generator, whose self-play the
# profile then also covers: a faster generator is more positions an hour for every network).
set -eu
here=$(cd "$(dirname "$0")/.." && pwd)
out=$(realpath -m "${1:-$here/target/pgo/sentinel}")
cd "$here"
sysroot=$(rustc --print sysroot)
host=$(rustc -vV | sed -n 's/^host: //p')
profdata=${LLVM_PROFDATA:-$sysroot/lib/rustlib/$host/bin/llvm-profdata}
if [ ! -x "$profdata" ]; then
    echo "no llvm-profdata at $profdata: run 'rustup component add llvm-tools' or set LLVM_PROFDATA" >&2
    exit 1
fi
features=${FEATURES:-}
# No word with no features: the default build stays exactly `cargo build --release`.
feature_flag=${features:+--features=$features}
profiles=$here/target/pgo/profiles
rm -rf "$profiles"
mkdir -p "$profiles"
# Separate target folders keep the three builds from rebuilding one another.
RUSTFLAGS="-Cprofile-generate=$profiles" cargo build --release $feature_flag --target-dir target/pgo/generate
instrumented=target/pgo/generate/release/sentinel
"$instrumented" bench >/dev/null 2>&1
"$instrumented" perft startpos 6 >/dev/null
case ",$features," in
*,tune,*)
    scratch=$(mktemp -d)
    printf 'rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1\n' >"$scratch/openings.fen"
    "$instrumented" datagen --games 40 --nodes 500 --threads 1 --seed 1 \
        --openings "$scratch/openings.fen" --out "$scratch/data.bin" 2>/dev/null
    rm -rf "$scratch"
    ;;
esac
"$profdata" merge -o "$profiles/merged.profdata" "$profiles"
RUSTFLAGS="-Cprofile-use=$profiles/merged.profdata" cargo build --release $feature_flag --target-dir target/pgo/use
mkdir -p "$(dirname "$out")"
cp target/pgo/use/release/sentinel "$out"
echo "$out"
