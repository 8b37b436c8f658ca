// Package crosstool holds the tests that run every ctxql tool on the same
// files and require them to agree: "ctxql check", "ctxql fmt",
// "ctxql migrate", "ctxql eval", the language server, the MCP server's
// tools and "ctxql diff" must see the same language, the same PACT dialect,
// the same invalid queries with the same errors (origin and code) and the
// same results; formatting and safe migrations must never change what a
// query evaluates to, and a migration's output parses in its new dialect.
// The package has no API; its tests are its content.
package crosstool
