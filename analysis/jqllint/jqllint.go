// Package jqllint holds the analysis rules of the jql language.
package jqllint

import "github.com/ctxql/ctxql/analysis"

// Analyzers returns the rules of this package.
func Analyzers() []*analysis.Analyzer { return nil }
