#!/bin/sh
# Usage: tools/release.sh VERSION
#
# Builds the release binaries of VERSION (which must be Cargo.toml's, with a CHANGELOG.md
# section) into dist/, with the features in $features below (the server, `sentinel serve`,
# which the default build leaves out): Linux x86-64 (profile-guided when tools/build-pgo.sh
# can run, that is when llvm-profdata is there), Windows x86-64 (tools/build-windows.sh:
# MinGW-w64) and Linux aarch64 (Debian's gcc-aarch64-linux-gnu as the linker). Each must count
# the native build's bench nodes: the Windows one under Wine, the aarch64 one under
# qemu-aarch64 (qemu-user).
# Then dist/SHA256SUMS. docs/releases.md says which processors each binary runs on.
#
# Needs rustup (the two cross targets' standard libraries) and apt for the linkers, Wine and
# qemu-user, which are installed when missing. The versions are checked first, so a mistyped
# VERSION builds nothing.
set -eu
if [ $# -ne 1 ]; then
    sed -n '2p' "$0" >&2
    exit 2
fi
version=$1
here=$(cd "$(dirname "$0")/.." && pwd)
cd "$here"
cargo_version=$(sed -n 's/^version = "\(.*\)"$/\1/p' Cargo.toml | head -n 1)
if [ "$version" != "$cargo_version" ]; then
    echo "release: Cargo.toml says version $cargo_version, not $version: set it there first" >&2
    exit 1
fi
if ! grep -q "^## \[$version\]" CHANGELOG.md; then
    echo "release: CHANGELOG.md has no '## [$version]' section" >&2
    exit 1
fi

as_root() {
    if [ "$(id -u)" -eq 0 ]; then "$@"; else sudo "$@"; fi
}
missing=""
command -v aarch64-linux-gnu-gcc >/dev/null 2>&1 || missing="$missing gcc-aarch64-linux-gnu libc6-dev-arm64-cross"
command -v qemu-aarch64 >/dev/null 2>&1 || missing="$missing qemu-user"
command -v wine >/dev/null 2>&1 || missing="$missing wine wine64"
if [ -n "$missing" ]; then
    as_root apt-get update
    # shellcheck disable=SC2086 # a list of packages
    as_root apt-get install -y --no-install-recommends $missing
fi
arm=aarch64-unknown-linux-gnu
rustup target add "$arm"

# The release's features: what people download has `sentinel serve` (docs/serve.md).
features=serve
dist=$here/dist
rm -rf "$dist"
mkdir -p "$dist"
name=sentinel-$version

# Linux x86-64: profile-guided where llvm-profdata is at hand, else the plain release build.
linux=$dist/$name-x86_64-linux
if FEATURES=$features tools/build-pgo.sh "$linux" >&2; then
    echo "release: Linux x86-64 built profile-guided" >&2
else
    echo "release: no profile-guided build (see above); Linux x86-64 is the plain release build" >&2
    cargo build --release --features "$features"
    cp target/release/sentinel "$linux"
fi
cargo build --release --features "$features"
bench() {
    "$@" bench | tail -n 1 | cut -d' ' -f1
}
native=$(bench target/release/sentinel)
echo "release: bench $native nodes (the native release build)" >&2

# Windows x86-64; build-windows.sh checks its bench under Wine against the native build's.
exe=$(FEATURES=$features tools/build-windows.sh | tail -n 1)
cp "$exe" "$dist/$name-x86_64-windows.exe"

# Linux aarch64.
CARGO_TARGET_AARCH64_UNKNOWN_LINUX_GNU_LINKER=aarch64-linux-gnu-gcc cargo build --release --features "$features" --target "$arm"
cp "target/$arm/release/sentinel" "$dist/$name-aarch64-linux"

# Every binary counts the same nodes: the search is the same on every processor.
failed=0
check() {
    label=$1
    shift
    nodes=$(bench "$@")
    echo "release: bench $nodes nodes: $label" >&2
    [ "$nodes" = "$native" ] || failed=1
}
check "$name-x86_64-linux" "$linux"
# The Wine and the prefix build-windows.sh set up (with its stub for Wine 8's missing DLL).
wine=$(command -v wine64 || ls /usr/lib/wine/wine64)
check "$name-x86_64-windows.exe under Wine" env WINEPREFIX="$here/target/wine" WINEDEBUG=-all "$wine" "$dist/$name-x86_64-windows.exe"
check "$name-aarch64-linux under qemu-aarch64" qemu-aarch64 -L /usr/aarch64-linux-gnu "$dist/$name-aarch64-linux"
if [ "$failed" = 1 ]; then
    echo "release: a binary's bench differs from the native build's $native: not released" >&2
    exit 1
fi
(cd "$dist" && sha256sum "$name"-* >SHA256SUMS)
cat "$dist/SHA256SUMS"
