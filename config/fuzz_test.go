package config

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
)

// FuzzParse checks that Parse never panics, that every error is a positioned
// *Error inside the input, and that an accepted configuration answers
// queries without panicking.
func FuzzParse(f *testing.F) {
	paths, _ := filepath.Glob("../testdata/config/*.txtar")
	for _, p := range paths {
		if data, err := os.ReadFile(p); err == nil {
			f.Add(data)
		}
	}
	f.Add([]byte("rules: {select: [PACT], severity: {PACT: hint}}\nexclude: ['**/x/']\n"))
	f.Add([]byte("a: &a [*a]\n"))
	f.Add([]byte("? [a]\n: b\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		cfg, err := Parse(data)
		if err != nil {
			var e *Error
			if !errors.As(err, &e) {
				t.Fatalf("error %v is not a *config.Error", err)
			}
			if e.Offset < 0 || e.Offset > len(data) || e.Line < 1 || e.Column < 1 {
				t.Fatalf("error position out of range: %+v", e)
			}
			return
		}
		for _, f := range []string{"a.pact", "x/y/z.ts", "/abs/q.jql", "../out.dl"} {
			cfg.Enabled("PACT001", f)
			cfg.Severity("PACT001", 0)
			cfg.Dialect(f)
			cfg.DataFor(f)
			cfg.Excluded(f)
		}
	})
}
