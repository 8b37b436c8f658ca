package lang

import (
	"slices"
	"strings"
	"testing"
)

// TestDatalogFunctions: the functions on text and numbers are hovered
// with their signature, highlighted as methods (format! as a macro,
// parse's type as a type), offered after "recv.", and the variables
// they compute take the types Rust gives them.
func TestDatalogFunctions(t *testing.T) {
	src := "relation w(String);\nrelation n(i32);\nq(k, v, f) <-- w(s), n(x), let k = s.len(), let v = s.parse::<u8>(), let f = format!(\"{}-{}\", s, x.abs());\n"
	p := parsedDL(t, src)
	for _, c := range []struct{ at, want string }{
		{"len", "**function** `s.len() -> usize`"},
		{"parse", "`s.parse::<T>() -> T`"},
		{"format", "`format!("},
		{"abs", "Absolute value"},
	} {
		d, ok := p.Describe(strings.Index(src, c.at))
		if !ok || !strings.Contains(strings.ToLower(d.Markdown), strings.ToLower(c.want)) {
			t.Errorf("hover %s: %v %q, want %q", c.at, ok, d.Markdown, c.want)
		}
	}
	d, ok := p.Describe(strings.Index(src, "v = s") + 0)
	if !ok || !strings.Contains(d.Markdown, "**variable** `v`: u8") {
		t.Errorf("v: %q", d.Markdown)
	}
	types := map[string]string{}
	for _, tok := range p.Tokens() {
		types[src[tok.Span.Start:tok.Span.End]] = tok.Type
	}
	for word, want := range map[string]string{"len": "method", "parse": "method", "abs": "method", "format": "macro", "u8": "type"} {
		if types[word] != want {
			t.Errorf("token %s: %q, want %q", word, types[word], want)
		}
	}
	typed := "q(x) <-- w(s), let k = s.st"
	var labels []string
	for _, c := range ByID(Datalog).Parse("c.dl", typed, DialectUnset).Complete(len(typed), CompletionData{}) {
		labels = append(labels, c.Label)
	}
	if !slices.Contains(labels, "starts_with") || slices.Contains(labels, "len") {
		t.Errorf("completion after s.st: %v", labels)
	}
}

// TestDatalogHeaderAndInitializer: a program header's name and type
// parameters and an initializer's vec! are highlighted, and the
// initializer's tuples are facts of the relation.
func TestDatalogHeaderAndInitializer(t *testing.T) {
	src := "struct Prog<T: Clone> where T: Eq;\nrelation edge(T, T) = vec![(1, 2), (2, 3)];\nreach(x, y) <-- edge(x, y);\n"
	p := parsedDL(t, src)
	got := map[string]string{}
	for _, tok := range p.Tokens() {
		got[src[tok.Span.Start:tok.Span.End]+"@"+strings.Repeat("+", strings.Count(src[:tok.Span.Start], "\n"))] = tok.Type
	}
	for word, want := range map[string]string{"struct@": "keyword", "Prog@": "struct", "T@": "typeParameter", "where@": "keyword", "Clone@": "type", "T@+": "typeParameter", "vec@+": "macro", "edge@+": "function"} {
		if got[word] != want {
			t.Errorf("token %s: %q, want %q", word, got[word], want)
		}
	}
	d, ok := p.Describe(strings.Index(src, "edge(x"))
	if !ok || !strings.Contains(d.Markdown, "**relation** `edge(T, T)`") {
		t.Errorf("edge: %q", d.Markdown)
	}
	if len(p.Diagnostics) > 0 {
		t.Errorf("diagnostics: %v", p.Diagnostics)
	}
}

// TestDatalogMacros: a macro definition's name and parameters and a
// macro use are highlighted; the variables a use passes count as used.
func TestDatalogMacros(t *testing.T) {
	src := "relation e(u32, u32);\nmacro edge($x: expr) { e($x, _) }\nq(a) <-- e(a, _), edge!(a);\n"
	p := parsedDL(t, src)
	got := map[int]string{}
	for _, tok := range p.Tokens() {
		got[tok.Span.Start] = tok.Type
	}
	for at, want := range map[string]string{"macro edge": "keyword", "edge(": "macro", "$x:": "parameter", "$x, _": "parameter", "edge!": "macro"} {
		if off := strings.Index(src, at); got[off] != want {
			t.Errorf("token at %q: %q, want %q", at, got[off], want)
		}
	}
	if len(p.Diagnostics) > 0 {
		t.Errorf("diagnostics: %v", p.Diagnostics)
	}
}
