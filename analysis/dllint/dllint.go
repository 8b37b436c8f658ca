// Package dllint holds the analysis rules of the dl language.
package dllint

import "github.com/ctxql/ctxql/analysis"

// Analyzers returns the rules of this package.
func Analyzers() []*analysis.Analyzer { return nil }
