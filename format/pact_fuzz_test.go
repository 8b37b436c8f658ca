package format

import (
	"bytes"
	"errors"
	"path/filepath"
	"testing"

	evalpact "github.com/ctxql/ctxql/eval/pact"
	"github.com/ctxql/ctxql/internal/golden"
	"github.com/ctxql/ctxql/syntax"
	"github.com/ctxql/ctxql/syntax/pact"
)

// FuzzPACT formats arbitrary text: no panic; a text with syntax errors is
// refused with its error diagnostics; a text that parses formats to a text
// that parses to the same trees (spans aside, after the documented
// canonical rewrites) with the same comments, formats to itself, and whose
// queries give the same results as the originals on a fixture.
// PACTIsCanonical says yes exactly when the output equals the input. The seed
// corpus is every format golden's input plus a few legacy forms.
func FuzzPACT(f *testing.F) {
	files, _ := filepath.Glob("../testdata/format/pact/*.txtar")
	for _, p := range files {
		f.Add([]byte(golden.Load(f, p).InputOr("input", "")))
	}
	for _, s := range []string{
		"@t0 .a > .b, .c",
		"// pact: v1\n.cb[ttl<=1] // x\n\n\n.mt:depth(1-2)",
		"(d1, seg, cont[offset=0])",
		".x(a=1 b=2) {ttl=1}",
		"+z+a .block:summary(k='v', n=2) [ ttl>=2 ] @limit=5",
		"@t-3:@t0 .seg ?? .cont",
		"((d1,0),(d2,0,1))",
		"// pact: v1\n^seq .mt:nth(2) , .cb#id",
	} {
		f.Add([]byte(s))
	}
	fixture, err := evalpact.LoadFile("../testdata/pact/history.json")
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, src []byte) {
		out, err := PACT(src)
		ok, cerr := PACTIsCanonical(src)
		if (err == nil) != (cerr == nil) || err == nil && ok != bytes.Equal(out, src) {
			t.Fatalf("%q: PACTIsCanonical = %v, %v; PACT = %q, %v", src, ok, cerr, out, err)
		}
		if err != nil {
			var se *SyntaxError
			if !errors.As(err, &se) {
				t.Fatalf("%q: %v", src, err)
			}
			if !syntax.HasErrors(se.Diagnostics) {
				t.Fatalf("%q: syntax error without an error diagnostic", src)
			}
			return
		}
		if !checkSameAST(t, string(src)) {
			t.Fatalf("%q formatted but checkSameAST did not", src)
		}
		checkIdempotent(t, out)
		before := pact.ParseFile("f.pact", string(src), pact.DialectUnset)
		after := pact.ParseFile("f.pact", string(out), pact.DialectUnset)
		for i, q := range before.Queries {
			a := after.Queries[i]
			qb, qa := before.Src.Slice(q.Sp), after.Src.Slice(a.Sp)
			if ob, oa := outcome(t, fixture, qb, q.Dialect), outcome(t, fixture, qa, a.Dialect); ob != oa {
				t.Fatalf("%q → %q changed the result:\n%s\n%s", qb, qa, ob, oa)
			}
		}
	})
}
