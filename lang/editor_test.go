package lang

import (
	"slices"
	"strings"
	"testing"
)

// constructsSrc uses the Datalog constructs beyond plain atoms: several
// heads, let, for, if, aggregates and a lattice relation.
const constructsSrc = `relation e(u32, u32);
lattice s(u32, u32, Dual<u32>);
a(x), b(x) <-- e(x, y), let z = x + y, for k in 0..z, if k > y;
n(c) <-- agg c = count() in e(_, _);
s(x, y, Dual(w)) <-- e(x, y), let w = x;
`

func parsedDL(t *testing.T, src string) *Parsed {
	t.Helper()
	p := ByID(Datalog).Parse("c.dl", src, DialectUnset)
	if !p.Valid() {
		t.Fatalf("invalid program: %v", p.Diagnostics)
	}
	return p
}

// occurrenceTexts is what Occurrences gives for the symbol at the n-th
// occurrence of sub, definitions starred.
func occurrenceTexts(t *testing.T, p *Parsed, sub string, n int) string {
	t.Helper()
	sym, _, ok := p.SymbolAt(refAt(t, p.File.Text(), sub, n))
	if !ok {
		t.Fatalf("no symbol at %s#%d", sub, n)
	}
	return strings.Join(texts(p.File.Text(), p.Occurrences(sym)), " ")
}

// TestOccurrencesConstructs finds variables bound by let, for and agg and
// used in expressions, conditions and ranges, and relations defined by any
// head of a rule.
func TestOccurrencesConstructs(t *testing.T) {
	p := parsedDL(t, constructsSrc)
	for _, tc := range []struct {
		sub  string
		n    int
		want string
	}{
		{"z", 0, "z* z"},              // let, then the for range
		{"k", 0, "k* k"},              // for, then the condition
		{"y", 0, "y* y y"},            // atom, let expression, condition
		{"c)", 0, "c* c"},             // the head, then the aggregate's result
		{"b(", 0, "b*"},               // the second head defines b
		{"w", 0, "w* w"},              // the lattice head's Dual(w), then let
		{"e(x, y), l", 0, "e* e e e"}, // declared: every atom refers to it
	} {
		if got := occurrenceTexts(t, p, tc.sub, tc.n); got != tc.want {
			t.Errorf("%s#%d: %s, want %s", tc.sub, tc.n, got, tc.want)
		}
	}
}

// TestRenameConstructs renames a let variable everywhere and refuses a
// name a for binding of the same rule has.
func TestRenameConstructs(t *testing.T) {
	p := parsedDL(t, constructsSrc)
	edits, err := p.Rename(refAt(t, constructsSrc, "z", 1), "total")
	if err != nil || len(edits) != 2 {
		t.Fatalf("rename z: %v, %v", edits, err)
	}
	if _, err := p.Rename(refAt(t, constructsSrc, "z", 0), "k"); err == nil {
		t.Errorf("rename z → k allowed, though the rule binds k")
	}
	if _, err := p.Rename(refAt(t, constructsSrc, "z", 0), "let"); err == nil {
		t.Errorf("rename z → let allowed")
	}
}

// TestTokensConstructs classifies the keywords, aggregators and operators
// of the constructs.
func TestTokensConstructs(t *testing.T) {
	p := parsedDL(t, constructsSrc)
	got := map[string]string{}
	for _, tok := range p.Tokens() {
		got[p.File.Slice(tok.Span)] = tok.Type
	}
	for text, want := range map[string]string{
		"lattice": "keyword", "let": "keyword", "for": "keyword", "in": "keyword", "agg": "keyword",
		"count": "keyword", "+": "operator", "..": "operator", ">": "operator", "z": "variable",
		"k": "variable", "Dual": "type",
	} {
		if got[text] != want {
			t.Errorf("%q is %q, want %q", text, got[text], want)
		}
	}
}

// TestCompleteConstructs offers keywords and aggregators that extend the
// word typed, and the variables a let binds.
func TestCompleteConstructs(t *testing.T) {
	for _, tc := range []struct {
		src  string
		want string
		kind CompletionKind
	}{
		{"q(x) <-- e(x, y), ag", "agg", CompleteKeyword},
		{"q(c) <-- agg c = cou", "count", CompleteKeyword},
		{"q(x) <-- e(x, y), let total = x, if to", "total", CompleteVariable},
		{"relation e(u32, u32);\nq(x) <-- e", "e", CompleteRelation},
		{"relation s(String);\nq(n) <-- s(x), let n = x.le", "len", CompleteFunction},
		{"relation s(String);\nq(n) <-- s(x), let n = for", "format!", CompleteFunction},
	} {
		p := ByID(Datalog).Parse("c.dl", tc.src, DialectUnset)
		var labels []string
		found := false
		for _, c := range p.Complete(len(tc.src), CompletionData{}) {
			labels = append(labels, c.Label)
			found = found || c.Label == tc.want && c.Kind == tc.kind
		}
		if !found {
			t.Errorf("%q: %v, want %s", tc.src, labels, tc.want)
		}
	}
}

// TestDescribeConstructs gives the types of let variables and says what
// a lattice relation keeps.
func TestDescribeConstructs(t *testing.T) {
	p := parsedDL(t, constructsSrc)
	d, ok := p.Describe(refAt(t, constructsSrc, "z", 0))
	if !ok || !strings.Contains(d.Markdown, "**variable** `z`: ") || strings.Contains(d.Markdown, "unknown") {
		t.Errorf("z: %q", d.Markdown)
	}
	d, ok = p.Describe(refAt(t, constructsSrc, "w", 1))
	if !ok || !strings.Contains(d.Markdown, "**variable** `w`: u32") {
		t.Errorf("w: %q", d.Markdown)
	}
	d, ok = p.Describe(refAt(t, constructsSrc, "s(u32", 0))
	if !ok || !strings.Contains(d.Markdown, "Lattice") || !strings.Contains(d.Markdown, "least") {
		t.Errorf("s: %q", d.Markdown)
	}
}

// TestOutlineHeads lists a rule once per head.
func TestOutlineHeads(t *testing.T) {
	p := parsedDL(t, constructsSrc)
	var names []string
	for _, o := range p.Outline() {
		names = append(names, o.Name+":"+o.Detail)
	}
	want := []string{"e:relation", "s:lattice", "a:rule", "b:rule", "n:rule", "s:rule"}
	if !slices.Equal(names, want) {
		t.Errorf("outline %v, want %v", names, want)
	}
}
