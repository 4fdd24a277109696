#!/bin/sh
# Usage: tools/check-bench.sh [BINARY]
#
# Checks the bench fingerprint: `sentinel bench`'s node count changes exactly when the search
# or the network does, and every commit that changes it ends with a `Bench: N` line (as
# OpenBench reads it from a commit message). This builds the release binary (or takes
# BINARY), runs `bench`, and compares its count with the newest `Bench: N` line in `git log`;
# a mismatch fails, naming both and the commit. CI runs it after the tests (.ci/run).
#
# Where there is nothing to compare with, it says so and passes, as OpenBench does when a
# commit message carries no bench (it then asks for one rather than refusing the test): outside
# a git checkout (a source archive), or in a history without any `Bench:` line (a new fork, or a
# shallow clone cut above the last one). A bench that cannot be run or read always fails.
set -eu
here=$(cd "$(dirname "$0")/.." && pwd)
cd "$here"
if [ $# -ge 1 ]; then
    binary=$1
else
    cargo build --release --quiet
    binary=target/release/sentinel
fi
last=$("$binary" bench | tail -n 1)
nodes=$(echo "$last" | sed -n 's/^\([0-9][0-9]*\) nodes .*/\1/p')
if [ -z "$nodes" ]; then
    echo "check-bench: cannot read a node count from $binary bench's last line: '$last'" >&2
    exit 1
fi
if ! git rev-parse --git-dir >/dev/null 2>&1; then
    echo "check-bench: bench $nodes; not a git checkout, so no commit to compare with"
    exit 0
fi
# The newest commit whose message has a line `Bench: N` (N digits only).
commit=$(git log -n 1 -E --grep='^Bench: [0-9]+[[:space:]]*$' --format=%H)
if [ -z "$commit" ]; then
    echo "check-bench: bench $nodes; no commit in this history carries a 'Bench: N' line to compare with"
    exit 0
fi
expected=$(git log -n 1 --format=%B "$commit" | sed -n 's/^Bench: \([0-9][0-9]*\)[[:space:]]*$/\1/p' | tail -n 1)
subject=$(git log -n 1 --format='%h (%s)' "$commit")
if [ "$nodes" != "$expected" ]; then
    echo "check-bench: FAILED: bench counts $nodes nodes, but the newest 'Bench:' line, in $subject, says $expected." >&2
    echo "check-bench: a commit that changes the search or the network must end with 'Bench: $nodes' and say why." >&2
    exit 1
fi
echo "check-bench: bench $nodes nodes, as $subject says"
