package format

import (
	"errors"
	"testing"

	"github.com/ctxql/ctxql/internal/golden"
)

// wantFormatted formats in as the file name says (Source), compares the
// result with the archive's "output" section ("syntax error" when the
// source is refused) and hands a formatted result to check.
func wantFormatted(t *testing.T, c *golden.Case, name, in string, check func(out []byte)) {
	t.Helper()
	out, err := Source(name, []byte(in))
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
