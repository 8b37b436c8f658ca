package play

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ctxql/ctxql/lang"
)

// TestExport writes the static playground and checks what a static file
// server would serve: the page on the module backend under its policy,
// with relative URLs only; the page's assets as embedded; the module's
// files; info.json describing the language table's query languages and
// the examples, with no project files.
func TestExport(t *testing.T) {
	module := Module{}
	for _, name := range ModuleFiles {
		module[name] = []byte("contents of " + name)
	}
	dir := filepath.Join(t.TempDir(), "new", "site")
	if err := Export(dir, module, ExportOptions{Version: "v1.2.3", Timeout: 5 * time.Second}); err != nil {
		t.Fatal(err)
	}
	read := func(name string) []byte {
		t.Helper()
		b, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(name)))
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	page := string(read("index.html"))
	for _, want := range []string{`<meta name="ctxql-backend" content="module">`, `http-equiv="Content-Security-Policy"`, "connect-src 'self'", "'wasm-unsafe-eval'"} {
		if !strings.Contains(page, want) {
			t.Errorf("index.html lacks %s:\n%s", want, page)
		}
	}
	if strings.Contains(page, "STYLE-NONCE") {
		t.Error("index.html keeps the served page's nonce placeholder")
	}
	for _, m := range regexp.MustCompile(`(?:src|href)="([^"]*)"`).FindAllStringSubmatch(page, -1) {
		if strings.HasPrefix(m[1], "/") || strings.Contains(m[1], "//") {
			t.Errorf("index.html names %q: not relative to the page", m[1])
		}
	}
	for _, name := range []string{"app.js", "app.css", "worker.js"} {
		want, _ := dist.ReadFile("dist/" + name)
		if got := read("assets/" + name); string(got) != string(want) {
			t.Errorf("assets/%s differs from the embedded page's", name)
		}
	}
	for _, name := range ModuleFiles {
		if got := read("ctxql/" + name); string(got) != "contents of "+name {
			t.Errorf("ctxql/%s = %q", name, got)
		}
	}
	var info struct {
		Version   string         `json:"version"`
		TimeoutMs int64          `json:"timeoutMs"`
		Files     *bool          `json:"files"`
		Languages []infoLanguage `json:"languages"`
		Examples  []example      `json:"examples"`
	}
	if err := json.Unmarshal(read("info.json"), &info); err != nil {
		t.Fatal(err)
	}
	var ids, want []string
	for _, l := range info.Languages {
		ids = append(ids, l.ID)
	}
	for _, l := range lang.Queries() {
		want = append(want, string(l.ID))
	}
	if !slices.Equal(ids, want) || info.Version != "v1.2.3" || info.Files == nil || *info.Files || info.TimeoutMs != 5000 {
		t.Errorf("info.json: languages %v (want %v), version %q, files %v, timeoutMs %d", ids, want, info.Version, info.Files, info.TimeoutMs)
	}
	ex, _ := exampleList()
	if !slices.Equal(info.Examples, ex) || len(ex) == 0 {
		t.Errorf("info.json: examples %v, want %v", info.Examples, ex)
	}
	for _, e := range ex {
		for _, f := range []string{e.Query, e.Data} {
			want, _ := examples.ReadFile("examples/" + f)
			if got := read("examples/" + f); string(got) != string(want) {
				t.Errorf("examples/%s differs from the embedded example", f)
			}
		}
	}

	// Exporting again over the site rewrites it; a module missing a file
	// is refused before anything is written.
	if err := Export(dir, module, ExportOptions{Version: "v1.2.4"}); err != nil {
		t.Errorf("export over an export: %v", err)
	}
	delete(module, "ctxql.wasm")
	other := filepath.Join(t.TempDir(), "other")
	if err := Export(other, module, ExportOptions{}); err == nil || !strings.Contains(err.Error(), "ctxql.wasm") {
		t.Errorf("a module without ctxql.wasm: %v", err)
	}
	if _, err := os.Stat(other); !os.IsNotExist(err) {
		t.Errorf("a refused export wrote %s: %v", other, err)
	}
}
