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
start=$(date +%s)
# shellcheck source=../../scripts/lib/e2e.sh
source "$repo/scripts/lib/e2e.sh"
e2e_init editors/e2e "the real-VS-Code test"

# Debian packages: the browser, fonts for readable screenshots, and the
# build tools code-server's native modules compile with.
e2e_apt "$cache.apt.log" chromium fonts-dejavu-core build-essential python3 pkg-config libkrb5-dev libx11-dev libxkbfile-dev libsecret-1-dev

# Node 24 (code-server's engine); its headers build the native modules.
e2e_node
export npm_config_nodedir="$node_dir"

# code-server and puppeteer-core. The native modules are built unoptimised
# (-O0): they only have to run this test, and sqlite alone takes minutes at
# -O3 on two cores.
e2e_deps "$here" deps "code-server and puppeteer-core" CFLAGS=-O0 CXXFLAGS=-O0 npm_config_jobs=max --foreground-scripts
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
