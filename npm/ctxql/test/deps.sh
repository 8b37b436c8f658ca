#!/usr/bin/env bash
# Installs what the differential test of the library (internal/pkgtest)
# needs to run the npm package in headless Chromium: Debian's chromium,
# Node and puppeteer-core from the npm registry, into the cache the browser
# tests share (scripts/lib/e2e.sh; the playground's test installs the same
# puppeteer-core, so the second install is a cache hit). scripts/test runs
# it before go test. Without CI=true a dependency that cannot be installed
# only makes the test skip its Chromium part.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../../.." && pwd)
# shellcheck source=../../../scripts/lib/e2e.sh
source "$repo/scripts/lib/e2e.sh"
e2e_init npm/ctxql/test "the npm package's browser runs"
e2e_apt "$cache.play-apt.log" chromium
e2e_node
e2e_deps "$repo/play/e2e" play-deps puppeteer-core
