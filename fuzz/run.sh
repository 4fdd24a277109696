#!/usr/bin/env bash
# Runs every fuzz target (or those named) under AFL++ for SECONDS each, one after the other,
# and prints the crashes and hangs each found. Needs `cargo install cargo-afl` (stable Rust)
# and Debian's afl++ (for afl-fuzz's helpers): see fuzz/README.md.
#
#   fuzz/run.sh 600                 # ten minutes for each target
#   fuzz/run.sh 60 uci xboard       # a minute for two of them
#
# Findings land in target/fuzz-out/TARGET/default/{crashes,hangs}; replay one with
#   target/fuzz/release/sentinel fuzz TARGET < FILE
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-600}
shift || true
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=(fen moves uci xboard epd pgn book network serve)

export CARGO_TARGET_DIR=target/fuzz
nice -n 10 cargo afl build --release --features fuzz,serve
binary=$CARGO_TARGET_DIR/release/sentinel

# A network file must be exactly the size this build expects: the seed is made, not kept.
network_seeds=target/fuzz-seeds/network
mkdir -p "$network_seeds"
python3 - "$network_seeds/zero-crelu" <<'PY'
import struct, sys
inputs, hidden = 768, 256
body = 2 * (inputs * hidden + hidden + 2 * hidden) + 4
with open(sys.argv[1], "wb") as f:
    f.write(b"SNTLNNUE" + struct.pack("<III", 2, hidden, 0) + bytes(body))
PY

export AFL_SKIP_CPUFREQ=1 AFL_NO_UI=1 AFL_I_DONT_CARE_ABOUT_MISSING_CRASHES=1 AFL_NO_AFFINITY=1
mkdir -p target/fuzz-out
summary=()
for target in "${targets[@]}"; do
    seeds=fuzz/seeds/$target
    [ "$target" = network ] && seeds=$network_seeds
    out=target/fuzz-out/$target
    echo "== $target: ${seconds}s"
    # -t: a session with searches may take a while; -m none: the engine sizes its own tables.
    nice -n 15 cargo afl fuzz -V "$seconds" -t 5000 -m none -i "$seeds" -o "$out" -- "$binary" fuzz "$target" \
        > "target/fuzz-out/$target.log" 2>&1 || true
    count() { find "$out/default/$1" -type f ! -name README.txt 2>/dev/null | wc -l; }
    stats=$out/default/fuzzer_stats
    execs=$(awk -F': *' '/^execs_done/ {print $2}' "$stats" 2>/dev/null || echo 0)
    paths=$(awk -F': *' '/^corpus_count/ {print $2}' "$stats" 2>/dev/null || echo 0)
    summary+=("$target: ${seconds}s, $execs execs, $paths corpus entries, $(count crashes) crashes, $(count hangs) hangs")
done
printf '%s\n' "${summary[@]}"
