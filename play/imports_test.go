package play

import (
	"bytes"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"golang.org/x/tools/txtar"
)

// TestFrontDoorImports keeps the playground a front door: what it knows
// about a language comes from the language server or the language table,
// never from an evaluator, the formatter, the migrator or a language's
// syntax package.
func TestFrontDoorImports(t *testing.T) {
	forbidden := []string{"eval", "format", "migrate", "syntax/pact", "syntax/jql", "syntax/datalog", "syntax/host", "analysis", "lint"}
	paths, _ := filepath.Glob("*.go")
	paths = append(paths, filepath.Join("..", "cli", "play.go"))
	for _, p := range paths {
		f, err := parser.ParseFile(token.NewFileSet(), p, nil, parser.ImportsOnly)
		if err != nil {
			t.Fatal(err)
		}
		for _, im := range f.Imports {
			path, _ := strconv.Unquote(im.Path.Value)
			rest, ok := strings.CutPrefix(path, "github.com/ctxql/ctxql/")
			if !ok {
				continue
			}
			for _, f := range forbidden {
				if rest == f || strings.HasPrefix(rest, f+"/") {
					t.Errorf("%s imports %s", p, path)
				}
			}
		}
	}
}

// TestExamplesFromTestdata keeps the examples' sample data the project's
// test fixtures.
func TestExamplesFromTestdata(t *testing.T) {
	for name, src := range map[string]string{
		"history.json":    "../testdata/pact/history.json",
		"activities.json": "../testdata/acp/project/data/activities.json",
	} {
		want, err := os.ReadFile(src)
		must(t, err)
		got, err := examples.ReadFile("examples/" + name)
		must(t, err)
		if !bytes.Equal(got, want) {
			t.Errorf("examples/%s differs from %s", name, src)
		}
	}
	ar, err := txtar.ParseFile("../testdata/datalog/cli/eval_why.txtar")
	must(t, err)
	for _, f := range ar.Files {
		name := map[string]string{"data.json": "reach.json", "prog.dl": "reach.dl"}[f.Name]
		if name == "" {
			continue
		}
		got, err := examples.ReadFile("examples/" + name)
		must(t, err)
		if !bytes.Equal(got, f.Data) {
			t.Errorf("examples/%s differs from %s in eval_why.txtar", name, f.Name)
		}
	}
	ex, err := exampleList()
	must(t, err)
	if len(ex) == 0 {
		t.Fatal("no examples")
	}
	for _, e := range ex {
		for _, f := range []string{e.Query, e.Data} {
			if _, err := examples.ReadFile("examples/" + f); err != nil {
				t.Errorf("example %q: %v", e.Name, err)
			}
		}
	}
}
