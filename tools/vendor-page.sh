#!/bin/sh
# Fetches the board component the page of `sentinel serve` is drawn with, lichess's
# chessground, from npm at the pinned version, checks the package against its pinned
# SHA-256, and copies the files the page serves into src/serve/page/vendor/ (see
# docs/licences.md). Run it to upgrade: change VERSION and SHA256 together, then look at the
# page. Needs npm (Debian's `npm` package) and network access to the npm registry.
set -eu
cd "$(dirname "$0")/.."
VERSION=10.4.1
SHA256=8bc1167bc62a2b69d8bbca425d28a30f4d29e5733fc8bb29281ab06086f9e9a7
out=src/serve/page/vendor
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
(cd "$work" && npm pack --silent "@lichess-org/chessground@$VERSION" >/dev/null)
tarball="$work/lichess-org-chessground-$VERSION.tgz"
got=$(sha256sum "$tarball" | cut -d' ' -f1)
if [ "$got" != "$SHA256" ]; then
    echo "chessground $VERSION's package has SHA-256 $got, not the pinned $SHA256" >&2
    exit 1
fi
tar xzf "$tarball" -C "$work"
mkdir -p "$out"
cp "$work/package/dist/chessground.min.js" "$out/chessground.min.js"
for css in base brown cburnett; do
    cp "$work/package/assets/chessground.$css.css" "$out/chessground.$css.css"
done
cp "$work/package/LICENSE" "$out/LICENSE"
echo "chessground $VERSION copied into $out"
