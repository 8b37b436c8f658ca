package config

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/ctxql/ctxql/internal/golden"
	"github.com/ctxql/ctxql/syntax"
	"github.com/ctxql/ctxql/syntax/host"
)

// TestGolden parses the .ctxql.yaml of every archive, records the error or
// answers the queries, and checks that the schema accepts exactly the files
// Parse accepts (except for errors the schema cannot express).
func TestGolden(t *testing.T) {
	schema := loadSchema(t)
	golden.Run(t, "../testdata/config/*.txtar", func(t *testing.T, c *golden.Case) {
		src := c.Input(".ctxql.yaml")
		cfg, err := Parse([]byte(src))
		schemaErrs := schema.validateYAML(t, src)
		if err != nil {
			var e *Error
			if !errors.As(err, &e) {
				t.Fatalf("error %v is not a *config.Error", err)
			}
			if e.Line < 1 || e.Column < 1 {
				t.Errorf("error without a position: %+v", e)
			}
			c.Want("error", err.Error())
			if len(schemaErrs) == 0 && !strings.Contains(c.Comment(), "schema cannot express") {
				t.Errorf("Parse rejects the file (%v) but the schema accepts it", err)
			}
			return
		}
		c.Want("error", "")
		if len(schemaErrs) > 0 {
			t.Errorf("Parse accepts the file but the schema rejects it: %v", schemaErrs)
		}
		if c.Has("names") {
			names := map[string]string{}
			for _, l := range lines(c.Input("names")) {
				f := strings.Fields(l)
				names[f[0]] = f[1]
			}
			cfg = cfg.WithRuleNames(names)
		}
		var out strings.Builder
		for _, l := range lines(c.Input("queries")) {
			f := strings.Fields(l)
			var res string
			switch f[0] {
			case "enabled":
				res = fmt.Sprint(cfg.Enabled(f[1], f[2]))
			case "severity":
				def, err := syntax.ParseSeverity(f[2])
				if err != nil {
					t.Fatal(err)
				}
				res = cfg.Severity(f[1], def).String()
			case "dialect":
				res = cfg.Dialect(f[1]).String()
			case "data":
				res = cfg.DataFor(f[1])
				if res != "" {
					wd, _ := os.Getwd()
					res, _ = filepath.Rel(wd, res) // Parse resolves against the working directory
					res = "<wd>/" + filepath.ToSlash(res)
				}
			case "calls":
				res = fmt.Sprint(cfg.Calls())
			case "extensions":
				res = fmt.Sprint(cfg.Extensions())
			case "embedded":
				res = fmt.Sprint(cfg.Embedded(f[1]))
			case "excluded":
				res = fmt.Sprint(cfg.Excluded(f[1]))
			default:
				t.Fatalf("unknown query %q", l)
			}
			fmt.Fprintf(&out, "%s => %s\n", l, res)
		}
		c.Want("results", out.String())
	})
}

func lines(s string) []string {
	var out []string
	for _, l := range strings.Split(s, "\n") {
		if l = strings.TrimSpace(l); l != "" && !strings.HasPrefix(l, "#") {
			out = append(out, l)
		}
	}
	return out
}

// TestLoadWalksUp writes a configuration two directories above the start
// directory and checks Load finds it, resolves globs and data paths against
// its directory, and accepts absolute and relative file arguments.
func TestLoadWalksUp(t *testing.T) {
	root := t.TempDir()
	deep := filepath.Join(root, "src", "pkg")
	if err := os.MkdirAll(deep, 0o755); err != nil {
		t.Fatal(err)
	}
	cfgText := "data:\n  \"src/**/*.pact\": data/tree.json\ndialect:\n  files:\n    \"src/pkg/*\": v1\nexclude: [gen/]\n"
	if err := os.WriteFile(filepath.Join(root, FileName), []byte(cfgText), 0o644); err != nil {
		t.Fatal(err)
	}
	cfg, path, err := Load(deep)
	if err != nil {
		t.Fatal(err)
	}
	if want := filepath.Join(root, FileName); path != want {
		t.Errorf("path = %q, want %q", path, want)
	}
	if err := os.WriteFile(filepath.Join(deep, "q.pact"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, p2, err := Load(filepath.Join(deep, "q.pact")); err != nil || p2 != path {
		t.Errorf("Load(a file) = %q, %v; want %q", p2, err, path)
	}
	if cfg.Dir() != root {
		t.Errorf("Dir() = %q, want %q", cfg.Dir(), root)
	}
	abs := filepath.Join(deep, "q.pact")
	want := filepath.Join(root, "data", "tree.json")
	for _, f := range []string{abs, "src/pkg/q.pact", "./src/pkg/q.pact"} {
		if got := cfg.DataFor(f); got != want {
			t.Errorf("DataFor(%q) = %q, want %q", f, got, want)
		}
		if got := cfg.Dialect(f).String(); got != "v1" {
			t.Errorf("Dialect(%q) = %s, want v1", f, got)
		}
	}
	if got := cfg.DataFor(filepath.Join(filepath.Dir(root), "other", "src", "q.pact")); got != "" {
		t.Errorf("DataFor outside the configuration directory = %q, want \"\"", got)
	}
	if !cfg.Excluded(filepath.Join(root, "gen", "x.pact")) || cfg.Excluded(filepath.Join(root, "gen.pact")) {
		t.Errorf("Excluded: gen/ must match gen/x.pact and not gen.pact")
	}

	// A directory named like the file is skipped; without a file Load
	// returns Default and "" (assuming no .ctxql.yaml above the temp dir).
	empty := t.TempDir()
	if err := os.Mkdir(filepath.Join(empty, FileName), 0o755); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(filepath.Dir(empty), FileName)); err == nil {
		t.Skip("a .ctxql.yaml exists above the temporary directory")
	}
	cfg, path, err = Load(empty)
	if err != nil || path != "" || cfg == nil || !slices.Equal(cfg.Calls(), []string{"ctx.select"}) {
		t.Errorf("Load(no config) = %v, %q, %v; want Default(), \"\", nil", cfg, path, err)
	}
}

// TestLoadError checks that Load reports parse errors with the file name and
// position.
func TestLoadError(t *testing.T) {
	root := t.TempDir()
	p := filepath.Join(root, FileName)
	if err := os.WriteFile(p, []byte("rules:\n  select: [PACT]\n  sevrity: {}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, _, err := Load(root)
	var e *Error
	if !errors.As(err, &e) {
		t.Fatalf("Load error %v is not a *config.Error", err)
	}
	if e.Path != p || e.Line != 3 || e.Column != 3 || !strings.HasPrefix(err.Error(), p+":3:3: unknown key \"sevrity\"") {
		t.Errorf("error = %q (%+v)", err, e)
	}
}

// TestMatch pins the glob syntax.
func TestMatch(t *testing.T) {
	tests := []struct {
		pattern, name string
		want          bool
	}{
		{"*.pact", "a.pact", true},
		{"*.pact", "x/y/a.pact", true},
		{"*.pact", "a.jql", false},
		{"/*.pact", "x/a.pact", false},
		{"./*.pact", "a.pact", true},
		{"src/*.pact", "src/a.pact", true},
		{"src/*.pact", "src/x/a.pact", false},
		{"src/*.pact", "lib/src/a.pact", false},
		{"src/**/*.pact", "src/a.pact", true},
		{"src/**/*.pact", "src/x/y/a.pact", true},
		{"**/test/*", "a/b/test/c.ts", true},
		{"**", "anything/at/all", true},
		{"vendor", "vendor/a/b.go", true},
		{"vendor", "src/vendor/a.go", true},
		{"vendor/", "vendor", false},
		{"vendor/", "vendor/x", true},
		{"vendor", "vendors/x", false},
		{"a?c", "abc", true},
		{"[ab].go", "b.go", true},
		{"[ab].go", "c.go", false},
		{`\*.go`, "*.go", true},
		{`\*.go`, "x.go", false},
		{"a[", "a[", false},
		{"", "a", false},
	}
	for _, tt := range tests {
		if got := Match(tt.pattern, tt.name); got != tt.want {
			t.Errorf("Match(%q, %q) = %v, want %v", tt.pattern, tt.name, got, tt.want)
		}
	}
	for _, bad := range []string{"", "a[", "a//b", "/"} {
		if ValidGlob(bad) == nil {
			t.Errorf("ValidGlob(%q) = nil, want an error", bad)
		}
	}
}

// TestEnabledSpecificity pins the select/ignore precedence.
func TestEnabledSpecificity(t *testing.T) {
	tests := []struct {
		yaml string
		code string
		want bool
	}{
		{"rules: {select: [PACT], ignore: [PACT00]}", "PACT001", false},
		{"rules: {select: [PACT], ignore: [PACT00]}", "PACT010", true},
		{"rules: {select: [PACT001], ignore: [PACT]}", "PACT001", true},
		{"rules: {select: [PACT0], ignore: [PACT0]}", "PACT001", false},
		{"rules: {select: [ALL], ignore: [JQL]}", "JQL001", false},
		{"rules: {select: [ALL], ignore: [JQL]}", "DOC001", true},
		{"rules: {ignore: [JQL]}", "DOC001", true},
		{"rules: {select: [JQL]}", "DOC001", false},
		{"rules: {select: [pact]}", "PACT001", false},
		{"rules: {select: [PACT-]}", "PACT-1", false},
		{"rules: {select: [datalog/arity]}", "datalog/arity", true},
	}
	for _, tt := range tests {
		cfg, err := Parse([]byte(tt.yaml))
		if err != nil {
			t.Fatalf("%s: %v", tt.yaml, err)
		}
		if got := cfg.Enabled(tt.code, "a.pact"); got != tt.want {
			t.Errorf("%s: Enabled(%s) = %v, want %v", tt.yaml, tt.code, got, tt.want)
		}
	}
}

// TestWithRuleNamesCopies checks WithRuleNames leaves the receiver alone.
func TestWithRuleNamesCopies(t *testing.T) {
	cfg, err := Parse([]byte("rules:\n  ignore: [legacy-cont-offset]\n"))
	if err != nil {
		t.Fatal(err)
	}
	named := cfg.WithRuleNames(map[string]string{"legacy-cont-offset": "PACT002"})
	if named.Enabled("PACT002", "a.pact") || !cfg.Enabled("PACT002", "a.pact") {
		t.Errorf("names must apply to the copy only")
	}
}

// TestDefault checks the documented defaults.
func TestDefault(t *testing.T) {
	d := Default()
	if !d.Enabled("ANY001", "/abs/x.pact") || d.Severity("X1", syntax.SeverityHint) != syntax.SeverityHint ||
		d.Dialect("x.pact").String() != "v2" || d.DataFor("x.pact") != "" || d.Excluded("x.pact") ||
		!slices.Equal(d.Calls(), []string{"ctx.select"}) || !slices.Equal(d.Extensions(), []string{".ts", ".js", ".py", ".go"}) {
		t.Errorf("Default() does not have the documented defaults")
	}
	// Callers cannot change the defaults through the returned slices.
	d.Calls()[0] = "x"
	if Default().Calls()[0] != "ctx.select" {
		t.Errorf("Calls() exposes shared state")
	}
}

// TestExtensionsMatchHost checks that embedded.extensions accepts exactly the
// extensions the embedded-query finder understands, and that the defaults
// are among them.
func TestExtensionsMatchHost(t *testing.T) {
	if got, want := SupportedExtensions(), host.Extensions(); !slices.Equal(got, want) {
		t.Errorf("SupportedExtensions() = %v, host.Extensions() = %v", got, want)
	}
	for _, e := range DefaultExtensions() {
		if !host.Supported("x" + e) {
			t.Errorf("default extension %s is not supported by host", e)
		}
	}
}
