// Package launchtest holds the tests of the packages that bring ctxql to
// Python and Node.js users, as a user installs them: scripts/release
// builds the wheel and the npm tarballs for this platform; the wheel is
// installed into a fresh virtual environment with pip (no index) and the
// Python package's own tests (python/tests) run against it; the npm
// launcher @ctxql/cli and this platform's binary package are installed
// from their tarballs into an empty project with no registry reachable,
// and run by path and through npx (output, exit codes, signals); and the
// MCP server is driven through both launchers, `npx @ctxql/cli mcp` and
// `python -m ctxql mcp`, by the TypeScript-SDK client of mcp/testdata.
// Without python3 and its venv module, or without Node.js and npm, the
// tests skip with a message, and fail in CI. The package has no API; its
// tests are its content.
package launchtest
