// Package bench holds the benchmarks that measure ctxql against its anchors
// (other engines and decoders). It is a module of its own, so that the
// ctxql module requires only what the tool uses; run them with
// scripts/bench.
package bench
