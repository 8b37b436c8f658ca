// Package pactlint holds the analysis rules of the pact language.
package pactlint

import "github.com/ctxql/ctxql/analysis"

// Analyzers returns the rules of this package.
func Analyzers() []*analysis.Analyzer { return nil }
