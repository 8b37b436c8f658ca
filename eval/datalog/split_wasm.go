//go:build wasm

package datalog

// splitting reports whether a round's joins and the copies between
// rounds may run in several goroutines (Options.Workers). WebAssembly
// runs one thread, so there every round runs in one, whatever Workers
// says, and the code that splits is left out of the module.
const splitting = false
