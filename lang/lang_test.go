package lang

import (
	"slices"
	"testing"

	"github.com/ctxql/ctxql/config"
	"github.com/ctxql/ctxql/syntax"
	"github.com/ctxql/ctxql/syntax/host"
	"github.com/ctxql/ctxql/syntax/pact"
)

func TestForName(t *testing.T) {
	for name, want := range map[string]ID{
		"q.pact":                    PACT,
		"dir/Q.PACT":                PACT,
		"file:///w/queries/a.pact":  PACT,
		`C:\w\a.pact`:               PACT,
		"q.jql":                     JQL,
		"q.jql.json":                JQL,
		"q.jql.yaml":                JQL,
		"q.jql.yml":                 JQL,
		"rules.dl":                  Datalog,
		"README.md":                 Markdown,
		"app.ts":                    Host,
		"app.mjs":                   Host,
		"tool.py":                   Host,
		"main.go":                   Host,
		"data.json":                 "",
		"q.yaml":                    "",
		"pact":                      "",
		"file:///w/dir.pact/q.json": "",
	} {
		got := ID("")
		if l := ForName(name); l != nil {
			got = l.ID
		}
		if got != want {
			t.Errorf("ForName(%q) = %q, want %q", name, got, want)
		}
	}
}

// TestTable checks the table's rows against the front ends and the
// configuration: every suffix names its own row, the host suffixes are the
// ones syntax/host scans, the configurable embedded extensions are host
// suffixes, and every rule belongs to exactly one row.
func TestTable(t *testing.T) {
	seen := map[string]ID{}
	for _, l := range All() {
		if ByID(l.ID) != l {
			t.Errorf("ByID(%q) is another row", l.ID)
		}
		for _, ext := range l.Extensions() {
			if prev, dup := seen[ext]; dup {
				t.Errorf("suffix %s in %s and %s", ext, prev, l.ID)
			}
			seen[ext] = l.ID
			if ForName("x"+ext) != l {
				t.Errorf("ForName(x%s) is not %s", ext, l.ID)
			}
		}
	}
	if got, want := ByID(Host).Extensions(), host.Extensions(); !slices.Equal(got, want) {
		t.Errorf("host suffixes %v, syntax/host scans %v", got, want)
	}
	for _, ext := range config.SupportedExtensions() {
		if ForName("x"+ext) != ByID(Host) {
			t.Errorf("embedded.extensions accepts %s, which is not a host suffix", ext)
		}
	}
	reg, err := Registry()
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, l := range All() {
		n += len(l.Analyzers())
		for _, a := range l.Analyzers() {
			if a.Language != l.ID {
				t.Errorf("%s: rule of %s listed under %s", a.Code, a.Language, l.ID)
			}
		}
	}
	if n != len(reg.All()) || n == 0 {
		t.Errorf("the rows list %d rules, the registry %d", n, len(reg.All()))
	}
	for _, id := range []ID{PACT, JQL, Datalog} {
		if !ByID(id).CanFormat() || len(ByID(id).Analyzers()) == 0 {
			t.Errorf("%s has no formatter or no rules", id)
		}
	}
	if ByID(Markdown).CanFormat() {
		t.Error("Markdown has a formatter")
	}
}

func TestComment(t *testing.T) {
	for name, want := range map[string]string{
		"q.pact":     "// x",
		"q.jql":      "// x",
		"q.jql.yaml": "# x",
		"q.jql.yml":  "# x",
		"r.dl":       "// x",
		"doc.md":     "<!-- x -->",
		"app.ts":     "// x",
		"tool.py":    "# x",
		"main.go":    "// x",
	} {
		if got := ForName(name).Comment(name).Wrap("x"); got != want {
			t.Errorf("%s: comment %q, want %q", name, got, want)
		}
	}
}

func TestResolve(t *testing.T) {
	cfg, err := config.Parse([]byte("dialect:\n  default: v1\n  files: {\"new/*.pact\": v2}\n"))
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		s      Settings
		name   string
		pragma pact.Dialect
		want   pact.Dialect
		from   Source
	}{
		{Settings{}, "q.pact", pact.DialectUnset, pact.V2, FromDefault},
		{Settings{Config: cfg}, "q.pact", pact.DialectUnset, pact.V1, FromConfig},
		{Settings{Config: cfg}, "new/q.pact", pact.DialectUnset, pact.V2, FromConfig},
		{Settings{Editor: pact.V2, Config: cfg}, "q.pact", pact.DialectUnset, pact.V2, FromEditor},
		{Settings{Editor: pact.V1, Config: cfg}, "new/q.pact", pact.DialectUnset, pact.V1, FromEditor},
		{Settings{Editor: pact.V1, Config: cfg}, "q.pact", pact.V2, pact.V2, FromPragma},
		{Settings{Config: config.Default()}, "q.pact", pact.DialectUnset, pact.V2, FromDefault},
	} {
		d, from := c.s.Resolve(c.name, c.pragma)
		if d != c.want || from != c.from {
			t.Errorf("%+v %s pragma %s: %s from %s, want %s from %s", c.s, c.name, c.pragma, d, from, c.want, c.from)
		}
	}
}

// TestParseResolvesDialect checks that a file is parsed in the dialect it
// is given and that its pragma still wins.
func TestParseResolvesDialect(t *testing.T) {
	cfg, err := config.Parse([]byte("dialect: {default: v1}\n"))
	if err != nil {
		t.Fatal(err)
	}
	p, err := ParseFile("q.pact", "[ttl<1]\n", Settings{Config: cfg})
	if err != nil {
		t.Fatal(err)
	}
	if p.Dialect != pact.V1 || !p.Valid() {
		t.Errorf("under dialect.default v1: dialect %s, diagnostics %v", p.Dialect, p.Diagnostics)
	}
	p, _ = ParseFile("q.pact", "// pact: v2\n[ttl<1]\n", Settings{Config: cfg})
	if p.Dialect != pact.V2 || p.Valid() {
		t.Errorf("with a v2 pragma: dialect %s, diagnostics %v", p.Dialect, p.Diagnostics)
	}
	if _, err := ParseFile("q.txt", "", Settings{}); err == nil {
		t.Error("ParseFile of a .txt file: no error")
	}
}

// TestValidate pins the origin of what makes each language's files
// invalid.
func TestValidate(t *testing.T) {
	for _, c := range []struct {
		name, src string
		origin    syntax.Origin
		code      string
	}{
		{"q.pact", ".cb[ttl<=]\n", syntax.OriginSyntax, "pact-syntax"},
		{"q.pact", ".mt:nth(0)\n", syntax.OriginCheck, CodeInvalidPACT},
		{"q.jql", `{"from": "activities", "limit": "x"}`, syntax.OriginCheck, "InvalidQuery"},
		{"q.jql", `{"from": "activities",`, syntax.OriginSyntax, "SyntaxError"},
		{"q.jql", `{"from": "nowhere"}`, syntax.OriginCheck, "InvalidDomain"},
		{"q.dl", `q(x) <-- p(x, "a\q").`, syntax.OriginSyntax, "datalog/bad-escape"},
		{"q.dl", `q(x) :- p(x).`, syntax.OriginSyntax, "datalog/syntax"},
		{"q.dl", "relation p(A);\nq(x, y) <-- p(x).", syntax.OriginCheck, "datalog/unsafe"},
	} {
		p, err := ParseFile(c.name, c.src, Settings{})
		if err != nil {
			t.Fatal(err)
		}
		inv := p.Invalid()
		if len(inv) == 0 || inv[0].Origin != c.origin || inv[0].Code != c.code {
			t.Errorf("%s %q: invalid by %v, want origin %s code %s", c.name, c.src, inv, c.origin, c.code)
		}
		if SyntaxCode(p.Lang.ID) == "" {
			t.Errorf("%s: no syntax code", p.Lang.ID)
		}
	}
	for name, src := range map[string]string{
		"q.pact": "@t0 .seg .summary\n",
		"q.jql":  `{"from": "activities", "limit": 3}`,
		"q.dl":   "q(x) <-- p(x).\n", // p may come from the data
	} {
		if p, _ := ParseFile(name, src, Settings{}); !p.Valid() {
			t.Errorf("%s %q: %v", name, src, p.Invalid())
		}
	}
}
