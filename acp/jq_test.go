package acp_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/ctxql/ctxql/acp"
)

// TestJQSandbox checks that jq sees no environment even when one is set,
// and that modules, input files and the input builtins are refused.
func TestJQSandbox(t *testing.T) {
	t.Setenv("CTXQL_SECRET", "hunter2")
	for _, expr := range []string{"$ENV", "env", "$ENV.CTXQL_SECRET", "env.CTXQL_SECRET"} {
		q, err := acp.CompileJQ(expr)
		if err != nil {
			t.Fatalf("%s: %v", expr, err)
		}
		res, err := q.Run(context.Background(), map[string]any{}, acp.JQLimits{})
		if err != nil || len(res) != 1 {
			t.Fatalf("%s: %v %v", expr, res, err)
		}
		if m, ok := res[0].(map[string]any); (ok && len(m) != 0) || (!ok && res[0] != nil) {
			t.Errorf("%s = %v, want an empty environment", expr, res[0])
		}
	}
	for _, expr := range []string{`import "x" as x; .`, `include "x"; .`, `import "x" as $x; .`, "input", "inputs", "input_filename", `$__prog_args`} {
		q, err := acp.CompileJQ(expr)
		if err == nil {
			_, err = q.Run(context.Background(), nil, acp.JQLimits{})
		}
		if err == nil {
			t.Errorf("%s: not refused", expr)
		}
	}
}

// TestJQLimits checks that endless queries stop at the deadline whether or
// not they emit values, and at the result-count and size caps.
func TestJQLimits(t *testing.T) {
	for _, c := range []struct {
		expr string
		lim  acp.JQLimits
		want string
	}{
		{"repeat(1)", acp.JQLimits{Timeout: 5 * time.Second, MaxResults: 100}, "more than 100 results"},
		{"range(1e18)", acp.JQLimits{Timeout: 5 * time.Second, MaxResults: 1000}, "more than 1000 results"},
		{"last(range(1e18))", acp.JQLimits{Timeout: 100 * time.Millisecond}, "timed out"},
		{"[repeat(1)] | length", acp.JQLimits{Timeout: 100 * time.Millisecond}, "timed out"},
		{`[range(100000)] | tostring`, acp.JQLimits{MaxBytes: 1000}, "larger than 1000 bytes"},
	} {
		q, err := acp.CompileJQ(c.expr)
		if err != nil {
			t.Fatal(err)
		}
		_, err = q.Run(context.Background(), nil, c.lim)
		if !errors.Is(err, acp.ErrJQLimit) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want %q", c.expr, err, c.want)
		}
	}
}
