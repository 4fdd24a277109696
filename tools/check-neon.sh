#!/bin/sh
# Usage: tools/check-neon.sh [DEPTH]
#
# Checks that the aarch64 build searches exactly as the x86-64 build does: cross-builds the
# release binary for aarch64-unknown-linux-gnu, runs its `bench` (at DEPTH, or bench's default)
# under qemu-aarch64 with the network's NEON loops and again with the portable ones
# (SENTINEL_SIMD=portable), and compares every line but the speed with the native binary's
# `bench`. A difference fails, showing it.
#
# Needs an x86-64 Debian or Ubuntu machine with the aarch64 target, linker and emulator:
#   rustup target add aarch64-unknown-linux-gnu
#   apt-get install gcc-aarch64-linux-gnu libc6-dev-arm64-cross qemu-user
# CI (.ci/run) does not run it, since it installs none of these.
set -eu
here=$(cd "$(dirname "$0")/.." && pwd)
cd "$here"
target=aarch64-unknown-linux-gnu
export CARGO_TARGET_AARCH64_UNKNOWN_LINUX_GNU_LINKER=aarch64-linux-gnu-gcc
cargo build --release --quiet
cargo build --release --quiet --target "$target"
# `bench`'s lines without the speed at the end of the last one (`<nodes> nodes <nps> nps`).
bench() {
    # shellcheck disable=SC2086 # the depth is one word or none
    "$@" bench $depth | sed 's/^\([0-9][0-9]*\) nodes [0-9][0-9]* nps$/\1 nodes/'
}
depth=${1:-}
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
bench target/release/sentinel >"$out/native"
emulate="qemu-aarch64 -L /usr/aarch64-linux-gnu target/$target/release/sentinel"
# shellcheck disable=SC2086 # $emulate is the emulator's command line, split on purpose
SENTINEL_SIMD=neon bench $emulate >"$out/neon"
# shellcheck disable=SC2086
SENTINEL_SIMD=portable bench $emulate >"$out/portable"
status=0
for path in neon portable; do
    if diff "$out/native" "$out/$path" >"$out/diff"; then
        echo "check-neon: aarch64 $path: $(tail -n 1 "$out/$path"), as the native build"
    else
        echo "check-neon: FAILED: the aarch64 build's $path bench differs from the native build's:" >&2
        cat "$out/diff" >&2
        status=1
    fi
done
exit $status
