#!/usr/bin/env bash
# Runs the end-to-end test of ctxql play in headless Chromium: installs what
# it needs (Debian's chromium, Node 24 and puppeteer-core from the npm
# registry, cached between runs), builds ctxql from this checkout and runs
# play.test.mjs, then builds the npm package @ctxql/ctxql (scripts/npm-wasm)
# and runs static.test.mjs on the playground exported with its module.
# "run.sh bench" runs the keystroke-to-results benchmark (bench.mjs)
# instead.
#
# Without CI=true a missing dependency that cannot be installed skips the
# test with a message; with CI=true it is a failure.
#
# Environment: CTXQL_E2E_CACHE (default ~/.cache/ctxql-e2e) holds the
# installs; CTXQL_SHOTS (default $CTXQL_E2E_CACHE/play-screenshots) receives
# the screenshots; CTXQL_DOCS_SHOT=path also writes the documentation's
# screenshot there.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
# shellcheck source=../../scripts/lib/e2e.sh
source "$repo/scripts/lib/e2e.sh"
e2e_init play/e2e "the playground's browser test"

# Debian packages: the browser and fonts for readable screenshots.
e2e_apt "$cache.play-apt.log" chromium fonts-dejavu-core

# Node and puppeteer-core.
e2e_node
e2e_deps "$here" play-deps puppeteer-core

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
(cd "$repo" && go build -o "$work/ctxql" ./cmd/ctxql)

if [ "${1:-}" = bench ]; then
	# The keystroke-to-results benchmark (bench.mjs), not part of the suite.
	CTXQL_BIN="$work/ctxql" CHROMIUM="$chromium" node "$here/bench.mjs"
	exit
fi

shots=${CTXQL_SHOTS:-$cache/play-screenshots}
rm -rf "$shots"
mkdir -p "$shots"
status=0
CTXQL_BIN="$work/ctxql" CHROMIUM="$chromium" CTXQL_SHOTS="$shots" \
	node --test --test-timeout=300000 "$here/play.test.mjs" || status=$?
# The exported playground, on the npm package's module as it is packed.
bash "$repo/scripts/npm-wasm" "$work/npm" >/dev/null
mkdir -p "$work/pkg"
tar -xzf "$work"/npm/*.tgz -C "$work/pkg"
CTXQL_BIN="$work/ctxql" CTXQL_WASM_PKG="$work/pkg/package" CHROMIUM="$chromium" CTXQL_SHOTS="$shots" \
	node --test --test-timeout=300000 "$here/static.test.mjs" || status=$?
if [ $status -eq 0 ] && [ -n "${CTXQL_DOCS_SHOT:-}" ]; then
	cp "$shots/play-pact.png" "$CTXQL_DOCS_SHOT"
fi
echo "play/e2e: screenshots in $shots"
exit $status
