package lang

import (
	"strings"
	"testing"
)

// dsTupleSrc uses an eqrel, a trrel, tuple types, tuple patterns in an
// atom, a let and a for, and a macro in a rule head.
const dsTupleSrc = `#[ds(ascent_byods_rels::eqrel)]
relation eq(i32, i32);
#[ds(trrel)]
relation tr(i32, i32);
relation pair((i32, String), u8);
relation firsts(i32, String);
firsts(x, s) <-- pair((x, s), _), eq(x, _);
relation sums(i32);
sums(z) <-- pair(p, _), let (a, _) = p, for (b, cc) in [(a, 1)], let z = b + cc;
macro both($x: expr) { eq($x, $x), tr($x, $x) }
both!(n) <-- sums(n);
`

// TestDatalogTuplesAndDS: the language server's view of tuples, data
// structure attributes and head macros — highlighting, hover types,
// occurrences, completion and the outline.
func TestDatalogTuplesAndDS(t *testing.T) {
	p := parsedDL(t, dsTupleSrc)
	src := dsTupleSrc
	got := map[string]string{}
	for _, tok := range p.Tokens() {
		got[src[tok.Span.Start:tok.Span.End]+"@"+strings.Repeat("+", strings.Count(src[:tok.Span.Start], "\n"))] = tok.Type
	}
	for word, want := range map[string]string{
		"ds@": "decorator", "ascent_byods_rels@": "namespace", "eqrel@": "type", "trrel@++": "type",
		"i32@++++": "type", "String@++++": "type", "x@++++++": "variable", "both@++++++++++": "macro",
	} {
		if got[word] != want {
			t.Errorf("token %s: %q, want %q", word, got[word], want)
		}
	}
	for _, tc := range []struct {
		sub  string
		n    int
		want string
	}{
		{"s)", 1, "`s`: String"},        // bound by the tuple pattern of pair
		{"a,", 0, "`a`: i32"},           // bound by let (a, _) = p
		{"p,", 0, "`p`: (i32, String)"}, // a tuple-typed column
	} {
		d, ok := p.Describe(refAt(t, src, tc.sub, tc.n))
		if !ok || !strings.Contains(d.Markdown, tc.want) {
			t.Errorf("hover %s#%d: %q, want %s", tc.sub, tc.n, d.Markdown, tc.want)
		}
	}
	d, ok := p.Describe(refAt(t, src, "eq(i32", 0))
	if !ok || !strings.Contains(d.Markdown, "Equivalence relation") {
		t.Errorf("hover eq: %q", d.Markdown)
	}
	if got := occurrenceTexts(t, p, "a,", 0); got != "a* a" {
		t.Errorf("occurrences of a: %s", got)
	}
	if got := occurrenceTexts(t, p, "x, s)", 1); got != "x* x x" {
		t.Errorf("occurrences of x: %s", got)
	}
	typed := strings.Replace(src, "let z = b + cc;", "let z = b + cc, if c;", 1)
	found := false
	for _, c := range ByID(Datalog).Parse("c.dl", typed, DialectUnset).Complete(strings.Index(typed, "if c")+4, CompletionData{}) {
		found = found || c.Label == "cc" && c.Kind == CompleteVariable
	}
	if !found {
		t.Errorf("no completion of cc, bound by a for's tuple pattern")
	}
	var details []string
	for _, o := range p.Outline() {
		details = append(details, o.Name+":"+o.Detail)
	}
	if s := strings.Join(details, " "); !strings.Contains(s, "eq:eqrel relation") || !strings.Contains(s, "tr:trrel relation") {
		t.Errorf("outline: %s", s)
	}
}
