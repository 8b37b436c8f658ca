package main

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/ctxql/ctxql/lang"
)

// doorDirs are the front doors whose source the syntax-tree checks read,
// relative to the module root; a directory that does not exist is
// skipped.
var doorDirs = []string{"cli", "lsp", "mcp", "play", "qtest", "resultdiff", "api"}

// readerCalls are the functions that open or list files, by package path:
// a door reaches files through internal/files instead (its size bound,
// its regular-file check, its confinement). os.OpenFile is refused only
// when it opens for reading.
var readerCalls = map[string][]string{
	"os":            {"Open", "OpenFile", "ReadFile", "ReadDir", "DirFS", "OpenRoot", "OpenInRoot"},
	"io/ioutil":     {"ReadFile", "ReadDir"},
	"path/filepath": {"Walk", "WalkDir"},
}

// importNames maps the local names of a file's imports to their paths.
func importNames(f *ast.File) map[string]string {
	names := map[string]string{}
	for _, im := range f.Imports {
		p, _ := strconv.Unquote(im.Path.Value)
		name := p[strings.LastIndex(p, "/")+1:]
		if im.Name != nil {
			name = im.Name.Name
		}
		names[name] = p
	}
	return names
}

// pkgSelector returns the import path and name of a selector pkg.Name on
// an imported package; ok is false for anything else.
func pkgSelector(imports map[string]string, e ast.Expr) (path, name string, ok bool) {
	sel, isSel := e.(*ast.SelectorExpr)
	if !isSel {
		return "", "", false
	}
	id, isID := sel.X.(*ast.Ident)
	if !isID || id.Obj != nil {
		return "", "", false
	}
	path, ok = imports[id.Name]
	return path, sel.Sel.Name, ok
}

// readerFindings lists the places in f that open or list a file other
// than through internal/files.
func readerFindings(fset *token.FileSet, f *ast.File) []string {
	imports := importNames(f)
	var out []string
	writes := map[ast.Expr]bool{} // os.OpenFile selectors of calls that open for writing
	ast.Inspect(f, func(n ast.Node) bool {
		call, ok := n.(*ast.CallExpr)
		if !ok || len(call.Args) < 2 {
			return true
		}
		if p, name, ok := pkgSelector(imports, call.Fun); ok && p == "os" && name == "OpenFile" {
			flags := exprText(call.Args[1])
			if strings.Contains(flags, "O_WRONLY") || strings.Contains(flags, "O_CREATE") {
				writes[call.Fun] = true
			}
		}
		return true
	})
	ast.Inspect(f, func(n ast.Node) bool {
		e, ok := n.(ast.Expr)
		if !ok || writes[e] {
			return true
		}
		if p, name, ok := pkgSelector(imports, e); ok && slices.Contains(readerCalls[p], name) {
			out = append(out, fmt.Sprintf("%s: %s.%s (read files through internal/files)", fset.Position(e.Pos()), p, name))
		}
		return true
	})
	return out
}

// exprText is the source-like text of an expression's identifiers.
func exprText(e ast.Expr) string {
	var b strings.Builder
	ast.Inspect(e, func(n ast.Node) bool {
		if id, ok := n.(*ast.Ident); ok {
			b.WriteString(id.Name + " ")
		}
		return true
	})
	return b.String()
}

// languageIDs are the names of the language table's ID constants.
var languageIDs = []string{"PACT", "JQL", "Datalog", "Markdown", "Host"}

// languageFindings lists the places in f that decide by language in the
// door itself: a comparison with, or a switch case on, one of lang's
// language IDs (or the ID's string), and a string literal that is a file
// extension of the table (exts).
func languageFindings(fset *token.FileSet, f *ast.File, exts []string) []string {
	imports := importNames(f)
	ids := map[string]bool{}
	for _, id := range languageIDs {
		ids[string(lang.ByID(lang.ID(strings.ToLower(id))).ID)] = true
	}
	var isID func(e ast.Expr) bool
	isID = func(e ast.Expr) bool {
		if p, name, ok := pkgSelector(imports, e); ok && p == module+"/lang" && slices.Contains(languageIDs, name) {
			return true
		}
		// lang.ByID(lang.PACT): a row picked by its ID.
		if call, ok := e.(*ast.CallExpr); ok && len(call.Args) == 1 && isID(call.Args[0]) {
			if p, name, ok := pkgSelector(imports, call.Fun); ok && p == module+"/lang" && name == "ByID" {
				return true
			}
		}
		if lit, ok := e.(*ast.BasicLit); ok && lit.Kind == token.STRING {
			s, _ := strconv.Unquote(lit.Value)
			return ids[s]
		}
		return false
	}
	var out []string
	ast.Inspect(f, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.BinaryExpr:
			if (n.Op == token.EQL || n.Op == token.NEQ) && (isID(n.X) || isID(n.Y)) {
				out = append(out, fmt.Sprintf("%s: a comparison with a language ID (ask the language table)", fset.Position(n.Pos())))
			}
		case *ast.CaseClause:
			for _, e := range n.List {
				if isID(e) {
					out = append(out, fmt.Sprintf("%s: a switch on a language ID (ask the language table)", fset.Position(e.Pos())))
				}
			}
		case *ast.BasicLit:
			if n.Kind != token.STRING {
				break
			}
			if s, err := strconv.Unquote(n.Value); err == nil && slices.Contains(exts, s) {
				out = append(out, fmt.Sprintf("%s: the file extension %q (ask the language table)", fset.Position(n.Pos()), s))
			}
		}
		return true
	})
	return out
}

// tableExtensions are the file extensions of the language table.
func tableExtensions() []string {
	var exts []string
	for _, l := range lang.All() {
		exts = append(exts, l.Extensions()...)
	}
	return exts
}

// parseDoors parses the non-test Go files of the doors.
func parseDoors(t *testing.T) (*token.FileSet, []*ast.File) {
	t.Helper()
	fset := token.NewFileSet()
	var out []*ast.File
	for _, d := range doorDirs {
		dir := filepath.Join("..", "..", d)
		ents, err := os.ReadDir(dir)
		if os.IsNotExist(err) {
			continue
		}
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range ents {
			if !strings.HasSuffix(e.Name(), ".go") || strings.HasSuffix(e.Name(), "_test.go") {
				continue
			}
			f, err := parser.ParseFile(fset, filepath.Join(d, e.Name()), readSource(t, filepath.Join(dir, e.Name())), parser.SkipObjectResolution)
			if err != nil {
				t.Fatal(err)
			}
			out = append(out, f)
		}
	}
	if len(out) < 50 {
		t.Fatalf("parsed only %d files of the doors", len(out))
	}
	return fset, out
}

func readSource(t *testing.T, p string) []byte {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestDoorsReadThroughFiles checks that no front door opens or lists a
// file but through internal/files.
func TestDoorsReadThroughFiles(t *testing.T) {
	fset, fs := parseDoors(t)
	for _, f := range fs {
		for _, msg := range readerFindings(fset, f) {
			t.Error(msg)
		}
	}
}

// pendingLanguageSites are the places a door still decides by language,
// by file, with the count of findings: each must go once its logic moves
// behind the table. The test fails when a file has more findings than
// listed (a new site) and when it has fewer (the list is stale). It is
// empty: no door decides by language.
var pendingLanguageSites = map[string]int{}

// TestDoorsKnowNoLanguage checks that no front door compares with or
// switches on a language ID or names a file extension of the table:
// everything it knows about a language it asks lang.
func TestDoorsKnowNoLanguage(t *testing.T) {
	fset, fs := parseDoors(t)
	exts := tableExtensions()
	got := map[string][]string{}
	for _, f := range fs {
		name := fset.Position(f.Package).Filename
		got[name] = append(got[name], languageFindings(fset, f, exts)...)
	}
	for name, msgs := range got {
		want := pendingLanguageSites[name]
		switch {
		case len(msgs) > want:
			for _, msg := range msgs {
				t.Error(msg)
			}
		case len(msgs) < want:
			t.Errorf("%s has %d language sites, pendingLanguageSites lists %d: lower the count", name, len(msgs), want)
		default:
			for _, msg := range msgs {
				t.Logf("PENDING %s", msg)
			}
		}
	}
	for name := range pendingLanguageSites {
		if _, ok := got[name]; !ok {
			t.Errorf("pendingLanguageSites lists %s, which is not a file of the doors", name)
		}
	}
}

// TestDoorCheckersCatchViolations plants each kind of violation in a
// synthetic door file and checks that the checkers report it, and that
// what a door may do is not reported.
func TestDoorCheckersCatchViolations(t *testing.T) {
	src := `package door

import (
	"os/exec"
	"os"
	ioutil "io/ioutil"
	"path/filepath"
	l "github.com/ctxql/ctxql/lang"
)

func bad(id l.ID, name string) {
	os.ReadFile(name)                      // reader 1
	os.Open(name)                          // reader 2
	os.ReadDir(name)                       // reader 3
	os.OpenFile(name, os.O_RDONLY, 0)      // reader 4
	ioutil.ReadFile(name)                  // reader 5
	filepath.WalkDir(name, nil)            // reader 6
	read := os.ReadFile                    // reader 7
	_ = read
	if id == l.PACT {                      // language 1
	}
	switch id {
	case l.JQL, l.Datalog:                 // language 2, 3
	}
	if filepath.Ext(name) == ".dl" {       // language 4 (the extension)
	}
	if string(id) != "pact" {              // language 5
	}
	if l.ForName(name) == l.ByID(l.PACT) { // language 6
	}
}

func good(name string) {
	os.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o644)
	os.WriteFile(name, nil, 0o644)
	os.Stat(name)
	_ = ".json"
	_ = "queries/*.pact"
}
`
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "door.go", src, 0)
	if err != nil {
		t.Fatal(err)
	}
	if got := readerFindings(fset, f); len(got) != 7 {
		t.Errorf("readerFindings found %d, want 7:\n%s", len(got), strings.Join(got, "\n"))
	}
	if got := languageFindings(fset, f, tableExtensions()); len(got) != 6 {
		t.Errorf("languageFindings found %d, want 6:\n%s", len(got), strings.Join(got, "\n"))
	}
}

// unreadOpens are the places outside internal/files that may open or
// list with the os package, each for a reason that reads no file's
// content: by file, the count of such places.
var unreadOpens = map[string]int{
	"acp/state.go":                      1, // opens the state file's directory to sync it after a rename
	"internal/atomicfile/atomicfile.go": 1, // lists a directory for its own stale temporaries
	"internal/files/files.go":           0, // the reader itself (not scanned)
	"internal/nvimtest/nvimtest.go":     1, // a test harness reading Neovim's output
	"internal/pgtest/pgtest.go":         1, // a test harness reading the PostgreSQL server's log
}

// TestEveryFileThroughFiles extends TestDoorsReadThroughFiles to every
// package of the module (test files, the benchmark module and the
// reader itself aside): what docs/security.md says of all of ctxql.
func TestEveryFileThroughFiles(t *testing.T) {
	fset := token.NewFileSet()
	got := map[string]int{}
	err := filepath.WalkDir("../..", func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel("../..", p)
		rel = filepath.ToSlash(rel)
		if d.IsDir() {
			if rel == "bench" || rel == "internal/files" || strings.HasPrefix(d.Name(), ".") && rel != "." || d.Name() == "node_modules" || d.Name() == "testdata" {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(rel, ".go") || strings.HasSuffix(rel, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(fset, rel, readSource(t, p), parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		if n := len(readerFindings(fset, f)); n > 0 {
			got[rel] = n
			if unreadOpens[rel] != n {
				for _, msg := range readerFindings(fset, f) {
					t.Error(msg)
				}
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for name, n := range unreadOpens {
		if got[name] != n {
			t.Errorf("unreadOpens lists %d place(s) in %s, the source has %d", n, name, got[name])
		}
	}
}

// layers are the layers of docs/architecture.md's table, from the bottom
// up, with their packages (a trailing "/..." takes the ones under it).
var layers = [][]string{
	{"syntax"},
	{"syntax/..."},
	{"eval/..."},
	{"sqlgen"},
	{"format", "migrate"},
	{"analysis/..."},
	{"config"},
	{"acp"},
	{"lang"},
	{"engine"},
	{"lint", "report", "resultdiff"},
	{"cli", "cmd/...", "lsp", "mcp", "play", "qtest", "api"},
}

func layerIndex(p string) int {
	best := -1
	for i, l := range layers {
		for _, pat := range l {
			if matches(p, []string{pat}) && !(pat == "syntax" && p != "syntax") {
				best = i
			}
		}
	}
	return best
}

// TestLayers checks what docs/architecture.md says of its layers: a
// package imports packages of its own layer or below it, never above
// (internal packages, which every layer may use, and the editors' test
// harnesses aside), and every package has a layer.
func TestLayers(t *testing.T) {
	if testing.Short() {
		t.Skip("runs go list")
	}
	out, err := exec.Command("go", "list", "-f", "{{.ImportPath}} {{join .Imports \" \"}}", module+"/...").Output()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, out)
	}
	n := 0
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		f := strings.Fields(line)
		from := strings.TrimPrefix(f[0], module+"/")
		if strings.HasPrefix(from, "internal/") || strings.HasPrefix(from, "editors/") || strings.HasPrefix(from, "bench") || f[0] == module {
			continue
		}
		lf := layerIndex(from)
		if lf < 0 {
			t.Errorf("%s has no layer in docs/architecture.md's table", from)
			continue
		}
		n++
		for _, imp := range f[1:] {
			to, ok := strings.CutPrefix(imp, module+"/")
			if !ok || strings.HasPrefix(to, "internal/") {
				continue
			}
			if lt := layerIndex(to); lt > lf {
				t.Errorf("%s (layer %d) imports %s (layer %d), above it", from, lf, to, lt)
			}
		}
	}
	if n < 20 {
		t.Fatalf("checked only %d packages", n)
	}
}
