package acp_test

import (
	"context"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/ctxql/ctxql/acp"
)

// FuzzQuery runs arbitrary `query` arguments (named kinds and jq
// expressions) and $VAR expansions against the fixture: no input panics,
// and an expansion's variable lists partition the variables found.
func FuzzQuery(f *testing.F) {
	ix, err := acp.Load(fixture)
	if err != nil {
		f.Fatal(err)
	}
	for _, s := range []string{"symbol\x00validateSession", "callers\x00verifyToken", "domains", "stats", "search\x00auth",
		".domains | keys", ".files[]", "$ENV", "[.[]?] | length", "Check $SYM_VALIDATE_SESSION and $NOPE", "$A$B$", "file\x00src/auth/session.ts"} {
		f.Add(s, "summary")
	}
	f.Add("x $FILE_SESSION", "full")
	f.Add("$DOM_AUTH", "annotated")
	f.Fuzz(func(t *testing.T, s, mode string) {
		args := strings.Split(s, "\x00")
		_ = acp.RunQuery(context.Background(), ix, args, io.Discard,
			acp.QueryOptions{Limits: acp.JQLimits{Timeout: 200 * time.Millisecond, MaxResults: 100, MaxBytes: 1 << 16}})
		e, err := ix.Expand(s, mode)
		if err != nil {
			return
		}
		if len(e.VariablesResolved)+len(e.VariablesUnresolved) != len(e.VariablesFound) {
			t.Fatalf("%q: lists do not partition: %+v", s, e)
		}
		_ = ix.CheckConstraints(s)
		_, _ = ix.Callers(s)
	})
}
