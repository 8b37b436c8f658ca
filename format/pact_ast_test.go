package format

import (
	"errors"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	evalpact "github.com/ctxql/ctxql/eval/pact"
	"github.com/ctxql/ctxql/internal/golden"
	"github.com/ctxql/ctxql/syntax"
	"github.com/ctxql/ctxql/syntax/pact"
	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/rogpeppe/go-internal/txtar"
)

// astOptions compare two queries without their spans, and legacy markers by
// kind and value only (their Node points back into the tree).
var astOptions = []cmp.Option{
	cmpopts.IgnoreTypes(syntax.Span{}),
	cmpopts.IgnoreFields(pact.Legacy{}, "Node"),
	cmpopts.EquateEmpty(),
}

// canonicalize applies to a parsed query the rewrites the formatter
// documents for its dialect, so that it can be compared with the parse of
// the formatted text: in v2 an omitted time becomes @t0, ".Base:Type" sugar
// with a plain type name becomes ".Type", grouped shorthand becomes bracket
// filters and tags are sorted; in both dialects a ":" range is ".."
// and a deprecated ":depth(...)" list loses its spaces.
func canonicalize(q *pact.Query) {
	v2 := q.Dialect != pact.V1
	if q.Time == nil && v2 {
		q.Time = &pact.Time{From: &pact.TimeAtom{Kind: pact.TimeRelative}}
	}
	if q.Time != nil && q.Time.To != nil {
		q.Time.RangeOp = ".."
	}
	rewritten := map[pact.Node]bool{}
	for _, l := range q.Legacy {
		switch l.Kind {
		case pact.LegacyBaseTypeSugar:
			if t := l.Node.(*pact.TypeSel); v2 && plainName(t.Sub) {
				rewritten[l] = true
				t.Name, t.Base, t.Sub = t.Sub, t.Sub, ""
			}
		case pact.LegacyGrouped:
			rewritten[l] = true
		case pact.LegacyDepthPseudo:
			l.Value = strings.Join(strings.Fields(l.Value), "")
		}
	}
	var legacy []*pact.Legacy
	for _, l := range q.Legacy {
		if !rewritten[l] {
			legacy = append(legacy, l)
		}
	}
	q.Legacy = legacy
	pact.Inspect(q, func(n pact.Node) bool {
		switch n := n.(type) {
		case *pact.Attr:
			if n.Kind == pact.BlockGroup {
				n.Kind = pact.BlockBracket
			}
		case *pact.Compound:
			if v2 {
				sort.SliceStable(n.Tags, func(i, j int) bool { return n.Tags[i].Name < n.Tags[j].Name })
			}
		}
		return n != nil
	})
}

// checkSameAST formats src and reports every query whose parse after
// formatting differs (spans aside) from the canonicalized parse before, and
// every comment whose text changed beyond trailing whitespace. It returns
// false when src does not parse.
func checkSameAST(t testing.TB, src string) bool {
	t.Helper()
	out, err := PACT([]byte(src))
	var se *SyntaxError
	if errors.As(err, &se) {
		return false
	}
	if err != nil {
		t.Errorf("%q: %v", src, err)
		return false
	}
	before := pact.ParseFile("f.pact", src, pact.DialectUnset)
	after := pact.ParseFile("f.pact", string(out), pact.DialectUnset)
	if syntax.HasErrors(after.Diagnostics) {
		t.Errorf("%q formatted to %q, which does not parse: %v", src, out, after.Diagnostics)
		return true
	}
	if len(before.Queries) != len(after.Queries) || len(before.Comments) != len(after.Comments) {
		t.Errorf("%q → %q: %d queries and %d comments became %d and %d", src, out,
			len(before.Queries), len(before.Comments), len(after.Queries), len(after.Comments))
		return true
	}
	if before.Dialect != after.Dialect {
		t.Errorf("%q → %q: dialect %s became %s", src, out, before.Dialect, after.Dialect)
	}
	for i, q := range before.Queries {
		text := before.Src.Slice(q.Sp)
		if len(pact.Validate(q)) == 0 { // an invalid query is left as it is
			canonicalize(q)
		}
		if d := cmp.Diff(q, after.Queries[i], astOptions...); d != "" {
			t.Errorf("%q → %q: the syntax tree changed (-want +got):\n%s", text, after.Src.Slice(after.Queries[i].Sp), d)
		}
	}
	for i, c := range before.Comments {
		if w, g := strings.TrimRight(c.Text, " \t\r"), after.Comments[i].Text; w != g {
			t.Errorf("comment %q became %q", w, g)
		}
	}
	return true
}

// pactSources returns every PACT source the repository holds: the format
// goldens' inputs, each query of the parser's query goldens (with its
// section's dialect), the evaluator goldens' queries, the parser's file
// goldens, the migrator's inputs and outputs, and every .pact file or
// .pact archive section.
func pactSources(t testing.TB) []string {
	t.Helper()
	var srcs []string
	glob := func(p string) []string {
		m, err := filepath.Glob(p)
		if err != nil || len(m) == 0 {
			t.Fatalf("no files match %s: %v", p, err)
		}
		return m
	}
	for _, p := range glob("../testdata/format/pact/*.txtar") {
		srcs = append(srcs, golden.Load(t, p).InputOr("input", ""))
	}
	for _, p := range glob("../syntax/pact/testdata/query/*.txtar") {
		a, err := txtar.ParseFile(p)
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range a.Files {
			if f.Name != "v1" && f.Name != "v2" {
				continue
			}
			for _, l := range strings.Split(string(f.Data), "\n") {
				if strings.TrimSpace(l) != "" {
					srcs = append(srcs, "// pact: "+f.Name+"\n"+l+"\n")
				}
			}
		}
	}
	for _, p := range glob("../testdata/pact/*.txtar") {
		c := golden.Load(t, p)
		d := strings.TrimSpace(c.InputOr("dialect", "v2"))
		srcs = append(srcs, "// pact: "+d+"\n"+c.Input("query"))
	}
	for _, p := range glob("../testdata/migrate/*.txtar") {
		c := golden.Load(t, p)
		srcs = append(srcs, c.InputOr("input", ""), c.InputOr("output", ""))
	}
	err := filepath.WalkDir("..", func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			if d != nil && d.IsDir() && (d.Name() == ".git" || d.Name() == "node_modules") {
				return filepath.SkipDir
			}
			return err
		}
		switch {
		case strings.HasSuffix(p, ".pact"):
			b, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			srcs = append(srcs, string(b))
		case strings.HasSuffix(p, ".txtar") && strings.Contains(p, "testdata"):
			a, err := txtar.ParseFile(p)
			if err != nil {
				return err
			}
			for _, f := range a.Files {
				if strings.HasSuffix(f.Name, ".pact") {
					srcs = append(srcs, string(f.Data))
				}
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return srcs
}

// TestPACTSameAST formats every PACT source of the repository: each query
// parses back to the tree it had (spans aside) once the documented
// canonical rewrites are applied to the original, comments keep their text,
// and formatting is a fixed point.
func TestPACTSameAST(t *testing.T) {
	n := 0
	for _, src := range pactSources(t) {
		if checkSameAST(t, src) {
			n++
			out, _ := PACT([]byte(src))
			checkIdempotent(t, out)
		}
	}
	t.Logf("%d PACT sources formatted", n)
	if n < 100 {
		t.Fatalf("only %d PACT sources parsed and formatted", n)
	}
}

// TestCanonicalizeDetectsChanges makes sure the tree comparison is not
// vacuous: two queries that differ in one value, operator, combinator or
// dialect-specific rewrite compare unequal.
func TestCanonicalizeDetectsChanges(t *testing.T) {
	for _, pair := range [][2]string{
		{".a[x=1]", ".a[x=2]"},
		{".a[x>=1]", ".a[x>1]"},
		{".a .b", ".a > .b"},
		{"@t-1 .a", ".a"},
		{".a+x+y", ".a+x"},
		{".block:summary", ".block"},
		{".a(x=1 y=2)", ".a[x=1]"},
	} {
		a := pact.ParseFile("a.pact", pair[0], pact.DialectUnset)
		b := pact.ParseFile("b.pact", pair[1], pact.DialectUnset)
		canonicalize(a.Queries[0])
		canonicalize(b.Queries[0])
		if cmp.Equal(a.Queries[0], b.Queries[0], astOptions...) {
			t.Errorf("%q and %q compare equal", pair[0], pair[1])
		}
	}
	a := pact.ParseFile("a.pact", "+b+a .block:summary(x=1 y=2)", pact.DialectUnset)
	b := pact.ParseFile("b.pact", "@t0 +a+b .summary[x=1][y=2]", pact.DialectUnset)
	canonicalize(a.Queries[0])
	if d := cmp.Diff(a.Queries[0], b.Queries[0], astOptions...); d != "" {
		t.Errorf("canonical rewrites do not compare equal:\n%s", d)
	}
}

// TestPACTSourcesPreserveMeaning evaluates every query of every PACT
// source of the repository before and after formatting over every
// evaluator fixture: the results (or the error messages) must be identical,
// and enough of them must be non-empty for the comparison to mean something.
func TestPACTSourcesPreserveMeaning(t *testing.T) {
	paths, err := filepath.Glob("../testdata/pact/*.json")
	if err != nil || len(paths) == 0 {
		t.Fatalf("no fixtures: %v", err)
	}
	var fixtures []*evalpact.Data
	for _, p := range paths {
		d, err := evalpact.LoadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		fixtures = append(fixtures, d)
	}
	compared, nonEmpty := 0, 0
	for _, src := range pactSources(t) {
		out, err := PACT([]byte(src))
		if err != nil {
			continue
		}
		before := pact.ParseFile("f.pact", src, pact.DialectUnset)
		after := pact.ParseFile("f.pact", string(out), pact.DialectUnset)
		if len(before.Queries) != len(after.Queries) {
			t.Fatalf("%q → %q: query count changed", src, out)
		}
		for i, q := range before.Queries {
			qb, qa := before.Src.Slice(q.Sp), after.Src.Slice(after.Queries[i].Sp)
			for k, d := range fixtures {
				ob, oa := outcome(t, d, qb, q.Dialect), outcome(t, d, qa, after.Queries[i].Dialect)
				if ob != oa {
					t.Errorf("%s: %q → %q changed the result:\n%s\n%s", filepath.Base(paths[k]), qb, qa, ob, oa)
				}
				compared++
				if strings.HasPrefix(ob, "[") && ob != "[]" { // a non-empty list of nodes
					nonEmpty++
				}
			}
		}
	}
	t.Logf("%d evaluations compared, %d with results", compared, nonEmpty)
	if nonEmpty < 50 {
		t.Fatalf("only %d of %d evaluations had results: the test proves little", nonEmpty, compared)
	}
}
