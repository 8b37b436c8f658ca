package main

import (
	"os"
	"os/exec"
	"strings"
	"testing"
)

// benchOnly are modules that only the benchmarks (the bench module) or
// the differential tests use; the binary must not link them. (The SQL
// engines' pure-Go drivers, modernc.org/sqlite and pgx, are the binary's:
// `ctxql load` and `eval --engine` use them.)
var benchOnly = []string{
	"github.com/andybalholm/cascadia",
	"github.com/bytedance/sonic",
	"github.com/goccy/go-json",
	"golang.org/x/net/html",
}

// TestBinaryDependencies checks that the ctxql binary builds without the
// anchor engines the benchmarks compare against: none of their packages is
// among the binary's dependencies, and the tool's go.mod does not require
// the ones only the bench module uses.
func TestBinaryDependencies(t *testing.T) {
	if testing.Short() {
		t.Skip("runs go list")
	}
	out, err := exec.Command("go", "list", "-deps", "github.com/ctxql/ctxql/cmd/ctxql").CombinedOutput()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, out)
	}
	pkgs := strings.Fields(string(out))
	if len(pkgs) < 50 {
		t.Fatalf("go list -deps listed only %d packages", len(pkgs))
	}
	for _, p := range pkgs {
		for _, m := range benchOnly {
			if p == m || strings.HasPrefix(p, m+"/") {
				t.Errorf("the binary depends on %s (module %s, for benchmarks and tests only)", p, m)
			}
		}
	}
	b, err := os.ReadFile("../../go.mod")
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(string(b), "\n") {
		f := strings.Fields(line)
		if len(f) > 0 && f[0] == "require" {
			f = f[1:]
		}
		if len(f) > 0 && (f[0] == "github.com/bytedance/sonic" || f[0] == "github.com/goccy/go-json") {
			t.Errorf("go.mod requires %s, which only the bench module uses", f[0])
		}
	}
}

// module is the import path of the module.
const module = "github.com/ctxql/ctxql"

// belowTable are the packages (a trailing "/..." takes the ones under it)
// that may import an evaluator, the migrator, the formatter or a
// language's syntax package: the language table and the layers under it.
var belowTable = []string{
	"lang", "lint", "analysis/...", "eval/...", "sqlgen", "syntax/...", "format", "migrate", "config", "internal/...",
}

// frontDoors are the packages that face users. They reach every language
// through the table (lang) and import none of the packages forbidden
// names. pending, when set, says why a door is still being converted: the
// test then logs its imports instead of failing, and the entry must go
// once the door is converted.
var frontDoors = []struct {
	pkg     string
	pending string
}{
	{pkg: "cli"},
	{pkg: "mcp"},
	{pkg: "resultdiff"},
	{pkg: "cmd/ctxql"},
	{pkg: "cmd/lint"},
	{pkg: "cmd/lsp"},
	{pkg: "qtest"},
	{pkg: "lsp"},
	{pkg: "play"},
	{pkg: "api"},
}

// forbidden reports whether a front door may not import the package p.
func forbidden(p string) bool {
	p, ok := strings.CutPrefix(p, module+"/")
	return ok && (p == "migrate" || p == "format" || p == "eval" || strings.HasPrefix(p, "eval/") || strings.HasPrefix(p, "syntax/"))
}

func matches(p string, patterns []string) bool {
	for _, pat := range patterns {
		if base, ok := strings.CutSuffix(pat, "/..."); ok && (p == base || strings.HasPrefix(p, base+"/")) || p == pat {
			return true
		}
	}
	return false
}

// TestFrontDoorImports checks that no front door imports an evaluator
// (eval/...), the migrator, the formatter or a language's syntax package:
// each listed door is checked, and any other package of the module that
// imports one of them must be a layer below the table (belowTable), so a
// new front door cannot import them unnoticed. Test files are not
// considered.
func TestFrontDoorImports(t *testing.T) {
	if testing.Short() {
		t.Skip("runs go list")
	}
	out, err := exec.Command("go", "list", "-f", "{{.ImportPath}} {{join .Imports \" \"}}", module+"/...").CombinedOutput()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, out)
	}
	imports := map[string][]string{}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		f := strings.Fields(line)
		if len(f) > 0 {
			imports[strings.TrimPrefix(f[0], module+"/")] = f[1:]
		}
	}
	if len(imports) < 20 {
		t.Fatalf("go list listed only %d packages", len(imports))
	}
	doors := map[string]string{}
	for _, d := range frontDoors {
		if _, ok := imports[d.pkg]; !ok {
			t.Errorf("front door %s is not a package of the module", d.pkg)
		}
		doors[d.pkg] = d.pending
	}
	for pkg, imps := range imports {
		var bad []string
		for _, i := range imps {
			if forbidden(i) {
				bad = append(bad, strings.TrimPrefix(i, module+"/"))
			}
		}
		if len(bad) == 0 || matches(pkg, belowTable) {
			continue
		}
		pending, door := doors[pkg]
		switch {
		case !door:
			t.Errorf("%s imports %v: a front door reaches the languages through lang (a layer below the table belongs in belowTable)", pkg, bad)
		case pending != "":
			t.Logf("PENDING %s imports %v (%s)", pkg, bad, pending)
		default:
			t.Errorf("front door %s imports %v: it must go through lang", pkg, bad)
		}
	}
}

// TestFrontDoorRules pins what TestFrontDoorImports forbids and allows.
func TestFrontDoorRules(t *testing.T) {
	for p, want := range map[string]bool{
		module + "/eval/pact": true, module + "/eval/datalog/repl": true, module + "/migrate": true,
		module + "/format": true, module + "/syntax/jql": true, module + "/syntax": false, module + "/lang": false,
		module + "/evaluate": false, "github.com/other/eval/pact": false,
	} {
		if forbidden(p) != want {
			t.Errorf("forbidden(%s) = %v", p, !want)
		}
	}
	for p, want := range map[string]bool{"lang": true, "eval/pact": true, "internal/files": true, "cli": false, "playground": false, "lsp": false} {
		if matches(p, belowTable) != want {
			t.Errorf("%s below the table: %v", p, !want)
		}
	}
}

// layerOf is the node of docs/architecture.md's diagram a package belongs
// to, "" for packages the diagram leaves out (internal helpers, editors).
func layerOf(p string) string {
	switch {
	case p == "syntax":
		return "syntax"
	case strings.HasPrefix(p, "syntax/"):
		return "frontends"
	case p == "eval" || strings.HasPrefix(p, "eval/"):
		return "eval"
	case p == "analysis" || strings.HasPrefix(p, "analysis/"):
		return "analysis"
	case p == "cli" || strings.HasPrefix(p, "cmd/"):
		return "cli"
	case strings.HasPrefix(p, "internal/") || strings.HasPrefix(p, "editors/") || strings.HasPrefix(p, "bench"):
		return ""
	}
	return p
}

// TestArchitectureDiagram checks that the import diagram of
// docs/architecture.md has exactly the edges the packages' imports give
// (test files aside), node by node. The edges of a front door marked
// pending in frontDoors are logged, not compared.
func TestArchitectureDiagram(t *testing.T) {
	if testing.Short() {
		t.Skip("runs go list")
	}
	doc, err := os.ReadFile("../../docs/architecture.md")
	if err != nil {
		t.Fatal(err)
	}
	_, block, ok := strings.Cut(string(doc), "```mermaid\n")
	block, _, _ = strings.Cut(block, "```")
	if !ok {
		t.Fatal("docs/architecture.md has no mermaid diagram")
	}
	node := func(s string) string {
		s = strings.TrimSpace(s)
		if i := strings.IndexByte(s, '['); i >= 0 {
			s = s[:i]
		}
		return s
	}
	drawn := map[string]bool{}
	for _, line := range strings.Split(block, "\n") {
		from, to, ok := strings.Cut(line, "-->")
		if ok {
			drawn[node(from)+" --> "+node(to)] = true
		}
	}
	out, err := exec.Command("go", "list", "-f", "{{.ImportPath}} {{join .Imports \" \"}}", module+"/...").CombinedOutput()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, out)
	}
	pending := map[string]bool{}
	for _, d := range frontDoors {
		if d.pending != "" {
			pending[layerOf(d.pkg)] = true
		}
	}
	actual := map[string]bool{}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		f := strings.Fields(line)
		from := layerOf(strings.TrimPrefix(f[0], module+"/"))
		if from == "" {
			continue
		}
		for _, i := range f[1:] {
			rel, ok := strings.CutPrefix(i, module+"/")
			if to := layerOf(rel); ok && to != "" && to != from {
				actual[from+" --> "+to] = true
			}
		}
	}
	if len(drawn) < 20 || len(actual) < 20 {
		t.Fatalf("%d edges drawn, %d imported", len(drawn), len(actual))
	}
	for e := range actual {
		if pending[strings.Fields(e)[0]] {
			if !drawn[e] {
				t.Logf("PENDING %s (imported, not drawn)", e)
			}
			continue
		}
		if !drawn[e] {
			t.Errorf("the diagram lacks %s", e)
		}
	}
	for e := range drawn {
		if !actual[e] && !pending[strings.Fields(e)[0]] {
			t.Errorf("the diagram draws %s, which no import makes", e)
		}
	}
}
