// Package jql benchmarks the JQL evaluator against gojq (in process and as
// binaries, end to end) and its JSON decoder against encoding/json,
// goccy/go-json and sonic, printing the ratios.
package jql
