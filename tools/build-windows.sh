#!/bin/sh
# Builds the Windows binary (for Arena and other Windows GUIs) on Linux, with the
# x86_64-pc-windows-gnu target and Debian's MinGW-w64 linker, and checks it under Wine when
# Wine is installed: `bench` must count the same nodes as the Linux build.
#
#   tools/build-windows.sh            # prints the path of sentinel.exe last
#   FEATURES=serve tools/build-windows.sh   # with cargo features (the release has the server)
#
# Needs rustup (for the target's standard library: Debian packages one only for its own Rust
# 1.63, older than our rust-version) and apt for the linker. Wine before 9 (Debian 12 has 8.0)
# lacks bcryptprimitives.dll, whose ProcessPrng Rust's standard library calls for random
# numbers (Windows 10 and later, all that Rust's Windows targets support, have it); the check
# puts a stub that answers it from RtlGenRandom into its own Wine prefix (target/wine), never
# next to the binary.
set -eu
cd "$(dirname "$0")/.."
target=x86_64-pc-windows-gnu

as_root() {
    if [ "$(id -u)" -eq 0 ]; then "$@"; else sudo "$@"; fi
}

rustup target add "$target"
if ! command -v x86_64-w64-mingw32-gcc >/dev/null 2>&1; then
    as_root apt-get update
    as_root apt-get install -y --no-install-recommends gcc-mingw-w64-x86-64
fi
features=${FEATURES:-}
# No word with no features: the default build stays exactly `cargo build --release`.
feature_flag=${features:+--features=$features}
# shellcheck disable=SC2086 # one word or none
cargo build --release $feature_flag --target "$target"
dir=${CARGO_TARGET_DIR:-target}
exe="$(cd "$dir" && pwd)/$target/release/sentinel.exe"

wine=$(command -v wine64 || ls /usr/lib/wine/wine64 2>/dev/null || true)
if [ -n "$wine" ]; then
    export WINEPREFIX="${WINEPREFIX:-$(pwd)/target/wine}" WINEDEBUG=-all
    "$wine" wineboot --init >/dev/null 2>&1 || true
    system32="$WINEPREFIX/drive_c/windows/system32"
    if [ ! -e "$system32/bcryptprimitives.dll" ]; then
        stub=$(mktemp -d)
        cat >"$stub/prng.c" <<'EOF'
#include <windows.h>
#include <ntsecapi.h>

BOOL WINAPI ProcessPrng(PBYTE data, SIZE_T len) {
    while (len > 0) {
        ULONG chunk = len > 0x10000000 ? 0x10000000 : (ULONG)len;
        if (!RtlGenRandom(data, chunk)) return FALSE;
        data += chunk;
        len -= chunk;
    }
    return TRUE;
}
EOF
        printf 'LIBRARY bcryptprimitives\nEXPORTS\nProcessPrng\n' >"$stub/prng.def"
        x86_64-w64-mingw32-gcc -O2 -shared -o "$system32/bcryptprimitives.dll" "$stub/prng.c" "$stub/prng.def" -ladvapi32
        rm -r "$stub"
    fi
    # shellcheck disable=SC2086 # one word or none
    cargo build --release $feature_flag
    native=$("$dir/release/sentinel" bench | tail -n 1 | cut -d' ' -f1)
    windows=$("$wine" "$exe" bench | tail -n 1 | cut -d' ' -f1)
    echo "bench under Wine: $windows nodes (Linux build: $native)" >&2
    [ "$windows" = "$native" ]
fi
echo "$exe"
