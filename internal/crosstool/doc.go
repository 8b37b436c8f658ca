// Package crosstool holds the tests that run every ctxql tool on the same
// files and require them to agree: "ctxql check", "ctxql fmt", "ctxql eval"
// and the language server must see the same language, the same PACT dialect
// and the same syntax errors, and formatting must never change what a query
// evaluates to. The package has no API; its tests are its content.
package crosstool
