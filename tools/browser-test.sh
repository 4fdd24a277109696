#!/bin/sh
# Runs the page's browser test (tools/browser-test.py) in a real headless Chromium, as .ci/run
# does. Installs what it needs where it is missing, from Debian's packages: chromium,
# chromium-driver and python3-selenium (the system Python's Selenium, so no PyPI is needed).
# Uses target/debug/sentinel when it has the server (cargo test --all-features builds it so),
# else builds it with --features serve. Arguments go to the Python script (--screenshots docs
# saves the docs' pictures; -k NAME runs only the tests whose names contain NAME).
set -eu
cd "$(dirname "$0")/.."

as_root() {
    if [ "$(id -u)" -eq 0 ]; then "$@"; else sudo "$@"; fi
}

python=/usr/bin/python3
missing=""
command -v chromium >/dev/null 2>&1 || missing="$missing chromium"
command -v chromedriver >/dev/null 2>&1 || missing="$missing chromium-driver"
{ [ -x "$python" ] && "$python" -c 'import selenium' 2>/dev/null; } || missing="$missing python3-selenium"
if [ -n "$missing" ]; then
    if ! command -v apt-get >/dev/null 2>&1; then
        echo "browser test: needs$missing, and there is no apt-get to install them" >&2
        exit 1
    fi
    echo "browser test: installing$missing"
    as_root apt-get update
    # $missing is package names, split on purpose.
    # shellcheck disable=SC2086
    as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends $missing
fi

binary=${SENTINEL_BINARY:-target/debug/sentinel}
if ! "$binary" help serve >/dev/null 2>&1; then
    cargo build --features serve
    binary=target/debug/sentinel
fi
exec "$python" tools/browser-test.py --binary "$binary" "$@"
