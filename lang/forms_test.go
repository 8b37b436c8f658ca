package lang

import (
	"encoding/json"
	"testing"
)

// TestFormsOfTheDoors pins the answers the doors ask the table instead of
// deciding by language themselves.
func TestFormsOfTheDoors(t *testing.T) {
	for _, l := range All() {
		if got, want := l.HostsQueries(), l.ID == Host; got != want {
			t.Errorf("%s: HostsQueries() = %v", l.ID, got)
		}
		if got, want := l.Program(), l.ID == Datalog; got != want {
			t.Errorf("%s: Program() = %v", l.ID, got)
		}
		if got, want := l.Proves(), l.ID == Datalog; got != want {
			t.Errorf("%s: Proves() = %v", l.ID, got)
		}
	}
	for _, c := range []struct {
		id        ID
		src, want string
	}{
		{JQL, `{"from": "activities"}`, "t#c.jql"},
		{JQL, "from: activities\n", "t#c.jql.yaml"},
		{PACT, ".cb", "t#c.pact"},
		{Datalog, "q(x) <-- r(x);", "t#c.dl"},
	} {
		name := ByID(c.id).InlineName("t#c", c.src)
		if name != c.want {
			t.Errorf("InlineName(%s, %q) = %q, want %q", c.id, c.src, name, c.want)
		}
		if ForName(name) != ByID(c.id) {
			t.Errorf("%q is not a %s file", name, c.id)
		}
	}
	raw := json.RawMessage(`["a", 2, true]`)
	if got := string(ByID(Datalog).ExpectedItem(raw)); got != `["a","2","true"]` {
		t.Errorf("Datalog ExpectedItem = %s", got)
	}
	if got := string(ByID(JQL).ExpectedItem(raw)); got != string(raw) {
		t.Errorf("JQL ExpectedItem = %s, want it as written", got)
	}
	if _, ok := SchemaOf(JQL); !ok {
		t.Error("SchemaOf(jql): none")
	}
	if _, ok := SchemaOf(PACT); ok {
		t.Error("SchemaOf(pact): a schema")
	}
	f, left := ByID(PACT).LeftAsIs("a.pact", []byte(".cb\n.block   @mode=latest\n"), V2)
	if len(left) != 1 || f.Position(left[0].Span.Start).Line != 2 {
		t.Errorf("LeftAsIs = %v", left)
	}
	if _, left := ByID(Datalog).LeftAsIs("a.dl", []byte("q(x) <-- r(x);\n"), DialectUnset); left != nil {
		t.Errorf("Datalog LeftAsIs = %v", left)
	}
}

// TestIsCanonicalKeepsLineEnds checks that IsCanonical agrees with Format
// on a file with CRLF line ends, for every language with a formatter.
func TestIsCanonicalKeepsLineEnds(t *testing.T) {
	for _, c := range []struct{ name, src string }{
		{"a.pact", ".cb\r\n"},
		{"a.dl", "q(x) <-- r(x);\r\n"},
		{"a.jql.yaml", "from: activities\r\n"},
	} {
		l := ForName(c.name)
		out, err := l.Format(c.name, []byte(c.src), V2)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		ok, err := l.IsCanonical(c.name, out, V2)
		if err != nil || !ok {
			t.Errorf("%s: IsCanonical(Format(src) = %q) = %v, %v; want true", c.name, out, ok, err)
		}
	}
}

// TestFormatTupleRoundTrips checks that ParseTuple reads back what
// FormatTuple writes, quotes and escapes included.
func TestFormatTupleRoundTrips(t *testing.T) {
	vals := []string{"a", `say "hi"`, "1", ""}
	atom := FormatTuple("q", vals)
	if atom != `q("a", "say \"hi\"", "1", "")` {
		t.Errorf("FormatTuple = %s", atom)
	}
	rel, got, err := ParseTuple(atom)
	if err != nil || rel != "q" || len(got) != len(vals) {
		t.Fatalf("ParseTuple(%s) = %s %q %v", atom, rel, got, err)
	}
	for i := range vals {
		if got[i] != vals[i] {
			t.Errorf("value %d: %q, want %q", i, got[i], vals[i])
		}
	}
}

// TestDataPragmaEdit checks the one writer of the data pragma: DataPragma
// reads back what it writes, in each language's comment syntax, and the
// rest of the file is kept.
func TestDataPragmaEdit(t *testing.T) {
	for _, c := range []struct{ name, src, want string }{
		{"a.pact", ".cb\n", "// data: ./d.json\n.cb\n"},
		{"a.pact", "// pact: v1\n.cb\n", "// pact: v1\n// data: ./d.json\n.cb\n"},
		{"a.pact", "// pact: v2\r\n.cb\r\n", "// pact: v2\r\n// data: ./d.json\r\n.cb\r\n"},
		{"a.pact", "// one\n// two\n// three\n// four\n// five\n// data: ./old.json\n.cb\n", "// one\n// two\n// three\n// four\n// five\n// data: ./d.json\n.cb\n"},
		{"q.jql.yaml", "from: activities\n", "# data: ./d.json\nfrom: activities\n"},
		{"q.jql.yaml", "# data: ./x.json\nfrom: activities\n", "# data: ./d.json\nfrom: activities\n"},
		{"r.dl", "q(x) <-- r(x);\n", "// data: ./d.json\nq(x) <-- r(x);\n"},
		{"doc.md", "# Title\n", "<!-- data: ./d.json -->\n# Title\n"},
	} {
		p := ForName(c.name).Parse(c.name, c.src, DialectUnset)
		e := p.DataPragmaEdit("./d.json")
		got := c.src[:e.Span.Start] + e.NewText + c.src[e.Span.End:]
		if got != c.want {
			t.Errorf("%s %q: %q, want %q", c.name, c.src, got, c.want)
			continue
		}
		q := ForName(c.name).Parse(c.name, got, DialectUnset)
		if pr, ok := q.DataPragma(); !ok || pr.Path != "./d.json" {
			t.Errorf("%s: DataPragma of %q = %+v %v", c.name, got, pr, ok)
		}
	}
}
