package lsp

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/ctxql/ctxql/internal/files"
)

// TestWorkspaceSymbolsOfFolder checks workspace/symbol over the files of
// the workspace folder: the outline of a file that is not open is listed
// from disk, an open document's from its editor text (not its saved
// one), hidden directories, node_modules and files the table does not
// know are skipped, and a confined reader (Options.Files) reads nothing
// outside the project, a symbolic link out of it included.
func TestWorkspaceSymbolsOfFolder(t *testing.T) {
	outside := t.TempDir()
	write := func(dir, name, text string) string {
		t.Helper()
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	write(outside, "secret.dl", "relation secretrel(i32);\n")
	dir := t.TempDir()
	write(dir, "rules/reach.dl", "relation reach(i32, i32);\nreach(x, y) <-- edge(x, y);\n")
	open := write(dir, "open.dl", "relation savedrel(i32);\n")
	write(dir, ".hidden/h.dl", "relation hiddenrel(i32);\n")
	write(dir, "node_modules/m.dl", "relation modrel(i32);\n")
	write(dir, "notes.txt", "relation txtrel(i32);\n")
	write(dir, "guide.md", "# Reach guide\n")
	if err := os.Symlink(outside, filepath.Join(dir, "link")); err != nil {
		t.Skipf("no symbolic links: %v", err)
	}
	r, err := files.Confined(dir, 1<<20, "")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.Close() })
	cl := newClient(t, Options{Files: r})
	var res struct{}
	cl.mustCall("initialize", map[string]any{"processId": nil, "capabilities": map[string]any{},
		"rootUri": "file://" + filepath.ToSlash(dir)}, &res)
	cl.send("initialized", map[string]any{})
	cl.open("file://"+filepath.ToSlash(open), "relation editedrel(i32);\n")
	cl.waitDiagnostics("file://"+filepath.ToSlash(open), 1)

	names := func(query string) []string {
		var syms []wireSymbolInformation
		cl.mustCall("workspace/symbol", map[string]any{"query": query}, &syms)
		var out []string
		for _, y := range syms {
			rel, _ := filepath.Rel(dir, FilePath(y.Location.URI))
			out = append(out, y.Name+"@"+filepath.ToSlash(rel))
		}
		return out
	}
	got := names("rel")
	want := []string{"editedrel@open.dl"}
	if !slices.Equal(got, want) {
		t.Errorf("symbols for rel: %v, want %v", got, want)
	}
	got = names("reach")
	want = []string{"Reach guide@guide.md", "reach@rules/reach.dl", "reach@rules/reach.dl"}
	if !slices.Equal(got, want) {
		t.Errorf("symbols for reach: %v, want %v", got, want)
	}
	for _, y := range names("") {
		if strings.Contains(y, "secret") || strings.Contains(y, "hidden") || strings.Contains(y, "mod") || strings.Contains(y, "txt") {
			t.Errorf("symbol %s from a file that must not be read", y)
		}
	}
}
