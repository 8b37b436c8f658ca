//go:build !wasm

package datalog

// splitting reports whether a round's joins and the copies between
// rounds may run in several goroutines (Options.Workers).
const splitting = true
