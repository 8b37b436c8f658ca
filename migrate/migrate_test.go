package migrate

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/ctxql/ctxql/internal/golden"
	"github.com/ctxql/ctxql/syntax"
	"github.com/ctxql/ctxql/syntax/pact"
)

// TestGolden migrates the "input" of each archive under testdata/migrate
// with the options of its "options" section ("to-v2", "unsafe", "v1": the
// default dialect) and compares the output and the manual notes
// ("line:col message"); migrating the output again changes nothing.
func TestGolden(t *testing.T) {
	golden.Run(t, "../testdata/migrate/*.txtar", func(t *testing.T, c *golden.Case) {
		var opts Options
		for _, o := range strings.Fields(c.InputOr("options", "")) {
			switch o {
			case "to-v2":
				opts.ToV2 = true
			case "unsafe":
				opts.Unsafe = true
			case "v1":
				opts.Default = pact.V1
			default:
				t.Fatalf("unknown option %q", o)
			}
		}
		in := c.Input("input")
		res, err := PACT([]byte(in), opts)
		if errors.Is(err, ErrSyntax) {
			c.Want("output", "syntax error\n")
			return
		}
		if err != nil {
			t.Fatal(err)
		}
		if res.Changed != (string(res.Output) != in) {
			t.Errorf("Changed = %v", res.Changed)
		}
		c.Want("output", string(res.Output))
		if got := apply(in, res.Edits); got != string(res.Output) || overlapping(res.Edits) {
			t.Errorf("Edits do not reproduce Output:\n%s", got)
		}
		f := syntax.NewFile("in", in)
		var man strings.Builder
		for _, d := range res.Manual {
			fmt.Fprintf(&man, "%s %s\n", f.Position(d.Span.Start), d.Message)
		}
		c.Want("manual", man.String())
		again, err := PACT(res.Output, opts)
		if err != nil || again.Changed {
			t.Errorf("migrating the output again: changed=%v err=%v\n%s", again.Changed, err, again.Output)
		}
	})
}

// FuzzMigrate migrates arbitrary text both ways: no panic; a text that
// parses migrates to a text that parses and does not change again.
func FuzzMigrate(f *testing.F) {
	for _, s := range []string{"@t0 .seg .block:summary { ttl>=2 }", "// pact: v1\n.cb:summary #x\n^seq :first",
		"(d1, seg, cont[offset=0], c@2)", ".block(a=1 b=2) {cad=1}", "// pact: v1\n.a, .b",
		"// pact: v1\n^seq .mt:depth(2,1) > *:depth(1-3)\n.cb:x:depth(1,3)", "// pact: v1\n^seq:depth(1) [a='#b .c:d'] // .e:f"} {
		f.Add(s, true, true)
		f.Add(s, false, false)
	}
	f.Fuzz(func(t *testing.T, src string, toV2, unsafe bool) {
		opts := Options{ToV2: toV2, Unsafe: unsafe}
		res, err := PACT([]byte(src), opts)
		if errors.Is(err, ErrSyntax) {
			return
		}
		if err != nil {
			t.Fatalf("%q: %v", src, err)
		}
		if g := pact.ParseFile("", string(res.Output), pact.DialectUnset); syntax.HasErrors(g.Diagnostics) {
			t.Fatalf("%q → %q does not parse", src, res.Output)
		}
		again, err := PACT(res.Output, opts)
		if err != nil || again.Changed {
			t.Fatalf("%q → %q → %q (%v)", src, res.Output, again.Output, err)
		}
	})
}
