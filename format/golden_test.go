package format

import (
	"errors"
	"strings"
	"testing"

	"github.com/ctxql/ctxql/internal/golden"
)

// wantFormatted formats in as the file name says (Source), compares the
// result with the archive's "output" section ("syntax error" when the
// source is refused) and hands a formatted result to check.
func wantFormatted(t *testing.T, c *golden.Case, name, in string, check func(out []byte)) {
	t.Helper()
	out, err := source(name, []byte(in))
	var se *SyntaxError
	if errors.As(err, &se) {
		c.Want("output", "syntax error\n")
		return
	}
	if err != nil {
		t.Fatal(err)
	}
	c.Want("output", string(out))
	check(out)
}

// source picks the printer by the archive's file name (the language table,
// package lang, imports this package and so cannot be used here).
func source(name string, src []byte) ([]byte, error) {
	switch {
	case strings.HasSuffix(name, ".pact"):
		return PACT(src)
	case strings.HasSuffix(name, ".dl"):
		return Datalog(src)
	}
	return JQL(name, src)
}
