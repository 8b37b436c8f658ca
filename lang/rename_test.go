package lang

import (
	"strings"
	"testing"

	"github.com/ctxql/ctxql/syntax"
	"github.com/ctxql/ctxql/syntax/datalog"
)

const refsSrc = `relation edge(i32, i32);
relation path(i32, i32);
edge(1, 2).
path(x, y) <-- edge(x, y);
path(x, z) <-- edge(x, y), path(y, z), if x != z;
reach(a) <-- path(a, _);
`

// at returns the offset of the n-th (0-based) occurrence of sub.
func refAt(t *testing.T, src, sub string, n int) int {
	t.Helper()
	off := -1
	for i := 0; i <= n; i++ {
		j := strings.Index(src[off+1:], sub)
		if j < 0 {
			t.Fatalf("%q occurs fewer than %d times", sub, n+1)
		}
		off += 1 + j
	}
	return off
}

func texts(src string, os []Occurrence) []string {
	var out []string
	for _, o := range os {
		s := src[o.Span.Start:o.Span.End]
		if o.Def {
			s += "*"
		}
		out = append(out, s)
	}
	return out
}

// TestOccurrences checks relation and variable occurrences and their
// definitions: a declaration defines a relation, else the heads deriving
// it; a variable is defined where it first occurs in its rule.
func TestOccurrences(t *testing.T) {
	p := datalog.ParseProgram("refs.dl", refsSrc)
	if syntax.HasErrors(p.Diagnostics) {
		t.Fatal(p.Diagnostics)
	}
	for _, tc := range []struct {
		sub  string
		n    int
		want string
	}{
		{"path", 2, "path* path path path path"}, // the use in the body of rule 2
		{"edge", 0, "edge* edge edge edge"},      // the declaration
		{"reach", 0, "reach*"},                   // undeclared: the head defines it
		{"y", 2, "y* y"},                         // rule 2's y, not rule 1's
		{"z", 2, "z* z z"},                       // head, body, condition
		{"a)", 0, "a* a"},                        // in the last rule
	} {
		off := refAt(t, refsSrc, tc.sub, tc.n)
		sym, sp, ok := dlSymbolAt(p, off)
		if !ok || refsSrc[sp.Start:sp.End] != strings.TrimSuffix(tc.sub, ")") {
			t.Fatalf("%s#%d: no symbol (%v)", tc.sub, tc.n, sym)
		}
		if got := strings.Join(texts(refsSrc, dlOccurrences(p, sym)), " "); got != tc.want {
			t.Errorf("%s#%d: %s, want %s", tc.sub, tc.n, got, tc.want)
		}
	}
	if _, _, ok := dlSymbolAt(p, refAt(t, refsSrc, "i32", 0)); ok {
		t.Errorf("a type name is not a symbol")
	}
}

// TestRename checks that renames rewrite every occurrence and refuse
// names that are taken or invalid.
func TestRename(t *testing.T) {
	p := datalog.ParseProgram("refs.dl", refsSrc)
	apply := func(edits []syntax.TextEdit) string {
		out := refsSrc
		for i := len(edits) - 1; i >= 0; i-- {
			e := edits[i]
			out = out[:e.Span.Start] + e.NewText + out[e.Span.End:]
		}
		return out
	}
	edits, err := (&Parsed{AST: p}).Rename(refAt(t, refsSrc, "edge", 2), "link")
	if err != nil {
		t.Fatal(err)
	}
	got := apply(edits)
	if strings.Contains(got, "edge") || strings.Count(got, "link") != 4 {
		t.Fatalf("rename edge → link:\n%s", got)
	}
	if q := datalog.ParseProgram("r.dl", got); syntax.HasErrors(q.Diagnostics) || len(datalog.Check(q, nil).Diagnostics) != len(datalog.Check(p, nil).Diagnostics) {
		t.Fatalf("renamed program checks differently: %v", datalog.Check(q, nil).Diagnostics)
	}
	edits, err = (&Parsed{AST: p}).Rename(refAt(t, refsSrc, "z", 2), "w")
	if err != nil || strings.Count(apply(edits), "w") != 3 {
		t.Fatalf("rename z → w: %v\n%s", err, apply(edits))
	}
	for _, bad := range []struct {
		sub, name string
	}{{"edge", "path"}, {"y", "x"}, {"x", "1x"}, {"x", "_"}, {"edge", "relation"}} {
		if _, err := (&Parsed{AST: p}).Rename(refAt(t, refsSrc, bad.sub, 2), bad.name); err == nil {
			t.Errorf("rename %s → %s allowed", bad.sub, bad.name)
		}
	}
}
